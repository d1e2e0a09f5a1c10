"""Derivative rules for ``scipy.stats`` (loaded only where SciPy imports).

The distributions' densities, distribution functions and their logarithms, in ``x``,
``loc``, ``scale`` and the shape parameters, called as ``norm.logpdf(x, mu, s)`` or on a
frozen distribution (``norm(mu, s).logpdf(x)``: see :mod:`s2sad.transforms.frozen`).
With ``z = (x - loc) / scale`` and ``dz`` the derivative of the standard log density
in ``z``, ``logpdf``'s derivatives are ``dz / scale`` in ``x``, ``-dz / scale`` in
``loc`` and ``-(1 + z dz) / scale`` in ``scale``; ``cdf``'s are the density, times
``1``, ``-1`` and ``-z``. Outside the support (``pdf`` 0, ``logpdf`` -inf) they are 0;
where SciPy's value is NaN (``scale <= 0``), NaN. A shape parameter of a distribution
function with no derivative in closed form (``t.cdf``'s ``df``, ``gamma.cdf``'s ``a``) is
refused at the user's line where it varies.

>>> from s2sad import registry
>>> float(registry.lookup(stats.norm.logpdf).adjoint(1.0, stats.norm.logpdf(1.0), 1.0)[0])
-1.0
>>> registry.describe_function(stats.norm.logpdf)
'scipy.stats.norm.logpdf'
"""

import numpy as np
from scipy import special, stats

from ..registry import (defresult, deffacts, deftangent, defvjp, refuse_values,
                        refuse_varying)
from ..runtime import unbroadcast

# --- norm ----------------------------------------------------------------------------------


@defvjp(stats.norm.logpdf)
def norm_logpdf(g, ans, x, loc=0.0, scale=1.0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    z = (x - loc) / scale
    dz = -z
    return (unbroadcast(g * w * dz / scale, x),
            unbroadcast(-g * w * dz / scale, loc),
            unbroadcast(-g * w * (1.0 + z * dz) / scale, scale))


@defvjp(stats.norm.pdf)
def norm_pdf(g, ans, x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    dz = -z
    return (unbroadcast(g * ans * dz / scale, x),
            unbroadcast(-g * ans * dz / scale, loc),
            unbroadcast(-g * ans * (1.0 + z * dz) / scale, scale))


@defvjp(stats.norm.cdf)
def norm_cdf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.norm.pdf(x, loc, scale)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.norm.sf)
def norm_sf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.norm.pdf(x, loc, scale)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


@defvjp(stats.norm.logcdf)
def norm_logcdf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.norm.logpdf(x, loc, scale) - ans)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.norm.logsf)
def norm_logsf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.norm.logpdf(x, loc, scale) - ans)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


# --- t -------------------------------------------------------------------------------------


