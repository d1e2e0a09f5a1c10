"""Python's float constants in a numba kernel, taken as NumPy takes them (NEP 50).

NumPy computes ``1.0 + x * x`` of a float32 array in float32: a Python float is "weak",
cast to the other operand's float type. numba types ``1.0`` as a float64 and computes the
sum in float64. The numba target writes such a constant ``weak(1.0, x)``, naming the
values the other operand is made of (``x * x``: ``x``), where that operand is made of
them by arithmetic and NumPy's functions that keep a float type only
(``s2sad.transforms.numba_kernel._weak_constants``): NumPy's result then has their float
type. ``weak`` gives the constant in float32 (complex64) where every such value is one,
an array or a number, and as it is otherwise. It is inlined: a float64 kernel's
expressions stay what numba fuses into one loop.

>>> weak(1.5, 2.0)   # (in Python: the number itself; NumPy's operators take it weakly)
1.5
"""

from __future__ import annotations

import numpy as np

try:
    from numba import types
    from numba.extending import overload
except ImportError:  # (the module imports without numba, for its documentation)
    types = None

    def overload(function, **options):
        return lambda implementation: implementation


def weak(value, a=None, b=None, c=None, d=None):
    """``value``, a Python float constant, in the float type NumPy gives it beside an
    operand made of the values ``a`` to ``d`` (the module's docstring): in Python the
    number itself."""
    return value


def _narrow_type(made_of):
    """The NumPy scalar type a weak float takes beside values of numba's types
    ``made_of``: float32 (complex64) where each is one, an array or a number; else None."""
    dtypes = {t.dtype if isinstance(t, types.Array) else t for t in made_of}
    if dtypes == {types.float32}:
        return np.float32
    if dtypes == {types.complex64} or dtypes == {types.complex64, types.float32}:
        return np.complex64
    return None


@overload(weak, inline="always")   # (no call: numba still fuses the expression around it)
def _weak(value, a=None, b=None, c=None, d=None):
    made_of = [t for t in (a, b, c, d) if t is not None and
               not isinstance(t, (types.Omitted, types.NoneType))]
    cast = _narrow_type(made_of) if made_of else None
    if cast is None or not isinstance(value, (types.Float, types.Integer)):
        return lambda value, a=None, b=None, c=None, d=None: value
    return lambda value, a=None, b=None, c=None, d=None: cast(value)
