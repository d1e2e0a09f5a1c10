"""The Dask target, session 27: no part of the forward sweep computed twice, and second order.

* A Python float parameter (an intercept ``b``), or a list of them, beside Dask data: its
  gradient is a Python float, computed in the one ``dask.compute`` with the others (a
  ``float(s_b)`` in the generated code computed the forward graph again, alone).
* Second order with Dask data: Hessian-vector products, ``grad(grad(f))`` for a scalar
  parameter, ``jvp`` of ``grad`` and ``hessian``, against the NumPy target and central
  differences.
"""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="Dask is not installed "
                         "(pip install 'dask[array]' distributed, or the `dask` extra)")

import s2sad  # noqa: E402
from tests.dask_workloads import _data, logistic  # noqa: E402
from tests.test_dask_target import Computes  # noqa: E402
from tests.test_higher_order import central_differences  # noqa: E402


def chunked(X, y):
    return da.from_array(X, chunks=(30, X.shape[1])), da.from_array(y, chunks=30)


# --- a Python float's gradient: in the one compute ------------------------------------------


def with_intercept(w, b, X, y):
    r = X @ w + b - y
    return np.mean(r ** 2)


def with_floats(w, bs, X, y):
    r = X @ w + bs[0] - bs[1] * y
    return np.mean(r ** 2)


@pytest.mark.parametrize("with_value", [False, True], ids=["grad", "value_and_grad"])
def test_a_python_float_gradient_is_computed_with_the_others(with_value):
    w, X, y = _data()
    make = s2sad.value_and_grad if with_value else s2sad.grad
    expected = make(with_intercept, (0, 1))(w, 0.25, X, y)
    gradient = make(with_intercept, (0, 1))
    gradient(w, 0.25, *chunked(X, y))  # (built: the count below is of one call's computes)
    with Computes() as computes:
        got = gradient(w, 0.25, *chunked(X, y))
    assert computes.count == 1  # (float(s_b) computed the forward graph a second time)
    g_w, g_b = got[1] if with_value else got
    e_w, e_b = expected[1] if with_value else expected
    assert type(g_b) is float and np.isclose(g_b, e_b, rtol=1e-12)
    np.testing.assert_allclose(g_w, e_w, rtol=1e-12)
    if with_value:
        assert np.isclose(float(got[0]), expected[0], rtol=1e-12)
    source = s2sad.grad(with_intercept, (0, 1)).source_for(w, 0.25, *chunked(X, y))
    assert "float(" not in source and "as_gradient(b, s_b)" in source, source
    assert "float(s_b)" in s2sad.grad(with_intercept, (0, 1)).source_for(w, 0.25, X, y)


@pytest.mark.parametrize("container", [list, tuple])
def test_a_list_of_python_floats_gradient_is_computed_with_the_others(container):
    w, X, y = _data()
    bs = container([0.25, 1.5])
    expected = s2sad.grad(with_floats, (0, 1))(w, bs, X, y)
    gradient = s2sad.grad(with_floats, (0, 1))
    gradient(w, bs, *chunked(X, y))
    with Computes() as computes:
        g_w, g_bs = gradient(w, bs, *chunked(X, y))
    assert computes.count == 1
    assert type(g_bs) is container and all(type(g) is float for g in g_bs)
    np.testing.assert_allclose(g_bs, expected[1], rtol=1e-12)
    np.testing.assert_allclose(g_w, expected[0], rtol=1e-12)
    np.testing.assert_allclose(
        g_bs, central_differences(lambda b: with_floats(w, list(b), X, y),
                                  (np.array(bs),), 0), rtol=1e-6)


# --- a NumPy sensitivity given a Dask term: a new array -------------------------------------


def test_the_benchmark_gmm_on_chunked_points():
    """The benchmark's GMM: ``s_L`` starts as a NumPy array (of the prior) and takes a
    Dask term; ``s_L += ...`` wrote it in place, which Dask refuses (``out=``)."""
    from benchmarks.workloads.gmm import gmm, make_args
    alphas, means, qs, Ls, x, mask, gamma, m = make_args(np.random.default_rng(1), True)
    args = (alphas, means, qs, Ls)
    xd = da.from_array(x, chunks=(7, x.shape[1]))
    gradient = s2sad.grad(gmm, wrt=(0, 1, 2, 3))
    source = gradient.source_for(*args, xd, mask, gamma, m)
    assert "s_L = s_L + " in source and "+=" not in source, source
    got = gradient(*args, xd, mask, gamma, m)
    expected = gradient(*args, x, mask, gamma, m)
    assert all(type(g) is np.ndarray for g in got)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)
    for i in range(4):
        differences = central_differences(
            lambda a, i=i: gmm(*args[:i], a, *args[i + 1:], x, mask, gamma, m), (args[i],), 0)
        np.testing.assert_allclose(got[i], differences, rtol=1e-6, atol=1e-6)


# --- second order ---------------------------------------------------------------------------


