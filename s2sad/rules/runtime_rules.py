"""Derivative rules for the helpers generated code calls, so a gradient can be differentiated.

A generated gradient calls ``unbroadcast``, ``sum_grad``, ``matmul_grad_left``,
``as_gradient``... (``s2sad.runtime``). Each is linear in the sensitivity ``g`` it
takes, so:

* its tangent is the same call on the tangent of ``g`` (``deflinear``), plus, for the
  helpers that are linear in another argument too (``matmul_grad_left(g, x, y)`` is
  ``g @ y.T``), the same call on that argument's tangent;
* its adjoint with respect to ``g`` is the transpose of a transpose: the forward
  function the helper was the adjoint of, applied to the incoming sensitivity
  (the adjoint of "sum ``g`` down to ``x``'s shape" is "spread it back").

Here ``g`` is the sensitivity coming into the helper's result and ``h`` the helper's
own first argument. Where a helper depends on another argument nonlinearly (``std``,
``prod``, ``cumprod``, weighted ``average``), that derivative is a helper of
``s2sad.runtime_hessians``, whose own derivatives are the same helpers with one more
direction (jets), up to the fourth order; those of linear algebra and norms are in
``s2sad.rules.linalg_helper_rules``. A derivative not written yet (mostly beyond the
fourth order, and ``einsum``'s fourth) is a call of ``not_differentiable_yet``, which
raises only if it runs.

>>> import numpy as np
>>> from s2sad import registry
>>> from s2sad.runtime import sum_grad
>>> rule = registry.lookup(sum_grad)
>>> rule.adjoint(np.ones((2, 3)), None, np.ones(3), np.zeros((2, 3)), 0, False)
array([2., 2., 2.])
"""

import numpy as np

from ..registry import deflinear, defresult, deftangent, defvjp, nondifferentiable
from ..runtime import (add_sens, array_grad, as_gradient, average_grad, broadcast_shape, cast_like,
                       check_number, check_real_power, checked_quantiles, choose_grad, clip_grad,
                       column_stack_grad, concatenate_grad, cumprod_grad, cumsum_grad,
                       diag_grad, diagonal_grad,
                       diff_grad, dot_grad_left, dot_grad_right, dstack_grad, einsum_grad,
                       expand_reduced, extremum_grad, hstack_grad, index_grad, inner_grad,
                       kron_grad, linspace_grad, matmul_grad_left, matmul_grad_right, matmul_shape,
                       nanmean_grad, nansum_grad, one_axis, output_seed, pack_like, pad_grad,
                       pad_tangent, pad_values_grad, prod_grad, ptp_grad, reduced_size,
                       repeat_grad, running_extremum, scaled_power, shape_of, sort_grad,
                       split_grad, stack_grad, std_grad, sum_grad, sum_list_grad,
                       take_along_axis_grad, take_grad, tensordot_grad, tile_grad, trace_grad,
                       transpose_grad, unbroadcast, var_grad, vecdot_grad, vstack_grad,
                       window_count, written_part, last_writes, zeros_like_structure)
from ..runtime_hessians import (average_change, average_grad_partial, average_jet, cumprod_hvp,
                               cumprod_jet, prod_hvp, std_grad_partial)
from ..runtime_recursion import (recursion_value, recursive_call, recursive_pullback,
                                 recursive_pullback_along_args, recursive_pullback_in_args,
                                 recursive_pushforward)
from ..runtime_higher import (add_at, arange_tangent, average_tangent, broadcast_like,
                              checkpoint_grads, checkpoint_tangent,
                              clip_tangent, cumprod_tangent, cut_like, einsum_fill_each,
                              einsum_fill_sum, einsum_grad_operands, einsum_grad_tangent,
                              einsum_with, join_like, not_differentiable_yet,
                              pad_values_forward, put_item, reduce_tangent, rule_part, sens_item,
                              sens_like, snapshot, sort_tangent, split_like, stack_like,
                              sum_parts, take_at, unbroadcast_adjoint, unpack_sens)

nondifferentiable(zeros_like_structure, output_seed, reduced_size, recursive_call,
                  broadcast_shape, matmul_shape, shape_of, running_extremum, one_axis,
                  window_count, shape="other")
defresult(zeros_like_structure, kind="f")  # (sensitivities: float zeros, updated in place)


@defvjp(checked_quantiles)  # q itself (checked)
def checked_quantiles_rule(g, ans, q):
    return g


# A recursive call's value, sensitivities and tangents take its arguments explicitly
# (``args``): what they depend on, so that a derivative of a derivative follows them. In
# ``recursive_pullback(pair, h, args)`` (J(args)^T h) and ``recursive_pushforward(pair,
# t, args)`` (J(args) t), each is linear in h or t, whose coefficient is the other; the
# dependence on args is the function's vjp differentiated again.
@defvjp(recursion_value, shape="other")
def recursion_value_rule(g, ans, pair, args):
    return None, recursive_pullback(pair, g, args)


