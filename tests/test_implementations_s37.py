"""Every definition of s2sad/implementations.py against the NumPy function it stands in for.

``np.rollaxis(np.ones((2, 3, 4)), -4)`` raises AxisError in NumPy; s2sad's ``rollaxis``
returned an array there, and a gradient. Each row of ``ROWS`` is one
call, good or bad; NumPy decides what it should give. The definition must give the same
value, dtype and shape, or raise NumPy's exception type; the generated code must too, and its
gradient must match float64 central differences. ``test_every_definition_has_rows`` lists
the definitions from the module itself, so a new one without rows fails.

On main (045ed3c), 75 of these 502 tests fail: 44 direct calls (values where NumPy raises,
IndexError for ValueError, float64 for int64 or float32, a 2-d convolve), 24 through s2sad
(a gradient where NumPy raises), 6 of the CuPy stand-ins' rows and the Dask one.
"""

import functools
import importlib
import itertools
import math
import operator
import sys
import warnings

import numpy as np
import pytest

import s2sad
from s2sad import implementations as I

RNG = np.random.default_rng(37)
M = RNG.normal(size=(3, 5))
V = RNG.normal(size=5)
S3 = RNG.normal(size=(2, 4, 3))
SQ = RNG.normal(size=(3, 3)) + 3.0 * np.eye(3)
M32, MI, MB = M.astype(np.float32), np.round(M * 3).astype(np.int64), M > 0
MC = M + 1j * M[::-1]
NC = RNG.normal(size=(5, 6))[:, ::2]  # (a view: not contiguous)
E0 = np.zeros(0)
XP = np.sort(V)
XI = (XP[:-1] + XP[1:]) / 2.0  # (between the knots: central differences see no kink)


def row(spelled, definition, *args, **kwargs):
    """One call: ``spelled`` names NumPy's function as a user writes it."""
    text = ", ".join(_describe(a) for a in args)
    text += "".join(f", {k}={_describe(v)}" for k, v in kwargs.items())
    return pytest.param(spelled, definition, args, kwargs, id=f"{spelled}({text})")


def _describe(value):
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{list(value.shape)}"
    if isinstance(value, list):
        return "[" + ", ".join(_describe(v) for v in value) + "]"
    return getattr(value, "__name__", repr(value))


