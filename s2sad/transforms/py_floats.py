"""Drop ``float(...)`` where the value is a Python float already.

A gradient with respect to a Python float, or a list of them, is returned as
one: ``float(s_x)``, ``list(map(float, s_x))``, since NumPy might have made a
sensitivity a ``numpy.float64``. When the generated code computes a sensitivity
from Python floats only, with ``+ - * /`` and ``math`` functions, the
conversion is a copy for nothing (on the seed's f4 it was a third of the
gradient's time). This pass infers which names hold Python floats, integers, or
new lists of Python floats, and removes the conversions of those, and the products by
``1.0`` of Python floats (an output's seed moved into an expression).

The inference is optimistic, then corrected: every assigned name is first taken
to be a float (and an integer, and a list of floats); any assignment of
something else removes it, until nothing changes. A list stays a list of floats
only if it is made here (``[0.0] * len(x)``, ``[s_a, s_b]``), only floats go into
it, and it is used in ways that cannot change it or let it escape (indexing,
``append``, ``pop``, ``len``, ``for``, the final ``return``).

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.transforms.kinds import from_descriptor
>>> fn = gast.parse('''def g(x, b):
...     stack = []
...     p = 1.0
...     for i in range(len(x)):
...         stack.append(p)
...         p = p * x[i]
...     s_x = [0.0] * len(x)
...     s_p = 1.0
...     for i in reversed(range(len(x))):
...         p = stack.pop()
...         s_x[i] += p * s_p
...         s_p = x[i] * s_p
...     s_b = b * 2.0
...     return (list(map(float, s_x)), float(s_b))''').body[0]
>>> kinds = {"x": from_descriptor(("list", ("float",) * 3), "x"),
...          "b": from_descriptor(("nd", 0, "f"), "b")}
>>> print(unparse(PythonFloats(kinds).visit(fn).body[-1]))
return (s_x, float(s_b))

``b`` is a 0-d array here, so ``s_b`` may be a NumPy scalar: its ``float`` stays.
"""

from __future__ import annotations

import builtins
from itertools import chain
from typing import Callable

import gast

from .. import registry, trees

_ARITH = (gast.Add, gast.Sub, gast.Mult)
_UNKNOWN = object()  # a binding whose value is not inferred (a loop over anything else...)
_PARAM_LIST = object()  # a parameter that is a list or tuple of Python floats


# nodes that open another scope (or reach into one): a body with one is left alone
_SCOPES = (gast.Lambda, gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Global,
           gast.Nonlocal, gast.NamedExpr)


