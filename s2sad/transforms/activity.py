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
from .resolve import classify, names_in, statement_parts


def active_names(tree: gast.FunctionDef, wrt: set[str], source) -> set[str]:
    local_names = assigned_names(tree)
    flows = []  # (targets, names the targets depend on differentiably)
    for stmt in tree.body:
        targets, value = statement_parts(stmt)
        if not targets:
            continue
        op = classify(value, source, local_names)
        if op.kind in ("nondiff", "constant"):
            deps = []
        elif op.kind in ("linear", "subscript"):
            deps = names_in(value) if op.kind == "linear" else names_in(op.operands[0])
        else:
            deps = [n for operand in op.operands for n in names_in(operand)]
        flows.append((targets, set(deps) & local_names))
    varied = set(wrt)
    for targets, deps in flows:
        if deps & varied:
            varied.update(targets)
    returned = tree.body[-1].value
    useful = {returned.id} if isinstance(returned, gast.Name) else set()
    for targets, deps in reversed(flows):
        if useful.intersection(targets):
            useful |= deps
    return varied & useful
