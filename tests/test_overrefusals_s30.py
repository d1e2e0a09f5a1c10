"""Session 30: programs s2sad refused though it models them exactly, now differentiated.

Each case is a small program as people write them; its gradient is checked against
central differences in float64. Every case here was refused on main before this session
(marked ``# refused on main``, or an internal error there): ``np.copyto`` and a ufunc's
``out=`` (written as assignments into the output, views included); objects of a plain
class made in a loop or a branch, and its class attributes read; a dict's values set
while a loop walks its keys; a list lengthened or shortened while a loop walks it;
``np.vectorize`` and ``np.apply_along_axis`` with a function of the user's. The
last tests pin what stays refused.
"""

import copy
import math

import numpy as np
import pytest
from test_overrefusals_s28 import central
from test_overrefusals_s29 import Acc  # (an accumulator: total += scale * v)

import s2sad

X = np.array([0.3, -0.5, 1.2, 0.7])


# --- np.copyto and out= (written_outputs) ----------------------------------------------------

def copyto_into_a_buffer(x):  # refused on main
    y = np.zeros(4)
    np.copyto(y, x * 2.0)
    return np.sum(y * x)


def copyto_into_a_view(x):  # refused on main
    y = np.ones(6)
    np.copyto(y[1:5], x ** 2)
    return np.sum(y * np.arange(6.0))


def copyto_broadcast_into_rows(x):  # refused on main
    grid = np.zeros((3, 4))
    np.copyto(grid[1:, :], x * 0.5)
    np.copyto(dst=grid[:1], src=x[0])
    return np.sum(grid * np.arange(12.0).reshape(3, 4))


def exp_into_a_buffer(x):  # refused on main
    y = np.empty(4)
    np.exp(x, out=y)
    return np.sum(y * x)


def add_into_its_own_input(x):  # refused on main (the old a is read before the write)
    a = x * 2.0
    b = x ** 2
    np.add(a, b, out=a)
    return np.sum(a * b)


def multiply_into_an_overlapping_view(x):  # refused on main
    a = x * 1.0
    np.multiply(a[:2], a[2:], out=a[2:])
    return np.sum(a ** 2)


def ufunc_out_in_a_loop(x):  # refused on main
    y = x * 1.0
    for _ in range(3):
        np.multiply(y, x, out=y)
        np.add(y, 0.5, out=(y,))
    return np.sum(y)


def ufunc_result_kept(x):  # refused on main (the result is the output array itself)
    y = np.zeros(4)
    z = np.tanh(x * 3.0, out=y)
    return np.sum(z * y) + np.sum(y[:2])


def column_of_a_matrix_filled(x):  # refused on main
    m = np.ones((4, 2))
    np.sin(x, out=m[:, 0])
    return np.sum(m @ np.array([1.0, 2.0]) * x)


def matmul_into_its_input(x):  # refused on main (np.matmul is a ufunc: out= as any)
    m = np.outer(x, x) + 1.0
    z = x * 2.0
    r = np.matmul(m, x, out=z)
    return np.sum(z * x) + np.sum(r)


CASES = [matmul_into_its_input, copyto_into_a_buffer, copyto_into_a_view,
         copyto_broadcast_into_rows, exp_into_a_buffer, add_into_its_own_input,
         multiply_into_an_overlapping_view, ufunc_out_in_a_loop, ufunc_result_kept,
         column_of_a_matrix_filled]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_gradient_matches_central_differences(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)


# --- objects made in loops and branches, class attributes (local_objects) -------------------

class Doubler:
    def __init__(self, scale):
        self.scale = scale * 2.0
        self.total = 1.0

    def add(self, v):
        self.total = self.total * v


class Layer:
    lr = 0.1
    steps = 3

    def __init__(self, w):
        self.w = w

    def step(self, g):
        self.w = self.w - self.lr * g

    def train(self, x):
        for _ in range(self.steps):
            self.w = self.w - self.lr * 2.0 * self.w * x


