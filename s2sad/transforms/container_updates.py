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


def _name(name: str, store: bool = False):
    return gast.Name(name, gast.Store() if store else gast.Load(), None, None)


def _sliced(holder: str, lower, upper):
    return gast.Subscript(_name(holder), gast.Slice(lower, upper, None), gast.Load())


def _loops_over_while_changing(tree, holder: str) -> bool:
    """Does a loop of ``tree`` walk ``holder`` while its body pops or inserts into it
    (Python's walk sees the list change; a list rebuilt would not)?"""
    for node in trees.walk(tree):
        if isinstance(node, gast.For) and any(
                isinstance(n, gast.Name) and n.id == holder for n in trees.walk(node.iter)):
            for inner in trees.walk(node):
                if isinstance(inner, gast.Call) and isinstance(inner.func, gast.Attribute) \
                        and inner.func.attr in ("pop", "insert") and \
                        isinstance(inner.func.value, gast.Name) and \
                        inner.func.value.id == holder:
                    return True
    return False


def _shared(normalize, stmt, holder: str) -> bool:
    """Does another name reach ``holder``'s list and get read later (it would keep the
    list as it was, where Python changes it for both)?"""
    reaching = normalize.holders.get(normalize.current.get(holder), ())
    return any(h != holder and normalize._read_later(stmt, h) for h in sorted(reaching))


def rebuilt(normalize, stmt) -> list | None:
    """``xs.pop(i)``, ``xs.insert(i, v)`` and ``d.setdefault(k, v)`` on a list or dict
    the function makes (and no other name reads later), written as the steps they are:

        v = xs.pop()          v = xs[-1]; xs = xs[:-1]
        v = xs.pop(i)         v = xs[i]; xs = xs[:i] + xs[i:][1:]
        xs.insert(i, a)       xs = xs[:i] + [a] + xs[i:]   (list.insert is s[i:i] = [a])
        v = d.setdefault(k, a)   if k not in d: d[k] = a; then v = d[k]

    The arguments are computed first, in order, as Python computes them before the
    method runs. None for any other statement (a list walked by a loop that changes it,
    one another name reads later: left to the refusal of a method that changes its
    container unseen). The holder is then assigned in its loop: ``carried_names``."""
    target = None
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call):
        target, call = stmt.targets[0].id, stmt.value
    elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
        call = stmt.value
    else:
        return None
    func = call.func
    if not isinstance(func, gast.Attribute) or not isinstance(func.value, gast.Name) or \
            func.attr not in ("pop", "insert", "setdefault") or call.keywords or \
            any(isinstance(a, gast.Starred) for a in call.args):
        return None
    holder = func.value.id
    tree = normalize.source.tree
    if func.attr == "setdefault":
        if len(call.args) != 2 or not _made_as(tree, holder, gast.Dict, "dict") or target == holder:
            return None
    elif func.attr == "pop" and len(call.args) > 1 or \
            func.attr == "insert" and len(call.args) != 2 or target == holder or \
            not _made_as(tree, holder, gast.List, "list") or \
            _loops_over_while_changing(tree, holder):
        return None
    if _shared(normalize, stmt, holder):
        return None
    args = [normalize._computed_now(a) for a in call.args]  # (in order, first)
    out = []
    if func.attr == "setdefault":
        key, default = args
        store = gast.Assign([gast.Subscript(_name(holder), trees.clone(key), gast.Store())],
                            default, None)
        out.append(gast.If(gast.Compare(trees.clone(key), [gast.NotIn()], [_name(holder)]),
                           [trees.located(store, stmt)], []))
        picked = gast.Subscript(_name(holder), trees.clone(key), gast.Load())
    elif func.attr == "insert":
        at, value = args
        joined = gast.BinOp(gast.BinOp(_sliced(holder, None, at), gast.Add(),
                                       gast.List([value], gast.Load())),
                            gast.Add(), _sliced(holder, trees.clone(at), None))
        out.append(gast.Assign([_name(holder, True)], joined, None))
        picked = None
    else:
        at = args[0] if args else gast.Constant(-1, None)
        picked = gast.Subscript(_name(holder), at, gast.Load())
        if isinstance(at, gast.Constant) and at.value == -1:
            rest = _sliced(holder, None, gast.Constant(-1, None))
        elif isinstance(at, gast.Constant) and at.value == 0:
            rest = _sliced(holder, gast.Constant(1, None), None)
        else:
            rest = gast.BinOp(_sliced(holder, None, trees.clone(at)), gast.Add(), gast.Subscript(
                _sliced(holder, trees.clone(at), None), gast.Slice(gast.Constant(1, None), None,
                                                                   None), gast.Load()))
        popped = normalize._new_local("popped") if target is None else target
        if popped is None:
            return None
        out.append(gast.Assign([_name(popped, True)], picked, None))  # (read, then removed:
        out.append(gast.Assign([_name(holder, True)], rest, None))    # IndexError as Python)
        picked = None
        if target is not None:
            return [trees.located(s, stmt) for s in out]
    if target is not None and picked is not None:
        out.append(gast.Assign([_name(target, True)], picked, None))
    return [trees.located(s, stmt) for s in out]


