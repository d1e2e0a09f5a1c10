"""``target="numba"``, session 28: programs numba compiles that the target refused.

``reversed(range(a, b, step))`` and ranges with a step, ``np.prod`` and ``np.cumsum`` of a
whole array, slices, rows of a matrix, early returns and whole-array sums in loops. Each
gradient is checked against the NumPy target's and central differences in float64; what
is still refused is refused at the user's line with the reason. Skipped without numba.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import s2sad
from s2sad.errors import UnsupportedSyntaxError
from tests.test_higher_order import central_differences

numba = pytest.importorskip("numba")


def check(f, args, wrt=0, rtol=1e-6):
    """The numba gradient: the NumPy target's (to rounding), and central differences'."""
    got = s2sad.grad(f, wrt, target="numba")(*args)
    expected = s2sad.grad(f, wrt, target="numpy")(*args)
    assert type(got) is type(expected)
    assert np.shape(got) == np.shape(expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, central_differences(f, args, wrt), rtol=rtol, atol=1e-8)
    return got


def refused(f, args, line, *words):
    """``f``'s numba gradient is refused at its ``line``-th line, saying ``words``."""
    with pytest.raises(UnsupportedSyntaxError, match="numba") as info:
        s2sad.grad(f, target="numba")(*args)
    assert info.value.lineno == f.__code__.co_firstlineno + line
    for word in words:
        assert word in str(info.value), str(info.value)


# --- ranges with a step, walked backwards -------------------------------------------------


def backwards_by_two(x, n):
    s = 0.0
    for i in reversed(range(1, n, 2)):
        s = s * 0.5 + x * i
    return s


def backwards_by_minus_three(x, a):
    s = 0.0
    for i in reversed(range(a, -2, -3)):
        s = math.sin(s) + x * i
    return s


def backwards(x, n):
    s = 0.0
    for i in reversed(range(n)):
        s = s * 0.5 + math.cos(x * i)
    return s


def backwards_from(x, a, b):
    s = 0.0
    for i in reversed(range(a, b)):
        s = s * x + i
    return s


def forwards_by_a_step(x, n, k):
    s = x
    for i in range(1, n, k):
        s = s * 0.9 + math.sin(s) * 0.05 * i
    return s


def every_other_item(x):
    s = 0.0
    for i in reversed(range(0, x.shape[0], 2)):
        s = s * 0.5 + x[i] * x[i]
    return s


def odd_items_down(x):
    s = 0.0
    for i in range(x.shape[0] - 1, -1, -2):
        s = np.tanh(s + x[i])
    return s


RANGES = [
    pytest.param(backwards_by_two, (1.3, 9), id="reversed-step-2"),
    pytest.param(backwards_by_two, (1.3, 1), id="reversed-step-2-empty"),
    pytest.param(backwards_by_minus_three, (0.7, 11), id="reversed-step-minus-3"),
    pytest.param(backwards, (0.4, 7), id="reversed-range-n"),
    pytest.param(backwards_from, (0.9, 2, 7), id="reversed-range-a-b"),
    pytest.param(forwards_by_a_step, (0.6, 12, 3), id="range-variable-step"),
    pytest.param(forwards_by_a_step, (0.6, 12, 1), id="range-variable-step-1"),
    pytest.param(every_other_item, (np.linspace(0.5, 1.5, 7),), id="reversed-array-step"),
    pytest.param(odd_items_down, (np.linspace(-0.5, 1.5, 6),), id="range-negative-step"),
]


@pytest.mark.parametrize("f, args", RANGES)
def test_ranges_with_a_step_and_reversed_ranges(f, args):
    check(f, args)


def test_a_reversed_range_is_a_range_of_its_own():
    source = s2sad.grad(backwards_by_two, target="numba").source_for(1.3, 9)
    assert "list(" not in source and "reversed" not in source, source
    assert "range_last(" in source  # (the forward loop's reverse, from its last value)
    numpy_source = s2sad.grad(backwards_by_two).source_for(1.3, 9)
    assert "list(reversed" not in numpy_source, numpy_source


