"""Session 34: Python as people write it, refused by s2sad though it is modelled exactly
now, each gradient checked against central differences in float64.

* writes through a named view of a local array: ``v = y[1:]; v[0] = e``, ``row = y[0];
  row += x``, ``A[i][j] = e``, a view made before a loop and written in it
  (view_writes);

Every case was refused on main (``# refused on main``). The tests at the end pin what
stays refused, at the user's line.
"""

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


@pytest.mark.parametrize("f", [
    slice_written, row_updated, item_of_an_item, items_of_items_in_loops,
    view_written_in_a_loop, row_updated_in_a_loop, row_of_each_turn, view_of_a_view,
    ellipsis_and_new_axis, array_written_view_read, reversed_view, column_scaled,
    another_name, array_written_in_a_loop, view_read_in_a_generator])
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
