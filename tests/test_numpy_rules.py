"""NumPy coverage: every derivative rule checked against central finite differences.

One table (``CASES``) of ``(function, args, wrt)`` fed to one generic checker that

* compiles ``s2sad.grad(f, wrt=wrt)``, optimized and not,
* checks the gradient has the structure, shape and dtype of the argument
  (float32 in, float32 out),
* compares it with central finite differences computed in float64.

The functions live in ``tests/cases_numpy.py`` (s2sad reads their source). A few
rules are also checked on their own, called directly (``rule.adjoint``), without
the compiler.
"""

import math
import os
import sys

import numpy as np
import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
# The rule tables kept in their own files, read by the check that every rule has a case.
OTHER_TABLES = ("test_scipy_special.py", "test_scipy_integrate.py", "test_scipy_stats.py",
                "test_scipy_linalg.py", "test_numpy_gaps.py", "test_complex.py",
                "test_fft.py", "test_scipy_signal.py", "test_scipy_xp.py",
                "test_complex_linalg.py")

import s2sad  # noqa: E402
from s2sad import registry, runtime  # noqa: E402
import cases_numpy as C  # noqa: E402

EPS = 1e-6
RTOL, ATOL = 1e-5, 1e-6
RTOL32, ATOL32 = 2e-3, 2e-3

_rng = np.random.default_rng(20241121)


def rand(*shape):
    """Values in [-1.5, 1.5)."""
    return _rng.uniform(-1.5, 1.5, size=shape)


def pos(*shape):
    """Values in [0.5, 2)."""
    return _rng.uniform(0.5, 2.0, size=shape)


def unit(*shape):
    """|x| < 0.8: inside the domain of arcsin, arctanh..."""
    return _rng.uniform(-0.8, 0.8, size=shape)


def away(*shape):
    """|x| in [0.2, 1.5], both signs: away from the kinks at 0."""
    return _rng.uniform(0.2, 1.5, size=shape) * _rng.choice([-1.0, 1.0], size=shape)


def with_nans(*shape):
    """Values in [-1.5, 1.5) with NaNs: the first row all NaN, and a few more."""
    values = rand(*shape)
    values[0] = np.nan
    values.flat[[shape[-1] + 1, 2 * shape[-1]]] = np.nan
    return values


def distinct(*shape):
    """Well-separated values (no ties), shuffled: for max, min, sort..."""
    n = int(np.prod(shape))
    values = np.linspace(-1.7, 1.7, n) + _rng.uniform(-0.02, 0.02, n)
    return _rng.permutation(values).reshape(shape)


def spd(n, batch=()):
    """Well-conditioned matrices (the identity plus a small perturbation)."""
    return np.eye(n) * 2.0 + 0.3 * _rng.uniform(-1.0, 1.0, size=batch + (n, n))


KNOTS = np.array([-1.2, -0.4, 0.3, 0.9, 1.6])  # (np.interp's, increasing)


def f32(x):
    return np.asarray(x, dtype=np.float32)


# --- the finite-difference oracle ----------------------------------------------------------


def _flat(x):
    if isinstance(x, (list, tuple)):
        return np.concatenate([_flat(v) for v in x]) if x else np.zeros(0)
    return np.ravel(np.asarray(x, dtype=np.float64)).copy()


def _unflat(like, values):
    it = iter(values)

    def build(x):
        if isinstance(x, list):
            return [build(v) for v in x]
        if isinstance(x, tuple):
            return tuple(build(v) for v in x)
        if isinstance(x, np.ndarray):
            return np.array([next(it) for _ in range(x.size)], dtype=np.float64).reshape(x.shape)
        return float(next(it))
    return build(like)


def _to64(x):
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return x.astype(np.float64)
    if isinstance(x, (list, tuple)):
        return type(x)(_to64(v) for v in x)
    return x


def finite_differences(f, args, index):
    args = [_to64(a) for a in args]
    base = _flat(args[index])
    out = np.zeros_like(base)
    for i in range(base.size):
        plus, minus = base.copy(), base.copy()
        plus[i] += EPS
        minus[i] -= EPS
        hi, lo = list(args), list(args)
        hi[index] = _unflat(args[index], plus)
        lo[index] = _unflat(args[index], minus)
        out[i] = (float(np.asarray(f(*hi))) - float(np.asarray(f(*lo)))) / (2 * EPS)
    return out


def check_structure(arg, g):
    if isinstance(arg, np.ndarray):
        assert isinstance(g, np.ndarray), f"expected an ndarray gradient, got {type(g).__name__}"
        assert g.shape == arg.shape, f"gradient shape {g.shape} != argument shape {arg.shape}"
        assert g.dtype == arg.dtype, f"gradient dtype {g.dtype} != argument dtype {arg.dtype}"
    elif isinstance(arg, (list, tuple)):
        assert type(g) is type(arg) and len(g) == len(arg)
        for a, b in zip(arg, g):
            check_structure(a, b)
    else:
        assert type(g) is float, f"expected a Python float gradient, got {type(g).__name__}"


def _has_float32(x):
    if isinstance(x, np.ndarray):
        return x.dtype == np.float32
    return isinstance(x, (list, tuple)) and any(map(_has_float32, x))


def higher_order_rows():
    """``(name, f, args, i)`` for each optimized row of ``CASES`` that a higher derivative
    takes: no xfail mark, no float32, and differentiated (in the first argument of its
    ``wrt``) with respect to an array or a float."""
    for row in CASES:
        for param in row:
            f, args, wrt, optimize = param.values
            i = wrt[0] if isinstance(wrt, tuple) else wrt
            if not optimize or param.marks or any(_has_float32(a) for a in args) or \
                    isinstance(args[i], (list, tuple, int)):
                continue
            yield param.id[:-len("-opt")], f, args, i


def _copy(x):
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (list, tuple)):
        return type(x)(_copy(v) for v in x)
    return x


def check_case(f, args, wrt, optimize):
    args = _copy(args)
    indices = list(wrt) if isinstance(wrt, tuple) else [wrt]
    grads = s2sad.grad(f, wrt=wrt, optimize=optimize)(*args)
    grads = grads if isinstance(wrt, tuple) else (grads,)
    rtol, atol = (RTOL32, ATOL32) if any(_has_float32(a) for a in args) else (RTOL, ATOL)
    names = f.__code__.co_varnames
    for i, g in zip(indices, grads):
        check_structure(args[i], g)
        np.testing.assert_allclose(_flat(g), finite_differences(f, args, i), rtol=rtol, atol=atol,
                                   err_msg=f"gradient of {f.__name__} wrt {names[i]}")


