"""Normalize into single assignments: one operation per statement, on names and constants.

Nested expressions are split into ``t_1, t_2, ...`` temporaries; a reassigned
variable gets a new name (``x`` -> ``x_1``), so every name is assigned exactly
once and keeps its value for the reverse sweep. Chains of ``+`` and ``-`` stay
on one line, as in the seed's ``t_s = t_abc + t_abd + t_acd + t_bcd``. The
returned expression is named ``ret``.

>>> import gast
>>> from s2sad.names import Namer
>>> from s2sad.source import FunctionSource
>>> from s2sad.codegen import unparse
>>> import numpy as np
>>> text = "def f(x, w):\\n    x = np.sin(x * w) + w\\n    return 2.0 * x"
>>> tree = gast.parse(text).body[0]
>>> src = FunctionSource(None, tree, "demo.py", text.splitlines(True), {"np": np})
>>> print(unparse(Normalize(src, Namer.for_tree(tree)).run()))
def f(x, w):
    t_1 = x * w
    t_2 = np.sin(t_1)
    x_1 = t_2 + w
    ret = 2.0 * x_1
    return ret
"""

from __future__ import annotations

import gast

from ..errors import DifferentiationError
from ..names import Namer
from ..source import FunctionSource


_AUG = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
        gast.MatMult: "@", gast.FloorDiv: "//", gast.Mod: "%"}


def assigned_names(tree) -> set[str]:
    names = {a.id for a in tree.args.args + tree.args.posonlyargs + tree.args.kwonlyargs}
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            names.add(node.id)
    return names


def is_atom(node) -> bool:
    return isinstance(node, (gast.Name, gast.Constant)) or (
        isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load) and is_atom(node.value)
        and not isinstance(node.value, gast.Constant)) or (
        isinstance(node, gast.Tuple) and all(isinstance(e, gast.Constant) for e in node.elts))


def is_linear_chain(node) -> bool:
    """``a + b - c``: a tree of ``+``/``-`` whose leaves are atoms."""
    return isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)) and all(
        is_linear_chain(side) or is_atom(side) for side in (node.left, node.right))


