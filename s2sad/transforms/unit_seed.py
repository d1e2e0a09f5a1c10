"""Multiply and divide by the seed of ``np.sum`` only where it changes something.

The adjoint of ``np.sum(e)`` spreads the output's sensitivity over the shape of ``e``:
``s_10 = sum_grad(1.0, x, None, False)`` is an array of ones shaped like ``x``. A
product ``t_1 * s_10`` inside a larger expression, where ``t_1`` already has that
shape, is ``t_1`` itself: the multiplication by ones is left out (a full pass over
the array saved). Only products nested in a larger expression are simplified, so the
result is still a new array, never a second name for ``t_1`` (a product of three factors
stays a product without one of them); and only when the kinds
say the other factor has exactly the seed's shape (a trusted shape token, as in
:mod:`s2sad.transforms.shape_only`). Likewise
``sum_grad(1.0, x, None, False) / e`` is ``1.0 / e`` (and ``1.0 / e * b`` is ``b / e``),
and a seed that is a number written in the code, ``sum_grad(0.0005, x, None, False)``,
is that number in a product with a factor shaped like ``x``.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.transforms.kinds import Kind
>>> fn = gast.parse('''def g(x):
...     t_1 = np.tanh(x)
...     t_5 = np.exp(x)
...     s_10 = sum_grad(1.0, x, None, False)
...     s_4 = t_1 * s_10 * t_5
...     s_3 = t_1 * s_10
...     s_2 = s_10 * 2 * t_1
...     s_1 = s_10 / t_5 * t_1
...     s_0 = t_1 * sum_grad(0.0005 * 1.0, x, None, False)
...     return s_4 + s_3 + s_2 + s_1 + s_0''').body[0]
>>> array = Kind("array", "x", 1)
>>> kinds = {"x": array, "t_1": array, "t_5": array}
>>> print(unparse(UnitSeed(kinds, "sum_grad", {"s_10"}).visit(fn)))
def g(x):
    t_1 = np.tanh(x)
    t_5 = np.exp(x)
    s_10 = sum_grad(1.0, x, None, False)
    s_4 = t_1 * t_5
    s_3 = t_1 * s_10
    s_2 = 2 * t_1
    s_1 = t_1 / t_5
    s_0 = t_1 * 0.0005
    return s_4 + s_3 + s_2 + s_1 + s_0
"""

from __future__ import annotations

import gast

from .. import trees
from ..trees import located
from .kinds import Kind, combine
from .shape_only import trusted_tokens


