"""A loop over a list or tuple display that writes into its variable, written out item by
item, each pass's variable read as the slot it holds.

``for v in ls: v[0] = e`` changes the arrays ``ls`` holds: ``v`` is each item itself, not a
copy. The reverse sweep follows a value by one name, so the loop is written out, one copy
of the body per item, ``v`` read as ``ls[k]``; an item that is not a name is named first
(``ls_1``), so that :mod:`.held_items` then writes each ``ls[k]`` as the name it holds::

    ls = [np.zeros(2), b]               ls_1 = np.zeros(2)
    for v in ls:                        ls = [ls_1, b]
        v[0] = x[0]                     ls[0][0] = x[0]
                                        ls[1][0] = x[0]

Written out only where nothing else can change a slot or rebind a name the copies read:
``ls`` is bound once, at the top level, by the display; every other read of it is
``ls[k]`` (an int) or such a loop; the loop is at the top level; its body gives ``v`` (and
``enumerate``'s index) no other value, has no ``break``, ``continue``, ``return``,
``yield``, ``def``, ``class`` nor ``lambda``, and writes into ``v``. After the copies, ``v``
is given the last item, as Python leaves it (where anything reads it).

>>> import gast
>>> from s2sad.names import Namer
>>> tree = gast.parse("def f(x):\\n    ls = [np.zeros(2), x]\\n    for i, v in "
...                   "enumerate(ls):\\n        v[0] = x[i]\\n    return ls[0]").body[0]
>>> print(gast.unparse(DisplayLoops(Namer({'f', 'x', 'ls', 'v', 'i'})).run(tree)).strip())
def f(x):
    ls_1 = np.zeros(2)
    ls = [ls_1, x]
    ls[0][0] = x[0]
    ls[1][0] = x[1]
    return ls[0]
"""

from __future__ import annotations

import collections

import gast

from .. import trees
from ..descriptors import _UNROLLED
from ..trees import clone, located

_NOT_IN_BODY = (gast.Break, gast.Continue, gast.Return, gast.Yield, gast.YieldFrom,
                gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda,
                gast.Global, gast.Nonlocal)


def _written_root(target) -> str | None:
    """``v`` for a store into an item of ``v`` (``v[0] = e``, ``v[1:][0] += e``)."""
    if not isinstance(target, gast.Subscript):
        return None
    while isinstance(target, gast.Subscript):
        target = target.value
    return target.id if isinstance(target, gast.Name) else None


def _walked(stmt) -> tuple | None:
    """``(index name or None, start, variable, list name)`` of ``for v in ls`` or ``for i,
    v in enumerate(ls[, start])`` (names and an int written out), else None."""
    target, iterable, index, start = stmt.target, stmt.iter, None, 0
    if isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name) and \
            iterable.func.id == "enumerate" and isinstance(target, gast.Tuple) and \
            len(target.elts) == 2 and 1 <= len(iterable.args) <= 2 and not iterable.keywords:
        if len(iterable.args) == 2:
            given = iterable.args[1]
            if not (isinstance(given, gast.Constant) and type(given.value) is int):
                return None
            start = given.value
        index, target, iterable = target.elts[0], target.elts[1], iterable.args[0]
        if not isinstance(index, gast.Name):
            return None
    if not (isinstance(target, gast.Name) and isinstance(iterable, gast.Name)):
        return None
    return (index.id if index is not None else None, start, target.id, iterable.id)


def _reads(nodes, name: str) -> int:
    """How many times ``nodes`` (a tree, or a list of nodes walked already) read ``name``."""
    found = trees.walk(nodes) if isinstance(nodes, gast.AST) else nodes
    return sum(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for n in found)


class _Copy(gast.NodeTransformer):
    """One pass's body: the variable read as ``ls[k]``, the index as ``k``'s number."""

    def __init__(self, variable: str, seq: str, k: int, index: str | None, number: int):
        self.variable, self.seq, self.k, self.index, self.number = \
            variable, seq, k, index, number

    def visit_Name(self, node):
        if not isinstance(node.ctx, gast.Load):
            return node
        if node.id == self.variable:
            return located(gast.Subscript(gast.Name(self.seq, gast.Load(), None, None),
                                          gast.Constant(self.k, None), gast.Load()), node)
        if node.id == self.index:
            return located(gast.Constant(self.number, None), node)
        return node


