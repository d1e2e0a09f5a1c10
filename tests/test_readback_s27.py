"""Issue 35, session 27: two over-refusals, and the soundness they stood beside.

* A value with a derivative stored into an object (``model.step(x)`` caching ``x``)
  made every later call whose argument's kind was not known count as a read of every
  object's attributes: ``np.sum(G0[1])`` of a module array, ``next(it)`` of an iterator
  over numbers. A call now reads an object only if the object reaches it: given it, a
  list or array holding it, or a function whose closure or module holds it
  (``attributes._Reach``). That also refuses two forms that gave a silently wrong
  gradient: an object-array item given to ``operator.attrgetter``, and a module
  ``functools.partial`` that holds the object.
* ``sorted``/``max``/``min`` with ``key=operator.itemgetter(...)`` or
  ``key=operator.attrgetter(...)`` were refused; they are the lambdas they are.
"""

import functools
import inspect
import operator
from collections import namedtuple
from operator import attrgetter, itemgetter

import numpy as np
import pytest

import s2sad
from s2sad import DifferentiationError, NoDerivativeError
from test_higher_order import central_differences


def line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


X = np.array([0.3, -0.5, 0.7, 1.1])


class Cache:
    """Counts its calls and caches what it is given (as tests/fuzzgen.py's FuzzState),
    or stores a value with a derivative in ``h``."""

    def __init__(self):
        self.calls = 0
        self.seen = []
        self.h = 0.5

    def step(self, t):
        self.calls += 1
        self.seen.append(t)
        return np.tanh(t)

    def keep(self, t):
        self.h = t * 2.0
        return np.tanh(t)


def check_with_model(f, x, *extra):
    """The gradient with respect to ``x`` against central differences in float64, each
    evaluation on a fresh model; the model given is changed as one call of ``f``
    changes it."""
    model = Cache()
    got = s2sad.grad(f)(x, model, *extra)
    want = central_differences(lambda v: f(v, Cache(), *extra), [x], 0)
    assert np.allclose(got, want, rtol=1e-6, atol=1e-8), (got, want)
    reference = Cache()
    f(x, reference, *extra)
    assert model.calls == reference.calls
    assert len(model.seen) == len(reference.seen)
    for a, b in zip(model.seen, reference.seen):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(model.h, reference.h)


def refused(f, args, where, text="which the function reads again"):
    """Refused at the store's line, with the advice."""
    with pytest.raises(DifferentiationError, match=text) as info:
        s2sad.grad(f)(*args)
    assert info.value.lineno == where
    assert "Keep the value in a variable" in str(info.value)
    return info.value


# --- calls that cannot reach the object: no longer refused ----------------------------------

def gen(t, n):
    for i in range(n):
        yield np.sin(t * 0.5) + 0.5 * i


def next_after_a_cache(x, model):
    s = model.step(x)
    it = iter([s, s * 0.5])
    p = next(it)
    q = next(it)
    g = gen(s, 2)
    r = next(g)
    return np.tanh(p) * np.cos(q) + r


G0 = np.array([0.5, -0.25, 1.0])
K0 = 0.75


def module_item_beside_a_cache(x, model):
    ret = np.sum(G0[1]) * x
    a = model.step(x)
    return ret + a


def module_array_after_a_cache(x, model):
    a = model.step(x)
    return np.sum(a) * np.sum(G0 * K0) + np.exp(K0) * np.max(G0[:2])


def counter_in_a_numpy_call(x, model):
    a = model.step(x)
    k = model.calls
    return np.sum(np.sin(x * k)) + np.sum(a)


def list_of_floats_walked(x, model, ws):
    a = model.step(x)
    total = 0.0
    for w in ws:
        total = total + np.sum(np.sin(w * x))
    return total + np.sum(a)


def vector_iterated_after_a_cache(x, model):
    a = model.step(x)
    it = iter(a)
    b = next(it)
    c = next(it)
    return np.cos(b) * c + np.sum(np.abs(a))