# --- the table ----------------------------------------------------------------------------

UNPACK_RETURN_BUG = (
    "reverse.py: a returned name bound by tuple unpacking (`a, b = t; return b`) gets no "
    "sensitivity: Reverse.unpack builds the parts from self.received, and the returned "
    "name's seed is never accumulated, so the gradient is silently 0")


KEYWORD_BUG = (
    "activity.py: only positional operands (Op.operands) flow into a call's result, so an "
    "argument passed by keyword (np.average(x, weights=w), np.clip(x, min=lo), np.pad(x, 1, "
    "constant_values=c)) is never active and silently gets a zero gradient")


LIST_SLICE_BUG = (
    "reverse.py scatter: the sensitivity of a slice of a Python list (`ys = xs[1:]`, "
    "`np.split(x, 3)[::-1]`) is accumulated as `s_xs[1:] += s_ys`, which extends the list "
    "instead of adding item by item (wrong length, or ValueError for an extended slice)")


def case(id_, f, args, wrt=0, xfail=None, only_optimized=False):
    """One row of the table, checked with ``optimize=True`` and ``optimize=False``.

    ``xfail``: the reason it is a known bug (``only_optimized``: of the optimized
    gradient only; the other one happens to be right).
    """
    return [pytest.param(f, tuple(args), wrt, optimize, id=f"{id_}-{label}",
                         marks=[pytest.mark.xfail(reason=xfail, strict=True)]
                         if xfail and (optimize or not only_optimized) else [])
            for optimize, label in ((True, "opt"), (False, "noopt"))]


