"""``a, b, *rest = x`` where ``x`` has exactly two items: ``rest`` is empty.

The adjoint of the unpacking packs the parts' sensitivities back into ``x``'s shape. With
nothing in ``rest`` it failed inside s2sad (``need at least one array to stack``, or
``'float' object is not iterable`` where ``rest`` was never read).
"""

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences


def rest_summed(x):
    a, b, *rest = x
    return a * b + sum(rest)


def rest_unread(x):
    a, b, *rest = x
    return a * b * 3.0


def rest_of_rows(x):
    first, second, *rest = x
    return np.sum(first * second) + sum(np.sum(r ** 2) for r in rest)


@pytest.mark.parametrize("f", [rest_summed, rest_unread], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [2, 3, 5])
def test_vector_with_any_number_of_items(f, n):
    x = np.linspace(0.3, 1.7, n)
    np.testing.assert_allclose(s2sad.grad(f)(x), central_differences(f, [x], 0), atol=1e-7)


@pytest.mark.parametrize("rows", [2, 4])
def test_matrix_rows(rows):
    x = np.arange(1.0, 1.0 + rows * 3).reshape(rows, 3) / 7
    np.testing.assert_allclose(s2sad.grad(rest_of_rows)(x),
                               central_differences(rest_of_rows, [x], 0), atol=1e-6)


def list_of_a_comprehension(x):
    return np.sum(list([xi * xi for xi in x]))


def test_the_sensitivity_of_a_list_copy_goes_back_item_by_item():
    # (pack_like of an array of the parts' sensitivities: row by row, not whole per item)
    x = np.array([0.3, 0.8, 1.1])
    np.testing.assert_allclose(s2sad.grad(list_of_a_comprehension)(x), 2 * x)
