"""Optimizer passes of this kind: each rewrite where it is sound, and none where it is not
(no float() of Python floats; a temporary back into its one use; the first update of each
item of a list of zeros as an assignment)."""

import math
import re

import numpy as np
import pytest

import s2sad
from s2sad.transforms.py_floats import PythonFloats
from tests.test_higher_order import central_differences


def speelpenning(x):
    p = 1.0
    for i in range(len(x)):
        p = p * x[i]
    return p


def _after(text, kinds):
    import gast
    from s2sad.codegen import unparse
    from s2sad.transforms.kinds import from_descriptor
    fn = gast.parse(text).body[0]
    kinds = {name: from_descriptor(desc, name) for name, desc in kinds.items()}
    return unparse(PythonFloats(kinds).visit(fn).body[-1])


def test_a_list_that_may_change_elsewhere_keeps_its_conversion():
    text = '''def g(a):
    s = [a, a]
    {use}
    return list(map(float, s))'''
    kinds = {"a": "float"}
    assert _after(text.format(use="pass"), kinds) == "return s"
    for use in ["other(s)", "t = s", "s.extend([1.0])", "s[0] = other(a)", "s.append(None)",
                "s += [1.0]", "s[0:1] = [a]"]:
        assert _after(text.format(use=use), kinds) == "return list(map(float, s))", use


def test_a_value_once_not_a_float_keeps_its_conversion():
    text = '''def g(a, n):
    b = a * 2.0
    for i in range(n):
        b = {step}
    return float(b)'''
    kinds = {"a": "float", "n": "int"}
    assert _after(text.format(step="b * a + i"), kinds) == "return b"
    assert _after(text.format(step="b ** 0.5"), kinds) == "return float(b)"  # complex?
    assert _after(text.format(step="other(b)"), kinds) == "return float(b)"
    assert _after(text.format(step="b * a"), {"a": ("nd", 0, "f"), "n": "int"}) == \
        "return float(b)"


def test_a_list_returned_twice_is_not_shared():
    text = '''def g(a):
    s = [a]
    return (list(map(float, s)), list(map(float, s)))'''
    assert _after(text, {"a": "float"}) == "return (list(map(float, s)), list(map(float, s)))"


def _substituted(text):
    import gast
    from s2sad.codegen import unparse
    from s2sad.transforms.forward_substitution import ForwardSubstitution
    fn = gast.parse(text).body[0]
    return unparse(ForwardSubstitution(lambda f: False, {"t_2"}).visit(fn))


def test_a_temporary_assigned_in_each_sweep_goes_back_into_its_one_use():
    text = '''def g(x, n):
    for i in range(n):
        t_2 = x[i]
        p = p * t_2
    for i in range(n):
        t_2 = x[i]
        s = t_2 * s
    return s'''
    assert "t_2" not in _substituted(text)


@pytest.mark.parametrize("body", [
    # read before it is assigned in the pass: the previous pass's value
    "y = t_2 * 2.0\n        t_2 = x[i]\n        z = t_2 + y",
    # read twice
    "t_2 = x[i]\n        y = t_2 * 2.0\n        z = t_2 + y",
    # read once in one statement, but twice there
    "t_2 = x[i]\n        y = t_2 * t_2",
    # assigned again inside a branch, read after it
    "t_2 = x[i]\n        if y > 0:\n            t_2 = y\n        z = t_2 + y",
    # what it reads changes before its use
    "t_2 = x[i]\n        x[i] = y\n        z = t_2 + y",
])
def test_a_temporary_whose_value_is_read_elsewhere_keeps_its_name(body):
    text = f'''def g(x, n, y, z):
    for i in range(n):
        {body}
    return z'''
    assert "t_2 = x[i]" in _substituted(text), body


def _substituted_all(text, movable):
    import gast
    from s2sad.codegen import unparse
    from s2sad.transforms.forward_substitution import ForwardSubstitution
    fn = gast.parse(text).body[0]
    return unparse(ForwardSubstitution(lambda f: True, set(movable)).visit(fn))


def test_a_value_moves_into_a_use_hundreds_of_statements_below():
    """The use is found through the block's index of names: however far below, and
    through a chain of moves (t_1 into t_2, then t_2 into its use)."""
    filler = "\n".join(f"    u_{k} = y * {k}.0" for k in range(300))
    text = f"""def g(x, y):
    t_1 = x * 2.0
    t_2 = t_1 + 1.0
{filler}
    z = t_2 * y
    return z"""
    out = _substituted_all(text, ["t_1", "t_2"])
    assert "t_1" not in out and "t_2" not in out
    assert out.splitlines()[-2].strip() == "z = (x * 2.0 + 1.0) * y"