ROWS = [
    # np.interp
    row("np.interp", I.interp, XI, XP, V), row("np.interp", I.interp, 0.3, XP, V),
    row("np.interp", I.interp, M32, XP, V), row("np.interp", I.interp, MI, XP, V),
    row("np.interp", I.interp, XI, XP, V, left=-1.0, right=2.0),
    row("np.interp", I.interp, XI, XP[:1], V[:1]), row("np.interp", I.interp, E0, XP, V),
    row("np.interp", I.interp, XI, E0, E0), row("np.interp", I.interp, XI, XP, V[:4]),
    row("np.interp", I.interp, XI, M, M),
    # np.polyval
    row("np.polyval", I.polyval, V, M), row("np.polyval", I.polyval, V, M32),
    row("np.polyval", I.polyval, MI[0], MI), row("np.polyval", I.polyval, E0, M),
    row("np.polyval", I.polyval, V, 0.5),
    # np.cross, np.linalg.cross
    row("np.cross", I.cross, M[:, :3], M[:, 1:4]), row("np.cross", I.cross, NC, NC[::-1]),
    row("np.cross", I.cross, MI[:, :3], MI[:, 1:4]), row("np.cross", I.cross, M32[:, :3], V[:3]),
    row("np.cross", I.cross, M[:, :3].T, M[:, 2:].T, axis=0),
    row("np.cross", I.cross, S3, S3[::-1], axisc=0), row("np.cross", I.cross, M, M),
    row("np.cross", I.cross, S3, S3, axisa=5),
    row("np.linalg.cross", I.linalg_cross, M[:, :3], M[:, 1:4]),
    row("np.linalg.cross", I.linalg_cross, M[:, :2], M[:, 2:4]),
    row("np.linalg.cross", I.linalg_cross, M[:, :3].T, M[:, 2:].T, axis=0),
    # np.cov (and its twin for complex values)
    row("np.cov", I.cov, M), row("np.cov", I.cov, V), row("np.cov", I.cov, M32),
    row("np.cov", I.cov, MI), row("np.cov", I.cov, MB), row("np.cov", I.cov, M, M),
    row("np.cov", I.cov, M.T, rowvar=False), row("np.cov", I.cov, M, bias=True),
    row("np.cov", I.cov, M, ddof=2), row("np.cov", I.cov, S3), row("np.cov", I.cov, V, V[:4]),
    row("np.cov", I.cov_complex, MC), row("np.cov", I.cov_complex, MC, MC[::-1]),
    # np.median, np.quantile, np.percentile
    row("np.median", I.median, M), row("np.median", I.median, M, axis=-1),
    row("np.median", I.median, NC, axis=0, keepdims=True), row("np.median", I.median, M32),
    row("np.median", I.median, MI, axis=0), row("np.median", I.median, M, axis=2),
    row("np.quantile", I.quantile, M, 0.3), row("np.quantile", I.quantile, M, [0.2, 0.8], axis=1),
    row("np.quantile", I.quantile, M32, 0.3), row("np.quantile", I.quantile, MI, [0.3], axis=0),
    row("np.quantile", I.quantile, M, 0.5, axis=-1, keepdims=True),
    row("np.quantile", I.quantile, M, 1.5), row("np.quantile", I.quantile, M, 0.5, axis=3),
    row("np.quantile", I.quantile, MC, 0.5),
    row("np.percentile", I.percentile, M, [20.0, 80.0], axis=1),
    row("np.percentile", I.percentile, M32, 50), row("np.percentile", I.percentile, M, 150),
    # np.append
    row("np.append", I.append, M, V), row("np.append", I.append, M, M, axis=-1),
    row("np.append", I.append, MI, 1.5), row("np.append", I.append, M32, M32),
    row("np.append", I.append, M, V, axis=0), row("np.append", I.append, M, M, axis=2),
    # np.convolve, np.correlate
    row("np.convolve", I.convolve, V, V[:3]), row("np.convolve", I.convolve, V[:3], V),
    row("np.convolve", I.convolve, V, V[:3], "same"),
    row("np.convolve", I.convolve, V, V[:3], "valid"),
    row("np.convolve", I.convolve, MI[0], MI[1]), row("np.convolve", I.convolve, V, 2.0),
    row("np.convolve", I.convolve, V, E0), row("np.convolve", I.convolve, E0, V),
    row("np.convolve", I.convolve, M, V), row("np.convolve", I.convolve, V, V, "middle"),
    row("np.correlate", I.correlate, V, V[:3]), row("np.correlate", I.correlate, V[:2], V, "same"),
    row("np.correlate", I.correlate, V, V[:3], "full"), row("np.correlate", I.correlate, M, V),
    row("np.correlate", I.correlate, V, E0),
    # NaN-skipping reductions (and nanvar's twin for complex values)
    row("np.nanprod", I.nanprod, M, axis=1), row("np.nanprod", I.nanprod, MI),
    row("np.nanprod", I.nanprod, MI, axis=0), row("np.nanprod", I.nanprod, MB),
    row("np.nanprod", I.nanprod, M32, axis=-1, keepdims=True),
    row("np.nanprod", I.nanprod, M, axis=2),
    row("np.nancumsum", I.nancumsum, M, axis=1), row("np.nancumsum", I.nancumsum, MI),
    row("np.nancumsum", I.nancumsum, M32), row("np.nancumsum", I.nancumsum, M, axis=2),
    row("np.nancumprod", I.nancumprod, M, axis=0), row("np.nancumprod", I.nancumprod, MI),
    row("np.nancumprod", I.nancumprod, M, axis=-3),
    row("np.nanvar", I.nanvar, M), row("np.nanvar", I.nanvar, M, axis=1),
    row("np.nanvar", I.nanvar, MI), row("np.nanvar", I.nanvar, M32),
    row("np.nanvar", I.nanvar, M, axis=-1, ddof=1, keepdims=True),
    row("np.nanvar", I.nanvar, M, axis=2),
    row("np.nanvar", I.nanvar_complex, MC), row("np.nanvar", I.nanvar_complex, MC, axis=1),
    row("np.nanstd", I.nanstd, M, axis=0, keepdims=True), row("np.nanstd", I.nanstd, MI, axis=1),
    row("np.nanstd", I.nanstd, M, axis=2),
    # axes, selections, deletions, insertions
    row("np.rollaxis", I.rollaxis, S3, 2), row("np.rollaxis", I.rollaxis, S3, -1),
    row("np.rollaxis", I.rollaxis, S3, 0, 3), row("np.rollaxis", I.rollaxis, S3, 1, -1),
    row("np.rollaxis", I.rollaxis, S3, 3), row("np.rollaxis", I.rollaxis, S3, -4),
    row("np.rollaxis", I.rollaxis, S3, 0, 4), row("np.rollaxis", I.rollaxis, S3, 0, -4),
    row("np.select", I.select, [M > 0, M < -1], [M, 2.0 * M]),
    row("np.select", I.select, [M > 0], [M], 5.0), row("np.select", I.select, [M32 > 0], [M32], 0),
    row("np.select", I.select, [MI > 0], [MI], 0.5), row("np.select", I.select, [M > 0], [M, M]),
    row("np.select", I.select, [], []), row("np.select", I.select, [M], [M]),
    row("np.delete", I.delete, V, 1), row("np.delete", I.delete, M, [0, 2], 1),
    row("np.delete", I.delete, M, 1, -1), row("np.delete", I.delete, MI, 1),
    row("np.delete", I.delete, M, 7, 1), row("np.delete", I.delete, M, 1, 2),
    row("np.insert", I.insert, V, 1, 9.0), row("np.insert", I.insert, M, [0, 2], V[:2], 1),
    row("np.insert", I.insert, MI, 1, 2.7), row("np.insert", I.insert, M, 9, 1.0, 1),
    row("np.insert", I.insert, M, 1, 1.0, 2),
    row("np.partition", I.partition, V, 2), row("np.partition", I.partition, M, 1, 0),
    row("np.partition", I.partition, M, [0, 2]), row("np.partition", I.partition, MI, 2),
    row("np.partition", I.partition, M, 9), row("np.partition", I.partition, M, 1, 2),
    # np.gradient, np.piecewise
    row("np.gradient", I.gradient, V), row("np.gradient", I.gradient, M, axis=1),
    row("np.gradient", I.gradient, M, 0.5, axis=-1), row("np.gradient", I.gradient, V, XP),
    row("np.gradient", I.gradient, V, edge_order=2), row("np.gradient", I.gradient, MI, axis=0),
    row("np.gradient", I.gradient, M32, axis=0), row("np.gradient", I.gradient, M, axis=2),
    row("np.gradient", I.gradient, V[:1]), row("np.gradient", I.gradient, V, edge_order=3),
    row("np.gradient", I.gradient, M, 1.0, 2.0, 3.0), row("np.gradient", I.gradient, V, XP[:3]),
    row("np.gradient", I.gradient, V, M), row("np.gradient", I.gradient, M, XP),
    row("np.piecewise", I.piecewise, V, [V > 0], [1.0, -1.0]),
    row("np.piecewise", I.piecewise, V, [V > 0, V < -1], [1.0, 2.0]),
    row("np.piecewise", I.piecewise, MI, [MI > 0], [1.5]),
    row("np.piecewise", I.piecewise, V, [M > 0], [1.0]),
    row("np.piecewise", I.piecewise, V, [V > 0], [1.0, 2.0, 3.0]),
    # np.linalg
    row("np.linalg.matrix_power", I.matrix_power, SQ, 2),
    row("np.linalg.matrix_power", I.matrix_power, SQ, 0),
    row("np.linalg.matrix_power", I.matrix_power, SQ, -2),
    row("np.linalg.matrix_power", I.matrix_power, MI[:, :3], 2),
    row("np.linalg.matrix_power", I.matrix_power, M, 2),
    row("np.linalg.matrix_power", I.matrix_power, V, 2),
    row("np.linalg.multi_dot", I.multi_dot, [SQ, SQ, SQ]),
    row("np.linalg.multi_dot", I.multi_dot, [V[:3], SQ, SQ]),
    row("np.linalg.multi_dot", I.multi_dot, [S3, S3.transpose(0, 2, 1)]),
    row("np.linalg.multi_dot", I.multi_dot, [SQ]),
    row("np.linalg.multi_dot", I.multi_dot, [SQ, V[:3], SQ]),
    row("np.linalg.outer", I.linalg_outer, V, V[:3]),
    row("np.linalg.outer", I.linalg_outer, MI[0], V),
    row("np.linalg.outer", I.linalg_outer, M, V), row("np.linalg.outer", I.linalg_outer, V, 2.0),
    row("np.linalg.trace", I.linalg_trace, SQ),
    row("np.linalg.trace", I.linalg_trace, S3, offset=1),
    row("np.linalg.trace", I.linalg_trace, MI), row("np.linalg.trace", I.linalg_trace, V),
    row("np.linalg.diagonal", I.linalg_diagonal, S3, offset=-1),
    row("np.linalg.diagonal", I.linalg_diagonal, V),
    row("np.matvec", I.matvec, SQ, V[:3]), row("np.matvec", I.matvec, S3[:, :3], SQ),
    row("np.matvec", I.matvec, SQ, V), row("np.matvec", I.matvec, V, V),
    row("np.vecmat", I.vecmat, V[:3], SQ), row("np.vecmat", I.vecmat, MC[0, :3], SQ),
    row("np.vecmat", I.vecmat, V, SQ), row("np.vecmat", I.vecmat, V, V),
    row("np.linalg.svd", I.svd_values, M, compute_uv=False),
    row("np.linalg.svd", I.svd_values, S3, compute_uv=False),
    row("np.linalg.svd", I.svd_values, V, compute_uv=False),
    row("np.linalg.qr", I.qr_r, M, "r"), row("np.linalg.qr", I.qr_r, M.T, "r"),
    row("np.linalg.qr", I.qr_r, V, "r"),
    # windows, areas, differences, padding
    row("np.lib.stride_tricks.sliding_window_view", I.sliding_window_view, V, 3),
    row("np.lib.stride_tricks.sliding_window_view", I.sliding_window_view, M, 2, 1),
    row("np.lib.stride_tricks.sliding_window_view", I.sliding_window_view, M, 2, -2),
    row("np.lib.stride_tricks.sliding_window_view", I.sliding_window_view, V, 9),
    row("np.lib.stride_tricks.sliding_window_view", I.sliding_window_view, M, 2, 2),
    row("np.trapezoid", I.trapezoid, M), row("np.trapezoid", I.trapezoid, M, axis=0),
    row("np.trapezoid", I.trapezoid, M, V), row("np.trapezoid", I.trapezoid, M, M),
    row("np.trapezoid", I.trapezoid, M, dx=0.5), row("np.trapezoid", I.trapezoid, MI),
    row("np.trapezoid", I.trapezoid, M32), row("np.trapezoid", I.trapezoid, M, axis=2),
    row("np.diff", I.diff, M, prepend=0.0), row("np.diff", I.diff, M, append=1.0, axis=0),
    row("np.diff", I.diff, MI, prepend=0.5), row("np.diff", I.diff, M, prepend=M[:, :2], n=2),
    row("np.diff", I.diff, M32, prepend=0.0), row("np.diff", I.diff, M, prepend=0.0, axis=2),
    row("np.pad", I.pad_computed, V, 2, "mean"), row("np.pad", I.pad_computed, M, 1, "maximum"),
    row("np.pad", I.pad_computed, M, ((1, 2), (0, 1)), "minimum"),
    row("np.pad", I.pad_computed, M, 2, "median"),
    row("np.pad", I.pad_computed, M, 2, "linear_ramp"),
    row("np.pad", I.pad_computed, MI, 2, "mean"),
    row("np.pad", I.pad_computed, MI, 1, "linear_ramp"),
    row("np.pad", I.pad_computed, M32, 2, "mean"), row("np.pad", I.pad_computed, E0, 2, "mean"),
    row("np.pad", I.pad_computed, V, -1, "mean"),
    # methods of ufuncs
    row("np.add.reduce", I.add_reduce, M), row("np.add.reduce", I.add_reduce, MI, 1),
    row("np.add.reduce", I.add_reduce, MB), row("np.add.reduce", I.add_reduce, M, 2),
    row("np.multiply.reduce", I.multiply_reduce, M, 1),
    row("np.multiply.reduce", I.multiply_reduce, MI),
    row("np.maximum.reduce", I.maximum_reduce, M), row("np.maximum.reduce", I.maximum_reduce, E0),
    row("np.minimum.reduce", I.minimum_reduce, M, -1),
    row("np.minimum.reduce", I.minimum_reduce, MI),
    row("np.logaddexp.reduce", I.logaddexp_reduce, M),
    row("np.logaddexp.reduce", I.logaddexp_reduce, M, 1),
    row("np.logaddexp.reduce", I.logaddexp_reduce, M32),
    row("np.logaddexp.reduce", I.logaddexp_reduce, M, 2),
    row("np.add.accumulate", I.add_accumulate, M),
    row("np.add.accumulate", I.add_accumulate, MI, 1),
    row("np.add.accumulate", I.add_accumulate, M, 2),
    row("np.add.accumulate", I.add_accumulate, np.float64(1.5)),
    row("np.multiply.accumulate", I.multiply_accumulate, M, 1),
    row("np.multiply.accumulate", I.multiply_accumulate, np.float64(1.5)),
    row("np.maximum.accumulate", I.maximum_accumulate, M),
    row("np.maximum.accumulate", I.maximum_accumulate, MI, 1),
    row("np.maximum.accumulate", I.maximum_accumulate, np.float64(1.5)),
    row("np.minimum.accumulate", I.minimum_accumulate, M, -1),
    row("np.minimum.accumulate", I.minimum_accumulate, np.float64(1.5)),
    row("np.subtract.outer", functools.partial(I.outer, np.subtract), V, M),
    row("np.maximum.outer", functools.partial(I.outer, np.maximum), MI, V),
    # Python's own: math, functools, itertools, operator
    row("math.hypot", I.hypot, 1.0, 2.0, 3.0), row("math.hypot", I.hypot),
    row("math.dist", I.dist, [1.0, 2.0], [3.0, 5.0]), row("math.dist", I.dist, [1.0], [1.0, 2.0]),
    row("math.fsum", I.fsum, [0.1] * 10), row("math.fsum", I.fsum, []),
    row("math.prod", I.prod, [1.5, 2.0]), row("math.prod", I.prod, [], start=3),
    row("functools.reduce", I.reduce, operator.mul, [1.5, 2.0]),
    row("functools.reduce", I.reduce, operator.add, []),
    row("functools.reduce", I.reduce, operator.add, [], 2.0),
    row("itertools.accumulate", I.accumulate, [1.0, 2.0, 4.0]),
    row("itertools.accumulate", I.accumulate, [1.0, 2.0], max, initial=1.5),
    row("itertools.chain", I.chain, [1.0], (2.0, 3.0)),
    row("itertools.product", I.product, [1.0, 2.0], repeat=2),
    row("itertools.pairwise", I.pairwise, [1.0, 2.0, 3.0]),
    row("operator.add", I.operator_add, [1.0], [2.0]),
    row("operator.add", I.operator_add, V, M[:, :4]),
    row("operator.sub", I.operator_sub, 1.0, 2.5), row("operator.mul", I.operator_mul, V, M),
    row("operator.truediv", I.operator_truediv, 1.0, 0.0),
    row("operator.truediv", I.operator_truediv, V, M),
    row("operator.pow", I.operator_pow, -8.0, 1.0 / 3.0),
    row("operator.pow", I.operator_pow, 2.0, 3.0),
    row("operator.neg", I.operator_neg, V),
]

