"""Structural zeros of items: an item of a list, dict or tuple that no one reads adds nothing.

Which item is read may depend on an index known when the code runs (``ys[k]``) or on a
branch. An item's sensitivity holds ``NOTHING``, the 0.0 ``zeros_like_structure`` puts,
until a term is added to it; the rule of the value stored there runs under a flag
(``got_t_2 = added_to(s_ys[-1])``). JAX gives a number here; s2sad gave NaN (or raised
ZeroDivisionError) before. Each gradient is checked against central differences.
"""

import math
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.runtime import NOTHING, add_sens, added_to, as_gradient, zeros_like_structure


def central(f, x, *rest, h=1e-6):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (the unused NaN, computed)
        return (f(x + h, *rest) - f(x - h, *rest)) / (2 * h)


def appended_first_read(x):
    ys = []
    for i in range(3):
        ys.append(np.sqrt(x - i))  # slope inf at x = 2 for i = 2
    return ys[0] * 2.0


def appended_one_read(x, k):
    ys = []
    for i in range(3):
        ys.append(np.sqrt(x - i))
    return ys[k]


def comprehension(x, k):
    ys = [np.sqrt(x - i) for i in range(3)]
    return ys[k] * x


def dict_item_unread(x, k):
    d = {}
    d["a"] = np.sqrt(x - 2.0)
    d["b"] = x * 3.0
    return d["b"] if k == 0 else d["a"]


def dict_display_unread(x, k):
    d = {"a": np.log(x - 2.0), "b": x * 3.0}  # (Python floats: 1 / 0.0 raised before)
    return d["b"] * x if k == 0 else d["a"] * x


def dict_key_overwritten(x, k):
    d = {}
    d["a"] = np.sqrt(x - 2.0)
    if k == 0:
        d["a"] = x * x
    return d["a"]


def dict_in_a_loop(x, k):
    d = {0: 0.0, 1: 0.0, 2: 0.0}
    for i in range(3):
        d[i] = np.sqrt(x - i)
    return d[0] + d[k]


def list_display_unread(x, k):
    ys = [np.sqrt(x - 2.0), x * 3.0]
    return ys[1 - k]


def list_item_overwritten(x, k):
    ys = [0.0, 0.0]
    ys[0] = np.sqrt(x - 2.0)
    if k == 0:
        ys[0] = x * 3.0
    return ys[0] + ys[1]


def tuple_part_in_a_branch(x, k):
    p = (np.sqrt(x - 2.0), x * 3.0)
    if k == 1:
        return p[0]
    return p[1]


def tuple_part_on_one_pass(x, n):
    p = (np.arcsin(x - 2.0), x * 3.0)  # slope inf at x = 3: read on the sixth pass only
    total = 0.0
    for i in range(n):
        if i == 5:
            total = total + p[0]
        total = total + p[1]
    return total


def sliced(x, k):
    ys = []
    for i in range(3):
        ys.append(np.sqrt(x - i))
    total = 0.0
    for y in ys[:2 + k]:
        total = total + y
    return total


def popped(x, k):
    ys = [np.sqrt(x - 2.0), x * 3.0]
    y = ys.pop()
    return y * y if k == 0 else y * ys[0]


def nested(x, k):
    ps = [(np.sqrt(x - 2.0), x * 3.0), (x * 2.0, np.sqrt(x - 2.0))]
    return ps[0][1] + ps[1][k]


# (f, x, k): the item whose slope is infinite (or NaN) at x is not read
UNUSED = [(appended_first_read, 2.0, None), (appended_one_read, 2.0, 0),
          (appended_one_read, 2.0, 1), (comprehension, 2.0, 0), (dict_item_unread, 2.0, 0),
          (dict_display_unread, 2.0, 0), (dict_key_overwritten, 2.0, 0),
          (dict_in_a_loop, 2.0, 1), (list_display_unread, 2.0, 0),
          (list_item_overwritten, 2.0, 0), (tuple_part_in_a_branch, 2.0, 0),
          (tuple_part_on_one_pass, 3.0, 2), (sliced, 2.0, 0), (popped, 2.0, 0),
          (nested, 2.0, 0)]
