"""What is inside brackets, and operators on values that are not arrays, are differentiated
as Python and NumPy run them, or refused at the line: never dropped (issue 32, root causes 1
and 10).

``np.r_[...]`` and ``np.c_[...]`` are joins (s2sad/transforms/index_tricks.py); an index
into an object s2sad does not model (``np.mgrid``, an object of unknown kind) is refused
where it depends on the differentiated argument; an operator or index on an object of the
user's class is its method, inlined (s2sad/transforms/dunders.py); on ``np.matrix`` and
masked arrays it is refused.
"""

import inspect
import warnings

import numpy as np
import pytest

import s2sad
from tests import cases_brackets as C
from tests.test_gradients import check_case, check_every_mode, finite_differences

_rng = np.random.default_rng(3232)


def rand(*shape):
    return _rng.uniform(-1.5, 1.5, size=shape)


def line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


JOINS = [
    pytest.param(C.r_arrays, (rand(4),), id="r_-arrays"),
    pytest.param(C.r_of_arguments, (rand(3), rand(2)), id="r_-arguments"),
    pytest.param(C.r_numbers_and_ranges, (rand(3),), id="r_-numbers-ranges-linspace"),
    pytest.param(C.r_locals, (rand(3),), id="r_-locals-scalar-list"),
    pytest.param(C.r_rows, (rand(3, 2),), id="r_-2d-rows"),
    pytest.param(C.r_renamed, (rand(3),), id="r_-by-another-name"),
    pytest.param(C.r_in_helper, (rand(3),), id="r_-in-a-helper"),
    pytest.param(C.r_float32, (rand(3).astype(np.float32),), id="r_-float32"),
    pytest.param(C.c_vectors, (rand(4),), id="c_-vectors"),
    pytest.param(C.c_mixed, (rand(3),), id="c_-local-and-range"),
    pytest.param(C.c_matrix_and_vector, (rand(4, 2), rand(4)), id="c_-matrix-vector"),
    pytest.param(C.c_three_axes, (rand(2, 3, 2),), id="c_-3d-last-axis"),
    pytest.param(C.c_number, (rand(3),), id="c_-number"),
]


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("f, args", JOINS)
def test_r_and_c_are_joins_with_numpys_gradient(f, args, optimize):
    wrt = tuple(range(len(args))) if len(args) > 1 else 0
    check_case(f, args, wrt, optimize)


@pytest.mark.parametrize("f, args", [p for p in JOINS if p.id in (
    "r_-arrays", "r_-numbers-ranges-linspace", "r_-locals-scalar-list", "r_-2d-rows",
    "c_-local-and-range", "c_-3d-last-axis")])
def test_r_and_c_in_forward_mode_and_second_order(f, args):
    np.testing.assert_allclose(s2sad.grad(f)(*args), finite_differences(f, args, 0).reshape(
        args[0].shape), rtol=1e-5, atol=1e-7)
    check_every_mode(f, args)


def test_a_python_number_in_r_keeps_float32_as_numpy_does():
    x = rand(3).astype(np.float32)
    value, grad = s2sad.value_and_grad(C.r_float32)(x)
    assert np.asarray(value).dtype == C.r_float32(x).dtype == np.float32
    assert grad.dtype == np.float32
    np.testing.assert_allclose(grad, 2.0 * x, rtol=1e-6)


def test_r_of_arguments_known_as_arrays_is_one_concatenate():
    source = s2sad.grad(C.r_of_arguments).source_for(rand(4), rand(2))
    assert "np.concatenate(" in source and "atleast_1d" not in source
    assert "joined_dtype" not in source


def test_an_index_into_a_list_or_array_is_still_differentiated():
    """Integers (int(a), np.s_[...], np.index_exp[...]) index lists and arrays: no refusal."""
    xs = [0.5, -1.25, 2.0]
    assert s2sad.grad(C.list_item_by_integer)(1.5, xs) == pytest.approx(
        xs[1] + xs[1], rel=1e-12)
    check_case(C.array_slice_by_index_expression, (rand(4),), 0, True)


@pytest.mark.parametrize("f, text", [
    pytest.param(C.mgrid, "np.mgrid", id="mgrid"),
    pytest.param(C.ogrid, "np.ogrid", id="ogrid"),
])
def test_mgrid_and_ogrid_of_the_argument_are_refused_at_the_line(f, text):
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(f)(0.5)
    err = info.value
    assert err.lineno == line_of(f, text)
    assert f"indexing {text}" in str(err) and "np.arange" in err.hint
    with pytest.raises(s2sad.NoDerivativeError):
        s2sad.jvp(f)(0.5)


