"""Objects of the user's classes: their methods are inlined where a differentiated
function calls them (``self.act(z)``, ``model.predict(w, x)``)."""

import numpy as np


class Model:
    def __init__(self, scale):
        self.scale = scale

    def act(self, z):
        return np.tanh(self.scale * z)

    def predict(self, w, x):
        return self.act(x @ w)

    def loss(self, w, x):
        h = self.predict(w, x)
        return np.sum(h ** 2) + self.penalty(w)

    @staticmethod
    def penalty(w):
        return 0.1 * np.sum(w ** 2)


class Cubic(Model):
    def act(self, z):
        return (self.scale * z) ** 3


class Slotted:
    __slots__ = ("power",)

    def __init__(self, power):
        self.power = power

    def lift(self, z):
        return z ** self.power


def sine_act(self, z):
    """Given to ``Model.act`` by a test (a class edited in a notebook)."""
    return np.sin(self.scale * z)


def loss_of(model, w, x):
    return model.loss(w, x) * 2.0


def lifted(obj, x):
    return np.sum(obj.lift(x))


model = Model(0.5)


def module_model_loss(w, x):
    return model.loss(w, x)


def _takes_model(m, w, x):
    return m.loss(w, x)


def passes_module_model(w, x):
    return _takes_model(model, w, x)


def calls_in_loop(model, w, x):
    total = 0.0
    for i in range(3):
        total = total + np.sum(model.act(x @ w * (i + 1)))
    return total


class Recursive:
    def power(self, x, n):
        if n == 0:
            return 1.0
        return x * self.power(x, n - 1)

    def loss(self, x, n):
        return self.power(x, n) + self.power(x, 1)


class Counting:
    def __init__(self):
        self.calls = 0

    def act(self, z):
        self.calls += 1
        return np.tanh(z)

    def loss(self, w):
        return np.sum(self.act(w))


def _takes_loss(m, w, x):
    return m.loss(w, x)


def module_model_through_a_helper(w, x):
    return _takes_loss(model, w, x)


class Activated:
    act = np.tanh  # (a class attribute that is not a def: read through the object)

    def loss(self, w):
        return np.sum(self.act(w))


activated = Activated()


def module_activated_loss(w):
    return activated.loss(w)


class Penalty:
    @staticmethod
    def penalty(w):
        return np.sum(w ** 2)


class QuarticPenalty:
    @staticmethod
    def penalty(w):
        return np.sum(w ** 4)


def class_penalty(w):
    return Penalty.penalty(w)


class Ruled:
    @staticmethod
    def cube(x):
        return x ** 3

    def loss(self, w):
        return np.sum(self.cube(w))


class Private:
    def __init__(self, scale):
        self.__scale = scale

    def act(self, z):
        return np.tanh(self.__scale * z)

    def loss(self, w):
        return np.sum(self.act(w))


class Derived(Model):
    def act(self, z):
        return super().act(z) * 2.0


class WithLambda(Model):
    def loss(self, w, x):
        f = lambda z: self.act(z)  # noqa: E731
        return np.sum(f(x @ w))


class Layer:
    def forward(self, x):
        return np.tanh(x)


class Net:
    def __init__(self):
        self.layer = Layer()

    def loss(self, w):
        return np.sum(self.layer.forward(w))


class Dense:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        return np.tanh(self.scale * x)

    def forward(self, x):
        return self(x) * 2.0


class Sine(Dense):
    def __call__(self, x):
        return np.sin(self.scale * x)


class Stack:
    """Layers held in attributes: self.first(x) calls one, self.second.forward(x) a
    method of the other."""

    def __init__(self):
        self.first = Dense(0.5)
        self.second = Dense(1.5)

    def loss(self, w):
        return np.sum(self.second.forward(self.first(w)))


def stack_loss(stack, w):
    return stack.loss(w) + np.sum(stack.first(w))


net = Stack()
dense = Dense(0.8)


def module_net_loss(w):
    return np.sum(net.second.forward(w)) + np.sum(dense(w))


class WithProperty:
    def __init__(self):
        self.__dict__["layer"] = Dense(0.5)

    @property
    def layer(self):
        return Sine(0.5)

    def loss(self, w):
        return np.sum(self.layer(w))


class Tanh:
    def __call__(self, x):
        return np.tanh(x)


class Sin:
    def __call__(self, x):
        return np.sin(x)


class Rerouted:
    """Its own __getattribute__ reads self.act from elsewhere: not what its __dict__ holds."""

    def __init__(self):
        self.act = Tanh()
        self.alt = Sin()

    def __getattribute__(self, name):
        if name == "act":
            return object.__getattribute__(self, "alt")
        return object.__getattribute__(self, name)

    def loss(self, x):
        return np.sum(self.act(x))


class Holder:
    def __init__(self):
        self.act = Tanh()

    def loss(self, x):
        return np.sum(self.act(x))


class Chain:
    """Layers pointing back at their holder, and sharing one object: each taken in once."""

    def __init__(self):
        self.shared = Tanh()
        self.first, self.second = Holder(), Holder()
        for layer in (self.first, self.second):
            layer.owner, layer.shared = self, self.shared

    def loss(self, x):
        return self.first.loss(x) + np.sum(self.shared(x))


