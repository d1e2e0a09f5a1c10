"""Star arguments: ``f(*xs)``, ``f(**kw)``, ``def g(w, *args, **kwargs)``, written out.

s2sad compiles a variant per kind of the arguments, so the length of a tuple is known
where the code reads it. ``f(a, *xs)`` with ``xs`` a pair becomes ``f(a, xs[0], xs[1])``;
``f(**kw)`` with the keys ``"s"`` and ``"t"`` becomes ``f(s=kw["s"], t=kw["t"])``.
A helper's ``*args`` is the tuple of the extra positional arguments its call gives,
its ``**kwargs`` the dict of the extra keywords. Where the length is not known (a list
the function may grow, the shape of a computed array), the call is refused at its line.

The lengths are known for a tuple or list display (``f(*(a, b))``), a variable given
one (``xs = (a, b)``), an argument's tuple, list or dict (its kind says how long),
an argument array's ``x.shape``, and a helper's ``*args`` and ``**kwargs``. A list or
dict held in a variable counts only where the function reads it and nothing else (it
cannot have grown).
"""

from __future__ import annotations

import gast
import numpy as np

from .. import registry, trees
from ..backends import ARRAY_TAGS
from ..errors import DifferentiationError

_ADVICE = ("Pass the values one by one (f(a, b) for f(*[a, b]); x.shape[0], x.shape[1] "
           "for *x.shape of a computed x), or hold them in a tuple, an argument, or an "
           "argument array's shape: s2sad writes the call out for that length. Where a "
           "function takes the shape as one tuple, pass it so: np.random.standard_normal("
           "h.shape) for np.random.randn(*h.shape), x.reshape(h.shape).")


def _displays(normalize) -> dict:
    """(root) a variable's version -> the tuple, list or dict display it was given."""
    return normalize.root.__dict__.setdefault("_star_displays", {})


def note_display(normalize, user_name: str, ssa: str, value) -> None:
    """``ssa``, the version of ``user_name`` just given ``value``: noted where ``value``
    is a tuple display (or a list or dict display the function only reads), so that
    ``f(*ssa)`` is written out for its length."""
    if user_name in normalize.carried or not isinstance(value, (gast.Tuple, gast.List,
                                                                  gast.Dict)):
        return
    if not isinstance(value, gast.Tuple) and not only_read(normalize.source.tree, user_name):
        return
    if isinstance(value, gast.Dict) and not all(
            isinstance(k, gast.Constant) and isinstance(k.value, str) for k in value.keys):
        return
    _displays(normalize)[ssa] = value


def _reads_only(name: str) -> bool:
    """Is the builtin ``name`` one whose facts say it changes none of its arguments and
    keeps none but in what it returns (``zip``, ``sorted``, ``sum``; not ``setattr``)?"""
    import builtins
    found = registry.facts(getattr(builtins, name, None))
    return found is not None and not found.mutates and \
        found.returns_view_of in ("*", ())


