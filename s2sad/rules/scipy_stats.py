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

import linecache
from typing import NamedTuple

import numpy as np
from scipy import special, stats

from ..registry import defresult, deffacts, deftangent, defvjp, refuse_varying
from ..runtime import full_rank_inverse, read_triangle, spread_triangle, unbroadcast

# --- the location-scale families: one table, their rules written from it -------------------
# Each row is one family: its shape parameters, the derivative ``dz`` of its standard log
# density in z = (x - loc) / scale, the derivatives of that density in its shapes, the
# support z is taken back into (outside it the density is 0, and z a stand-in value), and
# whether that support is bounded (a log distribution function is then -inf outside it).
# Every family's six rules are written from the row as source, one function per rule, so
# that each reads (and is inlined into generated code) as if written by hand; the facts of
# each function follow below, in its own entry.


class _Family(NamedTuple):
    shapes: tuple = ()
    dz: str = "0.0"
    shape_terms: tuple = ()       # (the shape's name, its derivative's expression)
    support: str = ""             # the condition on z inside the support ("" for all z)
    fill: str = "1.0"             # z's stand-in value outside the support
    bounded: bool = False         # logcdf and logsf are -inf outside the support
    cdf_shapes: tuple = ()        # (shape, expression): cdf's derivatives in its shapes


_FAMILIES = {
    "norm": _Family(dz="-z"),
    "t": _Family(("df",), "-(df + 1.0) * z / (df + z * z)", (
        ("df", "0.5 * (special.digamma(0.5 * df + 0.5) - special.digamma(0.5 * df) "
               "- np.log1p(z * z / df) + (z * z - 1.0) / (df + z * z))"),)),
    "chi2": _Family(("df",), "(0.5 * df - 1.0) / z - 0.5", (
        ("df", "0.5 * (np.log(0.5 * z) - special.digamma(0.5 * df))"),), "z > 0.0",
        bounded=True),
    "gamma": _Family(("a",), "(a - 1.0) / z - 1.0", (
        ("a", "np.log(z) - special.digamma(a)"),), "z > 0.0", bounded=True),
    "beta": _Family(("a", "b"), "(a - 1.0) / z - (b - 1.0) / (1.0 - z)", (
        ("a", "np.log(z) - special.digamma(a) + special.digamma(a + b)"),
        ("b", "np.log1p(-z) - special.digamma(b) + special.digamma(a + b)")),
        "np.logical_and(z > 0.0, z < 1.0)", "0.5", bounded=True),
    "expon": _Family(dz="-1.0", bounded=True),
    "laplace": _Family(dz="-np.sign(z)"),
    "logistic": _Family(dz="-np.tanh(0.5 * z)"),
    "cauchy": _Family(dz="-2.0 * z / (1.0 + z * z)"),
    "lognorm": _Family(("s",), "-(1.0 + np.log(z) / (s * s)) / z", (
        ("s", "(np.log(z) ** 2 / (s * s) - 1.0) / s"),), "z > 0.0", bounded=True,
        cdf_shapes=(("s", "p * (x - loc) * np.log(z) / s"),)),
    "uniform": _Family(bounded=True),
}


def _density_source(name: str, family: _Family, log: bool) -> str:
    """The adjoint of ``name``'s logpdf (``log``) or pdf: the density's derivative times the
    sensitivity, weighted by the density itself (pdf) or by 1, 0 outside the support and
    NaN where SciPy's value is (logpdf)."""
    weight = "w" if log else "ans"
    shapes = "".join(f"{s}, " for s in family.shapes)
    lines = [f"def {name}_{'logpdf' if log else 'pdf'}(g, ans, x, {shapes}loc=0.0, scale=1.0):"]
    if log:
        lines.append("    w = np.where(np.isfinite(ans), 1.0, np.where(np.isneginf(ans), 0.0, "
                     "np.nan))")
    lines.append("    z = (x - loc) / scale")
    if family.support:
        inside = "np.isfinite(ans)" if log else \
            "np.logical_and(ans > 0.0, np.isfinite(ans))"
        lines.append(f"    z = np.where({family.support}, z, np.where({inside}, np.nan, "
                     f"{family.fill}))")
    lines.append(f"    dz = {family.dz}")
    lines += [f"    d_{s} = {term}" for s, term in family.shape_terms]
    parts = [f"unbroadcast(g * {weight} * dz / scale, x)"]
    parts += [f"unbroadcast(g * {weight} * d_{s}, {s})" for s, _ in family.shape_terms]
    parts += [f"unbroadcast(-g * {weight} * dz / scale, loc)",
              f"unbroadcast(-g * {weight} * (1.0 + z * dz) / scale, scale)"]
    lines.append(f"    return ({', '.join(parts)})")
    return "\n".join(lines) + "\n"


