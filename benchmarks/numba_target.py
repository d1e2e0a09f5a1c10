"""The numba column (issue 38): s2sad's gradient compiled by numba against the same
hand-written gradient compiled by numba, and against both in Python.

``python -m benchmarks.numba_target [--quick]`` prints one row per workload: seconds per
call of the hand-written gradient in Python, s2sad's NumPy gradient, the hand-written one
under ``numba.njit``, and s2sad's with ``target="numba"``; then the two ratios the issue
sets targets for (s2sad numba / hand numba, target 1.5; hand Python / s2sad numba, the
speed-up). numba's compile time is left out (each gradient is called once first) and
printed apart. The functions live in this file, so s2sad can read them and numba caches.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from .timing import FULL, QUICK, measure_interleaved

TARGET = 1.5  # s2sad numba / hand numba (issue 38)

# --- the workloads: the function, and its gradient written by hand -------------------------


def while_loop(x):
    while x < 50:
        x = x * 1.002 + math.sin(x) * 0.01 + 0.02
    return x


def grad_while_loop_hand(x):
    xs = []
    while x < 50:
        xs.append(x)
        x = x * 1.002 + math.sin(x) * 0.01 + 0.02
    g = 1.0
    for k in range(len(xs) - 1, -1, -1):
        g = g * (1.002 + math.cos(xs[k]) * 0.01)
    return g


def speelpenning(x):
    p = 1.0
    for i in range(x.shape[0]):
        p = p * x[i]
    return p


def grad_speelpenning_hand(x):
    n = x.shape[0]
    g = np.empty(n)
    p = 1.0
    for i in range(n):
        g[i] = p
        p = p * x[i]
    s = 1.0
    for i in range(n - 1, -1, -1):
        g[i] = g[i] * s
        s = s * x[i]
    return g


def euler(y0, k):
    y = y0
    for _ in range(10000):
        y = y + 0.0001 * (-k * y + math.sin(y))
    return y


def grad_euler_hand(y0, k):
    ys = np.empty(10000)
    y = y0
    for i in range(10000):
        ys[i] = y
        y = y + 0.0001 * (-k * y + math.sin(y))
    s_y, s_k = 1.0, 0.0
    for i in range(10000 - 1, -1, -1):
        s_k = s_k - 0.0001 * ys[i] * s_y
        s_y = s_y * (1.0 + 0.0001 * (-k + math.cos(ys[i])))
    return s_y, s_k


def rnn(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def grad_rnn_hand(W, xs):
    steps, n = xs.shape
    hs = np.empty((steps + 1, n))
    hs[0] = 0.0
    for t in range(steps):
        hs[t + 1] = np.tanh(W @ hs[t] + xs[t])
    s_W = np.zeros_like(W)
    s_h = 2.0 * hs[steps]
    for t in range(steps - 1, -1, -1):
        s_z = s_h * (1.0 - hs[t + 1] ** 2)
        s_W += np.outer(s_z, hs[t])
        s_h = W.T @ s_z
    return s_W


def particles(x, v, k):
    n = x.shape[0]
    for _ in range(200):
        f = np.zeros(n)
        for i in range(n - 1):
            d = x[i + 1] - x[i]
            fi = k * (d - 1.0) + 0.1 * math.sin(d)
            f[i] = f[i] + fi
            f[i + 1] = f[i + 1] - fi
        v = v + 0.01 * f
        x = x + 0.01 * v
    return np.sum(x * x)


def grad_particles_hand(x, v, k):
    n = x.shape[0]
    xs = np.empty((200, n))
    for t in range(200):
        xs[t] = x
        f = np.zeros(n)
        for i in range(n - 1):
            d = x[i + 1] - x[i]
            fi = k * (d - 1.0) + 0.1 * math.sin(d)
            f[i] += fi
            f[i + 1] -= fi
        v = v + 0.01 * f
        x = x + 0.01 * v
    s_x = 2.0 * x
    s_v = np.zeros(n)
    s_k = 0.0
    for t in range(200 - 1, -1, -1):
        s_v = s_v + 0.01 * s_x
        s_f = 0.01 * s_v
        xt = xs[t]
        for i in range(n - 1):
            d = xt[i + 1] - xt[i]
            s_fi = s_f[i] - s_f[i + 1]
            s_d = s_fi * (k + 0.1 * math.cos(d))
            s_x[i + 1] += s_d
            s_x[i] -= s_d
            s_k += s_fi * (d - 1.0)
    return s_x, s_k


def _workloads(quick: bool):
    rng = np.random.default_rng(38)
    steps = 100 if quick else 1000
    count = 100 if quick else 300  # (particles)
    return [
        ("while loop", while_loop, grad_while_loop_hand, (1.0,), 0),
        ("speelpenning (loop, 100)", speelpenning, grad_speelpenning_hand,
         (rng.uniform(0.9, 1.1, 100),), 0),
        ("euler (10,000 steps), wrt y0 and k", euler, grad_euler_hand, (0.5, 2.0), (0, 1)),
        (f"rnn ({steps} steps, hidden 8)", rnn, grad_rnn_hand,
         (rng.standard_normal((8, 8)) * 0.3, rng.standard_normal((steps, 8))), 0),
        (f"particles ({count}, 200 steps, forces by loops), wrt x and k", particles,
         grad_particles_hand, (np.arange(count) * 1.1 + rng.uniform(-0.1, 0.1, count),
                               np.zeros(count), 2.0), (0, 2)),
    ]


def run(quick: bool = False, keep=None) -> list:
    """One row per workload: ``(name, seconds per call by column, compile seconds)``,
    each gradient checked against the hand-written one first; ``keep``, if given, picks
    the workloads by name."""
    import numba

    import s2sad
    rows = []
    for name, f, hand, args, wrt in _workloads(quick):
        if keep is not None and not keep(name):
            continue
        hand_numba = numba.njit(cache=True)(hand)
        s2sad_numba = s2sad.grad(f, wrt, target="numba")
        s2sad_numpy = s2sad.grad(f, wrt)
        started = time.perf_counter()
        expected = hand_numba(*args)
        hand_compile = time.perf_counter() - started
        started = time.perf_counter()
        got = s2sad_numba(*args)
        s2sad_compile = time.perf_counter() - started
        for a, b in [(got, expected), (s2sad_numpy(*args), hand(*args))]:
            for one, other in zip(a if isinstance(a, tuple) else (a,),
                                  b if isinstance(b, tuple) else (b,)):
                np.testing.assert_allclose(one, other, rtol=1e-9)
        times = measure_interleaved({
            "hand (Python)": lambda: hand(*args),
            "s2sad (NumPy)": lambda: s2sad_numpy(*args),
            "hand (numba)": lambda: hand_numba(*args),
            "s2sad (numba)": lambda: s2sad_numba(*args),
        }, QUICK if quick else FULL)
        rows.append((name, times, (hand_compile, s2sad_compile)))
    return rows


def table(rows) -> str:
    """The rows as a Markdown table (microseconds per call, the ratios)."""
    lines = ["| workload | hand (Python) | s2sad (NumPy) | hand (numba) | s2sad (numba) | "
             "s2sad numba / hand numba | speed-up over hand Python | first call (hand, s2sad) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, times, (hand_compile, s2sad_compile) in rows:
        us = {k: v * 1e6 for k, v in times.items()}
        lines.append(
            f"| {name} | {us['hand (Python)']:.1f} µs | {us['s2sad (NumPy)']:.1f} µs | "
            f"{us['hand (numba)']:.1f} µs | {us['s2sad (numba)']:.1f} µs | "
            f"{times['s2sad (numba)'] / times['hand (numba)']:.2f} | "
            f"{times['hand (Python)'] / times['s2sad (numba)']:.0f}x | "
            f"{hand_compile:.2f} s, {s2sad_compile:.2f} s |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repetitions")
    print(table(run(parser.parse_args(argv).quick)))


if __name__ == "__main__":
    main()
