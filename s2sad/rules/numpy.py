"""Derivative rules for NumPy's elementwise functions, reductions and array creation.

Each rule returns the sensitivity of each differentiable argument in order (``None``
for none). The compiler inlines the returned expression; ``np`` becomes the array
module of the target and ``unbroadcast(e, x)`` disappears where the shapes are known
to match. Shape manipulation is in ``numpy_shape.py``, linear algebra in
``numpy_linalg.py``.

Conventions, where the derivative does not exist:

* ``abs``/``fabs``/``sign`` of 0, ``norm`` at the origin: 0 (a subgradient);
* ``maximum``/``minimum``/``fmax``/``fmin`` at a tie: half to each argument;
  ``max``/``min`` reductions: shared equally by the tied entries;
* ``clip`` at a bound: the gradient goes to the clipped value, not the bound;
* integer-valued functions (``floor``, ``round``, ``sign``, comparisons...): 0
  everywhere (they are registered as having no derivative);
* ``heaviside(x1, x2)``: ``d/dx2`` is 1 where ``x1`` is 0 (``x2`` is the value there);
* ``mod``/``remainder``/``fmod``: ``d/dx = 1`` and ``d/dy = -floor(x / y)``
  (``-trunc(x / y)`` for ``fmod``), away from the jumps.

>>> import numpy as np
>>> from s2sad import registry
>>> registry.lookup(np.arcsinh).adjoint(1.0, np.arcsinh(0.75), 0.75)
np.float64(0.8)
>>> registry.lookup(np.prod).adjoint(1.0, 0.0, np.array([2.0, 0.0, 5.0]))
array([ 0., 10.,  0.])
"""

import math

import numpy as np

from ..registry import (defdtype, deffacts, defresult, deftangent, defvjp, nondifferentiable,
                        refuse_function, refuse_values, refuse_varying)
from ..runtime import (average_grad, clip_grad, cumprod_grad, cumsum_grad, extremum_grad,
                       linspace_grad, list_grad, list_tangent, nanmean_grad, nansum_grad,
                       norm_grad, prod_grad, ptp_grad, reduced_size, scaled_power, std_grad,
                       sum_grad, unbroadcast, var_grad)

# --- elementwise, one argument -------------------------------------------------


@defvjp(np.negative)
def negative(g, ans, x):
    return -g


@defvjp(np.positive)
def positive(g, ans, x):
    return g


# (NumPy refuses `-` of bools: TypeError; +, -, *, / hold for complex values too)
deffacts(np.negative, np.positive, raises=("broadcast", "bool"))


@defvjp(np.sin)
def sin(g, ans, x):
    return g * np.cos(x)


@defvjp(np.cos)
def cos(g, ans, x):
    return -g * np.sin(x)


@defvjp(np.tan)
def tan(g, ans, x):
    return g / np.cos(x) ** 2


@defvjp(np.arcsin)
def arcsin(g, ans, x):
    return g / np.sqrt(1.0 - x ** 2)


@defvjp(np.arccos)
def arccos(g, ans, x):
    return -g / np.sqrt(1.0 - x ** 2)


@defvjp(np.arctan)
def arctan(g, ans, x):
    return g / (1.0 + x ** 2)


@defvjp(np.sinh)
def sinh(g, ans, x):
    return g * np.cosh(x)


@defvjp(np.cosh)
def cosh(g, ans, x):
    return g * np.sinh(x)


@defvjp(np.tanh)
def tanh(g, ans, x):
    return g * (1.0 - ans ** 2)


@defvjp(np.arcsinh)
def arcsinh(g, ans, x):
    return g / np.sqrt(x ** 2 + 1.0)


@defvjp(np.arccosh)
def arccosh(g, ans, x):
    return g / np.sqrt(x ** 2 - 1.0)


@defvjp(np.arctanh)
def arctanh(g, ans, x):
    return g / (1.0 - x ** 2)


@defvjp(np.exp)
def exp(g, ans, x):
    return g * ans


@defvjp(np.exp2)
def exp2(g, ans, x):
    return g * ans * math.log(2.0)


