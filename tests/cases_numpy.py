"""Functions differentiated by tests/test_numpy_rules.py: one or a few NumPy functions each.

s2sad reads a function's source with ``inspect``, so each is a module-level ``def``
of straight-line code returning a scalar.
"""

import math

import numpy as np

import s2sad

# --- elementwise, one argument ---------------------------------------------------------


def u_sin(x):
    return np.sum(np.sin(x))


def u_cos(x):
    return np.sum(np.cos(x))


def u_tan(x):
    return np.sum(np.tan(x))


def u_arcsin(x):
    return np.sum(np.arcsin(x))


def u_arccos(x):
    return np.sum(np.arccos(x))


def u_arctan(x):
    return np.sum(np.arctan(x))


def u_sinh(x):
    return np.sum(np.sinh(x))


def u_cosh(x):
    return np.sum(np.cosh(x))


def u_tanh(x):
    return np.sum(np.tanh(x))


def u_arcsinh(x):
    return np.sum(np.arcsinh(x))


def u_arccosh(x):
    return np.sum(np.arccosh(x))


def u_arctanh(x):
    return np.sum(np.arctanh(x))


def u_exp(x):
    return np.sum(np.exp(x))


def u_exp2(x):
    return np.sum(np.exp2(x))


def u_expm1(x):
    return np.sum(np.expm1(x))


def u_log(x):
    return np.sum(np.log(x))


def u_log2(x):
    return np.sum(np.log2(x))


def u_log10(x):
    return np.sum(np.log10(x))


def u_log1p(x):
    return np.sum(np.log1p(x))


def u_sqrt(x):
    return np.sum(np.sqrt(x))


def u_cbrt(x):
    return np.sum(np.cbrt(x))


def u_square(x):
    return np.sum(np.square(x))


def u_reciprocal(x):
    return np.sum(np.reciprocal(x))


def u_abs(x):
    return np.sum(np.abs(x))


def u_absolute(x):
    return np.sum(np.absolute(x))


def u_fabs(x):
    return np.sum(np.fabs(x))


def u_negative(x):
    return np.sum(np.negative(x) * x)


def u_positive(x):
    return np.sum(np.positive(x) * x)


def u_deg2rad(x):
    return np.sum(np.sin(np.deg2rad(x)))


def u_rad2deg(x):
    return np.sum(np.rad2deg(x) * x)


def u_radians_degrees(x):
    return np.sum(np.radians(x) * np.degrees(x))


def u_sinc(x):
    return np.sum(np.sinc(x))


def u_conj_real(x):
    return np.sum(np.conj(x) * np.real(x) + np.conjugate(x))


def u_nan_to_num(x):
    return np.sum(np.nan_to_num(x * x))


def u_sign_times(x):
    return np.sum(np.sign(x) * x ** 2)


def u_float_input(x):
    return np.sin(x) * np.exp(x) + np.arctan(x) + np.sqrt(x * x + 1.0)


# --- elementwise, two or three arguments -------------------------------------------


def b_add(x, y):
    return np.sum(np.add(x, y) ** 2)


def b_subtract(x, y):
    return np.sum(np.subtract(x, y) ** 2)


def b_multiply(x, y):
    return np.sum(np.multiply(x, y) ** 2)


def b_divide(x, y):
    return np.sum(np.divide(x, y))


def b_true_divide(x, y):
    return np.sum(np.true_divide(x, y) ** 2)


def b_power(x, y):
    return np.sum(np.power(x, y))


def b_float_power(x, y):
    return np.sum(np.float_power(x, y))


def b_maximum(x, y):
    return np.sum(np.maximum(x, y) ** 2)


def b_minimum(x, y):
    return np.sum(np.minimum(x, y) ** 2)


def b_fmax(x, y):
    return np.sum(np.fmax(x, y) ** 2)


def b_fmin(x, y):
    return np.sum(np.fmin(x, y) ** 2)


def b_hypot(x, y):
    return np.sum(np.hypot(x, y))


def b_arctan2(x, y):
    return np.sum(np.arctan2(x, y))


def b_logaddexp(x, y):
    return np.sum(np.logaddexp(x, y))


def b_logaddexp2(x, y):
    return np.sum(np.logaddexp2(x, y))


def b_copysign(x, y):
    return np.sum(np.copysign(x, y) * x)


def b_mod(x, y):
    return np.sum(np.mod(x, y) ** 2)


def b_remainder(x, y):
    return np.sum(np.remainder(x, y) * 1.5)


def b_mod_operator(x, y):
    return np.sum((x % y) ** 2)


def b_fmod(x, y):
    return np.sum(np.fmod(x, y) ** 2)


def b_divmod(x, y):
    q, r = np.divmod(x, y)
    q2, r2 = np.divmod(x * 1.3, y)
    return np.sum(r * x + q) + np.sum(r2 ** 2 * q2)


