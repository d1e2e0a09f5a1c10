"""scipy.linalg: each function's gradient against central differences, forward mode against
reverse, second derivatives against differences of the gradient, stacks of matrices,
float32 kept, and what has no derivative refused (skipped where SciPy is missing)."""

import inspect

import numpy as np
import pytest

sl = pytest.importorskip("scipy.linalg")

import scipy  # noqa: E402

import s2sad  # noqa: E402
from test_higher_order import central_differences  # noqa: E402

EPS = 1e-6
rng = np.random.default_rng(34)
N = 3
A = rng.normal(size=(N, N)) + 3.0 * np.eye(N)        # well conditioned, not symmetric
B = rng.normal(size=(N, 2))                             # two right-hand sides
V = rng.normal(size=N)                                  # one right-hand side
W = rng.normal(size=(N, N))                             # weights: not a symmetric loss
S = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])  # positive definite
SMALL = 0.3 * rng.normal(size=(N, N))                   # for expm
BATCH = rng.normal(size=(2, N, N)) + 3.0 * np.eye(N)    # a stack of two matrices
BATCHED = tuple(int(v) for v in scipy.__version__.split(".")[:2]) >= (1, 16)  # (SciPy 1.15: 2-D)


def spd(x):
    """A symmetric positive definite matrix that depends on all of ``x``."""
    return x @ np.swapaxes(x, -1, -2) + N * np.eye(N)


# --- triangular solves ---------------------------------------------------------------------

def solve_triangular_lower(a, b):
    return np.sum(sl.solve_triangular(a, b, lower=True) * B)


def solve_triangular_upper(a, b):
    return np.sum(sl.solve_triangular(a, b) ** 2)


def solve_triangular_trans(a, b):
    return np.sum(sl.solve_triangular(a, b, trans=1, lower=True) * B)


def solve_triangular_trans_t(a, b):
    return np.sum(sl.solve_triangular(a, b, trans="T") * B)


def solve_triangular_unit(a, v):
    return np.sum(sl.solve_triangular(a, v, lower=True, unit_diagonal=True) * V)


def solve_triangular_vector(a, v):
    return np.sum(sl.solve_triangular(a, v, trans=2) ** 2)


# --- Cholesky ------------------------------------------------------------------------------

def cholesky_upper(x):
    return np.sum(sl.cholesky(spd(x)) * W)


def cholesky_lower(x):
    return np.sum(sl.cholesky(spd(x), lower=True) * W)


def cho_factor_solve(x, b):
    return np.sum(sl.cho_solve(sl.cho_factor(spd(x)), b) * B)


def cho_factor_solve_lower(x, v):
    c, low = sl.cho_factor(spd(x), lower=True)
    return np.sum(sl.cho_solve((c, low), v) ** 2) + np.sum(np.log(np.diag(c)))


def cho_factor_triangle(x):
    c, low = sl.cho_factor(spd(x))
    return np.sum(np.triu(c) * W)


# --- solves, inverse, determinant ----------------------------------------------------------

def solve_general(a, b):
    return np.sum(sl.solve(a, b) * B)


def solve_vector(a, v):
    return np.sum(sl.solve(a, v) ** 2)


def solve_pos(x, b):
    return np.sum(sl.solve(spd(x), b, assume_a="pos") * B)


def solve_sym_lower(x, v):
    return np.sum(sl.solve(spd(x), v, assume_a="sym", lower=True) ** 2)


def solve_transposed(a, b):
    return np.sum(sl.solve(a, b, transposed=True) * B)


def inv(a):
    return np.sum(sl.inv(a) * W)


def det(a):
    return sl.det(a) ** 2


# --- LU ------------------------------------------------------------------------------------

def lu_factors(a):
    p, low, up = sl.lu(a)
    return np.sum(low * W) + np.sum(up * W.T)


def lu_permute_l(a):
    pl, up = sl.lu(a, permute_l=True)
    return np.sum(pl * W) + np.sum(up ** 2)


