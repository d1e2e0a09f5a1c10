"""A gradient follows the functions its source names: a helper defined again (a notebook
cell run again, ``act = sin_act``), a closure cell given another function, a helper's
defaults changed, or a derivative rule registered again makes the gradient be built
again at its next call, by the object made before and by a new one alike. (They were
built once and kept: the old helper's value and gradient, silently.)"""

import types

import numpy as np
import pytest

import s2sad

from . import cases_rebinding as C
from .cases_dispatch import long_with_default


@pytest.mark.parametrize("optimize", [True, False])
def test_a_helper_defined_again(monkeypatch, optimize):
    g = s2sad.grad(C.top, optimize=optimize)
    assert g(2.0) == 4.0
    monkeypatch.setattr(C, "helper", C.triple)
    assert g(2.0) == 3.0 and s2sad.grad(C.top, optimize=optimize)(2.0) == 3.0


def test_an_alias_given_another_function(monkeypatch):
    w, x = np.array([0.3, -0.2]), np.array([[1.0, 2.0], [0.5, -1.0]])
    value_and_grad = s2sad.value_and_grad(C.loss)
    value, gradient = value_and_grad(w, x)
    np.testing.assert_allclose(gradient, x.T @ (1.0 - np.tanh(x @ w) ** 2))
    monkeypatch.setattr(C, "act", C.sin_act)
    value, gradient = value_and_grad(w, x)
    assert value == pytest.approx(np.sum(np.sin(x @ w)))
    np.testing.assert_allclose(gradient, x.T @ np.cos(x @ w))


def test_a_helpers_defaults_changed(monkeypatch):
    g = s2sad.grad(C.uses_scale)
    assert g(1.0) == 2.0
    monkeypatch.setattr(C.scale, "__defaults__", (7.0,))
    assert g(1.0) == 7.0


def test_a_closure_cell_given_another_function():
    inner = C.make(2.0)
    g = s2sad.grad(inner)
    assert g(0.5) == pytest.approx(2.0 * np.cos(0.5))
    inner.__closure__[0].cell_contents = np.cos
    assert g(0.5) == pytest.approx(-2.0 * np.sin(0.5))


def test_a_derivative_of_a_derivative_follows_too(monkeypatch):
    second = s2sad.grad(s2sad.grad(C.top))
    assert second(2.0) == 2.0
    monkeypatch.setattr(C, "helper", C.cube)
    assert second(2.0) == 12.0


def test_the_entrys_guard_tests_the_helper():
    """The check is in the guard the call goes through (no slower path for the call)."""
    g = s2sad.grad(C.top)
    g(2.0)
    assert g._entry.__code__.co_name == "grad_top"  # the variant's own code, guarded
    assert "_s2sad_read_0" in g._entry.__code__.co_freevars, g._entry.__code__.co_freevars


def test_a_rule_registered_again_replaces_the_one_built_in():
    x = np.array([0.3, -0.7])

    @s2sad.custom_vjp(C.softplus)
    def wrong(g, ans, x):
        return 0.0 * g

    g = s2sad.grad(C.softplus_loss)
    np.testing.assert_array_equal(g(x), [0.0, 0.0])

    @s2sad.custom_vjp(C.softplus)
    def right(g, ans, x):
        return g / (1.0 + np.exp(-x))

    expected = 1.0 / (1.0 + np.exp(-x))
    np.testing.assert_allclose(g(x), expected)
    np.testing.assert_allclose(s2sad.grad(C.softplus_loss)(x), expected)


def test_a_module_attribute_given_another_function(monkeypatch):
    """``helpers.act`` (a module's attribute) given another function, by a reload or a
    monkeypatch: built again too."""
    x = np.array([0.3, -0.7])
    g = s2sad.grad(C.through_a_module)
    before = g(x)
    monkeypatch.setattr(C.other, "scaled_tanh", C.sin_act)
    np.testing.assert_allclose(g(x), np.cos(x))
    assert not np.allclose(before, np.cos(x))


# --- the function's own defaults: Python reads them at each call --------------------------


def _short(a, b=2.0):
    return a * b


_long = long_with_default  # (a gradient too long to be inlined into its entry)


def _numeric(f, *args, eps=1e-6):
    return (f(args[0] + eps, *args[1:]) - f(args[0] - eps, *args[1:])) / (2 * eps)


