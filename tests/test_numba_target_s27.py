"""``target="numba"``, session 27: the wrapper around the kernel, sums along an axis,
and the particle workload.

Each gradient is checked against central differences in float64 and against the NumPy
target's. Skipped where numba is not installed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences

numba = pytest.importorskip("numba")

from tests.test_numba_target import speelpenning  # noqa: E402


def check(f, args, wrt=0, rtol=1e-6):
    """The numba gradient: the NumPy target's, and central differences'."""
    got = s2sad.grad(f, wrt, target="numba")(*args)
    expected = s2sad.grad(f, wrt, target="numpy")(*args)
    assert type(got) is type(expected)
    for g, e in zip(got if isinstance(got, tuple) else (got,),
                    expected if isinstance(expected, tuple) else (expected,)):
        assert np.shape(g) == np.shape(e) and np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)
    for g, w in zip(got if isinstance(wrt, tuple) else (got,),
                    wrt if isinstance(wrt, tuple) else (wrt,)):
        np.testing.assert_allclose(g, central_differences(f, args, w), rtol=rtol, atol=1e-8)
    return got


# --- the wrapper --------------------------------------------------------------------------


def euler(y0, k):
    y = y0
    for _ in range(50):
        y = y + 0.01 * (-k * y + math.sin(y))
    return y


def doubled(x):
    y = x * 2.0
    return np.sum(y * x)


def test_the_wrapper_calls_the_kernel_and_returns_what_it_made():
    x = np.linspace(0.5, 1.5, 6)
    compiled = s2sad.grad(speelpenning, target="numba")
    source = compiled.source_for(x)
    wrapper = source[source.index("def grad_speelpenning"):]
    # (x is not handed back by the kernel; s_x, made by the kernel, is not copied)
    assert wrapper.splitlines()[1].strip() == "return kernel_grad_speelpenning(x)"
    assert "return s_x" in source
    got = check(speelpenning, (x,))
    assert got.flags.writeable and got.flags.c_contiguous and not np.shares_memory(got, x)
    again = compiled(x)
    got[:] = -1.0  # (each call's gradient is its own array)
    np.testing.assert_allclose(again, s2sad.grad(speelpenning)(x), rtol=1e-12)
    source = s2sad.grad(euler, (0, 1), target="numba").source_for(0.5, 2.0)
    assert "return kernel_grad_euler(y0, k)" in source
    assert check(euler, (0.5, 2.0), (0, 1))[1] != 0.0


def test_a_sensitivity_bound_again_is_still_shaped_by_the_wrapper():
    x = np.linspace(0.5, 1.5, 4)
    source = s2sad.grad(doubled, target="numba").source_for(x)
    assert "_gradient(x, s_x)" in source  # (not made by zeros_like alone: shaped and copied)
    got = check(doubled, (x,))
    assert not np.shares_memory(got, x)


def test_float32_arguments_keep_their_dtype_without_the_copy():
    x32 = np.linspace(0.5, 1.5, 5).astype(np.float32)
    got = s2sad.grad(speelpenning, target="numba")(x32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, s2sad.grad(speelpenning)(x32), rtol=1e-6)


def test_the_kinds_check_still_sends_other_kinds_to_their_own_variant():
    compiled = s2sad.grad(speelpenning, target="numba")
    x = np.linspace(0.5, 1.5, 4)
    compiled(x)
    x32 = x.astype(np.float32)
    assert compiled(x32).dtype == np.float32  # (another variant, not the float64 one)
    assert compiled(x).dtype == np.float64
    one = np.array([2.0])
    np.testing.assert_allclose(compiled(one), [1.0])  # (a length-1 axis: its own variant)
    with pytest.raises(TypeError):
        compiled(x.astype(np.int64))


# --- sums along an axis -------------------------------------------------------------------


def rows(x):
    return np.sum(np.sum(x, axis=1) ** 2)


def columns_last(x):
    return np.sum(np.tanh(np.sum(x * x, axis=-1)))


def kept(x):
    return np.sum(np.sum(x, axis=0, keepdims=True) * x)


def means(x):
    return np.sum(np.mean(x, axis=0) * np.sum(x * x, axis=0))


def mean_kept(x):
    c = x - np.mean(x, axis=1, keepdims=True)
    return np.sum(c * c) + np.mean(x) * 2.0


def middle(x):
    return np.sum(np.sin(np.sum(x, axis=1)) * np.mean(x, axis=1))


def bias(x, b):
    return np.sum(np.tanh(x + b) * x)


def column_bias(x, b):
    return np.sum(np.sin(x * b))


_rng = np.random.default_rng(27)
X = _rng.standard_normal((3, 4))

AXIS_CASES = [
    pytest.param(rows, (X,), 0, id="sum-axis-1"),
    pytest.param(columns_last, (X,), 0, id="sum-axis-minus-1"),
    pytest.param(kept, (X,), 0, id="sum-keepdims"),
    pytest.param(means, (X,), 0, id="mean-axis-0"),
    pytest.param(mean_kept, (X,), 0, id="mean-keepdims-and-whole"),
    pytest.param(middle, (_rng.standard_normal((2, 3, 4)),), 0, id="3d-middle-axis"),
    pytest.param(bias, (X, _rng.standard_normal(4)), 1, id="broadcast-leading"),
    pytest.param(column_bias, (X, _rng.standard_normal((3, 1))), 1, id="broadcast-length-1"),
    pytest.param(column_bias, (X, _rng.standard_normal((1, 4))), 1, id="broadcast-row"),
]


@pytest.mark.parametrize("f, args, wrt", AXIS_CASES)
def test_sums_along_an_axis(f, args, wrt):
    check(f, args, wrt)


def test_sums_along_an_axis_keep_float32():
    x32 = X.astype(np.float32)
    for f in (rows, kept, means, mean_kept):
        got = s2sad.grad(f, target="numba")(x32)
        expected = s2sad.grad(f)(x32)
        assert got.dtype == np.float32 == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=2e-5, atol=1e-5)


def test_the_forward_sums_are_numpys():
    from s2sad.runtime.numba_tape import mean_along, sum_along

    @numba.njit
    def forward(x):
        return (sum_along(x, axis=1), sum_along(x, axis=-3, keepdims=True),
                mean_along(x, axis=2), mean_along(x, axis=0, keepdims=True), mean_along(x))
    x = _rng.standard_normal((2, 3, 4))
    got = forward(x)
    expected = (np.sum(x, axis=1), np.sum(x, axis=-3, keepdims=True), np.mean(x, axis=2),
                np.mean(x, axis=0, keepdims=True), np.mean(x))
    for g, e in zip(got, expected):
        assert np.shape(g) == np.shape(e)
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=1e-15)
    with pytest.raises(ValueError, match="out of bounds"):
        numba.njit(lambda x: sum_along(x, axis=2))(X)


def over_two_axes(x):
    return np.sum(np.sum(x, axis=(0, 1)) ** 2)


def test_a_sum_over_a_tuple_of_axes_is_refused_at_the_users_line():
    from s2sad.errors import UnsupportedSyntaxError
    x = _rng.standard_normal((2, 3, 4))
    with pytest.raises(UnsupportedSyntaxError, match="numba") as info:
        s2sad.grad(over_two_axes, target="numba")(x)
    assert info.value.lineno == over_two_axes.__code__.co_firstlineno + 1
    assert "target='numpy'" in str(info.value)


x = np.ones(3)  # (a module global with the name of a parameter below)


def named_like_a_global(x):
    return np.sum(np.sum(x, axis=0) * x)


def test_a_parameter_named_like_a_module_global_is_the_parameter():
    # (the check of the source ran before the compiler named the locals: x was taken
    # for the module's array and refused)
    check(named_like_a_global, (_rng.standard_normal(5),))


# --- item stores in loops: the particle workload ------------------------------------------


def particles(x, v, k):
    n = x.shape[0]
    for _ in range(15):
        f = np.zeros(n)
        for i in range(n - 1):
            d = x[i + 1] - x[i]
            fi = k * (d - 1.0) + 0.1 * math.sin(d)
            f[i] = f[i] + fi
            f[i + 1] = f[i + 1] - fi
        v = v + 0.01 * f
        x = x + 0.01 * v
    return np.sum(x * x)


def rows_stored(a, w):
    out = np.zeros((3, 4))
    for i in range(3):
        out[i] = np.tanh(a[i] * w)
        out[i] = out[i] * out[i] + w
    return np.sum(out * out)


def test_item_stores_in_loops():
    x = np.arange(8) * 1.1 + _rng.uniform(-0.1, 0.1, 8)
    v = _rng.standard_normal(8) * 0.1
    got = check(particles, (x, v, 2.0), (0, 1, 2))
    assert all(np.all(np.isfinite(g)) for g in got)
    source = s2sad.grad(particles, (0, 2), target="numba").source_for(x, v, 2.0)
    assert "f[i] = " in source and "stack_item_f" not in source and \
        "stack_t_3" not in source  # (i + 1: recomputed; f's items: never read back)
    check(rows_stored, (_rng.standard_normal((3, 4)), _rng.standard_normal(4)), (0, 1))


def test_the_benchmarks_particle_gradient_equals_the_hand_written_one():
    from benchmarks.numba_target import grad_particles_hand, particles as workload
    x = np.arange(12) * 1.1 + _rng.uniform(-0.1, 0.1, 12)
    args = (x, np.zeros(12), 2.0)
    got = s2sad.grad(workload, (0, 2), target="numba")(*args)
    hand = grad_particles_hand(*args)
    np.testing.assert_allclose(got[0], hand[0], rtol=1e-10)
    assert got[1] == pytest.approx(hand[1], rel=1e-10)


# --- a loop's saved floats in an array ----------------------------------------------------


def counts(x):
    n = 0
    total = 0.0
    for i in range(x.shape[0]):
        total = total + x[i] * n
        n = n + 1
    return total * total


def starts_as_an_int(x):
    p = 1
    for i in range(x.shape[0]):
        p = p * x[i]
    return p


def test_a_loop_saves_a_float_in_an_array_and_anything_else_in_a_list():
    x = np.linspace(0.5, 1.5, 6)
    source = s2sad.grad(speelpenning, target="numba").source_for(x)
    assert "p_saved = float_tape(t_2)" in source and "put_float(p_saved, i, p)" in source
    source = s2sad.grad(euler, (0, 1), target="numba").source_for(0.5, 2.0)
    assert "y_saved = float_tape(50)" in source
    source = s2sad.grad(starts_as_an_int, target="numba").source_for(x)
    assert "float_tape" not in source  # (p = 1: an int where the tape is made)
    check(starts_as_an_int, (x,))
    check(counts, (x,))
    got = s2sad.grad(speelpenning, target="numba")(x.astype(np.float32))
    np.testing.assert_allclose(got, s2sad.grad(speelpenning)(x.astype(np.float32)), rtol=1e-6)


def test_put_float_is_compiled_for_float64_only():
    from s2sad.runtime.numba_tape import float_tape, put_float

    @numba.njit
    def store(value):
        tape = float_tape(2)
        put_float(tape, 0, value)
        return tape[0]
    assert store(1.5) == 1.5
    with pytest.raises(numba.core.errors.TypingError):
        store(np.float32(1.5))  # (a float32 would be widened: not compiled)
