"""Remove statements whose values nothing reads: unused forward work and unused adjoints.

Only statements known to be free of side effects go: arithmetic, indexing, and
calls that ``is_pure`` accepts (the rule table's functions, runtime helpers).
Calls of unknown functions always stay. A comment is dropped with its block.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(x):
...     y = x * 2.0
...     z = np.sin(y)
...     print(z)
...     w = np.cos(y)
...     return y''').body[0]
>>> print(unparse(DeadCode(lambda func: unparse(func) in ("np.sin", "np.cos")).visit(fn)))
def g(x):
    y = x * 2.0
    z = np.sin(y)
    print(z)
    return y
"""

from __future__ import annotations

from typing import Callable

import gast

from ..codegen import comment_text


class DeadCode(gast.NodeTransformer):
    def __init__(self, is_pure: Callable):
        self.is_pure = is_pure

    def visit_FunctionDef(self, node):
        live: set[str] = set()
        kept = []
        for stmt in reversed(node.body):
            if comment_text(stmt) is not None:
                if kept and comment_text(kept[-1]) is None:
                    kept.append(stmt)
                continue
            written = _written(stmt)
            needed = (not written or bool(written & live) or not self._pure(stmt)
                      or isinstance(stmt, gast.Return))
            if not needed:
                continue
            if isinstance(stmt, gast.Assign) and not _subscript_target(stmt):
                live -= written
            live |= _read(stmt)
            kept.append(stmt)
        node.body = kept[::-1]
        return node

    def _pure(self, stmt) -> bool:
        for node in gast.walk(stmt):
            if isinstance(node, gast.Call) and not self.is_pure(node.func):
                return False
        return True


def _subscript_target(stmt) -> bool:
    return any(isinstance(t, gast.Subscript) for t in stmt.targets)


def _written(stmt) -> set[str]:
    if isinstance(stmt, gast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, gast.AugAssign):
        targets = [stmt.target]
    elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and stmt.value.args \
            and isinstance(stmt.value.args[0], gast.Name):
        return set()  # a call statement (np.add.at(s, ...)): kept unless pure and unused
    else:
        return set()
    names = set()
    for target in targets:
        while isinstance(target, gast.Subscript):
            target = target.value
        names |= {n.id for n in gast.walk(target) if isinstance(n, gast.Name)}
    return names


def _read(stmt) -> set[str]:
    names = {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Load)}
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
        names.add(stmt.target.id)
    for target in getattr(stmt, "targets", []) + [getattr(stmt, "target", None)]:
        if isinstance(target, gast.Subscript):
            root = target
            while isinstance(root, gast.Subscript):
                root = root.value
            if isinstance(root, gast.Name):
                names.add(root.id)
    return names
