"""Python as people write it, session 26: the forms issue 35 still refused.

* ``next`` of an iterator held in a name (``it = iter(xs); a = next(it)``) and of a
  generator of the user's (``g = gen(x); a = next(g); b = next(g)``), taken by the
  ``next`` calls right after it; ``StopIteration`` and the default as Python gives them;
* ``None`` arguments and defaults (``def f(x, g=None)``, ``if mask is None:``): None is
  part of the variant's key, and ``is None`` is decided in it;
* NumPy functions of a raw list whose derivatives do arithmetic on it (``np.power(xs,
  3)``, ``np.dot(xs, xs)``, ``np.linalg.norm(xs)``, ``np.float_power(xs, 3)``), at first
  and second order.
"""

import inspect

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences


def line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


def assert_matches(f, args, wrt=0):
    got = s2sad.grad(f, wrt=wrt)(*args)
    want = central_differences(f, args, wrt)
    assert np.allclose(got, want, rtol=1e-6, atol=1e-7), (got, want)


X = np.array([0.3, -0.5, 0.7])


# --- next() of an iterator or a generator held in a name -------------------------------------

def two(x):
    yield x * 2.0
    yield np.sin(x)


def powers(x, n):
    for i in range(n):
        yield x ** (i + 1)


LOG = []


def counted(x):
    LOG.append("first")
    yield x * 3.0
    LOG.append("second")
    yield x * x
    LOG.append("third")
    yield x


def next_of_generator(x):
    g = two(x)
    a = next(g)
    b = next(g)
    return np.sum(a * b)


def next_of_looping_generator(x):
    g = powers(x, 5)
    a = next(g)
    b = next(g)
    c = next(g)
    return np.sum(a * b + c)


def next_with_default(x):
    g = two(x)
    a = next(g)
    b = next(g)
    c = next(g, 1.5)
    return np.sum(a * b * c)


def next_past_the_end(x):
    g = two(x)
    a = next(g)
    b = next(g)
    c = next(g)
    return np.sum(a * b * c)


def next_of_iter_list(x):
    xs = [x[0], x[1], x[2]]
    it = iter(xs)
    a = next(it)
    b = next(it)
    return a * np.cos(b)


def next_of_iter_array(x):
    it = iter(x)
    a = next(it)
    b = next(it)
    return a * np.sin(b)


def next_of_iter_dict(x):
    d = {"a": x[0], "b": x[1]}
    it = iter(d)
    k = next(it)
    return d[k] * 3.0


def next_of_iter_default(x):
    xs = [x[0]]
    it = iter(xs)
    a = next(it)
    b = next(it, 2.0)
    return a * b


def next_of_iter_past_the_end(x):
    it = iter([x[0]])
    a = next(it)
    b = next(it)
    return a * b


NEXT = [next_of_generator, next_of_looping_generator, next_with_default, next_of_iter_list,
        next_of_iter_array, next_of_iter_dict, next_of_iter_default]


@pytest.mark.parametrize("f", NEXT, ids=lambda f: f.__name__)
def test_next_matches_central_differences(f):
    assert_matches(f, (X,))


@pytest.mark.parametrize("f", NEXT, ids=lambda f: f.__name__)
def test_next_forward_reverse_and_second_order(f):
    s2sad.check_grads(f, (X,), order=2)


@pytest.mark.parametrize("f", [next_past_the_end, next_of_iter_past_the_end],
                         ids=lambda f: f.__name__)
def test_next_past_the_end_raises_stop_iteration_as_python(f):
    with pytest.raises(StopIteration):
        f(X)
    with pytest.raises(StopIteration):
        s2sad.grad(f)(X)


def generator_runs_as_far_as_taken(x):
    g = counted(x)
    a = next(g)
    b = next(g)
    return np.sum(a * b)


def test_a_generator_runs_only_as_far_as_next_takes_it():
    LOG.clear()
    generator_runs_as_far_as_taken(X)
    assert LOG == ["first", "second"]  # (not "third": Python stops at the second yield)
    LOG.clear()
    got = s2sad.grad(generator_runs_as_far_as_taken)(X)
    assert LOG == ["first", "second"]  # (as Python: once per gradient call, no further)
    assert np.allclose(got, 9.0 * X ** 2)


def test_next_second_call_with_other_kinds():
    g = s2sad.grad(next_of_iter_array)
    assert np.allclose(g(X), central_differences(next_of_iter_array, (X,), 0))
    x32 = X.astype(np.float32)
    assert g(x32).dtype == np.float32
    xs = [0.2, 0.4, 0.1]  # (a list: iter of a list argument)
    assert np.allclose(g(xs), central_differences(lambda v: next_of_iter_array(list(v)),
                                                  (np.array(xs),), 0))