def b_modf(x):
    frac, whole = np.modf(x * 3.1)
    return np.sum(frac ** 2 * whole + frac * x)


def py_math_parts(x, y):
    frac, whole = math.modf(x * 3.1)
    q, r = divmod(x * 2.3, y)
    return frac * whole * x + r * q + math.prod([x, y, x + 1.0], start=2.0)


def b_floor_divide(x, y):
    return np.sum(np.floor_divide(x, y) * x + x // y)


def b_ldexp(x):
    return np.sum(np.ldexp(x, 3))


def b_where(c, x, y):
    return np.sum(np.where(c > 0, x, y) ** 2)


def b_where_expr(x, y):
    return np.sum(np.where(x > y, x * y, y - x))


def b_clip(x):
    return np.sum(np.clip(x, -0.5, 0.7) ** 2)


def b_clip_bounds(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) ** 2)


def b_clip_keywords(x, lo):
    return np.sum(np.clip(x, min=lo, max=1.0) ** 2)


def b_clip_keyword_broadcasts(x, lo):
    return np.sum(np.clip(x, min=lo) * x)


def b_clip_method(x):
    return np.sum(x.clip(-0.3, 0.4) * x)


# --- reductions ----------------------------------------------------------------------


def r_sum_axis_tuple(x):
    return np.sum(np.sum(x, axis=(0, 2)) ** 2)


def r_sum_keepdims_broadcast(x):
    s = np.sum(x, keepdims=True)
    return np.sum(s * x)


def r_mean_neg_axis(x):
    return np.sum(np.mean(x, axis=-1) ** 2)


def r_prod(x):
    return np.prod(x)


def r_prod_axis(x):
    return np.sum(np.prod(x, axis=1) ** 2)


def r_prod_axis_tuple_keepdims(x):
    return np.sum(np.prod(x, axis=(0, -1), keepdims=True) * x)


def r_max(x):
    return np.max(x) * np.min(x)


def r_amax_axis(x):
    return np.sum(np.amax(x, axis=0) ** 2 + np.amin(x, axis=-1, keepdims=True) * 2.0)


def r_max_tuple(x):
    return np.sum(np.max(x, axis=(1, 2)) ** 2)


def r_var(x):
    return np.var(x)


def r_var_axis_ddof(x):
    return np.sum(np.var(x, axis=0, ddof=1) ** 2)


def r_var_tuple_keepdims(x):
    return np.sum(np.var(x, axis=(0, 2), keepdims=True) * x)


def r_std(x):
    return np.std(x)


def r_std_axis_ddof(x):
    return np.sum(np.std(x, axis=-1, ddof=1))


def r_cumsum(x):
    return np.sum(np.cumsum(x) ** 2)


def r_cumsum_axis(x):
    return np.sum(np.cumsum(x, axis=0) ** 2)


def r_cumprod(x):
    return np.sum(np.cumprod(x, axis=1))


def r_cumprod_flat(x):
    return np.sum(np.cumprod(x))


def r_average(x):
    return np.average(x) ** 2


def r_average_weights(x, w):
    return np.sum(np.average(x, axis=1, weights=w) ** 2)


def r_average_positional(x, w):
    return np.sum(np.average(x, 1, w) ** 2)


def r_average_full_weights(x, w):
    return np.average(x, weights=w) ** 2


def r_nansum(x):
    y = np.where(x > 1.0, np.nan, x)
    return np.nansum(y ** 2) + np.sum(np.nansum(y, axis=0))


def r_nanmean(x):
    y = np.where(x > 1.0, np.nan, x)
    return np.nanmean(y ** 2) + np.sum(np.nanmean(y, axis=1) ** 2)


def r_nanmax(x):
    y = np.where(x > 1.0, np.nan, x)
    return np.nanmax(y) + np.sum(np.nanmin(y, axis=0))


def r_ptp(x):
    return np.ptp(x) + np.sum(np.ptp(x, axis=0) ** 2)


def r_trace(x):
    return np.trace(x) ** 2


def r_trace_offset(x):
    return np.sum(np.trace(x, offset=1, axis1=1, axis2=2) ** 2)


def r_norm(x):
    return np.linalg.norm(x)


def r_norm_ord(x, p):
    return np.linalg.norm(x, ord=p)


def r_norm_axis(x):
    return np.sum(np.linalg.norm(x, axis=1) ** 2) + np.sum(np.linalg.norm(x, ord=1, axis=0))


def r_norm_keepdims(x):
    return np.sum(np.linalg.norm(x, axis=-1, keepdims=True) * x)


def r_norm_matrix(x, p):
    return np.linalg.norm(x, p)


def r_norm_3(x):
    return np.linalg.norm(x, 3)


def r_vector_norm(x):
    return np.linalg.vector_norm(x) + np.sum(np.linalg.vector_norm(x, axis=0, ord=1))


def r_matrix_norm(x):
    return np.sum(np.linalg.matrix_norm(x) + np.linalg.matrix_norm(x, ord="nuc") ** 2)


