"""The face, session 31 (issue 39): what a careful reader of generated code stumbles on.

``x.tolist()`` of a differentiated array is followed (a list of Python numbers whose
sensitivities go back into x); a second-order gradient keeps no loop that only pops
values nothing reads; ``x ** 3`` at order 2 reads as a person writes it; an argument's
shape is read once. Every gradient is checked against central differences in float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import s2sad
from examples import eager
from tests.test_face_s30 import central_differences


# --- x.tolist(): Python numbers whose sensitivities flow back into x ------------------


def products_of_items(x):
    ys = x.tolist()
    return ys[0] * ys[1] * ys[2] + sum(ys)


def rows_of_a_matrix(x):
    rows = x.tolist()
    return sum(a * b for a, b in rows) + rows[1][0] ** 2


def loop_over_items(x):
    total = 0.0
    for v in (x * 2.0).tolist():
        total = total + np.sin(v) * v
    return total


def number_of_a_scalar(x):
    v = np.sum(x ** 2).tolist()
    return v * 3.0


TOLIST = [(products_of_items, np.array([1.0, 2.0, 3.0])),
          (rows_of_a_matrix, np.array([[1.0, 2.0], [3.0, 4.0]])),
          (loop_over_items, np.array([0.3, -0.4, 2.0])),
          (number_of_a_scalar, np.array([0.5, -1.5]))]


@pytest.mark.parametrize("f, x", TOLIST, ids=[f.__name__ for f, _ in TOLIST])
def test_tolist_of_a_differentiated_array_is_followed(f, x):
    """On main: NoDerivativeError, with advice about objects of the user's classes."""
    value, gradient = s2sad.value_and_grad(f)(x)
    assert value == f(x)
    np.testing.assert_allclose(gradient, central_differences(f, x), rtol=1e-7, atol=1e-9)


def test_tolist_keeps_python_numbers_in_the_generated_code():
    """The forward sweep calls x.tolist() as the user wrote it: its items are Python
    floats (1.0 / 0.0 raises ZeroDivisionError there as in the user's function)."""
    source = s2sad.grad(products_of_items).source_for(np.ones(3))
    assert "ys = x.tolist()" in source, source
    assert "list_grad(" in source, source


def test_tolist_in_forward_mode_and_at_order_two():
    x = np.array([1.0, 2.0, 3.0])
    _, push = s2sad.jvp(products_of_items)(x)
    v = np.array([0.5, -1.0, 2.0])
    expected = central_differences(products_of_items, x) @ v
    np.testing.assert_allclose(push(v), expected, rtol=1e-7)
    hessian = s2sad.hessian(rows_of_a_matrix)(np.array([[1.0, 2.0], [3.0, 4.0]]))
    inner = s2sad.grad(rows_of_a_matrix)
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    columns = [central_differences(lambda y, k=k: inner(y).flat[k], m) for k in range(4)]
    np.testing.assert_allclose(hessian.reshape(4, 4), np.array(columns).reshape(4, 4),
                               rtol=1e-6, atol=1e-8)


# --- no dead loop in a second-order gradient ---------------------------------------------


def test_second_order_control_flow_keeps_no_dead_loop():
    """On main, ``grad(grad(control_flow))`` ended with ``for trips_1 in
    reversed(trips_1_saved): pass`` (pops of values nothing read) and a tape for it."""
    gg = s2sad.grad(s2sad.grad(eager.control_flow))
    for source in (gg.source_for(0.3), gg.source):
        assert "reversed(" not in source and ".pop()" not in source, source
        assert "_saved" not in source and "stack" not in source, source
        assert "pass\n" not in source, source
    inner = s2sad.grad(eager.control_flow)
    for a in (0.3, -0.7):
        assert gg(a) == pytest.approx(central_differences(inner, a), abs=1e-6)


# --- x ** 3 at order 2 reads as a person writes it ---------------------------------------


def test_the_second_derivative_of_a_cube_is_one_product():
    """On main, ``x * x * x`` at order 2 read ``s2_x = x * 4.0`` then ``s2_x += 2.0 * x``,
    its first derivative ``x * x + 2.0 * (x * x)`` (``x ** 3`` read ``6 * x`` already).
    The values are the same bits: each term a product by a power of two, so the sum rounds
    once, as the one product does."""
    f = eager.cube
    gg = s2sad.grad(s2sad.grad(f))
    body = [line.strip() for line in gg.source_for(0.5).splitlines()[1:] if line.strip()]
    assert body == ["s2_x = x * 6.0", "return s2_x"], body
    first = s2sad.grad(f).source_for(0.5)
    assert "s_x = 3.0 * (x * x)" in first, first
    inner = s2sad.grad(f)
    rng = np.random.default_rng(31)
    for x in list(rng.normal(size=20) * 10.0 ** rng.integers(-8, 8, 20)) + [1e300, -3e-300]:
        assert gg(x) == x * 4.0 + 2.0 * x  # (main's values, to the bit)
        assert inner(x) == x * x + 2.0 * (x * x)
    for x in (0.5, -1.25):
        assert gg(x) == pytest.approx(central_differences(inner, x), rel=1e-7)


