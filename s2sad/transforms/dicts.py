"""A dict's keys, values and items, written as what they are where the value is a dict.

Normalization walks every loop by index (``for k in p`` reads ``k = p[i_1]``, which for
a list is its item), and ``p.values()`` or ``p.items()`` is a method call that has no
derivative rule. Where the kinds say ``p`` is a dict, they also say its keys, in order
(an argument's are part of the kinds the variant is compiled for, and its guard checks
them at each call; a dict display's are written in the code). So this pass, run on the
normalized function once the kinds are known, writes:

- ``k = p[i_1]`` of a loop over the dict: ``k = keys_p[i_1]``, with
  ``keys_p = ['w', 'b']`` before the loop;
- ``t = p.keys()``, ``t = list(p)``: ``t = ['w', 'b']``;
- ``t = p.values()``: each value read by its key, then ``t = [t_1, t_2]``;
- ``t = p.items()``: each value read by its key, then ``t = [('w', t_1), ('b', t_2)]``
  (one pair per statement);
- ``t = p.get('w')``: ``t = p['w']``; for a key the dict does not have, the default;
- ``q = {**p, 'w': w}``: each of ``p``'s values read by its key, then
  ``q = {'w': w, 'b': t_1}`` (a key given again keeps its place, as in Python); ``p.copy()``
  (which Desugar made ``np.copy(p)``) the same as ``{**p}``, and ``xs.copy()`` of a list
  ``list(xs)``;
- ``t = p.W`` of a namedtuple: ``t = p[0]``, its item by position.

The rest of the compiler then differentiates reads by key (``s_p['w'] += ...``),
lists and tuples as it does everywhere.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.names import Namer
>>> from s2sad.transforms.kinds import Kind, SCALAR
>>> fn = gast.parse('''def f(p):
...     t_1 = p.values()
...     t_2 = p.get('b', 0.0)
...     for i_1 in range(len(p)):
...         k = p[i_1]
...     return t_2''').body[0]
>>> fn.body[2].body[0].value.walked = True  # (as normalization marks a loop's read)
>>> kinds = {"p": Kind("dict", items=(("w", SCALAR), ("b", SCALAR)))}
>>> rewrite = DictViews(kinds, Namer.for_tree(fn))
>>> print(unparse(rewrite.visit(fn)))
def f(p):
    t_3 = p['w']
    t_4 = p['b']
    t_1 = [t_3, t_4]
    t_2 = p['b']
    keys_p = ['w', 'b']
    for i_1 in range(len(p)):
        k = keys_p[i_1]
    return t_2
>>> rewrite.changed
True
"""

from __future__ import annotations

import gast

from .. import trees
from ..trees import located
from ..descriptors import namedtuple_class
from .kinds import ANY


_VIEWS = ("keys", "values", "items", "get")


def _read_only(tree, methods=(), nodes=None) -> set:
    """The names ``tree`` reads only as a whole list is read: its items (``t[i]``), its
    length, ``sorted(t)``, a loop over it (or a method of ``methods``, ``d.items()``); not
    changed in place or passed where it could be (``t.append(v)``, ``t[0] = v``, ``g(t)``,
    ``u = t``). ``nodes``: ``trees.walk(tree)``, where the caller has it.

    >>> sorted(_read_only(gast.parse("t = [a]; u = [b]; u.append(c); g(sorted(t), u[0])")))
    ['t']
    """
    read, seen = set(), set()
    nodes = trees.walk(tree) if nodes is None else nodes
    for item in nodes:
        if isinstance(item, gast.Call) and isinstance(item.func, gast.Name) and \
                item.func.id in ("sorted", "len") and len(item.args) == 1:
            read.add(id(item.args[0]))
        elif isinstance(item, gast.Call) and isinstance(item.func, gast.Attribute) and \
                item.func.attr in methods:
            read.add(id(item.func.value))
        elif isinstance(item, gast.Subscript) and isinstance(item.ctx, gast.Load):
            read.add(id(item.value))
        elif isinstance(item, (gast.For, gast.comprehension)):
            read.add(id(item.iter))
    changed = set()
    for item in nodes:
        if isinstance(item, gast.Name) and isinstance(item.ctx, gast.Load):
            seen.add(item.id)
            if id(item) not in read:
                changed.add(item.id)
    return seen - changed


