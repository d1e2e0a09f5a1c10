"""Derivative rules for more of ``np.linalg`` (``pinv``, ``lstsq``, ``qr``) and
``np.row_stack``; the facts of the helpers :mod:`s2sad.implementations` writes
``np.insert``, ``np.delete``, ``np.partition``, ``np.gradient`` and ``np.pad``'s computed
modes with.

Each rule is written with functions that have rules (``pinv``'s adjoint calls ``@``
and ``np.swapaxes``; ``qr``'s ``np.triu`` and ``np.linalg.solve``), so a derivative of
a derivative follows.

>>> import numpy as np
>>> from s2sad import registry
>>> a = np.array([[2.0, 0.0], [0.0, 4.0], [0.0, 0.0]])
>>> registry.lookup(np.linalg.pinv).adjoint(np.ones((2, 3)), np.linalg.pinv(a), a)
array([[-0.25  , -0.125 ],
       [-0.125 , -0.0625],
       [ 0.25  ,  0.0625]])
"""

import numpy as np

from ..registry import (defcomplex, defdtype, deffacts, deflinear, defresult, deftangent, defvjp, nondifferentiable,
                        refuse_values)
from ..runtime import as_gradient, cast_like, pinv_cut_checked, read_triangle, spread_triangle
from ..runtime.numpy_more import (check_accumulated, check_convolve, check_cross3,
                                  check_gradient_spacings, check_interp, check_multi_dot,
                                  check_ranks, check_rollaxis, check_select, delete_sources,
                                  gradient_axes, insert_sources, like_dtype, pad_pairs,
                                  partition_sources, piecewise_conditions)
from .numpy_shape import vstack

# --- the pseudo-inverse ----------------------------------------------------------------
# d pinv(a) = -p da p + p p^T da^T (1 - a p) + (1 - p a) da^T p^T p, where the rank
# does not change (Golub and Pereyra, 1973); hermitian=True reads a's lower triangle, like
# eigh: the formula takes the symmetric matrix it stands for, s, and the gradient is
# eigh's (symmetric where a is, else in the triangle read: read_triangle). An rcond (or
# rtol) that drops a singular value above rounding changes the rank: refused where the line
# runs (pinv_cut_checked), as the formula would be silently wrong there.


nondifferentiable(pinv_cut_checked)  # (a refusal where the line runs: 1.0 or raises)


@defvjp(np.linalg.pinv, shape="other")
def pinv(g, ans, a, rcond=None, hermitian=False, *, rtol=None):
    s = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2) if hermitian else a
    pt = np.swapaxes(ans, -1, -2)
    gt_p_pt = np.swapaxes(g, -1, -2) @ ans @ pt
    pt_p_gt = pt @ ans @ np.swapaxes(g, -1, -2)
    full = (-(pt @ g @ pt) + gt_p_pt - s @ (ans @ gt_p_pt) + pt_p_gt - (pt_p_gt @ ans) @ s) * \
        pinv_cut_checked(s, rcond, rtol)
    return read_triangle((full + np.swapaxes(full, -1, -2)) / 2.0, a, True) if hermitian else \
        full


@deftangent(np.linalg.pinv)
def pinv_tangent(g, ans, a, rcond=None, hermitian=False, *, rtol=None):
    s = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2) if hermitian else a
    da = (spread_triangle(g, a, True) + np.swapaxes(spread_triangle(g, a, True), -1, -2)) / \
        2.0 if hermitian else g
    p_pt_dat = ans @ np.swapaxes(ans, -1, -2) @ np.swapaxes(da, -1, -2)
    dat_pt_p = np.swapaxes(da, -1, -2) @ np.swapaxes(ans, -1, -2) @ ans
    return (-(ans @ da @ ans) + p_pt_dat - (p_pt_dat @ s) @ ans + dat_pt_p -
            ans @ (s @ dat_pt_p)) * pinv_cut_checked(s, rcond, rtol)


# --- least squares: x = pinv(a) b where a has full rank ----------------------------------
# (x, residuals, rank, s): the residuals' gradient is the residual vectors' (x is their
# minimum); s has svdvals' gradient. Where a's rank is not full, x jumps under a change
# of a: NaN; where rcond drops a singular value above rounding, refused (as pinv's).


