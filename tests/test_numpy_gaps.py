"""NumPy's remaining gaps (issue 34): np.gradient, np.linalg.pinv, lstsq, qr, matrix_power,
np.kron, rollaxis, partition, row_stack, select, piecewise, insert, delete, every np.pad
mode, np.cross's axes, svd(compute_uv=False), np.einsum's sublist form, and zero-size
arrays. Each gradient against central differences, forward mode against reverse, second
derivatives against differences of the gradient, float32 kept, and the refusals at the
user's line (class, line, advice)."""

import inspect
import warnings

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences
from tests.numpy_deprecations import expect_fix_warning

EPS = 1e-6
rng = np.random.default_rng(34)
V = np.array([0.3, -0.55, 0.9, 1.2, -0.15])
M = np.array([[1.1, 0.2, -0.3], [0.4, 0.9, 0.25], [-0.2, 0.35, 1.3], [0.5, -0.1, 0.7]])
S = np.array([[2.0, 0.3, -0.4], [0.3, 1.5, 0.2], [-0.4, 0.2, 1.1]])  # symmetric
W = rng.normal(size=(8, 8))  # weights: no symmetric loss hides a wrong transpose


def weigh(y):
    y = np.asarray(y)
    return np.sum(y * W[:y.shape[0], :y.shape[1]]) if y.ndim == 2 else \
        np.sum(y * W[0, :y.shape[0]]) if y.ndim == 1 else y


# --- np.gradient ---------------------------------------------------------------------------

def gradient_1d(x):
    return np.sum(np.gradient(x * x) * W[0, :5])


def gradient_spacing(x):
    return np.sum(np.gradient(np.sin(x), 0.5, edge_order=2) * W[1, :5])


def gradient_axis(m):
    return np.sum(np.gradient(m * m, axis=1, edge_order=2) * W[:4, :3])


def gradient_both_axes(m):
    gy, gx = np.gradient(m ** 3, 2.0, 0.5)
    return np.sum(gy * W[:4, :3]) + np.sum(gx * W[1:5, 2:5])


def gradient_coordinates(x):
    # coordinates that vary: their unequal steps weight the differences
    c = np.cumsum(x * x + 0.5)
    return np.sum(np.gradient(np.cos(c), c) * W[2, :5])


def gradient_coordinates_edge_2(x):
    c = np.cumsum(x * x + 0.5)
    return np.sum(np.gradient(c ** 2, c, edge_order=2) * W[3, :5])


# --- np.linalg: pinv, lstsq, qr, matrix_power, svd(compute_uv=False), kron -------------------

def pinv_tall(m):
    return weigh(np.linalg.pinv(m))


def pinv_wide(m):
    return weigh(np.linalg.pinv(m.T))


def pinv_hermitian(s):
    return weigh(np.linalg.pinv(s, hermitian=True))


def pinv_rcond(m):
    return weigh(np.linalg.pinv(m, rcond=1e-10))


def pinv_stack(m):
    return weigh(np.sum(np.linalg.pinv(np.stack([m, m * m])), axis=0))


def lstsq_x(m):
    return weigh(np.linalg.lstsq(m, V[:4], rcond=None)[0])


def lstsq_b(b):
    return weigh(np.linalg.lstsq(M, b * b, rcond=None)[0])


def lstsq_columns(m):
    return weigh(np.linalg.lstsq(m, W[:4, :2], rcond=None)[0])


def lstsq_wide(m):
    return weigh(np.linalg.lstsq(m.T, V[:3], rcond=None)[0])


def lstsq_both(m):
    # a and b both vary: forward mode adds the two lists of tangents item by item
    x, residuals, rank, s = np.linalg.lstsq(m[:, :2], m[:, 2], rcond=None)
    return weigh(x) + weigh(residuals) + weigh(s)


def lstsq_residuals(m):
    x, residuals, rank, s = np.linalg.lstsq(m, W[:4, :2], rcond=None)
    return weigh(residuals) + weigh(x)


