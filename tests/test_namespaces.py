"""A NumPy number held by an object (``o.e = np.complex64(...)``), and a
``types.SimpleNamespace`` given to the function differentiated is a bag of
attributes, described member by member as an object of the user's classes is: a complex
member makes the program complex, an ``np.matrix`` member is refused where it meets a
derivative, and a member changed between calls builds the gradient again. Before, it
was opaque: the real rules ran on a complex member (a gradient of 0.0 where it is 8.0)
and a matrix member's ``*`` was read as NumPy's (a wrong gradient). A NumPy number held
by a user's object was not described: ``np.complex64`` took the real rules (-15.0 where
the gradient is 17.0)."""

import types
import warnings

import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences


def scaled_power(x, o):
    return np.abs(x * o.e) ** 2


def summed_power(x, o):
    return np.sum(np.abs(x * o.e) ** 2)


def weighted(x, o):
    return np.sum(o.W * x) * o.k + np.sum(np.tanh(o.W @ x))


def matrix_product(x, o):
    return np.sum(o.M * x)  # <- here


class Holder:
    """An object of a user's class: a NumPy number member is described by its dtype too."""

    def __init__(self, e):
        self.e = e


CASES = [
    (scaled_power, 2.0, Holder(np.complex64(0.5 - 2.0j))),
    (scaled_power, 2.0, Holder(np.float32(1.5))),
    (scaled_power, 2.0, types.SimpleNamespace(e=1.0 + 1.0j)),
    (scaled_power, 2.0, types.SimpleNamespace(e=np.complex64(0.5 - 2.0j))),
    (summed_power, np.array([1.0, -2.0]), types.SimpleNamespace(e=np.array([1j, 2.0 + 0j]))),
    (scaled_power, 2.0, types.SimpleNamespace(e=3.0)),
    (weighted, np.array([0.5, -1.0]), types.SimpleNamespace(W=np.ones((2, 2)) * 0.3, k=3)),
]


@pytest.mark.parametrize("f, x, o", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_gradient_against_central_differences(f, x, o):
    got = s2sad.grad(f)(x, o)
    want = central_differences(f, (x, o), 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("make", [types.SimpleNamespace, Holder])
def test_a_member_made_complex_later_builds_again(make):
    o = make(e=np.float64(3.0))
    s2sad.grad(scaled_power)(2.0, make(e=np.complex64(1.0 + 1.0j)))
    g = s2sad.grad(scaled_power)
    assert g(2.0, o) == pytest.approx(36.0)
    o.e = 1.0 + 1.0j
    assert g(2.0, o) == pytest.approx(8.0)


def test_a_matrix_member_is_refused_at_the_line():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        o = types.SimpleNamespace(M=np.matrix([[1.0, 2.0], [3.0, 4.0]]))
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(matrix_product)(np.array([[1.0], [2.0]]), o)
    assert "return np.sum(o.M * x)" in str(info.value)
    assert "test_namespaces.py" in str(info.value)


def test_the_namespace_is_not_changed():
    o = types.SimpleNamespace(W=np.ones((2, 2)), k=3)
    before = dict(vars(o))
    s2sad.grad(weighted)(np.array([0.5, -1.0]), o)
    assert vars(o).keys() == before.keys() and all(vars(o)[k] is v for k, v in before.items())


def test_a_numpy_number_then_a_complex_member_builds_again():
    """The entry tests a NumPy number member's dtype: a complex member at a later call
    (a Python number, which has no dtype, or np.complex64) is another variant."""
    x = np.array([0.8, 1.3])

    def check(o):
        got = s2sad.grad(real_part)(x, o)
        np.testing.assert_allclose(got, central_differences(real_part, (x, o), 0), rtol=1e-6)

    for second in (1.0 + 2.0j, np.complex64(1.0 + 2.0j)):
        check(Holder(np.float64(2.0)))
        check(Holder(second))


def real_part(x, o):
    return np.real(np.sum(np.abs(o.e * x) ** 2 + o.e * x))


def test_a_namespace_is_not_differentiated_with_respect_to():
    o = types.SimpleNamespace(w=np.ones(2))
    with pytest.raises(TypeError, match="not an object of a class of your own"):
        s2sad.grad(lambda_free_sum, wrt="o")(o, np.array([1.0, 2.0]))


def lambda_free_sum(o, x):
    return np.sum(o.w * x)


class Config:
    """A module's object whose attribute a function reads through a local alias."""


CFG = Config()


def through_an_alias(x):
    c = CFG
    return np.abs(c.s * x[0]) ** 2 + np.real(c.s * x[1])


@pytest.mark.parametrize("later", [1.0 + 1.0j, np.array(1.0 + 1.0j)])
def test_a_module_object_read_through_an_alias_made_complex_builds_again(later):
    """``c = CFG; c.s``: the build notes ``CFG.s`` real as it does for ``CFG.s`` itself,
    so a complex value at a later call builds the gradient again (the real variant was
    reused: [0, 1] where the gradient is [1.2, 1])."""
    x = np.array([0.3, 0.9])
    g = s2sad.grad(through_an_alias)
    CFG.s = 2.0
    np.testing.assert_allclose(g(x), central_differences(through_an_alias, (x,), 0), rtol=1e-6)
    CFG.s = later
    np.testing.assert_allclose(g(x), central_differences(through_an_alias, (x,), 0), rtol=1e-6)