M, V = (3, 4), (4,)
CASES = [
    # unary elementwise
    case("sin", C.u_sin, [rand(*M)]),
    case("cos", C.u_cos, [rand(*M)]),
    case("tan", C.u_tan, [unit(*M)]),
    case("arcsin", C.u_arcsin, [unit(*M)]),
    case("arccos", C.u_arccos, [unit(*M)]),
    case("arctan", C.u_arctan, [rand(*M)]),
    case("sinh", C.u_sinh, [rand(*M)]),
    case("cosh", C.u_cosh, [rand(*M)]),
    case("tanh", C.u_tanh, [rand(*M)]),
    case("arcsinh", C.u_arcsinh, [rand(*M)]),
    case("arccosh", C.u_arccosh, [pos(*M) + 1.0]),
    case("arctanh", C.u_arctanh, [unit(*M)]),
    case("exp", C.u_exp, [rand(*M)]),
    case("exp2", C.u_exp2, [rand(*M)]),
    case("expm1", C.u_expm1, [rand(*M)]),
    case("log", C.u_log, [pos(*M)]),
    case("log2", C.u_log2, [pos(*M)]),
    case("log10", C.u_log10, [pos(*M)]),
    case("log1p", C.u_log1p, [unit(*M)]),
    case("sqrt", C.u_sqrt, [pos(*M)]),
    case("cbrt", C.u_cbrt, [away(*M)]),
    case("square", C.u_square, [rand(*M)]),
    case("reciprocal", C.u_reciprocal, [away(*M)]),
    case("abs", C.u_abs, [away(*M)]),
    case("absolute", C.u_absolute, [away(*M)]),
    case("fabs", C.u_fabs, [away(*M)]),
    case("negative", C.u_negative, [rand(*M)]),
    case("positive", C.u_positive, [rand(*M)]),
    case("deg2rad", C.u_deg2rad, [rand(*M) * 90.0]),
    case("rad2deg", C.u_rad2deg, [rand(*M)]),
    case("radians-degrees", C.u_radians_degrees, [rand(*M)]),
    case("sinc", C.u_sinc, [rand(*M)]),
    case("sinc-at-0", C.u_sinc, [np.array([0.0, 0.5, -1.25])]),
    case("conj-real", C.u_conj_real, [rand(*M)]),
    case("nan_to_num", C.u_nan_to_num, [rand(*M)]),
    case("sign-nondiff", C.u_sign_times, [away(*M)]),
    case("np-on-python-float", C.u_float_input, [0.7]),
    case("sin-float32", C.u_sin, [f32(rand(*M))]),
    case("log-float32", C.u_log, [f32(pos(5))]),
    case("sinc-float32", C.u_sinc, [f32(rand(6))]),
    case("sin-3d", C.u_sin, [rand(2, 3, 2)]),
    case("sin-0d-array", C.u_sin, [np.array(0.4)]),
    # binary elementwise, with broadcasting both ways
    case("add-(3,4)+(4,)", C.b_add, [rand(*M), rand(*V)], (0, 1)),
    case("add-(3,1)+(1,4)", C.b_add, [rand(3, 1), rand(1, 4)], (0, 1)),
    case("subtract-float-mat", C.b_subtract, [0.3, rand(*M)], (0, 1)),
    case("multiply-(4,)*(2,3,4)", C.b_multiply, [rand(*V), rand(2, 3, 4)], (0, 1)),
    case("divide-(3,4)/(3,1)", C.b_divide, [rand(*M), pos(3, 1)], (0, 1)),
    case("true_divide-(4,)/(3,4)", C.b_true_divide, [rand(*V), pos(*M)], (0, 1)),
    case("power-(3,4)**(4,)", C.b_power, [pos(*M), rand(*V)], (0, 1)),
    case("power-float**vec", C.b_power, [1.7, rand(*V)], (0, 1)),
    case("float_power-(3,1)**(1,4)", C.b_float_power, [pos(3, 1), rand(1, 4)], (0, 1)),
    case("maximum-(3,4),(4,)", C.b_maximum, [distinct(*M), distinct(*V) + 0.05], (0, 1)),
    case("minimum-(3,1),(1,4)", C.b_minimum, [distinct(3, 1), distinct(1, 4) + 0.05], (0, 1)),
    case("fmax-(3,4),(4,)", C.b_fmax, [distinct(*M), distinct(*V) + 0.05], (0, 1)),
    case("fmin-float,(3,4)", C.b_fmin, [0.33, distinct(*M)], (0, 1)),
    case("hypot-(3,4),(4,)", C.b_hypot, [away(*M), away(*V)], (0, 1)),
    case("arctan2-(3,4),(3,1)", C.b_arctan2, [away(*M), away(3, 1)], (0, 1)),
    case("logaddexp-(3,4),(4,)", C.b_logaddexp, [rand(*M), rand(*V)], (0, 1)),
    case("logaddexp2-(4,),(3,4)", C.b_logaddexp2, [rand(*V), rand(*M)], (0, 1)),
    case("copysign", C.b_copysign, [away(*M), away(*V)], 0),
    case("mod", C.b_mod, [np.array([2.3, -1.7, 5.2, 0.4]), np.array([1.1, 0.9, -2.1, 0.7])],
         (0, 1)),
    case("remainder-(3,4)%(4,)", C.b_remainder, [rand(*M) * 3.0, np.array([0.7, 1.3, -0.9, 2.2])],
         (0, 1)),
    case("mod-operator-floats", C.b_mod_operator, [2.3, 0.7], (0, 1)),
    case("fmod", C.b_fmod, [np.array([2.3, -1.7, 5.2, 0.4]), np.array([1.1, 0.9, -2.1, 0.7])],
         (0, 1)),
    case("divmod", C.b_divmod, [np.array([2.3, -1.7, 5.2, 0.4]),
                                np.array([1.1, 0.9, -2.1, 0.7])], (0, 1)),
    case("modf", C.b_modf, [np.array([2.3, -1.7, 5.2, 0.4])]),
    case("floor_divide-nondiff", C.b_floor_divide, [np.array([2.3, -1.7, 5.2]),
                                                     np.array([1.1, 0.9, -2.1])], (0, 1)),
    case("ldexp", C.b_ldexp, [rand(*M)]),
    case("where-(3,4)-(4,)-float", C.b_where, [rand(*M), rand(*V), 0.5], (1, 2)),
    case("where-computed", C.b_where_expr, [distinct(*M), distinct(*V) + 0.05], (0, 1)),
    case("clip", C.b_clip, [distinct(*M)]),
    case("clip-array-bounds", C.b_clip_bounds, [distinct(*M), np.array([-1.0, -0.5, 0.01, 0.3]),
                                                np.array([[0.5], [1.0], [1.35]])], (0, 1, 2)),
    case("clip-keywords", C.b_clip_keywords, [distinct(*M), -0.35], 0),
    case("clip-keywords-wrt-bound", C.b_clip_keywords, [distinct(*M), -0.35], 1),
    case("clip-method", C.b_clip_method, [distinct(*M)]),
    case("clip-keyword-array-broadcasts-x", C.b_clip_keyword_broadcasts,
         [distinct(*V), distinct(*M) + 0.01], 0),
    case("multiply-float32-broadcast", C.b_multiply, [f32(rand(*M)), f32(rand(*V))], (0, 1)),
    case("power-float32", C.b_power, [f32(pos(*M)), f32(rand(*V))], (0, 1)),
    # reductions
    case("sum-axis(0,2)", C.r_sum_axis_tuple, [rand(2, 3, 4)]),
    case("sum-keepdims-no-axis", C.r_sum_keepdims_broadcast, [rand(*M)]),
    case("mean-axis-1", C.r_mean_neg_axis, [rand(2, 3, 4)]),
    case("prod", C.r_prod, [pos(2, 3)]),
    case("prod-with-zero", C.r_prod, [np.array([[0.5, 0.0, 2.0], [1.5, 0.7, -1.2]])]),
    case("prod-with-two-zeros", C.r_prod, [np.array([0.5, 0.0, 2.0, 0.0])]),
    case("prod-axis1", C.r_prod_axis, [rand(*M)]),
    case("prod-axis(0,-1)-keepdims", C.r_prod_axis_tuple_keepdims, [rand(2, 3, 2)]),
    case("max-min-all", C.r_max, [distinct(*M)]),
    case("amax-amin-axis", C.r_amax_axis, [distinct(*M)]),
    case("max-axis(1,2)", C.r_max_tuple, [distinct(2, 3, 4)]),
    case("var", C.r_var, [rand(*M)]),
    case("var-axis0-ddof1", C.r_var_axis_ddof, [rand(*M)]),
    case("var-axis(0,2)-keepdims", C.r_var_tuple_keepdims, [rand(2, 3, 4)]),
    case("std", C.r_std, [rand(*M)]),
    case("std-axis-1-ddof1", C.r_std_axis_ddof, [rand(*M)]),
    case("cumsum-flat", C.r_cumsum, [rand(*M)]),
    case("cumsum-axis0", C.r_cumsum_axis, [rand(*M)]),
    case("cumprod-axis1", C.r_cumprod, [rand(*M)]),
    case("cumprod-with-zero", C.r_cumprod_flat, [np.array([0.5, 1.5, 0.0, 2.0, -1.0])]),
    case("average", C.r_average, [rand(*M)]),
    case("average-weights-1d", C.r_average_weights, [rand(*M), pos(*V)], 0),
    case("average-weights-1d-wrt-weights", C.r_average_weights, [rand(*M), pos(*V)], 1),
    case("average-positional-weights", C.r_average_positional, [rand(*M), pos(*V)], (0, 1)),
    case("average-weights-full", C.r_average_full_weights, [rand(*M), pos(*M)], 0),
    case("average-weights-full-wrt-weights", C.r_average_full_weights, [rand(*M), pos(*M)], 1),
    case("nansum", C.r_nansum, [rand(*M)]),
    case("nanmean", C.r_nanmean, [rand(*M)]),
    case("nanmax-nanmin", C.r_nanmax, [distinct(*M)]),
    case("ptp", C.r_ptp, [distinct(*M)]),
    case("trace", C.r_trace, [rand(3, 3)]),
    case("trace-offset-axes", C.r_trace_offset, [rand(2, 3, 4)]),
    case("norm-vector", C.r_norm, [rand(5)]),
    case("norm-matrix-fro", C.r_norm, [rand(*M)]),
    case("norm-3d", C.r_norm, [rand(2, 3, 2)]),
    case("norm-ord-2", C.r_norm_ord, [rand(5), 2]),
    case("norm-ord-1", C.r_norm_ord, [away(5), 1]),
    case("norm-ord-inf", C.r_norm_ord, [distinct(5), np.inf]),
    case("norm-ord--inf", C.r_norm_ord, [distinct(5), -np.inf]),
    case("norm-ord-fro", C.r_norm_ord, [rand(*M), "fro"]),
    case("norm-axis", C.r_norm_axis, [away(*M)]),
    case("norm-keepdims", C.r_norm_keepdims, [rand(*M)]),
    case("norm-matrix-1", C.r_norm_matrix, [distinct(*M), 1]),
    case("norm-matrix-inf", C.r_norm_matrix, [distinct(*M), np.inf]),
    case("norm-matrix-2", C.r_norm_matrix, [rand(*M), 2]),
    case("norm-matrix-nuc", C.r_norm_matrix, [rand(*M), "nuc"]),
    case("norm-p3", C.r_norm_3, [away(5)]),
    case("vector_norm", C.r_vector_norm, [away(*M)]),
    case("matrix_norm", C.r_matrix_norm, [rand(2, 3, 3)]),
    case("logsumexp", C.r_logsumexp, [distinct(*M)]),
    case("logsumexp-without-max", C.r_logsumexp_no_max_back, [distinct(*M)]),
    case("logsumexp-axis", C.r_logsumexp_axis, [distinct(*M)]),
    case("logsumexp-stop-gradient", C.r_logsumexp_stop, [distinct(*M)]),
    case("softmax-cross-entropy", C.r_softmax_cross_entropy, [rand(*M), pos(*M)], (0, 1)),
    case("var-std-float32", C.f32_reductions, [f32(rand(*M))]),
    # array methods
    case("methods-reductions", C.m_reductions, [distinct(*M)]),
    case("methods-std-var", C.m_std_var, [rand(*M)]),
    case("methods-reshape-T-dot", C.m_shapes, [rand(*M)]),
    case("methods-transpose-flatten", C.m_transpose_flatten, [rand(*M)]),
    case("methods-astype-copy", C.m_astype_copy, [rand(*M)]),
    case("methods-astype-float32", C.m_astype_copy, [f32(rand(*M))]),
    case("methods-squeeze", C.m_squeeze, [rand(1, 3, 1)]),
    case("methods-item", C.m_item, [rand(4)]),
    case("methods-tolist", C.m_tolist, [np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.5]])]),
    case("methods-cumulative", C.m_cumulative, [rand(*M)]),
    case("methods-misc", C.m_misc, [rand(3, 3)]),
    case("methods-argmax", C.m_argmax_nondiff, [distinct(*M)]),
    # linear algebra
    case("dot-2d.1d", C.la_dot, [rand(*M), rand(*V)], (0, 1)),
    case("dot-3d.2d", C.la_dot, [rand(2, 3, 4), rand(4, 2)], (0, 1)),
    case("vdot", C.la_vdot, [rand(*M), rand(4, 3)], (0, 1)),
    case("inner-2d-1d", C.la_inner, [rand(*M), rand(*V)], (0, 1)),
    case("inner-2d-3d", C.la_inner, [rand(2, 3), rand(2, 2, 3)], (0, 1)),
    case("inner-scalar-out", C.la_inner_scalar, [rand(*V), rand(*V)], (0, 1)),
    case("inner-with-scalar", C.la_inner, [rand(*M), 0.7], (0, 1)),
    case("outer", C.la_outer, [rand(3), rand(2, 2)], (0, 1)),
    case("matmul-batched", C.la_matmul, [rand(2, 3, 4), rand(4, 2)], (0, 1)),
    case("matmul-op-1d@3d", C.la_matmul_op, [rand(3), rand(2, 3, 2)], (0, 1)),
    case("tensordot-unsorted-axes", C.la_tensordot, [rand(2, 3, 4), rand(4, 2, 5)], (0, 1)),
    case("kron-2d", C.la_kron, [rand(2, 3), rand(3, 2)], (0, 1)),
    case("kron-1d-2d", C.la_kron, [rand(3), rand(2, 2)], (0, 1)),
    case("vecdot", C.la_vecdot, [rand(*M), rand(*V)], (0, 1)),
    case("einsum-matmul", C.la_einsum_matmul, [rand(2, 3), rand(3, 4)], (0, 1)),
    case("einsum-implicit", C.la_einsum_implicit, [rand(2, 3), rand(3, 4)], (0, 1)),
    case("einsum-trace", C.la_einsum_trace, [rand(3, 3)]),
    case("einsum-diagonal", C.la_einsum_diag, [rand(3, 3)]),
    case("einsum-transpose", C.la_einsum_transpose, [rand(2, 3)]),
    case("einsum-sum-within-operand", C.la_einsum_sum_one, [rand(2, 3, 2)]),
    case("einsum-ellipsis-batched", C.la_einsum_ellipsis, [rand(2, 2, 3), rand(2, 3, 2)], (0, 1)),
    case("einsum-ellipsis-broadcast", C.la_einsum_ellipsis_broadcast,
         [rand(2, 1, 3), rand(4, 3)], (0, 1)),
    case("einsum-three-operands", C.la_einsum_three, [rand(3), rand(3, 4), rand(4)], (0, 1, 2)),
    case("einsum-same-operand-twice", C.la_einsum_same_operand, [rand(2, 3)]),
    case("einsum-bilinear", C.la_einsum_bilinear, [rand(2, 3), rand(2, 3, 4), rand(2, 4)],
         (0, 1, 2)),
    case("einsum-scalar-out", C.la_einsum_scalar_out, [rand(*M), rand(*M)], (0, 1)),
    case("einsum-optimize", C.la_einsum_optimize, [rand(2, 3), rand(3, 3), rand(3, 2)], (0, 1, 2)),
    case("einsum-float32", C.la_einsum_matmul, [f32(rand(2, 3)), f32(rand(3, 4))], (0, 1)),
    case("inv", C.la_inv, [spd(3)]),
    case("inv-batched", C.la_inv_batched, [spd(3, (2,))]),
    case("det", C.la_det, [spd(3)]),
    case("det-batched", C.la_det_batched, [spd(2, (3,))]),
    case("slogdet-unpacked", C.la_slogdet, [spd(3)]),
    case("slogdet-indexed", C.la_slogdet_index, [spd(3)]),
    case("slogdet-return-unpacked", C.la_slogdet_return_unpacked, [spd(3)]),
    case("solve-vector", C.la_solve, [spd(3), rand(3)], (0, 1)),
    case("solve-matrix", C.la_solve, [spd(3), rand(3, 2)], (0, 1)),
    case("solve-batched", C.la_solve, [spd(3, (2,)), rand(2, 3, 2)], (0, 1)),
    case("solve-batched-vector", C.la_solve, [spd(3, (2,)), rand(3)], (0, 1)),
    case("cholesky", C.la_cholesky, [rand(3, 3), rand(3, 3)], (0, 1)),
    case("cholesky-upper", C.la_cholesky_upper, [rand(3, 3), rand(3, 3)], (0, 1)),
    case("eigh", C.la_eigh, [rand(4, 4), rand(4, 4)], (0, 1)),
    case("eigh-upper-batched", C.la_eigh_upper_batched, [rand(2, 3, 3)]),
    case("eigh-fields", C.la_eigh_fields, [rand(3, 2)]),
    case("eigh-repeated", C.la_eigh_repeated, [rand(3, 3)]),
    case("eigvalsh", C.la_eigvalsh, [rand(4, 4)]),
    case("svd-wide", C.la_svd, [rand(3, 5)]),
    case("svd-tall", C.la_svd, [rand(5, 3)]),
    case("svd-rank-one", C.la_svd_rank_one, [rand(4, 4)]),
    case("svd-values-of-full", C.la_svd_values_of_full, [rand(5, 3)]),
    case("svdvals", C.la_svdvals, [rand(3, 4)]),
    case("float64-cast", C.s_float64_cast, [rand(3)]),
    # written with other functions (s2sad/implementations.py)
    case("interp-fp", C.im_interp, [rand(5), np.linspace(-1.5, 1.9, 9), KNOTS]),
    case("interp-x", C.im_interp_x, [np.array([-1.4, -0.9, 0.0, 0.5, 1.2, 1.8]), rand(5),
                                     KNOTS]),
    case("polyval", C.im_polyval, [rand(4), rand(3)], (0, 1)),
    case("cross", C.im_cross, [rand(4, 3), rand(4, 3)], (0, 1)),
    case("trapezoid", C.im_trapezoid, [rand(6), np.cumsum(pos(6))], (0, 1)),
    case("cov", C.im_cov, [rand(3, 5)]),
    case("median", C.im_median, [rand(5, 3)]),
    case("nan-functions", C.im_nan_functions, [with_nans(5, 3)]),
    case("append", C.im_append, [rand(2, 2), rand(3)], (0, 1)),
    case("convolve", C.im_convolve, [rand(6), rand(3)], (0, 1)),
    case("diff-prepend-append", C.im_diff_ends, [rand(5)]),
    case("power-exponents-with-zero", C.e_power_of_exponents_with_zero, [rand(3)]),
    case("power-exponents-with-zero-at-0", C.e_power_of_exponents_with_zero,
         [np.array([0.0, 0.5, -1.25])]),
    case("power-whole-exponents-at-0", C.e_power_of_whole_exponents,
         [np.array([0.0, 0.5, -1.25])]),
    case("float_power-exponents-with-zero-at-0", C.e_float_power_of_exponents_with_zero,
         [np.array([0.0, 0.5, -1.25])]),
    case("python-float-powers-at-0", C.e_scalar_powers_at_zero, [0.0]),
    case("python-float-powers", C.e_scalar_powers_at_zero, [0.75]),
    case("quantile", C.im_quantile, [distinct(3, 5)]),
    case("percentile-keepdims", C.im_percentile, [distinct(5, 4)]),
    case("sliding_window_view", C.im_sliding_window_view, [distinct(7)]),
    case("sliding_window_view-axis", C.im_sliding_window_view_axis, [rand(4, 3)]),
    case("ufunc.reduce", C.im_ufunc_reduce, [distinct(3, 4)]),
    case("ufunc.accumulate", C.im_ufunc_accumulate, [distinct(3, 4)]),
    case("ufunc.outer", C.im_ufunc_outer, [rand(3, 2)]),
    case("diag-of-vector", C.la_diag_vec, [rand(3)]),
    case("diag-of-matrix", C.la_diag_mat, [rand(3, 4)]),
    case("diagonal-axes", C.la_diagonal, [rand(3, 2, 4)]),
    case("triu-tril", C.la_triu_tril, [rand(3, 4)]),
    case("inv-float32", C.la_inv, [f32(spd(3))]),
    # shape
    case("reshape", C.s_reshape, [rand(*M)]),
    case("reshape-order-F", C.s_reshape_order, [rand(*M)]),
    case("ravel", C.s_ravel, [rand(*M)]),
    case("transpose-axes", C.s_transpose, [rand(2, 3, 4)]),
    case(".T", C.s_T, [rand(*M)]),
    case("swapaxes", C.s_swapaxes, [rand(2, 3, 4)]),
    case("moveaxis", C.s_moveaxis, [rand(2, 3, 4)]),
    case("expand_dims-squeeze", C.s_expand_squeeze, [rand(*M)]),
    case("broadcast_to", C.s_broadcast_to, [rand(3, 1)]),
    case("atleast_nd-vector", C.s_atleast, [rand(3)]),
    case("atleast_nd-float", C.s_atleast, [0.6]),
    case("concatenate-axis1", C.s_concatenate, [rand(3, 4), rand(3, 3)], (0, 1)),
    case("concatenate-axis-None", C.s_concatenate_none, [rand(3, 4), rand(3, 3)], (0, 1)),
    case("stack-axis-1", C.s_stack, [rand(*M), rand(*M)], (0, 1)),
    case("hstack-1d", C.s_hstack, [rand(3), rand(4)], (0, 1)),
    case("hstack-2d", C.s_hstack_2d, [rand(3, 4), rand(3, 3)], (0, 1)),
    case("vstack-1d", C.s_vstack, [rand(*V), rand(*V)], (0, 1)),
    case("column_stack", C.s_column_stack, [rand(4), rand(4, 2)], (0, 1)),
    case("dstack", C.s_dstack, [rand(*M), rand(*M)], (0, 1)),
    case("stack-of-floats", C.s_stack_floats, [0.3, -1.2], (0, 1)),
    case("array-of-floats-nested", C.s_array_of_floats, [0.3, -1.2], (0, 1)),
    case("stack-list-argument", C.s_stack_list_arg, [[rand(*V), rand(*V)]]),
    case("concatenate-stack-of-an-array", C.s_concatenate_array, [rand(*M)]),
    case("hstack-of-floats", C.s_hstack_floats, [0.3, -1.2], (0, 1)),
    case("split-then-join", C.s_split_then_join, [rand(6)]),
    case("split-slice-of-the-list", C.s_split_reversed, [rand(6)],
         only_optimized=True),
    case("dsplit", C.s_dsplit, [rand(2, 2, 4)]),
    case("matrix_transpose", C.s_matrix_transpose, [rand(2, 3, 4)]),
    case("asfortranarray", C.s_asfortranarray, [rand(*M)]),
    case("split-unpacked", C.s_split, [rand(6)]),
    case("split-indices-axis1", C.s_split_axis, [rand(2, 5)]),
    case("array_split-indexed", C.s_split_index, [rand(7)]),
    case("hsplit-vsplit", C.s_hsplit_vsplit, [rand(4, 4)]),
    case("tile", C.s_tile, [rand(3, 2)]),
    case("repeat-axis", C.s_repeat, [rand(3, 4)]),
    case("repeat-counts-and-flat", C.s_repeat_flat, [rand(3, 2)]),
    case("flip", C.s_flip, [rand(*M)]),
    case("fliplr-flipud-rot90", C.s_fliplr_ud_rot, [rand(*M)]),
    case("roll", C.s_roll, [rand(*M)]),
    case("pad-constant", C.s_pad, [rand(*M)]),
    case("pad-modes", C.s_pad_modes, [rand(3, 5)]),
    case("pad-constant-value", C.s_pad_value, [rand(*M), 0.7], 0),
    case("pad-constant-value-wrt-value", C.s_pad_value, [rand(*M), 0.7], 1),
    case("diff", C.s_diff, [rand(4, 5)]),
    case("reshape-float32", C.s_reshape, [f32(rand(*M))]),
    case("concatenate-float32", C.s_concatenate, [f32(rand(3, 4)), f32(rand(3, 3))], (0, 1)),
    # selection
    case("take", C.sel_take, [rand(*M)]),
    case("take-modes", C.sel_take_modes, [rand(*M)]),
    case("take_along_axis", C.sel_take_along_axis, [distinct(*M)]),
    case("sort", C.sel_sort, [distinct(*M)]),
    case("sort-axis-None", C.sel_sort_flat, [distinct(*M)]),
    case("choose", C.sel_choose, [rand(*M), rand(*V)], (0, 1)),
    case("argmax-then-take", C.sel_argmax_value, [distinct(*M)]),
    # creation
    case("full", C.c_full, [0.7]),
    case("full_like", C.c_full_like, [0.7, rand(*M)], (0, 1)),
    case("linspace", C.c_linspace, [0.3, 1.7], (0, 1)),
    case("linspace-arrays-axis1", C.c_linspace_arrays, [rand(3), rand(3)], (0, 1)),
    case("arange", C.c_arange, [0.45]),
    case("zeros-ones-like", C.c_constants, [rand(3)]),
    case("nondifferentiable", C.c_nondiff, [away(3, 4) * 2.0]),
    case("array-from-list", C.c_array_from_list, [0.3, -0.4, 1.1], (0, 1, 2)),
    case("asarray", C.c_asarray, [rand(*M)]),
    # math and builtins
    case("math", C.py_math, [0.45]),
    case("math-two-arguments", C.py_math2, [1.3, -0.7], (0, 1)),
    case("math-modf-divmod-prod", C.py_math_parts, [1.3, -0.7], (0, 1)),
    case("float-sum-abs-max-min-pow", C.py_builtins, [-0.8, 1.3], (0, 1)),
    case("float-max-min-other-branch", C.py_builtins, [0.9, 0.3], (0, 1)),
    # indexing
    case("index-basic", C.i_basic, [rand(*M)]),
    case("index-negative-row", C.i_negative_row, [rand(*M)]),
    case("index-slice-steps", C.i_slice_step, [rand(7)]),
    case("index-slice-2d", C.i_slice_2d, [rand(*M)]),
    case("index-ellipsis", C.i_ellipsis, [rand(2, 3, 4)]),
    case("index-newaxis", C.i_newaxis, [rand(3)]),
    case("index-int-list-repeated", C.i_int_array, [rand(5)]),
    case("index-int-array-argument", C.i_int_array_var, [rand(4), np.array([3, 0, 3, 3, 1])]),
    case("index-int-array-2d", C.i_int_array_2d, [rand(3, 2)]),
    case("index-bool-mask", C.i_bool_mask, [away(*M)]),
    case("index-bool-mask-rows", C.i_bool_mask_rows, [rand(3, 2)]),
    case("index-multi-axis", C.i_multi_axis, [rand(*M)]),
    case("index-mixed-3d", C.i_mixed_3d, [rand(2, 3, 4)]),
    case("index-mask-column", C.i_mask_column, [rand(*M)]),
    case("index-chained", C.i_chained, [rand(*M)]),
    case("index-mask-and-int", C.i_mask_and_int, [rand(3, 4)]),
    case("index-variable-int", C.i_scalar_index_variable, [rand(5), 2]),
    case("index-float32", C.i_multi_axis, [f32(rand(*M))]),
    # float32 and broadcasting together
    case("float32-mixed", C.f32_mix, [f32(rand(*M)), f32(rand(4, 2))], (0, 1)),
    case("broadcast-chain", C.bc_chain, [rand(*M), pos(*V), 0.4], (0, 1, 2)),
    case("broadcast-chain-columns", C.bc_chain, [rand(*M), pos(3, 1), rand(1, 4)], (0, 1, 2)),
    case("list-and-tuple-calls", C.sequence_builtins, [rand(*M), 0.7], (0, 1)),
    # arguments that carry a value into the result (issue 32): no zero derivative for them
    case("nan_to_num-values", C.u_nan_to_num_values,
         [np.array([[np.nan, 0.3, np.inf], [-np.inf, -1.2, np.nan]]), 0.7], (0, 1)),
    case("heaviside-value-at-0", C.b_heaviside, [np.array([0.0, 0.5, -1.0, 0.0]), pos(4)], 1),
    case("heaviside-scalar-value", C.b_heaviside, [np.array([0.0, 0.5, -1.0, 0.0]), 0.6], 1),
    case("var-std-float-ddof", C.r_var_ddof_float, [rand(*M), 0.7], (0, 1)),
    case("var-std-float-correction", C.r_var_correction_float, [rand(*M), 1.3], (0, 1)),
    # a literal beside a varying argument of a jointly linear call (forward mode's tangent)
    case("linspace-literal-stop", C.c_linspace_literal_stop, [0.3]),
    case("sum-initial-literal", C.r_sum_initial_literal, [rand(*M)]),
    case("pad-constant-literal", C.s_pad_constant_literal, [rand(*M)]),
    # internal errors once
    case("det-singular", C.la_det_singular, [np.array([[1.0, 2.0, 0.5], [2.0, 4.0, 1.0],
                                                       [0.3, -0.7, 1.1]])]),
    case("det-singular-rank-1", C.la_det_singular, [np.outer([1.0, -2.0, 0.5], [0.3, 1.0, 2.0])]),
    case("pad-item-discarded", C.s_pad_item_discarded, [rand(*M)]),
    case("pad-mode-through-a-helper", C.s_pad_mode_through_a_helper, [rand(*M)]),
]


