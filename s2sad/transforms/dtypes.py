"""What is known of each value's dtype: integers (or bools), floats (or complex), or unknown.

A value stored into an integer or bool array is truncated (``z[0] = x[0]`` keeps
``int(x[0])``): no derivative flows through the store. NumPy's rules give the dtype
of a value made in the function: a creation call's follows its arguments
(``np.array([0, 0])`` holds integers, ``np.full(3, 0.5)`` floats), a ``_like`` call's its
prototype, a comparison's is bool, ``np.argsort``'s integer; each function's fact is in
its rule entry (``Rule.dtype``, ``Rule.result``). Each name gets ``(kind, holder)``:
``kind`` is "i" (integers or bools), "f" (floats or complex) or "?" (unknown);
``holder`` is "a" (a NumPy array or scalar), "s" (a Python list, tuple or dict: a
store keeps the value as it is), "n" (a Python number), "o" (a user's object argument,
whose arrays' and numbers' dtypes its description gives: ``kinds.member``) or "?".

>>> import numpy as np
>>> from s2sad.source import FunctionSource
>>> def f(x):
...     z = np.array([0, 0])
...     m = x > 0
...     w = np.full(3, 0.5)
...     ys = [0, 0]
...     return z
>>> source = FunctionSource.of(f)
>>> source.arguments = argument_categories(["x"], [("nd", 1, "f")])
>>> kinds = dtype_kinds(source.tree, source, {"z", "m", "w", "ys"})
>>> kinds["z"], kinds["m"], kinds["w"], kinds["ys"]
(('i', 'a'), ('i', 'a'), ('f', 'a'), ('i', 's'))
>>> [store_effect(kinds[n]) for n in ("z", "w", "ys")]
['truncates', 'keeps', 'keeps']
"""

from __future__ import annotations

import types

import gast

from .. import registry, trees
from ..backends import ARRAY_TAGS, numpy_module
from .resolve import cast_kind, receiver_first, static_value

UNKNOWN = ("?", "?")
_BOTTOM = None  # (not yet known: the fixed point starts there)


def store_effect(category) -> str:
    """What storing a value into a name of this ``(kind, holder)`` does to its derivative:
    "keeps" (a float array, any Python container), "truncates" (an integer or bool array)
    or "unknown" (s2sad cannot tell: refused where the value has a derivative)."""
    kind, holder = category
    if holder == "s" or kind == "f":
        return "keeps"
    if kind == "i" and holder == "a":
        return "truncates"
    return "unknown"


def argument_categories(params, descriptors) -> dict:
    """``{argument: (kind, holder)}`` from the descriptions the gradient is made for.
    An argument with none (a build that does not specialize) is taken as floats.

    >>> argument_categories(["x", "n", "ys"], [("nd", 1, "i"), "int", ("list", ("float",))])
    {'x': ('i', 'a'), 'n': ('i', 'n'), 'ys': ('f', 's')}
    """
    return {p: _described(d) for p, d in zip(params, descriptors or [None] * len(params))}


def _described(desc):
    if desc is None:
        return ("f", "?")  # (nothing known: floats, as s2sad has always taken them)
    if isinstance(desc, str):
        return {"float": ("f", "n"), "complex": ("f", "n"), "int": ("i", "n")}.get(desc, UNKNOWN)
    if type(desc) is not tuple or not desc:
        return UNKNOWN
    if desc[0] == "object":  # (a user's object: its members' dtypes read at each p.W)
        return ("f", "o")
    if desc[0] in ARRAY_TAGS and len(desc) >= 3:
        return (_kind_of_dtype(desc[2]), "a")
    if desc[0] in ("list", "tuple") and len(desc) >= 2:
        return (_join_kinds(_described(d)[0] for d in desc[1]), "s")
    if desc[0] == "dict" and len(desc) >= 2:
        return (_join_kinds(_described(d)[0] for _, d in desc[1]), "s")
    return UNKNOWN


def _kind_of_dtype(kind) -> str:
    if not isinstance(kind, str):
        return "?"
    return "i" if kind in "biu" else "f" if kind in "fc" else "?"


def _join(a, b):
    """Two values a name may hold (assigned on two paths): one category, or unknown."""
    if a is _BOTTOM:
        return b
    if b is _BOTTOM:
        return a
    return (a[0] if a[0] == b[0] else "?", a[1] if a[1] == b[1] else "?")