@deftangent(recursion_value)
def recursion_value_tangent(g, ans, pair, args):
    return None, recursive_pushforward(pair, g, args)


@defvjp(recursive_pullback, shape="other")
def recursive_pullback_rule(g, ans, pair, h, args):
    return None, recursive_pushforward(pair, g, args), recursive_pullback_in_args(pair, h, g, args)


@deftangent(recursive_pullback)
def recursive_pullback_tangent(g, ans, pair, h, args):
    return (None, recursive_pullback(pair, g, args),
            recursive_pullback_along_args(pair, h, g, args))


@defvjp(recursive_pushforward, shape="other")
def recursive_pushforward_rule(g, ans, pair, t, args):
    return None, recursive_pullback(pair, g, args), recursive_pullback_in_args(pair, g, t, args)


@deftangent(recursive_pushforward)
def recursive_pushforward_tangent(g, ans, pair, t, args):
    return (None, recursive_pushforward(pair, g, args),
            not_differentiable_yet("recursive_pushforward", "args"))


@defvjp(recursive_pullback_in_args, recursive_pullback_along_args, shape="other")
def recursive_pullback_again_rule(g, ans, pair, h, d, args):
    return (None, not_differentiable_yet("the second derivative of a recursive call", "h"),
            not_differentiable_yet("the second derivative of a recursive call", "g"),
            not_differentiable_yet("the second derivative of a recursive call", "args"))


@deftangent(recursive_pullback_in_args, recursive_pullback_along_args)
def recursive_pullback_again_tangent(g, ans, pair, h, d, args):
    return (None, not_differentiable_yet("the second derivative of a recursive call", "h"),
            not_differentiable_yet("the second derivative of a recursive call", "g"),
            not_differentiable_yet("the second derivative of a recursive call", "args"))


# a derivative of a derivative through s2sad.checkpoint: said when it runs
@defvjp(checkpoint_grads, shape="sequence")
def checkpoint_grads_rule(g, ans, func, h, args):
    return (None, not_differentiable_yet("checkpoint_grads (s2sad.checkpoint)", "h"),
            not_differentiable_yet("checkpoint_grads (s2sad.checkpoint)", "args"))


@deftangent(checkpoint_grads)
def checkpoint_grads_tangent(g, ans, func, h, args):
    return (None, not_differentiable_yet("checkpoint_grads (s2sad.checkpoint)", "h"),
            not_differentiable_yet("checkpoint_grads (s2sad.checkpoint)", "args"))


@defvjp(checkpoint_tangent, shape="other")
def checkpoint_tangent_rule(g, ans, func, args, argnum, h):
    return (None, not_differentiable_yet("checkpoint_tangent (s2sad.checkpoint)", "args"),
            None, not_differentiable_yet("checkpoint_tangent (s2sad.checkpoint)", "h"))


@deftangent(checkpoint_tangent)
def checkpoint_tangent_tangent(g, ans, func, args, argnum, h):
    return (None, not_differentiable_yet("checkpoint_tangent (s2sad.checkpoint)", "args"),
            None, not_differentiable_yet("checkpoint_tangent (s2sad.checkpoint)", "h"))
nondifferentiable(bool, shape="scalar")  # `if cond:` on a value read back from a stack
nondifferentiable(check_real_power)  # (a statement before a power of a Python number)
nondifferentiable(check_number)  # (a statement before `v /= c` where v may be an array)

try:  # the memory budget's check (a statement in generated while loops)
    from ..runtime_budget import check_stack
    nondifferentiable(check_stack)
except ImportError:  # pragma: no cover
    pass


# --- powers ---------------------------------------------------------------------------------
# scaled_power(c, x, e) = c * x ** e, 0 where c is 0 (the slope of x ** y): in c, the power;
# in x, the same form one power lower (so x ** 2's second slope is 2, not NaN, at x = 0);
# in e, times log x (0 where x <= 0, as np.power's rule takes it). Each is again a
# scaled_power, the sensitivity in its coefficient: where that is 0 (an exponent carried
# through a loop is a value the next order differentiates, with a zero sensitivity) the
# term is 0, not 0 times an infinite power.


@defvjp(scaled_power)
def scaled_power_rule(g, ans, c, x, e):
    return (unbroadcast(scaled_power(g, x, e), c),
            unbroadcast(scaled_power(g * c * e, x, e - 1), x),
            unbroadcast(scaled_power(g * c * np.log(np.where(np.greater(x, 0), x, 1.0)), x, e),
                        e))


# --- shapes and structures ------------------------------------------------------------------


@defvjp(unbroadcast, shape="other")
def unbroadcast_rule(g, ans, h, like):
    return unbroadcast_adjoint(g, h), None


