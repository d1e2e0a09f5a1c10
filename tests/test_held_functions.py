"""A function given to a rule as an argument the rule has no derivative in, the function
depending on the differentiated arguments (a bound method of an object holding them,
functools.partial of them, a callable object, one held in a list, a dict or a loop's
variable): refused at the user's line by the shared mechanism of rule instantiation
(``instantiate.held_function``), never taken as a constant (a gradient of 0.0). Any
rule gets it, a user's own included; numbers and arrays in such an argument (a shape)
are left alone. Also: a global list, tuple or dict whose arrays turn complex after the
gradient was built makes it be built again (``source.complex_held``)."""

import functools
import inspect
import operator

import numpy as np
import pytest

import s2sad
from s2sad import registry
from test_higher_order import central_differences


def sampled(f, x):
    """``f(2.0) * x``: ``f`` is read at one point, its derivative not taken."""
    return f(2.0) * x


@s2sad.custom_vjp(sampled)
def sampled_vjp(g, ans, f, x):
    return None, g * f(2.0)


@s2sad.custom_jvp(sampled)
def sampled_jvp(g, ans, f, x):
    return None, g * f(2.0)


def cube(v):
    return v ** 3


def times(v, a):
    return a * v


class Scale:
    def __init__(self, a):
        self.a = a
        self.n = 3
        self.held = functools.partial(times, a=a)

    def __call__(self, v):
        return self.a * v

    def of(self, v):
        return self.a * v


def _line(func):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, text in enumerate(lines) if "# <- here" in text)


# --- a module-level function: differentiated through x, exactly --------------------------

def module_function(a):
    return sampled(cube, a * a)


def module_function_in_a_list(a):
    fs = [cube, np.sin]
    return sampled(fs[0], a) + sampled(fs[1], a)


def partial_of_constants(a):
    """A partial holding no differentiated value, passed to a function with a custom rule
    (called, not inlined): the partial object itself reaches it."""
    p = functools.partial(times, a=3.0)
    return sampled(p, a * a)


@pytest.mark.parametrize("func", [module_function, module_function_in_a_list,
                                  partial_of_constants],
                         ids=lambda f: f.__name__)
def test_a_function_holding_no_differentiated_value_is_exact(func):
    expected = float(central_differences(func, (0.7,), 0, eps=1e-6))
    assert s2sad.grad(func)(0.7) == pytest.approx(expected, rel=1e-7)
    assert s2sad.jvp(func)(0.7)[1](1.0) == pytest.approx(expected, rel=1e-7)
    assert "check_no_function" not in s2sad.grad(func).source_for(0.7)


# --- a function holding the differentiated value: refused --------------------------------

def bound_method(a):
    m = Scale(a)
    return sampled(m.of, 1.5)  # <- here


def partial(a):
    p = functools.partial(times, a=a)
    return sampled(p, 1.5)  # <- here


def callable_object(a):
    m = Scale(a)
    return sampled(m, 1.5)  # <- here


def held_in_a_list(a):
    fs = [functools.partial(times, a=a)]
    return sampled(fs[0], 1.5)  # <- here


def held_in_a_dict(a):
    fs = {"f": functools.partial(times, a=a)}
    return sampled(fs["f"], 1.5)  # <- here


def a_loop_variable(a):
    s = 0.0
    for f in [functools.partial(times, a=a)]:
        s = s + sampled(f, 1.5)  # <- here
    return s


def an_attribute_holding_one(a):
    m = Scale(a)
    return sampled(m.held, 1.5)  # <- here


def through_getattr(a):
    m = Scale(a)
    return sampled(getattr(m, "of"), 1.5)  # <- here


def in_a_loop(a):
    m = Scale(a)
    s = 0.0
    for i in range(3):
        s = s + sampled(m.of, float(i))  # <- here
    return s


REFUSED = [bound_method, partial, callable_object, held_in_a_list, held_in_a_dict,
           a_loop_variable, an_attribute_holding_one, through_getattr]