# a definition that stands in for a function with its own tests elsewhere
ELSEWHERE = {"solve_ivp": "tests/test_cupy_scipy.py and tests/test_issue34_s26.py"}


def _definitions():
    """Every definition the module writes calls with: from its tables, not from a list."""
    found = set(I.table().values()) | set(I.COMPLEX_TWINS.values())
    found |= {d for *_, d in I.by_keyword()} | {d for *_, d in I.by_value()}
    found |= {d for *_, d in I.by_arity()}
    for u in I._UFUNCS:
        for method in ("reduce", "accumulate", "outer"):
            if I.ufunc_method(u, method) is not None:
                found.add(I.ufunc_method(u, method))
    return {d for d in found if d.__name__ not in ELSEWHERE}


def _definition_of(definition):
    return definition.func if isinstance(definition, functools.partial) else definition


def test_every_definition_has_rows():
    covered = {_definition_of(p.values[1]) for p in ROWS}
    missing = sorted(d.__name__ for d in _definitions() - covered)
    assert not missing, f"definitions without a row in ROWS: {missing}"


def _numpy(spelled):
    namespace = {"np": np, "math": math, "functools": functools, "itertools": itertools,
                 "operator": operator}
    return eval(spelled, namespace)


def _run(func, args, kwargs):
    """``(value, None)`` or ``(None, exception)``, NumPy's warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            value = func(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 (NumPy's own type is compared)
            return None, error
    if not isinstance(value, (np.ndarray, np.generic, list, tuple, int, float, complex)):
        value = list(value)  # (itertools' iterators: the definitions give lists)
    return value, None


def _assert_same(got, want):
    if isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want, strict=True):
            _assert_same(g, w)
        return
    if isinstance(want, (int, float, complex)) and not isinstance(want, np.generic):
        assert type(got) is type(want)
    g, w = np.asarray(got), np.asarray(want)
    assert (g.dtype, g.shape) == (w.dtype, w.shape)
    if w.dtype.kind in "fc":
        np.testing.assert_allclose(g, w, rtol=1e-5 if w.dtype.itemsize <= 8 else 1e-12,
                                   atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("spelled, definition, args, kwargs", ROWS)
def test_definition_matches_numpy(spelled, definition, args, kwargs):
    """The definition, called as NumPy's function is: NumPy's value, dtype and shape, or
    NumPy's exception type."""
    want, numpy_error = _run(_numpy(spelled), args, kwargs)
    got, error = _run(definition, args, kwargs)
    if numpy_error is not None:
        assert isinstance(error, type(numpy_error)), (
            f"NumPy raises {type(numpy_error).__name__}: {numpy_error}; s2sad's definition "
            f"{'returns a value' if error is None else f'raises {error!r}'}")
    else:
        assert error is None, f"NumPy gives a value; s2sad's definition raises {error!r}"
        _assert_same(got, want)


