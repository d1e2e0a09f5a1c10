"""Derivative rules for complex numbers, autograd's convention.

The gradient of a real-valued ``f(z)``, ``z = x + iy``, is ``df/dx - i df/dy``: that of
``np.abs(z) ** 2`` is ``2 * np.conj(z)``. A sensitivity ``g`` then flows through a
holomorphic function as ``g * f'(z)``, the real rules' own expression (``np.exp``,
``np.sin``, products, sums, ``matmul``, ``inv``, ``solve``, ``det``...); the others
(``np.conj``, ``np.real``, ``np.abs``...) have the rules below, used in programs that
hold complex numbers (see ``transforms/complex_values.py``); real programs keep theirs.
A real value's sensitivity is the real part of what reaches it.

>>> import numpy as np
>>> from s2sad import registry
>>> complex(registry.lookup(np.imag).adjoint(1.0, 2.0, 1.0 + 2.0j))
-1j
>>> complex(np.round(registry.lookup(np.abs).complex.adjoint(1.0, 5.0, 3.0 + 4.0j), 12))
(0.6-0.8j)
"""

import cmath

import numpy as np

from ..registry import defcomplex, deffacts, defresult, deftangent, defvjp, nondifferentiable
from ..runtime import (as_gradient, cast_like, norm_grad, reduced_size, scaled_power, std_grad,
                       unbroadcast, var_grad)
from ..runtime.higher import reduce_tangent, sens_like
from ..runtime.linalg import complex_norm_checked, norm_grad_second
from ..runtime.matrices import read_triangle, real_checked, spread_triangle
from ..runtime.products import vecdot_grad

# --- the parts of a complex number ---------------------------------------------------------


@defvjp(np.imag)
def imag(g, ans, val):
    return -1j * np.real(g)


@deftangent(np.imag)
def imag_tangent(g, ans, val):
    return np.imag(g)


@defcomplex(np.real)
def real(g, ans, val):
    return np.real(g)


@defcomplex(np.real, tangent=True)
def real_tangent(g, ans, val):
    return np.real(g)


@defvjp(np.angle)
def angle(g, ans, z, deg=False):
    # d angle = Im(dz / z): the sensitivity -i g / z (infinite at 0, where it has none);
    # in degrees, NumPy's own factor (it multiplies by 180 / pi where deg is true)
    return -1j * np.real(g) / z * (180.0 / np.pi if deg else 1.0)


@deftangent(np.angle)
def angle_tangent(g, ans, z, deg=False):
    return np.imag(g / z) * (180.0 / np.pi if deg else 1.0)


defresult(np.angle, kind="f")


@defvjp(np.real_if_close)
def real_if_close(g, ans, a, tol=100):
    # the identity where the result stays complex, the real part where it is made real
    return np.where(np.iscomplexobj(ans), g, np.real(g))


@deftangent(np.real_if_close)
def real_if_close_tangent(g, ans, a, tol=100):
    return np.where(np.iscomplexobj(ans), g, np.real(g))


nondifferentiable(np.iscomplexobj, np.isrealobj, np.iscomplex, np.isreal)
deffacts(np.ndarray.imag, method="imag")  # (z.imag is np.imag(z), as z.real is np.real(z))
# a program that names one of these holds complex values (transforms/complex_values.py)
deffacts(complex, np.complex64, np.complex128, np.clongdouble, np.complexfloating, np.imag,
         np.ndarray.imag, np.angle, np.real_if_close, np.iscomplexobj, np.iscomplex,
         np.linalg.eig, np.linalg.eigvals, np.roots, np.emath.sqrt, np.emath.log,
         np.emath.log2, np.emath.log10, np.emath.logn, np.emath.power, np.emath.arcsin,
         np.emath.arccos, np.emath.arctanh, complex=True)


# --- real-valued functions of a complex number ---------------------------------------------


