"""Second and higher derivatives of the linear-algebra and norm helpers (``solve_grad``,
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

Higher orders: the Cholesky derivatives along ``L`` of any order are jets of matrices
(``cholesky_grad_jet``, ``cholesky_tangent_jet``, ``cholesky_adjoint_jet``); the
p-norms' partials of any order are one helper (``norm_grad_partial``); the third
derivative in ``x`` (``norm_grad_third``) covers the spectral norms too, by the
derivatives of the matrix function ``f(x^T x)`` behind their gradient.

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

from ..backends import array_module
from .higher import axes_of
from ..errors import DifferentiationError


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


# --- cholesky: every order, with jets of matrices ------------------------------------------------
#
# The mixed derivatives along lower-triangular directions t_1..t_k of L are the coefficients of
# s_1...s_k of the same formulas computed with L(s) = L + sum s_j t_j, in matrices whose
# entries are multilinear polynomials in s_1..s_k (s_j^2 = 0; see
# s2sad.runtime.hessians._jet): K(s) = L(s)^-1 is a finite Neumann series. The gradient in L
# of such a derivative is the reverse sweep of that computation, written out below.


def _mat_jet(xp, L, directions):
    """``L + sum s_j tril(t_j)`` as a jet of matrices (a list of ``2^k`` coefficients)."""
    out = [L] + [xp.zeros_like(L)] * ((1 << len(directions)) - 1)
    for j, t in enumerate(directions):
        out[1 << j] = xp.broadcast_to(xp.tril(t), L.shape).astype(L.dtype)
    return out


def _mat_mul(a, b):
    """The product of two jets of matrices (``@`` on each pair of coefficients)."""
    out = []
    for s in range(len(a)):
        total, t = a[0] @ b[s], s
        while t:
            total = total + a[t] @ b[s ^ t]
            t = (t - 1) & s
        out.append(total)
    return out


def _mat_mul_back(a, b, bar):
    """The reverse sweep of ``z = a b`` (jets), for ``bar`` the sensitivities of ``z``'s
    coefficients times a new variable: those of ``a``'s and ``b``'s, likewise."""
    a_bar = [0.0] * len(a)
    b_bar = [0.0] * len(a)
    for s in range(len(a)):
        t = s
        while True:  # the pairs (t, s - t) that make coefficient s
            a_bar[t] = a_bar[t] + bar[s] @ _t(b[s ^ t])
            b_bar[s ^ t] = b_bar[s ^ t] + _t(a[t]) @ bar[s]
            if t == 0:
                break
            t = (t - 1) & s
    return a_bar, b_bar


def _mat_inverse(xp, jet):
    """The inverse of a jet of matrices: ``sum over r of (-K0 D)^r K0``, ``K0`` the inverse
    of the constant term and ``D`` the rest (nilpotent)."""
    k0 = xp.linalg.inv(jet[0])
    e = [xp.zeros_like(k0)] + [k0 @ c for c in jet[1:]]  # K0 D
    term = [k0] + [xp.zeros_like(k0)] * (len(jet) - 1)
    total = term
    for _ in range(len(jet).bit_length() - 1):
        term = [-c for c in _mat_mul(e, term)]
        total = [a + b for a, b in zip(total, term)]
    return total


def _constant(xp, c, L, size):
    """``c`` (broadcast to ``L``'s shape) as a jet that does not move."""
    c = xp.broadcast_to(c, L.shape).astype(np.result_type(c.dtype, L.dtype))
    return [c] + [xp.zeros_like(c)] * (size - 1)


def _directions_of(*directions):
    """The directions given (those not None)."""
    return [d for d in directions if d is not None]


def cholesky_grad_jet(h, L, t=None, u=None, v=None):
    """The mixed derivative of ``cholesky_grad(h, L)`` along the changes ``tril(t)``,
    ``tril(u)``, ``tril(v)`` of ``L`` (those given): ``cholesky_grad`` itself for none,
    ``cholesky_grad_tangent_l(t, h, L)`` for one. Computed with jets (see above).

    >>> L = np.array([[2.0, 0.0], [1.0, 1.0]])
    >>> bool(np.allclose(cholesky_grad_jet(np.eye(2), L, np.eye(2)),
    ...                  cholesky_grad_tangent_l(np.eye(2), np.eye(2), L)))
    True
    """
    xp = array_module(h, L, t, u, v)
    L = xp.asarray(L)
    jet = _mat_jet(xp, L, _directions_of(t, u, v))
    k = _mat_inverse(xp, jet)
    g = _constant(xp, xp.tril(h), L, len(jet))
    inner = [_phi(c) for c in _mat_mul([_t(c) for c in jet], g)]
    return _sym(_mat_mul(_mat_mul([_t(c) for c in k], inner), k)[-1])


def cholesky_tangent_jet(w, L, t=None, u=None, v=None):
    """The mixed derivative of ``cholesky_tangent(w, L)`` (``L Phi(K sym(w) K^T)``) along
    the changes ``tril(t)``, ``tril(u)``, ``tril(v)`` of ``L`` (those given):
    ``cholesky_tangent_tangent_l(t, w, L)`` for one.

    >>> L = np.array([[2.0, 0.0], [1.0, 1.0]])
    >>> bool(np.allclose(cholesky_tangent_jet(np.eye(2), L, np.eye(2)),
    ...                  cholesky_tangent_tangent_l(np.eye(2), np.eye(2), L)))
    True
    """
    xp = array_module(w, L, t, u, v)
    L = xp.asarray(L)
    jet = _mat_jet(xp, L, _directions_of(t, u, v))
    k = _mat_inverse(xp, jet)
    m = _mat_mul(_mat_mul(k, _constant(xp, _sym(xp.asarray(w)), L, len(jet))),
                 [_t(c) for c in k])
    return _mat_mul(jet, [_phi(c) for c in m])[-1]


def cholesky_adjoint_jet(w, h, L, t=None, u=None, v=None):
    """The gradient in ``L`` (lower triangular) of ``<w, D>``, ``D`` the mixed derivative of
    ``cholesky_grad(h, L)`` along ``tril(t)``, ``tril(u)``, ``tril(v)`` (those given):
    ``cholesky_grad_adjoint_l(w, h, L)`` for none. It is the adjoint in ``L`` of
    ``cholesky_grad_jet(h, L, t, u, v)`` for ``w``, and of ``cholesky_tangent_jet(w, L, t, u,
    v)`` for ``h``; computed by the reverse sweep of ``<T(w, L(s)), tril(h)>``'s jet.

    >>> L = np.array([[2.0, 0.0], [1.0, 1.0]])
    >>> bool(np.allclose(cholesky_adjoint_jet(np.eye(2), np.eye(2), L),
    ...                  cholesky_grad_adjoint_l(np.eye(2), np.eye(2), L)))
    True
    """
    xp = array_module(w, h, L, t, u, v)
    L = xp.asarray(L)
    jet = _mat_jet(xp, L, _directions_of(t, u, v))
    size = len(jet)
    zero = xp.zeros_like(L)
    k = _mat_inverse(xp, jet)
    k_t = [_t(c) for c in k]
    ws = _constant(xp, _sym(xp.asarray(w)), L, size)
    n = _mat_mul(ws, k_t)              # W K^T
    m = _mat_mul(k, n)                 # K W K^T
    p = [_phi(c) for c in m]
    # the reverse sweep of T = L(s) Phi(M): the sensitivities of the coefficients times s'
    t_bar = [zero] * (size - 1) + [_constant(xp, xp.tril(h), L, 1)[0]]
    l_bar, p_bar = _mat_mul_back(jet, p, t_bar)
    m_bar = [_phi(c) for c in p_bar]
    k_bar, n_bar = _mat_mul_back(k, n, m_bar)
    _, kt_bar = _mat_mul_back(ws, k_t, n_bar)
    k_bar = [a + _t(b) for a, b in zip(k_bar, kt_bar)]
    # K = L^-1: dK = -K dL K
    _, q_bar = _mat_mul_back(k, [zero] * size, [-c for c in k_bar])  # (K (dL K))
    l_bar2, _ = _mat_mul_back([zero] * size, k, q_bar)
    return xp.tril(l_bar[0] + l_bar2[0])


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


# The spectral norms' gradient is x f(S), S = x^T x (x with at least as many rows as columns),
# f(lambda) = lambda^(-1/2) on the eigenvalues of S it keeps (all for "nuc", the largest for 2,
# the smallest for -2) and 0 on the others. Its derivatives are those of the matrix function
# f(S) (Daleckii-Krein): with S = V diag(lambda) V^T and E' = V^T E V,
#   Df(S)[E] = V (f[.,.] o E') V^T,  D2f(S)[E1, E2] = V (sum_k f[i,k,j] (E1'_ik E2'_kj + E2'_ik
#   E1'_kj)) V^T, with the divided differences f[.,.] and f[.,.,.] of f on the eigenvalues.


def _kept(xp, lam, ord):
    """1 for the eigenvalues of ``S`` the spectral norm ``ord`` keeps, 0 for the others."""
    n = lam.shape[-1]
    c = xp.zeros(n, dtype=lam.dtype)
    if ord == "nuc":
        c[:] = 1.0
    else:
        c[n - 1 if ord == 2 else 0] = 1.0  # (eigh: ascending)
    return c


def _f(lam, c, order):
    """The derivative ``order`` (0, 1, 2) of ``c lambda^(-1/2)`` (0 where ``c`` is 0)."""
    xp = array_module(lam)
    return c * (1.0, -0.5, 0.75)[order] * xp.where(c == 0, 1.0, lam) ** (-0.5 - order)


def _safe(xp, d):
    """``d`` with its zeros made 1 (a denominator whose zeros are not used)."""
    return xp.where(d == 0, 1.0, d)


def _divided_first(xp, lam, c):
    """``f[lambda_i, lambda_j]``: ``f'`` on the diagonal; between two kept eigenvalues the
    closed form ``-1 / (x_i x_j (x_i + x_j))`` (``x = sqrt(lambda)``: no cancellation); 0
    between two others."""
    li, lj = lam[..., :, None], lam[..., None, :]
    ci, cj = c[:, None] + 0.0 * li, c[None, :] + 0.0 * lj
    same = xp.eye(lam.shape[-1], dtype=bool)
    xi, xj = xp.sqrt(xp.where(ci == 0, 1.0, li)), xp.sqrt(xp.where(cj == 0, 1.0, lj))
    kept = -1.0 / (xi * xj * (xi + xj))
    mixed = (_f(li, ci, 0) - _f(lj, cj, 0)) / _safe(xp, xp.where(same, 1.0, li - lj))
    out = xp.where((ci == 1) & (cj == 1), kept, xp.where((ci == 0) & (cj == 0), 0.0, mixed))
    return xp.where(same, _f(li, ci, 1), out)


def _divided_second(xp, lam, c, first):
    """``f[lambda_i, lambda_j, lambda_k]``: between kept eigenvalues the closed form
    ``(x + y + z) / (x y z (x + y) (y + z) (x + z))`` (``f''/2`` when they are equal); 0
    between others; for a mix, ``(f[a, b] - f[b, c]) / (a - c)`` with ends ``a``, ``c``
    of the two kinds (distinct: the kept eigenvalue is simple for 2 and -2)."""
    li, lj, lk = lam[..., :, None, None], lam[..., None, :, None], lam[..., None, None, :]
    ci, cj, ck = (c[:, None, None] + 0.0 * li, c[None, :, None] + 0.0 * lj,
                  c[None, None, :] + 0.0 * lk)
    x, y, z = (xp.sqrt(xp.where(c_ == 0, 1.0, l_)) for c_, l_ in ((ci, li), (cj, lj), (ck, lk)))
    kept = (x + y + z) / (x * y * z * (x + y) * (y + z) * (x + z))
    f_ij, f_jk, f_ik = first[..., :, :, None], first[..., None, :, :], first[..., :, None, :]
    mixed = xp.where(ci != ck, (f_ij - f_jk) / _safe(xp, li - lk),
                     xp.where(ci != cj, (f_ik - f_jk) / _safe(xp, li - lj),
                              (f_ij - f_ik) / _safe(xp, lj - lk)))
    all_kept = (ci == 1) & (cj == 1) & (ck == 1)
    none_kept = (ci == 0) & (cj == 0) & (ck == 0)
    return xp.where(all_kept, kept, xp.where(none_kept, 0.0, mixed))


def _spectral_third(t, u, x, ord):
    """The change along ``u`` of :func:`_spectral_second` ``(t, x, ord)``: the third derivative
    of a spectral norm along ``t`` and ``u``, as a gradient (symmetric in ``t``, ``u`` and its
    own direction), for stacks of matrices in the last two axes. With ``G = x f(S)``:
    ``t Df[dS_u] + u Df[dS_t] + x (Df[t^T u + u^T t] + D2f[dS_t, dS_u])``, ``dS_t = t^T x +
    x^T t``. (The nuclear norm needs ``x`` of full rank, the 2 and -2 norms a simple singular
    value.)"""
    xp = array_module(t, u, x)
    x = xp.asarray(x)
    t, u = (xp.broadcast_to(a, x.shape) for a in (t, u))
    wide = x.shape[-2] < x.shape[-1]
    if wide:
        t, u, x = _t(t), _t(u), _t(x)
    lam, v = xp.linalg.eigh(_t(x) @ x)
    c = _kept(xp, lam, ord)
    first = _divided_first(xp, lam, c)
    second = _divided_second(xp, lam, c, first)

    def df(e):
        return v @ (first * (_t(v) @ e @ v)) @ _t(v)

    def d2f(e1, e2):
        a, b = _t(v) @ e1 @ v, _t(v) @ e2 @ v
        inner = xp.einsum("...ikj,...ik,...kj->...ij", second, a, b) + \
            xp.einsum("...ikj,...ik,...kj->...ij", second, b, a)
        return v @ inner @ _t(v)
    ds_t, ds_u = _t(t) @ x + _t(x) @ t, _t(u) @ x + _t(x) @ u
    out = t @ df(ds_u) + u @ df(ds_t) + x @ (df(_t(t) @ u + _t(u) @ t) + d2f(ds_t, ds_u))
    return _t(out) if wide else out


def norm_grad_third(t, u, h, ans, x, ord=None, axis=None, keepdims=False, matrix=None):
    """The change along ``u`` of ``norm_grad_second(t, h, ans, x, ord, axis, keepdims,
    matrix)`` (the partial in ``x``) in ``x``: the third derivative of ``<h, norm(x)>``
    (``ans`` held) along ``t`` and ``u``, as a gradient, symmetric in ``t``, ``u`` and its
    own direction. For the p-norms it is ``norm_grad_partial(t u, h, ..., dx=2)``; for the
    spectral norms, see :func:`_spectral_third`; 0 for the piecewise linear ones.

    >>> x = np.array([3.0, 4.0])
    >>> norm_grad_third(np.ones(2), np.ones(2), 1.0, 5.0, x, 3)  # (p-1)(p-2) / ans^(p-1)
    array([0.08, 0.08])
    """
    xp = array_module(t, u, h, ans, x)
    x = xp.asarray(x)
    (kind, p), axes = norm_kind(x, ord, axis, matrix)
    if kind == "spectral":
        h_e = _expand(h, x, axes, axis, keepdims)
        moved = xp.moveaxis(x, axes, (-2, -1))
        t, u = (xp.moveaxis(xp.broadcast_to(a, x.shape), axes, (-2, -1)) for a in (t, u))
        return h_e * xp.moveaxis(_spectral_third(t, u, moved, p), (-2, -1), axes)
    return norm_grad_partial(t * u, h, ans, x, ord, axis, keepdims, matrix, 2, 0, False)


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
    if type(t) in (list, tuple):  # (the tangent of a list: norm reads it as an array)
        t = xp.asarray(t)
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


# --- norms: every higher derivative of the p-norms' gradient ---------------------------------
#
# The gradient of a vector p-norm is h sign(x) |x|^(p-1) ans^(1-p), elementwise in x and one
# factor per reduced slice in ans. Its partial derivatives of any order are again of that
# form, so one helper, with the orders of the derivatives in x and ans, holds them all.


def _norm_coefficient(p, dx, dans):
    """``(p-1)(p-2)...(p-dx)`` (from ``|x|^(p-1)``) times ``(1-p)(-p)...(2-p-dans)`` (from
    ``ans^(1-p)``): the constant of the partial derivative ``dx`` times in ``x`` and ``dans``
    times in ``ans``."""
    out = 1.0
    for i in range(1, dx + 1):
        out *= p - i
    for i in range(dans):
        out *= 1.0 - p - i
    return out


def norm_grad_partial(u, c, ans, x, ord=None, axis=None, keepdims=False, matrix=None, dx=1,
                      dans=0, reduce=False):
    """``u c Q``, ``Q`` the partial derivative ``dx`` times in ``x`` and ``dans`` times in
    ``ans`` of the p-norm's gradient ``sign(x) |x|^(p-1) ans^(1-p)`` (``norm_grad`` with
    ``h`` 1 and ``ans`` taken as independent); ``u`` is shaped like ``x`` (or broadcasts),
    ``c`` like ``ans``. With ``reduce`` the product is summed over the reduced axes (shaped
    like ``ans``). Derivatives in ``x`` multiply ``u``, those in ``ans`` multiply ``c``, so
    the helper's own derivatives are the same helper with ``dx`` or ``dans`` one higher.

    ``Q = (p-1)...(p-dx) (1-p)...(2-p-dans) sign(x)^(1+dx) r^(p-1-dx) / ans^(dx+dans)``,
    ``r = |x| / ans``, 0 where ``ans`` is 0 (the gradient's convention), ``0 ** e`` taken
    as 0 for ``e != 0``. The piecewise linear norms give 0; the spectral norms 0 for
    ``dans > 0`` (their gradient does not read ``ans``); in ``x`` they have their own
    helpers (:func:`norm_grad_second`, :func:`norm_grad_third`), and their fourth
    derivatives are not written (``NoDerivativeError``).

    >>> x = np.array([3.0, 4.0])
    >>> norm_grad_partial(1.0, 1.0, 5.0, x)  # the Hessian of |x|'s diagonal: (p-1) / ans
    array([0.2, 0.2])
    >>> norm_grad_partial(1.0, 1.0, 5.0, x, dans=1, dx=0)  # d(x / ans) / d ans
    array([-0.12, -0.16])
    """
    xp = array_module(u, c, ans, x)
    x = xp.asarray(x)
    (kind, p), axes = norm_kind(x, ord, axis, matrix)
    if kind == "spectral" and dans == 0:
        from .higher import not_differentiable_yet
        not_differentiable_yet("norm_grad_third", "x (a fourth derivative of a spectral norm)")
    dtype = np.result_type(x.dtype, _dtype_of(u), _dtype_of(c), 1.0)
    if kind != "p" or _norm_coefficient(p, dx, dans) == 0.0:
        shape = np.shape(ans) if reduce else x.shape
        return xp.zeros(shape, dtype=dtype)
    a_e = _expand(ans, x, axes, axis, keepdims)
    c_e = c if np.ndim(c) == 0 else _expand(c, x, axes, axis, keepdims)
    zero = a_e == 0
    safe = xp.where(zero, 1.0, a_e)
    r = xp.where(zero, 0.0, xp.abs(x) / safe)
    q = _norm_coefficient(p, dx, dans) * _power(r, p - 1.0 - dx) / safe ** (dx + dans)
    if dx % 2 == 0:
        q = xp.sign(x) * q
    out = u * c_e * xp.where(zero, 0.0, q)
    if reduce:
        return xp.sum(out, axis=axes, keepdims=keepdims)
    return xp.broadcast_to(out, x.shape)


def _dtype_of(value):
    """The dtype of ``value`` (a Python number's, as NumPy sees it)."""
    dtype = getattr(value, "dtype", None)
    return np.asarray(value).dtype if dtype is None else dtype


def _smooth_norm(x, ord, axis, matrix):
    """Is ``norm_grad``'s slope of ``np.linalg.norm(x, ord, axis)`` one whose own rule holds
    for complex ``x``? The 2-norm's ``x / |x|`` is; the others' ``sign(x)``, ``|x|`` and
    singular vectors are not locally constant, or not holomorphic, there."""
    if not np.iscomplexobj(x) or ord in (None, "fro", 0):
        return True
    if matrix is None:
        ndim = np.ndim(x)
        matrix = ndim == 2 if axis is None else np.ndim(axis) == 1 and len(axis) == 2
    return ord == 2 and not matrix


def complex_norm_checked(x, ord=None, axis=None, matrix=None):
    """1.0 where ``norm_grad``'s own rule holds for ``x`` (``_smooth_norm``); else a
    refusal, as its rule for complex values would be silently wrong.

    >>> complex_norm_checked(np.array([1.0 + 1.0j]), None)
    1.0
    >>> complex_norm_checked(np.array([1.0 + 1.0j]), 1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    s2sad.errors.DifferentiationError: s2sad has no second derivative ... ord=1 of a complex value...
    """
    if not _smooth_norm(x, ord, axis, matrix):
        raise DifferentiationError(
            f"s2sad has no second derivative of np.linalg.norm with ord={ord!r} of a complex "
            "value",
            hint="Of a complex z, the 2-norm (ord=None) has one; write others out with "
                 "np.abs (np.sum(np.abs(z)) for ord=1, np.max(np.abs(z)) for ord=np.inf).")
    return 1.0
