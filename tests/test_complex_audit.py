"""Complex values through every rule that takes them (an audit of the table): each case
was silently wrong, or failed inside s2sad, before its complex rule. Gradients in
autograd's convention (``df/dx - i df/dy``, tests/test_complex.py) against central
differences, forward mode against them along a complex direction, values against NumPy's
and SciPy's own, second order where SciPy has it, and the refusals where it has not."""

import inspect

import numpy as np
import pytest
import scipy.linalg as sl
import scipy.signal as ss
import scipy.special as sp

import s2sad
from s2sad.errors import DifferentiationError
from test_complex import complex_gradient

Z = np.array([0.7 + 0.2j, -0.4 + 0.5j, 1.2 - 0.3j])
W = np.array([0.5 - 0.1j, 0.3 + 0.4j])
X = np.array([0.7, -0.4, 1.2])
H0 = np.array([[3.0, 0.5 - 0.2j, 0.1j], [0.5 + 0.2j, 2.5, -0.3], [-0.1j, -0.3, 2.8]])
K = np.array([[0.3, -1.2, 0.8], [1.1, 0.4, -0.6], [-0.9, 0.7, 0.2]])
KC = K + 1j * np.array([[0.5, 0.1, -0.7], [-0.2, 0.9, 0.3], [0.6, -0.4, 1.0]])
M0 = np.array([[2.0 + 0.3j, 0.4 - 0.2j, -0.3j], [0.2 + 0.1j, 1.7 - 0.4j, 0.5],
               [-0.6 + 0.2j, 0.3j, 2.2 + 0.1j]])


def hermitian(z):  # Hermitian positive definite for every z
    return H0 + np.outer(z, np.conj(z))


# --- scipy.linalg and np.linalg.qr on complex matrices ---------------------------------------

def sl_cholesky_lower(z):
    return np.sum(np.abs(sl.cholesky(hermitian(z), lower=True)) ** 2 * K)


def sl_cholesky_upper(z):
    return np.real(np.sum(sl.cholesky(hermitian(z)) * KC))


def sl_cho_factor(z):
    c, low = sl.cho_factor(hermitian(z), lower=True)
    return np.real(np.sum(np.tril(c) * KC))


# (of the eigenvectors, functions their signs do not change: SciPy's evr driver may flip a
# vector's sign between matrices 1e-6 apart, where central differences jump)
def sl_eigh(z):
    w, v = sl.eigh(hermitian(z))
    return np.sum(w * np.arange(3.0)) + np.abs(v[0, 0]) ** 2 + \
        np.real(np.sum(v * np.conj(v[::-1]) * KC))


def sl_eigh_upper(z):
    w, v = sl.eigh(hermitian(z), lower=False)
    return np.sum(w ** 2) + np.sum(np.abs(v) ** 2 * K)


def sl_eigvals_only(z):
    return np.sum(sl.eigh(hermitian(z), eigvals_only=True) * np.array([1.0, -2.0, 0.5]))


def sl_solve_her(z):
    return np.sum(np.abs(sl.solve(hermitian(z), z, assume_a="her")) ** 2)


def sl_solve_pos_upper(z):
    return np.real(np.sum(sl.solve(hermitian(z), z * 1j, assume_a="pos", lower=False) * W[0]))


def sl_cho_solve(z):
    return np.sum(np.abs(sl.cho_solve(sl.cho_factor(hermitian(z)), z)) ** 2)


def sl_cho_solve_lower(z):
    return np.real(np.sum(sl.cho_solve(sl.cho_factor(hermitian(z), lower=True), z) * KC[0]))


def sl_solve_triangular_c(z):
    return np.sum(np.abs(sl.solve_triangular(np.triu(hermitian(z)), z, trans="C")) ** 2)


def sl_solve_triangular_c_lower(z):
    return np.real(np.sum(sl.solve_triangular(np.tril(M0 + np.outer(z, z)), z, trans=2,
                                              lower=True) * KC[1]))


