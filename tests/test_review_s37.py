"""Session 37's review: reproducers of silently wrong results in the merged work.

A list or tuple made by repeating or concatenating displays (``[y] * 2``, ``(y,) * 2``,
``[y] + [x]``) holds ``y`` itself: an in-place update of ``y`` after it must be refused,
as for the display ``[y, y]``. On main ``[y] + [x]`` gave a wrong gradient; on fix/lead37
the repeated forms did too; ``ys.insert(0, y)`` (written ``ys = t_1 + t_2 + ys[0:]``),
``xs * 2 * 1``, the dict union ``d | {...}`` and lists joined in a loop or a branch on
both; so did an update through the list's slot (``ys[0] += x``, ``v = ys[0]; v += x``).
17 of these 18 tests fail on fix/lead37 (the display is the control); with the display
loops' 2 and a control, 19 of the module's 21 fail there.
"""
import numpy as np
import pytest

import s2sad

X = np.array([0.3, -0.7, 1.1])


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


def repeated_then_added(x):
    y = x * 1.0
    ys = [y] * 2
    y += x
    return np.sum(ys[1] * ys[0])


def repeated_left_then_scaled(x):
    y = x * 1.0
    ys = 2 * [y]
    y *= x
    return np.sum(ys[0])


def repeated_then_item_set(x):
    y = x * 1.0
    ys = [y] * 2
    y[0] = 0.0
    return np.sum(ys[1] * x)


def named_display_repeated(x):
    y = x * 1.0
    a = [y]
    ys = a * 2
    y += x
    return np.sum(ys[1] * ys[0])


def tuple_repeated(x):
    y = x * 1.0
    ys = (y,) * 2
    y += x
    return np.sum(ys[1] * x)


def concatenated(x):
    y = x * 1.0
    ys = [y] + [x]
    y += x
    return np.sum(ys[1] * ys[0])


def inserted_then_added(x):
    y = x * 1.0
    ys = [x]
    ys.insert(0, y)
    y += x
    return np.sum(ys[0] * x)


def repeated_twice(x):
    y = x * 1.0
    xs = [y]
    ys = xs * 2 * 1
    y += x
    return np.sum(ys[1] * x)


def dict_union(x):
    y = x * 1.0
    d = {"a": y}
    e = d | {"b": x}
    y += x
    return np.sum(e["a"] * x)


def joined_in_a_loop(x):
    y = x * 1.0
    ys = []
    for i in range(2):
        ys = ys + [y]
    y += x
    return np.sum(ys[1] * x)


def tuple_joined_in_a_loop(x):
    y = x * 1.0
    t = (x,)
    for i in range(2):
        t = t + (y,)
    y += x
    return np.sum(t[1] * x)


def joined_in_a_branch(x):
    y = x * 1.0
    ys = [x]
    ys = [y] + ys if x[0] > 0 else ys
    y += x
    return np.sum(ys[0] * x)


def slot_of_a_joined_list_updated(x):
    y = x * 1.0
    ys = [y] + [x * 2.0]
    ys[0] += x
    return np.sum(y * x)


def slot_of_a_repeated_list_updated(x):
    y = x * 1.0
    ys = [y] * 1
    ys[0] *= x
    return np.sum(y * x)


def item_of_a_joined_list_updated(x):
    y = x * 1.0
    ys = [y] + []
    v = ys[0]
    v += x
    return np.sum(y * x)


def slot_of_a_dict_union_updated(x):
    y = x * 1.0
    d = {"a": y} | {}
    d["a"] += x
    return np.sum(y * x)


def slot_after_an_insert_updated(x):
    y = x * 1.0
    ys = [y]
    ys.insert(0, x * 3.0)
    ys[1] += x
    return np.sum(y * x)


def display_control(x):
    y = x * 1.0
    ys = [y, y]
    y += x
    return np.sum(ys[1] * ys[0])


@pytest.mark.parametrize("f", [repeated_then_added, repeated_left_then_scaled,
                               repeated_then_item_set, named_display_repeated, tuple_repeated,
                               concatenated, inserted_then_added, repeated_twice, dict_union,
                               joined_in_a_loop, tuple_joined_in_a_loop, joined_in_a_branch,
                               slot_of_a_joined_list_updated, slot_of_a_repeated_list_updated,
                               item_of_a_joined_list_updated, slot_of_a_dict_union_updated,
                               slot_after_an_insert_updated, display_control])
def test_update_of_an_item_a_repeated_list_holds(f):
    """Python's list holds ``y``'s array: the update shows through ``ys``. s2sad must give
    the central differences' gradient, or refuse at the update's line."""
    want = _fd(f, X.copy())
    try:
        got = s2sad.grad(f)(X.copy())
    except s2sad.S2sadError as e:
        assert "shares its memory" in str(e) or "shared with" in str(e)
        return
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def two_loops_over_one_display(x):
    ls = [x * 1.0, x * 2.0]
    for v in ls:
        v[0] = v[1] * v[2]
    for v in ls:
        v[1] = v[0] * v[2]
    return np.sum(ls[0] * ls[1])


def loops_over_two_displays(x):
    ls = [x * 1.0, x * 2.0]
    ms = [x * 3.0, np.ones(3)]
    for v in ls:
        v[0] = v[1] * v[2]
    for i, w in enumerate(ms):
        w[i] = w[2] * ls[1][0]
    return np.sum(ls[0] * ms[1]) + np.sum(ms[0] * ls[1])


@pytest.mark.parametrize("f", [two_loops_over_one_display, loops_over_two_displays])
def test_second_loop_writing_through_a_display(f):
    """display_loops names the first loop's items (ls_1 = x * 1.0) before the display: the
    second loop found the display's place stale (AttributeError on fix/lead37; both fail)."""
    want = _fd(f, X.copy())
    np.testing.assert_allclose(s2sad.grad(f)(X.copy()), want, rtol=1e-6, atol=1e-8)


def inserted_in_a_loop(x):
    ys = [x]
    for i in range(3):
        ys.insert(0, ys[0] * x)
    return np.sum(ys[0] * ys[2])


def test_insert_without_a_later_update_is_differentiated():
    """A control (passes on fix/lead37 too): the refusal above is only for an update."""
    want = _fd(inserted_in_a_loop, X.copy())
    np.testing.assert_allclose(s2sad.grad(inserted_in_a_loop)(X.copy()), want, rtol=1e-6,
                               atol=1e-8)
