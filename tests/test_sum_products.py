"""Sums of products without the product (transforms/sum_products.py, runtime.sum_product
and unbroadcast_product), and sensitivities summed down as they are built
(transforms/early_sums.py, runtime.summed_matmul_grad_left): the helpers equal the
expressions they replace, the gradients equal those of the unoptimized code and central
differences, in float64 (np.einsum) and float32 (as written), and derivatives of such
gradients compile without the passes."""

import numpy as np
import pytest

import s2sad
from s2sad.runtime import (matmul_grad_left, sum_product, summed_matmul_grad_left,
                           unbroadcast, unbroadcast_product)
from tests.test_gradients import check_every_mode


def _named(helper) -> str:
    """The generated name of a helper, here its own (``summed_matmul_grad_left``)."""
    return helper.__name__


rng = np.random.default_rng(5)
BIG = (8, 300, 4)  # 9,600 elements: np.einsum's side of the helpers


def norms(x, w):
    return np.sum(np.sum(x * x, axis=2) * w)


def kept(x):
    return np.sum(np.sum(x * x, axis=-1, keepdims=True) * x)


def total(x, y):
    return np.sum(x * y) ** 2


def two_axes(x, y):
    return np.sum(np.sum(x * y, axis=(0, 2)) ** 2)


def scaled(q, x):
    return np.sum(np.tanh(q * x))


def row(b, x):
    return np.sum(np.sin(x * b))


def mixture(means, x):
    xc = x[None, :, :] - means[:, None, :]
    return np.sum(np.log(np.sum(np.exp(-0.5 * np.sum(xc * xc, axis=2)), axis=0)))


X_GMM = rng.standard_normal((700, 3))


def gmm_like(means, q, L):
    xc = X_GMM[None, :, :] - means[:, None, :]
    Lx = q[:, None, :] * xc + xc @ np.transpose(L, (0, 2, 1))
    return np.sum(np.log(np.sum(np.exp(-0.5 * np.sum(Lx * Lx, axis=2)), axis=0)))


def centered_twice(means, x):
    """``s_xc`` read for ``means`` and for ``x``: summed once, at its one full size."""
    xc = x[None, :, :] - means[:, None, :]
    return np.sum(np.tanh(xc @ np.ones((3, 3))) * xc)


CASES = [  # (function, argument shapes, the helper its gradient calls)
    pytest.param(norms, [BIG, BIG[:2]], "sum_product(x, x, axis=2)", id="norms"),
    pytest.param(kept, [BIG], "sum_product(x, x, axis=-1, keepdims=True)", id="keepdims"),
    pytest.param(total, [BIG, BIG], "sum_product(x, y)", id="total"),
    pytest.param(two_axes, [BIG, BIG], "sum_product(x, y, axis=(0, 2))", id="two-axes"),
    pytest.param(scaled, [(8, 1, 4), BIG], "unbroadcast_product(", id="broadcast-factor"),
    pytest.param(row, [(4,), BIG], "sum_product(x, s_1, axis=(0, 1))", id="row-factor"),
    pytest.param(mixture, [(5, 3), (1000, 3)], "sum_product(xc, xc, axis=2)", id="mixture"),
    pytest.param(gmm_like, [(5, 3), (5, 3), (5, 3, 3)],
                 "s_xc = summed_matmul_grad_left(", id="gmm-early-sums"),
    pytest.param(centered_twice, [(5, 3), (700, 3)], "unbroadcast(s_xc, like=t_", id="read-twice"),
]


def _args(shapes, dtype):
    return [rng.standard_normal(s).astype(dtype) / 2 for s in shapes]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("f, shapes, helper", CASES)
def test_gradients_equal_the_unoptimized_ones(f, shapes, helper, dtype):
    args = _args(shapes, dtype)
    wrt = tuple(range(len(args)))
    g = s2sad.grad(f, wrt=wrt)
    ours, plain = g(*args), s2sad.grad(f, wrt=wrt, optimize=False)(*args)
    assert helper in g.source_for(*args), g.source_for(*args)
    for mine, want, arg in zip(ours, plain, args, strict=True):
        assert mine.shape == arg.shape and mine.dtype == arg.dtype
        np.testing.assert_allclose(mine, want, rtol=1e-10 if dtype == np.float64 else 2e-4,
                                   atol=1e-9 if dtype == np.float64 else 1e-4)


