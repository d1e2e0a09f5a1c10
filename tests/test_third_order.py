"""Third derivatives: every rule of the NumPy table, and the helpers behind them.

``s2sad.grad`` applied three times to ``phi(t) = f(x + t v)``, a random line through
each row of the rule table (``test_numpy_rules.CASES``), against central differences of
the second derivative; a few rows again at the fourth order. Then lines written here,
which move several arguments at once (the table's rows of ``einsum``, ``average`` or
``concatenate`` are polynomials of low degree, whose third derivative is 0), in reverse
and forward mode. Last, the rules of the helpers these derivatives call, each in all of
its arguments, against central differences.
"""

import importlib
import sys
import zlib

import numpy as np
import pytest

import s2sad  # noqa: E402
from s2sad.runtime.hessians import (average_change, average_jet, cumprod_hvp,  # noqa: E402
                                    cumprod_jet, prod_hvp, std_grad_partial)
from s2sad.runtime.higher import (cut_like, einsum_fill_sum, einsum_grad_operands,  # noqa: E402
                                  join_like, pad_values_forward, split_like)
from s2sad.runtime.linalg import (cholesky_adjoint_jet, cholesky_grad_jet,  # noqa: E402
                                  cholesky_tangent_jet, norm_grad_partial,
                                  norm_grad_third)

EPS = 1e-3
RTOL, ATOL = 1e-5, 1e-6


def central(f, t, eps=EPS):
    """The derivative of ``f`` at ``t`` by the five-point central difference (error
    ``O(eps^4)``)."""
    return (-f(t + 2 * eps) + 8 * f(t + eps) - 8 * f(t - eps) + f(t - 2 * eps)) / (12 * eps)


# --- every row of the rule table, along a random line ---------------------------------------

# rows whose line crosses a kink within the finite-difference step
KINKS = {
    "clip-keyword-array-broadcasts-x": "clip's kink lies within the finite-difference step",
    "eigh-repeated": "at a repeated eigenvalue the derivatives beyond the first go through "
                     "the eigenvectors' turn, which has none there: infinite (JAX: NaN), "
                     "tests/test_linalg_second_order.py",
}

# rows also checked at the fourth order (those of the helpers with written derivatives of
# every order), and those whose fourth derivative is not written
FOURTH = {"prod", "prod-with-zero", "prod-with-two-zeros", "prod-axis1",
          "prod-axis(0,-1)-keepdims", "cumprod-axis1", "cumprod-with-zero", "std",
          "std-axis-1-ddof1", "average-weights-1d-wrt-weights",
          "average-weights-full-wrt-weights", "norm-vector", "norm-3d", "norm-ord-2",
          "norm-axis", "norm-keepdims", "norm-p3", "vector_norm", "norm-matrix-2",
          "norm-matrix-nuc", "matrix_norm", "cholesky", "cholesky-upper", "methods-reductions",
          "methods-std-var", "methods-cumulative", "split-then-join", "dsplit",
          "concatenate-stack-of-an-array", "pad-constant-value-wrt-value", "einsum-matmul",
          "einsum-three-operands", "einsum-same-operand-twice"}
SPECTRAL = ("norm-matrix-2", "norm-matrix-nuc", "matrix_norm")
NOT_FOURTH = {
    **{name: (s2sad.NoDerivativeError, ("the fourth derivative of the spectral norms is not "
                                        "written (norm_grad_third in x)"))
       for name in SPECTRAL},
    "einsum-matmul": (s2sad.NoDerivativeError, ("einsum's fourth derivative replaces two "
                                                "operands at once: einsum_fill_each's "
                                                "derivatives are not written")),
    "einsum-three-operands": (s2sad.NoDerivativeError, ("einsum's fourth derivative replaces "
                                                        "two operands at once: not written")),
    "einsum-same-operand-twice": (s2sad.NoDerivativeError, ("einsum's fourth derivative "
                                                            "replaces two operands at once: "
                                                            "not written")),
}


# Known crashes at third order (loud, never a number): by row, the error and why
NOT_THIRD: dict = {}


def _rows(order):
    import test_numpy_rules as T
    rows = []
    for name, f, args, i in T.higher_order_rows():
        if order == 4 and name not in FOURTH:
            continue
        marks = []
        if name in KINKS:
            marks = [pytest.mark.skip(reason=KINKS[name])]
        elif order == 4 and name in NOT_FOURTH:
            error, reason = NOT_FOURTH[name]
            marks = [pytest.mark.xfail(strict=True, raises=error, reason=reason)]
        elif order == 3 and name in NOT_THIRD:
            error, reason = NOT_THIRD[name]
            marks = [pytest.mark.xfail(strict=True, raises=error, reason=reason)]
        rows.append(pytest.param(name, f, args, i, id=name, marks=marks))
    return rows


