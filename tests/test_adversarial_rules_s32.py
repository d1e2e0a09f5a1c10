"""Findings of the s32 adversarial pass over the rules (dtypes, indexing, reductions,
shape functions, SciPy), each checked against float64 central differences, with the test
that fails without its fix:

* ``np.linalg.pinv(a, rcond=...)`` (or ``rtol=``) dropping a singular value that is not
  rounding (0.2 of [3, 1, 0.2], ``rcond=0.1``): the rules take the derivative where the
  rank does not change, with ``a`` itself where NumPy inverts its truncation. A silently
  wrong gradient (0.3866 for 0.3557), tangent and Hessian. Refused where the line runs
  now (``pinv_cut_checked``); a cut that drops nothing, or only rounding, is as before.
  ``np.linalg.lstsq(a, b, rcond=...)`` cuts the same way: its gradient was NaN (the rank
  taken as lost) where the function is smooth; refused as well.
* ``np.fft.fft2``, ``ifft2``, ``rfft2``, ``irfft2`` and ``scipy.fft``'s (one rule with
  ``fftn`` each) of an array of more than two dimensions: the rules' ``axes=None`` (fftn's
  default: all axes) stood for the 2-d transforms' own default, the last two. A silently
  wrong gradient (9.95 for 5.53 in ``fft2``'s first entry); the tangent was right (the
  transform itself). Each 2-d transform has its rule now, with NumPy's default.
* Rules whose parameters were not NumPy's, in order: ``np.average(a, axis, weights,
  returned)`` took a fourth positional argument as ``keepdims`` (NumPy's is keyword-only),
  so ``np.average(x, 0, w, True)`` (``returned``: the average and the weights' sum) gave
  a silently wrong gradient (0.75 for 1.5; a TypeError without the optimizer);
  ``np.linspace(a, b, n, True, True)`` took ``retstep`` as ``dtype`` (a ValueError).
  Each rule has NumPy's parameters now; ``returned=True`` and ``retstep=True``, which
  return a pair, are refused at their line (given by keyword, they already were).
* The tangent of ``np.pad(x, w, constant_values=(x[1, 1], 0.5))``, or of values per axis
  (``((x[0, 0], 2.0), (1.0, 3.0))``): the tangents kept the nesting, a constant pair's
  one 0.0 (``((d, 0.0), 0.0)``), which ``np.result_type`` and ``np.pad`` refused (a
  ValueError, invalid shape). The pairs are broadcast into one array now; the gradient
  of values in pairs is refused, as it was.
* The NumPy functions s2sad writes out took positional arguments by their own order:
  ``np.nanvar(x, 1, float)`` gave ``float`` (NumPy's ``dtype``) to ``ddof`` and
  ``np.nanprod(x, 1, float)`` to ``keepdims`` (TypeErrors in the generated code);
  ``np.median(x, 1, None)`` gave ``out`` to ``keepdims``. A positional argument whose
  NumPy parameter is not the definition's is refused at its line now.
"""

import numpy as np
import pytest
import scipy.fft as sfft
from test_higher_order import central_differences

import s2sad
from s2sad.errors import DifferentiationError, NoDerivativeError

_U = np.linalg.qr(np.random.default_rng(8).standard_normal((3, 3)))[0]
_V = np.linalg.qr(np.random.default_rng(9).standard_normal((3, 3)))[0]
A = _U @ np.diag([3.0, 1.0, 0.2]) @ _V.T  # singular values 3, 1 and 0.2
WEIGHTS = np.random.default_rng(10).standard_normal((3, 3))
B = np.array([0.3, -1.2, 0.8])
V = np.random.default_rng(11).standard_normal((3, 3))


def check_all_orders(f, x):
    """grad, jvp and hvp of ``f`` at ``x`` against central differences."""
    v = np.random.default_rng(12).standard_normal(np.shape(x))
    want = central_differences(f, (x,), 0)
    for opt in (True, False):
        np.testing.assert_allclose(s2sad.grad(f, optimize=opt)(x.copy()), want,
                                   rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2sad.jvp(f)(x.copy())[1](v), np.sum(want * v),
                               rtol=1e-6, atol=1e-7)
    g = s2sad.grad(f)
    hv = (g(x + 1e-6 * v) - g(x - 1e-6 * v)) / 2e-6
    np.testing.assert_allclose(s2sad.hvp(f)(x.copy(), v), hv, rtol=1e-4, atol=1e-5)


# --- a pseudo-inverse whose cut drops a singular value ------------------------------------


def pinv_rcond_cut(x):
    return np.sum(np.linalg.pinv(x, rcond=0.1) * WEIGHTS)


