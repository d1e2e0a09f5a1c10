"""A ``types.SimpleNamespace`` held below the argument (``o.inner.s`` where ``o.inner``
is a namespace, in a namespace or in an object of a user's class), and an object or
namespace held in a dict or a tuple member (``o.d["k"].s``, ``o.t[0].s``), is described
member by member as an object of a user's class is: a complex member makes the program
complex, a member changed between calls builds the gradient again, an ``np.matrix`` is
refused at its operator's line, and a function member is called as written. Before, the
description stopped at it (a namespace was not a user's object; a dict or a tuple of
objects was not walked), so the real rules ran on a complex member at the very first
call (a gradient of [6.2, -0.4, 9.2] where it is [9, -2, 14]), a matrix's ``*`` was an
ndarray's (a ValueError inside s2sad), and ``o.inner.f(x)`` was refused."""

import types
import warnings

import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences

SN = types.SimpleNamespace


class Holder:
    """An object of a user's class, its attributes given by keyword."""

    def __init__(self, **attributes):
        self.__dict__.update(attributes)


def one_down(x, o):
    return np.real(np.sum(np.abs(o.a.s * x) ** 2 + o.a.s * x))


def two_down(x, o):
    return np.real(np.sum(np.abs(o.a.a.s * x) ** 2 + o.a.a.s * x))


def in_a_list(x, o):
    return np.real(np.sum(np.abs(o.a[0].s * x) ** 2 + o.a[0].s * x))


def in_a_dict(x, o):
    return np.real(np.sum(np.abs(o.a["k"].s * x) ** 2 + o.a["k"].s * x))


def in_a_tuple(x, o):
    return np.real(np.sum(np.abs(o.a[0].s * x) ** 2 + o.a[0].s * x))


def through_an_alias(x, o):
    inner = o.a
    return np.real(np.sum(np.abs(inner.s * x) ** 2 + inner.s * x))


def in_a_loop(x, o):
    r = 0.0
    for item in o.a:
        r = r + np.real(np.sum(np.abs(item.s * x) ** 2 + item.s * x))
    return r


# (the function, and how it holds s: each builds the argument from s)
HOLDINGS = {
    "ns-ns": (one_down, lambda s: SN(a=SN(s=s))),
    "obj-ns": (one_down, lambda s: Holder(a=SN(s=s))),
    "ns-ns-ns": (two_down, lambda s: SN(a=SN(a=SN(s=s)))),
    "obj-ns-obj": (two_down, lambda s: Holder(a=SN(a=Holder(s=s)))),
    "obj-obj-ns": (two_down, lambda s: Holder(a=Holder(a=SN(s=s)))),
    "obj-list-ns": (in_a_list, lambda s: Holder(a=[SN(s=s)])),
    "ns-list-ns": (in_a_list, lambda s: SN(a=[SN(s=s)])),
    "obj-dict-ns": (in_a_dict, lambda s: Holder(a={"k": SN(s=s)})),
    "ns-dict-obj": (in_a_dict, lambda s: SN(a={"k": Holder(s=s)})),
    "obj-dict-obj": (in_a_dict, lambda s: Holder(a={"k": Holder(s=s), "n": "name"})),
    "obj-tuple-obj": (in_a_tuple, lambda s: Holder(a=(Holder(s=s), 1.0))),
    "ns-tuple-ns": (in_a_tuple, lambda s: SN(a=(SN(s=s), "name"))),
    "alias-obj-ns": (through_an_alias, lambda s: Holder(a=SN(s=s))),
    "loop-ns-ns": (in_a_loop, lambda s: SN(a=[SN(s=s), SN(s=s)])),
}
MEMBERS = {
    "complex": 2.0 + 1.0j,
    "complex64": np.complex64(2.0 + 1.0j),
    "complex array": np.array([2.0 + 1.0j, 1.0 - 0.5j, 0.25 + 2.0j]),
}
X = np.array([0.7, -0.4, 1.2])
GRID = [(h, m) for h in HOLDINGS for m in MEMBERS]


def assert_central_differences(got, f, o, x=X):
    np.testing.assert_allclose(got, central_differences(f, (x, o), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("holding, member", GRID, ids=[f"{h}-{m}" for h, m in GRID])
def test_the_first_call_against_central_differences(holding, member):
    f, make = HOLDINGS[holding]
    o = make(MEMBERS[member])
    assert_central_differences(s2sad.grad(f)(X, o), f, o)


@pytest.mark.parametrize("holding, member", GRID, ids=[f"{h}-{m}" for h, m in GRID])
def test_a_real_member_then_a_complex_one_builds_again(holding, member):
    f, make = HOLDINGS[holding]
    g = s2sad.grad(f)
    real = make(3.0)
    assert_central_differences(g(X, real), f, real)
    o = make(MEMBERS[member])
    assert_central_differences(g(X, o), f, o)
    assert_central_differences(g(X, real), f, real)


def test_the_second_derivative_of_a_complex_member_two_down():
    """Re(sum(|s x|^2 + s x)) has the Hessian 2 |s|^2 I: 10 I for s = 2 + 1j."""
    o = SN(a=SN(s=2.0 + 1.0j))
    np.testing.assert_allclose(s2sad.hessian(one_down)(X, o), 10.0 * np.eye(3), atol=1e-12)


def applied(x, o):
    return np.real(np.sum(o.a.f(x) * o.a.s))


@pytest.mark.parametrize("make", [lambda: SN(a=SN(f=np.sin, s=2.0 + 1.0j)),
                                  lambda: Holder(a=SN(f=np.sin, s=2.0 + 1.0j))],
                         ids=["ns-ns", "obj-ns"])
def test_a_function_held_by_a_namespace_one_down_is_called(make):
    o = make()
    assert_central_differences(s2sad.grad(applied)(X, o), applied, o)
    _, push = s2sad.jvp(applied)(X, o)
    t = np.array([0.3, 0.7, 1.1])
    want = (applied(X + 1e-6 * t, o) - applied(X - 1e-6 * t, o)) / 2e-6
    np.testing.assert_allclose(push(t), want, rtol=1e-6)


def matrix_one_down(x, o):
    return np.sum(np.asarray(o.a.M * x.reshape(2, 1)) ** 2)  # <- the matrix product


def matrix_in_a_dict(x, o):
    return np.sum(np.asarray(o.a["k"].M * x.reshape(2, 1)) ** 2)  # <- the matrix product


@pytest.mark.parametrize("f, wrap, line", [
    (matrix_one_down, lambda m: SN(a=SN(M=m)), "o.a.M * x"),
    (matrix_one_down, lambda m: Holder(a=SN(M=m)), "o.a.M * x"),
    (matrix_in_a_dict, lambda m: Holder(a={"k": SN(M=m), "n": 2}), 'o.a["k"].M * x'),
], ids=["ns-ns", "obj-ns", "obj-dict-ns"])
def test_a_matrix_held_one_down_is_refused_at_its_line(f, wrap, line):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        o = wrap(np.matrix([[1.0, 2.0], [3.0, 4.0]]))
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(f)(np.array([0.7, -0.4]), o)
    message = str(info.value)
    assert line in message and "test_nested_namespaces.py" in message
    assert "np.asarray(...)" in message