def lstsq_residuals_b(b):
    return np.sum(np.linalg.lstsq(M, b, rcond=None)[1])


def lstsq_singular_values(m):
    return weigh(np.linalg.lstsq(m, V[:4], rcond=None)[3])


def qr_tall(m):
    q, r = np.linalg.qr(m)
    return weigh(q) + weigh(r)


def qr_square(s):
    q, r = np.linalg.qr(s)
    return weigh(q * q * q) + weigh(r)


def qr_wide(m):
    q, r = np.linalg.qr(m.T)
    return weigh(q) + weigh(r ** 2)


def qr_r(m):
    return weigh(np.linalg.qr(m, mode="r"))


def qr_fields(m):
    result = np.linalg.qr(m)
    return weigh(result.Q) + weigh(result.R)


def matrix_power_3(s):
    return weigh(np.linalg.matrix_power(s, 3))


def matrix_power_negative(s):
    return weigh(np.linalg.matrix_power(s, -2))


def matrix_power_0(s):
    return weigh(np.linalg.matrix_power(s, 0) * s)


def svd_values(m):
    return weigh(np.linalg.svd(m, compute_uv=False))


def svd_values_hermitian(s):
    return weigh(np.linalg.svd(s, compute_uv=False, hermitian=True))


def kron(m):
    return weigh(np.kron(m[:2], m[1:3, :2]))


# --- shapes and gathers ------------------------------------------------------------------

def rollaxis(m):
    t = np.reshape(m, (2, 2, 3))
    return np.sum(np.rollaxis(t, 2) * np.arange(12.0).reshape(3, 2, 2)) + \
        np.sum(np.rollaxis(t, 0, 3) ** 2 * np.arange(12.0).reshape(2, 3, 2))


def partition(x):
    return np.sum(np.partition(x * 2.0, 2) * W[0, :5])


def partition_axis(m):
    return weigh(np.partition(m ** 3, (1, 2), axis=0))


def partition_flat(m):
    return np.sum(np.partition(m, 4, axis=None) * W[:3, :4].ravel())


def select(x):
    return weigh(np.select([x > 0.5, x < 0.0], [x * x, np.sin(x)], default=x[0]))


def piecewise(x):
    return weigh(np.piecewise(x, [x < 0.0, x > 1.0], [x[1] * 2.0, 3.0, x[0]]) * x)


def insert(x):
    return weigh(np.insert(x, 2, x[0] * 3.0) ** 2)


def insert_several(m):
    return weigh(np.insert(m, [1, 3], m[0, :1] ** 2, axis=1))


def insert_rows(m):
    return weigh(np.insert(m, 1, m[2] * 2.0, axis=0) ** 2)


def delete(x):
    return weigh(np.delete(x, [0, 3]) ** 2)


def delete_axis(m):
    return weigh(np.delete(m ** 2, 1, axis=1))


def cross_axes(m):
    return weigh(np.cross(m[:3], m[1:], axisa=0, axisb=0, axisc=0))


def cross_axis(m):
    return weigh(np.cross(m[:3], m[1:] ** 2, axis=0))


def einsum_sublists(m):
    return weigh(np.einsum(m, [0, 1], m, [0, 2], [1, 2]))


def einsum_ellipsis(m):
    return weigh(np.einsum(m, [Ellipsis, 1], m * m, [Ellipsis, 1]))


# --- np.pad, every mode ------------------------------------------------------------------

def pad_constant(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "constant"))


def pad_edge(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "edge"))


def pad_linear_ramp(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "linear_ramp"))


def pad_maximum(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "maximum"))


def pad_mean(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "mean"))


def pad_median(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "median"))


def pad_minimum(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "minimum"))


def pad_reflect(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "reflect"))


def pad_symmetric(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "symmetric"))


def pad_wrap(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "wrap"))


def pad_linear_ramp_end_values(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "linear_ramp", end_values=0.5))


def pad_mean_stat_length(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "mean", stat_length=2))


