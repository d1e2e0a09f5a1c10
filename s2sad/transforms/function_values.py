"""Variables that hold functions known as the function is compiled.

``fn = np.max if mode == "max" else np.mean`` then ``fn(x)`` is ``np.max(x) if mode ==
"max" else np.mean(x)``: each candidate is called as if written where ``fn`` is, under
the branch Python took. The same holds for a function chosen by an ``if`` statement
(``if c: fn = np.sum`` ``else: fn = np.mean``), and for one unpacked from a tuple
(``pi, tanh = np.pi, np.tanh``: ``tanh(x)`` is ``np.tanh(x)``).

A variable is read so where every value the function gives it is a function s2sad
knows as it compiles (a NumPy function, a function of the user's, a ``lambda``, a
function passed to an inlined helper), and none is given in a loop. Elsewhere a call
of it stays refused at its line, as a function s2sad cannot see.

A helper's ``*fs`` and ``**kw`` given functions (``extra_functions``) hold them too:
``fs`` as a tuple of functions, ``kw["f"](x)`` the call of the one given as ``f``.

Normalize keeps what such a variable holds in ``function_args``: ``("call", the
expression)``, ``("inline", the function)``, or ``("choose", (cond, first, second))``,
the value of ``first if cond else second`` (``cond``, the test's atom, kept for the
reverse sweep as any branch's is).
"""

from __future__ import annotations

import types

import gast
import numpy as np

from .. import registry, trees
from ..errors import NoDerivativeError
from ..trees import clone


def _known_function(normalize, node, static) -> bool:
    """Is ``node`` a function s2sad knows here, without emitting code: a lambda, a
    function a caller passed, a nested ``def``, a global function (a rule's, the user's)?"""
    if isinstance(node, gast.Lambda):
        return True
    if isinstance(node, gast.IfExp):
        return all(_known_function(normalize, side, static) or
                   _plain_partial(normalize, side, static)
                   for side in (node.body, node.orelse))
    if isinstance(node, gast.Name) and (node.id in normalize.function_args or
                                        node.id in normalize.local_functions and
                                        node.id not in normalize.current):
        return True
    if not isinstance(node, (gast.Name, gast.Attribute)):
        return False
    try:
        value = static(node, normalize)
    except KeyError:
        return False
    if isinstance(value, type):  # (a class: called, it makes an object)
        return False
    try:
        if registry.lookup(value) is not None:
            return True
    except TypeError:  # (unhashable)
        return False
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc))


def _plain_partial(normalize, node, static) -> bool:
    """Is ``node`` ``functools.partial(f, ...)`` of a function s2sad knows, binding names
    and constants only (so that making it in the branch not taken changes nothing)?"""
    from .partials import _is_partial
    def plain(a) -> bool:
        return isinstance(a, (gast.Name, gast.Constant)) or isinstance(a, gast.UnaryOp) \
            and isinstance(a.operand, gast.Constant)
    return _is_partial(normalize, node, static) and \
        _known_function(normalize, node.args[0], static) and \
        all(plain(a) for a in node.args[1:]) and \
        all(k.arg is not None and plain(k.value) for k in node.keywords)


def _stores(tree, name: str):
    """The expressions ``tree`` gives ``name`` (``name = e``, or ``name`` in ``a, name =
    e1, e2``), or None where one is not so (a loop's variable, ``+=``, a store in a loop
    or a comprehension, ``a, name = pair``)."""
    found = []
    for node in trees.walk(tree):
        if isinstance(node, (gast.For, gast.While, gast.ListComp, gast.GeneratorExp,
                             gast.SetComp, gast.DictComp, gast.AugAssign, gast.AnnAssign)):
            if any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
                   for n in trees.walk(node)):
                return None
        if isinstance(node, gast.FunctionDef) and node is not tree and node.name == name:
            return None
        if not isinstance(node, gast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, gast.Name) and target.id == name:
                found.append(node.value)
            elif isinstance(target, (gast.Tuple, gast.List)) and any(
                    isinstance(n, gast.Name) and n.id == name for n in trees.walk(target)):
                if not isinstance(node.value, (gast.Tuple, gast.List)) or \
                        len(node.value.elts) != len(target.elts):
                    return None
                for elt, value in zip(target.elts, node.value.elts):
                    if isinstance(elt, gast.Name) and elt.id == name:
                        found.append(value)
                    elif any(isinstance(n, gast.Name) and n.id == name for n in trees.walk(elt)):
                        return None
    return found


