"""A list of numbers made in one branch only, read item by item in that branch: its
sensitivity is made at the top of the reverse sweep, where the list is None when the
branch did not run. Main made it ``[0.0] * len(rest)`` there and raised TypeError (found
by the fuzz's long profile, seed 37200); it is now ``zeros_like_structure(rest)``, which
is 0.0 for None. 3 of the 10 tests below fail on main (a branch not taken)."""

import numpy as np
import pytest

import s2sad


def starred_in_a_branch(y, c):
    if c > 0.5:
        first, *rest = np.tanh(y), y
        return rest[0] * first
    a = y * 2.0
    return a


def unpacked_in_a_branch(y, c):
    out = y * 3.0
    if c > 0.5:
        head, *rest = y, 2.0 * y, y * y
        out = head * rest[0] + rest[1]
    return out


def starred_in_a_loop_branch(y, c):
    total = 0.0
    for k in range(3):
        if c * k > 0.5:
            first, *rest = y * k, np.sin(y)
            total = total + first * rest[0]
        else:
            total = total + y
    return total


def a_list_in_one_arm(y, c):
    if c > 0.5:
        parts = [y, y * y]
        out = parts[0] * parts[1]
    else:
        out = np.cos(y)
    return out


def nested_branches(y, c):
    if c > 0.1:
        if c > 0.5:
            a, *rest = y, y * 2.0
            return a * rest[0]
        return y * 4.0
    return y


def central(f, y, c, eps=1e-6):
    return (f(y + eps, c) - f(y - eps, c)) / (2 * eps)


@pytest.mark.parametrize("f", [starred_in_a_branch, unpacked_in_a_branch,
                               starred_in_a_loop_branch, a_list_in_one_arm, nested_branches])
@pytest.mark.parametrize("c", [0.7, 0.2])
def test_a_list_of_one_branch_has_a_gradient_on_either_path(f, c):
    y = 0.3
    assert s2sad.grad(f)(y, c) == pytest.approx(central(f, y, c), rel=1e-7, abs=1e-9)
