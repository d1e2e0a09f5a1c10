"""Gradients with respect to a model's parameters where the model holds them.

``s2sad.grad(loss, wrt="model")(model, X, y)`` differentiates with respect to the floats
an object of the user's class holds (its parameters), through attributes, lists, tuples,
dicts and the objects it holds; the gradient is an object of the same class holding
gradients in place of the parameters. Checked against central differences, leaf by leaf.
"""

import copy
import dataclasses

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences


# --- models -------------------------------------------------------------------------------

class Dense:
    def __init__(self, W, b, name="dense"):
        self.W = W
        self.b = b
        self.name = name
        self.n_in = W.shape[0]

    def __call__(self, X):
        return np.tanh(self.linear(X))

    def linear(self, X):  # (a method that another method calls)
        return X @ self.W + self.b


class MLP:
    def __init__(self, sizes, seed=0):
        rng = np.random.default_rng(seed)
        self.layers = [Dense(rng.normal(size=(a, b)) * 0.5, rng.normal(size=b) * 0.1)
                       for a, b in zip(sizes[:-1], sizes[1:])]
        self.depth = len(self.layers)

    def __call__(self, X):
        for layer in self.layers:
            X = layer(X)
        return X


class DictModel:
    def __init__(self, rng):
        self.params = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
        self.scale = 0.5  # a Python float: a parameter
        self.steps = 2  # an int: not a parameter

    def predict(self, X):
        return self.scale * (X @ self.params["W"] + self.params["b"]) * self.steps


class Twice:  # a parameter used twice, and a tuple of parameters
    def __init__(self, rng):
        self.w = rng.normal(size=3)
        self.pair = (rng.normal(size=3), 1.5)

    def f(self, x):
        return np.sum(self.w * x * self.w) + np.sum(self.pair[0] * self.w) * self.pair[1]


class Holder:  # an object holding an object
    def __init__(self, rng):
        self.inner = Dense(rng.normal(size=(3, 2)), rng.normal(size=2))
        self.c = rng.normal(size=2)

    def f(self, X):
        return self.inner(X) * self.c


@dataclasses.dataclass
class Quad:
    A: np.ndarray
    c: float
    label: str = "q"

    def energy(self, x):
        return x @ self.A @ x + self.c * np.sum(x)


def mse(model, X, y):
    return np.mean((model(X) - y) ** 2)


def dict_loss(model, X):
    return np.sum(np.sin(model.predict(X)))


def twice_loss(model, x):
    return model.f(x)


def holder_loss(model, X):
    return np.sum(model.f(X) ** 2)


def quad_loss(q, x):
    return q.energy(x)


# --- a finite-difference check of an object's gradient, leaf by leaf -----------------------

def _leaves(value, path=()):
    """(path, leaf) of each parameter ``value`` holds: a path of attribute names, keys and
    indices."""
    if isinstance(value, (float, np.floating)) and not isinstance(value, bool) or \
            isinstance(value, np.ndarray) and value.dtype.kind == "f":
        yield path, value
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _leaves(item, path + (i,))
    elif isinstance(value, dict):
        for k, item in value.items():
            yield from _leaves(item, path + (k,))
    elif hasattr(value, "__dict__") and not callable(getattr(value, "__code__", None)):
        for k, item in vars(value).items():
            yield from _leaves(item, path + (k,))


def _get(value, path):
    for part in path:
        value = getattr(value, part) if isinstance(part, str) and hasattr(value, "__dict__") \
            and not isinstance(value, dict) else value[part]
    return value


def _set(value, path, leaf):
    """A deep copy of ``value`` with the leaf at ``path`` replaced (tuples rebuilt)."""
    value = copy.deepcopy(value)
    holder_path = path[:-1]
    chain = [value]
    for part in holder_path:
        chain.append(_get(chain[-1], (part,)))
    new = leaf
    for holder, part in zip(reversed(chain), reversed(path)):
        if isinstance(holder, tuple):
            items = list(holder)
            items[part] = new
            new = tuple(items)
            continue
        if isinstance(holder, (list, dict)):
            holder[part] = new
        else:
            object.__setattr__(holder, part, new)
        return value
    return new


