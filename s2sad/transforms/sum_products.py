"""Sum a product as it is made: ``np.sum(a * b, axis=2)`` becomes
``sum_product(a, b, axis=2)`` and ``unbroadcast(a * b, q)`` becomes
``unbroadcast_product(a, b, q)``.

A sum of a product (a squared norm along an axis in the user's code, the adjoint of a
factor that was broadcast, ``s_q = unbroadcast(x * s_y, q)`` for ``y = q * x``) makes
the product, a new array as large as both factors, only to add it up. The helpers of
``s2sad.runtime`` give ``np.einsum`` the two factors instead where they are large
float64 arrays of one shape: it adds as it multiplies, with no array in between (a
quarter of the time of a (25, 1000, 10) product summed over an axis); anything else
goes as written. A factor known to be a number (a constant, a scalar) keeps the
written form: there is nothing to gain. The rewritten code is not differentiated
again (a derivative of the gradient compiles its own variant without this pass).

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.transforms.kinds import SCALAR
>>> fn = gast.parse('''def grad_f(x, q, c):
...     t_1 = np.sum(x * x, axis=2)
...     t_2 = np.sum(c * x) + np.sum(2.0 * x, 1)
...     s_q = unbroadcast(x * s_y, q)
...     s_x = unbroadcast(s_y * q, x)
...     return s_q + t_1 + t_2''').body[0]
>>> products = SumProducts({"np"}, "unbroadcast", {"c": SCALAR}, lambda f: f.__name__)
>>> print(unparse(products.visit(fn)))
def grad_f(x, q, c):
    t_1 = sum_product(x, x, axis=2)
    t_2 = np.sum(c * x) + np.sum(2.0 * x, 1)
    s_q = unbroadcast_product(x, s_y, q)
    s_x = unbroadcast_product(s_y, q, x)
    return s_q + t_1 + t_2
"""

from __future__ import annotations

from typing import Callable

import gast

from .. import trees
from ..runtime import sum_product, unbroadcast_product

_SUM_KEYWORDS = {"axis", "keepdims"}  # (dtype=, where=, initial=: left as written)


class SumProducts:
    """``numpy_names``: the array module's names in the generated code (the compiler's,
    and for CuPy the user's names for NumPy, renamed in the end); ``unbroadcast``:
    the ``unbroadcast`` helper's name (None if the code has none); ``kinds``: what the
    compiler knows of the values (``Kind`` by name); ``helper(function)``: the
    generated code's name for a helper of ``s2sad.runtime``. ``changed``: whether a call changed."""

    def __init__(self, numpy_names: set, unbroadcast: str | None, kinds: dict,
                 helper: Callable[[Callable], str]):
        self.numpy_names = set(numpy_names)
        self.unbroadcast = unbroadcast
        self.kinds = kinds
        self.helper = helper
        self.changed = False

    def visit(self, fn):
        for node in trees.start_walk(fn):  # (made before the loop changes anything)
            if isinstance(node, gast.Call) and node.args:
                factors = self._factors(node.args[0])
                if factors is None:
                    continue
                func = node.func
                if isinstance(func, gast.Attribute) and func.attr == "sum" and \
                        isinstance(func.value, gast.Name) and func.value.id in self.numpy_names \
                        and len(node.args) <= 2 and \
                        {k.arg for k in node.keywords} <= _SUM_KEYWORDS:
                    helper = sum_product
                elif isinstance(func, gast.Name) and func.id == self.unbroadcast and \
                        len(node.args) == 2 and not node.keywords:
                    helper = unbroadcast_product
                else:
                    continue
                node.func = gast.Name(self.helper(helper), gast.Load(), None, None)
                node.args[:1] = factors
                self.changed = True
        return fn

    def _factors(self, value) -> list | None:
        """``[a, b]`` of ``a * b``, unless a factor is known to be a number."""
        if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult)):
            return None
        factors = [value.left, value.right]
        for factor in factors:
            if isinstance(factor, gast.UnaryOp):
                factor = factor.operand
            if isinstance(factor, gast.Constant):
                return None
            if isinstance(factor, gast.Name):
                kind = self.kinds.get(factor.id)
                if kind is not None and (kind.tag == "scalar" or kind.py is not None):
                    return None
        return factors
