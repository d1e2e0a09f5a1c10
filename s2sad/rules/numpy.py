"""Derivative rules for NumPy, in the manner of autograd's table.

Each rule returns the sensitivity of each differentiable argument in order. The
compiler inlines the returned expression; ``np`` becomes the array module of the
target and ``unbroadcast(e, x)`` disappears where the shapes are known to match.
"""

import numpy as np

from ..registry import defvjp, nondifferentiable
from ..runtime import (dot_grad_left, dot_grad_right, extremum_grad, matmul_grad_left,
                       matmul_grad_right, reduced_size, sum_grad, tensordot_grad,
                       transpose_grad, unbroadcast)

# --- elementwise, one argument -------------------------------------------------


@defvjp(np.negative)
def negative(g, ans, x):
    return -g


@defvjp(np.positive)
def positive(g, ans, x):
    return g


@defvjp(np.sin)
def sin(g, ans, x):
    return g * np.cos(x)


@defvjp(np.cos)
def cos(g, ans, x):
    return -g * np.sin(x)


@defvjp(np.tan)
def tan(g, ans, x):
    return g / np.cos(x) ** 2


@defvjp(np.exp)
def exp(g, ans, x):
    return g * ans


@defvjp(np.log)
def log(g, ans, x):
    return g / x


@defvjp(np.sqrt)
def sqrt(g, ans, x):
    return g * 0.5 / ans


@defvjp(np.tanh)
def tanh(g, ans, x):
    return g * (1.0 - ans ** 2)


@defvjp(np.abs, np.absolute, abs)
def absolute(g, ans, x):
    return g * np.sign(x)


@defvjp(np.square)
def square(g, ans, x):
    return g * 2.0 * x


# --- elementwise, two arguments (broadcasting) --------------------------------


@defvjp(np.add)
def add(g, ans, x, y):
    return unbroadcast(g, x), unbroadcast(g, y)


@defvjp(np.subtract)
def subtract(g, ans, x, y):
    return unbroadcast(g, x), unbroadcast(-g, y)


@defvjp(np.multiply)
def multiply(g, ans, x, y):
    return unbroadcast(y * g, x), unbroadcast(x * g, y)


@defvjp(np.true_divide, np.divide)
def divide(g, ans, x, y):
    return unbroadcast(g / y, x), unbroadcast(-g * ans / y, y)


@defvjp(np.power)
def power(g, ans, x, y):
    return (unbroadcast(g * y * x ** (y - 1), x),
            unbroadcast(g * ans * np.log(np.where(x > 0, x, 1.0)), y))


@defvjp(np.maximum)
def maximum(g, ans, x, y):
    return (unbroadcast(g * np.where(x == y, 0.5, x > y), x),
            unbroadcast(g * np.where(x == y, 0.5, y > x), y))


@defvjp(np.minimum)
def minimum(g, ans, x, y):
    return (unbroadcast(g * np.where(x == y, 0.5, x < y), x),
            unbroadcast(g * np.where(x == y, 0.5, y < x), y))


# --- reductions ------------------------------------------------------------------


@defvjp(np.sum, shape="reduce")
def sum(g, ans, x, axis=None, dtype=None, out=None, keepdims=False):
    return sum_grad(g, x, axis, keepdims)


@defvjp(np.mean, shape="reduce")
def mean(g, ans, x, axis=None, dtype=None, out=None, keepdims=False):
    return sum_grad(g, x, axis, keepdims) / reduced_size(x, axis)


@defvjp(np.max, np.amax, shape="reduce")
def max(g, ans, x, axis=None, out=None, keepdims=False):
    return extremum_grad(g, ans, x, axis, keepdims)


@defvjp(np.min, np.amin, shape="reduce")
def min(g, ans, x, axis=None, out=None, keepdims=False):
    return extremum_grad(g, ans, x, axis, keepdims)


# --- linear algebra -----------------------------------------------------------------


@defvjp(np.dot, shape="other")
def dot(g, ans, x, y):
    return dot_grad_left(g, x, y), dot_grad_right(g, x, y)


@defvjp(np.matmul, shape="other")
def matmul(g, ans, x, y):
    return matmul_grad_left(g, x, y), matmul_grad_right(g, x, y)


@defvjp(np.tensordot, shape="other")
def tensordot(g, ans, x, y, axes=2):
    return tensordot_grad(g, x, y, axes, 0), tensordot_grad(g, x, y, axes, 1)


@defvjp(np.transpose, shape="other")
def transpose(g, ans, x, axes=None):
    return transpose_grad(g, axes)


# --- no derivative -----------------------------------------------------------------

nondifferentiable(np.sign, np.floor, np.ceil, np.round, np.rint, np.trunc, np.floor_divide,
                  np.mod, np.remainder, np.logical_not, shape="elementwise")
nondifferentiable(np.greater, np.greater_equal, np.less, np.less_equal, np.equal,
                  np.not_equal, np.isnan, np.isfinite, np.isinf, shape="elementwise")
nondifferentiable(np.shape, np.ndim, np.size, np.zeros, np.ones, np.empty, np.full,
                  np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.arange,
                  np.linspace, np.eye, np.argmax, np.argmin, np.argsort)

# stop_gradient is the identity with no gradient
from ..api import stop_gradient  # noqa: E402

nondifferentiable(stop_gradient, shape="elementwise")