def backwards_by_a_variable_step(x, n, k):
    s = 0.0
    for i in reversed(range(1, n, k)):
        s = s * 0.5 + x * i
    return s


def test_reversed_range_with_a_variable_step_is_refused_with_the_reason():
    refused(backwards_by_a_variable_step, (1.3, 9, 2), 2, "reversed(range(...))",
            "step that is not a number written out")
    got = s2sad.grad(backwards_by_a_variable_step)(1.3, 9, 2)  # (NumPy's target takes it)
    np.testing.assert_allclose(got, central_differences(backwards_by_a_variable_step,
                                                        (1.3, 9, 2), 0), rtol=1e-6)


def test_the_kernels_last_value_of_a_range_is_pythons():
    from s2sad.runtime.numba_tape import range_last
    compiled = numba.njit(lambda a, b, s: range_last(a, b, s))
    for a in range(-6, 7):
        for b in range(-6, 7):
            for s in (-4, -3, -1, 1, 2, 5):
                walked = list(range(compiled(a, b, s), a - s, -s))
                assert walked == list(reversed(range(a, b, s))), (a, b, s)
    with pytest.raises(ValueError, match="must not be zero"):
        compiled(1, 5, 0)


# --- np.prod and np.cumsum ----------------------------------------------------------------


def product(x):
    return np.prod(x)


def product_of_sines(x):
    return np.prod(np.sin(x)) * 2.0


def cumulative(x):
    return np.sum(np.cumsum(x) ** 2)


def cumulative_of_a_matrix(x):
    return np.sum(np.tanh(np.cumsum(x * x)))


_rng = np.random.default_rng(28)
W = _rng.standard_normal((3, 4))

REDUCTIONS = [
    pytest.param(product, (np.linspace(0.5, 1.5, 6),), id="prod"),
    pytest.param(product, (np.array([0.5, 0.0, 2.0, 3.0]),), id="prod-with-a-zero"),
    pytest.param(product, (W,), id="prod-2d"),
    pytest.param(product_of_sines, (np.linspace(0.2, 1.4, 5),), id="prod-of-sin"),
    pytest.param(cumulative, (np.linspace(-1.0, 1.5, 6),), id="cumsum"),
    pytest.param(cumulative_of_a_matrix, (W,), id="cumsum-2d"),
]


@pytest.mark.parametrize("f, args", REDUCTIONS)
def test_prod_and_cumsum_of_a_whole_array(f, args):
    check(f, args)


def test_the_product_with_a_zero_is_exact():
    x = np.array([0.5, 0.0, 2.0, 3.0])
    got = s2sad.grad(product, target="numba")(x)
    np.testing.assert_array_equal(got, [0.0, 3.0, 0.0, 0.0])


def test_prod_and_cumsum_keep_float32():
    x32 = np.linspace(0.5, 1.5, 5).astype(np.float32)
    for f in (product, cumulative):
        got = s2sad.grad(f, target="numba")(x32)
        expected = s2sad.grad(f)(x32)
        assert got.dtype == np.float32 == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-5)


def product_over_axes(x):
    return np.sum(np.prod(x, axis=(0, 1)))


def cumulative_with_a_dtype(x):
    return np.sum(np.cumsum(x, axis=0, dtype=np.float64) ** 2)


def test_prod_and_cumsum_over_axes_or_with_a_dtype_are_refused_at_the_users_line():
    # (along one axis they compile since session 29: tests/test_numba_target_s29.py)
    refused(product_over_axes, (W,), 1, "np.prod(...) with a dtype, a tuple of axes",
            "one axis")
    refused(cumulative_with_a_dtype, (W,), 1, "np.cumsum(...) with a dtype", "one axis")


# --- slices and rows ----------------------------------------------------------------------


def neighbours(x):
    return np.sum(x[1:] * x[:-1]) + np.sum(x[::2])


def differences(x):
    d = x[1:] - x[:-1]
    return np.sum(d * d) + np.sum(np.sin(x[::-2]))


