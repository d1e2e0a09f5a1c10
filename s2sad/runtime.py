"""The few helpers generated code calls. Each is small, pure, and readable on its own.

Every helper works on NumPy and on CuPy arrays alike: it computes with the array
module of its inputs (``xp = array_module(g, x)``), so CuPy data stays on the GPU,
and NumPy data takes the very same path as before (``xp`` is ``np``). Shapes, axes
and index bookkeeping stay plain Python on the host.

>>> import numpy as np
>>> unbroadcast(np.ones((3, 4)), np.zeros(4))
array([3., 3., 3., 3.])
>>> unbroadcast(np.ones((3, 4)), np.zeros((3, 1)))
array([[4.],
       [4.],
       [4.]])
>>> unbroadcast(np.ones(3), 2.0)
np.float64(3.0)
>>> as_gradient([1.0, np.float64(2.0)], [3, np.float64(4.0)])
[3.0, np.float64(4.0)]
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from .backends import DeviceShape, Shape, array_module
from .errors import (DifferentiationError, NoDerivativeError, NonScalarOutputError,
                     UnsupportedSyntaxError)

# --- backend-agnostic basics ------------------------------------------------------------------


def _shape(x):
    """``np.shape(x)``, read off the array itself where there is one (NumPy's or CuPy's)."""
    shape = getattr(x, "shape", None)
    return np.shape(x) if shape is None else shape


def _ndim(x):
    """``np.ndim(x)``, read off the array itself where there is one."""
    ndim = getattr(x, "ndim", None)
    return np.ndim(x) if ndim is None else ndim


def _dtype(x):
    """The dtype of ``x`` (``np.asarray(x).dtype`` for Python numbers and lists)."""
    dtype = getattr(x, "dtype", None)
    return np.asarray(x).dtype if dtype is None else dtype


def _to(xp, value):
    """``value`` as an array of ``xp`` when ``xp`` is CuPy, whose functions (ufuncs aside)
    take no Python scalars; NumPy's do, so on NumPy ``value`` is returned unchanged."""
    return value if xp is np else xp.asarray(value)


def _argsort(values):
    """The permutation that sorts ``values`` (a few axis numbers), as a tuple."""
    return tuple(sorted(range(len(values)), key=list(values).__getitem__))


_LEADING = [tuple(range(n)) for n in range(33)]  # the axes a broadcast put in front


def _spread(xp, g, shape):
    """``xp.broadcast_to(g, shape)``: a read-only view. A NumPy array's view is made
    directly (stride 0 along the axes it is spread over), which costs a tenth of
    ``np.broadcast_to``'s checks.

    >>> _spread(np, 2.0, (2, 3))
    array([[2., 2., 2.],
           [2., 2., 2.]])
    >>> _spread(np, np.array([[1.0], [2.0]]), (2, 3))
    array([[1., 1., 1.],
           [2., 2., 2.]])
    """
    if xp is np:
        value = g if type(g) is np.ndarray else np.asarray(g)
        if value.ndim == 0:
            strides = (0,) * len(shape)
        elif value.flags.c_contiguous and value.ndim <= len(shape):
            extra = len(shape) - value.ndim
            strides = (0,) * extra + tuple(
                step if n == m else 0 if n == 1 else None
                for n, m, step in zip(value.shape, shape[extra:], value.strides))
            if None in strides:  # (not broadcastable: NumPy's own error)
                return np.broadcast_to(g, shape)
        else:
            return np.broadcast_to(g, shape)
        view = np.ndarray(shape, value.dtype, value, 0, strides)
        view.flags.writeable = False
        return view
    return xp.broadcast_to(g, shape)


_SUMS: dict = {}  # (shape of g, shape of like) -> (axes, keepdims, subscripts) of its one sum
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
# A float64 (or complex128) sum of this many elements or more, whose last axis is shorter
# than _EINSUM_ROW, goes through np.einsum: g.sum(axis=...) pays for each short row it
# adds, einsum's summing loops do not, and take a fifth to a half of its time ((K, n, d)
# with d = 10 summed over n: 0.25 ms against 1 ms); with long rows the two are even, or
# sum is ahead. In float64 they agree to rounding (einsum adds in order, sum pairwise: a
# relative difference of 1e-16 over thousands of terms). Not in float32, whose einsum
# adds in float32 in order, a hundred times less accurately than sum.
_EINSUM_SIZE = 2048
_EINSUM_ROW = 128


def _sum_plan(ndim: int, axes: tuple, keepdims: bool) -> tuple:
    """How unbroadcast sums over ``axes`` of an array of ``ndim`` dimensions: the axes,
    keepdims, and the same sum as ``np.einsum`` subscripts (None past 52 dimensions).

    >>> _sum_plan(3, (1,), True)
    ((1,), True, 'abc->ac')
    """
    if ndim > len(_LETTERS):
        return axes, keepdims, None
    kept = "".join(_LETTERS[i] for i in range(ndim) if i not in axes)
    return axes, keepdims, f"{_LETTERS[:ndim]}->{kept}"


def _sum_down(g, plan, shape):
    """The sum of NumPy array ``g`` that ``plan`` (``_sum_plan``) describes, shaped
    ``shape``: through np.einsum where it is large, float64, and its rows are short (see
    ``_EINSUM_SIZE``).

    >>> g = np.arange(6000.0).reshape(2, 1000, 3)
    >>> plan = _sum_plan(3, (1,), True)
    >>> bool(np.array_equal(_sum_down(g, plan, (2, 1, 3)), g.sum(axis=1, keepdims=True)))
    True
    """
    if g.size >= _EINSUM_SIZE and g.shape[-1] < _EINSUM_ROW and plan[2] is not None and \
            g.dtype.char in "dD":
        total = np.einsum(plan[2], g)
        return total if plan[1] is False else total.reshape(shape)
    return g.sum(axis=plan[0], keepdims=plan[1])


_BROADCASTS: dict = {}  # (shapes of a and b, module) -> Shape of a op b; of a @ b: ("@", ...)
_SHAPES: dict = {}  # an array's shape -> the Shape saved for it (one object per shape)


def shape_of(x):
    """The shape of ``x``, saved in its place where a later read wants only its shape (a
    value a loop overwrites, read by the reverse sweep for ``unbroadcast`` alone): the
    array itself is not kept alive. None (a placeholder before a loop's first pass) stays.

    >>> shape_of(np.zeros((2, 3))), shape_of(2.5), shape_of(None)
    (Shape((2, 3)), Shape(()), None)
    """
    if type(x) is np.ndarray:
        shape = _SHAPES.get(x.shape)
        if shape is None:
            shape = Shape(x.shape)
            _remember(_SHAPES, x.shape, shape)
        return shape
    if x is None:
        return None
    return _shape_type(array_module(x))(_shape(x))


def broadcast_shape(a, b):
    """The shape of ``a + b`` (or any elementwise ``a op b``), without computing it.
    (A ``DeviceShape`` where an operand lives on the GPU.)

    >>> broadcast_shape(np.zeros((3, 1, 4)), np.zeros((5, 1)))
    Shape((3, 5, 4))
    >>> broadcast_shape(np.zeros(2), 1.0)
    Shape((2,))
    """
    sa = a.shape if type(a) is np.ndarray else _shape(a)
    sb = b.shape if type(b) is np.ndarray else _shape(b)
    key = sa, sb, array_module(a, b)
    shape = _BROADCASTS.get(key)
    if shape is None:  # (NumPy's error where they do not broadcast)
        shape = _shape_type(key[2])(np.broadcast_shapes(sa, sb))
        _remember(_BROADCASTS, key, shape)
    return shape


def matmul_shape(a, b):
    """The shape of ``a @ b``, without computing it: the stacked dimensions broadcast,
    a vector operand loses the dimension NumPy gives it for the product.

    >>> matmul_shape(np.zeros((7, 1, 2, 3)), np.zeros((5, 3, 4)))
    Shape((7, 5, 2, 4))
    >>> matmul_shape(np.zeros(3), np.zeros((3, 4))), matmul_shape(np.zeros((2, 3)), np.zeros(3))
    (Shape((4,)), Shape((2,)))
    >>> matmul_shape(np.zeros(3), np.zeros(3))
    Shape(())
    """
    sa, sb = _shape(a), _shape(b)
    key = "@", sa, sb, array_module(a, b)
    shape = _BROADCASTS.get(key)
    if shape is None:
        if not sa or not sb or sa[-1] != sb[-2 if len(sb) > 1 else -1]:
            raise ValueError(f"matmul: shapes {sa} and {sb} do not match")
        rows = sa[-2:-1]  # () for a vector
        columns = sb[-1:] if len(sb) > 1 else ()
        shape = _shape_type(key[3])(np.broadcast_shapes(sa[:-2], sb[:-2]) + rows + columns)
        _remember(_BROADCASTS, key, shape)
    return shape


def _shape_type(xp):
    return Shape if xp is np else DeviceShape


def _remember(cache: dict, key, value) -> None:
    if len(cache) > 4096:  # (shapes that change at each call: no unbounded growth)
        cache.clear()
    cache[key] = value


