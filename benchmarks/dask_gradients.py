"""s2sad's gradient on Dask arrays against the hand-written Dask gradient.

``python -m benchmarks.dask_gradients [--rows N] [--chunk N] [--repeat K] [--gmm-rows N]
[--out-of-core ROWS]``

Logistic regression and least squares over ``X`` of ``rows x 20`` in row chunks, the
parameter vector ``w`` a NumPy array; the benchmark's GMM log-likelihood
(``benchmarks/workloads/gmm.py``) over ``gmm-rows`` points in row chunks. Each row times,
in ``repeat`` paired rounds in one process (s2sad, then hand, then the same on NumPy, each
round), on Dask's threaded scheduler:

* s2sad: ``s2sad.grad(loss)(w, X, y)``, a NumPy gradient computed in one ``dask.compute``;
* hand: the gradient as dask-glm's families write it, ``X.T @ (sigmoid(X @ w) - y)``
  (``X.T @ (X @ w - y)`` for least squares; the workload's own for the GMM), computed
  with ``dask.compute``;
* the same two on the same data as NumPy arrays, in memory.

The ratio is the median of the rounds' ratios of s2sad's time over the hand-written one's.
The gradients are checked to agree to rounding first. The default sizes run in about a
minute on two cores; the issue's size is ``--rows 2000000 --chunk 250000``.

``--out-of-core ROWS`` (opt-in: 4*10^7 rows is 6 GiB if held) generates ``X`` and ``y``
chunk by chunk (``da.random.default_rng(seed)``), never whole, and times one gradient of
each, s2sad's and the hand-written, each in a fresh subprocess whose peak resident memory
(``VmHWM`` of ``/proc/self/status``, the interpreter and its imports included) is
reported.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

COLUMNS = 20
TARGET = 1.2  # s2sad on Dask / hand on Dask
ROWS, CHUNK, REPEAT, GMM_ROWS, GMM_CHUNK = 500_000, 125_000, 3, 20_000, 5_000  # the defaults
GMM_NAME = "GMM (d=10, K=25)"


def logistic(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.sum(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def least_squares(w, X, y):
    r = X @ w - y
    return 0.5 * np.sum(r * r)


def logistic_by_hand(w, X, y):
    return X.T @ (1.0 / (1.0 + np.exp(-(X @ w))) - y)


def least_squares_by_hand(w, X, y):
    return X.T @ (X @ w - y)


WORKLOADS = {"logistic regression": (logistic, logistic_by_hand),
             "least squares": (least_squares, least_squares_by_hand)}


def _paired(runs: dict, repeat: int) -> dict:
    """``{name: median seconds}`` of each of ``runs`` (name -> function), run one after
    another in each of ``repeat`` rounds, and ``rounds``: each round's times."""
    rounds = []
    for _ in range(repeat):
        times = {}
        for name, run in runs.items():
            t0 = time.perf_counter()
            run()
            times[name] = time.perf_counter() - t0
        rounds.append(times)
    out = {name: statistics.median(r[name] for r in rounds) for name in runs}
    out["rounds"] = rounds
    return out


def _ratio(rounds: list, mine: str, theirs: str) -> float:
    return statistics.median(r[mine] / r[theirs] for r in rounds)


def _row(name, rows, chunk, dask_mine, dask_hand, np_mine, np_hand, repeat) -> dict:
    import dask
    times = _paired({"dask_s2sad_s": dask_mine,
                     "dask_hand_s": lambda: dask.compute(dask_hand()),
                     "numpy_s2sad_s": np_mine, "numpy_hand_s": np_hand}, repeat)
    rounds = times.pop("rounds")
    return {"name": name, "rows": rows, "chunk": chunk, **times,
            "dask_ratio": _ratio(rounds, "dask_s2sad_s", "dask_hand_s"),
            "numpy_ratio": _ratio(rounds, "numpy_s2sad_s", "numpy_hand_s")}


def measure(rows: int, chunk: int, repeat: int, keep=None) -> list[dict]:
    """A row of each of ``WORKLOADS`` (``keep``, if given, picks them by name)."""
    import dask
    import dask.array as da

    import s2sad
    rng = np.random.default_rng(0)
    X = rng.standard_normal((rows, COLUMNS))
    w = 0.1 * rng.standard_normal(COLUMNS)
    y = (rng.random(rows) < 1.0 / (1.0 + np.exp(-X @ w))).astype(float)
    Xd, yd = da.from_array(X, chunks=(chunk, COLUMNS)), da.from_array(y, chunks=chunk)
    results = []
    with dask.config.set(scheduler="threads"):
        for name, (loss, by_hand) in WORKLOADS.items():
            if keep is not None and not keep(name):
                continue
            grad = s2sad.grad(loss)
            mine, hand = grad(w, Xd, yd), dask.compute(by_hand(w, Xd, yd))[0]
            np.testing.assert_allclose(mine, hand, rtol=1e-9, atol=1e-9 * rows)
            np.testing.assert_allclose(grad(w, X, y), by_hand(w, X, y), rtol=1e-9,
                                       atol=1e-9 * rows)
            results.append(_row(name, rows, chunk, lambda g=grad: g(w, Xd, yd),
                                lambda h=by_hand: h(w, Xd, yd), lambda g=grad: g(w, X, y),
                                lambda h=by_hand: h(w, X, y), repeat))
    return results


