"""Members held below an argument's object: ``o.inner.s``, ``o.lst[0].s``,
``o.d["k"]``, an alias ``h = o.inner``, a loop ``for l in o.lst``, a method of the inner
object reading ``self.s``. The entry of a variant tests every member the generated code
reads, at any depth (``kinds.member``): a real member at the first call and a complex one
at a later call reused the real variant before (a gradient of [-3.8, -6.8] where it is
[9, 14]). An ``np.matrix`` held one level down is data to the kinds, so its ``*`` is
refused at the line as ``o.M``'s is (it was differentiated as an ndarray: a wrong
gradient, or a ValueError inside s2sad). A complex NumPy number in a tuple or dict member,
and a member three objects down, took the real rules at the first call."""

import copy
import warnings

import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences


class Holder:
    """An object of a user's class, its attributes given by keyword."""

    def __init__(self, **attributes):
        self.__dict__.update(attributes)

    def read(self):
        return self.s


def through_attributes(x, o):
    return np.real(np.sum(np.abs(o.inner.s * x) ** 2 + o.inner.s * x))


def through_a_list(x, o):
    return np.real(np.sum(np.abs(o.lst[0].s * x) ** 2 + o.lst[0].s * x))


def through_a_dict(x, o):
    return np.real(np.sum(np.abs(o.d["k"] * x) ** 2 + o.d["k"] * x))


def through_a_tuple(x, o):
    return np.real(np.sum(np.abs(o.t[0] * x) ** 2 + o.t[0] * x))


def through_an_alias(x, o):
    h = o.inner
    return np.real(np.sum(np.abs(h.s * x) ** 2 + h.s * x))


def through_a_loop(x, o):
    r = 0.0
    for layer in o.lst:
        r = r + np.real(np.sum(np.abs(layer.s * x) ** 2 + layer.s * x))
    return r


def through_a_method(x, o):
    s = o.inner.read()
    return np.real(np.sum(np.abs(s * x) ** 2 + s * x))


def three_down(x, o):
    return np.real(np.sum(np.abs(o.a.a.a.s * x) ** 2 + o.a.a.a.s * x))


def holding(s):
    """An object holding ``s`` by each of the ways above."""
    return Holder(inner=Holder(s=s), lst=[Holder(s=s)], d={"k": s}, t=(s, 1.0))


FORMS = [through_attributes, through_a_list, through_a_dict, through_a_tuple,
         through_an_alias, through_a_loop, through_a_method]
X = np.array([0.8, 1.3])
A = np.array([2.0, 1.0])