# --- the same rows through the generated code --------------------------------------------


def _is_literal(value):
    if isinstance(value, tuple):
        return all(_is_literal(v) for v in value)
    return isinstance(value, (int, float, str, type(None))) and not isinstance(value, np.generic)


def _parameters(args, kwargs):
    """The values passed as parameters: those a literal cannot spell (arrays, lists)."""
    return [v for v in list(args) + list(kwargs.values()) if not _is_literal(v)]


def _wrt(args):
    """The first float64 array argument (the one differentiated), or None."""
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray) and a.dtype == np.float64:
            return i
    return None


def _source(rows):
    """A module with one function per row: ``np.sum(np.real(call) * cot)``."""
    lines = ["import functools, itertools, math, operator", "import numpy as np", ""]
    for i, (spelled, _, args, kwargs) in enumerate(rows):
        params = [f"a{j}" for j, value in enumerate(args) if not _is_literal(value)]
        call = [f"a{j}" if not _is_literal(value) else repr(value)
                for j, value in enumerate(args)]
        for key, value in kwargs.items():
            if _is_literal(value):
                call.append(f"{key}={value!r}")
            else:
                params.append(f"k_{key}")
                call.append(f"{key}=k_{key}")
        lines += [f"def row_{i}({', '.join(params + ['cot'])}):",
                  f"    return np.sum(np.real({spelled}({', '.join(call)})) * cot)", ""]
    return "\n".join(lines)


