"""The Dask target, session 28: what Dask cannot count is refused at the user's line.

* Items a mask or ``np.nonzero`` picks from a Dask array have sizes Dask knows only when
  computed (NaN in the shape). Where the gradient reads them (to scatter a sensitivity,
  spread it, count a mean), the call is refused at the user's line with what to do; it
  raised Dask's or NumPy's own error from inside a helper before.
* What reads no such size still works: masked data in a product, the weighted form the
  refusal advises, an index computed first.
* ``target="dask"`` given NumPy arrays alone is refused at the call (``da.argmax`` of a
  NumPy array raised an ``AttributeError`` from inside Dask); a NumPy parameter beside Dask
  data, given to a function whose Dask twin takes Dask arrays alone, gets NumPy's.
* Speed: a run of elementwise statements of the gradient is one kernel applied chunk by
  chunk (``fused``, one Dask layer, not one per operation), with the same arithmetic.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="Dask is not installed "
                         "(pip install 'dask[array]' distributed, or the `dask` extra)")

import s2sad  # noqa: E402
from s2sad.backends import HostArrayError  # noqa: E402
from s2sad.errors import DifferentiationError, NoDerivativeError  # noqa: E402
from tests.test_higher_order import central_differences  # noqa: E402

X8 = np.arange(24.0).reshape(8, 3) / 10.0 - 0.4
V8 = np.linspace(0.1, 0.9, 8)
W3 = np.array([0.3, -0.2, 0.5])


def _line_of(f, text):
    lines, first = inspect.getsourcelines(f)
    return first + next(i for i, line in enumerate(lines) if text in line)


# --- a value picked by a mask, differentiated ------------------------------------------------


def by_nonzero(x):
    return np.sum(x[np.nonzero(x > 0.5)] ** 2)


def by_mask(x):
    return np.sum(x[x > 0.5] ** 2)


def by_where(x):
    return np.sum(x[np.where(x > 0.5)] ** 2)


def by_flatnonzero(x):
    return np.sum(x[np.flatnonzero(x > 0.5)] ** 2)


def by_argwhere(x):
    return np.sum(x[np.argwhere(x > 0.5)[:, 0]] ** 2)


def masked_mean(x):
    return np.mean(x[x > 0.5] ** 2)


def masked_max(x):
    return np.max(x[x > 0.5]) * 3.0


def masked_then_sliced(x):
    y = x[x > 0.5]
    return np.sum(y[1:] * 2.0)


# --- masked data, a parameter differentiated -------------------------------------------------


def data_mean(w, X):
    r = X[X[:, 0] > 0.3] @ w
    return np.mean(r ** 2)


def data_sum(w, X):
    return np.sum(X[X[:, 0] > 0.3] @ w)


def data_nonzero(w, X):
    return np.sum(np.exp(X[np.nonzero(X[:, 0] > 0.3)] @ w))


def data_rows_of_product(w, X):
    Z = X * w
    return np.sum(Z[Z[:, 0] > 0.1] ** 2)


REFUSED = [
    (by_nonzero, (V8,), "x[np.nonzero(x > 0.5)]"), (by_mask, (V8,), "x[x > 0.5]"),
    (by_where, (V8,), "x[np.where(x > 0.5)]"), (by_flatnonzero, (V8,), "np.flatnonzero"),
    (by_argwhere, (V8,), "np.argwhere"), (masked_mean, (V8,), "np.mean"),
    (masked_max, (V8,), "np.max"), (masked_then_sliced, (V8,), "y[1:]"),
    (data_mean, (W3, X8), "np.mean"), (data_sum, (W3, X8), "@ w"),
    (data_nonzero, (W3, X8), "np.nonzero"), (data_rows_of_product, (W3, X8), "Z[Z[:, 0]"),
]


def _chunked(args):
    return tuple(da.from_array(a, chunks=(4,) + a.shape[1:]) if a.ndim > 1 or a.size == 8
                 else a for a in args)


@pytest.mark.parametrize("f, args, text", REFUSED, ids=[f.__name__ for f, _, _ in REFUSED])
def test_sizes_dask_does_not_know_are_refused_at_the_users_line(f, args, text):
    expected = s2sad.grad(f)(*args)  # (NumPy knows the sizes: the gradient is checked)
    np.testing.assert_allclose(expected, central_differences(f, args, 0), rtol=1e-6,
                               atol=1e-6)
    with pytest.raises(DifferentiationError) as info:
        s2sad.grad(f)(*_chunked(args))
    error = info.value
    assert error.message.startswith("a value whose sizes Dask does not know (shape (nan"), \
        error.message
    assert error.lineno == _line_of(f, text) and text in error.text
    assert "np.where(x > 0.5, x ** 2, 0.0)" in error.hint and "target='numpy'" in error.hint


def test_value_and_grad_and_vjp_refuse_it_too():
    x = da.from_array(V8, chunks=4)
    for make in (s2sad.value_and_grad, lambda f: (lambda x: s2sad.vjp(f)(x)[1](1.0))):
        with pytest.raises(DifferentiationError, match="sizes Dask does not know") as info:
            make(by_mask)(x)
        assert info.value.lineno == _line_of(by_mask, "x[x > 0.5]")


# --- what reads no unknown size works ---------------------------------------------------------


def data_squares(w, X):
    r = X[X[:, 0] > 0.3] @ w
    return np.sum(r ** 2)


def weighted(x):
    return np.sum(np.where(x > 0.5, x ** 2, 0.0))


def picked(x, idx):
    return np.sum(x[idx] ** 2)


def test_masked_data_in_a_product_works():
    Xd = da.from_array(X8, chunks=(4, 3))
    got = s2sad.grad(data_squares)(W3, Xd)
    assert type(got) is np.ndarray
    expected = s2sad.grad(data_squares)(W3, X8)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(got, central_differences(data_squares, (W3, X8), 0),
                               rtol=1e-6, atol=1e-6)


def test_the_advised_forms_work():
    x = da.from_array(V8, chunks=4)
    np.testing.assert_allclose(s2sad.grad(weighted)(x).compute(),
                               central_differences(by_mask, (V8,), 0), rtol=1e-6, atol=1e-6)
    idx = np.flatnonzero((x > 0.5).compute())
    np.testing.assert_allclose(s2sad.grad(picked)(x, idx).compute(),
                               central_differences(by_mask, (V8,), 0), rtol=1e-6, atol=1e-6)


# --- neighbours: refused at the user's line already, by their own rule -------------------------


def unique_sum(x):
    return np.sum(np.unique(x) ** 2)


def sorted_masked(x):
    return np.sum(np.sort(x[x > 0.5]) * np.arange(4.0))


def test_unique_and_sort_of_a_masked_value_are_refused_at_the_users_line():
    x = da.from_array(V8, chunks=4)
    with pytest.raises(NoDerivativeError, match="no derivative rule for numpy.unique") as info:
        s2sad.grad(unique_sum)(x)
    assert info.value.lineno == _line_of(unique_sum, "np.unique")
    with pytest.raises(DifferentiationError, match="numpy.sort has no Dask twin") as info:
        s2sad.grad(sorted_masked)(x)
    assert info.value.lineno == _line_of(sorted_masked, "np.sort")


# --- target="dask" with NumPy arrays alone ----------------------------------------------------


def argmax_item(x):
    return x[np.argmax(x)] ** 2 + np.sum(x)


def dask_argmax_item(x):
    return x[da.argmax(x)] ** 2 + np.sum(x)


def cumulative(x):
    return np.sum(np.cumsum(x) * x)


def in_a_list(xs):
    return np.sum(xs[0] * xs[1])


class Model:
    def __init__(self, X):
        self.X = X


def with_model(w, m):
    return np.sum((m.X @ w) ** 2)


@pytest.mark.parametrize("f", [argmax_item, dask_argmax_item, cumulative])
def test_numpy_arrays_alone_are_refused_for_target_dask(f):
    with pytest.raises(HostArrayError, match="target='dask' was asked, and no argument is a "
                       "Dask array") as info:
        s2sad.grad(f, target="dask")(V8)
    assert "da.from_array" in info.value.hint and "target='auto'" in info.value.hint
    with pytest.raises(HostArrayError, match="no argument is a Dask array"):
        s2sad.value_and_grad(f, target="dask")(V8)
    numpy_f = argmax_item if f is dask_argmax_item else f  # (da.argmax takes no NumPy array)
    expected = central_differences(numpy_f, (V8,), 0)
    np.testing.assert_allclose(s2sad.grad(numpy_f)(V8), expected, rtol=1e-6, atol=1e-6)
    got = s2sad.grad(f, target="dask")(da.from_array(V8, chunks=4))  # (a Dask argument)
    np.testing.assert_allclose(got.compute(), expected, rtol=1e-6, atol=1e-6)


def test_a_dask_array_in_a_list_or_an_object_counts():
    xs = [da.from_array(V8, chunks=4), V8[::-1].copy()]
    got = s2sad.grad(in_a_list, target="dask")(xs)
    np.testing.assert_allclose(got[0].compute(), V8[::-1], rtol=1e-12)
    with pytest.raises(HostArrayError, match="no argument is a Dask array"):
        s2sad.grad(in_a_list, target="dask")([V8, V8])
    got = s2sad.grad(with_model, target="dask")(W3, Model(da.from_array(X8, chunks=(4, 3))))
    np.testing.assert_allclose(got, central_differences(
        lambda w: with_model(w, Model(X8)), (W3,), 0), rtol=1e-6, atol=1e-6)
    with pytest.raises(HostArrayError, match="no argument is a Dask array"):
        s2sad.grad(with_model, target="dask")(W3, Model(X8))


# --- a NumPy parameter given to a function whose Dask twin takes Dask arrays alone ----------


def param_argmax(w, X):
    return w[np.argmax(w)] * 2.0 + np.sum((X @ w) ** 2)


def param_cumsum(w, X):
    return np.sum(np.tanh(X @ np.cumsum(w)))


def param_triu(w, X):
    return np.sum(X @ np.triu(np.outer(w, w)) @ w)


def param_round(w, X):
    return np.sum((X @ (np.round(w, 1) * w)) ** 2)


def param_inv(w, X):
    return np.sum(X @ np.linalg.inv(np.eye(3) * 3.0 + np.outer(w, w)) @ w)


def param_solve(w, X):
    A = np.diag(np.array([3.0, 4.0, 5.0])) + np.outer(w, w)
    return np.sum(np.sin(X @ np.linalg.solve(A, w)))


MIXED = [(param_argmax, "argmax(w)"), (param_cumsum, "cumsum(w)"), (param_triu, "triu("),
         (param_round, "round(w, 1)"), (param_inv, "inv("), (param_solve, "solve(")]


@pytest.mark.parametrize("f, call", MIXED, ids=[f.__name__ for f, _ in MIXED])
def test_a_numpy_parameter_in_a_function_dask_has_for_dask_arrays_alone(f, call):
    expected = s2sad.grad(f)(W3, X8)
    np.testing.assert_allclose(expected, central_differences(f, (W3, X8), 0), rtol=1e-6,
                               atol=1e-6)
    Xd = da.from_array(X8, chunks=(4, 3))
    got = s2sad.grad(f)(W3, Xd)  # (da.argmax(w) raised AttributeError: no chunks)
    assert type(got) is np.ndarray
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    source = s2sad.grad(f).source_for(W3, Xd)
    assert call in source and f"da.{call}" not in source and \
        f"da.linalg.{call}" not in source, source
    # (a Dask array given to the stand-in: Dask's own function; one chunk, which its LU
    # wants)
    Wd = da.from_array(W3, chunks=3)
    np.testing.assert_allclose(s2sad.grad(f)(Wd, Xd).compute(), expected, rtol=1e-10,
                               atol=1e-12)


# --- a run of elementwise statements: one kernel, one layer ---------------------------------


def softplus_loss(x, y):
    return np.sum(np.log1p(np.exp(-x)) * y + 0.5 * x * x)


def broadcast_loss(W, X, b, c):
    Z = X * W[None, :] + b
    return np.sum(np.tanh(Z) ** 2 * c) + np.sum(np.exp(W) ** 2)


def _layers(f, *args, wrt=0):
    gradient = s2sad.grad(f, wrt)
    gradient(*args)
    raw = getattr(gradient._last.function, "__wrapped__", gradient._last.function)  # (the
    # generated function itself: lazy results)
    result = raw(*args)
    parts = result if isinstance(result, tuple) else (result,)
    return sum(len(p.dask.layers) for p in parts if isinstance(p, da.Array))


def test_the_logistic_gradient_is_one_kernel_between_its_products():
    from tests.dask_workloads import _data, logistic
    w, X, y = _data()
    Xd, yd = da.from_array(X, chunks=(30, 4)), da.from_array(y, chunks=30)
    source = s2sad.grad(logistic).source_for(w, Xd, yd)
    assert source.count("def kernel_") == 1 and "fused(kernel_1, z, y)" in source, source
    assert "def kernel_" not in s2sad.grad(logistic).source_for(w, X, y)  # (Dask's alone)

    def by_hand(w, X, y):
        return X.T @ (1.0 / (1.0 + np.exp(-(X @ w))) - y)
    hand = len(by_hand(w, Xd, yd).dask.layers)
    assert _layers(logistic, w, Xd, yd) <= hand  # (30 before, 18 by hand: a layer an operation)
    got = s2sad.grad(logistic)(w, Xd, yd)
    np.testing.assert_allclose(got, s2sad.grad(logistic)(w, X, y), rtol=1e-12)
    np.testing.assert_allclose(got, central_differences(logistic, (w, X, y), 0), rtol=1e-6,
                               atol=1e-6)


def test_a_kernel_does_the_same_arithmetic_as_the_statements():
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(50), rng.random(50)
    gradient = s2sad.grad(softplus_loss)
    xd = da.from_array(x, chunks=12)
    assert "fused(kernel_1" in gradient.source_for(xd, y)
    got = gradient(xd, y)
    assert isinstance(got, da.Array) and got.chunks == xd.chunks
    # (elementwise: each item's sensitivity is the NumPy target's, to the last bit)
    assert np.array_equal(got.compute(), s2sad.grad(softplus_loss)(x, y))
    np.testing.assert_allclose(got.compute(), central_differences(softplus_loss, (x, y), 0),
                               rtol=1e-6, atol=1e-6)


def test_kernels_broadcast_and_take_numpy_arrays_numbers_and_dask_scalars():
    rng = np.random.default_rng(4)
    W, X, c = rng.standard_normal(3), rng.standard_normal((20, 3)), rng.random((20, 1))
    Xd, cd = da.from_array(X, chunks=(6, 2)), da.from_array(c, chunks=(5, 1))
    for wrt in (0, (0, 1, 2)):
        gradient = s2sad.grad(broadcast_loss, wrt)
        assert "fused(" in gradient.source_for(W, Xd, 0.25, cd)
        got = gradient(W, Xd, 0.25, cd)
        expected = s2sad.grad(broadcast_loss, wrt)(W, X, 0.25, c)
        for g, e in zip(got if wrt else (got,), expected if wrt else (expected,)):
            g = g.compute() if isinstance(g, da.Array) else g
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
    differences = central_differences(broadcast_loss, (W, X, 0.25, c), 0)
    np.testing.assert_allclose(s2sad.grad(broadcast_loss)(W, Xd, 0.25, cd), differences,
                               rtol=1e-6, atol=1e-6)


def test_a_kernel_of_numpy_values_alone_runs_on_numpy():
    from s2sad.runtime.dask_compat import fused
    w = np.array([0.5, -1.0])
    assert type(fused(lambda a, b: da.exp(a) * b - 1.0, w, 2.0)) is np.ndarray
    lazy = fused(lambda a, b: da.exp(a) * b - 1.0, da.from_array(w, chunks=1), 2.0)
    assert isinstance(lazy, da.Array) and len(lazy.dask.layers) == 2  # (the array, one)
    assert np.array_equal(lazy.compute(), np.exp(w) * 2.0 - 1.0)
    with pytest.raises(ZeroDivisionError):  # (a Python number's error, as the statement's)
        fused(lambda a, b: a * (1.0 / b), da.from_array(w, chunks=1), 0.0)


def test_a_kernel_given_a_list_runs_its_statements_one_by_one():
    from s2sad.runtime.dask_compat import fused
    x = da.from_array(np.array([3.0]), chunks=1)

    def kernel(xs, x):  # (a list's * repeats it: no chunk of it is taken, [2.0, 4.0])
        ys = xs * 2
        return ys * x
    got = fused(kernel, [1.0, 2.0], x)
    np.testing.assert_array_equal(got.compute(), [3.0, 6.0, 3.0, 6.0])
