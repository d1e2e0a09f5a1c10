"""Fold constants and drop operations that change nothing, soundly for arrays and NaN.

Only rewrites that hold for every value are made: arithmetic on two constants,
``x ** 1`` and ``-(-x)``. Never ``x * 0 -> 0`` (NaN and infinity, shapes), nor
``x - x -> 0``.

>>> import gast
>>> from s2sad.codegen import unparse
>>> tree = gast.parse("s_2 = s_3 * 2 * t_2 ** (2 - 1)\\nz = -(-y) * (0.5 * 4)")
>>> print(unparse(Simplify().visit(tree)))
s_2 = s_3 * 2 * t_2
z = y * 2.0
"""

from __future__ import annotations

import operator

import gast

_FOLD = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
         gast.Div: operator.truediv, gast.Pow: operator.pow}


def _number(node) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) in (int, float)


class Simplify(gast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        fold = _FOLD.get(type(node.op))
        if fold and _number(node.left) and _number(node.right):
            try:
                value = fold(node.left.value, node.right.value)
            except (ZeroDivisionError, OverflowError):
                return node
            if type(value) in (int, float) and abs(value) < 1e15:
                return gast.copy_location(gast.Constant(value, None), node)
        if isinstance(node.op, gast.Pow) and _number(node.right) and node.right.value == 1:
            return node.left
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.USub) and isinstance(node.operand, gast.UnaryOp) and \
                isinstance(node.operand.op, gast.USub):
            return node.operand.operand
        if isinstance(node.op, gast.USub) and _number(node.operand):
            return gast.copy_location(gast.Constant(-node.operand.value, None), node)
        return node
