"""Issue 39 §1, session 29: what the kinds decide is written as NumPy, and checked.

Each case differentiates a function, looks for (or against) a spelling in its source, and
checks the gradient against central differences in float64.
"""

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences

RNG = np.random.default_rng(29)


def softmax_xent(logits, labels):
    m = np.max(logits, axis=1, keepdims=True)
    logp = logits - m - np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
    return -np.mean(np.sum(labels * logp, axis=1))


def mean_axis0(x):
    return np.sum(np.sin(np.mean(x, axis=0)))


def mean_last_keepdims(x):
    return np.sum((x - np.mean(x, axis=-1, keepdims=True)) ** 2)


def _one_hot(rows, classes):
    return np.eye(classes)[RNG.integers(0, classes, rows)]


def sin_sum(x):
    return np.sum(np.sin(x))


def cos_bias(b, x):
    return np.sum(np.cos(x + b) * x)


def sign_abs(x, y):
    return np.sum(np.abs(x - y))


# (name, function, arguments, spellings the source has, spellings it has not)
CASES = [
    ("sin-sum", sin_sum, (RNG.normal(size=(3, 2)),), ["s_x = np.cos(x)\n"], ["sum_grad"]),
    ("cos-bias", cos_bias, (RNG.normal(size=3), RNG.normal(size=(4, 3))), [".sum(axis=0)"],
     ["sum_grad", "unbroadcast"]),
    ("sign", sign_abs, (RNG.normal(size=4), RNG.normal(size=4)), ["s_x = np.sign(x - y)"],
     ["sum_grad"]),
    ("softmax-xent", softmax_xent, (RNG.normal(size=(4, 3)), _one_hot(4, 3)),
     ["s_logp = -labels / labels.shape[0]"], ["reduced_size", "sum_grad"]),
    ("mean-axis0", mean_axis0, (RNG.normal(size=(5, 3)),), ["/ x.shape[0]"],
     ["reduced_size"]),
    ("mean-last-keepdims", mean_last_keepdims, (RNG.normal(size=(2, 4)),),
     ["/ x.shape[1]"], ["reduced_size"]),
]


@pytest.mark.parametrize("name,f,args,has,has_not", CASES, ids=[c[0] for c in CASES])
def test_spelled_as_numpy_and_right(name, f, args, has, has_not):
    gradient = s2sad.grad(f)
    source = gradient.source_for(*args)
    for text in has:
        assert text in source, source
    for text in has_not:
        assert text not in source, source
    expected = central_differences(f, args, 0)
    np.testing.assert_allclose(gradient(*args), expected, rtol=1e-6, atol=1e-8)


def test_softmax_xent_of_an_empty_batch_is_empty():
    """A mean over no rows divides by a size of 0: the spread keeps NumPy's array division
    (an empty result), not a Python number's (ZeroDivisionError)."""
    gradient = s2sad.grad(softmax_xent)
    found = gradient(np.zeros((0, 3)), np.zeros((0, 3)))
    assert found.shape == (0, 3)


# --- a product by 1.0 of real floats is the floats ------------------------------------

def on_float(x):
    return np.cos(x) * np.exp(x)


def items(x):
    return x[0] * x[2] + np.sin(x[-1])


def unpacked(x):
    a, b, c = x
    return a * b + np.sin(c) * a


def exp_sum(x):
    return np.sum(np.exp(x) * x)


@pytest.mark.parametrize("f,arg", [
    (on_float, 0.3),
    (items, RNG.normal(size=4)),
    (unpacked, RNG.normal(size=3)),
], ids=["python-float", "items", "unpacked"])
def test_times_one_folded_where_floats(f, arg):
    gradient = s2sad.grad(f)
    source = gradient.source_for(arg)
    assert "* 1.0" not in source and "1.0 *" not in source, source
    expected = central_differences(f, (arg,), 0)
    np.testing.assert_allclose(gradient(arg), expected, rtol=1e-6, atol=1e-8)


def test_times_one_kept_where_it_would_share_an_array():
    """``s_x = t_1 * 1.0`` (``t_1 = np.exp(x)``) is a new array: ``s_x = t_1`` would add
    the next term into ``t_1`` itself."""
    x = RNG.normal(size=5)
    gradient = s2sad.grad(exp_sum)
    assert "t_1 * 1.0" in gradient.source_for(x)
    np.testing.assert_allclose(gradient(x), central_differences(exp_sum, (x,), 0),
                               rtol=1e-6, atol=1e-8)


