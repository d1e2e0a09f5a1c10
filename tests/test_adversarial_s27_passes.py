"""Adversarial pass s27 on the tight-loop optimizer pieces and the dtype of spread seeds.

Findings of /work/wt/adv_s27p (probes of CombinedTerms, WhileTape, checked_passes and
SpreadByProducts), each with the test that fails without its fix:

- A Python number spread over a float32 value (``sum_grad(1.0, like=x)``, ``unbroadcast``,
  ``broadcast_like``, ``sens_like``) was a float64 array, so a float32 gradient was partly
  computed in float64 and rounded at the end: not NumPy's arithmetic, where
  ``np.ones_like(x) * 1.0`` stays float32. The seed now takes the value's precision, and
  grad, value_and_grad and the unoptimized gradient agree to the bit in float32. The numba
  target's ``sum_grad`` spread in float64 too (``np.full(shape, float(g))``).
- A ``while`` loop in another loop was never checked against the memory budget: its check
  compared its trip counter, which starts again at 0 in each pass of the outer loop, with
  a count set before it (4096 each time). 100 outer passes of 100 inner ones recorded
  10,000 values unchecked; 4,000 of 4,000 would record 16 million. It now compares the
  stack's length with a count set once at the function's top (``MemoryBudget``).
"""

import math

import numpy as np
import pytest
from test_higher_order import central_differences

import s2sad
from s2sad.runtime import sum_grad, unbroadcast
from s2sad.runtime.budget import DEFAULT_BUDGET
from s2sad.runtime.higher import broadcast_like, sens_like, unbroadcast_adjoint

X32 = np.array([[0.3, -0.8, 1.2], [0.5, 0.1, -0.4]], np.float32)


# --- the dtype of a spread seed -------------------------------------------------------------


@pytest.mark.parametrize("g", [1.0, 2, 0.5], ids=["one", "int", "half"])
def test_sum_grad_spreads_a_python_number_in_the_values_dtype(g):
    spread = sum_grad(g, like=X32)
    assert spread.dtype == np.float32 and spread.shape == X32.shape
    assert np.array_equal(spread, np.ones_like(X32) * g)
    # (along an axis, and to a value of float16 too)
    assert sum_grad(g, X32, 1, True).dtype == np.float32
    assert sum_grad(g, like=X32.astype(np.float16)).dtype == np.float16


def test_sum_grad_keeps_numpys_promotion_for_other_seeds_and_values():
    # a float64 seed is a float64 value (NEP 50: NumPy scalars are not weak)
    assert sum_grad(np.float64(1.0), like=X32).dtype == np.float64
    assert sum_grad(np.ones((2, 1)), X32, 1, True).dtype == np.float64
    assert sum_grad(1.0, like=X32.astype(np.float64)).dtype == np.float64
    # an integer value's sensitivity is float64, a complex64 value's spreads in float32
    assert sum_grad(1.0, like=np.arange(3)).dtype == np.float64
    assert sum_grad(1.0, like=np.ones(3, np.complex64)).dtype == np.float32


def test_the_other_spreading_helpers_spread_a_python_number_in_the_values_dtype():
    assert unbroadcast(1.0, X32).dtype == np.float32
    assert broadcast_like(1.0, X32).dtype == np.float32
    assert sens_like(1.0, X32).dtype == np.float32
    assert unbroadcast_adjoint(1.0, X32).dtype == np.float32
    for out in (unbroadcast(1.0, X32), broadcast_like(1.0, X32), sens_like(1.0, X32)):
        assert np.array_equal(out, np.ones_like(X32))
    assert unbroadcast(1.0, X32.astype(np.float64)).dtype == np.float64


def _sin_times(x):
    return np.sum(np.sin(x) * x)


def _tanh_matmul(x, w):
    return np.sum(np.tanh(x @ w))


def _softmax_rows(x):
    e = np.exp(x * 2.0)
    return np.sum(np.log(np.sum(e, axis=1, keepdims=True)) * 1.5)


@pytest.mark.parametrize("f, args", [
    (_sin_times, (X32,)),
    (_tanh_matmul, (X32, np.array([[0.2, -0.1], [0.7, 0.3], [-0.5, 0.9]], np.float32))),
    (_softmax_rows, (X32,)),
], ids=["sin_times", "tanh_matmul", "softmax_rows"])
def test_a_float32_gradient_is_computed_in_float32(f, args):
    """grad (optimized or not, annotated) and value_and_grad spread the seed in float32:
    the same arithmetic, the same bits."""
    grads = [s2sad.grad(f)(*args), s2sad.grad(f, optimize=False)(*args),
             s2sad.grad(f, annotate=True)(*args), s2sad.value_and_grad(f)(*args)[1],
             s2sad.value_and_grad(f, optimize=False)(*args)[1]]
    for g in grads:
        assert g.dtype == np.float32
        np.testing.assert_array_equal(g, grads[0])


# --- the memory budget of a loop in another loop ------------------------------------------


def _nested(x):
    i = 0
    while i < 100:
        j = 0
        while j < 100:
            x = x * 1.00001 + math.sin(x) * 1e-7
            j += 1
        i += 1
    return x


def _nested_in_for(x):
    for _ in range(60):
        j = 0
        while j < 200:
            x = x * 1.00001 + math.sin(x) * 1e-7
            j += 1
    return x


@pytest.mark.parametrize("f", [_nested, _nested_in_for], ids=["in_while", "in_for"])
@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_a_while_loop_in_another_loop_is_held_to_the_memory_budget(f, optimize):
    """Each run of the inner loop makes 100-200 passes, fewer than a check's 4096; all
    runs together record 10,000-12,000 values, past a budget of 50 kB."""
    s2sad.set_memory_budget(50_000)
    try:
        with pytest.raises(s2sad.MemoryBudgetError, match="memory budget"):
            s2sad.grad(f, optimize=optimize)(0.5)
        with pytest.raises(s2sad.MemoryBudgetError, match="memory budget"):
            s2sad.value_and_grad(f, optimize=optimize)(0.5)
    finally:
        s2sad.set_memory_budget(DEFAULT_BUDGET)
    # within the budget, the gradient is the derivative
    g = s2sad.grad(f, optimize=optimize)(0.5)
    np.testing.assert_allclose(g, central_differences(f, (0.5,), 0).ravel()[0], rtol=1e-6)


def test_the_numba_targets_sum_grad_spreads_in_the_values_precision():
    numba = pytest.importorskip("numba")
    from s2sad.runtime import numba_tape

    assert numba_tape.sum_grad(1.0, X32).dtype == np.float32
    assert numba_tape.sum_grad(1.0, X32.astype(np.float64)).dtype == np.float64

    @numba.njit
    def spread(like):
        return numba_tape.sum_grad(1.0, like)

    assert spread(X32).dtype == np.float32
    assert spread(X32.astype(np.float64)).dtype == np.float64
    np.testing.assert_array_equal(spread(X32), np.ones_like(X32))