def block(W):
    return np.sum(np.tanh(W[1:, :-1]) * W[:-1, 1:])


def rows(W, x):
    s = 0.0
    for i in range(W.shape[0]):
        s = s + np.sum(W[i] * x)
    return s


def rows_sliced(W, x):
    s = 0.0
    for i in range(W.shape[0]):
        s = s + np.sum(W[i, :] * x)
    return s


def rows_made_new(W, x):
    h = x
    for i in range(W.shape[0]):
        h = np.tanh(W[i, :] * h)
    return np.sum(h)


def columns(W):
    s = 0.0
    for j in range(W.shape[1]):
        s = s + np.sum(W[:, j] ** 2) * j
    return s


X = np.linspace(0.5, 1.5, 4)

SLICES = [
    pytest.param(neighbours, (np.linspace(0.5, 1.5, 7),), 0, id="x[1:]-x[:-1]-x[::2]"),
    pytest.param(differences, (np.linspace(-0.5, 1.5, 6),), 0, id="differences-x[::-2]"),
    pytest.param(block, (W,), 0, id="matrix-blocks"),
    pytest.param(rows, (W, X), 0, id="rows-W[i]"),
    pytest.param(rows, (W, X), 1, id="rows-W[i]-x"),
    pytest.param(rows_sliced, (W, X), 0, id="rows-W[i,:]"),
    pytest.param(rows_sliced, (W, X), 1, id="rows-W[i,:]-x"),
    pytest.param(rows_made_new, (W, X), 0, id="rows-W[i,:]-carried"),
    pytest.param(rows_made_new, (W, X), 1, id="rows-W[i,:]-carried-x"),
    pytest.param(columns, (W,), 0, id="columns-W[:,j]"),
]


@pytest.mark.parametrize("f, args, wrt", SLICES)
def test_slices_and_rows(f, args, wrt):
    check(f, args, wrt)


# --- early returns and whole-array sums in loops ------------------------------------------


def leaves_a_for_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + x * i
        if s > 3.0:
            return s * 2.0
    return s


def leaves_a_while_loop(x):
    while x < 100.0:
        x = x * 1.5
        if x > 20.0:
            return math.sin(x)
    return x


def leaves_with_an_array(x):
    for i in range(5):
        x = x * 1.1
        if np.sum(x) > 8.0:
            return np.sum(x ** 2)
    return np.sum(x)


def sums_in_a_loop(x):
    s = 0.0
    for i in range(4):
        x = x * 0.9 + 0.1
        s = s + np.sum(x)
    return s


