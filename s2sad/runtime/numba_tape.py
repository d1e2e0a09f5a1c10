"""What gradients compiled by numba (``target="numba"``) call in nopython mode.

Generated code for the numba target imports this module (it imports numba); the other
targets never do. ``check_tape`` is :func:`s2sad.runtime.budget.check_stack` for a
list numba types, ``zeros_like`` is :func:`s2sad.runtime.zeros_like_structure` for a
number or an array.

>>> import numpy as np
>>> zeros_like(np.ones(2, np.float32)).dtype, zeros_like(2.5), memory_budget() > 0
(dtype('float32'), 0.0, True)
"""

from __future__ import annotations

import math

import numpy as np

try:
    from numba import types
    from numba.extending import overload
except ImportError:  # (the module imports without numba, for its documentation; compiled
    types = None      # code imports numba first, and says how to install it)

    def overload(function):
        return lambda implementation: implementation

from . import budget
from .budget import MemoryBudgetError
from .shapes import _weak

_FULL = ("the values recorded for the reverse sweep would exceed the memory budget. Raise it "
         "with s2sad.set_memory_budget(nbytes), record less, or check that the loop ends.")


def memory_budget() -> int:
    """The memory budget, in bytes, read at each call (compiled code takes it as an argument:
    numba would freeze a global)."""
    return budget._budget


def item_bytes(value) -> int:
    """About how many bytes a tape holds for ``value`` (an array: its data and header)."""
    nbytes = getattr(value, "nbytes", None)
    return nbytes + 100 if nbytes is not None else 8


@overload(item_bytes)
def _item_bytes(value):  # (numba's version, by the kind of value)
    if isinstance(value, types.Optional):
        value = value.type
    if isinstance(value, types.Array):
        return lambda value: 8 if value is None else value.size * value.itemsize + 100
    return lambda value: 8


def tape_bytes(stack):
    """About how many bytes ``stack`` holds (estimated from its newest item, as
    ``check_stack`` does from its newest ones)."""
    if len(stack) == 0:
        return 0
    return len(stack) * item_bytes(stack[len(stack) - 1])


@overload(tape_bytes)
def _tape_bytes(stack):
    return tape_bytes


def check_tape(nbytes, budget):
    """Raise ``MemoryBudgetError`` if the tapes hold ``nbytes``, more than ``budget``."""
    if nbytes > budget:
        raise MemoryBudgetError(_FULL)


@overload(check_tape)
def _check_tape(nbytes, budget):
    return check_tape


def zeros_like(x):
    """Zeros shaped like the number or array ``x``, in its float type (float64 for an
    integer array)."""
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape, x.dtype if x.dtype.kind in "fc" else np.float64)
    return 0.0


@overload(zeros_like)
def _zeros_like(x):
    if isinstance(x, types.Array):
        dtype = x.dtype if isinstance(x.dtype, (types.Float, types.Complex)) else types.float64
        return lambda x: np.zeros(x.shape, dtype)
    if isinstance(x, (types.Number, types.Boolean)):
        return lambda x: 0.0
    return None


def shape_of(x):
    """:func:`s2sad.runtime.shape_of` on the numba target: the value itself (a variable of
    numba's holds one type: an array's place cannot hold its shape)."""
    return x


@overload(shape_of)
def _shape_of(x):
    return lambda x: x


def sum_grad(g, like, axis=None, keepdims=False):
    """:func:`s2sad.runtime.sum_grad` of a whole sum (``axis=None``) on the numba target:
    the number ``g`` spread to the shape of ``like``, in its floating precision (as
    NumPy's ``np.ones_like(like) * g``)."""
    return np.full(np.shape(like), _weak(g, like)) if np.ndim(like) else g


@overload(sum_grad)
def _sum_grad(g, like, axis=None, keepdims=False):
    if not (axis is None or isinstance(axis, (types.NoneType, types.Omitted))) or \
            not isinstance(g, (types.Float, types.Integer)):
        return None  # (a sum along an axis: not compiled, refused as numba types it)
    if isinstance(like, types.Optional):
        like = like.type
    if isinstance(like, types.Array):
        dtype = np.float32 if like.dtype == types.float32 else np.float64  # (like's
        # precision, as NumPy's np.ones_like(like) * g)
        return lambda g, like, axis=None, keepdims=False: np.full(like.shape, g, dtype)
    return lambda g, like, axis=None, keepdims=False: g


