"""Session 34: Python as people write it, refused by s2sad though it is modelled exactly
now, each gradient checked against central differences in float64.

* writes through a named view of a local array: ``v = y[1:]; v[0] = e``, ``row = y[0];
  row += x``, ``A[i][j] = e``, ``y.T[0] = e``, ``t = y.T``, ``v = y.reshape(2, 3)`` of
  an array made C-contiguous, a view made before a loop and written in it, ``for row in
  A: row += x`` (view_writes); ``v = y[[0, 2]]`` and ``v = y[mask]``, copies, written (view_writes);
* ``[Layer(w) for w in ws]`` over items s2sad can count, then the objects' methods in a
  loop (object_lists);
* ``copy.deepcopy(d)`` of a dict or list display, then a change to the copy in place
  (deep_copies);
* ``p._replace(w=v)`` of a ``collections.namedtuple`` or ``typing.NamedTuple`` made in
  the function, in a loop too (dict_views, kinds);

Every case was refused on main (``# refused on main``). The tests at the end pin what
stays refused, at the user's line.
"""

import collections
import copy
import typing

import numpy as np
import pytest
from test_overrefusals_s32 import X, check  # (grad, unoptimized and jvp: central)

import s2sad


# --- writes through named views of a local array -------------------------------------------

def slice_written(x):  # refused on main
    y = np.zeros(4)
    v = y[1:]
    v[0] = x[0]
    return np.sum(y * x) + np.sum(v ** 2)


def row_updated(x):  # refused on main
    y = np.zeros((2, 4))
    row = y[0]
    row += x
    return np.sum(y ** 2) + np.sum(row * x)


def item_of_an_item(x):  # refused on main
    A = np.zeros((3, 4))
    A[1][2] = x[0] * x[1]
    A[2][1:3] += x[2:]
    return np.sum(A ** 2) + A[1, 2] * x[3]


def items_of_items_in_loops(x):  # refused on main
    A = np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            A[i][j] = x[i] * x[j + 2]
    return np.sum(A @ A)


def view_written_in_a_loop(x):  # refused on main
    y = np.zeros(4)
    v = y[::2]
    for i in range(2):
        v[i] = x[i] * x[i + 2]
    return np.sum(y * x) + np.sum(v * v)


def row_updated_in_a_loop(x):  # refused on main
    y = np.zeros((3, 4))
    row = y[1]
    for k in range(3):
        row += x * k
    return np.sum(y ** 2)


def row_of_each_turn(x):  # refused on main
    A = np.zeros((3, 4))
    for i in range(3):
        row = A[i]
        row += x * (i + 1)
        row[0] = row[1] * x[3]
    return np.sum(A ** 2)


def view_of_a_view(x):  # refused on main
    y = np.zeros((3, 4))
    a = y[1:]
    b = a[0]
    b[1:3] = x[:2]
    return np.sum(y * y) + np.sum(a[0] * x)


def ellipsis_and_new_axis(x):  # refused on main
    y = np.ones((2, 4))
    v = y[..., 1:]
    v[0] = x[1:] ** 2
    w = y[None, 1]
    w[0, ::2] *= x[0]
    return np.sum(y ** 3)


def array_written_view_read(x):  # refused on main
    y = np.zeros(4)
    v = y[1:]
    y[2] = x[0]
    y[1:] += x[1:] * v
    return np.sum(v * x[1:])


def reversed_view(x):  # refused on main
    y = np.zeros(4)
    v = y[::-1]
    v[0] = x[0]
    v[1:3] = x[1:3] * 2
    return np.sum(y * x)


def column_scaled(x):  # refused on main
    A = np.ones((4, 3))
    c = A[:, 1]
    c *= x
    return np.sum(A ** 2)


def another_name(x):  # refused on main
    y = np.ones(4)
    b = y
    b *= x
    b[1] = x[0]
    return np.sum(y * x) + np.sum(b)


def output_array_of_another_name(x):  # refused on main (test_overrefusals_s30's)
    y = np.zeros(4)
    w = y
    np.exp(x, out=y)
    return np.sum(w * x)


def view_method(x):  # refused on main
    y = np.zeros(4)
    v = y.view()
    v[2] = x[1] ** 2
    v += x
    return np.sum(y * x)


def view_filled_by_copyto(x):  # refused on main
    y = np.zeros(4)
    v = y[1:]
    np.copyto(v, x[:3] ** 2)
    return np.sum(y * x)


def array_written_in_a_loop(x):  # refused on main
    y = np.zeros(4)
    v = y[1:3]
    s = 0.0
    for i in range(4):
        y[i] = x[i] * 2
        s = s + np.sum(v * x[1:3])
    return s


