"""Copying syntax trees, fast.

Every pass copies pieces of trees (a rule's expression for each statement it is
inlined into, an index read again in the reverse sweep); ``copy.deepcopy`` is
general and slow (it keeps a memo of every object). Syntax trees need much less:
a node's fields are nodes, lists of nodes, or immutable values.

>>> import gast
>>> node = gast.parse("y = x[1:2] * 2.0").body[0]
>>> other = clone(node)
>>> gast.dump(other) == gast.dump(node), other.value is node.value
(True, False)
"""

from __future__ import annotations

import ast


def clone(node):
    """A copy of ``node`` (a node, or a list of nodes) sharing no node or list with it."""
    if type(node) is list:
        return [clone(item) for item in node]
    if isinstance(node, ast.AST):
        new = node.__class__.__new__(node.__class__)
        fields = new.__dict__
        for key, value in node.__dict__.items():
            fields[key] = clone(value) if type(value) is list or isinstance(value, ast.AST) \
                else value
        return new
    return node


def walk(node) -> list:
    """Every node under ``node`` (itself first), breadth first: ``ast.walk``'s order, as a
    list made in one go (a generator costs twice as much on the small statements that
    the passes walk most)."""
    found = [node]
    append, extend = found.append, found.extend
    AST = ast.AST
    i = 0
    while i < len(found):
        fields = found[i].__dict__
        for field in found[i]._fields:
            value = fields.get(field)
            if type(value) is list:
                extend([item for item in value if isinstance(item, AST)])
            elif isinstance(value, AST):
                append(value)
        i += 1
    return found


def children(node) -> list:
    """The nodes directly under ``node``, in field order (``ast.iter_child_nodes``)."""
    found = []
    fields = node.__dict__
    for field in node._fields:
        value = fields.get(field)
        if type(value) is list:
            found.extend([item for item in value if isinstance(item, ast.AST)])
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


_METHODS: dict = {}  # (pass class, node class) -> its visit_<Node> method or None


def _visitor(self, node):
    key = (self.__class__, node.__class__)
    method = _METHODS.get(key, _METHODS)
    if method is _METHODS:
        method = _METHODS[key] = getattr(self.__class__, "visit_" + node.__class__.__name__,
                                         None)
    return method


class _Dispatch:
    def visit(self, node):
        method = _visitor(self, node)
        return self.generic_visit(node) if method is None else method(self, node)


class Visitor(_Dispatch, ast.NodeVisitor):
    """``gast.NodeVisitor`` with a faster dispatch and walk (a pass visits every node)."""

    def generic_visit(self, node):
        for child in children(node):
            self.visit(child)


class Transformer(_Dispatch, ast.NodeTransformer):
    """``gast.NodeTransformer`` with a faster dispatch and walk; the same semantics (a
    visit returning None removes the node, a list replaces it by several)."""

    def generic_visit(self, node):
        for field in node._fields:
            old = getattr(node, field, None)
            if type(old) is list:
                new = []
                for value in old:
                    if isinstance(value, ast.AST):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, ast.AST):
                            new.extend(value)
                            continue
                    new.append(value)
                old[:] = new
            elif isinstance(old, ast.AST):
                new_node = self.visit(old)
                if new_node is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new_node)
        return node
