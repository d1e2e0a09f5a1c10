"""The NumPy functions s2sad writes itself (s2sad/implementations.py): NumPy's errors where
NumPy has them, s2sad's own where its definition takes less; powers whose exponents a loop
carries, to the third order; tests of constant options decided as Python decides them."""

import warnings

import numpy as np
import pytest

import s2sad
from s2sad.errors import DifferentiationError, NoDerivativeError
from tests import cases_stand_ins as C

X = np.array([0.3, 1.4, -0.2, 0.9, 2.1, -1.3])


@pytest.mark.parametrize("q", [-0.1, 1.5, np.nan, [0.2, 1.2]])
def test_quantiles_out_of_range_are_refused_as_numpy_refuses_them(q):
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        s2sad.grad(C.quantile_of)(X, q)
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        np.quantile(X, q)


def test_a_keyword_the_definition_does_not_take_is_named():
    with pytest.raises(DifferentiationError, match="method= is not supported") as info:
        s2sad.grad(C.quantile_method)(X)
    assert "s2sad writes np.quantile with the arguments (a, q, axis, keepdims)" in \
        str(info.value)
    with pytest.raises(ValueError, match="s2sad writes np.quantile for one axis"):
        s2sad.grad(C.quantile_axes)(X.reshape(2, 3))


@pytest.mark.parametrize("f, args, numpy_error", [
    (C.windows_of, (X, 7), "window shape cannot be larger than input array shape"),
    (C.windows_of, (X, -1), "`window_shape` cannot contain negative values"),
    (C.windows_no_axis, (X.reshape(1, 6),), "Since axis is `None`"),
    (C.accumulate_all, (X.reshape(2, 3),), "accumulate does not allow multiple axes"),
    (C.maximum_accumulate_all, (X.reshape(2, 3),), "accumulate does not allow multiple axes"),
])
def test_windows_and_accumulations_numpy_refuses_are_refused(f, args, numpy_error):
    with pytest.raises(ValueError, match=numpy_error):
        s2sad.grad(f)(*args)


def test_a_dtype_given_by_position_and_a_ufunc_without_a_rule():
    np.testing.assert_allclose(s2sad.grad(C.reduce_dtype)(X.reshape(2, 3)), np.ones((2, 3)))
    with pytest.raises(NoDerivativeError, match="numpy.logaddexp.accumulate"):
        s2sad.grad(C.ufunc_without_rule)(X)


@pytest.mark.parametrize("f, expected", [(C.powers_in_a_loop, 12.0),
                                         (C.powers_in_a_while_loop, 12.0),
                                         (C.float_powers_in_a_loop, 6.0)])
def test_third_derivative_of_powers_a_loop_carries_at_zero(f, expected):
    """x ** 0, x ** 1... with the exponent from the loop: the exponent is a value the
    higher orders differentiate; its zero sensitivity must not meet 0.0 ** -1."""
    third = s2sad.grad(s2sad.grad(s2sad.grad(f)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (inf in a term multiplied by 0)
        assert third(0.0) == pytest.approx(expected)
        assert third(1e-9) == pytest.approx(expected)


_IS_ON_A_LITERAL = """
import numpy as np


def _scaled(x, mode="abc"):
    return x * 2.0 if mode is "abc" else x * 3.0


def is_on_a_string(x):
    return np.sum(_scaled(x)) + 10.0 * np.sum(_scaled(x, "abc"))
"""


def test_is_on_a_constant_string_is_not_decided_while_inlining(tmp_path, monkeypatch):
    """``mode is "abc"``: Python's answer is not the parser's (two equal strings need not
    be one object; Python warns), so s2sad must not decide it while inlining."""
    import importlib
    (tmp_path / "is_on_a_literal.py").write_text(_IS_ON_A_LITERAL)
    monkeypatch.syspath_prepend(str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # (the generated code is warned too)
        module = importlib.import_module("is_on_a_literal")
        x = np.ones((2, 2))
        expected = module.is_on_a_string(x) / 4  # (linear: Python's own answer)
        np.testing.assert_allclose(s2sad.grad(module.is_on_a_string)(x),
                                   np.full((2, 2), expected))


def test_fourth_derivative_through_a_while_loop():
    """The third derivative's sensitivity of its stack (a list of numbers and arrays) is
    read back by position (take_at of a list)."""
    fourth = C.powers_in_a_while_loop
    for _ in range(4):
        fourth = s2sad.grad(fourth)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert fourth(0.0) == pytest.approx(0.0) and fourth(0.7) == pytest.approx(0.0)


def test_nanstd_where_the_values_are_equal_has_the_gradient_of_np_std():
    """One value left by the NaNs, or all alike: the standard deviation is 0, where the
    square root's slope is infinite; the gradient is 0 there, as np.std's rule gives."""
    a = np.array([[1.0, 1.0, 1.0], [np.nan, 2.0, np.nan], [0.5, 1.5, np.nan]])
    expected = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [-0.5, 0.5, 0.0]])
    np.testing.assert_allclose(s2sad.grad(C.nanstd_rows)(a), expected, atol=1e-15)
    np.testing.assert_allclose(s2sad.grad(C.std_rows)(np.ones((1, 3))), np.zeros((1, 3)))
