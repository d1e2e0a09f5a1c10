"""Findings of the s26 adversarial pass (b): a silently wrong value and gradient, and an
internal error on valid code.

* Forward substitution moved a temporary's value (``np.cos(t_3)``, ``np.copy(t_3)``) into
  its use past a store into the array that ``t_3`` is a view of: ``A[0], A[1] =
  np.sin(A[1]), np.cos(A[0])`` read the row already stored. It now knows which names may
  share memory (views by the rule entries' facts) and moves nothing past such a store.
* ``math.fabs`` of an ``np.float64`` (an item of an array): its adjoint subtracted two
  NumPy bools, a TypeError from the generated code.
* ``A[0] = A[1] = np.sin(A[0])`` evaluated its right side again for the second target.
* ``list(map(operator.methodcaller("fill", 2.0), [y]))``: ``map`` was known to change
  nothing, whatever the function it calls; it now says which argument it calls
  (``Facts.calls``), and one with no facts there is refused as its call would be.
"""

import inspect
import itertools
import math
import operator

import gast
import numpy as np
import pytest

import s2sad
from s2sad.codegen import unparse
from s2sad.transforms.forward_substitution import ForwardSubstitution
from test_higher_order import central_differences

def line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


X = np.array([0.8, 1.3, -0.4, 0.9, 1.7, -1.1])
WEIGHTS = np.arange(6.0).reshape(2, 3) + 1.0


# --- a store between a view's read and its use ---------------------------------------------

def rows_swapped_through_functions(x):
    A = x.reshape(2, 3) * 1.0
    A[0], A[1] = np.sin(A[1]), np.cos(A[0])
    return np.sum(A * A * WEIGHTS)


def halves_swapped_by_copies(x):
    y = x.copy()
    y[:3], y[3:] = y[3:].copy(), y[:3].copy()
    return np.sum(y * y * WEIGHTS.ravel())


def halves_swapped_by_arrays(x):
    y = x * 1.0
    y[:3], y[3:] = np.array(y[3:]), np.array(y[:3]) ** 2
    return np.sum(y ** 3)


def columns_swapped_through_functions(x):
    A = x.reshape(3, 2) * 1.0
    A[:, 0], A[:, 1] = np.exp(A[:, 1]), np.tanh(A[:, 0])
    return np.sum(A ** 2 * WEIGHTS.reshape(3, 2))


def rows_swapped_by_transposes(x):
    A = x.reshape(2, 3) * 2.0
    A[0], A[1] = A.T[:, 1] * 1.0, np.square(A.T[:, 0])
    return np.sum(A * WEIGHTS)


SWAPS = [rows_swapped_through_functions, halves_swapped_by_copies, halves_swapped_by_arrays,
         columns_swapped_through_functions, rows_swapped_by_transposes]


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("f", SWAPS, ids=lambda f: f.__name__)
def test_a_swap_reads_the_values_before_the_first_store(f, optimize):
    value, gradient = s2sad.value_and_grad(f, optimize=optimize)(X.copy())
    assert np.isclose(value, f(X.copy()))
    expected = central_differences(f, (X,), 0).ravel()
    assert np.allclose(gradient, expected, rtol=1e-6, atol=1e-7)
    grad = s2sad.grad(f, optimize=optimize)
    grad(X.copy())  # (the second call reuses the variant)
    assert np.allclose(grad(X * 0.7 + 0.1),
                       central_differences(f, (X * 0.7 + 0.1,), 0).ravel(), atol=1e-6)


@pytest.mark.parametrize("f", SWAPS, ids=lambda f: f.__name__)
def test_a_swap_forward_mode(f):
    t = np.linspace(0.3, 1.1, 6)
    value, push = s2sad.jvp(f)(X.copy())
    assert np.isclose(value, f(X.copy()))
    assert np.isclose(push(t), (f(X + 1e-6 * t) - f(X - 1e-6 * t)) / 2e-6, rtol=1e-5)


@pytest.mark.parametrize("f", SWAPS, ids=lambda f: f.__name__)
def test_a_swap_second_order(f):
    s2sad.check_grads(f, (X.copy(),), order=2)


