"""Findings of the s26 adversarial pass (helper a) on the forms that landed in s25.

* ``sorted(t)`` of a list its display does not show (``t = []`` filled by ``append``,
  which is what a comprehension or a generator expression becomes) was folded to the
  display's ``sorted([])``: an IndexError, or a zero gradient (``sum(sorted(...)[:2])``)
  (refused then; written out exactly since s28);
* a dict given a key after its display (``d['c'] = v``; ``d = {}`` filled in a loop) had
  its values, items and keys read as the display's: a gradient of 3.0 where it is 4.4;
* ``for k in d`` of such a dict: an internal TypeError from the keys' sensitivities;
* a dict keyed by a value that depends on the argument gave its keys back with no
  derivative (0.0 where it is 2.0): refused at the store;
* a third derivative through ``zip(*pairs)`` joined two lists where it adds them.
"""

import inspect

import numpy as np
import pytest

import s2sad
from s2sad.errors import NoDerivativeError
from test_higher_order import central_differences


def line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


def check(f, *args, wrt=0):
    got = s2sad.grad(f, wrt)(*args)
    want = central_differences(f, args, wrt)
    assert np.allclose(got, want, rtol=1e-6, atol=1e-7), (got, want)


def refused(f, args, error, text, advice):
    with pytest.raises(error) as info:
        s2sad.grad(f)(*args)
    assert info.value.lineno == line_of(f, text)
    assert advice in str(info.value)


# --- sorted of a list filled by append ------------------------------------------------------

def sorted_comprehension(x):
    return sorted([v * 2.0 for v in x])[0]


def sorted_generator(x):
    return sum(sorted(v * v for v in x)[:2])


def sorted_held_generator(x):
    g = (v * 3.0 for v in x)
    return sorted(g)[-1]


def sorted_appended(x):
    t = []
    for v in x:
        t.append(np.sin(v))
    return sorted(t)[0] * 2.0


def sorted_appended_pairs(x):
    items = [("b", x), ("a", 2.0 * x)]
    items.append(("c", x ** 3))
    return sum(v * (i + 1) for i, (k, v) in enumerate(sorted(items)))


# (refused here in s26, never folded to the display's items again; since s28, sorted(t)
# of a list is written out as sorted(t, key=...) is, the items compared: exact)
@pytest.mark.parametrize("f", [sorted_comprehension, sorted_generator, sorted_held_generator,
                               sorted_appended])
def test_sorted_of_a_filled_list_matches_central_differences(f):
    check(f, np.array([0.5, -1.5, 0.2]))


def test_sorted_of_appended_pairs_matches_central_differences():
    check(sorted_appended_pairs, 0.7)


def sorted_constant_comprehension(x):
    ws = sorted([float(k) for k in (3, 1, 2)])
    return x[0] * ws[0] + x[1] * ws[2] + np.sum(x ** 2) * len(ws)


def sorted_constant_generator(x):
    names = sorted(n.upper() for n in ("b", "c", "a"))
    return x[0] * 2.0 if names[0] == "A" else x[1] * 5.0


@pytest.mark.parametrize("f", [sorted_constant_comprehension, sorted_constant_generator],
                         ids=lambda f: f.__name__)
def test_sorted_of_a_filled_list_of_constants_keeps_its_items(f):
    x = np.array([0.5, -1.5, 0.2])
    value, _ = s2sad.value_and_grad(f)(x)
    assert value == f(x)
    check(f, x)


def sorted_display_items(x):
    d = {"b": x, "a": 2.0 * x, "c": x ** 3}
    return sum(v * (i + 1) for i, (k, v) in enumerate(sorted(d.items())))


def sorted_display_list(x):
    pairs = [("b", x), ("a", np.sin(x))]
    return sum(v * (i + 1) for i, (k, v) in enumerate(sorted(pairs)))


@pytest.mark.parametrize("f", [sorted_display_items, sorted_display_list],
                         ids=lambda f: f.__name__)
def test_sorted_of_a_display_still_matches_central_differences(f):
    check(f, 0.7)
    s2sad.check_grads(f, (0.7,), order=2)