@defvjp(np.linalg.lstsq, shape="sequence")
def lstsq(g, ans, a, b, rcond=None):
    p = np.linalg.pinv(a)
    x2 = np.reshape(ans[0], (np.shape(a)[1], -1))
    b2 = np.reshape(b, (np.shape(a)[0], -1))
    r2 = b2 - a @ x2
    gx = np.reshape(as_gradient(ans[0], g[0]), np.shape(x2))
    pt_gx = np.swapaxes(p, -1, -2) @ gx
    gr = r2 * as_gradient(ans[1], g[1]) if np.size(ans[1]) else 0.0 * r2
    full = np.where(ans[2] < min(np.shape(a)), np.nan, 1.0) * \
        pinv_cut_checked(a, rcond, None, "np.linalg.lstsq")
    s_part = (np.linalg.svd(a, full_matrices=False)[0] *
              np.expand_dims(as_gradient(ans[3], g[3]), -2)) @ \
        np.linalg.svd(a, full_matrices=False)[2] if np.ndim(g[3]) else 0.0
    return (full * (-(pt_gx @ x2.T) + r2 @ (p @ pt_gx).T +
                    (p.T @ x2) @ (gx - a.T @ pt_gx).T - 2.0 * gr @ x2.T) + s_part,
            full * np.reshape(pt_gx + 2.0 * gr, np.shape(b)))


@deftangent(np.linalg.lstsq)
def lstsq_tangent(g, ans, a, b, rcond=None):
    # a: d x = -p da x + p p^T da^T r + (1 - p a) da^T p^T x; b: d x = p db
    p = np.linalg.pinv(a)
    x2 = np.reshape(ans[0], (np.shape(a)[1], -1))
    r2 = np.reshape(b, (np.shape(a)[0], -1)) - a @ x2
    full = np.where(ans[2] < min(np.shape(a)), np.nan, 1.0) * \
        pinv_cut_checked(a, rcond, None, "np.linalg.lstsq")
    dx = full * (-(p @ (g @ x2)) + p @ (p.T @ (g.T @ r2)) + g.T @ (p.T @ x2) -
                 p @ (a @ (g.T @ (p.T @ x2))))
    dr = -(g @ x2) - a @ dx
    parts = np.linalg.svd(a, full_matrices=False)
    return ([np.reshape(dx, np.shape(ans[0])),
             2.0 * np.sum(r2 * dr, axis=0) if np.size(ans[1]) else np.zeros_like(ans[1]),
             0, np.sum(parts[0] * (g @ parts[2].T), axis=-2)],
            [full * np.reshape(p @ np.reshape(g, np.shape(r2)), np.shape(ans[0])),
             2.0 * np.sum(r2 * (np.reshape(g, np.shape(r2)) - a @ (p @ np.reshape(
                 g, np.shape(r2)))), axis=0) if np.size(ans[1]) else np.zeros_like(ans[1]),
             0, np.zeros_like(ans[3])])


# --- complex matrices: the terms in da^H conjugate ------------------------------------------
# pinv is not holomorphic: d p = -p da p + p p^H da^H (1 - a p) + (1 - p a) da^H p^H p. A
# term m da^H n gives a the sensitivity conj(n g^T m) (autograd's convention, see
# rules/complex.py); the real rules' transposes gave a wrong gradient for a matrix that is
# not square (tests/test_adversarial_s30.py). hermitian=True: a's lower triangle, as eigh.


@defcomplex(np.linalg.pinv, shape="other")
def pinv_complex(g, ans, a, rcond=None, hermitian=False, *, rtol=None):
    s = np.tril(a) + np.conj(np.swapaxes(np.tril(a, -1), -1, -2)) if hermitian else a
    pt = np.swapaxes(ans, -1, -2)
    gt_p_ph = np.swapaxes(g, -1, -2) @ ans @ np.conj(pt)
    ph_p_gt = np.conj(pt) @ ans @ np.swapaxes(g, -1, -2)
    full = (-(pt @ g @ pt) + np.conj(gt_p_ph - s @ (ans @ gt_p_ph) + ph_p_gt -
                                     (ph_p_gt @ ans) @ s)) * pinv_cut_checked(s, rcond, rtol)
    return read_triangle((full + np.conj(np.swapaxes(full, -1, -2))) / 2.0, a, True) \
        if hermitian else full


@defcomplex(np.linalg.pinv, tangent=True)
def pinv_complex_tangent(g, ans, a, rcond=None, hermitian=False, *, rtol=None):
    s = np.tril(a) + np.conj(np.swapaxes(np.tril(a, -1), -1, -2)) if hermitian else a
    da = (spread_triangle(g, a, True) + np.conj(np.swapaxes(spread_triangle(g, a, True), -1,
                                                            -2))) / 2.0 if hermitian else g
    dah = np.conj(np.swapaxes(da, -1, -2))
    ph = np.conj(np.swapaxes(ans, -1, -2))
    p_ph_dah = ans @ ph @ dah
    dah_ph_p = dah @ ph @ ans
    return (-(ans @ da @ ans) + p_ph_dah - (p_ph_dah @ s) @ ans + dah_ph_p -
            ans @ (s @ dah_ph_p)) * pinv_cut_checked(s, rcond, rtol)


