"""Issue 34's list, one small loss per item, for the audit (tests/test_issue34_s26.py).

Each entry is ``(id, function, args)``: ``function`` is a scalar loss of float arguments
that calls the item once, with the arguments its line names (``n``, ``axis``, ``norm``...).
The checks (reverse and forward mode against central differences, second order, float32
kept) are the test file's.
"""

import numpy as np
import scipy.fft as sfft
import scipy.linalg as sla
import scipy.optimize as sopt
import scipy.signal as ssig
import scipy.special as sc
import scipy.stats as st
from scipy.integrate import odeint, solve_ivp

X = np.array([0.3, 0.7, 1.4])
P = np.array([0.2, 0.45, 0.8])
V = np.array([0.4, -1.1, 0.9, 1.7, -0.3])
M = np.array([[2.0, 0.3, -0.4], [0.1, 1.5, 0.2], [-0.3, 0.4, 1.8]])
M2 = np.array([[0.3, -1.2, 0.8, 0.5], [1.1, 0.2, -0.7, 0.4], [-0.6, 0.9, 0.1, 1.3]])
W3 = np.array([1.0, -2.0, 0.5])
W5 = np.array([1.0, -2.0, 0.5, 0.3, 1.2])
TABLE = []


def add(name, args):
    def deco(f):
        TABLE.append((name, f, args))
        return f
    return deco


# --- scipy.special --------------------------------------------------------------------------

@add("special.logsumexp", (M,))
def sp_logsumexp(x):
    return sc.logsumexp(x) + np.sum(sc.logsumexp(x, axis=1, keepdims=True) * W3[:, None])


@add("special.logsumexp-b", (M, X))
def sp_logsumexp_b(x, b):
    return np.sum(sc.logsumexp(x, axis=0, b=b[:, None] + 1.0) * W3)


@add("special.logsumexp-return_sign", (M,))
def sp_logsumexp_sign(x):
    r, s = sc.logsumexp(x, axis=1, b=np.array([1.0, -0.2, 0.3]), return_sign=True)
    return np.sum(r * s * W3)


def _unary(name, f, args=(X,)):
    TABLE.append((f"special.{name}", f, args))


def sp_expit(x): return np.sum(sc.expit(x) * W3)
def sp_logit(p): return np.sum(sc.logit(p) * W3)
def sp_log_expit(x): return np.sum(sc.log_expit(x) * W3)
def sp_softmax(x): return np.sum(sc.softmax(x, axis=1) * M)
def sp_log_softmax(x): return np.sum(sc.log_softmax(x, axis=0) * M)
def sp_xlogy(x, y): return np.sum(sc.xlogy(x, y) * W3)
def sp_xlog1py(x, y): return np.sum(sc.xlog1py(x, y) * W3)
def sp_entr(p): return np.sum(sc.entr(p) * W3)
def sp_gamma(x): return np.sum(sc.gamma(x + 0.5) * W3)
def sp_gammaln(x): return np.sum(sc.gammaln(x + 0.5) * W3)
def sp_loggamma(x): return np.sum(sc.loggamma(x + 0.5) * W3)
def sp_gammasgn(x): return np.sum(sc.gammasgn(x - 1.0) * x * W3)
def sp_rgamma(x): return np.sum(sc.rgamma(x + 0.5) * W3)
def sp_digamma(x): return np.sum(sc.digamma(x + 0.5) * W3)
def sp_psi(x): return np.sum(sc.psi(x + 0.5) * W3)
def sp_polygamma(x): return np.sum(sc.polygamma(1, x + 0.5) * W3)
def sp_multigammaln(x): return np.sum(sc.multigammaln(x + 2.0, 3) * W3)
def sp_gammainc(a, x): return np.sum(sc.gammainc(a + 0.5, x) * W3)
def sp_gammaincc(a, x): return np.sum(sc.gammaincc(a + 0.5, x) * W3)
def sp_beta(a, b): return np.sum(sc.beta(a + 0.5, b + 0.2) * W3)
def sp_betaln(a, b): return np.sum(sc.betaln(a + 0.5, b + 0.2) * W3)
def sp_betainc(a, b, x): return np.sum(sc.betainc(a + 0.5, b + 0.2, x) * W3)
def sp_erf(x): return np.sum(sc.erf(x) * W3)
def sp_erfc(x): return np.sum(sc.erfc(x) * W3)
def sp_erfinv(p): return np.sum(sc.erfinv(p) * W3)
def sp_erfcinv(p): return np.sum(sc.erfcinv(p + 0.1) * W3)
def sp_erfcx(x): return np.sum(sc.erfcx(x) * W3)
def sp_ndtr(x): return np.sum(sc.ndtr(x) * W3)
def sp_ndtri(p): return np.sum(sc.ndtri(p) * W3)
def sp_log_ndtr(x): return np.sum(sc.log_ndtr(x - 1.0) * W3)
def sp_sinc(x): return np.sum(sc.sinc(x) * W3)
def sp_j0(x): return np.sum(sc.j0(x) * W3)
def sp_j1(x): return np.sum(sc.j1(x) * W3)
def sp_jn(x): return np.sum(sc.jn(2, x) * W3)
def sp_y0(x): return np.sum(sc.y0(x) * W3)
def sp_y1(x): return np.sum(sc.y1(x) * W3)
def sp_yn(x): return np.sum(sc.yn(2, x) * W3)
def sp_i0(x): return np.sum(sc.i0(x) * W3)
def sp_i1(x): return np.sum(sc.i1(x) * W3)
def sp_i0e(x): return np.sum(sc.i0e(x) * W3)
def sp_i1e(x): return np.sum(sc.i1e(x) * W3)
def sp_iv(v, x): return np.sum(sc.iv(1.5, x) * W3)
def sp_ive(x): return np.sum(sc.ive(1.5, x) * W3)
def sp_kv(x): return np.sum(sc.kv(1.5, x) * W3)
def sp_kve(x): return np.sum(sc.kve(1.5, x) * W3)


for _name, _f, _args in [
        ("expit", sp_expit, (X,)), ("logit", sp_logit, (P,)), ("log_expit", sp_log_expit, (X,)),
        ("softmax", sp_softmax, (M,)), ("log_softmax", sp_log_softmax, (M,)),
        ("xlogy", sp_xlogy, (P, X)), ("xlog1py", sp_xlog1py, (P, X)), ("entr", sp_entr, (P,)),
        ("gamma", sp_gamma, (X,)), ("gammaln", sp_gammaln, (X,)), ("loggamma", sp_loggamma, (X,)),
        ("gammasgn", sp_gammasgn, (X,)), ("rgamma", sp_rgamma, (X,)),
        ("digamma", sp_digamma, (X,)), ("psi", sp_psi, (X,)), ("polygamma", sp_polygamma, (X,)),
        ("multigammaln", sp_multigammaln, (X,)), ("gammainc", sp_gammainc, (X, X)),
        ("gammaincc", sp_gammaincc, (X, X)), ("beta", sp_beta, (X, X[::-1].copy())),
        ("betaln", sp_betaln, (X, X[::-1].copy())), ("betainc", sp_betainc, (X, X[::-1].copy(), P)),
        ("erf", sp_erf, (X,)), ("erfc", sp_erfc, (X,)), ("erfinv", sp_erfinv, (P,)),
        ("erfcinv", sp_erfcinv, (P,)), ("erfcx", sp_erfcx, (X,)), ("ndtr", sp_ndtr, (X,)),
        ("ndtri", sp_ndtri, (P,)), ("log_ndtr", sp_log_ndtr, (X,)), ("sinc", sp_sinc, (X,)),
        ("j0", sp_j0, (X,)), ("j1", sp_j1, (X,)), ("jn", sp_jn, (X,)), ("y0", sp_y0, (X,)),
        ("y1", sp_y1, (X,)), ("yn", sp_yn, (X,)), ("i0", sp_i0, (X,)), ("i1", sp_i1, (X,)),
        ("i0e", sp_i0e, (X,)), ("i1e", sp_i1e, (X,)), ("iv", sp_iv, (0.0, X)),
        ("ive", sp_ive, (X,)), ("kv", sp_kv, (X,)), ("kve", sp_kve, (X,))]:
    _unary(_name, _f, _args)


# --- scipy.stats ----------------------------------------------------------------------------

CONT = {  # name: (x, shape parameters, loc, scale)
    "norm": (X, (), 0.2, 1.3), "t": (X, (3.5,), 0.2, 1.3), "chi2": (X, (2.5,), 0.0, 1.0),
    "beta": (P, (2.5, 1.7), 0.0, 1.0), "gamma": (X, (2.5,), 0.0, 1.3),
    "expon": (X, (), 0.1, 1.3), "laplace": (X, (), 0.5, 1.3), "logistic": (X, (), 0.2, 1.3),
    "cauchy": (X, (), 0.2, 1.3), "lognorm": (X, (0.8,), 0.0, 1.3),
    "uniform": (P, (), -0.1, 1.3)}
METHODS = ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")
def _cont(name):
    x, shapes, loc, scale = CONT[name]
    return (x, *shapes, loc, scale)


