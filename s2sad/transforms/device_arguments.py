"""On CuPy, NumPy's implicit conversions of host values made explicit.

NumPy takes a list, a tuple or a Python number wherever it wants an array
(``np.sin([0.1, 0.2])``, ``np.sum(2.5)``, ``x * [1.0, 2.0]``); CuPy refuses them. In
the CuPy variant of a gradient (and only there), such a value, when the kinds say it
is one, is converted where it is used as an array: ``cp.sin(cp.asarray(xs))``. Used
elsewhere it stays what it is (``xs + xs`` still joins two lists).

Converted: every positional argument of a ufunc that is a list or tuple of numbers;
the first positional argument of another NumPy function (the array it works on), and
the others it reads as arrays (its ``reads_arrays`` fact: ``np.inner(x, 0.5)``), that
is such a list or a number (ufuncs take numbers as they are); a list or tuple of
numbers multiplied, added... with an array (what a NumPy function returned, or
arithmetic on it). Functions whose first argument is a shape
or a number by design (``np.zeros``, ``np.arange``...) are left alone.

>>> import gast, numpy
>>> from s2sad.codegen import unparse
>>> from s2sad.transforms.kinds import from_descriptor
>>> fn = gast.parse('''def g(xs, y, w):
...     t_1 = np.sin(xs)
...     t_2 = np.sum(y * 2.0) + np.sum(w)
...     t_3 = w * xs + t_1 * xs
...     return np.zeros(3) + t_1 + t_2 + t_3 + (xs + xs)[0]''').body[0]
>>> kinds = {"xs": from_descriptor(("list", ("float", "float", "float")), "xs"),
...          "y": from_descriptor("float", "y"), "w": from_descriptor(("nd", 1, "f"), "w")}
>>> print(unparse(DeviceArguments(kinds, {"np": numpy}, "np").visit(fn)))
def g(xs, y, w):
    t_1 = np.sin(np.asarray(xs))
    t_2 = np.sum(np.asarray(y * 2.0)) + np.sum(w)
    t_3 = w * np.asarray(xs) + t_1 * np.asarray(xs)
    return np.zeros(3) + t_1 + t_2 + t_3 + (xs + xs)[0]
"""

from __future__ import annotations

import numpy as np

import gast

from .. import registry, trees
from ..backends import numpy_module
from .kinds import ANY, Kind, combine


