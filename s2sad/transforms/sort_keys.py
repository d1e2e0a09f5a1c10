"""``sorted(xs, key=k)``, ``max(xs, key=k)`` and ``min(xs, key=k)``, written out.

``max(a, b, key=k)`` with several items is ``max((a, b), key=k)``: Python compares them so.

``sorted(xs, key=lambda v: v[0])`` becomes::

    t_1 = list(xs)
    t_2 = [v[0] for v in t_1]          # the keys, each computed once, in order
    t_3 = sort_order(t_2, False)       # the positions, as sorted orders them
    [t_1[i] for i in t_3]

and ``max(xs, key=k)`` is ``t_1[extreme_position(t_2, True)]``; ``key=operator.itemgetter(0)``
and ``key=operator.attrgetter("k")`` are the lambdas they are (:func:`_getter`);
``sorted(xs)`` of a list, tuple or array compares the items themselves. The helpers
compare the same keys with the same operators as ``sorted``, ``max`` and ``min`` (stable,
the first of ties), so the order is Python's. It carries no derivative: where the keys
depend on the differentiated values, the order is piecewise constant, and the gradient
flows through the items it picks. ``max(xs, default=d)`` and a starred argument are left as
they were (refused where they are differentiated).
"""

from __future__ import annotations

import builtins
import operator

import gast

from .. import trees
from ..runtime import extreme_position, sort_order
from .star_args import _located, _read

def _which(normalize, node) -> str | None:
    """``"sorted"``, ``"max"`` or ``"min"`` for a call of that builtin given a key, in a
    form written out here; else None."""
    func = node.func
    if not isinstance(func, gast.Name) or func.id in normalize.locals:
        return None
    try:
        callee = normalize.source.resolve(func.id)
    except KeyError:
        return None
    if callee is builtins.sorted:
        allowed = ("key", "reverse")
    elif callee is builtins.max or callee is builtins.min:
        allowed = ("key",)
    else:
        return None
    several = callee is not builtins.sorted and len(node.args) > 1  # (max(a, b, key=k))
    if not node.args or len(node.args) > 1 and not several or \
            any(isinstance(a, gast.Starred) for a in node.args) or \
            any(k.arg not in allowed for k in node.keywords):
        return None
    if not any(k.arg == "key" and not (isinstance(k.value, gast.Constant) and
                                       k.value.value is None) for k in node.keywords) and \
            not (callee is builtins.sorted and _sequence(normalize, node.args[0])):
        return None  # (key=None: the items compared themselves, as the call was)
    return callee.__name__


_MADE = (gast.List, gast.Tuple, gast.ListComp, gast.GeneratorExp)
_ITEMS = ("list", "tuple", "zip", "enumerate", "reversed", "range")  # (builtins whose
# items are a sequence's, or tuples of them: never a dict's keys)


def _sequence(normalize, node) -> bool:
    """Is ``node`` a list, tuple or array, never a dict or a set (whose ``sorted`` the
    kinds write out, :mod:`.dicts`): a display, ``list(...)``, ``zip(...)`` and the like,
    ``d.values()``, an argument described so, or a variable only ever given one of those?"""
    if isinstance(node, _MADE):
        return True
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id in _ITEMS and node.func.id not in normalize.locals:
        return normalize.source.is_builtin(node.func.id)
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
            node.func.attr == "values" and not node.args and not node.keywords:
        return True  # (d.values(): a dict's values, in its order)
    if not isinstance(node, gast.Name):
        return False
    from ..backends import ARRAY_TAGS
    desc = normalize.root.descriptors.get(normalize.current.get(node.id, node.id))
    if isinstance(desc, tuple) and desc and (desc[0] in ARRAY_TAGS or
                                             desc[0] in ("list", "tuple")):
        return True
    stores = [n for n in trees.walk(normalize.source.tree)
              if isinstance(n, gast.Name) and n.id == node.id and
              not isinstance(n.ctx, gast.Load)]
    values = [a.value for a in trees.walk(normalize.source.tree)
              if isinstance(a, gast.Assign) and len(a.targets) == 1 and
              isinstance(a.targets[0], gast.Name) and a.targets[0].id == node.id]
    return bool(stores) and len(values) == len(stores) and \
        all(_sequence(normalize, v) for v in values if v is not node)


def _keys(key, items):
    """``[k(v) for v in items]``: a lambda's body over its parameter, as Python calls it."""
    if isinstance(key, gast.Lambda) and len(key.args.args) == 1 and \
            not key.args.posonlyargs and not key.args.kwonlyargs and \
            key.args.vararg is None and key.args.kwarg is None and not key.args.defaults:
        param = key.args.args[0].id
        body = key.body
    else:
        param = "_item"
        body = gast.Call(key, [gast.Name(param, gast.Load(), None, None)], [])
    target = gast.Name(param, gast.Store(), None, None)
    return gast.ListComp(body, [gast.comprehension(target, items, [], 0)])


