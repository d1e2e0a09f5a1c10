"""Higher derivatives: s2sad differentiates the gradients it generates.

``s2sad.grad(s2sad.grad(f))`` reads the generated gradient back (it is registered in
``linecache``) and differentiates it like any function: its loops, the stack it
records on, the runtime helpers it calls. Second and third derivatives, Hessians
(forward over reverse), Hessian-vector products and Jacobians are each compared
with central finite differences of the derivative one order lower, on a table with
loops, branches, early exits, list appends and in-place updates.
"""

import numpy as np
import pytest

import s2sad  # noqa: E402
from s2sad.source import FunctionSource  # noqa: E402
from s2sad.runtime import average_grad, cumprod_grad, prod_grad, std_grad  # noqa: E402
from s2sad.runtime.hessians import (average_grad_partial, cumprod_hvp, prod_hvp,  # noqa: E402
                                    std_grad_partial)
from s2sad.runtime.higher import average_tangent, cumprod_tangent  # noqa: E402
from tests import cases_control as C  # noqa: E402

rng = np.random.default_rng(5)
EPS = 1e-5


def cube(x):
    y = x * x * x
    return y


def test_seed_cube_first_second_third():
    d1 = s2sad.grad(cube)
    d2 = s2sad.grad(d1)
    d3 = s2sad.grad(d2)
    assert d1(1.0) == 3.0
    assert d2(1.0) == 6.0
    assert d3(1.0) == 6.0
    assert s2sad.grad(d3)(1.0) == 0.0


def test_generated_gradient_has_real_source():
    d1 = s2sad.grad(cube)
    d1(1.0)
    source = FunctionSource.of(d1._last.function)
    assert source.tree.name == "grad_cube"
    text = s2sad.grad(d1).source_for(1.0)
    assert text.splitlines()[0].startswith("def grad_grad_cube(x):")
    assert "grad_grad_grad_cube" in s2sad.grad(s2sad.grad(d1)).source_for(2.0)


def derivative(f, args, wrt=0):
    """Central difference of ``f`` along argument ``wrt`` (a float)."""
    up, down = list(args), list(args)
    up[wrt] = args[wrt] + EPS
    down[wrt] = args[wrt] - EPS
    return (np.asarray(f(*up), dtype=float) - np.asarray(f(*down), dtype=float)) / (2 * EPS)


SCALAR_TABLE = [
    (C.range_loop, (0.7, 3), 0), (C.range_loop, (0.7, 0), 0),
    (C.scalar_while, (1.3,), 0), (C.branchy, (2.0, 1.0), 0), (C.branchy, (0.5, 1.0), 0),
    (C.branchy, (-0.5, 1.0), 1), (C.ifexp, (2.0,), 0), (C.ifexp, (-0.5,), 0),
    (C.loop_carried_pair, (0.8,), 0), (C.nested_branch_in_loop, (0.45,), 0),
    (C.while_with_counter, (1.7,), 0), (C.not_and_or, (0.5, 2.0), 0),
    (C.for_else, (0.9,), 0), (C.while_else, (0.9,), 0), (C.early_returns, (2.5,), 0),
    (C.early_returns, (0.5,), 0), (C.early_returns, (-0.5,), 0),
    (C.loop_with_break, (0.9,), 0), (C.loop_with_continue, (0.7,), 0),
    (C.while_true_break, (1.1,), 0), (C.for_else_break, (0.3,), 0),
    (C.for_else_break, (2.0,), 0), (C.tuple_loop, (0.4,), 0),
    (C.list_loop, ([0.5, -1.5, 2.0], 0.3), 1), (C.append_loop, (0.4,), 0),
    (C.append_then_index, (0.4,), 0), (C.setitem_list, (0.3, 1.2), 0),
    (C.setitem_list, (0.3, 1.2), 1), (C.sequence_conversions, (0.3, 0.7), 0),
    (C.sequence_conversions, (0.3, 0.7), 1),
    (C.iterate_a_name_rebound_in_the_loop, (0.4, np.array([0.1, 0.5, -0.3])), 0),
    (C.return_then_continue, (1.3,), 0), (C.continue_inside_a_returning_branch, (0.9,), 0),
    (C.continue_inside_a_returning_branch, (1.3,), 0), (C.unreachable_after_jumps, (1.3,), 0),
    (C.matrix_display, (1.3,), 0), (C.tuple_matrix_display, (1.3,), 0),  # were a zip error
    (C.dict_items_loop, (1.3,), 0), (C.dict_items_of_arrays, (1.3,), 0),  # (lists added as
    (C.dict_items_of_pairs, (1.3,), 0),                                   # numbers)
    (C.helper_row_from_nested_branches, (1.3,), 0),
    (C.helper_row_from_nested_branches, (0.7,), 0),
    (C.helper_row_from_nested_branches, (-0.5,), 0),
]


