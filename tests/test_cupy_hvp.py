"""Second derivatives on the CuPy target: ``s2sad.hvp(f, target="cupy")`` differentiates
the CuPy gradient's own code again. Its calls (``cp.exp``, ``cupyx.scipy.special.erf``,
``cp.add.at``, s2sad's stand-ins for what CuPy lacks) find NumPy's and SciPy's rules and
facts, and the runtime helpers of forward mode compute on the device. Each row of
tests/test_numpy_rules.py and tests/test_scipy_special.py equals the NumPy ``hvp`` (they
failed with "no derivative rule for cupy.sin", or gave 0 for an indexing's second
derivative)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sc = pytest.importorskip("scipy.special")

_HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.join(_HERE, "cupy_cases") not in sys.path:
    sys.path.insert(0, os.path.join(_HERE, "cupy_cases"))

import s2sad  # noqa: E402
import test_scipy_special as TP  # noqa: E402
from s2sad.backends import CUPY  # noqa: E402
from test_cupy import BACKENDS, backend_module, to_device, to_host  # noqa: E402
from tests import test_numpy_rules as TR  # noqa: E402


def _scalar_rows():
    rows = [(p.values[0], p.values[1], p.values[2], p.id) for row in TR.CASES for p in row
            if not p.id.endswith("-noopt")] + \
        [(f, args, wrt, f"special-{f.__name__}-{i}") for i, (f, args, wrt) in
         enumerate(TP.TABLE)]
    return [pytest.param(f, args, wrt, id=case) for f, args, wrt, case in rows
            if isinstance(wrt, int) and isinstance(args[wrt], np.ndarray) and
            args[wrt].dtype.kind == "f" and "W" not in f.__code__.co_names and
            not any(CUPY.lacks_function("scipy.special", getattr(TP.sc, name).__name__)
                    for name in f.__code__.co_names if hasattr(TP.sc, name)) and
            case not in ("float64-cast-opt",  # (np.float64 takes no CuPy array)
                         "eigh-repeated-opt")]  # (the emulation warns where CuPy does not)


ROWS = _scalar_rows()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, args, wrt", ROWS)
def test_hvp_on_cupy_equals_numpys(backend, f, args, wrt, monkeypatch):
    cupy = backend_module(backend, monkeypatch)
    v = np.linspace(0.3, -0.7, args[wrt].size).reshape(args[wrt].shape)
    try:
        expected = s2sad.hvp(f, wrt)(*args, v)
    except s2sad.errors.S2sadError:
        pytest.skip("no second derivative on NumPy either")
    got = s2sad.hvp(f, wrt, target="cupy")(*to_device(cupy, list(args)), cupy.asarray(v))
    assert isinstance(got, cupy.ndarray)  # (computed on the device)
    np.testing.assert_allclose(to_host(cupy, got), expected, rtol=1e-6, atol=1e-9,
                               equal_nan=True)


def x_erf(x):
    return np.sum(sc.erf(x) * x)


def test_the_issues_example_erf(emulated_cupy):
    f = x_erf
    x, v = np.array([0.3, 0.9, -0.2]), np.array([1.0, 0.5, -2.0])
    got = s2sad.hvp(f, target="cupy")(emulated_cupy.asarray(x), emulated_cupy.asarray(v))
    second = 4 / np.sqrt(np.pi) * np.exp(-x * x) * (1 - x * x)  # d2/dx2 of x erf(x)
    np.testing.assert_allclose(emulated_cupy.asnumpy(got), second * v, rtol=1e-12)


@pytest.fixture
def emulated_cupy(monkeypatch):
    return backend_module("emulated", monkeypatch)
