"""Second and higher derivatives through ``solve``, ``cholesky``, the norms and the
eigen- and singular value decompositions.

The helpers of ``s2sad.runtime.linalg`` are checked on their own against
central differences of the first-order helpers, then end to end: ``s2sad.hvp``
(forward over reverse) and ``s2sad.vjp`` of the gradient (reverse over reverse)
against differences of the gradient, for the arguments and shapes the table of
``test_higher_order`` leaves out (``b``, broadcast stacks, axes, ``keepdims``,
rectangular and batched spectral norms), and third and fourth derivatives along a
scalar parameter.
"""

import numpy as np
import pytest

import s2sad  # noqa: E402
from s2sad.runtime import cholesky_grad, norm_grad, solve_grad  # noqa: E402
from s2sad.runtime.higher import cholesky_tangent, solve_tangent  # noqa: E402
from s2sad.runtime.linalg import (cholesky_grad_adjoint_l,  # noqa: E402
                                  cholesky_grad_tangent_l, cholesky_tangent_tangent_l,
                                  norm_grad_second, solve_grad_solution)

rng = np.random.default_rng(11)
EPS = 1e-6


def fd(f, x, d, eps=EPS):
    return (f(x + eps * d) - f(x - eps * d)) / (2 * eps)


def spd(batch=(), n=3):
    return np.eye(n) * 2.0 + 0.3 * rng.uniform(-1.0, 1.0, size=batch + (n, n))


def away(*shape):
    return rng.uniform(0.3, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)


# --- the helpers on their own ------------------------------------------------------------------

SOLVE_SHAPES = [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 2)), ((2, 3, 3), (3,)),
                ((2, 3, 3), (3, 2)), ((3, 3), (2, 3, 2))]


@pytest.mark.parametrize("argnum", [0, 1])
@pytest.mark.parametrize("a_shape, b_shape", SOLVE_SHAPES)
def test_solve_grad_derivatives_in_a_and_ans(a_shape, b_shape, argnum):
    a, b = spd(a_shape[:-2]), rng.normal(size=b_shape)
    x = np.linalg.solve(a, b)
    h = rng.normal(size=x.shape)
    da, dx = rng.normal(size=a.shape), rng.normal(size=x.shape)
    out = rng.normal(size=solve_grad(h, x, a, b, argnum).shape)

    def along_a(m):
        return solve_grad(h, x, m, b, argnum)
    tangent = solve_grad(solve_grad_solution(da, h, a, b), x, a, b, argnum)  # the tangent rule
    np.testing.assert_allclose(tangent, fd(along_a, a, da), atol=1e-7)
    adjoint = solve_grad(h, solve_tangent(out, x, a, b, argnum), a, b, 0)  # the adjoint rule
    np.testing.assert_allclose(np.sum(adjoint * da), np.sum(out * tangent), rtol=1e-10)
    if argnum == 0:  # linear in ans: tangent solve_grad(h, dx), adjoint solve_grad_solution
        np.testing.assert_allclose(np.sum(solve_grad_solution(out, h, a, b) * dx),
                                   np.sum(out * solve_grad(h, dx, a, b, 0)), rtol=1e-10)


@pytest.mark.parametrize("a_shape, b_shape", SOLVE_SHAPES)
def test_solve_grad_solution_is_exact_in_a(a_shape, b_shape):
    a, b = spd(a_shape[:-2]), rng.normal(size=b_shape)
    x = np.linalg.solve(a, b)
    m, h, da = rng.normal(size=a.shape), rng.normal(size=x.shape), rng.normal(size=a.shape)
    s = rng.normal(size=x.shape)
    tangent = solve_grad_solution(m, solve_grad_solution(da, h, a, b), a, b)
    np.testing.assert_allclose(tangent, fd(lambda v: solve_grad_solution(m, h, v, b), a, da),
                               atol=1e-7)
    adjoint = solve_grad(h, solve_tangent(m, s, a, b, 0), a, b, 0)
    np.testing.assert_allclose(np.sum(adjoint * da), np.sum(s * tangent), rtol=1e-10)


