"""Constant folding of tests: an inlined helper given ``left=None`` keeps one branch of
``if left is not None:``.

Once an inlined helper's parameters are renamed to the constants its caller gave, the test
reads ``None is not None``, and only the branch taken is normalized. ``_constant_value``
evaluates such a test as Python would (``and``/``or`` return the operand that decides,
``is`` only on ``None``, ``True`` and ``False``), and answers ``_NOT_CONSTANT`` wherever a
name may hold something else: constant folding that never guesses.
"""

from __future__ import annotations

import operator

import gast

from .. import trees
from ..trees import clone
from .single_assignment import _NOT_CONSTANT, _Rename, _constant


_CONSTANT_COMPARE = {gast.Is: operator.is_, gast.IsNot: operator.is_not, gast.Eq: operator.eq,
                     gast.NotEq: operator.ne, gast.Lt: operator.lt, gast.LtE: operator.le,
                     gast.Gt: operator.gt, gast.GtE: operator.ge}


class Folding:
    """The constant tests of :class:`Normalize`: the branch a constant test takes."""

    def _constant_test(self, test):
        """The truth of an ``if`` test on constants once names are replaced (an inlined
        helper's parameter given a constant: ``None is not None``, ``"same" == "valid"``,
        ``keepdims and axis is None``), or None."""
        if any(isinstance(n, (gast.ListComp, gast.GeneratorExp, gast.SetComp,
                              gast.DictComp)) for n in trees.walk(test)):
            return None  # (its own variables: a loop, not constants)
        if isinstance(test, gast.Compare) and isinstance(test.left, gast.Name) and \
                test.left.id in self.function_args and len(test.ops) == 1 and \
                type(test.ops[0]) in (gast.Is, gast.IsNot) and \
                _constant(test.comparators[0]) is None:  # (`act is not None`, act given a
            return isinstance(test.ops[0], gast.IsNot)  # function: not None)
        value = self._constant_value(_Rename(self).visit(clone(test)))
        return None if value is _NOT_CONSTANT else bool(value)

    def _constant_value(self, node):
        """The value of ``node`` (its names renamed) if constants alone make it, else
        ``_NOT_CONSTANT``."""
        if isinstance(node, gast.Name):
            return self._constant_of(node.id)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            value = self._constant_value(node.operand)
            return value if value is _NOT_CONSTANT else not value
        if isinstance(node, gast.BoolOp):  # (as Python: the operand that decides)
            for operand in node.values:
                value = self._constant_value(operand)
                if value is _NOT_CONSTANT or bool(value) is isinstance(node.op, gast.Or):
                    return value
            return value
        if isinstance(node, gast.Compare) and len(node.ops) == 1 and \
                type(node.ops[0]) in (gast.Is, gast.IsNot) and \
                _constant(node.comparators[0]) is None and \
                self._constant_value(node.left) is _NOT_CONSTANT:
            ref = self._renamed_ref(node.left)  # `self.act is not None`: a member known
            if ref is not None:
                return (ref[0] == "none") is isinstance(node.ops[0], gast.Is)
        if isinstance(node, gast.Compare) and len(node.ops) == 1:
            left, right = self._constant_value(node.left), \
                self._constant_value(node.comparators[0])
            op = _CONSTANT_COMPARE.get(type(node.ops[0]))
            if op is None or left is _NOT_CONSTANT or right is _NOT_CONSTANT:
                return _NOT_CONSTANT
            if op in (operator.is_, operator.is_not) and not any(
                    side is None or side is True or side is False for side in (left, right)):
                return _NOT_CONSTANT  # (`mode is "abc"`: Python's answer is not the parser's)
            try:
                return bool(op(left, right))
            except TypeError:  # (None < 0)
                return _NOT_CONSTANT
        return _constant(node)

    def _constant_of(self, name: str):
        """The constant a temporary or an inlined helper's parameter holds, here or in a
        caller, else ``_NOT_CONSTANT``."""
        scope = self
        while scope is not None:
            if name in scope.constants:
                return scope.constants[name]
            scope = scope.parent
        return _NOT_CONSTANT