def _ids(table):
    return [f"{f.__name__}-{i}" for i, (f, *_rest) in enumerate(table)]


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("f, args, wrt", SCALAR_TABLE, ids=_ids(SCALAR_TABLE))
def test_second_derivative(f, args, wrt, optimize):
    d1 = s2sad.grad(f, wrt=wrt, optimize=optimize)
    d2 = s2sad.grad(d1, wrt=wrt, optimize=optimize)
    np.testing.assert_allclose(d2(*args), derivative(d1, args, wrt), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, args, wrt", SCALAR_TABLE, ids=_ids(SCALAR_TABLE))
def test_third_derivative(f, args, wrt):
    d2 = s2sad.grad(s2sad.grad(f, wrt=wrt), wrt=wrt)
    d3 = s2sad.grad(d2, wrt=wrt)
    np.testing.assert_allclose(d3(*args), derivative(d2, args, wrt), rtol=1e-4, atol=1e-5)


# --- vector arguments: Hessians (forward over reverse), HVPs, reverse over reverse ---------------


def mlp(W, x):
    h = np.tanh(W @ x)
    return np.sum(h ** 2) + 0.1 * np.sum(W ** 2)


def softmax_loss(z):
    e = np.exp(z - np.max(z))
    p = e / np.sum(e)
    return -np.log(p[1])


VECTOR_TABLE = [
    (C.seed_while, (rng.normal(size=3),), 0),
    (C.sum_loop, (rng.normal(size=4),), 0),
    (C.nested, (rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(4, 3))), 0),
    (C.nested, (rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(4, 3))), 1),
    (C.zipped, (rng.normal(size=4), rng.normal(size=4)), 0),
    (C.rnn, (rng.normal(size=(4, 4)) * 0.4, rng.normal(size=(4, 3)), rng.normal(size=(5, 3)),
             rng.normal(size=4)), 0),
    (C.rnn, (rng.normal(size=(4, 4)) * 0.4, rng.normal(size=(4, 3)), rng.normal(size=(5, 3)),
             rng.normal(size=4)), 3),
    (C.conditional_expression_array, (np.abs(rng.normal(size=3)),), 0),
    (C.nested_break, (rng.normal(size=3),), 0),
    (C.setitem_basic, (rng.normal(size=3),), 0),
    (C.setitem_in_loop, (rng.normal(size=5),), 0),
    (C.setitem_mask, (rng.normal(size=6),), 0),
    (C.setitem_broadcast, (rng.normal(size=3), 0.7), 0),
    (C.list_comprehension, (rng.normal(size=4),), 0),
    (C.nested_comprehension, (rng.normal(size=3), rng.normal(size=2)), 0),
    (mlp, (rng.normal(size=(3, 4)), rng.normal(size=4)), 0),
    (softmax_loss, (rng.normal(size=5),), 0),
    (C.generator_layers, (rng.normal(size=9),), 0),
]


