"""Functions for tests/test_brackets.py: what is inside brackets (``np.r_[...]``,
``np.c_[...]``, ``np.mgrid[...]``, an object's own ``__getitem__``) and operators on
values that are not arrays (objects of the user's classes, ``np.matrix``, masked arrays).
s2sad needs their source, so they live in a module."""

import warnings

import numpy as np

R = np.r_  # (NumPy's r_ by another name)


def r_arrays(x):
    return np.sum(np.r_[x, x * 3.0] ** 2)


def r_of_arguments(x, y):
    return np.sum(np.r_[x, y] ** 2)


def r_numbers_and_ranges(x):
    v = np.r_[x, 1.5, 0:3, 0.0:1.0:4j, 2.0:0.0:-0.5]
    return np.sum(np.sin(v) * np.arange(v.size))


def r_locals(x):
    y = x * 2.0
    return np.sum(np.r_[y, x[0], [1.0, 2.0]] ** 3)


def r_rows(a):
    return np.sum(np.r_[a, a * 2.0] ** 2 * np.arange(6.0)[:, None])


def r_renamed(x):
    return np.sum(R[x, 2.0 * x] ** 2)


def _joined(v):
    return np.r_[v, v[0] * v]


def r_in_helper(x):
    return np.sum(_joined(x * 2.0) ** 2)


def r_float32(x):
    v = np.r_[x, 1.0]
    return np.sum(v * v)


def c_vectors(x):
    return np.sum(np.c_[x, x] ** 2 * np.array([1.0, 3.0]))


def c_mixed(x):
    return np.sum(np.c_[x, x ** 2, 0:3] @ np.array([1.0, -2.0, 0.5]))


def c_matrix_and_vector(a, x):
    return np.sum(np.c_[a, x] ** 2 * np.arange(3.0))


def c_three_axes(t):
    return np.sum(np.c_[t, t * t] ** 2 * np.arange(4.0))


def c_number(x):
    return np.sum(np.c_[x[0:1], 2.0] ** 2 * x[1])


def list_item_by_integer(a, xs):
    return xs[int(a)] * a + xs[np.s_[1]] * a


def array_slice_by_index_expression(x):
    return np.sum(x[np.s_[1:]] ** 2 + x[np.index_exp[:3]] * x[0])


def mgrid(a):
    return np.sum(np.mgrid[a:a + 2.5])


def ogrid(a):
    return np.sum(np.ogrid[a:a + 2.5])


def r_directive(x):
    return np.sum(np.r_["0,2", x, x])


def r_step_held(x, n):
    return np.sum(np.r_[0.0:1.0:n] * x)


# --- objects with operators of their own ------------------------------------------------


class Weights:
    def __init__(self, v):
        self.v = v

    def __mul__(self, o):
        return self.v * o * 2.0

    def __rmul__(self, o):
        return self.v * o * 3.0

    def __add__(self, o):
        return self.v + o * 5.0

    def __truediv__(self, o):
        return self.v / o * 7.0

    def __rpow__(self, o):
        return o ** 3

    def __neg__(self):
        return -self.v * 11.0

    def __getitem__(self, k):
        return k * k * self.v


class Heavier(Weights):
    def __rmul__(self, o):
        return self.v * 13.0

    def __mul__(self, o):
        return self.v * o * o


class Declining:
    def __mul__(self, o):
        if isinstance(o, float):
            return o * 2.0
        return NotImplemented


class Plain:
    pass


class Table:
    def __getitem__(self, k):
        return k * k


WEIGHTS = Weights(2.0)
TABLE = Table()
DECLINING = Declining()
PLAIN = Plain()
with warnings.catch_warnings():
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    MATRIX = np.matrix([[1.0, 2.0], [3.0, 4.0]])
MASKED = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])


def module_object_operators(a):
    return WEIGHTS * a + a * WEIGHTS + (WEIGHTS + a) + WEIGHTS / a + a ** WEIGHTS


def module_object_negated(a):
    return -WEIGHTS * a


def module_object_item(a):
    return TABLE[a] + WEIGHTS[a * a]


def argument_operators(a, w):
    return w * a + a * w + -w + w[a] + (w + a) * a


def subclass_first(a, w, h):
    return (w * h) * a + h * a


def local_object_item(a):
    t = Table()
    return t[a]


def local_object_operator(a):
    w = Weights(2.0)
    return np.sin(a) + w * a


def local_matrix(x):
    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    return np.sum(m * x.reshape(2, 1))


def array_on_the_left(x, w):
    return np.sum(x * w)


def declining(a):
    return DECLINING * a


def plain_operator(a):
    return PLAIN * a


def matrix_constant(x):
    return np.sum(MATRIX * x.reshape(2, 1))


def masked_constant(x):
    return np.sum(MASKED * x)


def matrix_argument(x, m):
    return np.sum(m * x)


def matrix_row(x, m):
    r = m[0]
    return np.sum(r @ x)
