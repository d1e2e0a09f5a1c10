"""The few helpers generated code calls. Each is small, pure, and readable on its own.

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

import numbers

import numpy as np

from .errors import DifferentiationError, NonScalarOutputError


def unbroadcast(g, like):
    """Sum ``g`` (shaped like a broadcast result) down to the shape of ``like``."""
    shape = np.shape(like)
    gshape = np.shape(g)
    if gshape == shape:
        return g
    if not shape:
        return np.sum(g)
    extra = len(gshape) - len(shape)
    if extra > 0:
        g = np.sum(g, axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and np.shape(g)[i] != 1)
    if axes:
        g = np.sum(g, axis=axes, keepdims=True)
    if np.shape(g) != shape:  # g was smaller than like (a scalar seed): spread it out
        g = np.broadcast_to(g, shape)
    return g


def sum_grad(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.sum(x, axis, keepdims)``: spread ``g`` back over the summed axes."""
    shape = np.shape(x)
    if axis is not None and not keepdims:
        axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
        g = np.expand_dims(g, tuple(a % len(shape) for a in axes))
    return np.broadcast_to(g, shape)


def reduced_size(x, axis=None):
    """How many elements of ``x`` each result of a reduction over ``axis`` combines."""
    shape = np.shape(x)
    if axis is None:
        return int(np.prod(shape))
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    return int(np.prod([shape[a] for a in axes]))


def extremum_grad(g, ans, x, axis=None, keepdims=False):
    """Adjoint of max/min: ``g`` goes to the extremal entries, shared equally by ties."""
    if axis is not None and not keepdims:
        axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
        axes = tuple(a % np.ndim(x) for a in axes)
        g = np.expand_dims(g, axes)
        ans = np.expand_dims(ans, axes)
    mask = x == ans
    return g * mask / np.sum(mask, axis=axis, keepdims=True)


def dot_grad_left(g, x, y):
    """Adjoint of ``np.dot(x, y)`` with respect to ``x``, for every combination of ranks."""
    if np.ndim(y) == 0 or np.ndim(x) == 0:
        return unbroadcast(g * y, x) if np.ndim(x) == 0 else g * y
    if np.ndim(y) == 1:
        return np.multiply.outer(g, y) if np.ndim(x) > 1 else g * y
    # dot contracts the last axis of x with the second-to-last axis of y
    y_axes = [a for a in range(np.ndim(y)) if a != np.ndim(y) - 2]
    g_axes = list(range(np.ndim(x) - 1, np.ndim(g)))
    return np.tensordot(g, y, axes=(g_axes, y_axes))


def dot_grad_right(g, x, y):
    """Adjoint of ``np.dot(x, y)`` with respect to ``y``."""
    if np.ndim(y) == 0 or np.ndim(x) == 0:
        return unbroadcast(g * x, y) if np.ndim(y) == 0 else g * x
    if np.ndim(x) == 1:
        if np.ndim(y) == 1:
            return g * x
        g = np.reshape(g, np.shape(y)[:-2] + np.shape(y)[-1:])
        return np.moveaxis(np.multiply.outer(x, g), 0, -2)
    x_axes = list(range(np.ndim(x) - 1))
    g_axes = list(range(np.ndim(x) - 1))
    gy = np.tensordot(x, g, axes=(x_axes, g_axes))  # shape (k, *y_other)
    return np.moveaxis(gy, 0, -2) if np.ndim(y) > 1 else gy


def matmul_grad_left(g, x, y):
    """Adjoint of ``x @ y`` with respect to ``x`` (batched, with 1-d operands)."""
    if np.ndim(y) == 1:
        gx = np.multiply.outer(g, y) if np.ndim(x) > 1 else g * y
        return unbroadcast(gx, x)
    if np.ndim(x) == 1:
        return unbroadcast(np.matmul(y, g[..., None])[..., 0], x)
    return unbroadcast(np.matmul(g, np.swapaxes(y, -1, -2)), x)


def matmul_grad_right(g, x, y):
    """Adjoint of ``x @ y`` with respect to ``y``."""
    if np.ndim(x) == 1:
        if np.ndim(y) == 1:
            return g * x
        # x @ y contracts x with axis -2 of y: the new axis from the outer product goes there
        return unbroadcast(np.moveaxis(np.multiply.outer(x, g), 0, -2), y)
    if np.ndim(y) == 1:
        return unbroadcast(np.matmul(np.swapaxes(x, -1, -2), g[..., None])[..., 0], y)
    return unbroadcast(np.matmul(np.swapaxes(x, -1, -2), g), y)


