"""Control flow: branches and loops, checked against central finite differences."""

import math

import numpy as np
import pytest

import s2sad
from tests import cases_control as C

rng = np.random.default_rng(7)


def rand(*shape):
    return rng.normal(size=shape)


def numeric_gradient(f, args, index, eps=1e-6):
    x = np.array(args[index], dtype=float)
    grad = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[k] += eps
        minus[k] -= eps
        up, down = list(args), list(args)
        up[index] = plus if x.ndim else float(plus)
        down[index] = minus if x.ndim else float(minus)
        grad[k] = (f(*up) - f(*down)) / (2 * eps)
    return grad


CASES = [
    pytest.param(C.seed_while, (rand(3),), 0, id="seed-while-pos"),
    pytest.param(C.seed_while, (-np.abs(rand(3)),), 0, id="seed-while-neg"),
    pytest.param(C.branchy, (2.0, 1.0), 0, id="if-branch"),
    pytest.param(C.branchy, (0.5, 1.0), 0, id="elif-branch"),
    pytest.param(C.branchy, (-0.5, 1.0), 1, id="else-branch"),
    pytest.param(C.ifexp, (2.0,), 0, id="ifexp-and-or-true"),
    pytest.param(C.ifexp, (0.5,), 0, id="ifexp-and-or-mid"),
    pytest.param(C.ifexp, (-0.5,), 0, id="ifexp-and-or-false"),
    pytest.param(C.sum_loop, (rand(4),), 0, id="for-over-array"),
    pytest.param(C.sum_loop, ([0.3, -1.2, 2.0],), 0, id="for-over-list"),
    pytest.param(C.reversed_iteration, ([0.3, -1.2, 2.0],), 0, id="for-over-reversed-list"),
    pytest.param(C.reversed_iteration, (rand(3),), 0, id="for-over-reversed-array"),
    pytest.param(C.enumerate_zip, (rand(4, 3), rand(4), rand(3)), 0, id="enumerate-zip-X"),
    pytest.param(C.enumerate_zip, (rand(4, 3), rand(4), rand(3)), 2, id="enumerate-zip-w"),
    pytest.param(C.enumerate_index_set_in_the_body, (rand(3),), 0,
                 id="enumerate-index-set-in-body"),
    pytest.param(C.range_loop, (0.7, 3), 0, id="for-range"),
    pytest.param(C.range_loop, (0.7, 0), 0, id="for-range-empty"),
    pytest.param(C.scalar_while, (1.3,), 0, id="scalar-while"),
    pytest.param(C.nested, (rand(3, 3) * 0.5, rand(4, 3)), 0, id="nested-loops-W"),
    pytest.param(C.nested, (rand(3, 3) * 0.5, rand(4, 3)), 1, id="nested-loops-xs"),
    pytest.param(C.zipped, (rand(4), rand(4)), 0, id="zip-enumerate-a"),
    pytest.param(C.zipped, (rand(4), rand(5)), 1, id="zip-enumerate-b"),
    pytest.param(C.rnn, (rand(4, 4) * 0.4, rand(4, 3), rand(6, 3), rand(4)), 0, id="rnn-W"),
    pytest.param(C.rnn, (rand(4, 4) * 0.4, rand(4, 3), rand(6, 3), rand(4)), 1, id="rnn-U"),
    pytest.param(C.rnn, (rand(4, 4) * 0.4, rand(4, 3), rand(6, 3), rand(4)), 2, id="rnn-xs"),
    pytest.param(C.rnn, (rand(4, 4) * 0.4, rand(4, 3), rand(6, 3), rand(4)), 3, id="rnn-h0"),
    pytest.param(C.tuple_loop, (0.4,), 0, id="for-over-tuple"),
    pytest.param(C.list_loop, ([0.5, -1.5, 2.0], 0.3), 0, id="for-over-list-arg"),
    pytest.param(C.list_loop, ([0.5, -1.5, 2.0], 0.3), 1, id="for-over-list-x"),
    pytest.param(C.loop_carried_pair, (0.8,), 0, id="parallel-assign-in-loop"),
    pytest.param(C.nested_branch_in_loop, (0.45,), 0, id="branches-in-loop"),
    pytest.param(C.while_with_counter, (1.7,), 0, id="while-and-condition"),
    pytest.param(C.conditional_expression_array, (np.abs(rand(3)),), 0, id="ifexp-array-pos"),
    pytest.param(C.conditional_expression_array, (-np.abs(rand(3)),), 0, id="ifexp-array-neg"),
    pytest.param(C.not_and_or, (0.5, 2.0), 0, id="not-and-or-x"),
    pytest.param(C.not_and_or, (3.0, 2.0), 1, id="not-and-or-y"),
    pytest.param(C.for_else, (0.9,), 0, id="for-else"),
    pytest.param(C.while_else, (0.9,), 0, id="while-else"),
    pytest.param(C.reassign_in_branch_only, (0.9,), 0, id="branch-reassign-taken"),
    pytest.param(C.reassign_in_branch_only, (0.2,), 0, id="branch-reassign-not-taken"),
    pytest.param(C.early_returns, (2.5,), 0, id="early-return-first"),
    pytest.param(C.early_returns, (0.5,), 0, id="early-return-second"),
    pytest.param(C.early_returns, (-0.5,), 0, id="early-return-last"),
    pytest.param(C.loop_with_break, (0.9,), 0, id="for-break"),
    pytest.param(C.loop_with_break, (3.0,), 0, id="for-break-early"),
    pytest.param(C.loop_with_continue, (0.7,), 0, id="for-continue"),
    pytest.param(C.while_true_break, (1.1,), 0, id="while-true-break"),
    pytest.param(C.for_else_break, (0.3,), 0, id="for-else-no-break"),
    pytest.param(C.for_else_break, (2.0,), 0, id="for-else-break"),
    pytest.param(C.nested_break, (rand(3),), 0, id="nested-loops-break"),
    pytest.param(C.setitem_basic, (rand(3),), 0, id="setitem-index-slice-augmented"),
    pytest.param(C.setitem_overwrite_needed, (rand(3),), 0, id="setitem-overwrites-needed"),
    pytest.param(C.setitem_in_loop, (rand(5),), 0, id="setitem-in-loop"),
    pytest.param(C.setitem_mask, (rand(6),), 0, id="setitem-mask"),
    pytest.param(C.setitem_list, (0.3, 1.2), 0, id="setitem-list-a"),
    pytest.param(C.setitem_list, (0.3, 1.2), 1, id="setitem-list-b"),
    pytest.param(C.setitem_broadcast, (rand(3), 0.7), 0, id="setitem-broadcast-x"),
    pytest.param(C.setitem_broadcast, (rand(3), 0.7), 1, id="setitem-broadcast-s"),
    pytest.param(C.f4_compact, ([1.0, 2.0, 3.0, 4.0],), 0, id="seed-compact-f4-list"),
    pytest.param(C.f4_compact, (rand(4),), 0, id="seed-compact-f4-array"),
    pytest.param(C.list_comprehension, (rand(4),), 0, id="list-comprehension"),
    pytest.param(C.nested_comprehension, (rand(3), rand(2)), 0, id="nested-comprehension-a"),
    pytest.param(C.nested_comprehension, (rand(3), rand(2)), 1, id="nested-comprehension-b"),
    pytest.param(C.append_loop, (0.4,), 0, id="append-in-loop"),
    pytest.param(C.append_then_index, (0.4,), 0, id="append-then-index"),
    pytest.param(C.return_in_loop, (0.3,), 0, id="return-in-loop"),
    pytest.param(C.return_in_loop, (0.01,), 0, id="return-in-loop-not-reached"),
    pytest.param(C.newton_sqrt, (2.0,), 0, id="return-from-while-true"),
    pytest.param(C.newton_sqrt, (9.0,), 0, id="return-from-while-true-9"),
    pytest.param(C.return_in_nested_loops, (0.3, np.array([0.5, 1.0, 0.2])), 0,
                 id="return-in-nested-loops-x"),
    pytest.param(C.return_in_nested_loops, (0.3, np.array([0.5, 1.0, 0.2])), 1,
                 id="return-in-nested-loops-w"),
    pytest.param(C.return_in_nested_loops, (0.02, np.array([0.1, 0.1, 0.2])), 0,
                 id="return-in-nested-loops-else"),
    pytest.param(C.return_from_array_loop, (np.array([0.5, 0.9, 0.2]),), 0,
                 id="return-from-array-loop"),
    pytest.param(C.return_from_array_loop, (np.array([0.1, 0.2, 0.3]),), 0,
                 id="return-from-array-loop-not-reached"),
    pytest.param(C.assigned_in_both_arms_but_in_a_loop, (0.3, 1.0), 0,
                 id="saved-in-a-loop-in-one-arm"),  # was an UnboundLocalError
    pytest.param(C.assigned_in_both_arms_but_in_a_loop, (0.3, -1.0), 0,
                 id="saved-in-a-loop-in-one-arm-other"),
    pytest.param(C.rows_as_a_list, (rand(3, 2),), 0, id="list-of-array-rows"),
    pytest.param(C.sequence_conversions, (0.3, 0.7), 0, id="tuple-and-list-calls-a"),
    pytest.param(C.sequence_conversions, (0.3, 0.7), 1, id="tuple-and-list-calls-b"),
    pytest.param(C.iterate_a_name_rebound_in_the_loop, (0.4, rand(3)), 0,
                 id="iterated-name-rebound-in-loop-x"),  # was a wrong value and gradient
    pytest.param(C.iterate_a_name_rebound_in_the_loop, (0.4, rand(3)), 1,
                 id="iterated-name-rebound-in-loop-v"),
    pytest.param(C.iterate_an_expression, (rand(3),), 0, id="for-over-an-expression"),
    pytest.param(C.reduction_used_in_one_branch, (0.97, rand(3, 3)), 1,
                 id="axis-reduction-unused-on-the-branch-taken"),  # was an AxisError (fuzz)
    pytest.param(C.reduction_used_in_one_branch, (0.1, rand(3, 3)), 1,
                 id="axis-reduction-used-on-the-branch-taken"),
    pytest.param(C.reduction_used_in_one_branch, (0.97, rand(3, 3)), 0,
                 id="axis-reduction-unused-on-the-branch-taken-y"),
    pytest.param(C.return_then_continue, (0.9,), 0, id="return-then-continue-in-elif"),
    pytest.param(C.return_then_continue, (1.3,), 0, id="return-then-continue-returns"),
    pytest.param(C.continue_inside_a_returning_branch, (0.9,), 0,
                 id="continue-inside-a-returning-branch"),  # was a TypeError (None * float)
    pytest.param(C.continue_inside_a_returning_branch, (1.3,), 0,
                 id="continue-inside-a-returning-branch-returns"),
    pytest.param(C.break_under_a_test_then_return, (np.array([1.0, 1.5, 3.0]), 0), 0,
                 id="break-under-a-test-then-return"),  # was twice the gradient
    pytest.param(C.break_under_a_test_then_return, (np.array([1.0, 1.5, 3.0]), 1), 0,
                 id="break-under-a-test-then-return-breaks"),
    pytest.param(C.unreachable_after_jumps, (0.9,), 0, id="unreachable-after-jumps"),
    pytest.param(C.unreachable_after_jumps, (1.3,), 0, id="unreachable-after-jumps-returns"),
    pytest.param(C.helper_returning_in_a_loop_under_a_constant, (np.array([1.0, 1.5, 3.0]),), 0,
                 id="helper-return-in-loop-under-a-constant"),  # was 'result_1' is used
    pytest.param(C.helper_returning_in_nested_loops_under_a_constant,  # before it is assigned
                 (np.array([1.0, 1.5, 3.0]),), 0, id="helper-return-in-nested-loops-constant"),
    pytest.param(C.matrix_display, (1.3,), 0, id="matrix-display"),
    pytest.param(C.dict_items_of_pairs, (1.3,), 0, id="dict-items-of-pairs"),
]


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("f, args, wrt", CASES)
def test_control_flow_gradient(f, args, wrt, optimize):
    before = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
    got = s2sad.grad(f, wrt=wrt, optimize=optimize)(*args)
    np.testing.assert_allclose(np.asarray(got, dtype=float), numeric_gradient(f, args, wrt),
                               rtol=1e-5, atol=1e-6)
    for a, b in zip(args, before, strict=True):
        np.testing.assert_array_equal(a, b)
    value, again = s2sad.value_and_grad(f, wrt=wrt, optimize=optimize)(*args)
    assert value == pytest.approx(f(*args))
    np.testing.assert_allclose(np.asarray(again, dtype=float), np.asarray(got, dtype=float))


