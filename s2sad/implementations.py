"""NumPy functions without a derivative rule, written with functions that have one.

Also the methods of ufuncs: ``np.add.reduce(x)`` is ``np.sum(x, axis=0)``,
``np.maximum.accumulate(x)`` takes the running maximum's positions
(:func:`s2sad.runtime.running_extremum`), ``np.subtract.outer(a, b)`` is the ufunc on
``a`` with ``b``'s axes added.

A call of one of these NumPy functions in a differentiated function is inlined with
the definition here, as a call of the user's own function would be: its derivatives, of
any order, forward and reverse, on NumPy and CuPy, follow from the functions it is
written with, and the generated code shows the arithmetic (``np.interp`` is a
``searchsorted``, two gathers and a weighted sum). The generated code computes the
value with these definitions too: the same numbers, up to the last rounding.

Each definition takes the arguments its NumPy function usually gets; another one (a
keyword it does not have) is refused at the call. Each is checked against NumPy:

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> xp, fp = np.sort(rng.normal(size=6)), rng.normal(size=6)
>>> x = np.concatenate([rng.normal(size=9), xp, [-5.0, 5.0]])
>>> all(np.allclose(interp(x, xp, fp, *e), np.interp(x, xp, fp, *e))
...     for e in [(), (-1.0,), (-1.0, 2.0)])
True
>>> p = rng.normal(size=4)
>>> bool(np.allclose(polyval(p, x), np.polyval(p, x))), float(polyval([2.0], 3.0))
(True, 2.0)
>>> a, b = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
>>> bool(np.allclose(cross(a, b), np.cross(a, b)))
True
>>> flat = np.array([1.0, 1.0, 0.0])  # (2-vectors: the z component of the 3-d product)
>>> bool(np.allclose(cross(a[:, :2], b[:, :2]), np.cross(a * flat, b * flat)[:, 2]))
True
>>> y = rng.normal(size=(3, 7))
>>> [bool(np.allclose(trapezoid(y, *e), np.trapezoid(y, *e))) for e in
...  [(), (np.linspace(0.0, 1.0, 7),), (None, 0.5), (np.cumsum(np.ones((3, 7)), 1),)]]
[True, True, True, True]
>>> bool(np.allclose(trapezoid(y.T, axis=0), np.trapezoid(y.T, axis=0)))
True
>>> m = rng.normal(size=(3, 8))
>>> [bool(np.allclose(cov(*e), np.cov(*e))) for e in
...  [(m,), (m[0],), (m.T, None, False), (m, None, True, True), (m, None, True, False, 3),
...   (m[0], m[1])]]
[True, True, True, True, True, True]
>>> [bool(np.allclose(median(v, **e), np.median(v, **e))) for v in (m, m[:, :7])
...  for e in [{}, {"axis": 0}, {"axis": 1}, {"axis": 1, "keepdims": True},
...            {"keepdims": True}]]
[True, True, True, True, True, True, True, True, True, True]
>>> bool(np.isnan(median(np.array([1.0, np.nan, 2.0]))))
True
>>> bool(np.array_equal(append(m, [1.0]), np.append(m, [1.0])))
True
>>> bool(np.array_equal(append(m, m, axis=0), np.append(m, m, axis=0)))
True
>>> [bool(np.array_equal(diff(m, **e), np.diff(m, **e))) for e in
...  [{"prepend": 0.0}, {"append": 1.0, "axis": 0}, {"prepend": m[:, :2], "n": 2}]]
[True, True, True]
>>> k = rng.normal(size=3)
>>> [bool(np.allclose(convolve(fp, k, mode), np.convolve(fp, k, mode)))
...  for mode in ("full", "same", "valid")]
[True, True, True]
>>> [bool(np.allclose(convolve(k, fp, mode), np.convolve(k, fp, mode)))
...  for mode in ("full", "same", "valid")]
[True, True, True]
>>> cases = [(m, 0.3, {}), (m, [0.0, 0.25, 1.0], {}), (m, 0.7, {"axis": 1}),
...          (m, np.array([[0.1, 0.9]]), {"axis": 0}), (m, 0.5, {"axis": -1, "keepdims": True}),
...          (m, [0.2, 0.6], {"axis": 1, "keepdims": True}), (m, 0.4, {"keepdims": True}),
...          (m[0], 0.5, {}), (np.array([1.0, np.nan, 2.0]), 0.5, {})]
>>> all(np.allclose(quantile(v, q, **e), np.quantile(v, q, **e), equal_nan=True) and
...     np.shape(quantile(v, q, **e)) == np.shape(np.quantile(v, q, **e)) for v, q, e in cases)
True
>>> bool(np.allclose(percentile(m, [10.0, 90.0], axis=1), np.percentile(m, [10.0, 90.0], axis=1)))
True
>>> v32 = m.astype(np.float32)
>>> [quantile(v32, 0.3).dtype, quantile(v32, [0.2, 0.9], axis=1).dtype, median(v32, 1).dtype]
[dtype('float32'), dtype('float32'), dtype('float32')]
>>> infinite = np.array([1.0, 2.0, 3.0, np.inf])  # (NumPy's way next to inf: NaN or inf)
>>> with np.errstate(invalid="ignore"):
...     [bool(np.allclose(quantile(infinite, q), np.quantile(infinite, q), equal_nan=True))
...      for q in (0.5, 0.75, 0.8, 1.0)]
[True, True, True, True]
>>> from numpy.lib.stride_tricks import sliding_window_view as windows
>>> [bool(np.array_equal(sliding_window_view(v, 3, *e), windows(v, 3, *e))) for v, e in
...  [(fp, ()), (m, (1,)), (m, (-1,)), (m, (0,)), (rng.normal(size=(2, 5, 3)), (1,))]]
[True, True, True, True, True]
>>> [bool(np.array_equal(ufunc_method(u, "reduce")(m, *e), u.reduce(m, *e)))
...  for u in _UFUNCS for e in [(), (1,), (None,)]]
[True, True, True, True, True, True, True, True, True, True, True, True]
>>> [bool(np.array_equal(ufunc_method(u, "accumulate")(m, *e), u.accumulate(m, *e)))
...  for u in _UFUNCS for e in [(), (1,)]]
[True, True, True, True, True, True, True, True]
>>> holes = np.where(rng.random((4, 5)) < 0.3, np.nan, rng.normal(size=(4, 5)))
>>> holes[1] = np.nan  # (a row all NaN: NaN, as NumPy gives with its warning)
>>> with np.errstate(invalid="ignore", divide="ignore"):
...     [bool(np.allclose(f(holes, *e), getattr(np, f.__name__)(holes, *e), equal_nan=True))
...      for f in (nanprod, nancumsum, nancumprod) for e in [(), (0,), (1,)]]
[True, True, True, True, True, True, True, True, True]
>>> import warnings
>>> with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
...     warnings.simplefilter("ignore", RuntimeWarning)
...     [bool(np.allclose(f(holes, **e), getattr(np, f.__name__)(holes, **e), equal_nan=True))
...      for f in (nanvar, nanstd) for e in [{}, {"axis": 1}, {"axis": 0, "ddof": 1},
...                                          {"axis": 1, "ddof": 3, "keepdims": True}]]
[True, True, True, True, True, True, True, True]
>>> nanvar(holes.astype(np.float32), axis=1).dtype
dtype('float32')
>>> nan = np.array([3.0, np.nan, 5.0, 1.0])
>>> bool(np.array_equal(maximum_accumulate(nan), np.maximum.accumulate(nan), equal_nan=True))
True
>>> all(np.array_equal(outer(u, m, k), u.outer(m, k)) for u in (np.subtract, np.maximum))
True
"""

