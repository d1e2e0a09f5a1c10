"""Issue 39, session 32: the softmax cross-entropy reads as a person writes it.

The seed of a mean spread by a product is ``-labels / labels.shape[0]`` (no ``sum_grad``
of ``-1.0``, no sum computed for its size alone), and a sensitivity copied once into
another (``s_logits = s_z``) is the one name. Each gradient is checked against central
differences in float64; a float32 run keeps float32 and gives the values of the general
variant (which keeps the helpers).
"""

import numpy as np

import s2sad
from tests.test_higher_order import central_differences


def softmax_xent(logits, labels):
    m = np.max(logits, axis=1, keepdims=True)
    z = logits - m
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(labels * logp, axis=1))


def mean_rows(x, w):
    return np.mean(np.sum(w * np.sin(x), axis=1))


def mean_of_columns(x, w):
    return -np.mean(np.sum(w * np.cos(x), axis=0))


def copied_twice(x):
    y = np.sin(x)
    z = y * 2.0
    return np.sum(z) + np.sum(y)


def _args(rng, rows=5, classes=3, dtype=np.float64):
    logits = rng.normal(size=(rows, classes)).astype(dtype)
    labels = np.eye(classes, dtype=dtype)[rng.integers(0, classes, rows)]
    return logits, labels


def _check(f, args, wrt=0):
    got = s2sad.grad(f, wrt=wrt)(*args)
    np.testing.assert_allclose(got, central_differences(f, args, wrt), rtol=1e-6,
                               atol=1e-8)
    return s2sad.grad(f, wrt=wrt).source_for(*args)


def test_the_softmax_cross_entropy_reads_as_written():
    text = _check(softmax_xent, _args(np.random.default_rng(0)))
    assert "s_logp = -labels / labels.shape[0]" in text, text
    assert "sum_grad" not in text and "sum_product" not in text, text
    assert "s_logits = s_z" not in text and "s_z" not in text, text
    assert "s_logits = s_logp + s_1 * t_1" in text, text


def test_a_mean_along_the_last_axis_divides_by_the_rows():
    rng = np.random.default_rng(1)
    args = (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)))
    text = _check(mean_rows, args)
    assert "sum_grad" not in text, text
    _check(mean_rows, args, wrt=1)
    text = _check(mean_of_columns, args)
    assert "sum_grad" not in text and ("/ x.shape[1]" in text or "/ w.shape[1]" in text), text


def test_an_empty_batch_gives_an_empty_gradient():
    logits, labels = np.zeros((0, 3)), np.zeros((0, 3))
    got = s2sad.grad(softmax_xent)(logits, labels)  # (no ZeroDivisionError, no warning)
    assert got.shape == (0, 3)


def test_float32_keeps_its_values():
    """float32 arguments: a float32 gradient, and the seed's values those the helpers
    computed (``-1.0`` spread in float32, divided by the count)."""
    rng = np.random.default_rng(2)
    args = _args(rng, rows=7, dtype=np.float32)
    special = s2sad.grad(softmax_xent)(*args)
    assert special.dtype == np.float32
    wide = s2sad.grad(softmax_xent)(*(a.astype(np.float64) for a in args))
    np.testing.assert_allclose(special, wide, rtol=1e-5, atol=1e-6)
    labels = args[1] * np.float32(0.37)  # (not one-hot: every bit of the product shows)
    seed = np.full(labels.shape[0], np.float32(-1.0)) / labels.shape[0]
    assert np.array_equal(labels * seed[:, None], -labels / labels.shape[0]) or \
        np.allclose(labels * seed[:, None], -labels / labels.shape[0], rtol=2 ** -23, atol=0)


def test_a_copy_read_by_others_keeps_its_name():
    """``s_s = 2.0`` copied to four sensitivities (the seed's f4) is not renamed into one."""
    from examples.f4 import f4
    text = s2sad.grad(f4).source_for([1.0, 2.0, 3.0, 4.0])
    assert "s_s = 2.0" in text and "s_bcd = s_s" in text, text
    x = np.random.default_rng(3).normal(size=4)
    text = _check(copied_twice, (x,))
    assert text.count(" = s_") <= 1, text


def test_second_order_of_the_mean_seed_is_right():
    rng = np.random.default_rng(4)
    x, w = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    hvp = s2sad.hvp(mean_rows)
    v = rng.normal(size=(3, 2))
    got = hvp(x, w, v)
    want = central_differences(lambda y: np.sum(s2sad.grad(mean_rows)(y, w) * v), (x,), 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_annotated_code_keeps_each_lines_adjoint_under_its_comment():
    """``--annotate`` ties each adjoint to the user's line: the copy ``s_logits = s_z``
    (the adjoint of ``z = logits - m``) stays under that line's comment."""
    args = _args(np.random.default_rng(5))
    gradient = s2sad.grad(softmax_xent, annotate=True)
    text = gradient.source_for(*args)
    assert '# Analyzing the line: "z = logits - m"\n    s_logits = s_z' in text, text
    np.testing.assert_allclose(gradient(*args), central_differences(softmax_xent, args, 0),
                               rtol=1e-6, atol=1e-8)
