"""A function passed to a call that is not inlined (odeint, solve_ivp, np.vectorize, map,
SciPy's optimizers...), whose behaviour depends on the differentiated arguments: a bound
method of an object holding them, functools.partial of them, a nested def closing over
them. Each is refused at the user's line, never differentiated as a constant (a gradient
of 0.0); the advised rewrite (a module-level function, the values through ``args``) is
checked against central differences (skipped where SciPy is missing)."""

import functools
import inspect

import numpy as np
import pytest

integrate = pytest.importorskip("scipy.integrate")
optimize = pytest.importorskip("scipy.optimize")

import s2sad  # noqa: E402
from s2sad import registry  # noqa: E402
from test_higher_order import central_differences  # noqa: E402

odeint, solve_ivp, quad = integrate.odeint, integrate.solve_ivp, integrate.quad
Y0 = np.array([1.0, 2.0])
TIMES = np.array([0.0, 0.5, 1.0])
TIGHT = 1e-11


class Decay:
    def __init__(self, a):
        self.a = a
        self.field = field

    def rhs(self, y, t):
        return -self.a * y

    def rhs_ivp(self, t, y):
        return -self.a * y

    def scale(self, x):
        return self.a * x


def field(y, t, a):
    return -a * y


def field_t_first(t, y, a):
    return -a * y


def times(x, a):
    return a * x


# --- functions whose right-hand side holds the differentiated value ---------------------------

def bound_method(a):
    m = Decay(a)
    return np.sum(odeint(m.rhs, Y0, TIMES))  # <- here


def bound_method_by_keyword(a):
    m = Decay(a)
    return np.sum(odeint(func=m.rhs, y0=Y0, t=TIMES))  # <- here


def bound_method_in_a_variable(a):
    m = Decay(a)
    rhs = m.rhs
    return np.sum(odeint(rhs, Y0, TIMES))  # <- here


def bound_method_in_a_list(a):
    m = Decay(a)
    fields = [m.rhs]
    return np.sum(odeint(fields[0], Y0, TIMES))  # <- here


def attribute_of_an_active_object(a):
    m = Decay(a)
    return np.sum(odeint(m.field, Y0, TIMES, args=(0.3,)))  # <- here


def partial_of_the_value(a):
    rhs = functools.partial(field, a=a)
    return np.sum(odeint(rhs, Y0, TIMES))  # <- here


def _passes_on(rhs):
    return np.sum(odeint(rhs, Y0, TIMES))  # <- here


def through_a_helper(a):
    m = Decay(a)
    return _passes_on(m.rhs)  # (located at the helper's line, called from here)


through_a_helper.located_in = _passes_on


def ivp_partial(a):
    sol = solve_ivp(functools.partial(field_t_first, a=a), (0.0, 1.0), Y0,  # <- here
                    t_eval=TIMES)
    return np.sum(sol.y)


def ivp_bound_method(a):
    m = Decay(a)
    sol = solve_ivp(m.rhs_ivp, (0.0, 1.0), Y0, t_eval=TIMES)  # <- here
    return np.sum(sol.y)


def nested_def(a):
    def rhs(y, t):
        return -a * y
    return np.sum(odeint(rhs, Y0, TIMES))  # <- here


def lambda_in_a_variable(a):
    rhs = lambda y, t: -a * y  # noqa: E731
    return np.sum(odeint(rhs, Y0, TIMES))  # <- here


def _line(func):
    lines, first = inspect.getsourcelines(getattr(func, "located_in", func))
    return first + next(i for i, text in enumerate(lines) if "# <- here" in text)


_ODEINT = "no derivative with respect to its argument 'func'"
_IVP = "no derivative with respect to its argument 'fun'"
_THROUGH_ARGS = "pass the values it reads through args=(...)"
_NESTED = "the function 'rhs', defined inside the differentiated function, used as a value"