def holds_functions(normalize, name: str, static) -> bool:
    """Is every value the function gives ``name`` a function s2sad knows (``_stores``;
    ``static``: what a global name is, seen from ``normalize``'s function)?"""
    stores = _stores(normalize.source.tree, name)
    return bool(stores) and all(_known_function(normalize, e, static) for e in stores)


def function_of(normalize, node, static):
    """What ``node`` holds as a ``function_args`` entry (see the module's text), emitting
    the test of a choice; None where it is not a function s2sad knows."""
    if isinstance(node, gast.IfExp):
        if not _known_function(normalize, node, static):
            return None
        known = normalize._constant_test(node.test)
        if known is not None:  # (mode="max" given to an inlined helper: decided now)
            return function_of(normalize, node.body if known else node.orelse, static)
        cond = normalize.condition(node.test)
        first = function_of(normalize, node.body, static)
        second = function_of(normalize, node.orelse, static)
        return "choose", (cond, first, second)
    if _plain_partial(normalize, node, static):  # (a choice of partials: its arguments)
        from .partials import made
        return made(normalize, node, static)
    return normalize._function_argument(node)


def bind_function(normalize, stmt, static) -> bool:
    """``fn = np.max if mode == "max" else np.mean``, ``fn = np.sum`` in a branch, or
    ``pi, tanh = np.pi, np.tanh``: the function(s) noted in ``function_args`` (the other
    items assigned one by one); True where ``stmt`` was taken so."""
    if not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1:
        return False
    target = stmt.targets[0]
    if isinstance(target, gast.Name):
        if not _known_function(normalize, stmt.value, static):  # (most statements: at once,
            return False  # not by a walk of the whole function, quadratic over its lines)
        stores = _stores(normalize.source.tree, target.id)
        if not (isinstance(stmt.value, gast.IfExp) or
                isinstance(stmt.value, (gast.Name, gast.Attribute, gast.Lambda)) and
                (normalize.nesting or stores and len(stores) > 1)) or \
                not holds_functions(normalize, target.id, static):
            return False
        entry = function_of(normalize, stmt.value, static)
        if entry is None:
            return False
        normalize.function_args[target.id] = entry
        normalize.__dict__.get("_one_branch", set()).discard(target.id)
        return True
    if not isinstance(target, (gast.Tuple, gast.List)) or \
            not isinstance(stmt.value, (gast.Tuple, gast.List)) or \
            len(target.elts) != len(stmt.value.elts) or \
            not all(isinstance(e, gast.Name) for e in target.elts):
        return False
    names = {e.id for e in target.elts}
    if len(names) != len(target.elts) or any(
            isinstance(n, gast.Name) and n.id in names for n in trees.walk(stmt.value)) or \
            not any(holds_functions(normalize, e.id, static) for e in target.elts):
        return False  # (`a, b = b, a`: each value read before any is given)
    for elt, value in zip(target.elts, stmt.value.elts):  # (one by one, in order)
        single = gast.copy_location(gast.Assign([elt], value, None), stmt)
        if holds_functions(normalize, elt.id, static):
            entry = function_of(normalize, value, static)
            if entry is not None:
                normalize.function_args[elt.id] = entry
                normalize.__dict__.get("_one_branch", set()).discard(elt.id)
                continue
        normalize.statement(single)
    return True


def call_chosen(normalize, node):
    """``fn(a)``, ``fn`` holding ``("choose", (cond, f, g))``: ``f(a) if cond else g(a)``
    (the arguments evaluated once, in the branch taken, as the call would)."""
    cond, first, second = normalize.function_args[node.func.id][1]
    calls = []
    for entry in (first, second):
        alias = normalize.namer.fresh(node.func.id)
        normalize.function_args[alias] = entry
        func = gast.copy_location(gast.Name(alias, gast.Load(), None, None), node.func)
        calls.append(gast.copy_location(gast.Call(func, [clone(a) for a in node.args],
                                                  [clone(k) for k in node.keywords]), node))
    return normalize.conditional(cond, *calls)


