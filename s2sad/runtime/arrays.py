"""Adjoint helpers of indexing, joins and rearranging: items, stacks, pads, takes.

>>> import numpy as np
>>> concatenate_grad(np.arange(5.0), [np.zeros(2), np.zeros(3)])
[array([0., 1.]), array([2., 3., 4.])]

Each takes the sensitivity ``g`` of the result and returns that of the array (or the
list of arrays) it was made from. ``last_writes`` and ``written_part`` handle a store
into repeated indices, where only the last write of an item counts.
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from ..backends import BY_MODULE, array_class, array_module
from ..errors import DifferentiationError, NoDerivativeError
from .shapes import (_argsort, _dtype, _float_type, _ndim, _remember, _shape, _to, _zeros,
                     unbroadcast)
from .structures import zeros_like_structure


def transpose_grad(g, axes=None):
    """Adjoint of ``np.transpose(x, axes)``."""
    xp = array_module(g)
    if _ndim(g) == 0:
        return g  # (a number spread over x: the same transposed)
    if axes is None:
        return xp.transpose(g)
    if type(g) is np.ndarray and type(axes) is tuple:  # (the method, the inverse remembered)
        inverse = _INVERSES.get(axes)
        if inverse is None:
            inverse = _argsort(axes)
            _remember(_INVERSES, axes, inverse)
        return g.transpose(inverse)
    return xp.transpose(g, _argsort(axes))


_INVERSES: dict = {}  # transpose_grad's axes -> their inverse permutation


def index_grad(g, x, index):
    """Adjoint of ``x[index]``: ``g`` scattered into zeros shaped like ``x``.

    Repeated integer indices accumulate, as ``np.add.at`` does (``cupy.add.at`` on
    the GPU).
    """
    if isinstance(x, dict):  # (np.s_[k] is the key itself)
        out = zeros_like_structure(x)
        out[index] = g
        return out
    if isinstance(x, (list, tuple)):
        out = zeros_like_structure(x)
        if isinstance(index, slice):
            for position, part in zip(range(*index.indices(len(x))), g, strict=True):
                out[position] = part
        else:
            out[index] = g
        return out if isinstance(x, list) else tuple(out)
    xp = array_module(g, x)
    out = xp.zeros(_shape(x), dtype=xp.result_type(x, g) if xp.iscomplexobj(g)
                   else _float_type(x))
    return _scatter(xp, out, index, _to(xp, g))


def _integer_arrays(index) -> bool:
    """Does ``index`` hold an integer array (or list), which may repeat a position?"""
    for part in index if type(index) is tuple else (index,):
        if isinstance(part, (list, tuple)) or (
                hasattr(part, "dtype") and getattr(part, "ndim", 0) and part.dtype.kind in "iu"):
            return True
    return False


def last_writes(part, like, index):
    """``part`` (shaped like ``like[index]``) with zeros where ``like[index] = v`` writes a
    position that a later write of the same assignment overwrites: NumPy keeps the last
    value written to a repeated position, so only that one reaches the array.

    >>> last_writes(np.array([1.0, 2.0, 3.0, 4.0]), np.zeros(3), np.array([0, 2, 0, 1]))
    array([0., 2., 3., 4.])
    """
    if not _integer_arrays(index):
        return part
    xp = array_module(part, like)
    if type(index) is not tuple and getattr(index, "ndim", 1) == 1:  # (the usual y[idx] = v:
        rows = xp.asarray(index) % _shape(like)[0]           # no repeat found without
        if len(xp.unique(rows)) == rows.size:                # a position for every entry)
            return part
    where = xp.arange(int(np.prod(_shape(like))), dtype=xp.intp).reshape(_shape(like))
    flat = xp.ravel(where[index])
    if len(xp.unique(flat)) == flat.size:
        return part
    backend = BY_MODULE.get(getattr(xp, "__name__", ""))
    if backend is not None and backend.repeats_undefined:
        raise DifferentiationError(
            f"y[idx] = v with a position repeated in idx, on {backend.title}: "
            f"{backend.title} stores an undefined one of the values written there (NumPy "
            "the last), so the gradient is undefined. Make the positions distinct, or add "
            "with np.add.at(y, idx, v) (y[idx] += v repeats the same way)")
    last = flat.size - 1 - xp.unique(flat[::-1], return_index=True)[1]
    kept = xp.zeros(flat.size, dtype=bool)
    kept[last] = True
    return xp.where(xp.reshape(kept, xp.shape(where[index])), part, 0.0)


def written_part(s, index):
    """``s[index]``, the sensitivity of what ``y[index] = v`` wrote into ``y``, as a new
    array, for ``v``: where ``index`` repeats a position, the writes before the last one
    are overwritten (NumPy keeps the last) and get 0 (:func:`last_writes`).

    >>> written_part(np.array([10.0, 20.0, 30.0]), np.array([0, 1, 1]))
    array([10.,  0., 20.])
    >>> written_part(np.array([10.0, 20.0, 30.0]), slice(1, None))
    array([20., 30.])
    """
    xp = array_module(s)
    return last_writes(xp.array(s[index]), s, index)


def _spread_over(xp, g, arrays):
    """The number ``g`` as the sensitivity of each of ``arrays`` (an array: of its rows)."""
    if isinstance(arrays, array_class(xp)):
        return xp.broadcast_to(_to(xp, g), arrays.shape)
    return [g] * len(arrays)


def _sequence_like(parts, arrays):
    """The sensitivities of a sequence's items, as a list (an array if it was one)."""
    xp = array_module(arrays)
    if isinstance(arrays, array_class(xp)):
        return xp.reshape(xp.stack(parts), arrays.shape) if parts else xp.zeros(arrays.shape)
    return list(parts)