@defcomplex(np.abs, np.absolute, abs)
def absolute(g, ans, x):
    # |z| = sqrt(z conj(z)): conj(z) / |z| (0 at 0, a subgradient)
    return np.real(g) * np.conj(x) / np.where(np.equal(ans, 0), 1.0, ans)


@defcomplex(np.abs, np.absolute, abs, tangent=True)
def absolute_tangent(g, ans, x):
    return np.real(np.conj(x) * g) / np.where(np.equal(ans, 0), 1.0, ans)


@defcomplex(np.var, shape="reduce")
def var(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, correction=None):
    # the mean of |a - mean|^2: conj(a - mean), as the real rule has a - mean
    return (var_grad(np.real(g), np.conj(a), axis, ddof if correction is None else correction,
                     keepdims), None, None, None,
            unbroadcast(g * ans / (reduced_size(a, axis) -
                                   (ddof if correction is None else correction)), ddof), None,
            unbroadcast(g * ans / (reduced_size(a, axis) -
                                   (ddof if correction is None else correction)), correction))


@defcomplex(np.var, tangent=True)
def var_tangent(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
                correction=None):
    return (np.real(reduce_tangent(g, var_grad(np.ones_like(ans), np.conj(a), axis,
                                               ddof if correction is None else correction,
                                               keepdims), axis, keepdims)), None, None, None,
            g * ans / (reduced_size(a, axis) -
                       (ddof if correction is None else correction)), None,
            g * ans / (reduced_size(a, axis) -
                       (ddof if correction is None else correction)))


@defcomplex(np.std, shape="reduce")
def std(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, correction=None):
    return (std_grad(np.real(g), ans, np.conj(a), axis,
                     ddof if correction is None else correction, keepdims),
            None, None, None,
            unbroadcast(g * ans * 0.5 / (reduced_size(a, axis) -
                                         (ddof if correction is None else correction)), ddof),
            None,
            unbroadcast(g * ans * 0.5 / (reduced_size(a, axis) -
                                         (ddof if correction is None else correction)),
                        correction))


@defcomplex(np.std, tangent=True)
def std_tangent(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
                correction=None):
    return (np.real(reduce_tangent(g, std_grad(np.ones_like(ans), ans, np.conj(a), axis,
                                               ddof if correction is None else correction,
                                               keepdims), axis, keepdims)), None, None, None,
            g * ans * 0.5 / (reduced_size(a, axis) -
                             (ddof if correction is None else correction)), None,
            g * ans * 0.5 / (reduced_size(a, axis) -
                             (ddof if correction is None else correction)))


@defcomplex(np.linalg.norm, shape="reduce")
def norm(g, ans, x, ord=None, axis=None, keepdims=False):
    # a norm of x is that of conj(x), whose real rule's slope (x / |x|...) is conj's
    return norm_grad(np.real(g), ans, np.conj(x), ord, axis, keepdims)


nondifferentiable(complex_norm_checked, real_checked)  # (refusals where the line runs)


@defcomplex(norm_grad, shape="other")
def norm_grad_rule(g, ans, h, norm, x, ord=None, axis=None, keepdims=False, matrix=None):
    # the real rule where it holds (the 2-norm's slope x / |x| is holomorphic in x, ans
    # apart); the p-norms' sign(x) and the spectral norms' singular vectors are not
    return (sens_like(np.sum(g * complex_norm_checked(x, ord, axis, matrix) *
                             norm_grad(np.ones_like(h), norm, x, ord, axis, keepdims, matrix),
                             axis=axis, keepdims=keepdims), h),
            norm_grad_second(g * complex_norm_checked(x, ord, axis, matrix), h, norm, x, ord,
                             axis, keepdims, matrix, 1),
            norm_grad_second(g * complex_norm_checked(x, ord, axis, matrix), h, norm, x, ord,
                             axis, keepdims, matrix, 2))


