"""A quotient by ``t`` of a product with ``r = 1.0 / t`` is the product with ``r``.

The adjoint of ``p = 1.0 / t`` is ``-g * p / t``: the reverse sweep reads ``t`` again, so
the forward sweep keeps it, an array alive until the gradient returns. A person writes
the slope through the forward value, ``-g * p * p``, and ``t`` goes back into ``p``'s
line (the sigmoid ``1.0 / (1.0 + np.exp(-z))`` keeps ``exp(-z)`` and ``p``, not the sum):

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(z, s_p):
...     t_2 = np.exp(-z)
...     t_3 = 1.0 + t_2
...     p = 1.0 / t_3
...     s_z = s_p * p / t_3 * t_2
...     return s_z''').body[0]
>>> print(unparse(Reciprocals({"t_2", "t_3"}).visit(fn)))
def g(z, s_p):
    t_2 = np.exp(-z)
    t_3 = 1.0 + t_2
    p = 1.0 / t_3
    s_z = s_p * p * p * t_2
    return s_z

Not exact, but to rounding: ``a / t`` and ``a * (1.0 / t)`` differ by one rounding of
``1.0 / t``, and ``a`` holds that very ``1.0 / t`` as a factor, so where it overflows
(``t`` 0 or subnormal) or is 0 (``t`` infinite), ``a`` is already infinite, NaN or 0, and
the two agree (NaN stays NaN, infinity keeps its sign). Only where ``t`` is a temporary of
the compiler's, read by nothing else (so that it can go), and the function holds no
complex value.
"""

from __future__ import annotations

import gast

from .. import trees
from ..trees import located


class Reciprocals:
    """``movable``: the compiler's temporaries (the ``t`` that may go)."""

    def __init__(self, movable: set):
        self.movable = movable
        self.changed = False

    def visit(self, fn):
        loads, stores = trees.reads_and_writes(fn, trees.start_walk(fn))
        for k, stmt in enumerate(fn.body):
            found = _reciprocal(stmt)
            if found is None:
                continue
            r, t = found
            if t not in self.movable or stores[t] != 1 or stores[r] != 1 or loads[t] < 2:
                continue
            quotients = [n for later in fn.body[k + 1:] for n in trees.walk(later)
                         if type(n) is gast.BinOp and type(n.op) is gast.Div and
                         type(n.right) is gast.Name and n.right.id == t and
                         r in _factors(n.left)]
            if len(quotients) != loads[t] - 1:
                continue  # (t read otherwise too: it stays, and so do the quotients)
            for quotient in quotients:
                quotient.op = gast.Mult()
                quotient.right = located(gast.Name(r, gast.Load(), None, None), quotient.right)
            self.changed = True
        return fn


def _reciprocal(stmt):
    """``(r, t)`` of ``r = 1.0 / t``, else None."""
    if type(stmt) is gast.Assign and len(stmt.targets) == 1 and \
            type(stmt.targets[0]) is gast.Name and type(stmt.value) is gast.BinOp and \
            type(stmt.value.op) is gast.Div and type(stmt.value.left) is gast.Constant and \
            type(stmt.value.left.value) in (int, float) and stmt.value.left.value == 1 and \
            type(stmt.value.right) is gast.Name:
        return stmt.targets[0].id, stmt.value.right.id
    return None


def _factors(node) -> set:
    """The names that are factors of a product (or of a quotient's dividend)."""
    if type(node) is gast.Name:
        return {node.id}
    if type(node) is gast.BinOp and type(node.op) is gast.Mult:
        return _factors(node.left) | _factors(node.right)
    if type(node) is gast.BinOp and type(node.op) is gast.Div:
        return _factors(node.left)
    if type(node) is gast.UnaryOp and type(node.op) is gast.USub:
        return _factors(node.operand)
    return set()