def lu_factor(a):
    lu_, piv = sl.lu_factor(a)
    return np.sum(lu_ * W)


def lu_factor_solve(a, b):
    return np.sum(sl.lu_solve(sl.lu_factor(a), b) * B)


def lu_solve_trans(a, v):
    factors = sl.lu_factor(a)
    return np.sum(sl.lu_solve(factors, v, trans=1) ** 2)


# --- eigh ----------------------------------------------------------------------------------

def eigh_values(x):
    return np.sum(sl.eigh(spd(x), eigvals_only=True) * np.array([1.0, -2.0, 3.0]))


def eigh_full(x):
    w, v = sl.eigh(spd(x))
    return np.sum(w ** 2) + np.sum((v[:, 0] * v[:, 2]) ** 2)


def eigh_upper(x):
    w, v = sl.eigh(spd(x), lower=False)
    return np.sum(v ** 2 * W) + w[-1]


# --- matrix functions and equations ----------------------------------------------------------

def expm(a):
    return np.sum(sl.expm(a) * W)


def logm(x):
    return np.sum(sl.logm(spd(x)) * W)


def sqrtm(x):
    return np.sum(sl.sqrtm(spd(x)) * W)


def solve_sylvester(a, b):
    return np.sum(sl.solve_sylvester(a, b.T @ b + np.eye(N), W) * W)


def solve_sylvester_q(q):
    return np.sum(sl.solve_sylvester(A, S, q) ** 2)


def lyapunov(a, q):
    return np.sum(sl.solve_continuous_lyapunov(-a, q) * W)


# --- banded, block diagonal, Toeplitz ----------------------------------------------------------

BAND = np.array([[0.0, 0.5, -0.3], [4.0, 3.0, 5.0], [0.7, 0.2, 0.0]])  # (1, 1): tridiagonal


def solve_banded(ab, b):
    return np.sum(sl.solve_banded((1, 1), ab, b) * B)


def solve_banded_lower(ab, v):
    return np.sum(sl.solve_banded((1, 0), ab, v) ** 2)


def block_diag(a, b):
    return np.sum(sl.block_diag(a, b, np.ones(2)) ** 2 * np.arange(35.0).reshape(5, 7))


def toeplitz(c, r):
    return np.sum(sl.toeplitz(c, r) ** 2 * np.arange(12.0).reshape(3, 4))


def toeplitz_symmetric(c):
    return np.sum(sl.toeplitz(c) * W)


# --- stacks --------------------------------------------------------------------------------

def stacked_solve_triangular(a, v):
    return np.sum(sl.solve_triangular(a, v, lower=True) ** 2)


def stacked_cholesky(x):
    return np.sum(sl.cholesky(x @ np.swapaxes(x, -1, -2) + N * np.eye(N)) * W)


def stacked_inv_det(a):
    return np.sum(sl.inv(a) * W) + np.sum(sl.det(a))


def stacked_expm(a):
    return np.sum(sl.expm(0.3 * a) * W)


def stacked_eigh(x):
    w, v = sl.eigh(x @ np.swapaxes(x, -1, -2) + N * np.eye(N))
    return np.sum(w * np.array([1.0, 2.0, -1.0])) + np.sum(v[..., 0] ** 2 * V)


