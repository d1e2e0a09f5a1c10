"""Session 33: the known bugs session 32 left, each against central differences in float64
(a higher order against central differences of the order below it)."""

import inspect
import math
import traceback

import numpy as np
import pytest

import s2sad
from s2sad import boundary
from tests.test_higher_order import central_differences

X6 = np.array([0.3, -1.2, 0.7, 1.1, -0.4, 0.9])
M45 = np.array([[0.3, -1.2, 0.7, 1.1, 0.2], [-0.4, 0.9, 0.5, -0.6, 1.3],
                [0.8, 0.1, -0.9, 0.4, -0.2], [1.0, -0.3, 0.6, 0.2, 0.7]])


def _check(f, x):
    np.testing.assert_allclose(s2sad.grad(f)(x), central_differences(f, [x], 0), rtol=1e-6,
                               atol=1e-8)


def _check_hessian(f, x):
    np.testing.assert_allclose(s2sad.hessian(f)(x), central_differences(s2sad.grad(f), [x], 0),
                               rtol=1e-6, atol=1e-7)


# --- 2. np.split at indices out of order or past the end: pieces that overlap --------------

def split_backwards(x):
    a, b, c = np.split(x, [3, 1])  # x[:3], x[3:1] (empty), x[1:]
    return np.sum(a ** 2) + np.sum(b) + np.sum(np.sin(c) * c)


def array_split_past_the_end(x):
    parts = np.array_split(x, [4, 2, 9])  # x[:4], x[4:2], x[2:], x[9:]
    return np.sum(np.sin(parts[0])) + 3.0 * np.sum(parts[2] ** 3) + np.sum(parts[1]) + \
        np.sum(parts[3])


def split_past_the_end_first(x):
    a, b = np.split(x, [9])  # all of x, then nothing
    return np.sum(a * a * a) + np.sum(b)


def split_negative_back(x):
    a, b, c = np.split(x, [-2, 2])  # x[:-2], x[-2:2] (empty), x[2:]
    return np.sum(np.exp(a)) + np.sum(c ** 2)


def hsplit_backwards(m):
    a, b, c = np.hsplit(m, [3, 1])
    return np.sum(a ** 2) + np.sum(np.cos(c) * c) + np.sum(b)


def vsplit_backwards(m):
    a, b, c = np.vsplit(m, [2, 1])
    return np.sum(a ** 3) + np.sum(np.sin(c) * c) + np.sum(b)


def split_axis1_backwards(m):
    a, b, c = np.split(m, [4, 2], axis=-1)
    return np.sum(a * np.sin(a)) + np.sum(c ** 2)


@pytest.mark.parametrize("f", [split_backwards, array_split_past_the_end,
                               split_past_the_end_first, split_negative_back])
def test_split_at_indices_out_of_order_or_past_the_end(f):
    _check(f, X6)
    _check_hessian(f, X6)


@pytest.mark.parametrize("f", [hsplit_backwards, vsplit_backwards, split_axis1_backwards])
def test_hsplit_vsplit_and_an_axis_at_indices_out_of_order(f):
    _check(f, M45)
    _check_hessian(f, M45)


def test_split_backwards_at_third_order():
    v = np.array([0.2, -0.1, 0.4, 0.3, -0.5, 0.1])

    def line(t):
        return split_backwards(X6 + t * v)
    d2 = s2sad.grad(s2sad.grad(line))
    np.testing.assert_allclose(s2sad.grad(d2)(0.2), central_differences(d2, [0.2], 0),
                               rtol=1e-6, atol=1e-8)


def test_split_in_order_keeps_its_join():
    """Indices in order tile the array: the pieces' sensitivities are joined, as before."""
    def f(x):
        a, b = np.split(x, [2])
        return np.sum(a ** 2) + np.sum(np.sin(b))
    _check(f, X6)
    assert "split_grad(" in s2sad.grad(f).source_for(X6)


# --- 3. Python's numbers divided by 0: the gradient raises where the function does ---------

def true_division(x):
    y = x[0] / float(x[1] * 0.0)
    return y


def floor_division(x):
    y = float(x[0]) // float(x[1] * 0.0)
    return y


def remainder(x):
    y = float(x[0]) % float(x[1] * 0.0)
    return y + x[0]  # (its derivative reads no value of y: a line nothing reads on main)


def divmod_remainder(x):
    q, r = divmod(float(x[0]), float(x[1] * 0.0))
    return r


def fmod_by_zero(x):
    y = math.fmod(x[0], float(x[1] * 0.0))
    return y


def pow_of_zero(x):
    y = x[0] * pow(float(x[1] * 0.0), -1)
    return y


def power_of_zero(x):
    y = x[0] * float(x[1] * 0.0) ** -1.5
    return y


DIVIDED_BY_ZERO = [(true_division, [1.0, 2.0], ZeroDivisionError),
                   (floor_division, np.array([1.0, 2.0]), ZeroDivisionError),
                   (remainder, np.array([1.0, 2.0]), ZeroDivisionError),
                   (divmod_remainder, np.array([1.0, 2.0]), ZeroDivisionError),
                   (fmod_by_zero, np.array([1.0, 2.0]), ValueError),
                   (pow_of_zero, np.array([1.0, 2.0]), ZeroDivisionError),
                   (power_of_zero, np.array([1.0, 2.0]), ZeroDivisionError)]


