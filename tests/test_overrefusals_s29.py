"""Session 29: programs s2sad refused though it models them exactly, now differentiated.

Each case is a small program as people write them; its gradient is checked against
central differences in float64. A case marked ``# refused on main`` was refused (or
failed inside the compiler) before this session: ``max(a, b, key=abs)``, ``math.prod``,
``divmod``, ``np.modf``, ``math.modf``, ``functools.reduce`` with a lambda or
``operator.mul``, ``itertools.accumulate``, lists joined from slices (``xs[:1] + [v] +
xs[1:]``). The last tests pin what stays refused (an iterator held in a name).
"""

import copy
import functools
import itertools
import math
import operator

import numpy as np
import pytest
from test_overrefusals_s28 import central

import s2sad

X = np.array([0.3, -0.5, 1.2, 0.7])


# --- max and min of several items with a key (sort_keys) ------------------------------------

def max_min_key_abs(x):  # refused on main
    return max(x[0], x[1], key=abs) * min(x[2], x[3], key=abs)


def closest_to_target(x):  # refused on main
    a, b, c = x[0] * 2.0, x[1] + 1.0, x[2] ** 2
    best = min(a, b, c, key=lambda v: abs(v - 0.8))
    return best * x[3]


# --- math.prod, divmod, modf (rules) ---------------------------------------------------------

def likelihood_product(x):  # refused on main
    return math.prod([x[0], x[1], x[2] + 1.0])


def product_of_an_array_and_a_start(x):  # refused on main
    return math.prod(x * 2.0) + math.prod([x[0], x[1]], start=x[2])


def product_with_a_zero(x):  # refused on main (each item: the others' product, no quotient)
    return math.prod([x[0] * 0.0, x[1], x[2]])


def wrap_angle(x):  # refused on main
    turns, rest = divmod(x[0] * 7.0 + 0.05, 0.3)
    return rest * x[1] + turns


def divmod_of_arrays(x):  # refused on main
    q, r = divmod(x * 5.0, x[3] + 0.4)
    return np.sum(r ** 2 * x) + np.sum(q)


def divmod_items(x):  # refused on main
    return divmod(x[2] * 3.0, 0.7)[0] * x[1] + divmod(x[0], x[2])[1]


def np_modf(x):  # refused on main
    frac, whole = np.modf(x * 3.0)
    return np.sum(frac * x + whole)


def math_modf(x):  # refused on main
    frac, whole = math.modf(x[2] * 4.1)
    return frac * x[0] + whole


# --- functools.reduce, itertools.accumulate, operator functions (implementations) -----------

def reduce_lambda(x):  # refused on main
    return functools.reduce(lambda a, b: a * b + 1.0, [x[0], x[1], x[2]])


def reduce_operators(x):  # refused on main
    return functools.reduce(operator.add, [x[0] ** 2, x[1], x[2]]) * \
        functools.reduce(operator.mul, [x[1], x[3]])


def reduce_with_initial(x):  # refused on main
    return functools.reduce(lambda acc, v: acc + v ** 2, x, 1.0) * \
        functools.reduce(operator.sub, [x[0], x[1]], x[2])


def operator_called(x):  # refused on main
    return operator.add(x[0], x[1]) * operator.mul(x[1], x[2]) - operator.neg(x[3])


def running_sums(x):  # refused on main
    cs = list(itertools.accumulate([x[0], x[1], x[2]]))
    return cs[0] * cs[1] + cs[2] ** 2


def running_products(x):  # refused on main
    run = list(itertools.accumulate(x * 1.5, operator.mul))
    return run[-1] + run[1] * 2.0


def accumulate_in_a_loop(x):  # refused on main
    total = 0.0
    for c in itertools.accumulate([x[0], x[1] ** 2, x[2]], lambda a, b: a * 0.5 + b,
                                  initial=x[3]):
        total = total + c ** 2
    return total


# --- lists joined from slices (kinds, reverse.concatenation) --------------------------------

def insert_by_slices(x):  # failed inside the compiler on main
    vals = [x[0], x[1]]
    vals = vals[:1] + [x[2] * 3.0] + vals[1:]
    return vals[0] * vals[1] + vals[2]


def insert_by_slices_grouped(x):  # failed inside the compiler on main
    vals = [x[0], x[1]]
    vals = vals[:1] + ([x[2] * 3.0] + vals[1:])
    return vals[0] * vals[1] + vals[2]


def joined_in_two_steps(x):  # gave a broadcasting error on main
    vals = [x[0], x[1]]
    head = vals[:1] + [x[2] * 3.0]
    vals = head + vals[1:]
    return vals[0] * vals[1] + vals[2]


# --- list.pop, list.insert, dict.setdefault (container_updates.rebuilt) ----------------------

