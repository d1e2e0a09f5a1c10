"""``s2sad.checkpoint``: recompute a function's values in the reverse sweep.

A checkpointed function is not inlined into the function differentiated: its call
stays a call, and its derivative rules (a vjp and a jvp, registered for the wrapper)
run s2sad's own derivative of it at that call (:func:`s2sad.runtime_higher.checkpoint_grads`).
"""

from __future__ import annotations

import inspect
from typing import Callable

from .source import FunctionSource


class _Checkpointed:
    """Marks the wrapper functions ``checkpoint`` makes."""


def checkpoint(func: Callable):
    """Recompute ``func``'s intermediate values in the reverse sweep instead of recording them.

    Calls of the returned function inside a differentiated function are not inlined: the
    forward sweep calls ``func`` as plain Python (nothing recorded inside it) and the
    reverse sweep runs ``s2sad.vjp(func)`` at that call: ``func`` computed again, this time
    recording, then its own reverse sweep. Memory: only the call's arguments are kept (and
    in a loop, one set per pass) instead of everything ``func`` computes; time: one more
    forward run of ``func``. Its rule appears in the generated source as a call of
    ``checkpoint_grads``. Forward mode (``jvp``) works through it too; a derivative of a
    derivative does not yet.

    Args:
        func: a function defined in a .py file (positional parameters; defaults must be
            numbers, strings, ``None`` or tuples of them).

    Returns:
        A function that computes what ``func`` computes.

    Example:
        >>> import numpy as np, s2sad
        >>> def step(h, w):
        ...     return np.tanh(w * h + 0.5)
        >>> step_ = s2sad.checkpoint(step)
        >>> def f(h, w):
        ...     for _ in range(3):
        ...         h = step_(h, w)
        ...     return np.sum(h)
        >>> def g(h, w):
        ...     for _ in range(3):
        ...         h = step(h, w)
        ...     return np.sum(h)
        >>> h = np.array([0.1, -0.2])
        >>> np.allclose(s2sad.grad(f, wrt=1)(h, 0.7), s2sad.grad(g, wrt=1)(h, 0.7))
        True
        >>> "checkpoint_grads" in s2sad.grad(f).source
        True
    """
    import functools
    import linecache
    from . import registry
    from .runtime_higher import checkpoint_grads, checkpoint_tangent

    if isinstance(func, _Checkpointed) or getattr(func, "__s2sad_checkpoint__", False):
        return func
    FunctionSource.of(func)  # it must have source: its vjp is compiled from it
    signature = inspect.signature(func)
    params = []
    for p in signature.parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise TypeError(f"s2sad.checkpoint({func.__qualname__}): only positional "
                            f"parameters are supported, not {p}")
        if p.default is not p.empty:
            if not _literal(p.default):
                raise TypeError(f"s2sad.checkpoint({func.__qualname__}): the default of "
                                f"{p.name!r} must be a number, a string, None or a tuple of "
                                "them")
            params.append(f"{p.name}={p.default!r}")
        else:
            params.append(p.name)
    names = [p for p in signature.parameters]
    if any(n in ("g", "ans") for n in names):
        raise TypeError(f"s2sad.checkpoint({func.__qualname__}): rename the parameters "
                        "named g or ans")

    @functools.wraps(func)
    def checkpointed(*args, **kwargs):
        return func(*args, **kwargs)
    checkpointed.__s2sad_checkpoint__ = True

    stem = func.__name__
    args_tuple = "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
    tangents = [f"checkpoint_tangent({stem}, {args_tuple}, {i}, g)" for i in range(len(names))]
    text = (f"def checkpoint_vjp_{stem}(g, ans, {', '.join(params)}):\n"
            f"    grads = checkpoint_grads({stem}, g, {args_tuple})\n"
            f"    return {', '.join(f'grads[{i}]' for i in range(len(names)))}\n\n\n"
            f"def checkpoint_jvp_{stem}(g, ans, {', '.join(params)}):\n"
            f"    return {', '.join(tangents)}\n")
    filename = f"<s2sad checkpoint of {func.__module__}.{func.__qualname__} {id(func):x}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"checkpoint_grads": checkpoint_grads, "checkpoint_tangent": checkpoint_tangent,
                 stem: func, "__name__": "s2sad.checkpoints"}
    exec(compile(text, filename, "exec"), namespace)
    registry.custom_vjp(checkpointed)(namespace[f"checkpoint_vjp_{stem}"])
    registry.custom_jvp(checkpointed)(namespace[f"checkpoint_jvp_{stem}"])
    return checkpointed


def _literal(value) -> bool:
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return True
    return isinstance(value, tuple) and all(_literal(v) for v in value)