def view_read_in_a_generator(x):  # refused on main
    y = np.zeros((2, 4))
    r = y[1]
    r[:] = x ** 2
    return sum(np.sum(r * k) for k in range(3)) + np.sum(y)


def copy_of_the_argument_sliced(x):  # refused on main
    y = x.copy()
    v = y[1:3]
    v *= 2.0
    return np.sum(y ** 2)


def list_index_copies(x):  # refused on main
    y = x.copy()
    v = y[[0, 2]]
    v[0] = 10.0  # (a copy: y keeps its value)
    return np.sum(y ** 2) + np.sum(v * x[:2])


def mask_copies(x):  # refused on main
    y = np.full(4, 2.0)
    v = y[x > 0]
    v *= 3.0
    return np.sum(y * x) + np.sum(v)


def argument_list_index_copies(x):  # refused on main
    v = x[[1, 3]]
    v[1] = v[0] * x[2]
    return np.sum(x * x) + np.sum(v ** 2)


def array_index_copies(x):  # refused on main
    y = np.zeros((3, 4))
    rows = np.array([2, 0])
    v = y[rows]
    v[0] = x  # (a copy: y keeps its value)
    y[1] = x * x
    return np.sum(y * v[0]) + np.sum(v ** 2)


def transposed_item_written(x):  # refused on main
    y = np.zeros((4, 3))
    y.T[0] = x
    y.T[1:] += np.outer(x[:2], x) * 0.5
    return np.sum(np.sin(y))


def transposed_view_written(x):  # refused on main
    y = np.ones((2, 4))
    t = y.T
    t[:, 0] = x
    t[1:3] *= x[2:, None]
    return np.sum(y[0] * x) + np.sum(t ** 2) + np.sum(y[1] * x)


def transposed_view_updated_in_a_loop(x):  # refused on main
    A = np.zeros((3, 4))
    t = A.T
    for k in range(3):
        t += np.outer(x, x[:3]) * (k + 1.0)
        col = t[:, k]
        col *= x[k]
    return np.sum(A ** 2)


def reshaped_view_written_here(x):  # refused on main
    y = np.zeros(6)
    v = y.reshape(2, 3)
    v[0, 1] = x[0] * x[2]
    v[1] += x[1:]
    return np.sum(y * np.arange(6.0)) + v[0, 1] * x[1] + np.sum(v[1] ** 2)


def reshaped_rows_in_a_loop(x):  # refused on main
    y = np.ones(12)
    v = np.reshape(y, (3, 4))
    for i in range(3):
        v[i] *= x * (i + 1.0)
        y[i] += x[i]
    return np.sum(np.sin(y)) + np.sum(v[:, 1] * x[:3])


def rows_of_a_loop_updated(x):  # refused on main
    A = np.zeros((3, 4))
    for row in A:
        row += x
        row[0] = row[1] * x[3]
    return np.sum(A ** 2)


def rows_of_a_loop_written_in_turn(x):  # refused on main
    A = np.ones((2, 3, 4))
    k = 1.0
    for plane in A:
        plane[1] *= x * k
        k = k + x[0]
    return np.sum(np.tanh(A))


@pytest.mark.parametrize("f", [
    rows_of_a_loop_updated, rows_of_a_loop_written_in_turn,
    reshaped_view_written_here, reshaped_rows_in_a_loop,
    transposed_item_written, transposed_view_written, transposed_view_updated_in_a_loop,
    copy_of_the_argument_sliced, list_index_copies, mask_copies,
    argument_list_index_copies, array_index_copies,
    slice_written, row_updated, item_of_an_item, items_of_items_in_loops,
    view_written_in_a_loop, row_updated_in_a_loop, row_of_each_turn, view_of_a_view,
    ellipsis_and_new_axis, array_written_view_read, reversed_view, column_scaled,
    another_name, array_written_in_a_loop, view_read_in_a_generator,
    output_array_of_another_name, view_filled_by_copyto, view_method])
def test_write_through_a_view(f):
    check(f)


def number_not_a_view(x):  # (works on main: z[0] of a vector is a copy, left alone)
    y = np.zeros(4)
    v = y[0]
    v += x[0]
    y[0] = x[1]
    return v * y[0] + np.sum(y)


def test_a_number_is_not_a_view():
    check(number_not_a_view)


# --- namedtuple._replace ----------------------------------------------------------------

State = collections.namedtuple("State", "h c")


class Params(typing.NamedTuple):
    w: typing.Any
    b: float = 0.5


def field_replaced(x):  # refused on main
    p = State(x, x[0])
    q = p._replace(h=p.h * 2.0)
    return np.sum(q.h * p.h) + q.c


