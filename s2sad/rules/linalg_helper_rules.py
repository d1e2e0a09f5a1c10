"""Derivative rules of the linear-algebra and norm helpers, in all their arguments.

``solve_grad``, ``solve_tangent``, ``cholesky_grad``, ``cholesky_tangent`` and
``norm_grad`` are linear in the sensitivity they take (``h``); here they also get
their derivatives in the matrix, the factor, the point and the forward result, which
a second derivative needs (``s2sad.hvp`` of a function that solves, factors or takes
a norm).

* ``solve``: with ``gb = a^-T h``, ``solve_grad`` is ``gb`` (for ``b``) or ``-gb ans^T``
  (for ``a``): partial derivatives, ``ans`` taken as independent (the compiler adds the
  path through ``ans = solve(a, b)``). Every derivative is again a ``solve_grad``, a
  ``solve_tangent`` or the one new product ``solve_grad_solution(g, h, a, b)``
  (``-g^T a^-T h``), whose own derivatives are of the same three: all orders are written.
* ``cholesky``: partial derivatives in ``L`` (the compiler adds the path through
  ``L = cholesky(a)``), along lower-triangular changes of ``L``; one adjoint serves
  ``cholesky_grad`` and ``cholesky_tangent``, which are each other's transposes. Along
  ``L``, their derivatives of higher order are jets of matrices (``cholesky_grad_jet``,
  ``cholesky_tangent_jet`` and the adjoint of both, ``cholesky_adjoint_jet``, with up
  to three directions), closed under differentiation: up to the fourth order.
* ``norm``: ``norm_grad_second``, partials in ``ans`` and ``x`` for the vector p-norms
  (Frobenius too); everything in ``x`` for the spectral and piecewise linear norms (see
  ``s2sad.runtime.linalg``). Its own derivatives: ``norm_grad_third`` in ``x``
  (the spectral norms' third derivative included) and, for the p-norms, the partials of
  every order of ``norm_grad_partial``; the spectral norms' fourth derivative is not
  written.

>>> import numpy as np
>>> from s2sad import registry
>>> from s2sad.runtime import solve_grad
>>> rule = registry.lookup(solve_grad)
>>> a, b = np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([2.0, 4.0])
>>> rule.tangent(np.eye(2), None, np.ones(2), np.linalg.solve(a, b), a, b, 1)[2]
array([-0.25  , -0.0625])
"""

import numpy as np

from ..registry import deffacts, deflinear, deftangent, defvjp, nondifferentiable
from ..runtime import (cholesky_grad, cofactors, cofactors_change, cofactors_second,
                       gap_quotient, norm_grad, quotient, read_triangle, solve_grad,
                       spread_triangle, svd_completed, svd_cut, svd_kept, unbroadcast)
from ..runtime.higher import cholesky_tangent, not_differentiable_yet, sens_like, solve_tangent
from ..runtime.linalg import (cholesky_adjoint_jet, cholesky_grad_adjoint_l,
                              cholesky_grad_jet, cholesky_grad_tangent_l,
                              cholesky_tangent_jet, cholesky_tangent_tangent_l,
                              norm_grad_partial, norm_grad_second, norm_grad_third,
                              solve_grad_solution)
# (generated code names their arguments from these positions: ``norm_grad(g, r, x, axis=1)``)
deffacts(norm_grad, keywords=3)
deffacts(solve_grad, solve_tangent, keywords=4)
deffacts(svd_kept, keywords=2)

# --- det: the cofactors, their change (a map that is its own transpose), its change ---------


@defvjp(cofactors, shape="other")
def cofactors_rule(g, ans, a):
    return cofactors_change(a, g)


@deftangent(cofactors)
def cofactors_tangent(g, ans, a):
    return cofactors_change(a, g)


@defvjp(cofactors_change, shape="other")
def cofactors_change_rule(g, ans, a, e):
    return cofactors_second(a, e, g), cofactors_change(a, g)


