"""Findings of the s25 adversarial pass: internal errors on valid code, and refusals
located at s2sad's own stand-in lines in place of the user's.

* ``np.cumsum(x, axis=-1)`` (and cumprod, nancumsum, nancumprod) of a 0-d value: NumPy
  reads it as one entry whatever the axis (a result of shape ``(1,)``);
* the adjoints of ``np.maximum``, ``np.clip``... compare their argument: a list argument
  is read as the array NumPy's function reads;
* ``check_grads(..., wrt="x")`` takes a name, as ``grad`` does;
* a function with ``*args``: its non-scalar output and its refusals name the user's line.
"""

import inspect

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences


def line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


# --- cumulative sums and products of a 0-d value -------------------------------------------

def cumsum_last(x):
    return np.sum(np.cumsum(x, axis=-1) ** 2)


def cumsum_first(x):
    return np.sum(np.cumsum(np.sin(x), 0) * 3.0)


def cumprod_last(x):
    return np.sum(np.cumprod(x, axis=-1) ** 3)


def cumprod_of_square(x):
    return np.sum(np.cumprod(x * x, axis=0) * 2.0)


def nancumsum_first(x):
    return np.sum(np.nancumsum(x, axis=0) ** 2)


def nancumprod_last(x):
    return np.sum(np.nancumprod(x, axis=-1) ** 3)


def cumsum_method(x):
    return np.sum(np.asarray(x).cumsum(-1) ** 2)


CUMULATIVE = [cumsum_last, cumsum_first, cumprod_last, cumprod_of_square, nancumsum_first,
              nancumprod_last, cumsum_method]
ZERO_D = {"float": 0.9, "np.float64": np.float64(0.9), "0-d array": np.array(0.9)}


