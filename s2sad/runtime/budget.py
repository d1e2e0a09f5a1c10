"""A memory budget for what the forward sweep records for the reverse sweep.

A ``while`` loop that records values checks, every 4096 passes, how much its
tape and every tape made before it hold together (an earlier loop's too); past the
budget it stops with a clear error instead of exhausting memory. The estimate is each
tape's length times the mean size of its newest entries, so a check costs the same
however long the tapes are.

>>> set_memory_budget(1000)
>>> check_stack([1.0] * 100)
Traceback (most recent call last):
    ...
s2sad.runtime.budget.MemoryBudgetError: the values recorded for the reverse sweep would exceed the memory budget (about 2.4 kB recorded, budget 1 kB). Raise it with s2sad.set_memory_budget(nbytes), record less (s2sad.checkpoint), or check that the loop ends.
>>> set_memory_budget(DEFAULT_BUDGET)
"""

from __future__ import annotations

import sys
from itertools import chain, repeat

from ..errors import S2sadError

DEFAULT_BUDGET = 8 * 2 ** 30  # bytes
CHECK_EVERY = 4096  # passes of a while loop between two checks
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


def check_stack(*stacks) -> None:
    """Raise ``MemoryBudgetError`` if ``stacks`` hold more than the budget together
    (estimated).

    >>> set_memory_budget(2000)
    >>> check_stack([1.0] * 50, [2.0] * 50)
    Traceback (most recent call last):
        ...
    s2sad.runtime.budget.MemoryBudgetError: the values recorded for the reverse sweep would exceed the memory budget (about 2.4 kB recorded, budget 2 kB). Raise it with s2sad.set_memory_budget(nbytes), record less (s2sad.checkpoint), or check that the loop ends.
    >>> set_memory_budget(DEFAULT_BUDGET)
    """
    estimate = 0.0
    for stack in stacks:
        if stack:
            newest = stack[-64:]
            estimate += len(stack) * sum(map(_size, newest)) / len(newest)
    if estimate > _budget:
        raise MemoryBudgetError(
            f"the values recorded for the reverse sweep would exceed the memory budget "
            f"(about {_human(estimate)} recorded, budget {_human(_budget)}). Raise it with "
            "s2sad.set_memory_budget(nbytes), record less (s2sad.checkpoint), or check that "
            "the loop ends.")


def checked_passes(*stacks):
    """The passes of a ``while`` loop that records on ``stacks``, without end: ``for _ in
    checked_passes(x_saved):`` checks the memory budget every 4096 passes, as
    ``check_stack(x_saved)`` does. The passes in between make no test: ``itertools``
    counts them.

    >>> passes = checked_passes([1.0])
    >>> sum(1 for _, _ in zip(range(10_000), passes))
    10000
    """
    return chain.from_iterable(_groups(stacks))


def _groups(stacks):
    while True:
        yield repeat(None, CHECK_EVERY)
        check_stack(*stacks)


def _human(nbytes: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if nbytes < 1000 or unit == "GB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}".replace(
                ".0 ", " ")
        nbytes /= 1000
    return f"{nbytes} GB"
