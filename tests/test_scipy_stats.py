"""scipy.stats: each distribution's density, distribution function and their logarithms,
differentiated in ``x``, ``loc``, ``scale`` and the shape parameters, against central
differences, forward mode against reverse, second derivatives against differences of the
gradient; frozen distributions; the support's boundaries; the refusals at the user's line
(skipped where SciPy is missing)."""

import inspect

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

import s2sad  # noqa: E402
from test_higher_order import central_differences  # noqa: E402

EPS = 1e-6
rng = np.random.default_rng(34)
W = np.array([[1.0, -2.0, 0.5], [0.3, 1.5, -1.0]])  # weights: not a symmetric loss
LOC = np.array([[0.05], [-0.05]])                    # broadcast against x: (2, 3) results
SCALE = 1.1

# each family: its points x (inside the support for every loc), its shape parameters
REAL = np.array([-0.4, 0.3, 1.2])
POSITIVE = np.array([0.5, 1.3, 2.8])
UNIT = np.array([0.2, 0.45, 0.7])    # (x - loc) / scale in (0, 1)
FAMILIES = {
    "norm": (REAL, ()), "t": (REAL, (4.5,)), "chi2": (POSITIVE, (3.5,)),
    "gamma": (POSITIVE, (2.5,)), "beta": (UNIT, (2.5, 1.7)), "expon": (POSITIVE, ()),
    "laplace": (REAL, ()), "logistic": (REAL, ()), "cauchy": (REAL, ()),
    "lognorm": (POSITIVE, (0.7,)), "uniform": (UNIT, ()),
}
METHODS = ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")
QUANTILES = ("ppf", "isf")
# the shapes of distribution functions with no derivative in closed form: refused
NOT_CLOSED = {"t", "chi2", "gamma", "beta"}


def _function(method, shapes: int):
    """``f(x, *shapes, loc, scale)``: a weighted sum of ``method(x, *shapes, loc, scale)``."""
    if shapes == 0:
        def f(x, loc, scale):
            return np.sum(method(x, loc, scale) * W)
    elif shapes == 1:
        def f(x, a, loc, scale):
            return np.sum(method(x, a, loc, scale) * W)
    else:
        def f(x, a, b, loc, scale):
            return np.sum(method(x, a, b, loc, scale) * W)
    return f


def _cases():
    for name, (x, shapes) in FAMILIES.items():
        for method in METHODS:
            args = (x,) + shapes + (LOC, SCALE)
            wrt = tuple(i for i in range(len(args)) if not (
                0 < i <= len(shapes) and name in NOT_CLOSED and "pdf" not in method))
            yield pytest.param(_function(getattr(getattr(stats, name), method), len(shapes)),
                               args, wrt, id=f"{name}-{method}")
        for method in QUANTILES:  # (at probabilities; in a shape: refused, no closed form)
            args = (UNIT,) + shapes + (LOC, SCALE)
            wrt = tuple(i for i in range(len(args)) if not 0 < i <= len(shapes))
            yield pytest.param(_function(getattr(getattr(stats, name), method), len(shapes)),
                               args, wrt, id=f"{name}-{method}")


# --- discrete distributions, Dirichlet, the multivariate normal -------------------------

COUNTS = np.array([0.0, 1.0, 3.0, 6.0])
SIGNS = np.array([[1.0, -2.0, 0.5, 1.5], [0.3, 1.0, -1.0, 2.0]])


def poisson_logpmf(mu):
    return np.sum(stats.poisson.logpmf(COUNTS, mu) * SIGNS)


def poisson_pmf(mu):
    return np.sum(stats.poisson.pmf(COUNTS, mu) * SIGNS)


def binom_logpmf(p):
    return np.sum(stats.binom.logpmf(COUNTS, 8, p) * SIGNS)


def binom_pmf(p):
    return np.sum(stats.binom.pmf(COUNTS, 8, p) * SIGNS)


def nbinom_logpmf(n, p):
    return np.sum(stats.nbinom.logpmf(COUNTS, n, p) * SIGNS)


def nbinom_pmf(n, p):
    return np.sum(stats.nbinom.pmf(COUNTS, n, p=p) * SIGNS)


ALPHA = np.array([1.5, 2.0, 3.0])
U = np.array([[0.2, -0.1], [0.5, 0.3], [-0.4, 0.0]])  # points of the simplex: softmax(u)


def dirichlet_logpdf(u, alpha):
    x = np.exp(u) / np.sum(np.exp(u), axis=0)
    return np.sum(stats.dirichlet.logpdf(x, alpha) * np.array([1.0, -2.0]))