@pytest.mark.parametrize("between, moves", [
    ("u = y * 2.0", True),
    ("x = y * 2.0", False),                      # what it reads changes in between
    ("x[0] = y", False),                          # ... in place
    ("if y > 0:\n        u = y", False),          # a block in between
    ("for i in range(3):\n        u = y", False),
    ("while y > 0:\n        y = y - 1.0", False),
])
def test_a_value_moves_only_over_straight_code_that_leaves_its_operands(between, moves):
    text = f"""def g(x, y):
    t_1 = x * 2.0
    {between}
    z = t_1 * y
    return z"""
    out = _substituted_all(text, ["t_1"])
    assert ("t_1" not in out) == moves, out


@pytest.mark.parametrize("use", ["if t_1 > 0:\n        z = y", "while t_1 > 0:\n        z = y",
                                 "for i in t_1:\n        z = y"])
def test_a_value_read_by_a_block_header_stays(use):
    text = f"""def g(x, y):
    t_1 = x * 2.0
    z = y
    {use}
    return z"""
    assert "t_1 = x * 2.0" in _substituted_all(text, ["t_1"])


@pytest.mark.parametrize("body, first", [
    ("s_x[i] += p * x[i]", True),
    ("s_x[i] += p\n        s_x[i] += p", False),          # twice in a pass
    ("s_x[i + 1] += p", False),                          # not the counter itself
    ("s_x[i] += p\n        i = 0", False),               # the counter changes
    ("s_x[i] += p\n        i += 1", False),
    ("t = s_x[0]\n        s_x[i] += t", False),          # read in the loop
    ("if p > 0:\n            s_x[i] += p", False),        # (a nested block: not followed)
])
def test_first_update_of_each_item_of_a_list_of_zeros(body, first):
    import gast
    from s2sad.codegen import unparse
    from s2sad.transforms.first_assignment import FirstAssignment
    text = f'''def g(x, n, p):
    s_x = [0.0] * len(x)
    for i in range(n):
        {body}
    return s_x'''
    out = unparse(FirstAssignment().visit(gast.parse(text).body[0]))
    assert ("s_x[i] = " in out) == first, out


def test_first_update_of_items_keeps_gradients():
    x = [1.5, 0.5, 2.0, -1.0, 0.0]
    g = s2sad.grad(speelpenning)
    assert "s_x[i] = p * s_p" in g.source_for(x)
    assert g(x) == pytest.approx([0.0, 0.0, 0.0, 0.0, -1.5])
    assert g([1.5, 0.5]) == pytest.approx([0.5, 1.5])


def _centered_scores(x, means, W):
    xc = x[None, :, :] - means[:, None, :]
    z = 0.5 * xc + xc @ W
    return np.sum(np.tanh(z))


def _batched_sines(x, W):
    xc = np.sin(x)
    z = 0.5 * xc + xc @ W
    return np.sum(np.tanh(z))


def test_a_gradient_started_by_a_new_array_is_added_to_in_place():
    rng = np.random.default_rng(3)
    x, W = rng.standard_normal((4, 6, 3)), rng.standard_normal((3, 3))
    g = s2sad.grad(_batched_sines, wrt=(0, 1))
    text = g.source_for(x, W)
    # matmul_grad_left makes a new array: the second term goes into it, no third array
    assert "s_xc = matmul_grad_left(" in text and "s_xc += " in text, text
    assert "s_xc = s_xc +" not in text, text
    for k, got in enumerate(g(x, W)):
        np.testing.assert_allclose(got, central_differences(_batched_sines, (x, W), k),
                                   rtol=1e-6, atol=1e-8)


def test_a_sum_of_a_product_and_a_matrix_product_is_summed_early():
    """``s_xc`` (K, n, d) gathers ``matmul_grad_left`` and ``0.5 * s_z`` only to be summed
    over n: each term is summed before it is made (transforms/early_sums)."""
    rng = np.random.default_rng(3)
    x, means, W = rng.standard_normal((6, 3)), rng.standard_normal((4, 3)), \
        rng.standard_normal((3, 3))
    g = s2sad.grad(_centered_scores, wrt=(1, 2))
    text = g.source_for(x, means, W)
    assert "s_xc = summed_matmul_grad_left(" in text and "s_means = -s_xc[:, 0, :]" in text, \
        text
    grads = g(x, means, W)
    for k, arg in enumerate((means, W)):
        numeric = np.zeros_like(arg)
        for index in np.ndindex(arg.shape):
            args = [x, means.copy(), W.copy()]
            for step in (1e-6, -1e-6):
                args[k + 1] = arg.copy()
                args[k + 1][index] += step
                numeric[index] += np.sign(step) * _centered_scores(*args) / 2e-6
        np.testing.assert_allclose(grads[k], numeric, rtol=1e-6, atol=1e-8)


def _copied_then_multiplied(x, W):
    y = x
    z = y @ W + x @ W + 0.5 * y
    return np.sum(z * z)


def _batched_both_ways(x, W):
    z = x @ W
    return np.sum(z * x) + np.sum(np.transpose(z, (0, 2, 1)) @ x)


