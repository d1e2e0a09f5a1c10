"""Multiply by a constant where the array is smallest, or where it was multiplied already.

The adjoint of ``np.sum(e, axis=1)`` spreads a row of sensitivities over the shape
of ``e``: ``s_1 = sum_grad(g, e, 1, False)`` (a view, as large as ``e``, of ``g``).
A constant factor applied to a product with it, as the adjoint of ``y * y`` writes
``2.0 * (y * s_1)``, costs a pass over the whole array; applied to ``g`` it costs a
pass over one row. So ``2.0 * (y * s_1)`` becomes ``y * s_1`` with ``s_1 =
sum_grad(2.0 * g, e, 1, False)``, when ``s_1`` is read only there (or the spread is in
the product itself). The constant is folded into ``g``: ``2.0 * (0.5 * -u)`` is
``-1.0 * u``. Likewise a temporary read only there that is a quotient of a number
(``s_8 = 1.0 / e``: ``2.0 / e``) or a product with one takes the constant.

And where the forward sweep computed ``t_3 = 0.5 * x``, the reverse sweep's
``0.5 * (x * s_4)`` is ``t_3 * s_4``: a pass fewer, and the same term as its
neighbour's. ``s_x += t_3 * s_4`` twice is ``s_x += 2.0 * (t_3 * s_4)``, where the two
factors cancel: ``s_x += x * s_4``. So the derivative of ``np.exp(-0.5 * x * x)`` reads
as a person writes it, minus ``x`` times the exponential (``s_x -= x * (t_1 * t_5)``,
not ``s_x += 2.0 * (t_3 * (t_1 * t_5))``), and ``-0.5 * x`` goes back into its one use.

Only powers of two move (``2.0``, ``0.5``, ``-4``...): scaling by one is exact, so the
gradient is the same to the last bit, NaN and infinity included. Other constants stay
where the user's rule put them.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(y, x, s):
...     t_3 = 0.5 * x
...     s_1 = sum_grad(0.5 * -s, x, 1, False)
...     s_y = 2.0 * (y * s_1)
...     s_8 = 1.0 / (1.0 + x * x)
...     s_x = 2.0 * (x * s_8)
...     s_x += t_3 * s
...     s_x += 0.5 * (x * s)
...     s_z = 3.0 * (x * sum_grad(s, x, None, False))
...     return s_y, s_x, s_z, t_3''').body[0]
>>> print(unparse(ScaleInward("sum_grad", {"s_1", "s_8", "t_3"}).visit(fn)))
def g(y, x, s):
    t_3 = 0.5 * x
    s_1 = sum_grad(-1.0 * s, x, 1, False)
    s_y = y * s_1
    s_8 = 2.0 / (1.0 + x * x)
    s_x = x * s_8
    s_x += x * s
    s_z = 3.0 * (x * sum_grad(s, x, None, False))
    return (s_y, s_x, s_z, t_3)
"""

from __future__ import annotations

import math
from collections import Counter

import gast

from .. import trees
from ..trees import located
from .simplify import merge_twice
from .unit_seed import number_value


def _power_of_two(node) -> bool:
    """Is ``node`` a number written in the code that is plus or minus a power of two?"""
    if not (isinstance(node, gast.Constant) and type(node.value) in (int, float)):
        return False
    value = abs(node.value)
    return value > 0 and math.isfinite(value) and math.frexp(value)[0] == 0.5


