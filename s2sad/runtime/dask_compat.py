"""NumPy functions ``dask.array`` does not have, for the Dask target.

The Dask target's code is the NumPy code with ``dask.array`` for ``numpy``. Where Dask
lacks a NumPy function that s2sad's rules or generated code call, the Dask code calls
the stand-in here of the same name (:func:`replacement` says which). Each one computes
with the array module of its arguments (:func:`s2sad.backends.array_module`): lazily, with
Dask's own functions, on Dask arrays; on NumPy arrays it gives what NumPy gives.

>>> import numpy as np
>>> x = np.array([[3.0, 4.0], [6.0, -8.0]])
>>> amax(x, axis=1), size(x), inner(x[0], x[1])
(array([4., 6.]), 4, np.float64(-14.0))
>>> replacement("numpy", "s_"), replacement("numpy", "sin")
('s_', None)
"""

from __future__ import annotations

import builtins

import numpy as np

from ..backends import DASK, array_module
from ..backends import dask_backend as _dask_backend
from .shapes import _known_shape
from .elementwise import _clip_bounds
from .structures import as_gradient
from . import cupy_compat

# the NumPy functions Dask lacks (module, name) -> the name of their stand-in here (a fact
# of the Dask backend: ``s2sad.backends.dask_backend``)
REPLACEMENTS = DASK.stand_ins

# (the stand-ins written for CuPy compute with any array module's norm, sum and moveaxis)
vector_norm = cupy_compat.vector_norm
matrix_norm = cupy_compat.matrix_norm
vecdot = cupy_compat.vecdot


finfo, iinfo = np.finfo, np.iinfo  # (of a dtype: nothing to compute)


def split(ary, indices_or_sections, axis=0):
    """``np.split``: slices of ``ary`` (Dask has no ``split``).

    >>> [p.tolist() for p in split(np.arange(5.0), [2])]
    [[0.0, 1.0], [2.0, 3.0, 4.0]]
    """
    return array_module(ary).split(ary, indices_or_sections, axis=axis)


def tensordot(a, b, axes=2):
    """``np.tensordot`` with the axes made non-negative and the contracted chunks lined
    up (Dask's own, given ``axes=([-1], [-1])``, drops rows without a word).

    >>> tensordot(np.ones((3, 4)), np.ones(4), axes=([-1], [-1]))
    array([4., 4., 4.])
    """
    return array_module(a, b).tensordot(a, b, axes=axes)


def reshape(a, shape=None, order="C", **kwargs):
    """``np.reshape`` in C order (Dask's takes no ``order``; it reads its items in C order
    alone; Fortran order is C order of the axes reversed), across chunk boundaries (the trailing axes made one chunk first, where Dask
    cannot reshape the chunks as they are; the whole array one chunk where even that fails:
    ``(6, 5)`` in row chunks of 4 to ``(3, 10)``).

    >>> reshape(np.arange(6.0), (2, 3)).shape
    (2, 3)
    """
    shape = kwargs.pop("newshape", shape) if shape is None else shape
    xp = array_module(a)
    if xp is np:
        return np.reshape(a, shape, order=order)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    a = xp.asarray(a)
    if order == "F":  # (Fortran order: C order of the axes reversed)
        return xp.transpose(reshape(xp.transpose(a), shape[::-1]))
    if order not in ("C", "A"):  # ("A": "F" for an array in Fortran order, which no Dask
        # array is: its chunks are NumPy's in C order)
        raise ValueError(f"order must be one of 'C', 'F', 'A' (got {order!r})")
    try:
        return xp.reshape(a, shape)
    except NotImplementedError:  # (chunks Dask cannot reshape as they are)
        pass
    try:
        return xp.reshape(a.rechunk({i: -1 for i in range(1, a.ndim)}), shape)
    except NotImplementedError:  # (rows that do not split evenly into the new axes)
        return xp.reshape(a.rechunk(-1), shape)


def fused(kernel, *args):
    """``kernel(*args)``, a run of elementwise statements made one function
    (:mod:`s2sad.transforms.lazy_kernels`), in one Dask operation where an argument is a
    Dask array: the kernel runs on each chunk (broadcast and lined up as Dask lines up the
    operands of an operation), one task layer in place of one per statement. Without a
    Dask array among ``args``, or with an argument that is no array or number (a list,
    which ``*`` repeats), the kernel called as it is: its statements, one operation each.

    >>> fused(lambda a, b: -a * b + 1.0, np.ones(2), 2.0)
    array([-1., -1.])
    """
    if not any(map(DASK.is_lazy, args)) or not all(map(_chunkable, args)):
        return kernel(*args)
    from dask.array.core import elemwise
    from dask.base import tokenize
    # (the dtype of the kernel on one item of each array, as Dask finds an operation's; a
    # Python number's error, 1.0 / 0.0, is raised here as the statement raises it)
    with np.errstate(all="ignore"):
        dtype = np.result_type(kernel(*[np.zeros((1,) * a.ndim, a.dtype)
                                        if isinstance(a, np.ndarray) or DASK.is_lazy(a)
                                        else a for a in args]))
    name = f"{kernel.__name__}-" + tokenize(kernel.__code__.co_filename, kernel.__qualname__,
                                            *args)
    return elemwise(kernel, *args, dtype=dtype, name=name)


