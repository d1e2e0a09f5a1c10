"""Issue 34, session 27: ``scipy.special.logsumexp(..., return_sign=True)``, and the ODE
helpers' higher derivatives declared once each (``registry.defunwritten``).

``logsumexp`` with ``return_sign=True`` returns ``(log|s|, sign(s))`` for
``s = sum(b * exp(a))``: the gradient of ``log|s|`` in ``a`` and ``b`` against central
differences in float64, reverse against forward mode, second order, float32 kept,
broadcasting of ``b``; the sign's derivative is zero, and where ``s`` is 0 the derivative
does not exist: NaN, never a finite number.
"""

import inspect
import warnings

import numpy as np
import pytest

sc = pytest.importorskip("scipy.special")
integrate = pytest.importorskip("scipy.integrate")

import s2sad  # noqa: E402
from s2sad import registry  # noqa: E402
from s2sad.runtime import ode  # noqa: E402
from test_higher_order import central_differences  # noqa: E402

M = np.array([[0.3, -0.7, 1.4], [0.1, 0.5, -0.2]])
B = np.array([1.0, -0.5, 0.2])  # weights of both signs: the row sums 0.79 and -0.22
WB = np.array([[1.0, -0.5, 0.2], [0.4, -2.0, 0.3]])


# --- logsumexp(return_sign=True) ----------------------------------------------------------

def signed_all(a):
    r, s = sc.logsumexp(a, b=WB, return_sign=True)
    return r * s + r * r


def signed_rows(a, b):
    r, s = sc.logsumexp(a, axis=1, b=b, return_sign=True)  # (b broadcast over the rows)
    return np.sum(r * s * np.array([1.0, -2.0]) + np.sin(r))


def signed_columns(a, b):
    r, s = sc.logsumexp(a, axis=0, b=b, keepdims=True, return_sign=True)
    return np.sum(r * np.array([[0.5, 1.0, -1.5]]) * s)


def signed_positional(a):
    r, s = sc.logsumexp(a, 1, WB, False, True)
    return np.sum(r * s)


def signed_unweighted(a):
    res = sc.logsumexp(a, axis=-1, return_sign=True)
    return np.sum(res[0] * res[1] * np.array([2.0, 1.0]))


