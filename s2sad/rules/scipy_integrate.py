"""Derivative rules for ``scipy.integrate.odeint`` and ``solve_ivp`` (where SciPy imports).

The right-hand side is the user's function: its vector-Jacobian and Jacobian-vector
products are s2sad's own, compiled from its source. Reverse mode integrates the adjoint
system backwards with the same solver and tolerances, forward mode the sensitivity
equations beside the state (:mod:`s2sad.runtime_ode`). Derivatives of these derivatives
are not written: they are refused when they run.
"""

from scipy import integrate

from ..registry import deffacts, defvjp, deftangent, nondifferentiable, refuse_values, \
    refuse_varying
from ..runtime_higher import not_differentiable_yet
from ..runtime_ode import odeint_grads, odeint_options, odeint_tangent

_OUTPUT = ("odeint's derivative is written for its solution alone; call it without "
           "full_output, or with s2sad.stop_gradient() around the inputs of a run whose "
           "report you read.")
_JACOBIAN = ("s2sad computes the derivatives of the right-hand side itself; drop {} or pass "
             "a constant.")


# --- odeint ------------------------------------------------------------------------------


@defvjp(integrate.odeint, shape="other")
def odeint(g, ans, func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None,
           mu=None, rtol=None, atol=None, tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0,
           mxstep=0, mxhnil=0, mxordn=12, mxords=5, printmessg=0, tfirst=False):
    grads = odeint_grads(func, g, ans, y0, t, args, odeint_options(
        rtol, atol, tcrit, h0, hmax, hmin, mxstep, mxordn, mxords, tfirst))
    return None, grads[0], grads[1], grads[2]


@deftangent(integrate.odeint)
def odeint_jvp(g, ans, func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None,
               mu=None, rtol=None, atol=None, tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0,
               mxstep=0, mxhnil=0, mxordn=12, mxords=5, printmessg=0, tfirst=False):
    return (None,
            odeint_tangent(func, y0, t, args, odeint_options(
                rtol, atol, tcrit, h0, hmax, hmin, mxstep, mxordn, mxords, tfirst),
                g, None, None),
            odeint_tangent(func, y0, t, args, odeint_options(
                rtol, atol, tcrit, h0, hmax, hmin, mxstep, mxordn, mxords, tfirst),
                None, g, None),
            odeint_tangent(func, y0, t, args, odeint_options(
                rtol, atol, tcrit, h0, hmax, hmin, mxstep, mxordn, mxords, tfirst),
                None, None, g))


refuse_values(integrate.odeint, "full_output", (0, False), _OUTPUT)
refuse_varying(integrate.odeint, rtol="Tolerances have no derivative; pass constants.",
               atol="Tolerances have no derivative; pass constants.")

# the helpers' own derivatives (a derivative of a derivative): refused when they run
nondifferentiable(odeint_options, shape="other")


@defvjp(odeint_grads, shape="sequence")
def odeint_grads_rule(g, ans, func, h, ys, y0, t, args, options):
    return (None, not_differentiable_yet("the adjoint of scipy.integrate.odeint", "g"),
            not_differentiable_yet("the adjoint of scipy.integrate.odeint", "ans"),
            not_differentiable_yet("the adjoint of scipy.integrate.odeint", "y0"),
            not_differentiable_yet("the adjoint of scipy.integrate.odeint", "t"),
            not_differentiable_yet("the adjoint of scipy.integrate.odeint", "args"), None)


@deftangent(odeint_grads)
def odeint_grads_tangent(g, ans, func, h, ys, y0, t, args, options):
    return (None, not_differentiable_yet("the adjoint of scipy.integrate.odeint", "g"),
            not_differentiable_yet("the adjoint of scipy.integrate.odeint", "ans"),
            not_differentiable_yet("the adjoint of scipy.integrate.odeint", "y0"),
            not_differentiable_yet("the adjoint of scipy.integrate.odeint", "t"),
            not_differentiable_yet("the adjoint of scipy.integrate.odeint", "args"), None)


@defvjp(odeint_tangent, shape="other")
def odeint_tangent_rule(g, ans, func, y0, t, args, options, d_y0, d_t, d_args):
    return (None, not_differentiable_yet("the tangent of scipy.integrate.odeint", "y0"),
            not_differentiable_yet("the tangent of scipy.integrate.odeint", "t"),
            not_differentiable_yet("the tangent of scipy.integrate.odeint", "args"), None,
            not_differentiable_yet("the tangent of scipy.integrate.odeint", "d_y0"),
            not_differentiable_yet("the tangent of scipy.integrate.odeint", "d_t"),
            not_differentiable_yet("the tangent of scipy.integrate.odeint", "d_args"))


@deftangent(odeint_tangent)
def odeint_tangent_tangent(g, ans, func, y0, t, args, options, d_y0, d_t, d_args):
    return (None, not_differentiable_yet("the tangent of scipy.integrate.odeint", "y0"),
            not_differentiable_yet("the tangent of scipy.integrate.odeint", "t"),
            not_differentiable_yet("the tangent of scipy.integrate.odeint", "args"), None,
            not_differentiable_yet("the tangent of scipy.integrate.odeint", "d_y0"),
            not_differentiable_yet("the tangent of scipy.integrate.odeint", "d_t"),
            not_differentiable_yet("the tangent of scipy.integrate.odeint", "d_args"))
