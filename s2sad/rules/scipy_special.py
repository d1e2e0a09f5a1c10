"""Derivative rules for ``scipy.special`` (loaded only where SciPy imports).

Most of these functions are ufuncs: their rules are elementwise, so forward mode reuses
each adjoint's expression, and a derivative written with other functions of the table
(``gammaln``'s is ``digamma``, whose is ``polygamma(1, x)``) differentiates again, to any
order. Arguments with no derivative in closed form (``gammainc``'s shape ``a``, a Bessel
function's order ``v``) are refused at the user's line where they vary.

>>> import numpy as np
>>> from s2sad import registry
>>> float(registry.lookup(special.expit).adjoint(1.0, 0.5, 0.0))
0.25
>>> float(registry.lookup(special.gammaln).adjoint(1.0, 0.0, 1.0))  # digamma(1): -Euler's
-0.5772156649015329
"""

import numpy as np
from scipy import special

from ..registry import (defcomplex, deffacts, defresult, deftangent, defvjp,
                        nondifferentiable, refuse_varying)
from ..runtime import expand_reduced, real_checked, unbroadcast
from ..runtime.higher import reduce_tangent


# --- logistic ----------------------------------------------------------------------------


@defvjp(special.expit)
def expit(g, ans, x):
    return g * ans * (1.0 - ans)


@defvjp(special.logit)
def logit(g, ans, x):
    return g / (x * (1.0 - x))


@defvjp(special.log_expit)
def log_expit(g, ans, x):
    return g * special.expit(-x)


# --- logarithms of products --------------------------------------------------------------


@defvjp(special.xlogy)
def xlogy(g, ans, x, y):
    return unbroadcast(g * np.log(y), x), unbroadcast(g * x / y, y)


@defvjp(special.xlog1py)
def xlog1py(g, ans, x, y):
    return unbroadcast(g * np.log1p(y), x), unbroadcast(g * x / (1.0 + y), y)


@defvjp(special.entr)
def entr(g, ans, x):
    return -g * (np.log(x) + 1.0)


# --- gamma and beta ----------------------------------------------------------------------


@defvjp(special.gammaln, special.loggamma)
def gammaln(g, ans, x):
    return g * special.digamma(x)


@defvjp(special.gamma)
def gamma(g, ans, x):
    return g * ans * special.digamma(x)


@defvjp(special.rgamma)
def rgamma(g, ans, x):
    return -g * ans * special.digamma(x)


nondifferentiable(special.gammasgn, shape="elementwise")  # (a sign: -1, 0 or 1)


@defvjp(special.digamma)
def digamma(g, ans, x):
    return g * special.polygamma(1, x)


# of a complex x, digamma's derivative, polygamma(1, x), is not SciPy's (it has no complex
# loop): refused where the line runs, before polygamma is called (gamma's second derivative
# and loggamma's too, which take digamma's rule)
_TRIGAMMA_ADVICE = ("SciPy has no polygamma of complex values: differentiate digamma (and "
                    "gamma, rgamma or loggamma twice) of real values only, or write the "
                    "derivative you need with a rule (@s2sad.defvjp).")


@defcomplex(special.digamma)
def digamma_complex(g, ans, x):
    return g * special.polygamma(1, x * real_checked(x, "scipy.special.digamma",
                                                        _TRIGAMMA_ADVICE))


@defvjp(special.polygamma)
def polygamma(g, ans, n, x):
    return None, unbroadcast(g * special.polygamma(n + 1, x), x)


@defvjp(special.multigammaln)
def multigammaln(g, ans, a, d):
    # log Gamma_d(a) = const + sum_j gammaln(a - j / 2), j < d
    return g * np.sum(special.digamma(np.expand_dims(a, -1) - 0.5 * np.arange(d)), axis=-1), \
        None


deffacts(special.multigammaln, raises="values")  # (a <= (d - 1) / 2: ValueError)


@defvjp(special.beta)
def beta(g, ans, a, b):
    return (unbroadcast(g * ans * (special.digamma(a) - special.digamma(a + b)), a),
            unbroadcast(g * ans * (special.digamma(b) - special.digamma(a + b)), b))


@defvjp(special.betaln)
def betaln(g, ans, a, b):
    return (unbroadcast(g * (special.digamma(a) - special.digamma(a + b)), a),
            unbroadcast(g * (special.digamma(b) - special.digamma(a + b)), b))


@defvjp(special.gammainc)
def gammainc(g, ans, a, x):
    # d/dx P(a, x) = x ** (a - 1) e ** -x / Gamma(a)
    return None, unbroadcast(g * np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a)), x)


@defvjp(special.gammaincc)
def gammaincc(g, ans, a, x):
    return None, unbroadcast(-g * np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a)), x)


@defvjp(special.betainc)
def betainc(g, ans, a, b, x):
    # d/dx I_x(a, b) = x ** (a - 1) (1 - x) ** (b - 1) / B(a, b)
    return None, None, unbroadcast(g * np.exp((a - 1.0) * np.log(x) + (b - 1.0) * np.log1p(-x)
                                              - special.betaln(a, b)), x)


