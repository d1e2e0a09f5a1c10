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


# --- composed: a derivative of any order is built of the same rules ---------------------------

def test_third_derivative_of_expm():
    """expm's adjoint is expm of a block matrix: it differentiates again, to any order."""
    def f(t):
        return np.sum(sl.expm(t * SMALL) * W)
    second = s2sad.grad(s2sad.grad(f))
    third = s2sad.grad(second)
    np.testing.assert_allclose(third(0.7), (second(0.7 + EPS) - second(0.7 - EPS)) / (2 * EPS),
                               rtol=1e-5)
    np.testing.assert_allclose(third(0.7), np.sum(SMALL @ SMALL @ SMALL @ sl.expm(0.7 * SMALL)
                                                  * W), rtol=1e-10)


def gaussian_process(log_ell, y):
    # a Gaussian process's negative log marginal likelihood, as people write it
    x = np.linspace(0.0, 1.0, 5)
    k = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / np.exp(2.0 * log_ell)) + 0.1 * np.eye(5)
    c, low = sl.cho_factor(k, lower=True)
    alpha = sl.cho_solve((c, low), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c)))


def gaussian_process_triangular(log_ell, y):
    x = np.linspace(0.0, 1.0, 5)
    k = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / np.exp(2.0 * log_ell)) + 0.1 * np.eye(5)
    L = sl.cholesky(k, lower=True)
    z = sl.solve_triangular(L, y, lower=True)
    return 0.5 * z @ z + np.sum(np.log(np.diag(L)))


@pytest.mark.parametrize("f", [gaussian_process, gaussian_process_triangular])
def test_a_gaussian_process_marginal_likelihood(f):
    y = np.array([0.3, -0.2, 0.5, 1.0, 0.1])
    for wrt in (0, 1):
        np.testing.assert_allclose(s2sad.grad(f, wrt=wrt)(-0.4, y),
                                   _differences(f, (-0.4, y), wrt), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.grad(f)(-0.4, y),
                               s2sad.grad(gaussian_process)(-0.4, y), rtol=1e-10)
    np.testing.assert_allclose(s2sad.hessian(f)(-0.4, y),
                               _differences(s2sad.grad(f), (-0.4, y), 0), rtol=1e-5)


