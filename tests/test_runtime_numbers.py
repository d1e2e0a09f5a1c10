"""Adjoint helpers given a number where their output is an array.

In a loop, a sensitivity starts as the number ``0.0`` until something flows into it
(an array no later value reads, such as a Kalman filter's state after its last update).
A helper that needs the output's axes (a matrix product's, a join's) spreads the number
over them: it gives what the array of that number would give.
"""

import numpy as np
import pytest

import s2sad
from s2sad import runtime

from . import cases_control as C
from .test_control_flow import numeric_gradient

rng = np.random.default_rng(11)
X, Y = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
A = rng.normal(size=(3, 3)) + 3.0 * np.eye(3)
B = rng.normal(size=3)


@pytest.mark.parametrize("helper, args, shape", [
    (runtime.matmul_grad_left, (X, Y), (2, 4)),
    (runtime.matmul_grad_right, (X, Y), (2, 4)),
    (runtime.matmul_grad_left, (X, B), (2,)),
    (runtime.dot_grad_left, (X, Y), (2, 4)),
    (runtime.dot_grad_right, (X, Y), (2, 4)),
    (lambda g, x, y: runtime.tensordot_grad(g, x, y, 1, 0), (X, Y), (2, 4)),
    (lambda g, x, y: runtime.tensordot_grad(g, x, y, 1, 1), (X, Y), (2, 4)),
    (lambda g, a, b: runtime.solve_grad(g, np.linalg.solve(a, b), a, b, 0), (A, B), (3,)),
    (lambda g, a, b: runtime.solve_grad(g, np.linalg.solve(a, b), a, b, 1), (A, B), (3,)),
], ids=["matmul-left", "matmul-right", "matmul-vector", "dot-left", "dot-right",
        "tensordot-0", "tensordot-1", "solve-a", "solve-b"])
def test_a_number_is_the_array_of_that_number(helper, args, shape):
    np.testing.assert_allclose(helper(0.5, *args), helper(np.full(shape, 0.5), *args))


def test_joins_and_transposes_of_a_number():
    assert runtime.concatenate_grad(0.5, [np.ones(2), np.ones(3)]) == [0.5, 0.5]
    assert runtime.stack_grad(0.5, np.ones((2, 3))).shape == (2, 3)
    assert runtime.transpose_grad(0.5, (1, 0)) == 0.5


def test_a_state_no_later_value_reads():
    """The Kalman filter's state after its last update is read by nothing: its
    sensitivity is 0.0 when the reverse loop starts, and reaches `K @ r`'s adjoint."""
    zs = [rng.normal(size=2) for _ in range(3)]
    args = (np.zeros(2), np.eye(2), zs, 0.1)
    for index in (0, 3):
        got = s2sad.grad(C.kalman_filter, wrt=index)(*args)
        np.testing.assert_allclose(got, numeric_gradient(C.kalman_filter, args, index),
                                   rtol=1e-6, atol=1e-8)
