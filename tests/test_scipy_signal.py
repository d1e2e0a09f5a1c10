"""scipy.signal's convolutions: each one's gradient in both inputs against central
differences, forward mode against reverse, second derivatives against differences of the
gradient, and what is not modeled (other boundaries, ``axes``, ``scipy.ndimage``) refused
at the user's line (skipped where SciPy is missing)."""

import inspect

import numpy as np
import pytest

sg = pytest.importorskip("scipy.signal")
import scipy.ndimage  # noqa: E402

import s2sad  # noqa: E402
from test_higher_order import central_differences  # noqa: E402

EPS = 1e-6
rng = np.random.default_rng(35)
A = rng.normal(size=7)
K = np.array([0.5, -1.0, 2.0, 0.25])        # even: "same" is centered one way or the other
K3 = np.array([1.0, -0.5, 0.3])
M = rng.normal(size=(5, 6))
KM = np.array([[1.0, -0.5, 0.2], [0.25, 2.0, -1.0]])
T = rng.normal(size=(4, 3, 5))
KT = rng.normal(size=(2, 2, 3))


def _weights(n):
    return np.cos(np.arange(n) * 0.7) + 0.1  # (not symmetric: a flip would show)


# --- one dimension: the modes and the methods ------------------------------------------------

def convolve_full(a, k):
    y = sg.convolve(a, k)
    return np.sum(y * _weights(y.shape[0])) + np.sum(y * y)


def convolve_same(a, k):
    y = sg.convolve(a, k, mode="same")
    return np.sum(y * _weights(y.shape[0])) + np.sum(y ** 3)


def convolve_valid_fft(a, k):
    y = sg.convolve(a, k, "valid", method="fft")
    return np.sum(y * _weights(y.shape[0])) + np.sum(y * y)


def convolve_valid_swapped(a, k):  # (the kernel longer: SciPy swaps them)
    y = sg.convolve(k, a[:2], mode="valid", method="direct")
    return np.sum(y * _weights(y.shape[0])) + np.sum(y * y)


def correlate_full(a, k):
    y = sg.correlate(a, k, method="direct")
    return np.sum(y * _weights(y.shape[0])) + np.sum(y * y)


def correlate_same(a, k):
    y = sg.correlate(a, k, mode="same", method="fft")
    return np.sum(y * _weights(y.shape[0])) + np.sum(y ** 3)


def correlate_valid(a, k):
    y = sg.correlate(a, k, mode="valid")
    return np.sum(y * _weights(y.shape[0])) + np.sum(y * y)


def fftconvolve_same(a, k):
    y = sg.fftconvolve(a, k, mode="same")
    return np.sum(y * _weights(y.shape[0])) + np.sum(y * y)


def oaconvolve_valid(a, k):
    y = sg.oaconvolve(a, k, mode="valid")
    return np.sum(y * _weights(y.shape[0])) + np.sum(y ** 3)


# --- two and three dimensions ------------------------------------------------------------------

def convolve2d_full(m, k):
    y = sg.convolve2d(m, k)
    return np.sum(y * np.sin(np.arange(y.size).reshape(y.shape))) + np.sum(y * y)


def convolve2d_same(m, k):
    y = sg.convolve2d(m, k, mode="same", boundary="fill", fillvalue=0)
    return np.sum(y * np.sin(np.arange(y.size).reshape(y.shape))) + np.sum(y ** 3)


def convolve2d_valid(m, k):
    y = sg.convolve2d(m, k, "valid")
    return np.sum(y * np.sin(np.arange(y.size).reshape(y.shape))) + np.sum(y * y)


def correlate2d_full(m, k):
    y = sg.correlate2d(m, k)
    return np.sum(y * np.sin(np.arange(y.size).reshape(y.shape))) + np.sum(y * y)


def correlate2d_same(m, k):
    y = sg.correlate2d(m, k, mode="same")
    return np.sum(y * np.sin(np.arange(y.size).reshape(y.shape))) + np.sum(y ** 3)


def correlate2d_valid(m, k):
    y = sg.correlate2d(m, k, mode="valid")
    return np.sum(y * np.sin(np.arange(y.size).reshape(y.shape))) + np.sum(y * y)


def convolve_2d_same(m, k):
    y = sg.convolve(m, k, mode="same")
    return np.sum(y * np.sin(np.arange(y.size).reshape(y.shape))) + np.sum(y ** 3)