@defvjp(np.expm1)
def expm1(g, ans, x):
    return g * (ans + 1.0)


@defvjp(np.log)
def log(g, ans, x):
    return g / x


@defvjp(np.log2)
def log2(g, ans, x):
    return g / (x * math.log(2.0))


@defvjp(np.log10)
def log10(g, ans, x):
    return g / (x * math.log(10.0))


@defvjp(np.log1p)
def log1p(g, ans, x):
    return g / (1.0 + x)


@defvjp(np.sqrt)
def sqrt(g, ans, x):
    return g * 0.5 / ans


@defvjp(np.cbrt)
def cbrt(g, ans, x):
    return g / (3.0 * ans ** 2)


@defvjp(np.square)
def square(g, ans, x):
    return g * 2.0 * x


@defvjp(np.reciprocal)
def reciprocal(g, ans, x):
    return -g * ans ** 2


@defvjp(np.abs, np.absolute, np.fabs, abs)
def absolute(g, ans, x):
    return g * np.sign(x)


@defvjp(np.deg2rad, np.radians)
def deg2rad(g, ans, x):
    return g * (math.pi / 180.0)


@defvjp(np.rad2deg, np.degrees)
def rad2deg(g, ans, x):
    return g * (180.0 / math.pi)


@defvjp(np.sinc)
def sinc(g, ans, x):
    # d/dx sin(pi x) / (pi x) = (cos(pi x) - sinc(x)) / x, which is 0 at x = 0
    return g * np.where(np.equal(x, 0), 0.0,
                        (np.cos(math.pi * x) - ans) / np.where(np.equal(x, 0), 1.0, x))


@defvjp(np.conjugate, np.conj)
def conjugate(g, ans, x):
    return np.conj(g)


@defvjp(np.real)
def real(g, ans, val):
    return g