def sl_lu(z):  # (p is real: its item of the sensitivity took a complex sum)
    out = sl.lu(M0 + np.outer(z, z))
    return np.real(np.sum(out[0] * KC) + np.sum(out[1] * KC) + np.sum(out[2] * KC.T))


def sl_toeplitz(z):
    return np.real(np.sum(sl.toeplitz(z) * KC))


def np_qr_square(z):
    q, r = np.linalg.qr(hermitian(z))
    return np.sum(np.abs(r) ** 2 * K) + np.real(np.sum(q * KC))


def np_qr_tall(z):
    q, r = np.linalg.qr(np.concatenate([M0, z[None, :]]) * (1.0 + z[0]))
    return np.real(np.sum(q[:3] * KC) + np.sum(r * KC.T))


def np_qr_wide(z):
    q, r = np.linalg.qr(np.concatenate([M0, z[:, None]], axis=1))
    return np.real(np.sum(q * KC) + np.sum(r[:, 1:] * KC.T))


# --- convolutions ------------------------------------------------------------------------------

def sig_convolve(z):
    return np.sum(np.abs(ss.convolve(z, W)) ** 2)


def sig_convolve_self(z):
    return np.sum(np.abs(ss.convolve(z, z * (1.0 - 0.5j), "same")) ** 2)


def sig_correlate(z):
    return np.sum(np.abs(ss.correlate(z, W)) ** 2)


def sig_correlate_second(z):  # (correlate conjugates its second input)
    return np.real(np.sum(ss.correlate(W, z, "full") * np.array([1.0, 2j, -1.0, 0.5])))


def sig_convolve2d(z):
    return np.sum(np.abs(ss.convolve2d(np.outer(z, z), W.reshape(1, 2), "same")) ** 2)


def sig_correlate2d(z):
    return np.real(np.sum(ss.correlate2d(W.reshape(2, 1), np.outer(z, z[:2])) * 1j))


def np_convolve(z):
    return np.sum(np.abs(np.convolve(z, W)) ** 2)


def np_convolve_same(z):
    return np.sum(np.abs(np.convolve(z, np.array([0.5, 0.3]), "same")) ** 2)


def np_cov(z):
    return np.abs(np.cov(z, z[::-1]))[0, 1]


def np_nanvar(z):
    return np.nanvar(z)


def np_nanstd(z):
    return np.nanstd(z * (1.0 + 0.5j), ddof=1)


# --- functions of NumPy found by the audit ---------------------------------------------------

def np_arccosh(z):  # (Re(z) < 0: sqrt(z^2 - 1) has the other sign)
    return np.real(np.sum(np.arccosh(z - 1.0) * KC[0]))


def np_vecdot(z):
    return np.real(np.vecdot(z, W[0] * z[::-1]) * (1.0 + 2.0j))


def np_vector_norm(z):
    return np.linalg.vector_norm(z * W[1]) + np.linalg.vector_norm(z, ord=3)


def np_matrix_norm(z):
    return np.linalg.matrix_norm(np.outer(z, z) + M0)


def np_float64(z):
    return np.real(np.sum(np.float64(z * W[0]) * KC[0]))


CASES = [sl_cholesky_lower, sl_cholesky_upper, sl_cho_factor, sl_eigh, sl_eigh_upper,
         sl_eigvals_only, sl_solve_her, sl_solve_pos_upper, sl_cho_solve, sl_cho_solve_lower,
         sl_solve_triangular_c, sl_solve_triangular_c_lower, sl_lu, sl_toeplitz, np_qr_square,
         np_qr_tall, np_qr_wide, sig_convolve, sig_convolve_self, sig_correlate,
         sig_correlate_second, sig_convolve2d, sig_correlate2d, np_convolve, np_convolve_same,
         np_cov, np_nanvar, np_nanstd, np_arccosh, np_vector_norm, np_matrix_norm, np_float64]