def convolve_3d(t, k):
    y = sg.convolve(t, k, mode="same", method="fft")
    return np.sum(y * np.sin(np.arange(y.size).reshape(y.shape))) + np.sum(y * y)


def correlate_3d_valid(t, k):
    y = sg.correlate(t, k, mode="valid", method="direct")
    return np.sum(y * np.sin(np.arange(y.size).reshape(y.shape))) + np.sum(y * y)


def fftconvolve_3d(t, k):
    y = sg.fftconvolve(t, k)
    return np.sum(y * np.sin(np.arange(y.size).reshape(y.shape))) + np.sum(y * y)


def oaconvolve_2d_same(m, k):
    y = sg.oaconvolve(m, k, mode="same")
    return np.sum(y * np.sin(np.arange(y.size).reshape(y.shape))) + np.sum(y * y)


def smoothed_twice(a, k):
    # a convolution of a convolution, both inputs varying
    return np.sum(sg.correlate(sg.convolve(a, k, mode="same"), k * a[:4], mode="valid") ** 2)


ONE_D = [convolve_full, convolve_same, convolve_valid_fft, convolve_valid_swapped,
         correlate_full, correlate_same, correlate_valid, fftconvolve_same, oaconvolve_valid,
         smoothed_twice]
TWO_D = [convolve2d_full, convolve2d_same, convolve2d_valid, correlate2d_full,
         correlate2d_same, correlate2d_valid, convolve_2d_same, oaconvolve_2d_same]
THREE_D = [convolve_3d, correlate_3d_valid, fftconvolve_3d]
TABLE = [(f, args, wrt) for fs, args in [(ONE_D, (A, K)), (TWO_D, (M, KM)), (THREE_D, (T, KT))]
         for f in fs for wrt in (0, 1)] + [
    (correlate_same, (A, K3), 0), (correlate_same, (A, K3), 1),
    (convolve_same, (K3, A), 0), (correlate2d_same, (M, KM[:, :2]), 1)]


def _ids(table):
    return [f"{f.__name__}-{np.shape(args[1])}-{wrt}" for f, args, wrt in table]


def _differences(f, args, wrt):
    return central_differences(f, args, wrt, EPS)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_gradient_against_central_differences(f, args, wrt):
    np.testing.assert_allclose(s2sad.grad(f, wrt=wrt)(*args), _differences(f, args, wrt),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_forward_mode_against_reverse(f, args, wrt):
    v = rng.normal(size=np.shape(args[wrt]))
    value, push = s2sad.jvp(f, wrt=wrt)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(push(v), np.sum(s2sad.grad(f, wrt=wrt)(*args) * v),
                               rtol=1e-9, atol=1e-9)


SECOND = [row for row in TABLE if row[0] in (
    convolve_same, convolve_valid_swapped, correlate_same, oaconvolve_valid, smoothed_twice,
    convolve2d_same, correlate2d_same, correlate2d_valid, fftconvolve_3d)]


@pytest.mark.parametrize("f, args, wrt", SECOND, ids=_ids(SECOND))
def test_second_derivative_against_differences_of_the_gradient(f, args, wrt):
    gradient = s2sad.grad(f, wrt=wrt)
    expected = _differences(gradient, args, wrt)
    np.testing.assert_allclose(s2sad.hessian(f, wrt=wrt)(*args), expected, rtol=1e-5,
                               atol=1e-5)
    v = rng.normal(size=np.shape(args[wrt]))
    _, pullback = s2sad.vjp(gradient, wrt=wrt)(*args)
    np.testing.assert_allclose(pullback(v), np.tensordot(expected, v, np.ndim(v)), rtol=1e-5,
                               atol=1e-5)


def test_mixed_second_derivative_across_the_two_inputs():
    """d/dk of the gradient in a: the cross term of a bilinear function."""
    along_k = s2sad.jvp(s2sad.grad(correlate_same, wrt=0), wrt=1)
    v = rng.normal(size=K.shape)
    expected = (s2sad.grad(correlate_same)(A, K + EPS * v) -
                s2sad.grad(correlate_same)(A, K - EPS * v)) / (2 * EPS)
    np.testing.assert_allclose(along_k(A, K)[1](v), expected, rtol=1e-6, atol=1e-7)


def test_the_adjoint_is_a_correlation_with_the_other_input():
    source = s2sad.grad(convolve_same).source
    assert "correlate(full, k, 'valid'" in source and "np.pad(" in source
    assert "convolve2d(full, k, 'valid')" in s2sad.grad(correlate2d_full).source


def test_float32_stays_float32():
    a, k = A.astype(np.float32), K.astype(np.float32)
    assert s2sad.grad(convolve_same)(a, k).dtype == np.float32
    assert s2sad.grad(correlate_full, wrt=1)(a, k).dtype == np.float32
    m = M.astype(np.float32)
    assert s2sad.grad(convolve2d_same)(m, KM.astype(np.float32)).dtype == np.float32


def test_a_python_list_kernel():
    def f(a):
        return np.sum(sg.convolve(a, [1.0, -2.0, 0.5], mode="same") ** 2)
    np.testing.assert_allclose(s2sad.grad(f)(A), central_differences(f, (A,), 0, EPS),
                               rtol=1e-6, atol=1e-7)


# --- refused: what is not modeled --------------------------------------------------------------

def wrapped(m, k):
    return np.sum(sg.convolve2d(m, k, boundary="wrap") ** 2)  # <- here


def filled(m, k):
    return np.sum(sg.correlate2d(m, k, "same", "fill", 1.5) ** 2)  # <- here


def along_axes(t, k):
    return np.sum(sg.fftconvolve(t, k, axes=1) ** 2)  # <- here


def smoothed(a):
    return np.sum(scipy.ndimage.gaussian_filter(a, 1.5) ** 2)  # <- here


def _line(func):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, text in enumerate(lines) if "# <- here" in text)


