"""scipy.integrate.odeint and solve_ivp with a right-hand side of the user's: gradients in
the initial state, the parameters passed in ``args`` and the times, against central
differences of tightly solved problems and against s2sad's gradient of a fixed-step RK4
written in Python; forward mode against reverse; refusals at the user's line (skipped
where SciPy is missing)."""

import inspect

import numpy as np
import pytest

integrate = pytest.importorskip("scipy.integrate")

import s2sad  # noqa: E402
from test_higher_order import central_differences  # noqa: E402

odeint, solve_ivp = integrate.odeint, integrate.solve_ivp
TIGHT = 1e-11
Y0 = np.array([1.0, -0.5])
K = np.array([0.7, 0.3])
TIMES = np.array([0.0, 0.4, 1.1, 2.0])
T_EVAL = np.array([0.3, 0.9, 1.6, 2.0])


# --- right-hand sides ------------------------------------------------------------------------

def field(y, t, k, c):
    """A damped, driven, nonlinear oscillator: ``k`` an array, ``c`` a float."""
    return np.array([y[1], -k[0] * np.sin(y[0]) - k[1] * y[1] + c * np.cos(t)])


def field_t_first(t, y, k, c):
    return field(y, t, k, c)


def mlp_field(t, y, w1, b1, w2):
    return np.tanh(y @ w1 + b1) @ w2


# --- differentiated functions ----------------------------------------------------------------

def odeint_loss(y0, k, c, t):
    ys = odeint(field, y0, t, args=(k, c), rtol=TIGHT, atol=TIGHT)
    return np.sum(ys ** 2 * np.array([1.0, 0.5]))


def odeint_t_first(y0, k, c, t):
    ys = odeint(field_t_first, y0, t, args=(k, c), rtol=TIGHT, atol=TIGHT, tfirst=True)
    return np.sum(np.sin(ys))


def ivp_loss(y0, k, c, t_eval):
    sol = solve_ivp(field_t_first, (0.0, 2.5), y0, args=(k, c), t_eval=t_eval, rtol=TIGHT,
                    atol=TIGHT)
    return np.sum(sol.y ** 2 * np.array([[1.0], [0.5]])) + np.sum(np.cos(sol.t))


def ivp_method(y0, k, c, t_eval, method):
    sol = solve_ivp(field_t_first, (0.0, 2.5), y0, method=method, args=(k, c), t_eval=t_eval,
                    rtol=TIGHT, atol=TIGHT)
    return np.sum(sol.y[0] * sol.y[1])


def ivp_start(y0, k, c, t0):
    sol = solve_ivp(field_t_first, (t0, 2.0), y0, args=(k, c), t_eval=T_EVAL[1:], rtol=TIGHT,
                    atol=TIGHT)
    return np.sum(sol.y ** 2)


def ivp_end(y0, k, c):  # (the solver's own times: the last is t_span[1])
    sol = solve_ivp(field_t_first, (0.0, 2.0), y0, args=(k, c), rtol=TIGHT, atol=TIGHT)
    return np.sum(sol.y[:, -1] ** 2)


def neural_ode(w1, b1, w2, y0, data):
    sol = solve_ivp(mlp_field, (0.0, 1.0), y0, args=(w1, b1, w2), t_eval=T_EVAL / 2.0,
                    rtol=TIGHT, atol=TIGHT)
    return np.sum((sol.y.T - data) ** 2)


def rk4(y0, k, c, t_end, n):
    """The same problem, by a fixed-step RK4 written in Python (s2sad differentiates it)."""
    h = t_end / n
    y, t = y0, 0.0
    for _ in range(n):
        a = field(y, t, k, c)
        b = field(y + 0.5 * h * a, t + 0.5 * h, k, c)
        d = field(y + 0.5 * h * b, t + 0.5 * h, k, c)
        e = field(y + h * d, t + h, k, c)
        y = y + h / 6.0 * (a + 2.0 * b + 2.0 * d + e)
        t = t + h
    return np.sum(y ** 2)


def rk4_end(y0, k, c):
    return rk4(y0, k, c, 2.0, 200)


def odeint_end(y0, k, c):
    ys = odeint(field, y0, np.array([0.0, 2.0]), args=(k, c), rtol=TIGHT, atol=TIGHT)
    return np.sum(ys[-1] ** 2)


def ivp_to_end(y0, k, c):
    sol = solve_ivp(field_t_first, (0.0, 2.0), y0, method="DOP853", args=(k, c),
                    t_eval=np.array([2.0]), rtol=TIGHT, atol=TIGHT)
    return np.sum(sol.y[:, -1] ** 2)


grad_odeint_loss = s2sad.grad(odeint_loss, wrt=1)


