"""What a line nothing reads may raise: dead code drops it only where Python would not raise.

``t = x[10]`` and ``u = x + np.ones(3)`` raise (IndexError, ValueError) though nothing
reads ``t`` or ``u``: the user's function raises, so the gradient must. ``conditions``
says, of a line of the primal, None (it may raise: it stays), ``frozenset()`` (it
cannot, given the kinds: it may go) or the sets of shape tokens that must broadcast
together for it not to raise (``{("x", "w")}`` for ``x * w``). Such a line goes where a
line that stays broadcasts the same shapes (``implied``): it raises in the same cases.
What each function raises on is a fact of its rule entry (``registry.Facts.raises``).

>>> from s2sad.transforms.kinds import Kind
>>> kinds = {"x": Kind("array", "x", 1), "w": Kind("array", "w", 1),
...          "m": Kind("array", "m", 1, fits="x"), "a": Kind("scalar", "()", 0),
...          "b": Kind("array", "x", 1)}   # (b = x > 0: bools)
>>> dtypes = {"x": ("f", "a"), "w": ("f", "a"), "m": ("f", "a"), "b": ("i", "a")}
>>> facts = UnreadRaises(kinds, dtypes, lambda func: None)
>>> def of(text):
...     found = facts.conditions(gast.parse(text).body[0])
...     return found if found is None else sorted(sorted(c) for c in found)
>>> [of(text) for text in ("t = x * a", "t = x * w", "t = x - m", "t = x[10]",
...                        "t = x[1:]", "a1, b1 = x", "t = not x", "t = not a",
...                        "t = -b", "t = b * x")]
[[], [['w', 'x']], [], None, [], None, None, [], None, []]

A line that stays and broadcasts ``x`` with ``w`` implies the second one's condition:

>>> body = gast.parse("def g(x, w):\\n    s_x = -w / 2\\n    s_w = s_x * x\\n"
...                   "    return s_w").body[0].body
>>> facts.implied(body, {frozenset({"x", "w"})})
True
>>> facts.implied(body[:1] + body[2:], {frozenset({"x", "w"})})
False
"""

from __future__ import annotations

import inspect
import types
from typing import Callable

import gast
import numpy as np

from .. import registry, trees
from ..rules.operators import OPERATORS
from .kinds import ANY

_COMPARED = {gast.Lt: "less", gast.LtE: "less_equal", gast.Gt: "greater",
             gast.GtE: "greater_equal", gast.Eq: "equal", gast.NotEq: "not_equal"}


class _Raises(Exception):
    """The expression may raise in ways no broadcast condition says: the line stays."""


