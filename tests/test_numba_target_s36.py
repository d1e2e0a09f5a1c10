"""Session 36: a loop saves no shape for an array whose shape is the same on every pass,
proven by a fixed point over the loop (``s2sad.transforms.fixed_shapes``).

- The RNN's ``t_5 = W @ h`` has the shape ``(W.shape[0],)`` whatever ``h``'s length: its
  tape (``shape_of(t_5)`` pass by pass, ~420 of ~650 us in the numba kernel) is gone, on
  both targets. So for a ``while`` loop, and for ``np.zeros(n)`` with ``n`` read once.
- Where a shape changes from one pass to the next (``h`` of shape (1,) broadcast to (3,)
  on the first pass, ``h0`` of shape (1, 3) to (4, 3), a length grown pass by pass), the
  shape is still saved pass by pass, and the gradient stays right.

Every gradient is checked against float64 central differences, on the NumPy target and
(where numba is installed) the numba target. On main, 8 of these 16 fail: the RNN and
the ``np.zeros(n)`` loop on both targets (main saves their shapes pass by pass), and the 4
tests of ``fixed_shapes`` (a new module). The others guard what must stay: the tapes of
shapes that change, and an argument's own shape.
"""

import gast
import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences

try:
    import numba  # noqa: F401
    TARGETS = ["numpy", "numba"]
except ImportError:   # (the numba target's cases are skipped without it)
    TARGETS = ["numpy", pytest.param("numba", marks=pytest.mark.skip("numba not installed"))]


# --- shapes fixed across the passes: no tape of them -----------------------------------


