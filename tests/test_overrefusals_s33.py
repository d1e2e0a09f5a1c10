"""Session 33: Python as people write it, refused by s2sad (or failing inside it) though
it is modelled exactly now, each gradient checked against central differences in float64.

* a nested helper forwarding its ``**kwargs`` to another (``inner(h, **kw)``): s2sad
  read the dict by a name that was not the user's (``name 'kw_1' is not defined``);
* a subclass whose ``__init__`` calls ``super().__init__(...)``, and inherits or
  overrides its base's methods (local_objects);
* ``@staticmethod`` helpers called through ``self`` (``self.act(h)`` is ``Cls.act(h)``)
  and class attributes read through ``self`` beside them;
* ``@classmethod`` constructors (``Layer.from_params(w)``) whose body returns
  ``cls(...)``.

Every case failed on main (``# refused on main``, ``# failed on main``). The tests at
the end pin what stays refused.
"""

import dataclasses

import numpy as np
import pytest
from test_overrefusals_s28 import central
from test_overrefusals_s32 import V, X, check  # (grad, unoptimized and jvp: central)

import s2sad


# --- **kwargs forwarded by a nested helper -----------------------------------------------

def kwargs_forwarded(x):  # failed on main
    def inner(h, scale=1.0, shift=0.0):
        return h * scale + shift

    def outer(h, **kw):
        return inner(h, **kw)
    return np.sum(outer(x, scale=x[0], shift=x[1]) ** 2)


def kwargs_forwarded_in_part(x):  # failed on main
    def inner(h, scale=1.0, shift=0.0):
        return h * scale + shift

    def outer(h, **kw):
        return inner(h, **kw)
    return np.sum(outer(x, scale=x[0]) ** 2)


def kwargs_forwarded_beside_a_keyword(x):  # failed on main
    def inner(h, scale=1.0, shift=0.0):
        return np.tanh(h * scale) + shift

    def outer(h, **kw):
        return inner(h, shift=x[3] * 2.0, **kw)
    return np.sum(outer(x, scale=x[0]) * x)


def kwargs_forwarded_twice(x):  # failed on main
    def inner(h, a=1.0, b=0.0):
        return h * a - b

    def middle(h, **kw):
        return inner(h, **kw)

    def outer(h, **kw):
        return middle(h, **kw) * 2.0
    return np.sum(outer(x, b=x[2], a=x[1]) ** 2)


@pytest.mark.parametrize("f", [kwargs_forwarded, kwargs_forwarded_in_part,
                               kwargs_forwarded_beside_a_keyword, kwargs_forwarded_twice])
def test_kwargs_forwarded(f):
    check(f)


# --- super().__init__, inherited methods ---------------------------------------------------

class Base:
    def __init__(self, w, k=1.0):
        scaled = w * k
        self.w = scaled

    def forward(self, h):
        return np.tanh(self.w * h)

    def energy(self):
        return self.w ** 2


class Child(Base):
    def __init__(self, w, b):
        super().__init__(w)
        self.b = b

    def forward(self, h):
        return self.w * h + self.b


class Keyworded(Base):
    def __init__(self, w, b):
        self.b = b
        super().__init__(b * 2.0, k=w)


class Inheriting(Base):
    """No __init__, no forward of its own: the base's."""

    def shift(self, h):
        return h + self.w


class Grandchild(Child):
    def __init__(self, w, b, c):
        super().__init__(w * c, b)
        self.c = c

    def forward(self, h):
        return np.sin(self.w * h) * self.c + self.b


def super_init(x):  # refused on main
    c = Child(x[0], x[1])
    return np.sum(c.forward(x) ** 2)


def super_init_keyword_and_inherited_method(x):  # refused on main
    c = Keyworded(x[0], x[1])
    return np.sum(c.forward(x)) + c.energy() * x[2]


def init_inherited(x):  # refused on main
    c = Inheriting(x[0], x[1])
    return np.sum(c.forward(c.shift(x)))


def super_init_two_levels(x):  # refused on main
    g = Grandchild(x[0], x[1], x[2])
    h = g.forward(x)
    g.w = g.w * x[3]
    return np.sum(g.forward(h)) + g.energy()


def super_init_in_a_loop(x):  # refused on main
    h = x
    for v in x[:2]:
        c = Child(v, x[3])
        h = c.forward(h)
    return np.sum(h ** 2)


