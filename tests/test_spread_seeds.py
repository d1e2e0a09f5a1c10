"""A reduction's sensitivity spread by the product that reads it (issue 39 §1's speed).

``sum_grad(g, like=x, axis=1, keepdims=True) * e``, ``e`` shaped like ``x``, is ``g * e``
(``SpreadByProducts``); a seed that is a Python number computed from shapes,
``sum_grad(-(1.0 / X.shape[0]), like=Y) * Y``, is that number (``UnitSeed``); a module's
number (``np.pi``) is a Python number to the kinds, so a loss that adds one needs no
``output_seed``. And ``debug_nans`` quotes statements as the generated code reads them.
"""

import types

import numpy as np
import pytest

import s2sad
from s2sad.runtime.debug import NonFiniteError
from tests.test_higher_order import central_differences


def _check(f, args, wrt=0):
    """The gradient of ``f`` against central differences in float64; its source."""
    got = s2sad.grad(f, wrt=wrt)(*args)
    want = central_differences(f, args, wrt)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    return s2sad.grad(f, wrt=wrt).source_for(*args)


def softmax_ce(z, Y):
    m = np.max(z, axis=1, keepdims=True)
    e = np.exp(z - m)
    lse = np.log(np.sum(e, axis=1, keepdims=True)) + m
    return -np.sum(Y * (z - lse)) / Y.shape[0]


def mlp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    m = np.max(z, axis=1, keepdims=True)
    e = np.exp(z - m)
    lse = np.log(np.sum(e, axis=1, keepdims=True)) + m
    return -np.sum(Y * (z - lse)) / X.shape[0]


def with_pi(x):
    return np.sum(x * x) - 0.5 * x.size * np.log(2.0 * np.pi)


consts = types.ModuleType("consts")
consts.C = 2.0


def with_module_number(x):
    return np.sum(x) * consts.C - np.pi


def scaled_sum(x, c):
    return c * np.sum(np.sin(x))


def scaled_squares(x, c):
    y = np.sin(x)
    return c * np.sum(y * y)


def spread_read_alone(x):
    s = np.sum(x * x, axis=1, keepdims=True)
    return np.sum(s * s)


def rows_over_vector(x, w):
    s = np.sum(np.exp(x), axis=1, keepdims=True)
    return np.sum(np.log(s) * w)


def sqrt_rows(x):
    return np.sum(np.sum(np.sqrt(x), axis=1) ** 2)


def _mlp_args(rng, batch=8):
    W1 = rng.standard_normal((5, 4))
    b1 = rng.standard_normal(4)
    W2 = rng.standard_normal((4, 3))
    b2 = rng.standard_normal(3)
    X = rng.standard_normal((batch, 5))
    Y = np.eye(3)[rng.integers(0, 3, batch)]
    return W1, b1, W2, b2, X, Y


def test_softmax_cross_entropy_spreads_by_its_products():
    rng = np.random.default_rng(0)
    z, Y = rng.standard_normal((4, 3)), np.eye(3)[[0, 2, 1, 1]]
    text = _check(softmax_ce, (z, Y))
    assert "sum_grad" not in text, text
    assert "Y * -(1.0 / Y.shape[0])" in text, text


@pytest.mark.parametrize("wrt", [0, 1, 2, 3])
def test_the_mlp_gradient_is_plain_numpy_and_right(wrt):
    args = _mlp_args(np.random.default_rng(1))
    text = _check(mlp, args, wrt)
    assert "sum_grad" not in text and "output_seed" not in text, text


def test_the_mlp_keeps_float32():
    args = tuple(a.astype(np.float32) for a in _mlp_args(np.random.default_rng(2)))
    grads = s2sad.grad(mlp, wrt=(0, 1, 2, 3))(*args)
    assert all(g.dtype == np.float32 for g in grads)
    want = s2sad.grad(mlp, wrt=(0, 1, 2, 3))(*(a.astype(np.float64) for a in args))
    for got, expected in zip(grads, want):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_a_modules_number_is_a_python_number_to_the_kinds():
    x = np.random.default_rng(3).standard_normal((3, 2))
    text = _check(with_pi, (x,))
    assert "output_seed" not in text and "np.pi" not in text, text


def test_a_spread_read_other_than_by_a_product_of_its_shape_stays():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4))
    _check(spread_read_alone, (x,))
    # np.log(s) * w: w is a vector, not shaped like s's spread; the gradient stays right
    text = _check(rows_over_vector, (x, rng.standard_normal(1)))
    _check(rows_over_vector, (x, rng.standard_normal((3, 1))))
    assert "np.exp(x)" in text


def test_a_scalar_seed_times_the_spread_is_right():
    x = np.random.default_rng(5).standard_normal(4)
    _check(scaled_sum, (x, 1.5))
    _check(scaled_sum, (x, np.float64(-2.0)))
    text = _check(scaled_squares, (x, 1.5))
    assert "sum_grad" not in text, text
    _check(scaled_squares, (x, np.float64(-2.0)))


def test_debug_nans_quotes_the_readable_statement():
    x = np.array([[0.0, 1.0], [4.0, 9.0]])
    with pytest.raises(NonFiniteError) as info, np.errstate(divide="ignore",
                                                            invalid="ignore"):
        s2sad.grad(sqrt_rows, debug_nans=True)(x)
    message = str(info.value)
    assert "like=" in message and ", False)" not in message and ", None, " not in message, \
        message


def test_a_modules_number_changed_to_an_array_builds_again():
    x = np.array([1.0, 2.0, 3.0])
    try:
        _check(with_module_number, (x,))
        consts.C = np.array([1.0, 2.0, 3.0])  # the loss is a vector now: refused
        with pytest.raises(s2sad.NonScalarOutputError):
            s2sad.grad(with_module_number)(x)
        consts.C = np.array([3.0])  # a size-1 array: a gradient again, right
        np.testing.assert_allclose(s2sad.grad(with_module_number)(x), [3.0, 3.0, 3.0])
    finally:
        consts.C = 2.0
