"""Session 35: Python as people write it, refused by s2sad though it is modelled exactly
now, each gradient checked against central differences in float64.

* ``r = y.ravel()`` and ``r = np.ravel(y)`` of an array made C-contiguous here, written
  through (NumPy's view, as ``y.reshape(-1)``); ``y.flat[i] = e`` and ``y.flat[i] op= e``
  of an array made here, and ``y.flat[i]`` read (view_writes);
* an object of the user's class held by another's attribute (``self.inner = Inner(w)``
  in ``__init__``), called (``self.inner(h)``, ``self.inner.f(h)``) and read
  (``m.inner.w``), two levels deep too; a method calling another (``self.f(h)``), the
  object's state changed by both (class_forms, local_objects);
* ``Sequential([Dense(a), Scale(b)])``, its ``__init__`` keeping the list
  (``self.layers = layers``), its methods looping over it, ``len(self.layers)``,
  ``self.layers[-1]``: a class of its own per call, the items objects it holds
  (local_objects);
* ``copy.deepcopy(p)`` of an object of the user's class (holding arrays, numbers, an
  object), then a change to the copy, in place too (``q.w *= 2.0``, ``q.w[0] = v``):
  the original untouched; a class
  whose object Python copied before (``__slotnames__``, copyreg's cache) still followed
  (local_objects);
* a view chosen by a test, ``v = y[1:] if c else y[:2]``, or bound last in both arms of
  an ``if``, then written: the arm Python took decides (view_writes);

Every case was refused on main (``# refused on main``). The tests at the end pin what
stays refused, at the user's line.
"""

import copy
import inspect

import numpy as np
import pytest
from test_overrefusals_s32 import X, check

import s2sad


# --- ravel, and the flat iterator ----------------------------------------------------------

def ravel_written(x):  # refused on main
    y = np.zeros((2, 2))
    r = y.ravel()
    r[1] = x[0]
    r += x
    return np.sum(y ** 2) + np.sum(r * x)


def np_ravel_written(x):  # refused on main
    y = np.zeros((2, 2))
    r = np.ravel(y)
    r[2] = x[1] * x[3]
    return np.sum(y * y) + np.sum(r * x)


def array_written_ravel_read(x):  # refused on main
    y = np.ones((2, 2))
    r = np.ravel(y)
    y *= x.reshape(2, 2)
    y[0, 1] = x[0] ** 2
    return np.sum(r ** 2) + r[1] * x[2]


def flat_item_set(x):  # refused on main
    y = np.zeros((2, 2))
    y.flat[1] = x[0] * x[2]
    return np.sum(y ** 2) + y[0, 1] * x[3]


def flat_slice_set(x):  # refused on main
    y = np.zeros((2, 2))
    y.flat[1:3] = x[:2]
    return np.sum(y * x.reshape(2, 2))


def flat_updated(x):  # refused on main
    y = np.ones((2, 2))
    y.flat[2] *= x[1]
    y.flat[[0, 3]] += x[2:] ** 2
    return np.sum(np.sin(y))


def flat_set_in_a_loop(x):  # refused on main
    y = np.zeros((2, 2))
    for i in range(4):
        y.flat[i] = x[i] * (i + 1.0)
    return np.sum(y @ y)


def flat_read(x):  # refused on main
    y = np.zeros((2, 2))
    y[1] = x[:2]
    return y.flat[2] * x[3] + np.sum(y.flat[1:] * x[:3])


@pytest.mark.parametrize("f", [ravel_written, np_ravel_written, array_written_ravel_read,
                               flat_item_set, flat_slice_set, flat_updated,
                               flat_set_in_a_loop, flat_read])
def test_ravel_and_flat(f):
    check(f)


# --- objects holding objects, methods calling methods ---------------------------------------

class Leaf:
    def __init__(self, w, k=2.0):
        self.w = w
        self.k = k
        self.calls = 0

    def scale(self, h):
        return self.w * h * self.k

    def __call__(self, h):
        self.calls = self.calls + 1
        return np.tanh(self.scale(h)) * self.calls

    def forward(self, h):
        return np.sin(self.w * h)


class Pair:
    def __init__(self, w):
        self.leaf = Leaf(w * 2.0)
        self.other = Leaf(w, 0.5)

    def __call__(self, h):
        return self.leaf(h) + self.other(self.leaf.w * h)


class Top:
    def __init__(self, w, b):
        self.pair = Pair(w)
        self.b = b

    def run(self, h):
        h = self.pair(h)
        return self.pair(h) + self.b


class Wrapper:
    def __init__(self, w):
        self.inner = Leaf(w)
        self.b = 0.5

    def __call__(self, h):
        return self.inner(h) + self.b

    def forward(self, h):
        return self.inner.forward(h) * 2.0