def only_read(tree, name: str) -> bool:
    """Is ``name`` given a value once in ``tree`` (or a parameter never given another),
    and read only by ``*name``, ``**name``, ``name[i]``, ``len(name)``, ``zip(name, ...)``,
    ``dict.fromkeys(name)``, loops over it and unpacking (``a, *rest = name``), so that a
    list or dict it holds keeps its length?"""
    parents = {}
    for node in trees.walk(tree):
        for field in trees.node_fields(type(node)):
            child = getattr(node, field, None)
            for part in child if isinstance(child, list) else [child]:
                if isinstance(part, gast.AST):
                    parents[id(part)] = node
    stores = 0
    locals_ = {n.id for n in trees.walk(tree) if isinstance(n, gast.Name) and
               isinstance(n.ctx, (gast.Store, gast.Param))}
    for node in trees.walk(tree):
        if not isinstance(node, gast.Name) or node.id != name:
            continue
        if isinstance(node.ctx, gast.Param):
            continue
        if not isinstance(node.ctx, gast.Load):
            stores += 1
            continue
        parent = parents.get(id(node))
        if isinstance(parent, gast.Starred) or \
                isinstance(parent, gast.keyword) and parent.arg is None or \
                isinstance(parent, gast.Subscript) and parent.value is node and \
                isinstance(parent.ctx, gast.Load) or \
                isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is node or \
                isinstance(parent, gast.Assign) and parent.value is node and \
                all(isinstance(t, (gast.Tuple, gast.List)) for t in parent.targets) or \
                isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name) and \
                parent.func.id == "len" and parent.args == [node] or \
                isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name) and \
                parent.func.id not in locals_ and _reads_only(parent.func.id) and \
                any(a is node for a in parent.args) or \
                _from_keys_of(parent, node, locals_):
            continue
        return False
    params = {a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
    for extra in (tree.args.vararg, tree.args.kwarg):
        if extra is not None:
            params.add(extra.id)
    return stores == (0 if name in params else 1)


def _from_keys_of(call, node, locals_) -> bool:
    """Is ``call`` ``dict.fromkeys(node, ...)`` (which reads its keys, keeps none of it)?"""
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr == "fromkeys" and isinstance(call.func.value, gast.Name) and \
        call.func.value.id == "dict" and "dict" not in locals_ and \
        bool(call.args) and call.args[0] is node


def _items(normalize, node):
    """The expressions ``*node`` gives, in order (a display's own, or ``v[i]`` of the atom
    ``v`` holding it), and the atom; ``None`` where the length is not known here."""
    if isinstance(node, (gast.Tuple, gast.List)):
        out = []
        for elt in node.elts:
            if isinstance(elt, gast.Starred):
                inner = _items(normalize, elt.value)
                if inner is None:
                    return None
                out += inner
            else:
                out.append(elt)
        return out
    if isinstance(node, gast.Attribute) and node.attr == "shape" and \
            isinstance(node.value, gast.Name):
        atom = normalize.atom(node.value)
        root = normalize.root
        desc = root.descriptors.get(atom.id) if isinstance(atom, gast.Name) else None
        if isinstance(desc, tuple) and desc[0] in ARRAY_TAGS and \
                atom.id not in root.carried and isinstance(desc[1], int):
            return [_item(node, i) for i in range(desc[1])]
        return None
    if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant) and \
            type(node.slice.value) is int and isinstance(node.value, gast.Name):
        whole = _displays(normalize).get(getattr(normalize.atom(node.value), "id", None))
        part = whole.elts[node.slice.value] if isinstance(whole, (gast.Tuple, gast.List)) \
            and -len(whole.elts) <= node.slice.value < len(whole.elts) else None
        inner = _displays(normalize).get(getattr(part, "id", None))
        if isinstance(inner, (gast.Tuple, gast.List)):  # pairs[0], pairs a list of pairs
            return [_item(node, i) for i in range(len(inner.elts))]
        root = normalize.root  # pairs[0], pairs an argument's list or tuple of tuples
        whole = normalize.atom(node.value)
        desc = root.descriptors.get(whole.id) if isinstance(whole, gast.Name) else None
        if isinstance(desc, tuple) and desc[0] in ("tuple", "list") and \
                whole.id not in root.carried and (desc[0] == "tuple" or only_read(
                    root.source.tree, whole.id)) and \
                -len(desc[1]) <= node.slice.value < len(desc[1]):
            part = desc[1][node.slice.value]
            if isinstance(part, tuple) and part and part[0] == "tuple":
                return [_item(node, i) for i in range(len(part[1]))]
    atom = normalize.atom(node)
    if not isinstance(atom, gast.Name):
        return None
    length = _length(normalize, node, atom)
    if length is None:
        return None
    if not isinstance(node, gast.Name):  # (a value computed here: read by its temporary)
        node = _read(normalize, atom)
    return [_item(node, i) for i in range(length)]