def dirichlet_pdf(u, alpha):
    x = np.exp(u) / np.sum(np.exp(u), axis=0)
    return np.sum(stats.dirichlet.pdf(x, alpha) * np.array([1.0, -2.0]))


def dirichlet_short(u, alpha):
    # (x without its last component, 1 - sum(x))
    x = np.exp(u) / (1.0 + np.sum(np.exp(u), axis=0))
    return np.sum(stats.dirichlet.logpdf(x, alpha) * np.array([1.0, -2.0]))


def dirichlet_one_point(u, alpha):
    return stats.dirichlet.logpdf(np.exp(u) / np.sum(np.exp(u)), alpha)


B = np.array([[1.0, 0.3, 0.0], [0.2, 0.9, 0.1], [-0.3, 0.2, 1.1]])
XM = np.array([[0.2, -0.4, 1.0], [0.5, 0.1, -0.3]])
MU = np.array([0.1, 0.0, -0.2])


def mvn_logpdf(x, mean, b):
    cov = b @ b.T + 0.5 * np.eye(3)  # (symmetric: the gradient along symmetric changes)
    return np.sum(stats.multivariate_normal.logpdf(x, mean, cov) * np.array([1.0, -2.0]))


def mvn_pdf(x, mean, b):
    cov = b @ b.T + 0.5 * np.eye(3)
    return np.sum(stats.multivariate_normal.pdf(x, mean=mean, cov=cov) * np.array([1.0, -2.0]))


def mvn_one_point(x, mean, b):
    return stats.multivariate_normal.logpdf(x, mean, b @ b.T + 0.5 * np.eye(3))


def mvn_without_mean(x, b):
    return np.sum(stats.multivariate_normal.logpdf(x, cov=b @ b.T + 0.5 * np.eye(3)))


def mvn_number_cov(x, mean, c):
    return np.sum(stats.multivariate_normal.logpdf(x, mean, c) * np.array([1.0, -2.0]))


def mvn_diagonal_cov(x, mean, c):
    return np.sum(stats.multivariate_normal.pdf(x, mean, c * c + 0.3) * np.array([1.0, -2.0]))


def mvn_one_dimension(x, mean, c):
    # (d = 1: x's entries are the points)
    return np.sum(stats.multivariate_normal.logpdf(x, mean, c) * np.array([1.0, -2.0, 0.5]))


OTHERS = [
    pytest.param(poisson_logpmf, (np.array([[1.5], [4.0]]),), (0,), id="poisson-logpmf"),
    pytest.param(poisson_pmf, (2.3,), (0,), id="poisson-pmf"),
    pytest.param(binom_logpmf, (np.array([[0.3], [0.6]]),), (0,), id="binom-logpmf"),
    pytest.param(binom_pmf, (0.3,), (0,), id="binom-pmf"),
    pytest.param(nbinom_logpmf, (np.array([[2.5], [0.7]]), 0.4), (0, 1), id="nbinom-logpmf"),
    pytest.param(nbinom_pmf, (2.5, np.array([0.3, 0.4, 0.5, 0.8])), (0, 1), id="nbinom-pmf"),
    pytest.param(dirichlet_logpdf, (U, ALPHA), (0, 1), id="dirichlet-logpdf"),
    pytest.param(dirichlet_pdf, (U, ALPHA), (0, 1), id="dirichlet-pdf"),
    pytest.param(dirichlet_short, (U[:2], ALPHA), (0, 1), id="dirichlet-short"),
    pytest.param(dirichlet_one_point, (U[:, 0], ALPHA), (0, 1), id="dirichlet-one-point"),
    pytest.param(mvn_logpdf, (XM, MU, B), (0, 1, 2), id="mvn-logpdf"),
    pytest.param(mvn_pdf, (XM, MU, B), (0, 1, 2), id="mvn-pdf"),
    pytest.param(mvn_one_point, (XM[0], MU, B), (0, 1, 2), id="mvn-one-point"),
    pytest.param(mvn_without_mean, (XM, B), (0, 1), id="mvn-without-mean"),
    pytest.param(mvn_number_cov, (XM, MU, 1.7), (0, 1, 2), id="mvn-number-cov"),
    pytest.param(mvn_diagonal_cov, (XM, MU, np.array([1.1, 0.4, 0.8])), (0, 1, 2),
                 id="mvn-diagonal-cov"),
    pytest.param(mvn_one_dimension, (np.array([0.3, -0.2, 1.1]), 0.2, 1.4), (0, 1, 2),
                 id="mvn-one-dimension"),
]

