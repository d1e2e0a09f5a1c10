"""Helpers the kinds decide, written as NumPy (``s2sad.transforms.plain_numpy``).

Each rewritten gradient is checked three ways: its source has the plain form, its
result is the same bits as the helper-based code's (the pass switched off), and it
matches central differences. An argument with an axis of length 1 when the gradient
was built, and not at the next call (or the other way round), must not run the variant
built for the other kinds.
"""

import types

import numpy as np
import pytest

import s2sad
from s2sad import pipeline
from s2sad.transforms.plain_numpy import PlainNumpy

from benchmarks.workloads import gmm, logreg, mlp, rnn


def fresh(f):
    """A new function object of ``f``'s code: s2sad builds its gradients anew."""
    return types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__,
                              f.__closure__)


class _Off(PlainNumpy):
    def visit(self, node):
        return node


def helper_based(f, wrt, args, monkeypatch):
    """The gradient of ``f`` at ``args`` as the code without the pass computes it."""
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "PlainNumpy", _Off)
        g = s2sad.grad(fresh(f), wrt=wrt)
        return g(*args), g.source_for(*args)


def central(f, args, wrt, eps=1e-6):
    """Central differences of scalar ``f`` in argument ``wrt``."""
    args = [np.array(a, dtype=float) if isinstance(a, np.ndarray) else a for a in args]
    x = args[wrt]
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        up = f(*args)
        x[i] = old - eps
        down = f(*args)
        x[i] = old
        out[i] = (up - down) / (2 * eps)
    return out


WORKLOADS = {"GMM": (gmm.gmm, (0, 1, 2, 3), gmm.make_args),
             "MLP": (mlp.mlp, (0, 1, 2, 3), mlp.make_args),
             "logistic regression": (logreg.logreg, 0, logreg.make_args),
             "RNN": (rnn.rnn, (0, 1, 2), rnn.make_args)}


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_workload_gradients_are_the_helper_based_bits_and_match_differences(name, monkeypatch):
    f, wrt, make_args = WORKLOADS[name]
    args = make_args(np.random.default_rng(0), True)
    got = s2sad.grad(fresh(f), wrt=wrt)(*args)
    before, _ = helper_based(f, wrt, args, monkeypatch)
    for mine, theirs in zip(np.atleast_1d(got) if wrt == 0 else got,
                            np.atleast_1d(before) if wrt == 0 else before, strict=True):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)
    for k, w in enumerate((wrt,) if isinstance(wrt, int) else wrt):
        part = got if isinstance(wrt, int) else got[k]
        np.testing.assert_allclose(part, central(f, args, w), rtol=1e-6, atol=1e-7)


def test_gmm_reads_as_numpy():
    args = gmm.make_args(np.random.default_rng(0), True)
    text = s2sad.grad(fresh(gmm.gmm), wrt=(0, 1, 2, 3)).source_for(*args)
    assert "s_Lx = Lx * -s_inner[:, :, None]" in text  # (was Lx * sum_grad(-1.0 * s_inner...))
    assert "np.transpose(np.swapaxes(xc, -1, -2) @ s_Lx, (0, 2, 1))" in text
    assert "s_qs = m * -s_prior + s_8[:, None] + s_Q * Q" in text
    for helper in ("sum_grad(", "transpose_grad(", "matmul_grad_right("):
        assert helper not in text


def test_without_the_pass_the_helpers_stay(monkeypatch):
    args = gmm.make_args(np.random.default_rng(0), True)
    _, text = helper_based(gmm.gmm, (0, 1, 2, 3), args, monkeypatch)
    assert "sum_grad(" in text and "transpose_grad(" in text  # (the test above can fail)


# --- kinds at build and at call -------------------------------------------------------


def row_scaled(x, w):
    return np.sum(np.sum(x * w, axis=1) ** 2)


def batched(a, b):
    return np.sum(np.transpose(a @ b, (0, 2, 1)) ** 2)


def seeded(x, w):
    y = np.sum(x, axis=1, keepdims=True)
    return np.sum(y * w) + 0.5 * np.sum(x * x)