def intercept_loss(b, w, X, y):
    z = X @ w + b
    return np.sum(np.log1p(np.exp(z)) - y * z)


def quartic(w, X):
    return np.sum((X @ w) ** 4) + np.sum(np.sin(X) * X)


def test_hessian_vector_products_are_numpys():
    w, X, y = _data()
    v = np.linspace(-1.0, 1.0, w.size)
    product = s2sad.hvp(logistic)
    product(w, *chunked(X, y), v)
    with Computes() as computes:
        got = product(w, *chunked(X, y), v)
    assert computes.count == 1 and type(got) is np.ndarray  # (w's kind: computed, once)
    np.testing.assert_allclose(got, s2sad.hvp(logistic)(w, X, y, v), rtol=1e-12)
    hessian = central_differences(lambda a: s2sad.grad(logistic)(a, X, y), (w,), 0)
    np.testing.assert_allclose(got, hessian @ v, rtol=1e-6, atol=1e-6)


def test_a_dask_arguments_hessian_vector_product_stays_lazy():
    w, X, _ = _data()
    Xd = da.from_array(X, chunks=(30, 4))
    V = np.cos(X)
    with Computes() as computes:
        got = s2sad.hvp(quartic, wrt=1)(w, Xd, da.from_array(V, chunks=(30, 4)))
    assert computes.count == 0 and isinstance(got, da.Array) and got.chunks == Xd.chunks
    expected = s2sad.hvp(quartic, wrt=1)(w, X, V)
    np.testing.assert_allclose(got.compute(), expected, rtol=1e-12)
    step = 1e-5
    differences = (s2sad.grad(quartic, wrt=1)(w, X + step * V) -
                   s2sad.grad(quartic, wrt=1)(w, X - step * V)) / (2 * step)
    np.testing.assert_allclose(expected, differences, rtol=1e-6, atol=1e-6)


def test_grad_of_grad_for_a_scalar_parameter():
    w, X, y = _data()
    second = s2sad.grad(s2sad.grad(intercept_loss))
    second(0.3, w, *chunked(X, y))
    with Computes() as computes:
        got = second(0.3, w, *chunked(X, y))
    assert computes.count == 1 and type(got) is float
    assert np.isclose(got, s2sad.grad(s2sad.grad(intercept_loss))(0.3, w, X, y), rtol=1e-12)
    differences = central_differences(
        lambda b: s2sad.grad(intercept_loss)(float(b), w, X, y), (np.array(0.3),), 0)
    assert np.isclose(got, differences, rtol=1e-6)


def loss_wb(w, b, X, y):
    return intercept_loss(b, w, X, y)


def test_jvp_of_grad_gives_the_gradients_kind():
    w, X, y = _data()
    v = np.linspace(-1.0, 1.0, w.size)
    forward = s2sad.jvp(s2sad.grad(loss_wb))
    forward(w, 0.3, *chunked(X, y))[1](v)
    with Computes() as computes:
        value, push = forward(w, 0.3, *chunked(X, y))
        tangent = push(v)
    assert computes.count == 2  # (the value; then value and tangent together, in push)
    assert type(value) is np.ndarray and type(tangent) is np.ndarray
    e_value, e_push = s2sad.jvp(s2sad.grad(loss_wb))(w, 0.3, X, y)
    np.testing.assert_allclose(value, e_value, rtol=1e-12)
    np.testing.assert_allclose(tangent, e_push(v), rtol=1e-12)
    hessian = central_differences(lambda a: s2sad.grad(loss_wb)(a, 0.3, X, y), (w,), 0)
    np.testing.assert_allclose(tangent, hessian @ v, rtol=1e-6, atol=1e-6)


def test_jvp_of_grad_for_a_scalar_parameter():
    w, X, y = _data()
    forward = s2sad.jvp(s2sad.grad(loss_wb, wrt=1), wrt=1)
    value, push = forward(w, 0.3, *chunked(X, y))
    tangent = push(1.0)
    assert type(value) is float and type(tangent) is float
    e_value, e_push = s2sad.jvp(s2sad.grad(loss_wb, wrt=1), wrt=1)(w, 0.3, X, y)
    assert np.isclose(value, e_value, rtol=1e-12) and np.isclose(tangent, e_push(1.0),
                                                                  rtol=1e-12)
    differences = central_differences(
        lambda b: s2sad.grad(loss_wb, wrt=1)(w, float(b), X, y), (np.array(0.3),), 0)
    assert np.isclose(tangent, differences, rtol=1e-6)


def test_hessian_on_chunked_data():
    w, X, y = _data()
    got = s2sad.hessian(logistic)(w, *chunked(X, y))
    assert type(got) is np.ndarray and got.shape == (w.size, w.size)
    np.testing.assert_allclose(got, s2sad.hessian(logistic)(w, X, y), rtol=1e-12)
    np.testing.assert_allclose(
        got, central_differences(lambda a: s2sad.grad(logistic)(a, X, y), (w,), 0),
        rtol=1e-6, atol=1e-6)
