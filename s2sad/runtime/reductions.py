"""Adjoint helpers of reductions: sums, products, means, extrema, running ones.

>>> import numpy as np
>>> sum_grad(np.array([1.0, 2.0]), np.zeros((2, 3)), axis=1)
array([[1., 1., 1.],
       [2., 2., 2.]])

Each takes the sensitivity ``g`` of a reduction's result and returns that of its
argument, with the argument's shape. ``expand_reduced`` puts the reduced axes back. The
checks of quantiles and windows (``checked_quantiles``, ``one_axis``) serve the stand-in
implementations too.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..backends import array_module
from .shapes import (_argsort, _axes, _float_type, _known_shape, _ndim, _remember, _shape,
                     _spread, _to, _weak, unbroadcast)


def sum_grad(g, like, axis=None, keepdims=False):
    """Adjoint of ``np.sum(like, axis, keepdims)``: spread ``g`` back over the summed axes,
    to ``like``'s shape."""
    if type(g) is np.ndarray and type(like) is np.ndarray and type(axis) is int and \
            not keepdims:  # (the common case first: the axis put back by a reshape)
        key = g.shape, like.ndim, axis
        kept = _KEPT.get(key)
        if kept is None:
            kept = _kept_shape(*key)
            _remember(_KEPT, key, kept)
        if kept is not False:
            return _spread(np, g.reshape(kept), like.shape)
    xp = array_module(g, like)
    g = _to(xp, _weak(g, like))
    shape = _shape(like)
    if axis is not None and not keepdims:
        axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
        if _ndim(g) == len(shape) - len(axes):  # (a number, as the 0.0 of a sensitivity
            g = xp.expand_dims(g, tuple(a % len(shape) for a in axes))  # nothing flowed
    return _spread(xp, g, shape)  # into, broadcasts as it is)


_KEPT: dict = {}  # (shape of g, rank of like, axis) -> g's shape with the axis put back


def _kept_shape(shape: tuple, ndim: int, axis: int):
    """``shape`` with a 1 put back at ``axis`` of ``ndim`` axes (what ``np.expand_dims``
    gives), or False where ``shape`` is not of ``ndim - 1`` axes or ``axis`` is out of
    range (the general path then says what NumPy says).

    >>> _kept_shape((4,), 2, 1), _kept_shape((4, 5), 3, -1), _kept_shape((), 2, 0)
    ((4, 1), (4, 5, 1), False)
    """
    if len(shape) != ndim - 1 or not -ndim <= axis < ndim:
        return False
    axis %= ndim
    return shape[:axis] + (1,) + shape[axis:]


def reduced_size(x, axis=None):
    """How many elements of ``x`` each result of a reduction over ``axis`` combines."""
    shape = _known_shape(x)
    if axis is None:
        return int(np.prod(shape))
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    return int(np.prod([shape[a] for a in axes]))


def extremum_grad(g, ans, x, axis=None, keepdims=False):
    """Adjoint of max/min: ``g`` goes to the extremal entries, shared equally by ties.
    A 0-d ``x`` is its own extremum along any axis NumPy takes for it (0, -1, ``(0,)``).

    >>> extremum_grad(2.0, np.float64(0.5), np.array(0.5), axis=0)
    np.float64(2.0)
    """
    xp = array_module(g, ans, x)
    if _ndim(x) == 0:
        axis = None
    if axis is not None and not keepdims:
        axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
        axes = tuple(a % _ndim(x) for a in axes)
        g = xp.expand_dims(_to(xp, g), axes)
        ans = xp.expand_dims(_to(xp, ans), axes)
    mask = xp.asarray(x == ans)
    ties = mask.sum(axis=axis, keepdims=True, dtype=xp.result_type(g, 1.0))  # (no int cast)
    return mask * (g / ties)  # (one division per extremum)


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
    """Adjoint of ``np.cumsum``: a cumulative sum from the end. A 0-d ``x`` is read as
    NumPy reads it, as one entry whatever ``axis`` (its cumsum has shape ``(1,)``)."""
    xp = array_module(g, x)
    g = _to(xp, g)
    if axis is None or _ndim(x) == 0:
        return xp.reshape(xp.flip(xp.cumsum(xp.flip(xp.ravel(g)))), _shape(x))
    return xp.flip(xp.cumsum(xp.flip(g, axis), axis), axis)