def _offsets(sizes):
    """Where each piece of ``sizes`` starts, but the first: the cuts for ``split``."""
    return list(itertools.accumulate(sizes))[:-1]


def joined_grad(g, arrays, shapes, axis):
    """Adjoint of joining ``arrays`` (promoted to ``shapes``) along ``axis``."""
    xp = array_module(g)
    if _ndim(g) == 0:  # (a number spread over the joined array: the same over each part)
        return _spread_over(xp, g, arrays)
    if axis is None:
        sizes = [math.prod(s) for s in shapes]
        pieces = xp.split(xp.ravel(g), _offsets(sizes))
    else:
        sizes = [s[axis] for s in shapes]
        pieces = xp.split(xp.asarray(g), _offsets(sizes), axis=axis)
    return _sequence_like([xp.reshape(p, _shape(a)) for p, a in zip(pieces, arrays)], arrays)


def joined_dtype(*items):
    """The dtype of ``np.r_[items]`` and ``np.c_[items]``: NumPy's result type of the
    items, a Python or NumPy number taking part as a number (a Python float leaves float32
    values float32), any other item as its array.

    >>> joined_dtype(np.ones(2, np.float32), 1.0), joined_dtype([1, 2], 0.5)
    (dtype('float32'), dtype('float64'))
    """
    if any(isinstance(item, (str, bytes)) for item in items):
        raise TypeError("np.r_ and np.c_ with a directive string are not differentiated: "
                        "join the arrays with np.concatenate")
    return np.result_type(*(item if type(item) in np.ScalarType else
                            item.dtype if hasattr(item, "dtype") else np.asarray(item).dtype
                            for item in items))


def concatenate_grad(g, arrays, axis=0):
    """Adjoint of ``np.concatenate(arrays, axis)``: ``g`` cut into the arrays' pieces."""
    return joined_grad(g, arrays, [_shape(a) for a in arrays], axis)


def stack_grad(g, arrays, axis=0):
    """Adjoint of ``np.stack(arrays, axis)``."""
    xp = array_module(g)
    if _ndim(g) == 0:
        return _spread_over(xp, g, arrays)
    return _sequence_like(list(xp.moveaxis(xp.asarray(g), axis, 0)), arrays)


def _atleast(x, ndim):
    """The shape of ``np.atleast_1d(x)``, ``np.atleast_2d(x)`` or ``np.atleast_3d(x)``."""
    shape = tuple(_shape(x))
    if len(shape) >= ndim:
        return shape
    if ndim == 1:
        return (1,)
    if ndim == 2:
        return (1,) + shape if shape else (1, 1)
    return {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)]


def hstack_grad(g, arrays):
    shapes = [_atleast(a, 1) for a in arrays]
    return joined_grad(g, arrays, shapes, 0 if len(shapes[0]) == 1 else 1)


def vstack_grad(g, arrays):
    return joined_grad(g, arrays, [_atleast(a, 2) for a in arrays], 0)


def dstack_grad(g, arrays):
    return joined_grad(g, arrays, [_atleast(a, 3) for a in arrays], 2)


def column_stack_grad(g, arrays):
    shapes = [_shape(a) if _ndim(a) >= 2 else (math.prod(_shape(a)), 1) for a in arrays]
    return joined_grad(g, arrays, shapes, 1)


