"""Tight scalar loops in pure Python: s2sad's gradient against the hand-written one.

``python -m benchmarks.tight_loops [--quick] [--rounds N]``: one process, four
workloads (issue 38's ``while`` loop, the seed's f4, Speelpenning's product as a loop,
a trajectory appended to a list and summed, 10,000 steps: each item's sensitivity is
the sum's, read as one number, and the list is not popped in reverse).
For each, three calls are timed side by side in paired rounds, each round in an order
of its own (``timing.measure_rounds``): the hand-written gradient, s2sad's gradient as a
user calls it, and the generated code alone ("code only": the variant's function,
without the entry that checks the arguments' kinds). Printed: each ratio's median over
the rounds with its quartiles (the spread, on a loaded machine), and the per-call check
of the argument kinds in nanoseconds (the call's time less the code's, paired by round).
Each gradient is first checked against the hand-written one.
"""

from __future__ import annotations

import argparse
import functools
import math
import statistics

import numpy as np

from .timing import FULL, QUICK, Settings, measure_rounds
from .workloads.f4 import f4, grad_f4_hand
from .workloads.speelpenning import grad_speelpenning_hand, speelpenning_loop

TARGET = 1.15
SETTINGS = Settings(min_time=FULL.min_time, repeat=41, budget=60.0, min_repeat=5)  # a full run


def tight_while(x):
    while x < 50:
        x = x * 1.002 + math.sin(x) * 0.01 + 0.02
    return x


def grad_tight_while_hand(x):
    """What a person writes: the trajectory kept, then walked back."""
    xs = []
    while x < 50:
        xs.append(x)
        x = x * 1.002 + math.sin(x) * 0.01 + 0.02
    g = 1.0
    for x in reversed(xs):
        g = g * (1.002 + math.cos(x) * 0.01)
    return g


STEPS = 10_000


def appended_trajectory(a, n=STEPS):
    xs = []
    x = 0.5
    for i in range(n):
        x = x * 0.99 + math.sin(a * x) * 0.01
        xs.append(x)
    return sum(xs)


def grad_appended_trajectory_hand(a):
    """The trajectory kept, then walked back; each state adds 1 to its own sensitivity."""
    xs = [0.5]
    x = 0.5
    for i in range(STEPS):
        x = x * 0.99 + math.sin(a * x) * 0.01
        xs.append(x)
    g, ga = 0.0, 0.0
    for i in reversed(range(STEPS)):
        g += 1.0
        before = xs[i]
        c = math.cos(a * before) * 0.01
        ga += g * c * before
        g = g * (0.99 + c * a)
    return ga


def workloads():
    """``(name, f, hand-written gradient, arguments)``."""
    rng = np.random.default_rng(0)
    floats = [float(v) for v in 1.0 + 0.05 * rng.standard_normal(100)]
    return [
        ("while loop (issue 38)", tight_while, grad_tight_while_hand, (1.0,)),
        ("f4", f4, lambda v: grad_f4_hand(v)[0], ([1.0, 2.0, 3.0, 4.0],)),
        ("speelpenning (loop)", speelpenning_loop, lambda v: grad_speelpenning_hand(v)[0],
         (floats,)),
        ("appended trajectory (10,000)", appended_trajectory, grad_appended_trajectory_hand,
         (0.7,)),
    ]


def _quartiles(values) -> tuple:
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return q[0], statistics.median(values), q[2]


def measure(settings: Settings, keep=None) -> list[dict]:
    """One row per workload (``keep``, if given, picks them by name)."""
    import s2sad
    from s2sad import hooks
    rows = []
    for name, f, hand, args in workloads():
        if keep is not None and not keep(name):
            continue
        df = s2sad.grad(f)
        code = hooks.variant_function(df, args)
        expected = hand(*args)
        for got in (df(*args), code(*args)):
            if not np.allclose(got, expected, rtol=1e-12, atol=1e-12):
                raise AssertionError(f"{name}: s2sad gives {got}, the hand-written {expected}")
        samples = measure_rounds({"hand": functools.partial(hand, *args),
                                  "s2sad": functools.partial(df, *args),
                                  "code": functools.partial(code, *args)}, settings)
        rounds = min(map(len, samples.values()))
        hand_s, call_s, code_s = (samples[k][:rounds] for k in ("hand", "s2sad", "code"))
        rows.append({
            "workload": name, "rounds": rounds,
            "hand_us": statistics.median(hand_s) * 1e6,
            "s2sad_vs_hand": _quartiles([c / h for c, h in zip(call_s, hand_s)]),
            "code_vs_hand": _quartiles([c / h for c, h in zip(code_s, hand_s)]),
            "check_ns": _quartiles([(c - k) * 1e9 for c, k in zip(call_s, code_s)]),
            "source": df.source_for(*args),
        })
    return rows


def render(rows: list[dict]) -> str:
    def spread(q, fmt="{:.3f}"):
        return f"{fmt.format(q[1])} ({fmt.format(q[0])}-{fmt.format(q[2])})"
    header = ("| workload | hand-written (us) | s2sad / hand | code only / hand | "
              "kinds check (ns) | rounds |")
    lines = [header, "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['workload']} | {r['hand_us']:.2f} | {spread(r['s2sad_vs_hand'])} | "
                     f"{spread(r['code_vs_hand'])} | {spread(r['check_ns'], '{:.0f}')} | "
                     f"{r['rounds']} |")
    lines.append("")
    lines.append(f"Median over paired rounds (quartiles in brackets); target {TARGET}x of the "
                 "hand-written gradient, code only.")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few short rounds (a smoke run)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds (default 41)")
    parser.add_argument("--show", action="store_true", help="print the generated code too")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else SETTINGS
    if args.rounds:
        settings = Settings(min_time=settings.min_time, repeat=args.rounds,
                            budget=1e9, min_repeat=args.rounds)
    rows = measure(settings)
    print(render(rows))
    if args.show:
        for r in rows:
            print(f"\n# {r['workload']}\n{r['source']}")


if __name__ == "__main__":
    main()
