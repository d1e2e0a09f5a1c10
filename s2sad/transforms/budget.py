"""Keep the recording of unbounded loops within the memory budget.

A ``while`` loop whose tape's length is its trip count (``WhileTape``) becomes a ``for``
loop over ``checked_passes``, which checks the tape every 4096 passes with no test in
the passes between (see ``MemoryBudget``). Any other ``while`` loop whose forward sweep
pushes values on the stack gets a check
every 4096 passes: its trip counter is compared with the count of the next check
(``trips_1 >= check_1``, a comparison of two small integers, the cheapest test there is:
``not trips_1 & 4095`` made a new integer on most passes and cost 5% of a scalar loop).
A ``while`` loop in another loop runs anew in each of that loop's passes, its trip
counter from 0: it compares the stack's length instead (``len(stack) >= check_1``), with
the count set once at the function's top, so that its passes of all runs count.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.names import Namer
>>> fn = gast.parse('''def g(x):
...     stack = []
...     trips_1 = 0
...     while x < 10.0:
...         trips_1 += 1
...         stack.append(x)
...         x = x * 1.5
...     return x''').body[0]
>>> namer = Namer.for_tree(fn)
>>> print(unparse(MemoryBudget(lambda: "check_stack", {"stack"}, namer.fresh).visit(fn)))
def g(x):
    stack = []
    trips_1 = 0
    check_1 = 4096
    while x < 10.0:
        trips_1 += 1
        if trips_1 >= check_1:
            check_1 += 4096
            check_stack(stack)
        stack.append(x)
        x = x * 1.5
    return x
"""

from __future__ import annotations

from typing import Callable

import gast

from .. import trees