def check_object_gradient(loss, model, args, got, rtol=1e-6, atol=1e-8):
    """``got`` (the gradient with respect to ``model``) against central differences of
    ``loss`` along each of ``model``'s parameters."""
    assert type(got) is type(model)
    checked = 0
    for path, leaf in _leaves(model):
        def along(x, path=path, leaf=leaf):
            return loss(_set(model, path, float(x) if isinstance(leaf, float) else x), *args)
        expected = central_differences(along, [np.asarray(leaf, dtype=float)], 0)
        actual = _get(got, path)
        assert np.shape(actual) == np.shape(leaf), path
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=str(path))
        checked += 1
    assert checked > 0


def _snapshot(model):
    return [(path, np.array(leaf, copy=True)) for path, leaf in _leaves(model)]


def _unchanged(model, before):
    for (path, leaf), (path0, old) in zip(_leaves(model), before, strict=True):
        assert path == path0
        np.testing.assert_array_equal(leaf, old)


# --- tests ---------------------------------------------------------------------------------

RNG = np.random.default_rng(7)
X = RNG.normal(size=(5, 3))
Y = RNG.normal(size=(5, 2))


@pytest.mark.parametrize("wrt", ["model", 0])
def test_dense_layer(wrt):
    layer = Dense(RNG.normal(size=(3, 2)), RNG.normal(size=2))
    before = _snapshot(layer)
    g = s2sad.grad(mse, wrt=wrt)(layer, X, Y)
    check_object_gradient(mse, layer, (X, Y), g)
    assert g.name == "dense" and g.n_in == 3  # (not parameters: kept as they are)
    assert g.W is not layer.W
    _unchanged(layer, before)


def test_mlp_loop_over_a_list_of_layers():
    model = MLP([3, 4, 4, 2])
    before = _snapshot(model)
    g = s2sad.grad(mse, wrt="model")(model, X, Y)
    check_object_gradient(mse, model, (X, Y), g)
    assert [type(layer) for layer in g.layers] == [Dense] * 3 and g.depth == 3
    _unchanged(model, before)


def test_dict_attribute_and_float_attribute():
    model = DictModel(RNG)
    g = s2sad.grad(dict_loss, wrt="model")(model, X)
    check_object_gradient(dict_loss, model, (X,), g)
    assert set(g.params) == {"W", "b"} and type(g.scale) is float and g.steps == 2


def test_parameter_used_twice_and_a_tuple():
    model = Twice(RNG)
    x = RNG.normal(size=3)
    g = s2sad.grad(twice_loss, wrt="model")(model, x)
    check_object_gradient(twice_loss, model, (x,), g)
    assert type(g.pair) is tuple and type(g.pair[1]) is float


def test_an_object_holding_an_object():
    model = Holder(RNG)
    g = s2sad.grad(holder_loss)(model, X)
    check_object_gradient(holder_loss, model, (X,), g)
    assert type(g.inner) is Dense


def test_dataclass():
    q = Quad(RNG.normal(size=(3, 3)), 0.7)
    x = RNG.normal(size=3)
    g = s2sad.grad(quad_loss)(q, x)
    check_object_gradient(quad_loss, q, (x,), g)
    assert g.label == "q"


def test_value_and_grad_and_several_wrt():
    model = MLP([3, 4, 2], seed=1)
    value, g = s2sad.value_and_grad(mse, wrt="model")(model, X, Y)
    assert np.isclose(value, mse(model, X, Y))
    check_object_gradient(mse, model, (X, Y), g)
    g_model, g_x = s2sad.grad(mse, wrt=("model", "X"))(model, X, Y)
    check_object_gradient(mse, model, (X, Y), g_model)
    expected = central_differences(lambda x: mse(model, x, Y), [X], 0)
    np.testing.assert_allclose(g_x, expected, rtol=1e-6, atol=1e-8)


