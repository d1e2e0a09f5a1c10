"""Turn each accumulator's first ``+=`` into a plain assignment and drop its zero.

``s = 0.0; s += e`` becomes ``s = e``. When ``e`` might share memory with
another array (a name, a view), later updates of ``s`` are written
``s = s + e2`` instead of ``s += e2``, so no value is ever modified in place
through an alias; an accumulator updated in place element by element keeps
its zero-initialization.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(x):
...     s_x, s_y = [0.0] * 2
...     s_y += 2.0 * x
...     s_x += s_y
...     s_x += x * s_y
...     return s_x''').body[0]
>>> print(unparse(FirstAssignment().visit(fn)))
def g(x):
    s_y = 2.0 * x
    s_x = s_y
    s_x = s_x + x * s_y
    return s_x
"""

from __future__ import annotations

import gast


def zero_init_names(stmt) -> list[str] | None:
    """Names set to zero by ``s = 0.0`` or ``s_a, s_b = [0.0] * 2``, else None."""
    if not isinstance(stmt, gast.Assign):
        return None
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, gast.Name) and isinstance(value, gast.Constant) and value.value == 0.0:
        return [target.id]
    if isinstance(target, gast.Tuple) and isinstance(value, gast.BinOp) and \
            isinstance(value.left, gast.List) and len(value.left.elts) == 1 and \
            isinstance(value.left.elts[0], gast.Constant) and value.left.elts[0].value == 0.0:
        return [e.id for e in target.elts]
    return None


def _fresh(expr) -> bool:
    """Does ``expr`` build a new value (so updating it in place is safe)?"""
    return isinstance(expr, (gast.BinOp, gast.UnaryOp, gast.Constant))


def _reads(stmt, name) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for n in gast.walk(stmt))


def _updates_in_place(stmt, name) -> bool:
    """``s[i] += g`` or ``np.add.at(s, ...)``."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Subscript):
        return isinstance(stmt.target.value, gast.Name) and stmt.target.value.id == name
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
        args = stmt.value.args
        return bool(args) and isinstance(args[0], gast.Name) and args[0].id == name
    return False


class FirstAssignment(gast.NodeTransformer):
    def visit_FunctionDef(self, node):
        body = node.body
        names = zero_init_names(body[0]) if body else None
        if not names:
            return node
        kept = [n for n in names if not self._rewrite(n, body)]
        if kept:
            body[0] = _zero_init(kept)
        else:
            del body[0]
        return node

    def _rewrite(self, name, body) -> bool:
        """Rewrite the uses of accumulator ``name``; False if it must keep its zero."""
        first = None
        for i, stmt in enumerate(body[1:], 1):
            if _reads(stmt, name) or _writes(stmt, name):
                first = i
                break
        if first is None:
            return True
        stmt = body[first]
        rest = body[first + 1:]
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) \
                and stmt.target.id == name and not _reads(stmt.value, name):
            value = stmt.value if isinstance(stmt.op, gast.Add) else \
                gast.UnaryOp(gast.USub(), stmt.value)
            later = [n for s in rest for n in gast.walk(s) if isinstance(n, gast.stmt)]
            if not _fresh(stmt.value) and any(_updates_in_place(s, name) for s in later):
                return False
            body[first] = gast.copy_location(gast.Assign([stmt.target], value, None), stmt)
            if not _fresh(stmt.value):  # it may share memory: never update it in place
                for j in range(first + 1, len(body)):
                    body[j] = _NotInPlace(name).visit(body[j])
            return True
        if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call) and \
                len(stmt.value.args) == 2 and isinstance(stmt.value.args[0], gast.Name) and \
                stmt.value.args[0].id == name and not _reads(stmt.value.args[1], name):
            stmt.value = stmt.value.args[1]  # s = add_sens(s, e) with s == 0 is s = e
            return True
        if isinstance(stmt, gast.Assign) and not _reads(stmt, name):
            return True  # overwritten before it is read: the zero was never used
        return False


class _NotInPlace(gast.NodeTransformer):
    """``s += e`` -> ``s = s + e`` for one name, at any depth."""

    def __init__(self, name):
        self.name = name

    def visit_AugAssign(self, node):
        if isinstance(node.target, gast.Name) and node.target.id == self.name:
            load = gast.Name(self.name, gast.Load(), None, None)
            return gast.copy_location(gast.Assign([node.target], gast.BinOp(
                load, node.op, node.value), None), node)
        return node


def _writes(stmt, name) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
               for n in gast.walk(stmt))


def _zero_init(names):
    targets = [gast.Name(n, gast.Store(), None, None) for n in names]
    if len(targets) == 1:
        return gast.Assign(targets, gast.Constant(0.0, None), None)
    value = gast.BinOp(gast.List([gast.Constant(0.0, None)], gast.Load()), gast.Mult(),
                       gast.Constant(len(names), None))
    return gast.Assign([gast.Tuple(targets, gast.Store())], value, None)
