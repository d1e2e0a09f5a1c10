"""Models as people write them, differentiated with respect to the model and its input.

Layers walked with ``zip(reversed(self.layers), self.scales)`` and
``enumerate(reversed(self.layers))``, a layer held twice (its tangent counted once), and
an int counter read back (``self.n_calls += 1``, then ``* self.n_calls`` or
``if self.n_calls > 2:``) with ``wrt="m"``. Each gradient is checked against central
differences, forward mode against reverse, second order through ``hvp``, and the side
effects against one plain call's.
"""

import copy
import dataclasses

import numpy as np
import pytest

import s2sad
from s2sad.errors import DifferentiationError
from test_higher_order import central_differences
from test_wrt_model import _get, _leaves, _set, check_object_gradient

RNG = np.random.default_rng(350)
X0 = RNG.normal(size=(4, 3))


# --- the user's classes --------------------------------------------------------------------

class Dense:
    def __init__(self, scale=0.5):
        self.W = RNG.normal(size=(3, 3)) * scale
        self.b = RNG.normal(size=3) * 0.1

    def __call__(self, X):
        return np.tanh(X @ self.W + self.b)


class Sine:  # another class: a list of both is walked item by item
    def __init__(self):
        self.w = RNG.normal(size=3)

    def __call__(self, X):
        return np.sin(X * self.w)


class ZipReversed:
    def __init__(self, layers):
        self.layers = layers
        self.scales = [0.5, 1.5, 0.8][:len(layers)]

    def __call__(self, X):
        for layer, s in zip(reversed(self.layers), self.scales):
            X = layer(X) * s
        return X


class EnumerateReversed(ZipReversed):
    def __call__(self, X):
        for i, layer in enumerate(reversed(self.layers)):
            X = layer(X) * self.scales[i]
        return X


class EnumerateZipReversed(ZipReversed):
    def __call__(self, X):
        for i, (layer, s) in enumerate(zip(reversed(self.layers), self.scales)):
            X = layer(X) * s + 0.1 * i
        return X


class Seq:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, X):
        for layer in self.layers:
            X = layer(X)
        return X


class Counted:  # an int counter read back
    def __init__(self):
        self.W = RNG.normal(size=(3, 3)) * 0.5
        self.n_calls = 0

    def __call__(self, X):
        self.n_calls += 1
        return np.tanh(X @ self.W) * self.n_calls


class CountedBranch:  # a counter steering a branch
    def __init__(self):
        self.W = RNG.normal(size=(3, 3)) * 0.5
        self.n_calls = 0

    def __call__(self, X):
        self.n_calls = self.n_calls + 1
        if self.n_calls > 2:
            X = X * 2.0
        return np.tanh(X @ self.W)


class CountedNet(Seq):  # layers that count, reached through a list
    def __init__(self, layers):
        super().__init__(layers)
        self.seen = 0

    def __call__(self, X):
        self.seen += 1
        for layer in self.layers:
            X = layer(X)
        return X * self.seen


class Tied:  # a @property giving a parameter, and one computed from it
    def __init__(self):
        self._W = RNG.normal(size=(3, 3)) * 0.5
        self.c = 0.7

    @property
    def W(self):
        return self._W

    @property
    def gain(self):
        return self.c * 2.0 + np.sum(self._W[0])

    def __call__(self, X):
        return np.tanh(X @ self.W) * self.gain


class Settable(Tied):  # a property with a setter: its reads stay refused
    @property
    def c2(self):
        return self.c

    @c2.setter
    def c2(self, value):
        self.c = value

    def __call__(self, X):
        return np.tanh(X @ self.W) * self.c2


@dataclasses.dataclass
class DenseData:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, X):
        return np.tanh(X @ self.W + self.b)


class Scaled(Dense):  # super().__call__ of the user's class
    def __init__(self):
        super().__init__()
        self.s = 1.3

    def __call__(self, X):
        return super().__call__(X) * self.s


def loss(m, X):
    return np.sum(np.sin(m(X)) ** 2)


def stateless_loss(m, X):  # (jvp refuses a function once built for a model that counts)
    return np.sum(np.sin(m(X)) ** 2)