def st_norm_pdf(x, loc, scale):
    return np.sum(st.norm.pdf(x, loc=loc, scale=scale) * W3)


def st_norm_pdf_frozen(x, loc, scale):
    return np.sum(st.norm(loc=loc, scale=scale).pdf(x) * W3)


TABLE.append(("stats.norm.pdf", st_norm_pdf, _cont("norm")))
TABLE.append(("stats.norm.pdf-frozen", st_norm_pdf_frozen, _cont("norm")))


def st_norm_logpdf(x, loc, scale):
    return np.sum(st.norm.logpdf(x, loc=loc, scale=scale) * W3)


def st_norm_logpdf_frozen(x, loc, scale):
    return np.sum(st.norm(loc=loc, scale=scale).logpdf(x) * W3)


TABLE.append(("stats.norm.logpdf", st_norm_logpdf, _cont("norm")))
TABLE.append(("stats.norm.logpdf-frozen", st_norm_logpdf_frozen, _cont("norm")))


def st_norm_cdf(x, loc, scale):
    return np.sum(st.norm.cdf(x, loc=loc, scale=scale) * W3)


def st_norm_cdf_frozen(x, loc, scale):
    return np.sum(st.norm(loc=loc, scale=scale).cdf(x) * W3)


TABLE.append(("stats.norm.cdf", st_norm_cdf, _cont("norm")))
TABLE.append(("stats.norm.cdf-frozen", st_norm_cdf_frozen, _cont("norm")))


def st_norm_logcdf(x, loc, scale):
    return np.sum(st.norm.logcdf(x, loc=loc, scale=scale) * W3)


def st_norm_logcdf_frozen(x, loc, scale):
    return np.sum(st.norm(loc=loc, scale=scale).logcdf(x) * W3)


TABLE.append(("stats.norm.logcdf", st_norm_logcdf, _cont("norm")))
TABLE.append(("stats.norm.logcdf-frozen", st_norm_logcdf_frozen, _cont("norm")))


def st_norm_sf(x, loc, scale):
    return np.sum(st.norm.sf(x, loc=loc, scale=scale) * W3)


def st_norm_sf_frozen(x, loc, scale):
    return np.sum(st.norm(loc=loc, scale=scale).sf(x) * W3)


TABLE.append(("stats.norm.sf", st_norm_sf, _cont("norm")))
TABLE.append(("stats.norm.sf-frozen", st_norm_sf_frozen, _cont("norm")))


def st_norm_logsf(x, loc, scale):
    return np.sum(st.norm.logsf(x, loc=loc, scale=scale) * W3)


def st_norm_logsf_frozen(x, loc, scale):
    return np.sum(st.norm(loc=loc, scale=scale).logsf(x) * W3)


TABLE.append(("stats.norm.logsf", st_norm_logsf, _cont("norm")))
TABLE.append(("stats.norm.logsf-frozen", st_norm_logsf_frozen, _cont("norm")))


def st_t_pdf(x, c0, loc, scale):
    return np.sum(st.t.pdf(x, c0, loc=loc, scale=scale) * W3)


def st_t_pdf_frozen(x, c0, loc, scale):
    return np.sum(st.t(c0, loc=loc, scale=scale).pdf(x) * W3)


TABLE.append(("stats.t.pdf", st_t_pdf, _cont("t")))
TABLE.append(("stats.t.pdf-frozen", st_t_pdf_frozen, _cont("t")))


def st_t_logpdf(x, c0, loc, scale):
    return np.sum(st.t.logpdf(x, c0, loc=loc, scale=scale) * W3)


def st_t_logpdf_frozen(x, c0, loc, scale):
    return np.sum(st.t(c0, loc=loc, scale=scale).logpdf(x) * W3)


TABLE.append(("stats.t.logpdf", st_t_logpdf, _cont("t")))
TABLE.append(("stats.t.logpdf-frozen", st_t_logpdf_frozen, _cont("t")))


def st_t_cdf(x, c0, loc, scale):
    return np.sum(st.t.cdf(x, c0, loc=loc, scale=scale) * W3)


def st_t_cdf_frozen(x, c0, loc, scale):
    return np.sum(st.t(c0, loc=loc, scale=scale).cdf(x) * W3)


TABLE.append(("stats.t.cdf", st_t_cdf, _cont("t")))
TABLE.append(("stats.t.cdf-frozen", st_t_cdf_frozen, _cont("t")))


def st_t_logcdf(x, c0, loc, scale):
    return np.sum(st.t.logcdf(x, c0, loc=loc, scale=scale) * W3)


def st_t_logcdf_frozen(x, c0, loc, scale):
    return np.sum(st.t(c0, loc=loc, scale=scale).logcdf(x) * W3)


TABLE.append(("stats.t.logcdf", st_t_logcdf, _cont("t")))
TABLE.append(("stats.t.logcdf-frozen", st_t_logcdf_frozen, _cont("t")))


def st_t_sf(x, c0, loc, scale):
    return np.sum(st.t.sf(x, c0, loc=loc, scale=scale) * W3)


def st_t_sf_frozen(x, c0, loc, scale):
    return np.sum(st.t(c0, loc=loc, scale=scale).sf(x) * W3)


TABLE.append(("stats.t.sf", st_t_sf, _cont("t")))
TABLE.append(("stats.t.sf-frozen", st_t_sf_frozen, _cont("t")))


def st_t_logsf(x, c0, loc, scale):
    return np.sum(st.t.logsf(x, c0, loc=loc, scale=scale) * W3)


def st_t_logsf_frozen(x, c0, loc, scale):
    return np.sum(st.t(c0, loc=loc, scale=scale).logsf(x) * W3)


TABLE.append(("stats.t.logsf", st_t_logsf, _cont("t")))
TABLE.append(("stats.t.logsf-frozen", st_t_logsf_frozen, _cont("t")))


def st_chi2_pdf(x, c0, loc, scale):
    return np.sum(st.chi2.pdf(x, c0, loc=loc, scale=scale) * W3)


def st_chi2_pdf_frozen(x, c0, loc, scale):
    return np.sum(st.chi2(c0, loc=loc, scale=scale).pdf(x) * W3)


TABLE.append(("stats.chi2.pdf", st_chi2_pdf, _cont("chi2")))
TABLE.append(("stats.chi2.pdf-frozen", st_chi2_pdf_frozen, _cont("chi2")))


def st_chi2_logpdf(x, c0, loc, scale):
    return np.sum(st.chi2.logpdf(x, c0, loc=loc, scale=scale) * W3)


def st_chi2_logpdf_frozen(x, c0, loc, scale):
    return np.sum(st.chi2(c0, loc=loc, scale=scale).logpdf(x) * W3)


TABLE.append(("stats.chi2.logpdf", st_chi2_logpdf, _cont("chi2")))
TABLE.append(("stats.chi2.logpdf-frozen", st_chi2_logpdf_frozen, _cont("chi2")))


def st_chi2_cdf(x, c0, loc, scale):
    return np.sum(st.chi2.cdf(x, c0, loc=loc, scale=scale) * W3)


def st_chi2_cdf_frozen(x, c0, loc, scale):
    return np.sum(st.chi2(c0, loc=loc, scale=scale).cdf(x) * W3)


TABLE.append(("stats.chi2.cdf", st_chi2_cdf, _cont("chi2")))
TABLE.append(("stats.chi2.cdf-frozen", st_chi2_cdf_frozen, _cont("chi2")))


def st_chi2_logcdf(x, c0, loc, scale):
    return np.sum(st.chi2.logcdf(x, c0, loc=loc, scale=scale) * W3)


def st_chi2_logcdf_frozen(x, c0, loc, scale):
    return np.sum(st.chi2(c0, loc=loc, scale=scale).logcdf(x) * W3)


TABLE.append(("stats.chi2.logcdf", st_chi2_logcdf, _cont("chi2")))
TABLE.append(("stats.chi2.logcdf-frozen", st_chi2_logcdf_frozen, _cont("chi2")))


def st_chi2_sf(x, c0, loc, scale):
    return np.sum(st.chi2.sf(x, c0, loc=loc, scale=scale) * W3)


def st_chi2_sf_frozen(x, c0, loc, scale):
    return np.sum(st.chi2(c0, loc=loc, scale=scale).sf(x) * W3)


TABLE.append(("stats.chi2.sf", st_chi2_sf, _cont("chi2")))
TABLE.append(("stats.chi2.sf-frozen", st_chi2_sf_frozen, _cont("chi2")))


def st_chi2_logsf(x, c0, loc, scale):
    return np.sum(st.chi2.logsf(x, c0, loc=loc, scale=scale) * W3)


def st_chi2_logsf_frozen(x, c0, loc, scale):
    return np.sum(st.chi2(c0, loc=loc, scale=scale).logsf(x) * W3)


TABLE.append(("stats.chi2.logsf", st_chi2_logsf, _cont("chi2")))
TABLE.append(("stats.chi2.logsf-frozen", st_chi2_logsf_frozen, _cont("chi2")))


def st_beta_pdf(x, c0, c1, loc, scale):
    return np.sum(st.beta.pdf(x, c0, c1, loc=loc, scale=scale) * W3)