# lstsq: x = p b, so d x = -p da x + p p^H da^H r + (1 - p a) da^H p^H x + p db; the
# residuals sum(|r|^2) change by 2 Re(conj(r) (db - da x)); the singular values by
# Re(diag(u^H da v)).


@defcomplex(np.linalg.lstsq, shape="sequence")
def lstsq_complex(g, ans, a, b, rcond=None):
    p = np.linalg.pinv(a)
    ph = np.conj(p.T)
    x2 = np.reshape(ans[0], (np.shape(a)[1], -1))
    b2 = np.reshape(b, (np.shape(a)[0], -1))
    r2 = b2 - a @ x2
    gx = np.reshape(as_gradient(ans[0], g[0]), np.shape(x2))
    pt_gx = p.T @ gx
    gr = np.conj(r2) * np.real(as_gradient(ans[1], g[1])) if np.size(ans[1]) else 0.0 * r2
    full = np.where(ans[2] < min(np.shape(a)), np.nan, 1.0) * \
        pinv_cut_checked(a, rcond, None, "np.linalg.lstsq")
    s_part = np.conj((np.linalg.svd(a, full_matrices=False)[0] *
                      np.expand_dims(np.real(as_gradient(ans[3], g[3])), -2)) @
                     np.linalg.svd(a, full_matrices=False)[2]) if np.ndim(g[3]) else 0.0
    return (full * (-(pt_gx @ x2.T) + np.conj(r2 @ gx.T @ p @ ph) +
                    np.conj((ph @ x2) @ (gx.T - gx.T @ p @ a)) - 2.0 * gr @ x2.T) + s_part,
            full * np.reshape(pt_gx + 2.0 * gr, np.shape(b)))


@defcomplex(np.linalg.lstsq, tangent=True)
def lstsq_complex_tangent(g, ans, a, b, rcond=None):
    p = np.linalg.pinv(a)
    ph = np.conj(p.T)
    gh = np.conj(g.T)
    x2 = np.reshape(ans[0], (np.shape(a)[1], -1))
    r2 = np.reshape(b, (np.shape(a)[0], -1)) - a @ x2
    full = np.where(ans[2] < min(np.shape(a)), np.nan, 1.0) * \
        pinv_cut_checked(a, rcond, None, "np.linalg.lstsq")
    dx = full * (-(p @ (g @ x2)) + p @ (ph @ (gh @ r2)) + gh @ (ph @ x2) -
                 p @ (a @ (gh @ (ph @ x2))))
    dr = -(g @ x2) - a @ dx
    parts = np.linalg.svd(a, full_matrices=False)
    return ([np.reshape(dx, np.shape(ans[0])),
             2.0 * np.sum(np.real(np.conj(r2) * dr), axis=0) if np.size(ans[1]) else
             np.zeros_like(ans[1]),
             0, np.real(np.sum(np.conj(parts[0]) * (g @ np.conj(parts[2]).T), axis=-2))],
            [full * np.reshape(p @ np.reshape(g, np.shape(r2)), np.shape(ans[0])),
             2.0 * np.sum(np.real(np.conj(r2) * (np.reshape(g, np.shape(r2)) - a @ (
                 p @ np.reshape(g, np.shape(r2))))), axis=0) if np.size(ans[1]) else
             np.zeros_like(ans[1]),
             0, np.zeros_like(ans[3])])


nondifferentiable(np.linalg.matrix_rank, shape="other")
defresult(np.linalg.matrix_rank, kind="i")

# --- the QR decomposition ---------------------------------------------------------------
# a = [x | y] with x square (or all of a, where it has no more columns than rows):
# d r_x = (c - w) r_x, d q = q (w - c) + dx r_x^-1, with c = q^T dx r_x^-1 and w its
# strictly lower part less that part's transpose; r_y = q^T y.

deffacts(np.linalg.qr, fields=(("Q", "R"), (0, 0)))


@defvjp(np.linalg.qr, shape="sequence")
def qr(g, ans, a, mode="reduced"):
    k = min(np.shape(a)[-2:])
    gq = as_gradient(ans[0], g[0]) + a[..., k:] @ np.swapaxes(
        as_gradient(ans[1], g[1])[..., k:], -1, -2)
    m = as_gradient(ans[1], g[1])[..., :k] @ np.swapaxes(ans[1][..., :k], -1, -2) - \
        np.swapaxes(ans[0], -1, -2) @ gq
    n = np.triu(m) + np.swapaxes(np.triu(m, 1), -1, -2)
    return np.concatenate([np.swapaxes(np.linalg.solve(ans[1][..., :k], np.swapaxes(
        gq + ans[0] @ n, -1, -2)), -1, -2), ans[0] @ as_gradient(ans[1], g[1])[..., k:]],
        axis=-1)


