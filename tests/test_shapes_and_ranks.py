"""What the compiler writes out because it knows ranks and shapes, and that it stays right.

* The adjoint of ``x @ y`` with known ranks is written as a person would
  (``g @ y.T``, ``x.T @ g``, ``np.outer``) instead of calling a generic helper.
* A helper that reads only a shape (``sum_grad``, ``unbroadcast``) gets a value computed
  anyway that has that shape, so a value needed for its shape alone is never computed;
  a shape token of a value reassigned in a loop is not trusted.
* A list of Python floats gets its sensitivity as ``[0.0] * len(x)``.

Every gradient is checked against central differences, optimized and not.
"""

import numpy as np
import pytest

import s2sad
from tests.test_control_flow import numeric_gradient

RNG = np.random.default_rng(7)


def mat_mat(A, B):
    return np.sum(np.tanh(A @ B) ** 2)


def mat_vec(A, v):
    return np.sum(np.sin(A @ v))


def vec_mat(v, A):
    return np.sum(np.cos(v @ A) * (v @ A))


def loop_of_products(W, h):
    for _ in range(3):
        h = np.tanh(W @ h)
    return np.sum(h * h)


def batched(A, B):
    return np.sum((A @ B) ** 2)  # 3-d operands: the generic helper stays


MATMUL_CASES = [
    (mat_mat, (RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2)))),
    (mat_vec, (RNG.standard_normal((3, 4)), RNG.standard_normal(4))),
    (vec_mat, (RNG.standard_normal(3), RNG.standard_normal((3, 4)))),
    (loop_of_products, (0.5 * RNG.standard_normal((3, 3)), RNG.standard_normal(3))),
    (batched, (RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 2)))),
]


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "plain"])
@pytest.mark.parametrize("f, args", MATMUL_CASES, ids=[f.__name__ for f, _ in MATMUL_CASES])
def test_matmul_adjoints_match_differences(f, args, optimize):
    grads = s2sad.grad(f, wrt=(0, 1), optimize=optimize)(*args)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, numeric_gradient(f, args, i), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, args, written", [
    (mat_mat, MATMUL_CASES[0][1], ["@ B.T", "A.T @"]),
    (mat_vec, MATMUL_CASES[1][1], ["np.outer(", "A.T @"]),
    (vec_mat, MATMUL_CASES[2][1], ["A @ ", "np.outer(v, "]),
], ids=["matrix-matrix", "matrix-vector", "vector-matrix"])
def test_matmul_adjoint_written_out_for_known_ranks(f, args, written):
    source = s2sad.grad(f, wrt=(0, 1)).source_for(*args)
    assert "matmul_grad" not in source
    for text in written:
        assert text in source, source


def vector_from_numbers(A, a, b):
    v = np.array([a, b, a * b])
    return np.sum(np.tanh(A @ v))


def test_a_vector_built_from_numbers_has_rank_one():
    """``np.array([a, b, c])`` of numbers is a vector: ``A @ v`` gets its written-out adjoint."""
    args = (np.random.default_rng(3).standard_normal((2, 3)), 0.3, -0.7)
    g = s2sad.grad(vector_from_numbers, wrt=(0, 1, 2))
    source = g.source_for(*args)
    assert "matmul_grad" not in source and "np.outer(" in source, source
    for i, got in zip((0, 1, 2), g(*args)):
        np.testing.assert_allclose(got, numeric_gradient(vector_from_numbers, args, i),
                                   rtol=1e-6, atol=1e-8)


def test_batched_matmul_adjoint_written_out_where_no_stack_broadcasts():
    source = s2sad.grad(batched, wrt=(0, 1)).source_for(*MATMUL_CASES[4][1])
    assert "matmul_grad" not in source  # (s2sad.transforms.plain_numpy)
    assert "@ np.swapaxes(B, -1, -2)" in source and "np.swapaxes(A, -1, -2) @" in source


def test_matmul_adjoint_of_a_broadcast_stack_keeps_the_helper():
    A, B = MATMUL_CASES[4][1]
    source = s2sad.grad(batched, wrt=(0, 1)).source_for(A[:1], B)
    assert "matmul_grad_left" in source and "matmul_grad_right" in source


