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


_M = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.3], [0.2, 0.1, 0.6]])


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_an_item_of_an_argument_updated_where_the_kinds_cannot_say_it_is_a_number(optimize):
    """``t = M.T[1, -1]; t *= v``: an item of an array whose rank the kinds cannot say is
    a NumPy number, a copy; checked a number when it runs, and differentiated (it was
    refused as an in-place update of the argument 'M', in the long fuzz profile)."""
    f, M, a = C.item_of_a_transposed_argument_updated, _M.copy(), 0.3
    eps = 1e-6
    by_a = (f(M, a + eps) - f(M, a - eps)) / (2 * eps)
    by_m = np.zeros_like(M)
    for i in np.ndindex(M.shape):
        step = np.zeros_like(M)
        step[i] = eps
        by_m[i] = (f(M + step, a) - f(M - step, a)) / (2 * eps)
    gradient = s2sad.grad(f, (0, 1), optimize=optimize)(M, a)
    np.testing.assert_allclose(gradient[0], by_m, rtol=1e-6, atol=1e-9)
    assert gradient[1] == pytest.approx(by_a, rel=1e-6)
    value, pushforward = s2sad.jvp(f, 1, optimize=optimize)(M, a)
    assert value == pytest.approx(f(M, a)) and pushforward(1.0) == pytest.approx(by_a, rel=1e-6)
    second = (s2sad.grad(f, 1)(M, a + eps) - s2sad.grad(f, 1)(M, a - eps)) / (2 * eps)
    assert s2sad.hessian(f, 1, optimize=optimize)(M, a) == pytest.approx(second, rel=1e-5)
    np.testing.assert_array_equal(M, _M)  # (the caller's array: unchanged)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_row_of_an_argument_updated_is_refused_when_it_runs(mode):
    """``t = M.T[1]; t *= v``: where the run says ``t`` is an array, a row of the caller's
    ``M``, the check refuses it at the user's line, with the advice."""
    f, M = C.row_of_a_transposed_argument_updated, _M.copy()
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        if mode == "grad":
            s2sad.grad(f, 1)(M, 0.3)
        else:
            s2sad.jvp(f, 1)(M, 0.3)[1](1.0)
    message = str(info.value)
    assert "in-place update of 't', which shares its memory with the argument 'M': " \
        "here an array" in message, message
    assert "Write `t = t * ...` for a new value" in message, message
    assert info.value.filename == C.__file__
    assert info.value.lineno == f.__code__.co_firstlineno + 2
    if mode == "grad":
        np.testing.assert_array_equal(M, _M)  # (refused before the update)