class DictViews(trees.Transformer):
    """``kinds``: of the normalized function's names; ``namer``: for new temporaries."""

    def __init__(self, kinds: dict, namer, builtin=None, resolve=None):
        self.kinds = kinds
        self.resolve = resolve  # (a free name's value: a namedtuple's class, _replace)
        self.namer = namer
        self.changed = False
        self.builtin = builtin or (lambda name: False)  # (a free name: Python's builtin?)
        self.defs: dict = {}  # a name given a value once -> that value
        self.stores: dict = {}  # a name -> how many times the function stores it
        self.read_only: set = set()  # lists only read (_read_only)
        self.grown: set = set()  # dicts given a key their kinds do not know (_grows)
        self.apart: set = set()  # names only read, by key or view (no other name holds
        # the dict one of them holds, made here or an argument: it grows with no other)
        self.fields = any(kind.fields for kind in kinds.values())  # (a namedtuple's read)
        self.replaced: set = set()  # the ids of the p._replace(...) calls written out

    def keys(self, node) -> list | None:
        """The keys of the dict ``node`` names, in order; None where it is no known dict."""
        if not isinstance(node, gast.Name):
            return None
        kind = self.kinds.get(node.id, ANY)
        if kind.tag != "dict" or node.id in self.grown or self.grown and not (
                node.id in self.apart and (node.id not in self.stores or
                                           isinstance(self.defs.get(node.id), gast.Dict))):
            return None  # (a dict given a key its kinds do not know: d[k] = v; d.values();
        return [key for key, _ in kind.items]  # or one that may be it)

    def visit_FunctionDef(self, node):
        stores: dict = {}
        nodes = trees.start_walk(node)  # (one walk for every fact below: none changes it)
        for item in nodes:
            if isinstance(item, gast.Name) and not isinstance(item.ctx, (gast.Load,
                                                                         gast.Param)):
                stores[item.id] = stores.get(item.id, 0) + 1
        self.stores = stores  # (a name never stored: a parameter, or a module's name
        # whose loop normalization walked as its value at the build says: _keyed_global)
        self.defs = {s.targets[0].id: s.value for s in nodes
                     if isinstance(s, gast.Assign) and len(s.targets) == 1 and
                     isinstance(s.targets[0], gast.Name) and stores[s.targets[0].id] == 1}
        self.given = {}  # a name -> the values `name = value` gives it
        for s in nodes:
            if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                    isinstance(s.targets[0], gast.Name):
                self.given.setdefault(s.targets[0].id, []).append(s.value)
        self.read_only = _read_only(node, nodes=nodes)
        self.grown = {item.value.id for item in nodes if self._grows(item)}
        self.apart = _read_only(node, _VIEWS, nodes)
        return self.generic_visit(node)

    def _grows(self, node) -> bool:
        """Does ``node`` store into a dict (or what may be one) by a key its kinds do not
        list (``d['c'] = v``, ``d[i] = v``)? Its keys are then not those the kinds say,
        for it or for a name that holds the same dict."""
        if not (isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store) and
                isinstance(node.value, gast.Name)):
            return False
        kind = self.kinds.get(node.value.id, ANY)
        if kind.tag in ("list", "tuple") or kind.numeric:
            return False
        known = [key for key, _ in kind.items] if kind.tag == "dict" else []
        given = self.given.get(node.slice.id, []) if isinstance(node.slice, gast.Name) else []
        if kind.tag == "dict" and given and len(given) == self.stores.get(node.slice.id) and \
                self.stores.get(node.value.id, 0) <= 1 and \
                all(self._walk_of(v, known) in (node.value.id, ...) for v in given):
            return False  # (for k in d: d[k] = v: a key it has, its keys as they were; d
            # given one dict only, so the keys walked are its own)
        return not (isinstance(node.slice, gast.Constant) and node.slice.value in known)

    def _walk_of(self, value, known: list) -> str | None:
        """The dict whose key ``value`` reads: ``d[i_1]`` as normalization walks ``for k in
        d``, or an item of ``t = d.keys()``, ``list(d)``, ``sorted(d)``... (its keys, in
        some order), or of keys this pass wrote for it; ``...`` for an item of a list of
        keys the dict has (``known``); else None."""
        if not (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)):
            return None
        if value.__dict__.get("keys_of"):
            return value.keys_of
        name, seen = value.value.id, 0
        if self.kinds.get(name, ANY).tag == "dict":  # (d[i_1]: a key where a loop walks d;
            return name if value.__dict__.get("walked") else None  # else d's value)
        while seen < 8:
            seen += 1
            made = self.defs.get(name) if self.stores.get(name) == 1 else None
            if isinstance(made, gast.List) and all(
                    isinstance(e, gast.Constant) and e.value in known for e in made.elts):
                return ...  # (keys_d = ['w', 'b'], written for any dict with them)
            if isinstance(made, gast.Call) and len(made.args) == 1 and \
                    isinstance(made.args[0], gast.Name) and isinstance(made.func, gast.Name) \
                    and made.func.id in ("list", "tuple", "sorted") and \
                    self.builtin(made.func.id):
                name = made.args[0].id  # (list(d), sorted(d): its keys)
            elif isinstance(made, gast.Call) and not made.args and not made.keywords and \
                    isinstance(made.func, gast.Attribute) and made.func.attr == "keys" and \
                    isinstance(made.func.value, gast.Name):
                name = made.func.value.id  # (d.keys())
            else:
                return name if self.kinds.get(name, ANY).tag == "dict" else None
        return None

    def _sorted(self, node):
        """``t = sorted(d.items())``, ``sorted(d)``, ``sorted(d.keys())`` of a dict whose
        keys are known (``reverse=`` a constant): the list in its order, ``[('a', t_1),
        ...]``; ``node`` itself where the order is not known here."""
        value = node.value
        if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and
                value.func.id == "sorted" and self.builtin("sorted") and
                len(value.args) == 1 and isinstance(value.args[0], gast.Name) and
                all(k.arg == "reverse" and isinstance(k.value, gast.Constant)
                    for k in value.keywords)):
            return None
        reverse = bool(value.keywords[0].value.value) if value.keywords else False
        keys = self.keys(value.args[0])
        if keys is not None:
            parts = [(k, gast.Constant(k, None)) for k in keys]
        else:
            shown = self.defs.get(value.args[0].id)
            if not isinstance(shown, (gast.List, gast.Tuple)) or \
                    isinstance(shown, gast.List) and value.args[0].id not in self.read_only:
                return None  # (a list its display does not show: t = []; t.append(v))
            parts = []
            for elt in shown.elts:
                if isinstance(elt, gast.Constant):
                    parts.append((elt.value, gast.Constant(elt.value, None)))
                    continue
                pair = self.defs.get(elt.id) if isinstance(elt, gast.Name) else None
                if not (isinstance(pair, gast.Tuple) and len(pair.elts) == 2 and
                        isinstance(pair.elts[0], gast.Constant)):
                    return None  # (a dict's items: pairs of a key and a value)
                parts.append((pair.elts[0].value, self.load(elt.id)))
            if len({k for k, _ in parts}) != len(parts) or \
                    not all(isinstance(p, gast.Constant) for _, p in parts) and \
                    not all(isinstance(p, gast.Name) for _, p in parts):
                return None  # (equal keys: sorted compares the values too)
        try:
            order = sorted(range(len(parts)), key=lambda i: parts[i][0], reverse=reverse)
        except TypeError:
            return None  # (keys Python cannot compare: it raises, the call stays)
        node.value = gast.List([parts[i][1] for i in order], gast.Load())
        self.changed = True
        return node

    def visit_For(self, node):
        self.generic_visit(node)
        before = []
        for stmt in node.body:
            value = getattr(stmt, "value", None)
            if not (isinstance(value, gast.Subscript) and value.__dict__.get("walked")):
                continue
            keys = self.keys(value.value)
            if keys is None or not keys:
                if isinstance(value.value, gast.Name) and self._unknown(value.value.id):
                    walked = self.namer.claim(f"walk_{value.value.id}")  # (its keys, if
                    before.append(located(gast.Assign(  # a dict or set: list(E), as Python)
                        [gast.Name(walked, gast.Store(), None, None)],
                        gast.Call(self.load("list"), [self.load(value.value.id)], []),
                        None), node))
                    value.value = self.load(walked)
                    value.walked = False  # (walked once: not again at the next round)
                    self.changed = True
                continue
            value.keys_of = value.value.id  # (d[k] = v then keeps d's keys: _grows)
            name = self.namer.claim(f"keys_{value.value.id}")
            before.append(located(gast.Assign(
                [gast.Name(name, gast.Store(), None, None)],
                gast.List([gast.Constant(k, None) for k in keys], gast.Load()), None), node))
            value.value = gast.Name(name, gast.Load(), None, None)
            self.changed = True
        return before + [node] if before else node

    def _unknown(self, name) -> bool:
        """Is ``name`` a value that may be a dict or a set, walked by a loop? Indexed, it
        would read a value by key, or fail: only a list, tuple or array is walked by index.
        A dict whose keys the kinds do not know is one too, and data of a class s2sad does
        not model (``E = S``, a module's set: ``list(E)`` walks it as Python does)."""
        kind = self.kinds.get(name, ANY)
        if name not in self.stores:
            return False
        return kind.tag == "dict" or kind.tag == "any" and (not kind.foreign or kind.data)

    def _field(self, node):
        """``p[0]`` for ``p.W``, a namedtuple's field; else None."""
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                isinstance(node.ctx, gast.Load):
            fields = self.kinds.get(node.value.id, ANY).fields
            if node.attr in fields:
                return located(gast.Subscript(node.value, gast.Constant(
                    fields.index(node.attr), None), gast.Load()), node)
        return None

    def _fields_read(self, stmt) -> list:
        """Read a namedtuple's fields by position: ``t = p.W`` is ``t = p[0]``; a field in a
        larger expression (``p.W ** 2``) is read into a temporary first, the operands of a
        normalized statement being names. Returns the statements to put before ``stmt``."""
        before = []
        item = self._field(getattr(stmt, "value", None))
        if item is not None and isinstance(stmt, gast.Assign) and \
                isinstance(stmt.targets[0], gast.Name):  # (unpacked, it is read into a name)
            stmt.value = item
            self.changed = True
            return before
        for node in trees.walk(stmt):
            for field in trees.node_fields(type(node)):
                child = getattr(node, field, None)
                parts = child if isinstance(child, list) else [child]
                for i, part in enumerate(parts):
                    item = self._field(part)
                    if item is None:
                        continue
                    temp = self.namer.temp()
                    before.append(self.assign(temp, item, stmt))
                    if isinstance(child, list):
                        child[i] = self.load(temp)
                    else:
                        setattr(node, field, self.load(temp))
                    self.changed = True
        return before

    def generic_visit(self, node):
        for field in ("body", "orelse") if self.fields else ():  # (each statement of a
            block = getattr(node, field, None)  # block, read for a namedtuple's fields)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                new = []
                for stmt in block:
                    if not isinstance(stmt, (gast.For, gast.If, gast.While)):
                        new += self._fields_read(stmt)
                    new.append(stmt)
                block[:] = new
        return super().generic_visit(node)

    def visit_Assign(self, node):
        if self._sorted(node) is not None:
            return node
        value = node.value
        copied = value.args[0] if isinstance(value, gast.Call) and \
            value.__dict__.get("copied") and value.args else None
        if isinstance(copied, gast.Name) and self.kinds.get(copied.id, ANY).tag == "dict":
            value = node.value = gast.Dict([None], [copied])  # d.copy(): {**d}
        elif isinstance(copied, gast.Name) and self.kinds.get(copied.id, ANY).tag == "list":
            node.value = gast.Call(self.load("list"), [copied], [])  # xs.copy(): list(xs)
            self.changed = True
            return node
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.BitOr) and \
                self.keys(value.left) is not None and self.keys(value.right) is not None:
            value = node.value = gast.Dict([None, None], [value.left, value.right])  # d | e
        if isinstance(value, gast.Dict) and any(k is None for k in value.keys):
            return self.unpacked(node)
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
                value.func.id in ("list", "tuple") and self.builtin(value.func.id) and \
                len(value.args) == 1 and not value.keywords and \
                (keys := self.keys(value.args[0])):  # (none: keys known when it runs)
            made = gast.List if value.func.id == "list" else gast.Tuple  # list(d): its keys
            node.value = located(made([gast.Constant(k, None) for k in keys], gast.Load()),
                                 node)
            self.changed = True
            return node
        if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)):
            return node
        if value.func.attr == "_replace":
            return self._replaced(node)
        method, args = value.func.attr, value.args
        keys = self.keys(value.func.value)
        if keys is None or value.keywords or (method, len(args)) not in (
                ("keys", 0), ("values", 0), ("items", 0), ("get", 1), ("get", 2)):
            return node
        dict_name = value.func.value.id
        out = []

        def read(key):
            temp = self.namer.temp()
            out.append(self.assign(temp, gast.Subscript(self.load(dict_name),
                                                        gast.Constant(key, None), gast.Load()),
                                   node))
            return self.load(temp)

        if method == "get":
            key = args[0]
            if not isinstance(key, gast.Constant):
                return node  # (a key computed at run time: the call stays, and has no rule)
            if key.value in keys:
                new = gast.Subscript(self.load(dict_name), key, gast.Load())
            else:
                new = args[1] if len(args) == 2 else gast.Constant(None, None)
        elif method == "keys":
            new = gast.List([gast.Constant(k, None) for k in keys], gast.Load())
        elif method == "values":
            new = gast.List([read(k) for k in keys], gast.Load())
        else:  # items: each pair a tuple of its own (a list display holds names)
            pairs = []
            for k in keys:
                pair = gast.Tuple([gast.Constant(k, None), read(k)], gast.Load())
                temp = self.namer.temp()
                out.append(self.assign(temp, pair, node))
                pairs.append(self.load(temp))
            new = gast.List(pairs, gast.Load())
        node.value = new
        self.changed = True
        return out + [node]

    def unpacked(self, node):
        """``{**p, 'w': w}``: every key written out, each of ``p``'s values read by its key
        (a key given again keeps its place and takes the later value, as in Python)."""
        merged: dict = {}
        reads = []
        for key, part in zip(node.value.keys, node.value.values, strict=True):
            if key is None:
                keys = self.keys(part)
                if keys is None:
                    return node  # (not a known dict: the display stays, and has no rule)
                for k in keys:
                    temp = self.namer.temp()
                    reads.append(self.assign(temp, gast.Subscript(
                        self.load(part.id), gast.Constant(k, None), gast.Load()), node))
                    merged[k] = self.load(temp)
            elif isinstance(key, gast.Constant):
                merged[key.value] = part
            else:
                return node
        node.value = gast.Dict([gast.Constant(k, None) for k in merged], list(merged.values()))
        self.changed = True
        return reads + [node]

    def _class_of(self, name: str):
        """The class (a name) of the namedtuple ``name`` holds, where each value the
        function gives ``name`` is built by it (``P(w, b)``), is another such name, or is
        ``p._replace(...)`` of one; else None."""
        found = self._classes(name, ())
        return self.load(found.pop()) if found is not None and len(found) == 1 else None

    def _classes(self, name: str, seen: tuple) -> set | None:
        if name in seen:
            return set()  # (a loop's value, given back to itself)
        found: set = set()
        for value in self.given.get(name, ()):
            if isinstance(value, gast.Name) or isinstance(value, gast.Call) and \
                    isinstance(value.func, gast.Attribute) and \
                    value.func.attr == "_replace" and isinstance(value.func.value, gast.Name):
                other = value.id if isinstance(value, gast.Name) else value.func.value.id
                more = self._classes(other, seen + (name,))
                if more is None:
                    return None
                found |= more
            elif isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
                    self._namedtuple(value.func.id):
                found.add(value.func.id)
            else:
                return None
        return found

    def _namedtuple(self, name: str) -> bool:
        try:
            return self.resolve is not None and namedtuple_class(self.resolve(name))
        except KeyError:
            return False  # (a local name)

    def _replaced(self, node):
        """``q = p._replace(W=v)``, ``p = P(w, b)`` a namedtuple made here: ``q = P(v,
        p[1])``, a new one built of ``v`` and ``p``'s other fields, read by position."""
        value = node.value
        owner = value.func.value
        fields = self.kinds.get(owner.id, ANY).fields if isinstance(owner, gast.Name) else ()
        made = self._class_of(owner.id) if fields else None
        given = {k.arg: k.value for k in value.keywords}
        if not (made is not None and not value.args and
                None not in given and set(given) <= set(fields)):
            return node  # (a field it does not have: Python's ValueError, at run time)
        out, items = [], []
        for i, field in enumerate(fields):
            if field in given:
                items.append(given[field])
                continue
            temp = self.namer.temp()
            out.append(self.assign(temp, gast.Subscript(self.load(owner.id),
                                                        gast.Constant(i, None), gast.Load()),
                                   node))
            items.append(self.load(temp))
        node.value = located(gast.Call(trees.clone(made), items, []), value)
        self.replaced.add(id(value))  # (no unknown call: normalize noted one)
        self.changed = True
        return out + [node]

    @staticmethod
    def load(name: str) -> gast.Name:
        return gast.Name(name, gast.Load(), None, None)

    @staticmethod
    def assign(name: str, value, where) -> gast.Assign:
        return located(
            gast.Assign([gast.Name(name, gast.Store(), None, None)], value, None), where)