@pytest.mark.parametrize("f, args, wrt, optimize", [p for row in CASES for p in row])
def test_rule_against_finite_differences(f, args, wrt, optimize):
    check_case(f, args, wrt, optimize)


# --- the table covers what it says -----------------------------------------------------


def test_supported_lists_at_least_120_functions():
    names = s2sad.supported()
    assert len(names) >= 120, len(names)
    for name in ("numpy.einsum", "numpy.linalg.slogdet", "numpy.take_along_axis", "numpy.pad",
                 "numpy.logaddexp2", "numpy.cumprod", "math.erf", "numpy.isnan"):
        assert name in names


def test_every_rule_has_a_case():
    """Each function with a derivative rule is called by some function of the table."""
    import re
    with open(os.path.join(_HERE, "cases_numpy.py")) as f:
        text = f.read()
    for other in OTHER_TABLES:  # (the tables of scipy.special, scipy.stats, ...)
        with open(os.path.join(_HERE, other)) as f:
            text += f.read()
    elsewhere = {"math.atan", "math.pow"}  # tests/test_gradients.py
    missing = [rule.name for rule in registry.registered() if rule.adjoint is not None
               and rule.name not in elsewhere
               and not re.search(r"\b%s\b" % rule.name.split(".")[-1], text)]
    assert not missing


