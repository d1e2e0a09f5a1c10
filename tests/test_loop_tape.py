"""A ``for i in range(n)`` loop saves its passes' values in lists indexed by ``i``
(transforms/loop_tape.py): gradients against central differences, where the lists are
used and where the stack stays, and derivatives of derivatives of such gradients."""

import numpy as np
import pytest

import s2sad
from tests.cases_range_shadowed import range_shadowed
from tests.test_control_flow import numeric_gradient


def two_carried(x, n):
    p, q = 1.0, 0.0
    for i in range(n):
        q = q + p * x
        p = p * x + 0.5 * q
    return p + q


def inner_while(xs):
    s = 0.0
    for i in range(len(xs)):
        y = xs[i]
        while y > 0.1:
            y = 0.5 * y
            s = s + y * y
        s = s * 1.1
    return s


def branch_in_pass(xs):
    acc = 1.0
    for i in range(len(xs)):
        if xs[i] > 0:
            acc = acc * xs[i]
        else:
            acc = acc + xs[i] ** 2
        acc = np.sin(acc)
    return acc


def nested_for(W, xs):
    h = np.zeros(3)
    for t in range(xs.shape[0]):
        for k in range(2):
            h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def setitem_pass(x):
    ys = [0.0, 0.0, 0.0]
    for i in range(6):
        ys[i % 3] = ys[i % 3] * x + x
    return ys[0] * ys[1] + ys[2]


def with_break(x):
    p = x
    for i in range(10):
        if p > 3.0:
            break
        p = p * x + 0.1
    return p


def counter_reassigned(x):
    p = x
    for i in range(4):
        i = i * 2
        p = p * x + i
    return p


def constant_trips(x):
    for i in range(5):
        x = np.sin(x) * 1.5
    return x


def two_loops(xs, c):
    a = c
    for i in range(len(xs)):
        a = a * xs[i] + c
    b = a
    for j in range(3):
        b = np.cos(b) * a
    return b


def same_range_twice(x, n):
    p = x
    for i in range(n):
        p = p * x
    for i in range(n):
        p = np.sin(p)
    return p


rng = np.random.default_rng(3)
W3 = rng.normal(size=(3, 3)) * 0.4
XS = rng.normal(size=(4, 3))

CASES = [  # (function, arguments, which argument, lists indexed by the counter?)
    pytest.param(two_carried, (0.7, 5), 0, True, id="two-carried-values"),
    pytest.param(inner_while, ([1.3, 0.05, 2.7],), 0, True, id="while-inside"),
    pytest.param(branch_in_pass, ([0.4, -0.8, 1.2, -0.3],), 0, True, id="branch-inside"),
    pytest.param(nested_for, (W3, XS), 0, False, id="nested-for-W"),
    pytest.param(nested_for, (W3, XS), 1, False, id="nested-for-xs"),
    pytest.param(setitem_pass, (0.9,), 0, True, id="list-item-overwritten"),
    pytest.param(with_break, (1.2,), 0, False, id="break"),
    # (the body's i = i * 2 is an ordinary name since session 27: the loop counts with
    # i_1 of its own, for i_1 in range(4): i = i_1, and its tape is indexed by i_1)
    pytest.param(counter_reassigned, (0.8,), 0, True, id="counter-reassigned"),
    pytest.param(constant_trips, (0.6,), 0, True, id="range-of-a-constant"),
    pytest.param(two_loops, ([0.9, 1.1, 0.7], 0.3), 0, True, id="two-loops-xs"),
    pytest.param(two_loops, ([0.9, 1.1, 0.7], 0.3), 1, True, id="two-loops-c"),
    pytest.param(range_shadowed, (0.8,), 0, False, id="range-shadowed"),
    # the second loop is walked back first: each reverse loop reads its own loop's list
    pytest.param(same_range_twice, (0.7, 3), 0, True, id="same-range-twice"),
]


@pytest.mark.parametrize("f, args, wrt, taped", CASES)
def test_gradient_matches_central_differences(f, args, wrt, taped):
    g = s2sad.grad(f, wrt=wrt)
    got = g(*args)
    want = numeric_gradient(f, args, wrt)
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-6, atol=1e-8)
    source = g.source_for(*args)
    assert ("_saved = [None] * " in source) == taped, source
    if taped:  # a pass's values come back from its own index: no push and pop for them
        index = "j" if f is two_loops else "i_1" if f is counter_reassigned else "i"
        assert f"_saved[{index}]" in source, source


def test_what_inner_loops_and_branches_save_stays_on_the_stack():
    source = s2sad.grad(inner_while).source_for([1.3, 0.05, 2.7])
    assert "trips_1_saved[i] = trips_1" in source and "trips_1 = trips_1_saved[i]" in source
    assert "stack.append(y)" in source and "y = stack.pop()" in source  # the while's passes
    source = s2sad.grad(nested_for).source_for(W3, XS)
    assert "stack.append(h)" in source and "h = stack.pop()" in source


def test_unoptimized_gradient_keeps_the_stack():
    source = s2sad.grad(two_carried, optimize=False).source_for(0.7, 5)
    assert "_saved" not in source and "stack.pop()" in source