class UnreadRaises:
    """``kinds``: the primal's names' kinds; ``dtypes``: their ``(kind, holder)``
    (:func:`~s2sad.transforms.dtypes.dtype_kinds`); ``function_of(func)``: the function a
    called name stands for, or None (not known); ``complex_values``: does the program hold
    complex numbers (an elementwise rule's default holds for real ones only)?"""

    def __init__(self, kinds: dict, dtypes: dict, function_of: Callable,
                 complex_values: bool = False):
        self.kinds = kinds
        self._dtypes = dtypes  # (or a function giving them, called at the first need)
        self.function_of = function_of
        self.complex_values = complex_values
        # a token -> the token its arrays broadcast into (keepdims results: kinds' ``fits``)
        self.fits = {k.shape: k.fits for k in kinds.values() if k.fits and k.shape}
        self.ranks = {k.shape: k.ndim for k in kinds.values() if k.shape}
        self._indexed: dict = {}  # id of a line in `for i in range(len(xs))` -> {(i, xs)}
        self._function, self._scanned, self._stmt = None, True, None
        self._sized: set = set()  # the lists whose length is their kind's count of items
        self._caught: set = set()  # (ids of the lines in a try: what they raise may be caught)

    @property
    def dtypes(self) -> dict:
        if callable(self._dtypes):
            self._dtypes = self._dtypes()
        return self._dtypes

    def enter(self, function) -> None:
        """Read the lines of ``function`` next (what ``_scan`` finds in it, at the first
        need)."""
        self._function, self._scanned = function, False

    def _scan(self) -> None:
        """Note the loops of the function whose index is always within a list's length:
        ``for i in range(len(xs))``, ``xs`` and ``i`` set nowhere in the body and ``xs``
        read there only an item at a time (no ``xs.pop()``), so ``xs[i]`` cannot raise;
        the lists whose length stays; the lines in a ``try``."""
        if self._scanned:
            return
        self._scanned, function = True, self._function
        self._indexed = {}
        items = self._item_uses(function)
        self._sized = self._fixed_lists(function, items)
        self._caught = {id(n) for t in trees.walk(function) if isinstance(t, gast.Try)
                        for n in trees.walk(t) if isinstance(n, gast.stmt)}
        for loop in trees.walk(function):
            pairs = _index_loop(loop)
            if pairs is None:
                continue
            body = [n for stmt in loop.body for n in trees.walk(stmt)]
            counter = next(iter(pairs))[0]
            lists = {xs for _, xs in pairs}
            if any(isinstance(n, gast.Name) and (
                    n.id == counter and not isinstance(n.ctx, gast.Load) or
                    n.id in lists and (not isinstance(n.ctx, gast.Load) or id(n) not in items))
                   for n in body):
                continue
            for n in body:
                if isinstance(n, gast.stmt):
                    self._indexed.setdefault(id(n), set()).update(pairs)

    def _item_uses(self, function) -> set:
        """The ids of the names read as a list whose length stays: ``xs[i]`` (read or
        set, not deleted, no slice), or an argument of a function known to change none
        of its arguments (``len(xs)``, ``zeros_like_structure(xs)``)."""
        allowed = set()
        for node in trees.walk(function):
            if isinstance(node, gast.Subscript) and not isinstance(node.slice, gast.Slice) \
                    and not isinstance(node.ctx, gast.Del):  # (del ys[0]: one fewer)
                allowed.add(id(node.value))
            elif isinstance(node, gast.Call):
                func = self.function_of(node.func)
                facts = registry.facts(func) if func is not None else None
                if facts is not None and not facts.mutates and not facts.uncopied_mutates:
                    allowed.update(id(a) for a in node.args)
        return allowed

    def _fixed_lists(self, function, allowed: set) -> set:
        """The lists of ``function`` whose length is the kinds' count of their items: set
        once, then read only as ``_item_uses`` says (no ``append``, no alias)."""
        lists = {n for n, k in self.kinds.items() if k.tag == "list" and k.items}
        stores: dict = {}
        for node in trees.walk(function):
            if isinstance(node, gast.Name) and node.id in lists:
                if isinstance(node.ctx, gast.Store):
                    stores[node.id] = stores.get(node.id, 0) + 1
                elif isinstance(node.ctx, gast.Del) or id(node) not in allowed:
                    lists.discard(node.id)
        return {n for n in lists if stores.get(n, 0) <= 1}

    # --- one line ----------------------------------------------------------------------------

    def conditions(self, stmt) -> frozenset | None:
        """None where ``stmt`` may raise; else the sets of shape tokens that must
        broadcast together for it not to."""
        self._found: set = set()
        self._stmt = stmt
        try:
            if isinstance(stmt, gast.Assign):
                for target in stmt.targets:
                    if isinstance(target, (gast.Tuple, gast.List)) and \
                            not self._unpacks(target, stmt.value):
                        return None  # (too many or too few values to unpack: ValueError)
                    if not isinstance(target, (gast.Name, gast.Tuple, gast.List)):
                        return None
                self._shape(stmt.value)
            elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
                self._operation(OPERATORS.get(type(stmt.op)), [stmt.target, stmt.value])
            else:
                return None
        except _Raises:
            return None
        if self._found and (self._scan() or id(stmt) in self._caught):
            return None  # (caught there, it is not the error of a line kept elsewhere)
        return frozenset(self._found)

    def _unpacks(self, target, value) -> bool:
        """Does ``value`` hold as many items as ``target`` names, whatever it is given?"""
        if any(isinstance(e, gast.Starred) for e in target.elts):
            return False
        if isinstance(value, (gast.Tuple, gast.List)):
            return len(value.elts) == len(target.elts) and \
                not any(isinstance(e, gast.Starred) for e in value.elts)
        kind = self.kinds.get(value.id) if isinstance(value, gast.Name) else None
        return kind is not None and kind.tag == "tuple" and \
            len(kind.items) == len(target.elts)

    def _shape(self, node):
        """The shape tokens whose broadcast ``node``'s shape is (``frozenset()``: a number;
        None: not known); ``_Raises`` where it may raise but by shapes that do not
        broadcast, which it adds to ``_found``."""
        cls = type(node)
        if cls is gast.Constant:
            if isinstance(node.value, (bool, int, float, complex)):
                return frozenset()
            return None
        if cls is gast.Name:
            shape = _token(self.kinds.get(node.id))
            if shape is None and self.kinds.get(node.id, ANY).tag in ("array", "numeric"):
                return frozenset({f"<{node.id}>"})  # (its own shape, within this line)
            return shape
        if cls is gast.BinOp:
            return self._operation(OPERATORS.get(type(node.op)), [node.left, node.right])
        if cls is gast.UnaryOp:
            if isinstance(node.op, gast.Not):  # (the truth of an array: ValueError)
                if self._shape(node.operand) != frozenset():
                    raise _Raises
                return frozenset()
            return self._operation(OPERATORS.get(type(node.op)), [node.operand])
        if cls is gast.Compare:
            if len(node.ops) != 1:  # (a < b < c: the truth of a < b)
                if any(self._shape(part) != frozenset() for part in [node.left, *node.comparators]):
                    raise _Raises
                return frozenset()
            op = type(node.ops[0])
            if op in (gast.Is, gast.IsNot):
                self._shape(node.left)
                self._shape(node.comparators[0])
                return frozenset()
            if op not in _COMPARED:
                raise _Raises
            return self._operation(getattr(np, _COMPARED[op]), [node.left, node.comparators[0]])
        if cls is gast.BoolOp:  # (the truth of each but the last)
            if any(self._shape(v) != frozenset() for v in node.values[:-1]):
                raise _Raises
            self._shape(node.values[-1])
            return None
        if cls is gast.IfExp:
            if self._shape(node.test) != frozenset():
                raise _Raises
            body, orelse = self._shape(node.body), self._shape(node.orelse)
            return body if body == orelse else None
        if cls in (gast.Tuple, gast.List):
            for elt in node.elts:
                if isinstance(elt, gast.Starred):
                    raise _Raises
                self._shape(elt)
            return None
        if cls is gast.Attribute and self._module_number(node):
            return frozenset()  # (np.pi: a Python number the module holds)
        if cls is gast.Attribute:
            facts = _attribute(node.attr) if self._array(node.value) is not None else None
            if facts is None or facts.raises != ():
                raise _Raises  # (AttributeError)
            shape = self._shape(node.value)
            return frozenset() if facts.number else \
                shape if facts.shaped_like == 0 else None
        if cls is gast.Subscript:
            return self._subscript(node)
        if cls is gast.Call:
            return self._call(node)
        raise _Raises

    def _module_number(self, node) -> bool:
        """Is ``node`` a module's attribute holding a Python number (``np.pi``, ``math.e``)?"""
        if not isinstance(node.value, gast.Name) or node.value.id in self.kinds:
            return False
        owner = self.function_of(node.value)
        return isinstance(owner, types.ModuleType) and \
            type(getattr(owner, node.attr, None)) in (int, float, complex)

    def _array(self, node):
        """The kind of ``node``, a name of an array (or NumPy's number) of known rank."""
        kind = self.kinds.get(node.id) if isinstance(node, gast.Name) else None
        return kind if kind is not None and kind.tag in ("array", "numeric") and \
            kind.ndim is not None else None

    def _subscript(self, node):
        """``x.shape[k]`` within the rank, and an array's basic slices (``x[1:]``,
        ``x[:, ::2]``) never raise; any other index may (IndexError, KeyError)."""
        value, index = node.value, node.slice
        if isinstance(value, gast.Attribute) and value.attr == "shape":
            kind = self._array(value.value)
            if kind is not None and isinstance(index, gast.Constant) and \
                    type(index.value) is int and -kind.ndim <= index.value < kind.ndim:
                return frozenset()
            raise _Raises
        self._scan()
        if isinstance(value, gast.Name) and value.id not in self.kinds or \
                isinstance(value, gast.Name) and isinstance(index, gast.Name) and \
                (index.id, value.id) in self._indexed.get(id(self._stmt), ()):
            return None  # (s2sad's own tape, read where it wrote; xs[i] in range(len(xs)))
        kind = self.kinds.get(value.id) if isinstance(value, gast.Name) else None
        if kind is not None and (kind.tag == "tuple" or value.id in self._sized) and \
                kind.items and \
                isinstance(index, gast.Constant) and type(index.value) is int and \
                -len(kind.items) <= index.value < len(kind.items):
            return _token(kind.items[index.value])
        kind = self._array(value)
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        if kind is None or sum(isinstance(p, gast.Slice) for p in parts) > kind.ndim or \
                not all(isinstance(p, gast.Slice) and self._bounds(p) or
                        isinstance(p, gast.Constant) and p.value in (None, Ellipsis)
                        for p in parts):
            raise _Raises
        return None

    def _bounds(self, part) -> bool:
        """Are a slice's bounds Python's integers or None, its step not 0?"""
        for bound in (part.lower, part.upper, part.step):
            if bound is None:
                continue
            if isinstance(bound, gast.Constant) and type(bound.value) is int:
                if bound is part.step and bound.value == 0:
                    return False
                continue
            kind = self.kinds.get(bound.id) if isinstance(bound, gast.Name) else None
            if bound is part.step or kind is None or kind.py != "int":
                return False
        return True

    def _call(self, node):
        """A call of a function whose rule entry says what it raises on."""
        func = self.function_of(node.func)
        facts = registry.facts(func) if func is not None else None
        rule = registry.lookup(func) if func is not None else None
        if facts is None:
            raise _Raises
        raises = facts.raises
        if raises is None and rule is not None and rule.shape == "elementwise" and \
                not self.complex_values:
            raises = ("broadcast",)
        if raises is None or "values" in raises or \
                any(isinstance(a, gast.Starred) for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            raise _Raises
        args = list(node.args)
        keywords = {k.arg: k.value for k in node.keywords}
        if "axis" in raises:
            return self._reduction(args, keywords, "broadcast" in raises)
        if "signature" in raises:  # (norm(mu, s): arguments that fit its parameters)
            if not _fits(func, args, keywords):
                raise _Raises
            for value in args + list(keywords.values()):
                self._shape(value)
            return None
        if "integers" in raises:
            if keywords or not all(self._integer(a) for a in args):
                raise _Raises
            return None
        if "truth" in raises:  # (max(a, b): a number each)
            if keywords or not args or any(self._shape(a) != frozenset() for a in args):
                raise _Raises
            return frozenset()
        if "contract" in raises:  # (np.dot(x, x) of a vector, np.dot(2.0, x))
            shapes = [self._shape(a) for a in args]
            kinds = [self.kinds.get(a.id) if isinstance(a, gast.Name) else None for a in args]
            if keywords or len(args) != 2 or not (frozenset() in shapes or (
                    shapes[0] == shapes[1] and kinds[0].ndim == 1 if None not in kinds
                    else False)):
                raise _Raises
            return None
        if "number" in raises or "items" in raises:  # (float(a), sum([a, b]): numbers)
            kind = self.kinds.get(args[0].id) if len(args) == 1 and \
                isinstance(args[0], gast.Name) else None
            if keywords or len(args) != 1 or not (
                    self._shape(args[0]) == frozenset() if "number" in raises else
                    kind is not None and kind.tag in ("list", "tuple") and kind.items and
                    all(_token(k) == frozenset() for k in kind.items)):
                raise _Raises
            return frozenset()
        if "sized" in raises:
            kind = self.kinds.get(args[0].id) if len(args) == 1 and \
                isinstance(args[0], gast.Name) else None
            if keywords or kind is None or not (kind.container or kind.tag in (
                    "array", "numeric") and bool(kind.ndim)):
                raise _Raises
            return frozenset()
        if "broadcast" in raises or raises == ("bool",) or raises == ("integer",):
            return self._operation(func, args + [v for k, v in keywords.items()
                                                 if k not in registry.NOT_BROADCAST],
                                   raises, keywords)
        shapes = [self._shape(a) for a in args + list(keywords.values())]
        if facts.shaped_like is not None:
            at = facts.shaped_like
            return shapes[at] if at < len(args) else self._shape(keywords.get("like"))
        return None

    def _operation(self, func, operands, raises=None, keywords=()):
        """An elementwise operation of ``operands``: their shapes must broadcast."""
        facts = registry.facts(func) if func is not None else None
        raises = raises or (facts.raises if facts is not None else None)
        if raises is None and func is not None and not self.complex_values and \
                (registry.lookup(func) or registry.Rule(None, None, "other")).shape == \
                "elementwise":
            raises = ("broadcast",)
        if raises is None or "values" in raises or "out" in keywords:
            raise _Raises
        shapes = [self._shape(o) for o in operands]
        if not all(self._numeric(o) for o in operands):
            raise _Raises  # (a list, a tuple, a string: what they do with numbers may raise)
        if "bool" in raises and not all(self._real(o) for o in operands):
            raise _Raises  # (`-` of bools: TypeError)
        if "integer" in raises and not (self._real(operands[0]) or len(operands) > 1 and
                                        isinstance(operands[1], gast.Constant) and
                                        isinstance(operands[1].value, (int, float)) and
                                        operands[1].value >= 0):
            raise _Raises  # (integers to a negative integer power: ValueError)
        if any(s is None for s in shapes):
            if sum(s != frozenset() for s in shapes) > 1:
                raise _Raises  # (shapes not known: they may not broadcast)
            return None
        tokens = frozenset().union(*shapes)
        tokens = frozenset(t for t in tokens if self.fits.get(t) not in tokens)
        if len(tokens) > 1:
            self._found.add(tokens)
        return tokens

    def _numeric(self, node) -> bool:
        """Is ``node`` a number or an array (of a line whose parts raise nothing else)?"""
        if isinstance(node, gast.Constant):
            return type(node.value) in (bool, int, float, complex)
        if isinstance(node, gast.Name):
            return self.kinds.get(node.id, ANY).tag in ("scalar", "array", "numeric")
        if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Compare)):
            return True  # (an operation of numbers: its operands were checked)
        if isinstance(node, gast.IfExp):
            return self._numeric(node.body) and self._numeric(node.orelse)
        if isinstance(node, gast.Attribute) and self._module_number(node):
            return True
        if isinstance(node, gast.Attribute):  # (x.T, x.size; not x.shape, a tuple)
            facts = _attribute(node.attr)
            return facts is not None and (bool(facts.number) or facts.shaped_like == 0 or
                                          facts.method == "transpose")
        if isinstance(node, gast.Subscript):
            kind = self.kinds.get(node.value.id) if isinstance(node.value, gast.Name) \
                else None  # (an array's slice, or an item of a tuple of numbers)
            if kind is not None and kind.tag in ("array", "numeric"):
                return True
            return isinstance(node.value, gast.Attribute) and node.value.attr == "shape"
        if isinstance(node, gast.Call):
            func = self.function_of(node.func)
            facts = registry.facts(func) if func is not None else None
            return func is not range and (registry.lookup(func) is not None or
                                          facts is not None and bool(facts.number))
        return False

    def _real(self, node) -> bool:
        """Is ``node`` a float (or complex) value, or a Python number (never a bool array)?"""
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float, complex)
        if isinstance(node, gast.Name):
            kind = self.kinds.get(node.id)
            if kind is not None and kind.py in ("float", "int", "complex", "number"):
                return True
            return self.dtypes.get(node.id, ("?", "?"))[0] == "f"
        if isinstance(node, gast.BinOp) and not isinstance(node.op, (gast.BitAnd, gast.BitOr,
                                                                      gast.BitXor)):
            return self._real(node.left) or self._real(node.right)  # (a float's promotion)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self._real(node.operand)
        if isinstance(node, gast.Attribute) and self._module_number(node):
            return type(getattr(self.function_of(node.value), node.attr)) is not int
        if isinstance(node, gast.Call):  # (np.log(x) of floats: floats)
            func = self.function_of(node.func)
            rule = registry.lookup(func) if func is not None else None
            return rule is not None and rule.shape == "elementwise" and \
                rule.adjoint is not None and any(self._real(a) for a in node.args)
        return False

    def _integer(self, node) -> bool:
        """Is ``node`` a Python integer (``n``, ``len(xs)``, ``x.shape[0]``, ``n - 1``)?"""
        if isinstance(node, gast.Constant):
            return type(node.value) is int
        if isinstance(node, gast.Name):
            kind = self.kinds.get(node.id)
            return kind is not None and kind.py == "int"
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub,
                                                                 gast.Mult)):
            return self._integer(node.left) and self._integer(node.right)
        if isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords and \
                self.function_of(node.func) is len:
            kind = self.kinds.get(node.args[0].id) if isinstance(node.args[0], gast.Name) \
                else None  # (len of an array of one axis or more, or of a list)
            return kind is not None and (kind.tag in ("list", "tuple", "dict") or
                                         kind.tag == "array" and bool(kind.ndim))
        if isinstance(node, gast.Subscript):
            try:
                return self._subscript(node) == frozenset()
            except _Raises:
                return False
        return False

    def _reduction(self, args, keywords, product: bool):
        """``np.sum(x, axis=1)`` (``product``: ``sum_product(a, b, axis=1)``, the sum of
        ``a * b``): raises only where the axis is outside the rank (or a, b do not
        broadcast)."""
        if not args or set(keywords) - {"axis", "keepdims", "dtype"} or \
                len(args) > (2 if product else 2 - ("axis" in keywords)):
            raise _Raises
        for arg in keywords.values():
            self._shape(arg)
        if product:
            shape = self._operation(None, args, ("broadcast",))
            axis = keywords.get("axis")
        else:
            shape = self._shape(args[0])
            axis = args[1] if len(args) > 1 else keywords.get("axis")
        if axis is None or isinstance(axis, gast.Constant) and axis.value is None:
            return None if "keepdims" in keywords else frozenset()
        ranks = [self.ranks.get(t) for t in shape] if shape is not None else [None]
        ndim = max(ranks, default=0) if None not in ranks else None
        axes = axis.elts if isinstance(axis, gast.Tuple) else [axis]
        if ndim is None or not all(isinstance(a, gast.Constant) and type(a.value) is int and
                                   -ndim <= a.value < ndim for a in axes):
            raise _Raises  # (AxisError)
        return None

    # --- lines that stay ---------------------------------------------------------------------

    def implied(self, body, conditions, seen: list | None = None) -> bool:
        """Do the lines of ``body`` (a function's, as it is left) that run on every path to
        its ``return`` broadcast together the tokens of each of ``conditions``? ``seen``:
        what ``broadcasts(body)`` gave, where several lines ask."""
        seen = self.broadcasts(body) if seen is None else seen
        return all(any(c <= tokens for tokens in seen) for c in conditions)

    def broadcasts(self, body) -> list:
        """The sets of shape tokens the lines of ``body`` broadcast together, each line on
        every path to its ``return``. Names the kinds do not know (sensitivities) get the
        shapes their one assignment gives."""
        nested = {n.id for stmt in body if isinstance(stmt, (gast.If, gast.For, gast.While,
                                                             gast.Try, gast.With))
                  for n in trees.walk(stmt) if isinstance(n, gast.Name) and
                  isinstance(n.ctx, gast.Store)}
        shapes: dict = {}
        broadcasts: list = []
        walk = _Shapes(self, shapes, broadcasts)
        for stmt in body:
            if isinstance(stmt, gast.Return):
                break
            if any(isinstance(n, (gast.Return, gast.Raise)) for n in trees.walk(stmt)):
                break  # (lines after one that may leave the function: not on every path)
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name):
                name = stmt.targets[0].id
                shape = walk.shape(stmt.value)
                if name not in self.kinds and name not in nested:
                    shapes[name] = None if name in shapes else shape  # (assigned once)
            elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
                shape = walk.shape(gast.BinOp(stmt.target, stmt.op, stmt.value))
                if stmt.target.id not in self.kinds and stmt.target.id not in nested \
                        and shapes.get(stmt.target.id) is not None:
                    shapes[stmt.target.id] = shape
        return broadcasts