class UnitSeed(trees.Transformer):
    """``sum_grad``: the generated name of that helper; ``movable``: the compiler's
    temporaries (a seed is one of them, assigned once)."""

    def __init__(self, kinds: dict, sum_grad: str | None, movable: set[str]):
        self.kinds = kinds
        self.sum_grad = sum_grad
        self.movable = movable
        self.changed = False  # (whether a visit may have changed anything)

    def visit_FunctionDef(self, node):
        if self.sum_grad is None:
            return node
        self.changed = True
        stores: dict[str, int] = {}
        nodes = trees.walk(node)  # (one walk for the facts below: none changes the tree)
        for n in nodes:
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
        trusted = self.trusted = trusted_tokens(node, self.kinds, nodes)
        self.seeds: dict[str, str] = {}  # seed name -> the shape token it is spread over
        for stmt in node.body:  # top level: assigned once, before any use
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and \
                    stmt.targets[0].id in self.movable and stores.get(stmt.targets[0].id) == 1:
                token = self._unit_seed(stmt.value, trusted)
                if token is not None:
                    self.seeds[stmt.targets[0].id] = token
        for stmt in node.body:
            self._statement(stmt)
        return node

    def _unit_seed(self, value, trusted, number=1.0) -> str | None:
        if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and
                value.func.id == self.sum_grad and len(value.args) == 4 and
                not value.keywords):
            return None
        seed, like, axis, keepdims = value.args
        if isinstance(number, gast.expr):  # (a Python number as written: that very node)
            matches = seed is number
        elif number != 1.0:
            matches = number_value(seed) == number
        else:
            matches = isinstance(seed, gast.Constant) and seed.value == 1.0 and \
                type(seed.value) is float
        if not (matches and
                isinstance(like, gast.Name) and
                isinstance(axis, gast.Constant) and axis.value is None and
                isinstance(keepdims, gast.Constant) and keepdims.value is False):
            return None
        kind = self.kinds.get(like.id)
        if kind is None or kind.tag not in ("array", "numeric") or kind.shape not in trusted:
            return None
        return kind.shape

    def _statement(self, stmt):
        for field in ("value", "test", "iter"):
            value = getattr(stmt, field, None)
            if isinstance(value, gast.expr):
                # the top expression stays a product (a new array), its operands may go
                setattr(stmt, field, self._simplified(value, nested=False))
        for field in ("body", "orelse"):
            for inner in getattr(stmt, field, None) or []:
                if isinstance(inner, gast.stmt):
                    self._statement(inner)

    def _operands(self, node):
        # an operand of arithmetic may drop its factor of ones: the arithmetic still makes
        # a new array (an argument of a call, or an item of a list, may not)
        arithmetic = isinstance(node, (gast.BinOp, gast.UnaryOp))
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, gast.expr):
                setattr(node, field, self._simplified(value, arithmetic))
            elif isinstance(value, list):
                value[:] = [self._simplified(v, arithmetic) if isinstance(v, gast.expr)
                            else v for v in value]

    def _simplified(self, node, nested: bool):
        """``node``: ``e * seed`` and ``seed * e`` become ``e`` when ``nested`` in
        arithmetic."""
        self._operands(node)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            factors = _factors(node)  # a product of three or more stays a product without one
            if nested or len(factors) > 2:
                for k, seed in enumerate(factors):
                    rest = factors[:k] + factors[k + 1:]
                    if any(self._spread_like(seed, other) for other in rest):
                        return _product(rest, node)
            for k, seed in enumerate(factors):  # sum_grad(c, x, ...) * x: c * x
                number = self._number_seed(seed)
                if number is not None and any(self._spread_like(seed, other, number)
                                              for other in factors[:k] + factors[k + 1:]):
                    factors[k] = number if isinstance(number, gast.expr) else \
                        located(gast.Constant(number, None), seed)
                    return self._reciprocal(_product(factors, node))
            return self._reciprocal(node)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Div) and \
                self._spread_like(node.left, node.right):  # ones / e: 1.0 / e
            node.left = located(gast.Constant(1.0, None), node.left)
            node.from_seed = True  # (the user's own `1.0 / e * b` stays as written)
        return node

    @staticmethod
    def _reciprocal(node):
        """``1.0 / e * b``, where ``1.0`` was ones of a seed, is ``b / e`` (one operation
        fewer; the same at 0, inf and NaN)."""
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult) and \
                getattr(node.left, "from_seed", False):
            return located(gast.BinOp(node.right, gast.Div(), node.left.right), node)
        return node

    def _number_seed(self, node):
        """``c`` of ``sum_grad(c, x, None, False)`` with ``c`` a number written in the code
        (``0.0005 * 1.0``), its value, or None."""
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and
                node.func.id == self.sum_grad and len(node.args) == 4 and not node.keywords):
            return None
        number = number_value(node.args[0])
        if number is None and self._python_number(node.args[0]):
            return node.args[0]  # (-(1.0 / X.shape[0]): a Python number too, as written)
        return None if number == 1.0 else number  # (ones: above, only where they go)

    def _python_number(self, node) -> bool:
        """Is ``node`` a Python number when it runs: numbers written in the code, an
        array's ``.shape[k]``, ``.size`` or ``.ndim``, and arithmetic of those?"""
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self._python_number(node.operand)
        if isinstance(node, gast.BinOp) and isinstance(
                node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)):
            return self._python_number(node.left) and self._python_number(node.right)
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant) and \
                type(node.slice.value) is int:
            node = node.value
            if not (isinstance(node, gast.Attribute) and node.attr == "shape"):
                return False
        elif not (isinstance(node, gast.Attribute) and node.attr in ("size", "ndim")):
            return False
        kind = self.kinds.get(node.value.id) if isinstance(node.value, gast.Name) else None
        return kind is not None and kind.tag == "array" and kind.ndim is not None

    def _spread_like(self, seed, other, number=1.0) -> bool:
        """Is ``seed`` ones (or ``number``) shaped exactly like ``other``?"""
        if isinstance(seed, gast.Name):
            token = self.seeds.get(seed.id) if number == 1.0 else None
        elif isinstance(seed, gast.Call):
            token = self._unit_seed(seed, self.trusted, number)
        else:
            return False
        if token is None:
            return False
        kind = self._kind(other)
        return kind is not None and kind.tag in ("array", "numeric") and kind.shape == token

    def _kind(self, node) -> Kind | None:
        """The kind of an arithmetic expression of names and numbers, or None."""
        if isinstance(node, gast.Name):
            return self.kinds.get(node.id)
        if isinstance(node, gast.Constant) and type(node.value) in (int, float):
            return Kind("scalar", "()", 0)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self._kind(node.operand)
        if isinstance(node, gast.BinOp) and isinstance(
                node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)):
            parts = [self._kind(node.left), self._kind(node.right)]
            if None in parts:
                return None
            return combine(parts)
        return None