@deftangent(np.linalg.qr)
def qr_tangent(g, ans, a, mode="reduced"):
    k = min(np.shape(a)[-2:])
    d = np.swapaxes(np.linalg.solve(np.swapaxes(ans[1][..., :k], -1, -2),
                                    np.swapaxes(g[..., :k], -1, -2)), -1, -2)
    c = np.swapaxes(ans[0], -1, -2) @ d
    w = np.tril(c, -1) - np.swapaxes(np.tril(c, -1), -1, -2)
    dq = ans[0] @ (w - c) + d
    return [dq, np.concatenate([(c - w) @ ans[1][..., :k],
                                np.swapaxes(dq, -1, -2) @ a[..., k:] +
                                np.swapaxes(ans[0], -1, -2) @ g[..., k:]], axis=-1)]


# of a complex matrix: Q^H Q = 1, and LAPACK makes R's diagonal real, so Q^H dQ is
# skew-Hermitian with an imaginary diagonal; the transposes of Q conjugate, as do the
# adjoint's, which is the tangent's transpose under autograd's convention (rules/complex.py)


@defcomplex(np.linalg.qr, shape="sequence")
def qr_complex(g, ans, a, mode="reduced"):
    k = min(np.shape(a)[-2:])
    gq = as_gradient(ans[0], g[0]) + np.conj(a[..., k:] @ np.swapaxes(
        as_gradient(ans[1], g[1])[..., k:], -1, -2))
    m = as_gradient(ans[1], g[1])[..., :k] @ np.swapaxes(ans[1][..., :k], -1, -2) - \
        np.swapaxes(ans[0], -1, -2) @ gq
    n = np.triu(m, 1) + np.conj(np.swapaxes(np.triu(m, 1), -1, -2)) + np.real(m) * np.eye(k)
    return np.concatenate([np.swapaxes(np.linalg.solve(ans[1][..., :k], np.swapaxes(
        gq + np.conj(ans[0]) @ n, -1, -2)), -1, -2),
        np.conj(ans[0]) @ as_gradient(ans[1], g[1])[..., k:]], axis=-1)


@defcomplex(np.linalg.qr, tangent=True)
def qr_complex_tangent(g, ans, a, mode="reduced"):
    k = min(np.shape(a)[-2:])
    d = np.swapaxes(np.linalg.solve(np.swapaxes(ans[1][..., :k], -1, -2),
                                    np.swapaxes(g[..., :k], -1, -2)), -1, -2)
    c = np.conj(np.swapaxes(ans[0], -1, -2)) @ d
    w = np.tril(c, -1) - np.conj(np.swapaxes(np.tril(c, -1), -1, -2)) + \
        1j * np.imag(c) * np.eye(k)
    dq = ans[0] @ (w - c) + d
    return [dq, np.concatenate([(c - w) @ ans[1][..., :k],
                                np.conj(np.swapaxes(dq, -1, -2)) @ a[..., k:] +
                                np.conj(np.swapaxes(ans[0], -1, -2)) @ g[..., k:]], axis=-1)]


refuse_values(np.linalg.qr, "mode", ("reduced",),
              "s2sad differentiates mode='reduced' (and mode='r', the same R); for a matrix "
              "with more rows than columns, mode='complete' adds columns to Q that no "
              "derivative determines: use mode='reduced'.")

# --- np.row_stack: np.vstack, which NumPy 2 warns it is deprecated for ------------------
# NumPy's functions with a rule here where NumPy has them, and the NumPy that removed each:
# docs/supported.md lists them on every NumPy, with that version
REMOVED_FROM_NUMPY = {"numpy.row_stack": "2.5.0"}
if hasattr(np, "row_stack"):  # (called as written: NumPy's own warning)
    defvjp(np.row_stack, shape="other")(vstack)
    deflinear(np.row_stack)
    defresult(np.row_stack, follows=[("tup", 0)])
    defdtype(np.row_stack, position=None)

# --- the helpers of s2sad.implementations: positions and numbers, no derivative ---------
nondifferentiable(delete_sources, insert_sources, partition_sources, gradient_axes, pad_pairs,
                  piecewise_conditions, shape="other")
# NumPy's errors where the definitions would compute a value: kept where nothing reads them
_CHECKS = (check_interp, check_convolve, check_rollaxis, check_select, check_gradient_spacings,
           check_ranks, check_multi_dot, check_cross3, check_accumulated)
nondifferentiable(*_CHECKS, shape="other")
deffacts(*_CHECKS, checks=True)


# like_dtype(v, a): v cast to a's dtype (np.insert's values); an integer a: no derivative
@defvjp(like_dtype, shape="other")
def like_dtype_rule(g, ans, v, a):
    return cast_like(g, v), None


@deftangent(like_dtype)
def like_dtype_tangent(g, ans, v, a):
    return cast_like(g, ans), None


defresult(like_dtype, follows=[("a", 1)])