@defvjp(stats.t.logpdf)
def t_logpdf(g, ans, x, df, loc=0.0, scale=1.0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    z = (x - loc) / scale
    dz = -(df + 1.0) * z / (df + z * z)
    d_df = 0.5 * (special.digamma(0.5 * df + 0.5) - special.digamma(0.5 * df)
             - np.log1p(z * z / df) + (z * z - 1.0) / (df + z * z))
    return (unbroadcast(g * w * dz / scale, x),
            unbroadcast(g * w * d_df, df),
            unbroadcast(-g * w * dz / scale, loc),
            unbroadcast(-g * w * (1.0 + z * dz) / scale, scale))


@defvjp(stats.t.pdf)
def t_pdf(g, ans, x, df, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    dz = -(df + 1.0) * z / (df + z * z)
    d_df = 0.5 * (special.digamma(0.5 * df + 0.5) - special.digamma(0.5 * df)
             - np.log1p(z * z / df) + (z * z - 1.0) / (df + z * z))
    return (unbroadcast(g * ans * dz / scale, x),
            unbroadcast(g * ans * d_df, df),
            unbroadcast(-g * ans * dz / scale, loc),
            unbroadcast(-g * ans * (1.0 + z * dz) / scale, scale))


@defvjp(stats.t.cdf)
def t_cdf(g, ans, x, df, loc=0.0, scale=1.0):
    p = stats.t.pdf(x, df, loc, scale)
    return (unbroadcast(g * p, x),
            None,
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.t.sf)
def t_sf(g, ans, x, df, loc=0.0, scale=1.0):
    p = stats.t.pdf(x, df, loc, scale)
    return (unbroadcast(-g * p, x),
            None,
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


@defvjp(stats.t.logcdf)
def t_logcdf(g, ans, x, df, loc=0.0, scale=1.0):
    p = np.exp(stats.t.logpdf(x, df, loc, scale) - ans)
    return (unbroadcast(g * p, x),
            None,
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.t.logsf)
def t_logsf(g, ans, x, df, loc=0.0, scale=1.0):
    p = np.exp(stats.t.logpdf(x, df, loc, scale) - ans)
    return (unbroadcast(-g * p, x),
            None,
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


# --- chi2 ----------------------------------------------------------------------------------


@defvjp(stats.chi2.logpdf)
def chi2_logpdf(g, ans, x, df, loc=0.0, scale=1.0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    z = (x - loc) / scale
    z = np.where(z > 0.0, z, np.where(np.isfinite(ans), np.nan, 1.0))
    dz = (0.5 * df - 1.0) / z - 0.5
    d_df = 0.5 * (np.log(0.5 * z) - special.digamma(0.5 * df))
    return (unbroadcast(g * w * dz / scale, x),
            unbroadcast(g * w * d_df, df),
            unbroadcast(-g * w * dz / scale, loc),
            unbroadcast(-g * w * (1.0 + z * dz) / scale, scale))


@defvjp(stats.chi2.pdf)
def chi2_pdf(g, ans, x, df, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    z = np.where(z > 0.0, z, np.where(np.logical_and(ans > 0.0, np.isfinite(ans)), np.nan, 1.0))
    dz = (0.5 * df - 1.0) / z - 0.5
    d_df = 0.5 * (np.log(0.5 * z) - special.digamma(0.5 * df))
    return (unbroadcast(g * ans * dz / scale, x),
            unbroadcast(g * ans * d_df, df),
            unbroadcast(-g * ans * dz / scale, loc),
            unbroadcast(-g * ans * (1.0 + z * dz) / scale, scale))


@defvjp(stats.chi2.cdf)
def chi2_cdf(g, ans, x, df, loc=0.0, scale=1.0):
    p = stats.chi2.pdf(x, df, loc, scale)
    return (unbroadcast(g * p, x),
            None,
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.chi2.sf)
def chi2_sf(g, ans, x, df, loc=0.0, scale=1.0):
    p = stats.chi2.pdf(x, df, loc, scale)
    return (unbroadcast(-g * p, x),
            None,
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


@defvjp(stats.chi2.logcdf)
def chi2_logcdf(g, ans, x, df, loc=0.0, scale=1.0):
    p = np.exp(stats.chi2.logpdf(x, df, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    return (unbroadcast(g * p, x),
            None,
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.chi2.logsf)
def chi2_logsf(g, ans, x, df, loc=0.0, scale=1.0):
    p = np.exp(stats.chi2.logpdf(x, df, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    return (unbroadcast(-g * p, x),
            None,
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


# --- gamma ---------------------------------------------------------------------------------


@defvjp(stats.gamma.logpdf)
def gamma_logpdf(g, ans, x, a, loc=0.0, scale=1.0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    z = (x - loc) / scale
    z = np.where(z > 0.0, z, np.where(np.isfinite(ans), np.nan, 1.0))
    dz = (a - 1.0) / z - 1.0
    d_a = np.log(z) - special.digamma(a)
    return (unbroadcast(g * w * dz / scale, x),
            unbroadcast(g * w * d_a, a),
            unbroadcast(-g * w * dz / scale, loc),
            unbroadcast(-g * w * (1.0 + z * dz) / scale, scale))


@defvjp(stats.gamma.pdf)
def gamma_pdf(g, ans, x, a, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    z = np.where(z > 0.0, z, np.where(np.logical_and(ans > 0.0, np.isfinite(ans)), np.nan, 1.0))
    dz = (a - 1.0) / z - 1.0
    d_a = np.log(z) - special.digamma(a)
    return (unbroadcast(g * ans * dz / scale, x),
            unbroadcast(g * ans * d_a, a),
            unbroadcast(-g * ans * dz / scale, loc),
            unbroadcast(-g * ans * (1.0 + z * dz) / scale, scale))


@defvjp(stats.gamma.cdf)
def gamma_cdf(g, ans, x, a, loc=0.0, scale=1.0):
    p = stats.gamma.pdf(x, a, loc, scale)
    return (unbroadcast(g * p, x),
            None,
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.gamma.sf)
def gamma_sf(g, ans, x, a, loc=0.0, scale=1.0):
    p = stats.gamma.pdf(x, a, loc, scale)
    return (unbroadcast(-g * p, x),
            None,
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


@defvjp(stats.gamma.logcdf)
def gamma_logcdf(g, ans, x, a, loc=0.0, scale=1.0):
    p = np.exp(stats.gamma.logpdf(x, a, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    return (unbroadcast(g * p, x),
            None,
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.gamma.logsf)
def gamma_logsf(g, ans, x, a, loc=0.0, scale=1.0):
    p = np.exp(stats.gamma.logpdf(x, a, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    return (unbroadcast(-g * p, x),
            None,
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


# --- beta ----------------------------------------------------------------------------------


@defvjp(stats.beta.logpdf)
def beta_logpdf(g, ans, x, a, b, loc=0.0, scale=1.0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    z = (x - loc) / scale
    z = np.where(np.logical_and(z > 0.0, z < 1.0), z,
                 np.where(np.isfinite(ans), np.nan, 0.5))
    dz = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
    d_a = np.log(z) - special.digamma(a) + special.digamma(a + b)
    d_b = np.log1p(-z) - special.digamma(b) + special.digamma(a + b)
    return (unbroadcast(g * w * dz / scale, x),
            unbroadcast(g * w * d_a, a),
            unbroadcast(g * w * d_b, b),
            unbroadcast(-g * w * dz / scale, loc),
            unbroadcast(-g * w * (1.0 + z * dz) / scale, scale))


@defvjp(stats.beta.pdf)
def beta_pdf(g, ans, x, a, b, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    z = np.where(np.logical_and(z > 0.0, z < 1.0), z,
                 np.where(np.logical_and(ans > 0.0, np.isfinite(ans)), np.nan, 0.5))
    dz = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
    d_a = np.log(z) - special.digamma(a) + special.digamma(a + b)
    d_b = np.log1p(-z) - special.digamma(b) + special.digamma(a + b)
    return (unbroadcast(g * ans * dz / scale, x),
            unbroadcast(g * ans * d_a, a),
            unbroadcast(g * ans * d_b, b),
            unbroadcast(-g * ans * dz / scale, loc),
            unbroadcast(-g * ans * (1.0 + z * dz) / scale, scale))


@defvjp(stats.beta.cdf)
def beta_cdf(g, ans, x, a, b, loc=0.0, scale=1.0):
    p = stats.beta.pdf(x, a, b, loc, scale)
    return (unbroadcast(g * p, x),
            None,
            None,
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.beta.sf)
def beta_sf(g, ans, x, a, b, loc=0.0, scale=1.0):
    p = stats.beta.pdf(x, a, b, loc, scale)
    return (unbroadcast(-g * p, x),
            None,
            None,
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


@defvjp(stats.beta.logcdf)
def beta_logcdf(g, ans, x, a, b, loc=0.0, scale=1.0):
    p = np.exp(stats.beta.logpdf(x, a, b, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    return (unbroadcast(g * p, x),
            None,
            None,
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.beta.logsf)
def beta_logsf(g, ans, x, a, b, loc=0.0, scale=1.0):
    p = np.exp(stats.beta.logpdf(x, a, b, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    return (unbroadcast(-g * p, x),
            None,
            None,
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


# --- expon ---------------------------------------------------------------------------------


@defvjp(stats.expon.logpdf)
def expon_logpdf(g, ans, x, loc=0.0, scale=1.0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    z = (x - loc) / scale
    dz = -1.0
    return (unbroadcast(g * w * dz / scale, x),
            unbroadcast(-g * w * dz / scale, loc),
            unbroadcast(-g * w * (1.0 + z * dz) / scale, scale))


@defvjp(stats.expon.pdf)
def expon_pdf(g, ans, x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    dz = -1.0
    return (unbroadcast(g * ans * dz / scale, x),
            unbroadcast(-g * ans * dz / scale, loc),
            unbroadcast(-g * ans * (1.0 + z * dz) / scale, scale))


@defvjp(stats.expon.cdf)
def expon_cdf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.expon.pdf(x, loc, scale)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.expon.sf)
def expon_sf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.expon.pdf(x, loc, scale)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


@defvjp(stats.expon.logcdf)
def expon_logcdf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.expon.logpdf(x, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.expon.logsf)
def expon_logsf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.expon.logpdf(x, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


# --- laplace -------------------------------------------------------------------------------


@defvjp(stats.laplace.logpdf)
def laplace_logpdf(g, ans, x, loc=0.0, scale=1.0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    z = (x - loc) / scale
    dz = -np.sign(z)
    return (unbroadcast(g * w * dz / scale, x),
            unbroadcast(-g * w * dz / scale, loc),
            unbroadcast(-g * w * (1.0 + z * dz) / scale, scale))


@defvjp(stats.laplace.pdf)
def laplace_pdf(g, ans, x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    dz = -np.sign(z)
    return (unbroadcast(g * ans * dz / scale, x),
            unbroadcast(-g * ans * dz / scale, loc),
            unbroadcast(-g * ans * (1.0 + z * dz) / scale, scale))


@defvjp(stats.laplace.cdf)
def laplace_cdf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.laplace.pdf(x, loc, scale)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.laplace.sf)
def laplace_sf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.laplace.pdf(x, loc, scale)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


@defvjp(stats.laplace.logcdf)
def laplace_logcdf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.laplace.logpdf(x, loc, scale) - ans)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.laplace.logsf)
def laplace_logsf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.laplace.logpdf(x, loc, scale) - ans)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


# --- logistic ------------------------------------------------------------------------------


@defvjp(stats.logistic.logpdf)
def logistic_logpdf(g, ans, x, loc=0.0, scale=1.0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    z = (x - loc) / scale
    dz = -np.tanh(0.5 * z)
    return (unbroadcast(g * w * dz / scale, x),
            unbroadcast(-g * w * dz / scale, loc),
            unbroadcast(-g * w * (1.0 + z * dz) / scale, scale))


@defvjp(stats.logistic.pdf)
def logistic_pdf(g, ans, x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    dz = -np.tanh(0.5 * z)
    return (unbroadcast(g * ans * dz / scale, x),
            unbroadcast(-g * ans * dz / scale, loc),
            unbroadcast(-g * ans * (1.0 + z * dz) / scale, scale))


@defvjp(stats.logistic.cdf)
def logistic_cdf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.logistic.pdf(x, loc, scale)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.logistic.sf)
def logistic_sf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.logistic.pdf(x, loc, scale)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


@defvjp(stats.logistic.logcdf)
def logistic_logcdf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.logistic.logpdf(x, loc, scale) - ans)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.logistic.logsf)
def logistic_logsf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.logistic.logpdf(x, loc, scale) - ans)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


# --- cauchy --------------------------------------------------------------------------------


@defvjp(stats.cauchy.logpdf)
def cauchy_logpdf(g, ans, x, loc=0.0, scale=1.0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    z = (x - loc) / scale
    dz = -2.0 * z / (1.0 + z * z)
    return (unbroadcast(g * w * dz / scale, x),
            unbroadcast(-g * w * dz / scale, loc),
            unbroadcast(-g * w * (1.0 + z * dz) / scale, scale))


@defvjp(stats.cauchy.pdf)
def cauchy_pdf(g, ans, x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    dz = -2.0 * z / (1.0 + z * z)
    return (unbroadcast(g * ans * dz / scale, x),
            unbroadcast(-g * ans * dz / scale, loc),
            unbroadcast(-g * ans * (1.0 + z * dz) / scale, scale))


@defvjp(stats.cauchy.cdf)
def cauchy_cdf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.cauchy.pdf(x, loc, scale)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.cauchy.sf)
def cauchy_sf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.cauchy.pdf(x, loc, scale)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


@defvjp(stats.cauchy.logcdf)
def cauchy_logcdf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.cauchy.logpdf(x, loc, scale) - ans)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.cauchy.logsf)
def cauchy_logsf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.cauchy.logpdf(x, loc, scale) - ans)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


# --- lognorm -------------------------------------------------------------------------------


@defvjp(stats.lognorm.logpdf)
def lognorm_logpdf(g, ans, x, s, loc=0.0, scale=1.0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    z = (x - loc) / scale
    z = np.where(z > 0.0, z, np.where(np.isfinite(ans), np.nan, 1.0))
    dz = -(1.0 + np.log(z) / (s * s)) / z
    d_s = (np.log(z) ** 2 / (s * s) - 1.0) / s
    return (unbroadcast(g * w * dz / scale, x),
            unbroadcast(g * w * d_s, s),
            unbroadcast(-g * w * dz / scale, loc),
            unbroadcast(-g * w * (1.0 + z * dz) / scale, scale))


@defvjp(stats.lognorm.pdf)
def lognorm_pdf(g, ans, x, s, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    z = np.where(z > 0.0, z, np.where(np.logical_and(ans > 0.0, np.isfinite(ans)), np.nan, 1.0))
    dz = -(1.0 + np.log(z) / (s * s)) / z
    d_s = (np.log(z) ** 2 / (s * s) - 1.0) / s
    return (unbroadcast(g * ans * dz / scale, x),
            unbroadcast(g * ans * d_s, s),
            unbroadcast(-g * ans * dz / scale, loc),
            unbroadcast(-g * ans * (1.0 + z * dz) / scale, scale))


@defvjp(stats.lognorm.cdf)
def lognorm_cdf(g, ans, x, s, loc=0.0, scale=1.0):
    p = stats.lognorm.pdf(x, s, loc, scale)
    z = (x - loc) / scale
    z = np.where(z > 0.0, z, 1.0)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p * (x - loc) * np.log(z) / s, s),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.lognorm.sf)
def lognorm_sf(g, ans, x, s, loc=0.0, scale=1.0):
    p = stats.lognorm.pdf(x, s, loc, scale)
    z = (x - loc) / scale
    z = np.where(z > 0.0, z, 1.0)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p * (x - loc) * np.log(z) / s, s),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


@defvjp(stats.lognorm.logcdf)
def lognorm_logcdf(g, ans, x, s, loc=0.0, scale=1.0):
    p = np.exp(stats.lognorm.logpdf(x, s, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    z = (x - loc) / scale
    z = np.where(z > 0.0, z, 1.0)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p * (x - loc) * np.log(z) / s, s),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.lognorm.logsf)
def lognorm_logsf(g, ans, x, s, loc=0.0, scale=1.0):
    p = np.exp(stats.lognorm.logpdf(x, s, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    z = (x - loc) / scale
    z = np.where(z > 0.0, z, 1.0)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p * (x - loc) * np.log(z) / s, s),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


# --- uniform -------------------------------------------------------------------------------


@defvjp(stats.uniform.logpdf)
def uniform_logpdf(g, ans, x, loc=0.0, scale=1.0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    z = (x - loc) / scale
    dz = 0.0
    return (unbroadcast(g * w * dz / scale, x),
            unbroadcast(-g * w * dz / scale, loc),
            unbroadcast(-g * w * (1.0 + z * dz) / scale, scale))


@defvjp(stats.uniform.pdf)
def uniform_pdf(g, ans, x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    dz = 0.0
    return (unbroadcast(g * ans * dz / scale, x),
            unbroadcast(-g * ans * dz / scale, loc),
            unbroadcast(-g * ans * (1.0 + z * dz) / scale, scale))


@defvjp(stats.uniform.cdf)
def uniform_cdf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.uniform.pdf(x, loc, scale)
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.uniform.sf)
def uniform_sf(g, ans, x, loc=0.0, scale=1.0):
    p = stats.uniform.pdf(x, loc, scale)
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


@defvjp(stats.uniform.logcdf)
def uniform_logcdf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.uniform.logpdf(x, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    return (unbroadcast(g * p, x),
            unbroadcast(-g * p, loc),
            unbroadcast(-g * p * (x - loc) / scale, scale))


@defvjp(stats.uniform.logsf)
def uniform_logsf(g, ans, x, loc=0.0, scale=1.0):
    p = np.exp(stats.uniform.logpdf(x, loc, scale) - np.where(np.isneginf(ans), 0.0, ans))
    return (unbroadcast(-g * p, x),
            unbroadcast(g * p, loc),
            unbroadcast(g * p * (x - loc) / scale, scale))


# --- shape parameters with no derivative in closed form --------------------------------


def _shape_advice(name: str) -> str:
    return (f"The derivative of SciPy's {name} distribution function in its shape has no "
            "closed form s2sad knows (the density's has: logpdf and pdf take it); pass a "
            "constant, or wrap it in s2sad.stop_gradient() if its derivative should not "
            "flow.")


_CUMULATIVE = ("cdf", "sf", "logcdf", "logsf")
refuse_varying(*(getattr(stats.t, m) for m in _CUMULATIVE), df=_shape_advice("t"))
refuse_varying(*(getattr(stats.chi2, m) for m in _CUMULATIVE), df=_shape_advice("chi2"))
refuse_varying(*(getattr(stats.gamma, m) for m in _CUMULATIVE), a=_shape_advice("gamma"))
refuse_varying(*(getattr(stats.beta, m) for m in _CUMULATIVE), a=_shape_advice("beta"),
               b=_shape_advice("beta"))

# --- discrete distributions: their continuous parameters -------------------------------
# (k - loc counts; where the mass is 0, logpmf -inf, the derivatives are 0)


@defvjp(stats.poisson.logpmf)
def poisson_logpmf(g, ans, k, mu, loc=0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    return None, unbroadcast(g * w * ((k - loc) / np.where(mu > 0.0, mu, 1.0) - 1.0), mu), None


@defvjp(stats.poisson.pmf)
def poisson_pmf(g, ans, k, mu, loc=0):
    return None, unbroadcast(g * ans * ((k - loc) / np.where(mu > 0.0, mu, 1.0) - 1.0),
                             mu), None


@defvjp(stats.binom.logpmf)
def binom_logpmf(g, ans, k, n, p, loc=0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    dp = (k - loc) / np.where(p > 0.0, p, 1.0) - (n - k + loc) / np.where(p < 1.0, 1.0 - p,
                                                                          1.0)
    return None, None, unbroadcast(g * w * dp, p), None


@defvjp(stats.binom.pmf)
def binom_pmf(g, ans, k, n, p, loc=0):
    dp = (k - loc) / np.where(p > 0.0, p, 1.0) - (n - k + loc) / np.where(p < 1.0, 1.0 - p,
                                                                          1.0)
    return None, None, unbroadcast(g * ans * dp, p), None


@defvjp(stats.nbinom.logpmf)
def nbinom_logpmf(g, ans, k, n, p, loc=0):
    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, np.nan))
    j = np.where(np.isfinite(ans), k - loc, 0.0)
    q = np.where(p > 0.0, p, 1.0)
    return (None,
            unbroadcast(g * w * (special.digamma(j + n) - special.digamma(n) + np.log(q)), n),
            unbroadcast(g * w * (n / q - j / np.where(p < 1.0, 1.0 - p, 1.0)), p),
            None)


@defvjp(stats.nbinom.pmf)
def nbinom_pmf(g, ans, k, n, p, loc=0):
    j = np.where(ans > 0.0, k - loc, 0.0)
    q = np.where(p > 0.0, p, 1.0)
    return (None,
            unbroadcast(g * ans * (special.digamma(j + n) - special.digamma(n) + np.log(q)),
                        n),
            unbroadcast(g * ans * (n / q - j / np.where(p < 1.0, 1.0 - p, 1.0)), p),
            None)


_COUNT_ADVICE = ("It is a count: it has no derivative. Pass a count that does not depend "
                 "on the differentiated arguments (or wrap it in s2sad.stop_gradient()).")
refuse_varying(stats.poisson.pmf, stats.poisson.logpmf, k=_COUNT_ADVICE, loc=_COUNT_ADVICE)
refuse_varying(stats.binom.pmf, stats.binom.logpmf, k=_COUNT_ADVICE, n=_COUNT_ADVICE,
               loc=_COUNT_ADVICE)
refuse_varying(stats.nbinom.pmf, stats.nbinom.logpmf, k=_COUNT_ADVICE, loc=_COUNT_ADVICE)

# --- Dirichlet: x's components along its first axis ---------------------------------------
# (x may leave out the last component, 1 - sum(x), as in SciPy: its derivative is then
# the others' less the last one's)


@defvjp(stats.dirichlet.logpdf, shape="other")
def dirichlet_logpdf(g, ans, x, alpha):
    a = np.reshape(alpha, np.shape(alpha) + (1,) * (np.ndim(x) - 1))
    full = np.concatenate([x, 1.0 - np.sum(x, axis=0, keepdims=True)])[:np.size(alpha)]
    d = g * (a - 1.0) / full
    return (d[:np.shape(x)[0]] - (np.shape(x)[0] < np.size(alpha)) * d[np.size(alpha) - 1:],
            np.sum(np.reshape(g * (np.log(full) - special.digamma(a) +
                                   special.digamma(np.sum(alpha))), (np.size(alpha), -1)),
                   axis=1))


@deftangent(stats.dirichlet.logpdf)
def dirichlet_logpdf_tangent(g, ans, x, alpha):
    a = np.reshape(alpha, np.shape(alpha) + (1,) * (np.ndim(x) - 1))
    full = np.concatenate([x, 1.0 - np.sum(x, axis=0, keepdims=True)])[:np.size(alpha)]
    return (np.sum(np.concatenate([g, -np.sum(g, axis=0, keepdims=True)])[:np.size(alpha)] *
                   (a - 1.0) / full, axis=0),
            np.sum(np.reshape(g, np.shape(a)) * (np.log(full) - special.digamma(a) +
                                                 special.digamma(np.sum(alpha))), axis=0))


@defvjp(stats.dirichlet.pdf, shape="other")
def dirichlet_pdf(g, ans, x, alpha):
    a = np.reshape(alpha, np.shape(alpha) + (1,) * (np.ndim(x) - 1))
    full = np.concatenate([x, 1.0 - np.sum(x, axis=0, keepdims=True)])[:np.size(alpha)]
    d = g * ans * (a - 1.0) / full
    return (d[:np.shape(x)[0]] - (np.shape(x)[0] < np.size(alpha)) * d[np.size(alpha) - 1:],
            np.sum(np.reshape(g * ans * (np.log(full) - special.digamma(a) +
                                         special.digamma(np.sum(alpha))),
                              (np.size(alpha), -1)), axis=1))


@deftangent(stats.dirichlet.pdf)
def dirichlet_pdf_tangent(g, ans, x, alpha):
    a = np.reshape(alpha, np.shape(alpha) + (1,) * (np.ndim(x) - 1))
    full = np.concatenate([x, 1.0 - np.sum(x, axis=0, keepdims=True)])[:np.size(alpha)]
    return (ans * np.sum(np.concatenate([g, -np.sum(g, axis=0, keepdims=True)])[
                :np.size(alpha)] * (a - 1.0) / full, axis=0),
            ans * np.sum(np.reshape(g, np.shape(a)) * (np.log(full) - special.digamma(a) +
                                                       special.digamma(np.sum(alpha))),
                         axis=0))


# --- the multivariate normal: x's components along its last axis ---------------------------
# With r = x - mean and P the inverse of cov, logpdf is -(d log(2 pi) + log det cov +
# r P r) / 2: its derivatives are -P r in x, P r in mean, and (P r r P - P) / 2 in cov,
# summed over the points (symmetric, as for np.linalg.cholesky: exact along symmetric
# changes of cov). A number or a vector for cov is that times the identity, or its
# diagonal, as in SciPy; the points are the rows of x reshaped to (-1, d).


@defvjp(stats.multivariate_normal.logpdf, shape="other")
def multivariate_normal_logpdf(g, ans, x, mean=None, cov=1, allow_singular=False):
    m = 0.0 if mean is None else mean
    p = np.linalg.inv(cov if np.ndim(cov) == 2 else cov * np.eye(np.size(m)))
    r = np.reshape(x - m, (-1, np.shape(p)[-1])) @ p  # (P r, for each point)
    h = np.reshape(g, (-1, 1)) * r
    c = 0.5 * (np.transpose(h) @ r - np.sum(g) * p)
    return (unbroadcast(np.reshape(-h, np.shape(x - m)), x),
            unbroadcast(np.reshape(h, np.shape(x - m)), mean),
            c if np.ndim(cov) == 2 else unbroadcast(c * np.eye(np.size(m)), cov), None)


@deftangent(stats.multivariate_normal.logpdf)
def multivariate_normal_logpdf_tangent(g, ans, x, mean=None, cov=1, allow_singular=False):
    m = 0.0 if mean is None else mean
    p = np.linalg.inv(cov if np.ndim(cov) == 2 else cov * np.eye(np.size(m)))
    r = np.reshape(x - m, (-1, np.shape(p)[-1])) @ p
    return (np.reshape(-np.sum(r * np.reshape(g, (-1, np.shape(p)[-1])), axis=-1),
                       np.shape(ans)),
            np.reshape(np.sum(r * np.reshape(g, (-1, np.shape(p)[-1])), axis=-1),
                       np.shape(ans)),
            np.reshape(0.5 * (np.sum((r @ (g if np.ndim(cov) == 2 else g * np.eye(
                np.size(m)))) * r, axis=-1) - np.sum(p * (g if np.ndim(cov) == 2 else g *
                                                          np.eye(np.size(m))))),
                       np.shape(ans)),
            None)


@defvjp(stats.multivariate_normal.pdf, shape="other")
def multivariate_normal_pdf(g, ans, x, mean=None, cov=1, allow_singular=False):
    m = 0.0 if mean is None else mean
    p = np.linalg.inv(cov if np.ndim(cov) == 2 else cov * np.eye(np.size(m)))
    r = np.reshape(x - m, (-1, np.shape(p)[-1])) @ p
    h = np.reshape(g * ans, (-1, 1)) * r
    c = 0.5 * (np.transpose(h) @ r - np.sum(g * ans) * p)
    return (unbroadcast(np.reshape(-h, np.shape(x - m)), x),
            unbroadcast(np.reshape(h, np.shape(x - m)), mean),
            c if np.ndim(cov) == 2 else unbroadcast(c * np.eye(np.size(m)), cov), None)


@deftangent(stats.multivariate_normal.pdf)
def multivariate_normal_pdf_tangent(g, ans, x, mean=None, cov=1, allow_singular=False):
    m = 0.0 if mean is None else mean
    p = np.linalg.inv(cov if np.ndim(cov) == 2 else cov * np.eye(np.size(m)))
    r = np.reshape(x - m, (-1, np.shape(p)[-1])) @ p
    return (ans * np.reshape(-np.sum(r * np.reshape(g, (-1, np.shape(p)[-1])), axis=-1),
                             np.shape(ans)),
            ans * np.reshape(np.sum(r * np.reshape(g, (-1, np.shape(p)[-1])), axis=-1),
                             np.shape(ans)),
            ans * np.reshape(0.5 * (np.sum((r @ (g if np.ndim(cov) == 2 else g * np.eye(
                np.size(m)))) * r, axis=-1) - np.sum(p * (g if np.ndim(cov) == 2 else g *
                                                          np.eye(np.size(m))))),
                             np.shape(ans)),
            None)


_MVN = (stats.multivariate_normal.logpdf, stats.multivariate_normal.pdf)
for _method in _MVN:
    refuse_values(_method, "allow_singular", (False,),
                  "s2sad differentiates the multivariate normal with an invertible "
                  "covariance (allow_singular=False); for a singular one, project onto its "
                  "range first, or add a small multiple of the identity to it.")

# --- frozen distributions, and the dtypes of the results --------------------------------

_CONTINUOUS = (stats.norm, stats.t, stats.chi2, stats.beta, stats.gamma, stats.expon,
               stats.laplace, stats.logistic, stats.cauchy, stats.lognorm, stats.uniform)
_DISCRETE = (stats.poisson, stats.binom, stats.nbinom)
# calling one freezes it: d = norm(mu, s); d.logpdf(x) is norm.logpdf(x, mu, s) (the
# object holds its arguments, and reads them when its methods are called)
deffacts(*_CONTINUOUS, freezes=("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf",
                                 "isf"), returns_view_of="*")
deffacts(*_DISCRETE, freezes=("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"),
         returns_view_of="*")
deffacts(stats.dirichlet, stats.multivariate_normal, freezes=("pdf", "logpdf"),
         returns_view_of="*")
defresult(*(getattr(d, m) for d in _CONTINUOUS for m in ("pdf", "logpdf") + _CUMULATIVE),
          *(getattr(d, m) for d in _DISCRETE for m in ("pmf", "logpmf")), *_MVN,
          stats.dirichlet.pdf, stats.dirichlet.logpdf, kind="f")