def next_in_a_loop(x):
    it = iter([x[0], x[1], x[2]])
    total = 0.0
    for _ in range(2):
        total = total + next(it)
    return total


def next_then_loop(x):
    g = two(x)
    a = next(g)
    total = a
    for v in g:
        total = total + v
    return np.sum(total)


@pytest.mark.parametrize("f, text", [(next_in_a_loop, "total + next(it)"),
                                     (next_then_loop, "g = two(x)")],
                         ids=["next-in-a-loop", "next-then-loop"])
def test_an_iterator_read_otherwise_is_refused_at_its_line(f, text):
    with pytest.raises(s2sad.DifferentiationError) as info:
        s2sad.grad(f)(X)
    assert info.value.lineno == line_of(f, text)
    assert str(info.value).strip()


# --- None arguments and defaults -----------------------------------------------------------

def apply_optional(x, g=None):
    return np.sum(g(x) if g is not None else x * x)


def loss_with_bias(w, b=None):
    y = w * 2.0
    if b is None:
        return np.sum(y ** 2)
    return np.sum((y + b) ** 2)


def masked(x, mask=None):
    if mask is None:
        mask = np.ones_like(x)
    return np.sum(np.sin(x) * mask)


def optional_scale(x, scale=None, shift=0.5):
    y = np.tanh(x) + shift
    if scale is not None:
        y = y * scale
    return np.sum(y ** 2)


def test_none_default_matches_central_differences():
    assert_matches(apply_optional, (X,))
    assert_matches(loss_with_bias, (X,))
    assert_matches(masked, (X,))
    assert_matches(optional_scale, (X,))


def test_none_is_part_of_the_variant_key():
    g = s2sad.grad(apply_optional)
    assert np.allclose(g(X), 2 * X)
    assert np.allclose(g(X, np.sin), np.cos(X))  # (not the None variant)
    assert np.allclose(g(X), 2 * X)  # (not the np.sin variant)
    assert np.allclose(g(X, None), 2 * X)
    assert np.allclose(g(X, g=np.cos), -np.sin(X))
    b = np.array([0.1, 0.2, -0.3])
    gl = s2sad.grad(loss_with_bias)
    assert np.allclose(gl(X), 8 * X)
    assert np.allclose(gl(X, b), 4 * (2 * X + b))
    assert np.allclose(gl(X, None), 8 * X)
    assert np.allclose(gl(X, 1.0), 4 * (2 * X + 1.0))
    assert np.allclose(gl(X), 8 * X)
    gm = s2sad.grad(masked)
    mask = np.array([1.0, 0.0, 2.0])
    assert np.allclose(gm(X, mask), np.cos(X) * mask)
    assert np.allclose(gm(X), np.cos(X))
    assert np.allclose(gm(X, None), np.cos(X))


def test_none_with_respect_to_the_other_argument_and_second_order():
    b = np.array([0.1, 0.2, -0.3])
    assert_matches(loss_with_bias, (X, b), wrt=1)
    s2sad.check_grads(loss_with_bias, (X, None), order=2, wrt=0)
    s2sad.check_grads(loss_with_bias, (X, b), order=2)
    s2sad.check_grads(optional_scale, (X, None), order=2, wrt=0)
    s2sad.check_grads(optional_scale, (X, 1.5), order=2)


def test_none_forward_mode():
    value, push = s2sad.jvp(loss_with_bias)(X)
    assert np.isclose(value, loss_with_bias(X))
    assert np.isclose(push(np.ones(3)), np.sum(8 * X))
    assert np.allclose(s2sad.hessian(loss_with_bias)(X), 8 * np.eye(3))


def test_differentiating_with_respect_to_a_none_argument_is_refused():
    with pytest.raises(TypeError, match="not a number"):
        s2sad.grad(loss_with_bias, wrt="b")(X)


# --- NumPy functions of a raw list: their derivatives read it as an array ----------------------

def power_of_list(x):
    xs = [x[0], x[1]]
    return np.sum(np.power(xs, 3)) * x[2]


def dot_of_lists(x):
    xs = [x[0], x[1]]
    return np.dot(xs, xs) + np.dot(xs, [x[2], 1.0])


def float_power_of_list(x):
    xs = [x[0], x[1]]
    return np.sum(np.float_power(xs, 3))


