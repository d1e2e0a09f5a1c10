"""How derivative rules are registered and looked up.

A rule is an ordinary Python function ``adjoint(g, ans, *args, **kwargs)`` that
returns the contribution of ``g`` (the sensitivity of ``ans``) to each
differentiable argument, in order, as one expression (``None`` meaning zero).
It can be called directly with arrays, and the compiler inlines its ``return``
expression into the generated source, so rules read like the code they produce:

>>> import numpy as np, s2sad
>>> rule = lookup(np.sin)
>>> rule.adjoint(2.0, np.sin(0.0), 0.0)
np.float64(2.0)
>>> rule.parameters
('g', 'ans', 'x')

``shape`` tells the compiler how the result's shape relates to the arguments':
``"elementwise"`` (the broadcast of all the array arguments, positional and
keyword), ``"scalar"`` (always a scalar), ``"reduce"`` (a scalar when called
without ``axis`` and without ``keepdims``), ``"sequence"`` (a list or tuple of
arrays, like ``np.split``: the rule's ``g`` is then a list) or ``"other"``. A
wrong ``"elementwise"`` makes the compiler drop a needed ``unbroadcast``; when
unsure, say ``"other"``.
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Callable

import gast

SHAPES = ("elementwise", "scalar", "reduce", "sequence", "other")


@dataclass
class Rule:
    func: object
    adjoint: Callable | None
    shape: str
    differentiable: bool = True
    _parsed: tuple | None = field(default=None, repr=False)

    @property
    def parameters(self) -> tuple[str, ...]:
        return tuple(inspect.signature(self.adjoint).parameters)

    @property
    def name(self) -> str:
        return describe_function(self.func)

    def parsed(self) -> tuple[list, object]:
        """``(statements before the return, returned expression)`` of the adjoint, as gast."""
        if self._parsed is None:
            source = textwrap.dedent(inspect.getsource(self.adjoint))
            tree = gast.parse(source).body[0]
            body = [s for s in tree.body
                    if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant))]
            if not body or not isinstance(body[-1], gast.Return) or \
                    not all(isinstance(s, gast.Assign) for s in body[:-1]):
                raise TypeError(f"rule {self.adjoint.__qualname__} must be assignments "
                                "followed by one `return`")
            self._parsed = (body[:-1], body[-1].value)
        return self._parsed


_RULES: dict[object, Rule] = {}


def _key(func):
    try:
        hash(func)
        return func
    except TypeError:
        return id(func)


def defvjp(*funcs, shape: str = "elementwise"):
    """Register the decorated function as the adjoint rule of each of ``funcs``."""
    assert shape in SHAPES, shape

    def register(adjoint):
        for func in funcs:
            _RULES[_key(func)] = Rule(func, adjoint, shape)
        return adjoint
    return register


def nondifferentiable(*funcs, shape: str = "other"):
    """Declare ``funcs`` to have a zero derivative (integer valued, boolean, shapes...)."""
    assert shape in SHAPES, shape
    for func in funcs:
        _RULES[_key(func)] = Rule(func, None, shape, differentiable=False)


def lookup(func) -> Rule | None:
    try:
        return _RULES.get(_key(func))
    except TypeError:
        return None


def registered() -> list[Rule]:
    return list(_RULES.values())


def describe_function(func) -> str:
    module = getattr(func, "__module__", None) or ""
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
    if module.startswith("numpy"):
        module = "numpy" if module in ("numpy", "numpy._core.umath", "numpy.core.umath") else module
        if module.startswith("numpy._core") or module.startswith("numpy.core"):
            module = "numpy"
    if module in ("builtins", "_operator", ""):
        return name
    return f"{module}.{name}"