@pytest.mark.parametrize("func, message", [
    (bound_method, _ODEINT),
    (bound_method_by_keyword, _ODEINT),
    (bound_method_in_a_variable, _ODEINT),
    (bound_method_in_a_list, _ODEINT),
    (attribute_of_an_active_object, _ODEINT),
    (partial_of_the_value, _ODEINT),
    (through_a_helper, _ODEINT),
    (ivp_partial, _IVP),
    (ivp_bound_method, _IVP),
], ids=lambda v: getattr(v, "__name__", "")[:30] if callable(v) else "")
def test_an_ode_right_hand_side_holding_the_value_is_refused(func, message):
    """Before: the rule ran with the function taken as a constant (a gradient of 0.0)."""
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(func)(0.5)
    assert info.value.lineno == _line(func)
    assert message in str(info.value) and _THROUGH_ARGS in str(info.value)
    assert "what the function itself holds" in str(info.value)


@pytest.mark.parametrize("func", [bound_method, partial_of_the_value, ivp_partial,
                                  through_a_helper])
def test_forward_mode_refuses_it_too(func):
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.jvp(func)(0.5)[1](1.0)
    assert info.value.lineno is not None and info.value.filename == __file__


@pytest.mark.parametrize("func", [nested_def, lambda_in_a_variable])
def test_a_nested_function_passed_to_odeint_says_what_is_refused(func):
    """Before: "name 'rhs' is not defined ... Define it in the function's module"."""
    for derivative in (s2sad.grad, lambda f: (lambda a: s2sad.jvp(f)(a)[1](1.0))):
        with pytest.raises(s2sad.DifferentiationError) as info:
            derivative(func)(0.5)
        assert info.value.lineno == _line(func)
        assert _NESTED in str(info.value) and _THROUGH_ARGS in str(info.value)
        assert "is not defined" not in str(info.value)


def _nested_through_a_helper(a):
    def rhs(y, t):
        return -a * y
    return _passes_on(rhs)  # <- here


def test_a_nested_function_passed_on_by_a_helper_is_refused_with_advice():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(_nested_through_a_helper)(0.5)
    assert info.value.lineno == _line(_passes_on)  # (the helper's line, called from:)
    assert "the function passed as 'rhs' used as a value" in str(info.value)
    assert _THROUGH_ARGS in str(info.value) and "_passes_on(rhs)" in str(info.value)


def test_the_function_arguments_are_refused_by_the_shared_mechanism():
    """No fact of odeint's or solve_ivp's own refuses their function: rule instantiation
    refuses any function given where a rule has no derivative (tests/test_held_functions.py).
    The Jacobian's fact stays, beside the tolerances: its advice is its own."""
    assert "func" not in registry.lookup(odeint).refuses
    assert {"Dfun", "rtol", "atol"} <= set(registry.lookup(odeint).refuses)
    from s2sad.runtime.ode import ivp_solve
    assert "fun" not in registry.lookup(ivp_solve).refuses


# --- the advised rewrite: a module-level function, the values through args ------------------

def rewritten_odeint(a):
    return np.sum(odeint(field, Y0, TIMES, args=(a,), rtol=TIGHT, atol=TIGHT))


def rewritten_ivp(a):
    sol = solve_ivp(field_t_first, (0.0, 1.0), Y0, t_eval=TIMES, args=(a,), rtol=TIGHT,
                    atol=TIGHT)
    return np.sum(sol.y)


def constant_state(a):
    m = Decay(0.3)  # (holds no differentiated value)
    return np.sum(odeint(field, Y0 * a, TIMES, args=(m.a,), rtol=TIGHT, atol=TIGHT))


@pytest.mark.parametrize("func", [rewritten_odeint, rewritten_ivp, constant_state])
def test_the_advised_rewrite_has_the_right_gradient(func):
    expected = central_differences(func, (0.5,), 0, eps=1e-5)
    assert s2sad.grad(func)(0.5) == pytest.approx(float(expected), rel=1e-5)
    assert s2sad.jvp(func)(0.5)[1](1.0) == pytest.approx(float(expected), rel=1e-5)
    assert float(expected) != 0.0


