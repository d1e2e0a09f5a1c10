"""Adversarial pass on the transforms and targets (session 33): nested and higher-order
derivatives, and the Dask and numba targets against the NumPy target.

Each test fails without its fix:

* ``s2sad.jvp(f, wrt=(1, 1))`` (an argument named twice, as ``grad`` takes it) wrote a
  forward function with the parameter ``d_b`` twice: a ``SyntaxError`` from s2sad's own
  code. The tangent of an argument named twice is the sum of its tangents, as the
  Jacobian of ``f`` with respect to ``(b, b)`` is ``[J_b, J_b]``; ``jacobian(mode="fwd")``
  with such a ``wrt`` goes through it.
* Recomputation (``recompute``) of an inner loop's read in its reverse loop, ``t_3 =
  b[0]`` for ``b = np.eye(3)[j]`` set by the loop around it: the reverse inner loop read
  ``b`` of the outer loop's last pass in every pass (the outer reverse loop does not
  give ``b`` back). ``d/dx sum_j sum_i x_i b_j[0] x_j`` gave ``[0.7, 0, 0]`` for
  ``[1.0, 0.3, 0.3]``; ``s2sad.jacobian`` made inside a differentiated function (its
  columns are such a loop around the inner function's) gave ``[1.7, 0.3, 0.3]`` for
  ``[2.0, 0.6, 0.6]``.
* ``target="numba"``: a SciPy function (``scipy.linalg.cho_solve``, ``solve_triangular``)
  was read as a helper of the user's, and refused inside SciPy's own wrapper
  (``scipy/_lib/_util.py``, "a closure (it reads f, n_arrays...)"); it is refused at the
  user's call, as a NumPy function numba has no version of is.
* ``target="dask"``: ``y = z.astype(np.float64)`` (or ``np.array(z)``) then ``y[2] *= v``.
  Dask's ``astype`` to the same dtype returns ``z`` itself, and ``da.array(z)`` does not
  copy, so the store changed ``z`` too: a value and gradient that were neither NumPy's
  nor the function's. A store into a value known as "a number or an array" is now
  refused at its line, as a store into an array already was.
"""

from __future__ import annotations

import numpy as np
import pytest

import s2sad
from s2sad.errors import DifferentiationError
from tests.test_higher_order import central_differences

A = np.array([0.3, -0.8, 1.2])
B = np.array([0.5, 0.2, -0.4])
C = np.array([1.1, 0.6, 0.9])


def three(a, b, c):
    return np.sum(a * b) * np.sum(np.exp(b * c)) + np.sum(a ** 2 * c)


def items(xs, y):
    return xs[0] * xs[1] ** 2 * y + np.sin(xs[1]) * xs[0]


def _partial(f, args, i):
    """Central differences of ``f`` along argument ``i``, flat (an array or a list)."""
    args = list(args)

    def along(value):
        moved = list(args)
        moved[i] = value if isinstance(args[i], np.ndarray) else list(value)
        return f(*moved)
    return central_differences(lambda v: along(v), (np.asarray(args[i], dtype=float),), 0)


# --- forward mode: an argument named twice in wrt ----------------------------------------


@pytest.mark.parametrize("wrt, tangents, weights", [
    ((1, 1), (C, A), {1: C + A}),
    (("b", 1), (C, A), {1: C + A}),
    ((1, 0, 1), (C, A, B), {1: C + B, 0: A}),
    ((2, 1, 2, 2), (A, B, C, A), {2: A + C + A, 1: B}),
])
def test_jvp_of_an_argument_named_twice_sums_its_tangents(wrt, tangents, weights):
    value, push = s2sad.jvp(three, wrt=wrt)(A, B, C)
    want = sum(_partial(three, (A, B, C), i) @ w for i, w in weights.items())
    np.testing.assert_allclose(push(*tangents), want, rtol=1e-7, atol=1e-9)
    assert value == three(A, B, C)


def test_jvp_of_a_list_argument_named_twice():
    xs = [0.4, 0.9]
    tangent = s2sad.jvp(items, wrt=(0, 0))(xs, 1.5)[1]([1.0, 0.0], [0.5, -1.0])
    want = _partial(lambda v, y: items(list(v), y), (np.array(xs), 1.5), 0) @ np.array(
        [1.5, -1.0])
    np.testing.assert_allclose(tangent, want, rtol=1e-7)


def test_forward_jacobian_of_a_gradient_with_an_argument_named_twice():
    got = s2sad.jacobian(s2sad.grad(three, wrt=0), wrt=(1, 1), mode="fwd")(A, B, C)
    want = np.moveaxis(central_differences(
        lambda b: s2sad.grad(three, wrt=0)(A, b, C), (B,), 0), 0, 1)  # (output, input)
    reverse = s2sad.jacobian(s2sad.grad(three, wrt=0), wrt=(1, 1), mode="rev")(A, B, C)
    assert len(got) == 2
    for part, other in zip(got, reverse):
        np.testing.assert_allclose(part, want, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(part, other, rtol=1e-12, atol=1e-12)


# --- nested loops: a value the loop around sets, read by the inner loop's adjoint ------


def row_of_the_identity(x):
    total = 0.0
    for j in range(3):
        b = np.eye(3)[j]
        for i in range(3):
            total = total + x[i] * b[0] * x[j]
    return total


def rows_given(x):
    rows = list(np.eye(3))
    total = 0.0
    for j in range(len(rows)):
        b = rows[j].reshape(np.shape(x))
        out = []
        for i in range(3):
            out.append(x[i] * b[0] + b[i] * x[0])
        total = total + np.sum(np.array(out) * x[j])
    return total


def rows_of_a_list(x):
    rows = [np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0]), np.array([-0.3, 0.7, 1.1])]
    total = 0.0
    for j in range(3):
        b = rows[j]
        for i in range(j + 1):
            total = total * 0.9 + x[i] * b[0]
    return total


