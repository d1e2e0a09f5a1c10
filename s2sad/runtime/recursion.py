"""Recursion in differentiated code: a call of a function to itself (directly or through
others) cannot be inlined, so the generated code calls it as it is and differentiates the
call through the function's own compiled vector-Jacobian product.

The forward sweep runs the call in plain Python and keeps its arguments
(:func:`recursive_call`); the reverse sweep hands the call's sensitivity to that function's
own adjoint (:func:`recursive_pullback`), compiled once per function and argument kinds,
which does the same for the calls it makes. Each level's adjoint recomputes the forward
sweep of the levels below it, in plain Python: linear recursion of depth ``n`` costs
``O(n**2)`` plain calls. Deep recursion is faster written as a loop.

Each helper takes the call's arguments explicitly, so that a second derivative sees what
the call's sensitivity depends on: through its own sensitivity, and through the
arguments, :func:`recursive_pullback_in_args` (the function's vjp differentiated again).

>>> def power(x, n):
...     return 1.0 if n == 0 else x * power(x, n - 1)
>>> pair = recursive_call(power, (2.0, 3))
>>> recursion_value(pair, (2.0, 3))
8.0
>>> recursive_pullback(pair, 1.0, (2.0, 3))  # 3 * x ** 2, nothing for n
(12.0, None)
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import hooks

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


def as_called(value, memo: dict | None = None):
    """A copy of the lists, dicts, sets and tuples in ``value``, holding the same arrays,
    numbers and objects: what a recursive call was given, which its derivative reads
    again later, after the caller may have changed a list in place (``ys.append(v)``).
    (An array changed in place is put back by the reverse sweep's tape; an object's state
    changed later is refused, :mod:`s2sad.transforms.call_cycles`.)

    >>> ys = [1.0, np.zeros(2)]
    >>> held = as_called((ys, 3))
    >>> ys.append(2.0)
    >>> len(held[0]), held[0][1] is ys[1]
    (2, True)
    """
    memo = {} if memo is None else memo
    if id(value) in memo:
        return memo[id(value)]
    if type(value) is list:
        copied = memo[id(value)] = []
        copied.extend(as_called(item, memo) for item in value)
    elif type(value) is dict:
        copied = memo[id(value)] = {}
        copied.update((key, as_called(item, memo)) for key, item in value.items())
    elif type(value) in (set, frozenset):
        copied = type(value)(value)
    elif type(value) is tuple:
        copied = tuple(as_called(item, memo) for item in value)
    elif isinstance(value, tuple) and hasattr(value, "_make"):  # (a namedtuple)
        copied = value._make(as_called(item, memo) for item in value)
    elif isinstance(value, (list, dict, set)):  # (a subclass: copied as it copies itself)
        import copy
        copied = copy.copy(value)
    else:
        return value
    memo[id(value)] = copied
    return copied


def _drawn_from(value, depth: int = 0):
    """A random generator or an iterator ``value`` holds (in a list, a tuple, a dict or
    an object's attributes, a few levels deep), which a second run would draw anew from;
    else None."""
    import random
    import types
    from collections.abc import Iterator
    if isinstance(value, (np.random.Generator, np.random.RandomState, np.random.BitGenerator,
                          random.Random, Iterator)):
        return value
    if depth > 3 or isinstance(value, (str, bytes, np.ndarray, np.generic, int, float,
                                       types.ModuleType)):
        return None
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
    elif isinstance(value, dict):
        items = list(value.values())
    elif isinstance(getattr(value, "__dict__", None), dict) and not callable(value) and \
            not isinstance(value, type):
        items = list(vars(value).values())
    else:
        return None
    return next((found for item in items for found in [_drawn_from(item, depth + 1)]
                 if found is not None), None)


def recursive_call(func, args: tuple):
    """``(func(*args), what the reverse sweep needs)``: the call, in plain Python, and
    what it was given as it was given (:func:`as_called`), which the helpers below read
    in place of their ``args``. Refused where it is given a random generator or an
    iterator: its derivative runs the call again, which would draw anew."""
    drawn = _drawn_from(args)
    if drawn is not None:
        from ..errors import DifferentiationError
        raise DifferentiationError(
            f"a recursive call of {getattr(func, '__qualname__', func)}() given "
            f"{type(drawn).__name__!r}, a random generator or an iterator: s2sad runs a "
            "recursive call in plain Python, and its derivative runs the levels below each "
            "call again, which would draw from it anew",
            hint="Draw the numbers before the recursion and pass them as an argument "
                 "(noise = rng.normal(size=n)), or write the recursion as a loop.")
    given = as_called(args)
    return func(*args), (func, given)


def same_method(obj, name: str, func):
    """``obj``, once checked that ``obj.name`` is ``func`` bound to it, as Python finds it:
    ``func`` in the class, no attribute of the object's own of that name, and no
    ``__getattr__`` nor ``__getattribute__`` of the class's own. What a recursive
    method called on an object known only when it runs (a child node) needs, so that
    the call is ``func(obj, ...)``.

    >>> class Node:
    ...     def total(self):
    ...         return 1.0
    >>> n = Node()
    >>> same_method(n, "total", Node.total) is n
    True
    """
    cls = type(obj)
    import inspect
    found = inspect.getattr_static(cls, name, None)
    if found is not func or name in getattr(obj, "__dict__", {}) or \
            cls.__getattribute__ is not object.__getattribute__ or \
            getattr(cls, "__getattr__", None) is not None:
        from ..errors import NoDerivativeError
        raise NoDerivativeError(
            f"a recursive call of {func.__qualname__}() on an object whose "
            f".{name} is another function ({cls.__qualname__}): s2sad follows a recursive "
            f"method through objects of the classes whose .{name} is this same function",
            hint=f"Give {cls.__qualname__} the same method, or call the function directly "
                 f"({func.__qualname__}(node, ...)).")
    return obj


def recursion_value(pair, args: tuple):
    """The value of a :func:`recursive_call` (its adjoint is :func:`recursive_pullback`).
    ``args`` are the call's arguments again: what the value depends on, for a derivative."""
    return pair[0]


def _none_given(args) -> list:
    """One item per argument, for those the derivative does not give: ``None``, or zeros
    shaped like a list with no numbers (``ls[1:]`` at the bottom of the recursion), which
    the caller's adjoint of the slice reads item by item."""
    from . import zeros_like_structure
    return [zeros_like_structure(a) if isinstance(a, (list, tuple, dict)) else None
            for a in args]


def recursive_pullback(pair, g, args: tuple) -> tuple:
    """The sensitivity of each argument of the recursive call recorded in ``pair``, given
    the sensitivity ``g`` of its value (``None`` for arguments that are not numbers).
    ``args`` are the call's arguments, passed again so that a derivative of this
    sensitivity sees that it depends on them; their values are read from ``pair``, as
    the call was given them."""
    from .higher import snapshot
    func, args = pair[1]
    wrt, compiled = _compiled(_VJPS, hooks.make_vjp, func, args)
    grads = _none_given(args)
    if not wrt:
        return tuple(grads)
    found = hooks.call_generated(compiled, tuple(args), snapshot(g))
    for i, grad in zip(wrt, found if isinstance(found, tuple) else (found,), strict=True):
        grads[i] = grad
    return tuple(grads)


def _own_vjp(pair, args: tuple):
    """``(wrt, the generated vjp function of the recursive function for args' kinds)``:
    what a second derivative of :func:`recursive_pullback` differentiates again."""
    wrt, compiled = _compiled(_VJPS, hooks.make_vjp, *pair[1])
    if not wrt:
        return wrt, None
    return wrt, hooks.generated_function(compiled, tuple(args))


def _chosen(values, wrt, args):
    """The items ``wrt`` of a tuple of sensitivities or tangents, zeros where none came,
    or where all are zeros (shaped as the call was given its arguments: ``args``, not
    as a list the caller appended to since, whose zero tangent was made later)."""
    from . import zeros_like_structure
    from .higher import broadcast_like
    if not isinstance(values, (tuple, list)):
        values = (values,) * len(args)
    return tuple(zeros_like_structure(args[i]) if values[i] is None or _zeros(values[i])
                 else broadcast_like(values[i], args[i]) for i in wrt)


def _zeros(value) -> bool:
    """Is ``value`` zeros, in a list, a tuple or a dict of them (not an empty one)?"""
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_zeros(item) for item in value)
    if isinstance(value, dict):
        return bool(value) and all(_zeros(item) for item in value.values())
    if isinstance(value, (int, float, complex, np.number)):
        return value == 0
    return False


