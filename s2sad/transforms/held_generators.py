"""A generator expression (or ``map``) held in a variable, moved to where it is consumed.

``g = (f(v) * k for v in xs)`` then ``total = sum(g)``: Python evaluates ``xs`` when
``g`` is made, and each ``f(v) * k`` when ``sum`` asks for it (with ``k`` as it is then).
So ``g = xs`` stays where it was, and the one read of ``g`` becomes the expression itself,
``sum(f(v) * k for v in g)``: the same values, computed at the same moment. ``m = map(f,
xs)`` is ``m = (f(v) for v in xs)`` (Desugar), with ``f`` unchanged until it is consumed.

A generator is consumed once. One read twice (``for v in g: ...`` then ``sum(g)``: the second
gets nothing), or in a loop that does not make it again, is refused at the read's line: a
list of it computed at once would give every reader the values, a wrong result.

>>> import gast
>>> tree = gast.parse("def f(xs, k):\\n    g = (v * k for v in xs)\\n    k = 2\\n"
...                   "    return sum(g)")
>>> print(gast.unparse(moved(tree.body[0], None)).strip())
def f(xs, k):
    g = xs
    k = 2
    return sum((v * k for v in g))
"""

from __future__ import annotations

import gast

from .. import trees

_LOOPS = (gast.For, gast.While, gast.AsyncFor)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def _blocks(node):
    """Every statement list under ``node`` (its own body, else and handlers, nested)."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
            yield block
            for stmt in block:
                if not isinstance(stmt, _SCOPES):
                    yield from _blocks(stmt)
    for handler in getattr(node, "handlers", []):
        yield from _blocks(handler)


def _reads(node, name: str, path=()):
    """``(read, path)`` for each ``name`` read under ``node``, ``path`` the nodes above it."""
    if isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Load):
        yield node, path
        return
    for field in trees.node_fields(type(node)):
        child = getattr(node, field, None)
        for part in child if isinstance(child, list) else [child]:
            if isinstance(part, gast.AST):
                yield from _reads(part, name, path + (node,))


def _once(read, path) -> bool:
    """Does the read at the end of ``path`` run once when its statement runs: under no loop,
    nested function, or comprehension other than as its first iterable?"""
    below = list(path[1:]) + [read]
    for k, node in enumerate(path):
        if isinstance(node, _SCOPES):
            return False
        if isinstance(node, _LOOPS) and (not isinstance(node, gast.For) or
                                         below[k] is not node.iter):
            return False  # (a while's test, a for's body: run again)
        if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            first = node.generators[0]
            if below[k] is not first:
                return False
        if isinstance(node, gast.comprehension) and below[k] is not node.iter:
            return False
    return True


def moved(fdef, source):
    """``fdef`` with each generator expression held in a name moved to its one read (see
    the module); refused through ``source`` where it is read twice or in a loop (left as
    it is without a ``source``)."""
    stores: dict[str, int] = {}
    for node in trees.walk(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
    for block in list(_blocks(fdef)):
        for i, stmt in enumerate(block):
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                    isinstance(stmt.targets[0], gast.Name) and
                    isinstance(stmt.value, gast.GeneratorExp)):
                continue
            name, made = stmt.targets[0].id, stmt.value
            if stores.get(name) != 1:
                continue  # (given another value too: left as it was)
            later = [(r, p) for s in block[i + 1:] for r, p in _reads(s, name, (s,))]
            elsewhere = [r for r, _ in _reads(fdef, name) if all(r is not x for x, _ in later)]
            fixed = made.__dict__.get("fixed_names", ())  # (map's function: read once)
            changed = {n.id for s in block[i + 1:] for n in trees.walk(s)
                       if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
            if len(later) == 1 and not elsewhere and _once(*later[0]) and \
                    not changed & set(fixed):
                read = later[0][0]
                use = trees.clone(made)
                use.generators[0].iter = gast.copy_location(
                    gast.Name(name, gast.Load(), None, None), read)
                _replace(later[0][1][0], read, gast.copy_location(use, read))
                stmt.value = made.generators[0].iter
                continue
            if source is None or len(later) + len(elsewhere) < 2 and not later:
                continue  # (none, or one read in another block: computed where it is made)
            where = (later[1][0] if len(later) > 1 else later[0][0]) if later else elsewhere[0]
            raise source.syntax_error(
                f"the generator {name!r} read again, or in a loop, after it is made", where,
                f"A generator gives its values once. Make a list of them "
                f"(`{name} = [...]` in place of `{name} = (...)`) to read them more than once, "
                "or read it once, outside loops.")
    return fdef


def _replace(root, old, new) -> None:
    """``old`` (a node under ``root``) replaced by ``new``, in place."""
    for node in trees.walk(root):
        for field in trees.node_fields(type(node)):
            child = getattr(node, field, None)
            if child is old:
                setattr(node, field, new)
                return
            if isinstance(child, list):
                for k, part in enumerate(child):
                    if part is old:
                        child[k] = new
                        return
