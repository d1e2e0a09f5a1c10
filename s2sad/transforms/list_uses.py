"""Where a list that only its function holds is made, grown, shrunk and read.

An analysis, read-only: :func:`list_uses` returns the uses of a local name bound once,
to a list display, or None where the list may be held, changed or read in any other way.
The forms it knows cannot hand the list itself to anything else (no alias, no escape):

>>> import gast
>>> fn = gast.parse('''def grad_f(a, n):
...     xs = []
...     for i in range(n):
...         xs.append(a)
...     ret = sum(xs)
...     for i in reversed(range(n)):
...         xs.pop()
...     return ret''').body[0]
>>> uses = list_uses(fn, "xs", {"sum"})
>>> len(uses.appends), len(uses.pops), [use.place for use in uses.reads]
(1, 1, [3])
>>> fn.body.insert(-1, gast.parse("ys = xs").body[0])  # (an alias: no answer)
>>> list_uses(fn, "xs", {"sum"}) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from .. import trees


@dataclass(frozen=True)
class Use:
    """One use: its statement, its place in the order Python reads the statements, and
    the ids of the loops around it (a ``while`` loop's test is in its loop)."""
    stmt: gast.stmt
    place: int
    loops: tuple

    def before(self, other: Use) -> bool:
        """Does this use run before ``other``, every time both run?"""
        return self.place < other.place and not set(self.loops) & set(other.loops)


@dataclass
class ListUses:
    """``made``: the statement ``xs = [...]``; ``appends``: ``(use, value)`` of each
    ``xs.append(value)`` statement; ``pops``: each ``xs.pop()`` statement, its value
    unread; ``reads``: each ``xs[k]`` read, or ``xs`` given to a reader that keeps nothing
    of it (``sum``, ``len``)."""
    made: Use
    appends: list = field(default_factory=list)
    pops: list = field(default_factory=list)
    reads: list = field(default_factory=list)


def _method_statement(stmt, name: str, method: str, nargs: int) -> bool:
    """Is ``stmt`` the statement ``name.method(...)`` with ``nargs`` plain arguments?"""
    call = stmt.value if isinstance(stmt, gast.Expr) else None
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr == method and isinstance(call.func.value, gast.Name) and \
        call.func.value.id == name and len(call.args) == nargs and not call.keywords and \
        not any(isinstance(a, gast.Starred) for a in call.args)


def _parents(part) -> dict:
    """``{id(child): parent}`` within the expression or statement ``part``."""
    return {id(child): node for node in trees.walk(part) for child in trees.children(node)}


def list_uses(fn, name: str, readers) -> ListUses | None:
    """The uses of the list ``name`` in ``fn`` (see the module's text), or None if it is
    a parameter, declared global or nonlocal, bound more than once or not to a list
    display, read by a nested function, or used in any form but those. ``readers``: the
    names of the functions that read a list given them and keep nothing of it."""
    args = fn.args
    if name in {a.id for a in args.posonlyargs + args.args + args.kwonlyargs} or \
            name in {a.id for a in (args.vararg, args.kwarg) if a is not None}:
        return None
    for node in trees.walk(fn):
        if isinstance(node, (gast.Global, gast.Nonlocal)) and name in node.names:
            return None
        if node is not fn and isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef,
                                                 gast.Lambda, gast.ClassDef)) and \
                any(isinstance(n, gast.Name) and n.id == name for n in trees.walk(node)):
            return None
    made, appends, pops, reads, seen = [], [], [], [], 0
    for place, (stmt, loops) in enumerate(trees.statements_in_order(fn.body)):
        for part in trees.header(stmt):
            inner = loops + (id(stmt),) if isinstance(stmt, gast.While) else loops
            use = Use(stmt, place, inner)
            parents = None
            for node in trees.walk(part):
                if not (isinstance(node, gast.Name) and node.id == name):
                    continue
                seen += 1
                parents = parents or _parents(part)
                parent = parents.get(id(node))
                if isinstance(node.ctx, gast.Store):
                    if not (stmt is part and isinstance(stmt, gast.Assign) and
                            stmt.targets == [node] and isinstance(stmt.value, gast.List)):
                        return None
                    made.append(use)
                elif not isinstance(node.ctx, gast.Load):
                    return None  # (del xs)
                elif _method_statement(stmt, name, "append", 1) and \
                        parent is stmt.value.func:
                    appends.append((use, stmt.value.args[0]))
                elif _method_statement(stmt, name, "pop", 0) and parent is stmt.value.func:
                    pops.append(use)
                elif isinstance(parent, gast.Subscript) and parent.value is node and \
                        isinstance(parent.ctx, gast.Load):
                    reads.append(use)
                elif isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name) and \
                        parent.func.id in readers and \
                        any(arg is node for arg in parent.args):
                    reads.append(use)
                else:
                    return None
    found = len(made) + len(appends) + len(pops) + len(reads)
    if len(made) != 1 or found != seen or seen != sum(
            isinstance(n, gast.Name) and n.id == name for n in trees.walk(fn)):
        return None  # (a use in a statement no walk above enters: a try, a with block)
    return ListUses(made[0], appends, pops, reads)