def st_beta_pdf_frozen(x, c0, c1, loc, scale):
    return np.sum(st.beta(c0, c1, loc=loc, scale=scale).pdf(x) * W3)


TABLE.append(("stats.beta.pdf", st_beta_pdf, _cont("beta")))
TABLE.append(("stats.beta.pdf-frozen", st_beta_pdf_frozen, _cont("beta")))


def st_beta_logpdf(x, c0, c1, loc, scale):
    return np.sum(st.beta.logpdf(x, c0, c1, loc=loc, scale=scale) * W3)


def st_beta_logpdf_frozen(x, c0, c1, loc, scale):
    return np.sum(st.beta(c0, c1, loc=loc, scale=scale).logpdf(x) * W3)


TABLE.append(("stats.beta.logpdf", st_beta_logpdf, _cont("beta")))
TABLE.append(("stats.beta.logpdf-frozen", st_beta_logpdf_frozen, _cont("beta")))


def st_beta_cdf(x, c0, c1, loc, scale):
    return np.sum(st.beta.cdf(x, c0, c1, loc=loc, scale=scale) * W3)


def st_beta_cdf_frozen(x, c0, c1, loc, scale):
    return np.sum(st.beta(c0, c1, loc=loc, scale=scale).cdf(x) * W3)


TABLE.append(("stats.beta.cdf", st_beta_cdf, _cont("beta")))
TABLE.append(("stats.beta.cdf-frozen", st_beta_cdf_frozen, _cont("beta")))


def st_beta_logcdf(x, c0, c1, loc, scale):
    return np.sum(st.beta.logcdf(x, c0, c1, loc=loc, scale=scale) * W3)


def st_beta_logcdf_frozen(x, c0, c1, loc, scale):
    return np.sum(st.beta(c0, c1, loc=loc, scale=scale).logcdf(x) * W3)


TABLE.append(("stats.beta.logcdf", st_beta_logcdf, _cont("beta")))
TABLE.append(("stats.beta.logcdf-frozen", st_beta_logcdf_frozen, _cont("beta")))


def st_beta_sf(x, c0, c1, loc, scale):
    return np.sum(st.beta.sf(x, c0, c1, loc=loc, scale=scale) * W3)


def st_beta_sf_frozen(x, c0, c1, loc, scale):
    return np.sum(st.beta(c0, c1, loc=loc, scale=scale).sf(x) * W3)


TABLE.append(("stats.beta.sf", st_beta_sf, _cont("beta")))
TABLE.append(("stats.beta.sf-frozen", st_beta_sf_frozen, _cont("beta")))


def st_beta_logsf(x, c0, c1, loc, scale):
    return np.sum(st.beta.logsf(x, c0, c1, loc=loc, scale=scale) * W3)


def st_beta_logsf_frozen(x, c0, c1, loc, scale):
    return np.sum(st.beta(c0, c1, loc=loc, scale=scale).logsf(x) * W3)


TABLE.append(("stats.beta.logsf", st_beta_logsf, _cont("beta")))
TABLE.append(("stats.beta.logsf-frozen", st_beta_logsf_frozen, _cont("beta")))


def st_gamma_pdf(x, c0, loc, scale):
    return np.sum(st.gamma.pdf(x, c0, loc=loc, scale=scale) * W3)


def st_gamma_pdf_frozen(x, c0, loc, scale):
    return np.sum(st.gamma(c0, loc=loc, scale=scale).pdf(x) * W3)


TABLE.append(("stats.gamma.pdf", st_gamma_pdf, _cont("gamma")))
TABLE.append(("stats.gamma.pdf-frozen", st_gamma_pdf_frozen, _cont("gamma")))


def st_gamma_logpdf(x, c0, loc, scale):
    return np.sum(st.gamma.logpdf(x, c0, loc=loc, scale=scale) * W3)


def st_gamma_logpdf_frozen(x, c0, loc, scale):
    return np.sum(st.gamma(c0, loc=loc, scale=scale).logpdf(x) * W3)


TABLE.append(("stats.gamma.logpdf", st_gamma_logpdf, _cont("gamma")))
TABLE.append(("stats.gamma.logpdf-frozen", st_gamma_logpdf_frozen, _cont("gamma")))


def st_gamma_cdf(x, c0, loc, scale):
    return np.sum(st.gamma.cdf(x, c0, loc=loc, scale=scale) * W3)


def st_gamma_cdf_frozen(x, c0, loc, scale):
    return np.sum(st.gamma(c0, loc=loc, scale=scale).cdf(x) * W3)


TABLE.append(("stats.gamma.cdf", st_gamma_cdf, _cont("gamma")))
TABLE.append(("stats.gamma.cdf-frozen", st_gamma_cdf_frozen, _cont("gamma")))


def st_gamma_logcdf(x, c0, loc, scale):
    return np.sum(st.gamma.logcdf(x, c0, loc=loc, scale=scale) * W3)


def st_gamma_logcdf_frozen(x, c0, loc, scale):
    return np.sum(st.gamma(c0, loc=loc, scale=scale).logcdf(x) * W3)


TABLE.append(("stats.gamma.logcdf", st_gamma_logcdf, _cont("gamma")))
TABLE.append(("stats.gamma.logcdf-frozen", st_gamma_logcdf_frozen, _cont("gamma")))


def st_gamma_sf(x, c0, loc, scale):
    return np.sum(st.gamma.sf(x, c0, loc=loc, scale=scale) * W3)


def st_gamma_sf_frozen(x, c0, loc, scale):
    return np.sum(st.gamma(c0, loc=loc, scale=scale).sf(x) * W3)


TABLE.append(("stats.gamma.sf", st_gamma_sf, _cont("gamma")))
TABLE.append(("stats.gamma.sf-frozen", st_gamma_sf_frozen, _cont("gamma")))


def st_gamma_logsf(x, c0, loc, scale):
    return np.sum(st.gamma.logsf(x, c0, loc=loc, scale=scale) * W3)


def st_gamma_logsf_frozen(x, c0, loc, scale):
    return np.sum(st.gamma(c0, loc=loc, scale=scale).logsf(x) * W3)


TABLE.append(("stats.gamma.logsf", st_gamma_logsf, _cont("gamma")))
TABLE.append(("stats.gamma.logsf-frozen", st_gamma_logsf_frozen, _cont("gamma")))


def st_expon_pdf(x, loc, scale):
    return np.sum(st.expon.pdf(x, loc=loc, scale=scale) * W3)


def st_expon_pdf_frozen(x, loc, scale):
    return np.sum(st.expon(loc=loc, scale=scale).pdf(x) * W3)


TABLE.append(("stats.expon.pdf", st_expon_pdf, _cont("expon")))
TABLE.append(("stats.expon.pdf-frozen", st_expon_pdf_frozen, _cont("expon")))


def st_expon_logpdf(x, loc, scale):
    return np.sum(st.expon.logpdf(x, loc=loc, scale=scale) * W3)


def st_expon_logpdf_frozen(x, loc, scale):
    return np.sum(st.expon(loc=loc, scale=scale).logpdf(x) * W3)


TABLE.append(("stats.expon.logpdf", st_expon_logpdf, _cont("expon")))
TABLE.append(("stats.expon.logpdf-frozen", st_expon_logpdf_frozen, _cont("expon")))


def st_expon_cdf(x, loc, scale):
    return np.sum(st.expon.cdf(x, loc=loc, scale=scale) * W3)


def st_expon_cdf_frozen(x, loc, scale):
    return np.sum(st.expon(loc=loc, scale=scale).cdf(x) * W3)


TABLE.append(("stats.expon.cdf", st_expon_cdf, _cont("expon")))
TABLE.append(("stats.expon.cdf-frozen", st_expon_cdf_frozen, _cont("expon")))


def st_expon_logcdf(x, loc, scale):
    return np.sum(st.expon.logcdf(x, loc=loc, scale=scale) * W3)


def st_expon_logcdf_frozen(x, loc, scale):
    return np.sum(st.expon(loc=loc, scale=scale).logcdf(x) * W3)


TABLE.append(("stats.expon.logcdf", st_expon_logcdf, _cont("expon")))
TABLE.append(("stats.expon.logcdf-frozen", st_expon_logcdf_frozen, _cont("expon")))


def st_expon_sf(x, loc, scale):
    return np.sum(st.expon.sf(x, loc=loc, scale=scale) * W3)


def st_expon_sf_frozen(x, loc, scale):
    return np.sum(st.expon(loc=loc, scale=scale).sf(x) * W3)


TABLE.append(("stats.expon.sf", st_expon_sf, _cont("expon")))
TABLE.append(("stats.expon.sf-frozen", st_expon_sf_frozen, _cont("expon")))


def st_expon_logsf(x, loc, scale):
    return np.sum(st.expon.logsf(x, loc=loc, scale=scale) * W3)


def st_expon_logsf_frozen(x, loc, scale):
    return np.sum(st.expon(loc=loc, scale=scale).logsf(x) * W3)