def twice(y0, k, c, t):
    return grad_odeint_loss(y0, k, c, t)


def _check(func, args, wrt, rtol=1e-5, atol=1e-7):
    found = s2sad.grad(func, wrt=wrt)(*args)
    expected = central_differences(func, args, wrt, eps=1e-4)  # (the solvers' steps: noise
    # below 1e-5)
    np.testing.assert_allclose(found, expected, rtol=rtol, atol=atol)
    return found


# --- reverse mode against central differences ------------------------------------------------

@pytest.mark.parametrize("wrt", [0, 1, 2, 3], ids=["y0", "args-array", "args-float", "t"])
def test_odeint_gradient(wrt):
    _check(odeint_loss, (Y0, K, 0.4, TIMES), wrt)


@pytest.mark.parametrize("wrt", [0, 1, 3])
def test_odeint_t_first(wrt):
    _check(odeint_t_first, (Y0, K, 0.4, TIMES), wrt)


@pytest.mark.parametrize("wrt", [0, 1, 2, 3], ids=["y0", "args-array", "args-float", "t_eval"])
def test_solve_ivp_gradient(wrt):
    _check(ivp_loss, (Y0, K, 0.4, T_EVAL), wrt)


@pytest.mark.parametrize("method", ["RK45", "DOP853", "Radau", "LSODA"])
def test_solve_ivp_methods(method):
    for wrt in (0, 1):
        _check(ivp_method, (Y0, K, 0.4, T_EVAL, method), wrt, rtol=1e-5, atol=1e-6)


def test_solve_ivp_initial_and_final_times():
    _check(ivp_start, (Y0, K, 0.4, 0.1), 3)
    found = s2sad.grad(ivp_end, wrt=1)(Y0, K, 0.4)  # (the solver's times held: y0, args)
    np.testing.assert_allclose(found, central_differences(ivp_end, (Y0, K, 0.4), 1, 1e-4),
                               rtol=1e-5, atol=1e-6)


def test_neural_ode_parameters():
    r = np.random.default_rng(3)
    w1, b1, w2 = r.normal(size=(2, 4)) * 0.5, r.normal(size=4) * 0.1, r.normal(size=(4, 2))
    data = r.normal(size=(4, 2))
    args = (w1, b1, w2, Y0, data)
    for wrt in range(4):
        _check(neural_ode, args, wrt, rtol=1e-5, atol=1e-6)


# --- against a fixed-step RK4 differentiated by s2sad ------------------------------------------

@pytest.mark.parametrize("solved", [odeint_end, ivp_to_end], ids=["odeint", "solve_ivp"])
def test_adjoint_matches_differentiated_rk4(solved):
    for wrt in (0, 1, 2):
        expected = s2sad.grad(rk4_end, wrt=wrt)(Y0, K, 0.4)
        np.testing.assert_allclose(s2sad.grad(solved, wrt=wrt)(Y0, K, 0.4), expected,
                                   rtol=1e-6, atol=1e-8)


# --- forward mode ------------------------------------------------------------------------------

@pytest.mark.parametrize("func, args", [(odeint_loss, (Y0, K, 0.4, TIMES)),
                                        (odeint_t_first, (Y0, K, 0.4, TIMES)),
                                        (ivp_loss, (Y0, K, 0.4, T_EVAL))],
                         ids=["odeint", "tfirst", "solve_ivp"])
@pytest.mark.parametrize("wrt", [0, 1, 2, 3])
def test_forward_matches_reverse(func, args, wrt):
    direction = np.linspace(0.5, 1.5, np.size(args[wrt])).reshape(np.shape(args[wrt]))
    if np.ndim(args[wrt]) == 0:
        direction = 0.8
    tangent = s2sad.jvp(func, wrt=wrt)(*args)[1](direction)
    gradient = s2sad.grad(func, wrt=wrt)(*args)
    np.testing.assert_allclose(tangent, np.sum(gradient * direction), rtol=1e-6, atol=1e-8)


def test_forward_of_solve_ivp_start_time():
    tangent = s2sad.jvp(ivp_start, wrt=3)(Y0, K, 0.4, 0.1)[1](1.0)
    np.testing.assert_allclose(tangent, s2sad.grad(ivp_start, wrt=3)(Y0, K, 0.4, 0.1),
                               rtol=1e-6)


# --- kinds kept --------------------------------------------------------------------------------

def test_float32_initial_state_keeps_its_dtype():
    y0 = Y0.astype(np.float32)
    found = s2sad.grad(odeint_loss)(y0, K, 0.4, TIMES)
    assert found.dtype == np.float32 and found.shape == y0.shape
    found = s2sad.grad(ivp_loss)(y0, K, 0.4, T_EVAL)
    assert found.dtype == np.float32


