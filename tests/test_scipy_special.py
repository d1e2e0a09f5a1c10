"""scipy.special: each function's gradient against central differences, forward mode against
reverse, second derivatives against differences of the gradient, and the arguments with
no derivative refused at the user's line (skipped where SciPy is missing)."""

import inspect

import numpy as np
import pytest

sc = pytest.importorskip("scipy.special")

import s2sad  # noqa: E402
from test_higher_order import central_differences  # noqa: E402

EPS = 1e-6
rng = np.random.default_rng(34)
X = np.array([0.3, 0.7, 1.4])          # (0, 1) and beyond: every function is smooth here
P = np.array([0.2, 0.45, 0.8])         # probabilities
M = np.array([[0.2, -0.5, 1.1], [0.7, 0.3, -0.9]])
W = np.array([[1.0, -2.0, 0.5], [0.3, 1.5, -1.0]])  # weights: not a symmetric loss


# --- one argument, elementwise -----------------------------------------------------------

def expit(x):
    return np.sum(sc.expit(x) * x)


def logit(p):
    return np.sum(sc.logit(p) * p)


def log_expit(x):
    return np.sum(sc.log_expit(2.0 * x - 1.0) * x)


def entr(p):
    return np.sum(sc.entr(p) * p)


def gammaln(x):
    return np.sum(sc.gammaln(x + 0.5) * x)


def loggamma(x):
    return np.sum(sc.loggamma(x + 0.5) * x)


def gamma(x):
    return np.sum(sc.gamma(x + 0.5) * x)


def digamma(x):
    return np.sum(sc.digamma(x + 0.5) * x)


def psi(x):
    return np.sum(sc.psi(x + 0.5) * x)


def polygamma(x):
    return np.sum(sc.polygamma(2, x + 0.5) * x)


def multigammaln(a):
    return np.sum(sc.multigammaln(a, 3) * a)


def erf(x):
    return np.sum(sc.erf(x) * x)


def erfc(x):
    return np.sum(sc.erfc(x) * x)


def erfinv(p):
    return np.sum(sc.erfinv(p) * p)


def erfcinv(p):
    return np.sum(sc.erfcinv(p) * p)


def erfcx(x):
    return np.sum(sc.erfcx(x - 1.0) * x)


def ndtr(x):
    return np.sum(sc.ndtr(x) * x)


def ndtri(p):
    return np.sum(sc.ndtri(p) * p)


def log_ndtr(x):
    return np.sum(sc.log_ndtr(2.0 * x - 2.0) * x)


def sinc(x):
    return np.sum(sc.sinc(x) * x)


def i0(x):
    return np.sum(sc.i0(x) * x)


def i1(x):
    return np.sum(sc.i1(x) * x)


def i0e(x):
    return np.sum(sc.i0e(x - 0.5) * x)


def i1e(x):
    return np.sum(sc.i1e(x - 0.5) * x)


def j0(x):
    return np.sum(sc.j0(x) * x)


def j1(x):
    return np.sum(sc.j1(x) * x)


def y0(x):
    return np.sum(sc.y0(x) * x)


def y1(x):
    return np.sum(sc.y1(x) * x)


def bessel_at_zero(x):
    return np.sum(sc.j1(x) + sc.i1(x) + sc.i1e(x))


# --- two arguments, broadcast ------------------------------------------------------------

def xlogy(x, y):
    return np.sum(sc.xlogy(x, y) * x)


def xlog1py(x, y):
    return np.sum(sc.xlog1py(x, y) * y)


def beta(a, b):
    return np.sum(sc.beta(a, b) * a)


def betaln(a, b):
    return np.sum(sc.betaln(a, b) * b)


def gammainc(x):
    return np.sum(sc.gammainc(np.array([[1.5], [2.5]]), x) * x)


def gammaincc(x):
    return np.sum(sc.gammaincc(2.5, x) * x)


def jv(x):
    return np.sum(sc.jv(np.array([[0.5], [2.0]]), x) * x)


def jn(x):
    return np.sum(sc.jn(3, x) * x)


def yv(x):
    return np.sum(sc.yv(1.5, x + 0.5) * x)


def yn(x):
    return np.sum(sc.yn(2, x + 0.5) * x)


