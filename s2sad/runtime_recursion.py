"""Recursion in differentiated code: a call of a function to itself (directly or through
others) cannot be inlined, so the generated code calls it as it is and differentiates the
call through the function's own compiled vector-Jacobian product.

The forward sweep runs the call in plain Python and keeps its arguments
(:func:`recursive_call`); the reverse sweep hands the call's sensitivity to that function's
own adjoint (:func:`recursive_pullback`), compiled once per function and argument kinds,
which does the same for the calls it makes. Each level's adjoint recomputes the forward
sweep of the levels below it, in plain Python: linear recursion of depth ``n`` costs
``O(n**2)`` plain calls. Deep recursion is faster written as a loop.

>>> def power(x, n):
...     return 1.0 if n == 0 else x * power(x, n - 1)
>>> pair = recursive_call(power, (2.0, 3))
>>> recursion_value(pair, (2.0, 3))
8.0
"""

from __future__ import annotations

import weakref

import numpy as np

_VJPS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # func -> {wrt: vjp}
_JVPS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # func -> {wrt: jvp}


def _compiled(cache, make, func, args):
    """``(wrt, make(func, wrt=wrt))`` for the arguments that are numbers, made once per
    function and ``wrt`` (``(), None`` when none is)."""
    wrt = tuple(i for i, a in enumerate(args) if _differentiable(a))
    if not wrt:
        return wrt, None
    per_function = cache.setdefault(func, {})
    if wrt not in per_function:
        per_function[wrt] = make(func, wrt=wrt)
    return wrt, per_function[wrt]


def _differentiable(value) -> bool:
    if isinstance(value, (bool, int, str)) or value is None:
        return False
    if isinstance(value, (float, complex, np.floating, np.complexfloating)):
        return True
    if isinstance(value, (list, tuple)):
        return any(_differentiable(v) for v in value)
    if isinstance(value, dict):
        return any(_differentiable(v) for v in value.values())
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    return kind in ("f", "c")


def recursive_call(func, args: tuple):
    """``(func(*args), what the reverse sweep needs)``: the call, in plain Python."""
    return func(*args), (func, args)


def recursion_value(pair, args: tuple):
    """The value of a :func:`recursive_call` (its adjoint is :func:`recursive_pullback`)."""
    return pair[0]


def recursive_pullback(pair, g) -> tuple:
    """The sensitivity of each argument of the recursive call recorded in ``pair``, given
    the sensitivity ``g`` of its value (``None`` for arguments that are not numbers)."""
    from .api import vjp
    from .runtime_higher import snapshot
    func, args = pair[1]
    wrt, compiled = _compiled(_VJPS, vjp, func, args)
    grads = [None] * len(args)
    if not wrt:
        return tuple(grads)
    found = compiled._call(compiled._variant(tuple(args)).function, tuple(args), snapshot(g))
    for i, grad in zip(wrt, found if isinstance(found, tuple) else (found,), strict=True):
        grads[i] = grad
    return tuple(grads)


def recursive_pushforward(pair, tangents) -> object:
    """Forward mode: the tangent of the value of the recursive call recorded in ``pair``,
    given the tangents of its arguments (a tuple; ``None`` or ``0.0`` where one does not
    vary), through the function's own compiled jvp."""
    from .api import jvp
    from .runtime import zeros_like_structure
    func, args = pair[1]
    if not isinstance(tangents, (tuple, list)):
        tangents = (tangents,) * len(args)
    wrt, compiled = _compiled(_JVPS, jvp, func, args)
    if not wrt:
        return 0.0
    chosen = tuple(zeros_like_structure(args[i]) if tangents[i] is None else tangents[i]
                   for i in wrt)
    return compiled._both(tuple(args), chosen)[1]