@defvjp(unbroadcast_adjoint, shape="other")
def unbroadcast_adjoint_rule(g, ans, h, like):
    return unbroadcast(g, h), None


@defvjp(sens_like, shape="other")
def sens_like_rule(g, ans, h, like):
    return broadcast_like(g, h), None


@defvjp(broadcast_like, shape="other")
def broadcast_like_rule(g, ans, h, like):
    return sens_like(g, h), None


@defvjp(as_gradient, shape="other")
def as_gradient_rule(g, ans, x, h):
    return None, sens_like(g, h)


try:
    from ..runtime_gradients import fresh_gradient
    defvjp(fresh_gradient, shape="other")(as_gradient_rule)
    deflinear(fresh_gradient, argnums=(1,))
except ImportError:  # pragma: no cover
    pass


@defvjp(add_sens, shape="other")
def add_sens_rule(g, ans, a, b):
    return sens_like(g, a), sens_like(g, b)


@defvjp(pack_like, shape="other")
def pack_like_rule(g, ans, x, parts):
    return None, unpack_sens(g, parts)


@defvjp(unpack_sens, shape="other")
def unpack_sens_rule(g, ans, h, parts):
    return pack_like(h, g), None


@defvjp(snapshot, shape="other")
def snapshot_rule(g, ans, value):
    return g


@defvjp(index_grad, shape="other")
def index_grad_rule(g, ans, h, x, index):
    return take_at(g, index, h), None, None


@defvjp(written_part, shape="other")
def written_part_rule(g, ans, s, index):
    return index_grad(last_writes(g, s, index), s, index), None


@defvjp(last_writes, shape="other")
def last_writes_rule(g, ans, part, like, index):
    return last_writes(g, like, index), None, None


deflinear(written_part, last_writes)


@defvjp(take_at, shape="other")
def take_at_rule(g, ans, h, index, like):
    return index_grad(g, h, index), None, None


@defvjp(add_at, shape="other")
def add_at_rule(g, ans, s, index, h):
    return g, None, take_at(g, index, h)


@defvjp(expand_reduced, shape="other")
def expand_reduced_rule(g, ans, h, x, axis=None, keepdims=False):
    return np.reshape(g, np.shape(h))


@defvjp(cast_like, shape="other")
def cast_like_rule(g, ans, h, x):
    return cast_like(g, h)


@defvjp(array_grad, shape="other")
def array_grad_rule(g, ans, h, obj):
    return stack_like(g, h), None


@defvjp(stack_like, shape="other")
def stack_like_rule(g, ans, parts, like):
    return array_grad(g, parts), None


@defvjp(sum_list_grad, shape="other")
def sum_list_grad_rule(g, ans, h, iterable):
    return sum_parts(g, h), None


@defvjp(sum_parts, shape="other")
def sum_parts_rule(g, ans, parts, like):
    return sum_list_grad(g, parts), None


deflinear(unbroadcast, unbroadcast_adjoint, sens_like, broadcast_like, unpack_sens, snapshot,
          index_grad, take_at, expand_reduced, cast_like, array_grad, stack_like, sum_list_grad,
          sum_parts)
deflinear(as_gradient, argnums=(1,))
deflinear(pack_like, argnums=(1,))
deflinear(add_sens, argnums=(0, 1), joint=True)
deflinear(add_at, argnums=(0, 2), joint=True)


# --- reductions -------------------------------------------------------------------------------


@defvjp(sum_grad, shape="other")
def sum_grad_rule(g, ans, h, x, axis=None, keepdims=False):
    return sens_like(np.sum(g, axis=axis, keepdims=keepdims), h)


@defvjp(extremum_grad, shape="other")
def extremum_grad_rule(g, ans, h, extremum, x, axis=None, keepdims=False):
    # the mask of the extremal entries does not change under a small change of x
    return sens_like(reduce_tangent(g, extremum_grad(np.ones_like(h), extremum, x, axis,
                                                     keepdims), axis, keepdims), h)


@defvjp(ptp_grad, shape="other")
def ptp_grad_rule(g, ans, h, x, axis=None, keepdims=False):
    return sens_like(reduce_tangent(g, ptp_grad(np.ones_like(h), x, axis, keepdims), axis,
                                    keepdims), h)


@defvjp(nansum_grad, shape="other")
def nansum_grad_rule(g, ans, h, x, axis=None, keepdims=False):
    return sens_like(np.sum(np.where(np.isnan(x), 0.0, g), axis=axis, keepdims=keepdims), h)


@defvjp(nanmean_grad, shape="other")
def nanmean_grad_rule(g, ans, h, x, axis=None, keepdims=False):
    return sens_like(reduce_tangent(g, nanmean_grad(np.ones_like(h), x, axis, keepdims), axis,
                                    keepdims), h)