def _walked_dict(normalize, target, iterable) -> tuple | None:
    """``(k, v, d)`` where ``for k, v in d.items()`` walks a dict ``d`` the function makes
    or is given as one (its descriptor), ``k`` and ``v`` plain names; else None."""
    if not (isinstance(target, gast.Tuple) and len(target.elts) == 2 and
            all(isinstance(e, gast.Name) for e in target.elts) and
            target.elts[0].id != target.elts[1].id and
            isinstance(iterable, gast.Call) and not iterable.args and
            not iterable.keywords and isinstance(iterable.func, gast.Attribute) and
            iterable.func.attr == "items" and isinstance(iterable.func.value, gast.Name)):
        return None
    name = iterable.func.value.id
    given = normalize.root.descriptors.get(name) if normalize.parent is None else None
    stored = any(isinstance(n, gast.Name) and n.id == name and
                 not isinstance(n.ctx, (gast.Load, gast.Param))
                 for n in trees.walk(normalize.source.tree))
    if not (type(given) is tuple and given and given[0] == "dict" and not stored or
            _made_as(normalize.source.tree, name, gast.Dict, "dict")):
        return None
    return target.elts[0].id, target.elts[1].id, name


def _item(key: str, holder: str):
    return gast.Subscript(_name(holder), _name(key), gast.Load())


def items_walked_by_key(normalize, stmt):
    """``for k, v in d.items(): body`` as ``for k in d: v = d[k]; body``, ``d`` a dict
    (:func:`_walked_dict`) the body does not give another value: the same pairs, in the
    same order (an items view gives each key's value as it is when the walk reaches it,
    as ``d[k]`` reads it). Its keys then carry no derivative, as ``for k in d`` gives
    them. None for any other statement."""
    if not isinstance(stmt, gast.For):
        return None
    found = _walked_dict(normalize, stmt.target, stmt.iter)
    if found is None:
        return None
    key, value, holder = found
    if any(isinstance(n, gast.Name) and n.id == holder and not isinstance(n.ctx, gast.Load)
           for s in stmt.body for n in trees.walk(s)):
        return None
    read = trees.located(gast.Assign([_name(value, True)], _item(key, holder), None), stmt)
    loop = gast.For(_name(key, True), trees.located(_name(holder), stmt.iter),
                    [read] + stmt.body, stmt.orelse, None)
    return trees.located(loop, stmt)


def items_generator(normalize, gen) -> list:
    """``for k, v in d.items()`` of a comprehension as ``for k in d for v in [d[k]]``
    (see :func:`items_walked_by_key`); ``[gen]`` where it is not that."""
    found = _walked_dict(normalize, gen.target, gen.iter)
    if found is None or gen.is_async:
        return [gen]
    key, value, holder = found
    one = gast.List([_item(key, holder)], gast.Load())
    return [gast.comprehension(_name(key, True), trees.located(_name(holder), gen.iter), [], 0),
            gast.comprehension(_name(value, True), trees.located(one, gen.iter), gen.ifs, 0)]