def test_every_rule_parses():
    """Every rule is assignments and one `return`, naming only np, math (cmath for cmath's
    own rules), runtime helpers
    (those of s2sad.runtime.ode too) and (SciPy's rules) SciPy's ``special``, ``stats``,
    ``linalg`` and ``signal``."""
    import gast
    for rule in registry.registered():
        if rule.adjoint is None:
            continue
        pre, returned = rule.parsed()
        params = set(rule.parameters)
        names = {n.id for s in pre + [returned] for n in gast.walk(s) if isinstance(n, gast.Name)}
        assigned = {n.id for s in pre for n in gast.walk(s.targets[0]) if isinstance(n, gast.Name)}
        for name in names - params - assigned - {"None", "True", "False"}:
            value = rule.adjoint.__globals__.get(name)
            assert name in ("np", "math") or getattr(runtime, name, None) is value or \
                name == "cmath" and value is sys.modules.get("cmath") or \
                name == "special" and value is sys.modules.get("scipy.special") or \
                name == "stats" and value is sys.modules.get("scipy.stats") or \
                name == "linalg" and value is sys.modules.get("scipy.linalg") or \
                name == "signal" and value is sys.modules.get("scipy.signal") or \
                getattr(value, "__module__", None) == "s2sad.runtime.ode", \
                f"{rule.adjoint.__qualname__} refers to {name!r}"