# --- static methods, class attributes, class-method constructors -------------------------

class Layer:
    factor = 2.0

    def __init__(self, w):
        self.w = w

    @classmethod
    def from_params(cls, w, scale=3.0):
        """A layer whose weight is ``w * scale``."""
        return cls(w * scale)

    @classmethod
    def identity(cls):
        return cls(1.0)

    @staticmethod
    def act(h):
        return np.tanh(h)

    def forward(self, h):
        return self.act(self.w * h) * self.factor


class Shifted(Layer):
    def __init__(self, w, b=0.5):
        super().__init__(w)
        self.b = b

    def forward(self, h):
        return Layer.act(self.w * h + self.b) - self.act(h) * self.factor


def static_method_through_self(x):  # refused on main
    layer = Layer(x[0])
    return np.sum(layer.forward(x))


def static_method_through_the_object(x):  # refused on main
    layer = Layer(x[0])
    y = layer.act(x * layer.w)
    return np.sum(y * layer.factor)


def class_method_constructor(x):  # refused on main
    layer = Layer.from_params(x[0])
    return np.sum(layer.forward(x) ** 2)


def class_method_constructor_by_keyword(x):  # refused on main
    layer = Layer.from_params(scale=x[1], w=np.sin(x[0]))
    return np.sum(layer.forward(x)) * layer.w


def class_method_constructor_without_arguments(x):  # refused on main
    layer = Layer.identity()
    layer.w = layer.w * x[2]
    return np.sum(layer.forward(x))


def class_method_of_a_subclass(x):  # refused on main
    layer = Shifted.from_params(x[0], x[1])
    return np.sum(layer.forward(x)) + layer.b * x[3]


def class_method_constructor_in_a_branch(x):  # refused on main
    if x[0] > 0:
        layer = Layer.from_params(x[1])
    else:
        layer = Layer(x[2])
    return np.sum(layer.forward(x))


@pytest.mark.parametrize("f", [
    super_init, super_init_keyword_and_inherited_method, init_inherited,
    super_init_two_levels, super_init_in_a_loop, static_method_through_self,
    static_method_through_the_object, class_method_constructor,
    class_method_constructor_by_keyword, class_method_constructor_without_arguments,
    class_method_of_a_subclass, class_method_constructor_in_a_branch])
def test_classes_as_tutorials_write_them(f):
    check(f)


def test_the_other_branch_of_the_constructor():
    check(class_method_constructor_in_a_branch, x=-X)


class Calling(Base):
    def forward(self, h):
        return super().forward(h) * 2.0


class Counted(Layer):
    @classmethod
    def made(cls, w):
        layer = cls(w)
        layer.w = layer.w * 2.0
        return layer


def super_method_called(x):  # refused on main
    c = Calling(x[0])
    return np.sum(c.forward(x))


def class_method_with_statements(x):  # refused on main
    layer = Counted.made(x[0])
    return np.sum(layer.forward(x))


def super_init_given_a_star(x):  # refused on main
    class_args = (x[0], x[1])
    c = Star(*class_args)
    return np.sum(c.forward(x))


class Star(Base):
    def __init__(self, *args):
        super().__init__(*args)


@pytest.mark.parametrize("f", [super_method_called, class_method_with_statements,
                               super_init_given_a_star])
def test_what_stays_refused(f):
    """super() read otherwise than as super().__init__(...) in __init__, a class method
    that does more than return cls(...), a method with *args: s2sad does not write these
    objects as variables, and the object reaches a call it refuses."""
    with pytest.raises(s2sad.errors.S2sadError):
        s2sad.grad(f)(X.copy())


# --- Python's lookup, where a subclass names a base's method otherwise ----------------------

class Helper(Base):
    @staticmethod
    def forward(h):
        return h * 3.0


def static_method_over_a_base_method(x):  # refused on main
    c = Helper(x[0])
    y = c.forward(x)  # (Helper.forward: the static method, not Base.forward)
    return np.sum(y * c.w)


def test_a_subclass_static_method_hides_the_base_method():
    check(static_method_over_a_base_method)


class Normed:
    def __init__(self, w):
        self.w = np.sqrt(w ** 2 + 1.0)

    def forward(self, h):
        return self.w * h


class Shadowing(Normed):
    def __init__(self, w):
        np = w * 0.5  # noqa: F841 (a variable named as the module's name the base reads)
        super().__init__(w)