class Spring:
    k = 2.5
    rest = (0.5, 1.0)

    def __init__(self, length):
        self.length = length

    def energy(self):
        d = self.length - self.rest[0]
        return 0.5 * self.k * d ** 2


def object_made_in_a_loop(x):  # refused on main
    total = 0.0
    for i in range(3):
        acc = Acc(x[i])
        acc.add(x[3])
        acc.add(x[i] ** 2)
        total = total + acc.total
    return total


def object_made_in_each_branch(x):  # refused on main
    if x[0] > 0:
        acc = Acc(2.0)
    else:
        acc = Acc(x[3])
    acc.add(x[1])
    return acc.total * x[2]


def object_made_and_used_in_a_branch(x):  # refused on main
    if x[0] > 0:
        acc = Acc(x[1])
        acc.add(x[2])
        r = acc.total
    else:
        r = x[3]
    return r * x[0]


def object_made_again_in_a_while_loop(x):  # refused on main
    n, out = 0, 0.0
    acc = Acc(1.0)
    while n < 3:
        acc.add(x[n])
        if acc.total > 0.5:
            acc = Acc(x[3])  # (a fresh object: its total starts again at 0)
        n += 1
        out = out + acc.total * x[n]
    return out


def object_made_from_the_last_one(x):  # refused on main
    acc = Acc(x[0])
    for v in x[1:]:
        acc = Acc(acc.total + acc.scale)
        acc.add(v)
    return acc.total


def class_attribute_read_in_a_method(x):  # refused on main
    layer = Layer(x[:2] * 1.0)
    for _ in range(3):
        layer.step(2.0 * layer.w * x[2])
    return np.sum(layer.w ** 2)


def class_attribute_as_a_count(x):  # refused on main
    layer = Layer(x[1:3] * 1.0)
    layer.train(x[0])
    return np.sum(layer.w) * layer.lr


def class_attributes_of_a_model(x):  # refused on main
    total = 0.0
    for v in x:
        s = Spring(v * 2.0)
        e = s.energy()
        total = total + e + s.k * s.rest[1]
    return total


OBJECT_CASES = [object_made_in_a_loop, object_made_in_each_branch,
                object_made_and_used_in_a_branch, object_made_again_in_a_while_loop,
                object_made_from_the_last_one, class_attribute_read_in_a_method,
                class_attribute_as_a_count, class_attributes_of_a_model]


@pytest.mark.parametrize("f", OBJECT_CASES, ids=[f.__name__ for f in OBJECT_CASES])
def test_object_gradient_matches_central_differences(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)


def test_a_class_attribute_is_read_when_the_function_runs():
    """Python reads Layer.lr at each call: a new value there gives a new gradient."""
    g = s2sad.grad(class_attribute_read_in_a_method)
    before = g(X)
    Layer.lr = 0.2
    try:
        np.testing.assert_allclose(g(X), central(class_attribute_read_in_a_method, X),
                                   rtol=1e-6, atol=1e-8)
        assert not np.allclose(g(X), before)
    finally:
        Layer.lr = 0.1


# --- a dict's values set while its keys are walked (dicts: d[k] keeps d's keys) --------------

def doubled_in_place_by_items(x):  # refused on main
    d = {"a": x[0], "b": x[1] * 3.0}
    for k, v in d.items():
        d[k] = v * 2.0
    return d["a"] * d["b"]


def sgd_step_in_place(x):  # refused on main
    params = {"w": x[:2] * 1.0, "b": x[2]}
    grads = {"w": x[:2] * x[3], "b": x[3] ** 2}
    for k, v in params.items():
        params[k] = v - 0.1 * grads[k]
    return np.sum(params["w"] ** 2) + params["b"] * x[0]


