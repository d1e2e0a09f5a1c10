"""Session 34: small bugs and misleading messages session 33 left. Gradients are checked
against central differences in float64; a refusal against the located format (the user's
file and line, the source line, a caret, what to do)."""

import inspect
import re
import traceback

import numpy as np
import pytest

import s2sad
from s2sad import boundary
from tests.test_higher_order import central_differences

X3 = np.array([0.3, 1.2, 0.7])


def _check(f, x):
    np.testing.assert_allclose(s2sad.grad(f)(x), central_differences(f, [x], 0), rtol=1e-6,
                               atol=1e-8)


def _line_of(f, text: str) -> int:
    """The line of ``f``'s source file that holds ``text``."""
    lines, start = inspect.getsourcelines(f)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _located(error, f, text: str) -> str:
    """``str(error)``, checked to name ``f``'s file, the line holding ``text``, that line
    and a caret under it."""
    shown = str(error)
    line = _line_of(f, text)
    assert f'File "{__file__}", line {line}' in shown, shown
    lines = shown.splitlines()
    at = next(i for i, said in enumerate(lines) if said.strip() == text)
    assert lines[at + 1].strip() == "^", shown
    return shown


# --- 1. an attribute of an operator's result between objects of the user's class ---------

class Vector:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return Vector(self.v + other.v)

    def norm2(self):
        return np.sum(self.v ** 2)


def attribute_of_a_sum(x):
    a = Vector(x)
    b = Vector(x * 2.0)
    return np.sum((a + b).v ** 2)


def method_of_a_sum(x):
    a = Vector(x)
    b = Vector(x * 2.0)
    return (a + b).norm2()


def attribute_of_a_named_sum(x):
    a = Vector(x)
    b = Vector(x * 2.0)
    c = a + b
    return np.sum(c.v ** 2)


def attribute_built_by_the_class(x):
    a = Vector(x)
    b = Vector(x * 2.0)
    c = Vector(a.v + b.v)
    return np.sum(c.v ** 2)


@pytest.mark.parametrize("f, text", [
    (attribute_of_a_sum, "return np.sum((a + b).v ** 2)"),
    (method_of_a_sum, "return (a + b).norm2()"),
    (attribute_of_a_named_sum, "return np.sum(c.v ** 2)")])
def test_an_attribute_of_an_operators_object_is_refused_truly(f, text):
    np.testing.assert_allclose(f(X3), 9.0 * np.sum(X3 ** 2))  # (Python has the attribute)
    with pytest.raises(s2sad.DifferentiationError) as caught:
        s2sad.grad(f)(X3)
    shown = _located(caught.value, f, text)
    assert "AttributeError" not in shown
    assert "your class Vector" in shown and "an operator or a method returns" in shown
    assert "c = Vector(...)" in caught.value.hint


def test_the_object_built_by_its_class_differentiates():
    _check(attribute_built_by_the_class, X3)


def attribute_of_a_sum_of_arguments(a, b):
    c = a + b
    return np.sum(c.v ** 2)


def rebuilt_from_arguments(a, b):
    c = Vector(a.v + b.v)
    return np.sum(c.v ** 2)


def test_an_attribute_of_a_sum_of_argument_objects_is_refused_truly():
    a, b = Vector(X3), Vector(2.0 * X3)
    with pytest.raises(s2sad.DifferentiationError) as caught:
        s2sad.grad(attribute_of_a_sum_of_arguments)(a, b)
    shown = _located(caught.value, attribute_of_a_sum_of_arguments, "return np.sum(c.v ** 2)")
    assert "your class Vector" in shown and "no derivative rule" not in shown
    # (what the hint says to do instead differentiates, against central differences)
    gradient = s2sad.grad(rebuilt_from_arguments)(a, b)
    expected = central_differences(lambda x: rebuilt_from_arguments(Vector(x), b), [X3], 0)
    np.testing.assert_allclose(gradient.v, expected, rtol=1e-6, atol=1e-8)