@pytest.mark.parametrize("batch", [(), (2,)])
def test_cholesky_helpers_along_lower_triangular_changes(batch):
    root = rng.normal(size=batch + (3, 3))
    L = np.linalg.cholesky(root @ np.swapaxes(root, -1, -2) + 3.0 * np.eye(3))
    h, w, big_w = (rng.normal(size=L.shape) for _ in range(3))
    t = np.tril(rng.normal(size=L.shape))
    grad_l = cholesky_grad_tangent_l(t, h, L)
    tangent_l = cholesky_tangent_tangent_l(t, w, L)
    np.testing.assert_allclose(grad_l, fd(lambda m: cholesky_grad(h, m), L, t), atol=1e-7)
    np.testing.assert_allclose(tangent_l, fd(lambda m: cholesky_tangent(w, m), L, t), atol=1e-7)
    # one adjoint for both, and the transposes the third-order rules rely on
    np.testing.assert_allclose(np.sum(cholesky_grad_adjoint_l(big_w, h, L) * t),
                               np.sum(big_w * grad_l), rtol=1e-10)
    np.testing.assert_allclose(np.sum(cholesky_grad_adjoint_l(w, big_w, L) * t),
                               np.sum(big_w * tangent_l), rtol=1e-10)
    np.testing.assert_allclose(np.sum(big_w * grad_l),
                               np.sum(cholesky_tangent_tangent_l(t, big_w, L) * h), rtol=1e-10)
    assert np.array_equal(cholesky_grad_adjoint_l(w, h, L),
                          np.tril(cholesky_grad_adjoint_l(w, h, L)))


NORMS = [((5,), 3, None), ((5,), 2.5, None), ((5,), -1.5, None), ((5,), None, None),
         ((3, 4), 3, 1), ((3, 4), "fro", None), ((3, 4), None, 0), ((3, 2, 4), "fro", (0, 2)),
         ((3, 4), 2, None), ((4, 3), 2, None), ((3, 3), -2, None), ((3, 4), -2, None),
         ((4, 3), "nuc", None), ((3, 4), "nuc", None), ((2, 3, 3), "nuc", (-2, -1)),
         ((2, 3, 4), 2, (2, 1)), ((3, 4), 1, None), ((3, 4), np.inf, None)]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape, ord_, axis", NORMS, ids=[f"{s}-{o}-{a}" for s, o, a in NORMS])
def test_norm_grad_second_partials(shape, ord_, axis, keepdims):
    x = away(*shape)
    ans = np.linalg.norm(x, ord_, axis, keepdims)
    h, s = rng.normal(size=np.shape(ans)), rng.normal(size=np.shape(ans))
    t, out = rng.normal(size=shape), rng.normal(size=shape)

    def second(v, argnum, tangent=False):
        return norm_grad_second(v, h, ans, x, ord_, axis, keepdims, None, argnum, tangent)
    if ord_ in (1, np.inf):  # piecewise linear (ans only picks the maximal sums): no partial
        # derivatives with ans held, and a total derivative of zero, all given to x
        total = fd(lambda y: norm_grad(h, np.linalg.norm(y, ord_, axis, keepdims), y, ord_,
                                       axis, keepdims), x, t)
        np.testing.assert_allclose(second(t, 2, True), total, atol=1e-7)
        assert not np.any(second(s, 1, True)) and not np.any(second(out, 1))
        return
    in_x = fd(lambda y: norm_grad(h, ans, y, ord_, axis, keepdims), x, t)
    np.testing.assert_allclose(second(t, 2, True), in_x, atol=1e-7)
    np.testing.assert_allclose(second(t, 2), in_x, atol=1e-7)  # a Hessian: symmetric
    in_ans = fd(lambda n: norm_grad(h, n, x, ord_, axis, keepdims), ans, s)
    np.testing.assert_allclose(second(s, 1, True), in_ans, atol=1e-7)
    np.testing.assert_allclose(np.sum(second(out, 1) * s), np.sum(out * in_ans), atol=1e-7)


# --- end to end: hvp and the vjp of the gradient -----------------------------------------------