@pytest.mark.parametrize("f, x, error", DIVIDED_BY_ZERO, ids=[c[0].__name__ for c in
                                                               DIVIDED_BY_ZERO])
def test_a_division_of_python_numbers_by_zero_raises_at_the_users_line(f, x, error):
    with pytest.raises(error) as python:
        f(x)
    with pytest.raises(error) as caught:
        s2sad.grad(f)(x)
    assert str(caught.value).split("\ns2sad: ")[0] == str(python.value)  # (3.10: and notes)
    line = inspect.getsourcelines(f)[1] + 1
    assert any(f"line {line}:" in note for note in boundary.notes(caught.value))
    generated = [frame for frame in traceback.extract_tb(caught.value.__traceback__)
                 if frame.filename.startswith("<s2sad")][-1]
    assert not generated.line.lstrip().startswith("s_")  # (the forward sweep: no reverse work)


def test_a_division_by_a_number_not_zero_still_differentiates():
    x = np.array([0.7, 2.0])
    np.testing.assert_allclose(s2sad.grad(quotients)(x), central_differences(quotients, [x], 0),
                               rtol=1e-6, atol=1e-8)


def quotients(x):
    a, b = float(x[0]), float(x[1])
    y = a / b + a // b + math.fmod(a, b) + b % a + pow(b, -1) * a + divmod(a, b)[1]
    return y * a


# --- 4. s2sad.hessian(f, target="numba"): refused at the user's call, in the user's words ---

def cubic_sum(x):
    return np.sum(np.sin(x) * x ** 2)


@pytest.mark.parametrize("api, what", [("hessian", "a Hessian"),
                                       ("hvp", "a Hessian-vector product")])
def test_a_second_derivative_on_numba_is_refused_at_the_call(api, what):
    with pytest.raises(s2sad.DifferentiationError) as caught:
        getattr(s2sad, api)(cubic_sum, target="numba")  # (the line the error names)
    line = inspect.currentframe().f_lineno - 1
    error = caught.value
    text = str(error)
    assert f"s2sad.{api} does not support target='numba'" in text
    assert what in text and "target='numpy'" in text and f"s2sad.{api}(cubic_sum)" in text
    assert (error.filename, error.lineno) == (__file__, line)
    assert "getattr(s2sad, api)(cubic_sum" in text
    assert "grad_cubic_sum" not in text  # (no name of s2sad's own making)
    np.testing.assert_allclose(s2sad.hessian(cubic_sum)(X6[:3]),
                               central_differences(s2sad.grad(cubic_sum), [X6[:3]], 0),
                               rtol=1e-6, atol=1e-7)


# --- 5. tuples prepended in a loop, at second order ---------------------------------------

X3 = np.array([0.3, -1.2, 0.7])
W = 0.8


def prepended(x, w):
    acc = tuple()
    for i in range(3):
        acc = (x[i] * w,) + acc
    return np.sum(np.stack(acc) ** 2) * acc[0]


def prepended_two(x, w):
    acc = ()
    for v in x:
        acc = (v * w, v * v) + acc
    return np.sum(np.stack(acc) ** 3) + acc[1] * acc[4]


def prepended_list(x, w):
    acc = []
    for i in range(3):
        acc = [np.sin(x[i]) * w] + acc
    return sum(a * a * a for a in acc) + acc[0] * acc[2]


