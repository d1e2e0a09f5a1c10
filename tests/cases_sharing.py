"""Functions that update arrays in place, for tests/test_sharing.py: the ones whose update
could change another value the function still reads (refused), and the safe ones."""

import numpy as np


def _view(a):
    return a.reshape(3)


def _scaled(a):
    return a * 2.0


# --- refused: the update would change a value read later --------------------------------

def reshaped(x):
    a = x * 1.0
    b = a.reshape(3)
    a[0] = 5.0
    return np.sum(b * x)


def transposed(x):
    a = x * 1.0
    b = a.T
    a[0] = 5.0
    return np.sum(b * x)


def as_array(x):
    a = x * 1.0
    b = np.asarray(a)
    a[0] = 5.0
    return np.sum(b * x)


def view_from_helper(x):
    a = x * 1.0
    b = _view(a)
    a[0] = 5.0
    return np.sum(b * x)


def held_in_list(x):
    a = x * 1.0
    ys = []
    ys.append(a)
    a[0] = 5.0
    return np.sum(ys[0] * x)


def shared_in_one_branch(x):
    a = x * 1.0
    b = a
    if x[0] > 0:
        a = a * 2.0
    a[1] = 5.0
    return np.sum(b * x)


def shared_on_a_previous_pass(x):
    a = x * 1.0
    b = x * 2.0
    for i in range(2):
        a[0] = a[0] + 1.0
        b = a
    return np.sum(b * x)


def argument_in_one_branch(v):
    if v[0] > 0:
        v = v * 2.0
    v[0] = 0.5
    return np.sum(v * v)


def argument_on_the_first_pass(v):
    for i in range(2):
        v[0] = 0.5
        v = v * 2.0
    return np.sum(v)


def argument_through_another_name(v):
    a = v
    v = v * 2.0
    a[0] = 0.5
    return np.sum(v * a)


# --- accepted ------------------------------------------------------------------------------

def argument_replaced(v):
    v = np.sin(v) + 0.5
    v[0] = 0.5
    return np.sum(v * v)


def argument_replaced_by_a_constant(v):
    v = np.ones(3) * 2.0
    v[0] = 0.5
    return np.sum(v * v)


def argument_replaced_in_both_branches(v):
    if v[0] > 0:
        v = v * 2.0
    else:
        v = v * 3.0
    v[1] = 0.5
    return np.sum(v * v)


def argument_replaced_on_every_pass(v):
    for i in range(2):
        v = v * 2.0
        v[0] = 1.0
    return np.sum(v * v)


def fresh_from_helper(x):
    a = x * 1.0
    b = _scaled(a)
    a[0] = 5.0
    return np.sum(b * x) + np.sum(a * a)


def old_value_kept_by_another_name(x):
    a = x * 1.0
    b = a
    a = a * 2.0
    a[0] = 5.0
    return np.sum(a * b)


def row_of_a_matrix(x):
    z = np.ones((3, 3))
    a = z[2]  # a view: a row of z, which sees the store (read again: .view_writes)
    z[2] = x * 2.0
    return np.sum(a * x) + np.sum(z)


def slice_of_a_vector(x):
    z = np.zeros(4)
    a = z[1:]  # a view
    z[1] = np.sum(x)
    return np.sum(a * x)


def item_of_an_unknown_array(x):
    z = np.ones(len(x) * (1, 2))  # shape unknown to the compiler: z[0] may be a view
    a = z[0]
    z[0] = x[0]
    return np.sum(a * x)


def item_of_a_vector(x):
    z = np.ones(3)
    a = z[2]  # a number, not a view: the update leaves it alone
    z[2] = np.tanh(x[0])
    return a * np.sum(x) + np.sum(z * x)


def item_of_a_vector_of_unknown_rank(x):
    z = np.dot(np.outer(x, x), x)  # (1-d, which the kinds do not say: checked when it runs)
    a = z[2]  # a NumPy number: the update leaves it alone
    z[2] = np.tanh(x[0])
    a *= x[1]
    return a * np.sum(x) + np.sum(z * x)


