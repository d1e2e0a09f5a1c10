"""``np.linalg.eig`` and ``eigvals`` of general matrices, and ``svd``, ``cholesky`` and
``eigh`` of complex ones (autograd's convention). Each case's gradient against central
differences along the real and imaginary parts, forward mode against them too, second order
by ``check_grads``; eigen- and singular vectors as NumPy's LAPACK normalizes them, so
functions of their phases are exact; NaN where a derivative does not exist."""

import numpy as np
import pytest

import s2sad
from s2sad.runtime.matrices import largest_rows, phase_checked
from test_complex import complex_gradient

rng = np.random.default_rng(34)
A = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
R = np.array([[0.9, -1.2, 0.3], [0.8, 0.4, -0.5], [0.1, 0.7, 1.1]])  # complex eigenvalues
T = np.array([[1.3, 0.4, -0.2], [0.1, 0.5, 0.3], [0.2, -0.1, -0.7]])  # real eigenvalues
TALL = A[:, :2]
WIDE = A[:2, :] * (1.0 - 0.5j)
STACK = rng.standard_normal((2, 3, 3)) + 1j * rng.standard_normal((2, 3, 3))
WEIGHTS = np.arange(1.0, 10.0).reshape(3, 3) + 1j * np.arange(9.0).reshape(3, 3)[::-1]


def _weighted(m):
    """A real function of every entry, real and imaginary parts (no phase invariance)."""
    k, n = np.shape(m)[-2:]
    return np.real(np.sum(m * WEIGHTS[:k, :n])) + np.sum(np.imag(m) ** 2)


# --- eig and eigvals ---------------------------------------------------------------------

def eigvals_modulus(a):
    return np.sum(np.abs(np.linalg.eigvals(a)) ** 2 * np.arange(1.0, 4.0))


def eigvals_parts(a):
    w = np.linalg.eigvals(a)
    return np.real(np.sum(w * (1.0 + 2.0j))) + np.sum(np.imag(w) ** 3)


def eig_values(a):
    w, v = np.linalg.eig(a)
    return np.sum(np.abs(w) * np.arange(1.0, 4.0)) + np.real(np.prod(w))


def eig_vectors(a):
    # (the phases and the norms of the vectors, as NumPy chooses them)
    w, v = np.linalg.eig(a)
    return _weighted(v) + np.sum(np.abs(w))


def eig_vectors_invariant(a):
    # (functions the vectors' scale and phase do not change)
    w, v = np.linalg.eig(a)
    square = v @ np.diag(w ** 2) @ np.linalg.inv(v)
    return np.sum(np.abs(square) ** 2) + np.sum(np.abs(v[0] / v[1]))


def eig_stack(a):
    w, v = np.linalg.eig(a)
    return np.sum(np.abs(w) ** 2) + np.sum(np.abs(v) ** 3) + np.real(np.sum(v[..., 0, :]))


# --- svd, cholesky and eigh of complex matrices ----------------------------------------------

def svd_reduced(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return _weighted(u) + _weighted(vh) + np.sum(s ** 2 * np.arange(1.0, np.size(s) + 1.0))


def svd_full(a):
    u, s, vh = np.linalg.svd(a)
    k = np.size(s)
    return _weighted(u[:, :k]) + _weighted(vh[:k]) + np.sum(s)


def svd_values(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) * np.arange(1.0, 3.0))


