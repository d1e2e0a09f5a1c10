"""Derivative rules for the decompositions of general and complex matrices:
``np.linalg.eig`` and ``eigvals`` (complex results), and ``svd``, ``cholesky`` and
``eigh`` of complex matrices, in autograd's convention (see ``rules/complex.py``).

>>> import numpy as np
>>> from s2sad import registry
>>> a = np.array([[2.0, 1.0], [0.0, 3.0]])
>>> g = registry.lookup(np.linalg.eigvals).adjoint(np.array([1.0, 0.0]), np.linalg.eigvals(a), a)
>>> np.real(g)
array([[ 1.,  0.],
       [-1.,  0.]])

(``d w[0] = da[0, 0] - da[1, 0]``: the left eigenvector ``(1, -1)`` times the right ``(1, 0)``.
Its real part is a real matrix's gradient: ``g`` is complex from NumPy 2.5, whose ``eig`` and
``eigvals`` give complex arrays always, real ones before where every eigenvalue is real.)

Each rule is written with functions that have rules (``@``, ``np.linalg.solve``,
``np.conj``, ``gap_quotient``), so derivatives of derivatives follow.

Eigen- and singular vectors are fixed up to a factor, which NumPy's LAPACK chooses:
``eig``'s have unit 2-norm and their entry of largest modulus real; ``eigh``'s and
``svd``'s one real row (see ``runtime/matrices.py``). The rules differentiate that
choice, so a function of the vectors' phases gets its exact derivative. Where the choice
jumps (two largest moduli equal, the real row 0) the result is NaN or infinite, as where
an eigenvalue repeats. A sensitivity ``g`` of a result ``r`` says the function changes by
``Re(sum(g * dr))`` (autograd's convention); the adjoints below are written with
``h = conj(g)``, the transposes of the tangents under that product.
"""

import numpy as np

from ..registry import defcomplex, deffacts, deftangent, defvjp, nondifferentiable
from ..runtime import (as_gradient, gap_quotient, largest_rows, phase_checked, quotient,
                       read_triangle, spread_triangle, svd_completed, svd_kept)


nondifferentiable(largest_rows, phase_checked)

# --- eig: a = v diag(w) v^-1 ---------------------------------------------------------------
# p = v^-1 da v: dw = diag(p), and v turns by v (p[i, j] / (w[j] - w[i])) (i != j); then
# each column moves along itself to keep its norm 1 and its largest entry real:
# dv_k += v_k (-Re(v_k^H dv_k) - i Im(dv_k[r]) / v_k[r]).

deffacts(np.linalg.eig, fields=(("eigenvalues", "eigenvectors"), (-1, 0)))


@defvjp(np.linalg.eig, shape="sequence")
def eig(g, ans, a):
    # v^-T (diag(g_w) + (v^T h)[i, j] / (w[j] - w[i])) v^T, where h is g_v less what the
    # normalization takes: s = sum(v g_v) over each column, h = g_v - conj(v) Re(s) -
    # i Im(s) / v[r] at the column's real entry r
    gv = as_gradient(ans[1], g[1])
    s = np.sum(ans[1] * gv, axis=-2)
    rows = largest_rows(ans[1], a, 0.0)  # (tied: 0, and a quotient by 0, NaN if not 0 / 0)
    h = gv - np.conj(ans[1]) * np.expand_dims(np.real(s), -2) - (
        1j * rows * np.expand_dims(quotient(np.imag(s), np.real(np.sum(rows * ans[1], axis=-2))),
                                   -2) if np.iscomplexobj(ans[1]) else 0.0)
    vt = np.swapaxes(ans[1], -1, -2)
    return np.linalg.solve(vt, gap_quotient(vt @ h, ans[0]) @ vt +
                           np.expand_dims(as_gradient(ans[0], g[0]), -1) * vt)


@deftangent(np.linalg.eig)
def eig_tangent(g, ans, a):
    p = np.linalg.solve(ans[1], g @ ans[1])
    dv = ans[1] @ gap_quotient(p, ans[0])
    rows = largest_rows(ans[1], a)
    scale = -np.real(np.sum(np.conj(ans[1]) * dv, axis=-2))
    along = scale - 1j * np.imag(np.sum(rows * dv, axis=-2)) / np.real(
        np.sum(rows * ans[1], axis=-2)) if np.iscomplexobj(ans[1]) else scale
    return [np.diagonal(p, 0, -2, -1), dv + ans[1] * np.expand_dims(along, -2)]