CASES = [(row_scaled, 0, [(4, 3), (4, 3)], [(4, 3), (1, 3)]),
         (row_scaled, 0, [(4, 3), (1, 3)], [(4, 3), (4, 3)]),
         (row_scaled, 0, [(4, 1), (4, 3)], [(4, 3), (4, 3)]),
         (row_scaled, (0, 1), [(4, 3), (4, 3)], [(4, 3), (1, 3)]),
         (batched, (0, 1), [(2, 3, 4), (2, 4, 5)], [(1, 3, 4), (2, 4, 5)]),
         (batched, (0, 1), [(1, 3, 4), (2, 4, 5)], [(2, 3, 4), (2, 4, 5)]),
         (seeded, 0, [(3, 4), (3, 4)], [(3, 4), (3, 1)]),
         (seeded, 0, [(3, 4), (3, 1)], [(3, 4), (3, 4)])]


@pytest.mark.parametrize("f,wrt,first,then", CASES,
                         ids=[f"{c[0].__name__}-{c[2]}-{c[3]}" for c in CASES])
def test_length_one_axes_at_call_do_not_run_the_other_variant(f, wrt, first, then):
    rng = np.random.default_rng(3)
    g = s2sad.grad(fresh(f), wrt=wrt)
    for shapes in (first, then, first):
        args = [rng.standard_normal(s) for s in shapes]
        got = g(*args)
        for k in (wrt,) if isinstance(wrt, int) else wrt:
            part = got if isinstance(wrt, int) else got[k]
            assert part.shape == args[k].shape
            np.testing.assert_allclose(part, central(f, args, k), rtol=1e-6, atol=1e-7)


def test_a_broadcast_factor_keeps_the_helper():
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((4, 3)), rng.standard_normal((1, 3))
    text = s2sad.grad(fresh(row_scaled)).source_for(x, w)
    assert "sum_grad(" in text  # (w's axis of length 1 does not spread x's rows)
    full = s2sad.grad(fresh(row_scaled)).source_for(x, rng.standard_normal((4, 3)))
    assert "sum_grad(" not in full and "[:, None]" in full


def test_a_batch_axis_of_length_one_keeps_the_matmul_helper():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((1, 3, 4)), rng.standard_normal((2, 4, 5))
    text = s2sad.grad(fresh(batched), wrt=(0, 1)).source_for(a, b)
    assert "matmul_grad_left(" in text  # (a's batch axis is summed: not a plain product)
    plain = s2sad.grad(fresh(batched), wrt=(0, 1)).source_for(
        rng.standard_normal((2, 3, 4)), b)
    assert "matmul_grad" not in plain and "np.swapaxes(" in plain


def test_float32_gradients_keep_their_dtype_and_bits(monkeypatch):
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) else a
            for a in gmm.make_args(np.random.default_rng(0), True)]
    got = s2sad.grad(fresh(gmm.gmm), wrt=(0, 1, 2, 3))(*args)
    before, _ = helper_based(gmm.gmm, (0, 1, 2, 3), args, monkeypatch)
    for mine, theirs in zip(got, before, strict=True):
        assert mine.dtype == np.float32 and np.array_equal(mine, theirs)


# --- constants folded across an array (s2sad.transforms.readable) ---------------------


@pytest.mark.parametrize("c1,c2", [(2.0, 0.0005), (0.5, 0.3), (-4, 0.1), (3.7, 0.25),
                                   (2, 3)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_power_of_two_folds_across_an_array_to_the_same_bits(c1, c2, dtype):
    w = (np.random.default_rng(6).standard_normal(1000) * 10.0 ** np.arange(-5, 5).repeat(
        100)).astype(dtype)
    assert np.array_equal(c1 * (w * c2), w * (c1 * c2))
    assert (c1 * (w * c2)).dtype == (w * (c1 * c2)).dtype


def test_logistic_regression_folds_its_l2_constants():
    args = logreg.make_args(np.random.default_rng(0), True)
    text = s2sad.grad(fresh(logreg.logreg)).source_for(*args)
    assert "s_w = w * 0.001" in text