@pytest.mark.parametrize("f, shapes, helper", CASES)
def test_gradients_agree_with_central_differences(f, shapes, helper):
    """Along a random direction per argument (float64)."""
    args = _args(shapes, np.float64)
    grads = s2sad.grad(f, wrt=tuple(range(len(args))))(*args)
    eps = 1e-6
    for index, g in enumerate(grads):
        v = rng.standard_normal(args[index].shape)
        up, down = list(args), list(args)
        up[index], down[index] = args[index] + eps * v, args[index] - eps * v
        central = (f(*up) - f(*down)) / (2 * eps)
        assert np.sum(g * v) == pytest.approx(central, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("f, shapes", [(norms, [(3, 4, 2), (3, 4)]), (scaled, [(3, 1, 2),
                                                                            (3, 5, 2)])])
def test_derivatives_of_the_gradient(f, shapes):
    """jvp, hvp and the hessian differentiate a variant compiled without the pass (its
    helpers have no derivative rules of their own)."""
    args = _args(shapes, np.float64)
    source = s2sad.grad(f).source_for(*args)
    assert "_product(" in source or f is norms and "x * (2.0 * s_2)[:, :, None]" in source
    # (norms: sum_product read only for its shape, spread by the product instead)
    check_every_mode(f, args)
    big = _args([BIG, BIG[:2]] if f is norms else [(8, 1, 4), BIG], np.float64)
    tangent = rng.standard_normal(big[0].shape)
    eps = 1e-6
    grad = s2sad.grad(f)
    central = (grad(big[0] + eps * tangent, big[1]) - grad(big[0] - eps * tangent, big[1])) \
        / (2 * eps)
    np.testing.assert_allclose(s2sad.hvp(f)(*big, tangent), central, rtol=1e-5, atol=1e-6)


# --- the helpers on their own ------------------------------------------------------------------

@pytest.mark.parametrize("shape, axis, keepdims", [
    (BIG, None, False), (BIG, 0, False), (BIG, 1, True), (BIG, -1, False), (BIG, (0, 2), True),
    (BIG, (-1, 0), False), ((3000,), 0, False), ((3000,), None, True), ((60, 50), (), False),
    ((4, 5), 1, False)])  # (the last: small, np.sum as written)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sum_product_is_the_sum_of_the_product(shape, axis, keepdims, dtype):
    a, b = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    want = np.sum(a * b, axis=axis, keepdims=keepdims)
    got = sum_product(a, b, axis=axis, keepdims=keepdims)
    assert type(got) is type(want) and np.shape(got) == np.shape(want)
    assert np.result_type(got) == np.result_type(want)
    np.testing.assert_allclose(got, want, rtol=1e-12 if dtype == np.float64 else 1e-5)


@pytest.mark.parametrize("axis", [3, -4, (0, 0), (1, -2)])
def test_sum_product_refuses_what_np_sum_refuses(axis):
    a = rng.standard_normal(BIG)
    with pytest.raises(Exception) as want:
        np.sum(a * a, axis=axis)
    with pytest.raises(type(want.value)):
        sum_product(a, a, axis=axis)


@pytest.mark.parametrize("a_shape, b_shape, like", [
    (BIG, BIG, (8, 1, 4)), (BIG, BIG, (4,)), (BIG, BIG, (300, 1)), (BIG, BIG, ()), (BIG, BIG, None),
    (BIG, BIG, BIG), ((8, 1, 4), BIG, BIG), ((300, 4), BIG, (1, 4)), ((5, 4), (5, 4), (4,)),
    ((8, 1, 4), BIG, (8, 1, 4)), (BIG, (1, 1, 4), (1, 4)), ((4,), BIG, (4,)),
    ((8, 1, 1), BIG, (8, 1, 1)), ((8, 1, 4), BIG, (1, 4)), ((1, 4), (6, 1), (1, 4)),
    ((1, 4), (6, 1), ()), ((1, 4), (6, 1), None), ((1, 4), (6, 1), (2, 6, 4))])  # (a factor the same along the summed
    # axes comes out of the sum)
def test_unbroadcast_product_is_the_unbroadcast_product(a_shape, b_shape, like):
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    like = 2.5 if like is None else np.zeros(like)  # (None: a number)
    want = unbroadcast(a * b, like)
    got = unbroadcast_product(a, b, like)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_a_factor_that_is_a_number_keeps_the_written_form():
    def f(x, c):
        return np.sum(np.sum(2.0 * x, axis=1) * np.sum(c * x))

    args = (rng.standard_normal((5, 3)), 1.5)
    source = s2sad.grad(f).source_for(*args)
    assert "np.sum(2.0 * x, axis=1)" in source and "np.sum(c * x)" in source, source
    assert s2sad.grad(f)(*args) == pytest.approx(s2sad.grad(f, optimize=False)(*args))


@pytest.mark.parametrize("g_shape, x_shape, y_shape, like", [
    ((4, 5, 3), (4, 5, 2), (4, 2, 3), (4, 1, 2)),   # rows summed first
    ((4, 5, 3), (4, 5, 2), (1, 2, 3), (1, 1, 2)),   # and batches y does not have
    ((4, 5, 3), (4, 5, 2), (2, 3), (2,)),           # (y without batch axes)
    ((4, 5, 3), (4, 5, 2), (4, 2, 3), (2,)),        # batches y has: summed after
    ((4, 5, 3), (4, 5, 2), (4, 2, 3), (4, 5, 1)),   # the columns: summed after
    ((5, 3), (5, 2), (2, 3), (1, 2)), ((5, 3), (5, 2), (2, 3), (5, 2)),
    ((4, 5, 3), (5, 2), (4, 2, 3), (1, 2)),         # x broadcast against y's batches
    ((3,), (3, 5), (5,), (1, 5)), ((3,), (5,), (5, 3), (5,))])  # (1-d: as written)
def test_summed_matmul_grad_left_is_the_summed_adjoint(g_shape, x_shape, y_shape, like):
    g, x, y = (rng.standard_normal(s) for s in (g_shape, x_shape, y_shape))
    like = np.zeros(like)
    want = unbroadcast(matmul_grad_left(g, x, y), like)
    got = summed_matmul_grad_left(g, x, y, like)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_a_sensitivity_read_for_another_sum_too_stays_whole():
    args = _args([(5, 3), (700, 3)], np.float64)
    source = s2sad.grad(centered_twice, wrt=(0, 1)).source_for(*args)
    assert "summed_matmul_grad_left" not in source, source
    only_means = s2sad.grad(centered_twice).source_for(*args)
    assert "summed_matmul_grad_left(" in only_means and "s_means = -s_xc[:, 0, :]" in \
        only_means, only_means


def test_derivatives_of_a_gradient_with_early_sums():
    args = _args([(5, 3), (5, 3), (5, 3, 3)], np.float64)
    assert "summed_matmul_grad_left(" in s2sad.grad(gmm_like).source_for(*args)
    check_every_mode(gmm_like, args)


def test_unbroadcast_product_refuses_what_a_product_refuses():
    a, b = rng.standard_normal((3, 2)), rng.standard_normal((4, 2))
    with pytest.raises(ValueError, match="broadcast"):
        unbroadcast_product(a, b, np.zeros(2))


@pytest.mark.parametrize("between, moved", [
    ("pass", True),
    ("t_2[0] = 0.0", False),         # like changed in place between the terms and the sum
    ("t_2 = m * 2.0", False),        # like given another value
    ("np.add.at(t_2, 0, 1.0)", False),
    ("for i in n:\n        t_2 = i", False),
    ("s_5 = s_xc + 1.0", False),     # the sensitivity read for something else
])
def test_early_sums_move_only_what_keeps_its_meaning(between, moved):
    import gast

    from s2sad.codegen import unparse
    from s2sad.transforms.early_sums import EarlySums
    fn = gast.parse(f'''def grad_f(x, m, W, n):
    t_2 = m[:, None, :]
    xc = x - t_2
    s_4 = g(xc)
    s_xc = matmul_grad_left(s_4, xc, W)
    {between}
    s_xc += unbroadcast(q * s_4, xc)
    s_m = -unbroadcast(s_xc, t_2)[:, 0, :]
    return s_m''').body[0]
    sums = EarlySums("unbroadcast", "matmul_grad_left", _named)
    text = unparse(sums.visit(fn))
    assert sums.changed is moved and ("summed_matmul_grad_left" in text) is moved, text