def test_seed_notebook_example_at_random_inputs():
    """The notebook's `while norm(b) < 1000: b = b * 2; if sum(b) > 0: ...` function."""
    df = s2sad.grad(C.seed_notebook)
    for _ in range(20):
        x = rng.normal(size=4) * rng.uniform(0.01, 10)
        b, doublings = x, 0
        while np.linalg.norm(b) < 1000:
            b, doublings = b * 2, doublings + 1
        expected = 2.0 ** doublings * (1.0 if np.sum(b) > 0 else 100.0) * np.ones(4)
        np.testing.assert_allclose(df(x), expected)
        np.testing.assert_allclose(df(x), numeric_gradient(C.seed_notebook, (x,), 0), rtol=1e-5)


def test_golden_while_loop():
    """A loop reads like the one a person would write: a trip counter, one push per value."""
    assert s2sad.grad(C.scalar_while, annotate=True, optimize=False).source_for(1.3) == '''\
import math
from s2sad.runtime.budget import check_stack

def grad_scalar_while(x):
    s_1, s_2, s_x, s_y = [0.0] * 4
    stack = []
    y = x
    k = 0
    trips_1 = 0
    check_1 = 4096
    while y < 100.0:
        trips_1 += 1
        if trips_1 >= check_1:
            check_1 += 4096
            check_stack(stack)
        t_1 = y * 1.5
        t_2 = math.sin(y)
        stack.append(y)
        y = t_1 + t_2
        t_3 = k + 1
        k = t_3
    ret = y
    # Analyzing the line: "return y"
    s_y += 1.0
    # Analyzing the line: "while y < 100.0:"
    for _ in range(trips_1):
        # Analyzing the line: "y = y * 1.5 + math.sin(y)"
        s_1 += s_y
        s_2 += s_y
        s_y = 0.0
        y = stack.pop()
        s_y += s_2 * math.cos(y)
        s_2 = 0.0
        s_y += 1.5 * s_1
        s_1 = 0.0
    # Analyzing the line: "y = x"
    s_x += s_y
    s_y = 0.0
    return float(s_x)
'''


