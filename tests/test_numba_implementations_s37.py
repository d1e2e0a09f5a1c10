"""The numba target's own reductions (s2sad/runtime/numba_tape.py) against NumPy's.

``sum_along``, ``prod_along``, ``cumsum_along`` and ``mean_along`` stand in for
``np.sum(x, axis=...)`` and the others in nopython mode. An axis out of range raised
ValueError where NumPy raises AxisError; unsigned ints summed into int64, NumPy's uint64.
On main (045ed3c), all 6 tests fail.
"""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from s2sad.runtime import numba_tape as T  # noqa: E402

M = np.random.default_rng(37).normal(size=(3, 5))


@numba.njit
def _sum(x, axis):
    return T.sum_along(x, axis, False)


@numba.njit
def _prod(x, axis):
    return T.prod_along(x, axis, False)


@numba.njit
def _cumsum(x, axis):
    return T.cumsum_along(x, axis)


REDUCTIONS = [(_sum, np.sum), (_prod, np.prod), (_cumsum, np.cumsum)]


@pytest.mark.parametrize("compiled, numpy", REDUCTIONS, ids=["sum", "prod", "cumsum"])
def test_an_axis_out_of_range_raises_numpys_axis_error(compiled, numpy):
    with pytest.raises(np.exceptions.AxisError):
        numpy(M, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        compiled(M, 2)
    with pytest.raises(np.exceptions.AxisError):
        compiled(M, -3)


@pytest.mark.parametrize("compiled, numpy", REDUCTIONS, ids=["sum", "prod", "cumsum"])
def test_unsigned_and_signed_integers_keep_numpys_dtype(compiled, numpy):
    for x in (np.abs(M * 3).astype(np.uint8), (M * 3).astype(np.int32), M > 0, M):
        got, want = compiled(x, 0), numpy(x, axis=0)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want) if want.dtype.kind != "f" else \
            np.testing.assert_allclose(got, want, rtol=1e-12)
