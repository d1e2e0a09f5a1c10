"""What is known of each value's shape: scalar, an array shaped like some argument, or unknown.

The compiler specializes a gradient to the kinds of its arguments (Python
floats, arrays of some rank, lists of floats...), so ``unbroadcast`` only
appears where shapes may really differ and the seed's ``grad_f4`` comes out
exactly as written by hand. Two arrays with the same ``shape`` token have the
same shape.

>>> describe([1.0, 2.0]), describe(np.zeros((2, 3), np.float32))
(('list', ('float', 'float')), ('nd', 2, 'f'))
>>> import gast
>>> from s2sad.source import FunctionSource
>>> text = "def f(x, w):\\n    y = x * w\\n    z = np.sum(y)\\n    return z"
>>> tree = gast.parse(text).body[0]
>>> kinds = infer_kinds(tree, {"x": from_descriptor(('nd', 1, 'f'), 'x'), "w": SCALAR},
...                     FunctionSource(None, tree, "demo.py", [], {"np": np}))
>>> kinds["y"].shape, kinds["z"].tag
('x', 'scalar')
"""

from __future__ import annotations

import functools
import inspect
from collections import abc
from dataclasses import dataclass, replace

import gast
import numpy as np

from .. import registry, trees
from ..backends import ARRAY_TAGS, numpy_module
from ..descriptors import (_NOT_USERS, _PY, _UNROLLED, _plain_lookup, class_method,  # noqa: F401
                           data_descriptor, describe, is_object, length_one_axes,
                           objects_described,
                           user_objects, DEPTH)
from ..errors import DifferentiationError
from ..source import MISSING, held_foreign, iterator, iterator_refusal
from ..trees import assigned_names
from .resolve import (classify, foreign_argument, is_append, is_setitem, modeled_type,
                      static_noted,
                      namedtuple_class, statement_parts, static_value, unmodeled_data)


@dataclass(frozen=True)
class Kind:
    tag: str                 # scalar | array | numeric | list | tuple | dict | any
    shape: str | None = None  # equal tokens mean equal shapes; "()" for scalars
    ndim: int | None = None
    items: tuple = ()
    py: str | None = None    # "float", "int", "complex" for Python numbers; "number":
    # one of those, by the path taken (z = 1 if c else 2.0): Python's all the same
    fits: str | None = None  # broadcasts into the shape with this token (keepdims results)
    fields: tuple = ()       # a namedtuple's field names, in order (its items' names)
    # an object whose operators and indexing are its own, not NumPy's (an argument of
    # np.matrix, a masked array, a class of the user's): see reverse.refuse_foreign_operand
    foreign: bool = False
    data: bool = False  # foreign and data: an np.matrix, a deque... (resolve.unmodeled_data)
    # do its items (what a loop, an index or list() gives) hold such data? None: as
    # ``foreign`` says (an np.matrix's rows are matrices; an argument's set is not read);
    # False: not (a module's set of numbers); True: they do (a module's list of np.matrix)
    held: bool | None = None
    walked: bool | None = None  # those a loop or list() gives (a dict's keys): None, as held
    # the axes of length 1, where ``ndim`` is known and the arguments' kinds decide it
    # (``describe_argument``: the entry tests them); None: not known
    ones: tuple | None = None

    @property
    def holds_foreign(self) -> bool:
        return self.foreign if self.held is None else self.held

    @property
    def walks_foreign(self) -> bool:
        return self.holds_foreign if self.walked is None else self.walked

    @property
    def numeric(self) -> bool:
        return self.tag in ("scalar", "array", "numeric")

    @property
    def container(self) -> bool:
        return self.tag in ("list", "tuple", "dict")


SCALAR = Kind("scalar", "()", 0)
NUMERIC = Kind("numeric")
ANY = Kind("any")
FOREIGN = Kind("any", foreign=True)
DATA = Kind("any", foreign=True, data=True)


def member(source, node):
    """The description of ``node``, what an argument that is an object holds at some
    depth through attributes, items and loops (``p.W``: ``("nd", 2, "f")``; ``p.M``:
    ``("data", np.matrix)``; ``p.layer.M``, ``p.layers[0].s``, ``p.d["k"]``, ``l.s`` for
    ``l = p.inner`` or ``for l in p.layers``: see ``_object`` and ``member_paths``), or
    None where its description does not say; noted, so that the entry of the gradient
    tests it (``p.W`` an ndarray of that dtype kind, ``p.M`` of that class, ``p.d`` still
    nothing the description carries: ``note_undescribed``)."""
    steps = _steps(node, getattr(source, "roots", None), getattr(source, "paths", None))
    if steps is None or len(steps) < 2:
        return None
    places = _places(source.roots[steps[0]], steps[1:], steps[0], 0, [])
    found = set()
    for path, desc in places:
        if desc == _CACHED and steps[0] in getattr(source, "wrt", (steps[0],)):
            raise source.error(
                DifferentiationError, f"{path} is a functools.cached_property of an "
                "argument's object: Python runs its getter at the first read only, and keeps "
                "the value in the object, which s2sad does not follow on an argument", node,
                "Make the object in the function (s2sad follows a cached_property there), or "
                "compute the value in the function from the attributes the getter reads.")
        if desc == _DEEP:
            raise source.error(
                DifferentiationError, f"s2sad reads the attributes of an argument's objects "
                f"{DEPTH} objects down at most; this reads {path} further down", node,
                "Pass that object, or the values it holds, as an argument of the function.")
        if desc == _CACHED:
            continue  # (an object not differentiated: its value read as Python reads it)
        found.add(_noted(path, desc))
    return found.pop() if len(found) == 1 else None


_ABSENT = ("absent",)  # (what _places gives for an attribute the description lacks)
_DEEP = ("deep",)  # (for one of an object deeper than its description goes)
_CACHED = ("cached",)  # (for a functools.cached_property: computed at the first read)


def object_roots(params, descriptors) -> dict:
    """``{argument: description}`` of the arguments that are objects (``member``'s
    roots)."""
    return {param: desc for param, desc in zip(params, descriptors or ())
            if type(desc) is tuple and desc[0] == "object"}


def member_paths(tree, source) -> dict:
    """``{name: steps}`` of the local names of ``tree`` given, at each of their
    assignments, one member of an argument that is an object (``source.roots``): ``t =
    p.inner``, ``t = p.layers[0]``, ``l = ls[i]`` for ``ls = list(p.layers)`` (``("each",)``:
    any item), ``s = t``; None for such an argument given another value. Read by
    ``member`` through ``source.paths``."""
    roots = getattr(source, "roots", None)
    if not roots:
        return {}
    given: dict = {}  # name -> the values it is given (None: other than by `name = value`)
    plain = set()
    for node in trees.walk(tree):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            given.setdefault(node.targets[0].id, []).append(node.value)
            plain.add(id(node.targets[0]))
    for node in trees.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and \
                id(node) not in plain:
            given.setdefault(node.id, []).append(None)  # (a loop's, unpacking, +=...)
    paths: dict = {name: None for name in roots if name in given}  # (given another value)
    for _ in range(8):  # (until what names give each other settles)
        changed = False
        for name, values in given.items():
            if name in roots:
                continue
            found = {None if v is None else _steps(_listed_value(v), roots, paths)
                     for v in values}
            now = found.pop() if len(found) == 1 else None
            if paths.get(name) != now:
                paths[name] = now
                changed = True
        if not changed:
            break
    return paths


def _listed_value(value):
    """``list(v)`` or ``tuple(v)``: ``v``, whose items it holds; else ``value``."""
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
            value.func.id in ("list", "tuple") and len(value.args) == 1 and not value.keywords:
        return value.args[0]
    return value


def _steps(node, roots, paths):
    """``("p", ("attr", "inner"), ("item", 0), ("each",)...)``: the path of ``node`` from an
    argument that is an object (``roots``; ``paths``: the local names' own, None where
    a name is given other values); None where it is not one."""
    if not roots:
        return None
    if isinstance(node, gast.Name):
        paths = paths or {}
        if node.id in paths:
            return paths[node.id]
        return (node.id,) if node.id in roots else None
    if isinstance(node, gast.Attribute):
        base = _steps(node.value, roots, paths)
        return None if base is None else base + (("attr", node.attr),)
    if isinstance(node, gast.Subscript):
        base = _steps(node.value, roots, paths)
        index = node.slice
        if base is None:
            return None
        if isinstance(index, gast.Constant) and type(index.value) in (int, str):
            return base + (("item", index.value),)
        if isinstance(index, gast.Name):
            return base + (("each",),)
    return None