def _cumulative_source(name: str, family: _Family, method: str) -> str:
    """The adjoint of ``name``'s cdf, sf, logcdf or logsf: the density (over the value, for
    the logarithms) times 1, -1 and -z in x, loc and scale (negated for sf and logsf)."""
    shapes = "".join(f"{s}, " for s in family.shapes)
    lines = [f"def {name}_{method}(g, ans, x, {shapes}loc=0.0, scale=1.0):"]
    if method.startswith("log"):
        value = "np.where(np.isneginf(ans), 0.0, ans)" if family.bounded else "ans"
        lines.append(f"    p = np.exp(stats.{name}.logpdf(x, {shapes}loc, scale) - {value})")
    else:
        lines.append(f"    p = stats.{name}.pdf(x, {shapes}loc, scale)")
    if family.cdf_shapes:
        lines += ["    z = (x - loc) / scale", "    z = np.where(z > 0.0, z, 1.0)"]
    down, up = ("-g", "g") if method.endswith("cdf") else ("g", "-g")
    terms = dict(family.cdf_shapes)
    parts = [f"unbroadcast({up} * p, x)"]
    parts += [f"unbroadcast({down} * {terms[s]}, {s})" if s in terms else "None"
              for s in family.shapes]
    parts += [f"unbroadcast({down} * p, loc)", f"unbroadcast({down} * p * (x - loc) / scale, "
                                               "scale)"]
    lines.append(f"    return ({', '.join(parts)})")
    return "\n".join(lines) + "\n"


_CUMULATIVE = ("cdf", "sf", "logcdf", "logsf")


def _quantile_source(name: str, family: _Family, method: str) -> str:
    """The adjoint of ``name``'s ppf or isf, the inverse of its cdf or sf: one over the
    density at the quantile ``ans`` in q (negated for isf), 1 in loc and the standard
    quantile ``(ans - loc) / scale`` in scale. (Its shapes: refused below.)"""
    shapes = "".join(f"{s}, " for s in family.shapes)
    sign = "" if method == "ppf" else "-"
    parts = [f"unbroadcast({sign}g / stats.{name}.pdf(ans, {shapes}loc, scale), q)"]
    parts += ["None" for _ in family.shapes]
    parts += ["unbroadcast(g, loc)", "unbroadcast(g * (ans - loc) / scale, scale)"]
    return (f"def {name}_{method}(g, ans, q, {shapes}loc=0.0, scale=1.0):\n"
            f"    return ({', '.join(parts)})\n")


_QUANTILES = ("ppf", "isf")


def _define_family(name: str, family: _Family) -> None:
    """Write ``name``'s six rules from its row (as source, under a file name of their own that
    ``inspect.getsource`` reads, as the compiler does when it inlines a rule) and register
    each as the adjoint of its method of ``scipy.stats.<name>``."""
    text = "\n\n".join([_density_source(name, family, True), _density_source(name, family, False)]
                       + [_cumulative_source(name, family, m) for m in _CUMULATIVE]
                       + [_quantile_source(name, family, m) for m in _QUANTILES])
    filename = f"<s2sad.rules.scipy_stats: the rules of {name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), globals())
    distribution = getattr(stats, name)
    for method in ("logpdf", "pdf") + _CUMULATIVE + _QUANTILES:
        defvjp(getattr(distribution, method))(globals()[f"{name}_{method}"])
    for method in _QUANTILES:  # (a quantile's derivative in a shape: no closed form)
        refuse_varying(getattr(distribution, method),
                       **{shape: _quantile_advice(name) for shape in family.shapes})


def _quantile_advice(name: str) -> str:
    return (f"The derivative of SciPy's {name} quantile function (ppf, isf) in its shape "
            "has no closed form s2sad knows; pass a constant, or wrap it in "
            "s2sad.stop_gradient() if its derivative should not flow.")


for _name, _family in _FAMILIES.items():
    _define_family(_name, _family)


# --- shape parameters with no derivative in closed form --------------------------------


def _shape_advice(name: str) -> str:
    return (f"The derivative of SciPy's {name} distribution function in its shape has no "
            "closed form s2sad knows (the density's has: logpdf and pdf take it); pass a "
            "constant, or wrap it in s2sad.stop_gradient() if its derivative should not "
            "flow.")


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


deffacts(stats.binom.logpmf, stats.nbinom.logpmf, raises=("broadcast", "bool"))


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
# summed over the points. SciPy reads cov's lower triangle (scipy.linalg.eigh): c2 is the
# matrix it stands for, and the gradient is eigh's (symmetric where cov is, else in the
# triangle read: read_triangle). A number or a vector for cov is that times the identity, or its
# diagonal, as in SciPy; the points are the rows of x reshaped to (-1, d).


# pdf's rules are logpdf's for the sensitivity g * ans: one source, written out for each.