# the same, at points where it is read (or where its slope is finite)
USED = [(appended_first_read, 2.5, None), (appended_one_read, 2.5, 2), (comprehension, 2.5, 2),
        (dict_item_unread, 2.5, 1), (dict_display_unread, 2.5, 1), (dict_key_overwritten, 2.5, 1),
        (dict_in_a_loop, 2.5, 2), (list_display_unread, 2.5, 1), (list_item_overwritten, 2.5, 1),
        (tuple_part_in_a_branch, 2.5, 1), (tuple_part_on_one_pass, 2.5, 7), (sliced, 2.5, 1),
        (popped, 2.5, 1), (nested, 2.5, 1)]


def _args(x, k):
    return (x,) if k is None else (x, k)


def _name(v):
    return getattr(v, "__name__", str(v))


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "unoptimized"])
@pytest.mark.parametrize("f, x, k", UNUSED, ids=_name)
def test_an_item_no_one_reads_adds_nothing(f, x, k, optimize):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (its value, computed)
        g = s2sad.grad(f, optimize=optimize)(*_args(x, k))
    assert np.isfinite(g)
    assert g == pytest.approx(central(f, *_args(x, k)), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "unoptimized"])
@pytest.mark.parametrize("f, x, k", USED, ids=_name)
def test_an_item_that_is_read_keeps_its_gradient(f, x, k, optimize):
    g = s2sad.grad(f, optimize=optimize)(*_args(x, k))
    assert g == pytest.approx(central(f, *_args(x, k)), rel=1e-6, abs=1e-8)


def read_times_zero(x):
    ys = [np.sqrt(x - 2.0), x * 3.0]
    return ys[1] + 0.0 * ys[0]


def test_an_item_read_and_times_zero_is_nan_as_in_jax():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(s2sad.grad(read_times_zero)(2.0))


@pytest.mark.parametrize("f, x, k", [(appended_first_read, 2.0, None),
                                     (appended_one_read, 2.0, 0),
                                     (dict_key_overwritten, 2.0, 0),
                                     (dict_display_unread, 2.0, 0),
                                     (list_item_overwritten, 2.0, 0)], ids=_name)
def test_second_derivatives_leave_the_item_out_too(f, x, k):
    first = s2sad.grad(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        second = s2sad.grad(first)(*_args(x, k))
    assert np.isfinite(second)
    assert second == pytest.approx(central(first, *_args(x, k), h=1e-5), rel=1e-5, abs=1e-7)


def test_the_flag_asks_the_item_and_nothing_is_imported_by_name():
    grad = s2sad.grad(dict_key_overwritten)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert grad(2.0, 0) == pytest.approx(4.0)
    source = grad.source
    assert "got_t_2 = added_to(s_d['a'])" in source
    assert "s_d['a'] = NOTHING" in source  # (the item overwritten got nothing yet)
    assert "from s2sad.runtime import NOTHING," in source


def summed(x):
    ys = [np.sqrt(x - i) for i in range(3)]
    return sum(ys)


def test_a_structure_read_whole_gets_no_flags():
    grad = s2sad.grad(summed)
    assert grad(3.5) == pytest.approx(central(summed, 3.5), rel=1e-6)
    assert "added_to" not in grad.source and "got_" not in grad.source


def test_nothing_is_one_zero_that_any_sum_replaces():
    s = zeros_like_structure({"a": [1.0, np.float64(2.0)], "b": (3.0,)})
    assert s["a"][0] is NOTHING and s["a"][1] is NOTHING and s["b"][0] is NOTHING
    assert s["c"] is NOTHING  # (a key the dict did not have)
    assert not added_to(s["a"][0])
    assert add_sens(NOTHING, NOTHING) is NOTHING
    for value in (NOTHING + 0.0, 0.0 + NOTHING, NOTHING * 1.0, add_sens(NOTHING, 0.0),
                  add_sens(0.0, NOTHING), -NOTHING):
        assert added_to(value) and type(value) is float and value == 0.0
    assert math.isnan(NOTHING * math.inf)  # (why the rule must not run)
    # a plain float, which NumPy takes weakly, as 0.0: float32 stays float32
    assert type(NOTHING) is float and (np.ones(2, np.float32) + NOTHING).dtype == np.float32
    assert type(np.float32(1.0) + NOTHING) is np.float32


def first_item(xs):
    return xs[0] * 2.0


def test_a_list_argument_gets_plain_floats():
    g = s2sad.grad(first_item)([1.0, 2.0])
    assert g == [2.0, 0.0] and all(type(v) is float for v in g)
    assert type(as_gradient(1.0, NOTHING)) is float