def _read(normalize, atom):
    """``atom`` (a temporary just made, or a constant), as an expression of the user's
    that normalization reads again: the temporary becomes a local of its own name."""
    if not isinstance(atom, gast.Name):
        return atom
    normalize.locals.add(atom.id)
    normalize.current.setdefault(atom.id, atom.id)
    return gast.Name(atom.id, gast.Load(), None, None)


def _item(node, i: int):
    """``node[i]``, ``node`` the user's expression (read again: a name or ``x.shape``)."""
    return gast.Subscript(trees.clone(node), gast.Constant(i, None), gast.Load())


def _length(normalize, node, atom) -> int | None:
    display = _displays(normalize).get(atom.id)
    if isinstance(display, (gast.Tuple, gast.List)):
        return len(display.elts)
    root = normalize.root
    desc = root.descriptors.get(atom.id)
    if isinstance(desc, tuple) and desc[0] in ("tuple", "list") and \
            atom.id not in root.carried and (
                desc[0] == "tuple" or only_read(root.source.tree, atom.id)):
        return len(desc[1])
    return None


def _keys(normalize, atom) -> list | None:
    """The keys of the dict the atom ``atom`` holds, in order, where they are known."""
    display = _displays(normalize).get(atom.id)
    if isinstance(display, gast.Dict):
        return [k.value for k in display.keys]
    root = normalize.root
    desc = root.descriptors.get(atom.id)
    if isinstance(desc, tuple) and desc[0] == "dict" and atom.id not in root.carried and \
            only_read(root.source.tree, atom.id) and \
            all(isinstance(k, str) for k, _ in desc[1]):
        return [k for k, _ in desc[1]]
    return None


def spread(normalize, node):
    """``node``, a call with ``*xs`` or ``**kw``, written out for their lengths and keys;
    refused at its line where one is not known."""
    if not any(isinstance(a, gast.Starred) for a in node.args) and \
            all(k.arg is not None for k in node.keywords):
        return node
    last = max((i for i, a in enumerate(node.args) if isinstance(a, gast.Starred)),
               default=-1)
    args = []
    for i, arg in enumerate(node.args):
        if isinstance(arg, gast.Starred):
            items = _items(normalize, arg.value)
            if items is None and node.__dict__.get("varargs") and len(node.args) == 2:
                args.append(arg.value)  # x.reshape(*h.shape): the tuple, whatever its length
                continue
            if items is None:
                raise normalize.source.syntax_error(
                    f"`*{gast.unparse(arg.value)}` here: s2sad cannot tell how many values "
                    "it gives", arg, _ADVICE)
            args += items
        elif i < last and not isinstance(arg, (gast.Name, gast.Constant, gast.Attribute,
                                                  gast.Lambda)):
            args.append(_read(normalize, normalize.atom(arg)))  # (evaluated before the
        else:                                                   # star's value, in order)
            args.append(arg)
    keywords = []
    for keyword in node.keywords:
        if keyword.arg is not None:
            keywords.append(keyword)
            continue
        value = keyword.value
        if isinstance(value, gast.Dict) and all(
                isinstance(k, gast.Constant) and isinstance(k.value, str) for k in value.keys):
            keywords += [gast.keyword(k.value, v) for k, v in zip(value.keys, value.values)]
            continue
        atom = normalize.atom(value)
        keys = _keys(normalize, atom) if isinstance(atom, gast.Name) else None
        if keys is None:
            raise normalize.source.syntax_error(
                f"`**{gast.unparse(value)}` here: s2sad cannot tell which keywords it gives",
                node, "Pass the keyword arguments one by one, or hold them in a dict display "
                "with string keys the function only reads, or an argument's dict.")
        keywords += [gast.keyword(k, gast.Subscript(_read(normalize, atom),  # (its own name:
                                                     gast.Constant(k, None), gast.Load()))
                     for k in keys]  # a nested def's **kw is kw_1, no name of the user's)
    seen = set()
    for keyword in keywords:
        if keyword.arg in seen:
            raise normalize.source.error(
                DifferentiationError, f"got multiple values for keyword argument {keyword.arg!r}", node)
        seen.add(keyword.arg)
    call = gast.Call(node.func, [gast.copy_location(a, node) if not hasattr(a, "lineno") else a
                                 for a in args], keywords)
    call = gast.copy_location(call, node)
    if node.__dict__.get("varargs") and len(args) > 2:  # x.reshape(*shape): its lengths
        call.args = [args[0], gast.copy_location(gast.Tuple(args[1:], gast.Load()), node)]
    call.__dict__.update({k: v for k, v in node.__dict__.items()
                          if k in ("copied", "method", "varargs", "unpacked")})
    return call