def squared_by_key(x):  # refused on main
    d = {"a": x[0], "b": x[1], "c": x[2]}
    for k in d:
        d[k] = d[k] ** 2
    for k2, v in d.items():
        d[k2] = v + x[3]
    total = 0.0
    for v in d.values():
        total = total + v * 2.0
    return total


def scalars_become_arrays(x):  # refused on main
    d = {"a": x[0], "b": x[1]}
    for k in d:
        d[k] = x[:2] * d[k]
    return np.sum(d["a"] * d["b"])


def over_its_keys_in_order(x):  # refused on main
    d = {"b": x[0], "a": x[1], "c": x[3]}
    for k in sorted(d):
        d[k] = d[k] * 3.0 + x[2]
    for k in list(d):
        d[k] = d[k] * d["a"]
    for k in d.keys():
        d[k] = d[k] - 1.0
    return d["a"] * d["b"] + d["c"]


def last_key_set_again(x):  # refused on main (k, after the loop: the last key)
    d = {"a": x[0], "b": x[1]}
    for k in d:
        d[k] = d[k] * 3.0
    d[k] = d[k] + x[2]
    return d["a"] * d["b"]


DICT_CASES = [doubled_in_place_by_items, sgd_step_in_place, squared_by_key,
              scalars_become_arrays, over_its_keys_in_order, last_key_set_again]


@pytest.mark.parametrize("f", DICT_CASES, ids=[f.__name__ for f in DICT_CASES])
def test_dict_gradient_matches_central_differences(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)


# --- a list lengthened or shortened while a loop walks it (grown_walks) --------------------

def worklist(x):  # an internal IndexError on main (the loop walked the first length only)
    queue = [x[0], x[1]]
    total = 0.0
    for v in queue:
        total = total + v ** 2
        if abs(v) > 0.1 and len(queue) < 8:
            queue.append(v * 0.5)
    return total


def appended_while_looping(x):  # an internal IndexError on main
    items = [x[0], x[1]]
    for v in items:
        if len(items) < 5:
            items.append(v * 2.0)
    return sum(items)


def grown_with_continue_and_else(x):  # an internal IndexError on main
    terms = [x[0]]
    for t in terms:
        if len(terms) >= 4:
            continue
        terms.append(t * x[1] + x[2])
    else:
        terms.append(x[3])
    return sum(terms)


def extended_until_a_break(x):  # an internal IndexError on main
    ys = [x[2]]
    for y in ys:
        if y > 3.0:
            break
        ys.extend([y * 1.5, y + x[3]])
    return sum(ys) * x[0]


def shortened_while_walking(x):  # refused on main (Python walks two of the four items)
    ys = [x[0], x[1], x[2], x[3]]
    total = 0.0
    for y in ys:
        total = total + y * len(ys)
        ys.pop()
    return total


def enumerated_while_growing(x):  # an internal IndexError on main
    xs = [x[0], x[1]]
    for i, v in enumerate(xs, 1):
        if i < 4:
            xs.append(v * x[2] + i)
    return sum(xs) * x[3]


LIST_CASES = [worklist, appended_while_looping, grown_with_continue_and_else,
              extended_until_a_break, shortened_while_walking, enumerated_while_growing]


@pytest.mark.parametrize("f", LIST_CASES, ids=[f.__name__ for f in LIST_CASES])
def test_list_walk_gradient_matches_central_differences(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)


# --- np.vectorize (vectorized: f called item by item, as NumPy calls it) --------------------

def _huber(r, delta):
    if abs(r) <= delta:
        return 0.5 * r ** 2
    return delta * (abs(r) - 0.5 * delta)


def _soft(t):
    if t > 0.0:
        return t + np.exp(-t)
    return np.exp(t)


def vectorized_lambda(x):  # refused on main
    f = np.vectorize(lambda t: t ** 2 if t > 0 else 0.5 * t)
    return np.sum(f(x) * x)


def vectorized_function_of_a_matrix(x):  # refused on main
    return np.sum(np.vectorize(_soft)(np.outer(x, x[:2]) * 2.0))


