"""A 0-d array written through ``z[...] = v``: its sensitivity stays a 0-d array. The
reverse sweep reads ``np.array(s_z[...])``, a new array (``np.array`` copies unless told
otherwise), so ``s_z`` may be added to in place; main wrote ``s_z = s_z + e``, a NumPy
number for a 0-d array, and ``s_z[...] = 0.0`` then raised TypeError. 3 of the 4 tests
below fail on main (found by session 37's soundness hunt). At second order the gradient's
own nestable form still adds out of place (a NumPy number), not yet followed."""

import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences

X = np.array([0.3, 0.7, 1.1])


def written_once(x):
    z = np.zeros(())
    z[...] = x[1] * 2
    return z * 3


def written_twice(x):
    z = np.zeros(())
    z[...] = np.sin(x[0])
    y = z * x[2]
    z[...] = x[1] ** 2
    return y + z * 3


def in_a_loop(x):
    z = np.ones(())
    total = 0.0
    for k in range(3):
        z[...] = z * x[k]
        total = total + z
    return total


def copied_without_copy(x):  # (np.array(y, copy=False) is y: its write is refused)
    y = x * 1.0
    v = np.array(y, copy=False)
    v[0] = x[1] * x[2]
    return np.sum(v * y)


@pytest.mark.parametrize("f", [written_once, written_twice, in_a_loop])
def test_a_zero_d_array_written_through_has_a_gradient(f):
    np.testing.assert_allclose(s2sad.grad(f)(X.copy()), central_differences(f, (X,), 0),
                               rtol=1e-7, atol=1e-9)


def test_an_array_not_copied_stays_a_view():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(copied_without_copy)(X.copy())
    assert "shares its memory with 'y'" in str(info.value)