def test_second_derivative_through_written_out_adjoints():
    A, v = MATMUL_CASES[1][1]
    hvp = s2sad.hvp(mat_vec, wrt=1)
    direction = RNG.standard_normal(4)
    got = hvp(A, v, direction)
    grad_v = s2sad.grad(mat_vec, wrt=1)
    eps = 1e-5
    expected = (grad_v(A, v + eps * direction) - grad_v(A, v - eps * direction)) / (2 * eps)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def logistic(w, X, y):
    z = X @ w
    return np.sum(np.log(1.0 + np.exp(-y * z))) + 0.0005 * np.sum(w * w)


def test_a_value_read_for_its_shape_only_is_not_computed():
    args = (0.1 * RNG.standard_normal(5), RNG.standard_normal((20, 5)),
            np.where(RNG.standard_normal(20) > 0, 1.0, -1.0))
    g = s2sad.grad(logistic)
    np.testing.assert_allclose(g(*args), numeric_gradient(logistic, args, 0), rtol=1e-6)
    assert "np.log" not in g.source_for(*args)  # log(1 + exp(.)) was read for its shape only


def shape_changes_in_a_loop(x):
    h = x
    a = h * 2.0            # shaped like x
    for _ in range(1):
        h = np.outer(h, h)  # h is now a matrix: its shape token is not one value's
    b = h + 1.0
    return np.sum(a) + np.sum(np.sin(b))


def test_shape_token_of_a_value_reassigned_in_a_loop_is_not_trusted():
    x = RNG.standard_normal(3)
    for optimize in (True, False):
        g = s2sad.grad(shape_changes_in_a_loop, optimize=optimize)(x)
        np.testing.assert_allclose(g, numeric_gradient(shape_changes_in_a_loop, [x], 0),
                                   rtol=1e-6, atol=1e-8)


def product(x):
    p = 1.0
    for i in range(len(x)):
        p = p * x[i]
    return p


@pytest.mark.parametrize("container", [list, tuple])
def test_list_of_floats_gets_a_plain_list_of_zeros(container):
    x = container(float(v) for v in 1.0 + 0.1 * RNG.standard_normal(6))
    g = s2sad.grad(product)
    got = g(x)
    assert type(got) is container and all(type(v) is float for v in got)
    expected = [np.prod([x[j] for j in range(6) if j != i]) for i in range(6)]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    source = g.source_for(x)
    assert "s_x = [0.0] * len(x)" in source and "zeros_like_structure" not in source


def test_list_of_arrays_keeps_zeros_like_structure():
    x = [RNG.standard_normal(2) for _ in range(3)]
    g = s2sad.grad(lambda_free_product)
    got = g(x)
    for i in range(3):
        expected = np.prod([x[j] for j in range(3) if j != i], axis=0)
        np.testing.assert_allclose(got[i], expected, rtol=1e-12)
    assert "zeros_like_structure" in g.source_for(x)


def lambda_free_product(x):
    p = 1.0
    for i in range(len(x)):
        p = p * x[i]
    return np.sum(p)


# --- the seed of np.sum: ones, multiplied in only where they change the shape ---------------

def elementwise(x):
    return np.sum(np.tanh(x) * np.exp(-0.5 * x * x) + np.log(1.0 + x * x))


def broadcast_against_a_row(x, row):
    return np.sum(np.tanh(x) * row + np.sin(x) / (1.0 + row * row))


def summed_twice(x):
    y = np.tanh(x)
    return np.sum(y * y) + np.sum(y)


SEED_CASES = [
    (elementwise, (RNG.standard_normal(5),), 0),
    (broadcast_against_a_row, (RNG.standard_normal((3, 4)), RNG.standard_normal(4)), 0),
    (broadcast_against_a_row, (RNG.standard_normal((3, 4)), RNG.standard_normal(4)), 1),
    (summed_twice, (RNG.standard_normal((2, 3)),), 0),
    (logistic, (0.1 * RNG.standard_normal(5), RNG.standard_normal((20, 5)),
                np.where(RNG.standard_normal(20) > 0, 1.0, -1.0)), 0),
]