def measure_gmm(rows: int, chunk: int, repeat: int) -> dict:
    """The benchmark's GMM (d = 10, K = 25) over ``rows`` points in chunks of ``chunk``."""
    import dask
    import dask.array as da

    import s2sad
    from benchmarks.workloads.gmm import gmm, grad_gmm_hand, make_args
    alphas, means, qs, Ls, _, mask, gamma, m = make_args(np.random.default_rng(0), False)
    x = np.random.default_rng(1).standard_normal((rows, means.shape[1]))
    xd = da.from_array(x, chunks=(chunk, x.shape[1]))
    params = (alphas, means, qs, Ls)
    grad = s2sad.grad(gmm, wrt=(0, 1, 2, 3))
    with dask.config.set(scheduler="threads"):
        mine = grad(*params, xd, mask, gamma, m)
        hand = dask.compute(grad_gmm_hand(*params, xd, mask, gamma, m))[0]
        for a, b in zip(mine, hand):
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-8 * rows)
        return _row(GMM_NAME, rows, chunk,
                    lambda: grad(*params, xd, mask, gamma, m),
                    lambda: grad_gmm_hand(*params, xd, mask, gamma, m),
                    lambda: grad(*params, x, mask, gamma, m),
                    lambda: grad_gmm_hand(*params, x, mask, gamma, m), repeat)


# --- out of core -----------------------------------------------------------------------------

def _peak_rss_bytes() -> int:
    """This process's peak resident memory (``VmHWM``), in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def out_of_core_run(which: str, rows: int, chunk: int) -> dict:
    """One gradient of logistic regression over ``rows x 20`` generated chunk by chunk,
    ``which`` "s2sad" or "hand": its time and this process's peak memory."""
    import dask
    import dask.array as da

    import s2sad
    generator = da.random.default_rng(42)
    X = generator.standard_normal((rows, COLUMNS), chunks=(chunk, COLUMNS))
    y = (generator.random(rows, chunks=chunk) < 0.5).astype(float)
    w = 0.1 * np.random.default_rng(0).standard_normal(COLUMNS)
    with dask.config.set(scheduler="threads"):
        if which == "s2sad":
            grad = s2sad.grad(logistic)
            grad(w, X[:2 * chunk], y[:2 * chunk])  # (built first: the build is not timed)
            t0 = time.perf_counter()
            g = grad(w, X, y)
        else:
            t0 = time.perf_counter()
            (g,) = dask.compute(logistic_by_hand(w, X, y))
        seconds = time.perf_counter() - t0
    return {"which": which, "seconds": seconds, "peak_rss": _peak_rss_bytes(),
            "gradient": np.asarray(g).tolist()}


def out_of_core(rows: int, chunk: int) -> list[dict]:
    """:func:`out_of_core_run` of s2sad and of the hand-written gradient, each in a fresh
    subprocess (so that each peak is its own)."""
    runs = []
    for which in ("s2sad", "hand"):
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.dask_gradients", "--out-of-core-run", which,
             "--out-of-core", str(rows), "--out-of-core-chunk", str(chunk)],
            capture_output=True, text=True, check=True,
            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    np.testing.assert_allclose(runs[0]["gradient"], runs[1]["gradient"], rtol=1e-8,
                               atol=1e-8 * rows)
    return runs


# --- the report ------------------------------------------------------------------------------

def table(results: list[dict]) -> str:
    lines = [f"**Machine**: {platform.machine()}, {os.cpu_count()} CPUs, "
             f"Python {platform.python_version()}, NumPy {np.__version__}",
             "",
             "| workload | rows (chunk) | s2sad on Dask | hand on Dask | ratio | "
             "s2sad on NumPy | hand on NumPy | ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['name']} | {r['rows']:,} ({r['chunk']:,}) | "
                     f"{r['dask_s2sad_s'] * 1e3:.0f} ms | {r['dask_hand_s'] * 1e3:.0f} ms | "
                     f"{r['dask_ratio']:.2f}x | {r['numpy_s2sad_s'] * 1e3:.0f} ms | "
                     f"{r['numpy_hand_s'] * 1e3:.0f} ms | {r['numpy_ratio']:.2f}x |")
    return "\n".join(lines)


def out_of_core_table(rows: int, chunk: int, runs: list[dict]) -> str:
    lines = ["", f"Out of core: logistic regression over {rows:,} x {COLUMNS} rows "
             f"({rows * COLUMNS * 8 / 2 ** 30:.1f} GiB if held) generated in chunks of "
             f"{chunk:,} rows", "",
             "| gradient | time | peak resident memory |", "|---|---|---|"]
    for r in runs:
        lines.append(f"| {r['which']} | {r['seconds']:.1f} s | "
                     f"{r['peak_rss'] / 2 ** 30:.2f} GiB |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--chunk", type=int, default=CHUNK)
    parser.add_argument("--repeat", type=int, default=REPEAT)
    parser.add_argument("--gmm-rows", type=int, default=GMM_ROWS,
                        help="points of the GMM workload (0: no GMM row)")
    parser.add_argument("--gmm-chunk", type=int, default=GMM_CHUNK)
    parser.add_argument("--no-regression", action="store_true",
                        help="no logistic regression and least squares rows")
    parser.add_argument("--out-of-core", type=int, default=0, metavar="ROWS",
                        help="also the out-of-core run over ROWS rows (the issue's: 40000000)")
    parser.add_argument("--out-of-core-chunk", type=int, default=500_000)
    parser.add_argument("--out-of-core-run", choices=("s2sad", "hand"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.out_of_core_run:  # (the subprocess of one out-of-core run)
        print(json.dumps(out_of_core_run(args.out_of_core_run, args.out_of_core,
                                         args.out_of_core_chunk)))
        return 0
    results = [] if args.no_regression else measure(args.rows, args.chunk, args.repeat)
    if args.gmm_rows:
        results.append(measure_gmm(args.gmm_rows, args.gmm_chunk, args.repeat))
    if results:
        print(table(results), flush=True)
    if args.out_of_core:
        runs = out_of_core(args.out_of_core, args.out_of_core_chunk)
        print(out_of_core_table(args.out_of_core, args.out_of_core_chunk, runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
