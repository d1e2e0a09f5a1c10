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
>>> from s2sad.runtime.reductions import _CROSS_LENGTHS
>>> 2 not in _CROSS_LENGTHS or bool(np.allclose(cross(a[:, :2], b[:, :2]),
...                                            np.cross(a * flat, b * flat)[:, 2]))
True

(NumPy 2.5 takes 3-vectors alone: there, as in NumPy, 2-vectors raise ``ValueError``.)
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
>>> pairs = [(rng.normal(size=i) + 1j * rng.normal(size=i), rng.normal(size=j) - 1j)
...          for i in range(1, 6) for j in range(1, 6)]
>>> all(np.allclose(correlate(a, v, mode), np.correlate(a, v, mode)) for a, v in pairs
...     for mode in ("valid", "same", "full"))
True
>>> if hasattr(np, "matvec"):  # (NumPy 2.2: the array API's linear algebra)
...     st = rng.normal(size=(2, 3, 3)) + 1j * rng.normal(size=(2, 3, 3))
...     u, w = st[:, 0], st[1, 1]
...     checks = [np.allclose(matvec(st, u), np.matvec(st, u)),
...               np.allclose(vecmat(u, st), np.vecmat(u, st)),
...               np.allclose(linalg_outer(u[0], w), np.linalg.outer(u[0], w)),
...               np.allclose(linalg_trace(st, offset=1), np.linalg.trace(st, offset=1)),
...               np.allclose(linalg_diagonal(st, offset=-1), np.linalg.diagonal(st, offset=-1)),
...               np.allclose(linalg_cross(st, u[:, None], axis=-1),
...                           np.linalg.cross(st, u[:, None])),
...               np.allclose(multi_dot([u[0], st[0], st[1], w]),
...                           np.linalg.multi_dot([u[0], st[0], st[1], w]))]
... else:
...     checks = [True] * 7
>>> checks
[True, True, True, True, True, True, True]
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
[dtype('float32'), dtype('float64'), dtype('float32')]
>>> np.quantile(v32, [0.2, 0.9], axis=1).dtype  # (NumPy's: a list of q is float64)
dtype('float64')
>>> infinite = np.array([1.0, 2.0, 3.0, np.inf])  # (NumPy's way next to inf: NaN or inf)
>>> with np.errstate(invalid="ignore"):
...     [bool(np.allclose(quantile(infinite, q), np.quantile(infinite, q), equal_nan=True))
...      for q in (0.5, 0.75, 0.8, 1.0)]
[True, True, True, True]
>>> from numpy.lib.stride_tricks import sliding_window_view as windows
>>> [bool(np.array_equal(sliding_window_view(v, 3, *e), windows(v, 3, *e))) for v, e in
...  [(fp, ()), (m, (1,)), (m, (-1,)), (m, (0,)), (rng.normal(size=(2, 5, 3)), (1,))]]
[True, True, True, True, True]
>>> exact = [u for u in _UFUNCS if u is not np.logaddexp]
>>> [bool(np.array_equal(ufunc_method(u, "reduce")(m, *e), u.reduce(m, *e)))
...  for u in exact for e in [(), (1,), (None,)]]
[True, True, True, True, True, True, True, True, True, True, True, True]
>>> [bool(np.array_equal(ufunc_method(u, "accumulate")(m, *e), u.accumulate(m, *e)))
...  for u in exact for e in [(), (1,)]]
[True, True, True, True, True, True, True, True]
>>> [bool(np.allclose(logaddexp_reduce(m, *e), np.logaddexp.reduce(m, *e), rtol=1e-15,
...                   atol=0)) for e in [(), (1,), (None,)]]  # (added in its own order)
[True, True, True]
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
>>> import itertools, operator
>>> v = [0.5, -2.0, 3.0]
>>> (reduce(operator_mul, v), reduce(lambda a, b: a * b + 1.0, v, 2.0), reduce(min, [], 4.0))
(-3.0, -8.0, 4.0)
>>> all(reduce(f, v, *e) == functools.reduce(g, v, *e) for f, g in [
...     (operator_sub, operator.sub), (operator_truediv, operator.truediv),
...     (operator_pow, operator.pow), (operator_add, operator.add)] for e in [(), (2.0,)])
True
>>> operator_add([1.0], [2.0]), operator_neg(2.0)
([1.0, 2.0], -2.0)
>>> all(accumulate(v, *e, **k) == list(itertools.accumulate(v, *e, **k)) for e, k in
...     [((), {}), ((operator.mul,), {}), ((max,), {"initial": 1.0}), ((), {"initial": 2.0})])
True
>>> accumulate([]), accumulate([], initial=1.0)
([], [1.0])
>>> all(product(*e, **k) == list(itertools.product(*e, **k)) for e, k in [
...     (([1, 2], "abc"), {}), (([1, 2],), {"repeat": 3}), ((), {}), (([], [1]), {}),
...     (([1], (2, 3)), {"repeat": 2})])
True
>>> chain([1], (2, 3), []), pairwise([1, 2, 3]), pairwise([1])
([1, 2, 3], [(1, 2), (2, 3)], [])
>>> [prod(v, **k) == math.prod(v, **k) for v, k in [(v, {}), ([], {}), (v, {"start": 3})]]
[True, True, True]
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
import warnings

