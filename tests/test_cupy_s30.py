"""What the first run on a GPU (an NVIDIA H200, CuPy 14.2) found the CPU emulation of CuPy
missed, now emulated (``tests/cupy_cases/fake_cupy.py``), and s2sad's answers to it.

* CuPy's own signatures: a keyword it lacks is a ``TypeError`` (``cp.clip(x, min=0.0)``);
  s2sad's stand-ins in ``s2sad.runtime.cupy_compat`` take NumPy 2's calls and give NumPy's
  results, checked here against NumPy on the emulation.
* Arrays CuPy will not convert: ``cp.array([x, 1.0])`` of a device ``x``, ``cp.stack`` of
  numbers, ``cp.choose`` of a list, ``cp.inner(x, 0.5)``, a 0-d ``tensordot``.
* What CuPy leaves undefined: ``y[idx] = v`` with a repeated position (the emulation keeps
  the first value, NumPy the last); differentiating such a write on CuPy is refused at the
  user's line.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.join(_HERE, "cupy_cases") not in sys.path:
    sys.path.insert(0, os.path.join(_HERE, "cupy_cases"))

import fake_cupy  # noqa: E402
from s2sad.derivatives import GradientFunction  # noqa: E402
from s2sad.errors import DifferentiationError  # noqa: E402
from s2sad.runtime import cupy_compat as C  # noqa: E402


@pytest.fixture
def cp(monkeypatch):
    return fake_cupy.install(monkeypatch)


# --- the emulation is as strict as CuPy ---------------------------------------------------


def test_the_emulation_takes_only_cupys_keywords(cp):
    x = cp.asarray(np.array([-1.0, 0.5, 2.0]))
    for call in (lambda: cp.clip(x, min=0.0), lambda: cp.sum(x, initial=1.0),
                 lambda: cp.take(x, cp.asarray(np.array([0])), mode="wrap"),
                 lambda: cp.var(x, correction=1), lambda: cp.linalg.cholesky(x, upper=True)):
        with pytest.raises(TypeError, match="argument"):
            call()
    assert float(cp.clip(x, 0.0, 1.0).sum()) == 1.5  # (CuPy's own parameters are taken)


def test_the_emulation_refuses_what_cupy_will_not_convert(cp):
    x = cp.asarray(np.array([1.0, 2.0]))
    s = cp.sum(x)
    with pytest.raises(TypeError, match="Implicit conversion"):
        cp.array([s, 1.0])
    with pytest.raises(TypeError, match="incorrect type"):
        cp.stack([1.0, 2.0])
    with pytest.raises(AttributeError):
        cp.choose(cp.asarray(np.array([0, 1])), [x, x])
    with pytest.raises(AttributeError):
        cp.inner(x, 0.5)
    with pytest.raises(ValueError, match="zero-dim"):
        cp.tensordot(s, x, axes=([], []))
    assert cp.tensordot(s, x, axes=((), ())).shape == (2,)


def test_the_emulation_answers_otherwise_where_cupy_is_undefined(cp):
    y = cp.zeros(3)
    y[cp.asarray(np.array([1, 1]))] = cp.asarray(np.array([5.0, 7.0]))
    assert y.get().tolist() == [0.0, 5.0, 0.0]  # (NumPy keeps 7.0: CuPy may keep either)


# --- the stand-ins give NumPy's results ---------------------------------------------------

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4))


@pytest.mark.parametrize("call, expected", [
    (lambda xp: C.clip(xp.asarray(A), min=-0.5), np.clip(A, min=-0.5)),
    (lambda xp: C.clip(xp.asarray(A), max=0.2), np.clip(A, max=0.2)),
    (lambda xp: C.clip(xp.asarray(A), min=-0.1, max=0.3), np.clip(A, min=-0.1, max=0.3)),
    (lambda xp: C.take(xp.asarray(A), [13, -15, 2], mode="wrap"),
     np.take(A, [13, -15, 2], mode="wrap")),
    (lambda xp: C.take(xp.asarray(A), [13, -15, 2], axis=1, mode="clip"),
     np.take(A, [13, -15, 2], axis=1, mode="clip")),
    (lambda xp: C.take(xp.asarray(A), [3, -4], axis=1, mode="raise"),
     np.take(A, [3, -4], axis=1, mode="raise")),
    (lambda xp: C.sum_with_initial(xp.asarray(A), axis=0, keepdims=True, initial=2.5),
     np.sum(A, axis=0, keepdims=True, initial=2.5)),
    (lambda xp: C.sum_with_initial(xp.asarray(np.zeros(0)), initial=-1.0),
     np.sum(np.zeros(0), initial=-1.0)),
    (lambda xp: C.var(xp.asarray(A), axis=1, correction=0.5), np.var(A, axis=1, correction=0.5)),
    (lambda xp: C.std(xp.asarray(A), correction=1), np.std(A, correction=1)),
    (lambda xp: C.cholesky(xp.asarray(A @ A.T + 3 * np.eye(3)), upper=True),
     np.linalg.cholesky(A @ A.T + 3 * np.eye(3), upper=True)),
    (lambda xp: C.choose(xp.asarray(np.array([[0, 1, 1, 0]] * 3)), [xp.asarray(A), -1.0]),
     np.choose(np.array([[0, 1, 1, 0]] * 3), [A, -1.0])),
    (lambda xp: C.array([xp.sum(xp.asarray(A)), 1.0, xp.asarray(A)[0, 0]], ndmin=2),
     np.array([np.sum(A), 1.0, A[0, 0]], ndmin=2)),
    (lambda xp: C.stack([1.0, xp.sum(xp.asarray(A))], axis=0), np.stack([1.0, np.sum(A)])),
    (lambda xp: C.concatenate([[0.5, 1.5], xp.asarray(A)[0]]), np.concatenate([[0.5, 1.5],
                                                                                A[0]])),
])
def test_a_stand_in_gives_numpys_result_on_cupy(cp, call, expected):
    got = call(cp)
    assert isinstance(got, cp.ndarray)
    np.testing.assert_allclose(got.get(), expected, rtol=1e-12, atol=1e-12)
    assert got.dtype == np.asarray(expected).dtype


def test_take_raises_for_an_index_out_of_bounds_as_numpy_does(cp):
    with pytest.raises(IndexError):
        C.take(cp.asarray(A), [12], mode="raise")
    with pytest.raises(IndexError):
        np.take(A, [12], mode="raise")


def test_the_array_stand_in_copies_an_array_as_numpy_does(cp):
    x = cp.asarray(np.array([1.0, 2.0]))
    y = C.array(x)
    y[0] = 9.0
    assert x.get().tolist() == [1.0, 2.0]


# --- generated code: the stand-ins, and a repeated position refused -----------------------


def clip_low(x, lo):
    return np.sum(np.clip(x, min=lo) ** 2)


def several(x):
    v = np.array([np.sum(x), np.sum(x * x), 1.0])
    return np.sum(np.inner(x, 0.5) * v[1])


def counts(x, idx):
    y = np.zeros(4)
    y[idx] += x
    return np.sum(y ** 2)


def _grad(f, wrt=0):
    return GradientFunction(f, wrt, True, False, False, "auto")


def test_generated_cupy_code_calls_the_stand_ins(cp):
    x = RNG.standard_normal(5)
    df = _grad(clip_low)
    got = df(cp.asarray(x), -0.2)
    assert "from s2sad.runtime.cupy_compat import clip" in df.source
    np.testing.assert_allclose(got.get(), 2 * np.clip(x, -0.2, None) * (x > -0.2))
    df = _grad(several)
    got = df(cp.asarray(x)).get()
    h = 1e-6
    numeric = [(several(x + h * e) - several(x - h * e)) / (2 * h) for e in np.eye(5)]
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_a_repeated_position_written_on_cupy_is_refused_at_the_users_line(cp):
    x = RNG.standard_normal(3)
    df = _grad(counts)
    np.testing.assert_allclose(df(cp.asarray(x), cp.asarray(np.array([0, 1, 2]))).get(),
                               2 * x)  # (distinct positions: CuPy's result is defined)
    with pytest.raises(DifferentiationError, match="repeated in idx") as info:
        df(cp.asarray(x), cp.asarray(np.array([0, 1, 1])))
    assert "y[idx] += x" in str(info.value) and "np.add.at" in str(info.value)
    # (on NumPy, the last write to a position is kept: x[1]'s is overwritten)
    assert _grad(counts)(x, np.array([0, 1, 1])).tolist() == [2 * x[0], 0.0, 2 * x[2]]