def pinv_rtol_cut(x):
    return np.sum(np.linalg.pinv(x, rtol=0.1) * WEIGHTS)


def pinv_hermitian_cut(x):  # eigenvalues of x + x^T: one of them is cut
    return np.sum(np.linalg.pinv(x + x.T, rcond=0.9, hermitian=True) * WEIGHTS)


def pinv_complex_cut(x):
    return np.sum(np.real(np.linalg.pinv(x * (1.0 + 0.5j), rcond=0.1)) * WEIGHTS)


def lstsq_rcond_cut(x):
    return np.sum(np.linalg.lstsq(x, B, rcond=0.1)[0] * WEIGHTS[0])


@pytest.mark.parametrize("f", [pinv_rcond_cut, pinv_rtol_cut, pinv_hermitian_cut,
                               pinv_complex_cut, lstsq_rcond_cut])
def test_a_pseudo_inverse_that_drops_a_singular_value_is_refused(f):
    # (pinv_rcond_cut: 0.3866 for 0.3557 in its first entry; lstsq_rcond_cut: NaN)
    want = central_differences(f, (A,), 0)
    assert np.all(np.isfinite(want))  # the function is smooth there
    with pytest.raises(NoDerivativeError, match="drops a singular value"):
        s2sad.grad(f)(A.copy())
    with pytest.raises(NoDerivativeError, match="drops a singular value"):
        s2sad.jvp(f)(A.copy())[1](V)
    with pytest.raises(NoDerivativeError, match="drops a singular value"):
        s2sad.hvp(f)(A.copy(), V)


def pinv_rcond_kept(x):  # 0.01 * 3 drops nothing
    return np.sum(np.linalg.pinv(x, rcond=0.01) * WEIGHTS)


def pinv_rcond_array(x):
    return np.sum(np.linalg.pinv(np.stack([x, x.T * 2.0]), rcond=np.array([0.01, 0.02])) *
                  WEIGHTS)


def lstsq_rcond_kept(x):
    return np.sum(np.linalg.lstsq(x, B, rcond=0.01)[0] * WEIGHTS[0]) + \
        np.sum(np.linalg.lstsq(x, B, rcond=-1)[0] ** 2)


@pytest.mark.parametrize("f", [pinv_rcond_kept, pinv_rcond_array, lstsq_rcond_kept])
def test_a_pseudo_inverse_whose_cut_drops_nothing(f):
    check_all_orders(f, A)


def pinv_of_rank_one(x):  # NumPy's default cut drops rounding: the rank stays 1
    return np.sum(np.linalg.pinv(np.outer(x[0], x[1]), rcond=1e-10) * WEIGHTS)


def test_a_cut_of_rounding_is_not_refused():
    x = A[:2]
    g = s2sad.grad(pinv_of_rank_one)(x.copy())
    np.testing.assert_allclose(g, central_differences(pinv_of_rank_one, (x,), 0),
                               rtol=1e-5, atol=1e-6)


# --- the 2-d transforms of an array of more than two dimensions ---------------------------

X3 = np.random.default_rng(13).standard_normal((2, 3, 4))
W3 = np.random.default_rng(14).standard_normal((2, 3, 4))


def fft2_of_3d(x):
    return np.sum(np.abs(np.fft.fft2(x)) ** 2 * W3) + np.sum(np.real(np.fft.fft2(x * x)) * W3)


def ifft2_of_3d(x):
    return np.sum(np.real(np.fft.ifft2(x * x)) * W3) + np.sum(np.imag(np.fft.ifft2(x)) * W3)


def rfft2_of_3d(x):
    return np.sum(np.real(np.fft.rfft2(x * x)) * W3[..., :3]) + \
        np.sum(np.imag(np.fft.rfft2(x)) ** 2 * W3[..., :3])


def irfft2_of_3d(x):
    return np.sum(np.fft.irfft2(x * x)[..., :4] * W3)


def scipy_2d_transforms_of_3d(x):
    return np.sum(np.real(sfft.fft2(x * x)) * W3) + np.sum(np.imag(sfft.ifft2(x)) * W3) + \
        np.sum(np.real(sfft.rfft2(x * x)) * W3[..., :3]) + np.sum(sfft.irfft2(x)[..., :4] * W3)


def fft2_axes_given(x):  # the axes written out (as before)
    return np.sum(np.real(np.fft.fft2(x * x, axes=(0, 2))) * W3) + \
        np.sum(np.real(np.fft.fft2(x, axes=None)) ** 2)