@defvjp(reduce_tangent, shape="other")
def reduce_tangent_rule(g, ans, h, partials, axis=None, keepdims=False):
    return (sens_like(sum_grad(g, partials, axis, keepdims) * partials, h),
            sens_like(sum_grad(g, partials, axis, keepdims) * h, partials))


@defvjp(var_grad, shape="other")
def var_grad_rule(g, ans, h, x, axis=None, ddof=0, keepdims=False):
    # var_grad(h, x) = expand(h) * 2 (x - mean(x)) / (n - ddof): bilinear in h and x
    return (sens_like(reduce_tangent(g, var_grad(np.ones_like(h), x, axis, ddof, keepdims),
                                     axis, keepdims), h),
            var_grad(np.ones_like(h), g * expand_reduced(h, x, axis, keepdims), axis, ddof,
                     keepdims))


@defvjp(std_grad, shape="other")
def std_grad_rule(g, ans, h, std, x, axis=None, ddof=0, keepdims=False):
    # for a fixed std, linear in x (h (x - mean) / ((n - ddof) std)): its adjoint is itself
    return (sens_like(reduce_tangent(g, std_grad(np.ones_like(h), std, x, axis, ddof, keepdims),
                                     axis, keepdims), h),
            std_grad_partial(g, h, std, x, axis, ddof, keepdims),
            std_grad(h, std, g, axis, ddof, keepdims))


@defvjp(prod_grad, shape="other")
def prod_grad_rule(g, ans, h, x, axis=None, keepdims=False):
    return (sens_like(reduce_tangent(g, prod_grad(np.ones_like(h), x, axis, keepdims), axis,
                                     keepdims), h), prod_hvp(h, x, g, axis, keepdims))


@defvjp(cumsum_grad, shape="other")
def cumsum_grad_rule(g, ans, h, x, axis=None):
    return sens_like(np.cumsum(g, axis=axis), h)


@defvjp(cumprod_grad, shape="other")
def cumprod_grad_rule(g, ans, h, cumprod, x, axis=None):
    # x's part is the whole derivative, through cumprod = np.cumprod(x) too: none for cumprod
    return sens_like(cumprod_tangent(g, x, axis), h), None, cumprod_hvp(h, x, g, axis)


deflinear(sum_grad, extremum_grad, ptp_grad, nansum_grad, nanmean_grad, cumsum_grad)
deflinear(reduce_tangent, var_grad, argnums=(0, 1))


@deftangent(std_grad)
def std_grad_tangent(g, ans, h, std, x, axis=None, ddof=0, keepdims=False):
    return (std_grad(g, std, x, axis, ddof, keepdims),
            std_grad_partial(g, h, std, x, axis, ddof, keepdims, True),
            std_grad(h, std, g, axis, ddof, keepdims))


@deftangent(prod_grad)
def prod_grad_tangent(g, ans, h, x, axis=None, keepdims=False):
    return prod_grad(g, x, axis, keepdims), prod_hvp(h, x, g, axis, keepdims)


@defvjp(einsum_grad, shape="other")
def einsum_grad_rule(g, ans, h, subscripts, operands, argnum):
    return (sens_like(einsum_with(subscripts, operands, argnum, g), h), None,
            einsum_grad_operands(g, h, subscripts, operands, argnum), None)


@deftangent(einsum_grad)
def einsum_grad_tangent_rule(g, ans, h, subscripts, operands, argnum):
    return (einsum_grad(g, subscripts, operands, argnum), None,
            einsum_grad_tangent(h, subscripts, operands, g, argnum), None)


@defvjp(einsum_with, shape="other")
def einsum_with_rule(g, ans, subscripts, operands, argnum, value):
    return (None, einsum_grad_operands(value, g, subscripts, operands, argnum), None,
            sens_like(einsum_grad(g, subscripts, operands[:argnum] + (value,) +
                                  operands[argnum + 1:], argnum), value))


@deftangent(einsum_with)
def einsum_with_tangent(g, ans, subscripts, operands, argnum, value):
    return (None, einsum_fill_sum(None, subscripts, operands, g, None, argnum, value), None,
            einsum_with(subscripts, operands, argnum, g))


# the einsum is multilinear: the derivatives of its adjoints replace one more operand, by the
# sensitivity (or the tangent) of the other (einsum_fill_sum, einsum_fill_each: the sum over
# the operands replaced); a replacement of a replaced operand is not written (fourth order)


@defvjp(einsum_grad_operands, shape="sequence")
def einsum_grad_operands_rule(g, ans, value, h, subscripts, operands, argnum):
    return (sens_like(einsum_grad_tangent(h, subscripts, operands, g, argnum), value),
            sens_like(einsum_fill_sum(h, subscripts, operands, g, None, argnum, value), h),
            None, einsum_fill_each(h, subscripts, operands, g, argnum, value), None)


