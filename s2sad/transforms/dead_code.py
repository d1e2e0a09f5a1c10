"""Remove statements whose values nothing reads: unused forward work and unused adjoints.

Liveness is computed over the structured code (branches, and loops to a fixed
point), so a reset at the end of a loop body that the next pass overwrites goes
too, and an ``if`` or a ``for`` over ``range`` left with nothing to do. Only statements
known to be free of side effects go: arithmetic, indexing, and calls that ``is_pure``
accepts (the rule table's functions, runtime helpers). Calls of unknown functions always
stay. A line of the user's that may raise stays too (``t = x[10]``: ``raises``, an
:class:`~s2sad.transforms.unread_raises.UnreadRaises`), unless a line kept raises in the
same cases. A comment goes with its block.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(x, n):
...     s_1, s_2 = [0.0] * 2
...     y = x * 2.0
...     z = np.sin(y)
...     print(z)
...     w = np.cos(y)
...     cond_1 = x > 1.0
...     if cond_1:
...         u = w * 3.0
...     for _ in range(n):
...         s_1 = y
...         s_2 = s_1 * 2.0
...         y = s_2
...         s_1 = 0.0
...     return y''').body[0]
>>> print(unparse(DeadCode(lambda func: unparse(func) in ("np.sin", "np.cos")).visit(fn)))
def g(x, n):
    y = x * 2.0
    z = np.sin(y)
    print(z)
    for _ in range(n):
        s_1 = y
        s_2 = s_1 * 2.0
        y = s_2
    return y

A loop over ``range`` whose body is all dead goes too, unless its variable is read after:

>>> fn = gast.parse('''def g(xs):
...     for i in range(len(xs)):
...         t = xs[i] * 2.0
...     return xs''').body[0]
>>> print(unparse(DeadCode(lambda func: unparse(func) in ("range", "len")).visit(fn)))
def g(xs):
    return xs

A push or pop of the gradient's own stack (``stacks``) goes where nothing pops from the
stack after it, and the value popped is read nowhere:

>>> fn = gast.parse('''def g(x, n):
...     stack = []
...     trips = 0
...     for _ in range(n):
...         trips += 1
...         stack.append(x)
...         x = x * 2.0
...     y = x
...     for _ in range(trips):
...         x = stack.pop()
...     return y''').body[0]
>>> print(unparse(DeadCode(lambda func: unparse(func) == "range", {"stack"}).visit(fn)))
def g(x, n):
    for _ in range(n):
        x = x * 2.0
    y = x
    return y

Of the names set to None before a loop (what it saves before its first pass sets them),
only those still read stay:

>>> fn = gast.parse('''def g(x, n):
...     stack = []
...     t_1, t_2 = (None, None)
...     for _ in range(n):
...         stack.append(t_1)
...         t_1 = x * 2.0
...         x = t_1
...     return (x, stack)''').body[0]
>>> print(unparse(DeadCode(lambda func: False).visit(fn)))
def g(x, n):
    stack = []
    t_1 = None
    for _ in range(n):
        stack.append(t_1)
        t_1 = x * 2.0
        x = t_1
    return (x, stack)
"""

from __future__ import annotations

from typing import Callable

import gast

from .. import trees
from ..codegen import comment_text, is_note
from .first_assignment import written, zero_init_names


def _loads(node) -> set[str]:
    return {n.id for n in trees.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}


def _has_break(stmts) -> bool:
    def walk(node):
        if isinstance(node, gast.Break):
            return True
        if isinstance(node, (gast.For, gast.While)):
            return False
        return any(walk(c) for c in gast.iter_child_nodes(node))
    return any(walk(s) for s in stmts)


def _tape_use(stmt, stacks) -> str | None:
    """The stack of ``stacks`` that ``stmt`` only pushes to or pops from
    (``stack.append(v)``, ``x = stack.pop()``, ``stack.pop()``), else None."""
    call = stmt.value if isinstance(stmt, (gast.Expr, gast.Assign)) else None
    if isinstance(stmt, gast.Assign) and not (
            len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
        return None
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and
            isinstance(call.func.value, gast.Name) and call.func.value.id in stacks and
            not call.keywords):
        return None
    if call.func.attr == "pop" and not call.args or \
            call.func.attr == "append" and isinstance(stmt, gast.Expr) and len(call.args) == 1:
        return call.func.value.id
    return None