@pytest.mark.parametrize("f, shapes", [(_copied_then_multiplied, [(4, 3), (3, 3)]),
                                       (_batched_both_ways, [(2, 3, 3), (2, 3, 3)])])
def test_terms_added_in_place_leave_every_other_value_as_it_was(f, shapes):
    rng = np.random.default_rng(1)
    args = [0.5 * rng.standard_normal(s) for s in shapes]
    g = s2sad.grad(f, wrt=(0, 1))
    assert "s_x += " in g.source_for(*args)
    grads = g(*args)
    for k, arg in enumerate(args):
        numeric = np.zeros_like(arg)
        for index in np.ndindex(arg.shape):
            for step in (1e-6, -1e-6):
                moved = [a.copy() for a in args]
                moved[k][index] += step
                numeric[index] += np.sign(step) * f(*moved) / 2e-6
        np.testing.assert_allclose(grads[k], numeric, rtol=1e-6, atol=1e-7)


def _cos_less_negative(x, m):
    y = np.cos(x) * m
    return np.sum(y * x - np.negative(x))


def test_what_is_added_negated_is_subtracted():
    x, m = np.linspace(-1.0, 2.0, 7), np.linspace(0.5, 1.5, 7)
    g = s2sad.grad(_cos_less_negative)
    text = g.source_for(x, m)
    assert "+= -" not in text and " + -" not in text and " -= " in text, text
    expected = m * (np.cos(x) - x * np.sin(x)) + 1.0
    np.testing.assert_allclose(g(x, m), expected, rtol=1e-13)
    # exact: the same gradient, to the last bit, as with the negation written out
    checked = 0  # (the signs pass takes some negations out before subtract)
    for stage, source in g.stages(x, m):
        if stage == "forward_substitution" and ("+= -" in source or " + -" in source):
            checked += 1
            from s2sad.runtime import as_gradient, sum_grad
            namespace = {**g._last.function.__globals__, "as_gradient": as_gradient,
                         "sum_grad": sum_grad}  # (the final code reads np.ones_like)
            exec(compile(source, "<before subtract>", "exec"), namespace)
            np.testing.assert_array_equal(namespace["grad__cos_less_negative"](x, m), g(x, m))
    assert checked


def test_a_sensitivity_less_a_negation_is_the_value_itself():
    import gast
    from s2sad.codegen import unparse
    from s2sad.transforms.first_assignment import FirstAssignment
    text = '''def g(x, y):
    s_x, s_y = [0.0] * 2
    s_y -= -x
    s_x -= y
    s_y += y
    return s_x, s_y'''
    out = unparse(FirstAssignment().visit(gast.parse(text).body[0]))
    assert "s_y = x\n" in out and "s_x = -y\n" in out, out
    assert "s_y = s_y + y" in out, out  # (s_y is x: not updated in place)


def test_a_comprehension_variable_is_not_the_name_outside():
    text = '''def g(a, xs):
    v = a * 2.0
    ys = [float(v) for v in xs]
    return (float(v), ys)'''
    out = _after(text, {"a": "float", "xs": ("list", ("float",) * 2)})
    assert out == "return (float(v), ys)"


# --- ScaleInward: a power of two multiplies the seed of a spread, not the array -----------------

def _squares_by_row(x):
    y = np.tanh(x)
    return 0.5 * np.sum(np.sum(y * y, axis=1))


def test_a_power_of_two_goes_into_the_seed_of_a_spread():
    x = np.random.default_rng(0).standard_normal((5, 4))
    g = s2sad.grad(_squares_by_row)
    text = g.source_for(x)
    assert "2.0 * (y *" not in text and "y * (2.0 * " in text, text  # (a row, not the
    # array: spread over y's rows by the product, s2sad.transforms.plain_numpy)
    # scaling by a power of two is exact: the same gradient, to the last bit
    np.testing.assert_array_equal(g(x), s2sad.grad(_squares_by_row, optimize=False)(x))
    np.testing.assert_allclose(g(x), np.tanh(x) * (1 - np.tanh(x) ** 2), rtol=1e-14)


def test_other_constants_stay_where_the_rule_put_them():
    import gast
    from s2sad.codegen import unparse
    from s2sad.transforms.scale_inward import ScaleInward
    for constant, moves in [("3.0", False), ("0.1", False), ("0.25", True), ("4", True)]:
        fn = gast.parse(f"def g(y, x, s):\n    return {constant} * (y * sum_grad(s, x, 1, False))")
        text = unparse(ScaleInward("sum_grad", set()).visit(fn.body[0]).body[0])
        assert (text == f"return y * sum_grad({constant} * s, x, 1, False)") is moves, text


@pytest.mark.parametrize("seed,moves", [("sum_grad(0.5 * -s, x, 1, False)", True),
                                        ("sum_grad(s, x, 1, False) + 1.0", False)])