def _plan_down(gshape: tuple, shape: tuple):
    """The plan (``_sum_plan``) of the one sum that takes an array shaped ``gshape`` down
    to ``shape``, remembered: axes put in front (a bias added to each row), or axes of
    length 1 in ``shape`` (a max kept with keepdims=True); None otherwise.

    >>> _plan_down((4, 2, 3), (2, 3)), _plan_down((4, 3), (1, 3)), _plan_down((4, 3), (4, 2))
    (((0,), False, 'abc->bc'), ((0,), True, 'ab->b'), None)
    """
    plan = None
    extra = len(gshape) - len(shape)
    if extra > 0 and gshape[extra:] == shape:
        plan = _sum_plan(len(gshape), _LEADING[extra], False)
    elif extra == 0 and all(n == m or n == 1 for n, m in zip(shape, gshape, strict=True)):
        plan = _sum_plan(len(gshape), tuple(i for i, n in enumerate(shape)
                                            if n == 1 and gshape[i] != 1), True)
    if plan is not None:
        _remember(_SUMS, (gshape, shape), plan)
    return plan


def _einsum_pair(a, b) -> bool:
    """Do NumPy arrays ``a`` and ``b`` sum their product faster in ``np.einsum`` (large,
    float64, one shape; see ``_EINSUM_SIZE``)?"""
    return type(a) is np.ndarray and type(b) is np.ndarray and a.shape == b.shape and \
        a.size >= _EINSUM_SIZE and a.dtype.char == "d" and b.dtype.char == "d" and \
        a.ndim <= len(_LETTERS)


def sum_product(a, b, axis=None, keepdims=False):
    """``np.sum(a * b, axis=axis, keepdims=keepdims)``: for large float64 arrays of one
    shape, summed as ``np.einsum`` multiplies, without the product (a quarter of the time
    of a (25, 1000, 10) product summed over its last axis, and no 2 MB array made).

    >>> a = np.arange(6000.0).reshape(2, 1000, 3)
    >>> bool(np.allclose(sum_product(a, a, axis=2), np.sum(a * a, axis=2)))
    True
    >>> sum_product(a, a, axis=(0, -1), keepdims=True).shape
    (1, 1000, 1)
    >>> bool(sum_product(2.0, 3.0) == np.sum(2.0 * 3.0))  # (anything else: np.sum of a * b)
    True
    """
    if _einsum_pair(a, b):
        ndim = a.ndim
        given = list(range(ndim)) if axis is None else \
            [axis] if isinstance(axis, numbers.Integral) else list(axis)
        axes = {n % ndim for n in given if -ndim <= n < ndim}
        if len(axes) == len(given):  # (else np.sum says what is wrong with the axes)
            letters = _LETTERS[:ndim]
            kept = "".join(letters[i] for i in range(ndim) if i not in axes)
            total = np.einsum(f"{letters},{letters}->{kept}", a, b)
            if keepdims:
                return total.reshape([1 if i in axes else n for i, n in enumerate(a.shape)])
            return total if kept else total[()]  # (a NumPy scalar, as np.sum gives)
    return array_module(a, b).sum(a * b, axis=axis, keepdims=keepdims)


def unbroadcast_product(a, b, like):
    """``unbroadcast(a * b, like)``: for large float64 arrays of one shape, summed down
    as ``np.einsum`` multiplies, without the product (the adjoint of a broadcast factor:
    ``s_q = unbroadcast_product(x, s_y, q)`` for ``y = q * x``); for NumPy arrays where
    one factor is the same along every summed axis, that factor times the other's sum.

    >>> a = np.arange(6000.0).reshape(2, 1000, 3)
    >>> unbroadcast_product(a, a, np.zeros((2, 1, 3))).shape
    (2, 1, 3)
    >>> bool(np.allclose(unbroadcast_product(a, a, np.zeros(3)), (a * a).sum(axis=(0, 1))))
    True
    """
    if _einsum_pair(a, b):
        shape = like.shape if type(like) is np.ndarray or type(like) is Shape else \
            _shape(like)
        if not shape:  # (like a number: a sum of everything)
            return sum_product(a, b)
        if a.shape != shape:
            plan = _SUMS.get((a.shape, shape)) or _plan_down(a.shape, shape)
            if plan is not None and plan[2] is not None:
                subscripts, kept = plan[2].split("->")
                total = np.einsum(f"{subscripts},{subscripts}->{kept}", a, b)
                return total if plan[1] is False else total.reshape(shape)
    elif type(a) is np.ndarray and type(b) is np.ndarray and a.shape != b.shape:
        try:
            summed = _summed_axes(np.broadcast_shapes(a.shape, b.shape), _shape(like))
        except ValueError:  # (a * b says so, as it would have)
            summed = ()
        for factor, other in ((a, b), (b, a)):  # a factor that is the same along every
            # summed axis comes out of the sum: q * sum(x), not sum(q * x)
            if summed and _constant_along(factor, summed):
                return unbroadcast(factor * _sum_keeping(other, summed), like)
    return unbroadcast(a * b, like)


def _summed_axes(shape: tuple, target: tuple) -> tuple:
    """The axes of ``shape`` (counted from the end, negative) that ``unbroadcast`` sums
    to reach ``target``: those ``target`` lacks, and those where it has 1 and ``shape``
    has more.

    >>> _summed_axes((5, 4, 3), (1, 3)), _summed_axes((4, 3), (4, 3))
    ((-3, -2), ())
    """
    n = len(shape)
    if len(target) > n:  # (a larger target: spread out, nothing summed)
        return ()
    padded = (1,) * (n - len(target)) + tuple(target)
    return tuple(i - n for i in range(n) if padded[i] == 1 and shape[i] != 1)


def _constant_along(x, axes: tuple) -> bool:
    """Is array ``x`` (broadcast from the right) of length 1, or absent, along ``axes``
    (negative)?"""
    return all(-i > x.ndim or x.shape[i] == 1 for i in axes)


def _sum_keeping(x, axes: tuple):
    """NumPy array ``x`` summed along those of ``axes`` (negative) it has, keeping them
    (length 1), as ``unbroadcast`` sums (np.einsum for large float64 arrays with short
    rows)."""
    n = x.ndim
    return unbroadcast(x, Shape(tuple(1 if i - n in axes else m
                                      for i, m in enumerate(x.shape))))


def summed_matmul_grad_left(g, x, y, like):
    """``unbroadcast(matmul_grad_left(g, x, y), like)``: where the sum runs along the
    rows of ``x @ y`` (axis -2), or along batch axes that ``y`` does not have, ``g`` is
    summed first and multiplied after (``sum(g) @ y.T``, not ``sum(g @ y.T)``). The GMM's
    ``s_xc``, read only for ``s_means``, is then a (K, 1, d) array, never a (K, n, d) one.

    >>> g, y = np.ones((4, 5, 3)), np.ones((4, 2, 3))
    >>> summed_matmul_grad_left(g, np.ones((4, 5, 2)), y, np.ones((4, 1, 2)))[..., 0]
    array([[15.],
           [15.],
           [15.],
           [15.]])
    """
    if type(g) is np.ndarray and type(x) is np.ndarray and type(y) is np.ndarray and \
            g.ndim >= 2 and x.ndim >= 2 and y.ndim >= 2:
        full = np.broadcast_shapes(x.shape, g.shape[:-1] + (x.shape[-1],))
        summed = _summed_axes(full, _shape(like))
        if summed and -1 not in summed and all(i == -2 or -i > y.ndim or y.shape[i] == 1
                                               for i in summed):
            return unbroadcast(np.matmul(_sum_keeping(g, summed), np.swapaxes(y, -1, -2)),
                               like)
    return unbroadcast(matmul_grad_left(g, x, y), like)


def unbroadcast(g, like):
    """Sum ``g`` (shaped like a broadcast result) down to the shape of ``like`` (an
    array, a number, or a ``Shape``).

    >>> unbroadcast(np.ones((2, 3)), broadcast_shape(np.zeros((1, 3)), 2.0))
    array([[2., 2., 2.]])
    """
    if type(g) is np.ndarray and (type(like) is np.ndarray or type(like) is Shape):
        shape = like.shape if type(like) is np.ndarray else like  # (the common cases first;
        # a Shape is a tuple: its own shape)
        gshape = g.shape
        if gshape == shape:
            return g  # nothing was broadcast
        plan = _SUMS.get((gshape, shape)) or _plan_down(gshape, shape)
        if plan is not None:
            return _sum_down(g, plan, shape)
    shape = _shape(like)
    gshape = _shape(g)
    if gshape == shape:
        return g
    xp = array_module(g, like)
    if not shape:  # (like a Python number: a sum of everything)
        if type(g) is np.ndarray and g.ndim < len(_LEADING):
            return _sum_down(g, _sum_plan(g.ndim, _LEADING[g.ndim], False), ())
        return xp.sum(g)
    extra = len(gshape) - len(shape)
    if extra >= 0:  # one sum over the axes put in front and those of length 1 in like
        axes = _LEADING[extra] + tuple(extra + i for i, n in enumerate(shape)
                                       if n == 1 and gshape[extra + i] != 1)
        if axes:
            g = g.sum(axis=axes, keepdims=True)
            g = g.reshape(g.shape[extra:]) if extra else g
    if _shape(g) != shape:  # g was smaller than like (a scalar seed): spread it out
        g = _spread(xp, _to(xp, g), shape)
    return g


