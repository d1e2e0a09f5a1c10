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

Where no argument has the shape, but the value is an elementwise operation or a
matrix product of values that never change, the shape is computed from its operands
(``broadcast_shape``, ``matmul_shape``), so long as that leaves the value read once
at most: then it is no longer kept alive for its shape, and forward substitution can
put it into its one use.

>>> fn = gast.parse('''def g(x, y):
...     t_1 = x * y
...     t_2 = t_1 + x
...     s_1 = unbroadcast(s_2, t_1)
...     return s_1''').body[0]
>>> kinds = {"x": Kind("array", "x", 2), "y": Kind("array", "y", 1),
...          "t_1": Kind("array", "t_1", 2), "t_2": Kind("array", "t_1", 2)}
>>> print(unparse(ShapeOnly(kinds, {"unbroadcast": 1}, lambda f: f.__name__).visit(fn)))
def g(x, y):
    t_1 = x * y
    t_2 = t_1 + x
    s_1 = unbroadcast(s_2, broadcast_shape(x, y))
    return s_1
"""

from __future__ import annotations

import gast

from .. import registry, trees
from ..runtime import broadcast_shape, matmul_shape

# the operations whose result has the broadcast shape of their two operands
ELEMENTWISE = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)


def shape_helpers(functions: dict) -> dict[str, int]:
    """``{alias: position}`` of the helpers among ``functions`` (alias -> function) that
    read the shape alone of the argument at that position (their ``shape_of`` fact).

    >>> from s2sad.runtime import sum_grad, unbroadcast
    >>> shape_helpers({"unbroadcast": unbroadcast, "sum_grad_1": sum_grad, "abs": abs})
    {'unbroadcast': 1, 'sum_grad_1': 1}
    """
    found = {alias: registry.facts(function) for alias, function in functions.items()}
    return {alias: facts.shape_of for alias, facts in found.items()
            if facts is not None and facts.shape_of is not None}


def shape_arguments(nodes, helpers: dict[str, int]) -> list:
    """The names among ``nodes`` (a walk) passed where a helper reads their shape alone
    (``helpers``: its name in the code -> that argument's position): ``x`` in
    ``unbroadcast(g, x)``."""
    found = []
    for n in nodes:
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id in helpers:
            position = helpers[n.func.id]
            if position < len(n.args) and isinstance(n.args[position], gast.Name):
                found.append(n.args[position])
    return found


class ShapeOnly(trees.Transformer):
    """``helpers``: generated name of each helper -> position of its shape-only argument.

    A shape token is trusted when it names a value computed once: a parameter never
    reassigned, or a name assigned by exactly one statement at the top level of the
    function (never in a loop, whose passes may change it). Every value of that token
    then has that one value's shape, so the named value itself is passed, from the
    statement after the one that computes it.
    """

    def __init__(self, kinds: dict, helpers: dict[str, int], shape_helper=None,
                 temporaries: set[str] | None = None):
        self.kinds = kinds
        self.helpers = helpers
        self.shape_helper = shape_helper  # broadcast_shape -> its alias in the code
        self.temporaries = temporaries  # the names forward substitution may put into a
        # use (None: any)

    def visit_FunctionDef(self, node):
        nodes = trees.walk(node)  # (one walk for the facts below: none changes the tree)
        if not any(isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and
                   n.func.id in self.helpers for n in nodes):
            return node  # no shape read (the helpers were imported for calls folded away)
        trusted = trusted_tokens(node, self.kinds, nodes)
        params = [a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
        self.by_token = {p: p for p in params if p in trusted}
        self.by_operands = self._by_operands(node, params, nodes) if self.shape_helper else {}
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
                name = node.args[position].id
                kind = self.kinds.get(name)
                if kind is not None and kind.tag in ("array", "numeric") and \
                        self.by_token.get(kind.shape, name) != name:
                    node.args[position] = gast.Name(self.by_token[kind.shape], gast.Load(),
                                                    None, None)
                elif name in self.by_operands:
                    node.args[position] = self._shape_of(name)
        return node

    def _by_operands(self, node, params, nodes=None) -> dict:
        """Temporary -> (helper, operands): the values computed once, at the top level, as
        ``a op b`` (elementwise) or ``a @ b`` of operands that never change, whose reads
        other than for their shape are one at most (a temporary, which forward
        substitution then puts into that one use) or none.

        An operand's own shape is read instead of the operand only where the operand
        is alive anyway (read twice, a parameter, a number) or is such a value itself:
        never is a temporary kept (or computed again) for another's shape."""
        stores: dict[str, int] = {}
        reads: dict[str, int] = {}  # reads other than for the shape alone
        nodes = trees.walk(node) if nodes is None else nodes
        for n in nodes:
            if isinstance(n, gast.Name):
                counts = stores if isinstance(n.ctx, gast.Store) else reads
                counts[n.id] = counts.get(n.id, 0) + 1
        for n in shape_arguments(nodes, self.helpers):
            reads[n.id] = reads.get(n.id, 0) - 1
        steady = {p for p in params if p not in stores}  # never changed, nor are shapes
        candidates = {}
        for stmt in node.body:
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                    isinstance(stmt.targets[0], gast.Name)):
                continue
            name = stmt.targets[0].id
            if stores.get(name) != 1:
                continue
            steady.add(name)  # (assigned once, here: from now on it holds this value)
            value, kind = stmt.value, self.kinds.get(name)
            if isinstance(value, gast.BinOp) and kind is not None and \
                    kind.tag in ("array", "numeric"):
                helper = matmul_shape if isinstance(value.op, gast.MatMult) else \
                    broadcast_shape if isinstance(value.op, ELEMENTWISE) else None
                operands = [value.left, value.right]
                if helper is not None and all(self._steady(o, steady, helper)
                                              for o in operands):
                    candidates[name] = (helper, operands)
        alive = {name for name, n in reads.items() if n > 1} | set(params)
        left = dict(reads)  # the reads that stay when the chosen values are computed no more
        found: dict = {}
        changed = True
        while changed:
            changed = False
            for name, (helper, operands) in candidates.items():
                movable = self.temporaries is None or name in self.temporaries
                if name in found or left.get(name, 0) > (1 if movable else 0) \
                        or not all(
                        isinstance(o, gast.Constant) or o.id in alive or o.id in found
                        for o in operands):
                    continue
                found[name] = (helper, operands)
                changed = True
                if left.get(name, 0) == 0:  # its own statement goes: its operands' reads
                    for o in operands:        # there were for the shape alone
                        if isinstance(o, gast.Name):
                            left[o.id] = left.get(o.id, 0) - 1
        return found

    def _shape_of(self, name: str):
        """``broadcast_shape(a, b)`` or ``matmul_shape(a, b)`` for a value of ``by_operands``
        (an operand that is one itself: its own shape call)."""
        helper, operands = self.by_operands[name]
        return gast.Call(gast.Name(self.shape_helper(helper), gast.Load(), None, None),
                         [self._shape_of(o.id) if isinstance(o, gast.Name) and
                          o.id in self.by_operands else trees.clone(o) for o in operands], [])

    def _steady(self, operand, steady: set, helper) -> bool:
        """``operand`` is a number, or a value that never changes and is a number or an
        array (not a list: ``[1.0] * 2`` repeats it), an array for a matrix product."""
        if isinstance(operand, gast.Constant):
            return helper is broadcast_shape and type(operand.value) in (int, float)
        if not isinstance(operand, gast.Name) or operand.id not in steady:
            return False
        kind = self.kinds.get(operand.id)
        return kind is not None and (kind.tag in ("array", "numeric") or
                                     helper is broadcast_shape and kind.tag == "scalar")


def trusted_tokens(node, kinds: dict, nodes=None) -> set[str]:
    """The shape tokens of ``node`` (a function) that name one value: a parameter never
    reassigned, or a name assigned by exactly one statement at the top level, whose kind
    (an array, or a number or array) has its own name as token. ``nodes``:
    ``trees.walk(node)``, where the caller has it."""
    stores: dict[str, int] = {}
    for n in trees.walk(node) if nodes is None else nodes:
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    params = [a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
    names = {p for p in params if p not in stores}
    names |= {stmt.targets[0].id for stmt in node.body
              if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
              isinstance(stmt.targets[0], gast.Name) and stores.get(stmt.targets[0].id) == 1}
    return {t for t in names if kinds.get(t) is not None and kinds[t].shape == t and
            kinds[t].tag in ("array", "numeric")}