class DeviceArguments(trees.Transformer):
    """``kinds``: the kinds of the function's values; ``namespace``: the names the code
    reads (to find which calls are NumPy's); ``module``: the name of the array module
    in the generated code (``cp``); ``helpers``: the names of s2sad's helpers, which
    return arrays of the module of their inputs."""

    def __init__(self, kinds: dict, namespace: dict, module: str, helpers=frozenset()):
        self.kinds = dict(kinds)  # (its own: _listed adds to it)
        self.namespace = namespace
        self.module = module
        self.helpers = set(helpers)
        self.device: set[str] = set()  # names holding what a NumPy function returned

    def visit_FunctionDef(self, node):
        assigns = [(n.targets[0].id, n.value) for n in trees.walk(node)
                   if isinstance(n, gast.Assign) and len(n.targets) == 1 and
                   isinstance(n.targets[0], gast.Name)] + \
            [(n.target.id, n.value) for n in trees.walk(node)
             if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name)]
        for _ in range(2):  # (a second pass for what loops carry around)
            for name, value in assigns:
                if self._on_device(value):
                    self.device.add(name)
        self._listed(assigns)
        return self.generic_visit(node)

    def _listed(self, assigns) -> None:
        """Note the kinds of ``t = x.tolist()`` (numbers in lists) and, of an ``x`` of one
        axis, of ``v = t[2]`` (a number) and ``w = v * v``, each bound once: the kinds
        know a list of numbers whose length they do not know as a list of unknown items."""
        once = {}
        for name, value in assigns:
            once[name] = value if name not in once else None
        listed = {}
        for name, value in once.items():
            if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
                    value.func.attr == "tolist" and not value.args and not value.keywords \
                    and isinstance(value.func.value, gast.Name):
                kind = self.kinds.get(value.func.value.id, ANY)
                if kind.tag == "array" and kind.ndim:
                    listed[name] = kind.ndim
                    self.kinds[name] = Kind("list", items=(_NUMBER,))  # (one stands for all)
        for name, value in once.items():
            if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and \
                    listed.get(value.value.id) == 1 and isinstance(value.slice, gast.Constant) \
                    and type(value.slice.value) is int:
                self.kinds[name] = _NUMBER
        if listed:  # (arithmetic of those numbers: numbers)
            for name, value in once.items():
                if isinstance(value, (gast.BinOp, gast.UnaryOp)) and \
                        self.kinds.get(name, ANY).tag in ("any", "numeric") and \
                        self._kind(value).tag == "scalar":
                    self.kinds[name] = _NUMBER

    def _on_device(self, value) -> bool:
        """Is ``value`` an array of the array module (what its functions return, and
        arithmetic on it)?"""
        if isinstance(value, gast.Name):
            return value.id in self.device or self.kinds.get(value.id, ANY).tag == "array"
        if isinstance(value, gast.Call):
            return self._numpy_function(value.func) is not None or (
                isinstance(value.func, gast.Name) and value.func.id in self.helpers)
        if isinstance(value, gast.BinOp):
            return self._on_device(value.left) or self._on_device(value.right)
        if isinstance(value, gast.UnaryOp):
            return self._on_device(value.operand)
        return False

    def visit_Call(self, node):
        self.generic_visit(node)
        func = self._numpy_function(node.func)
        facts = registry.facts(func) if func is not None else None
        if func is None or facts is not None and facts.builds:  # (np.zeros(n): n is a shape)
            return node
        ufunc = isinstance(func, np.ufunc)
        arrays = (facts.reads_arrays if facts is not None else ()) or (0,)
        for i, arg in enumerate(node.args):
            if not ufunc and i not in arrays:
                continue
            kind = self._kind(arg)
            if _sequence_of_numbers(kind) or (not ufunc and kind.tag == "scalar"):
                node.args[i] = self._asarray(arg)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if _sequence_of_numbers(self._kind(node.left)) and self._on_device(node.right):
            node.left = self._asarray(node.left)
        elif _sequence_of_numbers(self._kind(node.right)) and self._on_device(node.left):
            node.right = self._asarray(node.right)
        return node

    def _asarray(self, value):
        func = gast.Attribute(gast.Name(self.module, gast.Load(), None, None), "asarray",
                              gast.Load())
        return gast.copy_location(gast.Call(func, [value], []), value)

    def _numpy_function(self, func):
        """The NumPy function ``func`` names (``np.sin``, ``np.linalg.norm``, ``sin``
        imported from NumPy), or None."""
        path = []
        while isinstance(func, gast.Attribute):
            path.append(func.attr)
            func = func.value
        if not isinstance(func, gast.Name):
            return None
        value = np if func.id == self.module else self.namespace.get(func.id)
        for attr in reversed(path):
            value = getattr(value, attr, None)
        module = getattr(value, "__module__", None) or ""
        is_numpy = isinstance(value, np.ufunc) or numpy_module(module)
        return value if is_numpy and callable(value) else None

    def _kind(self, node) -> Kind:
        """The kind of a name, a number, or arithmetic of them (ANY if unknown)."""
        if isinstance(node, gast.Name):
            return self.kinds.get(node.id, ANY)
        if isinstance(node, gast.Constant) and type(node.value) in (int, float):
            return Kind("scalar", "()", 0)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self._kind(node.operand)
        if isinstance(node, gast.BinOp) and not isinstance(node.op, gast.MatMult):
            parts = [self._kind(node.left), self._kind(node.right)]
            if all(p.tag == "scalar" for p in parts):
                return Kind("scalar", "()", 0)
            return combine(parts) if all(p.numeric for p in parts) else ANY
        return ANY


_NUMBER = Kind("scalar", "()", 0)


def _sequence_of_numbers(kind: Kind) -> bool:
    return kind.tag in ("list", "tuple") and bool(kind.items) and \
        all(item.tag == "scalar" for item in kind.items)