class ScaleInward:
    """``sum_grad``: the generated name of that helper; ``movable``: the compiler's
    temporaries (one assigned once and read once may take the factor; one assigned once
    at the top level may stand for its product)."""

    def __init__(self, sum_grad: str | None, movable: set[str]):
        self.sum_grad = sum_grad
        self.movable = movable
        self.changed = False  # (whether a visit moved a factor)

    def visit(self, node):
        if not any(type(n) is gast.BinOp and _scaling(n) for n in trees.start_walk(node)):
            return node  # no product with a power of two (one walk, without the counts)
        loads, stores = Counter(), Counter()
        defs = {}  # name -> (index of its top-level statement or None, the value)
        products = []  # (parent, field, index or None, c * e, top-level index)
        for position, stmt in enumerate(node.body):
            self._walk(stmt, position, loads, stores, defs, products)
        if not products:
            return node
        self.defs = {name: value for name, (_, value) in defs.items()
                     if name in self.movable and stores[name] == 1 and loads[name] == 1}
        # `t = c * a` at the top level, assigned once, with `a` fixed: c * (a * b) is t * b
        self.scaled = {}
        for name, (position, value) in defs.items():
            if position is not None and name in self.movable and stores[name] == 1 and \
                    loads[name] > 1 and type(value) is gast.BinOp and _scaling(value):
                constant, operand = (value.left, value.right) if _power_of_two(value.left) \
                    else (value.right, value.left)
                # (a parameter, or assigned once at the top level before t)
                where = defs.get(operand.id, (-1,))[0] if type(operand) is gast.Name else None
                if where is not None and where < position and stores[operand.id] <= 1:
                    key = (constant.value, type(constant.value), operand.id)
                    self.scaled.setdefault(key, (position, name))
        changed = False
        for parent, field, k, product, position in reversed(products):  # innermost first
            nested = type(parent) in (gast.BinOp, gast.UnaryOp)  # (an operand of arithmetic)
            rest = self._without_factor(product, nested) or self._shared(product, position)
            if rest is not None:
                changed = True
                if k is None:
                    setattr(parent, field, rest)
                else:
                    getattr(parent, field)[k] = rest
        if changed:  # (`s += t_3 * s_4` may now follow the same term)
            self.changed = True
            node.body[:] = merge_twice(node.body)
            self._unscale(node.body)
        return node

    def _unscale(self, body) -> None:
        """``s += 2.0 * (t * b)``, where ``t = -0.5 * a``, is ``s += -(a * b)`` (then
        ``s -= a * b``): the factors cancel, and the pass ``2.0 *`` makes goes. (``s = ...``
        alike: ``a`` is a float, as ``t`` is read by the sweep, and ``b`` a sensitivity.)"""
        halves = {name: (constant, operand) for (constant, _, operand), (_, name)
                  in self.scaled.items()}
        for stmt in body:
            if type(stmt) not in (gast.Assign, gast.AugAssign) or \
                    type(stmt) is gast.AugAssign and type(stmt.op) is not gast.Add or \
                    type(stmt.value) is not gast.BinOp or not _scaling(stmt.value):
                continue
            value = stmt.value
            factor, rest = (value.left, value.right) if _power_of_two(value.left) \
                else (value.right, value.left)
            if type(rest) is not gast.BinOp or type(rest.op) is not gast.Mult:
                continue
            for t, b in ((rest.left, rest.right), (rest.right, rest.left)):
                if type(t) is gast.Name and t.id in halves:
                    constant, operand = halves[t.id]
                    if abs(factor.value * constant) == 1:
                        product = gast.BinOp(gast.Name(operand, gast.Load(), None, None),
                                             gast.Mult(), b)
                        stmt.value = product if factor.value * constant == 1 else \
                            gast.UnaryOp(gast.USub(), product)
                        break

    def _walk(self, stmt, position, loads, stores, defs, products):
        """One walk of a top-level statement (breadth first, as ``trees.walk``)."""
        found = [stmt]
        i = 0
        while i < len(found):
            parent = found[i]
            i += 1
            kind = type(parent)
            if kind is gast.Name:
                (loads if type(parent.ctx) is gast.Load else stores)[parent.id] += 1
                continue
            if kind is gast.Assign and len(parent.targets) == 1 and \
                    type(parent.targets[0]) is gast.Name:
                defs[parent.targets[0].id] = (position if parent is stmt else None,
                                              parent.value)
            elif kind is gast.AugAssign and type(parent.target) is gast.Name:
                stores[parent.target.id] += 1
            elif kind is gast.Subscript or kind is gast.Attribute:
                if type(parent.ctx) is not gast.Load:  # `a[i] = v`, `a.b = v`: a changes
                    stores[_root(parent)] += 2
            elif kind is gast.Call and type(parent.func) is gast.Attribute:
                stores[_root(parent.func)] += 2  # `a.append(v)`: as if it may change a
            fields = parent.__dict__
            for field in parent._fields:
                value = fields.get(field)
                if type(value) is list:
                    for k, item in enumerate(value):
                        if isinstance(item, gast.AST):
                            found.append(item)
                            if type(item) is gast.BinOp and _scaling(item):
                                products.append((parent, field, k, item, position))
                elif isinstance(value, gast.AST):
                    found.append(value)
                    if type(value) is gast.BinOp and _scaling(value):
                        products.append((parent, field, None, value, position))

    def _spread(self, node) -> bool:
        return type(node) is gast.Call and type(node.func) is gast.Name and \
            node.func.id == self.sum_grad and len(node.args) == 4 and not node.keywords

    def _without_factor(self, node, nested: bool):
        """What replaces ``c * e`` when its constant went into a seed or a number, or None."""
        for constant, rest in ((node.left, node.right), (node.right, node.left)):
            # (the value stays made by arithmetic, a new array: never a second name for a
            # spread view, which a later `s += e` would write into)
            if _power_of_two(constant) and (nested or type(rest) in (gast.BinOp, gast.UnaryOp)):
                slot = self._slot(rest)
                if slot is not None:
                    holder, key = slot  # (a call's arguments and 0, or a node and a field)
                    seed = type(holder) is list
                    value = _times(constant, holder[key] if seed else getattr(holder, key))
                    # (a factor of one would leave `x * sum_grad(1.0, ...)` or `1.0 * e`:
                    # `2.0 * (x * 0.5)` reads better; a numerator of one is `1.0 / e`)
                    if number_value(value) != 1 or type(holder) is gast.BinOp and \
                            type(holder.op) is gast.Div:
                        if seed:
                            holder[key] = value
                        else:
                            setattr(holder, key, value)
                        return rest
        return None

    def _slot(self, node):
        """Where the seed or number is in ``node``, a product (or quotient) that may take
        a constant factor of the whole: ``(arguments of a spread, 0)``, ``(node, field)``,
        or None."""
        if self._spread(node):
            return node.args, 0
        if type(node) is gast.Name:
            value = self.defs.pop(node.id, None)  # (read once: scaled once)
            if value is None:
                return None
            if self._spread(value):
                return value.args, 0
            if type(value) is gast.BinOp and type(value.op) is gast.Div and \
                    number_value(value.left) is not None:
                return value, "left"  # 1.0 / e
            if type(value) is gast.BinOp and type(value.op) is gast.Mult:
                for field in ("left", "right"):
                    if number_value(getattr(value, field)) is not None:
                        return value, field  # 0.5 * e
            return None
        if type(node) is gast.BinOp and type(node.op) is gast.Mult:
            return self._slot(node.left) or self._slot(node.right)
        if type(node) is gast.BinOp and type(node.op) is gast.Div:
            return self._slot(node.left)  # (c * (a / b) is (c * a) / b)
        if type(node) is gast.UnaryOp and type(node.op) is gast.USub:
            return self._slot(node.operand)
        return None

    def _shared(self, node, position):
        """``t * b`` for ``c * (a * b)`` where ``t = c * a`` was computed before, or None."""
        for constant, rest in ((node.left, node.right), (node.right, node.left)):
            if _power_of_two(constant) and type(rest) is gast.BinOp and \
                    type(rest.op) is gast.Mult:
                for a, b, first in ((rest.left, rest.right, True),
                                    (rest.right, rest.left, False)):
                    if type(a) is gast.Name:
                        found = self.scaled.get((constant.value, type(constant.value), a.id))
                        if found is not None and found[0] < position:
                            t = gast.Name(found[1], gast.Load(), None, None)
                            return gast.BinOp(t, gast.Mult(), b) if first else \
                                gast.BinOp(b, gast.Mult(), t)
        return None


