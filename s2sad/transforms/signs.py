"""Negations taken out where they cancel, as a person writes a derivative.

The reverse sweep negates as its rules say: the seed of ``-np.sum(e)`` is ``-1.0``, the
adjoint of ``1.0 - p`` is ``-s``, that of ``1.0 / t`` is ``-s * p / t``. Chained, the
negations cancel on paper, but each one left in the code is a pass over an array:

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(y, p, t_2, t_3):
...     s_10 = -1.0
...     s_7 = (1.0 - y) * s_10 / (1.0 - p)
...     s_p = -s_7
...     s_p += y * s_10 / p
...     s_1 = -s_p * p / t_3 * t_2
...     s_z = -s_1
...     return s_z''').body[0]
>>> signs = Signs({"s_1", "s_7", "s_10"}, {"y": ("f", "a")},
...               derivatives={"s_1", "s_7", "s_10", "s_p", "s_z"})
>>> print(unparse(signs.visit(fn)))
def g(y, p, t_2, t_3):
    s_7 = (1.0 - y) / (1.0 - p)
    s_p = s_7
    s_p -= y / p
    s_1 = s_p * p / t_3 * t_2
    s_z = s_1
    return s_z

(forward substitution then puts ``s_7`` and ``s_1`` into their one use.) Each rewrite is exact: rounding is symmetric in sign, so ``(-a) * b`` is
``-(a * b)``, ``a / (-b)`` is ``-(a / b)``, ``a + (-b)`` is ``a - b`` and ``-a + b`` is
``b - a`` to the last bit, NaN, infinity and the sign of zero included. (``-a - b`` stays:
``-(a + b)`` is ``-0.0`` where it is ``+0.0``.)
A factor ``-1.0`` is a negation, and ``1.0`` is dropped only from a product of real
floats (``y * 1.0`` is ``y`` for a float ``y``; an integer ``y`` would stay one; a complex
``y`` times ``1.0`` makes NaN of an infinite part), so not where the function holds
complex values (``real`` False). A temporary given a negated value once, whose every use
cancels the sign, is given the value without it; a name read as ``x = t`` keeps one
array (``t`` read once, and made by arithmetic: a new array). Nothing is rewritten that
does not save an operation.
"""

from __future__ import annotations

from collections import Counter

import gast

from .. import trees
from ..trees import clone, located

_CHAIN = (gast.Mult, gast.Div)


def _number(node) -> bool:
    return type(node) is gast.Constant and type(node.value) in (int, float)


def _ops(node) -> int:
    """The operations in ``node`` that the rewrites here may change: arithmetic (``-1.0``
    is a number, which Python folds)."""
    return sum(1 for n in trees.walk(node) if type(n) is gast.BinOp or
               type(n) is gast.UnaryOp and not _number(n.operand))


def _negate(node):
    return located(gast.UnaryOp(gast.USub(), node), node)


