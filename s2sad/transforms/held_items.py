"""Items of a list, tuple or dict display read by a constant index, and a name given
another name, written as the name they hold.

``ls = [y, z]`` holds ``y``'s array itself, not a copy: ``ls[0][1] = e`` changes ``y``,
and ``y[1] = e`` changes what ``ls[0]`` reads. The reverse sweep follows a value by one
name, so each ``ls[0]`` is written ``y`` (the same object, as Python's list holds);
``v = y`` the same way, each later ``v`` written ``y``::

    y = np.zeros(3)                     y = np.zeros(3)
    ls = [y, z]                         ls = [y, z]
    ls[0][1] = x[0]                     y[1] = x[0]
    return np.sum(ls[0] * x)            return np.sum(y * x)

Written only where ``ls[k] is y`` holds at every read, by the syntax alone: the display
(or ``y``) is bound once, at the top level of the function, to a name read only in the
statements after it, a display's only as ``ls[k]`` (an int in range, or a str key of a
dict); ``y`` is bound once before and not in a loop, or a parameter (not for ``v = y``:
a write into ``v`` is refused as it is, in the name the user wrote). Then nothing can
change the slot nor ``y`` (no store, method, call or other name reaches the container).
And only where an item is written (``y[1] = e``, ``ls[0][1] = e``): elsewhere the names
stay as the user wrote them. Anything else is left as it is (and a write that the
container sees is refused, :mod:`.transforms.aliasing`).

>>> import gast
>>> tree = gast.parse("def f(x):\\n    y = np.zeros(3)\\n    ls = [y, x]\\n"
...                   "    ls[0][1] = x[0]\\n    return np.sum(ls[0] * ls[-1])").body[0]
>>> print(gast.unparse(HeldItems().run(tree)).strip())
def f(x):
    y = np.zeros(3)
    ls = [y, x]
    y[1] = x[0]
    return np.sum(y * x)
"""

from __future__ import annotations

import collections

import gast

from .. import trees

_LOOPS = (gast.For, gast.AsyncFor, gast.While)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
           gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _slots(value) -> dict | None:
    """``{key: name}`` for the slots of a display that hold a name (``[y, 2.0, z]``:
    ``{0: 'y', -3: 'y', 2: 'z', -1: 'z'}``), ``{None: 'y'}`` for the name ``y``; None for
    another value or one with a ``*`` or ``**`` part, or a dict with a key that is not a
    str constant."""
    if isinstance(value, gast.Name):
        return {None: value.id}
    if isinstance(value, (gast.List, gast.Tuple)):
        if any(isinstance(e, gast.Starred) for e in value.elts):
            return None
        n = len(value.elts)
        return {k: e.id for i, e in enumerate(value.elts) if isinstance(e, gast.Name)
                for k in (i, i - n)}
    if isinstance(value, gast.Dict):
        if not all(isinstance(k, gast.Constant) and type(k.value) is str
                   for k in value.keys):
            return None
        slots = {}
        for k, v in zip(value.keys, value.values, strict=True):  # (the last of a key wins)
            slots.pop(k.value, None)
            if isinstance(v, gast.Name):
                slots[k.value] = v.id
        return slots
    return None