def test_value_and_result_fields_are_solve_ivps():
    def report(y0, k, c):
        sol = solve_ivp(field_t_first, (0.0, 1.0), y0, args=(k, c))
        return np.sum(sol.y[:, -1]), (sol.success, sol.status, sol.message, sol.nfev)
    (value, aux), _ = s2sad.value_and_grad(report, has_aux=True)(Y0, K, 0.4)
    sol = solve_ivp(field_t_first, (0.0, 1.0), Y0, args=(K, 0.4))
    assert value == np.sum(sol.y[:, -1])
    assert aux == (sol.success, sol.status, sol.message, sol.nfev)


# --- refusals ----------------------------------------------------------------------------------

def nested(y0, c):
    def rhs(t, y):
        return -c * y
    sol = solve_ivp(rhs, (0.0, 1.0), y0)  # <- here
    return np.sum(sol.y)


def with_lambda(y0, c):
    sol = solve_ivp(lambda t, y: -c * y, (0.0, 1.0), y0)  # <- here
    return np.sum(sol.y)


def dense(y0, c):
    sol = solve_ivp(field_t_first, (0.0, 1.0), y0, args=(K, c), dense_output=True)  # <- here
    return np.sum(sol.y)


def events(y0, c):
    sol = solve_ivp(field_t_first, (0.0, 1.0), y0, args=(K, c), events=[])  # <- here
    return np.sum(sol.y)


def full_output(y0, c):
    ys, info = odeint(field, y0, TIMES, args=(K, c), full_output=True)  # <- here
    return np.sum(ys)


def nested_odeint(y0, c):
    def rhs(y, t):
        return -c * y
    return np.sum(odeint(rhs, y0, TIMES))  # <- here


def listed_args(y0, c):
    return np.sum(odeint(field, y0, TIMES, args=([0.7, c], c)))  # <- here


def _make_closure(k):
    def rhs(y, t, c):
        return field(y, t, k, c)
    return rhs


closure_rhs = _make_closure(K)  # (module level, but holding K: its derivative would be lost)


def module_closure(y0, c):
    return np.sum(odeint(closure_rhs, y0, TIMES, args=(c,)))  # <- here


def _line(func):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, text in enumerate(lines) if "# <- here" in text)


@pytest.mark.parametrize("func, error, message, advice", [
    (nested, s2sad.DifferentiationError, "not a nested function or a lambda",
     "pass the values it reads through args=(...)"),
    (with_lambda, s2sad.DifferentiationError, "not a nested function or a lambda",
     "pass the values it reads through args=(...)"),
    (dense, s2sad.DifferentiationError, "only, not dense_output", "Sample the solution with "
     "t_eval"),
    (events, s2sad.DifferentiationError, "only, not events", "dense_output, events and "
     "vectorized are not modeled"),
    (full_output, s2sad.NoDerivativeError, "full_output 0 or False, not True",
     "call it without full_output"),
    (nested_odeint, s2sad.DifferentiationError, "the function 'rhs', defined inside the "
     "differentiated function, used as a value", "pass the values it reads through args=(...)"),
], ids=["nested", "lambda", "dense_output", "events", "full_output", "odeint-nested"])
def test_refused_at_the_users_line(func, error, message, advice):
    for derivative in (s2sad.grad, lambda f: (lambda *a: s2sad.jvp(f)(*a)[1](Y0))):
        with pytest.raises(error) as info:
            derivative(func)(Y0, 0.4)
        assert info.value.lineno == _line(func)
        assert message in str(info.value) and advice in str(info.value)


@pytest.mark.parametrize("func, message, advice", [
    (listed_args, "args given as real arrays and floats, not list",
     "Pass each parameter in args as a float or a real NumPy array"),
    (module_closure, "right-hand side is a plain function",
     "pass the values it reads through args=(...)"),
], ids=["listed-args", "closure"])
def test_what_the_derivatives_would_not_see_is_refused_when_they_run(func, message, advice):
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(func, wrt=1)(Y0, 0.4)
    assert info.value.lineno == _line(func)  # (forward mode: the same error, unlocated)
    assert message in str(info.value) and advice in str(info.value)
    with pytest.raises(s2sad.NoDerivativeError, match=message):
        s2sad.jvp(func, wrt=1)(Y0, 0.4)[1](1.0)


def test_second_derivative_is_refused_when_it_runs():
    with pytest.raises(s2sad.NoDerivativeError, match="the adjoint of scipy.integrate.odeint"):
        s2sad.jvp(twice, wrt=1)(Y0, K, 0.4, TIMES)[1](np.ones(2))
