"""``xs.extend([a, b])`` and ``d.update({"k": v})``, written as the steps they are.

A list's ``extend`` of a list or tuple display appends its items in order; a dict's
``update`` of a display with string keys (or of keywords) stores each value at its key:

    xs.extend([a, f(a)])          d.update({"w": w1}, b=b1)

become

    t_1 = f(a)                    t_2 = w1
    xs.append(a)                  t_3 = b1
    xs.append(t_1)                d["w"] = t_2
                                  d["b"] = t_3

The holder is a variable the function makes a list (or a dict) and nothing else: an
object's own ``update`` is not this one. Each item is computed first, in order, as
Python computes the display (or the keywords) before the method runs; ``xs.extend(ys)``
of a list the function makes, a slice or a list comprehension takes a copy of its items
(``list(ys)``), then appends them in a loop. Normalization then follows ``xs.append(v)``
and ``d[k] = v`` as it follows them written so. Another argument (a generator, a value
of ``**kw``) is left to the refusal of a method that changes its container where the
reverse sweep cannot see it.

>>> import gast
>>> stmt = gast.parse("d.update({'w': w1}, b=b1)").body[0]
>>> [gast.unparse(s).strip() for s in written_out(stmt)]
["d['w'] = w1", "d['b'] = b1"]
"""

from __future__ import annotations

import gast

from .. import trees


def _method_call(stmt, name: str):
    """``stmt``'s call if it is ``v.name(...)`` alone on its line, ``v`` a plain name."""
    if not isinstance(stmt, gast.Expr) or not isinstance(stmt.value, gast.Call):
        return None
    call = stmt.value
    func = call.func
    if isinstance(func, gast.Attribute) and func.attr == name and \
            isinstance(func.value, gast.Name):
        return call
    return None


def _parts(stmt):
    """``(holder, [(key or None, value), ...])`` of an ``extend`` or ``update`` s2sad
    writes out (None for a list's item), else None."""
    call = _method_call(stmt, "extend")
    if call is not None:
        if len(call.args) != 1 or call.keywords:
            return None
        given = call.args[0]
        if isinstance(given, (gast.ListComp, gast.Subscript, gast.Name)):
            return call.func.value, given  # (items not written: a loop appends them)
        if not isinstance(given, (gast.List, gast.Tuple)) or \
                any(isinstance(e, gast.Starred) for e in given.elts):
            return None
        return call.func.value, [(None, e) for e in given.elts]
    call = _method_call(stmt, "update")
    if call is None or len(call.args) > 1 or any(k.arg is None for k in call.keywords) or \
            not call.args and not call.keywords:
        return None
    pairs = []
    if call.args:
        shown = call.args[0]
        if not isinstance(shown, gast.Dict) or not all(
                isinstance(k, gast.Constant) and isinstance(k.value, str) for k in shown.keys):
            return None  # (**kw in the display: a key None)
        pairs = [(k.value, v) for k, v in zip(shown.keys, shown.values)]
    return call.func.value, pairs + [(k.arg, k.value) for k in call.keywords]


def _made_as(tree, name: str, shown: type, builtin: str) -> bool:
    """Is ``name`` a variable of ``tree`` given only ``shown`` displays, comprehensions
    of them or ``builtin(...)`` calls (a list, a dict), never a parameter or another
    value (an object of the user's, whose own ``update`` it would be)?"""
    if tree is None:
        return True
    made = (shown, gast.ListComp) if shown is gast.List else (shown, gast.DictComp)
    stores = values = 0
    for node in trees.walk(tree):
        if isinstance(node, gast.Name) and node.id == name and \
                not isinstance(node.ctx, gast.Load):
            stores += 1
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name) and node.targets[0].id == name and (
                    isinstance(node.value, made) or isinstance(node.value, gast.Call) and
                    isinstance(node.value.func, gast.Name) and
                    node.value.func.id == builtin):
            values += 1
    return stores > 0 and stores == values


def _appended(holder, given, stmt, compute, claim) -> list | None:
    """``xs.extend(ys)`` (``ys`` a list the function makes, an item or slice ``x[1:]``, or a
    list comprehension): ``ys``'s items taken
    first (``list(ys)``: a copy, as ``extend`` takes them, ``xs.extend(xs)`` too), then
    appended one by one in a loop."""
    if isinstance(given, gast.Name):
        given = gast.Call(gast.Name("list", gast.Load(), None, None), [given], [])
    item = claim("item")
    if item is None:
        return None
    items = compute(trees.located(given, stmt))
    append = gast.Expr(gast.Call(gast.Attribute(gast.Name(holder.id, gast.Load(), None, None),
                                                "append", gast.Load()),
                                 [gast.Name(item, gast.Load(), None, None)], []))
    loop = gast.For(gast.Name(item, gast.Store(), None, None), items,
                    [trees.located(append, stmt)], [], None)
    return [trees.located(loop, stmt)]


def written_out(stmt, compute=None, tree=None, claim=None) -> list | None:
    """The statements ``stmt`` is (above), or None where it is none of those calls.
    ``compute(expression)``: the expression computed now, as a name or constant to read
    (normalization's atom; by default the expression itself, for the example above).
    ``tree``: the function, whose assignments say the holder is a list or a dict."""
    found = _parts(stmt)
    if found is None:
        return None
    holder, pairs = found
    extend = not isinstance(pairs, list) or pairs == [] or pairs[0][0] is None
    if not _made_as(tree, holder.id, gast.List if extend else gast.Dict,
                    "list" if extend else "dict"):
        return None
    compute = compute or (lambda value: value)
    if not isinstance(pairs, list):
        if claim is None or isinstance(pairs, gast.Name) and (
                tree is None or not _made_as(tree, pairs.id, gast.List, "list")):
            return None  # (a generator held: extend takes items as the list grows)
        return _appended(holder, pairs, stmt, compute, claim)
    values = [compute(value) for _, value in pairs]  # (all first, in order, as Python)
    out = []
    for (key, _), value in zip(pairs, values):
        if key is None:
            func = gast.Attribute(gast.Name(holder.id, gast.Load(), None, None), "append",
                                  gast.Load())
            new = gast.Expr(gast.Call(func, [value], []))
        else:
            new = gast.Assign([gast.Subscript(gast.Name(holder.id, gast.Load(), None, None),
                                              gast.Constant(key, None), gast.Store())],
                              value, None)
        out.append(trees.located(new, stmt))
    return out
