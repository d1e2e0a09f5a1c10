"""s2sad's gradient on Dask arrays against the hand-written Dask gradient.

``python -m benchmarks.dask_gradients [--rows N] [--chunk N] [--repeat K]``

Logistic regression and least squares over ``X`` of ``rows x 20`` in row chunks, the
parameter vector ``w`` a NumPy array. Each row times, median of ``repeat`` runs, on Dask's
threaded scheduler:

* s2sad: ``s2sad.grad(loss)(w, X, y)``, a NumPy gradient computed in one ``dask.compute``;
* hand: the gradient as dask-glm's families write it, ``X.T @ (sigmoid(X @ w) - y)``
  (``X.T @ (X @ w - y)`` for least squares), computed with ``dask.compute``;
* the same two on the same data as NumPy arrays, in memory.

The ratio is s2sad's time over the hand-written one's. The gradients are checked to
agree to rounding first. The default size runs in under a minute on two cores.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

COLUMNS = 20


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


WORKLOADS = [("logistic regression", logistic, logistic_by_hand),
             ("least squares", least_squares, least_squares_by_hand)]


def _median_time(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(rows: int, chunk: int, repeat: int) -> list[dict]:
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
        for name, loss, by_hand in WORKLOADS:
            grad = s2sad.grad(loss)
            mine, hand = grad(w, Xd, yd), dask.compute(by_hand(w, Xd, yd))[0]
            np.testing.assert_allclose(mine, hand, rtol=1e-9, atol=1e-9 * rows)
            np.testing.assert_allclose(grad(w, X, y), by_hand(w, X, y), rtol=1e-9,
                                       atol=1e-9 * rows)
            row = {"name": name, "rows": rows, "chunk": chunk,
                   "dask_s2sad_s": _median_time(lambda: grad(w, Xd, yd), repeat),
                   "dask_hand_s": _median_time(lambda: dask.compute(by_hand(w, Xd, yd)),
                                               repeat),
                   "numpy_s2sad_s": _median_time(lambda: grad(w, X, y), repeat),
                   "numpy_hand_s": _median_time(lambda: by_hand(w, X, y), repeat)}
            row["dask_ratio"] = row["dask_s2sad_s"] / row["dask_hand_s"]
            row["numpy_ratio"] = row["numpy_s2sad_s"] / row["numpy_hand_s"]
            results.append(row)
    return results


def table(results: list[dict]) -> str:
    import os
    lines = [f"**Machine**: {platform.machine()}, {os.cpu_count()} CPUs, "
             f"Python {platform.python_version()}, NumPy {np.__version__}",
             "",
             "| workload | rows x 20 (chunk) | s2sad on Dask | hand on Dask | ratio | "
             "s2sad on NumPy | hand on NumPy | ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['name']} | {r['rows']:,} ({r['chunk']:,}) | "
                     f"{r['dask_s2sad_s'] * 1e3:.0f} ms | {r['dask_hand_s'] * 1e3:.0f} ms | "
                     f"{r['dask_ratio']:.2f}x | {r['numpy_s2sad_s'] * 1e3:.0f} ms | "
                     f"{r['numpy_hand_s'] * 1e3:.0f} ms | {r['numpy_ratio']:.2f}x |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--chunk", type=int, default=125_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(table(measure(args.rows, args.chunk, args.repeat)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
