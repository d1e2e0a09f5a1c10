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
from test_cupy import (BACKENDS, backend_module, check_placement, emulated,  # noqa: E402,F401
                       fresh_grad, to_device, to_host)


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
    # (CuPy's functions, or s2sad's stand-in calling them: polygamma's order made an array)
    assert ("import cupyx.scipy." in df.source or "cupy_compat import polygamma" in df.source) \
        and "scipy.special" not in df.source.replace("cupyx.scipy.special", "")


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


# --- scipy.linalg, scipy.fft, scipy.stats and scipy.integrate on the CuPy target -------------
# CuPy has twins of scipy.linalg's solve_triangular, lu, lu_factor, lu_solve, expm,
# block_diag and toeplitz, and of all of scipy.fft (cupyx.scipy.linalg, cupyx.scipy.fft);
# of scipy.stats none of the distributions, and no scipy.integrate at all (CuPy's reference,
# docs.cupy.dev/en/latest/reference/scipy_linalg.html, scipy_fft.html, scipy_stats.html)

import scipy.fft as sfft  # noqa: E402
import scipy.integrate as si  # noqa: E402
import scipy.linalg as sl  # noqa: E402
import scipy.stats as st  # noqa: E402
from scipy.stats import norm  # noqa: E402

from s2sad import registry  # noqa: E402

_rng = np.random.default_rng(34)
MA = _rng.normal(size=(3, 3)) + 3.0 * np.eye(3)
MB = _rng.normal(size=(3, 2))
MV = _rng.normal(size=3)
MW = _rng.normal(size=(3, 3))
SIG = _rng.normal(size=8)


def triangular_lower(a, b, w):
    return np.sum(sl.solve_triangular(a, b, lower=True) * w)


def triangular_trans(a, v):
    return np.sum(sl.solve_triangular(a, v, trans=1) ** 2)


def lu_parts(a, w):
    p, low, up = sl.lu(a)
    return np.sum(low * w) + np.sum(up * w.T)


def lu_factor_then_solve(a, b, w):
    return np.sum(sl.lu_solve(sl.lu_factor(a), b) * w)


def lu_factor_alone(a, w):
    lu_, piv = sl.lu_factor(a)
    return np.sum(lu_ * w)


def expm_weighted(a, w):
    return np.sum(sl.expm(0.3 * a) * w)


def block_diag_pair(a, v):
    return np.sum(sl.block_diag(a, v) ** 2)


def toeplitz_pair(c, r):
    return np.sum(sl.toeplitz(c, r) ** 2)


def fft_power(x):
    return np.sum(np.abs(sfft.rfft(x, 10)) ** 2) + np.sum(np.abs(sfft.fft(x, norm="ortho")) ** 3)


def fft_inverse(x):
    return np.sum(sfft.irfft(x, 9) ** 2) + np.sum(np.abs(sfft.fftshift(sfft.ifft(x))) ** 3)


def fft_nd(m):
    return np.sum(np.abs(sfft.rfftn(m, axes=(0, 1))) ** 2) + np.sum(sfft.irfft2(m) ** 2)