def test_a_spread_read_twice_or_added_to_keeps_its_seed(seed, moves):
    import gast
    from s2sad.codegen import unparse
    from s2sad.transforms.scale_inward import ScaleInward
    text = f'''def g(y, x, s):
    s_1 = {seed}
    s_y = 2.0 * (y * s_1)
    return s_y'''
    fn = ScaleInward("sum_grad", {"s_1"}).visit(gast.parse(text).body[0])
    assert (unparse(fn.body[1]) == "s_y = y * s_1") is moves
    twice = text.replace("return s_y", "return (s_y, s_1)")
    fn = ScaleInward("sum_grad", {"s_1"}).visit(gast.parse(twice).body[0])
    assert unparse(fn.body[1]) == "s_y = 2.0 * (y * s_1)"  # s_1 is read elsewhere too


def _gaussian_bump(x):
    return np.sum(np.tanh(x) * np.exp(-0.5 * x * x) + np.log(1.0 + x * x))


def _bump_then_overwrite(x):
    y = x * 1.0
    h = 0.5 * y
    a = np.sum(h * y)
    y[1:] = np.sin(y[:-1])  # y changes after h = 0.5 * y: 0.5 * (y * s) is not h * s
    return a + np.sum(0.5 * (y * y))


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def _growing_bump(x):
    return np.sum(np.cos(x) * np.exp(0.5 * x * x))


def _quarter_bump(x):
    return np.sum(np.cos(x) * np.exp(0.25 * x * x))


@pytest.mark.parametrize("f,term", [
    # c * x read back twice as t (c * (x * s) is t * s), and the two terms merged: 2.0 * t
    # is -x for c = -0.5 (+x for 0.5), and c * x goes back into its one use
    (_gaussian_bump, "s_x -= x * (t_1 * t_5)"),
    (_growing_bump, "s_x = x * (np.cos(x) * t_4)"),
    (_quarter_bump, "s_x = 2.0 * (t_2 * (np.cos(x) * t_4))"),  # 2.0 * 0.25: no cancelling
    (_bump_then_overwrite, None)])