if not hasattr(np, "vecdot"):  # pragma: no cover  (NumPy < 2.0)
    CASES = [f for f in CASES if f.__name__ not in ("np_vecdot", "np_vector_norm",
                                                      "np_matrix_norm")]
else:
    CASES.append(np_vecdot)


# (np.float64 of a complex value: NumPy warns that it keeps the real part)
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_value_and_gradient_against_central_differences(f):
    value, got = s2sad.value_and_grad(f)(Z)
    np.testing.assert_allclose(value, f(Z), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, complex_gradient(f, (Z,), 0), rtol=1e-6, atol=1e-7)


# (the convolutions' and lu's tangents were right already)
FORWARD = [f for f in CASES if f not in (sl_lu, sl_toeplitz, sig_convolve, sig_convolve_self,
                                         sig_correlate, sig_correlate_second, sig_convolve2d,
                                         sig_correlate2d) and f.__name__ != "np_vecdot"]


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("f", FORWARD, ids=lambda f: f.__name__)
def test_forward_mode_against_central_differences(f):
    _, push = s2sad.jvp(f)(Z)
    for d in (np.array([1.0, -2.0, 0.5]), np.array([0.3 + 1.0j, -0.5j, 1.0 - 0.2j])):
        step = 1e-6
        expected = (f(Z + step * d) - f(Z - step * d)) / (2 * step)
        np.testing.assert_allclose(push(d), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", [sl_cholesky_lower, sl_solve_triangular_c, sl_cho_solve,
                               sl_solve_her, np_qr_wide, sig_correlate_second, sig_convolve2d,
                               np_convolve, np_nanvar, np_arccosh, sl_toeplitz],
                         ids=lambda f: f.__name__)
def test_second_order(f):
    s2sad.check_grads(f, (Z,), order=2)


def test_a_real_argument_with_a_complex_kernel():
    def f(x):
        return np.sum(np.abs(ss.convolve(x, W)) ** 2) + np.sum(np.abs(np.convolve(x, W)) ** 2)
    got = s2sad.grad(f)(X)
    assert not np.iscomplexobj(got)
    np.testing.assert_allclose(got, complex_gradient(f, (X,), 0), rtol=1e-6, atol=1e-7)


def test_nanvar_of_complex_values_is_real_as_numpy_makes_it():
    def f(z):
        return np.nanvar(z) + np.nanstd(z, axis=0)
    z = np.array([0.7 + 0.2j, np.nan + 0.0j, 1.2 - 0.3j, 0.3 + 0.9j])
    value, got = s2sad.value_and_grad(f)(z)
    assert np.isclose(value, f(z)) and not np.iscomplexobj(value)
    np.testing.assert_allclose(got[[0, 2, 3]], complex_gradient(f, (z,), 0)[[0, 2, 3]],
                               rtol=1e-6, atol=1e-7)


def test_real_programs_keep_their_rules():
    def f(a):
        return np.sum(sl.cholesky(a @ a.T + np.eye(3), lower=True) * K)
    a = K + 2.0 * np.eye(3)
    assert "conj" not in s2sad.grad(f).source
    np.testing.assert_allclose(s2sad.grad(f)(a), complex_gradient(f, (a,), 0), rtol=1e-6,
                               atol=1e-7)


# --- refusals where SciPy has no derivative: at the user's line, with advice -----------------

def digamma_of_complex(z):
    return np.sum(np.abs(sp.digamma(z + 2.0)) ** 2)


def gamma_of_complex(z):
    return np.sum(np.abs(sp.gamma(z + 2.0)) ** 2)


def lu_solve_conjugated(z):
    return np.sum(np.abs(sl.lu_solve(sl.lu_factor(M0 + np.outer(z, z)), z, trans=2)) ** 2)


def lyapunov_of_complex(z):
    return np.sum(np.abs(sl.solve_continuous_lyapunov(M0 * z[0], np.outer(z, np.conj(z)))))


