"""Small arrays: the runtime helpers' remembered plans, and sums returned uncopied.

At the benchmark's small sizes (an MLP of batch 8, a GMM of 20 points) each helper's
Python work shows. The helpers' NumPy paths remember what they work out per shapes;
these tests check that each such path gives what the general one gives, bit for bit,
and that a gradient made by ``np.sum`` is returned without a copy, yet never as an
array the caller passed in.
"""

import numpy as np
import pytest

import s2sad
from s2sad.runtime import shapes
from s2sad.runtime import sum_grad, summed_matmul_grad_left, unbroadcast, unbroadcast_product
from s2sad.runtime.products import _SUMMED_FIRST, matmul_grad_left
from s2sad.runtime.reductions import _KEPT


def _general_sum_grad(g, like, axis):
    """What ``sum_grad(g, like, axis)`` is: ``g`` with the axis put back, spread."""
    return np.broadcast_to(np.expand_dims(g, axis), like.shape)


@pytest.mark.parametrize("gshape,like,axis", [
    ((4,), (4, 3), 1), ((3,), (4, 3), 0), ((4, 20), (4, 20, 3), 2), ((4, 20), (4, 20, 3), -1),
    ((4, 3), (4, 20, 3), 1), ((), (5,), 0), ((2, 5), (2, 1, 5), 1)])
def test_sum_grad_along_one_axis_is_the_general_spread(gshape, like, axis):
    rng = np.random.default_rng(0)
    g, x = rng.standard_normal(gshape), np.zeros(like)
    got = sum_grad(g, x, axis)
    assert got.shape == x.shape and not got.flags.writeable
    assert np.array_equal(got, _general_sum_grad(g, x, axis))
    assert (gshape, len(like), axis) in _KEPT  # (the plan remembered)


def test_sum_grad_of_a_strided_g_and_of_a_number():
    g = np.arange(8.0)[::2]  # (not contiguous: reshaped to a copy, the same numbers)
    x = np.zeros((4, 3))
    assert np.array_equal(sum_grad(g, x, 1), _general_sum_grad(g, x, 1))
    assert np.array_equal(sum_grad(0.0, x, 1), x)  # (a number: broadcast as it is)
    assert np.array_equal(sum_grad(np.float32(2.0), np.zeros((2, 3), np.float32), 0),
                          np.full((2, 3), 2.0, np.float32))


def test_sum_grad_axis_out_of_range_goes_the_general_way():
    assert shapes is not None and _KEPT is not None
    with pytest.raises(ValueError):  # (as before the plans: the general path's error)
        sum_grad(np.ones(4), np.zeros((4, 3)), 2)


@pytest.mark.parametrize("a,b,like", [
    ((4, 1, 3), (4, 20, 3), (4, 1, 3)), ((4, 20, 3), (4, 1, 3), (4, 1, 3)),
    ((4, 20, 3), (4, 20, 1), (4, 20, 1)), ((1, 3), (5, 3), (3,)), ((5, 3), (3,), (3,)),
    ((4, 20, 3), (4, 20, 3), (4, 1, 3)), ((2, 1), (1, 3), ())])
def test_unbroadcast_product_is_the_sum_of_the_product(a, b, like):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(a), rng.standard_normal(b)
    for _ in range(2):  # (the plan worked out, then remembered)
        got = unbroadcast_product(x, y, np.zeros(like))
        assert np.allclose(got, unbroadcast(x * y, np.zeros(like)), rtol=1e-14, atol=1e-14)
        assert np.shape(got) == like


def test_unbroadcast_product_takes_the_constant_factor_out():
    x = np.full((4, 1, 3), 3.0)
    y = np.random.default_rng(2).standard_normal((4, 20, 3))
    assert shapes._factored_plan(x.shape, y.shape, (4, 1, 3)) == (0, (4, 1, 3))
    assert np.array_equal(unbroadcast_product(x, y, np.zeros((4, 1, 3))),
                          x * y.sum(axis=1, keepdims=True))


def test_unbroadcast_product_of_shapes_that_do_not_broadcast_is_numpys_error():
    with pytest.raises(ValueError):
        unbroadcast_product(np.ones((2, 3)), np.ones((4, 3, 1, 2)), np.ones(3))


@pytest.mark.parametrize("g,x,y,like", [
    ((4, 5, 3), (4, 5, 2), (4, 2, 3), (4, 1, 2)), ((4, 5, 3), (4, 5, 2), (4, 2, 3), (4, 5, 2)),
    ((4, 5, 3), (4, 5, 2), (2, 3), (5, 2)), ((4, 5, 3), (4, 5, 2), (1, 2, 3), (2,))])
def test_summed_matmul_grad_left_is_the_sum_of_the_product(g, x, y, like):
    rng = np.random.default_rng(3)
    g_, x_, y_ = (rng.standard_normal(s) for s in (g, x, y))
    for _ in range(2):
        got = summed_matmul_grad_left(g_, x_, y_, np.zeros(like))
        assert np.allclose(got, unbroadcast(matmul_grad_left(g_, x_, y_), np.zeros(like)),
                           rtol=1e-13, atol=1e-13)
    assert (g, x, y, like) in _SUMMED_FIRST


def bias(W, b, X):
    return np.sum(np.tanh(X @ W + b))


def test_a_bias_gradient_made_by_np_sum_is_returned_uncopied():
    W, b, X = np.ones((3, 2)) * 0.1, np.zeros(2), np.ones((4, 3))
    g = s2sad.grad(bias, wrt=(0, 1))
    source = g.source_for(W, b, X)
    assert "as_gradient" not in source and "fresh_gradient(b, s_b)" in source
    gW, gb = g(W, b, X)
    h = 1.0 - np.tanh(X @ W + b) ** 2
    assert np.allclose(gb, h.sum(axis=0)) and np.allclose(gW, X.T @ h)
    assert gb.flags.writeable and gb.base is None and gb is not b


def summed_argument(x, y):
    return np.sum(x * y)


def test_a_gradient_that_is_an_argument_summed_is_still_a_new_array():
    x, y = np.arange(3.0), np.ones(3)
    gx, gy = s2sad.grad(summed_argument, wrt=(0, 1))(x, y)
    assert gx is not y and gy is not x and not np.shares_memory(gx, y)
    gx[0] = 100.0
    assert y[0] == 1.0


def test_a_sum_given_its_output_array_is_not_taken_as_fresh():
    import gast
    from s2sad.transforms.gradient_form import fresh_call, fresh_result
    fresh = fresh_call({}, "np")
    calls = {f: gast.parse(f).body[0].value for f in (
        "np.sum(x, axis=0)", "np.sum(x, out=y)", "np.sum(x, 0, None, y)", "np.sum(x, **k)",
        "np.sum(x, *a)", "np.mean(x)")}
    assert [fresh_result(c, fresh) for c in calls.values()] == [True, False, False, False,
                                                                False, False]