def _root(node) -> str:
    """The name at the root of ``a.b[i].c`` (``a``), or '' where there is none."""
    while type(node) in (gast.Subscript, gast.Attribute):
        node = node.value
    return node.id if type(node) is gast.Name else ""


def _scaling(node) -> bool:
    """Is ``node`` a product with a power of two?"""
    return type(node.op) is gast.Mult and (_power_of_two(node.left) or
                                           _power_of_two(node.right))


def _times(constant, seed):
    """``constant * seed``, the constants folded: exact, as ``constant`` is a power of two.
    A seed of ones takes the constant as written (``2``, not ``2.0``)."""
    if isinstance(seed, gast.Constant) and seed.value == 1.0 and type(seed.value) is float:
        return located(gast.Constant(constant.value, None), constant)
    factor = constant.value
    while number_value(seed) is None:
        if isinstance(seed, gast.UnaryOp) and isinstance(seed.op, gast.USub):
            factor, seed = -factor, seed.operand
        elif isinstance(seed, gast.BinOp) and isinstance(seed.op, gast.Mult) and \
                number_value(seed.left) is not None:
            factor, seed = factor * number_value(seed.left), seed.right
        elif isinstance(seed, gast.BinOp) and isinstance(seed.op, gast.Mult) and \
                number_value(seed.right) is not None:
            factor, seed = factor * number_value(seed.right), seed.left
        else:
            return located(
                gast.BinOp(gast.Constant(factor, None), gast.Mult(), seed), constant)
    return located(gast.Constant(factor * number_value(seed), None), constant)