TABLE.append(("stats.expon.logsf", st_expon_logsf, _cont("expon")))
TABLE.append(("stats.expon.logsf-frozen", st_expon_logsf_frozen, _cont("expon")))


def st_laplace_pdf(x, loc, scale):
    return np.sum(st.laplace.pdf(x, loc=loc, scale=scale) * W3)


def st_laplace_pdf_frozen(x, loc, scale):
    return np.sum(st.laplace(loc=loc, scale=scale).pdf(x) * W3)


TABLE.append(("stats.laplace.pdf", st_laplace_pdf, _cont("laplace")))
TABLE.append(("stats.laplace.pdf-frozen", st_laplace_pdf_frozen, _cont("laplace")))


def st_laplace_logpdf(x, loc, scale):
    return np.sum(st.laplace.logpdf(x, loc=loc, scale=scale) * W3)


def st_laplace_logpdf_frozen(x, loc, scale):
    return np.sum(st.laplace(loc=loc, scale=scale).logpdf(x) * W3)


TABLE.append(("stats.laplace.logpdf", st_laplace_logpdf, _cont("laplace")))
TABLE.append(("stats.laplace.logpdf-frozen", st_laplace_logpdf_frozen, _cont("laplace")))


def st_laplace_cdf(x, loc, scale):
    return np.sum(st.laplace.cdf(x, loc=loc, scale=scale) * W3)


def st_laplace_cdf_frozen(x, loc, scale):
    return np.sum(st.laplace(loc=loc, scale=scale).cdf(x) * W3)


TABLE.append(("stats.laplace.cdf", st_laplace_cdf, _cont("laplace")))
TABLE.append(("stats.laplace.cdf-frozen", st_laplace_cdf_frozen, _cont("laplace")))


def st_laplace_logcdf(x, loc, scale):
    return np.sum(st.laplace.logcdf(x, loc=loc, scale=scale) * W3)


def st_laplace_logcdf_frozen(x, loc, scale):
    return np.sum(st.laplace(loc=loc, scale=scale).logcdf(x) * W3)


TABLE.append(("stats.laplace.logcdf", st_laplace_logcdf, _cont("laplace")))
TABLE.append(("stats.laplace.logcdf-frozen", st_laplace_logcdf_frozen, _cont("laplace")))


def st_laplace_sf(x, loc, scale):
    return np.sum(st.laplace.sf(x, loc=loc, scale=scale) * W3)


def st_laplace_sf_frozen(x, loc, scale):
    return np.sum(st.laplace(loc=loc, scale=scale).sf(x) * W3)


TABLE.append(("stats.laplace.sf", st_laplace_sf, _cont("laplace")))
TABLE.append(("stats.laplace.sf-frozen", st_laplace_sf_frozen, _cont("laplace")))


def st_laplace_logsf(x, loc, scale):
    return np.sum(st.laplace.logsf(x, loc=loc, scale=scale) * W3)


def st_laplace_logsf_frozen(x, loc, scale):
    return np.sum(st.laplace(loc=loc, scale=scale).logsf(x) * W3)


TABLE.append(("stats.laplace.logsf", st_laplace_logsf, _cont("laplace")))
TABLE.append(("stats.laplace.logsf-frozen", st_laplace_logsf_frozen, _cont("laplace")))


def st_logistic_pdf(x, loc, scale):
    return np.sum(st.logistic.pdf(x, loc=loc, scale=scale) * W3)


def st_logistic_pdf_frozen(x, loc, scale):
    return np.sum(st.logistic(loc=loc, scale=scale).pdf(x) * W3)


TABLE.append(("stats.logistic.pdf", st_logistic_pdf, _cont("logistic")))
TABLE.append(("stats.logistic.pdf-frozen", st_logistic_pdf_frozen, _cont("logistic")))


def st_logistic_logpdf(x, loc, scale):
    return np.sum(st.logistic.logpdf(x, loc=loc, scale=scale) * W3)


def st_logistic_logpdf_frozen(x, loc, scale):
    return np.sum(st.logistic(loc=loc, scale=scale).logpdf(x) * W3)


TABLE.append(("stats.logistic.logpdf", st_logistic_logpdf, _cont("logistic")))
TABLE.append(("stats.logistic.logpdf-frozen", st_logistic_logpdf_frozen, _cont("logistic")))


def st_logistic_cdf(x, loc, scale):
    return np.sum(st.logistic.cdf(x, loc=loc, scale=scale) * W3)


def st_logistic_cdf_frozen(x, loc, scale):
    return np.sum(st.logistic(loc=loc, scale=scale).cdf(x) * W3)


TABLE.append(("stats.logistic.cdf", st_logistic_cdf, _cont("logistic")))
TABLE.append(("stats.logistic.cdf-frozen", st_logistic_cdf_frozen, _cont("logistic")))


def st_logistic_logcdf(x, loc, scale):
    return np.sum(st.logistic.logcdf(x, loc=loc, scale=scale) * W3)


def st_logistic_logcdf_frozen(x, loc, scale):
    return np.sum(st.logistic(loc=loc, scale=scale).logcdf(x) * W3)


TABLE.append(("stats.logistic.logcdf", st_logistic_logcdf, _cont("logistic")))
TABLE.append(("stats.logistic.logcdf-frozen", st_logistic_logcdf_frozen, _cont("logistic")))


def st_logistic_sf(x, loc, scale):
    return np.sum(st.logistic.sf(x, loc=loc, scale=scale) * W3)


def st_logistic_sf_frozen(x, loc, scale):
    return np.sum(st.logistic(loc=loc, scale=scale).sf(x) * W3)


TABLE.append(("stats.logistic.sf", st_logistic_sf, _cont("logistic")))
TABLE.append(("stats.logistic.sf-frozen", st_logistic_sf_frozen, _cont("logistic")))


def st_logistic_logsf(x, loc, scale):
    return np.sum(st.logistic.logsf(x, loc=loc, scale=scale) * W3)


def st_logistic_logsf_frozen(x, loc, scale):
    return np.sum(st.logistic(loc=loc, scale=scale).logsf(x) * W3)


TABLE.append(("stats.logistic.logsf", st_logistic_logsf, _cont("logistic")))
TABLE.append(("stats.logistic.logsf-frozen", st_logistic_logsf_frozen, _cont("logistic")))


def st_cauchy_pdf(x, loc, scale):
    return np.sum(st.cauchy.pdf(x, loc=loc, scale=scale) * W3)


def st_cauchy_pdf_frozen(x, loc, scale):
    return np.sum(st.cauchy(loc=loc, scale=scale).pdf(x) * W3)


TABLE.append(("stats.cauchy.pdf", st_cauchy_pdf, _cont("cauchy")))
TABLE.append(("stats.cauchy.pdf-frozen", st_cauchy_pdf_frozen, _cont("cauchy")))


def st_cauchy_logpdf(x, loc, scale):
    return np.sum(st.cauchy.logpdf(x, loc=loc, scale=scale) * W3)


def st_cauchy_logpdf_frozen(x, loc, scale):
    return np.sum(st.cauchy(loc=loc, scale=scale).logpdf(x) * W3)


TABLE.append(("stats.cauchy.logpdf", st_cauchy_logpdf, _cont("cauchy")))
TABLE.append(("stats.cauchy.logpdf-frozen", st_cauchy_logpdf_frozen, _cont("cauchy")))


def st_cauchy_cdf(x, loc, scale):
    return np.sum(st.cauchy.cdf(x, loc=loc, scale=scale) * W3)


def st_cauchy_cdf_frozen(x, loc, scale):
    return np.sum(st.cauchy(loc=loc, scale=scale).cdf(x) * W3)


TABLE.append(("stats.cauchy.cdf", st_cauchy_cdf, _cont("cauchy")))
TABLE.append(("stats.cauchy.cdf-frozen", st_cauchy_cdf_frozen, _cont("cauchy")))


def st_cauchy_logcdf(x, loc, scale):
    return np.sum(st.cauchy.logcdf(x, loc=loc, scale=scale) * W3)


def st_cauchy_logcdf_frozen(x, loc, scale):
    return np.sum(st.cauchy(loc=loc, scale=scale).logcdf(x) * W3)


TABLE.append(("stats.cauchy.logcdf", st_cauchy_logcdf, _cont("cauchy")))
TABLE.append(("stats.cauchy.logcdf-frozen", st_cauchy_logcdf_frozen, _cont("cauchy")))


def st_cauchy_sf(x, loc, scale):
    return np.sum(st.cauchy.sf(x, loc=loc, scale=scale) * W3)


def st_cauchy_sf_frozen(x, loc, scale):
    return np.sum(st.cauchy(loc=loc, scale=scale).sf(x) * W3)


TABLE.append(("stats.cauchy.sf", st_cauchy_sf, _cont("cauchy")))
TABLE.append(("stats.cauchy.sf-frozen", st_cauchy_sf_frozen, _cont("cauchy")))


def st_cauchy_logsf(x, loc, scale):
    return np.sum(st.cauchy.logsf(x, loc=loc, scale=scale) * W3)


def st_cauchy_logsf_frozen(x, loc, scale):
    return np.sum(st.cauchy(loc=loc, scale=scale).logsf(x) * W3)


