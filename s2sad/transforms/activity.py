"""Activity analysis: which variables need a sensitivity.

A variable is *active* when it depends on an argument in ``wrt`` (through
differentiable operations) and the returned value depends on it, but for a maximum
whose shift cancels (log-sum-exp, softmax: see ``shift_invariant``).

>>> import gast, numpy as np
>>> from s2sad.source import FunctionSource
>>> text = "def f(x, n):\\n    k = n * 2\\n    y = x * k\\n    m = np.floor(y)\\n    z = y + m\\n    return z"
>>> tree = gast.parse(text).body[0]
>>> src = FunctionSource(None, tree, "demo.py", [], {"np": np})
>>> sorted(active_names(tree, {"x"}, src))
['x', 'y', 'z']
"""

from __future__ import annotations

import dataclasses

import gast

from .. import registry, trees
from ..trees import assigned_names
from ..errors import NoDerivativeError
from .dtypes import UNKNOWN, dtype_kinds, store_effect
from .attributes import module_state, refuse_read_back
from .call_cycles import refuse_changes_read_by_recursion
from .higher import is_generated
from .resolve import (classify, foreign_index, is_append, is_setitem, names_in,
                      statement_parts, static_value)


def active_names(tree: gast.FunctionDef, wrt: set[str], source,
                 local_names: set[str] | None = None, kinds: dict | None = None) -> set[str]:
    local_names = assigned_names(tree) if local_names is None else local_names
    integers = integer_names(tree, source, local_names)
    flows = []  # (targets, names the targets depend on differentiably)
    held = {}  # (add = ys.append: {"add": "ys"})
    loaded = set(names_in(tree))
    results = []  # (targets, kept): y = m.step(t), y read
    for stmt in trees.walk(tree):
        receiver = _held_method(stmt, local_names)
        if receiver:
            held[stmt.targets[0].id] = receiver
    extrema = False  # a call of np.max or np.min (see shift_invariant)

    def collect(stmts):
        nonlocal extrema
        for stmt in stmts:
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                collect(stmt.body)
                collect(stmt.orelse)
                continue
            targets, value = statement_parts(stmt)
            kept = _kept_by_call(value, source, local_names, held)
            if kept and set(targets) & loaded:  # (a result read: refused where it is
                results.append((set(targets), kept))  # active, added below where not)
            elif kept:  # (m.step(t): m may hold t after it; add(v), add = ys.append: ys)
                flows.append((sorted(kept), kept))
            if not targets:
                continue
            if is_setitem(stmt) and targets[0] in integers:
                continue  # (v stored into an integer array: truncated, no derivative)
            if is_setitem(stmt) or is_append(stmt):  # the new y depends on v and the old y
                deps = {targets[0]} | set(names_in(value))
                if is_setitem(stmt) and kinds is not None and \
                        getattr(kinds.get(targets[0]), "tag", "any") == "dict":
                    deps |= {n.id for n in trees.walk(stmt.targets[0].slice)  # (a dict's
                             if isinstance(n, gast.Name)}  # keys come back: for k in d)
                flows.append((targets, deps & local_names))
                continue
            op = classify(value, source, local_names)
            extrema = extrema or _extremum(op)
            if op.kind in ("nondiff", "constant"):
                deps = []
            elif op.kind in ("linear", "subscript"):
                deps = names_in(value) if op.kind == "linear" else names_in(op.operands[0])
                if op.kind == "subscript" and kinds is not None:  # (an object's __getitem__:
                    deps += [n.id for n in foreign_index(value, kinds)]  # refused if active)
            else:  # keyword arguments carry gradients too: np.average(x, weights=w)
                operands = list(op.operands) + list((op.keywords or {}).values())
                deps = [n for operand in operands for n in names_in(operand)]
            if set(targets) <= integers:  # an integer or bool array (np.full_like(ints, v))
                deps = []
            flows.append((targets, set(deps) & local_names))

    collect(tree.body)
    returned = tree.body[-1].value
    varied, useful = _solve(flows, wrt, returned)
    unread = [(sorted(kept), kept) for targets, kept in results
              if not targets & varied & useful]
    if unread:  # (y = m.step(t), y no derivative: m may hold t all the same)
        flows.extend(unread)
        varied, useful = _solve(flows, wrt, returned)
    active = varied & useful
    _refuse_unknown_stores(tree, source, local_names, varied, active)
    refuse_read_back(tree, source, _carrying(flows, wrt, varied, tree, source, local_names),
                     kinds, useful)  # (self.h = x * 2; return self.h * 3)
    shared = module_state(tree, source, varied)  # (LOG.append(1); return x * len(LOG))
    refuse_changes_read_by_recursion(tree, source, kinds, shared)  # (r = f(m, x); m.n += 1)
    return active - shift_invariant(tree, source, local_names) if extrema else active