@pytest.mark.parametrize("func, args, message, advice", [
    (wrapped, (M, KM), "convolve2d is differentiated with boundary 'fill', not 'wrap'",
     "pad the input yourself"),
    (filled, (M, KM), "correlate2d is differentiated with fillvalue 0, not 1.5",
     "pad the input yourself"),
    (along_axes, (T, KT[:1, :, :1]), "fftconvolve is differentiated with axes None, not 1",
     "give the kernel length 1 along the others"),
], ids=["boundary", "fillvalue", "axes"])
def test_what_is_not_modeled_is_refused_at_its_line(func, args, message, advice):
    for derivative in (s2sad.grad, lambda f: (lambda *a: s2sad.jvp(f)(*a)[1](a[0]))):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(func)(*args)
        assert info.value.lineno == _line(func)
        assert message in str(info.value) and advice in str(info.value)


def test_a_boundary_known_only_when_the_line_runs_is_refused_then():
    def f(m, k, boundary):
        return np.sum(sg.convolve2d(m, k, boundary=boundary) ** 2)
    np.testing.assert_allclose(s2sad.grad(f)(M, KM, "fill"),
                               central_differences(f, (M, KM, "fill"), 0, EPS), rtol=1e-6,
                               atol=1e-6)
    with pytest.raises(s2sad.NoDerivativeError, match="boundary='symm'"):
        s2sad.grad(f)(M, KM, "symm")


def along_two_axes(t, k):
    return np.sum(sg.oaconvolve(t, k, "same", (1, 2)) ** 2)  # <- here


def test_axes_known_only_when_the_line_runs_are_refused_then_in_reverse_mode():
    """Forward mode takes them: the convolution is linear in each input along any axes."""
    k = KT[:1]
    with pytest.raises(s2sad.NoDerivativeError, match=r"along the axes \(1, 2\) only") as info:
        s2sad.grad(along_two_axes)(T, k)
    assert info.value.lineno == _line(along_two_axes)
    v = rng.normal(size=T.shape)
    np.testing.assert_allclose(s2sad.jvp(along_two_axes)(T, k)[1](v),
                               np.sum(central_differences(along_two_axes, (T, k), 0, EPS) * v),
                               rtol=1e-6)


def test_scipy_ndimage_is_refused_at_its_line():
    """scipy.ndimage is out of scope: no rule, so its call is refused, never a zero."""
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(smoothed)(A)
    assert info.value.lineno == _line(smoothed)
    assert "scipy.ndimage.gaussian_filter" in str(info.value)


def test_the_convolutions_are_listed_as_supported():
    names = s2sad.supported()
    assert {f"scipy.signal.{n}" for n in ("convolve", "correlate", "convolve2d", "correlate2d",
                                          "fftconvolve", "oaconvolve")} <= set(names)
