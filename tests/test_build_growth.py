"""A build's work grows linearly with the length of straight-line code.

Counted, not timed (the machine may be busy): the Python function calls of one build
of ``benchmarks.gen.chain_source(n)``, for n statements and for four times as many. A
pass that looks back along its block from each statement (CombinedTerms did, to find
the statement that last named a sensitivity) makes the count grow with n squared.
"""

import cProfile
import pstats
import types

import pytest

import s2sad
from benchmarks.gen import chain_source, import_source


def _calls(n: int) -> int:
    """Python function calls of one build and first call of a chain of ``n`` statements."""
    chain = import_source(f"growth_chain_{n}", chain_source(n)).chain
    fresh = types.FunctionType(chain.__code__, chain.__globals__, "chain")
    profile = cProfile.Profile()
    profile.enable()
    try:
        s2sad.grad(fresh, wrt=(0, 1))(0.3, 0.7)
    finally:
        profile.disable()
    return pstats.Stats(profile).total_calls


@pytest.mark.parametrize("n", [60])
def test_calls_grow_linearly_with_statements(n):
    small, large = _calls(n), _calls(4 * n)
    assert large / small < 4 * 1.15, (small, large)