TABLE = [
    (solve_triangular_lower, (A, B), 0), (solve_triangular_lower, (A, B), 1),
    (solve_triangular_upper, (A, B), 0), (solve_triangular_upper, (A, B), 1),
    (solve_triangular_trans, (A, B), 0), (solve_triangular_trans, (A, B), 1),
    (solve_triangular_trans_t, (A, B), 0),
    (solve_triangular_unit, (A, V), 0), (solve_triangular_unit, (A, V), 1),
    (solve_triangular_vector, (A, V), 0), (solve_triangular_vector, (A, V), 1),
    (cholesky_upper, (A,), 0), (cholesky_lower, (A,), 0),
    (cho_factor_solve, (A, B), 0), (cho_factor_solve, (A, B), 1),
    (cho_factor_solve_lower, (A, V), 0), (cho_factor_solve_lower, (A, V), 1),
    (cho_factor_triangle, (A,), 0),
    (solve_general, (A, B), 0), (solve_general, (A, B), 1),
    (solve_vector, (A, V), 0), (solve_vector, (A, V), 1),
    (solve_pos, (A, B), 0), (solve_pos, (A, B), 1), (solve_sym_lower, (A, V), 0),
    (solve_transposed, (A, B), 0), (solve_transposed, (A, B), 1),
    (inv, (A,), 0), (det, (A,), 0),
    (lu_factors, (A,), 0), (lu_permute_l, (A,), 0), (lu_factor, (A,), 0),
    (lu_factor_solve, (A, B), 0), (lu_factor_solve, (A, B), 1),
    (lu_solve_trans, (A, V), 0), (lu_solve_trans, (A, V), 1),
    (eigh_values, (A,), 0), (eigh_full, (A,), 0), (eigh_upper, (A,), 0),
    (expm, (SMALL,), 0), (logm, (0.5 * A,), 0), (sqrtm, (A,), 0),
    (solve_sylvester, (A, A), 0), (solve_sylvester, (A, A), 1), (solve_sylvester_q, (W,), 0),
    (lyapunov, (A, W), 0), (lyapunov, (A, W), 1),
    (solve_banded, (BAND, B), 0), (solve_banded, (BAND, B), 1),
    (solve_banded_lower, (BAND[1:], V), 0), (solve_banded_lower, (BAND[1:], V), 1),
    (block_diag, (W, np.array([0.5, -1.0])), 0), (block_diag, (W, np.array([0.5, -1.0])), 1),
    (toeplitz, (V, np.array([9.0, 1.0, -2.0, 0.5])), 0),
    (toeplitz, (V, np.array([9.0, 1.0, -2.0, 0.5])), 1),
    (toeplitz_symmetric, (V,), 0),
]
STACKED = [
    (stacked_solve_triangular, (BATCH, V), 0), (stacked_solve_triangular, (BATCH, V), 1),
    (stacked_cholesky, (BATCH,), 0), (stacked_inv_det, (BATCH,), 0), (stacked_expm, (BATCH,), 0),
    (stacked_eigh, (BATCH,), 0),
]
if BATCHED:
    TABLE += STACKED


def _ids(table):
    return [f"{f.__name__}-{wrt}" for f, _, wrt in table]


def _differences(f, args, wrt):
    return central_differences(f, args, wrt, EPS)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_gradient_against_central_differences(f, args, wrt):
    np.testing.assert_allclose(s2sad.grad(f, wrt=wrt)(*args), _differences(f, args, wrt),
                               rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_forward_mode_against_reverse(f, args, wrt):
    v = rng.normal(size=np.shape(args[wrt]))
    value, push = s2sad.jvp(f, wrt=wrt)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(push(v), np.sum(s2sad.grad(f, wrt=wrt)(*args) * v), rtol=1e-8,
                               atol=1e-10)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_second_derivative_against_differences_of_the_gradient(f, args, wrt):
    gradient = s2sad.grad(f, wrt=wrt)
    expected = _differences(gradient, args, wrt)
    v = rng.normal(size=np.shape(args[wrt]))
    # reverse over reverse: the pullback of the gradient
    _, pullback = s2sad.vjp(gradient, wrt=wrt)(*args)
    np.testing.assert_allclose(pullback(v), np.tensordot(expected, v, np.ndim(v)), rtol=1e-5,
                               atol=1e-6)
    # forward over reverse: the Hessian
    np.testing.assert_allclose(s2sad.hessian(f, wrt=wrt)(*args), expected, rtol=1e-5,
                               atol=1e-6)
