"""The function of README.md's Quick start: s2sad reads a function's source, so it lives in a
file (or a notebook cell), not at the ``python`` prompt."""

import numpy as np


def loss(W, x):
    return np.sum(np.tanh(W @ x) ** 2)


def fit(w, b, x, y):
    """The absolute error of the line ``w * x + b`` through the points ``(x, y)``."""
    return np.sum(np.abs(y - (w * x + b)))


def doubled_until_large(a):
    """Control flow on the values: the trips of the loop and the branch depend on ``a``."""
    b = a * 2
    while np.linalg.norm(b) < 1000:
        b = b * 2
    return b if np.sum(b) > 0 else 100 * b
