"""The numba column (issue 38): s2sad's gradient compiled by numba against the same
hand-written gradient compiled by numba, against both in Python, and against JAX.

``python -m benchmarks.numba_target [--quick]`` prints one row per workload: seconds per
call of the hand-written gradient in Python, s2sad's NumPy gradient, the hand-written one
under ``numba.njit``, s2sad's with ``target="numba"``, and ``jax.jit(jax.grad(...))`` of
the workload written with ``lax.fori_loop`` / ``lax.scan`` (float64); then the ratios the
issue sets targets for (s2sad numba / hand numba, target 1.5; hand Python / s2sad numba,
the speed-up; s2sad numba / JAX, target below 1). The first call of each compiled
gradient (numba's compile, JAX's trace and compile) is left out of the time per call and
printed apart. JAX is optional: without it, its columns are left out. The data-dependent
``while`` loop has no JAX form that reverse mode differentiates (``lax.while_loop``): its
JAX cell says so, with JAX's own error. The functions live in this file (and
``workloads/elementwise.py``), so s2sad can read them and numba caches.

Threads: numba's kernels run on one (``numba.njit``, not ``parallel=True``). XLA's CPU
runtime runs a fusion on a pool of its own whatever ``XLA_FLAGS`` say (on a 2-CPU host,
the 10^6-element gradient keeps two threads busy). The clock is the process's CPU time
(``benchmarks.timing``), which sums every thread: the columns compare CPU work.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

from .timing import FULL, QUICK, measure_interleaved
from .workloads.elementwise import elementwise, grad_elementwise_hand

TARGET = 1.5  # s2sad numba / hand numba (issue 38)
JAX = "JAX jit(grad)"
NOT_EXPRESSIBLE = "not expressible"

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


# --- the same workloads in JAX, loops as lax.fori_loop / lax.scan -------------------------


def jax_versions():
    """The workloads written for ``jax.grad`` (by the NumPy function's name), each loop a
    ``lax.fori_loop`` with a static trip count or a ``lax.scan``; None where reverse mode
    cannot take the loop (a ``lax.while_loop``, whose trip count depends on the data)."""
    import jax.numpy as jnp
    from jax import lax

    def while_loop_jax(x):
        return lax.while_loop(lambda x: x < 50,
                              lambda x: x * 1.002 + jnp.sin(x) * 0.01 + 0.02, x)

    def speelpenning_jax(x):
        return lax.fori_loop(0, x.shape[0], lambda i, p: p * x[i], 1.0)

    def euler_jax(y0, k):
        return lax.fori_loop(0, 10000, lambda _, y: y + 0.0001 * (-k * y + jnp.sin(y)), y0)

    def rnn_jax(W, xs):
        h, _ = lax.scan(lambda h, x: (jnp.tanh(W @ h + x), None), jnp.zeros(W.shape[0]), xs)
        return jnp.sum(h * h)

    def particles_jax(x, v, k):
        n = x.shape[0]

        def step(_, state):
            x, v = state

            def force(i, f):   # (the loop over pairs, as the NumPy function has it)
                d = x[i + 1] - x[i]
                fi = k * (d - 1.0) + 0.1 * jnp.sin(d)
                return f.at[i].add(fi).at[i + 1].add(-fi)
            v = v + 0.01 * lax.fori_loop(0, n - 1, force, jnp.zeros(n))
            return x + 0.01 * v, v
        x, v = lax.fori_loop(0, 200, step, (x, v))
        return jnp.sum(x * x)

    def elementwise_jax(x):
        return jnp.sum(jnp.tanh(x) * jnp.exp(-0.5 * x * x) + jnp.log(1.0 + x * x))
    return {"while_loop": (while_loop_jax, False), "speelpenning": (speelpenning_jax, True),
            "euler": (euler_jax, True), "rnn": (rnn_jax, True),
            "particles": (particles_jax, True), "elementwise": (elementwise_jax, True)}


def jax_gradient(f, args, wrt):
    """``(call, first call's seconds, None)`` for ``jax.jit(jax.grad(...))`` of the NumPy
    function ``f``'s JAX version (float64, the arrays made JAX's once), or ``(None, None,
    why)``: JAX is not installed, or cannot take the loop in reverse mode (JAX's error)."""
    try:
        import jax
    except ImportError as exc:
        return None, None, f"not installed ({exc.name})"
    jax.config.update("jax_enable_x64", True)   # float64, like the NumPy code
    import jax.numpy as jnp
    version, expressible = jax_versions()[f.__name__]
    jargs = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
    g = jax.jit(jax.grad(version, argnums=wrt))
    started = time.perf_counter()
    try:
        jax.block_until_ready(g(*jargs))
    except ValueError as exc:   # (reverse mode of lax.while_loop: JAX refuses it)
        if expressible:
            raise
        return None, None, f"{NOT_EXPRESSIBLE}: {str(exc).splitlines()[0]}"
    return (lambda: jax.block_until_ready(g(*jargs))), time.perf_counter() - started, None


def _workloads(quick: bool):
    rng = np.random.default_rng(38)
    steps = 100 if quick else 1000
    count = 100 if quick else 300  # (particles)
    size = 10_000 if quick else 1_000_000  # (elementwise)
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
        (f"elementwise ({size:,} elements)", elementwise, grad_elementwise_hand,
         (rng.standard_normal(size),), 0),
    ]


def _parts(value) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def run(quick: bool = False, keep=None) -> list:
    """One row per workload: ``(name, seconds per call by column, first-call seconds
    (hand numba, s2sad numba, JAX or None), why JAX has no time or None)``, each gradient
    checked against the hand-written one first; ``keep``, if given, picks the workloads
    by name."""
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
        jax_call, jax_compile, jax_note = jax_gradient(f, args, wrt)
        checks = [(got, expected), (s2sad_numpy(*args), hand(*args))]
        if jax_call is not None:
            checks.append((jax_call(), hand(*args)))
        for a, b in checks:
            for one, other in zip(_parts(a), _parts(b)):
                np.testing.assert_allclose(np.asarray(one), other, rtol=1e-9, err_msg=name)
        calls = {
            "hand (Python)": lambda: hand(*args),
            "s2sad (NumPy)": lambda: s2sad_numpy(*args),
            "hand (numba)": lambda: hand_numba(*args),
            "s2sad (numba)": lambda: s2sad_numba(*args),
        }
        if jax_call is not None:
            calls[JAX] = jax_call
        times = measure_interleaved(calls, QUICK if quick else FULL)
        rows.append((name, times, (hand_compile, s2sad_compile, jax_compile), jax_note))
    return rows


def table(rows) -> str:
    """The rows as a Markdown table (microseconds per call, the ratios); JAX's columns
    where it ran on a workload or said it cannot take its loop, else a line why not."""
    with_jax = any(JAX in times or (note or "").startswith(NOT_EXPRESSIBLE)
                   for _, times, _, note in rows)
    lines = ["| workload | hand (Python) | s2sad (NumPy) | hand (numba) | s2sad (numba) | "
             + (f"{JAX} | " if with_jax else "")
             + "s2sad numba / hand numba | speed-up over hand Python | "
             + ("s2sad numba / JAX | " if with_jax else "")
             + "first call (hand, s2sad" + (", JAX" if with_jax else "") + ") |",
             "|---|---|---|---|---|---|---|---|" + ("---|---|" if with_jax else "")]
    notes = []
    for name, times, compiles, note in rows:
        us = {k: v * 1e6 for k, v in times.items()}
        cells = [name, f"{us['hand (Python)']:.1f} µs", f"{us['s2sad (NumPy)']:.1f} µs",
                 f"{us['hand (numba)']:.1f} µs", f"{us['s2sad (numba)']:.1f} µs"]
        if with_jax:
            cells.append(f"{us[JAX]:.1f} µs" if JAX in us else
                         NOT_EXPRESSIBLE if (note or "").startswith(NOT_EXPRESSIBLE) else "–")
        cells += [f"{times['s2sad (numba)'] / times['hand (numba)']:.2f}",
                  f"{times['hand (Python)'] / times['s2sad (numba)']:.0f}x"]
        if with_jax:
            cells.append(f"{times['s2sad (numba)'] / times[JAX]:.2f}" if JAX in times
                         else "–")
        cells.append(", ".join(f"{c:.2f} s" for c in compiles if c is not None))
        lines.append("| " + " | ".join(cells) + " |")
        if note and note.startswith(NOT_EXPRESSIBLE):
            notes.append(f"{name}: JAX says \"{note.split(': ', 1)[1]}\"")
    jax_rows = [(name, times) for name, times, _, _ in rows if JAX in times]
    if jax_rows:
        faster = [name for name, times in jax_rows if times["s2sad (numba)"] < times[JAX]]
        slower = [f"{name} {times['s2sad (numba)'] / times[JAX]:.2f}" for name, times
                  in jax_rows if times["s2sad (numba)"] >= times[JAX]]
        lines += ["", f"Faster than {JAX} (s2sad numba / JAX < 1): {len(faster)} of "
                  f"{len(jax_rows)} where JAX takes the loop"
                  + (f" (not: {', '.join(slower)})" if slower else "") + "."]
    if notes:
        lines += ["", "Not expressible in JAX's reverse mode: " + "; ".join(notes) + "."]
    elif not with_jax:
        reasons = sorted({note for _, _, _, note in rows if note})
        lines += ["", f"{JAX} columns left out: JAX is "
                  + (", ".join(reasons) if reasons else "not run") + "."]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repetitions")
    from .run import PINNED   # (JAX on one thread, as benchmarks.run pins it)
    os.environ.setdefault("XLA_FLAGS", PINNED["XLA_FLAGS"])
    started = os.getloadavg()[0]   # (the load: other processes' work slows the columns)
    rows = run(parser.parse_args(argv).quick)
    print(table(rows))
    print(f"\nLoad average (1 min): {started:.2f} at the start, {os.getloadavg()[0]:.2f} at "
          f"the end, on {os.cpu_count()} CPUs.")


if __name__ == "__main__":
    main()
