"""``target="numba"``, session 31: the entry of a compiled gradient calls numba's compiled
function itself where the arguments' kinds are exactly those it was compiled for.

numba's dispatcher types every argument at each call (about a tenth of the whole call of
Speelpenning's loop). The kernel is compiled once for every array of the argument's dtype
and number of axes (any strides, read-only or not), and the variant's entry, whose guard
already reads each array's type, ``ndim`` and dtype, calls that compiled function when
they are exactly those; anything else goes the way it went (the guard on the
descriptions, numba's dispatcher). Every gradient is checked against central differences
in float64 (or against the NumPy target, itself so checked). Skipped without numba.
"""

import inspect
import math

import numpy as np
import pytest

import s2sad

numba = pytest.importorskip("numba")


def speelpenning(x):  # (its own function: the test reads the variants of its gradient)
    p = 1.0
    for i in range(x.shape[0]):
        p = p * x[i]
    return p


def euler(y0, k):
    y = y0
    for _ in range(50):
        y = y + 0.01 * (-k * y + math.sin(y))
    return y


def rnn(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def scaled(x, c=2.0):
    total = 0.0
    for i in range(x.shape[0]):
        total = total + c * math.sin(x[i])
    return total


def central(f, args, index, h=1e-6):
    """The gradient of ``f`` at ``args`` with respect to ``args[index]`` (a float or a
    float array), by central differences."""
    x = args[index]
    if not isinstance(x, np.ndarray):
        up, down = list(args), list(args)
        up[index], down[index] = x + h, x - h
        return (f(*up) - f(*down)) / (2 * h)
    flat = np.array(x, dtype=np.float64).ravel()
    out = np.empty_like(flat)
    for i in range(flat.size):
        step = np.zeros_like(flat)
        step[i] = h
        up, down = list(args), list(args)
        up[index] = (flat + step).reshape(x.shape)
        down[index] = (flat - step).reshape(x.shape)
        out[i] = (f(*up) - f(*down)) / (2 * h)
    return out.reshape(x.shape)


def _fast_cell(grad):
    entry = grad._entry
    return dict(zip(entry.__code__.co_freevars, entry.__closure__))["_s2sad_fast"]


def test_the_entry_calls_numbas_compiled_function_for_exact_kinds():
    from s2sad.transforms.numba_kernel import exact_kinds
    x = np.linspace(0.9, 1.1, 7)
    g = s2sad.grad(speelpenning, target="numba")
    for _ in range(3):
        got = g(x)
    np.testing.assert_allclose(got, central(speelpenning, (x,), 0), rtol=1e-7)
    (variant,) = g._variants.values()
    point = variant.kernel.points[exact_kinds((x,))]
    assert point is not None and _fast_cell(g).cell_contents is point  # (no dispatcher)
    assert point is not variant.function.__globals__[variant.kernel.name]
    assert variant.kernel.seconds is not None and variant.kernel.seconds > 0


@pytest.mark.parametrize("make", [
    lambda x: x[::2], lambda x: x[::-1], lambda x: x.astype(np.float32),
    lambda x: np.asfortranarray(x),
    lambda x: np.broadcast_to(x[0], x.shape),  # (read-only, stride 0)
], ids=["strided", "reversed", "float32", "fortran", "read-only"])
def test_arrays_of_other_layouts_and_dtypes_through_the_same_gradient(make):
    x = np.linspace(0.9, 1.1, 8)
    g = s2sad.grad(speelpenning, target="numba")
    g(x), g(x)  # (the variant's entry, its compiled function found)
    other = make(x)
    got = g(other)
    expected = central(speelpenning, (np.array(other, dtype=np.float64),), 0)
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), expected,
                               rtol=1e-3 if other.dtype == np.float32 else 1e-7)
    assert got.dtype == (np.float32 if other.dtype == np.float32 else np.float64)
    assert got.flags.writeable
    np.testing.assert_allclose(g(x), central(speelpenning, (x,), 0), rtol=1e-7)  # (again)


