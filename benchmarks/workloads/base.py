"""What a workload is: a function, its hand-written gradient, arguments, peers' versions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass
class Workload:
    name: str                       # short name, a row of the table
    title: str                      # one line: what it computes, at what size
    f: Callable                     # the NumPy / Python function (s2sad, tangent, the baseline)
    grad_hand: Callable             # hand-written gradient: a tuple, one entry per `wrt`
    make_args: Callable             # make_args(rng, quick) -> tuple of arguments
    wrt: tuple = (0,)               # argument indices differentiated
    torch_f: Callable | None = None  # torch_f(torch) -> function of tensors; None: f rebound
    s2sad_f: Callable | None = None  # a variant for s2sad only (None: f itself)
    tolerance: tuple | None = None  # (rtol, atol) of the check against the hand-written one
