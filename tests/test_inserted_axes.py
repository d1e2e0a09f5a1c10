"""The adjoint of an index that only puts in axes of length 1 (``x[:, None]``,
``x[None]``, ``x[..., None]``): the sensitivity with those axes taken out again
(``unbroadcast(g, t)[:, 0]``), not zeros shaped like ``x`` with ``g`` added into a view
of them. Each case is checked against central differences, the shape and dtype of its
gradient, forward mode and second derivatives; the source is checked for what it leaves
out."""

import numpy as np
import pytest

import s2sad
from tests.test_gradients import check_every_mode, check_structure, finite_differences


def column(x, w):  # (n,) -> (n, 1), broadcast against a row
    return np.sum(np.sin(x[:, None] * w[None, :]))


def leading(x, w):  # (n, d) -> (1, n, d), broadcast against (k, 1, d)
    return np.sum(np.tanh(x[None] - w[:, None, :]) ** 2)


def middle(x, w):  # (k, d) -> (k, 1, d): a mixture's means
    xc = w[None, :, :] - x[:, None, :]
    return np.sum(xc * xc * np.exp(x)[:, None, :])


def ellipsis(x, w):
    return np.sum(np.cos(x[..., None] * w))


def scalar_seed(x, w):  # the sensitivity of x[:, None] is smaller than it
    return np.sum(x[:, None]) * 3.0 + np.sum(w)


def negated(x, w):  # a difference: the sensitivity comes in negated
    return np.sum((w[None, :] - x[:, None]) ** 2)


def also_read_whole(x, w):  # x gets a view of another array's sensitivity, then more
    y = x[:, None] * w[None, :]
    return np.sum(y ** 2) + np.sum(x ** 3) + np.sum(y * x[:, None])


def kept_variable(x, w):  # the view is the user's own variable, read twice
    col = x[:, None]
    return np.sum(col * w[None, :]) + np.sum(np.exp(col))


def in_a_branch(x, w):
    total = np.sum(w)
    if np.sum(x) > -100.0:
        total = total + np.sum(np.sin(x[:, None] + w[None, :]))
    return total


def in_a_loop(x, w):  # (inside a loop the sensitivity goes into zeros, as before)
    total = 0.0
    for k in range(2):
        total = total + np.sum(np.sin(x[:, None] * w[None, :] + k))
    return total


def newaxis(x, w):  # np.newaxis is None by another name
    return np.sum(np.sin(x[:, np.newaxis] * w[np.newaxis, :]) * x[..., np.newaxis])


def zero_d(x, w):  # a 0-d array given an axis
    return np.sum(np.sin(np.sum(x)[None] * w))


CASES = [column, leading, middle, ellipsis, scalar_seed, negated, also_read_whole,
         kept_variable, in_a_branch, in_a_loop, newaxis, zero_d]
STRAIGHT = [column, leading, middle, ellipsis, scalar_seed, negated, also_read_whole,
            kept_variable, in_a_branch, newaxis, zero_d]


def _args(f):
    rng = np.random.default_rng(len(f.__name__))
    if f is leading:
        return rng.standard_normal((3, 2)), rng.standard_normal((4, 2))
    if f is middle:
        return rng.standard_normal((2, 3)), rng.standard_normal((5, 3))
    if f is ellipsis:
        return rng.standard_normal((2, 3)), rng.standard_normal(4)
    return rng.standard_normal(3), rng.standard_normal(4)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient_matches_central_differences(f):
    x, w = _args(f)
    x_before, w_before = x.copy(), w.copy()
    gx, gw = s2sad.grad(f, wrt=(0, 1))(x, w)
    check_structure(x, gx)
    check_structure(w, gw)
    np.testing.assert_allclose(gx.ravel(), finite_differences(f, [x, w], 0), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(gw.ravel(), finite_differences(f, [x, w], 1), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_array_equal(x, x_before)  # (nothing changed through a view)
    np.testing.assert_array_equal(w, w_before)


@pytest.mark.parametrize("f", STRAIGHT, ids=lambda f: f.__name__)
def test_no_zeros_to_add_into(f):
    source = s2sad.grad(f, wrt=(0, 1)).source_for(*_args(f))
    assert "zeros_like_structure" not in source, source
    assert "s_x[" not in source, source


def test_the_axis_is_taken_out_as_a_person_would():
    source = s2sad.grad(middle, wrt=(0, 1)).source_for(*_args(middle))
    assert "s_x -= unbroadcast(s_xc, like=t_2)[:, 0, :]" in source, source
    assert "unbroadcast(unbroadcast(" not in source and "unbroadcast(-" not in source, source


def test_np_newaxis_is_taken_out_as_none_is():
    source = s2sad.grad(newaxis, wrt=(0, 1)).source_for(*_args(newaxis))
    assert "x[:, np.newaxis]" in source, source  # (the forward sweep reads as written)
    assert ")[:, 0]" in source and ")[0, :]" in source, source
    assert "np.add.at" not in source, source


def test_a_view_of_another_sensitivity_is_not_changed_in_place():
    source = s2sad.grad(also_read_whole, wrt=(0, 1)).source_for(*_args(also_read_whole))
    assert "s_x +=" not in source, source  # s_x may share memory with s_y: s_x = s_x + ...


@pytest.mark.parametrize("f", [column, middle, negated, kept_variable, newaxis],
                         ids=lambda f: f.__name__)
def test_forward_mode_and_second_derivatives_agree(f):
    check_every_mode(f, _args(f))


def test_float32_stays_float32():
    x, w = (a.astype(np.float32) for a in _args(middle))
    gx, gw = s2sad.grad(middle, wrt=(0, 1))(x, w)
    assert gx.dtype == np.float32 and gw.dtype == np.float32
    gx64 = s2sad.grad(middle)(x.astype(np.float64), w.astype(np.float64))
    np.testing.assert_allclose(gx, gx64, rtol=1e-4, atol=1e-5)