@pytest.mark.parametrize("kind", list(ZERO_D))
@pytest.mark.parametrize("f", CUMULATIVE, ids=lambda f: f.__name__)
def test_cumulative_of_a_0d_value_matches_central_differences(f, kind):
    x = ZERO_D[kind]
    got = s2sad.grad(f)(x)
    assert np.shape(got) == ()  # (a scalar, as x is: not NumPy's (1,) of the cumsum)
    assert np.allclose(got, central_differences(f, (float(x),), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kind", list(ZERO_D))
@pytest.mark.parametrize("f", CUMULATIVE, ids=lambda f: f.__name__)
def test_cumulative_of_a_0d_value_second_order(f, kind):
    s2sad.check_grads(f, (ZERO_D[kind],), order=2)


def test_cumulative_of_a_0d_value_forward_mode():
    value, push = s2sad.jvp(cumprod_last)(np.array(0.9))
    assert np.isclose(push(np.array(1.0)), 3 * 0.9 ** 2)
    assert np.isclose(value, 0.9 ** 3)


# --- list arguments to the rules whose adjoints compare them -------------------------------

def maximum_of_list(x):
    return np.sum(np.maximum(x, 0.2) * np.asarray(x))


def maximum_first_constant(x):
    return np.sum(np.maximum(0.2, x) ** 2)


def minimum_of_list(x):
    return np.sum(np.minimum(x, 0.3) ** 2)


def fmax_fmin_of_list(x):
    return np.sum(np.fmax(x, 0.2) ** 2 + np.fmin(x, 0.3) ** 3)


def clip_of_list(x):
    return np.sum(np.clip(x, 0.0, 0.5) ** 2)


def clip_low_of_list(x):
    return np.sum(np.clip(x, 0.15, None) ** 2)


def abs_clip_minimum(x):
    return np.sum(np.abs(x) + np.clip(x, 0.0, 0.5) + np.minimum(x, 0.3))


def heaviside_of_list(x):
    return np.sum(np.heaviside(x, 0.5) * np.asarray(x) + np.sign(x) * np.sin(x))


def sinc_of_list(x):
    return np.sum(np.sinc(x) ** 2)


def negative_of_list(x):
    return np.sum(np.negative(x) ** 3 + np.reciprocal(x))


LISTS = [maximum_of_list, maximum_first_constant, minimum_of_list, fmax_fmin_of_list,
         clip_of_list, clip_low_of_list, abs_clip_minimum, heaviside_of_list, sinc_of_list,
         negative_of_list]


@pytest.mark.parametrize("f", LISTS, ids=lambda f: f.__name__)
def test_list_argument_matches_central_differences(f):
    x = [0.4, 0.1, 0.7]
    got = s2sad.grad(f)(x)
    assert isinstance(got, list)
    assert np.allclose(got, central_differences(lambda v: f(list(v)), (x,), 0),
                       rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", LISTS, ids=lambda f: f.__name__)
def test_list_argument_forward_mode_and_second_order(f):
    s2sad.check_grads(f, ([0.4, 0.1, 0.7],), order=2)


# --- check_grads with wrt names ------------------------------------------------------------

def tanh_power(x, w):
    return np.sum(np.tanh(w * x) ** 2)


def test_check_grads_takes_names():
    args = (np.array([0.3, -0.5]), 0.8)
    s2sad.check_grads(tanh_power, args, order=2, wrt="x")
    s2sad.check_grads(tanh_power, args, order=1, wrt=("x", "w"))


def test_check_grads_names_are_checked():
    def wrong(x, w):
        return np.sum(w * x ** 2)

    @s2sad.custom_vjp(wrong)
    def wrong_vjp(g, ans, x, w):
        return g * w * x, g * np.sum(x ** 2)  # (x's part should be 2 w x)

    def uses(x, w):
        return wrong(x, w) * 1.0

    with pytest.raises(s2sad.GradientCheckError, match="argument 0"):
        s2sad.check_grads(uses, (np.array([0.3, -0.5]), 0.8), order=1, modes="rev", wrt="x")
    s2sad.check_grads(uses, (np.array([0.3, -0.5]), 0.8), order=1, modes="rev", wrt="w")


def test_check_grads_unknown_name_is_refused():
    with pytest.raises(s2sad.DifferentiationError, match="'y' is not an argument of "
                       "tanh_power; its arguments are x, w"):
        s2sad.check_grads(tanh_power, (np.array([0.3]), 0.8), wrt="y")


# --- functions with *args: the user's lines -------------------------------------------------

def scaled_by_first(x, *ws):
    return x * ws[0]


def sum_of_functions(x, *fs):
    return sum(np.sum(g(x)) for g in fs)


def test_non_scalar_output_of_star_args_function_names_the_return():
    with pytest.raises(s2sad.NonScalarOutputError) as info:
        s2sad.grad(scaled_by_first)(np.ones(2), 2.0)
    err = info.value
    assert err.filename == __file__
    assert err.lineno == line_of(scaled_by_first, "return x * ws[0]")
    assert "return x * ws[0]" in str(err)
    assert "s2sad.vjp" in err.hint


def test_refusal_inside_star_args_function_names_the_users_line():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(sum_of_functions)(np.ones(2), np.tanh)
    err = info.value
    assert err.filename == __file__
    assert err.lineno == line_of(sum_of_functions, "for g in fs")
    assert "s2sad: " not in str(err).splitlines()[1]  # (not the flat function's stand-in)
    assert "register a rule" in err.hint


# --- Python's min and max of one iterable ----------------------------------------------------

def min_and_max_of_array(x):
    return min(x) * 2.0 + max(x) ** 2


def max_of_list_display(x):
    return max([x[0] * x[1], x[2]]) + min(x[0], x[1])


@pytest.mark.parametrize("x", [np.array([0.3, 0.1, 0.7, 0.2, 0.6]), [0.3, 0.1, 0.7, 0.2]],
                         ids=["array", "list"])
def test_min_max_of_one_iterable_match_central_differences(x):
    got = s2sad.grad(min_and_max_of_array)(x)
    assert type(got) is type(x)
    again = np.asarray if isinstance(x, np.ndarray) else list
    expected = central_differences(lambda v: min_and_max_of_array(again(v)), (x,), 0)
    assert np.allclose(got, expected, rtol=1e-6, atol=1e-8)
    s2sad.check_grads(min_and_max_of_array, (x,), order=2)


def test_max_of_a_list_display():
    x = np.array([0.5, 0.9, 0.3])
    assert np.allclose(s2sad.grad(max_of_list_display)(x),
                       central_differences(max_of_list_display, (x,), 0))
    s2sad.check_grads(max_of_list_display, (x,), order=2)


def test_min_max_ties_go_to_the_first_item_as_python_picks():
    x = np.array([0.1, 0.7, 0.1, 0.7])
    assert np.array_equal(s2sad.grad(min_and_max_of_array)(x), [2.0, 1.4, 0.0, 0.0])
    _, push = s2sad.jvp(min_and_max_of_array)(x)
    assert np.isclose(push(np.array([1.0, 2.0, 3.0, 4.0])), 2.0 * 1.0 + 1.4 * 2.0)


def function_in_double_star(x, **kw):
    g = kw["f"]  # (read as a value: kw["f"](x) is the call, test_function_values_more)
    return np.sum(g(x) * kw["s"])


def test_function_in_double_star_is_refused_at_the_users_def():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(function_in_double_star)(np.ones(2), f=np.sin, s=2.0)
    err = info.value
    assert err.filename == __file__
    assert err.lineno == line_of(function_in_double_star, "def function_in_double_star")
    assert "a function passed in function_in_double_star()'s *kw or **kw" in str(err)
    assert "Pass it as a named parameter" in err.hint