@defcomplex(norm_grad, tangent=True)
def norm_grad_tangent(g, ans, h, norm, x, ord=None, axis=None, keepdims=False, matrix=None):
    return (norm_grad(g * complex_norm_checked(x, ord, axis, matrix), norm, x, ord, axis,
                      keepdims, matrix),
            norm_grad_second(g * complex_norm_checked(x, ord, axis, matrix), h, norm, x, ord,
                             axis, keepdims, matrix, 1, True),
            norm_grad_second(g * complex_norm_checked(x, ord, axis, matrix), h, norm, x, ord,
                             axis, keepdims, matrix, 2, True))


# --- products that conjugate ---------------------------------------------------------------


@defcomplex(np.vdot, shape="scalar")
def vdot(g, ans, a, b):
    # sum(conj(a) * b): antiholomorphic in a
    return (np.reshape(np.conj(g * np.ravel(b)), np.shape(a)),
            np.reshape(g * np.conj(np.ravel(a)), np.shape(b)))


# --- powers: the exponent's slope is log(x), complex where x is negative --------------------


@defcomplex(np.power, pow)
def power(g, ans, x, y):
    return (unbroadcast(g * scaled_power(y, x, y - 1), x),
            unbroadcast(g * ans * np.log(np.where(np.equal(x, 0), 1.0, x) * (1.0 + 0.0j)), y))


@defcomplex(np.float_power)
def float_power(g, ans, x, y):
    return (unbroadcast(g * scaled_power(y, np.float_power(x, 1.0), y - 1), x),
            unbroadcast(g * ans * np.log(np.where(np.equal(x, 0), 1.0, x) * (1.0 + 0.0j)), y))



@defcomplex(np.linalg.norm, tangent=True)
def norm_tangent(g, ans, x, ord=None, axis=None, keepdims=False):
    return np.real(np.sum(g * norm_grad(np.ones_like(ans), ans, np.conj(x), ord, axis,
                                        keepdims), axis=axis, keepdims=keepdims))


@defcomplex(np.sign)
def sign(g, ans, x):
    # z / |z| (0 at 0), whose sensitivity is (g - conj(g) conj(w)^2) / (2 |z|)
    return np.where(np.equal(ans, 0), 0.0, (g - np.conj(g) * np.conj(ans) ** 2) /
                    (2.0 * np.where(np.equal(ans, 0), 1.0, np.abs(x))))


@defcomplex(np.sign, tangent=True)
def sign_tangent(g, ans, x):
    return np.where(np.equal(ans, 0), 0.0, (g - ans * np.real(np.conj(ans) * g)) /
                    np.where(np.equal(ans, 0), 1.0, np.abs(x)))


# --- linear algebra: inv, solve, det are holomorphic (their real rules); the rest here ------

@defcomplex(np.linalg.eigvalsh, shape="other")
def eigvalsh(g, ans, a, UPLO="L"):
    # d w_k = Re(v_k^H da v_k): conj(v) diag(g) v^T
    v = np.linalg.eigh(a, UPLO)[1]
    return read_triangle((np.conj(v) * np.expand_dims(np.real(as_gradient(ans, g)), -2)) @
                         np.swapaxes(v, -1, -2), a, UPLO in ("L", "l"))


@defcomplex(np.linalg.eigvalsh, tangent=True)
def eigvalsh_tangent(g, ans, a, UPLO="L"):
    v = np.linalg.eigh(a, UPLO)[1]
    d = spread_triangle(g, a, UPLO in ("L", "l"))
    return np.real(np.sum(np.conj(v) * (((d + np.conj(np.swapaxes(d, -1, -2))) / 2.0) @ v),
                          axis=-2))