def solve_sq(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


def solve_sin_times_b(a, b):
    return np.sum(np.sin(np.linalg.solve(a, b)) * b[..., :1])


def cholesky_upper(a, w):
    s = a @ np.swapaxes(a, -1, -2) + 3.0 * np.eye(3)
    return np.sum(np.linalg.cholesky(s, upper=True) ** 2 * w)


def cholesky_logdet(a):
    s = a @ np.swapaxes(a, -1, -2) + 3.0 * np.eye(3)
    return np.sum(np.log(np.diagonal(np.linalg.cholesky(s), axis1=-2, axis2=-1)) ** 2)


def norm_p(x, p, axis, keepdims):
    return np.sum(np.linalg.norm(x, p, axis, keepdims) ** 2)


def matrix_norms(x):
    return np.sum(np.linalg.matrix_norm(x, ord=2) * np.linalg.matrix_norm(x, ord=-2)) + \
        np.sum(np.linalg.matrix_norm(x, ord="nuc", keepdims=True) ** 3)


def vector_norms(x):
    return np.sum(np.linalg.vector_norm(x, ord=3, axis=-1) ** 2) + np.linalg.vector_norm(x, ord=4)


def eigh_both(a):
    s = a + np.swapaxes(a, -1, -2)
    w, v = np.linalg.eigh(s)
    return np.sum(w ** 3) + np.sum(v[..., -1] ** 4)


def svd_all(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(s ** 3) + np.sum((u[..., 0] * vh[..., 0, :1]) ** 2)


def eigvalsh_and_svdvals(a):
    return np.sum(np.linalg.eigvalsh(a @ np.swapaxes(a, -1, -2)) ** 2) + \
        np.sum(np.linalg.svdvals(a) ** 3)


END_TO_END = [
    ("eigh", eigh_both, [rng.normal(size=(3, 3))], 0),
    ("eigh-batched", eigh_both, [rng.normal(size=(2, 3, 3))], 0),
    ("svd-tall", svd_all, [rng.normal(size=(4, 3))], 0),
    ("svd-wide-batched", svd_all, [rng.normal(size=(2, 3, 4))], 0),
    ("eigvalsh-svdvals", eigvalsh_and_svdvals, [rng.normal(size=(3, 4))], 0),
    ("solve-b-vector", solve_sq, [spd(), rng.normal(size=3)], 1),
    ("solve-b-matrix", solve_sq, [spd(), rng.normal(size=(3, 2))], 1),
    ("solve-a-broadcast-b", solve_sq, [spd(), rng.normal(size=(2, 3, 2))], 0),
    ("solve-b-broadcast-b", solve_sq, [spd(), rng.normal(size=(2, 3, 2))], 1),
    ("solve-a-broadcast-a", solve_sq, [spd((2,)), rng.normal(size=(3, 2))], 0),
    ("solve-b-batched-vector", solve_sq, [spd((2,)), rng.normal(size=3)], 1),
    ("solve-a-b-in-both", solve_sin_times_b, [spd((2,)), rng.normal(size=(2, 3, 2))], 0),
    ("solve-b-b-in-both", solve_sin_times_b, [spd((2,)), rng.normal(size=(2, 3, 2))], 1),
    ("cholesky-upper-squared", cholesky_upper, [rng.normal(size=(3, 3)),
                                                rng.normal(size=(3, 3))], 0),
    ("cholesky-batched-logdet", cholesky_logdet, [rng.normal(size=(2, 3, 3))], 0),
    ("norm-p3-axis", norm_p, [away(3, 4), 3, 1, False], 0),
    ("norm-p2.5-keepdims", norm_p, [away(3, 4), 2.5, 0, True], 0),
    ("norm-2-rectangular-tall", norm_p, [away(4, 3), 2, None, False], 0),
    ("norm-nuc-batched-axes", norm_p, [away(2, 3, 4), "nuc", (2, 0), False], 0),
    ("norm-fro-keepdims", norm_p, [away(2, 3, 4), "fro", (1, 2), True], 0),
    ("matrix_norm-2-and-nuc", matrix_norms, [away(2, 3, 4)], 0),
    ("vector_norm", vector_norms, [away(2, 5)], 0),
]


@pytest.mark.parametrize("f, args, wrt", [pytest.param(*row[1:], id=row[0])
                                          for row in END_TO_END])
def test_second_derivatives_end_to_end(f, args, wrt):
    x = args[wrt]
    v = rng.normal(size=np.shape(x))
    gradient = s2sad.grad(f, wrt=wrt)
    up, down = list(args), list(args)
    up[wrt], down[wrt] = x + EPS * v, x - EPS * v
    expected = (gradient(*up) - gradient(*down)) / (2 * EPS)
    np.testing.assert_allclose(s2sad.hvp(f, wrt=wrt)(*args, v), expected, rtol=1e-5, atol=1e-6)
    _, pullback = s2sad.vjp(gradient, wrt=wrt)(*args)
    np.testing.assert_allclose(pullback(v), expected, rtol=1e-5, atol=1e-6)


# --- third and fourth derivatives along a scalar parameter -------------------------------------

A_STACK, D_STACK = spd((2,)), rng.normal(size=(2, 3, 3))
B_VECTOR, B_MATRIX = rng.normal(size=3), rng.normal(size=(2, 3, 2))
ROOT, DIRECTION, WEIGHTS = rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), rng.normal(size=(3, 3))


def solve_along(s, b):
    return np.sum(np.linalg.solve(A_STACK + s * D_STACK, b) ** 2)


def solve_b_along(s, a):
    return np.sum(np.linalg.solve(a, B_MATRIX * (1.0 + s * s)) ** 3)


def cholesky_along(s, w):
    root = ROOT + s * DIRECTION
    return np.sum(np.linalg.cholesky(root @ root.T + 3.0 * np.eye(3)) * w)


def norm_along(s, c, x, d, p):
    return c * np.linalg.norm(x + s * d, p)


def _derivatives(f, order, wrt=0):
    out = [f]
    for _ in range(order):
        out.append(s2sad.grad(out[-1], wrt=wrt))
    return out


def _check_last(derivatives, args, wrt=0, eps=1e-3):
    """The last derivative against a Richardson-extrapolated central difference of the one
    before it: ``(4 D(eps/2) - D(eps)) / 3`` cancels the ``eps**2`` term, so the oracle's error
    is ``O(eps**4)`` and does not hang on how curved the drawn point happens to be."""
    def central(h):
        up, down = list(args), list(args)
        up[wrt], down[wrt] = args[wrt] + h, args[wrt] - h
        return (derivatives[-2](*up) - derivatives[-2](*down)) / (2 * h)
    expected = (4 * central(eps / 2) - central(eps)) / 3
    np.testing.assert_allclose(derivatives[-1](*args), expected, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("b", [B_VECTOR, B_MATRIX], ids=["vector", "matrix"])
def test_solve_in_a_to_the_fourth_order(b):
    d = _derivatives(solve_along, 4)
    for k in (2, 3, 4):
        _check_last(d[:k + 1], (0.3, b))


def test_solve_in_b_to_the_third_order():
    _check_last(_derivatives(solve_b_along, 3), (0.4, A_STACK))


def test_cholesky_third_order_in_the_linear_argument():
    """d/dw of the second derivative along L: the derivatives of the new helpers in their
    sensitivities; and the third and fourth derivatives along L alone (jets of matrices)."""
    d2 = _derivatives(cholesky_along, 2)[-1]
    mixed = s2sad.grad(d2, wrt=1)(0.2, WEIGHTS)
    v = rng.normal(size=(3, 3))
    expected = fd(lambda w: d2(0.2, w), WEIGHTS, v, 1e-3)  # d2 is linear in w
    np.testing.assert_allclose(np.sum(mixed * v), expected, rtol=1e-8)
    d = _derivatives(cholesky_along, 4)
    for k in (3, 4):
        _check_last(d[:k + 1], (0.2, WEIGHTS))


@pytest.mark.parametrize("shape, p", [((5,), 3), ((3, 4), 2), ((3, 4), "fro"), ((4, 3), "nuc")])
def test_norm_third_order_in_the_linear_argument(shape, p):
    """d/dc of the second derivative of ``c * norm(x + s d)``: ``norm_grad_second`` in its
    sensitivities; the third derivative in s alone, and the fourth but for the spectral
    norms (not written)."""
    x, d = away(*shape), rng.normal(size=shape)
    d2 = _derivatives(norm_along, 2)[-1]
    mixed = s2sad.grad(d2, wrt=1)(0.2, 1.7, x, d, p)
    np.testing.assert_allclose(mixed, d2(0.2, 1.0, x, d, p), rtol=1e-10)  # c times a constant
    derivatives = _derivatives(norm_along, 4)
    _check_last(derivatives[:4], (0.2, 1.7, x, d, p))
    if p in (2, "nuc"):
        with pytest.raises(s2sad.NoDerivativeError, match="norm_grad_third"):
            derivatives[4](0.2, 1.7, x, d, p)
    else:
        _check_last(derivatives, (0.2, 1.7, x, d, p))


def _rule_parts(function, parsed, values, parts):
    """Parts ``parts`` of what a rule returns, each evaluated alone (as the compiler inlines
    only the parts it needs: the others may raise ``NoDerivativeError``)."""
    import ast
    import inspect

    import gast
    names = dict(zip(inspect.signature(function).parameters, values))
    returned = parsed[1].elts
    out = []
    for i in parts:
        tree = ast.fix_missing_locations(ast.Expression(gast.gast_to_ast(returned[i])))
        out.append(eval(compile(tree, "<rule>", "eval"), function.__globals__, names))
    return out


@pytest.mark.parametrize("argnum, tangent", [(1, False), (1, True), (2, False), (2, True)])
@pytest.mark.parametrize("shape, ord_, axis, keepdims", [((3, 4), 3, 1, False),
                                                         ((2, 3, 4), "nuc", (1, 2), True)])
def test_norm_grad_second_rules_in_t_and_h(shape, ord_, axis, keepdims, argnum, tangent):
    """The rules of ``norm_grad_second``, linear in ``t`` and in ``h``, against the helper."""
    from s2sad import registry
    rule = registry.lookup(norm_grad_second)
    x = away(*shape)
    ans = np.linalg.norm(x, ord_, axis, keepdims)
    h, dh = rng.normal(size=np.shape(ans)), rng.normal(size=np.shape(ans))
    t_shape = np.shape(ans) if argnum == 1 and tangent else shape
    t, dt = rng.normal(size=t_shape), rng.normal(size=t_shape)

    def second(t_, h_):
        return norm_grad_second(t_, h_, ans, x, ord_, axis, keepdims, None, argnum, tangent)
    out = rng.normal(size=np.shape(second(t, h)))
    args = (t, h, ans, x, ord_, axis, keepdims, None, argnum, tangent)
    t_bar, h_bar = _rule_parts(rule.adjoint, rule.parsed(), (out, None) + args, (0, 1))
    np.testing.assert_allclose(np.sum(t_bar * dt), np.sum(out * second(dt, h)), rtol=1e-10)
    np.testing.assert_allclose(np.sum(h_bar * dh), np.sum(out * second(t, dh)), rtol=1e-10)
    t_dot, = _rule_parts(rule.tangent, rule.parsed_tangent(), (dt, None) + args, (0,))
    h_dot, = _rule_parts(rule.tangent, rule.parsed_tangent(), (dh, None) + args, (1,))
    np.testing.assert_allclose(t_dot, second(dt, h), rtol=1e-12)
    np.testing.assert_allclose(h_dot, second(t, dh), rtol=1e-12)


@pytest.mark.parametrize("helper", [cholesky_grad_tangent_l, cholesky_tangent_tangent_l,
                                    cholesky_grad_adjoint_l, solve_grad_solution],
                         ids=lambda f: f.__name__)
def test_rules_of_the_bilinear_helpers(helper):
    """Adjoint and tangent rules in the two linear arguments (and, for
    ``solve_grad_solution``, in ``a`` too) against the helper itself."""
    from s2sad import registry
    rule = registry.lookup(helper)
    if helper is solve_grad_solution:
        a, b = spd((2,)), rng.normal(size=3)
        shapes, rest = [a.shape, (2, 3)], (a, b)
    else:
        root = rng.normal(size=(3, 3))
        lower = np.linalg.cholesky(root @ root.T + 3.0 * np.eye(3))
        shapes, rest = [(3, 3), (3, 3)], (lower,)
    u, v, du, dv = (rng.normal(size=s) for s in shapes + shapes)
    value = helper(u, v, *rest)
    out = rng.normal(size=value.shape)
    args = (u, v) + rest
    parts = (0, 1, 2) if helper is solve_grad_solution else (0, 1)
    bars = _rule_parts(rule.adjoint, rule.parsed(), (out, value) + args, parts)
    np.testing.assert_allclose(np.sum(bars[0] * du), np.sum(out * helper(du, v, *rest)),
                               rtol=1e-10)
    np.testing.assert_allclose(np.sum(bars[1] * dv), np.sum(out * helper(u, dv, *rest)),
                               rtol=1e-10)
    tangent = rule.tangent, rule.parsed_tangent()
    np.testing.assert_allclose(_rule_parts(*tangent, (du, value) + args, (0,))[0],
                               helper(du, v, *rest), rtol=1e-12)
    np.testing.assert_allclose(_rule_parts(*tangent, (dv, value) + args, (1,))[0],
                               helper(u, dv, *rest), rtol=1e-12)
    if helper is solve_grad_solution:  # in a as well (all orders of solve are written)
        da = rng.normal(size=a.shape)
        along_a = fd(lambda m: helper(u, v, m, b), a, da)
        np.testing.assert_allclose(_rule_parts(*tangent, (da, value) + args, (2,))[0],
                                   along_a, atol=1e-7)
        np.testing.assert_allclose(np.sum(bars[2] * da), np.sum(out * along_a), rtol=1e-7)


# --- the decompositions: what has no derivative is refused, not made up ------------------------


def svd_u_completion(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(u[:, -1] ** 2 * np.arange(5.0))


def svd_values_only(a):
    s = np.linalg.svd(a, compute_uv=False)
    return np.sum(s)


def test_svd_completion_columns_are_refused_when_the_gradient_reaches_them():
    with pytest.raises(s2sad.DifferentiationError, match="arbitrary completion"):
        s2sad.grad(svd_u_completion)(rng.normal(size=(5, 3)))
    square = rng.normal(size=(5, 5))  # (a square matrix has no completion)
    expected = [fd(svd_u_completion, square, d) for d in np.eye(25).reshape(25, 5, 5)]
    np.testing.assert_allclose(s2sad.grad(svd_u_completion)(square).ravel(), expected,
                               rtol=1e-5, atol=1e-6)


def test_svd_without_factors_is_differentiated_as_svdvals():
    """``svd(a, compute_uv=False)`` is the singular values alone (once refused, now as
    ``svdvals``): its gradient and its Hessian against central differences."""
    a = rng.normal(size=(4, 3))
    expected = [fd(svd_values_only, a, d) for d in np.eye(12).reshape(12, 4, 3)]
    np.testing.assert_allclose(s2sad.grad(svd_values_only)(a).ravel(), expected,
                               rtol=1e-5, atol=1e-6)
    gradient = s2sad.grad(svd_values_only)
    columns = [fd(gradient, a, d).ravel() for d in np.eye(12).reshape(12, 4, 3)]
    np.testing.assert_allclose(s2sad.hessian(svd_values_only)(a).reshape(12, 12),
                               np.array(columns), rtol=1e-4, atol=1e-5)


def test_a_repeated_eigenvalue_gives_no_finite_wrong_number():
    """Where an eigenvalue repeats, a derivative through its eigenvectors does not exist:
    infinite or NaN (as JAX's NaN), never a finite number (the turn taken as 0 gave the
    derivative of a matrix function at the identity as -1.38 for 2.95)."""
    def matrix_function(a, c):
        w, v = np.linalg.eigh(a)
        return np.sum(c * (v @ np.diag(np.exp(w)) @ v.T))
    c = rng.normal(size=(3, 3))
    d = rng.normal(size=(3, 3))
    d = d + d.T
    with np.errstate(invalid="ignore"):  # (NumPy says so too: inf * 0 in a product)
        got = s2sad.grad(matrix_function)(np.eye(3), c)
        _, pushforward = s2sad.jvp(matrix_function)(np.eye(3), c)
        tangent = pushforward(d)
    assert not np.all(np.isfinite(got)) and not np.isfinite(tangent)


def test_eigh_of_a_repeated_eigenvalue_is_finite_for_the_eigenvalues():
    def f(a):
        w, v = np.linalg.eigh(a)
        return np.sum(w ** 2)
    g = s2sad.grad(f)(np.eye(3) * 2.0)  # d/da sum(w^2) = 2 a for a symmetric a
    np.testing.assert_allclose(g, 4.0 * np.eye(3), atol=1e-12)


def test_svd_of_a_matrix_short_of_full_rank():
    """A zero singular value: the gradient of the singular values is finite (it was NaN,
    a 0 / 0 of the terms outside u's space)."""
    def squares(a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        return np.sum(s ** 2)
    a = rng.normal(size=(4, 2)) @ rng.normal(size=(2, 3))  # rank 2
    np.testing.assert_allclose(s2sad.grad(squares)(a), 2.0 * a, rtol=1e-10, atol=1e-10)