def _getter(normalize, key, held: bool = False):
    """``operator.itemgetter(i)`` as the lambda it is (``lambda _item: _item[i]``;
    ``(_item[i], _item[j])`` for two keys), and ``operator.attrgetter("a.b")`` as
    ``lambda _item: _item.a.b``, the getter's arguments evaluated once, where it is made,
    as Python evaluates them; None for another key (or an attribute's name not written).
    ``held``: for a getter given to a name (:func:`held_getter`), a computed argument
    is a keyword-only default of the lambda (``lambda _item, *, _k0=i: _item[_k0]``),
    which s2sad evaluates where the lambda is made; else it is computed now."""
    if not isinstance(key, gast.Call) or key.keywords or not key.args or \
            any(isinstance(a, gast.Starred) for a in key.args):
        return None
    func, path = key.func, []
    while isinstance(func, gast.Attribute):
        path.append(func.attr)
        func = func.value
    if not isinstance(func, gast.Name) or func.id in normalize.locals:
        return None
    try:
        callee = normalize.source.resolve(func.id)
        for attr in reversed(path):
            callee = getattr(callee, attr)
    except (KeyError, AttributeError):
        return None
    item = gast.Name("_item", gast.Load(), None, None)
    defaults = []
    if callee is operator.itemgetter:
        parts = []
        for arg in key.args:
            if held and not isinstance(arg, gast.Constant):
                defaults.append(arg)  # (a default: the value as the getter is made)
                index = gast.Name(f"_k{len(defaults) - 1}", gast.Load(), None, None)
            else:
                index = arg if held else _read(normalize, normalize.atom(arg))
            parts.append(gast.Subscript(trees.clone(item), index, gast.Load()))
    elif callee is operator.attrgetter and all(
            isinstance(a, gast.Constant) and isinstance(a.value, str) and a.value and all(
                part.isidentifier() for part in a.value.split(".")) for a in key.args):
        parts = []
        for arg in key.args:
            part = trees.clone(item)
            for attr in arg.value.split("."):
                part = gast.Attribute(part, attr, gast.Load())
            parts.append(part)
    else:
        return None
    body = parts[0] if len(parts) == 1 else gast.Tuple(parts, gast.Load())
    args = gast.arguments([gast.Name("_item", gast.Param(), None, None)], [], None,
                          [gast.Name(f"_k{i}", gast.Param(), None, None)
                           for i in range(len(defaults))], defaults, None, [])
    return _located(gast.Lambda(args, body), key)


def held_getter(normalize, stmt):
    """``key = operator.itemgetter(1)`` (or ``attrgetter``): the statement with the
    lambda the getter is (:func:`_getter`), so that ``sorted(xs, key=key)``, ``max``,
    ``min`` and ``key(v)`` call it as they call a lambda; None for another statement.

    >>> import gast, operator
    >>> class N: locals = set(); source = type("S", (), {"resolve": staticmethod(
    ...     lambda name: {"operator": operator}[name])})
    >>> stmt = gast.parse("key = operator.itemgetter(1, j)").body[0]
    >>> print(gast.unparse(held_getter(N, stmt)).strip())
    key = lambda _item, *, _k0=j: (_item[1], _item[_k0])
    """
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)):
        return None
    made = _getter(normalize, stmt.value, held=True)
    if made is None:
        return None
    return gast.copy_location(gast.Assign([stmt.targets[0]], made, None), stmt)

def keyed(normalize, node):
    """``node``, a call of ``sorted``, ``max`` or ``min`` with ``key=``, written out as
    above (the expression, for ``normalize.simple``); None for another call."""
    which = _which(normalize, node)
    if which is None:
        return None
    key = next((k.value for k in node.keywords if k.arg == "key" and not (
        isinstance(k.value, gast.Constant) and k.value.value is None)), None)
    reverse = next((k.value for k in node.keywords if k.arg == "reverse"),
                   gast.Constant(False, None))
    given = node.args[0] if len(node.args) == 1 else gast.copy_location(
        gast.Tuple(list(node.args), gast.Load()), node)  # (max(a, b, key=k) compares a, b)
    items = _read(normalize, normalize.atom(gast.copy_location(
        gast.Call(gast.Name("list", gast.Load(), None, None), [given], []), node)))
    key = key and (_getter(normalize, key) or key)
    if key is not None and not isinstance(key, gast.Lambda):
        key = _read(normalize, normalize.atom(key)) if not isinstance(
            key, (gast.Name, gast.Attribute)) else key  # (a function named: called per
        # item, as the user's names it; one computed, operator.methodcaller(...): read back)
    reverse = normalize.atom(reverse)  # (evaluated before the keys are computed)
    keys = trees.clone(items) if key is None else _read(normalize, normalize.atom(
        _located(_keys(key, trees.clone(items)), node)))  # (no key: the items compared)
    if which == "sorted":
        order = _read(normalize, normalize.atom(_located(gast.Call(normalize.load(
            normalize.fixed_name(sort_order, "sort_order")), [keys, reverse], []), node)))
        picked = gast.ListComp(
            gast.Subscript(items, gast.Name("_at", gast.Load(), None, None), gast.Load()),
            [gast.comprehension(gast.Name("_at", gast.Store(), None, None), order, [], 0)])
    else:
        at = _read(normalize, normalize.atom(_located(gast.Call(normalize.load(
            normalize.fixed_name(extreme_position, "extreme_position")),
            [keys, gast.Constant(which == "max", None)], []), node)))
        picked = gast.Subscript(items, at, gast.Load())
    return _located(picked, node)