TABLE.append(("stats.cauchy.logsf", st_cauchy_logsf, _cont("cauchy")))
TABLE.append(("stats.cauchy.logsf-frozen", st_cauchy_logsf_frozen, _cont("cauchy")))


def st_lognorm_pdf(x, c0, loc, scale):
    return np.sum(st.lognorm.pdf(x, c0, loc=loc, scale=scale) * W3)


def st_lognorm_pdf_frozen(x, c0, loc, scale):
    return np.sum(st.lognorm(c0, loc=loc, scale=scale).pdf(x) * W3)


TABLE.append(("stats.lognorm.pdf", st_lognorm_pdf, _cont("lognorm")))
TABLE.append(("stats.lognorm.pdf-frozen", st_lognorm_pdf_frozen, _cont("lognorm")))


def st_lognorm_logpdf(x, c0, loc, scale):
    return np.sum(st.lognorm.logpdf(x, c0, loc=loc, scale=scale) * W3)


def st_lognorm_logpdf_frozen(x, c0, loc, scale):
    return np.sum(st.lognorm(c0, loc=loc, scale=scale).logpdf(x) * W3)


TABLE.append(("stats.lognorm.logpdf", st_lognorm_logpdf, _cont("lognorm")))
TABLE.append(("stats.lognorm.logpdf-frozen", st_lognorm_logpdf_frozen, _cont("lognorm")))


def st_lognorm_cdf(x, c0, loc, scale):
    return np.sum(st.lognorm.cdf(x, c0, loc=loc, scale=scale) * W3)


def st_lognorm_cdf_frozen(x, c0, loc, scale):
    return np.sum(st.lognorm(c0, loc=loc, scale=scale).cdf(x) * W3)


TABLE.append(("stats.lognorm.cdf", st_lognorm_cdf, _cont("lognorm")))
TABLE.append(("stats.lognorm.cdf-frozen", st_lognorm_cdf_frozen, _cont("lognorm")))


def st_lognorm_logcdf(x, c0, loc, scale):
    return np.sum(st.lognorm.logcdf(x, c0, loc=loc, scale=scale) * W3)


def st_lognorm_logcdf_frozen(x, c0, loc, scale):
    return np.sum(st.lognorm(c0, loc=loc, scale=scale).logcdf(x) * W3)


TABLE.append(("stats.lognorm.logcdf", st_lognorm_logcdf, _cont("lognorm")))
TABLE.append(("stats.lognorm.logcdf-frozen", st_lognorm_logcdf_frozen, _cont("lognorm")))


def st_lognorm_sf(x, c0, loc, scale):
    return np.sum(st.lognorm.sf(x, c0, loc=loc, scale=scale) * W3)


def st_lognorm_sf_frozen(x, c0, loc, scale):
    return np.sum(st.lognorm(c0, loc=loc, scale=scale).sf(x) * W3)


TABLE.append(("stats.lognorm.sf", st_lognorm_sf, _cont("lognorm")))
TABLE.append(("stats.lognorm.sf-frozen", st_lognorm_sf_frozen, _cont("lognorm")))


def st_lognorm_logsf(x, c0, loc, scale):
    return np.sum(st.lognorm.logsf(x, c0, loc=loc, scale=scale) * W3)


def st_lognorm_logsf_frozen(x, c0, loc, scale):
    return np.sum(st.lognorm(c0, loc=loc, scale=scale).logsf(x) * W3)


TABLE.append(("stats.lognorm.logsf", st_lognorm_logsf, _cont("lognorm")))
TABLE.append(("stats.lognorm.logsf-frozen", st_lognorm_logsf_frozen, _cont("lognorm")))


def st_uniform_pdf(x, loc, scale):
    return np.sum(st.uniform.pdf(x, loc=loc, scale=scale) * W3)


def st_uniform_pdf_frozen(x, loc, scale):
    return np.sum(st.uniform(loc=loc, scale=scale).pdf(x) * W3)


TABLE.append(("stats.uniform.pdf", st_uniform_pdf, _cont("uniform")))
TABLE.append(("stats.uniform.pdf-frozen", st_uniform_pdf_frozen, _cont("uniform")))


def st_uniform_logpdf(x, loc, scale):
    return np.sum(st.uniform.logpdf(x, loc=loc, scale=scale) * W3)


def st_uniform_logpdf_frozen(x, loc, scale):
    return np.sum(st.uniform(loc=loc, scale=scale).logpdf(x) * W3)


TABLE.append(("stats.uniform.logpdf", st_uniform_logpdf, _cont("uniform")))
TABLE.append(("stats.uniform.logpdf-frozen", st_uniform_logpdf_frozen, _cont("uniform")))


def st_uniform_cdf(x, loc, scale):
    return np.sum(st.uniform.cdf(x, loc=loc, scale=scale) * W3)


def st_uniform_cdf_frozen(x, loc, scale):
    return np.sum(st.uniform(loc=loc, scale=scale).cdf(x) * W3)


TABLE.append(("stats.uniform.cdf", st_uniform_cdf, _cont("uniform")))
TABLE.append(("stats.uniform.cdf-frozen", st_uniform_cdf_frozen, _cont("uniform")))


def st_uniform_logcdf(x, loc, scale):
    return np.sum(st.uniform.logcdf(x, loc=loc, scale=scale) * W3)


def st_uniform_logcdf_frozen(x, loc, scale):
    return np.sum(st.uniform(loc=loc, scale=scale).logcdf(x) * W3)


TABLE.append(("stats.uniform.logcdf", st_uniform_logcdf, _cont("uniform")))
TABLE.append(("stats.uniform.logcdf-frozen", st_uniform_logcdf_frozen, _cont("uniform")))


def st_uniform_sf(x, loc, scale):
    return np.sum(st.uniform.sf(x, loc=loc, scale=scale) * W3)


def st_uniform_sf_frozen(x, loc, scale):
    return np.sum(st.uniform(loc=loc, scale=scale).sf(x) * W3)


TABLE.append(("stats.uniform.sf", st_uniform_sf, _cont("uniform")))
TABLE.append(("stats.uniform.sf-frozen", st_uniform_sf_frozen, _cont("uniform")))


def st_uniform_logsf(x, loc, scale):
    return np.sum(st.uniform.logsf(x, loc=loc, scale=scale) * W3)


def st_uniform_logsf_frozen(x, loc, scale):
    return np.sum(st.uniform(loc=loc, scale=scale).logsf(x) * W3)


TABLE.append(("stats.uniform.logsf", st_uniform_logsf, _cont("uniform")))
TABLE.append(("stats.uniform.logsf-frozen", st_uniform_logsf_frozen, _cont("uniform")))


K = np.array([0.0, 2.0, 5.0])


@add("stats.poisson.pmf", (np.array([1.5]),))
def st_poisson_pmf(mu):
    return np.sum(st.poisson.pmf(K, mu) * W3)


@add("stats.poisson.logpmf", (np.array([1.5]),))
def st_poisson_logpmf(mu):
    return np.sum(st.poisson.logpmf(K, mu) * W3)


@add("stats.binom.pmf", (0.35,))
def st_binom_pmf(p):
    return np.sum(st.binom.pmf(K, 6, p) * W3)


@add("stats.binom.logpmf", (0.35,))
def st_binom_logpmf(p):
    return np.sum(st.binom.logpmf(K, 6, p) * W3)


@add("stats.nbinom.pmf", (2.5, 0.4))
def st_nbinom_pmf(n, p):
    return np.sum(st.nbinom.pmf(K, n, p) * W3)


@add("stats.nbinom.logpmf", (2.5, 0.4))
def st_nbinom_logpmf(n, p):
    return np.sum(st.nbinom.logpmf(K, n, p) * W3)


@add("stats.poisson.logpmf-frozen", (1.5,))
def st_poisson_frozen(mu):
    return np.sum(st.poisson(mu).logpmf(K) * W3)


@add("stats.dirichlet.pdf", (np.array([0.2, 0.3]), np.array([1.5, 2.0, 2.5])))
def st_dirichlet_pdf(x, alpha):
    return st.dirichlet.pdf(np.concatenate([x, 1.0 - np.sum(x, keepdims=True)]), alpha)


@add("stats.dirichlet.logpdf", (np.array([0.2, 0.3]), np.array([1.5, 2.0, 2.5])))
def st_dirichlet_logpdf(x, alpha):
    return st.dirichlet.logpdf(np.concatenate([x, 1.0 - np.sum(x, keepdims=True)]), alpha)


C3 = M @ M.T


@add("stats.multivariate_normal.logpdf", (X, np.array([0.1, 0.2, -0.3]), C3))
def st_mvn_logpdf(x, mean, cov):
    return st.multivariate_normal.logpdf(x, mean, 0.5 * (cov + cov.T))


@add("stats.multivariate_normal.pdf", (X, np.array([0.1, 0.2, -0.3]), C3))
def st_mvn_pdf(x, mean, cov):
    return st.multivariate_normal.pdf(x, mean=mean, cov=0.5 * (cov + cov.T))