_EVERY = 4096  # passes between two checks of a loop's stack


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
    ``stacks``: the names of the lists the gradient records on (not the user's lists);
    ``fresh(base)``: a new name (``check_1``) for the count of a loop's next check;
    ``passes()``: the generated name of ``checked_passes``, for a loop with no trip counter;
    ``lengths``: whether a loop in another loop may count by ``len`` of the stack (the
    builtin, on NumPy's list; else it counts its own passes, as a loop in no other loop).

    A loop with no trip counter (its tape's length is the count) is checked with no test
    added to its passes: it becomes a ``for`` loop over ``checked_passes``, which checks
    the tape every 4096 passes, and the loop's own test ends it.

    >>> fn = gast.parse('''def g(x):
    ...     x_saved = []
    ...     while x < 10.0:
    ...         x_saved.append(x)
    ...         x = x * 1.5
    ...     return x''').body[0]
    >>> from s2sad.codegen import unparse
    >>> from s2sad.names import Namer
    >>> budget = MemoryBudget(lambda: "check_stack", {"x_saved"}, Namer.for_tree(fn).fresh,
    ...                       lambda: "checked_passes")
    >>> print(unparse(budget.visit(fn)))
    def g(x):
        x_saved = []
        for _ in checked_passes(x_saved):
            if not x < 10.0:
                break
            x_saved.append(x)
            x = x * 1.5
        return x
    """

    def __init__(self, helper: Callable[[], str], stacks, fresh: Callable[[str], str],
                 passes: Callable[[], str] | None = None, lengths: bool = False):
        self.helper = helper
        self.lengths = lengths
        self.stacks = set(stacks)
        self.fresh = fresh
        self.passes = passes
        self.changed = False  # (whether a visit added a check)

    def visit_FunctionDef(self, node):
        if not self.stacks:  # nothing is recorded: no loop to watch (a straight-line gradient)
            return node
        # (the loop variable of a group of passes: `_` where nothing reads `_`)
        self.throwaway = "_" if not any(
            isinstance(n, gast.Name) and n.id == "_" and not isinstance(n.ctx, gast.Store)
            for n in trees.walk(node)) else self.fresh("_")
        self.loops = 0  # (how many loops hold the statement visited)
        self.starts = []  # (the counts of checks made once, at the function's top)
        self.known = {}  # id of a while loop -> the stacks made before it
        self.early = set()  # (stacks made in a branch that a later loop counts)
        self._made_before(node.body, set(), set())
        node = self.generic_visit(node)
        node.body[0:0] = self.starts
        if self.changed:
            node.body[0:0] = [gast.copy_location(gast.Assign(
                [gast.Name(name, gast.Store(), None, None)], gast.List([], gast.Load()), None),
                node.body[0]) for name in sorted(self.early)]
        return node

    def _made_before(self, body, known: set, seen: set) -> None:
        """Note, for each ``while`` loop in ``body``, the stacks that a statement before it
        makes (``x_saved = []``): what they hold counts against the budget with what the
        loop records (two loops one after the other, each under the budget, may be over it
        together). ``known``: those surely made (before it in its block or an enclosing
        one); ``seen``: those made by any statement before it. Each in ``seen`` but not in
        ``known`` (made in a branch) is made empty at the function's top too."""
        known = set(known)
        for stmt in body:
            if isinstance(stmt, gast.While):
                self.known[id(stmt)] = frozenset(seen)
                self.early |= seen - known
            for _, value in gast.iter_fields(stmt):
                if isinstance(value, list) and value and isinstance(value[0], gast.stmt):
                    self._made_before(value, known, seen)
                elif isinstance(value, list):  # (a try's handlers)
                    for handler in value:
                        if isinstance(handler, gast.ExceptHandler):
                            self._made_before(handler.body, known, seen)
            if isinstance(stmt, gast.Assign):
                made = {t.id for t in stmt.targets
                        if isinstance(t, gast.Name) and t.id in self.stacks}
                known |= made
                seen |= made

    def visit_For(self, node):
        self.loops += 1
        self.generic_visit(node)
        self.loops -= 1
        return node

    def visit_While(self, node):
        self.loops += 1
        self.generic_visit(node)
        self.loops -= 1
        first = node.body[0] if node.body else None
        counts = isinstance(first, gast.AugAssign) and isinstance(first.target, gast.Name) \
            and first.target.id.startswith("trips")
        stacks = _pushes(node.body, self.stacks)
        if not stacks:
            return node
        watched = sorted(stacks | self.known.get(id(node), frozenset()))
        if not counts and self.passes is not None and not node.orelse:
            return self._grouped(node, watched)
        if not counts:
            return node
        trips = gast.Name(first.target.id, gast.Load(), None, None)
        count = self.fresh("check")  # (>=: no check is skipped, whatever trips starts at)
        every = gast.Constant(_EVERY, None)
        start = gast.Assign([gast.Name(count, gast.Store(), None, None)], every, None)
        nested = self.loops and self.lengths
        if nested:  # in another loop, whose passes each run this one anew: its trip
            # count starts again at 0, the stack's length does not
            recorded = gast.Call(gast.Name("len", gast.Load(), None, None),
                                 [gast.Name(min(stacks), gast.Load(), None, None)], [])
            test = gast.Compare(recorded, [gast.GtE()],
                                [gast.Name(count, gast.Load(), None, None)])
            checks = [gast.Assign([gast.Name(count, gast.Store(), None, None)],
                                  gast.BinOp(trees.clone(recorded), gast.Add(), every), None)]
        else:
            test = gast.Compare(trips, [gast.GtE()],
                                [gast.Name(count, gast.Load(), None, None)])
            checks = [gast.AugAssign(gast.Name(count, gast.Store(), None, None), gast.Add(),
                                     every)]
        checks.append(gast.Expr(gast.Call(gast.Name(self.helper(), gast.Load(), None, None),
                                          [gast.Name(s, gast.Load(), None, None)
                                           for s in watched], [])))  # (all, summed)
        node.body.insert(1, gast.copy_location(gast.If(test, checks, []), first))
        self.changed = True
        if nested:
            self.starts.append(gast.copy_location(start, node))
            return node
        return [gast.copy_location(start, node), node]

    def _grouped(self, node, stacks):
        """``while c: body`` as ``for _ in checked_passes(stacks): if not c: break``, then
        ``body``: the same passes (``break`` and ``continue`` too), each with one test."""
        stop = gast.If(gast.UnaryOp(gast.Not(), node.test), [gast.Break()], [])
        loop = gast.For(gast.Name(self.throwaway, gast.Store(), None, None),
                        gast.Call(gast.Name(self.passes(), gast.Load(), None, None),
                                  [gast.Name(s, gast.Load(), None, None)
                                   for s in stacks], []),
                        [gast.copy_location(stop, node)] + node.body, [], None)
        self.changed = True
        return gast.copy_location(loop, node)