class Repeat:
    def __init__(self, w):
        self.leaf = Leaf(w)

    def __call__(self, h):
        for _ in range(2):
            h = self.leaf(h)
        return h


class Steps:
    def __init__(self, w):
        self.w = w
        self.total = 0.0

    def one(self, h):
        return self.w * h

    def two(self, h):
        return self.one(h) + self.one(h * 2.0)

    def add(self, v):
        self.total = self.total + v * self.w

    def run(self, h):
        t = self.two(h) * self.w
        if np.sum(h) > 0:
            t = t + self.one(t)
        self.add(np.sum(t))
        self.add(h[0])
        return t


def held_object_called(x):  # refused on main
    m = Wrapper(x[0])
    return np.sum(m(x)) + np.sum(m.forward(x) ** 2)


def held_object_read(x):  # refused on main
    m = Wrapper(x[1])
    return np.sum(m.inner(x) * m.inner.w) + np.sum(m.inner.forward(x)) * m.inner.calls


def two_held_of_one_class(x):  # refused on main
    m = Pair(x[3])
    a = m(x)
    b = m(a)
    return np.sum(a * b) + m.other.calls * x[0]


def held_two_levels_deep(x):  # refused on main
    t = Top(x[0], x[1])
    y = t.run(x)
    return np.sum(y ** 2) + t.pair.leaf.calls * x[2] + t.pair.other.w


def held_called_in_a_loop(x):  # refused on main
    m = Repeat(x[0])
    h = x
    for i in range(2):
        h = m(h) * 0.5
    return np.sum(h) + m.leaf.calls


def holder_made_in_a_branch(x):  # refused on main
    if x[0] > 0:
        m = Pair(x[1])
    else:
        m = Pair(x[2])
    return np.sum(m(x))


def methods_calling_methods(x):  # refused on main
    s = Steps(x[1])
    t = s.run(x)
    return np.sum(t ** 2) + s.total * x[3]


@pytest.mark.parametrize("f", [held_object_called, held_object_read, two_held_of_one_class,
                               held_two_levels_deep, held_called_in_a_loop,
                               holder_made_in_a_branch, methods_calling_methods])
def test_objects_holding_objects(f):
    check(f)


@pytest.mark.parametrize("f", [holder_made_in_a_branch, methods_calling_methods])
def test_objects_holding_objects_other_arm(f):
    check(f, -X)


# --- copy.deepcopy of an object -------------------------------------------------------------

class Params:
    def __init__(self, w, b):
        self.w = w
        self.b = b


class Holder:
    def __init__(self, a):
        self.a = a
        self.inner = Leaf(a[0])


def object_deep_copied(x):  # refused on main
    p = Params(x * 1.0, x[0])
    q = copy.deepcopy(p)
    q.w *= 2.0
    q.b += x[1]
    return np.sum(p.w * q.w) + q.b * p.b


def argument_held_deep_copied(x):  # refused on main
    p = Params(x, x[0])  # (p.w is x: its copy is a new array)
    q = copy.deepcopy(p)
    q.w += 1.0
    return np.sum(p.w * q.w) + np.sum(x ** 2)


def holder_deep_copied(x):  # refused on main
    m = Holder(x * 1.0)
    n = copy.deepcopy(m)
    n.a *= x
    return np.sum(m.a * n.a) + np.sum(n.inner(x)) + m.inner.calls


def original_changed_after_the_copy(x):  # refused on main
    p = Params(x * 1.0, x[0])
    q = copy.deepcopy(p)
    p.w = p.w * 3.0
    return np.sum(p.w * q.w) + q.b


def deep_copied_in_a_loop(x):  # refused on main
    p = Params(x * 1.0, x[0])
    for i in range(2):
        q = copy.deepcopy(p)
        q.w *= x[i]
        p = Params(q.w + p.w, q.b)
    return np.sum(p.w) * p.b


class Lists:
    def __init__(self, ws):
        self.ws = ws


def item_of_a_copy_set(x):  # refused on main
    p = Params(x * 1.0, x[0])
    q = copy.deepcopy(p)
    q.w[0] = 5.0  # (a value with a derivative: refused, q.w's dtype not established)
    q.w += x
    return np.sum(p.w ** 2) + np.sum(q.w * x)


def list_of_a_copy_changed(x):  # refused on main
    p = Lists([x * 1.0, x ** 2])
    q = copy.deepcopy(p)
    q.ws[0] += 1.0
    q.ws[1] *= x
    return np.sum(p.ws[0] * q.ws[0]) + np.sum(p.ws[1] * q.ws[1])


