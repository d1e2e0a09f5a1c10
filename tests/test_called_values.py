"""Calls whose function is a value, and values of types s2sad does not model: right
against central differences, or refused at the user's line (never a gradient that takes
a function holding the input for a constant)."""

import inspect

import numpy as np
import pytest

import s2sad
from tests import cases_called_values as cases
from tests.test_operation_table import directional, numeric_gradient, second_difference

V = np.array([0.3, -0.55, 0.9])


def line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


REFUSED = [
    pytest.param(cases.object_call_holding_input, 0.7, "Times(x)(2.0)", "__call__",
                 id="object-call"),
    pytest.param(cases.getattr_name_in_variable, V, "getattr(np, name)", "functools.partial",
                 id="getattr-name-in-variable"),
    pytest.param(cases.masked_made_here, V, "y * x", "np.asarray", id="masked-made-here"),
    pytest.param(cases.matrix_made_here, V, "y * x", "np.asarray", id="matrix-made-here"),
    pytest.param(cases.masked_module_constant, V, "MASKED * x", "np.asarray",
                 id="masked-module-constant"),
]


@pytest.mark.parametrize("func, x, text, advice", REFUSED)
def test_refused_at_the_line_in_reverse_mode(func, x, text, advice):
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(func)(x)
    err = info.value
    assert err.filename == cases.__file__
    assert err.lineno == line_of(func, text)
    assert err.hint and advice in err.hint


@pytest.mark.parametrize("func, x, text, advice", REFUSED)
def test_refused_in_forward_mode(func, x, text, advice):
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.jvp(func)(x)[1](np.ones_like(x) if isinstance(x, np.ndarray) else 1.0)
    assert info.value.filename == cases.__file__
    assert info.value.lineno in (line_of(func, text), line_of(func, text) - 1)


RIGHT = [
    # (once refused: a partial is now the call of its function, tests/test_star_args.py)
    pytest.param(cases.partial_bound_input, 0.7, id="partial-bound-input"),
    pytest.param(cases.partial_of_helper_bound_input, 0.7, id="partial-of-helper-in-variable"),
    pytest.param(cases.getattr_constant_name, V, id="getattr-constant-name"),
    pytest.param(cases.getattr_function_in_variable, V, id="getattr-function-in-variable"),
    pytest.param(cases.masked_made_here_converted, V, id="masked-converted"),
    pytest.param(cases.numpy_function_without_rule_on_constants, V, id="unique-of-constants"),
    pytest.param(cases.cross_list_second, V, id="cross-list-second"),
    pytest.param(cases.cross_list_first, V, id="cross-list-first"),
    pytest.param(cases.interp_list_points, V, id="interp-list-points"),
    pytest.param(cases.recursion_on_constant_in_loop, 0.7, id="recursion-constant-in-loop"),
    pytest.param(cases.return_in_loop_never_taken, 0.7, id="return-in-loop"),
    pytest.param(cases.return_in_loop_with_continue, 0.7, id="return-in-loop-continue"),
    pytest.param(cases.returns_in_nested_loops, 0.7, id="returns-in-nested-loops"),
]


@pytest.mark.parametrize("func, x", RIGHT)
def test_gradient_and_tangent_match_differences(func, x):
    value, grad = s2sad.value_and_grad(func)(x)
    assert value == pytest.approx(func(x), rel=1e-12)
    np.testing.assert_allclose(grad, numeric_gradient(func, x), rtol=1e-6, atol=1e-8)
    direction = np.linspace(0.6, -0.9, 3) + 0.05 if isinstance(x, np.ndarray) else 1.0
    tangent = s2sad.jvp(func)(x)[1](direction)
    assert tangent == pytest.approx(directional(func, x, direction), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("func", [cases.recursion_on_constant_in_loop,
                                  cases.return_in_loop_with_continue])
def test_second_derivative_matches_differences(func):
    got = s2sad.grad(s2sad.grad(func))(0.7)
    assert got == pytest.approx(second_difference(func, 0.7), rel=1e-4)


def test_a_check_in_a_second_derivative_is_located_without_calling_the_first():
    """grad(grad(f)) of a Python power of a negative float: refused at the user's line,
    though grad(f) itself was never called."""
    with pytest.raises(s2sad.DifferentiationError) as info:
        s2sad.grad(s2sad.grad(cases.negative_base_power))(0.7)
    assert info.value.filename == cases.__file__
    assert info.value.lineno == line_of(cases.negative_base_power, "** 0.5")
