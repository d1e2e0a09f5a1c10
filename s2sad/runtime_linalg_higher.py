"""Second derivatives of the linear-algebra and norm helpers (``solve_grad``,
``cholesky_grad``, ``norm_grad``), for derivatives of derivatives.

Each helper of ``s2sad.runtime`` is linear in the sensitivity it takes; here are its
derivatives with respect to its other arguments (the matrix ``a``, the factor ``L``,
the point ``x`` and the forward result ``ans``), as tangents (forward mode) and as
adjoints (reverse mode). Their rules are in ``s2sad.rules.linalg_helper_rules``.

They are partial derivatives: a helper that takes the forward result (``solve_grad``'s
``ans``, ``norm_grad``'s ``ans``) is differentiated in it as if it were independent,
and the compiler adds the path through the forward result itself. Two kinds of norm
are exceptions, where the whole derivative goes to ``x`` and none to ``ans``: the
spectral norms (matrix ``ord`` 2, -2, ``"nuc"``), whose gradient does not read ``ans``,
so that the partial in ``x`` is the Hessian; and the piecewise linear norms (1, inf,
their matrix versions), whose gradient compares ``x`` with ``ans`` to find the maximal
entries (no partial derivatives there) and whose second derivative is zero.

The tangent of the matrix 2-norm's gradient ``u1 v1^T`` along ``t`` agrees with
central differences of that gradient:

>>> import numpy as np
>>> from s2sad.runtime import norm_grad
>>> x = np.array([[3.0, 1.0, 0.5], [0.5, 2.0, 1.0]])
>>> t = np.array([[0.1, -0.2, 0.3], [0.4, 0.0, -0.1]])
>>> def grad(y):
...     return norm_grad(1.0, np.linalg.norm(y, 2), y, 2)
>>> exact = norm_grad_second(t, 1.0, np.linalg.norm(x, 2), x, 2)
>>> bool(np.allclose(exact, (grad(x + 1e-6 * t) - grad(x - 1e-6 * t)) / 2e-6))
True
"""

from __future__ import annotations

import numpy as np

from .backends import array_module
from .runtime_higher import axes_of


def _t(m):
    """The transposes of a stack of matrices (the last two axes)."""
    return array_module(m).swapaxes(m, -1, -2)


def _sym(m):
    """The symmetric part of a stack of matrices."""
    return (m + _t(m)) / 2.0


# --- solve -----------------------------------------------------------------------------------


def solve_grad_solution(g, h, a, b):
    """``-g^T a^-T h``: the adjoint of ``solve_grad(h, ans, a, b, 0)`` (``-a^-T h ans^T``)
    with respect to ``ans``, for ``g`` shaped like ``a`` and ``h`` like ``ans``.

    It is bilinear in ``g`` and ``h``; with ``g`` the tangent of ``a`` it is also the
    right-hand side of the tangent of ``solve_grad`` along ``a``.

    >>> a = np.array([[2.0, 0.0], [0.0, 4.0]])
    >>> solve_grad_solution(np.eye(2), np.array([2.0, 4.0]), a, np.ones(2))
    array([-1., -1.])
    """
    xp = array_module(g, h, a)
    a_t = xp.swapaxes(xp.asarray(a), -1, -2)
    if np.ndim(b) == 1:  # one right-hand side vector, shared by a stack of matrices
        gb = xp.linalg.solve(a_t, xp.asarray(h)[..., None])
        return -(_t(xp.asarray(g)) @ gb)[..., 0]
    return -_t(xp.asarray(g)) @ xp.linalg.solve(a_t, h)


# --- cholesky: derivatives along L, in lower-triangular directions -----------------------------
#
# With K = L^-1 and Phi(P) = tril(P) with half the diagonal,
#   cholesky_grad(h, L)    = sym(K^T Phi(L^T tril(h)) K)    (F)
#   cholesky_tangent(w, L) = L Phi(K sym(w) K^T)            (T, the transpose of F)
# L is always a Cholesky factor and its changes are lower triangular: the derivatives
# below are taken along tril(t) and the adjoints are lower triangular, which keeps
# <W, dF(h)[t]> = <dT(W)[t], h>, so that one adjoint serves both helpers.


def _phi(p):
    """The lower triangle of ``p`` with half its diagonal (``Phi`` of the Cholesky
    adjoint); it is its own adjoint."""
    xp = array_module(p)
    n = p.shape[-1]
    return xp.tril(p) / (1.0 + xp.eye(n, dtype=p.dtype))


def cholesky_grad_tangent_l(t, h, L):
    """Tangent of ``cholesky_grad(h, L)`` along ``L`` (the change ``tril(t)``):
    ``sym(-K^T t^T S - S t K + K^T Phi(t^T tril(h)) K)``, ``S = K^T Phi(L^T tril(h)) K``.

    >>> L = np.array([[2.0, 0.0], [1.0, 1.0]])
    >>> cholesky_grad_tangent_l(np.zeros((2, 2)), np.eye(2), L)
    array([[0., 0.],
           [0., 0.]])
    """
    xp = array_module(t, h, L)
    t, g = xp.tril(t), xp.tril(h)
    k = xp.linalg.inv(L)
    s = _t(k) @ _phi(_t(L) @ g) @ k
    return _sym(-_t(k) @ _t(t) @ s - s @ t @ k + _t(k) @ _phi(_t(t) @ g) @ k)


