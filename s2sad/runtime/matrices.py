"""Helpers of the ``scipy.linalg`` rules (``s2sad.rules.scipy_linalg``): reshapes of a
right-hand side, the parts of a factor a gradient may reach, the pieces of ``block_diag``
and ``toeplitz``, and banded storage. Each is linear in its first argument; their rules
are in ``s2sad.rules.scipy_linalg``, so the derivatives built with them compose.

>>> import numpy as np
>>> as_columns(np.array([1.0, 2.0]), np.zeros(2)).shape
(2, 1)
>>> toeplitz_grad(np.arange(9.0).reshape(3, 3), np.zeros(3), None, 0)  # diagonals' sums
array([12., 16.,  8.])
"""

from __future__ import annotations

import numpy as np

from ..backends import array_module
from ..errors import DifferentiationError, NoDerivativeError


def as_columns(x, b):
    """``x`` as a stack of one-column matrices where the right-hand side ``b`` is a vector
    (``x[..., None]``), else ``x`` itself."""
    return array_module(x).expand_dims(x, -1) if np.ndim(b) == 1 else x


def from_columns(x, b):
    """The inverse of :func:`as_columns`: ``x[..., 0]`` where ``b`` is a vector."""
    return x[..., 0] if np.ndim(b) == 1 else x


def triangle(m, lower, diagonal=True):
    """The lower (or upper) triangle of a stack of matrices, with or without its diagonal.

    >>> triangle(np.ones((2, 2)), False, False)
    array([[0., 1.],
           [0., 0.]])
    """
    xp = array_module(m)
    if lower:
        return xp.tril(m, 0 if diagonal else -1)
    return xp.triu(m, 0 if diagonal else 1)


def factor_part(g, c, lower):
    """The sensitivity of ``cho_factor``'s matrix ``c`` in the triangle that holds the
    factor; the other triangle holds data SciPy calls arbitrary, which has no derivative,
    so a sensitivity there is refused.

    >>> factor_part(np.array([[1.0, 0.0], [2.0, 3.0]]), np.eye(2), True)
    array([[1., 0.],
           [2., 3.]])
    """
    g = np.asarray(g, dtype=np.result_type(c, 1.0))
    g = np.broadcast_to(g, np.shape(c))
    if np.any(triangle(g, not lower, False) != 0):
        raise DifferentiationError(
            "the gradient reaches the triangle of scipy.linalg.cho_factor's matrix that does "
            "not hold the factor: SciPy leaves arbitrary data there, without a derivative",
            hint="Read only the factor's triangle: np.tril(c) for lower=True, np.triu(c) "
                 "otherwise, or pass (c, lower) to scipy.linalg.cho_solve.")
    return triangle(g, lower)


# --- block_diag and toeplitz ------------------------------------------------------------------


def _blocks(arrs):
    """The shapes of ``block_diag``'s blocks (``None`` for the absent ones)."""
    return [None if a is None else (1,) * (2 - min(np.ndim(a), 2)) + np.shape(a)
            for a in arrs]  # (np.atleast_2d's shape, read without the data)


def block_diag_part(g, arrs, i):
    """The block ``i`` of ``g`` (shaped like ``scipy.linalg.block_diag(*arrs)``), shaped
    like ``arrs[i]``: the adjoint of ``block_diag`` with respect to that argument.

    >>> block_diag_part(np.arange(9.0).reshape(3, 3), (np.ones(1), np.ones((2, 2))), 1)
    array([[4., 5.],
           [7., 8.]])
    """
    shapes = _blocks(arrs)
    if shapes[i] is None:
        return None
    r = sum(s[0] for s in shapes[:i] if s is not None)
    c = sum(s[1] for s in shapes[:i] if s is not None)
    xp = array_module(g)
    part = xp.asarray(g)[..., r:r + shapes[i][0], c:c + shapes[i][1]]
    return xp.reshape(part, np.shape(arrs[i]))