def _join_kinds(kinds) -> str:
    """The kind of an array made of values of these kinds (``np.array([1, 2.5])``)."""
    return _promote(list(kinds)) if kinds else "f"


def _promote(kinds) -> str:
    """NumPy's promotion, by kind: a float makes floats; integers only, integers."""
    kinds = list(kinds)
    if "f" in kinds:
        return "f"
    if kinds and all(k == "i" for k in kinds):
        return "i"
    return "?"


def dtype_kinds(tree: gast.FunctionDef, source, local_names: set[str]) -> dict:
    """``{name: (kind, holder)}`` for the function's arguments and local names (see the
    module's docstring): a fixed point over every assignment, loops included."""
    arguments = getattr(source, "arguments", None) or {}
    env: dict = {}
    for a in tree.args.args + tree.args.posonlyargs + tree.args.kwonlyargs:
        env[a.id] = arguments.get(a.id, ("f", "?"))
    assignments = []  # (name, value node, how: "value" | "item" (a loop's) | "unknown")
    wrote = set()  # (the values of the lines s2sad wrote, inlined: a gradient's)
    for node in trees.walk(tree):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            assignments.append((node.targets[0].id, node.value, "value"))
            if node.__dict__.get("s2sad_wrote"):
                wrote.add(id(node.value))
        elif isinstance(node, gast.For) and isinstance(node.target, gast.Name):
            assignments.append((node.target.id, node.iter, "item"))
    plain = {id(value) for _, value, _ in assignments}
    tapes = _tapes(tree, _measures(source))
    generated = str(getattr(source, "filename", "")).startswith("<s2sad ")
    assignments = [(name, _restored(name, tapes[_popped(value)],
                                    generated or id(value) in wrote), "pop")
                   if how == "value" and _popped(value) in tapes else (name, value, how)
                   for name, value, how in assignments]
    for node in trees.walk(tree):  # (a tuple unpacked, a with's target...: unknown)
        if isinstance(node, gast.Assign) and id(node.value) not in plain or \
                isinstance(node, gast.For) and id(node.iter) not in plain:
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            for target in targets:
                for name in trees.walk(target):
                    if isinstance(name, gast.Name) and isinstance(name.ctx, gast.Store):
                        assignments.append((name.id, None, "unknown"))
        elif isinstance(node, (gast.AugAssign, gast.AnnAssign, gast.With, gast.NamedExpr,
                               gast.comprehension, gast.ExceptHandler)):
            for name in trees.walk(node):
                if isinstance(name, gast.Name) and isinstance(name.ctx, gast.Store) and \
                        not isinstance(node, gast.comprehension):
                    assignments.append((name.id, None, "unknown"))
    changed = True
    while changed:  # categories only rise: a fixed point in a few rounds
        changed = False
        for name, value, how in assignments:
            if how == "unknown":
                new = UNKNOWN
            elif how == "item":
                new = _item(_category(value, env, source, local_names))
            elif how == "pop":  # (one of the values appended: their join)
                new = _BOTTOM
                for appended in value:  # (one not yet known: the fixed point reaches it)
                    new = _join(new, _category(appended, env, source, local_names))
            else:
                new = _category(value, env, source, local_names)
            if new is _BOTTOM:
                continue
            joined = _join(env.get(name, _BOTTOM), new)
            if joined != env.get(name, _BOTTOM):
                env[name] = joined
                changed = True
    return env


def _popped(value):
    """``L`` of ``L.pop()`` (no arguments) or ``L[i]``, else None."""
    if isinstance(value, gast.Call) and not value.args and not value.keywords and \
            isinstance(value.func, gast.Attribute) and value.func.attr == "pop" and \
            isinstance(value.func.value, gast.Name):
        return value.func.value.id
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and \
            isinstance(value.ctx, gast.Load) and not isinstance(value.slice, gast.Slice):
        return value.value.id
    return None


def _restored(name: str, given: list, generated: bool) -> list:
    """The values ``name = L.pop()`` may give back: those given to the tape ``L``. In a
    gradient s2sad wrote (``generated``: the function, or the line, inlined from one), a
    tape given ``name`` itself gives it back to ``name``: its
    earlier value (``stack.append(a)``, then ``a = stack.pop()``), whatever else the
    tape holds (``stack.append(shape_of(t))``)."""
    if generated and any(isinstance(v, gast.Name) and v.id == name for v in given):
        return []
    return given