def _places(desc, steps, path: str, depth: int, found: list) -> list:
    """``[(path, description)]`` of what ``steps`` reach from ``desc`` (at ``path``, an
    object ``depth`` attributes down): one place, or each item of a list whose items
    differ (a loop over them, ``("each",)``); ``(holder's path, ("absent", class, name))``
    for an attribute the description lacks; none where the description does not say."""
    if not steps:
        found.append((path, desc))
        return found
    step, rest = steps[0], steps[1:]
    if type(desc) is not tuple:
        return found
    if step[0] == "attr":
        if desc[0] == "object" and depth >= DEPTH:
            found.append((path, _DEEP))  # (its own attributes not described: refused)
            return found
        if desc[0] != "object" or not _plain_lookup(desc[1]):
            return found  # (its own attributes not described: _object)
        if isinstance(inspect.getattr_static(desc[1], step[1], None), functools.cached_property):
            found.append((f"{path}.{step[1]}", _CACHED))  # (filled or not: refused)
            return found
        item = dict(desc[3]).get(step[1])
        if item is None:
            if not data_descriptor(desc[1], step[1]):
                found.append((path, (_ABSENT, desc[1], step[1])))
            return found
        return _places(item, rest, f"{path}.{step[1]}", depth + 1, found)
    if desc[0] not in ("list", "tuple", "dict") or len(desc) != 2:
        return found  # (an array's item, a namedtuple's...: the array tested)
    keyed = dict(desc[1]) if desc[0] == "dict" else dict(enumerate(desc[1]))
    if step[0] == "item":
        key = step[1]
        if desc[0] != "dict" and type(key) is int and key < 0:
            key += len(desc[1])  # (p.layers[-1])
        if key in keyed and (desc[0] == "dict" or type(key) is int):
            return _places(keyed[key], rest, f"{path}[{step[1]!r}]", depth, found)
        return found
    if desc[0] != "dict" and keyed and all(item == keyed[0] for item in keyed.values()):
        return _places(keyed[0], rest, f"{path}[*]", depth, found)
    for key, item in keyed.items():  # (items that differ: each tested, and their number)
        if type(key) in (int, str):
            _places(item, rest, f"{path}[{key!r}]", depth, found)
    from ..source import note_length
    note_length(path, len(keyed))
    return found


def _noted(path: str, desc):
    """Note what the entry tests of ``desc`` at ``path`` (see ``member``); the description
    ``member`` gives of it (None for an absent one, and for a NumPy number, whose kind
    is not known apart from its dtype)."""
    from ..source import (note_dtype, note_length, note_number, note_path, note_real,
                          note_undescribed)
    if desc[0] == _ABSENT:
        _, cls, name = desc
        found = getattr(cls, name, MISSING)
        if found is MISSING or not callable(found):  # (a method: note_method tests it)
            note_undescribed(path, name)
            if found is not MISSING:  # (a class's number: made complex, built again)
                note_real(cls, name, "attr")
        return None
    if isinstance(desc, str):
        if desc in _NUMBER_CLASSES:
            note_path(path, _NUMBER_CLASSES[desc])
        return desc
    if desc[0] in ("data", "object"):
        note_path(path, desc[1])
    elif desc == ("none",):
        note_path(path, type(None))
    elif desc[0] == "nd" and len(desc) == 3:
        note_path(path, np.ndarray)
        note_dtype(path, desc[2])
    elif desc[0] == "nd" and len(desc) == 4:  # (a NumPy number: the entry tests that it
        note_number(path, desc[2])                # is one, of its dtype's kind)
        return None
    elif desc[0] in ("list", "tuple", "dict") and len(desc) == 2:  # (p.ms = [M], read
        note_path(path, {"list": list, "tuple": tuple, "dict": dict}[desc[0]])  # whole:
        note_length(path, len(desc[1]))  # its items tested)
        held = desc[1] if desc[0] == "dict" else enumerate(desc[1])
        for key, item in held:
            if type(key) in (int, str) and not objects_described(desc):
                _noted(f"{path}[{key!r}]", item)
    else:
        return None
    return desc


_NUMBER_CLASSES = {"float": float, "int": int, "complex": complex}


def object_members(params, descriptors) -> dict:
    """``{(argument, attribute): description}`` of the arrays, numbers, data of a class
    s2sad does not model (``_data_member``) and objects held by the arguments that are
    objects."""
    found = {}
    for param, desc in zip(params, descriptors or ()):
        if type(desc) is tuple and desc[0] == "object":
            for name, item in desc[3]:
                if isinstance(item, str) or item[0] in ("nd", "data", "object") or \
                        item[0] in ("list", "tuple", "dict") and not objects_described(item):
                    found[param, name] = item  # (p.ms = [M]: a list of np.matrix)
    return found

def integer_member(norm, value) -> None:
    """Mark ``value`` (``layer.n_calls``, read into a temporary) where the name it reads
    holds an argument's object whose description says the attribute is a Python int (or
    bool): ``int_member``, its path, which :func:`held_integer` reads and notes for the
    entry's test. (A mark on the node read: the one item a loop written out item by item
    gives the name there.)"""
    if not isinstance(value, gast.Attribute) or not isinstance(value.value, gast.Name):
        return
    ref = norm.root.objects.get(value.value.id)
    if type(ref) is tuple and len(ref) == 5 and ref[0] == "param" and \
            ref[4].get(value.attr) == "int":
        value.int_member = f"{ref[1]}.{value.attr}"


def held_integer(node) -> bool:
    """Is ``node`` an attribute read :func:`integer_member` marked? Noted, so that the
    entry of the gradient tests that it is still an int."""
    from ..source import note_path
    path = getattr(node, "int_member", None)
    if path is None:
        return False
    note_path(path, int)
    return True


def from_descriptor(desc, token: str) -> Kind:
    if desc is None:
        return ANY
    if type(desc) is tuple and desc[0] == "data":  # (np.matrix, a masked array, a deque...)
        return DATA
    if is_object(desc):  # (an object of a user's class, a string, None...)
        return FOREIGN
    if isinstance(desc, str):
        return Kind("scalar", "()", 0, py=desc)
    tag = desc[0]
    if tag in ARRAY_TAGS:
        return Kind("scalar", "()", 0) if desc[1] == 0 else \
            Kind("array", token, desc[1], ones=length_one_axes(desc))
    if tag == "dict":
        return Kind("dict", items=tuple((k, from_descriptor(d, f"{token}[{k!r}]"))
                                        for k, d in desc[1]))
    return Kind(tag, items=tuple(from_descriptor(d, f"{token}[{i}]")
                                 for i, d in enumerate(desc[1])),
                fields=desc[2][1] if len(desc) > 2 else ())


def combine(kinds: list[Kind]) -> Kind:
    """Kind of an elementwise (broadcasting) result."""
    if not all(k.numeric for k in kinds):
        return NUMERIC
    shapes = {k.shape for k in kinds if k.tag != "scalar"}
    if not shapes:
        return SCALAR
    if len(shapes) == 1 and None not in shapes:
        return next(k for k in kinds if k.tag != "scalar")
    # x - np.max(x, axis=1, keepdims=True) has the shape of x
    full = [k for k in kinds if k.tag != "scalar" and k.shape is not None and
            all(o.tag == "scalar" or o.shape == k.shape or o.fits == k.shape for o in kinds)]
    if full:
        return full[0]
    ndims = [k.ndim for k in kinds if k.tag != "scalar"]
    ones = broadcast_ones(kinds)
    if ones is not None:  # an operand of the result's rank and axes of length 1 has its
        for k in kinds:   # shape (NumPy broadcasts other lengths only where they agree)
            if k.tag != "scalar" and k.shape is not None and k.ndim == max(ndims) and \
                    k.ones == ones:
                return k
    if all(k.tag == "array" for k in kinds if k.tag != "scalar") and None not in ndims:
        # shape unknown, rank known (the walk names it)
        return Kind("array", None, max(ndims), ones=ones)
    if ones is not None:  # (x[None, :, :] - m[:, None, :]: numeric, its axes of length 1 known)
        return Kind("numeric", None, max(ndims), ones=ones)
    return NUMERIC


