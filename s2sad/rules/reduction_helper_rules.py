"""Derivative rules for the runtime's reduction helpers, and for their second derivatives.

``sum_grad(h, x, axis)`` spreads ``h`` back over the axes ``np.sum`` removed; it is linear in
``h``, so its adjoint sums ``g`` down again (``sum_grad_rule``). Where a helper depends on
another argument nonlinearly (``std_grad``, ``prod_grad``, ``cumprod_grad``, weighted
``average``), that derivative is a helper of ``s2sad.runtime.hessians``, whose own rules here
add one more direction each (a jet), up to the fourth order. The family's facts (which
argument is linear, its shape) are in the ``defvjp``/``deflinear`` lines beside each rule;
:mod:`s2sad.rules.runtime_rules` says what the runtime rules share.
"""

import numpy as np

from ..registry import deffacts, deflinear, deftangent, defvjp
from ..runtime import (cumprod_grad, cumsum_grad, einsum_grad, expand_reduced, extremum_grad,
                       nanmean_grad, nansum_grad, prod_grad, ptp_grad, std_grad, sum_grad, var_grad)
from ..runtime.hessians import (average_change, average_grad_partial, average_jet, cumprod_hvp,
                                cumprod_jet, prod_hvp, std_grad_partial)
from ..runtime.higher import (cumprod_tangent, einsum_fill_each, einsum_fill_sum,
                              einsum_grad_operands, einsum_grad_tangent, einsum_with,
                              not_differentiable_yet, reduce_tangent, sens_like)


# --- reductions -------------------------------------------------------------------------------


deffacts(sum_grad, shape_of=1, shaped_like=1, raises=())
# (generated code names their arguments from these positions: ``sum_grad(g, like=x, axis=1)``)
deffacts(prod_grad, var_grad, nansum_grad, nanmean_grad, ptp_grad, cumsum_grad,
         reduce_tangent, keywords=2)
deffacts(sum_grad, keywords=1)
deffacts(extremum_grad, std_grad, cumprod_grad, einsum_grad, keywords=3)


@defvjp(sum_grad, shape="other")
def sum_grad_rule(g, ans, h, like, axis=None, keepdims=False):
    return sens_like(np.sum(g, axis=axis, keepdims=keepdims), h)


deffacts(extremum_grad, fresh=True)


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


# --- second derivatives of the reductions (s2sad.runtime.hessians) ---------------------------


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