CASES = [(signed_all, (M,)), (signed_rows, (M, B)), (signed_columns, (M, WB)),
         (signed_positional, (M,)), (signed_unweighted, (M,))]
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_return_sign_gradient_against_central_differences(f, args):
    wrt = tuple(range(len(args)))
    found = s2sad.grad(f, wrt=wrt)(*args)
    found = found if isinstance(found, tuple) else (found,)
    for i, g in zip(wrt, found):
        np.testing.assert_allclose(g, central_differences(f, args, i), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_return_sign_forward_mode_is_reverse_mode(f, args):
    wrt = tuple(range(len(args)))
    tangents = [np.cos(np.arange(np.size(a)) + 0.3).reshape(np.shape(a)) for a in args]
    _, push = s2sad.jvp(f, wrt=wrt)(*args)
    found = s2sad.grad(f, wrt=wrt)(*args)
    found = found if isinstance(found, tuple) else (found,)
    expected = sum(np.sum(g * t) for g, t in zip(found, tangents))
    np.testing.assert_allclose(push(*tangents), expected, rtol=1e-10)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_return_sign_second_order(f, args):
    s2sad.check_grads(f, args, order=2)
    grad = s2sad.grad(f, wrt=0)
    hessian = s2sad.jacobian(grad)(*args)
    expected = central_differences(grad, args, 0)  # (a Hessian: symmetric)
    np.testing.assert_allclose(np.reshape(hessian, expected.shape), expected, rtol=1e-5,
                               atol=1e-7)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_return_sign_keeps_float32(f, args):
    args32 = tuple(a.astype(np.float32) for a in args)
    wrt = tuple(range(len(args)))
    found = s2sad.grad(f, wrt=wrt)(*args32)
    found = found if isinstance(found, tuple) else (found,)
    assert [g.dtype for g in found] == [np.float32] * len(args)
    _, push = s2sad.jvp(f, wrt=wrt)(*args32)  # (the tangent in the value's dtype,
    assert np.asarray(push(*args32)).dtype == np.asarray(f(*args32)).dtype  # NumPy's)


def sign_alone(a):
    return np.sum(sc.logsumexp(a, axis=1, b=WB, return_sign=True)[1] * a[:, 0])


def test_the_sign_is_a_constant():
    # (only a[:, 0], the factor, carries a derivative: the sign's is zero)
    expected = np.zeros_like(M)
    expected[:, 0] = np.sign(np.sum(WB * np.exp(M), axis=1))
    np.testing.assert_array_equal(s2sad.grad(sign_alone)(M), expected)
    np.testing.assert_array_equal(s2sad.jvp(sign_alone)(M)[1](np.ones_like(M)),
                                  np.sum(expected))


def cancelled(a):
    r, s = sc.logsumexp(a, b=np.array([1.0, -1.0]), return_sign=True)
    return r * s


def test_where_the_sum_is_zero_the_derivative_is_nan():
    a = np.array([0.4, 0.4])  # exp(0.4) - exp(0.4) = 0: log|s| = -inf, no derivative
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.all(np.isnan(s2sad.grad(cancelled)(a)))
        assert np.isnan(s2sad.jvp(cancelled)(a)[1](np.array([1.0, 0.0])))


def plain(a):
    return np.sum(sc.logsumexp(a, axis=1, b=np.abs(WB)) * np.array([1.0, 3.0]))


def test_without_return_sign_the_code_is_as_before():
    # (the rule folds return_sign=False away: no tuple, no sign, the softmax weights alone)
    source = s2sad.grad(plain).source_for(M)
    assert "[0]" not in source and "[1]" not in source
    np.testing.assert_allclose(s2sad.grad(plain)(M), central_differences(plain, (M,), 0),
                               rtol=1e-6, atol=1e-8)


def flag_varies(a, flag):
    r = sc.logsumexp(a, b=WB, return_sign=flag)
    return np.sum(r)


def test_a_return_sign_known_only_when_it_runs_is_read_then():
    # (the kind of its result is not known: read as anything, not as an array)
    np.testing.assert_allclose(s2sad.grad(flag_varies)(M, False),
                               central_differences(lambda a: flag_varies(a, False), (M,), 0),
                               rtol=1e-6, atol=1e-8)


# --- the ODE helpers' higher derivatives: one declaration each ------------------------------

HELPERS = [(ode.odeint_grads, "the adjoint of scipy.integrate.odeint"),
           (ode.odeint_time_grads, "the adjoint of scipy.integrate.odeint"),
           (ode.odeint_tangent, "the tangent of scipy.integrate.odeint"),
           (ode.ivp_grads, "the adjoint of scipy.integrate.solve_ivp"),
           (ode.ivp_time_grads, "the adjoint of scipy.integrate.solve_ivp"),
           (ode.ivp_span_grads, "the adjoint of scipy.integrate.solve_ivp"),
           (ode.ivp_tangent, "the tangent of scipy.integrate.solve_ivp")]


@pytest.mark.parametrize("helper, what", HELPERS, ids=[h.__name__ for h, _ in HELPERS])
def test_each_ode_helper_refuses_its_higher_derivative_in_its_arguments_alone(helper, what):
    rule = registry.lookup(helper)
    assert rule.tangent is rule.adjoint  # (one rule, in both modes)
    pre, returned = rule.parsed()  # (source the inliner reads)
    assert pre == []
    params = list(inspect.signature(helper).parameters)
    text = inspect.getsource(rule.adjoint)
    for name in params:
        refused = f"not_differentiable_yet({what!r}, {name!r})" in text
        assert refused == (name not in ("func", "fun", "options") and
                           not (helper is ode.ivp_tangent and name == "ans")), name
    assert len(returned.elts) == len(params)
    with pytest.raises(s2sad.NoDerivativeError, match=what):
        rule.adjoint(*([None] * (len(params) + 2)))


def decay(y, t, k):
    return -k * y


def ode_loss(k):
    ys = integrate.odeint(decay, np.array([1.0, 0.5]), np.array([0.0, 0.5, 1.0]), args=(k,),
                          rtol=1e-10, atol=1e-10)
    return np.sum(ys[-1] ** 2)


def ivp_rhs(t, y, k):
    return -k * y


def ivp_loss(k):
    sol = integrate.solve_ivp(ivp_rhs, (0.0, 1.0), np.array([1.0, 0.5]), args=(k,),
                              t_eval=np.array([1.0]), rtol=1e-10, atol=1e-10)
    return np.sum(sol.y[:, -1] ** 2)


@pytest.mark.parametrize("loss", [ode_loss, ivp_loss])
def test_second_order_through_the_solvers_is_refused_when_it_runs(loss):
    # first order is exact; a Hessian-vector product needs the adjoint sweep's own
    # derivative, not written yet (see the report of session 27)
    np.testing.assert_allclose(s2sad.grad(loss)(0.7), central_differences(loss, (0.7,), 0),
                               rtol=1e-5)
    with pytest.raises(s2sad.NoDerivativeError, match="scipy.integrate") as info:
        s2sad.hvp(loss)(0.7, 1.0)
    assert "finite differences or s2sad.jvp" in str(info.value)


# --- np.piecewise with functions: each called on the entries its condition selects ----------

X = np.array([0.3, -0.7, 1.4, 0.9, -0.2])
WX = np.array([1.0, -2.0, 0.5, 3.0, 1.5])


def cube(v):
    return v ** 3


def pw_lambda_and_ufunc(x):
    return np.sum(np.piecewise(x, [x < 0.0], [lambda v: v * v, np.sin]) * WX)


def pw_default_and_value(x):
    # two conditions and three items: the last is the default, where neither holds
    y = np.piecewise(x, [x < 0.0, x > 1.0], [cube, lambda v: np.exp(v), 0.5])
    return np.sum(y * x)


def pw_later_wins(x):
    # where both conditions hold (0 < x < 1), the later function's value is kept
    f = lambda v: v ** 3  # noqa: E731
    return np.sum(np.piecewise(x, [x < 1.0, x > 0.0], [f, np.cos]) * WX)


def pw_closure(x):
    k = x[0] * 2.0  # (the lambda reads a differentiated value of the function's)
    return np.sum(np.piecewise(x, [x < 0.0], [lambda v: v * k, np.tanh]))


def pw_value_with_derivative(x):
    return np.sum(np.piecewise(x, [x > 0.5], [np.log, x[1] * 3.0]) * WX)


def _pw_helper(x):
    return np.piecewise(x, [x < 0.0], [lambda v: v * v, np.sin])


def pw_in_a_helper(x):
    return np.sum(_pw_helper(x) * WX)


def pw_matrix(x):
    m = x[:4].reshape(2, 2)
    return np.sum(np.piecewise(m, [m > 0.5], [np.sqrt, lambda v: v * v - v]) ** 2)


def pw_no_entry_selected(x):
    # no entry is below -5: NumPy does not call v[0] on the empty selection, nor does s2sad
    return np.sum(np.piecewise(x, [x < -5.0], [lambda v: v[0] * v, np.sin]))


def pw_local_def(x):
    def half(v):
        return v * 0.5 * x[0]
    return np.sum(np.piecewise(x, [x < 0.0], [half, np.sin]) * WX)


def pw_two_in_a_statement(x):
    return np.sum(np.piecewise(x, [x < 0.0], [np.sin, np.cos]) *
                  np.piecewise(x, [x < 0.5], [np.exp, lambda v: v]))


def pw_in_an_if_test(x):
    if np.sum(np.piecewise(x, [x < 0.0], [np.sin, np.cos])) > 0.0:
        return np.sum(x * x * WX)
    return np.sum(x)


def pw_local_ufunc(x):
    g = np.sin  # (a local name given a function: a function of funclist, not a value)
    return np.sum(np.piecewise(x, [x < 0.0], [g, lambda v: v * v]) * WX)


PIECES = [pw_local_ufunc, pw_lambda_and_ufunc, pw_default_and_value, pw_later_wins, pw_closure,
          pw_value_with_derivative, pw_in_a_helper, pw_matrix, pw_no_entry_selected,
          pw_local_def, pw_two_in_a_statement, pw_in_an_if_test]


@pytest.mark.parametrize("f", PIECES, ids=[f.__name__ for f in PIECES])
def test_piecewise_gradient_against_central_differences(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central_differences(f, (X,), 0), rtol=1e-6,
                               atol=1e-8)
    # (the value is NumPy's own)
    assert s2sad.value_and_grad(f)(X)[0] == f(X)


@pytest.mark.parametrize("f", PIECES, ids=[f.__name__ for f in PIECES])
def test_piecewise_forward_mode_and_second_order(f):
    t = np.cos(np.arange(X.size) + 0.5)
    _, push = s2sad.jvp(f)(X)
    np.testing.assert_allclose(push(t), np.sum(s2sad.grad(f)(X) * t), rtol=1e-10)
    s2sad.check_grads(f, (X,), order=2)


@pytest.mark.parametrize("f", PIECES[::2], ids=[f.__name__ for f in PIECES[::2]])
def test_piecewise_keeps_float32(f):
    x32 = X.astype(np.float32)
    assert s2sad.grad(f)(x32).dtype == np.float32


def test_piecewise_of_integers_truncates_as_numpy_does():
    def pw_int(x):  # (an integer x: y is an integer array, its stores truncate)
        return np.sum(np.piecewise(np.arange(4), [np.arange(4) < 2], [lambda v: v * 0.5, 1.7])
                      * x[:4])
    np.testing.assert_array_equal(s2sad.grad(pw_int)(X)[:4], np.piecewise(
        np.arange(4), [np.arange(4) < 2], [lambda v: v * 0.5, 1.7]))


def _line(func):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, text in enumerate(lines) if "# <- here" in text)