def norm_of_list(x):
    xs = [x[0], x[1]]
    return np.linalg.norm(xs) * x[2]


def mod_of_list(x):
    xs = [x[0], x[1]]
    return np.sum(np.mod(xs, 0.4) * np.asarray(xs))


def fmod_of_list(x):
    xs = [x[0], x[1]]
    return np.sum(np.fmod(xs, 0.4) * xs[0])


def power_of_list_argument(xs):
    return np.sum(np.power(xs, 3)) + np.dot(xs, xs)


LIST_MATH = [power_of_list, dot_of_lists, float_power_of_list, norm_of_list, mod_of_list,
             fmod_of_list]
XL = np.array([0.3, 0.55, 0.7])


@pytest.mark.parametrize("f", LIST_MATH, ids=lambda f: f.__name__)
def test_list_arithmetic_matches_central_differences(f):
    assert_matches(f, (XL,))


@pytest.mark.parametrize("f", LIST_MATH, ids=lambda f: f.__name__)
def test_list_arithmetic_forward_reverse_and_second_order(f):
    s2sad.check_grads(f, (XL,), order=2)


def test_list_argument_of_power_and_dot():
    xs = [0.3, 0.55, 0.7]
    got = s2sad.grad(power_of_list_argument)(xs)
    assert isinstance(got, list)
    assert np.allclose(got, 3 * np.array(xs) ** 2 + 2 * np.array(xs))
    s2sad.check_grads(power_of_list_argument, (xs,), order=2)


# --- soundness: a value a branch may set, overwritten after the branch ---------------------
# (found through next(gen): the reverse sweep read the later value where the branch's was
# needed, a silently wrong gradient on main; the tape now saves it, None where the branch
# did not run)

def set_in_branch_then_after(x, c):
    z = x * 0.0
    if c > 1:
        a = x[1]
        z = a * np.cos(x)
    a = x[0]
    z = z + 2.0 * a
    return np.sum(z * np.array([1.0, 2.0, 3.0]))


def set_in_nested_branch_then_after(x, c):
    z = x * 0.0
    if c > 0:
        if c > 1:
            a = x[1]
            z = a * np.cos(x)
        a = x[0]
        z = z + 2.0 * a
    return np.sum(z * np.array([1.0, 2.0, 3.0]))


def set_in_both_nested_branches_then_after(x, c):
    z = x * 0.0
    if c > 0:
        if c > 1:
            a = x[1]
        else:
            a = x[2]
        z = a * np.cos(x)
        a = x[0]
        z = z + 2.0 * a
    return np.sum(z * np.array([1.0, 2.0, 3.0]))


def set_in_loop_then_after(x, c):
    z = x * 0.0
    for i in range(c):
        a = x[i]
        z = z + a * np.cos(x)
    a = x[0]
    z = z + 2.0 * a
    return np.sum(z * np.array([1.0, 2.0, 3.0]))


def generator_stopped_by_break(x):
    g = []
    for v in two(x):
        g.append(v)
        if len(g) == 2:
            break
    return np.sum(g[0] * g[1])


OVERWRITTEN = [set_in_branch_then_after, set_in_nested_branch_then_after,
               set_in_both_nested_branches_then_after, set_in_loop_then_after]


@pytest.mark.parametrize("c", [0, 1, 2])
@pytest.mark.parametrize("f", OVERWRITTEN, ids=lambda f: f.__name__)
def test_a_value_overwritten_after_its_branch(f, c):
    assert_matches(f, (X, c))
    s2sad.check_grads(f, (X, c), order=2, wrt=0)


def test_a_generator_stopped_by_break_second_order():
    assert_matches(generator_stopped_by_break, (X,))
    s2sad.check_grads(generator_stopped_by_break, (X,), order=2)


# --- layers held in a dict ------------------------------------------------------------------

import copy  # noqa: E402

from test_wrt_model import _get, _leaves, check_object_gradient  # noqa: E402

RNG = np.random.default_rng(26)
XB = RNG.normal(size=(4, 3))


class Dense:
    def __init__(self, n=3, m=3):
        self.W = RNG.normal(size=(n, m))
        self.b = RNG.normal(size=m)

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


class Sine:
    def __init__(self):
        self.w = RNG.normal(size=3)

    def __call__(self, x):
        return np.sin(x * self.w)


class ByKey:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        h = self.layers["enc"](x)
        return self.layers["dec"](h)


class Items:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for name, layer in self.layers.items():
            x = layer(x) + (0.5 if name == "enc" else 0.0)
        return x