def test_stages_show_the_lists():
    stages = dict(s2sad.grad(two_carried).stages(0.7, 5))
    assert "stack.pop()" in stages["python_floats"] and "stack" not in stages["loop_tape"]


@pytest.mark.parametrize("f, args", [(two_carried, (0.7, 5)), (constant_trips, (0.6,)),
                                     (with_break, (1.2,))])
def test_second_derivatives_of_a_loop(f, args):
    """A derivative of a derivative reads the inner gradient with its values on the stack
    (compiled again for it); both orders and both modes against finite differences."""
    s2sad.check_grads(f, args, order=2, modes=("rev", "fwd"), wrt=0)
    inner = s2sad.grad(f)
    inner(*args)
    assert "_saved" in inner.source or f is with_break
    differentiated = s2sad.grad(inner).stages(*args)[0][1]  # (the "source" stage)
    assert "_saved" not in differentiated and "def grad_" in differentiated


def test_hessian_vector_product_through_a_taped_loop():
    def f(x):
        p = 1.0
        for i in range(x.shape[0]):
            p = p * np.sin(x[i]) + x[i]
        return p

    x, v = np.array([0.3, 0.8, -0.5]), np.array([1.0, -2.0, 0.5])
    hv = s2sad.hvp(f)(x, v)
    eps = 1e-5
    g = s2sad.grad(f)
    want = (g(x + eps * v) - g(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(hv, want, rtol=1e-6, atol=1e-8)
    assert "_saved" in g.source


@pytest.mark.parametrize("f, args, wrt, taped", CASES)
def test_every_value_the_gradient_sets_is_read(f, args, wrt, taped):
    """No leftovers: a name set to None before a loop but no longer saved, a structure's
    zeros after the last read of them (``s_ys = [0.0] * len(ys)``)..."""
    import ast
    tree = ast.parse(s2sad.grad(f, wrt=wrt).source_for(*args))
    counters = {n.target.id for n in ast.walk(tree) if isinstance(n, ast.For)}
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Store)} - counters
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Load)}
    assert stored <= loaded, sorted(stored - loaded)


# --- lists a function fills by index itself --------------------------------------------------

def filled_then_read_backwards(x, T):
    hs = [None] * T
    h = x
    for t in range(T):
        h = np.sin(h) * 1.5
        hs[t] = h
    total = 0.0
    for t in reversed(range(T)):
        total = total * 0.5 + hs[t]
    return total


def filled_arrays(W, x):
    hs = [None] * 3
    h = x
    for t in range(3):
        h = np.tanh(W @ h)
        hs[t] = h
    total = 0.0
    for t in reversed(range(3)):
        total = total + np.sum(hs[t] * hs[2 - t])
    return total


def filled_to_its_length(x):
    hs = [None] * len(x)
    for t in range(len(x)):
        hs[t] = np.sin(x[t])
    total = 0.0
    for t in reversed(range(len(x))):
        total = total * 0.5 + hs[t]
    return total


def concatenated(x):
    ys = [x, 2.0 * x] + [x * x]
    total = 0.0
    for k in reversed(range(3)):
        total = total * x + ys[k]
    return total


@pytest.mark.parametrize("f, args, wrt", [
    (filled_then_read_backwards, (0.7, 4), 0),
    (filled_arrays, (np.eye(2) * 0.5 + 0.1, np.array([0.3, -0.2])), 0),
    (filled_arrays, (np.eye(2) * 0.5 + 0.1, np.array([0.3, -0.2])), 1),
    (concatenated, (0.8,), 0),
    (filled_to_its_length, ([0.3, 0.5, 0.9],), 0),
    (filled_to_its_length, (np.array([0.3, 0.5, 0.9]),), 0),
], ids=["floats", "arrays-W", "arrays-x", "list-plus-list", "len-list", "len-array"])
def test_a_list_made_by_repetition_or_concatenation_is_a_list(f, args, wrt):
    """``[None] * T`` and ``xs + ys`` are lists: an item read at an index the compiler
    cannot see (``reversed(range(T))``) gets its sensitivity as a list's item (this was
    ``np.add.at`` on a list, a TypeError)."""
    got = s2sad.grad(f, wrt=wrt)(*args)
    np.testing.assert_allclose(np.asarray(got, dtype=float), numeric_gradient(f, args, wrt),
                               rtol=1e-6, atol=1e-8)


def test_second_derivative_of_a_user_list_filled_by_index():
    """Forward over reverse: the tangent of ``add_sens(a, b)`` on lists is one call on both
    tangents (a sum of two calls concatenated the lists)."""
    s2sad.check_grads(filled_then_read_backwards, (0.7, 4), order=2, modes=("rev", "fwd"), wrt=0)


def repeated(x):
    ys = [x] * 3
    return ys[0] * ys[2]


def test_repeating_a_list_of_active_values():
    """Each item's sensitivity is the sum of its copies' (refused before session 37)."""
    assert s2sad.grad(repeated)(0.8) == pytest.approx(1.6)
    s2sad.check_grads(repeated, (0.8,), order=2, modes=("rev", "fwd"))
