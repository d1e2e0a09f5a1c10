"""Findings of the s31 adversarial pass over the rules (NumPy, SciPy, complex values,
FFT, linalg), each checked against float64 central differences, with the test that fails
without its fix:

* A real argument's sensitivity taking a complex term by subtraction (``np.log(-x - 0j)``:
  the optimizer's ``s_x -= s_3 / t_2``): the program with complex values adds out of
  place, but only ``+=`` was rebound; ``-=`` on a real array raised NumPy's
  UFuncTypeError (cannot cast complex128 to float64). ``-=`` is rebound too.
* ``np.clip(x, min=-0.2)`` (``x.clip(min=...)``, any keyword of a rule tested ``is None``
  given a negative constant): copy propagation wrote ``None if -0.2 is None else -0.2``,
  and Python's SyntaxWarning for ``is`` with a literal is a SyntaxError where warnings are
  errors (pytest's ``-W error``). The test is decided where the constant is copied in.
* The tangent (``s2sad.jvp``) of a result of an integer dtype (``np.sum`` of
  ``np.full_like(int_array, x)``): an AttributeError in ``as_gradient`` (``_float_type``
  gave the type ``np.float64`` where its callers read a dtype). It is ``0.0`` now.
* ``np.max``, ``np.min``, ``np.nanmax``, ``np.nanmin`` and ``np.prod`` of a 0-d array
  along ``axis=0`` or ``-1`` (NumPy's ufunc reductions take them; ``x.max(0)``): a
  ZeroDivisionError (``axis % ndim``) or "axes don't match array" in the adjoint (an
  AxisError in prod's Hessian). A 0-d array has no axis to reduce: ``_axes`` gives none.
* The NumPy functions s2sad writes out (``s2sad/implementations.py``) at their edges:
  ``np.diff(c, prepend=v)`` made the prepended slice ``c[0] * 0.0 + v``, NaN where
  ``c[0]`` is infinite (NaN gradients, [nan, 0.47, nan] for [-1.38, 0.47, -1.93], and
  a RuntimeWarning);
  ``np.interp`` with one point in ``xp`` divided by its zero width (NaN for ``fp[0]``);
  ``np.polyval`` of no coefficients read ``p[0]`` (IndexError; NumPy gives zeros);
  ``np.median(a, axis=(0, 2))`` raised a TypeError inside the generated code. The first
  three follow NumPy now; a tuple of axes is refused as ``np.quantile``'s is.
* ``scipy.linalg.solve(a, b, assume_a="sym")`` of a complex matrix that is not symmetric:
  LAPACK reads one triangle (the upper, or the lower with ``lower=True``) and solves with
  the complex symmetric matrix it stands for. The complex rule took the symmetric part
  of the gradient without reading the triangle (reverse) and the whole change of ``a``
  (forward): a silently wrong gradient (an upper entry 1755+897j for 3510+1794j) and
  tangent (-7165 for 2413). ``read_triangle`` and ``spread_triangle`` take
  ``hermitian=False`` for it (no conjugate, the complex diagonal).
* ``np.correlate`` had no rule while ``np.convolve`` has one (refused: "no derivative
  rule"). It is written out now: a convolution with ``v`` reversed and conjugated, with
  NumPy's own window in mode "same" where ``a`` is the shorter (one entry later).
* NumPy 2's linear algebra of the array API was refused ("no derivative rule"):
  ``np.linalg.outer``, ``trace``, ``diagonal``, ``cross``, ``multi_dot``, ``np.matvec``
  and ``np.vecmat`` (which conjugates its vectors). Written out now with the functions
  they stand for.
"""

import warnings

import numpy as np
import pytest
import scipy.linalg as sl
from test_higher_order import central_differences

import s2sad

X = np.array([0.37, -0.71, 1.13])
P = np.array([0.52, 1.21, 0.83])
K = np.array([1.0, 2.0, 3.0])


def check(f, x=X, optimize=(True, False)):
    want = central_differences(f, (x,), 0)
    for opt in optimize:
        got = s2sad.grad(f, optimize=opt)(x.copy())
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# --- a complex term subtracted from a real argument's sensitivity ----------------------------


def imag_log_of_negated(x):  # -x - 0j: the sensitivity of x is s_x -= s / t, complex
    return np.sum(np.imag(np.log(-x - 0j)) * x)


def real_log_of_negated(x):
    return np.sum(np.real(np.log(-x - 0j)) * x * K)


def imag_part_times_its_argument(x):
    return np.sum(np.imag(x + 0.5j * x * x) * x)


@pytest.mark.parametrize("f", [imag_log_of_negated, real_log_of_negated,
                               imag_part_times_its_argument])
