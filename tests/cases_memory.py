"""Calls that return their argument or a view of it, calls that change an argument in
place, and calls s2sad knows nothing of, for tests/test_memory_facts.py. The line each
refusal names is marked ``# <- here``."""

import heapq
import operator

import numpy as np

import s2sad

RNG = np.random.default_rng(0)


# --- the result is the argument, a view of it, or an item it holds: an update of it is
# an update of the argument, refused while the argument is read later ----------------------

def conj_of_real(x):
    z = x * 1.0
    y = z.conj()  # a real array's conj() is the array itself
    y[0] = 0.0  # <- here
    return np.sum(z * x)


def float64_of_array(x):
    z = x * 1.0
    y = np.float64(z)  # a float64 array itself
    y[0] = 0.0  # <- here
    return np.sum(z * x)


def einsum_diagonal(x):
    z = np.outer(x, x)
    y = np.einsum("ii->i", z)  # a view of z's diagonal
    y[0] = 0.0  # <- here
    return np.sum(z * x)


def nan_to_num_uncopied(x):
    z = x * 1.0
    y = np.nan_to_num(z, copy=False)  # <- here (it replaces z's NaN in z itself)
    y[0] = 0.0
    return np.sum(z * x)


def dict_get(x):
    z = x * 1.0
    d = {"z": z}
    y = d.get("z")
    y[0] = 0.0  # <- here
    return np.sum(z * x)


def loop_over_dict_values(x):
    z = x * 1.0
    d = {"z": z}
    for y in d.values():
        y[0] = 0.0  # <- here
    return np.sum(z * x)


def next_of_iter(x):
    z = x * 1.0
    m = [z]
    y = next(iter(m))
    y[0] = 0.0  # <- here
    return np.sum(z * x)


def first_of_sorted(x):
    z = x * 1.0
    w = x * 2.0
    y = sorted([z, w], key=len)[0]
    y[0] = 0.0  # <- here
    return np.sum(z * x)


def augmented_through_getattr_view(x):
    z = x * 1.0
    y = getattr(z, "T")
    y += 1.0  # <- here
    return np.sum(z * x)


VIEWS = [conj_of_real, float64_of_array, einsum_diagonal, dict_get,
         loop_over_dict_values, next_of_iter, first_of_sorted, augmented_through_getattr_view]


# --- an argument changed in place by a call whose facts say so -----------------------------

def ndarray_fill(x):
    z = x * 2.0
    np.ndarray.fill(z, 1.0)  # <- here
    return np.sum(z * x)


def ndarray_sort(x):
    z = x * 2.0
    np.ndarray.sort(z)  # <- here
    return np.sum(z * x)


def dunder_setitem(x):
    z = x * 2.0
    z.__setitem__(0, 5.0)  # <- here
    return np.sum(z * x)


def operator_iadd(x):
    z = x * 2.0
    operator.iadd(z, x)  # <- here
    return np.sum(z * x)


def list_sort(x):
    ys = [x[1] * 1.0, x[0] * 2.0]
    list.sort(ys)  # <- here
    return ys[0] * x[2]


def heap_push(x):
    ys = [x[0] * 1.0]
    heapq.heappush(ys, x[1] * 0.5)  # <- here
    return ys[0] * x[2]


def clip_output_by_position(x):
    z = x * 2.0
    np.clip(z, 0, 1, z)  # <- here
    return np.sum(z * x)


def generator_shuffle(x):
    z = x * 2.0
    RNG.shuffle(z)  # <- here
    return np.sum(z * x)


def getattr_fill(x):
    z = x * 2.0
    getattr(z, "fill")(1.0)  # <- here
    return np.sum(z * x)


def dict_update(x):
    d = {"a": x * 1.0}
    dict.update(d, a=x * 3.0)  # <- here
    return np.sum(d["a"] * x)


def dot_output_by_position(x):
    z = np.outer(x, x)
    np.dot(z, z, z)  # <- here
    return np.sum(z)