@add("stats.multivariate_normal.logpdf-rows", (M2[:, :3].copy(), np.array([0.1, 0.2, -0.3]), C3))
def st_mvn_logpdf_rows(x, mean, cov):
    return np.sum(st.multivariate_normal.logpdf(x, mean, 0.5 * (cov + cov.T)) * W3)


@add("stats.multivariate_normal.logpdf-allow_singular", (X, np.array([0.1, 0.2, -0.3]), C3))
def st_mvn_singular(x, mean, cov):
    return st.multivariate_normal.logpdf(x, mean, 0.5 * (cov + cov.T), allow_singular=True)


@add("stats.multivariate_normal.logpdf-frozen", (X, np.array([0.1, 0.2, -0.3]), C3))
def st_mvn_frozen(x, mean, cov):
    return st.multivariate_normal(mean, 0.5 * (cov + cov.T)).logpdf(x)


# --- scipy.linalg ---------------------------------------------------------------------------

SPD = C3 + np.eye(3)
L3 = np.tril(M) + np.eye(3)


@add("linalg.solve_triangular", (L3, X))
def la_solve_triangular(a, b):
    return np.sum(sla.solve_triangular(a, b, lower=True) * W3)


@add("linalg.solve_triangular-trans", (L3.T.copy(), M))
def la_solve_triangular_trans(a, b):
    return np.sum(sla.solve_triangular(a, b, trans="T") * M)


@add("linalg.cholesky", (SPD,))
def la_cholesky(a):
    return np.sum(sla.cholesky(0.5 * (a + a.T), lower=True) * M)


@add("linalg.cho_factor-cho_solve", (SPD, X))
def la_cho(a, b):
    c = sla.cho_factor(0.5 * (a + a.T))
    return np.sum(sla.cho_solve(c, b) * W3)


@add("linalg.lu", (M,))
def la_lu(a):
    p, l, u = sla.lu(a)
    return np.sum(l * M) + np.sum(u * M.T)


@add("linalg.lu_factor-lu_solve", (M, X))
def la_lu_solve(a, b):
    return np.sum(sla.lu_solve(sla.lu_factor(a), b) * W3)


@add("linalg.solve", (M, X))
def la_solve(a, b):
    return np.sum(sla.solve(a, b) * W3)


@add("linalg.inv", (M,))
def la_inv(a):
    return np.sum(sla.inv(a) * M)


@add("linalg.det", (M,))
def la_det(a):
    return sla.det(a)


@add("linalg.eigh", (SPD,))
def la_eigh(a):
    w, v = sla.eigh(0.5 * (a + a.T))
    return np.sum(w * W3) + np.sum(v[:, 0] ** 2 * W3)


@add("linalg.expm", (0.3 * M,))
def la_expm(a):
    return np.sum(sla.expm(a) * M)


@add("linalg.sqrtm", (SPD,))
def la_sqrtm(a):
    return np.sum(sla.sqrtm(a) * M)


@add("linalg.logm", (SPD,))
def la_logm(a):
    return np.sum(sla.logm(a) * M)


@add("linalg.solve_sylvester", (M, SPD, M.T.copy()))
def la_sylvester(a, b, q):
    return np.sum(sla.solve_sylvester(a, b, q) * M)


@add("linalg.solve_continuous_lyapunov", (-SPD, M))
def la_lyapunov(a, q):
    return np.sum(sla.solve_continuous_lyapunov(a, q) * M)


@add("linalg.solve_banded", (np.array([[0.0, 0.5, -0.3], [2.0, 1.8, 1.6], [0.2, 0.4, 0.0]]), X))
def la_banded(ab, b):
    return np.sum(sla.solve_banded((1, 1), ab, b) * W3)


@add("linalg.block_diag", (M, X[:2].copy()))
def la_block_diag(a, b):
    return np.sum(sla.block_diag(a, b[None, :]) ** 2 * np.arange(20.0).reshape(4, 5))


@add("linalg.toeplitz", (X, np.array([0.3, -0.5, 0.8])))
def la_toeplitz(c, r):
    return np.sum(sla.toeplitz(c, r) ** 2 * M)


# --- scipy.signal, integrate, optimize -------------------------------------------------------

def sg_convolve_full(a, b):
    return np.sum(ssig.convolve(a, b, mode="full") ** 2 * np.arange(1.0, 11.0)[:7])


def sg_correlate_full(a, b):
    return np.sum(ssig.correlate(a, b, mode="full") ** 2 * np.arange(1.0, 11.0)[:7])


TABLE.append(("signal.convolve-full", sg_convolve_full, (V, X)))
TABLE.append(("signal.correlate-full", sg_correlate_full, (V, X)))


def sg_convolve_same(a, b):
    return np.sum(ssig.convolve(a, b, mode="same") ** 2 * np.arange(1.0, 11.0)[:5])


def sg_correlate_same(a, b):
    return np.sum(ssig.correlate(a, b, mode="same") ** 2 * np.arange(1.0, 11.0)[:5])


TABLE.append(("signal.convolve-same", sg_convolve_same, (V, X)))
TABLE.append(("signal.correlate-same", sg_correlate_same, (V, X)))


def sg_convolve_valid(a, b):
    return np.sum(ssig.convolve(a, b, mode="valid") ** 2 * np.arange(1.0, 11.0)[:3])


def sg_correlate_valid(a, b):
    return np.sum(ssig.correlate(a, b, mode="valid") ** 2 * np.arange(1.0, 11.0)[:3])


TABLE.append(("signal.convolve-valid", sg_convolve_valid, (V, X)))
TABLE.append(("signal.correlate-valid", sg_correlate_valid, (V, X)))


def decay(y, t, k):
    return -k * y + 0.1 * t


@add("integrate.odeint", (X, 0.7, np.array([0.0, 0.5, 1.0])))
def ig_odeint(y0, k, t):
    return np.sum(odeint(decay, y0, t, args=(k,), rtol=1e-10, atol=1e-10) ** 2)


def decay_ivp(t, y, k):
    return -k * y + 0.1 * t


@add("integrate.solve_ivp", (X, 0.7, np.array([0.2, 0.5, 0.9])))
def ig_solve_ivp(y0, k, t):
    sol = solve_ivp(decay_ivp, (0.0, 1.0), y0, t_eval=t, args=(k,), rtol=1e-10, atol=1e-10)
    return np.sum(sol.y ** 2)


@add("optimize.rosen", (V,))
def op_rosen(x):
    return sopt.rosen(x)


# --- FFT (numpy.fft and scipy.fft) ----------------------------------------------------------

R1 = np.array([0.3, -1.2, 0.8, 0.5, 1.1, -0.4])
R2 = np.array([[0.3, -1.2, 0.8, 0.5], [1.1, 0.2, -0.7, 0.4], [-0.6, 0.9, 0.1, 1.3]])
WR = np.linspace(0.5, 2.0, 40)

def ff_np_fft_0(x):
    z = np.fft.fft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fft", ff_np_fft_0, (R1,)))


def ff_np_fft_1(x):
    z = np.fft.fft(x, n=8)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fft-n", ff_np_fft_1, (R1,)))


def ff_np_fft_2(x):
    z = np.fft.fft(x, 4)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fft-n-short", ff_np_fft_2, (R1,)))


def ff_np_fft_3(x):
    z = np.fft.fft(x, axis=0)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fft-axis", ff_np_fft_3, (R2,)))


