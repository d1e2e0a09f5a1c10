"""Drop the reverse sweep's ``xs.pop()`` where nothing reads the list after it.

The reverse sweep undoes ``xs.append(x)`` with ``xs.pop()``, so that what it reads of
``xs`` is what the forward sweep read. Where the list is the function's own (made by
``xs = [...]``, never handed on: :func:`~s2sad.transforms.list_uses.list_uses`) and every
read of it runs before the first pop, the pops change what no one reads again: they go.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def grad_f(a, n):
...     xs = []
...     for i in range(n):
...         xs.append(a)
...     ret = sum(xs)
...     for i in reversed(range(n)):
...         xs.pop()
...         s_a = s_a + 1.0
...     return s_a''').body[0]
>>> pops = DeadPops({"sum"})
>>> print(unparse(pops.visit(fn)))
def grad_f(a, n):
    xs = []
    for i in range(n):
        xs.append(a)
    ret = sum(xs)
    for i in reversed(range(n)):
        s_a = s_a + 1.0
    return s_a

A read in the reverse loop (``s_a = s_a + xs[-1]``) would run after a pop: the pops
stay, as they do for a list that is returned, aliased or given to any other function.
"""

from __future__ import annotations

import gast

from .. import trees
from .list_uses import list_uses


def _popped(fn) -> list[str]:
    """The names of the lists ``fn`` pops by a statement of its own (``xs.pop()``), sorted."""
    return sorted({stmt.value.func.value.id for stmt in trees.walk(fn)
                   if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and
                   isinstance(stmt.value.func, gast.Attribute) and
                   stmt.value.func.attr == "pop" and
                   isinstance(stmt.value.func.value, gast.Name)})


class DeadPops:
    """``visit(fn)``: ``fn`` without the pops no read follows (see the module's text).
    ``readers``: the functions that read a list and keep nothing of it (the builtins
    ``sum`` and ``len`` where not shadowed, s2sad's helpers). ``changed``: whether a pop
    went."""

    def __init__(self, readers):
        self.readers = frozenset(readers)
        self.changed = False

    def visit(self, fn):
        for name in _popped(fn):
            uses = list_uses(fn, name, self.readers)
            if uses is None or not uses.pops or \
                    not all(read.before(pop) for read in uses.reads for pop in uses.pops):
                continue
            dead = {id(pop.stmt) for pop in uses.pops}
            for block in trees.blocks(fn.body):
                kept = [stmt for stmt in block if id(stmt) not in dead]
                block[:] = kept or [gast.Pass()]
            self.changed = True
        return fn