def scaled_items(w, n):
    return w[0] * n[1] + w[1] * n[0]


def test_times_one_of_integers_stays():
    """``n[1] * 1.0`` of an integer array is a float: not folded (the sensitivity of an
    item of ``w`` stays a float)."""
    import gast
    from s2sad.codegen import unparse
    from s2sad.transforms.kinds import Kind
    from s2sad.transforms.plain_numpy import PlainNumpy
    tree = gast.parse("def g(w, n):\n    t_1 = np.exp(w)\n    s_a = n[1] * 1.0 + t_1\n"
                      "    s_b = w[0] * 1.0 + t_1\n    s_c = t_1 * 1.0\n    s_c += t_1 * 1.0\n"
                      "    return s_a, s_b, s_c").body[0]
    kinds = {"w": Kind("array", "w", 1, ones=()), "n": Kind("array", "n", 1, ones=())}
    text = unparse(PlainNumpy(kinds, {}, "np", floats=frozenset({"w"})).visit(tree))
    assert "s_a = n[1] * 1.0 + t_1" in text          # integers: * 1.0 makes floats
    assert "s_b = w[0] + t_1" in text                 # floats: the same bits
    assert "s_c = t_1 * 1.0" in text                  # a new array, not t_1's memory
    assert "s_c += t_1\n" in text                     # added into s_c: t_1 only read
    w, n = RNG.normal(size=2), np.array([3, 5])
    found = s2sad.grad(scaled_items)(w, n)
    assert found.dtype == np.float64
    np.testing.assert_allclose(found, central_differences(scaled_items, (w, n), 0),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("line,expected", [
    ("s_y = --1.0 * math.sin(y)", "s_y = 1.0 * math.sin(y)"),
    ("s_y = -(-2) * y", "s_y = 2 * y"),
    ("s_y = -1.0 * y", "s_y = -1.0 * y"),
    ("s_y = --y", "s_y = --y"),          # (an array's negation is a new array: kept)
])
def test_double_sign_of_a_number_folded(line, expected):
    import gast
    from s2sad.codegen import unparse
    from s2sad.transforms.readable import Readable
    assert unparse(Readable({}).visit(gast.parse(line))).strip() == expected


def chain(y):
    return np.cos(y) + y


def test_double_sign_gradient_right():
    np.testing.assert_allclose(s2sad.grad(chain)(0.7), -np.sin(0.7) + 1.0, rtol=1e-12)


# --- a sum the compiler writes, of an array of known kind, is the array's own method -------

def two_layers(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    return np.sum((z - Y) ** 2) / X.shape[0]


def test_bias_sums_are_methods_and_right():
    """``s_b = s_z.sum(axis=0)``: the same reduction as ``np.sum`` (NumPy's np.sum calls
    it), less its dispatch; the user's own ``np.sum`` lines stay as written."""
    args = (RNG.normal(size=(4, 3)), RNG.normal(size=3), RNG.normal(size=(3, 2)),
            RNG.normal(size=2), RNG.normal(size=(5, 4)), RNG.normal(size=(5, 2)))
    gradient = s2sad.grad(two_layers, wrt=(0, 1, 2, 3))
    source = gradient.source_for(*args)
    assert ".sum(axis=0)" in source and "np.sum(s_" not in source, source
    for k, found in enumerate(gradient(*args)):
        np.testing.assert_allclose(found, central_differences(two_layers, args, k),
                                   rtol=1e-6, atol=1e-8)


def test_user_sums_keep_their_spelling():
    x = RNG.normal(size=(3, 4))
    source = s2sad.grad(softmax_xent).source_for(x, _one_hot(3, 4))
    assert "np.sum(np.exp(" in source or "= np.sum(t_" in source, source


# --- np.dot's adjoints where the ranks say the product -----------------------------------

def twice_dot(x):
    return 2 * np.dot(x, x)


def mat_vec(A, v):
    return np.sum(np.sin(np.dot(A, v)))


def vec_mat(v, A):
    return np.sum(np.cos(np.dot(v, A)))


@pytest.mark.parametrize("f,args,wrt,has", [
    (twice_dot, (RNG.normal(size=3),), (0,), ["s_x = 4 * x"]),  # (2x + 2x: like terms)
    (mat_vec, (RNG.normal(size=(3, 2)), RNG.normal(size=2)), (0, 1), ["[:, None] * v"]),
    (vec_mat, (RNG.normal(size=3), RNG.normal(size=(3, 4))), (0, 1), ["v[:, None] * "]),
], ids=["vector-vector", "matrix-vector", "vector-matrix"])
def test_dot_adjoints_written_as_products(f, args, wrt, has):
    gradient = s2sad.grad(f, wrt=wrt if len(wrt) > 1 else wrt[0])
    source = gradient.source_for(*args)
    assert "output_seed" not in source, source
    for text in has:
        assert text in source, source
    found = gradient(*args)
    found = found if len(wrt) > 1 else (found,)
    for k, part in zip(wrt, found):
        np.testing.assert_allclose(part, central_differences(f, args, k), rtol=1e-6,
                                   atol=1e-8)


# --- a row of an array keeps its axes' lengths; a loop's new names keep their kinds -------

def rnn(Wx, Wh, b, xs, h0):
    h = h0
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.sum((h - 0.5) ** 2)


@pytest.mark.parametrize("batch", [3, 1], ids=["batch-3", "batch-1"])
def test_rnn_rows_decide_their_sums(batch):
    """``xs[t]`` has ``xs``'s axes of length 1 less the first: each step's sums are decided
    (no ``unbroadcast``, no shape kept on a tape), and the bias's sum, first stored in the
    reverse loop, is the array's method."""
    args = (RNG.normal(size=(2, 4)) / 2, RNG.normal(size=(4, 4)) / 3, RNG.normal(size=4) / 10,
            RNG.normal(size=(3, batch, 2)), RNG.normal(size=(batch, 4)) / 10)
    gradient = s2sad.grad(rnn, wrt=(0, 1, 2))
    source = gradient.source_for(*args)
    assert "unbroadcast" not in source and "shape_of" not in source, source
    assert ".sum(axis=0)" in source, source
    for k, found in enumerate(gradient(*args)):
        np.testing.assert_allclose(found, central_differences(rnn, args, k), rtol=1e-6,
                                   atol=1e-8)


def test_an_integer_index_keeps_the_lengths_of_one():
    from s2sad.source import FunctionSource
    from s2sad.transforms.kinds import from_descriptor, infer_kinds

    def f(xs):
        row = xs[0]
        return row

    source = FunctionSource.of(f)
    kinds = infer_kinds(source.tree, {"xs": from_descriptor(("nd", 3, "f", (1,)), "xs")},
                        source, {"row"})
    assert kinds["row"].ndim == 2 and kinds["row"].ones == (0,)


# --- a gradient that starts as the argument times a number is returned as it is ----------

def ridge(w, X, y):
    return np.sum((X @ w - y) ** 2) + 0.0005 * np.sum(w * w)


def square_sum(x):
    return np.sum(x * x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scaled_start_returned_without_fresh_gradient(dtype):
    """``s_w = w * 0.001`` then ``s_w += ...``: a new array of ``w``'s shape and dtype,
    returned as ``fresh_gradient`` would have returned it."""
    w, X, y = (RNG.normal(size=3).astype(dtype), RNG.normal(size=(6, 3)).astype(dtype),
               RNG.normal(size=6).astype(dtype))
    gradient = s2sad.grad(ridge)
    source = gradient.source_for(w, X, y)
    assert "fresh_gradient" not in source and "return s_w" in source, source
    found = gradient(w, X, y)
    assert found.dtype == dtype and found.shape == w.shape and found is not w
    assert not np.shares_memory(found, w) and found.flags.writeable
    args64 = tuple(a.astype(np.float64) for a in (w, X, y))
    np.testing.assert_allclose(found, central_differences(ridge, args64, 0),
                               rtol=1e-6 if dtype == np.float64 else 1e-3, atol=1e-5)


def test_scaled_start_of_a_0d_array_keeps_fresh_gradient():
    """``x * 2.0`` of a 0-d array is a NumPy scalar: the helper makes it an array."""
    x = np.array(1.5)
    gradient = s2sad.grad(square_sum)
    found = gradient(x)
    assert type(found) is np.ndarray and found.shape == () and float(found) == 3.0
    assert "fresh_gradient" in gradient.source_for(x) or "as_gradient" in \
        gradient.source_for(x)
