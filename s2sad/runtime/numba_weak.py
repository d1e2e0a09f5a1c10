"""Python's float constants in a numba kernel, taken as NumPy takes them (NEP 50).

NumPy computes ``1.0 + x * x`` of a float32 array in float32: a Python float is "weak",
cast to the other operand's float type. numba types ``1.0`` as a float64 and computes the
sum in float64. The numba target writes each float constant that is an operand of an
arithmetic operator as ``weak(1.0)``: a float64 of a type of its own, ``WeakFloat``,
whose operators cast it to the other operand's type where that is float32 or complex64
(an array or a number), and take it as the float64 it is for every other operand.

>>> weak(1.5)   # (in Python: the number itself; NumPy's operators take it weakly)
1.5
"""

from __future__ import annotations

import operator

import numpy as np

try:
    from llvmlite import ir
    from numba import types
    from numba.extending import models
    from numba.extending import intrinsic, overload, register_model
except ImportError:  # (the module imports without numba, for its documentation)
    types = None

OPERATORS = (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
             operator.mod, operator.pow)


def weak(value):
    """``value``, a Python float constant, as NumPy's operators take it (the module's
    docstring): in Python the number itself."""
    return value


if types is not None:
    class WeakFloat(types.Type):
        """numba's type of ``weak(c)``: a float64, cast by an operator to the other
        operand's float32 or complex64."""

        def __init__(self):
            super().__init__(name="WeakFloat")

    WEAK = WeakFloat()

    @register_model(WeakFloat)
    class _WeakModel(models.PrimitiveModel):
        def __init__(self, dmm, fe_type):
            super().__init__(dmm, fe_type, ir.DoubleType())

    @intrinsic
    def _weak(typingctx, value):
        if not isinstance(value, types.Float):
            return None

        def codegen(context, builder, signature, args):
            return context.cast(builder, args[0], signature.args[0], types.float64)
        return WEAK(value), codegen

    @intrinsic
    def _strong(typingctx, value):
        if not isinstance(value, WeakFloat):
            return None

        def codegen(context, builder, signature, args):
            return args[0]
        return types.float64(value), codegen

    @overload(weak)
    def _weak_numba(value):
        if isinstance(value, types.Float):
            return lambda value: _weak(value)
        return lambda value: value   # (an integer: as numba takes it)

    def _narrow(other):
        """The NumPy scalar type a weak float takes beside numba's type ``other``, or
        None where it stays a float64."""
        dtype = other.dtype if isinstance(other, types.Array) else other
        if dtype == types.float32:
            return np.float32
        if dtype == types.complex64:
            return np.complex64
        return None

    def _overload_operator(op):
        @overload(op)
        def _weak_operator(a, b):
            if isinstance(a, WeakFloat) and not isinstance(b, WeakFloat):
                cast = _narrow(b)
                if cast is None:
                    return lambda a, b: op(_strong(a), b)
                return lambda a, b: op(cast(_strong(a)), b)
            if isinstance(b, WeakFloat) and not isinstance(a, WeakFloat):
                cast = _narrow(a)
                if cast is None:
                    return lambda a, b: op(a, _strong(b))
                return lambda a, b: op(a, cast(_strong(b)))
            if isinstance(a, WeakFloat) and isinstance(b, WeakFloat):
                return lambda a, b: op(_strong(a), _strong(b))
            return None

    for _op in OPERATORS:
        _overload_operator(_op)

    @overload(operator.neg)
    def _weak_negative(a):
        if isinstance(a, WeakFloat):
            return lambda a: _weak(-_strong(a))
        return None
