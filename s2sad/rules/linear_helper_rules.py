"""Derivative rules for the runtime's helpers that are linear in each argument: products,
shape manipulation, and the tangent helpers of forward-mode code.

``matmul_grad_left(h, x, y)`` is ``h @ y.T``: bilinear, so its adjoint in ``h`` is ``g @ y``
and in ``y`` is ``(h.T @ g).T``. A shape helper (``transpose_grad``, ``concatenate_grad``)
is linear, and its adjoint is the NumPy function it was the adjoint of: the transpose of a
transpose. :mod:`s2sad.rules.runtime_rules` says what the runtime rules share.
"""

import numpy as np

from ..registry import deffacts, deflinear, deftangent, defvjp
from ..runtime import (average_grad, choose_grad, clip_grad, column_stack_grad, concatenate_grad,
                       cumprod_grad, diag_grad, diagonal_grad, diff_grad, dot_grad_left,
                       dot_grad_right, dstack_grad, hstack_grad, inner_grad, kron_grad,
                       linspace_grad, matmul_grad_left, matmul_grad_right, pad_grad, pad_tangent,
                       pad_values_grad, repeat_grad, sort_grad, split_grad, stack_grad,
                       take_along_axis_grad, take_grad, tensordot_grad, tile_grad, trace_grad,
                       transpose_grad, vecdot_grad, vstack_grad)
from ..runtime.hessians import average_change, average_grad_partial, cumprod_hvp, cumprod_jet
from ..runtime.higher import (arange_tangent, average_tangent, broadcast_like, clip_tangent,
                              cumprod_tangent, cut_like, join_like, not_differentiable_yet,
                              pad_values_forward, put_item, rule_part, sens_item, sens_like,
                              sort_tangent, split_like)

# (generated code names their arguments from these positions: ``stack_grad(g, xs, axis=1)``)
deffacts(transpose_grad, pad_tangent, keywords=1)
deffacts(average_grad, concatenate_grad, stack_grad, split_grad, pad_grad, repeat_grad, tile_grad,
         diff_grad, sort_grad, linspace_grad, diagonal_grad, trace_grad, diag_grad,
         pad_values_grad, average_tangent, cumprod_tangent, sort_tangent, keywords=2)
deffacts(take_grad, take_along_axis_grad, tensordot_grad, inner_grad, kron_grad, vecdot_grad,
         choose_grad, keywords=3)
deffacts(clip_grad, clip_tangent, keywords=4)


# --- products: bilinear in the sensitivity and the other factor -----------------------------


deffacts(matmul_grad_left, fresh=True)


@defvjp(matmul_grad_left, shape="other")
def matmul_grad_left_rule(g, ans, h, x, y):
    return sens_like(np.matmul(g, y), h), None, matmul_grad_right(h, g, y)


deffacts(matmul_grad_right, fresh=True)


@defvjp(matmul_grad_right, shape="other")
def matmul_grad_right_rule(g, ans, h, x, y):
    return sens_like(np.matmul(x, g), h), matmul_grad_left(h, x, g), None


deffacts(dot_grad_left, fresh=True)


@defvjp(dot_grad_left, shape="other")
def dot_grad_left_rule(g, ans, h, x, y):
    return sens_like(np.dot(g, y), h), None, dot_grad_right(h, g, y)


deffacts(dot_grad_right, fresh=True)


@defvjp(dot_grad_right, shape="other")
def dot_grad_right_rule(g, ans, h, x, y):
    return sens_like(np.dot(x, g), h), dot_grad_left(h, x, g), None


deffacts(tensordot_grad, fresh=True)


@defvjp(tensordot_grad, shape="other")
def tensordot_grad_rule(g, ans, h, x, y, axes, argnum):
    return (sens_like(np.tensordot(g, y, axes) if argnum == 0 else np.tensordot(x, g, axes), h),
            None if argnum == 0 else tensordot_grad(h, x, g, axes, 0),
            None if argnum == 1 else tensordot_grad(h, g, y, axes, 1))


