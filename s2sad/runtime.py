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
