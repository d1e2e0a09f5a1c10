"""``target="numba"``, session 34: gradients returned uncopied, a fused block's NumPy calls
in one call, one growth function for the row tape, float32 numbers as NumPy's.

- A gradient the kernel allocated is returned as it is (``fresh_gradient`` reads numba's
  memory record: allocated by numba, held once); a view of an argument, or two results
  over one allocation, are copied.
- ``put_row`` in Python and in numba grow the tape with one function (``_grown_rows``) and
  raise the same IndexError for a turn the tape was not made for.
- A float32 number the kernel returns is NumPy's ``np.float32``, as the NumPy target's
  (numba boxes it as a Python float).

Every gradient is checked against the NumPy target and central differences in float64.
Skipped without numba.
"""

import warnings

import numpy as np
import pytest

import s2sad
from s2sad.runtime.gradients import fresh_gradient
from tests.test_higher_order import central_differences

numba = pytest.importorskip("numba")


def elementwise(x):
    return np.sum(np.tanh(x) * np.exp(-0.5 * x * x) + np.log(1.0 + x * x))


def scaled(x):   # (its gradient: 3.0 everywhere, a new array of the kernel's)
    return np.sum(3.0 * x)


def product(x):
    return x[0] * x[1] + np.sum(x * x)


def tanh_sum(x):   # (fused on float64 arrays; its NumPy form for float32 ones)
    return np.sum(np.tanh(x) * x)


def _check(f, x, fd=True):
    got = s2sad.grad(f, target="numba")(x)
    want = s2sad.grad(f)(x)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    if fd:
        np.testing.assert_allclose(got, central_differences(f, (x,), 0), rtol=1e-6,
                                   atol=1e-8)
    return got


# -- gradients the kernel allocated, returned uncopied ------------------------------------

def test_a_gradient_the_kernel_made_is_returned_as_it_is():
    @numba.njit
    def made(x):
        return np.empty(x.shape[0])

    x = np.ones(4)
    g = made(x)
    assert fresh_gradient(x, g) is g


def test_a_view_of_an_argument_or_of_a_shared_result_is_copied():
    @numba.njit
    def view(x):
        return x[::-1]

    @numba.njit
    def two(x):
        a = np.zeros(x.shape[0])
        return a, a[:]

    x = np.arange(4.0)
    g = view(x)
    out = fresh_gradient(x, g)
    assert out is not g and not np.shares_memory(out, x)
    np.testing.assert_array_equal(out, x[::-1])
    a, b = two(x)
    assert fresh_gradient(x, a) is not a and not np.shares_memory(fresh_gradient(x, a), b)


@pytest.mark.parametrize("f", [elementwise, scaled, product])
def test_numba_gradients_are_new_arrays_of_their_own(f):
    x = np.random.default_rng(34).standard_normal(300)
    g = _check(f, x, fd=f is not elementwise)
    assert not np.shares_memory(g, x) and g.flags.writeable
    h = s2sad.grad(f, target="numba")(x)   # (a second call: another array)
    assert not np.shares_memory(g, h)
    if f is elementwise:
        np.testing.assert_allclose(g[:8], central_differences(f, (x[:8],), 0), rtol=1e-6)


def test_the_fused_kernel_returns_its_gradient_uncopied():
    x = np.random.default_rng(5).standard_normal(1000)
    g = s2sad.grad(elementwise, target="numba")(x)
    assert type(g.base).__name__ == "_MemInfo", type(g.base)   # (numba's, not a copy)
    np.testing.assert_allclose(g, s2sad.grad(elementwise)(x), rtol=1e-12, atol=1e-14)


# -- a fused block's NumPy calls in one call ------------------------------------------------

def test_a_block_calls_numpy_once_for_all_its_functions():
    x = np.random.default_rng(7).standard_normal(20000) * 3
    source = s2sad.grad(elementwise, target="numba").source_for(x)
    assert source.count("in_place(") == 1 and \
        "in_place(np.tanh, x_j, tanh_1, np.exp, exp_2, exp_2)" in source, source
    _check(elementwise, x, fd=False)
    np.testing.assert_allclose(s2sad.grad(elementwise, target="numba")(x[:6]),
                               central_differences(elementwise, (x[:6],), 0), rtol=1e-6)