@pytest.mark.parametrize("f", [item_of_a_copy_set, list_of_a_copy_changed,
                               object_deep_copied, argument_held_deep_copied,
                               holder_deep_copied, original_changed_after_the_copy,
                               deep_copied_in_a_loop])
def test_object_deep_copied(f):
    check(f)


class Copied:
    def __init__(self, w):
        self.w = w

    def __call__(self, h):
        return np.tanh(self.w * h)


def object_of_a_class_copied_before(x):  # refused on main, after the copy below
    c = Copied(x[0])
    return np.sum(c(x))


def test_a_class_python_copied_before():
    copy.deepcopy(Copied(1.0))  # (copyreg caches Copied.__slotnames__ = [])
    assert "__slotnames__" in vars(Copied)
    check(object_of_a_class_copied_before)


# --- a view chosen by a test (each run on both arms: X and -X) ----------------------------

def chosen_by_a_test(x):  # refused on main
    y = np.zeros(4)
    c = x[0] > 0
    v = y[1:] if c else y[:3]
    v[0] = x[1] ** 2
    v += x[1:] * x[0]
    return np.sum(y * x) + np.sum(v * x[:3])


def chosen_by_a_test_rebound(x):  # refused on main
    y = np.zeros(4)
    c = x[0] > 0
    v = y[1:] if c else y[:3]
    c = not c  # (the view keeps the arm taken when it was made)
    v[0] = x[1]
    v += x[1:] * 2.0
    return np.sum(y * x) + (1.0 if c else 2.0)


def chosen_rows_in_if_arms(x):  # refused on main
    y = np.zeros((2, 4))
    if x[0] > 0:
        v = y[0]
    else:
        s = x[1] * 2.0
        v = y[1]
    v += x
    y[1, 2] = x[3] * x[0]
    return np.sum(y[0] * x) + np.sum(y[1] ** 2) + np.sum(v * x)


def chosen_in_a_loop(x):  # refused on main
    A = np.zeros((2, 4))
    for i in range(4):
        if x[i] > 0:
            v = A[0]
        else:
            v = A[1]
        v += x * (i + 1.0)
        v[i] = v[i] * x[i]
    return np.sum(A ** 2)


def chosen_numbers(x):  # (works on main: each arm a number, a copy)
    y = np.ones(4)
    v = y[0] if x[0] > 0 else y[1]
    v += x[0]
    y[0] = x[1]
    return v * y[0] + np.sum(y * x)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("f", [chosen_by_a_test, chosen_by_a_test_rebound,
                               chosen_rows_in_if_arms, chosen_in_a_loop, chosen_numbers])
def test_view_chosen_by_a_test(f, sign):
    check(f, X * sign)


# --- what stays refused, at the user's line ------------------------------------------------

def marked_line(f) -> int:
    lines, start = inspect.getsourcelines(f)
    return start + next(i for i, line in enumerate(lines) if "# <- refused" in line)


def flat_of_a_product(x):
    y = x * 2.0  # (not known an array where s2sad reads the code)
    y.flat[0] = 1.0  # <- refused
    return np.sum(y ** 2)


def chosen_from_two_arrays(x):
    y = np.zeros(4)
    z = np.zeros(4)
    v = y[1:] if x[0] > 0 else z[1:]  # (two arrays: not followed)
    v[0] = x[1]  # <- refused
    return np.sum(y * x) + np.sum(z)


class Hands:
    def __init__(self, w):
        self.leaf = Leaf(w)

    def get(self):
        return self.leaf  # (the held object itself: read as h.leaf since session 36)


def held_object_handed_out(x):
    h = Hands(x[0])
    leaf = h.get()
    return np.sum(leaf(x))


def test_held_object_handed_out_is_followed():  # (refused before session 36)
    check(held_object_handed_out)


class Recursive:
    def __init__(self, w):
        self.w = w

    def f(self, h, n):
        if n == 0:
            return h
        return self.f(h * self.w, n - 1)


def method_calling_itself(x):
    r = Recursive(x[0])
    return np.sum(r.f(x, 2))  # <- refused


class Dense:
    def __init__(self, w):
        self.w = w

    def __call__(self, h):
        return np.tanh(self.w * h)


class Sequential:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, h):
        for layer in self.layers:
            h = layer(h)  # (refused here, called from sequential_made_in_a_branch)
        return h


class Scale:
    def __init__(self, s):
        self.s = s

    def __call__(self, h):
        return h * self.s

    def norm(self):
        return self.s ** 2


class Stack:
    def __init__(self, layers, k):
        self.layers = layers
        self.k = k

    def __call__(self, h):
        for layer in self.layers:
            h = layer(h) * self.k
        return h

    def penalty(self):
        return self.layers[-1].norm() * len(self.layers)


