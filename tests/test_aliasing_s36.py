"""Aliases that Python defines exactly, followed instead of refused (session 36).

A list, tuple or dict display holds its items themselves: ``ls = [y]; y[1] = v`` changes
what ``ls[0]`` reads, and ``ls[0][1] = v`` changes ``y`` (.transforms.held_items). A
helper's ``ls[0] = a`` sets the caller's slot, its ``y[1] = v`` the caller's array, its
``ls.append(a)`` the caller's list whatever the names (.transforms.aliasing). A helper
defined here that returns its argument gives back the same array (.view_helpers).

Every gradient is checked against float64 central differences, with and without the
optimizer. On main, 74 of these 90 tests fail: all 35 cases of FOLLOWED are refused (70
tests), and 4 of the 5 messages of MESSAGES are new; STAY_REFUSED was refused there too.
"""

import numpy as np
import pytest

import s2sad

X = np.array([0.5, 1.5, -2.0])
K = np.array([1.0, -2.0, 3.0])


def central(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (np.sum(f(up)) - np.sum(f(down))) / (2 * eps)
    return g


# --- 1. a display holds the array itself ---------------------------------------------------


def list_then_array_written(x):
    y = np.zeros(3)
    ls = [y]
    y[1] = x[1]
    return np.sum(ls[0])


def list_then_array_written_read_both(x):
    y = x * 1.0
    ls = [y]
    y[1] = x[1] * x[2]
    return np.sum(ls[0] * x) + np.sum(y * K)


def write_through_the_list(x):
    y = np.zeros(3)
    z = np.ones(3)
    ls = [y, z]
    ls[0][1] = x[0]
    return np.sum(y * x) + np.sum(ls[1] * x)


def write_through_the_list_by_a_negative_index(x):
    y = np.zeros(3)
    z = np.ones(3)
    ls = [z, y]
    ls[-1][0] = x[0] * x[2]
    return np.sum(ls[1] * x) + np.sum(y)


def write_through_a_dict(x):
    y = np.zeros(3)
    d = {"a": y, "b": x}
    d["a"][2] = x[0] * x[1]
    return np.sum(d["a"] * d["b"])


def tuple_then_array_written(x):
    y = x * 1.0
    t = (y, x)
    y[0] = x[2] ** 2
    return np.sum(t[0] * t[1])


def written_through_the_list_in_a_loop(x):
    y = np.zeros(3)
    ls = [y, x]
    s = 0.0
    for i in range(3):
        ls[0][i] = x[i] ** 2
        s = s + np.sum(ls[0] * ls[1])
    return s


def closure_reads_the_list(x):
    y = np.zeros(3)
    ls = [y]
    g = lambda: np.sum(ls[0] * x)  # noqa: E731
    y[2] = x[0] ** 3
    return g()


def another_name_then_written(x):
    y = x * 2.0
    v = y
    v[0] = x[0] ** 2
    return np.sum(y * x)


def item_named_then_written(x):
    y = np.zeros(3)
    ls = [y]
    z = ls[0]
    z[0] = x[0] ** 2
    return np.sum(y * x) + np.sum(ls[0] * K)


def view_of_an_item_named_then_written(x):
    y = np.zeros(3)
    ls = [y]
    z = ls[0][:2]
    z[0] = x[0] ** 2
    return np.sum(y * x)


def tuple_unpacked_then_written(x):
    y = np.zeros(3)
    t = (y, 2.0)
    a, b = t
    a[1] = x[1] * b
    return np.sum(t[0] * x)


def list_unpacked_then_written(x):
    y = np.zeros(3)
    ls = [y, x]
    a, b = ls
    a[0] = x[0] ** 2
    return np.sum(y * b)


def names_given_in_one_line_then_written(x):
    y = np.zeros(3)
    z = x * 1.0
    a, b = y, z
    a[0] = x[0] ** 2
    b[1] = x[1] * 3.0
    return np.sum(y * z)


def slot_set_through_another_name_of_the_list(x):
    a = [x[0], x[1]]
    b = a
    b[0] = x[2] * 3.0
    return a[0] * a[1]


# --- 2. a helper sets the caller's slot --------------------------------------------------


def put(ls, a):
    ls[0] = a


def put_twice(ls, a):
    put(ls, a * 2.0)


def put_key(d, a):
    d["k"] = a


def triple_second(ls):
    ls[1] = ls[1] * 3.0


def helper_sets_the_slot(x):
    ls = [np.zeros(3)]
    put(ls, x * 2.0)
    return np.sum(ls[0] * x)


def helper_sets_a_key(x):
    d = {"k": x}
    put_key(d, x ** 2)
    return np.sum(d["k"])


def helper_of_a_helper_sets_the_slot(x):
    ls = [x, x * 2.0]
    put_twice(ls, x ** 2)
    return np.sum(ls[0] * ls[1])


def helper_updates_the_slot_twice(x):
    ls = [x, x * 2.0]
    triple_second(ls)
    triple_second(ls)
    return np.sum(ls[0] * ls[1])


def helper_sets_a_slot_of_a_comprehension(x):
    ls = [x[i] * 1.0 for i in range(3)]
    put(ls, x[2] ** 3)
    return ls[0] * ls[1] + ls[2]


def helper_sets_the_slot_in_a_loop(x):
    ls = [np.zeros(3)]
    for i in range(3):
        put(ls, ls[0] + x * i)
    return np.sum(ls[0] * x)


def old_item_kept_by_a_name(x):
    ls = [x * 1.0]
    old = ls[0]
    put(ls, x ** 2)
    return np.sum(old * ls[0])


def set_second(y, v):
    y[1] = v


def set_at(y, i, v):
    y[i] = v


def add_at(y, i, v):
    y[i] += v


def set_then_read(y, v):
    y[0] = v
    return np.sum(y * K)


def set_through_a_helper(y, v):
    set_second(y, v * 2.0)
    return y[1]


def keep(ls, a):
    ls.append(a)


def grow(ls, a):
    ls.append(a)
    return ls[0]


def helper_appends_to_a_list_of_the_same_name(x):
    ls = [x * 1.0]
    keep(ls, x * 2.0)
    return np.sum(ls[-1] * x)


def helper_appends_and_reads(x):
    ls = [x * 1.0]
    r = grow(ls, x ** 2)
    return np.sum(ls[1] * r)


def helper_writes_into_the_callers_array(x):
    y = np.zeros(3)
    set_second(y, x[0] ** 2)
    return np.sum(y * x)


def helper_writes_in_a_loop(x):
    y = np.zeros(3)
    for i in range(3):
        add_at(y, i, x[i] ** 2)
        add_at(y, (i + 1) % 3, x[i])
    return np.sum(y * x)


def helper_writes_then_reads(x):
    y = x * 1.0
    r = set_then_read(y, x[2] ** 2)
    return r + np.sum(y * x)


def helper_of_a_helper_writes(x):
    y = np.zeros(3)
    r = set_through_a_helper(y, x[0] * x[1])
    return r * np.sum(y * x)


def helper_writes_a_row(x):
    y = np.zeros((2, 3))
    set_second(y, x * 2.0)
    return np.sum(y * x)


def helper_writes_after_a_copy_and_a_sum(x):
    y = np.zeros(3)
    old = y.copy()
    s = np.sum(y * x)
    set_at(y, 2, x[2] ** 2)
    return s + np.sum(y * x) + np.sum(old)


# --- 3. a helper that returns its argument -----------------------------------------------


def ident(a):
    return a


def lambda_returning_its_argument(x):
    y = np.zeros(3)
    same = lambda a: a  # noqa: E731
    v = same(y)
    v[0] = x[0] ** 2
    return np.sum(y * x)


def lambda_returning_its_argument_computed_array(x):
    same = lambda a: a  # noqa: E731
    y = x * 2.0
    v = same(y)
    v[0] = x[1] ** 2
    return np.sum(y * x)


def def_returning_its_argument(x):
    y = np.zeros(3)

    def same(a):
        return a
    v = same(y)
    v[0] = x[0] ** 2
    return np.sum(y * x)


def module_helper_returning_a_computed_array(x):
    y = x * 2.0
    v = ident(y)
    v[0] = x[1] ** 2
    return np.sum(y * x)


def lambda_returning_a_row(x):
    y = np.zeros((2, 3))
    row = lambda a: a[1]  # noqa: E731
    r = row(y)
    r[2] = x[0] * x[1]
    return np.sum(y * K) + np.sum(r * x)


FOLLOWED = [list_then_array_written, list_then_array_written_read_both,
            write_through_the_list, write_through_the_list_by_a_negative_index,
            write_through_a_dict, tuple_then_array_written,
            written_through_the_list_in_a_loop, closure_reads_the_list,
            another_name_then_written, item_named_then_written,
            view_of_an_item_named_then_written, tuple_unpacked_then_written,
            list_unpacked_then_written, names_given_in_one_line_then_written,
            slot_set_through_another_name_of_the_list,
            helper_sets_the_slot, helper_sets_a_key, helper_of_a_helper_sets_the_slot,
            helper_updates_the_slot_twice, helper_sets_a_slot_of_a_comprehension,
            helper_sets_the_slot_in_a_loop, old_item_kept_by_a_name,
            helper_appends_to_a_list_of_the_same_name, helper_appends_and_reads,
            helper_writes_into_the_callers_array, helper_writes_in_a_loop,
            helper_writes_then_reads, helper_of_a_helper_writes, helper_writes_a_row,
            helper_writes_after_a_copy_and_a_sum,
            lambda_returning_its_argument, lambda_returning_its_argument_computed_array,
            def_returning_its_argument, module_helper_returning_a_computed_array,
            lambda_returning_a_row]


@pytest.mark.parametrize("f", FOLLOWED, ids=[f.__name__ for f in FOLLOWED])
@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "plain"])
def test_an_alias_python_defines_is_followed(f, optimize):
    want = central(f, X)
    got = s2sad.grad(f, optimize=optimize)(X.copy())
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