def chosen_value(normalize, node):
    """``fn`` read as a value, holding a choice of two functions with rules:
    ``np.max if cond else np.mean``; None where one is the user's (inlined only where
    it is called)."""
    cond, first, second = normalize.function_args[node.id][1]
    values = []
    for entry in (first, second):
        if entry[0] == "choose":
            alias = normalize.namer.fresh(node.id)
            normalize.function_args[alias] = entry
            value = chosen_value(normalize, gast.Name(alias, gast.Load(), None, None))
        else:
            value = clone(entry[1]) if entry[0] == "call" else None
        if value is None:
            return None
        values.append(value)
    return normalize.conditional(cond, *values, normalized=(True, True))


def merge_branches(normalize, cond, chosen: dict, stmt) -> None:
    """After ``if cond:`` (``chosen``: ``function_args`` after its body; the normalizer's
    own, after its ``else``): a variable given a function in both branches holds the
    choice of the two; one given a function in one branch only is left unknown (a call
    of it is refused)."""
    other = normalize.function_args
    merged = {}
    one_branch = normalize.__dict__.setdefault("_one_branch", set())
    for name in set(chosen) | set(other):
        first, second = chosen.get(name), other.get(name)
        if first is second or first == second:
            merged[name] = first
        elif first is not None and second is not None:
            merged[name] = "choose", (cond, first, second)
        else:
            one_branch.add(name)
            continue
        one_branch.discard(name)
    normalize.function_args = merged


def refuse_one_branch(normalize, node) -> None:
    """``fn(x)`` where ``fn`` was given a function in one branch of an ``if`` only:
    refused at the call (on the other path Python has no function to call)."""
    func = node.func
    if isinstance(func, gast.Name) and func.id not in normalize.function_args and \
            func.id in normalize.__dict__.get("_one_branch", ()):
        raise normalize.source.error(
            NoDerivativeError, f"no derivative rule for {func.id}() (a function held in a "
            "variable), given a function in one branch of an `if` only", node,
            f"Give {func.id} a function before the `if` or in every branch (fn = np.max if "
            "c else np.mean): s2sad then calls the one the branch taken chose.")


# --- functions held in a list, tuple or dict of the function's own ----------------------

def _index(node):
    """The key a constant index is (``acts[1]``, ``table["tanh"]``, ``acts[-1]``), or
    None."""
    if isinstance(node, gast.Constant) and type(node.value) in (int, str):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    return None


def _items_read_so(tree, name: str) -> bool:
    """Is every read of ``name`` a call of one item (``acts[0](x)``, ``acts[i](x)``) or
    the sequence of a ``for`` loop or a comprehension (``for act in acts``)?"""
    parents = {}
    for node in trees.walk(tree):
        for child in trees.children(node):
            parents[child] = node
    for node in trees.walk(tree):
        if not (isinstance(node, gast.Name) and node.id == name and
                isinstance(node.ctx, gast.Load)):
            continue
        parent = parents.get(node)
        if isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is node or \
                isinstance(parent, gast.Call) and parent.args == [node] and \
                isinstance(parent.func, gast.Name) and parent.func.id == "len":
            continue  # (len(acts): a constant, ``items_length``)
        if not (isinstance(parent, gast.Subscript) and parent.value is node and
                not isinstance(parent.slice, gast.Slice) and
                isinstance(parents.get(parent), gast.Call) and
                parents[parent].func is parent):
            return False
    return True


def _items(normalize, node, static):
    """``[np.tanh, np.sin]`` or ``{"tanh": np.tanh}`` as ``{key: entry}`` (a list's or
    tuple's items by position, from the front and the back), or None where an item is
    not a function s2sad knows or a key is not a constant."""
    if isinstance(node, (gast.List, gast.Tuple)):
        keys = list(range(len(node.elts)))
        values = node.elts
    elif isinstance(node, gast.Dict) and all(_index(k) is not None for k in node.keys):
        keys, values = [_index(k) for k in node.keys], node.values
    else:
        return None
    if not values or not all(_known_function(normalize, v, static) or
                             _plain_partial(normalize, v, static) for v in values):
        return None
    items = {}
    for key, value in zip(keys, values):
        items[key] = function_of(normalize, value, static)
    if isinstance(node, (gast.List, gast.Tuple)):
        items.update({key - len(keys): items[key] for key in keys})
    return items