def _attribute(name: str):
    """The facts of an array's attribute (``x.shape``), or None."""
    found = getattr(np.ndarray, name, None)
    return registry.facts(found) if found is not None else None


def _token(kind):
    """The shape tokens of a value of ``kind``: ``frozenset()`` for a number, its shape's
    token for an array (or NumPy's number) whose shape the kinds name, else None."""
    if kind is None:
        return None
    if kind.tag == "scalar":
        return frozenset()
    if kind.tag in ("array", "numeric") and kind.shape:
        return frozenset({kind.shape})
    return None


def _index_loop(loop):
    """``(i, xs)`` of ``for i in range(len(xs))`` (or ``reversed(range(len(xs)))``)."""
    if not (isinstance(loop, gast.For) and isinstance(loop.target, gast.Name)):
        return None
    it = loop.iter
    if _named_call(it, "reversed"):
        it = it.args[0]
    if not _named_call(it, "range"):
        return None
    it = it.args[0]
    sizes = it.args if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and \
        it.func.id == "min" and not it.keywords else [it]  # (zip's: min(len(a), len(b)))
    if not all(_named_call(s, "len") and isinstance(s.args[0], gast.Name) for s in sizes):
        return None
    return {(loop.target.id, s.args[0].id) for s in sizes}


def _named_call(node, name: str) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
        node.func.id == name and len(node.args) == 1 and not node.keywords