@pytest.mark.parametrize("f, args, construct, advice", [
    pytest.param(C.r_directive, (rand(2),), "a directive string", "np.concatenate",
                 id="directive"),
    pytest.param(C.r_step_held, (rand(3), 0.25), "not written as a number", "np.linspace",
                 id="step-in-a-variable"),
])
def test_forms_of_r_not_written_out_are_refused_at_the_line(f, args, construct, advice):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(f)(*args)
    err = info.value
    assert construct in str(err) and advice in err.hint
    assert err.lineno == line_of(f, "np.r_[")


def test_an_index_into_a_value_of_unknown_kind_is_refused():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(C.local_object_item)(1.5)
    err = info.value
    assert err.lineno == line_of(C.local_object_item, "return t[a]")
    assert "indexing 't'" in str(err) and "'a'" in str(err)
    with pytest.raises(s2sad.NoDerivativeError):
        s2sad.jvp(C.local_object_item)(1.5)


# --- operators on objects -------------------------------------------------------------


@pytest.mark.parametrize("f, args", [
    pytest.param(C.module_object_operators, (1.5,), id="module-object-dunders"),
    pytest.param(C.module_object_negated, (1.5,), id="module-object-neg"),
    pytest.param(C.module_object_item, (1.5,), id="module-object-getitem"),
    pytest.param(C.argument_operators, (1.5, C.Weights(2.0)), id="argument-dunders"),
    pytest.param(C.subclass_first, (1.5, C.Weights(2.0), C.Heavier(0.5)),
                 id="subclass-reflected-first"),
])
def test_operators_on_objects_are_their_methods(f, args):
    eps = 1e-6
    central = (f(args[0] + eps, *args[1:]) - f(args[0] - eps, *args[1:])) / (2 * eps)
    for optimize in (True, False):
        assert s2sad.grad(f, optimize=optimize)(*args) == pytest.approx(central, rel=1e-6)
        value, grad = s2sad.value_and_grad(f, optimize=optimize)(*args)
        assert (value, grad) == pytest.approx((f(*args), central), rel=1e-6)
    _, push = s2sad.jvp(f)(*args)
    assert push(1.0) == pytest.approx(central, rel=1e-6)


@pytest.mark.parametrize("f, args, operand", [
    pytest.param(C.array_on_the_left, (rand(3), C.Weights(2.0)), "'w', which is not",
                 id="array-left-of-object"),
    pytest.param(C.declining, (1.5,), "DECLINING (a tests.cases_brackets.Declining)",
                 id="may-return-NotImplemented"),
    pytest.param(C.plain_operator, (1.5,), "PLAIN (a tests.cases_brackets.Plain)",
                 id="no-method"),
    pytest.param(C.local_object_operator, (1.5,), "'w', which is not", id="local-object"),
])
def test_operators_on_objects_not_followed_are_refused(f, args, operand):
    for derivative in (s2sad.grad, s2sad.jvp):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(f)(*args)
        err = info.value
        assert operand in str(err) and "NotImplemented" in err.hint
        assert err.lineno == line_of(f, "return ")


def _matrix():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.matrix([[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize("f, args, operand", [
    pytest.param(C.matrix_constant, (rand(2),), "MATRIX (a numpy.matrix", id="matrix-global"),
    pytest.param(C.masked_constant, (rand(3),), "MASKED (a numpy.ma.", id="masked-global"),
    pytest.param(C.matrix_argument, (rand(2), _matrix()), "'m', which is not a number",
                 id="matrix-argument"),
    pytest.param(C.matrix_row, (rand(2), _matrix()), "'r', which is not a number",
                 id="matrix-argument-row"),
    pytest.param(C.local_matrix, (rand(2),), "'m', which is not a number", id="matrix-local"),
])
def test_operators_on_matrices_and_masked_arrays_are_refused(f, args, operand):
    for derivative in (s2sad.grad, s2sad.jvp):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(f)(*args)
        err = info.value
        assert operand in str(err)
        assert "np.asarray" in err.hint
        assert err.lineno == line_of(f, "return ") or err.lineno == line_of(f, "r = ")