class Values:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers.values():
            x = layer(x)
        return x


class Keys:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for name in self.layers:
            x = self.layers[name](x)
        return x


def model_loss(m, x):
    return np.sum(np.sin(m(x)) ** 2)


def dict_argument_loss(layers, x):
    h = layers["enc"](x)
    return np.sum(layers["dec"](h) ** 2)


def dict_argument_walked(layers, x):
    for layer in layers.values():
        x = layer(x)
    return np.sum(x ** 2)


DICT_MODELS = {
    "by-key": lambda: ByKey({"enc": Dense(), "dec": Dense()}),
    "by-key-unlike": lambda: ByKey({"enc": Sine(), "dec": Dense()}),
    "items": lambda: Items({"enc": Dense(), "dec": Sine()}),
    "values": lambda: Values({"a": Dense(), "b": Dense(), "c": Sine()}),
    "keys": lambda: Keys({"enc": Dense(), "dec": Sine()}),
    "int-keys": lambda: Values({0: Sine(), 1: Dense()}),
}


@pytest.mark.parametrize("name", DICT_MODELS)
def test_dict_of_layers_with_respect_to_the_model(name):
    m = DICT_MODELS[name]()
    before = copy.deepcopy(m)
    g = s2sad.grad(model_loss, wrt="m")(m, XB)
    assert type(g.layers) is dict and list(g.layers) == list(m.layers)
    check_object_gradient(model_loss, before, (XB,), g)


