"""Session 32: the known bugs session 31 left, each against central differences in float64
(a higher order against central differences of the order below it)."""

import numpy as np

import s2sad
from tests.test_higher_order import central_differences

A23 = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.5]])
V23 = np.array([[0.5, 0.2, -0.8], [-0.3, 0.9, 0.1]])


def _derivatives(f, order):
    out = [f]
    for _ in range(order):
        out.append(s2sad.grad(out[-1]))
    return out


def _check_line(phi, order, t=0.2):
    """The ``order``-th derivative of ``phi`` at ``t`` against central differences of the
    one below it."""
    d = _derivatives(phi, order)
    np.testing.assert_allclose(d[-1](t), central_differences(d[-2], [t], 0), rtol=1e-6,
                               atol=1e-8)


# --- 1. x.tolist() where x's rank is unknown (a global moved along a line) ------------------

def rows_of_a_line(t):
    rows = np.sin(A23 + t * V23).tolist()
    return rows[0][1] * rows[1][0] ** 2 + sum(v * v * v for v in rows[1])


def test_tolist_of_an_array_of_unknown_rank_adds_its_rows_item_by_item():
    # (main: s_rows[1] += s_5 joined two lists, and broadcast_like saw a row of length 6)
    for order in (1, 2, 3):
        _check_line(rows_of_a_line, order)
