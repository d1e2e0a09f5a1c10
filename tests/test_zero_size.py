"""Zero-size arrays through the rule groups of issue 34 (scipy.stats, scipy.linalg,
scipy.signal, np.fft and scipy.fft, numpy_more, complex numbers, and the NumPy gaps
written as implementations): shapes (0,), (0, 3), (3, 0) and (0, 0) where they mean
something. Where NumPy (or SciPy) computes the value, the gradient of a zero-size argument
is a zero-size array of its shape and dtype, and the other argument's is right; where it
raises, the gradient raises NumPy's own error, never an internal one."""

import numpy as np
import pytest

import s2sad

sc = pytest.importorskip("scipy.special")
st = pytest.importorskip("scipy.stats")
sl = pytest.importorskip("scipy.linalg")
sg = pytest.importorskip("scipy.signal")
sfft = pytest.importorskip("scipy.fft")

EPS = 1e-6
K = np.array([0.5, -1.0, 2.0])

# (name, f(z, x): a number, the shapes of z to try)
V0, M03, M30, M00 = (0,), (0, 3), (3, 0), (0, 0)
ROWS = [
    # scipy.stats
    ("norm.logpdf", lambda z, x: np.sum(st.norm.logpdf(z, x, 2.0)) + x, [V0, M03]),
    ("norm.cdf", lambda z, x: np.sum(st.norm.cdf(z * x, 0.5, x)) + x, [V0, M30]),
    ("t.logsf", lambda z, x: np.sum(st.t.logsf(z, 3.0, x)) + x, [V0, M03]),
    ("gamma.pdf", lambda z, x: np.sum(st.gamma.pdf(z + 1.0, x)) + x, [V0, M03]),
    ("beta.logcdf", lambda z, x: np.sum(st.beta.logcdf(z, 2.0, 3.0, 0.0, x)) + x, [V0]),
    ("lognorm.sf", lambda z, x: np.sum(st.lognorm.sf(z + 1.0, x)) + x, [V0, M30]),
    ("poisson.logpmf", lambda z, x: np.sum(st.poisson.logpmf(3.0, z + x)) + x, [V0, M03]),
    ("nbinom.pmf", lambda z, x: np.sum(st.nbinom.pmf(2.0, z + x, 0.4)) + x, [V0]),
    ("dirichlet.logpdf", lambda z, x: np.sum(st.dirichlet.logpdf(
        np.full((3, 0), 1.0 / 3.0) + z.T, np.ones(3) * x)) + x, [M03]),
    ("multivariate_normal.logpdf", lambda z, x: np.sum(st.multivariate_normal.logpdf(
        z, np.zeros(3), np.eye(3) * x)) + x, [M03]),
    # scipy.linalg
    ("solve_triangular", lambda z, x: np.sum(sl.solve_triangular(np.eye(3) * x, z.T)) + x,
     [M03]),
    ("solve_triangular-empty", lambda z, x: np.sum(sl.solve_triangular(z, z)) + x, [M00]),
    ("cholesky", lambda z, x: np.sum(sl.cholesky(z + z.T)) + x, [M00]),
    ("cho_solve", lambda z, x: np.sum(sl.cho_solve(sl.cho_factor(np.eye(3) * x), z.T)) + x,
     [M03]),
    ("lu_factor", lambda z, x: np.sum(sl.lu_factor(z)[0]) + x, [M00]),
    ("lu_solve", lambda z, x: np.sum(sl.lu_solve(sl.lu_factor(np.eye(3) * x), z.T)) + x, [M03]),
    ("solve", lambda z, x: np.sum(sl.solve(np.eye(3) * x, z.T)) + x, [M03]),
    ("inv", lambda z, x: np.sum(sl.inv(z)) + x, [M00]),
    ("det", lambda z, x: sl.det(z) * x, [M00]),
    ("eigh", lambda z, x: np.sum(sl.eigh(z, eigvals_only=True)) + x, [M00]),
    ("expm", lambda z, x: np.sum(sl.expm(z * x)) + x, [M00]),
    ("block_diag", lambda z, x: np.sum(sl.block_diag(z, np.eye(2) * x) ** 2), [M03, M30, M00]),
    ("toeplitz", lambda z, x: np.sum(sl.toeplitz(z, np.ones(3) * x) ** 2), [V0]),
    ("toeplitz-alone", lambda z, x: np.sum(sl.toeplitz(z * x)) + x, [V0]),
    ("solve_sylvester", lambda z, x: np.sum(sl.solve_sylvester(z, z, z * x)) + x, [M00]),
    # scipy.signal
    ("convolve", lambda z, x: np.sum(sg.convolve(z, K * x)) + x, [V0]),
    ("correlate-valid", lambda z, x: np.sum(sg.correlate(K * x, z, "full")) + x, [V0]),
    ("fftconvolve", lambda z, x: np.sum(sg.fftconvolve(z, K * x)) + x, [V0]),
    ("convolve2d", lambda z, x: np.sum(sg.convolve2d(z, np.ones((2, 2)) * x)) + x, [M03, M30]),
    ("correlate2d", lambda z, x: np.sum(sg.correlate2d(np.ones((2, 2)) * x, z, "same")) + x,
     [M03]),
    ("oaconvolve", lambda z, x: np.sum(sg.oaconvolve(K * x, z)) + x, [V0]),
    # np.fft and scipy.fft
    ("fft", lambda z, x: np.sum(np.abs(np.fft.fft(z * x, axis=0)) ** 2) + x, [M03, V0]),
    ("rfft", lambda z, x: np.sum(np.abs(np.fft.rfft(z * x)) ** 2) + x, [M30, V0]),
    ("irfft", lambda z, x: np.sum(np.fft.irfft(z * x, 4, axis=0) ** 2) + x, [M03]),
    ("fft2", lambda z, x: np.sum(np.abs(np.fft.fft2(z * x)) ** 2) + x, [M03, M30]),
    ("fftshift", lambda z, x: np.sum(np.fft.fftshift(z) * x) + x, [V0, M03]),
    ("scipy.fft.rfftn", lambda z, x: np.sum(np.abs(sfft.rfftn(z * x)) ** 2) + x, [M03]),
    ("scipy.fft.ifft", lambda z, x: np.sum(np.abs(sfft.ifft(z * x, axis=0)) ** 2) + x, [M03]),
    # numpy_more: pinv, lstsq, qr, row_stack
    ("pinv", lambda z, x: np.sum(np.linalg.pinv(z * x)) + x, [M03, M30]),
    ("lstsq", lambda z, x: np.sum(np.linalg.lstsq(np.eye(3) * x, z.T, rcond=None)[0]) + x,
     [M03]),
    ("qr", lambda z, x: np.sum(np.linalg.qr(z * x)[1]) + x, [M30, M03]),
    # the NumPy gaps written as implementations
    ("gradient", lambda z, x: np.sum(np.gradient(z * x, axis=0)) + x, [M30]),
    ("rollaxis", lambda z, x: np.sum(np.rollaxis(z, 1) * x) + x, [M03, M30]),
    ("select", lambda z, x: np.sum(np.select([z > 0], [z * x], 1.0)) + x, [V0, M03]),
    ("insert", lambda z, x: np.sum(np.insert(z, 0, x) ** 2), [V0]),
    ("delete", lambda z, x: np.sum(np.delete(z * x, [], axis=0)) + x, [M03]),
    ("matrix_power", lambda z, x: np.sum(np.linalg.matrix_power(z * x, 3)) + x, [M00]),
    ("partition", lambda z, x: np.sum(np.partition(z * x, 0, axis=0)) + x, [M03, M30]),
    ("piecewise", lambda z, x: np.sum(np.piecewise(z, [z < 0.0], [1.0, x])) + x, [V0]),
    ("cross", lambda z, x: np.sum(np.cross(z, z * x, axisa=1, axisb=1)) + x, [M03]),
    ("svdvals", lambda z, x: np.sum(np.linalg.svd(z * x, compute_uv=False)) + x, [M03, M30]),
    ("pad-reflect", lambda z, x: np.sum(np.pad(z * x, ((1, 1), (0, 0)), "edge")) + x, [M03]),
    ("kron", lambda z, x: np.sum(np.kron(z, np.ones((2, 2)) * x)) + x, [M03, M30]),
    # complex numbers
    ("complex-abs2", lambda z, x: np.sum(np.abs(z * (1.0 + 1.0j) * x) ** 2) + x, [V0, M03]),
    ("complex-angle", lambda z, x: np.sum(np.angle(z + 1.0j * x)) + x, [V0]),
    ("complex-real-imag", lambda z, x: np.sum(np.real(z * 1j * x) + np.imag(z * x)) + x,
     [M30]),
]


