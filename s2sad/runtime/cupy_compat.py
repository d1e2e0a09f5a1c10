"""NumPy functions CuPy 14 does not have, for the CuPy target.

The CuPy target's code is the NumPy code with ``cupy`` for ``numpy``. A few NumPy 2
functions have no CuPy twin (``cupy.linalg.vector_norm``, ``cupy.linalg.matrix_norm``,
``cupy.vecdot``, ``cupy.linalg.vecdot``, ``cupy.linalg.svdvals``): these are the functions for the CuPy target to
call in their place (:func:`replacement` says which). Each one computes with the array module of
its arguments (:func:`s2sad.backends.array_module`), with CuPy's own primitives
(``linalg.norm``, ``sum``...), so CuPy data stays on the GPU; on NumPy arrays they give
what NumPy gives:

>>> import numpy as np
>>> x = np.array([[3.0, 4.0], [6.0, -8.0]])
>>> vector_norm(x, axis=1)
array([ 5., 10.])
>>> vector_norm(x, axis=0, ord=1, keepdims=True)
array([[ 9., 12.]])
>>> float(matrix_norm(x)) == float(np.linalg.norm(x))
True
>>> vecdot(x, np.array([1.0, 0.5]))
array([5., 2.])
>>> replacement("numpy.linalg", "vector_norm"), replacement("numpy", "sin")
('vector_norm', None)

Others stand in for calls CuPy's twin would not take: NumPy 2's keywords CuPy 14 lacks
(``np.clip(x, min=0.0)``, ``np.sum(x, initial=1.0)``, ``np.take(x, i, mode="wrap")``...),
and lists of numbers and device arrays mixed (``np.array([x, 1.0])``, ``np.stack([a,
b])`` of numbers), which CuPy converts through NumPy or refuses:

>>> clip(np.array([-2.0, 0.5, 3.0]), min=0.0)
array([0. , 0.5, 3. ])
>>> take(np.arange(5.0), [6, -1], mode="wrap"), sum_with_initial(np.ones(3), initial=0.5)
(array([1., 4.]), np.float64(3.5))
"""

from __future__ import annotations

import importlib
import operator

import numpy as np

from ..backends import CUPY, array_module
from .elementwise import _clip_bounds

# the NumPy functions CuPy lacks (module, name) -> the name of their stand-in here (a fact
# of the CuPy backend: ``s2sad.backends.cupy_backend``)
REPLACEMENTS = CUPY.stand_ins


def replacement(module: str, name: str) -> str | None:
    """The name of this module's stand-in for NumPy's ``module.name`` on the CuPy target,
    or None where CuPy has that function itself."""
    return REPLACEMENTS.get((module, name))