@pytest.mark.parametrize("f", [prepended, prepended_two, prepended_list])
def test_prepended_in_a_loop_hessian(f):
    for wrt in (0, 1):
        np.testing.assert_allclose(s2sad.grad(f, wrt=wrt)(X3, W),
                                   central_differences(f, [X3, W], wrt), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.hessian(f)(X3, W),
                               central_differences(s2sad.grad(f), [X3, W], 0),
                               rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", [prepended, prepended_two, prepended_list])
def test_prepended_in_a_loop_grad_of_grad(f):
    for wrt in (0, 1):
        g = s2sad.grad(f, wrt=wrt)

        def h(x, w):
            return np.sum(np.sin(g(x, w)))
        np.testing.assert_allclose(s2sad.grad(h, wrt=wrt)(X3, W),
                                   central_differences(h, [X3, W], wrt), rtol=1e-6, atol=1e-8)


# --- 6. math.dist of a tuple made by a comprehension, at third order ----------------------

X4 = np.array([0.3, -1.2, 0.7, 1.1])


def dist_of_squares(x):
    return math.dist(tuple([v * v for v in x[:2]]), (0.5, -0.3)) * x[3]


def dist_of_two_comprehensions(x):
    return math.dist(tuple([v * x[2] for v in x[:2]]), tuple([np.sin(v) for v in x[2:]]))


def _sin_of_gradient(f):
    g = s2sad.grad(f)

    def sin_of_gradient(x):
        return np.sum(np.sin(g(x)))
    return sin_of_gradient


@pytest.mark.parametrize("f", [dist_of_squares, dist_of_two_comprehensions])
def test_math_dist_of_a_comprehension_at_third_order(f):
    # (main: "a value with a derivative stored into s_x, an array whose dtype s2sad cannot
    # establish": the inlined gradient's s_x = stack.pop() read as any value on the stack)
    once = _sin_of_gradient(f)
    twice = _sin_of_gradient(once)
    np.testing.assert_allclose(s2sad.grad(twice)(X4), central_differences(twice, [X4], 0),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2sad.hessian(f)(X4),
                               central_differences(s2sad.grad(f), [X4], 0), rtol=1e-6,
                               atol=1e-7)


# --- 7. a try block calling a reading method's name on a user's object, through an
# attribute or an item ---------------------------------------------------------------------

class Store:
    """A user's class with a `get` and an `index` that count their calls (side effects)."""

    def __init__(self):
        self.calls = []

    def get(self, key, x):
        self.calls.append(key)
        return x * float(len(self.calls))

    def index(self, v):
        self.calls.append("index")
        return float(len(self.calls))


class Model:
    def __init__(self):
        self.store = Store()

    def loss(self, x):
        try:
            y = self.store.get("a", x) * x
        except KeyError:
            y = x
        return y


def through_an_item(x, d):
    try:
        y = d["s"].index(1.0) * x * x
    except ValueError:
        y = x
    return y


def test_a_users_method_through_an_attribute_in_a_try_block_runs_once_or_is_refused():
    # (main: the try block ran twice, self.store.get counted 2 calls: gradient 8.0, not 4.0)
    model = Model()
    with pytest.raises(s2sad.DifferentiationError, match="'self.store' \\(a Store\\)"):
        s2sad.grad(model.loss)(2.0)
    assert model.store.calls == []  # (refused before the method ran)
    d = {"s": Store()}
    with pytest.raises(s2sad.DifferentiationError, match="a method of \"d\\['s'\\]\""):
        s2sad.grad(through_an_item)(2.0, d)
    assert d["s"].calls == []


def plain_items_in_a_try(x, p):
    try:
        y = np.sum(p["w"].copy() * x) + p["b"].sum() * x[0]
    except KeyError:
        y = np.sum(x)
    return y


def test_a_reading_method_of_plain_data_in_a_try_block_still_differentiates():
    p = {"w": np.array([0.5, -1.0, 2.0]), "b": np.array([0.25, 0.5])}
    x = np.array([0.3, -1.2, 0.7])
    np.testing.assert_allclose(s2sad.grad(plain_items_in_a_try)(x, p),
                               central_differences(plain_items_in_a_try, [x, p], 0),
                               rtol=1e-6, atol=1e-8)


# --- 8. a refusal met as the gradient runs: located as one met as it is built -----------------

def negative_to_a_half(x):
    t = float(x[0]) - 2.0
    y = t ** 0.5 * x[1]  # (Python makes it complex: refused as it runs, t < 0)
    return y


def _caret_column(text: str) -> int:
    lines = text.splitlines()
    carets = [i for i, line in enumerate(lines) if line.strip() == "^"]
    assert carets, text
    return lines[carets[0]].index("^") - lines[carets[0] - 1].index(
        lines[carets[0] - 1].strip()[0])


def test_a_refusal_as_the_gradient_runs_has_its_line_and_a_caret():
    x = np.array([0.5, 2.0])
    with pytest.raises(s2sad.DifferentiationError) as caught:
        s2sad.grad(negative_to_a_half)(x)
    error, text = caught.value, str(caught.value)
    line = inspect.getsourcelines(negative_to_a_half)[1] + 2
    assert (error.filename, error.lineno) == (__file__, line), text
    assert "y = t ** 0.5 * x[1]" in text
    assert _caret_column(text) == len("y = ")  # (under the value the line computes)
    assert error.hint  # (what to do instead)
    np.testing.assert_allclose(s2sad.grad(negative_to_a_half)(np.array([3.0, 2.0])),
                               central_differences(negative_to_a_half,
                                                   [np.array([3.0, 2.0])], 0),
                               rtol=1e-6, atol=1e-8)


def test_a_try_blocks_refusal_as_it_runs_has_a_caret():
    model = Model()
    with pytest.raises(s2sad.DifferentiationError) as caught:
        s2sad.grad(model.loss)(2.0)
    text = str(caught.value)
    assert caught.value.lineno == inspect.getsourcelines(Model.loss)[1] + 1
    assert "try:" in text and _caret_column(text) == 0 and "Call it before" in text


def test_the_module_views_update_refused_as_it_runs_has_a_caret():
    import cases_errors_catalogue as C
    with pytest.raises(s2sad.UnsupportedSyntaxError) as caught:
        s2sad.grad(C.update_module_view)(np.array([0.5, 1.0, 2.0]))
    text = str(caught.value)
    assert "v += x[:2]" in text and _caret_column(text) == 0, text