def split_grad(g, ans, axis=0, indices=None, like=None):
    """Adjoint of ``np.split`` and friends: the pieces' sensitivities joined again. Given
    the ``indices`` the pieces were cut at and the array ``like`` they were cut from,
    pieces that overlap (indices out of order, or past the end: NumPy's ``x[3:1]`` is
    empty, the next piece starts at 1 again) each add into their own slice.

    >>> split_grad([np.ones(3), np.ones(0), np.ones(5)], None, 0, [3, 1], np.zeros(6))
    array([1., 2., 2., 1., 1., 1.])
    """
    xp = array_module(*g, *(ans or ()))
    shapes = [_shape(a) for a in ans] if ans is not None else [_shape(p) for p in g]
    parts = [xp.broadcast_to(_to(xp, p), shape) for p, shape in zip(g, shapes, strict=True)]
    if indices is None or like is None or np.ndim(indices) == 0:
        return xp.concatenate(parts, axis=axis)  # (sections: they tile the array)
    axis = axis % max(_ndim(like), 1)
    n = _shape(like)[axis]
    bounds = _split_bounds(indices, n)
    if sum(stop - start for start, stop in bounds) == n:
        return xp.concatenate(parts, axis=axis)  # (in order: the pieces tile the array)
    total = xp.zeros(_shape(like), dtype=np.result_type(_float_type(like), *(
        _dtype(p) for p in parts)))
    for (start, stop), part in zip(bounds, parts, strict=True):
        if stop > start:
            widths = [(0, 0)] * _ndim(like)
            widths[axis] = (start, n - stop)
            total = total + xp.pad(part, widths)
    return total


def _split_bounds(indices, n: int) -> list:
    """Where NumPy's ``np.split(x, indices)`` cuts an axis of length ``n``: each piece's
    (start, stop), ``x[start:stop]`` being ``x[a:b]`` for consecutive cuts (0 and ``n``
    at the ends), a stop never before its start.

    >>> _split_bounds([3, 1], 6), _split_bounds([-2, 9], 6)
    ([(0, 3), (3, 3), (1, 6)], [(0, 4), (4, 6), (6, 6)])
    """
    cuts = [0, *(int(i) for i in indices), n]
    bounds = []
    for a, b in zip(cuts, cuts[1:]):
        start, stop, _ = slice(a, b).indices(n)
        bounds.append((start, max(start, stop)))
    return bounds


def tile_grad(g, x, reps):
    """Adjoint of ``np.tile(x, reps)``: the copies' sensitivities summed."""
    xp = array_module(g, x)
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    d = max(len(reps), _ndim(x))
    shape = (1,) * (d - _ndim(x)) + tuple(_shape(x))
    reps = (1,) * (d - len(reps)) + reps
    pairs = xp.reshape(g, [n for pair in zip(reps, shape) for n in pair])
    return xp.reshape(xp.sum(pairs, axis=tuple(range(0, 2 * d, 2))), _shape(x))


def repeat_grad(g, x, repeats, axis=None):
    """Adjoint of ``np.repeat``: each entry gets the sum of its copies' sensitivities."""
    xp = array_module(g, x)
    x = xp.asarray(x)
    g = xp.asarray(g)
    if axis is None:
        base, g, axis = xp.ravel(x), xp.ravel(g), 0
    else:
        base, axis = x, axis % x.ndim
    n = base.shape[axis]
    # which entry each copy came from: bookkeeping, done on the host
    index = np.repeat(np.arange(n), np.broadcast_to(repeats, (n,)))
    rest = tuple(s for k, s in enumerate(base.shape) if k != axis)
    out = xp.zeros((n,) + rest, dtype=xp.result_type(_float_type(x), g))
    out = _scatter(xp, out, _to(xp, index), xp.moveaxis(g, axis, 0))
    return xp.reshape(xp.moveaxis(out, 0, axis), x.shape)


def _pad_widths(x, pad_width):
    return np.broadcast_to(np.asarray(pad_width, dtype=int), (_ndim(x), 2))


def _pad_interior(x, pad_width):
    widths = _pad_widths(x, pad_width)
    return tuple(slice(int(b), int(b) + n) for (b, _), n in zip(widths, _shape(x)))


