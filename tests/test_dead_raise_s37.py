"""Unread lines that raise, follow-up (session 37): the checks ``broadcast_checks`` adds.

A line nothing reads goes where a kept line broadcasts the same shapes. Where a later
pass rewrote that line, ``unread_raises.checks`` adds ``broadcast_shape(a, b)``, after
a value of each shape. Where no value of one shape was left (``z = x @ w`` moved into
its one reader, or the shape of an argument's item ``d['y']``), main added nothing:
only a helper's own shape check (``sum_grad``) could still raise. Now the item is read
from the argument, a reduction's shape from its argument, or the line dead code left is
put back. Also: reductions over the same axes share a shape, ``np.ldexp`` says what it
raises on, and a line in a ``try`` stays (which branch runs depends on it). On main
(045ed3c) 7 of 15 fail.
"""

import gast
import numpy as np
import pytest

import s2sad
from s2sad.codegen import unparse
from s2sad.transforms.kinds import Kind
from s2sad.transforms.unread_raises import UnreadRaises, checks

try:
    import dask.array as da
except ImportError:  # (optional)
    da = None

KINDS = {"x": Kind("array", "x", 1), "w": Kind("array", "w", 1),
         "z": Kind("array", "z", 1), "s_x": Kind("array", "x", 1),
         "d": Kind("dict", items=(("y", Kind("array", "d['y']", 1)),))}


def _compiled(text: str):
    """The function ``text`` defines, with ``broadcast_shape`` at hand."""
    from s2sad.runtime import broadcast_shape
    space = {"np": np, "broadcast_shape": broadcast_shape, "f": np.tanh}
    exec(text, space)  # noqa: S102 (a test's own source)
    return space["g"]


def _checked(text: str, condition, kept=None):
    fn = gast.parse(text).body[0]
    changed = checks(fn, {frozenset(condition)}, UnreadRaises(KINDS, {}, lambda f: None),
                     lambda: "broadcast_shape", *([kept] if kept is not None else []))
    return changed, unparse(fn)


def test_a_shape_no_value_has_is_checked_from_the_line_put_back():
    """``z = x @ w`` went into its one reader; ``x * z`` (dropped) raised where x and z
    do not broadcast. The check needs a value of z: its line comes back."""
    text = "def g(x, w):\n    s_x = f(x @ w)\n    return s_x\n"
    changed, source = _checked(text, {"x", "z"}, {"z": gast.parse("z = x @ w").body[0]})
    assert changed and "broadcast_shape(x, z)" in source, source
    g = _compiled(source)
    with pytest.raises(ValueError):
        g(np.ones(4), np.ones((3, 2)).T @ np.ones((3, 3)))  # (z of length 2, x of 4)
    np.testing.assert_allclose(g(np.ones(3), np.eye(3)), np.tanh(np.ones(3)))


def test_a_shape_of_an_arguments_item_is_read_from_the_argument():
    text = "def g(x, d):\n    s_x = x * 2.0\n    return s_x\n"
    changed, source = _checked(text, {"x", "d['y']"})
    assert changed and "broadcast_shape(x, d['y'])" in source, source
    with pytest.raises(ValueError):
        _compiled(source)(np.ones(4), {"y": np.ones(3)})


def test_an_item_of_a_changed_argument_is_not_a_witness():
    """``d['y'] = ...`` in the body: the item is not the one given; nothing else gives
    its shape, so s2sad refuses rather than check nothing."""
    text = "def g(x, d):\n    d['y'] = x\n    s_x = x * 2.0\n    return s_x\n"
    with pytest.raises(s2sad.S2sadError, match="cannot keep the check"):
        _checked(text, {"x", "d['y']"})


def test_what_is_implied_needs_no_check():
    text = "def g(x, d):\n    s_x = d['y'] * x\n    return s_x\n"
    assert _checked(text, {"x", "d['y']"}) == (False, text.rstrip("\n"))


def logistic_item(w, X, d):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - d["y"] * z)


def logistic_pair(w, X, p):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - p[0] * z)


RNG = np.random.default_rng(37)
W, XS = RNG.normal(size=3), RNG.normal(size=(6, 3))


@pytest.mark.parametrize("f, extra", [
    pytest.param(logistic_item, lambda y: {"y": y}, id="dict-item"),
    pytest.param(logistic_pair, lambda y: (y, 1.0), id="tuple-item"),
])
def test_an_item_broadcast_is_seen_and_checked(f, extra):
    bad, good = extra(np.ones(5)), extra((RNG.random(6) > 0.5) * 1.0)
    with pytest.raises(ValueError):
        f(W, XS, bad)
    for make in (s2sad.grad, s2sad.value_and_grad):
        with pytest.raises(ValueError):
            make(f)(W, XS, bad)
    with pytest.raises(ValueError):
        s2sad.hvp(f)(W, XS, bad, np.ones(3))
    source = s2sad.grad(f).source_for(W, XS, good)
    assert "broadcast_shape" not in source, source  # (the kept product implies it)
    eps, got = 1e-6, s2sad.grad(f)(W, XS, good)
    want = [(f(W + eps * e, XS, good) - f(W - eps * e, XS, good)) / (2 * eps)
            for e in np.eye(3)]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


