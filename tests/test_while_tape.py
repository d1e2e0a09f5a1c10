"""Tight loops as a person writes them (issue 38): a ``while`` loop's tape in lists of its
own whose length is the trip count (``WhileTape``), the memory budget checked with no test
in each pass (``checked_passes``), and a sensitivity's terms in one expression
(``CombinedTerms``). Each form against central differences and the unoptimized gradient."""

import math
import types

import numpy as np
import pytest

import s2sad
from s2sad import pipeline


def central_differences(f, args, wrt, eps=1e-6):
    """Central differences of scalar ``f`` along each entry of argument ``wrt``."""
    x = np.asarray(args[wrt], dtype=float)
    out = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[k] = eps
        up, down = list(args), list(args)
        up[wrt], down[wrt] = x + e, x - e
        if x.ndim == 0:
            up[wrt], down[wrt] = float(up[wrt]), float(down[wrt])
        out[k] = (f(*up) - f(*down)) / (2 * eps)
    return out


def tight(x):
    while x < 50:
        x = x * 1.002 + math.sin(x) * 0.01 + 0.02
    return x


def with_break(x):
    while x < 30.0:
        x = x * 1.5 + math.sin(x)
        if x > 20.0:
            break
    return x


def with_continue(x):
    k = 0
    while k < 20:
        k = k + 1
        if k % 3 == 0:
            continue
        x = math.sin(x) + x * 0.9
    return x


def in_for(x, n):
    for i in range(n):
        while x < 5.0 * (i + 1):
            x = x * x * 0.01 + x * 1.2
    return x


def in_branch(x):
    if x > 0.5:
        while x < 10.0:
            x = x * x * 0.5 + x
    else:
        x = x * 3.0
    return x


def two_loops(x):
    y = x
    while y < 10.0:
        y = y * 1.5 + math.sin(y)
    z = y
    while z < 100.0:
        z = z * z * 0.1 + z
    return z + y


def two_saved(x, n):
    k = 0
    while k < n:
        y = x * x
        x = math.sin(y) + 0.5 * x
        k = k + 1
    return x


def arrays(w, h):
    steps = 0
    while np.sum(h * h) < 40.0 and steps < 50:
        h = h + 0.5 * np.tanh(h * w)
        steps += 1
    return np.sum(h * w)


def underscore(x):
    _ = 2.0
    while x < 10.0:
        x = x * x * 0.1 + _ * 0.1 + x
    return x * _


def nested_while(x):
    k = 0
    while k < 3:
        while x < 10.0 * (k + 1):
            x = x * x * 0.01 + x * 1.2 + 0.3
        k = k + 1
    return x


def nested_counted(x):
    k = 0
    while k < 3:
        while x < 10.0 * (k + 1):
            x = x * 1.2 + 0.3
        k = k + 1
    return x


def test_an_inner_loops_trip_counts_are_the_outer_loops_tape():
    """An inner loop that saves nothing saves its trip count once a pass of the outer loop:
    that count is the outer loop's tape."""
    source = s2sad.grad(nested_counted).source_for(1.0)
    assert "trips_1_saved.append(trips_1)" in source and \
        "for trips_1 in reversed(trips_1_saved):" in source, source


def early_return(x):
    while x < 100.0:
        x = x * 1.7 + math.cos(x)
        if x > 40.0:
            return x * 2.0
    return x


def a_call_in_the_test(x):
    while math.sin(x) + x < 20.0:
        x = x * 1.3 + 0.5
    return x * x


CASES = [
    (tight, (1.0,)), (tight, (60.0,)), (with_break, (1.0,)), (with_continue, (0.7,)),
    (in_for, (1.0, 3)), (in_branch, (1.0,)), (in_branch, (0.2,)), (two_loops, (1.0,)),
    (two_saved, (0.3, 20)), (two_saved, (0.3, 0)), (underscore, (1.0,)),
    (nested_while, (1.0,)), (nested_counted, (1.0,)), (early_return, (1.0,)),
    (early_return, (50.0,)),
    (a_call_in_the_test, (1.0,)),
]


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_gradient_against_central_differences(f, args):
    got = s2sad.grad(f)(*args)
    np.testing.assert_allclose(got, central_differences(f, args, 0, eps=1e-6), rtol=1e-5,
                               atol=1e-8)
    np.testing.assert_allclose(got, s2sad.grad(f, optimize=False)(*args), rtol=1e-12)


def test_arrays_against_central_differences():
    rng = np.random.default_rng(3)
    w, h = 0.5 + rng.random(4), np.abs(rng.standard_normal(4))
    g = s2sad.grad(arrays, wrt=(0, 1))
    dw, dh = g(w, h)
    np.testing.assert_allclose(dw, central_differences(arrays, (w, h), 0), rtol=1e-5)
    np.testing.assert_allclose(dh, central_differences(arrays, (w, h), 1), rtol=1e-5)
    assert "for h in reversed(h_saved):" in g.source_for(w, h)


