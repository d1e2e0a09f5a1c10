"""Session 31: programs s2sad refused though it models them exactly, now differentiated.

Each case is a small program as people write them (layer classes with state, method
calls inside expressions, objects made in a conditional expression); its gradient is
checked against central differences in float64. Every case here was refused on main
before this session (marked ``# refused on main``), or failed there at run time
(``# crashed on main``). The last tests pin what stays refused, and Python's order of
evaluation where a call changes an object.
"""

import dataclasses
import itertools

import numpy as np
import pytest
from test_overrefusals_s28 import central

import s2sad

X = np.array([0.3, -0.5, 1.2, 0.7])


def check(f, x=X):
    got = s2sad.grad(f)(x.copy())
    np.testing.assert_allclose(got, central(f, x.copy()), rtol=1e-6, atol=1e-7)


class Acc:
    def __init__(self, w):
        self.w = w
        self.total = 0.0

    def add(self, v):
        self.total = self.total + self.w * v
        return self.total

    def read(self):
        return self.total


class Linear:
    def __init__(self, w):
        self.w = w

    def __call__(self, h):
        return self.w * h

    def forward(self, h):
        return np.tanh(self.w * h)


class Dense:
    def __init__(self, w, b):
        self.w = w
        self.b = b
        self.calls = 0

    def forward(self, h):
        self.calls += 1
        return np.tanh(h @ self.w + self.b)


# --- a method call inside an expression (local_objects._Hoisting) -------------------------

def method_call_inside_a_sum(x):  # refused on main
    acc = Acc(x[0])
    y = acc.add(x[1]) * 2 + acc.total
    return y * x[2]


def attribute_read_before_the_call_that_changes_it(x):  # refused on main
    acc = Acc(x[0])
    acc.add(x[1])
    return acc.total * 3.0 + acc.add(x[2]) * acc.total  # (the old total, then the new)


def method_calls_nested(x):  # refused on main
    acc = Acc(x[0])
    return acc.add(x[1]) ** 2 + acc.add(acc.add(x[2]))


def method_calls_in_a_list_display(x):  # refused on main
    acc = Acc(x[0])
    vals = [acc.add(x[1]), acc.total, acc.add(x[2])]
    return vals[0] * vals[1] * vals[2]


def method_call_added_to_a_name(x):  # refused on main
    acc = Acc(x[0])
    total = x[1]
    total += acc.add(x[2])
    return total * acc.read()


def method_call_in_a_loop_expression(x):  # refused on main
    acc = Acc(x[0])
    s = 0.0
    for v in x:
        s = s + acc.add(v) * v
    return s


def method_calls_unpacked(x):  # refused on main
    acc = Acc(x[0])
    a, b = acc.add(x[1]), acc.total
    return a * b


def method_call_returned(x):  # refused on main
    layer = Linear(x[0])
    return np.sum(layer.forward(x))


def layers_chained(x):  # refused on main
    w = np.outer(x, x[::-1]) * 0.3
    l1 = Dense(w, x * 0.1)
    l2 = Dense(w.T, x[::-1])
    h = l2.forward(l1.forward(x))
    return np.sum(h ** 2) + l1.calls * x[0]


def object_called(x):  # refused on main
    layer = Linear(x[0])
    return np.sum(layer(x) ** 2)


# --- objects made in a conditional expression (local_objects._branches) --------------------

def object_made_in_a_conditional_expression(x):  # refused on main
    layer = Linear(x[0]) if x[1] < 0 else Linear(x[2])
    return np.sum(layer.forward(x))


def objects_chosen_and_called(x):  # refused on main
    l1 = Linear(x[0]) if x[1] > 0 else Linear(x[2])
    l2 = Linear(x[3])
    return np.sum(l2(l1(x)) ** 2)


# --- a method call in a branch after another: the tape pops what it pushed ---------------

def method_call_in_a_branch_after_another(x):  # crashed on main (pop from empty list)
    acc = Acc(x[0])
    total = x[1]
    t = acc.add(x[3])
    if t > 0:
        t2 = acc.read()
        total = total * t2
    return total