@defvjp(np.linalg.eigvals, shape="other")
def eigvals(g, ans, a):
    # v^-T diag(g) v^T
    vt = np.swapaxes(np.linalg.eig(a)[1], -1, -2)
    return np.linalg.solve(vt, np.expand_dims(as_gradient(ans, g), -1) * vt)


@deftangent(np.linalg.eigvals)
def eigvals_tangent(g, ans, a):
    v = np.linalg.eig(a)[1]
    return np.diagonal(np.linalg.solve(v, g @ v), 0, -2, -1)


# --- eigh of a Hermitian matrix: a = v diag(w) v^H ---------------------------------------------
# m = v^H herm(da) v: dw = Re(diag(m)), v turns by v (m[i, j] / (w[j] - w[i])), and each
# column by the phase i theta that keeps its real entry real (row 0 with UPLO="L", the last
# with "U": heevd's reduction to a real tridiagonal matrix leaves that row alone)

@defcomplex(np.linalg.eigh, shape="sequence")
def eigh(g, ans, a, UPLO="L"):
    # conj(v) (diag(g_w) + (v^T h)[i, j] / (w[j] - w[i]), i != j) v^T, made Hermitian (its
    # transpose the conjugate); h is g_v less the phase's part, i Im(sum(v g_v)) / v[r]
    row = 0 if UPLO in ("L", "l") else np.shape(a)[-1] - 1
    gv = as_gradient(ans[1], g[1])
    h = gv - 1j * np.expand_dims(np.arange(np.shape(a)[-1]) == row, -1) * np.expand_dims(
        quotient(np.imag(np.sum(ans[1] * gv, axis=-2)), np.real(ans[1][..., row, :])), -2) * \
        phase_checked(ans[1], row, "eigh") if np.iscomplexobj(ans[1]) else gv
    vt = np.swapaxes(ans[1], -1, -2)
    full = (np.conj(ans[1]) * np.expand_dims(np.real(as_gradient(ans[0], g[0])), -2) +
            np.conj(ans[1]) @ gap_quotient(vt @ h, ans[0])) @ vt
    return read_triangle((full + np.conj(np.swapaxes(full, -1, -2))) / 2.0, a, row == 0)


@defcomplex(np.linalg.eigh, tangent=True)
def eigh_tangent(g, ans, a, UPLO="L"):
    row = 0 if UPLO in ("L", "l") else np.shape(a)[-1] - 1
    d = spread_triangle(g, a, row == 0)
    m = np.conj(np.swapaxes(ans[1], -1, -2)) @ \
        ((d + np.conj(np.swapaxes(d, -1, -2))) / 2.0) @ ans[1]
    dv = ans[1] @ gap_quotient(m, ans[0])
    turn = 1j * np.expand_dims(quotient(-np.imag(dv[..., row, :]), np.real(
        ans[1][..., row, :])), -2) * phase_checked(ans[1], row, "eigh") \
        if np.iscomplexobj(ans[1]) else 0.0
    return [np.real(np.diagonal(m, 0, -2, -1)), dv + ans[1] * turn]


# --- svd of a complex matrix: a = u diag(s) vh ------------------------------------------------
# m = u^H da v: ds = Re(diag(m)); u and v turn by (m s + s m^H) / gaps and (s m + m^H s) /
# gaps (gaps s[j]^2 - s[i]^2), u also by i Im(diag(m)) / s; both by the same phase i theta
# that keeps the real row real (v's first where a is tall or square, else u's).


@defcomplex(np.linalg.svd, shape="sequence")
def svd(g, ans, a, full_matrices=True, *, hermitian=False):
    # the tangent's transpose, with h = conj(g): a's sensitivity is conj(u hm v^H + ...)
    k = svd_kept(g, ans, full_matrices)
    u = ans[0][..., :k]
    v = np.conj(np.swapaxes(ans[2][..., :k, :], -1, -2))
    hu = np.conj(as_gradient(ans[0], g[0])[..., :k])
    hv = np.swapaxes(as_gradient(ans[2], g[2])[..., :k, :], -1, -2)
    turned = -np.imag(np.sum(np.conj(hu) * u, axis=-2) + np.sum(np.conj(hv) * v, axis=-2))
    tall = np.shape(a)[-2] >= np.shape(a)[-1]
    hv = hv - 1j * np.expand_dims(np.arange(np.shape(v)[-2]) == 0, -1) * np.expand_dims(
        quotient(turned, np.real(v[..., 0, :])), -2) * phase_checked(v, 0, "svd") if tall else hv
    hu = hu if tall else hu - 1j * np.expand_dims(np.arange(np.shape(u)[-2]) == 0, -1) * \
        np.expand_dims(quotient(turned, np.real(u[..., 0, :])), -2) * phase_checked(u, 0, "svd")
    s_row = np.expand_dims(ans[1], -2)
    s_col = np.expand_dims(ans[1], -1)
    hx = np.conj(np.swapaxes(u, -1, -2)) @ hu
    hy = gap_quotient(hx, ans[1] ** 2)
    hz = gap_quotient(np.conj(np.swapaxes(v, -1, -2)) @ hv, ans[1] ** 2)
    hm = (hy + np.conj(np.swapaxes(hy, -1, -2))) * s_row + \
        s_col * (hz + np.conj(np.swapaxes(hz, -1, -2))) + np.expand_dims(
            np.real(as_gradient(ans[1], g[1])) +
            quotient(1j * np.imag(np.diagonal(hx, 0, -2, -1)), ans[1]), -1) * np.eye(k)
    vh = np.conj(np.swapaxes(v, -1, -2))
    return np.conj(u @ hm @ vh + quotient(hu - u @ hx, s_row) @ vh +
                   u @ quotient(np.conj(np.swapaxes(hv - v @ (vh @ hv), -1, -2)), s_col))


