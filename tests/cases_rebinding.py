"""Functions whose helpers the tests give other definitions (tests/test_rebinding.py)."""

import numpy as np

from tests import helpers_other_module as other


def helper(x):
    return x * x


def top(x):
    return helper(x) + 1.0


def scale(x, a=2.0):
    return a * x


def uses_scale(x):
    return scale(x) * 1.0


def keyword_scale(t, *, k=2.0):
    return t * t * k


def uses_keyword_scale(x):
    return keyword_scale(x)


def tanh_act(z):
    return np.tanh(z)


def sin_act(z):
    return np.sin(z)


def triple(x):
    return 3.0 * x


def cube(x):
    return x ** 3


act = tanh_act


def loss(w, x):
    return np.sum(act(x @ w))


def make(k):
    f = np.sin

    def inner(x):
        return f(x) * k
    return inner


def softplus(x):
    return np.log1p(np.exp(x))


def softplus_loss(x):
    return np.sum(softplus(x))


def through_a_module(x):
    return np.sum(other.scaled_tanh(x))
