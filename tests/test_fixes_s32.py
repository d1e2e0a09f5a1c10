"""Session 32: the known bugs session 31 left, each against central differences in float64
(a higher order against central differences of the order below it)."""

import itertools
import math

import numpy as np
import pytest

import s2sad
import s2sad.implementations
from tests.test_higher_order import central_differences

A23 = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.5]])
V23 = np.array([[0.5, 0.2, -0.8], [-0.3, 0.9, 0.1]])


def _derivatives(f, order):
    out = [f]
    for _ in range(order):
        out.append(s2sad.grad(out[-1]))
    return out


def _check_line(phi, order, t=0.2):
    """The ``order``-th derivative of ``phi`` at ``t`` against central differences of the
    one below it."""
    d = _derivatives(phi, order)
    np.testing.assert_allclose(d[-1](t), central_differences(d[-2], [t], 0), rtol=1e-6,
                               atol=1e-8)


# --- 1. x.tolist() where x's rank is unknown (a global moved along a line) ------------------

def rows_of_a_line(t):
    rows = np.sin(A23 + t * V23).tolist()
    return rows[0][1] * rows[1][0] ** 2 + sum(v * v * v for v in rows[1])


def test_tolist_of_an_array_of_unknown_rank_adds_its_rows_item_by_item():
    # (main: s_rows[1] += s_5 joined two lists, and broadcast_like saw a row of length 6)
    for order in (1, 2, 3):
        _check_line(rows_of_a_line, order)


# --- 2. a structure's zeros sized where the sweep first reads them --------------------------

def pooled(x):
    pools = [list(pool) for pool in (x, x[:2])]  # (the first sweep pops `pools` empty)
    total = 0.0
    for i in range(len(pools[0]) * len(pools[1])):
        total = total + pools[0][i // 2] * np.sin(pools[1][i % 2])
    return total


def appended_rows(x):
    rows = []
    for i in range(3):
        rows.append([x[i], x[i + 1]])
    return sum(r[0] * np.cos(r[1]) for r in rows)


def _sin_of_gradient(f):
    g = s2sad.grad(f)

    def sin_of_gradient(x):
        return np.sum(np.sin(g(x)))
    return sin_of_gradient


X4 = np.array([0.3, -1.2, 0.7, 1.1])


def test_a_list_built_by_a_comprehension_differentiated_twice_in_reverse():
    # (main: s_pools was zeros of the emptied list, made before the second sweep's
    # appends put its items back: IndexError)
    for f in (pooled, appended_rows):
        h = _sin_of_gradient(f)
        np.testing.assert_allclose(s2sad.grad(h)(X4), central_differences(h, [X4], 0),
                                   rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(s2sad.hessian(f)(X4),
                                   central_differences(s2sad.grad(f), [X4], 0),
                                   rtol=1e-6, atol=1e-8)


def product_pairs(x):
    return sum(a * b * b for a, b in itertools.product(x, x[:2]))


def test_itertools_product_through_its_comprehension_at_second_and_third_order():
    h = _sin_of_gradient(product_pairs)
    np.testing.assert_allclose(s2sad.grad(h)(X4), central_differences(h, [X4], 0),
                               rtol=1e-6, atol=1e-8)

    _check_line(_product_line, 2)


def _product_line(t):
    return product_pairs(X4 + t * np.array([0.2, 0.3, -0.5, 0.1]))


def test_itertools_product_at_third_order():
    _check_line(_product_line, 3)


# --- 3. tuples joined in a loop -----------------------------------------------------------

def joined_one(x, w):
    acc = ()
    for i in range(len(x)):
        acc = acc + (x[i] * w,)
    return sum(acc) * acc[0]


def joined_two(x, w):
    acc = ()
    for i in range(3):
        v = np.sin(x[i]) * w
        acc = acc + (v, v * v)
    return np.stack(acc).sum() + acc[1] * acc[4]


def joined_in_place(x, w):
    acc = ()
    for v in x:
        acc += (v * w * v,)
    return np.sum(np.stack(acc) ** 2)


def prepended(x, w):
    acc = tuple()  # (an empty tuple by its class: its kind known)
    for i in range(3):
        acc = (x[i] * w,) + acc
    return acc[0] * sum(acc)


W = 1.3
X3 = np.array([0.3, -1.2, 0.7])


def test_tuples_joined_in_a_loop_first_and_second_order():
    # (main: at second order the carried tuple, popped off a stack, was of unknown kind and
    # `acc + (v,)` was differentiated as an addition; `tuple() + ...` at first order too)
    for f in (joined_one, joined_two, joined_in_place, prepended):
        for wrt in (0, 1):
            g = s2sad.grad(f, wrt=wrt)
            np.testing.assert_allclose(g(X3, W), central_differences(f, [X3, W], wrt),
                                       rtol=1e-6, atol=1e-8)
    for f in (joined_one, joined_two, joined_in_place):
        np.testing.assert_allclose(s2sad.hessian(f)(X3, W),
                                   central_differences(s2sad.grad(f), [X3, W], 0),
                                   rtol=1e-6, atol=1e-8)
    for f in (joined_one, joined_two, joined_in_place):
        for wrt in (0, 1):
            g = s2sad.grad(f, wrt=wrt)

            def h(x, w):
                return np.sum(np.sin(g(x, w)))
            np.testing.assert_allclose(s2sad.grad(h, wrt=wrt)(X3, W),
                                       central_differences(h, [X3, W], wrt),
                                       rtol=1e-6, atol=1e-8)


# --- 6. messages; an update through an object's attribute ---------------------------------

class Holder:
    def __init__(self, data):
        self.data = data

    def loss(self, x):
        d = self.data
        d[0] = x[0]
        return np.sum(self.data * x)


def through_an_attribute(x, h):
    d = h.data  # (the array h holds: `.data` is no array's memoryview here)
    d[0] = x[0]
    return np.sum(h.data * x)


def test_an_update_through_an_objects_attribute_is_refused():
    # (main: d = h.data was read as a fresh value: the gradient missed h.data[0] = x[0],
    # silently [0.3, 0.2, 0.1] where it is [0.6, 0.2, 0.1])
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError, match="'d'.*the argument 'h'"):
        s2sad.grad(through_an_attribute)(X3.copy(), Holder(np.array([0.5, 0.2, 0.1])))
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError, match="the argument 'self'"):
        s2sad.grad(Holder(np.array([0.5, 0.2, 0.1])).loss)(X3.copy())


