"""Functions for tests/test_called_values.py: calls whose function is itself a value
(functools.partial, an object's __call__, getattr), values of types s2sad does not
model, list operands of np.cross and np.interp, recursion on a constant in a loop,
and returns inside loops."""

import functools

import numpy as np

MASKED = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])


def scale(t, k=1.0):
    return t * k


class Times:
    def __init__(self, k):
        self.k = k

    def __call__(self, t):
        return t * self.k


def partial_bound_input(x):
    return functools.partial(np.power, x)(3.0) * x


def partial_of_helper_bound_input(x):
    p = functools.partial(scale, x)
    return p(2.0) * x


def object_call_holding_input(x):
    return Times(x)(2.0) * x


def getattr_name_in_variable(x):
    name = "sin"
    y = getattr(np, name)(x[0])
    return np.sum(y * x)


def masked_made_here(x):
    y = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    return np.sum(y * x)


def matrix_made_here(x):
    y = np.asmatrix(np.ones((3, 3)))
    return np.sum(y * x)


def masked_module_constant(x):
    return np.sum(MASKED * x)


def getattr_constant_name(x):
    y = getattr(np, "sin")(x[0])
    return np.sum(y * x + y)


def getattr_function_in_variable(x):
    fn = getattr(np, "tanh")
    return np.sum(fn(x) * x)


def masked_made_here_converted(x):
    y = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    return np.sum(np.asarray(y) * x * x)


def cross_list_second(x):
    return np.sum(np.cross(x, [1.0, 0.5, -0.25]) ** 2)


def cross_list_first(x):
    return np.sum(np.cross([1.0, 0.5, -0.25], x * x) * x)


def interp_list_points(x):
    return np.sum(np.interp(x, [-1.0, 0.0, 1.0], [0.0, 2.0, 1.5]) ** 2)


def rec(a, n):
    if n <= 0:
        return np.tanh(a)
    return np.tanh(rec(0.5 * a, n - 1) * 0.75 + a * 0.5)


def recursion_on_constant_in_loop(x):
    u = 0.5
    for j in range(3):
        u *= np.tanh(rec(0.25 * j, 2))
    return u * x + rec(x, 1)


def negative_base_power(x):
    return ((x - 2.0) ** 0.5).real


def return_in_loop_never_taken(x):
    for i in range(2):
        if 0.5 < 0.3:
            return 0.3
    return x * x


def return_in_loop_with_continue(x):
    t = x
    for i in range(3):
        if i == 1:
            continue
        if 0.5 < 0.3:
            return 0.3 * t
        if i > 5:
            break
        t = t * x
    return t


def returns_in_nested_loops(x):
    for i in range(2):
        if 0.5 < 0.3:
            return 0.3
        for j in range(2):
            if j > 4:
                return x
    return x * x


def numpy_function_without_rule_on_constants(x):
    return np.sum(np.unique(np.array([0.5, -0.25, 0.5, 1.5])) * x * x)
