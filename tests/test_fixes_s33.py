"""Session 33: the known bugs session 32 left, each against central differences in float64
(a higher order against central differences of the order below it)."""

import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences

X6 = np.array([0.3, -1.2, 0.7, 1.1, -0.4, 0.9])
M45 = np.array([[0.3, -1.2, 0.7, 1.1, 0.2], [-0.4, 0.9, 0.5, -0.6, 1.3],
                [0.8, 0.1, -0.9, 0.4, -0.2], [1.0, -0.3, 0.6, 0.2, 0.7]])


def _check(f, *args, wrt=0):
    np.testing.assert_allclose(s2sad.grad(f, wrt=wrt)(*args) if wrt else s2sad.grad(f)(*args),
                               central_differences(f, list(args), wrt), rtol=1e-6, atol=1e-8)


def _check_hessian(f, x):
    np.testing.assert_allclose(s2sad.hessian(f)(x), central_differences(s2sad.grad(f), [x], 0),
                               rtol=1e-6, atol=1e-7)


# --- 2. np.split at indices out of order or past the end: pieces that overlap --------------

def split_backwards(x):
    a, b, c = np.split(x, [3, 1])  # x[:3], x[3:1] (empty), x[1:]
    return np.sum(a ** 2) + np.sum(b) + np.sum(np.sin(c) * c)


def array_split_past_the_end(x):
    parts = np.array_split(x, [4, 2, 9])  # x[:4], x[4:2], x[2:], x[9:]
    return np.sum(np.sin(parts[0])) + 3.0 * np.sum(parts[2] ** 3) + np.sum(parts[1]) + \
        np.sum(parts[3])


def split_past_the_end_first(x):
    a, b = np.split(x, [9])  # all of x, then nothing
    return np.sum(a * a * a) + np.sum(b)


def split_negative_back(x):
    a, b, c = np.split(x, [-2, 2])  # x[:-2], x[-2:2] (empty), x[2:]
    return np.sum(np.exp(a)) + np.sum(c ** 2)


def hsplit_backwards(m):
    a, b, c = np.hsplit(m, [3, 1])
    return np.sum(a ** 2) + np.sum(np.cos(c) * c) + np.sum(b)


def vsplit_backwards(m):
    a, b, c = np.vsplit(m, [2, 1])
    return np.sum(a ** 3) + np.sum(np.sin(c) * c) + np.sum(b)


def split_axis1_backwards(m):
    a, b, c = np.split(m, [4, 2], axis=-1)
    return np.sum(a * np.sin(a)) + np.sum(c ** 2)


@pytest.mark.parametrize("f", [split_backwards, array_split_past_the_end,
                               split_past_the_end_first, split_negative_back])
def test_split_at_indices_out_of_order_or_past_the_end(f):
    _check(f, X6)
    _check_hessian(f, X6)


@pytest.mark.parametrize("f", [hsplit_backwards, vsplit_backwards, split_axis1_backwards])
def test_hsplit_vsplit_and_an_axis_at_indices_out_of_order(f):
    _check(f, M45)
    _check_hessian(f, M45)


def test_split_backwards_at_third_order():
    v = np.array([0.2, -0.1, 0.4, 0.3, -0.5, 0.1])

    def line(t):
        return split_backwards(X6 + t * v)
    d2 = s2sad.grad(s2sad.grad(line))
    np.testing.assert_allclose(s2sad.grad(d2)(0.2), central_differences(d2, [0.2], 0),
                               rtol=1e-6, atol=1e-8)


def test_split_in_order_keeps_its_join():
    """Indices in order tile the array: the pieces' sensitivities are joined, as before."""
    def f(x):
        a, b = np.split(x, [2])
        return np.sum(a ** 2) + np.sum(np.sin(b))
    _check(f, X6)
    assert "split_grad(" in s2sad.grad(f).source_for(X6)