def item_of_a_matrix(x):
    z = np.zeros((2, 3))
    a = z[1, 2]
    z[1, 2] = x[1] ** 2
    return a + np.sum(z[1] * x)


def unpacked_from_a_tuple(x):
    z = np.tanh(x)
    a, b = z, x  # a is z
    a[0] = 7.0
    return np.sum(z * b)


def unpacked_rows(x):
    z = np.outer(x, x)
    a, b, c = z  # the rows of z: views
    a[0] = 0.0
    return np.sum(z * x)


def astype_without_a_copy(x):
    z = np.tanh(x)
    y = z.astype(np.float64, copy=False)  # z itself: it is float64 already
    y[0] = 5.0
    return np.sum(z * x)


def swapped_items(x):
    z = np.tanh(x)
    z[0], z[1] = z[1], z[0]  # (numbers: copies, read before either store)
    return np.sum(z * np.arange(1.0, 4.0)) + z[0] * z[2]


def swapped_list_slots(x):
    ys = [x[0], x[1] * 2.0, x[2]]
    ys[0], ys[2] = ys[2], ys[0] * ys[1]
    return ys[0] * 3.0 + ys[2] ** 2 + ys[1]


def swapped_arrays_in_list_slots(x):
    ys = [x * 1.0, x * x]
    ys[0], ys[1] = ys[1], ys[0]  # a list's slots: the arrays themselves are not changed
    return np.sum(ys[0] * np.arange(1.0, 4.0)) + np.sum(ys[1] ** 3)


def index_read_in_turn(x):
    z = x * 1.0
    i = 0
    i, z[i] = 2, z[1] * 5.0  # Python stores i first: this is z[2]
    return np.sum(z * x) * i


def nested_targets_stored_in_turn(x):
    z = x * 2.0
    (z[0], w), z[2] = (z[1], z[2]), z[0]
    return np.sum(z * np.arange(1.0, 4.0)) * w


def unpacked_into_items(x):
    z = np.tanh(x)
    p = (z[2] * 2.0, z[0])
    z[0], z[1] = p
    return np.sum(z * x)


def swapped_rows(x):
    z = np.outer(x, x)
    z[0], z[1] = z[1], z[0]  # rows are views: Python makes both the old row 1
    return np.sum(z * x)


def swapped_slices(x):
    z = np.tanh(x)
    z[0:2], z[1:3] = z[1:3], z[0:2]
    return np.sum(z * x)


STORED_IN_TURN = [swapped_rows, swapped_slices]
SHARED = [reshaped, transposed, as_array, view_from_helper, held_in_list,
          shared_in_one_branch, shared_on_a_previous_pass, item_of_an_unknown_array, unpacked_rows,
          astype_without_a_copy]
ARGUMENT = [argument_in_one_branch, argument_on_the_first_pass, argument_through_another_name]
def list_copy_slot_replaced(v):
    ys = list(v)  # a new list (of v's rows): its slot takes a new value, v keeps its own
    ys[0] = ys[0] * 2.0
    return ys[0] * ys[1] + np.sum(v)


SAFE = [list_copy_slot_replaced, argument_replaced, argument_replaced_by_a_constant, argument_replaced_in_both_branches,
        argument_replaced_on_every_pass, fresh_from_helper, old_value_kept_by_another_name,
        item_of_a_vector, item_of_a_vector_of_unknown_rank, item_of_a_matrix, swapped_items, swapped_list_slots,
        swapped_arrays_in_list_slots, index_read_in_turn, nested_targets_stored_in_turn,
        unpacked_into_items,
        row_of_a_matrix, slice_of_a_vector,  # (views of a local array: .view_writes)
        unpacked_from_a_tuple]  # (a, b = z, x: a is z, .held_items, since session 36)
