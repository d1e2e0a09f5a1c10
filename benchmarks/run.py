"""Run the s2sad benchmark suite: ``python -m benchmarks.run [--quick] [--peers ...]``.

One process per run. BLAS (and XLA, PyTorch) are pinned to one thread: the
variables are set before NumPy is imported, by re-executing this module once
with them in the environment. For every workload: the function's time, the
hand-written gradient's, s2sad's and each installed peer's (the median of
repeated timeit-style samples), each gradient first checked against the
hand-written one with np.allclose; s2sad's first-call build time; peak memory
of one gradient call. Then s2sad's build time on straight-line functions of
100, 1,000 and 5,000 statements; checkpointing a long loop; and the sections of
benchmarks/numba_target.py (s2sad's numba gradient against the hand-written numba one),
tight_loops.py (tight scalar loops in pure Python) and dask_gradients.py (s2sad on Dask
against the hand-written Dask gradient, at its default sizes), each skipped with a note
when numba or Dask is not installed. Writes results.md, results.json and chart.png (and
sources.md, s2sad's generated code) to benchmarks/results/.
"""

from __future__ import annotations

import os
import sys

PINNED = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pin_threads_or_reexec() -> None:
    """Re-exec this module (same process id) with the thread variables set, if needed."""
    if __package__ and all(os.environ.get(k) == v for k, v in PINNED.items()) \
            and "numpy" not in sys.modules:
        return
    if os.environ.get("S2SAD_BENCH_REEXEC") == "1":   # already re-executed: don't loop
        if "numpy" in sys.modules:
            raise RuntimeError("numpy was imported before the thread variables were set")
        os.environ.update(PINNED)
        return
    env = dict(os.environ, **PINNED, S2SAD_BENCH_REEXEC="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, "-m", "benchmarks.run", *sys.argv[1:]], env)


if __name__ == "__main__":
    _pin_threads_or_reexec()

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

import numpy as np  # noqa: E402

from . import peers as peers_mod  # noqa: E402
from .checkpointing import checkpoint_comparison, render_checkpoint  # noqa: E402
from .scaling import MAX_EXPONENT, build_scaling  # noqa: E402
from .timing import (FULL, QUICK, measure_rounds, paired_ratio, peak_memory,  # noqa: E402
                     time_limit)
from .workloads import all_workloads  # noqa: E402

TARGET_VS_HAND = 1.15
TARGET_BUILD_S = 0.050
RTOL, ATOL = 1e-6, 1e-8


# ---------------------------------------------------------------------------- running

def short_reason(exc: BaseException) -> str:
    """A few words for a table cell; the full message goes to the "why n/a" section."""
    kind = type(exc).__name__
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    construct = getattr(exc, "construct", None)   # s2sad.UnsupportedSyntaxError
    if construct:
        return f"not supported: {construct}"
    if kind in ("TracerBoolConversionError", "ConcretizationTypeError",
                "TracerIntegerConversionError"):
        return "data-dependent Python control flow under jit"
    if kind == "TimeLimit":
        return f"first call {first}"
    match = re.search(r'function "([^"]+)" is not yet implemented', first)
    if match:
        return f"no reverse rule for {match.group(1)}"
    match = re.match(r"(no derivative rule for \S+)", first)
    if match:
        return match.group(1)
    if "could not be broadcast" in first:
        return f"{kind}: shapes do not broadcast"
    first = first if len(first) <= 50 else first[:47] + "..."
    return f"{kind}: {first}" if first else kind


def check(result, convert, hand, tolerance=None) -> tuple[bool, str]:
    rtol, atol = tolerance or (RTOL, ATOL)
    try:
        got = convert(result)
    except Exception as exc:   # noqa: BLE001
        return False, f"cannot read its result: {short_reason(exc)}"
    if len(got) != len(hand):
        return False, f"{len(got)} gradients, expected {len(hand)}"
    for k, (a, b) in enumerate(zip(got, hand)):
        b = np.asarray(b, dtype=np.float64)
        if a.shape != b.shape:
            return False, f"gradient {k}: shape {a.shape}, expected {b.shape}"
        if not np.allclose(a, b, rtol=rtol, atol=atol):
            err = float(np.max(np.abs(a - b)))
            return False, f"gradient {k} differs from the hand-written one (max abs err {err:.3g})"
    return True, ""


def prepare_tool(tool, workload, args, hand, log, limit_s):
    """Prepare, run once, check against the hand-written gradient. Never raises
    (but KeyboardInterrupt): returns the table cell and the call to time, or None."""
    cell = {"tool": tool.name}
    try:
        with time_limit(limit_s):
            prepared = tool.prepare(workload, args)
            result = prepared.call()
    except Exception as exc:   # noqa: BLE001  (a peer that cannot run a workload is data)
        cell.update(status="n/a", reason=short_reason(exc),
                    detail="".join(traceback.format_exception_only(type(exc), exc)).strip())
        log(f"    {tool.name:10s} n/a: {cell['reason']}")
        return cell, None
    if prepared.build_s is not None:
        cell["build_s"] = prepared.build_s
    ok, why = check(result, prepared.convert, hand, workload.tolerance)
    if not ok:
        cell.update(status="wrong", reason="wrong gradient", detail=why)
        log(f"    {tool.name:10s} WRONG: {why}")
        return cell, None
    cell["status"] = "ok"
    if prepared.memory:
        cell["peak_bytes"] = peak_memory(prepared.call)
    return cell, prepared.call


def run_workload(workload, tools, settings, quick, builds, log, limit_s) -> dict:
    """Check every tool, then time them all, interleaved (see timing.measure_interleaved)."""
    rng = np.random.default_rng(0)
    args = workload.make_args(rng, quick)
    log(f"{workload.name}: {workload.title}")
    row = {"name": workload.name, "title": workload.title, "cells": {}}
    f_call = lambda: workload.f(*args)            # noqa: E731
    hand_call = lambda: workload.grad_hand(*args)  # noqa: E731
    f_call()
    hand = tuple(np.asarray(h, dtype=np.float64) for h in hand_call())
    row["f_peak_bytes"] = peak_memory(f_call)
    row["hand_peak_bytes"] = peak_memory(hand_call)
    calls = {"function": f_call, "hand": hand_call}
    s2sad_tool = tools[0]
    cell, call = prepare_tool(s2sad_tool, workload, args, hand, log, limit_s)
    if call is not None:
        calls["s2sad"] = call
        times = []
        while len(times) < builds and sum(times) < 5.0:   # fewer builds where they are slow
            times.append(s2sad_tool.build(workload, args, settings.clock))
        cell["build_s"] = statistics.median(times)
        cell["build_max_s"] = max(times)
        try:
            core = s2sad_tool.core(workload, args)
        except Exception:   # noqa: BLE001
            core = None
        if core is not None:
            calls["s2sad core"] = core
        try:
            row["source"] = s2sad_tool.source(workload, args)
        except Exception:   # noqa: BLE001
            pass
    row["cells"]["s2sad"] = cell
    for tool in tools[1:]:
        row["cells"][tool.name], call = prepare_tool(tool, workload, args, hand, log, limit_s)
        if call is not None:
            calls[tool.name] = call
    samples = measure_rounds(calls, settings)
    times = {name: statistics.median(values) for name, values in samples.items()}
    row["f_s"] = times["function"]
    row["hand_s"] = times["hand"]
    if "s2sad" in times:
        cell["time_s"] = times["s2sad"]
        cell["vs_hand"] = paired_ratio(samples["s2sad"], samples["hand"])
    if "s2sad core" in times:
        cell["core_s"] = times["s2sad core"]
    for tool in tools[1:]:
        if tool.name in times:
            row["cells"][tool.name]["time_s"] = times[tool.name]
            if "s2sad" in samples:  # (side by side, round by round, as against the hand's)
                row["cells"][tool.name]["s2sad_over"] = paired_ratio(samples["s2sad"],
                                                                     samples[tool.name])
    for name, t in times.items():
        log(f"    {name:10s} {t * 1e6:12.1f} us")
    return row


def run_small(workload, settings, log) -> dict | None:
    """s2sad and the hand-written gradient at the workload's small (``--quick``) sizes,
    timed side by side as ``run_workload`` times them: where per-call costs show."""
    rng = np.random.default_rng(0)
    args = workload.make_args(rng, True)
    hand = tuple(np.asarray(h, dtype=np.float64) for h in workload.grad_hand(*args))
    tool = peers_mod.S2sad()
    try:
        prepared = tool.prepare(workload, args)
        result = prepared.call()
    except Exception as exc:   # noqa: BLE001
        return {"status": "n/a", "reason": short_reason(exc)}
    ok, why = check(result, prepared.convert, hand, workload.tolerance)
    if not ok:
        return {"status": "wrong", "reason": "wrong gradient", "detail": why}
    samples = measure_rounds({"hand": lambda: workload.grad_hand(*args),
                              "s2sad": prepared.call}, settings)
    small = {"status": "ok", "hand_s": statistics.median(samples["hand"]),
             "time_s": statistics.median(samples["s2sad"]),
             "vs_hand": paired_ratio(samples["s2sad"], samples["hand"])}
    log(f"    small sizes: s2sad / hand {small['vs_hand']:.2f}")
    return small


def small_cell(row) -> str:
    """The table cell of s2sad / hand at the small sizes."""
    small = row.get("small")
    if small is None:
        return "–"
    if small["status"] != "ok":
        return na_cell(small)
    return f"{small['vs_hand']:.2f} {mark(small['vs_hand'] <= TARGET_VS_HAND)}"


# ---------------------------------------------------------------------------- sections

# The benchmarks that also run on their own command line, each a section of the results:
# (its key in results.json, its --no-* flag, the module it needs installed)
SECTIONS = [("numba", "numba", "numba"), ("tight loops", "tight", None),
            ("dask", "dask", "dask")]


def _keeps(keys: list, section: str):
    """Which of a section's workloads ``--only`` picks: all where a key names the section
    (``--only numba``) or there is no ``--only``, else those a key is a substring of."""
    if not keys or any(k in section for k in keys):
        return None
    return lambda name: any(k in name.lower() for k in keys)


def run_numba(quick: bool, keep) -> dict:
    from . import numba_target
    rows = numba_target.run(quick, keep)
    return {"rows": [{"workload": name, "time_s": times,
                      "first_call_s": {"hand": compiles[0], "s2sad": compiles[1],
                                       "jax": compiles[2]},
                      "vs_hand_numba": times["s2sad (numba)"] / times["hand (numba)"],
                      "speed_up": times["hand (Python)"] / times["s2sad (numba)"],
                      "vs_jax": times["s2sad (numba)"] / times[numba_target.JAX]
                      if numba_target.JAX in times else None, "jax_note": jax_note}
                     for name, times, compiles, jax_note in rows],
            "table": numba_target.table(rows) if rows else ""}


def run_tight(settings, quick: bool, keep) -> dict:
    from . import tight_loops
    rows = tight_loops.measure(dataclasses.replace(
        settings if quick else tight_loops.SETTINGS, clock=settings.clock), keep)
    return {"rows": [{k: v for k, v in r.items() if k != "source"} for r in rows],
            "table": tight_loops.render(rows) if rows else ""}


def run_dask(quick: bool, keep) -> dict:
    from . import dask_gradients as dg
    rows, chunk, gmm_rows, gmm_chunk, repeat = (20_000, 5_000, 2_000, 500, 2) if quick else \
        (dg.ROWS, dg.CHUNK, dg.GMM_ROWS, dg.GMM_CHUNK, dg.REPEAT)
    results = dg.measure(rows, chunk, repeat, keep)
    if keep is None or keep(dg.GMM_NAME):
        results.append(dg.measure_gmm(gmm_rows, gmm_chunk, repeat))
    return {"rows": results, "table": dg.table(results) if results else ""}


def run_section(key: str, needs: str | None, skip_flag: bool, run, log) -> dict:
    """One section's results: ``status`` ok, "not run" (its ``--no-*`` flag), skipped
    (what it needs is not installed) or failed, with a ``reason``; its rows and table."""
    if skip_flag:
        return {"status": "not run", "reason": f"`--no-{key.split()[0]}`"}
    if needs:
        try:
            __import__(needs)
            if needs == "dask":
                import dask.array  # noqa: F401
        except Exception as exc:   # noqa: BLE001
            log(f"skipping the {key} section: {needs} is not installed ({short_reason(exc)})")
            return {"status": "skipped",
                    "reason": f"{needs} is not installed ({short_reason(exc)})"}
    log(f"{key} ...")
    try:
        out = run()
    except Exception as exc:   # noqa: BLE001  (a section that fails is reported, not fatal)
        log(f"    the {key} section failed: "
            + "".join(traceback.format_exception_only(type(exc), exc)).strip())
        return {"status": "failed", "reason": short_reason(exc),
                "detail": "".join(traceback.format_exception_only(type(exc), exc)).strip()}
    if not out["rows"]:
        return {"status": "not run", "reason": "no workload of it matches `--only`"}
    log(out["table"])
    return {"status": "ok", **out}


def render_sections(sections: dict) -> list[str]:
    """The Markdown of the numba, tight-loop and Dask sections."""
    from .dask_gradients import TARGET as DASK_TARGET
    from .numba_target import TARGET as NUMBA_TARGET
    from .tight_loops import TARGET as TIGHT_TARGET
    texts = {
        "numba": ("s2sad's gradient compiled by numba (`target=\"numba\"`)",
                  ("`benchmarks/numba_target.py`: s2sad's gradient with `target=\"numba\"` "
                   "against the same gradient written by hand and compiled with `numba.njit`, "
                   "and both against the hand-written gradient in Python (and s2sad's NumPy "
                   "gradient), and against `jax.jit(jax.grad(...))` of the workload written "
                   "with `lax.fori_loop`/`lax.scan` (float64, XLA on one thread; left out "
                   "where JAX is not installed); time per call after a first call, which "
                   "compiles (its time in the last column). Target: s2sad's numba gradient "
                   f"within {NUMBA_TARGET}× of the hand-written numba gradient, and faster "
                   "than JAX where JAX takes the loop; the speed-up over the hand-written "
                   "Python gradient is reported."),
                  "vs_hand_numba", NUMBA_TARGET, "s2sad numba / hand numba"),
        "tight loops": ("Tight scalar loops in pure Python",
                        ("`benchmarks/tight_loops.py`: s2sad's pure-Python gradient of tight "
                         "scalar loops against the hand-written Python gradient, timed side by "
                         "side in paired rounds; *code only* is the generated function without "
                         "the entry's check of the argument kinds. Target: within "
                         f"{TIGHT_TARGET}× of the hand-written gradient (code only)."),
                        "code_vs_hand", TIGHT_TARGET, "code only / hand"),
        "dask": ("s2sad on Dask arrays",
                 ("`benchmarks/dask_gradients.py` at its default sizes (smaller with "
                  "`--quick`; the 2·10^6-row and out-of-core runs stay opt-in flags of that "
                  "module): s2sad's gradient on Dask arrays "
                  "(one `dask.compute`) against the hand-written Dask gradient, and both on the "
                  "same data as NumPy arrays; threaded scheduler, the median of paired rounds' "
                  f"ratios. Target: s2sad within {DASK_TARGET}× of the hand-written Dask "
                  "gradient."), "dask_ratio", DASK_TARGET, "s2sad on Dask / hand on Dask"),
    }
    out = []
    for key, result in sections.items():
        title, sentence, ratio, target, what = texts[key]
        out += ["", f"## {title}", "", sentence, ""]
        if result["status"] != "ok":
            out.append(f"Not run: {result['reason']}." if result["status"] == "not run" else
                       f"Skipped: {result['reason']}." if result["status"] == "skipped" else
                       f"Failed: {result.get('detail', result['reason'])}")
            continue
        out += [result["table"], ""]
        values = {r["workload"] if "workload" in r else r["name"]: r[ratio]
                  for r in result["rows"]}
        values = {k: v[1] if isinstance(v, tuple | list) else v for k, v in values.items()}
        missing = [f"{k} {v:.2f}" for k, v in values.items() if v > target]
        out.append(f"Within {target}× ({what}): {mark(not missing)} "
                   f"{len(values) - len(missing)} of {len(values)}"
                   + (f" (missing: {', '.join(missing)})" if missing else "") + ".")
    return out


# ---------------------------------------------------------------------------- machine

def machine_info(tools, skipped) -> dict:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        cpu = platform.processor() or "unknown"
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    import s2sad
    where = os.path.dirname(os.path.dirname(os.path.abspath(s2sad.__file__)))
    git = os.environ.get("S2SAD_BENCH_SOURCE_LABEL")
    if not git:
        try:
            head = subprocess.run(["git", "-C", where, "rev-parse", "--short", "HEAD"],
                                  capture_output=True, text=True, timeout=10).stdout.strip()
            dirty = subprocess.run(["git", "-C", where, "status", "--porcelain", "--", "s2sad"],
                                   capture_output=True, text=True, timeout=10).stdout.strip()
            git = f"git {head}" + (" + uncommitted changes in s2sad/" if dirty else "") \
                if head else None
        except (OSError, subprocess.SubprocessError):
            pass
    git = f"{where}/s2sad" + (f" ({git})" if git else "")
    for tool in tools:
        versions.update({k: v for k, v in tool.versions().items() if v})
    mpl = peers_mod.dist_version("matplotlib")
    if mpl:
        versions["matplotlib"] = mpl
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return {"cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform(), "load": load,
            "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
            "versions": versions, "git": git, "skipped": skipped,
            "threads": {k: os.environ.get(k) for k in PINNED}}


# ---------------------------------------------------------------------------- report

def fmt_time(seconds: float) -> str:
    if seconds >= 1.0:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def fmt_ratio(x: float) -> str:
    return f"{x:.3g}×" if x < 1000 else f"{x:,.0f}×"


def fmt_bytes(n: int | None) -> str:
    if n is None:
        return "–"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.1f} KiB"
    return f"{n} B"