def replaced_in_a_loop(x):  # refused on main
    s = State(x, x[0])
    for _ in range(3):
        s = s._replace(h=np.tanh(s.h * s.c), c=s.c + x[1])
    return np.sum(s.h) * s.c


def typed_replaced_twice(x):  # refused on main
    p = Params(x * 2.0)
    q = p._replace(b=x[3])
    r = q._replace(w=q.w + p.b)
    return np.sum(r.w ** 2) + r.b * q.b


@pytest.mark.parametrize("f", [field_replaced, replaced_in_a_loop, typed_replaced_twice])
def test_namedtuple_replace(f):
    check(f)


# --- objects made by a comprehension ------------------------------------------------------

class Layer:
    def __init__(self, w):
        self.w = w

    def __call__(self, h):
        return np.tanh(self.w * h)


def layers_of_a_range(x):  # refused on main
    layers = [Layer(x[i]) for i in range(3)]
    h = x
    for layer in layers:
        h = layer(h)
    return np.sum(h)


def layers_of_a_list(x):  # refused on main
    ws = [x[0], x[1] * 2.0, x[2]]
    layers = [Layer(w) for w in ws]
    h = x
    for layer in layers:
        h = layer(h) * 1.5
    return np.sum(h)


def layers_of_a_tuple(x):  # refused on main
    layers = [Layer(w) for w in (x[3], x[0])]
    h = x
    for layer in layers:
        h = layer(h) + h
    return np.sum(h ** 2)


@pytest.mark.parametrize("f", [layers_of_a_range, layers_of_a_list, layers_of_a_tuple])
def test_objects_of_a_comprehension(f):
    check(f)


def layers_of_weights(ws, x):
    layers = [Layer(w) for w in ws]
    h = x
    for layer in layers:
        h = layer(h)
    return np.sum(h)


def test_objects_of_a_list_argument():  # refused on main
    ws, step = [0.3, -0.2, 0.5], 1e-6
    want = [(layers_of_weights([w + step * (j == i) for j, w in enumerate(ws)], X) -
             layers_of_weights([w - step * (j == i) for j, w in enumerate(ws)], X)) / (2 * step)
            for i in range(3)]
    np.testing.assert_allclose(s2sad.grad(layers_of_weights)(ws, X.copy()), want, rtol=1e-6)


# --- copy.deepcopy, then a change to the copy ----------------------------------------------

def dict_deep_copied(x):  # refused on main
    d = {"a": x * 1.0, "b": x[0]}
    e = copy.deepcopy(d)
    e["a"] *= 2.0
    e["b"] += x[1]
    return np.sum(d["a"] * e["a"]) + e["b"] * d["b"]


def list_deep_copied(x):  # refused on main
    ps = [x * 1.0, x ** 2, 3.0]
    qs = copy.deepcopy(ps)
    qs[0] += 1.0
    qs[1] *= x
    return np.sum(ps[0] * qs[0]) + np.sum(ps[1] * qs[1]) * qs[2]


def deep_copied_in_a_loop(x):  # refused on main
    state = {"h": np.tanh(x), "c": x[0] * 1.0}
    total = 0.0
    for k in range(3):
        trial = copy.deepcopy(state)
        trial["h"] *= trial["c"] + k
        total = total + np.sum(trial["h"] * state["h"])
    return total


@pytest.mark.parametrize("f", [dict_deep_copied, list_deep_copied, deep_copied_in_a_loop])
def test_deepcopy_then_changed(f):
    check(f)


# --- what stays refused, at the user's line -------------------------------------------------

def reshaped_view_written(x):
    y = np.zeros_like(x)  # (x's order, which may be Fortran's: its reshape may be a copy)
    v = y.reshape(2, 2)
    v[0, 1] = x[0] * x[2]  # <- refused
    return np.sum(y * x) + v[0, 1] * x[1]


def swapped_view_written(x):
    y = np.zeros((2, 4))
    t = np.swapaxes(y, 0, 1)
    t[:, 0] = x  # <- refused
    return np.sum(y[0] * x) + np.sum(t ** 2)


def argument_view_written(x):
    v = x[1:]
    v[0] = 1.0  # <- refused
    return np.sum(x)


def index_bound_again(x):
    y = np.zeros(4)
    i = 1
    v = y[i:]
    i = 2
    v[0] = x[i]  # <- refused
    return np.sum(y * x)


def item_of_a_list_item(x):
    ys = [[0.0, 0.0], [0.0, 0.0]]
    ys[0][1] = x[0]  # <- refused
    return ys[0][1] * x[1]