def _kept_by_call(value, source, local_names: set[str], held=None) -> set[str]:
    """The local names given to a call s2sad knows nothing of (no rule, no facts, not
    the user's own: ``m.step(t)`` of an object made in the function), its receiver
    included (``ys`` of ``add(v)``, ``add = ys.append``: ``held``): it may keep any of
    them in any other (``self.h = t``), so each may depend on all. (Where its result is
    read, the call is refused if the result carries a derivative, so ``active_names``
    adds these only where it does not.) Empty for a call with a rule or facts, which
    changes none it is not said to.

    >>> import numpy as np
    >>> from s2sad.source import FunctionSource
    >>> def f(x):
    ...     m = Model()
    ...     m.step(x)
    ...     print(x)
    ...     return m.h
    >>> source = FunctionSource.of(f)
    >>> sorted(_kept_by_call(source.tree.body[1].value, source, {"m"} | {"x"}))
    ['m', 'x']
    >>> _kept_by_call(source.tree.body[2].value, source, {"m", "x"})
    set()
    """
    if not isinstance(value, gast.Call):
        return set()
    if isinstance(value.func, gast.Name) and value.func.id in (held or {}):
        return (set(names_in(gast.Tuple(value.args + [k.value for k in value.keywords],
                                         gast.Load()))) | {held[value.func.id]}) & local_names
    try:
        target = static_value(value.func, source, local_names)
    except (KeyError, TypeError):
        if isinstance(value.func, gast.Attribute):
            from .aliasing import Aliasing
            if Aliasing._method_facts(value.func.attr) is not None:
                return set()  # (x.sum(), ys.index(v): a method of an array, list, dict)
    else:
        if registry.lookup(target) is not None or registry.facts(target) is not None or \
                not callable(target):
            return set()
    return set(names_in(value)) & local_names


def _solve(flows, wrt, returned) -> tuple[set, set]:
    """``(varied, useful)``: the names that depend on ``wrt``, and those the returned
    value depends on, through ``flows`` (loops carry them backwards: fixed points)."""
    varied = set(wrt)
    changed = True
    while changed:
        changed = False
        for targets, deps in flows:
            if deps & varied and not varied.issuperset(targets):
                varied.update(targets)
                changed = True
    useful = {returned.id} if isinstance(returned, gast.Name) else set()
    changed = True
    while changed:
        changed = False
        for targets, deps in reversed(flows):
            if useful.intersection(targets) and not useful.issuperset(deps):
                useful |= deps
                changed = True
    return varied, useful


def _held_method(stmt, local_names: set[str]) -> str | None:
    """``ys`` of ``add = ys.append``: a method of a local value kept in a name, which
    may change that value where it is called (any method but those an array, a list or
    a dict has that change nothing)."""
    if not (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Attribute) and
            isinstance(stmt.value.value, gast.Name) and stmt.value.value.id in local_names):
        return None
    from .aliasing import Aliasing
    method = Aliasing._method_facts(stmt.value.attr)
    if method is not None and not method.mutates:
        return None  # (z.T, z.shape, z.sum: no change)
    return stmt.value.value.id


def _carrying(flows, wrt: set[str], varied: set[str], tree, source, local_names) -> set:
    """The names of ``varied`` that may carry a derivative: not those that hold integers
    or bools for certain (``self.n_calls + 1``, a layer's counter read through a loop over
    ``model.layers``: an int carries none, so stored and read back it loses none)."""
    from ..runtime import side_effect
    if not any(value is side_effect for value in getattr(source, "extra", {}).values()):
        return varied  # (nothing stored into an object: nothing read back)
    kinds = dtype_kinds(tree, source, local_names)
    updated = {statement_parts(stmt)[0][0] for stmt in trees.walk(tree)
               if isinstance(stmt, gast.stmt) and (is_setitem(stmt) or is_append(stmt))}
    whole = {name for name, category in kinds.items()  # (not a list: changed in place, its
             if category is not None and category[0] == "i" and  # items are what it is
             category[1] != "s" and name not in updated}  # given)
    if not whole & varied:
        return varied
    carrying = set(wrt)
    changed = True
    while changed:
        changed = False
        for targets, deps in flows:
            if deps & carrying and not set(targets) <= whole and \
                    not carrying.issuperset(targets):
                carrying.update(targets)
                changed = True
    return carrying


