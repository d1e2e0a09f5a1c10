"""Derivative rules for the ``math`` module and builtins (Python floats in, Python floats out).

>>> from s2sad import registry
>>> registry.lookup(math.asinh).adjoint(1.0, math.asinh(0.75), 0.75)
0.8
"""

import builtins
import copy
import itertools
import math

from ..registry import deffacts, deflinear, deftangent, defvjp, nondifferentiable
from ..runtime import (dot_items, fsum_of, hypot_grad, hypot_of, item_extremum_grad, item_extremum_tangent, max_item, min_item, pack_like,
                      scaled_power, sum_list_grad)


@defvjp(math.sin, shape="scalar")
def sin(g, ans, x):
    return g * math.cos(x)


@defvjp(math.cos, shape="scalar")
def cos(g, ans, x):
    return -g * math.sin(x)


@defvjp(math.tan, shape="scalar")
def tan(g, ans, x):
    return g / math.cos(x) ** 2


@defvjp(math.asin, shape="scalar")
def asin(g, ans, x):
    return g / math.sqrt(1.0 - x ** 2)


@defvjp(math.acos, shape="scalar")
def acos(g, ans, x):
    return -g / math.sqrt(1.0 - x ** 2)


@defvjp(math.sinh, shape="scalar")
def sinh(g, ans, x):
    return g * math.cosh(x)


@defvjp(math.cosh, shape="scalar")
def cosh(g, ans, x):
    return g * math.sinh(x)


@defvjp(math.asinh, shape="scalar")
def asinh(g, ans, x):
    return g / math.sqrt(x ** 2 + 1.0)


@defvjp(math.acosh, shape="scalar")
def acosh(g, ans, x):
    return g / math.sqrt(x ** 2 - 1.0)


@defvjp(math.atanh, shape="scalar")
def atanh(g, ans, x):
    return g / (1.0 - x ** 2)


@defvjp(math.exp, shape="scalar")
def exp(g, ans, x):
    return g * ans


@defvjp(math.expm1, shape="scalar")
def expm1(g, ans, x):
    return g * (ans + 1.0)


@defvjp(math.log, shape="scalar")
def log(g, ans, x, base=None):
    return (g / x if base is None else g / (x * math.log(base)),
            None if base is None else -g * ans / (base * math.log(base)))


@defvjp(math.log1p, shape="scalar")
def log1p(g, ans, x):
    return g / (1.0 + x)


@defvjp(math.log2, shape="scalar")
def log2(g, ans, x):
    return g / (x * math.log(2.0))


@defvjp(math.log10, shape="scalar")
def log10(g, ans, x):
    return g / (x * math.log(10.0))


@defvjp(math.sqrt, shape="scalar")
def sqrt(g, ans, x):
    return g * 0.5 / ans


@defvjp(math.tanh, shape="scalar")
def tanh(g, ans, x):
    return g * (1.0 - ans ** 2)


@defvjp(math.atan, shape="scalar")
def atan(g, ans, x):
    return g / (1.0 + x ** 2)


@defvjp(math.atan2, shape="scalar")
def atan2(g, ans, y, x):
    return g * x / (x ** 2 + y ** 2), -g * y / (x ** 2 + y ** 2)


@defvjp(math.hypot, shape="scalar")
def hypot(g, ans, x, y):
    return (g * x / ans if ans else 0.0), (g * y / ans if ans else 0.0)


# math.hypot of three or more coordinates (s2sad.implementations.hypot): c / hypot each;
# its helpers' rules close over themselves (any order)
@defvjp(hypot_of, shape="other")
def hypot_of_rule(g, ans, coordinates):
    return hypot_grad(g, ans, coordinates)


@deftangent(hypot_of)
def hypot_of_tangent(g, ans, coordinates):
    return dot_items(g, coordinates) / ans if ans else 0.0


@defvjp(hypot_grad, shape="other")
def hypot_grad_rule(g, ans, s, norm, coordinates):  # (s, norm: hypot_grad's g and ans)
    return (dot_items(g, coordinates) / norm if norm else 0.0,
            -s * dot_items(g, coordinates) / norm ** 2 if norm else 0.0,
            hypot_grad(s, norm, g))


@deftangent(hypot_grad)
def hypot_grad_tangent(g, ans, s, norm, coordinates):
    return (hypot_grad(g, norm, coordinates),
            hypot_grad(-s * g / norm if norm else 0.0, norm, coordinates),
            hypot_grad(s, norm, g))


@defvjp(dot_items, shape="other")
def dot_items_rule(g, ans, a, b):
    return hypot_grad(g, 1.0, b), hypot_grad(g, 1.0, a)


@deftangent(dot_items)
def dot_items_tangent(g, ans, a, b):
    return dot_items(g, b), dot_items(a, g)


deffacts(hypot_of, dot_items, fsum_of, floats=True)


# math.fsum (s2sad.implementations.fsum): each item's derivative 1, its value fsum's own
@defvjp(fsum_of, shape="other")
def fsum_of_rule(g, ans, items):
    return sum_list_grad(g, items)


@deftangent(fsum_of)
def fsum_of_tangent(g, ans, items):
    return fsum_of(g)


@defvjp(math.pow, shape="scalar")
def pow(g, ans, x, y):
    return g * scaled_power(y, x, y - 1), g * ans * math.log(x) if x > 0 else 0.0