@defvjp(inner_grad, shape="other")
def inner_grad_rule(g, ans, h, a, b, argnum):
    return (sens_like(np.inner(g, b) if argnum == 0 else np.inner(a, g), h),
            None if argnum == 0 else inner_grad(h, a, g, 0),
            None if argnum == 1 else inner_grad(h, g, b, 1))


@defvjp(kron_grad, shape="other")
def kron_grad_rule(g, ans, h, a, b, argnum):
    return (sens_like(np.kron(g, b) if argnum == 0 else np.kron(a, g), h),
            None if argnum == 0 else kron_grad(h, a, g, 0),
            None if argnum == 1 else kron_grad(h, g, b, 1))


@defvjp(vecdot_grad, shape="other")
def vecdot_grad_rule(g, ans, h, other, x, axis=-1, keepdims=False):
    return (sens_like(np.sum(g * other, axis=axis, keepdims=keepdims), h),
            vecdot_grad(h, g, other, axis, keepdims), None)


deflinear(matmul_grad_left, dot_grad_left, argnums=(0, 2))
deflinear(matmul_grad_right, dot_grad_right, argnums=(0, 1))
deflinear(vecdot_grad, argnums=(0, 1))


@deftangent(tensordot_grad)
def tensordot_grad_tangent(g, ans, h, x, y, axes, argnum):
    return (tensordot_grad(g, x, y, axes, argnum),
            None if argnum == 0 else tensordot_grad(h, g, y, axes, argnum),
            None if argnum == 1 else tensordot_grad(h, x, g, axes, argnum))


@deftangent(inner_grad)
def inner_grad_tangent(g, ans, h, a, b, argnum):
    return (inner_grad(g, a, b, argnum), None if argnum == 0 else inner_grad(h, g, b, argnum),
            None if argnum == 1 else inner_grad(h, a, g, argnum))


@deftangent(kron_grad)
def kron_grad_tangent(g, ans, h, a, b, argnum):
    return (kron_grad(g, a, b, argnum), None if argnum == 0 else kron_grad(h, g, b, argnum),
            None if argnum == 1 else kron_grad(h, a, g, argnum))


# --- shape manipulation: linear, the transpose is the NumPy function itself -------------------


@defvjp(transpose_grad, shape="other")
def transpose_grad_rule(g, ans, h, axes=None):
    return np.transpose(g, axes)


@defvjp(diagonal_grad, shape="other")
def diagonal_grad_rule(g, ans, h, x, offset=0, axis1=0, axis2=1):
    return sens_like(np.diagonal(g, offset, axis1, axis2), h)


@defvjp(trace_grad, shape="other")
def trace_grad_rule(g, ans, h, x, offset=0, axis1=0, axis2=1):
    return sens_like(np.trace(g, offset, axis1, axis2), h)


@defvjp(diag_grad, shape="other")
def diag_grad_rule(g, ans, h, v, k=0):
    return sens_like(np.diag(g, k), h)


@defvjp(concatenate_grad, shape="sequence")
def concatenate_grad_rule(g, ans, h, arrays, axis=0):
    return join_like("concatenate", g, arrays, axis)


@defvjp(stack_grad, shape="sequence")
def stack_grad_rule(g, ans, h, arrays, axis=0):
    return join_like("stack", g, arrays, axis)


@defvjp(hstack_grad, shape="sequence")
def hstack_grad_rule(g, ans, h, arrays):
    return join_like("hstack", g, arrays, None)


@defvjp(vstack_grad, shape="sequence")
def vstack_grad_rule(g, ans, h, arrays):
    return join_like("vstack", g, arrays, None)


@defvjp(dstack_grad, shape="sequence")
def dstack_grad_rule(g, ans, h, arrays):
    return join_like("dstack", g, arrays, None)


@defvjp(column_stack_grad, shape="sequence")
def column_stack_grad_rule(g, ans, h, arrays):
    return join_like("column_stack", g, arrays, None)