def mark(ok: bool | None) -> str:
    return "–" if ok is None else ("✅" if ok else "❌")


def na_cell(cell) -> str:
    if cell["status"] == "wrong":
        return "❌ wrong gradient"
    return f"n/a: {cell['reason']}"


def _over(s2sad_cell, peer_cell) -> float:
    """s2sad's time over a peer's: the median of the ratios of samples taken side by side
    (where the run has them), else of the medians."""
    return peer_cell.get("s2sad_over", s2sad_cell["time_s"] / peer_cell["time_s"])


def targets(row) -> dict:
    s = row["cells"]["s2sad"]
    if s["status"] != "ok":
        return {"vs_hand": None, "peers": None, "build": None}
    peer_ratios = [_over(s, c) for name, c in row["cells"].items()
                   if name != "s2sad" and c["status"] == "ok"]
    return {"vs_hand": s["vs_hand"] <= TARGET_VS_HAND,
            "peers": all(r < 1.0 for r in peer_ratios) if peer_ratios else None,
            # the build is what the first call costs beyond a steady-state call: a gradient
            # that itself runs 40 ms (elementwise 1e6) cannot make a first call under 50 ms
            "build": max(s["build_s"] - s["time_s"], 0.0) < TARGET_BUILD_S}


def render(rows, scaling, info, tool_names, settings, quick, elapsed, checkpoint=None,
           sections=None) -> str:
    v = info["versions"]
    clock_name = "process CPU time (`time.process_time`)" if settings.clock is time.process_time \
        else "wall-clock time (`time.perf_counter`)"
    out = ["# s2sad benchmark results", ""]
    if quick:
        out += ["**Quick mode** (`--quick`): small sizes, few repetitions; not for reporting.", ""]
    out += [
        f"- **Date**: {info['date']}; whole run {elapsed:.0f} s",
        f"- **Machine**: {info['cpu']}, {info['cores']} logical CPUs; {info['platform']}"
        + (f"; load average {info['load_start']:.2f} at the start, {info['load']:.2f} at the "
           f"end (1 min)" if info.get("load") is not None else ""),
        "- **Threads**: one process; BLAS/OpenMP/XLA pinned to 1 thread "
        "(`OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1`, XLA intra-op 1), "
        "`torch.set_num_threads(1)`",
        "- **Versions**: " + ", ".join(f"{k} {val}" for k, val in v.items()),
        f"- **s2sad source**: {info['git']}",
        f"- **Timing**: {clock_name}; median of up to {settings.repeat} samples (at least "
        f"{settings.min_repeat}, fewer for slow calls: about {settings.budget:g} s per "
        f"measurement), each sample looping the call until it takes ≥ "
        f"{settings.min_time * 1e3:g} ms (timeit-style, GC off); the samples of a "
        f"workload's function, hand-written gradient and tools are taken round-robin (each "
        f"round in an order of its own, seeded), so that load from other processes, and the "
        f"state one call leaves the next, fall on all alike. Every gradient is checked "
        f"against the hand-written one ("
        + "; ".join([f"`np.allclose`, rtol {RTOL:g}, atol {ATOL:g}"] + [
            f"{w.name}, as accurate as its integration: rtol {w.tolerance[0]:g}, atol "
            f"{w.tolerance[1]:g}" for w in all_workloads() if w.tolerance])
        + ") before it is timed. JAX runs in float64 (`jax_enable_x64`), PyTorch in float64.",
    ]
    if info["skipped"]:
        out.append("- **Peers skipped** (not installed; `pip install -e '.[bench]'`): "
                   + "; ".join(f"{k}: {r}" for k, r in info["skipped"].items()))
    out += ["", "## Gradient time, as a multiple of the function's time (lower is better)", "",
            f"Targets (reported, not asserted): s2sad within {TARGET_VS_HAND}× of the "
            f"hand-written gradient; faster than every peer that runs the workload.", ""]
    both = any("small" in row for row in rows)
    header = ["workload", "function", "hand-written", "s2sad",
              f"s2sad / hand² ≤ {TARGET_VS_HAND}"] + \
        (["s2sad / hand, small sizes³"] if both else []) + ["s2sad code only¹"] + tool_names \
        + ["s2sad beats all peers"]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "|".join(["---"] + ["---:"] * (len(header) - 2) + [":---:"]) + "|")
    for row in rows:
        s = row["cells"]["s2sad"]
        t = targets(row)
        cells = [row["name"], fmt_time(row["f_s"]), fmt_ratio(row["hand_s"] / row["f_s"])]
        if s["status"] == "ok":
            cells += [fmt_ratio(s["time_s"] / row["f_s"]),
                      f"{s['vs_hand']:.2f} {mark(t['vs_hand'])}"] + \
                ([small_cell(row)] if both else []) + \
                [fmt_ratio(s["core_s"] / row["f_s"]) if "core_s" in s else "–"]
        else:
            cells += [na_cell(s), "–"] + ([small_cell(row)] if both else []) + ["–"]
        for name in tool_names:
            c = row["cells"][name]
            cells.append(fmt_ratio(c["time_s"] / row["f_s"]) if c["status"] == "ok"
                         else na_cell(c))
        losers = [name for name in tool_names if row["cells"][name]["status"] == "ok"
                  and s["status"] == "ok" and _over(s, row["cells"][name]) >= 1.0]
        cells.append(mark(t["peers"]) + (f" (slower than {', '.join(losers)})" if losers else ""))
        out.append("| " + " | ".join(cells) + " |")

    out += ["", "¹ the generated function called directly, without the gradient object's "
            "per-call work (the entry's checks of the argument kinds; for a variant that "
            "reads module globals, their refresh): what the "
            "generated code itself costs.", "",
            "² the median, over the rounds of samples, of s2sad's sample divided by the "
            "hand-written gradient's sample of the same round (the two are taken one after "
            "the other): the machine's drift in speed cancels within a round. The other "
            "columns are medians over the whole run, so this ratio may differ a little from "
            "the quotient of the s2sad and hand-written columns. *s2sad beats all peers* is "
            "decided the same way: the median, over the rounds, of s2sad's sample over each "
            "peer's.", ""] + ([
            "³ the same ratio with the workload's small (`--quick`) sizes, measured in the "
            "same run: where the arrays are small, per-call costs (the entry's checks, "
            "helper calls) weigh most.", ""] if both else []) + [
            "## Absolute gradient times", "",
            "| " + " | ".join(["workload", "function", "hand-written", "s2sad",
                               "s2sad code only¹"] + tool_names) + " |",
            "|---|" + "---:|" * (4 + len(tool_names))]
    for row in rows:
        s = row["cells"]["s2sad"]
        cells = [row["name"], fmt_time(row["f_s"]), fmt_time(row["hand_s"]),
                 fmt_time(s["time_s"]) if s["status"] == "ok" else "n/a",
                 fmt_time(s["core_s"]) if "core_s" in s else "–"]
        for name in tool_names:
            c = row["cells"][name]
            cells.append(fmt_time(c["time_s"]) if c["status"] == "ok" else "n/a")
        out.append("| " + " | ".join(cells) + " |")

    mem_tools = ["s2sad"] + [n for n in tool_names if n in ("autograd", "tangent")]
    out += ["", "## Build time and peak memory", "",
            f"s2sad first call: from `s2sad.grad(f)` on a fresh function object to its first "
            f"result (parse, transform, compile, one run), median of the builds; build = the "
            f"first call minus one steady-state gradient call (parse, transform, compile); "
            f"target: build < {TARGET_BUILD_S * 1e3:.0f} ms. tangent: `tangent.grad` + first call. JAX jit: the "
            f"first call (trace + XLA compile). Peak memory: tracemalloc peak during one "
            f"call (NumPy buffers included; JAX and PyTorch allocate outside tracemalloc's "
            f"view, so they are not shown).", "",
            "| workload | s2sad first call (build) | build < 50 ms | tangent build | "
            "JAX jit first call | "
            "peak mem: function | hand-written | " + " | ".join(mem_tools) + " |",
            "|---|---:|:---:|---:|---:|---:|---:|" + "---:|" * len(mem_tools)]
    for row in rows:
        s = row["cells"]["s2sad"]
        t = targets(row)
        cells = [row["name"]]
        cells += [f"{s['build_s'] * 1e3:.1f} ms ("
                  f"{max(s['build_s'] - s['time_s'], 0.0) * 1e3:.1f} ms)", mark(t["build"])] \
            if s["status"] == "ok" else ["n/a", "–"]
        for name in ("tangent", "JAX jit"):
            c = row["cells"].get(name)
            cells.append(f"{c['build_s'] * 1e3:.0f} ms" if c and c.get("build_s") is not None
                         and c["status"] == "ok" else ("n/a" if c else "–"))
        cells += [fmt_bytes(row["f_peak_bytes"]), fmt_bytes(row["hand_peak_bytes"])]
        for name in mem_tools:
            c = row["cells"][name]
            cells.append(fmt_bytes(c.get("peak_bytes")) if c["status"] == "ok" else "n/a")
        out.append("| " + " | ".join(cells) + " |")

    if not scaling["rows"]:
        out += ["", "## s2sad build time of straight-line functions", "", "Not run "
                "(`--no-scaling`)."]
    else:
        out += ["", "## s2sad build time of straight-line functions", "",
                "Generated functions of N scalar statements (`sin`, `cos`, `+`, `-`, `*` on two "
                "Python floats), written to a temporary .py file and imported; build as above, "
                f"gradient with respect to both arguments. Growth exponent between consecutive "
                f"sizes: log(t2/t1) / log(N2/N1); roughly linear when the exponent from the "
                f"smallest to the largest size is ≤ {MAX_EXPONENT}.", "",
                "| statements | s2sad build | per statement | growth exponent | "
                "Python `compile()` of f | finite gradient |",
                "|---:|---:|---:|---:|---:|:---:|"]
    for r in scaling["rows"]:
        if "build_s" in r:
            e = r.get("exponent")
            cells = [fmt_time(r["build_s"]), fmt_time(r["build_s"] / r["n"]),
                     f"{e:.2f} {mark(e <= MAX_EXPONENT)}" if e is not None else "–"]
            finite = mark(r["finite"])
        elif "timeout_s" in r:
            e = r.get("exponent_at_least")
            cells = [f"> {r['timeout_s']:g} s (stopped)", "–",
                     f"> {e:.2f} ❌" if e is not None else "❌"]
            finite = "–"
        else:
            cells = [r["skipped"], "–", "–"]
            finite = "–"
        out.append(f"| {r['n']:,} | " + " | ".join(cells)
                   + f" | {fmt_time(r['python_compile_s'])} | {finite} |")
    if scaling["rows"]:
        timed = [r for r in scaling["rows"] if "build_s" in r]
        overall = scaling.get("overall")
        out += ["", f"Roughly linear growth: {mark(scaling['linear'])}" + (
            f" (growth exponent {overall:.2f} from {timed[0]['n']:,} to {timed[-1]['n']:,} "
            f"statements; target ≤ {MAX_EXPONENT})" if overall is not None else "")]
    out += render_checkpoint(checkpoint, fmt_time, fmt_bytes)
    out += render_sections(sections or {})

    details = [(row["name"], name, c) for row in rows for name, c in row["cells"].items()
               if c["status"] != "ok"]
    out += ["", "## Workloads", "",
            "Sources: `benchmarks/workloads/`; each module has the function, its hand-written "
            "gradient (`grad_*_hand`) and the PyTorch transcription where one is needed.", ""]
    for row in rows:
        out.append(f"- **{row['name']}**: {row['title']}")
    out += ["", "## How each tool runs them", "",
            "- **hand-written**: the module's `grad_*_hand`, NumPy / plain Python.",
            "- **s2sad**: `s2sad.grad(f, wrt=...)` on the workload's own source; timed through "
            "the returned `GradientFunction` (column *s2sad*) and as the bare generated "
            "function (*s2sad code only*).",
            "- **autograd**: `autograd.grad(f, argnum)` on the same source with `np` (and "
            "`sin`, `cos`, ...) rebound to `autograd.numpy`.",
            "- **JAX**: `jax.grad(f, argnums)` on the same source with `np` rebound to "
            "`jax.numpy`, float64, arrays (and lists) passed as `jax.Array`s, "
            "`block_until_ready` on the result. **JAX jit**: `jax.jit(jax.grad(...))`, whose "
            "first call (trace + compile) is reported as its build time.",
            "- **PyTorch**: the module's `torch_*` transcription (or the same source where it "
            "is plain arithmetic), float64 tensors; one call is forward + "
            "`torch.autograd.grad`.",
            "- **tangent** (tangent-ad): `tangent.grad(f, wrt=...)` on the NumPy source, with "
            "`math` functions rebound to NumPy's (tangent has no rules for `math.*`)."]
    if details:
        out += ["", "## Why a cell is n/a", ""]
        for wname, tname, c in details:
            text = " ".join(c.get("detail", c["reason"]).split()).replace(ROOT + os.sep, "")
            if len(text) > 400:
                text = text[:397] + "..."
            out.append(f"- **{wname} / {tname}**: {text}")
    out.append("")
    return "\n".join(out)