@deftangent(cofactors_change)
def cofactors_change_tangent(g, ans, a, e):
    return cofactors_second(a, e, g), cofactors_change(a, g)


# det's third derivative is symmetric in its three directions: each is the others' adjoint
@defvjp(cofactors_second, shape="other")
def cofactors_second_rule(g, ans, a, e, t):
    return (not_differentiable_yet("cofactors_second (the fourth derivative of det)", "a"),
            cofactors_second(a, t, g), cofactors_second(a, e, g))


@deftangent(cofactors_second)
def cofactors_second_tangent(g, ans, a, e, t):
    return (not_differentiable_yet("cofactors_second (the fourth derivative of det)", "a"),
            cofactors_second(a, g, t), cofactors_second(a, e, g))


# --- solve -------------------------------------------------------------------------------------


@defvjp(solve_grad, shape="other")
def solve_grad_rule(g, ans, h, solution, a, b, argnum):
    return (sens_like(solve_tangent(g, solution, a, b, argnum), h),
            solve_grad_solution(g, h, a, b) if argnum == 0 else None,
            solve_grad(h, solve_tangent(g, solution, a, b, argnum), a, b, 0), None, None)


@deftangent(solve_grad)
def solve_grad_tangent(g, ans, h, solution, a, b, argnum):
    return (solve_grad(g, solution, a, b, argnum),
            solve_grad(h, g, a, b, 0) if argnum == 0 else None,
            solve_grad(solve_grad_solution(g, h, a, b), solution, a, b, argnum), None, None)


@defvjp(solve_tangent, shape="other")
def solve_tangent_rule(g, ans, h, solution, a, b, argnum):
    return (sens_like(solve_grad(g, solution, a, b, argnum), h),
            solve_grad_solution(h, g, a, b) if argnum == 0 else None,
            solve_grad(g, solve_tangent(h, solution, a, b, argnum), a, b, 0), None, None)


@deftangent(solve_tangent)
def solve_tangent_tangent(g, ans, h, solution, a, b, argnum):
    return (solve_tangent(g, solution, a, b, argnum),
            solve_tangent(h, g, a, b, 0) if argnum == 0 else None,
            solve_tangent(g, solve_tangent(h, solution, a, b, argnum), a, b, 0), None, None)


@defvjp(solve_grad_solution, shape="other")
def solve_grad_solution_rule(g, ans, m, h, a, b):
    return (sens_like(solve_grad(h, g, a, b, 0), m), sens_like(solve_tangent(m, g, a, b, 0), h),
            solve_grad(h, solve_tangent(m, g, a, b, 0), a, b, 0), None)


@deftangent(solve_grad_solution)
def solve_grad_solution_tangent(g, ans, m, h, a, b):
    return (solve_grad_solution(g, h, a, b), solve_grad_solution(m, g, a, b),
            solve_grad_solution(m, solve_grad_solution(g, h, a, b), a, b), None)


# --- cholesky ----------------------------------------------------------------------------------


@defvjp(cholesky_grad, shape="other")
def cholesky_grad_rule(g, ans, h, L):
    return sens_like(cholesky_tangent(g, L), h), cholesky_grad_adjoint_l(g, h, L)


@deftangent(cholesky_grad)
def cholesky_grad_tangent(g, ans, h, L):
    return cholesky_grad(g, L), cholesky_grad_tangent_l(g, h, L)


@defvjp(cholesky_tangent, shape="other")
def cholesky_tangent_rule(g, ans, h, L):
    return cholesky_grad(g, L), cholesky_grad_adjoint_l(h, g, L)


@deftangent(cholesky_tangent)
def cholesky_tangent_tangent(g, ans, h, L):
    return cholesky_tangent(g, L), cholesky_tangent_tangent_l(g, h, L)


# the three helpers of the derivatives along L: bilinear in (t or w) and h, transposes of
# one another (<W, Fl(t, h)> = <X(W, h), t> = <Tl(t, W), h>); along L, jets of matrices