@pytest.mark.parametrize("f", [_short, _long], ids=["guarded-variant", "entry-of-its-own"])
def test_the_functions_own_defaults_changed(monkeypatch, f):
    """A gradient built before ``f.__defaults__ = (5.0,)`` used 2.0 (the entry kept the
    defaults of its first build); a call that gives every argument is unaffected."""
    g = s2sad.grad(f)
    assert g(0.3) == pytest.approx(_numeric(f, 0.3))
    assert g._entry.__code__.co_name.startswith("enter_") == (f is _long)
    assert g(0.3, 3.0) == pytest.approx(_numeric(f, 0.3, 3.0))
    monkeypatch.setattr(f, "__defaults__", (5.0,))
    assert g(0.3) == pytest.approx(_numeric(f, 0.3, 5.0))
    assert g(0.3) == pytest.approx(_numeric(f, 0.3, 5.0))  # (the entry made again)
    assert g(0.3, 3.0) == pytest.approx(_numeric(f, 0.3, 3.0))
    assert g(0.3, b=1.5) == pytest.approx(_numeric(f, 0.3, 1.5))
    assert s2sad.value_and_grad(f)(0.3)[0] == pytest.approx(f(0.3, 5.0))
    monkeypatch.setattr(f, "__defaults__", None)
    with pytest.raises(TypeError, match="'b'"):
        g(0.3)
    assert g(0.3, 3.0) == pytest.approx(_numeric(f, 0.3, 3.0))


def test_keyword_only_defaults_changed_or_changed_in_place():
    def scaled(a, *, b=2.0, c=1.0):
        return a * b * c

    g = s2sad.grad(scaled)
    assert (g(1.0), g(1.0, c=3.0)) == (2.0, 6.0)
    scaled.__kwdefaults__["b"] = 7.0  # (Python reads the dict at each call)
    assert (g(1.0), g(1.0, c=3.0)) == (7.0, 21.0)
    scaled.__kwdefaults__ = {"b": 1.0, "c": 4.0}
    assert (g(1.0), g(1.0, b=2.0)) == (4.0, 8.0)
    del scaled.__kwdefaults__["c"]
    with pytest.raises(TypeError, match="'c'"):
        g(1.0)


def test_a_default_left_out_between_given_arguments():
    def three(a, n=2.0, p=3.0):
        return a * n * p

    g = s2sad.grad(three)
    assert (g(1.0), g(1.0, p=1.0)) == (6.0, 2.0)
    three.__defaults__ = (10.0, 3.0)
    assert (g(1.0, p=1.0), g(1.0)) == (10.0, 30.0)


def test_defaults_changed_under_derivatives_of_derivatives_and_products():
    def cubic(a, b=2.0):
        return a * a * a * b

    second, hessian = s2sad.grad(s2sad.grad(cubic)), s2sad.hessian(cubic)
    vjp, jvp = s2sad.vjp(cubic), s2sad.jvp(cubic)
    assert (second(1.0), hessian(1.0), vjp(1.0)[1](1.0), jvp(1.0)[1](1.0)) == \
        (12.0, 12.0, 6.0, 6.0)
    cubic.__defaults__ = (5.0,)
    assert (second(1.0), hessian(1.0), vjp(1.0)[1](1.0), jvp(1.0)[1](1.0)) == \
        (30.0, 30.0, 15.0, 15.0)
    assert s2sad.grad(cubic).source_for(1.0) == s2sad.grad(cubic).source_for(1.0, 5.0)


# --- defaults given after the first build, or taken away ------------------------------------


def _without_defaults(f):
    """``f``'s very code (its source) as a function with no defaults yet."""
    return types.FunctionType(f.__code__, f.__globals__, f.__name__)


@pytest.mark.parametrize("f", [_short, _long], ids=["guarded-variant", "entry-of-its-own"])
def test_defaults_given_after_the_first_build(f):
    """A gradient built while ``f(a, b)`` had no default refused ``g(0.3)`` with Python's
    TypeError after ``f.__defaults__ = (5.0,)`` (its entry had no place for ``b``)."""
    f = _without_defaults(f)
    g = s2sad.grad(f)
    assert g(0.3, 3.0) == pytest.approx(_numeric(f, 0.3, 3.0))
    with pytest.raises(TypeError, match="'b'"):
        g(0.3)
    assert g(0.3, 3.0) == pytest.approx(_numeric(f, 0.3, 3.0))  # (through its entry)
    f.__defaults__ = (5.0,)
    assert g(0.3) == pytest.approx(_numeric(f, 0.3, 5.0))
    assert g(0.3) == pytest.approx(_numeric(f, 0.3, 5.0))  # (the entry made again)
    f.__defaults__ = (1.5, 0.5)  # (a default for ``a`` too)
    assert g() == pytest.approx(_numeric(f, 1.5, 0.5))
    assert g(b=2.0) == pytest.approx(_numeric(f, 1.5, 2.0))
    assert s2sad.value_and_grad(f)()[0] == pytest.approx(f(1.5, 0.5))
    f.__defaults__ = None
    with pytest.raises(TypeError, match="'a'"):
        g()
    assert g(0.3, 3.0) == pytest.approx(_numeric(f, 0.3, 3.0))