def stored_with_a_derivative_not_read(x, model):
    y = model.keep(np.sum(x * x))
    return y * np.sum(np.cos(G0[0] * x))


@pytest.mark.parametrize("f", [next_after_a_cache, module_item_beside_a_cache,
                               module_array_after_a_cache, vector_iterated_after_a_cache,
                               stored_with_a_derivative_not_read])
def test_a_call_the_object_cannot_reach_reads_nothing_of_it(f):
    x = 0.3 if f in (next_after_a_cache, module_item_beside_a_cache) else X.copy()
    check_with_model(f, x)


def test_a_counter_read_from_the_object_is_a_number():
    check_with_model(counter_in_a_numpy_call, X.copy())


def test_a_list_of_floats_given_beside_the_object():
    check_with_model(list_of_floats_walked, X.copy(), [0.5, -1.5, 2.0])


def test_the_fuzzers_programs_forward_and_second_order():
    model = Cache()
    tangent = s2sad.jvp(next_after_a_cache, wrt="x")(0.3, model)[1](1.0)
    want = central_differences(lambda v: next_after_a_cache(v, Cache()), [0.3], 0)
    assert np.isclose(tangent, want, rtol=1e-6)
    h = s2sad.hvp(module_item_beside_a_cache, wrt="x")(0.3, Cache(), 1.0)
    want = central_differences(
        lambda v: s2sad.grad(module_item_beside_a_cache, wrt="x")(v, Cache()), [0.3], 0)
    assert np.isclose(h, want, rtol=1e-6, atol=1e-8)


# --- calls that can reach it: still refused ---------------------------------------------------

def reads_h(m, n):
    for i in range(n):
        yield m.h * i


def generator_given_the_object(x, model):
    a = model.keep(x)
    return a + sum(reads_h(model, 3))


def next_of_a_generator_given_the_object(x, model):
    a = model.keep(x)
    g = reads_h(model, 3)
    b = next(g)
    c = next(g)
    return a + b + c


def getter_given_the_object(x, model):
    a = model.keep(x)
    return a + operator.attrgetter("h")(model)


def getter_given_a_list_holding_it(x, model):
    a = model.keep(x)
    ms = [model]
    return a + operator.attrgetter("h")(ms[0])


def getter_mapped_over_it(x, model):
    a = model.keep(x)
    return a + sum(map(operator.attrgetter("h"), [model]))


def getter_given_a_list_filled_later(x, model):
    box = []
    box.append(model)
    a = model.keep(x)
    return a + operator.attrgetter("h")(box[0])


def cache_summed(x, model):
    a = model.step(x)
    return a + sum(model.seen)


@pytest.mark.parametrize("f", [generator_given_the_object,
                               next_of_a_generator_given_the_object, getter_given_the_object,
                               getter_given_a_list_holding_it, getter_mapped_over_it,
                               getter_given_a_list_filled_later])
def test_a_call_given_the_object_is_still_refused(f):
    error = refused(f, (0.3, Cache()), line_of(Cache.keep, "self.h = t * 2.0"))
    assert "model.keep(x)" in str(error)


def test_a_cache_read_back_whole_is_still_refused():
    refused(cache_summed, (0.3, Cache()), line_of(Cache.step, "self.seen.append(t)"))


def object_array_item(x, model, arr):
    a = model.keep(x)
    return a + operator.attrgetter("h")(arr[0])


def another_argument(x, model, other):
    a = model.keep(x)
    return a + operator.attrgetter("h")(other)


def test_an_object_arrays_item_is_refused():
    """Was a silently wrong gradient (0.915 for 2.915): the item's kind read as a number."""
    model = Cache()
    refused(object_array_item, (0.3, model, np.array([model], dtype=object)),
            line_of(Cache.keep, "self.h = t * 2.0"))


