"""Forward-mode (tangent) rules for the functions that have adjoint rules.

Three kinds, so that every function with an adjoint has a tangent:

* elementwise functions (``shape="elementwise"``, and ``math`` on floats) need
  nothing here: their Jacobian is diagonal, so their tangent is their adjoint's
  expression with ``g`` the argument's tangent (``registry.Rule.derived_tangent``);
* linear functions (sums, reshapes, products in each factor...) are declared with
  ``deflinear``: their tangent is the same call on the tangent,
  ``d_y = np.sum(d_x, axis=0)``, ``d_z = d_x @ y + x @ d_y``;
* the rest have a ``deftangent`` rule: ``tangent(g, ans, *args)`` returns, for each
  argument, the change of the result when that argument changes by ``g``.

>>> import numpy as np
>>> from s2sad import registry
>>> rule = registry.lookup(np.linalg.det)
>>> a = np.array([[2.0, 1.0], [1.0, 3.0]])
>>> round(float(rule.tangent(np.eye(2), np.linalg.det(a), a)), 12)  # det tr(a^-1 da)
5.0
"""

import numpy as np

from ..registry import deflinear, deftangent
from ..runtime import cast_like, cofactors, extremum_grad, nanmean_grad, norm_grad, prod_grad, \
    pad_tangent, ptp_grad, gap_quotient, quotient, reduced_size, svd_completed, std_grad, \
    spread_triangle, var_grad
from ..runtime.higher import (arange_tangent, average_tangent, cholesky_tangent, clip_tangent,
                              cumprod_tangent, pad_values_forward, reduce_tangent, solve_tangent,
                              sort_tangent)

# --- linear: the same call on the tangent ---------------------------------------------------

deflinear(sum, argnums=(0, 1), joint=True)
deflinear(list, tuple)
deflinear(np.sum, argnums=(0, 5), joint=True)
deflinear(np.mean, np.cumsum, np.trace, np.diagonal, np.diag, np.transpose, np.reshape,
          np.ravel, np.squeeze, np.expand_dims, np.atleast_1d, np.atleast_2d, np.atleast_3d,
          np.swapaxes, np.moveaxis, np.broadcast_to, np.flip, np.fliplr, np.flipud, np.rot90,
          np.roll, np.triu, np.tril, np.tile, np.repeat, np.diff, np.take, np.take_along_axis,
          np.asarray, np.ascontiguousarray, np.asfortranarray, np.array, np.concatenate,
          np.stack, np.hstack, np.vstack, np.dstack, np.column_stack, np.split, np.array_split,
          np.hsplit, np.vsplit, np.dsplit)
for _name in ("permute_dims", "matrix_transpose"):
    if hasattr(np, _name):
        deflinear(getattr(np, _name))
if hasattr(np.linalg, "matrix_transpose"):
    deflinear(np.linalg.matrix_transpose)
deflinear(np.full, np.full_like, argnums=(1,))
deflinear(np.choose, argnums=(1,))
deflinear(np.linspace, argnums=(0, 1), joint=True)
# bilinear: linear in each factor
deflinear(np.multiply, np.dot, np.matmul, np.tensordot, np.vdot, np.inner, np.outer, np.kron,
          argnums=(0, 1))
if hasattr(np, "vecdot"):
    deflinear(np.vecdot, np.linalg.vecdot, argnums=(0, 1))
deflinear(np.einsum, argnums=(1, 2, 3, 4, 5, 6))


# --- reductions: g times the partial derivatives, summed over each slice -------------------


@deftangent(max)
def builtin_max(g, ans, x, y):  # (the builtin on two numbers: the one it returns moves it)
    return (0.0 if y > x else g), (g if y > x else 0.0)


@deftangent(min)
def builtin_min(g, ans, x, y):
    return (0.0 if y < x else g), (g if y < x else 0.0)


@deftangent(np.prod)
def prod(g, ans, a, axis=None, dtype=None, out=None, keepdims=False):
    return reduce_tangent(g, prod_grad(np.ones_like(ans), a, axis, keepdims), axis, keepdims)


@deftangent(np.max, np.amax, np.nanmax, np.min, np.amin, np.nanmin)
def extremum(g, ans, x, axis=None, out=None, keepdims=False):
    return reduce_tangent(g, extremum_grad(np.ones_like(ans), ans, x, axis, keepdims), axis,
                          keepdims)