def pad_maximum_stat_length(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "maximum", stat_length=((1, 2), (2, 1))))


def pad_median_stat_length(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "median", stat_length=3))


def pad_minimum_stat_length(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "minimum", stat_length=1))


def pad_constant_constant_values(m):
    return weigh(np.pad(m ** 2, ((1, 2), (2, 1)), "constant", constant_values=0.25))


def pad_ramp_ends(m):
    # the end values are differentiable too
    return weigh(np.pad(m, ((1, 2), (2, 1)), "linear_ramp", end_values=((m[0, 0], 2.0),
                                                                         (-1.0, m[1, 1]))))


PADS = [pad_constant, pad_edge, pad_linear_ramp, pad_maximum, pad_mean, pad_median, pad_minimum, pad_reflect, pad_symmetric, pad_wrap, pad_linear_ramp_end_values, pad_mean_stat_length, pad_maximum_stat_length, pad_median_stat_length, pad_minimum_stat_length, pad_constant_constant_values]

TABLE = [(f, (V,), 0) for f in (
    gradient_1d, gradient_spacing, gradient_coordinates, gradient_coordinates_edge_2, partition,
    select, piecewise, insert, delete)] + [
    (f, (M,), 0) for f in (
        gradient_axis, gradient_both_axes, pinv_tall, pinv_wide, pinv_rcond, pinv_stack,
        lstsq_x, lstsq_columns, lstsq_wide, lstsq_both, lstsq_residuals, lstsq_singular_values, qr_tall,
        qr_wide, qr_r, qr_fields, svd_values, kron, rollaxis, partition_axis, partition_flat,
        insert_several, insert_rows, delete_axis, cross_axes, cross_axis,
        einsum_sublists, einsum_ellipsis, pad_ramp_ends, *PADS)] + [
    (f, (S,), 0) for f in (pinv_hermitian, qr_square, matrix_power_3, matrix_power_negative,
                           matrix_power_0, svd_values_hermitian)] + [
    (lstsq_b, (V[:4],), 0), (lstsq_residuals_b, (V[:4],), 0)]


def _ids(table):
    return [f"{f.__name__}-{wrt}" for f, _, wrt in table]


def _symmetric(f, args):
    """``hermitian=True`` reads one triangle: its gradient is exact along symmetric changes
    (the differences are taken along those)."""
    return f in (pinv_hermitian, svd_values_hermitian)


def _directional(f, args, wrt, v):
    up, down = list(args), list(args)
    up[wrt] = args[wrt] + EPS * v
    down[wrt] = args[wrt] - EPS * v
    return (f(*up) - f(*down)) / (2 * EPS)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_gradient_against_central_differences(f, args, wrt):
    gradient = s2sad.grad(f, wrt=wrt)(*args)
    if _symmetric(f, args):  # (along symmetric directions)
        for _ in range(3):
            v = rng.normal(size=(3, 3))
            v = v + v.T
            np.testing.assert_allclose(np.sum(gradient * v), _directional(f, args, wrt, v),
                                       rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(gradient, gradient.T, rtol=1e-12, atol=1e-14)
        return
    np.testing.assert_allclose(gradient, central_differences(f, args, wrt, EPS), rtol=1e-6,
                               atol=1e-7)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_forward_mode_against_reverse(f, args, wrt):
    v = rng.normal(size=np.shape(args[wrt]))
    if _symmetric(f, args):
        v = v + v.T
    value, push = s2sad.jvp(f, wrt=wrt)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(push(v), np.sum(s2sad.grad(f, wrt=wrt)(*args) * v), rtol=1e-9,
                               atol=1e-12)


SECOND = [row for row in TABLE if not _symmetric(row[0], row[1]) and row[0] not in (
    qr_r,)]


@pytest.mark.parametrize("f, args, wrt", SECOND, ids=_ids(SECOND))
def test_second_derivative_against_differences_of_the_gradient(f, args, wrt):
    gradient = s2sad.grad(f, wrt=wrt)
    expected = central_differences(gradient, args, wrt, EPS)
    np.testing.assert_allclose(s2sad.hessian(f, wrt=wrt)(*args), expected, rtol=1e-5,
                               atol=2e-6)
    v = rng.normal(size=np.shape(args[wrt]))
    _, pullback = s2sad.vjp(gradient, wrt=wrt)(*args)
    np.testing.assert_allclose(pullback(v), np.tensordot(expected, v, np.ndim(v)), rtol=1e-5,
                               atol=2e-6)


def test_qr_r_second_derivative():
    """mode="r" is the R of the reduced decomposition: its Hessian, by differences."""
    gradient = s2sad.grad(qr_r)
    np.testing.assert_allclose(s2sad.hessian(qr_r)(M), central_differences(gradient, (M,), 0,
                                                                            EPS), rtol=1e-5,
                               atol=2e-6)


# --- the values are NumPy's -------------------------------------------------------------

@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_the_value_is_numpys(f, args, wrt):
    value, _ = s2sad.value_and_grad(f, wrt=wrt)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-13, atol=1e-13)