def test_keyword_only_defaults_given_after_the_first_build():
    def scaled(a, *, b, c=1.0):
        return a * a * b * c

    g = s2sad.grad(scaled)
    assert g(1.5, b=2.0) == 6.0
    scaled.__kwdefaults__ = {"b": 3.0, "c": 1.0}
    assert (g(1.5), g(1.5, c=2.0)) == (9.0, 18.0)
    scaled.__kwdefaults__["b"] = 0.5
    assert g(1.5) == 1.5
    scaled.__kwdefaults__ = None
    with pytest.raises(TypeError, match="'b'"):
        g(1.5)
    assert g(1.5, b=2.0, c=1.0) == 6.0


def _power(x, mode):
    return x * x if mode is None else x * x * x


def test_a_default_given_where_the_build_saw_none():
    """``mode``, described as any value: the guard tests that the call gave it."""
    f = _without_defaults(_power)
    g = s2sad.grad(f)
    assert g(2.0, None) == 4.0
    f.__defaults__ = ("cube",)
    assert g(2.0) == 12.0
    f.__defaults__ = (None,)
    assert g(2.0) == 4.0


def test_defaults_given_later_under_derivatives_of_derivatives_and_products():
    def cubic(a, b):
        return np.sum(a * a * a * b)

    x = np.array([1.0, 2.0])
    second, hessian = s2sad.grad(s2sad.grad(cubic)), s2sad.hessian(cubic)
    jacobian, vjp, jvp = s2sad.jacobian(cubic), s2sad.vjp(cubic), s2sad.jvp(cubic)
    assert second(1.0, 2.0) == 12.0
    np.testing.assert_allclose(hessian(x, 2.0), np.diag(12.0 * x))
    np.testing.assert_allclose(jacobian(x, 2.0), 6.0 * x * x)
    cubic.__defaults__ = (5.0,)
    assert second(1.0) == 30.0
    np.testing.assert_allclose(hessian(x), np.diag(30.0 * x))
    np.testing.assert_allclose(jacobian(x), 15.0 * x * x)
    np.testing.assert_allclose(vjp(x)[1](1.0), 15.0 * x * x)
    assert jvp(x)[1](np.ones(2)) == pytest.approx(np.sum(15.0 * x * x))
    assert s2sad.grad(s2sad.grad(cubic))(1.0) == 30.0


def test_a_helpers_keyword_only_default_changed_in_place():
    """``helper.__kwdefaults__["k"] = 7.0`` (the same dict) was not noticed: the gradient
    of its caller, and a new one, kept 2.0."""
    g, second = s2sad.grad(C.uses_keyword_scale), s2sad.grad(s2sad.grad(C.uses_keyword_scale))
    assert (g(1.0), second(1.0)) == (4.0, 4.0)
    C.keyword_scale.__kwdefaults__["k"] = 7.0
    try:
        assert (g(1.0), s2sad.grad(C.uses_keyword_scale)(1.0), second(1.0)) == \
            (14.0, 14.0, 14.0)
    finally:
        C.keyword_scale.__kwdefaults__["k"] = 2.0
    assert g(1.0) == 4.0


def _optional(x, k=None):
    return x * x * x * (1.0 if k is None else k)


def test_a_default_of_none_given_a_number_later():
    """``k=None`` built for, then ``f.__defaults__ = (3.0,)``: a variant for a float ``k``,
    for the gradient and the gradient of the gradient alike."""
    f = types.FunctionType(_optional.__code__, _optional.__globals__, "_optional", (None,))
    g, second = s2sad.grad(f), s2sad.grad(s2sad.grad(f))
    assert (g(0.5), second(0.5)) == (pytest.approx(0.75), pytest.approx(3.0))
    f.__defaults__ = (3.0,)
    assert g(0.5) == pytest.approx(_numeric(f, 0.5))
    assert second(0.5) == pytest.approx(_numeric(g, 0.5), rel=1e-6)
    f.__defaults__ = (None,)
    assert (g(0.5), second(0.5)) == (pytest.approx(0.75), pytest.approx(3.0))