def test_a_complex_term_subtracted_from_a_real_sensitivity(f):
    # (imag_log_of_negated: UFuncTypeError, cannot cast complex128 output to float64)
    check(f, P)


# --- a rule's `is None` test given a negative constant ------------------------------------


def clip_keyword_min(x):
    return np.sum(np.clip(x, min=-0.2) ** 2 * K)


def clip_method_min(x):
    return np.sum(x.clip(min=-0.5, max=1.0) ** 2 * K)


def var_correction(x):
    return np.var(x * K, correction=-1) + np.std(x, correction=-1.0)


def arange_negative_step(x):
    return np.sum(np.arange(x[2], -2.0, -0.5) ** 2)


@pytest.mark.parametrize("f", [clip_keyword_min, clip_method_min, var_correction,
                               arange_negative_step])
def test_a_negative_constant_keyword_under_warnings_as_errors(f):
    # (clip_keyword_min: SyntaxError, "is" with a literal, in the generated code)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(f)


# --- the tangent of an integer result -------------------------------------------------------


def integer_result(x):  # a NumPy integer, constant near x: its tangent is 0
    return np.sum(np.full_like(np.zeros(3, dtype=int), x[0]) ** 2)


def integer_count(x):
    return np.count_nonzero(x > 0.0) + np.sum(x.astype(np.int64))


@pytest.mark.parametrize("f", [integer_result, integer_count])
def test_the_tangent_of_an_integer_result_is_zero(f):
    # (integer_result: AttributeError, 'numpy.float64' has no attribute 'type')
    value, push = s2sad.jvp(f)(X.copy())
    assert value == f(X)
    assert push(np.array([0.2, 1.0, -0.5])) == 0.0
    np.testing.assert_array_equal(s2sad.grad(f)(X.copy()), np.zeros(3))


# --- a reduction of a 0-d array along axis 0 ---------------------------------------------


def max_of_0d(x):
    return np.max(x[1], axis=0) ** 2 + np.min(x[2], axis=-1) * x[0]


def nan_extrema_of_0d(x):
    return np.nanmax(x[1] * x[2], axis=0) + np.nanmin(x[0], -1) ** 3


def prod_of_0d(x):
    return np.prod(x[1] * x[0], axis=0) ** 2 + x[2].prod(0) * x[1]


def methods_of_0d(x):
    s = x[0] * x[2]
    return s.max(0) * s.min(axis=-1, keepdims=True) + np.amax(s, 0)


@pytest.mark.parametrize("f", [max_of_0d, nan_extrema_of_0d, prod_of_0d, methods_of_0d])
def test_a_reduction_of_a_0d_array_along_axis_0(f):
    # (max_of_0d: ZeroDivisionError, integer modulo by zero; prod_of_0d: ValueError, and
    # its Hessian an AxisError)
    check(f)
    v = np.array([0.2, 1.0, -0.5])
    np.testing.assert_allclose(s2sad.jvp(f)(X.copy())[1](v), central_differences(f, (X,), 0) @ v,
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2sad.hessian(f)(X.copy()),
                               central_differences(s2sad.grad(f), (X,), 0), rtol=1e-5, atol=1e-6)


# --- the NumPy functions s2sad writes out, at their edges ----------------------------------


def diff_prepend_next_to_infinity(x):
    c = np.concatenate([[np.inf], x])
    return np.sum(np.arctan(np.diff(c, prepend=x[0], append=2.0)) * np.arange(1.0, 6.0))


def interp_one_point(x):
    return np.sum(np.interp(x * 2.0, np.array([0.5]), x[1:2] ** 2) * K) + \
        np.sum(np.interp(x, [0.0], [3.0], left=x[0], right=-1.0))


def polyval_no_coefficients(x):
    return np.sum(np.polyval(x[:0], x) + np.polyval(x, x[::-1]))


@pytest.mark.parametrize("f", [diff_prepend_next_to_infinity, interp_one_point,
                               polyval_no_coefficients])
def test_numpy_functions_written_out_at_their_edges(f):
    # (diff_prepend_next_to_infinity: [nan, 0.47, nan] for [-1.38, 0.47, -1.93];
    # interp_one_point: RuntimeWarning, divide by zero; polyval_no_coefficients: IndexError)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value, push = s2sad.jvp(f)(X.copy())
        assert value == pytest.approx(f(X), rel=1e-12)
        check(f)
        v = np.array([0.2, 1.0, -0.5])
        np.testing.assert_allclose(push(v), central_differences(f, (X,), 0) @ v,
                                   rtol=1e-6, atol=1e-7)


def median_of_two_axes(x):
    return np.median(np.outer(x, x).reshape(3, 1, 3), axis=(0, 2))[0]


