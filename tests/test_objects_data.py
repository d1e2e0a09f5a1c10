"""Arrays and objects s2sad does not model meet the differentiated arguments: refused at
the line, or modeled as Python and NumPy define them (issue 32).

* data of a class s2sad does not model (``np.matrix``: ``*`` is a matrix product; a
  masked array skips its masked entries; a deque, an ``array.array``, a ``Fraction``),
  given to a function with a rule together with a differentiated value, whether it is a
  module's constant, a closure's value, a default, an argument, an object's member or
  made in the function (``resolve.foreign_argument``, ``kinds._carries_foreign``);
* the dtypes of an object argument's members (``kinds.member``): a store into a copy of
  an integer member truncates, and the entry tests the dtype it was built for;
* the arrays and data held in an object argument's member list, dict or tuple
  (``p.ms = [M]``): described, an np.matrix among them refused at the line, and the
  entry tests their classes;
* ``v *= a`` on an object of a user's class is its ``__imul__`` where it has one, else
  ``v = v * a`` (``dunders._in_place``).
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import s2sad
from tests import cases_objects_data as C


def line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


def central(f, args, eps=1e-6):
    x = args[0]
    if np.ndim(x) == 0:
        return (f(x + eps, *args[1:]) - f(x - eps, *args[1:])) / (2 * eps)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        out[i] = (f(x + step, *args[1:]) - f(x - step, *args[1:])) / (2 * eps)
    return out


def jvp_all(f, args):
    """The jvp along each unit direction of the first argument (a vector or a number)."""
    _, push = s2sad.jvp(f)(*args)
    x = args[0]
    if np.ndim(x) == 0:
        return push(1.0)
    return np.array([push(np.eye(x.size)[i]) for i in range(x.size)])


X = np.array([0.3, 0.7])


# --- data of classes s2sad does not model ------------------------------------------------


@pytest.mark.parametrize("f, args, operand, text", [
    pytest.param(C.matrix_dot, (X,), "MATRIX (a numpy.matrix)", "return", id="matrix-dot"),
    pytest.param(C.matrix_multiply, (X,), "MATRIX (a numpy.matrix)", "return",
                 id="matrix-multiply"),
    pytest.param(C.matrix_made_by_numpy, (X,), "'m', which is not", "return",
                 id="matrix-made-by-multiply"),
    pytest.param(C.matrix_transposed, (X,), "'m', which is not", "return",
                 id="matrix-transposed"),
    pytest.param(C.matrix_row, (X,), "'r', which is not", "return", id="matrix-row"),
    pytest.param(C.matrix_default, (X,), "'m', which is not", "return", id="matrix-default"),
    pytest.param(C.matrix_in_closure, (X,), "m (a numpy.matrix)", "return",
                 id="matrix-closure"),
    pytest.param(C.matrix_argument, (X, C.MATRIX), "'m', which is not", "return",
                 id="matrix-argument"),
    pytest.param(C.matrix_in_a_list, (X,), "'m', which is not", "np.dot(m",
                 id="matrix-in-a-global-list"),
    pytest.param(C.matrix_made_here, (X,), "'m', which is not", "return",
                 id="matrix-made-here"),
    pytest.param(C.masked_multiply, (X,), "MASKED (a numpy.ma.", "return",
                 id="masked-multiply"),
    pytest.param(C.masked_computed, (X,), "'t', which is not", "return", id="masked-computed"),
    pytest.param(C.masked_argument, (X, C.MASKED), "'m', which is not", "return",
                 id="masked-argument"),
    pytest.param(C.deque_multiply, (X,), "DEQUE (a collections.deque)", "return",
                 id="deque"),
    pytest.param(C.array_multiply, (X,), "ARRAY (a array.array)", "return", id="array-array"),
    pytest.param(C.fraction_multiply, (X,), "HALF (a fractions.Fraction)", "return",
                 id="fraction"),
    pytest.param(C.member_matrix, (X, C.Params(np.zeros(2), m=C.MATRIX)), "not a number",
                 "return", id="matrix-member"),
    pytest.param(C.matrix_in_a_member_list, (X, C.MatrixHolder(C.MATRIX)), "'m', which is not",
                 "return", id="matrix-in-a-member-list"),  # (were wrong: the kinds took
    pytest.param(C.matrix_in_a_member_dict, (X, C.MatrixHolder(C.MATRIX)), "not a number",
                 "return", id="matrix-in-a-member-dict"),  # an item of the member for an
    pytest.param(C.matrix_in_a_member_tuple, (X, C.MatrixHolder(C.MATRIX)), "not a number",
                 "return", id="matrix-in-a-member-tuple"),  # ndarray)
])
def test_data_s2sad_does_not_model_is_refused_at_the_line(f, args, operand, text):
    for derivative in (s2sad.grad, s2sad.jvp):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PendingDeprecationWarning)
            with pytest.raises(s2sad.NoDerivativeError) as info:
                derivative(f)(*args)
        err = info.value
        assert operand in str(err) and "np.asarray" in err.hint
        assert err.lineno == line_of(f, text)


@pytest.mark.parametrize("f, args", [
    pytest.param(C.matrix_converted, (X,), id="np.asarray-and-np.array-convert"),
    pytest.param(C.masked_filled, (X,), id="masked-filled"),
    pytest.param(C.deque_item, (X,), id="deque-item-is-a-number"),
    pytest.param(C.fraction_converted, (X,), id="float-of-a-fraction"),
    pytest.param(C.member_matrix, (X, C.Params(np.zeros(2), m=np.eye(2))),
                 id="plain-array-member"),
    pytest.param(C.matrix_in_a_member_list, (X, C.MatrixHolder(np.asarray(C.MATRIX))),
                 id="plain-array-in-a-member-list"),
    pytest.param(C.matrix_in_a_member_dict, (X, C.MatrixHolder(np.asarray(C.MATRIX))),
                 id="plain-array-in-a-member-dict"),
    pytest.param(C.matrix_in_a_member_tuple, (X, C.MatrixHolder(np.asarray(C.MATRIX))),
                 id="plain-array-in-a-member-tuple"),
])
def test_data_converted_first_is_differentiated(f, args):
    expected = central(f, args)
    assert np.allclose(s2sad.grad(f)(*args), expected, rtol=1e-6, atol=1e-9)
    assert np.allclose(jvp_all(f, args), expected, rtol=1e-6, atol=1e-9)


def test_a_matrix_member_after_a_plain_one_is_refused():
    """The entry of a variant built for an ndarray member tests its class: a matrix there
    later goes to the general path, and is refused."""
    grad = s2sad.grad(C.member_matrix)
    assert np.allclose(grad(X, C.Params(np.zeros(2), m=np.eye(2))), np.cos(X))
    with pytest.raises(s2sad.NoDerivativeError):
        grad(X, C.Params(np.zeros(2), m=C.MATRIX))


@pytest.mark.parametrize("f, where", [
    (C.matrix_in_a_member_list, lambda p: p.ms),
    (C.matrix_in_a_member_dict, lambda p: p.md),
    (C.matrix_in_a_member_tuple, None),
], ids=["list", "dict", "tuple"])
def test_a_matrix_in_a_member_after_a_plain_array_is_refused(f, where):
    """The entry of a variant built for arrays in a member's list, dict or tuple tests
    their classes: a matrix there later (a new holder, or put into the same list) goes to
    the general path, and is refused (it was differentiated as an array: wrong)."""
    grad = s2sad.grad(f)
    plain = C.MatrixHolder(np.asarray(C.MATRIX))
    assert np.allclose(grad(X, plain), central(f, (X, plain)), rtol=1e-6, atol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        with pytest.raises(s2sad.NoDerivativeError):
            grad(X, C.MatrixHolder(C.MATRIX))
        if where is not None:
            held = where(plain)
            held["m" if isinstance(held, dict) else 0] = C.MATRIX
            with pytest.raises(s2sad.NoDerivativeError):
                grad(X, plain)


# --- the dtypes of an object's members -----------------------------------------------------


@pytest.mark.parametrize("f, params", [
    pytest.param(C.store_into_member_copy, lambda: C.Params(np.zeros(2, dtype=int)),
                 id="store-into-int-member-copy"),
    pytest.param(C.store_into_member_copy, lambda: C.Params(np.zeros(2, dtype=bool)),
                 id="store-into-bool-member-copy"),
    pytest.param(C.store_into_member_copy, lambda: C.Params(np.zeros(2)),
                 id="store-into-float-member-copy"),
    pytest.param(C.member_times_x, lambda: C.Params(np.zeros(2), counts=np.arange(2)),
                 id="int-member-times-x"),
    pytest.param(C.member_filled, lambda: C.Params(np.zeros(2), m=3), id="full-of-int-member"),
    pytest.param(C.member_filled, lambda: C.Params(np.zeros(2), m=3.0),
                 id="full-of-float-member"),
])
def test_members_have_their_dtypes(f, params):
    expected = central(f, (X, params()))
    for optimize in (True, False):
        assert np.allclose(s2sad.grad(f, optimize=optimize)(X, params()), expected,
                           rtol=1e-6, atol=1e-9)
    assert np.allclose(jvp_all(f, (X, params())), expected, rtol=1e-6, atol=1e-9)


def test_the_entry_tests_the_dtype_of_a_member_it_read():
    grad = s2sad.grad(C.store_into_member_copy)
    for buf in (np.zeros(2), np.zeros(2, dtype=int), np.zeros(2), np.zeros(2, dtype=bool)):
        expected = central(C.store_into_member_copy, (X, C.Params(buf)))
        assert np.allclose(grad(X, C.Params(buf)), expected, rtol=1e-6, atol=1e-9)


# --- in-place operators on objects of the user's classes ------------------------------------


@pytest.mark.parametrize("f", [
    pytest.param(C.in_place_mul, id="imul"),
    pytest.param(C.in_place_add, id="iadd"),
    pytest.param(C.in_place_sub, id="isub"),
    pytest.param(C.in_place_div, id="itruediv"),
    pytest.param(C.in_place_pow, id="ipow"),
    pytest.param(C.in_place_matmul, id="imatmul"),
    pytest.param(C.in_place_falls_back, id="no-imul-falls-back-to-mul"),
])
def test_in_place_operators_on_objects_are_their_methods(f):
    a = 1.5
    expected = central(f, (a,))
    for optimize in (True, False):
        value, grad = s2sad.value_and_grad(f, optimize=optimize)(a)
        assert (value, grad) == pytest.approx((f(a), expected), rel=1e-6)
    assert jvp_all(f, (a,)) == pytest.approx(expected, rel=1e-6)


def test_an_in_place_method_that_may_decline_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(C.in_place_declines)(1.5)
    err = info.value
    assert "__imul__" in str(err) and "NotImplemented" in err.hint
    assert err.lineno == line_of(C.in_place_declines, "o *= a")


@pytest.mark.parametrize("f, args, text", [
    pytest.param(C.in_place_in_helper, (1.5,), "o *= a", id="object-given-to-a-helper"),
    pytest.param(C.in_place_by_member, (1.5, C.Holder()), "b *= h.r",
                 id="number-times-member-object"),
])
def test_operators_on_objects_reached_otherwise_are_refused(f, args, text):
    for derivative in (s2sad.grad, s2sad.jvp):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(f)(*args)
        err = info.value
        assert "not a number or a NumPy array" in str(err)
        assert err.lineno == line_of(f if f is not C.in_place_in_helper else C.scale_by, text)