MODELS = {
    "zip_reversed": lambda: ZipReversed([Dense(), Dense()]),
    "zip_reversed_unlike": lambda: ZipReversed([Dense(), Sine(), Dense()]),
    "enumerate_reversed": lambda: EnumerateReversed([Dense(), Dense()]),
    "enumerate_reversed_unlike": lambda: EnumerateReversed([Sine(), Dense()]),
    "enumerate_zip_reversed": lambda: EnumerateZipReversed([Dense(), Sine()]),
    "held_twice": lambda: (lambda d: Seq([d, Dense(), d]))(Dense()),
    "property": Tied,
    "properties_in_layers": lambda: Seq([Tied(), Dense(), Tied()]),
    "dataclass_layers": lambda: Seq([DenseData(RNG.normal(size=(3, 3)), RNG.normal(size=3)),
                                     DenseData(RNG.normal(size=(3, 3)), RNG.normal(size=3))]),
    "super_call": lambda: ZipReversed([Scaled(), Dense()]),
    "counted": Counted,
    "counted_branch": CountedBranch,
    "counted_layers": lambda: CountedNet([Counted(), Counted()]),
    "counted_layers_branch": lambda: CountedNet([CountedBranch(), Counted()]),
}
COUNTING = {"counted", "counted_branch", "counted_layers", "counted_layers_branch"}


def _counts(m):
    """The counters a call leaves in ``m`` and its layers."""
    found = {k: v for k, v in vars(m).items() if isinstance(v, int)}
    for k, layer in enumerate(getattr(m, "layers", ())):
        found.update({f"{k}.{a}": v for a, v in vars(layer).items() if isinstance(v, int)})
    return found


def _after_one_call(m, X):
    plain = copy.deepcopy(m)
    plain(X)
    return _counts(plain)


def _direction(m):
    """A model shaped like ``m`` holding random directions (shared where ``m`` shares)."""
    v = copy.deepcopy(m)
    for path, leaf in list(_leaves(m)):
        v = _set(v, path, RNG.normal(size=np.shape(leaf)))
    return v


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("calls", [1, 3])
def test_gradient_with_respect_to_the_model(name, calls):
    m = MODELS[name]()
    for _ in range(calls - 1):  # (a counter already past the branch's threshold)
        m(X0)
    before = copy.deepcopy(m)
    g = s2sad.grad(loss, wrt="m")(m, X0)
    check_object_gradient(loss, before, (X0,), g)
    assert _counts(m) == _after_one_call(before, X0)  # (the effects: once, as one call)


@pytest.mark.parametrize("name", MODELS)
def test_gradient_with_respect_to_the_input(name):
    m = MODELS[name]()
    before = copy.deepcopy(m)
    g = s2sad.grad(loss, wrt="X")(m, X0)
    expected = central_differences(lambda X: loss(copy.deepcopy(before), X), [X0], 0)
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8)
    assert _counts(m) == _after_one_call(before, X0)


@pytest.mark.parametrize("name", sorted(set(MODELS) - COUNTING))
def test_forward_mode_matches_reverse(name):
    m = MODELS[name]()
    t = _direction(m)
    value, push = s2sad.jvp(stateless_loss, wrt="m")(m, X0)
    g = s2sad.grad(stateless_loss, wrt="m")(m, X0)
    expected = sum(np.sum(_get(g, p) * _get(t, p)) for p, _ in _unique_leaves(m))
    assert value == pytest.approx(stateless_loss(m, X0))
    assert push(t) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def _unique_leaves(m):
    """The parameters of ``m``, one path for each (a layer held twice: its first)."""
    seen, out = set(), []
    for path, leaf in _leaves(m):
        key = (id(_get(m, path[:-1])), path[-1])  # (its holder: equal floats may be one)
        if key not in seen:
            seen.add(key)
            out.append((path, leaf))
    return out


@pytest.mark.parametrize("name", MODELS)
def test_hvp_with_respect_to_the_model(name):
    m = MODELS[name]()
    v = _direction(m)
    before = copy.deepcopy(m)
    h = s2sad.hvp(loss, wrt="m")(m, X0, v)
    assert _counts(m) == _after_one_call(before, X0)
    eps = 1e-5

    def gradient_at(s):
        moved = copy.deepcopy(before)
        for path, leaf in _unique_leaves(before):
            moved = _set(moved, path, leaf + s * _get(v, path))
        return s2sad.grad(loss, wrt="m")(moved, X0)
    plus, minus = gradient_at(eps), gradient_at(-eps)
    for path, _ in _leaves(before):
        np.testing.assert_allclose(_get(h, path), (_get(plus, path) - _get(minus, path)) /
                                   (2 * eps), rtol=1e-5, atol=1e-7, err_msg=str(path))