def iv(x):
    return np.sum(sc.iv(np.array([[0.5], [2.0]]), x) * x)


def ive(x):
    return np.sum(sc.ive(np.array([[1.0], [2.0]]), x - 0.5) * x)  # (integer orders: z < 0 too)


def kve(x):
    return np.sum(sc.kve(1.5, x) * x)


def rgamma(x):
    return np.sum(sc.rgamma(x - 0.5) * x)


def gammasgn(x):
    return np.sum(sc.gammasgn(x - 1.0) * x)


def betainc(p):
    return np.sum(sc.betainc(np.array([[0.5], [2.0]]), 3.0, p) * p)


def kv(x):
    return np.sum(sc.kv(1.5, x) * x)


# --- along an axis -----------------------------------------------------------------------

def logsumexp_all(m):
    return sc.logsumexp(m) * np.sum(m)


def logsumexp_axis(m):
    return np.sum(sc.logsumexp(m, axis=1) * np.array([1.0, -2.0]))


def logsumexp_keepdims(m):
    return np.sum(sc.logsumexp(m, axis=0, keepdims=True) * m)


def logsumexp_axes(m):
    return sc.logsumexp(m, axis=(0, 1)) ** 2


def logsumexp_b(m, b):
    return np.sum(sc.logsumexp(m, axis=-1, b=b) ** 2)


def softmax(m):
    return np.sum(sc.softmax(m, axis=1) * W)


def softmax_all(m):
    return np.sum(sc.softmax(m) * W)


def log_softmax(m):
    return np.sum(sc.log_softmax(m, axis=0) * W)


def log_softmax_all(m):
    return np.sum(sc.log_softmax(m) * W ** 2)


def loss(m):
    # a classifier's loss: the mean negative log-likelihood of the right classes
    return -np.mean(sc.log_softmax(m, axis=1)[np.arange(2), np.array([2, 0])])


TABLE = [(f, (X,), 0) for f in (
    expit, log_expit, gammaln, loggamma, gamma, digamma, psi, polygamma, erf, erfc, erfcx,
    ndtr, log_ndtr, sinc, i0, i1, i0e, i1e, j0, j1, y0, y1, gammainc, gammaincc, jv, jn, yv,
    yn, iv, kv, ive, kve, rgamma, gammasgn)] + [
    (f, (P,), 0) for f in (logit, entr, erfinv, erfcinv, ndtri, betainc)] + [
    (multigammaln, (1.7,), 0), (multigammaln, (np.array([1.7, 2.5]),), 0),
    (bessel_at_zero, (np.array([0.0, 0.5]),), 0),
    (xlogy, (X, np.array([[0.5], [2.0]])), 0), (xlogy, (X, np.array([[0.5], [2.0]])), 1),
    (xlog1py, (X, np.array([[0.5], [2.0]])), 0), (xlog1py, (0.4, X), 1),
    (beta, (X + 0.5, np.array([[0.8], [2.0]])), 0), (beta, (X + 0.5, np.array([[0.8], [2.0]])), 1),
    (betaln, (1.2, X + 0.5), 0), (betaln, (1.2, X + 0.5), 1)] + [
    (f, (M,), 0) for f in (logsumexp_all, logsumexp_axis, logsumexp_keepdims, logsumexp_axes,
                           softmax, softmax_all, log_softmax, log_softmax_all, loss)] + [
    (logsumexp_b, (M, np.array([0.5, 2.0, 1.0])), 0),
    (logsumexp_b, (M, np.array([0.5, 2.0, 1.0])), 1)]


def _ids(table):
    return [f"{f.__name__}-{wrt}" for f, _, wrt in table]