def spread_display(normalize, node):
    """A tuple or list display with ``*xs`` items, written out for their lengths."""
    if not any(isinstance(e, gast.Starred) for e in node.elts):
        return node
    items = _items(normalize, node)
    if items is None:
        starred = next(e for e in node.elts if isinstance(e, gast.Starred))
        raise normalize.source.syntax_error(
            f"`*{gast.unparse(starred.value)}` here: s2sad cannot tell how many values it "
            "gives", starred, _ADVICE)
    return gast.copy_location(type(node)(items, gast.Load()), node)


def bind_extras(normalize, child, tree, args: list, keywords: dict, names: list,
                n_pos: int, call):
    """A helper's ``*args`` and ``**kwargs`` (``tree``'s): the extra positional atoms
    (beyond ``n_pos``) as a tuple, the keywords not among ``names`` as a dict, each a
    fresh variable of ``child``. Returns the positional and keyword atoms left to bind."""
    vararg, kwarg = tree.args.vararg, tree.args.kwarg
    if vararg is None and kwarg is None:
        return args, keywords
    extra_pos = args[n_pos:] if vararg is not None else []
    args = args[:n_pos] if vararg is not None else args
    named = set(names[:len(tree.args.posonlyargs)])  # (positional-only: may be in **kwargs)
    extra_kw = {k: v for k, v in keywords.items() if k not in names or k in named} \
        if kwarg is not None else {}
    keywords = {k: v for k, v in keywords.items() if k not in extra_kw}
    for param, value in ((vararg, gast.Tuple(list(extra_pos), gast.Load())),
                         (kwarg, gast.Dict([gast.Constant(k, None) for k in extra_kw],
                                           list(extra_kw.values())))):
        if param is None:
            continue
        if any(v is None for v in getattr(value, "elts", getattr(value, "values", []))):
            spread = getattr(normalize.source.func, "__s2sad_spread__", None) is not None
            source, where = (child.source, tree) if spread else (normalize.source, call)
            raise source.syntax_error(  # (called by s2sad's flat stand-in: the user's def)
                f"a function passed in {tree.name}()'s *{param.id} or **{param.id}", where,
                "Pass it as a named parameter: s2sad inlines it where it is called.")
        copy_name = normalize.namer.claim(param.id)
        child.locals.add(param.id)
        child.current[param.id] = copy_name
        child.emit(gast.Assign([normalize.store(copy_name)], value, None))
        child.made.add(copy_name)
        blocks = set()  # (its items are the caller's values: `return args[0]` returns
        for item in getattr(value, "elts", getattr(value, "values", [])):  # one of them)
            if isinstance(item, gast.Name):
                child.bind_caller(copy_name, param.id)
                blocks |= child.node[copy_name]
                child.__dict__.setdefault("extra_passed", {})[child._blocks] = item.id
        if blocks:
            child.node[copy_name] = frozenset(blocks)
        if isinstance(value, gast.Tuple) or only_read(tree, param.id):
            _displays(normalize)[copy_name] = value
    return args, keywords