# --- a dict given keys after its display ------------------------------------------------------

def dict_key_added_values(x):
    d = {"b": x, "a": 2.0 * x}
    d["c"] = x * x
    return sum(d.values())


def dict_key_added_items(x):
    d = {"b": x, "a": 2.0 * x}
    d["c"] = x * x
    t = 0.0
    for k, v in d.items():
        t = t + v
    return t


def dict_filled_values(x):
    d = {}
    for i in range(3):
        d[i] = x ** (i + 1)
    return sum(d.values())


def dict_key_added_in_branch(x):
    d = {"b": x}
    if x > 0.5:
        d["c"] = x * x
    return sum(d.values())


def dict_copy_key_added(x, d):
    d = dict(d)
    d["c"] = x * x
    return sum(d.values())


def dict_spread_key_added(x):
    d = {"a": x}
    e = {**d, "b": x * x}
    e["c"] = x ** 3
    return sum(e.values())


def dict_key_by_name_added(x):
    d = {"a": x, "b": 2.0 * x}
    k = "c"
    d[k] = x ** 3
    return sum(d.values())


def dict_keys_added_in_loop(x):
    d = {"a": x, "b": 2.0 * x}
    for k in ["c", "a"]:
        d[k] = x ** 3
    return sum(d.values()) + len(d)


@pytest.mark.parametrize("f, args, text", [
    (dict_spread_key_added, (0.7,), "return sum(e.values())"),
    (dict_key_by_name_added, (0.7,), "return sum(d.values())"),
    (dict_keys_added_in_loop, (0.7,), "return sum(d.values())"),
    (dict_key_added_values, (0.7,), "return sum(d.values())"),
    (dict_filled_values, (0.7,), "return sum(d.values())"),
    (dict_key_added_in_branch, (0.7,), "return sum(d.values())"),
    (dict_copy_key_added, (0.7, {"a": 1.0}), "return sum(d.values())"),
])
def test_values_of_a_grown_dict_are_refused_at_their_line(f, args, text):
    refused(f, args, NoDerivativeError, text, "walk it by key (for k in d: ... d[k])")


def test_a_loop_over_a_grown_dicts_items_is_walked_by_key():
    """``for k, v in d.items()`` is now walked by key (``for k in d: v = d[k]``, the same
    pairs in order: fix/refuse29), as this refusal advised."""
    check(dict_key_added_items, 0.7)


def dict_key_added_walked(x):
    d = {"b": x, "a": 2.0 * x}
    d["c"] = x * x
    t = 0.0
    for k in d:
        t = t + d[k] * len(k)
    return t


def dict_key_added_sorted_walk(x):
    d = {"b": x, "a": 2.0 * x}
    d["c"] = x * x
    t = 0.0
    for i, k in enumerate(sorted(d)):
        t = t + d[k] * (i + 1)
    return t


def dict_filled_walked(x):
    d = {}
    for i in range(3):
        d[i] = x * i
    t = 0.0
    for k in d:
        t = t + d[k] * k
    return t * len(d)


def dict_filled_walked_array(x):
    d = {}
    for i in range(3):
        d[i] = np.sin(x * (i + 1))
    t = 0.0
    for k in d:
        t = t + np.sum(d[k] ** 2) * (k + 1)
    return t


def dict_value_replaced(x):
    d = {"b": x, "a": 2.0 * x}
    d["a"] = x * x
    return sum(d.values())


@pytest.mark.parametrize("f", [dict_key_added_walked, dict_key_added_sorted_walk,
                               dict_filled_walked, dict_value_replaced],
                         ids=lambda f: f.__name__)
def test_walks_of_a_grown_dict_match_central_differences(f):
    check(f, 0.7)
    _, push = s2sad.jvp(f)(0.7)  # (forward mode: list(d)'s keys carry no tangent)
    assert np.isclose(push(1.0), central_differences(f, (0.7,), 0))
    value, _ = s2sad.value_and_grad(f)(0.7)
    assert value == f(0.7)