def sum_of_the_argument_in_a_loop(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sum(x) * x[i] + np.mean(x * w) * i
    return s


LOOPS = [
    pytest.param(leaves_a_for_loop, (1.1, 10), 0, id="return-in-for"),
    pytest.param(leaves_a_for_loop, (0.1, 10), 0, id="return-in-for-not-taken"),
    pytest.param(leaves_a_while_loop, (1.2,), 0, id="return-in-while"),
    pytest.param(leaves_with_an_array, (np.linspace(0.5, 1.5, 6),), 0, id="return-array"),
    pytest.param(leaves_with_an_array, (np.linspace(0.1, 0.2, 3),), 0,
                 id="return-array-not-taken"),
    pytest.param(sums_in_a_loop, (np.linspace(0.5, 1.5, 6),), 0, id="np.sum-in-for"),
    pytest.param(sum_of_the_argument_in_a_loop, (X, X[::-1] + 1.0), 0, id="np.sum(x)-in-for"),
    pytest.param(sum_of_the_argument_in_a_loop, (X, X[::-1] + 1.0), 1, id="np.mean-in-for"),
]


@pytest.mark.parametrize("f, args, wrt", LOOPS)
def test_early_returns_and_sums_in_loops(f, args, wrt):
    check(f, args, wrt)


def calls_itself(x, n):
    if n == 0:
        return x
    return calls_itself(x * 1.1, n - 1)


def test_recursion_stays_refused_at_the_users_line():
    with pytest.raises(UnsupportedSyntaxError, match="numba"):
        s2sad.grad(calls_itself, target="numba")(0.5, 3)


def backwards_from_the_end(x):
    s = 0.0
    for i in reversed(range(x.shape[0] - 1, -1, -2)):
        s = s * 0.5 + x[i] ** 3
    return s


def backwards_rebinding(x, n):
    s = 0.0
    for i in reversed(range(1, n, 3)):
        s = s * 0.5 + x * i
        n = n - 1  # (the range was made before the loop: n changes nothing)
    return s + n


def forwards_rebinding(x, n):
    s = 0.0
    for i in range(1, n, 3):
        s = s * 0.5 + x * i
        n = n - 1
    return s + n


@pytest.mark.parametrize("f, args", [
    pytest.param(backwards_from_the_end, (np.linspace(0.5, 1.5, 7),), id="start-computed"),
    pytest.param(backwards_from_the_end, (np.linspace(0.5, 1.5, 6),), id="start-computed-even"),
])
def test_reversed_ranges_whose_bounds_are_computed(f, args):
    check(f, args)


@pytest.mark.parametrize("f", [backwards_rebinding, forwards_rebinding])
def test_a_range_whose_bound_the_body_rebinds_is_refused_with_the_reason(f):
    refused(f, (0.8, 11), 2, "bounds read n, which its body rebinds")
    np.testing.assert_allclose(s2sad.grad(f)(0.8, 11),  # (NumPy's target takes it)
                               central_differences(f, (0.8, 11), 0), rtol=1e-6)


# --- tapes of numbers ---------------------------------------------------------------------


def test_a_tape_of_numbers_holds_numbers_not_optional_ones():
    from s2sad.runtime.numba_tape import tape_value

    @numba.njit
    def saved(n):
        x = None  # (as the generated code starts a value a loop saves)
        tape = []
        for i in range(n):
            tape.append(tape_value(x))
            x = i * 1.5
        return tape
    assert list(saved(4)) == [0.0, 0.0, 1.5, 3.0]  # (the None, never read back: a zero)
    assert "list(float64)" in str(numba.typeof(saved(2)))


def springs(x, k):
    f = np.zeros(x.shape[0])
    for _ in range(3):
        for i in range(x.shape[0] - 1):
            d = x[i + 1] - x[i]
            fi = k * (d - 1.0) + 0.1 * math.sin(d)
            f[i] = f[i] + fi
            f[i + 1] = f[i + 1] - fi
        x = x + 0.01 * f
    return np.sum(x * x)


def test_nested_loops_save_numbers_on_typed_tapes():
    args = (np.arange(6) * 1.1, 2.0)
    source = s2sad.grad(springs, (0, 1), target="numba").source_for(*args)
    assert "push_float(stack_d, stack_d_n, d)" in source, source  # (an array of floats)
    got = s2sad.grad(springs, (0, 1), target="numba")(*args)
    expected = s2sad.grad(springs, (0, 1))(*args)
    for g, e, w in zip(got, expected, (0, 1)):
        np.testing.assert_allclose(g, e, rtol=1e-12)
        np.testing.assert_allclose(g, central_differences(springs, args, w), rtol=1e-6,
                                   atol=1e-8)


# --- the NumPy target walks the same ranges ------------------------------------------------


def two_walks_back(x):
    s = 0.0
    for i in reversed(range(1, x.shape[0], 2)):
        s = s * 0.5 + math.sin(x[i]) * x[i - 1]
    for i in reversed(range(x.shape[0])):
        s = s + x[i] ** 3
    return s


def test_reversed_ranges_on_the_numpy_target_to_second_order():
    x = np.linspace(0.3, 1.2, 7)
    np.testing.assert_allclose(s2sad.grad(two_walks_back)(x),
                               central_differences(two_walks_back, (x,), 0), rtol=1e-6)
    gradient = s2sad.grad(two_walks_back)
    np.testing.assert_allclose(s2sad.hessian(two_walks_back)(x),
                               central_differences(gradient, (x,), 0), rtol=1e-5, atol=1e-7)