def recursive_pullback_in_args(pair, h, g, args: tuple) -> tuple:
    """The adjoint of ``recursive_pullback(pair, h, args)`` in ``args``, for the
    sensitivity ``g`` of its result: the function's vjp differentiated again (its own
    vjp, compiled once per function and argument kinds). One item per argument."""
    from .higher import snapshot
    args = pair[1][1]
    wrt, own = _own_vjp(pair, args)
    grads = _none_given(args)
    if not wrt:
        return tuple(grads)
    twice = hooks.make_vjp(own, wrt=wrt)
    found = hooks.call_generated(twice, (*args, snapshot(h)), _chosen(g, wrt, args))
    for i, grad in zip(wrt, found, strict=True):
        grads[i] = grad
    return tuple(grads)


def recursive_pullback_along_args(pair, h, tangents, args: tuple) -> tuple:
    """The tangent of ``recursive_pullback(pair, h, args)`` along ``tangents`` of
    ``args``: the function's vjp differentiated in forward mode. One item per argument."""
    from .higher import Parts
    args = pair[1][1]
    wrt, own = _own_vjp(pair, args)
    out = _none_given(args)
    if not wrt:
        return tuple(out)
    along = hooks.make_jvp(own, wrt=wrt)
    found = hooks.push_forward(along, (*args, h), _chosen(tangents, wrt, args))[1]
    for i, tangent in zip(wrt, found, strict=True):
        out[i] = tangent
    return Parts(out)  # (added to the tangent in h item by item)


def recursive_pushforward(pair, tangents, args: tuple) -> object:
    """Forward mode: the tangent of the value of the recursive call recorded in ``pair``,
    given the tangents of its arguments ``args`` (a tuple; ``None`` or ``0.0`` where one
    does not vary), through the function's own compiled jvp."""
    func, args = pair[1]
    wrt, compiled = _compiled(_JVPS, hooks.make_jvp, func, args)
    if not wrt:
        return 0.0
    return hooks.push_forward(compiled, tuple(args), _chosen(tangents, wrt, args))[1]