@deftangent(einsum_grad_operands)
def einsum_grad_operands_tangent(g, ans, value, h, subscripts, operands, argnum):
    return (einsum_grad_operands(g, h, subscripts, operands, argnum),
            einsum_grad_operands(value, g, subscripts, operands, argnum), None,
            einsum_fill_each(h, subscripts, operands, g, argnum, value), None)


@defvjp(einsum_grad_tangent, shape="other")
def einsum_grad_tangent_adjoint(g, ans, h, subscripts, operands, tangents, argnum):
    return (sens_like(einsum_fill_sum(None, subscripts, operands, tangents, None, argnum, g), h),
            None, einsum_fill_each(h, subscripts, operands, tangents, argnum, g),
            einsum_grad_operands(g, h, subscripts, operands, argnum), None)


@deftangent(einsum_grad_tangent)
def einsum_grad_tangent_tangent(g, ans, h, subscripts, operands, tangents, argnum):
    return (einsum_grad_tangent(g, subscripts, operands, tangents, argnum), None,
            not_differentiable_yet("einsum_grad_tangent", "operands"),
            einsum_grad_tangent(h, subscripts, operands, g, argnum), None)


@defvjp(einsum_fill_sum, shape="other")
def einsum_fill_sum_rule(g, ans, h, subscripts, operands, fills, target, argnum=None,
                         value=None):
    # written for the einsum's own changes (target None), where h is not read
    return (None if target is None else not_differentiable_yet("einsum_fill_sum", "h"), None,
            einsum_fill_each(g, subscripts, operands, fills, argnum, value) if target is None
            else not_differentiable_yet("einsum_fill_sum", "operands"),
            einsum_grad_operands(value, g, subscripts, operands, argnum) if target is None
            else not_differentiable_yet("einsum_fill_sum", "fills"), None, None,
            einsum_grad_tangent(g, subscripts, operands, fills, argnum) if target is None
            else not_differentiable_yet("einsum_fill_sum", "value"))


@deftangent(einsum_fill_sum)
def einsum_fill_sum_tangent(g, ans, h, subscripts, operands, fills, target, argnum=None,
                            value=None):
    return (einsum_fill_sum(g, subscripts, operands, fills, target, argnum, value), None,
            not_differentiable_yet("einsum_fill_sum", "operands"),
            einsum_fill_sum(h, subscripts, operands, g, target, argnum, value), None, None,
            einsum_fill_sum(h, subscripts, operands, fills, target, argnum, g))


@defvjp(einsum_fill_each, shape="sequence")
def einsum_fill_each_rule(g, ans, h, subscripts, operands, fills, argnum=None, value=None):
    # symmetric in the fills and the sensitivities
    return (not_differentiable_yet("einsum_fill_each", "h"), None,
            not_differentiable_yet("einsum_fill_each", "operands"),
            einsum_fill_each(h, subscripts, operands, g, argnum, value), None,
            not_differentiable_yet("einsum_fill_each", "value"))


@deftangent(einsum_fill_each)
def einsum_fill_each_tangent(g, ans, h, subscripts, operands, fills, argnum=None, value=None):
    return (einsum_fill_each(g, subscripts, operands, fills, argnum, value), None,
            not_differentiable_yet("einsum_fill_each", "operands"),
            einsum_fill_each(h, subscripts, operands, g, argnum, value), None,
            einsum_fill_each(h, subscripts, operands, fills, argnum, g))


deflinear(einsum_with, argnums=(3,))


@deftangent(cumprod_grad)
def cumprod_grad_tangent(g, ans, h, cumprod, x, axis=None):
    return cumprod_grad(g, cumprod, x, axis), None, cumprod_hvp(h, x, g, axis)


# --- second derivatives of the reductions (s2sad.runtime_hessians) ---------------------------


@defvjp(prod_hvp, shape="other")
def prod_hvp_rule(g, ans, h, x, v, axis=None, keepdims=False, u=None, w=None):
    # the derivatives of <h, prod(x)> are symmetric: in x, one more direction (up to three);
    # in a direction, the same with that direction replaced
    return (sens_like(reduce_tangent(g, prod_hvp(np.ones_like(h), x, v, axis, keepdims, u, w),
                                     axis, keepdims), h),
            prod_hvp(h, x, v, axis, keepdims, g, u) if w is None else
            not_differentiable_yet("prod_hvp", "x"),
            prod_hvp(h, x, g, axis, keepdims, u, w), None, None,
            prod_hvp(h, x, v, axis, keepdims, g, w), prod_hvp(h, x, v, axis, keepdims, u, g))