# --- what stays refused: the slot or the name may hold another value -----------------------


def slot_set_then_array_written(x):
    y = np.zeros(3)
    ls = [y]
    ls[0] = x * 3.0
    y[1] = x[1]
    return np.sum(ls[0] * x) + np.sum(y)


def array_name_bound_again(x):
    y = np.zeros(3)
    ls = [y]
    y = x * 2.0
    y[1] = x[1] ** 2
    return np.sum(ls[0] * x) + np.sum(y)


def list_read_whole(x):
    y = np.zeros(3)
    ls = [y]
    y[1] = x[1]
    return np.sum(np.stack(ls) * x)


def array_made_in_a_loop(x):
    ls = None
    for _ in range(2):
        y = np.zeros(3)
        ls = [y]
    y[1] = x[1]
    return np.sum(ls[0] * x)


def list_given_another_name_then_set(x):
    y = np.zeros(3)
    ls = [y]
    other = ls
    other[0] = x * 1.0
    y[0] = x[0]
    return np.sum(ls[0] * x)


def array_augmented_in_place(x):
    y = x * 1.0
    ls = [y]
    y += x ** 2
    return np.sum(ls[0] * x)


def put_then_array_written(x):
    a = np.zeros(3)
    ls = [None]
    put(ls, a)
    a[1] = x[1]
    return np.sum(ls[0] * x)