def r_logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def r_logsumexp_no_max_back(x):
    m = np.max(x)
    return np.log(np.sum(np.exp(x - m)))


def r_logsumexp_axis(x):
    m = np.max(x, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))
    return np.sum((x - lse) * x)


def r_logsumexp_stop(x):
    m = s2sad.stop_gradient(np.max(x))
    return m + np.log(np.sum(np.exp(x - m)))


def r_softmax_cross_entropy(x, y):
    z = x - np.max(x, axis=-1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=-1, keepdims=True)
    return -np.sum(y * np.log(p))


# --- array methods --------------------------------------------------------------------


def m_reductions(x):
    return x.sum() + x.mean(axis=0).sum() + x.max() * x.min(axis=1).sum() + x.prod()


def m_std_var(x):
    return x.std() + x.var(axis=0, ddof=1).sum() + x.std(ddof=1)


def m_shapes(x):
    return (x.reshape(4, 3).T.dot(x.reshape(-1)[:4]) ** 2).sum()


def m_transpose_flatten(x):
    return np.sum(x.transpose(1, 0).flatten() * x.ravel() ** 2)


def m_astype_copy(x):
    y = x.astype(np.float64)
    z = x.copy()
    return np.sum(y * z) + np.sum(x.real ** 2)


def m_astype32(x):
    return np.sum(x.astype(np.float32) ** 2)


def m_squeeze(x):
    return np.sum(x.squeeze() ** 2) + np.sum(x.squeeze(0) * 2.0)


def m_item(x):
    return x.item(1) * x.sum().item() + x.reshape(2, 2).item(1, 0)


def m_tolist(x):
    rows = x.tolist()
    return rows[0][1] * rows[1][0] + sum(v * v for v in x[0].tolist())


def m_cumulative(x):
    return np.sum(x.cumsum(axis=1) * x.cumprod(axis=0))


def m_misc(x):
    return np.sum(x.swapaxes(0, 1) ** 2) + x.trace() + np.sum(x.diagonal() ** 3) + \
        np.sum(x.repeat(2, axis=0) ** 2) + np.sum(x.take([0, 0, 2]))


def m_argmax_nondiff(x):
    i = x.argmax()
    return np.sum(x) * x.ravel()[i]


# --- linear algebra ---------------------------------------------------------------------


def la_dot(x, y):
    return np.sum(np.dot(x, y) ** 2)


def la_vdot(x, y):
    return np.vdot(x, y)


def la_inner(x, y):
    return np.sum(np.inner(x, y) ** 2)


def la_inner_scalar(x, y):
    return np.inner(x, y)


def la_outer(x, y):
    return np.sum(np.outer(x, y) ** 2)


def la_matmul(x, y):
    return np.sum(np.matmul(x, y) ** 2)


def la_matmul_op(x, y):
    return np.sum((x @ y) ** 2)


def la_tensordot(x, y):
    return np.sum(np.tensordot(x, y, axes=([0, 2], [1, 0])) ** 2)


def la_kron(x, y):
    return np.sum(np.kron(x, y) ** 2)


def la_vecdot(x, y):
    return np.sum(np.vecdot(x, y) ** 2)


def la_einsum_matmul(x, y):
    return np.sum(np.einsum("ij,jk->ik", x, y) ** 2)


def la_einsum_implicit(x, y):
    return np.sum(np.einsum("ij,jk", x, y) ** 2)


def la_einsum_trace(x):
    return np.einsum("ii", x) ** 2


def la_einsum_diag(x):
    return np.sum(np.einsum("ii->i", x) ** 2)


def la_einsum_transpose(x):
    return np.sum(np.einsum("ij->ji", x) * x.T ** 2)


def la_einsum_sum_one(x):
    return np.sum(np.einsum("ijk->j", x) ** 2)


def la_einsum_ellipsis(x, y):
    return np.sum(np.einsum("...ij,...jk->...ik", x, y) ** 2)


def la_einsum_ellipsis_broadcast(x, y):
    return np.sum(np.einsum("...i,...i->...", x, y) ** 2)


def la_einsum_three(x, y, z):
    return np.einsum("i,ij,j->", x, y, z)


def la_einsum_same_operand(x):
    return np.sum(np.einsum("ij,kj->ik", x, x) ** 2)


def la_einsum_bilinear(x, w, y):
    return np.sum(np.einsum("bi,oij,bj->bo", x, w, y) ** 2)


def la_einsum_scalar_out(x, y):
    return np.einsum("ij,ij", x, y)


def la_einsum_optimize(x, y, z):
    return np.sum(np.einsum("ij,jk,kl->il", x, y, z, optimize=True) ** 2)


def la_einsum_interleaved(x, y):
    return np.sum(np.einsum(x, [0, 1], y, [1, 2]))


