"""``target="numba"``, session 30: tapes of floats held in arrays (issue 38, particles).

A tape whose values the pipeline's kinds say are real floats, saved at the top level of
``for i in range(n)`` loops, is an array and a count (``push_float``), grown before each
such loop (``grow_tape``), not a list grown by appends. The items of a 1-d array that the
reverse sweep never reads (``f[i] = f[i] + fi``) are not saved at all. Each gradient is
checked against the NumPy target's and central differences in float64. Skipped without
numba.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import s2sad
from tests.test_numba_target_s27 import check

numba = pytest.importorskip("numba")

from tests.test_numba_target_s27 import particles  # noqa: E402 (15 steps of the benchmark's)

_rng = np.random.default_rng(30)


def _chain(n):
    return np.arange(n) * 1.1 + _rng.uniform(-0.1, 0.1, n)


def test_nested_loops_save_floats_in_arrays_grown_before_the_loop():
    x, v = _chain(7), _rng.standard_normal(7) * 0.1
    check(particles, (x, v, 2.0), (0, 1, 2))
    source = s2sad.grad(particles, (0, 2), target="numba").source_for(x, v, 2.0)
    assert "stack_d = float_tape(0)" in source, source
    assert "stack_d = grow_tape(stack_d, stack_d_n + t_2)\n        for i in range(t_2):" \
        in source, source
    assert "stack_d_n = push_float(stack_d, stack_d_n, d)" in source, source
    assert "stack_d_n -= 1\n            d = stack_d[stack_d_n]" in source, source
    assert ".append(tape_value(d))" not in source, source


def test_items_the_reverse_sweep_never_reads_are_not_saved():
    x, v = _chain(6), _rng.standard_normal(6) * 0.1
    check(particles, (x, v, 1.5), (0, 1, 2))
    source = s2sad.grad(particles, (0, 2), target="numba").source_for(x, v, 1.5)
    assert "stack_item_f" not in source and "f[i] = " in source, source
    assert "f_saved.append(tape_value(f))" in source  # (f itself still comes back)


def squared_in_place(x):
    n = x.shape[0]
    for _ in range(2):
        f = np.zeros(n)
        for i in range(n):
            f[i] = f[i] + x[i]
            f[i] = f[i] * f[i]   # (its derivative reads the item it overwrites)
        x = x + 0.1 * f
    return np.sum(x * x)


def read_whole_backwards(x):
    n = x.shape[0]
    total = 0.0
    for _ in range(2):
        f = np.zeros(n)
        for i in range(n):
            f[i] = f[i] + math.sin(x[i])
        total = total + np.sum(f * x)   # (f whole, read by the reverse sweep)
        x = x * 1.1
    return total


def test_items_read_back_are_still_saved():
    x = _rng.uniform(0.5, 1.5, 5)
    check(squared_in_place, (x,))  # (the items it reads back: saved as t_5, t_6)
    check(read_whole_backwards, (x,))
    source = s2sad.grad(read_whole_backwards, target="numba").source_for(x)
    assert "push_float(stack_item_f, stack_item_f_n, f[i])" in source, source
    assert "f[i] = stack_item_f[stack_item_f_n]" in source, source


def leaves_early(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s * 0.9 + math.sin(s + x[i])
        if s > 1.2:
            break
    return s


def saves_in_a_branch(x, c):
    total = 0.0
    for _ in range(3):
        for i in range(x.shape[0]):
            y = x[i] * total
            if x[i] > c:
                y = math.sin(y) + x[i]
            total = total * 0.5 + y
    return total


def test_a_turn_that_may_skip_its_save_keeps_a_list():
    x = _rng.uniform(0.3, 0.9, 6)
    check(leaves_early, (x,))
    assert "push_float" not in s2sad.grad(leaves_early, target="numba").source_for(x)
    check(saves_in_a_branch, (x, 0.6))


def inner_for_in_while(x):
    s = 0.1
    k = 0
    while s < 3.0 and k < 40:
        for i in range(x.shape[0]):
            s = s + 0.1 * math.sin(s) + x[i] * 0.05
        k += 1
    return s


def long_inner_for_in_while(x):
    s = 0.1
    k = 0
    while k < 5000:   # (the budget is checked every 4096 turns)
        for i in range(x.shape[0]):
            s = s * 0.999 + 0.001 * math.sin(s) + x[i] * 0.001
        k += 1
    return s


def test_a_for_loop_in_a_while_loop_counts_its_array_against_the_budget():
    x = _rng.uniform(0.2, 0.6, 4)
    check(inner_for_in_while, (x,))
    compiled = s2sad.grad(long_inner_for_in_while, target="numba")
    source = compiled.source_for(x)
    assert "push_float(" in source and "check_tape(8 * stack_s_n" in source, source
    expected = s2sad.grad(long_inner_for_in_while)(x)
    np.testing.assert_allclose(compiled(x), expected, rtol=1e-12)
    before = s2sad.runtime.budget._budget
    s2sad.set_memory_budget(64 * 1024)  # (4096 turns save 4 floats each: 128 KiB)
    try:
        with pytest.raises(s2sad.MemoryBudgetError):
            compiled(x)
    finally:
        s2sad.set_memory_budget(before)


def pairs(x, k):
    total = 0.0
    for j in range(3):
        for i in range(x.shape[0] - 1):
            d = x[i + 1] - x[i]
            total = total * 0.5 + k * math.sin(d * total + j)
    return total


def test_float32_values_are_kept_exactly():
    x = np.arange(6) * 1.1 + np.random.default_rng(32).uniform(-0.1, 0.1, 6)
    check(pairs, (x, 2.0), (0, 1))
    source = s2sad.grad(pairs, (0, 1), target="numba").source_for(x, 2.0)
    assert "push_float(stack_d, stack_d_n, d)" in source, source
    x32 = x.astype(np.float32)  # (d a float32, widened on the tape, exactly)
    got = s2sad.grad(pairs, (0, 1), target="numba")(x32, 2.0)
    assert got[0].dtype == np.float32 == s2sad.grad(pairs, (0, 1))(x32, 2.0)[0].dtype
    # (numba computes a float32 item with a Python float in float64, where NumPy's
    # float32 rounds: the gradient at x32 in float64 is the oracle)
    exact = s2sad.grad(pairs, (0, 1))(x32.astype(np.float64), 2.0)
    np.testing.assert_allclose(got[0], exact[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], exact[1], rtol=1e-5)


def test_push_float_takes_floats_only_and_grow_tape_keeps_the_values():
    from s2sad.runtime.numba_tape import float_tape, grow_tape, push_float

    @numba.njit
    def fill(value, n):
        tape = float_tape(0)
        count = 0
        tape = grow_tape(tape, count + n)
        for _ in range(n):
            count = push_float(tape, count, value)
        tape = grow_tape(tape, count + 1)
        count = push_float(tape, count, value)
        return tape[:count]
    assert list(fill(1.5, 3)) == [1.5] * 4
    assert list(fill(np.float32(0.1), 1)) == [float(np.float32(0.1))] * 2  # (widened)
    for value in (3, 1.5 + 2j):
        with pytest.raises(numba.core.errors.TypingError):
            fill(value, 1)

    @numba.njit
    def overfull():
        return push_float(float_tape(1), 1, 2.0)
    with pytest.raises(IndexError):
        overfull()


def forces(x):
    n = x.shape[0]
    f = np.zeros(n)
    for i in range(n - 1):
        d = x[i + 1] - x[i]
        f[i] = f[i] + math.sin(d)
        f[i + 1] = f[i + 1] - math.sin(d) * d
    return f


def test_an_array_returned_keeps_its_values():
    from tests.test_higher_order import central_differences
    x = _rng.uniform(0.2, 1.2, 5)
    seed = _rng.standard_normal(5)
    value, pullback = s2sad.vjp(forces, target="numba")(x)
    expected_value, expected_pullback = s2sad.vjp(forces)(x)
    np.testing.assert_allclose(value, forces(x), rtol=1e-14)
    np.testing.assert_allclose(value, expected_value, rtol=1e-14)
    got = pullback(seed)
    np.testing.assert_allclose(got, expected_pullback(seed), rtol=1e-12)
    np.testing.assert_allclose(got, central_differences(
        lambda x: float(np.dot(seed, forces(x))), (x,), 0), rtol=1e-6, atol=1e-8)
