"""Where a gradient call's time goes on the host: ``python -m benchmarks.gpu.overhead``.

On a GPU, a small workload (the MLP at batch 64) is bound by the host: each CuPy call
costs some microseconds of Python before its kernel is queued. This prints, for each GPU
workload, the generated CuPy gradient's length, the host time of one call measured
without synchronising (the time to queue the work), and the functions that take most
of it (``cProfile``, cumulative). PyTorch's queueing time is printed beside it, when
PyTorch with CUDA is installed. Needs CuPy and a GPU; importing this module needs neither.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time

import numpy as np


def queue_time(call, sync, repeat: int = 200) -> float:
    """Median seconds for ``call()`` to return (work queued, not finished)."""
    for _ in range(5):
        call()
    sync()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
        sync()
    return statistics.median(samples)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu.overhead",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated workload names")
    parser.add_argument("--top", type=int, default=18, help="profile lines per workload")
    parser.add_argument("--dtype", default="float64", choices=("float64", "float32"))
    args = parser.parse_args(argv)
    import s2sad
    from benchmarks.gpu.run import Unavailable, load_cupy, load_torch, torch_gradient
    from benchmarks.gpu.workloads import workloads
    try:
        cupy = load_cupy(False)
    except Unavailable as exc:
        print(f"benchmarks.gpu.overhead: {exc}", file=sys.stderr)
        return 2
    try:
        torch = load_torch()
    except Unavailable:
        torch = None
    sync = cupy.cuda.Device().synchronize
    for w in workloads():
        if args.only and w.name not in {n.strip() for n in args.only.split(",")}:
            continue
        host = tuple(a.astype(args.dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                     else a for a in w.make_args(np.random.default_rng(0)))
        device = tuple(cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in host)
        df = s2sad.grad(w.f, wrt=w.wrt)
        df(*device)
        sync()
        source = df.source_for(*device)
        ours = queue_time(lambda: df(*device), sync)
        line = f"== {w.name}: s2sad-cupy queues in {ours * 1e6:.0f} us"
        if torch is not None:
            tcall = torch_gradient(torch, w, host)
            line += f", torch-cuda in {queue_time(tcall, torch.cuda.synchronize) * 1e6:.0f} us"
        print(line)
        if source:
            print(f"   generated source: {len(source.splitlines())} lines")
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(50):
            df(*device)
        profile.disable()
        sync()
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(args.top)
        print("\n".join(l for l in text.getvalue().splitlines() if l.strip())[:6000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
