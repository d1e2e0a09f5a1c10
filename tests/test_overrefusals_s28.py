"""Session 28: programs s2sad refused though it models them exactly, now differentiated.

Each case is a small program as people write them (losses, loops, dicts, lists, sorted
with a key, helpers); its gradient is checked against central differences in float64.
A case marked ``# refused on main`` was refused before this session: a held getter
(``key = operator.itemgetter(1)``), ``dict.fromkeys`` filled later, ``np.piecewise``
after another call in its statement, ``sorted(xs)`` without a key, ``dict(zip(names,
vals))`` with names from a list, ``xs.extend(...)``, ``d.update({...})``, dict
comprehensions, a dict filled by key beside a dict read by its keys. The last tests pin
what stays refused (not modelled exactly) and Python's evaluation order.
"""

import collections
import operator
from operator import attrgetter, itemgetter

import numpy as np
import pytest

import s2sad

X = np.array([0.3, -0.5, 1.2, 0.7])


def central(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


PT = collections.namedtuple("PT", "m v")


# --- held getters (sort_keys.held_getter) ------------------------------------------------

def getter_sorted(x):  # refused on main
    pairs = [(0, x[0]), (1, x[1] * 2.0), (2, x[2] - 1.0)]
    key = operator.itemgetter(1)
    s = sorted(pairs, key=key)
    return s[0][1] * 3.0 + s[2][1]


def getter_max_min(x):  # refused on main
    pairs = [(0, x[0]), (1, x[1] * 2.0), (2, x[2] - 1.0)]
    key = operator.itemgetter(1)
    return max(pairs, key=key)[1] * min(pairs, key=key)[1]


def getter_called(x):  # refused on main
    pairs = [(0, x[0]), (1, x[1] * 2.0)]
    get = itemgetter(1)
    return get(pairs[0]) * get(pairs[1])


def getter_of_items(x):  # refused on main
    d = {"a": x[0], "b": x[1], "c": x[2]}
    key = itemgetter(1)
    ranked = sorted(d.items(), key=key, reverse=True)
    return ranked[0][1] - ranked[-1][1]


def getter_in_a_loop(x):  # refused on main
    pts = [(x[0], 1.0), (x[1], 2.0), (x[2], 3.0)]
    total = 0.0
    for j in range(2):
        key = itemgetter(j)
        total += min(pts, key=key)[0]
    return total


def getter_argument_bound_when_made(x):  # refused on main
    j = 1
    key = itemgetter(j)  # (reads 1: the getter keeps the value it was made with)
    j = 0
    pairs = [(x[0], x[1]), (x[2], x[1] - 1.0), (x[1], x[3])]
    return max(pairs, key=key)[j] * 2.0


def getter_two_keys(x):  # refused on main
    rows = [(1, x[0], x[1]), (0, x[2], x[3]), (1, x[3], x[0])]
    key = itemgetter(0, 1)
    return sorted(rows, key=key)[-1][2] * 3.0


def attrgetter_held_on_tuples(x):  # refused on main (a namedtuple argument's items)
    key = attrgetter("real")
    vals = [x[0] * 2.0, x[1], x[2]]
    return max(vals, key=key) * x[3]


def getter_inline(x):
    pairs = list(zip(["a", "b", "c", "d"], x))
    return max(pairs, key=itemgetter(1))[1] ** 2


# --- dict.fromkeys, dict(zip(...)), update (star_args, container_updates) -----------------

def fromkeys_filled(x):  # refused on main
    names = ["a", "b", "c"]
    d = dict.fromkeys(names, 0.0)
    for i, k in enumerate(names):
        d[k] = d[k] + x[i] * 2.0
    return d["a"] * d["b"] + d["c"]


def fromkeys_stored(x):  # refused on main
    d = dict.fromkeys(["a", "b", "c"], 0.0)
    d["a"] = x[0] * 2.0
    return d["a"] * x[1] + d["c"]


def fromkeys_none_then_set(x):  # refused on main
    d = dict.fromkeys(["a", "b"])
    d["a"] = x[0]
    d["b"] = x[1] * x[0]
    return d["a"] + d["b"]


def fromkeys_augmented(x):  # refused on main
    layers = ("l1", "l2", "l3")
    g = dict.fromkeys(layers, 1.0)
    g["l1"] += x[0] ** 2
    g["l3"] *= x[2]
    return g["l1"] * g["l2"] + g["l3"]


def zipped_names(x):  # refused on main
    names = ["a", "b", "c"]
    d = dict(zip(names, [x[0], x[1], x[2]]))
    return d["a"] * d["b"] - d["c"]


def zipped_then_filled(x):  # refused on main
    names = ["a", "b", "c"]
    d = dict(zip(names, [0.0, 0.0, 0.0]))
    for i, k in enumerate(names):
        d[k] = d[k] + x[i] * 2.0
    return d["a"] * d["b"] + d["c"]


def dict_update(x):  # refused on main
    d = {"a": x[0], "b": x[1]}
    d.update({"b": x[2] * 2.0}, c=x[3])
    return d["a"] * d["b"] + d["c"]


def list_extend(x):  # refused on main
    vals = [x[0]]
    vals.extend([x[1], np.sin(x[2])])
    vals.extend((x[3],))
    return vals[0] * vals[2] + vals[3] * len(vals)


def list_extend_in_a_loop(x):  # refused on main
    vals = []
    for i in range(2):
        vals.extend([x[2 * i] * x[2 * i + 1], x[i]])
    return sum(vals)


# --- np.piecewise after another call (piecewise.Piecewise.computed_first) ----------------

def pw_after_exp(x):  # refused on main
    y = np.exp(x) + np.piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, lambda v: v])
    return np.sum(y)


