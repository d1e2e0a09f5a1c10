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