TABLE = list(_cases()) + OTHERS


@pytest.mark.parametrize("f, args, wrt", TABLE)
def test_gradient_against_central_differences(f, args, wrt):
    found = s2sad.grad(f, wrt=wrt)(*args)
    for i, gradient in zip(wrt, found):
        np.testing.assert_allclose(gradient, central_differences(f, args, i, EPS),
                                   rtol=1e-6, atol=1e-7, err_msg=f"argument {i}")


@pytest.mark.parametrize("f, args, wrt", TABLE)
def test_forward_mode_against_reverse(f, args, wrt):
    tangents = tuple(rng.normal(size=np.shape(args[i])) for i in wrt)
    tangents = tuple(t if np.ndim(t) else float(t) for t in tangents)
    value, push = s2sad.jvp(f, wrt=wrt)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    gradients = s2sad.grad(f, wrt=wrt)(*args)
    np.testing.assert_allclose(push(*tangents), sum(np.sum(g * t) for g, t in
                                                    zip(gradients, tangents)),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("f, args, wrt", TABLE)
def test_second_derivative_against_differences_of_the_gradient(f, args, wrt):
    for i in (wrt[0], wrt[-1]) if len(wrt) < 4 else (wrt[0], wrt[1], wrt[-1]):
        gradient = s2sad.grad(f, wrt=i)
        expected = central_differences(gradient, args, i, EPS)
        np.testing.assert_allclose(s2sad.hessian(f, wrt=i)(*args), expected, rtol=1e-5,
                                   atol=1e-6, err_msg=f"argument {i}")


# --- frozen distributions: written out as the distribution's own call ---------------------

norm = stats.norm  # (as imported by name: from scipy.stats import norm)


def frozen(x, mu):
    d = norm(mu, 2.0)
    return np.sum(d.logpdf(x) * W)


def unfrozen(x, mu):
    return np.sum(norm.logpdf(x, mu, 2.0) * W)


def frozen_by_keyword(x, mu):
    d = stats.t(df=4.5, loc=mu, scale=mu * mu + 1.0)
    return np.sum(d.cdf(x) * W)


def frozen_chained(x, mu):
    return np.sum(norm(mu, scale=2.0).logsf(x) + stats.gamma(2.5, scale=mu + 1.0).pdf(x * x))


def frozen_in_a_loop(x, mu):
    s = 0.0
    for i in range(3):
        d = norm(mu * i, 1.5)
        s = s + d.logpdf(x[i])
    return s


def frozen_before_a_loop(x, mu):
    d = norm(mu, 1.5)
    s = 0.0
    for i in range(3):
        s = s + d.logcdf(x[i])
    return s


def frozen_then_changed(x, mu):
    m = mu
    d = norm(m, 2.0)  # (reads m now: the later m's do not change d)
    for i in range(2):
        m = m * 2.0
    return np.sum(d.logpdf(x)) + m


def frozen_in_a_branch(x, mu):
    if mu > 0:
        d = stats.logistic(mu, 2.0)
        y = np.sum(d.logpdf(x))
    else:
        y = 0.0
    return y


def _helper(x, mu):
    d = stats.cauchy(mu, 1.5)
    return np.sum(d.pdf(x))


def frozen_in_a_helper(x, mu):
    return _helper(x * 2.0, mu)


def frozen_discrete(x, mu):
    d = stats.poisson(mu * mu + 1.0)
    return np.sum(d.logpmf(COUNTS)) * np.sum(x)


def frozen_multivariate(x, mu):
    d = stats.multivariate_normal(mean=np.array([mu, 0.5, -mu]), cov=2.0 * np.eye(3))
    e = stats.dirichlet(ALPHA * mu)
    return d.logpdf(x) + e.logpdf(np.exp(x) / np.sum(np.exp(x)))


FROZEN = [frozen, unfrozen, frozen_by_keyword, frozen_chained, frozen_in_a_loop,
          frozen_before_a_loop, frozen_then_changed, frozen_in_a_branch, frozen_in_a_helper,
          frozen_discrete, frozen_multivariate]


@pytest.mark.parametrize("f", FROZEN, ids=[f.__name__ for f in FROZEN])
def test_frozen_distributions(f):
    args = (REAL, 0.7)
    for i in (0, 1):
        np.testing.assert_allclose(s2sad.grad(f, wrt=i)(*args),
                                   central_differences(f, args, i, EPS), rtol=1e-6, atol=1e-7)
    _, push = s2sad.jvp(f, wrt=1)(*args)
    np.testing.assert_allclose(push(1.0), s2sad.grad(f, wrt=1)(*args), rtol=1e-9)
    gradient = s2sad.grad(f, wrt=1)
    np.testing.assert_allclose(s2sad.hessian(f, wrt=1)(*args),
                               central_differences(gradient, args, 1, EPS), rtol=1e-5,
                               atol=1e-6)


def test_a_frozen_call_is_the_distributions_own():
    """``d.logpdf(x)`` is written ``norm.logpdf(x, mu, 2.0)``: the same gradient code as the
    call written so, and the frozen object, read by nothing, is left out."""
    source = s2sad.grad(frozen, wrt=(0, 1)).source
    assert "norm.logpdf(x, mu, 2.0)" in source and "d.logpdf" not in source
    assert "norm(mu" not in source
    assert source.split("\n", 3)[3] == \
        s2sad.grad(unfrozen, wrt=(0, 1)).source.split("\n", 3)[3].replace("unfrozen", "frozen")


# --- the support's boundaries and invalid parameters ------------------------------------

def gamma_all(x, a, scale):
    return np.sum(stats.gamma.logpdf(x, a, 0.0, scale) + stats.gamma.logcdf(x, 2.0, 0.0, scale)
                  + stats.gamma.logsf(x, 2.0, 0.0, scale) + stats.gamma.pdf(x, a, 0.0, scale))


def beta_logpdf(x):
    return stats.beta.logpdf(x, 2.0, 3.0)


def outside(x):
    return np.sum(stats.beta.logcdf(x, 2.0, 3.0) + stats.beta.logsf(x, 2.0, 3.0) +
                  stats.uniform.logcdf(x) + stats.uniform.logsf(x) + stats.uniform.pdf(x))


def below(x):
    return np.sum(stats.expon.logpdf(x) + stats.lognorm.cdf(x, 0.5) + stats.chi2.pdf(x, 3.0)
                  + stats.lognorm.logsf(x, 0.5) + stats.gamma.logpdf(x, 0.5))


def test_outside_the_support_the_derivatives_are_zero():
    """A density 0 (logpdf -inf), a distribution function 0 or 1: derivatives 0, without
    a warning (warnings are errors here)."""
    x = np.array([-1.0, 0.0, 0.5, 2.0])
    gradients = s2sad.grad(gamma_all, wrt=(0, 1, 2))(x, 2.5, 1.0)
    assert gradients[0][0] == 0.0 and gradients[0][1] == 0.0
    assert np.all(np.isfinite(gradients[0])) and np.isfinite(gradients[1])
    inside = np.array([0.5, 2.0])  # (the points inside carry the whole derivative)
    np.testing.assert_allclose(gradients[1], s2sad.grad(gamma_all, wrt=1)(inside, 2.5, 1.0))
    for point in (-0.5, 0.0, 1.0, 1.5):
        assert stats.beta.logpdf(point, 2.0, 3.0) == -np.inf
        assert s2sad.grad(beta_logpdf)(point) == 0.0
    np.testing.assert_array_equal(s2sad.grad(outside)(np.array([-0.5, 1.5])), 0.0)
    np.testing.assert_array_equal(s2sad.grad(below)(np.array([-0.5, -2.0])), 0.0)


def expon_logpdf(x):
    return stats.expon.logpdf(x)


def gamma_one_logpdf(x, a):
    return stats.gamma.logpdf(x, a)


def test_on_the_boundary_a_finite_density_has_a_one_sided_or_no_derivative():
    """expon's log density at 0 is 0: its slope from inside, -1; gamma's with a = 1, the
    same density, has no derivative in a there (log 0): NaN, not a finite number."""
    assert s2sad.grad(expon_logpdf)(0.0) == -1.0
    assert np.isnan(s2sad.grad(gamma_one_logpdf, wrt=1)(0.0, 1.0))


def norm_scale(x, scale):
    return np.sum(stats.norm.logpdf(x, 0.0, scale) + stats.norm.cdf(x, 0.0, scale))


def poisson_counts(mu):
    return np.sum(stats.poisson.logpmf(np.array([0.0, 1.5, 2.0]), mu))


def test_where_scipy_gives_nan_the_derivatives_are_nan():
    with np.errstate(all="ignore"):
        assert np.isnan(norm_scale(REAL, -1.0))
        gradients = s2sad.grad(norm_scale, wrt=(0, 1))(REAL, -1.0)
    assert np.all(np.isnan(gradients[0])) and np.isnan(gradients[1])


def test_a_count_off_the_support_has_no_mass_and_no_derivative():
    # (1.5 is no count: logpmf -inf there, derivative 0; mu = 0 keeps k = 0's -1)
    np.testing.assert_allclose(s2sad.grad(poisson_counts)(1.3), 0.0 / 1.3 - 1.0 + 2.0 / 1.3
                               - 1.0)
    assert s2sad.grad(poisson_counts)(0.0) == -1.0


# --- dtypes, names ------------------------------------------------------------------------

def float32_loss(x, mu):
    return np.sum(stats.t.logpdf(x, 4.5, mu, 2.0) + stats.gamma.cdf(x * x, 2.0, mu))


def test_float32_stays_float32():
    x = REAL.astype(np.float32)
    gradients = s2sad.grad(float32_loss, wrt=(0, 1))(x, np.float32(0.3))
    assert gradients[0].dtype == np.float32 and gradients[1].dtype == np.float32
    _, push = s2sad.jvp(float32_loss)(x, np.float32(0.3))
    np.testing.assert_allclose(push(np.ones(3, np.float32)), np.sum(gradients[0]), rtol=1e-5)


def test_the_functions_are_named_as_scipy_names_them():
    names = s2sad.supported()
    for name in ("scipy.stats.norm.logpdf", "scipy.stats.t.cdf", "scipy.stats.poisson.logpmf",
                 "scipy.stats.multivariate_normal.logpdf", "scipy.stats.dirichlet.pdf"):
        assert name in names


# --- refused: the arguments with no derivative -------------------------------------------

def t_cdf_df(df, x):
    return np.sum(stats.t.cdf(x, df))  # <- here


def gamma_sf_frozen(a, x):
    d = stats.gamma(a, scale=2.0)
    return np.sum(d.logsf(x))  # <- here


def poisson_count(k, mu):
    return stats.poisson.logpmf(k, mu)  # <- here


def binom_trials(n, p):
    return stats.binom.pmf(2.0, n, p)  # <- here


def frozen_ppf(df, q):
    d = stats.t(df)  # (norm's ppf has a rule now: its shape-free quantile)
    return d.ppf(q)  # <- here


def _line(func):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, text in enumerate(lines) if "# <- here" in text)