def central_differences(g, args, wrt, eps=EPS):
    """Central differences of ``g`` (any output) along each entry of argument ``wrt``,
    shaped ``(argument..., output...)``."""
    x = np.asarray(args[wrt], dtype=float)
    columns = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        up, down = list(args), list(args)
        up[wrt] = x + e.reshape(x.shape)
        down[wrt] = x - e.reshape(x.shape)
        columns.append((np.asarray(g(*up), dtype=float) - np.asarray(g(*down), dtype=float))
                       / (2 * eps))
    return np.array(columns).reshape(x.shape + np.shape(columns[0]))


def _fd_jacobian(g, args, wrt):
    """Finite-difference Jacobian of the (array-valued) ``g`` along argument ``wrt``."""
    out = central_differences(g, args, wrt)  # (input..., output...)
    n = np.ndim(args[wrt])
    return np.moveaxis(out, list(range(n)), list(range(out.ndim - n, out.ndim)))


@pytest.mark.parametrize("f, args, wrt", VECTOR_TABLE, ids=_ids(VECTOR_TABLE))
def test_hessian_against_finite_differences_of_the_gradient(f, args, wrt):
    hessian = s2sad.hessian(f, wrt=wrt)(*args)
    expected = _fd_jacobian(s2sad.grad(f, wrt=wrt), args, wrt)
    np.testing.assert_allclose(hessian, expected, rtol=1e-5, atol=1e-6)
    x = np.asarray(args[wrt])
    flat = np.reshape(hessian, (x.size, x.size))
    np.testing.assert_allclose(flat, flat.T, rtol=1e-7, atol=1e-9)  # symmetric


@pytest.mark.parametrize("f, args, wrt", VECTOR_TABLE, ids=_ids(VECTOR_TABLE))
def test_hvp_forward_over_reverse_and_reverse_over_reverse(f, args, wrt):
    x = np.asarray(args[wrt])
    v = rng.normal(size=x.shape)
    hv = s2sad.hvp(f, wrt=wrt)(*args, v)
    expected = np.tensordot(_fd_jacobian(s2sad.grad(f, wrt=wrt), args, wrt), v, v.ndim)
    np.testing.assert_allclose(hv, expected, rtol=1e-5, atol=1e-6)
    # reverse over reverse: the gradient of <grad f, v> is H v too (H is symmetric)
    _, pullback = s2sad.vjp(s2sad.grad(f, wrt=wrt), wrt=wrt)(*args)
    np.testing.assert_allclose(pullback(v), hv, rtol=1e-7, atol=1e-9)


def test_hessian_of_a_float_argument_is_a_float():
    assert s2sad.hessian(cube)(2.0) == pytest.approx(12.0)


def test_hvp_source_is_forward_mode_over_the_gradient():
    text = s2sad.hvp(mlp).source_for(np.ones((2, 3)), np.ones(3))
    assert text.splitlines()[-1].startswith("    return (ret,")
    assert "def jvp_grad_mlp(W, x, d_W):" in text
    assert "d_s_W" in text


# --- Jacobians ------------------------------------------------------------------------------


def vector_function(x, w):
    h = np.tanh(w * x)
    out = np.zeros(3)
    for i in range(3):
        out[i] = h[i] * h[i + 1]
    return out


def list_output(x):
    return [x[0] * x[1], np.sin(x[0]), 2.0 * x[1]]


@pytest.mark.parametrize("mode", ["rev", "fwd", "auto"])
def test_jacobian_modes_against_finite_differences(mode):
    x, w = rng.normal(size=4), 0.7
    J = s2sad.jacobian(vector_function, mode=mode)(x, w)
    np.testing.assert_allclose(J, _fd_jacobian(vector_function, (x, w), 0), rtol=1e-6,
                               atol=1e-8)
    assert J.shape == (3, 4)


def test_jacobian_of_a_list_output_and_several_arguments():
    x = np.array([0.3, -1.2])
    J = s2sad.jacobian(list_output, mode="rev")(x)
    np.testing.assert_allclose(J, [[-1.2, 0.3], [np.cos(0.3), 0.0], [0.0, 2.0]])
    np.testing.assert_allclose(s2sad.jacobian(list_output, mode="fwd")(x), J)
    Jx, Jw = s2sad.jacobian(vector_function, wrt=(0, 1))(np.ones(4) * 0.5, 0.7)
    assert Jx.shape == (3, 4) and Jw.shape == (3,)
    np.testing.assert_allclose(Jw, derivative(vector_function, (np.ones(4) * 0.5, 0.7), 1),
                               rtol=1e-6)


