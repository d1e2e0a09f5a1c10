"""Session 37's soundness hunt: functions where s2sad gave a wrong value or gradient
without raising. Each is checked against float64 central differences, or against the
refusal it now gets at the user's line.

On main (045ed3c), 16 of 21 fail: test_try_keeps_what_ran_before_the_raise 3 of 3 (the
handler's path left out the statements that ran: value and gradient wrong),
test_try_half_changed_name_is_refused 1 of 2 (nested unpacking: a wrong value), the
6 stand-in tests (0-d arrays where NumPy gives numbers; the in-place one refused), and
test_in_place_update_raises_as_numpy 6 of 6 (a gradient where Python raises).
"""
import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences

X = np.array([0.3, 1.2, 2.0])


def central(f, x):
    return central_differences(f, (x,), 0)


def check(f, x):
    value, grad = s2sad.value_and_grad(f)(x.copy())
    np.testing.assert_allclose(value, f(x.copy()), rtol=1e-12)
    np.testing.assert_allclose(grad, central(f, x), rtol=1e-6, atol=1e-8)


# --- try: the statements that ran before the one that raised keep their values ---------

def doubled_then_out_of_range(x):
    y = x[0]
    try:
        y = y * 2
        z = x[7]  # (IndexError: y stays doubled)
    except IndexError:
        pass
    return y * x[1]


def two_ran_then_index(x):
    a = x[0]
    b = x[1]
    try:
        a = a * b
        b = a + b
        c = [1.0][int(x[2])]  # (x[2] = 2.0: IndexError after a and b changed)
    except IndexError:
        c = 0.0
    return a * b + c


def factor_then_singular_solve(x):
    m = np.outer(x[:2], [1.0, 0.0])  # (a column of zeros: singular)
    try:
        scale = np.sum(m) * x[2]
        v = np.linalg.solve(m, x[1:])
    except np.linalg.LinAlgError:
        v = x[1:] * scale
    return np.sum(v ** 2)


@pytest.mark.parametrize("f", [doubled_then_out_of_range, two_ran_then_index,
                               factor_then_singular_solve],
                         ids=lambda f: f.__name__)
def test_try_keeps_what_ran_before_the_raise(f):
    check(f, X)


def nothing_raised_in_two_statements(x):
    try:
        y = x[0] * 2
        z = x[1] * y
    except IndexError:
        z = 0.0
    return z * x[2]


def test_try_of_two_statements_that_raise_nothing():
    check(nothing_raised_in_two_statements, X)


def nested_unpacking_fails(x):
    a = x[0]
    try:
        a, (b, c) = x[1] * 2, (x[2],)  # (a stored, then the inner unpacking fails)
    except ValueError:
        pass
    return a


def loop_stopped_partway(x):
    s = 0.0
    try:
        for i in range(4):
            s = s + x[i] * 2  # (x[3]: IndexError, s holds three terms)
    except IndexError:
        pass
    return s


@pytest.mark.parametrize("f, line", [(nested_unpacking_fails, "a, (b, c) = "),
                                     (loop_stopped_partway, "s = s + x[i]")],
                         ids=["nested_unpacking", "loop"])
def test_try_half_changed_name_is_refused(f, line):
    with pytest.raises(s2sad.S2sadError) as info:
        s2sad.grad(f)(X.copy())
    text = str(info.value)
    assert "half-changed" in text or "used before it is assigned" in text
    if "half-changed" in text:
        assert "test_hunt_s37.py" in text


def handler_assigns_it_first(x):
    a = x[0]
    try:
        a, (b, c) = x[1] * 2, (x[2],)
    except ValueError:
        a = x[2] * 5
    return a


def test_half_changed_name_assigned_first_in_the_handler():
    check(handler_assigns_it_first, X)


# --- a stand-in's result is a NumPy number where NumPy's is ----------------------------
# (np.quantile, np.percentile, np.interp and np.nanstd, written with np.where, gave 0-d
# arrays: `isinstance(q, float)` and `type(q)` read them differently than Python does)

KNOTS = np.array([-1.0, 0.0, 1.0])
V = np.array([0.37, -1.23, 2.11, 0.52, -0.81])


def quantile_checked_as_float(x):
    q = np.quantile(x, 0.3)
    if isinstance(q, float):
        return q * 2
    return q * 3


def percentile_by_type(x):
    q = np.percentile(x, 30)
    return q * (2.0 if type(q) is np.float64 else 5.0)


def interp_checked_as_float(x):
    v = np.interp(0.5, KNOTS, x[:3])
    if isinstance(v, float):
        return v * 2
    return v * 3


def nanstd_checked_as_float(x):
    s = np.nanstd(x)
    return s * (2.0 if isinstance(s, float) else 5.0)


def quantile_updated_in_place(x):
    q = np.quantile(x, 0.3)
    r = q
    q += 1.0  # (a NumPy number: r keeps its value)
    return r * x[0]


@pytest.mark.parametrize("f", [quantile_checked_as_float, percentile_by_type,
                               interp_checked_as_float, nanstd_checked_as_float,
                               quantile_updated_in_place], ids=lambda f: f.__name__)
def test_a_stand_in_gives_a_numpy_number(f):
    check(f, V)


def test_a_stand_in_gives_numpys_type():
    value, _ = s2sad.value_and_grad(lambda_free_quantile)(V.copy())
    assert type(value) is type(lambda_free_quantile(V.copy())) is np.float64


def lambda_free_quantile(x):
    return np.quantile(x, 0.3)


# --- `x += e` on an array: NumPy's in-place update keeps x's dtype and shape, or raises ----
# (s2sad wrote it `x = x + e`, a new value: a float into an integer array, or a result
# larger than x, gave a gradient where Python raises)

def counts_plus_weights(x):
    a = np.arange(3)
    a += x  # (UFuncTypeError: float64 into int64)
    return np.sum(a)


def counts_halved(x):
    a = np.arange(3)
    a /= 2  # (true division into integers)
    return np.sum(a * x)


def mask_incremented(x):
    m = x > 0
    m += 1  # (int64 into bool)
    return np.sum(m * x)


def integer_slice_plus(x):
    a = np.arange(3)
    a[:2] += x[:2]  # (the slice, a view, updated in place: raises)
    return np.sum(a * x)


def accumulator_too_small(x):
    total = np.zeros(1)
    total += x  # (ValueError: non-broadcastable output operand)
    return np.sum(total)


def accumulator_grows(x):
    a = np.zeros(3)
    a *= x.reshape(3, 1)
    return np.sum(a)


@pytest.mark.parametrize("f", [counts_plus_weights, counts_halved, mask_incremented,
                               integer_slice_plus, accumulator_too_small, accumulator_grows],
                         ids=lambda f: f.__name__)
def test_in_place_update_raises_as_numpy(f):
    with pytest.raises((TypeError, ValueError)) as python:
        f(X.copy())
    with pytest.raises(type(python.value)) as ours:
        s2sad.grad(f)(X.copy())
    assert str(ours.value).split("\ns2sad: ")[0] == str(python.value)


def integer_counts_plus_integers(x):
    a = np.arange(3)
    a += np.array([1, 2, 3])  # (integers into integers: fine)
    a[1:] *= 2
    return np.sum(a * x)


def float_accumulator(x):
    total = np.zeros(3)
    total += x * x
    total[1:] -= x[:2]
    return np.sum(total * x)


@pytest.mark.parametrize("f", [integer_counts_plus_integers, float_accumulator],
                         ids=lambda f: f.__name__)
def test_in_place_updates_numpy_allows(f):
    check(f, X)