@pytest.fixture(scope="module")
def line_module(tmp_path_factory):
    """Makes ``phi(t) = f(args with args[i] + t v)`` in a module of its own (s2sad reads
    its source), the arguments and the direction being that module's globals."""
    folder = tmp_path_factory.mktemp("third_order_lines")
    sys.path.insert(0, str(folder))

    def make(name, f, args, i, v):
        import test_numpy_rules as T
        module = f"third_order_line_{zlib.crc32(name.encode())}"
        names = [f"A{j}" for j in range(len(args))]
        call = ", ".join(f"{n} + t * V" if j == i else n for j, n in enumerate(names))
        (folder / f"{module}.py").write_text(f"def phi(t):\n    return F({call})\n")
        m = importlib.import_module(module)
        m.F, m.V = f, v
        for j, a in enumerate(T._copy(args)):
            setattr(m, f"A{j}", a)
        return m.phi
    yield make
    sys.path.remove(str(folder))


def _line(line_module, name, f, args, i):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x = args[i]
    v = rng.normal(size=np.shape(x)) if np.ndim(x) else float(rng.normal())
    return line_module(name, f, args, i, v)


def _check_order(phi, order, t=0.0):
    derivatives = [phi]
    for _ in range(order):
        derivatives.append(s2sad.grad(derivatives[-1]))
    got = derivatives[-1](t)
    np.testing.assert_allclose(got, central(derivatives[-2], t), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name, f, args, i", _rows(3))
def test_third_derivative_of_every_rule(line_module, name, f, args, i):
    _check_order(_line(line_module, name, f, args, i), 3)


@pytest.mark.parametrize("name, f, args, i", _rows(4))
def test_fourth_derivative_of_the_reductions_and_factorizations(line_module, name, f, args, i):
    _check_order(_line(line_module, name, f, args, i), 4)


# --- lines that move several arguments (reverse, and forward over reverse) ------------------

rng = np.random.default_rng(7)
A34, V34, A43, V43 = (rng.normal(size=s) for s in ((3, 4), (3, 4), (4, 3), (4, 3)))
A234, V234 = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4))
W4, U4 = rng.uniform(0.5, 1.5, size=4), rng.normal(size=4)
W34, U34 = rng.uniform(0.5, 1.5, size=(3, 4)), rng.normal(size=(3, 4))
W3, U3 = rng.uniform(0.5, 1.5, size=3), rng.normal(size=3)
Z34 = np.array([[0.5, 0.0, 2.0, -1.0], [1.5, 0.7, -1.2, 0.0], [0.0, 0.0, 1.1, 0.9]])
E23, E34, E42 = rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
F23, F34, F42 = rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
X3, Y3, M33, N33 = rng.normal(size=3), rng.normal(size=3), rng.normal(size=(3, 3)), \
    rng.normal(size=(3, 3))
R233, D233, C233 = rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 3, 3)), \
    rng.normal(size=(2, 3, 3))
X6, Y6 = rng.normal(size=6), rng.normal(size=6)


def average_1d_weights(t):
    return np.sum(np.sin(np.average(A34 + t * V34, axis=1, weights=W4 + t * U4)))


def average_full_weights(t):
    return np.sin(np.average(A34 + t * V34, weights=W34 + t * U34))


def average_weights_axis0(t):
    return np.sum(np.average(A34 + t * V34, axis=0, weights=W3 + t * U3) ** 3)


def prod_through_zeros(t):
    return np.sum(np.sin(np.prod(Z34 + t * V34, axis=1))) + np.prod(Z34[0] + t * V34[0])


def prod_keepdims(t):
    return np.sum(np.prod(A234 + t * V234, axis=(0, 2), keepdims=True) * A234)


def cumprod_flat_matrix(t):
    return np.sum(np.sin(np.cumprod(Z34 + t * V34)))


def cumprod_axis0(t):
    return np.sum(np.cos(np.cumprod(A34 + t * V34, axis=0)))


def std_keepdims(t):
    return np.sum(np.std(A34 + t * V34, axis=1, ddof=1, keepdims=True) * A34) + \
        np.std(A34 + t * V34) ** 3


def norm_p_axis(t):
    return np.sum(np.linalg.norm(A34 + t * V34, ord=3, axis=0) ** 1.5) + \
        np.sin(np.linalg.norm(A34 + t * V34))


def spectral_norms(t):
    return np.linalg.norm(A34 + t * V34, 2) + np.linalg.norm(A43 + t * V43, -2) + \
        np.sum(np.linalg.norm(A234 + t * V234, "nuc", axis=(1, 2)) ** 2)


