"""Adversarial pass on the compiled targets (session 27): ``target="dask"`` and
``target="numba"`` against the NumPy target and float64 central differences.

Each test fails without its fix:

* Dask: the adjoint of ``np.trace``/``np.diagonal``/``np.diag`` stored through a
  ``moveaxis`` of a Dask array at two array indices (Dask's ``NotImplementedError``; a
  store through it would not reach the array);
* Dask: a scattered sensitivity at an index that is a Dask array (``np.array([...])`` in
  the function, ``np.argmax``, ``np.argmin``) raised a ``TypeError``;
* Dask: ``np.reshape`` across row chunks that do not split evenly into the new axes
  raised Dask's ``NotImplementedError``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences

da = pytest.importorskip("dask.array", reason="Dask is not installed")

_rng = np.random.default_rng(27)
A65 = _rng.standard_normal((6, 5))
A435 = _rng.standard_normal((4, 3, 5))
V6 = _rng.uniform(0.2, 1.2, 6)


# --- Dask: the diagonal's adjoint -------------------------------------------------------------


def trace_of_product(a):
    return np.trace(a @ a.T)


def trace_above(a):
    return np.trace(a, 1) * np.sum(a)


def trace_below(a):
    return np.trace(a, -1) * np.sum(a * a)


def diagonal_of_3d(a):
    return np.sum(np.diagonal(a, -1, 0, 2) ** 2)


def diag_of_matrix(a):
    return np.sum(np.diag(a, 1) * np.arange(5.0))


DIAGONALS = [
    pytest.param(trace_of_product, A65, (4, 2), id="trace"),
    pytest.param(trace_above, A65, (4, 2), id="trace-offset-1"),
    pytest.param(trace_below, A65, (4, 2), id="trace-offset--1"),
    pytest.param(diagonal_of_3d, A435, (3, 2, 2), id="diagonal-axes-0-2"),
    pytest.param(diag_of_matrix, A65.T.copy(), (2, 4), id="diag"),
]


@pytest.mark.parametrize("f, a, chunks", DIAGONALS)
def test_diagonal_adjoints_on_dask_equal_central_differences(f, a, chunks):
    expected = central_differences(f, (a,), 0)
    lazy = s2sad.grad(f, target="dask")(da.from_array(a, chunks=chunks))
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(lazy.compute(), s2sad.grad(f, target="numpy")(a), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("f, a, chunks", DIAGONALS)
def test_diagonal_adjoints_on_dask_data_for_a_numpy_factor(f, a, chunks):
    # (the vjp of a Dask argument, pulled back through the same helper)
    value, pull = s2sad.vjp(f, target="dask")(da.from_array(a, chunks=chunks))
    np.testing.assert_allclose(np.asarray(pull(1.0)), central_differences(f, (a,), 0),
                               rtol=1e-6, atol=1e-6)


def test_diagonal_adjoint_of_numpy_arrays_is_unchanged():
    from s2sad.runtime.products import diagonal_grad
    out = diagonal_grad(np.array([1.0, 2.0]), np.zeros((3, 3)), 1)
    np.testing.assert_array_equal(out, [[0, 1, 0], [0, 0, 2], [0, 0, 0]])


# --- Dask: a scatter at an index that is a Dask array --------------------------------------------


def constant_index(x):
    idx = np.array([0, 2, 2, 5])
    return np.sum(x[idx] ** 2)


def argmax_item(x):
    i = np.argmax(x)
    return x[i] * 2.0 + np.sum(x)


def argmin_item(x):
    return x[np.argmin(x)] * x[0]


@pytest.mark.parametrize("f", [constant_index, argmax_item, argmin_item])
@pytest.mark.parametrize("how", ["grad", "value_and_grad", "vjp"])
def test_scatter_at_a_dask_index(f, how):
    expected = central_differences(f, (V6,), 0)
    x = da.from_array(V6, chunks=4)
    if how == "grad":
        got = s2sad.grad(f, target="dask")(x)
    elif how == "value_and_grad":
        value, got = s2sad.value_and_grad(f, target="dask")(x)
        assert np.isclose(float(np.asarray(value)), f(V6))
    else:
        got = s2sad.vjp(f, target="dask")(x)[1](1.0)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6, atol=1e-6)


def picked_by_data(w, x):
    return w[np.argmax(x)] * 2.0 + np.sum(w * x)


def test_scatter_into_a_numpy_parameter_at_an_index_of_dask_data():
    w = _rng.standard_normal(6)
    got = s2sad.grad(picked_by_data)(w, da.from_array(V6, chunks=4))
    assert type(got) is np.ndarray
    np.testing.assert_allclose(got, central_differences(picked_by_data, (w, V6), 0),
                               rtol=1e-6, atol=1e-6)


# --- Dask: reshape across chunks that do not split evenly -------------------------------------


def reshape_rows(x):
    return np.sum(np.reshape(x, (3, 10)) ** 2 * np.arange(10.0))


def reshape_method(x):
    return np.sum(x.reshape(3, 10) ** 2 * np.arange(10.0))


def reshape_inferred(x):
    return np.sum(np.reshape(x, (-1, 3)) @ np.arange(3.0) ** 2)


@pytest.mark.parametrize("f", [reshape_rows, reshape_method, reshape_inferred])
@pytest.mark.parametrize("chunks", [(4, 2), (5, 3)], ids=["rows-4", "rows-5"])
def test_reshape_across_uneven_chunks(f, chunks):
    expected = central_differences(f, (A65,), 0)
    x = da.from_array(A65, chunks=chunks)
    np.testing.assert_allclose(s2sad.grad(f, target="dask")(x).compute(), expected,
                               rtol=1e-6, atol=1e-6)
    value, push = s2sad.jvp(f, target="dask")(x)
    t = _rng.standard_normal(A65.shape)
    np.testing.assert_allclose(float(np.asarray(push(da.from_array(t, chunks=chunks)))),
                               float(np.sum(expected * t)), rtol=1e-6)


# --- Dask: a NumPy parameter's sensitivity given Dask terms -------------------------------------


def two_terms(w, x):
    return w[np.argmax(x)] * 2.0 + np.sum(w * x)


def item_and_sum(w, x):
    return w[0] * np.sum(x) + np.sum(np.sin(w) * x)


def loop_terms(w, x):
    s = 0.0
    for k in range(3):
        s = s + np.sum(w * x) * (k + 1.0) + w[k] * np.sum(x * x)
    return s


@pytest.mark.parametrize("f", [two_terms, item_and_sum, loop_terms])
@pytest.mark.parametrize("how", ["grad", "value_and_grad"])
def test_numpy_parameter_with_dask_data_sums_its_terms(f, how):
    # (s_w = zeros_like(w), a NumPy array, then s_w += <a Dask term>: Dask refuses an out=
    # that is a NumPy array, NotImplementedError; the Dask target writes s_w = s_w + term)
    w = _rng.standard_normal(6)
    x = da.from_array(V6, chunks=4)
    if how == "grad":
        got = s2sad.grad(f)(w, x)
    else:
        value, got = s2sad.value_and_grad(f)(w, x)
        assert np.isclose(float(value), f(w, V6))
    assert type(got) is np.ndarray
    np.testing.assert_allclose(got, central_differences(f, (w, V6), 0), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, s2sad.grad(f, target="numpy")(w, V6), rtol=1e-12)


# --- every target: a loop variable set again in its loop's body ----------------------------------


def rebinds_its_counter(x):
    s = 0.0
    for i in range(5):
        i = i * 2
        s = s + x * i
    return s


def rebinds_after_use(x):
    s = 0.0
    for i in range(1, 4):
        s = s + math.sin(x * i)
        i = i + 10
        s = s + x * i
    return s


@pytest.mark.parametrize("f", [rebinds_its_counter, rebinds_after_use])
@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "plain"])
def test_a_loop_counter_set_again_in_the_body(f, optimize):
    expected = central_differences(f, (0.5,), 0)
    np.testing.assert_allclose(s2sad.grad(f, optimize=optimize)(0.5), expected, rtol=1e-6)
    value, g = s2sad.value_and_grad(f, optimize=optimize)(0.5)
    assert np.isclose(value, f(0.5))
    np.testing.assert_allclose(g, expected, rtol=1e-6)
    np.testing.assert_allclose(s2sad.jvp(f)(0.5)[1](1.0), expected, rtol=1e-6)
    g = s2sad.grad(f)
    np.testing.assert_allclose(s2sad.hessian(f)(0.5), (g(0.5 + 1e-5) - g(0.5 - 1e-5)) / 2e-5,
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", [rebinds_its_counter, rebinds_after_use])
def test_a_loop_counter_set_again_on_numba(f):
    pytest.importorskip("numba")
    got = s2sad.grad(f, target="numba")(0.5)
    np.testing.assert_allclose(got, central_differences(f, (0.5,), 0), rtol=1e-6)


# --- numba: Python's integers are unbounded, the kernel's are 64-bit ------------------------------


def grows_an_integer(x, n):
    k = 1
    for _ in range(n):
        k = k * 31
    return x * (k % 1000)


def grows_by_a_power(x, n):
    return x * ((2 ** n) % 7)


def grows_its_counter_in_an_inner_loop(x, n):
    s = 0.0
    for i in range(3):
        for _ in range(n):
            i = i * 31          # (the outer counter, grown across the inner loop's turns)
        s = s + x * (i % 1000)
    return s


def doubles(x, n):
    k = 1
    for _ in range(n):
        k = k + k
    return x * (k % 1000)


def grows_in_a_helper(x, n):
    return x * (_power_of_31(1, n) % 1000)


def _power_of_31(k, n):
    for _ in range(n):
        k *= 31
    return k


@pytest.mark.parametrize("f, line, name", [
    (grows_an_integer, "k = k * 31", "multiplied by itself in a loop (k)"),
    (grows_by_a_power, "return x * ((2 ** n) % 7)", "raised to or shifted by a varying"),
    (grows_in_a_helper, "k *= 31", "multiplied by itself in a loop (k)"),
    (grows_its_counter_in_an_inner_loop, "i = i * 31", "multiplied by itself in a loop (i)"),
    (doubles, "k = k + k", "multiplied by itself in a loop (k)"),
])
def test_numba_refuses_python_integers_that_may_outgrow_64_bits(f, line, name):
    """numba's integers wrap at 64 bits where Python's grow: 31**20 % 1000 is 601 in
    Python, 961 in a kernel. Refused at the user's line, never a wrong number."""
    pytest.importorskip("numba")
    from s2sad.errors import S2sadError
    with pytest.raises(S2sadError) as caught:
        s2sad.grad(f, target="numba")(0.5, 20)
    text = str(caught.value)
    assert name in text and "64-bit" in text and "target='numpy'" in text
    assert line in text


def index_arithmetic(x, n):
    s = 0.0
    p = 1.0
    for i in range(n):
        j = i * 2 + 1           # (an int, not multiplied by itself)
        p = p * 1.5             # (a float multiplied by itself)
        s = s + x * j * p
    return s


def products_of_items(x, m):
    p = x
    for i in range(m.shape[0]):
        p = p * m[i]            # (NumPy's integers, which wrap in NumPy too)
    return p


@pytest.mark.parametrize("f, args", [
    (index_arithmetic, (0.5, 6)),
    (products_of_items, (0.5, np.array([2, 3, 4]))),
])
def test_numba_takes_integers_that_cannot_outgrow_python(f, args):
    pytest.importorskip("numba")
    got = s2sad.grad(f, target="numba")(*args)
    assert got == pytest.approx(s2sad.grad(f)(*args), rel=1e-12)