THROUGH_S2SAD = [p for p in ROWS if _wrt(_parameters(*p.values[2:])) is not None and
                 not p.values[0].startswith(("operator.", "math.", "functools.", "itertools."))]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("implementations_s37")
    (folder / "rows_s37.py").write_text(_source([p.values for p in THROUGH_S2SAD]))
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("rows_s37")
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("rows_s37", None)


def _central(f, args, wrt, eps=1e-6):
    x = np.asarray(args[wrt], dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        hi = f(*args[:wrt], up, *args[wrt + 1:])
        lo = f(*args[:wrt], down, *args[wrt + 1:])
        out[i] = (hi - lo) / (2 * eps)
    return out


@pytest.mark.parametrize("index", range(len(THROUGH_S2SAD)),
                         ids=[p.id for p in THROUGH_S2SAD])
def test_generated_code_matches_numpy_and_central_differences(generated, index):
    """Through ``s2sad.value_and_grad``: NumPy's exception type where NumPy raises; else
    NumPy's value, and the gradient of ``sum(call * cot)`` against central differences."""
    spelled, _, args, kwargs = THROUGH_S2SAD[index].values
    f = getattr(generated, f"row_{index}")
    call_args = _parameters(args, kwargs)
    wrt = _wrt(call_args)
    want, numpy_error = _run(_numpy(spelled), args, kwargs)
    cot = 1.0 if numpy_error else RNG.normal(size=np.shape(want))
    got, error = _run(s2sad.value_and_grad(f, wrt=wrt), call_args + [cot], {})
    if numpy_error is not None:
        assert isinstance(error, type(numpy_error)), (
            f"NumPy raises {type(numpy_error).__name__}: {numpy_error}; s2sad "
            f"{'returns a gradient' if error is None else f'raises {error!r}'}")
        return
    assert error is None, f"NumPy gives a value; s2sad raises {error!r}"
    value, gradient = got
    np.testing.assert_allclose(value, np.sum(np.real(want) * cot), rtol=1e-5)
    if any(isinstance(a, np.ndarray) and a.dtype != np.float64 and a.dtype.kind in "fc"
           for a in call_args):
        return  # (float32 or complex parts: central differences in float64 do not apply)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = _central(f, call_args + [cot], wrt)
    np.testing.assert_allclose(gradient, expected, rtol=1e-5, atol=1e-6)


# --- the CuPy target's stand-ins (s2sad/runtime/cupy_compat.py), on NumPy arrays ------------
# (each computes with its arguments' array module: on NumPy arrays, NumPy's own answer)

SPD = SQ @ SQ.T + np.eye(3)


def cupy_row(module, name, *args, **kwargs):
    text = ", ".join(_describe(a) for a in args)
    text += "".join(f", {k}={_describe(v)}" for k, v in kwargs.items())
    return pytest.param(module, name, args, kwargs, id=f"{module}.{name}({text})")


CUPY_ROWS = [
    cupy_row("numpy.linalg", "vector_norm", M, axis=1),
    cupy_row("numpy.linalg", "vector_norm", S3, axis=(0, 2), ord=1, keepdims=True),
    cupy_row("numpy.linalg", "vector_norm", MI), cupy_row("numpy.linalg", "vector_norm", MC),
    cupy_row("numpy.linalg", "vector_norm", M, axis=2),
    cupy_row("numpy.linalg", "matrix_norm", S3, ord="nuc"),
    cupy_row("numpy.linalg", "matrix_norm", M32, ord=1), cupy_row("numpy.linalg", "matrix_norm", V),
    cupy_row("numpy", "vecdot", M, V), cupy_row("numpy", "vecdot", MC, M),
    cupy_row("numpy", "vecdot", M, M, axis=0), cupy_row("numpy", "vecdot", MI, MI),
    cupy_row("numpy", "vecdot", MB, MB), cupy_row("numpy", "vecdot", M, M, axis=2),
    cupy_row("numpy", "vecdot", M, M[:, :1]),
    cupy_row("numpy.linalg", "vecdot", S3, S3[0], axis=1),
    cupy_row("numpy.linalg", "vecdot", M, M, axis=-3),
    cupy_row("numpy.linalg", "svdvals", S3), cupy_row("numpy.linalg", "svdvals", V),
    cupy_row("numpy", "choose", np.array([0, 1, 0]), [np.zeros(3), 5.0]),
    cupy_row("numpy", "choose", np.array([0, 3]), [V[:2], V[1:3]]),
    cupy_row("numpy", "choose", np.array([0, 3]), [V[:2], V[1:3]], mode="wrap"),
    cupy_row("scipy.special", "polygamma", 1, V), cupy_row("scipy.special", "polygamma", 0, M32),
    cupy_row("numpy", "clip", V, min=0.0), cupy_row("numpy", "clip", MI, max=1.5),
    cupy_row("numpy", "clip", M32, 0.0, None),
    cupy_row("numpy", "take", V, [6, -1], mode="wrap"),
    cupy_row("numpy", "take", V, [6, -1], mode="clip"), cupy_row("numpy", "take", V, [6]),
    cupy_row("numpy", "take", M, [9], 1, mode="clip"),
    cupy_row("numpy", "take", V, [1], mode="bogus"), cupy_row("numpy", "take", M, 1, 2, mode="wrap"),
    cupy_row("numpy", "sum", M, initial=0.5), cupy_row("numpy", "sum", MI, initial=2, axis=1),
    cupy_row("numpy", "sum", M32, initial=1.0, keepdims=True),
    cupy_row("numpy", "sum", M, initial=1.0, axis=2),
    cupy_row("numpy", "var", M, correction=1), cupy_row("numpy", "var", M, correction=1, ddof=1),
    cupy_row("numpy", "var", MI, correction=1, axis=0),
    cupy_row("numpy", "std", M32, correction=2, axis=1),
    cupy_row("numpy.linalg", "cholesky", SPD, upper=True),
    cupy_row("numpy.linalg", "cholesky", SPD + 0.5j * (SQ - SQ.T), upper=True),
    cupy_row("numpy.linalg", "cholesky", -SPD, upper=True),
    cupy_row("numpy", "array", [np.float64(2.0), V[0]]), cupy_row("numpy", "array", [V, V], ndmin=3),
    cupy_row("numpy", "array", [V, V[:2]]),
    cupy_row("numpy", "stack", [1.0, np.float64(2.0)]), cupy_row("numpy", "stack", [V, V], axis=1),
    cupy_row("numpy", "stack", [V, V[:2]]), cupy_row("numpy", "stack", [V, V], axis=3),
    cupy_row("numpy", "concatenate", [[0.5], V]), cupy_row("numpy", "concatenate", [M, V]),
    cupy_row("numpy", "concatenate", [M, M], axis=None),
]


def test_every_cupy_stand_in_has_rows():
    from s2sad.backends import CUPY
    covered = {(p.values[0], p.values[1]) for p in CUPY_ROWS}
    missing = sorted(set(dict(CUPY.all_stand_ins())) - covered)
    assert not missing, f"CuPy stand-ins without a row in CUPY_ROWS: {missing}"


@pytest.mark.parametrize("module, name, args, kwargs", CUPY_ROWS)
def test_cupy_stand_in_matches_numpy(module, name, args, kwargs):
    from s2sad.backends import CUPY
    from s2sad.runtime import cupy_compat
    stand_in = getattr(cupy_compat, dict(CUPY.all_stand_ins())[(module, name)])
    want, numpy_error = _run(getattr(importlib.import_module(module), name), args, kwargs)
    got, error = _run(stand_in, args, kwargs)
    if numpy_error is not None:
        assert isinstance(error, type(numpy_error)), (
            f"NumPy raises {type(numpy_error).__name__}: {numpy_error}; the stand-in "
            f"{'returns a value' if error is None else f'raises {error!r}'}")
    else:
        assert error is None, f"NumPy gives a value; the stand-in raises {error!r}"
        _assert_same(got, want)


# --- the Dask target's stand-ins (s2sad/runtime/dask_compat.py): one found by this sweep -----


def test_dask_matrix_transpose_of_a_vector_raises_as_numpy():
    """Dask's ``swapaxes(x, -1, -2)`` of a 1-d array gave an array; NumPy raises."""
    da = pytest.importorskip("dask.array")
    from s2sad.runtime import dask_compat
    with pytest.raises(ValueError, match="at least 2-dimensional"):
        np.matrix_transpose(V)
    with pytest.raises(ValueError, match="at least 2-dimensional"):
        dask_compat.matrix_transpose(da.from_array(V, chunks=2))
    got = dask_compat.matrix_transpose(da.from_array(S3, chunks=2)).compute()
    np.testing.assert_array_equal(got, np.matrix_transpose(S3))
