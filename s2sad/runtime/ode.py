"""Derivatives of ``scipy.integrate.odeint`` and ``solve_ivp`` with a user's right-hand side.

Reverse mode is the continuous adjoint method. From the last requested time back to the
first, the state ``y``, its adjoint ``a`` and the parameters' sensitivity ``m`` solve

    y' = f(y, t),    a' = -a^T df/dy,    m' = -a^T df/dargs,

backwards, with the same integrator, method and tolerances as the forward solve. The
integration restarts at each requested time: there ``y`` is reset to the value the forward
solve gave and that time's cotangent is added to ``a``. A requested time ``t_k`` gets
``g_k . f(y_k, t_k)``, the initial time ``-a(t0) . f(y0, t0)``, each computed only where
that time is differentiated (the rules ask for them apart from the sweep). The products
``a^T df/d...`` are s2sad's own vjp of ``f`` (reached through :mod:`s2sad.hooks`).

Forward mode solves the forward sensitivity equations ``s' = df/dy s + df/dargs d_args``
beside ``y``, through s2sad's jvp of ``f``.

>>> import numpy as np
>>> from scipy.integrate import odeint
>>> def decay(y, t, k):
...     return -k * y
>>> t = np.array([0.0, 1.0])
>>> ys = odeint(decay, np.array([1.0]), t, args=(0.5,))
>>> y0_bar, args_bar, _ = odeint_grads(decay, np.array([[0.0], [1.0]]), ys,
...                                    np.array([1.0]), t, (0.5,), {})
>>> bool(np.allclose(y0_bar, np.exp(-0.5), rtol=1e-6))  # d y(1) / d y0
True
>>> bool(np.allclose(args_bar[0], -np.exp(-0.5), rtol=1e-6))  # d y(1) / d k
True
"""

from __future__ import annotations

import numpy as np

from .. import hooks

_TOLERANCES = ("rtol", "atol")
# the right-hand sides' vjps of the last few (function, wrt), kept between gradients (each
# field still reads the module globals afresh, through hooks.variant_function)
_MADE: dict = {}
_KEPT = 32


def _made_vjp(func, wrt):
    """``hooks.make_value_vjp(func, wrt=wrt)``, made once per function and ``wrt`` (of the
    last ``_KEPT``)."""
    vjp = _MADE.get((func, wrt))
    if vjp is None:
        if len(_MADE) >= _KEPT:
            del _MADE[next(iter(_MADE))]
        vjp = _MADE[func, wrt] = hooks.make_value_vjp(func, wrt=wrt)
    return vjp


# --- the user's right-hand side ----------------------------------------------------------


def _varies(value) -> bool:
    """Is ``value`` a number or array of floats (an argument with a derivative)?"""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (float, np.floating)):
        return True
    return getattr(getattr(value, "dtype", None), "kind", None) == "f"