class PythonFloats:
    """``kinds``: the kinds of the parameters (others are ignored); ``resolve(func)``:
    the object a called expression stands for, or None; ``shadowed``: names that are
    not the builtins here (the user's locals and globals)."""

    def __init__(self, kinds: dict, resolve: Callable | None = None,
                 shadowed: frozenset | set = frozenset()):
        self.kinds = kinds
        self.resolve = resolve or (lambda func: None)
        self.shadowed = shadowed

    # --- analysis --------------------------------------------------------------------

    def visit(self, fn: gast.FunctionDef) -> gast.FunctionDef:
        returns = [s for s in fn.body if isinstance(s, gast.Return)]
        if not any(isinstance(n, gast.Name) and n.id == "float"
                   for n in trees.walk(gast.Module(returns, []))):
            return fn  # no conversion where the gradients are returned: nothing to do
        walks = [trees.walk(stmt) for stmt in fn.body]  # (one walk, read several times)
        body = list(chain.from_iterable(walks))
        classes = set(map(type, body))
        if not classes.isdisjoint(_SCOPES):
            return fn  # other scopes: left alone
        self.params = {a.id for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        self.bindings: list = []  # (name, expression or marker)
        self.stores: list = []    # (list name, value stored as an item)
        self.bad_lists: set = set()  # used where it might change or escape
        self.excluded: set = set()   # bound in ways this pass does not follow
        for arg in (fn.args.vararg, fn.args.kwarg):
            if arg is not None:
                self.excluded.add(arg.id)
        for node in body if gast.comprehension in classes else ():  # a comprehension's own
            if isinstance(node, gast.comprehension):  # names are another scope's: not followed
                self.excluded |= {n.id for n in trees.walk(node.target)
                                  if isinstance(n, gast.Name)}
        for name in self.params:
            kind = self.kinds.get(name)
            marker = _UNKNOWN
            if kind is not None and kind.tag == "scalar" and kind.py in ("float", "int"):
                marker = gast.Constant(1.0 if kind.py == "float" else 1, None)
            elif kind is not None and kind.tag in ("list", "tuple") and kind.items and all(
                    k.tag == "scalar" and k.py == "float" for k in kind.items):
                marker = _PARAM_LIST
            self.bindings.append((name, marker))
        self.uses: list = []  # (top-level position, expression, iterated, returned): to check
        for self.position, stmt in enumerate(fn.body):
            self._statement(stmt)
        names = {name for name, _ in self.bindings} - self.excluded
        self.floats, self.ints = set(names), set(names)
        self.lists = {name for name, value in self.bindings if value is _PARAM_LIST or
                      _list_shaped(value)} - self.excluded
        # how a list is used matters only in the statements that name one
        naming = {position for position, nodes in enumerate(walks) if not self.lists.isdisjoint(
            n.id for n in nodes if type(n) is gast.Name)} if self.lists else ()
        for position, expr, iterated, returned in self.uses:
            if position in naming:
                self._used(expr, iterated, returned)
        self.lists -= self.bad_lists
        changed = True
        while changed:
            changed = False
            for name, value in self.bindings:
                kind = self.type_of(value) if isinstance(value, gast.AST) else None
                for known, wanted in ((self.floats, "float"), (self.ints, "int")):
                    if name in known and kind != wanted:
                        known.discard(name)
                        changed = True
                if name in self.lists and not (value is _PARAM_LIST or self._new_list(value)):
                    self.lists.discard(name)
                    changed = True
            for name, value in self.stores:
                if name in self.lists and self.type_of(value) != "float":
                    self.lists.discard(name)
                    changed = True
        # a new list returned as it is, once: returned twice, the two would be one object
        listed = [self._map_float(n) for r in body if isinstance(r, gast.Return)
                  for n in trees.walk(r)]
        names = [x.id for x in listed if isinstance(x, gast.Name)]
        self.fresh_lists = self.lists - self.params - {n for n in names if names.count(n) > 1}
        # (the statements with no `float(...)` or `list(...)` in them are not visited again)
        unchanged = {id(stmt) for stmt, nodes in zip(fn.body, walks) if not any(
            type(n) is gast.Call and type(n.func) is gast.Name and
            n.func.id in ("float", "list") or _times_one(n) for n in nodes)}
        return _Rewrite(self, unchanged).visit(fn)

    def _statement(self, stmt) -> None:
        if isinstance(stmt, gast.Assign):
            for target in stmt.targets:
                self._bind(target, stmt.value)
            unpacked = isinstance(stmt.value, gast.Name) and all(  # `a, b = xs` reads xs
                isinstance(t, (gast.Tuple, gast.List)) for t in stmt.targets)
            self._uses(stmt.value, iterated=unpacked)
        elif isinstance(stmt, gast.AugAssign):
            target = stmt.target
            if isinstance(target, gast.Name):
                self.bindings.append((target.id, gast.BinOp(
                    gast.Name(target.id, gast.Load(), None, None), stmt.op, stmt.value)))
            elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                item = gast.Subscript(gast.Name(target.value.id, gast.Load(), None, None),
                                      target.slice, gast.Load())
                self.stores.append((target.value.id, gast.BinOp(item, stmt.op, stmt.value)))
                self._uses(target.slice)
            else:
                self._spoil(target)
            self._uses(stmt.value)
        elif isinstance(stmt, gast.For):
            self._loop_target(stmt.target, stmt.iter)
            self._uses(stmt.iter, iterated=True)
            for inner in stmt.body + stmt.orelse:
                self._statement(inner)
        elif isinstance(stmt, (gast.If, gast.While)):
            self._uses(stmt.test)
            for inner in stmt.body + stmt.orelse:
                self._statement(inner)
        elif isinstance(stmt, gast.Expr):
            call = stmt.value
            if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
                    isinstance(call.func.value, gast.Name) and not call.keywords:
                owner = call.func.value.id
                if call.func.attr == "append" and len(call.args) == 1:
                    self.stores.append((owner, call.args[0]))
                    self._uses(call.args[0])
                    return
                if call.func.attr == "pop" and not call.args:
                    return
            self._uses(call)
        elif isinstance(stmt, gast.Return):
            if stmt.value is not None:
                self._uses(stmt.value, returned=True)
        elif isinstance(stmt, (gast.Pass, gast.Break, gast.Continue)):
            pass
        else:  # anything else: every name in it is left alone
            for node in trees.walk(stmt):
                if isinstance(node, gast.Name):
                    self.excluded.add(node.id)
                    self.bad_lists.add(node.id)

    def _bind(self, target, value) -> None:
        if isinstance(target, gast.Name):
            self.bindings.append((target.id, value))
        elif isinstance(target, (gast.Tuple, gast.List)):
            items = value.elts if isinstance(value, (gast.Tuple, gast.List)) and \
                len(value.elts) == len(target.elts) and \
                not any(isinstance(e, gast.Starred) for e in value.elts) else None
            for i, element in enumerate(target.elts):
                if items is not None:
                    self._bind(element, items[i])
                elif isinstance(value, gast.Name) and isinstance(element, gast.Name):
                    # an item of a list of floats: typed as `value[0]` would be
                    self.bindings.append((element.id, gast.Subscript(
                        gast.Name(value.id, gast.Load(), None, None),
                        gast.Constant(0, None), gast.Load())))
                else:
                    self._spoil(element)
        elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            self.stores.append((target.value.id, value))
            self._uses(target.slice)
        else:
            self._spoil(target)

    def _spoil(self, target) -> None:
        for node in trees.walk(target):
            if isinstance(node, gast.Name):
                self.excluded.add(node.id)
                self.bad_lists.add(node.id)
        if not isinstance(target, gast.Name):
            self._uses(target)

    def _loop_target(self, target, iterated) -> None:
        if not isinstance(target, gast.Name):
            return self._spoil(target)
        call = iterated
        if isinstance(call, gast.Call) and self._is_builtin(call.func, reversed) and \
                len(call.args) == 1:
            call = call.args[0]
        if isinstance(call, gast.Call) and self._is_builtin(call.func, range):
            self.bindings.append((target.id, gast.Constant(0, None)))  # an int
        elif isinstance(iterated, gast.Name):  # an item, if it is a list of floats
            self.bindings.append((target.id, gast.Subscript(
                gast.Name(iterated.id, gast.Load(), None, None), gast.Constant(0, None),
                gast.Load())))
        else:
            self.bindings.append((target.id, _UNKNOWN))

    def _uses(self, expr, iterated: bool = False, returned: bool = False) -> None:
        """Note ``expr`` (in the statement at the top level at ``position``) for ``_used``."""
        self.uses.append((self.position, expr, iterated, returned))

    def _used(self, expr, iterated: bool = False, returned: bool = False) -> None:
        """Mark the lists ``expr`` uses in a way that might change them or let them escape."""
        if isinstance(expr, gast.Name):
            if not (iterated or returned):
                self.bad_lists.add(expr.id)
            return
        if returned and isinstance(expr, (gast.Tuple, gast.List)):
            for element in expr.elts:
                self._used(element, returned=True)
            return
        if isinstance(expr, gast.Subscript):  # reading an item or a slice changes nothing
            if not isinstance(expr.value, gast.Name):
                self._used(expr.value)
            self._used(expr.slice)
            return
        if isinstance(expr, gast.Call):
            func = expr.func
            if self._is_builtin(func, len) and len(expr.args) == 1 and \
                    isinstance(expr.args[0], gast.Name):
                return
            if returned and self._map_float(expr) is not None:
                return
            if isinstance(func, gast.Attribute) and func.attr == "pop" and not expr.args and \
                    isinstance(func.value, gast.Name):
                return
        for child in trees.children(expr):
            self._used(child)

    # --- types -----------------------------------------------------------------------

    def _is_builtin(self, func, builtin) -> bool:
        """Is the called ``func`` the function ``builtin`` (``float``): its name, which the
        user's code gives no other meaning?"""
        return isinstance(func, gast.Name) and func.id not in self.shadowed and \
            getattr(builtins, func.id, None) is builtin

    def _new_list(self, value) -> bool:
        """``[a, b]`` of floats, or ``[0.0] * n``."""
        if isinstance(value, gast.List):
            return all(self.type_of(e) == "float" for e in value.elts)
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult):
            for items, count in ((value.left, value.right), (value.right, value.left)):
                if isinstance(items, gast.List) and items.elts and \
                        all(self.type_of(e) == "float" for e in items.elts) and \
                        self.type_of(count) == "int":
                    return True
        return False

    def _map_float(self, call):
        """``X`` of ``list(map(float, X))``, else None."""
        if isinstance(call, gast.Call) and self._is_builtin(call.func, list) and \
                len(call.args) == 1 and not call.keywords:
            inner = call.args[0]
            if isinstance(inner, gast.Call) and self._is_builtin(inner.func, map) and \
                    len(inner.args) == 2 and self._is_builtin(inner.args[0], float):
                return inner.args[1]
        return None

    def type_of(self, expr) -> str | None:
        """"float", "int" or None (not known), under the current assumptions."""
        if isinstance(expr, gast.Constant):
            if type(expr.value) is float:
                return "float"
            return "int" if type(expr.value) is int else None
        if isinstance(expr, gast.Name):
            if expr.id in self.floats:
                return "float"
            return "int" if expr.id in self.ints else None
        if isinstance(expr, gast.BinOp):
            left, right = self.type_of(expr.left), self.type_of(expr.right)
            if left is None or right is None:
                return None
            both_int = left == right == "int"
            if isinstance(expr.op, _ARITH + (gast.FloorDiv, gast.Mod)):
                return "int" if both_int else "float"
            if isinstance(expr.op, gast.Div):
                return "float"
            if isinstance(expr.op, gast.Pow) and right == "int" and \
                    isinstance(expr.right, gast.Constant):
                return left if left == "float" or expr.right.value >= 0 else None
            return None
        if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)):
            return self.type_of(expr.operand)
        if isinstance(expr, gast.IfExp):
            body, orelse = self.type_of(expr.body), self.type_of(expr.orelse)
            return body if body == orelse else None
        if isinstance(expr, gast.Subscript):
            if isinstance(expr.value, gast.Name) and expr.value.id in self.lists and \
                    self.type_of(expr.slice) == "int":
                return "float"
            return None
        if isinstance(expr, gast.Call) and not expr.keywords:
            return self._call_type(expr)
        return None

    def _call_type(self, call) -> str | None:
        func, args = call.func, call.args
        if any(isinstance(a, gast.Starred) for a in args):
            return None
        if self._is_builtin(func, float) and len(args) == 1:
            return "float"
        if (self._is_builtin(func, len) or self._is_builtin(func, int)) and \
                len(args) == 1:
            return "int"
        if self._is_builtin(func, abs) and len(args) == 1:
            return self.type_of(args[0])
        if self._is_builtin(func, pow) and len(args) == 2 and \
                self.type_of(args[0]) == "float" and isinstance(args[1], gast.Constant) and \
                type(args[1].value) is int:
            return "float"  # (as `x ** 3`; pow(-8.0, 1 / 3) is complex)
        if (self._is_builtin(func, max) or self._is_builtin(func, min)) and \
                len(args) == 2 and self.type_of(args[0]) == self.type_of(args[1]):
            return self.type_of(args[0])  # (the one it returns)
        if isinstance(func, gast.Attribute) and func.attr == "pop" and not args and \
                isinstance(func.value, gast.Name) and func.value.id in self.lists:
            return "float"
        if args and all(self.type_of(a) in ("float", "int") for a in args):
            try:
                target = self.resolve(func)
            except Exception:  # noqa: BLE001  (anything unresolvable is not known)
                return None
            facts = registry.facts(target) if target is not None else None
            if facts is not None and facts.floats:  # (math.sin: a float for numbers)
                return "float"
        return None


