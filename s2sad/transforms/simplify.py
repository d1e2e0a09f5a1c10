"""Fold constants and drop operations that change nothing, soundly for arrays and NaN.

Only rewrites that hold for every value are made: arithmetic on two constants,
``c * x ** 1`` (a number's factor: a boolean ``x ** 1`` alone is an int), ``-(-x)``, and
the same term accumulated twice in a row (``s += e; s += e`` is ``s += 2.0 * e``,
exactly, as ``e + e == 2.0 * e`` in floating point).
Never ``x * 0 -> 0`` (NaN and infinity, shapes), nor ``x - x -> 0``.

>>> import gast
>>> from s2sad.codegen import unparse
>>> tree = gast.parse("s_2 = s_3 * 2 * t_2 ** (2 - 1)\\nz = -(-y) * (0.5 * 4)\\n"
...                    "s_x += x * s_7\\ns_x += x * s_7")
>>> print(unparse(Simplify().visit(tree)))
s_2 = s_3 * 2 * t_2
z = y * 2.0
s_x += 2.0 * (x * s_7)

Comparisons of two numbers fold too (a rule's test on a constant argument):

>>> print(unparse(Simplify().visit(gast.parse("e = x ** (3 - 1 + (3 == 0))"))))
e = x ** 2

The slope of a power, ``scaled_power(y, x, y - 1)`` (``y * x ** (y - 1)``, 0 where ``y``
is 0), is that product when ``y`` is a number other than 0, as the rule for ``x ** 3`` or
``x ** 0.5`` writes it; with ``y`` 0 or not a number it stays (``x ** np.arange(3)``):

>>> tree = gast.parse("s_x = s_1 * scaled_power(3, x, 3 - 1)\\n"
...                    "s_x += s_2 * scaled_power(1, x, 1 - 1)\\n"
...                    "s_x += s_3 * scaled_power(0, x, 0 - 1)\\n"
...                    "s_x += s_4 * scaled_power(t_1, x, t_1 - 1)")
>>> print(unparse(Simplify("scaled_power").visit(tree)))
s_x = s_1 * 3 * x ** 2
s_x += s_2 * 1 * x ** 0
s_x += s_3 * scaled_power(0, x, -1)
s_x += s_4 * scaled_power(t_1, x, t_1 - 1)
"""

from __future__ import annotations

import operator

import gast

from .. import trees
from ..trees import located

_FOLD = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
         gast.Div: operator.truediv, gast.Pow: operator.pow}


def _number(node) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) in (int, float, bool)


_COMPARE = {gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Lt: operator.lt,
            gast.LtE: operator.le, gast.Gt: operator.gt, gast.GtE: operator.ge}


def _simplifiable_compare(node) -> bool:
    """A comparison of two numbers (a rule's test of an argument that is a constant)."""
    return len(node.ops) == 1 and type(node.ops[0]) in _COMPARE and _number(node.left) and \
        _number(node.comparators[0])