def test_jacobian_of_the_gradient_is_the_hessian():
    x = rng.normal(size=5)
    H1 = s2sad.jacobian(s2sad.grad(softmax_loss), mode="rev")(x)
    H2 = s2sad.hessian(softmax_loss)(x)
    np.testing.assert_allclose(H1, H2, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_jacobian_of_a_jacobian_against_differences_of_the_jacobian(mode):
    """(Once ``TypeError: vjp_f(): too many positional arguments``.)"""
    x, w, eps = rng.normal(size=4), 0.7, 1e-6
    inner = s2sad.jacobian(vector_function)
    expected = np.stack([(inner(x + e, w) - inner(x - e, w)) / (2 * eps)
                         for e in np.eye(4) * eps], axis=-1)
    got = s2sad.jacobian(inner, mode=mode)(x, w)
    assert got.shape == (3, 4, 4)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)
    along_w = s2sad.jacobian(inner, wrt=1, mode=mode)(x, w)
    np.testing.assert_allclose(along_w, (inner(x, w + eps) - inner(x, w - eps)) / (2 * eps),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(s2sad.jacobian(s2sad.jacobian(softmax_loss), mode=mode)(x),
                               s2sad.hessian(softmax_loss)(x), rtol=1e-9, atol=1e-12)


def test_errors_for_what_cannot_be_differentiated_again():
    with pytest.raises(s2sad.DifferentiationError, match="one gradient"):
        s2sad.grad(s2sad.value_and_grad(cube))
    with pytest.raises(s2sad.NonScalarOutputError):
        s2sad.grad(s2sad.grad(mlp))(np.ones((2, 3)), np.ones(3))


def scale_global(x):
    return SCALE * x * x


SCALE = 2.0


def test_globals_are_read_live_through_every_order():
    global SCALE
    d2 = s2sad.grad(s2sad.grad(scale_global))
    assert d2(1.0) == 4.0
    SCALE = 3.0
    try:
        assert d2(1.0) == 6.0
    finally:
        SCALE = 2.0


# --- second derivatives of every rule of the NumPy table ---------------------------------------

# sinc's adjoint is written with np.where(x == 0, ...): right at 0, but its derivative there
# is the where's, not sinc's second derivative
CONVENTION = ("sinc-at-0",)


def _rule_rows():
    import test_numpy_rules as T
    rows = []
    for name, f, args, i in T.higher_order_rows():
        marks = []
        if name.startswith(CONVENTION):
            marks = [pytest.mark.xfail(strict=True, reason="a convention at a kink")]
        if name == "eigh-repeated":
            marks = [pytest.mark.skip(reason="at a repeated eigenvalue a second derivative "
                                             "goes through the eigenvectors' turn, which has "
                                             "none: infinite (tests/test_linalg_second_order)")]
        rows.append(pytest.param(f, args, i, id=name, marks=marks))
    return rows


@pytest.mark.parametrize("f, args, wrt", _rule_rows())
def test_second_derivative_of_every_rule(f, args, wrt):
    """Forward over reverse (hvp) and reverse over reverse (vjp of the gradient) against
    central differences of the gradient along a random direction."""
    import test_numpy_rules as T
    args = list(T._copy(args))
    x = args[wrt]
    v = rng.normal(size=np.shape(x)) if np.ndim(x) else float(rng.normal())
    gradient = s2sad.grad(f, wrt=wrt)
    up, down = list(args), list(args)
    up[wrt], down[wrt] = x + EPS * v, x - EPS * v
    expected = (np.asarray(gradient(*up)) - np.asarray(gradient(*down))) / (2 * EPS)
    np.testing.assert_allclose(s2sad.hvp(f, wrt=wrt)(*args, v), expected, rtol=1e-4, atol=1e-5)
    _, pullback = s2sad.vjp(gradient, wrt=wrt)(*args)
    np.testing.assert_allclose(pullback(v), expected, rtol=1e-4, atol=1e-5)


# --- the rules of the helpers second derivatives call, each checked on its own ----------------
# (generated code calls them; a function that calls them directly exercises the same rules)

H23, V3, V23 = rng.normal(size=2), rng.normal(size=3), rng.normal(size=(2, 3))


def through_prod_grad(x, h):
    return np.sum(np.cos(prod_grad(h, x, 1)))


def through_prod_hvp(x, h, v):
    return np.sum(np.sin(prod_hvp(h, x, v, 1)))


def through_cumprod_grad(x):
    return np.sum(np.sin(cumprod_grad(V3, np.cumprod(x), x)))


def through_cumprod_tangent(x, v):
    return np.sum(np.sin(cumprod_tangent(v, x)))


def through_cumprod_hvp(x, h, v):
    return np.sum(np.sin(cumprod_hvp(h, x, v)))


def through_std_grad(x, h):
    return np.sum(np.sin(std_grad(h, np.std(x, axis=1), x, 1)))


def through_std_grad_partial(x, t, h):
    return np.sum(np.sin(std_grad_partial(t, h, np.std(x, axis=1), x, 1)))


def through_average_grad(a, w, h):
    return np.sum(np.sin(average_grad(h, a, 1, w, False, 1)) + np.cos(average_grad(h, a, 1, w)))


def through_average_tangent(a, w, t):
    return np.sum(np.sin(average_tangent(t, a, 1, w, False, 1)))


def through_average_grad_partial(a, w, t, h):
    return np.sum(np.sin(average_grad_partial(t, h, a, 1, w, False, 1, 1)))


with_zero = np.array([[0.5, 0.0, 2.0], [1.5, 0.7, -1.2]])
HELPER_TABLE = [
    (through_prod_grad, (V23, H23), (0, 1)), (through_prod_grad, (with_zero, H23), (0, 1)),
    (through_prod_hvp, (V23, H23, rng.normal(size=(2, 3))), (1, 2)),
    (through_cumprod_grad, (V3,), 0), (through_cumprod_grad, (np.array([0.5, 0.0, 2.0]),), 0),
    (through_cumprod_tangent, (V3, rng.normal(size=3)), (0, 1)),
    (through_cumprod_hvp, (V3, rng.normal(size=3), rng.normal(size=3)), 2),
    (through_std_grad, (V23, H23), (0, 1)),
    (through_std_grad_partial, (V23, rng.normal(size=(2, 3)), H23), 1),
    (through_average_grad, (V23, np.array([1.0, 2.0, 0.5]), H23), (0, 1, 2)),
    (through_average_tangent, (V23, np.array([1.0, 2.0, 0.5]), rng.normal(size=3)), (0, 1, 2)),
    (through_average_grad_partial, (V23, np.array([1.0, 2.0, 0.5]), rng.normal(size=3), H23),
     2),
]


@pytest.mark.parametrize("f, args, wrt", HELPER_TABLE, ids=_ids(HELPER_TABLE))
def test_rules_of_the_helpers_second_derivatives_call(f, args, wrt):
    """Reverse (the adjoint rules) and forward mode (the tangent rules) against central
    differences, in each argument the rules differentiate."""
    wrts = wrt if isinstance(wrt, tuple) else (wrt,)
    got = s2sad.grad(f, wrt=wrt)(*args)
    for i, g in zip(wrts, got if isinstance(wrt, tuple) else (got,)):
        expected = _fd_jacobian(f, args, i).reshape(np.shape(args[i]))
        np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8)
        v = rng.normal(size=np.shape(args[i]))
        _, tangent = s2sad.jvp(f, wrt=i)(*args)
        np.testing.assert_allclose(tangent(v), np.sum(expected * v), rtol=1e-6, atol=1e-8)