def test_the_gradient_is_computed_afresh_for_new_values():
    model = MLP([3, 4, 2], seed=2)
    grad = s2sad.grad(mse, wrt="model")
    g1 = grad(model, X, Y)
    for layer, gl in zip(model.layers, g1.layers):  # a step of gradient descent
        layer.W = layer.W - 0.1 * gl.W
        layer.b = layer.b - 0.1 * gl.b
    g2 = grad(model, X, Y)
    check_object_gradient(mse, model, (X, Y), g2)


@s2sad.frozen("mask")
class Masked:
    def __init__(self, rng):
        self.w = rng.normal(size=3)
        self.mask = np.array([1.0, 0.0, 2.0])  # frozen: not a parameter
        self.shift = np.array([0.5, -0.5, 1.0])
        self.coefs = [1.5, -0.5]  # a list of Python floats: parameters
        self.n = 3  # an int, used in the arithmetic: not a parameter
        self.idx = np.array([2, 0])  # an integer array: not a parameter

    def f(self, x):
        h = np.sin(self.w * x * self.mask) * self.n
        return self.coefs[0] * np.sum(h[self.idx]) + \
            self.coefs[1] * np.sum(h * s2sad.stop_gradient(self.shift))


def masked_loss(model, x):
    return model.f(x)


def test_frozen_int_and_stopped_attributes_are_not_parameters():
    model = Masked(RNG)
    x = RNG.normal(size=3)
    g = s2sad.grad(masked_loss)(model, x)
    assert g.mask is model.mask and g.n == 3 and g.idx is model.idx
    np.testing.assert_array_equal(g.shift, np.zeros(3))  # read under stop_gradient only
    for path, leaf in [(("w",), model.w), (("coefs", 0), 1.5), (("coefs", 1), -0.5)]:
        expected = central_differences(
            lambda v, path=path: masked_loss(_set(model, path, v if path == ("w",)
                                                  else float(v)), x),
            [np.asarray(leaf, dtype=float)], 0)
        np.testing.assert_allclose(_get(g, path), expected, rtol=1e-6, atol=1e-8)


def test_frozen_is_inherited_and_checked():
    @s2sad.frozen("shift")
    class More(Masked):
        pass
    model = More(RNG)
    g = s2sad.grad(masked_loss)(model, RNG.normal(size=3))
    assert g.mask is model.mask and g.shift is model.shift and type(g) is More
    with pytest.raises(TypeError, match="attribute names"):
        s2sad.frozen("not a name")
    with pytest.raises(TypeError, match="decorates a class"):
        s2sad.frozen("w")(masked_loss)


def _as_vector(model):
    return np.concatenate([np.ravel(leaf) for _, leaf in _leaves(model)])


def test_jvp_with_a_tangent_shaped_like_the_model():
    model = MLP([3, 4, 2], seed=3)
    tangent = MLP([3, 4, 2], seed=4)  # (any object of the class: its parameters are read)
    value, push = s2sad.jvp(mse, wrt="model")(model, X, Y)
    assert np.isclose(value, mse(model, X, Y))
    g = s2sad.grad(mse, wrt="model")(model, X, Y)
    np.testing.assert_allclose(push(tangent), _as_vector(g) @ _as_vector(tangent), rtol=1e-10)
    masked = Masked(RNG)  # frozen, int and stopped attributes: no tangent flows from them
    x = RNG.normal(size=3)
    direction = Masked(RNG)
    g = s2sad.grad(masked_loss)(masked, x)
    _, push = s2sad.jvp(masked_loss)(masked, x)
    expected = g.w @ direction.w + np.dot(g.coefs, direction.coefs)
    np.testing.assert_allclose(push(direction), expected, rtol=1e-10)