def checks(function, conditions, raises: UnreadRaises, check: Callable) -> bool:
    """Where a later pass rewrote the line that implied a dropped line's broadcast, check
    it: ``check()(a, b)`` (the name of ``broadcast_shape``: NumPy's ValueError), after
    the lines that set a value of each shape. Whether ``function`` changed.

    >>> from s2sad.transforms.kinds import Kind
    >>> kinds = {"x": Kind("array", "x", 1), "w": Kind("array", "w", 1),
    ...          "s_x": Kind("array", "x", 1)}
    >>> fn = gast.parse("def g(x, w):\\n    s_x = w * 2.0\\n    return s_x").body[0]
    >>> checks(fn, {frozenset({"x", "w"})}, UnreadRaises(kinds, {}, lambda f: None),
    ...        lambda: "broadcast_shape")
    True
    >>> from s2sad.codegen import unparse
    >>> print(unparse(fn))
    def g(x, w):
        broadcast_shape(x, w)
        s_x = w * 2.0
        return s_x
    """
    changed = False
    for condition in sorted(conditions, key=sorted):
        if raises.implied(function.body, {condition}):
            continue
        places = {}  # token -> (where a value of it is first set, its name)
        params = [a.id for a in function.args.args if isinstance(a, gast.Name)]
        for i, name in enumerate(params):
            token = _token(raises.kinds.get(name))
            if token and len(token) == 1 and next(iter(token)) in condition:
                places.setdefault(next(iter(token)), (0, i, name))
        for at, stmt in enumerate(function.body):
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name):
                token = _token(raises.kinds.get(stmt.targets[0].id))
                if token and len(token) == 1 and next(iter(token)) in condition:
                    places.setdefault(next(iter(token)), (at + 1, 0, stmt.targets[0].id))
        if set(places) != set(condition):
            continue  # (no value of one shape is left to check: nothing can raise there)
        names = [name for _, _, name in sorted(places.values())]
        call = gast.Name(names[0], gast.Load(), None, None)
        for name in names[1:]:
            call = gast.Call(gast.Name(check(), gast.Load(), None, None),
                             [call, gast.Name(name, gast.Load(), None, None)], [])
        function.body.insert(max(at for at, _, _ in places.values()), gast.Expr(call))
        changed = True
    return changed


