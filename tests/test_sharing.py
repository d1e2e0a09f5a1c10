"""In-place updates and shared memory: an update that could change another value the
function reads later, or the caller's array, is refused with a located error; the safe ones
(a name given a new value, on every path that reaches the update) differentiate correctly
and leave the caller's arrays alone. Sharing is followed through views (``.T``,
``.reshape``, ``np.asarray``), helpers, lists, both arms of an ``if`` and the passes of a loop.
"""

import inspect

import numpy as np
import pytest

import s2sad
from tests import cases_sharing as cases
from tests.test_control_flow import numeric_gradient


def update_line(func) -> int:
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if "] = " in line)


@pytest.mark.parametrize("func", cases.SHARED, ids=lambda f: f.__name__)
def test_update_of_shared_memory_is_refused(func):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="shares its memory with") as info:
        s2sad.grad(func)(np.array([0.1, 0.2, 0.3]))
    assert info.value.filename == cases.__file__
    assert info.value.lineno == update_line(func)
    assert "Copy first" in str(info.value)


@pytest.mark.parametrize("func", cases.STORED_IN_TURN, ids=lambda f: f.__name__)
def test_a_part_stored_after_an_update_of_what_it_views_is_refused(func):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="before the right side's") as info:
        s2sad.grad(func)(np.array([0.1, 0.2, 0.3]))  # (was a wrong gradient, a right value)
    assert info.value.filename == cases.__file__
    assert info.value.lineno == update_line(func)
    assert "Copy what the right side reads from 'z' first, e.g. `z[" in str(info.value)


@pytest.mark.parametrize("func", [cases.swapped_items, cases.swapped_list_slots,
                                  cases.index_read_in_turn], ids=lambda f: f.__name__)
def test_parts_stored_in_turn_second_order_and_forward(func):
    x = np.array([0.1, 0.2, 0.3])  # (`z[0], z[1] = z[1], z[0]` was an AttributeError)
    grad = s2sad.grad(func)
    rows = [numeric_gradient(lambda v: grad(v)[k], (x,), 0) for k in range(3)]
    np.testing.assert_allclose(s2sad.hessian(func)(x), np.array(rows), rtol=1e-5, atol=1e-6)
    _, push = s2sad.jvp(func)(x)
    np.testing.assert_allclose(push(np.array([0.3, -0.2, 0.5])),
                               grad(x) @ np.array([0.3, -0.2, 0.5]), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("func", cases.ARGUMENT, ids=lambda f: f.__name__)
def test_update_that_may_reach_the_callers_array_is_refused(func):
    x = np.array([0.1, 0.2, 0.3])
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="in-place update of .*the argument 'v'"):
        s2sad.grad(func)(x)
    assert np.array_equal(x, [0.1, 0.2, 0.3])


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("func", cases.SAFE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [[0.1, 0.2, 0.3], [-0.4, 0.7, -0.2]], ids=["pos", "neg"])
def test_safe_update_differentiates(func, x, optimize):
    x = np.array(x)
    before = x.copy()
    grad = s2sad.grad(func, optimize=optimize)(x)
    assert np.array_equal(x, before)  # the caller's array is untouched
    np.testing.assert_allclose(grad, numeric_gradient(func, (x,), 0), rtol=1e-6, atol=1e-8)