class DeadCode(trees.Transformer):
    """``stacks``: the lists the gradient records on, whose pushes and pops the compiler
    pairs (a pop never finds one empty). A push or pop is dead where nothing reads the
    stack after it (nor the value popped), as a pure assignment to it would be."""

    def __init__(self, is_pure: Callable, stacks=frozenset(), kinds=None,
                 sensitivities=frozenset(), raises=None):
        self.is_pure = is_pure
        # what a primal line may raise (an UnreadRaises); None: only may_raise's numbers
        self.raises = raises
        self.kinds = kinds  # (the primal's names' kinds: where Python's numbers may raise)
        self.sensitivities = frozenset(sensitivities)
        self.stacks = frozenset(stacks)
        self.changed = False  # (whether a visit dropped or shortened a statement)
        self.dropped_conditions = frozenset()  # (the broadcasts the lines dropped checked)
        self._dropped: dict = {}
        self._dry = False
        # id of a simple statement -> (it, its facts): a loop's body is walked until what
        # is live settles, so each statement's facts are found once
        self._known: dict = {}

    def visit_FunctionDef(self, node):
        self._known.clear()
        self._kept = set()  # (ids of the lines that may raise unless a line kept implies not)
        if self.raises is not None:
            self.raises.enter(node)
        if self.raises is not None and any(self._facts(s)[3] for s in trees.walk(node)
                                           if isinstance(s, (gast.Assign, gast.AugAssign))):
            self._dry = True
            while True:  # (a line kept because one dropped reads it may imply the latter)
                self._dropped = {}
                kept = self.block(node.body, set(), exit_live=set(), apply=False)[0]
                seen = self.raises.broadcasts(kept) if self._dropped else []
                failed = {key for key, conditions in self._dropped.items()
                          if not self.raises.implied(kept, conditions, seen)}
                if not failed:
                    break
                self._kept |= failed
        self._dry, self._dropped = False, {}
        node.body = self.block(node.body, set(), exit_live=set(), apply=True)[0]
        # (what a later pass must leave checked: UnreadRaises.checks at the end)
        self.dropped_conditions = frozenset().union(*self._dropped.values())
        return node

    def block(self, stmts, live: set, exit_live: set, apply: bool):
        """Walk ``stmts`` backwards from ``live``; ``exit_live``: live where a break goes."""
        kept = []
        live = set(live)
        for stmt in reversed(stmts):
            if comment_text(stmt) is not None:
                if is_note(stmt) or kept and comment_text(kept[-1]) is None or \
                        kept and is_note(kept[-1]):  # (a heading over code or a note)
                    kept.append(stmt)
                continue
            if isinstance(stmt, gast.Return):
                live |= _loads(stmt)
                kept.append(stmt)
                continue
            if isinstance(stmt, gast.Break):
                live = set(exit_live)
                kept.append(stmt)
                continue
            if isinstance(stmt, gast.If):
                body, live_body = self.block(stmt.body, live, exit_live, apply)
                orelse, live_else = self.block(stmt.orelse, live, exit_live, apply)
                if not body and not orelse and not any(  # `if cond_1: pass`: gone
                        isinstance(n, gast.Call) for n in trees.walk(stmt.test)):
                    live = live_body | live_else
                    continue
                if apply:
                    stmt.body, stmt.orelse = body or [gast.Pass()], orelse
                live = live_body | live_else | _loads(stmt.test)
                kept.append(stmt)
                continue
            if isinstance(stmt, (gast.For, gast.While)):
                header = _loads(stmt.iter) if isinstance(stmt, gast.For) else _loads(stmt.test)
                after = set(live)
                entry = set(after) | header
                while True:  # what is live at the top of one pass is live at the end of one
                    _, inner = self.block(stmt.body, entry, after, apply=False)
                    new = entry | inner
                    if new == entry:
                        break
                    entry = new
                body, inner = self.block(stmt.body, entry, after, apply)
                if not body and isinstance(stmt, gast.For) and \
                        isinstance(stmt.target, gast.Name) and stmt.target.id not in after and \
                        self._facts(gast.Assign([stmt.target], stmt.iter, None))[2]:
                    continue  # `for i in range(n): pass`: gone (its last i read nowhere)
                if apply:
                    stmt.body = body or [gast.Pass()]
                if isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name):
                    inner = inner - {stmt.target.id}  # (each pass sets it before its body)
                live = after | inner | header
                kept.append(stmt)
                continue
            init, value = zero_init_names(stmt), 0.0
            if init is None:
                init, value = _none_init_names(stmt), None
            if init is not None and len(init) > 1:
                needed = [n for n in init if n in live]
                if apply and needed != init:
                    stmt = _init(needed, value) if needed else None
                    self.changed = True
                live -= set(init)
                if stmt is not None:
                    kept.append(stmt)
                continue
            targets, loads, pure, conditions = self._facts(stmt)
            if conditions and id(stmt) in self._kept:
                pure = False  # (it may raise, and no line kept raises in the same cases)
            tape = _tape_use(stmt, self.stacks)
            if tape is not None and tape not in live and not (targets & live):
                continue  # a push or pop of a stack nothing pops after it
            mutates = _mutates(stmt)
            if pure and targets and not (targets & live) and not mutates:
                if conditions and (apply or self._dry):  # (the last walk's: dropped)
                    self._dropped[id(stmt)] = conditions
                continue  # nothing reads what it writes
            if isinstance(stmt, gast.Assign) and not mutates:
                live -= targets
            live |= loads
            if mutates or isinstance(stmt, gast.AugAssign):
                live |= targets
            kept.append(stmt)
        if apply and len(kept) != len(stmts):
            self.changed = True
        return kept[::-1], live

    def _facts(self, stmt) -> tuple[set, set, bool, frozenset]:
        """The names ``stmt`` writes, those it reads, whether it is pure (calls only pure
        functions, raises nothing; a call statement is kept for what it does: append,
        np.add.at, print...), and the shapes that must broadcast for it not to raise (a
        line of the primal: ``UnreadRaises``), found once per statement."""
        known = self._known.get(id(stmt))
        if known is not None and known[0] is stmt:
            return known[1]
        loads, pure = set(), not isinstance(stmt, gast.Expr)
        kinds = self.kinds
        for node in trees.walk(stmt):
            cls = node.__class__
            if cls is gast.Name:
                if isinstance(node.ctx, gast.Load):
                    loads.add(node.id)
                continue  # (no call, and no division: may_raise says False)
            if pure and cls is gast.Call and not self.is_pure(node.func):
                pure = False
            if pure and kinds is not None and (cls is gast.BinOp or cls is gast.Call) and \
                    may_raise(node, kinds, self.sensitivities):
                pure = False  # (only a call or a binary operation may raise)
        targets, conditions = written(stmt), frozenset()
        if pure and self.raises is not None and not isinstance(stmt, gast.Expr) and \
                targets and targets <= set(kinds or ()) and \
                not (targets | loads) & self.sensitivities:
            found = self.raises.conditions(stmt)  # (a line of the primal: the user's)
            pure, conditions = found is not None, found or frozenset()
        facts = (targets, loads, pure, conditions)
        self._known[id(stmt)] = (stmt, facts)
        return facts