@pytest.mark.skipif(da is None, reason="Dask is not installed")
def test_an_item_broadcast_raises_on_dask():
    Xd = da.from_array(XS, chunks=(3, 3))
    with pytest.raises(ValueError):
        s2sad.grad(logistic_item, target="dask")(W, Xd, {"y": da.ones(5, chunks=5)})


# --- np.ldexp ----------------------------------------------------------------------------------

def ldexp_int(x):
    t = np.ldexp(x, 2)
    return np.sum(x ** 2)


def ldexp_float(x):
    t = np.ldexp(x, 2.0)
    return np.sum(x ** 2)


def test_ldexp_of_a_python_int_exponent_goes():
    """It raises only where a float exponent (TypeError) or shapes that do not
    broadcast make it: of a Python int, nothing (main kept the line)."""
    source = s2sad.grad(ldexp_int).source_for(np.ones(4))
    assert "np.ldexp" not in source, source
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(s2sad.grad(ldexp_int)(x), 2 * x)


def test_ldexp_of_a_float_exponent_raises():
    with pytest.raises(TypeError):
        ldexp_float(np.ones(4))
    for make in (s2sad.grad, s2sad.value_and_grad):
        with pytest.raises(TypeError):
            make(ldexp_float)(np.ones(4))


def test_the_fact_matches_numpy():
    from s2sad import registry
    assert "exponent" in registry.facts(np.ldexp).raises
    with pytest.raises(TypeError):
        np.ldexp(np.ones(2) + 1j, 2)
    with pytest.raises(ValueError):
        np.ldexp(np.ones(2), np.ones(3, dtype=int))


# --- a line in a try -----------------------------------------------------------------------------

def caught(x, w):
    try:
        u = x * w
        r = 1.0
    except ValueError:
        r = 2.0
    return r * np.sum(x ** 2)


def _central(f, x, *rest, eps=1e-6):
    return np.array([(f(x + eps * e, *rest) - f(x - eps * e, *rest)) / (2 * eps)
                     for e in np.eye(x.size)])


@pytest.mark.parametrize("w", [np.ones(4), np.ones(3)], ids=["try-runs", "except-runs"])
def test_a_line_in_a_try_decides_the_branch(w):
    """``u = x * w`` is read by nothing, but where it raises the ``except`` branch runs:
    the line stays in the gradient's ``try`` and both branches are right."""
    x = np.array([0.5, -1.0, 2.0, 0.25])
    np.testing.assert_allclose(s2sad.grad(caught)(x, w), _central(caught, x, w), rtol=1e-6)
    value, grad = s2sad.value_and_grad(caught)(x, w)
    assert value == caught(x, w)
    assert "x * w" in s2sad.grad(caught).source_for(x, w)


# --- reductions over the same axes: one shape ---------------------------------------------------

def same_axis(x, w):
    t = np.sum(x, axis=0)
    u = np.sum(x * x, axis=0) * w
    return np.sum(np.sin(t) * w)


def other_axis(x, w):
    t = np.sum(x, axis=0)
    u = np.max(x, axis=1) * w
    return np.sum(np.sin(t) * w)


def seeded(x, w):
    t = np.sum(x, axis=0)
    return np.sum(t * w)


M = np.arange(12.0).reshape(3, 4) / 10


def test_a_reduction_over_the_same_axes_has_the_same_shape():
    """``np.sum(x * x, axis=0)`` has the shape of ``np.sum(x, axis=0)``, which the kept
    ``np.sin(t) * w`` broadcasts with ``w``: the unread product goes (main kept it)."""
    source = s2sad.grad(same_axis).source_for(M, np.ones(4))
    assert "u = " not in source, source
    w = np.array([0.5, -1.0, 2.0, 0.25])
    got = s2sad.grad(same_axis)(M, w)
    want = _central(lambda v: same_axis(v.reshape(3, 4), w), M.ravel()).reshape(3, 4)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError):
        s2sad.grad(same_axis)(M, np.ones(5))


def test_a_reduction_over_other_axes_is_not_the_same():
    assert "np.max(x, axis=1) * w" in s2sad.grad(other_axis).source_for(M, np.ones(4))
    with pytest.raises(ValueError):
        other_axis(M, np.ones(4))
    for make in (s2sad.grad, s2sad.value_and_grad):
        with pytest.raises(ValueError):
            make(other_axis)(M, np.ones(4))


def test_a_seed_folded_away_leaves_a_check():
    """``t * w`` is seeded with ``sum_grad(1.0, like=t * w)``, which a later pass folds
    away (``s_t = w * 1.0``) and ``t`` with it: the check reads its shape from x."""
    source = s2sad.grad(seeded).source_for(M, np.ones(4))
    assert "broadcast_shape(w, np.sum(x, axis=0))" in source, source
    with pytest.raises(ValueError):
        s2sad.grad(seeded)(M, np.ones(5))
    np.testing.assert_allclose(s2sad.grad(seeded)(M, np.ones(4)), np.ones((3, 4)))