def sum_grad(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.sum(x, axis, keepdims)``: spread ``g`` back over the summed axes."""
    xp = array_module(g, x)
    g = _to(xp, g)
    shape = _shape(x)
    if axis is not None and not keepdims:
        axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
        if _ndim(g) == len(shape) - len(axes):  # (a number, as the 0.0 of a sensitivity
            g = xp.expand_dims(g, tuple(a % len(shape) for a in axes))  # nothing flowed
    return _spread(xp, g, shape)  # into, broadcasts as it is)


def reduced_size(x, axis=None):
    """How many elements of ``x`` each result of a reduction over ``axis`` combines."""
    shape = _shape(x)
    if axis is None:
        return int(np.prod(shape))
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    return int(np.prod([shape[a] for a in axes]))


def extremum_grad(g, ans, x, axis=None, keepdims=False):
    """Adjoint of max/min: ``g`` goes to the extremal entries, shared equally by ties."""
    xp = array_module(g, ans, x)
    if axis is not None and not keepdims:
        axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
        axes = tuple(a % _ndim(x) for a in axes)
        g = xp.expand_dims(_to(xp, g), axes)
        ans = xp.expand_dims(_to(xp, ans), axes)
    mask = xp.asarray(x == ans)
    ties = mask.sum(axis=axis, keepdims=True, dtype=xp.result_type(g, 1.0))  # (no int cast)
    return mask * (g / ties)  # (one division per extremum)


def _full(xp, g, shape):
    """``g`` as an array of ``shape``: a number where the array is (the ``0.0`` a
    sensitivity starts from in a loop, before anything flowed into it) spread over it, so
    that an adjoint that needs the array's axes has them.

    >>> _full(np, 0.0, (2, 3)).shape, _full(np, np.ones(3), (3,)).shape
    ((2, 3), (3,))
    """
    if _ndim(g) < len(shape):
        return xp.broadcast_to(_to(xp, g), shape)
    return g


def _dot_shape(x, y) -> tuple:
    """The shape of ``np.dot(x, y)`` for arrays of rank 1 or more."""
    sx, sy = _shape(x), _shape(y)
    return tuple(sx[:-1]) + (tuple(sy[:-2]) + tuple(sy[-1:]) if len(sy) > 1 else ())


def dot_grad_left(g, x, y):
    """Adjoint of ``np.dot(x, y)`` with respect to ``x``, for every combination of ranks."""
    if _ndim(y) == 0 or _ndim(x) == 0:
        return unbroadcast(g * y, x) if _ndim(x) == 0 else g * y
    xp = array_module(g, x, y)
    g = _full(xp, g, _dot_shape(x, y))
    if _ndim(y) == 1:
        return xp.multiply.outer(_to(xp, g), y) if _ndim(x) > 1 else g * y
    # dot contracts the last axis of x with the second-to-last axis of y
    y_axes = [a for a in range(_ndim(y)) if a != _ndim(y) - 2]
    g_axes = list(range(_ndim(x) - 1, _ndim(g)))
    return xp.tensordot(_to(xp, g), y, axes=(g_axes, y_axes))


def dot_grad_right(g, x, y):
    """Adjoint of ``np.dot(x, y)`` with respect to ``y``."""
    if _ndim(y) == 0 or _ndim(x) == 0:
        return unbroadcast(g * x, y) if _ndim(y) == 0 else g * x
    xp = array_module(g, x, y)
    g = _full(xp, g, _dot_shape(x, y))
    if _ndim(x) == 1:
        if _ndim(y) == 1:
            return g * x
        g = xp.reshape(_to(xp, g), _shape(y)[:-2] + _shape(y)[-1:])
        return xp.moveaxis(xp.multiply.outer(x, g), 0, -2)
    x_axes = list(range(_ndim(x) - 1))
    g_axes = list(range(_ndim(x) - 1))
    gy = xp.tensordot(x, _to(xp, g), axes=(x_axes, g_axes))  # shape (k, *y_other)
    return xp.moveaxis(gy, 0, -2) if _ndim(y) > 1 else gy


def matmul_grad_left(g, x, y):
    """Adjoint of ``x @ y`` with respect to ``x`` (batched, with 1-d operands)."""
    xp = array_module(g, x, y)
    g = _full(xp, g, matmul_shape(x, y))
    if _ndim(y) == 1:
        gx = xp.multiply.outer(_to(xp, g), y) if _ndim(x) > 1 else g * y
        return unbroadcast(gx, x)
    if _ndim(x) == 1:
        return unbroadcast(xp.matmul(y, g[..., None])[..., 0], x)
    return unbroadcast(xp.matmul(g, xp.swapaxes(y, -1, -2)), x)


def matmul_grad_right(g, x, y):
    """Adjoint of ``x @ y`` with respect to ``y``."""
    xp = array_module(g, x, y)
    g = _full(xp, g, matmul_shape(x, y))
    if _ndim(x) == 1:
        if _ndim(y) == 1:
            return g * x
        # x @ y contracts x with axis -2 of y: the new axis from the outer product goes there
        return unbroadcast(xp.moveaxis(xp.multiply.outer(x, g), 0, -2), y)
    if _ndim(y) == 1:
        return unbroadcast(xp.matmul(xp.swapaxes(x, -1, -2), g[..., None])[..., 0], y)
    return unbroadcast(xp.matmul(xp.swapaxes(x, -1, -2), g), y)


def tensordot_grad(g, x, y, axes, argnum):
    """Adjoint of ``np.tensordot(x, y, axes)`` with respect to ``x`` (0) or ``y`` (1)."""
    xp = array_module(g, x, y)
    g = _to(xp, g)
    nx, ny = _ndim(x), _ndim(y)
    if isinstance(axes, numbers.Integral):
        x_axes = list(range(nx - axes, nx))
        y_axes = list(range(axes))
    else:
        x_axes, y_axes = ([a] if isinstance(a, numbers.Integral) else list(a) for a in axes)
        x_axes = [a % nx for a in x_axes]
        y_axes = [a % ny for a in y_axes]
    x_free = [a for a in range(nx) if a not in x_axes]
    y_free = [a for a in range(ny) if a not in y_axes]
    n_xfree = len(x_free)
    g = _full(xp, g, tuple(_shape(x)[a] for a in x_free) + tuple(_shape(y)[b] for b in y_free))
    # g has axes (x_free..., y_free...)
    if argnum == 0:
        gx = xp.tensordot(g, y, axes=(list(range(n_xfree, _ndim(g))), y_free))
        # gx's axes: x's free axes, then y's contracted axes in increasing order, each of
        # which stands for the x axis it was paired with
        labels = x_free + [x_axes[y_axes.index(a)] for a in sorted(y_axes)]
        return xp.transpose(gx, _argsort(labels))
    gy = xp.tensordot(x, g, axes=(x_free, list(range(n_xfree))))
    labels = [y_axes[x_axes.index(a)] for a in sorted(x_axes)] + y_free
    return xp.transpose(gy, _argsort(labels))


def transpose_grad(g, axes=None):
    """Adjoint of ``np.transpose(x, axes)``."""
    xp = array_module(g)
    if _ndim(g) == 0:
        return g  # (a number spread over x: the same transposed)
    if axes is None:
        return xp.transpose(g)
    return xp.transpose(g, _argsort(axes))


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
    xp.add.at(out, index, _to(xp, g))
    return out


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


def _float_type(x):
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = np.result_type(x)
    return dtype if dtype.kind in "fc" else np.float64


class SensitivityDict(dict):
    """The sensitivity of a dict: zero at a key it was not made with. (A key the dict had
    only for a while, ``d['c'] = v`` taken out again by the reverse sweep, may still get
    a sensitivity.)

    >>> s_d = SensitivityDict(a=1.0)
    >>> s_d['c'] += 2.0
    >>> s_d
    {'a': 1.0, 'c': 2.0}
    """

    __slots__ = ()

    def __missing__(self, key):
        return 0.0


def zeros_like_structure(x):
    """Zeros with the structure of ``x``, ready to be updated in place (tuples become
    lists, a dict a :class:`SensitivityDict`)."""
    if isinstance(x, (list, tuple)):
        return [zeros_like_structure(v) for v in x]
    if isinstance(x, dict):
        return SensitivityDict((k, zeros_like_structure(v)) for k, v in x.items())
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape, _float_type(x))
    if isinstance(x, float):
        return 0.0
    xp = array_module(x)
    if xp is not np:
        return xp.zeros(x.shape, _float_type(x))
    return 0.0


def pack_like(x, parts):
    """Adjoint of unpacking ``a, b, ... = x``: the parts' sensitivities, shaped like ``x``."""
    if isinstance(x, tuple):
        return tuple(parts)
    if isinstance(x, list):
        return list(parts)
    xp = array_module(x)
    if isinstance(x, xp.ndarray):
        return xp.stack([xp.broadcast_to(_to(xp, p), x.shape[1:])
                         for p in parts]).astype(_float_type(x))
    return list(parts)


class _Missing:
    """What a dict held at a key it did not have (saved before ``d[k] = v`` added it)."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()


def item_or_missing(d, key):
    """``d[key]``, saved before ``d[key] = v``; ``MISSING`` if ``d`` has no such key.

    >>> d = {"a": 1.0}
    >>> item_or_missing(d, "a"), item_or_missing(d, "c")
    (1.0, <missing>)
    """
    return d.get(key, MISSING)


def restore_item(d, key, value) -> None:
    """Undo ``d[key] = v`` with the value :func:`item_or_missing` saved: put it back, or
    take the key out again if ``d`` did not have it.

    >>> d = {"a": 1.0, "c": 3.0}
    >>> restore_item(d, "a", 2.0); restore_item(d, "c", MISSING); d
    {'a': 2.0}
    """
    if value is MISSING:
        d.pop(key, None)  # (a derivative of this code may have taken it out already)
    else:
        d[key] = value


def add_sens(a, b):
    """``a + b`` for sensitivities that may be containers (lists add element by element;
    ``None`` in a tuple, for an argument that is not a number, adds as zero)."""
    if isinstance(b, (list, tuple, dict)) and _zero(a):
        return b  # the first contribution to a container's sensitivity (its parts may differ
        # in shape: the pieces of np.concatenate), as optimized code assigns it
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if _has_none(a) or _has_none(b):
            return tuple(u if v is None else v if u is None else add_sens(u, v)
                         for u, v in zip(a, b, strict=True))
        summed = [add_sens(u, v) for u, v in zip(a, b, strict=True)]
        return summed if isinstance(a, list) else tuple(summed)
    if isinstance(a, (list, tuple, dict)) and _zero(b):
        return a  # (the 0.0 nothing has flowed into yet: a list's items keep their shapes)
    if isinstance(a, dict) and isinstance(b, dict):  # (zero at a key neither has)
        summed = SensitivityDict((k, add_sens(a[k], b[k]) if k in b else a[k]) for k in a)
        summed.update((k, v) for k, v in b.items() if k not in a)
        return summed
    if isinstance(a, (list, tuple)):
        a = _stacked(a, b)
    if isinstance(b, (list, tuple)):
        b = _stacked(b, a)
    return a + b


def _has_none(items) -> bool:
    return any(v is None for v in items)


def _zero(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x == 0


def _stacked(items, other):
    """A list of sensitivities as one array, on the device of ``other`` or of the items."""
    xp = array_module(other, *items)
    return xp.asarray(items) if xp is np else xp.stack([xp.asarray(v) for v in items])


def output_seed(value):
    """The sensitivity of a function's result to itself: 1, checked to be a scalar."""
    if isinstance(value, (bool, np.bool_)) or \
            not isinstance(value, (numbers.Number, np.ndarray, np.generic)):
        xp = array_module(value)
        if xp is np or value.dtype == bool:
            raise NonScalarOutputError(
                f"grad needs a function that returns a scalar, but it returned {type(value).__name__}",
                hint="Return a float or a size-1 array; for vector outputs use s2sad.vjp or s2sad.jacobian.")
    else:
        xp = np
    if np.size(value) != 1 if xp is np else value.size != 1:
        raise NonScalarOutputError(
            f"grad needs a function that returns a scalar, but it returned an array of shape {_shape(value)}",
            hint="Reduce it (np.sum, np.mean...) or, for vector outputs, use s2sad.vjp or s2sad.jacobian.")
    if isinstance(value, (np.ndarray, xp.ndarray)):
        return xp.ones_like(value, dtype=_float_type(value))
    return 1.0


def as_gradient(x, g):
    """The gradient with the structure, shape and dtype of the argument ``x``.

    An array argument gets an array of its own module (a CuPy array stays on the GPU);
    a Python or NumPy scalar gets a scalar of its type, on the host.
    """
    if isinstance(x, (list, tuple)):
        if not isinstance(g, (list, tuple)):
            g = [g] * len(x) if _ndim(g) == 0 else list(g)
        parts = [as_gradient(a, b) for a, b in zip(x, g, strict=True)]
        return parts if isinstance(x, list) else type(x)(parts) if type(x) is tuple else type(x)(*parts)
    if isinstance(x, dict):
        if not isinstance(g, dict):
            g = {}
        return {k: as_gradient(v, g.get(k, 0.0)) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        if type(g) is np.ndarray and g.shape == x.shape:
            return g.astype(_float_type(x))  # a copy, as below, without the broadcast
        return np.array(np.broadcast_to(g, x.shape), dtype=_float_type(x))
    if isinstance(x, np.generic):
        if not isinstance(g, (numbers.Number, np.ndarray, np.generic)):
            g = g.item()  # a CuPy value: the gradient of a host scalar is a host scalar
        return _float_type(x).type(np.real(g) if not np.iscomplexobj(x) else g)
    if isinstance(x, complex):
        return complex(g)
    if isinstance(x, numbers.Real):
        return float(g)
    xp = array_module(x)
    if xp is not np:
        return xp.array(xp.broadcast_to(xp.asarray(g), x.shape), dtype=_float_type(x))
    raise DifferentiationError(f"cannot return a gradient for an argument of type {type(x).__name__}")


# --- helpers of the NumPy derivative rules (s2sad/rules/) -------------------------------------
#
# Each takes the sensitivity ``g`` of a result and returns the sensitivity of one argument,
# with that argument's shape. They keep float32 as float32 (Python scalars are "weak" in
# NumPy 2) and avoid NaN where the true derivative is finite.


def _axes(axis, ndim):
    """``axis`` (None, an int or a sequence) as a tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, numbers.Integral):
        axis = (axis,)
    return tuple(int(a) % ndim if ndim else int(a) for a in axis)


def _zeros(x, g):
    """Zeros shaped like ``x``, of the floating dtype of ``x`` and ``g`` together."""
    xp = array_module(x, g)
    return xp.zeros(_shape(x), dtype=np.result_type(_float_type(x), _dtype(g))
                    if _ndim(g) else _float_type(x))


def expand_reduced(g, x, axis=None, keepdims=False):
    """``g``, the sensitivity of a reduction of ``x`` over ``axis``, with the reduced axes
    put back with length 1, so that it broadcasts against ``x``.

    >>> expand_reduced(np.ones(3), np.zeros((2, 3)), 0).shape
    (1, 3)
    """
    if keepdims or axis is None or _ndim(x) == 0:
        return g
    axes = _axes(axis, _ndim(x))
    if _ndim(g) != _ndim(x) - len(axes):
        return g  # a number (the 0.0 of a sensitivity nothing flowed into) broadcasts as is
    xp = array_module(g, x)
    return xp.expand_dims(_to(xp, g), axes)


def cast_like(g, x):
    """``g`` with the floating dtype of ``x`` (the adjoint of ``astype`` and ``asarray``):
    the real part of a complex ``g`` for a real ``x`` (``x.astype(complex)``).

    >>> cast_like(np.array([1.0 + 2.0j]), np.zeros(1))
    array([1.])
    """
    xp = array_module(x, g)
    if isinstance(x, (np.ndarray, np.generic, xp.ndarray)):
        if xp.iscomplexobj(g) and _float_type(x).kind != "c":
            g = xp.real(g)
        return xp.asarray(g, dtype=_float_type(x))
    return g


def _nested_ndim(obj):
    """``np.ndim(obj)`` for (nested) lists, whose items may be arrays of any module."""
    if isinstance(obj, (list, tuple)):
        return 1 + (_nested_ndim(obj[0]) if len(obj) else 0)
    return _ndim(obj)


def _nested_shape(obj) -> tuple:
    """``np.shape(obj)`` for (nested) lists, whose items may be arrays of any module."""
    if isinstance(obj, (list, tuple)):
        return (len(obj),) + (_nested_shape(obj[0]) if len(obj) else ())
    return tuple(_shape(obj))


def array_grad(g, obj):
    """Adjoint of ``np.array(obj)``: ``g`` cut back into the (nested) lists of ``obj``.

    >>> array_grad(np.array([[1.0, 2.0], [3.0, 4.0]]), [[0.0, 0.0], np.zeros(2)])
    [[np.float64(1.0), np.float64(2.0)], array([3., 4.])]
    >>> array_grad(0.0, [1.0, 2.0])
    [np.float64(0.0), np.float64(0.0)]
    """
    xp = array_module(g)
    g = xp.asarray(g)
    if isinstance(obj, (list, tuple)):
        g = xp.reshape(g, g.shape[g.ndim - _nested_ndim(obj):]) if g.ndim > _nested_ndim(obj) \
            else g  # ndmin added leading axes of length 1
        if g.ndim < _nested_ndim(obj):  # (the 0.0 nothing has flowed into yet: spread, as
            g = xp.broadcast_to(g, _nested_shape(obj))  # for the array it stands for)
        return [array_grad(g[i], item) for i, item in enumerate(obj)]
    return cast_like(xp.reshape(g, _shape(obj)), obj) if isinstance(obj, (np.ndarray, xp.ndarray)) \
        else g[()] if g.ndim == 0 else xp.reshape(g, _shape(obj))


def sum_list_grad(g, iterable):
    """Adjoint of the builtin ``sum(iterable)``: every item gets ``g``."""
    if isinstance(iterable, (list, tuple)):
        return [g] * len(iterable)
    xp = array_module(g, iterable)
    return xp.broadcast_to(_to(xp, g), _shape(iterable))


def prod_grad(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.prod``: ``g`` times the product of the *other* entries.

    Exact where ``x`` has zeros (no division):

    >>> prod_grad(1.0, np.array([2.0, 0.0, 3.0]))
    array([0., 6., 0.])
    """
    xp = array_module(g, x)
    x = xp.asarray(x)
    g = expand_reduced(g, x, axis, keepdims)
    axes = _axes(axis, x.ndim)
    if not axes:
        return g * xp.ones_like(x, dtype=_float_type(x))
    kept = [a for a in range(x.ndim) if a not in axes]
    order = kept + list(axes)
    moved = xp.transpose(x, order)
    flat = xp.reshape(moved, moved.shape[:len(kept)] + (-1,))
    ones = xp.ones_like(flat[..., :1], dtype=_float_type(x))
    before = xp.cumprod(xp.concatenate([ones, flat[..., :-1]], -1), -1)
    after = xp.flip(xp.cumprod(xp.concatenate([ones, xp.flip(flat[..., 1:], -1)], -1), -1), -1)
    others = xp.transpose(xp.reshape(before * after, moved.shape), _argsort(order))
    return g * others


def cumsum_grad(g, x, axis=None):
    """Adjoint of ``np.cumsum``: a cumulative sum from the end."""
    xp = array_module(g, x)
    g = _to(xp, g)
    if axis is None:
        return xp.reshape(xp.flip(xp.cumsum(xp.flip(xp.ravel(g)))), _shape(x))
    return xp.flip(xp.cumsum(xp.flip(g, axis), axis), axis)


def cumprod_grad(g, ans, x, axis=None):
    """Adjoint of ``np.cumprod`` (exact where ``x`` has zeros)."""
    xp = array_module(g, ans, x)
    x = xp.asarray(x)
    shape = x.shape
    g = xp.broadcast_to(_to(xp, g), _shape(ans))
    if axis is None:
        x, g, ans, axis = xp.ravel(x), xp.ravel(g), xp.ravel(ans), 0
    if xp.all(x != 0):
        out = xp.flip(xp.cumsum(xp.flip(g * ans, axis), axis), axis) / x
    else:  # d ans_j / d x_i = prod_{k <= j, k != i} x_k, for j >= i
        xm, gm = xp.moveaxis(x, axis, -1), xp.moveaxis(g, axis, -1)
        columns = []
        for i in range(xm.shape[-1]):
            others = xm.astype(xp.result_type(xm, gm), copy=True)
            others[..., i] = 1
            columns.append(xp.sum((gm * xp.cumprod(others, -1))[..., i:], -1))
        out = xp.moveaxis(xp.stack(columns, -1), -1, axis)
    return xp.reshape(out, shape)


def var_grad(g, x, axis=None, ddof=0, keepdims=False):
    """Adjoint of ``np.var(x, axis, ddof=ddof)``: ``2 (x - mean) / (n - ddof)``."""
    xp = array_module(g, x)
    x = xp.asarray(x)
    g = expand_reduced(g, x, axis, keepdims)
    centered = x - xp.mean(x, axis=axis, keepdims=True)
    return g * (2.0 / (reduced_size(x, axis) - ddof)) * centered


def std_grad(g, ans, x, axis=None, ddof=0, keepdims=False):
    """Adjoint of ``np.std``: the variance's over ``2 std``; 0 where the std is 0."""
    xp = array_module(g, ans, x)
    ans = expand_reduced(ans, x, axis, keepdims)
    g = expand_reduced(g, x, axis, keepdims)
    scale = xp.where(ans == 0, 0.0, g / (2.0 * xp.where(ans == 0, 1.0, ans)))
    return var_grad(scale, x, axis, ddof, keepdims=True)


def average_grad(g, a, axis=None, weights=None, keepdims=False, argnum=0):
    """Adjoint of ``np.average`` with respect to ``a`` (0) or ``weights`` (1)."""
    xp = array_module(g, a, weights)
    a = xp.asarray(a)
    g = expand_reduced(g, a, axis, keepdims)
    if weights is None:
        return xp.broadcast_to(_to(xp, g / reduced_size(a, axis)), a.shape) \
            if argnum == 0 else None
    w = xp.asarray(weights)
    if w.shape != a.shape:  # 1-d weights along the one axis
        shape = [1] * a.ndim
        shape[_axes(axis, a.ndim)[0]] = w.size
        wide = xp.reshape(w, shape)
    else:
        wide = w
    total = xp.sum(xp.broadcast_to(wide, a.shape), axis=axis, keepdims=True)
    if argnum == 0:
        return g * wide / total
    mean = xp.sum(a * wide, axis=axis, keepdims=True) / total
    return xp.reshape(unbroadcast(g * (a - mean) / total, wide), w.shape)


def nansum_grad(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.nansum``: ``g`` where ``x`` is not NaN."""
    xp = array_module(g, x)
    return xp.where(xp.isnan(x), 0.0, expand_reduced(g, x, axis, keepdims))


def nanmean_grad(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.nanmean``: ``g / count`` where ``x`` is not NaN."""
    xp = array_module(g, x)
    valid = ~xp.isnan(x)
    count = xp.sum(valid, axis=axis, keepdims=True)
    return xp.where(valid, expand_reduced(g, x, axis, keepdims) / xp.maximum(count, 1), 0.0)


def ptp_grad(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.ptp`` (max - min)."""
    xp = array_module(g, x)
    high = xp.max(x, axis=axis, keepdims=True)
    low = xp.min(x, axis=axis, keepdims=True)
    g = expand_reduced(g, x, axis, keepdims)
    up, down = x == high, x == low
    return g * (up / xp.sum(up, axis=axis, keepdims=True) -
                down / xp.sum(down, axis=axis, keepdims=True))


def _safe_divide(a, b):
    """``a / b``, and 0 where ``b`` is 0 (a norm's gradient at the origin)."""
    xp = array_module(a, b)
    return xp.where(b == 0, 0.0, a / xp.where(b == 0, 1.0, b))


def _vector_norm_grad(g, ans, x, ord, axes):
    """``g`` and ``ans`` already broadcast against ``x``; ``axes`` the reduced ones."""
    xp = array_module(g, ans, x)
    if ord is None or ord == 2:
        return g * _safe_divide(x, ans)
    if ord == 1:
        return g * xp.sign(x)
    if ord == 0:
        return xp.zeros_like(g * x)
    if ord in (np.inf, -np.inf):
        hit = xp.abs(x) == ans
        return g * xp.sign(x) * hit / xp.sum(hit, axis=axes, keepdims=True)
    p = float(ord)
    scaled = _safe_divide(xp.abs(x), ans)
    return g * xp.sign(x) * xp.where(x == 0, 0.0, scaled ** (p - 1))


def norm_grad(g, ans, x, ord=None, axis=None, keepdims=False, matrix=None):
    """Adjoint of ``np.linalg.norm`` for vector and matrix norms (0 at the origin).

    ``matrix`` False: a vector norm over all of ``axis`` (``np.linalg.vector_norm``).
    """
    xp = array_module(g, ans, x)
    x = xp.asarray(x)
    axes = _axes(axis, x.ndim)
    if matrix is None:
        matrix = ord is not None and x.ndim == 2 if axis is None else len(axes) == 2
    g = xp.asarray(g)
    ans = xp.asarray(ans)
    if not keepdims and axis is not None:
        g, ans = xp.expand_dims(g, axes), xp.expand_dims(ans, axes)
    elif not keepdims:
        g, ans = xp.reshape(g, (1,) * x.ndim), xp.reshape(ans, (1,) * x.ndim)
    if not matrix or ord in (None, "fro"):
        return _vector_norm_grad(g, ans, x, None if ord == "fro" else ord, axes)
    row, col = axes
    if ord in ("nuc", 2, -2):
        moved = xp.moveaxis(x, (row, col), (-2, -1))
        u, s, vh = xp.linalg.svd(moved, full_matrices=False)
        if ord == "nuc":
            inner = u @ vh
        else:
            k = 0 if ord == 2 else -1
            inner = u[..., :, k:k + 1 if k == 0 else None] @ vh[..., k:k + 1 if k == 0 else None, :]
        return g * xp.moveaxis(inner, (-2, -1), (row, col))
    if ord in (1, -1, np.inf, -np.inf):
        summed = col if ord in (np.inf, -np.inf) else row  # sum |x| over this axis
        sums = xp.sum(xp.abs(x), axis=summed, keepdims=True)
        hit = sums == ans
        return g * xp.sign(x) * hit / xp.sum(hit, axis=axes, keepdims=True)
    raise NoDerivativeError(f"s2sad has no gradient for np.linalg.norm with ord={ord!r}",
                            hint="Write the norm out with functions s2sad knows.")


def diagonal_grad(g, x, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.diagonal``: ``g`` placed on that diagonal of zeros."""
    xp = array_module(g, x)
    out = _zeros(x, g)
    view = xp.moveaxis(out, (axis1, axis2), (-2, -1))
    i = xp.arange(_shape(g)[-1] if _ndim(g) else 1)
    view[..., i + max(-offset, 0), i + max(offset, 0)] = g
    return out


def trace_grad(g, x, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.trace``: ``g`` on the diagonal."""
    xp = array_module(g, x)
    k = xp.diagonal(x, offset, axis1, axis2).shape[-1]
    return diagonal_grad(xp.expand_dims(_to(xp, g), -1) * xp.ones(k, dtype=_float_type(x)), x,
                         offset, axis1, axis2)


def diag_grad(g, v, k=0):
    """Adjoint of ``np.diag``: the diagonal of ``g`` (1-d ``v``) or ``g`` placed on it (2-d)."""
    if _ndim(v) == 1:
        return array_module(g).diagonal(g, k)
    return diagonal_grad(g, v, k)


def inner_grad(g, a, b, argnum):
    """Adjoint of ``np.inner(a, b)`` (contracting the last axes)."""
    this, other = (a, b) if argnum == 0 else (b, a)
    if _ndim(a) == 0 or _ndim(b) == 0:
        return unbroadcast(g * other, this)
    xp = array_module(g, a, b)
    n_a = _ndim(a) - 1
    g = xp.asarray(g)
    if argnum == 0:
        return xp.tensordot(g, b, axes=(list(range(n_a, g.ndim)), list(range(_ndim(b) - 1))))
    return xp.tensordot(g, a, axes=(list(range(n_a)), list(range(n_a))))


def kron_grad(g, a, b, argnum):
    """Adjoint of ``np.kron(a, b)`` with respect to ``a`` (0) or ``b`` (1)."""
    xp = array_module(g, a, b)
    a, b = xp.asarray(a), xp.asarray(b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    pairs = xp.reshape(g, [n for pair in zip(sa, sb) for n in pair])  # (a0, b0, a1, b1, ...)
    if argnum == 0:
        out = xp.tensordot(pairs, xp.reshape(b, sb), axes=(list(range(1, 2 * nd, 2)),
                                                           list(range(nd))))
        return xp.reshape(out, a.shape)
    out = xp.tensordot(xp.reshape(a, sa), pairs, axes=(list(range(nd)), list(range(0, 2 * nd, 2))))
    return xp.reshape(out, b.shape)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_labels(subscripts, shapes):
    """Each operand's labels and the output's, with ``...`` spelled out as letters."""
    if not isinstance(subscripts, str):
        raise NoDerivativeError("s2sad differentiates np.einsum with a subscripts string "
                                "('ij,jk->ik'), not the interleaved operand/list form",
                                hint="Write the subscripts as one string.")
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    inputs = inputs.split(",")
    if len(inputs) != len(shapes):
        raise ValueError(f"einsum subscripts {subscripts!r} name {len(inputs)} operands, "
                         f"but {len(shapes)} were given")
    free = [c for c in _LETTERS if c not in text]
    n_ell = max([len(s) - len(i) + 3 for i, s in zip(inputs, shapes) if "..." in i], default=0)
    ell = "".join(free[:n_ell])
    labels = []
    for i, shape in zip(inputs, shapes):
        if "..." in i:
            k = len(shape) - len(i) + 3
            i = i.replace("...", ell[n_ell - k:])
        labels.append(i)
    if not arrow:
        letters = [c for i in inputs for c in i if c != "."]
        output = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    else:
        output = output.replace("...", ell)
    return labels, output, free[n_ell:]


def einsum_grad(g, subscripts, operands, argnum):
    """Adjoint of ``np.einsum(subscripts, *operands)`` with respect to operand ``argnum``.

    Handles implicit output, ``...`` with broadcasting, repeated labels (diagonals)
    and labels summed within one operand only.

    >>> a, b = np.arange(6.0).reshape(2, 3), np.ones((3, 2))
    >>> einsum_grad(np.ones((2, 2)), "ij,jk", (a, b), 0)
    array([[2., 2., 2.],
           [2., 2., 2.]])
    >>> einsum_grad(1.0, "ii", (np.eye(2),), 0)
    array([[1., 0.],
           [0., 1.]])
    """
    xp = array_module(g, *operands)
    operands = [xp.asarray(o) for o in operands if o is not None]
    labels, output, free = _einsum_labels(subscripts, [o.shape for o in operands])
    sizes: dict = {}
    for lab, o in zip(labels, operands):
        for c, n in zip(lab, o.shape):
            sizes[c] = n if sizes.get(c, 1) == 1 else sizes[c]  # (as they broadcast: 0 too)
    target, x = labels[argnum], operands[argnum]
    unique = "".join(dict.fromkeys(target))
    others = [(lab, o) for j, (lab, o) in enumerate(zip(labels, operands)) if j != argnum]
    seen = set(output).union(*[set(lab) for lab, _ in others])
    present = "".join(c for c in unique if c in seen)
    spec = ",".join([output] + [lab for lab, _ in others]) + "->" + present
    grad = xp.einsum(spec, _to(xp, g), *[o for _, o in others])
    # labels summed within this operand alone: the sensitivity is the same all along them
    grad = xp.broadcast_to(xp.reshape(grad, [sizes[c] if c in present else 1 for c in unique]),
                           [sizes[c] for c in unique])
    if len(unique) != len(target):  # repeated labels: put the sensitivity on the diagonal
        renamed, eyes, specs = "", [], []
        for c in target:
            if c in renamed:
                new = free.pop(0)
                eyes.append(xp.eye(sizes[c], dtype=grad.dtype))
                specs.append(c + new)
                c = new
            renamed += c
        grad = xp.einsum(",".join([unique] + specs) + "->" + renamed, grad, *eyes)
    # operands broadcast along a length-1 axis: sum over it
    axes = tuple(k for k, n in enumerate(x.shape) if n == 1 and grad.shape[k] != 1)
    if axes:
        grad = xp.sum(grad, axis=axes, keepdims=True)
    return grad


def solve_grad(g, ans, a, b, argnum):
    """Adjoint of ``np.linalg.solve(a, b)`` with respect to ``a`` (0) or ``b`` (1)."""
    xp = array_module(g, ans, a, b)
    a, ans = xp.asarray(a), xp.asarray(ans)
    g = _full(xp, g, _shape(ans))
    a_t = xp.swapaxes(a, -1, -2)
    if _ndim(b) == 1:  # one right-hand side vector, shared by the stack of matrices
        gb = xp.linalg.solve(a_t, xp.asarray(g)[..., None])[..., 0]
        if argnum == 1:
            return unbroadcast(gb, b)
        return unbroadcast(-gb[..., :, None] * ans[..., None, :], a)
    gb = xp.linalg.solve(a_t, g)
    if argnum == 1:
        return unbroadcast(gb, b)
    return unbroadcast(-gb @ xp.swapaxes(ans, -1, -2), a)


def _products_but_one(xp, s):
    """``c[..., i]``: the product of ``s[..., j]`` over ``j != i``, without dividing (a zero
    in ``s`` is no special case)."""
    ones = xp.ones_like(s[..., :1])
    left = xp.cumprod(xp.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    right = xp.flip(xp.cumprod(xp.concatenate([ones, xp.flip(s[..., 1:], axis=-1)], axis=-1),
                               axis=-1), axis=-1)
    return left * right


def _cofactor_frame(a):
    """``(xp, u, vh, sign, s)``: ``a = u diag(s) vh`` and ``sign = det(u) det(vh)``, the
    frame the cofactors of ``a`` are diagonal in."""
    xp = array_module(a)
    a = xp.asarray(a)
    u, s, vh = xp.linalg.svd(a)
    sign = xp.linalg.det(u) * xp.linalg.det(vh)
    return xp, xp.conj(u), xp.conj(vh), sign[..., None, None], s


def cofactors(a):
    """The matrix of cofactors of ``a`` (``det(a) inv(a).T`` where ``a`` is invertible),
    the gradient of ``np.linalg.det``: from the singular value decomposition, singular
    matrices included.

    >>> np.round(cofactors(np.array([[1.0, 2.0], [2.0, 4.0]])), 12)  # singular: det is 0
    array([[ 4., -2.],
           [-2.,  1.]])
    """
    xp, u, vh, sign, s = _cofactor_frame(a)
    return sign * (u * _products_but_one(xp, s)[..., None, :]) @ vh


def cofactors_change(a, e):
    """The change of ``cofactors(a)`` when ``a`` changes by ``e``; also its adjoint (the map
    is its own transpose). In the frame of ``a = u diag(s) vh``, with ``m = u^T e vh^T``
    and ``p[i, k]`` the product of the ``s[l]``, ``l`` neither ``i`` nor ``k``: the
    diagonal gets ``sum_k p[i, k] m[k, k]``, the rest ``-p[i, j] m[j, i]``.

    >>> a, e = np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> np.allclose(cofactors_change(a, e), [[0.0, 0.0], [-1.0, 0.0]])  # d a[0, 1]: -d a[1, 0]
    True
    """
    xp, u, vh, sign, s = _cofactor_frame(a)
    n = s.shape[-1]
    m = xp.swapaxes(u, -1, -2) @ xp.asarray(e) @ xp.swapaxes(vh, -1, -2)
    eye = xp.eye(n, dtype=bool)
    # row i: s with s[i] taken out (set to 1), then the products of all but one
    rows = xp.where(eye, xp.ones_like(s)[..., None, :], s[..., None, :])
    p = xp.where(eye, 0.0, _products_but_one(xp, rows))
    diagonal = xp.sum(p * xp.diagonal(m, 0, -2, -1)[..., None, :], axis=-1)
    change = xp.where(eye, diagonal[..., :, None] * eye, -p * xp.swapaxes(m, -1, -2))
    return sign * u @ change @ vh


def cofactors_second(a, e, t):
    """The second change of ``cofactors(a)``, along ``e`` and ``t`` (symmetric in them, and
    the gradient of ``det``'s third derivative). In the frame of ``a``, with ``q[i, k, l]``
    the product of the singular values but those three: the terms of the 3 by 3 minors.

    >>> a = np.diag([1.0, 2.0, 3.0])
    >>> e, t = np.diag([1.0, 0.0, 0.0]), np.diag([0.0, 1.0, 0.0])
    >>> round(float(cofactors_second(a, e, t)[2, 2]), 12)  # the cofactor a00 a11 - a01 a10
    1.0
    """
    xp, u, vh, sign, s = _cofactor_frame(a)
    n = s.shape[-1]
    ut, v = xp.swapaxes(u, -1, -2), xp.swapaxes(vh, -1, -2)
    m, w = ut @ xp.asarray(e) @ v, ut @ xp.asarray(t) @ v
    eye = xp.eye(n, dtype=bool)
    distinct = ~(eye[:, :, None] | eye[:, None, :] | eye[None, :, :])
    # q[i, k, l]: the products of all but one of s with s[i] and s[k] taken out (set to 1)
    out = eye[:, None, :] | eye[None, :, :]
    q = xp.where(distinct, _products_but_one(xp, xp.where(out, 1.0, s[..., None, None, :])),
                 0.0)
    md, wd = xp.diagonal(m, 0, -2, -1), xp.diagonal(w, 0, -2, -1)
    diagonal = xp.einsum("...ikl,...i,...k->...l", q, md, wd) - \
        xp.einsum("...ikl,...ik,...ki->...l", q, m, w)
    rest = xp.einsum("...jlm,...mj,...jl->...lm", q, m, w) + \
        xp.einsum("...jlm,...jl,...mj->...lm", q, m, w) - \
        xp.swapaxes(m, -1, -2) * xp.einsum("...jlm,...j->...lm", q, wd) - \
        xp.swapaxes(w, -1, -2) * xp.einsum("...jlm,...j->...lm", q, md)
    change = rest + diagonal[..., :, None] * eye
    return sign * u @ change @ vh


def cholesky_grad(g, L):
    """Adjoint of ``L = np.linalg.cholesky(a)``, symmetric (``a`` is a symmetric matrix)."""
    xp = array_module(g, L)
    g = xp.tril(g)  # L's upper triangle is constant zero
    n = _shape(L)[-1]
    inner = xp.swapaxes(L, -1, -2) @ g
    phi = xp.tril(inner) / (1.0 + xp.eye(n, dtype=inner.dtype))
    l_inv = xp.linalg.inv(L)
    s = xp.swapaxes(l_inv, -1, -2) @ phi @ l_inv
    return (s + xp.swapaxes(s, -1, -2)) / 2.0


def checked_quantiles(q):
    """``q`` itself, once NumPy's check passes (``np.quantile``'s definition in
    :mod:`s2sad.implementations` would read past the sorted values otherwise).

    >>> checked_quantiles([0.0, 0.5, 1.0])
    [0.0, 0.5, 1.0]
    >>> checked_quantiles(1.5)
    Traceback (most recent call last):
        ...
    ValueError: Quantiles must be in the range [0, 1]
    """
    xp = array_module(q)
    if not bool(xp.all((xp.asarray(q) >= 0) & (xp.asarray(q) <= 1))):  # (NaN fails too)
        raise ValueError("Quantiles must be in the range [0, 1]")
    return q


def one_axis(axis, function: str):
    """``axis`` if it is one axis (an int), for the definitions of
    :mod:`s2sad.implementations` that take one; else a ValueError that says so.

    >>> one_axis(-1, "quantile")
    -1
    >>> one_axis((0, 1), "quantile")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: s2sad writes np.quantile for one axis (an int, or None ...), not axis=(0, 1); ...
    """
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return axis
    if function.endswith(".accumulate"):  # (NumPy's own refusal)
        raise ValueError(f"accumulate does not allow multiple axes (axis={axis!r})")
    if function != "sliding_window_view":  # (named without the module: "np." is "cp." on
        function = "np." + function        # a GPU, in the generated code)
    raise ValueError(f"s2sad writes {function} for one axis (an int, or None for the "
                     f"flattened array), not axis={axis!r}; to take several, np.reshape "
                     "them into one first")


def window_count(x, window_shape, axis):
    """How many windows of ``window_shape`` values ``sliding_window_view`` makes along
    ``axis`` of ``x`` (NumPy's checks; s2sad's definition takes one window length and one
    axis, or none for a 1-d array).

    >>> window_count(np.zeros(6), 4, None), window_count(np.zeros((2, 5)), 2, 1)
    (3, 4)
    >>> window_count(np.zeros(3), 4, None)
    Traceback (most recent call last):
        ...
    ValueError: window shape cannot be larger than input array shape
    """
    shape = _shape(x)
    if not isinstance(window_shape, (int, np.integer)) or isinstance(window_shape, bool):
        raise ValueError("s2sad writes sliding_window_view for one axis: give window_shape "
                         f"as an int (not {window_shape!r}) and the axis as an int")
    if axis is None and len(shape) != 1:
        raise ValueError("Since axis is `None`, must provide window_shape for all dimensions "
                         f"of `x`; got 1 window_shape elements and `x.ndim` is {len(shape)}.")
    along = -1 if axis is None else one_axis(axis, "sliding_window_view")
    if window_shape < 0:
        raise ValueError("`window_shape` cannot contain negative values")
    if window_shape > shape[along]:
        raise ValueError("window shape cannot be larger than input array shape")
    return shape[along] - window_shape + 1


def running_extremum(a, axis=0, largest=True):
    """For each position along ``axis``, the position of the running maximum (``largest``)
    or minimum of ``a`` up to there: the latest that reaches it (a NaN, from where one is,
    as ``np.maximum.accumulate`` carries NaN on). ``np.take_along_axis(a, ...)`` with
    it is the running extremum, and its gradient goes to those positions.

    >>> running_extremum(np.array([1.0, 3.0, 2.0, 3.0, 5.0, np.nan, 7.0]))
    array([0, 1, 1, 3, 4, 5, 5])
    >>> running_extremum(np.array([[2.0, 1.0], [1.0, 2.0]]), 1, False)
    array([[0, 1],
           [0, 0]])
    """
    xp = array_module(a)
    a = xp.moveaxis(a, axis, -1)
    extremum = xp.maximum if largest else xp.minimum
    reached = (a == _accumulate(extremum, a)) | xp.isnan(a)
    where = xp.where(reached, xp.arange(a.shape[-1]), 0)
    return xp.moveaxis(_accumulate(xp.maximum, where), -1, axis)


def _accumulate(ufunc, a):
    """``ufunc.accumulate(a, axis=-1)``. CuPy's ufuncs accumulate only for some: there,
    in log2(n) steps of ``ufunc`` on shifted copies (the same numbers, for a maximum):

    >>> a = np.array([[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0], [2.0, 7.0, 1.0, 8.0, 2.0, 8.0, 1.0]])
    >>> bool(np.array_equal(_scan(np.maximum, a, np), np.maximum.accumulate(a, axis=-1)))
    True
    """
    xp = array_module(a)
    return ufunc.accumulate(a, axis=-1) if xp is np else _scan(ufunc, a, xp)


def _scan(ufunc, a, xp):
    shift = 1
    while shift < a.shape[-1]:
        a = xp.concatenate([a[..., :shift], ufunc(a[..., shift:], a[..., :-shift])], axis=-1)
        shift *= 2
    return a


def check_real_power(x, y, varying: bool = False) -> None:
    """Refuse ``x ** y`` where Python makes it a complex number: a negative Python number
    to a power that is not a whole number (NumPy's numbers give NaN there instead), or
    to a ``varying`` (differentiated) power, complex next to each whole number.

    >>> check_real_power(-8.0, 2.0), check_real_power(np.float64(-8.0), 0.5)
    (None, None)
    >>> check_real_power(-8.0, 0.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    s2sad.errors.DifferentiationError: s2sad cannot differentiate (-8.0) ** 0.5: Python ...
    """
    if type(x) in (int, float) and type(y) in (int, float) and x < 0 and \
            (varying or not float(y).is_integer()):
        why = "Python makes a negative number to a power that is not a whole number a " \
            "complex number" if not float(y).is_integer() else "a negative number to a " \
            "power is complex next to each whole number, so it has no real derivative there"
        raise DifferentiationError(
            f"s2sad cannot differentiate ({x!r}) ** {y!r}: {why}, and s2sad differentiates "
            "real numbers only",
            hint="Keep the base non-negative (`max(b, 0.0) ** 0.5`, or take `abs`), or "
                 "compute on NumPy values (`np.sqrt(b)`, `np.float64(b) ** 0.5`), which give "
                 "NaN there.")


def check_number(value, construct: str, hint: str) -> None:
    """Refuse, at run time, an in-place update s2sad wrote as a new value (``v /= c`` as
    ``v = v / c``) where ``value`` is not a number: ``/=`` changes an array (or a list) in
    place, under another name that reads it; a number it only rebinds.

    >>> check_number(np.float64(2.0), "`v /= ...`", "Write `v = v / ...`.")
    >>> check_number(np.ones(2), "`v /= ...`", "Write `v = v / ...`.")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    s2sad.errors.UnsupportedSyntaxError: s2sad does not support `v /= ...`: here an array, ...
    """
    if type(value) in (float, int, complex, bool) or isinstance(value, np.generic):
        return
    what = "an array" if hasattr(value, "shape") else f"a {type(value).__name__}"
    raise UnsupportedSyntaxError(f"{construct}: here {what}, which the update changes in "
                                 "place", hint=hint)


def scaled_power(c, x, e):
    """``c * x ** e``, and 0 where ``c`` is 0, whatever ``x ** e`` is there: the slope of
    ``x ** y`` is ``scaled_power(y, x, y - 1)``. Where the exponent is 0 the power is the
    constant 1, whose slope is 0 even at ``x = 0``, where ``0 * 0.0 ** -1`` would be NaN
    (an array) or a ZeroDivisionError (a Python float): ``c * x ** (y - 1)`` alone gives
    a polynomial ``np.sum(a * x ** np.arange(n))`` a NaN gradient at ``x = 0``. Where
    ``c`` is not 0 it is the power as written, infinite where the slope is (``x ** 0.5``
    at 0; no warning there, as for :func:`quotient`).

    >>> scaled_power(np.array([0.0, 1.0, 2.0, 0.5]), 0.0, np.array([-1.0, 0.0, 1.0, -0.5]))
    array([ 0.,  1.,  0., inf])
    >>> scaled_power(0, 0.0, -1), scaled_power(3, 2.0, 2), scaled_power(0.5, 0.0, -0.5)
    (0.0, 12.0, inf)

    Its own slopes are of the same form (``scaled_power(c * e, x, e - 1)`` in ``x``), so
    every order of ``x ** y`` stays finite where the exponent is a whole number.
    """
    if type(c) in (int, float, bool):  # a number: a zero is known here
        if not c:
            return c * x ** 0
        try:
            return c * x ** e
        except ZeroDivisionError:  # (0.0 ** -1: infinite, as an array's; a term a higher
            with np.errstate(divide="ignore"):  # order then multiplies by 0 is no error)
                return c * float(np.float64(x) ** e)
    xp = array_module(c, x, e)
    with np.errstate(divide="ignore"):
        return c * x ** xp.where(c == 0, 0, e)


def quotient(a, b):
    """``a / b``, and 0 where ``a`` is 0 (whatever ``b`` is there): the eigen- and singular
    value rules divide by gaps between eigenvalues, which are 0 where one repeats, and by
    singular values, 0 for a matrix short of full rank. Where the numerator is 0 (a
    gradient that does not reach the eigenvectors) the term is 0; where it is not, the
    derivative does not exist and the result is infinite, as JAX's NaN says too (never
    a finite wrong number).

    >>> quotient(np.array([1.0, 0.0, 2.0]), np.array([2.0, 0.0, 0.0]))
    array([0.5, 0. , inf])

    (No warning: an infinity that reaches a result shows there, and one that does not, a
    tangent of eigenvectors that the function does not read, is no error.)
    """
    xp = array_module(a, b)
    zero = a == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.where(zero, 0.0, a / xp.where(zero, 1.0, b))


def gap_quotient(m, w):
    """``m[..., i, j] / (w[..., j] - w[..., i])`` off the diagonal, 0 on it: the turn of
    the eigenvectors (singular vectors, with ``w`` their squared singular values) that a
    change ``m`` in their basis makes (:func:`quotient`: 0 where ``m`` is 0, infinite where
    an eigenvalue repeats and ``m`` is not 0 there).

    >>> gap_quotient(np.ones((3, 3)), np.array([1.0, 2.0, 4.0]))
    array([[ 0.        ,  1.        ,  0.33333333],
           [-1.        ,  0.        ,  0.5       ],
           [-0.33333333, -0.5       ,  0.        ]])
    """
    xp = array_module(m, w)
    n = _shape(w)[-1]
    gaps = xp.expand_dims(w, -2) - xp.expand_dims(w, -1)
    # eigenvalues repeated in exact arithmetic come out of LAPACK a few roundings apart
    roundoff = 4 * n * xp.finfo(xp.result_type(w, 1.0)).eps * \
        xp.max(xp.abs(w), axis=-1, keepdims=True)[..., None]
    gaps = xp.where(xp.abs(gaps) <= roundoff, 0.0, gaps)
    return quotient(m * (1.0 - xp.eye(n)), gaps)


def svd_kept(g, ans, full_matrices=True):
    """How many singular vectors the rules of ``np.linalg.svd`` differentiate:
    ``min(m, n)``. With ``full_matrices`` the factors have more columns than that (an
    arbitrary completion to an orthonormal basis, not a function of the matrix): a
    gradient through them is refused, not made up.

    >>> u, s, vh = np.linalg.svd(np.ones((3, 2)))
    >>> svd_kept([0.0, np.ones(2), 0.0], (u, s, vh))
    2
    >>> svd_kept([np.ones((3, 3)), 0.0, 0.0], (u, s, vh))
    Traceback (most recent call last):
        ...
    s2sad.errors.DifferentiationError: the gradient reaches the columns of u beyond the \
first min(m, n) = 2 that np.linalg.svd(a, full_matrices=True) returns: they are an \
arbitrary completion of the basis, without a derivative
    Call np.linalg.svd(a, full_matrices=False), and use only u[..., :k] and vh[..., :k, :] \
with k = min(m, n).
    """
    k = _shape(ans[1])[-1]
    if full_matrices:
        for name, part, axis in (("u", g[0], -1), ("vh", g[2], -2)):
            if _ndim(part) and _shape(part)[axis] > k and \
                    bool((array_module(part).moveaxis(part, axis, 0)[k:] != 0).any()):
                raise DifferentiationError(
                    f"the gradient reaches the {'columns' if axis == -1 else 'rows'} of "
                    f"{name} beyond the first min(m, n) = {k} that "
                    "np.linalg.svd(a, full_matrices=True) returns: they are an arbitrary "
                    "completion of the basis, without a derivative",
                    hint="Call np.linalg.svd(a, full_matrices=False), and use only "
                         "u[..., :k] and vh[..., :k, :] with k = min(m, n).")
    return k


def svd_completed(d, like, fill):
    """``d`` (the derivative of the first ``min(m, n)`` singular vectors) made as wide as
    ``like`` (a factor of ``np.linalg.svd(a, full_matrices=True)``), ``fill`` in the
    columns (of ``u``) or rows (of ``vh``) beyond: NaN in a tangent, as those vectors, an
    arbitrary completion of the basis, have no derivative. :func:`svd_cut` is its adjoint.

    >>> svd_completed(np.ones((3, 2)), np.zeros((3, 3)), np.nan)
    array([[ 1.,  1., nan],
           [ 1.,  1., nan],
           [ 1.,  1., nan]])
    """
    shape, wanted = _shape(d), _shape(like)
    if tuple(shape[-2:]) == tuple(wanted[-2:]):
        return d
    xp = array_module(d)
    widths = [(0, 0)] * (len(shape) - 2) + [(0, wanted[-2] - shape[-2]),
                                            (0, wanted[-1] - shape[-1])]
    return xp.pad(d, widths, constant_values=fill)


def svd_cut(g, d):
    """``g`` cut to the shape of ``d`` in its last two axes (the adjoint of
    :func:`svd_completed`)."""
    rows, cols = _shape(d)[-2:]
    return g[..., :rows, :cols]


def _spread_over(xp, g, arrays):
    """The number ``g`` as the sensitivity of each of ``arrays`` (an array: of its rows)."""
    if isinstance(arrays, xp.ndarray):
        return xp.broadcast_to(_to(xp, g), arrays.shape)
    return [g] * len(arrays)


def _sequence_like(parts, arrays):
    """The sensitivities of a sequence's items, as a list (an array if it was one)."""
    xp = array_module(arrays)
    if isinstance(arrays, xp.ndarray):
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


def split_grad(g, ans, axis=0):
    """Adjoint of ``np.split`` and friends: the pieces' sensitivities joined again."""
    xp = array_module(*g, *ans)
    parts = [xp.broadcast_to(_to(xp, p), _shape(a)) for p, a in zip(g, ans, strict=True)]
    return xp.concatenate(parts, axis=axis)


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
    xp.add.at(out, _to(xp, index), xp.moveaxis(g, axis, 0))
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
    xp.add.at(out, _to(xp, np.ravel(index)), xp.ravel(g))
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


def take_grad(g, x, indices, axis=None, mode="raise"):
    """Adjoint of ``np.take``: repeated indices accumulate."""
    xp = array_module(g, x, indices)
    x = xp.asarray(x)
    out = _zeros(x, g)
    target = xp.reshape(out, -1) if axis is None else xp.moveaxis(out, axis, 0)
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
    xp.add.at(target, index, g)
    return out


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
    xp.add.at(out, tuple(index), g)
    return out


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


def clip_grad(g, a, low, high, argnum):
    """Adjoint of ``np.clip(a, low, high)`` = ``minimum(maximum(a, low), high)`` with
    respect to ``a`` (0), ``low`` (1) or ``high`` (2); at a tie the gradient goes to ``a``."""
    xp = array_module(g, a, low, high)
    raised = a if low is None else xp.maximum(a, low)
    under = True if high is None else raised <= high
    if argnum == 0:
        inside = under if low is None else under & (a >= low)
        return unbroadcast(xp.where(_to(xp, inside), g, 0.0), a)
    if argnum == 1:
        return unbroadcast(xp.where(under & (a < low), g, 0.0), low)
    return unbroadcast(xp.where(raised > high, g, 0.0), high)


def linspace_grad(g, x, num=50, endpoint=True, axis=0, end=False):
    """Adjoint of ``np.linspace(start, stop, num)`` with respect to ``start`` or ``stop``
    (``end``): each value is ``start + t (stop - start)``."""
    xp = array_module(g, x)
    t = xp.linspace(0.0, 1.0, num, endpoint=endpoint)
    weights = t if end else 1.0 - t
    g = xp.moveaxis(xp.asarray(g), axis, -1)
    return unbroadcast(g @ weights.astype(xp.result_type(g, 1.0)), x)


def vecdot_grad(g, other, x, axis=-1, keepdims=False):
    """Adjoint of ``np.vecdot(x, other)`` (or of ``other, x``) with respect to ``x``."""
    if not keepdims:
        xp = array_module(g, other, x)
        g = xp.expand_dims(_to(xp, g), axis)
    return unbroadcast(g * other, x)