def huber_loss_of_two_arguments(x):  # refused on main (0.8 broadcast against the residuals)
    loss = np.vectorize(_huber)(x * 2.0 - 1.0, 0.8)
    return np.sum(loss)


def held_with_otypes_called_twice(x):  # refused on main
    phi = np.vectorize(lambda t: math.erf(t) * t, otypes=[float])
    m = np.outer(x, x[:2])
    return np.sum(phi(m)) + np.sum(phi(x) * x)


def broadcast_grid(x):  # refused on main
    f = np.vectorize(lambda a, b: a * b if a > b else a + b)
    g = f(x[:, None], x[None, :2])
    return np.sum(g ** 2)


def inner_function_vectorized(x):  # refused on main
    def rate(t):
        if t < 0:
            return 0.0
        return t * math.exp(-t)
    r = np.vectorize(rate)(x)
    return np.sum(r * x)


VECTORIZE_CASES = [vectorized_lambda, vectorized_function_of_a_matrix,
                   huber_loss_of_two_arguments, held_with_otypes_called_twice,
                   broadcast_grid, inner_function_vectorized]


@pytest.mark.parametrize("f", VECTORIZE_CASES, ids=[f.__name__ for f in VECTORIZE_CASES])
def test_vectorize_gradient_matches_central_differences(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)


# --- np.apply_along_axis (vectorized: f on each slice, the results where the axis was) -----

X6 = np.array([0.3, -0.5, 1.2, 0.7, 0.9, -1.1])


def _norm(v):
    return np.sqrt(np.sum(v * v))


def _normalize(v):
    return v / np.sum(v ** 2)


def row_sums_of_squares(x):  # refused on main
    m = x.reshape(2, 3)
    r = np.apply_along_axis(lambda row: np.sum(row ** 2), 1, m)
    return np.sum(r * x[:2])


def column_norms(x):  # refused on main
    m = np.outer(x, x[:2])
    return np.sum(np.apply_along_axis(_norm, 0, m) * np.array([1.0, 2.0]))


def normalized_along_a_middle_axis(x):  # refused on main
    a = np.stack([np.outer(x[:3], x[3:5]), np.outer(x[3:], x[:2])])
    out = np.apply_along_axis(_normalize, -2, a)
    return np.sum(out * np.arange(12.0).reshape(out.shape))


def outer_product_of_each_row(x):  # refused on main (each result 2-d: the axes it adds)
    m = x.reshape(3, 2)
    out = np.apply_along_axis(lambda v: np.outer(v, v), 1, m)
    return np.sum(out * np.arange(out.size).reshape(out.shape))


ALONG_CASES = [row_sums_of_squares, column_norms, normalized_along_a_middle_axis,
               outer_product_of_each_row]


@pytest.mark.parametrize("f", ALONG_CASES, ids=[f.__name__ for f in ALONG_CASES])
def test_apply_along_axis_gradient_matches_central_differences(f):
    np.testing.assert_allclose(s2sad.grad(f)(X6), central(f, X6), rtol=1e-6, atol=1e-8)


def test_apply_along_axis_with_a_bad_axis_raises_as_numpy_does():
    def f(x):
        return np.sum(np.apply_along_axis(_norm, 2, x.reshape(2, 3)))
    with pytest.raises(np.exceptions.AxisError):
        f(X6)
    with pytest.raises(np.exceptions.AxisError):
        s2sad.grad(f)(X6)


@pytest.mark.parametrize("f", [matmul_into_its_input, add_into_its_own_input,
                               multiply_into_an_overlapping_view, copyto_into_a_view])
def test_forward_mode_follows_the_write_too(f):
    direction = np.array([1.0, -2.0, 0.5, 3.0])
    want = central(f, X) @ direction
    np.testing.assert_allclose(s2sad.jvp(f)(X)[1](direction), want, rtol=1e-6, atol=1e-8)


