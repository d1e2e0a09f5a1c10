"""``target="numba"``, session 29: tapes of nested loops (issue 38, the particles workload).

An inner loop's ``i + 1`` is recomputed in its reverse loop, not saved on a tape; integer
arithmetic on Python ints stays a Python int for the kinds analysis, so ``x[i + 1]`` is
a number and needs no ``unbroadcast``. Each gradient is checked against the NumPy
target's and central differences in float64. Skipped without numba.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import s2sad
from tests.test_numba_target_s27 import check

numba = pytest.importorskip("numba")


_rng = np.random.default_rng(29)


def chain_forces(x, k):
    n = x.shape[0]
    for _ in range(3):
        f = np.zeros(n)
        for i in range(n - 1):
            d = x[i + 1] - x[i]
            fi = k * (d - 1.0) + 0.1 * math.sin(d)
            f[i] = f[i] + fi
            f[i + 1] = f[i + 1] - fi
        x = x + 0.01 * f
    return np.sum(x * x)


def carried_index(x):
    n = x.shape[0]
    j = 0
    s = 0.0
    for _ in range(7):
        j = (j + 3) % n
        s = s * 0.5 + math.sin(x[j]) * x[j]
    return s


def test_inner_loop_index_recomputed_not_taped():
    x = np.arange(6) * 1.1 + _rng.uniform(-0.1, 0.1, 6)
    check(chain_forces, (x, 2.0), (0, 1))
    source = s2sad.grad(chain_forces, (0, 1), target="numba").source_for(x, 2.0)
    reverse = source.split("for i in range(t_2 - 1, -1, -1):")[1]
    assert "= i + 1" in reverse.split("\n")[1], source  # (its first statement)
    assert "stack_t_6" not in source, source  # (t_6 = d - 1.0: recomputed from d's tape)
    inner = reverse.split("f = f_saved")[0]
    assert "as_index(" not in source and "unbroadcast" not in inner, source
    # the NumPy target too: the inner loop's item read again, not pushed and popped
    numpy_source = s2sad.grad(chain_forces, (0, 1)).source_for(x, 2.0)
    assert "stack.append(t_3)" not in numpy_source, numpy_source


def test_index_carried_across_turns_restored_from_its_tape():
    # (refused before: s with j = (j + 3) % n not known a number, its seed was output_seed)
    x = _rng.standard_normal(5)
    check(carried_index, (x,))
    source = s2sad.grad(carried_index, target="numba").source_for(x)
    assert "as_index(j)" in source, source


def nested_products(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        u = a[i]
        for j in range(b.shape[0]):
            v = b[j]
            s = s + math.tanh(u * v) * (j + 1)
    return s


def test_inner_loop_read_recomputed():
    a, b = _rng.standard_normal(3), _rng.standard_normal(4)
    check(nested_products, (a, b), (0, 1))
    for target in ("numba", "numpy"):
        source = s2sad.grad(nested_products, (0, 1), target=target).source_for(a, b)
        assert "append(v)" not in source and "tape_value(v)" not in source, source


# --- elementwise fusion: a square is a product ---------------------------------------------


def squares(x):
    return np.sum(np.tanh(x) ** 2 + np.exp(-x * x))


def test_a_fused_square_is_a_product():
    """NumPy computes ``a ** 2`` as ``np.square(a)``, ``a * a``: the fused loop does too,
    where ``np.power(a, 2)`` on a number is a call of ``pow``."""
    x = _rng.standard_normal(40)
    df = s2sad.grad(squares, target="numba")
    source = df.source_for(x)
    assert "np.power" not in source and "t_1_i * t_1_i" in source, source
    np.testing.assert_allclose(df(x), s2sad.grad(squares)(x), rtol=1e-12, atol=1e-15)
    from tests.test_higher_order import central_differences
    np.testing.assert_allclose(df(x), central_differences(squares, (x,), 0), rtol=1e-6,
                               atol=1e-8)


# --- np.prod and np.cumsum along one axis --------------------------------------------------


def product_rows(x):
    return np.sum(np.cos(np.prod(x, axis=0)))


def product_last_axis_kept(x):
    return np.sum(np.sin(np.prod(x, axis=-1, keepdims=True)) * x)


def product_1d(x):
    return math.sin(np.prod(x, axis=0))


def running_sums(x):
    return np.sum(np.cumsum(x, axis=1) ** 2)


def running_sums_3d(x):
    return np.sum(np.tanh(np.cumsum(x, -2)) * x)


@pytest.mark.parametrize("f, shape", [(product_rows, (3, 4)),
                                      (product_last_axis_kept, (3, 4)),
                                      (product_1d, (5,)),
                                      (running_sums, (3, 4)),
                                      (running_sums_3d, (2, 3, 4))],
                         ids=["prod axis 0", "prod axis -1 keepdims", "prod 1-d", "cumsum axis 1",
                              "cumsum axis -2, 3-d"])
def test_prod_and_cumsum_along_one_axis(f, shape):
    x = _rng.uniform(0.5, 1.5, shape)
    check(f, (x,))


def test_prod_along_an_axis_with_a_zero():
    x = _rng.uniform(0.5, 1.5, (3, 4))
    x[1, 2] = 0.0
    x[0, 0] = x[2, 0] = 0.0  # (two zeros in one column: every entry's slope 0)
    check(product_rows, (x,))
