"""Read a shape from an argument instead of keeping a computed value alive for it.

Some helpers read only the shape of one argument: ``sum_grad(g, x, ...)``,
``unbroadcast(g, x)``, ``reduced_size(x, ...)``. When the kinds analysis knows that
value has the shape of a parameter of the function, the parameter is passed
instead, so the value, if nothing else reads it, is no longer computed at all.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.transforms.kinds import Kind
>>> fn = gast.parse('''def g(x, y):
...     t_1 = x * y + np.log(x)
...     s_1 = sum_grad(1.0, t_1, None, False)
...     return s_1''').body[0]
>>> kinds = {"x": Kind("array", "x", 1), "y": Kind("array", "x", 1), "t_1": Kind("array", "x", 1)}
>>> print(unparse(ShapeOnly(kinds, {"sum_grad": 1}).visit(fn)))
def g(x, y):
    t_1 = x * y + np.log(x)
    s_1 = sum_grad(1.0, x, None, False)
    return s_1
"""

from __future__ import annotations

import gast

from .. import trees

# helper -> position of the argument whose shape is all it reads
SHAPE_ARGUMENTS = {"sum_grad": 1, "unbroadcast": 1, "reduced_size": 0}


class ShapeOnly(trees.Transformer):
    """``helpers``: generated name of each helper -> position of its shape-only argument.

    A shape token is trusted when it names a value computed once: a parameter never
    reassigned, or a name assigned by exactly one statement at the top level of the
    function (never in a loop, whose passes may change it). Every value of that token
    then has that one value's shape, so the named value itself is passed, from the
    statement after the one that computes it.
    """

    def __init__(self, kinds: dict, helpers: dict[str, int]):
        self.kinds = kinds
        self.helpers = helpers

    def visit_FunctionDef(self, node):
        trusted = trusted_tokens(node, self.kinds)
        params = [a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
        self.by_token = {p: p for p in params if p in trusted}
        for stmt in node.body:
            self.visit(stmt)
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in trusted:
                name = stmt.targets[0].id  # available from the statement after it
                self.by_token.setdefault(name, name)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id in self.helpers:
            position = self.helpers[node.func.id]
            if position < len(node.args) and isinstance(node.args[position], gast.Name):
                kind = self.kinds.get(node.args[position].id)
                if kind is not None and kind.tag in ("array", "numeric") and \
                        kind.shape in self.by_token:
                    node.args[position] = gast.Name(self.by_token[kind.shape], gast.Load(),
                                                    None, None)
        return node


def trusted_tokens(node, kinds: dict) -> set[str]:
    """The shape tokens of ``node`` (a function) that name one value: a parameter never
    reassigned, or a name assigned by exactly one statement at the top level, whose kind
    (an array, or a number or array) has its own name as token."""
    stores: dict[str, int] = {}
    for n in trees.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    params = [a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
    names = {p for p in params if p not in stores}
    names |= {stmt.targets[0].id for stmt in node.body
              if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
              isinstance(stmt.targets[0], gast.Name) and stores.get(stmt.targets[0].id) == 1}
    return {t for t in names if kinds.get(t) is not None and kinds[t].shape == t and
            kinds[t].tag in ("array", "numeric")}