def _chunkable(value) -> bool:
    """Does ``fused`` take ``value`` chunk by chunk as an operation takes it: a Dask or
    NumPy array, a NumPy scalar, a Python number?"""
    return DASK.is_lazy(value) or isinstance(value, (np.ndarray, np.generic, int, float,
                                                     complex))


def replacement(module: str, name: str) -> str | None:
    """The name of this module's stand-in for NumPy's ``module.name`` on the Dask target,
    or None where Dask has that function itself."""
    return REPLACEMENTS.get((module, name))


class s_:  # noqa: N801 (NumPy's name)
    """``np.s_``: ``s_[i]`` is the index ``i`` itself (Dask has no ``s_``).

    >>> s_[1:3, None]
    (slice(1, 3, None), None)
    """

    def __class_getitem__(cls, index):
        return index


class index_exp:  # noqa: N801 (NumPy's name)
    """``np.index_exp``: ``index_exp[i]`` is the index ``i`` as a tuple (Dask has none).

    >>> index_exp[::2]
    (slice(None, None, 2),)
    """

    def __class_getitem__(cls, index):
        return index if isinstance(index, tuple) else (index,)


def take(a, indices, axis=None, out=None, mode="raise"):
    """``np.take``: of the flattened array where ``axis`` is None (Dask's own takes along
    axis 0 then), with NumPy's ``mode`` (``"wrap"``: modulo the length; ``"clip"``: into
    it, a negative index to 0) and indices of any shape (Dask's takes one axis of them).

    >>> take(np.arange(6.0).reshape(2, 3), [[5, -7]], mode="wrap").tolist()
    [[5.0, 5.0]]
    """
    xp = array_module(a, indices)
    if xp is np:
        return np.take(a, indices, axis=axis, out=out, mode=mode)
    if out is not None:
        raise ValueError("s2sad's Dask target writes no array in place: np.take(..., out=) "
                         "is not run on Dask; use the result (y = np.take(a, i))")
    a = xp.asarray(a)
    if axis is None:
        a, axis = xp.ravel(a), 0
    axis = axis % a.ndim
    n = a.shape[axis]
    index = indices if DASK.is_lazy(indices) else np.asarray(indices)
    if mode == "wrap":
        index = index % n
    elif mode == "clip":
        index = xp.clip(index, 0, n - 1) if DASK.is_lazy(index) else np.clip(index, 0, n - 1)
    elif mode != "raise":
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    if not DASK.is_lazy(index) and index.size and \
            bool(np.any((index < -n) | (index >= n))):
        raise IndexError(f"index {int(index.ravel()[np.argmax((index < -n) | (index >= n))])}"
                         f" is out of bounds for axis {axis} with size {n}")
    shape = a.shape[:axis] + tuple(index.shape) + a.shape[axis + 1:]
    taken = xp.take(a, index.reshape(-1) if index.ndim != 1 else index, axis=axis)
    return taken if index.ndim == 1 else xp.reshape(taken, shape)


def index(a, key):
    """``a[key]`` as NumPy indexes: Dask's own takes one array of indices, of one axis.
    Where ``key`` holds several arrays of indices, or one of several axes, or a mask, the
    positions it picks are found by NumPy's own indexing of each axis's numbers (views
    of ``a``'s shape: no array of ``a``'s size is made) and taken from the flattened array.

    >>> index(np.arange(6.0).reshape(2, 3), (np.array([0, 1]), [2, -3]))
    array([2., 3.])
    """
    if not DASK.is_lazy(a):
        return a[key]
    parts = key if isinstance(key, tuple) else (key,)
    arrays = [p for p in parts if not (p is None or p is Ellipsis or isinstance(
        p, (slice, int, np.integer)))]
    numbers = any(isinstance(p, (int, np.integer)) for p in parts)  # (with an array of
    # indices, NumPy broadcasts a number with it: Dask's own does not)
    if len(arrays) == 1 and not numbers:
        one = arrays[0] if DASK.is_lazy(arrays[0]) else np.asarray(arrays[0])
        if one.ndim == 1 and one.dtype.kind in "iu" or DASK.is_lazy(one) and \
                one.dtype == bool:  # (a mask computed on Dask: sizes Dask does not know,
            return a[key]           # refused after)
    if not arrays or not a.ndim:
        return a[key]  # (Dask's own: numbers and slices)
    if any(map(DASK.is_lazy, parts)):  # (indices computed on Dask: what they are now)
        import dask
        done = iter(dask.compute(*[p for p in parts if DASK.is_lazy(p)]))
        parts = tuple(next(done) if DASK.is_lazy(p) else p for p in parts)
        key = parts if isinstance(key, tuple) else parts[0]
    _known_shape(a)
    xp = array_module(a)
    shape = tuple(int(n) for n in a.shape)
    axes = [np.broadcast_to(np.arange(n).reshape((1,) * k + (n,) + (1,) * (len(shape) - k - 1)),
                            shape)[key] for k, n in enumerate(shape)]
    flat = np.ravel_multi_index(axes, shape)
    return xp.reshape(xp.take(xp.ravel(a), flat.reshape(-1), axis=0), flat.shape)