@pytest.mark.parametrize("f, args, wrt", SEED_CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, _, _) in enumerate(SEED_CASES)])
def test_seed_of_a_sum_left_out_keeps_gradients(f, args, wrt):
    g = s2sad.grad(f, wrt=wrt)(*args)
    np.testing.assert_allclose(g, numeric_gradient(f, args, wrt), rtol=1e-6, atol=1e-8)
    assert g is not args[wrt] and not np.shares_memory(g, args[wrt])


def test_seed_of_a_sum_is_not_multiplied_in():
    x = RNG.standard_normal(5)
    source = s2sad.grad(elementwise).source_for(x)
    assert "sum_grad" not in source and "2.0 / (1.0 + x * x)" in source  # (2.0 * 1.0 / e: ScaleInward)
    x32 = x.astype(np.float32)
    g = s2sad.grad(elementwise)(x32)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, s2sad.grad(elementwise)(x), rtol=1e-5, atol=1e-6)


# --- the runtime's spreads and sums, against NumPy's own broadcasting --------------------------

@pytest.mark.parametrize("g_shape,shape", [((3, 1), (3, 4)), ((4,), (2, 3, 4)), ((1, 4), (3, 4)),
                                           ((2, 1, 4), (5, 2, 3, 4)), ((), (2, 2)),
                                           ((3, 4), (3, 4))])
def test_spread_is_a_read_only_broadcast(g_shape, shape):
    from s2sad.runtime import _spread
    g = np.asarray(RNG.standard_normal(g_shape))
    for value in (g, np.asfortranarray(g), g.copy()):
        view = _spread(np, value, shape)
        np.testing.assert_array_equal(view, np.broadcast_to(value, shape))
        assert view.shape == shape and not view.flags.writeable
    transposed = np.asarray(RNG.standard_normal(g_shape[::-1])).T  # not C-contiguous: NumPy's own view
    np.testing.assert_array_equal(_spread(np, transposed, shape),
                                  np.broadcast_to(transposed, shape))
    with pytest.raises(ValueError):
        _spread(np, RNG.standard_normal((2, 3)), (3, 3))


@pytest.mark.parametrize("g_shape,like_shape", [((3, 4), (3, 1)), ((3, 4), (4,)), ((2, 3, 4), (3, 1)),
                                                ((3, 4), (1, 1)), ((3, 4), ()), ((3, 4), (1, 4))])
def test_unbroadcast_sums_what_was_broadcast(g_shape, like_shape):
    from s2sad.runtime import unbroadcast
    g = RNG.standard_normal(g_shape)
    like = np.zeros(like_shape)
    for _ in range(2):  # (the second time from the remembered axes)
        got = unbroadcast(g, like)
        extra = g.ndim - like.ndim
        want = g.sum(axis=tuple(range(extra)))
        want = want.sum(axis=tuple(i for i, n in enumerate(like_shape) if n == 1),
                        keepdims=True) if like_shape else want
        assert np.shape(got) == like_shape
        np.testing.assert_allclose(got, want, rtol=1e-14)


@pytest.mark.parametrize("g_shape,like_shape", [((25, 400, 10), (25, 1, 10)), ((25, 400, 10), (10,)),
                                                ((25, 400, 10), (25, 400, 1)), ((3000, 3), ()),
                                                ((3000, 3), (1, 3)), ((40, 100), (100,)),
                                                ((6, 50, 2, 7), (50, 1, 7))])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32])
@pytest.mark.parametrize("like_kind", ["array", "shape", "number"])
def test_unbroadcast_of_a_large_array_sums_as_numpy_does(g_shape, like_shape, dtype, like_kind):
    """Large float64 and complex128 sums with short rows go through np.einsum (faster);
    they agree with NumPy's sum to rounding, in shape and in type, strided or not."""
    from s2sad.backends import Shape
    from s2sad.runtime import unbroadcast
    if like_kind == "number" and like_shape:
        pytest.skip("a number has shape ()")
    like = {"array": np.zeros(like_shape), "shape": Shape(like_shape), "number": 2.0}[like_kind]
    g = RNG.standard_normal(g_shape).astype(dtype)
    if dtype == np.complex128:
        g = g + 1j * RNG.standard_normal(g_shape)
    extra = g.ndim - len(like_shape)
    for value in (g, g[..., ::-1], np.asfortranarray(g)):
        want = value.sum(axis=tuple(range(extra)))
        want = want.sum(axis=tuple(i for i, n in enumerate(like_shape) if n == 1),
                        keepdims=True) if like_shape else want
        for _ in range(2):  # (the second time from the remembered plan)
            got = unbroadcast(value, like)
            assert np.shape(got) == like_shape and type(got) is type(want)
            assert got.dtype == dtype
            tolerance = 1e-4 if dtype == np.float32 else 1e-12
            np.testing.assert_allclose(got, want, rtol=tolerance,
                                       atol=tolerance * np.abs(value).sum() / want.size)