@defvjp(cholesky_grad_tangent_l, shape="other")
def cholesky_grad_tangent_l_rule(g, ans, t, h, L):
    return (cholesky_grad_adjoint_l(g, h, L), cholesky_tangent_tangent_l(t, g, L),
            cholesky_adjoint_jet(g, h, L, t))


@deftangent(cholesky_grad_tangent_l)
def cholesky_grad_tangent_l_tangent(g, ans, t, h, L):
    return (cholesky_grad_tangent_l(g, h, L), cholesky_grad_tangent_l(t, g, L),
            cholesky_grad_jet(h, L, t, g))


@defvjp(cholesky_tangent_tangent_l, shape="other")
def cholesky_tangent_tangent_l_rule(g, ans, t, w, L):
    return (cholesky_grad_adjoint_l(w, g, L), cholesky_grad_tangent_l(t, g, L),
            cholesky_adjoint_jet(w, g, L, t))


@deftangent(cholesky_tangent_tangent_l)
def cholesky_tangent_tangent_l_tangent(g, ans, t, w, L):
    return (cholesky_tangent_tangent_l(g, w, L), cholesky_tangent_tangent_l(t, g, L),
            cholesky_tangent_jet(w, L, t, g))


@defvjp(cholesky_grad_adjoint_l, shape="other")
def cholesky_grad_adjoint_l_rule(g, ans, w, h, L):
    return (cholesky_grad_tangent_l(g, h, L), cholesky_tangent_tangent_l(g, w, L),
            cholesky_adjoint_jet(w, h, L, g))


@deftangent(cholesky_grad_adjoint_l)
def cholesky_grad_adjoint_l_tangent(g, ans, w, h, L):
    return (cholesky_grad_adjoint_l(g, h, L), cholesky_grad_adjoint_l(w, g, L),
            cholesky_adjoint_jet(w, h, L, g))


# the jets along up to three changes t, u, v of L: the same three helpers with a direction
# more (in L) or replaced (in a direction); a fourth direction is not written


@defvjp(cholesky_grad_jet, shape="other")
def cholesky_grad_jet_rule(g, ans, h, L, t=None, u=None, v=None):
    return (sens_like(cholesky_tangent_jet(g, L, t, u, v), h),
            cholesky_adjoint_jet(g, h, L, t, u, v), cholesky_adjoint_jet(g, h, L, u, v),
            cholesky_adjoint_jet(g, h, L, t, v), cholesky_adjoint_jet(g, h, L, t, u))


@deftangent(cholesky_grad_jet)
def cholesky_grad_jet_tangent(g, ans, h, L, t=None, u=None, v=None):
    return (cholesky_grad_jet(g, L, t, u, v),
            cholesky_grad_jet(h, L, g, t, u) if v is None else
            not_differentiable_yet("cholesky_grad_jet", "L"),
            cholesky_grad_jet(h, L, g, u, v), cholesky_grad_jet(h, L, t, g, v),
            cholesky_grad_jet(h, L, t, u, g))


@defvjp(cholesky_tangent_jet, shape="other")
def cholesky_tangent_jet_rule(g, ans, w, L, t=None, u=None, v=None):
    return (sens_like(cholesky_grad_jet(g, L, t, u, v), w),
            cholesky_adjoint_jet(w, g, L, t, u, v), cholesky_adjoint_jet(w, g, L, u, v),
            cholesky_adjoint_jet(w, g, L, t, v), cholesky_adjoint_jet(w, g, L, t, u))


@deftangent(cholesky_tangent_jet)
def cholesky_tangent_jet_tangent(g, ans, w, L, t=None, u=None, v=None):
    return (cholesky_tangent_jet(g, L, t, u, v),
            cholesky_tangent_jet(w, L, g, t, u) if v is None else
            not_differentiable_yet("cholesky_tangent_jet", "L"),
            cholesky_tangent_jet(w, L, g, u, v), cholesky_tangent_jet(w, L, t, g, v),
            cholesky_tangent_jet(w, L, t, u, g))