_MVN_ADJOINT = """\
def multivariate_normal_{method}(g, ans, x, mean=None, cov=1, allow_singular=False):
    m = 0.0 if mean is None else mean
    c2 = np.tril(cov) + np.transpose(np.tril(cov, -1)) if np.ndim(cov) == 2 else \
        cov * np.eye(np.size(m))
    p = np.linalg.inv(c2) if not allow_singular else full_rank_inverse(c2)
    r = np.reshape(x - m, (-1, np.shape(p)[-1])) @ p  # (P r, for each point)
    h = np.reshape({g}, (-1, 1)) * r
    c = 0.5 * (np.transpose(h) @ r - np.sum({g}) * p)
    return (unbroadcast(np.reshape(-h, np.shape(x - m)), x),
            unbroadcast(np.reshape(h, np.shape(x - m)), mean),
            read_triangle(c, cov, True) if np.ndim(cov) == 2 else
            unbroadcast(c * np.eye(np.size(m)), cov), None)
"""

_MVN_TANGENT = """\
def multivariate_normal_{method}_tangent(g, ans, x, mean=None, cov=1, allow_singular=False):
    m = 0.0 if mean is None else mean
    c2 = np.tril(cov) + np.transpose(np.tril(cov, -1)) if np.ndim(cov) == 2 else \
        cov * np.eye(np.size(m))
    p = np.linalg.inv(c2) if not allow_singular else full_rank_inverse(c2)
    r = np.reshape(x - m, (-1, np.shape(p)[-1])) @ p
    return ({ans}np.reshape(-np.sum(r * np.reshape(g, (-1, np.shape(p)[-1])), axis=-1),
                       np.shape(ans)),
            {ans}np.reshape(np.sum(r * np.reshape(g, (-1, np.shape(p)[-1])), axis=-1),
                       np.shape(ans)),
            {ans}np.reshape(0.5 * (np.sum((r @ (spread_triangle(g, cov, True) if np.ndim(cov) == 2
                                             else g * np.eye(np.size(m)))) * r, axis=-1) -
                                   np.sum(p * (spread_triangle(g, cov, True) if np.ndim(cov) == 2
                                               else g * np.eye(np.size(m))))),
                       np.shape(ans)),
            None)
"""


def _define_multivariate_normal() -> None:
    """Write logpdf's adjoint and tangent, and pdf's (the same for ``g * ans``, the tangent
    times ``ans``), as source under a file name of their own (as ``_define_family`` does),
    and register each."""
    texts = [template.format(method=method, g=g, ans=ans)
             for method, g, ans in (("logpdf", "g", ""), ("pdf", "g * ans", "ans * "))
             for template in (_MVN_ADJOINT, _MVN_TANGENT)]
    text = "\n\n".join(texts)
    filename = "<s2sad.rules.scipy_stats: the rules of multivariate_normal>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), globals())
    for method in ("logpdf", "pdf"):
        function = getattr(stats.multivariate_normal, method)
        defvjp(function, shape="other")(globals()[f"multivariate_normal_{method}"])
        deftangent(function)(globals()[f"multivariate_normal_{method}_tangent"])


_define_multivariate_normal()


_MVN = (stats.multivariate_normal.logpdf, stats.multivariate_normal.pdf)
# allow_singular=True: the same where SciPy finds the covariance of full rank; NaN where it
# does not (a direction dropped: the density jumps there and has no derivative)


@defvjp(full_rank_inverse, shape="other")
def full_rank_inverse_rule(g, ans, c):
    return -(np.transpose(ans) @ g @ np.transpose(ans))


@deftangent(full_rank_inverse)
def full_rank_inverse_tangent(g, ans, c):
    return -(ans @ g @ ans)


# --- frozen distributions, and the dtypes of the results --------------------------------

_CONTINUOUS = (stats.norm, stats.t, stats.chi2, stats.beta, stats.gamma, stats.expon,
               stats.laplace, stats.logistic, stats.cauchy, stats.lognorm, stats.uniform)
_DISCRETE = (stats.poisson, stats.binom, stats.nbinom)
# calling one freezes it: d = norm(mu, s); d.logpdf(x) is norm.logpdf(x, mu, s) (the
# object holds its arguments, and reads them when its methods are called). Freezing
# raises only where the arguments do not fit its parameters (TypeError): shapes that do
# not broadcast and values out of range raise nothing until a method runs
deffacts(*_CONTINUOUS, freezes=("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf",
                                 "isf"), returns_view_of="*", raises=("signature",))
deffacts(*_DISCRETE, freezes=("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"),
         returns_view_of="*", raises=("signature",))
deffacts(stats.dirichlet, stats.multivariate_normal, freezes=("pdf", "logpdf"),
         returns_view_of="*")
defresult(*(getattr(d, m) for d in _CONTINUOUS
            for m in ("pdf", "logpdf") + _CUMULATIVE + _QUANTILES),
          *(getattr(d, m) for d in _DISCRETE for m in ("pmf", "logpmf")), *_MVN,
          stats.dirichlet.pdf, stats.dirichlet.logpdf, kind="f")
