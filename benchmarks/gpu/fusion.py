"""Would fusing elementwise chains pay? ``python -m benchmarks.gpu.fusion`` measures it.

s2sad's CuPy code launches one kernel per elementwise operation (``cp.tanh(x)``,
``t * e``...), each reading and writing the whole array. A fused kernel reads ``x``
once. This times, on 10^7 float64s (``--n``), the gradient of ``workloads.elementwise``

* as s2sad generates it (``s2sad.grad``, CuPy target);
* written by hand as one ``cupy.fuse`` kernel (what a fusing code generator would
  emit at best);
* written by hand as one ``cupy.ElementwiseKernel``.

If the fused versions win by a wide margin on the GPU at hand, emitting ``cupy.fuse``
for runs of elementwise statements is worth its cost in readability (see the CuPy
target in docs/getting-started.md). Needs CuPy and a GPU; importing this module needs neither.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np


def fused_kernels(cupy):
    @cupy.fuse()
    def fused(x):
        t = cupy.tanh(x)
        x2 = x * x
        e = cupy.exp(-0.5 * x2)
        return e * (1.0 - t * t - t * x) + 2.0 * x / (1.0 + x2)

    kernel = cupy.ElementwiseKernel(
        "T x", "T g",
        "T t = tanh(x); T x2 = x * x; T e = exp(-0.5 * x2);"
        "g = e * (1.0 - t * t - t * x) + 2.0 * x / (1.0 + x2)",
        "s2sad_elementwise_grad")
    return fused, kernel


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu.fusion",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args(argv)
    from benchmarks.gpu.run import Unavailable, device_info, load_cupy, time_calls
    from benchmarks.gpu.workloads import elementwise
    import s2sad
    try:
        cupy = load_cupy(False)
    except Unavailable as exc:
        print(f"benchmarks.gpu.fusion: {exc}", file=sys.stderr)
        return 2
    x = cupy.asarray(np.random.default_rng(0).standard_normal(args.n))
    fused, kernel = fused_kernels(cupy)
    sync = cupy.cuda.Device().synchronize
    calls = {"s2sad-cupy": lambda: s2sad.grad(elementwise)(x),
             "cupy.fuse (hand)": lambda: fused(x),
             "ElementwiseKernel (hand)": lambda: kernel(x)}
    reference = cupy.asnumpy(calls["s2sad-cupy"]())
    results = {}
    for name, call in calls.items():
        timing = time_calls(call, sync, args.repeat, 5)
        same = np.allclose(cupy.asnumpy(timing.pop("result")), reference, rtol=1e-12)
        results[name] = dict(timing, agrees=bool(same))
        print(f"{name:26s} {timing['median_s'] * 1e3:9.3f} ms  "
              f"(first {timing['first_s'] * 1e3:.1f} ms){'' if same else '  DIFFERS'}")
    print(json.dumps({"info": device_info(cupy, None, False), "n": args.n,
                      "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