def python_round(number, ndigits=None):
    """Python's ``round(number, ndigits)``; of a Dask array (of one item, as
    ``np.sum(x)`` is), what the NumPy scalar it holds gives: with ``ndigits``, NumPy's
    rounding of it, lazily (``da.round``); without, a Python int, which needs its value.

    >>> python_round(np.float64(2.5)), python_round(np.float64(2.567), 1)
    (2, np.float64(2.6))
    """
    if not DASK.is_lazy(number):
        return builtins.round(number) if ndigits is None else builtins.round(number, ndigits)
    if number.ndim:  # (NumPy's arrays of one axis or more have no __round__ either)
        raise TypeError(f"type {type(np.zeros(1)).__name__} doesn't define __round__ "
                        "method")
    if ndigits is None:
        return builtins.round(number.compute()[()])  # (this module's round is np.round's)
    return array_module(number).round(number, ndigits)


def tolist(a):
    """``a.tolist()``; of a Dask array, its computed values' (Python numbers, in lists as
    NumPy's ``tolist`` gives them).

    >>> tolist(np.array([[1.0, 2.0]]))
    [[1.0, 2.0]]
    """
    return a.compute().tolist() if DASK.is_lazy(a) else a.tolist()


def clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):  # noqa: A002
    """``np.clip`` with NumPy 2's ``min=`` and ``max=`` (Dask's takes neither).

    >>> clip(np.array([-1.0, 0.5, 2.0]), min=0.0, max=1.0)
    array([0. , 0.5, 1. ])
    """
    a_min, a_max = _clip_bounds(a_min, a_max, min, max)
    xp = array_module(a, a_min, a_max)
    if xp is np:
        return np.clip(a, a_min, a_max, out=out)
    return xp.clip(xp.asarray(a), a_min, a_max)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``np.nan_to_num`` with its ``nan``, ``posinf`` and ``neginf`` values (Dask's takes
    none): NaN, +inf and -inf replaced, in the real and imaginary parts apart.

    >>> nan_to_num(np.array([np.nan, np.inf, -1.0]), nan=2.0, posinf=5.0)
    array([ 2.,  5., -1.])
    """
    xp = array_module(x, nan, posinf, neginf)
    if xp is np:
        return np.nan_to_num(x, copy=copy, nan=nan, posinf=posinf, neginf=neginf)
    x = xp.asarray(x)
    if x.dtype.kind == "c":
        return nan_to_num(x.real, nan=nan, posinf=posinf, neginf=neginf) + \
            1j * nan_to_num(x.imag, nan=nan, posinf=posinf, neginf=neginf)
    if x.dtype.kind != "f":
        return x
    big = np.finfo(x.dtype).max
    posinf = big if posinf is None else posinf
    neginf = -big if neginf is None else neginf
    replaced = xp.where(xp.isnan(x), nan, xp.where(x == np.inf, posinf,
                                                   xp.where(x == -np.inf, neginf, x)))
    return replaced.astype(x.dtype)


def einsum(subscripts, *operands, **kwargs):
    """``np.einsum``, a label repeated within one operand (``"ii->i"``, ``"ii"``) read as
    that operand's diagonal first (Dask's takes no repeated label in one operand).

    >>> einsum("ii->i", np.arange(4.0).reshape(2, 2))
    array([0., 3.])
    """
    if array_module(*operands) is np:
        return np.einsum(subscripts, *operands, **kwargs)
    import dask.array as xp  # (Dask's own: s2sad's helpers' xp.einsum is this function)
    if not isinstance(subscripts, str):
        return xp.einsum(subscripts, *operands, **kwargs)
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    labels = inputs.split(",")
    if not any(len(set(lab)) < len(lab) for lab in labels if "." not in lab):
        return xp.einsum(subscripts, *operands, **kwargs)
    if not arrow:  # (the implicit output: the labels found once, in order)
        everything = "".join(labels).replace(".", "")
        output = ("..." if "..." in inputs else "") + \
            "".join(sorted(c for c in set(everything) if everything.count(c) == 1))
    operands = [xp.asarray(o) for o in operands]
    for k, lab in enumerate(labels):
        if "." in lab:
            continue
        a = operands[k]
        while len(set(lab)) < len(lab):
            c = next(c for c in lab if lab.count(c) > 1)
            first = lab.index(c)
            second = lab.index(c, first + 1)
            a = xp.diagonal(a, axis1=first, axis2=second)  # (its axis: the last)
            lab = lab[:first] + lab[first + 1:second] + lab[second + 1:] + c
        labels[k], operands[k] = lab, a
    return xp.einsum(",".join(labels) + "->" + output, *operands, **kwargs)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``np.linspace`` of array ends along ``axis`` (Dask's takes numbers and no axis):
    ``start + i * step``, the last item ``stop`` itself where ``endpoint``.

    >>> linspace(np.array([0.0, 1.0]), 2.0, 3, axis=1).tolist()
    [[0.0, 1.0, 2.0], [1.0, 1.5, 2.0]]
    """
    xp = array_module(start, stop)
    if xp is np:
        return np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep, dtype=dtype,
                           axis=axis)
    start, stop = xp.asarray(start) * 1.0, xp.asarray(stop) * 1.0
    start, stop = xp.broadcast_arrays(start, stop)
    div = num - 1 if endpoint else num
    step = (stop - start) / div if div > 0 else (stop - start) * np.nan
    steps = xp.reshape(xp.arange(num, dtype=step.dtype), (num,) + (1,) * step.ndim)
    y = steps * step + start if div > 0 else steps * (stop - start) + start
    if endpoint and num > 1:
        y = xp.concatenate([y[:-1], stop[None]], axis=0)
    y = xp.moveaxis(y, 0, axis)
    if dtype is not None:
        y = y.astype(dtype)
    return (y, step) if retstep else y