def test_a_product_computed_forward_is_read_back_not_recomputed(f, term):
    x = np.random.default_rng(3).standard_normal(6)
    g = s2sad.grad(f)
    text = g.source_for(x)
    if term is not None:
        assert term in text, text
        assert "0.5 * (x *" not in text and "0.25 * (x *" not in text, text
        scaled = [line for line in text.splitlines() if line.endswith("5 * x")]
        assert bool(scaled) is ("2.0 * (t_" in term), text  # (t = 0.25 * x stays)
    # (else h = 0.5 * y is not 0.5 times y's value at the end: only the values tell)
    np.testing.assert_allclose(g(x), _fd(f, x), rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(g(x), s2sad.grad(f, optimize=False)(x), rtol=1e-13, atol=1e-15)


def _half_sum_and_more(x):
    return np.sum(np.exp(-x ** 2) * np.sin(3.0 * x) + 0.5 * x)


def test_a_scaled_spread_is_never_the_accumulator_itself():
    # `s_x = 0.5 * s_8` then `s_x += ...`: s_x must stay a new array, not the read-only view
    # that `sum_grad(0.5, ...)` would be
    x = np.random.default_rng(4).standard_normal(5)
    np.testing.assert_allclose(s2sad.grad(_half_sum_and_more)(x), _fd(_half_sum_and_more, x),
                               rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("between,shared", [("pass", True), ("x[0] = s", False),
                                            ("x.fill(s)", False), ("x = s", False)])
def test_a_forward_product_stands_for_its_value_only_while_its_operand_is_unchanged(
        between, shared):
    import gast
    from s2sad.codegen import unparse
    from s2sad.transforms.scale_inward import ScaleInward
    text = f'''def g(x, s):
    t_3 = 0.5 * x
    u = t_3 * s
    {between}
    s_x = 0.5 * (x * s)
    return (u, s_x, t_3)'''
    fn = ScaleInward(None, {"t_3"}).visit(gast.parse(text).body[0])
    assert (unparse(fn.body[-2]) == "s_x = t_3 * s") is shared, unparse(fn)


# --- ShapeOnly: a shape computed from the operands of the value it stands for -----------------

def _shape_only(body, kinds):
    import gast
    from s2sad.codegen import unparse
    from s2sad.transforms.kinds import Kind
    from s2sad.transforms.shape_only import ShapeOnly
    fn = gast.parse("def g(x, y, s_1):\n" + "".join(f"    {line}\n" for line in body)).body[0]
    kinds = {name: Kind(tag, name, ndim) for name, (tag, ndim) in kinds.items()}
    out = ShapeOnly(kinds, {"unbroadcast": 1, "sum_grad": 1}, lambda f: f.__name__,
                    {"t_1", "t_2", "t_3"}).visit(fn)
    return unparse(out).splitlines()[1:]


ARRAYS = {"x": ("array", 2), "y": ("array", 1), "t_1": ("array", 2), "t_2": ("array", 2),
          "t_3": ("array", 2), "u": ("array", 2)}


@pytest.mark.parametrize("body,shape", [
    # read once besides its shape: from its operands
    (["t_1 = x * y", "t_2 = np.sin(t_1)", "s_2 = unbroadcast(s_1, t_1)", "return (t_2, s_2)"],
     "broadcast_shape(x, y)"),
    (["t_1 = x @ y", "t_2 = np.sin(t_1)", "s_2 = unbroadcast(s_1, t_1)", "return (t_2, s_2)"],
     "matmul_shape(x, y)"),
    (["t_1 = 2.0 * y", "s_2 = sum_grad(s_1, t_1)", "return s_2"], "broadcast_shape(2.0, y)"),
    # read twice besides its shape: kept
    (["t_1 = x * y", "t_2 = t_1 + t_1", "s_2 = unbroadcast(s_1, t_1)", "return (t_2, s_2)"],
     "t_1"),
    # an operand reassigned (its shape may change): kept
    (["t_1 = x * y", "y = y[:, None]", "t_2 = np.sin(t_1)", "s_2 = unbroadcast(s_1, t_1)",
      "return (t_2, s_2, y)"], "t_1"),
    # a value assigned in a loop: kept
    (["for i in range(2):", "    t_1 = x * y", "t_2 = np.sin(t_1)", "s_2 = unbroadcast(s_1, t_1)",
      "return (t_2, s_2)"], "t_1"),
    # the user's name read once: kept (forward substitution would not put it into its use)
    (["u = x * y", "t_2 = np.sin(u)", "s_2 = unbroadcast(s_1, u)", "return (t_2, s_2)"], "u"),
    # ... read for its shape alone: not computed
    (["u = x * y", "s_2 = unbroadcast(s_1, u)", "return s_2"], "broadcast_shape(x, y)"),
    # an operand read only here is not kept alive (nor computed again) for another's shape
    (["t_3 = np.exp(x)", "t_1 = t_3 * y", "t_2 = np.sin(t_1)", "s_2 = unbroadcast(s_1, t_1)",
      "return (t_2, s_2)"], "t_1"),
    # ... unless it is such a value itself: one shape of another
    (["t_3 = x * x", "t_1 = t_3 * y", "s_2 = unbroadcast(s_1, t_1)", "return s_2"],
     "broadcast_shape(broadcast_shape(x, x), y)"),
])
def test_a_shape_from_operands_only_where_the_value_may_go(body, shape):
    lines = _shape_only(body, ARRAYS)
    use = next(line for line in lines if "s_2 = " in line)
    assert use.endswith(f"(s_1, {shape})"), lines


@pytest.mark.parametrize("kind", [("list", None), ("tuple", None), ("any", None)])
def test_a_shape_from_operands_needs_numbers_or_arrays(kind):
    # [1.0] * 3 repeats a list: its shape is not a broadcast of its operands' shapes
    body = ["t_1 = x * y", "t_2 = np.sin(t_1)", "s_2 = unbroadcast(s_1, t_1)", "return (t_2, s_2)"]
    lines = _shape_only(body, {**ARRAYS, "x": kind})
    assert lines[2].strip() == "s_2 = unbroadcast(s_1, t_1)", lines


# --- passes with nothing to do return at once; where there is something, they find it ---

def _tree(text):
    import gast
    return gast.parse(text).body[0]


def _text(tree):
    from s2sad.codegen import unparse
    return unparse(tree)


NOTHING_TO_DO = '''def g(x, n):
    s_x = 0.0
    for i in range(n):
        if i > 1:
            s_x += x * s_1
    return s_x'''


def _passes():
    from s2sad.transforms.copy_propagation import CopyPropagation
    from s2sad.transforms.forward_substitution import ForwardSubstitution
    from s2sad.transforms.recompute import Recompute
    from s2sad.transforms.scale_inward import ScaleInward
    from s2sad.transforms.simplify import Simplify
    return [CopyPropagation({"s_1"}), ForwardSubstitution(lambda f: True, {"s_1"}),
            Recompute(), ScaleInward("sum_grad", {"s_1"}), Simplify()]


@pytest.mark.parametrize("index", range(5))
def test_a_pass_with_nothing_to_do_leaves_the_tree_and_says_so(index):
    optimization = _passes()[index]
    tree = _tree(NOTHING_TO_DO)
    assert _text(optimization.visit(tree)) == NOTHING_TO_DO
    assert not getattr(optimization, "changed", False)


@pytest.mark.parametrize("inner, after", [
    ("s = f(g(2 * y ** 1))", "s = f(g(2 * y))"),  # (alone, a boolean y ** 1 is an int)
    ("s = f(-(-y))", "s = f(y)"),
    ("s = f(y * (2 - 1))", "s = f(y * 1)"),
    ("s += f(y)\n            s += f(y)", "s += 2.0 * f(y)"),
])
def test_simplify_finds_what_is_deep_in_blocks(inner, after):
    from s2sad.transforms.simplify import Simplify
    text = f'''def g(y, n):
    s = 0.0
    for i in range(n):
        if i > 1:
            {inner}
    return s'''
    assert after in _text(Simplify().visit(_tree(text))).splitlines()[4].strip()


def test_copy_propagation_finds_a_copy_deep_in_blocks_and_says_so():
    from s2sad.transforms.copy_propagation import CopyPropagation
    text = '''def g(x, n):
    s_x = 0.0
    for i in range(n):
        if i > 1:
            s_5 = s_y
            s_x += x * s_5
    return s_x'''
    optimization = CopyPropagation({"s_5"})
    assert "s_x += x * s_y" in _text(optimization.visit(_tree(text)))
    assert optimization.changed
    optimization = CopyPropagation(set())
    text = '''def g(x, n):
    for i in range(n):
        x = x
    return x'''
    assert "x = x" not in _text(optimization.visit(_tree(text)))
    assert optimization.changed


def test_forward_substitution_and_recompute_say_when_they_changed_something():
    from s2sad.transforms.forward_substitution import ForwardSubstitution
    from s2sad.transforms.recompute import Recompute
    optimization = ForwardSubstitution(lambda f: True, {"t_1"})
    text = '''def g(x):
    t_1 = x * 2.0
    y = t_1 + 1.0
    return y'''
    assert "y = x * 2.0 + 1.0" in _text(optimization.visit(_tree(text)))
    assert optimization.changed
    text = '''def g(xs, h):
    stack = []
    x = None
    for i in range(len(xs)):
        stack.append(x)
        x = xs[i]
        h = h * x
    for i in reversed(range(len(xs))):
        s_h = x * s_h
        x = stack.pop()
    return s_h'''
    optimization = Recompute()
    after = _text(optimization.visit(_tree(text)))
    assert "stack.append(x)" not in after and after.count("x = xs[i]") == 2, after
    assert optimization.changed


@pytest.mark.parametrize("use", ["other(s)", "t = s", "s.extend([1.0])", "s[0] = other(a)"])
def test_a_list_that_may_change_in_a_nested_block_keeps_its_conversion(use):
    text = f'''def g(a, n):
    s = [a, a]
    for i in range(n):
        if i > 1:
            {use}
    return list(map(float, s))'''
    assert _after(text, {"a": "float", "n": "int"}) == "return list(map(float, s))"
    assert _after(text.replace(use, "pass"), {"a": "float", "n": "int"}) == "return s"


def _rnn(Wx, Wh, xs, h0):
    h = h0
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ Wx + h @ Wh)
    return np.sum(h ** 2)


def _rnn_hand(Wx, Wh, xs, h0):
    hs = [h0]
    for t in range(len(xs)):
        hs.append(np.tanh(xs[t] @ Wx + hs[-1] @ Wh))
    dh = 2.0 * hs[-1]
    dWx, dWh = np.zeros_like(Wx), np.zeros_like(Wh)
    for t in range(len(xs) - 1, -1, -1):
        da = dh * (1.0 - hs[t + 1] ** 2)
        dWx += xs[t].T @ da
        dWh += hs[t].T @ da
        dh = da @ Wh.T
    return dWx, dWh


def test_a_loop_saves_the_shape_of_what_the_reverse_sweep_reads_for_its_shape(monkeypatch):
    """``xs[t] @ Wx`` is read back only by ``unbroadcast``: its shape is saved, not the
    array, and the gradient holds about as much memory as the hand-written one (its
    weight terms added as they come, not held a few passes: tests/test_loop_sums.py)."""
    from benchmarks.timing import peak_memory
    monkeypatch.setattr("s2sad.runtime.terms.WAITING", 1)
    rng = np.random.default_rng(0)
    Wx, Wh = rng.standard_normal((4, 16)) / 2, rng.standard_normal((16, 16)) / 4
    xs, h0 = rng.standard_normal((50, 8, 4)), np.zeros((8, 16))
    g = s2sad.grad(_rnn, wrt=(0, 1))
    for mine, hand in zip(g(Wx, Wh, xs, h0), _rnn_hand(Wx, Wh, xs, h0)):
        np.testing.assert_allclose(mine, hand, rtol=1e-12)
    # (the kinds decide each unbroadcast, rows of xs keeping their axes' lengths: not even
    # the shape is saved)
    assert not re.search(r"t_\d+_saved\[t\] = ", g.source) and \
        "h_saved[t] = h" in g.source, g.source
    ours = peak_memory(lambda: g(Wx, Wh, xs, h0))
    theirs = peak_memory(lambda: _rnn_hand(Wx, Wh, xs, h0))
    assert ours < 1.3 * theirs, (ours, theirs)  # (each pass's two products kept: 2.7x)


def test_a_value_read_for_more_than_its_shape_is_saved_whole():
    def f(w, xs):
        h = w
        for t in range(len(xs)):
            a = xs[t] * h
            h = np.sin(a) + a  # the reverse sweep reads a itself (cos(a))
        return np.sum(h)
    rng = np.random.default_rng(1)
    w, xs = rng.standard_normal(3), rng.standard_normal((4, 3))
    g = s2sad.grad(f)
    assert "shape_of" not in g.source, g.source
    eps, numeric = 1e-6, []
    for i in range(3):
        d = np.zeros(3)
        d[i] = eps
        numeric.append((f(w + d, xs) - f(w - d, xs)) / (2 * eps))
    np.testing.assert_allclose(g(w, xs), numeric, rtol=1e-6)


def _broadcast_in_loop(W, c, xs):
    h = 0.0
    for t in range(len(xs)):
        a = xs[t] @ W  # (3,) on every pass
        h = h + np.tanh(a + c)  # (4, 3): a broadcast against c, of shape (4, 1)
    return np.sum(h ** 2)


def _bool_index(w, c, xs, flags):
    total = 0.0
    for t in range(len(flags)):
        i = flags[t] > 0.0  # a bool: xs[True] is xs[None], xs[False] an empty slice of it
        a = xs[i] @ w
        total = total + np.sum(np.tanh(a + c))
    return total


def test_a_shape_that_never_changes_is_read_from_the_value_the_loop_left():
    """``a = xs[t] @ W`` has one shape on every pass: the reverse sweep reads it from the
    last ``a`` and the loop saves nothing for it, also where ``a`` is broadcast."""
    from tests.test_gradients import finite_differences
    rng = np.random.default_rng(2)
    W, c, xs = rng.standard_normal((2, 3)), rng.standard_normal((4, 1)), \
        rng.standard_normal((5, 2))
    g = s2sad.grad(_broadcast_in_loop, wrt=(0, 1))
    source = g.source_for(W, c, xs)
    assert "shape_of(a)" not in source and "a_saved" not in source, source
    assert "s_a = s_3.sum(axis=0)" in source, source  # (a is broadcast: its sum, decided
    # by the kinds, xs[t] keeping xs's axes' lengths)
    gW, gc = g(W, c, xs)
    np.testing.assert_allclose(gW.ravel(), finite_differences(_broadcast_in_loop, [W, c, xs], 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gc.ravel(), finite_differences(_broadcast_in_loop, [W, c, xs], 1),
                               rtol=1e-6, atol=1e-8)
    for grad, like in zip(g(W, c, xs[:0]), (W, c)):  # no pass: no value of a, none read
        assert grad.shape == like.shape and not grad.any()


def test_only_one_of_the_rnn_products_saves_its_shape():
    """``xs[t] @ Wx`` keeps one shape; ``h @ Wh`` may not (``h0`` of shape (1, 3)
    broadcasts to (4, 3) on the first pass), so its shape is still saved pass by pass."""
    from tests.test_gradients import finite_differences
    rng = np.random.default_rng(0)
    Wx, Wh = rng.standard_normal((2, 3)), rng.standard_normal((3, 3)) / 2
    xs, h0 = rng.standard_normal((3, 4, 2)), rng.standard_normal((1, 3))
    g = s2sad.grad(_rnn, wrt=(0, 1))
    args = [Wx, Wh, xs, h0]
    for i, grad in enumerate(g(*args)):
        np.testing.assert_allclose(grad.ravel(), finite_differences(_rnn, args, i), rtol=1e-6,
                                   atol=1e-8)
    assert g.source.count("= shape_of(") == 1 and "t_4_saved[t] = shape_of(t_4)" in g.source, \
        g.source


def test_an_index_that_may_be_a_bool_keeps_what_the_loop_saves():
    from tests.test_gradients import finite_differences
    rng = np.random.default_rng(3)
    w, c, xs = rng.standard_normal(3), rng.standard_normal(2), rng.standard_normal((2, 3))
    flags = [1.0, -1.0, 2.0]
    g = s2sad.grad(_bool_index, wrt=(0, 1))
    assert "a_saved[t] = " in g.source_for(w, c, xs, flags)
    gw, gc = g(w, c, xs, flags)
    args = [w, c, xs, flags]
    np.testing.assert_allclose(gw, finite_differences(_bool_index, args, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gc, finite_differences(_bool_index, args, 1), rtol=1e-6, atol=1e-8)


def _doubled(x, n):
    for i in range(n):
        x = x * 2.0  # x is read back for its shape alone, but the gradient's form reads x
    return np.sum(x)


def _widened(x, n):
    for i in range(n):
        x = x + np.ones(3)
    return np.sum(x)


def _accumulated(x, n):
    s = np.sum(x * 0.0)
    for i in range(n):
        s = s + np.sum(x * x)  # the returned value, carried by the loop
    return s


def test_a_parameter_or_the_result_overwritten_in_a_loop_is_saved_whole():
    """The gradient's return reads the parameters and the returned value after the reverse
    sweep restored them: they are saved as they are, never as their shape."""
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(s2sad.grad(_doubled)(x, 3), np.full(3, 8.0))
    np.testing.assert_allclose(s2sad.grad(_widened)(np.ones(1), 3), [3.0])
    value, grad = s2sad.value_and_grad(_accumulated)(x, 2)
    assert value == pytest.approx(2 * np.sum(x * x))
    np.testing.assert_allclose(grad, 4 * x)


def test_a_value_read_once_when_the_seed_is_left_out_moves_into_its_use():
    """``t_2 = t_1 * z`` was read by ``np.exp`` and, for its shape, by the seed
    ``sum_grad(1.0, t_2, ...)``; once the seed is left out, it is read once and moves into
    ``np.exp``, like ``s_2`` into its use: two arrays fewer held while the gradient runs."""
    from benchmarks.timing import peak_memory
    from benchmarks.workloads.logreg import grad_logreg_hand, logreg, make_args
    w, X, y = make_args(np.random.default_rng(2), quick=False)
    g = s2sad.grad(logreg)
    text = g.source_for(w, X, y)
    assert "t_3 = np.exp(t_1 * z)" in text and "t_2" not in text and "s_2" not in text, text
    np.testing.assert_allclose(g(w, X, y), grad_logreg_hand(w, X, y)[0], rtol=1e-12)
    np.testing.assert_allclose(g(w, X, y), s2sad.grad(logreg, optimize=False)(w, X, y),
                               rtol=1e-13)
    ours = peak_memory(lambda: g(w, X, y))
    theirs = peak_memory(lambda: grad_logreg_hand(w, X, y))
    assert ours < 1.35 * theirs, (ours, theirs)  # (t_2 and s_2 kept as well: 1.5x)


def test_an_elementwise_gradient_holds_no_more_than_the_hand_written_one():
    from benchmarks.timing import peak_memory
    from benchmarks.workloads.elementwise import elementwise, grad_elementwise_hand
    x = np.random.default_rng(5).standard_normal(100_000)
    g = s2sad.grad(elementwise)
    np.testing.assert_allclose(g(x), grad_elementwise_hand(x)[0], rtol=1e-12, atol=1e-15)
    ours, theirs = peak_memory(lambda: g(x)), peak_memory(lambda: grad_elementwise_hand(x))
    assert ours < 1.05 * theirs, (ours, theirs)  # (s_8 and s_4 kept as well: 1.33x)


def test_an_if_left_with_nothing_to_do_goes():
    """``(x or y)`` leaves ``if cond_1: pass`` in the forward sweep once its branch's
    copy is dead: the whole ``if`` goes."""
    from .cases_core import either
    source = s2sad.grad(either, wrt=(0, 1)).source_for(0.5, 2.0)
    assert "pass" not in source, source
    assert s2sad.grad(either, wrt=(0, 1))(0.5, 2.0) == (2.0, 0.0)
    assert s2sad.grad(either, wrt=(0, 1))(0.0, 2.0) == (0.0, 2.0)


def test_python_float_code_reads_as_such():
    """max, abs, pow, math and sum of Python floats are Python floats: no output seed
    helper, no unbroadcast, no product by the seed 1.0."""
    from .cases_core import scalar_math_and_builtins as f
    source = s2sad.grad(f, wrt=(0, 1)).source_for(0.3, 0.8)
    for helper in ("output_seed", "unbroadcast", "* 1.0", "1.0 *"):
        assert helper not in source.replace("1.0 * 3", ""), source
    eps = 1e-6
    got = s2sad.grad(f, wrt=(0, 1))(0.3, 0.8)
    assert got == pytest.approx(((f(0.3 + eps, 0.8) - f(0.3 - eps, 0.8)) / (2 * eps),
                                 (f(0.3, 0.8 + eps) - f(0.3, 0.8 - eps)) / (2 * eps)))


def _log_outside_its_domain(x):
    y = x * x
    z = math.log(2.0 * (y - 5.0))  # (its value is not needed by the gradient)
    return z + y


def test_dead_code_keeps_a_math_call_that_may_raise():
    """math raises where NumPy warns: where the function is undefined (math.log of a
    negative number), the optimized gradient raises too, as the function does (it gave a
    number: the unused log was removed)."""
    with pytest.raises(ValueError, match="math domain error"):
        s2sad.grad(_log_outside_its_domain)(1.0)
    assert s2sad.grad(_log_outside_its_domain)(3.0) == pytest.approx(6.0 + 2.0 * 3.0 / 4.0)
