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
  ``cholesky_grad`` and ``cholesky_tangent``, which are each other's transposes. The new
  helpers have derivatives in their sensitivities, not in ``L`` (a third derivative
  along ``a`` alone raises ``NoDerivativeError``).
* ``norm``: ``norm_grad_second``, partials in ``ans`` and ``x`` for the vector p-norms
  (Frobenius too); everything in ``x`` for the spectral and piecewise linear norms (see
  ``s2sad.runtime_linalg_higher``). Its derivatives in ``ans`` and ``x`` (a third
  derivative along ``x`` alone) are not written; those in ``t`` and ``h`` are.

>>> import numpy as np
>>> from s2sad import registry
>>> from s2sad.runtime import solve_grad
>>> rule = registry.lookup(solve_grad)
>>> a, b = np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([2.0, 4.0])
>>> rule.tangent(np.eye(2), None, np.ones(2), np.linalg.solve(a, b), a, b, 1)[2]
array([-0.25  , -0.0625])
"""

import numpy as np

from ..registry import deftangent, defvjp
from ..runtime import cholesky_grad, norm_grad, solve_grad
from ..runtime_higher import cholesky_tangent, not_differentiable_yet, sens_like, solve_tangent
from ..runtime_linalg_higher import (cholesky_grad_adjoint_l, cholesky_grad_tangent_l,
                                     cholesky_tangent_tangent_l, norm_grad_second,
                                     solve_grad_solution)

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
# one another (<W, Fl(t, h)> = <X(W, h), t> = <Tl(t, W), h>)


@defvjp(cholesky_grad_tangent_l, shape="other")
def cholesky_grad_tangent_l_rule(g, ans, t, h, L):
    return (cholesky_grad_adjoint_l(g, h, L), cholesky_tangent_tangent_l(t, g, L),
            not_differentiable_yet("cholesky_grad_tangent_l", "L"))


@deftangent(cholesky_grad_tangent_l)
def cholesky_grad_tangent_l_tangent(g, ans, t, h, L):
    return (cholesky_grad_tangent_l(g, h, L), cholesky_grad_tangent_l(t, g, L),
            not_differentiable_yet("cholesky_grad_tangent_l", "L"))


@defvjp(cholesky_tangent_tangent_l, shape="other")
def cholesky_tangent_tangent_l_rule(g, ans, t, w, L):
    return (cholesky_grad_adjoint_l(w, g, L), cholesky_grad_tangent_l(t, g, L),
            not_differentiable_yet("cholesky_tangent_tangent_l", "L"))


@deftangent(cholesky_tangent_tangent_l)
def cholesky_tangent_tangent_l_tangent(g, ans, t, w, L):
    return (cholesky_tangent_tangent_l(g, w, L), cholesky_tangent_tangent_l(t, g, L),
            not_differentiable_yet("cholesky_tangent_tangent_l", "L"))


@defvjp(cholesky_grad_adjoint_l, shape="other")
def cholesky_grad_adjoint_l_rule(g, ans, w, h, L):
    return (cholesky_grad_tangent_l(g, h, L), cholesky_tangent_tangent_l(g, w, L),
            not_differentiable_yet("cholesky_grad_adjoint_l", "L"))


@deftangent(cholesky_grad_adjoint_l)
def cholesky_grad_adjoint_l_tangent(g, ans, w, h, L):
    return (cholesky_grad_adjoint_l(g, h, L), cholesky_grad_adjoint_l(w, g, L),
            not_differentiable_yet("cholesky_grad_adjoint_l", "L"))


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
            not_differentiable_yet("norm_grad_second", "ans"),
            not_differentiable_yet("norm_grad_second", "x"))


@deftangent(norm_grad_second)
def norm_grad_second_tangent(g, ans, t, h, norm, x, ord=None, axis=None, keepdims=False,
                             matrix=None, argnum=2, tangent=False):
    return (norm_grad_second(g, h, norm, x, ord, axis, keepdims, matrix, argnum, tangent),
            norm_grad_second(t, g, norm, x, ord, axis, keepdims, matrix, argnum, tangent),
            not_differentiable_yet("norm_grad_second", "ans"),
            not_differentiable_yet("norm_grad_second", "x"))