def _line(f, text):
    lines, start = inspect.getsourcelines(f)
    return start + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("f, how, name, advice", [
    (digamma_of_complex, "grad", "scipy.special.digamma", "polygamma"),
    (digamma_of_complex, "jvp", "scipy.special.digamma", "polygamma"),
    (gamma_of_complex, "hvp", "scipy.special.digamma", "polygamma"),
    (lu_solve_conjugated, "grad", "scipy.linalg.lu_solve", "trans=1"),
    (lu_solve_conjugated, "jvp", "scipy.linalg.lu_solve", "trans=1"),
    (lyapunov_of_complex, "grad", "scipy.linalg.solve_continuous_lyapunov", "solve_sylvester"),
], ids=lambda v: v.__name__ if callable(v) else str(v))
def test_complex_values_without_a_derivative_are_refused_at_the_line(f, how, name, advice):
    with pytest.raises(DifferentiationError) as caught:
        if how == "grad":
            s2sad.grad(f)(Z)
        elif how == "jvp":
            s2sad.jvp(f)(Z)[1](np.ones(3, complex))
        else:
            s2sad.hvp(f)(Z, np.ones(3, complex))
    text = str(caught.value)
    assert name in text and "complex" in text and advice in text
    call = {"digamma_of_complex": "sp.digamma", "gamma_of_complex": "sp.gamma",
            "lu_solve_conjugated": "sl.lu_solve",
            "lyapunov_of_complex": "sl.solve_continuous_lyapunov"}[f.__name__]
    assert f"line {_line(f, call)}" in text


def test_the_first_order_of_gamma_of_complex_values_still_holds():
    np.testing.assert_allclose(s2sad.grad(gamma_of_complex)(Z),
                               complex_gradient(gamma_of_complex, (Z,), 0), rtol=1e-6,
                               atol=1e-7)


def test_real_values_of_the_refused_functions_still_differentiate():
    def f(x):
        return np.sum(sl.lu_solve(sl.lu_factor(K + 3.0 * np.eye(3)), x, trans=2) ** 2) + \
            np.sum(sp.digamma(x + 2.0) ** 2)
    np.testing.assert_allclose(s2sad.grad(f)(X), complex_gradient(f, (X,), 0), rtol=1e-6,
                               atol=1e-7)


# --- NumPy's stand-ins: a program with complex values takes their twins for them ---------------

WR = np.array([0.5, 0.3])


def rotated(x):
    return x * (1.0 + 2.0j)


def convolve_hidden(x):  # (the complex values are made in a function inlined)
    return np.sum(np.abs(np.convolve(rotated(x), WR)) ** 2)


def cov_hidden(x):
    return np.abs(np.cov(rotated(x), x ** 2)[0, 1]) ** 2


def test_complex_values_made_in_an_inlined_function_are_refused_at_the_stand_in():
    with pytest.raises(DifferentiationError) as caught:
        s2sad.grad(cov_hidden)(X)
    text = str(caught.value)
    assert "numpy.cov" in text and "complex" in text
    assert f"line {_line(cov_hidden, 'np.cov')}" in text
    assert "argument" in text  # (the advice)


def test_a_stand_in_that_holds_for_complex_values_takes_them_from_an_inlined_function():
    """np.convolve's stand-in adds padded copies: one definition for real and complex."""
    np.testing.assert_allclose(s2sad.grad(convolve_hidden)(X),
                               complex_gradient(convolve_hidden, (X,), 0), rtol=1e-6, atol=1e-7)


def test_a_real_program_keeps_the_real_stand_ins():
    def f(x):
        return np.sum(np.convolve(x, WR) ** 2) + np.cov(x, x ** 2)[0, 1] + np.nanvar(x)
    source = s2sad.grad(f).source
    assert "np.conj" not in source
    np.testing.assert_allclose(s2sad.grad(f)(X), complex_gradient(f, (X,), 0), rtol=1e-6,
                               atol=1e-7)
