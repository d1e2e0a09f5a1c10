"""Turn an accumulation into a known zero into a plain assignment.

``s = 0.0; ...; s += e`` becomes ``s = e`` wherever ``s`` is known to be zero:
after its zero-initialization, after a reset, and at the top of a loop body when
it is zero before the loop and again at the end of every pass. When ``e`` might
share memory with another array (a name, a view), neither name is updated in place
afterwards (``s += e2`` becomes ``s = s + e2``), so no value changes through an
alias. Zeros that are no longer read are left for the dead-code pass.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(x, n):
...     s_x, s_y, s_1 = [0.0] * 3
...     s_y += 2.0 * x
...     for _ in range(n):
...         s_1 += s_y
...         s_y = 0.0
...         s_y += x * s_1
...         s_1 = 0.0
...     s_x += s_y
...     s_x += x * s_y
...     return s_x''').body[0]
>>> print(unparse(FirstAssignment().visit(fn)))
def g(x, n):
    s_x, s_y, s_1 = [0.0] * 3
    s_y = 2.0 * x
    for _ in range(n):
        s_1 = s_y
        s_y = 0.0
        s_y = x * s_1
        s_1 = 0.0
    s_x = s_y
    s_x = s_x + x * s_y
    return s_x
"""

from __future__ import annotations

import gast

from .. import trees


def zero_init_names(stmt) -> list[str] | None:
    """Names set to zero by ``s = 0.0`` or ``s_a, s_b = [0.0] * 2``, else None."""
    if not isinstance(stmt, gast.Assign):
        return None
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, gast.Name) and _is_zero(value):
        return [target.id]
    if isinstance(target, gast.Tuple) and isinstance(value, gast.BinOp) and \
            isinstance(value.left, gast.List) and len(value.left.elts) == 1 and \
            _is_zero(value.left.elts[0]):
        return [e.id for e in target.elts]
    return None


def _is_zero(node) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) is float and node.value == 0.0


def _fresh(expr) -> bool:
    """Does ``expr`` build a new value (so updating it in place is safe)?"""
    return isinstance(expr, (gast.BinOp, gast.UnaryOp, gast.Constant))


def _reads(node, name) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for n in trees.walk(node))


def written(stmt) -> set[str]:
    """Names a simple statement assigns or may change in place."""
    names = set()
    if isinstance(stmt, gast.Assign):
        for target in stmt.targets:
            while isinstance(target, gast.Subscript):
                target = target.value
            names |= {n.id for n in trees.walk(target) if isinstance(n, gast.Name)}
    elif isinstance(stmt, gast.AugAssign):
        target = stmt.target
        while isinstance(target, gast.Subscript):
            target = target.value
        if isinstance(target, gast.Name):
            names.add(target.id)
    elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
        call = stmt.value
        func = call.func
        if isinstance(func, gast.Attribute) and func.attr in ("append", "pop") and \
                isinstance(func.value, gast.Name):
            names.add(func.value.id)  # a list changes, not its items
        elif isinstance(func, gast.Attribute) and func.attr == "at" and call.args and \
                isinstance(call.args[0], gast.Name):
            names.add(call.args[0].id)  # np.add.at(s, i, g) changes s
        else:
            names |= {n.id for n in trees.walk(call) if isinstance(n, gast.Name)}
    return names


class FirstAssignment(trees.Transformer):
    def visit_FunctionDef(self, node):
        body = node.body
        zero = set(zero_init_names(body[0]) or []) if body else set()
        self.shared: set[str] = set()  # names that must not be updated in place
        self.block(body, zero, apply=True)
        _NotInPlace(self.shared).visit(node)
        return node

    def block(self, stmts: list, zero: set, apply: bool) -> set:
        """Walk ``stmts`` knowing which accumulators are ``zero``; rewrite when ``apply``."""
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, gast.If):
                after_body = self.block(stmt.body, set(zero), apply)
                after_else = self.block(stmt.orelse, set(zero), apply)
                zero = after_body & after_else
            elif isinstance(stmt, (gast.For, gast.While)):
                entry = set(zero)
                while True:  # zero at the top of every pass: zero before and after one
                    end = self.block(stmt.body, set(entry), apply=False)
                    if entry <= end:
                        break
                    entry &= end
                self.block(stmt.body, set(entry), apply)
                zero = entry
            else:
                new = self.simple(stmt, zero) if apply else None
                if new is not None:
                    stmts[i] = gast.copy_location(new, stmt)
                    zero -= written(stmt)
                    continue
                if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                        isinstance(stmt.targets[0], gast.Name) and _is_zero(stmt.value):
                    zero.add(stmt.targets[0].id)
                    continue
                init = zero_init_names(stmt)
                if init and i == 0:
                    continue
                zero -= written(stmt)
        return zero

    def simple(self, stmt, zero):
        """The statement rewritten as an assignment, or None."""
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) and \
                stmt.target.id in zero and isinstance(stmt.op, (gast.Add, gast.Sub)) and \
                not _reads(stmt.value, stmt.target.id):
            value = stmt.value if isinstance(stmt.op, gast.Add) else \
                gast.UnaryOp(gast.USub(), stmt.value)
            self._share(stmt.target.id, stmt.value)
            return gast.Assign([stmt.target], value, None)
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in zero and \
                isinstance(stmt.value, gast.Call) and len(stmt.value.args) == 2 and \
                isinstance(stmt.value.args[0], gast.Name) and \
                stmt.value.args[0].id == stmt.targets[0].id and \
                not _reads(stmt.value.args[1], stmt.targets[0].id):
            value = stmt.value.args[1]  # s = add_sens(s, e) with s == 0 is s = e
            self._share(stmt.targets[0].id, value)
            return gast.Assign(stmt.targets, value, None)
        return None

    def _share(self, name, value):
        if not _fresh(value):  # `s = e` may alias e: update neither in place from now on
            self.shared.add(name)
            self.shared |= {n.id for n in trees.walk(value) if isinstance(n, gast.Name)}


class _NotInPlace(trees.Transformer):
    """``s += e`` -> ``s = s + e`` for the given names, at any depth."""

    def __init__(self, names):
        self.names = names

    def visit_AugAssign(self, node):
        if isinstance(node.target, gast.Name) and node.target.id in self.names:
            load = gast.Name(node.target.id, gast.Load(), None, None)
            return gast.copy_location(gast.Assign([node.target], gast.BinOp(
                load, node.op, node.value), None), node)
        return node
