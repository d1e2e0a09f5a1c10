"""The Dask target, session 35: NumPy's indexing by several arrays (or one of several
axes, a mask beside a number), ``x.tolist()`` and ``round(v)`` of a Dask value, which
raised Dask's own errors at the user's line (``NotImplementedError: Don't yet support nd
fancy indexing``, ``'Array' object has no attribute 'tolist'``, ``type Array doesn't
define __round__ method``), and a sensitivity added through an index with a new axis
(``s[None, ..., 1:] += g``), which Dask's setitem read wrong.

Each gradient is checked against the NumPy target's and central differences, on Dask
arrays of chunks of 2 and of one chunk (``tests.test_dask_target_s34.check``).
"""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="Dask is not installed "
                         "(pip install 'dask[array]' distributed, or the `dask` extra)")

from tests.test_dask_target_s34 import M34, V4, check  # noqa: E402

_rng = np.random.default_rng(35)
T234 = _rng.uniform(-1.0, 1.0, (2, 3, 4))


def two_arrays(x):
    return np.sum(x[np.array([0, 2]), np.array([1, 3])] ** 2)


def of_two_axes(x):
    return np.sum(x[np.array([[0, 2], [1, 1]])] ** 2) + np.sum(x[[[0], [2]], [1, 3, 3]] ** 3)


def number_and_list(x):  # (separated by a slice: NumPy puts the indexed axis first)
    return np.sum(x[0, :, [0, 3]] * np.arange(6.0).reshape(2, 3)) + np.sum(x[:, [1, 1], 2:] ** 2)


def mask_and_number(x):
    return np.sum(x[np.array([True, False, True]), 1] ** 2) + np.sum(x[None, ..., 1:] ** 3)


def listed(x):
    return sum(v * v for v in x.tolist()[0]) + x[1].tolist()[2] * x[0, 0]


def listed_loop(x):
    s = 0.0
    for v in x[0].tolist():
        s = s + v ** 3
    return s


def rounded(x):
    return np.sum(x) * round(np.sum(x * 3.0)) + round(np.sum(x ** 2), 2) * np.sum(x)


@pytest.mark.parametrize("f, args", [
    (two_arrays, (M34,)), (of_two_axes, (M34,)), (number_and_list, (T234,)),
    (mask_and_number, (M34,)), (listed, (M34,)), (listed_loop, (M34,)), (rounded, (M34,)),
    (rounded, (V4,)),
], ids=lambda v: getattr(v, "__name__", None))
def test_as_numpy_computes_it(f, args):
    check(f, args)


KEYS = [(np.array([0, 2]), np.array([1, 3])), (np.array([[0, 2], [1, 1]]),),
        ([[0], [2]], [1, -1, 3]), (0, slice(None), [0, 3]), (slice(None), [1, 1], 2),
        (np.array([True, False, True]), 1), (None, Ellipsis, [0, 1]),
        (slice(1, None), [0, 0, 3]), (np.array([[True, False, True, True]] * 3),),
        ([2, 0],), (Ellipsis, np.array([3, 0])), (1, [[0], [2]], np.array([3, 1])),
        ([1, 0], slice(None), 2)]


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
def test_index_is_numpys(key):
    from s2sad.runtime.dask_compat import index
    rank = sum(1 if np.ndim(k) == 0 or isinstance(k, (list, np.ndarray)) and
               np.asarray(k).dtype != bool else np.ndim(k)
               for k in key if k is not None and k is not Ellipsis)
    x = np.arange(24.0).reshape(2, 3, 4) if rank == 3 else M34
    for chunks in (2, -1):
        got = index(da.from_array(x, chunks=chunks), key)
        assert type(got).__module__.startswith("dask")
        np.testing.assert_array_equal(got.compute(), x[key])


def test_index_out_of_bounds_raises_numpys_error():
    from s2sad.runtime.dask_compat import index
    x = da.from_array(M34, chunks=2)
    with pytest.raises(IndexError, match="out of bounds"):
        index(x, (np.array([0, 3]), np.array([1, 1])))


def test_round_of_an_array_of_one_axis_is_refused_as_numpy_refuses_it():
    from s2sad.runtime.dask_compat import python_round
    with pytest.raises(TypeError, match="__round__"):
        round(M34)
    with pytest.raises(TypeError, match="__round__"):
        python_round(da.from_array(M34, chunks=2))
    got = python_round(da.sum(da.from_array(V4, chunks=2)) * 1.5)
    assert type(got) is int and got == round(np.sum(V4) * 1.5)  # (Python's: an int)
    got = python_round(da.sum(da.from_array(V4, chunks=2)) * 1.5, 1)
    assert got.compute() == round(np.sum(V4) * 1.5, 1)


def summed_list(x):  # (np.sum of a list x.tolist() gave: Dask's sum takes no list)
    y = np.sum(x.tolist()) * x[0]
    return y * x[0] + y * y


def summed_item(x):  # (of a number, one of its items: nor a Python float)
    y = x.tolist()[2]
    return np.sum(y * y) + np.sum(y) * x[0]


@pytest.mark.parametrize("f", [summed_list, summed_item], ids=lambda f: f.__name__)
def test_numpy_functions_of_the_numbers_tolist_gives(f):
    check(f, (V4,))