def pad_grad(g, x, pad_width, mode="constant", reflect_type="even"):
    """Adjoint of ``np.pad`` for the modes that copy entries of ``x``."""
    xp = array_module(g, x)
    if mode in ("constant", "empty"):
        return xp.asarray(g)[_pad_interior(x, pad_width)]
    if mode not in ("edge", "wrap", "reflect", "symmetric") or reflect_type != "even":
        raise NoDerivativeError(f"s2sad has no gradient for np.pad with mode={mode!r}"
                                + (f", reflect_type={reflect_type!r}"
                                   if reflect_type != "even" else ""),
                                hint="Write the padding out with np.concatenate.")
    # which entry of x each padded entry copies: bookkeeping, done on the host
    size = math.prod(_shape(x))
    index = np.pad(np.arange(size).reshape(_shape(x)), pad_width, mode=mode)
    out = xp.zeros(size, dtype=np.result_type(_float_type(x), _dtype(g)))
    out = _scatter(xp, out, _to(xp, np.ravel(index)), xp.ravel(g))
    return xp.reshape(out, _shape(x))


def pad_tangent(g, pad_width, mode="constant", reflect_type="even"):
    """Tangent of ``np.pad(x, pad_width, mode)`` along ``x``, for the modes that copy entries
    of ``x`` (the constant ones pad it with zeros: their values have their own tangent).

    >>> pad_tangent(np.array([1.0, 2.0]), 1, "edge")
    array([1., 1., 2., 2.])
    """
    xp = array_module(g)
    if mode in ("constant", "empty"):
        return xp.pad(g, pad_width)
    if mode not in ("edge", "wrap", "reflect", "symmetric") or reflect_type != "even":
        raise NoDerivativeError(f"s2sad has no tangent for np.pad with mode={mode!r}"
                                + (f", reflect_type={reflect_type!r}"
                                   if reflect_type != "even" else ""),
                                hint="Write the padding out with np.concatenate.")
    return xp.pad(g, pad_width, mode=mode)


def pad_values_grad(g, x, pad_width, constant_values):
    """Adjoint of ``np.pad(x, ..., constant_values=c)`` with respect to a scalar ``c``."""
    if _ndim(constant_values) != 0:
        raise NoDerivativeError("s2sad has the gradient of np.pad with respect to "
                                "constant_values for one scalar value only",
                                hint="Pad with one value at a time, or write the padding "
                                     "out with np.concatenate.")
    xp = array_module(g, x)
    return xp.sum(g) - xp.sum(xp.asarray(g)[_pad_interior(x, pad_width)])


def diff_grad(g, x, n=1, axis=-1):
    """Adjoint of ``np.diff(x, n, axis)``."""
    xp = array_module(g, x)
    for _ in range(n):
        g = -xp.diff(g, axis=axis, prepend=0.0, append=0.0)
    return g


def negated_shift(shift):
    """``-shift``, the shift that rolls ``np.roll(a, shift, axis)`` back: a Python int for
    an int, a tuple of ints for a tuple, NumPy's negative of an array (on any target: Dask's
    and CuPy's ``roll`` take ints, and CuPy's ufuncs no tuple; an array's, of its module).

    >>> negated_shift(2), negated_shift((1, -3)), negated_shift(np.array([1, 2]))
    (-2, (-1, 3), array([-1, -2]))
    """
    if isinstance(shift, (tuple, list)):
        return tuple(negated_shift(s) for s in shift)
    if isinstance(shift, numbers.Integral):
        return -int(shift)
    return -array_module(shift).asarray(shift)


def take_grad(g, x, indices, axis=None, mode="raise"):
    """Adjoint of ``np.take``: repeated indices accumulate."""
    xp = array_module(g, x, indices)
    x = xp.asarray(x)
    out = _zeros(x, g)
    target = xp.reshape(out, (-1,)) if axis is None else xp.moveaxis(out, axis, 0)
    n = target.shape[0]
    index = xp.asarray(indices)
    if mode == "wrap":
        index = xp.mod(index, n)
    elif mode == "clip":
        index = xp.clip(index, 0, n - 1)
    g = xp.asarray(g)
    if axis is not None:
        axis = axis % x.ndim
        g = xp.moveaxis(g, list(range(axis, axis + index.ndim)), list(range(index.ndim)))
    if getattr(xp.add, "at", None) is not None:
        xp.add.at(target, index, g)  # (written in place: target is a view of out)
        return out
    target = _scatter(xp, target, index, g)  # (Dask: a new array, shaped back)
    return xp.reshape(target, x.shape) if axis is None else xp.moveaxis(target, 0, axis)


def take_along_axis_grad(g, x, indices, axis=-1):
    """Adjoint of ``np.take_along_axis``: repeated indices accumulate."""
    xp = array_module(g, x, indices)
    x = xp.asarray(x)
    out = _zeros(x, g)
    if axis is None:
        xp.add.at(xp.reshape(out, -1), indices, g)
        return out
    axis = axis % x.ndim
    index = []
    for d, n in enumerate(x.shape):
        if d == axis:
            index.append(xp.asarray(indices))
        else:
            shape = [1] * x.ndim
            shape[d] = n
            index.append(xp.arange(n).reshape(shape))
    return _scatter(xp, out, tuple(index), g)