if hasattr(np.linalg, "svdvals"):  # NumPy >= 2.0
    @defcomplex(np.linalg.svdvals, shape="other")
    def svdvals(g, ans, x):
        # d s_k = Re(u_k^H dx v_k): conj(u diag(g) vh)
        parts = np.linalg.svd(x, full_matrices=False)
        return np.conj((parts[0] * np.expand_dims(np.real(as_gradient(ans, g)), -2)) @ parts[2])

    @defcomplex(np.linalg.svdvals, tangent=True)
    def svdvals_tangent(g, ans, x):
        parts = np.linalg.svd(x, full_matrices=False)
        return np.real(np.sum(np.conj(parts[0]) * (g @ np.conj(np.swapaxes(parts[2], -1, -2))),
                              axis=-2))


@defcomplex(np.linalg.slogdet, shape="sequence")
def slogdet(g, ans, a):
    # log|det| = Re(log det), and sign = det / |det| turns with Im(log det)
    return np.expand_dims(np.real(g[1]) + 1j * np.imag(g[0] * ans[0]), (-2, -1)) * \
        np.swapaxes(np.linalg.inv(a), -1, -2)


@defcomplex(np.linalg.slogdet, tangent=True)
def slogdet_tangent(g, ans, a):
    return [ans[0] * 1j * np.imag(np.trace(np.linalg.solve(a, g), axis1=-2, axis2=-1)),
            np.real(np.trace(np.linalg.solve(a, g), axis1=-2, axis2=-1))]


# --- found by the audit of complex values (tests/test_complex_audit.py) -----------------------


@defcomplex(np.arccosh)
def arccosh(g, ans, x):
    # 1 / (sqrt(z - 1) sqrt(z + 1)): sqrt(z^2 - 1), the real rule's, has the other sign
    # where Re(z) < 0
    return g / (np.sqrt(x - 1.0) * np.sqrt(x + 1.0))


# On a branch cut (arcsin(2.0 + 0j)) NumPy picks a side by the sign of the zero imaginary
# part. The real rules' sqrt(1 - z^2) loses that sign (1.0 - z makes -0.0 into +0.0) and
# takes the other side: the derivative's imaginary part had the wrong sign. The result
# knows the side: arcsin' = 1 / cos(arcsin z), arccos' = -1 / sin(arccos z), and
# arcsinh' = 1 / cosh(arcsinh z), equal to the real rules off the cuts.


@defcomplex(np.arcsin)
def arcsin(g, ans, x):
    return g / np.cos(ans)


@defcomplex(np.arccos)
def arccos(g, ans, x):
    return -g / np.sin(ans)


@defcomplex(np.arcsinh)
def arcsinh(g, ans, x):
    return g / np.cosh(ans)


@defcomplex(np.float64, np.float32)
def float_type(g, ans, x=0.0):
    # np.float64(z) keeps the real part (NumPy warns it discards the imaginary one)
    return cast_like(np.real(g), x)


@defcomplex(np.float64, np.float32, tangent=True)
def float_type_tangent(g, ans, x=0.0):
    return cast_like(np.real(g), ans)


if hasattr(np, "vecdot"):  # NumPy >= 2.0
    @defcomplex(np.vecdot, np.linalg.vecdot, shape="other")
    def vecdot(g, ans, x1, x2, out=None, axis=-1, keepdims=False):
        # sum(conj(x1) * x2): antiholomorphic in x1
        return (np.conj(vecdot_grad(g, x2, x1, axis, keepdims)),
                vecdot_grad(g, np.conj(x1), x2, axis, keepdims))


if hasattr(np.linalg, "vector_norm"):  # NumPy >= 2.0: as np.linalg.norm's
    @defcomplex(np.linalg.vector_norm, shape="reduce")
    def vector_norm(g, ans, x, axis=None, keepdims=False, ord=2):
        return norm_grad(np.real(g), ans, np.conj(x), ord, axis, keepdims, False)

    @defcomplex(np.linalg.vector_norm, tangent=True)
    def vector_norm_tangent(g, ans, x, axis=None, keepdims=False, ord=2):
        return np.real(np.sum(g * norm_grad(np.ones_like(ans), ans, np.conj(x), ord, axis,
                                            keepdims, False), axis=axis, keepdims=keepdims))

    @defcomplex(np.linalg.matrix_norm, shape="other")
    def matrix_norm(g, ans, x, keepdims=False, ord="fro"):
        return norm_grad(np.real(g), ans, np.conj(x), ord, (-2, -1), keepdims)

    @defcomplex(np.linalg.matrix_norm, tangent=True)
    def matrix_norm_tangent(g, ans, x, keepdims=False, ord="fro"):
        return np.real(np.sum(g * norm_grad(np.ones_like(ans), ans, np.conj(x), ord, (-2, -1),
                                            keepdims), axis=(-2, -1), keepdims=keepdims))