def test_a_median_over_a_tuple_of_axes_says_so():
    # (a TypeError from inside the generated code: 'tuple' cannot be interpreted as an int)
    with pytest.raises(ValueError, match=r"np.median for one axis .* not axis=\(0, 2\)"):
        s2sad.grad(median_of_two_axes)(X.copy())


# --- a complex symmetric solve reads one triangle ---------------------------------------------


C3 = np.array([[4.0 + 1.0j, 0.5 - 0.3j, 0.2j], [0.5 - 0.3j, 3.0 - 0.5j, 1.0],
               [0.2j, 1.0, 5.0 + 0.2j]])


def complex_not_symmetric(x):  # C3 is complex symmetric; the outer product is not
    return C3 + np.outer(x, K) * (0.3 + 0.2j)


def solve_sym_upper(x):
    y = sl.solve(complex_not_symmetric(x), x + 1j, assume_a="sym")
    return np.sum(np.abs(y) ** 2)


def solve_sym_lower(x):
    y = sl.solve(complex_not_symmetric(x), K + 0.5j, assume_a="symmetric", lower=True)
    return np.sum(np.real(y) * K) + np.sum(np.imag(y))


def solve_sym_stack(x):
    a = complex_not_symmetric(x)
    y = sl.solve(np.stack([a, a.T]), np.ones((2, 3, 1)), assume_a="sym")
    return np.sum(np.abs(y) ** 2 * np.arange(6.0).reshape(2, 3, 1))


def _solves_stacks() -> bool:
    try:  # (SciPy 1.16: a stack of matrices; before, a ValueError)
        sl.solve(np.stack([np.eye(2)] * 2), np.ones((2, 2, 1)))
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("f", [solve_sym_upper, solve_sym_lower, solve_sym_stack])
def test_a_complex_symmetric_solve_reads_one_triangle(f):
    if f is solve_sym_stack and not _solves_stacks():
        pytest.skip("SciPy < 1.16 solves one matrix at a time")
    # (solve_sym_upper on a: an upper entry 1755+897j for 3510+1794j; tangent -7165 for 2413)
    check(f)
    v = np.array([0.2, 1.0, -0.5])
    np.testing.assert_allclose(s2sad.jvp(f)(X.copy())[1](v), central_differences(f, (X,), 0) @ v,
                               rtol=1e-6, atol=1e-7)


# --- np.correlate, written out -----------------------------------------------------------


def correlate_modes(x):
    z = x + 1j * x[::-1]
    return sum(np.sum(np.abs(np.correlate(a, v, mode)) ** 2 * np.arange(1.0, 1.0 + n))
               for a, v, mode, n in [(z, K, "valid", 1), (K, z[:2], "same", 3),
                                     (z[:2], K + 1j, "same", 3), (x[:2], z, "full", 4)])


def correlate_default(x):
    return np.sum(np.correlate(np.concatenate([x, x ** 2]), x) * np.arange(4.0))


@pytest.mark.parametrize("f", [correlate_modes, correlate_default])
def test_np_correlate(f):
    # (refused on main: "no derivative rule for numpy.correlate")
    check(f)
    v = np.array([0.2, 1.0, -0.5])
    np.testing.assert_allclose(s2sad.jvp(f)(X.copy())[1](v), central_differences(f, (X,), 0) @ v,
                               rtol=1e-6, atol=1e-7)


# --- NumPy 2's array-API linear algebra, written out -----------------------------------------


def array_api_linalg(x):
    m = np.outer(x, K) + np.diag(x)
    s = np.stack([m, m.T * x[0]])
    return (np.sum(np.linalg.outer(x, K) ** 2) + np.sum(np.linalg.trace(s, offset=1) ** 2) +
            np.sum(np.linalg.diagonal(s, offset=-1) * K[:2]) +
            np.sum(np.linalg.cross(s, x) ** 2) + np.linalg.multi_dot([x, m, m.T, K]))


def matvec_vecmat(x):
    z = np.outer(x + 1j, K) + np.eye(3)
    return np.sum(np.abs(np.matvec(z, x * 1j + K)) ** 2) + \
        np.sum(np.real(np.vecmat(x + 2j, z)) * K)


@pytest.mark.parametrize("f", [array_api_linalg, matvec_vecmat])
def test_numpy_2_linear_algebra(f):
    # (refused on main: "no derivative rule for numpy.linalg.outer", numpy.matvec...)
    if not hasattr(np, "matvec"):
        pytest.skip("NumPy < 2.2")
    check(f)
    v = np.array([0.2, 1.0, -0.5])
    np.testing.assert_allclose(s2sad.jvp(f)(X.copy())[1](v), central_differences(f, (X,), 0) @ v,
                               rtol=1e-6, atol=1e-7)