class Optional:
    """An optional activation, a layer that may be left out: `if self.act is not None`."""

    def __init__(self, act=None, extra=None):
        self.act = act
        self.extra = extra

    def __call__(self, x):
        h = x * 2.0
        if self.act is not None:
            h = self.act(h)
        if self.extra is None:
            return h
        return self.extra(h) + h


def optional_loss(layer, x):
    return np.sum(layer(x) ** 2)


class Sequential:
    """Layers in a list: ``for layer in self.layers: x = layer(x)``, written out layer by
    layer, each one's class's methods inlined."""

    def __init__(self, *layers):
        self.layers = list(layers)

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def backwards(self, x):
        for layer in reversed(self.layers):
            x = layer.forward(x)
        return np.sum(x)

    def weighted(self, x):
        total = 0.0
        for i, layer in enumerate(self.layers):
            total = total + (i + 1.0) * np.sum(layer(x))
        return total

    def summed(self, x):
        return sum(np.sum(layer(x)) for layer in self.layers)

    def ends(self, x):
        return np.sum(self.layers[0](x) * self.layers[-1](x))


def sequential_loss(model, x):
    return np.sum(model(x) ** 2)


def layers_loss(layers, x):
    for layer in layers:
        x = layer(x)
    return np.sum(x ** 2)


LAYERS = [Dense(0.5), Sine(1.5), Dense(0.7)]
sequential = Sequential(Dense(0.5), Sine(0.8))


def module_layers_loss(x):
    for layer in LAYERS:
        x = layer(x)
    return np.sum(x) + np.sum(sequential(x))


class Blocks:
    """Lists of layers in a list of blocks, with a residual connection."""

    def __init__(self):
        self.blocks = [Sequential(Dense(0.5), Sine(0.3)), Sequential(Dense(1.2))]

    def __call__(self, x):
        for block in self.blocks:
            x = block(x) + x
        return np.sum(x ** 2)


def stops_early(layers, x):
    for layer in layers:
        x = layer(x)
        if np.sum(x) > 100.0:
            break
    return np.sum(x)


def numbered(model, x):
    total = 0.0
    for i, layer in enumerate(model.layers, start=2):
        total = total + i * np.sum(layer(x))
    return total


def rebinds_after(model, x):
    for layer in model.layers:
        x = layer(x)
    layer = Sine(2.0)  # (the loop's variable given another object: its own class's method)
    return np.sum(layer(x))


def weight_decay(model, x):
    total = np.sum(model(x))
    for layer in model.layers:
        total = total + 0.1 * layer.scale ** 2 * np.sum(x ** 2)
    return total


def branches(a, b, x, flag):
    if flag > 0:
        for layer in a:
            x = layer(x)
    else:
        for layer in b:
            x = layer(x)
    return np.sum(layer(x))  # (a[-1] or b[-1]: which one is decided at run time)


def loops_again(a, b, x, n):
    for layer in a:
        x = layer(x)
    for _ in range(n):
        x = layer(x)  # (a[-1] in the first pass, b[-1] in the next ones)
        for layer in b:
            x = layer(x)
    return np.sum(x)


def aliased(model, x):
    layers = model.layers
    last = layers[-1]
    for layer in layers[:-1]:
        x = layer(x)
    return np.sum(last(x) ** 2)


def parameter_in_a_folded_branch(x):
    if True:
        x = np.tanh(x)
    return np.sum(x ** 2)


class Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, x, w):
        return self.k * np.tanh(x * w)


class Shifted(Scale):
    def __call__(self, x, w):
        return self.k * np.sin(x + w)


def zipped_layers(layers, weights, x):
    for layer, w in zip(layers, weights):  # (weights: arrays, differentiated)
        x = layer(x, w)
    return np.sum(x ** 2)


def loss_with_all(model, x, all=max):  # (a parameter named like the entry's builtin)
    for layer in model.layers:
        x = layer(x)
    return np.sum(x) * all(1.0, 2.0)


def used_after_the_loop(model, x):
    for layer in model.layers:
        x = layer(x)
    return np.sum(layer(x))  # (the last one: one of them, all alike)


def numbered_from_one(model, x):
    total = 0.0
    for i, layer in enumerate(model.layers, 1):
        x = layer(x)
        total = total + i * np.sum(x)
    return total


class MaybeActivated:
    def __init__(self, scale, act=None):
        self.scale = scale
        if act is not None:
            self.act = act

    def __call__(self, x):
        y = self.scale * x
        if hasattr(self, "act"):
            y = self.act(y)
        return y


class Node:
    """A chain of objects of one class, each calling the next's forward."""

    def __init__(self, k, child=None):
        self.k = k
        self.child = child

    def forward(self, x):
        y = np.tanh(self.k * x)
        if self.child is not None:
            y = self.child.forward(y)
        return y


chain = Node(0.9, Node(0.8, Node(0.7, Node(0.6, Node(0.5, Node(0.4, Node(0.3)))))))


def chain_loss(x):
    return np.sum(chain.forward(x))
