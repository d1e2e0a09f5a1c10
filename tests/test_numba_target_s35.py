"""``target="numba"``, session 35: ``np.tanh`` of float64 arrays by code LLVM vectorizes,
NumPy's float numbers returned as NumPy's, float32 kept where NumPy keeps it.

- ``tanh_vectorized`` (s2sad.runtime.numba_tanh) is within 1 ulp of the C library's
  ``tanh`` on every float64 (subnormals, ``±0``, ``±inf``, NaN), odd, and its loop calls
  no ``tanh``: an RNN's kernel calls it, and its gradient is NumPy's to rounding.
- A float64 number the NumPy target returns as ``np.float64`` (``np.sum``, an item of an
  array) comes back as one; a Python float stays one.
- ``1.0 + x * x`` of a float32 array is float32, as NumPy computes it (NEP 50): the
  kernel writes the constant ``weak(1.0, x)``.

Every gradient is checked against the NumPy target and central differences in float64.
Skipped without numba.
"""

import platform

import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences

numba = pytest.importorskip("numba")


def rnn(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def tanh_layer(x):   # (a 2-d array: the loop over its elements, C-ordered)
    return np.sum(np.tanh(x) * x + np.tanh(x * 3.0))


def log_sum(x):
    return np.sum(np.log(1.0 + x * x))


def item_product(x):
    return x[0] * x[1] + 0.5


def python_product(a, b):
    return a * b + 1.0


def scaled_sum(x, k):
    return np.sum(np.exp(-0.1 * x) * k) * 0.5


def scaled(x):
    return np.sum(np.exp(-0.1 * x) * 1.5) * 0.5 + x[0] * 0.1


def _points(n):
    rng = np.random.default_rng(35)
    exponents = rng.integers(-1075, 1024, n)
    wide = np.ldexp(rng.uniform(0.5, 1.0, n), exponents) * rng.choice([-1.0, 1.0], n)
    near = rng.uniform(-25.0, 25.0, n)
    small = np.ldexp(rng.uniform(-1.0, 1.0, n), rng.integers(-40, 6, n))
    edges = np.array([0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 0.625,
                      np.nextafter(0.625, 0.0), 20.0, np.nextafter(20.0, 0.0), 1e-8, 1e308,
                      np.inf, -np.inf, np.nan])
    return np.concatenate([wide, near, small, edges])


# -- tanh ----------------------------------------------------------------------------------

def test_tanh_vectorized_is_within_one_ulp_of_the_c_library_s_everywhere():
    from s2sad.runtime.numba_tanh import tanh_vectorized

    @numba.njit
    def compiled(x):
        return tanh_vectorized(x)

    x = _points(100_000)
    got, want = compiled(x), np.tanh(x)
    finite = np.isfinite(want)
    ulps = np.abs(got[finite] - want[finite]) / np.spacing(np.abs(want[finite]))
    assert ulps.max() <= 1.0
    assert np.array_equal(got[~finite], want[~finite], equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(x))   # (-0.0 and -inf's sign too)
    assert np.array_equal(compiled(-x[finite]), -got[finite])
    assert np.array_equal(got[:2000], [compiled(np.array([v]))[0] for v in x[:2000]])
    python = tanh_vectorized(x[:2000])   # (the same arithmetic in Python)
    assert np.array_equal(python, got[:2000])


def test_tanh_vectorized_of_other_values_is_numba_s_np_tanh():
    from s2sad.runtime.numba_tanh import tanh_vectorized

    @numba.njit
    def compiled(x):
        return tanh_vectorized(x)

    for x in (np.linspace(-2, 2, 5, dtype=np.float32), np.arange(3), 0.5,
              np.ones((2, 3))[:, ::2] * 0.3):
        got = compiled(x)
        np.testing.assert_allclose(got, np.tanh(x), rtol=1e-15)
        assert np.asarray(got).dtype == np.asarray(np.tanh(x)).dtype or np.ndim(x) == 0


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64", "aarch64",
                                                       "arm64"), reason="SIMD of doubles")
def test_the_tanh_loop_calls_no_tanh_and_is_vectorized():
    from s2sad.runtime.numba_tanh import _tanh_line_numba
    _tanh_line_numba(np.ones(3))
    ir = "\n".join(_tanh_line_numba.inspect_llvm().values())
    assert "@tanh(" not in ir and "@llvm.tanh" not in ir
    assert " x double>" in ir   # (LLVM's vectors of doubles)


def test_an_rnn_s_kernel_computes_tanh_by_the_vectorized_loop():
    rng = np.random.default_rng(8)
    W, xs = rng.standard_normal((4, 4)) * 0.4, rng.standard_normal((30, 4))
    g = s2sad.grad(rnn, target="numba")
    source = g.source_for(W, xs)   # (into the new array W @ h + xs[t]: none made)
    assert "tanh_in_place(" in source and "np.tanh(" not in source
    got = g(W, xs)
    np.testing.assert_allclose(got, s2sad.grad(rnn)(W, xs), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, central_differences(rnn, (W, xs), 0), rtol=1e-6,
                               atol=1e-8)