def helper_sets_a_slot_another_name_reaches(x):
    ls = [np.zeros(3)]
    other = ls
    put(ls, x * 2.0)
    return np.sum(other[0] * x)


def helper_sets_a_slot_a_list_holds(x):
    ls = [np.zeros(3)]
    both = [ls, ls]
    put(ls, x ** 2)
    return np.sum(both[0][0] * x)


def helper_writes_into_an_array_another_name_holds(x):
    y = x * 2.0
    t = y
    set_second(y, x[0] ** 3)
    return np.sum(t * x)


def helper_writes_into_an_array_a_list_holds(x):
    y = np.zeros(3)
    ls = [y]
    set_second(y, x[0] ** 2)
    return np.sum(ls[0] * x)


def helper_writes_into_a_view_of_the_argument(x):
    z = x[1:]
    set_second(z, 1.0)
    return np.sum(x)


def unpacked_with_a_star_then_written(x):
    y = np.zeros(3)
    ls = [y, 2.0]
    a, *b = ls
    a[0] = x[0]
    return np.sum(y * x)


def names_swapped_then_written(x):
    y = np.zeros(3)
    z = np.ones(3)
    a, b = y, z
    a, b = b, a
    a[0] = x[0] ** 2
    return np.sum(y * x) + np.sum(z * x)


STAY_REFUSED = [unpacked_with_a_star_then_written, names_swapped_then_written,
                helper_writes_into_an_array_another_name_holds,
                helper_writes_into_an_array_a_list_holds,
                helper_writes_into_a_view_of_the_argument, slot_set_then_array_written, array_name_bound_again, list_read_whole,
                array_made_in_a_loop, list_given_another_name_then_set,
                array_augmented_in_place, put_then_array_written,
                helper_sets_a_slot_another_name_reaches, helper_sets_a_slot_a_list_holds]


@pytest.mark.parametrize("f", STAY_REFUSED, ids=[f.__name__ for f in STAY_REFUSED])
def test_an_alias_the_syntax_cannot_settle_stays_refused(f):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(f)(X.copy())
    assert __file__ in str(info.value)


def test_a_caller_argument_list_set_by_a_helper_stays_refused():
    def f(x, ls):
        put(ls, x * 2.0)
        return np.sum(ls[0] * x)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="argument 'ls'"):
        s2sad.grad(f)(X.copy(), [np.zeros(3)])


MESSAGES = [
    (helper_writes_into_an_array_another_name_holds,
     "an in-place update of 'y', the caller's array, which shares its memory with 't' there",
     "Return a new value from the helper instead"),
    (helper_writes_into_a_view_of_the_argument, "an in-place update of the argument 'y'",
     "It would change the caller's value."),
    (put_then_array_written, "(put() stored it there)",
     "For 'ls' to see the change, update 'a' before it goes in."),
    (helper_sets_a_slot_another_name_reaches,
     "a store into 'ls', the caller's list or dict, which 'ls' and 'other' reach there",
     "pass it by the name that reads it afterwards"),
    (helper_sets_a_slot_a_list_holds,
     "a store into 'ls', the caller's list or dict, which 'both' and 'ls' reach there",
     "give it no other name"),
]


@pytest.mark.parametrize("f, what, advice", MESSAGES, ids=[m[0].__name__ for m in MESSAGES])
def test_a_refused_alias_says_what_to_write(f, what, advice):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(f)(X.copy())
    assert what in str(info.value) and advice in str(info.value), str(info.value)
