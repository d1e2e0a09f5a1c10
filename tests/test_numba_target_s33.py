"""``target="numba"``, session 33: NumPy's vectorized functions in fused loops.

numba calls the C library's ``tanh`` and ``exp`` one element at a time (about 20 ns
each); NumPy's own loops are vectorized. A fused loop's calls of them on what the run
reads from outside it are split out: the loop runs over blocks of 65536 elements (BLOCK),
numba computes each call's argument into an array, NumPy the function in place (in a
``numba.objmode`` block, from 256 elements), and the loop reads the values. So the
values are NumPy's exactly. Every gradient is checked against the NumPy target and
against central differences in float64. Skipped without numba.
"""

import numpy as np
import pytest

import s2sad
from s2sad.transforms.numba_fusion import BLOCK
from tests.test_higher_order import central_differences

numba = pytest.importorskip("numba")


def elementwise(x):
    return np.sum(np.tanh(x) * np.exp(-0.5 * x * x) + np.log(1.0 + x * x))


def two_arrays(x, y):
    return np.sum(np.sin(x) * y + np.cos(x * y) / (1.0 + y * y))


def chained(x, a):   # (np.exp of the run's own tanh: left in the loop)
    return np.sum(np.exp(np.tanh(a * x)) + np.arctan(x))


def branches(x):   # (np.log under np.where: NumPy would take it of every element)
    return np.sum(np.where(x > 0.0, np.log(1.0 + x), x) * np.exp(x))


RNG = np.random.default_rng(33)
LONG = 2 * BLOCK + 100   # (three blocks: the last of 100 elements)


def _parts(value):
    return value if isinstance(value, tuple) else (value,)


def _directional(f, args, wrt, grad, rng, h=1e-6):
    """Central differences of ``f`` along two random directions of argument ``wrt``,
    against ``grad`` (the gradient) dotted with them."""
    for _ in range(2):
        v = rng.standard_normal(np.shape(args[wrt]))
        up, down = list(args), list(args)
        up[wrt], down[wrt] = args[wrt] + h * v, args[wrt] - h * v
        slope = (f(*up) - f(*down)) / (2 * h)
        np.testing.assert_allclose(np.dot(grad, v), slope, rtol=1e-6)


CASES = [  # (id, function, arguments, wrt, the split calls the kernel shows, whether
    # every call is split: then the values are NumPy's exactly)
    ("tanh and exp", elementwise, (RNG.standard_normal(LONG),), 0,
     ["in_place(np.tanh, x_j, tanh_1, np.exp, exp_2, exp_2)"], True),
    ("two arrays", two_arrays, (RNG.standard_normal(LONG), RNG.uniform(0.5, 2.0, LONG)),
     (0, 1), ["in_place(np.cos, cos_1, cos_1, np.sin, sin_2, sin_2, np.sin, x_j, sin_3, "
              "np.cos, x_j, cos_4)"], True),
    ("chained", chained, (RNG.standard_normal(LONG), 0.7), 0,
     ["in_place(np.tanh, tanh_1, tanh_1)"], False),
]