def _made_empty(value) -> bool:
    """``[]`` or ``[None] * n``: a list that holds nothing yet."""
    if isinstance(value, gast.List):
        return not value.elts
    return isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult) and \
        isinstance(value.left, gast.List) and len(value.left.elts) == 1 and \
        isinstance(value.left.elts[0], gast.Constant) and value.left.elts[0].value is None


def _measures(source) -> set[str]:
    """The names of the functions that read a list's length alone: ``len``, and the
    memory budget's checks in a gradient s2sad wrote (``check_stack(stack)``)."""
    from ..runtime import budget
    names = {"len"}
    for name, value in (getattr(source, "globals", None) or {}).items():
        if value is budget.check_stack or value is budget.checked_passes:
            names.add(name)
    return names


def _tapes(tree, measures=frozenset({"len"})) -> dict:
    """``{L: [v, ...]}``: the lists made once, empty (``L = []``, ``L = [None] * n``), and
    only given values (``L.append(v)``, ``L[i] = v``), read (``y = L.pop()``,
    ``y = L[i]``) and measured (``len(L)``, a function of ``measures``), as a gradient's
    tapes are. What such a read
    gives back is one of the values given, so its dtype is theirs (an integer array
    saved and restored stays one).

    >>> tree = gast.parse("def g(a, i):\\n    L = []\\n    M = [None] * 2\\n"
    ...                   "    L.append(a)\\n    M[i] = a + 1\\n    a = L.pop()\\n"
    ...                   "    a = M[i]\\n    return len(L)").body[0]
    >>> {k: [gast.unparse(v).strip() for v in vs] for k, vs in _tapes(tree).items()}
    {'L': ['a'], 'M': ['a + 1']}
    """
    made, given, fine = {}, {}, set()
    for node in trees.walk(tree):
        if isinstance(node, gast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, gast.Name) and _made_empty(node.value):
                made[target.id] = made.get(target.id, 0) + 1
                fine.add(id(target))
            elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) \
                    and not isinstance(target.slice, gast.Slice):
                given.setdefault(target.value.id, []).append(node.value)
                fine.add(id(target.value))
            elif isinstance(target, gast.Name) and _popped(node.value) is not None:
                read = node.value.func if isinstance(node.value, gast.Call) else node.value
                fine.add(id(read.value))
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                isinstance(node.func.value, gast.Name) and node.func.attr == "append" and \
                len(node.args) == 1 and not node.keywords:
            given.setdefault(node.func.value.id, []).append(node.args[0])
            fine.add(id(node.func.value))
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id in measures and not node.keywords:
            fine.update(id(a) for a in node.args if isinstance(a, gast.Name))
    uses: dict = {}
    for node in trees.walk(tree):
        if isinstance(node, gast.Name) and node.id in made:
            uses[node.id] = uses.get(node.id, True) and id(node) in fine
    return {name: given.get(name, []) for name, count in made.items()
            if count == 1 and uses.get(name)}


def _item(category):
    """What a loop over a value of this category gives (``for row in m``)."""
    if category is _BOTTOM:
        return _BOTTOM
    kind, holder = category
    return (kind, "a" if holder == "a" else "?")


