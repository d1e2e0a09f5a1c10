"""Session 37 (fix37): recursive methods of objects made in the function, after over37.

* A method calling a method of its own name on an attribute always given an object of
  another class (``self.inner.forward(h)`` in ``Wrapper.forward``) is no recursion: the
  object is followed as on main.
* A recursive method on an object made of the differentiated arguments is refused naming
  the user's call (``c.forward()``), never s2sad's check ``same_method``.

On fix/lead37 (4a01bbe) 4 of 6 fail: two Wrapper gradients refused, recursive_methods
(Wrapper) not empty, the refusal naming same_method. On main 3 of 6 fail: no
recursive_methods, the Chain refused, the refusal not naming ``c.forward()``.

Gradients are checked against float64 central differences.
"""

import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences

X = np.array([0.3, -0.5, 1.2, 0.7])


def central(f, x):
    return central_differences(f, (x,), 0)


def check(f):
    want = central(f, X.copy())
    for grad in (s2sad.grad(f), s2sad.grad(f, optimize=False)):
        np.testing.assert_allclose(grad(X.copy()), want, rtol=1e-6, atol=1e-7)


class Leaf:
    def __init__(self, w):
        self.w = w
        self.calls = 0

    def forward(self, h):
        self.calls = self.calls + 1
        return np.sin(self.w * h)


class Wrapper:
    def __init__(self, w):
        self.inner = Leaf(w)

    def forward(self, h):
        return self.inner.forward(h) * 2.0


class Chain:  # a linked list: .next is a Chain or None
    def __init__(self, w, nxt):
        self.w = w
        self.next = nxt

    def forward(self, h):
        h = np.tanh(self.w * h)
        if self.next is None:
            return h
        return self.next.forward(h)


def wrapper_of_a_constant(x):
    m = Wrapper(0.7)
    return np.sum(m.forward(x))


def wrapper_of_the_argument(x):
    m = Wrapper(x[0])
    return np.sum(m.forward(x))


def wrapper_attribute_read(x):
    m = Wrapper(x[1])
    return np.sum(m.inner.forward(x)) * m.inner.calls + m.inner.w


def chain_of_constants(x):  # (a control: a recursion, followed since over37)
    c = Chain(0.5, Chain(1.5, Chain(2.0, None)))
    return np.sum(c.forward(x) ** 2)


def chain_of_the_argument(x):
    c = Chain(x[0], Chain(1.5, None))
    return np.sum(c.forward(x) ** 2)  # <- refused


@pytest.mark.parametrize("f", [wrapper_of_a_constant, wrapper_of_the_argument,
                               wrapper_attribute_read, chain_of_constants],
                         ids=lambda f: f.__name__)
def test_a_method_of_its_own_name_on_another_class(f):
    check(f)


def test_which_methods_are_recursive():
    from s2sad.transforms.local_objects import recursive_methods
    assert recursive_methods(Wrapper) == set()
    assert recursive_methods(Chain) == {"forward"}


def test_the_refusal_names_the_users_call():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(chain_of_the_argument)(X.copy())
    message = str(info.value)
    assert "c.forward()" in message and "same_method" not in message
    assert "s2sad.runtime" not in message
    assert info.value.filename == __file__ and "c.forward(x)" in info.value.text