def test_an_attribute_is_not_named_an_argument():
    from s2sad.transforms.aliasing import _update_of
    assert _update_of("self.data", "self.data") == \
        "an in-place update of the attribute self.data"
    assert "the attribute k.w" in _update_of("v", "k.w")


K3 = np.array([1.0, 2.0, 3.0])


def closure_then_view_updated(x):
    a = x * 1.0

    def g():
        return np.sum(a * K3)
    v = a[1:]
    v[0] = x[0] ** 2
    return g()


def test_a_closure_reading_an_updated_array_says_what_to_do():
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError) as info:
        s2sad.grad(closure_then_view_updated)(X3.copy())
    text = str(info.value)
    assert "g() reads 'a' when it is called" in text, text
    assert "as an argument" in text and "`v = v.copy()`" in text, text


# --- 5. math.hypot of three or more, math.dist, math.fsum ---------------------------------

def hypot_three(x):
    return math.hypot(x[0], x[1], x[2]) * x[0] + math.hypot(x[3], 2.0, x[1] * x[2], x[0])


def distance_and_sums(x):
    return math.dist(x[:2], x[2:]) * x[0] + math.fsum([x[0], x[1] * x[2], 0.1]) * x[3] + \
        math.fsum(v * v for v in x)


def test_hypot_of_any_number_dist_and_fsum_to_third_order():
    # (main: "math.hypot is called in a way its derivative rule does not handle: too many
    # positional arguments"; math.fsum had no rule)
    for f in (hypot_three, distance_and_sums):
        g = s2sad.grad(f)
        np.testing.assert_allclose(g(X4), central_differences(f, [X4], 0), rtol=1e-6,
                                   atol=1e-8)
        np.testing.assert_allclose(s2sad.hessian(f)(X4), central_differences(g, [X4], 0),
                                   rtol=1e-6, atol=1e-8)
        h = _sin_of_gradient(f)
        np.testing.assert_allclose(s2sad.grad(h)(X4), central_differences(h, [X4], 0),
                                   rtol=1e-6, atol=1e-8)

        def line(t, f=f):
            return f(X4 + t * np.array([0.2, 0.3, -0.5, 0.1]))
        _check_line(line, 3)


def test_hypot_dist_fsum_keep_pythons_values():
    x = np.array([0.1, 0.2, 0.3, 1e-3])
    assert hypot_three(x) == math.hypot(x[0], x[1], x[2]) * x[0] + \
        math.hypot(x[3], 2.0, x[1] * x[2], x[0])
    from s2sad.implementations import dist, fsum
    assert dist(x[:2], x[2:]) == math.dist(x[:2], x[2:])
    assert fsum([0.1] * 10) == math.fsum([0.1] * 10) == 1.0
    with pytest.raises(ValueError):
        dist([1.0], [1.0, 2.0])


# --- 4. np.interp at a repeated knot and a repeated last knot ----------------------------

XP_INNER = np.array([0.0, 1.0, 1.0, 2.0])
XP_LAST = np.array([0.0, 1.0, 2.0, 2.0])
FP4 = np.array([0.5, 1.5, -1.0, 2.0])
WEIGHTS5 = np.array([1.0, 2.0, 3.0, 4.0, 5.0])


def interp_inner(x, fp):
    return np.sum(np.interp(x, XP_INNER, fp) * WEIGHTS5)


def interp_last(x, fp):
    return np.sum(np.interp(x, XP_LAST, fp) * WEIGHTS5)


def _forward_differences(f, args, wrt, eps=1e-7):
    x = np.asarray(args[wrt], dtype=float)
    out = np.zeros(x.shape)
    for k in range(x.size):
        up = list(args)
        up[wrt] = x + eps * (np.arange(x.size) == k)
        out[k] = (f(*up) - f(*args)) / eps
    return out


def test_interp_at_repeated_knots_follows_numpys_choice():
    # (main: a repeated last knot divided 0 by 0: NaN values and gradients; NumPy takes
    # the segment from the last of equal knots, and fp's last value at the last knot)
    for f, xp, x in ((interp_inner, XP_INNER, np.array([1.0, 0.7, 1.3, 0.0, 2.0])),
                     (interp_last, XP_LAST, np.array([2.0, 1.6, 0.4, 1.0, 2.5]))):
        for made in (np.interp, s2sad.implementations.interp):  # (the value NumPy's)
            np.testing.assert_array_equal(made(x, xp, FP4), np.interp(x, xp, FP4))
        gx, gf = s2sad.grad(f, wrt=(0, 1))(x, FP4)
        np.testing.assert_allclose(gf, central_differences(f, [x, FP4], 1), rtol=1e-9)
        # at a knot, NumPy's side: the segment to the right (beyond the last knot: flat)
        np.testing.assert_allclose(gx, _forward_differences(f, [x, FP4], 0), rtol=1e-5,
                                   atol=1e-6)
        away = x + 0.05  # (away from the knots: central differences)
        np.testing.assert_allclose(s2sad.grad(f)(away, FP4),
                                   central_differences(f, [away, FP4], 0), rtol=1e-6)
