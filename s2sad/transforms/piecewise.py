"""``np.piecewise`` with functions in its ``funclist``, written out as NumPy runs it.

NumPy calls each function on the entries its condition selects only, and stores the
result there; a later condition overwrites an earlier one, and one function more than
conditions is the default, where no condition holds. A call whose ``funclist`` is a list
or tuple display is written out before its statement, each function a name (a lambda
assigned to a name, which s2sad inlines) called on its own entries:

    y = np.piecewise(x, [x < 0], [lambda v: v * v, np.sin])

becomes

    x_pw = np.asanyarray(x)
    cond_pw = piecewise_conditions(x_pw, [x < 0], [None, None])
    y_pw = np.zeros_like(x_pw)
    f_pw = lambda v: v * v
    if np.any(cond_pw[0]):
        y_pw[cond_pw[0]] = f_pw(x_pw[cond_pw[0]])
    ...
    y = y_pw

A value in ``funclist`` is stored where its condition holds (``y[cond] = value``). What
Python evaluates before the call in its statement and that calls something
(``np.exp(x) + np.piecewise(...)``) is computed first, in order, into a name of its own
(``arg_pw = np.exp(x)``), so each call still runs when Python runs it. A call that is
evaluated conditionally or more than once (in a comprehension, a lambda, a ``while``
test, one branch of ``a if c else b`` or ``and``/``or``, a chained comparison past its
first) is refused at its line: moved before the statement, it would run at another time.
"""

from __future__ import annotations

import gast
import numpy as np

from .. import trees
from ..errors import DifferentiationError
from ..runtime.numpy_more import piecewise_conditions
from .resolve import static_value

_DEFERRED = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_ADVICE = ("Assign np.piecewise(...) to a name on a line of its own, before the expression "
           "that reads it.")


def _funclist(call):
    if len(call.args) >= 3:
        return call.args[2]
    return next((k.value for k in call.keywords if k.arg == "funclist"), None)


def is_piecewise(call, source, local_names) -> bool:
    """Is ``call`` ``np.piecewise(x, condlist, [...])`` with a display for ``funclist``?"""
    if not isinstance(call, gast.Call) or not isinstance(_funclist(call),
                                                          (gast.List, gast.Tuple)):
        return False
    try:
        return static_value(call.func, source, local_names) is np.piecewise
    except (KeyError, TypeError):
        return False


def _callable(item, source, local_names, lambdas=frozenset()) -> bool:
    """Is ``item`` of a ``funclist`` display a function (a lambda, a local name only ever
    given lambdas, or a name or dotted name outside the function whose value is
    callable)?"""
    if isinstance(item, gast.Lambda) or isinstance(item, gast.Name) and item.id in lambdas:
        return True
    if isinstance(item, gast.Name) and item.id in local_names:
        return False  # (a local value: read as a value, as the stand-in does)
    try:
        return callable(static_value(item, source, local_names))
    except (KeyError, TypeError):
        return False


def _children(node) -> list:
    """The expressions ``node`` evaluates, in Python's order (a dict display's keys and
    values in turn, a ``:=``'s value before its target)."""
    if isinstance(node, gast.Dict):
        pairs = zip(node.keys, node.values)
        return [part for pair in pairs for part in pair if part is not None]
    if isinstance(node, gast.NamedExpr):
        return [node.value, node.target]
    return [child for child in gast.iter_child_nodes(node)
            if isinstance(child, (gast.expr, gast.keyword))]


def _in_order(stmt):
    """The nodes of ``stmt`` in the order Python evaluates them (an assignment's value
    before its targets), nested statements' bodies left out."""
    if isinstance(stmt, gast.Assign):
        parts = [stmt.value] + list(stmt.targets)
    elif isinstance(stmt, (gast.If, gast.While)):
        parts = [stmt.test]
    elif isinstance(stmt, gast.For):
        parts = [stmt.iter]
    elif isinstance(stmt, (gast.Return, gast.Expr, gast.AugAssign, gast.AnnAssign)):
        parts = [stmt.target, stmt.value] if isinstance(stmt, gast.AugAssign) else \
            [getattr(stmt, "value", None)]
    else:
        parts = []
    order = []

    def walk(node, ancestors):
        order.append((node, ancestors))
        for child in _children(node):
            walk(child, ancestors + (node,))
    for part in parts:
        if part is not None:
            walk(part, ())
    return order


def _dotted(node) -> bool:
    """Is ``node`` a name or a dotted name (``np.sum``, ``self.f``)?"""
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name)