def base_reads_a_name_the_subclass_has(x):
    c = Shadowing(x[0])
    return np.sum(c.forward(x))


def test_a_base_init_reading_a_name_the_subclass_has_stays_refused():
    """Written out in Shadowing.__init__, Normed's ``np.sqrt`` would read its variable
    (s2sad then said it was used before it is assigned: Python runs it)."""
    central(base_reads_a_name_the_subclass_has, X.copy())
    with pytest.raises(s2sad.errors.NoDerivativeError, match=r"c\.forward\(\)"):
        s2sad.grad(base_reads_a_name_the_subclass_has)(X.copy())


# --- a loop over objects of classes that store their arguments ------------------------------

class Dense:
    def __init__(self, w):
        self.w = w

    def __call__(self, h):
        return np.tanh(self.w * h)


class Scale:
    """Its __init__ stores an argument and a constant: it computes nothing."""

    def __init__(self, s, b=0.25):
        self.s = s
        self.b = b

    def __call__(self, h):
        return h * self.s + self.b


def loop_over_two_classes(x):  # refused on main
    h = x
    for layer in [Dense(x[0]), Scale(x[1])]:
        h = layer(h)
    return np.sum(h)


def loop_over_a_named_list(x):  # refused on main
    layers = [Dense(x[0]), Scale(x[1]), Dense(x[2])]
    h = x * 2.0
    for layer in layers:
        h = layer(h)
    return np.sum(h ** 2)


def arguments_read_before_the_first_turn(x):  # refused on main
    h = x
    for layer in (Scale(h[0], h[1]), Dense(h[2])):  # (h as it is before the loop)
        h = layer(h) * 2.0
    return np.sum(h)


def loop_variable_read_after(x):  # refused on main
    h = x
    for layer in [Dense(x[0]), Scale(x[3])]:
        h = layer(h)
        layer.s = h[0]  # (the Scale's own attribute, set on each object in turn)
    return np.sum(h) + layer.s * x[2]


def loop_over_objects_of_one_class(x):  # refused on main
    h = x
    total = 0.0
    for layer in [Dense(x[0]), Dense(x[1]), Dense(1.5)]:
        h = layer(h)
        total = total + layer.w * np.sum(h)
    return total


@pytest.mark.parametrize("f", [loop_over_two_classes, loop_over_a_named_list,
                               arguments_read_before_the_first_turn, loop_variable_read_after,
                               loop_over_objects_of_one_class])
def test_a_loop_over_objects(f):
    check(f)


def loop_left_by_break(x):  # refused on main
    h = x
    for layer in [Dense(x[0]), Scale(x[1])]:
        h = layer(h)
        if h[0] > 0:
            break
    return np.sum(h)


def list_read_again(x):  # refused on main
    layers = [Dense(x[0]), Scale(x[1])]
    h = x
    for layer in layers:
        h = layer(h)
    return np.sum(h) * len(layers)


@pytest.mark.parametrize("f", [loop_left_by_break, list_read_again])
def test_a_loop_over_objects_not_written_out_stays_refused(f):
    """A loop that may stop early, a list read besides its loop: the objects are Python's
    objects, which s2sad does not follow here."""
    central(f, X.copy())
    with pytest.raises(s2sad.errors.S2sadError):
        s2sad.grad(f)(X.copy())


# --- a method's list read by a comprehension ------------------------------------------------

class Module:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def parameters(self):
        return [self.w, self.b]

    def forward(self, h):
        return np.tanh(self.w * h + self.b)


def parameters_summed_in_a_generator(x):  # refused on main
    m = Module(x[0], x[1])
    reg = sum(p ** 2 for p in m.parameters())
    return np.sum(m.forward(x)) + reg


def parameters_in_a_comprehension_beside_a_call(x):  # refused on main
    m = Module(x[2], x[3] * 0.5)
    penalties = np.sum(x) * max([abs(p) for p in m.parameters()])
    return np.sum(m.forward(x) ** 2) + penalties


@pytest.mark.parametrize("f", [parameters_summed_in_a_generator,
                               parameters_in_a_comprehension_beside_a_call])
def test_a_methods_list_read_by_a_comprehension(f):
    check(f)


# --- dataclasses.replace of an object made here --------------------------------------------

@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float
    k: float = 2.0