def _unrolled(node):
    """``[partial(f, k=k) for k in range(3)]`` as ``[partial(f, k=0), partial(f, k=1),
    partial(f, k=2)]``: a list comprehension over a range of constants (at most 64), with
    one name for its variable and no condition; else ``node`` itself."""
    if not isinstance(node, gast.ListComp) or len(node.generators) != 1:
        return node
    gen = node.generators[0]
    call = gen.iter
    if gen.ifs or not isinstance(gen.target, gast.Name) or not isinstance(call, gast.Call) \
            or not isinstance(call.func, gast.Name) or call.func.id != "range" or \
            call.keywords or not 1 <= len(call.args) <= 3 or not all(
                isinstance(a, gast.Constant) and type(a.value) is int for a in call.args):
        return node
    numbers = range(*[a.value for a in call.args])
    if len(numbers) > 64 or any(isinstance(n, (gast.Lambda, gast.ListComp, gast.SetComp,
                                               gast.DictComp, gast.GeneratorExp))
                                for n in trees.walk(node.elt)):
        return node  # (a scope of its own inside: its names are not the comprehension's)
    class _Number(gast.NodeTransformer):
        def visit_Name(self, name):
            if name.id != gen.target.id:
                return name
            return gast.copy_location(gast.Constant(number, None), name)
    items = []
    for number in numbers:
        items.append(_Number().visit(clone(node.elt)))
    return gast.copy_location(gast.List(items, gast.Load()), node)


def bind_items(normalize, stmt, static) -> bool:
    """``acts = [np.tanh, np.sin]`` (or a tuple, or a dict with constant keys), given
    once and read only as ``acts[1](x)`` or ``for act in acts``: noted as
    ``("items", {key: entry})``; True where ``stmt`` was taken so."""
    if not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1 or \
            not isinstance(stmt.targets[0], gast.Name):
        return False
    value = _unrolled(stmt.value) if normalize.source.is_builtin("range") and \
        "range" not in normalize.locals else stmt.value  # [partial(f, k=k) for k in range(3)]
    if not isinstance(value, (gast.List, gast.Tuple, gast.Dict)):
        return False
    name = stmt.targets[0].id
    stores = _stores(normalize.source.tree, name)
    if stores is None or len(stores) != 1 or \
            not _items_read_so(normalize.source.tree, name):
        return False
    items = _items(normalize, value, static)
    if items is None:
        return False
    normalize.function_args[name] = "items", items
    return True


def call_item(normalize, node):
    """``acts[1](x)``, ``acts`` holding functions (``bind_items``): the item's function
    called; refused at the line where there is no such item (Python's IndexError or
    KeyError)."""
    holder = node.func.value.id
    key = _index(node.func.slice)
    items = normalize.function_args[holder][1]
    if key is None:  # (acts[i](x), i known when the function runs)
        return _call_indexed(normalize, node, holder, items)
    if key not in items:
        raise normalize.source.error(
            NoDerivativeError, f"no derivative rule for {holder}[{key!r}]() (a function held "
            f"in {holder!r}, which has no such item)", node,
            f"Call an item {holder} holds; Python would raise an error here.")
    alias = normalize.namer.fresh(holder)
    normalize.function_args[alias] = items[key]
    func = gast.copy_location(gast.Name(alias, gast.Load(), None, None), node.func)
    return normalize.simple(gast.copy_location(gast.Call(func, node.args, node.keywords),
                                               node))


def _held_entries(normalize, items: dict, path: str, kind: str):
    """The ``function_args`` entries of a list or tuple of functions in an argument's
    attribute (``_held_items``), in order, each noted for the entry's test; None for a
    dict (a loop walks its keys) or a function s2sad cannot see."""
    from ..source import note_function
    if kind == "dict":
        return None
    entries = [function_entry(normalize, items[k], path.rsplit(".", 1)[-1]) for k in items]
    if any(entry is None for entry in entries):
        return None
    for k in items:
        note_function(f"{path}[{k!r}]", items[k])
    return entries


def items_length(normalize, node):
    """``len(acts)``, ``acts`` holding functions (a list or dict of the function's own,
    or given as an argument): the number of its items, a constant; else None."""
    import builtins
    if len(node.args) != 1 or node.keywords or not isinstance(node.args[0], gast.Name) or \
            normalize.function_args.get(node.args[0].id, ("",))[0] != "items" or \
            normalize._callee(node.func) is not builtins.len:
        return None
    items = normalize.function_args[node.args[0].id][1]
    n = sum(1 for k in items if type(k) is int and k >= 0)
    sequence = n and set(items) == set(range(-n, n)) and all(
        items[k] is items[k - n] for k in range(n))
    return gast.Constant(n if sequence else len(items), None)


