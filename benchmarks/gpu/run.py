"""s2sad on CuPy against PyTorch autograd on the same GPU: ``python -m benchmarks.gpu.run``.

Workloads (``workloads.py``): a tanh MLP 784-128-10 with softmax cross-entropy at
batch 64 and at batch 8192, an elementwise chain over 10^7 float64s, a tanh RNN
unrolled by a ``for`` loop (T=50). For each, the gradient with respect to the
parameters by

* ``s2sad-cupy``: ``s2sad.grad(f)`` called on CuPy arrays (the CuPy target);
* ``torch-cuda``: ``torch.autograd.grad`` on CUDA tensors (same math, same dtype);
* ``s2sad-numpy``: ``s2sad.grad(f)`` on NumPy arrays, on the CPU, for reference.

Each gradient is checked against s2sad-numpy's in float64 (``np.allclose``; in float32,
to 1e-3 relative in norm). Timing:
the first call alone (s2sad: compile the gradient, and CuPy: compile its kernels;
PyTorch: its first-call setup), then warm-up calls, then ``--repeat`` calls, each
followed by a device synchronisation, timed one by one with ``time.perf_counter``;
the table gives the median (and the interquartile range in results.json).

Writes ``results.md`` and ``results.json`` (device, driver, CUDA, library versions,
every sample's statistics) to ``benchmarks/results/gpu/`` (``--out`` elsewhere).
Needs CuPy and a GPU (``pip install -e '.[cupy]'``); PyTorch with CUDA is optional
(its column says "n/a: why" without it). Importing this module needs neither.

``--quick`` runs tiny sizes; ``--emulate`` runs on the CPU emulation of CuPy of the
test suite (``tests/cupy_cases/fake_cupy.py``), a smoke test of this script whose
timings mean nothing.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PEERS = ("s2sad-cupy", "torch-cuda", "s2sad-numpy")
INSTALL = "pip install cupy-cuda12x  (or: pip install -e '.[cupy]')"


class Unavailable(Exception):
    """A peer or the whole benchmark cannot run here; the message says why."""


# --- the device -----------------------------------------------------------------------------


def load_cupy(emulate: bool):
    if emulate:
        sys.path.insert(0, os.path.join(ROOT, "tests", "cupy_cases"))
        import fake_cupy
        return fake_cupy.install()
    try:
        import cupy
    except ImportError as exc:
        raise Unavailable(f"CuPy cannot be imported ({exc}); install it: {INSTALL}") from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError: no driver or no device
        raise Unavailable(f"CuPy is installed but no CUDA device is usable: {exc}") from None
    if count < 1:
        raise Unavailable("CuPy is installed but no CUDA device is visible")
    return cupy


def load_torch():
    try:
        import torch
    except ImportError as exc:
        raise Unavailable(f"PyTorch is not installed ({exc})") from None
    if not torch.cuda.is_available():
        raise Unavailable("torch.cuda.is_available() is False (a CPU-only PyTorch build?)")
    return torch


def device_info(cupy, torch, emulate: bool) -> dict:
    info = {"python": platform.python_version(), "numpy": np.__version__,
            "cupy": getattr(cupy, "__version__", "?"), "platform": platform.platform(),
            "torch": getattr(torch, "__version__", None) if torch else None}
    if emulate:
        info["device"] = "CPU emulation of CuPy (tests/cupy_cases/fake_cupy.py): not a GPU"
        return info
    runtime = cupy.cuda.runtime
    device = cupy.cuda.Device()
    props = runtime.getDeviceProperties(device.id)
    name = props.get("name", b"?")
    info.update({
        "device": name.decode() if isinstance(name, bytes) else str(name),
        "device_id": device.id,
        "compute_capability": f"{props.get('major', '?')}.{props.get('minor', '?')}",
        "memory_gib": round(props.get("totalGlobalMem", 0) / 2 ** 30, 1),
        "cuda_runtime": runtime.runtimeGetVersion(),
        "cuda_driver": runtime.driverGetVersion(),
    })
    if torch is not None:
        info["torch_device"] = torch.cuda.get_device_name(0)
        info["torch_cuda"] = torch.version.cuda
    return info


# --- timing ---------------------------------------------------------------------------------


def time_calls(call, sync, repeat: int, warmup: int) -> dict:
    """Seconds of the first call, then of ``repeat`` calls after ``warmup`` more, each
    call followed by ``sync()`` (the device finishes its work before the clock stops)."""
    start = time.perf_counter()
    result = call()
    sync()
    first = time.perf_counter() - start
    for _ in range(warmup):
        call()
    sync()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        sync()
        samples.append(time.perf_counter() - start)
    q = statistics.quantiles(samples, n=4) if len(samples) > 1 else [samples[0]] * 3
    return {"first_s": first, "median_s": statistics.median(samples), "q1_s": q[0],
            "q3_s": q[2], "min_s": min(samples), "n": len(samples), "result": result}


# --- the peers ------------------------------------------------------------------------------


def s2sad_gradient(workload, args):
    import s2sad
    df = s2sad.grad(workload.f, wrt=workload.wrt)
    return lambda: df(*args)


def torch_gradient(torch, workload, host_args):
    f = workload.torch_f(torch)
    tensors = [torch.as_tensor(a, device="cuda") for a in host_args]
    for i in workload.wrt:
        tensors[i].requires_grad_(True)
    params = [tensors[i] for i in workload.wrt]

    def call():
        return torch.autograd.grad(f(*tensors), params)
    return call


def to_host(cupy, value):
    if isinstance(value, (tuple, list)):
        return [to_host(cupy, v) for v in value]
    if isinstance(value, cupy.ndarray):
        return cupy.asnumpy(value)
    if hasattr(value, "detach"):  # a torch tensor
        return value.detach().cpu().numpy()
    return np.asarray(value)


def agrees(got, reference, dtype) -> bool:
    """Does each gradient of ``got`` equal the float64 ``reference``? In float64, element by
    element; in float32, to 1e-3 relative in norm (an RNN's 50 steps add up float32's
    rounding element by element, but not in norm)."""
    if dtype == np.float32:
        return all(np.linalg.norm(np.asarray(g, np.float64) - r) <= 1e-3 * np.linalg.norm(r)
                   for g, r in zip(got, reference))
    return all(np.allclose(g, r, rtol=1e-7, atol=1e-9) for g, r in zip(got, reference))


def run_workload(workload, cupy, torch, torch_why, peers, args) -> dict:
    dtype = np.dtype(args.dtype)
    host = tuple(a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
                 for a in workload.make_args(np.random.default_rng(0)))
    row = {"name": workload.name, "title": workload.title, "peers": {}}
    # what every peer must give: s2sad on NumPy's gradient, in float64 (of the same data)
    host64 = tuple(a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                   else a for a in host)
    reference = None
    if "s2sad-numpy" not in peers or dtype != np.float64:
        reference = to_host(cupy, s2sad_gradient(workload, host64)())
    device_sync = cupy.cuda.Device().synchronize
    for peer in sorted(peers, key=lambda p: p != "s2sad-numpy"):  # the reference first
        try:
            if peer == "s2sad-numpy":
                call, sync = s2sad_gradient(workload, host), (lambda: None)
            elif peer == "s2sad-cupy":
                device = tuple(cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in host)
                call, sync = s2sad_gradient(workload, device), device_sync
            elif peer == "torch-cuda":
                if torch is None:
                    raise Unavailable(torch_why)
                call, sync = torch_gradient(torch, workload, host), torch.cuda.synchronize
            else:
                raise Unavailable(f"unknown peer {peer!r}")
            timing = time_calls(call, sync, args.repeat, args.warmup)
            result = to_host(cupy, timing.pop("result"))
            if reference is None:
                reference = result
            timing["agrees"] = agrees(result, reference, dtype)
            row["peers"][peer] = timing
        except Unavailable as exc:
            row["peers"][peer] = {"error": str(exc)}
        except Exception as exc:  # report it in the table, go on with the others
            row["peers"][peer] = {"error": f"{type(exc).__name__}: {exc}",
                                  "traceback": traceback.format_exc()}
    return row


# --- the report ---------------------------------------------------------------------------


def _ms(seconds) -> str:
    return f"{seconds * 1e3:.3f}" if seconds < 0.1 else f"{seconds * 1e3:.1f}"


def markdown(info: dict, rows: list, peers, args) -> str:
    lines = ["# s2sad on CuPy vs PyTorch autograd (GPU)", ""]
    if args.emulate:
        lines += ["**EMULATED: CuPy ran on the CPU emulation of the test suite. These numbers "
                  "only show that the script runs; they say nothing of GPU speed.**", ""]
    lines += [f"- device: {info.get('device')}"
              + (f" (compute capability {info['compute_capability']}, "
                 f"{info['memory_gib']} GiB)" if "compute_capability" in info else ""),
              f"- CUDA runtime {info.get('cuda_runtime', '?')}, driver "
              f"{info.get('cuda_driver', '?')}; CuPy {info.get('cupy')}, PyTorch "
              f"{info.get('torch') or 'not installed'}, NumPy {info.get('numpy')}, "
              f"Python {info.get('python')}",
              f"- dtype {args.dtype}; median of {args.repeat} calls after {args.warmup} "
              "warm-up calls, each call followed by a device synchronisation; "
              f"{datetime.datetime.now().isoformat(timespec='seconds')}",
              "", "Milliseconds per gradient call (first call in parentheses: s2sad compiles "
              "the gradient, CuPy its kernels). ✓: agrees with s2sad on NumPy.", ""]
    header = "| workload | " + " | ".join(peers) + " | torch / s2sad-cupy |"
    lines += [header, "|" + "---|" * (len(peers) + 2)]
    for row in rows:
        cells = []
        for peer in peers:
            r = row["peers"].get(peer, {})
            if "error" in r:
                cells.append(f"n/a: {r['error'].splitlines()[0][:80]}")
            else:
                mark = "✓" if r["agrees"] else "✗ DIFFERS"
                cells.append(f"{_ms(r['median_s'])} ({_ms(r['first_s'])}) {mark}")
        ours, theirs = row["peers"].get("s2sad-cupy", {}), row["peers"].get("torch-cuda", {})
        ratio = f"{theirs['median_s'] / ours['median_s']:.2f}" \
            if "median_s" in ours and "median_s" in theirs else "n/a"
        lines.append(f"| {row['name']} | " + " | ".join(cells) + f" | {ratio} |")
    lines += ["", "Workloads:", ""] + [f"- **{r['name']}**: {r['title']}" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu.run",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    parser.add_argument("--repeat", type=int, default=50, help="timed calls (default 50)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed calls (default 5)")
    parser.add_argument("--peers", default=",".join(PEERS),
                        help=f"comma-separated, of {', '.join(PEERS)}")
    parser.add_argument("--only", help="comma-separated workload names")
    parser.add_argument("--dtype", default="float64", choices=("float64", "float32"))
    parser.add_argument("--out", help="output folder (default benchmarks/results/gpu)")
    parser.add_argument("--emulate", action="store_true",
                        help="run on the CPU emulation of CuPy: checks the script, not speed")
    args = parser.parse_args(argv)
    sys.path.insert(0, ROOT)
    from benchmarks.gpu.workloads import workloads

    try:
        cupy = load_cupy(args.emulate)
    except Unavailable as exc:
        print(f"benchmarks.gpu: {exc}", file=sys.stderr)
        return 2
    try:
        torch, torch_why = (None, "--emulate: no GPU") if args.emulate else (load_torch(), None)
    except Unavailable as exc:
        torch, torch_why = None, str(exc)
    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    chosen = [w for w in workloads(args.quick)
              if not args.only or w.name in {n.strip() for n in args.only.split(",")}]
    info = device_info(cupy, torch, args.emulate)
    print(f"device: {info['device']}", flush=True)
    rows = []
    for workload in chosen:
        print(f"{workload.name} ...", end=" ", flush=True)
        rows.append(run_workload(workload, cupy, torch, torch_why, peers, args))
        print(", ".join(f"{p} {_ms(r['median_s'])} ms" if "median_s" in r else f"{p} n/a"
                        for p, r in rows[-1]["peers"].items()), flush=True)
    out = args.out or (os.path.join(tempfile.gettempdir(), "s2sad-gpu-emulated")
                       if args.emulate else os.path.join(ROOT, "benchmarks", "results", "gpu"))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"info": info, "settings": vars(args), "rows": rows}, f, indent=2)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(markdown(info, rows, peers, args))
    print(f"wrote {os.path.join(out, 'results.md')} and results.json")
    failed = [(row["name"], p) for row in rows for p, r in row["peers"].items()
              if r.get("agrees") is False]
    if failed:
        print(f"gradients that disagree with s2sad on NumPy: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
