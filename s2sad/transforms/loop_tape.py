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