def method_call_in_the_test_of_a_branch(x):  # refused on main
    acc = Acc(x[0])
    total = x[1]
    if acc.add(x[3]) > 0:
        total = total * acc.read()
    return total + acc.read()


@pytest.mark.parametrize("f", [
    method_call_inside_a_sum, attribute_read_before_the_call_that_changes_it,
    method_calls_nested, method_calls_in_a_list_display, method_call_added_to_a_name,
    method_call_in_a_loop_expression, method_calls_unpacked, method_call_returned,
    layers_chained, object_called, object_made_in_a_conditional_expression,
    objects_chosen_and_called, method_call_in_a_branch_after_another,
    method_call_in_the_test_of_a_branch])
def test_objects_in_expressions(f):
    check(f)


@pytest.mark.parametrize("x", [X, -X])
def test_both_branches_of_the_conditional_object(x):
    check(object_made_in_a_conditional_expression, x)
    check(method_call_in_a_branch_after_another, x)


# --- what stays refused ------------------------------------------------------------------

def method_call_in_one_branch_of_a_conditional_expression(x):
    acc = Acc(x[0])
    y = acc.add(x[1]) if x[2] > 0 else acc.add(x[3])  # (one of the two runs)
    return y * acc.total


def objects_of_two_classes_in_a_conditional_expression(x):
    layer = Linear(x[0]) if x[1] < 0 else Acc(x[0])
    return np.sum(layer.forward(x))


@pytest.mark.parametrize("f", [method_call_in_one_branch_of_a_conditional_expression,
                               objects_of_two_classes_in_a_conditional_expression])
def test_an_object_not_written_as_variables_stays_refused(f):
    with pytest.raises(s2sad.errors.NoDerivativeError):
        s2sad.grad(f)(X)


# --- a ufunc's out= with where= (written_outputs._where) ----------------------------------

def product_where_positive(x):  # refused on main
    y = np.zeros(4)
    np.multiply(x, x, out=y, where=x > 0)
    return np.sum(y * x)


def sqrt_where_positive(x):  # refused on main (NumPy computes no sqrt where x <= 0)
    y = x * 0.5
    np.sqrt(x, out=y, where=x > 0)
    return np.sum(y * x)


def sum_into_rows_where_a_column_mask(x):  # refused on main
    y = np.ones((2, 4))
    np.add(x, x[::-1] * 2.0, out=y, where=np.array([[True], [False]]))
    return np.sum(y ** 2)


def overlapping_input_and_result_kept(x):  # refused on main
    a = x * 2.0
    z = np.add(a[::-1], x, out=a, where=x < 1.0)  # (the old a, reversed; z is a)
    return np.sum(z * a) + np.sum(a)


def log_with_where_first(x):  # refused on main
    y = np.ones(4)
    np.log(x, where=x > 0, out=y)
    return np.sum(y * x)


def masked_updates_in_a_loop(x):  # refused on main
    y = np.zeros(4)
    for k in range(3):
        np.multiply(y + x, x, out=y, where=np.arange(4) > k)
    return np.sum(y)


@pytest.mark.parametrize("f", [product_where_positive, sqrt_where_positive,
                               sum_into_rows_where_a_column_mask,
                               overlapping_input_and_result_kept, log_with_where_first,
                               masked_updates_in_a_loop])
def test_ufunc_out_with_where(f):
    with np.errstate(all="raise"):  # (a sqrt or log where the mask is false would raise)
        check(f)


def integer_mask(x):
    y = np.zeros(4)
    np.multiply(x, x, out=y, where=np.array([1, 0, 1, 0]))
    return np.sum(y)


def test_a_mask_of_integers_raises_as_numpy_does():
    with pytest.raises(TypeError, match="to dtype\\('bool'\\) according to the rule 'safe'"):
        integer_mask(X)
    with pytest.raises(TypeError, match="to dtype\\('bool'\\) according to the rule 'safe'"):
        s2sad.grad(integer_mask)(X)