def _is_one(node) -> bool:
    return type(node) is gast.Constant and type(node.value) is float and node.value == 1.0


def _times_one(node) -> bool:
    """``e * 1.0`` or ``1.0 * e``?"""
    return type(node) is gast.BinOp and type(node.op) is gast.Mult and (
        _is_one(node.left) or _is_one(node.right))


def _list_shaped(value) -> bool:
    """Could ``value`` be a new list of floats (``[a, b]``, ``[0.0] * n``), as
    ``_new_list`` checks? Only a name bound to one is a list to follow (not ``p = a * b``:
    on straight-line code, every statement would then be looked at for how it uses it)."""
    return isinstance(value, gast.List) or isinstance(value, gast.BinOp) and \
        isinstance(value.op, gast.Mult) and (isinstance(value.left, gast.List) or
                                            isinstance(value.right, gast.List))


class _Rewrite(trees.Transformer):
    def __init__(self, facts: PythonFloats, unchanged: set[int] = frozenset()):
        self.facts = facts
        self.unchanged = unchanged  # ids of the statements it leaves as they are

    def visit(self, node):
        if id(node) in self.unchanged:
            return node
        return super().visit(node)

    def visit_BinOp(self, node):
        """``e * 1.0`` is ``e`` itself when ``e`` is a Python float (the seed of a float
        output, moved into an expression), exactly, NaN and -0.0 included."""
        self.generic_visit(node)
        if _times_one(node):
            other = node.left if _is_one(node.right) else node.right
            if self.facts.type_of(other) == "float":
                return other
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        facts = self.facts
        if facts._is_builtin(node.func, float) and len(node.args) == 1 and \
                not node.keywords and facts.type_of(node.args[0]) == "float":
            return node.args[0]
        listed = facts._map_float(node)
        if isinstance(listed, gast.Name) and listed.id in facts.fresh_lists:
            return listed
        return node