class Signs:
    """``movable``: the compiler's temporaries (a negated one may lose its sign, a number
    may go into its uses); ``arguments``: the arguments' categories, as
    :func:`~s2sad.transforms.dtypes.argument_categories` gives them (``("f", "a")``: an
    array of floats; ``("f", "?")``, not known, is not taken as floats here); ``real``:
    whether the function holds no complex value; ``derivatives``: the sensitivities, whose
    statements alone are rewritten (the user's own lines run as written; None: all)."""

    def __init__(self, movable: set, arguments: dict, real: bool = True,
                 derivatives: set | None = None):
        self.movable = movable
        self.derivatives = derivatives
        self.floats = {name for name, (kind, holder) in arguments.items()
                       if kind == "f" and holder != "?"}
        self.real = real
        self.changed = False

    def visit(self, fn):
        nodes = trees.start_walk(fn)  # (the pass has changed nothing yet)
        loads, stores = trees.reads_and_writes(fn, nodes)
        self.loads, self.stores = loads, stores
        # each name's values, where it is given them only by `name = value` and `name op= v`
        values, given = {}, Counter()
        for n in nodes:
            if type(n) is gast.Assign and len(n.targets) == 1 and \
                    type(n.targets[0]) is gast.Name:
                values.setdefault(n.targets[0].id, []).append(n.value)
                given[n.targets[0].id] += 1
            elif type(n) is gast.AugAssign and type(n.target) is gast.Name:
                given[n.target.id] += 2
        self.values = {name: found for name, found in values.items()
                       if given[name] == stores[name]}
        self.defs = {}  # a temporary assigned once at the top level -> its value
        for stmt in fn.body:
            name = _assigned(stmt)
            if name in self.movable and stores[name] == 1:
                self.defs[name] = stmt.value
        self._numbers(fn)
        for block in trees.blocks(fn.body):
            for stmt in block:
                self._statement(stmt)
        self._flip(fn)
        return fn

    # --- a number given to a temporary goes into the products that read it ------------------

    def _numbers(self, fn) -> None:
        """``s_10 = -1.0`` read only as a factor of products and quotients, or negated:
        the number is written there (where its sign may go), and the assignment goes."""
        numbers = {name: value for name, value in self.defs.items() if _number(value) or (
            type(value) is gast.UnaryOp and type(value.op) is gast.USub and
            _number(value.operand))}
        if not numbers:
            return
        reads = {}
        for n in trees.start_walk(fn):  # (the pass has changed nothing yet)
            if type(n) is gast.BinOp and type(n.op) in _CHAIN:
                fields = ("left", "right")
            elif type(n) is gast.UnaryOp and type(n.op) is gast.USub:
                fields = ("operand",)
            else:
                continue
            for field in fields:
                child = getattr(n, field)
                if type(child) is gast.Name and child.id in numbers:
                    reads.setdefault(child.id, []).append((n, field))
        position = {_assigned(stmt): k for k, stmt in enumerate(fn.body)}
        for name, found in reads.items():
            if len(found) != self.loads[name] or not _after(fn.body, position[name], name):
                continue
            value = numbers[name]
            number = value.value if _number(value) else -value.operand.value
            for parent, field in found:
                setattr(parent, field, located(gast.Constant(number, None), value))
            fn.body[:] = [stmt for stmt in fn.body if _assigned(stmt) != name]
            del self.defs[name]
            self.changed = True

    # --- signs in one statement ---------------------------------------------------------------

    def _derivative(self, stmt) -> bool:
        """Does ``stmt`` give a sensitivity its value?"""
        if type(stmt) is gast.AugAssign:
            target = stmt.target
        elif type(stmt) is gast.Assign and len(stmt.targets) == 1:
            target = stmt.targets[0]
        else:
            return self.derivatives is None and type(stmt) in (gast.Return, gast.Expr)
        return type(target) is gast.Name and (self.derivatives is None or
                                              target.id in self.derivatives)

    def _statement(self, stmt) -> None:
        if self._derivative(stmt) and stmt.value is not None:
            new = self._rewritten(stmt, stmt.value)
            if new is not None:
                self._apply(stmt, new)

    def _rewritten(self, stmt, value, bare: bool = False):
        """``(value, op)`` with fewer operations than ``value`` (``op`` the augmented
        assignment's, flipped where a sign went into it), or None. ``bare``: it may be a
        name alone (else arithmetic stays arithmetic, a new array)."""
        negated, new = self._pull(clone(value))
        op = stmt.op if type(stmt) is gast.AugAssign else None
        if negated:
            if type(op) in (gast.Add, gast.Sub):
                op = gast.Sub() if type(op) is gast.Add else gast.Add()
            else:
                new = _negate(new)
        if not bare and type(stmt) is not gast.AugAssign and \
                type(new) not in (gast.BinOp, gast.UnaryOp) \
                and type(value) in (gast.BinOp, gast.UnaryOp):
            return None  # (``s = y * 1.0`` is a new array: ``s = y`` a second name for y)
        return (new, op) if _ops(new) < _ops(value) else None

    def _apply(self, stmt, new) -> None:
        stmt.value, op = new
        if op is not None:
            stmt.op = op
        self.changed = True

    def _pull(self, node):
        """``(negated, node)``: ``node`` with the negations of its products, quotients, sums
        and differences taken out, and whether one is left over (exact rewrites only)."""
        cls = type(node)
        if cls is gast.UnaryOp and type(node.op) is gast.USub and \
                self._floating(node.operand):
            negated, inner = self._pull(node.operand)
            return not negated, inner
        if _number(node) and node.value < 0:
            return True, located(gast.Constant(-node.value, None), node)
        if cls is gast.BinOp and type(node.op) in _CHAIN:
            left_negated, left = self._pull(node.left)
            right_negated, right = self._pull(node.right)
            node.left, node.right = left, right
            return left_negated != right_negated, self._without_ones(node)
        if cls is gast.BinOp and type(node.op) in (gast.Add, gast.Sub):
            left_negated, left = self._pull(node.left)
            right_negated, right = self._pull(node.right)
            # (-a) + b and (-a) - (-b) are b - a; a + (-b) is a - b, a - (-b) is a + b.
            # (Not -(a + b) for (-a) - b: where a + b is 0, that is -0.0, the other +0.0.)
            subtracts = (type(node.op) is gast.Sub) != right_negated
            if left_negated and not subtracts and _swappable(left, right):
                return False, located(gast.BinOp(right, gast.Sub(), left), node)
            node.left = _negate(left) if left_negated else left
            node.right = right
            node.op = gast.Sub() if subtracts else gast.Add()
            return False, node
        self._inner(node)
        return False, node

    def _inner(self, node) -> None:
        """The expressions inside ``node`` (a call's arguments...), each on its own."""
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, gast.expr):
                setattr(node, field, self._settled(value))
            elif type(value) is list:
                value[:] = [self._settled(v) if isinstance(v, gast.expr) else v
                            for v in value]

    def _settled(self, node):
        """``node`` with its signs taken out, where that saves an operation."""
        negated, new = self._pull(clone(node))
        new = _negate(new) if negated else new
        if type(new) not in (gast.BinOp, gast.UnaryOp):
            return node  # (``f(-(-x))`` passes a new array, which ``f`` may change)
        return new if _ops(new) < _ops(node) else node

    def _without_ones(self, node):
        """``a * 1.0``, ``1.0 * a``, ``a / 1.0``: ``a``, where ``a`` holds real floats."""
        if not self.real:
            return node
        if _one(node.right) and self._floating(node.left):
            return node.left
        if type(node.op) is gast.Mult and _one(node.left) and self._floating(node.right):
            return node.right
        return node

    def _floating(self, node, seen: frozenset = frozenset()) -> bool:
        """Does ``node`` hold real floats for certain? (Then ``node * 1.0`` is ``node``, and
        ``-node`` keeps its sign at zero, as the negation of an integer 0 does not.)"""
        cls = type(node)
        if cls is gast.BinOp:
            if type(node.op) is gast.Div:
                return True
            if type(node.op) in (gast.Add, gast.Sub, gast.Mult):
                return any(type(side) is gast.Constant and type(side.value) is float or
                           self._floating(side, seen) for side in (node.left, node.right))
            return False
        if cls is gast.UnaryOp and type(node.op) is gast.USub:
            return self._floating(node.operand, seen)
        if cls is gast.Constant:
            return type(node.value) is float
        if cls is gast.Name:
            if node.id in self.floats and self.stores[node.id] == 0:
                return True
            found = self.values.get(node.id)  # (a float stays one, updated in place or not)
            return found is not None and node.id not in seen and all(
                self._floating(value, seen | {node.id}) for value in found)
        return False

    # --- a temporary's sign taken into its uses -----------------------------------------------

    def _flip(self, fn) -> None:
        """``t = -e`` whose uses all cancel the sign: ``t = e``, where it saves operations."""
        for block in trees.blocks(fn.body):
            for stmt in block:
                name = _assigned(stmt)
                if name not in self.movable or self.stores[name] != 1 or \
                        self.loads[name] == 0 or not self._derivative(stmt):
                    continue
                negated, value = self._pull(clone(stmt.value))
                if not negated:
                    continue
                self._flip_one(fn, stmt, name, value)

    def _flip_one(self, fn, definition, name, value) -> None:
        uses = [s for block in trees.blocks(fn.body) for s in block
                if s is not definition and type(s) in (gast.Assign, gast.AugAssign,
                                                       gast.Return, gast.Expr)
                and s.value is not None and _names(s.value, name)]
        if sum(_names(s.value, name) for s in uses) != self.loads[name]:
            return  # (read elsewhere: a target's index, a test)
        for use in uses:
            if not self._derivative(use) or not _arithmetic_reads(use, name,
                                                                 self.loads[name] == 1):
                return  # (read as itself: `f(t)` may change it, `x = t` is a second name)
        if type(value) not in (gast.BinOp, gast.UnaryOp) or not self._floating(value):
            return  # (``t = -a``: ``t = a`` would be a second name for ``a``)
        before = _ops(definition.value) + sum(_ops(s.value) for s in uses)
        after = _ops(value)
        rewritten = []
        for use in uses:
            negated = _Negated(name).visit(clone(use.value))
            new = self._rewritten(use, negated, True) or (negated, getattr(use, "op", None))
            if type(new[0]) is gast.Name and type(use) is not gast.AugAssign and \
                    self.loads[name] != 1:
                return  # (``x = t``: a second name for an array another use reads)
            after += _ops(new[0])
            rewritten.append(new)
        if after >= before:
            return
        definition.value = value
        for use, new in zip(uses, rewritten, strict=True):
            self._apply(use, new)


