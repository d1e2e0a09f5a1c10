"""s2sad's build time per workload, and where it goes pass by pass.

``python -m benchmarks.build_times [--only f4,GMM] [--builds 7] [--passes] [--calls]
[--bytecodes]``

A workload's build is its first call through ``s2sad.grad`` on a fresh function object,
less the fastest of three later calls (as ``benchmarks.run`` reports it): the median and
the fastest of ``--builds`` builds, in process time, BLAS on one thread. ``--passes``: each
pass's own time in one build, each analysis's (``kinds*``, computed when a pass first
needs it) and the rest. ``--calls``: the Python function calls of one build, a count that
a busy machine does not change. ``--bytecodes``: the bytecode instructions Python runs for
one build, also the same on a busy machine, and weighted by the work in each function
(a loop over a tree's nodes counts per node, not once). ``chain_100`` is 100 straight-line
statements (gen.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import defaultdict

for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")  # (process time then counts one thread's work)

import numpy as np  # noqa: E402

from .gen import chain_source, import_source  # noqa: E402
from .peers import fresh_copy, wrt_arg  # noqa: E402
from .workloads import all_workloads  # noqa: E402

TARGET_S = 0.050


def cases(quick: bool = False) -> list:
    """``(name, function, args, wrt)`` for each workload and the 100-statement chain."""
    rng = np.random.default_rng(0)
    out = [(w.name, w.s2sad_f or w.f, w.make_args(rng, quick), w.wrt)
           for w in all_workloads(quick)]
    chain = import_source("chain_100", chain_source(100)).chain
    out.append(("chain_100", chain, (0.3, 0.7), (0, 1)))
    return out


def build_s(func, args, wrt, clock=time.process_time) -> float:
    """Seconds of one build of ``func``'s gradient (first call less a steady call)."""
    import s2sad
    gradient = s2sad.grad(fresh_copy(func), wrt=wrt_arg(wrt))
    t0 = clock()
    gradient(*args)
    first = clock() - t0
    steady = []
    for _ in range(3):
        t0 = clock()
        gradient(*args)
        steady.append(clock() - t0)
    return max(first - min(steady), 0.0)


def build_calls(func, args, wrt) -> int:
    """The Python function calls of one build (those of a first call less a later one's)."""
    import cProfile
    import pstats

    import s2sad
    counts = []
    for _ in range(2):
        gradient = s2sad.grad(fresh_copy(func), wrt=wrt_arg(wrt))
        profile = cProfile.Profile()
        for _ in range(2):
            profile.enable()
            gradient(*args)
            profile.disable()
            counts.append(pstats.Stats(profile).total_calls)
    first, second = counts[2], counts[3] - counts[2]  # (the second build: imports are done)
    return first - second


def build_bytecodes(func, args, wrt) -> int:
    """The bytecode instructions Python runs for one build (those of a first call less a
    later one's), traced (``f_trace_opcodes``): run with ``PYTHONHASHSEED`` fixed for the
    same count each time."""
    import sys

    import s2sad
    count = [0]

    def traced(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            count[0] += 1
        return traced
    counts = []
    for _ in range(2):  # (the second build: imports are done)
        gradient = s2sad.grad(fresh_copy(func), wrt=wrt_arg(wrt))
        for _ in range(2):
            count[0] = 0
            sys.settrace(traced)
            try:
                gradient(*args)
            finally:
                sys.settrace(None)
            counts.append(count[0])
    return counts[2] - counts[3]


def pass_times(func, args, wrt) -> dict:
    """Seconds of each pass in one build, of each analysis (``kinds*``: computed when a
    pass first needs it), and ``(outside passes)``: the rest of it."""
    import s2sad
    from s2sad import pass_manager
    spent: dict = defaultdict(float)
    running: list = []  # [name, start, time of what ran inside it]

    def timer(name, run):
        def timed(*a, **k):
            running.append([name, time.process_time(), 0.0])
            try:
                return run(*a, **k)
            finally:
                name_, t0, inner = running.pop()
                took = time.process_time() - t0
                spent[name_] += took - inner
                if running:
                    running[-1][2] += took
        return timed

    step = pass_manager.PassManager._step
    analyses = {a for s in _steps() for a in _needs(s.pass_.needs)}
    computes = {a: a.compute for a in analyses}
    pass_manager.PassManager._step = lambda m, b, s: timer(s.pass_.name, step)(m, b, s)
    for a in analyses:
        a.compute = timer(a.name + "*", a.compute)
    try:
        gradient = s2sad.grad(fresh_copy(func), wrt=wrt_arg(wrt))
        t0 = time.process_time()
        gradient(*args)
        total = time.process_time() - t0
        t0 = time.process_time()
        gradient(*args)
        total -= time.process_time() - t0
    finally:
        pass_manager.PassManager._step = step
        for a, compute in computes.items():
            a.compute = compute
    spent["(outside passes)"] = total - sum(spent.values())
    return dict(spent)


def _steps() -> list:
    from s2sad.pass_manager import FixedPoint
    from s2sad.pipeline import PIPELINE
    return [s for step in PIPELINE
            for s in (step.steps if isinstance(step, FixedPoint) else (step,))]


def _needs(needs) -> set:
    return {a for n in needs for a in {n} | _needs(n.needs)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated substrings of names")
    parser.add_argument("--builds", type=int, default=7, help="builds per workload")
    parser.add_argument("--passes", action="store_true", help="each pass's time too")
    parser.add_argument("--calls", action="store_true", help="Python calls of one build")
    parser.add_argument("--bytecodes", action="store_true",
                        help="bytecode instructions of one build")
    options = parser.parse_args(argv)
    wanted = [w for w in options.only.split(",") if w]
    rows = [c for c in cases() if not wanted or any(w.lower() in c[0].lower() for w in wanted)]
    for name, func, args, wrt in rows:
        build_s(func, args, wrt)  # (the first build imports what s2sad loads lazily)
    print(f"{'workload':<26} {'build (median)':>14} {'min':>9}  < 50 ms")
    for name, func, args, wrt in rows:
        times = [build_s(func, args, wrt) for _ in range(options.builds)]
        median = statistics.median(times)
        print(f"{name:<26} {median * 1e3:11.1f} ms {min(times) * 1e3:6.1f} ms  "
              f"{'yes' if median < TARGET_S else 'NO'}")
    if options.calls:
        print()
        for name, func, args, wrt in rows:
            print(f"{name:<26} {build_calls(func, args, wrt):>10,} calls")
    if options.bytecodes:
        print()
        for name, func, args, wrt in rows:
            print(f"{name:<26} {build_bytecodes(func, args, wrt):>12,} bytecodes")
    if options.passes:
        for name, func, args, wrt in rows:
            spent = pass_times(func, args, wrt)
            top = sorted(spent.items(), key=lambda kv: -kv[1])[:20]
            print(f"\n{name}: " + ", ".join(f"{p} {s * 1e3:.1f}" for p, s in top))


if __name__ == "__main__":
    main()
