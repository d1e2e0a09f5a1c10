"""Check each power a Python number may make complex before it is made.

Python's ``(-1.0) ** 0.5`` is ``1j``, a complex number, which s2sad does not
differentiate. Before each ``x ** y`` (or ``pow(x, y)``) on a differentiated value,
where the kinds say ``x`` may be a Python number and ``y`` may not be a whole number,
``check_real_power(x, y)`` raises at run time, at the user's line, if the power would be
complex (for a differentiated exponent, if the base is negative: the power is complex next
to each whole number). NumPy's numbers and arrays give NaN there, as NumPy defines: they
are not checked, nor are powers whose exponent is a whole number.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.transforms.kinds import PY_FLOAT, SCALAR
>>> fn = gast.parse('''def f(a, x):
...     t_1 = a - 2.0
...     t_2 = t_1 ** 0.5
...     t_3 = t_1 ** 2.0
...     t_4 = x ** 0.5
...     return t_2 + t_3 + t_4''').body[0]
>>> kinds = {"a": PY_FLOAT, "t_1": PY_FLOAT, "x": SCALAR}
>>> checks = RealPowers(kinds, {"a", "t_1", "x"}, lambda: "check_real_power", None, set())
>>> print(unparse(checks.visit(fn)))
def f(a, x):
    t_1 = a - 2.0
    check_real_power(t_1, 0.5)
    t_2 = t_1 ** 0.5
    t_3 = t_1 ** 2.0
    t_4 = x ** 0.5
    return t_2 + t_3 + t_4
"""

from __future__ import annotations

import builtins
from collections.abc import Callable

import gast

from .. import trees
from ..trees import clone, located
from .kinds import ANY
from .resolve import static_value


class RealPowers(trees.Transformer):
    """``kinds`` and ``active`` of the normalized function's names; ``helper()`` gives the
    generated name of ``check_real_power``; ``source`` and ``local_names`` find what a
    call calls (``pow``)."""

    def __init__(self, kinds: dict, active: set, helper: Callable[[], str], source,
                 local_names: set):
        self.kinds = kinds
        self.active = active
        self.helper = helper
        self.source = source
        self.local_names = local_names
        self.changed = False  # (whether a visit added a check)

    def visit_Assign(self, node):
        operands = self._power(node.value)
        if operands is None or not any(isinstance(o, gast.Name) and o.id in self.active
                                       for o in operands):
            return node
        base, exponent = operands
        varying = isinstance(exponent, gast.Name) and exponent.id in self.active
        if not (self._python_number(base) and (varying or self._fractional(exponent))):
            return node
        flag = [gast.Constant(True, None)] if varying else []  # (complex next to each
        call = gast.Call(gast.Name(self.helper(), gast.Load(), None, None),  # whole number)
                         [clone(base), clone(exponent)] + flag, [])
        self.changed = True
        return [located(gast.Expr(call), node), node]

    def _power(self, value) -> tuple | None:
        """``(x, y)`` of ``x ** y`` or of the builtin ``pow(x, y)``; else None."""
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Pow):
            return value.left, value.right
        if isinstance(value, gast.Call) and len(value.args) == 2 and not value.keywords and \
                isinstance(value.func, gast.Name) and self.source is not None:
            try:
                func = static_value(value.func, self.source, self.local_names)
            except KeyError:
                return None
            if func is builtins.pow:
                return value.args[0], value.args[1]
        return None

    def _python_number(self, node) -> bool:
        """May ``node`` hold a negative Python number (not a NumPy one)?"""
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float) and node.value < 0
        if not isinstance(node, gast.Name):
            return False
        kind = self.kinds.get(node.id, ANY)
        return kind.tag == "any" or (kind.tag == "scalar" and
                                     kind.py in ("float", "int", "number"))

    def _fractional(self, node) -> bool:
        """May ``node`` hold a Python number that is not whole?"""
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float) and not float(node.value).is_integer()
        if not isinstance(node, gast.Name):
            return False
        kind = self.kinds.get(node.id, ANY)  # (a NumPy number or array: NaN, not complex)
        return kind.tag == "any" or (kind.tag == "scalar" and kind.py in ("float", "number"))