def test_another_object_argument_may_be_the_same_object():
    model = Cache()
    refused(another_argument, (0.3, model, model), line_of(Cache.keep, "self.h = t * 2.0"))
    refused(another_argument, (0.3, model, Cache()), line_of(Cache.keep, "self.h = t * 2.0"))


SHARED = Cache()
PEEK = functools.partial(operator.attrgetter("h"), SHARED)
ONLY_NUMBERS = functools.partial(np.multiply, G0)


def module_partial_holding_the_object(x, model):
    a = model.keep(x)
    return a + PEEK()


def module_partial_of_numbers(x, model):
    a = model.keep(np.sum(x))
    return a * np.sum(ONLY_NUMBERS(G0))


def test_a_module_partial_holding_the_object_is_refused():
    """Was a silently wrong gradient: the call, given nothing, read as reading nothing."""
    refused(module_partial_holding_the_object, (0.3, SHARED),
            line_of(Cache.keep, "self.h = t * 2.0"))


def test_a_module_partial_of_numbers_reads_nothing_of_it():
    check_with_model(module_partial_of_numbers, X.copy())


# --- key=operator.itemgetter(...) / attrgetter(...) -------------------------------------------

def check(f, x):
    got = s2sad.grad(f)(x)
    want = central_differences(f, [x], 0)
    assert np.allclose(got, want, rtol=1e-6, atol=1e-7), (got, want)
    return got


def sorted_by_a_label_with_ties(x):
    pairs = sorted(zip([3, 1, 1, 0], x), key=operator.itemgetter(0))
    return pairs[0][1] * pairs[-1][1] ** 2 + pairs[1][1] * 3.0 + pairs[2][1]


def sorted_by_a_lambda_with_ties(x):
    pairs = sorted(zip([3, 1, 1, 0], x), key=lambda kv: kv[0])
    return pairs[0][1] * pairs[-1][1] ** 2 + pairs[1][1] * 3.0 + pairs[2][1]


def sorted_by_two_positions(x):
    rows = [(1, 0, x[0]), (0, 1, x[1]), (1, 0, x[2]), (0, 0, x[3])]
    s = sorted(rows, key=itemgetter(0, 1))
    return s[0][2] * 1.0 + s[1][2] * 2.0 + s[2][2] ** 2 * 3.0 + s[3][2] * 4.0


def sorted_by_the_values_reversed(x):
    pairs = [(x[i], i) for i in range(4)]
    s = sorted(pairs, key=itemgetter(0), reverse=True)
    return s[0][0] * 3.0 + s[1][0] ** 2 + s[3][0] * s[2][0]


def max_and_min_rows(m):
    best = max(m, key=itemgetter(1))
    worst = min(m, key=operator.itemgetter(0))
    return np.sum(best ** 2 * worst)


def max_of_tied_labels(x):
    rows = [(1, x[0]), (2, x[1]), (2, x[2]), (0, x[3])]
    top = max(rows, key=itemgetter(0))
    low = min(rows, key=itemgetter(0))
    return top[1] * 2.0 + low[1] ** 2


def position_in_a_variable(m):
    j = 1
    best = max(m, key=itemgetter(j))
    j = 0
    return np.sum(best * m[0, j])


Point = namedtuple("Point", "k v")
Outer = namedtuple("Outer", "inner v")


def sorted_by_a_field_reversed_with_ties(x):
    ps = [Point(2.0, x[0]), Point(1.0, x[1]), Point(2.0, x[2]), Point(0.5, x[3])]
    s = sorted(ps, key=attrgetter("k"), reverse=True)
    return s[0][1] * 2.0 + s[1][1] * s[2][1] + s[3][1] ** 3


def max_by_a_dotted_field(x):
    ps = [Outer(Point(1.0, 0.0), x[0]), Outer(Point(3.0, 0.0), x[1]),
          Outer(Point(3.0, 0.0), x[2])]
    best = max(ps, key=operator.attrgetter("inner.k"))
    return best[1] ** 2 + min(ps, key=attrgetter("inner.k", "v"))[1]