_SHAPE_ADVICE = ("Its derivative in the shape argument has no closed form s2sad knows; "
                 "pass a constant shape, or wrap it in s2sad.stop_gradient() if its "
                 "derivative should not flow.")
refuse_varying(special.gammainc, special.gammaincc, a=_SHAPE_ADVICE)
refuse_varying(special.betainc, a=_SHAPE_ADVICE, b=_SHAPE_ADVICE)
refuse_varying(special.polygamma, n=("The order n is an integer: it has no derivative. "
                                     "Pass an integer that does not depend on the "
                                     "differentiated arguments."))
refuse_varying(special.multigammaln, d=("The dimension d is an integer: it has no "
                                        "derivative. Pass an integer that does not depend "
                                        "on the differentiated arguments."))

# --- error function and the normal distribution ------------------------------------------


@defvjp(special.erf)
def erf(g, ans, x):
    return g * 1.1283791670955126 * np.exp(-x * x)  # (2 / sqrt(pi))


@defvjp(special.erfc)
def erfc(g, ans, x):
    return -g * 1.1283791670955126 * np.exp(-x * x)  # (2 / sqrt(pi))


@defvjp(special.erfinv)
def erfinv(g, ans, y):
    return g * 0.8862269254527579 * np.exp(ans * ans)  # (sqrt(pi) / 2)


@defvjp(special.erfcinv)
def erfcinv(g, ans, y):
    return -g * 0.8862269254527579 * np.exp(ans * ans)  # (sqrt(pi) / 2)


@defvjp(special.erfcx)
def erfcx(g, ans, x):
    # erfcx(x) = e ** x**2 erfc(x)
    return g * (2.0 * x * ans - 1.1283791670955126)


@defvjp(special.ndtr)
def ndtr(g, ans, x):
    return g * 0.3989422804014327 * np.exp(-0.5 * x * x)  # (1 / sqrt(2 pi))


@defvjp(special.ndtri)
def ndtri(g, ans, y):
    return g * 2.5066282746310002 * np.exp(0.5 * ans * ans)  # (sqrt(2 pi))


@defvjp(special.log_ndtr)
def log_ndtr(g, ans, x):
    # the normal density over its distribution function, written with logarithms
    return g * 0.3989422804014327 * np.exp(-0.5 * x * x - ans)


# --- Bessel functions (x ** -1 terms: their limits at x = 0) ------------------------------


@defvjp(special.j0)
def j0(g, ans, x):
    return -g * special.j1(x)


@defvjp(special.j1)
def j1(g, ans, x):
    return g * np.where(np.equal(x, 0), 0.5,
                        special.j0(x) - ans / np.where(np.equal(x, 0), 1.0, x))


@defvjp(special.y0)
def y0(g, ans, x):
    return -g * special.y1(x)


@defvjp(special.y1)
def y1(g, ans, x):
    return g * (special.y0(x) - ans / x)


@defvjp(special.i0)
def i0(g, ans, x):
    return g * special.i1(x)


@defvjp(special.i1)
def i1(g, ans, x):
    return g * np.where(np.equal(x, 0), 0.5,
                        special.i0(x) - ans / np.where(np.equal(x, 0), 1.0, x))


@defvjp(special.i0e)
def i0e(g, ans, x):
    # i0e(x) = e ** -|x| i0(x)
    return g * (special.i1e(x) - np.sign(x) * ans)


@defvjp(special.i1e)
def i1e(g, ans, x):
    return g * np.where(np.equal(x, 0), 0.5,
                        special.i0e(x) - ans * (np.sign(x) +
                                                1.0 / np.where(np.equal(x, 0), 1.0, x)))


@defvjp(special.jv)
def jv(g, ans, v, z):
    return None, unbroadcast(g * 0.5 * (special.jv(v - 1.0, z) - special.jv(v + 1.0, z)), z)


@defvjp(special.yv)
def yv(g, ans, v, z):
    return None, unbroadcast(g * 0.5 * (special.yv(v - 1.0, z) - special.yv(v + 1.0, z)), z)


@defvjp(special.yn)
def yn(g, ans, n, x):
    return None, unbroadcast(g * 0.5 * (special.yn(n - 1, x) - special.yn(n + 1, x)), x)


@defvjp(special.iv)
def iv(g, ans, v, z):
    return None, unbroadcast(g * 0.5 * (special.iv(v - 1.0, z) + special.iv(v + 1.0, z)), z)


@defvjp(special.kv)
def kv(g, ans, v, z):
    return None, unbroadcast(-g * 0.5 * (special.kv(v - 1.0, z) + special.kv(v + 1.0, z)), z)


@defvjp(special.ive)
def ive(g, ans, v, z):
    # ive(v, z) = iv(v, z) e ** -|z|
    return None, unbroadcast(g * (0.5 * (special.ive(v - 1.0, z) + special.ive(v + 1.0, z)) -
                                  np.sign(z) * ans), z)


