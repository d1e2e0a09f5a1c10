"""Derivative rules for ``scipy.linalg`` (loaded only where SciPy imports).

The adjoints are written as by hand, with functions that have rules themselves, so that
they differentiate again: a triangular solve's adjoint is a triangular solve with the
transpose, Cholesky's is Murray's formula (``cholesky_grad``), ``expm``'s the block
matrix ``expm([[A^T, G], [0, A^T]])`` (its corner is the Frechet derivative), ``sqrtm``'s
a Sylvester equation. Matrices are stacked in the last two axes where SciPy accepts
stacks. Functions that read one triangle of a symmetric matrix (``cholesky``,
``cho_factor``, ``eigh``, ``solve`` with ``assume_a="pos"``) get symmetric gradients,
exact along symmetric changes, where the matrix is symmetric, and gradients in the
triangle read where it is not (``read_triangle``), as ``np.linalg``'s rules do.

>>> import numpy as np
>>> from s2sad import registry
>>> a = np.array([[2.0, 0.0], [1.0, 4.0]])
>>> x = linalg.solve_triangular(a, np.ones(2), lower=True)
>>> registry.lookup(linalg.solve_triangular).adjoint(np.ones(2), x, a, np.ones(2),
...                                                   lower=True)[1]  # a^-T 1
array([0.375, 0.25 ])
"""

import numpy as np
from scipy import linalg

from ..registry import (defcomplex, deffacts, deflinear, defresult, deftangent, defvjp,
                        nondifferentiable, refuse_values, refuse_varying)
from ..runtime import (as_columns, as_gradient, band_full, band_of, band_transposed,
                       block_diag_part, block_diag_place, cholesky_grad, cofactors, eigh_refused,
                       factor_part,
                       from_columns, gap_quotient, phase_checked, pivots_matrix, quotient,
                       read_triangle, real_checked, solve_grad, spread_triangle, square_factors,
                       toeplitz_grad, triangle,
                       unbroadcast)
from ..runtime.higher import cholesky_tangent, solve_tangent


# --- triangular solves -------------------------------------------------------------------


