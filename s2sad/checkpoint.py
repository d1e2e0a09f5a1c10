"""``s2sad.checkpoint``: recompute a function's values in the reverse sweep.

A checkpointed function is not inlined into the function differentiated: its call
stays a call, and its derivative rules (a vjp and a jvp, registered for the wrapper)
run s2sad's own derivative of it at that call (:func:`s2sad.runtime.higher.checkpoint_grads`).
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import sys
from typing import Callable

from . import registry
from .runtime.higher import checkpoint_grads, checkpoint_tangent, checkpoint_value
from .runtime.structures import repeated
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
    if isinstance(func, _Checkpointed) or getattr(func, "__s2sad_checkpoint__", False):
        return func
    FunctionSource.of(func)  # it must have source: its vjp is compiled from it
    signature = inspect.signature(func)
    defaults = []
    for p in signature.parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise TypeError(f"s2sad.checkpoint({func.__qualname__}): only positional "
                            f"parameters are supported, not {p}")
        if p.default is not p.empty:
            if not _literal(p.default):
                raise TypeError(f"s2sad.checkpoint({func.__qualname__}): the default of "
                                f"{p.name!r} must be a number, a string, None or a tuple of "
                                "them")
            defaults.append(p.default)
    names = list(signature.parameters)
    if any(n in ("g", "ans") for n in names):
        raise TypeError(f"s2sad.checkpoint({func.__qualname__}): rename the parameters "
                        "named g or ans")

    @functools.wraps(func)
    def checkpointed(*args, **kwargs):
        if repeated() and not kwargs:  # (in a run again: its state changes ran already)
            return checkpoint_value(func, args)
        return func(*args, **kwargs)
    checkpointed.__s2sad_checkpoint__ = True

    stem = func.__name__
    text = ast.unparse(ast.fix_missing_locations(rules_tree(stem, names, defaults))) + "\n"
    filename = f"<s2sad checkpoint of {func.__module__}.{func.__qualname__} {id(func):x}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"checkpoint_grads": checkpoint_grads, "checkpoint_tangent": checkpoint_tangent,
                 stem: func, "__name__": "s2sad.checkpoints"}
    exec(compile(text, filename, "exec"), namespace)
    registry.custom_vjp(checkpointed)(namespace[f"checkpoint_vjp_{stem}"])
    registry.custom_jvp(checkpointed)(namespace[f"checkpoint_jvp_{stem}"])
    return checkpointed


def rules_tree(stem: str, names: list[str], defaults: list) -> ast.Module:
    """The derivative rules of a checkpointed function ``stem(*names)`` (``defaults``: those
    of its last parameters), as a tree: their text is read back where they are inlined.

    >>> print(ast.unparse(ast.fix_missing_locations(rules_tree("step", ["h", "w"], [0.5]))))
    def checkpoint_vjp_step(g, ans, h, w=0.5):
        grads = checkpoint_grads(step, g, (h, w))
        return (grads[0], grads[1])
    <BLANKLINE>
    def checkpoint_jvp_step(g, ans, h, w=0.5):
        return (checkpoint_tangent(step, (h, w), 0, g), checkpoint_tangent(step, (h, w), 1, g))
    """
    def name(text: str, ctx=ast.Load):
        return ast.Name(text, ctx())

    def parameters():
        return ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in ("g", "ans", *names)],
                             vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                             defaults=[ast.Constant(value) for value in defaults])

    def arguments():
        return ast.Tuple([name(n) for n in names], ast.Load())

    def returned(items: list):
        return ast.Return(None if not items else items[0] if len(items) == 1 else
                          ast.Tuple(items, ast.Load()))

    def function(kind: str, body: list):
        return ast.FunctionDef(f"checkpoint_{kind}_{stem}", parameters(), body, [], None, None,
                               **({"type_params": []} if sys.version_info >= (3, 12) else {}))

    grads = ast.Assign([name("grads", ast.Store)], ast.Call(
        name("checkpoint_grads"), [name(stem), name("g"), arguments()], []))
    vjp = function("vjp", [grads, returned([
        ast.Subscript(name("grads"), ast.Constant(i), ast.Load()) for i in range(len(names))])])
    jvp = function("jvp", [returned([
        ast.Call(name("checkpoint_tangent"),
                 [name(stem), arguments(), ast.Constant(i), name("g")], [])
        for i in range(len(names))])])
    return ast.Module([vjp, jvp], [])


def _literal(value) -> bool:
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return True
    return isinstance(value, tuple) and all(_literal(v) for v in value)