def test_golden_branch():
    """A branch at top level reuses its condition in the reverse sweep: no stack at all."""
    text = s2sad.grad(C.branchy, optimize=False, annotate=True).source_for(2.0, 1.0)
    assert "stack" not in text
    assert "    cond_1 = x > y\n    if cond_1:\n        z = x * y\n" in text
    assert ("    if cond_1:\n        # Analyzing the line: \"z = x * y\"\n"
            "        s_x += y * s_z\n") in text


def test_seed_compact_f4():
    assert s2sad.grad(C.f4_compact)([1.0, 2.0, 3.0, 4.0]) == [52.0, 38.0, 28.0, 22.0]


def test_memory_budget_stops_a_loop_that_records_too_much():
    s2sad.set_memory_budget(10_000)
    try:
        with pytest.raises(s2sad.MemoryBudgetError, match="memory budget"):
            s2sad.grad(C.scalar_while_long)(1.0, 100_000)
    finally:
        s2sad.set_memory_budget(s2sad.runtime.budget.DEFAULT_BUDGET)
    assert s2sad.grad(C.scalar_while_long)(1.0, 100) == pytest.approx(
        numeric_gradient(C.scalar_while_long, (1.0, 100), 0), rel=1e-5)


@pytest.mark.parametrize("optimize", [True, False])
def test_memory_budget_is_checked_again_every_4096_passes(optimize):
    """The first check (4,096 passes) is within the budget, a later one is not: the count
    of the next check moves on after each. Optimized, the loop's tape is its own list and
    ``checked_passes`` counts the passes (no test in them); unoptimized, a trip counter."""
    df = s2sad.grad(C.scalar_while_long, optimize=optimize)
    df(1.0, 10)
    s2sad.set_memory_budget(1_000_000)
    try:
        assert df(1.0, 8000) == pytest.approx(numeric_gradient(C.scalar_while_long, (1.0, 8000),
                                                               0), rel=1e-5)
        with pytest.raises(s2sad.MemoryBudgetError, match="memory budget"):
            df(1.0, 400_000)
    finally:
        s2sad.set_memory_budget(s2sad.runtime.budget.DEFAULT_BUDGET)
    if optimize:
        assert "for _ in checked_passes(x_saved):" in df.source, df.source
        assert "trips" not in df.source and "check_1" not in df.source, df.source
    else:
        assert "check_1 = 4096" in df.source and "check_1 += 4096" in df.source, df.source


