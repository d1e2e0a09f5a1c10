"""Table-driven gradient checks: s2sad's gradients against central finite differences.

Each case is ``(function, args, wrt)``. The generic checker

* compiles ``s2sad.grad(f, wrt=wrt)`` (optimized and with ``optimize=False``),
* checks that the gradient has the structure of the argument (float -> float,
  ndarray -> same shape and dtype, list -> list, tuple -> tuple),
* compares it with central finite differences computed in float64,
* checks ``value_and_grad`` returns ``f(*args)`` and the same gradient.

The functions under test live in ``tests/cases_core.py`` (s2sad needs their source).
"""

import inspect
import math

import numpy as np
import pytest

import s2sad  # noqa: E402
import cases_core as C  # noqa: E402
from examples.f4 import f4  # noqa: E402

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-7
RTOL32 = 1e-3
ATOL32 = 1e-4

# --- inputs -------------------------------------------------------------------------------

_rng = np.random.default_rng(20240611)


def rand(*shape):
    """Values in [-1.5, 1.5)."""
    return _rng.uniform(-1.5, 1.5, size=shape)


def pos(*shape):
    """Positive values in [0.5, 2)."""
    return _rng.uniform(0.5, 2.0, size=shape)


def unit(*shape):
    """|x| < 0.9 (safe for tan)."""
    return _rng.uniform(-0.9, 0.9, size=shape)


def away(*shape):
    """|x| in [0.2, 1.5], both signs: no kinks for abs/fabs."""
    return _rng.uniform(0.2, 1.5, size=shape) * _rng.choice([-1.0, 1.0], size=shape)


def distinct(*shape):
    """Well-separated values (gaps >= 0.1, no ties), shuffled: safe for max/min."""
    n = int(np.prod(shape))
    return _rng.permutation(np.linspace(-1.7, 1.7, n) + _rng.uniform(-0.02, 0.02, n)).reshape(shape)


def fl(x):
    return float(x)


# --- the finite-difference oracle -----------------------------------------------------------


