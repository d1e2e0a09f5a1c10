"""Functions for tests/test_objects_data.py: arrays of subclasses s2sad does not model
(``np.matrix``, masked arrays), data of library classes (a deque, an ``array.array``, a
``Fraction``), the dtypes of an object's members, and in-place operators on objects of
the user's classes."""

import array
import collections
import fractions
import warnings

import numpy as np

with warnings.catch_warnings():
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    MATRIX = np.matrix([[1.0, 2.0], [3.0, 4.0]])
MASKED = np.ma.masked_array([1.0, 2.0], mask=[0, 1])
DEQUE = collections.deque([1.0, 2.0])
ARRAY = array.array("d", [1.0, 2.0])
HALF = fractions.Fraction(1, 2)


def matrix_dot(x):
    return np.sum(np.dot(MATRIX, np.sin(x)))


def matrix_multiply(x):
    return np.sum(np.multiply(MATRIX, x.reshape(2, 1)))


def matrix_made_by_numpy(x):
    m = np.multiply(MATRIX, 2.0)
    return np.sum(m * x.reshape(2, 1))


def matrix_transposed(x):
    m = np.transpose(MATRIX)
    return np.sum(np.dot(m, np.sin(x)))


def matrix_row(x):
    r = MATRIX[0]
    return np.sum(np.dot(r, x))


def matrix_default(x, m=MATRIX):
    return np.sum(np.dot(m, np.sin(x)))


def matrix_argument(x, m):
    return np.sum(np.dot(m, np.sin(x)))


def matrix_made_here(x):
    m = np.asmatrix(np.eye(2))
    return np.sum(np.dot(m, np.sin(x)))


def masked_multiply(x):
    return np.sum(np.multiply(MASKED, x))


def masked_computed(x):
    t = MASKED * 1.0
    return np.sum(t + x)


def masked_argument(x, m):
    return np.sum(np.add(m, x))


def deque_multiply(x):
    return np.sum(np.multiply(DEQUE, x))


def array_multiply(x):
    return np.sum(np.multiply(ARRAY, x))


def fraction_multiply(x):
    return np.sum(np.multiply(HALF, x))


def matrix_converted(x):
    return np.sum(np.asarray(MATRIX) @ np.sin(x)) + np.sum(np.array(MATRIX) @ x)


def masked_filled(x):
    return np.sum(MASKED.filled(0.0) * x)


def deque_item(x):
    return DEQUE[1] * np.sum(x * x)


def fraction_converted(x):
    return float(HALF) * np.sum(x * x)


MATRICES = [MATRIX, MATRIX]


def matrix_in_a_list(x):
    s = 0.0
    for m in MATRICES:
        s = s + np.sum(np.dot(m, np.sin(x)))
    return s


def matrix_closure():
    m = MATRIX

    def inner(x):
        return np.sum(np.dot(m, np.sin(x)))
    return inner


matrix_in_closure = matrix_closure()


# --- an object's members ---------------------------------------------------------------


class Params:
    def __init__(self, buf, counts=None, m=None):
        self.buf = buf
        self.counts = np.arange(2) if counts is None else counts
        self.m = m


def store_into_member_copy(x, p):
    b = p.buf.copy()
    b[0] = x[0] * 3.0
    return np.sum(b * x)


def member_times_x(x, p):
    return np.sum(x * p.counts + x * x)


def member_filled(x, p):
    b = np.full(2, p.m)
    b[1] = x[1]
    return np.sum(b * x)


def member_matrix(x, p):
    return np.sum(np.dot(p.m, np.sin(x)))


class MatrixHolder:
    """An np.matrix (or an array) held in a member's list, dict and tuple."""

    def __init__(self, m):
        self.ms = [m]
        self.md = {"m": m}
        self.mt = (0.5, m)


def matrix_in_a_member_list(x, p):
    m = p.ms[0]
    return np.sum(m * np.outer(x, x))  # (a matrix product, where m is an np.matrix)


def matrix_in_a_member_dict(x, p):
    return np.sum(p.md["m"] * np.outer(x, x))


def matrix_in_a_member_tuple(x, p):
    return np.sum(p.mt[1] * np.outer(x, x)) * p.mt[0]


# --- in-place operators on objects of the user's classes -----------------------------------


class Acc:
    def __init__(self, k):
        self.k = k

    def __imul__(self, other):
        return self.k * other * 2.0

    def __mul__(self, other):
        return self.k * other * 3.0

    def __iadd__(self, other):
        return self.k + other * other

    def __add__(self, other):
        return self.k + other

    def __itruediv__(self, other):
        return self.k / (other * other)

    def __truediv__(self, other):
        return self.k / other

    def __ipow__(self, other):
        return self.k ** other

    def __pow__(self, other):
        return self.k * other

    def __imatmul__(self, other):
        return self.k * other * 4.0

    def __matmul__(self, other):
        return self.k * other

    def __isub__(self, other):
        return self.k - other * 5.0

    def __sub__(self, other):
        return self.k - other


class Plain:
    def __init__(self, k):
        self.k = k

    def __mul__(self, other):
        return self.k * other * other


class Declining:
    def __imul__(self, other):
        return NotImplemented

    def __mul__(self, other):
        return other * 3.0


class Reflected:
    def __init__(self, k):
        self.k = k

    def __rmul__(self, other):
        return other * self.k * 7.0


ACC = Acc(2.0)
PLAIN = Plain(2.0)
DECLINING = Declining()


def in_place_mul(a):
    o = ACC
    o *= a
    return o


def in_place_add(a):
    o = ACC
    o += a
    return o


def in_place_sub(a):
    o = ACC
    o -= a
    return o


def in_place_div(a):
    o = ACC
    o /= a
    return o


def in_place_pow(a):
    o = ACC
    o **= a
    return o


def in_place_matmul(a):
    o = ACC
    o @= a
    return o


def in_place_falls_back(a):
    o = PLAIN
    o *= a
    return o


def in_place_declines(a):
    o = DECLINING
    o *= a
    return o


def scale_by(o, a):
    o *= a
    return o


def in_place_in_helper(a):
    return scale_by(PLAIN, a) + a


class Holder:
    def __init__(self):
        self.r = Reflected(2.0)


def in_place_by_member(a, h):
    b = a * 1.0
    b *= h.r
    return b