@defvjp(split_grad, shape="other")
def split_grad_rule(g, ans, h, pieces, axis=0, indices=None, like=None):
    return split_like(g, h, pieces, axis, indices)


@defvjp(tile_grad, shape="other")
def tile_grad_rule(g, ans, h, x, reps):
    return sens_like(np.tile(g, reps), h)


@defvjp(repeat_grad, shape="other")
def repeat_grad_rule(g, ans, h, x, repeats, axis=None):
    return sens_like(np.repeat(g, repeats, axis), h)


@defvjp(pad_grad, shape="other")
def pad_grad_rule(g, ans, h, x, pad_width, mode="constant", reflect_type="even"):
    return sens_like(pad_tangent(g, pad_width, mode, reflect_type), h)


@defvjp(pad_tangent, shape="other")
def pad_tangent_rule(g, ans, h, pad_width, mode="constant", reflect_type="even"):
    return pad_grad(g, h, pad_width, mode, reflect_type)


@defvjp(pad_values_grad, shape="other")
def pad_values_grad_rule(g, ans, h, x, pad_width, constant_values):
    return sens_like(pad_values_forward(g, x, pad_width), h)


@defvjp(diff_grad, shape="other")
def diff_grad_rule(g, ans, h, x, n=1, axis=-1):
    return sens_like(np.diff(g, n, axis), h)


@defvjp(take_grad, shape="other")
def take_grad_rule(g, ans, h, x, indices, axis=None, mode="raise"):
    return sens_like(np.take(g, indices, axis, mode=mode), h)


@defvjp(take_along_axis_grad, shape="other")
def take_along_axis_grad_rule(g, ans, h, x, indices, axis=-1):
    return sens_like(np.take_along_axis(g, indices, axis), h)


@defvjp(sort_grad, shape="other")
def sort_grad_rule(g, ans, h, x, axis=-1):
    return sens_like(sort_tangent(g, x, axis), h)


@defvjp(choose_grad, shape="other")
def choose_grad_rule(g, ans, h, a, choices, mode="raise"):
    return sens_like(np.choose(a, broadcast_like(g, choices), mode=mode), h)


@defvjp(clip_grad, shape="other")
def clip_grad_rule(g, ans, h, a, low, high, argnum):
    return sens_like(clip_tangent(g, a, low, high, argnum), h)


@defvjp(linspace_grad, shape="other")
def linspace_grad_rule(g, ans, h, x, num=50, endpoint=True, axis=0, end=False):
    return sens_like(np.linspace(0.0 * g if end else g, g if end else 0.0 * g, num,
                                 endpoint=endpoint, axis=axis), h)


# their adjoints: linear too, each the other's transpose


@defvjp(join_like, shape="other")
def join_like_rule(g, ans, how, parts, arrays, axis=None):
    return None, cut_like(how, g, parts, arrays, axis), None, None


@defvjp(cut_like, shape="sequence")
def cut_like_rule(g, ans, how, h, parts, arrays, axis=None):
    return None, sens_like(join_like(how, g, arrays, axis), h), None, None, None


@defvjp(split_like, shape="sequence")
def split_like_rule(g, ans, h, parts, pieces, axis=0, indices=None):
    return sens_like(split_grad(g, pieces, axis, indices, h), h), None, None, None


@defvjp(pad_values_forward, shape="other")
def pad_values_forward_rule(g, ans, h, x, pad_width):
    return sens_like(pad_values_grad(g, x, pad_width, 0.0), h), None, None


deflinear(join_like, cut_like, argnums=(1,))
deflinear(split_like, pad_values_forward)


deflinear(transpose_grad, diagonal_grad, trace_grad, diag_grad, concatenate_grad, stack_grad,
          hstack_grad,
          vstack_grad, dstack_grad, column_stack_grad, split_grad, tile_grad, repeat_grad,
          pad_grad, pad_values_grad, diff_grad, take_grad, take_along_axis_grad, sort_grad,
          choose_grad, clip_grad, linspace_grad, pad_tangent)


