"""A NumPy number (``np.float64(0.5)``) is immutable: ``x += v`` on such an argument makes a
new value, as on a Python float, and is differentiated. A 0-d array is not: ``+=`` on it
changes the caller's array, so it is refused. The two are described apart."""

import numpy as np
import pytest

import s2sad
from s2sad.transforms.kinds import describe

from . import cases_numpy_numbers as C


def differences(f, x, *rest, eps=1e-6):
    return (f(np.float64(x + eps), *rest) - f(np.float64(x - eps), *rest)) / (2 * eps)


def test_numbers_and_zero_d_arrays_are_described_apart():
    assert describe(np.float64(0.5)) != describe(np.array(0.5))
    assert describe(np.array(0.5)) == ("nd", 0, "f")


@pytest.mark.parametrize("func, rest", [(C.add_to_argument, ()), (C.divide_in_a_loop, (3,))],
                         ids=["add", "divide-in-loop"])
def test_update_of_a_numpy_number_argument(func, rest):
    x = np.float64(0.7)
    expected = differences(func, 0.7, *rest)
    assert np.isclose(s2sad.grad(func)(x, *rest), expected, rtol=1e-6)
    value, pushforward = s2sad.jvp(func)(x, *rest)
    assert np.isclose(value, func(np.float64(0.7), *rest))
    assert np.isclose(pushforward(1.0), expected, rtol=1e-6)
    assert x == 0.7  # (the caller's number: unchanged, as Python leaves it)


def test_update_of_a_zero_d_array_argument_is_refused():
    with pytest.raises(s2sad.S2sadError, match="in-place update of the argument 'x'"):
        s2sad.grad(C.add_to_argument)(np.array(0.7))


@pytest.mark.parametrize("number", [0.7, np.float64(0.7)], ids=["float", "numpy-number"])
def test_a_number_argument_updated_into_an_array(number):
    """``x *= v`` makes ``x`` an array in the first turn; the caller's number is left as it
    is, so the later turns change the function's own array, not the caller's."""
    v = np.array([0.3, -0.5, 0.9])
    expected = (C.becomes_an_array_in_a_loop(0.7 + 1e-6, v) -
                C.becomes_an_array_in_a_loop(0.7 - 1e-6, v)) / 2e-6
    assert np.isclose(s2sad.grad(C.becomes_an_array_in_a_loop)(number, v), expected, rtol=1e-6)
    value, pushforward = s2sad.jvp(C.becomes_an_array_in_a_loop)(number, v)
    assert np.isclose(pushforward(1.0), expected, rtol=1e-6)


def test_a_zero_d_array_argument_updated_in_a_loop_is_refused():
    with pytest.raises(s2sad.S2sadError, match="in-place update of the argument 'x'"):
        s2sad.grad(C.becomes_an_array_in_a_loop)(np.array(0.7), np.array([0.3, -0.5, 0.9]))