def cholesky_batched(t):
    root = R233 + t * D233
    s = root @ np.swapaxes(root, -1, -2) + 3.0 * np.eye(3)
    return np.sum(np.sin(np.linalg.cholesky(s)) * C233)


def einsum_three_moving(t):
    return np.sum(np.sin(np.einsum("ij,jk,kl->il", E23 + t * F23, E34 + t * F34,
                                   E42 + t * F42)))


def einsum_operand_twice(t):
    x = X3 + t * Y3
    return np.sin(np.einsum("i,ij,j->", x, M33 + t * N33, x))


def join_and_split(t):
    x = np.sin(X6 + t * Y6)
    a, b, c = np.split(x, 3)
    return np.sum(np.concatenate([a * b, np.cos(c)]) ** 2) + np.sum(np.stack([a, c]) ** 3)


def pad_value(t):
    return np.sum(np.sin(np.pad(A34 * (1.0 + t), 1, constant_values=0.7 + 2.0 * t)))


# (function, highest order checked in reverse mode)
LINES = [(average_1d_weights, 4), (average_full_weights, 4), (average_weights_axis0, 3),
         (prod_through_zeros, 4), (prod_keepdims, 3), (cumprod_flat_matrix, 4),
         (cumprod_axis0, 3), (std_keepdims, 4), (norm_p_axis, 3), (spectral_norms, 3),
         (cholesky_batched, 4), (einsum_three_moving, 3), (einsum_operand_twice, 3),
         (join_and_split, 4), (pad_value, 4)]
T0 = 0.3


@pytest.mark.parametrize("f, order", LINES, ids=[f.__name__ for f, _ in LINES])
def test_lines_moving_several_arguments(f, order):
    derivatives = [f]
    for _ in range(order):
        derivatives.append(s2sad.grad(derivatives[-1]))
    for k in range(3, order + 1):
        np.testing.assert_allclose(derivatives[k](T0), central(derivatives[k - 1], T0),
                                   rtol=RTOL, atol=ATOL, err_msg=f"order {k}")
    _, tangent = s2sad.jvp(derivatives[2])(T0)  # forward over reverse over reverse
    np.testing.assert_allclose(tangent(1.0), central(derivatives[2], T0), rtol=RTOL, atol=ATOL)


# --- the helpers' rules, in every argument ----------------------------------------------------

H3, H4 = rng.normal(size=3), rng.normal(size=4)
B34, G34, T34, S3 = (rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 4)),
                     rng.uniform(0.5, 1.5, size=3))
L33 = np.linalg.cholesky(M33 @ M33.T + 3.0 * np.eye(3))
P2, Q3 = rng.normal(size=2), rng.normal(size=3)


def through_prod_hvp(x, h, v, u):
    return np.sum(np.sin(prod_hvp(h, x, v, 1, False, u)))


def through_cumprod_hvp(x, h, v, u):
    return np.sum(np.sin(cumprod_hvp(h, x, v, 1, u)))


def through_cumprod_jet(x, v, u):
    return np.sum(np.sin(cumprod_jet(x, v, None, u)))


def through_std_grad_partial(x, t, h, s):
    return np.sum(np.sin(std_grad_partial(t, h, s, x, 1, 1, False, False, 2)))


def through_std_grad_partial_tangent(x, t, h, s):
    return np.sum(np.sin(std_grad_partial(t, h, s, x, 1, 0, False, True, 2)))


def through_average_jet(a, w, h, da, dw):
    return np.sum(np.sin(average_jet(h, a, 1, w, False, 1, da, None, None, dw))) + \
        np.sum(np.cos(average_jet(h, a, 1, w, False, 0, None, dw)))


def through_average_change(a, w, da, dw):
    return np.sum(np.sin(average_change(a, 1, w, False, da, dw, None, dw)))


def through_norm_grad_partial(x, u, c, s):
    return np.sum(np.sin(norm_grad_partial(u, c, s, x, 3, 0, False, None, 2, 1, False))) + \
        np.sum(np.cos(norm_grad_partial(u, c, s, x, 3, 0, False, None, 1, 2, True)))


def through_norm_grad_third(x, t, u, h):
    return np.sum(np.sin(norm_grad_third(t, u, h, np.linalg.norm(x, 3, 0), x, 3, 0)))


def through_norm_grad_third_spectral(t, u, h):
    # (in x: a fourth derivative of the nuclear norm, not written)
    return np.sum(np.sin(norm_grad_third(t, u, h, np.linalg.norm(A234, "nuc", (1, 2)), A234,
                                         "nuc", (1, 2))))