from __future__ import annotations

import functools

import numpy as np

from .runtime import checked_quantiles, one_axis, running_extremum, window_count


def interp(x, xp, fp, left=None, right=None):
    # the segment of xp each x falls in (the first or last beyond the ends), and how far
    xp, fp = np.asarray(xp), np.asarray(fp)  # (lists too, as NumPy takes them)
    n = np.shape(xp)[-1]
    j = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, n - 2)
    t = np.clip((x - xp[j]) / (xp[j + 1] - xp[j]), 0.0, 1.0)
    y = fp[j] * (1.0 - t) + fp[j + 1] * t
    if left is not None:
        y = np.where(x < xp[0], left, y)
    if right is not None:
        y = np.where(x > xp[n - 1], right, y)
    return y


def polyval(p, x):
    # Horner's rule, from the highest power
    y = p[0] * np.ones_like(x)
    for i in range(1, len(p)):
        y = y * x + p[i]
    return y


def cross(a, b):
    # of 3-vectors (or 2-vectors: the z component) in the last axis
    a, b = np.asarray(a), np.asarray(b)  # (lists too, as NumPy takes them)
    if np.shape(a)[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    # the trapezoids between neighbours along axis, added
    ys = np.moveaxis(y, axis, -1)
    if x is None:
        d = dx
    elif np.ndim(x) == 1:
        d = np.diff(x)
    else:
        d = np.diff(np.moveaxis(x, axis, -1), axis=-1)
    return np.sum(d * (ys[..., 1:] + ys[..., :-1]) / 2.0, axis=-1)


def cov(m, y=None, rowvar=True, bias=False, ddof=None):
    # the variables in rows (columns with rowvar=False), centred, their products averaged
    x = np.atleast_2d(m)
    if not rowvar and np.shape(x)[0] != 1:
        x = np.transpose(x)
    if y is not None:
        z = np.atleast_2d(y)
        if not rowvar and np.shape(z)[0] != 1:
            z = np.transpose(z)
        x = np.concatenate([x, z], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    xc = x - np.mean(x, axis=1, keepdims=True)
    return np.squeeze(xc @ np.transpose(xc) / (np.shape(x)[1] - ddof))


def median(a, axis=None, keepdims=False):
    # the middle of the sorted values (the mean of the two middle ones); NaN where one is
    # (its gradient NaN too)
    s = np.sort(a, axis=axis)
    along = -1 if axis is None else axis
    n = np.shape(s)[along]
    halves = (np.take(s, (n - 1) // 2, axis=along) + np.take(s, n // 2, axis=along)) / 2.0
    nan_or_one = np.where(np.isnan(np.take(s, n - 1, axis=along)), np.nan, 1.0)
    middle = halves * nan_or_one.astype(halves.dtype)
    if keepdims and axis is None:
        return np.reshape(middle, (1,) * np.ndim(a))
    if keepdims:
        return np.expand_dims(middle, axis)
    return middle


def nanprod(a, axis=None, keepdims=False):
    # NaN counts as 1 (and gets no gradient)
    return np.prod(np.where(np.isnan(a), 1.0, a), axis=axis, keepdims=keepdims)


def nancumsum(a, axis=None):
    return np.cumsum(np.where(np.isnan(a), 0.0, a), axis=axis)


def nancumprod(a, axis=None):
    return np.cumprod(np.where(np.isnan(a), 1.0, a), axis=axis)


def nanvar(a, axis=None, ddof=0, keepdims=False):
    # the values that are not NaN, centred on their mean; NaN where fewer than ddof + 1
    # (where NumPy warns)
    kept = ~np.isnan(a)
    total = np.sum(np.where(kept, a, 0.0), axis=axis, keepdims=True)
    count = np.maximum(np.sum(kept, axis=axis, keepdims=True), 1).astype(total.dtype)
    centred = np.where(kept, a - total / count, 0.0)
    squares = np.sum(centred * centred, axis=axis, keepdims=keepdims)
    dof = np.sum(kept, axis=axis, keepdims=keepdims) - ddof
    return np.where(dof > 0, squares, np.nan) / np.where(dof > 0, dof, 1).astype(
        squares.dtype)


def nanstd(a, axis=None, ddof=0, keepdims=False):
    # where the variance is 0 (one value, or all equal), 0 with no gradient, as np.std's
    # rule gives (the square root's slope is infinite there); NaN stays NaN
    var = np.nanvar(a, axis=axis, ddof=ddof, keepdims=keepdims)
    positive = var > 0.0
    return np.where(positive, np.sqrt(np.where(positive, var, 1.0)), var * 0.0)


def append(arr, values, axis=None):
    if axis is None:
        return np.concatenate([np.ravel(arr), np.ravel(values)])
    return np.concatenate([arr, values], axis=axis)


def convolve(a, v, mode="full"):
    # the shorter one slides along the longer: each of its values adds a shifted copy
    if len(v) > len(a):
        a, v = v, a
    n, k = len(a), len(v)
    full = np.zeros(n + k - 1)
    for i in range(k):
        full[i:i + n] = full[i:i + n] + v[i] * a
    if mode == "valid":
        return full[k - 1:n]
    if mode == "same":
        start = (k - 1) // 2
        return full[start:start + n]
    return full


def diff(a, n=1, axis=-1, prepend=None, append=None):
    # np.diff's rule takes no prepend or append: the array lengthened first
    x = a
    if prepend is not None:
        first = np.take(a, [0], axis=axis) * 0.0 + prepend if np.ndim(prepend) == 0 \
            else prepend
        x = np.concatenate([first, x], axis=axis)
    if append is not None:
        last = np.take(a, [0], axis=axis) * 0.0 + append if np.ndim(append) == 0 else append
        x = np.concatenate([x, last], axis=axis)
    return np.diff(x, n=n, axis=axis)


def quantile(a, q, axis=None, keepdims=False):
    # NumPy's default method: between the two sorted values around q * (n - 1), on the
    # line through them (NumPy's way, from the nearer end); NaN where the values hold one
    # (its gradient NaN too). The quantiles' axes come first.
    along = -1 if axis is None else one_axis(axis, "quantile")
    s = np.sort(a, axis=axis)
    n = np.shape(s)[along]
    position = np.ravel(checked_quantiles(np.asarray(q))) * (n - 1)
    low = np.floor(position).astype(np.intp)
    lower = np.moveaxis(np.take(s, low, axis=along), along, 0)
    upper = np.moveaxis(np.take(s, np.minimum(low + 1, n - 1), axis=along), along, 0)
    t = np.reshape(position - low, np.shape(low) + (1,) * (np.ndim(lower) - 1))
    t = t.astype(np.result_type(s, 0.0))  # (float32 values: a float32 quantile)
    step = upper - lower
    mixed = np.where(t >= 0.5, upper - step * (1.0 - t), lower + step * t)
    nan_or_one = np.where(np.isnan(np.take(s, n - 1, axis=along)), np.nan, 1.0)
    marked = mixed * nan_or_one.astype(t.dtype)
    result = np.reshape(marked, np.shape(q) + np.shape(marked)[1:])
    if keepdims and axis is None:
        return np.reshape(result, np.shape(q) + (1,) * np.ndim(a))
    if keepdims:
        return np.expand_dims(result, axis + np.ndim(q) if axis >= 0 else axis)
    return result


def percentile(a, q, axis=None, keepdims=False):
    return np.quantile(a, np.true_divide(q, 100), axis=axis, keepdims=keepdims)


def sliding_window_view(x, window_shape, axis=None):
    # the windows gathered with an index array: a copy, not a view (to read, not to write
    # into); one window length, along one axis (none for a 1-d array)
    count = window_count(x, window_shape, axis)
    along = -1 if axis is None else axis
    windows = np.take(x, np.arange(count)[:, None] + np.arange(window_shape), axis=along)
    if axis is None:
        return windows
    return np.moveaxis(windows, axis + 1 if axis >= 0 else axis, -1)


# --- methods of ufuncs: np.add.reduce(x) is np.sum(x, axis=0) ----------------------------


def add_reduce(array, axis=0, dtype=None, *, keepdims=False):
    return np.sum(array, axis=axis, dtype=dtype, keepdims=keepdims)


def multiply_reduce(array, axis=0, dtype=None, *, keepdims=False):
    return np.prod(array, axis=axis, dtype=dtype, keepdims=keepdims)


def maximum_reduce(array, axis=0, *, keepdims=False):
    return np.max(array, axis=axis, keepdims=keepdims)


def minimum_reduce(array, axis=0, *, keepdims=False):
    return np.min(array, axis=axis, keepdims=keepdims)


def add_accumulate(array, axis=0, dtype=None):
    return np.cumsum(array, axis=one_axis(axis, "add.accumulate"), dtype=dtype)


def multiply_accumulate(array, axis=0, dtype=None):
    return np.cumprod(array, axis=one_axis(axis, "multiply.accumulate"), dtype=dtype)


def maximum_accumulate(array, axis=0):
    # each running maximum is the latest value that reaches it: its gradient goes there
    along = one_axis(axis, "maximum.accumulate")
    return np.take_along_axis(array, running_extremum(array, along, True), axis=along)


def minimum_accumulate(array, axis=0):
    along = one_axis(axis, "minimum.accumulate")
    return np.take_along_axis(array, running_extremum(array, along, False), axis=along)


def outer(ufunc, a, b):
    # every pair: a's axes first, then b's
    return ufunc(np.reshape(a, np.shape(a) + (1,) * np.ndim(b)), b)


def ufunc_method(ufunc, method: str):
    """The definition ``ufunc.method(...)`` is written with (``np.add.reduce``...), or None.
    ``outer``'s takes the ufunc first."""
    if method == "outer":
        return outer if ufunc.nin == 2 and ufunc.nout == 1 else None
    return globals().get(f"{ufunc.__name__}_{method}") if ufunc in _UFUNCS else None


_UFUNCS = (np.add, np.multiply, np.maximum, np.minimum)


def shown_name(definition, call, dotted) -> str:
    """How the user wrote the function ``definition`` stands in for (``np.quantile``),
    from the ``call`` (``dotted`` spells its function)."""
    text = dotted(call.func)
    return text if "..." not in text else definition.__name__


def names() -> list[str]:
    """The names of the functions and methods written here, as ``s2sad.supported()`` and
    the README list them."""
    from .registry import describe_function
    methods = [f"numpy.{u.__name__}.{m}" for u in _UFUNCS for m in ("reduce", "accumulate")]
    # (np.trapz, NumPy's old name of np.trapezoid where it still has it, is not listed: the
    # list is the same for every NumPy)
    old_names = {"numpy.trapz"} if hasattr(np, "trapezoid") else set()
    return sorted({describe_function(f) for f in table()} - old_names | set(methods) |
                  {"numpy.ufunc.outer"})


def by_keyword() -> list:
    """``(NumPy function, keywords, definition)``: calls giving one of those keywords,
    which the function's rule does not take, are written with the definition."""
    return [(np.diff, {"prepend", "append"}, diff)]


def stand_in(func):
    """The definition here that stands in for the NumPy function ``func``, or None.

    >>> stand_in(np.interp) is interp, stand_in(np.sin)
    (True, None)
    """
    try:
        return _table().get(func)
    except TypeError:  # (an unhashable value: an array)
        return None


@functools.cache
def _table() -> dict:
    return table()


def table() -> dict:
    """The NumPy function each definition here stands in for."""
    names = ["interp", "polyval", "cross", "cov", "median", "append", "convolve", "quantile",
             "percentile", "nanprod", "nancumsum", "nancumprod", "nanvar", "nanstd"]
    found = {getattr(np, name): globals()[name] for name in names}
    found[np.lib.stride_tricks.sliding_window_view] = sliding_window_view
    for name in ("trapezoid", "trapz"):  # (trapz: NumPy < 2.0; trapezoid: NumPy >= 2.0)
        if hasattr(np, name):
            found[getattr(np, name)] = trapezoid
    try:  # (SciPy's functions written with s2sad's helpers, where SciPy imports)
        from .rules.scipy_integrate import STAND_INS
    except ImportError:  # pragma: no cover
        pass
    else:
        found.update(STAND_INS)
    return found
