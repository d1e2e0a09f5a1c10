"""Session 30: programs s2sad refused though it models them exactly, now differentiated.

Each case is a small program as people write them; its gradient is checked against
central differences in float64. Every case here was refused on main before this session
(marked ``# refused on main``): ``np.copyto`` and a ufunc's ``out=`` (written as
assignments into the output, views included). The last tests pin what stays refused.
"""

import numpy as np
import pytest
from test_overrefusals_s28 import central

import s2sad

X = np.array([0.3, -0.5, 1.2, 0.7])


# --- np.copyto and out= (written_outputs) ----------------------------------------------------

def copyto_into_a_buffer(x):  # refused on main
    y = np.zeros(4)
    np.copyto(y, x * 2.0)
    return np.sum(y * x)


def copyto_into_a_view(x):  # refused on main
    y = np.ones(6)
    np.copyto(y[1:5], x ** 2)
    return np.sum(y * np.arange(6.0))


def copyto_broadcast_into_rows(x):  # refused on main
    grid = np.zeros((3, 4))
    np.copyto(grid[1:, :], x * 0.5)
    np.copyto(dst=grid[:1], src=x[0])
    return np.sum(grid * np.arange(12.0).reshape(3, 4))


def exp_into_a_buffer(x):  # refused on main
    y = np.empty(4)
    np.exp(x, out=y)
    return np.sum(y * x)


def add_into_its_own_input(x):  # refused on main (the old a is read before the write)
    a = x * 2.0
    b = x ** 2
    np.add(a, b, out=a)
    return np.sum(a * b)


def multiply_into_an_overlapping_view(x):  # refused on main
    a = x * 1.0
    np.multiply(a[:2], a[2:], out=a[2:])
    return np.sum(a ** 2)


def ufunc_out_in_a_loop(x):  # refused on main
    y = x * 1.0
    for _ in range(3):
        np.multiply(y, x, out=y)
        np.add(y, 0.5, out=(y,))
    return np.sum(y)


def ufunc_result_kept(x):  # refused on main (the result is the output array itself)
    y = np.zeros(4)
    z = np.tanh(x * 3.0, out=y)
    return np.sum(z * y) + np.sum(y[:2])


def column_of_a_matrix_filled(x):  # refused on main
    m = np.ones((4, 2))
    np.sin(x, out=m[:, 0])
    return np.sum(m @ np.array([1.0, 2.0]) * x)


CASES = [copyto_into_a_buffer, copyto_into_a_view, copyto_broadcast_into_rows,
         exp_into_a_buffer, add_into_its_own_input, multiply_into_an_overlapping_view,
         ufunc_out_in_a_loop, ufunc_result_kept, column_of_a_matrix_filled]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_gradient_matches_central_differences(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)


# --- what stays refused, or raises as Python does --------------------------------------------

def copyto_into_an_integer_array(x):
    y = np.zeros(4, dtype=int)
    np.copyto(y, x * 2.0)  # (NumPy: same_kind casting, float into int raises)
    return np.sum(y * x)


def out_into_an_integer_array(x):
    y = np.zeros(4, dtype=np.int64)
    np.multiply(x, 3.0, out=y)
    return np.sum(y * x)


@pytest.mark.parametrize("f", [copyto_into_an_integer_array, out_into_an_integer_array])
def test_an_output_that_cannot_take_the_value_raises_as_numpy_does(f):
    with pytest.raises(TypeError, match="same_kind"):
        f(X)
    with pytest.raises(TypeError, match="same_kind"):
        s2sad.grad(f)(X)


def out_into_the_argument(x):
    np.exp(x, out=x)
    return np.sum(x)


def out_into_a_shared_array(x):
    y = np.zeros(4)
    w = y
    np.exp(x, out=y)
    return np.sum(w * x)


def out_indexed_by_a_list(x):
    y = np.zeros(4)
    np.exp(x, out=y[[0, 1, 2, 3]])  # (a copy: NumPy writes it and drops it; y stays 0)
    return np.sum(y * x)


def out_with_where(x):
    y = np.zeros(4)
    np.exp(x, out=y, where=x > 0)
    return np.sum(y * x)


@pytest.mark.parametrize("f", [out_into_the_argument, out_into_a_shared_array,
                               out_indexed_by_a_list, out_with_where])
def test_a_write_not_followed_is_refused(f):
    with pytest.raises((s2sad.errors.UnsupportedSyntaxError, s2sad.errors.NoDerivativeError)):
        s2sad.grad(f)(X)
