"""s2sad build time of generated straight-line functions of N statements.

Each function is written to a temporary .py file and imported (gen.py); the
time is s2sad.grad on a fresh function object up to its first result, the
median of a few builds (200 statements is there to measure the growth
when 1,000 is too slow). Python's own compile() of the same source is shown for
scale. Growth is "roughly linear" when time grows by at most (N2/N1)^1.2
from the smallest to the largest size (the exponents between consecutive sizes
are reported too). A build that runs past the time limit is stopped
(SIGALRM) and reported as such; larger sizes are then not tried.
"""

from __future__ import annotations

import math
import statistics
import time

from .gen import chain_source, import_source
from .peers import fresh_copy
from .timing import TimeLimit, time_limit

SIZES = (100, 200, 1_000, 5_000)
QUICK_SIZES = (10, 20, 40)
MAX_EXPONENT = 1.2


def _timed_build(func, limit_s: float, clock):
    """Seconds to build and run the gradient of a fresh copy; None past ``limit_s``
    (wall clock)."""
    import s2sad
    fresh = fresh_copy(func)
    t0 = clock()
    try:
        with time_limit(limit_s):
            gradient = s2sad.grad(fresh, wrt=(0, 1))(0.3, 0.7)
    except TimeLimit:
        return None, None
    return clock() - t0, gradient


def build_scaling(quick: bool, builds: int, limit_s: float, clock=time.perf_counter) -> dict:
    rows = []
    stopped = None
    for n in (QUICK_SIZES if quick else SIZES):
        text = chain_source(n)
        t0 = time.perf_counter()
        compile(text, "chain.py", "exec")
        row = {"n": n, "python_compile_s": time.perf_counter() - t0}
        rows.append(row)
        if stopped is not None:
            row["skipped"] = f"not run: {stopped:,} statements took over {limit_s:g} s"
            continue
        func = import_source(f"chain_{n}", text).chain
        times = []
        gradient = None
        for _ in range(builds):
            elapsed, gradient = _timed_build(func, limit_s, clock)
            if elapsed is None:
                break
            times.append(elapsed)
            if sum(times) > 10.0:   # fewer builds for the slow sizes
                break
        if not times:
            row["timeout_s"] = limit_s
            stopped = n
            continue
        row["build_s"] = statistics.median(times)
        row["finite"] = all(math.isfinite(g) for g in gradient)
    exponents = []
    timed = [r for r in rows if "build_s" in r]
    for a, b in zip(timed, timed[1:]):
        b["exponent"] = math.log(b["build_s"] / a["build_s"]) / math.log(b["n"] / a["n"])
        exponents.append(b["exponent"])
    if stopped is not None and timed:   # a lower bound on the growth to the size that timed out
        last = timed[-1]
        bound = math.log(limit_s / last["build_s"]) / math.log(stopped / last["n"])
        next(r for r in rows if r["n"] == stopped)["exponent_at_least"] = bound
        exponents.append(bound)
    overall = None
    if len(timed) >= 2:   # the verdict: growth from the smallest to the largest size timed
        first, last = timed[0], timed[-1]
        overall = math.log(last["build_s"] / first["build_s"]) / math.log(last["n"] / first["n"])
    return {"rows": rows, "exponents": exponents, "limit_s": limit_s, "overall": overall,
            "linear": overall is not None and overall <= MAX_EXPONENT and stopped is None}