MAPPED = [
    (triangular_lower, (MA, MB, MB), 0), (triangular_lower, (MA, MB, MB), 1),
    (triangular_trans, (MA, MV), 0), (triangular_trans, (MA, MV), 1),
    (lu_parts, (MA, MW), 0), (lu_factor_then_solve, (MA, MB, MB), 0),
    (lu_factor_then_solve, (MA, MB, MB), 1), (lu_factor_alone, (MA, MW), 0),
    (expm_weighted, (MA, MW), 0), (block_diag_pair, (MW, MB), 0),
    (block_diag_pair, (MW, MB), 1), (toeplitz_pair, (MV, SIG[:4]), 0),
    (toeplitz_pair, (MV, SIG[:4]), 1),
    (fft_power, (SIG,), 0), (fft_inverse, (SIG,), 0), (fft_nd, (MW,), 0),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, args, wrt", MAPPED, ids=[f"{f.__name__}-{w}" for f, _, w in MAPPED])
def test_linalg_and_fft_gradients_on_cupy_equal_numpys(backend, f, args, wrt, monkeypatch):
    cupy = backend_module(backend, monkeypatch)
    expected = s2sad.grad(f, wrt)(*args)
    device_args = to_device(cupy, args)
    df = fresh_grad(f, wrt, True, "auto")
    got = df(*device_args)
    check_placement(cupy, device_args[wrt], got)
    np.testing.assert_allclose(to_host(cupy, got), expected, rtol=1e-6, atol=1e-9)
    assert "import cupyx.scipy." in df.source and "import scipy" not in df.source


def stats_logpdf(x, mu):
    return np.sum(st.norm.logpdf(x, mu, 2.0))  # <- refused


def stats_by_name(x):
    return np.sum(norm.logcdf(x) * x)  # <- refused


def stats_frozen(x, mu):
    d = st.gamma(2.0, mu)
    return np.sum(d.logpdf(x))  # <- refused


def linalg_cholesky(a):
    return np.sum(sl.cholesky(a @ a.T + 3.0 * np.eye(3)))  # <- refused


def linalg_logm(a):
    b = a @ a.T + 3.0 * np.eye(3)
    return np.sum(sl.logm(b))  # <- refused


def _decay(y, t, k):
    return -k * y


def _decay_ivp(t, y, k):
    return -k * y


def ode_odeint(y0):
    return np.sum(si.odeint(_decay, y0, np.array([0.0, 1.0]), args=(0.5,)))  # <- refused


def ode_solve_ivp(y0):
    return np.sum(si.solve_ivp(_decay_ivp, (0.0, 1.0), y0, args=(0.5,)).y)  # <- refused


REFUSED_ON_CUPY = [
    (stats_logpdf, (SIG, 0.3), "scipy.stats.norm.logpdf has no CuPy twin", None),
    (stats_by_name, (SIG,), "scipy.stats.norm has no CuPy twin", None),
    (stats_frozen, (np.abs(SIG), 1.5), "scipy.stats.gamma.logpdf has no CuPy twin", None),
    (linalg_cholesky, (MA,), "scipy.linalg.cholesky has no CuPy twin", "np.linalg.cholesky(a)"),
    (linalg_logm, (MA,), "scipy.linalg.logm has no CuPy twin", None),
    (ode_odeint, (MV,), "scipy.integrate.odeint has no CuPy twin", None),
    (ode_solve_ivp, (MV,), "scipy.integrate has no CuPy twin (s2sad's ivp_", None),
]


@pytest.mark.parametrize("f, args, message, instead", REFUSED_ON_CUPY,
                         ids=[f.__name__ for f, *_ in REFUSED_ON_CUPY])
def test_what_cupy_lacks_of_scipy_is_refused_at_the_users_line(f, args, message, instead):
    with pytest.raises(s2sad.DifferentiationError) as info:
        fresh_grad(f, 0, True, "cupy").source_for(*args)
    text = str(info.value)
    assert message in text and "target='numpy'" in text, text
    if instead is not None:
        assert f"Write {instead}" in text
    lines, first = inspect.getsourcelines(f)
    assert info.value.lineno == first + next(i for i, line in enumerate(lines)
                                             if "<- refused" in line)


def test_the_numpy_target_runs_the_refused_ones():
    np.testing.assert_allclose(s2sad.grad(ode_odeint)(MV), np.exp(-0.5) * np.ones(3) + 1.0,
                               rtol=1e-5)
    assert "scipy.stats" in s2sad.grad(stats_logpdf).source_for(SIG, 0.3)


def _twin_of(name: str):
    """``(module, rest)``: the SciPy module of ``name`` that the CuPy backend knows (its twin
    or a module it has none of), and the dotted name in it; None where it knows neither."""
    modules = sorted([*CUPY.twins, *CUPY.without], key=len, reverse=True)
    module = next((m for m in modules if name.startswith(m + ".")), None)
    return None if module is None else (module, name[len(module) + 1:])


def test_every_scipy_rule_is_mapped_or_refused_on_cupy(emulated):
    """Every SciPy function with a rule has a twin that the (emulated) cupyx module has, or
    the CuPy target refuses it: none is left to run SciPy on device arrays. A new group of
    SciPy rules fails here until its module is put in the CuPy backend's twins or without."""
    mapped, refused, unknown = set(), set(), set()
    for rule in registry.registered():
        name = registry.describe_function(rule.func)
        if not name.startswith("scipy."):
            continue
        found = _twin_of(name)
        if found is None:
            unknown.add(name)
            continue
        module, rest = found
        head, _, attr = f"{module}.{rest}".rpartition(".")
        if CUPY.lacks_function(head, attr):
            refused.add(name)
        else:
            twin = sys.modules[CUPY.twins[module][0]]
            assert callable(getattr(twin, rest, None)), f"{name}: no {CUPY.twins[module][0]}.{rest}"
            mapped.add(name)
    assert not unknown, f"neither mapped nor refused on CuPy: {sorted(unknown)}"
    linalg = {n.rpartition(".")[2] for n in mapped if n.startswith("scipy.linalg.")}
    assert linalg == {"solve_triangular", "lu", "lu_factor", "lu_solve", "expm", "block_diag",
                      "toeplitz"}
    assert {n for n in refused if n.startswith("scipy.fft.")} == set()
    assert not {n for n in mapped if n.startswith(("scipy.stats.", "scipy.integrate."))}
    assert "scipy.stats.norm.logpdf" in refused and "scipy.integrate.odeint" in refused
    # (s2sad's own helpers that compute with a module CuPy has no twin of: refused too)
    helpers = [rule.func for rule in registry.registered(helpers=True)
               if (registry.facts(rule.func) or registry.Facts()).library]
    assert {h.__name__ for h in helpers} >= {"ivp_solve", "ivp_grads", "odeint_grads"}
    assert all(CUPY.lacks_module(registry.facts(h).library) for h in helpers)


# --- jvp and vjp on the CuPy target: their value too is the generated code's ---------------
# (the user's own function, run on device arrays, would hand them to SciPy itself)

SAMPLED = ON_CUPY[::6]


@pytest.mark.parametrize("f, args, wrt", SAMPLED, ids=_ids(SAMPLED))
def test_jvp_and_vjp_on_cupy_compute_their_value_on_the_device(f, args, wrt, emulated):
    value = f(*args)
    _, push = s2sad.jvp(f, wrt)(*args)
    _, pull = s2sad.vjp(f, wrt)(*args)
    tangent = np.ones_like(args[wrt])
    device_args = to_device(emulated, args)
    got, device_push = s2sad.jvp(f, wrt, target="cupy")(*device_args)
    assert isinstance(got, emulated.ndarray)
    np.testing.assert_allclose(to_host(emulated, got), value, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(to_host(emulated, device_push(emulated.asarray(tangent))),
                               push(tangent), rtol=1e-6, atol=1e-9)
    got, device_pull = s2sad.vjp(f, wrt, target="cupy")(*device_args)
    assert isinstance(got, emulated.ndarray)
    np.testing.assert_allclose(to_host(emulated, got), value, rtol=1e-6, atol=1e-12)
    seed = np.ones_like(value)
    sens = device_pull(emulated.asarray(seed))
    check_placement(emulated, device_args[wrt], sens)
    np.testing.assert_allclose(to_host(emulated, sens), pull(seed), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("maker", [s2sad.jvp, s2sad.vjp])
@pytest.mark.parametrize("f, args, message, instead", REFUSED_ON_CUPY,
                         ids=[f.__name__ for f, *_ in REFUSED_ON_CUPY])
def test_jvp_and_vjp_refuse_what_cupy_lacks_at_the_users_line(maker, f, args, message,
                                                               instead, emulated):
    with pytest.raises(s2sad.DifferentiationError) as info:
        maker(f, 0, target="cupy")(*to_device(emulated, args))
    assert message in str(info.value)
    lines, first = inspect.getsourcelines(f)
    assert info.value.lineno == first + next(i for i, line in enumerate(lines)
                                             if "<- refused" in line)