@pytest.mark.parametrize("func", REFUSED, ids=lambda f: f.__name__)
def test_a_function_holding_the_value_is_refused_at_the_line(func):
    """Before: the rule's None taken as no dependence, a gradient of 0.0."""
    assert float(central_differences(func, (0.7,), 0, eps=1e-6)) != 0.0
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(func)(0.7)
    assert info.value.lineno == _line(func)
    assert "has no derivative with respect to its argument 'f'" in str(info.value)
    assert "what the function itself holds" in str(info.value)
    assert "pass the values it reads through args=(...)" in str(info.value)


def test_in_a_loop_too():
    """(The loop's sweep asks for ``m.of``'s sensitivity: refused there, at the line.)"""
    assert float(central_differences(in_a_loop, (0.7,), 0, eps=1e-6)) != 0.0
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(in_a_loop)(0.7)
    assert info.value.lineno == _line(in_a_loop)


@pytest.mark.parametrize("func", REFUSED + [in_a_loop], ids=lambda f: f.__name__)
def test_forward_mode_refuses_them_too(func):
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.jvp(func)(0.7)[1](1.0)
    assert info.value.filename == __file__


def test_a_function_made_on_the_line_is_refused_when_built():
    """``functools.partial`` and callable objects are known to be functions before the
    gradient runs: no check in the generated code, an error when it is built."""
    for func, what in ((partial, "functools.partial object"),
                       (callable_object, "test_held_functions.Scale object, which is callable")):
        with pytest.raises(s2sad.NoDerivativeError, match=what):
            s2sad.grad(func).source_for(0.7)


def test_a_function_read_from_an_object_is_checked_when_it_runs():
    """``m.of`` may be a function or data: the generated code checks it (a function, here
    the bound method, is refused; data passes)."""
    text = s2sad.grad(bound_method, optimize=False).source_for(0.7)
    assert "check_no_function(" in text
    with pytest.raises(s2sad.NoDerivativeError, match="the bound method Scale.of"):
        s2sad.grad(bound_method)(0.7)


# --- data in an argument with no derivative: left alone ----------------------------------

def shape_read_from_an_object(a):
    m = Scale(a)
    return np.sum(np.zeros(m.n) + a)


def shape_of_an_array(a):
    x = np.array([a, 2.0 * a])
    return np.sum(np.full_like(x, 3.0) * x)


@pytest.mark.parametrize("func", [shape_read_from_an_object, shape_of_an_array],
                         ids=lambda f: f.__name__)
def test_data_where_the_rule_has_no_derivative_is_not_refused(func):
    expected = float(central_differences(func, (0.7,), 0, eps=1e-6))
    assert s2sad.grad(func)(0.7) == pytest.approx(expected, rel=1e-7)


def test_full_likes_shape_argument_gets_no_check():
    assert "check_no_function" not in s2sad.grad(shape_of_an_array,
                                                 optimize=False).source_for(0.7)


def test_the_check_is_the_shared_mechanisms_not_a_fact_of_odeint():
    """odeint and solve_ivp's function arguments need no fact of their own any more
    (tests/test_callable_arguments.py: the same refusals); the Jacobian's stays, with
    its own advice."""
    integrate = pytest.importorskip("scipy.integrate")
    assert "func" not in registry.lookup(integrate.odeint).refuses
    assert "Dfun" in registry.lookup(integrate.odeint).refuses
    assert registry.lookup(sampled).refuses == {}


# --- other calls taking a function: refused or exact, never a silent zero ----------------

def _reduce(a):
    return functools.reduce(operator.mul, [a, a, 2.0])


def _map(a):
    return sum(map(cube, [a, 2.0]))


def _sorted_key(a):
    return sorted([a, 0.5, 3.0], key=abs)[1] * 2.0


def _max_key(a):
    m = Scale(a)
    return max([1.0, 2.0, a], key=m.of)