GLOBAL_OUT = np.zeros(4)


def out_into_a_module_array(x):
    np.exp(x, out=GLOBAL_OUT)  # (the module's array: changed for every later caller)
    return np.sum(GLOBAL_OUT * x)


def test_an_output_of_the_module_stays_refused_naming_it():
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError, match="'GLOBAL_OUT'"):
        s2sad.grad(out_into_a_module_array)(X)


# --- what stays refused, or raises as Python does --------------------------------------------

def copyto_into_an_integer_array(x):
    y = np.zeros(4, dtype=int)
    np.copyto(y, x * 2.0)  # (NumPy: same_kind casting, float into int raises)
    return np.sum(y * x)


def out_into_an_integer_array(x):
    y = np.zeros(4, dtype=np.int64)
    np.multiply(x, 3.0, out=y)
    return np.sum(y * x)


@pytest.mark.parametrize("f", [copyto_into_an_integer_array, out_into_an_integer_array])
def test_an_output_that_cannot_take_the_value_raises_as_numpy_does(f):
    with pytest.raises(TypeError, match="same_kind"):
        f(X)
    with pytest.raises(TypeError, match="same_kind"):
        s2sad.grad(f)(X)


def out_into_the_argument(x):
    np.exp(x, out=x)
    return np.sum(x)


def out_into_a_shared_array(x):
    y = np.zeros_like(x)
    w = y.reshape(2, 2)  # (a view not followed: w = y is, since session 34)
    np.exp(x, out=y)
    return np.sum(w * x.reshape(2, 2))


def out_indexed_by_a_list(x):
    y = np.zeros(4)
    np.exp(x, out=y[[0, 1, 2, 3]])  # (a copy: NumPy writes it and drops it; y stays 0)
    return np.sum(y * x)


@pytest.mark.parametrize("f", [out_into_the_argument, out_into_a_shared_array,
                               out_indexed_by_a_list])  # (out= with where=: s31)
def test_a_write_not_followed_is_refused(f):
    with pytest.raises((s2sad.errors.UnsupportedSyntaxError, s2sad.errors.NoDerivativeError)):
        s2sad.grad(f)(X)


def objects_of_two_classes_in_one_name(x):
    if x[0] > 0:
        acc = Acc(x[1])
    else:
        acc = Doubler(x[1])  # (another class: its methods differ)
    acc.add(x[2])
    return acc.total


def objects_made_in_a_loop_kept_in_a_list(x):
    accs = []
    for v in x:
        acc = Acc(v)
        acc.add(v)
        accs.append(acc)
    return accs[0].total * accs[1].total


class Shadowed:
    rate = 0.5

    def __init__(self, w):
        self.w = w

    def decay(self):
        self.rate = self.rate * 0.5  # (the object's own from now on; the class keeps 0.5)
        self.w = self.w * self.rate


def class_attribute_set_through_self(x):
    s = Shadowed(x[0])
    s.decay()
    s.decay()
    return s.w * x[1]


def class_attribute_set_from_outside(x):
    layer = Layer(x[:2] * 1.0)
    layer.lr = x[2]  # (an attribute of the object now, not of the class)
    layer.step(x[:2])
    return np.sum(layer.w)


@pytest.mark.parametrize("f", [objects_of_two_classes_in_one_name,
                               objects_made_in_a_loop_kept_in_a_list,
                               class_attribute_set_through_self,
                               class_attribute_set_from_outside])
def test_an_object_not_written_as_variables_stays_refused(f):
    with pytest.raises((s2sad.errors.NoDerivativeError, s2sad.errors.UnsupportedSyntaxError)):
        s2sad.grad(f)(X)


def key_added_while_walking(x):
    d = {"a": x[0], "b": x[1]}
    for k in d:
        d[k + "2"] = d[k] * 2.0  # (Python: RuntimeError, the dict changed size)
    return d["a"]