# --- float32 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("f, args", [
    (solve_triangular_lower, (A, B)), (cholesky_lower, (A,)), (cho_factor_solve, (A, B)),
    (solve_general, (A, B)), (inv, (A,)), (det, (A,)), (lu_factor_solve, (A, B)),
    (eigh_full, (A,)), (expm, (SMALL,)), (sqrtm, (A,)), (solve_sylvester_q, (W,)),
    (toeplitz_symmetric, (V,)), (block_diag, (W, np.array([0.5, -1.0]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_float32_stays_float32(f, args):
    args32 = tuple(np.asarray(a, dtype=np.float32) for a in args)
    g = s2sad.grad(f)(*args32)
    assert g.dtype == np.float32 and g.shape == args32[0].shape
    np.testing.assert_allclose(g, s2sad.grad(f)(*args), rtol=2e-2, atol=2e-3)


# --- where no derivative exists: NaN or infinite, never a finite wrong number ------------------

def eigenvectors_of(x):
    w, v = sl.eigh(x)
    return np.sum(v[:, 0] * V)


def eigenvalues_of(x):
    return np.sum(sl.eigh(x, eigvals_only=True) * np.array([1.0, 2.0, 3.0]))


def test_repeated_eigenvalues():
    a = np.diag([1.0, 1.0, 2.0])  # the first two eigenvectors are not functions of a there
    with np.errstate(invalid="ignore"):
        assert not np.all(np.isfinite(s2sad.grad(eigenvectors_of)(a)))
    # the eigenvalues' sum against weights is: its gradient is finite (v diag(c) v^T)
    assert np.all(np.isfinite(s2sad.grad(eigenvalues_of)(np.diag([1.0, 2.0, 3.0]))))


# --- refused: at the user's line, or where a gradient reaches what has no derivative -----------

def overwrites_a(x):
    return np.sum(sl.cholesky(spd(x), overwrite_a=True))  # <- here


def overwrites_b(a, b):
    return np.sum(sl.solve_triangular(a, b, overwrite_b=True))  # <- here


def solve_banded_matrix(a, b):
    return np.sum(sl.solve(a, b, assume_a="banded"))  # <- here


def generalized_eigh(x):
    return np.sum(sl.eigh(x, np.eye(N), eigvals_only=True))  # <- here


def eigh_subset(x):
    return np.sum(sl.eigh(spd(x), eigvals_only=True, subset_by_index=[0, 1]))


def lu_indices(a):
    return np.sum(sl.lu(a, p_indices=True)[1])  # <- here


def _line(func):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, text in enumerate(lines) if "# <- here" in text)


@pytest.mark.parametrize("func, args, message, advice", [
    (overwrites_a, (A,), "overwrite_a False, not True", "leave overwrite_a out"),
    (overwrites_b, (A, B), "overwrite_b False, not True", "leave overwrite_b out"),
    (solve_banded_matrix, (A, B), "not 'banded'", "scipy.linalg.solve_banded"),
    (generalized_eigh, (A,), "b None, not an array", "L^-1 a L^-T"),
    (lu_indices, (A,), "p_indices False, not True", "a = p @ l @ u"),
], ids=["overwrite_a", "overwrite_b", "assume_a", "eigh-b", "p_indices"])
def test_what_is_not_modelled_is_refused_at_its_line(func, args, message, advice):
    for derivative in (s2sad.grad, lambda f: (lambda *a: s2sad.jvp(f)(*a)[1](np.ones(N * N)
                                                                          .reshape(N, N)))):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(func)(*args)
        assert info.value.lineno == _line(func)
        assert message in str(info.value) and advice in str(info.value), str(info.value)


def cho_factor_other_triangle(x):
    c, low = sl.cho_factor(spd(x))  # (upper: the lower triangle is arbitrary)
    return np.sum(c * W)


def lu_rectangular(a):
    p, low, up = sl.lu(a)
    return np.sum(up)


def test_a_gradient_reaching_what_has_no_derivative_is_refused():
    with pytest.raises(s2sad.DifferentiationError, match="arbitrary data") as info:
        s2sad.grad(cho_factor_other_triangle)(A)
    assert info.value.lineno == inspect.getsourcelines(cho_factor_other_triangle)[1] + 1
    assert "np.triu(c)" in str(info.value)
    assert np.isnan(s2sad.jvp(cho_factor_other_triangle)(A)[1](W))  # (forward: NaN there)
    assert np.isfinite(s2sad.jvp(cho_factor_triangle)(A)[1](W))
    with pytest.raises(s2sad.DifferentiationError, match="square matrices"):
        s2sad.grad(lu_rectangular)(np.vstack([A, V]))
    for derivative in (s2sad.grad, lambda f: (lambda x: s2sad.jvp(f)(x)[1](W))):
        with pytest.raises(s2sad.DifferentiationError, match="all its eigenvalues"):
            derivative(eigh_subset)(A)


# --- a large factor: Cholesky's blocked adjoint ------------------------------------------------
# Above runtime.products._CHOLESKY_BLOCK rows, cholesky_grad runs Murray's blocked algorithm.

BIG = 150
BIG_A = (lambda x: x @ x.T / BIG + np.eye(BIG))(rng.normal(size=(BIG, BIG)))
BIG_W = rng.normal(size=(BIG, BIG))
BIG_D = (lambda d: d + d.T)(rng.normal(size=(BIG, BIG)))   # a symmetric direction


def big_cholesky_lower(a):
    return np.sum(sl.cholesky(a, lower=True) * BIG_W)


def big_cholesky_upper(a):
    return np.sum(sl.cholesky(a) * BIG_W)


def big_np_cholesky(a):
    return np.sum(np.log(np.diag(np.linalg.cholesky(a)))) + np.sum(np.linalg.cholesky(a) * BIG_W)


def _unblocked(g, L):
    from s2sad.runtime import products
    block, products._CHOLESKY_BLOCK = products._CHOLESKY_BLOCK, 10 ** 9
    try:
        return products.cholesky_grad(g, L)
    finally:
        products._CHOLESKY_BLOCK = block


@pytest.mark.parametrize("n, block", [(7, 1), (7, 2), (7, 3), (9, 4), (8, 8), (130, 64)])
def test_blocked_cholesky_adjoint_is_the_formula(n, block):
    from s2sad.runtime.products import _cholesky_grad_blocked
    x = rng.normal(size=(n, n))
    L = np.linalg.cholesky(x @ x.T + n * np.eye(n))
    g = rng.normal(size=(n, n))
    expected = _unblocked(g, L)
    assert np.allclose(_cholesky_grad_blocked(g, L, block), expected, rtol=1e-10, atol=1e-12)
    found = _cholesky_grad_blocked(g.astype(np.float32), L.astype(np.float32), block)
    assert found.dtype == np.float32 and np.allclose(found, expected, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("func", [big_cholesky_lower, big_cholesky_upper, big_np_cholesky])
def test_large_cholesky_gradient(func):
    got = s2sad.grad(func)(BIG_A)
    assert np.allclose(got, got.T)
    along = (func(BIG_A + EPS * BIG_D) - func(BIG_A - EPS * BIG_D)) / (2 * EPS)
    assert np.isclose(np.sum(got * BIG_D), along, rtol=1e-6)
    from s2sad.runtime import products
    assert BIG > products._CHOLESKY_BLOCK   # (the blocked algorithm ran)
    assert s2sad.grad(func)(BIG_A.astype(np.float32)).dtype == np.float32


def test_large_cholesky_second_order():
    hvp = s2sad.hvp(big_cholesky_lower)(BIG_A, BIG_D)
    grad = s2sad.grad(big_cholesky_lower)
    along = (grad(BIG_A + EPS * BIG_D) - grad(BIG_A - EPS * BIG_D)) / (2 * EPS)
    assert np.allclose(hvp, along, rtol=1e-5, atol=1e-6)