def rows_backwards(x):
    rows = [np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0]), np.array([-0.3, 0.7, 1.1])]
    total = 0.0
    for j in range(3):
        b = rows[2 - j]
        for i in range(0, 3, 2):
            total = total + np.sin(x[i] * b[0]) * x[j]
    return total


def three_deep(x):
    total = 0.0
    for j in range(3):
        b = np.eye(3)[j]
        for i in range(3):
            for k in range(2):
                total = total + x[i] * b[k] * x[j]
    return total


def products(x):
    out = []
    for i in range(3):
        out.append(x[i] * x[0])
    return np.array(out)


def slices(x):
    out = []
    for i in range(3):
        out.append(np.sum(x[: i + 1] ** 2) * x[i])
    return np.array(out)


def inner_loops(x):
    s = 0.0
    for i in range(3):
        r = x[i] * 1.0
        for k in range(2):
            s = s + r * x[k] ** 2
    return s


def hessian_inside(x):
    return np.sum(s2sad.hessian(inner_loops)(x) * np.outer(x, x))


def hvp_in_a_loop(x):
    t = 0.0
    for j in range(3):
        e = np.eye(3)[j]
        t = t + np.sum(s2sad.hvp(inner_loops)(x, e) * x)
    return t


def jacobian_inside(x):
    return np.sum(s2sad.jacobian(products)(x) * x)


def jacobian_inside_reverse(x):
    return np.sum(s2sad.jacobian(slices, mode="rev")(x) * x)


@pytest.mark.parametrize("f", [row_of_the_identity, rows_given, rows_of_a_list, rows_backwards,
                               three_deep, jacobian_inside, jacobian_inside_reverse,
                               hessian_inside, hvp_in_a_loop])
def test_a_value_of_the_outer_loop_read_by_the_inner_loops_adjoint(f):
    np.testing.assert_allclose(s2sad.grad(f)(A), central_differences(f, (A,), 0),
                               rtol=1e-7, atol=1e-9)


def rows_of_an_argument(x, W):
    total = 0.0
    for j in range(3):
        b = W[j]
        for i in range(3):
            total = total + x[i] * b[0] * x[j]
    return total


W3 = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [-0.3, 0.7, 1.1]])


@pytest.mark.parametrize("target", ["numpy", "numba"])
def test_the_outer_loops_row_on_each_target(target):
    if target == "numba":
        pytest.importorskip("numba")
    got = s2sad.grad(rows_of_an_argument, target=target)(A, W3)  # (was [0.49, 0.14, -0.42])
    np.testing.assert_allclose(got, central_differences(rows_of_an_argument, (A, W3), 0),
                               rtol=1e-7, atol=1e-9)


def test_hessian_of_a_jacobian_made_inside():
    got = s2sad.hessian(jacobian_inside)(A)
    np.testing.assert_allclose(got, central_differences(s2sad.grad(jacobian_inside), (A,), 0),
                               rtol=1e-6, atol=1e-8)


# --- Dask: a store into a value that may be the array it came from -----------------------


def store_into_astype(x):
    z = x * 1.0
    y = z.astype(np.float64)
    y[2] *= x[2]
    return np.sum(z * np.sin(z)) + np.sum(y) * x[1]


def store_into_np_array(x):
    z = x * 1.0
    y = np.array(z)
    y[2] = y[2] * x[2]
    return np.sum(z * np.sin(z)) + np.sum(y) * x[1]


V4 = np.array([0.2, 0.5, 0.9, -0.3])


@pytest.mark.parametrize("f", [store_into_astype, store_into_np_array])
def test_a_store_into_a_number_or_array_on_dask_is_refused_at_its_line(f):
    da = pytest.importorskip("dask.array")
    with pytest.raises(DifferentiationError, match="store into an item") as info:
        s2sad.value_and_grad(f, target="dask")(da.from_array(V4, chunks=2))
    assert info.value.lineno in (f.__code__.co_firstlineno + 3,)
    assert "target='numpy'" in str(info.value)
    # (the NumPy target's gradient stays right)
    np.testing.assert_allclose(s2sad.grad(f)(V4), central_differences(f, (V4,), 0),
                               rtol=1e-7, atol=1e-9)


# --- numba: a SciPy function refused at the user's call ----------------------------------


try:
    import scipy.linalg as sl
except ImportError:  # (the test that reads it skips)
    sl = None


def solves_with_scipy(x):
    y = sl.cho_solve(sl.cho_factor(np.outer(x, x) + 3.0 * np.eye(3)), x)
    return np.sum(y * y)


def test_a_scipy_function_on_numba_is_refused_at_the_users_call():
    pytest.importorskip("numba")
    pytest.importorskip("scipy")
    from s2sad.errors import UnsupportedSyntaxError
    with pytest.raises(UnsupportedSyntaxError, match="cho_solve") as info:
        s2sad.grad(solves_with_scipy, target="numba")(A)
    assert info.value.filename == __file__
    assert info.value.lineno == solves_with_scipy.__code__.co_firstlineno + 1
    assert "target='numpy'" in str(info.value)
    np.testing.assert_allclose(s2sad.grad(solves_with_scipy)(A),
                               central_differences(solves_with_scipy, (A,), 0), rtol=1e-6)