import numpy as np

from .runtime import (MISSING, checked_cross_vector, fsum_of, hypot_of, checked_quantiles, one_axis,
                      quantile_dtype, running_extremum, window_count)
from .runtime.numpy_more import (check_accumulated, check_convolve, check_cross3,
                                 check_gradient_spacings, check_interp, check_multi_dot,
                                 check_ranks, check_rollaxis, check_select, delete_sources,
                                 gradient_axes, insert_sources, like_dtype, pad_pairs,
                                 partition_sources, piecewise_conditions)


def interp(x, xp, fp, left=None, right=None):
    # the segment of xp each x falls in (the first or last beyond the ends), and how far
    xp, fp = np.asarray(xp), np.asarray(fp)  # (lists too, as NumPy takes them)
    check_interp(xp, fp)  # (NumPy's ValueErrors, read or not, before any is read)
    n = np.shape(xp)[-1]
    if n == 1:  # (one point: its value everywhere, but left and right of it)
        y = fp[0] + np.zeros(np.shape(x))
    else:
        # (NumPy's choice: the segment from the last of equal knots at or below x; at the
        # last knot or beyond, fp's last value; a segment of no width, where the ends
        # clip it, is never divided by)
        j = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, n - 2)
        # NumPy's own formula, slope * (x - xp[j]) + fp[j], its value to the last bit)
        width = xp[j + 1] - xp[j]
        slope = (fp[j + 1] - fp[j]) / np.where(width == 0, 1.0, width)
        y = np.where(x >= xp[n - 1], fp[n - 1],
                     slope * (np.clip(x, xp[j], xp[j + 1]) - xp[j]) + fp[j])
    if left is not None:
        y = np.where(x < xp[0], left, y)
    if right is not None:
        y = np.where(x > xp[n - 1], right, y)
    return y[()]  # (a NumPy number for a number x, as NumPy's: np.where gives 0-d arrays)


