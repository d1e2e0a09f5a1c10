"""Save a ``for i in range(n)`` loop's values in lists indexed by ``i``, not on the stack.

The forward sweep of a loop pushes each pass's overwritten values on the gradient's one
stack, and the reverse loop pops them back, last pass first. Where the loop counts
``i`` over ``range(n)`` and the reverse loop walks ``reversed(range(n))``, the value
saved in pass ``i`` is the one read back in the reverse pass ``i``: it can live at
index ``i`` of a list made once, ``n`` long, before the loop. That is what a careful
person writes by hand (Speelpenning's gradient keeps its prefix products so), and it
reads better: ``p = p_saved[i]`` says which pass's ``p`` comes back. It also costs
less than the stack's ``append`` and ``pop``, which grow and shrink the list.

Only the values a pass saves at its own top level move, each to a list of its own
(``p_saved``, ``h_saved``...); what an inner loop or branch saves stays on the stack,
in the same order as before. A loop nested in another loop keeps the stack (its lists
would be overwritten by the next pass of the outer loop before they are read back).

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.names import Namer
>>> fn = gast.parse('''def grad_f(x):
...     stack = []
...     p = 1.0
...     t_1 = len(x)
...     for i in range(t_1):
...         stack.append(p)
...         p = p * x[i]
...     s_x = [0.0] * len(x)
...     s_p = 1.0
...     for i in reversed(range(t_1)):
...         p = stack.pop()
...         s_x[i] = p * s_p
...         s_p = x[i] * s_p
...     return s_x''').body[0]
>>> tape = LoopTape({"stack"}, Namer.for_tree(fn).claim)
>>> print(unparse(tape.visit(fn)))
def grad_f(x):
    p = 1.0
    t_1 = len(x)
    p_saved = [None] * t_1
    for i in range(t_1):
        p_saved[i] = p
        p = p * x[i]
    s_x = [0.0] * len(x)
    s_p = 1.0
    for i in reversed(range(t_1)):
        p = p_saved[i]
        s_x[i] = p * s_p
        s_p = x[i] * s_p
    return s_x
>>> tape.changed
True
"""

from __future__ import annotations

from typing import Callable

import gast

from .. import trees
from ..codegen import comment_text
from ..trees import located
from .recompute import loop_pairs


def _on(node, stack: str, method: str) -> bool:
    """Is ``node`` the call ``stack.<method>(...)``?"""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == method and isinstance(node.func.value, gast.Name) and \
        node.func.value.id == stack


def _root(node):
    """The name a saved value or a restored target is about: ``p`` of ``p``,
    ``y[j]``, ``shape_of(p)`` or ``np.array(y[j])``; None for anything else."""
    while True:
        if isinstance(node, gast.Name):
            return node.id
        if isinstance(node, gast.Subscript):
            node = node.value
        elif isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords:
            node = node.args[0]
        else:
            return None


def _push(stmt, stack):
    """The value of ``stack.append(value)``, else None."""
    if isinstance(stmt, gast.Expr) and _on(stmt.value, stack, "append") and \
            len(stmt.value.args) == 1 and not stmt.value.keywords:
        return stmt.value.args[0]
    return None