def _differences(f, args, wrt):
    """Central differences of ``f`` along argument ``wrt``, ``(argument..., output...)``."""
    return central_differences(f, args, wrt, EPS)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_gradient_against_central_differences(f, args, wrt):
    np.testing.assert_allclose(s2sad.grad(f, wrt=wrt)(*args), _differences(f, args, wrt),
                               rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_forward_mode_against_reverse(f, args, wrt):
    v = rng.normal(size=np.shape(args[wrt]))
    value, push = s2sad.jvp(f, wrt=wrt)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(push(v if np.ndim(v) else float(v)),
                               np.sum(s2sad.grad(f, wrt=wrt)(*args) * v), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_second_derivative_against_differences_of_the_gradient(f, args, wrt):
    gradient = s2sad.grad(f, wrt=wrt)
    expected = _differences(gradient, args, wrt)
    np.testing.assert_allclose(s2sad.hessian(f, wrt=wrt)(*args), expected, rtol=1e-5,
                               atol=1e-6)
    # reverse over reverse: the pullback of the gradient
    v = rng.normal(size=np.shape(args[wrt]))
    _, pullback = s2sad.vjp(gradient, wrt=wrt)(*args)
    np.testing.assert_allclose(pullback(v if np.ndim(v) else float(v)),
                               np.tensordot(expected, v, np.ndim(v)) if np.ndim(v) else
                               expected * v, rtol=1e-5, atol=1e-6)


def test_third_derivative_of_a_bessel_function():
    """The rules are written with functions of the table: they differentiate to any order."""
    second = s2sad.grad(s2sad.grad(bessel_j0))
    third = s2sad.grad(second)
    np.testing.assert_allclose(third(0.9), (second(0.9 + EPS) - second(0.9 - EPS)) / (2 * EPS),
                               rtol=1e-5)
    np.testing.assert_allclose(third(0.9), sc.jvp(0, 0.9, 3), rtol=1e-10)


def bessel_j0(x):
    return sc.j0(x)


def test_the_gradient_at_the_bessel_functions_removable_point():
    np.testing.assert_allclose(s2sad.grad(bessel_at_zero)(np.array([0.0, 0.5])),
                               [1.5, sc.jvp(1, 0.5) + sc.ivp(1, 0.5) +
                                sc.i0e(0.5) - sc.i1e(0.5) * (1.0 + 1.0 / 0.5)], rtol=1e-12)


def test_float32_stays_float32():
    x = X.astype(np.float32)
    assert s2sad.grad(expit)(x).dtype == np.float32
    assert s2sad.grad(softmax)(M.astype(np.float32)).dtype == np.float32


# --- refused: the arguments with no derivative -------------------------------------------

def shape_varies(a, x):
    return np.sum(sc.gammainc(a, x))  # <- here


def order_varies(v, x):
    return np.sum(sc.jv(v, x))  # <- here


def betainc_shape_varies(b, x):
    return np.sum(sc.betainc(2.0, b, x))  # <- here


def polygamma_order_varies(n, x):
    return np.sum(sc.polygamma(n, x))  # <- here


def logsumexp_sign(m):
    return sc.logsumexp(m, b=np.array([1.0, -1.0, 2.0]), return_sign=True)[0]


def _line(func):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, text in enumerate(lines) if "# <- here" in text)


@pytest.mark.parametrize("func, args, message, advice", [
    (shape_varies, (2.0, X), "gammainc has no derivative with respect to its argument 'a'",
     "pass a constant shape"),
    (order_varies, (1.5, X), "jv has no derivative with respect to its argument 'v'",
     "pass a constant order"),
    (polygamma_order_varies, (2.0, X),
     "polygamma has no derivative with respect to its argument 'n'", "The order n is an "
     "integer"),
    (betainc_shape_varies, (2.0, P), "betainc has no derivative with respect to its "
     "argument 'b'", "pass a constant shape"),
], ids=["gammainc-a", "jv-v", "polygamma-n", "betainc-b"])
def test_an_argument_with_no_derivative_is_refused_at_its_line(func, args, message, advice):
    for derivative in (s2sad.grad, lambda f: (lambda *a: s2sad.jvp(f)(*a)[1](1.0))):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(func)(*args)
        assert info.value.lineno == _line(func)
        assert message in str(info.value) and advice in str(info.value)
        assert "stop_gradient" in str(info.value) or "integer" in str(info.value)
    # in the other argument: differentiated
    assert np.all(np.isfinite(s2sad.grad(func, wrt=1)(*args)))


def test_return_sign_is_differentiated():
    # (refused before session 27; its cases: tests/test_issue34_s27.py)
    found = s2sad.grad(logsumexp_sign)(M[0])
    np.testing.assert_allclose(found, central_differences(logsumexp_sign, (M[0],), 0),
                               rtol=1e-6, atol=1e-8)