def integer_names(tree: gast.FunctionDef, source, local_names: set[str]) -> set[str]:
    """The names that hold an integer or bool array on every path (NumPy's dtypes, see
    :mod:`s2sad.transforms.dtypes`): a value stored into one (``z[0] = x[0]``) is
    truncated, no derivative flows.

    >>> import numpy as np
    >>> from s2sad.source import FunctionSource
    >>> def f(x, k):
    ...     z = np.zeros(3, dtype=int)
    ...     w = z[1:]
    ...     m = np.astype(x, bool)
    ...     y = np.zeros(3)
    ...     a = np.arange(3)
    ...     j = k
    ...     return z
    >>> source = FunctionSource.of(f)
    >>> sorted(integer_names(source.tree, source, {"z", "w", "m", "y", "a", "j"}))
    ['a', 'm', 'w', 'z']
    """
    kinds = dtype_kinds(tree, source, local_names)
    return {name for name, category in kinds.items()
            if name in local_names and store_effect(category) == "truncates"}


def _refuse_unknown_stores(tree: gast.FunctionDef, source, local_names: set[str],
                           varied: set[str], active: set[str]) -> None:
    """A value with a derivative stored into an array whose dtype s2sad cannot establish
    (an unknown function's result, a global's) is refused: it may be truncated. (Not in
    a gradient s2sad wrote: its stores are the user's, checked when it was built, and
    its sensitivities, floats.)"""
    if is_generated(source):
        return
    kinds = None
    for stmt in trees.walk(tree):
        if not isinstance(stmt, gast.Assign) or not is_setitem(stmt):
            continue
        target = stmt.targets[0].value.id
        if target not in active or not set(names_in(stmt.value)) & varied:
            continue
        kinds = dtype_kinds(tree, source, local_names) if kinds is None else kinds
        if store_effect(kinds.get(target, UNKNOWN)) == "unknown" and source.floats[0]:
            # (read again with the float arrays whose .dtype a dtype argument reads)
            kinds = dtype_kinds(tree, dataclasses.replace(
                source, dtypes={**source.dtypes, **source.floats[0]},
                constants={**source.constants, **source.floats[1]}), local_names)
        if store_effect(kinds.get(target, UNKNOWN)) == "unknown" and \
                _made_by_a_dict_class(tree, source, target):
            raise source.error(
                NoDerivativeError, f"a value with a derivative stored into {target}, an "
                "object of a dict's subclass (collections.defaultdict, Counter...): s2sad "
                "follows a plain dict whose keys it knows", stmt,
                f"Make {target} a dict with its keys first, e.g. "
                f"`{target} = {{k: 0.0 for k in keys}}`, then `{target}[k] += v`.")
        if store_effect(kinds.get(target, UNKNOWN)) == "unknown":
            raise source.error(
                NoDerivativeError, f"a value with a derivative stored into {target}, "
                "an array whose dtype s2sad cannot establish (an integer or bool one "
                "truncates the value: no derivative)", stmt,
                "Make the array in the function with a dtype s2sad reads: np.zeros(n), "
                "np.zeros_like(x) of a float x, np.array(v, dtype=float), v.astype(float).")


def _made_by_a_dict_class(tree: gast.FunctionDef, source, name: str) -> bool:
    """Is ``name`` given, somewhere in ``tree``, the result of calling a subclass of
    dict (``acc = defaultdict(float)``, ``collections.Counter()``)?"""
    for stmt in trees.walk(tree):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call) and
                any(isinstance(t, gast.Name) and t.id == name for t in stmt.targets)):
            continue
        func = stmt.value.func
        try:
            called = source.resolve(func.id) if isinstance(func, gast.Name) else \
                getattr(source.resolve(func.value.id), func.attr) if isinstance(
                    func, gast.Attribute) and isinstance(func.value, gast.Name) else None
        except (KeyError, AttributeError):
            continue
        if isinstance(called, type) and issubclass(called, dict) and called is not dict:
            return True
    return False


