"""A dict's sensitivity read and written only at keys written out: one variable per key.

The reverse sweep gives a dict ``p`` the sensitivity ``s_p = zeros_like_structure(p)``
and adds into it by key, ``s_p['W'] += ...``: zeros made for every key, each added to
once, then copied by ``as_gradient``. Where every use of ``s_p`` is at a key written out
(and the kinds know the dict's keys), each key gets a variable of its own, as an
argument would: the accumulations become assignments (``FirstAssignment``), no zeros
are made, and the gradient is the dict of those variables.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.names import Namer
>>> from s2sad.transforms.kinds import Kind, SCALAR
>>> fn = gast.parse('''def g(p, x):
...     s_p = zeros_like_structure(p)
...     s_p['b'] += x
...     s_p['w'] += p['b'] * x
...     return as_gradient(p, s_p)''').body[0]
>>> kinds = {"p": Kind("dict", items=(("w", SCALAR), ("b", SCALAR), ("c", SCALAR)))}
>>> split = SplitDicts(kinds, "zeros_like_structure", "as_gradient", Namer.for_tree(fn).claim)
>>> print(unparse(split.visit(fn)))
def g(p, x):
    s_p_w, s_p_b, s_p_c = [0.0] * 3
    s_p_b += x
    s_p_w += p['b'] * x
    return as_gradient(p, {'w': s_p_w, 'b': s_p_b, 'c': s_p_c})
"""

from __future__ import annotations

import gast

from .. import trees
from ..trees import located


class SplitDicts(trees.Transformer):
    """``zeros``, ``as_gradient``: the generated names of those helpers (None: not
    imported, nothing to do); ``claim``: takes a new name."""

    def __init__(self, kinds: dict, zeros: str | None, as_gradient: str | None, claim):
        self.kinds = kinds
        self.zeros = zeros
        self.as_gradient = as_gradient
        self.claim = claim
        self.changed = False

    def visit_FunctionDef(self, node):
        if self.zeros is None or self.as_gradient is None:
            return node
        for stmt in list(node.body):
            split = self._candidate(stmt)
            if split is None:
                continue
            sens, dict_name, items = split
            if not self._only_at_keys(node, sens, dict_name, [key for key, _ in items]):
                continue
            names = {key: self.claim(f"{sens}_{key}" if isinstance(key, str) and
                                     f"{sens}_{key}".isidentifier() else f"{sens}_{i}")
                     for i, (key, _) in enumerate(items)}
            numbers = [names[key] for key, kind in items if kind.numeric]
            inits = [_zeros(numbers)] if numbers else []
            inits += [gast.Assign([_name(names[key], gast.Store())], gast.Call(  # a part that
                _name(self.zeros), [_item(dict_name, key)], []), None)  # is a container:
                for key, kind in items if not kind.numeric]  # zeros shaped like it
            index = node.body.index(stmt)  # (earlier splits may have moved it)
            node.body[index:index + 1] = [located(s, stmt) for s in inits]
            _Rename(sens, dict_name, names, self.as_gradient).visit(node)
            self.changed = True
        return node

    def _candidate(self, stmt):
        """``(s_p, p, its (key, kind) items)`` of ``s_p = zeros_like_structure(p)`` for a
        dict ``p``."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call) and
                isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == self.zeros and
                len(stmt.value.args) == 1 and isinstance(stmt.value.args[0], gast.Name)):
            return None
        dict_name = stmt.value.args[0].id
        kind = self.kinds.get(dict_name)
        if kind is None or kind.tag != "dict" or not kind.items:
            return None
        return stmt.targets[0].id, dict_name, list(kind.items)

    def _only_at_keys(self, node, sens: str, dict_name: str, keys: list) -> bool:
        """Is ``sens`` assigned once, and read or written only at keys of ``keys`` (and
        given back by ``as_gradient(dict_name, sens)``)?"""
        names = at_keys = returned = 0
        for n in trees.walk(node):
            if isinstance(n, gast.Name) and n.id == sens:
                names += 1
            elif isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) and \
                    n.value.id == sens:
                if not (isinstance(n.slice, gast.Constant) and n.slice.value in keys):
                    return False
                at_keys += 1
            elif isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and \
                    n.func.id == self.as_gradient and len(n.args) == 2 and \
                    all(isinstance(a, gast.Name) for a in n.args) and \
                    [a.id for a in n.args] == [dict_name, sens]:
                returned += 1
        # the zeros' own target, one name under each key, and the return
        return returned == 1 and names == 1 + at_keys + returned


class _Rename(trees.Transformer):
    """``s_p['w']`` -> ``s_p_w``; ``as_gradient(p, s_p)`` -> ``as_gradient(p, {...})``."""

    def __init__(self, sens, dict_name, names, as_gradient):
        self.sens, self.dict_name, self.names = sens, dict_name, names
        self.as_gradient = as_gradient

    def visit_Assign(self, node):
        """``s_p['w'] = s_p['w'] + e`` (a new value in the slot) is ``s_p_w += e``, which
        ``FirstAssignment`` turns into ``s_p_w = e`` where it is still zero."""
        target, value = node.targets[0], node.value
        if len(node.targets) == 1 and self._mine(target) and isinstance(value, gast.BinOp) \
                and isinstance(value.op, gast.Add) and self._mine(value.left) and \
                value.left.slice.value == target.slice.value:
            name = _name(self.names[target.slice.value], gast.Store())
            return located(gast.AugAssign(name, gast.Add(), self.visit(value.right)),
                                      node)
        return self.generic_visit(node)

    def _mine(self, node) -> bool:
        return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
            node.value.id == self.sens

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id == self.sens:
            return located(_name(self.names[node.slice.value], node.ctx), node)
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id == self.as_gradient and \
                len(node.args) == 2 and isinstance(node.args[1], gast.Name) and \
                node.args[1].id == self.sens:
            node.args[1] = gast.Dict([gast.Constant(k, None) for k in self.names],
                                     [_name(n) for n in self.names.values()])
        return node


def _name(name: str, ctx=None) -> gast.Name:
    return gast.Name(name, ctx or gast.Load(), None, None)


def _item(dict_name: str, key) -> gast.Subscript:
    return gast.Subscript(_name(dict_name), gast.Constant(key, None), gast.Load())


def _zeros(names: list) -> gast.Assign:
    if len(names) == 1:
        return gast.Assign([_name(names[0], gast.Store())], gast.Constant(0.0, None), None)
    return gast.Assign([gast.Tuple([_name(n, gast.Store()) for n in names], gast.Store())],
                       gast.BinOp(gast.List([gast.Constant(0.0, None)], gast.Load()),
                                  gast.Mult(), gast.Constant(len(names), None)), None)