def cholesky_tangent_tangent_l(t, w, L):
    """Tangent of ``cholesky_tangent(w, L)`` along ``L`` (the change ``tril(t)``):
    ``t Phi(M) - L Phi(N + N^T)``, ``M = K sym(w) K^T``, ``N = K t M``."""
    xp = array_module(t, w, L)
    t = xp.tril(t)
    k = xp.linalg.inv(L)
    m = k @ _sym(w) @ _t(k)
    n = k @ t @ m
    return t @ _phi(m) - L @ _phi(n + _t(n))


def cholesky_grad_adjoint_l(w, h, L):
    """Adjoint of ``cholesky_grad(h, L)`` with respect to ``L`` for the sensitivity ``w``,
    which is also the adjoint of ``cholesky_tangent(w, L)`` for the sensitivity ``h``:
    ``tril(tril(h) Phi(M)^T - K^T (P + P^T) M)``, ``M = K sym(w) K^T``,
    ``P = Phi(L^T tril(h))``."""
    xp = array_module(w, h, L)
    g = xp.tril(h)
    k = xp.linalg.inv(L)
    m = k @ _sym(w) @ _t(k)
    p = _phi(_t(L) @ g)
    return xp.tril(g @ _t(_phi(m)) - _t(k) @ (p + _t(p)) @ m)


# --- norms -------------------------------------------------------------------------------------


def norm_kind(x, ord=None, axis=None, matrix=None):
    """How ``norm_grad`` differentiates ``np.linalg.norm(x, ord, axis)``: ``("p", p)``
    (a vector p-norm, Frobenius included), ``("zero", None)`` (a piecewise linear norm:
    1, inf, the matrix 1 and inf norms, and ``ord=0``) or ``("spectral", ord)`` (matrix
    2, -2 and nuclear norms); and the reduced axes.

    >>> norm_kind(np.ones((2, 3)), "fro")
    (('p', 2.0), (0, 1))
    >>> norm_kind(np.ones((2, 3)), "nuc")
    (('spectral', 'nuc'), (0, 1))
    """
    axes = axes_of(axis, np.ndim(x))
    if matrix is None:
        matrix = ord is not None and np.ndim(x) == 2 if axis is None else len(axes) == 2
    if matrix and ord in (None, "fro"):
        return ("p", 2.0), axes
    if matrix and ord in (2, -2, "nuc"):
        return ("spectral", ord), axes
    if matrix or ord in (0, 1, np.inf, -np.inf):
        return ("zero", None), axes
    return ("p", 2.0 if ord is None else float(ord)), axes


def _expand(value, x, axes, axis, keepdims):
    """A reduced value (``ans``, ``h``) with the reduced axes back, as size-1 axes."""
    xp = array_module(value, x)
    value = xp.asarray(value)
    if keepdims:
        return value
    if axis is not None:
        return xp.expand_dims(value, axes)
    return xp.reshape(value, (1,) * x.ndim)


def _vector_factors(h, ans, x):
    """``(h / ans, |x| / ans)``, 0 where ``ans`` is 0 (the gradient's value at the origin)."""
    xp = array_module(h, ans, x)
    zero = ans == 0
    safe = xp.where(zero, 1.0, ans)
    return xp.where(zero, 0.0, h / safe), xp.where(zero, 0.0, xp.abs(x) / safe)


def _power(r, e):
    """``r ** e`` for ``r >= 0``, with ``0 ** e`` taken as 0 for ``e != 0`` (the convention
    of the first derivative at a zero entry, where a p < 2 norm has no second one)."""
    xp = array_module(r)
    if e == 0:
        return xp.ones_like(r)
    return xp.where(r == 0, 0.0, xp.where(r == 0, 1.0, r) ** e)  # (no 0 ** -1 computed)


def _vector_second_x(t, h_e, a_e, x, p):
    """Partial in ``x`` of ``h sign(x) (|x|/ans)^(p-1)``: ``(p-1) h (|x|/ans)^(p-2) / ans``,
    elementwise (so its own adjoint)."""
    h_over, r = _vector_factors(h_e, a_e, x)
    return t * (p - 1.0) * h_over * _power(r, p - 2.0)