def _extremum(op) -> bool:
    """Is ``op`` a call of a function whose result is one of its argument's elements
    (``np.max``: its ``extremum`` fact), so that ``z - m`` cancels a shift of ``z``?"""
    facts = registry.facts(op.rule.func) if op.rule is not None else None
    return facts is not None and facts.extremum


_UNSET = object()


def shift_invariant(tree: gast.FunctionDef, source, local_names: set[str]) -> set[str]:
    """The names ``m`` of ``m = np.max(z, ...)`` (or ``min``) that no later value
    depends on: ``m`` is subtracted from ``z`` before ``np.exp`` and added back after
    ``np.log`` (log-sum-exp), or cancels in a ratio (softmax), so that moving ``m`` by
    any amount changes nothing read later. The derivative with respect to ``m`` is then
    zero, exactly: no gradient needs to flow through it (nor ``extremum_grad``).

    >>> import numpy as np
    >>> from s2sad.source import FunctionSource
    >>> def f(z):
    ...     m = np.max(z, axis=1, keepdims=True)
    ...     t_1 = z - m
    ...     e = np.exp(t_1)
    ...     t_2 = np.sum(e, axis=1, keepdims=True)
    ...     t_3 = np.log(t_2)
    ...     lse = t_3 + m
    ...     return lse
    >>> source = FunctionSource.of(f)
    >>> local = {"z", "m", "e", "lse", "t_1", "t_2", "t_3"}
    >>> shift_invariant(source.tree, source, local)
    {'m'}

    Summed along another axis (``np.sum(e, axis=0, keepdims=True)``), the shift is
    not the same along the sum: it does not cancel, and ``m`` keeps its gradient.

    >>> source.tree.body[3].value.keywords[0].value.value = 0
    >>> shift_invariant(source.tree, source, local)
    set()

    The rules follow how each value moves when ``m`` moves by ``d``: a sum or
    difference with ``m`` moves by ``d`` (times an integer), ``np.exp`` of it is scaled
    by ``exp(d)``, ``np.sum`` of that along the axes ``m`` was reduced over keeps the
    scale, ``np.log`` turns the scale back into a move, and a product or ratio of scaled
    values adds or subtracts the scales. A value that neither moves nor scales is free;
    any other use of one that does keeps ``m`` active. It all happens in one block,
    each of the names assigned once, ``z`` not assigned again before the last use.
    """
    loads: dict = {}
    stores: dict = {a.id: 1 for a in tree.args.args + tree.args.posonlyargs +
                    tree.args.kwonlyargs}
    assigns, blocks = [], [tree.body]
    for node in trees.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Load, gast.Store)):
            counts = loads if isinstance(node.ctx, gast.Load) else stores
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
            assigns.append(node)
        elif isinstance(node, (gast.If, gast.For, gast.While)):
            blocks += [node.body, node.orelse]
    literals = {}  # (normalization names the -1 of axis=-1: t_1 = -1)
    for node in assigns:
        value = _literal(node.value, {})
        if value is not _UNSET and stores.get(node.targets[0].id) == 1:
            literals[node.targets[0].id] = value
    found: set = set()
    for block in blocks:
        for i, stmt in enumerate(block):
            if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                    and stores.get(stmt.targets[0].id) == 1):
                continue
            reduced = _reduction(stmt.value, _extremum, literals, source, local_names)
            if reduced is not None and _cancels(block[i + 1:], stmt.targets[0].id, *reduced,
                                                loads, stores, literals, source, local_names):
                found.add(stmt.targets[0].id)
    return found


def _literal(node, literals: dict):
    """The value of an axis or flag written as a literal (an int, a tuple of ints, None,
    True...) or a name of one in ``literals``, else ``_UNSET``."""
    if isinstance(node, gast.Name):
        return literals.get(node.id, _UNSET)
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    if isinstance(node, gast.Tuple):
        items = tuple(_literal(e, literals) for e in node.elts)
        return items if all(type(i) is int for i in items) else _UNSET
    return _UNSET


