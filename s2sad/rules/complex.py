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
>>> complex(registry.lookup(np.abs).complex.adjoint(1.0, 5.0, 3.0 + 4.0j))
(0.6-0.8j)
"""

import numpy as np

from ..registry import (defcomplex, defresult, deftangent, defvjp, nondifferentiable,
                        refuse_values)
from ..runtime import (norm_grad, reduced_size, scaled_power, std_grad, unbroadcast,
                       var_grad)
from ..runtime_higher import reduce_tangent

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
    # d angle = Im(dz / z): the sensitivity -i g / z (infinite at 0, where it has none)
    return -1j * np.real(g) / z


@deftangent(np.angle)
def angle_tangent(g, ans, z, deg=False):
    return np.imag(g / z)


refuse_values(np.angle, "deg", (False,),
              "Take the angle in radians and scale it: np.angle(z) * (180.0 / np.pi).")
defresult(np.angle, kind="f")


@defvjp(np.real_if_close)
def real_if_close(g, ans, a, tol=100):
    # the identity where the result stays complex, the real part where it is made real
    return np.where(np.iscomplexobj(ans), g, np.real(g))


@deftangent(np.real_if_close)
def real_if_close_tangent(g, ans, a, tol=100):
    return np.where(np.iscomplexobj(ans), g, np.real(g))


nondifferentiable(np.iscomplexobj, np.isrealobj, np.iscomplex, np.isreal)


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
