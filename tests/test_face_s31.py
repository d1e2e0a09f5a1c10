"""The face, session 31 (issue 39): what a careful reader of generated code stumbles on.

``x.tolist()`` of a differentiated array is followed (a list of Python numbers whose
sensitivities go back into x); a second-order gradient keeps no loop that only pops
values nothing reads; ``x ** 3`` at order 2 reads as a person writes it; an argument's
shape is read once. Every gradient is checked against central differences in float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import s2sad
from examples import eager


def central_differences(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        out.flat[k] = (f(x + e) - f(x - e)) / (2 * eps)
    return out if x.ndim else float(out)


# --- x.tolist(): Python numbers whose sensitivities flow back into x ------------------


def products_of_items(x):
    ys = x.tolist()
    return ys[0] * ys[1] * ys[2] + sum(ys)


def rows_of_a_matrix(x):
    rows = x.tolist()
    return sum(a * b for a, b in rows) + rows[1][0] ** 2


def loop_over_items(x):
    total = 0.0
    for v in (x * 2.0).tolist():
        total = total + np.sin(v) * v
    return total


def number_of_a_scalar(x):
    v = np.sum(x ** 2).tolist()
    return v * 3.0


TOLIST = [(products_of_items, np.array([1.0, 2.0, 3.0])),
          (rows_of_a_matrix, np.array([[1.0, 2.0], [3.0, 4.0]])),
          (loop_over_items, np.array([0.3, -0.4, 2.0])),
          (number_of_a_scalar, np.array([0.5, -1.5]))]


@pytest.mark.parametrize("f, x", TOLIST, ids=[f.__name__ for f, _ in TOLIST])
def test_tolist_of_a_differentiated_array_is_followed(f, x):
    """On main: NoDerivativeError, with advice about objects of the user's classes."""
    value, gradient = s2sad.value_and_grad(f)(x)
    assert value == f(x)
    np.testing.assert_allclose(gradient, central_differences(f, x), rtol=1e-7, atol=1e-9)


def test_tolist_keeps_python_numbers_in_the_generated_code():
    """The forward sweep calls x.tolist() as the user wrote it: its items are Python
    floats (1.0 / 0.0 raises ZeroDivisionError there as in the user's function)."""
    source = s2sad.grad(products_of_items).source_for(np.ones(3))
    assert "ys = x.tolist()" in source, source
    assert "list_grad(" in source, source


def test_tolist_in_forward_mode_and_at_order_two():
    x = np.array([1.0, 2.0, 3.0])
    _, push = s2sad.jvp(products_of_items)(x)
    v = np.array([0.5, -1.0, 2.0])
    expected = central_differences(products_of_items, x) @ v
    np.testing.assert_allclose(push(v), expected, rtol=1e-7)
    hessian = s2sad.hessian(rows_of_a_matrix)(np.array([[1.0, 2.0], [3.0, 4.0]]))
    inner = s2sad.grad(rows_of_a_matrix)
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    columns = [central_differences(lambda y, k=k: inner(y).flat[k], m) for k in range(4)]
    np.testing.assert_allclose(hessian.reshape(4, 4), np.array(columns).reshape(4, 4),
                               rtol=1e-6, atol=1e-8)


# --- no dead loop in a second-order gradient ---------------------------------------------


def test_second_order_control_flow_keeps_no_dead_loop():
    """On main, ``grad(grad(control_flow))`` ended with ``for trips_1 in
    reversed(trips_1_saved): pass`` (pops of values nothing read) and a tape for it."""
    gg = s2sad.grad(s2sad.grad(eager.control_flow))
    for source in (gg.source_for(0.3), gg.source):
        assert "reversed(" not in source and ".pop()" not in source, source
        assert "_saved" not in source and "stack" not in source, source
        assert "pass\n" not in source, source
    inner = s2sad.grad(eager.control_flow)
    for a in (0.3, -0.7):
        assert gg(a) == pytest.approx(central_differences(inner, a), abs=1e-6)