@pytest.mark.parametrize("func, args, message, advice", [
    (t_cdf_df, (4.5, REAL), "scipy.stats.t.cdf has no derivative with respect to its "
     "argument 'df'", "no closed form"),
    (gamma_sf_frozen, (2.5, POSITIVE), "scipy.stats.gamma.logsf has no derivative with "
     "respect to its argument 'a'", "stop_gradient"),
    (poisson_count, (3.0, 2.5), "scipy.stats.poisson.logpmf has no derivative with respect "
     "to its argument 'k'", "It is a count"),
    (binom_trials, (8.0, 0.3), "scipy.stats.binom.pmf has no derivative with respect to its "
     "argument 'n'", "It is a count"),
    (frozen_ppf, (4.5, 0.6), "scipy.stats.t.ppf has no derivative with respect to its "
     "argument 'df'", "quantile function"),
], ids=["t-cdf-df", "gamma-logsf-a-frozen", "poisson-k", "binom-n", "frozen-ppf"])
def test_an_argument_with_no_derivative_is_refused_at_its_line(func, args, message, advice):
    for derivative in (s2sad.grad, lambda f: (lambda *a: s2sad.jvp(f)(*a)[1](1.0))):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(func)(*args)
        assert info.value.lineno == _line(func)
        assert message in str(info.value) and advice in str(info.value), str(info.value)


def frozen_passed(x, mu):
    return np.sum(_log_density(norm(mu, 1.0), x))


def _log_density(d, x):
    return d.logpdf(x)  # <- here


def test_a_frozen_distribution_passed_to_a_function_is_refused_there():
    """(A frozen object is written out where it is made and used in one function; given to
    another, it is an object s2sad does not model.)"""
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(frozen_passed)(REAL, 0.7)
    assert info.value.lineno == _line(_log_density)
    assert "logpdf" in str(info.value)


def test_in_the_other_arguments_the_refused_calls_are_differentiated():
    assert np.all(np.isfinite(s2sad.grad(t_cdf_df, wrt=1)(4.5, REAL)))
    assert np.isfinite(s2sad.grad(poisson_count, wrt=1)(3.0, 2.5))
    assert np.isfinite(s2sad.grad(binom_trials, wrt=1)(8.0, 0.3))