@defvjp(linalg.solve_triangular, shape="other")
def solve_triangular(g, ans, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    # x = op(T)^-1 b: b gets op(T)^-T g, a triangular solve with the other op; op(T) gets
    # -gb x^T, and T the part of it in the triangle read
    gb = from_columns(linalg.solve_triangular(a, as_columns(g, b), 0 if trans in (
        1, 2, "T", "C") else 1, lower, unit_diagonal), b)
    gop = -as_columns(gb, b) @ np.swapaxes(as_columns(ans, b), -1, -2)
    return (unbroadcast(triangle(np.swapaxes(gop, -1, -2) if trans in (1, 2, "T", "C") else gop,
                                 lower, not unit_diagonal), a),
            unbroadcast(gb, b), None, None, None, None, None)


@deftangent(linalg.solve_triangular)
def solve_triangular_tangent(g, ans, a, b, trans=0, lower=False, unit_diagonal=False,
                             overwrite_b=False, check_finite=True):
    return (-from_columns(linalg.solve_triangular(
                a, (np.swapaxes(triangle(g, lower, not unit_diagonal), -1, -2)
                    if trans in (1, 2, "T", "C") else triangle(g, lower, not unit_diagonal)) @
                as_columns(ans, b), trans, lower, unit_diagonal), b),
            linalg.solve_triangular(a, g, trans, lower, unit_diagonal), None, None, None, None,
            None)


# --- Cholesky ------------------------------------------------------------------------------
# cholesky(a) is upper triangular unless lower=True (U = L^T); cho_factor's c holds the
# factor in one triangle and arbitrary data in the other (refused: factor_part)


@defvjp(linalg.cholesky, shape="other")
def cholesky(g, ans, a, lower=False, overwrite_a=False, check_finite=True):
    # Murray's formula (cholesky_grad, as np.linalg.cholesky's), for the lower factor L
    # (U = L^T: its sensitivity transposed)
    return (read_triangle(cholesky_grad(g, ans) if lower else
                          cholesky_grad(np.swapaxes(g, -1, -2), np.swapaxes(ans, -1, -2)),
                          a, lower), None, None, None)


@deftangent(linalg.cholesky)
def cholesky_tangent_rule(g, ans, a, lower=False, overwrite_a=False, check_finite=True):
    # dL = L Phi(L^-1 sym(da) L^-T), two triangular solves (dU = dL^T)
    m = np.swapaxes(linalg.solve_triangular(
        ans if lower else np.swapaxes(ans, -1, -2), np.swapaxes(linalg.solve_triangular(
            ans if lower else np.swapaxes(ans, -1, -2),
            (spread_triangle(g, a, lower) + np.swapaxes(spread_triangle(g, a, lower), -1, -2)) /
            2.0, 0, True), -1, -2), 0, True), -1, -2)
    return ((ans @ (np.tril(m) / (1.0 + np.eye(np.shape(ans)[-1]))) if lower else
             (np.triu(m) / (1.0 + np.eye(np.shape(ans)[-1]))) @ ans), None, None, None)


deffacts(linalg.cho_factor, fields=(("c", "lower"), (0, -2)))


@defvjp(linalg.cho_factor, shape="sequence")
def cho_factor(g, ans, a, lower=False, overwrite_a=False, check_finite=True):
    return (read_triangle(cholesky_grad(factor_part(as_gradient(ans[0], g[0]), ans[0], lower),
                                        np.tril(ans[0])) if lower else
                          cholesky_grad(np.swapaxes(factor_part(as_gradient(ans[0], g[0]),
                                                                ans[0], lower), -1, -2),
                                        np.swapaxes(np.triu(ans[0]), -1, -2)), a, lower),
            None, None, None)


@deftangent(linalg.cho_factor)
def cho_factor_tangent(g, ans, a, lower=False, overwrite_a=False, check_finite=True):
    # (NaN in the triangle of arbitrary data: it has no derivative)
    return ([cholesky_tangent(spread_triangle(g, a, lower), np.tril(ans[0])) +
             np.triu(np.full_like(ans[0], np.nan), 1) if lower else
             np.swapaxes(cholesky_tangent(spread_triangle(g, a, lower),
                                          np.swapaxes(np.triu(ans[0]), -1, -2)), -1, -2) +
             np.tril(np.full_like(ans[0], np.nan), -1), False], None, None, None)


@defvjp(linalg.cho_solve, shape="other")
def cho_solve(g, ans, c_and_lower, b, overwrite_b=False, check_finite=True):
    # x = (L L^T)^-1 b: b gets gb = cho_solve(g); a = L L^T gets -gb x^T, so L gets
    # -(gb x^T + x gb^T) L, in the factor's triangle of c
    gb = from_columns(linalg.cho_solve(c_and_lower, as_columns(g, b)), b)
    m = as_columns(gb, b) @ np.swapaxes(as_columns(ans, b), -1, -2)
    gl = -(m + np.swapaxes(m, -1, -2)) @ (np.tril(c_and_lower[0]) if c_and_lower[1] else
                                           np.swapaxes(np.triu(c_and_lower[0]), -1, -2))
    return ((unbroadcast(np.tril(gl) if c_and_lower[1] else np.triu(np.swapaxes(gl, -1, -2)),
                         c_and_lower[0]), None),
            unbroadcast(gb, b), None, None)


@deftangent(linalg.cho_solve)
def cho_solve_tangent(g, ans, c_and_lower, b, overwrite_b=False, check_finite=True):
    # along the factor's change dL: -(dL L^T + L dL^T) x, solved
    dl = np.tril(g[0]) if c_and_lower[1] else np.swapaxes(np.triu(g[0]), -1, -2)
    fl = np.tril(c_and_lower[0]) if c_and_lower[1] else \
        np.swapaxes(np.triu(c_and_lower[0]), -1, -2)
    xm = as_columns(ans, b)
    return (-from_columns(linalg.cho_solve(c_and_lower, dl @ (np.swapaxes(fl, -1, -2) @ xm) +
                                           fl @ (np.swapaxes(dl, -1, -2) @ xm)), b),
            linalg.cho_solve(c_and_lower, g), None, None)


# --- general solves, inverse, determinant ----------------------------------------------------

_SYMMETRIC = ("sym", "symmetric", "her", "hermitian", "pos", "positive definite")


@defvjp(linalg.solve, shape="other")
def solve(g, ans, a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a=None, transposed=False):
    # as np.linalg.solve's, with the matrix solved with: a^T when transposed; for a symmetric
    # one, the matrix its triangle stands for, and the symmetric part of the gradient
    m = triangle(a, lower) + np.swapaxes(triangle(a, lower, False), -1, -2) if assume_a in (
        "sym", "symmetric", "her", "hermitian", "pos", "positive definite") else \
        np.swapaxes(a, -1, -2) if transposed else a
    ga = solve_grad(g, ans, m, b, 0)
    return (read_triangle((ga + np.swapaxes(ga, -1, -2)) / 2.0, a, lower) if assume_a in (
                "sym", "symmetric", "her", "hermitian", "pos", "positive definite") else
            np.swapaxes(ga, -1, -2) if transposed else ga,
            solve_grad(g, ans, m, b, 1), None, None, None, None, None, None)


@deftangent(linalg.solve)
def solve_tangent_rule(g, ans, a, b, lower=False, overwrite_a=False, overwrite_b=False,
                       check_finite=True, assume_a=None, transposed=False):
    m = triangle(a, lower) + np.swapaxes(triangle(a, lower, False), -1, -2) if assume_a in (
        "sym", "symmetric", "her", "hermitian", "pos", "positive definite") else \
        np.swapaxes(a, -1, -2) if transposed else a
    d = spread_triangle(g, a, lower)
    return (solve_tangent((d + np.swapaxes(d, -1, -2)) / 2.0 if assume_a in (
                "sym", "symmetric", "her", "hermitian", "pos", "positive definite") else
                np.swapaxes(g, -1, -2) if transposed else g, ans, m, b, 0),
            solve_tangent(g, ans, m, b, 1), None, None, None, None, None, None)


refuse_values(linalg.solve, "assume_a", (None, "gen", "general") + _SYMMETRIC,
              "s2sad differentiates scipy.linalg.solve for general, symmetric and positive "
              "definite matrices; for a triangular one call scipy.linalg.solve_triangular, "
              "for a banded one scipy.linalg.solve_banded, else leave assume_a out.")


@defvjp(linalg.inv, shape="other")
def inv(g, ans, a, overwrite_a=False, check_finite=True, assume_a=None, lower=False):
    return -np.swapaxes(ans, -1, -2) @ g @ np.swapaxes(ans, -1, -2), None, None, None, None


@deftangent(linalg.inv)
def inv_tangent(g, ans, a, overwrite_a=False, check_finite=True, assume_a=None, lower=False):
    return -(ans @ g @ ans), None, None, None, None


refuse_values(linalg.inv, "assume_a", (None, "gen", "general"),
              "s2sad differentiates scipy.linalg.inv of a general matrix: leave assume_a out "
              "(the inverse is the same), or solve with scipy.linalg.cho_solve.")


@defvjp(linalg.det, shape="other")
def det(g, ans, a, overwrite_a=False, check_finite=True):
    # the cofactors (det(a) inv(a)^T where a is invertible; singular matrices too)
    return np.expand_dims(g, (-2, -1)) * cofactors(a), None, None


@deftangent(linalg.det)
def det_tangent(g, ans, a, overwrite_a=False, check_finite=True):
    return np.sum(cofactors(a) * g, axis=(-2, -1)), None, None


# --- LU ------------------------------------------------------------------------------------
# a = p l u (square a, l with a unit diagonal): with F = l^-1 p^T da u^-1, dl = l tril(F, -1)
# and du = triu(F) u; the adjoint is p l^-T (tril(l^T gl, -1) + triu(gu u^T)) u^-T


@defvjp(linalg.lu, shape="sequence")
def lu(g, ans, a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    parts = linalg.lu(a)
    gl = np.swapaxes(parts[0], -1, -2) @ as_gradient(ans[0], g[0]) if permute_l else \
        as_gradient(ans[1], g[1])
    m = np.tril(np.swapaxes(parts[1], -1, -2) @ gl, -1) + \
        np.triu(as_gradient(ans[-1], g[-1]) @ np.swapaxes(parts[2], -1, -2))
    return (square_factors(parts[0], a) @ np.swapaxes(linalg.solve_triangular(
                parts[2], np.swapaxes(linalg.solve_triangular(parts[1], m, 1, True, True), -1, -2),
                0, False), -1, -2),
            None, None, None, None)


@deftangent(linalg.lu)
def lu_tangent(g, ans, a, permute_l=False, overwrite_a=False, check_finite=True,
               p_indices=False):
    parts = linalg.lu(a)
    f = np.swapaxes(linalg.solve_triangular(parts[2], np.swapaxes(linalg.solve_triangular(
        parts[1], np.swapaxes(square_factors(parts[0], a), -1, -2) @ g, 0, True, True), -1, -2),
        1, False), -1, -2)
    return ([parts[0] @ parts[1] @ np.tril(f, -1), np.triu(f) @ parts[2]] if permute_l else
            [np.zeros_like(parts[0]), parts[1] @ np.tril(f, -1), np.triu(f) @ parts[2]],
            None, None, None, None)


refuse_values(linalg.lu, "p_indices", (False,),
              "s2sad differentiates scipy.linalg.lu with the permutation as a matrix: leave "
              "p_indices out (p, l, u = scipy.linalg.lu(a); a = p @ l @ u).")
deffacts(linalg.lu_factor, fields=(("lu", "piv"), (0, -1)))


@defvjp(linalg.lu_factor, shape="sequence")
def lu_factor(g, ans, a, overwrite_a=False, check_finite=True):
    # lu holds l below the diagonal (its unit diagonal left out) and u on and above it
    m = np.tril(np.swapaxes(np.tril(ans[0], -1) + np.eye(np.shape(a)[-1]), -1, -2) @
                as_gradient(ans[0], g[0]), -1) + \
        np.triu(np.triu(as_gradient(ans[0], g[0])) @ np.swapaxes(np.triu(ans[0]), -1, -2))
    return (square_factors(pivots_matrix(ans[1], ans[0]), a) @ np.swapaxes(
                linalg.solve_triangular(np.triu(ans[0]), np.swapaxes(
                    linalg.solve_triangular(ans[0], m, 1, True, True), -1, -2), 0, False),
                -1, -2),
            None, None)


@deftangent(linalg.lu_factor)
def lu_factor_tangent(g, ans, a, overwrite_a=False, check_finite=True):
    f = np.swapaxes(linalg.solve_triangular(np.triu(ans[0]), np.swapaxes(
        linalg.solve_triangular(ans[0], np.swapaxes(square_factors(
            pivots_matrix(ans[1], ans[0]), a), -1, -2) @ g, 0, True, True), -1, -2), 1, False),
        -1, -2)
    return ([(np.tril(ans[0], -1) + np.eye(np.shape(a)[-1])) @ np.tril(f, -1) +
             np.triu(f) @ np.triu(ans[0]), np.zeros(np.shape(ans[1]))], None, None)


@defvjp(linalg.lu_solve, shape="other")
def lu_solve(g, ans, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    # x = op(a)^-1 b, a = p l u: b gets op(a)^-T g; a gets -gb x^T (op's), and lu the
    # parts of p^T ga u^T below the diagonal and of l^T p^T ga on and above it
    gb = from_columns(linalg.lu_solve(lu_and_piv, as_columns(g, b),
                                      0 if trans in (1, 2, "T", "C") else 1), b)
    gop = -as_columns(gb, b) @ np.swapaxes(as_columns(ans, b), -1, -2)
    pga = np.swapaxes(pivots_matrix(lu_and_piv[1], lu_and_piv[0]), -1, -2) @ \
        (np.swapaxes(gop, -1, -2) if trans in (1, 2, "T", "C") else gop)
    return ((np.tril(pga @ np.swapaxes(np.triu(lu_and_piv[0]), -1, -2), -1) +
             np.triu(np.swapaxes(np.tril(lu_and_piv[0], -1) +
                                 np.eye(np.shape(lu_and_piv[0])[-1]), -1, -2) @ pga), None),
            unbroadcast(gb, b), None, None, None)


@deftangent(linalg.lu_solve)
def lu_solve_tangent(g, ans, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    da = pivots_matrix(lu_and_piv[1], lu_and_piv[0]) @ (
        np.tril(g[0], -1) @ np.triu(lu_and_piv[0]) +
        (np.tril(lu_and_piv[0], -1) + np.eye(np.shape(lu_and_piv[0])[-1])) @ np.triu(g[0]))
    return (-from_columns(linalg.lu_solve(lu_and_piv, (np.swapaxes(da, -1, -2) if trans in
                                                        (1, 2, "T", "C") else da) @
                                          as_columns(ans, b), trans), b),
            linalg.lu_solve(lu_and_piv, g, trans), None, None, None)


nondifferentiable(pivots_matrix)

# --- eigh: eigenvalues, and eigenvectors (repeated eigenvalues: infinite, never a finite
# wrong number; see np.linalg.eigh's rule) --------------------------------------------------


deffacts(linalg.eigh, fields=(("eigenvalues", "eigenvectors"), (-1, 0)),
         alone=("eigvals_only", True))


@defvjp(linalg.eigh, shape="sequence")
def eigh(g, ans, a, b=None, lower=True, eigvals_only=False, overwrite_a=False,
         overwrite_b=False, type=1, check_finite=True, subset_by_index=None,
         subset_by_value=None, driver=None):
    vectors = (linalg.eigh(a, lower=lower)[1] if eigvals_only else ans[1]) if b is None and \
        subset_by_index is None and subset_by_value is None else \
        eigh_refused(b, subset_by_index, subset_by_value)
    full = (vectors * np.expand_dims(as_gradient(ans, g) if eigvals_only else
                                     as_gradient(ans[0], g[0]), -2) +
            (0.0 if eigvals_only else
             vectors @ gap_quotient(np.swapaxes(vectors, -1, -2) @ as_gradient(ans[1], g[1]),
                                    ans[0]))) @ np.swapaxes(vectors, -1, -2)
    return (read_triangle((full + np.swapaxes(full, -1, -2)) / 2.0, a, lower), None, None, None,
            None, None, None, None, None, None, None)


@deftangent(linalg.eigh)
def eigh_tangent(g, ans, a, b=None, lower=True, eigvals_only=False, overwrite_a=False,
                 overwrite_b=False, type=1, check_finite=True, subset_by_index=None,
                 subset_by_value=None, driver=None):
    vectors = (linalg.eigh(a, lower=lower)[1] if eigvals_only else ans[1]) if b is None and \
        subset_by_index is None and subset_by_value is None else \
        eigh_refused(b, subset_by_index, subset_by_value)
    d = spread_triangle(g, a, lower)
    m = np.swapaxes(vectors, -1, -2) @ ((d + np.swapaxes(d, -1, -2)) / 2.0) @ vectors
    return (np.diagonal(m, 0, -2, -1) if eigvals_only else
            [np.diagonal(m, 0, -2, -1), vectors @ gap_quotient(m, ans[0])],
            None, None, None, None, None, None, None, None, None, None)


refuse_values(linalg.eigh, "b", (None,),
              "s2sad differentiates the standard symmetric eigenproblem: for a x = w b x, "
              "factor b = L L^T (scipy.linalg.cholesky(b, lower=True)) and take the "
              "eigenvalues of L^-1 a L^-T.")
for _name in ("subset_by_index", "subset_by_value"):
    refuse_values(linalg.eigh, _name, (None,),
                  "s2sad differentiates eigh with all the eigenvalues: compute them all and "
                  "select those you need from the result.")

# --- matrix functions: Frechet derivatives ----------------------------------------------------


@defvjp(linalg.expm, shape="other")
def expm(g, ans, A):
    # the adjoint is the Frechet derivative at A^T along g: the upper right corner of
    # expm([[A^T, g], [0, A^T]])
    n = np.shape(A)[-1]
    at = np.swapaxes(A, -1, -2)
    return linalg.expm(np.concatenate([np.concatenate([at, g], axis=-1),
                                       np.concatenate([np.zeros_like(at), at], axis=-1)],
                                      axis=-2))[..., :n, n:]


@deftangent(linalg.expm)
def expm_tangent(g, ans, A):
    n = np.shape(A)[-1]
    return linalg.expm(np.concatenate([np.concatenate([A, g], axis=-1),
                                       np.concatenate([np.zeros_like(A), A], axis=-1)],
                                      axis=-2))[..., :n, n:]


@defvjp(linalg.logm, shape="other")
def logm(g, ans, A, disp=True):
    # as expm's: the corner of logm([[A^T, g], [0, A^T]]) (A with no eigenvalue on the
    # closed negative real axis, where logm is defined and real)
    n = np.shape(A)[-1]
    at = np.swapaxes(A, -1, -2)
    return linalg.logm(np.concatenate([np.concatenate([at, g], axis=-1),
                                       np.concatenate([np.zeros_like(at), at], axis=-1)],
                                      axis=-2))[..., :n, n:], None


@deftangent(linalg.logm)
def logm_tangent(g, ans, A, disp=True):
    n = np.shape(A)[-1]
    return linalg.logm(np.concatenate([np.concatenate([A, g], axis=-1),
                                       np.concatenate([np.zeros_like(A), A], axis=-1)],
                                      axis=-2))[..., :n, n:], None


@defvjp(linalg.sqrtm, shape="other")
def sqrtm(g, ans, A, disp=True, blocksize=64):
    # X X = A: X dX + dX X = dA, a Sylvester equation; its adjoint, with X^T
    return (linalg.solve_sylvester(np.swapaxes(ans, -1, -2), np.swapaxes(ans, -1, -2), g),
            None, None)


@deftangent(linalg.sqrtm)
def sqrtm_tangent(g, ans, A, disp=True, blocksize=64):
    return linalg.solve_sylvester(ans, ans, g), None, None


for _func in (linalg.logm, linalg.sqrtm):
    refuse_values(_func, "disp", (True,),
                  "s2sad differentiates the matrix function's value alone: leave disp out "
                  "and check the result yourself.")


@defvjp(linalg.solve_sylvester, shape="other")
def solve_sylvester(g, ans, a, b, q):
    # a x + x b = q: q gets y, the solution with a^T and b^T; a gets -y x^T, b -x^T y
    return (-linalg.solve_sylvester(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), g) @
            np.swapaxes(ans, -1, -2),
            -np.swapaxes(ans, -1, -2) @
            linalg.solve_sylvester(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), g),
            linalg.solve_sylvester(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), g))


@deftangent(linalg.solve_sylvester)
def solve_sylvester_tangent(g, ans, a, b, q):
    return (-linalg.solve_sylvester(a, b, g @ ans), -linalg.solve_sylvester(a, b, ans @ g),
            linalg.solve_sylvester(a, b, g))


@defvjp(linalg.solve_continuous_lyapunov, shape="other")
def solve_continuous_lyapunov(g, ans, a, q):
    # a x + x a^T = q: q gets y = lyap(a^T, g); a gets -(y x^T + y^T x)
    return (-(linalg.solve_continuous_lyapunov(np.swapaxes(a, -1, -2), g) @
              np.swapaxes(ans, -1, -2) +
              np.swapaxes(linalg.solve_continuous_lyapunov(np.swapaxes(a, -1, -2), g), -1, -2)
              @ ans),
            linalg.solve_continuous_lyapunov(np.swapaxes(a, -1, -2), g))


@deftangent(linalg.solve_continuous_lyapunov)
def solve_continuous_lyapunov_tangent(g, ans, a, q):
    return (-linalg.solve_continuous_lyapunov(a, g @ ans + ans @ np.swapaxes(g, -1, -2)),
            linalg.solve_continuous_lyapunov(a, g))


# --- banded solves ----------------------------------------------------------------------------


@defvjp(linalg.solve_banded, shape="other")
def solve_banded(g, ans, l_and_u, ab, b, overwrite_ab=False, overwrite_b=False,
                 check_finite=True):
    # as solve's, with the transpose's band, and the gradient's band in ab's storage
    gb = linalg.solve_banded((l_and_u[1], l_and_u[0]), band_transposed(ab, l_and_u), g)
    return (None,
            band_of(-as_columns(gb, b) @ np.swapaxes(as_columns(ans, b), -1, -2), l_and_u),
            gb, None, None, None)


@deftangent(linalg.solve_banded)
def solve_banded_tangent(g, ans, l_and_u, ab, b, overwrite_ab=False, overwrite_b=False,
                         check_finite=True):
    return (None,
            -from_columns(linalg.solve_banded(l_and_u, ab, band_full(g, l_and_u) @
                                              as_columns(ans, b)), b),
            linalg.solve_banded(l_and_u, ab, g), None, None, None)



# --- building matrices: linear in their arguments ----------------------------------------------


@defvjp(linalg.block_diag, shape="other")
def block_diag(g, ans, a=None, b=None, c=None, d=None, e=None, f=None):
    # (block_diag(*arrs): the rule names up to six blocks)
    return (block_diag_part(g, (a, b, c, d, e, f), 0), block_diag_part(g, (a, b, c, d, e, f), 1),
            block_diag_part(g, (a, b, c, d, e, f), 2), block_diag_part(g, (a, b, c, d, e, f), 3),
            block_diag_part(g, (a, b, c, d, e, f), 4), block_diag_part(g, (a, b, c, d, e, f), 5))


@deftangent(linalg.block_diag)
def block_diag_tangent(g, ans, a=None, b=None, c=None, d=None, e=None, f=None):
    return (block_diag_place(g, (a, b, c, d, e, f), 0), block_diag_place(g, (a, b, c, d, e, f), 1),
            block_diag_place(g, (a, b, c, d, e, f), 2), block_diag_place(g, (a, b, c, d, e, f), 3),
            block_diag_place(g, (a, b, c, d, e, f), 4), block_diag_place(g, (a, b, c, d, e, f), 5))


@defvjp(linalg.toeplitz, shape="other")
def toeplitz(g, ans, c, r=None):
    return toeplitz_grad(g, c, r, 0), None if r is None else toeplitz_grad(g, c, r, 1)


@deftangent(linalg.toeplitz)
def toeplitz_tangent(g, ans, c, r=None):
    # (r's first item is not read: c[0] is the diagonal)
    return (linalg.toeplitz(g) if r is None else linalg.toeplitz(g, np.zeros(np.shape(r))),
            None if r is None else linalg.toeplitz(np.zeros(np.shape(c)), g))


# --- the helpers' rules: each is linear in its first argument -----------------------------------


@defvjp(as_columns, shape="other")
def as_columns_rule(g, ans, x, b):
    return from_columns(g, b), None


@defvjp(from_columns, shape="other")
def from_columns_rule(g, ans, x, b):
    return as_columns(g, b), None


@defvjp(triangle, shape="other")
def triangle_rule(g, ans, m, lower, diagonal=True):
    return triangle(g, lower, diagonal), None, None


@defvjp(factor_part, shape="other")
def factor_part_rule(g, ans, h, c, lower):
    return triangle(g, lower), None, None


@defvjp(block_diag_part, shape="other")
def block_diag_part_rule(g, ans, h, arrs, i):
    return block_diag_place(g, arrs, i), None, None


@defvjp(block_diag_place, shape="other")
def block_diag_place_rule(g, ans, h, arrs, i):
    return block_diag_part(g, arrs, i), None, None


@defvjp(toeplitz_grad, shape="other")
def toeplitz_grad_rule(g, ans, h, c, r, argnum):
    return (linalg.toeplitz(np.zeros(np.shape(c)), g) if argnum == 1 else
            linalg.toeplitz(g) if r is None else linalg.toeplitz(g, np.zeros(np.shape(r))),
            None, None, None)


@defvjp(band_of, shape="other")
def band_of_rule(g, ans, m, lu):
    return band_full(g, lu), None


@defvjp(band_full, shape="other")
def band_full_rule(g, ans, ab, lu):
    return band_of(g, lu), None


@defvjp(band_transposed, shape="other")
def band_transposed_rule(g, ans, ab, lu):
    return band_transposed(g, (lu[1], lu[0])), None


deflinear(as_columns, from_columns, triangle, factor_part, block_diag_part, block_diag_place,
          toeplitz_grad, band_of, band_full, band_transposed)
nondifferentiable(square_factors, eigh_refused)

for _func in (linalg.solve_triangular, linalg.cho_solve, linalg.lu_solve):
    refuse_values(_func, "overwrite_b", (False,),
                  "s2sad keeps the right-hand side b it differentiates: leave overwrite_b out.")
for _func in (linalg.cholesky, linalg.cho_factor, linalg.lu, linalg.lu_factor, linalg.solve,
              linalg.inv, linalg.det, linalg.eigh):
    refuse_values(_func, "overwrite_a", (False,),
                  "s2sad keeps the matrix a it differentiates: leave overwrite_a out.")
refuse_values(linalg.solve, "overwrite_b", (False,),
              "s2sad keeps the right-hand side b it differentiates: leave overwrite_b out.")
for _name in ("overwrite_ab", "overwrite_b"):
    refuse_values(linalg.solve_banded, _name, (False,),
                  "s2sad keeps the arrays it differentiates: leave overwrite_ab and "
                  "overwrite_b out.")
defresult(linalg.solve_triangular, linalg.cholesky, linalg.solve, linalg.inv, linalg.det,
          linalg.expm, linalg.logm, linalg.sqrtm, linalg.solve_sylvester,
          linalg.solve_continuous_lyapunov, linalg.solve_banded, linalg.cho_solve,
          linalg.lu_solve, kind="f")
defresult(linalg.block_diag, linalg.toeplitz, follows="*")


# --- complex values (autograd's convention, see rules/complex.py) ------------------------------
# The holomorphic functions above (solve, inv, det, lu, expm, logm, sqrtm, solve_sylvester,
# solve_banded...) keep their rules. Those that read a Hermitian matrix, or conjugate
# (trans="C"), have these: written as np.linalg's complex cholesky and eigh rules are
# (rules/complex_linalg.py), their gradients Hermitian, exact along Hermitian changes.
# The rest is refused for complex values where the line runs (real_checked).

_CONJUGATED = (2, "C", "c")


@defcomplex(linalg.solve_triangular, shape="other")
def solve_triangular_complex(g, ans, a, b, trans=0, lower=False, unit_diagonal=False,
                             overwrite_b=False, check_finite=True):
    # trans="C": x = T^-H b, antiholomorphic in T: b gets conj(T^-1 conj(g)), and T the
    # conjugate of op(T)'s sensitivity -gb x^T, transposed
    gb = from_columns(np.conj(linalg.solve_triangular(a, np.conj(as_columns(g, b)), 0, lower,
                                                      unit_diagonal)) if trans in _CONJUGATED
                      else linalg.solve_triangular(a, as_columns(g, b), 0 if trans in (
                          1, "T", "t") else 1, lower, unit_diagonal), b)
    gop = -as_columns(gb, b) @ np.swapaxes(as_columns(ans, b), -1, -2)
    return (unbroadcast(triangle(np.conj(np.swapaxes(gop, -1, -2)) if trans in _CONJUGATED
                                 else np.swapaxes(gop, -1, -2) if trans in (1, "T", "t")
                                 else gop, lower, not unit_diagonal), a),
            unbroadcast(gb, b), None, None, None, None, None)


@defcomplex(linalg.solve_triangular, tangent=True)
def solve_triangular_complex_tangent(g, ans, a, b, trans=0, lower=False, unit_diagonal=False,
                                     overwrite_b=False, check_finite=True):
    return (-from_columns(linalg.solve_triangular(
                a, (np.conj(np.swapaxes(triangle(g, lower, not unit_diagonal), -1, -2))
                    if trans in _CONJUGATED else
                    np.swapaxes(triangle(g, lower, not unit_diagonal), -1, -2)
                    if trans in (1, "T", "t") else triangle(g, lower, not unit_diagonal)) @
                as_columns(ans, b), trans, lower, unit_diagonal), b),
            linalg.solve_triangular(a, g, trans, lower, unit_diagonal), None, None, None, None,
            None)


@defcomplex(linalg.cholesky, shape="other")
def cholesky_complex(g, ans, a, lower=False, overwrite_a=False, check_finite=True):
    # np.linalg.cholesky's (rules/complex_linalg.py), the factor upper unless lower=True
    lh = np.conj(np.swapaxes(ans, -1, -2)) if lower else ans
    m = lh @ np.tril(np.conj(g) if lower else np.swapaxes(g, -1, -2))
    y = np.linalg.solve(lh, np.conj(np.swapaxes(np.tril(m) / (1.0 + np.eye(np.shape(m)[-1])),
                                                -1, -2)))
    full = np.linalg.solve(lh, np.conj(np.swapaxes(y, -1, -2)))
    return read_triangle(np.conj(full + np.conj(np.swapaxes(full, -1, -2))) / 2.0, a, lower), \
        None, None, None


@defcomplex(linalg.cholesky, tangent=True)
def cholesky_complex_tangent(g, ans, a, lower=False, overwrite_a=False, check_finite=True):
    low = ans if lower else np.conj(np.swapaxes(ans, -1, -2))
    d = spread_triangle(g, a, lower)
    y = np.linalg.solve(low, (d + np.conj(np.swapaxes(d, -1, -2))) / 2.0)
    x = np.linalg.solve(low, np.conj(np.swapaxes(y, -1, -2)))
    dl = low @ (np.tril(x) / (1.0 + np.eye(np.shape(x)[-1])))
    return (dl if lower else np.conj(np.swapaxes(dl, -1, -2))), None, None, None


@defcomplex(linalg.cho_factor, shape="sequence")
def cho_factor_complex(g, ans, a, lower=False, overwrite_a=False, check_finite=True):
    # cholesky's, with the factor in its triangle of c
    lh = np.conj(np.swapaxes(np.tril(ans[0]), -1, -2)) if lower else np.triu(ans[0])
    m = lh @ np.tril(np.conj(factor_part(as_gradient(ans[0], g[0]), ans[0], lower)) if lower
                     else np.swapaxes(factor_part(as_gradient(ans[0], g[0]), ans[0], lower),
                                      -1, -2))
    y = np.linalg.solve(lh, np.conj(np.swapaxes(np.tril(m) / (1.0 + np.eye(np.shape(m)[-1])),
                                                -1, -2)))
    full = np.linalg.solve(lh, np.conj(np.swapaxes(y, -1, -2)))
    return read_triangle(np.conj(full + np.conj(np.swapaxes(full, -1, -2))) / 2.0, a, lower), \
        None, None, None


@defcomplex(linalg.cho_factor, tangent=True)
def cho_factor_complex_tangent(g, ans, a, lower=False, overwrite_a=False, check_finite=True):
    low = np.tril(ans[0]) if lower else np.conj(np.swapaxes(np.triu(ans[0]), -1, -2))
    d = spread_triangle(g, a, lower)
    y = np.linalg.solve(low, (d + np.conj(np.swapaxes(d, -1, -2))) / 2.0)
    x = np.linalg.solve(low, np.conj(np.swapaxes(y, -1, -2)))
    dl = low @ (np.tril(x) / (1.0 + np.eye(np.shape(x)[-1])))
    # (NaN in the triangle of arbitrary data: it has no derivative)
    return ([dl + np.triu(np.full_like(ans[0], np.nan), 1) if lower else
             np.conj(np.swapaxes(dl, -1, -2)) + np.tril(np.full_like(ans[0], np.nan), -1),
             False], None, None, None)


@defcomplex(linalg.cho_solve, shape="other")
def cho_solve_complex(g, ans, c_and_lower, b, overwrite_b=False, check_finite=True):
    # x = (L L^H)^-1 b: b gets gb = conj(cho_solve(conj(g))); L L^H gets -gb x^T, so L
    # gets -(m + m^H) conj(L), in the factor's triangle of c (U = L^H: its conjugate)
    gb = from_columns(np.conj(linalg.cho_solve(c_and_lower, np.conj(as_columns(g, b)))), b)
    m = as_columns(gb, b) @ np.swapaxes(as_columns(ans, b), -1, -2)
    gl = -(m + np.conj(np.swapaxes(m, -1, -2))) @ np.conj(
        np.tril(c_and_lower[0]) if c_and_lower[1] else
        np.conj(np.swapaxes(np.triu(c_and_lower[0]), -1, -2)))
    return ((unbroadcast(np.tril(gl) if c_and_lower[1] else
                         np.triu(np.conj(np.swapaxes(gl, -1, -2))), c_and_lower[0]), None),
            unbroadcast(gb, b), None, None)


@defcomplex(linalg.cho_solve, tangent=True)
def cho_solve_complex_tangent(g, ans, c_and_lower, b, overwrite_b=False, check_finite=True):
    # along the factor's change dL: -(dL L^H + L dL^H) x, solved
    dl = np.tril(g[0]) if c_and_lower[1] else np.conj(np.swapaxes(np.triu(g[0]), -1, -2))
    fl = np.tril(c_and_lower[0]) if c_and_lower[1] else \
        np.conj(np.swapaxes(np.triu(c_and_lower[0]), -1, -2))
    xm = as_columns(ans, b)
    return (-from_columns(linalg.cho_solve(
                c_and_lower, dl @ (np.conj(np.swapaxes(fl, -1, -2)) @ xm) +
                fl @ (np.conj(np.swapaxes(dl, -1, -2)) @ xm)), b),
            linalg.cho_solve(c_and_lower, g), None, None)


_HERMITIAN = ("her", "hermitian", "pos", "positive definite")


@defcomplex(linalg.solve, shape="other")
def solve_complex(g, ans, a, b, lower=False, overwrite_a=False, overwrite_b=False,
                  check_finite=True, assume_a=None, transposed=False):
    # a Hermitian matrix is its triangle, that triangle's conjugate transpose, and its
    # diagonal's real part (LAPACK reads no more); a complex symmetric one, as real ones
    m = triangle(a, lower, False) + np.conj(np.swapaxes(triangle(a, lower, False), -1, -2)) + \
        np.real(a) * np.eye(np.shape(a)[-1]) if assume_a in _HERMITIAN else \
        triangle(a, lower) + np.swapaxes(triangle(a, lower, False), -1, -2) if assume_a in (
            "sym", "symmetric") else np.swapaxes(a, -1, -2) if transposed else a
    ga = solve_grad(g, ans, m, b, 0)
    return (read_triangle((ga + np.conj(np.swapaxes(ga, -1, -2))) / 2.0, a, lower)
            if assume_a in _HERMITIAN else
            read_triangle((ga + np.swapaxes(ga, -1, -2)) / 2.0, a, lower, False)
            if assume_a in ("sym", "symmetric") else
            np.swapaxes(ga, -1, -2) if transposed else ga,
            solve_grad(g, ans, m, b, 1), None, None, None, None, None, None)


@defcomplex(linalg.solve, tangent=True)
def solve_complex_tangent(g, ans, a, b, lower=False, overwrite_a=False, overwrite_b=False,
                          check_finite=True, assume_a=None, transposed=False):
    m = triangle(a, lower, False) + np.conj(np.swapaxes(triangle(a, lower, False), -1, -2)) + \
        np.real(a) * np.eye(np.shape(a)[-1]) if assume_a in _HERMITIAN else \
        triangle(a, lower) + np.swapaxes(triangle(a, lower, False), -1, -2) if assume_a in (
            "sym", "symmetric") else np.swapaxes(a, -1, -2) if transposed else a
    d = spread_triangle(g, a, lower, assume_a in _HERMITIAN)
    return (solve_tangent((d + np.conj(np.swapaxes(d, -1, -2))) / 2.0 if assume_a in _HERMITIAN
                          else (d + np.swapaxes(d, -1, -2)) / 2.0 if assume_a in (
                              "sym", "symmetric") else
                          np.swapaxes(g, -1, -2) if transposed else g, ans, m, b, 0),
            solve_tangent(g, ans, m, b, 1), None, None, None, None, None, None)


@defcomplex(linalg.eigh, shape="sequence")
def eigh_complex(g, ans, a, b=None, lower=True, eigvals_only=False, overwrite_a=False,
                 overwrite_b=False, type=1, check_finite=True, subset_by_index=None,
                 subset_by_value=None, driver=None):
    # np.linalg.eigh's (rules/complex_linalg.py): SciPy's LAPACK keeps the same row of the
    # eigenvectors real (the first with lower=True, the last without), checked
    vectors = (linalg.eigh(a, lower=lower)[1] if eigvals_only else ans[1]) if b is None and \
        subset_by_index is None and subset_by_value is None else \
        eigh_refused(b, subset_by_index, subset_by_value)
    row = 0 if lower else np.shape(a)[-1] - 1
    gv = 0.0 if eigvals_only else as_gradient(ans[1], g[1])
    h = gv - 1j * np.expand_dims(np.arange(np.shape(a)[-1]) == row, -1) * np.expand_dims(
        quotient(np.imag(np.sum(vectors * gv, axis=-2)), np.real(vectors[..., row, :])), -2) * \
        phase_checked(vectors, row, "scipy.linalg.eigh") if np.iscomplexobj(vectors) and \
        not eigvals_only else gv
    full = (np.conj(vectors) * np.expand_dims(np.real(as_gradient(ans, g) if eigvals_only else
                                                      as_gradient(ans[0], g[0])), -2) +
            (0.0 if eigvals_only else
             np.conj(vectors) @ gap_quotient(np.swapaxes(vectors, -1, -2) @ h, ans[0]))) @ \
        np.swapaxes(vectors, -1, -2)
    return (read_triangle((full + np.conj(np.swapaxes(full, -1, -2))) / 2.0, a, lower), None,
            None, None, None, None, None, None, None, None, None)


@defcomplex(linalg.eigh, tangent=True)
def eigh_complex_tangent(g, ans, a, b=None, lower=True, eigvals_only=False, overwrite_a=False,
                         overwrite_b=False, type=1, check_finite=True, subset_by_index=None,
                         subset_by_value=None, driver=None):
    vectors = (linalg.eigh(a, lower=lower)[1] if eigvals_only else ans[1]) if b is None and \
        subset_by_index is None and subset_by_value is None else \
        eigh_refused(b, subset_by_index, subset_by_value)
    row = 0 if lower else np.shape(a)[-1] - 1
    d = spread_triangle(g, a, lower)
    m = np.conj(np.swapaxes(vectors, -1, -2)) @ \
        ((d + np.conj(np.swapaxes(d, -1, -2))) / 2.0) @ vectors
    dv = vectors @ gap_quotient(m, ans[0] if not eigvals_only else ans)
    turn = 1j * np.expand_dims(quotient(-np.imag(dv[..., row, :]), np.real(
        vectors[..., row, :])), -2) * phase_checked(vectors, row, "scipy.linalg.eigh") \
        if np.iscomplexobj(vectors) and not eigvals_only else 0.0
    return (np.real(np.diagonal(m, 0, -2, -1)) if eigvals_only else
            [np.real(np.diagonal(m, 0, -2, -1)), dv + vectors * turn],
            None, None, None, None, None, None, None, None, None, None)


@defcomplex(linalg.toeplitz, shape="other")
def toeplitz_complex(g, ans, c, r=None):
    # without r, the first row is conj(c): c's sensitivity there is the conjugate
    return (toeplitz_grad(g, c, r, 0) if r is not None else
            toeplitz_grad(g, c, np.conj(c), 0) + np.conj(toeplitz_grad(g, c, np.conj(c), 1)),
            None if r is None else toeplitz_grad(g, c, r, 1))


# real values only: lu_solve with trans="C" conjugates lu, and solve_continuous_lyapunov
# solves a x + x a^H = q (the rules above have a^T); a complex value there is refused
_LU_SOLVE_ADVICE = ("s2sad differentiates scipy.linalg.lu_solve of complex values with trans=0 "
                    "or 1; for the conjugate transpose, solve with np.conj of lu's factors "
                    "(scipy.linalg.lu) and trans=1, or call scipy.linalg.solve.")


@defcomplex(linalg.lu_solve, shape="other")
def lu_solve_complex(g, ans, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    gb = from_columns(linalg.lu_solve(lu_and_piv, as_columns(g, b),
                                      0 if trans in (1, 2, "T", "C") else 1), b) * (
        real_checked(lu_and_piv[0], "scipy.linalg.lu_solve with trans='C'", _LU_SOLVE_ADVICE)
        if trans in _CONJUGATED else 1.0)
    gop = -as_columns(gb, b) @ np.swapaxes(as_columns(ans, b), -1, -2)
    pga = np.swapaxes(pivots_matrix(lu_and_piv[1], lu_and_piv[0]), -1, -2) @ \
        (np.swapaxes(gop, -1, -2) if trans in (1, 2, "T", "C") else gop)
    return ((np.tril(pga @ np.swapaxes(np.triu(lu_and_piv[0]), -1, -2), -1) +
             np.triu(np.swapaxes(np.tril(lu_and_piv[0], -1) +
                                 np.eye(np.shape(lu_and_piv[0])[-1]), -1, -2) @ pga), None),
            unbroadcast(gb, b), None, None, None)


@defcomplex(linalg.lu_solve, tangent=True)
def lu_solve_complex_tangent(g, ans, lu_and_piv, b, trans=0, overwrite_b=False,
                             check_finite=True):
    da = pivots_matrix(lu_and_piv[1], lu_and_piv[0]) @ (
        np.tril(g[0], -1) @ np.triu(lu_and_piv[0]) +
        (np.tril(lu_and_piv[0], -1) + np.eye(np.shape(lu_and_piv[0])[-1])) @ np.triu(g[0]))
    return (-from_columns(linalg.lu_solve(lu_and_piv, (np.swapaxes(da, -1, -2) if trans in
                                                        (1, 2, "T", "C") else da) @
                                          as_columns(ans, b), trans), b) * (
                real_checked(lu_and_piv[0], "scipy.linalg.lu_solve with trans='C'",
                             _LU_SOLVE_ADVICE) if trans in _CONJUGATED else 1.0),
            linalg.lu_solve(lu_and_piv, g, trans), None, None, None)


_LYAPUNOV_ADVICE = ("s2sad differentiates scipy.linalg.solve_continuous_lyapunov of real "
                    "matrices; of complex ones, call scipy.linalg.solve_sylvester(a, "
                    "np.conj(a).T, q), which solves the same equation.")


@defcomplex(linalg.solve_continuous_lyapunov, shape="other")
def solve_continuous_lyapunov_complex(g, ans, a, q):
    return (-(linalg.solve_continuous_lyapunov(np.swapaxes(a, -1, -2), g) @
              np.swapaxes(ans, -1, -2) +
              np.swapaxes(linalg.solve_continuous_lyapunov(np.swapaxes(a, -1, -2), g), -1, -2)
              @ ans) * real_checked(a, "scipy.linalg.solve_continuous_lyapunov",
                                    _LYAPUNOV_ADVICE),
            linalg.solve_continuous_lyapunov(np.swapaxes(a, -1, -2), g) *
            real_checked(a, "scipy.linalg.solve_continuous_lyapunov", _LYAPUNOV_ADVICE))


@defcomplex(linalg.solve_continuous_lyapunov, tangent=True)
def solve_continuous_lyapunov_complex_tangent(g, ans, a, q):
    return (-linalg.solve_continuous_lyapunov(a, g @ ans + ans @ np.swapaxes(g, -1, -2)) *
            real_checked(a, "scipy.linalg.solve_continuous_lyapunov", _LYAPUNOV_ADVICE),
            linalg.solve_continuous_lyapunov(a, g) *
            real_checked(a, "scipy.linalg.solve_continuous_lyapunov", _LYAPUNOV_ADVICE))