def _holds_numbers(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_holds_numbers(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_numbers(v) for v in value.values())
    return isinstance(value, (float, complex, np.inexact)) or \
        getattr(getattr(value, "dtype", None), "kind", None) in ("f", "c")


def _check_modeled(func, y0, args) -> None:
    """Refuse what the derivatives do not see: a right-hand side that holds values of its
    own (a closure, a bound method, a partial), whose derivatives would be lost, and
    complex values or numbers inside containers among the arguments."""
    import types
    from ..errors import NoDerivativeError
    if not isinstance(func, types.FunctionType) or func.__closure__:
        raise NoDerivativeError(
            "s2sad differentiates an ODE whose right-hand side is a plain function, not "
            f"{type(func).__name__} {getattr(func, '__qualname__', '')}: the values it "
            "holds would have no derivative",
            hint="Define the right-hand side at module level and pass the values it reads "
                 "through args=(...): their derivatives flow through args.")
    for value in (y0, *args):
        if np.iscomplexobj(value) or (isinstance(value, (list, tuple, dict)) and
                                      _holds_numbers(value) and value is not y0):
            raise NoDerivativeError(
                "s2sad differentiates an ODE's state and args given as real arrays and "
                f"floats, not {type(value).__name__} {np.asarray(value).dtype}",
                hint="Pass each parameter in args as a float or a real NumPy array "
                     "(np.array(values)), one item of args each.")


class _Field:
    """The right-hand side ``f`` as the solvers and the derivatives see it: ``f(y, t)``
    with the extra arguments bound, in the order ``tfirst`` says; its vjp and jvp in ``y``
    and the float arguments (``wrt``), made by s2sad once per field and called directly
    (the module globals they read are read once, as the field is made)."""

    def __init__(self, func, y0, args, tfirst: bool):
        _check_modeled(func, y0, args)
        self.func, self.tfirst = func, tfirst
        self.args = tuple(args)
        self.shape = np.shape(y0)
        self.varying = [i for i, a in enumerate(self.args) if _varies(a)]
        self.wrt = (1 if tfirst else 0,) + tuple(2 + i for i in self.varying)
        self._jvp = None
        self._direct = {}  # type(t) -> the generated vjp for these arguments' kinds
        self._shapes = [self.shape] + [np.shape(self.args[i]) for i in self.varying]

    def call_args(self, y, t):
        y = y.reshape(self.shape) if y.shape != self.shape else y
        return (t, y, *self.args) if self.tfirst else (y, t, *self.args)

    def __call__(self, y, t):
        return np.asarray(self.func(*self.call_args(y, t)), dtype=float).reshape(-1)

    def _likes(self, args) -> list:
        """The arguments ``f``'s vjp differentiates, in ``wrt``'s order."""
        return [args[i] for i in self.wrt]

    def sizes(self) -> list:
        return [int(np.size(self.args[i])) for i in self.varying]

    def pull(self, y, t, a):
        """``f``, ``-a^T df/dy`` and ``-a^T df/darg`` for each float argument (the adjoint
        system's right-hand side), one flat array in that order, from one run of ``f``'s
        generated vjp seeded with ``-a`` (a new array: the generated code may write it)."""
        shape = self.shape
        if y.shape != shape:
            y, a = y.reshape(shape), a.reshape(shape)
        args = (t, y, *self.args) if self.tfirst else (y, t, *self.args)
        direct = self._direct.get(type(t))
        if direct is None:  # (the kinds of y and the arguments do not change)
            vjp = _made_vjp(self.func, self.wrt)
            direct = self._direct[type(t)] = hooks.variant_function(vjp, args) or \
                (lambda *both: hooks.call_generated(vjp, both[:-1], both[-1]))
            try:
                value, found = direct(*args, -a)
            except Exception:  # (again through s2sad's call, which names the user's line)
                hooks.call_generated(vjp, args, -a)
                raise
        else:
            value, found = direct(*args, -a)
        return self.joined(args, value, found)

    def joined(self, args, value, found):
        """``value`` and the sensitivities ``found`` of ``f``'s vjp, one flat array."""
        found = found if type(found) is tuple else (found,)
        try:  # (the runtime vjp gives each sensitivity as computed: Options.runtime)
            exact = [part.shape for part in found] == self._shapes
        except AttributeError:  # (a number: a float argument's, or a derivative that is zero)
            exact = list(map(np.shape, found)) == self._shapes
        if not exact:  # (as a user's vjp gives it)
            from .structures import as_gradient
            found = [as_gradient(like, part) for like, part in zip(self._likes(args), found)]
        return np.concatenate((value, *found), axis=None, dtype=float)

    def push(self, y, t, s, d_args) -> tuple:
        """``(f, df/dy s + sum df/darg d_arg)``, flat."""
        if self._jvp is None:
            self._jvp = hooks.make_jvp(self.func, wrt=self.wrt)
        tangents = (s.reshape(self.shape),) + tuple(d_args)
        value, tangent = hooks.push_forward(self._jvp, self.call_args(y, t), tangents)
        return (np.asarray(value, dtype=float).reshape(-1),
                np.asarray(tangent, dtype=float).reshape(-1))


def _widened(options: dict, parts: list) -> dict:
    """``options`` with array tolerances (one per state) spread over an augmented state of
    ``parts`` blocks (each block's size, the first ``n`` the state's own); a scalar stays."""
    out = dict(options)
    for name in _TOLERANCES:
        value = options.get(name)
        if value is None or np.ndim(value) == 0:
            continue
        value = np.asarray(value, dtype=float).ravel()
        out[name] = np.concatenate([value if p == value.size else
                                    np.full(p, value.min()) for p in parts])
    return out


# --- odeint ------------------------------------------------------------------------------


def _odeint(field, z0, t, options, parts):
    from scipy.integrate import odeint
    kept = {k: v for k, v in options.items() if k not in ("Dfun", "col_deriv", "ml", "mu",
                                                          "full_output", "tfirst")}
    out, info = odeint(field, z0, t, full_output=True, **_widened(kept, parts))
    if info.get("message", "").lower().find("successful") < 0:
        raise RuntimeError(f"scipy.integrate.odeint, solving s2sad's adjoint system: "
                           f"{info.get('message')}")
    return out


def odeint_options(rtol, atol, tcrit, h0, hmax, hmin, mxstep, mxordn, mxords, tfirst):
    """The options of an ``odeint`` call its derivatives solve with (the same tolerances
    and step limits), as keywords."""
    return {"rtol": rtol, "atol": atol, "tcrit": tcrit, "h0": h0, "hmax": hmax, "hmin": hmin,
            "mxstep": mxstep, "mxordn": mxordn, "mxords": mxords, "tfirst": tfirst}


def _backward(field, step, ys, g, times):
    """The adjoint sweep over the requested ``times`` (``ys``: the state at each, ``g``:
    each one's cotangent, flat rows), ``step(z, t_from, t_to)`` integrating the augmented
    state. Returns ``(a(times[0]), m)``. The times' own gradients need no sweep: see
    :func:`_moved_times`."""
    n = ys.shape[1]
    a = np.zeros(n)
    m = np.zeros(sum(field.sizes()))
    for k in range(len(times) - 1, -1, -1):
        if np.any(g[k]):
            a = a + g[k]
        if k == 0 or times[k] == times[k - 1]:
            continue
        z = step(np.concatenate([ys[k], a, m]), times[k], times[k - 1])
        a, m = z[n:2 * n], z[2 * n:]
    return a, m


def _moved_times(field, ys, g, times):
    """``g_k . f(y_k, t_k)`` for each requested time ``t_k`` (flat rows ``ys`` and ``g``):
    how the loss moves with the time itself, zero where ``g_k`` is."""
    return np.array([float(np.dot(g[k], field(ys[k], times[k]))) if np.any(g[k]) else 0.0
                     for k in range(len(times))])


def _augmented(field, tfirst: bool = False):
    """The augmented system's right-hand side, ``dynamics(z, t)`` (``dynamics(t, z)``
    where ``tfirst``, as ``solve_ivp`` calls it). After :meth:`_Field.pull`'s first call
    for a type of ``t``, it calls the generated vjp directly."""
    n = int(np.prod(field.shape))
    pull, joined, direct, shapes, rest = \
        field.pull, field.joined, field._direct, field._shapes, field.args
    flat, first = field.shape == (n,), field.tfirst

    def run(t, z):  # (y' = f, a' = -a^T df/dy, m' = -a^T df/dargs)
        vjp = direct.get(type(t)) if flat else None
        if vjp is None:
            return pull(z[:n], t, z[n:2 * n])
        y = z[:n]
        args = (t, y, *rest) if first else (y, t, *rest)
        value, found = vjp(*args, -z[n:2 * n])
        if type(found) is tuple:
            try:
                if [part.shape for part in found] == shapes:
                    return np.concatenate((value, *found), axis=None, dtype=float)
            except AttributeError:
                pass
        return joined(args, value, found)

    if tfirst:
        return run

    def dynamics(z, t):
        return run(t, z)
    return dynamics


def _args_grads(field, m, args) -> tuple:
    """The flat sensitivity ``m`` of the float arguments cut into their shapes (None for
    the others)."""
    out, start = [None] * len(args), 0
    for i, size in zip(field.varying, field.sizes()):
        part = m[start:start + size]
        start += size
        value = args[i]
        out[i] = float(part[0]) if np.ndim(value) == 0 else \
            np.reshape(part, np.shape(value)).astype(np.asarray(value).dtype)
        if np.ndim(value) == 0 and isinstance(value, np.floating):
            out[i] = type(value)(out[i])
    return tuple(out)


def _odeint_rows(func, g, ans, y0, t, args, tfirst):
    """``(field, times, ys, gs)`` of an ``odeint`` call: its times, and the state and
    cotangent at each as flat rows."""
    field = _Field(func, y0, tuple(args), bool(tfirst))
    n = int(np.size(y0))
    times = np.asarray(t, dtype=float)
    ys = np.reshape(np.asarray(ans, dtype=float), (len(times), n))
    gs = np.reshape(np.broadcast_to(np.asarray(g, dtype=float), np.shape(ans)), (len(times), n))
    return field, times, ys, gs


def odeint_grads(func, g, ans, y0, t, args, options):
    """``(y0_bar, args_bar, a0)``: the adjoint of ``ans = odeint(func, y0, t, args,
    **options)`` for its cotangent ``g`` (shaped like ``ans``: one row per time), and the
    adjoint at the first time, flat (for :func:`odeint_time_grads`)."""
    args = tuple(args)
    field, times, ys, gs = _odeint_rows(func, g, ans, y0, t, args, options.get("tfirst"))
    n = ys.shape[1]
    parts = [n, n, sum(field.sizes())]
    dynamics = _augmented(field)

    def step(z, t_from, t_to):
        return _odeint(dynamics, z, np.array([t_from, t_to]), options, parts)[-1]
    a, m = _backward(field, step, ys, gs, times)
    y0_bar = np.reshape(a, np.shape(y0)).astype(np.result_type(np.asarray(y0).dtype, 1.0))
    return y0_bar, _args_grads(field, m, args), a


def odeint_time_grads(func, g, ans, y0, t, args, options, a0):
    """``t_bar``: the gradient of ``ans = odeint(func, y0, t, args, **options)`` in its
    times, ``g_k . f(y_k, t_k)`` at each and ``-a0 . f(y0, t0)`` more at the first
    (``a0``: the adjoint there, from :func:`odeint_grads`). Computed only where ``t``
    is differentiated."""
    field, times, ys, gs = _odeint_rows(func, g, ans, y0, t, args, options.get("tfirst"))
    t_bar = _moved_times(field, ys, gs, times)
    t_bar[0] -= float(np.dot(a0, field(ys[0], times[0])))
    t_bar = t_bar.astype(np.result_type(np.asarray(t).dtype, 1.0)) if np.ndim(t) else t_bar
    return np.reshape(t_bar, np.shape(t))


def odeint_tangent(func, y0, t, args, options, d_y0, d_t, d_args):
    """The tangent of ``odeint(func, y0, t, args, **options)`` along ``d_y0``, ``d_t``
    and ``d_args`` (``None`` or 0 where one does not move): the forward sensitivity
    equations, solved beside the state."""
    args = tuple(args)
    field = _Field(func, y0, args, bool(options.get("tfirst", False)))
    n = int(np.size(y0))
    times = np.asarray(t, dtype=float)
    d_args = _arg_tangents(field, args, d_args)
    s0 = np.zeros(n) if _zero(d_y0) else \
        np.reshape(np.broadcast_to(np.asarray(d_y0, dtype=float), np.shape(y0)), -1).copy()
    d_times = np.zeros(len(times)) if _zero(d_t) else \
        np.broadcast_to(np.asarray(d_t, dtype=float), times.shape)
    y0_flat = np.reshape(np.asarray(y0, dtype=float), -1)
    s0 = s0 - field(y0_flat, times[0]) * d_times[0]

    def dynamics(z, t_now):
        value, tangent = field.push(z[:n], t_now, z[n:], d_args)
        return np.concatenate([value, tangent])
    z = _odeint(dynamics, np.concatenate([y0_flat, s0]), times, options, [n, n])
    out = np.stack([z[k, n:] + field(z[k, :n], times[k]) * d_times[k]
                    for k in range(len(times))]) if np.any(d_times) else z[:, n:]
    out[0] = np.reshape(np.broadcast_to(0.0 if _zero(d_y0) else d_y0, np.shape(y0)), -1)
    return np.reshape(out, (len(times),) + np.shape(y0))


def _zero(value) -> bool:
    if value is None:
        return True
    if isinstance(value, (list, tuple)):
        return False
    return np.ndim(value) == 0 and value == 0


def _arg_tangents(field, args, d_args) -> tuple:
    """One tangent per float argument (zeros where none moves), for the field's jvp."""
    if _zero(d_args):
        d_args = (None,) * len(args)
    return tuple(np.zeros(np.shape(args[i])) if i >= len(d_args) or _zero(d_args[i]) else
                 np.broadcast_to(np.asarray(d_args[i], dtype=float), np.shape(args[i]))
                 for i in field.varying)


# --- solve_ivp -------------------------------------------------------------------------------


_FIELDS = ("t", "y", "sol", "t_events", "y_events", "nfev", "njev", "nlu", "status", "message",
           "success")


class IvpSolution(tuple):
    """What ``scipy.integrate.solve_ivp`` returns, its fields read by name (``sol.y``) or
    by key (``sol["y"]``); in differentiated code, by position too."""

    __slots__ = ()
    _fields = _FIELDS

    def __new__(cls, found):
        return tuple.__new__(cls, tuple(found.get(name) for name in _FIELDS))

    def __getattr__(self, name):
        if name in _FIELDS:
            return tuple.__getitem__(self, _FIELDS.index(name))
        raise AttributeError(name)

    def __getitem__(self, key):
        if isinstance(key, str):
            return tuple.__getitem__(self, _FIELDS.index(key))
        return tuple.__getitem__(self, key)

    def keys(self):
        return list(_FIELDS)


def ivp_options(method, rtol, atol, first_step, max_step):
    """The options of a ``solve_ivp`` call its derivatives solve with, as keywords."""
    out = {"method": method, "rtol": rtol, "atol": atol, "max_step": max_step}
    if first_step is not None:
        out["first_step"] = first_step
    return out


def ivp_solve(fun, t_span, y0, t_eval, args, options):
    """``scipy.integrate.solve_ivp(fun, t_span, y0, t_eval=t_eval, args=args, **options)``,
    as an :class:`IvpSolution`."""
    from scipy.integrate import solve_ivp
    return IvpSolution(solve_ivp(fun, t_span, y0, t_eval=t_eval, args=args, **options))


def _solve_ivp(fun, t_span, z0, options, parts, t_eval=None):
    from scipy.integrate import solve_ivp
    kept = {k: v for k, v in options.items() if k != "method"}
    sol = solve_ivp(fun, t_span, z0, method=options.get("method", "RK45"), t_eval=t_eval,
                    **_widened(kept, parts))
    if not sol.success:
        raise RuntimeError("scipy.integrate.solve_ivp, solving s2sad's derivative system: "
                           f"{sol.message}")
    return sol


def _item(g, i):
    """Item ``i`` of a sequence's cotangent or tangent (None where nothing flowed)."""
    if g is None or not isinstance(g, (tuple, list)):
        return None
    part = g[i] if i < len(g) else None
    return None if _zero(part) else part


def _ivp_rows(fun, g, ans, t_span, y0, args):
    """``(field, times, ys, gs, shift)`` of a ``solve_ivp`` call: its times with
    ``t_span[0]`` first (``shift`` 1 where the solution does not start there), and the
    state and the cotangent of ``y`` at each as flat rows."""
    g_y = _item(g, 1)
    field = _Field(fun, y0, args, True)
    n = int(np.size(y0))
    times = np.asarray(ans[0], dtype=float)
    y_out = np.reshape(np.asarray(ans[1], dtype=float), (n, len(times)))
    t0 = float(t_span[0])
    shift = 1 if len(times) == 0 or times[0] != t0 else 0
    times = np.concatenate([[t0], times]) if shift else times
    ys = np.concatenate([np.reshape(np.asarray(y0, dtype=float), (1, n)), y_out.T]) \
        if shift else y_out.T
    gs = np.zeros((len(times), n))
    if g_y is not None:
        gs[shift:] = np.reshape(np.broadcast_to(np.asarray(g_y, dtype=float),
                                                np.shape(ans[1])), (n, -1)).T
    return field, times, ys, gs, shift


def ivp_grads(fun, g, ans, t_span, y0, t_eval, args, options):
    """``(y0_bar, args_bar, a0)``: the adjoint of ``ans = ivp_solve(fun, t_span, y0,
    t_eval, args, options)`` for the cotangent ``g`` of its ``t`` and ``y`` (items 0 and
    1), and the adjoint at ``t_span[0]``, flat (for :func:`ivp_span_grads`). The times'
    gradients are :func:`ivp_time_grads` and :func:`ivp_span_grads`."""
    args = () if args is None else tuple(args)
    field, times, ys, gs, _ = _ivp_rows(fun, g, ans, t_span, y0, args)
    n = ys.shape[1]
    parts = [n, n, sum(field.sizes())]
    dynamics = _augmented(field, tfirst=True)

    def step(z, t_from, t_to):
        return _solve_ivp(dynamics, (t_from, t_to), z, options, parts).y[:, -1]
    a, m = _backward(field, step, ys, gs, times)
    y0_bar = np.reshape(a, np.shape(y0)).astype(np.result_type(np.asarray(y0).dtype, 1.0))
    args_bar = _args_grads(field, m, args) if args else None
    return y0_bar, args_bar, a


def _ivp_moved(fun, g, ans, t_span, y0, args):
    """``(field, times, ys, t_bar, shift)``: each returned time's gradient, from ``y``'s
    cotangent and ``t``'s own."""
    args = () if args is None else tuple(args)
    field, times, ys, gs, shift = _ivp_rows(fun, g, ans, t_span, y0, args)
    t_bar = _moved_times(field, ys, gs, times)[shift:]
    g_t = _item(g, 0)
    if g_t is not None:
        t_bar = t_bar + np.broadcast_to(np.asarray(g_t, dtype=float), t_bar.shape)
    return field, times, ys, t_bar, shift


def ivp_time_grads(fun, g, ans, t_span, y0, t_eval, args):
    """``t_eval_bar``: the gradient of ``ans = ivp_solve(fun, t_span, y0, t_eval, args,
    options)`` in its requested times, ``g_k . f(y_k, t_k)`` (and ``t``'s own cotangent)
    at each; None without ``t_eval``. Computed only where ``t_eval`` is differentiated."""
    if t_eval is None:
        return None
    t_bar = _ivp_moved(fun, g, ans, t_span, y0, args)[3]
    return np.reshape(t_bar, np.shape(t_eval))


def ivp_span_grads(fun, g, ans, t_span, y0, t_eval, args, a0):
    """``t_span_bar``: the gradient of ``ans = ivp_solve(fun, t_span, y0, t_eval, args,
    options)`` in ``t_span``: ``-a0 . f(y0, t0)`` at the start (``a0``: the adjoint there,
    from :func:`ivp_grads`); without ``t_eval``, the first and last returned times' own
    (those between are the solver's, held fixed)."""
    field, times, ys, t_bar, _ = _ivp_moved(fun, g, ans, t_span, y0, args)
    t0_bar = -float(np.dot(a0, field(ys[0], times[0])))
    if t_eval is not None:
        span_bar = (t0_bar, 0.0)
    else:
        span_bar = (t0_bar + t_bar[0], t_bar[-1]) if len(t_bar) > 1 else \
            (t0_bar + t_bar[0], 0.0)
    if isinstance(t_span, np.ndarray):
        return np.array(span_bar)
    return list(span_bar) if isinstance(t_span, list) else span_bar


def ivp_tangent(fun, ans, t_span, y0, t_eval, args, options, d_span, d_y0, d_t_eval, d_args):
    """The tangent of ``ans = ivp_solve(fun, t_span, y0, t_eval, args, options)`` (its
    ``t`` and ``y``; the other fields do not move) along the tangents of ``t_span``,
    ``y0``, ``t_eval`` and ``args`` (None where one does not move): the forward
    sensitivity equations, solved beside the state."""
    from .higher import Parts
    args = () if args is None else tuple(args)
    field = _Field(fun, y0, args, True)
    n = int(np.size(y0))
    args_move = not (_zero(d_args) or all(_zero(d) for d in d_args))
    d_args = _arg_tangents(field, args, d_args)
    t0 = float(t_span[0])
    d_t0 = 0.0 if _zero(d_span) else float(np.asarray(d_span, dtype=float)[0])
    y0_flat = np.reshape(np.asarray(y0, dtype=float), -1)
    s0 = np.zeros(n) if _zero(d_y0) else \
        np.reshape(np.broadcast_to(np.asarray(d_y0, dtype=float), np.shape(y0)), -1).copy()
    s0 = s0 - field(y0_flat, t0) * d_t0
    times = np.asarray(ans[0], dtype=float)
    if t_eval is not None:
        d_times = np.zeros(len(times)) if _zero(d_t_eval) else \
            np.reshape(np.broadcast_to(np.asarray(d_t_eval, dtype=float), np.shape(t_eval)), -1)
    else:
        d_times = np.zeros(len(times))
        if not _zero(d_span):
            d_times[0] = float(np.asarray(d_span, dtype=float)[0])
            if len(times) > 1:
                d_times[-1] = float(np.asarray(d_span, dtype=float)[1])
    if _zero(d_y0) and not args_move and not d_t0:
        s = np.zeros((n, len(times)))
        ys = np.reshape(np.asarray(ans[1], dtype=float), (n, len(times)))
    else:
        def dynamics(t_now, z):
            value, tangent = field.push(z[:n], t_now, z[n:], d_args)
            return np.concatenate([value, tangent])
        sol = _solve_ivp(dynamics, (t0, float(t_span[1])), np.concatenate([y0_flat, s0]),
                         options, [n, n], t_eval=times)
        s, ys = sol.y[n:], sol.y[:n]
    if np.any(d_times):
        s = s + np.stack([field(ys[:, k], times[k]) for k in range(len(times))],
                         axis=1) * d_times
    d_t = d_times if (t_eval is not None and not _zero(d_t_eval)) or \
        (t_eval is None and np.any(d_times)) else 0.0
    return Parts((d_t, np.reshape(s, np.shape(ans[1]))) + (0.0,) * (len(_FIELDS) - 2))