def svd_invariant(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(np.abs(u @ vh) ** 2 * WEIGHTS.real[:np.shape(a)[0], :np.shape(a)[1]])


def cholesky_lower(a):
    return _weighted(np.linalg.cholesky(a @ np.conj(a.T) + np.eye(3)))


def cholesky_upper(a):
    return _weighted(np.linalg.cholesky(a @ np.conj(a.T) + np.eye(3), upper=True))


def eigh_lower(a):
    w, v = np.linalg.eigh(a + np.conj(a.T))
    return _weighted(v) + np.sum(w * np.arange(3.0))


def eigh_upper(a):
    w, v = np.linalg.eigh(a @ np.conj(a.T), UPLO="U")
    return _weighted(v) + np.sum(w ** 2)


TABLE = [
    (eigvals_modulus, A), (eigvals_modulus, R), (eigvals_modulus, T), (eigvals_parts, A),
    (eigvals_parts, R), (eig_values, A), (eig_values, R), (eig_vectors, A), (eig_vectors, R),
    (eig_vectors, T), (eig_vectors_invariant, A), (eig_vectors_invariant, R),
    (eig_stack, STACK), (svd_reduced, A), (svd_reduced, TALL), (svd_reduced, WIDE),
    (svd_full, TALL), (svd_full, WIDE), (svd_values, TALL), (svd_values, WIDE),
    (svd_invariant, WIDE), (cholesky_lower, A), (cholesky_upper, A), (eigh_lower, A),
    (eigh_upper, A),
]
if not hasattr(np.linalg, "svdvals"):  # (NumPy < 2.0: no upper=)
    TABLE.remove((cholesky_upper, A))
IDS = [f"{f.__name__}-{'x'.join(map(str, np.shape(a)))}-{a.dtype.kind}" for f, a in TABLE]


@pytest.mark.parametrize("f, a", TABLE, ids=IDS)
def test_gradient_against_central_differences(f, a):
    got = s2sad.grad(f)(a)
    assert got.dtype == a.dtype
    np.testing.assert_allclose(got, complex_gradient(f, (a,), 0), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f, a", TABLE, ids=IDS)
def test_forward_mode_against_central_differences(f, a):
    _, push = s2sad.jvp(f)(a)
    step = 1e-6
    shape = np.shape(a)
    for direction in ((np.ones(shape), 1j * np.ones(shape)) if np.iscomplexobj(a) else
                      (np.ones(shape),)):
        direction = direction * np.cos(np.arange(np.size(a)).reshape(shape))
        want = (f(a + step * direction) - f(a - step * direction)) / (2 * step)
        np.testing.assert_allclose(push(direction), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f, a", TABLE, ids=IDS)
def test_check_grads_second_order_real_and_imaginary_directions(f, a):
    s2sad.check_grads(f, (a,), order=2)


def test_the_eigenvalues_rule_is_v_inverse_transposed_diag_g_v_transposed():
    # d w = diag(v^-1 da v): the gradient of Re(sum(c * w)) is v^-T diag(c) v^T
    c = np.array([1.0, 2.0j, -0.5])
    w, v = np.linalg.eig(A)
    want = np.linalg.solve(v.T, np.diag(c) @ v.T)
    np.testing.assert_allclose(s2sad.grad(lambda a: np.real(np.sum(np.linalg.eigvals(a) * c)))(A),
                               want, rtol=1e-12)


def eig_both(a):
    return np.linalg.eig(a)


def test_real_matrix_real_eigenvalues_real_results():
    """Every eigenvalue real: NumPy < 2.5 gives real arrays, NumPy 2.5 complex ones (always
    complex). s2sad's values have NumPy's dtypes; a real matrix's derivatives are real."""
    w, v = np.linalg.eig(T)
    assert np.all(np.imag(w) == 0)
    for transform in (s2sad.vjp, s2sad.jvp):
        got_w, got_v = transform(eig_both)(T)[0]
        assert (got_w.dtype, got_v.dtype) == (w.dtype, v.dtype), transform.__name__
        np.testing.assert_allclose(got_w, w, rtol=1e-13)
    got = s2sad.grad(eig_vectors)(T)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, complex_gradient(eig_vectors, (T,), 0), rtol=1e-6,
                               atol=1e-6)
    assert s2sad.jvp(eig_vectors)(T)[1](np.ones((3, 3))).dtype == np.float64


def test_single_precision_is_kept():
    for f, a in ((eigvals_modulus, A), (eig_vectors, A), (svd_reduced, TALL),
                 (cholesky_lower, A), (eigh_lower, A)):
        got = s2sad.grad(f)(a.astype(np.complex64))
        assert got.dtype == np.complex64, f.__name__
        np.testing.assert_allclose(got, s2sad.grad(f)(a), rtol=2e-3, atol=2e-3)
    assert s2sad.grad(eig_vectors)(R.astype(np.float32)).dtype == np.float32


# --- where no derivative exists: NaN or infinite, never a finite wrong number ---------------

def test_repeated_eigenvalues_give_no_finite_eigenvector_derivative():
    s = A + 2.0 * np.eye(3)
    a = s @ np.diag([2.0 + 1.0j, 2.0 + 1.0j, 1.0]) @ np.linalg.inv(s)
    with np.errstate(invalid="ignore"):  # (NumPy says so too: inf * 0 in a product)
        assert not np.all(np.isfinite(s2sad.grad(eig_vectors)(a)))
        assert not np.all(np.isfinite(s2sad.jvp(eig_vectors)(a)[1](WEIGHTS)))
    np.testing.assert_allclose(s2sad.grad(eigvals_parts)(a),
                               complex_gradient(eigvals_parts, (a,), 0), rtol=1e-5)


def test_tied_largest_entries_give_nan_for_the_phase_but_not_for_the_values():
    rotation = np.array([[0.5, 1.0], [-1.0, 0.5]])  # eigenvectors (1, +-i) / sqrt(2)

    def phase(a):
        return np.real(np.sum(np.linalg.eig(a)[1] * np.array([[1.0, 2.0], [3.0, 4.0j]])))

    def values(a):
        return np.sum(np.abs(np.linalg.eig(a)[0]) ** 2)
    with np.errstate(invalid="ignore"):  # (0 * inf: the phase has no derivative)
        assert np.all(np.isnan(s2sad.grad(phase)(rotation)))
        assert np.all(np.isnan(s2sad.jvp(phase)(rotation)[1](np.ones((2, 2)))))
    np.testing.assert_allclose(s2sad.grad(values)(rotation),
                               complex_gradient(values, (rotation,), 0), rtol=1e-6)


def test_which_entry_numpy_made_real():
    w, v = np.linalg.eig(A)
    rows = largest_rows(v, A)
    np.testing.assert_array_equal(np.sum(rows, axis=0), np.ones(3))
    np.testing.assert_allclose(np.imag(np.sum(rows * v, axis=0)), 0.0, atol=1e-15)
    assert np.all(np.real(np.sum(rows * v, axis=0)) > 0)  # (zgeev: real and positive)


def test_a_lapack_with_other_phases_is_refused():
    u = np.linalg.svd(A)[0]
    assert phase_checked(np.linalg.svd(A)[2].conj().T, 0, "svd") == 1.0
    with pytest.raises(s2sad.DifferentiationError, match="phases are not the ones"):
        phase_checked(u * np.exp(0.3j), 0, "svd")


def test_eig_is_no_longer_refused_and_is_listed():
    names = s2sad.supported()
    assert "numpy.linalg.eig" in names and "numpy.linalg.eigvals" in names
