"""The Dask target, session 34: what NumPy computes, Dask computes the same.

A sweep of the rule table and the operation table on Dask arrays
(``python -m tests.dask_sweep_s34``) found gradients that differed from NumPy's:

* silently wrong: Dask's ``cholesky`` gives the upper factor, its ``svd`` reduced factors
  with signs of its own, and its ``array`` keeps an ``np.matrix`` (whose ``@`` and ``*``
  are other products). The value and the gradient were another function's.
* crashes inside the generated code: Dask's ``inv``, ``solve``, ``cholesky``, ``svd``
  and ``qr`` take square chunks of one matrix; ``take`` takes along axis 0 (NumPy's: the
  flattened array) and no ``mode``; ``roll``'s adjoint rolled back by a Dask array;
  ``clip(min=)``, ``nan_to_num(nan=)``, ``sum(initial=)``, ``var(correction=)``,
  ``concatenate(dtype=)`` (``np.c_``), ``np.index_exp``, ``searchsorted`` of a number
  (``np.interp``) and ``matrix_power(x, -1)`` raised Dask's errors; so did ``np.fft``'s
  transforms along an axis of several chunks, ``np.linalg.norm`` of three axes or of
  singular values, ``astype`` given an order, ``reshape`` in Fortran order or to ``-1``,
  ``repeat`` of the flattened array or by counts, and ``np.gradient`` with spacings
  (``da.ndim`` of a number), ``np.linspace`` of array ends along an axis, and
  ``np.einsum`` with a label repeated in one operand (``"ii->i"``).

Each gradient is checked against the NumPy target's and central differences, on Dask
arrays of chunks of 2 (a matrix split across chunks) and of one chunk.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="Dask is not installed "
                         "(pip install 'dask[array]' distributed, or the `dask` extra)")

import s2sad  # noqa: E402
from tests.test_higher_order import central_differences  # noqa: E402

_rng = np.random.default_rng(34)
A3 = _rng.uniform(-1.0, 1.0, (3, 3))
W3 = _rng.uniform(-1.0, 1.0, (3, 3))
A35 = _rng.uniform(-1.0, 1.0, (3, 5))
A53 = _rng.uniform(-1.0, 1.0, (5, 3))
B233 = np.eye(3) * 2.0 + 0.3 * _rng.uniform(-1.0, 1.0, (2, 3, 3))
V4 = np.array([0.3, -0.55, 0.9, 1.2])
M34 = _rng.uniform(-1.5, 1.5, (3, 4))
with warnings.catch_warnings():
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    MATRIX = np.asmatrix(np.arange(9.0).reshape(3, 3) / 4.0)


def _on_dask(x, one_chunk):
    if isinstance(x, np.ndarray) and x.ndim:
        return da.from_array(x, chunks=-1 if one_chunk else 2)
    return x


def check(f, args, wrt=0):
    """The Dask target's value and gradient are NumPy's, which central differences
    confirm; on chunks of 2 and on one chunk."""
    want_value, want = s2sad.value_and_grad(f, wrt=wrt)(*args)
    np.testing.assert_allclose(want, central_differences(f, args, wrt), rtol=1e-5, atol=1e-6)
    for one_chunk in (False, True):
        value, got = s2sad.value_and_grad(f, wrt=wrt, target="dask")(
            *[_on_dask(a, one_chunk) for a in args])
        value = value.compute() if hasattr(value, "compute") else value
        got = got.compute() if hasattr(got, "compute") else got
        assert type(got) is np.ndarray and got.shape == want.shape, (type(got), got.shape)
        np.testing.assert_allclose(value, want_value, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


# --- silently wrong before: another function's value and gradient ---------------------------


def cholesky_weighted(a, w):
    s = a @ a.T + 3.0 * np.eye(3)
    return np.sum(np.linalg.cholesky(s) * w)


def cholesky_upper(a, w):
    s = a @ a.T + 3.0 * np.eye(3)
    return np.sum(np.linalg.cholesky(s, upper=True) * w)


def svd_vectors(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(s ** 1.5) + np.sum((u[:, 0] * u[:, 1]) ** 2) + np.sum(vh[0] ** 2 * vh[1])


def svd_full(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(np.log(s)) + np.sum(u[:, :2] ** 2 * vh[:2, 0])


def matrix_data(x):
    y = np.array(MATRIX) @ x
    return np.sum(np.multiply(y, x))


@pytest.mark.parametrize("f, args, wrt", [
    (cholesky_weighted, (A3, W3), 0), (cholesky_weighted, (A3, W3), 1),
    (cholesky_upper, (A3, W3), 0), (svd_vectors, (A35,), 0), (svd_vectors, (A53,), 0),
    (svd_full, (A53,), 0), (matrix_data, (V4[:3],), 0),
], ids=["cholesky-a", "cholesky-w", "cholesky-upper", "svd-wide", "svd-tall", "svd-full",
        "array-of-matrix"])
def test_once_silently_wrong(f, args, wrt):
    check(f, args, wrt)


def test_cholesky_and_svd_values_are_numpys():
    s = A3 @ A3.T + 3.0 * np.eye(3)
    from s2sad.runtime import dask_compat
    lower = dask_compat.cholesky(da.from_array(s, chunks=2)).compute()
    np.testing.assert_allclose(lower, np.linalg.cholesky(s), rtol=1e-12)
    u, _, vh = dask_compat.svd(da.from_array(A35, chunks=2))
    want = np.linalg.svd(A35)
    np.testing.assert_allclose(u.compute(), want[0], rtol=1e-12, atol=1e-12)
    assert vh.shape == (5, 5)
    np.testing.assert_allclose(vh.compute(), want[2], rtol=1e-12, atol=1e-12)


# --- crashes before ---------------------------------------------------------------------------


def inverse(a):
    return np.sum(np.linalg.inv(a + 3.0 * np.eye(3)) * W3)


def solved_batched(a):
    return np.sum(np.linalg.solve(a, np.ones((2, 3, 2))) ** 2)


def solved_vector(a):
    return np.sum(np.linalg.solve(a + 3.0 * np.eye(3), np.array([1.0, 2.0, 3.0])) ** 2)


def qr_parts(a):
    q, r = np.linalg.qr(a)
    return np.sum(q * np.arange(9.0).reshape(3, 3)) + np.sum(r ** 2)


def qr_r(a):
    return np.sum(np.linalg.qr(a[:, :2], mode="r") * np.arange(4.0).reshape(2, 2))


def power_negative(a):
    return np.sum(np.linalg.matrix_power(a + 3.0 * np.eye(3), -1))


def rolled(x):
    y = np.roll(x, 1)
    return np.sum(y * y) + np.sum(np.roll(x, (1, -2), axis=(0, 1)) * M34)


def taken(x):
    return np.sum(np.take(x, [0, 2, 2, -1]) ** 2) + np.sum(np.take(x, [1, 1], axis=1) ** 3)


def taken_modes(x):
    return np.sum(np.take(x, [5, -7, 1], mode="wrap") ** 2) + \
        np.sum(np.take(x, [[9, -3]], mode="clip") * 3.0)


def clipped(x):
    return np.sum(np.clip(x * 2.0, min=-0.5, max=1.0) ** 2) + np.sum(x.clip(min=0.1) * x)


def replaced(x):
    y = np.where(x > 1.0, np.inf, np.where(x < 0.0, np.nan, np.where(x > 0.5, -np.inf, x)))
    return np.sum(np.nan_to_num(y, nan=2.0, posinf=1.0, neginf=-1.0) * x)


def summed_initial(x):
    return np.sum(x * x, initial=2.5) * x[0]


def corrected(x):
    return np.var(x, correction=1) + np.std(x * 2.0, correction=1)


def joined(x):
    return np.sum(np.c_[x, x * x] ** 2) + np.sum(np.concatenate([x, x * 2.0], dtype=np.float64)
                                                 * 3.0)


def by_index_exp(x):
    return np.sum(x[np.index_exp[::2]] ** 2)


def interpolated(x):
    return np.interp(0.5, np.array([0.0, 1.0, 2.0, 3.0]), x) + \
        np.sum(x[np.searchsorted(np.array([0.0, 1.0]), 0.5)] * x)


def spectra(x):
    y = np.fft.rfft(x * 1.3 - 0.2)
    z = np.fft.ifft2(x[:, :3] + 0.5j * x[:, 1:], norm="ortho")
    return np.sum(np.abs(y) ** 2) + np.sum(np.real(z * np.conj(z))) + \
        np.sum(np.fft.irfftn(x, axes=(0,)) ** 2)


def norms(x):
    return np.linalg.norm(x.reshape(2, 3, 2)) + np.linalg.norm(x, 2) + \
        np.linalg.norm(x, "nuc") + np.sum(np.linalg.matrix_norm(x.reshape(2, 2, 3), ord="nuc"))


def cast_in_order(x):
    return np.sum(x.astype(np.float64, "F") * x)


def reshaped(x):
    return np.sum(x.reshape(4, 3).T.dot(x.reshape(-1)[:4]) ** 2) + \
        np.sum(np.reshape(x, (2, 6), order="F") * np.arange(12.0).reshape(2, 6))


def repeated(x):
    return np.sum(np.repeat(x, [1, 0, 3], axis=0) ** 2) + np.sum(np.repeat(x, 2) ** 3)


def spaced_gradient(x):
    gy, gx = np.gradient(x ** 3, 0.5, 2.0, edge_order=2)
    return np.sum(gy * x) + np.sum(gx * gx)


def spaced(x):
    return np.sum(np.linspace(x[:3], x[1:] * 2.0, 4, endpoint=False, axis=1) ** 2) + \
        np.sum(np.linspace(x[0], x, 3, axis=-1) * x[:, None])


def traced(x):
    y = np.einsum("ii->i", x.reshape(2, 2))
    return np.sum(y * y) + np.einsum("ii", x.reshape(2, 2) ** 2) + \
        np.sum(np.einsum("iji->j", np.outer(x, x)[:, :, None] * x[None, None, :]))


@pytest.mark.parametrize("f, args", [
    (traced, (V4,)), (spaced, (V4,)), (spaced_gradient, (M34,)), (reshaped, (M34,)), (repeated, (M34[:, :3],)), (spectra, (M34,)), (norms, (M34,)), (cast_in_order, (V4,)),
    (inverse, (A3,)), (solved_batched, (B233,)), (solved_vector, (A3,)), (qr_parts, (A3,)),
    (qr_r, (A3,)), (power_negative, (A3,)), (rolled, (M34,)), (taken, (M34,)),
    (taken_modes, (M34,)), (clipped, (V4,)), (replaced, (V4,)), (summed_initial, (V4,)),
    (corrected, (V4,)), (joined, (V4,)), (by_index_exp, (V4,)), (interpolated, (V4,)),
], ids=lambda v: getattr(v, "__name__", None))
def test_once_crashing(f, args):
    check(f, args)


def test_take_of_a_dask_array_is_of_the_flattened_array():
    from s2sad.runtime import dask_compat
    x = da.from_array(M34, chunks=2)
    np.testing.assert_array_equal(dask_compat.take(x, [[0, 5], [11, -1]]).compute(),
                                  np.take(M34, [[0, 5], [11, -1]]))
    with pytest.raises(IndexError, match="out of bounds"):
        dask_compat.take(x, [12])