class DisplayLoops(trees.Transformer):
    """Writes out a loop over a display that writes into its variable (see the module)."""

    def __init__(self, namer):
        self.namer = namer
        self.changed = False

    def run(self, tree):
        if gast.Global in {type(n) for n in trees.walk(tree)} or \
                gast.Nonlocal in {type(n) for n in trees.walk(tree)}:
            return tree
        bindings = collections.Counter(
            n.id for n in trees.walk(tree) if isinstance(n, gast.Name) and
            not isinstance(n.ctx, gast.Load))
        for node in trees.walk(tree):
            if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) \
                    and node is not tree:
                bindings[node.name] += 1
        body = []
        displays: dict[str, int] = {}  # a list bound once by a display -> its place in body
        for stmt in tree.body:
            loop = _walked(stmt) if isinstance(stmt, gast.For) else None
            if loop is not None and loop[3] in displays and \
                    self._fits(tree, stmt, loop, bindings):
                at, before = displays[loop[3]], len(body)
                body = self._written_out(body, at, stmt, loop, tree)
                named = len(body) - before - self._written  # (items named before the display)
                displays = {seq: k + named if k >= at else k for seq, k in displays.items()}
                self.changed = True
                continue
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and \
                    isinstance(stmt.value, (gast.List, gast.Tuple)) and \
                    bindings[stmt.targets[0].id] == 1 and \
                    not any(isinstance(e, gast.Starred) for e in stmt.value.elts) and \
                    len(stmt.value.elts) <= _UNROLLED:
                displays[stmt.targets[0].id] = len(body)
            body.append(stmt)
        tree.body = body
        return tree

    def _fits(self, tree, stmt, loop, bindings) -> bool:
        index, _, variable, seq = loop
        inner = [n for s in stmt.body + stmt.orelse for n in trees.walk(s)]
        if any(isinstance(n, _NOT_IN_BODY) for n in inner) or any(
                isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load) and
                n.id in (variable, index) for n in inner):
            return False
        if not any(_written_root(t) == variable for n in inner for t in (
                n.targets if isinstance(n, gast.Assign) else
                [n.target] if isinstance(n, gast.AugAssign) else [])):
            return False  # (only read: a loop as it is)
        # every read of the list, anywhere, is an item by an int, or a loop over it
        items = {id(n.value) for n in trees.walk(tree) if isinstance(n, gast.Subscript) and
                 isinstance(n.ctx, gast.Load) and isinstance(n.slice, gast.Constant) and
                 type(n.slice.value) is int}
        loops = {id(n.iter if _walked(n)[0] is None else n.iter.args[0])
                 for n in tree.body if isinstance(n, gast.For) and _walked(n) is not None}
        return all(id(n) in items or id(n) in loops for n in trees.walk(tree)
                   if isinstance(n, gast.Name) and n.id == seq and
                   isinstance(n.ctx, gast.Load))

    def _written_out(self, body, at, stmt, loop, tree) -> list:
        index, start, variable, seq = loop
        display = body[at]
        named = []
        for k, item in enumerate(display.value.elts):  # (each item named, in order)
            if not isinstance(item, gast.Name):
                name = self.namer.claim(f"{seq}_{k + 1}")
                named.append(located(gast.Assign([gast.Name(name, gast.Store(), None, None)],
                                                 item, None), item))
                display.value.elts[k] = located(gast.Name(name, gast.Load(), None, None), item)
        body[at:at] = named
        written = len(body)
        count = len(display.value.elts)
        for k in range(count):
            body.extend(_Copy(variable, seq, k, index, start + k).visit(clone(s))
                        for s in stmt.body)
        inside = [n for s in stmt.body for n in trees.walk(s)]
        for name, value in ((variable, gast.Subscript(gast.Name(seq, gast.Load(), None, None),
                                                      gast.Constant(count - 1, None),
                                                      gast.Load())),
                            (index, gast.Constant(start + count - 1, None))):
            if count and name is not None and _reads(tree, name) > _reads(inside, name):
                body.append(located(gast.Assign([gast.Name(name, gast.Store(), None, None)],
                                                 value, None), stmt))  # (as Python leaves it)
        body.extend(stmt.orelse)
        self._written = len(body) - written
        return body