def test_vjp_gives_an_object():
    model = Holder(RNG)
    value, pull = s2sad.vjp(holder_loss)(model, X)
    g = pull(1.0)
    check_object_gradient(holder_loss, model, (X,), g)


@pytest.mark.parametrize("make, loss, args", [
    (Holder, holder_loss, (X,)),
    (Twice, twice_loss, (RNG.normal(size=3),)),
    (DictModel, dict_loss, (X,)),
    (lambda rng: MLP([3, 3, 2], seed=int(rng.integers(100))), mse, (X, Y)),  # (a loop over
])                                                                           # its layers)
def test_hessian_vector_product_against_differences_of_the_gradient(make, loss, args):
    model, v = make(np.random.default_rng(1)), make(np.random.default_rng(2))
    got = s2sad.hvp(loss, wrt="model")(model, *args, v)
    assert type(got) is type(model)
    grad = s2sad.grad(loss, wrt="model")
    eps = 1e-5

    def moved(t):
        out = copy.deepcopy(model)
        for path, leaf in _leaves(model):
            out = _set(out, path, leaf + t * _get(v, path))
        return out
    expected = (_as_vector(grad(moved(eps), *args)) - _as_vector(grad(moved(-eps), *args))) \
        / (2 * eps)
    np.testing.assert_allclose(_as_vector(got), expected, rtol=1e-6, atol=1e-8)


def test_hessian_and_jacobian_of_an_object_are_refused_with_what_to_use():
    model = Dense(RNG.normal(size=(3, 2)), RNG.normal(size=2))
    for make in (s2sad.hessian, s2sad.jacobian):
        with pytest.raises(TypeError, match=r"a Dense, an object holding parameters: use "
                                            r"s2sad.grad, s2sad.vjp or s2sad.jvp for it, "
                                            r"s2sad.hvp"):
            make(mse, wrt="model")(model, X, Y)


class Slotted:
    __slots__ = ("w",)

    def __init__(self, w):
        self.w = w

    def f(self, x):
        return np.sum(self.w * x)


class Counts:
    def __init__(self):
        self.n = 3
        self.idx = np.arange(2)
        self.name = "counts"

    def f(self, x):
        return np.sum(x[self.idx]) * self.n


def slotted_loss(model, x):
    return model.f(x)


def test_objects_without_parameters_or_with_slots_are_refused():
    with pytest.raises(TypeError, match=r"with respect to 'model': it is a Slotted, whose "
                                        r"attributes are in __slots__.*drop __slots__"):
        s2sad.grad(slotted_loss)(Slotted(np.ones(2)), np.ones(2))
    with pytest.raises(TypeError, match=r"its Counts holds no parameter \(a float or an array "
                                        r"of floats.*write 1.0 for 1"):
        s2sad.grad(slotted_loss)(Counts(), np.ones(2))


def test_the_gradient_object_is_made_without_init():
    class Counted(Dense):
        made = 0

        def __init__(self, W, b):
            Counted.made += 1
            super().__init__(W, b)
    layer = Counted(RNG.normal(size=(3, 2)), RNG.normal(size=2))
    g = s2sad.grad(mse)(layer, X, Y)
    assert Counted.made == 1 and type(g) is Counted
    check_object_gradient(mse, layer, (X, Y), g)


class Block:
    def __init__(self, owner, w):
        self.owner = owner  # a pointer back to the model that holds it
        self.w = w

    def f(self, x):
        return np.sin(self.w * x) * self.owner.scale


class Net:
    def __init__(self, rng):
        self.scale = 1.5
        self.block = Block(self, rng.normal(size=3).astype(np.float32))
        self.coefs = [0.5, -1.0, 2.0]  # walked by a loop

    def f(self, x):
        total = 0.0
        for c in self.coefs:
            total = total + c * np.sum(self.block.f(x))
        return total


def net_loss(net, x):
    return net.f(x)