def _arithmetic_reads(stmt, name: str, once: bool) -> bool:
    """Is each read of ``name`` in ``stmt`` an operand of arithmetic, or the value of
    ``s op= name`` (or of ``x = name``, where ``once``)?"""
    value = stmt.value
    if type(value) is gast.Name:
        return type(stmt) is gast.AugAssign or once and type(stmt) is gast.Assign
    allowed = set()
    for n in trees.walk(value):
        if type(n) is gast.BinOp and type(n.op) in (gast.Add, gast.Sub, gast.Mult, gast.Div):
            allowed.update((id(n.left), id(n.right)))
        elif type(n) is gast.UnaryOp and type(n.op) is gast.USub:
            allowed.add(id(n.operand))
    return all(id(n) in allowed for n in trees.walk(value)
               if type(n) is gast.Name and n.id == name)


class _Negated(trees.Transformer):
    """Each read of ``name`` negated."""

    def __init__(self, name):
        self.name = name

    def visit_Name(self, node):
        if node.id == self.name and type(node.ctx) is gast.Load:
            return _negate(node)
        return node


def _names(node, name) -> int:
    return sum(1 for n in trees.walk(node) if type(n) is gast.Name and n.id == name)


def _one(node) -> bool:
    return _number(node) and node.value == 1


def _swappable(a, b) -> bool:
    """May ``a`` and ``b`` be evaluated in the other order (no call in one of them)?"""
    return not any(type(n) is gast.Call for n in trees.walk(a)) or \
        not any(type(n) is gast.Call for n in trees.walk(b))


def _assigned(stmt):
    if type(stmt) is gast.Assign and len(stmt.targets) == 1 and \
            type(stmt.targets[0]) is gast.Name:
        return stmt.targets[0].id
    return None


def _after(body, position, name) -> bool:
    """Is ``name`` read only in the statements after ``body[position]``?"""
    return not any(_names(stmt, name) for stmt in body[:position])