def broadcast_ones(kinds) -> tuple | None:
    """The axes of length 1 of the broadcast of values of ``kinds``: those where every
    value that has the axis has it of length 1 (NumPy's rule, axes aligned on the right);
    None where a value's are not known.

    >>> broadcast_ones([Kind("array", "x", 2, ones=(1,)), Kind("array", "b", 1, ones=()),
    ...                 SCALAR])
    ()
    >>> broadcast_ones([Kind("array", "x", 2, ones=(1,)), Kind("array", "y", 3, ones=(0, 2))])
    (0, 2)
    """
    known = [k for k in kinds if k.ndim != 0 and k.tag != "scalar"]
    if any(k.ndim is None or k.ones is None for k in known):
        return None
    ndim = max((k.ndim for k in known), default=0)
    return tuple(axis for axis in range(ndim)
                 if all(axis - (ndim - k.ndim) in k.ones
                        for k in known if axis >= ndim - k.ndim))


def infer_kinds(tree: gast.FunctionDef, arg_kinds: dict[str, Kind], source,
                local_names: set[str] | None = None) -> dict[str, Kind]:
    local_names = assigned_names(tree) if local_names is None else local_names
    kinds = dict(arg_kinds)
    tapes = _tapes(tree)  # (a loop's tape: its restores add no kind of their own)
    generated = str(getattr(source, "filename", "")).startswith("<s2sad ")
    saved = _saved_lists(tree)  # (x_saved[i] gives x back its own value)
    pushed = saved | {n for names in tapes.values() for n in names}  # (and x = None)
    arithmetic: dict = {}  # id of an operator's node -> (the node, its kind)
    _read_members(tree, source)

    def of(node) -> Kind:
        if isinstance(node, gast.Name):
            return kinds.get(node.id, ANY)
        if isinstance(node, gast.Constant):
            return _constant_kind(node.value)
        if isinstance(node, gast.Attribute):
            return _module_number_kind(node, source, local_names)
        if isinstance(node, (gast.BinOp, gast.UnaryOp)):  # 2.0 * np.pi
            if id(node) not in arithmetic:  # (each node once: a chain of them is long)
                parts = [of(part) for part in ((node.left, node.right) if isinstance(
                    node, gast.BinOp) else (node.operand,))]
                kind = _value_kind(node, of, source, local_names, None) if all(
                    k.tag == "scalar" and k.py in ("float", "int") for k in parts) else ANY
                arithmetic[id(node)] = (node, kind if kind.tag == "scalar" and kind.py
                                        else ANY)
            return arithmetic[id(node)][1]
        if isinstance(node, gast.Tuple) and all(isinstance(e, gast.Constant) for e in node.elts):
            return Kind("tuple", items=tuple(_constant_kind(e.value) for e in node.elts))
        return ANY

    def walk(stmts):
        for stmt in stmts:
            if isinstance(stmt, (gast.If, gast.While)):
                walk(stmt.body)
                walk(stmt.orelse)
                continue
            if isinstance(stmt, gast.For):
                set_kind(stmt.target.id, Kind("scalar", "()", 0, py="int"))
                walk(stmt.body)
                continue
            targets, value = statement_parts(stmt)
            if targets and (is_setitem(stmt) or is_append(stmt)):
                stored(targets[0], value)
                continue
            if not targets or pushed and _restores(stmt, saved, pushed):
                continue
            popped = _popped(stmt, tapes)
            if popped is not None and targets[0] in tapes[popped] and (
                    generated or stmt.__dict__.get("s2sad_wrote")):
                continue  # (s2sad's tape gives a name back its own earlier value)
            if popped is not None:  # (one of the values pushed: their kinds joined)
                known = [kinds[n] for n in sorted(tapes[popped]) if n in kinds]
                kind = known[0] if known else ANY
                for other in known[1:]:
                    kind = _join(kind, other, targets[0]) if other != kind else kind
                set_kind(targets[0], kind)
                continue
            if len(targets) > 1 or isinstance(stmt.targets[0], gast.Tuple):
                source_kind = of(value)
                for t, k in zip(targets, _unpacked(source_kind, len(targets), targets),
                                strict=True):
                    set_kind(t, k)
                continue
            kind = _value_kind(value, of, source, local_names, targets[0])
            _refuse_iterator(stmt, value, source, local_names)
            kind = _display_kind(value, kind, source, local_names)
            items = _items_read(value, of, source, local_names)
            if items is not None:  # list(S), sum(S): the items of S, not S's class
                kind = _with_items(kind, items) if registry.facts(items[0]).sequence else \
                    DATA if items[1] else kind
            elif _carries_foreign(value, of, source, local_names):
                # (np.multiply(M, 2.0), M.T, M[0]: an np.matrix still; E = S, a module's
                kind = _data(value, source, local_names)  # set: its items, numbers)
            elif _held_object(source, value, local_names):
                kind = FOREIGN  # (p.layer: its operators are its own, or refused)
            else:  # (E = LM, a module's list of np.matrix: an item read from E is one)
                held = _free_holds_foreign(value, source, local_names)
                kind = _holding(kind, *held) if any(held) and not kind.foreign else kind
            if kind.tag in ("numeric", "array") and kind.shape is None:
                # unknown shape, but the same as its own
                kind = Kind(kind.tag, targets[0], kind.ndim, ones=kind.ones)
            set_kind(targets[0], kind)

    assigned: dict[str, Kind] = dict(arg_kinds)  # a parameter rebound in a loop or branch
    # joins the kind it came in with

    def set_kind(name, kind):
        # a name assigned more than once (in a loop, in branches) has one kind for all
        if name in assigned and assigned[name] != kind:
            kind = _join(assigned[name], kind, name)
        assigned[name] = kind
        kinds[name] = kind

    def stored(name, value):
        """``ys.append(v)``, ``ys[i] = v``: an item of the list may be ``v`` now (its
        kind joins the items'; ``ys = [0.0]; ys.append(z)``: ``ys[1]`` is z, an array)."""
        kind = kinds.get(name)
        if kind is None or kind.tag != "list" or not kind.items:
            return
        new = of(value)
        if all(item == new for item in kind.items):
            return
        kinds[name] = assigned[name] = Kind(
            "list", items=tuple(_join(item, new, f"{name}[{i}]")
                                for i, item in enumerate(kind.items)), fields=kind.fields)

    walk(tree.body)
    for _ in range(8):  # more passes, until what loops carry around settles (a list grown
        before = dict(kinds)  # in a loop: its items' kinds)
        walk(tree.body)
        if kinds == before:
            break
    return kinds


def _saved_lists(tree) -> set[str]:
    """The names ``x`` whose ``x_saved`` list holds ``x``'s own values alone (``x_saved =
    [None] * n``, ``x_saved[i] = x``: a loop's tape, as s2sad writes it).

    >>> tree = gast.parse("def f(x):\\n    t_saved = [None] * 3\\n    t_saved[0] = t\\n"
    ...                   "    u_saved = [None] * 3\\n    u_saved[0] = x").body[0]
    >>> sorted(_saved_lists(tree))
    ['t']
    """
    found, spoiled = set(), set()
    for node in trees.walk(tree):
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, (gast.AugAssign, gast.For)) else []
        for target in targets:
            for leaf in trees.walk(target):
                if isinstance(leaf, gast.Name) and leaf.id.endswith("_saved") and \
                        isinstance(leaf.ctx, gast.Store):
                    whole = leaf is target and isinstance(node, gast.Assign) and \
                        _nones(node.value)
                    (found if whole else spoiled).add(leaf.id[:-len("_saved")])
            if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) and \
                    target.value.id.endswith("_saved"):
                own = target.value.id[:-len("_saved")]
                value = node.value if isinstance(node, gast.Assign) else None
                if not (isinstance(value, gast.Name) and value.id == own):
                    spoiled.add(own)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                isinstance(node.func.value, gast.Name) and \
                node.func.value.id.endswith("_saved"):  # (append, extend...: not a tape's)
            spoiled.add(node.func.value.id[:-len("_saved")])
    return found - spoiled