@deftangent(prod_hvp)
def prod_hvp_tangent(g, ans, h, x, v, axis=None, keepdims=False, u=None, w=None):
    return (prod_hvp(g, x, v, axis, keepdims, u, w),
            prod_hvp(h, x, v, axis, keepdims, g, u) if w is None else
            not_differentiable_yet("prod_hvp", "x"),
            prod_hvp(h, x, g, axis, keepdims, u, w), None, None,
            prod_hvp(h, x, v, axis, keepdims, g, w), prod_hvp(h, x, v, axis, keepdims, u, g))


@defvjp(cumprod_hvp, shape="other")
def cumprod_hvp_rule(g, ans, h, x, v, axis=None, u=None, w=None):
    # like prod_hvp's; in h (linear), the change of cumprod along the directions and g
    return (sens_like(cumprod_jet(x, g, axis, v, u) if w is None else
                      not_differentiable_yet("cumprod_hvp", "h"), h),
            cumprod_hvp(h, x, v, axis, g, u) if w is None else
            not_differentiable_yet("cumprod_hvp", "x"),
            cumprod_hvp(h, x, g, axis, u, w), None, cumprod_hvp(h, x, v, axis, g, w),
            cumprod_hvp(h, x, v, axis, u, g))


@deftangent(cumprod_hvp)
def cumprod_hvp_tangent(g, ans, h, x, v, axis=None, u=None, w=None):
    return (cumprod_hvp(g, x, v, axis, u, w),
            cumprod_hvp(h, x, v, axis, g, u) if w is None else
            not_differentiable_yet("cumprod_hvp", "x"),
            cumprod_hvp(h, x, g, axis, u, w), None, cumprod_hvp(h, x, v, axis, g, w),
            cumprod_hvp(h, x, v, axis, u, g))


@defvjp(cumprod_jet, shape="other")
def cumprod_jet_rule(g, ans, x, v, axis=None, u=None, w=None):
    # in x, the gradient of <g, the change> (cumprod_hvp with the same directions); in a
    # direction, that gradient along the other directions only (cumprod_grad for none)
    return (cumprod_hvp(g, x, v, axis, u, w), cumprod_hvp(g, x, u, axis, w), None,
            cumprod_hvp(g, x, v, axis, w), cumprod_hvp(g, x, v, axis, u))


@deftangent(cumprod_jet)
def cumprod_jet_tangent(g, ans, x, v, axis=None, u=None, w=None):
    return (cumprod_jet(x, v, axis, g, u) if w is None else
            not_differentiable_yet("cumprod_jet", "x"),
            cumprod_jet(x, g, axis, u, w), None, cumprod_jet(x, v, axis, g, w),
            cumprod_jet(x, v, axis, u, g))


@defvjp(std_grad_partial, shape="other")
def std_grad_partial_rule(g, ans, t, h, std, x, axis=None, ddof=0, keepdims=False,
                          tangent=False, power=1):
    # the adjoint and the tangent form are each other's transposes; h is a factor per slice;
    # in std, the slope's own slope is the helper with power + 1; in x, linear (x - mean),
    # with a self-adjoint centering: the tangent form at x = the x-shaped one of (t, g)
    return (std_grad_partial(g, h, std, x, axis, ddof, keepdims, not tangent, power),
            sens_like(reduce_tangent(g if tangent else t,
                                     std_grad_partial(t if tangent else g, np.ones_like(h), std,
                                                      x, axis, ddof, keepdims, True, power),
                                     axis, keepdims), h),
            sens_like(reduce_tangent(g if tangent else t,
                                     std_grad_partial(t if tangent else g, -power * h, std, x,
                                                      axis, ddof, keepdims, True, power + 1),
                                     axis, keepdims), std),
            std_grad_partial(t if tangent else g, h, std, g if tangent else t, axis, ddof,
                             keepdims, True, power))


@deftangent(std_grad_partial)
def std_grad_partial_tangent(g, ans, t, h, std, x, axis=None, ddof=0, keepdims=False,
                             tangent=False, power=1):
    return (std_grad_partial(g, h, std, x, axis, ddof, keepdims, tangent, power),
            std_grad_partial(t, g, std, x, axis, ddof, keepdims, tangent, power),
            std_grad_partial(t, -power * h * g, std, x, axis, ddof, keepdims, tangent,
                             power + 1),
            std_grad_partial(t, h, std, g, axis, ddof, keepdims, tangent, power))


# average_grad_partial is average_jet with one direction: t moves a (or the weights) for
# the tangent form, or is the sensitivity of the gradient in a (or the weights) for the adjoint
# form; its result is the gradient in `argnum if tangent else wrt`