def test_walk_of_a_dict_of_arrays_matches_central_differences():
    x = np.array([0.3, -0.8, 1.1])
    check(dict_filled_walked_array, x)
    s2sad.check_grads(dict_filled_walked_array, (x,), order=1)


def dict_keyed_by_x(x):
    d = {}
    d[x] = 1.0
    t = 0.0
    for k in d:
        t = t + k * 2.0
    return t


def dict_keyed_by_y(x):
    y = x * 3.0
    d = {"a": 1.0}
    d[y] = x
    t = 0.0
    for k in d:
        t = t + d[k]
    return t


@pytest.mark.parametrize("f, text", [(dict_keyed_by_x, "d[x] = 1.0"),
                                     (dict_keyed_by_y, "d[y] = x")])
def test_a_dict_keyed_by_a_differentiated_value_is_refused_at_the_store(f, text):
    refused(f, (0.7,), NoDerivativeError, text, "Key the dict by names or numbers")


# --- third order through zip(*pairs) -------------------------------------------------------

def zipped_pairs(x):
    pairs = [(x, 1.0), (x * x, 2.0), (3.0, x)]
    a, b = zip(*pairs)
    return sum(a) * sum(b)


@pytest.mark.parametrize("x", [0.5, -1.3])
def test_third_derivative_through_zip_of_pairs(x):
    # f = (x**2 + x + 3) (x + 3): f''' = 6 everywhere
    third = s2sad.grad(s2sad.grad(s2sad.grad(zipped_pairs)))(x)
    assert np.isclose(third, 6.0)
    second = s2sad.grad(s2sad.grad(zipped_pairs))
    assert np.isclose(second(x), 6.0 * x + 8.0)


# --- a generator made from fresh entropy inside the function ---------------------------------

def draws_from_an_unseeded_generator(x):
    rng = np.random.default_rng()
    return np.sum(x ** 2 * rng.normal(size=3))


def draws_from_an_unseeded_random_state(x):
    noise = np.random.RandomState().randn(3)
    return np.sum(np.sin(x) * noise)


def draws_from_a_generator_seeded_none(x):
    rng = np.random.default_rng(seed=None)
    return np.sum(x ** 3 * rng.standard_normal(3))


def draws_from_a_seeded_generator(x):
    rng = np.random.default_rng(7)
    return np.sum(x ** 2 * rng.normal(size=3))


UNSEEDED = [(draws_from_an_unseeded_generator, "rng = np.random.default_rng()"),
            (draws_from_an_unseeded_random_state, "noise = np.random.RandomState()"),
            (draws_from_a_generator_seeded_none, "rng = np.random.default_rng(seed=None)")]


@pytest.mark.parametrize("maker", [s2sad.hessian, s2sad.jacobian, s2sad.jvp, s2sad.vjp],
                         ids=lambda m: m.__name__)
@pytest.mark.parametrize("f, text", UNSEEDED, ids=lambda v: getattr(v, "__name__", ""))
def test_an_unseeded_generator_is_refused_by_makers_that_run_it_again(f, text, maker):
    x = np.array([0.5, -1.5, 0.2])
    with pytest.raises(s2sad.errors.DifferentiationError) as info:
        out = maker(f)(x)
        if maker in (s2sad.jvp, s2sad.vjp):
            out[1](np.ones(3) if maker is s2sad.jvp else 1.0)
    message = str(info.value)
    assert "an unseeded generator's random state" in message
    assert f'line {line_of(f, text)}' in message
    assert "Draw the noise outside the function" in message


@pytest.mark.parametrize("f, text", UNSEEDED, ids=lambda v: getattr(v, "__name__", ""))
def test_an_unseeded_generator_runs_under_grad(f, text):
    x = np.array([0.5, -1.5, 0.2])
    assert np.shape(s2sad.grad(f)(x)) == (3,)  # (one run per call: the draw's gradient)


def test_a_seeded_generator_is_the_same_function_at_each_run():
    x = np.array([0.5, -1.5, 0.2])
    noise = np.random.default_rng(7).normal(size=3)
    np.testing.assert_allclose(s2sad.hessian(draws_from_a_seeded_generator)(x),
                               np.diag(2 * noise), rtol=1e-12)
