"""Derivative rules for ``scipy.integrate.odeint`` and ``solve_ivp`` (where SciPy imports).

The right-hand side is the user's function: its vector-Jacobian and Jacobian-vector
products are s2sad's own, compiled from its source. Reverse mode integrates the adjoint
system backwards with the same solver and tolerances, forward mode the sensitivity
equations beside the state (:mod:`s2sad.runtime.ode`). Derivatives of these derivatives
are not written: they are refused when they run.
"""

import numpy as np
from scipy import integrate

from ..registry import deffacts, defunwritten, defvjp, deftangent, nondifferentiable, \
    refuse_values, refuse_varying
from ..runtime.ode import (_FIELDS, ivp_grads, ivp_options, ivp_solve, ivp_span_grads,
                           ivp_tangent, ivp_time_grads, odeint_grads, odeint_options,
                           odeint_tangent, odeint_time_grads)

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
    options = odeint_options(rtol, atol, tcrit, h0, hmax, hmin, mxstep, mxordn, mxords, tfirst)
    grads = odeint_grads(func, g, ans, y0, t, args, options)
    return None, grads[0], odeint_time_grads(func, g, ans, y0, t, args, options, grads[2]), \
        grads[1]


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
refuse_varying(integrate.odeint, Dfun=_JACOBIAN.format("Dfun"))
refuse_varying(integrate.odeint, rtol="Tolerances have no derivative; pass constants.",
               atol="Tolerances have no derivative; pass constants.")

# the helpers' own derivatives (a derivative of a derivative): refused when they run, in
# both modes by one rule (its adjoint and its tangent are the same refusals)
nondifferentiable(odeint_options, shape="other")


_ODEINT_ADJOINT, _ODEINT_TANGENT = ("the adjoint of scipy.integrate.odeint",
                                    "the tangent of scipy.integrate.odeint")
defunwritten(odeint_grads, _ODEINT_ADJOINT, ("g", "ans", "y0", "t", "args"),
             shape="sequence")
defunwritten(odeint_time_grads, _ODEINT_ADJOINT, ("g", "ans", "y0", "t", "args", "a0"))
defunwritten(odeint_tangent, _ODEINT_TANGENT, ("y0", "t", "args", "d_y0", "d_t", "d_args"))


# --- solve_ivp: a call is written with ivp_solve (its result's fields by position) ----------


def solve_ivp(fun, t_span, y0, method="RK45", t_eval=None, args=None, rtol=1e-3, atol=1e-6,
              first_step=None, max_step=np.inf):
    return ivp_solve(fun, t_span, y0, t_eval, args,
                     ivp_options(method, rtol, atol, first_step, max_step))


solve_ivp.stand_in_advice = {
    "function": "Define the right-hand side fun(t, y, *args) at module level and pass the "
                "values it reads through args=(...): their derivatives flow through args.",
    "arguments": "s2sad models the solution at the requested times (sol.t, sol.y); "
                 "dense_output, events and vectorized are not modeled. Sample the solution "
                 "with t_eval instead, or find an event's time with a root finder on "
                 "values s2sad differentiates."}
STAND_INS = {integrate.solve_ivp: solve_ivp}

deffacts(ivp_solve, fields=(_FIELDS, (0,) * len(_FIELDS)))
nondifferentiable(ivp_options, shape="other")


@defvjp(ivp_solve, shape="sequence")
def ivp_solve_rule(g, ans, fun, t_span, y0, t_eval, args, options):
    grads = ivp_grads(fun, g, ans, t_span, y0, t_eval, args, options)
    return (None, ivp_span_grads(fun, g, ans, t_span, y0, t_eval, args, grads[2]), grads[0],
            ivp_time_grads(fun, g, ans, t_span, y0, t_eval, args), grads[1], None)


@deftangent(ivp_solve)
def ivp_solve_tangent(g, ans, fun, t_span, y0, t_eval, args, options):
    return (None, ivp_tangent(fun, ans, t_span, y0, t_eval, args, options, g, None, None, None),
            ivp_tangent(fun, ans, t_span, y0, t_eval, args, options, None, g, None, None),
            ivp_tangent(fun, ans, t_span, y0, t_eval, args, options, None, None, g, None),
            ivp_tangent(fun, ans, t_span, y0, t_eval, args, options, None, None, None, g),
            None)


refuse_varying(ivp_solve, options="Tolerances and step sizes have no derivative; pass "
               "constants.")


_IVP_ADJOINT, _IVP_TANGENT = ("the adjoint of scipy.integrate.solve_ivp",
                              "the tangent of scipy.integrate.solve_ivp")
defunwritten(ivp_grads, _IVP_ADJOINT, ("g", "ans", "t_span", "y0", "t_eval", "args"),
             shape="sequence")
defunwritten(ivp_time_grads, _IVP_ADJOINT, ("g", "ans", "t_span", "y0", "t_eval", "args"))
defunwritten(ivp_span_grads, _IVP_ADJOINT, ("g", "ans", "t_span", "y0", "t_eval", "args",
                                            "a0"))
defunwritten(ivp_tangent, _IVP_TANGENT, ("t_span", "y0", "t_eval", "args", "d_span", "d_y0",
                                         "d_t_eval", "d_args"), shape="sequence")


# the helpers solve with scipy.integrate, on the host: a target with no twin of it refuses them
deffacts(odeint_grads, odeint_time_grads, odeint_tangent, ivp_solve, ivp_grads,
         ivp_time_grads, ivp_span_grads, ivp_tangent, library="scipy.integrate")