def tensordot_grad(g, x, y, axes, argnum):
    """Adjoint of ``np.tensordot(x, y, axes)`` with respect to ``x`` (0) or ``y`` (1)."""
    nx, ny = np.ndim(x), np.ndim(y)
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
    # g has axes (x_free..., y_free...)
    if argnum == 0:
        gx = np.tensordot(g, y, axes=(list(range(n_xfree, np.ndim(g))), y_free))
        # gx's axes: x's free axes, then y's contracted axes in increasing order, each of
        # which stands for the x axis it was paired with
        labels = x_free + [x_axes[y_axes.index(a)] for a in sorted(y_axes)]
        return np.transpose(gx, np.argsort(labels))
    gy = np.tensordot(x, g, axes=(x_free, list(range(n_xfree))))
    labels = [y_axes[x_axes.index(a)] for a in sorted(x_axes)] + y_free
    return np.transpose(gy, np.argsort(labels))


def transpose_grad(g, axes=None):
    """Adjoint of ``np.transpose(x, axes)``."""
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, np.argsort(axes))


def index_grad(g, x, index):
    """Adjoint of ``x[index]``: ``g`` scattered into zeros shaped like ``x``.

    Repeated integer indices accumulate, as ``np.add.at`` does.
    """
    if isinstance(x, (list, tuple)):
        out = zeros_like_structure(x)
        if isinstance(index, slice):
            for position, part in zip(range(*index.indices(len(x))), g, strict=True):
                out[position] = part
        else:
            out[index] = g
        return out if isinstance(x, list) else tuple(out)
    out = np.zeros(np.shape(x), dtype=np.result_type(x, g) if np.iscomplexobj(g) else _float_type(x))
    np.add.at(out, index, g)
    return out


def _float_type(x):
    dtype = np.result_type(x)
    return dtype if dtype.kind in "fc" else np.float64


