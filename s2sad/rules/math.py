"""Derivative rules for the ``math`` module (Python floats in, Python floats out)."""

import math

from ..registry import defvjp, nondifferentiable


@defvjp(math.sin, shape="scalar")
def sin(g, ans, x):
    return g * math.cos(x)


@defvjp(math.cos, shape="scalar")
def cos(g, ans, x):
    return -g * math.sin(x)


@defvjp(math.tan, shape="scalar")
def tan(g, ans, x):
    return g / math.cos(x) ** 2


@defvjp(math.exp, shape="scalar")
def exp(g, ans, x):
    return g * ans


@defvjp(math.log, shape="scalar")
def log(g, ans, x, base=None):
    return (g / x if base is None else g / (x * math.log(base)),
            None if base is None else -g * ans / (base * math.log(base)))


@defvjp(math.sqrt, shape="scalar")
def sqrt(g, ans, x):
    return g * 0.5 / ans


@defvjp(math.tanh, shape="scalar")
def tanh(g, ans, x):
    return g * (1.0 - ans ** 2)


@defvjp(math.atan, shape="scalar")
def atan(g, ans, x):
    return g / (1.0 + x ** 2)


@defvjp(math.pow, shape="scalar")
def pow(g, ans, x, y):
    return g * y * x ** (y - 1), g * ans * math.log(x) if x > 0 else 0.0


@defvjp(math.fabs, shape="scalar")
def fabs(g, ans, x):
    return g * ((x > 0) - (x < 0))


nondifferentiable(math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
                  len, int, round, shape="scalar")