# --- other calls that take a function: never a silent zero -----------------------------------

def apply_along_axis(a):
    m = Decay(a)
    return np.sum(np.apply_along_axis(m.scale, 0, Y0))  # <- here


def vectorized(a):
    m = Decay(a)
    v = np.vectorize(m.scale)
    return np.sum(v(Y0))  # <- here


def frompyfunc(a):
    m = Decay(a)
    v = np.frompyfunc(m.scale, 1, 1)
    return np.sum(v(Y0).astype(float))  # <- here


def piecewise(a):
    m = Decay(a)
    return np.sum(np.piecewise(Y0, [Y0 > 1.5], [m.scale, 0.0]))  # <- here


def minimize_scalar(a):
    m = Decay(a)
    found = optimize.minimize_scalar(m.scale, bounds=(0.0, 1.0), method="bounded")
    return found.fun  # <- here (the result's field read: refused, as the call would be)


def minimize(a):
    found = optimize.minimize(functools.partial(times, a=a), np.array([0.5]),
                              bounds=[(0.0, 1.0)])
    return found.fun  # <- here


def root(a):
    found = optimize.root(functools.partial(times, a=a), np.array([0.5]))
    return np.sum(found.x) + a  # <- here


def brentq(a):
    p = functools.partial(times, a=a)
    return optimize.brentq(p, -1.0, 1.0) + a  # <- here


def reduce_partial(a):
    p = functools.partial(times, a=a)
    return functools.reduce(np.add, map(p, [1.0, 2.0]))  # <- here


def mapped(a):
    m = Decay(a)
    return sum(map(m.scale, [1.0, 2.0]))  # <- here


def sorted_by_key(a):
    m = Decay(a)
    return sorted([1.0, 2.0], key=m.scale)[0] * a  # <- here


def quad_bound(a):
    m = Decay(a)
    return quad(m.scale, 0.0, 1.0)[0]  # <- here


def quad_partial(a):
    return quad(functools.partial(times, a=a), 0.0, 1.0)[0]  # <- here


@pytest.mark.parametrize("a", [0.5, -0.5])
def test_sorted_by_a_bound_method_is_exact(a):
    """sorted(..., key=m.scale) is written out (issue 35): the order its keys give (1.0
    first where a > 0), the gradient through the item picked; no longer refused."""
    expected = 1.0 if a > 0 else 2.0
    assert s2sad.grad(sorted_by_key)(a) == pytest.approx(expected, rel=1e-12)
    assert s2sad.jvp(sorted_by_key)(a)[1](1.0) == pytest.approx(expected, rel=1e-12)
    assert float(central_differences(sorted_by_key, (a,), 0)) == pytest.approx(expected)


@pytest.mark.parametrize("func", [apply_along_axis, vectorized, frompyfunc, piecewise,
                                  minimize_scalar, minimize, root, brentq,
                                  mapped, quad_bound, quad_partial],
                         ids=lambda f: f.__name__)
def test_other_calls_taking_an_active_function_are_refused(func):
    float(func(0.5))  # (valid Python)
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(func)(0.5)
    assert info.value.lineno == _line(func)
    assert "depends on the differentiated argument" in str(info.value)
    with pytest.raises(s2sad.NoDerivativeError):
        s2sad.jvp(func)(0.5)[1](1.0)


def test_reduce_of_a_partial_is_differentiated():
    """functools.reduce is written in s2sad.implementations (fix/refuse29): the fold of
    np.add over map(p, ...) is differentiated, no longer refused."""
    assert s2sad.grad(reduce_partial)(0.5) == pytest.approx(
        float(central_differences(reduce_partial, (0.5,), 0)), rel=1e-8)