def zeros_like_structure(x):
    """Zeros with the structure of ``x``, ready to be updated in place (tuples become lists)."""
    if isinstance(x, (list, tuple)):
        return [zeros_like_structure(v) for v in x]
    if isinstance(x, dict):
        return {k: zeros_like_structure(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape, _float_type(x))
    return 0.0


def pack_like(x, parts):
    """Adjoint of unpacking ``a, b, ... = x``: the parts' sensitivities, shaped like ``x``."""
    if isinstance(x, tuple):
        return tuple(parts)
    if isinstance(x, list):
        return list(parts)
    if isinstance(x, np.ndarray):
        return np.stack([np.broadcast_to(p, x.shape[1:]) for p in parts]).astype(_float_type(x))
    return list(parts)


def add_sens(a, b):
    """``a + b`` for sensitivities that may be containers (lists add element by element)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        summed = [add_sens(u, v) for u, v in zip(a, b, strict=True)]
        return summed if isinstance(a, list) else tuple(summed)
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: add_sens(a[k], b[k]) if k in b else a[k] for k in a} | \
               {k: v for k, v in b.items() if k not in a}
    if isinstance(a, (list, tuple)):
        a = np.asarray(a)
    if isinstance(b, (list, tuple)):
        b = np.asarray(b)
    return a + b


def output_seed(value):
    """The sensitivity of a function's result to itself: 1, checked to be a scalar."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Number, np.ndarray, np.generic)):
        raise NonScalarOutputError(
            f"grad needs a function that returns a scalar, but it returned {type(value).__name__}",
            hint="Return a float or a size-1 array; for vector outputs use s2sad.vjp or s2sad.jacobian.")
    if np.size(value) != 1:
        raise NonScalarOutputError(
            f"grad needs a function that returns a scalar, but it returned an array of shape {np.shape(value)}",
            hint="Reduce it (np.sum, np.mean...) or, for vector outputs, use s2sad.vjp or s2sad.jacobian.")
    if isinstance(value, np.ndarray):
        return np.ones_like(value, dtype=_float_type(value))
    return 1.0


def as_gradient(x, g):
    """The gradient with the structure, shape and dtype of the argument ``x``."""
    if isinstance(x, (list, tuple)):
        if not isinstance(g, (list, tuple)):
            g = [g] * len(x) if np.ndim(g) == 0 else list(g)
        parts = [as_gradient(a, b) for a, b in zip(x, g, strict=True)]
        return parts if isinstance(x, list) else type(x)(parts) if type(x) is tuple else type(x)(*parts)
    if isinstance(x, dict):
        if not isinstance(g, dict):
            g = {}
        return {k: as_gradient(v, g.get(k, 0.0)) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return np.array(np.broadcast_to(g, x.shape), dtype=_float_type(x))
    if isinstance(x, np.generic):
        return _float_type(x).type(np.real(g) if not np.iscomplexobj(x) else g)
    if isinstance(x, complex):
        return complex(g)
    if isinstance(x, numbers.Real):
        return float(g)
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
    return np.zeros(np.shape(x), dtype=np.result_type(_float_type(x), np.asarray(g).dtype)
                    if np.ndim(g) else _float_type(x))


def expand_reduced(g, x, axis=None, keepdims=False):
    """``g``, the sensitivity of a reduction of ``x`` over ``axis``, with the reduced axes
    put back with length 1, so that it broadcasts against ``x``.

    >>> expand_reduced(np.ones(3), np.zeros((2, 3)), 0).shape
    (1, 3)
    """
    if keepdims or axis is None or np.ndim(x) == 0:
        return g
    return np.expand_dims(g, _axes(axis, np.ndim(x)))


def cast_like(g, x):
    """``g`` with the floating dtype of ``x`` (the adjoint of ``astype`` and ``asarray``)."""
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(g, dtype=_float_type(x))
    return g


def array_grad(g, obj):
    """Adjoint of ``np.array(obj)``: ``g`` cut back into the (nested) lists of ``obj``.

    >>> array_grad(np.array([[1.0, 2.0], [3.0, 4.0]]), [[0.0, 0.0], np.zeros(2)])
    [[np.float64(1.0), np.float64(2.0)], array([3., 4.])]
    """
    g = np.asarray(g)
    if isinstance(obj, (list, tuple)):
        g = np.reshape(g, np.shape(g)[np.ndim(g) - np.ndim(obj):]) if np.ndim(g) > np.ndim(obj) \
            else g  # ndmin added leading axes of length 1
        return [array_grad(g[i], item) for i, item in enumerate(obj)]
    return cast_like(np.reshape(g, np.shape(obj)), obj) if isinstance(obj, np.ndarray) \
        else g[()] if g.ndim == 0 else np.reshape(g, np.shape(obj))


def sum_list_grad(g, iterable):
    """Adjoint of the builtin ``sum(iterable)``: every item gets ``g``."""
    if isinstance(iterable, (list, tuple)):
        return [g] * len(iterable)
    return np.broadcast_to(g, np.shape(iterable))


def prod_grad(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.prod``: ``g`` times the product of the *other* entries.

    Exact where ``x`` has zeros (no division):

    >>> prod_grad(1.0, np.array([2.0, 0.0, 3.0]))
    array([0., 6., 0.])
    """
    x = np.asarray(x)
    g = expand_reduced(g, x, axis, keepdims)
    axes = _axes(axis, x.ndim)
    if not axes:
        return g * np.ones_like(x, dtype=_float_type(x))
    kept = [a for a in range(x.ndim) if a not in axes]
    order = kept + list(axes)
    moved = np.transpose(x, order)
    flat = np.reshape(moved, moved.shape[:len(kept)] + (-1,))
    ones = np.ones_like(flat[..., :1], dtype=_float_type(x))
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], -1), -1)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat[..., 1:], -1)], -1), -1), -1)
    others = np.transpose(np.reshape(before * after, moved.shape), np.argsort(order))
    return g * others


def cumsum_grad(g, x, axis=None):
    """Adjoint of ``np.cumsum``: a cumulative sum from the end."""
    if axis is None:
        return np.reshape(np.flip(np.cumsum(np.flip(np.ravel(g)))), np.shape(x))
    return np.flip(np.cumsum(np.flip(g, axis), axis), axis)


def cumprod_grad(g, ans, x, axis=None):
    """Adjoint of ``np.cumprod`` (exact where ``x`` has zeros)."""
    x = np.asarray(x)
    shape = x.shape
    g = np.broadcast_to(g, np.shape(ans))
    if axis is None:
        x, g, ans, axis = np.ravel(x), np.ravel(g), np.ravel(ans), 0
    if np.all(x != 0):
        out = np.flip(np.cumsum(np.flip(g * ans, axis), axis), axis) / x
    else:  # d ans_j / d x_i = prod_{k <= j, k != i} x_k, for j >= i
        xm, gm = np.moveaxis(x, axis, -1), np.moveaxis(g, axis, -1)
        columns = []
        for i in range(xm.shape[-1]):
            others = xm.astype(np.result_type(xm, gm), copy=True)
            others[..., i] = 1
            columns.append(np.sum((gm * np.cumprod(others, -1))[..., i:], -1))
        out = np.moveaxis(np.stack(columns, -1), -1, axis)
    return np.reshape(out, shape)


def var_grad(g, x, axis=None, ddof=0, keepdims=False):
    """Adjoint of ``np.var(x, axis, ddof=ddof)``: ``2 (x - mean) / (n - ddof)``."""
    x = np.asarray(x)
    g = expand_reduced(g, x, axis, keepdims)
    centered = x - np.mean(x, axis=axis, keepdims=True)
    return g * (2.0 / (reduced_size(x, axis) - ddof)) * centered


def std_grad(g, ans, x, axis=None, ddof=0, keepdims=False):
    """Adjoint of ``np.std``: the variance's over ``2 std``; 0 where the std is 0."""
    ans = expand_reduced(ans, x, axis, keepdims)
    g = expand_reduced(g, x, axis, keepdims)
    scale = np.where(ans == 0, 0.0, g / (2.0 * np.where(ans == 0, 1.0, ans)))
    return var_grad(scale, x, axis, ddof, keepdims=True)


def average_grad(g, a, axis=None, weights=None, keepdims=False, argnum=0):
    """Adjoint of ``np.average`` with respect to ``a`` (0) or ``weights`` (1)."""
    a = np.asarray(a)
    g = expand_reduced(g, a, axis, keepdims)
    if weights is None:
        return np.broadcast_to(g / reduced_size(a, axis), a.shape) if argnum == 0 else None
    w = np.asarray(weights)
    if w.shape != a.shape:  # 1-d weights along the one axis
        shape = [1] * a.ndim
        shape[_axes(axis, a.ndim)[0]] = w.size
        wide = np.reshape(w, shape)
    else:
        wide = w
    total = np.sum(np.broadcast_to(wide, a.shape), axis=axis, keepdims=True)
    if argnum == 0:
        return g * wide / total
    mean = np.sum(a * wide, axis=axis, keepdims=True) / total
    return np.reshape(unbroadcast(g * (a - mean) / total, wide), w.shape)


def nansum_grad(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.nansum``: ``g`` where ``x`` is not NaN."""
    return np.where(np.isnan(x), 0.0, expand_reduced(g, x, axis, keepdims))


def nanmean_grad(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.nanmean``: ``g / count`` where ``x`` is not NaN."""
    valid = ~np.isnan(x)
    count = np.sum(valid, axis=axis, keepdims=True)
    return np.where(valid, expand_reduced(g, x, axis, keepdims) / np.maximum(count, 1), 0.0)


def ptp_grad(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.ptp`` (max - min)."""
    high = np.max(x, axis=axis, keepdims=True)
    low = np.min(x, axis=axis, keepdims=True)
    g = expand_reduced(g, x, axis, keepdims)
    up, down = x == high, x == low
    return g * (up / np.sum(up, axis=axis, keepdims=True) -
                down / np.sum(down, axis=axis, keepdims=True))


def _safe_divide(a, b):
    """``a / b``, and 0 where ``b`` is 0 (a norm's gradient at the origin)."""
    return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))


def _vector_norm_grad(g, ans, x, ord, axes):
    """``g`` and ``ans`` already broadcast against ``x``; ``axes`` the reduced ones."""
    if ord is None or ord == 2:
        return g * _safe_divide(x, ans)
    if ord == 1:
        return g * np.sign(x)
    if ord == 0:
        return np.zeros_like(g * x)
    if ord in (np.inf, -np.inf):
        hit = np.abs(x) == ans
        return g * np.sign(x) * hit / np.sum(hit, axis=axes, keepdims=True)
    p = float(ord)
    scaled = _safe_divide(np.abs(x), ans)
    return g * np.sign(x) * np.where(x == 0, 0.0, scaled ** (p - 1))


def norm_grad(g, ans, x, ord=None, axis=None, keepdims=False, matrix=None):
    """Adjoint of ``np.linalg.norm`` for vector and matrix norms (0 at the origin).

    ``matrix`` False: a vector norm over all of ``axis`` (``np.linalg.vector_norm``).
    """
    x = np.asarray(x)
    axes = _axes(axis, x.ndim)
    if matrix is None:
        matrix = ord is not None and x.ndim == 2 if axis is None else len(axes) == 2
    g = np.asarray(g)
    ans = np.asarray(ans)
    if not keepdims and axis is not None:
        g, ans = np.expand_dims(g, axes), np.expand_dims(ans, axes)
    elif not keepdims:
        g, ans = np.reshape(g, (1,) * x.ndim), np.reshape(ans, (1,) * x.ndim)
    if not matrix or ord in (None, "fro"):
        return _vector_norm_grad(g, ans, x, None if ord == "fro" else ord, axes)
    row, col = axes
    if ord in ("nuc", 2, -2):
        moved = np.moveaxis(x, (row, col), (-2, -1))
        u, s, vh = np.linalg.svd(moved, full_matrices=False)
        if ord == "nuc":
            inner = u @ vh
        else:
            k = 0 if ord == 2 else -1
            inner = u[..., :, k:k + 1 if k == 0 else None] @ vh[..., k:k + 1 if k == 0 else None, :]
        return g * np.moveaxis(inner, (-2, -1), (row, col))
    if ord in (1, -1, np.inf, -np.inf):
        summed = col if ord in (np.inf, -np.inf) else row  # sum |x| over this axis
        sums = np.sum(np.abs(x), axis=summed, keepdims=True)
        hit = sums == ans
        return g * np.sign(x) * hit / np.sum(hit, axis=axes, keepdims=True)
    raise NotImplementedError(f"s2sad: no gradient for np.linalg.norm with ord={ord!r}")


def diagonal_grad(g, x, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.diagonal``: ``g`` placed on that diagonal of zeros."""
    out = _zeros(x, g)
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))
    i = np.arange(np.shape(g)[-1] if np.ndim(g) else 1)
    view[..., i + max(-offset, 0), i + max(offset, 0)] = g
    return out


def trace_grad(g, x, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.trace``: ``g`` on the diagonal."""
    k = np.diagonal(x, offset, axis1, axis2).shape[-1]
    return diagonal_grad(np.expand_dims(g, -1) * np.ones(k, dtype=_float_type(x)), x, offset,
                         axis1, axis2)


def diag_grad(g, v, k=0):
    """Adjoint of ``np.diag``: the diagonal of ``g`` (1-d ``v``) or ``g`` placed on it (2-d)."""
    if np.ndim(v) == 1:
        return np.diagonal(g, k)
    return diagonal_grad(g, v, k)


def inner_grad(g, a, b, argnum):
    """Adjoint of ``np.inner(a, b)`` (contracting the last axes)."""
    this, other = (a, b) if argnum == 0 else (b, a)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * other, this)
    n_a = np.ndim(a) - 1
    g = np.asarray(g)
    if argnum == 0:
        return np.tensordot(g, b, axes=(list(range(n_a, g.ndim)), list(range(np.ndim(b) - 1))))
    return np.tensordot(g, a, axes=(list(range(n_a)), list(range(n_a))))


def kron_grad(g, a, b, argnum):
    """Adjoint of ``np.kron(a, b)`` with respect to ``a`` (0) or ``b`` (1)."""
    a, b = np.asarray(a), np.asarray(b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    pairs = np.reshape(g, [n for pair in zip(sa, sb) for n in pair])  # (a0, b0, a1, b1, ...)
    if argnum == 0:
        out = np.tensordot(pairs, np.reshape(b, sb), axes=(list(range(1, 2 * nd, 2)),
                                                           list(range(nd))))
        return np.reshape(out, a.shape)
    out = np.tensordot(np.reshape(a, sa), pairs, axes=(list(range(nd)), list(range(0, 2 * nd, 2))))
    return np.reshape(out, b.shape)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_labels(subscripts, shapes):
    """Each operand's labels and the output's, with ``...`` spelled out as letters."""
    if not isinstance(subscripts, str):
        raise NotImplementedError("s2sad differentiates np.einsum with a subscripts string "
                                  "('ij,jk->ik'), not the interleaved operand/list form")
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
    operands = [np.asarray(o) for o in operands if o is not None]
    labels, output, free = _einsum_labels(subscripts, [o.shape for o in operands])
    sizes: dict = {}
    for lab, o in zip(labels, operands):
        for c, n in zip(lab, o.shape):
            sizes[c] = max(sizes.get(c, 1), n)
    target, x = labels[argnum], operands[argnum]
    unique = "".join(dict.fromkeys(target))
    others = [(lab, o) for j, (lab, o) in enumerate(zip(labels, operands)) if j != argnum]
    seen = set(output).union(*[set(lab) for lab, _ in others])
    present = "".join(c for c in unique if c in seen)
    spec = ",".join([output] + [lab for lab, _ in others]) + "->" + present
    grad = np.einsum(spec, g, *[o for _, o in others])
    # labels summed within this operand alone: the sensitivity is the same all along them
    grad = np.broadcast_to(np.reshape(grad, [sizes[c] if c in present else 1 for c in unique]),
                           [sizes[c] for c in unique])
    if len(unique) != len(target):  # repeated labels: put the sensitivity on the diagonal
        renamed, eyes, specs = "", [], []
        for c in target:
            if c in renamed:
                new = free.pop(0)
                eyes.append(np.eye(sizes[c], dtype=grad.dtype))
                specs.append(c + new)
                c = new
            renamed += c
        grad = np.einsum(",".join([unique] + specs) + "->" + renamed, grad, *eyes)
    # operands broadcast along a length-1 axis: sum over it
    axes = tuple(k for k, n in enumerate(x.shape) if n == 1 and grad.shape[k] != 1)
    if axes:
        grad = np.sum(grad, axis=axes, keepdims=True)
    return grad


def solve_grad(g, ans, a, b, argnum):
    """Adjoint of ``np.linalg.solve(a, b)`` with respect to ``a`` (0) or ``b`` (1)."""
    a, ans = np.asarray(a), np.asarray(ans)
    a_t = np.swapaxes(a, -1, -2)
    if np.ndim(b) == 1:  # one right-hand side vector, shared by the stack of matrices
        gb = np.linalg.solve(a_t, np.asarray(g)[..., None])[..., 0]
        if argnum == 1:
            return unbroadcast(gb, b)
        return unbroadcast(-gb[..., :, None] * ans[..., None, :], a)
    gb = np.linalg.solve(a_t, g)
    if argnum == 1:
        return unbroadcast(gb, b)
    return unbroadcast(-gb @ np.swapaxes(ans, -1, -2), a)


def cholesky_grad(g, L):
    """Adjoint of ``L = np.linalg.cholesky(a)``, symmetric (``a`` is a symmetric matrix)."""
    g = np.tril(g)  # L's upper triangle is constant zero
    n = np.shape(L)[-1]
    inner = np.swapaxes(L, -1, -2) @ g
    phi = np.tril(inner) / (1.0 + np.eye(n, dtype=inner.dtype))
    l_inv = np.linalg.inv(L)
    s = np.swapaxes(l_inv, -1, -2) @ phi @ l_inv
    return (s + np.swapaxes(s, -1, -2)) / 2.0


def _sequence_like(parts, arrays):
    """The sensitivities of a sequence's items, as a list (an array if it was one)."""
    if isinstance(arrays, np.ndarray):
        return np.reshape(np.stack(parts), arrays.shape) if parts else np.zeros(arrays.shape)
    return list(parts)


def joined_grad(g, arrays, shapes, axis):
    """Adjoint of joining ``arrays`` (promoted to ``shapes``) along ``axis``."""
    if axis is None:
        sizes = [int(np.prod(s)) for s in shapes]
        pieces = np.split(np.ravel(g), np.cumsum(sizes)[:-1])
    else:
        sizes = [s[axis] for s in shapes]
        pieces = np.split(np.asarray(g), np.cumsum(sizes)[:-1], axis=axis)
    return _sequence_like([np.reshape(p, np.shape(a)) for p, a in zip(pieces, arrays)], arrays)


def concatenate_grad(g, arrays, axis=0):
    """Adjoint of ``np.concatenate(arrays, axis)``: ``g`` cut into the arrays' pieces."""
    return joined_grad(g, arrays, [np.shape(a) for a in arrays], axis)


def stack_grad(g, arrays, axis=0):
    """Adjoint of ``np.stack(arrays, axis)``."""
    return _sequence_like(list(np.moveaxis(np.asarray(g), axis, 0)), arrays)


def hstack_grad(g, arrays):
    shapes = [np.shape(np.atleast_1d(a)) for a in arrays]
    return joined_grad(g, arrays, shapes, 0 if len(shapes[0]) == 1 else 1)


def vstack_grad(g, arrays):
    return joined_grad(g, arrays, [np.shape(np.atleast_2d(a)) for a in arrays], 0)


def dstack_grad(g, arrays):
    return joined_grad(g, arrays, [np.shape(np.atleast_3d(a)) for a in arrays], 2)


def column_stack_grad(g, arrays):
    shapes = [np.shape(a) if np.ndim(a) >= 2 else (np.size(a), 1) for a in arrays]
    return joined_grad(g, arrays, shapes, 1)


def split_grad(g, ans, axis=0):
    """Adjoint of ``np.split`` and friends: the pieces' sensitivities joined again."""
    parts = [np.broadcast_to(p, np.shape(a)) for p, a in zip(g, ans, strict=True)]
    return np.concatenate(parts, axis=axis)


def tile_grad(g, x, reps):
    """Adjoint of ``np.tile(x, reps)``: the copies' sensitivities summed."""
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    d = max(len(reps), np.ndim(x))
    shape = (1,) * (d - np.ndim(x)) + np.shape(x)
    reps = (1,) * (d - len(reps)) + reps
    pairs = np.reshape(g, [n for pair in zip(reps, shape) for n in pair])
    return np.reshape(np.sum(pairs, axis=tuple(range(0, 2 * d, 2))), np.shape(x))


def repeat_grad(g, x, repeats, axis=None):
    """Adjoint of ``np.repeat``: each entry gets the sum of its copies' sensitivities."""
    x = np.asarray(x)
    g = np.asarray(g)
    if axis is None:
        base, g, axis = np.ravel(x), np.ravel(g), 0
    else:
        base, axis = x, axis % x.ndim
    n = base.shape[axis]
    index = np.repeat(np.arange(n), np.broadcast_to(repeats, (n,)))
    rest = tuple(s for k, s in enumerate(base.shape) if k != axis)
    out = np.zeros((n,) + rest, dtype=np.result_type(_float_type(x), g))
    np.add.at(out, index, np.moveaxis(g, axis, 0))
    return np.reshape(np.moveaxis(out, 0, axis), x.shape)


def _pad_widths(x, pad_width):
    return np.broadcast_to(np.asarray(pad_width, dtype=int), (np.ndim(x), 2))


def _pad_interior(x, pad_width):
    widths = _pad_widths(x, pad_width)
    return tuple(slice(int(b), int(b) + n) for (b, _), n in zip(widths, np.shape(x)))


def pad_grad(g, x, pad_width, mode="constant", reflect_type="even"):
    """Adjoint of ``np.pad`` for the modes that copy entries of ``x``."""
    if mode in ("constant", "empty"):
        return np.asarray(g)[_pad_interior(x, pad_width)]
    if mode not in ("edge", "wrap", "reflect", "symmetric") or reflect_type != "even":
        raise NotImplementedError(f"s2sad: no gradient for np.pad with mode={mode!r}"
                                  + (f", reflect_type={reflect_type!r}"
                                     if reflect_type != "even" else ""))
    index = np.pad(np.arange(np.size(x)).reshape(np.shape(x)), pad_width, mode=mode)
    out = np.zeros(np.size(x), dtype=np.result_type(_float_type(x), np.asarray(g).dtype))
    np.add.at(out, np.ravel(index), np.ravel(g))
    return np.reshape(out, np.shape(x))


def pad_values_grad(g, x, pad_width, constant_values):
    """Adjoint of ``np.pad(x, ..., constant_values=c)`` with respect to a scalar ``c``."""
    if np.ndim(constant_values) != 0:
        raise NotImplementedError("s2sad: the gradient of np.pad with respect to "
                                  "constant_values is only for one scalar value")
    return np.sum(g) - np.sum(np.asarray(g)[_pad_interior(x, pad_width)])


def diff_grad(g, x, n=1, axis=-1):
    """Adjoint of ``np.diff(x, n, axis)``."""
    for _ in range(n):
        g = -np.diff(g, axis=axis, prepend=0.0, append=0.0)
    return g


def take_grad(g, x, indices, axis=None, mode="raise"):
    """Adjoint of ``np.take``: repeated indices accumulate."""
    x = np.asarray(x)
    out = _zeros(x, g)
    target = np.reshape(out, -1) if axis is None else np.moveaxis(out, axis, 0)
    n = target.shape[0]
    index = np.asarray(indices)
    if mode == "wrap":
        index = np.mod(index, n)
    elif mode == "clip":
        index = np.clip(index, 0, n - 1)
    g = np.asarray(g)
    if axis is not None:
        axis = axis % x.ndim
        g = np.moveaxis(g, list(range(axis, axis + index.ndim)), list(range(index.ndim)))
    np.add.at(target, index, g)
    return out


def take_along_axis_grad(g, x, indices, axis=-1):
    """Adjoint of ``np.take_along_axis``: repeated indices accumulate."""
    x = np.asarray(x)
    out = _zeros(x, g)
    if axis is None:
        np.add.at(np.reshape(out, -1), indices, g)
        return out
    axis = axis % x.ndim
    index = []
    for d, n in enumerate(x.shape):
        if d == axis:
            index.append(np.asarray(indices))
        else:
            shape = [1] * x.ndim
            shape[d] = n
            index.append(np.arange(n).reshape(shape))
    np.add.at(out, tuple(index), g)
    return out


def sort_grad(g, x, axis=-1):
    """Adjoint of ``np.sort``: each sorted value's sensitivity goes back to its entry."""
    x = np.asarray(x)
    out = _zeros(x, g)
    if axis is None:
        np.reshape(out, -1)[np.argsort(np.ravel(x), kind="stable")] = np.ravel(g)
        return out
    np.put_along_axis(out, np.argsort(x, axis=axis, kind="stable"), g, axis)
    return out


def choose_grad(g, a, choices, mode="raise"):
    """Adjoint of ``np.choose(a, choices)`` with respect to ``choices``."""
    n = len(choices)
    index = np.asarray(a)
    if mode == "wrap":
        index = np.mod(index, n)
    elif mode == "clip":
        index = np.clip(index, 0, n - 1)
    parts = [unbroadcast(np.where(index == i, g, 0.0), c) for i, c in enumerate(choices)]
    return _sequence_like(parts, choices)


def clip_grad(g, a, low, high, argnum):
    """Adjoint of ``np.clip(a, low, high)`` = ``minimum(maximum(a, low), high)`` with
    respect to ``a`` (0), ``low`` (1) or ``high`` (2); at a tie the gradient goes to ``a``."""
    raised = a if low is None else np.maximum(a, low)
    under = True if high is None else raised <= high
    if argnum == 0:
        inside = under if low is None else under & (a >= low)
        return unbroadcast(np.where(inside, g, 0.0), a)
    if argnum == 1:
        return unbroadcast(np.where(under & (a < low), g, 0.0), low)
    return unbroadcast(np.where(raised > high, g, 0.0), high)


def linspace_grad(g, x, num=50, endpoint=True, axis=0, end=False):
    """Adjoint of ``np.linspace(start, stop, num)`` with respect to ``start`` or ``stop``
    (``end``): each value is ``start + t (stop - start)``."""
    t = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    weights = t if end else 1.0 - t
    g = np.moveaxis(np.asarray(g), axis, -1)
    return unbroadcast(g @ weights.astype(np.result_type(g, 1.0)), x)


def vecdot_grad(g, other, x, axis=-1, keepdims=False):
    """Adjoint of ``np.vecdot(x, other)`` (or of ``other, x``) with respect to ``x``."""
    if not keepdims:
        g = np.expand_dims(g, axis)
    return unbroadcast(g * other, x)