def misspelt_attribute(x):
    y = np.sin(x)
    return np.sum(y.vv)


def test_an_attribute_no_class_has_still_says_python_raises():
    with pytest.raises(s2sad.DifferentiationError) as caught:
        s2sad.grad(misspelt_attribute)(X3)
    assert "AttributeError" in _located(caught.value, misspelt_attribute,
                                        "return np.sum(y.vv)")


# --- 2. a helper that appends to a list of the function's and returns nothing --------------

def helper_without_return(x):
    out = []

    def push(v):
        out.append(v * 2.0)
    push(x[0])
    push(x[1] * x[2])
    return sum(out) * x[0]


def helper_with_a_bare_return(x):
    out = []

    def push(v):
        if v is None:
            return
        out.append(np.sin(v))
        return
    push(x[0])
    push(x[2])
    return sum(out)


@pytest.mark.parametrize("f", [helper_without_return, helper_with_a_bare_return])
def test_a_helper_appending_to_the_functions_list_returns_none(f):
    _check(f, X3)


module_list = []


def push_to_module(v):
    module_list.append(v * 2.0)


def appends_to_a_module_list(x):
    push_to_module(x[0])
    return sum(module_list)


def test_a_helper_appending_to_a_module_list_is_refused_for_what_it_is():
    with pytest.raises(s2sad.DifferentiationError) as caught:
        s2sad.grad(appends_to_a_module_list)(X3)
    module_list.clear()
    shown = str(caught.value)
    assert "module's or a closure's" in shown and "return" not in caught.value.message
    assert "module_list.append(v * 2.0)" in shown


def no_return_at_all(x):
    def scale(v):
        return v * 2.0
    scale(x)


def test_a_function_without_return_beside_a_helper_that_returns_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as caught:
        s2sad.grad(no_return_at_all)(X3)
    assert "without `return`" in str(caught.value)


# --- 3. a join of a Python int and a Python float: Python's number, which raises -----------

def join_in_a_branch(x):
    if x[0] > 0:
        z = 0
    else:
        z = 2.5
    y = float(x[1]) / z
    return y


def join_in_an_expression(x):
    c = x[0] > 0
    z = 1 if c else 2.0
    y = float(x[1]) / (z - 1)
    return y


@pytest.mark.parametrize("f, text", [(join_in_a_branch, "y = float(x[1]) / z"),
                                     (join_in_an_expression, "y = float(x[1]) / (z - 1)")])
def test_a_join_of_an_int_and_a_float_divides_as_python(f, text):
    with pytest.raises(ZeroDivisionError) as python:
        f(X3)
    with pytest.raises(ZeroDivisionError) as caught:
        s2sad.grad(f)(X3)
    assert str(caught.value).split("\ns2sad: ")[0] == str(python.value)  # (3.10: and notes)
    assert any(f"line {_line_of(f, text)}:" in note
               for note in boundary.notes(caught.value))
    generated = [frame for frame in traceback.extract_tb(caught.value.__traceback__)
                 if frame.filename.startswith("<s2sad")][-1]
    assert not generated.line.lstrip().startswith("s_")  # (the forward sweep: no reverse work)
    _check(f, -X3)  # (the other branch: by 2.5 or 2.0 - 1)


# --- 4. vjp: a cotangent of another shape than the value is refused at the call ------------

def sines(x):
    return np.sin(x) * x


def pair(x):
    return np.sin(x), np.sum(x ** 2)


@pytest.mark.parametrize("f, cotangent, said", [
    (sines, 1.0, "the cotangent has shape (); the value has shape (3,)"),
    (sines, np.ones((1, 3)), "the cotangent has shape (1, 3); the value has shape (3,)"),
    (sines, np.ones(2), "the cotangent has shape (2,); the value has shape (3,)"),
    (pair, (1.0, 1.0), "the cotangent[0] has shape (); the value[0] has shape (3,)"),
    (pair, (np.ones(3),), "the cotangent has 1 item; the value has 2"),
    (pair, np.ones(3), "the cotangent is a ndarray; the value is a tuple of 2")])
