"""Session 36's review: programs that broke the merged code, each now right or refused.

Every gradient is checked against float64 central differences; a refusal is checked for
its message and its line. On merge36, 12 of these 14 tests fail (the 2 that pass guard
gradients that must stay right: an int read, np.interp of matching points).
"""

import numpy as np
import pytest

import s2sad
from tests.test_aliasing_s36 import central

X = np.array([0.5, 1.5, -2.0])


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


# --- fixed_shapes: np.matmul is a gufunc, not a broadcast ----------------------------------


def matmul_call_widening(W, H0):
    H = H0
    for t in range(3):
        H = np.tanh(np.matmul(W, H) + W)  # np.matmul(W, H): (4, 1) on the first pass, (4, 4) after
    return np.sum(H ** 2)


@pytest.mark.parametrize("wrt", [0, 1])
def test_matmul_call_whose_columns_widen(wrt):
    """``np.matmul(W, H)`` was modelled as a broadcast of ``W`` and ``H`` (a ufunc), so its
    shape was "proven" the same on every pass and its tape left out: a crash (a ValueError
    in the reverse sweep) where Python runs. ``W @ H`` was right all along."""
    rng = np.random.default_rng(36)
    args = [rng.standard_normal((4, 4)) * 0.4, rng.standard_normal((4, 1))]
    got = s2sad.grad(matmul_call_widening, wrt=wrt)(*args)

    def f(v):
        a = list(args)
        a[wrt] = v.reshape(args[wrt].shape)
        return matmul_call_widening(*a)
    np.testing.assert_allclose(got.ravel(), central(f, args[wrt].ravel()), rtol=1e-6,
                               atol=1e-8)


def test_fixed_shapes_reads_gufuncs_by_their_signature():
    """``np.matmul(A, b)`` has ``b``'s columns, which change pass by pass; ``np.vecdot``'s
    core axis is not broadcast either. Only ``A`` keeps one shape."""
    import gast

    from s2sad.transforms.fixed_shapes import fixed_shapes
    from s2sad.transforms.kinds import Kind
    fn = gast.parse("def f(A, x):\n"
                    "    for i in range(3):\n"
                    "        b = np.ones((4, i + 1))\n"
                    "        t = np.matmul(A, b)\n"
                    "        v = np.vecdot(A, b.T)\n"
                    "    return x").body[0]
    kinds = {"A": Kind("array", "A", 2, ones=()), "x": Kind("array", "x", 1, ones=()),
             "b": Kind("array", "b", 2), "t": Kind("array", "t", 2),
             "v": Kind("array", "v", 1)}
    assert fixed_shapes(fn, kinds, {"np": np}.__getitem__) == {"A", "x"}


# --- an unread line that raises: int(v) is Python's int ----------------------------------


def floor_divided_by_an_int_of_zero(x):
    n = int(x[0] * 0.0)
    q = 3 // n  # (nothing reads q: Python raises ZeroDivisionError here all the same)
    return np.sum(x * x)


def floor_divided_by_an_int_read(x):
    n = int(x[0] * 4.0 + 0.5)  # (2, away from a jump)
    q = 7 // n
    return np.sum(x * x) * q


@pytest.mark.parametrize("make", [s2sad.grad, s2sad.value_and_grad])
def test_an_unread_floor_division_by_an_int_of_zero_raises(make):
    """``int(v)`` made a NumPy-like number in the kinds, whose ``3 // n`` only warns, so
    the line was dropped and a gradient returned where Python raises."""
    with pytest.raises(ZeroDivisionError):
        make(floor_divided_by_an_int_of_zero)(X)


def test_an_unread_floor_division_by_an_int_of_zero_raises_in_jvp_and_hvp():
    with pytest.raises(ZeroDivisionError):
        s2sad.jvp(floor_divided_by_an_int_of_zero)(X)[1](np.ones(3))
    with pytest.raises(ZeroDivisionError):
        s2sad.hvp(floor_divided_by_an_int_of_zero)(X, np.ones(3))


def test_a_floor_division_by_an_int_read():
    np.testing.assert_allclose(s2sad.grad(floor_divided_by_an_int_read)(X),
                               central(floor_divided_by_an_int_read, X), rtol=1e-6)


# --- np.interp raises as NumPy does, read or not ----------------------------------------


def interp_lengths_differ_unread(x):
    q = np.interp(0.5, x, np.ones(4))
    return np.sum(x * x)


def interp_lengths_differ_read(x):
    return np.sum(np.interp(np.array([0.2, 0.7]), np.array([0.0, 0.5, 1.0]), x))


def interp_fp(x):
    return np.sum(np.interp(np.array([0.2, 0.7]), np.array([0.0, 0.5, 1.0]), x) ** 2)


@pytest.mark.parametrize("f, fp", [(interp_lengths_differ_unread, X),
                                   (interp_lengths_differ_read, np.ones(4)),
                                   (interp_lengths_differ_read, np.ones((3, 1)))])
def test_interp_of_points_and_values_that_do_not_match_raises(f, fp):
    """s2sad's np.interp (implementations.interp) read ``fp[j]`` past ``xp``'s length
    without NumPy's checks: a gradient where NumPy raises ValueError (its own message)."""
    with pytest.raises(ValueError):
        f(fp)
    with pytest.raises(ValueError, match="xp and fp must be 1-d, of one length"):
        s2sad.grad(f)(fp)


def test_interp_still_differentiated():
    np.testing.assert_allclose(s2sad.grad(interp_fp)(X), central(interp_fp, X), rtol=1e-6)
