"""Session 31, the lead's fixes, each checked against central differences (float64).

A default's expression is read where the ``def`` runs, in the enclosing scope:
``def g(x, f=f)`` (the classic binding of a loop's variable) gives ``g``'s parameter the
module's ``f``; the name in the default is not a use of the parameter.
"""

import numpy as np

import s2sad
from tests.test_higher_order import central_differences


def _sin_times(v):
    return np.sin(v) * v


def _cos_times(v):
    return np.cos(v) * v


f = _sin_times


def bound_by_same_name(x, f=f):
    return np.sum(f(x) ** 2)


X = np.array([0.3, -0.7, 1.2])


def test_a_default_naming_the_parameter_itself_is_followed():
    expected = central_differences(lambda v: bound_by_same_name(v), (X,), 0)
    np.testing.assert_allclose(s2sad.grad(bound_by_same_name)(X), expected, rtol=1e-7, atol=1e-9)


def test_defaults_bound_in_a_loop_each_followed_with_second_derivatives():
    made = []
    for f in (_sin_times, _cos_times):
        def g(x, f=f):
            return np.sum(f(x) ** 2)
        made.append(g)
    for g in made:
        gradient = s2sad.grad(g)
        np.testing.assert_allclose(gradient(X), central_differences(g, (X,), 0),
                                   rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(s2sad.hessian(g)(X), central_differences(gradient, (X,), 0),
                                   rtol=1e-6, atol=1e-8)


# --- JAX's form of a custom rule: a located, actionable error, nothing registered ---------

def _clip(x):
    return x


def test_custom_vjp_over_the_function_itself_says_how_rules_are_written():
    import pytest
    from s2sad import registry
    decorator = s2sad.custom_vjp(_clip)  # what `@s2sad.custom_vjp` over _clip binds
    with pytest.raises(TypeError, match=r"(?s)called on a value of type ndarray.*"
                       r"@s2sad.custom_vjp\(_clip\)\n    def _clip_vjp\(g, ans, x\)"):
        decorator(np.ones(2))
    with pytest.raises(AttributeError, match=r"has no \.defvjp\(\) \(JAX's form\)"):
        decorator.defvjp(None, None)
    assert registry.lookup(_clip) is None  # (no array registered as its rule)
    assert not hasattr(decorator, "__wrapped__")


def test_rule_decorators_still_register_a_def():
    def _twice(x):
        return 2.0 * x

    @s2sad.defvjp(_twice)
    def _twice_vjp(g, ans, x):
        return 2.0 * g

    def f(x):
        return np.sum(_twice(x) ** 2)

    np.testing.assert_allclose(s2sad.grad(f)(X), central_differences(f, (X,), 0),
                               rtol=1e-7, atol=1e-9)
