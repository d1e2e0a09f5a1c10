"""Session 36's review: programs that broke the merged code, each now right or refused.

Every gradient is checked against float64 central differences; a refusal is checked for
its message and its line. On merge36, every test here fails (counts in each commit).
"""

import numpy as np
import pytest

import s2sad

X = np.array([0.5, 1.5, -2.0])


def central(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (np.sum(f(up)) - np.sum(f(down))) / (2 * eps)
    return g


# --- a helper storing into an item of its list's item ----------------------------------------


def set_nested(ls, v):
    ls[0][1] = v


def helper_sets_nested_item(x):
    y = x * 1.0
    ls = [y]
    set_nested(ls, 4.0)
    return np.sum(y * x)


@pytest.mark.parametrize("make", [s2sad.grad, s2sad.value_and_grad, s2sad.jvp])
def test_a_helper_nested_store_is_refused_at_its_line(make):
    """``ls[0][1] = v`` in a helper: refused as at the top level (it crashed with an
    AttributeError in aliasing.setitem)."""
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="nested element") as info:
        make(helper_sets_nested_item)(X)
    assert "ls[0][1] = v" in str(info.value)
    assert "set_nested(ls, 4.0)" in str(info.value)