def _builtin(normalize, node, name: str) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
        node.func.id == name and node.func.id not in normalize.locals and \
        normalize.source.is_builtin(name)


def _read_only(node) -> bool:
    """Does reading ``node`` compute nothing (a name, its item or shape, a display of
    those), so that looking at its length first changes nothing?"""
    if isinstance(node, gast.Starred):
        node = node.value
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(map(_read_only, node.elts))
    if isinstance(node, gast.Subscript):
        return isinstance(node.slice, gast.Constant) and _read_only(node.value)
    if isinstance(node, gast.Attribute):
        return node.attr == "shape" and isinstance(node.value, gast.Name)
    return isinstance(node, (gast.Name, gast.Constant))


def _once(normalize, node):
    """``node`` with what it computes computed now, in order, and read by name (a
    display keeps its items, each computed)."""
    if _read_only(node):
        return node
    if isinstance(node, (gast.Tuple, gast.List)) and \
            not any(isinstance(e, gast.Starred) for e in node.elts):
        return gast.copy_location(type(node)([_once(normalize, e) for e in node.elts],
                                             gast.Load()), node)
    return gast.copy_location(_read(normalize, normalize.atom(node)), node)  # (located:
    # a display zip writes out from it is located at it)


def written_zip(normalize, node):
    """``list(zip(xs, ys))``, ``tuple(zip(...))`` and ``a, b = zip(*pairs)`` (``node``: the
    list or tuple call, or the zip itself where it is unpacked), for sequences whose
    lengths are known: the display of the tuples zip makes, ``[(xs[0], ys[0]), ...]``;
    else None."""
    shown, call = gast.List, node
    if _builtin(normalize, node, "list") or _builtin(normalize, node, "tuple"):
        if len(node.args) != 1 or node.keywords:
            return None
        shown = gast.List if node.func.id == "list" else gast.Tuple
        node = node.args[0]
    if not _builtin(normalize, node, "zip") or not node.args or node.keywords:
        return None
    outer, zipped = call, node
    if not all(map(_read_only, node.args)):  # (each computed once, first, in order: the
        node = gast.copy_location(gast.Call(node.func, [  # call is written over them)
            _once(normalize, a) for a in node.args], []), node)
        node.__dict__.update({k: v for k, v in zipped.__dict__.items() if k == "unpacked"})
        return node if outer is zipped else gast.copy_location(
            gast.Call(outer.func, [node], []), outer)
    node = spread(normalize, node)
    columns = [_items(normalize, arg) for arg in node.args]
    if any(c is None for c in columns) and all(
            c is not None or _array_valued(normalize, a) for c, a in zip(columns, node.args)):
        return _zip_by_index(node.args, columns, shown)  # zip(keys, x), x an array
    if any(c is None for c in columns):
        return None
    rows = [gast.Tuple([c[i] for c in columns], gast.Load())
            for i in range(min(map(len, columns)))]
    return gast.copy_location(shown(rows, gast.Load()), node)


def zipped_dict(normalize, node):
    """``dict(zip(("a", "b"), vals))`` with string constants for keys (or the items of a
    list of them, ``names[0]``) and ``vals`` of a known length: the display
    ``{"a": vals[0], "b": vals[1]}`` (a later key wins, as in ``dict``); else None."""
    if not _builtin(normalize, node, "dict") or len(node.args) != 1 or node.keywords or \
            not _builtin(normalize, node.args[0], "zip") or len(node.args[0].args) != 2:
        return None
    rows = written_zip(normalize, node.args[0])
    if isinstance(rows, gast.Call):  # (its arguments computed first: looked at again)
        return gast.copy_location(gast.Call(node.func, [rows], []), node)
    if not isinstance(rows, gast.List):
        return None
    keys = [_shown_constant(normalize, r.elts[0]) for r in rows.elts]
    if not all(isinstance(k, gast.Constant) and isinstance(k.value, str) for k in keys):
        return None
    return gast.copy_location(gast.Dict(keys,
                                        [r.elts[1] for r in rows.elts]), node)