@deftangent(np.ptp)
def ptp(g, ans, a, axis=None, out=None, keepdims=False):
    return reduce_tangent(g, ptp_grad(np.ones_like(ans), a, axis, keepdims), axis, keepdims)


@deftangent(np.var)
def var(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, correction=None):
    return (reduce_tangent(g, var_grad(np.ones_like(ans), a, axis,
                                       ddof if correction is None else correction, keepdims),
                           axis, keepdims), None, None, None,
            g * ans / (reduced_size(a, axis) -
                       (ddof if correction is None else correction)), None,
            g * ans / (reduced_size(a, axis) -
                       (ddof if correction is None else correction)))


@deftangent(np.std)
def std(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, correction=None):
    return (reduce_tangent(g, std_grad(np.ones_like(ans), ans, a, axis,
                                       ddof if correction is None else correction, keepdims),
                           axis, keepdims), None, None, None,
            g * ans * 0.5 / (reduced_size(a, axis) -
                             (ddof if correction is None else correction)), None,
            g * ans * 0.5 / (reduced_size(a, axis) -
                             (ddof if correction is None else correction)))


@deftangent(np.nansum)
def nansum(g, ans, a, axis=None, dtype=None, out=None, keepdims=False):
    return np.sum(np.where(np.isnan(a), 0.0, g), axis=axis, keepdims=keepdims)


@deftangent(np.nanmean)
def nanmean(g, ans, a, axis=None, dtype=None, out=None, keepdims=False):
    return reduce_tangent(g, nanmean_grad(np.ones_like(ans), a, axis, keepdims), axis, keepdims)


@deftangent(np.average)
def average(g, ans, a, axis=None, weights=None, returned=False, *, keepdims=False):
    return (average_tangent(g, a, axis, weights, keepdims, 0), None,
            average_tangent(g, a, axis, weights, keepdims, 1))


@deftangent(np.linalg.norm)
def norm(g, ans, x, ord=None, axis=None, keepdims=False):
    return np.sum(g * norm_grad(np.ones_like(ans), ans, x, ord, axis, keepdims),
                  axis=axis, keepdims=keepdims)


if hasattr(np.linalg, "vector_norm"):  # NumPy >= 2.0
    @deftangent(np.linalg.vector_norm)
    def vector_norm(g, ans, x, axis=None, keepdims=False, ord=2):
        return np.sum(g * norm_grad(np.ones_like(ans), ans, x, ord, axis, keepdims, False),
                      axis=axis, keepdims=keepdims)

    @deftangent(np.linalg.matrix_norm)
    def matrix_norm(g, ans, x, keepdims=False, ord="fro"):
        return np.sum(g * norm_grad(np.ones_like(ans), ans, x, ord, (-2, -1), keepdims),
                      axis=(-2, -1), keepdims=keepdims)


@deftangent(np.cumprod)
def cumprod(g, ans, a, axis=None, dtype=None, out=None):
    return cumprod_tangent(g, a, axis)


@deftangent(np.arange)
def arange(g, ans, start, stop=None, step=None, dtype=None):
    return (None if stop is None else arange_tangent(g, ans, 0), None,
            None if step is None else arange_tangent(g, ans, 2))


@deftangent(np.sort)
def sort(g, ans, a, axis=-1, kind=None, order=None, stable=None):
    return sort_tangent(g, a, axis)


# the padding copies entries of the array (checked when it runs: a mode held in a variable
# may compute new ones), or is the constant values


@deftangent(np.pad)
def pad(g, ans, array, pad_width, mode="constant", constant_values=0, reflect_type="even"):
    return (pad_tangent(g, pad_width, mode, reflect_type), None, None,
            pad_values_forward(g, array, pad_width))


# --- elementwise, but with an adjoint that reduces inside a helper --------------------------


@deftangent(np.clip)
def clip(g, ans, a, a_min=None, a_max=None, out=None, min=None, max=None):
    return (clip_tangent(g, a, a_min if min is None else min, a_max if max is None else max, 0),
            clip_tangent(g, a, a_min, a_max, 1), clip_tangent(g, a, a_min, a_max, 2), None,
            clip_tangent(g, a, min, max, 1), clip_tangent(g, a, min, max, 2))