def pw_in_a_sum_times_exp(x):
    return np.sum(np.piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, lambda v: v]) *
                  np.exp(x))


def pw_second_argument(x):  # refused on main
    return np.dot(np.sin(x), np.piecewise(x, [x < 0], [lambda v: -v, lambda v: v]))


def pw_after_a_sum(x):  # refused on main
    return np.sum(x) + np.sum(np.piecewise(x, [x < 0.0], [np.sin, np.cos]))


def pw_scaled_tanh(x):  # refused on main
    y = 2.0 * np.tanh(x) + np.piecewise(x, [x < 0, x >= 0], [lambda v: 0.1 * v, lambda v: v])
    return np.sum(y ** 2)


def pw_in_a_dict(x):  # refused on main
    d = {"e": np.exp(x[:2]), "p": np.piecewise(x[:2], [x[:2] < 0], [np.sin, np.cos])}
    return np.sum(d["e"] * d["p"])


def pw_two_after_calls(x):  # refused on main
    a = np.cos(x)
    y = a * np.sin(x) + np.piecewise(x, [x < 0], [np.sin, np.cos]) - \
        np.piecewise(x, [x > 0.5], [lambda v: v ** 3, lambda v: v])
    return np.sum(y)


def pw_augmented_name(x):  # refused on main
    s = np.sum(x ** 2)
    s += np.sum(np.exp(x)) * np.sum(np.piecewise(x, [x < 0], [np.sin, np.cos]))
    return s


# --- sorted without a key (sort_keys) ------------------------------------------------------

def sorted_top_two(x):  # refused on main
    vals = sorted(list(x), reverse=True)
    return vals[0] + vals[1]


def trimmed_mean(x):  # refused on main
    vals = [x[0] ** 2, x[1] * 3.0, x[2], x[3] - 0.1]
    s = sorted(vals)
    return sum(s[1:-1]) / (len(s) - 2)


def median_of_array(x):  # refused on main
    s = sorted(x)
    return (s[1] + s[2]) / 2.0


def sorted_appended(x):  # refused on main
    losses = []
    for v in x:
        losses.append((v - 0.2) ** 2)
    ranked = sorted(losses)
    return ranked[-1] * 2.0 + ranked[0]


