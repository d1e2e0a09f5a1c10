"""Give each gradient its argument's form directly where the argument's kind is known.

``as_gradient(x, g)`` works for any argument (it matches shapes, dtypes and
containers at run time); when the compiler knows ``x`` is a Python float, or a
list or tuple of Python floats, the conversion is written out instead:
``float(g)``, ``[float(g_0), float(g_1)]``; a dict of sensitivities given one by one
(``SplitDicts``) item by item.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.transforms.kinds import from_descriptor
>>> fn = gast.parse('''def g(p, x):
...     return (as_gradient(p, [s_a, s_b]), as_gradient(x, s_x))''').body[0]
>>> kinds = {"p": from_descriptor(("list", ("float", "float")), "p"),
...          "x": from_descriptor("float", "x")}
>>> print(unparse(GradientForm(kinds, "as_gradient").visit(fn)))
def g(p, x):
    return ([float(s_a), float(s_b)], float(s_x))
"""

from __future__ import annotations

import gast
import numpy as np

from .. import registry, trees
from ..trees import located
from .aliasing import uncopied


def _py_float(kind) -> bool:
    return kind is not None and kind.tag == "scalar" and kind.py == "float"


class GradientForm(trees.Transformer):
    """``fresh``: names the function's last top-level statements computed as new arrays;
    ``fresh_gradient()`` gives the generated name of the helper that returns them as
    they are (no copy). ``raw``: an array argument's sensitivity is returned as computed,
    for the runtime that reads it at once and checks its shape (``Options.runtime``)."""

    def __init__(self, kinds: dict, as_gradient: str | None, float_name: str = "float",
                 fresh: set | None = None, fresh_gradient=None, raw: bool = False,
                 floats: bool = True):
        # the builtins float, map, list and tuple must not be shadowed where this is used
        self.kinds = kinds
        # (False on a lazy target, Dask's: float(g) of a Dask value computes it at once, the
        # forward sweep again; as_gradient leaves it to the one compute of all gradients)
        self.floats = floats
        self.as_gradient = as_gradient
        self.float_name = float_name
        self.fresh = fresh or set()
        self.fresh_gradient = fresh_gradient
        self.raw = raw

    def visit_FunctionDef(self, node):
        # the gradients are built in the top-level return (``Reverse._result``): the other
        # statements, thousands of nodes in a long function, have no call to rewrite
        node.body = [self.visit(stmt) if isinstance(stmt, gast.Return) else stmt
                     for stmt in node.body]
        return node

    def _float(self, value):
        return gast.Call(gast.Name(self.float_name, gast.Load(), None, None), [value], [])

    def visit_Call(self, node):
        self.generic_visit(node)
        if not (isinstance(node.func, gast.Name) and node.func.id == self.as_gradient and
                len(node.args) == 2 and isinstance(node.args[0], gast.Name)):
            return node
        return self.form(self.kinds.get(node.args[0].id), node)

    def form(self, kind, node):
        """``node``, a call ``as_gradient(x, value)``, in the form ``x``'s ``kind`` takes."""
        value = node.args[1]
        if kind is not None and kind.tag == "dict" and isinstance(value, gast.Dict) and \
                [k.value for k in value.keys] == [k for k, _ in kind.items]:
            parts = [self.form(item, gast.Call(node.func, [gast.Subscript(
                node.args[0], gast.Constant(key, None), gast.Load()), part], []))
                     for (key, item), part in zip(kind.items, value.values)]
            return located(gast.Dict(value.keys, parts), node)  # item by item
        if _py_float(kind) and self.floats:
            return located(self._float(value), node)
        if kind is not None and kind.tag in ("list", "tuple") and kind.items and \
                not kind.fields and self.floats and \
                all(_py_float(k) for k in kind.items) and \
                isinstance(value, (gast.List, gast.Tuple)) and \
                len(value.elts) == len(kind.items):
            parts = [self._float(e) if not (isinstance(e, gast.Constant)) else
                     gast.Constant(float(e.value), None) for e in value.elts]
            display = gast.List if kind.tag == "list" else gast.Tuple
            return located(display(parts, gast.Load()), node)
        if self.raw and kind is not None and kind.tag == "array":
            return value  # (s2sad's runtime takes it as it is: Options.runtime)
        if kind is not None and kind.tag == "array" and isinstance(value, gast.Name) and \
                value.id in self.fresh and self.fresh_gradient is not None:
            node.func = gast.Name(self.fresh_gradient(), gast.Load(), None, None)
            return node  # a new array: returned without a copy
        if kind is not None and kind.tag in ("list", "tuple") and kind.items and \
                not kind.fields and self.floats and \
                all(_py_float(k) for k in kind.items):  # list(map(float, s_x))
            if isinstance(value, gast.Constant) and isinstance(value.value, float):
                display = gast.List if kind.tag == "list" else gast.Tuple  # (a zero: each
                return located(display([gast.Constant(value.value, None)  # item's)
                                        for _ in kind.items], gast.Load()), node)
            floats = gast.Call(gast.Name("map", gast.Load(), None, None),
                               [gast.Name(self.float_name, gast.Load(), None, None), value], [])
            return located(gast.Call(gast.Name(kind.tag, gast.Load(), None, None),
                                                [floats], []), node)
        return node


