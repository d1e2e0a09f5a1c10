"""Functions held in variables and gradients made inside the function differentiated
(issue 35): each program's gradient against central differences (float64), forward mode
against reverse, second derivatives against differences of the gradient, and what stays
refused, at its line with its advice (programs: tests/cases_function_values.py)."""

import inspect

import numpy as np
import pytest

import s2sad
from tests import cases_function_values as C
from tests.test_higher_order import central_differences

EPS = 1e-6
rng = np.random.default_rng(35)
X = np.array([0.3, 0.7, 1.1])
NEG = np.array([-0.4, -0.2, -0.9])

TABLE = [
    (C.chosen_by_mode, (X, "max")),
    (C.chosen_by_mode, (X, "mean")),
    (C.chosen_in_if_statement, (X, "tanh")),
    (C.chosen_in_if_statement, (X, "sin")),
    (C.chosen_among_three, (X, 0)),
    (C.chosen_among_three, (X, 1)),
    (C.chosen_among_three, (X, 2)),
    (C.chosen_by_values, (X,)),
    (C.chosen_by_values, (NEG,)),
    (C.chosen_among_users_functions, (X, 1.0)),
    (C.chosen_among_users_functions, (X, -1.0)),
    (C.chosen_and_passed_on, (X, 1.0)),
    (C.chosen_and_passed_on, (X, -1.0)),
    (C.chosen_as_a_value, (X, 1.0)),
    (C.chosen_as_a_value, (X, -1.0)),
    (C.chosen_given_first, (X, True)),
    (C.chosen_given_first, (X, False)),
    (C.unpacked_from_a_tuple, (X,)),
    (C.given_again, (X,)),
    (C.chosen_by_a_constant, (X,)),
    (C.held_in_a_list, (X,)),
    (C.default_arguments_of_a_helper, (X,)),
    (C.default_argument_of_a_nested_def, (X,)),
    (C.held_in_a_dict, (X,)),
    (C.loop_over_functions, (X,)),
    (C.loop_over_a_list_of_functions, (X,)),
    (C.grad_of_a_nested_def, (X,)),
    (C.grad_of_a_closure, (X,)),
    (C.grad_of_a_lambda, (X,)),
    (C.value_and_grad_of_a_lambda, (X,)),
    (C.grad_of_a_module_function, (X,)),
    (C.grad_wrt_the_second, (X,)),
    (C.grad_reads_late, (X,)),
    (C.grad_in_a_loop, (X,)),
]
IDS = [f"{f.__name__}-{'-'.join(str(a) for a in args[1:]) or 'x'}-{i}"
       for i, (f, args) in enumerate(TABLE)]


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_gradient_against_central_differences(f, args):
    np.testing.assert_allclose(s2sad.grad(f)(*args), central_differences(f, args, 0, EPS),
                               rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_forward_mode_against_reverse(f, args):
    v = rng.normal(size=X.shape)
    value, push = s2sad.jvp(f)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(push(v), np.sum(s2sad.grad(f)(*args) * v), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_second_derivative_against_differences_of_the_gradient(f, args):
    gradient = s2sad.grad(f)
    expected = central_differences(gradient, args, 0, EPS)
    np.testing.assert_allclose(s2sad.hessian(f)(*args), expected, rtol=1e-5, atol=1e-6)
    v = rng.normal(size=X.shape)  # reverse over reverse: the gradient's pullback
    _, pullback = s2sad.vjp(gradient)(*args)
    np.testing.assert_allclose(pullback(v), expected @ v, rtol=1e-5, atol=1e-6)


def test_float32_is_kept():
    x = X.astype(np.float32)
    for f in (C.chosen_by_mode, C.grad_of_a_closure):
        args = (x, "max") if f is C.chosen_by_mode else (x,)
        assert s2sad.grad(f)(*args).dtype == np.float32


def test_the_branch_taken_is_the_one_differentiated():
    """Each candidate under the branch Python takes, in one compiled gradient."""
    gradient = s2sad.grad(C.chosen_by_mode)
    np.testing.assert_allclose(gradient(X, "max"), [1.0, 1.0, 1.0 + 2 * X[2]])
    np.testing.assert_allclose(gradient(X, "mean"), 1.0 + 2 * X / 3)
    source = gradient.source
    assert "np.max" in source and "np.mean" in source and "if cond" in source, source


def test_a_choice_decided_as_it_compiles_leaves_no_branch():
    source = s2sad.grad(C.chosen_by_a_constant).source
    assert "cond" not in source and "np.max" in source, source


def test_the_closure_is_read_when_the_gradient_runs():
    """grad(inner)(x) reads `a` as Python's closure does then: sin(x), not 2x."""
    inner_gradient = 2 * X * np.sin(X)
    assert np.allclose(C.grad_reads_late(X), np.sum(inner_gradient * X))
    np.testing.assert_allclose(s2sad.grad(C.grad_reads_late)(X),  # d/dx sum(2 x^2 sin x)
                               4 * X * np.sin(X) + 2 * X * X * np.cos(X), rtol=1e-12)


def test_value_and_grad_made_inside_is_value_and_grad():
    def direct(x):
        y = 2.0 * x
        return np.sum(np.exp(y) * x) + np.sum(np.exp(y) * x * x)
    np.testing.assert_allclose(C.value_and_grad_of_a_lambda(X), direct(X), rtol=1e-12)
    np.testing.assert_allclose(s2sad.grad(C.value_and_grad_of_a_lambda)(X),
                               central_differences(direct, (X,), 0, EPS), rtol=1e-6)


def _marked_line(f) -> int:
    lines, first = inspect.getsourcelines(f)
    return first + next(i for i, line in enumerate(lines) if "# <- here" in line)


REFUSED = [
    (C.chosen_in_one_branch_only, (X, 1.0), s2sad.NoDerivativeError,
     "given a function in one branch of an `if` only", "in every branch"),
    (C.given_again_in_a_loop, (X,), s2sad.NoDerivativeError,
     "act() (a function held in a variable)", "s2sad follows a variable given a function"),
    (C.checkpoint_made_inside, (X,), s2sad.UnsupportedSyntaxError,
     "making a derivative inside the function differentiated (s2sad.checkpoint(...))",
     "Make it once at module level"),
    (C.grad_made_inside_with_defaults, (X,), s2sad.UnsupportedSyntaxError,
     "of a function with default values or star parameters", "plain parameters"),
    (C.grad_made_inside_reads_a_function, (X,), s2sad.UnsupportedSyntaxError,
     "reads 'helper', a function or object of the enclosing one", "at module level"),
    (C.grad_made_inside_with_a_variable_option, (X,), s2sad.UnsupportedSyntaxError,
     "with options that are not constants", "as constants"),
    (C.list_item_that_is_not_there, (X,), s2sad.NoDerivativeError,
     "acts[2]() (a function held in 'acts', which has no such item)", "Call an item"),
    (C.list_of_functions_read_as_a_value, (X,), s2sad.NoDerivativeError,
     "no derivative rule for this call", "call the function itself"),
    (C.grad_made_and_passed_on, (X,), s2sad.UnsupportedSyntaxError,
     "making a derivative inside the function differentiated (s2sad.grad(...))",
     "s2sad.grad(inner)(x)"),
]


@pytest.mark.parametrize("f, args, cls, what, advice", REFUSED,
                         ids=[r[0].__name__ for r in REFUSED])
def test_refused_at_the_line_with_advice(f, args, cls, what, advice):
    with pytest.raises(cls) as info:
        s2sad.grad(f)(*args)
    message = str(info.value)
    assert what in message and advice in message, message
    assert info.value.lineno == _marked_line(f), message
    assert info.value.filename == inspect.getsourcefile(f)


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_unoptimized_code_gives_the_same_gradient(f, args):
    np.testing.assert_allclose(s2sad.grad(f, optimize=False)(*args), s2sad.grad(f)(*args),
                               rtol=1e-12, atol=1e-14)