def test_a_view_read_does_not_move_past_a_store_into_its_base():
    fn = gast.parse('''def g(y):
    t_1 = y[3:]
    t_2 = np.copy(t_1)
    t_3 = y[:3]
    t_4 = np.copy(t_3)
    y[:3] = t_2
    y[3:] = t_4
    return y''').body[0]
    moved = unparse(ForwardSubstitution(lambda f: True, {"t_1", "t_2", "t_3", "t_4"}).visit(fn))
    # the copy of y[:3] stays above the store into y[:3], which changes what t_3 shows
    assert moved.split("\n")[1:4] == ["    t_4 = np.copy(y[:3])", "    y[:3] = np.copy(y[3:])",
                                       "    y[3:] = t_4"]


def test_a_rebound_name_does_not_stop_a_move():
    fn = gast.parse('''def g(x):
    t_1 = x[0]
    t_2 = x[2]
    s_x[2] = t_1 * 2.0
    return t_2''').body[0]
    moved = unparse(ForwardSubstitution(lambda f: True, {"t_1", "t_2"}).visit(fn))
    assert "s_x[2] = x[0] * 2.0" in moved  # (t_2 bound again is not x changed)


# --- math.fabs of NumPy numbers ------------------------------------------------------------

def fabs_of_an_item(x):
    return math.fabs(x[2]) * x[0] + math.fabs(x[1] * x[3])


def fabs_of_a_number(x):
    return math.fabs(x) * 2.0 + math.fabs(x * x - 1.0)


def test_fabs_of_an_array_item_matches_central_differences():
    got = s2sad.grad(fabs_of_an_item)(X)
    assert np.allclose(got, central_differences(fabs_of_an_item, (X,), 0).ravel(), atol=1e-7)
    value, push = s2sad.jvp(fabs_of_an_item)(X)
    assert np.isclose(push(np.ones(6)), np.sum(got))
    s2sad.check_grads(fabs_of_an_item, (X,), order=2)


@pytest.mark.parametrize("x", [-0.4, np.float64(-0.4), np.float64(0.3), np.float32(1.5)],
                         ids=["float", "np.float64-negative", "np.float64", "np.float32"])
def test_fabs_of_a_numpy_number(x):
    got = s2sad.grad(fabs_of_a_number)(x)
    expected = 2.0 * np.sign(x) + 2 * x * np.sign(x * x - 1.0)
    assert np.isclose(got, expected, rtol=1e-6)
    assert np.isclose(s2sad.jvp(fabs_of_a_number)(x)[1](1.0), expected, rtol=1e-6)


def test_fabs_at_zero_is_a_subgradient_not_an_error():
    assert s2sad.grad(fabs_of_a_number)(np.float64(0.0)) == 0.0


# --- a chained assignment evaluates its right side once ------------------------------------

def rows_chained(x):
    A = x.reshape(2, 3) * 1.0
    A[0] = A[1] = np.sin(A[0])
    return np.sum(A ** 2 * WEIGHTS)


def items_chained(x):
    y = x * 1.0
    y[0] = y[1] = y[0] ** 2
    return np.sum(y * WEIGHTS.ravel())


def chained_with_a_name(x):
    y = x * 1.0
    y[2:4] = z = np.exp(y[1:3])
    return np.sum(y * y * WEIGHTS.ravel()) + np.sum(z)


def chained_three(x):
    A = x.reshape(3, 2) * 1.0
    A[0] = A[1] = A[2] = A[0] * A[2]
    return np.sum(A ** 3)


CHAINED = [rows_chained, items_chained, chained_with_a_name, chained_three]


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("f", CHAINED, ids=lambda f: f.__name__)
def test_a_chained_assignment_evaluates_its_value_once(f, optimize):
    value, gradient = s2sad.value_and_grad(f, optimize=optimize)(X.copy())
    assert np.isclose(value, f(X.copy()))
    assert np.allclose(gradient, central_differences(f, (X,), 0).ravel(), rtol=1e-6,
                       atol=1e-7)
    t = np.linspace(0.3, 1.1, 6)
    assert np.isclose(s2sad.jvp(f)(X.copy())[1](t), gradient @ t)


@pytest.mark.parametrize("f", CHAINED, ids=lambda f: f.__name__)
def test_a_chained_assignment_second_order(f):
    s2sad.check_grads(f, (X.copy(),), order=2)


# --- map and filter call a function on the items: one with no facts is refused ------------

def map_fills_the_items(x):
    y = x * 1.0
    list(map(operator.methodcaller("fill", 2.0), [y]))
    return np.sum(y * WEIGHTS.ravel()) + x[0]