class Normalize:
    def __init__(self, source: FunctionSource, namer: Namer):
        self.source = source
        self.namer = namer
        self.locals = assigned_names(source.tree)
        self.current: dict[str, str] = {}
        self.aliases: dict[str, str] = {}
        self.temps: set[str] = set()  # name -> the local it may share memory with
        self.out: list = []
        self.stmt = None

    def run(self) -> gast.FunctionDef:
        tree = self.source.tree
        args = tree.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs:
            self.current[arg.id] = arg.id
        for stmt in tree.body:
            self.stmt = stmt
            self.statement(stmt)
        new = gast.FunctionDef(tree.name, args, self.out, [], None, None)
        return gast.copy_location(new, tree)

    # --- statements -----------------------------------------------------------------

    def emit(self, stmt):
        self.out.append(gast.copy_location(stmt, self.stmt))

    def statement(self, stmt):
        if isinstance(stmt, gast.Assign):
            value = self.simple(stmt.value)
            if len(stmt.targets) > 1:
                value = self.to_atom(value)
            for target in stmt.targets:
                self.assign(target, value)
        elif isinstance(stmt, gast.AugAssign):
            self.augmented(stmt)
        elif isinstance(stmt, gast.Expr):
            if isinstance(stmt.value, gast.Constant):
                return  # docstring or a bare constant
            self.emit(gast.Expr(self.simple(stmt.value)))
        elif isinstance(stmt, gast.Return):
            value = stmt.value
            if isinstance(value, gast.Name) and value.id in self.locals:
                self.emit(gast.Return(self.atom(value)))
                return
            name = self.namer.claim("ret")
            self.emit(gast.Assign([self.store(name)], self.simple(value), None))
            self.emit(gast.Return(self.load(name)))
        elif isinstance(stmt, gast.Pass):
            return
        else:  # Validate lets nothing else through
            raise self.source.syntax_error(type(stmt).__name__, stmt)

    def assign(self, target, value):
        if isinstance(target, gast.Name):
            ssa = self.new_version(target.id)
            self.emit(gast.Assign([self.store(ssa)], value, None))
            shared = value.value if isinstance(value, gast.Subscript) else value
            if isinstance(shared, gast.Name) and (shared.id in self.current.values()
                                                  or shared.id in self.temps):
                self.aliases[ssa] = self.aliases.get(shared.id, shared.id)
            return
        elts = target.elts
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(elts):
            # the right side's parts are atoms already, all evaluated before any target
            for t, v in zip(elts, value.elts, strict=True):
                self.assign(t, v)
            return
        source = self.to_atom(value)
        names, nested = [], []
        for elt in elts:
            if isinstance(elt, gast.Name):
                names.append(self.store(self.new_version(elt.id)))
            else:
                temp = self.namer.temp()
                names.append(self.store(temp))
                nested.append((elt, self.load(temp)))
        self.emit(gast.Assign([gast.Tuple(names, gast.Store())], source, None))
        for elt, temp in nested:
            self.assign(elt, temp)

    def augmented(self, stmt):
        """``x += e`` is ``x = x + e``, unless ``x`` may be an array shared with another name
        that is read later: then ``+=`` would change that one too, so it is refused."""
        target = stmt.target
        mine = self.current.get(target.id)
        root = self.aliases.get(mine, mine)
        sharing = sorted(k for k, v in self.current.items()
                         if k != target.id and self.aliases.get(v, v) == root)
        user = next((k for k in sharing if self._read_later(stmt, k)), None)
        if mine is not None and user is not None:
            raise self.source.syntax_error(
                f"`{target.id} {_AUG[type(stmt.op)]}= ...` on a value shared with {user!r}",
                stmt, f"If they are arrays, `{_AUG[type(stmt.op)]}=` changes {user!r} too. "
                f"Write `{target.id} = {target.id} {_AUG[type(stmt.op)]} ...` for a new value, "
                f"or copy first: `{target.id} = {user}.copy()`.")
        value = gast.copy_location(gast.BinOp(gast.Name(target.id, gast.Load(), None, None),
                                              stmt.op, stmt.value), stmt)
        self.statement(gast.copy_location(gast.Assign([target], value, None), stmt))

    def _read_later(self, stmt, name: str) -> bool:
        body = self.source.tree.body
        later = body[body.index(stmt) + 1:] if stmt in body else []
        return any(isinstance(n, gast.Name) and n.id == name for s in later for n in gast.walk(s))

    def new_version(self, name: str) -> str:
        ssa = name if name not in self.current else self.namer.version(name)
        self.current[name] = ssa
        return ssa

    # --- expressions ----------------------------------------------------------------

    @staticmethod
    def store(name):
        return gast.Name(name, gast.Store(), None, None)

    @staticmethod
    def load(name):
        if isinstance(name, gast.Name):
            name = name.id
        return gast.Name(name, gast.Load(), None, None)

    def is_atom(self, node) -> bool:
        """An atom, and not an attribute of a local value (``x.real`` is an operation)."""
        root = node
        while isinstance(root, gast.Attribute):
            root = root.value
        if root is not node and isinstance(root, gast.Name) and root.id in self.locals:
            return False
        return is_atom(node)

    def atom(self, node):
        return self.to_atom(self.simple(node))

    def to_atom(self, value):
        """An atom for an already normalized expression (a temporary if needed)."""
        if self.is_atom(value):
            return value
        temp = self.namer.temp()
        self.temps.add(temp)
        self.emit(gast.Assign([self.store(temp)], value, None))
        return self.load(temp)

    def name(self, node):
        if node.id in self.locals:
            if node.id not in self.current:
                raise self.source.error(
                    DifferentiationError, f"local variable {node.id!r} is used before it is "
                    "assigned", node, "Assign it first (Python would raise UnboundLocalError).")
            return gast.copy_location(self.load(self.current[node.id]), node)
        try:
            self.source.resolve(node.id)
        except KeyError:
            raise self.source.error(DifferentiationError, f"name {node.id!r} is not defined",
                                    node, "Define it in the function's module or pass it in "
                                    "as an argument.") from None
        return node

    def simple(self, node):
        """One operation on atoms (temporaries emitted for the operands)."""
        if isinstance(node, gast.Name):
            return self.name(node)
        if isinstance(node, gast.Constant):
            return node
        if isinstance(node, gast.Attribute):
            value = self.simple(node.value) if self.is_atom(node.value) else self.atom(node.value)
            return gast.copy_location(gast.Attribute(value, node.attr, gast.Load()), node)
        if isinstance(node, gast.BinOp):
            if isinstance(node.op, (gast.Add, gast.Sub)):
                return self.chain(node)
            return gast.copy_location(
                gast.BinOp(self.atom(node.left), node.op, self.atom(node.right)), node)
        if isinstance(node, gast.UnaryOp):
            return gast.copy_location(gast.UnaryOp(node.op, self.atom(node.operand)), node)
        if isinstance(node, gast.Call):
            func = node.func
            if isinstance(func, gast.Attribute):
                func = gast.copy_location(gast.Attribute(self.atom(func.value), func.attr,
                                                         gast.Load()), func)
            else:
                func = self.atom(func)
            args = [self.atom(a) for a in node.args]
            keywords = [gast.keyword(k.arg, self.atom(k.value)) for k in node.keywords]
            return gast.copy_location(gast.Call(func, args, keywords), node)
        if isinstance(node, gast.Subscript):
            return gast.copy_location(
                gast.Subscript(self.atom(node.value), self.index(node.slice), gast.Load()), node)
        if isinstance(node, gast.Compare):
            return gast.copy_location(gast.Compare(self.atom(node.left), node.ops,
                                                   [self.atom(c) for c in node.comparators]),
                                      node)
        if isinstance(node, (gast.Tuple, gast.List)):
            return gast.copy_location(type(node)([self.atom(e) for e in node.elts], gast.Load()),
                                      node)
        if isinstance(node, gast.Dict):
            keys = [None if k is None else self.atom(k) for k in node.keys]
            return gast.copy_location(gast.Dict(keys, [self.atom(v) for v in node.values]), node)
        if isinstance(node, gast.JoinedStr):
            return _Rename(self).visit(node)
        raise self.source.syntax_error(type(node).__name__, node)

    def chain(self, node):
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
            return gast.copy_location(gast.BinOp(self.chain(node.left), node.op,
                                                 self.chain(node.right)), node)
        return self.atom(node)

    def index(self, node):
        if isinstance(node, gast.Slice):
            parts = [None if p is None else self.atom(p) for p in (node.lower, node.upper, node.step)]
            return gast.copy_location(gast.Slice(*parts), node)
        if isinstance(node, gast.Tuple):
            return gast.copy_location(gast.Tuple([self.index(e) for e in node.elts], gast.Load()),
                                      node)
        return self.atom(node)


class _Rename(gast.NodeTransformer):
    """Point the names inside an opaque expression (an f-string) at their current versions."""

    def __init__(self, normalize: Normalize):
        self.normalize = normalize

    def visit_Name(self, node):
        return self.normalize.name(node)
