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
        return _known_function(normalize, node.body, static) and \
            _known_function(normalize, node.orelse, static)
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
    return normalize._function_argument(node)


def bind_function(normalize, stmt, static) -> bool:
    """``fn = np.max if mode == "max" else np.mean``, ``fn = np.sum`` in a branch, or
    ``pi, tanh = np.pi, np.tanh``: the function(s) noted in ``function_args`` (the other
    items assigned one by one); True where ``stmt`` was taken so."""
    if not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1:
        return False
    target = stmt.targets[0]
    if isinstance(target, gast.Name):
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