def pw_in_a_branch(x):
    return np.sum(x if x[0] > 5.0 else np.piecewise(x, [x < 0.0], [np.sin, np.cos]))  # <- here


def pw_after_a_call(x):
    # (an item updated by `+=` is read before np.sum runs: still refused; the plain case,
    # `np.sum(x) + np.sum(np.piecewise(...))`, is modelled since session 28:
    # tests/test_overrefusals_s28.py)
    y = np.zeros(2)
    y[0] += np.sum(x) + np.sum(np.piecewise(x, [x < 0.0], [np.sin, np.cos]))  # <- here
    return y[0]


def pw_in_a_comprehension(x):
    return sum([np.sum(np.piecewise(x, [x < a], [np.sin, np.cos])) for a in (0.0, 1.0)])  # <- here


def pw_extra_arguments(x):
    return np.sum(np.piecewise(x, [x < 0.0], [lambda v, k: v * k, np.sin], 2.0))  # <- here


@pytest.mark.parametrize("func, message", [
    (pw_in_a_branch, "evaluated conditionally or more than once"),
    (pw_after_a_call, "is read before another call in it runs"),
    (pw_in_a_comprehension, "evaluated conditionally or more than once"),
    (pw_extra_arguments, "functions of x alone, not their extra arguments"),
], ids=["branch", "after-a-call", "comprehension", "extra-arguments"])
def test_piecewise_it_cannot_write_out_is_refused_at_the_line(func, message):
    for derivative in (s2sad.grad, lambda f: (lambda a: s2sad.jvp(f)(a)[1](a))):
        with pytest.raises(s2sad.DifferentiationError) as info:
            derivative(func)(X)
        assert info.value.lineno == _line(func)
        assert message in str(info.value)
        assert "Assign np.piecewise(...) to a name" in str(info.value) or \
            "lambda v: f(v, a)" in str(info.value)


def pw_assigned_first(x):
    y = np.piecewise(x, [x < 0.0], [np.sin, np.cos])
    return np.sum(x) + np.sum(y)


def test_the_advice_works():
    np.testing.assert_allclose(s2sad.grad(pw_assigned_first)(X),
                               central_differences(pw_assigned_first, (X,), 0), rtol=1e-6)


def pw_values_only(x):
    return np.sum(np.piecewise(x, [x > 0.0], [x[0], 0.5]) * x)


def test_piecewise_of_values_alone_keeps_its_stand_in():
    # (no function in funclist: the generated code is the stand-in's, as before)
    assert "y_pw" not in s2sad.grad(pw_values_only).source_for(X)


def pw_of_a_number(x):
    return np.piecewise(x[0], [x[0] < 0.0], [np.sin, np.cos]) * x[1]  # <- here


def test_piecewise_with_functions_of_a_number_is_refused_at_the_line():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(pw_of_a_number)(X)
    assert info.value.lineno == _line(pw_of_a_number)
    assert "for an array x, not a number" in str(info.value)
    assert "if/else or np.where" in str(info.value)