def _apply_along_axis(a):
    return np.sum(np.apply_along_axis(np.sum, 0, np.array([[a, 2.0], [3.0, a]])))


def _apply_over_axes(a):
    return np.sum(np.apply_over_axes(np.sum, np.array([[a, 2.0], [3.0, a]]), [0]))


def _vectorize(a):
    return np.sum(np.vectorize(cube)(np.array([a, 2.0])))


def _frompyfunc(a):
    return np.sum(np.frompyfunc(cube, 1, 1)(np.array([a, 2.0])).astype(float))


def _fromfunction(a):
    return np.sum(np.fromfunction(lambda i, j: i * a + j, (2, 2)))


def _piecewise_functions(a):
    x = np.array([0.5, 2.0])
    return np.sum(np.piecewise(x, [x > 1.0], [lambda v: v * a, lambda v: v]))


def _piecewise_values(a):
    x = np.array([0.5, 2.0]) * a
    return np.sum(np.piecewise(x, [x > 1.0], [a, 2.0 * a]))


def _accumulate(a):
    import itertools
    return sum(itertools.accumulate([a, 2.0, a], operator.mul))


def _filter(a):
    return sum(filter(lambda v: v > 0.1, [a, -1.0, 2.0 * a]))


def _quad(a):
    from scipy import integrate
    return integrate.quad(cube, 0.0, a)[0]


def _quad_args(a):
    from scipy import integrate
    return integrate.quad(times, 0.0, 1.0, args=(a,))[0]


def _brentq(a):
    from scipy import optimize
    return optimize.brentq(times, -1.0, 1.0, args=(a,)) + a


def _minimize(a):
    from scipy import optimize
    return optimize.minimize(lambda x: (x[0] - a) ** 2, np.array([0.0])).x[0]


def _odeint_array_args(a):
    from scipy import integrate
    return np.sum(integrate.odeint(_field, np.array([1.0, 2.0]), np.array([0.0, 1.0]),
                                   args=(np.array([a, 1.0]),), rtol=1e-11, atol=1e-11))


def _field(y, t, p):
    return -p[0] * y


def _odeint_object_args(a):
    from scipy import integrate
    return np.sum(integrate.odeint(_field_of, np.array([1.0, 2.0]), np.array([0.0, 1.0]),
                                   args=(Scale(a),)))


def _field_of(y, t, m):
    return -m.a * y


OTHERS = [_reduce, _map, _sorted_key, _max_key, _apply_along_axis, _apply_over_axes,
          _vectorize, _frompyfunc, _fromfunction, _piecewise_functions, _piecewise_values,
          _accumulate, _filter, _quad, _quad_args, _brentq, _minimize, _odeint_array_args,
          _odeint_object_args]


