"""Session 29: programs s2sad refused though it models them exactly, now differentiated.

Each case is a small program as people write them; its gradient is checked against
central differences in float64. A case marked ``# refused on main`` was refused (or
failed inside the compiler) before this session: ``max(a, b, key=abs)``, ``math.prod``,
``divmod``, ``np.modf``, ``math.modf``, ``functools.reduce`` with a lambda or
``operator.mul``, ``itertools.accumulate``, lists joined from slices (``xs[:1] + [v] +
xs[1:]``). The last tests pin what stays refused (an iterator held in a name).
"""

import functools
import itertools
import math
import operator

import numpy as np
import pytest

import s2sad

X = np.array([0.3, -0.5, 1.2, 0.7])


def central(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


# --- max and min of several items with a key (sort_keys) ------------------------------------

def max_min_key_abs(x):  # refused on main
    return max(x[0], x[1], key=abs) * min(x[2], x[3], key=abs)


def closest_to_target(x):  # refused on main
    a, b, c = x[0] * 2.0, x[1] + 1.0, x[2] ** 2
    best = min(a, b, c, key=lambda v: abs(v - 0.8))
    return best * x[3]


# --- math.prod, divmod, modf (rules) ---------------------------------------------------------

def likelihood_product(x):  # refused on main
    return math.prod([x[0], x[1], x[2] + 1.0])


def product_of_an_array_and_a_start(x):  # refused on main
    return math.prod(x * 2.0) + math.prod([x[0], x[1]], start=x[2])


def product_with_a_zero(x):  # refused on main (each item: the others' product, no quotient)
    return math.prod([x[0] * 0.0, x[1], x[2]])


def wrap_angle(x):  # refused on main
    turns, rest = divmod(x[0] * 7.0 + 0.05, 0.3)
    return rest * x[1] + turns


def divmod_of_arrays(x):  # refused on main
    q, r = divmod(x * 5.0, x[3] + 0.4)
    return np.sum(r ** 2 * x) + np.sum(q)


def divmod_items(x):  # refused on main
    return divmod(x[2] * 3.0, 0.7)[0] * x[1] + divmod(x[0], x[2])[1]


def np_modf(x):  # refused on main
    frac, whole = np.modf(x * 3.0)
    return np.sum(frac * x + whole)


def math_modf(x):  # refused on main
    frac, whole = math.modf(x[2] * 4.1)
    return frac * x[0] + whole


# --- functools.reduce, itertools.accumulate, operator functions (implementations) -----------

def reduce_lambda(x):  # refused on main
    return functools.reduce(lambda a, b: a * b + 1.0, [x[0], x[1], x[2]])


def reduce_operators(x):  # refused on main
    return functools.reduce(operator.add, [x[0] ** 2, x[1], x[2]]) * \
        functools.reduce(operator.mul, [x[1], x[3]])


def reduce_with_initial(x):  # refused on main
    return functools.reduce(lambda acc, v: acc + v ** 2, x, 1.0) * \
        functools.reduce(operator.sub, [x[0], x[1]], x[2])


def operator_called(x):  # refused on main
    return operator.add(x[0], x[1]) * operator.mul(x[1], x[2]) - operator.neg(x[3])


def running_sums(x):  # refused on main
    cs = list(itertools.accumulate([x[0], x[1], x[2]]))
    return cs[0] * cs[1] + cs[2] ** 2


def running_products(x):  # refused on main
    run = list(itertools.accumulate(x * 1.5, operator.mul))
    return run[-1] + run[1] * 2.0


def accumulate_in_a_loop(x):  # refused on main
    total = 0.0
    for c in itertools.accumulate([x[0], x[1] ** 2, x[2]], lambda a, b: a * 0.5 + b,
                                  initial=x[3]):
        total = total + c ** 2
    return total


# --- lists joined from slices (kinds, reverse.concatenation) --------------------------------

def insert_by_slices(x):  # failed inside the compiler on main
    vals = [x[0], x[1]]
    vals = vals[:1] + [x[2] * 3.0] + vals[1:]
    return vals[0] * vals[1] + vals[2]


def insert_by_slices_grouped(x):  # failed inside the compiler on main
    vals = [x[0], x[1]]
    vals = vals[:1] + ([x[2] * 3.0] + vals[1:])
    return vals[0] * vals[1] + vals[2]


def joined_in_two_steps(x):  # gave a broadcasting error on main
    vals = [x[0], x[1]]
    head = vals[:1] + [x[2] * 3.0]
    vals = head + vals[1:]
    return vals[0] * vals[1] + vals[2]


CASES = [max_min_key_abs, closest_to_target, likelihood_product,
         product_of_an_array_and_a_start, product_with_a_zero, wrap_angle, divmod_of_arrays,
         divmod_items, np_modf, math_modf, reduce_lambda, reduce_operators,
         reduce_with_initial, operator_called, running_sums, running_products,
         accumulate_in_a_loop, insert_by_slices, insert_by_slices_grouped,
         joined_in_two_steps]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_gradient_matches_central_differences(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)


# --- what stays refused ----------------------------------------------------------------------

def accumulate_held_and_read_twice(x):
    m = itertools.accumulate([x[0], x[1]])
    a = sum(m)
    return a + sum(m) * 2.0  # (Python: the second sum is 0, the iterator spent)


def accumulate_held_then_next(x):
    m = itertools.accumulate([x[0], x[1]])
    return next(m) * 3.0


def accumulate_given_to_a_helper(x):
    return _twice(itertools.accumulate([x[0], x[1]]))


def _twice(it):
    return sum(it) + sum(it)


@pytest.mark.parametrize("f", [accumulate_held_and_read_twice, accumulate_held_then_next,
                               accumulate_given_to_a_helper])
def test_an_iterator_not_consumed_at_once_is_refused(f):
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError, match="not consumed at once"):
        s2sad.grad(f)(X)
