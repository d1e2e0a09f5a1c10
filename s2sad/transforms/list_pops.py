"""Pop a list's sensitivity in place where a reverse loop shortens it step by step.

``xs.append(v)`` in a loop has the adjoint ``s_v = s_xs[-1]; s_xs = s_xs[:-1]``: the
sensitivity list shrinks as the reverse sweep walks back. Each slice copies the list, so
a loop of n appends costs n^2 / 2 item copies in reverse (32,000 appends: 1.3 s for a
function that runs in 3 ms). Sensitivities are values that the passes share freely
(``s_ys = s_xs`` where ``ys = xs``), so the slice is what keeps another holder's list whole.

Where a loop reads a sensitivity list only as its last item (``s_xs[-1]``) and shortens it
only as above, the loop may own it: one copy before the loop (``s_xs = list(s_xs)``),
then ``del s_xs[-1]`` in place, O(1) per step (``s_xs.pop()`` where the statement
before it reads the last item once). No other name can hold the copy, so no
other holder sees it change (an alias, in the textbook sense, is ruled out by
construction). The outermost such loop takes the copy, once. The code is then no
longer a pure function of its values: the pass runs on the final gradient only, never on
one that will be differentiated again.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def grad_f(x, n):
...     s_xs = g(xs)
...     for i in reversed(range(n)):
...         s_x = s_x + s_xs[-1]
...         s_xs = s_xs[:-1]
...         xs.pop()
...     return s_x''').body[0]
>>> pops = ListPops()
>>> print(unparse(pops.visit(fn)))
def grad_f(x, n):
    s_xs = g(xs)
    s_xs = list(s_xs)
    for i in reversed(range(n)):
        s_x = s_x + s_xs.pop()
        xs.pop()
    return s_x
"""

from __future__ import annotations

import gast

from .. import trees
from ..trees import located

_BLOCKS = ("body", "orelse", "finalbody")


def _minus_one(node) -> bool:
    """``-1``, as the passes write it (a constant) or as parsed (``-`` applied to 1)."""
    return trees.signed_constant(node, int) == -1


def _last(node, name: str) -> bool:
    """``name[-1]``."""
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
        node.value.id == name and _minus_one(node.slice)


def _shortened(stmt) -> str | None:
    """The name ``stmt`` shortens by one (``s = s[:-1]``), else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Subscript)):
        return None
    name, value = stmt.targets[0].id, stmt.value
    part = value.slice
    if isinstance(value.value, gast.Name) and value.value.id == name and \
            isinstance(part, gast.Slice) and part.lower is None and part.step is None and \
            _minus_one(part.upper):
        return name
    return None


def _owned_in(loop, name: str) -> bool:
    """Does ``loop`` read ``name`` only as ``name[-1]`` and give it a value only by
    ``name = name[:-1]`` (at any depth)?"""
    allowed = set()  # (the Name nodes of those two forms)
    for node in trees.walk(loop):
        if _shortened(node) == name:
            allowed.add(id(node.targets[0]))
            allowed.add(id(node.value.value))
        elif _last(node, name) and isinstance(node.ctx, gast.Load):
            allowed.add(id(node.value))
    return all(id(node) in allowed for node in trees.walk(loop)
               if isinstance(node, gast.Name) and node.id == name)


class ListPops:
    """``visit(fn)``: ``fn`` with its sensitivity lists popped in place where a loop owns
    them (see the module's text). ``taken``: names the generated code cannot use for
    the builtin ``list`` (the user's globals, the function's locals). ``changed``:
    whether a loop was rewritten."""

    def __init__(self, taken=frozenset()):
        self.taken = taken
        self.changed = False

    def visit(self, fn):
        if "list" not in self.taken:
            fn.body = self._block(fn.body)
        return fn

    def _block(self, body: list) -> list:
        out = []
        for stmt in body:
            if isinstance(stmt, (gast.For, gast.While)):
                names = sorted({_shortened(n) for n in trees.walk(stmt)} - {None})
                for name in names:
                    if _owned_in(stmt, name):
                        out.append(located(gast.Assign(
                            [gast.Name(name, gast.Store(), None, None)],
                            gast.Call(gast.Name("list", gast.Load(), None, None),
                                      [gast.Name(name, gast.Load(), None, None)], []),
                            None), stmt))
                        self._pop_in_place(stmt, name)
                        self.changed = True
            for field in _BLOCKS:
                block = getattr(stmt, field, None)
                if isinstance(block, list) and block and isinstance(block[0], gast.stmt) and \
                        not isinstance(stmt, (gast.FunctionDef, gast.Lambda)):
                    setattr(stmt, field, self._block(block))
            for handler in getattr(stmt, "handlers", None) or ():
                handler.body = self._block(handler.body)
            out.append(stmt)
        return out

    def _pop_in_place(self, node, name: str) -> None:
        for field in _BLOCKS:
            block = getattr(node, field, None)
            if not (isinstance(block, list) and block and isinstance(block[0], gast.stmt)):
                continue
            out = []
            for stmt in block:
                if _shortened(stmt) != name:
                    self._pop_in_place(stmt, name)
                    out.append(stmt)
                elif out and _popped_by(out[-1], name):
                    continue  # (the statement before reads the last item: it pops it)
                else:
                    last = gast.Subscript(gast.Name(name, gast.Load(), None, None),
                                          gast.Constant(-1, None), gast.Del())
                    out.append(located(gast.Delete([last]), stmt))
            setattr(node, field, out)
        for handler in getattr(node, "handlers", None) or ():
            self._pop_in_place(handler, name)


_MAYBE = (gast.BoolOp, gast.IfExp, gast.ListComp, gast.SetComp, gast.DictComp,
          gast.GeneratorExp, gast.Lambda)  # (parts Python may evaluate never, or often)


def _popped_by(stmt, name: str) -> bool:
    """Where ``stmt`` (a simple statement) reads ``name`` once, as ``name[-1]``, and always
    evaluates that read once: that read made ``name.pop()``, which returns the item and
    drops it. True if so."""
    if not isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr)):
        return False
    reads = [n for n in trees.walk(stmt) if isinstance(n, gast.Name) and n.id == name]
    lasts = [n for n in trees.walk(stmt) if _last(n, name)]
    if len(reads) != 1 or len(lasts) != 1 or any(  # (`a or s[-1]` may not read it)
            isinstance(n, _MAYBE) and any(m is lasts[0] for m in trees.walk(n))
            for n in trees.walk(stmt)):
        return False
    pop = gast.Call(gast.Attribute(gast.Name(name, gast.Load(), None, None), "pop",
                                   gast.Load()), [], [])
    for holder in trees.walk(stmt):
        for field, value in list(gast.iter_fields(holder)):
            if value is lasts[0]:
                setattr(holder, field, pop)
                return True
            if isinstance(value, list) and any(v is lasts[0] for v in value):
                value[[v is lasts[0] for v in value].index(True)] = pop
                return True
    return False