def may_raise(node, kinds: dict, sensitivities=frozenset()) -> bool:
    """Is ``node`` a division, remainder or power of the primal's values that may be
    Python's numbers (no operand known to be an array)? Python raises there where NumPy
    warns (``1.0 / 0.0``, ``0.0 ** -1``: ZeroDivisionError), so the line stays where
    nothing reads its value, and raises at the user's line.

    >>> from s2sad.transforms.kinds import Kind
    >>> kinds = {"a": Kind("scalar", "()", 0, py="float"), "x": Kind("array", "x", 1),
    ...          "m": Kind("scalar", "()", 0),   # (m = np.sum(x): NumPy's float64)
    ...          "z": Kind("scalar", "()", 0, py="number")}  # (z = 1 if c else 2.0)
    >>> [may_raise(gast.parse(text).body[0].value, kinds, {"s_a"}) for text in
    ...  ("a / float(a * 0.0)", "x / a", "a / 2.0", "a ** -1", "a ** 3", "s_a / a",
    ...   "pow(a, -1)", "divmod(x, a)", "m / a", "a / z")]
    [True, False, False, True, False, False, True, False, False, True]

    So is ``float(v)`` (``int``, ``complex``) of a value that may be an array of one axis
    or more (NumPy raises TypeError: only 0-dimensional arrays are converted):

    >>> [may_raise(gast.parse(text).body[0].value, kinds, set()) for text in
    ...  ("float(x)", "float(a)", "float(m)", "int(x[0])", "float(2.0 * a)")]
    [True, False, False, True, False]
    """
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id in ("float", "int", "complex") and node.func.id not in kinds and \
            len(node.args) == 1 and not node.keywords:  # (of an array of one axis or more:
        return _maybe_array(node.args[0], kinds)    # NumPy raises TypeError)
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id in ("pow", "divmod") and node.func.id not in kinds and \
            len(node.args) == 2 and not node.keywords:  # (Python's own: the same operations)
        node = gast.BinOp(node.args[0], gast.Pow() if node.func.id == "pow" else gast.Mod(),
                          node.args[1])
    if not (isinstance(node, gast.BinOp) and
            isinstance(node.op, (gast.Div, gast.FloorDiv, gast.Mod, gast.Pow))):
        return False
    if isinstance(node.right, gast.Constant) and isinstance(node.right.value, (int, float)) \
            and (node.right.value >= 0 if isinstance(node.op, gast.Pow) else
                 node.right.value != 0):
        return False  # (by a number that is not 0; to a power not negative: 0.0 ** -1
        # raises, x ** 2 overflows alone, OverflowError, which s2sad leaves to NumPy's inf)
    if any(isinstance(n, gast.Name) and n.id in sensitivities for n in trees.walk(node)):
        return False  # (a sensitivity's: the reverse sweep's own work)

    def array(part) -> bool:  # (NumPy's: an array, a NumPy result of unknown rank, or a
        if isinstance(part, gast.Name):  # number not known to be Python's: np.sum's result;
            kind = kinds.get(part.id)   # a join of a Python int and float is Python's)
            return kind is not None and (kind.tag in ("array", "numeric") or
                                         kind.tag == "scalar" and kind.py is None)
        if isinstance(part, gast.BinOp):
            return isinstance(part.op, gast.MatMult) or array(part.left) or array(part.right)
        return isinstance(part, gast.UnaryOp) and array(part.operand)
    return not (array(node.left) or array(node.right))