TIGHT = '''\
import math
from s2sad.runtime.budget import checked_passes

def grad_tight(x):
    x_saved = []
    for _ in checked_passes(x_saved):
        if not x < 50:
            break
        t_2 = math.sin(x)
        x_saved.append(x)
        x = x * 1.002 + t_2 * 0.01 + 0.02
    s_x = 1.0
    for x in reversed(x_saved):
        s_x = 0.01 * s_x * math.cos(x) + 1.002 * s_x
    return s_x
'''


def test_issue_38_loop_reads_as_a_person_writes_it():
    """No trip counter (the tape's length is the count), no test of the budget in a
    pass, one statement per pass in the reverse loop."""
    assert s2sad.grad(tight).source_for(1.0) == TIGHT


@pytest.mark.parametrize("f, args", [(with_break, (1.0,)), (with_continue, (0.7,)),
                                     (in_for, (1.0, 3)), (nested_while, (1.0,))],
                         ids=lambda v: getattr(v, "__name__", None))
def test_loops_whose_passes_differ_keep_their_counter_and_its_check(f, args):
    """A pass that may stop early (``break``, ``continue``) or a loop in another loop:
    the trip counter stays, and the budget is checked by it."""
    source = s2sad.grad(f).source_for(*args)
    assert "trips_1 += 1" in source and "check_stack(stack" in source, source  # (with the
    # for loop's list of trip counts, in_for: every tape counts against the budget)
    assert "checked_passes" not in source, source


def test_two_loops_each_get_their_lists():
    source = s2sad.grad(two_loops).source_for(1.0)
    assert source.count("checked_passes(") == 2 and "y_saved" in source and \
        "z_saved" in source, source
    assert "trips" not in source and "stack" not in source, source


def test_a_branchs_loop_is_taped_too():
    source = s2sad.grad(in_branch).source_for(1.0)
    assert "for x in reversed(x_saved):" in source and "trips" not in source, source


def test_the_pass_variable_is_not_a_name_the_function_reads():
    source = s2sad.grad(underscore).source_for(1.0)
    assert "for _ in checked_passes" not in source and "checked_passes(" in source, source


def test_a_test_with_a_call_is_evaluated_once_a_pass():
    calls = []

    def counted(x):
        calls.append(x)
        return x

    def f(x):
        while counted(x) < 20.0:
            x = x * 1.3 + 0.5
        return x * x
    passes = 0
    x = 1.0
    while x < 20.0:
        x, passes = x * 1.3 + 0.5, passes + 1
    g = s2sad.grad(f)
    np.testing.assert_allclose(g(1.0), central_differences(f, (1.0,), 0), rtol=1e-6)
    calls.clear()
    g(1.0)
    assert len(calls) == passes + 1  # (as the user's loop: each pass and the last test)


def test_memory_budget_stops_a_taped_loop():
    s2sad.set_memory_budget(50_000)
    try:
        with pytest.raises(s2sad.MemoryBudgetError, match="memory budget"):
            s2sad.grad(two_saved)(0.3, 100_000)
    finally:
        s2sad.set_memory_budget(s2sad.runtime.budget.DEFAULT_BUDGET)


def test_a_loop_that_never_ends_is_stopped_by_the_budget():
    def endless(x):
        while x < 10.0:
            x = x * 0.5 + math.sin(x) * 0.01
        return x
    s2sad.set_memory_budget(1_000_000)
    try:
        with pytest.raises(s2sad.MemoryBudgetError, match="check that the loop ends"):
            s2sad.grad(endless)(1.0)
    finally:
        s2sad.set_memory_budget(s2sad.runtime.budget.DEFAULT_BUDGET)


@pytest.mark.parametrize("f, x", [(tight, 1.0), (two_loops, 1.0), (in_branch, 1.0)],
                         ids=lambda v: getattr(v, "__name__", None))
def test_second_derivative_of_a_taped_loop(f, x):
    """Differentiated again, the gradient's nestable version (a stack) is read."""
    second = s2sad.grad(s2sad.grad(f))(x)
    np.testing.assert_allclose(second, central_differences(s2sad.grad(f), (x,), 0, eps=1e-5),
                               rtol=1e-4)


def _scalar(x, y):
    a = x * y
    b = math.sin(a) + x
    c = b * b - y * a
    return c * x + math.exp(-b) * y


@pytest.mark.parametrize("f, args", [(_scalar, (0.7, 1.3)), (tight, (1.0,)),
                                     (two_loops, (1.0,)), (two_saved, (0.3, 20))],
                         ids=lambda v: getattr(v, "__name__", None))
def test_combined_terms_give_the_same_bits(f, args, monkeypatch):
    """The terms of a sensitivity combined are the same operations in the same order: the
    gradient is equal to the bit to the one built without combining them."""
    combined = s2sad.grad(f)
    source = combined.source_for(*args)
    with monkeypatch.context() as m:
        m.setattr(pipeline.CombinedTerms, "visit", lambda self, node: node)
        apart = s2sad.grad(types.FunctionType(f.__code__, f.__globals__, f.__name__))
        assert apart.source_for(*args) != source
        expected = apart(*args)
    assert combined(*args) == expected