def filter_sorts_the_items(x):
    y = x * 1.0
    list(filter(operator.methodcaller("sort"), [y]))
    return np.sum(y * WEIGHTS.ravel())


def map_of_a_known_function(x):
    return sum(map(np.sin, [x[0], x[1] * 2.0]))


@pytest.mark.parametrize("f, text", [(map_fills_the_items, "list(map("),
                                     (filter_sorts_the_items, "list(filter(")],
                         ids=["map", "filter"])
def test_map_of_a_function_without_facts_is_refused_at_the_line(f, text):
    with pytest.raises(s2sad.NoDerivativeError, match="a function it calls on the items "
                       "that s2sad has no rule for") as info:
        s2sad.grad(f)(X.copy())
    assert info.value.lineno == line_of(f, text)
    assert "copy" in str(info.value)  # (the advice: give it a copy)


def test_map_of_a_function_with_a_rule_is_followed():
    got = s2sad.grad(map_of_a_known_function)(X)
    expected = central_differences(map_of_a_known_function, (X,), 0).ravel()
    assert np.allclose(got, expected, atol=1e-7)


def test_map_and_filter_say_they_call_their_first_argument():
    from s2sad import registry
    assert registry.facts(map).calls == (0,) and registry.facts(filter).calls == (0,)
    assert registry.facts(sorted).calls == ()


# --- eval, exec and locals read the function's variables by name ---------------------------

def doubled_by_eval(x):
    y = x * 1.0
    z = eval("y * 2")
    return np.sum(z * WEIGHTS.ravel())


def scaled_by_exec(x):
    y = x * 1.0
    exec("y *= 2")
    return np.sum(y)


def read_through_locals(x):
    y = x * 3.0
    return np.sum(locals()["y"])


@pytest.mark.parametrize("f, text, what", [
    (doubled_by_eval, 'eval("y * 2")', "eval"), (scaled_by_exec, 'exec("y', "exec"),
    (read_through_locals, "locals()", "locals")], ids=["eval", "exec", "locals"])
def test_eval_exec_and_locals_are_refused_at_the_line(f, text, what):
    with pytest.raises(s2sad.UnsupportedSyntaxError,
                       match=f"{what}, which reads or changes the function's variables") as info:
        s2sad.grad(f)(X.copy())
    assert info.value.lineno == line_of(f, text)
    assert "Write the expression out" in str(info.value)


# --- an unknown call returning an iterator: its work runs when it is read, unwatched -------

def starmap_copies_into(x):
    y = x * 1.0
    list(itertools.starmap(np.copyto, [(y, x ** 2)]))
    return np.sum(y * WEIGHTS.ravel())


def starmap_reads_only(x):
    y = x * 1.0
    pairs = list(itertools.starmap(max, [(0.0, 1.0)]))
    return np.sum(y * y) * pairs[0]


def test_an_unknown_call_returning_an_iterator_is_refused_when_it_runs():
    with pytest.raises(s2sad.NoDerivativeError, match="itertools.starmap") as info:
        s2sad.grad(starmap_copies_into)(X.copy())
    assert info.value.lineno == line_of(starmap_copies_into, "itertools.starmap")


def test_an_unknown_call_on_constants_returning_an_iterator_is_followed():
    got = s2sad.grad(starmap_reads_only)(X.copy())
    assert np.allclose(got, 2 * X)


def test_unchanged_call_refuses_an_iterator_over_watched_arrays():
    from s2sad.runtime import unchanged_call
    w = np.array([1.0, 2.0])
    with pytest.raises(s2sad.NoDerivativeError, match="refused"):
        unchanged_call(iter, (w,), "refused", "", w)
    assert unchanged_call(np.sum, (w,), "refused", "", w) == 3.0


# --- a key computed on the line (operator.methodcaller(...)): refused, not a NameError -----

def sorted_by_a_computed_key(x):
    y = x * 1.0
    z = sorted([y, y * 2], key=operator.methodcaller("sum"))
    return np.sum(z[0])


def test_a_computed_sort_key_of_no_facts_is_refused_at_the_line():
    with pytest.raises(s2sad.NoDerivativeError, match="which the gradient follows") as info:
        s2sad.grad(sorted_by_a_computed_key)(X.copy())
    assert info.value.lineno == line_of(sorted_by_a_computed_key, "key=operator")
    assert "not defined" not in str(info.value)