# (linear algebra and norms: s2sad.rules.linalg_helper_rules)


# --- tangent helpers (forward-mode code): linear in the tangent --------------------------------


@defvjp(cumprod_tangent, shape="other")
def cumprod_tangent_rule(g, ans, h, x, axis=None):
    return sens_like(cumprod_grad(g, np.cumprod(x, axis), x, axis), h), cumprod_hvp(g, x, h, axis)


@deftangent(cumprod_tangent)
def cumprod_tangent_tangent(g, ans, h, x, axis=None):
    return cumprod_tangent(g, x, axis), cumprod_jet(x, h, axis, g)


@defvjp(sort_tangent, shape="other")
def sort_tangent_rule(g, ans, h, a, axis=-1):
    return sort_grad(g, a, axis), None


@defvjp(clip_tangent, shape="other")
def clip_tangent_rule(g, ans, h, a, low, high, argnum):
    return sens_like(clip_tangent(g, a, low, high, argnum), h), None, None, None


@defvjp(arange_tangent, shape="other")
def arange_tangent_rule(g, ans, h, values, argnum):
    return sens_like(np.sum(g) if argnum == 0 else np.sum(g * np.arange(np.size(values))), h), \
        None


@defvjp(average_tangent, shape="other")
def average_tangent_rule(g, ans, h, a, axis=None, weights=None, keepdims=False, argnum=0):
    # in a and the weights: the adjoint of average_grad(g, ...) in them, applied to h
    return (sens_like(average_grad(g, a, axis, weights, keepdims, argnum), h),
            None if weights is None else
            average_grad_partial(h, g, a, axis, weights, keepdims, argnum, 0), None,
            None if weights is None else
            average_grad_partial(h, g, a, axis, weights, keepdims, argnum, 1))


@defvjp(average_grad, shape="other")
def average_grad_rule(g, ans, h, a, axis=None, weights=None, keepdims=False, argnum=0):
    return (sens_like(average_tangent(g, a, axis, weights, keepdims, argnum), h),
            None if weights is None else
            average_grad_partial(g, h, a, axis, weights, keepdims, argnum, 0), None,
            None if weights is None else
            average_grad_partial(g, h, a, axis, weights, keepdims, argnum, 1))


@deftangent(average_grad)
def average_grad_tangent(g, ans, h, a, axis=None, weights=None, keepdims=False, argnum=0):
    return (average_grad(g, a, axis, weights, keepdims, argnum),
            None if weights is None else
            average_grad_partial(g, h, a, axis, weights, keepdims, argnum, 0, True), None,
            None if weights is None else
            average_grad_partial(g, h, a, axis, weights, keepdims, argnum, 1, True))


@deftangent(average_tangent)
def average_tangent_tangent(g, ans, h, a, axis=None, weights=None, keepdims=False, argnum=0):
    return (average_tangent(g, a, axis, weights, keepdims, argnum),
            None if weights is None else
            average_change(a, axis, weights, keepdims, h if argnum == 0 else None,
                           h if argnum == 1 else None, g, None), None,
            None if weights is None else
            average_change(a, axis, weights, keepdims, h if argnum == 0 else None,
                           h if argnum == 1 else None, None, g))


deffacts(sens_item, structure_of="item")


@defvjp(sens_item, shape="other")
def sens_item_rule(g, ans, h, i):
    return put_item(g, h, i), None


deffacts(put_item, structure_of=(1,))


@defvjp(put_item, shape="other")
def put_item_rule(g, ans, h, like, i):
    return sens_item(g, i), None, None


@defvjp(rule_part, shape="other")
def rule_part_rule(g, ans, result, i):
    return not_differentiable_yet("a derivative rule called by reference", "result"), None


deflinear(cumprod_tangent, sort_tangent, clip_tangent, arange_tangent, average_tangent,
          sens_item, put_item, rule_part)
