"""A list of the user's objects made by a comprehension, written as a list display.

``[Layer(w) for w in ws]`` over items the compiler can count (``range(3)``, a display,
a list or tuple argument of known length, a name given a display once and never changed) is the display ``[Layer(ws[0]), Layer(ws[1])]``:
the objects are then followed one by one, as a display's are
(:mod:`.transforms.local_objects`)::

    layers = [Layer(x[i]) for i in range(2)]    layers = [Layer(x[0]), Layer(x[1])]

The item is put in place of the comprehension's variable, so only an item that reads
the same each time is (a constant, a name, an index or attribute of one). A comprehension
with an ``if``, two ``for``, or that makes no object of the user's class is left as it is.

>>> import gast
>>> class Layer: pass
>>> tree = gast.parse("def f(x):\\n    return [Layer(x[i]) for i in range(2)]").body[0]
>>> out = ObjectLists({"Layer": Layer, "range": range}.__getitem__, {}).run(tree)
>>> print(gast.unparse(out).strip().splitlines()[-1])
    return [Layer(x[0]), Layer(x[1])]
"""

from __future__ import annotations

import builtins

import gast

from .. import trees
from ..backends import LIBRARIES

scipy_name = "scipy"  # (its classes: not the user's)

_MOST = 64  # (items written out, at most)


def _same_each_time(node) -> bool:
    """Does ``node`` read the same value each time (a constant, a name, an index or an
    attribute of them)?"""
    if isinstance(node, (gast.Constant, gast.Name)):
        return True
    if isinstance(node, gast.Attribute):
        return _same_each_time(node.value)
    if isinstance(node, gast.Subscript):
        return _same_each_time(node.value) and _same_each_time(node.slice)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _same_each_time(node.operand)
    return False


class _Put(gast.NodeTransformer):
    """``name`` read in an expression replaced by a copy of ``value``."""

    def __init__(self, name: str, value):
        self.name, self.value = name, value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, gast.Load):
            return trees.located(trees.clone(self.value), node)
        return node


class ObjectLists(trees.Transformer):
    """Writes out comprehensions that make the user's objects (see the module)."""

    def __init__(self, resolve, lengths: dict):
        self.resolve = resolve  # (a free name's value)
        self.lengths = lengths  # the list and tuple arguments' lengths
        self.changed = False

    @staticmethod
    def acts(nodes) -> bool:
        """Could :meth:`run` change anything in the function walked as ``nodes``: is
        there a comprehension of one ``for`` over a name, with no ``if``?"""
        return any(n.__class__ is gast.ListComp and len(n.generators) == 1 and
                   not n.generators[0].ifs and isinstance(n.generators[0].target, gast.Name)
                   for n in nodes)

    def run(self, tree):
        nodes = trees.walk(tree)
        stores = {}
        for n in nodes:
            if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
                stores[n.id] = stores.get(n.id, 0) + 1
        changed = {s.func.value.id for s in nodes if isinstance(s, gast.Call) and
                   isinstance(s.func, gast.Attribute) and isinstance(s.func.value, gast.Name)}
        changed |= {s.value.id for s in nodes if isinstance(s, gast.Subscript) and
                    not isinstance(s.ctx, gast.Load) and isinstance(s.value, gast.Name)}
        changed |= self._passed_on(nodes)
        self.known = {p: n for p, n in self.lengths.items()
                      if p not in stores and p not in changed}  # (as the caller gave it)
        for s in nodes:  # (ws = [a, b], never changed: its length)
            if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                    isinstance(s.targets[0], gast.Name) and stores[s.targets[0].id] == 1 and \
                    s.targets[0].id not in changed and \
                    isinstance(s.value, (gast.List, gast.Tuple)) and \
                    not any(isinstance(e, gast.Starred) for e in s.value.elts):
                self.known[s.targets[0].id] = len(s.value.elts)
        self.local = set(stores) | {a.id for a in tree.args.args + tree.args.kwonlyargs}
        tree.body = [self.visit(s) for s in tree.body]
        return tree

    @staticmethod
    def _passed_on(nodes) -> set:
        """The names read other than by a loop over them, ``len`` of them or an item
        of them (``grow(ws, v)``, ``vs = ws``, ``[ws]``): a list there may be changed
        (its length too) where s2sad does not see it (an alias)."""
        parent = {id(child): node for node in nodes for child in gast.iter_child_nodes(node)}
        found = set()
        for n in nodes:
            if not (isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)):
                continue
            up = parent.get(id(n))
            if isinstance(up, (gast.For, gast.comprehension)) and up.iter is n or \
                    isinstance(up, gast.Subscript) and up.value is n and \
                    isinstance(up.ctx, gast.Load) or \
                    isinstance(up, gast.Call) and isinstance(up.func, gast.Name) and \
                    up.func.id == "len" and up.args == [n] or \
                    isinstance(up, gast.Call) and up.func is n:
                continue
            found.add(n.id)
        return found

    def _value(self, name: str):
        if name in self.local:
            return None
        try:
            return self.resolve(name)
        except KeyError:
            return None

    def _makes_objects(self, node) -> bool:
        for call in trees.walk(node):
            if isinstance(call, gast.Call) and isinstance(call.func, gast.Name):
                made = self._value(call.func.id)
                library = made.__module__.split(".")[0] if isinstance(made, type) else None
                if library is not None and made.__module__ != builtins.__name__ and \
                        library not in LIBRARIES and library != scipy_name:
                    return True  # (a class of the user's, not an array library's)
        return False

    def _items(self, iterable) -> list | None:
        """The items ``for v in iterable`` gives, as expressions; None where not known."""
        if isinstance(iterable, (gast.List, gast.Tuple)):
            if all(_same_each_time(e) and not isinstance(e, gast.Starred)
                   for e in iterable.elts):
                return list(iterable.elts)
            return None
        if isinstance(iterable, gast.Name) and iterable.id in self.known:
            return [gast.Subscript(gast.Name(iterable.id, gast.Load(), None, None),
                                   gast.Constant(i, None), gast.Load())
                    for i in range(self.known[iterable.id])]
        if isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name) and \
                self._value(iterable.func.id) is range and not iterable.keywords and \
                1 <= len(iterable.args) <= 3:
            bounds = [self._int(a) for a in iterable.args]
            if None not in bounds:
                return [gast.Constant(i, None) for i in range(*bounds)]
        return None

    def _int(self, node) -> int | None:
        if isinstance(node, gast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            inner = self._int(node.operand)
            return None if inner is None else -inner
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                self._value(node.func.id) is len and len(node.args) == 1 and \
                isinstance(node.args[0], gast.Name) and node.args[0].id in self.known:
            return self.known[node.args[0].id]
        return None

    def visit_ListComp(self, node):
        self.generic_visit(node)
        if len(node.generators) != 1:
            return node
        loop = node.generators[0]
        if loop.ifs or loop.is_async or not isinstance(loop.target, gast.Name) or \
                not self._makes_objects(node.elt):
            return node
        name = loop.target.id
        if any(isinstance(n, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                              gast.GeneratorExp, gast.NamedExpr)) for n in trees.walk(node.elt)):
            return node  # (a scope of its own, or a name bound inside)
        items = self._items(loop.iter)
        if items is None or len(items) > _MOST:
            return node
        self.changed = True
        return trees.located(gast.List([_Put(name, item).visit(trees.clone(node.elt))
                                        for item in items], gast.Load()), node)

    def visit_FunctionDef(self, node):
        return node  # (a nested function: its own names)