def _replace(parent, old, new) -> None:
    """``old``, a child of ``parent``, replaced there by ``new``."""
    for field, value in gast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
        elif isinstance(value, list):
            value[:] = [new if v is old else v for v in value]


class Piecewise:
    """Writes out the ``np.piecewise`` calls with functions of a function's body."""

    def __init__(self, source, namer, helper, numpy_name: str, local_names: set[str]):
        self.source, self.namer, self.name_helper = source, namer, helper
        self.np = numpy_name
        self.local_names = local_names
        self.changed = False
        self.helper = None
        self.lambdas = set()  # local names every assignment of which is a function

    def _lambda_names(self, tree):
        stores: dict = {}
        given: dict = {}
        for node in trees.walk(tree):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                stores[node.id] = stores.get(node.id, 0) + 1
            elif isinstance(node, gast.Assign) and (
                    isinstance(node.value, gast.Lambda) or
                    isinstance(node.value, (gast.Name, gast.Attribute)) and
                    _callable(node.value, self.source, self.local_names)):
                for target in node.targets:  # (f = lambda v: ..., g = np.sin)
                    if isinstance(target, gast.Name):
                        given[target.id] = given.get(target.id, 0) + 1
        defined = {n.name for n in trees.walk(tree)
                   if isinstance(n, gast.FunctionDef) and n is not tree}  # (a helper def)
        self.lambdas = {n for n, count in given.items() if stores.get(n) == count} | {
            n for n in defined if n not in stores}

    def acts(self, nodes) -> bool:
        """Could :meth:`run` change or refuse anything in the function walked as ``nodes``:
        is there a call with a display for its third argument or its ``funclist=``
        (:func:`is_piecewise` looks at no other)?"""
        return any(n.__class__ is gast.Call and isinstance(_funclist(n), (gast.List, gast.Tuple))
                   for n in nodes)

    def run(self, tree):
        self._lambda_names(tree)
        self.block_of(tree)
        return tree

    def block_of(self, node):
        for field in ("body", "orelse", "finalbody", "handlers"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                new = []
                for stmt in stmts:
                    new.extend(self.statement(stmt))
                    self.block_of(stmt)
                stmts[:] = new

    def statement(self, stmt) -> list:
        order = _in_order(stmt)
        found = [(n, up) for n, up in order if is_piecewise(n, self.source, self.local_names)
                 and any(_callable(i, self.source, self.local_names, self.lambdas)
                         for i in _funclist(n).elts)]
        if not found:
            return [stmt]
        call, ancestors = found[0]
        path = ancestors + (call,)
        if isinstance(stmt, gast.While) or any(
                isinstance(a, _DEFERRED) or isinstance(a, gast.IfExp) and a.test is not
                call and call not in trees.walk(a.test) or
                isinstance(a, gast.BoolOp) and call not in trees.walk(a.values[0]) or
                isinstance(a, gast.Compare) and path[i + 1] in a.comparators[1:]
                for i, a in enumerate(ancestors)):
            raise self.source.error(
                DifferentiationError, "s2sad writes np.piecewise with functions out before "
                "its statement, and this call is evaluated conditionally or more than once",
                call, _ADVICE)
        index = next(i for i, (n, _) in enumerate(order) if n is call)
        first = []
        if any(isinstance(n, gast.Call) and n not in ancestors for n, _ in order[:index]):
            first = self.computed_first(stmt, path)
        before, result = self.written_out(call)
        before = first + before
        for parent in [stmt] + [n for n, _ in order]:  # the call replaced by its result
            for field, value in gast.iter_fields(parent):
                if value is call:
                    setattr(parent, field, result)
                elif isinstance(value, list) and any(v is call for v in value):
                    value[:] = [result if v is call else v for v in value]
        self.changed = True
        return [*before, *self.statement(stmt)]  # (another call in the same statement)

    def computed_first(self, stmt, path) -> list:
        """What ``stmt`` evaluates before ``path[-1]`` (a piecewise call; ``path``: the
        expressions from the statement's part down to it), up to its last call, assigned
        in order to names of their own (``arg_pw = np.exp(x)``), each replaced by its name.
        A name, a constant, a lambda and a called function's name stay: none computes."""
        if isinstance(stmt, gast.AugAssign) and not isinstance(stmt.target, gast.Name):
            raise self.source.error(  # (y[i] += g(x) + ...: y[i] is read before g runs)
                DifferentiationError, "s2sad writes np.piecewise with functions out before "
                "its statement, and the item its `op=` updates is read before another "
                "call in it runs", path[-1], _ADVICE)
        earlier = []  # (parent, expression): in the order Python evaluates them
        for parent, child in zip(path, path[1:]):
            for sibling in _children(parent):
                if sibling is child:
                    break
                earlier.append((parent, sibling))
        last = max(i for i, (_, e) in enumerate(earlier)
                   if any(isinstance(n, gast.Call) for n in trees.walk(e)))
        stmts = []
        for parent, expr in earlier[:last + 1]:
            value = expr.value if isinstance(expr, (gast.keyword, gast.Starred)) else expr
            if isinstance(value, (gast.Name, gast.Constant, gast.Lambda)) or \
                    isinstance(parent, gast.Call) and parent.func is value and \
                    _dotted(value):
                continue  # (reading it computes nothing)
            if isinstance(value, gast.Slice) or any(
                    isinstance(n, gast.NamedExpr) for n in trees.walk(value)):
                raise self.source.error(
                    DifferentiationError, "s2sad writes np.piecewise with functions out "
                    "before its statement, and what runs before it in the statement cannot "
                    "be computed apart", path[-1], _ADVICE)
            name = self.namer.claim("arg_pw")
            stmts.append(gast.copy_location(
                gast.Assign([self._name(name, True)], value, None), value))
            holder = expr if isinstance(expr, (gast.keyword, gast.Starred)) else parent
            _replace(holder, value, self._name(name))
        return stmts

    def _name(self, base: str, store: bool = False):
        return gast.Name(base, gast.Store() if store else gast.Load(), None, None)

    def _np(self, attr: str):
        return gast.Attribute(self._name(self.np), attr, gast.Load())

    def written_out(self, call):
        x_arg = call.args[0] if call.args else next(
            (k.value for k in call.keywords if k.arg == "x"), None)
        cond_arg = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "condlist"), None)
        if x_arg is None or cond_arg is None or len(call.args) > 3 or any(
                k.arg not in ("x", "condlist", "funclist") for k in call.keywords):
            raise self.source.error(
                DifferentiationError, "s2sad writes np.piecewise(x, condlist, funclist) with "
                "functions of x alone, not their extra arguments", call,
                "Write the extra arguments into each function (lambda v: f(v, a)).")
        items = _funclist(call).elts
        if self.helper is None:
            self.helper = self.name_helper(piecewise_conditions)
            self.source.extra[self.helper] = piecewise_conditions
        x = self.namer.claim("x_pw")
        cond = self.namer.claim("cond_pw")
        y = self.namer.claim("y_pw")
        stmts = [
            gast.Assign([self._name(x, True)], gast.Call(self._np("asarray"), [x_arg], []),
                        None),
            gast.Assign([self._name(cond, True)], gast.Call(
                self._name(self.helper), [self._name(x), cond_arg,
                                          gast.List([gast.Constant(None, None)] * len(items),
                                                    gast.Load())], []), None),
            gast.Assign([self._name(y, True)], gast.Call(self._np("zeros_like"),
                                                         [self._name(x)], []), None)]
        named = []
        for item in items:  # (each evaluated in order before any is called, as in the call)
            if isinstance(item, (gast.Lambda, gast.Constant, gast.Name, gast.Attribute)):
                named.append(item)
                continue
            name = self.namer.claim("v_pw")
            stmts.append(gast.Assign([self._name(name, True)], item, None))
            named.append(self._name(name))
        for i, item in enumerate(named):
            mask = gast.Subscript(self._name(cond), gast.Constant(i, None), gast.Load())
            if not _callable(item, self.source, self.local_names, self.lambdas):
                # a value: stored where its condition holds, as NumPy stores it
                stmts.append(gast.Assign([gast.Subscript(self._name(y), mask, gast.Store())],
                                         item, None))
                continue
            if isinstance(item, gast.Lambda):
                name = self.namer.claim("f_pw")
                stmts.append(gast.Assign([self._name(name, True)], item, None))
                item = self._name(name)
            selected = gast.Subscript(self._name(x), trees.clone(mask), gast.Load())
            store = gast.Assign([gast.Subscript(self._name(y), trees.clone(mask),
                                                gast.Store())],
                                gast.Call(item, [selected], []), None)
            # (NumPy calls it where its condition selects an entry, not on none)
            stmts.append(gast.If(gast.Call(self._np("any"), [trees.clone(mask)], []),
                                 [store], []))
        for stmt in stmts:
            gast.copy_location(stmt, call)
            for node in trees.walk(stmt):
                if not hasattr(node, "lineno") and "lineno" in getattr(node, "_attributes",
                                                                          ()):
                    gast.copy_location(node, call)
        return stmts, self._name(y)