MUTATIONS = [ndarray_fill, ndarray_sort, dunder_setitem, operator_iadd, list_sort, heap_push,
             clip_output_by_position, generator_shuffle, getattr_fill, dict_update,
             dot_output_by_position]


# --- a function s2sad knows nothing of, given a value the gradient follows ------------------

def local_generator_shuffle(x):
    rng = np.random.default_rng(0)
    z = x * 2.0
    rng.shuffle(z)  # <- here
    return np.sum(z * x)


def getattr_by_variable(x):
    z = x * 2.0
    name = "fill"
    getattr(z, name)(1.0)  # <- here
    return np.sum(z * x)


def unknown_given_a_list(x):
    rng = np.random.default_rng(0)
    z = x * 2.0
    rng.shuffle([z])  # <- here
    return np.sum(z * x)


UNKNOWN = [local_generator_shuffle, getattr_by_variable, unknown_given_a_list]


# --- valid: differentiated as before --------------------------------------------------------

def known_pure_builtins(x):
    z = x * 2.0
    n = len(z)
    if isinstance(z, np.ndarray) and type(z) is np.ndarray:
        z = z + float(n)
    return np.sum(z * x) / n


def unknown_given_constants(x):
    rng = np.random.default_rng(0)
    c = np.arange(3.0)
    rng.shuffle(c)  # (c does not depend on x)
    return np.sum(np.sort(c) * x)


def unknown_given_a_copy(x):
    rng = np.random.default_rng(0)
    z = x * 2.0
    rng.shuffle(z.copy())  # (its result needs no gradient)
    return np.sum(z * x)


def conj_not_updated(x):
    z = x * 2.0
    y = z.conj()
    return np.sum(y * x)


def getattr_constant_method(x):
    z = x * 2.0
    return getattr(z, "sum")() * x[0]


def dict_get_read(x):
    d = {"z": x * 2.0}
    return np.sum(d.get("z") * x)


SAFE = [known_pure_builtins, unknown_given_constants, unknown_given_a_copy, conj_not_updated,
        getattr_constant_method, dict_get_read]


# --- valid: a slot of a list made here set after the slot was read (the slot changes, not
# the array it held); these were refused as an update of memory 'inp' shares ---------------

def layer_states_from_a_comprehension(x):
    hidden = [x * (0.5 + i) for i in range(2)]
    out = x * 0.0
    for t in range(2):
        for i in range(2):
            inp = hidden[i]
            new = np.tanh(inp * x[t] + out)
            hidden[i] = new
            out = new + inp
    return np.sum(out * hidden[0])


def layer_states_repeated(x):
    hidden = [np.zeros(3)] * 2  # (both slots hold one array; a slot store replaces one)
    for i in range(2):
        inp = hidden[i]
        hidden[i] = np.tanh(inp + x * (i + 1.0))
    return np.sum(hidden[0] * hidden[1])


def integer_index_then_augmented(x):
    a = x[1]  # (a NumPy scalar: a copy)
    a += a
    return a * x[0]


def float_appended_then_augmented(x):
    ys = []
    a = x[0] * 2.0
    ys.append(a)
    a += x[1]
    return a * ys[0]


SLOTS = [layer_states_from_a_comprehension, layer_states_repeated,
         integer_index_then_augmented, float_appended_then_augmented]


def stop_gradient_view(x):
    z = x * 1.0
    y = s2sad.stop_gradient(z)  # (z itself)
    y[0] = 0.0  # <- here
    return np.sum(z * x)


def nan_to_num_uncopied_by_position(x):
    z = x * 1.0
    y = np.nan_to_num(z, False)  # <- here
    y[0] = 0.0
    return np.sum(z * x)


VIEWS += [stop_gradient_view]
# (np.nan_to_num(z, copy=False) replaces z's NaN in z itself: the call is refused)
MUTATIONS += [nan_to_num_uncopied, nan_to_num_uncopied_by_position]


