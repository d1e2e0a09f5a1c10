"""Session 35's merge review: deep copies of objects holding one array in two slots, and
``y.flat[i] = v`` whose ``v`` the flat iterator would repeat, were silently wrong or
crashed; each is now refused where it runs, and the forms followed stay right."""
import copy
import re

import numpy as np
import pytest

import s2sad
from s2sad.errors import UnsupportedSyntaxError

X = np.array([0.3, 0.7, -1.1, 0.5])


def central(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = eps
        g[k] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


class Lists:
    def __init__(self, ws):
        self.ws = ws


class Holder:
    def __init__(self, w):
        self.w = w


def copy_list_twice(x):
    a = x * 1.0
    p = Lists([a, a])
    q = copy.deepcopy(p)
    q.ws[0] *= 2.0
    return np.sum(q.ws[1] * x)


def copy_argument_twice(x):
    p = Lists([x, x])
    q = copy.deepcopy(p)
    q.ws[0] += 1.0
    return np.sum(q.ws[1] * x)


def copy_dict_twice(x):
    a = x * 1.0
    p = Holder({"u": a, "v": a})
    q = copy.deepcopy(p)
    q.w["u"] *= 2.0
    return np.sum(q.w["v"] * x)


def copy_list_distinct(x):
    a = x * 1.0
    p = Lists([a, a[::-1] * 1.0])
    q = copy.deepcopy(p)
    q.ws[0] *= 2.0
    return np.sum(q.ws[1] * x) + np.sum(q.ws[0] * x)


def flat_repeated(x):
    y = np.zeros((2, 2))
    y.flat[0:4] = x[:2]
    return np.sum(y * x.reshape(2, 2))


def flat_column(x):
    y = np.zeros((2, 2))
    y.flat[[[0, 1], [2, 3]]] = x[:2].reshape(2, 1)
    return np.sum(y * x.reshape(2, 2))


def flat_followed(x):
    y = np.zeros((2, 2))
    y.flat[1:3] = x[:2] * 2.0
    y.flat[0] += x[3]
    y.flat[[0, 3]] += x[1:3]
    return np.sum(y * x.reshape(2, 2)) + y.flat[2]


def flat_of_transpose(x):
    y = np.zeros((2, 2))
    z = y.T
    z.flat[1] = x[0]
    return np.sum(y * x.reshape(2, 2))


@pytest.mark.parametrize("f", [copy_list_twice, copy_argument_twice, copy_dict_twice])
def test_a_deep_copy_of_an_object_holding_one_array_twice_is_refused(f):
    # (Python's copy holds one new array in both slots: a write to one shows in the other;
    # the gradient was half the right one)
    with pytest.raises(UnsupportedSyntaxError, match="in two slots"):
        s2sad.grad(f)(X.copy())


@pytest.mark.parametrize("f", [copy_list_distinct, flat_followed])
def test_the_forms_followed_match_central_differences(f):
    x = X.copy()
    np.testing.assert_allclose(s2sad.grad(f)(x), central(f, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(x, X)


@pytest.mark.parametrize("f, shapes", [(flat_repeated, "(2,) for items of shape (4,)"),
                                       (flat_column, "(2, 1) for items of shape (2, 2)")])
def test_a_flat_write_the_iterator_would_repeat_is_refused(f, shapes):
    # (NumPy's flat iterator repeats v in C order: t[i] = v crashed, or broadcast a column
    # where the iterator repeats the items: [a, a, b, b] for [a, b, a, b])
    with pytest.raises(UnsupportedSyntaxError, match=re.escape(f"value of shape {shapes}")):
        s2sad.grad(f)(X.copy())


def test_the_advice_for_a_flat_write_of_a_transpose_is_python():
    with pytest.raises(UnsupportedSyntaxError) as caught:
        s2sad.grad(flat_of_transpose)(X.copy())
    assert "y.T =" not in str(caught.value)
    assert "in place of `y.T`" in str(caught.value)