def pop_ends(x):  # refused on main
    vals = [x[0], x[1] * 2.0, x[2]]
    last = vals.pop()
    first = vals.pop(0)
    return last * first + vals[0] * len(vals)


def pop_negative_and_held_index(x):  # refused on main
    vals = [x[0], x[1], x[2], x[3]]
    a = vals.pop(-2)
    i = 1
    b = vals.pop(i)
    vals.pop()
    return a * b + vals[0] * 3.0 + len(vals)


def stack_machine(x):  # refused on main
    stack = [x[0], x[1] * 2.0, x[2], x[3]]
    total = 0.0
    while stack:
        v = stack.pop()
        total = total * 0.5 + v * len(stack)
    return total


def insert_anywhere(x):  # refused on main (insert clamps its index, as s[i:i] = [v])
    vals = [x[0]]
    vals.insert(0, x[1] * 2.0)
    vals.insert(-1, x[2])
    vals.insert(10, x[3] ** 2)
    vals.insert(-10, 1.0)
    return vals[0] * vals[1] + vals[2] * vals[3] + vals[4] * len(vals)


def insert_front_in_a_loop(x):  # refused on main
    vals = []
    for i in range(4):
        vals.insert(0, x[i] * (i + 1.0))
    return vals[0] * vals[3] + vals[1]


def setdefault_kept_and_new(x):  # refused on main
    d = {"a": x[0]}
    v = d.setdefault("b", x[1] * 2.0)
    w = d.setdefault("a", x[2])  # (a key there: its value, x[2] computed and dropped)
    return v * w + d["b"]


def setdefault_sums_by_group(x):  # refused on main
    sums = {}
    for k, v in zip(["a", "b", "a", "c"], x):
        sums.setdefault(k, 0.0)
        sums[k] = sums[k] + v ** 2
    return sums["a"] * sums["b"] + sums["c"]


# --- copy.copy and copy.deepcopy (Desugar: the copy method) ---------------------------------

def copy_then_set(x):  # refused on main (taken for an update of the argument)
    y = copy.copy(x)
    y[0] = 5.0
    return np.sum(y * x)


def deepcopy_of_a_list(x):  # refused on main
    a = [x[0], x[1] * 2.0]
    b = copy.deepcopy(a)
    b[0] = x[2]
    return a[0] * b[0] + b[1]


def copy_of_a_dict(x):  # refused on main
    d = {"a": x[0], "b": x[1]}
    e = copy.copy(d)
    e["a"] = x[2] * 3.0
    return d["a"] * e["a"] + e["b"]


def sgd_step_on_a_deep_copy(x):  # refused on main
    params = {"w": x[:2], "b": x[2]}
    new = copy.deepcopy(params)
    new["w"] = new["w"] - 0.1 * x[3]
    new["b"] = new["b"] * 2.0
    return np.sum(new["w"] * params["w"]) + new["b"] * params["b"]


def deepcopy_of_the_argument_then_slice_set(x):  # refused on main
    y = copy.deepcopy(x)
    y[1:] = y[1:] * 2.0
    return np.sum(y * x)


# --- dicts walked by .items() (container_updates.items_walked_by_key), an argument's keys ----

def dict_comprehension_of_items(x):  # refused on main
    d = {"a": x[0], "b": x[1]}
    e = {k: v * 2.0 for k, v in d.items()}
    return e["a"] * e["b"]


def dict_comprehension_of_items_filtered(x):  # refused on main
    d = {"a": x[0], "b": x[1], "c": x[2]}
    e = {k: v ** 2 for k, v in d.items() if k != "b"}
    return e["a"] + e["c"] * x[3]


def loop_over_items_filling_another(x):  # refused on main
    d = {"a": x[0], "b": x[1]}
    e = {}
    for k, v in d.items():
        e[k] = v * 2.0 + x[2]
    return e["a"] * e["b"]


def list_of_items_values(x):
    d = {"a": x[0], "b": x[1]}
    vals = [v * 2.0 for k, v in d.items()]
    return vals[0] * vals[1]


def sgd_on_a_dict_argument(params):  # refused on main
    grads = {k: 2.0 * v for k, v in params.items()}
    new = {k: v - 0.1 * grads[k] for k, v in params.items()}
    return np.sum(new["w"] ** 2) * new["b"]


def filled_by_the_argument_keys(params):  # refused on main
    out = {}
    for k in params:
        out[k] = params[k] * 3.0
    return np.sum(out["w"]) * out["b"]


def scaled_by_a_comprehension_of_the_argument(params):  # refused on main
    out = {k: params[k] * 3.0 for k in params}
    return np.sum(out["w"]) * out["b"]


P = {"w": np.array([0.3, -0.5]), "b": 1.2}


