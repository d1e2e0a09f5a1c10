"""The per-call path: entries that guard a variant's argument kinds, and gradients returned
as Python floats without conversions the generated code does not need."""

import traceback

import numpy as np
import pytest

import s2sad
from s2sad.transforms.py_floats import PythonFloats


def f4(side_lengths):
    a, b, c, d = side_lengths
    return 2.0 * (a * b * c + a * b * d + a * c * d + b * c * d)


F4_GRADIENT = [52.0, 38.0, 28.0, 22.0]


def speelpenning(x):
    p = 1.0
    for i in range(len(x)):
        p = p * x[i]
    return p


def weighted(x, w, n=2.0):
    return np.sum(w * x) * n


def test_the_entry_of_the_last_variant_takes_the_call():
    g = s2sad.grad(f4)
    assert g([1.0, 2.0, 3.0, 4.0]) == F4_GRADIENT
    assert g._entry is g._last.entry is not None
    assert g([1.0, 2.0, 3.0, 4.0]) == F4_GRADIENT


def test_arguments_of_other_kinds_go_the_general_way_and_get_their_variant():
    g = s2sad.grad(f4)
    floats = [1.0, 2.0, 3.0, 4.0]
    assert g(floats) == F4_GRADIENT
    # a NumPy scalar among floats, a tuple, an array: each its own variant, each right
    mixed = [1.0, np.float64(2.0), 3.0, 4.0]
    assert g(mixed) == F4_GRADIENT  # each gradient of the type of its item
    assert [type(v) for v in g(mixed)] == [float, np.float64, float, float]
    assert g(tuple(floats)) == tuple(F4_GRADIENT)
    np.testing.assert_allclose(g(np.array(floats)), F4_GRADIENT)
    assert type(g(np.array(floats))) is np.ndarray
    assert g(floats) == F4_GRADIENT and len(g._variants) == 4


def test_arrays_among_items_are_refused_by_the_guard_of_floats():
    def product(xs):
        return np.sum(xs[0] * xs[1])

    g = s2sad.grad(product)
    assert g([2.0, 3.0]) == [3.0, 2.0]
    result = g([np.ones(2), 3.0])  # the float variant's code has no unbroadcast: not it
    np.testing.assert_allclose(result[0], [3.0, 3.0])
    assert result[1] == 2.0
    assert g([2.0, 3.0]) == [3.0, 2.0]


def test_keywords_defaults_and_wrong_arity():
    g = s2sad.grad(weighted)
    x, w = np.arange(3.0), np.ones(3)
    np.testing.assert_allclose(g(x, w), 2.0 * w)
    np.testing.assert_allclose(g(x, w=w), 2.0 * w)
    np.testing.assert_allclose(g(x, w, 3.0), 3.0 * w)
    np.testing.assert_allclose(g(x, w, n=4.0), 4.0 * w)
    with pytest.raises(TypeError, match="grad_weighted"):
        g(x)
    with pytest.raises(TypeError, match="grad_weighted"):
        g(x, w, 1.0, 2.0)


def test_an_int_and_a_bool_are_told_apart_from_floats():
    g = s2sad.grad(weighted, wrt=1)
    x, w = np.arange(3.0), np.ones(3)
    np.testing.assert_allclose(g(x, w, 2.0), 2.0 * x)
    np.testing.assert_allclose(g(x, w, 3), 3.0 * x)
    np.testing.assert_allclose(g(x, w, True), x)
    np.testing.assert_allclose(g(x, w, 2.0), 2.0 * x)


def test_a_non_scalar_output_is_located_at_the_return_on_every_call():
    def returns_vector(x):
        return x * 2.0

    g = s2sad.grad(returns_vector)
    for _ in range(3):  # the first call goes the general way, the next through the entry
        with pytest.raises(s2sad.NonScalarOutputError) as info:
            g(np.ones(3))
        assert info.value.lineno is not None and "return x * 2.0" in str(info.value)


def test_entries_show_in_tracebacks():
    def logs(x):
        return np.sum(np.log(x))

    g = s2sad.grad(logs)
    g(np.ones(2))
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError) as info:
        g(np.zeros(2))
    lines = [frame.line or "" for frame in traceback.extract_tb(info.value.__traceback__)]
    assert any("return variant(x)" in line for line in lines)


def test_a_gradient_of_lists_of_floats_is_returned_without_conversion():
    g = s2sad.grad(f4)
    source = g.source_for([1.0, 2.0, 3.0, 4.0])
    assert "float(" not in source and "map(" not in source
    assert all(type(v) is float for v in g([1.0, 2.0, 3.0, 4.0]))
    loop = s2sad.grad(speelpenning)
    x = [1.5, 0.5, 2.0, -1.0]
    assert "map(" not in loop.source_for(x)
    result = loop(x)
    assert type(result) is list and all(type(v) is float for v in result)
    assert result == pytest.approx([-1.0, -3.0, -0.75, 1.5])
    assert x == [1.5, 0.5, 2.0, -1.0] and result is not x


def test_numpy_values_keep_their_conversion():
    def mixes(x):
        return np.sin(x) * x  # np.sin of a float is a numpy.float64

    g = s2sad.grad(mixes)
    assert "float(" in g.source_for(0.5)
    assert type(g(0.5)) is float and g(0.5) == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5))

    def listed(xs):
        return np.sin(xs[0]) * xs[1]

    g = s2sad.grad(listed)
    assert all(type(v) is float for v in g([0.5, 2.0]))


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


def test_parameters_named_like_the_entrys_own_names():
    def scaled(type, variant=2.0, arg_0=1.0):
        return type * variant * arg_0

    g = s2sad.grad(scaled)
    for _ in range(2):  # compiled, then through the entry
        assert g(3.0) == 2.0
        assert g(3.0, 4.0) == 4.0
        assert g(3.0, variant=5.0, arg_0=2.0) == 10.0
    import linecache
    entry = "".join(linecache.getlines(g._entry.__code__.co_filename))
    assert entry.startswith("def enter_grad_scaled(*args, **kwargs):\n"), entry
    assert "type, variant, arg_2 = args" not in entry and "arg_0, arg_1, arg_2 = args" in entry


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


def test_a_comprehension_variable_is_not_the_name_outside():
    text = '''def g(a, xs):
    v = a * 2.0
    ys = [float(v) for v in xs]
    return (float(v), ys)'''
    out = _after(text, {"a": "float", "xs": ("list", ("float",) * 2)})
    assert out == "return (float(v), ys)"