def block_diag_place(h, arrs, i):
    """``h`` (shaped like ``arrs[i]``) put in the block ``i`` of a matrix of zeros shaped
    like ``block_diag(*arrs)``: the transpose of :func:`block_diag_part`, and the tangent
    of ``block_diag`` along ``arrs[i]``."""
    shapes = _blocks(arrs)
    rows = sum(s[0] for s in shapes if s is not None)
    cols = sum(s[1] for s in shapes if s is not None)
    r = sum(s[0] for s in shapes[:i] if s is not None)
    c = sum(s[1] for s in shapes[:i] if s is not None)
    xp = array_module(h)
    h = xp.asarray(h)
    out = xp.zeros((rows, cols), dtype=np.result_type(h.dtype, 1.0))
    out[r:r + shapes[i][0], c:c + shapes[i][1]] = xp.reshape(h, shapes[i])
    return out


def toeplitz_grad(g, c, r, argnum):
    """Adjoint of ``scipy.linalg.toeplitz(c, r)`` with respect to ``c`` (0) or ``r`` (1):
    the sums of ``g``'s diagonals below (``c``) and above (``r``, whose first item is not
    read) the main one; where ``r`` is None, ``c`` is the first row too.

    >>> toeplitz_grad(np.arange(4.0).reshape(2, 2), np.zeros(2), np.zeros(2), 1)
    array([0., 1.])
    """
    xp = array_module(g)
    g = xp.asarray(g)
    n, m = np.shape(g)[-2:]
    below = xp.stack([xp.sum(xp.diagonal(g, -k, -2, -1), axis=-1) for k in range(n)] or
                     [xp.zeros(np.shape(g)[:-2], dtype=g.dtype)], -1)[..., :n]
    above = xp.stack([xp.sum(xp.diagonal(g, k, -2, -1), axis=-1) if k else
                      xp.zeros(np.shape(g)[:-2], dtype=g.dtype) for k in range(m)] or
                     [xp.zeros(np.shape(g)[:-2], dtype=g.dtype)], -1)[..., :m]
    if argnum == 1:
        return xp.reshape(above, np.shape(r))
    if r is None:
        k = min(n, m)
        below = below + xp.concatenate([above[..., :k], xp.zeros_like(below[..., k:])],
                                       axis=-1)
    return xp.reshape(below, np.shape(c))


# --- banded storage ---------------------------------------------------------------------------


def band_of(m, lu):
    """The band of the square matrix ``m`` in ``scipy.linalg.solve_banded``'s storage for
    ``lu = (l, u)``: ``ab[u + i - j, j] = m[i, j]``.

    >>> band_of(np.arange(9.0).reshape(3, 3), (1, 0))
    array([[0., 4., 8.],
           [3., 7., 0.]])
    """
    low, up = lu
    n = np.shape(m)[-1]
    out = np.zeros(np.shape(m)[:-2] + (low + up + 1, n), dtype=np.result_type(m, 1.0))
    for k in range(-up, low + 1):  # the diagonal k below the main one, at the row u + k
        d = np.diagonal(m, -k, -2, -1)
        if k >= 0:
            out[..., up + k, :n - k] = d
        else:
            out[..., up + k, -k:] = d
    return out


def band_full(ab, lu):
    """The square matrix whose band ``ab`` holds (``solve_banded``'s storage for
    ``lu = (l, u)``), zeros elsewhere: the transpose of :func:`band_of`.

    >>> band_full(np.array([[1.0, 2.0], [3.0, 0.0]]), (1, 0))
    array([[1., 0.],
           [3., 2.]])
    """
    low, up = lu
    ab = np.asarray(ab)
    n = np.shape(ab)[-1]
    out = np.zeros(np.shape(ab)[:-2] + (n, n), dtype=np.result_type(ab, 1.0))
    rows = np.arange(n)
    for k in range(-up, low + 1):
        i = rows[max(k, 0):n + min(k, 0)]
        out[..., i, i - k] = ab[..., up + k, i - k]
    return out


def band_transposed(ab, lu):
    """The banded storage of the transpose of the matrix ``ab`` holds for ``lu = (l, u)``
    (its own ``(l, u)`` is ``(u, l)``)."""
    return band_of(np.swapaxes(band_full(ab, lu), -1, -2), (lu[1], lu[0]))


# --- LU ---------------------------------------------------------------------------------------