class SpreadByProducts(UnitSeed):
    """A reduction's sensitivity spread by the product that reads it, not by ``sum_grad``.

    ``sum_grad(g, x, 1, True) * e``, ``e`` shaped like ``x``, is ``g * e``: the product
    broadcasts ``g`` over ``x``'s shape as it multiplies (the same numbers, and a helper
    call fewer). So is ``sum_grad(g, x, None, False) * e``, ``g`` one number. A name
    given such a spread once and read only as a factor of such products takes ``g``
    itself. Runs after :class:`~s2sad.transforms.scale_inward.ScaleInward`, which moves a
    constant factor into the spread (``2.0 * (x * sum_grad(g, x))``: ``x * (2.0 * g)``).

    >>> import gast
    >>> from s2sad.codegen import unparse
    >>> from s2sad.transforms.kinds import Kind
    >>> fn = gast.parse('''def g(z, g):
    ...     t_3 = z * 2.0
    ...     e = np.exp(t_3)
    ...     t_5 = np.sum(e, axis=1, keepdims=True)
    ...     s_e = sum_grad(g / t_5, t_3, 1, True)
    ...     s_z = s_e * e
    ...     s_w = z * sum_grad(g[0, 0], z, None, False)
    ...     return s_z, s_w''').body[0]
    >>> kinds = {"z": Kind("array", "z", 2), "t_3": Kind("array", "t_3", 2),
    ...          "e": Kind("array", "t_3", 2)}
    >>> print(unparse(SpreadByProducts(kinds, "sum_grad", set()).visit(fn)))
    def g(z, g):
        t_3 = z * 2.0
        e = np.exp(t_3)
        t_5 = np.sum(e, axis=1, keepdims=True)
        s_e = g / t_5
        s_z = s_e * e
        s_w = z * g[0, 0]
        return (s_z, s_w)
    """

    def visit_FunctionDef(self, node):
        if self.sum_grad is None:
            return node
        stores: dict[str, int] = {}
        nodes = trees.walk(node)  # (one walk for the facts below and the products: the
        for n in nodes:  # tree is not changed before them)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
        self.trusted = trusted_tokens(node, self.kinds, nodes)
        ones = []  # (a product, the factor that stays) where the spread is ones
        for n in nodes:
            if isinstance(n, gast.BinOp) and isinstance(n.op, gast.Mult):
                for field, other in (("left", n.right), ("right", n.left)):
                    spread = getattr(n, field)
                    token = self._kept_spread(spread)
                    if token is None or not self._shaped(other, token):
                        continue
                    if _ones(spread.args[0]):  # ones times e: e, where e is a new array
                        if isinstance(other, (gast.BinOp, gast.UnaryOp)):
                            ones.append((n, other))
                        continue  # (else a second name for e would be made: kept)
                    setattr(n, field, spread.args[0])
                    self.changed = True
        if ones:
            dropped = {id(product): other for product, other in ones}
            _replace_nodes(node, dropped)
            self.changed = True
        self._spread_by_products(node, stores)
        return node

    def _shaped(self, node, token: str) -> bool:
        kind = self._kind(node)
        return kind is not None and kind.tag in ("array", "numeric") and kind.shape == token

    def _spread_by_products(self, node, stores):
        """``s = sum_grad(g, x, 1, True)`` read only as a factor of products with a factor
        shaped like ``x`` (``s * e``) is ``s = g``: each product spreads ``g`` over ``x``'s
        shape as it multiplies (the same numbers, one pass over the array fewer)."""
        parents = {}
        for n in trees.walk(node):
            for field in ("left", "right"):
                child = getattr(n, field, None)
                if isinstance(n, gast.BinOp) and isinstance(child, gast.Name):
                    parents[id(child)] = n
        for stmt in node.body:
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                    isinstance(stmt.targets[0], gast.Name) and
                    stores.get(stmt.targets[0].id) == 1):
                continue
            name = stmt.targets[0].id
            token = self._kept_spread(stmt.value)
            if token is None or _ones(stmt.value.args[0]):
                continue  # (ones: UnitSeed's, where they go)
            reads = [n for n in trees.walk(node) if isinstance(n, gast.Name) and
                     n.id == name and isinstance(n.ctx, gast.Load)]
            if reads and all(self._factor_over(parents.get(id(n)), n, token) for n in reads):
                stmt.value = stmt.value.args[0]
                self.changed = True

    def _kept_spread(self, value) -> str | None:
        """The trusted shape token of ``x`` in ``sum_grad(g, x, axis, True)`` (or
        ``sum_grad(g, x, None, False)``), or None."""
        if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and
                value.func.id == self.sum_grad and len(value.args) == 4 and
                not value.keywords):
            return None
        like, axis, keepdims = value.args[1:]
        if not (isinstance(like, gast.Name) and isinstance(keepdims, gast.Constant) and (
                keepdims.value is True or keepdims.value is False and
                isinstance(axis, gast.Constant) and axis.value is None)):
            return None  # (a sum of all: its sensitivity is one number, which spreads too)
        kind = self.kinds.get(like.id)
        if kind is None or kind.tag not in ("array", "numeric") or \
                kind.shape not in self.trusted:
            return None
        return kind.shape

    def _factor_over(self, product, operand, token: str) -> bool:
        """Is ``operand`` a factor of ``product`` whose other factor is shaped ``token``?"""
        if not (isinstance(product, gast.BinOp) and isinstance(product.op, gast.Mult)):
            return False
        other = product.right if product.left is operand else product.left
        return self._shaped(other, token)