def ff_np_fft_4(x):
    z = np.fft.fft(x, norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fft-norm-ortho", ff_np_fft_4, (R1,)))


def ff_np_fft_5(x):
    z = np.fft.fft(x, norm='forward')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fft-norm-forward", ff_np_fft_5, (R1,)))


def ff_np_fft_6(x):
    z = np.fft.ifft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.ifft", ff_np_fft_6, (R1,)))


def ff_np_fft_7(x):
    z = np.fft.ifft(x, n=8, norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.ifft-n-norm", ff_np_fft_7, (R1,)))


def ff_np_fft_8(x):
    z = np.fft.rfft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.rfft", ff_np_fft_8, (R1,)))


def ff_np_fft_9(x):
    z = np.fft.rfft(x, n=9)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.rfft-n", ff_np_fft_9, (R1,)))


def ff_np_fft_10(x):
    z = np.fft.rfft(x, axis=0)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.rfft-axis", ff_np_fft_10, (R2,)))


def ff_np_fft_11(x):
    z = np.fft.rfft(x, norm='forward')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.rfft-norm", ff_np_fft_11, (R1,)))


def ff_np_fft_12(x):
    z = np.fft.irfft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.irfft", ff_np_fft_12, (R1,)))


def ff_np_fft_13(x):
    z = np.fft.irfft(x, n=7)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.irfft-n", ff_np_fft_13, (R1,)))


def ff_np_fft_14(x):
    z = np.fft.irfft(x, norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.irfft-norm", ff_np_fft_14, (R1,)))


def ff_np_fft_15(x):
    z = np.fft.fft2(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fft2", ff_np_fft_15, (R2,)))


def ff_np_fft_16(x):
    z = np.fft.fft2(x, s=(4, 5))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fft2-s", ff_np_fft_16, (R2,)))


def ff_np_fft_17(x):
    z = np.fft.fft2(x, axes=(1, 0), norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fft2-axes-norm", ff_np_fft_17, (R2,)))


def ff_np_fft_18(x):
    z = np.fft.ifft2(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.ifft2", ff_np_fft_18, (R2,)))


def ff_np_fft_19(x):
    z = np.fft.ifft2(x, s=(2, 3))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.ifft2-s", ff_np_fft_19, (R2,)))


def ff_np_fft_20(x):
    z = np.fft.rfft2(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.rfft2", ff_np_fft_20, (R2,)))


def ff_np_fft_21(x):
    z = np.fft.rfft2(x, s=(4, 6))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.rfft2-s", ff_np_fft_21, (R2,)))


def ff_np_fft_22(x):
    z = np.fft.irfft2(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.irfft2", ff_np_fft_22, (R2,)))


def ff_np_fft_23(x):
    z = np.fft.irfft2(x, s=(3, 5))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.irfft2-s", ff_np_fft_23, (R2,)))


def ff_np_fft_24(x):
    z = np.fft.fftn(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fftn", ff_np_fft_24, (R2,)))


def ff_np_fft_25(x):
    z = np.fft.fftn(x, axes=(0,))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fftn-axes", ff_np_fft_25, (R2,)))


def ff_np_fft_26(x):
    z = np.fft.fftn(x, s=(5, 4), axes=(0, 1), norm='forward')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fftn-s-norm", ff_np_fft_26, (R2,)))


def ff_np_fft_27(x):
    z = np.fft.ifftn(x, norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.ifftn", ff_np_fft_27, (R2,)))


def ff_np_fft_28(x):
    z = np.fft.rfftn(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.rfftn", ff_np_fft_28, (R2,)))


def ff_np_fft_29(x):
    z = np.fft.rfftn(x, axes=(0,))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.rfftn-axes", ff_np_fft_29, (R2,)))


def ff_np_fft_30(x):
    z = np.fft.irfftn(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.irfftn", ff_np_fft_30, (R2,)))


def ff_np_fft_31(x):
    z = np.fft.irfftn(x, s=(3, 7), axes=(0, 1))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.irfftn-s", ff_np_fft_31, (R2,)))


def ff_np_fft_32(x):
    z = np.fft.hfft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.hfft", ff_np_fft_32, (R1,)))


def ff_np_fft_33(x):
    z = np.fft.hfft(x, n=8)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.hfft-n", ff_np_fft_33, (R1,)))


def ff_np_fft_34(x):
    z = np.fft.hfft(x, norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.hfft-norm", ff_np_fft_34, (R1,)))


def ff_np_fft_35(x):
    z = np.fft.ihfft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.ihfft", ff_np_fft_35, (R1,)))


def ff_np_fft_36(x):
    z = np.fft.ihfft(x, n=8, norm='forward')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.ihfft-n", ff_np_fft_36, (R1,)))


def ff_np_fft_37(x):
    z = np.fft.fftshift(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fftshift", ff_np_fft_37, (R2,)))


def ff_np_fft_38(x):
    z = np.fft.fftshift(x, axes=1)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fftshift-axes", ff_np_fft_38, (R2,)))


def ff_np_fft_39(x):
    z = np.fft.ifftshift(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.ifftshift", ff_np_fft_39, (R2,)))


def ff_np_fft_40(x):
    z = np.fft.ifftshift(x, axes=(0,))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.ifftshift-axes", ff_np_fft_40, (R2,)))


def ff_np_fft_41(x):
    z = np.fft.fftfreq(6, d=0.5) * x
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.fftfreq", ff_np_fft_41, (R1,)))


def ff_np_fft_42(x):
    z = np.fft.rfftfreq(10, d=0.5) * x
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("np.fft.rfftfreq", ff_np_fft_42, (R1,)))


def ff_scipy_fft_0(x):
    z = sfft.fft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fft", ff_scipy_fft_0, (R1,)))


def ff_scipy_fft_1(x):
    z = sfft.fft(x, n=8)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fft-n", ff_scipy_fft_1, (R1,)))


def ff_scipy_fft_2(x):
    z = sfft.fft(x, 4)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fft-n-short", ff_scipy_fft_2, (R1,)))


def ff_scipy_fft_3(x):
    z = sfft.fft(x, axis=0)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fft-axis", ff_scipy_fft_3, (R2,)))


def ff_scipy_fft_4(x):
    z = sfft.fft(x, norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fft-norm-ortho", ff_scipy_fft_4, (R1,)))


def ff_scipy_fft_5(x):
    z = sfft.fft(x, norm='forward')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fft-norm-forward", ff_scipy_fft_5, (R1,)))


def ff_scipy_fft_6(x):
    z = sfft.ifft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.ifft", ff_scipy_fft_6, (R1,)))


def ff_scipy_fft_7(x):
    z = sfft.ifft(x, n=8, norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.ifft-n-norm", ff_scipy_fft_7, (R1,)))


def ff_scipy_fft_8(x):
    z = sfft.rfft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.rfft", ff_scipy_fft_8, (R1,)))


def ff_scipy_fft_9(x):
    z = sfft.rfft(x, n=9)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.rfft-n", ff_scipy_fft_9, (R1,)))


def ff_scipy_fft_10(x):
    z = sfft.rfft(x, axis=0)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.rfft-axis", ff_scipy_fft_10, (R2,)))


def ff_scipy_fft_11(x):
    z = sfft.rfft(x, norm='forward')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.rfft-norm", ff_scipy_fft_11, (R1,)))


def ff_scipy_fft_12(x):
    z = sfft.irfft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.irfft", ff_scipy_fft_12, (R1,)))


def ff_scipy_fft_13(x):
    z = sfft.irfft(x, n=7)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.irfft-n", ff_scipy_fft_13, (R1,)))


def ff_scipy_fft_14(x):
    z = sfft.irfft(x, norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.irfft-norm", ff_scipy_fft_14, (R1,)))


def ff_scipy_fft_15(x):
    z = sfft.fft2(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fft2", ff_scipy_fft_15, (R2,)))


def ff_scipy_fft_16(x):
    z = sfft.fft2(x, s=(4, 5))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fft2-s", ff_scipy_fft_16, (R2,)))


def ff_scipy_fft_17(x):
    z = sfft.fft2(x, axes=(1, 0), norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fft2-axes-norm", ff_scipy_fft_17, (R2,)))


def ff_scipy_fft_18(x):
    z = sfft.ifft2(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.ifft2", ff_scipy_fft_18, (R2,)))


def ff_scipy_fft_19(x):
    z = sfft.ifft2(x, s=(2, 3))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.ifft2-s", ff_scipy_fft_19, (R2,)))


def ff_scipy_fft_20(x):
    z = sfft.rfft2(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.rfft2", ff_scipy_fft_20, (R2,)))


def ff_scipy_fft_21(x):
    z = sfft.rfft2(x, s=(4, 6))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.rfft2-s", ff_scipy_fft_21, (R2,)))


def ff_scipy_fft_22(x):
    z = sfft.irfft2(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.irfft2", ff_scipy_fft_22, (R2,)))


def ff_scipy_fft_23(x):
    z = sfft.irfft2(x, s=(3, 5))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.irfft2-s", ff_scipy_fft_23, (R2,)))


def ff_scipy_fft_24(x):
    z = sfft.fftn(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fftn", ff_scipy_fft_24, (R2,)))


def ff_scipy_fft_25(x):
    z = sfft.fftn(x, axes=(0,))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fftn-axes", ff_scipy_fft_25, (R2,)))


def ff_scipy_fft_26(x):
    z = sfft.fftn(x, s=(5, 4), axes=(0, 1), norm='forward')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fftn-s-norm", ff_scipy_fft_26, (R2,)))


def ff_scipy_fft_27(x):
    z = sfft.ifftn(x, norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.ifftn", ff_scipy_fft_27, (R2,)))


def ff_scipy_fft_28(x):
    z = sfft.rfftn(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.rfftn", ff_scipy_fft_28, (R2,)))


def ff_scipy_fft_29(x):
    z = sfft.rfftn(x, axes=(0,))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.rfftn-axes", ff_scipy_fft_29, (R2,)))


def ff_scipy_fft_30(x):
    z = sfft.irfftn(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.irfftn", ff_scipy_fft_30, (R2,)))


def ff_scipy_fft_31(x):
    z = sfft.irfftn(x, s=(3, 7), axes=(0, 1))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.irfftn-s", ff_scipy_fft_31, (R2,)))


def ff_scipy_fft_32(x):
    z = sfft.hfft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.hfft", ff_scipy_fft_32, (R1,)))


def ff_scipy_fft_33(x):
    z = sfft.hfft(x, n=8)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.hfft-n", ff_scipy_fft_33, (R1,)))


def ff_scipy_fft_34(x):
    z = sfft.hfft(x, norm='ortho')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.hfft-norm", ff_scipy_fft_34, (R1,)))


def ff_scipy_fft_35(x):
    z = sfft.ihfft(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.ihfft", ff_scipy_fft_35, (R1,)))


def ff_scipy_fft_36(x):
    z = sfft.ihfft(x, n=8, norm='forward')
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.ihfft-n", ff_scipy_fft_36, (R1,)))


def ff_scipy_fft_37(x):
    z = sfft.fftshift(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fftshift", ff_scipy_fft_37, (R2,)))


def ff_scipy_fft_38(x):
    z = sfft.fftshift(x, axes=1)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fftshift-axes", ff_scipy_fft_38, (R2,)))


def ff_scipy_fft_39(x):
    z = sfft.ifftshift(x)
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.ifftshift", ff_scipy_fft_39, (R2,)))


def ff_scipy_fft_40(x):
    z = sfft.ifftshift(x, axes=(0,))
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.ifftshift-axes", ff_scipy_fft_40, (R2,)))


def ff_scipy_fft_41(x):
    z = sfft.fftfreq(6, d=0.5) * x
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.fftfreq", ff_scipy_fft_41, (R1,)))


def ff_scipy_fft_42(x):
    z = sfft.rfftfreq(10, d=0.5) * x
    return np.sum(np.real(z) * WR[:z.size].reshape(z.shape)) + np.sum(np.imag(z) ** 2)


TABLE.append(("scipy.fft.rfftfreq", ff_scipy_fft_42, (R1,)))


# --- NumPy's remaining gaps -----------------------------------------------------------------

@add("np.gradient", (V,))
def np_gradient(x):
    return np.sum(np.gradient(x ** 2) * W5) + np.sum(np.gradient(M * x[0], axis=1) * M)


@add("np.linalg.pinv", (M2,))
def np_pinv(a):
    return np.sum(np.linalg.pinv(a) * M2.T)


@add("np.linalg.eig", (M,))
def np_eig(a):
    w, v = np.linalg.eig(a)
    return np.sum(np.real(w) * W3) + np.sum(np.abs(v[0]) ** 2 * W3)


@add("np.linalg.eigvals", (np.array([[1.0, -2.0], [3.0, 0.5]]),))
def np_eigvals(a):
    w = np.linalg.eigvals(a)
    return np.sum(np.real(w) ** 2) + np.sum(np.imag(w) ** 2 * np.array([1.0, 0.3]))


@add("np.linalg.lstsq", (M2.T.copy(), V[:4].copy()))
def np_lstsq(a, b):
    return np.sum(np.linalg.lstsq(a, b, rcond=None)[0] * W3)


@add("np.linalg.qr", (M2.T.copy(),))
def np_qr(a):
    q, r = np.linalg.qr(a)
    return np.sum(q * M2.T) + np.sum(r * M)


@add("np.linalg.matrix_power", (0.5 * M,))
def np_matrix_power(a):
    return np.sum(np.linalg.matrix_power(a, 3) * M) + np.sum(np.linalg.matrix_power(a, -2) * M)


@add("np.kron", (M, X))
def np_kron(a, b):
    return np.sum(np.kron(a, b) ** 2 * np.arange(27.0).reshape(3, 9))


@add("np.rollaxis", (M2,))
def np_rollaxis(a):
    return np.sum(np.rollaxis(a[None], 2, 0) ** 2 * np.arange(12.0).reshape(4, 1, 3))


@add("np.partition", (V,))
def np_partition(x):
    return np.sum(np.partition(x, 2) * W5)


@add("np.row_stack", (X,))
def np_row_stack(x):
    return np.sum(np.vstack([x, x ** 2]) * np.array([W3, W3[::-1]]))


@add("np.select", (V,))
def np_select(x):
    return np.sum(np.select([x < 0, x > 1], [x ** 2, np.sin(x)], default=x * 3) * W5)


@add("np.piecewise", (V,))
def np_piecewise(x):
    return np.sum(np.piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, lambda v: np.sin(v)]) * W5)


@add("np.insert", (V, 0.7))
def np_insert(x, v):
    return np.sum(np.insert(x, 2, v) ** 2 * np.arange(6.0))


@add("np.delete", (V,))
def np_delete(x):
    return np.sum(np.delete(x, [1, 3]) ** 2 * W3)


PAD_MODES = ["constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
             "reflect", "symmetric", "wrap", "empty"]
def np_pad_constant(x):
    y = np.pad(x, (2, 3), mode="constant")
    return np.sum(y[2:-3] ** 2 * W5) + np.sum(y[:2] * np.array([0.7, 1.3])) + np.sum(y[-3:] * np.array([0.2, -0.9, 1.1]))


TABLE.append(("np.pad-constant", np_pad_constant, (V,)))


def np_pad_edge(x):
    y = np.pad(x, (2, 3), mode="edge")
    return np.sum(y[2:-3] ** 2 * W5) + np.sum(y[:2] * np.array([0.7, 1.3])) + np.sum(y[-3:] * np.array([0.2, -0.9, 1.1]))


TABLE.append(("np.pad-edge", np_pad_edge, (V,)))


def np_pad_linear_ramp(x):
    y = np.pad(x, (2, 3), mode="linear_ramp")
    return np.sum(y[2:-3] ** 2 * W5) + np.sum(y[:2] * np.array([0.7, 1.3])) + np.sum(y[-3:] * np.array([0.2, -0.9, 1.1]))


TABLE.append(("np.pad-linear_ramp", np_pad_linear_ramp, (V,)))


def np_pad_maximum(x):
    y = np.pad(x, (2, 3), mode="maximum")
    return np.sum(y[2:-3] ** 2 * W5) + np.sum(y[:2] * np.array([0.7, 1.3])) + np.sum(y[-3:] * np.array([0.2, -0.9, 1.1]))


TABLE.append(("np.pad-maximum", np_pad_maximum, (V,)))


def np_pad_mean(x):
    y = np.pad(x, (2, 3), mode="mean")
    return np.sum(y[2:-3] ** 2 * W5) + np.sum(y[:2] * np.array([0.7, 1.3])) + np.sum(y[-3:] * np.array([0.2, -0.9, 1.1]))


TABLE.append(("np.pad-mean", np_pad_mean, (V,)))


def np_pad_median(x):
    y = np.pad(x, (2, 3), mode="median")
    return np.sum(y[2:-3] ** 2 * W5) + np.sum(y[:2] * np.array([0.7, 1.3])) + np.sum(y[-3:] * np.array([0.2, -0.9, 1.1]))


TABLE.append(("np.pad-median", np_pad_median, (V,)))


def np_pad_minimum(x):
    y = np.pad(x, (2, 3), mode="minimum")
    return np.sum(y[2:-3] ** 2 * W5) + np.sum(y[:2] * np.array([0.7, 1.3])) + np.sum(y[-3:] * np.array([0.2, -0.9, 1.1]))


TABLE.append(("np.pad-minimum", np_pad_minimum, (V,)))


def np_pad_reflect(x):
    y = np.pad(x, (2, 3), mode="reflect")
    return np.sum(y[2:-3] ** 2 * W5) + np.sum(y[:2] * np.array([0.7, 1.3])) + np.sum(y[-3:] * np.array([0.2, -0.9, 1.1]))


TABLE.append(("np.pad-reflect", np_pad_reflect, (V,)))


def np_pad_symmetric(x):
    y = np.pad(x, (2, 3), mode="symmetric")
    return np.sum(y[2:-3] ** 2 * W5) + np.sum(y[:2] * np.array([0.7, 1.3])) + np.sum(y[-3:] * np.array([0.2, -0.9, 1.1]))


TABLE.append(("np.pad-symmetric", np_pad_symmetric, (V,)))


def np_pad_wrap(x):
    y = np.pad(x, (2, 3), mode="wrap")
    return np.sum(y[2:-3] ** 2 * W5) + np.sum(y[:2] * np.array([0.7, 1.3])) + np.sum(y[-3:] * np.array([0.2, -0.9, 1.1]))


TABLE.append(("np.pad-wrap", np_pad_wrap, (V,)))


def np_pad_empty(x):
    y = np.pad(x, (2, 3), mode="empty")
    return np.sum(y[2:-3] ** 2 * W5)


TABLE.append(("np.pad-empty", np_pad_empty, (V,)))


@add("np.cross-axes", (M2[:, :3].copy(), M.T.copy()))
def np_cross_axes(a, b):
    return np.sum(np.cross(a, b, axisa=1, axisb=0, axisc=0) * np.arange(9.0).reshape(3, 3))


@add("np.cross-axis", (M2[:, :3].T.copy(), M))
def np_cross_axis(a, b):
    return np.sum(np.cross(a, b, axis=0) * np.arange(9.0).reshape(3, 3))


@add("np.linalg.svd-compute_uv=False", (M2,))
def np_svd_values(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) * W3)


@add("np.einsum-sublist", (M, X))
def np_einsum_sublist(a, b):
    return np.sum(np.einsum(a, [0, 1], b, [1], [0]) * W3)


@add("zero-size", (np.zeros((0, 3)), X))
def np_zero_size(a, x):
    return np.sum(np.exp(a) @ x) + np.sum(np.concatenate([a.ravel(), x]) ** 2)
