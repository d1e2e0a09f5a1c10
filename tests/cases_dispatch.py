"""Functions for tests/test_dispatch.py that need a module of their own: one whose
globals shadow the builtins an entry's guard calls, and one too long to be inlined."""
# ruff: noqa: A001
import numpy as np


def len(x):  # (a user's own len, read by nothing but the guard would it use the name)
    return 99


list = tuple
type = repr


def product(xs):
    a, b, c = xs
    return a * b * c


def damped(y):
    """Sixteen steps written out: a gradient that calls it is too long to be inlined into
    its entry (tests/test_dispatch.py, tests/test_rebinding.py)."""
    y = y * 0.9 + np.sin(y) * 0.01
    y = y * 0.9 + np.sin(y) * 0.02
    y = y * 0.9 + np.sin(y) * 0.03
    y = y * 0.9 + np.sin(y) * 0.04
    y = y * 0.9 + np.sin(y) * 0.05
    y = y * 0.9 + np.sin(y) * 0.06
    y = y * 0.9 + np.sin(y) * 0.07
    y = y * 0.9 + np.sin(y) * 0.08
    y = y * 0.9 + np.sin(y) * 0.09
    y = y * 0.9 + np.sin(y) * 0.10
    y = y * 0.9 + np.sin(y) * 0.11
    y = y * 0.9 + np.sin(y) * 0.12
    y = y * 0.9 + np.sin(y) * 0.13
    y = y * 0.9 + np.sin(y) * 0.14
    y = y * 0.9 + np.sin(y) * 0.15
    y = y * 0.9 + np.sin(y) * 0.16
    return y


def long_chain(x):
    return np.sum(damped(np.log(x)))


def long_with_default(a, b=2.0):  # (its default is changed by tests/test_rebinding.py)
    y = damped(a * b)
    return y + np.cos(a) * b + np.tanh(a * b) + np.exp(-a * a * b) + np.log1p(a * a) * b