def central_dict(f, p, eps=1e-6):
    out = {}
    for k, v in p.items():
        flat = np.atleast_1d(np.asarray(v, dtype=float))
        g = np.zeros_like(flat)
        for i in range(flat.size):
            up, down = dict(p), dict(p)
            e = np.zeros_like(flat)
            e[i] = eps
            up[k] = (flat + e).reshape(np.shape(v)) if np.ndim(v) else float(flat[0] + eps)
            down[k] = (flat - e).reshape(np.shape(v)) if np.ndim(v) else float(flat[0] - eps)
            g[i] = (f(up) - f(down)) / (2 * eps)
        out[k] = g.reshape(np.shape(v)) if np.ndim(v) else g[0]
    return out


@pytest.mark.parametrize("f", [sgd_on_a_dict_argument, filled_by_the_argument_keys,
                               scaled_by_a_comprehension_of_the_argument])
def test_dict_argument_gradient_matches_central_differences(f):
    got, want = s2sad.grad(f)(P), central_dict(f, P)
    assert set(got) == set(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-6, atol=1e-8)


# --- objects of a plain class made inside (local_objects) ----------------------------------

class Acc:
    def __init__(self, scale):
        self.scale = scale
        self.total = 0.0

    def add(self, v):
        self.total = self.total + self.scale * v


class Momentum:
    def __init__(self, lr, beta):
        self.lr = lr
        self.beta = beta
        self.velocity = 0.0

    def step(self, w, g):
        self.velocity = self.beta * self.velocity + g
        return w - self.lr * self.velocity


class Stats:
    def __init__(self):
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def push(self, v):
        self.n += 1
        delta = v - self.mean
        self.mean = self.mean + delta / self.n
        self.m2 = self.m2 + delta * (v - self.mean)

    def variance(self):
        if self.n < 2:
            return 0.0
        return self.m2 / (self.n - 1)


class Counter:
    count = 0  # (a class attribute set through self: the object's own after the first add;
    # the object is left as it is. A class attribute only read is modelled: session 30)

    def __init__(self):
        self.total = 0.0

    def add(self, v):
        self.count += 1
        self.total = self.total + v


def accumulator_object(x):  # refused on main
    acc = Acc(2.0)
    for v in x:
        acc.add(v ** 2)
    return acc.total


def momentum_optimizer(x):  # refused on main
    opt = Momentum(0.1, 0.9)
    w = x[0]
    for _ in range(3):
        g = 2.0 * w * x[1]
        w = opt.step(w, g)
    return w * x[2] + opt.velocity


def running_variance(x):  # refused on main
    s = Stats()
    for v in x:
        s.push(v * 2.0)
    var = s.variance()
    return var + s.mean * x[0]


def attributes_set_outside_its_methods(x):  # refused on main
    acc = Acc(x[3])
    acc.total = x[0] * 3.0
    acc.add(x[1])
    acc.scale *= 2.0
    acc.add(x[2])
    return acc.total


CASES = [max_min_key_abs, closest_to_target, likelihood_product,
         product_of_an_array_and_a_start, product_with_a_zero, wrap_angle, divmod_of_arrays,
         divmod_items, np_modf, math_modf, reduce_lambda, reduce_operators,
         reduce_with_initial, operator_called, running_sums, running_products,
         accumulate_in_a_loop, insert_by_slices, insert_by_slices_grouped,
         joined_in_two_steps, pop_ends, pop_negative_and_held_index, stack_machine,
         insert_anywhere, insert_front_in_a_loop, setdefault_kept_and_new,
         setdefault_sums_by_group, copy_then_set, deepcopy_of_a_list, copy_of_a_dict,
         sgd_step_on_a_deep_copy, deepcopy_of_the_argument_then_slice_set,
         dict_comprehension_of_items, dict_comprehension_of_items_filtered,
         loop_over_items_filling_another, list_of_items_values, accumulator_object,
         momentum_optimizer, running_variance, attributes_set_outside_its_methods]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_gradient_matches_central_differences(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)


# --- what stays refused ----------------------------------------------------------------------

def accumulate_held_and_read_twice(x):
    m = itertools.accumulate([x[0], x[1]])
    a = sum(m)
    return a + sum(m) * 2.0  # (Python: the second sum is 0, the iterator spent)


def accumulate_held_then_next(x):
    m = itertools.accumulate([x[0], x[1]])
    return next(m) * 3.0


def accumulate_given_to_a_helper(x):
    return _twice(itertools.accumulate([x[0], x[1]]))


def _twice(it):
    return sum(it) + sum(it)


@pytest.mark.parametrize("f", [accumulate_held_and_read_twice, accumulate_held_then_next,
                               accumulate_given_to_a_helper])
