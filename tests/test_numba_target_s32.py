"""``target="numba"``, session 32: small products as loops.

numba's ``@``, ``np.dot`` and ``np.outer`` on an 8x8 matrix call BLAS (or broadcast a
multiplication), whose fixed cost is larger than the 64 products. The kernel calls
``matmul_small``, ``dot_small`` and ``outer_small`` instead (s2sad/runtime/numba_tape.py):
loops for 1-d and 2-d float64 arrays of at most ``SMALL_PRODUCT`` products, numba's own
otherwise. Every gradient is checked against central differences in float64. Skipped
without numba.
"""

import numpy as np
import pytest

import s2sad

numba = pytest.importorskip("numba")

from s2sad.runtime import numba_tape  # noqa: E402  (imports numba)


def rnn(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def matrix_vector(A, u):
    return np.sum(np.tanh(A @ u))


def vector_matrix(A, u):
    return np.sum(np.tanh(u @ A))


def matrix_matrix(A, B):
    return np.sum(np.tanh(A @ B))


def central(f, args, index, h=1e-6):
    """The gradient of ``f`` at ``args`` with respect to the array ``args[index]``, by
    central differences."""
    x = np.array(args[index], dtype=np.float64)
    out = np.empty(x.size)
    for k in range(x.size):
        up, down = x.copy().ravel(), x.copy().ravel()
        up[k] += h
        down[k] -= h
        hi, lo = list(args), list(args)
        hi[index], lo[index] = up.reshape(x.shape), down.reshape(x.shape)
        out[k] = (f(*hi) - f(*lo)) / (2 * h)
    return out.reshape(x.shape)


def _rnn_args(seed=0, steps=30, n=8):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, n)) * 0.3, rng.standard_normal((steps, n))


def test_rnn_products_are_loops():
    f = rnn
    W, xs = _rnn_args()
    g = s2sad.grad(f, target="numba")
    got = g(W, xs)
    np.testing.assert_allclose(got, central(f, (W, xs), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, s2sad.grad(f)(W, xs), rtol=1e-12, atol=1e-14)
    kernel = g.source_for(W, xs).split("def kernel_", 1)[1]
    assert "matmul_small(W, h)" in kernel and "matmul_small(W.T" in kernel
    assert "add_outer(s_W, " in kernel and "np.outer" not in kernel and " @ " not in kernel


def test_strided_and_transposed_arguments():
    W, xs = _rnn_args(1)
    Wt = np.asfortranarray(W.T).T          # (layout F: the loops index any strides)
    xs_strided = np.repeat(xs, 2, axis=0)[::2]
    g = s2sad.grad(rnn, target="numba")
    np.testing.assert_allclose(g(Wt, xs_strided), central(rnn, (W, xs), 0),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [matrix_vector, vector_matrix, matrix_matrix])
def test_products_of_each_kind(f):
    rng = np.random.default_rng(2)
    A = rng.standard_normal((4, 3))
    other = rng.standard_normal({matrix_vector: 3, vector_matrix: 4}.get(f, (3, 5)))
    for wrt in range(2):
        g = s2sad.grad(f, wrt, target="numba")
        np.testing.assert_allclose(g(A, other), central(f, (A, other), wrt), rtol=1e-6,
                                   atol=1e-8)
        assert " @ " not in g.source_for(A, other).split("def kernel_", 1)[1]


@pytest.mark.parametrize("shapes", [((8, 8), (8,)), ((8,), (8, 5)), ((3, 4), (4, 6)),
                                    ((7,), (7,)), ((0, 3), (3,)), ((3, 0), (0,)),
                                    ((80, 80), (80,)), ((20, 20), (20, 20))])
def test_helpers_against_numpy(shapes):
    """Loops below SMALL_PRODUCT, numba's @ above it: NumPy's values to rounding."""
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(s) for s in shapes)
    matmul = numba.njit(lambda a, b: numba_tape.matmul_small(a, b))
    dot = numba.njit(lambda a, b: numba_tape.dot_small(a, b))
    for helper in (matmul, dot):
        np.testing.assert_allclose(helper(a, b), a @ b, rtol=1e-13, atol=1e-13)
    if len(shapes[0]) == len(shapes[1]) == 1:
        outer = numba.njit(lambda a, b: numba_tape.outer_small(a, b))
        np.testing.assert_array_equal(outer(a, b), np.outer(a, b))


def test_helper_refuses_a_mismatch():
    matmul = numba.njit(lambda a, b: numba_tape.matmul_small(a, b))
    with pytest.raises(ValueError, match="mismatch"):
        matmul(np.ones((3, 4)), np.ones(3))
    with pytest.raises(ValueError):
        np.ones((3, 4)) @ np.ones(3)   # (NumPy refuses it too)


def test_integer_and_float32_products_keep_numbas():
    rng = np.random.default_rng(4)
    a32, b32 = rng.standard_normal((3, 3)).astype(np.float32), \
        rng.standard_normal(3).astype(np.float32)
    matmul = numba.njit(lambda a, b: numba_tape.matmul_small(a, b))
    got = matmul(a32, b32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, a32 @ b32, rtol=1e-6)
