"""The functions of the documentation's "Sharp bits" page (docs/sharp-bits.md)."""

import numpy as np


def square(x):
    return x * x


def scaled(x, n):
    """``n`` counts: an integer argument that is not differentiated."""
    return np.sum(x * n)


def truncated(x):
    """``int(x)`` truncates: it carries no derivative, as NumPy's and Python's casts do not."""
    return int(x) * x


def scale_in_place(x):
    x *= 2.0  # refused: it would change the caller's array
    return np.sum(x)


def scale_a_copy(x):
    x = x * 2.0  # a new array: the caller's is left alone
    return np.sum(x)


def filled(x):
    y = np.zeros(3)  # made here: updating it in place is differentiated
    y[0] = x
    y[1:] = 2 * x
    return np.sum(y * y)