@defcomplex(np.linalg.svd, tangent=True)
def svd_tangent(g, ans, a, full_matrices=True, *, hermitian=False):
    k = np.shape(ans[1])[-1]
    u = ans[0][..., :k]
    v = np.conj(np.swapaxes(ans[2][..., :k, :], -1, -2))
    m = np.conj(np.swapaxes(u, -1, -2)) @ g @ v
    s_row = np.expand_dims(ans[1], -2)
    s_col = np.expand_dims(ans[1], -1)
    du = u @ gap_quotient(m * s_row + s_col * np.conj(np.swapaxes(m, -1, -2)), ans[1] ** 2) + \
        u * quotient(1j * np.imag(np.diagonal(m, 0, -2, -1)), s_row[..., 0, :])[..., None, :] + \
        quotient(g @ v - u @ m, s_row)
    dv = v @ gap_quotient(s_col * m + np.conj(np.swapaxes(m, -1, -2)) * s_row, ans[1] ** 2) + \
        quotient(np.conj(np.swapaxes(g, -1, -2)) @ u - v @ np.conj(np.swapaxes(m, -1, -2)),
                 s_row)
    tall = np.shape(a)[-2] >= np.shape(a)[-1]
    theta = quotient(-np.imag(dv[..., 0, :]), np.real(v[..., 0, :])) * \
        phase_checked(v, 0, "svd") if tall else \
        quotient(-np.imag(du[..., 0, :]), np.real(u[..., 0, :])) * phase_checked(u, 0, "svd")
    turn = 1j * np.expand_dims(theta, -2)
    return [svd_completed(du + u * turn, ans[0], np.nan), np.real(np.diagonal(m, 0, -2, -1)),
            svd_completed(np.conj(np.swapaxes(dv + v * turn, -1, -2)), ans[2], np.nan)]


# --- cholesky of a Hermitian positive definite matrix: a = l l^H -----------------------------
# dl = l Phi(l^-1 da l^-H), Phi: the lower triangle with half the diagonal; the sensitivity
# is conj(herm(l^-H Phi(l^H conj(g)) l^-1)), Hermitian as the real rule's is symmetric


@defcomplex(np.linalg.cholesky, shape="other")
def cholesky(g, ans, a, upper=False):
    lh = ans if upper else np.conj(np.swapaxes(ans, -1, -2))
    m = lh @ np.tril(np.swapaxes(g, -1, -2) if upper else np.conj(g))
    p = np.tril(m) / (1.0 + np.eye(np.shape(m)[-1]))
    y = np.linalg.solve(lh, np.conj(np.swapaxes(p, -1, -2)))
    full = np.linalg.solve(lh, np.conj(np.swapaxes(y, -1, -2)))
    return read_triangle(np.conj(full + np.conj(np.swapaxes(full, -1, -2))) / 2.0, a, not upper)


@defcomplex(np.linalg.cholesky, tangent=True)
def cholesky_tangent(g, ans, a, upper=False):
    low = np.conj(np.swapaxes(ans, -1, -2)) if upper else ans
    d = spread_triangle(g, a, not upper)
    y = np.linalg.solve(low, (d + np.conj(np.swapaxes(d, -1, -2))) / 2.0)
    x = np.linalg.solve(low, np.conj(np.swapaxes(y, -1, -2)))
    dl = low @ (np.tril(x) / (1.0 + np.eye(np.shape(x)[-1])))
    return np.conj(np.swapaxes(dl, -1, -2)) if upper else dl