def test_partition_keeps_numpys_arrangement():
    """The entries of np.partition's result are NumPy's own, in NumPy's order."""
    x = rng.normal(size=(7, 5))

    def f(x):
        return np.partition(x, (2, 4), axis=0)
    value, pullback = s2sad.vjp(f)(x)
    np.testing.assert_array_equal(value, np.partition(x, (2, 4), axis=0))
    g = rng.normal(size=x.shape)
    np.testing.assert_allclose(np.sum(pullback(g) * x), np.sum(g * value), rtol=1e-12)


def test_float32_stays_float32():
    x32, m32, s32 = V.astype(np.float32), M.astype(np.float32), S.astype(np.float32)
    for f, arg in [(gradient_1d, x32), (insert, x32), (delete, x32), (partition, x32),
                   (select, x32), (pinv_tall, m32), (qr_tall, m32), (lstsq_x, m32),
                   (matrix_power_3, s32), (pad_mean, m32), (pad_linear_ramp, m32),
                   (cross_axis, m32), (einsum_sublists, m32), (rollaxis, m32)]:
        assert s2sad.grad(f)(arg).dtype == np.float32, f.__name__


def test_lstsq_of_a_rank_deficient_matrix_is_nan():
    """Where a's rank is not full, lstsq's solution jumps under a change of a: NaN, never
    a finite wrong number."""
    low = np.outer(M[:, 0], [1.0, 2.0, -1.0])
    assert np.all(np.isnan(s2sad.grad(lstsq_x)(low)))
    assert np.all(np.isnan(s2sad.jvp(lstsq_x)(low)[1](np.ones_like(low))))


def test_the_identity_s_pseudo_inverse():
    """Equal singular values (where an SVD's derivative divides by their gaps)."""
    a = np.eye(3)
    np.testing.assert_allclose(s2sad.grad(pinv_hermitian)(a),
                               s2sad.grad(lambda s: weigh(np.linalg.inv(s)))(a) / 2.0 +
                               s2sad.grad(lambda s: weigh(np.linalg.inv(s)))(a).T / 2.0,
                               rtol=1e-12)