def _category(value, env, source, local_names):
    if isinstance(value, gast.Name):
        if value.id in env:
            return env[value.id]
        if value.id in local_names:
            return _BOTTOM  # (assigned later, in a loop: the fixed point reaches it)
        return UNKNOWN  # (a global: read live, its dtype may change)
    if isinstance(value, gast.Constant):
        if isinstance(value.value, (bool, int)):
            return ("i", "n")
        if isinstance(value.value, (float, complex)):
            return ("f", "n")
        return UNKNOWN
    if isinstance(value, (gast.List, gast.Tuple, gast.Set)):
        parts = [_category(e, env, source, local_names) for e in value.elts]
        if _BOTTOM in parts:
            return _BOTTOM
        return (_join_kinds(p[0] for p in parts), "s")
    if isinstance(value, gast.Dict):
        parts = [_category(e, env, source, local_names) for e in value.values]
        if _BOTTOM in parts:
            return _BOTTOM
        return (_join_kinds(p[0] for p in parts), "s")
    if isinstance(value, gast.Compare):  # (x > 0: a bool array for an array x)
        parts = [_category(e, env, source, local_names) for e in [value.left] + value.comparators]
        if _BOTTOM in parts:
            return _BOTTOM
        holders = {p[1] for p in parts}
        return ("i", "a" if "a" in holders else "n" if holders == {"n"} else "?")
    if isinstance(value, gast.UnaryOp):
        inner = _category(value.operand, env, source, local_names)
        if isinstance(value.op, gast.Not):
            return ("i", "n")
        return inner
    if isinstance(value, gast.IfExp):
        return _join(_category(value.body, env, source, local_names),
                     _category(value.orelse, env, source, local_names))
    if isinstance(value, gast.BoolOp):
        result = _BOTTOM
        for part in value.values:
            result = _join(result, _category(part, env, source, local_names))
        return result
    if isinstance(value, gast.BinOp):
        return _binary(value, env, source, local_names)
    if isinstance(value, gast.Subscript):
        inner = _category(value.value, env, source, local_names)
        if inner is _BOTTOM:
            return _BOTTOM
        kind, holder = inner
        if holder == "a":
            return (kind, "a")  # (an element, a row or a slice: the array's dtype)
        return (kind, "n" if holder == "s" and kind == "i" else "?")  # (x.shape[0])
    if isinstance(value, gast.Attribute):
        return _attribute(value, env, source, local_names)
    if isinstance(value, gast.Call):
        return _call(value, env, source, local_names)
    if isinstance(value, gast.ListComp):
        return ("?", "s")
    return UNKNOWN


def _attribute(value, env, source, local_names):
    if not any(isinstance(n, gast.Name) and n.id in local_names for n in trees.walk(value)):
        try:  # np.pi, math.inf: a library's number (a user's global is read live: unknown)
            base = static_value(value.value, source, local_names)
            number = static_value(value, source, local_names)
        except (KeyError, TypeError):
            return UNKNOWN
        name = getattr(base, "__name__", "")
        library = numpy_module(name) or name.split(".")[0] in ("math", "cmath")
        if library and isinstance(base, types.ModuleType) and type(number) in (float, int):
            return ("f" if type(number) is float else "i", "n")
        return UNKNOWN
    if isinstance(value.value, gast.Name) and value.value.id in env:
        kind, holder = env[value.value.id]
        if holder == "o":  # model.W: a user object's member, as its description says
            from .kinds import member
            desc = member(source, value)
            return UNKNOWN if desc is None else (_described(desc)[0], "a" if type(desc) is
                                                 tuple and desc[0] == "nd" else "?")
        from .kinds import held_integer
        if held_integer(value):  # (layer.n_calls, layer walking model.layers)
            return ("i", "?")
        if value.attr in ("T", "mT", "real", "imag", "flat"):
            return (kind, holder)
        if value.attr in ("ndim", "size", "itemsize", "nbytes"):
            return ("i", "n")
        if value.attr in ("shape", "strides"):
            return ("i", "s")
    return UNKNOWN


def _binary(value, env, source, local_names):
    left = _category(value.left, env, source, local_names)
    right = _category(value.right, env, source, local_names)
    if left is _BOTTOM or right is _BOTTOM:
        return _BOTTOM
    holders = {left[1], right[1]}
    if "s" in holders:  # [0] * n, xs + ys: a list (but an array and a list: an array)
        if holders <= {"s", "n"}:
            return (left[0] if left[1] == "s" else right[0], "s")
        return ("?", "a" if "a" in holders else "?")
    holder = "a" if "a" in holders else "n" if holders == {"n"} else "?"
    if isinstance(value.op, gast.Div):
        return ("f" if "?" not in (left[0], right[0]) or "f" in (left[0], right[0]) else "?",
                holder)
    return (_promote([left[0], right[0]]), holder)