def copyto_result_kept(x):
    y = np.zeros(4)
    z = np.copyto(y, x * 2.0)
    return np.sum(y * x) + (1.0 if z is None else 0.0)


def test_copyto_returns_none():
    """Was y (the destination) on main: the value was 1 less than Python's."""
    value, grad = s2sad.value_and_grad(copyto_result_kept)(X.copy())
    assert value == copyto_result_kept(X.copy())
    np.testing.assert_allclose(grad, central(copyto_result_kept, X.copy()), rtol=1e-6)


# --- zip with reversed (Loops._walked_index) ----------------------------------------------

def enumerate_zip_with_reversed(x):  # refused on main
    tot = 0.0
    for i, (a, b) in enumerate(zip(x, reversed(x))):
        tot += i * a * b
    return tot


def generator_over_zip_with_reversed(x):  # refused on main
    return sum(a * b ** 2 for a, b in zip(reversed(x), x[1:]))


def reversed_list_read_as_it_changes(x):  # refused on main
    xs = [x[0], x[1] * 2.0, x[2]]
    tot = 0.0
    for k, v in zip(reversed(range(3)), reversed(xs)):
        tot = tot + k * v
        xs[0] = v * 3.0  # (reversed reads xs[0] last: this value)
    return tot * x[3]


def zip_with_a_shorter_reversed(x):  # refused on main
    tot = 0.0
    for a, b in zip(x, reversed(x[:2])):
        tot += a * b
    return tot


@pytest.mark.parametrize("f", [enumerate_zip_with_reversed, generator_over_zip_with_reversed,
                               reversed_list_read_as_it_changes, zip_with_a_shorter_reversed])
def test_zip_with_reversed(f):
    check(f)


# --- an iterable computed from what the loop changes: refused (was a wrong gradient) -------

def accumulate_of_a_list_changed(x):  # wrong on main
    xs = [x[0], x[1], x[2]]
    tot = 0.0
    for c in itertools.accumulate(xs):
        xs[2] = c * 3.0  # (accumulate reads xs[2] after this)
        tot = tot + c
    return tot


def accumulate_of_an_array_changed(x):  # wrong on main
    y = x * 1.0
    tot = 0.0
    for c in itertools.accumulate(y):
        y[3] = c * 2.0
        tot = tot + c * c
    return tot


def map_of_a_list_changed(x):  # wrong on main
    xs = [x[0], x[1], x[2]]
    tot = 0.0
    for c in map(lambda v: v * 2.0, xs):
        xs[2] = c * 3.0
        tot = tot + c
    return tot


def slice_of_an_array_changed(x):  # wrong on main
    y = x * 1.0
    tot = 0.0
    for v in y[1:]:  # (a view: it reads y[3] after the change)
        y[3] = v * 2.0
        tot = tot + v * v
    return tot


def values_of_a_dict_changed(x):  # wrong on main
    d = {"a": x[0], "b": x[1], "c": x[2]}
    tot = 0.0
    for v in d.values():
        d["c"] = v * 3.0
        tot = tot + v
    return tot


@pytest.mark.parametrize("f", [accumulate_of_a_list_changed, accumulate_of_an_array_changed,
                               map_of_a_list_changed, slice_of_an_array_changed,
                               values_of_a_dict_changed])
def test_an_iterable_read_as_the_loop_changes_it_is_refused(f):
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError,
                       match="in a loop over an iterable computed from it") as info:
        s2sad.grad(f)(X)
    assert "for v in list(...)" in str(info.value)


# --- itertools.product, chain, pairwise (s2sad.implementations) ----------------------------

def product_of_two_halves(x):  # refused on main
    tot = 0.0
    for a, b in itertools.product(x[:2], x[2:]):
        tot += a * b
    return tot


def product_repeated(x):  # refused on main
    return sum(a * b * c for a, b, c in itertools.product(x[:2], repeat=3))


def product_in_an_array(x):  # refused on main
    grid = np.array([[a * b for a, b in itertools.product([x[0], x[1]], [1.0, x[2]])]])
    return np.sum(grid ** 2)