def test_a_cotangent_shaped_unlike_the_value_is_refused(f, cotangent, said):
    value, pullback = s2sad.vjp(f)(X3)
    with pytest.raises(ValueError) as caught:
        pullback(cotangent)
    assert said in str(caught.value) and "shaped like the value" in str(caught.value)
    files = [frame.filename for frame in traceback.extract_tb(caught.value.__traceback__)]
    assert __file__ in files and not any(f.endswith("derivatives.py") for f in files)
    # (at the user's call: Python 3.10 also keeps the frame of s2sad's that caught it)


def test_a_cotangent_shaped_like_the_value_pulls_back():
    value, pullback = s2sad.vjp(sines)(X3)
    u = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(pullback(u), central_differences(sines, [X3], 0) @ u,
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(pullback(list(u)), pullback(u))
    value, pullback = s2sad.vjp(pair)(X3)
    expected = central_differences(lambda x: np.sin(x) @ u + 3.0 * np.sum(x ** 2), [X3], 0)
    np.testing.assert_allclose(pullback((u, 3.0)), expected, rtol=1e-6, atol=1e-8)


def test_the_functions_argument_given_to_vjp_itself_is_refused():
    with pytest.raises(TypeError) as caught:
        s2sad.vjp(sines, X3)
    assert "s2sad.vjp(f)(x), not s2sad.vjp(f, x)" in str(caught.value)


def joined_to_a_half(x):
    z = 1 if x[0] > 0 else 2.0
    t = (z - 3) * float(x[1])
    return t ** 0.5


def test_a_join_of_an_int_and_a_float_to_a_half_is_checked_as_pythons():
    x = np.array([0.5, 2.0])
    assert isinstance(joined_to_a_half(x), complex)  # (Python makes it complex)
    with pytest.raises(s2sad.DifferentiationError) as caught:
        s2sad.grad(joined_to_a_half)(x)
    _located(caught.value, joined_to_a_half, "return t ** 0.5")
    assert caught.value.hint
    _check(joined_to_a_half, np.array([0.5, -2.0]))


# --- 3. x[0] / float(...) with an array x: NumPy's quotient (inf), which does not raise ------

def numpy_by_a_python_zero(x):
    y = x[0] / float(x[1] - 1.2)
    return y


def numpy_by_a_python_zero_scaled(x):
    y = x[0] / float(x[1] - 1.2)
    return y * 3.0


@pytest.mark.parametrize("f, scale", [(numpy_by_a_python_zero, 1.0),
                                      (numpy_by_a_python_zero_scaled, 3.0)])
def test_a_numpy_number_by_a_python_zero_is_numpys_quotient_in_the_gradient(f, scale):
    x = np.array([0.3, 1.2, 0.7])
    with np.errstate(divide="ignore", invalid="ignore"):
        assert f(x) == np.inf  # (NumPy's: no ZeroDivisionError)
        gradient = s2sad.grad(f)(x)
    np.testing.assert_array_equal(gradient, [np.inf, -np.inf, 0.0])
    with pytest.warns(RuntimeWarning, match="divide by zero"):  # (as the user's line warns)
        s2sad.grad(f)(x)
    _check(f, np.array([0.3, 1.7, 0.7]))
    assert "np.true_divide" not in s2sad.grad(_python_quotient).source_for(2.0, 3.0)


def _python_quotient(a, b):
    return a / b


# --- 6. messages name the user's code, not s2sad's names ------------------------------------

import operator  # noqa: E402


def sorted_by_a_method_caller(x):
    y = x * 1.0
    z = sorted([y, y * 2.0], key=operator.methodcaller("sum"))
    return np.sum(z[0])


def test_a_computed_sort_key_is_refused_in_the_users_names():
    with pytest.raises(s2sad.NoDerivativeError) as caught:
        s2sad.grad(sorted_by_a_method_caller)(X3)
    shown = _located(caught.value, sorted_by_a_method_caller,
                     'z = sorted([y, y * 2.0], key=operator.methodcaller("sum"))')
    assert "_item" not in shown and "this function" not in shown
    assert not re.search(r"\bt_\d", shown)
    assert "a function computed on this line" in shown and "y.copy()" in caught.value.hint


# --- 5. an error as the gradient runs names the user's line, also for a value moved --------

def mismatched_halves(a):
    return a[:3] + a[:2]


def calls_mismatched_halves(x):
    y = mismatched_halves(x * 2.0)
    return np.sum(y)


def mismatched_here(x):
    y = x[:3] + x[:2]
    return np.sum(y)


def _note(error) -> str:
    notes = [n for n in boundary.notes(error) if n.startswith("s2sad: in ")]
    assert len(notes) == 1, boundary.notes(error)
    return notes[0]


@pytest.mark.skipif(not hasattr(BaseException, "add_note"), reason="3.11+ prints notes")
def test_a_shape_mismatch_names_the_users_line_and_its_source():
    with pytest.raises(ValueError, match="broadcast") as caught:
        s2sad.grad(mismatched_here)(X3)
    note = _note(caught.value)
    assert f"{__file__}, line {_line_of(mismatched_here, 'y = x[:3]')}:" in note
    assert note.endswith("    y = x[:3] + x[:2]")
    assert traceback.format_exception(caught.value)[-1].endswith("y = x[:3] + x[:2]\n")


@pytest.mark.skipif(not hasattr(BaseException, "add_note"), reason="3.11+ prints notes")
def test_a_mismatch_in_a_value_moved_into_another_line_names_its_own_line():
    with pytest.raises(ValueError, match="broadcast") as caught:
        s2sad.grad(calls_mismatched_halves)(X3)
    note = _note(caught.value)  # (the helper's line, then the call: not `return np.sum(y)`)
    assert f"{__file__}, line {_line_of(mismatched_halves, 'return a[:3]')}, in " \
        f"mismatched_halves:\n    return a[:3] + a[:2]" in note, note
    assert f"called from {__file__}, line {_line_of(calls_mismatched_halves, 'y = ')}" in note
    assert "return np.sum(y)" not in note


def test_jvp_refuses_a_number_as_the_tangent_of_an_array():
    value, push = s2sad.jvp(sines)(X3)
    with pytest.raises(ValueError, match=r"the tangent for 'x' has shape \(\); 'x' has shape "
                                         r"\(3,\)"):
        push(1.0)
    u = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(push(u), u @ central_differences(sines, [X3], 0), rtol=1e-6,
                               atol=1e-8)


def mismatched_in_a_loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(x[: 3 - i] * x[:2])
    return s


@pytest.mark.skipif(not hasattr(BaseException, "add_note"), reason="3.11+ prints notes")
def test_an_error_in_a_numba_kernel_names_the_lines_it_computes_not_one_at_random():
    pytest.importorskip("numba")
    with pytest.raises(ValueError) as caught:
        s2sad.grad(mismatched_in_a_loop, target="numba")(X3)
    note = _note(caught.value)
    first = _line_of(mismatched_in_a_loop, "s = 0.0")
    assert "numba kernel" in note and f"of {__file__}" in note and \
        "target='numpy' names the line" in note, note
    lines = [int(n) for n in re.findall(r"lines (\d+) to (\d+)", note)[0]]
    assert first <= lines[0] <= lines[1] <= first + 3, note
    with pytest.raises(ValueError) as caught:  # (and NumPy's names it)
        s2sad.grad(mismatched_in_a_loop)(X3)
    assert f"line {_line_of(mismatched_in_a_loop, 's = s + np.sum')}:" in _note(caught.value)
