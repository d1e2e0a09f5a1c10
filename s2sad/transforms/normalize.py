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

import copy
import dataclasses
import operator
import types

import gast
import numpy as np

from .. import trees
from .. import registry
from ..codegen import unparse
from ..errors import DifferentiationError, NoDerivativeError, S2sadError
from ..names import Namer
from ..source import FunctionSource, note_attribute
from ..trees import clone
from .higher import is_generated


_AUG = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
        gast.MatMult: "@", gast.FloorDiv: "//", gast.Mod: "%", gast.BitOr: "|",
        gast.BitAnd: "&", gast.BitXor: "^", gast.LShift: "<<", gast.RShift: ">>"}


# the kinds of value a local name may hold whose methods' facts are known (x.fill(v): an
# array's, x.sort(): an array's or a list's)
_RECEIVERS = (np.ndarray, list, dict, tuple)


def _numpy_alias(namespace: dict) -> str | None:
    """A module's own name for NumPy (``np`` first), to desugar its methods with."""
    import numpy
    aliases = sorted(name for name, value in namespace.items() if value is numpy)
    return "np" if "np" in aliases else (aliases[0] if aliases else None)


def assigned_names(tree) -> set[str]:
    names = {a.id for a in tree.args.args + tree.args.posonlyargs + tree.args.kwonlyargs}
    for node in trees.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            names.add(node.id)
    return names


def carried_names(tree) -> set[str]:
    """Variables assigned inside an ``if``, ``for`` or ``while`` (including loop targets)."""
    names = set()
    for node in trees.walk(tree):
        if isinstance(node, (gast.If, gast.For, gast.While)):
            for inner in trees.walk(node):
                if isinstance(inner, gast.Name) and isinstance(inner.ctx, gast.Store):
                    names.add(inner.id)
        if _is_append(node):  # ys.append(v) changes ys in place
            names.add(node.value.func.value.id)
        if isinstance(node, (gast.Assign, gast.AugAssign)):  # y[i] = v changes y in place
            for target in getattr(node, "targets", [getattr(node, "target", None)]):
                if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                    names.add(target.value.id)
    return names