def rnn(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def damped(W, x):
    h = x
    while np.sum(h * h) > 0.01:   # (a trip count the data decides)
        h = np.tanh(W @ h) * 0.5
    return np.sum(h * x)


def particles(x, v, k):
    n = x.shape[0]
    for _ in range(5):
        f = np.zeros(n)
        for i in range(n - 1):
            d = x[i + 1] - x[i]
            f[i] = f[i] + k * (d - 1.0)
            f[i + 1] = f[i + 1] - k * (d - 1.0)
        v = v + 0.01 * f
        x = x + 0.01 * v
    return np.sum(x * x)


# --- shapes that change from one pass to the next: their tape stays -------------------


def widening(x, c):
    h = np.ones(1)
    for t in range(3):
        z = h * c          # (1,) on the first pass, (3,) after it
        h = np.sin(z + x)
    return np.sum(h * h)


def rnn_broadcast(Wh, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(h @ Wh + xs[t])   # h @ Wh: (1, 3) on the first pass, (4, 3) after
    return np.sum(h ** 2)


def _check(f, args, wrt, target):
    g = s2sad.grad(f, wrt=wrt, target=target)
    got = g(*args)
    got = got if isinstance(wrt, tuple) else (got,)
    for i, grad in zip(wrt if isinstance(wrt, tuple) else (wrt,), got, strict=True):
        np.testing.assert_allclose(np.asarray(grad), central_differences(f, args, i),
                                   rtol=1e-6, atol=1e-8)
    return g.source_for(*args)


@pytest.mark.parametrize("target", TARGETS)
def test_the_rnn_saves_no_shape_of_its_product(target):
    rng = np.random.default_rng(36)
    W, xs = rng.standard_normal((4, 4)) * 0.4, rng.standard_normal((6, 4))
    source = _check(rnn, [W, xs], 0, target)
    assert "shape_of(" not in source and "t_5_saved" not in source, source
    assert "t_5 = " in source and "unbroadcast(s_7, like=t_5)" in source, source


@pytest.mark.parametrize("target", TARGETS)
def test_a_while_loop_saves_no_shape_of_its_product(target):
    rng = np.random.default_rng(7)
    W, x = rng.standard_normal((3, 3)), np.array([0.9, -0.7, 1.1])
    source = _check(damped, [W, x], (0, 1), target)
    assert "shape_of(" not in source, source


@pytest.mark.parametrize("target", TARGETS)
def test_zeros_of_a_length_read_once_save_no_shape(target):
    """``f = np.zeros(n)`` and ``0.01 * f`` keep ``n``'s length; ``v + 0.01 * f`` and ``x``
    may not (``v`` of length 1 broadcasts on the first pass): their shapes stay saved."""
    x, v = np.array([0.0, 1.2, 2.1, 3.3]), np.array([0.1, 0.0, -0.2, 0.3])
    source = _check(particles, [x, v, 2.0], (0, 1, 2), target)
    assert "shape_of(t_" not in source, source
    assert "v_saved" in source, source   # (the argument, before the first pass)


@pytest.mark.parametrize("target", TARGETS)
def test_an_argument_assigned_once_in_a_loop_keeps_the_shape_it_came_with(target):
    """``v`` of length 1 becomes ``v + 0.01 * f`` of length 4 on the first pass: every value
    the loop assigns has one shape, but the argument's own is another."""
    x = np.array([0.0, 1.2, 2.1, 3.3])
    source = _check(particles, [x, np.array([0.2]), 2.0], (0, 2), target)
    assert "shape_of(v)" in source, source


@pytest.mark.parametrize("target", TARGETS)
def test_a_shape_that_widens_on_the_first_pass_keeps_its_tape(target):
    rng = np.random.default_rng(1)
    x, c = rng.standard_normal(3), rng.standard_normal(1)
    source = _check(widening, [x, c], (0, 1), target)
    assert "shape_of(z)" in source, source
    if target == "numba":   # (a shape saved where it changes, and each turn's place)
        assert "new_shape(z_saved" in source, source


@pytest.mark.parametrize("target", TARGETS)
def test_a_product_that_broadcasts_on_the_first_pass_keeps_its_tape(target):
    rng = np.random.default_rng(2)
    Wh, xs, h0 = rng.standard_normal((3, 3)) / 2, rng.standard_normal((3, 4, 3)), \
        rng.standard_normal((1, 3))
    source = _check(rnn_broadcast, [Wh, xs, h0], (0, 2), target)
    assert "shape_of(" in source, source
    # (the same function, where h0 has the rows of xs[t]: the shape cannot be proven fixed
    # from the kinds, which say nothing of a length but 1 or not 1, and stays saved)
    _check(rnn_broadcast, [Wh, xs, rng.standard_normal((4, 3))], (0, 2), target)


# --- the analysis itself ---------------------------------------------------------------


def analysed(analysis, source: str, **kinds) -> list:
    """The sorted names ``analysis`` (``fixed_shapes``, ``fixed_rows``) finds in the function
    ``source``, given each name's ``(ndim, ones)`` (ndim 0: a number)."""
    from s2sad.transforms.kinds import Kind
    fn = gast.parse(source).body[0]
    table = {name: Kind("array", name, ndim, ones=ones) if ndim else Kind("scalar", "()", 0)
             for name, (ndim, ones) in kinds.items()}
    return sorted(analysis(fn, table, {"np": np, "len": len}.__getitem__))


def _fixed(source: str, **kinds):
    from s2sad.transforms.fixed_shapes import fixed_shapes
    return analysed(fixed_shapes, source, **kinds)


def test_fixed_shapes_proves_a_product_fixed_whatever_the_carried_length():
    assert _fixed('''def f(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(len(xs)):
        z = W @ h
        h = np.tanh(z + xs[t])
    return h''', W=(2, ()), xs=(2, ()), z=(1, None), h=(1, None)) == ["W", "xs", "z"]


def test_fixed_shapes_keeps_a_length_that_grows_pass_by_pass():
    """``n`` is 2, 3, 4... on the passes: ``np.ones(n)`` changes shape (the states at the
    loop's head never repeat: past four of them they are joined)."""
    assert _fixed('''def f(x):
    n = 1
    s = 0.0
    for t in range(5):
        n = n + 1
        z = np.ones(n) * x
        s = s + np.sum(z)
    return s''', x=(0, None), z=(1, None)) == []


def test_fixed_shapes_keeps_what_an_index_that_may_be_a_bool_gives():
    """``xs[b]`` with ``b`` an integer argument (a bool is one to the kinds analysis:
    ``xs[True]`` adds an axis), or a slice, is not known; ``xs[0]`` is."""
    assert _fixed('''def f(xs, b):
    for t in range(3):
        u = xs[b] * 2.0
        w = xs[1:] * 2.0
        y = xs[0] * 2.0
    return y''', xs=(2, ()), b=(0, None), u=(1, None), w=(2, None), y=(1, None)) == \
        ["xs", "y"]


def test_fixed_shapes_trusts_no_shape_changed_in_place():
    assert _fixed('''def f(x):
    for t in range(3):
        y = x * 2.0
        x.shape = (x.size,)
    return y''', x=(2, ()), y=(2, None)) == []
    assert _fixed('''def f(x, c):
    h = x
    for t in range(3):
        y = h * 2.0
        h = np.concatenate((h, c))
    return y''', x=(1, ()), c=(1, ()), y=(1, None), h=(1, None)) == ["c", "x"]