def test_tanh_in_place_writes_only_a_float64_vector():
    from s2sad.runtime.numba_tanh import tanh_in_place

    @numba.njit
    def compiled(x, y):
        return tanh_in_place(x + y)

    x = np.linspace(-1.0, 1.0, 6)
    for a, b in ((x, 0.5), (x.reshape(2, 3), x.reshape(2, 3)), (x.astype(np.float32), x[0])):
        np.testing.assert_allclose(compiled(a, b), np.tanh(a + b), rtol=1e-6)
    assert np.array_equal(x, np.linspace(-1.0, 1.0, 6))


def test_tanh_of_a_2d_view():
    x = np.linspace(-1.5, 1.2, 24).reshape(3, 8)[:, ::2]   # (a view of layout A)
    got = s2sad.grad(tanh_layer, target="numba")(x)
    np.testing.assert_allclose(got, s2sad.grad(tanh_layer)(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, central_differences(tanh_layer, (x,), 0), rtol=1e-6,
                               atol=1e-8)


# -- NumPy's float64 numbers ---------------------------------------------------------------

def _types(value):
    if isinstance(value, tuple):
        return tuple(_types(v) for v in value)
    return type(value), getattr(value, "dtype", None)


@pytest.mark.parametrize("f, args", [
    (log_sum, (np.linspace(-0.9, 0.8, 6),)),
    (item_product, (np.array([0.3, -1.2, 2.0]),)),
    (python_product, (2.0, 3.0)),
    (scaled_sum, (np.linspace(0.0, 1.0, 4), 1.5)),
], ids=["np.sum", "items", "python floats", "np.sum times a float"])
def test_a_float64_value_has_the_numpy_target_s_type(f, args):
    value, grad = s2sad.value_and_grad(f, target="numba")(*args)
    want_value, want_grad = s2sad.value_and_grad(f)(*args)
    assert _types(value) == _types(want_value)
    assert _types(grad) == _types(want_grad)
    np.testing.assert_allclose(value, want_value, rtol=1e-14)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12)
    np.testing.assert_allclose(grad, central_differences(f, args, 0), rtol=1e-6, atol=1e-8)
    again = s2sad.value_and_grad(f, target="numba")(*args)[0]   # (the entry kept)
    assert type(again) is type(want_value)


# -- float32 as NumPy keeps it -------------------------------------------------------------

@pytest.mark.parametrize("f", [log_sum, scaled])
def test_a_float32_computation_stays_float32(f):
    x = np.linspace(-0.9, 0.8, 6, dtype=np.float32)
    args = (x,)
    value, grad = s2sad.value_and_grad(f, target="numba")(*args)
    want_value, want_grad = s2sad.value_and_grad(f)(*args)
    assert _types(value) == _types(want_value) == (np.float32, np.float32)
    assert grad.dtype == want_grad.dtype == np.float32
    np.testing.assert_allclose(value, want_value, rtol=2e-6)
    np.testing.assert_allclose(grad, want_grad, rtol=2e-6)
    wide = tuple(a.astype(float) if isinstance(a, np.ndarray) else a for a in args)
    np.testing.assert_allclose(grad, central_differences(f, wide, 0), rtol=1e-4, atol=1e-5)


def test_weak_constants_take_the_other_operand_s_float_type():
    from s2sad.runtime.numba_weak import weak

    @numba.njit
    def compiled(x, y):
        return (weak(1.0, x) + x * x, x * weak(0.1, x), weak(0.5, x) ** x, x / weak(3.0, x),
                weak(-3.0, x) * x, weak(0.1, x, y) * (x * y))

    for dtype in (np.float32, np.float64):
        x = np.linspace(0.1, 1.0, 3, dtype=dtype)
        for y in (x, np.ones(3)):   # (beside float64 too: 0.1 exactly, no float32 made)
            want = (1.0 + x * x, x * 0.1, 0.5 ** x, x / 3.0, -3.0 * x, 0.1 * (x * y))
            for got, one in zip(compiled(x, y), want, strict=True):
                assert got.dtype == one.dtype
                np.testing.assert_array_equal(got, one)


def test_a_constant_beside_another_operand_is_left_as_numba_takes_it():
    def mixed(x):
        return np.sum(0.1 * np.zeros(x.shape[0]) + x * x)

    source = s2sad.grad(mixed, target="numba").source_for(np.ones(3))
    assert "0.1 * np.zeros" in source   # (not weak: np.zeros makes float64)
    for dtype in (np.float32, np.float64):
        x = np.linspace(0.1, 1.0, 3, dtype=dtype)
        value, grad = s2sad.value_and_grad(mixed, target="numba")(x)
        want_value, want_grad = s2sad.value_and_grad(mixed)(x)
        assert _types(value) == _types(want_value) and grad.dtype == want_grad.dtype
        np.testing.assert_allclose(value, want_value, rtol=1e-6)
        np.testing.assert_allclose(grad, 2 * x.astype(float), rtol=1e-6)