def _shown_constant(normalize, item):
    """``item``, or the constant it reads: ``names[0]`` of ``names = ["a", "b"]``, a
    display the function only reads (:func:`note_display`), is ``"a"``."""
    if not (isinstance(item, gast.Subscript) and isinstance(item.value, gast.Name) and
            isinstance(item.slice, gast.Constant) and type(item.slice.value) is int):
        return item
    atom = normalize.atom(item.value)
    shown = _displays(normalize).get(getattr(atom, "id", None))
    if isinstance(shown, (gast.Tuple, gast.List)) and \
            -len(shown.elts) <= item.slice.value < len(shown.elts) and \
            isinstance(shown.elts[item.slice.value], gast.Constant):
        return gast.copy_location(gast.Constant(shown.elts[item.slice.value].value, None),
                                  item)
    return item


def from_keys(normalize, node):
    """``dict.fromkeys(names, 0.0)`` of keys whose number is known (a display, a tuple,
    a list only read, an argument's): the display ``{names[0]: 0.0, names[1]: 0.0}``
    (``{"a": 0.0, "b": 0.0}`` where ``names`` is a display of those keys)
    (a key given again keeps its first place, as in ``fromkeys``); else None. The keys
    are computed first, then the value, once: every key holds that one value, as
    Python's does (a shared slot is then refused where it is changed in place)."""
    func = node.func
    if not (isinstance(func, gast.Attribute) and func.attr == "fromkeys" and
            isinstance(func.value, gast.Name) and func.value.id == "dict" and
            func.value.id not in normalize.locals and normalize.source.is_builtin("dict")) \
            or not 1 <= len(node.args) <= 2 or node.keywords or \
            any(isinstance(a, gast.Starred) for a in node.args):
        return None
    keys = _items(normalize, node.args[0])
    if keys is None:
        return None
    keys = [_shown_constant(normalize, k) for k in keys]
    value = node.args[1] if len(node.args) == 2 else gast.Constant(None, None)
    if not isinstance(value, gast.Constant):
        value = _read(normalize, normalize.atom(value))
    return _located(gast.copy_location(gast.Dict(
        keys, [trees.clone(value) for _ in keys]), node), node)


def _zip_by_index(args, columns, shown):
    """``[(keys[i], x[i]) for i in range(min(4, len(x)))]``: zip of sequences, some
    arrays whose lengths are known when the function runs (their rows, as zip takes them)."""
    sizes = [gast.Constant(len(c), None) if c is not None else
             gast.Call(gast.Name("len", gast.Load(), None, None), [trees.clone(a)], [])
             for c, a in zip(columns, args)]
    size = sizes[0] if len(sizes) == 1 else \
        gast.Call(gast.Name("min", gast.Load(), None, None), sizes, [])
    at = gast.Name("_at", gast.Load(), None, None)
    row = gast.Tuple([gast.Subscript(trees.clone(a), at, gast.Load()) for a in args],
                     gast.Load())
    made = gast.ListComp(row, [gast.comprehension(
        gast.Name("_at", gast.Store(), None, None),
        gast.Call(gast.Name("range", gast.Load(), None, None), [size], []), [], 0)])
    if shown is gast.Tuple:
        made = gast.Call(gast.Name("tuple", gast.Load(), None, None), [made], [])
    return _located(made, args[0])