def _doubled(p):
    for k in p:
        p[k] = p[k] * 2.0  # (the caller's dict)
    return p["a"] * p["b"]


@pytest.mark.parametrize("f", [key_added_while_walking])
def test_a_key_the_dict_may_not_have_is_refused(f):
    with pytest.raises(s2sad.errors.NoDerivativeError, match="dict key"):
        s2sad.grad(f)(X)


def test_a_dict_argument_set_in_place_is_refused():
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError, match="argument 'p'"):
        s2sad.grad(_doubled)({"a": 1.0, "b": 2.0})


def vectorized_first_result_an_integer(x):
    f = np.vectorize(lambda t: 0 if t < 0.5 else t ** 2)  # (NumPy: every result an int)
    return np.sum(f(x))


def test_vectorize_whose_results_differ_in_dtype_raises_rather_than_differs():
    assert vectorized_first_result_an_integer(X) == 1  # (1.2 ** 2 cut to 1: NumPy's cast)
    with pytest.raises(TypeError, match="otypes"):
        s2sad.grad(vectorized_first_result_an_integer)(X)


_LOG = []


def _logged(v):
    _LOG.append(v)
    return v


def vectorized_after_a_call_of_yours(x):
    f = np.vectorize(lambda t: t * 2.0)
    return _logged(x[0]) + np.sum(f(x))  # (taken out, f(x) would run before _logged)


def vectorized_without_a_derivative(x):
    f = np.vectorize(lambda t: float(np.format_float_positional(t, precision=3)))
    return np.sum(f(x) * x)


@pytest.mark.parametrize("f", [vectorized_after_a_call_of_yours,
                               vectorized_without_a_derivative])
def test_vectorize_not_written_out_is_refused(f):
    with pytest.raises((s2sad.errors.NoDerivativeError, s2sad.errors.UnsupportedSyntaxError)):
        s2sad.grad(f)(X)


# deep copies: s2sad's copy of a list or dict shares the items (copy.copy's); a change to a
# shared item in place, which a deep copy would not share with the original (but would
# share between its own slots), is refused, never differentiated as the wrong one

def deep_copy_of_shared_items_added_to(x):
    v = x[:2] * 1.0
    lst = [v, v]
    c = copy.deepcopy(lst)
    c[0] += x[2:]  # (Python: c[1] changes too, lst does not)
    return np.sum(c[1] * x[:2]) + np.sum(lst[0])


def deep_copy_of_a_nested_dict_scaled(x):
    v = x[:2] * 1.0
    nested = {"a": [v], "b": v}
    c = copy.deepcopy(nested)
    c["b"] *= 2.0  # (Python: c["a"][0] changes too, nested does not)
    return np.sum(c["a"][0] * x[2:])


def deep_copy_item_set_through_a_name(x):
    v = x[:2] * 1.0
    lst = [v, v]
    c = copy.deepcopy(lst)
    w = c[0]
    w[0] = x[3]
    return np.sum(c[1] * x[:2])


@pytest.mark.parametrize("f", [deep_copy_of_shared_items_added_to,
                               deep_copy_of_a_nested_dict_scaled,
                               deep_copy_item_set_through_a_name])
def test_a_change_to_an_item_of_a_deep_copy_is_refused(f):
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError):
        s2sad.grad(f)(X)


def zipped_while_growing(x):
    xs = [x[0], x[1]]
    total = 0.0
    for a, b in zip(xs, [1.0, 2.0, 3.0]):  # (zip reads xs as it grows)
        xs.append(a * b)
        total = total + a * b
    return total


def test_a_live_iterator_of_a_list_resized_is_refused_at_its_line():
    """Was an internal IndexError (the walk's length read once)."""
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError,
                       match="lengthens or shortens") as info:
        s2sad.grad(zipped_while_growing)(X)
    assert "for a, b in zip(xs" in str(info.value)
