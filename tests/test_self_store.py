"""A store whose right side is the array stored into: ``y[::-1] = y``.

NumPy reads the whole right side before it writes (it copies an overlapping right side
first), so ``y[::-1] = y`` reverses ``y``. The reverse sweep must then move each entry's
sensitivity back to where its value came from. It once read the statement as ``y = y``
and dropped it: a gradient of ``[0, 1, ..., 5]`` where the true one is ``[5, 4, ..., 0]``.
"""

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences

W = np.arange(6.0) + 1
X = np.array([0.7, -0.4, 1.2, 0.3, -0.9, 1.5])


def reverse_in_place(x):
    y = x.copy()
    y[::-1] = y
    return np.sum(np.sin(y) * W)


def reverse_unary_plus(x):
    y = x.copy()
    y[::-1] = +y
    return np.sum(np.sin(y) * W)


def reverse_conditional(x):
    y = x.copy()
    y[::-1] = y if x[0] > -10.0 else x
    return np.sum(np.sin(y) * W)


def permute_fancy(x):
    y = x.copy()
    y[[5, 3, 4, 2, 0, 1]] = y
    return np.sum(np.sin(y) * W)


def swap_rows(x):
    M = x.reshape(2, 3).copy()
    M[[1, 0]] = M
    return np.sum(M * W.reshape(2, 3))


def flip_columns(x):
    M = x.reshape(2, 3).copy()
    M[:, ::-1] = M
    return np.sum(np.cos(M) * W.reshape(2, 3))


def reverse_twice(x):
    y = x.copy()
    y[::-1] = y
    y[::-1] = y
    return np.sum(np.sin(y) * W)


def reverse_then_rebind(x):
    y = x.copy()
    y[::-1] = y
    y = y * 2.0
    return np.sum(np.sin(y) * W)


def reverse_in_loop(x):
    y = x.copy()
    for _ in range(3):
        y[::-1] = y
        y = y * 1.5
    return np.sum(np.sin(y) * W)


def whole_by_ellipsis(x):
    y = x.copy()
    y[...] = y
    return np.sum(np.sin(y) * W)


CASES = [reverse_in_place, reverse_unary_plus, reverse_conditional, permute_fancy, swap_rows,
         flip_columns, reverse_twice, reverse_then_rebind, reverse_in_loop, whole_by_ellipsis]


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "plain"])
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient_matches_central_differences(f, optimize):
    expected = central_differences(f, [X], 0)
    np.testing.assert_allclose(s2sad.grad(f, optimize=optimize)(X), expected, atol=1e-7)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_forward_mode_agrees(f):
    _, push = s2sad.jvp(f)(X)
    columns = np.array([push(e) for e in np.eye(X.size)])
    np.testing.assert_allclose(columns, s2sad.grad(f)(X), atol=1e-10)


@pytest.mark.parametrize("f", [reverse_in_place, permute_fancy, reverse_then_rebind],
                         ids=lambda f: f.__name__)
def test_second_order(f):
    hessian = s2sad.hessian(f)(X)
    expected = central_differences(s2sad.grad(f), [X], 0)
    np.testing.assert_allclose(hessian, expected, atol=1e-6)


def test_argument_is_left_alone():
    x = X.copy()
    s2sad.grad(reverse_then_rebind)(x)
    np.testing.assert_array_equal(x, X)


# --- views held where the alias analysis once lost them ----------------------------------
# ``[a[i:i + 2] for i in ...]`` holds views of ``a``, as ``list(...)`` or ``.append`` do;
# ``sliding_window_view(a, 3)`` is a view of ``a`` (s2sad's stand-in copies). An update of
# ``a`` after is seen through them in NumPy: refused at its line, where it once gave a
# gradient (and, for the windows, a value) computed from the old entries.

import inspect  # noqa: E402


def slices_in_a_comprehension(x):
    a = x.copy()
    parts = [a[i:i + 2] for i in range(0, 6, 2)]
    a[0] = 5.0  # <- here
    return np.sum(parts[0] ** 2)


def rows_in_a_comprehension(x):
    a = x.copy()
    rows = [r for r in a.reshape(2, 3)]
    a[0] = 5.0  # <- here
    return np.sum(rows[0] ** 2)


def windows_then_update(x):
    a = x.copy()
    b = np.lib.stride_tricks.sliding_window_view(a, 3)
    a[2] = 0.0  # <- here
    return np.sum(b ** 2)


def slices_copied_in_a_comprehension(x):
    a = x.copy()
    parts = [a[i:i + 2].copy() for i in range(0, 6, 2)]
    a[0] = 5.0
    return np.sum(parts[0] ** 2) + np.sum(a)


def windows_read_only(x):
    b = np.lib.stride_tricks.sliding_window_view(x, 3)
    return np.sum(np.sin(b) * np.arange(3.0))


def slices_in_a_comprehension_no_update(x):
    parts = [x[i:i + 2] for i in range(0, 6, 2)]
    return sum(np.sum(p ** 3) for p in parts)


@pytest.mark.parametrize("f", [slices_in_a_comprehension, rows_in_a_comprehension,
                               windows_then_update], ids=lambda f: f.__name__)
def test_an_update_seen_through_held_views_is_refused_at_its_line(f):
    lines, start = inspect.getsourcelines(f)
    line = start + next(i for i, text in enumerate(lines) if "# <- here" in text)
    for derivative in (s2sad.grad, lambda f: lambda x: s2sad.jvp(f)(x)[1](x)):
        with pytest.raises(s2sad.S2sadError) as info:
            derivative(f)(X.copy())  # (the pushforward is built where it is first called)
        assert info.value.lineno == line, str(info.value)
        assert "in-place update of 'a'" in str(info.value)


def test_the_comprehension_refusal_says_what_to_write():
    with pytest.raises(s2sad.S2sadError, match=r"the list 'parts' holds views of 'a'"):
        s2sad.grad(slices_in_a_comprehension)(X.copy())


@pytest.mark.parametrize("f", [slices_copied_in_a_comprehension, windows_read_only,
                               slices_in_a_comprehension_no_update], ids=lambda f: f.__name__)
def test_views_without_a_later_update_are_differentiated(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central_differences(f, [X], 0), atol=1e-7)


def one_array_in_every_slot(x):
    z = x * 2.0
    hs = [z for _ in range(2)]
    hs[1] += x * x  # <- here
    return np.sum(hs[0] * hs[1])


def test_a_comprehension_holding_one_array_twice_refuses_an_update_of_a_slot():
    # (both slots hold z: `+=` on one changes the other, so it stays refused)
    with pytest.raises(s2sad.S2sadError, match=r"another slot of 'hs' may hold") as info:
        s2sad.grad(one_array_in_every_slot)(X.copy())
    lines, start = inspect.getsourcelines(one_array_in_every_slot)
    assert info.value.lineno == start + 3