def test_an_iterator_not_consumed_at_once_is_refused(f):
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError, match="not consumed at once"):
        s2sad.grad(f)(X)


def pop_of_a_shared_list(x):
    vals = [x[0], x[1], x[2]]
    other = vals
    vals.pop()  # (other loses the item too)
    return sum(other) * 2.0


def pop_while_walking_the_list(x):
    vals = [x[0], x[1], x[2], x[3]]
    total = 0.0
    for v in vals:  # (Python's walk sees the list shrink)
        total = total + v * vals.pop()
    return total


def setdefault_of_a_list_appended_to(x):
    groups = {}
    for k, v in zip(["a", "b", "a"], x):
        groups.setdefault(k, []).append(v)  # (the list in the dict changes)
    return sum(groups["a"]) * groups["b"][0]


def item_of_a_shallow_copy_changed(x):
    a = [x[:2] * 1.0, x[2:] * 1.0]
    b = copy.copy(a)
    b[0] += 1.0  # (the same array as a[0]: a changes too)
    return np.sum(a[0] * x[:2])


def item_of_a_deep_copy_changed(x):
    a = [x[:2] * 1.0, x[2:] * 1.0]
    b = copy.deepcopy(a)
    t = b[0]
    t[0] = 5.0  # (a copy of a[0] in Python; s2sad's copy shares it: refused, never wrong)
    return np.sum(a[0]) + np.sum(b[0])


def reshape_of_a_transposed_copy_written(x):
    c = copy.copy(np.outer(x[:2], x[2:]).T)  # (its order kept: Fortran)
    flat = c.reshape(4)  # (a copy in NumPy, not a view: s2sad does not follow layouts)
    flat[0] = 0.0
    return np.sum(c)


@pytest.mark.parametrize("f", [item_of_a_shallow_copy_changed, item_of_a_deep_copy_changed,
                               reshape_of_a_transposed_copy_written, pop_of_a_shared_list, pop_while_walking_the_list,
                               setdefault_of_a_list_appended_to])
def test_a_change_another_reader_would_see_is_refused(f):
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError):
        s2sad.grad(f)(X)


def slot_set_through_another_name(x):
    a = [x[0], x[1]]
    b = a
    b[0] = 1.0  # (changes a's slot, not x)
    return a[0] * a[1]


def test_a_slot_set_through_another_name_is_followed():
    """The refusal named the argument x (the items' source), which b[0] = 1.0 leaves as it
    was, and advised `b = x.copy()`; then (session 29) it named b and a. Since session 36
    ``b`` is read as ``a`` (the same list: .transforms.held_items), so it is followed."""
    np.testing.assert_allclose(s2sad.grad(slot_set_through_another_name)(X),
                               central(slot_set_through_another_name, X), rtol=1e-6, atol=1e-8)


class Scaled:
    def __init__(self, w):
        self.w = w

    def copy(self):
        return Scaled(self.w * 10.0)


def copy_of_an_object(m, x):
    c = copy.copy(m)  # (Python's shallow copy: not the class's own copy method)
    return np.sum(c.w * x)


def copy_method_of_an_object(m, x):
    c = m.copy()  # (the class's own method; was taken for np.copy: an internal error)
    return np.sum(c.w * x)


@pytest.mark.parametrize("f", [copy_of_an_object, copy_method_of_an_object])
def test_a_copy_of_an_object_is_refused_at_its_line(f):
    m = Scaled(np.array([1.0, 2.0]))
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError, match="a copy of the object 'm'"):
        s2sad.grad(f, 1)(m, X[:2])


def object_passed_on(x):
    acc = Acc(2.0)
    acc.add(x[0])
    return _total(acc) * x[1]


def _total(a):
    return a.total


def test_an_object_passed_to_a_one_line_helper_is_followed():
    """Refused until session 36; ``_total(acc)`` is read as ``acc.total`` since
    (object_helpers), so its gradient is checked against central differences."""
    np.testing.assert_allclose(s2sad.grad(object_passed_on)(X), central(object_passed_on, X),
                               rtol=1e-6, atol=1e-8)


def object_passed_on_to_two_lines(x):
    acc = Acc(2.0)
    acc.add(x[0])
    return _total_of(acc) * x[1]


def _total_of(a):
    t = a.total
    return t


def object_of_a_class_attribute_set_through_self(x):
    c = Counter()
    c.add(x[0])
    return c.total * x[1]


@pytest.mark.parametrize("f", [object_passed_on_to_two_lines,
                               object_of_a_class_attribute_set_through_self])
def test_an_object_used_otherwise_stays_refused(f):
    with pytest.raises(s2sad.errors.NoDerivativeError):
        s2sad.grad(f)(X)
