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


def _next_of(stmt, name: str, builtin):
    """``(target, default)`` of ``target = next(name)`` (default None) or ``target =
    next(name, d)`` with ``d`` a constant or a name (evaluated where it is read, as Python
    evaluates it before the call), ``target`` a name; else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)):
        return None
    call = stmt.value
    if not (isinstance(call.func, gast.Name) and call.func.id == "next" and builtin("next") and
            not call.keywords and 1 <= len(call.args) <= 2 and
            isinstance(call.args[0], gast.Name) and call.args[0].id == name):
        return None
    if len(call.args) == 2 and not isinstance(call.args[1], (gast.Constant, gast.Name)):
        return None
    if stmt.targets[0].id == name:
        return None
    return stmt.targets[0], call.args[1] if len(call.args) == 2 else None


def _iterator_made(value, builtin, generator):
    """The iterable that ``value`` makes an iterator of, ``iter(xs)`` (``xs``), or
    ``value`` itself for a call of a generator function of the user's (``gen(x)``, where
    ``generator`` says so of its function), else None."""
    if not isinstance(value, gast.Call) or \
            any(isinstance(a, gast.Starred) for a in value.args):
        return None
    if generator is not None:
        return value if generator(value.func) is not None else None
    if isinstance(value.func, gast.Name) and value.func.id == "iter" and builtin("iter") and \
            len(value.args) == 1 and not value.keywords:
        return value.args[0]
    return None


def taken(fdef, builtin, generator=None):
    """``fdef`` with an iterator held in a name and read only by ``next`` in the statements
    right after it (``it = iter(xs); a = next(it); b = next(it)``, or ``g = gen(x)`` of a
    generator function of the user's) written as the list of the items those calls take,
    then each item read from it::

        it = []
        for it_count, it_item in zip(range(2), xs):
            it.append(it_item)
        if len(it) < 1: raise StopIteration
        a = it[0]
        b = it[1] if len(it) > 1 else d        # (next(it, d))

    ``zip`` pulls from ``range`` first, so the iterable gives exactly the items the calls
    take, no more (a generator runs to its second ``yield``, not further); the targets
    are plain names, which nothing the iterator reads can see, so taking them all at once
    gives the same values. A missing item raises ``StopIteration`` (or gives the default)
    as ``next`` does. An iterator read any other way, or with other statements between,
    is left as it is (refused where its values carry a derivative). ``generator``: the
    generators of the user's (``generators._Expander.generator``), else ``iter`` only."""
    if any(isinstance(n, (gast.Global, gast.Nonlocal)) for n in trees.walk(fdef)):
        return fdef
    stores: dict[str, int] = {}
    for node in trees.walk(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
    for block in list(_blocks(fdef)):
        i = 0
        while i < len(block):
            stmt = block[i]
            i += 1
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                    isinstance(stmt.targets[0], gast.Name)):
                continue
            name = stmt.targets[0].id
            iterable = _iterator_made(stmt.value, builtin, generator)
            if iterable is None or stores.get(name) != 1 or not builtin("zip") or \
                    not builtin("range") or not builtin("len"):
                continue
            taking = []
            for later in block[i:]:
                took = _next_of(later, name, builtin)
                if took is None:
                    break
                taking.append(took)
            if not taking or len(list(_reads(fdef, name))) != len(taking):
                continue  # (read another way too: left as it was)
            item = f"{name}_item"
            if any(isinstance(n, gast.Name) and n.id in (item, f"{name}_count")
                   for n in trees.walk(fdef)):
                continue  # (names of the user's: left as it was)
            pairs = gast.Tuple([gast.Name(f"{name}_count", gast.Store(), None, None),
                                gast.Name(item, gast.Store(), None, None)], gast.Store())
            zipped = gast.Call(gast.Name("zip", gast.Load(), None, None), [
                gast.Call(gast.Name("range", gast.Load(), None, None),
                          [gast.Constant(len(taking), None)], []), iterable], [])
            written = []
            stmt.value = trees.located(gast.List([], gast.Load()), stmt.value)
            append = gast.Expr(gast.Call(gast.Attribute(  # (a generator of the user's:
                gast.Name(name, gast.Load(), None, None), "append", gast.Load()),  # written
                [gast.Name(item, gast.Load(), None, None)], []))  # out for this loop)
            written.append(trees.located(gast.For(pairs, zipped, [
                trees.located(append, stmt)], [], None), stmt))
            for k, ((target, default), old) in enumerate(zip(taking, block[i:])):
                def held():
                    return gast.Name(name, gast.Load(), None, None)
                read = gast.Subscript(held(), gast.Constant(k, None), gast.Load())
                short = gast.Compare(gast.Call(gast.Name("len", gast.Load(), None, None),
                                               [held()], []), [gast.Lt()],
                                     [gast.Constant(k + 1, None)])
                if default is None:
                    stop = gast.Raise(gast.Name("StopIteration", gast.Load(), None, None), None)
                    written.append(trees.located(gast.If(short, [trees.located(stop, old)], []),
                                                 old))
                else:
                    read = gast.IfExp(gast.UnaryOp(gast.Not(), short), read, default)
                written.append(trees.located(gast.Assign([target], read, None), old))
            for new in written + [stmt.value]:  # (every node at the line it stands for)
                for node in trees.walk(new):
                    if "lineno" in node._attributes and not hasattr(node, "lineno"):
                        gast.copy_location(node, new)
            block[i:i + len(taking)] = written
            i += len(written)
    return fdef