def _ones(node) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) is float and node.value == 1.0


def _replace_nodes(tree, replacements: dict) -> None:
    """Put ``replacements[id(node)]`` where ``tree`` holds each such node."""
    for parent in trees.walk(tree):
        for field in parent._fields:
            value = getattr(parent, field, None)
            if isinstance(value, list):
                value[:] = [replacements.get(id(v), v) for v in value]
            elif id(value) in replacements:
                setattr(parent, field, replacements[id(value)])


def _factors(node) -> list:
    """The factors of a product ``a * b * c`` (of nested products too), in order."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [node]


def _product(factors: list, where):
    """``factors[0] * factors[1] * ...``, evaluated left to right."""
    product = factors[0]
    for factor in factors[1:]:
        product = located(gast.BinOp(product, gast.Mult(), factor), where)
    return product


def number_value(node):
    """The value of a number written as constants and arithmetic (``0.0005 * 1.0``), or
    None: computed with Python floats, as the generated code would."""
    if isinstance(node, gast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        value = number_value(node.operand)
        return None if value is None else -value
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Mult, gast.Add, gast.Sub)):
        left, right = number_value(node.left), number_value(node.right)
        if left is None or right is None:
            return None
        return left * right if isinstance(node.op, gast.Mult) else \
            left + right if isinstance(node.op, gast.Add) else left - right
    return None
