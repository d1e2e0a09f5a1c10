"""Smoke test of the benchmark suite: ``python -m pytest -q benchmarks/test_smoke.py``.

Runs the suite in quick mode (small sizes, few repetitions) in a subprocess,
as ``python -m benchmarks.run`` does, and checks what it writes. Peers, numba, Dask and
matplotlib are optional: what is not installed is skipped. Not part of the CI
test paths (pyproject's ``testpaths``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER_MODULES = {"autograd": "autograd", "jax": "JAX", "torch": "PyTorch", "tangent": "tangent"}
NO_SECTIONS = ("--no-numba", "--no-tight", "--no-dask")  # (the test below runs them)


def run_suite(out, *extra):
    done = subprocess.run([sys.executable, "-m", "benchmarks.run", "--quick", "--out", str(out),
                           *extra], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout, (out / "results.md").read_text(), \
        json.loads((out / "results.json").read_text())


def test_quick_suite_writes_the_table_and_the_chart(tmp_path):
    stdout, text, data = run_suite(tmp_path, "--peers", "none", *NO_SECTIONS)
    names = [row["name"] for row in data["rows"]]
    assert names == ["f4", "speelpenning (straight)", "speelpenning (loop)", "while loop", "MLP",
                     "RNN", "elementwise 1e6", "logistic regression", "GMM", "neural ODE", "GP"]
    for name in names:
        assert f"| {name} |" in text
    assert "**Machine**" in text and "**Versions**" in text
    assert all(v is not None for v in data["machine"]["threads"].values())   # BLAS pinned
    for row in data["rows"]:
        assert row["f_s"] > 0 and row["hand_s"] > 0
        cell = row["cells"]["s2sad"]
        # s2sad may not support a workload yet (n/a), but never returns a wrong gradient
        assert cell["status"] in ("ok", "n/a"), (row["name"], cell)
        if cell["status"] == "ok":
            assert cell["time_s"] > 0 and cell["build_s"] > 0
    assert [r["n"] for r in data["scaling"]["rows"]] == [10, 20, 40]
    checkpoint = data["checkpoint"]  # the checkpointed gradient records less
    assert checkpoint["checkpointed"]["peak_bytes"] < checkpoint["plain"]["peak_bytes"]
    assert "## Checkpointing a long loop" in text and "Memory saved" in text
    if importlib.util.find_spec("matplotlib"):
        assert (tmp_path / "chart.png").stat().st_size > 1000
    else:
        assert "no chart.png" in stdout
    for key, flag in (("numba", "--no-numba"), ("tight loops", "--no-tight"),
                      ("dask", "--no-dask")):
        assert data["sections"][key]["status"] == "not run"
        assert f"Not run: `{flag}`." in text


def _installed(*modules) -> bool:
    try:
        for module in modules:
            importlib.import_module(module)
    except Exception:   # noqa: BLE001
        return False
    return True


def test_quick_suite_runs_the_numba_tight_loop_and_dask_sections(tmp_path):
    """``--only`` picks the sections' workloads too: one each, the main table's while loop."""
    _, text, data = run_suite(tmp_path, "--peers", "none", "--only", "while,least squares",
                              "--no-scaling", "--no-checkpoint", "--no-chart")
    assert [row["name"] for row in data["rows"]] == ["while loop"]
    sections = data["sections"]
    expected = {"numba": (("numba",), ["while loop"], "## s2sad's gradient compiled by numba",
                          "within 1.5×"),
                "tight loops": ((), ["while loop (issue 38)"],
                                "## Tight scalar loops in pure Python", "within 1.15×"),
                "dask": (("dask", "dask.array"), ["least squares"], "## s2sad on Dask arrays",
                         "within 1.2×")}
    for key, (modules, names, title, target) in expected.items():
        assert title in text and target in text, key
        part = text.split(title, 1)[1].split("\n## ", 1)[0]
        if not _installed(*modules):
            assert sections[key]["status"] == "skipped", sections[key]
            assert f"Skipped: {modules[0]} is not installed" in part
            continue
        assert sections[key]["status"] == "ok", sections[key]
        got = [r.get("workload", r.get("name")) for r in sections[key]["rows"]]
        assert got == names, key
        assert all(f"| {name} |" in part for name in names), part
        assert "Within " in part


def test_quick_suite_with_the_installed_peers(tmp_path):
    installed = [label for module, label in PEER_MODULES.items()
                 if importlib.util.find_spec(module)]
    if not installed:
        pytest.skip("no peer installed (pip install -e '.[bench]')")
    _, text, data = run_suite(tmp_path, "--only", "f4,while", "--no-chart")
    header = next(line for line in text.splitlines() if line.startswith("| workload | function"))
    for label in installed:
        assert f" {label} |" in header
    for row in data["rows"]:
        for name, cell in row["cells"].items():
            assert cell["status"] in ("ok", "n/a"), (row["name"], name, cell)


def _finite_difference(f, args, i, rng, eps=1e-6, samples=8):
    """Central differences at a few coordinates of argument i: (indices, values)."""
    x = args[i]
    shape = np.shape(x)
    flat = np.array(x, dtype=np.float64).ravel()
    picks = rng.choice(flat.size, min(samples, flat.size), replace=False) if flat.size else []
    values = []
    for k in picks:
        def at(delta):
            moved = flat.copy()
            moved[k] += delta
            value = float(moved[0]) if isinstance(x, float) else \
                [float(v) for v in moved] if isinstance(x, list) else moved.reshape(shape)
            return f(*args[:i], value, *args[i + 1:])
        values.append((at(eps) - at(-eps)) / (2 * eps))
    return picks, np.array(values)


def test_hand_written_gradients_match_finite_differences():
    from benchmarks.workloads import all_workloads
    rng = np.random.default_rng(1)
    for workload in all_workloads(quick=True):
        args = workload.make_args(np.random.default_rng(0), True)
        hand = workload.grad_hand(*args)
        assert len(hand) == len(workload.wrt), workload.name
        # (an ODE's gradient is as accurate as its integration: the workload says how)
        rtol, atol = workload.tolerance or (1e-5, 1e-6)
        for g, i in zip(hand, workload.wrt):
            picks, fd = _finite_difference(workload.f, args, i, rng)
            got = np.asarray(g, dtype=np.float64).ravel()[picks]
            np.testing.assert_allclose(got, fd, rtol=rtol, atol=atol, err_msg=workload.name)


def test_build_times_gives_each_pass_and_analysis_and_the_calls():
    done = subprocess.run([sys.executable, "-m", "benchmarks.build_times", "--only", "f4",
                           "--builds", "1", "--passes", "--calls"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[1].startswith("f4 ") and lines[1].endswith(("yes", "NO"))
    assert any(line.startswith("f4 ") and line.endswith(" calls") for line in lines)
    passes = next(line for line in lines if line.startswith("f4: "))
    for part in ("normalize ", "reverse ", "kinds* ", "(outside passes) "):
        assert part in passes, passes


def test_build_times_counts_a_builds_bytecodes_the_same_each_time():
    runs = [subprocess.run([sys.executable, "-m", "benchmarks.build_times", "--only", "f4",
                            "--builds", "1", "--bytecodes"], cwd=ROOT, capture_output=True,
                           text=True, timeout=600, env={**os.environ, "PYTHONHASHSEED": "0"})
            for _ in range(2)]
    counts = []
    for done in runs:
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        line = next(x for x in done.stdout.splitlines() if x.endswith(" bytecodes"))
        counts.append(int(line.split()[1].replace(",", "")))
    assert counts[0] == counts[1] and counts[0] > 10_000, counts


def test_a_full_run_also_times_the_small_sizes_side_by_side():
    from benchmarks import run
    from benchmarks.timing import QUICK
    from benchmarks.workloads import all_workloads
    small = {w.name: w for w in all_workloads(True)}
    said = []
    cell = run.run_small(small["logistic regression"], QUICK, said.append)
    assert cell["status"] == "ok" and cell["vs_hand"] > 0 and cell["hand_s"] > 0, cell
    assert said and said[0].startswith("    small sizes: s2sad / hand ")
    row = {"small": cell}
    assert run.small_cell(row) == f"{cell['vs_hand']:.2f} " + run.mark(
        cell["vs_hand"] <= run.TARGET_VS_HAND)
    assert run.small_cell({}) == "–"
