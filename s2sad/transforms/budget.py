"""Keep the recording of unbounded loops within the memory budget.

A ``while`` loop whose forward sweep pushes values on the stack gets a check
every 4096 passes (``not trips & 4095``: one bitwise test per pass).

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(x):
...     stack = []
...     trips_1 = 0
...     while x < 10.0:
...         trips_1 += 1
...         stack.append(x)
...         x = x * 1.5
...     return x''').body[0]
>>> print(unparse(MemoryBudget(lambda: "check_stack").visit(fn)))
def g(x):
    stack = []
    trips_1 = 0
    while x < 10.0:
        trips_1 += 1
        if not trips_1 & 4095:
            check_stack(stack)
        stack.append(x)
        x = x * 1.5
    return x
"""

from __future__ import annotations

from typing import Callable

import gast

from .. import trees


def _pushes(stmts, stacks):
    """The names of ``stacks`` that ``stmts`` push to."""
    names = set()
    for node in trees.walk(gast.Module(stmts, [])):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                node.func.attr == "append" and isinstance(node.func.value, gast.Name) and \
                node.func.value.id in stacks:
            names.add(node.func.value.id)
    return names


class MemoryBudget(trees.Transformer):
    """``helper()`` gives the generated name of ``check_stack`` (imported on first use);
    ``stacks``: the names of the lists the gradient records on (not the user's lists)."""

    def __init__(self, helper: Callable[[], str], stacks=frozenset({"stack"})):
        self.helper = helper
        self.stacks = set(stacks)

    def visit_FunctionDef(self, node):
        if not self.stacks:  # nothing is recorded: no loop to watch (a straight-line gradient)
            return node
        return self.generic_visit(node)

    def visit_While(self, node):
        self.generic_visit(node)
        first = node.body[0] if node.body else None
        counts = isinstance(first, gast.AugAssign) and isinstance(first.target, gast.Name) \
            and first.target.id.startswith("trips")
        stacks = _pushes(node.body, self.stacks)
        if not counts or not stacks:
            return node
        trips = gast.Name(first.target.id, gast.Load(), None, None)
        test = gast.UnaryOp(gast.Not(), gast.BinOp(trips, gast.BitAnd(),
                                                   gast.Constant(4095, None)))
        checks = [gast.Expr(gast.Call(gast.Name(self.helper(), gast.Load(), None, None),
                                      [gast.Name(s, gast.Load(), None, None)], []))
                  for s in sorted(stacks)]
        check = gast.copy_location(gast.If(test, checks, []), first)
        node.body.insert(1, check)
        return node