def _tapes(tree) -> dict[str, set]:
    """The lists used as a tape alone (``stack = []``, ``stack.append(t_3)``, ``t_3 =
    stack.pop()``, nothing else): each with the names pushed on it. What a pop gives is
    one of the values pushed.

    >>> tree = gast.parse("def f(x):\\n    s = []\\n    s.append(t)\\n    s.append(u)\\n"
    ...                   "    t = s.pop()\\n    q = []\\n    q.append(t)\\n    y = q[0]").body[0]
    >>> {name: sorted(names) for name, names in _tapes(tree).items()}
    {'s': ['t', 'u']}
    """
    pushed: dict[str, set] = {}
    for node in trees.walk(tree):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.List) \
                and not node.value.elts:
            pushed.setdefault(node.targets[0].id, set())
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                node.func.attr == "append" and isinstance(node.func.value, gast.Name) and \
                len(node.args) == 1 and isinstance(node.args[0], gast.Name):
            pushed.setdefault(node.func.value.id, set()).add(node.args[0].id)
    return {name: names for name, names in pushed.items()
            if names and _tape_uses_only(tree, name)}


def _tape_uses_only(tree, name: str) -> bool:
    """Is ``name`` given ``[]`` once and otherwise read only as ``name.append(v)`` or
    ``name.pop()``?"""
    uses = 0
    calls = 0
    for node in trees.walk(tree):
        if isinstance(node, gast.Name) and node.id == name:
            uses += 1
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                isinstance(node.func.value, gast.Name) and node.func.value.id == name:
            if not (node.func.attr == "append" and len(node.args) == 1 and
                    isinstance(node.args[0], gast.Name) or
                    node.func.attr == "pop" and not node.args) or node.keywords:
                return False
            calls += 1
    return uses == calls + 1  # (the one `name = []`)