def sum_with_initial(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):
    """``np.sum`` with its ``initial`` (Dask's has none): the sum, plus ``initial`` in the
    sum's dtype.

    >>> sum_with_initial(np.ones(3), initial=2.0)
    np.float64(5.0)
    """
    xp = array_module(a)
    if xp is np:
        return np.sum(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                      initial=0 if initial is None else initial)
    total = xp.sum(xp.asarray(a), axis=axis, dtype=dtype, keepdims=keepdims)
    return total if initial is None else total + np.asarray(initial, dtype=total.dtype)


def _corrected(name):
    def stand_in(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
                 correction=None, **kwargs):
        if correction is not None:
            if ddof != 0:
                raise ValueError("ddof and correction can't be provided simultaneously.")
            ddof = correction
        xp = array_module(a)
        if xp is np:
            return getattr(np, name)(a, axis=axis, dtype=dtype, out=out, ddof=ddof,
                                     keepdims=keepdims, **kwargs)
        return getattr(xp, name)(xp.asarray(a), axis=axis, dtype=dtype, ddof=ddof,
                                 keepdims=keepdims, **kwargs)
    stand_in.__name__ = stand_in.__qualname__ = name
    stand_in.__doc__ = f"``np.{name}`` with NumPy 2's ``correction`` (``ddof``; Dask's has none)."
    return stand_in


var, std, nanvar, nanstd = map(_corrected, ("var", "std", "nanvar", "nanstd"))