def sorted_zipped(x):  # refused on main (an internal AttributeError)
    pairs = sorted(zip(x[:3], ["c", "a", "b"]))
    return pairs[0][0] * 2.0 + pairs[2][0]


def listed_zip_of_a_slice(x):  # refused on main (an internal AttributeError)
    pairs = list(zip(x[:3], ["c", "a", "b"]))
    return pairs[0][0] * 2.0 + pairs[2][0] * pairs[1][0]


def sorted_dict_values(x):  # refused on main
    d = {"a": x[0], "b": x[1], "c": x[2]}
    vals = sorted(d.values())
    return vals[0] * vals[-1]


# --- dict comprehensions, dicts filled by key, extend of a computed list ------------------

def sgd_dict_comprehension(x):  # refused on main
    params = {"w": x[0], "b": x[1]}
    grads = {"w": 2.0 * x[0], "b": x[1] ** 2}
    params = {k: params[k] - 0.1 * grads[k] for k in params}
    return params["w"] * params["b"]


def dict_comprehension_of_zip(x):  # refused on main
    d = {k: v for k, v in zip(["a", "b", "c"], x)}
    return d["a"] * d["b"] + d["c"]


def dict_comprehension_scoped(x):  # refused on main
    k = 2.0  # (the comprehension's k is its own: this one is read after it)
    d = {k: x[i] * 3.0 for i, k in enumerate(["a", "b", "c"])}
    return d["a"] * d["c"] + k * x[3]


def dict_comprehension_filtered(x):  # refused on main
    d = {n: v ** 2 for n, v in zip(["a", "b", "c", "d"], x) if n != "b"}
    return d["a"] + d["d"] * d["c"]


def dict_comprehension_tuple_keys(x):  # refused on main
    d = {(i, j): x[i] * x[j] for i in range(2) for j in range(2)}
    return d[(0, 1)] + d[(1, 1)]


def filled_from_a_display(x):  # refused on main
    p = {"w": x[0], "b": x[1]}
    q = {}
    for k in p:
        q[k] = p[k] - 0.1 * x[2]
    return q["w"] * q["b"]


def extend_comprehension(x):  # refused on main
    vals = [x[0]]
    vals.extend([v * 2.0 for v in x[1:]])
    return sum(vals)


def extend_itself(x):  # refused on main
    vals = [x[0], x[1]]
    vals.extend(vals)  # (Python takes the items first: four of them)
    return vals[3] * vals[0] + len(vals)


def extend_then_change_the_other(x):  # refused on main
    vals = [x[0]]
    more = [x[1] * 2.0, x[2]]
    vals.extend(more)
    more.append(x[3])
    return vals[2] * vals[1] + more[2] * len(vals)


def extend_a_slice_in_a_loop(x):  # refused on main
    vals = []
    for i in range(2):
        vals.extend(x[2 * i:2 * i + 2])
    return vals[0] * vals[3] + vals[1] * vals[2] ** 2


# --- realistic programs already modelled (kept so) ----------------------------------------

def mse_dict_params(x):
    params = {"w": x[0], "b": x[1]}
    loss = 0.0
    for xi, yi in zip([1.0, 2.0, 3.0], [0.5, 1.0, 2.0]):
        loss = loss + (params["w"] * xi + params["b"] - yi) ** 2
    return loss / 3


def sorted_items_lambda(x):
    d = {"a": x[0], "b": x[1] * 2.0, "c": x[2]}
    items = sorted(d.items(), key=lambda kv: kv[1])
    return items[0][1] + 2.0 * items[-1][1]


def euler(x):
    pos, vel = x[0], x[1]
    for _ in range(10):
        vel = vel - 0.1 * pos
        pos = pos + 0.1 * vel
    return pos ** 2 + vel ** 2


def huber(x):
    out = 0.0
    for v in x:
        if abs(v) <= 0.5:
            out += 0.5 * v * v
        else:
            out += 0.5 * (abs(v) - 0.25)
    return out


def argmax_by_key(x):
    i = max(range(len(x)), key=lambda j: x[j])
    return x[i] * 3.0


