"""``x[*idx]`` (Python 3.11 syntax, a SyntaxError on 3.10: imported on 3.11+ only)."""

import numpy as np


def index_by_a_tuple_argument(x, idx):
    m = np.outer(x, x)
    return m[*idx] * 2.0 + m[*idx, ] * x[0]


def index_by_a_display(x):
    m = np.outer(x, np.sin(x))
    i = (0, 2)
    return m[*i] + m[1, *(i[0],)]


def index_by_a_slice_of_a_tuple(x):
    m = np.outer(x, x)
    i = (0, 2)
    return m[1, *i[:1]]  # <- here
