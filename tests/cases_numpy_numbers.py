"""Functions that update a NumPy number argument in place, for tests/test_numpy_numbers.py."""

import numpy as np


def add_to_argument(x):
    x += 1.0
    return x * x


def divide_in_a_loop(x, n):
    for _ in range(n):
        x /= 1.0 + np.square(x)
    return x * 2.0


def becomes_an_array_in_a_loop(x, v):
    for _ in range(3):
        x *= np.tanh(v)
    return np.sum(x)


def item_of_a_transposed_argument_updated(M, a):
    t = M.T[1, -1]  # (the kinds cannot say M.T's rank: an item, a NumPy number, a copy)
    t *= np.tanh(a)
    return t * a


def row_of_a_transposed_argument_updated(M, a):
    t = M.T[1]
    t *= np.tanh(a)  # <- refused when it runs: a row of the caller's M
    return np.sum(t)