def _axes(axis, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, an int or a tuple of ints) as a tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(operator.index(a) for a in (axis if isinstance(axis, tuple) else (axis,)))
    for a in axes:
        if not -ndim <= a < ndim:  # (NumPy's AxisError, a ValueError and an IndexError)
            raise np.exceptions.AxisError(f"axis {a} is out of bounds for an array of "
                                          f"dimension {ndim}")
    axes = tuple(a % ndim for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {axis!r}")
    return axes


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """``numpy.linalg.vector_norm``: the ``ord``-norm of ``x`` over ``axis`` (all axes by
    default, as one vector), through the array module's ``linalg.norm`` over one axis.

    >>> import numpy as np
    >>> x = np.arange(24.0).reshape(2, 3, 4)
    >>> bool(np.allclose(vector_norm(x, axis=(0, 2), ord=3),
    ...                  np.linalg.norm(np.moveaxis(x, 1, 0).reshape(3, 8), 3, axis=1)))
    True
    >>> vector_norm(x, axis=(0, 2), keepdims=True).shape
    (1, 3, 1)
    """
    xp = array_module(x)
    x = xp.asarray(x)
    shape = x.shape
    axes = _axes(axis, x.ndim)
    if len(axes) == 1:
        along = axes[0]
    else:  # the reduced axes moved last and made one
        kept = tuple(a for a in range(x.ndim) if a not in axes)
        size = 1
        for a in axes:
            size *= shape[a]
        x = xp.reshape(xp.transpose(x, kept + axes), tuple(shape[a] for a in kept) + (size,))
        along = x.ndim - 1
    result = xp.linalg.norm(x, ord=ord, axis=along)
    if keepdims:
        result = xp.reshape(result, tuple(1 if a in axes else n for a, n in enumerate(shape)))
    return result


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """``numpy.linalg.matrix_norm``: the ``ord``-norm of each matrix of the stack ``x``
    (its last two axes).

    >>> import numpy as np
    >>> matrix_norm(np.stack([np.eye(2), 2.0 * np.eye(2)]), ord="nuc")
    array([2., 4.])
    """
    xp = array_module(x)
    x = xp.asarray(x)
    if x.ndim < 2:  # (NumPy's AxisError)
        raise np.exceptions.AxisError(f"matrix_norm needs an array of at least 2 dimensions, "
                                      f"got {x.ndim}")
    return xp.linalg.norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def vecdot(x1, x2, /, *, axis=-1, keepdims=False):
    """``numpy.vecdot`` (and ``numpy.linalg.vecdot``): the dot products of the vectors of
    ``x1`` and ``x2`` along ``axis``, the other axes broadcast; ``x1`` is conjugated.

    >>> import numpy as np
    >>> vecdot(np.array([1j, 2.0]), np.array([1j, 1.0]))
    np.complex128(3+0j)
    >>> vecdot(np.ones((4, 3)), np.arange(4.0), axis=0)
    array([6., 6., 6.])
    >>> vecdot(np.ones((2, 3)), np.ones((2, 1)))
    Traceback (most recent call last):
    ...
    ValueError: vecdot: the vectors along axis -1 have 3 and 1 elements
    """
    xp = array_module(x1, x2)
    x1, x2 = xp.asarray(x1), xp.asarray(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot needs arrays of at least one dimension")
    _axes(axis, x1.ndim), _axes(axis, x2.ndim)  # (NumPy's AxisError)
    n1, n2 = x1.shape[axis], x2.shape[axis]
    if n1 != n2:
        raise ValueError(f"vecdot: the vectors along axis {axis} have {n1} and {n2} elements")
    if xp.iscomplexobj(x1):
        x1 = xp.conj(x1)
    # the vectors last in each operand (``axis`` counts in each one), the rest broadcast
    products = xp.moveaxis(x1, axis, -1) * xp.moveaxis(x2, axis, -1)
    # (bool vectors: NumPy's bool dot product, any of the ands)
    reduce = xp.any if products.dtype == bool else xp.sum
    result = reduce(products, axis=-1, keepdims=keepdims)
    return xp.moveaxis(result, -1, axis) if keepdims else result


def svdvals(x, /):
    """``numpy.linalg.svdvals``: the singular values of the matrices in the last two axes.

    >>> import numpy as np
    >>> svdvals(np.array([[3.0, 0.0], [0.0, -4.0]]))
    array([4., 3.])
    """
    xp = array_module(x)
    return xp.linalg.svd(xp.asarray(x), compute_uv=False)


# --- calls CuPy's twin would not take -----------------------------------------------------


def _device(*values):
    """The array module of ``values``; CuPy's where all are numbers or None (these
    stand-ins are called by CuPy code: its numbers are meant for the GPU)."""
    xp = array_module(*values)
    if xp is not np or any(isinstance(v, (np.ndarray, np.generic)) for v in values):
        return xp
    return importlib.import_module("cupy")


def _leaves(value):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _as_array(xp, value):
    """``value`` (a number, an array, or lists of them) as one array of ``xp``: nested
    lists are stacked, so that device arrays in them stay on the device."""
    if isinstance(value, (list, tuple)) and any(
            isinstance(leaf, xp.ndarray) for leaf in _leaves(value)):
        return xp.stack([_as_array(xp, item) for item in value])
    return xp.asarray(value)


def array(object, dtype=None, *, copy=True, order="K", ndmin=0):
    """``numpy.array`` of a list or tuple: where it holds device arrays, its items are
    stacked (CuPy converts such a list through NumPy, which a device array refuses).

    >>> array([np.float64(2.0), 1.0, np.arange(1.0)[0]])
    array([2., 1., 0.])
    """
    xp = _device(*_leaves(object))
    if not isinstance(object, (list, tuple)) or \
            not any(isinstance(leaf, xp.ndarray) for leaf in _leaves(object)):
        return xp.array(object, dtype=dtype, copy=copy, order=order, ndmin=ndmin)
    result = _as_array(xp, object)
    if dtype is not None:
        result = result.astype(dtype)
    if result.ndim < ndmin:
        result = xp.reshape(result, (1,) * (ndmin - result.ndim) + result.shape)
    return result


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """``numpy.stack`` of a display, its numbers and lists made arrays first (CuPy's stack
    takes arrays only).

    >>> stack([1.0, np.float64(2.0)])
    array([1., 2.])
    """
    xp = _device(*_leaves(arrays))
    return xp.stack([_as_array(xp, a) for a in arrays], axis=axis, out=out, dtype=dtype,
                    casting=casting)


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """``numpy.concatenate`` of a display, its lists made arrays first (CuPy's takes
    arrays only).

    >>> concatenate([[0.5], np.ones(2)])
    array([0.5, 1. , 1. ])
    """
    xp = _device(*_leaves(arrays))
    return xp.concatenate([_as_array(xp, a) for a in arrays], axis=axis, out=out,
                          dtype=dtype, casting=casting)


def choose(a, choices, out=None, mode="raise"):
    """``numpy.choose``: a list of choices is broadcast and stacked into the one array
    CuPy's ``choose`` takes.

    >>> choose(np.array([0, 1, 0]), [np.zeros(3), 5.0])
    array([0., 5., 0.])
    """
    if isinstance(choices, (list, tuple)):
        xp = _device(a, *_leaves(choices))
        choices = xp.stack(xp.broadcast_arrays(*[_as_array(xp, c) for c in choices]))
    else:
        xp = _device(a, choices)
    return xp.choose(xp.asarray(a), choices, out=out, mode=mode)


def polygamma(n, x):
    """``scipy.special.polygamma``, its order ``n`` made an array (CuPy 14's reads ``n ==
    0`` as an array).

    >>> round(float(polygamma(1, np.float64(1.0))), 12) == round(np.pi ** 2 / 6, 12)
    True
    """
    xp = array_module(n, x)
    if xp is np:
        return importlib.import_module("scipy.special").polygamma(n, x)
    special = importlib.import_module("cupyx.scipy.special")
    return special.polygamma(xp.asarray(n), x)


def clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):
    """``numpy.clip`` with NumPy 2's ``min=`` and ``max=`` (CuPy's has ``a_min``, ``a_max``)."""
    a_min, a_max = _clip_bounds(a_min, a_max, min, max)
    xp = _device(a, a_min, a_max)
    return xp.clip(xp.asarray(a), a_min, a_max, out=out)


def take(a, indices, axis=None, out=None, mode="raise"):
    """``numpy.take`` with its ``mode`` (CuPy's has none, and wraps any index): ``"wrap"``
    takes indices modulo the length, ``"clip"`` clips them to it (a negative one to 0),
    ``"raise"`` raises ``IndexError`` for one out of bounds, as NumPy does."""
    xp = _device(a, indices)
    a, indices = xp.asarray(a), xp.asarray(indices)
    if axis is not None:
        _axes(axis, a.ndim)  # (NumPy's AxisError)
    n = a.size if axis is None else a.shape[axis]
    if mode == "wrap":
        indices = indices % n
    elif mode == "clip":
        indices = xp.clip(indices, 0, n - 1)
    elif mode == "raise":
        if indices.size and bool(xp.any((indices < -n) | (indices >= n))):
            raise IndexError(f"take: an index is out of bounds for size {n}")
    else:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    return xp.take(a, indices, axis=axis, out=out)


def sum_with_initial(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):
    """``numpy.sum`` with its ``initial`` (CuPy's has none): the sum, plus ``initial`` in
    the sum's dtype."""
    xp = _device(a)
    total = xp.sum(xp.asarray(a), axis=axis, dtype=dtype, keepdims=keepdims)
    if initial is not None:
        total = total + xp.asarray(initial, dtype=total.dtype)
    if out is not None:
        out[...] = total
        return out
    return total


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
    """``numpy.var`` with NumPy 2's ``correction``, the Array API's name of ``ddof``.

    >>> float(var(np.array([1.0, 3.0]), correction=1))
    2.0
    """
    xp = _device(a)
    return xp.var(xp.asarray(a), axis=axis, dtype=dtype, out=out,
                  ddof=_ddof(ddof, correction), keepdims=keepdims)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
    """``numpy.std`` with NumPy 2's ``correction`` (``ddof``)."""
    xp = _device(a)
    return xp.std(xp.asarray(a), axis=axis, dtype=dtype, out=out,
                  ddof=_ddof(ddof, correction), keepdims=keepdims)


def _ddof(ddof, correction):
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def cholesky(a, /, *, upper=False):
    """``numpy.linalg.cholesky`` with NumPy 2's ``upper``: the conjugate transpose of the
    lower factor (CuPy's gives the lower one only).

    >>> cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]), upper=True)
    array([[2., 1.],
           [0., 2.]])
    """
    xp = _device(a)
    lower = xp.linalg.cholesky(a)
    return xp.conj(xp.swapaxes(lower, -1, -2)) if upper else lower