def first_item(normalize, node):
    """``next(iter(xs))`` (or ``next(iter(xs), d)``) of a sequence whose length is known
    (a display, a tuple, a list only read, an argument's): ``xs[0]``, or ``d`` where it is
    empty; else None (an iterator or generator kept is not followed)."""
    if not _builtin(normalize, node, "next") or node.keywords or \
            not 1 <= len(node.args) <= 2 or not _builtin(normalize, node.args[0], "iter") or \
            len(node.args[0].args) != 1 or node.args[0].keywords or \
            not _read_only(node.args[0].args[0]) or \
            isinstance(node.args[0].args[0], gast.Starred) or \
            len(node.args) == 2 and not _read_only(node.args[1]):
        return None  # (a default that computes: Python computes it, used or not)
    items = _items(normalize, node.args[0].args[0])
    if items is None or not items and len(node.args) == 1:
        return None  # (empty: Python's StopIteration, left to the call)
    return items[0] if items else node.args[1]


def starred_assignment(normalize, stmt):
    """``a, *rest = xs`` as ``a, rest = xs[0], [xs[1], xs[2]]`` where the length of ``xs``
    is known (a display, a tuple, a list only read, an argument's), or ``a, rest = x[0],
    list(x[1:])`` of an argument array with no name after the star; refused at its line
    otherwise. None for another statement.

    ``rest`` is a list, as Python makes it; ``xs`` is evaluated once, before any target.
    """
    target = stmt.targets[0] if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        else None
    if not isinstance(target, (gast.Tuple, gast.List)):
        return None
    star = next((i for i, e in enumerate(target.elts) if isinstance(e, gast.Starred)), None)
    if star is None:
        return None
    before, after = star, len(target.elts) - star - 1
    value = stmt.value
    if isinstance(value, (gast.Tuple, gast.List)):
        items = _items(normalize, value)
    else:
        atom = normalize.atom(value)
        read = _read(normalize, atom)
        items = _items(normalize, read) if isinstance(atom, gast.Name) else None
    elts = [e.value if isinstance(e, gast.Starred) else e for e in target.elts]
    if items is not None:
        if len(items) < before + after:
            raise normalize.source.error(
                DifferentiationError, f"not enough values to unpack (expected at least "
                f"{before + after}, got {len(items)})", stmt,
                "Give at least as many values as the names beside the star.")
        rest = gast.List(items[before:len(items) - after], gast.Load())
        values = items[:before] + [rest] + items[len(items) - after:]
    else:
        if not isinstance(atom, gast.Name) or not (_array_valued(normalize, value) or
                                                   _returns_a_tuple(normalize, value)):
            raise normalize.source.syntax_error(
                "starred assignment (`a, *b = ...`) of a value whose length s2sad cannot "
                "tell", target.elts[star], "Index the sequence instead (a, rest = xs[0], "
                "xs[1:]), or unpack a tuple, a list argument the function does not grow, "
                "or an array (a, *rest = x; *init, last = X.T).")
        if after:  # (a, *mid, b = x of one row: Python's ValueError, not a[0] twice)
            normalize.statement(_located(_length_check(read, before + after), stmt))
        values = [_item(read, i) for i in range(before)] + [gast.Call(
            gast.Name("list", gast.Load(), None, None),
            [gast.Subscript(trees.clone(read), gast.Slice(
                gast.Constant(before, None), gast.Constant(-after, None) if after else None,
                None), gast.Load())], [])] + [_item(read, i - after) for i in range(after)]
    assign = gast.Assign([gast.Tuple(elts, gast.Store())], gast.Tuple(values, gast.Load()))
    return _located(assign, stmt)


def _returns_a_tuple(normalize, node) -> bool:
    """Is ``node`` (the user's expression) a call of a function whose rule gives a tuple
    of results (``np.linalg.lstsq``, ``np.linalg.svd``): ``c, *_ = np.linalg.lstsq(...)``
    takes its items by index, its length checked where it runs."""
    if not isinstance(node, gast.Call) or any(isinstance(a, gast.Starred) for a in node.args):
        return False
    try:
        rule = registry.lookup(normalize._callee(node.func))
    except TypeError:  # (unhashable)
        return False
    return rule is not None and rule.shape == "sequence"


def _arrays(normalize) -> set:
    """(root) the versions given a value known to be an array (``_known_array``)."""
    return normalize.root.__dict__.setdefault("_star_arrays", set())