@pytest.mark.parametrize("f, args, wrt, shown, exact", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_split_calls_give_numpys_gradient(f, args, wrt, shown, exact):
    df = s2sad.grad(f, wrt, target="numba")
    source = df.source_for(*args)
    assert "with numba.objmode():" in source and all(s in source for s in shown), source
    got, expected = df(*args), s2sad.grad(f, wrt)(*args)
    rng = np.random.default_rng(0)
    for g, e, w in zip(_parts(got), _parts(expected), _parts(wrt), strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        if exact:   # (NumPy's tanh, exp: the same values)
            np.testing.assert_array_equal(g, e)
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=1e-15)
        _directional(f, args, w, g, rng)


def test_a_call_on_the_runs_own_values_or_in_a_branch_stays_in_the_loop():
    x = RNG.standard_normal(LONG)
    source = s2sad.grad(chained, target="numba").source_for(x, 0.7)
    assert "np.exp(t_" in source and "in_place(np.exp" not in source, source
    x = RNG.uniform(-0.9, 2.0, LONG)   # (np.log(1.0 + x): no warning in NumPy's code)
    source = s2sad.grad(branches, target="numba").source_for(x)
    assert "in_place(np.log" not in source and "in_place(np.exp, x_j" in source, source
    got = s2sad.grad(branches, target="numba")(x)
    np.testing.assert_allclose(got, s2sad.grad(branches)(x), rtol=1e-12, atol=1e-15)
    _directional(branches, (x,), 0, got, np.random.default_rng(1))


@pytest.mark.parametrize("n", [5, 255, 256, BLOCK + 1], ids=lambda n: f"{n} elements")
def test_each_length_against_central_differences(n):
    """Below 256 elements a block is numba's own code (the C library's tanh: NumPy's to
    rounding); from 256, NumPy's (exactly)."""
    x = RNG.standard_normal(n)
    df = s2sad.grad(elementwise, target="numba")
    got, expected = df(x), s2sad.grad(elementwise)(x)
    if n >= 256:
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    if n <= 256:
        np.testing.assert_allclose(got, central_differences(elementwise, (x,), 0),
                                   rtol=1e-6, atol=1e-8)
    else:
        _directional(elementwise, (x,), 0, got, np.random.default_rng(2))


def test_a_strided_argument_and_an_overflow_warn_of_nothing():
    """NumPy's exp of 800 overflows to inf (NumPy warns; numba's code does not, nor the
    split call: pytest turns warnings into errors here)."""
    def f(x):
        return np.sum(np.exp(x) * np.tanh(x))
    x = RNG.standard_normal(2 * LONG)[::2].copy()
    x[7] = 800.0
    view = np.empty(2 * LONG)[::2]
    view[:] = x
    got = s2sad.grad(f, target="numba")(view)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = s2sad.grad(f)(x)
    np.testing.assert_array_equal(got, expected)
    assert not np.isfinite(got[7]) and np.isfinite(np.delete(got, 7)).all()
    x[7] = 0.5
    _directional(f, (x,), 0, s2sad.grad(f, target="numba")(x), np.random.default_rng(3))


def test_the_helper_takes_a_name_no_variable_of_the_kernel_has():
    """(a kernel's variable named ``in_place``: numba would call it in the block)"""
    import ast

    from s2sad.backends.numba_backend import NUMBA
    from s2sad.runtime.numba_fused import in_place
    from s2sad.transforms.numba_fusion import ElementwiseFusion
    text = ("def kernel(x, y):\n    in_place = np.cumsum(x)\n    t = np.tanh(x)\n"
            "    u = t * y\n    return u + in_place\n")
    kernel, wrapper = ast.parse(text).body[0], ast.parse(
        "def wrapper(x, y):\n    return kernel(x, y)").body[0]
    kinds = {"x": ("nd", 1, "f", ()), "y": ("nd", 1, "f", ())}
    done = ElementwiseFusion(kinds, "np", NUMBA).run(kernel, wrapper)
    shown = ast.unparse(ast.fix_missing_locations(done.kernel))
    assert "in_place_(np.tanh, x_j, tanh_1)" in shown and \
        "in_place as in_place_" in done.helpers, shown
    namespace = {"np": np, "numba": numba, "in_place_": in_place}
    exec(shown, namespace)
    x, y = RNG.standard_normal(300), RNG.standard_normal(300)
    expected = {"np": np}
    exec(text, expected)
    np.testing.assert_array_equal(numba.njit(namespace["kernel"])(x, y),
                                  expected["kernel"](x, y))


# --- derivatives of derivatives: refused at the call, target="numpy" makes them ----------

def speelpenning(x):
    p = 1.0
    for i in range(x.shape[0]):
        p = p * x[i]
    return p


def while_loop(x):
    while x < 5.0:
        x = x * 1.2 + np.sin(x) * 0.1 + 0.2
    return x


@pytest.mark.parametrize("f, x", [(speelpenning, np.array([1.1, 0.9, 1.2, 0.8])),
                                  (while_loop, 0.7)], ids=["range loop", "while loop"])
def test_derivatives_of_derivatives_are_refused_and_numpy_makes_them(f, x):
    """(pins the refusal: the numba target compiles first derivatives only)"""
    for make in (lambda: s2sad.hessian(f, target="numba"),
                 lambda: s2sad.grad(s2sad.grad(f, target="numba"))):
        with pytest.raises(s2sad.errors.DifferentiationError, match="target='numpy'"):
            make()
    first = s2sad.grad(f, target="numba")
    if isinstance(x, float):
        second = s2sad.grad(s2sad.grad(f))(x)
        h = 1e-6
        np.testing.assert_allclose(second, (first(x + h) - first(x - h)) / (2 * h), rtol=1e-5)
    else:
        np.testing.assert_allclose(s2sad.hessian(f)(x), central_differences(first, (x,), 0),
                                   rtol=1e-6, atol=1e-8)


# -- range loops' tapes: the arrays a turn saves as rows of one buffer, the shapes a turn
# saves once for each run of turns that saves the same shape (session 33)

def rnn(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def growing(x, c):   # (h one item longer each turn: rows of each length, shapes changing)
    h = np.ones(1)
    for t in range(x.shape[0]):
        h = np.sin(x[:t + 1] * c + np.sum(h))
    return np.sum(h * h)


def mixed(x, a):   # (rows of 3 items, then of 2: the buffer grows after its first turns)
    h = np.zeros(3)
    for t in range(x.shape[0]):
        h = np.cos(x[t, :3 - t // 4] * a + np.sum(h * h))
    return np.sum(h)


def shapes(x, xs):   # (x's items 2, 3 or 4 long a turn; h of 4 items)
    h = np.zeros(4)
    for t in range(xs.shape[0]):
        h = np.tanh(np.sum(x[t, :2 + t % 3] * h[:2 + t % 3]) + xs[t])
    return np.sum(h * h)


def updated(x):   # (h written into after it is saved: a list of arrays, as before)
    h = np.zeros(x.shape[1])
    for t in range(x.shape[0]):
        h = np.tanh(h + x[t])
        h[0] = h[0] * 2.0
    return np.sum(h * h)


TURN_RNG = np.random.default_rng(3301)   # (RNG's draws for the tests above kept)
TURN_CASES = [
    ("rnn", rnn, (TURN_RNG.standard_normal((8, 8)) * 0.3, TURN_RNG.standard_normal((50, 8))), 0),
    ("growing", growing, (TURN_RNG.standard_normal(9) * 0.2, 0.3), (0, 1)),
    ("mixed", mixed, (TURN_RNG.standard_normal((12, 3)), 0.4), (0, 1)),
    ("shapes", shapes, (TURN_RNG.standard_normal((7, 4)) * 0.5, TURN_RNG.standard_normal((7, 4))), (0, 1)),
]


def _slopes(f, args, index, grad, rng, h=1e-6):
    """Central differences of ``f`` along two random directions of argument ``index``
    (an array of any shape, or a number) against ``grad`` summed with them."""
    for _ in range(2):
        v = rng.standard_normal(np.shape(args[index]))
        up, down = list(args), list(args)
        up[index], down[index] = args[index] + h * v, args[index] - h * v
        np.testing.assert_allclose(np.sum(grad * v), (f(*up) - f(*down)) / (2 * h),
                                   rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, args, wrt", [c[1:] for c in TURN_CASES],
                         ids=[c[0] for c in TURN_CASES])
def test_rows_and_shapes_of_a_range_loop(f, args, wrt):
    df = s2sad.grad(f, wrt, target="numba")
    kernel = df.source_for(*args).split("def kernel_", 1)[1]
    if f is rnn:   # (W @ h ran: every h saved has W's columns, rows of a 2-d array: s37)
        assert "grid_tape(" in kernel and "h = h_saved[t]" in kernel, kernel
    else:
        assert "row_tape(" in kernel and "put_row(" in kernel and "row_of(" in kernel, kernel
    assert ".append(tape_value(h))" not in kernel, kernel
    if f is rnn:   # (W @ h has one shape on every turn, a fixed point proves: none saved)
        assert "shape_of(" not in kernel, kernel
    got = _parts(df(*args))
    want = _parts(s2sad.grad(f, wrt)(*args))
    for one, other in zip(got, want):
        np.testing.assert_allclose(one, other, rtol=1e-12, atol=1e-14)
    for k, index in enumerate(wrt if isinstance(wrt, tuple) else (wrt,)):
        _slopes(f, args, index, got[k], np.random.default_rng(k))


def test_an_array_written_into_keeps_its_list():
    x = TURN_RNG.standard_normal((6, 4))
    df = s2sad.grad(updated, target="numba")
    kernel = df.source_for(x).split("def kernel_", 1)[1]
    assert "put_row(" not in kernel, kernel
    got = df(x)
    np.testing.assert_allclose(got, s2sad.grad(updated)(x), rtol=1e-12)
    _slopes(updated, (x,), 0, got, np.random.default_rng(5))


def test_row_tape_helpers_against_a_list():
    from s2sad.runtime.numba_tape import new_shape, put_row, row_of, row_tape

    @numba.njit
    def rows_back(values_lengths):
        n = len(values_lengths)
        rows, at = row_tape(n, np.zeros(1))
        for t in range(n):
            rows = put_row(rows, at, t, np.arange(values_lengths[t]) + 10.0 * t)
        total = 0.0
        for t in range(n - 1, -1, -1):
            row = row_of(rows, at, t)
            if len(row) != values_lengths[t]:
                return -1.0
            for k in range(len(row)):
                if row[k] != k + 10.0 * t:
                    return -1.0
                total += row[k]
        return total

    for lengths in ([3, 3, 3], [3, 1, 5, 5, 0, 7], [0, 0], []):
        lengths = np.array(lengths, np.int64)
        want = sum(float(np.sum(np.arange(m) + 10.0 * t)) for t, m in enumerate(lengths))
        assert rows_back(lengths) == want

    @numba.njit
    def places(sizes):
        saved, at = [np.zeros(0)], np.zeros(len(sizes), np.int64)
        saved.pop()
        for t in range(len(sizes)):
            value = np.zeros(sizes[t])
            if new_shape(saved, value):
                saved.append(value)
            at[t] = len(saved) - 1
        return len(saved), at

    count, at = places(np.array([2, 2, 3, 3, 3, 2]))
    assert count == 3 and list(at) == [0, 0, 1, 1, 1, 2]


def test_add_outer_as_numpys_in_place_sum():
    from s2sad.runtime.numba_tape import add_outer

    @numba.njit
    def run(total, a, b):
        return add_outer(total, a, b)

    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(3), rng.standard_normal(4)
    total = rng.standard_normal((3, 4))
    want = total + np.outer(a, b)
    got = run(total, a, b)
    assert got is not None and np.array_equal(total, want)   # (in place, items as NumPy's)
    total = rng.standard_normal((4, 4))   # (a row of total itself: the product made first)
    want = total + np.outer(total[1], b)
    run(total, total[1], b)
    np.testing.assert_array_equal(total, want)
    total = rng.standard_normal((4, 4))   # (a column of it, strided)
    want = total + np.outer(a[:1].repeat(4), total[:, 2])
    run(total, a[:1].repeat(4), total[:, 2])
    np.testing.assert_array_equal(total, want)
    total = np.asfortranarray(rng.standard_normal((3, 4)))   # (not C-contiguous)
    want = total + np.outer(a, b)
    run(total, a, b)
    np.testing.assert_array_equal(total, want)
    with pytest.raises(ValueError):   # (a shape that does not match: NumPy refuses it too)
        run(np.zeros((2, 4)), a, b)


def test_the_rnn_adds_its_outer_products_in_place():
    W, xs = TURN_CASES[0][2]
    kernel = s2sad.grad(rnn, target="numba").source_for(W, xs).split("def kernel_", 1)[1]
    assert "s_W = add_outer(s_W, " in kernel and "outer_small" not in kernel, kernel


def test_a_turn_beyond_the_tape_raises():
    from s2sad.runtime.numba_tape import put_place, put_row, row_of, row_tape, shape_places

    @numba.njit
    def write(turn):
        rows, at = row_tape(2, np.zeros(1))
        return put_row(rows, at, turn, np.ones(3))

    @numba.njit
    def read(turn):
        rows, at = row_tape(1, np.zeros(1))
        rows = put_row(rows, at, 0, np.ones(3))
        return row_of(rows, at, turn)

    @numba.njit
    def place(turn):
        places = shape_places(2)
        put_place(places, turn, 0)
        return places

    assert len(write(0)) == 6 and len(read(0)) == 3 and len(place(1)) == 2   # (two rows made)
    for call, turn in ((write, 2), (write, -1), (read, 1), (place, 2)):
        with pytest.raises(IndexError):
            call(turn)