def keys_sorted(x):
    d = {"b": x[1], "a": x[0]}
    return sum(d[k] * (i + 1) for i, k in enumerate(sorted(d)))


def fill_list(x):
    acc = [0.0] * 3
    for i in range(3):
        acc[i] = acc[i] + x[i] * 2.0
    return acc[0] * acc[1] + acc[2]


CASES = [getter_sorted, getter_max_min, getter_called, getter_of_items, getter_in_a_loop,
         getter_argument_bound_when_made, getter_two_keys, attrgetter_held_on_tuples,
         getter_inline, fromkeys_filled, fromkeys_stored, fromkeys_none_then_set,
         fromkeys_augmented, zipped_names, zipped_then_filled, dict_update, list_extend,
         list_extend_in_a_loop, pw_after_exp, pw_in_a_sum_times_exp, pw_second_argument,
         pw_after_a_sum, pw_scaled_tanh, pw_in_a_dict, pw_two_after_calls, pw_augmented_name,
         sorted_top_two, trimmed_mean, median_of_array, sorted_appended, sorted_zipped,
         listed_zip_of_a_slice, sorted_dict_values, sgd_dict_comprehension,
         dict_comprehension_of_zip, dict_comprehension_scoped, dict_comprehension_filtered,
         dict_comprehension_tuple_keys, filled_from_a_display, extend_comprehension,
         extend_itself, extend_then_change_the_other, extend_a_slice_in_a_loop,
         mse_dict_params,
         sorted_items_lambda, euler, huber, argmax_by_key, keys_sorted, fill_list]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_gradient_matches_central_differences(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)


# --- what stays refused, and the order kept --------------------------------------------------

def fromkeys_shared_array(x):
    d = dict.fromkeys(["a", "b"], np.zeros(2))  # (one array, held at both keys)
    d["a"] += x[:2]  # (changes d["b"] too, in Python)
    return np.sum(d["b"] * x[2:])


def update_of_a_set(x):
    s = set()
    s.update({"a": x[0]})  # (a set's update: not a dict's, not written out)
    return x[0] * len(s)


def pw_in_an_updated_item(x):
    y = np.zeros(2)
    y[0] += np.sum(x) + np.sum(np.piecewise(x, [x < 0.0], [np.sin, np.cos]))
    return y[0]


def extend_of_a_held_generator(x):
    vals = [x[0], x[1]]
    doubled = (v * 2.0 for v in vals)  # (extend reads it as vals grows: never ends)
    vals.extend(doubled)
    return vals[2]


@pytest.mark.parametrize("f, message", [
    (fromkeys_shared_array, "another slot of 'd' may hold"),
    (extend_of_a_held_generator, "`vals.extend(...)`"),
    (update_of_a_set, "`s.update(...)`"),
    (pw_in_an_updated_item, "is read before another call in it runs"),
], ids=["fromkeys-shared-array", "extend-held-generator", "set-update",
        "piecewise-item-update"])
def test_what_is_not_modelled_exactly_stays_refused(f, message):
    with pytest.raises(s2sad.S2sadError, match=message.replace("(", r"\(").replace(
            ")", r"\)").replace(".", r"\.")):
        s2sad.grad(f)(X)


def test_a_call_before_piecewise_runs_before_it():
    text = s2sad.grad(pw_after_exp).source_for(X)
    assert text.index("np.exp(x)") < text.index("piecewise_conditions(")


def test_held_getter_keeps_the_argument_it_was_made_with():
    # (by index 1, as Python's getter: by index 0 the pick differs, and so the gradient)
    pairs = [(X[0], X[1]), (X[2], X[1] - 1.0), (X[1], X[3])]
    assert max(pairs, key=lambda p: p[1]) != max(pairs, key=lambda p: p[0])
    expected = np.zeros(4)
    expected[1] = 2.0  # (the pair (x[1], x[3]), the largest by index 1)
    np.testing.assert_allclose(s2sad.grad(getter_argument_bound_when_made)(X), expected)
