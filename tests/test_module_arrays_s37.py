"""A module's array cast to a new one (``G0.astype(float)``): the result's dtype is read
from the cast, and it is a new array the function owns, so a value with a derivative may be
stored into it. Found by the fuzz's long profile (seed 37100, 20 statements); 11 of the 14
tests below fail on main (all but the three refusals). A cast that may return the module's
own memory (``copy=False``), a view (``reshape``) and a copy of unknown dtype
(``G0.copy()``) stay refused."""

import numpy as np
import pytest

import s2sad
from s2sad.errors import DifferentiationError

G0 = np.array([0.5, -0.25, 1.0])


def cast_float64(x):
    s_z = G0.astype(np.float64)
    s_z[1:] = np.array([x, 2 * x])
    return np.sum(s_z * s_z)


def cast_string(x):
    s_z = G0.astype("float64")
    s_z[0] = np.sin(x)
    return np.sum(s_z ** 3)


def cast_builtin(x):
    s_z = G0.astype(float)
    s_z[2] = x * x
    return np.prod(s_z)


def cast_keyword(x):
    s_z = G0.astype(dtype=np.float64)
    s_z[0] = x
    return np.sum(np.exp(s_z))


def cast_in_a_loop(x):
    total = 0.0
    for k in range(3):
        s_z = G0.astype(float)
        s_z[k] = x * (k + 1)
        total = total + np.sum(s_z * G0)
    return total


def cast_float32(x):
    s_z = G0.astype(np.float32)
    s_z[0] = x
    return float(np.sum(s_z)) * x


def maybe_the_module_array(x):
    s_z = G0.astype(float, copy=False)
    s_z[0] = x
    return np.sum(s_z * s_z)


def a_view_of_the_module_array(x):
    s_z = G0.reshape(3)
    s_z[0] = x
    return np.sum(s_z)


def a_copy_of_unknown_dtype(x):
    s_z = G0.copy()
    s_z[0] = x
    return np.sum(s_z)


def central(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


@pytest.mark.parametrize("f", [cast_float64, cast_string, cast_builtin, cast_keyword,
                               cast_in_a_loop])
@pytest.mark.parametrize("x", [0.3, -1.1])
def test_a_cast_module_array_takes_a_derivative(f, x):
    before = G0.copy()
    assert s2sad.grad(f)(x) == pytest.approx(central(f, x), rel=1e-7, abs=1e-9)
    assert np.array_equal(G0, before)  # (the module's array is left as it was)


def test_a_cast_to_float32_rounds_as_numpy_does():
    x = 0.3
    value, slope = s2sad.value_and_grad(cast_float32)(x)
    assert value == cast_float32(x)
    # d/dx (x * s) with s the float32 sum of x, G0[1], G0[2]: s + x
    total = float(np.sum(np.array([x, *G0[1:]], dtype=np.float32)))
    assert slope == pytest.approx(total + x, rel=1e-6)


@pytest.mark.parametrize("f", [maybe_the_module_array, a_view_of_the_module_array,
                               a_copy_of_unknown_dtype])
def test_the_module_array_itself_stays_refused(f):
    before = G0.copy()
    with pytest.raises(DifferentiationError) as info:
        s2sad.grad(f)(0.3)
    assert "s_z[0] = x" in str(info.value)
    assert np.array_equal(G0, before)