def _joined(name):
    def stand_in(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
        xp = array_module(*arrays)
        if xp is np:
            return getattr(np, name)(arrays, axis=axis, out=out, dtype=dtype, casting=casting)
        if out is not None:
            raise ValueError(f"s2sad's Dask target writes no array in place: np.{name}(..., "
                             "out=) is not run on Dask; use the result")
        arrays = [xp.asarray(a) for a in arrays]
        if dtype is not None:
            arrays = [a.astype(dtype, casting=casting) for a in arrays]
        return getattr(xp, name)(arrays, axis=axis)
    stand_in.__name__ = stand_in.__qualname__ = name
    stand_in.__doc__ = f"``np.{name}`` with its ``dtype`` and ``casting`` (Dask's has neither)."
    return stand_in


concatenate, stack = _joined("concatenate"), _joined("stack")


def _fft(name, kind):
    """A stand-in for ``np.fft.<name>``: Dask's, the transformed axes made one chunk first
    (Dask's transforms along an axis of one chunk alone). ``kind``: ``"1"`` (one
    ``axis``, -1 by default), ``"2"`` (``axes``, the last two) or ``"n"`` (``axes``, all of
    them, or the last ``len(s)``)."""
    def stand_in(a, *args, **kwargs):
        xp = array_module(a)
        if xp is np:
            return getattr(np.fft, name)(a, *args, **kwargs)
        a = xp.asarray(a)
        key = "axis" if kind == "1" else "axes"
        axes = kwargs.get(key, args[1] if len(args) > 1 else None)
        size = kwargs.get("n" if kind == "1" else "s", args[0] if args else None)
        if axes is None:
            axes = -1 if kind == "1" else (-2, -1) if kind == "2" else \
                range(a.ndim) if size is None else range(-len(size), 0)
        axes = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
        a = a.rechunk({axis % a.ndim: -1 for axis in axes})
        return getattr(xp.fft, name)(a, *args, **kwargs)
    stand_in.__name__ = stand_in.__qualname__ = name
    stand_in.__doc__ = (f"``np.fft.{name}``: Dask's, the axes it transforms made one chunk "
                        "first (Dask's own transforms along an axis of one chunk alone).")
    return stand_in


FFTS = {"fft": "1", "ifft": "1", "rfft": "1", "irfft": "1", "hfft": "1", "ihfft": "1",
        "fft2": "2", "ifft2": "2", "rfft2": "2", "irfft2": "2",
        "fftn": "n", "ifftn": "n", "rfftn": "n", "irfftn": "n"}
fft, ifft, rfft, irfft, hfft, ihfft, fft2, ifft2, rfft2, irfft2, fftn, ifftn, rfftn, irfftn = (
    _fft(name, kind) for name, kind in FFTS.items())


def add_at(a, indices, b):
    """``np.add.at(a, indices, b)`` as a new array: ``a`` with ``b`` added at ``indices``,
    repeated indices adding up (Dask has no ``add.at``, and its arrays are not written in
    place). The positions the index picks are found on a NumPy array of ``a``'s shape;
    ``b`` is summed into them with ``bincount``, lazily.

    >>> add_at(np.zeros(3), s_[[0, 2, 2]], np.array([1.0, 2.0, 3.0]))
    array([1., 0., 5.])
    """
    xp = array_module(a, b)
    _known_shape(a), _known_shape(b)  # (sizes Dask does not know, the items a mask picks: refused)
    if xp is np:
        out = np.array(a, dtype=np.result_type(a, b))
        np.add.at(out, indices, b)
        return out
    parts = indices if isinstance(indices, tuple) else (indices,)
    if any(map(DASK.is_lazy, parts)):  # (an index computed on Dask, or np.array([...]) in
        import dask                    # the function, which this target makes a Dask array)
        done = iter(dask.compute(*[p for p in parts if DASK.is_lazy(p)]))
        parts = tuple(next(done) if DASK.is_lazy(p) else p for p in parts)
        indices = parts if isinstance(indices, tuple) else parts[0]
    positions = np.arange(int(np.prod(a.shape))).reshape(a.shape)[indices]
    b = xp.broadcast_to(xp.asarray(b), positions.shape).ravel()
    flat = xp.from_array(positions.ravel(), chunks=b.chunks)

    def summed(weights):
        return xp.bincount(flat, weights=weights, minlength=int(np.prod(a.shape)))
    added = summed(b.real) + 1j * summed(b.imag) if np.iscomplexobj(b) else summed(b)
    return xp.asarray(a) + added.reshape(a.shape)


def amax(a, axis=None, keepdims=False):
    """``np.amax``: ``max``."""
    return array_module(a).max(a, axis=axis, keepdims=keepdims)


def amin(a, axis=None, keepdims=False):
    """``np.amin``: ``min``."""
    return array_module(a).min(a, axis=axis, keepdims=keepdims)


def conjugate(x):
    """``np.conjugate``: ``conj``."""
    return array_module(x).conj(x)


def copy(a):
    """``np.copy``: a Dask array is never written in place by s2sad's code; its copy is
    itself (``Array.copy``)."""
    return a.copy() if hasattr(a, "copy") else np.copy(a)


def astype(x, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """``np.astype`` and ``np.ndarray.astype``: the array's ``astype`` method (its
    ``order``, a memory layout, read on NumPy arrays alone: Dask has none).

    >>> astype(np.array([1.5, 2.5]), int, "F")
    array([1, 2])
    """
    x = array_module(x).asarray(x)
    if isinstance(x, np.ndarray):
        return x.astype(dtype, order=order, casting=casting, subok=subok, copy=copy)
    return x.astype(dtype, casting=casting, copy=copy)


def shape(a) -> tuple:
    """``np.shape``: of a number or a list too (Dask's reads ``a.shape``); nothing is
    computed.

    >>> shape(0.5), shape([[1.0, 2.0]])
    ((), (1, 2))
    """
    return np.shape(a)


def ndim(a) -> int:
    """``np.ndim``: of a number or a list too (Dask's reads ``a.ndim``).

    >>> ndim(0.5), ndim(np.ones((2, 3)))
    (0, 2)
    """
    return np.ndim(a)


def size(a, axis=None) -> int:
    """``np.size``: the number of items (the shape is known without computing)."""
    return int(np.prod(a.shape)) if axis is None else a.shape[axis]


def iscomplexobj(x) -> bool:
    """``np.iscomplexobj``: from the dtype, without computing."""
    return np.dtype(getattr(x, "dtype", np.result_type(x))).kind == "c"


def isrealobj(x) -> bool:
    """``np.isrealobj``: not :func:`iscomplexobj`."""
    return not iscomplexobj(x)


def identity(n, dtype=None):
    """``np.identity``: ``eye``."""
    import dask.array as da
    return da.eye(n, dtype=dtype if dtype is not None else float)


def inner(a, b):
    """``np.inner``: sums over the last axis of both."""
    xp = array_module(a, b)
    if xp is np:
        return np.inner(a, b)
    a, b = xp.asarray(a), xp.asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return xp.tensordot(a, b, axes=([-1], [-1]))


def matrix_transpose(x):
    """``np.matrix_transpose``: the last two axes swapped (NumPy's ValueError for fewer).

    >>> matrix_transpose(np.ones(3))
    Traceback (most recent call last):
        ...
    ValueError: Input array must be at least 2-dimensional, but it is 1
    """
    if np.ndim(x) < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {np.ndim(x)}")
    return array_module(x).swapaxes(x, -1, -2)


def column_stack(tup):
    """``np.column_stack``: 1-d arrays made columns, then joined along axis 1."""
    xp = array_module(*tup)
    return xp.concatenate([xp.asarray(t)[:, None] if xp.asarray(t).ndim == 1 else
                           xp.asarray(t) for t in tup], axis=1)


def row_stack(tup):
    """``np.row_stack``: ``vstack``."""
    return array_module(*tup).vstack(tup)


def ascontiguousarray(a, dtype=None):
    """``np.ascontiguousarray`` (and ``asfortranarray``): Dask has no memory layout."""
    xp = array_module(a)
    return xp.asarray(a) if dtype is None else xp.asarray(a).astype(dtype)


def heaviside(x1, x2):
    """``np.heaviside``: 0 below 0, ``x2`` at 0, 1 above."""
    xp = array_module(x1, x2)
    return xp.where(x1 < 0, 0.0, xp.where(x1 > 0, 1.0, x2))


def _ufunc(name):
    def stand_in(*args, **kwargs):
        return getattr(array_module(*args), name)(*args, **kwargs)
    return stand_in


acos, asin, atan = _ufunc("arccos"), _ufunc("arcsin"), _ufunc("arctan")
acosh, asinh, atanh = _ufunc("arccosh"), _ufunc("arcsinh"), _ufunc("arctanh")
atan2, pow, concat = _ufunc("arctan2"), _ufunc("power"), _ufunc("concatenate")  # noqa: A001
for _name, _stand_in in (("acos", acos), ("asin", asin), ("atan", atan), ("acosh", acosh),
                         ("asinh", asinh), ("atanh", atanh), ("atan2", atan2), ("pow", pow),
                         ("concat", concat)):
    _stand_in.__name__ = _stand_in.__qualname__ = _name
    _stand_in.__doc__ = f"``np.{_name}``: its older name's function."


def _either(name: str, linalg: bool = False):
    """A stand-in for a function Dask has that takes no NumPy array: NumPy's own on NumPy
    arrays, Dask's on Dask arrays, the NumPy arrays among them made Dask's."""
    def stand_in(*args, **kwargs):
        xp = array_module(*args)
        if xp is not np:
            args = [xp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        return getattr(xp.linalg if linalg else xp, name)(*args, **kwargs)
    stand_in.__name__ = stand_in.__qualname__ = name
    stand_in.__doc__ = (f"``np.{'linalg.' if linalg else ''}{name}``: NumPy's on NumPy "
                        "arrays, Dask's on Dask arrays (whose own takes no NumPy array).")
    return stand_in


argmax, argmin, nanargmax, nanargmin = map(_either, ("argmax", "argmin", "nanargmax",
                                                     "nanargmin"))
cumsum, cumprod, triu, tril = map(_either, ("cumsum", "cumprod", "triu", "tril"))
digitize = _either("digitize")


def repeat(a, repeats, axis=None):
    """``np.repeat``: of the flattened array where ``axis`` is None (Dask's wants an
    axis), and counts of each item (Dask's takes one count): a ``take`` of each index
    its count of times.

    >>> repeat(np.array([1.0, 2.0, 3.0]), [1, 0, 2]).tolist()
    [1.0, 3.0, 3.0]
    """
    xp = array_module(a, repeats)
    if xp is np:
        return np.repeat(a, repeats, axis=axis)
    a = xp.asarray(a)
    if axis is None:
        a, axis = xp.ravel(a), 0
    if DASK.is_lazy(repeats) or np.ndim(repeats) == 0:
        return xp.repeat(a, repeats if DASK.is_lazy(repeats) else int(repeats), axis=axis)
    picks = np.repeat(np.arange(a.shape[axis]), np.asarray(repeats))
    return xp.take(a, picks, axis=axis)


def searchsorted(a, v, side="left", sorter=None):
    """``np.searchsorted``: NumPy's on NumPy arrays; Dask's on Dask arrays, a number ``v``
    made a one-item array (Dask's writes into its 0-d result, a NumPy scalar, and fails).

    >>> int(searchsorted(np.array([0.0, 1.0]), 0.5))
    1
    """
    xp = array_module(a, v)
    if xp is np:
        return np.searchsorted(a, v, side=side, sorter=sorter)
    a, v = xp.asarray(a), xp.asarray(v)
    if v.ndim == 0:
        return xp.searchsorted(a, v.reshape(1), side=side, sorter=sorter)[0]
    return xp.searchsorted(a, v, side=side, sorter=sorter)
round, around = _either("round"), _either("around")  # noqa: A001 (NumPy's name)
lstsq = _either("lstsq", linalg=True)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 (NumPy's name)
    """``np.linalg.norm``: Dask's, but the 2-norm of all the items where ``axis`` and
    ``ord`` are None (Dask's takes one or two axes alone), and the norms of singular values
    (``ord`` 2, -2, ``"nuc"``) from :func:`svd`, matrix by matrix (Dask's wants a row or a
    column of chunks and one matrix).

    >>> float(norm(np.ones((2, 2, 2))))
    2.8284271247461903
    """
    xp = array_module(x)
    if xp is np:
        return np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    x = xp.asarray(x)
    if axis is None:
        if ord is None or (ord in ("fro", "f") and x.ndim == 2):
            total = xp.sqrt(xp.sum(xp.abs(x) ** 2))
            return xp.reshape(total, (1,) * x.ndim) if keepdims else total
        if x.ndim > 2:
            raise ValueError("Improper number of dimensions to norm.")
        axis = tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if len(axes) == 2 and (ord in (2, -2, "nuc") and not isinstance(ord, bool)):
        axes = tuple(a % x.ndim for a in axes)
        values = svd(xp.moveaxis(x, axes, (-2, -1)), compute_uv=False)
        found = values.max(axis=-1) if ord == 2 else values.min(axis=-1) if ord == -2 \
            else values.sum(axis=-1)
        for a in sorted(axes) if keepdims else ():
            found = xp.expand_dims(found, a)
        return found
    import dask.array as da  # (Dask's own: xp.linalg.norm is this function)
    return da.linalg.norm(x, ord=ord, axis=axes[0] if len(axes) == 1 else axes,
                          keepdims=keepdims)


# --- NumPy's own factorizations, matrix by matrix ---------------------------------------------
# Dask's inv, solve, cholesky, svd and qr differ from NumPy's: its cholesky gives the upper
# factor, its svd reduced factors with other signs, and each takes square chunks, one
# matrix, or a row or a column of chunks alone. These stand-ins apply NumPy's function to
# each matrix (the trailing two axes made one chunk; the batch axes stay chunked): the
# values NumPy gives, for any chunks. A matrix is one task: its whole is in memory.


def _per_matrix(function, signature, arrays, sizes=None, **kwargs):
    """``function(*arrays, **kwargs)`` by ``da.apply_gufunc``: NumPy's, matrix by matrix."""
    xp = array_module(*arrays)
    if xp is np:
        return function(*arrays, **kwargs)
    arrays = [xp.asarray(a) for a in arrays]
    with np.errstate(all="ignore"):  # (the dtypes: NumPy's function on identity matrices)
        sample = function(*[np.eye(2, dtype=a.dtype)[(slice(None),) * (a.ndim == 2) + (
            (0,) if a.ndim == 1 else ())] if a.ndim <= 2 else
            np.broadcast_to(np.eye(2, dtype=a.dtype), (1,) * (a.ndim - 2) + (2, 2))
            for a in arrays], **kwargs)
    single = not isinstance(sample, tuple)
    dtypes = [np.asarray(sample).dtype] if single else [np.asarray(s).dtype for s in sample]
    out = xp.apply_gufunc(lambda *blocks: function(*blocks, **kwargs), signature, *arrays,
                          output_dtypes=dtypes[0] if single else tuple(dtypes),
                          output_sizes=sizes or {}, allow_rechunk=True, vectorize=False)
    return out if single else type(sample)(*out) if hasattr(sample, "_fields") else tuple(out)


def inv(a):
    """``np.linalg.inv``: NumPy's, matrix by matrix (Dask's takes square chunks of one
    matrix alone).

    >>> inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
    array([[0.5 , 0.  ],
           [0.  , 0.25]])
    """
    return _per_matrix(np.linalg.inv, "(i,j)->(i,j)", (a,))


def solve(a, b):
    """``np.linalg.solve``: NumPy's, matrix by matrix; ``b`` a vector where it has one axis
    (NumPy 2's rule), a stack of matrices otherwise.

    >>> solve(np.eye(2) * 2.0, np.array([1.0, 3.0]))
    array([0.5, 1.5])
    """
    xp = array_module(a, b)
    if xp is np:
        return np.linalg.solve(a, b)
    vector = np.ndim(b) == 1
    return _per_matrix(np.linalg.solve, "(i,j),(j)->(i)" if vector else "(i,j),(j,k)->(i,k)",
                       (a, b))


def cholesky(a, upper=False):
    """``np.linalg.cholesky``: NumPy's, matrix by matrix: the lower factor (Dask's own gives
    the upper one), or the upper one for ``upper=True``.

    >>> cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]))
    array([[2., 0.],
           [1., 2.]])
    """
    if array_module(a) is np:
        return np.linalg.cholesky(a, upper=upper) if upper else np.linalg.cholesky(a)
    return _per_matrix(_cholesky_upper if upper else np.linalg.cholesky, "(i,j)->(i,j)", (a,))


def _cholesky_upper(a):
    return np.linalg.cholesky(a, upper=True)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """``np.linalg.svd``: NumPy's, matrix by matrix: its factors' shapes (``full_matrices``)
    and signs (Dask's own gives reduced factors, with signs of its own).

    >>> svd(np.array([[3.0, 0.0], [0.0, -2.0]]), compute_uv=False)
    array([3., 2.])
    """
    if array_module(a) is np:
        return np.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                             hermitian=hermitian)
    m, n = a.shape[-2:]
    options = {"full_matrices": full_matrices, "compute_uv": compute_uv,
               "hermitian": hermitian}
    if not compute_uv:
        return _per_matrix(np.linalg.svd, "(i,j)->(k)", (a,), {"k": min(m, n)}, **options)
    signature = "(i,j)->(i,i),(k),(j,j)" if full_matrices else "(i,j)->(i,k),(k),(k,j)"
    return _per_matrix(np.linalg.svd, signature, (a,), {"k": min(m, n)}, **options)


def qr(a, mode="reduced"):
    """``np.linalg.qr``: NumPy's, matrix by matrix, for its modes ``reduced``, ``complete``
    and ``r`` (Dask's own takes a row or a column of chunks alone).

    >>> qr(np.array([[0.0, 2.0], [1.0, 0.0]]), mode="r").shape
    (2, 2)
    """
    if array_module(a) is np:
        return np.linalg.qr(a, mode=mode)
    m, n = a.shape[-2:]
    k = min(m, n)
    signatures = {"reduced": "(i,j)->(i,k),(k,j)", "complete": "(i,j)->(i,i),(i,j)",
                  "r": "(i,j)->(k,j)"}
    if mode not in signatures:
        raise ValueError(f"s2sad's Dask target computes np.linalg.qr in the modes "
                         f"'reduced', 'complete' and 'r', not mode={mode!r}")
    return _per_matrix(np.linalg.qr, signatures[mode], (a,), {"k": k}, mode=mode)


def array(object, *args, **kwargs):  # noqa: A002 (NumPy's name)
    """``np.array``: Dask's ``array``, of an ndarray where ``object`` is a subclass of it
    (``np.matrix``, a masked array's data) and ``subok`` is not true: NumPy gives an
    ndarray (Dask's own keeps the matrix, whose ``*`` and ``@`` are other products).

    >>> type(array(np.ma.masked_array([1.0, 2.0], mask=[0, 1]))._meta).__name__
    'ndarray'
    """
    import dask.array as da
    if isinstance(object, np.ndarray) and type(object) is not np.ndarray and \
            not kwargs.get("subok", False):
        object = np.asarray(object)
    return da.array(object, *args, **kwargs)


def permute_dims(a, axes=None):
    """``np.permute_dims``: ``transpose``."""
    return array_module(a).transpose(a, axes)


del _name, _stand_in

# (s2sad's helpers, reading dask.array as xp, call these for Dask's own: NumPy's values)
_dask_backend._ALIGNED["einsum"] = einsum
_dask_backend.LINALG_ALIGNED.update(inv=inv, solve=solve, svd=svd, cholesky=cholesky, qr=qr,
                                    norm=norm)

# --- the gradient's kind: NumPy arguments' gradients computed, in one call ------------------


class _Slot:
    """Where a computed gradient goes, in the result being settled."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


def computed(result, arguments, with_value=False, has_aux=False, as_tuple=False):
    """``result``, a gradient function's (Dask arrays in it), with the gradient of each
    argument that is not a Dask array computed, all of them (and the value, for
    ``value_and_grad``) in one ``dask.compute`` call: they share the forward sweep's
    graph, computed once. The gradient of a Dask argument stays a lazy Dask array; so does
    the value where nothing else is computed, and ``aux``.

    ``arguments``: the differentiated arguments, in the order of the gradients.

    >>> import dask.array as da
    >>> x = da.ones(4, chunks=2)
    >>> g, h = computed((2.0 * x, x.sum()), (da.ones(4, chunks=2), 1.5), as_tuple=True)
    >>> type(g).__name__, h
    ('Array', 4.0)
    >>> computed((x.sum() * 3.0, x * 1.0), (np.ones(4),), with_value=True)
    (np.float64(12.0), array([1., 1., 1., 1.]))
    """
    return computed_together((result,), arguments, with_value, has_aux, as_tuple)[0]


def computed_together(results, arguments, with_value=False, has_aux=False, as_tuple=False):
    """:func:`computed` of each of ``results``, all shaped as one gradient function's
    result (its value, and the tangent of it a ``jvp`` of that function gives), in one
    ``dask.compute`` call."""
    import dask
    parts, found = [], []
    for result in results:
        value = aux = None
        if with_value:
            value, grads = result
            if has_aux:
                value, aux = value
        elif has_aux:
            grads, aux = result
        else:
            grads = result
        kept = _collect(arguments if as_tuple else arguments[:1],
                        grads if as_tuple else (grads,), found)
        parts.append((value, aux, kept))
    if not found:
        return list(results)
    lazy = [with_value and DASK.is_lazy(value) for value, _, _ in parts]
    values = dask.compute(*[g for _, g in found],
                          *[value for (value, _, _), v in zip(parts, lazy) if v])
    grads_values = [as_gradient(x, v) if x is not None else v
                    for (x, _), v in zip(found, values)]
    computed_values = iter(values[len(found):])
    out = []
    for (value, aux, kept), lazy_value in zip(parts, lazy):
        if lazy_value:
            value = next(computed_values)
            value = value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value
        grads = _fill(kept, grads_values)
        grads = grads if as_tuple else grads[0]
        if with_value:
            out.append((((value, aux) if has_aux else value), grads))
        else:
            out.append((grads, aux) if has_aux else grads)
    return out


def _collect(x, g, found: list):
    """``g`` with each lazy gradient of an argument (part) ``x`` that is not lazy put in
    ``found`` and a :class:`_Slot` in its place."""
    if DASK.is_lazy(g):
        if DASK.is_lazy(x):
            return g
        found.append((x, g))
        return _Slot(len(found) - 1)
    if isinstance(g, (list, tuple)):
        items = x if isinstance(x, (list, tuple)) and len(x) == len(g) else [None] * len(g)
        parts = [_collect(a, b, found) for a, b in zip(items, g)]
        return parts if isinstance(g, list) else tuple(parts) if type(g) is tuple else \
            type(g)(*parts)
    if isinstance(g, dict):
        return {k: _collect(x.get(k) if isinstance(x, dict) else None, v, found)
                for k, v in g.items()}
    if isinstance(getattr(g, "__dict__", None), dict) and type(g) is type(x):
        for k, v in list(vars(g).items()):  # (a model's gradient: an object of its class)
            setattr(g, k, _collect(getattr(x, k, None), v, found))
    return g


def _fill(g, values: list):
    """``g`` with each :class:`_Slot` replaced by its computed value."""
    if type(g) is _Slot:
        return values[g.index]
    if isinstance(g, (list, tuple)):
        parts = [_fill(b, values) for b in g]
        return parts if isinstance(g, list) else tuple(parts) if type(g) is tuple else \
            type(g)(*parts)
    if isinstance(g, dict):
        return {k: _fill(v, values) for k, v in g.items()}
    if isinstance(getattr(g, "__dict__", None), dict) and \
            not isinstance(g, (np.ndarray, np.generic)) and not DASK.is_lazy(g):
        for k, v in list(vars(g).items()):
            setattr(g, k, _fill(v, values))
    return g


def settling(function, wrt: tuple, with_value=False, has_aux=False, as_tuple=False):
    """``function``, a generated gradient function of the Dask target, made to return
    :func:`computed` results. ``wrt``: ``(position, name)`` of each differentiated
    parameter (a keyword-only one is given by name)."""
    def settled(*args, **kwargs):
        arguments = tuple(kwargs[name] if name in kwargs else args[i] for i, name in wrt)
        return computed(function(*args, **kwargs), arguments, with_value, has_aux, as_tuple)
    settled.__name__ = settled.__qualname__ = getattr(function, "__name__", "settled")
    settled.__wrapped__ = function
    return settled
