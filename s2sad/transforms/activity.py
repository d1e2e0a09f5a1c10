"""Activity analysis: which variables need a sensitivity.

A variable is *active* when it depends on an argument in ``wrt`` (through
differentiable operations) and the returned value depends on it.

>>> import gast, numpy as np
>>> from s2sad.source import FunctionSource
>>> text = "def f(x, n):\\n    k = n * 2\\n    y = x * k\\n    m = np.floor(y)\\n    z = y + m\\n    return z"
>>> tree = gast.parse(text).body[0]
>>> src = FunctionSource(None, tree, "demo.py", [], {"np": np})
>>> sorted(active_names(tree, {"x"}, src))
['x', 'y', 'z']
"""

from __future__ import annotations

import gast

from .normalize import assigned_names
from .resolve import classify, is_append, is_setitem, names_in, statement_parts


def active_names(tree: gast.FunctionDef, wrt: set[str], source,
                 local_names: set[str] | None = None) -> set[str]:
    local_names = assigned_names(tree) if local_names is None else local_names
    flows = []  # (targets, names the targets depend on differentiably)

    def collect(stmts):
        for stmt in stmts:
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                collect(stmt.body)
                collect(stmt.orelse)
                continue
            targets, value = statement_parts(stmt)
            if not targets:
                continue
            if is_setitem(stmt) or is_append(stmt):  # the new y depends on v and the old y
                flows.append((targets, ({targets[0]} | set(names_in(value))) & local_names))
                continue
            op = classify(value, source, local_names)
            if op.kind in ("nondiff", "constant"):
                deps = []
            elif op.kind in ("linear", "subscript"):
                deps = names_in(value) if op.kind == "linear" else names_in(op.operands[0])
            else:  # keyword arguments carry gradients too: np.average(x, weights=w)
                operands = list(op.operands) + list((op.keywords or {}).values())
                deps = [n for operand in operands for n in names_in(operand)]
            flows.append((targets, set(deps) & local_names))

    collect(tree.body)
    varied = set(wrt)
    changed = True
    while changed:  # loops carry dependencies backwards: iterate to a fixed point
        changed = False
        for targets, deps in flows:
            if deps & varied and not varied.issuperset(targets):
                varied.update(targets)
                changed = True
    returned = tree.body[-1].value
    useful = {returned.id} if isinstance(returned, gast.Name) else set()
    changed = True
    while changed:
        changed = False
        for targets, deps in reversed(flows):
            if useful.intersection(targets) and not useful.issuperset(deps):
                useful |= deps
                changed = True
    return varied & useful
