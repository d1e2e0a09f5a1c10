"""A call of the user's helper that returns its argument, or a view of it, written as that.

``def ident(a): return a`` and ``def first(a): return a[0]`` give back the caller's array
itself, or a view of it: ``z = ident(y)`` is ``z = y``, and ``r = first(y)`` is
``r = y[0]``. Written so, a write through ``z`` or ``r`` (or into ``y``, read through
them) is followed as a write through a view written here is (:mod:`.view_writes`), where
it was refused as a write to a value an unknown call shares::

    def first(a):
        return a[0]

    r = first(y)                    r = y[0]
    r[1] = x[1]                     r[1] = x[1]

Only a module's function of the user's (or a closure's) whose body is one ``return`` of
a parameter, of a constant index of one (ints, slices of ints, ``None``, ``...``) or of
its ``.T``, called as the whole right side of ``name = ...`` with a name for each
parameter by position, and no defaults, is written out; not one given a derivative rule
(it is called). Any other call is left as it is (inlined later, and refused where it
shares memory unseen).

>>> import gast
>>> def first(a):
...     return a[0]
>>> tree = gast.parse("def f(x):\\n    y = np.zeros((2, 2))\\n    r = first(y)\\n"
...                   "    r[1] = x[1]\\n    return np.sum(y)").body[0]
>>> helpers = ViewHelpers({"first": first}.__getitem__)
>>> print(gast.unparse(helpers.run(tree)).strip().splitlines()[2])
    r = y[0]
"""

from __future__ import annotations

import types

import gast

from .. import registry, trees
from ..errors import S2sadError
from ..source import FunctionSource, user_code


def _int(node) -> bool:
    """Is ``node`` an int constant (``2``, ``-1``)?"""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node = node.operand
    return isinstance(node, gast.Constant) and type(node.value) is int


def _constant_index(node) -> bool:
    """Is ``node`` an index of constants only (``0``, ``1:3``, ``::-1``, ``None``,
    ``...``, ``(0, 1:)``), which NumPy reads as a basic index (a view)?"""
    if isinstance(node, gast.Constant) and (node.value is None or node.value is Ellipsis):
        return True
    if isinstance(node, gast.Slice):
        return all(part is None or _int(part) for part in (node.lower, node.upper, node.step))
    if isinstance(node, gast.Tuple):
        return all(_constant_index(part) for part in node.elts)
    return _int(node)


def _returned_view(tree) -> tuple | None:
    """``(parameters, the returned expression)`` where the helper's body (after a
    docstring) is one ``return`` of a parameter, a constant index of one or its ``.T``;
    else None."""
    args = tree.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or \
            args.posonlyargs or tree.decorator_list:
        return None
    body = list(tree.body)
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant):
        body = body[1:]  # (a docstring)
    if len(body) != 1 or not isinstance(body[0], gast.Return) or body[0].value is None:
        return None
    names = [a.id for a in args.args]
    value = body[0].value
    base = value.value if isinstance(value, (gast.Subscript, gast.Attribute)) else value
    if not (isinstance(base, gast.Name) and base.id in names):
        return None
    if isinstance(value, gast.Subscript) and not _constant_index(value.slice) or \
            isinstance(value, gast.Attribute) and value.attr != "T":
        return None
    return names, value


def _bound_once(tree) -> set:
    """The names bound once in ``tree``, its nested functions and lambdas too (a
    parameter, a store, a ``def``), and declared nowhere ``global`` or ``nonlocal``."""
    counts: dict[str, int] = {}
    declared = set()
    for node in trees.walk(tree):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, gast.FunctionDef) and node is not tree:
            counts[node.name] = counts.get(node.name, 0) + 1
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            declared.update(node.names)
    return {name for name, n in counts.items() if n == 1 and name not in declared}


def _local_helper(stmt) -> gast.FunctionDef | None:
    """``def g(a): ...`` or ``g = lambda a: ...`` (a top-level statement) as a ``def``."""
    if isinstance(stmt, gast.FunctionDef):
        return stmt
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Lambda):
        body = [gast.Return(stmt.value.body)]
        return gast.FunctionDef(stmt.targets[0].id, stmt.value.args, body, [], None, None)
    return None


class _Put(gast.NodeTransformer):
    """The helper's parameters replaced by the caller's arguments."""

    def __init__(self, given: dict):
        self.given = given

    def visit_Name(self, node):
        if node.id in self.given:
            return trees.located(trees.clone(self.given[node.id]), node)
        return node


class ViewHelpers(trees.Transformer):
    """Writes out calls of helpers that return their argument or a view of it (see the
    module)."""

    def __init__(self, resolve):
        self.resolve = resolve  # (a free name's value)
        self.changed = False

    def run(self, tree):
        self.local = {n.id for n in trees.walk(tree) if isinstance(n, gast.Name) and
                      not isinstance(n.ctx, gast.Load)} | {
            a.id for a in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
        self.local |= {n.name for n in trees.walk(tree) if isinstance(n, gast.FunctionDef)}
        self.defined = {}  # a local helper defined once, at the top level: name -> its def
        once = _bound_once(tree)
        body = []
        for stmt in tree.body:
            body.append(self.visit(stmt))
            helper = _local_helper(stmt)
            if helper is not None and helper.name in once:
                self.defined[helper.name] = helper  # (called in the statements after it)
        tree.body = body
        return tree

    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) != 1 or not isinstance(node.targets[0], gast.Name) or \
                not isinstance(node.value, gast.Call):
            return node
        written = self._written(node.value)
        if written is not None:
            node.value = trees.located(written, node.value)
            self.changed = True
        return node

    def _written(self, call):
        """What ``call`` returns, written with its arguments; None where it is no call of
        such a helper."""
        if not isinstance(call.func, gast.Name) or call.keywords or \
                not all(isinstance(a, gast.Name) for a in call.args):
            return None
        if call.func.id in self.defined:  # (ident = lambda a: a, def ident(a) here)
            helper = self.defined[call.func.id]
        elif call.func.id in self.local:
            return None
        else:
            try:
                func = self.resolve(call.func.id)
            except KeyError:
                return None
            if not isinstance(func, types.FunctionType) or not user_code(func) or \
                    registry.lookup(func) is not None:  # (a rule of the user's: called)
                return None
            try:
                helper = FunctionSource.of(func).tree
            except (S2sadError, OSError, TypeError):
                return None
        found = _returned_view(helper)
        if found is None or len(found[0]) != len(call.args):
            return None
        names, value = found
        return _Put(dict(zip(names, call.args, strict=True))).visit(trees.clone(value))