def _maybe_array(node, kinds: dict) -> bool:
    """May ``node`` be a NumPy array of one axis or more (what ``float()`` refuses)?"""
    if isinstance(node, gast.Constant):
        return False
    if isinstance(node, gast.Name):
        kind = kinds.get(node.id)
        return kind is None or kind.tag in ("array", "numeric", "any") and kind.ndim != 0
    if isinstance(node, (gast.BinOp, gast.UnaryOp)):
        return any(_maybe_array(part, kinds) for part in gast.iter_child_nodes(node)
                   if isinstance(part, gast.expr))
    return True  # (an index, a call: not known)


def _mutates(stmt) -> bool:
    """``s[i] = v``, ``s[i] += g``: the statement changes part of an existing value."""
    targets = getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]
    for target in targets:
        if isinstance(target, gast.Subscript):
            return True
    return False


def _none_init_names(stmt) -> list[str] | None:
    """Names set to None by ``a, b = (None, None)`` (values a loop saves before its first
    pass sets them), else None."""
    if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Tuple) and \
            isinstance(stmt.value, gast.Tuple) and \
            len(stmt.targets[0].elts) == len(stmt.value.elts) and \
            all(isinstance(t, gast.Name) for t in stmt.targets[0].elts) and \
            all(isinstance(v, gast.Constant) and v.value is None for v in stmt.value.elts):
        return [t.id for t in stmt.targets[0].elts]
    return None


def _init(names, value):
    """``s = 0.0`` or ``s_a, s_b = [0.0] * 2`` (``value`` 0.0); ``x = None`` or
    ``x, y = (None, None)`` (``value`` None)."""
    targets = [gast.Name(n, gast.Store(), None, None) for n in names]
    if len(targets) == 1:
        return gast.Assign(targets, gast.Constant(value, None), None)
    if value is None:
        return gast.Assign([gast.Tuple(targets, gast.Store())],
                           gast.Tuple([gast.Constant(None, None) for _ in names], gast.Load()),
                           None)
    value = gast.BinOp(gast.List([gast.Constant(0.0, None)], gast.Load()), gast.Mult(),
                       gast.Constant(len(names), None))
    return gast.Assign([gast.Tuple(targets, gast.Store())], value, None)