def _call_indexed(normalize, node, holder: str, items: dict):
    """``acts[i](x)``, ``i`` known only when the function runs: ``k = (0, 1, 2)[i]``
    (Python's own IndexError or KeyError where there is no such item, a negative ``i``
    counted from the end), then the call of the item ``k`` names, chosen by an ``if``
    on ``k == 0``, ``k == 1``... (each call differentiated under the branch taken)."""
    n = sum(1 for k in items if type(k) is int and k >= 0)
    if n and set(items) == set(range(-n, n)) and all(items[k] is items[k - n]
                                                      for k in range(n)):
        keys = list(range(n))  # (a list or tuple: its items by position, _items)
        table = gast.Tuple([gast.Constant(j, None) for j in keys], gast.Load())
    else:  # (a dict: its keys, as written)
        keys = list(items)
        table = gast.Dict([gast.Constant(k, None) for k in keys],
                          [gast.Constant(j, None) for j in range(len(keys))])
    position = normalize.atom(gast.copy_location(
        gast.Subscript(table, clone(node.func.slice), gast.Load()), node.func))
    entry = items[keys[-1]]
    for j in range(len(keys) - 2, -1, -1):
        test = gast.Compare(clone(position), [gast.Eq()], [gast.Constant(j, None)])
        entry = "choose", (normalize.condition(test, normalized=True), items[keys[j]], entry)
    alias = normalize.namer.fresh(holder)
    normalize.function_args[alias] = entry
    func = gast.copy_location(gast.Name(alias, gast.Load(), None, None), node.func)
    return normalize.simple(gast.copy_location(gast.Call(func, node.args, node.keywords),
                                               node))


def unrolled_functions(normalize, stmt, static) -> bool:
    """``for act in (np.tanh, np.sin): x = act(x)`` (or over a name holding such items,
    ``bind_items``), with no ``break`` or ``continue`` and ``act`` not given another
    value in it: written out item by item, ``act`` each item's function; True where
    ``stmt`` was taken so."""
    if not isinstance(stmt.target, gast.Name):
        return False
    name = stmt.target.id
    if isinstance(stmt.iter, gast.Name) and \
            normalize.function_args.get(stmt.iter.id, ("",))[0] == "items":
        items = normalize.function_args[stmt.iter.id][1]
        n = sum(1 for k in items if type(k) is int and k >= 0)
        if not n or set(items) != set(range(-n, n)) or any(  # (a dict, its keys ints too:
                items[k] is not items[k - n] for k in range(n)):  # Python loops over its keys)
            return False
        entries = [items[k] for k in range(n)]
    elif isinstance(stmt.iter, (gast.List, gast.Tuple)) and stmt.iter.elts and \
            all(_known_function(normalize, e, static) for e in stmt.iter.elts):
        entries = None
    elif _held_items(normalize, stmt.iter) is not None:  # for act in self.acts
        entries = _held_entries(normalize, *_held_items(normalize, stmt.iter))
        if entries is None:
            return False
    else:
        return False
    if any(isinstance(n, (gast.Break, gast.Continue)) or isinstance(n, gast.Name) and
           isinstance(n.ctx, gast.Store) and n.id == name
           for s in stmt.body for n in trees.walk(s)) or len(stmt.iter.__dict__.get(
               "elts", entries or ())) > 32:
        return False
    if entries is None:
        entries = [function_of(normalize, e, static) for e in stmt.iter.elts]
    for entry in entries:
        normalize.function_args[name] = entry
        normalize.__dict__.get("_one_branch", set()).discard(name)
        normalize.statements(stmt.body)
    normalize.statements(stmt.orelse)  # (no `break`: the `else` block runs)
    return True


# --- a parameter's default that is a function ----------------------------------------------

def function_default(normalize, expr, static):
    """The ``function_args`` entry of a nested ``def``'s default ``expr`` where it is a
    function s2sad knows (``def inner(y, act=np.tanh)``), else None."""
    if not isinstance(expr, (gast.Name, gast.Attribute)) or \
            not _known_function(normalize, expr, static):
        return None
    return normalize._function_argument(expr)