# --- the cmath module: Python complex numbers, the same convention -------------------------
# (holomorphic ones: g * f'(z), as np.exp's rule; a real argument's sensitivity is the real
# part of what reaches it)

@defvjp(complex, shape="scalar")
def complex_of(g, ans, real=0, imag=0):
    # real + 1j * imag: holomorphic in each (a real one's sensitivity is the real part)
    return g, 1j * g


@deftangent(complex)
def complex_of_tangent(g, ans, real=0, imag=0):
    return g, 1j * g


@defvjp(cmath.exp, shape="scalar")
def cmath_exp(g, ans, z):
    return g * ans


@defvjp(cmath.log, shape="scalar")
def cmath_log(g, ans, z, base=None):
    return (g / z if base is None else g / (z * cmath.log(base)),
            None if base is None else -g * ans / (base * cmath.log(base)))


@defvjp(cmath.sqrt, shape="scalar")
def cmath_sqrt(g, ans, z):
    return g * 0.5 / ans


@defvjp(cmath.sin, shape="scalar")
def cmath_sin(g, ans, z):
    return g * cmath.cos(z)


@defvjp(cmath.cos, shape="scalar")
def cmath_cos(g, ans, z):
    return -g * cmath.sin(z)


@defvjp(cmath.phase, shape="scalar")
def cmath_phase(g, ans, z):
    # np.angle's: d phase = Im(dz / z)
    return -1j * np.real(g) / z


@defvjp(cmath.polar, shape="sequence")
def cmath_polar(g, ans, z):
    # (abs(z), phase(z)): abs's rule (0 at 0, a subgradient) and phase's
    return np.real(g[0]) * np.conj(z) / (ans[0] if ans[0] != 0 else 1.0) - \
        1j * np.real(g[1]) / z


@defvjp(cmath.rect, shape="scalar")
def cmath_rect(g, ans, r, phi):
    # r * exp(i phi): d/dr exp(i phi), d/dphi i r exp(i phi); r and phi are real
    return np.real(g * cmath.rect(1.0, phi)), np.real(g * 1j * ans)


@deftangent(cmath.exp)
def cmath_exp_tangent(g, ans, z):
    return g * ans


@deftangent(cmath.sqrt)
def cmath_sqrt_tangent(g, ans, z):
    return g * 0.5 / ans


@deftangent(cmath.sin)
def cmath_sin_tangent(g, ans, z):
    return g * cmath.cos(z)


@deftangent(cmath.cos)
def cmath_cos_tangent(g, ans, z):
    return -g * cmath.sin(z)


@deftangent(cmath.phase)
def cmath_phase_tangent(g, ans, z):
    return np.imag(g / z)


@deftangent(cmath.log)
def cmath_log_tangent(g, ans, z, base=None):
    return (g / z if base is None else g / (z * cmath.log(base)),
            None if base is None else -g * ans / (base * cmath.log(base)))


@deftangent(cmath.polar)
def cmath_polar_tangent(g, ans, z):
    return [np.real(np.conj(z) * g) / (ans[0] if ans[0] != 0 else 1.0), np.imag(g / z)]


@deftangent(cmath.rect)
def cmath_rect_tangent(g, ans, r, phi):
    return g * cmath.rect(1.0, phi), g * 1j * ans