@defvjp(math.fabs, shape="scalar")
def fabs(g, ans, x):
    return g * (1.0 if x > 0 else -1.0 if x < 0 else 0.0)  # (np.float64's bools: no `-`)


@defvjp(math.erf, shape="scalar")
def erf(g, ans, x):
    return g * 2.0 / math.sqrt(math.pi) * math.exp(-x * x)


@defvjp(math.erfc, shape="scalar")
def erfc(g, ans, x):
    return -g * 2.0 / math.sqrt(math.pi) * math.exp(-x * x)


@defvjp(math.degrees, shape="scalar")
def degrees(g, ans, x):
    return g * (180.0 / math.pi)


@defvjp(math.radians, shape="scalar")
def radians(g, ans, x):
    return g * (math.pi / 180.0)


@defvjp(math.copysign, shape="scalar")
def copysign(g, ans, x, y):
    return g * (1.0 if math.copysign(1.0, x) == math.copysign(1.0, y) else -1.0), None


@defvjp(math.fmod, shape="scalar")
def fmod(g, ans, x, y):
    return g, -g * math.trunc(x / y)


@defvjp(max, shape="scalar")
def builtin_max(g, ans, x, y):
    # the one Python returns gets it: x, unless y is larger
    return (0.0 if y > x else g), (g if y > x else 0.0)


@defvjp(min, shape="scalar")
def builtin_min(g, ans, x, y):
    return (0.0 if y < x else g), (g if y < x else 0.0)


# max(xs) and min(xs) of one iterable (a list, a 1-d array): resolve reads them as these;
# the item Python returns (the first of equal ones) gets the whole derivative
@defvjp(max_item, shape="other")
def max_item_rule(g, ans, items):
    return item_extremum_grad(g, items, True)


@defvjp(min_item, shape="other")
def min_item_rule(g, ans, items):
    return item_extremum_grad(g, items, False)


@deftangent(max_item)
def max_item_tangent(g, ans, items):
    return item_extremum_tangent(g, items, True)


@deftangent(min_item)
def min_item_tangent(g, ans, items):
    return item_extremum_tangent(g, items, False)


# (linear in g: the chosen position does not move under a small change of the items)
@defvjp(item_extremum_grad, shape="other")
def item_extremum_grad_rule(g, ans, h, items, largest):
    return item_extremum_tangent(g, items, largest), None, None


@defvjp(item_extremum_tangent, shape="other")
def item_extremum_tangent_rule(g, ans, h, items, largest):
    return item_extremum_grad(g, items, largest), None, None


deflinear(item_extremum_grad, item_extremum_tangent)


@defvjp(float, shape="scalar")
def to_float(g, ans, x=0.0):
    return g


@defvjp(list, tuple, shape="other")
def to_sequence(g, ans, iterable=()):
    # list(x) of an array is its rows: their sensitivities stacked back into x's shape
    return pack_like(iterable, g)


@defvjp(sum, shape="other")
def builtin_sum(g, ans, iterable, start=0):
    return sum_list_grad(g, iterable), g


nondifferentiable(math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
                  math.isclose, len, int, round, shape="scalar")

# math functions that give a Python float for Python numbers (float or int arguments)
deffacts(*[getattr(math, name) for name in (
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "hypot",
    "fabs", "erf", "erfc", "gamma", "lgamma", "pow", "copysign", "fmod", "degrees",
    "radians")], floats=True)
# builtins on numbers that change nothing and raise nothing a program relies on: a call
# whose result nothing reads is removed (builtins.pow: `pow` here is math.pow's rule)
deffacts(len, float, abs, max, min, builtins.pow, sum, range, reversed, round, pure=True)
deffacts(range, raises="integers")  # (range(2.5): TypeError)
deffacts(max, min, raises="truth")  # (max(a, b) of arrays: the truth of a > b, ValueError)
deffacts(len, raises="sized")  # (len of a number or a 0-d array: TypeError)
deffacts(float, complex, abs, raises="number")  # (float of a vector: TypeError; int(nan) raises)
deffacts(sum, raises="items")  # (sum of a list of arrays: their broadcast)
# the kind of the Python number they return (round's: an int, or a float given ndigits)
deffacts(len, int, bool, number="i")
deffacts(float, complex, number="f")
deffacts(float, int, complex, bool, len, converts=True)  # (M[0, 0] of an np.matrix: a number)
# a Python container of what their argument holds
deffacts(list, tuple, dict, sorted, reversed, sequence=True)
deffacts(copy.copy, copy.deepcopy, copies=True)  # (Desugar: v.copy())
deffacts(itertools.accumulate, itertools.chain, itertools.product,
         iterator=True)  # (s2sad.implementations.accumulate...)
if hasattr(itertools, "pairwise"):  # (Python >= 3.10)
    deffacts(itertools.pairwise, iterator=True)
deffacts(sum, max, min, items=True)  # (sum(S) of a set of numbers: a number)
# they read an iterable whole before anything else (not any(), all(), min(key=...))
deffacts(sum, list, tuple, sorted, set, frozenset, dict, whole=True)
# given an object, or a list of them (a loop over layers), they read none of its attributes
deffacts(len, isinstance, type, id, range, enumerate, zip, list, tuple, reversed, iter,
         no_attributes=True)
