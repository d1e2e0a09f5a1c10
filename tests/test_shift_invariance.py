"""A maximum subtracted before ``np.exp`` and added back after ``np.log`` (log-sum-exp),
or cancelling in a ratio (softmax), moves nothing that is read later: its gradient is
zero, and the generated code does not compute it (no ``extremum_grad``). Everywhere
else the maximum keeps its gradient. Every case is checked against central differences.
"""

import numpy as np
import pytest

import s2sad
from tests.test_gradients import check_every_mode, finite_differences


def cross_entropy(z, y):
    m = np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z - m), axis=1, keepdims=True)) + m
    return -np.sum(y * (z - lse))


def lse_all(z, y):
    m = np.max(z)
    return np.log(np.sum(np.exp(z - m))) + m + np.sum(y * z)


def softmax(z, y):
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))
    p = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(p * y)


def log_softmax(z, y):
    d = z - np.max(z, axis=1, keepdims=True)
    return np.sum(y * (d - np.log(np.sum(np.exp(d), axis=1, keepdims=True))))


def min_shift(z, y):
    m = np.min(z)
    return np.log(np.sum(np.exp(z - m))) + m - np.sum(y)


def methods(z, y):
    m = z.max(axis=1, keepdims=True)
    return np.sum(np.log(np.exp(z - m).sum(axis=1, keepdims=True)) + m) * np.sum(y)


def two_axes(z, y):
    z3 = np.reshape(z, (2, 2, 3))
    m = np.max(z3, axis=(1, 2), keepdims=True)
    lse = np.log(np.sum(np.exp(z3 - m), axis=(2, 1), keepdims=True)) + m
    return np.sum(lse) + np.sum(y * z)


def in_a_loop(z, y):
    total = 0.0
    for i in range(3):
        row = z * (i + 1.0)
        m = np.max(row, 1, keepdims=True)  # (the axis given by position)
        total = total + np.sum(np.log(np.sum(np.exp(row - m), axis=1, keepdims=True)) + m)
    return total + np.sum(y * z)


def squared_ratio(z, y):  # scales multiply: (e * e) / (s * s) is not scaled
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    s = np.sum(e, axis=1, keepdims=True)
    return np.sum((e * e) / (s * s) * y)


INVARIANT = [cross_entropy, lse_all, softmax, log_softmax, min_shift, methods, two_axes,
             in_a_loop, squared_ratio]


def other_axis(z, y):  # summed along the other axis: the shift is not the same along it
    m = np.max(z, axis=1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(z - m), axis=0, keepdims=True)) + m * y)


def read_again(z, y):  # the maximum is read once more
    m = np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z - m), axis=1, keepdims=True)) + m
    return np.sum(lse) + np.sum(m * y)


def twice(z, y):  # added back twice: the result moves with m
    m = np.max(z)
    return np.log(np.sum(np.exp(z - m))) + m + m + np.sum(y)


def scaled(z, y):  # added back scaled: the result moves with m
    m = np.max(z)
    return np.log(np.sum(np.exp(z - m))) + 2.0 * m + np.sum(y)


def subtracted(z, y):  # subtracted again: the result moves with m
    m = np.max(z, axis=1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(z - m), axis=1, keepdims=True)) - m) + np.sum(y)


def other_array(z, y):  # m, a column, is broadcast along the summed axis of a 3-d array
    m = np.max(z, axis=1, keepdims=True)  # (2, 1)
    b = z[None, :, :] + y[:, :, None]  # (2, 2, 3): m lines up with its last two axes
    return np.sum(np.log(np.sum(np.exp(b - m), axis=1, keepdims=True)) + m)


def without_keepdims(z, y):  # kept conservatively
    m = np.max(z, axis=0)
    return np.sum(np.log(np.sum(np.exp(z - m), axis=0)) + m) + np.sum(y)


def z_assigned_again(z, y):
    m = np.max(z, axis=1, keepdims=True)
    z = z * y
    return np.sum(np.log(np.sum(np.exp(z - m), axis=1, keepdims=True)) + m)