def render_sources(rows) -> str:
    out = ["# s2sad's generated gradients", "",
           "`s2sad.grad(f).source_for(*args)` for each workload, at the arguments timed.", ""]
    for row in rows:
        if row.get("source"):
            out += [f"## {row['name']}", "", "```python", row["source"].rstrip(), "```", ""]
    return "\n".join(out)


def chart(rows, scaling, tool_names, path) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    series = ["hand-written", "s2sad"] + tool_names
    if scaling["rows"]:
        fig, (ax, ax2) = plt.subplots(1, 2, figsize=(15, 5.5),
                                      gridspec_kw={"width_ratios": [3, 1]})
    else:
        fig, ax = plt.subplots(figsize=(11, 5.5))
        ax2 = None
    width = 0.8 / len(series)
    for k, name in enumerate(series):
        xs, ys = [], []
        for i, row in enumerate(rows):
            if name == "hand-written":
                value = row["hand_s"] / row["f_s"]
            else:
                c = row["cells"][name]
                if c["status"] != "ok":
                    ax.text(i + (k - len(series) / 2 + 0.5) * width, 1.0, "n/a", rotation=90,
                            ha="center", va="bottom", fontsize=7, color="grey")
                    continue
                value = c["time_s"] / row["f_s"]
            xs.append(i + (k - len(series) / 2 + 0.5) * width)
            ys.append(value)
        ax.bar(xs, ys, width, label=name)
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["name"] for r in rows], rotation=25, ha="right", fontsize=8)
    ax.set_ylabel("gradient time / function time")
    ax.set_title("Gradient cost relative to the function (log scale, lower is better)")
    ax.axhline(1.0, color="black", linewidth=0.5)
    ax.legend(fontsize=8, ncol=2)
    if ax2 is not None:
        timed = [r for r in scaling["rows"] if "build_s" in r]
        ns = [r["n"] for r in timed]
        ts = [r["build_s"] * 1e3 for r in timed]
        all_ns = [r["n"] for r in scaling["rows"]]
        if timed:
            ax2.loglog(ns, ts, "o-", label="s2sad build")
            ax2.loglog(all_ns, [ts[0] * n / ns[0] for n in all_ns], "--", color="grey",
                       label="linear")
        for r in scaling["rows"]:
            if "timeout_s" in r:
                ax2.loglog([r["n"]], [r["timeout_s"] * 1e3], "x", color="red", markersize=10,
                           label=f"stopped at {r['timeout_s']:g} s")
        ax2.set_xlabel("statements")
        ax2.set_ylabel("build time (ms)")
        ax2.set_title("Build time of straight-line code")
        ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------- main

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and few repetitions (smoke test)")
    parser.add_argument("--peers", default="all",
                        help="comma-separated: autograd,jax,jax-jit,torch,tangent; 'all' "
                             "(installed ones) or 'none'")
    parser.add_argument("--only", default="", help="comma-separated substrings of workload names")
    parser.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results"),
                        help="output folder (default benchmarks/results)")
    parser.add_argument("--build-limit", type=float, default=None,
                        help="seconds a tool's first call (build included) or one scaling "
                             "build may take before it is stopped "
                             "(default 60, 20 with --quick)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="cpu: process CPU time (default; robust to other processes on a "
                             "shared machine), wall: wall-clock time")
    parser.add_argument("--no-scaling", action="store_true",
                        help="skip the build-time scaling of straight-line functions")
    parser.add_argument("--no-checkpoint", action="store_true",
                        help="skip the checkpointing comparison (s2sad.checkpoint on a long loop)")
    parser.add_argument("--no-numba", action="store_true",
                        help="skip the numba section (benchmarks/numba_target.py)")
    parser.add_argument("--no-tight", action="store_true",
                        help="skip the tight-loop section (benchmarks/tight_loops.py)")
    parser.add_argument("--no-dask", action="store_true",
                        help="skip the Dask section (benchmarks/dask_gradients.py, at its "
                             "default sizes)")
    parser.add_argument("--no-chart", action="store_true", help="skip chart.png")
    parser.add_argument("--no-small", action="store_true",
                        help="skip the second measurement of s2sad and the hand-written "
                             "gradient at the small (--quick) sizes")
    args = parser.parse_args(argv)

    if args.build_limit is None:
        args.build_limit = 20.0 if args.quick else 60.0
    start = time.perf_counter()
    try:
        load_start = os.getloadavg()[0]
    except OSError:
        load_start = None
    settings = dataclasses.replace(QUICK if args.quick else FULL, clock={
        "cpu": time.process_time, "wall": time.perf_counter}[args.clock])
    builds = 1 if args.quick else 5
    wanted = set(peers_mod.PEER_NAMES.values()) if args.peers == "all" else \
        set() if args.peers == "none" else \
        {peers_mod.PEER_NAMES.get(p.strip(), p.strip()) for p in args.peers.split(",")}
    tools = [peers_mod.S2sad()]
    skipped = {}
    for peer in peers_mod.PEERS:
        if peer.name not in wanted:
            continue
        ok, why = peer.available()
        if ok:
            tools.append(peer)
        else:
            skipped[peer.name] = why
            print(f"skipping {peer.name}: {why}", flush=True)
    tool_names = [t.name for t in tools[1:]]

    def log(text):
        print(text, flush=True)

    workloads = all_workloads(args.quick)
    keys = [k.strip().lower() for k in args.only.split(",") if k.strip()]
    if keys:
        workloads = [w for w in workloads if any(k in w.name.lower() for k in keys)]
    rows = [run_workload(w, tools, settings, args.quick, builds, log, args.build_limit)
            for w in workloads]
    if not args.quick and not args.no_small:  # (both sizes in one run, side by side)
        small = {w.name: w for w in all_workloads(True)}
        for row in rows:
            if row["name"] in small:
                log(f"{row['name']}: small sizes")
                row["small"] = run_small(small[row["name"]], settings, log)
    scaling = {"rows": [], "exponents": [], "linear": None, "limit_s": args.build_limit}
    if not args.no_scaling:
        log("build-time scaling ...")
        scaling = build_scaling(args.quick, builds=1 if args.quick else 3,
                                limit_s=args.build_limit, clock=settings.clock)
    for r in scaling["rows"]:
        done = f"{r['build_s'] * 1e3:10.1f} ms" if "build_s" in r else \
            r.get("skipped", "stopped (time limit)")
        log(f"    {r['n']:6d} statements {done}")

    checkpoint = None
    if not args.no_checkpoint:
        log("checkpointing a long loop ...")
        checkpoint = checkpoint_comparison(settings, args.quick)
        log(f"    memory saved {checkpoint['saved']:.0%}, time paid x{checkpoint['paid']:.2f}")

    runs = {"numba": lambda keep: run_numba(args.quick, keep),
            "tight loops": lambda keep: run_tight(settings, args.quick, keep),
            "dask": lambda keep: run_dask(args.quick, keep)}
    sections = {key: run_section(key, needs, getattr(args, f"no_{flag}"),
                                 lambda key=key: runs[key](_keeps(keys, key)), log)
                for key, flag, needs in SECTIONS}

    info = machine_info(tools, skipped)
    info["load_start"] = load_start
    if load_start is None:
        info["load"] = None
    elapsed = time.perf_counter() - start
    os.makedirs(args.out, exist_ok=True)
    text = render(rows, scaling, info, tool_names, settings, args.quick, elapsed, checkpoint,
                  sections)
    with open(os.path.join(args.out, "results.md"), "w") as fh:
        fh.write(text)
    with open(os.path.join(args.out, "sources.md"), "w") as fh:
        fh.write(render_sources(rows))
    with open(os.path.join(args.out, "results.json"), "w") as fh:
        json.dump({"machine": info, "quick": args.quick, "rows": [
            {k: v for k, v in row.items() if k != "source"} for row in rows],
            "scaling": scaling, "checkpoint": checkpoint, "tools": tool_names,
            "sections": {key: {k: v for k, v in result.items() if k != "table"}
                         for key, result in sections.items()}}, fh, indent=1,
            default=str)
    drew = False if args.no_chart else chart(rows, scaling, tool_names,
                                             os.path.join(args.out, "chart.png"))
    if not drew and not args.no_chart:
        log("matplotlib is not installed: no chart.png")
    log(f"wrote {os.path.join(args.out, 'results.md')}" + (" and chart.png" if drew else "")
        + f" in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