def chained_into_a_list(x):  # refused on main
    vals = list(itertools.chain([x[0]], x[1:3], (x[3] * 2.0,)))
    return vals[0] * vals[3] + vals[1] ** 2


def pairwise_differences(x):  # refused on main
    return sum((b - a) ** 2 for a, b in itertools.pairwise(x))


def pairwise_of_arrays(x):  # refused on main
    pts = [x[:2], x[2:], x[1:3]]
    return sum(np.sum((p - q) ** 2) for p, q in itertools.pairwise(pts))


@pytest.mark.parametrize("f", [product_of_two_halves, product_repeated, product_in_an_array,
                               chained_into_a_list, pairwise_differences, pairwise_of_arrays])
def test_itertools(f):
    check(f)


def chain_of_a_list_changed(x):  # (chain reads xs as the loop changes it)
    xs = [x[0], x[1]]
    tot = 0.0
    for v in itertools.chain(xs, [x[2]]):
        xs[1] = v * 3.0
        tot = tot + v
    return tot


def test_chain_of_a_list_the_loop_changes_is_refused_at_the_change():
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError,
                       match="in a loop over an iterable computed from it") as info:
        s2sad.grad(chain_of_a_list_changed)(X)
    assert "xs[1] = v * 3.0" in str(info.value)


# --- dataclasses made in the function (local_objects.dataclass_fields) ---------------------

@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float


@dataclasses.dataclass
class Config:
    w: np.ndarray
    lr: float = 0.1
    steps: int = 3

    def step(self, g):
        self.w = self.w - self.lr * g


def dataclass_read(x):  # refused on main
    p = Params(w=x[:2] * 2.0, b=x[2])
    return np.sum(p.w ** 2) + p.b * x[3]


def dataclass_field_set(x):  # refused on main
    p = Params(x[:2], x[2])
    p.b = p.b * 2.0
    return np.sum(p.w) * p.b


def dataclass_with_defaults_and_a_method(x):  # refused on main
    c = Config(x[:2] * 1.0)
    for _ in range(c.steps):
        c.step(c.w * x[2:])
    return np.sum(c.w ** 2)


def dataclass_keywords_out_of_order(x):  # refused on main
    c = Config(lr=x[3], w=x[:2])
    c.step(x[2:])
    return np.sum(c.w)


@pytest.mark.parametrize("f", [dataclass_read, dataclass_field_set,
                               dataclass_with_defaults_and_a_method,
                               dataclass_keywords_out_of_order])
def test_dataclasses(f):
    check(f)


# --- a list comprehension calling a method (local_objects._Hoisting.loop_of) ---------------

class Cell:
    def __init__(self, w):
        self.w = w
        self.h = 0.0

    def step(self, v):
        self.h = np.tanh(self.w * self.h + v)
        return self.h


def cell_stepped_in_a_comprehension(x):  # refused on main
    cell = Cell(x[0])
    outs = [cell.step(v) for v in x[1:]]
    return sum(outs) + cell.h


def comprehension_variable_stays_its_own(x):  # refused on main
    cell = Cell(x[0])
    v = 5.0
    outs = [cell.step(v) for v in x[1:] if v < 1.0]
    return sum(outs) + cell.h * v  # (v: 5.0, not the comprehension's last)


def two_loops_in_a_comprehension(x):  # refused on main
    acc = Acc(x[0])
    grid = [acc.add(a * b) for a in x[:2] for b in x[2:]]
    return grid[1] * grid[3] + acc.total


@pytest.mark.parametrize("f", [cell_stepped_in_a_comprehension,
                               comprehension_variable_stays_its_own,
                               two_loops_in_a_comprehension])
def test_methods_called_in_a_comprehension(f):
    check(f)


# --- np.vectorize with excluded= (vectorized: excluded arguments passed as they are) -------

def vectorized_with_a_number_excluded(x):  # refused on main
    f = np.vectorize(lambda t, s: t * s, excluded={1})
    return np.sum(f(x, 2.0) * x)


