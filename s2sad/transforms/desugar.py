"""Rewrite sugar into the small set of primitives the reverse pass knows.

``+x`` becomes ``x``, annotated assignments plain ones, and array methods and
``.T`` become calls of the matching NumPy function, so one rule serves both.

>>> import gast
>>> tree = gast.parse("def f(x):\\n    x += 1\\n    y = x.sum(axis=0) + x.T\\n    return +y").body[0]
>>> print(gast.unparse(Desugar("np", {"x", "y"}).visit(tree)))  # doctest: +NORMALIZE_WHITESPACE
def f(x):
    x += 1
    y = np.sum(x, axis=0) + np.transpose(x)
    return y
>>> tree = gast.parse("def f(x):\\n    return x.flatten().item(2) + x.copy().sum()").body[0]
>>> print(gast.unparse(Desugar("np", {"x"}).visit(tree)).splitlines()[1].strip())
return np.ravel(np.ravel(x))[2] + np.sum(np.copy(x))
"""

from __future__ import annotations

import inspect

import gast
import numpy as np

from .. import registry, trees


def array_function(attr: str, called: bool = True) -> str:
    """The name of the NumPy function that the array method ``attr`` is (``called``), or
    the array attribute ``attr`` (not ``called``), by its ``method`` fact; ``""`` if none.

    >>> array_function("sum"), array_function("T", called=False), array_function("T")
    ('sum', 'transpose', '')
    """
    member = getattr(np.ndarray, attr, None)
    facts = registry.facts(member) if member is not None else None
    if facts is None or called == inspect.isdatadescriptor(member):
        return ""
    return facts.method


def array_members(called: bool = True) -> list[str]:
    """The array methods (``called``) or attributes rewritten into NumPy functions.

    >>> array_members(called=False)
    ['T', 'imag', 'real']
    """
    return sorted(name for name in dir(np.ndarray) if array_function(name, called))