def test_shape_categories_are_known():
    for rule in registry.registered():
        assert rule.shape in registry.SHAPES


# --- dtype and NaN-safety -------------------------------------------------------------------


@pytest.mark.parametrize("f, args", [
    (C.u_sqrt, [f32(pos(5))]),
    (C.r_var_axis_ddof, [f32(rand(*M))]),
    (C.la_einsum_matmul, [f32(rand(2, 3)), f32(rand(3, 4))]),
    (C.s_pad_modes, [f32(rand(3, 5))]),
    (C.sel_sort, [f32(distinct(*M))]),
    (C.r_norm, [f32(rand(5))]),
], ids=["sqrt", "var", "einsum", "pad", "sort", "norm"])
def test_float32_in_float32_out(f, args):
    g = s2sad.grad(f)(*args)
    assert g.dtype == np.float32 and g.shape == args[0].shape


@pytest.mark.parametrize("f, x, expected", [
    (C.u_abs, np.array([0.0, -2.0, 3.0]), [0.0, -1.0, 1.0]),          # |x|' at 0 is 0
    (C.r_norm, np.zeros(3), [0.0, 0.0, 0.0]),                           # norm at the origin
    (C.r_std, np.full(4, 1.5), [0.0, 0.0, 0.0, 0.0]),                  # std of constant data
    (C.r_prod, np.array([0.0, 0.0, 2.0]), [0.0, 0.0, 0.0]),            # two zeros
    (C.u_sinc, np.array([0.0]), [0.0]),                                 # sinc'(0)
    (C.b_clip, np.array([-0.5, 0.7, 0.0]), [-1.0, 1.4, 0.0]),           # at the bounds: to x
], ids=["abs-0", "norm-0", "std-constant", "prod-zeros", "sinc-0", "clip-bounds"])
def test_no_nan_where_a_value_is_conventional(f, x, expected):
    g = s2sad.grad(f)(x)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, expected, atol=1e-12)


