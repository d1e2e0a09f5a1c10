"""Functions for tests/test_implementations.py: NumPy functions s2sad writes itself, powers
whose exponents a loop carries, helpers with constant options."""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

A = np.zeros(2)
V = np.ones(2)


def quantile_of(x, q):
    return np.quantile(x, q)


def quantile_method(x):
    return np.quantile(x, 0.5, method="nearest")


def quantile_axes(x):
    return np.sum(np.quantile(x, 0.5, axis=(0, 1)))


def windows_of(x, n):
    return np.sum(sliding_window_view(x, n))


def windows_no_axis(x):
    return np.sum(sliding_window_view(x, 2))


def accumulate_all(x):
    return np.sum(np.add.accumulate(x, axis=None))


def maximum_accumulate_all(x):
    return np.sum(np.maximum.accumulate(x, axis=None))


def reduce_dtype(x):
    return np.sum(np.add.reduce(x, 1, np.float64))


def ufunc_without_rule(x):
    return np.sum(np.logaddexp.accumulate(x))


def powers_in_a_loop(t):
    x = A + t * V
    s = 0.0
    for k in range(4):
        s = s + np.sum(x ** float(k))
    return s


def powers_in_a_while_loop(t):
    x = A + t * V
    s = 0.0
    k = 0
    while k < 4:
        s = s + np.sum(x ** k)
        k = k + 1
    return s


def float_powers_in_a_loop(t):
    s = 0.0
    for k in range(4):
        s = s + t ** float(k)
    return s



def nanstd_rows(a):
    return np.sum(np.nanstd(a, axis=1))


def std_rows(a):
    return np.sum(np.std(a, axis=1))
