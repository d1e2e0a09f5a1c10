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
``s2sad.runtime.hessians``, whose own derivatives are the same helpers with one more
direction (jets), up to the fourth order; those of linear algebra and norms are in
``s2sad.rules.linalg_helper_rules``. A derivative not written yet (mostly beyond the
fourth order, and ``einsum``'s fourth) is a call of ``not_differentiable_yet``, which
raises only if it runs.

This module holds the rules of the helpers for recursion, checkpoints, powers, shapes and
structures; those of the reductions are in ``s2sad.rules.reduction_helper_rules``, and those
of products, shape manipulation and tangent helpers in ``s2sad.rules.linear_helper_rules``.

>>> import numpy as np
>>> from s2sad import registry
>>> from s2sad.runtime import sum_grad
>>> rule = registry.lookup(sum_grad)
>>> rule.adjoint(np.ones((2, 3)), None, np.ones(3), np.zeros((2, 3)), 0, False)
array([2., 2., 2.])
"""

import numpy as np

from ..registry import (deffacts, deflinear, defresult, deftangent, defvjp, nondifferentiable,
                        refuse_function)
from ..runtime import (check_distinct, check_flat, view_axes, view_index, view_shape, raveled_in_place, add_sens, array_grad, as_gradient, broadcast_shape, cast_like, check_in_place, check_number,
                       check_no_function, check_real_power, checked_cross_vector, checked_quantiles,
                       quantile_dtype,
                       expand_reduced,
                       index_grad, matmul_shape, one_axis, output_seed, pack_like, reduced_size,
                       running_extremum, scaled_power, shape_of, side_effect, sort_order,
                       sum_product,
                       extreme_position, list_grad, list_tangent, sum_list_grad,
                       repeated_list_grad, repeated_list,
                       unbroadcast, unbroadcast_product,
                       window_count, written_part, last_writes, zeros_like_structure, full_widths)
from ..runtime.structures import (added_to, check_zip_lengths, item_or_missing,
                                  object_sensitivity, plus_part, restore_item, try_caught,
                                  try_steps, zip_lengths)
from ..runtime.higher import plus_part_adjoint
from ..runtime.recursion import (recursion_value, recursive_call, recursive_pullback, same_method,
                                 recursive_pullback_along_args, recursive_pullback_in_args,
                                 recursive_pushforward)
from ..runtime.higher import (add_at, broadcast_like, checkpoint_grads, checkpoint_tangent,
                              not_differentiable_yet, sens_like, snapshot, stack_like, sum_parts,
                              take_at, unbroadcast_adjoint, unpack_sens)

# a dict given a key it may not have (d[i] = v in a loop): a gradient saves the item, or
# that there was none, and puts it back; a derivative of that gradient is not modelled
refuse_function(item_or_missing, restore_item, advice=(
    "A derivative of a gradient cannot follow a dict given new keys in the function (d[i] "
    "= v where d may not have the key i yet). Give the dict its keys in its display "
    "(d = {0: 0.0, 1: 0.0, 2: 0.0}), or keep the values in a list (ys.append(v))."))
# the check before a recursive method is called on an object known when it runs (a tree's
# child): on an object made of the differentiated arguments, refused (its attributes'
# derivatives would not reach the call)
refuse_function(same_method, advice=(
    "s2sad follows a recursive method through objects that do not depend on the "
    "differentiated arguments. Pass the values that do as arguments of the method."))
nondifferentiable(zeros_like_structure, output_seed, reduced_size, recursive_call,
                  broadcast_shape, matmul_shape, shape_of, running_extremum, one_axis,
                  quantile_dtype,
                  window_count, full_widths, sort_order, extreme_position, added_to,
                  shape="other")
defresult(zeros_like_structure, kind="f")  # (sensitivities: float zeros, updated in place)
deffacts(zeros_like_structure, fresh=True, structure_of=(0,))
deffacts(reduced_size, shape_of=0, number="i")  # (a Python int)
# (generated code names their arguments from these positions: ``unbroadcast(g, like=x)``)
deffacts(unbroadcast, sens_like, broadcast_like, reduced_size, keywords=1)
deffacts(expand_reduced, keywords=2)
deffacts(unbroadcast_product, keywords=2)
deffacts(broadcast_shape, raises="broadcast")  # (the shape of a + b: NumPy's ValueError)
deffacts(sum_product, raises=("broadcast", "axis"))  # (np.sum(a * b, axis=axis))
deffacts(output_seed, checks=True)  # (a function whose result is not a number: its error)
deffacts(side_effect, checks=True)  # (the user's change to an object's state: kept, in order)


@defvjp(checked_quantiles)  # q itself (checked)
def checked_quantiles_rule(g, ans, q):
    return g


@defvjp(checked_cross_vector)  # a itself (checked)
def checked_cross_vector_rule(g, ans, a):
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
nondifferentiable(check_flat)  # (a statement before `t[i] = v` for `y.flat[i] = v`: .view_writes)
nondifferentiable(check_number)  # (a statement before `v /= c` where v may be an array)
nondifferentiable(check_in_place)  # (a statement before `v += e`: NumPy's dtype and shape)
nondifferentiable(check_distinct)  # (a statement before an object's deep copy: .local_objects)
nondifferentiable(check_zip_lengths, zip_lengths)  # (zip(..., strict=True): lengths)
nondifferentiable(try_caught, try_steps)  # (which block of a `try` runs: a position)
nondifferentiable(check_no_function)  # (a function given where a rule has no derivative)
nondifferentiable(view_index, view_shape, view_axes)  # (a write through a view: .view_writes)
nondifferentiable(raveled_in_place)  # (y.T.ravel(): a view or a copy, .view_writes)

try:  # the memory budget's check (a statement in generated while loops)
    from ..runtime.budget import checked_passes, check_stack
    nondifferentiable(check_stack)
    nondifferentiable(checked_passes)
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


deffacts(unbroadcast, shape_of=1, shaped_like=1, raises=())


@defvjp(unbroadcast, shape="other")
def unbroadcast_rule(g, ans, h, like):
    return unbroadcast_adjoint(g, h), None


@defvjp(unbroadcast_adjoint, shape="other")
def unbroadcast_adjoint_rule(g, ans, h, like):
    return unbroadcast(g, h), None


deffacts(sens_like, structure_of=(1,))


@defvjp(sens_like, shape="other")
def sens_like_rule(g, ans, h, like):
    return broadcast_like(g, h), None


# (g itself where no spread is needed)
deffacts(broadcast_like, structure_of=(1,), returns_view_of=(0,))


@defvjp(broadcast_like, shape="other")
def broadcast_like_rule(g, ans, h, like):
    return sens_like(g, h), None


# (the generated code holds an object's sensitivity as the dict this makes: its adjoint
# is the identity in that form too)
@defvjp(object_sensitivity, shape="other")
def object_sensitivity_rule(g, ans, g_object):
    return g


deflinear(object_sensitivity)
deffacts(as_gradient, structure_of=(0,))


@defvjp(as_gradient, shape="other")
def as_gradient_rule(g, ans, x, h):
    return None, sens_like(object_sensitivity(g), h)


try:
    from ..runtime.gradients import fresh_gradient
    defvjp(fresh_gradient, shape="other")(as_gradient_rule)
    deflinear(fresh_gradient, argnums=(1,))
except ImportError:  # pragma: no cover
    pass


deffacts(add_sens, structure_of=(0, 1))


@defvjp(add_sens, shape="other")
def add_sens_rule(g, ans, a, b):
    return sens_like(g, a), sens_like(g, b)


deffacts(pack_like, structure_of=(0,))


@defvjp(pack_like, shape="other")
def pack_like_rule(g, ans, x, parts):
    return None, unpack_sens(g, parts)


# a part of `a + b` whose kind is known only when it runs (joined lists, or added
# numbers): each other's transpose in g, linear in g
@defvjp(plus_part, shape="other")
def plus_part_rule(g, ans, h, at, parts):
    return plus_part_adjoint(g, h, at, parts), None, None


@defvjp(plus_part_adjoint, shape="other")
def plus_part_adjoint_rule(g, ans, h, like, at, parts):
    return plus_part(g, at, parts), None, None, None


deflinear(plus_part, plus_part_adjoint)


# x.tolist()'s adjoint and tangent: each other's transpose, linear in g
@defvjp(list_grad, shape="other")
def list_grad_rule(g, ans, h, like):
    return list_tangent(g, like), None


@defvjp(list_tangent, shape="other")
def list_tangent_rule(g, ans, h, like):
    return list_grad(g, like), None


deflinear(list_grad, list_tangent)


# ys = items * n of a list: the adjoint sums the copies; its own adjoint repeats again
@defvjp(repeated_list_grad, shape="other")
def repeat_grad_rule(g, ans, h, items, n):
    return repeated_list(g, n), None, None


@defvjp(repeated_list, shape="other")
def repeat_items_rule(g, ans, h, n):
    return repeated_list_grad(g, h, n), None


deflinear(repeated_list_grad, repeated_list)


deffacts(unpack_sens, structure_of=(1,))


@defvjp(unpack_sens, shape="other")
def unpack_sens_rule(g, ans, h, parts):
    return pack_like(h, g), None


deffacts(snapshot, structure_of=(0,))
defresult(snapshot, follows=(("value", 0),))  # (a copy: an integer array stays one)


@defvjp(snapshot, shape="other")
def snapshot_rule(g, ans, value):
    return g


deffacts(index_grad, fresh=True, structure_of=(1,))


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


deffacts(cast_like, returns_view_of=(0,))  # (g itself, where no cast is needed)


@defvjp(cast_like, shape="other")
def cast_like_rule(g, ans, h, x):
    return cast_like(g, h)


deffacts(array_grad, structure_of=(1,))


@defvjp(array_grad, shape="other")
def array_grad_rule(g, ans, h, obj):
    return stack_like(g, h), None


@defvjp(stack_like, shape="other")
def stack_like_rule(g, ans, parts, like):
    return array_grad(g, parts), None


deffacts(sum_list_grad, structure_of=(1,))  # (a list's items each get g: a list)


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
