"""Session 31, the lead's fixes, each checked against central differences (float64).

A default's expression is read where the ``def`` runs, in the enclosing scope:
``def g(x, f=f)`` (the classic binding of a loop's variable) gives ``g``'s parameter the
module's ``f``; the name in the default is not a use of the parameter.
"""

import re

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


# --- a list appended to in a loop: its sensitivity popped in place in reverse --------------

from benchmarks.tight_loops import appended_trajectory as appended_scalars  # noqa: E402


def appended_rows(w, n):
    hs = []
    h = np.zeros(3)
    for i in range(n):
        h = np.tanh(h * w + 0.1)
        if i % 3 != 1:
            hs.append(h)
    return np.sum(np.stack(hs) ** 2)


def appended_in_nested_loops(a, b):
    out = []
    for u in a:
        for v in b:
            out.append(u * v)
    return sum(o * o for o in out)


def test_a_list_appended_to_in_a_loop_is_popped_in_place():
    gradient = s2sad.grad(appended_rows)
    w = np.array([0.3, -0.5, 0.9])
    source = gradient.source_for(w, 7)
    assert "del s_hs[-1]" in source and "s_hs = list(s_hs)" in source  # (a read between)
    assert "s_hs = s_hs[:-1]" not in source
    np.testing.assert_allclose(gradient(w, 7), central_differences(lambda v: appended_rows(v, 7),
                                                                   (w,), 0), rtol=1e-7)


def test_appends_popped_in_place_match_differences():
    # (each item of sum(xs) has the seed's sensitivity: the sweep reads it, no list of them)
    source = s2sad.grad(appended_scalars).source_for(0.7, 50)
    assert "s_x = s_x + s_ret" in source and "s_xs" not in source
    np.testing.assert_allclose(s2sad.grad(appended_scalars)(0.7, 50),
                               central_differences(lambda v: appended_scalars(v, 50), (0.7,), 0),
                               rtol=1e-7)
    a, b = np.array([0.4, -1.1]), np.array([2.0, 0.3, -0.6])
    got = s2sad.grad(appended_in_nested_loops, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(got[0], central_differences(appended_in_nested_loops, (a, b), 0),
                               rtol=1e-7)
    np.testing.assert_allclose(got[1], central_differences(appended_in_nested_loops, (a, b), 1),
                               rtol=1e-7)


def test_a_gradient_differentiated_again_keeps_its_functional_pops():
    # the inner gradient is nested: its list stays a value (s = s[:-1]); the outer one,
    # final, copies none of its own lists
    s2sad.check_grads(appended_scalars, (0.7, 12), order=2, modes=("rev", "fwd"), wrt=0)
    second = s2sad.grad(s2sad.grad(appended_scalars))
    np.testing.assert_allclose(
        second(0.7, 12),
        central_differences(lambda v: s2sad.grad(appended_scalars)(v, 12), (0.7,), 0),
        rtol=1e-6)
    source = second.source_for(0.7, 12)
    assert not re.search(r"\bs2_\w+ = s2_\w+\[:-1\]", source)  # (no copy of its own lists)
    assert "xs.pop()" in source and "s_xs = s_xs[:-1]" in source


def test_hooks_bind_a_parameter_left_to_its_default():
    from s2sad import hooks
    gradient = s2sad.grad(appended_scalars)
    expected = gradient(0.7, 10_000)
    assert hooks.variant_function(gradient, (0.7,))(0.7, 10_000) == expected
    assert hooks.call_generated(gradient, (0.7,)) == expected


# --- a loop over lists of numbers: its variable is None before the loop ------------------

def chained_by_hand(x):
    iterables = ([x], [x * x, 2.0 * x])
    items = []
    for iterable in iterables:
        for item in iterable:
            items.append(item)
    y = sum(items)
    return y * x + y


def test_a_loop_variable_holding_a_list_of_numbers_gets_zeros_after_its_restore():
    np.testing.assert_allclose(s2sad.grad(chained_by_hand)(1.3),
                               central_differences(chained_by_hand, (1.3,), 0), rtol=1e-7)
    s2sad.check_grads(chained_by_hand, (1.3,), order=2, modes=("rev", "fwd"))
