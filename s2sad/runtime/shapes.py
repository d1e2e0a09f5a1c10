"""Shapes and broadcasting: the basics every runtime helper builds on.

>>> import numpy as np
>>> unbroadcast(np.ones((3, 4)), np.zeros((3, 1)))
array([[4.],
       [4.],
       [4.]])
>>> broadcast_shape(np.zeros((3, 1)), np.zeros(4))
Shape((3, 4))

``unbroadcast`` sums a sensitivity down to the shape of the value it is for. Its plans
of sums are remembered per pair of shapes. ``shape_of``, ``broadcast_shape`` and
``matmul_shape`` give shapes the optimizer kept instead of arrays. The private basics
(``_shape``, ``_ndim``, ``_to``, ``_float_type``...) read an array's facts the same way
on NumPy and CuPy.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..backends import DeviceShape, Shape, array_module, shape_type
from ..errors import DifferentiationError


def _shape(x):
    """``np.shape(x)``, read off the array itself where there is one (NumPy's or CuPy's)."""
    shape = getattr(x, "shape", None)
    return np.shape(x) if shape is None else shape


def _known_shape(x):
    """:func:`_shape`, where the gradient needs the sizes themselves (to count or scatter):
    a Dask array's that holds NaN, the items a mask picks, is refused
    (:func:`_unknown_sizes`)."""
    shape = _shape(x)
    if type(x) is not np.ndarray:
        _refuse_unknown(shape)
    return shape


def _refuse_unknown(shape) -> None:
    """Raise :func:`_unknown_sizes` where ``shape`` holds NaN."""
    if any(n != n for n in shape):
        raise _unknown_sizes(tuple(shape))


def _unknown_sizes(shape: tuple) -> DifferentiationError:
    """The refusal of a value whose shape holds NaN: on Dask, the items a mask or
    ``np.nonzero`` picks, whose number is known only when computed. The gradient reads
    shapes to spread and scatter sensitivities; it is raised where one is read, and the
    call names the user's line of the statement.

    >>> print(_unknown_sizes((float("nan"), 3)).message[:56])
    a value whose sizes Dask does not know (shape (nan, 3))
    """
    shown = "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"
    return DifferentiationError(
        f"a value whose sizes Dask does not know (shape {shown}) reaches the gradient, which "
        "reads its shape: the items a mask or np.nonzero picks from a Dask array are "
        "counted only when computed",
        hint="Weight the items instead of picking them (np.sum(np.where(x > 0.5, x ** 2, "
             "0.0)) for np.sum(x[x > 0.5] ** 2)), or compute the index first and pass it in "
             "(idx = np.flatnonzero(mask.compute())), or make the gradient with "
             "target='numpy'.")


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


def _weak(g, like):
    """``g`` as NumPy's arithmetic takes it beside ``like``: a Python number takes the
    precision of ``like``'s floating dtype (``np.ones_like(x) * 1.0`` is float32 for a
    float32 ``x``); anything else is returned unchanged.

    >>> _weak(1.0, np.zeros(2, np.float32)).dtype, _weak(1.0, np.zeros(2)), _weak(2, 3)
    (dtype('float32'), 1.0, 2)
    """
    if type(g) is float or type(g) is int:
        dtype = getattr(like, "dtype", None)
        if dtype is not None and dtype.kind in "fc":
            real = np.finfo(dtype).dtype  # (a complex value's sensitivity spreads real)
            if real != np.float64:
                return real.type(g)
    return g


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
        if not value.flags.c_contiguous:
            return np.broadcast_to(g, shape)
        key = value.shape, value.strides, shape
        strides = _STRIDES.get(key)
        if strides is None:
            _refuse_unknown(shape)
            strides = _spread_strides(*key)
            _remember(_STRIDES, key, strides)
        if strides is False:  # (not broadcastable: NumPy's own error)
            return np.broadcast_to(g, shape)
        view = np.ndarray(shape, value.dtype, value, 0, strides)
        view.flags.writeable = False
        return view
    _refuse_unknown(shape)
    return xp.broadcast_to(g, shape)


_STRIDES: dict = {}  # (shape and strides of a C-contiguous array, shape) -> _spread's strides


def _spread_strides(shape: tuple, strides: tuple, target: tuple):
    """The strides of a C-contiguous array's view spread to ``target`` (0 along the axes
    it is spread over), or False where it does not broadcast to ``target``.

    >>> _spread_strides((2, 1), (8, 8), (3, 2, 4)), _spread_strides((2,), (8,), (3,))
    ((0, 8, 0), False)
    """
    extra = len(target) - len(shape)
    if extra < 0:
        return False
    spread = (0,) * extra + tuple(step if n == m else 0 if n == 1 else None
                                  for n, m, step in zip(shape, target[extra:], strides))
    return False if None in spread else spread


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
    if type(a) is np.ndarray and type(b) is np.ndarray:  # (the common case: no lookups)
        key = "@", a.shape, b.shape, np
        shape = _BROADCASTS.get(key)
        if shape is not None:
            return shape
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
    return Shape if xp is np else shape_type(xp)


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
    product = a * b
    if type(product) is np.ndarray:  # (the method: np.sum's own reduction, called directly)
        return product.sum(axis=axis, keepdims=keepdims)
    return array_module(a, b).sum(product, axis=axis, keepdims=keepdims)


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
        key = a.shape, b.shape, _shape(like)
        plan = _FACTORED.get(key)
        if plan is None:
            plan = _factored_plan(*key)
            _remember(_FACTORED, key, plan)
        if plan:  # a factor that is the same along every summed axis comes out of the
            # sum: q * sum(x), not sum(q * x)
            factor, other = (a, b) if plan[0] == 0 else (b, a)
            return unbroadcast(factor * unbroadcast(other, plan[1]), like)
    return unbroadcast(a * b, like)


_FACTORED: dict = {}  # (shapes of a, b and like) -> unbroadcast_product's plan


def _factored_plan(a: tuple, b: tuple, like: tuple):
    """Which factor of ``a * b`` (0 or 1) is the same along every axis that unbroadcast
    sums down to ``like``, and the Shape the other is summed to first (keeping those axes);
    () where neither is (or the product does not broadcast: ``a * b`` then says so).

    >>> _factored_plan((4, 1, 3), (4, 20, 3), (4, 1, 3))
    (0, Shape((4, 1, 3)))
    >>> _factored_plan((4, 20, 3), (4, 20, 3), (4, 1, 3)), _factored_plan((2,), (3,), ())
    ((), ())
    """
    try:
        summed = _summed_axes(np.broadcast_shapes(a, b), like)
    except ValueError:
        return ()
    if not summed:
        return ()
    for position, (factor, other) in enumerate(((a, b), (b, a))):
        if all(-i > len(factor) or factor[i] == 1 for i in summed):
            n = len(other)
            return position, Shape(tuple(1 if i - n in summed else m
                                         for i, m in enumerate(other)))
    return ()


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
        g = _spread(xp, _to(xp, _weak(g, like)), shape)
    return g


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


def _float_type(x):
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = np.result_type(x)
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def _axes(axis, ndim):
    """``axis`` (None, an int or a sequence) as a tuple of non-negative axes. A 0-d array
    has none, whatever ``axis`` (NumPy's ufunc reductions take 0 and -1 for it).

    >>> _axes(-1, 3), _axes(None, 2), _axes(0, 0), _axes((0, -1), 0)
    ((2,), (0, 1), (), ())
    """
    if axis is None or ndim == 0:
        return tuple(range(ndim))
    if isinstance(axis, numbers.Integral):
        axis = (axis,)
    return tuple(int(a) % ndim for a in axis)


def _zeros(x, g):
    """Zeros shaped like ``x``, of the floating dtype of ``x`` and ``g`` together."""
    xp = array_module(x, g)
    return xp.zeros(_shape(x), dtype=np.result_type(_float_type(x), _dtype(g))
                    if _ndim(g) else _float_type(x))