@defvjp(np.nan_to_num)
def nan_to_num(g, ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    # each entry replaced is the value given for it
    return (g * np.isfinite(x), None, unbroadcast(g * np.isnan(x), nan),
            unbroadcast(g * np.isposinf(x), posinf), unbroadcast(g * np.isneginf(x), neginf))


# --- elementwise, two or three arguments (broadcasting) ------------------------


@defvjp(np.add)
def add(g, ans, x, y):
    return unbroadcast(g, x), unbroadcast(g, y)


@defvjp(np.subtract)
def subtract(g, ans, x, y):
    return unbroadcast(g, x), unbroadcast(-g, y)


deffacts(np.add, np.multiply, np.true_divide, np.divide, raises="broadcast")
deffacts(np.subtract, raises=("broadcast", "bool"))


@defvjp(np.multiply)
def multiply(g, ans, x, y):
    return unbroadcast(y * g, x), unbroadcast(x * g, y)


@defvjp(np.true_divide, np.divide)
def divide(g, ans, x, y):
    return unbroadcast(g / y, x), unbroadcast(-g * ans / y, y)


@defvjp(np.power, pow)
def power(g, ans, x, y):
    # the slope y * x ** (y - 1), 0 where y is 0 (x ** 0 is 1, even at x = 0)
    return (unbroadcast(g * scaled_power(y, x, y - 1), x),
            unbroadcast(g * ans * np.log(np.where(np.greater(x, 0), x, 1.0)), y))


# (integers to a negative integer power: ValueError; Python's 0.0 ** -1: dead_code.may_raise)
deffacts(np.power, pow, raises=("broadcast", "integer"))


@defvjp(np.float_power)
def float_power(g, ans, x, y):
    return (unbroadcast(g * scaled_power(y, np.float_power(x, 1.0), y - 1), x),
            unbroadcast(g * ans * np.log(np.where(np.greater(x, 0), x, 1.0)), y))


@defvjp(np.maximum)
def maximum(g, ans, x, y):
    return (unbroadcast(g * np.where(np.equal(x, y), 0.5, x > y), x),
            unbroadcast(g * np.where(np.equal(x, y), 0.5, y > x), y))


@defvjp(np.minimum)
def minimum(g, ans, x, y):
    return (unbroadcast(g * np.where(np.equal(x, y), 0.5, x < y), x),
            unbroadcast(g * np.where(np.equal(x, y), 0.5, y < x), y))


@defvjp(np.fmax)
def fmax(g, ans, x, y):
    # like maximum, but a NaN loses
    return (unbroadcast(g * np.where(np.equal(x, y), 0.5, (x > y) | np.isnan(y)), x),
            unbroadcast(g * np.where(np.equal(x, y), 0.5, (y > x) | np.isnan(x)), y))


@defvjp(np.fmin)
def fmin(g, ans, x, y):
    return (unbroadcast(g * np.where(np.equal(x, y), 0.5, (x < y) | np.isnan(y)), x),
            unbroadcast(g * np.where(np.equal(x, y), 0.5, (y < x) | np.isnan(x)), y))


@defvjp(np.hypot)
def hypot(g, ans, x, y):
    scale = g / np.where(ans == 0, 1.0, ans)  # 0 at the origin
    return unbroadcast(scale * x, x), unbroadcast(scale * y, y)


@defvjp(np.arctan2)
def arctan2(g, ans, y, x):
    scale = g / (x ** 2 + y ** 2)
    return unbroadcast(scale * x, y), unbroadcast(-scale * y, x)


@defvjp(np.logaddexp)
def logaddexp(g, ans, x, y):
    return unbroadcast(g * np.exp(x - ans), x), unbroadcast(g * np.exp(y - ans), y)


@defvjp(np.logaddexp2)
def logaddexp2(g, ans, x, y):
    return unbroadcast(g * np.exp2(x - ans), x), unbroadcast(g * np.exp2(y - ans), y)


@defvjp(np.copysign)
def copysign(g, ans, x, y):
    # |x| with the sign of y: d/dx is +1 where x already has y's sign, else -1
    return unbroadcast(g * np.where(np.signbit(x) == np.signbit(y), 1.0, -1.0), x), None


@defvjp(np.mod, np.remainder)
def mod(g, ans, x, y):
    # x % y = x - floor(x / y) * y
    return unbroadcast(g, x), unbroadcast(-g * np.floor_divide(x, y), y)


@defvjp(np.divmod, divmod, shape="sequence")
def divmod_rule(g, ans, x, y):
    # (x // y, x % y): the quotient is piecewise constant, the rest is x - q * y
    return unbroadcast(g[1], x), unbroadcast(-g[1] * ans[0], y)


@deftangent(np.divmod, divmod)
def divmod_tangent(g, ans, x, y):
    return [g * 0.0, g], [g * 0.0, -g * ans[0]]


@defvjp(np.modf, math.modf, shape="sequence")
def modf(g, ans, x):
    # (the fractional part, the integral part), both with x's sign: x - trunc(x) and trunc(x)
    return g[0]


@deftangent(np.modf, math.modf)
def modf_tangent(g, ans, x):
    return [g, g * 0.0]


@defvjp(np.fmod)
def fmod(g, ans, x, y):
    # fmod(x, y) = x - trunc(x / y) * y
    return unbroadcast(g, x), unbroadcast(-g * np.trunc(x / y), y)


@defvjp(np.ldexp)
def ldexp(g, ans, x, i):
    return unbroadcast(g * np.ldexp(1.0, i), x), None


deffacts(np.ldexp, raises="values")  # (a float exponent: TypeError)


@defvjp(np.heaviside)
def heaviside(g, ans, x1, x2):
    # 0 or 1, but x2 where x1 is 0
    return None, unbroadcast(g * np.equal(x1, 0), x2)


@defvjp(np.where)
def where(g, ans, condition, x=None, y=None):
    return (None, unbroadcast(np.where(condition, g, 0.0), x),
            unbroadcast(np.where(condition, 0.0, g), y))


@defvjp(np.clip)
def clip(g, ans, a, a_min=None, a_max=None, out=None, min=None, max=None):
    return (clip_grad(g, a, a_min if min is None else min, a_max if max is None else max, 0),
            clip_grad(g, a, a_min, a_max, 1), clip_grad(g, a, a_min, a_max, 2), None,
            clip_grad(g, a, min, max, 1), clip_grad(g, a, min, max, 2))


# --- reductions --------------------------------------------------------------------


@defvjp(np.sum, shape="reduce")
def sum(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    # where=: the entries left out have no derivative (nor their NaNs: np.where, no product)
    return (sum_grad(g, x, axis, keepdims) if where is None else
            np.where(where, sum_grad(g, x, axis, keepdims), 0.0),
            None, None, None, None, np.sum(g), None)


defdtype(np.sum, position=2)
deffacts(np.sum, fresh=True)  # (a new array or a NumPy scalar; given out=, out: not fresh)
# (an empty array: 0.0, nan, 1.0, nan: warned, not raised; np.max, np.ptp of one raise)
deffacts(np.sum, np.mean, np.prod, np.var, np.std, np.nansum, np.nanmean, raises="axis")


@defvjp(np.mean, shape="reduce")
def mean(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, where=None):
    # where=: the mean of the entries kept, so many in each slice
    return (sum_grad(g, x, axis, keepdims) / reduced_size(x, axis) if where is None else
            np.where(where, sum_grad(g / np.sum(np.broadcast_to(where, np.shape(x)), axis=axis,
                                                keepdims=keepdims), x, axis, keepdims), 0.0))


defdtype(np.mean, position=2)


@defvjp(np.prod, shape="reduce")
def prod(g, ans, a, axis=None, dtype=None, out=None, keepdims=False):
    return prod_grad(g, a, axis, keepdims)


defdtype(np.prod, position=2)


deffacts(np.max, np.amax, np.min, np.amin, extremum=True)
# (an index array: x[idx] is a copy; np.where(c, a, b) may be 0-d, an integer's view)
deffacts(np.arange, np.argsort, np.flatnonzero, np.argwhere, np.nonzero, index_array="always")
deffacts(np.array, np.asarray, index_array="of a list")


@defvjp(np.max, np.amax, np.nanmax, shape="reduce")
def max(g, ans, x, axis=None, out=None, keepdims=False):
    return extremum_grad(g, ans, x, axis, keepdims)


@defvjp(np.min, np.amin, np.nanmin, shape="reduce")
def min(g, ans, x, axis=None, out=None, keepdims=False):
    return extremum_grad(g, ans, x, axis, keepdims)


@defvjp(np.ptp, shape="reduce")
def ptp(g, ans, a, axis=None, out=None, keepdims=False):
    return ptp_grad(g, a, axis, keepdims)


@defvjp(np.var, shape="reduce")
def var(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, correction=None):
    # the sum of squares over n - ddof: ddof (or correction) divides it
    return (var_grad(g, a, axis, ddof if correction is None else correction, keepdims), None,
            None, None,
            unbroadcast(g * ans / (reduced_size(a, axis) -
                                   (ddof if correction is None else correction)), ddof), None,
            unbroadcast(g * ans / (reduced_size(a, axis) -
                                   (ddof if correction is None else correction)), correction))


defdtype(np.var, position=2)


@defvjp(np.std, shape="reduce")
def std(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, correction=None):
    return (std_grad(g, ans, a, axis, ddof if correction is None else correction, keepdims),
            None, None, None,
            unbroadcast(g * ans * 0.5 / (reduced_size(a, axis) -
                                         (ddof if correction is None else correction)), ddof),
            None,
            unbroadcast(g * ans * 0.5 / (reduced_size(a, axis) -
                                         (ddof if correction is None else correction)),
                        correction))


defdtype(np.std, position=2)


@defvjp(np.nansum, shape="reduce")
def nansum(g, ans, a, axis=None, dtype=None, out=None, keepdims=False):
    return nansum_grad(g, a, axis, keepdims)


defdtype(np.nansum, position=2)


@defvjp(np.nanmean, shape="reduce")
def nanmean(g, ans, a, axis=None, dtype=None, out=None, keepdims=False):
    return nanmean_grad(g, a, axis, keepdims)


defdtype(np.nanmean, position=2)


@defvjp(np.average, shape="other")
def average(g, ans, a, axis=None, weights=None, returned=False, *, keepdims=False):
    return (average_grad(g, a, axis, weights, keepdims, 0), None,
            average_grad(g, a, axis, weights, keepdims, 1))


# (returned is NumPy's fourth parameter, keepdims a keyword: np.average(x, 0, w, True))
refuse_values(np.average, "returned", (False,),
              "Take the sum of the weights apart: np.average(a, axis, w) and "
              "np.sum(np.broadcast_to(w, np.shape(a)), axis), or w.sum(axis) for weights "
              "shaped like a.")


@defvjp(np.cumsum, shape="other")
def cumsum(g, ans, a, axis=None, dtype=None, out=None):
    return cumsum_grad(g, a, axis)


defdtype(np.cumsum, position=2)


@defvjp(np.cumprod, shape="other")
def cumprod(g, ans, a, axis=None, dtype=None, out=None):
    return cumprod_grad(g, ans, a, axis)


defdtype(np.cumprod, position=2)


@defvjp(np.linalg.norm, shape="reduce")
def norm(g, ans, x, ord=None, axis=None, keepdims=False):
    return norm_grad(g, ans, x, ord, axis, keepdims)


if hasattr(np.linalg, "vector_norm"):  # NumPy >= 2.0
    @defvjp(np.linalg.vector_norm, shape="reduce")
    def vector_norm(g, ans, x, axis=None, keepdims=False, ord=2):
        return norm_grad(g, ans, x, ord, axis, keepdims, False)

    @defvjp(np.linalg.matrix_norm, shape="other")
    def matrix_norm(g, ans, x, keepdims=False, ord="fro"):
        return norm_grad(g, ans, x, ord, (-2, -1), keepdims)


_WRITE_NORM = ("Write the norm out to differentiate it in its order p "
               "(np.sum(np.abs(x) ** p) ** (1.0 / p)), or wrap the order in "
               "s2sad.stop_gradient() if its derivative should not flow.")
refuse_varying(np.linalg.norm, ord=_WRITE_NORM)
if hasattr(np.linalg, "vector_norm"):
    refuse_varying(np.linalg.vector_norm, np.linalg.matrix_norm, ord=_WRITE_NORM)


# --- array creation: only the fill values are differentiable ----------------------


@defvjp(np.full, shape="other")
def full(g, ans, shape, fill_value, dtype=None, order="C"):
    return None, unbroadcast(g, fill_value)


defdtype(np.full, position=2)


@defvjp(np.full_like, shape="other")
def full_like(g, ans, a, fill_value, dtype=None, order="K", subok=True, shape=None):
    return None, unbroadcast(g, fill_value)


defdtype(np.full_like, position=2)


@defvjp(np.linspace, shape="other")
def linspace(g, ans, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    return (linspace_grad(g, start, num, endpoint, axis, False),
            linspace_grad(g, stop, num, endpoint, axis, True))


defdtype(np.linspace, position=5)  # (NumPy's: retstep is at 4)
refuse_values(np.linspace, "retstep", (False,),
              "Compute the step yourself: (stop - start) / (num - 1), or / num without "
              "the endpoint.")


@defvjp(np.arange, shape="other")
def arange(g, ans, start, stop=None, step=None, dtype=None):
    # the values are start + i * step; stop only decides how many there are
    return (None if stop is None else np.sum(g), None,
            None if step is None else np.sum(g * np.arange(np.size(ans))))


defdtype(np.arange, position=3)


# --- no derivative -----------------------------------------------------------------

nondifferentiable(np.sign, np.floor, np.ceil, np.round, np.around, np.rint, np.trunc, np.fix,
                  np.floor_divide, np.signbit, np.logical_not, np.logical_and,
                  np.logical_or, np.logical_xor, np.invert, np.bitwise_and, np.bitwise_or,
                  np.bitwise_xor, np.left_shift, np.right_shift, shape="elementwise")
deffacts(np.invert, np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift,
         np.right_shift, raises="values")  # (of floats: TypeError)
deffacts(np.sign, np.clip, raises=("broadcast", "bool"))  # (of bools: TypeError)
nondifferentiable(np.greater, np.greater_equal, np.less, np.less_equal, np.equal,
                  np.not_equal, np.isnan, np.isfinite, np.isinf, np.isposinf, np.isneginf,
                  np.isclose, shape="elementwise")
nondifferentiable(np.ndim, np.size, np.allclose, np.array_equal, np.count_nonzero, np.any,
                  np.all, shape="reduce")
nondifferentiable(np.shape, np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like,
                  np.empty_like, np.eye, np.identity, np.tri, np.argmax, np.argmin,
                  np.nanargmax, np.nanargmin, np.argsort, np.argwhere, np.nonzero,
                  np.flatnonzero, np.searchsorted, np.digitize, np.indices, np.result_type)
# (their dtype says which arrays hold integers: a value stored into one loses its derivative)
defdtype(np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like,
         np.identity, np.indices, position=1)
defdtype(np.eye, np.tri, position=3)
# their first argument is a shape, a number or a Python sequence by design: the CuPy target
# does not make it an array of the device for them
deffacts(np.zeros, np.ones, np.empty, np.full, np.arange, np.linspace, np.logspace,
         np.geomspace, np.eye, np.identity, np.tri, np.array, np.asarray, np.asanyarray,
         np.ascontiguousarray, np.indices, np.concatenate, np.stack, np.hstack, np.vstack,
         np.dstack, np.column_stack, np.block, np.einsum, builds=True)
deffacts(np.zeros, np.ones, np.empty, np.full, shape_from=0)  # (a new array of that shape)
# a new array of their own memory (view_writes: a write through a view of it is a write into
# it); "C": in C order unless the call gives an order (by position: order_at), so that its
# reshape is a view
deffacts(np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.array, np.copy,
         np.linspace, allocates="new")  # (np.linspace(a, b, 3, axis=1): not in C order)
deffacts(np.zeros_like, np.ones_like, np.empty_like, np.full_like, shaped_like=0)
deffacts(np.zeros, np.ones, np.empty, np.full, np.eye, np.identity, np.arange,
         allocates="C")
deffacts(np.zeros, np.ones, np.empty, order_at=2)
deffacts(np.full, order_at=3)
deffacts(np.eye, order_at=4)
# what they give is an ndarray, whatever array subclass they are given (np.matrix, a masked
# array: resolve.foreign_argument), unless asked to keep it with subok=True
deffacts(np.asarray, np.array, np.ascontiguousarray, np.asfortranarray, converts=True)


def stop_gradient(x):
    """``x`` itself, with no gradient flowing through it (the seed's ``detach``).

    >>> stop_gradient(3.0)
    3.0
    """
    return x


# (s2sad.stop_gradient: defined beside its facts, the identity with no gradient)
nondifferentiable(stop_gradient, shape="elementwise")
deffacts(stop_gradient, returns_view_of=(0,))  # (x itself)

# the kind of their result's dtype where no dtype argument sets it, as NumPy makes it
# (a value stored into an integer or bool array is truncated: no derivative flows)
defresult(np.zeros, np.ones, np.empty, np.eye, np.identity, np.tri, np.linspace, np.mean,
          np.nanmean, np.var, np.std, np.average, kind="f")
defresult(np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort, np.argwhere, np.nonzero,
          np.flatnonzero, np.searchsorted, np.digitize, np.indices, np.count_nonzero, np.ndim,
          np.size, np.shape, kind="i")
defresult(np.allclose, np.array_equal, np.any, np.all, np.isclose, kind="b")
defresult(np.zeros_like, np.ones_like, np.full_like, follows=[("a", 0)])
defresult(np.empty_like, follows=[("prototype", 0)])
defresult(np.full, follows=[("fill_value", 1)])
defresult(np.arange, follows=[("start", 0), ("stop", 1), ("step", 2)])
defresult(np.sum, np.prod, np.cumsum, np.cumprod, np.max, np.min, np.amax, np.amin,
          follows=[("a", 0)])
defresult(np.where, follows=[("x", 1), ("y", 2)])
defresult(np.clip, follows=[("a", 0), ("a_min", 1), ("a_max", 2)])

# --- array methods and attributes: the NumPy function each one is, the array first ---------
# (x.sum(axis=0) is np.sum(x, axis=0), x.T is np.transpose(x): one rule serves both)
for _name in ("sum", "mean", "prod", "max", "min", "dot", "transpose", "std", "var", "cumsum",
              "cumprod", "clip", "ravel", "squeeze", "reshape", "conj", "conjugate", "argmax",
              "argmin", "argsort", "nonzero", "any", "all", "round", "swapaxes", "repeat",
              "take", "diagonal", "trace", "copy", "real"):
    deffacts(getattr(np.ndarray, _name), method=_name)
deffacts(np.ndarray.reshape, np.ndarray.transpose, varargs=True)  # (x.reshape(2, 3))
deffacts(np.ndarray.T, method="transpose")
deffacts(np.ndarray.flatten, method="ravel")  # (copy semantics aside: the same values)
# np.astype is NumPy >= 2.1; before, np.asarray(x, dtype) has the same values
deffacts(np.ndarray.astype, method="astype" if hasattr(np, "astype") else "asarray")


# x.tolist(): nested lists of Python numbers, each an item of x; their sensitivities go back
# into x's shape (resolve.classify finds the method on a value s2sad differentiates)
@defvjp(np.ndarray.tolist, shape="other")
def tolist_rule(g, ans, a):
    return list_grad(g, a)


@deftangent(np.ndarray.tolist)
def tolist_tangent(g, ans, a):
    return list_tangent(g, a)


# x.shape, len(x)...: numbers (and a dtype) that do not follow x's values
deffacts(np.ndarray.shape, np.ndarray.ndim, np.ndarray.size, np.ndarray.dtype,
         np.ndarray.__len__, no_derivative=True)
# an array's attributes read without raising (a line nothing reads: unread_raises)
deffacts(np.ndarray.shape, np.ndarray.dtype, np.ndarray.T, raises=())
deffacts(np.ndarray.ndim, np.ndarray.size, np.ndarray.itemsize, np.ndarray.nbytes, raises=(),
         number="i")
deffacts(np.ndarray.real, np.ndarray.imag, raises=(), shaped_like=0)
# what an array subclass s2sad does not model gives as an ndarray, a number or a tuple
# (M.A, M.shape, M.tolist() of an np.matrix; MASKED.filled(0.0); np.ma.filled(MASKED))
deffacts(np.ndarray.shape, np.ndarray.ndim, np.ndarray.size, np.ndarray.dtype,
         np.ndarray.data, np.ndarray.itemsize, np.ndarray.nbytes, np.ndarray.strides,
         np.ndarray.tolist, np.ndarray.item, np.ndarray.__array__, np.matrix.A, np.matrix.A1,
         np.matrix.getA, np.matrix.getA1, np.matrix.tolist, np.ma.MaskedArray.shape,
         np.ma.MaskedArray.dtype, np.ma.MaskedArray.data, np.ma.MaskedArray.mask,
         np.ma.MaskedArray.tolist, np.ma.MaskedArray.filled, np.ma.shape, np.ma.ndim,
         np.ma.size, np.ma.filled, converts=True)

# a function of yours called by NumPy once per row or item, out of s2sad's sight: refused
# with the comprehension that calls it where s2sad inlines it (same values, same order)
refuse_function(np.apply_along_axis, advice=(
    "Call the function on each slice in a comprehension, which s2sad inlines: "
    "np.stack([f(r) for r in x]) for axis=-1 of a matrix, "
    "np.stack([f(x[:, j]) for j in range(x.shape[1])], axis=-1) for axis=0."))