def exp_read_twice(z, y):  # e read by more than the sum: not a cancelling use
    m = np.max(z, axis=1, keepdims=True)
    e = np.exp(z - m)
    return np.sum(np.log(np.sum(e, axis=1, keepdims=True)) + m) + np.sum(e * y)


def in_a_branch(z, y):  # read again inside a block: not followed there
    m = np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z - m), axis=1, keepdims=True)) + m
    if y[0, 0] > 0.0:
        lse = lse + m
    return np.sum(lse)


KEPT = [in_a_branch, other_axis, read_again, twice, scaled, subtracted, other_array, without_keepdims,
        z_assigned_again, exp_read_twice]


def _args(f):
    rng = np.random.default_rng(len(f.__name__))
    z = rng.standard_normal((2, 6) if f is two_axes else (2, 3))
    z[0, 1] = z[0, 2]  # a tie in the first row
    y = rng.standard_normal((2, 2) if f is other_array else z.shape)
    return z, y


@pytest.mark.parametrize("f", INVARIANT + KEPT, ids=lambda f: f.__name__)
def test_gradient_matches_central_differences(f):
    z, y = _args(f)
    g = s2sad.grad(f)(z, y)
    np.testing.assert_allclose(g.ravel(), finite_differences(f, [z, y], 0), rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("f", INVARIANT, ids=lambda f: f.__name__)
def test_a_cancelling_maximum_has_no_gradient_code(f):
    source = s2sad.grad(f).source_for(*_args(f))
    assert "extremum_grad" not in source, source


@pytest.mark.parametrize("f", KEPT, ids=lambda f: f.__name__)
def test_a_maximum_that_does_not_cancel_keeps_its_gradient(f):
    source = s2sad.grad(f).source_for(*_args(f))
    assert "extremum_grad" in source, source


@pytest.mark.parametrize("f", [cross_entropy, softmax, log_softmax, in_a_loop],
                         ids=lambda f: f.__name__)
def test_forward_mode_and_second_derivatives_agree(f):
    check_every_mode(f, _args(f))


def inline_softmax(z, y):  # the maximum is a temporary: it is named by what it is
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    return np.sum(y * np.log(e / np.sum(e, axis=1, keepdims=True)))


def inline_min_softmax(z, y):
    e = np.exp(z - np.min(z, axis=0, keepdims=True))
    return np.sum(y * np.log(e / np.sum(e, axis=0, keepdims=True)))


@pytest.mark.parametrize("f, named", [(cross_entropy, "m"), (min_shift, "m"),
                                      (inline_softmax, "the maximum here"),
                                      (inline_min_softmax, "the minimum here")],
                         ids=lambda v: getattr(v, "__name__", v))
def test_annotated_source_says_why_the_maximum_has_no_gradient(f, named):
    args = _args(f)
    annotated = s2sad.grad(f, annotate=True)
    source = annotated.source_for(*args)
    note = f"# {named} gets no gradient: the shift by it cancels (log-sum-exp, softmax)"
    assert source.count(note) == 1, source
    lines = source.splitlines()  # under the heading of the line the extremum is on
    heading = [line for line in lines[:lines.index("    " + note)]
               if line.strip().startswith("# Analyzing the line:")][-1]
    assert "np.max(" in heading or "np.min(" in heading, source
    assert "gets no gradient" not in s2sad.grad(f).source_for(*args)  # (annotate only)
    np.testing.assert_allclose(annotated(*args), s2sad.grad(f)(*args), rtol=1e-12,
                               atol=1e-15)
    np.testing.assert_allclose(annotated(*args).ravel(), finite_differences(f, list(args), 0),
                               rtol=1e-6, atol=1e-8)
    assert "extremum_grad" not in source


@pytest.mark.parametrize("f", [in_a_loop] + KEPT, ids=lambda f: f.__name__)
def test_no_note_in_a_loop_nor_where_the_maximum_keeps_its_gradient(f):
    source = s2sad.grad(f, annotate=True).source_for(*_args(f))
    assert "gets no gradient" not in source, source