@pytest.mark.skipif(not hasattr(np, "row_stack"), reason="NumPy without np.row_stack")
def test_row_stack_is_vstack_with_numpys_warning():
    def f(x):
        return weigh(np.row_stack([x, x * x]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected = f(V)
        gradient = s2sad.grad(f)(V)
        np.testing.assert_allclose(gradient, central_differences(f, (V,), 0, EPS), rtol=1e-6)
        np.testing.assert_allclose(s2sad.value_and_grad(f)(V)[0], expected, rtol=1e-13)
    # NumPy's own warning, where NumPy gives one, from the call as written
    numpy_warns = [w.category for w in caught if "row_stack" in str(w.message)]
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        assert DeprecationWarning in numpy_warns


def test_fix_has_no_derivative_and_numpys_warning_where_numpy_gives_one():
    """np.fix rounds towards 0: a zero derivative through it, on every NumPy that has it;
    NumPy 2.5 deprecates it, and the generated code's call gives NumPy's warning."""
    def f(x):
        return weigh(np.fix(3.0 * x) * x)
    with expect_fix_warning("np.fix("):
        expected = f(V)
    with expect_fix_warning("np.fix("):
        value, gradient = s2sad.value_and_grad(f)(V)
    np.testing.assert_allclose(value, expected, rtol=1e-13)
    with expect_fix_warning("np.fix("):
        np.testing.assert_allclose(gradient, central_differences(f, (V,), 0, EPS), rtol=1e-6)


# --- zero-size arrays ----------------------------------------------------------------------

Z = np.zeros((0, 3))
E = np.zeros(0)
EMPTY = [
    ("exp", lambda z, x: np.sum(np.exp(z)) + x, Z),
    ("sum-axis", lambda z, x: np.sum(np.sum(z, axis=0) * x), Z),
    ("matmul", lambda z, x: np.sum(z.T @ z * x), Z),
    ("dot", lambda e, x: np.dot(e, e) + x, E),
    ("einsum", lambda z, x: np.sum(np.einsum("ij,ik->jk", z, z)) + x, Z),
    ("concatenate", lambda z, x: np.sum(np.concatenate([z, np.ones((1, 3)) * x]) ** 2), Z),
    ("cumprod", lambda e, x: np.sum(np.cumprod(e * x)) + x, E),
    ("prod", lambda e, x: np.prod(e) * x, E),
    ("sort", lambda e, x: np.sum(np.sort(e)) + x, E),
    ("norm", lambda e, x: np.linalg.norm(e) + x, E),
    ("norm-axis", lambda z, x: np.sum(np.linalg.norm(z, axis=0)) + x, Z),
    ("where", lambda e, x: np.sum(np.where(e > 0, e, x)) + x, E),
    ("pad", lambda e, x: np.sum(np.pad(e, 2, constant_values=x)), E),
    ("kron", lambda e, x: np.sum(np.kron(e, np.ones(2) * x)) + x, E),
    ("insert", lambda e, x: np.sum(np.insert(e, 0, x) ** 2), E),
    ("delete", lambda e, x: np.sum(np.delete(e * x, [])) + x, E),
    ("gradient", lambda z, x: np.sum(np.gradient(np.ones((3, 0)) * x, axis=0)) + x, Z),
    ("cross", lambda z, x: np.sum(np.cross(z, z * x)) + x, Z),
    ("solve", lambda z, x: np.sum(np.linalg.solve(np.eye(3) * x, z.T)) + x, Z),
    ("det", lambda z, x: np.linalg.det(np.zeros((0, 0)) + x) * x, Z),
    ("pinv", lambda z, x: np.sum(np.linalg.pinv(z * x)) + x, Z),
    ("partition", lambda e, x: np.sum(np.sort(e * x)) + x, E),
    ("select", lambda e, x: np.sum(np.select([e > 0], [e * x], 1.0)) + x, E),
]


@pytest.mark.parametrize("name, f, z", EMPTY, ids=[e[0] for e in EMPTY])
def test_zero_size_arrays(name, f, z):
    """A zero-size array's gradient is a zero-size array; the other argument's is right."""
    gz, gx = s2sad.grad(f, wrt=(0, 1))(z, 0.7)
    assert np.shape(gz) == np.shape(z)
    expected = (f(z, 0.7 + EPS) - f(z, 0.7 - EPS)) / (2 * EPS)
    np.testing.assert_allclose(gx, expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(s2sad.jvp(f, wrt=1)(z, 0.7)[1](1.0), expected, rtol=1e-6,
                               atol=1e-9)


# --- refused at the user's line ------------------------------------------------------------

def qr_complete(m):
    q, r = np.linalg.qr(m, mode="complete")  # <- here
    return np.sum(r)


def sq(t):
    return t * t


def piecewise_function(x):
    return np.sum(np.piecewise(x, [x < 0.0], [sq, 1.0]))


def _line(func):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, text in enumerate(lines) if "# <- here" in text)


@pytest.mark.parametrize("func, arg, message, advice", [
    (qr_complete, M, "qr is differentiated with mode 'reduced', not 'complete'",
     "use mode='reduced'"),
], ids=["qr-complete"])
def test_refused_at_the_line(func, arg, message, advice):
    for derivative in (s2sad.grad, lambda f: (lambda a: s2sad.jvp(f)(a)[1](np.ones_like(a)))):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(func)(arg)
        assert info.value.lineno == _line(func)
        assert message in str(info.value) and advice in str(info.value)


def test_piecewise_with_a_function_is_differentiated():
    # (refused before session 27: tests/test_issue34_s27.py has its cases)
    np.testing.assert_allclose(s2sad.grad(piecewise_function)(V),
                               central_differences(piecewise_function, (V,), 0), rtol=1e-6)


def test_supported_lists_the_new_functions():
    names = s2sad.supported()
    for name in ("numpy.gradient", "numpy.linalg.pinv", "numpy.linalg.lstsq", "numpy.linalg.qr",
                 "numpy.linalg.matrix_power", "numpy.rollaxis", "numpy.partition",
                 "numpy.select", "numpy.piecewise", "numpy.insert", "numpy.delete"):
        assert name in names, name


MODE = "median"  # (a module's constant: read as the literal is)


def pad_mode_constant(m):
    return weigh(np.pad(m ** 2, 1, MODE))


def test_a_pad_mode_held_in_a_module_constant():
    np.testing.assert_allclose(s2sad.grad(pad_mode_constant)(M),
                               central_differences(pad_mode_constant, (M,), 0, EPS), rtol=1e-6,
                               atol=1e-7)


def cross_mixed(m):
    return weigh(np.cross(m[:, :2], m[:, :3] ** 2))


def _numpy_takes(n: int) -> bool:
    """Whether the installed np.cross takes n-vectors (2: NumPy < 2.5, with its warning)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # (NumPy 2's, for 2-vectors)
            np.cross(np.ones(n), np.ones(3))
    except ValueError:
        return False
    return True


def cross_of_4_vectors(m):
    return weigh(np.cross(np.concatenate([m, m[:, :1]], axis=1), m ** 2))


@pytest.mark.parametrize("f", [cross_mixed, cross_of_4_vectors], ids=["2-vector", "4-vector"])
def test_cross_of_vectors_numpy_refuses_raises_as_numpy_does(f):
    """Where NumPy raises (4-vectors always, 2-vectors from NumPy 2.5), s2sad raises too,
    instead of a product of the first components."""
    n = 2 if f is cross_mixed else 4
    if _numpy_takes(n):
        pytest.skip(f"this NumPy takes {n}-vectors")
    with pytest.raises(ValueError):
        f(M)
    with pytest.raises(ValueError, match=f"not {n}\\)"):  # (s2sad's stand-in's words)
        s2sad.value_and_grad(f)(M)
    with pytest.raises(ValueError):  # (the forward value is NumPy's call, its words)
        s2sad.jvp(f)(M)


@pytest.mark.skipif(not _numpy_takes(2), reason="NumPy >= 2.5: np.cross takes 3-vectors alone")
def test_cross_of_a_2_vector_and_a_3_vector():
    """NumPy's 3-vector result (the 2-vector's z is 0), not its z component alone."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (NumPy 2's, for 2-vectors)
        np.testing.assert_allclose(s2sad.value_and_grad(cross_mixed)(M)[0], cross_mixed(M),
                                   rtol=1e-13)
        np.testing.assert_allclose(s2sad.grad(cross_mixed)(M),
                                   central_differences(cross_mixed, (M,), 0, EPS), rtol=1e-6,
                                   atol=1e-7)
