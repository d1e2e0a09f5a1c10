"""Structural zeros in loops with swaps, breaks and values overwritten on some passes.

Whether a value is read depends here on how many passes run, or which: the reverse sweep
cannot know it when it is built. Its rule runs under a flag (``if got_a:``), set where
its sensitivity is added to. Where every pass adds to it, no flag at all.
Each gradient is checked against central differences.
"""

import warnings

import numpy as np
import pytest

import s2sad


def central(f, x, *rest, h=1e-6):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (the unused NaN, computed)
        return (f(x + h, *rest) - f(x - h, *rest)) / (2 * h)


def swapped(x, n):
    a = np.sqrt(x - 2.0)  # slope inf at x = 2: read after an odd number of swaps only
    b = x * 3.0
    for i in range(n):
        a, b = b, a
    return b


def swapped_in_a_while(x, n):
    a = np.log(x - 2.0)  # slope inf at x = 2
    b = x * 3.0
    i = 0
    while i < n:
        a, b = b * 1.0, a
        i = i + 1
    return b


def broken_off(x, n):
    y = np.sqrt(x - 2.0)  # read only where the loop runs a pass before its break
    s = x * 1.0
    for i in range(5):
        if i >= n:
            break
        s = s + y
    return s


def overwritten_on_one_pass(x, n):
    y = np.sqrt(x - 2.0)  # overwritten where the loop reaches its second pass
    for i in range(n):
        if i == 1:
            y = x * 2.0
    return y


def passed_along(x, n):
    a = np.sqrt(x - 2.0)  # moved one place along a chain each pass: returned after 2 passes (or 5...)
    b = x * 2.0
    c = x * 5.0
    for i in range(n):
        a, b, c = c, a, b
    return c * 1.0


# (x, n): a point where the value is unused (and its slope infinite), then one where it is
UNUSED = [(swapped, 2), (swapped, 0), (swapped_in_a_while, 2), (broken_off, 0),
          (overwritten_on_one_pass, 2), (overwritten_on_one_pass, 3), (passed_along, 1),
          (passed_along, 3)]
USED = [(swapped, 1), (swapped, 3), (swapped_in_a_while, 1), (broken_off, 2),
        (overwritten_on_one_pass, 1), (passed_along, 2)]


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "unoptimized"])
@pytest.mark.parametrize("f, n", UNUSED, ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_value_a_loop_leaves_unused_adds_nothing(f, n, optimize):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = s2sad.grad(f, optimize=optimize)(2.0, n)
    expected = central(f, 2.0, n)
    assert np.isfinite(expected)
    assert np.isclose(got, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f, n", USED, ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_value_a_loop_reads_gets_its_gradient(f, n):
    got = s2sad.grad(f)(3.5, n)
    assert np.isclose(got, central(f, 3.5, n), rtol=1e-6)


def test_the_swapped_value_runs_under_a_flag():
    src = s2sad.grad(swapped).source_for(2.0, 2)
    assert "if got_a:" in src


@pytest.mark.parametrize("n", [0, 1, 2])
def test_the_numba_target_compiles_the_flags(n):
    pytest.importorskip("numba")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = s2sad.grad(swapped, target="numba")(2.0 if n != 1 else 3.5, n)
    assert np.isclose(got, central(swapped, 2.0 if n != 1 else 3.5, n), rtol=1e-6)


def fibonacci(x):
    a = np.sqrt(x)
    b = x * 1.0
    for i in range(4):
        a, b = b, a + b  # a swap, every value read on every pass
    return a * b


def broken_rnn(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        if np.sum(h) > 100.0:
            break
    return np.sum(h * h)


def test_values_every_pass_reads_get_no_flag():
    assert "got_" not in s2sad.grad(fibonacci).source_for(2.0)
    assert np.isclose(s2sad.grad(fibonacci)(2.0), central(fibonacci, 2.0), rtol=1e-6)
    rng = np.random.default_rng(1)
    W, xs = rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(4, 3))
    grad = s2sad.grad(broken_rnn)
    assert "got_" not in grad.source_for(W, xs)
    e = np.zeros_like(W)
    e[0, 1] = 1e-6
    slope = (broken_rnn(W + e, xs) - broken_rnn(W - e, xs)) / 2e-6
    assert np.isclose(grad(W, xs)[0, 1], slope, rtol=1e-6)


def spread_then_unused(v, m, c):
    t = m + v  # (2, 2, 3) from (3,): v's sensitivity sums s_t over two axes
    y = np.sqrt(t - 3.0)  # unused where c > 0: s_t is left 0.0, which has no axes
    if c > 0:
        z = np.sum(v * 2.0)
    else:
        z = np.sum(y)
    return z


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_a_sensitivity_a_skipped_rule_leaves_zero_is_summed_by_the_helper(c):
    v, m = np.array([4.0, 5.0, 6.0]), np.ones((2, 2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = s2sad.grad(spread_then_unused)(v, m, c)
    for i in range(3):
        e = np.zeros(3)
        e[i] = 1e-6
        slope = (spread_then_unused(v + e, m, c) - spread_then_unused(v - e, m, c)) / 2e-6
        assert np.isclose(got[i], slope, rtol=1e-6)


def times_a_nan(x, w):
    y = x * w  # w is NaN: so is y's slope with respect to x
    for i in range(2):
        if i > 5:
            x = x + y
    return x * 2.0


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "unoptimized"])
def test_a_product_with_a_nan_no_one_reads_adds_nothing(optimize):
    got = s2sad.grad(times_a_nan, optimize=optimize)(1.5, np.nan)
    assert np.isclose(got, central(times_a_nan, 1.5, np.nan), rtol=1e-6)