def pivots_matrix(piv, like):
    """The permutation matrix ``p`` of ``scipy.linalg.lu_factor``'s pivots (``a = p l u``;
    row ``i`` was swapped with row ``piv[i]``), with ``like``'s dtype.

    >>> pivots_matrix(np.array([1, 1]), np.zeros((2, 2)))
    array([[0., 1.],
           [1., 0.]])
    """
    xp = array_module(piv, like)
    host = piv.get() if hasattr(piv, "get") else np.asarray(piv)  # (integers: no derivative)
    n = np.shape(host)[-1]
    out = xp.zeros(np.shape(host)[:-1] + (n, n), dtype=np.result_type(like.dtype, 1.0))
    for index in np.ndindex(*np.shape(host)[:-1]):
        perm = list(range(n))
        for i, j in enumerate(host[index]):
            perm[i], perm[int(j)] = perm[int(j)], perm[i]
        out[index + (perm, list(range(n)))] = 1.0  # (p^T a = a[perm])
    return out


def square_factors(p, a):
    """``p``, once ``a`` is checked square: the rules of ``scipy.linalg.lu`` are written
    for square matrices."""
    if np.shape(a)[-1] != np.shape(a)[-2]:
        raise DifferentiationError(
            f"s2sad differentiates scipy.linalg.lu of square matrices, not of shape "
            f"{np.shape(a)[-2:]}",
            hint="Factor a square matrix, or write the computation with scipy.linalg.qr's "
                 "or np.linalg's functions.")
    return p


def eigh_refused(b, subset_by_index, subset_by_value):
    """Raise: ``scipy.linalg.eigh`` was called with ``b`` or a subset, which its rules do
    not model (they are refused at the line where the call shows them; this is for values
    known only when the line runs)."""
    raise DifferentiationError(
        "s2sad differentiates scipy.linalg.eigh of one symmetric matrix, with all its "
        "eigenvalues: not with b, subset_by_index or subset_by_value",
        hint="Compute all the eigenvalues and select those you need from the result; for "
             "a x = w b x, factor b = L L^T and take the eigenvalues of L^-1 a L^-T.")


# --- the phases NumPy's LAPACK gives complex eigen- and singular vectors ----------------------
# A complex eigenvector is fixed up to a factor; NumPy's LAPACK fixes it. np.linalg.eig
# (geev): unit 2-norm, and the entry of largest modulus real. np.linalg.eigh (heevd) and
# np.linalg.svd (gesdd): one row real, the first of the factor its reduction leaves alone
# (eigh: the first row, the last with UPLO="U"; svd: V's first row where a has at least as
# many rows as columns, else U's). The rules differentiate that choice.


def largest_rows(v, a, tied=np.nan):
    """Which entry of each column of ``v`` (eigenvectors of ``a``, ``np.linalg.eig``'s)
    NumPy made real: a mask, 1.0 at the entry of largest modulus. A column whose two
    largest moduli tie (to ``sqrt(eps)``) is ``tied`` (NaN: there the choice, and so the
    eigenvector's phase, jumps under a change of ``a``; the adjoint takes 0 and divides by
    the 0 it sums to). A real column of a real ``a`` needs no choice (its entries stay
    real).

    >>> largest_rows(np.array([[0.6, 1.0], [0.8, 0.0]]), np.eye(2))
    array([[0., 1.],
           [1., 0.]])
    >>> largest_rows(np.array([[1.0, 1.0j], [1.0j, 1.0]]) / np.sqrt(2.0), np.eye(2))
    array([[nan, nan],
           [nan, nan]])
    """
    size = np.abs(v)
    n = np.shape(v)[-2]
    top = np.argmax(size, axis=-2)
    mask = (np.arange(n)[:, None] == np.expand_dims(top, -2)).astype(size.dtype)
    ordered = np.sort(size, axis=-2)
    near = 1.0 - np.sqrt(np.finfo(size.dtype).eps)
    ties = (ordered[..., -2, :] >= ordered[..., -1, :] * near) if n > 1 else \
        np.zeros(np.shape(top), dtype=bool)
    if not np.iscomplexobj(a):  # (a real column of a real matrix: no phase to choose)
        ties = ties & np.any(np.imag(v) != 0, axis=-2)
    return np.where(np.expand_dims(ties, -2), tied, mask)