@defvjp(cholesky_adjoint_jet, shape="other")
def cholesky_adjoint_jet_rule(g, ans, w, h, L, t=None, u=None, v=None):
    return (sens_like(cholesky_grad_jet(h, L, g, t, u) if v is None else
                      not_differentiable_yet("cholesky_adjoint_jet", "w"), w),
            sens_like(cholesky_tangent_jet(w, L, g, t, u) if v is None else
                      not_differentiable_yet("cholesky_adjoint_jet", "h"), h),
            cholesky_adjoint_jet(w, h, L, g, t, u) if v is None else
            not_differentiable_yet("cholesky_adjoint_jet", "L"),
            cholesky_adjoint_jet(w, h, L, g, u, v), cholesky_adjoint_jet(w, h, L, t, g, v),
            cholesky_adjoint_jet(w, h, L, t, u, g))


@deftangent(cholesky_adjoint_jet)
def cholesky_adjoint_jet_tangent(g, ans, w, h, L, t=None, u=None, v=None):
    return (cholesky_adjoint_jet(g, h, L, t, u, v), cholesky_adjoint_jet(w, g, L, t, u, v),
            cholesky_adjoint_jet(w, h, L, g, t, u) if v is None else
            not_differentiable_yet("cholesky_adjoint_jet", "L"),
            cholesky_adjoint_jet(w, h, L, g, u, v), cholesky_adjoint_jet(w, h, L, t, g, v),
            cholesky_adjoint_jet(w, h, L, t, u, g))


# --- norms -------------------------------------------------------------------------------------


@defvjp(norm_grad, shape="other")
def norm_grad_rule(g, ans, h, norm, x, ord=None, axis=None, keepdims=False, matrix=None):
    return (sens_like(np.sum(g * norm_grad(np.ones_like(h), norm, x, ord, axis, keepdims, matrix),
                             axis=axis, keepdims=keepdims), h),
            norm_grad_second(g, h, norm, x, ord, axis, keepdims, matrix, 1),
            norm_grad_second(g, h, norm, x, ord, axis, keepdims, matrix, 2))


@deftangent(norm_grad)
def norm_grad_tangent(g, ans, h, norm, x, ord=None, axis=None, keepdims=False, matrix=None):
    return (norm_grad(g, norm, x, ord, axis, keepdims, matrix),
            norm_grad_second(g, h, norm, x, ord, axis, keepdims, matrix, 1, True),
            norm_grad_second(g, h, norm, x, ord, axis, keepdims, matrix, 2, True))


@defvjp(norm_grad_second, shape="other")
def norm_grad_second_rule(g, ans, t, h, norm, x, ord=None, axis=None, keepdims=False,
                          matrix=None, argnum=2, tangent=False):
    # linear in t (the adjoint of the ans part is its tangent, and back) and in h (a factor
    # per reduced slice: summed over the slice, unless the result is already reduced)
    return (norm_grad_second(g, h, norm, x, ord, axis, keepdims, matrix, argnum, not tangent),
            sens_like((g * norm_grad_second(t, np.ones_like(h), norm, x, ord, axis, keepdims,
                                            matrix, argnum, tangent)
                       if argnum == 1 and not tangent else
                       np.sum(g * norm_grad_second(t, np.ones_like(h), norm, x, ord, axis,
                                                   keepdims, matrix, argnum, tangent),
                              axis=axis, keepdims=keepdims)), h),
            # ans and x: the p-norms' partials one order higher (norm_grad_partial)
            norm_grad_partial(t * g, h, norm, x, ord, axis, keepdims, matrix, 1, 1, True)
            if argnum == 2 else
            norm_grad_partial(g, h * t, norm, x, ord, axis, keepdims, matrix, 0, 2, True)
            if tangent else
            norm_grad_partial(t, h * g, norm, x, ord, axis, keepdims, matrix, 0, 2, True),
            norm_grad_third(t, g, h, norm, x, ord, axis, keepdims, matrix)
            if argnum == 2 else
            norm_grad_partial(g, h * t, norm, x, ord, axis, keepdims, matrix, 1, 1, False)
            if tangent else
            norm_grad_partial(t, h * g, norm, x, ord, axis, keepdims, matrix, 1, 1, False))


