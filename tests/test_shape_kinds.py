"""Which axes have length 1, as part of an array argument's kind (issue 39 §1's speed).

The variant is chosen, and its entry tests, which axes of each array argument have
length 1 (``describe_argument``); the kinds carry that through the forward statements
(``Kind.ones``), so a broadcast is decided when the gradient is built: ``unbroadcast``
becomes ``np.sum(g, axis=0)`` or goes (it stays where it spreads an axis of length 1).
"""

import numpy as np
import pytest

import s2sad
from s2sad.descriptors import describe_argument
from tests.test_higher_order import central_differences


def _check(f, args, wrt=0):
    """The gradient of ``f`` against central differences, in float64."""
    got = s2sad.grad(f, wrt=wrt)(*args)
    want = central_differences(f, args, wrt)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    return s2sad.grad(f, wrt=wrt).source_for(*args)


def bias(x, b):
    return np.sum(np.tanh(x + b))


def scaled(x, s):
    return np.sum(np.sin(x * s))


def lse_rows(z):
    m = np.max(z, axis=1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(z - m), axis=1, keepdims=True)) + m)


def centred(x, means):
    xc = x[None, :, :] - means[:, None, :]
    return np.sum(np.cos(xc))


def layer(X, W, b):
    return np.sum(np.tanh(X @ W + b) ** 2)


def reduced(q, a):
    return np.sum(np.exp((a + np.sum(q, axis=1))[:, None] * q))


RNG = np.random.default_rng(3)

CASES = [  # (function, arguments, wrt, the decided form the source holds)
    (bias, (RNG.standard_normal((4, 3)), RNG.standard_normal(3)), 1, "s_1.sum(axis=0)"),
    (bias, (RNG.standard_normal((4, 3)), RNG.standard_normal((4, 1))), 1, "unbroadcast("),
    (bias, (RNG.standard_normal((4, 3)), RNG.standard_normal((1, 3))), 1, "unbroadcast("),
    (bias, (RNG.standard_normal((4, 3)), RNG.standard_normal(1)), 1, "unbroadcast("),
    (bias, (RNG.standard_normal((2, 4, 3)), RNG.standard_normal((4, 3))), 1,
     "s_1.sum(axis=0)"),
    (bias, (RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))), 0, None),
    (bias, (RNG.standard_normal((4, 1)), RNG.standard_normal((4, 3))), 0, "unbroadcast("),
    (scaled, (RNG.standard_normal((4, 3)), RNG.standard_normal(())), 1, None),
    (scaled, (RNG.standard_normal((4, 3)), 0.7), 1, None),
    (scaled, (RNG.standard_normal(3), RNG.standard_normal((4, 1))), 0, None),
    (lse_rows, (RNG.standard_normal((5, 4)),), 0, None),
    (lse_rows, (RNG.standard_normal((5, 1)),), 0, None),
    (centred, (RNG.standard_normal((6, 2)), RNG.standard_normal((3, 2))), 1, "unbroadcast("),
    (centred, (RNG.standard_normal((6, 2)), RNG.standard_normal((3, 2))), 0, "unbroadcast("),
    (centred, (RNG.standard_normal((1, 2)), RNG.standard_normal((3, 2))), 0, "unbroadcast("),
    (layer, (RNG.standard_normal((5, 3)), RNG.standard_normal((3, 4)),
             RNG.standard_normal(4)), 2, "axis=0"),
    (layer, (RNG.standard_normal((5, 3)), RNG.standard_normal((3, 4)),
             RNG.standard_normal(4)), 1, None),
    (layer, (RNG.standard_normal((1, 3)), RNG.standard_normal((3, 4)),
             RNG.standard_normal(4)), 2, None),
    (layer, (RNG.standard_normal((5, 3)), RNG.standard_normal((3, 1)),
             RNG.standard_normal(4)), 2, "axis=0"),
    (layer, (RNG.standard_normal(3), RNG.standard_normal((3, 4)),
             RNG.standard_normal(4)), 2, None),
    (reduced, (RNG.standard_normal((3, 2)), RNG.standard_normal(3)), 1, None),
    (reduced, (RNG.standard_normal((3, 2)), RNG.standard_normal(1)), 1, "unbroadcast("),
]


