"""Sweep the rule and operation tables on the Dask target (session 34).

Run: ``PYTHONPATH=$PWD python -m tests.dask_sweep_s34 [rules|ops] [--one] [--only ID...]``.

Each case's gradient is made with the NumPy target on NumPy arrays, then with
``target="dask"`` on the same arrays as Dask arrays (chunks of 2 along each axis), and
the two are compared to rounding. Each case gets one class:

* ``match``: the same gradient (computed);
* ``refused``: an ``s2sad`` error naming the user's file and line;
* ``unlocated``: an ``s2sad`` error without the user's line;
* ``crash``: any other exception (inside s2sad or the generated code);
* ``WRONG``: a gradient that differs from NumPy's;
* ``n/a``: the NumPy target refuses it, or no argument is an array.
"""

from __future__ import annotations

import sys
import traceback
import warnings

import numpy as np

import s2sad
from s2sad.errors import S2sadError

da = None
FLOAT32 = False  # (the case computes in float32)
ONE_CHUNK = False  # (--one: each array one chunk)


def _dask(x):
    if isinstance(x, np.ndarray) and x.dtype.kind in "fciub" and x.ndim:
        return da.from_array(x, chunks=-1 if ONE_CHUNK else
                             tuple(min(2, n) or 1 for n in x.shape))
    if isinstance(x, list):
        return [_dask(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_dask(v) for v in x)
    return x


def _has_array(x):
    if isinstance(x, np.ndarray) and x.ndim:
        return True
    return isinstance(x, (list, tuple)) and any(map(_has_array, x))


def _computed(g):
    if hasattr(g, "compute") and hasattr(g, "dask"):
        return g.compute()
    if isinstance(g, (list, tuple)):
        return type(g)(_computed(v) for v in g)
    if isinstance(g, dict):
        return {k: _computed(v) for k, v in g.items()}
    return g


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and \
            len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if FLOAT32:  # (a float32 step: Dask sums chunk by chunk, in another order)
        return bool(np.allclose(a, b, rtol=1e-6, atol=1e-6, equal_nan=True))
    try:
        return bool(np.allclose(a, b, rtol=1e-7, atol=1e-9, equal_nan=True))
    except TypeError:
        return bool(np.all(a == b))


def _where(exc) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    inner = [f for f in frames if "/s2sad/" in f.filename or f.filename.startswith("<")]
    place = inner[-1] if inner else last
    return f"{place.filename.rsplit('/', 2)[-1]}:{place.lineno}" if place else "?"


def classify(f, args, wrt, path, compare_value=False):
    """(class, detail)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = s2sad.grad(f, wrt=wrt)(*[_copy(a) for a in args])
    except Exception as exc:  # noqa: BLE001
        return "n/a", f"numpy: {type(exc).__name__}"
    if not _has_array(args):
        return "n/a", "no array"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = _computed(s2sad.grad(f, wrt=wrt, target="dask")(*_dask(args)))
    except S2sadError as exc:
        line = getattr(exc, "lineno", None)
        places = [getattr(exc, "filename", None)] + \
            [c[0] for c in getattr(exc, "calls", ()) or ()]
        first = str(exc).split("\n")[0][:150]
        if line and path in places:
            return "refused", first
        return "unlocated", f"{type(exc).__name__}: {first}"
    except Exception as exc:  # noqa: BLE001
        return "crash", f"{type(exc).__name__}: {str(exc)[:150]} @ {_where(exc)}"
    if not _same(got, want):
        return "WRONG", f"dask {got!r:.200} numpy {want!r:.200}"
    return "match", ""


def _copy(x):
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (list, tuple)):
        return type(x)(_copy(v) for v in x)
    return x


def rule_cases():
    sys.path.insert(0, "tests")
    import test_numpy_rules as R
    for row in R.CASES:
        for param in row:
            f, args, wrt, optimize = param.values
            if optimize:
                yield param.id[:-4], f, args, wrt, f.__code__.co_filename


def op_cases():
    from tests import cases_operations as C
    from tests.test_operation_table import load
    for op in C.OPS:
        x = C.ARGS[op.arg]
        if not isinstance(x, np.ndarray):
            continue
        module = load(op)
        yield op.id, module.f, (x,), 0, module.__file__


def main(argv):
    global da, ONE_CHUNK, FLOAT32
    ONE_CHUNK = "--one" in argv
    import dask
    import dask.array
    da = dask.array
    dask.config.set(scheduler="synchronous")
    tables = [a for a in argv if a in ("rules", "ops")] or ["rules", "ops"]
    only = set(argv[argv.index("--only") + 1:]) if "--only" in argv else None
    counts = {}
    for table in tables:
        for id_, f, args, wrt, path in (rule_cases() if table == "rules" else op_cases()):
            if only and id_ not in only:
                continue
            FLOAT32 = "float32" in open(path).read() if table == "ops" else \
                any(getattr(a, "dtype", None) == np.float32 for a in args)
            kind, detail = classify(f, args, wrt, path)
            counts[(table, kind)] = counts.get((table, kind), 0) + 1
            if kind not in ("match", "n/a") or only:
                print(f"{table}\t{kind}\t{id_}\t{detail}", flush=True)
    for key in sorted(counts):
        print("COUNT", *key, counts[key])


if __name__ == "__main__":
    main(sys.argv[1:])