def _pop(stmt, stack):
    """The target of ``target = stack.pop()``, else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], (gast.Name, gast.Subscript)) and \
            _on(stmt.value, stack, "pop") and not stmt.value.args:
        return stmt.targets[0]
    return None


def _uses(stmts, stack, method) -> int:
    return sum(1 for s in stmts for n in trees.walk(s) if _on(n, stack, method))


class LoopTape:
    """``stacks``: the names of the lists the gradient records on; ``claim(name)``: a
    free name (``p_saved``, else ``p_saved_1``...). ``changed``: whether a loop moved."""

    def __init__(self, stacks, claim: Callable[[str], str]):
        self.stacks = set(stacks)
        self.claim = claim
        self.changed = False
        self.lists: set = set()  # (the lists made: the memory budget counts them)

    def visit(self, fn):
        for stack in sorted(self.stacks):
            for block in trees.blocks(fn.body):
                self._block(block, stack)
            if self.changed and not any(
                    isinstance(n, gast.Name) and n.id == stack for s in fn.body
                    if not _made(s, stack) for n in trees.walk(s)):
                fn.body = [s for s in fn.body if not _made(s, stack)]  # no one uses it now
        return fn

    def _block(self, block: list, stack: str):
        for forward, backward in loop_pairs(block):
            made = self._pair(forward, backward, stack)
            if made:
                at = block.index(forward)
                block[at:at] = [located(m, forward) for m in made]

    def _pair(self, forward, backward, stack) -> list:
        """Move the values ``forward`` saves at its top level into lists indexed by its
        counter; the statements that make those lists (none if nothing moved)."""
        count = _counter(forward)
        if count is None or forward.orelse or backward.orelse:
            return []
        index, size = count
        for node in trees.walk(gast.Module(forward.body + backward.body, [])):
            if isinstance(node, (gast.Break, gast.Continue, gast.Return, gast.FunctionDef,
                                 gast.Lambda)) or (isinstance(node, gast.Name) and
                                                   node.id == index and
                                                   not isinstance(node.ctx, gast.Load)):
                return []  # each pass must save and restore once, at its own index
        pushes = [(k, v) for k, s in enumerate(forward.body)
                  if (v := _push(s, stack)) is not None]
        pops = [(k, t) for k, s in enumerate(backward.body) if (t := _pop(s, stack)) is not None]
        if not pushes or len(pushes) != len(pops) or \
                _uses(forward.body, stack, "pop") or _uses(backward.body, stack, "append") or \
                _uses([forward.body[k] for k, _ in pushes], stack, "append") != len(pushes) or \
                any(_uses([backward.body[k]], stack, "pop") != 1 for k, _ in pops):
            return []
        pairs = list(zip(pushes, reversed(pops)))  # the last value saved comes back first
        if any(_root(value) is None or _root(value) != _root(target)
               for (_, value), (_, target) in pairs):
            return []
        made = []
        for (k, value), (j, target) in pairs:
            tape = self.claim(f"{_root(value)}_saved")
            self.lists.add(tape)
            made.append(gast.Assign(
                [gast.Name(tape, gast.Store(), None, None)],
                gast.BinOp(gast.List([gast.Constant(None, None)], gast.Load()), gast.Mult(),
                           trees.clone(size)), None))
            forward.body[k] = located(gast.Assign(
                [gast.Subscript(gast.Name(tape, gast.Load(), None, None),
                                gast.Name(index, gast.Load(), None, None), gast.Store())],
                value, None), forward.body[k])
            backward.body[j].value = gast.Subscript(
                gast.Name(tape, gast.Load(), None, None),
                gast.Name(index, gast.Load(), None, None), gast.Load())
        self.changed = True
        return made


def _counter(loop):
    """``(i, n)`` of ``for i in range(n)`` (``n`` a name or a whole number), else None."""
    it = loop.iter
    if isinstance(loop.target, gast.Name) and isinstance(it, gast.Call) and \
            isinstance(it.func, gast.Name) and it.func.id == "range" and len(it.args) == 1 \
            and not it.keywords:
        size = it.args[0]
        if isinstance(size, gast.Name) or (isinstance(size, gast.Constant) and
                                           type(size.value) is int):
            return loop.target.id, size
    return None


def _made(stmt, stack) -> bool:
    """Is ``stmt`` ``stack = []``?"""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == stack and \
        isinstance(stmt.value, gast.List) and not stmt.value.elts


class WhileTape:
    """The tape of a ``while`` loop that is in no other loop: each value a pass saves in a
    list of its own (``x_saved``), the trip count its length, and the reverse loop walking
    the list back, as a person writes it.

    A pass that saves the same values every time (each push at the pass's top level, no
    ``break`` or ``continue``) needs no trip counter: the lists' length is the count. The
    first value the reverse pass restores becomes the reverse loop's own variable.

    >>> import gast
    >>> from s2sad.codegen import unparse
    >>> from s2sad.names import Namer
    >>> fn = gast.parse('''def grad_f(x):
    ...     stack = []
    ...     trips_1 = 0
    ...     while x < 50:
    ...         trips_1 += 1
    ...         stack.append(x)
    ...         x = x * 1.002 + math.sin(x) * 0.01 + 0.02
    ...     s_x = 1.0
    ...     for _ in range(trips_1):
    ...         x = stack.pop()
    ...         s_x = 0.01 * s_x * math.cos(x) + 1.002 * s_x
    ...     return s_x''').body[0]
    >>> tape = WhileTape({"stack"}, Namer.for_tree(fn).claim)
    >>> print(unparse(tape.visit(fn)))
    def grad_f(x):
        x_saved = []
        while x < 50:
            x_saved.append(x)
            x = x * 1.002 + math.sin(x) * 0.01 + 0.02
        s_x = 1.0
        for x in reversed(x_saved):
            s_x = 0.01 * s_x * math.cos(x) + 1.002 * s_x
        return s_x
    >>> sorted(tape.lists)
    ['x_saved']

    ``lists``: the names of the lists made (the memory budget watches them).
    """

    def __init__(self, stacks, claim: Callable[[str], str]):
        self.stacks = set(stacks)
        self.claim = claim
        self.lists: set = set()
        self.changed = False

    def visit(self, fn):
        for stack in sorted(self.stacks):
            loops = []  # (block, while loop) of the loops in no other loop
            _outer_whiles(fn.body, loops)
            for block, loop in loops:
                self._loop(fn, block, loop, stack)
            if self.changed and not any(
                    isinstance(n, gast.Name) and n.id == stack for s in fn.body
                    if not _made(s, stack) for n in trees.walk(s)):
                fn.body = [s for s in fn.body if not _made(s, stack)]  # no one uses it now
        return fn

    def _loop(self, fn, block, loop, stack) -> None:
        first = loop.body[0] if loop.body else None
        if not (isinstance(first, gast.AugAssign) and isinstance(first.target, gast.Name) and
                first.target.id.startswith("trips") and isinstance(first.op, gast.Add) and
                isinstance(first.value, gast.Constant) and first.value.value == 1) or loop.orelse:
            return
        trips = first.target.id
        start = next((k for k in range(block.index(loop) - 1, -1, -1)
                      if _assigns(block[k], trips)), None)
        if start is None or not (isinstance(block[start].value, gast.Constant) and
                                 block[start].value.value == 0) or \
                any(_names(s, trips) for s in block[start + 1:block.index(loop)]):
            return
        backward = _reverse_loop(fn, trips)
        if backward is None or _stops_early(loop.body) or \
                _names(fn, trips) != 3:
            return  # (trips_1 = 0, trips_1 += 1, range(trips_1): read nowhere else)
        body = loop.body[1:]
        pushes = [(k + 1, v) for k, s in enumerate(body) if (v := _push(s, stack)) is not None]
        pops = [(k, t) for k, s in enumerate(backward.body) if (t := _pop(s, stack)) is not None]
        if not pushes or len(pushes) != len(pops) or \
                _mentions([loop.test] + body, stack) != len(pushes) or \
                _mentions(backward.body, stack) != len(pops):
            return  # each pass saves the same values, at its top level, and nothing else
        pairs = list(zip(pushes, reversed(pops)))  # the last value saved comes back first
        if any(_root(value) is None or _root(value) != _root(target)
               for (_, value), (_, target) in pairs):
            return
        made = []
        for (k, value), (j, target) in pairs:
            tape = self.claim(f"{_root(value)}_saved")
            self.lists.add(tape)
            made.append(located(gast.Assign([gast.Name(tape, gast.Store(), None, None)],
                                             gast.List([], gast.Load()), None), block[start]))
            loop.body[k].value.func.value.id = tape
            backward.body[j].value.func.value.id = tape
        # the reverse loop's own variable: the first value restored, where nothing before
        # its restoring names it
        lead = next((j for j, target in pops if isinstance(target, gast.Name) and not any(
            _names(s, target.id) for s in backward.body[:j])), None)
        if lead is not None:
            restore = backward.body.pop(lead)
            backward.target = restore.targets[0]
            backward.iter = gast.Call(gast.Name("reversed", gast.Load(), None, None),
                                      [restore.value.func.value], [])
            if all(comment_text(s) is not None for s in backward.body):
                backward.body.append(gast.Pass())  # (a pass restoring its one value only)
        else:
            backward.iter.args = [gast.Call(gast.Name("len", gast.Load(), None, None),
                                            [gast.Name(made[0].targets[0].id, gast.Load(),
                                                       None, None)], [])]
        block[start:start + 1] = made
        del loop.body[0]
        self.changed = True


def _outer_whiles(stmts, found, in_loop=False) -> None:
    """``(block, loop)`` of each ``while`` loop in ``stmts`` that no loop holds."""
    for stmt in stmts:
        if isinstance(stmt, gast.While) and not in_loop:
            found.append((stmts, stmt))
        if isinstance(stmt, (gast.FunctionDef, gast.Lambda)):
            continue
        inner = in_loop or isinstance(stmt, (gast.For, gast.While))
        for field in ("body", "orelse", "handlers", "finalbody"):
            nested = getattr(stmt, field, None)
            if type(nested) is list:
                _outer_whiles(nested, found, inner)


def _reverse_loop(fn, trips):
    """The reverse loop ``for _ in range(trips)`` in no other loop, else None."""
    found = []

    def walk(stmts, in_loop):
        for stmt in stmts:
            if isinstance(stmt, gast.For) and _counter(stmt) is not None and \
                    isinstance(_counter(stmt)[1], gast.Name) and \
                    _counter(stmt)[1].id == trips and not stmt.orelse:
                found.append((stmt, in_loop))
            if isinstance(stmt, (gast.FunctionDef, gast.Lambda)):
                continue
            inner = in_loop or isinstance(stmt, (gast.For, gast.While))
            for field in ("body", "orelse", "handlers", "finalbody"):
                nested = getattr(stmt, field, None)
                if type(nested) is list:
                    walk(nested, inner)
    walk(fn.body, False)
    if len(found) != 1 or found[0][1]:
        return None
    loop = found[0][0]
    if not (isinstance(loop.target, gast.Name) and loop.target.id.startswith("_")) or \
            _names(gast.Module(loop.body, []), loop.target.id):
        return None
    return loop


def _stops_early(body) -> bool:
    """Does a pass of the loop end before its last statement (``break``, ``continue``,
    ``return``, ``yield``) or hold a function?"""
    def walk(stmts, nested):
        for stmt in stmts:
            for node in trees.walk(stmt):
                if isinstance(node, (gast.Return, gast.Yield, gast.YieldFrom, gast.FunctionDef,
                                     gast.Lambda, gast.Try)):
                    return True
            if isinstance(stmt, (gast.Break, gast.Continue)) and not nested:
                return True
            inner = nested or isinstance(stmt, (gast.For, gast.While))
            for field in ("body", "orelse"):
                block = getattr(stmt, field, None)
                if type(block) is list and walk(block, inner):
                    return True
        return False
    return walk(body, False)


def _assigns(stmt, name) -> bool:
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name


def _names(node, name) -> int:
    return sum(1 for n in trees.walk(node) if isinstance(n, gast.Name) and n.id == name)


def _mentions(nodes, name) -> int:
    return sum(_names(n, name) for n in nodes)