@deftangent(norm_grad_second)
def norm_grad_second_tangent(g, ans, t, h, norm, x, ord=None, axis=None, keepdims=False,
                             matrix=None, argnum=2, tangent=False):
    return (norm_grad_second(g, h, norm, x, ord, axis, keepdims, matrix, argnum, tangent),
            norm_grad_second(t, g, norm, x, ord, axis, keepdims, matrix, argnum, tangent),
            norm_grad_partial(t, h * g, norm, x, ord, axis, keepdims, matrix, 1, 1, False)
            if argnum == 2 else
            norm_grad_partial(1.0, h * t * g, norm, x, ord, axis, keepdims, matrix, 0, 2, False)
            if tangent else
            norm_grad_partial(t, h * g, norm, x, ord, axis, keepdims, matrix, 0, 2, True),
            norm_grad_third(t, g, h, norm, x, ord, axis, keepdims, matrix)
            if argnum == 2 else
            norm_grad_partial(g, h * t, norm, x, ord, axis, keepdims, matrix, 1, 1, False)
            if tangent else
            norm_grad_partial(t * g, h, norm, x, ord, axis, keepdims, matrix, 1, 1, True))


# norm_grad_third(t, u, h, ans, x, ...): the third derivative in x, trilinear and symmetric in t,
# u and its own direction; in ans and x, the p-norms' partials one order higher (the spectral
# norms': 0 in ans, not written in x)


@defvjp(norm_grad_third, shape="other")
def norm_grad_third_rule(g, ans, t, u, h, norm, x, ord=None, axis=None, keepdims=False,
                         matrix=None):
    return (norm_grad_third(g, u, h, norm, x, ord, axis, keepdims, matrix),
            norm_grad_third(t, g, h, norm, x, ord, axis, keepdims, matrix),
            sens_like(np.sum(g * norm_grad_third(t, u, np.ones_like(h), norm, x, ord, axis,
                                                 keepdims, matrix),
                             axis=axis, keepdims=keepdims), h),
            sens_like(norm_grad_partial(t * u * g, h, norm, x, ord, axis, keepdims, matrix, 2, 1,
                                        True), norm),
            norm_grad_partial(t * u * g, h, norm, x, ord, axis, keepdims, matrix, 3, 0, False))


@deftangent(norm_grad_third)
def norm_grad_third_tangent(g, ans, t, u, h, norm, x, ord=None, axis=None, keepdims=False,
                            matrix=None):
    return (norm_grad_third(g, u, h, norm, x, ord, axis, keepdims, matrix),
            norm_grad_third(t, g, h, norm, x, ord, axis, keepdims, matrix),
            norm_grad_third(t, u, g, norm, x, ord, axis, keepdims, matrix),
            norm_grad_partial(t * u, h * g, norm, x, ord, axis, keepdims, matrix, 2, 1, False),
            norm_grad_partial(t * u * g, h, norm, x, ord, axis, keepdims, matrix, 3, 0, False))


# norm_grad_partial(u, c, ans, x, ..., dx, dans, reduce) is linear in u and c; its derivatives
# in x and ans are itself one order higher, the direction multiplying u (x) or c (ans) -- or,
# for an adjoint of a reduced result, the sensitivity multiplying c