@pytest.mark.parametrize("name", DICT_MODELS)
def test_dict_of_layers_with_respect_to_the_input(name):
    m = DICT_MODELS[name]()
    got = s2sad.grad(model_loss, wrt="x")(m, XB)
    want = central_differences(lambda x: model_loss(m, x), [XB], 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", DICT_MODELS)
def test_dict_of_layers_forward_matches_reverse(name):
    m = DICT_MODELS[name]()
    t = copy.deepcopy(m)
    for path, leaf in _leaves(m):
        holder = _get(t, path[:-1])
        value = RNG.normal(size=np.shape(leaf))
        if isinstance(holder, dict):
            holder[path[-1]] = value
        else:
            setattr(holder, path[-1], value)
    value, push = s2sad.jvp(model_loss, wrt="m")(m, XB)
    g = s2sad.grad(model_loss, wrt="m")(m, XB)
    expected = sum(np.sum(_get(g, p) * _get(t, p)) for p, _ in _leaves(m))
    assert value == pytest.approx(model_loss(m, XB))
    assert push(t) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_dict_of_layers_second_order_in_the_input():
    m = DICT_MODELS["items"]()
    v = RNG.normal(size=XB.shape)
    h = s2sad.hvp(model_loss, wrt="x")(m, XB, v)
    eps = 1e-5
    g = s2sad.grad(model_loss, wrt="x")
    np.testing.assert_allclose(h, (g(m, XB + eps * v) - g(m, XB - eps * v)) / (2 * eps),
                               rtol=1e-5, atol=1e-7)


def test_a_dict_of_layers_of_other_keys_order_or_classes_builds_again():
    """The entry tests the dict's keys, in order, and each item's class: another dict gets
    its own variant, never the first one's written-out order."""
    g = s2sad.grad(model_loss, wrt="x")
    first = Items({"enc": Dense(), "dec": Sine()})
    reordered = Items({"dec": first.layers["dec"], "enc": first.layers["enc"]})
    other_class = Items({"enc": Sine(), "dec": Sine()})
    other_keys = Items({"enc": first.layers["enc"], "out": first.layers["dec"]})
    longer = Items({"enc": Dense(), "dec": Sine(), "out": Dense()})
    for m in [first, reordered, other_class, other_keys, longer, first]:
        want = central_differences(lambda x, m=m: model_loss(m, x), [XB], 0)
        np.testing.assert_allclose(g(m, XB), want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [dict_argument_loss, dict_argument_walked],
                         ids=lambda f: f.__name__)
def test_a_dict_of_layers_as_an_argument(f):
    layers = {"enc": Dense(), "dec": Sine()}
    got = s2sad.grad(f, wrt="x")(layers, XB)
    want = central_differences(lambda x: f(layers, x), [XB], 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    other = {"enc": Sine(), "dec": Dense()}  # (a second call, other classes)
    np.testing.assert_allclose(s2sad.grad(f, wrt="x")(other, XB),
                               central_differences(lambda x: f(other, x), [XB], 0),
                               rtol=1e-6, atol=1e-8)


def missing_key_loss(m, x):
    return np.sum(m.layers["nope"](x))


def computed_key_loss(m, x, key):
    return np.sum(m.layers[key](x))


@pytest.mark.parametrize("f, args, text", [
    (missing_key_loss, (), 'm.layers["nope"](x)'),
    (computed_key_loss, ("enc",), "m.layers[key](x)")], ids=["missing-key", "computed-key"])
def test_a_key_not_written_or_not_held_is_refused_at_its_line(f, args, text):
    m = ByKey({"enc": Dense(), "dec": Dense()})
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(f, wrt="x")(m, XB, *args)
    assert info.value.lineno == line_of(f, text)
    assert "a key written" in str(info.value) and "that the dict holds" in str(info.value)


# --- functions NumPy calls per item: refused with the comprehension to write ---------------

def row_norm(r):
    return np.sqrt(np.sum(r ** 2))


def along_axis(X):
    return np.sum(np.apply_along_axis(row_norm, 1, X))


def along_axis_written(X):
    return np.sum(np.stack([row_norm(r) for r in X]))


def square_sine(v):
    return v * np.sin(v)


def vectorized(x):
    return np.sum(np.vectorize(square_sine)(x))


def vectorized_written(x):
    return np.sum(np.array([square_sine(v) for v in x]))


XM = np.arange(6.0).reshape(2, 3) / 4.0 + 0.3


@pytest.mark.parametrize("f", [along_axis, vectorized], ids=["apply_along_axis", "vectorize"])
def test_functions_numpy_calls_per_item_are_differentiated(f):
    """Refused before session 30; now written as the loop NumPy runs (vectorized.py)."""
    assert_matches(f, (XM if f is along_axis else X,))


@pytest.mark.parametrize("f, arg", [(along_axis_written, XM), (vectorized_written, X)],
                         ids=["stack-of-rows", "array-of-items"])
def test_the_comprehension_the_advice_gives_is_differentiated(f, arg):
    assert_matches(f, (arg,))
    s2sad.check_grads(f, (arg,), order=2)
    assert np.isclose(f(arg), along_axis(arg) if f is along_axis_written else vectorized(arg))


def _moved(m, v, s):
    """``m`` with each parameter moved by ``s`` times ``v``'s (a layer held twice: once)."""
    moved = copy.deepcopy(m)
    seen = set()
    for path, leaf in _leaves(m):
        holder = _get(moved, path[:-1])
        if (id(holder), path[-1]) in seen:
            continue
        seen.add((id(holder), path[-1]))
        value = leaf + s * _get(v, path)
        if isinstance(holder, dict):
            holder[path[-1]] = value
        else:
            setattr(holder, path[-1], value)
    return moved


@pytest.mark.parametrize("shared", [False, True], ids=["distinct", "one-layer-twice"])
def test_dict_of_layers_hvp_with_respect_to_the_model(shared):
    d = Dense()
    m = Values({"a": d, "b": d if shared else Dense(), "c": Sine()})
    v = _moved(m, m, 0.0)  # (a direction shaped like m, sharing as m shares)
    for path, leaf in _leaves(v):
        holder = _get(v, path[:-1])
        if isinstance(holder, dict):
            holder[path[-1]] = RNG.normal(size=np.shape(leaf))
        else:
            setattr(holder, path[-1], RNG.normal(size=np.shape(leaf)))
    h = s2sad.hvp(model_loss, wrt="m")(m, XB, v)
    eps = 1e-5
    g = s2sad.grad(model_loss, wrt="m")
    plus, minus = g(_moved(m, v, eps), XB), g(_moved(m, v, -eps), XB)
    for path, _ in _leaves(m):
        np.testing.assert_allclose(_get(h, path), (_get(plus, path) - _get(minus, path)) /
                                   (2 * eps), rtol=1e-5, atol=1e-7, err_msg=str(path))


def next_beside_a_name_of_the_rewrite(x):
    it_item = x[2]
    it = iter([x[0], x[1]])
    a = next(it)
    return a * it_item


def test_an_iterator_whose_written_names_are_taken_is_left_as_it_was():
    """``it_item`` is the user's: the rewrite would overwrite it, so ``next(it)`` stays the
    call it was (refused where it carries a derivative), never a wrong value."""
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(next_beside_a_name_of_the_rewrite)(X)
    assert info.value.lineno == line_of(next_beside_a_name_of_the_rewrite, "a = next(it)")