def la_einsum_sublists_held(x, y):
    sub = [0, 1]
    return np.sum(np.einsum(x, sub, y, [1, 2]))


def la_einsum_seven(x):
    return np.einsum("i,i,i,i,i,i,i->", x, x, x, x, x, x, x)


def la_inv(a):
    return np.sum(np.linalg.inv(a) ** 2)


def la_inv_batched(a):
    return np.sum(np.linalg.inv(a) * a)


def la_det(a):
    return np.linalg.det(a)


def la_det_batched(a):
    return np.sum(np.linalg.det(a) ** 2)


def la_slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return 2.0 * logdet


def la_slogdet_index(a):
    return np.linalg.slogdet(a)[1] * 3.0


def la_slogdet_return_unpacked(a):
    sign, logdet = np.linalg.slogdet(a)
    return logdet


def la_solve(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


def la_cholesky(a, w):
    s = a @ a.T + 3.0 * np.eye(3)
    return np.sum(np.linalg.cholesky(s) * w)


def la_cholesky_upper(a, w):
    s = a @ a.T + 3.0 * np.eye(3)
    return np.sum(np.linalg.cholesky(s, upper=True) * w)


def la_eigh(a, w):
    s = a + a.T
    vals, vecs = np.linalg.eigh(s)
    return np.sum(vals ** 3 * w[0]) + np.sum(vecs[:, -1] ** 4) + \
        np.sum((vecs * vals) @ vecs.T * w)  # (the last: s itself, back from its factors)


def la_eigh_upper_batched(a):
    s = a + np.swapaxes(a, -1, -2)
    vals, vecs = np.linalg.eigh(s, UPLO="U")
    return np.sum(vals[..., 0] ** 2) + np.sum(vecs[..., 0, :] ** 4)


def la_eigh_fields(a):
    result = np.linalg.eigh(a @ a.T)
    return np.sum(np.sqrt(result.eigenvalues + 1.0))


def la_eigh_repeated(a):
    """A repeated eigenvalue (all three equal): a gradient of the eigenvalues alone."""
    vals, vecs = np.linalg.eigh(np.eye(3) * a[0, 0] + a[1, 1])
    return np.sum(vals ** 2)


def la_eigvalsh(a):
    return np.sum(np.linalg.eigvalsh(a + a.T) ** 2 * np.arange(4.0))


def la_svd(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(s ** 1.5) + np.sum((u[:, 0] * u[:, 1]) ** 2) + np.sum(vh[0] ** 2 * vh[1])


def la_svd_rank_one(a):
    """The best rank-one approximation, u0 s0 vh0 (a square matrix: full_matrices too)."""
    u, s, vh = np.linalg.svd(a)
    return np.sum((s[0] * np.outer(u[:, 0], vh[0])) ** 2 * a)


def la_svd_values_of_full(a):
    """The default full_matrices=True, a tall matrix, only the values read."""
    u, s, vh = np.linalg.svd(a)
    return np.sum(np.log(s)) + np.sum(u[:, :2] ** 2 * vh[:2, 0])


def la_svdvals(a):
    return np.sum(np.linalg.svdvals(a) ** 3)


def la_diag_vec(v):
    return np.sum(np.diag(v, 1) * np.arange(16.0).reshape(4, 4))


def la_diag_mat(x):
    return np.sum(np.diag(x) ** 2) + np.sum(np.diag(x, -1) ** 3)


def la_diagonal(x):
    return np.sum(np.diagonal(x, offset=1, axis1=0, axis2=2) ** 2)


def la_triu_tril(x):
    return np.sum(np.triu(x) ** 2 + np.tril(x, -1) * 3.0)


# --- shapes ---------------------------------------------------------------------------


def s_reshape(x):
    return np.sum(np.reshape(x, (4, 3)) * np.arange(12.0).reshape(4, 3))


def s_reshape_order(x):
    return np.sum(np.reshape(x, (2, 6), order="F") * np.arange(12.0).reshape(2, 6))


def s_ravel(x):
    return np.sum(np.ravel(x) * np.arange(12.0))


def s_transpose(x):
    return np.sum(np.transpose(x, (2, 0, 1)) * np.arange(24.0).reshape(4, 2, 3))


def s_T(x):
    return np.sum(x.T * np.arange(12.0).reshape(4, 3))


def s_swapaxes(x):
    return np.sum(np.swapaxes(x, 0, 2) * np.arange(24.0).reshape(4, 3, 2))


def s_moveaxis(x):
    return np.sum(np.moveaxis(x, 0, -1) * np.arange(24.0).reshape(3, 4, 2))


def s_expand_squeeze(x):
    y = np.expand_dims(x, (0, 2))
    return np.sum(np.squeeze(y * y, axis=0) * np.arange(12.0).reshape(3, 1, 4))


def s_broadcast_to(x):
    return np.sum(np.broadcast_to(x, (2, 3, 4)) * np.arange(24.0).reshape(2, 3, 4))


def s_atleast(x):
    return np.sum(np.atleast_1d(x) * 2.0) + np.sum(np.atleast_2d(x) ** 2) + \
        np.sum(np.atleast_3d(x) ** 3)


def s_concatenate(x, y):
    return np.sum(np.concatenate([x, y * 2.0], axis=1) * np.arange(21.0).reshape(3, 7))


def s_concatenate_none(x, y):
    return np.sum(np.concatenate((x, y), axis=None) * np.arange(21.0))


def s_stack(x, y):
    return np.sum(np.stack([x, y, x * y], axis=-1) * np.arange(36.0).reshape(3, 4, 3))


def s_hstack(x, y):
    return np.sum(np.hstack([x, y]) * np.arange(7.0))


def s_hstack_2d(x, y):
    return np.sum(np.hstack((x, y)) * np.arange(21.0).reshape(3, 7))


def s_vstack(x, y):
    return np.sum(np.vstack([x, y]) * np.arange(8.0).reshape(2, 4))


def s_column_stack(x, y):
    return np.sum(np.column_stack([x, y]) * np.arange(12.0).reshape(4, 3))


def s_dstack(x, y):
    return np.sum(np.dstack([x, y]) * np.arange(24.0).reshape(3, 4, 2))


def s_stack_floats(a, b):
    v = np.stack([a, b, a * b])
    return np.sum(v * np.array([1.0, 2.0, 3.0]))


def s_array_of_floats(a, b):
    v = np.array([[a, b], [b * a, 1.0]])
    return np.sum(v * np.arange(4.0).reshape(2, 2))


def s_stack_list_arg(xs):
    return np.sum(np.stack(xs) * np.arange(8.0).reshape(2, 4))


def s_concatenate_array(x):
    return np.sum(np.concatenate(x) * np.arange(12.0)) + np.sum(np.stack(x, axis=1) ** 2)


def s_hstack_floats(a, b):
    return np.sum(np.hstack([a, b, a * b]) * np.array([1.0, 2.0, 3.0]))


def s_split_then_join(x):
    return np.sum(np.concatenate(np.split(x, 3)) * np.arange(6.0)) + \
        np.sum(np.stack(np.split(x, 2)) ** 2)


def s_split_reversed(x):
    return np.sum(np.concatenate(np.split(x, 3)[::-1]) * np.arange(6.0))


def s_dsplit(x):
    a, b = np.dsplit(x, 2)
    return np.sum(a * b ** 2)


def s_matrix_transpose(x):
    return np.sum(np.matrix_transpose(x) * np.arange(24.0).reshape(2, 4, 3)) + \
        np.sum(np.linalg.matrix_transpose(x) ** 2)


def s_asfortranarray(x):
    return np.sum(np.asfortranarray(x) ** 2)


def s_split(x):
    a, b = np.split(x, 2)
    return np.sum(a * 3.0) + np.sum(b ** 2)


def s_split_axis(x):
    a, b, c = np.split(x, [1, 3], axis=1)
    return np.sum(a * 3.0) + np.sum(c ** 2)


def s_split_index(x):
    parts = np.array_split(x, 3)
    return np.sum(parts[1] ** 2) + np.sum(parts[2] * 2.0)


def s_hsplit_vsplit(x):
    a, b = np.hsplit(x, 2)
    c, d = np.vsplit(x, 2)
    return np.sum(a * b) + np.sum(c * d ** 2)


def s_tile(x):
    return np.sum(np.tile(x, (2, 1, 3)) * np.arange(36.0).reshape(2, 3, 6)) + \
        np.sum(np.tile(x, 2) ** 2)


def s_repeat(x):
    return np.sum(np.repeat(x, 2, axis=1) * np.arange(24.0).reshape(3, 8))


def s_repeat_flat(x):
    return np.sum(np.repeat(x, [1, 0, 3], axis=0) ** 2) + np.sum(np.repeat(x, 2) ** 3)


def s_flip(x):
    return np.sum(np.flip(x) * np.arange(12.0).reshape(3, 4)) + \
        np.sum(np.flip(x, axis=1) ** 2 * np.arange(12.0).reshape(3, 4))


def s_fliplr_ud_rot(x):
    return np.sum((np.fliplr(x) + np.flipud(x) * 2.0) * np.arange(12.0).reshape(3, 4)) + \
        np.sum(np.rot90(x) * np.arange(12.0).reshape(4, 3))


def s_roll(x):
    return np.sum(np.roll(x, 2) * np.arange(12.0).reshape(3, 4)) + \
        np.sum(np.roll(x, (1, -1), axis=(0, 1)) ** 2 * np.arange(12.0).reshape(3, 4))


def s_pad(x):
    return np.sum(np.pad(x, ((1, 2), (0, 1))) * np.arange(30.0).reshape(6, 5))


def s_pad_modes(x):
    w = np.arange(35.0).reshape(5, 7)
    return np.sum(np.pad(x, 1, mode="edge") * w) + np.sum(np.pad(x, 1, mode="wrap") * w) + \
        np.sum(np.pad(x, (1, 2), "reflect") * np.arange(48.0).reshape(6, 8)) + \
        np.sum(np.pad(x, 1, mode="symmetric") ** 2)


def s_pad_value(x, c):
    return np.sum(np.pad(x, 1, constant_values=c) ** 2)


def s_diff(x):
    return np.sum(np.diff(x) ** 2) + np.sum(np.diff(x, n=2, axis=0) ** 3)


# --- selection ------------------------------------------------------------------------


def sel_take(x):
    return np.sum(np.take(x, [0, 2, 2, -1]) ** 2) + np.sum(np.take(x, [1, 1], axis=1) ** 3)


def sel_take_modes(x):
    return np.sum(np.take(x, [5, -7, 1], mode="wrap") ** 2) + \
        np.sum(np.take(x, [9, -3], mode="clip") * 3.0)


def sel_take_along_axis(x):
    i = np.argsort(x, axis=1)
    return np.sum(np.take_along_axis(x, i, axis=1) * np.arange(12.0).reshape(3, 4)) + \
        np.sum(np.take_along_axis(x, np.array([[0], [0], [3]]), axis=1) ** 2)


def sel_sort(x):
    return np.sum(np.sort(x) * np.arange(12.0).reshape(3, 4)) + \
        np.sum(np.sort(x, axis=0) ** 2 * np.arange(12.0).reshape(3, 4))


def sel_sort_flat(x):
    return np.sum(np.sort(x, axis=None) * np.arange(12.0))


def sel_choose(x, y):
    return np.sum(np.choose(np.array([[0, 1, 1, 0], [1, 0, 1, 0], [0, 0, 1, 1]]), [x, y]) ** 2)


def sel_argmax_value(x):
    i = np.argmax(x, axis=1)
    return np.sum(np.take_along_axis(x, i[:, None], axis=1) ** 2)


# --- array creation --------------------------------------------------------------------


def c_full(x):
    return np.sum(np.full((2, 3), x) * np.arange(6.0).reshape(2, 3))


def c_full_like(x, y):
    return np.sum(np.full_like(y, x) * y)


def c_linspace(a, b):
    return np.sum(np.linspace(a, b, 5) ** 2)


def c_linspace_arrays(a, b):
    return np.sum(np.linspace(a, b, 4, endpoint=False, axis=1) ** 2)


def c_arange(a):
    return np.sum(np.arange(a, a + 3.0) ** 2) + np.sum(np.arange(0.0, 2.5, a) ** 2)


def c_constants(x):
    z = np.zeros(3) + np.ones(3) + np.empty(3) * 0.0 + np.eye(3)[0] + np.arange(3)
    return np.sum((z + np.zeros_like(x) + np.ones_like(x) * x) * x)


def c_nondiff(x):
    n = np.shape(x)[0] + np.size(x) + np.ndim(x) + len(x) + x.shape[1]
    k = np.floor(x) + np.ceil(x) + np.round(x) + np.rint(x) + np.trunc(x) + np.around(x, 1)
    b = (x > 0.1) & np.isfinite(x) & ~np.isnan(x) | np.logical_and(x < 0.0, x > -0.2)
    a = np.argmax(x) + np.argmin(x) + np.argsort(x, axis=None)[0]
    return np.sum(x * (k + b + a + n)) + np.sum(np.sign(x) * x)


def c_array_from_list(a, b, c):
    v = np.array([a, b * c, c])
    return np.sum(v ** 2 * np.array([1.0, 2.0, 3.0]))


def c_asarray(x):
    return np.sum(np.asarray(x) ** 2 + np.ascontiguousarray(x))


# --- the math module and builtins --------------------------------------------------


def py_math(x):
    return math.asin(x) + math.acos(x * 0.5) + math.sinh(x) * math.cosh(x) + math.asinh(x) + \
        math.acosh(x + 2.0) + math.atanh(x * 0.9) + math.expm1(x) + math.log1p(x) + \
        math.log2(x + 1.0) + math.log10(x + 1.0) + math.erf(x) + math.erfc(x) + \
        math.degrees(x) + math.radians(x)


def py_math2(x, y):
    return math.atan2(x, y) + math.hypot(x, y) + math.copysign(x, y) * x + math.fmod(x, y)


def py_builtins(x, y):
    return float(x * y) + sum([x, y, x * y]) + abs(x) * y + max(x, y) * min(x, 2.0 * y) + \
        pow(x, 3) + pow(y, x)


# --- indexing -------------------------------------------------------------------------


def i_basic(x):
    return x[1, 2] * x[0, 0] + x[-1, -1] ** 2


def i_negative_row(x):
    return np.sum(x[-1] ** 2) + np.sum(x[-2, :] * 3.0)


def i_slice_step(x):
    return np.sum(x[::2] ** 2) + np.sum(x[1::3] * 3.0) + np.sum(x[::-1][:2] * x[:2])


def i_slice_2d(x):
    return np.sum(x[1:, ::2] ** 2) + np.sum(x[:, -1] * 2.0)


def i_ellipsis(x):
    return np.sum(x[..., 0] ** 2) + np.sum(x[0, ...] * 3.0) + np.sum(x[..., 1:, 2] ** 3)


def i_newaxis(x):
    return np.sum(x[None, :] * x[:, None]) + np.sum(x[:, np.newaxis] ** 2)


def i_int_array(x):
    return np.sum(x[[0, 2, 2, 2, 4]] ** 2)


def i_int_array_var(x, idx):
    return np.sum(x[idx] * np.arange(5.0))


def i_int_array_2d(x):
    return np.sum(x[np.array([[0, 1], [1, 1]])] ** 2)


def i_bool_mask(x):
    return np.sum(x[x > 0.0] ** 2)


def i_bool_mask_rows(x):
    return np.sum(x[np.array([True, False, True])] ** 2)


def i_multi_axis(x):
    return np.sum(x[[0, 2, 0], [1, 1, 1]] ** 2) + np.sum(x[1:, [0, 0, 3]] * 2.0)


def i_mixed_3d(x):
    return np.sum(x[:, [1, 1], 2:] ** 2) + np.sum(x[0, :, [0, 3]] * 3.0)


def i_mask_column(x):
    return np.sum(x[:, np.array([True, False, True, True])] ** 2)


def i_chained(x):
    return np.sum(x[[0, 2]][:, [1, 1, 3]] ** 2) + np.sum(x[1:][::-1, ::-2] * 3.0)


def i_mask_and_int(x):
    return np.sum(x[np.array([True, False, True]), 1] ** 2) + np.sum(x[None, ..., 1:] ** 3)


def i_scalar_index_variable(x, i):
    return x[i] * x[i + 1]


# --- dtypes, broadcasting, mixed ---------------------------------------------------------


def f32_mix(x, w):
    h = np.tanh(x @ w)
    return np.sum(np.log1p(np.exp(h)) * np.maximum(h, 0.1)) + np.mean(np.sqrt(x * x + 1.0))


def f32_reductions(x):
    return np.sum(np.var(x, axis=0) + np.std(x, axis=0)) + np.prod(x[0]) + np.linalg.norm(x)


def bc_chain(x, b, s):
    y = x * b + s
    z = np.exp(-y ** 2) / (1.0 + b)
    return np.sum(z) + np.sum(np.maximum(y, b))


def sequence_builtins(x, a):
    rows = list(x)  # the rows of a matrix
    pair = tuple([a, a * rows[1][0]])
    return np.sum(rows[0] * np.sin(rows[2])) + pair[0] * pair[1]


# --- NumPy functions written with others (s2sad/implementations.py), inlined -------------

def im_interp(fp, x, knots):
    return np.sum(np.interp(x, knots, fp) ** 2)


def im_interp_x(x, fp, knots):
    return np.sum(np.sin(np.interp(x, knots, fp, left=-1.0, right=2.0)))


def im_polyval(p, x):
    return np.sum(np.polyval(p, x) ** 2)


def im_cross(a, b):
    return np.sum(np.cross(a, b) ** 2)


def im_trapezoid(y, x):
    return np.trapezoid(y ** 2, x) + np.sum(np.trapezoid(y.reshape(2, 3), dx=0.5, axis=0))


def im_cov(m):
    return np.sum(np.cov(m) ** 2) + np.sum(np.cov(m, rowvar=False) * 0.5)


def im_median(a):
    return np.median(a ** 2) + np.sum(np.median(a, axis=0) * np.arange(3.0))


def im_nan_functions(a):
    # a holds NaNs: skipped by each (a row of them all too, but for nanvar and nanstd)
    return np.sum(np.nanprod(a, axis=0) * np.arange(1.0, 4.0)) + np.nanprod(a) + \
        np.sum(np.nancumsum(a, axis=1) ** 2) + np.sum(np.nancumprod(a) * 0.5) + \
        np.nanvar(a[1:]) + np.sum(np.nanstd(a[1:], axis=0, ddof=1) * np.arange(3.0)) + \
        np.sum(np.nanvar(a[1:], axis=1, keepdims=True) ** 2)


def im_append(a, b):
    return np.sum(np.append(a, b) ** 2 * np.arange(7.0))


def im_convolve(a, k):
    return np.sum(np.convolve(a, k, "same") ** 2) + np.sum(np.convolve(k, a))


def s_float64_cast(x):
    return np.sum(np.float64(x) ** 2) + np.float64(x[0]) * 3.0


def s_float32_cast(x):
    return np.sum(np.float32(x) * 3.0)


def im_diff_ends(x):
    return np.sum(np.diff(x, prepend=0.0) ** 2) + np.sum(np.diff(x, append=x[0]) ** 3)


def e_power_of_exponents_with_zero(x):
    """x ** [0, 1, 2], a polynomial's powers: at x = 0 too, where the slope 0 * x^-1 of
    x ** 0 is NaN unless the exponent's 0 wins (``scaled_power``)."""
    return np.sum(np.expand_dims(x, -1) ** np.arange(3.0) * np.array([1.0, -2.0, 3.0]))


def e_power_of_whole_exponents(x):
    """x ** 0, x ** 1, x ** 3 written out, and np.power and pow with an int array of them."""
    return np.sum(x ** 0 + 2.0 * x ** 1 - x ** 3) + \
        np.sum(np.power(np.expand_dims(x, -1), np.arange(4))) + np.sum(pow(x, np.arange(2)[1]))


def e_float_power_of_exponents_with_zero(x):
    return np.sum(np.float_power(np.expand_dims(x, -1), np.array([0, 1, 2])))


def e_scalar_powers_at_zero(x):
    """Python floats: 0.0 ** -1 raises, so the slope of x ** 0 must not compute it."""
    return x ** 0.0 + x ** 1 - 3.0 * x ** 2 + math.pow(x, 0.0) + pow(x, 1.0)


def im_quantile(x):
    return np.quantile(x, 0.3) + np.sum(np.quantile(x, [0.1, 0.75], axis=1) ** 2)


def im_percentile(x):
    return np.sum(np.percentile(x, 60.0, axis=0, keepdims=True) * np.arange(4.0))


def im_sliding_window_view(x):
    windows = np.lib.stride_tricks.sliding_window_view(x, 3)
    return np.sum(np.max(windows, axis=1) * windows[:, 1])


def im_sliding_window_view_axis(x):
    return np.sum(np.lib.stride_tricks.sliding_window_view(x, 2, axis=0) ** 2 * 0.5)


def im_ufunc_reduce(x):
    return np.sum(np.add.reduce(x * x)) * np.sum(np.multiply.reduce(x, axis=1)) + \
        np.maximum.reduce(x, axis=None) - np.sum(np.minimum.reduce(x))


def im_ufunc_accumulate(x):
    return np.sum(np.add.accumulate(x, axis=1) ** 2 + np.multiply.accumulate(x) +
                  np.maximum.accumulate(x, axis=1) * np.minimum.accumulate(x))


def im_ufunc_outer(x):
    return np.sum(np.subtract.outer(x, x[0]) ** 2) + np.sum(np.multiply.outer(x[1], x) * 0.5)


# --- arguments that carry a value into the result (issue 32), and affine offsets in forward
# mode: a literal beside a varying argument of a jointly linear call


def u_nan_to_num_values(x, a):
    return np.sum(np.nan_to_num(x, nan=a, posinf=2.0 * a, neginf=-a) ** 2)


def b_heaviside(x, h):
    return np.sum(np.heaviside(x, h) ** 2 * h)


def r_var_ddof_float(x, d):
    return np.var(x, ddof=d) + np.sum(np.std(x, axis=0, ddof=d))


def r_var_correction_float(x, d):
    return np.sum(np.var(x, axis=1, correction=d) ** 2) * np.std(x, correction=d)


def c_linspace_literal_stop(a):
    return np.sum(np.linspace(a, 2.0, 5) ** 2) + np.sum(np.linspace(1.5, a, 4) ** 3)


def r_sum_initial_literal(x):
    return np.sum(x ** 2, initial=5.0) ** 2 + np.sum(np.sum(x, axis=0, initial=-1.0) ** 2)


def builtin_sum_start_literal(x, y):
    return sum([x, x * y], 2.0) ** 2 + sum([1.5, x], y) ** 2


def s_pad_constant_literal(x):
    return np.sum(np.pad(x, 1, constant_values=3.0) ** 2) + \
        np.sum(np.pad(x * x, ((1, 0), (2, 1)), constant_values=-0.5) ** 3)


def la_det_singular(a):
    return np.linalg.det(a) + np.linalg.det(a * 2.0) ** 2


def la_einsum_empty_batch(x, y):
    return np.sum(np.einsum("...ij,...jk->...ik", x, y)) + np.sum(x) * 2.0


def _padded_and_scaled(x, p):
    return (np.pad(x, 1), p * 3.0)


def s_pad_item_discarded(x):
    _, q = _padded_and_scaled(x, x * 2.0)
    return np.sum(q ** 2)


def _pad_with(x, mode):
    return np.pad(x, 1, mode=mode)


def s_pad_mode_through_a_helper(x):
    return np.sum(_pad_with(x, "edge") ** 2) + np.sum(_pad_with(x, "reflect") ** 3)


def s_pad_mode_held_in_a_variable(x, mode):
    return np.sum(np.pad(x, 1, mode=mode) ** 2)