def test_memory_budget_counts_every_list_of_a_while_loops_tape():
    """Two values saved per pass go to two lists; the budget is checked against both
    together (each alone holds half of what the budget refuses)."""
    def two_saved(x, n):
        k = 0
        while k < n:
            y = x * x
            x = math.sin(y) + 0.5 * x
            k = k + 1
        return x
    df = s2sad.grad(two_saved)
    assert df(0.3, 20) == pytest.approx(numeric_gradient(two_saved, (0.3, 20), 0), rel=1e-6)
    source = df.source_for(0.3, 20)
    assert "checked_passes(x_saved, y_saved)" in source, source
    used = {}
    real = s2sad.runtime.budget.check_stack

    def spy(*stacks):
        used["sizes"] = [len(s) for s in stacks]
        return real(*stacks)
    s2sad.runtime.budget.check_stack = spy
    try:
        df(0.3, 5000)
    finally:
        s2sad.runtime.budget.check_stack = real
    assert used["sizes"] == [4096, 4096], used


def test_memory_check_reads_only_the_gradients_own_stack():
    """A user's list named like the gradient's stack is not checked (it was, before it
    was assigned, which broke differentiating the gradient again)."""
    df = s2sad.grad(C.user_list_named_stack)
    np.testing.assert_allclose(df(1.3), numeric_gradient(C.user_list_named_stack, (1.3,), 0),
                               rtol=1e-5)
    assert "checked_passes(x_saved)" in df.source and "passes(stack" not in df.source
    unoptimized = s2sad.grad(C.user_list_named_stack, optimize=False)
    unoptimized(1.3)
    assert "check_stack(stack_1)" in unoptimized.source and \
        "check_stack(stack)" not in unoptimized.source
    second = s2sad.grad(df)(1.3)
    np.testing.assert_allclose(second, numeric_gradient(df, (1.3,), 0), rtol=1e-4, atol=1e-6)