def sort_grad(g, x, axis=-1):
    """Adjoint of ``np.sort``: each sorted value's sensitivity goes back to its entry."""
    xp = array_module(g, x)
    x = xp.asarray(x)
    out = _zeros(x, g)
    if axis is None:
        xp.reshape(out, -1)[xp.argsort(xp.ravel(x), kind="stable")] = xp.ravel(g)
        return out
    xp.put_along_axis(out, xp.argsort(x, axis=axis, kind="stable"), g, axis)
    return out


def choose_grad(g, a, choices, mode="raise"):
    """Adjoint of ``np.choose(a, choices)`` with respect to ``choices``."""
    xp = array_module(g, a, *choices)
    n = len(choices)
    index = xp.asarray(a)
    if mode == "wrap":
        index = xp.mod(index, n)
    elif mode == "clip":
        index = xp.clip(index, 0, n - 1)
    parts = [unbroadcast(xp.where(index == i, g, 0.0), c) for i, c in enumerate(choices)]
    return _sequence_like(parts, choices)


def linspace_grad(g, x, num=50, endpoint=True, axis=0, end=False):
    """Adjoint of ``np.linspace(start, stop, num)`` with respect to ``start`` or ``stop``
    (``end``): each value is ``start + t (stop - start)``."""
    xp = array_module(g, x)
    t = xp.linspace(0.0, 1.0, num, endpoint=endpoint)
    weights = t if end else 1.0 - t
    g = xp.moveaxis(xp.asarray(g), axis, -1)
    return unbroadcast(g @ weights.astype(xp.result_type(g, 1.0)), x)



def full_widths(out, a, b, late=False, boundary="fill", fillvalue=0, axes=None):
    """The zeros around ``out``, a convolution of ``a`` and ``b`` cut by its mode (SciPy's
    ``"same"`` or ``"valid"``), that make it the ``"full"`` one's shape: ``(before, after)``
    per axis, the cut centered as SciPy centers it (``late``: the odd zero before, as
    ``correlate2d``'s ``"same"`` has it). A convolution padded otherwise than with zeros
    (``boundary``, ``fillvalue``), or along some ``axes`` only, is refused.

    >>> full_widths(np.zeros(5), np.zeros(5), np.zeros(4))  # "same": 8 long in full
    ((1, 2),)
    >>> full_widths(np.zeros(5), np.zeros(5), np.zeros(4), late=True)
    ((2, 1),)
    >>> full_widths(np.zeros((2, 3)), np.zeros((3, 5)), np.zeros((2, 3)))  # "valid"
    ((1, 1), (2, 2))
    >>> full_widths(np.zeros(5), np.zeros(5), np.zeros(4), boundary="wrap")
    Traceback (most recent call last):
        ...
    s2sad.errors.NoDerivativeError: s2sad has no gradient for a convolution with boundary='wrap', fillvalue=0
    Pad the input yourself (np.pad) and convolve that with mode='valid'.
    """
    if not (isinstance(boundary, str) and boundary == "fill" and np.ndim(fillvalue) == 0
            and fillvalue == 0):
        raise NoDerivativeError(f"s2sad has no gradient for a convolution with "
                                f"boundary={boundary!r}, fillvalue={fillvalue!r}",
                                hint="Pad the input yourself (np.pad) and convolve that "
                                     "with mode='valid'.")
    if axes is not None:
        raise NoDerivativeError(f"s2sad has no gradient for a convolution along the axes "
                                f"{axes!r} only", hint="Give the kernel length 1 along the "
                                "other axes, or convolve each slice.")
    widths = []
    for n, p, q in zip(_shape(out), _shape(a), _shape(b)):
        cut = max(p + q - 1 - n, 0)  # (negative only where an input is empty: unused)
        widths.append((cut - cut // 2, cut // 2) if late else (cut // 2, cut - cut // 2))
    return tuple(widths)


def _scatter(xp, out, index, g):
    """``xp.add.at(out, index, g)``, returning ``out``; on Dask (no ``add.at``, no array
    written in place), a new array (:func:`s2sad.runtime.dask_compat.add_at`)."""
    if getattr(xp.add, "at", None) is None:
        from .dask_compat import add_at
        return add_at(out, index, g)
    xp.add.at(out, index, g)
    return out