def _call(value, env, source, local_names):
    func = value.func
    if isinstance(func, gast.Attribute) and func.attr == "copy" and not value.args and \
            isinstance(func.value, gast.Name) and func.value.id in env:
        return env[func.value.id]  # (a list's or dict's copy)
    try:
        target = static_value(value.func, source, local_names)
    except (KeyError, TypeError):
        return UNKNOWN
    facts = registry.facts(target) or registry.Facts()
    if facts.sequence:  # list(xs), sorted(xs): a Python container of what xs holds
        parts = [_category(a, env, source, local_names) for a in value.args]
        if _BOTTOM in parts:
            return _BOTTOM
        return (parts[0][0] if len(parts) == 1 else "?", "s")
    if target is range:  # (the ints of a range: for i in range(n))
        return ("i", "s")
    if facts.number and not value.keywords:  # len(xs), float(v): a Python number
        return (facts.number, "n")
    target, args = receiver_first(target, value)
    rule = registry.lookup(target)
    if rule is None:
        return UNKNOWN
    numpy = registry.describe_function(target).startswith("numpy.")
    holder = "a" if numpy else "?"
    kind = cast_kind(value, source, local_names) if rule.dtype is not None else None
    if kind is not None:  # a dtype argument sets it: np.zeros(3, int)
        return (_kind_of_dtype(kind), holder)
    keywords = {k.arg: k.value for k in value.keywords}
    if isinstance(rule.result, str):
        return ("i" if rule.result in "ib" else "f", holder)
    if rule.result is not None:
        operands = registry.result_arguments(rule, args, keywords)
        if operands is None:
            return ("?", holder)
    else:  # no fact: a float argument makes floats (np.exp); else unknown
        operands = args + list(keywords.values())
    parts = [_category(a, env, source, local_names) for a in operands]
    if _BOTTOM in parts:
        return _BOTTOM
    kinds = [p[0] for p in parts]
    if rule.result is None:
        return ("f" if "f" in kinds else "?", holder)
    return (_promote(kinds) if kinds else "?", holder)




def float_locals(tree: gast.FunctionDef, source) -> tuple[dict, dict, frozenset]:
    """``({name: "f"}, {temp: node}, floats)``: the local arrays that hold floats for certain (by
    :func:`dtype_kinds`) whose ``.dtype`` a call reads as its dtype argument
    (``np.sum(v, dtype=x.dtype)``, as SciPy's array-API code writes it, ``x`` a float array
    the function made), and the names given such a ``.dtype`` once (``t = x.dtype``), with
    it, and the names holding floats for certain. A dtype argument s2sad cannot read
    otherwise is read with these (``source.floats``) where the value cast holds floats:
    the dtype analysis itself is left as it is. Looked for only where a local's ``.dtype``
    is read.

    >>> import numpy as np
    >>> from s2sad.source import FunctionSource
    >>> def f(x):
    ...     y = np.asarray(x) * 2.0
    ...     n = np.argsort(x)
    ...     t = y.dtype
    ...     return np.sum(y, dtype=t) + np.sum(x, dtype=n.dtype)
    >>> source = FunctionSource.of(f)
    >>> source.arguments = argument_categories(["x"], [("nd", 1, "f")])
    >>> dtypes, constants, _ = float_locals(source.tree, source)
    >>> dtypes, {name: gast.unparse(node) for name, node in constants.items()}
    ({'y': 'f'}, {'t': 'y.dtype'})
    """
    import dataclasses
    read = {node.value.id for node in trees.walk(tree)
            if isinstance(node, gast.Attribute) and node.attr == "dtype" and
            isinstance(node.value, gast.Name)} - set(source.dtypes)
    if not read:
        return {}, {}, frozenset()
    stores: dict = {}
    for node in trees.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    dtypes, constants = {}, {}
    known = source
    while True:  # (x = np.astype(x, np.asarray(1.0).dtype): one more known, then the next)
        kinds = dtype_kinds(tree, known, set(stores))
        found = {name: "f" for name in sorted(read & set(stores) - set(dtypes))
                 if kinds.get(name, UNKNOWN)[0] == "f" and kinds[name][1] != "s"}
        if not found:  # (and every local holding floats for certain: the values cast)
            return dtypes, constants, frozenset(
                name for name, kind in kinds.items() if kind is not _BOTTOM and
                kind[0] == "f" and kind[1] != "s")
        dtypes.update(found)
        constants.update({node.targets[0].id: node.value for node in trees.walk(tree)
                          if isinstance(node, gast.Assign) and len(node.targets) == 1 and
                          isinstance(node.targets[0], gast.Name) and
                          stores.get(node.targets[0].id) == 1 and
                          isinstance(node.value, gast.Attribute) and
                          node.value.attr == "dtype" and
                          isinstance(node.value.value, gast.Name) and
                          node.value.value.id in dtypes})
        known = dataclasses.replace(source, dtypes={**source.dtypes, **dtypes},
                                    constants={**source.constants, **constants})