def test_numbers_of_each_type_take_their_own_way():
    g = s2sad.grad(euler, target="numba")  # (wrt y0; k a float, then an int, then a float)
    for args in [(0.5, 2.0), (0.5, 2.0), (0.5, 3), (0.5, 3), (0.7, 2.5), (0.7, 2.5)]:
        got = g(*args)
        assert type(got) is float
        assert got == pytest.approx(central(euler, args, 0), rel=1e-6)
        assert got == s2sad.grad(euler)(*args)
    assert len(g._variants) == 2


def test_a_product_of_arrays_is_compiled_as_numba_types_it_with_no_warning():
    # (numba warns that @ is faster on contiguous arrays: the kernel is compiled for the
    # arguments' own types, and pytest's warnings-as-errors says none leaked)
    rng = np.random.default_rng(31)
    W, xs = rng.standard_normal((4, 4)) * 0.3, rng.standard_normal((6, 4))
    g = s2sad.grad(rnn, target="numba")
    for _ in range(3):
        got = g(W, xs)
    np.testing.assert_allclose(got, central(rnn, (W, xs), 0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g(np.asfortranarray(W), xs), got, rtol=1e-12)


def test_defaults_are_read_before_the_compiled_function_is_called():
    x = np.linspace(0.1, 0.7, 5)
    g = s2sad.grad(scaled, target="numba")
    for _ in range(3):
        np.testing.assert_allclose(g(x), central(scaled, (x,), 0), rtol=1e-7)
    np.testing.assert_allclose(g(x, 3.0), central(scaled, (x, 3.0), 0), rtol=1e-7)
    scaled.__defaults__ = (5.0,)
    try:
        np.testing.assert_allclose(g(x), central(scaled, (x,), 0), rtol=1e-7)
        np.testing.assert_allclose(g(x), 5.0 * np.cos(x), rtol=1e-12)
    finally:
        scaled.__defaults__ = (2.0,)


def test_a_gradient_is_still_called_like_the_function():
    g = s2sad.grad(speelpenning, target="numba")
    assert str(inspect.signature(g)) == "(x)" and callable(g)
    with pytest.raises(TypeError, match="grad_speelpenning"):
        g()
    with pytest.raises(TypeError, match="grad_speelpenning"):
        g(np.ones(3), np.ones(3))


# --- structural zeros on numba: a sensitivity added to on some paths only -------------------
# (NumPy's code starts it as 0.0 and adds an array on one path; numba gives a name one type
# on every path: it starts as zeros shaped like the argument, and the rule of a value no one
# read on the path taken is left out, as on the NumPy target: np.sqrt's slope at 0 is inf)


def branch_read(x, k):
    y = np.sqrt(x - 2.0)
    z = x * 3.0
    if k == 0:
        return np.sum(z)
    return np.sum(y)


def read_on_one_turn(x, n):
    y = np.sqrt(x - 2.0)
    total = 0.0
    for i in range(n):
        if i == 5:
            total = total + np.sum(y)
        total = total + np.sum(x * 3.0)
    return total


def read_in_a_while_branch(x, k):
    y = np.sqrt(x - 2.0)
    s = 0.0
    i = 0
    while i < 3:
        if k == 1:
            s = s + np.sum(y)
        s = s + np.sum(x) * 2.0
        i += 1
    return s


@pytest.mark.parametrize("f, at, other", [
    (branch_read, 0, 1), (read_on_one_turn, 3, 7), (read_in_a_while_branch, 0, 1)],
    ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_sensitivity_added_to_on_some_paths_compiles_and_adds_nothing_unread(f, at, other):
    x = np.array([2.0, 3.0, 4.0])  # (y's first item: sqrt(0), slope inf, unread at `at`)
    g = s2sad.grad(f, target="numba")
    with np.errstate(invalid="ignore", divide="ignore"):
        got = g(x, at)
        expected = central(lambda v: f(v, at), (x + np.array([1e-3, 0.0, 0.0]),), 0)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(got, s2sad.grad(f)(x, at), rtol=1e-12)
    inside = np.array([2.5, 3.0, 4.0])  # (read where its slope is finite)
    np.testing.assert_allclose(g(inside, other), central(lambda v: f(v, other), (inside,), 0),
                               rtol=1e-6)