def test_a_pointer_back_float32_and_a_loop_over_a_list_of_floats():
    net = Net(RNG)
    x = RNG.normal(size=3)
    g = s2sad.grad(net_loss)(net, x)
    assert g.block.owner is g and g.block.w.dtype == np.float32  # (kept float32)
    expected = central_differences(lambda s: net_loss(_set(net, ("scale",), float(s)), x),
                                   [np.asarray(1.5)], 0)
    np.testing.assert_allclose(g.scale, expected, rtol=1e-6)
    for i in range(3):
        expected = central_differences(
            lambda c, i=i: net_loss(_set(net, ("coefs", i), float(c)), x),
            [np.asarray(net.coefs[i])], 0)
        np.testing.assert_allclose(g.coefs[i], expected, rtol=1e-6)
    w = net.block.w.astype(float)
    expected = central_differences(
        lambda v: net_loss(_set(net, ("block", "w"), v), x), [w], 0)
    np.testing.assert_allclose(g.block.w, expected, rtol=1e-4)  # (float32 forward)


def test_a_layer_held_twice_gets_one_gradient_the_sum_of_both_uses():
    shared = Dense(RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=3))
    model = MLP([3, 3])
    model.layers = [shared, shared]
    y = RNG.normal(size=(5, 3))
    g = s2sad.grad(mse, wrt="model")(model, X, y)
    assert g.layers[0] is g.layers[1]  # (the model's sharing kept)
    for name in ("W", "b"):  # (deepcopy keeps the sharing: both uses move)
        leaf = getattr(shared, name)
        expected = central_differences(
            lambda v, name=name: mse(_set(model, ("layers", 0, name), v), X, y), [leaf], 0)
        np.testing.assert_allclose(getattr(g.layers[0], name), expected, rtol=1e-6,
                                   atol=1e-8)


class Tied:
    def __init__(self, rng):
        self.W1 = rng.normal(size=(3, 3))
        self.W2 = self.W1  # one array in two attributes: each gets its own part

    def f(self, X):
        return np.sum(np.tanh(X @ self.W1) @ self.W2)


def tied_loss(model, X):
    return model.f(X)


def test_an_array_in_two_attributes_gets_each_attribute_its_part():
    model = Tied(RNG)
    g = s2sad.grad(tied_loss)(model, X)
    check_object_gradient(tied_loss, model, (X,), g)  # (each attribute moved alone)
    assert not np.allclose(g.W1, g.W2)


class Stack(MLP):
    def with_enumerate(self, X):
        for i, layer in enumerate(self.layers):
            X = layer(X) * (i + 1.0)
        return X

    def reversed_transposes(self, X):
        for layer in reversed(self.layers):
            X = X @ layer.W.T
        return X

    def with_zip(self, X, scales):
        for layer, s in zip(self.layers, scales):
            X = layer(X) * s
        return X

    def squares(self):
        return sum(np.sum(layer.W ** 2) for layer in self.layers)


def enumerate_loss(model, X, y):
    return np.mean((model.with_enumerate(X) - y) ** 2)


def reversed_loss(model, X, y):
    return np.mean(model.reversed_transposes(X) ** 2)


def zip_loss(model, X, y):
    return np.mean((model.with_zip(X, [0.5, 2.0]) - y) ** 2)


def generator_loss(model, X, y):
    return model.squares() + np.mean(model(X) * y)


def indexed_loss(model, X, y):  # (items of the list at constant indices)
    return np.sum(model.layers[-1](model.layers[0](X)) ** 2)


@pytest.mark.parametrize("loss", [enumerate_loss, reversed_loss, zip_loss, generator_loss,
                                  indexed_loss], ids=lambda f: f.__name__)
def test_the_ways_to_walk_a_list_of_layers(loss):
    model = Stack([3, 3, 3], seed=8)
    y = RNG.normal(size=(5, 3))
    g = s2sad.grad(loss, wrt="model")(model, X, y)
    check_object_gradient(loss, model, (X, y), g)