@defvjp(average_grad_partial, shape="other")
def average_grad_partial_rule(g, ans, t, h, a, axis=None, weights=None, keepdims=False,
                              argnum=0, wrt=0, tangent=False):
    return (average_grad_partial(g, h, a, axis, weights, keepdims, argnum, wrt, not tangent),
            sens_like(average_change(a, axis, weights, keepdims,
                                     (t if wrt == 0 else None) if tangent else
                                     (t if argnum == 0 else None),
                                     (t if wrt == 1 else None) if tangent else
                                     (t if argnum == 1 else None),
                                     g if (argnum if tangent else wrt) == 0 else None,
                                     g if (argnum if tangent else wrt) == 1 else None), h),
            average_jet(h, a, axis, weights, keepdims, 0,
                        (t if wrt == 0 else None) if tangent else (t if argnum == 0 else None),
                        (t if wrt == 1 else None) if tangent else (t if argnum == 1 else None),
                        g if (argnum if tangent else wrt) == 0 else None,
                        g if (argnum if tangent else wrt) == 1 else None), None,
            average_jet(h, a, axis, weights, keepdims, 1,
                        (t if wrt == 0 else None) if tangent else (t if argnum == 0 else None),
                        (t if wrt == 1 else None) if tangent else (t if argnum == 1 else None),
                        g if (argnum if tangent else wrt) == 0 else None,
                        g if (argnum if tangent else wrt) == 1 else None))


@deftangent(average_grad_partial)
def average_grad_partial_tangent(g, ans, t, h, a, axis=None, weights=None, keepdims=False,
                                 argnum=0, wrt=0, tangent=False):
    return (average_grad_partial(g, h, a, axis, weights, keepdims, argnum, wrt, tangent),
            average_grad_partial(t, g, a, axis, weights, keepdims, argnum, wrt, tangent),
            average_jet(h, a, axis, weights, keepdims, argnum if tangent else wrt,
                        (t if wrt == 0 else None) if tangent else (t if argnum == 0 else None),
                        (t if wrt == 1 else None) if tangent else (t if argnum == 1 else None),
                        g, None), None,
            average_jet(h, a, axis, weights, keepdims, argnum if tangent else wrt,
                        (t if wrt == 0 else None) if tangent else (t if argnum == 0 else None),
                        (t if wrt == 1 else None) if tangent else (t if argnum == 1 else None),
                        None, g))


# average_jet (a gradient) and average_change (a change of the average) along up to three
# directions (da, dw), (ua, uw), (va, vw): in a or the weights, one direction more; in a
# direction, that direction replaced (in the gradient) or left out (in the change)


@defvjp(average_jet, shape="other")
def average_jet_rule(g, ans, h, a, axis=None, weights=None, keepdims=False, argnum=0, da=None,
                     dw=None, ua=None, uw=None, va=None, vw=None):
    return (sens_like((average_change(a, axis, weights, keepdims, g if argnum == 0 else None,
                                      g if argnum == 1 else None, da, dw, ua, uw)
                       if vw is None else not_differentiable_yet("average_jet", "h"))
                      if va is None else not_differentiable_yet("average_jet", "h"), h),
            (average_jet(h, a, axis, weights, keepdims, 0, g if argnum == 0 else None,
                         g if argnum == 1 else None, da, dw, ua, uw)
             if vw is None else not_differentiable_yet("average_jet", "a"))
            if va is None else not_differentiable_yet("average_jet", "a"), None,
            (average_jet(h, a, axis, weights, keepdims, 1, g if argnum == 0 else None,
                         g if argnum == 1 else None, da, dw, ua, uw)
             if vw is None else not_differentiable_yet("average_jet", "weights"))
            if va is None else not_differentiable_yet("average_jet", "weights"), None, None,
            average_jet(h, a, axis, weights, keepdims, 0, g if argnum == 0 else None,
                        g if argnum == 1 else None, ua, uw, va, vw),
            average_jet(h, a, axis, weights, keepdims, 1, g if argnum == 0 else None,
                        g if argnum == 1 else None, ua, uw, va, vw),
            average_jet(h, a, axis, weights, keepdims, 0, da, dw, g if argnum == 0 else None,
                        g if argnum == 1 else None, va, vw),
            average_jet(h, a, axis, weights, keepdims, 1, da, dw, g if argnum == 0 else None,
                        g if argnum == 1 else None, va, vw),
            average_jet(h, a, axis, weights, keepdims, 0, da, dw, ua, uw,
                        g if argnum == 0 else None, g if argnum == 1 else None),
            average_jet(h, a, axis, weights, keepdims, 1, da, dw, ua, uw,
                        g if argnum == 0 else None, g if argnum == 1 else None))