def vectorized_with_an_array_passed_whole(x):  # refused on main
    f = np.vectorize(lambda t, w: np.sum(w) * t ** 2, excluded={1})
    return np.sum(f(x, x[:2]))


def vectorized_with_a_keyword_excluded(x):  # refused on main
    f = np.vectorize(lambda t, scale=1.0: t * scale, excluded={"scale"})
    return np.sum(f(x, scale=x[0]))


def vectorized_excluded_between_broadcast_ones(x):  # refused on main
    g = np.vectorize(lambda a, w, b: a * np.dot(w, w) + b, excluded=[1])
    return np.sum(g(x[:2], x[2:], x[:, None][:2]))


@pytest.mark.parametrize("f", [vectorized_with_a_number_excluded,
                               vectorized_with_an_array_passed_whole,
                               vectorized_with_a_keyword_excluded,
                               vectorized_excluded_between_broadcast_ones])
def test_vectorize_with_excluded(f):
    check(f)


# --- np.vectorize with signature= (vectorized._with_signature) -----------------------------

def vectorized_rows_to_pairs(x):  # refused on main
    f = np.vectorize(lambda v: np.array([v.sum(), (v ** 2).sum()]), signature="(n)->(2)")
    return np.sum(f(x.reshape(2, 2)) * 1.5)


def vectorized_dot_of_rows(x):  # refused on main
    dot = np.vectorize(lambda a, b: np.dot(a, b), signature="(n),(n)->()")
    m = np.stack([x, x ** 2, np.sin(x)])
    return np.sum(dot(m, x) ** 2)


def vectorized_matrix_times_vector(x):  # refused on main
    mv = np.vectorize(lambda m, v: m @ v, signature="(i,j),(j)->(i)")
    ms = np.stack([np.outer(x[:2], x[2:]), np.eye(2) * x[0]])
    return np.sum(mv(ms, x[1:3]) ** 2)


def vectorized_norm_without_loop_axes(x):  # refused on main
    norm = np.vectorize(lambda v: np.sqrt(np.sum(v * v)), signature="(n)->()")
    return norm(x)


@pytest.mark.parametrize("f", [vectorized_rows_to_pairs, vectorized_dot_of_rows,
                               vectorized_matrix_times_vector,
                               vectorized_norm_without_loop_axes])
def test_vectorize_with_a_signature(f):
    check(f)


def core_sizes_differ(x):
    dot = np.vectorize(lambda a, b: np.dot(a, b), signature="(n),(n)->()")
    return np.sum(dot(x.reshape(2, 2), x[:3]))


def test_core_sizes_that_differ_raise_numpys_error():
    with pytest.raises(ValueError, match="inconsistent size for core dimension 'n': 3 vs 2"):
        core_sizes_differ(X)
    with pytest.raises(ValueError, match="inconsistent size for core dimension 'n': 3 vs 2"):
        s2sad.grad(core_sizes_differ)(X)


# --- enumerate and zip consumed at once (desugar._listed_pairs) ----------------------------

def min_over_enumerate(x):  # refused on main
    best_i, best = min(enumerate(x ** 2), key=lambda t: t[1])
    return best * x[best_i]


def max_over_enumerate_from_one(x):  # refused on main
    i, v = max(enumerate(x, start=1), key=lambda t: t[1] * t[0])
    return v * i


def dict_of_names_and_an_array(x):  # refused on main
    names = ["a", "b", "c"]
    params = dict(zip(names, x))
    params["a"] = params["a"] * 2.0
    return sum(params[k] ** 2 for k in sorted(params)) * params["c"]


def dict_of_enumerate(x):  # refused on main
    d = dict(enumerate(x))
    return d[0] * d[3]


@pytest.mark.parametrize("f", [min_over_enumerate, max_over_enumerate_from_one,
                               dict_of_names_and_an_array,
                               dict_of_enumerate])
def test_pairs_consumed_at_once(f):
    check(f)