def _reduction(value, is_function, literals, source, local_names):
    """``(argument, axes)`` of ``np.max(argument, axis=..., keepdims=...)`` (a call whose
    ``Op`` is one ``is_function`` takes): ``axes`` None where the result is the same along every axis (a
    number), else the frozenset of the axes it keeps with length 1; None if it is not
    such a call."""
    if not isinstance(value, gast.Call) or not value.args or len(value.args) > 2 or \
            not isinstance(value.args[0], gast.Name) or \
            not is_function(classify(value, source, local_names)):
        return None
    options = {k.arg: k.value for k in value.keywords}
    if len(value.args) == 2:
        if "axis" in options:
            return None
        options["axis"] = value.args[1]
    if set(options) - {"axis", "keepdims"}:
        return None
    axis = _literal(options["axis"], literals) if "axis" in options else None
    keepdims = _literal(options["keepdims"], literals) if "keepdims" in options else False
    if axis is None and keepdims in (True, False):
        return value.args[0].id, None
    if keepdims is True and type(axis) is int:
        return value.args[0].id, frozenset([axis])
    if keepdims is True and type(axis) is tuple:
        return value.args[0].id, frozenset(axis)
    return None  # (without keepdims, the result's axes no longer line up with z's)


def _signed_terms(node, sign=1):
    """``[(sign, leaf)]`` of a chain of ``+``, ``-`` and unary ``-``."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
        right = -sign if isinstance(node.op, gast.Sub) else sign
        return _signed_terms(node.left, sign) + _signed_terms(node.right, right)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _signed_terms(node.operand, -sign)
    return [(sign, node)]


def _cancels(stmts, m, z, axes, loads, stores, literals, source, local_names) -> bool:
    """Does every use of ``m = np.max(z, ...)`` cancel (``stmts``: those after it in its
    block)? See ``shift_invariant``."""
    moving = {m: ("move", 1, "m")}  # name -> (how, times d, shaped like "z" or "m")
    used: dict = {}
    for stmt in stmts:
        if all(used.get(name, 0) == loads.get(name, 0) for name in moving):
            return True  # (no use left anywhere)
        nodes = trees.walk(stmt)
        if any(isinstance(n, gast.Name) and n.id == z and isinstance(n.ctx, gast.Store)
               for n in nodes):
            return False  # (z assigned again while a use is left: another z)
        names = [n.id for n in nodes if isinstance(n, gast.Name) and
                 isinstance(n.ctx, gast.Load) and n.id in moving]
        if not names:
            continue
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
            return False
        for name in names:
            used[name] = used.get(name, 0) + 1
        moved = _moved(stmt.value, moving, z, axes, literals, source, local_names)
        if moved is None:
            return False
        if moved[1]:  # (a value that no longer moves is free)
            if stores.get(stmt.targets[0].id) != 1:
                return False
            moving[stmt.targets[0].id] = moved
    return all(used.get(name, 0) == loads.get(name, 0) for name in moving)


def _moved(value, moving, z, axes, literals, source, local_names):
    """How ``value`` moves when ``m`` moves: ``(how, times, shape)``; None for a use
    that does not cancel."""
    if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub)) or \
            isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
        times, shape, free = 0, "m", False
        for sign, term in _signed_terms(value):
            name = term.id if isinstance(term, gast.Name) else None
            if name in moving:
                how, count, where = moving[name]
                if how != "move":
                    return None
                times += sign * count
                shape = "z" if where == "z" else shape
            elif name == z:
                shape = "z"
            else:
                free = True  # (another term may broadcast the others to new axes)
        return None if free and times and axes is not None else ("move", times, shape)
    if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Mult, gast.Div)):
        parts = [moving.get(getattr(side, "id", None)) for side in (value.left, value.right)]
        if None in parts or parts[0][0] != "scale" or parts[1][0] != "scale":
            return None
        sign = -1 if isinstance(value.op, gast.Div) else 1
        shape = "z" if "z" in (parts[0][2], parts[1][2]) else "m"
        return "scale", parts[0][1] + sign * parts[1][1], shape
    if not isinstance(value, gast.Call):
        return None
    summed = _reduction(value, lambda op: op.name == "numpy.sum", literals, source,
                        local_names)
    if summed is not None:
        how, times, _ = moving.get(summed[0], (None, 0, None))
        if how != "scale" or axes is not None and summed[1] != axes:
            return None  # (summed along an axis where the shift is not the same)
        return how, times, "m"
    if len(value.args) != 1 or value.keywords or not isinstance(value.args[0], gast.Name) \
            or value.args[0].id not in moving:
        return None
    how, times, shape = moving[value.args[0].id]
    name = classify(value, source, local_names).name
    if name == "numpy.exp" and how == "move":
        return "scale", times, shape
    if name == "numpy.log" and how == "scale":
        return "move", times, shape
    return None