def function_defaults(normalize, func, fdef, names, n_pos) -> dict:
    """``{parameter: function_args entry}`` for the defaults of the function inlined
    (``func``, or the nested ``fdef``) that are functions it calls: a nested def's
    (``function_default``), and a module-level function's defaults that are the user's
    functions (``def layer(x, act=_relu)``, inlined where ``act`` is called; NumPy's are
    called through the default's value as before)."""
    if fdef is not None:
        return dict(getattr(fdef, "function_defaults", None) or {})
    if func is None:
        return {}
    from ..source import user_code
    given = dict(zip(names[n_pos - len(func.__defaults__ or ()):n_pos], func.__defaults__ or ()))
    given.update(func.__kwdefaults__ or {})
    found = {}
    for name, value in given.items():
        try:
            ruled = registry.lookup(value) is not None
        except TypeError:  # (unhashable: not a function)
            continue
        if ruled:  # (np.tanh: called by a name of the generated code)
            alias = normalize.fixed_name(value, getattr(value, "__name__", name))
            normalize.source.extra[alias] = value  # (read in the function inlined too)
            found[name] = "call", gast.Name(alias, gast.Load(), None, None)
        elif isinstance(value, types.FunctionType) and user_code(value):
            found[name] = "inline", (value, None, None)
    return found


# --- a function the caller passed: an argument, or one in an argument's attributes --------

def function_entry(normalize, value, name: str):
    """The ``function_args`` entry of ``value``, a function given when the gradient is
    called (``act_loss(x, np.tanh)``, ``self.act = np.tanh``): ``("call", its name)``
    for one with a derivative rule, ``("inline", ...)`` for the user's own (a ``def``, a
    lambda), ``("partial", ...)`` for a ``functools.partial`` of one; None where s2sad
    can differentiate none of it (its calls stay refused at their lines)."""
    import functools

    from ..source import user_code
    try:
        ruled = registry.lookup(value) is not None
    except TypeError:  # (unhashable)
        return None
    if ruled:  # (np.tanh, scipy.special.erf: called by a name of the generated code)
        alias = normalize.fixed_name(value, getattr(value, "__name__", name))
        return "call", gast.Name(alias, gast.Load(), None, None)
    if isinstance(value, types.FunctionType):
        return ("inline", (value, None, None)) if user_code(value) else None
    if type(value) is functools.partial:
        inner = function_entry(normalize, value.func, name)
        if inner is None:
            return None
        args = [_bound(normalize, v, f"{name}_arg") for v in value.args]
        keywords = {k: _bound(normalize, v, f"{name}_{k}")
                    for k, v in (value.keywords or {}).items()}
        return "partial", (inner, args, keywords)
    if isinstance(value, types.MethodType) and isinstance(value.__func__, types.FunctionType) \
            and user_code(value.__func__) and registry.lookup(value.__func__) is None and \
            not isinstance(value.__self__, type):  # (layer.forward: with its object first)
        owner = _bound(normalize, value.__self__, f"{name}_self")
        from .kinds import describe
        desc = describe(value.__self__)
        if isinstance(owner, gast.Name) and type(desc) is tuple and desc[0] == "object":
            normalize.root.objects.setdefault(owner.id, ("value", value.__self__))  # (self.f(x)
        return "partial", (("inline", (value.__func__, None, None)), [owner], {})  # in it)
    return None  # (a builtin without a rule, a classmethod: refused where it is called)


def _bound(normalize, value, name: str):
    """A partial's bound argument, as an atom of the generated code: a constant, or a
    name that holds it (read as it is when the gradient is called)."""
    if type(value) in (int, float, bool, str) or value is None:
        return gast.Constant(value, None)
    return gast.Name(normalize.fixed_name(value, name), gast.Load(), None, None)


