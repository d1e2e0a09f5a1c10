"""Multiply by a constant where the array is smallest: the seed of a spread sum.

The adjoint of ``np.sum(e, axis=1)`` spreads a row of sensitivities over the shape
of ``e``: ``s_1 = sum_grad(g, e, 1, False)`` (a view, as large as ``e``, of ``g``).
A constant factor applied to a product with it, as the adjoint of ``y * y`` writes
``2.0 * (y * s_1)``, costs a pass over the whole array; applied to ``g`` it costs a
pass over one row. So ``2.0 * (y * s_1)`` becomes ``y * s_1`` with ``s_1 =
sum_grad(2.0 * g, e, 1, False)``, when ``s_1`` is read only there (or the spread is in
the product itself). The constant is folded into ``g``: ``2.0 * (0.5 * -u)`` is
``-1.0 * u``.

Only powers of two move (``2.0``, ``0.5``, ``-4``...): scaling by one is exact, so the
gradient is the same to the last bit, NaN and infinity included. Other constants stay
where the user's rule put them.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(y, x, s):
...     s_1 = sum_grad(0.5 * -s, x, 1, False)
...     s_y = 2.0 * (y * s_1)
...     s_x = 4 * (x / sum_grad(s, x, None, False))
...     s_z = 3.0 * (x * sum_grad(s, x, None, False))
...     return s_y, s_x, s_z''').body[0]
>>> print(unparse(ScaleInward("sum_grad", {"s_1"}).visit(fn)))
def g(y, x, s):
    s_1 = sum_grad(-1.0 * s, x, 1, False)
    s_y = y * s_1
    s_x = 4 * (x / sum_grad(s, x, None, False))
    s_z = 3.0 * (x * sum_grad(s, x, None, False))
    return (s_y, s_x, s_z)
"""

from __future__ import annotations

import math
from collections import Counter

import gast

from .. import trees


def _power_of_two(node) -> bool:
    """Is ``node`` a number written in the code that is plus or minus a power of two?"""
    if not (isinstance(node, gast.Constant) and type(node.value) in (int, float)):
        return False
    value = abs(node.value)
    return value > 0 and math.isfinite(value) and math.frexp(value)[0] == 0.5


def _number(node):
    if isinstance(node, gast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


class ScaleInward(trees.Transformer):
    """``sum_grad``: the generated name of that helper; ``movable``: the compiler's
    temporaries (a spread assigned to one of them, and read once, may take the factor)."""

    def __init__(self, sum_grad: str | None, movable: set[str]):
        self.sum_grad = sum_grad
        self.movable = movable

    def visit_FunctionDef(self, node):
        if self.sum_grad is None:
            return node
        loads, stores = Counter(), Counter()
        spreads = {}  # name -> the spread assigned to it
        for n in trees.walk(node):
            if isinstance(n, gast.Name):
                (loads if isinstance(n.ctx, gast.Load) else stores)[n.id] += 1
            elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                stores[n.target.id] += 1
            elif isinstance(n, gast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], gast.Name) and self._spread(n.value):
                spreads[n.targets[0].id] = n.value
        self.spreads = {name: call for name, call in spreads.items()
                        if name in self.movable and stores[name] == 1 and loads[name] == 1}
        if not self.spreads and not any(self._spread(n) for n in trees.walk(node)):
            return node
        return self.generic_visit(node)

    def _spread(self, node) -> bool:
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id == self.sum_grad and len(node.args) == 4 and not node.keywords

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Mult):
            return node
        for constant, rest in ((node.left, node.right), (node.right, node.left)):
            if _power_of_two(constant):
                call = self._scalable(rest)
                seed = None if call is None else _scaled(constant, call.args[0])
                # (ones would leave `x * sum_grad(1.0, ...)`: `2.0 * (x * 0.5)` reads better)
                if seed is not None and _number(seed) != 1:
                    call.args[0] = seed
                    return rest
        return node

    def _scalable(self, node):
        """The spread in ``node``, a product (or quotient) in which it is a factor whose
        seed may take a constant factor of the whole, or None."""
        if self._spread(node):
            return node
        if isinstance(node, gast.Name):
            return self.spreads.pop(node.id, None)  # (read once: scaled once)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            return self._scalable(node.left) or self._scalable(node.right)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Div):
            return self._scalable(node.left)  # (c * (a / b) is (c * a) / b)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            return self._scalable(node.operand)
        return None


def _scaled(constant, seed):
    """``constant * seed``, the constants folded: exact, as ``constant`` is a power of two.
    A seed of ones takes the constant as written (``2``, not ``2.0``)."""
    if isinstance(seed, gast.Constant) and seed.value == 1.0 and type(seed.value) is float:
        return gast.copy_location(gast.Constant(constant.value, None), constant)
    factor = constant.value
    while True:
        if isinstance(seed, gast.UnaryOp) and isinstance(seed.op, gast.USub):
            factor, seed = -factor, seed.operand
        elif isinstance(seed, gast.BinOp) and isinstance(seed.op, gast.Mult) and \
                _number(seed.left) is not None:
            factor, seed = factor * seed.left.value, seed.right
        elif isinstance(seed, gast.BinOp) and isinstance(seed.op, gast.Mult) and \
                _number(seed.right) is not None:
            factor, seed = factor * seed.right.value, seed.left
        else:
            break
    if _number(seed) is not None:
        return gast.copy_location(gast.Constant(factor * seed.value, None), constant)
    return gast.copy_location(
        gast.BinOp(gast.Constant(factor, None), gast.Mult(), seed), constant)