def replaced_once(x):  # refused on main
    p = Params(w=x * 2.0, b=x[0])
    q = dataclasses.replace(p, b=x[1])
    return np.sum(q.w * q.b) + p.b * q.k


def replaced_out_of_order_in_a_loop(x):  # refused on main
    p = Params(x * 1.0, x[0], x[3])
    for v in x[:3]:
        p = dataclasses.replace(p, k=p.k * v, w=np.tanh(p.w * p.k))  # (k read first:
    return np.sum(p.w) + p.k * p.b                                   # p's, as Python)


@pytest.mark.parametrize("f", [replaced_once, replaced_out_of_order_in_a_loop])
def test_dataclasses_replace(f):
    check(f)


# --- a dict or list of objects read by keys it has -----------------------------------------

def dict_of_layers(x):  # refused on main
    layers = {"first": Module(x[0], x[1]), "second": Dense(x[2])}
    h = layers["first"].forward(x)
    h = layers["second"](h)
    return np.sum(h) + layers["first"].b * x[3]


def list_of_layers_by_index(x):  # refused on main
    h = x
    for _ in range(2):
        layers = [Dense(h[0]), Scale(h[1], x[3])]
        h = layers[1](layers[0](h))
    return np.sum(h ** 2)


@pytest.mark.parametrize("f", [dict_of_layers, list_of_layers_by_index])
def test_objects_held_by_a_dict_or_list_read_by_key(f):
    check(f)


def dict_of_layers_by_a_variable(x):  # refused on main
    layers = {"a": Dense(x[0]), "b": Dense(x[1])}
    h = x
    for name in ["a", "b"]:
        h = layers[name](h)
    return np.sum(h)


def dict_of_layers_grown(x):  # refused on main
    layers = {"a": Dense(x[0])}
    layers["b"] = Dense(x[1])
    return np.sum(layers["b"](layers["a"](x)))


@pytest.mark.parametrize("f", [dict_of_layers_by_a_variable, dict_of_layers_grown])
def test_a_dict_of_objects_read_otherwise_stays_refused(f):
    """A key that is a variable, a dict changed after its display: s2sad does not
    follow Python's objects through it."""
    central(f, X.copy())
    with pytest.raises(s2sad.errors.S2sadError):
        s2sad.grad(f)(X.copy())


def attribute_read_by_getattr(x):  # refused on main
    m = Module(x[0], x[1])
    w = getattr(m, "w")
    return np.sum(w * x) + np.sum(getattr(m, "forward")(x))


def test_an_attribute_read_by_getattr():
    check(attribute_read_by_getattr)


class Root:
    def __init__(self, w):
        super().__init__()  # (object's: it does nothing)
        self.w = w

    def forward(self, h):
        return np.cos(self.w * h)


class Leaf(Root):
    def __init__(self, w, b):
        super().__init__(w)
        self.b = b


def object_init_called(x):  # refused on main
    r = Root(x[0])
    leaf = Leaf(x[1], x[2])
    return np.sum(r.forward(x) * leaf.forward(x)) + leaf.b


def test_super_init_of_a_class_whose_base_is_object():
    check(object_init_called)


# --- names written for an object's attributes, beside the sensitivities' names ---------------

class Holder:
    def __init__(self, w):
        self.w = w

    def f(self, h):
        return h ** 2 * self.w


def objects_named_t_and_s(x):  # a wrong gradient on main: t__w's sensitivity was s__w
    t = Holder(x[0])
    s = Holder(x[1])
    return np.sum(t.f(x) + s.f(x ** 2))


def objects_named_t_and_d(x):  # (the tangent of t__w is d__w)
    t = Holder(x[2])
    d = Holder(x[3])
    return np.sum(t.f(x) * d.f(x))


class Cubing(Holder):
    @staticmethod
    def g(h):
        return h ** 3

    def f(self, h):
        return self.g(h) * self.w


def subclass_objects_named_t_and_s(x):  # a wrong gradient on main, refused there before
    t = Cubing(x[0])
    s = Holder(x[1])
    return np.sum(t.f(x) + s.f(x))


@pytest.mark.parametrize("f", [objects_named_t_and_s, objects_named_t_and_d,
                               subclass_objects_named_t_and_s])
def test_attribute_variables_never_share_a_name_with_a_sensitivity(f):
    check(f)