def sequential_made_here(x):  # refused on main
    net = Sequential([Dense(x[0]), Dense(x[1])])
    return np.sum(net(x))


def stack_of_two_classes(x):  # refused on main
    net = Stack([Dense(x[0]), Scale(x[1]), Dense(x[2]), Scale(2.0)], 1.5)
    return np.sum(net(x)) + net.penalty()


def two_stacks(x):  # refused on main
    a = Stack([Dense(x[0]), Scale(x[1])], 1.0)
    b = Stack([Scale(x[2]), Dense(x[3]), Scale(x[0])], 0.5)
    return np.sum(b(a(x))) + a.penalty() * b.penalty()


def stack_made_in_a_loop(x):  # refused on main
    h = x
    for i in range(2):
        net = Stack([Dense(x[i]), Scale(x[i + 1])], 1.0)
        h = net(h)
    return np.sum(h)


@pytest.mark.parametrize("f", [sequential_made_here, stack_of_two_classes, two_stacks,
                               stack_made_in_a_loop])
def test_objects_holding_a_list_of_objects(f):
    check(f)


def sequential_made_in_a_branch(x):
    if x[0] > 0:  # (two lists of two lengths: one variable, not followed)
        net = Sequential([Dense(x[1]), Dense(x[2])])
    else:
        net = Sequential([Dense(x[2])])
    return np.sum(net(x))  # <- refused


def sequential_given(net, x):
    return np.sum(net(x))


def layers_looped_here(x):
    h = x
    for layer in [Dense(x[0]), Dense(x[1])]:  # (the advice of the refusal above)
        h = layer(h)
    return np.sum(h)


def test_sequential_made_in_a_branch_refused_at_the_lines():
    with pytest.raises(s2sad.errors.S2sadError) as info:
        s2sad.grad(sequential_made_in_a_branch)(X.copy())
    text = str(info.value)
    assert f"line {marked_line(sequential_made_in_a_branch)}\n" in text
    assert "net()" in text
    assert "for layer in [Dense(w1), Dense(w2)]" in text and "pass it as an argument" in text


def test_what_the_sequential_refusal_advises():
    check(layers_looped_here)
    net, step = Sequential([Dense(0.3), Dense(-0.6)]), 1e-6
    want = [(sequential_given(net, X + step * e) - sequential_given(net, X - step * e)) /
            (2 * step) for e in np.eye(4)]
    np.testing.assert_allclose(s2sad.grad(sequential_given, wrt=1)(net, X.copy()), want,
                               rtol=1e-6)


def one_array_in_two_attributes(x):
    y = x * 2.0
    p = Params(y, [y, 1.0])  # (p.w and p.b[0]: one array, which the copy holds once)
    q = copy.deepcopy(p)  # <- refused
    q.w *= 3.0
    return np.sum(q.b[0] * x)


def item_of_an_argument_object_set(p, x):
    p.w[0] = x[0]  # <- refused (the caller's array)
    return np.sum(p.w * x)


def flat_set_in_a_helper(y, v):
    y.flat[0] = v  # (a helper's: refused, as on main)
    return y


def flat_of_an_array_given_to_a_helper(x):
    y = np.zeros((2, 2))
    z = flat_set_in_a_helper(y, x[0])
    return np.sum(z * x.reshape(2, 2))


def test_flat_in_a_helper_refused():  # (crashed on the branch before the fix)
    with pytest.raises(s2sad.errors.S2sadError, match="y.flat"):
        s2sad.grad(flat_of_an_array_given_to_a_helper)(X.copy())


def test_item_of_an_argument_object_refused_at_the_line():
    with pytest.raises(s2sad.errors.S2sadError) as info:
        s2sad.grad(item_of_an_argument_object_set, wrt=1)(Params(np.ones(4), 1.0), X.copy())
    assert f"line {marked_line(item_of_an_argument_object_set)}\n" in str(info.value)
    assert "assignment into p.w" in str(info.value)


@pytest.mark.parametrize("f, words", [
    (one_array_in_two_attributes, ["copy.deepcopy(p)", "hold one object"]),
    (method_calling_itself, ["r.f()"]),
    (chosen_from_two_arrays, ["'v'", "'y'"]),
    (flat_of_a_product, ["y.flat", "t = y.flatten()"])])
def test_refused_at_the_line(f, words):
    with pytest.raises(s2sad.errors.S2sadError) as info:
        s2sad.grad(f)(X.copy())
    assert f"line {marked_line(f)}\n" in str(info.value)
    for word in words:
        assert word in str(info.value)