@pytest.mark.parametrize("f", [fft2_of_3d, ifft2_of_3d, rfft2_of_3d, irfft2_of_3d,
                               scipy_2d_transforms_of_3d, fft2_axes_given])
def test_a_2d_transform_of_more_dimensions(f):
    # (fft2_of_3d: 9.95 for 5.53 in its first entry)
    check_all_orders(f, X3)


# --- a rule's parameters in NumPy's order ----------------------------------------------------

XP = np.array([[0.3, -1.2, 0.8], [1.1, 0.4, -0.6]])
K3 = np.array([1.0, 2.0, 3.0])


def average_returned_by_position(x):
    a, s = np.average(x, 0, np.array([1.0, 3.0]), True)
    return np.sum(a * K3) + np.sum(s)


def average_weights_returned_by_position(x):
    a, s = np.average(K3, 0, x[0] ** 2 + 0.5, True)
    return a * s


def linspace_retstep_by_position(x):
    v, step = np.linspace(x[0, 0], x[0, 1], 4, True, True)
    return np.sum(v * np.arange(4.0)) + step ** 2


@pytest.mark.parametrize("f", [average_returned_by_position,
                               average_weights_returned_by_position,
                               linspace_retstep_by_position])
def test_a_pair_returned_by_a_positional_flag_is_refused(f):
    # (average_returned_by_position: 0.75 for 1.5; linspace_retstep_by_position: ValueError)
    assert np.all(np.isfinite(central_differences(f, (XP,), 0)))
    for make in (s2sad.grad, s2sad.jvp):
        with pytest.raises(NoDerivativeError, match="not True"):
            make(f)(XP.copy())


def average_by_position(x):  # returned=False written out, keepdims by keyword
    return np.sum(np.average(x, 1, K3, False, keepdims=True) * x) + \
        np.sum(np.average(K3, 0, x[1] ** 2 + 0.5, False))


def linspace_by_position(x):
    return np.sum(np.linspace(x[0, 0], x[0, 1], 4, False, False, None, 0) * np.arange(4.0))


@pytest.mark.parametrize("f", [average_by_position, linspace_by_position])
def test_numpy_parameters_by_position(f):
    check_all_orders(f, XP)


# --- the tangent of np.pad's constant values given per axis --------------------------------


def pad_values_per_axis(x):
    return np.sum(np.pad(x, ((2, 1), (1, 2)), constant_values=((x[0, 0], 2.0), (1.0, x[1, 2]))) **
                  2 * np.arange(30.0).reshape(5, 6))


def pad_values_one_pair(x):
    return np.sum(np.pad(x, 1, constant_values=(x[1, 1] ** 2, 0.5)) * np.arange(20.0).reshape(4, 5))


@pytest.mark.parametrize("f", [pad_values_per_axis, pad_values_one_pair])
def test_the_tangent_of_pad_values_per_axis(f):
    # (pad_values_per_axis: ValueError, invalid shape in fixed-type tuple)
    v = np.random.default_rng(15).standard_normal(XP.shape)
    value, push = s2sad.jvp(f)(XP.copy())
    assert value == pytest.approx(f(XP), rel=1e-12)
    np.testing.assert_allclose(push(v), np.sum(central_differences(f, (XP,), 0) * v),
                               rtol=1e-6, atol=1e-6)
    with pytest.raises(NoDerivativeError, match="one scalar value only"):
        s2sad.grad(f)(XP.copy())


# --- a written-out function's positional arguments, by NumPy's order -----------------------


def nanvar_dtype_by_position(x):
    return np.sum(np.nanvar(x, 1, float) * K3[:2])


def nanprod_dtype_by_position(x):
    return np.sum(np.nanprod(x, 1, float) * K3[:2])


def median_out_by_position(x):
    return np.sum(np.median(x, 1, None) * K3[:2])


@pytest.mark.parametrize("f", [nanvar_dtype_by_position, nanprod_dtype_by_position,
                               median_out_by_position])
def test_a_written_out_function_takes_numpy_positions(f):
    # (nanvar_dtype_by_position: TypeError, unsupported operand type(s) for -)
    with pytest.raises(DifferentiationError, match="positional argument 3 is the function's own"):
        s2sad.grad(f)(XP.copy())


def written_out_by_position(x):
    return np.sum(np.nanvar(x, 1) * K3[:2]) + np.quantile(x, 0.3, 1, keepdims=True)[0, 0] + \
        np.sum(np.interp(x[0], np.array([-1.0, 0.0, 1.0]), x[1] ** 2, x[0, 0], 2.0))


def test_written_out_functions_by_numpy_positions():
    check_all_orders(written_out_by_position, XP)