if hasattr(np, "astype"):  # NumPy >= 2.1
    @deftangent(np.astype)
    def astype(g, ans, x, dtype, copy=True, device=None):
        return cast_like(g, ans)


@deftangent(np.ndarray.astype)
def ndarray_astype(g, ans, x, dtype, order="K", casting="unsafe", subok=True, copy=True):
    return cast_like(g, ans)


# --- linear algebra -------------------------------------------------------------------------


@deftangent(np.linalg.inv)
def inv(g, ans, a):
    return -(ans @ g @ ans)


@deftangent(np.linalg.det)
def det(g, ans, a):
    return np.sum(cofactors(a) * g, axis=(-2, -1))


@deftangent(np.linalg.slogdet)
def slogdet(g, ans, a):
    return [np.zeros_like(ans[0]), np.trace(np.linalg.solve(a, g), axis1=-2, axis2=-1)]


@deftangent(np.linalg.solve)
def solve(g, ans, a, b):
    return solve_tangent(g, ans, a, b, 0), solve_tangent(g, ans, a, b, 1)


@deftangent(np.linalg.cholesky)
def cholesky(g, ans, a, upper=False):
    # (spread_triangle: the change of the symmetric matrix a's triangle stands for)
    return np.swapaxes(cholesky_tangent(spread_triangle(g, a, False), np.swapaxes(ans, -1, -2)),
                       -1, -2) if upper else cholesky_tangent(spread_triangle(g, a, True), ans)


# the symmetric matrix's change, in the eigenvectors' basis: its diagonal moves the
# eigenvalues, the rest turns the eigenvectors (see eigh in numpy_linalg.py)
@deftangent(np.linalg.eigh)
def eigh(g, ans, a, UPLO="L"):
    d = spread_triangle(g, a, UPLO in ("L", "l"))
    m = np.swapaxes(ans[1], -1, -2) @ ((d + np.swapaxes(d, -1, -2)) / 2.0) @ ans[1]
    return [np.diagonal(m, 0, -2, -1), ans[1] @ gap_quotient(m, ans[0])]


@deftangent(np.linalg.eigvalsh)
def eigvalsh(g, ans, a, UPLO="L"):
    v = np.linalg.eigh(a, UPLO)[1]
    d = spread_triangle(g, a, UPLO in ("L", "l"))
    return np.sum(v * (((d + np.swapaxes(d, -1, -2)) / 2.0) @ v), axis=-2)


@deftangent(np.linalg.svd)
def svd(g, ans, a, full_matrices=True, *, hermitian=False):
    # m = u^T g v: diag(m) moves s; the rest turns u and vh (divided by the gaps
    # s[j]^2 - s[i]^2), and, for a matrix that is not square, g's part outside u's or v's
    # space adds to the longer factor, divided by s (Townsend 2016)
    # (hermitian=True reads a's lower triangle, as eigh: the change of the matrix it stands
    # for, spread_triangle)
    k = np.shape(ans[1])[-1]
    u = ans[0][..., :k]
    vh = ans[2][..., :k, :]
    v = np.swapaxes(vh, -1, -2)
    m = np.swapaxes(u, -1, -2) @ (spread_triangle(g, a, True) if hermitian else g) @ v
    mt = np.swapaxes(m, -1, -2)
    s_row = np.expand_dims(ans[1], -2)
    s_col = np.expand_dims(ans[1], -1)
    du = u @ gap_quotient(m * s_row + s_col * mt, ans[1] ** 2) + \
        quotient((spread_triangle(g, a, True) if hermitian else g) @ v - u @ m, s_row)
    dv = v @ gap_quotient(s_col * m + mt * s_row, ans[1] ** 2) + \
        quotient(np.swapaxes(spread_triangle(g, a, True) if hermitian else g, -1, -2) @ u -
                 v @ mt, s_row)
    return [svd_completed(du, ans[0], np.nan), np.diagonal(m, 0, -2, -1),
            svd_completed(np.swapaxes(dv, -1, -2), ans[2], np.nan)]


if hasattr(np.linalg, "svdvals"):  # NumPy >= 2.0
    @deftangent(np.linalg.svdvals)
    def svdvals(g, ans, x):
        parts = np.linalg.svd(x, full_matrices=False)
        return np.sum(parts[0] * (g @ np.swapaxes(parts[2], -1, -2)), axis=-2)