def cumprod_grad(g, ans, x, axis=None):
    """Adjoint of ``np.cumprod`` (exact where ``x`` has zeros; a 0-d ``x`` as one entry)."""
    xp = array_module(g, ans, x)
    x = xp.asarray(x)
    shape = x.shape
    g = xp.broadcast_to(_to(xp, g), _shape(ans))
    if axis is None or x.ndim == 0:
        x, g, ans, axis = xp.ravel(x), xp.ravel(g), xp.ravel(ans), 0
    if xp.all(x != 0):
        out = xp.flip(xp.cumsum(xp.flip(g * ans, axis), axis), axis) / x
    else:  # d ans_j / d x_i = prod_{k <= j, k != i} x_k, for j >= i
        xm, gm = xp.moveaxis(x, axis, -1), xp.moveaxis(g, axis, -1)
        columns = []
        for i in range(xm.shape[-1]):
            others = xm.astype(xp.result_type(xm, gm), copy=True)
            others = others.copy() if others is xm else others  # (Dask's astype: itself)
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


def _cross_lengths() -> tuple:
    """The vector lengths the installed ``np.cross`` takes: 2 and 3 (NumPy < 2.5, where 2
    warns), or 3 alone."""
    import warnings
    taken = []
    for n in (2, 3):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # (NumPy 2's, for 2)
                np.cross(np.zeros(n), np.zeros(3))
        except ValueError:
            continue
        taken.append(n)
    return tuple(taken)


_CROSS_LENGTHS = _cross_lengths()


def checked_cross_vector(a):
    """``a`` itself, once the installed ``np.cross`` takes vectors of its last axis's
    length (3; 2 too before NumPy 2.5): ``np.cross``'s definition in
    :mod:`s2sad.implementations` would compute a result where NumPy raises.

    >>> checked_cross_vector(np.ones(3))
    array([1., 1., 1.])
    >>> checked_cross_vector(np.ones(4))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: incompatible dimensions for cross product (dimension must be ...3, not 4)
    """
    n = np.shape(a)[-1] if np.ndim(a) else 0
    if n not in _CROSS_LENGTHS:
        raise ValueError("incompatible dimensions for cross product (dimension must be "
                         f"{' or '.join(map(str, _CROSS_LENGTHS))}, not {n})")
    return a


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


def quantile_dtype(a, q):
    """The dtype of ``np.quantile(a, q)``: ``a``'s float type, widened by ``q`` where ``q``
    is an array or NumPy's number (a Python float is not: NumPy's rule); complex values
    raise NumPy's TypeError.

    >>> quantile_dtype(np.ones(2, np.float32), 0.5), quantile_dtype(np.ones(2, np.float32), [0.5])
    (dtype('float32'), dtype('float64'))
    """
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    weak = isinstance(q, (int, float)) and not isinstance(q, np.generic)
    q_type = 0.0 if weak else getattr(q, "dtype", None) or np.asarray(q).dtype
    return np.result_type(a.dtype, q_type, 0.0)


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
    if not -len(shape) <= along < len(shape):  # (NumPy's AxisError)
        raise np.exceptions.AxisError(f"axis {along} is out of bounds for array of "
                                      f"dimension {len(shape)}")
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


def max_item(items):
    """Python's ``max(items)`` of one iterable: the first of its largest items.

    >>> max_item(np.array([0.3, 0.7, 0.7]))
    np.float64(0.7)
    """
    return max(items)


def min_item(items):
    """Python's ``min(items)`` of one iterable: the first of its smallest items."""
    return min(items)


def _chosen_item(items, largest: bool) -> int:
    """The position of the item ``max(items)`` (``largest``) or ``min(items)`` returns:
    each item replaces the one kept only where it compares larger (smaller), as Python's
    loop does, so the first of equal items (and the first item, beside a NaN) is kept."""
    best = kept = None
    for i, item in enumerate(items):
        if best is None or (item > kept if largest else item < kept):
            best, kept = i, item
    if best is None:
        raise ValueError(f"{'max' if largest else 'min'}() iterable argument is empty")
    return best


def item_extremum_grad(g, items, largest: bool):
    """Adjoint of ``max(items)`` or ``min(items)`` (one iterable): ``g`` at the item it
    returns, zeros elsewhere, shaped like ``items`` (a list for a list).

    >>> item_extremum_grad(2.0, np.array([0.3, 0.7, 0.7]), True)
    array([0., 2., 0.])
    >>> item_extremum_grad(2.0, [0.3, 0.1, 0.1], False)
    [0.0, 2.0, 0.0]
    """
    i = _chosen_item(items, largest)
    if isinstance(items, (list, tuple)):
        return type(items)(g if k == i else 0.0 for k in range(len(items)))
    xp = array_module(g, items)
    out = xp.zeros(_shape(items), dtype=np.result_type(_float_type(items), xp.asarray(g).dtype))
    out[i] = g
    return out


def item_extremum_tangent(g, items, largest: bool):
    """Tangent of ``max(items)`` or ``min(items)`` (one iterable): the item of the change
    ``g`` at the item it returns.

    >>> item_extremum_tangent(np.array([1.0, 2.0, 3.0]), np.array([0.3, 0.7, 0.7]), True)
    np.float64(2.0)
    """
    return g[_chosen_item(items, largest)]