def _popped(stmt, tapes: dict) -> str | None:
    """The tape ``stmt`` pops into a name (``t_3 = stack.pop()``), else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call) and \
            isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "pop" and \
            isinstance(stmt.value.func.value, gast.Name) and \
            stmt.value.func.value.id in tapes and not stmt.value.args:
        return stmt.value.func.value.id
    return None


def _nones(value) -> bool:
    """``[None] * n``."""
    return isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult) and \
        isinstance(value.left, gast.List) and len(value.left.elts) == 1 and \
        isinstance(value.left.elts[0], gast.Constant) and value.left.elts[0].value is None


def _restores(stmt, saved: set, pushed: set) -> bool:
    """Does ``stmt`` give a name of ``saved`` (:func:`_saved_lists`) back a value it held
    before (``t_3 = t_3_saved[i]``), or one of ``pushed`` (those and the names a tape
    saves) the None it holds before its loop (``t_3 = None``, ``t_3, t_4 = (None,
    None)``)? Such a line adds no kind of its own: the name's kind is its other lines'
    (``acc = (v,) + acc`` in a loop, differentiated again: ``(v,)`` is a tuple still, not
    a value of unknown kind).

    >>> [_restores(gast.parse(text).body[0], {"t_3"}, {"t_3", "t_4"}) for text in (
    ...     "t_3 = t_3_saved[i]", "a, t_3 = (None, None)", "t_4, t_3 = (None, None)",
    ...     "t_3 = None", "t_3 = u_saved[i]", "u = None", "t_3 = x", "t_4 = t_4_saved[i]")]
    [True, False, True, True, False, False, False, False]
    """
    if not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1:
        return False
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, gast.Tuple):
        return isinstance(value, gast.Tuple) and len(value.elts) == len(target.elts) and \
            all(isinstance(t, gast.Name) and t.id in pushed for t in target.elts) and \
            all(isinstance(v, gast.Constant) and v.value is None for v in value.elts)
    if not isinstance(target, gast.Name) or target.id not in pushed:
        return False
    if isinstance(value, gast.Constant):
        return value.value is None
    return target.id in saved and isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and \
        value.value.id == target.id + "_saved"


def _read_members(tree, source) -> None:
    """Which local names of ``tree`` hold what an argument that is an object holds
    (``source.paths``: ``member_paths``), and every such member read noted for the entry's
    tests (``member``), at any depth: ``p.inner.s``, ``l.s`` in ``for l in p.layers``."""
    if not getattr(source, "roots", None):
        return
    source.paths = member_paths(tree, source)
    for node in trees.walk(tree):
        if isinstance(node, (gast.Attribute, gast.Subscript)) and \
                isinstance(node.ctx, gast.Load):
            member(source, node)


def _join(a: Kind, b: Kind, name: str) -> Kind:
    """The kind of a name given ``a`` on one path and ``b`` on another: foreign data on
    either path (an np.matrix, a module's list of them) is foreign, or held, on the joined
    one too. (Data where neither path is an object of a user's class or None; a
    differentiated value given to it is refused there: ``refuse_foreign_operand``.)"""
    joined = _joined(a, b, name)
    data = [k for k in (a, b) if k.data or not k.foreign]  # (not an object: None, a layer)
    held = any(k.holds_foreign for k in data)
    walked = any(k.walks_foreign for k in data)
    if a.data or b.data:
        return _holding(Kind("any", foreign=True, data=len(data) == 2), held, walked)
    return _holding(joined, held, walked) if held or walked else joined


def _holding(kind: Kind, held: bool, walked: bool) -> Kind:
    """``kind``, whose items (by index, ``held``; by a loop or list(), ``walked``) hold
    data s2sad does not model or not (``Kind.held``, ``Kind.walked``, written only where
    they differ from what ``kind.foreign`` says)."""
    return replace(kind, held=None if held == kind.foreign else held,
                   walked=None if walked == held else walked)


def _joined(a: Kind, b: Kind, name: str) -> Kind:
    if a.tag == b.tag == "dict" and [k for k, _ in a.items] == [k for k, _ in b.items]:
        return Kind("dict", items=tuple((k, _join(x, y, f"{name}[{k!r}]")) for (k, x), (_, y)
                                        in zip(a.items, b.items)))
    if a.tag == b.tag and a.tag in ("list", "tuple") and len(a.items) == len(b.items) and \
            a.fields == b.fields and a.items:  # (a namedtuple built on every path)
        return Kind(a.tag, items=tuple(_join(x, y, f"{name}[{i}]") for i, (x, y)
                                       in enumerate(zip(a.items, b.items))), fields=a.fields)
    if a.tag == b.tag == "scalar":
        return Kind("scalar", "()", 0, py=a.py if a.py == b.py else
                    "number" if a.py and b.py else None)  # (None: NumPy's may be)
    if a.numeric and b.numeric:
        if a.tag == b.tag == "array" and a.ndim == b.ndim:  # the same rank on every path
            return Kind("array", name, a.ndim, ones=a.ones if a.ones == b.ones else None)
        return Kind("numeric", name)
    if a.tag == b.tag and a.tag in ("list", "tuple") and not a.fields and not b.fields:
        return Kind(a.tag)  # (ys = [a, b]; ys = ys + [c]: a list, items not known)
    return ANY


def _constant_kind(value) -> Kind:
    py = _PY.get(type(value))
    if py:
        return Kind("scalar", "()", 0, py=py)
    if isinstance(value, tuple):
        return Kind("tuple", items=tuple(_constant_kind(v) for v in value))
    return ANY


def _module_number_kind(node, source, local_names) -> Kind:
    """``np.pi``, ``math.e``: a module's Python number is that number's kind (its value
    noted: another value there builds again); anything else, ``ANY``."""
    if not isinstance(node.value, gast.Name) or node.value.id in local_names:
        return ANY
    try:
        if not inspect.ismodule(source.resolve(node.value.id)):
            return ANY
        value = static_value(node, source, local_names)
    except (KeyError, TypeError):
        return ANY
    return _constant_kind(value) if type(value) in (float, int) else ANY


def _unpacked(kind: Kind, n: int, targets) -> list[Kind]:
    if kind.tag in ("list", "tuple") and len(kind.items) == n:
        return list(kind.items)
    if kind.tag == "array" and kind.ndim is not None:
        if kind.ndim == 1:
            return [SCALAR] * n
        token = f"{kind.shape}[i]"
        return [Kind("array", token, kind.ndim - 1)] * n
    return [ANY] * n


def _is_false(node) -> bool:
    return isinstance(node, gast.Constant) and not node.value


def _sequence_tag(node, of):
    """"list" or "tuple" for a list or tuple (made here, or a name of one), else None."""
    if isinstance(node, (gast.List, gast.Tuple)):
        return "list" if isinstance(node, gast.List) else "tuple"
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):  # (a + b + c: the
        left, right = _sequence_tag(node.left, of), _sequence_tag(node.right, of)  # first +)
        return left if left is not None and left == right else None
    tag = of(node).tag
    return tag if tag in ("list", "tuple") else None


def _value_kind(value, of, source, local_names, target) -> Kind:
    if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult)):
        # [None] * n, xs + ys: a sequence whose items are not known (but an array times a
        # list, or plus one, is an array)
        tags = [_sequence_tag(side, of) for side in (value.left, value.right)]
        kinds = [of(side) for side in (value.left, value.right)]
        if isinstance(value.op, gast.Add) and tags[0] is not None and tags[0] == tags[1]:
            return Kind(tags[0])
        if isinstance(value.op, gast.Add) and any(t is not None for t in tags) and \
                any(k.tag == "any" for k in kinds):
            return ANY  # (a tuple plus a value of unknown kind: joined, or an array's sum)
        if isinstance(value.op, gast.Mult):
            for tag, other in ((tags[0], kinds[1]), (tags[1], kinds[0])):
                if tag is not None and other.tag == "scalar" and other.py == "int":
                    return Kind(tag)
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):  # x * y of Python numbers
        parts = [of(v) for v in ((value.left, value.right) if isinstance(value, gast.BinOp)
                                 else (value.operand,))]
        if all(k.tag == "scalar" and k.py in ("float", "int") for k in parts) and \
                any(k.py == "float" for k in parts) and \
                not isinstance(getattr(value, "op", None), (gast.MatMult, gast.Not)) and \
                not (isinstance(value.op, gast.Pow) and parts[1].py != "int"):
            return PY_FLOAT  # ((-8.0) ** (1 / 3) is complex)
        if all(k.tag == "scalar" and k.py in ("float", "int", "complex", "number")
               for k in parts) and any(k.py == "number" for k in parts) and \
                not isinstance(getattr(value, "op", None), (gast.MatMult, gast.Not)):
            return Kind("scalar", "()", 0, py="number")  # (z - 1, z an int or a float)
        if isinstance(value, gast.BinOp) and isinstance(
                value.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)) and \
                all(k.tag == "scalar" and k.py == "int" for k in parts):
            return parts[0]  # i + 1 of Python ints: a Python int (an index, x[i + 1])
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)) \
                and parts[0].tag == "scalar" and parts[0].py == "int":
            return parts[0]  # -1: a Python int (ys[-1] is an item of the list)
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
            value.func.attr == "_replace" and not value.args and \
            isinstance(value.func.value, gast.Name):  # p._replace(W=v) of a namedtuple p
        old = of(value.func.value)
        given = {k.arg: k.value for k in value.keywords}
        if old.fields and len(old.items) == len(old.fields) and set(given) <= set(old.fields):
            return Kind("tuple", items=tuple(
                of(given[f]) if f in given else item
                for f, item in zip(old.fields, old.items, strict=True)), fields=old.fields)
    op = classify(value, source, local_names)
    if op.kind == "copy":
        return of(value)
    if op.kind == "constant":
        return of(value) if isinstance(value, (gast.Constant, gast.Attribute)) else ANY
    if op.kind == "linear":
        leaves = [n for n in trees.walk(value) if not isinstance(n, (gast.BinOp, gast.operator))]
        return combine([of(leaf) for leaf in leaves if not isinstance(leaf, gast.expr_context)])
    if isinstance(value, gast.Dict) and op.kind != "build":  # {**p, 'w': w}
        items: dict = {}
        for key, part in zip(value.keys, value.values, strict=True):
            if key is None and of(part).tag == "dict":
                items.update(of(part).items)
            elif isinstance(key, gast.Constant):
                items[key.value] = of(part)
            else:
                return Kind("dict")  # (keys known only when it runs)
        return Kind("dict", items=tuple(items.items()))
    if op.kind == "build" and isinstance(value, gast.Dict):
        items = dict((k.value, of(v)) for k, v in zip(value.keys, value.values, strict=True))
        return Kind("dict", items=tuple(items.items()))  # (a key written twice: the last)
    if op.kind == "build" and isinstance(value, gast.Call):  # P(w, b): a namedtuple
        return Kind("tuple", items=tuple(of(a) for a in value.args), fields=op.fields)
    if op.kind == "build":
        return Kind("list" if isinstance(value, gast.List) else "tuple",
                    items=tuple(of(e) for e in value.elts))
    if op.kind == "subscript":
        return _subscript_kind(of(value.value), value.slice, of)
    if op.kind in ("call", "nondiff") and op.rule is not None:
        shape = op.rule.shape
        facts = registry.facts(op.rule.func)
        if shape != "sequence" and facts.alone and facts.fields and op.kind == "call":
            flag = _flag(op, facts.alone[0])  # logsumexp(a, return_sign=True): a tuple
            if flag is not None and not isinstance(flag, gast.Constant):
                return ANY
            if flag is not None and flag.value != facts.alone[1]:
                return Kind("tuple", items=(NUMERIC,) * len(facts.fields[1]),
                            fields=facts.fields[0] or None)
        shaped_like = facts.structure_of or None
        if shaped_like == "item" and len(op.operands) == 2:  # sens_item(g, i): g[i]
            return _subscript_kind(of(op.operands[0]), op.operands[1], of)
        if shaped_like is not None and shaped_like != "item" and \
                len(op.operands) > max(shaped_like):
            # s2sad's helpers on sensitivities (in generated code a derivative reads): a
            # list's is a list, not an array (whose `+` would add, not join)
            for i in shaped_like:
                kind = of(op.operands[i])
                if kind.container and op.rule.func is _array_grad():
                    return _listed(kind)  # (lists of NumPy numbers and arrays)
                if kind.container:
                    return Kind(kind.tag, items=kind.items, fields=kind.fields)
            if any(of(op.operands[i]).tag == "any" for i in shaped_like):
                return ANY  # (may be a list: not a number, whose `+` would add)
        if op.rule.func in _recursion():  # (a recursive call's value, or its arguments'
            given = of(op.operands[-1]) if op.operands else ANY  # sensitivities: a list it
            if op.rule.func is _recursion()[0] or not given.items:  # built is a list, not
                return ANY  # a number, whose `+` would add)
            return Kind("tuple", items=(ANY,) * len(given.items))
        if facts.shape_from == 0 and op.operands:  # np.zeros(3), np.ones((n, 2))...
            return _created_kind(op.operands[0], of, target)
        if op.rule.func is np.matmul and len(op.operands) == 2 and not op.keywords:
            return _matmul_kind(*(of(a) for a in op.operands))
        if op.rule.func is np.dot and len(op.operands) == 2 and not op.keywords:
            return _dot_kind(*(of(a) for a in op.operands))
        if op.rule.func is np.transpose and len(op.operands) == 2 and not op.keywords:
            base = of(op.operands[0])  # np.transpose(L, (0, 2, 1)): its axes permuted
            order = op.operands[1]
            if base.tag == "array" and base.ones is not None and \
                    isinstance(order, gast.Tuple) and len(order.elts) == base.ndim and \
                    all(isinstance(e, gast.Constant) and type(e.value) is int
                        for e in order.elts) and \
                    sorted(e.value for e in order.elts) == list(range(base.ndim)):
                return Kind("array", None, base.ndim, ones=tuple(
                    i for i, e in enumerate(order.elts) if e.value in base.ones))
        if op.rule.func in (np.array, np.asarray) and len(op.operands) == 1 and \
                set(op.keywords) <= {"dtype"}:
            items = of(op.operands[0])  # np.array([a, b, c]) of numbers: a vector
            if items.tag in ("list", "tuple") and items.items and \
                    all(k.tag == "scalar" for k in items.items):
                return Kind("array", target, 1)
        if op.rule.func is sum and op.operands and not op.keywords and \
                of(op.operands[0]).tag in ("list", "tuple") and of(op.operands[0]).items and \
                all(_py_float(k) for k in of(op.operands[0]).items) and \
                all(of(a).tag == "scalar" and of(a).py in ("float", "int")
                    for a in op.operands[1:]):
            return PY_FLOAT  # sum([x, y, x * y]) of Python floats
        if op.rule.func is np.ndarray.tolist:  # x.tolist(): lists, or a 0-d x's number
            return Kind("list") if of(op.operands[0]).ndim else ANY
        if op.rule.func in (list, tuple) and not op.operands and not op.keywords:
            return Kind(op.rule.func.__name__, items=())  # list(), tuple(): empty
        if op.rule.func in (list, tuple) and len(op.operands) == 1 and not op.keywords:
            base = of(op.operands[0])  # the same items, or the rows of an array
            items = base.items if base.tag in ("list", "tuple") else ()
            return Kind(op.rule.func.__name__, items=items)
        if shape == "scalar":
            return _scalar_kind(op, of)
        if shape == "elementwise":
            return combine([of(a) for a in op.operands] + [
                of(v) for k, v in op.keywords.items() if k not in registry.NOT_BROADCAST])
        if shape == "reduce":
            has_axis = len(op.operands) > 1 or op.keywords.get("axis") is not None
            keepdims = op.keywords.get("keepdims")
            if not has_axis and (keepdims is None or _is_false(keepdims)):
                return SCALAR
            base = of(op.operands[0]) if op.operands else ANY
            if keepdims is not None and not _is_false(keepdims) and base.shape is not None \
                    and base.tag != "scalar":
                return Kind("numeric", target, base.ndim, fits=base.shape,
                            ones=_reduced_ones(base, _axis_of(op)) if isinstance(
                                keepdims, gast.Constant) and keepdims.value is True else None)
            if keepdims is None or _is_false(keepdims):  # np.sum(x, axis=1): its axes but
                ones = _reduced_ones(base, _axis_of(op), kept=False)  # that one
                if ones is not None:
                    return Kind("numeric", None, ones[0], ones=ones[1])
        if shape == "sequence" and op.kind == "call":
            fields = facts.fields or None
            flag = op.keywords.get(facts.alone[0]) if facts.alone else None
            if flag is not None:  # eigh(a, eigvals_only=True): the first field alone
                if not isinstance(flag, gast.Constant):
                    return ANY
                if flag.value == facts.alone[1]:
                    base = of(op.operands[0]).ndim if op.operands else None
                    return Kind("numeric", None, None if base is None else base + fields[1][0])
            if fields is not None and op.operands:  # w, v = np.linalg.eigh(a), or r.S
                base = of(op.operands[0]).ndim
                return Kind("tuple", items=tuple(
                    Kind("numeric", None, None if base is None else base + change)
                    for change in fields[1]), fields=fields[0])
            return Kind("list")  # a list of arrays, how many unknown (np.split)
        return NUMERIC  # NumPy functions give arrays or numbers
    if op.kind == "nondiff" and isinstance(value, gast.Attribute):
        base = of(value.value)
        if value.attr == "shape" and base.ndim is not None:
            return Kind("tuple", items=(Kind("scalar", "()", 0, py="int"),) * base.ndim)
        if value.attr in ("ndim", "size"):
            return Kind("scalar", "()", 0, py="int")
    if op.kind == "nondiff" and op.rule is not None and op.rule.func is len:
        return Kind("scalar", "()", 0, py="int")
    if op.kind == "nondiff":
        return ANY
    if op.kind == "unknown" and isinstance(value, gast.Call):  # Table(), np.matrix(...):
        try:                                                 # an object of that class
            made = static_value(value.func, source, local_names)
        except KeyError:
            made = None
        if isinstance(made, type) and not modeled_type(made) and not namedtuple_class(made):
            return DATA if issubclass(made, np.ndarray) else FOREIGN
        if made_by_numpy(made) and not _converts(made):
            return DATA  # np.ma.array(...), np.asmatrix(...): a subclass whose operators
            # are its own (not MASKED.filled(0.0), an ndarray)
    return ANY


def _items_read(value, of, source, local_names):
    """``(the builtin, do its argument's items hold foreign data?)`` for ``value`` a call
    of a function that reads its argument's items (its facts: ``sequence`` or ``items``)
    on one name (``list(S)``, ``sum(E)``, ``sorted(S, reverse=
    True)``): a local's kind says it (``Kind.holds_foreign``), a module's value its items
    (``source.held_foreign``, noted). None for any other value."""
    if not isinstance(value, gast.Call) or len(value.args) != 1 or \
            not isinstance(value.args[0], (gast.Name, gast.Attribute)) or \
            any(k.arg != "reverse" for k in value.keywords):
        return None
    try:
        func = static_value(value.func, source, local_names)
    except (KeyError, TypeError):
        return None
    try:
        facts = registry.facts(func) or registry.Facts()
    except TypeError:  # (an unhashable object called)
        return None
    if not (facts.sequence or facts.items) or value.keywords and func is not sorted:
        return None
    node = value.args[0]
    if isinstance(node, gast.Name) and node.id in local_names:
        kind = of(node)  # (an object's items: as before, not known here)
        return func, kind.walks_foreign and (kind.data or not kind.foreign)
    desc = member(source, node) if isinstance(node, gast.Attribute) else None
    if desc is not None:
        return None  # (an argument's attribute: as before)
    found = static_noted(node, source, local_names)
    return None if found is MISSING else (func, held_foreign(found, walked=True))


def _display_kind(value, kind: Kind, source, local_names) -> Kind:
    """``kind`` of ``value``, a list, tuple or dict display (or a namedtuple built), its
    items that are free names given what their values say (``[MATRIX]``, ``(S, LM)``:
    ``_free_kind``); held where one is foreign or holds foreign data (an item read by a
    computed index may be that one)."""
    if isinstance(value, (gast.List, gast.Tuple)):
        parts = value.elts
    elif isinstance(value, gast.Dict):
        parts = value.values
    elif isinstance(value, gast.Call) and kind.fields:
        parts = value.args
    else:
        return kind
    if kind.foreign or not kind.container or len(kind.items) != len(parts):
        return kind
    free = [_free_kind(part, source, local_names) for part in parts]
    if not any(free):
        return kind
    pairs = kind.items if kind.tag == "dict" else enumerate(kind.items)
    items = [(key, found or item) for (key, item), found in zip(pairs, free)]
    held = any(item.foreign or item.holds_foreign for _, item in items)
    return replace(kind, items=tuple(items) if kind.tag == "dict" else
                   tuple(item for _, item in items), held=True if held else kind.held)


def _free_kind(node, source, local_names) -> Kind | None:
    """The kind a free name's (or dotted name's) value gives where it is foreign or holds
    foreign data (``DATA`` for an np.matrix, ``FOREIGN`` for an object of a user's class,
    a kind holding foreign data for a list of np.matrix); None where it says nothing."""
    if not isinstance(node, (gast.Name, gast.Attribute)) or any(
            isinstance(n, gast.Name) and n.id in local_names for n in trees.walk(node)) or \
            isinstance(node, gast.Attribute) and member(source, node) is not None:
        return None
    found = static_noted(node, source, local_names)
    if found is MISSING or callable(found) and not isinstance(found, np.ndarray):
        return None
    if unmodeled_data(found):
        return _holding(DATA, held_foreign(found), held_foreign(found, walked=True))
    if _held_object(source, node, local_names):
        return FOREIGN
    held, walked = held_foreign(found), held_foreign(found, walked=True)
    return _holding(ANY, held, walked) if held or walked else None


def _refuse_iterator(stmt, value, source, local_names) -> None:
    """``E = G``, ``G`` a module's iterator (a generator), or ``E = self.gen``, an
    argument's: refused at the line (``source.iterator``), as a loop over ``G`` is."""
    desc = member(source, value) if isinstance(value, gast.Attribute) else None
    if type(desc) is tuple and desc[0] == "data":
        found = iter(()) if issubclass(desc[1], abc.Iterator) else None
    elif isinstance(value, (gast.Name, gast.Attribute)) and not any(
            isinstance(n, gast.Name) and n.id in local_names for n in trees.walk(value)):
        try:
            found = static_value(value, source, local_names)
        except (KeyError, TypeError):
            return
    else:
        return
    if iterator(found):
        message, advice = iterator_refusal(
            value.id if isinstance(value, gast.Name) else value.attr)
        raise source.error(DifferentiationError, message, stmt, advice)


def _with_items(kind: Kind, items) -> Kind:
    """``kind``, its items holding foreign data or not (``items[1]``; ``Kind.held``)."""
    return kind if kind.foreign or not items[1] else _holding(kind, True, True)


def _data(value, source, local_names) -> Kind:
    """DATA, for ``value`` a foreign value; where it is a module's (``E = S``), its items'
    facts read from it (a set of numbers: its items are numbers, ``Kind.held``)."""
    if isinstance(value, (gast.Name, gast.Attribute)) and not any(
            isinstance(n, gast.Name) and n.id in local_names for n in trees.walk(value)) \
            and member(source, value) is None:
        found = static_noted(value, source, local_names)
        if found is not MISSING:
            return _holding(DATA, held_foreign(found), held_foreign(found, walked=True))
    return DATA


def _free_holds_foreign(value, source, local_names) -> tuple[bool, bool]:
    """Does ``value``, a module's (or closure's) list, tuple or dict, hold foreign data
    (``E = LM``, ``LM = [np.matrix(...)]``): by index, and by a loop (a dict's keys)?
    Noted (``source.note_type``)."""
    if not isinstance(value, (gast.Name, gast.Attribute)) or any(
            isinstance(n, gast.Name) and n.id in local_names for n in trees.walk(value)) or \
            isinstance(value, gast.Attribute) and member(source, value) is not None:
        return False, False
    found = static_noted(value, source, local_names)
    if found is MISSING:
        return False, False
    return held_foreign(found), held_foreign(found, walked=True)


def _carries_foreign(value, of, source, local_names) -> bool:
    """May ``value`` be an object of an array subclass s2sad does not model, made of one
    (see ``resolve.foreign_argument``): a function given one (``np.multiply(M, 2.0)`` is
    an ``np.matrix``; not ``np.asarray(M)``), its method's result (``M.sum(0)``), an
    operator on one, its item, or its attribute (``M.T``; not its ``shape`` or ``dtype``)?"""
    def foreign(node, items: bool = False) -> bool:
        if isinstance(node, gast.Name) and (node.id in local_names or of(node).data):
            kind = of(node)  # (an argument: np.matrix, a masked array...; an item of a
            if items:        # module's set, a number; of a module's list of np.matrix, one)
                return kind.holds_foreign and (kind.data or not kind.foreign)
            return kind.data
        if not isinstance(node, (gast.Name, gast.Attribute)):
            return False
        desc = member(source, node) if isinstance(node, gast.Attribute) else None
        if type(desc) is tuple and desc[0] in ("list", "tuple", "dict") and len(desc) == 2:
            held = [d for _, d in desc[1]] if desc[0] == "dict" else desc[1]
            return any(type(d) is tuple and d[0] == "data" for d in held)  # (p.ms[0])
        found = static_noted(node, source, local_names)
        if found is MISSING:
            return False
        if items:  # (MATRICES[0], a global's item; a deque's item is a number)
            return held_foreign(found)
        return unmodeled_data(found)

    if isinstance(value, gast.Call):
        func = value.func
        if isinstance(func, gast.Attribute) and foreign(func.value):
            return not converted(func.attr)
        return foreign_argument(value, source, local_names, _Kinds(of)) is not None
    if isinstance(value, gast.BinOp):
        return foreign(value.left) or foreign(value.right)
    if isinstance(value, gast.UnaryOp):
        return foreign(value.operand)
    if isinstance(value, gast.Subscript):  # (a deque's item is a number; a matrix's row,
        return foreign(value.value, items=True)  # a matrix)
    if isinstance(value, gast.Attribute):
        desc = member(source, value)  # (p.M, an argument's member: an np.matrix; p.ms
        if type(desc) is tuple and desc[0] == "data" or foreign(value):  # = [M]: a list
            return True  # of them, its items' class followed)
        return hasattr(np.ndarray, value.attr) and not converted(value.attr) and \
            foreign(value.value)
    return isinstance(value, gast.Name) and value.id not in local_names and foreign(value)


def _held_object(source, value, local_names) -> bool:
    """Is ``value`` an argument's attribute that is an object of a user's class
    (``p.layer``: see ``member``), or a global (a closure value...) that is one
    (``o = ACC``, or a helper's parameter given it)?"""
    desc = member(source, value) if isinstance(value, gast.Attribute) else None
    if type(desc) is tuple and desc[0] == "object":
        return True
    if not isinstance(value, (gast.Name, gast.Attribute)) or \
            any(isinstance(n, gast.Name) and n.id in local_names for n in trees.walk(value)):
        return False
    try:
        found = static_value(value, source, local_names)
    except (KeyError, TypeError):
        return False
    return type(describe(found)) is tuple and describe(found)[0] == "object"


def _converts(func) -> bool:
    """Do ``func``'s facts say it gives an ndarray or a Python value, whatever array
    subclass it is given (``np.ma.filled``)?"""
    try:
        return (registry.facts(func) or registry.Facts()).converts
    except TypeError:  # (an unhashable attribute)
        return False


def converted(attr: str) -> bool:
    """Does the attribute ``attr`` of an array subclass s2sad does not model give an
    ndarray, a number or a tuple (``M.A``, ``M.shape``, ``M.tolist()``,
    ``MASKED.filled(0.0)``), as its facts say? It is read by name, on each of NumPy's
    array classes: where it is read, the value's class is not known.

    >>> converted("A"), converted("filled"), converted("shape"), converted("T")
    (True, True, True, False)
    """
    return any(_converts(getattr(cls, attr, None))
               for cls in (np.ndarray, np.matrix, np.ma.MaskedArray))


class _Kinds:
    """``kinds.get(name)`` for ``resolve.foreign_argument``, read from ``of``."""

    def __init__(self, of):
        self.of = of

    def get(self, name, default=None):
        return self.of(gast.Name(name, gast.Load(), None, None))


def made_by_numpy(func) -> bool:
    """Is ``func`` a NumPy function without a rule from its packages of array subclasses
    (``numpy.ma``, ``numpy.matrixlib``, ``numpy.char``, ``numpy.rec``), whose results have
    operators of their own (``np.ma.array``, ``np.asmatrix``)?

    >>> made_by_numpy(np.asmatrix), made_by_numpy(np.ma.array), made_by_numpy(np.unique)
    (True, True, False)
    """
    module = getattr(func, "__module__", None) or ""
    if not callable(func) or isinstance(func, type) or not numpy_module(module) or \
            registry.lookup(func) is not None:
        return False
    code = getattr(func, "__code__", None)  # (np.asmatrix names numpy as its module)
    where = f"{module}.{code.co_filename if code else ''}".replace("\\", "/")
    return any(part in where for part in _SUBCLASS_PACKAGES)


_SUBCLASS_PACKAGES = ("numpy.ma.", "/ma/", "/matrixlib/", "numpy.char.", "defchararray",
                      "numpy.rec.", "/records.py")


PY_FLOAT = Kind("scalar", "()", 0, py="float")


def _py_float(kind: Kind) -> bool:
    return kind.tag == "scalar" and kind.py == "float"


def _flag(op, name: str):
    """The argument ``name`` of a call ``op`` (by keyword, or by its position in the
    function's signature), or None where the call leaves it out."""
    if name in op.keywords:
        return op.keywords[name]
    try:
        position = list(registry.signature(op.rule.func).parameters).index(name)
    except (TypeError, ValueError):
        return None
    return op.operands[position] if position < len(op.operands) else None


def _scalar_kind(op, of) -> Kind:
    """The kind of a call of a function on numbers (``shape="scalar"``): a Python int
    from ``len``, a Python float from ``math`` and ``float``, and from ``abs``, ``max``,
    ``min`` and ``pow`` of Python floats."""
    func = op.rule.func
    if func is len or func is int:  # (int(v): Python's, whatever v is: 3 // n may raise)
        return Kind("scalar", "()", 0, py="int")
    if op.kind == "call" and (func is float or getattr(func, "__module__", None) == "math"):
        return PY_FLOAT  # (floor, ceil and trunc, which give ints, have no derivative)
    parts = [of(a) for a in op.operands]
    if func in (abs, max, min) and parts and all(_py_float(k) for k in parts):
        return PY_FLOAT  # (max(1, 2.0) may be the int)
    if func is pow and len(parts) == 2 and _py_float(parts[0]) and parts[1].tag == "scalar" \
            and parts[1].py == "int":
        return PY_FLOAT  # (pow(-8.0, 1 / 3) is complex)
    return SCALAR


def _array_grad():
    from ..runtime import array_grad  # (the runtime imports this module)
    return array_grad


def _recursion() -> tuple:
    """The recursive call's value, then the helpers giving its arguments' sensitivities."""
    from ..runtime import recursion as r
    return (r.recursion_value, r.recursive_pullback, r.recursive_pullback_in_args,
            r.recursive_pullback_along_args)


def _listed(kind: Kind) -> Kind:
    """The kind of ``array_grad(g, obj)`` for ``obj`` of ``kind``: its lists and tuples as
    lists, its numbers as NumPy's (items of an array), its arrays as they are."""
    if kind.tag in ("list", "tuple"):
        return Kind("list", items=tuple(_listed(item) for item in kind.items))
    return SCALAR if kind.tag == "scalar" else kind


def _created_kind(shape, of, target) -> Kind:
    """The kind of ``np.zeros(shape)``...: an array whose rank is the number of lengths in
    ``shape`` (an integer, or a tuple display of integers), if that is known."""
    lengths = shape.elts if isinstance(shape, gast.Tuple) else [shape]
    if lengths and all(isinstance(n, gast.Constant) and type(n.value) is int or
           isinstance(n, gast.Name) and of(n).tag == "scalar" and of(n).py == "int"
           for n in lengths):
        return Kind("array", target, len(lengths))
    return NUMERIC


def _matmul_kind(x: Kind, y: Kind) -> Kind:
    """``x @ y``: its rank, when both ranks are known (its shape token is its own name)."""
    if x.tag != "array" or y.tag != "array" or x.ndim is None or y.ndim is None:
        if x.numeric and y.numeric and x.ones is not None and y.ones is not None and \
                x.ndim and y.ndim and not x.ndim == y.ndim == 1:  # (numeric, rank known:
            return replace(_matmul_kind(replace(x, tag="array"), replace(y, tag="array")),
                           tag="numeric")  # xc @ L with xc = x[None] - m[:, None])
        return NUMERIC
    if x.ndim == y.ndim == 1:
        return SCALAR
    ndim = max(x.ndim, y.ndim) - (1 if min(x.ndim, y.ndim) == 1 else 0)
    ones = None
    if x.ones is not None and y.ones is not None:  # the stacked axes broadcast, then the
        stacked = broadcast_ones([  # rows of x (not a vector's), the columns of y (same)
            Kind("array", None, max(k.ndim - 2, 0), ones=tuple(a for a in k.ones if a < k.ndim - 2))
            for k in (x, y)])
        last = ((x.ndim - 2) in x.ones,) * (x.ndim > 1) + ((y.ndim - 1) in y.ones,) * (y.ndim > 1)
        ones = stacked + tuple(ndim - len(last) + i for i, one in enumerate(last) if one)
    return Kind("array", None, ndim, ones=ones)


def _axis_of(op):
    """The node a reduction's ``axis`` parameter is given (by keyword, or at its place in
    the function's signature: ``np.linalg.norm(x, 2)`` gives ``ord``, not ``axis``), the
    constant None where it is not given, or False where the signature is not read."""
    if "axis" in op.keywords:
        return op.keywords["axis"]
    try:
        params = list(inspect.signature(op.rule.func).parameters)
    except (TypeError, ValueError):
        return False
    if "axis" not in params:
        return False
    at = params.index("axis")
    return op.operands[at] if at < len(op.operands) else gast.Constant(None, None)


def _reduced_ones(base: Kind, axis, kept: bool = True):
    """The axes of length 1 of a reduction of ``base`` over ``axis`` with keepdims: its
    own and those reduced (``axis`` an int or a tuple of ints written out); without
    (``kept`` False), ``(rank, axes of length 1)``, its own renumbered."""
    if base.ones is None or base.ndim is None or axis is False:
        return None
    if isinstance(axis, gast.Constant) and axis.value is None:  # (all axes: with keepdims,
        if not kept:                                              # each of length 1)
            return None
        return tuple(range(base.ndim))
    if isinstance(axis, gast.Constant) and type(axis.value) is int:
        axes = (axis.value,)
    elif isinstance(axis, gast.Tuple) and all(isinstance(e, gast.Constant) and
                                              type(e.value) is int for e in axis.elts):
        axes = tuple(e.value for e in axis.elts)
    elif isinstance(axis, gast.UnaryOp) and isinstance(axis.op, gast.USub) and \
            isinstance(axis.operand, gast.Constant) and type(axis.operand.value) is int:
        axes = (-axis.operand.value,)
    else:
        return None
    if not all(-base.ndim <= a < base.ndim for a in axes):
        return None
    axes = {a % base.ndim for a in axes}
    if not kept:
        left = [a for a in range(base.ndim) if a not in axes]
        return len(left), tuple(i for i, a in enumerate(left) if a in base.ones)
    return tuple(sorted(set(base.ones) | axes))


def _dot_kind(x: Kind, y: Kind) -> Kind:
    """``np.dot(x, y)`` of two vectors: a scalar; of matrices, the rank ``@`` gives."""
    if x.tag == "array" and y.tag == "array" and x.ndim is not None and y.ndim is not None \
            and 1 <= min(x.ndim, y.ndim) and max(x.ndim, y.ndim) <= 2:
        return _matmul_kind(x, y)  # (where np.dot is x @ y)
    return NUMERIC


def _subscript_kind(base: Kind, index, of) -> Kind:
    """``x[i]``: an item of a list or tuple, a scalar of a vector indexed by an integer..."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    if base.foreign or base.held:  # (a row of an np.matrix is an np.matrix, an item of a
        if not base.holds_foreign:  # module's list of them one; a module's set's, a number)
            return ANY
        return FOREIGN if base.foreign and not base.data else DATA

    def integer(part) -> bool:
        if isinstance(part, gast.Constant):
            return isinstance(part.value, int) and not isinstance(part.value, bool)
        return isinstance(part, gast.Name) and of(part).tag == "scalar" and of(part).py == "int"

    if base.tag in ("list", "tuple") and len(parts) == 1 and isinstance(parts[0], gast.Slice):
        return Kind(base.tag)  # (xs[1:] of a list: a list, its items not followed here)
    if base.tag in ("list", "tuple") and len(parts) == 1 and integer(parts[0]):
        part = parts[0]
        if isinstance(part, gast.Constant) and -len(base.items) <= part.value < len(base.items):
            return base.items[part.value]
        if base.items and all(item == base.items[0] for item in base.items):
            return base.items[0]  # any item of a uniform list
        if base.items and base.items[0].fields and \
                all(item.fields == base.items[0].fields for item in base.items):
            return Kind("tuple", fields=base.items[0].fields)  # namedtuples of one kind
        return ANY
    if base.tag == "dict" and len(parts) == 1:  # p["w"]: the item of that key
        items = dict(base.items)
        if isinstance(parts[0], gast.Constant):
            return items.get(parts[0].value, ANY)
        if items and len(set(items.values())) == 1:
            return next(iter(items.values()))  # any item of a dict whose items are alike
        return ANY
    if base.tag == "array" and base.ndim is not None and all(integer(p) for p in parts):
        if len(parts) == base.ndim:
            return SCALAR
        if len(parts) < base.ndim:  # (the axes left keep their lengths: those of 1 too)
            return Kind("array", f"{base.shape}[{len(parts)}]", base.ndim - len(parts),
                        ones=None if base.ones is None else
                        tuple(a - len(parts) for a in base.ones if a >= len(parts)))
    if base.tag == "array" and base.ones is not None and all(
            isinstance(p, gast.Constant) and p.value is None or isinstance(p, gast.Slice) and
            p.lower is None and p.upper is None and p.step is None for p in parts) and \
            sum(isinstance(p, gast.Slice) for p in parts) <= base.ndim:
        # x[:, None], x[None, :, :]: all of x, with axes of length 1 put in
        return Kind("numeric", None, len(parts) + base.ndim -
                    sum(isinstance(p, gast.Slice) for p in parts), ones=_new_axes(parts, base))
    return NUMERIC if base.numeric else ANY


def _new_axes(parts, base: Kind) -> tuple:
    """The axes of length 1 of ``x[parts]``, ``parts`` None (a new axis) and ``:``; the
    axes ``parts`` leaves out at the end are taken whole."""
    ones, axis, out = [], 0, 0
    slices = sum(isinstance(p, gast.Slice) for p in parts)
    for p in list(parts) + ["rest"] * (base.ndim - slices):
        if isinstance(p, gast.Constant):
            ones.append(out)
        else:
            if axis in base.ones:
                ones.append(out)
            axis += 1
        out += 1
    return tuple(ones)