@pytest.mark.parametrize("f, args, wrt, form", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_decided_broadcasts_against_central_differences(f, args, wrt, form):
    source = _check(f, args, wrt)
    if form == "unbroadcast(":  # an axis of length 1 spread: the helper stays (EarlySums
        assert form in source, source  # sums it before a product), right as it runs
    elif form is not None:  # the kinds decided it: NumPy's sum (or s2sad's of a product)
        assert form in source.replace("s_2", "s_1").replace("s_3", "s_1"), source
        assert "unbroadcast(" not in source, source
    else:
        assert "unbroadcast(" not in source, source


def test_describe_argument_says_which_axes_have_length_one():
    assert describe_argument(np.zeros((7, 1))) == ("nd", 2, "f", (1,))
    assert describe_argument(np.zeros((1, 1, 3))) == ("nd", 3, "f", (0, 1))
    assert describe_argument(np.zeros((7, 3))) == describe_argument(np.zeros((9, 2)))
    assert describe_argument(np.zeros(())) == ("nd", 0, "f")  # (no axes: nothing to say)
    assert describe_argument(np.float64(1.0)) == ("nd", 0, "f", "number")
    # (the arrays a list or dict holds say theirs too: an MLP's [W1, b1, W2, b2])
    assert describe_argument([np.zeros(1)]) == ("list", (("nd", 1, "f", (0,)),))
    assert describe_argument({"w": np.zeros(3)}) == ("dict", (("w", ("nd", 1, "f", ())),))


def layer_batch(X, W, b):
    return np.sum(np.tanh(X @ W + b) ** 2)


def bias_rows(x, b):
    return np.sum(np.tanh(x + b))


def test_batch_sizes_share_one_variant():
    g = s2sad.grad(layer_batch, wrt=(1, 2))
    W, b = RNG.standard_normal((3, 4)), RNG.standard_normal(4)
    for n in (7, 8, 9):
        X = RNG.standard_normal((n, 3))
        got = g(X, W, b)
        np.testing.assert_allclose(got[1], central_differences(layer_batch, (X, W, b), 2),
                                   rtol=1e-6, atol=1e-6)
    assert len(g._variants) == 1


def test_a_changed_length_one_pattern_builds_again():
    """A variant made where ``b`` has one row sums over it; called with a ``b`` of four
    rows, the entry refuses it (``b.shape[0] == 1`` fails) and another variant is made:
    the same code would give a gradient summed over the rows, of the wrong shape."""
    g = s2sad.grad(bias_rows, wrt=1)
    x = RNG.standard_normal((4, 3))
    for b in (RNG.standard_normal((1, 3)), RNG.standard_normal((4, 3)),
              RNG.standard_normal((1, 3)), RNG.standard_normal((4, 1))):
        got = g(x, b)
        assert got.shape == b.shape
        np.testing.assert_allclose(got, central_differences(bias_rows, (x, b), 1),
                                   rtol=1e-6, atol=1e-6)
    assert len(g._variants) == 3
    entry = g._ready[describe_argument(x), describe_argument(RNG.standard_normal((1, 3)))].entry
    assert entry is not None
    assert np.shape(entry(x, RNG.standard_normal((1, 3)))) == (1, 3)


def test_the_entry_tests_the_axes_of_length_one():
    from s2sad.dispatch import guard
    assert guard(("nd", 2, "f", ()), "x", {}).endswith("1 not in shape_of_x")
    assert guard(("nd", 2, "f", (1,)), "x", {}).endswith(
        "shape_of_x[0] != 1 and shape_of_x[1] == 1")
    assert guard(("nd", 2, "f"), "x", {}).endswith("x.dtype.kind == 'f')")  # (not said)


def test_a_descriptor_without_the_axes_keeps_the_helper():
    """Given ``("nd", 2, "f")`` (which axes have length 1 not said), the broadcast is
    decided when the gradient runs, as before."""
    compiled = s2sad.pipeline.compile_gradient(bias, ["b"], arg_descriptors=[
        ("nd", 2, "f"), ("nd", 1, "f")])
    assert "unbroadcast(" in compiled.text


def test_second_order_through_a_decided_sum():
    def f(x, b):
        return np.sum(np.sin(x + b) * b)
    x, b = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    v = RNG.standard_normal(3)
    hv = s2sad.hvp(f, wrt=1)(x, b, v)
    gb = s2sad.grad(f, wrt=1)
    eps = 1e-5
    want = (gb(x, b + eps * v) - gb(x, b - eps * v)) / (2 * eps)
    np.testing.assert_allclose(hv, want, rtol=1e-6, atol=1e-6)


def test_float32_kept():
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    b = RNG.standard_normal(3).astype(np.float32)
    got = s2sad.grad(bias, wrt=1)(x, b)
    assert got.dtype == np.float32 and got.shape == (3,)


def ord_norm(x, b):
    return np.sum(np.sin(np.linalg.norm(x, 1) + b))  # (1 is ord, not axis: a number)


def ord_norm_kept(x, b):
    return np.sum(np.sin(np.linalg.norm(x, 1, keepdims=True) + b))  # (every axis 1)


def kept_by_name(x, b, keep):
    return np.sum(np.sin(x - np.max(x, axis=1, keepdims=keep)) * b)


@pytest.mark.parametrize("f, args, wrt", [
    (ord_norm, (RNG.standard_normal((3, 4)), RNG.standard_normal(4)), 0),
    (ord_norm, (RNG.standard_normal((3, 4)), RNG.standard_normal(4)), 1),
    (ord_norm_kept, (RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))), 0),
    (ord_norm_kept, (RNG.standard_normal((3, 4)), RNG.standard_normal(4)), 1),
    (kept_by_name, (RNG.standard_normal((3, 4)), RNG.standard_normal(4), True), 0),
    (kept_by_name, (RNG.standard_normal((3, 4)), RNG.standard_normal(4), True), 1),
])
def test_the_axis_is_read_where_the_signature_puts_it(f, args, wrt):
    """A reduction's axes of length 1 come from its ``axis`` parameter (``norm``'s second
    is ``ord``) and a ``keepdims`` written True, not one given by a name."""
    _check(f, args, wrt)