def real_checked(x, name, hint):
    """1.0 where ``x`` is real; a complex ``x`` is refused (``name``: the function whose
    rules are written for real values only, ``hint``: what to do instead), as those rules
    would be silently wrong for it.

    >>> real_checked(np.ones(2), "scipy.linalg.lu_solve", "")
    1.0
    >>> real_checked(np.ones(2) * 1j, "scipy.linalg.lu_solve", "")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    s2sad.errors.DifferentiationError: s2sad differentiates scipy.linalg.lu_solve of real ...
    """
    if np.iscomplexobj(x):
        raise DifferentiationError(f"s2sad differentiates {name} of real values only, and "
                                   "this one is complex", hint=hint)
    return 1.0


def phase_checked(v, row, name):
    """1.0 where row ``row`` of the eigen- or singular vectors ``v`` is real, as NumPy's
    LAPACK makes it; a LAPACK that chose other phases is refused, as the rules, which
    differentiate that choice, would be wrong for it.

    >>> phase_checked(np.array([[0.6, 0.8], [0.8j, -0.6j]]), 0, "eigh")
    1.0
    """
    picked = v[..., row, :]
    if np.iscomplexobj(v) and np.any(np.abs(np.imag(picked)) > 64 * np.finfo(
            np.abs(picked).dtype).eps * np.maximum(np.abs(picked), 1.0)):
        raise DifferentiationError(
            "s2sad cannot differentiate the complex factors of "
            f"{name if '.' in name else 'np.linalg.' + name} computed by "
            "this LAPACK: their phases are not the ones s2sad models",
            hint="Use a function the phases do not change (np.abs of the vectors, the "
                 "values alone), or NumPy with its own (OpenBLAS) LAPACK.")
    return 1.0


def pinv_cut_checked(a, rcond=None, rtol=None, name="np.linalg.pinv"):
    """1.0 where ``np.linalg.pinv(a, rcond)`` (or ``rtol=``) drops no singular value of
    ``a`` above rounding (``1e-15``, NumPy's default cut, or ``max(m, n) * eps`` of the
    largest). The pinv rules hold where the rank does not change; a value dropped above
    that is a rank cut by the caller, whose derivative they do not model: refused
    (``name``: ``np.linalg.lstsq`` for its ``rcond``, which cuts the same way).

    >>> a = np.diag([3.0, 1.0, 0.2])
    >>> pinv_cut_checked(a, 0.01)
    1.0
    >>> pinv_cut_checked(a, 0.1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    s2sad.errors.NoDerivativeError: np.linalg.pinv drops a singular value of its matrix ...
    """
    cut = rcond if rcond is not None else rtol
    if cut is None or 0 in tuple(np.shape(a)):
        return 1.0
    xp = array_module(a)
    try:
        s = xp.linalg.svd(xp.asarray(a), compute_uv=False)
    except TypeError:  # (dask.array's svd has no compute_uv: the values, computed)
        xp, a = np, np.asarray(a)
        s = np.linalg.svd(a, compute_uv=False)
    top = xp.max(s, axis=-1, keepdims=True)
    m, n = np.shape(a)[-2:]
    eps = np.finfo(np.result_type(xp.asarray(a).dtype, np.float32)).eps
    level = max(1e-15, max(m, n) * float(eps)) * top
    dropped = (s <= xp.expand_dims(xp.asarray(cut), -1) * top) & (s > level)
    if bool(xp.any(dropped)):
        raise NoDerivativeError(
            f"{name} drops a singular value of its matrix that is not rounding (its cut "
            f"{cut!r} drops {float(xp.max(xp.where(dropped, s, 0.0))):.3g}): s2sad "
            "differentiates the pseudo-inverse where its rank does not change",
            hint="Leave rcond (and rtol) out where the matrix has full rank; to drop "
                 "small singular values, take them from np.linalg.svd and invert those "
                 "you keep.")
    return 1.0


def full_rank_inverse(c):
    """The inverse of the covariance ``c`` where ``scipy.stats.multivariate_normal``
    (``allow_singular=True``) finds it of full rank; NaN where it does not, as there the
    density jumps (a dropped direction) and has no derivative.

    >>> full_rank_inverse(np.array([[2.0, 0.0], [0.0, 4.0]]))
    array([[0.5 , 0.  ],
           [0.  , 0.25]])
    >>> bool(np.isnan(full_rank_inverse(np.ones((2, 2)))).all())
    True
    """
    xp = array_module(c)
    s = xp.linalg.eigvalsh(c)  # (SciPy's cutoff, _eigvalsh_to_eps, for float64 and float32)
    eps = (1e3 if s.dtype == np.float32 else 1e6) * np.finfo(s.dtype).eps * \
        xp.max(xp.abs(s), axis=-1, keepdims=True)
    if bool(xp.all(s > eps)):
        return xp.linalg.inv(c)
    return xp.full(c.shape, np.nan, dtype=xp.result_type(c, 1.0))


