"""Restructure early exits so every function has one ``return``, at the end.

``return`` inside ``if`` becomes an assignment to a result variable, with the
statements that follow moved into the branch that does not return; ``continue``
disappears the same way (the rest of the loop body goes into the other branch);
``break`` stays, with what follows it moved under ``else``, and a loop's
``else`` block runs under a flag that says the loop did not break.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.names import Namer
>>> tree = gast.parse('''def f(x):
...     if x > 0:
...         return x
...     y = -x
...     for i in range(3):
...         if y > 5:
...             continue
...         y = y * 2
...     return y''').body[0]
>>> print(unparse(Exits(Namer.for_tree(tree)).visit(tree)))
def f(x):
    if x > 0:
        result = x
    else:
        y = -x
        for i in range(3):
            if y > 5:
                pass
            else:
                y = y * 2
        result = y
    return result
"""

from __future__ import annotations

import gast

from .. import trees
from ..names import Namer


def _has(node, kinds, stop=()) -> bool:
    """Does ``node`` contain one of ``kinds`` (not looking inside ``stop`` nodes)?"""
    if isinstance(node, kinds):
        return True
    if isinstance(node, stop):
        return False
    return any(_has(child, kinds, stop) for child in gast.iter_child_nodes(node))


def _ends_with(block, kind) -> bool:
    if not block:
        return False
    last = block[-1]
    if isinstance(last, kind):
        return True
    return isinstance(last, gast.If) and _ends_with(last.body, kind) and \
        _ends_with(last.orelse, kind)


# statements after which the rest of their block never runs
_JUMPS = (gast.Return, gast.Break, gast.Continue, gast.Raise)


def _split(block: list, kind, loops=(gast.For, gast.While)) -> list:
    """Move what follows an ``if`` that may exit (by ``kind``) into its other branch; not
    into a branch that leaves otherwise (``if c: return v`` made ``result = v; break``)."""
    for i, stmt in enumerate(block):
        if isinstance(stmt, gast.If) and _has(stmt, kind, stop=loops):
            rest = block[i + 1:]
            body = stmt.body
            if not _ends_with(body, _JUMPS):  # (each branch its own copy: split in place)
                body, rest = body + rest, trees.clone(rest)
            orelse = stmt.orelse if _ends_with(stmt.orelse, _JUMPS) else stmt.orelse + rest
            stmt.body = _split(body, kind, loops) or [gast.Pass()]
            stmt.orelse = _split(orelse, kind, loops)
            return block[:i + 1]
    return block


def _drop_unreachable(node) -> None:
    """Cut every block of ``node`` after its first ``return``, ``break``, ``continue`` or
    ``raise``: Python never runs what follows (``break; s = s * 100``), so neither do the
    forward and the reverse sweeps."""
    for inner in trees.walk(node):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(inner, field, None)
            if isinstance(block, list):
                ends = [i for i, stmt in enumerate(block) if isinstance(stmt, _JUMPS)]
                if ends:
                    del block[ends[0] + 1:]


# statements that hold no other statement (so no loop, and no return but themselves)
_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return, gast.Pass,
           gast.Delete, gast.Raise, gast.Assert, gast.Import, gast.ImportFrom, gast.Global,
           gast.Nonlocal, gast.Break, gast.Continue)