class Desugar(trees.Transformer):
    """``builtin(name)``: does ``name`` stand for the builtin of that name there (not a
    global or a local of the user's)? ``max(a, b, c)`` is then ``max(max(a, b), c)``."""

    def __init__(self, numpy_name: str, local_names: set[str], builtin=None):
        self.numpy_name = numpy_name
        self.local_names = local_names
        self.builtin = builtin or (lambda name: False)

    def _np(self, name: str, node) -> gast.Attribute:
        ref = gast.Attribute(gast.Name(self.numpy_name, gast.Load(), None, None), name, gast.Load())
        return gast.copy_location(ref, node)

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        return gast.copy_location(gast.Assign([node.target], node.value, None), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.UAdd):
            return node.operand
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, gast.Name) and func.id == "dict" and len(node.args) <= 1 and \
                func.id not in self.local_names and self.builtin("dict") and \
                all(k.arg is not None for k in node.keywords) and \
                all(isinstance(a, (gast.Name, gast.Dict)) for a in node.args):
            # (a name: a dict, or it fails as `{**v}` would; dict(zip(...)) is left alone)
            # dict(p, W=W) is {**p, 'W': W}: a new dict (a copy of p's), read by key
            keys = [None] * len(node.args) + [gast.Constant(k.arg, None) for k in node.keywords]
            values = list(node.args) + [k.value for k in node.keywords]
            return gast.copy_location(gast.Dict(keys, values), node)
        if isinstance(func, gast.Name) and func.id in ("max", "min") and len(node.args) > 2 \
                and not node.keywords and func.id not in self.local_names and \
                not any(isinstance(a, gast.Starred) for a in node.args) and \
                self.builtin(func.id):  # max(a, b, c): two at a time, as Python compares
            pair = node.args[0]
            for arg in node.args[1:]:
                pair = gast.copy_location(gast.Call(gast.Name(func.id, gast.Load(), None, None),
                                                    [pair, arg], []), node)
            return pair
        if isinstance(func, gast.Name) and func.id == "getattr" and len(node.args) == 2 and \
                not node.keywords and func.id not in self.local_names and \
                self.builtin("getattr") and isinstance(node.args[1], gast.Constant) and \
                isinstance(node.args[1].value, str) and node.args[1].value.isidentifier():
            # getattr(x, "fill") is x.fill (then desugared as it is)
            attribute = gast.copy_location(
                gast.Attribute(node.args[0], node.args[1].value, gast.Load()), node)
            return self._attribute(attribute)
        if isinstance(func, gast.Attribute) and func.attr == "item" and not node.keywords \
                and self._is_value(func.value):
            return self._item(func.value, node)
        if isinstance(func, gast.Attribute) and func.attr == "astype" and \
                hasattr(np, "astype") and self._is_value(func.value):
            return self._astype(func.value, node)
        if isinstance(func, gast.Attribute) and array_function(func.attr) and \
                self._is_value(func.value):
            args = list(node.args)
            if len(args) > 1 and registry.facts(getattr(np.ndarray, func.attr)).varargs:
                args = [gast.copy_location(gast.Tuple(args, gast.Load()), args[0])]
            call = gast.copy_location(
                gast.Call(self._np(array_function(func.attr), func), [func.value] + args, node.keywords),
                node)
            if func.attr == "copy":  # (a dict's or list's copy too: DictViews writes it so
                call.copied = True   # once the kinds say which)
            # (the method's facts stay with the call: a real array's x.conj() is x itself)
            call.method = getattr(np.ndarray, func.attr, None)
            return call
        return node

    def _astype(self, value, node):
        """``x.astype(t)``, ``x.astype(dtype=t, copy=False)``: ``np.astype(x, t, ...)``;
        with the method's other parameters (order, casting, subok), the method itself,
        unbound: ``np.ndarray.astype(np.asarray(x), t, "C")`` (``x`` may be a NumPy scalar)."""
        keywords = {k.arg: k for k in node.keywords}
        args = list(node.args)
        if len(args) + ("dtype" in keywords) == 1 and set(keywords) <= {"dtype", "copy"} and \
                not any(isinstance(a, gast.Starred) for a in args):
            dtype = args[0] if args else keywords["dtype"].value
            rest = [k for k in node.keywords if k.arg != "dtype"]
            return gast.copy_location(gast.Call(self._np("astype", node.func), [value, dtype],
                                                rest), node)
        method = gast.Attribute(self._np("ndarray", node.func), "astype", gast.Load())
        array = gast.copy_location(gast.Call(self._np("asarray", node.func), [value], []), node)
        return gast.copy_location(gast.Call(gast.copy_location(method, node.func),
                                            [array] + args, node.keywords), node)

    def _item(self, value, node):
        """``x.item()`` is ``np.ravel(x)[0]``, ``x.item(i)`` is ``np.ravel(x)[i]`` and
        ``x.item(i, j)`` is ``x[i, j]``: the element (a NumPy scalar rather than a Python
        one, the same value), differentiable as the identity."""
        args = list(node.args)
        if len(args) == 1 and isinstance(args[0], gast.Tuple):  # x.item((i, j))
            index = args[0]
        elif len(args) > 1:
            index = gast.Tuple(args, gast.Load())
        else:
            value = gast.Call(self._np("ravel", node), [value], [])
            index = args[0] if args else gast.Constant(0, None)
        return gast.copy_location(gast.Subscript(value, index, gast.Load()), node)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        return self._attribute(node)

    def _attribute(self, node):
        if array_function(node.attr, called=False) and isinstance(node.ctx, gast.Load) and \
                self._is_value(node.value):
            return gast.copy_location(gast.Call(self._np(array_function(node.attr, False), node),
                                                [node.value], []), node)
        return node

    def _is_value(self, node) -> bool:
        """``x`` in ``x.sum()`` is a value; ``np`` in ``np.sum(x)`` is a module (left alone)."""
        root = node
        while isinstance(root, gast.Attribute):
            root = root.value
        return not isinstance(root, gast.Name) or root.id in self.local_names
