"""``copy.deepcopy`` of a dict or list the function made, written item by item.

``e = copy.deepcopy(d)``, ``d`` given a display once and read only by its items
(``d['a']``), is a display of the items' own deep copies; an array's deep copy is a new
array, so ``e['a'] *= 2.0`` then leaves ``d['a']`` as Python does::

    d = {'a': x * 1.0, 'b': x[0]}           d = {'a': x * 1.0, 'b': x[0]}
    e = copy.deepcopy(d)                    e = {'a': copy.deepcopy(d['a']),
                                                 'b': copy.deepcopy(d['b'])}

A deep copy copies an object held twice once (``{'a': y, 'b': y}``: both keys of the copy
hold one new array), so a display with two items that may be one object (names,
items, attributes, calls) is left as it is (a change through the copy is then refused as
shared).

>>> import copy, gast
>>> tree = gast.parse("def f(x):\\n    d = [x * 2.0, x[0]]\\n    e = copy.deepcopy(d)\\n"
...                   "    return e").body[0]
>>> out = DeepCopies({"copy": copy}.__getitem__).run(tree)
>>> print(gast.unparse(out).strip().splitlines()[2])
    e = [copy.deepcopy(d[0]), copy.deepcopy(d[1])]
"""

from __future__ import annotations

import copy

import gast

from .. import trees


def _fresh(node) -> bool:
    """Is ``node`` a new object holding no other, or an immutable one: a constant,
    arithmetic (``-y``, ``y / 2``, ``y * 1.0``)? Not ``+``, ``*``, ``-`` or ``|`` of anything
    else: lists, tuples, dicts and sets join and repeat their items (``[y] + []`` holds
    ``y``)."""
    if isinstance(node, (gast.Constant, gast.UnaryOp)):
        return True
    if not isinstance(node, gast.BinOp):
        return False
    if isinstance(node.op, (gast.Div, gast.FloorDiv, gast.Pow, gast.MatMult)):
        return True  # (no list, tuple, dict or set takes them: a number's or an array's)
    return any(isinstance(side, gast.Constant) and isinstance(side.value, (float, complex))
               for side in (node.left, node.right))  # (a list + 1.0 raises)


class DeepCopies(trees.Transformer):
    """Writes ``copy.deepcopy`` of a display out item by item (see the module)."""

    def __init__(self, resolve):
        self.resolve = resolve  # (a free name's value)
        self.changed = False

    def acts(self, nodes) -> bool:
        """Could :meth:`run` change anything in the function walked as ``nodes``: is a
        name given a display (``d = [...]``), and is there a call of ``copy.deepcopy``
        of one name?"""
        if not any(n.__class__ is gast.Assign and len(n.targets) == 1 and
                   n.targets[0].__class__ is gast.Name and
                   isinstance(n.value, (gast.Dict, gast.List, gast.Tuple)) for n in nodes):
            return False
        self.local = set()  # (a name assigned here is no deepcopy: taken as one may be)
        return any(n.__class__ is gast.Call and len(n.args) == 1 and not n.keywords and
                   n.args[0].__class__ is gast.Name and self._deepcopy(n) for n in nodes)

    def run(self, tree):
        nodes = trees.walk(tree)
        stores: dict = {}
        for n in nodes:
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
        self.local = set(stores)
        self.displays = {}  # a name given a display once -> the display
        for s in nodes:
            if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                    isinstance(s.targets[0], gast.Name) and stores[s.targets[0].id] == 1:
                self.displays[s.targets[0].id] = s.value
        allowed = {id(n.value) for n in nodes if isinstance(n, gast.Subscript) and
                   isinstance(n.value, gast.Name) and isinstance(n.ctx, gast.Load)}
        allowed |= {id(c.args[0]) for c in nodes if isinstance(c, gast.Call) and
                    len(c.args) == 1 and isinstance(c.args[0], gast.Name) and
                    self._deepcopy(c)}  # (d['a'] and copy.deepcopy(d) read it as it is)
        self.read_by_item = {}  # name -> is every read of it an item's or a deep copy's
        for n in nodes:
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                self.read_by_item[n.id] = self.read_by_item.get(n.id, True) and \
                    id(n) in allowed
        tree.body = [self.visit(s) for s in tree.body]
        return tree

    def _deepcopy(self, node) -> bool:
        func = node.func
        try:
            if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                    func.value.id not in self.local:
                found = getattr(self.resolve(func.value.id), func.attr, None)
            elif isinstance(func, gast.Name) and func.id not in self.local:
                found = self.resolve(func.id)
            else:
                return False
        except KeyError:
            return False
        return found is copy.deepcopy

    def _keys(self, display) -> list | None:
        """The items of ``display`` as indices (``'a'``, ``0``), where each is a constant
        key, no two of them may be one object, and nothing is unpacked; else None."""
        if isinstance(display, gast.Dict):
            if not all(isinstance(k, gast.Constant) for k in display.keys):
                return None
            keys, values = [k.value for k in display.keys], display.values
            if len(set(keys)) != len(keys):
                return None  # (a key written twice)
        elif isinstance(display, (gast.List, gast.Tuple)):
            if any(isinstance(e, gast.Starred) for e in display.elts):
                return None
            keys, values = list(range(len(display.elts))), display.elts
        else:
            return None
        if sum(1 for v in values if not _fresh(v)) > 1:
            return None  # (two may be one object, which a deep copy copies once)
        return keys

    def visit_Call(self, node):
        self.generic_visit(node)
        if not (self._deepcopy(node) and len(node.args) == 1 and not node.keywords and
                isinstance(node.args[0], gast.Name)):
            return node
        name = node.args[0].id
        display = self.displays.get(name)
        keys = self._keys(display) if display is not None else None
        if keys is None or not self.read_by_item.get(name, False):
            return node
        def item(key):
            read = gast.Subscript(gast.Name(name, gast.Load(), None, None),
                                  gast.Constant(key, None), gast.Load())
            return gast.Call(trees.clone(node.func), [read], [])
        self.changed = True
        if isinstance(display, gast.Dict):
            out = gast.Dict([gast.Constant(k, None) for k in keys], [item(k) for k in keys])
        else:
            out = type(display)([item(k) for k in keys], gast.Load())
        return trees.located(out, node)

    def visit_FunctionDef(self, node):
        return node  # (a nested function: its own names)