def _accumulates(stmt):
    """``(name, term)`` of ``name += term``, else None."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add) and \
            isinstance(stmt.target, gast.Name):
        return stmt.target.id, stmt.value
    return None


def _nonzero_number(node) -> bool:
    return _number(node) and type(node.value) is not bool and node.value != 0


class Simplify(trees.Transformer):
    """``scaled_power``: the name of :func:`s2sad.runtime.scaled_power` in the code, if
    it is called there."""

    def __init__(self, scaled_power: str | None = None):
        self.scaled_power = scaled_power
        self.changed = False  # (whether a visit folded, merged or rewrote anything)

    def visit_FunctionDef(self, node):
        if not _candidates(node, self.scaled_power):
            return node  # (the usual case: one walk instead of a visit of every node)
        return self.generic_visit(node)

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                merged = merge_twice(block)
                self.changed = self.changed or len(merged) != len(block)
                setattr(node, field, merged)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if not _power_slope(node, self.scaled_power):
            return node
        coefficient, base, exponent = node.args
        power = self.visit_BinOp(gast.BinOp(base, gast.Pow(), exponent))
        self.changed = True
        return located(self.visit_BinOp(gast.BinOp(coefficient, gast.Mult(), power)), node)

    def visit_BinOp(self, node):
        if type(node.op) is gast.Mult and _power_slope(node.right, self.scaled_power, False):
            # g * scaled_power(3, x, 2): g * 3 * x ** 2, as written before the helper
            self.generic_visit(node.right)
            if _power_slope(node.right, self.scaled_power):
                coefficient, base, exponent = node.right.args
                node.left = gast.BinOp(node.left, gast.Mult(), coefficient)
                node.right = gast.BinOp(base, gast.Pow(), exponent)
                self.changed = True
        self.generic_visit(node)
        if type(node.op) is gast.Mult:
            for side, other in (("right", node.left), ("left", node.right)):
                power = getattr(node, side)
                if _first_power(power) and _numeric(other, float) or \
                        _first_power(power, int) and _numeric(other):
                    setattr(node, side, power.left)
                    self.changed = True
        if not _simplifiable_binop(node):
            return node
        fold = _FOLD.get(type(node.op))
        if fold and _number(node.left) and _number(node.right):
            try:
                value = fold(node.left.value, node.right.value)
            except (ZeroDivisionError, OverflowError):
                return node
            if type(value) in (int, float) and abs(value) < 1e15:
                self.changed = True
                return located(gast.Constant(value, None), node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if not _simplifiable_compare(node):
            return node
        value = _COMPARE[type(node.ops[0])](node.left.value, node.comparators[0].value)
        self.changed = True
        return located(gast.Constant(bool(value), None), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not _simplifiable_unaryop(node):
            return node
        if isinstance(node.op, gast.USub) and isinstance(node.operand, gast.UnaryOp) and \
                isinstance(node.operand.op, gast.USub):
            self.changed = True
            return node.operand.operand
        if isinstance(node.op, gast.USub) and _number(node.operand):
            self.changed = True
            return located(gast.Constant(-node.operand.value, None), node)
        return node


# the nodes that hold blocks of statements (in ``body`` or ``orelse``)
_BLOCKS = frozenset(getattr(gast, name) for name in (
    "Module", "Interactive", "FunctionDef", "AsyncFunctionDef", "ClassDef", "For", "AsyncFor",
    "While", "If", "With", "AsyncWith", "Try", "TryStar", "ExceptHandler", "match_case",
    "Suite")
    if hasattr(gast, name))


def _power_slope(node, name: str | None, folding: bool = True) -> bool:
    """Is ``node`` a call of ``scaled_power`` (named ``name``), with a coefficient that is
    a number other than 0 if ``folding``?"""
    return name is not None and type(node) is gast.Call and type(node.func) is gast.Name \
        and node.func.id == name and len(node.args) == 3 and not node.keywords and \
        (not folding or _nonzero_number(node.args[0]))


def _first_power(node, kind=(int, float)) -> bool:
    """Is ``node`` ``x ** 1`` (the int 1, or the float 1.0, of ``kind``)?"""
    return type(node) is gast.BinOp and type(node.op) is gast.Pow and \
        _number(node.right) and isinstance(node.right.value, kind) and \
        type(node.right.value) is not bool and node.right.value == 1


def _numeric(node, kind=(int, float)) -> bool:
    """Is ``node`` a number of ``kind`` (never a boolean), or a product with one?
    ``x ** 1`` is ``x`` only as a number's factor, ``x ** 1.0`` only as a float's:
    alone, a boolean ``x`` is an int after the power (``b ** 1 + b ** 1`` is 2, ``b + b``
    is True), and ``x ** 1.0`` a float (``u ** 1.0 + 200`` of uint8 does not wrap, ``2 *
    u`` does; ``2.0 * u`` does not)."""
    if type(node) is gast.BinOp and type(node.op) is gast.Mult:
        return _numeric(node.left, kind) or _numeric(node.right, kind)
    return _number(node) and isinstance(node.value, kind) and type(node.value) is not bool


def _simplifiable_binop(node) -> bool:
    """Arithmetic on two numbers, or ``x ** 1`` (what ``visit_BinOp`` rewrites, if anything)."""
    return _number(node.right) and (_number(node.left) and type(node.op) in _FOLD or
                                    type(node.op) is gast.Pow and node.right.value == 1)


def _simplifiable_unaryop(node) -> bool:
    """A negated number or negation (what ``visit_UnaryOp`` rewrites)."""
    operand = node.operand
    return type(node.op) is gast.USub and (_number(operand) or isinstance(
        operand, gast.UnaryOp) and isinstance(operand.op, gast.USub))


def _candidates(tree, scaled_power: str | None = None) -> bool:
    """Is there anything in ``tree`` for ``Simplify``: an operation the visits rewrite, or a
    name accumulated twice in a row? (Rewriting makes new candidates only out of those.)"""
    for node in trees.start_walk(tree):  # (at the visit's start: nothing changed yet)
        cls = type(node)
        if cls is gast.Call:
            if _power_slope(node, scaled_power, False):
                return True
        elif cls is gast.BinOp:
            if _simplifiable_binop(node):
                return True
        elif cls is gast.UnaryOp:
            if _simplifiable_unaryop(node):
                return True
        elif cls is gast.Compare:
            if _simplifiable_compare(node):
                return True
        elif cls in _BLOCKS:
            fields = node.__dict__
            for field in ("body", "orelse"):
                block = fields.get(field)
                if type(block) is list:
                    last = None
                    for stmt in block:
                        this = _accumulates(stmt)
                        if this and last and this[0] == last[0]:
                            return True
                        last = _assigns(stmt)
    return False


def _assigns(stmt):
    """``(name, term)`` of ``name = term`` or ``name += term``, else None."""
    if type(stmt) is gast.Assign and len(stmt.targets) == 1 and \
            type(stmt.targets[0]) is gast.Name:
        return stmt.targets[0].id, stmt.value
    return _accumulates(stmt)


def merge_twice(block: list) -> list:
    """``s += e`` after ``s += e`` (or after ``s = e``) is one statement, with ``2.0 * e``:
    exact (``e + e`` is ``2.0 * e`` in floating point), a pass fewer, and ``s = 2.0 * e``
    is a new array where ``s = e`` might not be.

    >>> from s2sad.codegen import unparse
    >>> block = gast.parse("s = x * g\\ns += x * g\\nt += y\\nt += y\\nu = u * 2\\nu += u * 2").body
    >>> print(unparse(gast.Module(merge_twice(block), [])))
    s = 2.0 * (x * g)
    t += 2.0 * y
    u = u * 2
    u += u * 2
    """
    out = []
    for stmt in block:
        this = _accumulates(stmt)
        last = _assigns(out[-1]) if out else None
        if this and last and this[0] == last[0] and gast.dump(this[1]) == gast.dump(last[1]) \
                and not any(isinstance(n, gast.Name) and n.id == this[0]
                            for n in trees.walk(this[1])):
            out[-1].value = gast.BinOp(gast.Constant(2.0, None), gast.Mult(), out[-1].value)
            continue
        out.append(stmt)
    return out


_FLIP = {gast.Add: gast.Sub, gast.Sub: gast.Add}


def subtract(tree):
    """Subtract what is added negated: ``s += -e`` becomes ``s -= e`` and ``x = a + -b``
    becomes ``x = a - b``, where the negation leads the term (``-a * b``, ``-(a / b)``,
    ``-2.0``), in place, in every block. Exact: ``a - b`` is ``a + (-b)`` in floating
    point, and a negated factor changes only the product's sign. It saves an operation (on
    arrays, a new array) and reads as a person writes it. The rules' adjoints negate
    (``-g`` for ``np.negative``); forward substitution moves ``s_1 = -e`` into
    ``s_x += s_1``. Only statements are read, not the expressions in them (a walk of every
    node would cost more than all it finds).

    >>> from s2sad.codegen import unparse
    >>> tree = gast.parse("s_x += -s_1 * np.sin(x)\\nfor i in n:\\n    s_y[i] -= -(a / b)\\n"
    ...                    "s_z = s_z + -2.0\\ns_w = -s_1 + s_2")
    >>> print(unparse(subtract(tree)))
    s_x -= s_1 * np.sin(x)
    for i in n:
        s_y[i] += a / b
    s_z = s_z - 2.0
    s_w = -s_1 + s_2
    """
    subtractions(tree)
    return tree


def subtractions(tree) -> int:
    """How many terms :func:`subtract` turned, turning them in ``tree``: a pass that
    knows whether it changed the tree, with no comparison of the trees before and after.

    >>> subtractions(gast.parse("s += -e\\ns -= e"))
    1
    """
    turned = 0
    for block in trees.blocks(tree.body):
        for stmt in block:
            cls = type(stmt)
            if cls is gast.AugAssign:
                node, field = stmt, "value"
            elif cls is gast.Assign and type(stmt.value) is gast.BinOp:
                node, field = stmt.value, "right"
            else:
                continue
            positive = _negated(getattr(node, field)) if type(node.op) in _FLIP else None
            if positive is not None:
                node.op = _FLIP[type(node.op)]()
                setattr(node, field, positive)
                turned += 1
    return turned


def _negated(term):
    """``term`` without the negation that leads it, or None where none does."""
    if type(term) is gast.UnaryOp and type(term.op) is gast.USub:
        return term.operand
    if _number(term) and term.value < 0:
        return located(gast.Constant(-term.value, None), term)
    if type(term) is gast.BinOp and type(term.op) in (gast.Mult, gast.Div):
        left = _negated(term.left)
        if left is not None:
            return located(gast.BinOp(left, term.op, term.right), term)
    return None