class Exits(trees.Transformer):
    def __init__(self, namer: Namer):
        self.namer = namer

    def visit_FunctionDef(self, node):
        if not any(isinstance(n, (gast.Yield, gast.YieldFrom)) for n in trees.walk(node)):
            from .validate import explicit_returns  # (a helper defined inside that ends
            node = explicit_returns(node)  # without `return`, or has a bare one: None)
        _drop_unreachable(node)
        node.body = self._returns_out_of_loops(node.body)
        body = []
        for stmt in node.body:  # loops first (break, continue); nested defs their own way
            if isinstance(stmt, _SIMPLE):  # (no loop in it: nothing to do)
                body.append(stmt)
                continue
            new = self.visit(stmt)
            body.extend(new if isinstance(new, list) else [new])
        node.body = body
        returns = _own_returns(node)
        if len(returns) > 1 or (returns and node.body[-1] is not returns[0]):
            name = self.namer.claim("result")
            node.body = _split(node.body, gast.Return)
            node.body = [_ReturnsToAssignments(name).visit(s) for s in node.body]
            last = gast.Return(gast.Name(name, gast.Load(), None, None))
            node.body.append(gast.copy_location(last, returns[-1]))
        return node

    def _loop(self, node):
        self.generic_visit(node)
        if _has(gast.Module(node.body, []), gast.Continue, stop=(gast.For, gast.While)):
            node.body = _split(node.body, gast.Continue)
            _DropContinue().visit(gast.Module(node.body, []))
        if not _has(gast.Module(node.body, []), gast.Break, stop=(gast.For, gast.While)):
            if node.orelse:  # no break: `else` always runs after the loop
                orelse, node.orelse = node.orelse, []
                return [node] + orelse
            return node
        node.body = _split(node.body, gast.Break)
        if not node.orelse:
            return node
        flag = self.namer.fresh("broke")
        _FlagBreaks(flag).visit(gast.Module(node.body, []))
        orelse, node.orelse = node.orelse, []
        set_flag = gast.Assign([gast.Name(flag, gast.Store(), None, None)],
                               gast.Constant(False, None), None)
        test = gast.UnaryOp(gast.Not(), gast.Name(flag, gast.Load(), None, None))
        after = gast.If(test, orelse, [])
        return [gast.copy_location(set_flag, node), node, gast.copy_location(after, node)]

    visit_For = visit_While = _loop

    def _returns_out_of_loops(self, stmts: list) -> list:
        """``return v`` inside a loop: ``returned = True; result = v; break``, then
        ``if returned: return result`` after the loop (which an enclosing loop treats the
        same way). After ``while True:`` nothing else ends the loop: ``return result``."""
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.If):
                stmt.body = self._returns_out_of_loops(stmt.body)
                stmt.orelse = self._returns_out_of_loops(stmt.orelse)
            elif isinstance(stmt, (gast.For, gast.While)):
                stmt.body = self._returns_out_of_loops(stmt.body)
                stmt.orelse = self._returns_out_of_loops(stmt.orelse)
                if _has(gast.Module(stmt.body, []), gast.Return,
                        stop=(gast.For, gast.While, gast.FunctionDef, gast.Lambda)):
                    forever = isinstance(stmt, gast.While) and \
                        isinstance(stmt.test, gast.Constant) and bool(stmt.test.value) and \
                        not _has(gast.Module(stmt.body, []), gast.Break,
                                 stop=(gast.For, gast.While, gast.FunctionDef, gast.Lambda))
                    value = self.namer.fresh("result")
                    flag = None if forever else self.namer.fresh("returned")
                    stmt.body = _ReturnsToBreaks(value, flag).visit(
                        gast.Module(stmt.body, [])).body
                    value_load = gast.Name(value, gast.Load(), None, None)
                    ret = gast.copy_location(gast.Return(value_load), stmt)
                    if forever:
                        out += [stmt, ret]
                    else:
                        init = gast.Assign([gast.Name(flag, gast.Store(), None, None)],
                                           gast.Constant(False, None), None)
                        test = gast.Name(flag, gast.Load(), None, None)
                        after = gast.copy_location(gast.If(test, [ret], []), stmt)
                        # (where Normalize keeps no `result_1 = v`, no return set the flag)
                        after.returned = value
                        out += [gast.copy_location(init, stmt), stmt, after]
                    continue
            out.append(stmt)
        return out


class _ReturnsToBreaks(trees.Transformer):
    def __init__(self, value, flag):
        self.value, self.flag = value, flag

    def visit_Return(self, node):
        value = node.value if node.value is not None else gast.Constant(None, None)
        stmts = [gast.Assign([gast.Name(self.value, gast.Store(), None, None)], value, None),
                 gast.Break()]
        if self.flag is not None:
            stmts.insert(0, gast.Assign([gast.Name(self.flag, gast.Store(), None, None)],
                                        gast.Constant(True, None), None))
        return [gast.copy_location(s, node) for s in stmts]

    def visit_For(self, node):  # an inner loop's returns were moved out already
        return node

    visit_While = visit_FunctionDef = visit_Lambda = visit_For


def _own_returns(fdef) -> list:
    """The ``return`` statements of ``fdef`` itself, not of functions defined inside it."""
    found = []

    def walk(node):
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.Return):
                found.append(child)
            elif not isinstance(child, (gast.expr, gast.FunctionDef)):  # (no statement in an
                walk(child)                                            # expression)
    walk(fdef)
    return found


class _ReturnsToAssignments(trees.Transformer):
    def __init__(self, name):
        self.name = name

    def visit_FunctionDef(self, node):
        return node  # a nested def keeps its own returns

    def visit_Return(self, node):
        target = gast.Name(self.name, gast.Store(), None, None)
        return gast.copy_location(gast.Assign([target], node.value, None), node)


class _DropContinue(trees.Transformer):
    def visit_Continue(self, node):
        return gast.copy_location(gast.Pass(), node)

    def visit_For(self, node):  # an inner loop's `continue` is its own
        return node

    visit_While = visit_For


class _FlagBreaks(trees.Transformer):
    def __init__(self, flag):
        self.flag = flag

    def visit_Break(self, node):
        set_flag = gast.Assign([gast.Name(self.flag, gast.Store(), None, None)],
                               gast.Constant(True, None), None)
        return [gast.copy_location(set_flag, node), node]

    def visit_For(self, node):
        return node

    visit_While = visit_For