@defvjp(norm_grad_partial, shape="other")
def norm_grad_partial_rule(g, ans, u, c, norm, x, ord=None, axis=None, keepdims=False,
                           matrix=None, dx=1, dans=0, reduce=False):
    return (sens_like(norm_grad_partial(1.0, c * g, norm, x, ord, axis, keepdims, matrix, dx,
                                        dans, False) if reduce else
                      norm_grad_partial(g, c, norm, x, ord, axis, keepdims, matrix, dx, dans,
                                        False), u),
            sens_like(norm_grad_partial(u, g, norm, x, ord, axis, keepdims, matrix, dx, dans,
                                        True) if reduce else
                      norm_grad_partial(u * g, np.ones_like(norm), norm, x, ord, axis,
                                        keepdims, matrix, dx, dans, True), c),
            sens_like(norm_grad_partial(u, c * g, norm, x, ord, axis, keepdims, matrix, dx,
                                        dans + 1, True) if reduce else
                      norm_grad_partial(u * g, c, norm, x, ord, axis, keepdims, matrix, dx,
                                        dans + 1, True), norm),
            norm_grad_partial(u, c * g, norm, x, ord, axis, keepdims, matrix, dx + 1, dans,
                              False) if reduce else
            norm_grad_partial(u * g, c, norm, x, ord, axis, keepdims, matrix, dx + 1, dans,
                              False))


@deftangent(norm_grad_partial)
def norm_grad_partial_tangent(g, ans, u, c, norm, x, ord=None, axis=None, keepdims=False,
                              matrix=None, dx=1, dans=0, reduce=False):
    return (norm_grad_partial(g, c, norm, x, ord, axis, keepdims, matrix, dx, dans, reduce),
            norm_grad_partial(u, g, norm, x, ord, axis, keepdims, matrix, dx, dans, reduce),
            norm_grad_partial(u, c * g, norm, x, ord, axis, keepdims, matrix, dx, dans + 1,
                              reduce),
            norm_grad_partial(u * g, c, norm, x, ord, axis, keepdims, matrix, dx + 1, dans,
                              reduce))


# --- eigh and svd ------------------------------------------------------------------------
# quotient(a, b) = a / b (0 where a is 0): linear in a; in b, -quotient(a, b) / b


@defvjp(quotient, shape="other")
def quotient_rule(g, ans, a, b):
    return (unbroadcast(quotient(g, b), a),
            unbroadcast(-quotient(g * ans, b), b))


@deftangent(quotient)
def quotient_tangent(g, ans, a, b):
    return quotient(g, b), -quotient(ans * g, b)


# gap_quotient(m, w) = Q, Q[i, j] = m[i, j] / (w[j] - w[i]) off the diagonal: linear in m;
# dQ[i, j] = -Q[i, j] (dw[j] - dw[i]) / (w[j] - w[i])


@defvjp(gap_quotient, shape="other")
def gap_quotient_rule(g, ans, m, w):
    return (gap_quotient(g, w),
            np.sum(gap_quotient(g * ans, w), axis=-1) -
            np.sum(gap_quotient(g * ans, w), axis=-2))


@deftangent(gap_quotient)
def gap_quotient_tangent(g, ans, m, w):
    return (gap_quotient(g, w),
            -gap_quotient(ans * (np.expand_dims(g, -2) - np.expand_dims(g, -1)), w))


nondifferentiable(svd_kept)


@defvjp(svd_completed, shape="other")
def svd_completed_rule(g, ans, d, like, fill):
    return svd_cut(g, d), None, None


@defvjp(svd_cut, shape="other")
def svd_cut_rule(g, ans, h, d):
    return svd_completed(g, h, 0.0), None


deflinear(svd_cut)


@deftangent(svd_completed)
def svd_completed_tangent(g, ans, d, like, fill):
    return svd_completed(g, like, 0.0), None, None


# --- one triangle read: each helper is the other's adjoint (linear in its first argument) ---


@defvjp(read_triangle, shape="other")
def read_triangle_rule(g, ans, h, a, lower, hermitian=True):
    return spread_triangle(g, a, lower, hermitian), None, None, None


@defvjp(spread_triangle, shape="other")
def spread_triangle_rule(g, ans, t, a, lower, hermitian=True):
    return read_triangle(g, a, lower, hermitian), None, None, None


deflinear(read_triangle, spread_triangle)