def through_cholesky_jets(L, h, w, t):
    return np.sum(np.sin(cholesky_grad_jet(h, L, t, w))) + \
        np.sum(np.cos(cholesky_tangent_jet(w, L, t))) + \
        np.sum(np.sin(cholesky_adjoint_jet(w, h, L, t)))


def through_einsum_helpers(h, b, c, g, f):
    parts = einsum_grad_operands(g, h, "ij,jk->ik", (b, c), 1)
    return np.sum(np.sin(parts[0])) + \
        np.sum(np.cos(einsum_fill_sum(None, "ij,jk->ik", (b, c), (f, c), None, 1, g)))


def through_join_and_cut(p, q, g):
    parts = cut_like("concatenate", g, [p, q], [p, q], 0)
    return np.sum(np.sin(join_like("concatenate", [p * q[0], q], [p, q], 0))) + \
        np.sum(np.sin(parts[0])) + np.sum(np.cos(parts[1]))


def through_split_and_pad(g, c):
    parts = split_like(g, [P2, Q3], [P2, Q3], 0)
    return np.sum(np.sin(parts[0])) + np.sum(np.cos(parts[1])) + \
        np.sum(np.sin(pad_values_forward(c, P2, 1)))


HELPERS = [
    (through_prod_hvp, (Z34, H3, V34, T34), (0, 1, 2, 3)),
    (through_cumprod_hvp, (Z34, B34, V34, T34), (0, 1, 2, 3)),
    (through_cumprod_jet, (Z34, V34, T34), (0, 1, 2)),
    (through_std_grad_partial, (A34, T34, H3, S3), (0, 1, 2, 3)),
    (through_std_grad_partial_tangent, (A34, H3, S3, S3 + 1.0), (0, 1, 2, 3)),
    (through_average_jet, (A34, W4, H3, V34, U4), (0, 1, 2, 3, 4)),
    (through_average_change, (A34, W4, V34, U4), (0, 1, 2, 3)),
    (through_norm_grad_partial, (A34 + 2.0, T34, H4, np.linalg.norm(A34 + 2.0, 3, 0)),
     (0, 1, 2, 3)),
    (through_norm_grad_third, (A34 + 2.0, T34, V34, H4), (0, 1, 2, 3)),
    (through_norm_grad_third_spectral, (V234, rng.normal(size=(2, 3, 4)), rng.normal(size=2)),
     (0, 1, 2)),
    (through_cholesky_jets, (L33, M33, N33, rng.normal(size=(3, 3))), (0, 1, 2, 3)),
    (through_einsum_helpers, (rng.normal(size=(3, 2)), F34, E42, F42, T34), (0, 1, 2, 3, 4)),
    (through_join_and_cut, (P2, Q3, rng.normal(size=5)), (0, 1, 2)),
    (through_split_and_pad, (rng.normal(size=5), 0.7), (0, 1)),
]


# the tangent of einsum_fill_sum along the operands replaces two operands at once: not written
REVERSE_ONLY = {(through_einsum_helpers, 1), (through_einsum_helpers, 2)}


def _fd_gradient(f, args, i, eps=1e-6):
    x = np.asarray(args[i], dtype=float)
    out = np.zeros(x.shape)
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        up, down = list(args), list(args)
        up[i], down[i] = x + e.reshape(x.shape), x - e.reshape(x.shape)
        if np.ndim(args[i]) == 0:
            up[i], down[i] = float(up[i]), float(down[i])
        out.flat[k] = (f(*up) - f(*down)) / (2 * eps)
    return out


@pytest.mark.parametrize("f, args, wrt", HELPERS, ids=[f.__name__ for f, *_ in HELPERS])
def test_rules_of_the_helpers_in_every_argument(f, args, wrt):
    """Reverse (the adjoint rules) and forward mode (the tangent rules) against central
    differences. Cholesky factors change in their lower triangle only."""
    grads = s2sad.grad(f, wrt=wrt)(*args)
    for i, g in zip(wrt, grads):
        expected = _fd_gradient(f, args, i)
        if f is through_cholesky_jets and i == 0:
            expected = np.tril(expected)
        np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8, err_msg=f"argument {i}")
        if (f, i) in REVERSE_ONLY:
            continue
        v = np.random.default_rng(i).normal(size=np.shape(args[i]))
        if f is through_cholesky_jets and i == 0:
            v = np.tril(v)
        _, tangent = s2sad.jvp(f, wrt=i)(*args)
        np.testing.assert_allclose(tangent(float(v) if np.ndim(v) == 0 else v),
                                   np.sum(expected * v), rtol=1e-6, atol=1e-8,
                                   err_msg=f"tangent along argument {i}")