def _fits(func, args: list, keywords: dict) -> bool:
    """Do ``args`` and ``keywords`` bind to the parameters of ``func``, a SciPy
    distribution called to freeze it (which binds them as its ``_parse_args`` does)?"""
    try:
        inspect.signature(getattr(func, "_parse_args", func)).bind(*args, **keywords)
    except (TypeError, ValueError):
        return False
    return True


class _Shapes:
    """The shapes of a kept line's values, and the sets of tokens it broadcasts."""

    def __init__(self, facts: UnreadRaises, shapes: dict, broadcasts: list):
        self.facts, self.shapes, self.broadcasts = facts, shapes, broadcasts

    def shape(self, node):
        if isinstance(node, gast.Name) and node.id not in self.facts.kinds:
            return self.shapes.get(node.id)
        if isinstance(node, gast.Constant):
            return frozenset() if isinstance(node.value, (int, float, complex)) else None
        if isinstance(node, gast.Name):
            return _token(self.facts.kinds[node.id])
        if isinstance(node, gast.BinOp) and not isinstance(node.op, gast.MatMult) and \
                OPERATORS.get(type(node.op)) is not None:
            return self._broadcast([node.left, node.right])
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self.shape(node.operand)
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) and \
                node.value.attr == "shape":
            return frozenset()
        if isinstance(node, gast.Attribute) and (_attribute(node.attr) or
                                                 registry.Facts()).number:
            return frozenset()  # (x.size: a Python int)
        if isinstance(node, gast.Call):
            func = self.facts.function_of(node.func)
            facts = registry.facts(func) if func is not None else None
            rule = registry.lookup(func) if func is not None else None
            if facts is not None and facts.number:  # (reduced_size(x): a Python int)
                for part in node.args + [k.value for k in node.keywords]:
                    self.shape(part)
                return frozenset()
            keywords = {k.arg: k.value for k in node.keywords}
            if facts is not None and facts.shaped_like is not None and \
                    "shape" not in keywords:  # (np.zeros_like(x, shape=(3,)): not x's)
                like = node.args[facts.shaped_like] if len(node.args) > facts.shaped_like \
                    else keywords.get("like")
                for part in node.args + list(keywords.values()):
                    self.shape(part)
                return None if like is None else self.shape(like)
            if (rule is not None and rule.shape == "elementwise" or facts is not None and
                    facts.raises == ("broadcast",)) and None not in keywords and \
                    not any(isinstance(a, gast.Starred) for a in node.args):
                return self._broadcast(node.args + [v for k, v in keywords.items()
                                                    if k not in registry.NOT_BROADCAST])
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.expr):
                self.shape(child)
        return None

    def _broadcast(self, operands):
        shapes = [self.shape(o) for o in operands]
        if any(s is None for s in shapes):
            return None
        tokens = frozenset().union(*shapes)
        self.broadcasts.append(tokens)
        return tokens
