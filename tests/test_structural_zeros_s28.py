"""A value whose sensitivity is structurally zero contributes nothing to the gradient.

An unused value (a branch not taken, a loop's last pass, an item no one unpacks) adds
nothing, even where its slope is NaN or infinite: 0 * inf would be NaN. JAX and PyTorch
give the same. A value that is used, times 0.0 at run time, may still give NaN.
"""

import warnings

import numpy as np
import pytest

import s2sad


def central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def branch_not_taken(x):
    y = np.sqrt(x - 10.0)  # NaN slope at x = 3, used in the branch not taken
    if x > 0:
        z = x * 3.0
    else:
        z = y
    return z


def unpacked_but_unused(x):
    t = (np.sqrt(x - 10.0), x * 2.0)
    a, b = t
    return b


def last_pass_unused(x):
    s = 0.0
    y = 0.0
    for i in range(3):
        s = s + y
        y = np.sqrt(x - i)  # its last value (slope inf at x = 2) is never read
    return s


def while_last_pass_unused(x):
    s = 0.0
    y = 0.0
    i = 0
    while i < 3:
        s = s + y
        y = np.sqrt(x - i)
        i = i + 1
    return s


def overwritten_in_loop(x):
    s = 0.0
    for i in range(3):
        y = np.sqrt(x - 10.0)
        y = x * 2.0
        s = s + y
    return s


def branch_in_loop(x):
    s = 0.0
    for i in range(3):
        y = np.sqrt(x - 10.0)
        if i > 5:
            s = s + y
        s = s + x
    return s


def copied_then_unused(x):
    y = np.sqrt(x - 10.0)
    z = y  # a copy, then used only in the branch not taken: s_y is moved on from s_z
    if x > 10.0:
        w = z + x
    else:
        w = x * 3.0
    return w


def summed_then_unused(x):
    y = np.sqrt(x - 10.0)
    z = y + x
    if x > 10.0:
        w = z
    else:
        w = x * 3.0
    return w


def copied_in_loop(x):
    s = 0.0
    for i in range(3):
        y = np.sqrt(x - i)
        z = y
        if i < 2:
            s = s + z
    return s


def unpacked_twice(x):
    p = (np.sqrt(x - 10.0), x * 3.0)
    a, b = p
    c, d = p
    return b + d


def unpacked_in_loop(x):
    s = 0.0
    for i in range(3):
        p = (np.sqrt(x - 10.0), x * 3.0)
        a, b = p
        s = s + b
    return s


CASES = [branch_not_taken, unpacked_but_unused, last_pass_unused, while_last_pass_unused,
         overwritten_in_loop, branch_in_loop, copied_then_unused, summed_then_unused,
         copied_in_loop, unpacked_twice, unpacked_in_loop]
POINTS = {last_pass_unused: 2.0, while_last_pass_unused: 2.0, copied_in_loop: 2.0}


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "unoptimized"])
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_an_unused_value_adds_nothing(f, optimize):
    x = POINTS.get(f, 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (the unused NaN, computed)
        got = s2sad.grad(f, optimize=optimize)(x)
        expected = central(f, x)
    assert np.isfinite(expected)
    assert np.isclose(got, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "unoptimized"])
def test_the_last_pass_gets_its_gradient_where_it_is_used(optimize):
    def f(x):  # the same loop, its last value read after it: every pass counts
        s = 0.0
        y = 0.0
        for i in range(3):
            s = s + y
            y = np.sqrt(x - i)
        return s + y
    got = s2sad.grad(f, optimize=optimize)(5.0)
    assert np.isclose(got, central(f, 5.0), rtol=1e-6)


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "unoptimized"])
def test_a_used_value_times_zero_stays_nan(optimize):
    def f(x):  # used: its NaN slope times the 0.0 is NaN, as in JAX
        y = np.sqrt(x - 10.0)
        return x * 2.0 + 0.0 * y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(s2sad.grad(f, optimize=optimize)(3.0))


def test_a_branch_taken_gives_the_used_value_its_gradient():
    def f(x):
        y = np.sqrt(x)
        if x > 100.0:
            z = y
        else:
            z = x * 3.0
        return z
    for x in (4.0, 400.0):
        assert np.isclose(s2sad.grad(f)(x), central(f, x), rtol=1e-6)


def test_the_unused_branch_is_flagged_readably():
    src = s2sad.grad(branch_not_taken).source_for(3.0)
    assert "got_y = True" in src and "if got_y:" in src


def used_once(x):
    y = np.sqrt(x - 10.0)  # used only where x < 0: never at x = 3
    if x > 0:
        z = x * x * 3.0
    else:
        z = y
    return z


def test_value_and_grad_hessian_and_second_order_skip_the_unused_value():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value, slope = s2sad.value_and_grad(used_once)(3.0)
        second = s2sad.grad(s2sad.grad(used_once))(3.0)
        hessian = s2sad.hessian(used_once)(np.float64(3.0))
        expected = used_once(3.0), central(used_once, 3.0)
    assert value == expected[0]
    assert np.isclose(slope, expected[1], rtol=1e-6)
    assert np.isclose(second, central(lambda x: 18.0 * x / 3.0, 3.0), rtol=1e-6)
    assert np.isclose(hessian, 6.0, rtol=1e-12)


def test_the_numba_target_skips_the_unused_value():
    pytest.importorskip("numba")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = s2sad.grad(last_pass_unused, target="numba")(2.0)
        expected = central(last_pass_unused, 2.0)
    assert np.isclose(got, expected, rtol=1e-6)


def rnn_with_copies(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        a = W @ h + xs[t]
        h2 = np.tanh(a)
        h = h2
    return np.sum(h * h)


def test_a_state_that_always_flows_gets_no_flag():
    rng = np.random.default_rng(0)
    W, xs = rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(4, 3))
    grad = s2sad.grad(rnn_with_copies)
    assert "got_" not in grad.source_for(W, xs)
    e = np.zeros_like(W)
    e[1, 2] = 1e-6
    slope = (rnn_with_copies(W + e, xs) - rnn_with_copies(W - e, xs)) / 2e-6
    assert np.isclose(grad(W, xs)[1, 2], slope, rtol=1e-6)