_BROADCAST = ("a sum of a broadcast that numba's compiled gradient does not compute: use "
              "target='numpy' for this function")


def unbroadcast(g, like):
    """:func:`s2sad.runtime.unbroadcast` on the numba target: ``g`` itself where it has the
    shape of ``like``, its sum where ``like`` is a number; another broadcast raises."""
    if np.ndim(like) == 0:
        return np.sum(g) if np.ndim(g) else g
    if np.shape(g) != np.shape(like):
        raise ValueError(_BROADCAST)
    return g


@overload(unbroadcast)
def _unbroadcast(g, like):
    if isinstance(like, types.Optional):
        like = like.type
    if isinstance(like, (types.Number, types.Boolean)):
        if isinstance(g, types.Array):
            return lambda g, like: np.sum(g)
        return lambda g, like: g
    if isinstance(like, types.Array) and isinstance(g, types.Array) and g.ndim == like.ndim:
        def same(g, like):
            if g.shape != like.shape:
                raise ValueError(_BROADCAST)
            return g
        return same
    return None  # (a number spread to an array, or ranks that differ: not compiled)


# math's functions that raise ``ValueError: math domain error`` in Python where numba's
# return NaN: the numba target calls these instead, which raise as Python does
def checked_log(x):
    """``math.log(x)``, raising as Python does where ``x <= 0`` (numba's gives NaN)."""
    if x <= 0.0:
        raise ValueError("math domain error")
    return math.log(x)


def checked_log2(x):
    """``math.log2(x)``, raising as Python does where ``x <= 0``."""
    if x <= 0.0:
        raise ValueError("math domain error")
    return math.log2(x)


def checked_log10(x):
    """``math.log10(x)``, raising as Python does where ``x <= 0``."""
    if x <= 0.0:
        raise ValueError("math domain error")
    return math.log10(x)


def checked_log1p(x):
    """``math.log1p(x)``, raising as Python does where ``x <= -1``."""
    if x <= -1.0:
        raise ValueError("math domain error")
    return math.log1p(x)


def checked_sqrt(x):
    """``math.sqrt(x)``, raising as Python does where ``x < 0``."""
    if x < 0.0:
        raise ValueError("math domain error")
    return math.sqrt(x)


def checked_acos(x):
    """``math.acos(x)``, raising as Python does where ``|x| > 1``."""
    if x < -1.0 or x > 1.0:
        raise ValueError("math domain error")
    return math.acos(x)


def checked_asin(x):
    """``math.asin(x)``, raising as Python does where ``|x| > 1``."""
    if x < -1.0 or x > 1.0:
        raise ValueError("math domain error")
    return math.asin(x)


def checked_acosh(x):
    """``math.acosh(x)``, raising as Python does where ``x < 1``."""
    if x < 1.0:
        raise ValueError("math domain error")
    return math.acosh(x)


def checked_atanh(x):
    """``math.atanh(x)``, raising as Python does where ``|x| >= 1``."""
    if x <= -1.0 or x >= 1.0:
        raise ValueError("math domain error")
    return math.atanh(x)


def _itself(function):
    """The overload that compiles ``function`` itself, for numba (its arguments: numbers)."""
    def typed(x):
        return function if isinstance(x, (types.Float, types.Integer)) else None
    return typed


for _checked in (checked_log, checked_log2, checked_log10, checked_log1p, checked_sqrt,
                 checked_acos, checked_asin, checked_acosh, checked_atanh):
    overload(_checked)(_itself(_checked))


def head_length(n, k):
    """``len(range(n)[:k])``: how many turns of ``for i in range(n)`` a loop made before it
    left early (``k`` its trip counter), for its reverse sweep in a numba kernel."""
    size = max(0, n)
    return min(size, k) if k >= 0 else max(0, size + k)


@overload(head_length)
def _head_length(n, k):
    return head_length