def argument_functions(normalize, tree, descriptors, static) -> None:
    """The parameters of ``tree`` described as functions (``("function", np.tanh)``), or
    as lists, tuples or dicts of them read only as ``acts[1](x)`` and ``for act in
    acts``, that the function never gives another value: noted in ``function_args``, so
    that ``act(x)`` is the call of the function given, as if its name were written
    (``static``: a name's value, see ``single_assignment._static``)."""
    from ..source import user_code
    from .partials import _only_called
    params = [a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs]
    stored = {n.id for stmt in tree.body for n in trees.walk(stmt)
              if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    for name, desc in zip(params, descriptors or ()):
        if name in stored or type(desc) is not tuple:
            continue
        if desc == ("none",):  # (f(x, g=None): `g is None` decided, as for a helper's)
            normalize.constants[name] = None
            continue
        if desc[0] == "function":
            entry = function_entry(normalize, desc[1], name)
            if entry is not None and (entry[0] == "call" or _only_called(
                    normalize, name, static, user_code)):  # (else passed on as it is:
                normalize.function_args[name] = entry       # odeint(rhs, ...))
            continue
        items = _described_items(desc)
        if items is None or not _items_read_so(tree, name):
            continue
        entries = {key: function_entry(normalize, value, name) for key, value in items.items()}
        if all(entry is not None for entry in entries.values()):
            if desc[0] != "dict":
                entries.update({key - len(items): entries[key] for key in items})
            normalize.function_args[name] = "items", entries


def _described_items(desc):
    """``{key: function}`` for a list, tuple or dict described as functions only, else
    None."""
    if desc[0] in ("list", "tuple") and len(desc) == 2:
        pairs = list(enumerate(desc[1]))
    elif desc[0] == "dict":
        pairs = list(desc[1])
    else:
        return None
    if not pairs or not all(type(d) is tuple and d[0] == "function" for _, d in pairs):
        return None
    return {key: d[1] for key, d in pairs}


def held_function(normalize, node):
    """``self.act(x)``, ``model.acts[1](x)``, ``fs[0](x)``: a function held in an
    argument's attributes (or a module's object's), or in a list or dict given as an
    argument, at a constant index: the call of that function, as if its name were
    written (the entry tests that it still holds it); else None."""
    from ..source import note_function, note_path
    keyed = keyed_function(normalize, node)  # (kw["f"](x), a helper's **kw: ``extra_functions``)
    if keyed is not None:
        return keyed
    found = _held(normalize, node.func)
    if found is None:
        return None
    value, path, holder, attr = found
    entry = function_entry(normalize, value, attr or "fn")
    if entry is None:
        return None
    if path is not None:
        note_function(path, value)
    elif holder is not None:  # (a module's object: its attribute read again at each call)
        note_path(None, value, holder, attr)
    alias = normalize.namer.fresh(attr or "fn")
    normalize.function_args[alias] = entry
    func = gast.copy_location(gast.Name(alias, gast.Load(), None, None), node.func)
    return normalize.simple(gast.copy_location(gast.Call(func, node.args, node.keywords), node))


def _held(normalize, func):
    """``(function, the argument's path to it or None, a module's object holding it,
    the attribute's name)`` for ``func``, an attribute or a constant index reaching a
    function from an argument's (or module object's) description; else None."""
    if isinstance(func, gast.Attribute):
        ref = normalize._object_ref(func.value)
        if ref is None:
            return None
        if ref[0] == "param":
            desc = ref[4].get(func.attr)
            if type(desc) is tuple and desc[0] == "function":
                return desc[1], f"{ref[1]}.{func.attr}", None, func.attr
            return None
        if ref[0] == "value":
            from .kinds import _plain_lookup, data_descriptor
            obj = ref[1]
            if not _plain_lookup(type(obj)) or data_descriptor(type(obj), func.attr) or \
                    func.attr not in getattr(obj, "__dict__", ()):
                return None
            value = obj.__dict__[func.attr]
            from ..descriptors import function_value
            return (value, None, obj, func.attr) if function_value(value) else None
        return None
    if not isinstance(func, gast.Subscript):
        return None
    key = _index(func.slice)
    held = None if key is None else _held_items(normalize, func.value)
    if held is None:
        return None
    items, path, kind = held
    if kind != "dict" and type(key) is int and -len(items) <= key < 0:
        key += len(items)
    if key not in items:
        return None
    return items[key], f"{path}[{key!r}]", None, func.value.attr


def _held_items(normalize, node):
    """``(items, path, "list", "tuple" or "dict")`` for ``node``, an attribute of an
    argument's object described as a list, tuple or dict of functions (``model.acts``:
    ``{key: function}``); else None."""
    if not isinstance(node, gast.Attribute):
        return None
    ref = normalize._object_ref(node.value)
    if ref is None or ref[0] != "param":
        return None
    desc = ref[4].get(node.attr)
    items = None if type(desc) is not tuple else _described_items(desc)
    return None if items is None else (items, f"{ref[1]}.{node.attr}", desc[0])


# --- functions in a helper's *args and **kwargs ---------------------------------------------

def _keys_called(tree, name: str, functions: set) -> bool:
    """Is every read of ``name`` ``name["key"]`` (a constant key), the keys in
    ``functions`` only called (``kw["f"](x)``), none inside a nested ``def`` or lambda?"""
    parents = {}
    for node in trees.walk(tree):
        for child in trees.children(node):
            parents[child] = node
    for node in trees.walk(tree):
        if not (isinstance(node, gast.Name) and node.id == name):
            continue
        if isinstance(node.ctx, gast.Param) and parents.get(node) is tree.args:
            continue
        parent = parents.get(node)
        if not isinstance(node.ctx, gast.Load) or not isinstance(parent, gast.Subscript) or \
                parent.value is not node or type(_index(parent.slice)) is not str:
            return False
        if _index(parent.slice) in functions and not (
                isinstance(parents.get(parent), gast.Call) and parents[parent].func is parent):
            return False
        above = parents.get(parent)
        while above is not None and above is not tree:
            if isinstance(above, (gast.Lambda, gast.FunctionDef)):
                return False
            above = parents.get(above)
    return True


def extra_functions(normalize, tree, node):
    """``def h(x, *fs)`` or ``def h(x, **kw)`` (``tree``) called (``node``) with functions
    in its ``*fs`` (one at least of the user's, inlined) or ``**kw``: ``(node`` without
    them``, {"*": entry of fs, "**": {key: entry}})``, ``fs`` read as a tuple of functions
    (``fs[0](x)``, ``for f in fs``) and ``kw["f"](x)`` the call of that one; else None
    (NumPy's functions in ``*fs`` are values, as before)."""
    vararg, kwarg = tree.args.vararg, tree.args.kwarg
    if vararg is None and kwarg is None or \
            any(isinstance(a, gast.Starred) for a in node.args) or \
            any(k.arg is None for k in node.keywords):
        return None
    n_pos = len(tree.args.posonlyargs) + len(tree.args.args)
    names = {a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
    stored = {n.id for s in tree.body for n in trees.walk(s)
              if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    found, args, keywords = {}, list(node.args), list(node.keywords)
    if vararg is not None and len(args) > n_pos and vararg.id not in stored:
        entries = [normalize._function_argument(a) for a in args[n_pos:]]
        if all(e is not None for e in entries) and any(e[0] != "call" for e in entries) \
                and _items_read_so(tree, vararg.id):
            items = dict(enumerate(entries))
            items.update({k - len(entries): e for k, e in enumerate(entries)})
            found["*"] = "items", items
            args = args[:n_pos]
    if kwarg is not None and kwarg.id not in stored:
        positional = {a.id for a in tree.args.posonlyargs}
        extra = [k for k in keywords if k.arg not in names or k.arg in positional]
        entries = {k.arg: normalize._function_argument(k.value) for k in extra}
        functions = {key for key, e in entries.items() if e is not None}
        if functions and _keys_called(tree, kwarg.id, functions):  # (else refused, bind_extras)
            found["**"] = {key: entries[key] for key in functions}
            keywords = [k for k in keywords if k.arg not in functions or k not in extra]
    if not found:
        return None
    return gast.copy_location(gast.Call(node.func, args, keywords), node), found


def bind_extra_functions(child, tree, found) -> None:
    """The functions ``extra_functions`` found, given to the inlined helper ``child``:
    ``fs`` holds the tuple of them, ``kw["f"]`` is called as its function
    (``keyed_function``)."""
    if "*" in found:
        child.function_args[tree.args.vararg.id] = found["*"]
    if "**" in found:
        child.__dict__.setdefault("_keyed_functions", {})[tree.args.kwarg.id] = found["**"]


def keyed_function(normalize, node):
    """``kw["f"](x)``, ``kw`` a helper's ``**kw`` given a function as ``f``
    (``extra_functions``): the call of that function; else None."""
    func = node.func
    if not isinstance(func, gast.Subscript) or not isinstance(func.value, gast.Name):
        return None
    keyed = normalize.__dict__.get("_keyed_functions", {}).get(func.value.id)
    key = _index(func.slice)
    if keyed is None or key not in keyed:
        return None
    alias = normalize.namer.fresh(func.value.id)
    normalize.function_args[alias] = keyed[key]
    call = gast.Call(gast.copy_location(gast.Name(alias, gast.Load(), None, None), func),
                     node.args, node.keywords)
    return normalize.simple(gast.copy_location(call, node))