@pytest.mark.parametrize("func", OTHERS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_calls_taking_a_function_are_refused_or_exact(func, mode):
    if func.__name__ in ("_quad", "_quad_args", "_brentq", "_minimize", "_odeint_array_args",
                         "_odeint_object_args"):
        pytest.importorskip("scipy")
    expected = float(central_differences(func, (0.7,), 0, eps=1e-6))
    try:
        found = s2sad.grad(func)(0.7) if mode == "grad" else s2sad.jvp(func)(0.7)[1](1.0)
    except (s2sad.NoDerivativeError, s2sad.UnsupportedSyntaxError,
            s2sad.DifferentiationError) as refused:
        assert refused.lineno is not None and refused.filename == __file__
        return
    assert float(found) == pytest.approx(expected, rel=1e-5, abs=1e-8)


# --- a global list, tuple or dict whose arrays turn complex ------------------------------

REAL = np.array([1.0, 2.0])
COMPLEX = np.array([1.0 + 2.0j, 2.0 - 1.0j])
WS = [REAL.copy(), REAL.copy()]
PS = {"w": REAL.copy()}
TS = (REAL.copy(),)
HELD = [REAL.copy()]


def item_of_a_list(x):
    return np.sum(np.abs(WS[0] * x))


def item_of_a_dict(x):
    return np.sum(np.abs(PS["w"] * x))


def item_of_a_tuple(x):
    return np.sum(np.abs(TS[0] * x))


def items_in_a_loop(x):
    s = 0.0
    for w in WS:
        s = s + np.sum(np.abs(w * x))
    return s


def _reset():
    global TS
    WS[0], WS[1], PS["w"], TS, HELD[0] = REAL.copy(), REAL.copy(), REAL.copy(), \
        (REAL.copy(),), COMPLEX.copy()


def _make_complex_tuple():
    global TS
    TS = (COMPLEX.copy(),)


X = np.array([0.3, 0.7])


@pytest.mark.parametrize("func, change", [
    (item_of_a_list, lambda: WS.__setitem__(0, COMPLEX.copy())),
    (item_of_a_dict, lambda: PS.__setitem__("w", COMPLEX.copy())),
    (item_of_a_tuple, _make_complex_tuple),
    (items_in_a_loop, lambda: WS.__setitem__(1, COMPLEX.copy())),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_global_containers_array_turned_complex_rebuilds_the_gradient(func, change):
    """Before: the real program's gradient ran on the complex array (wrong numbers)."""
    _reset()
    try:
        g = s2sad.grad(func)
        np.testing.assert_allclose(g(X), central_differences(func, (X,), 0), rtol=1e-6)
        change()
        np.testing.assert_allclose(g(X), central_differences(func, (X,), 0), rtol=1e-6)
        assert "np.conj" in g.source_for(X)  # (the complex rule of abs)
    finally:
        _reset()


def complex_from_the_start(x):
    return np.sum(np.abs(HELD[0] * x))


def test_a_global_list_holding_a_complex_array_is_a_complex_program():
    """Before: the real rules ran on it (the gradient of |w x| taken as sign(w x) w)."""
    _reset()
    np.testing.assert_allclose(s2sad.grad(complex_from_the_start)(X),
                               central_differences(complex_from_the_start, (X,), 0),
                               rtol=1e-6)


def test_a_closures_list_turned_complex_rebuilds_the_gradient():
    held = [REAL.copy()]

    def f(x):
        return np.sum(np.abs(held[0] * x))
    g = s2sad.grad(f)
    np.testing.assert_allclose(g(X), central_differences(f, (X,), 0), rtol=1e-6)
    held[0] = COMPLEX.copy()
    np.testing.assert_allclose(g(X), central_differences(f, (X,), 0), rtol=1e-6)


# --- a loop over a module's dict or set: its keys, as Python walks it -------------------

COUNTS = {0: 10.0, 1: 20.0}
WEIGHTS = {"w": np.array([1.0, 2.0]), "v": np.array([-1.0, 0.5])}
FACTORS = {3.0, 0.5}


def over_int_keys(x):
    s = 0.0
    for k in COUNTS:
        s = s + k * x
    return s


def over_str_keys(x):
    s = 0.0
    for k in WEIGHTS:
        s = s + np.sum(np.sin(WEIGHTS[k] * x))
    return s


def over_a_set(x):
    s = 0.0
    for k in FACTORS:
        s = s + k * x
    return s


@pytest.mark.parametrize("func, arg", [(over_int_keys, 2.0), (over_str_keys, X),
                                       (over_a_set, 2.0)], ids=lambda v: getattr(v, "__name__", ""))
def test_a_loop_over_a_modules_dict_walks_its_keys(func, arg):
    """Before: walked by index, ``COUNTS[i]`` read a value for the key (a gradient of 30.0
    for 1.0), or failed (``KeyError: 0``; a set is not subscriptable)."""
    expected = central_differences(func, (arg,), 0)
    try:
        found = s2sad.grad(func)(arg)
    except s2sad.NoDerivativeError as refused:  # (never a wrong number)
        assert refused.lineno is not None and func is over_a_set
        return
    np.testing.assert_allclose(found, expected, rtol=1e-6)