def _outcome(f, *args):
    try:
        return f(*args), None
    except Exception as exc:  # NumPy's own error, to be matched
        return None, exc


CASES = [(name, f, shape) for name, f, shapes in ROWS for shape in shapes]


@pytest.mark.parametrize("name, f, shape", CASES,
                         ids=[f"{name}-{'x'.join(map(str, shape))}" for name, f, shape in CASES])
def test_a_zero_size_argument(name, f, shape):
    z = np.zeros(shape)
    error = _outcome(f, z, 0.7)[1]
    if error is not None:  # NumPy errors on the forward call: so does the gradient, the same
        with pytest.raises(type(error)):
            s2sad.grad(f, wrt=(0, 1))(z, 0.7)
        return
    gz, gx = s2sad.grad(f, wrt=(0, 1))(z, 0.7)
    assert isinstance(gz, np.ndarray) and gz.shape == z.shape and gz.dtype == z.dtype
    expected = (f(z, 0.7 + EPS) - f(z, 0.7 - EPS)) / (2 * EPS)
    np.testing.assert_allclose(gx, expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(s2sad.jvp(f, wrt=1)(z, 0.7)[1](1.0), expected, rtol=1e-6,
                               atol=1e-9)
    assert s2sad.jvp(f, wrt=0)(z, 0.7)[1](z) == 0.0


@pytest.mark.parametrize("name, f, shape", CASES[:6] + CASES[-6:],
                         ids=[f"{name}-{'x'.join(map(str, shape))}"
                              for name, f, shape in CASES[:6] + CASES[-6:]])
def test_float32_zero_size_gradient_stays_float32(name, f, shape):
    z = np.zeros(shape, dtype=np.float32)
    if _outcome(f, z, 0.7)[1] is not None:
        pytest.skip("NumPy raises on this call")
    gz = s2sad.grad(f)(z, 0.7)
    assert gz.shape == z.shape and gz.dtype == np.float32