# --- an item of a list that a slot store or an append gave an array: `a += ...` changes
# that array in place (the list's items were taken for the numbers it was made with) ------

def augmented_item_appended(x):
    z = x * 1.0
    ys = [0.0]
    ys.append(z)
    a = ys[1]
    a += x  # <- here
    return np.sum(z * x)


def augmented_item_stored(x):
    z = x * 1.0
    ys = [0.0, 0.0]
    ys[0] = z
    a = ys[0]
    a += x  # <- here
    return np.sum(z * x)


VIEWS += [augmented_item_appended, augmented_item_stored]


def number_stored_then_augmented(x):
    ys = [x[0] * 1.0, x[1] * 1.0]
    ys[0] = x[2] * 2.0
    a = ys[0]
    a += x[1]
    return a * ys[1]


SLOTS += [number_stored_then_augmented]


# --- `ys[0] += v` on a list or dict made here runs `+=` on the slot's value: an array there
# changes in place, and every name that holds it -------------------------------------------

def slot_augmented_holding_an_array(x):
    z = x * 1.0
    ys = [z]
    ys[0] += x  # <- here
    return np.sum(z * z)


def dict_slot_augmented_holding_an_array(x):
    z = x * 1.0
    d = {"z": z}
    d["z"] += x  # <- here
    return np.sum(z * z)


def dict_merged_in_place_while_shared(x):
    d = {"a": x[0], "b": x[1]}
    e = d
    d |= {"a": x[2]}  # <- here
    return e["a"] + d["b"]


def slot_augmented_holding_an_array_twice(x):
    z = x * 1.0
    ys = [z, z]
    ys[0] += x  # <- here
    return np.sum(ys[1] * x)


def slot_augmented_of_a_repeated_list(x):
    hs = [np.zeros(3)] * 2
    hs[0] += x  # <- here
    return np.sum(hs[1] * x)


VIEWS += [slot_augmented_holding_an_array, dict_slot_augmented_holding_an_array,
          dict_merged_in_place_while_shared, slot_augmented_holding_an_array_twice,
          slot_augmented_of_a_repeated_list]


# --- an in-place update of the differentiated argument, by any form of call or by `+=` ------

def view_of_argument_filled(x):
    x.reshape(3).fill(2.0)  # <- here
    return np.sum(x)


def view_of_argument_sorted(x):
    np.asarray(x).sort()  # <- here
    return x[0] * 2.0 + x[1]


def argument_augmented(x):
    x += 1.0  # <- here
    return np.sum(x * x)


ARGUMENT_UPDATES = [view_of_argument_filled, view_of_argument_sorted, argument_augmented]


def bound_method_held(x):
    z = x * 1.0
    fill = z.fill
    fill(2.0)  # <- here
    return np.sum(z * x)


# --- an assignment to a slice of a list: Python may change its length and copies the right
# side first; refused at the line -------------------------------------------------------------

def list_slice_reversed_from_itself(x):
    ys = [x[0], 2.0 * x[1], 3.0 * x[2]]
    ys[::-1] = ys  # <- here
    return ys[0] + 2.0 * ys[1] + 4.0 * ys[2]


def list_slice_given_fewer_items(x):
    ys = [x[0], 2.0 * x[1], 3.0 * x[2]]
    ys[1:] = [x[2] * x[0]]  # <- here
    return ys[0] + 2.0 * ys[-1]


def _three(x):
    return [x[0] * 1.0, x[1] * 2.0, x[2] * 3.0]


def list_slice_of_a_helper_list(x):
    ys = _three(x)
    ys[1:] = [x[2], x[0]]  # <- here
    return ys[0] + 2.0 * ys[1] + 4.0 * ys[-1]


LIST_SLICES = [list_slice_reversed_from_itself, list_slice_given_fewer_items,
               list_slice_of_a_helper_list]