# of a complex z, ive(v, z) = iv(v, z) e ** -|Re(z)|: not holomorphic (np.sign(z) of a
# complex z is z / |z|, not the sign of its real part). d ive = iv' e dz - s ive d Re(z),
# s = sign(Re(z)); in autograd's convention z's sensitivity is g iv' e - s Re(g ive).


@defcomplex(special.ive)
def ive_complex(g, ans, v, z):
    return None, unbroadcast(g * 0.5 * (special.ive(v - 1.0, z) + special.ive(v + 1.0, z)) -
                             np.sign(np.real(z)) * np.real(g * ans), z)


@defcomplex(special.ive, tangent=True)
def ive_complex_tangent(g, ans, v, z):
    return None, g * 0.5 * (special.ive(v - 1.0, z) + special.ive(v + 1.0, z)) - \
        np.sign(np.real(z)) * np.real(g) * ans


@defvjp(special.kve)
def kve(g, ans, v, z):
    # kve(v, z) = kv(v, z) e ** z
    return None, unbroadcast(g * (ans - 0.5 * (special.kve(v - 1.0, z) +
                                               special.kve(v + 1.0, z))), z)


_ORDER_ADVICE = ("The derivative in the order has no closed form s2sad knows; pass a "
                 "constant order, or wrap it in s2sad.stop_gradient() if its derivative "
                 "should not flow.")
refuse_varying(special.jv, special.yv, special.iv, special.kv, special.ive, special.kve,
               v=_ORDER_ADVICE)
refuse_varying(special.yn, n=_ORDER_ADVICE)

# --- reductions along an axis ------------------------------------------------------------


# with return_sign=True, a tuple (log|s|, sign(s)); without, log(s) alone
deffacts(special.logsumexp, fields=((), (None, None)), alone=("return_sign", False))


@defvjp(special.logsumexp, shape="other")
def logsumexp(g, ans, a, axis=None, b=None, keepdims=False, return_sign=False):
    # the weights softmax(a) (times b): exp(a - ans), ans broadcast back over the axis; with
    # return_sign, ans is (log|s|, sign(s)): the sign is constant where it is differentiable,
    # and log|s|'s weights are sign(s) b exp(a - log|s|) (NaN where s is 0)
    return (expand_reduced(g[0] * ans[1] if return_sign else g, a, axis, keepdims) *
            (np.exp(a - expand_reduced(ans[0] if return_sign else ans, a, axis, keepdims))
             if b is None else
             b * np.exp(a - expand_reduced(ans[0] if return_sign else ans, a, axis,
                                           keepdims))),
            None,
            None if b is None else unbroadcast(
                expand_reduced(g[0] * ans[1] if return_sign else g, a, axis, keepdims) *
                np.exp(a - expand_reduced(ans[0] if return_sign else ans, a, axis, keepdims)),
                b),
            None, None)


@deftangent(special.logsumexp)
def logsumexp_tangent(g, ans, a, axis=None, b=None, keepdims=False, return_sign=False):
    # with return_sign, the tangents of (log|s|, sign(s)): the sign's is zero
    return ([ans[1] * reduce_tangent(
                g, np.exp(a - expand_reduced(ans[0], a, axis, keepdims)) if b is None
                else b * np.exp(a - expand_reduced(ans[0], a, axis, keepdims)), axis,
                keepdims), np.zeros_like(ans[1])] if return_sign else
            reduce_tangent(g, np.exp(a - expand_reduced(ans, a, axis, keepdims)) if b is None
                           else b * np.exp(a - expand_reduced(ans, a, axis, keepdims)), axis,
                           keepdims),
            None,
            None if b is None else
            [ans[1] * np.sum(g * np.exp(a - expand_reduced(ans[0], a, axis, keepdims)),
                             axis=axis, keepdims=keepdims), np.zeros_like(ans[1])]
            if return_sign else
            np.sum(g * np.exp(a - expand_reduced(ans, a, axis, keepdims)), axis=axis,
                   keepdims=keepdims),
            None, None)


@defvjp(special.softmax, shape="other")
def softmax(g, ans, x, axis=None):
    return ans * (g - np.sum(g * ans, axis=axis, keepdims=True)), None


@deftangent(special.softmax)
def softmax_tangent(g, ans, x, axis=None):
    return ans * (g - np.sum(g * ans, axis=axis, keepdims=True)), None


@defvjp(special.log_softmax, shape="other")
def log_softmax(g, ans, x, axis=None):
    return g - np.exp(ans) * np.sum(g, axis=axis, keepdims=True), None


@deftangent(special.log_softmax)
def log_softmax_tangent(g, ans, x, axis=None):
    return g - np.sum(np.exp(ans) * g, axis=axis, keepdims=True), None


# the kind of their result's dtype (the ufuncs': read from their loops, in rules/__init__.py)
defresult(special.polygamma, special.multigammaln, special.logsumexp, special.softmax,
          special.log_softmax, kind="f")