def _vector_second_ans(t, h_e, a_e, x, p, axes, keepdims, tangent):
    """Partial in ``ans`` of ``h sign(x) (|x|/ans)^(p-1)``, which is
    ``-(p-1) h sign(x) (|x|/ans)^(p-1) / ans``: times ``t`` (shaped like ``ans``, expanded)
    as a tangent, else summed against ``t`` (shaped like ``x``) over the reduced axes."""
    xp = array_module(t, h_e, a_e, x)
    h_over, r = _vector_factors(h_e, a_e, x)
    partial = -(p - 1.0) * xp.sign(x) * h_over * _power(r, p - 1.0)
    if tangent:
        return t * partial
    return xp.sum(t * partial, axis=axes, keepdims=keepdims)


def _spectral_second(t, x, ord):
    """Tangent of the gradient ``U diag(c) V^T`` of a spectral norm (``c``: 1 at the largest
    singular value for 2, the smallest for -2, everywhere for ``"nuc"``) along ``t``, for
    stacks of matrices in the last two axes. With ``P = U^T t V``:
    ``U (sym(P) o A + skew(P) o B) V^T``, ``A_ij = (c_i - c_j) / (s_i - s_j)``,
    ``B_ij = (c_i + c_j) / (s_i + s_j)``, plus the complements of the thin SVD,
    ``(I - U U^T) t V diag(c/s) V^T`` and ``U diag(c/s) U^T t (I - V V^T)``. It is
    symmetric (a Hessian): the adjoint is the same map. (The 2 and -2 norms need their
    singular value to be simple, as for a first derivative; the nuclear norm needs none.)"""
    xp = array_module(t, x)
    u, s, vh = xp.linalg.svd(x, full_matrices=False)
    k = s.shape[-1]
    c = xp.zeros(k, dtype=s.dtype)
    if ord == "nuc":
        c[:] = 1.0
    else:
        c[0 if ord == 2 else k - 1] = 1.0
    ci, cj, si, sj = c[:, None], c[None, :], s[..., :, None], s[..., None, :]
    a = xp.where(ci == cj, 0.0, (ci - cj) / xp.where(si == sj, 1.0, si - sj))
    b = xp.where(ci + cj == 0, 0.0, (ci + cj) / xp.where(si + sj == 0, 1.0, si + sj))
    p = _t(u) @ t @ _t(vh)
    out = u @ (_sym(p) * a + (p - _t(p)) / 2.0 * b) @ vh
    c_over_s = xp.where(c == 0, 0.0, c / xp.where(s == 0, 1.0, s))
    m, n = x.shape[-2:]
    if m > k:  # the columns of t outside U's span
        rest = t - u @ (_t(u) @ t)
        out = out + rest @ _t(vh) @ (c_over_s[..., :, None] * vh)
    if n > k:
        rest = t - (t @ _t(vh)) @ vh
        out = out + (u * c_over_s[..., None, :]) @ _t(u) @ rest
    return out


def _spectral_along(t, x, ord, axes):
    """:func:`_spectral_second` for the matrices in the axes ``axes`` of ``x``."""
    xp = array_module(t, x)
    moved = xp.moveaxis(x, axes, (-2, -1))
    out = _spectral_second(xp.moveaxis(xp.broadcast_to(t, x.shape), axes, (-2, -1)), moved, ord)
    return xp.moveaxis(out, (-2, -1), axes)


def norm_grad_second(t, h, ans, x, ord=None, axis=None, keepdims=False, matrix=None,
                     argnum=2, tangent=False):
    """The partial derivatives of ``norm_grad(h, ans, x, ord, axis, keepdims, matrix)`` with
    respect to ``ans`` (``argnum`` 1) or ``x`` (2): their adjoint applied to ``t``, or with
    ``tangent``, their tangent along ``t`` (shaped like ``ans`` for ``ans``). The one in
    ``x`` is symmetric: ``tangent`` makes no difference there. Zero for the piecewise
    linear norms, whose second derivative is zero.

    >>> x = np.array([3.0, 4.0])
    >>> norm_grad_second(np.array([1.0, 0.0]), 1.0, 5.0, x)  # d(x/5) along e0, ans fixed
    array([0.2, 0. ])
    >>> norm_grad_second(np.array([1.0, 0.0]), 1.0, 5.0, x, argnum=1)  # -x0 / 25
    np.float64(-0.12)
    """
    xp = array_module(t, h, ans, x)
    x = xp.asarray(x)
    (kind, p), axes = norm_kind(x, ord, axis, matrix)
    h_e = _expand(h, x, axes, axis, keepdims)
    if kind == "spectral" and argnum == 2:
        return h_e * _spectral_along(t, x, p, axes)
    if kind != "p":  # a zero second derivative, or the spectral norms' ans (not read)
        shape = np.shape(ans) if argnum == 1 and not tangent else x.shape
        return xp.zeros(shape, dtype=np.result_type(x.dtype, 1.0))
    a_e = _expand(ans, x, axes, axis, keepdims)
    if argnum == 2:
        return _vector_second_x(t, h_e, a_e, x, p)
    if tangent:
        t = _expand(t, x, axes, axis, keepdims)
    return _vector_second_ans(t, h_e, a_e, x, p, axes, keepdims, tangent)
