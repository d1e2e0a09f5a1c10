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

import numba
import numpy as np
from numba import types
from numba.extending import overload

from . import budget
from .budget import MemoryBudgetError

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
def _item_bytes(value):
    if isinstance(value, types.Optional):
        value = value.type
    if isinstance(value, types.Array):
        return lambda value: 8 if value is None else value.size * value.itemsize + 100
    return lambda value: 8


@numba.njit
def tape_bytes(stack):
    """About how many bytes ``stack`` holds (estimated from its newest item, as
    ``check_stack`` does from its newest ones)."""
    if len(stack) == 0:
        return 0
    return len(stack) * item_bytes(stack[len(stack) - 1])


@numba.njit
def check_tape(nbytes, budget):
    """Raise ``MemoryBudgetError`` if the tapes hold ``nbytes``, more than ``budget``."""
    if nbytes > budget:
        raise MemoryBudgetError(_FULL)


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