def test_in_place_warns_of_nothing_in_any_of_its_functions():
    from s2sad.runtime.numba_fused import in_place
    a, b = np.array([0.0, 1.0]), np.array([1.0, 800.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        in_place(np.tanh, a, a, np.exp, b, b)
    np.testing.assert_array_equal(a, np.tanh([0.0, 1.0]))
    assert b[0] == np.exp(1.0) and b[1] == np.inf


# -- the row tape: one growth function, one IndexError ------------------------------------

@pytest.mark.parametrize("turn", [-1, 2, 3])
def test_put_row_in_python_and_numba_refuse_the_same_turns(turn):
    from s2sad.runtime.numba_tape import put_row, row_tape

    @numba.njit
    def compiled(turn):
        rows, at = row_tape(2, np.zeros(1))
        return put_row(rows, at, turn, np.ones(3))

    rows, at = row_tape(2, np.zeros(1))
    before = at.copy()
    messages = []
    for call in (lambda: put_row(rows, at, turn, np.ones(3)), lambda: compiled(turn)):
        with pytest.raises(IndexError) as caught:
            call()
        messages.append(str(caught.value))
    assert messages[0] == messages[1] and "row tape is full" in messages[0]
    np.testing.assert_array_equal(at, before)   # (nothing written)


def test_put_row_in_python_and_numba_grow_alike():
    from s2sad.runtime.numba_tape import put_row, row_of, row_tape

    lengths = (3, 3, 5, 1)

    def fill(put, rows, at):
        for t, n in enumerate(lengths):
            rows = put(rows, at, t, np.arange(n) + 10.0 * t)
        return rows

    @numba.njit
    def compiled(lengths):
        rows, at = row_tape(4, np.zeros(1))
        for t in range(4):
            rows = put_row(rows, at, t, np.arange(lengths[t]) + 10.0 * t)
        return rows, at

    rows, at = row_tape(4, np.zeros(1))
    rows = fill(put_row, rows, at)
    other, other_at = compiled(np.array(lengths))
    np.testing.assert_array_equal(at, other_at)
    assert len(rows) == len(other)   # (grown the same way)
    for t, n in enumerate(lengths):
        np.testing.assert_array_equal(row_of(rows, at, t), np.arange(n) + 10.0 * t)
        np.testing.assert_array_equal(row_of(other, other_at, t), np.arange(n) + 10.0 * t)


# -- float32 numbers as NumPy's -------------------------------------------------------------

def _types(value):
    if isinstance(value, tuple):
        return tuple(_types(v) for v in value)
    return type(value), getattr(value, "dtype", None)


@pytest.mark.parametrize("f", [product, tanh_sum, elementwise])
def test_a_float32_value_is_numpy_s_as_on_the_numpy_target(f):
    x = np.linspace(-0.9, 0.8, 6, dtype=np.float32)
    value, grad = s2sad.value_and_grad(f, target="numba")(x)
    want_value, want_grad = s2sad.value_and_grad(f)(x)
    assert grad.dtype == want_grad.dtype == np.float32
    np.testing.assert_allclose(grad, want_grad, rtol=1e-5)
    np.testing.assert_allclose(grad, central_differences(f, (x.astype(float),), 0),
                               rtol=1e-4, atol=1e-5)
    assert _types(value) == _types(want_value) == (np.float32, np.float32)
    np.testing.assert_allclose(value, want_value, rtol=1e-6)
    again = s2sad.value_and_grad(f, target="numba")(x)[0]   # (the entry kept: same type)
    assert type(again) is np.float32


def test_float64_results_keep_their_values_and_a_while_loop_s_float32_too():
    def until(x):
        n = 0
        while x[n] < 0.5:
            n += 1
        return x[n] * x[0] + x[n]

    for dtype in (np.float32, np.float64):
        x = np.linspace(0.1, 1.0, 5, dtype=dtype)
        value, grad = s2sad.value_and_grad(until, target="numba")(x)
        want_value, want_grad = s2sad.value_and_grad(until)(x)
        assert np.dtype(type(value)) == np.dtype(type(want_value)) == dtype
        np.testing.assert_allclose(grad, want_grad, rtol=1e-6)
        np.testing.assert_allclose(grad, central_differences(until, (x.astype(float),), 0),
                                   rtol=1e-4, atol=1e-6)


def test_narrow_scalars_reads_numba_s_types():
    from numba import types

    from s2sad.transforms.numba_kernel import _narrow_scalars
    fix = _narrow_scalars(types.Tuple((types.complex64, types.float64, types.Array(
        types.float32, 1, "C"))))
    out = fix((1 + 2j, 2.5, np.ones(1, np.float32)))
    assert type(out[0]) is np.complex64 and type(out[1]) is float
    assert _narrow_scalars(types.float64) is None and \
        _narrow_scalars(types.UniTuple(types.float64, 2)) is None