def _to64(x):
    """x with every float array promoted to float64 (the FD oracle works in float64)."""
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return x.astype(np.float64)
    if isinstance(x, list):
        return [_to64(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_to64(v) for v in x)
    return x


def _flat_get(x):
    """The float entries of an argument, as a 1-d float64 array."""
    if isinstance(x, (list, tuple)):
        return np.concatenate([_flat_get(v) for v in x]) if x else np.zeros(0)
    return np.ravel(np.asarray(x, dtype=np.float64)).copy()


def _single_precision(x) -> bool:
    if isinstance(x, (list, tuple)):
        return any(_single_precision(v) for v in x)
    return np.asarray(x).dtype == np.float32


def _flat_put(like, values):
    """An argument shaped like ``like`` built from the 1-d ``values`` (inverse of _flat_get)."""
    def build(x, it):
        if isinstance(x, list):
            return [build(v, it) for v in x]
        if isinstance(x, tuple):
            return tuple(build(v, it) for v in x)
        if isinstance(x, np.ndarray):
            return np.array([next(it) for _ in range(x.size)], dtype=np.float64).reshape(x.shape)
        return float(next(it))
    return build(like, iter(values))


def finite_differences(f, args, index):
    """Central differences of ``f`` with respect to ``args[index]``, flattened."""
    args = [_to64(a) for a in args]
    base = _flat_get(args[index])
    out = np.zeros_like(base)
    for i in range(base.size):
        plus, minus = base.copy(), base.copy()
        plus[i] += EPS
        minus[i] -= EPS
        a_plus, a_minus = list(args), list(args)
        a_plus[index] = _flat_put(args[index], plus)
        a_minus[index] = _flat_put(args[index], minus)
        out[i] = (float(np.asarray(f(*_copy(a_plus)))) - float(np.asarray(f(*_copy(a_minus))))) \
            / (2 * EPS)
    return out


def check_every_mode(f, args, seed=1):
    """Forward mode, ``hvp`` and ``hessian`` of ``f`` with respect to its first array
    argument agree with its gradient and with central differences of that gradient, along
    a random direction."""
    x, rest = args[0], list(args[1:])
    tangent = np.random.default_rng(seed).standard_normal(x.shape)
    grad = s2sad.grad(f)
    _, push = s2sad.jvp(f)(x, *rest)
    np.testing.assert_allclose(push(tangent), np.dot(grad(x, *rest).ravel(), tangent.ravel()),
                               rtol=1e-9, atol=1e-12)
    eps = 1e-6
    central = (grad(x + eps * tangent, *rest) - grad(x - eps * tangent, *rest)) / (2 * eps)
    np.testing.assert_allclose(s2sad.hvp(f)(x, *rest, tangent), central, rtol=1e-5, atol=1e-7)
    hessian = s2sad.hessian(f)(x, *rest).reshape(x.size, x.size)
    np.testing.assert_allclose(hessian @ tangent.ravel(), central.ravel(), rtol=1e-5,
                               atol=1e-7)


def check_structure(arg, g):
    """The gradient has the structure, shape and dtype of the argument."""
    if isinstance(arg, np.ndarray):
        assert isinstance(g, np.ndarray), f"expected ndarray gradient, got {type(g).__name__}"
        assert g.shape == arg.shape, f"gradient shape {g.shape} != argument shape {arg.shape}"
        assert g.dtype == arg.dtype, f"gradient dtype {g.dtype} != argument dtype {arg.dtype}"
    elif isinstance(arg, list):
        assert type(g) is list, f"expected list gradient, got {type(g).__name__}"
        assert len(g) == len(arg)
        for a, b in zip(arg, g):
            check_structure(a, b)
    elif isinstance(arg, tuple):
        assert type(g) is tuple, f"expected tuple gradient, got {type(g).__name__}"
        assert len(g) == len(arg)
        for a, b in zip(arg, g):
            check_structure(a, b)
    elif isinstance(arg, float):
        assert type(g) is float, f"expected Python float gradient, got {type(g).__name__}"
    else:  # pragma: no cover - the table has no other argument kinds
        raise AssertionError(f"unexpected argument type {type(arg).__name__}")


def _has_float32(x):
    if isinstance(x, np.ndarray):
        return x.dtype == np.float32
    if isinstance(x, (list, tuple)):
        return any(_has_float32(v) for v in x)
    return False


def _wrt_indices(f, wrt):
    params = list(inspect.signature(f).parameters)
    items = wrt if isinstance(wrt, tuple) else (wrt,)
    return [params.index(w) if isinstance(w, str) else w % len(params) for w in items]


def _copy(x):
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, list):
        return [_copy(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_copy(v) for v in x)
    return x


def check_case(f, args, wrt, optimize):
    args = _copy(args)  # the table's arrays are shared between tests
    originals = _copy(args)
    indices = _wrt_indices(f, wrt)
    df = s2sad.grad(f, wrt=wrt, optimize=optimize)
    grads = df(*args)
    for a, a0 in zip(args, originals):  # the gradient does not modify its arguments
        np.testing.assert_array_equal(_flat_get(a), _flat_get(a0))
    if isinstance(wrt, tuple):
        assert type(grads) is tuple and len(grads) == len(indices)
    else:
        grads = (grads,)
    loose = any(_has_float32(a) for a in args)
    rtol, atol = (RTOL32, ATOL32) if loose else (RTOL, ATOL)
    for i, g in zip(indices, grads):
        check_structure(args[i], g)
        expected = finite_differences(f, args, i)
        np.testing.assert_allclose(_flat_get(g), expected, rtol=rtol, atol=atol,
                                   err_msg=f"gradient wrt {list(inspect.signature(f).parameters)[i]}")
    # value_and_grad: the value is f(*args) and the gradient is the same
    value, grads2 = s2sad.value_and_grad(f, wrt=wrt, optimize=optimize)(*args)
    np.testing.assert_allclose(np.asarray(value, dtype=np.float64),
                               np.asarray(f(*_copy(args)), dtype=np.float64),
                               rtol=1e-12, atol=1e-12, err_msg="value_and_grad value")
    grads2 = grads2 if isinstance(wrt, tuple) else (grads2,)
    # (equal to float64's rounding; in float32, to the bit: both spread np.sum's seed in
    # float32, as NumPy's arithmetic does)
    same = 0 if loose else 1e-12
    for i, g, g2 in zip(indices, grads, grads2):
        check_structure(args[i], g2)
        np.testing.assert_allclose(_flat_get(g2), _flat_get(g), rtol=same, atol=same * 1e-2)
    return grads


# --- the table ------------------------------------------------------------------------------


def case(id_, f, args, wrt=0, xfail=None):
    marks = [pytest.mark.xfail(reason=xfail, strict=True)] if xfail else []
    return pytest.param(f, tuple(args), wrt, id=id_, marks=marks)


TD_BUG = ("runtime.tensordot_grad assumes np.tensordot(g, y, ...) leaves y's contracted axes "
          "in the order of axes[1] (and np.tensordot(x, g, ...) leaves x's in the order of "
          "axes[0]); NumPy leaves them in increasing order, so with an unsorted axes[1] the "
          "gradient wrt x, and with an unsorted axes[0] the gradient wrt y, is transposed "
          "wrongly")

CASES = [
    # Python floats: operators
    case("float-arith", C.s_arith, (fl(0.7), fl(-1.3)), (0, 1)),
    case("float-pow-both", C.s_pow, (fl(1.7), fl(2.3)), (0, 1)),
    case("float-pow-const", C.s_pow_const, (fl(0.8),)),
    case("float-neg", C.s_neg, (fl(0.6), fl(1.9)), (0, 1)),
    case("float-constants", C.s_constants, (fl(1.1),)),
    # Python floats: math module
    case("math-sin", C.m_sin, (fl(0.9),)),
    case("math-cos", C.m_cos, (fl(0.9),)),
    case("math-tan", C.m_tan, (fl(0.7),)),
    case("math-exp", C.m_exp, (fl(0.9),)),
    case("math-log", C.m_log, (fl(1.6),)),
    case("math-sqrt", C.m_sqrt, (fl(1.6),)),
    case("math-tanh", C.m_tanh, (fl(0.4),)),
    case("math-atan", C.m_atan, (fl(0.4),)),
    case("math-log-base", C.m_log_base, (fl(1.7), fl(2.5)), (0, 1)),
    case("builtin-abs-float", C.builtin_abs, (fl(-0.7),)),
    case("builtin-abs-array", C.builtin_abs_array, (away(3, 4),)),
    case("math-pow-both", C.m_pow, (fl(1.6), fl(2.5)), (0, 1)),
    case("math-fabs", C.m_fabs, (fl(-0.8), fl(1.4)), (0, 1)),
    case("math-chain", C.m_chain, (fl(0.8), fl(0.3)), (0, 1)),
    case("np-on-float", C.np_on_float, (fl(0.8),)),
    # elementwise NumPy functions on vectors and matrices
    case("np-sin-vec", C.e_sin, (rand(5),)),
    case("np-sin-mat", C.e_sin, (rand(3, 4),)),
    case("np-cos", C.e_cos, (rand(3, 4),)),
    case("np-tan", C.e_tan, (unit(6),)),
    case("np-exp", C.e_exp, (rand(3, 4),)),
    case("np-log", C.e_log, (pos(3, 4),)),
    case("np-sqrt", C.e_sqrt, (pos(5),)),
    case("np-tanh", C.e_tanh, (rand(2, 3, 4),)),
    case("np-abs", C.e_abs, (away(3, 4),)),
    case("np-square", C.e_square, (rand(5),)),
    case("np-neg", C.e_neg, (rand(3, 4),)),
    case("np-chain", C.e_chain, (rand(4, 3),)),
    case("np-function-calls", C.np_function_calls, (distinct(3, 4), pos(4)), (0, 1)),
    # binary operators with broadcasting, both directions
    case("add-same", C.b_add, (rand(3, 4), rand(3, 4)), (0, 1)),
    case("add-(3,4)+(4,)", C.b_add, (rand(3, 4), rand(4)), (0, 1)),
    case("add-(4,)+(3,4)", C.b_add, (rand(4), rand(3, 4)), (0, 1)),
    case("add-(3,1)+(1,4)", C.b_add, (rand(3, 1), rand(1, 4)), (0, 1)),
    case("add-float+mat", C.b_add, (fl(0.3), rand(3, 4)), (0, 1)),
    case("sub-(4,)-(3,4)", C.b_sub, (rand(4), rand(3, 4)), (0, 1)),
    case("sub-(3,4)-(3,1)", C.b_sub, (rand(3, 4), rand(3, 1)), (0, 1)),
    case("sub-mat-float", C.b_sub, (rand(3, 4), fl(0.4)), (0, 1)),
    case("sub-(1,4)-(3,1)", C.b_sub, (rand(1, 4), rand(3, 1)), (0, 1)),
    case("mul-(3,4)*(4,)", C.b_mul, (rand(3, 4), rand(4)), (0, 1)),
    case("mul-float*mat", C.b_mul, (fl(0.7), rand(3, 4)), (0, 1)),
    case("mul-(3,1)*(1,4)", C.b_mul, (rand(3, 1), rand(1, 4)), (0, 1)),
    case("mul-(4,)*(2,3,4)", C.b_mul, (rand(4), rand(2, 3, 4)), (0, 1)),
    case("div-(3,4)/(3,1)", C.b_div, (rand(3, 4), pos(3, 1)), (0, 1)),
    case("div-(4,)/(3,4)", C.b_div, (rand(4), pos(3, 4)), (0, 1)),
    case("div-float/mat", C.b_div, (fl(0.9), pos(3, 4)), (0, 1)),
    case("div-mat/float", C.b_div, (rand(3, 4), fl(1.3)), (0, 1)),
    case("div-(1,4)/(3,1)", C.b_div, (rand(1, 4), pos(3, 1)), (0, 1)),
    case("pow-(3,4)**(4,)", C.b_pow, (pos(3, 4), rand(4)), (0, 1)),
    case("pow-(4,)**(3,4)", C.b_pow, (pos(4), rand(3, 4)), (0, 1)),
    case("pow-(3,1)**(1,4)", C.b_pow, (pos(3, 1), rand(1, 4)), (0, 1)),
    case("pow-mat**float", C.b_pow, (pos(3, 4), fl(2.5)), (0, 1)),
    case("pow-float**mat", C.b_pow, (fl(1.8), rand(3, 4)), (0, 1)),
    case("maximum-(3,4),(4,)", C.b_maximum, (distinct(3, 4), distinct(4) + 0.05), (0, 1)),
    case("maximum-(3,1),(1,4)", C.b_maximum, (distinct(3, 1), distinct(1, 4) + 0.05), (0, 1)),
    case("maximum-float,mat", C.b_maximum, (fl(0.33), distinct(3, 4)), (0, 1)),
    case("minimum-(4,),(3,4)", C.b_minimum, (distinct(4) + 0.05, distinct(3, 4)), (0, 1)),
    case("minimum-(3,4),(3,1)", C.b_minimum, (distinct(3, 4), distinct(3, 1) + 0.05), (0, 1)),
    # reductions
    case("sum-all", C.r_sum_all, (rand(3, 4),)),
    case("sum-axis0", C.r_sum_axis0, (rand(3, 4),)),
    case("sum-axis-1", C.r_sum_axis_neg, (rand(2, 3, 4),)),
    case("sum-axis(0,2)", C.r_sum_axis_tuple, (rand(2, 3, 4),)),
    case("sum-keepdims", C.r_sum_keepdims, (rand(3, 4),)),
    case("mean-all", C.r_mean_all, (rand(3, 4),)),
    case("mean-axis0", C.r_mean_axis0, (rand(3, 4),)),
    case("mean-axis-1-keepdims", C.r_mean_axis_neg_keepdims, (rand(3, 4),)),
    case("mean-axis(1,2)", C.r_mean_axis_tuple, (rand(2, 3, 4),)),
    case("max-all", C.r_max_all, (distinct(3, 4),)),
    case("max-axis1", C.r_max_axis, (distinct(3, 4),)),
    case("max-axis-1-keepdims", C.r_max_axis_neg_keepdims, (distinct(3, 4),)),
    case("min-all", C.r_min_all, (distinct(3, 4),)),
    case("min-axis0", C.r_min_axis, (distinct(3, 4),)),
    case("min-axis(0,2)", C.r_min_axis_tuple, (distinct(2, 3, 4),)),
    case("positional-axis", C.r_positional_axis, (distinct(3, 4),)),
    case("negative-tuple-axis", C.r_neg_tuple_axis, (rand(2, 3, 4),)),
    case("max-min-tuple-axis-keepdims", C.r_extremum_tuple_keepdims, (distinct(2, 3, 4),)),
    case("sum-all-keepdims", C.r_sum_all_keepdims, (rand(3, 4),)),
    # methods
    case("method-sum", C.meth_sum, (rand(3, 4),)),
    case("method-mean-axis", C.meth_mean_axis, (rand(3, 4),)),
    case("method-T", C.meth_T, (rand(3, 4), rand(4, 3)), (0, 1)),
    case("method-dot", C.meth_dot, (rand(3, 4), rand(4)), (0, 1)),
    case("method-max", C.meth_max, (distinct(3, 4),)),
    case("method-axis-kwargs", C.meth_axis, (distinct(3, 4),)),
    case("method-T-vec", C.meth_T_vec, (rand(4), rand(4)), (0, 1)),
    # dot
    case("dot-1d.1d", C.la_dot_scalar_out, (rand(4), rand(4)), (0, 1)),
    case("dot-2d.1d", C.la_dot, (rand(3, 4), rand(4)), (0, 1)),
    case("dot-1d.2d", C.la_dot, (rand(3), rand(3, 4)), (0, 1)),
    case("dot-2d.2d", C.la_dot, (rand(3, 4), rand(4, 5)), (0, 1)),
    # matmul
    case("matmul-2d@2d", C.la_matmul, (rand(3, 4), rand(4, 5)), (0, 1)),
    case("matmul-op-2d@2d", C.la_matmul_op, (rand(3, 4), rand(4, 2)), (0, 1)),
    case("matmul-batched(2,3,4)@(4,5)", C.la_matmul_op, (rand(2, 3, 4), rand(4, 5)), (0, 1)),
    case("matmul-batched(4,3)@(2,3,4)", C.la_matmul, (rand(4, 3), rand(2, 3, 4)), (0, 1)),
    case("matmul-batched(2,3,4)@(2,4,2)", C.la_matmul_op, (rand(2, 3, 4), rand(2, 4, 2)), (0, 1)),
    case("matmul-1d@2d", C.la_matmul_op, (rand(4), rand(4, 5)), (0, 1)),
    case("matmul-2d@1d", C.la_matmul, (rand(3, 4), rand(4)), (0, 1)),
    case("matmul-1d@(2,4,3)-wrt-x", C.la_matmul_op, (rand(4), rand(2, 4, 3)), 0),
    case("matmul-1d@(2,4,3)-wrt-y", C.la_matmul_op, (rand(4), rand(2, 4, 3)), 1),
    case("matmul-(2,3,4)@1d", C.la_matmul_op, (rand(2, 3, 4), rand(4)), (0, 1)),
    case("matmul-1d@1d", C.la_vec_matmul_scalar_out, (rand(4), rand(4)), (0, 1)),
    # tensordot
    case("tensordot-axes1", C.la_td_1, (rand(3, 4), rand(4, 5)), (0, 1)),
    case("tensordot-axes2", C.la_td_2, (rand(2, 3, 4), rand(3, 4, 5)), (0, 1)),
    case("tensordot-axes([1],[0])", C.la_td_lists, (rand(3, 4), rand(4, 5)), (0, 1)),
    case("tensordot-axes([1,2],[0,1])", C.la_td_multi_sorted, (rand(2, 3, 4), rand(3, 4, 5)), (0, 1)),
    case("tensordot-axes([0,2],[1,0])-wrt-x", C.la_td_multi, (rand(2, 3, 4), rand(4, 2, 5)), 0),
    case("tensordot-axes([0,2],[1,0])-wrt-y", C.la_td_multi, (rand(2, 3, 4), rand(4, 2, 5)), 1),
    case("tensordot-axes([2,0],[0,1])-wrt-x", C.la_td_multi_x_unsorted,
         (rand(2, 3, 4), rand(4, 2, 5)), 0),
    case("tensordot-axes([2,0],[0,1])-wrt-y", C.la_td_multi_x_unsorted,
         (rand(2, 3, 4), rand(4, 2, 5)), 1),
    case("tensordot-trace-square", C.la_td_square, (rand(3, 3), rand(3, 3)), (0, 1)),
    # transpose
    case("transpose-2d", C.la_transpose, (rand(3, 4), rand(4, 3)), (0, 1)),
    case("transpose-axes", C.la_transpose_axes, (rand(2, 3, 4), rand(3, 2, 4)), (0, 1)),
    case("transpose-axes-kw", C.la_transpose_axes_kw, (rand(2, 3, 4), rand(4, 2, 3)), (0, 1)),
    case("self-products", C.la_self_products, (rand(3, 4),)),
    # subscripts
    case("index-vec", C.sub_index, (rand(5),)),
    case("slice-vec", C.sub_slice, (rand(6),)),
    case("column-mat", C.sub_column, (rand(3, 4),)),
    case("row-and-column-broadcast", C.sub_row_broadcast, (rand(3, 4),)),
    case("index-list", C.sub_list, ([fl(0.4), fl(-1.1), fl(0.7)],)),
    case("index-tuple", C.sub_tuple, ((fl(0.4), fl(-0.3), fl(1.2)),)),
    # the traps
    case("trap-pow-sum", C.trap_pow_sum, (pos(4) * 0.3,)),
    case("trap-shared", C.trap_shared, (rand(3, 4),)),
    # statements
    case("reassign", C.st_reassign, (rand(5),)),
    case("reassign-float", C.st_reassign_scalar, (fl(0.6),)),
    case("augassign", C.st_augassign, (rand(3, 4),)),
    case("augassign-all-ops", C.st_augassign_all, (rand(3, 4), pos(4)), (0, 1)),
    case("augassign-float", C.st_augassign_float, (fl(0.7),)),
    case("unpack-array", C.st_unpack_array, (rand(3),)),
    case("unpack-list", C.st_unpack_list, ([fl(0.5), fl(1.5), fl(-0.7)],)),
    case("unpack-tuple-arg", C.st_unpack_list, ((fl(0.5), fl(1.5), fl(-0.7)),)),
    case("unpack-matrix-rows", C.st_unpack_rows, (rand(2, 4),)),
    case("unpack-tuple-names", C.st_unpack_tuple_names, (rand(4), rand(4)), (0, 1)),
    case("unpack-tuple-expr", C.st_unpack_tuple_expr, (rand(4), rand(4)), (0, 1)),
    case("user-names-like-generated", C.st_generated_like_names, (rand(4), rand(4)), (0, 1)),
    case("np-on-list-arg", C.e_sin, ([fl(0.1), fl(0.2), fl(-0.5)],)),
    case("np-on-tuple-arg", C.e_sin, ((fl(0.1), fl(0.2), fl(-0.5)),)),
    # wrt variants, pass-through arguments
    case("wrt-multi-3", C.f_multi, (rand(3, 4), rand(4), fl(0.8)), (0, 1, 2)),
    case("wrt-name", C.f_multi, (rand(3, 4), rand(4), fl(0.8)), "w"),
    case("wrt-names-tuple", C.f_multi, (rand(3, 4), rand(4), fl(0.8)), ("c", "x")),
    case("wrt-negative-index", C.f_multi, (rand(3, 4), rand(4), fl(0.8)), -1),
    case("pass-through-int", C.f_pass_through, (pos(5), 3, fl(1.5)), 0),
    case("pass-through-float-wrt", C.f_pass_through, (pos(5), 3, fl(1.5)), "scale"),
    case("int-constants", C.f_int_constant, (rand(4),)),
    # gradients that are zero
    case("independent-array", C.f_independent, (rand(3, 4), rand(5)), (0, 1)),
    case("independent-float", C.f_independent_float, (fl(0.5), fl(1.5)), (0, 1)),
    case("times-zero", C.f_partial_dependent, (rand(3), rand(2)), (0, 1)),
    case("max-min-of-several", C.max_min_of_several, (fl(0.3), fl(0.9), fl(0.1)), (0, 1, 2)),
    case("max-min-of-several-2", C.max_min_of_several, (fl(0.8), fl(-0.2), fl(0.4)), (0, 1, 2)),
    # an index array that repeats a position, written to
    case("dup-assign", C.dup_assign, (rand(3),)),
    case("dup-add", C.dup_add, (rand(3), rand(3)), (0, 1)),
    case("dup-two-axes", C.dup_two_axes, (rand(3),)),
    case("dup-columns", C.dup_columns, (rand(2, 3), rand(2, 3)), (0, 1)),
    case("dup-counts", C.dup_counts, (rand(4), np.array([0, 1, 1, 3, 1]))),
    case("dup-in-a-loop", C.dup_in_a_loop, (rand(3), np.array([2, 2, 0]))),
    # the seed's f4
    case("f4-list", f4, ([1.0, 2.0, 3.0, 4.0],)),
    case("f4-tuple", f4, ((1.5, 0.5, 2.5, 3.0),)),
    case("f4-array", f4, (np.array([1.0, 2.0, 3.0, 4.0]),)),
    # float32 (compared loosely with float64 finite differences)
    case("float32-matmul", C.f_float32, (rand(3, 4).astype(np.float32),
                                         rand(4, 2).astype(np.float32)), (0, 1)),
    case("float32-sin", C.e_sin, (rand(3, 4).astype(np.float32),)),
    case("float32-broadcast", C.b_mul, (rand(3, 4).astype(np.float32),
                                        rand(4).astype(np.float32)), (0, 1)),
    case("float32-reduce-max", C.r_max_axis, (distinct(3, 4).astype(np.float32),)),
    case("float32-mixed-float", C.b_div, (rand(3, 4).astype(np.float32), fl(1.3)), (0, 1)),
]


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("f, args, wrt", CASES)
def test_gradient(f, args, wrt, optimize):
    check_case(f, args, wrt, optimize)


def _outcome(f, args, wrt, optimize):
    try:
        return s2sad.grad(f, wrt=wrt, optimize=optimize)(*_copy(args)), None
    except Exception as exc:  # noqa: BLE001 - compared between the two modes below
        return None, type(exc)


# the same table without the xfail marks: a wrong gradient must at least be the same wrong
# gradient (or the same error) with and without optimization
COMPARE_CASES = [pytest.param(*p.values, id=p.id) for p in CASES]


@pytest.mark.parametrize("f, args, wrt", COMPARE_CASES)
def test_optimize_false_matches(f, args, wrt):
    """The unoptimized gradient gives the same numbers as the optimized one."""
    g1, err1 = _outcome(f, args, wrt, True)
    g2, err2 = _outcome(f, args, wrt, False)
    assert err1 == err2
    if err1 is not None:
        return
    if not isinstance(wrt, tuple):
        g1, g2 = (g1,), (g2,)
    for a, b in zip(g1, g2):
        # (to a few roundings: the optimizer may group the same products otherwise, as
        # 2.0 * (x * g) for x * (2.0 * g); in float32, to float32's)
        single = _single_precision(a)
        tolerance = dict(rtol=1e-6, atol=1e-7) if single else dict(rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(_flat_get(b), _flat_get(a), **tolerance)


# --- specific checks ----------------------------------------------------------------------


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("x", [rand(5), pos(3, 4), rand(2, 3, 2)], ids=["vec", "mat", "3d"])
def test_normalized_sum_gradient_is_exactly_zero(x, optimize):
    """``s = np.sum(x); np.sum(x / s)`` is identically 1: the gradient is 0 (not 1/s)."""
    g = s2sad.grad(C.trap_normalized, optimize=optimize)(x)
    assert g.shape == x.shape
    assert np.allclose(g, 0.0, atol=1e-12), g


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_pow_of_sum(optimize):
    x = np.array([0.3, 0.2, 0.4, 0.25])
    s = x.sum()
    # d/dx_j sum_i s**x_i = s**x_j log s + sum_i x_i s**(x_i - 1)
    expected = s ** x * np.log(s) + np.sum(x * s ** (x - 1))
    g = s2sad.grad(C.trap_pow_sum, optimize=optimize)(x)
    np.testing.assert_allclose(g, expected, rtol=1e-12)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_f4_exact(optimize):
    g = s2sad.grad(f4, optimize=optimize)([1.0, 2.0, 3.0, 4.0])
    assert type(g) is list
    assert all(type(v) is float for v in g)
    assert g == [52.0, 38.0, 28.0, 22.0]


def test_f4_value_and_grad():
    value, g = s2sad.value_and_grad(f4)([1.0, 2.0, 3.0, 4.0])
    assert value == f4([1.0, 2.0, 3.0, 4.0]) == 100.0
    assert g == [52.0, 38.0, 28.0, 22.0]


def test_keyword_call():
    x, w, c = rand(3, 4), rand(4), 0.8
    df = s2sad.grad(C.f_multi, wrt=("x", "w"))
    gx, gw = df(x=x, w=w, c=c)
    gx2, gw2 = df(x, w, c)
    gx3, gw3 = df(x, c=c, w=w)
    for a, b in ((gx, gx2), (gw, gw2), (gx, gx3), (gw, gw3)):
        np.testing.assert_allclose(a, b, rtol=1e-14)
    np.testing.assert_allclose(gx.ravel(), finite_differences(C.f_multi, (x, w, c), 0),
                               rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(gw, finite_differences(C.f_multi, (x, w, c), 1), rtol=RTOL, atol=ATOL)


def test_keyword_call_value_and_grad():
    x, w, c = rand(3, 4), rand(4), 0.8
    value, gc = s2sad.value_and_grad(C.f_multi, wrt="c")(x=x, w=w, c=c)
    assert np.isclose(value, C.f_multi(x, w, c), rtol=1e-14)
    assert type(gc) is float
    assert np.isclose(gc, finite_differences(C.f_multi, (x, w, c), 2)[0], rtol=RTOL, atol=ATOL)


def test_wrt_single_vs_tuple():
    """wrt=0 returns the gradient itself; wrt=(0,) returns a 1-tuple."""
    x = rand(4)
    g = s2sad.grad(C.e_sin, wrt=0)(x)
    (g1,) = s2sad.grad(C.e_sin, wrt=(0,))(x)
    assert isinstance(g, np.ndarray)
    np.testing.assert_array_equal(g, g1)


def test_wrt_name_equals_index():
    x, w, c = rand(3, 4), rand(4), 0.8
    np.testing.assert_array_equal(s2sad.grad(C.f_multi, wrt="w")(x, w, c),
                                  s2sad.grad(C.f_multi, wrt=1)(x, w, c))


def test_pass_through_args_not_modified():
    x, w, c = rand(3, 4), rand(4), 0.8
    x0, w0 = x.copy(), w.copy()
    s2sad.grad(C.f_multi, wrt=(0, 1))(x, w, c)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(w, w0)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_independent_gradient_is_zero_with_shape(optimize):
    x, y = rand(3, 4).astype(np.float32), rand(5)
    gx, gy = s2sad.grad(C.f_independent, wrt=(0, 1), optimize=optimize)(x, y)
    assert isinstance(gx, np.ndarray) and gx.shape == (3, 4) and gx.dtype == np.float32
    assert np.all(gx == 0)
    np.testing.assert_allclose(gy, np.cos(y), rtol=1e-14)
    g = s2sad.grad(C.f_independent_float, wrt=0, optimize=optimize)(0.5, 1.5)
    assert type(g) is float and g == 0.0


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_one_gradient_function_many_argument_kinds(optimize):
    """One gradient function is specialized per argument kind; each variant is right."""
    df = s2sad.grad(C.e_sin, optimize=optimize)
    for x in (0.7, rand(3), rand(2, 3), rand(3).astype(np.float32), [0.1, 0.2], rand(4), 0.3,
              rand(2, 3, 2)):
        g = df(x)
        check_structure(x, g)
        rtol, atol = (RTOL32, ATOL32) if _has_float32(x) else (RTOL, ATOL)
        np.testing.assert_allclose(_flat_get(g), finite_differences(C.e_sin, (x,), 0),
                                   rtol=rtol, atol=atol)


# --- dtypes and containers --------------------------------------------------------------------


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_float32_stays_float32(optimize):
    x = rand(3, 4).astype(np.float32)
    w = rand(4, 2).astype(np.float32)
    gx, gw = s2sad.grad(C.f_float32, wrt=(0, 1), optimize=optimize)(x, w)
    assert gx.dtype == np.float32 and gx.shape == (3, 4)
    assert gw.dtype == np.float32 and gw.shape == (4, 2)
    np.testing.assert_allclose(gx.ravel(), finite_differences(C.f_float32, (x, w), 0),
                               rtol=RTOL32, atol=ATOL32)
    np.testing.assert_allclose(gw.ravel(), finite_differences(C.f_float32, (x, w), 1),
                               rtol=RTOL32, atol=ATOL32)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_python_float_in_float_out(optimize):
    g = s2sad.grad(C.m_sin, optimize=optimize)(0.9)
    assert type(g) is float
    assert g == pytest.approx(math.sin(0.9) + 0.9 * math.cos(0.9), rel=1e-14)
    g = s2sad.grad(C.np_on_float, optimize=optimize)(0.8)
    assert type(g) is float


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_list_in_list_out(optimize):
    g = s2sad.grad(C.st_unpack_list, optimize=optimize)([0.5, 1.5, -0.7])
    assert type(g) is list and len(g) == 3
    assert all(type(v) is float for v in g)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_tuple_in_tuple_out(optimize):
    g = s2sad.grad(C.st_unpack_list, optimize=optimize)((0.5, 1.5, -0.7))
    assert type(g) is tuple and len(g) == 3
    assert all(type(v) is float for v in g)
    g = s2sad.grad(f4, optimize=optimize)((1.0, 2.0, 3.0, 4.0))
    assert g == (52.0, 38.0, 28.0, 22.0)


def test_augassign_on_a_shared_array_is_refused():
    """`y = x; y += ...` would change x too (NumPy's in-place +=): refused, never wrong."""
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="shared with 'x'") as info:
        s2sad.grad(C.st_augassign_alias)(rand(3, 4))
    assert "y = y.copy()" in str(info.value)  # (copy the name updated, before the update)
