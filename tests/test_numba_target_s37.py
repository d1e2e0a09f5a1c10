"""Session 37: the numba target's loops as a person writes them in numba.

- A 1-d array a loop saves pass by pass, whose every value saved has one length, lies in
  the rows of one 2-d array (``grid_tape``, ``h_saved[t]``), not in a buffer with an
  offset per row (``put_row``, ``row_of``). The length is proven by
  ``fixed_shapes.fixed_rows``: ``W @ h`` ran, so ``h`` has as many items as ``W`` has
  columns. Where it is not proven (a length that changes on the first pass, a product
  in one branch only, a broadcast), the buffer of rows stays, and the gradient stays right.

Every gradient is checked against float64 central differences. On main, 7 of these
fail: the RNN's and the two-saves' grid (main keeps offsets), and the 5 tests of
``fixed_rows`` and ``put_grid`` (new).
"""

import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences

numba = pytest.importorskip("numba")


def _check(f, args, wrt, target="numba"):
    g = s2sad.grad(f, wrt=wrt, target=target)
    got = g(*args)
    got = got if isinstance(wrt, tuple) else (got,)
    for i, grad in zip(wrt if isinstance(wrt, tuple) else (wrt,), got, strict=True):
        np.testing.assert_allclose(np.asarray(grad), central_differences(f, args, i),
                                   rtol=1e-6, atol=1e-8)
    return g.source_for(*args)


# --- rows of one length: a 2-d tape ------------------------------------------------------


def rnn(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def two_saves(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.sin(W @ h + xs[t])
        h = np.tanh(W @ h) * 0.5   # (h saved twice a turn, each before it is rebound)
    return np.sum(h * xs[0])


def test_the_rnn_saves_its_state_in_the_rows_of_a_2d_array():
    rng = np.random.default_rng(37)
    W, xs = rng.standard_normal((4, 4)) * 0.4, rng.standard_normal((7, 4))
    source = _check(rnn, [W, xs], (0, 1))
    assert "h_saved = grid_tape(" in source and "h = h_saved[t]" in source, source
    assert "put_row" not in source and "row_of" not in source, source


def test_a_state_saved_twice_a_turn_has_two_grids():
    rng = np.random.default_rng(3)
    W, xs = rng.standard_normal((3, 3)) * 0.5, rng.standard_normal((5, 3))
    source = _check(two_saves, [W, xs], (0, 1))
    assert source.count("grid_tape(") == 2 and "put_row" not in source, source


# --- lengths not proven: the buffer of rows stays ----------------------------------------


def widening(c, xs):
    h = np.zeros(1)
    for t in range(xs.shape[0]):
        h = np.tanh(h * c + xs[t])   # (1,) saved on the first pass, (3,) after it
    return np.sum(h * h)


def scaled(W, c, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(h * c + xs[t])   # (no product: W's rows broadcast with xs's columns)
    return np.sum(h * h)


def test_a_length_that_changes_on_the_first_pass_keeps_its_rows():
    rng = np.random.default_rng(4)
    c, xs = rng.standard_normal(3), rng.standard_normal((4, 3))
    source = _check(widening, [c, xs], (0, 1))
    assert "put_row(" in source and "grid_tape" not in source, source


def test_a_length_not_proven_keeps_its_rows_where_it_does_not_change():
    """Every ``h`` has 3 items here, but nothing proves it: ``W`` of one row would give
    (1,) on the first pass and (3,) after it."""
    rng = np.random.default_rng(5)
    for W in (rng.standard_normal((3, 3)), rng.standard_normal((1, 3))):
        source = _check(scaled, [W, rng.standard_normal(3), rng.standard_normal((4, 3))],
                        (1, 2))
        assert "put_row(" in source and "grid_tape" not in source, source


# --- the analysis and the tape ------------------------------------------------------------


def _rows(source: str, **kinds):
    from s2sad.transforms.fixed_shapes import fixed_rows
    from tests.test_numba_target_s36 import analysed
    return analysed(fixed_rows, source, **kinds)


def test_fixed_rows_takes_a_length_from_a_product_that_ran():
    assert _rows('''def f(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(len(xs)):
        z = W @ h
        h = np.tanh(z + xs[t])
    return h''', W=(2, ()), xs=(2, ()), z=(1, None), h=(1, None)) == ["h"]


def test_fixed_rows_without_a_product_leaves_a_broadcast_length_out():
    """``h + xs[t]`` is ``W``'s rows broadcast with ``xs``'s columns: (1,) and (3,) give
    (3,) after a first pass of (1,)."""
    assert _rows('''def f(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(len(xs)):
        h = np.tanh(h + xs[t])
    return h''', W=(2, ()), xs=(2, ()), h=(1, None)) == []


def test_fixed_rows_reads_no_length_from_the_value_a_product_binds():
    """``h = A @ h``: the product's length is ``A``'s rows, the ``h`` it read had ``A``'s
    columns; what the next pass saves is the former."""
    assert _rows('''def f(A, x):
    h = x
    for t in range(3):
        h = A @ h
    return h''', A=(2, ()), x=(1, ()), h=(1, None)) == []


def test_fixed_rows_takes_nothing_from_a_product_in_one_branch():
    assert _rows('''def f(W, xs, k):
    h = np.zeros(1)
    for t in range(len(xs)):
        if k > 0:
            z = W @ h
        h = np.sin(h + xs[t])
    return h''', W=(2, ()), xs=(2, ()), k=(0, None), z=(1, None), h=(1, None)) == []


def test_put_grid_refuses_a_later_row_of_another_length():
    """The tape's own check (the proof makes it unreachable): a row cut or padded would be
    a silently wrong gradient."""
    from s2sad.runtime.numba_tape import grid_tape, put_grid

    @numba.njit
    def fill(first, later):
        rows = grid_tape(2, first)
        rows = put_grid(rows, 0, first)
        rows = put_grid(rows, 1, later)
        return rows

    np.testing.assert_array_equal(fill(np.ones(2), np.zeros(2)), [[1.0, 1.0], [0.0, 0.0]])
    with pytest.raises(IndexError, match="another length"):
        fill(np.ones(2), np.zeros(3))