def sorted_by_a_differentiated_field(x):
    ps = [Point(x[0] * 2.0, x[0]), Point(x[1], x[1] ** 2), Point(np.sin(x[2]), x[2])]
    s = sorted(ps, key=attrgetter("k"))
    return s[0][1] * 1.0 + s[1][1] * 2.0 + s[2][1] * 3.0


@pytest.mark.parametrize("f", [sorted_by_a_label_with_ties, sorted_by_two_positions,
                               sorted_by_the_values_reversed, max_of_tied_labels,
                               sorted_by_a_field_reversed_with_ties, max_by_a_dotted_field,
                               sorted_by_a_differentiated_field])
def test_a_getter_key_against_central_differences(f):
    check(f, X.copy())


@pytest.mark.parametrize("f", [max_and_min_rows, position_in_a_variable])
def test_a_getter_key_on_rows(f):
    check(f, np.array([[0.3, -1.2], [0.7, 2.0], [0.1, 2.5]]))


def test_a_getter_key_is_its_lambda():
    a = s2sad.grad(sorted_by_a_label_with_ties)(X.copy())
    b = s2sad.grad(sorted_by_a_lambda_with_ties)(X.copy())
    np.testing.assert_array_equal(a, b)
    # (labels 3, 1, 1, 0: x3, x1, x2, x0, the tied x1 before x2 as given)
    np.testing.assert_allclose(a, [2 * X[3] * X[0], 3.0, 1.0, X[0] ** 2], rtol=1e-12)


def test_a_getter_key_forward_and_second_order():
    f = sorted_by_two_positions
    v = np.array([0.5, -1.0, 2.0, 0.25])
    tangent = s2sad.jvp(f)(X.copy())[1](v)
    assert np.isclose(tangent, check(f, X.copy()) @ v, rtol=1e-9)
    h = s2sad.hvp(f)(X.copy(), v)
    want = central_differences(lambda y: s2sad.grad(f)(y) @ v, [X.copy()], 0)
    assert np.allclose(h, want, rtol=1e-6, atol=1e-7)


def getter_made_once(x):
    ks = iter([1, 0])
    best = max([x[:2], x[2:]], key=itemgetter(next(ks)))  # (next(ks) once: 1, not per item)
    return np.sum(best ** 2) * (next(ks) + 1.0)


def test_a_getters_arguments_are_evaluated_once():
    np.testing.assert_allclose(check(getter_made_once, X.copy()), [0.0, 0.0, 1.4, 2.2])


def getter_held_in_a_name(x):
    key = itemgetter(1)
    return np.sum(max([x[:2], x[2:]], key=key))


def test_a_getter_held_in_a_name_is_read_as_its_lambda():
    """Refused here in s27 (only a getter written in the call was read as its lambda);
    since s28 a getter given to a name is the lambda it is, as where it is written."""
    check(getter_held_in_a_name, X.copy())


def sorted_by_a_computed_name(x):
    name = "k" if x.size > 3 else "v"
    ps = [Point(2.0, x[0]), Point(1.0, x[1])]
    return min(ps, key=attrgetter(name))[1]


def test_a_getter_of_a_name_not_written_is_still_refused():
    with pytest.raises(NoDerivativeError, match="which the gradient follows") as info:
        s2sad.grad(sorted_by_a_computed_name)(X.copy())
    assert info.value.lineno == line_of(sorted_by_a_computed_name, "key=attrgetter(name)")


REGISTRY = [SHARED]


def module_list_holding_the_object(x, model):
    a = model.keep(x)
    return a + operator.attrgetter("h")(REGISTRY[0])


def test_a_module_list_holding_the_object_is_refused():
    refused(module_list_holding_the_object, (0.3, SHARED),
            line_of(Cache.keep, "self.h = t * 2.0"))