# --- functions that read one triangle of a symmetric matrix ---------------------------------
# eigh, eigvalsh, cholesky, cho_factor and the symmetric solves read one triangle of ``a``
# and take the symmetric (complex: Hermitian, with a real diagonal) matrix it stands for,
# S(a). Where ``a`` is symmetric their gradients are symmetric (exact along symmetric
# changes, as JAX's are). Where it is not, a change of the other triangle changes nothing,
# and one of an entry of the triangle read moves two entries of S(a): those gradients are
# exact in every entry.


def _symmetric_mask(a, xp, hermitian=True):
    """Whether each matrix of the stack ``a`` equals its (conjugate) transpose, shaped to
    broadcast."""
    a = xp.asarray(a)
    other = xp.swapaxes(a, -1, -2)
    return xp.all(a == (xp.conj(other) if hermitian else other), axis=(-2, -1), keepdims=True)


def read_triangle(g, a, lower, hermitian=True):
    """The gradient in ``a`` of a function of ``S(a)``, the symmetric matrix that ``a``'s
    lower (or upper) triangle stands for, given ``g`` (symmetric), its gradient in
    ``S(a)``: ``g`` where ``a`` is symmetric, else ``g + g^T`` in the strict triangle read,
    ``g``'s diagonal, and 0 in the other triangle (complex: ``g + conj(g^T)`` and the real
    part of the diagonal; with ``hermitian=False``, a complex symmetric ``S(a)``, as
    ``scipy.linalg.solve(..., assume_a="sym")`` reads it: as for real values).
    :func:`spread_triangle` is its adjoint.

    >>> g = np.array([[1.0, 2.0], [2.0, 3.0]])
    >>> read_triangle(g, np.array([[1.0, 5.0], [0.0, 1.0]]), True)
    array([[1., 0.],
           [4., 3.]])
    >>> read_triangle(g, np.eye(2), True)  # a symmetric: the symmetric gradient
    array([[1., 2.],
           [2., 3.]])
    >>> read_triangle(g * 1j, np.array([[1j, 5.0], [0.0, 1.0]]), True, False)
    array([[0.+1.j, 0.+0.j],
           [0.+4.j, 0.+3.j]])
    """
    xp = array_module(g, a)
    n = np.shape(a)[-1]
    if not hermitian:
        read = triangle(g + xp.swapaxes(g, -1, -2), lower, False) + \
            g * xp.eye(n, dtype=xp.real(g).dtype)
        return xp.where(_symmetric_mask(a, xp, False), g, read)
    both = g + xp.conj(xp.swapaxes(g, -1, -2))
    read = triangle(both, lower, False) + xp.real(g) * xp.eye(n, dtype=xp.real(g).dtype)
    return xp.where(_symmetric_mask(a, xp), g, read)


def spread_triangle(t, a, lower, hermitian=True):
    """The change of ``S(a)`` (see :func:`read_triangle`) for the change ``t`` of ``a``:
    ``t`` where ``a`` is symmetric (the rules take its symmetric part), else ``t``'s
    triangle read, mirrored (conjugated) into the other one. The adjoint of
    :func:`read_triangle`.

    >>> a = np.array([[1.0, 5.0], [0.0, 1.0]])
    >>> spread_triangle(np.array([[1.0, 2.0], [4.0, 3.0]]), a, True)
    array([[1., 4.],
           [4., 3.]])
    """
    xp = array_module(t, a)
    n = np.shape(a)[-1]
    strict = triangle(t, lower, False)
    if not hermitian:
        mirrored = strict + xp.swapaxes(strict, -1, -2) + t * xp.eye(n, dtype=xp.real(t).dtype)
        return xp.where(_symmetric_mask(a, xp, False), t, mirrored)
    mirrored = strict + xp.conj(xp.swapaxes(strict, -1, -2)) + \
        xp.real(t) * xp.eye(n, dtype=xp.real(t).dtype)
    return xp.where(_symmetric_mask(a, xp), t, mirrored)