@deftangent(average_jet)
def average_jet_tangent(g, ans, h, a, axis=None, weights=None, keepdims=False, argnum=0,
                        da=None, dw=None, ua=None, uw=None, va=None, vw=None):
    return (average_jet(g, a, axis, weights, keepdims, argnum, da, dw, ua, uw, va, vw),
            (average_jet(h, a, axis, weights, keepdims, argnum, g, None, da, dw, ua, uw)
             if vw is None else not_differentiable_yet("average_jet", "a"))
            if va is None else not_differentiable_yet("average_jet", "a"), None,
            (average_jet(h, a, axis, weights, keepdims, argnum, None, g, da, dw, ua, uw)
             if vw is None else not_differentiable_yet("average_jet", "weights"))
            if va is None else not_differentiable_yet("average_jet", "weights"), None, None,
            average_jet(h, a, axis, weights, keepdims, argnum, g, None, ua, uw, va, vw),
            average_jet(h, a, axis, weights, keepdims, argnum, None, g, ua, uw, va, vw),
            average_jet(h, a, axis, weights, keepdims, argnum, da, dw, g, None, va, vw),
            average_jet(h, a, axis, weights, keepdims, argnum, da, dw, None, g, va, vw),
            average_jet(h, a, axis, weights, keepdims, argnum, da, dw, ua, uw, g, None),
            average_jet(h, a, axis, weights, keepdims, argnum, da, dw, ua, uw, None, g))


@defvjp(average_change, shape="other")
def average_change_rule(g, ans, a, axis=None, weights=None, keepdims=False, da=None, dw=None,
                        ua=None, uw=None, va=None, vw=None):
    return (average_jet(g, a, axis, weights, keepdims, 0, da, dw, ua, uw, va, vw), None,
            average_jet(g, a, axis, weights, keepdims, 1, da, dw, ua, uw, va, vw), None,
            average_jet(g, a, axis, weights, keepdims, 0, ua, uw, va, vw),
            average_jet(g, a, axis, weights, keepdims, 1, ua, uw, va, vw),
            average_jet(g, a, axis, weights, keepdims, 0, da, dw, va, vw),
            average_jet(g, a, axis, weights, keepdims, 1, da, dw, va, vw),
            average_jet(g, a, axis, weights, keepdims, 0, da, dw, ua, uw),
            average_jet(g, a, axis, weights, keepdims, 1, da, dw, ua, uw))


@deftangent(average_change)
def average_change_tangent(g, ans, a, axis=None, weights=None, keepdims=False, da=None,
                           dw=None, ua=None, uw=None, va=None, vw=None):
    return ((average_change(a, axis, weights, keepdims, g, None, da, dw, ua, uw)
             if vw is None else not_differentiable_yet("average_change", "a"))
            if va is None else not_differentiable_yet("average_change", "a"), None,
            (average_change(a, axis, weights, keepdims, None, g, da, dw, ua, uw)
             if vw is None else not_differentiable_yet("average_change", "weights"))
            if va is None else not_differentiable_yet("average_change", "weights"), None,
            average_change(a, axis, weights, keepdims, g, None, ua, uw, va, vw),
            average_change(a, axis, weights, keepdims, None, g, ua, uw, va, vw),
            average_change(a, axis, weights, keepdims, da, dw, g, None, va, vw),
            average_change(a, axis, weights, keepdims, da, dw, None, g, va, vw),
            average_change(a, axis, weights, keepdims, da, dw, ua, uw, g, None),
            average_change(a, axis, weights, keepdims, da, dw, ua, uw, None, g))


# --- products: bilinear in the sensitivity and the other factor -----------------------------


@defvjp(matmul_grad_left, shape="other")
def matmul_grad_left_rule(g, ans, h, x, y):
    return sens_like(np.matmul(g, y), h), None, matmul_grad_right(h, g, y)


@defvjp(matmul_grad_right, shape="other")
def matmul_grad_right_rule(g, ans, h, x, y):
    return sens_like(np.matmul(x, g), h), matmul_grad_left(h, x, g), None


@defvjp(dot_grad_left, shape="other")
def dot_grad_left_rule(g, ans, h, x, y):
    return sens_like(np.dot(g, y), h), None, dot_grad_right(h, g, y)


@defvjp(dot_grad_right, shape="other")
def dot_grad_right_rule(g, ans, h, x, y):
    return sens_like(np.dot(x, g), h), dot_grad_left(h, x, g), None


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
def split_grad_rule(g, ans, h, pieces, axis=0):
    return split_like(g, h, pieces, axis)


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
def split_like_rule(g, ans, h, parts, pieces, axis=0):
    return sens_like(split_grad(g, pieces, axis), h), None, None, None


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


@defvjp(sens_item, shape="other")
def sens_item_rule(g, ans, h, i):
    return put_item(g, h, i), None


@defvjp(put_item, shape="other")
def put_item_rule(g, ans, h, like, i):
    return sens_item(g, i), None, None


@defvjp(rule_part, shape="other")
def rule_part_rule(g, ans, result, i):
    return not_differentiable_yet("a derivative rule called by reference", "result"), None


deflinear(cumprod_tangent, sort_tangent, clip_tangent, arange_tangent, average_tangent,
          sens_item, put_item, rule_part)
