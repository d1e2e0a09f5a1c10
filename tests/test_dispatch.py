"""The per-call path: entries that guard a variant's argument kinds and call it, and
gradients returned as Python floats without conversions the generated code does not need."""

import math
import traceback

import numpy as np
import pytest

import s2sad
from tests import cases_dispatch as cases


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


def _failing_lines(g, x):
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError) as info:
        g(x)
    return [(frame.filename, frame.line or "")
            for frame in traceback.extract_tb(info.value.__traceback__)]


def test_a_short_variant_is_its_own_entry_and_fails_at_its_own_line():
    def logs(x):
        return np.sum(np.log(x))

    g = s2sad.grad(logs)
    g(np.ones(2))
    assert g._entry.__code__.co_filename == g._last.filename  # one call, not two
    lines = _failing_lines(g, np.zeros(2))
    assert lines[-1] == (g._last.filename, "s_x = 1.0 / x"), lines  # (the generated line)
    assert not any("variant(" in line for _, line in lines), lines


def test_a_long_variant_keeps_an_entry_of_its_own_in_tracebacks():
    g = s2sad.grad(cases.long_chain)
    g(np.ones(2))
    assert g._entry.__code__.co_filename != g._last.filename
    lines = _failing_lines(g, np.zeros(2))
    assert any("return variant(x)" in line for _, line in lines), lines
    assert lines[-1][0] == g._last.filename and lines[-1][1] in g._last.text, lines
    assert g(np.ones(2)) == pytest.approx(numeric(cases.long_chain, np.ones(2)))


def numeric(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def test_the_guard_reads_builtins_of_its_own_not_the_users_globals():
    """A module that defines ``len``, ``list`` and ``type``: the guard of a list of three
    floats still checks a list of three floats."""
    g = s2sad.grad(cases.product)
    for _ in range(3):
        assert g([2.0, 3.0, 4.0]) == [12.0, 8.0, 6.0]
    assert g._entry.__code__.co_filename == g._last.filename
    assert g((2.0, 3.0, 4.0)) == (12.0, 8.0, 6.0)  # (a tuple: another variant)
    with pytest.raises(TypeError, match="integers"):
        g([2, 3, 4])


def test_a_guarded_variant_shares_the_users_closure_cells():
    scale = 2.0

    def scaled(x):
        return scale * x * x

    g = s2sad.grad(scaled)
    assert g(3.0) == 12.0 and g(3.0) == 12.0
    scale = 5.0
    assert g(3.0) == 30.0


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


def math_product(x):
    return math.sin(x) * x


def test_math_functions_of_floats_need_no_conversion():
    g = s2sad.grad(math_product)
    assert "float(" not in g.source_for(0.5)
    assert type(g(0.5)) is float and g(0.5) == pytest.approx(math.sin(0.5) + 0.5 * math.cos(0.5))


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


def test_library_functions_imported_by_name_are_imported_not_read_live():
    """`from math import sin` in the user's module: the generated code imports sin (and
    writes the rules' math.cos as cos); no module global is refreshed at each call."""
    from benchmarks.workloads.while_loop import grad_while_loop_hand, while_loop
    g = s2sad.grad(while_loop, wrt=(0, 1))
    source = g.source_for(0.01, 0.0)
    assert source.startswith("from math import cos, sin\n") and "math." not in source
    assert g(0.01, 0.0) == pytest.approx(grad_while_loop_hand(0.01, 0.0), rel=1e-12)
    assert g._last.live == {} and g._entry is g._last.entry


def scaled_sum(x, /, w, *, scale=2.0, shift=None):
    return np.sum(w * x ** 2) * scale + (0.0 if shift is None else shift)


def test_positional_only_and_keyword_only_parameters():
    """Keyword-only parameters stay keyword-only in the generated code (they used to be
    passed by position: a TypeError); positional-only ones stay positional-only."""
    x, w = np.arange(3.0), np.ones(3)
    g = s2sad.grad(scaled_sum)
    for _ in range(2):  # compiled, then through the entry
        np.testing.assert_allclose(g(x, w), 4.0 * x)
        np.testing.assert_allclose(g(x, w=w, scale=3.0, shift=1.0), 6.0 * x)
    with pytest.raises(TypeError, match="grad_scaled_sum"):
        g(x=x, w=w)
    value, pullback = s2sad.vjp(scaled_sum)(x, w, scale=3.0)
    assert value == scaled_sum(x, w, scale=3.0)
    np.testing.assert_allclose(pullback(1.0), 6.0 * x)
    np.testing.assert_allclose(s2sad.jvp(scaled_sum)(x, w, scale=3.0)[1](np.ones(3)),
                               6.0 * np.sum(x))
    np.testing.assert_allclose(s2sad.jacobian(scaled_sum)(x, w, scale=3.0), 6.0 * x)
    np.testing.assert_allclose(s2sad.hessian(scaled_sum)(x, w, scale=3.0), 6.0 * np.eye(3))

    def cube(a, *, k=2.0):
        return a ** 3 * k
    assert s2sad.grad(s2sad.grad(cube))(2.0, k=1.0) == pytest.approx(12.0)