def fresh_call(helpers: dict, numpy_name: str):
    """``fresh(func)``: does a call of ``func`` (a gast node) return a new array, never an
    argument or a view (its ``fresh`` fact)? ``helpers``: alias -> helper function;
    ``numpy_name``: the array module's name in the code.

    >>> from s2sad.runtime import index_grad, unbroadcast
    >>> fresh = fresh_call({"index_grad": index_grad, "unbroadcast": unbroadcast}, "np")
    >>> [fresh(gast.parse(f).body[0].value) for f in ("index_grad", "unbroadcast", "np.outer")]
    [True, False, True]
    """
    aliases = {alias for alias, f in helpers.items() if _fresh(f)}
    return lambda func: isinstance(func, gast.Name) and func.id in aliases or \
        isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
        func.value.id == numpy_name and _fresh(getattr(np, func.attr, None), copying=True)


def fresh_result(call, fresh_call) -> bool:
    """Does ``call`` (a gast Call) return a new array: its function's ``fresh`` fact
    (``fresh_call``), and no output array given (``np.sum(x, out=y)`` returns ``y``)?

    >>> fresh = lambda func: True
    >>> [fresh_result(gast.parse(f).body[0].value, fresh)
    ...  for f in ("np.sum(x, axis=0)", "np.sum(x, 0, None, y)", "np.sum(x, out=y)")]
    [True, False, False]
    """
    if not fresh_call(call.func) or any(k.arg == "out" or k.arg is None for k in call.keywords):
        return False
    if not isinstance(call.func, gast.Attribute):
        return True
    facts = registry.facts(getattr(np, call.func.attr, None))
    if facts is not None and not facts.fresh and uncopied(call, getattr(np, call.func.attr)):
        return False  # (np.array(x, copy=False): x itself, where it can be)
    positions = [m for m in facts.mutates if isinstance(m, int)] if facts is not None else []
    return not any(isinstance(a, gast.Starred) for a in call.args) and \
        all(len(call.args) <= m for m in positions)


def _fresh(function, copying: bool = False) -> bool:
    """Its ``fresh`` fact; with ``copying``, also a function that returns a new array unless
    its ``copy`` argument says otherwise (``np.array``, ``np.astype``: ``uncopied_view_of``
    and no other view), which :func:`fresh_result` then reads."""
    facts = registry.facts(function)
    if facts is None:
        return False
    return facts.fresh or copying and bool(facts.uncopied_view_of) and \
        not facts.returns_view_of and not facts.mutates and \
        registry.lookup(function) is not None


def fresh_names(body: list, fresh_call) -> set[str]:
    """Names whose final value, at the end of the top-level ``body``, is a new array:
    last set by arithmetic or a fresh call, then only updated in place."""
    fresh, seen = set(), set()
    for stmt in reversed(body):
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            seen |= {n.id for n in trees.walk(stmt) if isinstance(n, gast.Name)
                     and isinstance(n.ctx, gast.Store)}
            seen |= {n.target.id for n in trees.walk(stmt)
                     if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name)}
            continue
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name):
            name = stmt.targets[0].id
            if name not in seen:
                value = stmt.value
                if isinstance(value, (gast.BinOp, gast.UnaryOp)) or (
                        isinstance(value, gast.Call) and fresh_result(value, fresh_call)):
                    fresh.add(name)
                seen.add(name)
    return fresh