def test_extremum_gradient_shares_ties_and_keeps_the_dtype():
    from s2sad.runtime import extremum_grad
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]], dtype=np.float32)
    g = np.array([[6.0], [1.0]], dtype=np.float32)
    got = extremum_grad(g, x.max(axis=1, keepdims=True), x, 1, True)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [[0.0, 3.0, 3.0], [1.0, 0.0, 0.0]])


# --- shapes computed from operands: a temporary no longer kept for its shape ------------------

@pytest.mark.parametrize("a_shape,b_shape", [((3, 1, 4), (5, 1)), ((4,), ()), ((), ()),
                                             ((2, 3), (2, 3)), ((1,), (6, 1))])
def test_broadcast_shape_is_the_shape_of_the_operation(a_shape, b_shape):
    from s2sad.runtime import Shape, broadcast_shape
    a, b = np.asarray(RNG.standard_normal(a_shape)), np.asarray(RNG.standard_normal(b_shape))
    for left, right in [(a, b), (b, a), (a, float(1.5) if b.ndim == 0 else b)]:
        shape = broadcast_shape(left, right)
        assert type(shape) is Shape and shape == (left * right).shape
        assert broadcast_shape(left, right) is shape  # (remembered)
    with pytest.raises(ValueError):
        broadcast_shape(np.zeros(3), np.zeros(4))


@pytest.mark.parametrize("a_shape,b_shape", [((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)),
                                             ((3,), (3,)), ((7, 1, 2, 3), (5, 3, 4)),
                                             ((5, 2, 3), (3, 4))])
def test_matmul_shape_is_the_shape_of_the_product(a_shape, b_shape):
    from s2sad.runtime import matmul_shape
    a, b = RNG.standard_normal(a_shape), RNG.standard_normal(b_shape)
    assert matmul_shape(a, b) == np.shape(a @ b)
    with pytest.raises(ValueError):
        matmul_shape(a, RNG.standard_normal(b_shape[:-2] + (b_shape[-2 if len(b_shape) > 1
                                                                    else -1] + 1,) +
                                             b_shape[len(b_shape) - 1:] * (len(b_shape) > 1)))


def test_helpers_given_a_shape_do_as_given_the_array():
    from s2sad.runtime import Shape, reduced_size, sum_grad, unbroadcast
    g = RNG.standard_normal((3, 4))
    for like in [np.zeros((3, 1)), np.zeros(4), np.zeros(()), np.zeros((3, 4))]:
        shape = Shape(like.shape)
        np.testing.assert_array_equal(unbroadcast(g, shape), unbroadcast(g, like))
        assert np.shape(unbroadcast(2.0, Shape((3, 4)))) == (3, 4)  # a number spread out
    x = np.zeros((3, 4, 5))
    row = RNG.standard_normal((3, 5))
    np.testing.assert_array_equal(sum_grad(row, Shape(x.shape), 1), sum_grad(row, x, 1))
    assert reduced_size(Shape(x.shape), (0, 2)) == reduced_size(x, (0, 2)) == 15
    assert unbroadcast(g, (1.0, 2.0, 3.0, 4.0)).shape == (4,)  # a tuple is a value, no shape


def batched_scores(Q, L, means, x):
    xc = x[None, :, :] - means[:, None, :]
    Lx = Q[:, None, :] * xc + xc @ np.transpose(L, (0, 2, 1))
    return np.sum(np.tanh(Lx) ** 2)


def scaled_layer(W, x, c):
    return np.sum(np.sin((x @ W) * c))


