"""A memory budget for what the forward sweep records for the reverse sweep.

A ``while`` loop that records values checks, every 4096 passes, how much its
stack holds; past the budget it stops with a clear error instead of exhausting
memory. The estimate is the stack's length times the mean size of its newest
entries, so a check costs the same however long the stack is.

>>> set_memory_budget(1000)
>>> check_stack([1.0] * 100)
Traceback (most recent call last):
    ...
s2sad.runtime.budget.MemoryBudgetError: the values recorded for the reverse sweep would exceed the memory budget (about 2.4 kB recorded, budget 1 kB). Raise it with s2sad.set_memory_budget(nbytes), record less (s2sad.checkpoint), or check that the loop ends.
>>> set_memory_budget(DEFAULT_BUDGET)
"""

from __future__ import annotations

import sys

from ..errors import S2sadError

DEFAULT_BUDGET = 8 * 2 ** 30  # bytes
_budget = DEFAULT_BUDGET


class MemoryBudgetError(S2sadError, MemoryError):
    """The forward sweep recorded more than the memory budget allows."""


def set_memory_budget(nbytes: int) -> None:
    """Set how many bytes the forward sweep may record for the reverse sweep.

    >>> set_memory_budget(2 ** 30)
    >>> set_memory_budget(DEFAULT_BUDGET)
    """
    global _budget
    if nbytes <= 0:
        raise ValueError("the memory budget must be a positive number of bytes")
    _budget = int(nbytes)


def _size(value) -> int:
    nbytes = getattr(value, "nbytes", None)
    return nbytes + 100 if nbytes is not None else sys.getsizeof(value)


def check_stack(stack) -> None:
    """Raise ``MemoryBudgetError`` if ``stack`` holds more than the budget (estimated)."""
    if not stack:
        return
    newest = stack[-64:]
    estimate = len(stack) * sum(map(_size, newest)) / len(newest)
    if estimate > _budget:
        raise MemoryBudgetError(
            f"the values recorded for the reverse sweep would exceed the memory budget "
            f"(about {_human(estimate)} recorded, budget {_human(_budget)}). Raise it with "
            "s2sad.set_memory_budget(nbytes), record less (s2sad.checkpoint), or check that "
            "the loop ends.")


def _human(nbytes: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if nbytes < 1000 or unit == "GB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}".replace(
                ".0 ", " ")
        nbytes /= 1000
    return f"{nbytes} GB"
