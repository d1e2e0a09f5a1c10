"""A gradient follows the functions its source names: a helper defined again (a notebook
cell run again, ``act = sin_act``), a closure cell given another function, a helper's
defaults changed, or a derivative rule registered again makes the gradient be built
again at its next call, by the object made before and by a new one alike. (They were
built once and kept: the old helper's value and gradient, silently.)"""

import numpy as np
import pytest

import s2sad

from . import cases_rebinding as C


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