def one_array_twice_deep_copied(x):
    y = x * 1.0
    d = {"a": y, "b": y}  # (one array: its deep copy holds one new array, twice)
    e = copy.deepcopy(d)
    e["a"] *= 2.0  # <- refused
    return np.sum(e["b"] * x)


def uncopied_array_written(x):
    y = np.array(x, copy=False)  # (x itself: no new array, so no write into one)
    v = y[1:]
    v[0] = 2.0  # <- refused
    return np.sum(y * x)


def fortran_zeros_reshaped(x):
    y = np.zeros((2, 2), float, "F")  # (Fortran's order, by position: its reshape copies)
    v = y.reshape(4)
    v[1] = x[0]  # <- refused
    return np.sum(y) + v[1] * x[1]


def marked_line(f) -> int:
    import inspect
    lines, start = inspect.getsourcelines(f)
    return start + next(i for i, line in enumerate(lines) if "# <- refused" in line)


def layers_of_an_array(x):
    layers = [Layer(w) for w in x]  # (how many: known only when it runs)
    h = x
    for layer in layers:
        h = layer(h)  # <- refused
    return np.sum(h)


@pytest.mark.parametrize("f, words", [
    (one_array_twice_deep_copied, ["e['a'] *= ...", "another slot of 'e'"]),
    (layers_of_an_array, ["layer()"]),
    (reshaped_view_written, ["'v'", "'y'", "`.reshape`"]),
    (swapped_view_written, ["'t'", "'y'", "`.reshape`"]),
    (argument_view_written, ["'v'", "the argument 'x'"]),
    (index_bound_again, ["'v'", "'y'"]),
    (item_of_a_list_item, ["nested element"]),
    (uncopied_array_written, ["'v'", "the argument 'x'"]),
    (fortran_zeros_reshaped, ["'v'", "'y'"])])
def test_refused_at_the_line(f, words):
    with pytest.raises(s2sad.errors.S2sadError) as info:
        s2sad.grad(f)(X.copy())
    assert f"line {marked_line(f)}\n" in str(info.value)
    for word in words:
        assert word in str(info.value)


# --- never silently wrong: the merge review's programs (right, or refused at the line) ----
# Each was silently wrong on the branches before the merge's fixes: an index held in a name
# that may copy (a list, a mask) read again as a view; np.linspace(..., axis=1) taken as
# C-ordered; a list grown by a call before a comprehension over it; a deep copy of
# `[y] + []` (which holds y) copied item by item.


def index_list_in_a_name(x):
    idx = [0, 1]
    y = np.zeros((3, 2))
    v = y[idx]  # (a copy: a later write to y does not reach v)
    y[0, 0] = x[0]
    return np.sum(v * x[1]) + np.sum(y * x[2])


def mask_in_a_name(x):
    m = x[:3] > 0
    y = np.zeros(3)
    v = y[m]
    y[0] = x[0]
    return np.sum(v * x[1]) + np.sum(y * x[2])


def linspace_along_axis_1(x):
    y = np.linspace(np.zeros(2), np.ones(2), 3, axis=1)  # (not C-ordered: reshape copies)
    z = y.reshape(6)
    z[1] = x[0]
    return np.sum(y * np.arange(6.0).reshape(2, 3)) * x[1]


def _grow(items, v):
    items.append(v)


def layers_of_a_list_grown_by_a_call(x):
    ws = [x[0], x[1]]
    _grow(ws, x[2])
    layers = [Layer(w) for w in ws]
    h = x[3]
    for layer in layers:
        h = layer(h)
    return h


def deep_copy_of_a_joined_list(x):
    y = x * 1.0
    d = {"a": [y] + [], "b": y}  # (d["a"][0] is d["b"]: the deep copy keeps that)
    e = copy.deepcopy(d)
    e["b"] *= 2.0
    return np.sum(e["a"][0] * x)


def reshaped_view_transposed_written(x):
    y = np.zeros(6)
    z = y.reshape(2, 3)
    z.T[1] = x[:2]
    return np.sum(y * np.arange(6.0)) * x[2]


@pytest.mark.parametrize("f", [index_list_in_a_name, mask_in_a_name, linspace_along_axis_1,
                               layers_of_a_list_grown_by_a_call, deep_copy_of_a_joined_list,
                               reshaped_view_transposed_written])
def test_never_silently_wrong(f):
    """Right against central differences, or refused (an s2sad error, not a crash)."""
    given = X.copy()
    try:
        got = s2sad.grad(f)(given)
    except s2sad.errors.S2sadError:
        return
    np.testing.assert_array_equal(given, X)
    step = 1e-6
    want = [(f(X + step * e) - f(X - step * e)) / (2 * step) for e in np.eye(len(X))]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
