"""What a function does to memory is a fact of its rule entry (s2sad.registry.facts): a
call that returns its argument or a view of it shares its memory, a call that writes into
an argument is refused, and a call s2sad knows nothing of, given a mutable value the
gradient follows, is refused at its line. Valid code still differentiates."""

import inspect
import operator

import numpy as np
import pytest

import s2sad
from s2sad import registry
from tests import cases_memory as cases
from tests.test_control_flow import numeric_gradient

X = np.array([0.3, 1.2, -0.7])


def marked_line(func) -> int:
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if "# <- here" in line)


def located(err, func) -> None:
    assert err.filename == cases.__file__, str(err)
    assert err.lineno == marked_line(func), str(err)
    assert "# <- here" in str(err)


@pytest.mark.parametrize("func", cases.VIEWS, ids=lambda f: f.__name__)
def test_update_of_a_returned_argument_or_view_is_refused(func):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="shares its memory with|shared") \
            as info:
        s2sad.grad(func)(X.copy())
    located(info.value, func)
    assert "copy" in str(info.value)


@pytest.mark.parametrize("func", cases.MUTATIONS, ids=lambda f: f.__name__)
def test_change_in_place_through_a_call_is_refused(func):
    x = X.copy()
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="in place where the reverse sweep") \
            as info:
        s2sad.grad(func)(x)
    located(info.value, func)
    assert np.array_equal(x, X)


@pytest.mark.parametrize("func", cases.UNKNOWN, ids=lambda f: f.__name__)
def test_unknown_function_given_a_followed_value_is_refused(func):
    with pytest.raises(s2sad.NoDerivativeError, match="does not know whether it changes") \
            as info:
        s2sad.grad(func)(X.copy())
    located(info.value, func)
    assert "'z'" in str(info.value) and "copy" in str(info.value)


@pytest.mark.parametrize("func", cases.SAFE + cases.SLOTS, ids=lambda f: f.__name__)
def test_known_or_unfollowed_calls_differentiate(func):
    grad = s2sad.grad(func)(X.copy())
    np.testing.assert_allclose(grad, numeric_gradient(func, (X.copy(),), 0), rtol=1e-6,
                               atol=1e-8)


def test_facts_are_kept_by_function_object():
    """Methods by their unbound functions; a bound method without its receiver; a rule's
    function is known (no change, no view); an output array given by position."""
    assert registry.facts(np.ndarray.fill).mutates == (0,)
    assert registry.facts(list.sort).mutates == (0,)
    assert registry.facts(operator.iadd).returns_view_of == (0,)
    assert registry.facts(np.random.default_rng(0).shuffle).mutates == (0,)
    assert registry.facts(np.add.at).mutates == (0,)
    assert registry.facts(np.clip).mutates == (3, "out")
    assert registry.facts(np.tanh).mutates == (1, "out")
    assert registry.facts(np.ndarray.conj).returns_view_of == (0,)
    assert registry.facts(np.sinc) == registry.Facts()  # (a rule, no output array)
    assert registry.lookup(np.sinc).facts == registry.Facts()
    found = registry.facts(len)  # (and what else the passes read: pure, an int)
    assert (found.returns_view_of, found.uncopied_view_of, found.mutates) == ((), (), ())
    assert registry.facts(lambda v: v) is None


@pytest.mark.parametrize("func", cases.VIEWS + cases.MUTATIONS + cases.UNKNOWN,
                         ids=lambda f: f.__name__)
def test_forward_mode_refuses_at_the_same_line(func):
    with pytest.raises((s2sad.UnsupportedSyntaxError, s2sad.NoDerivativeError)) as info:
        s2sad.jvp(func)(X.copy())[1](np.ones(3))
    located(info.value, func)


@pytest.mark.parametrize("func", cases.SAFE + cases.SLOTS, ids=lambda f: f.__name__)
def test_forward_and_second_order_agree_with_central_differences(func):
    direction = np.array([0.5, -1.0, 2.0])
    _, tangent = s2sad.jvp(func)(X.copy())
    step = 1e-6
    slope = (func(X + step * direction) - func(X - step * direction)) / (2 * step)
    np.testing.assert_allclose(tangent(direction), slope, rtol=1e-6, atol=1e-8)
    hessian = s2sad.hessian(func)(X.copy())
    columns = [(s2sad.grad(func)(X + 1e-5 * e) - s2sad.grad(func)(X - 1e-5 * e)) / 2e-5
               for e in np.eye(3)]
    np.testing.assert_allclose(hessian, np.array(columns).T, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("func", cases.ARGUMENT_UPDATES, ids=lambda f: f.__name__)
def test_in_place_update_of_the_argument_is_refused_in_every_form(func):
    for make in (s2sad.grad, lambda f: (lambda x: s2sad.jvp(f)(x)[1](np.ones(3)))):
        x = X.copy()
        with pytest.raises(s2sad.UnsupportedSyntaxError,
                           match="in-place update of the argument 'x'") as info:
            make(func)(x)
        located(info.value, func)
        assert np.array_equal(x, X)


def test_a_bound_method_held_by_a_variable_is_refused():
    for make in (s2sad.grad, lambda f: (lambda x: s2sad.jvp(f)(x)[1](np.ones(3)))):
        with pytest.raises(s2sad.NoDerivativeError, match="does not know whether it changes") \
                as info:
            make(cases.bound_method_held)(X.copy())
        located(info.value, cases.bound_method_held)
        assert "z.fill" in str(info.value)


@pytest.mark.parametrize("func", cases.LIST_SLICES, ids=lambda f: f.__name__)
def test_assignment_to_a_slice_of_a_list_is_refused(func):
    for make in (s2sad.grad, lambda f: (lambda x: s2sad.jvp(f)(x)[1](np.ones(3)))):
        with pytest.raises(s2sad.UnsupportedSyntaxError,
                           match="assignment to a slice of the list 'ys'") as info:
            make(func)(X.copy())
        located(info.value, func)
        assert "Build a new list" in str(info.value)