def assert_central_differences(g, f, o):
    got = g(X, o)
    np.testing.assert_allclose(got, central_differences(f, (X, o), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("real, complex_", [
    (2.0, 1.0 + 2.0j), (np.float64(2.0), 1.0 + 2.0j), (A, A * (1.0 + 2.0j)),
    (2.0, np.complex64(1.0 + 2.0j))], ids=["float", "float64", "array", "complex64"])
@pytest.mark.parametrize("f", FORMS, ids=[f.__name__ for f in FORMS])
def test_a_real_member_then_a_complex_one_builds_again(f, real, complex_):
    g = s2sad.grad(f)
    assert_central_differences(g, f, holding(real))
    assert_central_differences(g, f, holding(complex_))  # (the real variant, before)
    assert_central_differences(g, f, holding(real))


@pytest.mark.parametrize("f", [through_a_dict, through_a_tuple], ids=["dict", "tuple"])
def test_a_complex_numpy_number_in_a_container_is_complex(f):
    """np.complex64 is no Python complex: a tuple or dict holding one was not described,
    so the real rules ran on it at the first call."""
    assert_central_differences(s2sad.grad(f), f, holding(np.complex64(1.0 + 2.0j)))


def test_three_objects_down():
    """The description reaches members three objects down (it stopped at two)."""
    g = s2sad.grad(three_down)
    for s in (1.5 + 0.5j, 2.0, A * 1j):
        assert_central_differences(g, three_down, Holder(a=Holder(a=Holder(a=Holder(s=s)))))


def deeper(x, o):
    return np.sum(o.a.a.a.a.a.a.s * x)  # <- deeper


def test_a_member_below_the_description_is_refused_at_the_line():
    o = Holder(s=2.0)
    for _ in range(6):
        o = Holder(a=o)
    with pytest.raises(s2sad.DifferentiationError) as info:
        s2sad.grad(deeper)(X, o)
    assert "# <- deeper" in str(info.value) and "test_nested_members.py" in str(info.value)
    assert "as an argument" in info.value.hint


class Moded:
    scale = 2.0

    def __init__(self, v):
        self.mode, self.v = "a", v


def moded(x, o):
    r = np.sum(o.inner.v * x) * o.inner.scale
    return np.abs(r * 2.0 if o.inner.mode == "a" else r) ** 2


def test_a_member_the_description_lacks_is_tested_undescribed():
    """A string and a class's attribute read below the argument, which its description
    does not carry, are tested still so at the entry: calls of the same kinds keep to
    it, and an own attribute that shadows the class's with a complex number builds again."""
    o = Holder(inner=Moded(np.array([1.0, 2.0])))
    g = s2sad.grad(moded)
    assert_central_differences(g, moded, o)
    assert g._entry is not g._general
    o.inner.mode = "b"
    assert_central_differences(g, moded, o)
    assert g._entry is not g._general
    o.inner.scale = 1.0 + 2.0j  # (its own now: the real variant, before)
    assert_central_differences(g, moded, o)


class Layer:
    def __init__(self, M, W=None):
        self.M, self.W = M, W

    def __call__(self, x):
        return self.M * x  # <- matrix product


class WeightedLayer(Layer):
    def __call__(self, x):
        return self.M * (x @ self.W)  # <- weighted


class Net:
    def __init__(self, layer):
        self.l, self.ls = layer, [layer]

    def __call__(self, x):
        return self.l(x)


class Stack(Net):
    def __call__(self, x):
        for layer in self.ls:
            x = layer(x)
        return x


def matrix_loss(x, net):
    return np.sum(np.asarray(net(x)) ** 2)


def model_loss(net, x):
    return np.sum(np.asarray(net(x)) ** 2)


def matrix():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.matrix([[1.0, 2.0], [3.0, 4.0]])


XS = np.array([[0.3, 0.9], [-0.5, 0.2]])


@pytest.mark.parametrize("net", [Net, Stack], ids=["attribute", "loop"])
def test_a_matrix_one_level_down_is_refused_at_the_line(net):
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(matrix_loss)(XS, net(Layer(matrix())))
    assert "# <- matrix product" in str(info.value)
    assert "operator *" in str(info.value) and "np.asarray" in info.value.hint


@pytest.mark.parametrize("model", [lambda: WeightedLayer(matrix(), XS),
                                   lambda: Net(WeightedLayer(matrix(), XS))],
                         ids=["member", "one-level-down"])
def test_a_matrix_of_a_differentiated_model_is_refused_at_the_line(model):
    """With respect to the model: the matrix is read from it, so it depends on the
    differentiated argument; its ``*`` was differentiated as NumPy's (a wrong gradient
    of the weights beside it)."""
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(model_loss, wrt="net")(model(), XS)
    assert "# <- weighted" in str(info.value) and "np.asarray" in info.value.hint


def scaled_model(m, x):
    h = x @ m.W * m.inner.s
    for layer in m.layers:
        h = np.tanh(h * layer.s)
    return np.real(np.sum(np.abs(h) ** 2))


def model_central_differences(m, holder, name, eps=1e-6):
    """Central differences of ``scaled_model`` along a real member ``holder(m).name``."""
    value = np.asarray(getattr(holder(m), name), dtype=float)
    out = np.zeros(value.shape)
    for i in np.ndindex(value.shape):
        sides = []
        for step in (eps, -eps):
            moved = copy.deepcopy(m)
            v = value.copy()
            v[i] += step
            setattr(holder(moved), name, v if value.shape else float(v))
            sides.append(scaled_model(moved, XS))
        out[i] = (sides[0] - sides[1]) / (2 * eps)
    return out


def test_with_respect_to_the_model_a_member_made_complex_builds_again():
    g = s2sad.grad(scaled_model, wrt="m")
    for s in (0.7, 0.7 + 0.2j, 0.7):
        m = Holder(W=XS * 0.5, inner=Holder(s=s), layers=[Holder(s=np.array([0.5, -0.4])),
                                                          Holder(s=np.array([0.3, 0.9]))])
        got = g(m, XS)
        np.testing.assert_allclose(got.W, model_central_differences(m, lambda m: m, "W"),
                                   rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(
            got.layers[1].s, model_central_differences(m, lambda m: m.layers[1], "s"),
            rtol=1e-5, atol=1e-7)