def test_like_terms_fold_only_where_exact():
    """``c1 * e + c2 * e`` folds where both constants are powers of two of one sign
    (exact products, one rounding); ``0.1 * x + 0.2 * x`` and ``4.0 * x - 2.0 * x`` (an
    overflow of 4x that 2x does not have) stay as written."""
    from s2sad.transforms.readable import like_terms
    import gast
    for text, folded in [("x * 4.0 + 2.0 * x", True), ("x + x", False),
                         ("0.1 * x + 0.2 * x", False),
                         ("4.0 * x - 2.0 * x", False), ("np.exp(x) + 2.0 * np.exp(x)", False),
                         ("2 * x + 2.0 * x", True)]:
        node = gast.parse(text).body[0].value
        assert (like_terms(node.left, node.right, isinstance(node.op, gast.Sub))
                is not None) == folded, text
    assert 4.0 * 1e308 - 2.0 * 1e308 != 2.0 * 1e308  # (why: inf - 2e308 is inf)
    node = gast.parse("x + x").body[0].value  # (a sensitivity's: float; a boolean's is or)
    assert like_terms(node.left, node.right, False, floating=frozenset({"x"})) is not None


# --- the entry reads each argument's shape once ------------------------------------------


def test_the_logistic_regression_entry_reads_each_shape_once():
    """On main the entry read ``w.ndim`` and ``w.shape`` (twice the shape, per array);
    ``x.shape[0] == 1 and x.shape[1] != 1`` read it once an axis."""
    import dis
    from golden import functions as F
    rng = np.random.default_rng(4)
    w, X, y = rng.normal(size=3), rng.normal(size=(10, 3)), rng.integers(0, 2, 10) * 1.0
    g = s2sad.grad(F.logistic_regression)
    got = g(w, X, y)
    reads = [i.argval for i in dis.get_instructions(g._entry) if i.opname == "LOAD_ATTR"]
    assert reads.count("shape") == 3 and "ndim" not in reads, reads
    f = lambda v: F.logistic_regression(v, X, y)  # noqa: E731
    np.testing.assert_allclose(got, central_differences(f, w), rtol=1e-6, atol=1e-9)
    # an argument of other kinds (a row, a length-1 axis) still takes its own variant
    for w2, X2 in [(rng.normal(size=1), rng.normal(size=(10, 1))),
                   (rng.normal(size=3), rng.normal(size=(1, 3)))]:
        y2 = y[:X2.shape[0]]
        f = lambda v: F.logistic_regression(v, X2, y2)  # noqa: E731
        np.testing.assert_allclose(g(w2, X2, y2), central_differences(f, w2), rtol=1e-6,
                                   atol=1e-9)
    from s2sad.dispatch import guard
    text = guard(("nd", 2, "f", (1,)), "x", {})
    assert text.count(".shape") == 1 and "len(shape_of_x := x.shape) == 2" in text, text


# --- the arrays a list or dict argument holds: their axes of length 1 decide broadcasts ---


def layer_of_a_dict(p, X):
    return np.sum(np.tanh(X @ p["W"] + p["b"]) ** 2)


def _flat_differences(f, parts, k):
    def at(v):
        changed = list(parts)
        changed[k] = v
        return f(changed)
    return central_differences(at, parts[k])


def test_an_mlp_given_a_list_of_arrays_reads_as_plain_numpy():
    """On main, ``s2sad show --at`` of the MLP kept ``unbroadcast(s_2, like=b1)``,
    ``unbroadcast_product`` and ``reduced_size``: a list's arrays said their rank alone, not
    which axes have length 1. A bias of length 1 (``(1,)``) takes a variant of its own."""
    from examples import mlp
    rng = np.random.default_rng(8)
    X, Y = rng.normal(size=(8, 4)), np.eye(3)[rng.integers(0, 3, 8)]
    g = s2sad.grad(mlp.loss)
    for sizes in ((4, 5, 3), (4, 1, 3)):  # (a hidden layer of one unit: b1 of shape (1,))
        params = mlp.init(sizes, seed=2)
        params[1] = rng.normal(size=params[1].shape)
        source = g.source_for(params, X, Y)
        if sizes[1] > 1:
            assert "s_b1 = s_2.sum(axis=0)" in source, source
            assert "unbroadcast_product" not in source and "reduced_size" not in source, source
        got = g(params, X, Y)
        for k in range(4):
            expected = _flat_differences(lambda ps: mlp.loss(ps, X, Y), params, k)
            np.testing.assert_allclose(got[k], expected, rtol=1e-6, atol=1e-9)
    assert len(g._variants) == 2


def test_a_dict_of_arrays_takes_a_variant_for_its_axes_of_length_one():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(6, 3))
    g = s2sad.grad(layer_of_a_dict)
    for b in (rng.normal(size=4), rng.normal(size=(1, 4)), rng.normal(size=(6, 4)),
              rng.normal(size=4)):
        p = {"W": rng.normal(size=(3, 4)), "b": b}
        got = g(p, X)
        for key in ("W", "b"):
            def f(v, key=key):
                return layer_of_a_dict({**p, key: v}, X)
            np.testing.assert_allclose(got[key], central_differences(f, p[key]), rtol=1e-6,
                                       atol=1e-9)
    assert "unbroadcast(" not in g.source_for({"W": np.ones((3, 4)), "b": np.ones(4)}, X)
    assert len(g._variants) == 3