def note_array(normalize, ssa: str, value) -> None:
    """``ssa`` just given ``value`` (normalized): noted where that is an array, so that a
    starred assignment of it takes its rows."""
    if _known_array(normalize, value):
        _arrays(normalize).add(ssa)


def _array_valued(normalize, node) -> bool:
    """Is ``node`` (the user's expression) an array, whatever its length: an argument
    array, its ``.T``, a slice of one, ``x.reshape(...)``, ``-x``, ``x * 2``, a name
    given one?"""
    if isinstance(node, gast.Name):
        atom = normalize.atom(node)
        return isinstance(atom, gast.Name) and _known_array(normalize, atom)
    return _known_array(normalize, node, user=True)


def _gives_view(func) -> bool:
    """Do ``func``'s facts say it returns a view of its first argument (``np.transpose``,
    ``ndarray.reshape``, ``ndarray.astype`` uncopied): of an array, an array?"""
    if func is None or isinstance(func, (property, type(np.ndarray.T))):
        return False
    try:
        found = registry.facts(func)
    except TypeError:  # (unhashable)
        return False
    return found is not None and isinstance(found.returns_view_of, tuple) and (
        0 in found.returns_view_of or 0 in found.uncopied_view_of)


def _known_array(normalize, node, user: bool = False) -> bool:
    """``_array_valued`` of a normalized expression (``user``: of the user's, its names
    read through ``normalize.atom``), computing nothing."""
    if isinstance(node, gast.Name):
        if user:
            return _array_valued(normalize, node)
        root = normalize.root
        desc = root.descriptors.get(node.id)
        return node.id not in root.carried and (
            isinstance(desc, tuple) and bool(desc) and desc[0] in ARRAY_TAGS or
            node.id in _arrays(normalize))
    if isinstance(node, gast.Attribute):
        return node.attr in ("T", "mT") and _known_array(normalize, node.value, user)
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
            _gives_view(getattr(np.ndarray, node.func.attr, None)) and \
            _known_array(normalize, node.func.value, user):
        return True  # x.reshape(3, 2): a view of x, an array (the facts of the method)
    if isinstance(node, gast.Call) and node.args and not any(
            isinstance(a, gast.Starred) for a in node.args):
        callee = normalize._callee(node.func)  # np.transpose(x) (x.T), np.sin(x)
        name = getattr(callee, "__name__", None)
        return name is not None and getattr(callee, "__module__", None) != "builtins" and \
            getattr(np, name, None) is callee and (  # (str: not np.str, a deprecated name)
            _gives_view(callee) or isinstance(callee, np.ufunc) and
            callee.nout == 1) and _known_array(normalize, node.args[0], user)
    if isinstance(node, gast.Subscript):
        return isinstance(node.slice, gast.Slice) and _known_array(normalize, node.value, user)
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, (gast.USub, gast.UAdd)) and \
            _known_array(normalize, node.operand, user)
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult,
                                                             gast.Div, gast.Pow)):
        return any(_known_array(normalize, side, user)  # (an array's operator: an array)
                   for side in (node.left, node.right))
    return False


def _length_check(read, least: int):
    """``if len(t) < least: raise ValueError(...)``, Python's own refusal of a starred
    assignment given too few values (``read``: the value, by name)."""
    check = gast.parse(
        f"if len(_v) < {least}:\n    raise ValueError('not enough values to unpack "
        f"(expected at least {least}, got %d)' % len(_v))").body[0]
    for node in trees.walk(check):
        if isinstance(node, gast.Name) and node.id == "_v":
            node.id = read.id
    return check


def _located(tree, stmt):
    """``tree`` with ``stmt``'s location on each node that has none."""
    for node in trees.walk(tree):
        if "lineno" in getattr(node, "_attributes", ()) and \
                getattr(node, "lineno", None) is None:
            gast.copy_location(node, stmt)
    return tree