def test_hypot_at_origin_and_maximum_ties():
    gx, gy = s2sad.grad(C.b_hypot, wrt=(0, 1))(np.array([0.0, 3.0]), np.array([0.0, 4.0]))
    np.testing.assert_allclose(gx, [0.0, 0.6])
    np.testing.assert_allclose(gy, [0.0, 0.8])
    gx, gy = s2sad.grad(C.b_maximum, wrt=(0, 1))(np.array([1.0]), np.array([1.0]))
    np.testing.assert_allclose(gx + gy, [2.0])  # d/dx max(x, x)^2 = 2x, shared


def test_astype_to_float32_and_back():
    x = rand(*M)
    g = s2sad.grad(C.m_astype32)(x)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, 2.0 * x, rtol=1e-6)


def test_repeated_integer_indices_accumulate():
    g = s2sad.grad(C.i_int_array)(np.arange(5.0))
    np.testing.assert_allclose(g, [0.0, 0.0, 3 * 2 * 2.0, 0.0, 2 * 4.0])


# --- rules called directly, without the compiler -----------------------------------------


def _direct_fd(func, x, weights, eps=1e-6):
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        out[i] = np.sum((func(hi) - func(lo)) * weights) / (2 * eps)
    return out


@pytest.mark.parametrize("func, x, kwargs", [
    (np.arcsinh, rand(3), {}),
    (np.cbrt, away(2, 2), {}),
    (np.cumprod, rand(2, 3), {"axis": 1}),
    (np.prod, pos(2, 3), {"axis": 0}),
    (np.var, rand(3, 4), {"axis": 1, "ddof": 1}),
    (np.std, rand(3, 4), {"axis": 0}),
    (np.linalg.inv, spd(3), {}),
    (np.sort, distinct(3, 4), {"axis": 0}),
    (np.diff, rand(5), {"n": 2}),
    (np.tile, rand(2, 3), {"reps": (2, 2)}),
    (np.trace, rand(3, 3), {"offset": 1}),
    (np.linalg.cholesky, np.eye(3) * 3.0 + 0.5, {}),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_rule_adjoint_called_directly(func, x, kwargs):
    rule = registry.lookup(func)
    ans = func(x, **kwargs)
    weights = _rng.uniform(-1.0, 1.0, size=np.shape(ans))
    result = rule.adjoint(weights, ans, x, **kwargs)
    grad = result[0] if isinstance(result, tuple) else result
    if func is np.linalg.cholesky:  # a function of the symmetric matrix: perturb both halves
        def sym(a):
            return func(np.tril(a) + np.tril(a, -1).T)
        expected = _direct_fd(sym, x, weights)
        grad = np.tril(grad + grad.T - np.diag(np.diag(grad)))
    else:
        expected = _direct_fd(lambda v: func(v, **kwargs), x, weights)
    np.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-6)


def test_binary_rules_directly_unbroadcast():
    x, y = rand(3, 4), pos(4)
    for func in (np.arctan2, np.hypot, np.logaddexp, np.fmax, np.float_power):
        rule = registry.lookup(func)
        g = np.ones((3, 4))
        gx, gy = rule.adjoint(g, func(x if func is not np.float_power else pos(3, 4), y),
                              x if func is not np.float_power else pos(3, 4), y)
        assert np.shape(gx) == (3, 4) and np.shape(gy) == (4,), func.__name__


def test_einsum_forms_that_are_refused():
    x = rand(3)
    with pytest.raises(s2sad.DifferentiationError, match="einsum"):
        s2sad.grad(C.la_einsum_seven)(x)
    with pytest.raises(s2sad.NoDerivativeError, match="subscripts a str, not an array"):
        s2sad.grad(C.la_einsum_sublists_held)(rand(2, 3), rand(3, 2))  # (at its line)


def test_einsum_sublists_are_spelled_as_subscripts():
    """np.einsum(x, [0, 1], y, [1, 2]), its sublists written out, is np.einsum("ab,bc", x, y)."""
    x, y = rand(2, 3), rand(3, 2)
    gx, gy = s2sad.grad(C.la_einsum_interleaved, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(gx, np.ones((2, 2)) @ y.T)
    np.testing.assert_allclose(gy, x.T @ np.ones((2, 2)))
    assert "np.einsum('ab,bc', " in s2sad.grad(C.la_einsum_interleaved).source


def test_einsum_on_an_empty_batch():
    """The ``...`` of ``...ij,...jk->...ik`` spans a batch of length 0: the gradient is
    empty (the label's size was taken as 1, and the sensitivity reshaped to it)."""
    x, y = rand(0, 2, 3), rand(0, 3, 2)
    gx, gy = s2sad.grad(C.la_einsum_empty_batch, wrt=(0, 1))(x, y)
    assert gx.shape == x.shape and gy.shape == y.shape
    _, push = s2sad.jvp(C.la_einsum_empty_batch)(x, y)
    assert push(x) == 0.0
    x1, y1 = rand(1, 2, 3), rand(1, 3, 2)  # a batch of one, against the same formula
    gx1 = s2sad.grad(C.la_einsum_empty_batch)(x1, y1)
    np.testing.assert_allclose(gx1, np.broadcast_to(np.sum(y1, axis=-1)[:, None, :] + 2.0,
                                                    x1.shape))


@pytest.mark.parametrize("ord_", [-2, -1, -np.inf, 1, np.inf, 2, "nuc", "fro", None])
def test_matrix_norm_rule_directly(ord_):
    x = distinct(3, 4)
    rule = registry.lookup(np.linalg.norm)
    ans = np.linalg.norm(x, ord_)
    grad = rule.adjoint(1.0, ans, x, ord_)
    np.testing.assert_allclose(grad, _direct_fd(lambda v: np.linalg.norm(v, ord_), x, 1.0),
                               rtol=1e-5, atol=1e-6)


def test_vector_norm_rule_directly():
    x = away(2, 5)
    rule = registry.lookup(np.linalg.norm)
    for ord_ in (0, 0.5, 3, -1, -np.inf):
        ans = np.linalg.norm(x, ord_, axis=1, keepdims=True)
        weights = rand(2, 1)
        grad = rule.adjoint(weights, ans, x, ord_, 1, True)
        expected = _direct_fd(lambda v: np.linalg.norm(v, ord_, axis=1, keepdims=True), x,
                              weights)
        np.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-6, err_msg=str(ord_))


def test_sum_initial_rule_directly():
    x = rand(3, 4)
    parts = registry.lookup(np.sum).adjoint(np.ones(4), None, x, 0, None, None, False, 2.0)
    np.testing.assert_allclose(parts[0], np.ones((3, 4)))
    assert parts[5] == 4.0  # the initial value is added to each of the 4 sums


def test_einsum_grad_helper_directly():
    a, b, c = rand(2, 3), rand(3, 4), rand(4)
    g = rand(2)
    ga = runtime.einsum_grad(g, "ij,jk,k->i", (a, b, c), 0)
    gc = runtime.einsum_grad(g, "ij,jk,k->i", (a, b, c), 2)
    np.testing.assert_allclose(ga, np.outer(g, b @ c))
    np.testing.assert_allclose(gc, g @ a @ b)


def test_math_rules_directly():
    rule = registry.lookup(math.atan2)
    gy, gx = rule.adjoint(1.0, math.atan2(0.3, 0.4), 0.3, 0.4)
    assert gy == pytest.approx(0.4 / 0.25) and gx == pytest.approx(-0.3 / 0.25)


def test_a_float32_cast_passes_the_gradient_in_the_arguments_dtype():
    """(Against the exact derivative: central differences in float32 are rounding noise.)"""
    for x in (f32(rand(3)), rand(3)):
        got = s2sad.grad(C.s_float32_cast)(x)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, np.full(3, 3.0))


@pytest.mark.parametrize("mode", ["maximum", "mean", "linear_ramp"])
def test_pad_mode_known_only_when_the_line_runs(mode):
    """A mode held in a variable cannot be checked when the gradient is built: the one that
    computes new values is refused when the line runs, in reverse and forward mode (forward
    mode took np.pad as linear in x, whatever the mode)."""
    x = rand(3, 4)
    with pytest.raises(s2sad.NoDerivativeError, match=f"np.pad with mode='{mode}'"):
        s2sad.grad(C.s_pad_mode_held_in_a_variable)(x, mode)
    with pytest.raises(s2sad.NoDerivativeError, match=f"np.pad with mode='{mode}'"):
        s2sad.jvp(C.s_pad_mode_held_in_a_variable)(x, mode)[1](x)
    _, push = s2sad.jvp(C.s_pad_mode_held_in_a_variable)(x, "symmetric")
    v = rand(3, 4)
    expected = np.dot(np.ravel(finite_differences(C.s_pad_mode_held_in_a_variable,
                                                  (x, "symmetric"), 0)), np.ravel(v))
    np.testing.assert_allclose(push(v), expected, rtol=1e-6)
