"""``s2sad.checkpoint`` on a long loop: the memory it saves and the time it costs.

The loss of ``examples/checkpoint.py``: a recurrent update of a vector of 200, run for
``segments`` segments of 50 steps each (2,000 steps). Its gradient with respect to the
matrix ``W`` is compiled twice: recording every step's intermediates, and with each
segment checkpointed (the reverse sweep runs a segment again, recording, right before
its own reverse sweep). Both are checked equal, then timed side by side (the suite's
interleaved median) and their peak memory traced (tracemalloc, NumPy buffers included).
"""

from __future__ import annotations

import numpy as np

import s2sad
from examples.checkpoint import STEPS_PER_SEGMENT, loss, loss_checkpointed

from .timing import Settings, measure_interleaved, peak_memory


def checkpoint_comparison(settings: Settings, quick: bool) -> dict:
    """``{"steps", "n", "segment", "plain": {time_s, peak_bytes}, "checkpointed": {...},
    "saved", "paid"}``: the memory saved (a fraction of the plain peak) and the time
    paid (checkpointed / plain)."""
    n, segments = (20, 4) if quick else (200, 40)
    rng = np.random.default_rng(0)
    args = (rng.normal(size=n), rng.normal(size=(n, n)) / np.sqrt(n), rng.normal(size=n),
            segments)
    gradients = {"plain": s2sad.grad(loss, wrt=1),
                 "checkpointed": s2sad.grad(loss_checkpointed, wrt=1)}
    results = {name: gradient(*args) for name, gradient in gradients.items()}  # compiled
    np.testing.assert_allclose(results["checkpointed"], results["plain"], rtol=1e-9,
                               atol=1e-12)
    times = measure_interleaved({name: (lambda g=g: g(*args)) for name, g in gradients.items()},
                                settings)
    out = {"steps": segments * STEPS_PER_SEGMENT, "n": n, "segment": STEPS_PER_SEGMENT}
    for name, gradient in gradients.items():
        out[name] = {"time_s": times[name],
                     "peak_bytes": peak_memory(lambda g=gradient: g(*args))}
    out["saved"] = 1.0 - out["checkpointed"]["peak_bytes"] / out["plain"]["peak_bytes"]
    out["paid"] = out["checkpointed"]["time_s"] / out["plain"]["time_s"]
    return out


def render_checkpoint(result: dict | None, fmt_time, fmt_bytes) -> list[str]:
    """The Markdown section of the results."""
    out = ["", "## Checkpointing a long loop (`s2sad.checkpoint`)", ""]
    if result is None:
        return out + ["Not measured in this run (`--no-checkpoint`)."]
    out += [f"`examples/checkpoint.py`: {result['steps']:,} steps of a recurrent update of a "
            f"vector of {result['n']} (segments of {result['segment']} steps), gradient with "
            "respect to the matrix. The checkpointed gradient records one state per segment "
            "and runs each segment forward again in its reverse sweep; both gradients agree "
            "(rtol 1e-9).", "",
            "| gradient | time | peak memory |", "|---|---:|---:|"]
    for name, label in (("plain", "recording every step"), ("checkpointed", "checkpointed")):
        row = result[name]
        out.append(f"| {label} | {fmt_time(row['time_s'])} | {fmt_bytes(row['peak_bytes'])} |")
    out += ["", f"Memory saved: **{result['saved']:.0%}**; time paid: "
                f"**{result['paid']:.2f}×** the plain gradient's time."]
    return out