def _is_append(node) -> bool:
    return isinstance(node, gast.Expr) and isinstance(node.value, gast.Call) and \
        isinstance(node.value.func, gast.Attribute) and node.value.func.attr == "append" and \
        isinstance(node.value.func.value, gast.Name) and len(node.value.args) == 1 and \
        not node.value.keywords


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
    def __init__(self, source: FunctionSource, namer: Namer, parent: "Normalize | None" = None,
                 lexical: bool = False, numpy_name: str = "np"):
        self.numpy_name = numpy_name
        self.source = source
        self.namer = namer
        self.parent = parent              # the caller this function is inlined into
        self.lexical = lexical            # a nested def: free names are the caller's locals
        self.root = parent.root if parent else self
        self.anchor = parent.anchor_stmt() if parent else None
        self.inlining = (parent.inlining if parent else ()) + (source.func,)  # for recursion
        self.local_functions: dict[str, gast.FunctionDef] = {}
        # a parameter that the caller passed a function: ("inline", what callee() gives)
        # for the user's own (inlined where it is called), ("call", the caller's
        # expression) for one with a derivative rule (np.sin)
        self.function_args: dict[str, tuple] = {}
        self.nesting = 0  # blocks (of an `if` or a loop) around the statement normalized
        self.constants: dict = {}  # an inlined helper's read-only parameters given constants
        self.passed_names: dict[str, str] = {}  # a parameter -> the caller's variable given
        # (root) a variable holding an object of a user's class, whose methods are inlined:
        # ("param", path, class, names its own attributes hide, its members' descriptions)
        # for an argument or an object in its attributes (path "model" or "model.layer"),
        # ("value", object) for a module's object
        self.objects: dict[str, tuple] = {}
        self.descriptors: dict = {}  # (root) argument_descriptors
        self.foreign: dict[str, tuple] = {}   # alias -> (globals dict, name) of inlined code
        self.foreign_cells: dict = {}         # alias -> closure cell of inlined code
        self.locals = assigned_names(source.tree)
        self.current: dict[str, str] = {}
        # Which values may share memory (for refusing unsafe in-place updates): each local
        # name -> the memory blocks (numbers) its value may use; two names may share memory
        # when their sets meet.
        self.node: dict[str, frozenset] = {}
        self.holders: dict[str, set] = {}  # a value (its name) -> variables reaching it too
        # names given a list or dict display ([...], {...}, [None] * n), and names given
        # anything else: a slot of a list or dict the function made changes only that
        self.made: set[str] = set()
        self.unmade: set[str] = set()
        self.repeated: set[str] = set()  # lists that may hold one value in two slots
        self._blocks = 0
        self.callers: dict[int, str] = {}  # blocks the caller passed in -> argument
        # code s2sad generated (differentiated again) updates only what it made itself
        self.trusted = is_generated(source) or (parent is not None and parent.trusted)
        # (name, error): `x += e` on a shared value, an error unless x is a number; (name,
        # error, statement): or checked a number at run time before that statement
        self.deferred: list[tuple] = []
        # (names, error): a call of a function s2sad does not know given a value that
        # may share memory with these names; an error where one is active and not a number
        self.unknown_calls: list[tuple[set, Exception]] = []
        # (name, error): `ys[1:] = v`, an error where the kinds say ys is a list
        self.list_slices: list[tuple[str, Exception]] = []
        # (name, is the argument itself, error): `x += e` on a value sharing the caller's
        # memory, an error where x is an array (or is the argument's own list or dict)
        self.argument_updates: list[tuple[str, str, bool, Exception]] = []
        self.temps: set[str] = set()  # name -> the local it may share memory with
        self.out: list = []
        self.stmt = None
        # an inlined function: the user's lines that called it (file, line, text, column,
        # function), outermost first, and whether its own lines are shown in errors (not
        # s2sad's stand-ins or generated code)
        self.calls: tuple = ()
        self.shown = True
        self.walking: dict = {}  # a loop (its id) -> its variables known as every item
        # variables assigned inside `if`/`for`/`while` keep one name; the adjoint saves
        # and restores their overwritten values instead of renaming them
        self.carried = carried_names(source.tree)

    def run(self) -> gast.FunctionDef:
        tree = self.source.tree
        args = tree.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs:
            self.current[arg.id] = arg.id
            self.bind_caller(arg.id, arg.id)
        for stmt in tree.body:
            self.stmt = stmt
            self.statement(stmt)
        new = gast.FunctionDef(tree.name, args, self.out, [], None, None)
        return gast.copy_location(new, tree)

    # --- statements -----------------------------------------------------------------

    def emit(self, stmt):
        located = gast.copy_location(stmt, self.anchor or self.stmt)
        if self.calls:  # (inlined: an error in it names its own line, and the calls)
            located.origin = self.frames()
        self.out.append(located)

    def frames(self) -> tuple:
        """The user's lines that lead to the statement normalized now, outermost first:
        ``(file, line, text, column, function)`` each (:meth:`FunctionSource.error`)."""
        if not self.shown or self.stmt is None or getattr(self.stmt, "lineno", None) is None:
            return self.calls
        return self.calls + (self._frame(self.stmt.lineno, self.source._col(self.stmt)),)

    def _frame(self, lineno: int, col) -> tuple:
        source = self.source
        name = getattr(source.func, "__qualname__", None) or \
            getattr(source.tree, "shown_name", source.tree.name)
        return source.filename, lineno, source.line(lineno), col, name


    def with_calls(self, exc):
        """``exc``, an error located in this (inlined) function's code, with the user's
        lines that called it (``frames``); as it is where it has them, or is elsewhere."""
        if not self.calls or not self.shown or getattr(exc, "calls", ()) or \
                getattr(exc, "filename", None) != self.source.filename or \
                getattr(exc, "lineno", None) is None:
            return exc
        return exc.with_calls(self.calls + (self._frame(exc.lineno, exc.col),))

    def anchor_stmt(self):
        return self.anchor or self.stmt

    def statement(self, stmt):
        if isinstance(stmt, gast.FunctionDef):
            self.local_functions[stmt.name] = self._defined_here(stmt)
            return
        if not self.trusted and isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr,
                                                  gast.Return)):
            self._refuse_hidden_updates(stmt)
            self._refuse_missing_attributes(stmt)
            self._refuse_object_changes(stmt)
        if not self.trusted and isinstance(stmt, (gast.If, gast.While, gast.For)):
            self._refuse_object_changes(stmt, [stmt.iter] if isinstance(stmt, gast.For)
                                        else [stmt.test])
        if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Lambda) and \
                len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name):
            lam = stmt.value
            ret = gast.copy_location(gast.Return(lam.body), lam)
            fdef = gast.FunctionDef(stmt.targets[0].id, lam.args, [ret], [], None, None)
            fdef.shown_name = "<lambda>"
            self.local_functions[stmt.targets[0].id] = self._defined_here(
                gast.copy_location(fdef, lam))
            return
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript):
            target = stmt.targets[0]
            index = self.index(target.slice)
            self.setitem(stmt, target, index, self.atom(stmt.value))
            for extra in stmt.targets[1:]:
                self.assign(extra, self.atom(stmt.value))
            return
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Subscript):
            target = stmt.target
            index = self.index(target.slice)
            base = self.name(target.value)
            old = self.to_atom(gast.Subscript(base, clone(index), gast.Load()))
            self._refuse_slot_update(stmt, target.value.id, old.id)
            new = self.to_atom(gast.BinOp(old, stmt.op, self.atom(stmt.value)))
            self.setitem(stmt, target, index, new)
            return
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name) \
                and stmt.value.id in self.function_args:  # g = f, f a function passed in:
            self.function_args[stmt.targets[0].id] = self.function_args[stmt.value.id]
            return  # g stands for it too
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and not self.nesting and \
                isinstance(stmt.value, (gast.Name, gast.Attribute)) and \
                self._given_once(stmt.targets[0].id):
            function = self._function_argument(stmt.value)
            if function is not None:  # `act = np.tanh` (not in a branch or a loop): act(x)
                self.function_args[stmt.targets[0].id] = function  # is np.tanh(x)
                return
        if isinstance(stmt, gast.Assign):
            ref = self._object_ref(stmt.value) if len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], gast.Name) else None  # (layers = self.layers: known too)
            refs = [self._object_ref(v) for v in stmt.value.elts] if len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], (gast.Tuple, gast.List)) and isinstance(
                    stmt.value, (gast.Tuple, gast.List)) and \
                len(stmt.value.elts) == len(stmt.targets[0].elts) else []
            value = self.simple(stmt.value)
            if len(stmt.targets) > 1:
                value = self.to_atom(value)
            for target in stmt.targets:
                self.assign(target, value)
            if ref is not None and ref[0] != "module":
                self.root.objects[self.current[stmt.targets[0].id]] = ref
            self._named_parts(stmt, refs)
        elif isinstance(stmt, gast.AugAssign):
            self.augmented(stmt)
        elif _is_append(stmt) and stmt.value.func.value.id in self.locals:
            name = stmt.value.func.value.id
            mine = self.name(stmt.value.func.value)
            item = self.atom(stmt.value.args[0])
            func = gast.Attribute(mine, "append", gast.Load())
            self.emit(gast.Expr(gast.Call(func, [item], [])))
            self.carried.add(name)
            if mine.id in self.node:  # the list now holds (and shares memory with) the item
                self.node[mine.id] = self._blocks_of([mine.id] + self.views(item))
        elif isinstance(stmt, gast.Expr):
            if isinstance(stmt.value, gast.Constant):
                return  # docstring or a bare constant
            self.emit(gast.Expr(self.simple(stmt.value)))
        elif isinstance(stmt, gast.Return):
            value = stmt.value
            if isinstance(value, gast.Name) and value.id in self.locals and \
                    value.id not in self.carried:
                self.emit(gast.Return(self.atom(value)))
                return
            name = self.namer.claim("ret")
            self.emit(gast.Assign([self.store(name)], self.simple(value), None))
            self.emit(gast.Return(self.load(name)))
        elif isinstance(stmt, gast.Pass):
            return
        elif isinstance(stmt, gast.Break):
            self.emit(gast.Break())
        elif isinstance(stmt, gast.If) and stmt.__dict__.get("returned") is not None and \
                stmt.returned not in self.current:
            for inner in stmt.orelse:  # `if returned_1: return result_1` after a loop whose
                self.stmt = inner       # `return` (it sets both) was in a branch left out
                self.statement(inner)   # (`if early:` in a helper given early=False)
        elif isinstance(stmt, gast.If) and self._constant_test(stmt.test) is not None:
            # `if left is not None:` in an inlined helper given left=-1.0: the branch taken
            for inner in stmt.body if self._constant_test(stmt.test) else stmt.orelse:
                self.stmt = inner
                self.statement(inner)
        elif isinstance(stmt, gast.If):
            cond = self.condition(stmt.test)
            start = dict(self.node)
            body = self.block(stmt.body)
            after_body, self.node = self.node, start
            orelse = self.block(stmt.orelse)
            self.merge_nodes(after_body)  # either branch may have run
            self.emit(gast.If(cond, body, orelse))
            self._forget_objects(stmt)
        elif isinstance(stmt, gast.While):
            def run():
                test = _Rename(self).visit(clone(stmt.test))
                self.emit(gast.While(test, self.block(stmt.body), []))
            self.looping(stmt, run)
            for inner in stmt.orelse:  # no `break`: the `else` block always runs
                self.stmt = inner
                self.statement(inner)
        elif isinstance(stmt, gast.For) and self.unrolled(stmt):
            pass
        elif isinstance(stmt, gast.For):
            self.looping(stmt, lambda: self.loop(stmt))
            stored = {n.id for s in stmt.body for n in trees.walk(s)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            for name, ref in self.walking.pop(id(stmt), {}).items():
                if name not in stored and ref is not None:  # (after the loop, the variable
                    self.root.objects[self.current[name]] = ref  # is still one of them)
        else:  # Validate lets nothing else through
            raise self.source.syntax_error(type(stmt).__name__, stmt)

    def _refuse_derivative_made_here(self, call) -> None:
        """``s2sad.grad(inner)(x)`` inside the function differentiated: refused at its
        line (a gradient is inlined where it was made once, at module level)."""
        try:
            maker = _static(call.func, self)
        except KeyError:
            return
        if not getattr(maker, "__s2sad_maker__", False):
            return
        shown = unparse(call.func)
        raise self.source.syntax_error(
            f"making a derivative inside the function differentiated ({shown}(...))", call,
            f"Make it once at module level, of a function defined there (grad_g = "
            f"{shown}(g)), and call grad_g(...) here: s2sad inlines that gradient. A def "
            "nested in the function cannot be differentiated from inside it.")

    def _defined_here(self, fdef):
        """``fdef`` with its defaults evaluated here, where the ``def`` or ``lambda`` runs,
        as Python does (a call later reads these, not the names as they are then):
        ``defaults_at_def``, each parameter's atom, copied where a name may change."""
        values = {}
        params = fdef.args.posonlyargs + fdef.args.args
        for param, expr in zip(params[len(params) - len(fdef.args.defaults):],
                               fdef.args.defaults):
            values[param.id] = self._default_now(expr)
        for param, expr in zip(fdef.args.kwonlyargs, fdef.args.kw_defaults):
            if expr is not None:
                values[param.id] = self._default_now(expr)
        if not values:
            return fdef
        fdef = copy.copy(fdef)
        fdef.defaults_at_def = values
        return fdef

    def _default_now(self, expr):
        value = self.atom(expr)
        if isinstance(value, gast.Name) and value.id not in self.temps:
            return self.snapshot(value)  # (the variable may be given another value later)
        return value

    def _given_once(self, name: str) -> bool:
        """Is ``name`` given a value by one statement of the function only (no other
        assignment, loop variable or ``def`` of that name)?"""
        stores = sum(isinstance(n, gast.Name) and n.id == name and
                     isinstance(n.ctx, gast.Store) for n in trees.walk(self.source.tree))
        defs = any(isinstance(n, gast.FunctionDef) and n.name == name
                   for n in trees.walk(self.source.tree) if n is not self.source.tree)
        return stores == 1 and not defs

    def _constant_test(self, test):
        """The truth of an ``if`` test on constants once names are replaced (an inlined
        helper's parameter given a constant: ``None is not None``, ``"same" == "valid"``,
        ``keepdims and axis is None``), or None."""
        value = self._constant_value(_Rename(self).visit(clone(test)))
        return None if value is _NOT_CONSTANT else bool(value)

    def _constant_value(self, node):
        """The value of ``node`` (its names renamed) if constants alone make it, else
        ``_NOT_CONSTANT``."""
        if isinstance(node, gast.Name):
            return self._constant_of(node.id)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            value = self._constant_value(node.operand)
            return value if value is _NOT_CONSTANT else not value
        if isinstance(node, gast.BoolOp):  # (as Python: the operand that decides)
            for operand in node.values:
                value = self._constant_value(operand)
                if value is _NOT_CONSTANT or bool(value) is isinstance(node.op, gast.Or):
                    return value
            return value
        if isinstance(node, gast.Compare) and len(node.ops) == 1 and \
                type(node.ops[0]) in (gast.Is, gast.IsNot) and \
                _constant(node.comparators[0]) is None and \
                self._constant_value(node.left) is _NOT_CONSTANT:
            ref = self._renamed_ref(node.left)  # `self.act is not None`: a member known
            if ref is not None:
                return (ref[0] == "none") is isinstance(node.ops[0], gast.Is)
        if isinstance(node, gast.Compare) and len(node.ops) == 1:
            left, right = self._constant_value(node.left), \
                self._constant_value(node.comparators[0])
            op = _CONSTANT_COMPARE.get(type(node.ops[0]))
            if op is None or left is _NOT_CONSTANT or right is _NOT_CONSTANT:
                return _NOT_CONSTANT
            if op in (operator.is_, operator.is_not) and not any(
                    side is None or side is True or side is False for side in (left, right)):
                return _NOT_CONSTANT  # (`mode is "abc"`: Python's answer is not the parser's)
            try:
                return bool(op(left, right))
            except TypeError:  # (None < 0)
                return _NOT_CONSTANT
        return _constant(node)

    def block(self, stmts) -> list:
        """Normalize a nested block of statements into its own list."""
        saved, saved_stmt = self.out, self.stmt
        self.out = []
        self.nesting += 1
        try:
            for stmt in stmts:
                self.stmt = stmt
                self.statement(stmt)
        finally:
            self.nesting -= 1
        body, self.out, self.stmt = self.out, saved, saved_stmt
        return body

    def conditional(self, cond, body, orelse, normalized=(False, False)) -> gast.Name:
        """``body if cond else orelse`` as an ``if`` statement setting a temporary.
        ``normalized`` says which of the two is an atom made already (``a or b``: ``a``);
        the other is the user's expression, its names read as the user's (an inlined
        helper's ``v`` is its parameter, even where the caller has a ``v`` of its own)."""
        result = self.namer.temp()
        self.temps.add(result)
        branches, shares = [], []
        for expr, made in zip((body, orelse), normalized):
            saved, self.out = self.out, []
            value = expr if made else self.simple(expr)
            self.emit(gast.Assign([self.store(result)], value, None))
            branches.append(self.out)
            self.out = saved
            shares.extend(self.views(value))
        self.emit(gast.If(cond, *branches))
        self.bind(result, shares)
        return self.load(result)

    def condition(self, test, normalized: bool = False) -> gast.Name:
        """``cond_1 = <test>``: the branch taken, kept for the reverse sweep."""
        if not normalized:
            test = _Rename(self).visit(clone(test))
        if not isinstance(test, (gast.Compare, gast.BoolOp)) and not (
                isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not)):
            test = gast.Call(gast.Name("bool", gast.Load(), None, None), [test], [])
        name = self.namer.fresh("cond")
        self.emit(gast.Assign([self.store(name)], test, None))
        return self.load(name)

    def loop(self, stmt):
        """``for`` over ``range(...)`` stays; any other iterable is walked by index, so
        the loop variable is an ordinary subscript read: ``x = xs[i]``."""
        body_names = {n.id for s in stmt.body for n in trees.walk(s)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        iterable, target = stmt.iter, stmt.target
        builtin = self._builtin_call(iterable)
        if builtin == "range" and isinstance(target, gast.Name) and not (
                {n.id for n in trees.walk(iterable) if isinstance(n, gast.Name)} & body_names):
            header = self.simple(iterable)
            index = self.store(self.new_version(target.id))
            prelude, every = [], {}
        else:
            index_target, backwards, start = None, False, None

            def zipped(node, names) -> bool:  # zip(a, b) unpacked into as many names
                return self._builtin_call(node) == "zip" and isinstance(
                    names, (gast.Tuple, gast.List)) and len(names.elts) == len(node.args) \
                    and not node.keywords
            if zipped(iterable, target):
                sources, targets = iterable.args, list(target.elts)
            elif builtin == "enumerate" and isinstance(target, (gast.Tuple, gast.List)) and \
                    len(target.elts) == 2 and _enumerate_start(iterable) is not _NOT_CONSTANT:
                inner, start = iterable.args[0], _enumerate_start(iterable)
                if zipped(inner, target.elts[1]):  # for i, (x, y) in enumerate(zip(xs, ys))
                    sources, targets = inner.args, list(target.elts[1].elts)
                else:
                    sources, targets = [inner], [target.elts[1]]
                index_target = target.elts[0]
            elif builtin == "reversed" and len(iterable.args) == 1 and \
                    not iterable.keywords and self._builtin_call(iterable.args[0]) != "range":
                sources, targets = [iterable.args[0]], [target]  # (not of a range)
                backwards = True
            else:
                sources, targets = [iterable], [target]
            # a variable walking a list of alike objects whose methods the body calls: known
            # as every item (``for layer in self.layers: x = layer(x)``)
            every = {t.id: self._every_item(source) for t, source in zip(targets, sources)
                     if isinstance(t, gast.Name)}
            self.walking[id(stmt)] = every
            seqs = [self.sequence(source, body_names) for source in sources]
            if isinstance(index_target, gast.Name) and index_target.id not in body_names \
                    and not start:
                index = self.store(self.new_version(index_target.id))
            else:
                index = self.store(self.namer.fresh("i"))
            lengths = [gast.Call(self.load("len"), [s], []) for s in seqs]
            count = lengths[0] if len(lengths) == 1 else gast.Call(self.load("min"), lengths, [])
            if backwards:  # range(len(xs) - 1, -1, -1)
                last = self.to_atom(gast.BinOp(self.to_atom(count), gast.Sub(),
                                               gast.Constant(1, None)))
                header = gast.Call(self.load("range"), [last, gast.Constant(-1, None),
                                                        gast.Constant(-1, None)], [])
            else:
                header = gast.Call(self.load("range"), [count], [])
            prelude = [(t, gast.Subscript(clone(s), self.load(index.id), gast.Load()))
                       for t, s in zip(targets, seqs, strict=True)]
            if index_target is not None and index.id != getattr(index_target, "id", None):
                counted = self.load(index.id) if not start else gast.BinOp(  # (i set in the
                    self.load(index.id), gast.Add(), gast.Constant(start, None))  # body)
                prelude.insert(0, (index_target, counted))
            for _, read in prelude:  # (over a dict, DictViews reads its keys instead)
                read.walked = True
        saved = self.out
        self.out = []
        for t, read in prelude:  # x = xs[i] at the top of the body
            self.assign(t, read)
            if isinstance(t, gast.Name) and every.get(t.id) is not None:
                self.root.objects[self.current[t.id]] = every[t.id]
        reads, self.out = self.out, saved
        body = self.block(stmt.body)
        self.emit(gast.For(index, header, reads + body, [], None))
        for inner in stmt.orelse:
            self.stmt = inner
            self.statement(inner)

    def _every_item(self, source):
        """The reference of every item of ``source``, a list of alike objects of an
        argument's (``model.layers``), or None."""
        if any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
               for n in trees.walk(source)):
            return None
        ref = self._object_ref(source)
        return ref[2] if ref is not None and ref[0] == "seq" else None

    def unrolled(self, stmt) -> bool:
        """A ``for`` over a list of objects whose methods it calls (``for layer in
        self.layers: x = layer(x)``, also with ``enumerate``, ``reversed``, or ``zip`` with
        other sequences), written out item by item, so that each item's own class's
        methods are inlined; False (nothing done) for another loop. The gradient is built
        for lists of that length holding objects of those classes (the entry tests it). A
        loop that only reads the items' attributes (``np.sum(layer.w ** 2)``) stays a loop;
        one with ``break`` or ``continue``, or that gives its variable another value, is
        not written out. (Zipped with a sequence shorter than the objects, the written-out
        loop stops at an IndexError where Python's would stop early.)"""
        iterable, target, index_target, backwards = stmt.iter, stmt.target, None, False
        builtin, start = self._builtin_call(iterable), 0
        if builtin == "reversed" and len(iterable.args) == 1 and not iterable.keywords:
            iterable, backwards = iterable.args[0], True
        elif builtin == "enumerate" and isinstance(target, (gast.Tuple, gast.List)) and \
                len(target.elts) == 2 and iterable.args:
            given = iterable.args[1:] + [k.value for k in iterable.keywords if k.arg == "start"]
            start = _constant(given[0]) if given else 0
            if len(given) + 1 != len(iterable.args) + len(iterable.keywords) or \
                    type(start) is not int:
                return False
            iterable, (index_target, target) = iterable.args[0], target.elts
        if self._builtin_call(iterable) == "zip" and not iterable.keywords and \
                isinstance(target, (gast.Tuple, gast.List)) and \
                len(target.elts) == len(iterable.args):
            columns = list(zip(target.elts, iterable.args))  # (for layer, w in zip(...))
        else:
            columns = [(target, iterable)]
        names = [t.id for t, _ in columns if isinstance(t, gast.Name)]
        if len(names) != len(columns) or not any(_calls_with(stmt.body, n) for n in names) or \
                any(isinstance(n, (gast.Break, gast.Continue)) or isinstance(n, gast.Name) and
                    isinstance(n.ctx, gast.Store) and n.id in names
                    for s in stmt.body for n in trees.walk(s)):
            return False
        refs = [self._object_ref(seq) for _, seq in columns]
        if not any(ref is not None and ref[0] == "seq" for ref in refs):
            return False
        refs = [ref if ref is not None and ref[0] == "seq" else None for ref in refs]
        if all(ref is None or ref[2] is not None for ref in refs):
            return False  # (items alike: a loop, each one's methods inlined as any one's)
        from .kinds import _UNROLLED
        if any(ref is not None and len(ref[1]) > _UNROLLED for ref in refs):
            return False
        seqs = [self.atom(seq) for _, seq in columns]  # (each read once, as Python does)
        order = range(min(len(ref[1]) for ref in refs if ref is not None))
        for k in reversed(order) if backwards else order:
            if index_target is not None:
                self.assign(index_target, gast.Constant(start + k, None))
            for (name, _), seq, ref in zip(columns, seqs, refs):
                self.assign(name, gast.Subscript(clone(seq), gast.Constant(k, None),
                                                 gast.Load()))
                if ref is not None:
                    self.root.objects[self.current[name.id]] = ref[1][k]
            for inner in stmt.body:
                self.stmt = inner
                self.statement(inner)
        for inner in stmt.orelse:  # (no `break`: the `else` block runs)
            self.stmt = inner
            self.statement(inner)
        return True

    def comprehension(self, node, start=None):
        """``[e for x in xs if c]`` as a loop that appends; ``sum(e for ...)`` as one that adds.

        The comprehension's own variables get fresh names, as Python gives them their own scope.
        """
        node = clone(node)
        renames = {}
        for gen in node.generators:
            if gen.is_async:
                raise self.source.syntax_error("an async comprehension", node,
                                               "Use a plain comprehension.")
            for target in trees.walk(gen.target):
                if isinstance(target, gast.Name):
                    renames[target.id] = self.namer.claim(target.id)
        _RenameLocal(renames).visit(node)
        result = self.namer.temp()
        self.temps.add(result)
        self.carried.add(result)
        self.carried.update(renames.values())
        self.locals.update(renames.values())
        self.locals.add(result)
        for name in renames.values():
            self.current[name] = name
        if start is None:
            self.made.add(result)  # (a new list: a slot of it may be set)
            init = gast.List([], gast.Load())
            item = gast.Expr(gast.Call(gast.Attribute(self.load(result), "append", gast.Load()),
                                       [node.elt], []))
        else:
            init = start
            item = gast.Assign([self.store(result)], gast.BinOp(self.load(result), gast.Add(),
                                                                 node.elt), None)
        self.emit(gast.Assign([self.store(result)], self.simple(init), None))
        self.current[result] = result
        body = [gast.copy_location(item, node)]
        for gen in reversed(node.generators):
            for cond in reversed(gen.ifs):
                body = [gast.copy_location(gast.If(cond, body, []), node)]
            body = [gast.copy_location(gast.For(gen.target, gen.iter, body, [], None), node)]
        for stmt in body:
            self.statement(stmt)
        return self.load(result)

    def sequence(self, node, rebound=frozenset()) -> gast.expr:
        """An atom holding a sequence that can be indexed (``list(...)`` of an iterator).

        ``rebound``: names the loop body assigns. Python iterates over the sequence the
        name held when the loop began, so that one is kept under a name of its own."""
        if isinstance(node, gast.Name):
            value = self.name(node)
            return self.temporary(value) if node.id in rebound else value
        if self._builtin_call(node) == "range":
            return self.atom(node)
        value = self.simple(node)
        if isinstance(value, (gast.List, gast.Tuple)):  # a display can be indexed as it is
            return self.to_atom(value)
        return self.to_atom(gast.Call(self.load("list"), [self.to_atom(value)], []))

    def _builtin_call(self, node) -> str | None:
        import builtins
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id not in self.locals:
            try:
                value = self.source.resolve(node.func.id)
            except KeyError:
                return None
            for name in ("range", "zip", "enumerate", "sum", "reversed", "super"):
                if value is getattr(builtins, name):
                    return name
        return None

    def assign(self, target, value):
        if isinstance(target, gast.Name):
            self.function_args.pop(target.id, None)  # (a name given a value of its own)
            own = {target.id, self.current.get(target.id)}  # (a parameter of an inlined
            if target.id in self.carried and not self.is_atom(value) and any(  # helper may
                    isinstance(n, gast.Name) and n.id in own for n in trees.walk(value)):
                value = self.to_atom(value)  # `b = b * 2` -> `t_1 = b * 2; b = t_1` (be y_1)
            shares = self.views(value)  # (read before the name gets its new value)
            ssa = self.new_version(target.id)
            self.emit(gast.Assign([self.store(ssa)], value, None))
            self.bind(ssa, shares)
            self.hold(target.id, ssa, value)
            made = self._made_here(value) or \
                self._container_copy(value) is not None  # (a copy of a dict or list)
            (self.made if made else self.unmade).add(ssa)
            if isinstance(value, gast.BinOp) and any(  # [h] * 2, ys + ys: a value in two
                    isinstance(side, gast.List) or isinstance(side, gast.Name) and  # slots
                    side.id in self.made for side in (value.left, value.right)):
                self.repeated.add(ssa)
            return
        if isinstance(target, gast.Subscript):  # `z[0], z[1] = z[1], z[0]`: stored in its
            index = self.index(target.slice)    # turn, its index read then (as Python does)
            self.setitem(self.stmt, target, index, self.to_atom(value))
            return
        elts = target.elts
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(elts):
            # the right side's parts are atoms already, all evaluated before any target
            parts = value.elts
            if any(isinstance(t, gast.Name) and t.id in self.carried for t in elts):
                parts = [self.snapshot(v) for v in parts]  # `a, b = b, a` on kept names
            shown = self._right_side_of(target)
            for k, (t, v) in enumerate(zip(elts, parts, strict=True)):
                self._stored_before_read(t, parts[k + 1:], shown[k + 1:])
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
        whole = [source.id] if isinstance(source, gast.Name) else []
        for stored in names:  # parts of a value share its memory (an array's rows are views
            # of it; a list's items are the arrays it holds) and what it shares
            self.bind(stored.id, whole)
        shown = self._right_side_of(target)
        for k, (elt, temp) in enumerate(nested):
            self._stored_before_read(elt, [t for _, t in nested[k + 1:]], shown[k + 1:])
            self.assign(elt, temp)

    def _right_side_of(self, target) -> list:
        """The user's expressions the parts of the tuple ``target`` of this statement are
        given, one per part (the whole right side for each, when it is no display)."""
        stmt = self.stmt
        pairs = [(t, stmt.value) for t in stmt.targets] if isinstance(stmt, gast.Assign) \
            else []
        while pairs:
            t, v = pairs.pop()
            alike = isinstance(t, (gast.Tuple, gast.List)) and isinstance(
                v, (gast.Tuple, gast.List)) and len(t.elts) == len(v.elts)
            if t is target:
                return list(v.elts) if alike else [v] * len(target.elts)
            if alike:
                pairs += zip(t.elts, v.elts)
        return []

    def _stored_before_read(self, target, later, shown) -> None:
        """``z[0:2], z[2:4] = z[2:4], z[0:2]``: Python stores the parts in turn, so a part
        stored later that is a view of ``z`` (a slice, a row) holds the values the earlier
        store wrote. Refused when such a part may share ``z``'s memory (unless it turns out
        a number: ``z[1]`` of a vector is a copy)."""
        if not isinstance(target, gast.Subscript) or self.trusted:
            return
        name = target.value.id
        mine = self.current.get(name)
        if mine is None or mine in self.made and mine not in self.unmade:
            return  # (a list's slot: storing into it changes no item)
        blocks = self.node.get(mine, frozenset())
        for k, part in enumerate(later):
            if not isinstance(part, gast.Name) or not blocks & self.node.get(part.id, blocks):
                continue
            what = f"`{unparse(shown[k]).strip()}`" if k < len(shown) else "a part"
            error = self.source.syntax_error(
                f"storing into {name!r} before the right side's {what} is stored: it may be "
                f"a view of {name!r}, so Python would store the values changed", self.stmt,
                f"Copy what the right side reads from {name!r} first, e.g. "
                f"`{what.strip('`')}.copy()`." if k < len(shown) else
                f"Copy what the right side reads from {name!r} first (`.copy()`).")
            self.root.deferred.append((part.id, self.with_calls(error)))
            return
    def _made_here(self, value) -> bool:
        """Is ``value`` a list or dict made here, that no other name holds: a display, a
        comprehension's list, ``[h] * n``, ``[a] + ys``, ``list(...)`` (a copy)? A slot
        of it may be set: that changes the slot, not the values the slots hold."""
        def made(node) -> bool:  # (a temporary holding a display or a comprehension's list)
            return isinstance(node, (gast.List, gast.Dict)) or isinstance(node, gast.Name) \
                and node.id in self.temps and node.id in self.made
        return made(value) or isinstance(value, gast.BinOp) and (
            isinstance(value.left, gast.List) or isinstance(value.op, (gast.Add, gast.Mult))
            and (made(value.left) or made(value.right))) or (  # [None] * n
            isinstance(value, gast.Call) and self._callee(value.func) is list)  # a copy

    def _refuse_hidden_updates(self, stmt):
        """A call that changes an array or list in place (``x.sort()``, ``x.fill(v)``,
        ``out=x``, ``np.copyto(x, v)``...): the reverse sweep cannot see it, so it is
        refused, never differentiated wrongly. ``xs.append(v)`` on a list the function
        made is the exception (it is followed)."""
        for node in trees.walk(stmt):
            if not isinstance(node, gast.Call):
                continue
            func, changed, what, hint = node.func, None, None, None
            callee = self._callee(func)
            method = self._method_facts(func.attr) if isinstance(func, gast.Attribute) \
                else None  # (what a method of that name does to an array, list or dict)
            mutating = method is not None and 0 in method.mutates
            if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                    func.value.id in self.locals and mutating:
                changed, what = func.value.id, f"`{func.value.id}.{func.attr}(...)`"
                hint = "" if func.attr == "append" else method.advice.format(n=changed)
                holder = next((h for h in sorted(self.holders.get(
                    self.current.get(changed), ())) if h != changed and
                    self._read_later(stmt, h)), None)
                if func.attr == "append" and holder is not None and not self.trusted:
                    raise self.source.syntax_error(
                        f"`{changed}.append(...)` on a list that {holder!r} reaches too",
                        stmt, f"The reverse sweep follows the list by the name {changed!r} "
                        f"only, so {holder!r} would be differentiated as if it had not "
                        f"changed. Append before the list is shared, or make a new one: "
                        f"`{changed} = {changed} + [...]`.")
                if func.attr == "append" and \
                        self.current.get(changed) not in set(self.callers.values()):
                    continue  # a list the function made: followed
            elif isinstance(func, gast.Attribute) and isinstance(
                    func.value, (gast.Subscript, gast.Attribute)) and callee is None and \
                    mutating:
                root = func.value  # d["a"].append(v): a list held in d, changed unseen
                while isinstance(root, (gast.Subscript, gast.Attribute)):
                    root = root.value
                holder = root.id if isinstance(root, gast.Name) else "a container"
                raise self.source.syntax_error(
                    f"`{unparse(func)}(...)`, which changes a value held in "
                    f"{holder!r} in place where the reverse sweep cannot see it", stmt,
                    "Give the list a name of its own, append to it (or build it whole), and "
                    "put it in afterwards.")
            elif isinstance(func, gast.Attribute) and isinstance(func.value, gast.Call) and \
                    callee is None and mutating and self._may_return_argument(func.value):
                names = [n.id for n in trees.walk(func.value) if isinstance(n, gast.Name)
                         and n.id in self.locals and n.id in self.current]
                if not names:
                    continue  # (np.zeros(3).fill(v): a value made on the line)
                changed, what = names[0], f"`{unparse(func).strip()}(...)`"
                hint = method.advice.format(n=changed)  # x.reshape(3).fill(v) changes x
            elif any(k.arg == "out" for k in node.keywords):
                out = next(k.value for k in node.keywords if k.arg == "out")
                if isinstance(out, gast.Constant) and out.value is None:
                    continue
                names = [n.id for n in trees.walk(out) if isinstance(n, gast.Name)]
                changed = names[0] if names else "out"
                what = "`out=`"
                hint = f"Assign the result instead: `{changed} = np.multiply(...)`."
            elif (written := _mutated_argument(node, registry.facts(callee))) is not None:
                # np.copyto(y, v), heapq.heappush(ys, v), operator.iadd(y, v), np.clip(y,
                # 0, 1, y): an argument the function's facts say it writes into
                names = [n.id for n in trees.walk(written[1]) if isinstance(n, gast.Name)]
                ref = self._object_ref(written[1])
                if not names or ref is not None and ref[0] == "seq":
                    continue  # (a value made on the line, np.copyto(np.zeros(3), v); a list
                    # of objects: _refuse_object_changes)
                changed = names[0]
                if written[0] == "out":
                    what = f"`{self._dotted(func)}(...)` with an output array after its inputs"
                    hint = f"Assign the result instead: `{changed} = {self._dotted(func)}(...)`."
                else:
                    what = f"`{self._dotted(func)}({changed}, ...)`"
                    hint = written[2].format(n=changed) or \
                        f"Make a new array, or assign into it: `{changed}[...] = ...`."
            if changed is None:
                continue
            # the argument itself (a list holding the caller's arrays is the function's own)
            owner = self.current.get(changed)
            if owner in set(self.callers.values()):
                raise self.source.syntax_error(
                    f"an in-place update of the argument {owner!r}", stmt,
                    f"{what} would change the caller's value. Work on a copy "
                    f"(`{changed} = {owner}.copy()`) or compute a new value. {hint}".strip())
            raise self.source.syntax_error(
                f"{what}, which changes {changed!r} in place where the reverse sweep cannot "
                "see it", stmt, hint or "Compute a new value and assign it.")

    def _may_return_argument(self, call) -> bool:
        """May ``call`` (user code, not normalized) return one of its arguments, or a view
        of one (``x.reshape(3)``, ``np.asarray(x)``)? A new container holding the same items
        (``sorted(ys)``, ``ys.copy()``) is not: changing it leaves the argument as it was."""
        callee = self._callee(call.func)
        if callee is None and isinstance(call.func, gast.Attribute):
            found = self._method_facts(call.func.attr)
            if call.func.attr == "copy" and found is not None:
                return False  # (an array's, a list's, a dict's copy)
        else:
            found = registry.facts(callee)
        if found is None:
            return True
        if found.returns_view_of == "*":
            import builtins
            return getattr(callee, "__module__", None) not in (builtins.__name__, copy.__name__)
        return bool(found.returns_view_of or found.uncopied_view_of)

    def _refuse_object_changes(self, stmt, parts=None):
        """A list of objects changed in place (``self.layers.append(l)``, ``layers[0] =
        l``, ``layers += [l]``, through any name it has), or given where s2sad cannot follow
        it (into a display, a function not inlined, ``ls, k = layers, 1`` is followed), and
        ``setattr``, ``delattr``, ``vars``, ``__setattr__``, ``__dict__``: s2sad reads
        which objects a list holds, and an object's attributes, when it builds the
        gradient, so these are refused, never differentiated as if nothing changed.
        ``parts``: the expressions of a compound statement to look at (an ``if``'s test)."""
        import builtins
        targets = [stmt.target] if isinstance(stmt, gast.AugAssign) else [
            t.value for t in getattr(stmt, "targets", ()) if isinstance(t, gast.Subscript)]
        parents = {id(part): stmt for part in parts or ()}  # (an if's test: in the if)
        for root in parts if parts is not None else [stmt]:
            for node in trees.walk(root):
                for child in gast.iter_child_nodes(node):
                    parents[id(child)] = node
        for root in parts if parts is not None else [stmt]:
            for node in trees.walk(root):
                changed = None
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                        node.func.attr not in ("index", "count", "copy"):
                    changed = node.func.value
                if node in targets:
                    changed = node
                if changed is not None:
                    ref = self._object_ref(changed)
                    if ref is not None and ref[0] == "seq":
                        raise self.source.syntax_error(
                            f"a change to the list of objects {unparse(changed)!r} in place",
                            stmt, "s2sad reads which objects the list holds when it builds "
                            "the gradient; make a new list instead (`layers = layers + "
                            "[extra]`).")
                if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                        any(self._callee(node) is f for f in (builtins.setattr,
                                                              builtins.delattr, builtins.vars)) \
                        or isinstance(node, gast.Attribute) and node.attr in _OBJECT_STATE:
                    raise self.source.syntax_error(
                        f"{unparse(node)}, which reads or changes an object's attributes as "
                        "a dict", stmt, "Read attributes by name (self.w), and keep new "
                        "values in variables or pass them in as arguments.")
                if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)) and \
                        isinstance(node.ctx, gast.Load) and \
                        not self._followed(node, parents.get(id(node)), stmt):
                    raise self.source.syntax_error(
                        f"{unparse(node)!r}, a list of objects, where s2sad cannot follow "
                        "it", stmt, "Loop over it, index it (layers[0]), give it a name "
                        "(layers = self.layers), or pass it to a function of yours; s2sad "
                        "reads which objects it holds when it builds the gradient.")

    def _followed(self, node, parent, stmt) -> bool:
        """Is ``node`` not a list of objects, or one used where s2sad follows it (looped
        over, indexed, named, passed to a function of the user's or to ``len``...)?"""
        import builtins
        ref = self._object_ref(node)
        if ref is None or ref[0] != "seq":
            return True
        if isinstance(parent, (gast.Attribute, gast.Subscript)) and parent.value is node or \
                isinstance(parent, (gast.Compare, gast.For, gast.comprehension, gast.Expr,
                                    gast.If, gast.While)) or \
                isinstance(parent, gast.UnaryOp) and isinstance(parent.op, gast.Not):
            return True  # (looped over, indexed, a method of it called, tested)
        if isinstance(parent, gast.Assign) and len(parent.targets) == 1 and \
                isinstance(parent.targets[0], gast.Name):
            return True
        if isinstance(parent, (gast.Tuple, gast.List)) and isinstance(stmt, gast.Assign) and \
                stmt.value is parent and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], (gast.Tuple, gast.List)) and \
                len(stmt.targets[0].elts) == len(parent.elts) and \
                all(isinstance(t, gast.Name) for t in stmt.targets[0].elts):
            return True  # (ls, k = self.layers, 1.0: ls is followed)
        if isinstance(parent, gast.Call) and node is not parent.func:
            called = self._callee(parent.func)
            return self.callee(parent.func) is not None or any(called is f for f in (
                builtins.len, builtins.list, builtins.tuple, builtins.enumerate, builtins.zip,
                builtins.reversed, builtins.iter, builtins.isinstance, builtins.print,
                builtins.id, builtins.type, builtins.repr, builtins.str))
        return False

    def _refuse_missing_attributes(self, stmt):
        """``np.not_a_function(x)``: a module attribute that does not exist is an undefined
        name, said so at its line (not a missing derivative rule, nor an AttributeError
        inside the generated code)."""
        for node in trees.walk(stmt):
            if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load):
                base = self._callee(node.value)
                if isinstance(base, types.ModuleType) and not hasattr(base, node.attr):
                    dotted = self._dotted(node)
                    raise self.source.error(
                        DifferentiationError, f"name {dotted!r} is not defined: module "
                        f"{base.__name__!r} has no attribute {node.attr!r}", node,
                        "Check the spelling, or define the function in your module.")

    def _callee(self, func):
        """The object a call's function expression names (``np.copyto``), or None."""
        if isinstance(func, gast.Name):
            if func.id in self.locals:
                return None
            try:
                return self.source.resolve(func.id)
            except KeyError:
                return None
        if isinstance(func, gast.Attribute):
            base = self._callee(func.value)
            return getattr(base, func.attr, None) if base is not None else None
        return None

    @staticmethod
    def _dotted(func) -> str:
        if isinstance(func, gast.Attribute):
            return f"{Normalize._dotted(func.value)}.{func.attr}"
        return func.id if isinstance(func, gast.Name) else "..."

    def setitem(self, stmt, target, index, value):
        """``y[i] = v``: allowed on arrays and lists the function made itself."""
        name = target.value.id
        if name not in self.locals or name not in self.current:
            raise self.source.syntax_error(
                f"assignment into {name!r}, which is not a local variable", stmt,
                f"Copy it first (`{name} = {name}.copy()`) and update the copy.")
        mine = self.current[name]
        if mine in self.made and mine not in self.unmade:  # its slot, not what it holds
            if isinstance(index, gast.Slice) and not self.trusted:
                raise self._list_slice_error(stmt, name)
            holder = None if self.trusted else next((h for h in sorted(self.holders.get(
                mine, ())) if h != name and self._read_later(stmt, h)), None)
            if holder is not None:
                raise self.source.syntax_error(
                    f"an in-place update of {name!r}, which {holder!r} reaches too", stmt,
                    f"Copy first (`{name} = list({name})` or `dict({name})`), so that "
                    f"{holder!r} keeps its value.")
            self.emit(gast.Assign([gast.Subscript(self.load(mine), index, gast.Store())],
                                  value, None))
            self.node[mine] = self._blocks_of([mine] + self.views(value))  # it holds value
            if isinstance(value, gast.Name):
                self.holders.setdefault(value.id, set()).add(name)
            return
        owners = self.sharing(name)
        owner = None if self.trusted else self.caller_of(mine)
        if owner is not None:
            raise self.source.syntax_error(
                f"an in-place update of the argument {owner!r}", stmt,
                f"It would change the caller's value. Work on a copy: "
                f"`{name} = {owner}.copy()`.")
        reader = None if self.trusted else \
            next((k for k in owners if self._read_later(stmt, k)), None)
        if reader is not None:
            error = self.source.syntax_error(
                f"an in-place update of {name!r}, which shares its memory with {reader!r}",
                stmt, f"Copy first (`{name} = {reader}.copy()`), so that {reader!r} keeps "
                "its value.")
            if self.current.get(reader) is None:
                raise error
            # `a = z[2]` shares nothing if it is a number: refused once the kinds say it is not
            self.root.deferred.append((self.current[reader], self.with_calls(error)))
        if isinstance(index, gast.Slice) and not self.trusted:  # (a list from a helper)
            self.root.list_slices.append((mine, self.with_calls(self._list_slice_error(
                stmt, name))))
        subscript = gast.Subscript(self.load(mine), index, gast.Store())
        self.emit(gast.Assign([subscript], value, None))
        if reader is not None:  # (or checked a number at run time, before the store)
            self.root.deferred[-1] += (self.out[-1],)

    def augmented(self, stmt):
        """``x += e`` is ``x = x + e``, unless ``x`` may be an array shared with another name
        that is read later: then ``+=`` would change that one too, so it is refused."""
        target = stmt.target
        mine = self.current.get(target.id)
        deferred = len(self.root.deferred)
        sharing = self.sharing(target.id) if mine is not None and not self.trusted else []
        user = next((k for k in sharing if self._read_later(stmt, k)), None)
        if mine is not None and user is None and self.parent is not None and not self.trusted:
            param = self.caller_of(mine)  # a helper's parameter: the caller's value itself
            if param in self.passed_names:
                self.root.deferred.append((mine, self.with_calls(self.source.syntax_error(
                    f"`{target.id} {_AUG[type(stmt.op)]}= ...` on {param!r}, which holds the "
                    f"caller's {self.passed_names[param]!r}", stmt,
                    f"If they are arrays, `{_AUG[type(stmt.op)]}=` changes the caller's "
                    f"{self.passed_names[param]!r} too. Write `{target.id} = {target.id} "
                    f"{_AUG[type(stmt.op)]} ...` for a new value."))))
        owner = self.caller_of(mine) if mine is not None and user is None and \
            self.parent is None and not self.trusted else None
        if owner is not None:  # x += v on the argument x: the caller's array changes
            error = self.source.syntax_error(
                f"an in-place update of the argument {owner!r}", stmt,
                f"If it is an array, `{target.id} {_AUG[type(stmt.op)]}= ...` changes the "
                f"caller's value. Write `{target.id} = {target.id} {_AUG[type(stmt.op)]} ...` "
                "for a new value.")
            self.root.argument_updates.append((mine, owner, mine == owner, error))
        if mine is not None and user is not None:
            # on numbers `+=` makes a new value: refused later, once the kinds say an array
            self.root.deferred.append((mine, self.with_calls(self.source.syntax_error(
                f"`{target.id} {_AUG[type(stmt.op)]}= ...` on a value shared with {user!r}",
                stmt, f"If they are arrays, `{_AUG[type(stmt.op)]}=` changes {user!r} too. "
                f"Write `{target.id} = {target.id} {_AUG[type(stmt.op)]} ...` for a new value, "
                f"or copy first: `{target.id} = {user}.copy()`."))))
        value = gast.copy_location(gast.BinOp(gast.Name(target.id, gast.Load(), None, None),
                                              stmt.op, stmt.value), stmt)
        out, at, refusals = self.out, len(self.out), self.root.deferred[deferred:]
        self.statement(gast.copy_location(gast.Assign([target], value, None), stmt))
        if len(out) > at:  # (each may be a check at run time, before the update: a number)
            self.root.deferred[deferred:deferred + len(refusals)] = [
                (name, error, out[at]) for name, error in refusals]

    def _list_slice_error(self, stmt, name: str):
        """``ys[1:] = [a, b]``, ``ys[::-1] = ys`` on a list: Python may change its length
        and copies an iterable of any kind first; s2sad refuses it at the line."""
        return self.source.syntax_error(
            f"an assignment to a slice of the list {name!r}", stmt,
            "It may change the list's length, and copies any iterable first. Build a new "
            f"list instead: `{name} = {name}[:i] + [...] + {name}[j:]`.")

    def _refuse_slot_update(self, stmt, name: str, item: str) -> None:
        """``ys[0] += v`` on a list (or dict) made here: Python runs ``item += v`` on the
        slot's value, so an array there (``ys = [z]``) changes in place, and ``z`` with it.
        Refused once the kinds say ``item`` is not a number, where another name that
        shares its memory is read later."""
        mine = self.current.get(name)
        if self.trusted or mine not in self.made or mine in self.unmade:
            return
        blocks = self.node.get(item, frozenset())
        others = sorted(k for k, v in self.current.items() if k != name and
                        blocks & self.node.get(v, frozenset()))
        user = next((k for k in others if self._read_later(stmt, k)), None)
        if user is None and (others or mine in self.repeated) and \
                self._read_later(stmt, name):
            user = name  # (ys = [z, z] or [h] * 2: another slot may hold the same array)
        if user is None:
            return
        op, slot = _AUG[type(stmt.op)], unparse(stmt.target).strip()
        shared = f"shared with {user!r}" if user != name else \
            f"that another slot of {name!r} may hold (it is shared)"
        self.root.deferred.append((item, self.with_calls(self.source.syntax_error(
            f"`{slot} {op}= ...` on a slot holding a value {shared}", stmt,
            f"If the slot holds an array, `{op}=` changes it in place, and {user!r} too. "
            f"Write `{slot} = {slot} {op} ...` for a new value, or put a copy in the slot "
            "(`.copy()`)."))))

    # --- which values may share memory -----------------------------------------------

    def _blocks_of(self, shares=(), new: bool = False) -> frozenset:
        blocks = set()
        for name in shares:
            blocks |= self.node.get(name, frozenset())
        if new or not blocks:
            self._blocks += 1
            blocks.add(self._blocks)
        return frozenset(blocks)

    def bind(self, name: str, shares=()) -> None:
        """``name`` holds a new value, sharing memory with the values of ``shares`` (a name
        given a new value no longer shares memory with what it held)."""
        self.node[name] = self._blocks_of(shares)

    def bind_caller(self, name: str, argument: str) -> None:
        """``name`` holds the value the caller passed as ``argument``."""
        self.node[name] = self._blocks_of(new=True)
        self.callers[self._blocks] = argument

    def hold(self, name: str, ssa: str, value) -> None:
        """Note which variables reach the same list as another: ``b = a`` (both),
        ``inner = outer[0]`` (inner's list is in outer), ``outer = [a, 1.0]`` or
        ``d = {"a": a}`` (a's list is in the display). An ``append`` to a list that
        another variable reaches is refused where that one is read later: the reverse
        sweep follows the list by its own name only."""
        def user(atom: str) -> str:
            return next((k for k, v in self.current.items() if v == atom), atom)
        if isinstance(value, gast.Name):
            self.holders.setdefault(value.id, set()).add(name)
            self.holders.setdefault(ssa, set()).add(user(value.id))
        elif isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            self.holders.setdefault(ssa, set()).add(user(value.value.id))
        elif isinstance(value, (gast.List, gast.Tuple, gast.Dict)):
            for part in value.values if isinstance(value, gast.Dict) else value.elts:
                if isinstance(part, gast.Name):
                    self.holders.setdefault(part.id, set()).add(name)

    def caller_of(self, name: str) -> str | None:
        """The argument whose value ``name`` may share memory with, if any."""
        blocks = self.node.get(name, frozenset())
        return next((self.callers[b] for b in sorted(blocks) if b in self.callers), None)

    def sharing_any(self, atom: str) -> bool:
        """May the value of ``atom`` (a local or temporary) share memory with another?"""
        if atom not in self.node:
            return True
        blocks = self.node[atom]
        return any(b in self.callers for b in blocks) or any(
            blocks & other for name, other in self.node.items() if name != atom)

    def sharing(self, name: str) -> list[str]:
        """The other user variables whose values may share memory with ``name``'s."""
        blocks = self.node.get(self.current[name], frozenset())
        return sorted(k for k, v in self.current.items()
                      if k != name and blocks & self.node.get(v, frozenset()))

    def merge_nodes(self, other: dict) -> None:
        """After a branch (or a loop) either of two states may hold: a name may hold either
        value."""
        for name, theirs in other.items():
            self.node[name] = self.node.get(name, frozenset()) | theirs

    def _classes(self) -> frozenset:
        """Which user variables may share memory (with each other, with the caller)."""
        holders: dict[int, set] = {}
        for name, ssa in self.current.items():
            for b in self.node.get(ssa, ()):
                holders.setdefault(b, set()).add(name)
        return frozenset((frozenset(names), b in self.callers) for b, names in holders.items())

    def views(self, value) -> list[str]:
        """The local names whose memory the (normalized) ``value`` may share: the value
        itself, an item or slice of it, a view (``.T``, ``.reshape``, ``np.asarray``...),
        a list or tuple holding it, what a call returns where its facts say it may be an
        argument (``x.conj()``, ``d.get(k)``) or where it has no facts (any argument)."""
        if isinstance(value, gast.Name):
            return [value.id]
        if isinstance(value, gast.Subscript):
            return self.views(value.value)
        if isinstance(value, gast.Attribute):
            if not (isinstance(value.value, gast.Name) and value.value.id in self.node):
                return []  # (np.pi, a module's constant)
            found = self._method_facts(value.attr)  # x.T, x.real: views; x.shape: not;
            return self.views(value.value) if found is None or found.returns_view_of or \
                found.mutates else []  # (x.fill: a bound method holding x, which it changes)
        if isinstance(value, (gast.Tuple, gast.List)):
            return [n for elt in value.elts for n in self.views(elt)]
        if isinstance(value, gast.Dict):
            return [n for v in value.values for n in self.views(v)]
        if isinstance(value, gast.IfExp):
            return self.views(value.body) + self.views(value.orelse)
        if isinstance(value, gast.BinOp) and any(isinstance(side, (gast.List, gast.Tuple))
                                                 for side in (value.left, value.right)):
            return self.views(value.left) + self.views(value.right)  # [a] * 2, [a] + ys
        if self._container_copy(value) is not None:  # d.copy(): the same items as d
            return [self._container_copy(value)]
        if isinstance(value, gast.Call):
            found, args = self._call_facts(value)
            if found is None:  # not known: it may return any argument, or a view of one
                return [n for a in args + [k.value for k in value.keywords]
                        for n in self.views(a)]
            # x.astype(t, copy=False), np.array(x, copy=None): x itself where no copy is needed
            given = [k.value for k in value.keywords if k.arg == "copy"]
            place = _copy_position(self._callee(value.func)) if found.uncopied_view_of \
                else None  # (np.nan_to_num(x, False): copy by position)
            if place is not None and place < len(value.args):
                given.append(value.args[place])
            uncopied = any(not (isinstance(v, gast.Constant) and v.value is True)
                           for v in given)
            if found.returns_view_of == "*":
                return [n for a in args + [k.value for k in value.keywords]
                        for n in self.views(a)]
            positions = set(found.returns_view_of) | (
                set(found.uncopied_view_of) if uncopied else set())
            return [n for i, a in enumerate(args) if i in positions for n in self.views(a)]
        return []

    def _container_copy(self, value) -> str | None:
        """``d`` of ``d.copy()`` (normalized) where ``d`` holds a dict or list made here, or
        given as the function's argument: its copy is a new one holding the same items."""
        if not (isinstance(value, gast.Call) and value.__dict__.get("copied") and
                value.args and isinstance(value.args[0], gast.Name)):
            return None
        name = value.args[0].id
        given = self.root.descriptors.get(name) if self.parent is None else None
        if name in self.made and name not in self.unmade or \
                type(given) is tuple and given[0] in ("dict", "list"):
            return name
        return None
    def _call_facts(self, call) -> tuple:
        """``(facts, arguments)`` of a normalized call: the :class:`registry.Facts` of
        its function (None where not known), and its positional arguments, a method's
        receiver first (``x.fill(v)``: ``[x, v]``). A method desugared into a NumPy
        function (``x.conj()``, ``np.conj(x)``) has the facts of both."""
        func, args = call.func, list(call.args)
        callee = self._callee(func)  # (a module's object's method: model.act, np.cos)
        if callee is None and isinstance(func, gast.Attribute) and \
                isinstance(func.value, gast.Name) and \
                func.value.id in self.node:  # a method of a local value: x.reshape(3)
            found = self._method_facts(func.attr)
            args = [func.value] + args
        elif isinstance(func, gast.Name) and func.id in self.function_args and \
                self.function_args[func.id][0] == "call":
            found = registry.facts(self._callee(self.function_args[func.id][1]))
        else:
            found = registry.facts(callee)
        method = registry.facts(call.__dict__.get("method"))
        if found is not None and method is not None:  # (the method's own views too)
            found = found.union(method)
        return found, args

    def _note_unknown_call(self, call) -> None:
        """A call of a function without facts (no rule, not inlined, not known to change
        nothing): it may change what it is given in place, or keep it. Refused (once the
        activity is known: ``unknown_calls``) where it is given a mutable value, or a
        container holding one, that shares memory with a value the gradient follows."""
        found, args = self._call_facts(call)
        if found is not None:
            return
        given = [a for a in args + [k.value for k in call.keywords]
                 if isinstance(a, gast.Name) and a.id in self.node]
        if isinstance(call.func, gast.Name) and call.func.id in self.node:
            held = call.func.id  # (fill = z.fill; fill(1.0): the method holds z)
            shown = self.namer.users.get(held, held)
            self.root.unknown_calls.append((
                {held} | {n for n, o in self.node.items() if o & self.node[held]},
                self.with_calls(self.source.error(
                    NoDerivativeError, f"{shown}(...), which calls a value held by a "
                    "variable that reaches a value the gradient follows (a bound method: "
                    f"`{shown} = z.fill`); s2sad does not know whether it changes that value "
                    "in place", call, "Call the method on the value itself "
                    "(`z.fill(v)` is refused or followed where s2sad knows what it does).")))
                )
        if not given:
            return
        dotted = self._dotted(call.func) if not isinstance(call.func, gast.Name) or \
            call.func.id not in self.namer.temporaries else "this function"
        for arg in given:
            reached = {arg.id} | {name for name, other in self.node.items()
                                  if other & self.node[arg.id]}
            shown = self.namer.users.get(arg.id, arg.id)
            what = repr(shown)
            if arg.id in self.namer.temporaries:  # ([z]: a display holding z)
                held = sorted(self.namer.users.get(n, n) for n in reached
                              if n in self.current.values())
                shown = held[0] if held else "x"
                what = "a value computed on this line" + (f" that holds {shown!r}"
                                                         if held else "")
            self.root.unknown_calls.append((reached, self.with_calls(self.source.error(
                NoDerivativeError,
                f"{dotted}(...) is given {what}, which the gradient follows; s2sad has no "
                f"rule for {dotted} and does not know whether it changes its arguments in "
                "place or returns one of them", call,
                f"Give it a copy ({dotted}({shown}.copy(), ...)) if its result needs no "
                "gradient, compute the value with NumPy functions s2sad knows, or register a rule for it with @s2sad.defvjp "
                "(a function with a rule is taken to change none of its arguments)."))))

    @staticmethod
    def _method_facts(attr: str):
        """What a method (or attribute) of that name does, on any value a local name may
        hold (an array, a list, a dict, a tuple): their facts together; None where one of
        them has it without facts, or none has it (an object's own method)."""
        found = None
        for kind in _RECEIVERS:
            method = kind.__dict__.get(attr) if attr.startswith("__") else \
                getattr(kind, attr, None)
            if method is None:
                continue
            facts = registry.facts(method)
            if facts is None:
                return None
            found = facts if found is None else found.union(facts)
        return found

    def looping(self, stmt, run) -> None:
        """Normalize a loop with ``run()``. A pass may start with the values the previous
        pass left: when the body updates something in place, the sharing at the top of the
        loop is found first (by normalizing the body without keeping the result) until it
        no longer changes, so that the checks see every value a name may hold there."""
        if not self.trusted and any(
                isinstance(n, gast.AugAssign) or _is_append(n) or (
                    isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store))
                for n in trees.walk(stmt)):
            seen = None
            while seen != self._classes():
                seen = self._classes()
                saved, deferred = self._save(), len(self.root.deferred)
                run()  # (raises where the sharing makes an update unsafe)
                end = self.node
                self._restore(saved)
                del self.root.deferred[deferred:]  # (the pass kept says them again)
                self.merge_nodes(end)
        start = dict(self.node)
        self._forget_objects(stmt)  # (a pass may start with the objects the last one left)
        run()
        self.merge_nodes(start)  # the loop may run no pass at all
        self._forget_objects(stmt)

    def _named_parts(self, stmt, refs) -> None:
        """``ls, k = self.layers, 1.0``: each name given an object (or a list of them) is
        known as it, as ``ls = self.layers`` would be."""
        for target, ref in zip(stmt.targets[0].elts if refs else (), refs):
            if ref is not None and ref[0] != "module" and isinstance(target, gast.Name):
                self.root.objects[self.current[target.id]] = ref

    def _forget_objects(self, stmt) -> None:
        """After a branch, and in and after a loop, a variable ``stmt`` assigns holds an
        object that depends on the path taken: no object is known for it there (its
        methods are not inlined as one item's: ``for layer in ...`` in each branch)."""
        for node in trees.walk(stmt):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and \
                    node.id in self.current:
                self.root.objects.pop(self.current[node.id], None)

    def _save(self):
        root = self.root
        return (self.out, len(self.out), dict(self.current), dict(self.node), set(self.temps),
                dict(root.objects),
                set(self.carried), set(self.locals), dict(self.local_functions),
                dict(self.foreign), dict(self.foreign_cells), dict(root.foreign),
                dict(root.foreign_cells), dict(root.source.extra),
                dict(root.__dict__.get("_foreign_keys", {})), copy.deepcopy(self.namer.__dict__),
                self.stmt, dict(root.__dict__.get("_fixed", {})))

    def _restore(self, saved) -> None:
        root = self.root
        (out, n, current, node, temps, objects, carried, locals_, functions, foreign, cells,
         root_foreign, root_cells, extra, keys, namer, stmt, fixed) = saved
        root.objects.clear()
        root.objects.update(objects)
        del out[n:]
        self.out, self.current, self.node, self.temps, self.carried = out, current, node, \
            temps, carried
        self.locals, self.local_functions, self.foreign, self.foreign_cells = locals_, \
            functions, foreign, cells
        root.foreign.clear()
        root.foreign.update(root_foreign)
        root.foreign_cells.clear()
        root.foreign_cells.update(root_cells)
        root.source.extra.clear()
        root.source.extra.update(extra)
        if "_foreign_keys" in root.__dict__:
            root._foreign_keys.clear()
            root._foreign_keys.update(keys)
        if "_fixed" in root.__dict__:  # (its names go with the namer's and extra's)
            root._fixed.clear()
            root._fixed.update(fixed)
        self.namer.__dict__.clear()
        self.namer.__dict__.update(namer)
        self.stmt = stmt

    def _read_later(self, stmt, name: str) -> bool:
        """Is ``name`` read after ``stmt``? (Anywhere, for a statement inside a block.)"""
        body = self.source.tree.body
        later = body[body.index(stmt) + 1:] if stmt in body else body
        return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
                   for s in later for n in trees.walk(s) if s is not stmt)

    def new_version(self, name: str) -> str:
        first = name if self.parent is None else None
        if name in self.carried:
            if name not in self.current:
                self.current[name] = first or self.namer.claim(name)
            self.root.objects.pop(self.current[name], None)  # (it holds another value now)
            return self.current[name]
        if name not in self.current:
            ssa = first or self.namer.claim(name)
        else:
            ssa = self.namer.version(name)
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
        if root is not node and isinstance(root, gast.Name) and (
                root.id in self.locals or root.id in self.current.values()):
            return False  # (a value of this function, or the caller's in an inlined call)
        return is_atom(node)

    def atom(self, node):
        return self.to_atom(self.simple(node))

    def snapshot(self, value):
        """A temporary holding ``value`` now (names kept across a loop change later)."""
        if isinstance(value, gast.Constant):
            return value
        temp = self.namer.temp()
        self.temps.add(temp)
        self.emit(gast.Assign([self.store(temp)], value, None))
        self.bind(temp, self.views(value))  # (the same array: it shares what value shares)
        return self.load(temp)

    def to_atom(self, value):
        """An atom for an already normalized expression (a temporary if needed)."""
        if self.is_atom(value):
            return value
        return self.temporary(value)

    def temporary(self, value):
        """``t_1 = value`` (it shares what ``value`` shares): ``t_1``."""
        temp = self.namer.temp()
        self.temps.add(temp)
        self.emit(gast.Assign([self.store(temp)], value, None))
        self.bind(temp, self.views(value))
        if isinstance(value, (gast.List, gast.Dict)):  # (`[h] * n`: its list, made here)
            self.made.add(temp)
        if _constant(value) is not _NOT_CONSTANT:  # `t_1 = -1.0` (passed to a helper)
            self.constants[temp] = _constant(value)
        return self.load(temp)

    def _constant_of(self, name: str):
        """The constant a temporary or an inlined helper's parameter holds, here or in a
        caller, else ``_NOT_CONSTANT``."""
        scope = self
        while scope is not None:
            if name in scope.constants:
                return scope.constants[name]
            scope = scope.parent
        return _NOT_CONSTANT

    def name(self, node):
        if node.id in self.function_args:  # a function the caller passed, used as a value
            how, what = self.function_args[node.id]
            if how == "call":
                return gast.copy_location(clone(what), node)
            raise self.source.syntax_error(
                f"the function passed as {node.id!r} used as a value", node,
                f"s2sad inlines it where it is called ({node.id}(...)); call it, or pass the "
                "value it computes instead.")
        if node.id in self.locals:
            if node.id not in self.current:
                raise self.source.error(
                    DifferentiationError, f"local variable {node.id!r} is used before it is "
                    "assigned", node, "Assign it first (Python would raise UnboundLocalError).")
            return gast.copy_location(self.load(self.current[node.id]), node)
        if self.lexical and node.id not in self.local_functions:
            return self.parent.name(node)
        if self.parent is not None:
            return gast.copy_location(self.load(self.foreign_name(node)), node)
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
            from .desugar import METHODS
            if node.attr in METHODS and isinstance(node.value, gast.Name) and \
                    node.value.id in self.locals:  # m = x.sum: a method as a value
                raise self.source.syntax_error(
                    f"the method {node.value.id}.{node.attr} used as a value", node,
                    f"Call it where it is used: {node.value.id}.{node.attr}(...).")
            value = self.simple(node.value) if self.is_atom(node.value) else self.atom(node.value)
            return gast.copy_location(gast.Attribute(value, node.attr, gast.Load()), node)
        if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Subscript)):
            from .dunders import object_operator
            inlined = object_operator(self, node)  # v * a, v an object of a class of yours:
            if inlined is not None:                # its __mul__, inlined
                return inlined
        if isinstance(node, gast.BinOp):
            if isinstance(node.op, (gast.Add, gast.Sub)):
                return self.chain(node)
            return gast.copy_location(
                gast.BinOp(self.atom(node.left), node.op, self.atom(node.right)), node)
        if isinstance(node, gast.UnaryOp):
            return gast.copy_location(gast.UnaryOp(node.op, self.atom(node.operand)), node)
        if isinstance(node, (gast.ListComp, gast.GeneratorExp)):
            return self.comprehension(node)
        if isinstance(node, gast.Call):
            func = node.func
            self._refuse_derivative_made_here(node)
            if self._builtin_call(node) == "sum" and len(node.args) in (1, 2) and \
                    isinstance(node.args[0], (gast.GeneratorExp, gast.ListComp)) and \
                    not node.keywords:
                start = node.args[1] if len(node.args) == 2 else gast.Constant(0, None)
                return self.comprehension(node.args[0], start=start)
            built = self._namedtuple(node)
            if built is not None:
                return built
            inlined = self.callee(func, node) or self._keyword_stand_in(node)
            if inlined is None and isinstance(func, gast.Attribute):
                node, inlined = self._ufunc_method(node)
            if inlined is None and isinstance(func, (gast.Attribute, gast.Name,
                                                     gast.Subscript)):
                node, inlined = self._object_method(node)
                func = node.func
            if inlined is not None:
                return self.inline(node, *inlined)
            if isinstance(func, gast.Attribute) and self._builtin_call(func.value) == "super":
                raise self.source.syntax_error(
                    "super() in a differentiated method", node,
                    f"Call the base class's method by name, as BaseClass.{func.attr}(self, "
                    "...): that is inlined.")
            lam = next((a for a in list(node.args) + [k.value for k in node.keywords]
                        if isinstance(a, gast.Lambda)), None)
            if lam is not None:
                raise self.source.syntax_error(
                    f"a lambda passed to {self._dotted(func)}()", lam,
                    "A function of yours that takes a function is inlined with it; pass "
                    "this one a value computed with NumPy instead.")
            if isinstance(func, gast.Name) and func.id in self.function_args:
                func = clone(self.function_args[func.id][1])  # np.sin, as the caller wrote it
            elif isinstance(func, gast.Attribute):
                func = gast.copy_location(gast.Attribute(self.atom(func.value), func.attr,
                                                         gast.Load()), func)
            else:
                func = self.atom(func)
            args = [self.atom(a) for a in node.args]
            keywords = [gast.keyword(k.arg, self.atom(k.value)) for k in node.keywords]
            call = gast.copy_location(gast.Call(func, args, keywords), node)
            if node.__dict__.get("copied"):  # x.copy() (Desugar): a dict's or list's too
                call.copied = True
            if "method" in node.__dict__:  # (x.conj(), desugared: the method's facts too)
                call.method = node.method
            if not self.trusted:
                self._note_unknown_call(call)
            return call
        if isinstance(node, gast.Subscript):
            from .index_tricks import joined
            join = joined(self, node)  # np.r_[x, y]: np.concatenate([x, y])
            if join is not None:
                return gast.copy_location(join, node)
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
        if isinstance(node, gast.IfExp):
            known = self._constant_test(node.test)  # (an inlined helper's `-1 if axis is None
            if known is not None:                   # else axis`, given axis=None)
                return self.atom(node.body if known else node.orelse)
            return self.conditional(self.condition(node.test), node.body, node.orelse)
        if isinstance(node, gast.BoolOp):
            known = self._constant_value(_Rename(self).visit(clone(node)))
            if known is not _NOT_CONSTANT:  # (`keepdims and axis is not None`, in a helper)
                return gast.copy_location(gast.Constant(known, None), node)
            # `a or b` is `a if a else b`; `a and b` is `b if a else a` (b evaluated lazily)
            result = self.atom(node.values[0])
            for value in node.values[1:]:
                cond = self.condition(result, normalized=True)
                if isinstance(node.op, gast.Or):
                    result = self.conditional(cond, result, value, (True, False))
                else:
                    result = self.conditional(cond, value, result, (False, True))
            return result
        raise self.source.syntax_error(type(node).__name__, node)

    # --- calls of the user's own functions are inlined ---------------------------------

    def callee(self, func, call=None):
        """``(function object or None, its def)`` if ``func`` is a function of the user's
        (``call``: the call, whose arguments choose the variant of a gradient inlined)."""
        import types
        if isinstance(func, gast.Name) and func.id in self.function_args:
            how, target = self.function_args[func.id]
            return target if how == "inline" else None
        if isinstance(func, gast.Name):
            scope = self
            while scope is not None:
                if func.id in scope.local_functions:
                    return None, scope.local_functions[func.id], scope
                if func.id in scope.locals or not scope.lexical:
                    break
                scope = scope.parent
        try:
            value = _static(func, self)
        except KeyError:
            return None
        stand_in = _stand_in(value)  # np.interp...: written with functions that have rules
        if stand_in is not None:
            return stand_in, None, None
        if isinstance(value, types.FunctionType) and registry.lookup(value) is None and \
                _user_code(value):
            return value, None, None
        from ..api import GradientFunction
        if type(value) is GradientFunction:  # a gradient called inside: its generated code
            try:
                function, live = value._inlined(self._argument_kinds(call, value))
            except ValueError as exc:  # (one the function calls its own gradient)
                raise self.source.error(DifferentiationError, str(exc), func,
                                        "Write the inner step out in the function.") from None
            self.root.__dict__.setdefault("_generated_live", {})[function] = live
            return function, None, None
        return None

    def _argument_kinds(self, call, gradient):
        """The descriptors of the arguments of ``call`` of a gradient, where each is a
        parameter of the differentiated function that holds numbers only and is never
        given another value, and one holds a namedtuple or a dict (``grad_loss(p, x)``:
        whose fields or keys the general variant would not know); else None."""
        if call is None or call.keywords or len(call.args) != len(gradient._params):
            return None
        key = []
        for arg in call.args:  # (each one's value named as in the generated function:
            if not isinstance(arg, gast.Name) or arg.id in self.function_args:  # through
                return None                                      # the helpers inlined)
            name = self.name(arg).id
            if name not in self.root.descriptors or self.root.current.get(name) != name:
                return None
            key.append(self.root.descriptors[name])
        return tuple(key) if any(map(_named, key)) else None  # (else the general one)

    def _keyword_stand_in(self, node):
        """A NumPy function whose rule does not take a keyword this call gives, written
        with functions that have rules (``np.diff(x, prepend=0.0)``), or None."""
        from .. import implementations
        keywords = {k.arg for k in node.keywords}
        try:
            value = _static(node.func, self)
        except KeyError:
            return None
        for func, names, stand_in in implementations.by_keyword():
            if value is func and keywords & names:
                return stand_in, None, None
        return None

    def _namedtuple(self, node):
        """``P(w, b=b)``, a namedtuple's class called: with a value for each field, in
        order (a default as the class keeps it), so that it is built of them; else None."""
        from .resolve import namedtuple_class
        try:
            cls = _static(node.func, self)
        except KeyError:
            return None
        if not namedtuple_class(cls):
            return None
        fields, defaults = cls._fields, cls._field_defaults
        given = dict(zip(fields, node.args))
        for keyword in node.keywords:
            if keyword.arg not in fields or keyword.arg in given:
                raise self.source.error(
                    DifferentiationError, f"{cls.__name__}() takes the fields "
                    f"{', '.join(fields)}: {keyword.arg or '**'} is not one more", node)
            given[keyword.arg] = keyword.value
        missing = [f for f in fields if f not in given and f not in defaults]
        if len(node.args) > len(fields) or missing:
            raise self.source.error(
                DifferentiationError, f"{cls.__name__}() takes the fields {', '.join(fields)}"
                f": {'a value for ' + ', '.join(missing) if missing else 'fewer values'} "
                "needed", node)
        args = []
        for field in fields:
            if field in given:
                args.append(self.atom(given[field]))
            elif _constant(gast.Constant(defaults[field], None)) is not _NOT_CONSTANT:
                args.append(gast.Constant(defaults[field], None))
            else:  # (a default of another kind: the value the class keeps)
                name = self.fixed_name(defaults[field], f"{cls.__name__}_{field}")
                args.append(self.load(name))
        func = self.simple(node.func) if self.is_atom(node.func) else self.atom(node.func)
        return gast.copy_location(gast.Call(func, args, []), node)

    def _ufunc_method(self, node):
        """``np.add.reduce(x)``, ``np.maximum.accumulate(x)``, ``np.subtract.outer(a, b)``:
        ``(call, stand-in)``, the stand-in written with functions that have rules
        (``np.sum(x, axis=0)``...; ``outer`` gets the ufunc first), or ``(node, None)``."""
        from .. import implementations
        if node.func.attr not in ("reduce", "accumulate", "outer"):
            return node, None
        try:
            ufunc = _static(node.func.value, self)
        except KeyError:
            return node, None
        if not isinstance(ufunc, np.ufunc) or registry.lookup(ufunc) is None:
            return node, None
        stand_in = implementations.ufunc_method(ufunc, node.func.attr)
        if stand_in is None:
            return node, None
        if node.func.attr == "outer":
            node = gast.copy_location(gast.Call(node.func, [node.func.value, *node.args],
                                                node.keywords), node)
        return node, (stand_in, None, None)

    def _object_ref(self, node):
        """What ``_object_method`` knows of the object ``node`` names: an argument of the
        function (or given to a helper) that is an object of a user's class, an object in
        its attributes (``self.layer``), or a module's object (``model``, ``net.layer``);
        ``("none",)`` for an attribute of such an object that is None (``self.act``, an
        optional layer: ``if self.act is not None`` is decided); else None."""
        from ..source import note_object
        from .kinds import describe, user_objects
        if isinstance(node, gast.Attribute):  # an object held by a known one
            base = self._object_ref(node.value)
            return None if base is None else self._member_ref(base, node.attr)
        if isinstance(node, gast.Subscript):  # an item of a list of objects: layers[0]
            return _item_ref(self._object_ref(node.value), node.slice)
        if not isinstance(node, gast.Name) or node.id in self.function_args:
            return None
        if self.lexical and self.parent is not None and node.id not in self.locals:
            return self.parent._object_ref(node)  # (a lambda or def inside: the caller's)
        if node.id in self.locals:
            return self.root.objects.get(self.current.get(node.id))
        try:
            obj = _static(node, self)
        except KeyError:
            return None
        if isinstance(obj, types.ModuleType):  # a module of the user's: its objects
            library = obj.__name__.split(".")[0] in ("numpy", "cupy", "math", "s2sad")
            return None if library else ("module", obj)
        if user_objects(obj):  # a list of layers
            note_object(_resolving(node, self), node.id, obj)
            return _value_seq(obj)
        desc = describe(obj)
        if type(desc) is not tuple or desc[0] != "object":
            return None
        note_object(_resolving(node, self), node.id, obj)  # (the name given another: rebuilt)
        return "value", obj

    def _member_ref(self, base, attr: str):
        """The reference of ``base``'s attribute ``attr`` (see ``_object_ref``), noted for
        the checks at each call: its class (an argument's member), or itself (a module's
        object's)."""
        from ..source import note_length, note_path
        from .kinds import _plain_lookup, data_descriptor, describe, user_objects
        if base[0] in ("none", "seq"):
            return None
        if base[0] == "module":  # (models.net: the module's object, noted as its attribute)
            member = getattr(base[1], attr, None)
            if user_objects(member):
                note_path(None, member, base[1], attr)
                return _value_seq(member)
            desc = describe(member)
            if type(desc) is not tuple or desc[0] != "object":
                return None
            note_path(None, member, base[1], attr)
            return "value", member
        if base[0] == "param":
            _, path, cls, hidden, members = base
            desc = members.get(attr)  # (only what Python reads from __dict__)
            if desc is None:
                return None
            path = f"{path}.{attr}"
            if desc == ("none",):
                note_path(path, type(None))
                return ("none",)
            if desc[0] != "object":  # a list of objects: its class, length, items' classes
                note_path(path, list if desc[0] == "list" else tuple)
                note_length(path, len(desc[1]))
                seq = _param_ref(path, desc)
                for k, item in [("*", desc[1][0])] if seq[2] else enumerate(desc[1]):
                    note_path(f"{path}[{k}]", item[1])
                return seq
            note_path(path, desc[1])
            return "param", path, desc[1], desc[2], dict(desc[3])
        if data_descriptor(type(base[1]), attr) or not _plain_lookup(type(base[1])):
            return None  # (a property may give a new object at each read)
        member = getattr(base[1], attr, None)
        if user_objects(member):
            note_path(None, member, base[1], attr)
            return _value_seq(member)
        desc = describe(member)
        if member is not None and (type(desc) is not tuple or desc[0] != "object"):
            return None
        note_path(None, member, base[1], attr)
        return ("none",) if member is None else ("value", member)

    def _renamed_ref(self, node):
        """``_object_ref`` of an expression whose names are already the function's own
        (``_Rename``: an argument, or an object a helper was given)."""
        if isinstance(node, gast.Attribute):
            base = self._renamed_ref(node.value)
            return None if base is None else self._member_ref(base, node.attr)
        if isinstance(node, gast.Name):
            return self.root.objects.get(node.id)
        return None

    def _object_method(self, node):
        """``self.act(z)``, ``model.predict(x)``, ``self.layer.forward(x)``, ``layer(x)``:
        the ``def`` of the object's class (``__call__`` for a call of the object), inlined
        with the object first (a staticmethod without it), where the object is known: an
        argument of a user's class, an object in its attributes, a module's object;
        ``(node, None)`` for the rest (an attribute of the object's own that hides the
        method, a property...)."""
        from ..source import note_method
        from .kinds import class_method
        func = node.func
        ref = self._object_ref(func)  # (the object called itself: its class's __call__)
        if ref is not None:
            receiver, name = func, "__call__"
        elif isinstance(func, gast.Attribute):
            ref, receiver, name = self._object_ref(func.value), func.value, func.attr
        if ref is None or ref[0] in ("none", "module", "seq"):
            return node, None
        if ref[0] == "param":
            _, path, cls, hidden, _ = ref
            obj = None
            if name in hidden:
                return node, None
        else:
            _, obj = ref
            path, cls = None, type(obj)
            if name != "__call__" and name in getattr(obj, "__dict__", ()):
                return node, None
        found = class_method(cls, name)
        if found is None or not _user_code(found[0]):
            return node, None
        method, takes_self = found
        # (its objects have attributes of their own, which Python reads first but for __call__)
        own = getattr(cls, "__dictoffset__", 0) != 0 and name != "__call__"
        note_method(cls, name, getattr(cls, name), path, own, obj)
        args = [receiver, *node.args] if takes_self else node.args
        ruled = registry.lookup(method) is not None
        # recursion: the method called on the object it runs for (not on another of its
        # class: a block of blocks is inlined level by level, as far as objects are known)
        levels = sum(k is method or type(k) is tuple and k[0] is method for k in self.inlining)
        key = method if method in self.inlining or levels >= _LEVELS else (
            method, path or id(obj))
        if ruled or key in self.inlining:  # a rule of its own (s2sad.defvjp(K.cube)),
            func = self._method_alias(method)  # or recursion: a call of the class's def
        call = gast.copy_location(gast.Call(func, args, node.keywords), node)
        return call, (None if ruled else (method, None, None, key))

    def _method_alias(self, method):
        """A name, in the generated code, for a method of a class called as a function."""
        return gast.Name(self.fixed_name(method, method.__name__), gast.Load(), None, None)

    def fixed_name(self, value, name: str) -> str:
        """A name for ``value`` in the whole generated function, in every inlined scope
        (a method called as a function, a runtime helper of inlined generated code)."""
        fixed = self.root.__dict__.setdefault("_fixed", {})  # alias -> value
        alias = next((a for a, v in fixed.items() if v is value), None)
        if alias is None:
            alias = self.root.namer.claim(name)
            fixed[alias] = value
            self.root.foreign[alias] = ({alias: value}, alias)
            self.root.source.extra[alias] = value
        return alias

    def _function_argument(self, arg):
        """What a helper's parameter stands for when the caller passes it ``arg``, a
        function: ``("inline", ...)`` for the user's own (a def, a lambda, a module-level
        function), ``("call", expression)`` for one with a derivative rule; else None."""
        if isinstance(arg, gast.Lambda):
            name = self.namer.fresh("lambda")
            ret = gast.copy_location(gast.Return(arg.body), arg)
            fdef = gast.FunctionDef(name, arg.args, [ret], [], None, None)
            fdef.shown_name = "<lambda>"  # (as Python names it in a traceback)
            self.local_functions[name] = self._defined_here(gast.copy_location(fdef, arg))
            arg = gast.Name(name, gast.Load(), None, None)
        if not isinstance(arg, (gast.Name, gast.Attribute)):
            return None
        if isinstance(arg, gast.Name) and arg.id in self.function_args:
            return self.function_args[arg.id]  # passed on as it came
        target = self.callee(arg)
        if target is not None:
            return "inline", target
        try:
            value = _static(arg, self)
        except KeyError:
            return None
        if registry.lookup(value) is not None:
            return "call", self.simple(arg)
        return None

    def inline(self, node, func, fdef, scope, key=None):
        """The callee's body, normalized in place, with its own names made unique. An
        error located in the callee's own lines gets the lines that called it. ``key``:
        what a recursive call would call again (a method: with its object)."""
        key = key if key is not None else func if func is not None else fdef
        if key in self.inlining:
            if func is None:
                raise self.source.syntax_error(
                    f"a recursive call of the nested function {fdef.name}()", node,
                    "Define the function at module level (recursion goes through its own "
                    "compiled gradient), or write the recursion as a loop.")
            return self.recursive(node, func)
        try:
            return self._inline(node, func, fdef, scope, key)
        except S2sadError as exc:
            placed = self._placed(exc, func, fdef)
            if placed is exc:
                raise
            raise placed from None

    def _placed(self, exc, func, fdef):
        """``exc``, raised in the user's function ``func`` (or nested ``fdef``) inlined
        here at its own line, with the lines that called it; else ``exc`` itself."""
        if getattr(exc, "calls", ()) or not self.shown or getattr(exc, "lineno", None) is None \
                or not hasattr(exc, "with_calls") or (func is not None and not _user_code(func)):
            return exc
        name = getattr(func, "__qualname__", None) or getattr(fdef, "shown_name", fdef.name)
        filename = func.__code__.co_filename if func is not None else self.source.filename
        tree = fdef if func is None else FunctionSource.of(func).tree
        if exc.filename != filename or not (  # (its own lines: not the call's, in the
                tree.lineno <= exc.lineno <= (tree.end_lineno or tree.lineno)):  # same file)
            return exc
        return exc.with_calls(self.frames() + ((exc.filename, exc.lineno, exc.text, exc.col,
                                                 name),))

    def _inline(self, node, func, fdef, scope, key):
        if func is not None:
            callee = FunctionSource.of(func)
            lexical = False
        else:  # a def or lambda inside the function: it sees the enclosing variables
            outer = self.source if scope is None else scope.source
            callee = dataclasses.replace(outer, tree=fdef, func=None,
                                         outer=outer.outer or outer.tree)
            lexical = True
        from .desugar import Desugar
        from .exits import Exits
        from .validate import Validate
        Validate(callee, nested=True).run()
        callee.locals = assigned_names(callee.tree)
        numpy_name = _numpy_alias(callee.globals) or self.root.numpy_name
        tree = Exits(self.namer).visit(clone(callee.tree))
        callee.locals = assigned_names(tree)
        tree = Desugar(numpy_name, callee.locals, callee.is_builtin).visit(tree)
        live = {}
        if is_generated(callee):  # a gradient called inside: its pops become assignments
            from .higher import PrepareGenerated
            tree = PrepareGenerated(self.namer, _RootHelpers(self.root), callee).visit(tree)
            live = self.root.__dict__.get("_generated_live", {}).get(func, {})
        callee = dataclasses.replace(callee, tree=tree, locals=callee.locals, live=live)
        child = Normalize(callee, self.namer, parent=scope if lexical and scope else self,
                          lexical=lexical)
        child.anchor = self.anchor_stmt()
        child.inlining = self.inlining + (key,)
        child.calls = self.frames()
        child.shown = self.shown and not is_generated(callee) and (
            func is None or _user_code(func))
        child.out = self.out
        params = tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs
        names = [p.id for p in params]
        passed_functions = {}  # parameters given a function: called as that function
        for name, arg in list(zip(names, node.args)) + [(k.arg, k.value) for k in node.keywords]:
            function = self._function_argument(arg)
            if function is not None:
                passed_functions[name] = function
        args = [None if i < len(names) and names[i] in passed_functions else self.atom(a)
                for i, a in enumerate(node.args)]
        keywords = {k.arg: None if k.arg in passed_functions else self.atom(k.value)
                    for k in node.keywords}
        n_pos = len(tree.args.posonlyargs) + len(tree.args.args)
        if len(args) > n_pos or set(keywords) - set(names):
            if getattr(func, "__module__", None) == "s2sad.implementations":
                from .. import implementations
                shown = implementations.shown_name(func, node, self._dotted)
                extra = sorted(set(keywords) - set(names))
                raise self.source.error(
                    DifferentiationError, f"s2sad writes {shown} with the arguments "
                    f"({', '.join(names)}) only (s2sad/implementations.py): "
                    + (f"{', '.join(k + '=' for k in extra)} is not supported" if extra else
                       f"{len(args)} positional arguments are more than it takes"), node,
                    "Leave the argument out where NumPy's default does, or compute the value "
                    "with functions s2sad knows (see s2sad.supported()).")
            raise self.source.error(DifferentiationError, f"this call does not match the "
                                    f"parameters of {tree.name}({', '.join(names)})", node)
        bound = dict(zip(names[:len(args)], args))
        for key, value in keywords.items():
            if key in bound:
                raise self.source.error(DifferentiationError, f"{tree.name}() got two values "
                                        f"for {key!r}", node)
            bound[key] = value
        defaults = getattr(fdef, "defaults_at_def", None) or \
            self._defaults(func, tree, names, n_pos, child)
        body_assigned = {n.id for s in tree.body for n in trees.walk(s)
                         if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        passed: dict[int, str] = {}  # the callee's argument values -> the names passed
        for name in names:
            if name in passed_functions:
                child.function_args[name] = passed_functions[name]
                continue
            if name in bound:
                value = bound[name]
            elif name in defaults:
                value = defaults[name]
            else:
                raise self.source.error(DifferentiationError, f"{tree.name}() is missing the "
                                        f"argument {name!r}", node)
            if isinstance(value, gast.Name) and name not in body_assigned:
                child.current[name] = value.id  # read-only parameter: use the value itself
            else:
                copy_name = self.namer.claim(name)
                child.current[name] = copy_name
                child.emit(gast.Assign([self.store(copy_name)], value, None))
                if name not in body_assigned and _constant(value) is not _NOT_CONSTANT:
                    child.constants[copy_name] = _constant(value)  # (tests on it fold)
            if name not in body_assigned:  # an object: its methods inlined there too
                source_arg = next((a for n, a in list(zip(names, node.args)) +
                                   [(k.arg, k.value) for k in node.keywords] if n == name), None)
                ref = self._object_ref(source_arg)
                if ref is not None:
                    self.root.objects.setdefault(child.current[name], ref)
            if isinstance(value, gast.Name):
                child.bind_caller(child.current[name], name)
                passed[child._blocks] = value.id
                user = self._read_after_call(value.id, next(
                    (a for n, a in list(zip(names, node.args)) +
                     [(k.arg, k.value) for k in node.keywords] if n == name), None))
                if user is not None:
                    child.passed_names[name] = user
        body = tree.body
        for stmt in body[:-1]:
            child.stmt = stmt
            child.statement(stmt)
        child.stmt = body[-1]
        result = child.atom(body[-1].value)
        if isinstance(result, gast.Name):  # what the result may share memory with, here
            blocks = child.node.get(result.id, frozenset())
            shares = [v for b, v in passed.items() if b in blocks]
            if result.id not in self.node or shares:
                self.bind(result.id, shares + ([result.id] if result.id in self.node else []))
        for scope_ in (child,):
            self.root.foreign.update(scope_.foreign)
            self.root.foreign_cells.update(scope_.foreign_cells)
        return result

    def _read_after_call(self, value: str, given) -> str | None:
        """The caller's variable that a helper's in-place update of the parameter given
        ``value`` (written ``given`` in the call) would change under a reader, if any: one
        whose value may share ``value``'s memory (``t``, a view ``u = t[1:]``, ``t`` of
        ``h(t[1:])``), read after the call or beside it; an argument of the function
        differentiated (the user's own); or what the caller's caller reads."""
        blocks = self.node.get(value, frozenset())
        users = [k for k, v in self.current.items() if v == value or blocks & self.node.get(
            v, frozenset())]

        def count(node, name: str) -> int:
            return sum(isinstance(n, gast.Name) and n.id == name for n in trees.walk(node))
        for user in users:
            if self._read_later(self.stmt, user) or \
                    count(self.stmt, user) > (count(given, user) if given is not None else 1):
                return user
        owner = self.caller_of(value)  # (the function's argument, or its caller's value)
        if owner is not None and (self.parent is None or owner in self.passed_names):
            return users[0] if users else owner
        return None

    def recursive(self, node, func):
        """A call that recurses, kept as a call: ``t_2 = recursive_call(f, (x, n))`` runs
        it, ``t_3 = recursion_value(t_2, (x, n))`` is its value, whose adjoint asks
        ``f``'s own compiled vjp (:mod:`s2sad.runtime_recursion`)."""
        import inspect
        from .. import runtime_recursion
        args = [self.atom(a) for a in node.args]
        keywords = {k.arg: self.atom(k.value) for k in node.keywords}
        try:
            bound = inspect.signature(func).bind(*args, **keywords)
        except TypeError as exc:
            raise self.source.error(DifferentiationError, f"this call of {func.__name__}() "
                                    f"does not match its parameters: {exc}", node) from None
        bound.apply_defaults()
        values = [v if isinstance(v, gast.AST) else self.constant(v, name)
                  for name, v in bound.arguments.items()]
        packed = self.to_atom(gast.Tuple(values, gast.Load()))
        helpers = {name: self.fixed_name(getattr(runtime_recursion, name), name)
                   for name in ("recursive_call", "recursion_value")}
        function = self.simple(node.func)
        pair = self.to_atom(gast.Call(self.load(helpers["recursive_call"]),
                                      [function, packed], []))
        return self.to_atom(gast.Call(self.load(helpers["recursion_value"]),
                                      [pair, clone(packed)], []))

    def _defaults(self, func, tree, names, n_pos, child) -> dict:
        values = {}
        if func is not None:
            pos_defaults = func.__defaults__ or ()
            for name, value in zip(names[n_pos - len(pos_defaults):n_pos], pos_defaults):
                values[name] = child.constant(value, name)
            for name, value in (func.__kwdefaults__ or {}).items():
                values[name] = child.constant(value, name)
        else:
            pos = tree.args.defaults
            for name, expr in zip(names[n_pos - len(pos):n_pos], pos):
                values[name] = self.atom(expr)
            for arg, expr in zip(tree.args.kwonlyargs, tree.args.kw_defaults):
                if expr is not None:
                    values[arg.id] = self.atom(expr)
        return values

    def constant(self, value, name: str):
        """A default argument's value in generated code: a literal, or a bound name."""
        if value is None or isinstance(value, (bool, int, float, complex, str)):
            return gast.Constant(value, None)
        alias = self.root.namer.claim(f"{self.source.tree.name}_{name}_default")
        holder = {alias: value}
        self.root.foreign[alias] = (holder, alias)
        self.root.source.extra[alias] = value
        return self.load(alias)

    def foreign_name(self, node) -> str:
        """Name, in generated code, of a global or closure variable of inlined code."""
        if node.id in self.root.__dict__.get("_fixed", ()):  # (named for the whole function)
            return node.id
        key = (id(self.source.globals), node.id)
        cache = self.root.__dict__.setdefault("_foreign_keys", {})
        if key in cache:
            return cache[key]
        live = getattr(self.source, "live", None) or {}
        if node.id in live:  # a gradient's code inlined: the user's module global it reads
            where, item = live[node.id]
            alias = self.root.namer.claim(node.id)
            self.root.foreign[alias] = (where, item)
            self.root.source.extra[alias] = where[item]
            cache[key] = alias
            return alias
        if node.id in self.source.closure:
            alias = self.root.namer.claim(node.id)
            self.root.foreign_cells[alias] = self.source.closure[node.id]
            self.root.source.extra[alias] = self.source.closure[node.id].cell_contents
        else:
            try:
                value = self.source.resolve(node.id)
            except KeyError:
                if node.id == self.root.numpy_name:  # `x.sum()` desugared in a module
                    cache[key] = node.id            # that does not import NumPy
                    return node.id
                raise self.source.error(DifferentiationError, f"name {node.id!r} is not defined",
                                        node) from None
            import builtins
            if node.id not in self.source.globals and getattr(builtins, node.id, None) is value:
                cache[key] = node.id
                return node.id
            same = self.source.globals is self.root.source.globals
            if not same and isinstance(value, types.ModuleType) and \
                    node.id not in self.root.locals:  # `np` there is `np` here too
                try:
                    same = self.root.source.resolve(node.id) is value
                except KeyError:
                    pass
            if same and node.id not in self.root.locals:
                cache[key] = node.id
                return node.id
            alias = self.root.namer.claim(node.id)
            self.root.foreign[alias] = (self.source.globals, node.id)
            self.root.source.extra[alias] = value
        cache[key] = alias
        return alias

    def chain(self, node):
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
            from .dunders import object_operator
            inlined = object_operator(self, node)
            if inlined is not None:
                return inlined
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


def _static(node, normalize):
    """The object a dotted global name refers to, seen from ``normalize``'s function."""
    if isinstance(node, gast.Name):
        if node.id in normalize.locals:
            raise KeyError(node.id)
        if normalize.lexical and normalize.parent is not None:
            return _static(node, normalize.parent)
        return normalize.source.resolve(node.id)
    if isinstance(node, gast.Attribute):
        base = _static(node.value, normalize)
        try:
            value = getattr(base, node.attr)
        except AttributeError:
            raise KeyError(node.attr) from None
        holder = node.value.id if isinstance(node.value, gast.Name) else None
        note_attribute(base, node.attr, value, _resolving(node.value, normalize), holder)
        return value
    raise KeyError(type(node).__name__)


def _resolving(node, normalize):
    """The source whose free names ``node`` (a name of ``normalize``'s function) is read
    from."""
    while isinstance(node, gast.Name) and normalize.lexical and normalize.parent is not None:
        normalize = normalize.parent
    return normalize.source


class _RootHelpers:
    """What :class:`s2sad.transforms.higher.PrepareGenerated` asks of the compiler's
    imports, for a gradient's code inlined (a gradient called inside): each helper named
    once for the whole function (``Normalize.fixed_name``)."""

    def __init__(self, normalize):
        self.normalize = normalize
        self.helpers: dict = {}
        self.lines: dict = {}

    def helper(self, name: str, module: str) -> str:
        import importlib
        return self.normalize.fixed_name(getattr(importlib.import_module(module), name), name)


def argument_objects(tree, descriptors) -> dict:
    """The parameters of ``tree`` described (:func:`s2sad.transforms.kinds.describe`) as
    objects of a user's class that the function does not assign: their methods are
    inlined where the function calls them (``Normalize.objects``)."""
    params = [a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs]
    stored = {n.id for stmt in tree.body for n in trees.walk(stmt)
              if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    from .kinds import objects_described
    return {name: _param_ref(name, desc) for name, desc in zip(params, descriptors or ())
            if (type(desc) is tuple and desc[0] == "object" or objects_described(desc)) and
            name not in stored}


_LEVELS = 3  # a method inlined for nested objects of its class at most so deep (then a
# recursive call: a module's tree of objects is not written out whole)

# attributes that read or change an object's attributes other than by name
_OBJECT_STATE = frozenset({"__setattr__", "__delattr__", "__dict__", "__getattribute__"})


def _enumerate_start(call):
    """The start of ``enumerate(xs)``, ``enumerate(xs, 1)``, ``enumerate(xs, start=-2)``
    (an integer written out), else ``_NOT_CONSTANT``."""
    given = call.args[1:] + [k.value for k in call.keywords if k.arg == "start"]
    if not call.args or len(given) > 1 or len(given) != len(call.args) - 1 + len(
            call.keywords):
        return _NOT_CONSTANT
    start = _constant(given[0]) if given else 0
    return start if type(start) is int else _NOT_CONSTANT


def _calls_with(body, name: str) -> bool:
    """Does ``body`` call ``name`` or a method of it (``layer(x)``, ``layer.block.f(x)``),
    or pass it to a function (``apply(layer, x)``)?"""
    for node in (n for stmt in body for n in trees.walk(stmt)):
        if isinstance(node, gast.Call):
            root = node.func
            while isinstance(root, gast.Attribute):
                root = root.value
            if any(isinstance(n, gast.Name) and n.id == name
                   for n in [root, *node.args, *(k.value for k in node.keywords)]):
                return True
    return False


def _item_ref(base, index):
    """The reference of item ``index`` (a constant, or a slice of constants) of a list of
    objects ``base``."""
    if base is None or base[0] != "seq":
        return None
    if isinstance(index, gast.Slice):
        parts = [None if part is None else _constant(part)
                 for part in (index.lower, index.upper, index.step)]
        if not all(part is None or type(part) is int for part in parts) or parts[2] == 0:
            return None
        return "seq", base[1][slice(*parts)], base[2]
    index = _constant(index)
    if type(index) is not int or not -len(base[1]) <= index < len(base[1]):
        return None
    return base[1][index]


def argument_descriptors(tree, descriptors) -> dict:
    """The descriptors of the parameters of ``tree`` that the function never gives another
    value and that hold numbers, arrays and containers of them only (no object): a
    gradient called inside with them (``grad_loss(p, x)``) is inlined as its variant for
    those kinds (``Normalize.descriptors``)."""
    params = [a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs]
    stored = {n.id for stmt in tree.body for n in trees.walk(stmt)
              if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    return {name: desc for name, desc in zip(params, descriptors or ())
            if name not in stored and _numbers_only(desc)}


def _named(desc) -> bool:
    """Does ``desc`` hold a dict or a namedtuple (whose keys or fields the general variant
    of a gradient does not know)?"""
    if type(desc) is not tuple or desc[0] in ("nd", "cupy", "object"):
        return False
    if desc[0] == "dict" or len(desc) > 2:
        return True
    return any(map(_named, desc[1]))


def _numbers_only(desc) -> bool:
    if isinstance(desc, str):
        return desc != "any"
    if type(desc) is not tuple or desc[0] == "object":
        return False
    if desc[0] in ("nd", "cupy"):
        return True
    items = [item for _, item in desc[1]] if desc[0] == "dict" else desc[1]
    return all(map(_numbers_only, items))


def _param_ref(path: str, desc) -> tuple:
    """What ``Normalize.objects`` keeps of an argument's object (or of a list of them:
    ``("seq", item references, the reference of every item)``) at ``path`` (``"model"``,
    ``"model.layers[0]"``). Where the items are alike (one class, the same members), every
    item's reference is one, at ``path[*]``: a loop over them stays a loop, its variable
    known as any of them (the entry tests them all)."""
    if desc[0] == "object":
        return "param", path, desc[1], desc[2], dict(desc[3])
    alike = all(item == desc[1][0] for item in desc[1])
    return "seq", tuple(_param_ref(f"{path}[{k}]", item) for k, item in enumerate(desc[1])), \
        _param_ref(f"{path}[*]", desc[1][0]) if alike else None


def _value_seq(seq) -> tuple:
    """The reference of a module's list of objects (``LAYERS``, ``net.layers``): its
    items noted, so that the gradient is built again when they change."""
    from ..source import note_items
    note_items(seq)
    return "seq", tuple(("value", item) for item in seq), None


def _user_code(func) -> bool:
    """Is ``func`` the user's own code (to be inlined), not a library's?"""
    import inspect
    import sysconfig
    try:
        path = inspect.getsourcefile(func) or ""
    except TypeError:
        return False
    paths = sysconfig.get_paths()
    library = [paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(k)]
    return bool(path) and not any(path.startswith(p) for p in library) and \
        not path.startswith(__file__.rsplit("/transforms/", 1)[0])


class _RenameLocal(trees.Transformer):
    """Rename the variables a comprehension binds (its own scope in Python)."""

    def __init__(self, renames: dict):
        self.renames = renames

    def visit_Name(self, node):
        if node.id in self.renames:
            return gast.Name(self.renames[node.id], node.ctx, None, None)
        return node


class _Rename(trees.Transformer):
    """Point the names inside an opaque expression (an f-string) at their current versions."""

    def __init__(self, normalize: Normalize):
        self.normalize = normalize

    def visit_Name(self, node):
        return self.normalize.name(node)


def _copy_position(func) -> int | None:
    """The position of ``func``'s ``copy`` parameter (``np.nan_to_num(x, False)``), or
    None."""
    try:
        parameters = list(registry.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    for i, p in enumerate(parameters):
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            return None
        if p.name == "copy":
            return i
    return None


def _mutated_argument(call, facts):
    """``(how, argument, advice)`` for an argument of ``call`` that ``facts`` say the
    function writes into, given by position (``how``: ``"out"`` for its output array,
    else ``"in place"``); None if none (``out=`` by keyword is found by its name)."""
    if facts is None:
        return None
    for position in facts.mutates:
        if isinstance(position, int) and position < len(call.args) and \
                not any(isinstance(a, gast.Starred) for a in call.args[:position + 1]):
            arg = call.args[position]
            if isinstance(arg, gast.Constant) and arg.value is None:
                continue
            return "out" if "out" in facts.mutates else "in place", arg, facts.advice
    return None


_STAND_INS: dict | None = None


def _stand_in(value):
    """The definition of ``s2sad.implementations`` a NumPy function without a derivative
    rule is inlined as (``np.interp``...), or None."""
    global _STAND_INS
    if _STAND_INS is None:
        from .. import implementations
        _STAND_INS = implementations.table()
    try:
        return _STAND_INS.get(value) if registry.lookup(value) is None else None
    except TypeError:  # (an unhashable value: an array)
        return None


_NOT_CONSTANT = object()
_CONSTANT_COMPARE = {gast.Is: operator.is_, gast.IsNot: operator.is_not, gast.Eq: operator.eq,
                     gast.NotEq: operator.ne, gast.Lt: operator.lt, gast.LtE: operator.le,
                     gast.Gt: operator.gt, gast.GtE: operator.ge}


def _constant(node):
    """The value of ``node`` if it is a constant (``None``, a string, a number, ``-1.0``),
    else ``_NOT_CONSTANT``."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and type(node.operand.value) in (int, float):
        return -node.operand.value
    if isinstance(node, gast.Constant) and (node.value is None or type(node.value) in (
            str, int, float, bool)):
        return node.value
    return _NOT_CONSTANT