class WithProperty:
    scale = 2.0  # a class attribute: a constant, not a parameter of the object

    def __init__(self):
        self._w = np.array([0.5, -0.2])

    @property
    def w(self):
        return self._w * self.scale

    def f(self, x):
        return np.sum(np.sin(self.w * x))


def property_loss(model, x):
    return model.f(x)


def class_attribute_loss(model, x):
    return np.sum(np.sin(model._w * x)) * model.scale


def test_a_property_of_a_differentiated_object_is_followed_to_what_it_reads():
    """(Its getter is inlined as a method is: the gradient goes on to ``_w``; it was
    refused when only its value was read. A property with a setter still is:
    tests/test_models_more.py.)"""
    x = np.array([0.3, -1.1])
    model = WithProperty()
    g = s2sad.grad(property_loss)(model, x)
    check_object_gradient(property_loss, model, (x,), g)
    assert not hasattr(g, "w") or "w" not in vars(g)
    direction = WithProperty()
    direction._w = np.array([1.0, 2.0])
    _, push = s2sad.jvp(property_loss)(model, x)
    assert push(direction) == pytest.approx(np.sum(g._w * direction._w), rel=1e-9)


def test_a_class_attribute_is_a_constant():
    model, x = WithProperty(), np.array([0.3, -1.1])
    g = s2sad.grad(class_attribute_loss)(model, x)
    check_object_gradient(class_attribute_loss, model, (x,), g)
    assert "scale" not in vars(g)


@pytest.mark.parametrize("make, loss, args", [
    (lambda rng: Dense(rng.normal(size=(3, 2)), rng.normal(size=2)), mse, (X, Y)),
    (lambda rng: MLP([3, 3, 2], seed=int(rng.integers(100))), mse, (X, Y)),
    (Holder, holder_loss, (X,)),
    (DictModel, dict_loss, (X,)),
    (Twice, twice_loss, (RNG.normal(size=3),)),
])
def test_check_grads_to_second_order_in_both_modes(make, loss, args):
    """``s2sad.check_grads`` takes a model: random directions shaped like it; order 2
    checks the vjp and jvp of the gradient object (a cotangent shaped like the model)."""
    s2sad.check_grads(loss, (make(np.random.default_rng(4)), *args), wrt=0, order=2)


def test_a_cotangent_shaped_like_the_model_skips_its_other_attributes():
    model = Dense(RNG.normal(size=(3, 2)), RNG.normal(size=2))
    value, pull = s2sad.vjp(s2sad.grad(mse, wrt="model"), wrt="model")(model, X, Y)
    direction = Dense(RNG.normal(size=(3, 2)), RNG.normal(size=2))
    direction.n_in = 10 ** 6  # (an int: no cotangent, whatever it is)
    got = pull(direction)
    expected = s2sad.hvp(mse, wrt="model")(model, X, Y, direction)  # (the Hessian is
    np.testing.assert_allclose(got.W, expected.W, rtol=1e-8)        # symmetric)
    np.testing.assert_allclose(got.b, expected.b, rtol=1e-8)


@pytest.mark.parametrize("seed", range(6))
def test_random_depths_widths_and_batches(seed):
    """MLPs of random depth (1 to 3 layers), widths (1 to 4) and batch sizes, some
    layers held twice: the gradient against central differences, leaf by leaf."""
    rng = np.random.default_rng(100 + seed)
    sizes = [int(n) for n in rng.integers(1, 5, size=int(rng.integers(2, 5)))]
    model = MLP(sizes, seed=seed)
    if len(model.layers) > 1 and sizes[0] == sizes[1] and rng.random() < 0.5:
        model.layers = [model.layers[0]] + model.layers  # (the first layer used twice)
    X_ = rng.normal(size=(int(rng.integers(1, 6)), sizes[0]))
    y_ = rng.normal(size=(len(X_), sizes[-1]))
    g = s2sad.grad(mse, wrt="model")(model, X_, y_)
    check_object_gradient(mse, model, (X_, y_), g)