# the rest of cmath's holomorphic functions: g * f'(z), valid off f's branch cuts (where
# cmath.sqrt's cut in f'(z) lies exactly on f's own)


@defvjp(cmath.log10, shape="scalar")
def cmath_log10(g, ans, z):
    return g / (z * cmath.log(10.0))


@defvjp(cmath.tan, shape="scalar")
def cmath_tan(g, ans, z):
    return g * (1.0 + ans * ans)


@defvjp(cmath.sinh, shape="scalar")
def cmath_sinh(g, ans, z):
    return g * cmath.cosh(z)


@defvjp(cmath.cosh, shape="scalar")
def cmath_cosh(g, ans, z):
    return g * cmath.sinh(z)


@defvjp(cmath.tanh, shape="scalar")
def cmath_tanh(g, ans, z):
    return g * (1.0 - ans * ans)


@defvjp(cmath.asin, shape="scalar")
def cmath_asin(g, ans, z):
    return g / cmath.sqrt(1.0 - z * z)


@defvjp(cmath.acos, shape="scalar")
def cmath_acos(g, ans, z):
    return -g / cmath.sqrt(1.0 - z * z)


@defvjp(cmath.atan, shape="scalar")
def cmath_atan(g, ans, z):
    return g / (1.0 + z * z)


@defvjp(cmath.asinh, shape="scalar")
def cmath_asinh(g, ans, z):
    return g / cmath.sqrt(1.0 + z * z)


@defvjp(cmath.acosh, shape="scalar")
def cmath_acosh(g, ans, z):
    return g / (cmath.sqrt(z - 1.0) * cmath.sqrt(z + 1.0))


@defvjp(cmath.atanh, shape="scalar")
def cmath_atanh(g, ans, z):
    return g / (1.0 - z * z)


@deftangent(cmath.log10)
def cmath_log10_tangent(g, ans, z):
    return g / (z * cmath.log(10.0))


@deftangent(cmath.tan)
def cmath_tan_tangent(g, ans, z):
    return g * (1.0 + ans * ans)


@deftangent(cmath.sinh)
def cmath_sinh_tangent(g, ans, z):
    return g * cmath.cosh(z)


@deftangent(cmath.cosh)
def cmath_cosh_tangent(g, ans, z):
    return g * cmath.sinh(z)


@deftangent(cmath.tanh)
def cmath_tanh_tangent(g, ans, z):
    return g * (1.0 - ans * ans)


@deftangent(cmath.asin)
def cmath_asin_tangent(g, ans, z):
    return g / cmath.sqrt(1.0 - z * z)


@deftangent(cmath.acos)
def cmath_acos_tangent(g, ans, z):
    return -g / cmath.sqrt(1.0 - z * z)


@deftangent(cmath.atan)
def cmath_atan_tangent(g, ans, z):
    return g / (1.0 + z * z)


@deftangent(cmath.asinh)
def cmath_asinh_tangent(g, ans, z):
    return g / cmath.sqrt(1.0 + z * z)


@deftangent(cmath.acosh)
def cmath_acosh_tangent(g, ans, z):
    return g / (cmath.sqrt(z - 1.0) * cmath.sqrt(z + 1.0))


@deftangent(cmath.atanh)
def cmath_atanh_tangent(g, ans, z):
    return g / (1.0 - z * z)


deffacts(cmath.exp, cmath.log, cmath.sqrt, cmath.sin, cmath.cos, cmath.phase, cmath.polar,
         cmath.rect, cmath.log10, cmath.tan, cmath.sinh, cmath.cosh, cmath.tanh, cmath.asin,
         cmath.acos, cmath.atan, cmath.asinh, cmath.acosh, cmath.atanh, complex=True)
deffacts(cmath.phase, floats=True)
# tests of a complex number: bools, no derivative
nondifferentiable(cmath.isnan, cmath.isinf, cmath.isfinite, cmath.isclose, shape="scalar")
defresult(cmath.phase, kind="f")
