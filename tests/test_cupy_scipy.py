"""SciPy's functions on the CuPy target: ``scipy.special`` and ``scipy.signal`` calls become
``cupyx.scipy``'s, on the device, where CuPy has the function; elsewhere the call is
refused at the user's line when the gradient is compiled (``scipy.special.jv``). Each
table of tests/test_scipy_special.py and tests/test_scipy_signal.py runs on the emulated
CuPy (and the real one where a GPU is visible) against the NumPy gradient."""

from __future__ import annotations

import inspect
import os
import sys

import numpy as np
import pytest

pytest.importorskip("scipy.special")
pytest.importorskip("scipy.signal")

_HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.join(_HERE, "cupy_cases") not in sys.path:
    sys.path.insert(0, os.path.join(_HERE, "cupy_cases"))

import s2sad  # noqa: E402
from s2sad.backends import CUPY  # noqa: E402
import test_scipy_signal as TS  # noqa: E402
import test_scipy_special as TP  # noqa: E402
from test_cupy import (BACKENDS, backend_module, check_placement, fresh_grad,  # noqa: E402
                       to_device, to_host)


def _lacking(f) -> list[str]:
    """The scipy.special functions ``f`` calls that CuPy has no twin of."""
    text = inspect.getsource(f)
    return [name for name in dir(TP.sc) if f"sc.{name}(" in text and
            CUPY.lacks_function("scipy.special", getattr(TP.sc, name).__name__)]


# (on device arrays only; softmax's cases read a NumPy array of the module, W, which a
# function given CuPy arrays cannot mix with them)
ROWS = [(f, args, wrt) for f, args, wrt in TP.TABLE + TS.TABLE
        if isinstance(args[wrt], np.ndarray) and "W" not in f.__code__.co_names]
ON_CUPY = [row for row in ROWS if not _lacking(row[0])]
REFUSED = [row for row in ROWS if _lacking(row[0])]


def _ids(rows):
    return [f"{f.__module__.split('_')[-1]}-{f.__name__}-{i}-{wrt}"
            for i, (f, _, wrt) in enumerate(rows)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, args, wrt", ON_CUPY, ids=_ids(ON_CUPY))
def test_scipy_gradients_on_cupy_equal_numpys(backend, f, args, wrt, monkeypatch):
    cupy = backend_module(backend, monkeypatch)
    expected = s2sad.grad(f, wrt)(*args)
    device_args = to_device(cupy, args)
    df = fresh_grad(f, wrt, True, "auto" if any(isinstance(a, cupy.ndarray)
                                                  for a in device_args) else "cupy")
    got = df(*device_args)
    check_placement(cupy, device_args[wrt], got)
    np.testing.assert_allclose(to_host(cupy, got), expected, rtol=1e-6, atol=1e-9)
    assert "import cupyx.scipy." in df.source and "scipy.special" not in \
        df.source.replace("cupyx.scipy.special", "")


@pytest.mark.parametrize("f, args, wrt", REFUSED, ids=_ids(REFUSED))
def test_a_function_cupy_lacks_is_refused_at_its_line(f, args, wrt):
    with pytest.raises(s2sad.DifferentiationError) as info:
        fresh_grad(f, wrt, True, "cupy").source_for(*args)
    message = str(info.value)
    assert "has no CuPy twin" in message and "target='numpy'" in message
    lines, first = inspect.getsourcelines(f)
    assert info.value.lineno == first + next(i for i, text in enumerate(lines)
                                             if "sc." in text and "return" in text)


def test_the_refused_ones_are_the_bessel_functions_of_any_order():
    assert sorted({name for f, _, _ in REFUSED for name in _lacking(f)}) == \
        ["iv", "ive", "jn", "jv", "kv", "kve", "yv"]


def by_name(x):
    from scipy.special import erf, jn  # noqa: F401  (imported by name: the same twins)
    return np.sum(erf(x))


def test_the_cupy_source_imports_cupyx(monkeypatch):
    """Printed without CuPy: the twin modules are named, never imported by the compiler."""
    monkeypatch.setitem(sys.modules, "cupy", None)  # (as if CuPy were not installed)
    monkeypatch.setitem(sys.modules, "cupyx", None)
    source = fresh_grad(TS.convolve_same, 0, True, "cupy").source_for(TS.A, TS.K)
    assert "import cupyx.scipy.signal as sg" in source
    assert "sg.correlate(full, k, 'valid'" in source
    source = fresh_grad(TP.gammaln, 0, True, "cupy").source_for(TP.X)
    assert "import cupyx.scipy.special as sc" in source and "sc.digamma(" in source


def erf_by_name(x):
    return np.sum(_erf(x) * x)


def jn_by_name(x):
    return np.sum(_jn(2, x) * x)  # <- here


from scipy.special import erf as _erf, jn as _jn  # noqa: E402


def test_functions_imported_by_name(monkeypatch):
    source = fresh_grad(erf_by_name, 0, True, "cupy").source_for(TP.X)
    assert "from cupyx.scipy.special import erf as _erf" in source
    with pytest.raises(s2sad.DifferentiationError, match="scipy.special.jv has no CuPy twin"):
        fresh_grad(jn_by_name, 0, True, "cupy").source_for(TP.X)
    cupy = backend_module("emulated", monkeypatch)
    got = fresh_grad(erf_by_name, 0, True, "auto")(cupy.asarray(TP.X))
    np.testing.assert_allclose(cupy.asnumpy(got), s2sad.grad(erf_by_name)(TP.X), rtol=1e-12)


def test_the_numpy_target_is_unchanged():
    source = s2sad.grad(TP.gammaln).source_for(TP.X)
    assert "cupyx" not in source and "sc.digamma(" in source
    assert not s2sad.backends.NUMPY.twins