def polyval(p, x):
    # Horner's rule, from the highest power, from zeros like x (as NumPy: no p, zeros)
    y = np.zeros_like(x)
    for i in range(len(p)):
        y = y * x + p[i]
    return y


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    # of 3-vectors (or 2-vectors: the z component) along axisa and axisb (the last), the
    # result's vectors along axisc (axis: all three)
    if axis is not None:
        axisa, axisb, axisc = axis, axis, axis
    a, b = np.asarray(a), np.asarray(b)  # (lists too, as NumPy takes them)
    if axisa != -1:
        a = np.moveaxis(a, axisa, -1)
    if axisb != -1:
        b = np.moveaxis(b, axisb, -1)
    a, b = checked_cross_vector(a), checked_cross_vector(b)  # (the lengths NumPy takes)
    if np.shape(a)[-1] == 2 and np.shape(b)[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    if np.shape(a)[-1] == 2:  # (a 2-vector is a 3-vector with z = 0)
        c = np.stack([a[..., 1] * b[..., 2], -(a[..., 0] * b[..., 2]),
                      a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)
    elif np.shape(b)[-1] == 2:
        c = np.stack([-(a[..., 2] * b[..., 1]), a[..., 2] * b[..., 0],
                      a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)
    else:
        c = np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                      a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                      a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)
    if axisc != -1:
        return np.moveaxis(c, -1, axisc)
    return c


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
    check_ranks("cov", m, (0, 1, 2))
    x = np.atleast_2d(m) + np.zeros((), np.float64)  # (NumPy's float64 for float32, int, bool)
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


def cov_complex(m, y=None, rowvar=True, bias=False, ddof=None):
    # cov's, in a program with complex values: NumPy's product conjugates, xc @ xc^H
    check_ranks("cov", m, (0, 1, 2))
    x = np.atleast_2d(m) + np.zeros((), np.float64)  # (NumPy's float64 for float32, int, bool)
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
    return np.squeeze(xc @ np.conj(np.transpose(xc)) / (np.shape(x)[1] - ddof))


def median(a, axis=None, keepdims=False):
    # the middle of the sorted values (the mean of the two middle ones); NaN where one is
    # (its gradient NaN too)
    along = -1 if axis is None else one_axis(axis, "median")
    s = np.sort(a, axis=axis)
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
    # NaN counts as 1 (and gets no gradient); a Python 1 keeps an int array's dtype
    return np.prod(np.where(np.isnan(a), 1, a), axis=axis, keepdims=keepdims)


def nancumsum(a, axis=None):
    return np.cumsum(np.where(np.isnan(a), 0, a), axis=axis)


def nancumprod(a, axis=None):
    return np.cumprod(np.where(np.isnan(a), 1, a), axis=axis)


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


def nanvar_complex(a, axis=None, ddof=0, keepdims=False):
    # nanvar's, in a program with complex values: the mean of |centred|^2, a real number
    kept = ~np.isnan(a)
    total = np.sum(np.where(kept, a, 0.0), axis=axis, keepdims=True)
    count = np.maximum(np.sum(kept, axis=axis, keepdims=True), 1).astype(total.dtype)
    centred = np.where(kept, a - total / count, 0.0)
    squares = np.sum(np.real(centred * np.conj(centred)), axis=axis, keepdims=keepdims)
    dof = np.sum(kept, axis=axis, keepdims=keepdims) - ddof
    return np.where(dof > 0, squares, np.nan) / np.where(dof > 0, dof, 1).astype(
        squares.dtype)


def nanstd(a, axis=None, ddof=0, keepdims=False):
    # where the variance is 0 (one value, or all equal), 0 with no gradient, as np.std's
    # rule gives (the square root's slope is infinite there); NaN stays NaN
    var = np.nanvar(a, axis=axis, ddof=ddof, keepdims=keepdims)
    positive = var > 0.0
    return np.where(positive, np.sqrt(np.where(positive, var, 1.0)), var * 0.0)[()]


def append(arr, values, axis=None):
    if axis is None:
        return np.concatenate([np.ravel(arr), np.ravel(values)])
    return np.concatenate([arr, values], axis=axis)


def convolve(a, v, mode="full"):
    # the shorter one slides along the longer: each of its values adds a shifted copy,
    # padded to the full length (no store into a slice of a buffer: the same code runs on
    # Dask, whose arrays are not written in place, and keeps complex parts)
    check_convolve(a, v, mode)  # (NumPy's errors, before anything is read)
    x, w = np.ravel(a), np.ravel(v)  # (a number: NumPy's array of one item)
    if len(w) > len(x):
        x, w = w, x
    n, k = len(x), len(w)
    full = np.pad(w[0] * x, (0, k - 1))
    for i in range(1, k):
        full = full + np.pad(w[i] * x, (i, k - 1 - i))
    if mode == "valid":
        return full[k - 1:n]
    if mode == "same":
        start = (k - 1) // 2
        return full[start:start + n]
    return full


def correlate(a, v, mode="valid"):
    # sum_n a[n + k] conj(v[n]): a convolution with v reversed and conjugated; in mode
    # "same" with a shorter than v, NumPy's window starts len(a) // 2 in, not one earlier
    w = np.conj(v[::-1])
    if mode == "same" and len(v) > len(a):
        start = len(a) // 2
        return np.convolve(a, w, "full")[start:start + len(v)]
    return np.convolve(a, w, mode)


def linalg_outer(x1, x2):
    # np.linalg.outer: of two vectors (NumPy refuses other ranks)
    check_ranks("linalg.outer", x1, (1,), x2, (1,))
    return np.reshape(x1, (-1, 1)) * np.reshape(x2, (1, -1))


def linalg_trace(x, *, offset=0, dtype=None):
    # np.linalg.trace: along the last two axes
    return np.trace(x, offset, -2, -1, dtype)


def linalg_diagonal(x, *, offset=0):
    return np.diagonal(x, offset, -2, -1)


def linalg_cross(x1, x2, *, axis=-1):
    # np.linalg.cross: of 3-vectors along axis (2-vectors raise, as NumPy's)
    check_cross3(x1, x2, axis)
    return np.cross(x1, x2, axis=axis)


def multi_dot(arrays):
    # the products from the left (NumPy picks the cheapest order: the same value, rounded
    # otherwise); a first 1-d array is a row, a last one a column, as matmul reads them.
    # Two arrays are np.dot's product (of any ranks), as NumPy's.
    check_multi_dot(arrays)
    if len(arrays) == 2:
        return np.dot(arrays[0], arrays[1])
    result = arrays[0]
    for i in range(1, len(arrays)):
        result = result @ arrays[i]
    return result


def matvec(x1, x2):
    # np.matvec: each matrix of x1 times each vector of x2 (no conjugate)
    check_ranks("matvec", x1, 2, x2, 1)
    return np.matmul(x1, np.expand_dims(x2, -1))[..., 0]


def vecmat(x1, x2):
    # np.vecmat: each vector of x1, conjugated, times each matrix of x2
    check_ranks("vecmat", x1, 1, x2, 2)
    return np.matmul(np.expand_dims(np.conj(x1), -2), x2)[..., 0, :]


def diff(a, n=1, axis=-1, prepend=None, append=None):
    # np.diff's rule takes no prepend or append: the array lengthened first
    # (a number spread to one slice, in its own dtype, as NumPy's np.broadcast_to)
    x = a
    if prepend is not None:
        first = np.broadcast_to(prepend, np.shape(np.take(a, [0], axis=axis))) \
            if np.ndim(prepend) == 0 else prepend
        x = np.concatenate([first, x], axis=axis)
    if append is not None:
        last = np.broadcast_to(append, np.shape(np.take(a, [0], axis=axis))) \
            if np.ndim(append) == 0 else append
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
    t = t.astype(quantile_dtype(s, q))  # (float32 values: float32, but for a float64 q)
    step = upper - lower
    mixed = np.where(t >= 0.5, upper - step * (1.0 - t), lower + step * t)
    nan_or_one = np.where(np.isnan(np.take(s, n - 1, axis=along)), np.nan, 1.0)
    marked = mixed * nan_or_one.astype(t.dtype)
    result = np.reshape(marked, np.shape(q) + np.shape(marked)[1:])
    if keepdims and axis is None:
        return np.reshape(result, np.shape(q) + (1,) * np.ndim(a))
    if keepdims:
        return np.expand_dims(result, axis + np.ndim(q) if axis >= 0 else axis)
    return result[()]  # (a NumPy number for one quantile of all values, as NumPy's)


def percentile(a, q, axis=None, keepdims=False):
    # (a Python number stays one: NumPy's float32 percentile of float32 values)
    fraction = q / 100 if isinstance(q, (int, float)) else np.true_divide(q, 100)
    return np.quantile(a, fraction, axis=axis, keepdims=keepdims)


def sliding_window_view(x, window_shape, axis=None):
    # the windows gathered with an index array: a copy, not a view (to read, not to write
    # into); one window length, along one axis (none for a 1-d array)
    count = window_count(x, window_shape, axis)
    along = -1 if axis is None else axis
    windows = np.take(x, np.arange(count)[:, None] + np.arange(window_shape), axis=along)
    if axis is None:
        return windows
    return np.moveaxis(windows, axis + 1 if axis >= 0 else axis, -1)


def rollaxis(a, axis, start=0):
    # np.moveaxis to where NumPy's rollaxis puts the axis (a view, as NumPy's)
    n = np.ndim(a)
    check_rollaxis(n, axis, start)
    axis = axis + n if axis < 0 else axis
    start = start + n if start < 0 else start
    if start > axis:
        start = start - 1
    return np.moveaxis(a, axis, start)


def select(condlist, choicelist, default=0):
    # the first condition that holds chooses: np.where from the last one back (a number
    # default keeps the choices' dtype, as NumPy's)
    check_select(condlist, choicelist)
    result = default
    for i in range(len(condlist) - 1, -1, -1):
        result = np.where(condlist[i], choicelist[i], result)
    return result


def matrix_power(a, n):
    # products of a (of its inverse for n < 0); the identity for n = 0
    check_ranks("linalg.matrix_power", a, 2)  # (square, as NumPy's LinAlgErrors)
    if n == 0:
        return np.zeros_like(a) + np.eye(np.shape(a)[-1], dtype=np.asarray(a).dtype)
    base = np.linalg.inv(a) if n < 0 else a
    result = base
    for _ in range(abs(n) - 1):
        result = result @ base
    return result


def delete(arr, obj, axis=None):
    # the entries NumPy keeps, gathered by their positions
    a = np.asarray(arr)
    return np.take(np.ravel(a), delete_sources(np.shape(a), obj, axis))


def insert(arr, obj, values, axis=None):
    # each entry gathered from arr or from values (cast to arr's dtype), where NumPy puts it
    a = np.asarray(arr)
    v = like_dtype(values, a)
    sources = insert_sources(np.shape(a), obj, np.shape(v), axis)
    flat = np.concatenate([np.ravel(a), np.ravel(v)])
    return np.take(flat, np.where(sources >= 0, sources, np.size(a) - 1 - sources))


def partition(a, kth, axis=-1):
    # NumPy's arrangement, gathered from a (the entries move: a sort-like gather)
    if axis is None:
        a = np.ravel(a)
        axis = -1
    return np.take_along_axis(a, partition_sources(a, kth, axis), axis=axis)


def gradient(f, v0=None, v1=None, v2=None, v3=None, axis=None, edge_order=1):
    # second-order differences inside, one-sided ones of edge_order at the ends; a
    # coordinate array's unequal steps weight them (NumPy's formulas)
    f = np.asarray(f)
    axes = gradient_axes(np.shape(f), axis, edge_order)
    check_gradient_spacings(np.shape(f), axes, v0, v1, v2, v3)
    results = []
    for i in range(len(axes)):
        y = np.moveaxis(f, axes[i], -1)
        if v0 is None:  # (the spacing: 1, one for every axis, or one for each)
            h = 1.0
        elif v1 is None:
            h = v0
        else:
            h = [v0, v1, v2, v3][i]
        if np.ndim(h) == 0:
            inner = (y[..., 2:] - y[..., :-2]) / (2.0 * h)
            if edge_order == 1:
                first = (y[..., 1:2] - y[..., 0:1]) / h
                last = (y[..., -1:] - y[..., -2:-1]) / h
            else:
                first = (-1.5 * y[..., 0:1] + 2.0 * y[..., 1:2] - 0.5 * y[..., 2:3]) / h
                last = (0.5 * y[..., -3:-2] - 2.0 * y[..., -2:-1] + 1.5 * y[..., -1:]) / h
        else:
            dx = np.diff(h)
            d1 = dx[:-1]
            d2 = dx[1:]
            inner = (-d2 / (d1 * (d1 + d2)) * y[..., :-2] + (d2 - d1) / (d1 * d2) * y[..., 1:-1]
                     + d1 / (d2 * (d1 + d2)) * y[..., 2:])
            if edge_order == 1:
                first = (y[..., 1:2] - y[..., 0:1]) / dx[0]
                last = (y[..., -1:] - y[..., -2:-1]) / dx[-1]
            else:
                d1 = dx[0]
                d2 = dx[1]
                first = (-(2.0 * d1 + d2) / (d1 * (d1 + d2)) * y[..., 0:1] +
                         (d1 + d2) / (d1 * d2) * y[..., 1:2] - d1 / (d2 * (d1 + d2)) *
                         y[..., 2:3])
                d1 = dx[-2]
                d2 = dx[-1]
                last = (d2 / (d1 * (d1 + d2)) * y[..., -3:-2] - (d2 + d1) / (d1 * d2) *
                        y[..., -2:-1] + (2.0 * d2 + d1) / (d2 * (d1 + d2)) * y[..., -1:])
        whole = np.concatenate([first, inner, last], axis=-1)
        results.append(np.moveaxis(whole, -1, axes[i]))
    if len(axes) == 1:
        return results[0]
    return tuple(results)


def piecewise(x, condlist, funclist):
    # each value where its condition holds (the later condition wins), in x's dtype;
    # funclist holds values (a function there is refused: NumPy calls it on the
    # entries its condition selects only)
    conditions = piecewise_conditions(x, condlist, funclist)
    y = np.zeros_like(x)
    for i in range(len(funclist)):
        y = np.where(conditions[i], funclist[i], y)
    return like_dtype(y, x)


def reduce(function, iterable, initial=MISSING):
    # functools.reduce: the items folded from the left, the first one (or initial) first
    items = list(iterable)
    if initial is MISSING and not items:  # (Python's TypeError)
        raise TypeError("reduce() of empty iterable with no initial value")
    if initial is MISSING:
        value = items[0]
        rest = items[1:]
    else:
        value = initial
        rest = items
    for item in rest:
        value = function(value, item)
    return value


def accumulate(iterable, func=None, *, initial=None):
    # list(itertools.accumulate(...)): each running total from the left (+ without func),
    # initial first where given
    items = list(iterable) if initial is None else [initial] + list(iterable)
    totals = []
    for item in items:
        if not totals:
            total = item
        elif func is None:
            total = totals[-1] + item
        else:
            total = func(totals[-1], item)
        totals.append(total)
    return totals


def chain(*iterables):
    # itertools.chain: the items of each iterable in turn
    items = []
    for iterable in iterables:
        for item in iterable:
            items.append(item)
    return items


def product(*iterables, repeat=1):
    # itertools.product: every tuple of one item of each, the last one's varying fastest
    # (each pool read once; a tuple's place k counts with stride strides[k])
    pools = [list(pool) for pool in iterables]
    count = len(pools) * repeat
    sizes = [len(pools[k % len(pools)]) for k in range(count)]
    strides = [1] * count
    for k in range(count - 2, -1, -1):
        strides[k] = strides[k + 1] * sizes[k + 1]
    total = strides[0] * sizes[0] if count else 1
    return [tuple([pools[k % len(pools)][flat // strides[k] % sizes[k]] for k in range(count)])
            for flat in range(total)]


def pairwise(iterable):
    # itertools.pairwise: each item with the next one
    items = list(iterable)
    return [(items[i], items[i + 1]) for i in range(len(items) - 1)]


def hypot(*coordinates):
    # math.hypot of any number of coordinates (Python >= 3.8): its own value, each
    # coordinate's derivative c / hypot (hypot_of's rule)
    return hypot_of(coordinates)


def dist(p, q):
    # math.dist: the hypot of the differences (CPython computes both with one routine)
    if len(p) != len(q):
        raise ValueError("both points must have the same number of dimensions")
    return hypot_of([a - b for a, b in zip(p, q)])


def fsum(seq):
    # math.fsum: the exactly rounded sum of the items, each item's derivative 1
    return fsum_of(list(seq))


def prod(iterable, *, start=1):
    # math.prod: start times each item in turn, from the left
    value = start
    for item in iterable:
        value = value * item
    return value


def operator_add(a, b):
    # operator.add(a, b) is a + b (a list's concatenation too), and so on
    return a + b


def operator_sub(a, b):
    return a - b


def operator_mul(a, b):
    return a * b


def operator_truediv(a, b):
    return a / b


def operator_pow(a, b):
    return a ** b


def operator_neg(a):
    return -a


def qr_r(a, mode="r"):
    # np.linalg.qr(a, mode="r"): the R of the reduced decomposition
    return np.linalg.qr(a)[1]


def svd_values(a, full_matrices=True, compute_uv=True, hermitian=False):
    # np.linalg.svd(a, compute_uv=False): the singular values alone
    if compute_uv:
        return np.linalg.svd(a, full_matrices, hermitian=hermitian)
    return np.linalg.svd(a, False, hermitian=hermitian)[1]


def pad_computed(array, pad_width, mode="constant", stat_length=None, end_values=0):
    # np.pad's modes that compute the padding (linear_ramp, maximum, mean, median,
    # minimum), one axis after the other as NumPy pads them (each axis sees the padding
    # of the ones before it)
    x = np.asarray(array)
    widths = pad_pairs(pad_width, np.ndim(x), True)
    lengths = pad_pairs(stat_length, np.ndim(x), True)
    ends = np.broadcast_to(np.asarray(end_values), (np.ndim(x), 2))
    for axis in range(np.ndim(x)):
        before = widths[axis][0]
        after = widths[axis][1]
        n = np.shape(x)[axis]
        if n == 0 and (before or after):  # (NumPy's ValueError)
            raise ValueError(f"can't extend empty axis {axis} using modes other than "
                             "'constant' or 'empty'")
        y = np.moveaxis(x, axis, -1)
        if mode == "linear_ramp":
            # from the end value towards the edge, the edge left out (np.linspace's steps)
            left = np.arange(before) * ((y[..., :1] - ends[axis, 0]) / before) + \
                ends[axis, 0] if before else y[..., :0]
            right = np.arange(after) * ((y[..., -1:] - ends[axis, 1]) / after) + \
                ends[axis, 1] if after else y[..., :0]
            right = np.flip(right, axis=-1)
        else:
            first = n if lengths[axis][0] is None else min(lengths[axis][0], n)
            last = n if lengths[axis][1] is None else min(lengths[axis][1], n)
            if mode == "maximum":
                low = np.max(y[..., :first], axis=-1, keepdims=True)
                high = np.max(y[..., n - last:], axis=-1, keepdims=True)
            elif mode == "minimum":
                low = np.min(y[..., :first], axis=-1, keepdims=True)
                high = np.min(y[..., n - last:], axis=-1, keepdims=True)
            elif mode == "mean":
                low = np.mean(y[..., :first], axis=-1, keepdims=True)
                high = np.mean(y[..., n - last:], axis=-1, keepdims=True)
            else:
                low = np.median(y[..., :first], axis=-1, keepdims=True)
                high = np.median(y[..., n - last:], axis=-1, keepdims=True)
            left = np.repeat(low, before, axis=-1)
            right = np.repeat(high, after, axis=-1)
        if x.dtype.kind in "iub":  # (NumPy rounds into an int array)
            left = np.round(left).astype(x.dtype)
            right = np.round(right).astype(x.dtype)
        x = np.moveaxis(np.concatenate([left, y, right], axis=-1), -1, axis)
    return x


# --- methods of ufuncs: np.add.reduce(x) is np.sum(x, axis=0) ----------------------------


def add_reduce(array, axis=0, dtype=None, *, keepdims=False):
    return np.sum(array, axis=axis, dtype=dtype, keepdims=keepdims)


def multiply_reduce(array, axis=0, dtype=None, *, keepdims=False):
    return np.prod(array, axis=axis, dtype=dtype, keepdims=keepdims)


def maximum_reduce(array, axis=0, *, keepdims=False):
    return np.max(array, axis=axis, keepdims=keepdims)


def minimum_reduce(array, axis=0, *, keepdims=False):
    return np.min(array, axis=axis, keepdims=keepdims)


def logaddexp_reduce(array, axis=0, *, keepdims=False):
    # NumPy adds the items one by one with np.logaddexp: log(sum(exp(a))), shifted by the
    # largest item so that no exp overflows, by 0 where it is infinite (+inf gives +inf,
    # as logaddexp does; items all -inf give -inf, with no log of 0)
    top = np.max(array, axis=axis, keepdims=True)
    shift = np.where(np.isfinite(top), top, 0.0)
    total = np.sum(np.exp(array - shift), axis=axis, keepdims=keepdims)
    low = np.sum(np.where(top == -np.inf, top, shift), axis=axis, keepdims=keepdims)
    return np.log(np.where(total == 0, 1.0, total)) + low


def add_accumulate(array, axis=0, dtype=None):
    check_accumulated(array)
    return np.cumsum(array, axis=one_axis(axis, "add.accumulate"), dtype=dtype)


def multiply_accumulate(array, axis=0, dtype=None):
    check_accumulated(array)
    return np.cumprod(array, axis=one_axis(axis, "multiply.accumulate"), dtype=dtype)


def maximum_accumulate(array, axis=0):
    # each running maximum is the latest value that reaches it: its gradient goes there
    check_accumulated(array)
    along = one_axis(axis, "maximum.accumulate")
    return np.take_along_axis(array, running_extremum(array, along, True), axis=along)


def minimum_accumulate(array, axis=0):
    check_accumulated(array)
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


_UFUNCS = (np.add, np.multiply, np.maximum, np.minimum, np.logaddexp)


def shown_name(definition, call, dotted) -> str:
    """How the user wrote the function ``definition`` stands in for (``np.quantile``),
    from the ``call`` (``dotted`` spells its function)."""
    text = dotted(call.func)
    return text if "..." not in text else definition.__name__


def positional_mismatch(definition, names, count):
    """The first of ``count`` positional arguments whose parameter in the function
    ``definition`` stands in for is not the one of the same place in ``names`` (its
    own): ``(index, NumPy's name)``, or None.

    >>> positional_mismatch(nanvar, ["a", "axis", "ddof", "keepdims"], 3)
    (2, 'dtype')
    >>> positional_mismatch(nanvar, ["a", "axis", "ddof", "keepdims"], 2) is None
    True
    """
    import inspect
    stands_for = [f for f, d in table().items() if d is definition]
    try:
        parameters = list(inspect.signature(stands_for[0]).parameters.values())
    except (IndexError, TypeError, ValueError):  # (a builtin without a signature)
        return None
    for i, parameter in enumerate(parameters[:count]):
        if parameter.kind not in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            return None  # (*args: the definition's own way of taking them)
        if i < len(names) and parameter.name != names[i]:
            return i, parameter.name
    return None


def names() -> list[str]:
    """The names of the functions and methods written here, as ``s2sad.supported()`` and
    docs/supported.md list them."""
    methods = [f"numpy.{u.__name__}.{m}" for u in _UFUNCS for m in ("reduce", "accumulate")
               if ufunc_method(u, m) is not None]  # (np.logaddexp.reduce alone)
    # (np.trapz, NumPy's old name of np.trapezoid where it still has it, is not listed: the
    # list is the same for every NumPy)
    old_names = {"numpy.trapz"} if hasattr(np, "trapezoid") else set()
    return sorted({_public_name(f) for f in table()} - old_names | set(methods) |
                  {"numpy.ufunc.outer"})


def _public_name(func) -> str:
    """``describe_function``'s name, but ``operator.add`` and ``functools.reduce`` for the
    functions of C modules that a public module holds (``_operator``, ``_functools``)."""
    import sys
    module = getattr(func, "__module__", "") or ""
    public = sys.modules.get(module[1:]) if module.startswith("_") else None
    if getattr(public, func.__name__, None) is func:
        return f"{module[1:]}.{func.__name__}"
    from .registry import describe_function
    return describe_function(func)


def by_keyword() -> list:
    """``(NumPy function, keywords, definition)``: calls giving one of those keywords,
    which the function's rule does not take, are written with the definition."""
    return [(np.diff, {"prepend", "append"}, diff),
            (np.linalg.svd, {"compute_uv"}, svd_values)]


_COMPUTED_PADS = ("linear_ramp", "maximum", "mean", "median", "minimum")


def by_arity() -> list:
    """``(function, counts, definition)``: calls giving a number of positional arguments
    not in ``counts``, which the function's rule does not take, are written with the
    definition (``math.hypot(x, y, z)``)."""
    return [(math.hypot, (2,), hypot)]


def by_value() -> list:
    """``(NumPy function, position, keyword, values, definition)``: calls passing one of
    ``values`` (literals) as that argument are written with the definition
    (``np.pad(x, 2, "mean")``)."""
    return [(np.pad, 2, "mode", _COMPUTED_PADS, pad_computed),
            (np.linalg.qr, 1, "mode", ("r",), qr_r)]


def stand_in(func, complex_values: bool = False):
    """The definition here that stands in for the NumPy function ``func``, or None; in a
    program with complex values (``complex_values``), its twin for them where it has one.

    >>> stand_in(np.interp) is interp, stand_in(np.sin), stand_in(np.cov, True) is cov_complex
    (True, None, True)
    """
    try:
        found = _table().get(func)
    except TypeError:  # (an unhashable value: an array)
        return None
    return COMPLEX_TWINS.get(found, found) if complex_values else found


# the definitions that hold for real values only, and their twins for complex ones (a
# program's real values keep the first: its generated code as it was)
COMPLEX_TWINS = {cov: cov_complex, nanvar: nanvar_complex}


@functools.cache
def _table() -> dict:
    return table()


def table() -> dict:
    """The NumPy function each definition here stands in for."""
    names = ["interp", "polyval", "cross", "cov", "median", "append", "convolve", "correlate",
             "quantile", "percentile", "nanprod", "nancumsum", "nancumprod", "nanvar", "nanstd",
             "rollaxis", "select", "delete", "insert", "partition", "gradient", "piecewise"]
    found = {getattr(np, name): globals()[name] for name in names}
    found[np.linalg.matrix_power] = matrix_power
    found[np.linalg.multi_dot] = multi_dot
    for name in ("outer", "trace", "diagonal", "cross"):  # (NumPy 2.0: the array API's)
        if hasattr(np.linalg, name):
            found[getattr(np.linalg, name)] = globals()[f"linalg_{name}"]
    for name in ("matvec", "vecmat"):  # (NumPy 2.2)
        if hasattr(np, name):
            found[getattr(np, name)] = globals()[name]
    found[functools.reduce] = reduce
    found[math.prod] = prod
    found[math.fsum] = fsum
    found[math.dist] = dist
    found[itertools.accumulate] = accumulate
    found[itertools.chain] = chain
    found[itertools.product] = product
    if hasattr(itertools, "pairwise"):  # (Python >= 3.10)
        found[itertools.pairwise] = pairwise
    for name in ("add", "sub", "mul", "truediv", "pow", "neg"):
        found[getattr(operator, name)] = globals()[f"operator_{name}"]
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