def _pairs(stmt) -> list:
    """``[(target, value)]`` of a top-level ``t = v`` (one target), and of each part of
    ``a, b = y, z`` (no ``*``, as many on each side)."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
        return []
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, (gast.Tuple, gast.List)) and \
            isinstance(value, (gast.Tuple, gast.List)) and \
            len(target.elts) == len(value.elts) and not any(
                isinstance(p, gast.Starred) for p in target.elts + value.elts):
        return [(target, value)] + list(zip(target.elts, value.elts, strict=True))
    return [(target, value)]


def _written_root(target) -> str | None:
    """``y`` for a store into an item of ``y`` (``y[1] = e``, ``ls[0][1] = e``: ``ls``)."""
    if not isinstance(target, gast.Subscript):
        return None
    while isinstance(target, (gast.Subscript, gast.Attribute)):
        target = target.value
    return target.id if isinstance(target, gast.Name) else None


def _key(index):
    """The constant of ``ls[index]`` (an int, a str), else None (a bool, a slice...)."""
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub) and \
            isinstance(index.operand, gast.Constant) and type(index.operand.value) is int:
        return -index.operand.value
    if isinstance(index, gast.Constant) and type(index.value) in (int, str):
        return index.value
    return None


class HeldItems(trees.Transformer):
    """Writes ``ls[k]`` as the name the display put in that slot (see the module)."""

    def __init__(self):
        self.changed = False
        self.replace: dict[int, str] = {}  # id of a Subscript ls[k] -> the name it reads

    def run(self, tree):
        for _ in range(4):  # (z = ls[0] is z = y, then z is y: a round each)
            self.replace = {}
            tree = self._round(tree)
            if not self.replace:
                break
        return tree

    def _round(self, tree):
        written = {_written_root(t) for node in trees.walk(tree)
                   for t in (node.targets if isinstance(node, gast.Assign) else
                             [node.target] if isinstance(node, gast.AugAssign) else [])}
        written.discard(None)
        if not written:
            return tree  # (no item written: nothing to follow)
        bindings = collections.Counter()  # every name stored, deleted or a parameter,
        looped = set()  # in any scope (a nested def's parameter shadows the name); bound
        declared = set()  # in a loop; global or nonlocal somewhere

        def visit(node, in_loop: bool) -> None:
            for child in trees.children(node):
                if isinstance(child, gast.Name) and not isinstance(child.ctx, gast.Load):
                    bindings[child.id] += 1
                    if in_loop:
                        looped.add(child.id)
                elif isinstance(child, (gast.Global, gast.Nonlocal)):
                    declared.update(child.names)
                elif isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef,
                                        gast.ClassDef)):
                    bindings[child.name] += 1
                visit(child, in_loop or isinstance(child, _LOOPS + _SCOPES))

        visit(tree, False)
        grown = True
        while grown:  # (z = ls[0], z = y: a write through z is one through ls, y; z a
            # view of either too)
            grown = False
            for target, value in (pair for stmt in tree.body for pair in _pairs(stmt)):
                if isinstance(target, gast.Name) and target.id in written or \
                        isinstance(target, (gast.Tuple, gast.List)) and any(
                            isinstance(t, gast.Name) and t.id in written
                            for t in target.elts):  # (a, b = ls: ls, if a is written)
                    root = value
                    while isinstance(root, gast.Subscript):  # (z = ls[0][:2]: ls)
                        root = root.value
                    if isinstance(root, gast.Name) and root.id not in written:
                        written.add(root.id)
                        grown = True
        params = {a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
        first = {}  # a name bound once at the top level -> the index of its statement
        for at, stmt in enumerate(tree.body):
            for node in trees.walk(stmt):
                if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                    first.setdefault(node.id, at)
        for at, stmt in enumerate(tree.body):
            for target, value in _pairs(stmt):
                if isinstance(target, gast.Name):
                    self._bound(tree, at, target.id, value, bindings, declared, looped,
                                params, first, written)
        if self.replace:
            tree = self.visit(tree)
            self.changed = True
        return tree

    def _bound(self, tree, at, name, value, bindings, declared, looped, params, first,
               written) -> None:
        """``name = value`` at statement ``at``: its reads noted where ``value`` is a
        display or a name that ``name[k]`` or ``name`` is, at every read after."""
        slots = _slots(value)
        if not slots or bindings[name] != 1 or name in declared:
            return
        slots = {k: held for k, held in slots.items() if held != name and
                 bindings[held] == 1 and held not in declared and held not in looped and
                 (held in params and k is not None or first.get(held, at) < at)}
        if name in written or written & set(slots.values()):
            items = value.elts if isinstance(value, (gast.List, gast.Tuple)) else None
            self._reads(tree, at, name, slots, items)

    def _reads(self, tree, at: int, name: str, slots: dict, items: list | None) -> None:
        """Note each ``name[k]`` to write as the name in slot ``k``, where every read of
        ``name`` after statement ``at`` is such an item (else none); or, a list or tuple
        display of ``items`` (names and constants), unpacked whole (``a, b = ls``:
        ``a, b = y, 1.0``)."""
        found = {}
        subscripts = {id(n.value): n for s in tree.body for n in trees.walk(s)
                      if isinstance(n, gast.Subscript)}
        whole = tuple(slots.get(i) if isinstance(item, gast.Name) else item
                      if isinstance(item, gast.Constant) else None
                      for i, item in enumerate(items or ()))
        for place, stmt in enumerate(tree.body):
            unpacked = isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], (gast.Tuple, gast.List)) and \
                items is not None and len(stmt.targets[0].elts) == len(items) and \
                all(part is not None for part in whole) and \
                all(isinstance(t, gast.Name) for t in stmt.targets[0].elts)
            for node in trees.walk(stmt):
                if unpacked and node is stmt.value and place > at and \
                        isinstance(node, gast.Name) and node.id == name:
                    found[id(node)] = whole
                    continue
                if not (isinstance(node, gast.Name) and node.id == name and
                        isinstance(node.ctx, gast.Load)):
                    continue
                if None in slots:  # (v = y: every read of v, after its line, is y)
                    if place <= at:
                        return
                    found[id(node)] = slots[None]
                    continue
                item = subscripts.get(id(node))
                if place <= at or item is None or not isinstance(item.ctx, gast.Load) or \
                        _key(item.slice) is None:
                    return  # (a store, a method, a call given it: the slots may change)
                if _key(item.slice) in slots:  # (else an item not named, or none: as it is)
                    found[id(item)] = slots[_key(item.slice)]
        self.replace.update(found)

    def visit_Name(self, node):
        held = self.replace.get(id(node))
        if isinstance(held, tuple):  # (a, b = ls: a, b = y, 1.0)
            return trees.located(gast.Tuple([
                gast.Name(h, gast.Load(), None, None) if isinstance(h, str) else
                trees.clone(h) for h in held], gast.Load()), node)
        if held is not None:
            return trees.located(gast.Name(held, gast.Load(), None, None), node)
        return node

    def visit_Subscript(self, node):
        held = self.replace.get(id(node))
        if held is not None:
            return trees.located(gast.Name(held, gast.Load(), None, None), node)
        self.generic_visit(node)
        return node