@pytest.mark.parametrize("name", MODELS)
def test_hvp_with_respect_to_the_input(name):
    m = MODELS[name]()
    v = RNG.normal(size=X0.shape)
    before = copy.deepcopy(m)
    h = s2sad.hvp(loss, wrt="X")(m, X0, v)
    eps = 1e-5

    def gradient_at(X):
        return s2sad.grad(loss, wrt="X")(copy.deepcopy(before), X)
    np.testing.assert_allclose(h, (gradient_at(X0 + eps * v) - gradient_at(X0 - eps * v)) /
                               (2 * eps), rtol=1e-5, atol=1e-7)


def test_a_shared_layers_tangent_counts_once():
    d = Dense()
    m = Seq([d, d])
    t = copy.deepcopy(m)
    assert t.layers[0] is t.layers[1]
    _, push = s2sad.jvp(stateless_loss, wrt="m")(m, X0)
    g = s2sad.grad(stateless_loss, wrt="m")(m, X0)
    assert g.layers[0] is g.layers[1]
    expected = np.sum(g.layers[0].W * t.layers[0].W) + np.sum(g.layers[0].b * t.layers[0].b)
    assert push(t) == pytest.approx(expected, rel=1e-9)


class StoresAFloat:  # a float stored and read back is still refused
    def __init__(self):
        self.W = RNG.normal(size=(3, 3))
        self.t = 0.0

    def __call__(self, X):
        self.t = self.t + 1.0
        return np.tanh(X @ self.W) * self.t


class CountsAFloat:  # an int counter given a float with a derivative: refused
    def __init__(self):
        self.W = RNG.normal(size=(3, 3))
        self.n = 0

    def __call__(self, X):
        self.n = self.n + np.sum(X @ self.W)
        return np.tanh(X @ self.W) * self.n


@pytest.mark.parametrize("cls", [StoresAFloat, CountsAFloat])
def test_a_value_with_a_derivative_read_back_is_still_refused(cls):
    with pytest.raises(DifferentiationError, match="which the function reads again") as info:
        s2sad.grad(loss, wrt="m")(cls(), X0)
    line = {StoresAFloat: "self.t = self.t + 1.0",
            CountsAFloat: "self.n = self.n + np.sum(X @ self.W)"}[cls]
    assert line in str(info.value)
    assert "Keep the value in a variable" in str(info.value)


def test_a_counter_that_becomes_a_float_builds_again():
    m = Counted()
    s2sad.grad(loss, wrt="m")(m, X0)  # (built for an int counter)
    m.n_calls = 0.5  # (now a float parameter: stored with a derivative and read back)
    with pytest.raises(DifferentiationError, match="which the function reads again"):
        s2sad.grad(loss, wrt="m")(m, X0)
    net = CountedNet([Counted(), Counted()])
    s2sad.grad(loss, wrt="m")(net, X0)
    net.layers[1].n_calls = 2.5  # (a layer's, reached through the loop over the list)
    with pytest.raises(DifferentiationError, match="which the function reads again"):
        s2sad.grad(loss, wrt="m")(net, X0)
    unlike = CountedNet([CountedBranch(), Counted()])  # (unlike layers: written out)
    s2sad.grad(loss, wrt="m")(unlike, X0)
    unlike.layers[0].n_calls = 1.5
    with pytest.raises(DifferentiationError, match="which the function reads again"):
        s2sad.grad(loss, wrt="m")(unlike, X0)


def test_a_property_with_a_setter_is_still_refused():
    with pytest.raises(DifferentiationError, match="which its class computes"):
        s2sad.grad(loss, wrt="m")(Settable(), X0)


class Blocks:  # layers in a dict: each item's call inlined (tests/test_python_forms_s26.py)
    def __init__(self):
        self.blocks = {"enc": Dense(), "dec": Dense()}

    def walked(self, X):
        for name, layer in self.blocks.items():
            X = layer(X)
        return X

    def indexed(self, X):
        return self.blocks["dec"](self.blocks["enc"](X))


def walked_loss(m, X):
    return np.sum(m.walked(X) ** 2)


def indexed_loss(m, X):
    return np.sum(m.indexed(X) ** 2)


@pytest.mark.parametrize("f", [walked_loss, indexed_loss])
def test_layers_in_a_dict(f):
    m = Blocks()
    before = copy.deepcopy(m)
    check_object_gradient(f, before, (X0,), s2sad.grad(f, wrt="m")(m, X0))
    expected = central_differences(lambda X: f(copy.deepcopy(before), X), [X0], 0)
    np.testing.assert_allclose(s2sad.grad(f, wrt="X")(m, X0), expected, rtol=1e-6, atol=1e-8)