def scores_args():
    return (RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2, 2)),
            RNG.standard_normal((3, 2)), RNG.standard_normal((4, 2)))


def _undecided(func, wrt, descriptors) -> str:
    """The gradient's source where the descriptors do not say which axes have length 1
    (``("nd", 2, "f")``): the broadcasts are decided as it runs (tests/test_shape_kinds)."""
    from s2sad.pipeline import compile_gradient
    return compile_gradient(func, wrt, arg_descriptors=descriptors).text


SCORES = [("nd", 2, "f"), ("nd", 3, "f"), ("nd", 2, "f"), ("nd", 2, "f")]


def test_a_temporary_read_for_its_shape_goes_into_its_one_use():
    # Lx = t_4 + t_6 kept t_4 = t_3 * xc and t_6 = xc @ t_5 alive for unbroadcast's shapes
    args = scores_args()
    g = s2sad.grad(batched_scores, wrt=(0, 1, 2))
    text = _undecided(batched_scores, ["Q", "L", "means"], SCORES)
    assert "broadcast_shape(t_3, xc)" in text and "matmul_shape(xc, t_5)" in text, text
    assert "Lx = t_3 * xc + xc @ t_5" in text, text
    text = g.source_for(*args)  # (which axes have length 1 decides both: no shape read)
    assert "Lx = t_3 * xc + xc @ t_5" in text and "_shape(" not in text, text
    for i, got in enumerate(g(*args)):
        np.testing.assert_allclose(got, numeric_gradient(batched_scores, args, i), rtol=1e-6,
                                   atol=1e-8)
    for got, plain in zip(g(*args), s2sad.grad(batched_scores, wrt=(0, 1, 2),
                                               optimize=False)(*args)):
        # (to rounding: s_means sums each term of s_xc over n, then adds: transforms/early_sums)
        np.testing.assert_allclose(got, plain, rtol=1e-13, atol=1e-15)


def test_a_temporary_read_twice_keeps_its_name():
    args = RNG.standard_normal((3, 2)), RNG.standard_normal((4, 3)), RNG.standard_normal(2)
    g = s2sad.grad(scaled_layer, wrt=(0, 2))
    text = g.source_for(*args)
    assert "matmul_shape" not in text, text  # x @ W is read twice: kept, its shape read off it
    for got, i in zip(g(*args), (0, 2)):
        np.testing.assert_allclose(got, numeric_gradient(scaled_layer, args, i), rtol=1e-6)
    assert "matmul_shape(x, W)" in _undecided(scaled_layer, ["W"], [  # once, for W
        ("nd", 2, "f"), ("nd", 2, "f"), ("nd", 1, "f")])
    assert "_shape(" not in s2sad.grad(scaled_layer).source_for(*args)  # (decided)


def test_second_derivative_through_a_shape_from_operands():
    Q, L, means, x = scores_args()
    assert "broadcast_shape" in _undecided(batched_scores, ["means"], SCORES)
    hessian = s2sad.hessian(batched_scores, wrt=2)(Q, L, means, x)
    grad = s2sad.grad(batched_scores, wrt=2, optimize=False)
    eps = 1e-5
    for k in np.ndindex(means.shape):
        d = np.zeros_like(means)
        d[k] = eps
        column = (grad(Q, L, means + d, x) - grad(Q, L, means - d, x)) / (2 * eps)
        np.testing.assert_allclose(hessian[(...,) + k], column, rtol=1e-5, atol=1e-7)


def shifted_scores(s, Q, L, means, x):
    xc = x[None, :, :] - means[:, None, :] * s
    Lx = Q[:, None, :] * xc + xc @ np.transpose(L, (0, 2, 1))
    return np.sum(np.tanh(Lx) ** 2)


def test_reverse_over_reverse_through_a_shape_from_operands():
    args = scores_args()
    inner = s2sad.grad(shifted_scores)
    assert "broadcast_shape(t_" in _undecided(shifted_scores, ["s"], ["float"] + SCORES)
    second = s2sad.grad(inner)
    eps = 1e-5
    for s in (0.3, -1.2):
        want = (inner(s + eps, *args) - inner(s - eps, *args)) / (2 * eps)
        np.testing.assert_allclose(second(s, *args), want, rtol=1e-6)