# --- valid: modeled as Python and NumPy define them --------------------------------------------

def dict_merged_in_place(x):
    d = {"a": x[0], "b": x[1]}
    d |= {"a": x[2] * x[0]}
    return d["a"] + d["b"] * d["b"]


def dict_merged(x):
    d = {"a": x[0], "b": x[1]}
    e = d | {"c": x[2] * x[0]}
    return e["a"] * e["c"] + d["b"] * d["a"]


def astype_copy_then_set(x):
    z = x * 1.0
    y = z.astype(np.float64)  # a copy (copy=True): the update leaves z as it was
    y[2] = 3.0 * x[0]
    return np.sum(z * z) + np.sum(y) * x[1]


def astype_copy_then_augmented(x):
    z = x * 1.0
    y = np.astype(z, np.float64) if hasattr(np, "astype") else z.astype(np.float64)
    y += x * x
    return np.sum(z * z) + np.sum(y) * x[1]


def list_grown_in_a_loop_then_augmented(x):
    ys = [0.0]
    for i in range(3):
        a = ys[-1]
        a += x[i]
        ys.append(a)
    return ys[-1] * ys[-2]


def slot_augmented_holding_a_number(x):
    ys = [x[0] * 1.0, x[1] * 2.0]
    ys[0] += x[2]
    return ys[0] * ys[1]


def slot_augmented_holding_its_own_array(x):
    hs = [x * (1.0 + i) for i in range(2)]
    hs[1] += x * x
    return np.sum(hs[0] * hs[1])


SAFE += [dict_merged_in_place, dict_merged, astype_copy_then_set, astype_copy_then_augmented,
         list_grown_in_a_loop_then_augmented, slot_augmented_holding_a_number,
         slot_augmented_holding_its_own_array]


def list_slice_of_a_list_joined(x):
    ys = [x[0] * 1.0, x[1] * 2.0, x[2] * 3.0]
    ys = ys + [x[0]]
    ys[0:2] = [x[2], x[0]]  # <- here
    return ys[0] + 2.0 * ys[1] + 4.0 * ys[2]


LIST_SLICES += [list_slice_of_a_list_joined]


# --- `out=None` is the default, by position or by keyword: differentiated -------------------

def sin_output_none_by_position(x):
    return np.sum(np.sin(x, None) * x)


def add_and_clip_output_none_by_position(x):
    return np.sum(np.add(x, x * x, None)) + np.sum(np.clip(x * 0.5, -0.5, 0.5, None) * x)


def sum_and_tanh_output_none_by_keyword(x):
    return np.sum(x * x, out=None) + np.sum(np.tanh(x, out=None))


def dot_output_none_by_position(x):
    return np.dot(x * 2.0, x, None)


SAFE += [sin_output_none_by_position, add_and_clip_output_none_by_position,
         sum_and_tanh_output_none_by_keyword, dot_output_none_by_position]


# --- an output array made on the line: refused, named as the output array ------------------

def sin_into_a_new_array_by_position(x):
    y = np.sin(x, np.zeros(3))  # <- here
    return np.sum(y)


def sin_into_a_new_array_by_keyword(x):
    y = np.sin(x, out=np.zeros(3))
    return np.sum(y)


def add_into_a_new_array_by_position(x):
    y = np.add(x, 1.0, np.empty_like(x))  # <- here
    return np.sum(y * x)


# (out=np.zeros(3) by keyword, in a statement of its own: made first and followed, s32)
OUTPUTS_MADE_HERE = [(sin_into_a_new_array_by_position, "`np.sin(x)`"),
                     (add_into_a_new_array_by_position, "`np.add(x, 1.0)`")]


GLOBAL_BUFFER = np.zeros(3)


def copies_into_a_global_array(x):
    np.copyto(GLOBAL_BUFFER, x * 2.0)  # <- here
    return np.sum(GLOBAL_BUFFER * x)
