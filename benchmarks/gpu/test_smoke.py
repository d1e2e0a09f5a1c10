"""Smoke test of the GPU benchmark script, on the CPU emulation of CuPy (not part of the
CI paths): ``python -m pytest -q benchmarks/gpu/test_smoke.py``."""

import json
import subprocess
import sys

from benchmarks.gpu import run


def test_quick_run_on_the_emulation(tmp_path):
    assert run.main(["--emulate", "--quick", "--repeat", "3", "--warmup", "1",
                     "--out", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert len(results["rows"]) == 4
    for row in results["rows"]:
        assert row["peers"]["s2sad-cupy"]["agrees"] and row["peers"]["s2sad-numpy"]["agrees"]
    assert "EMULATED" in (tmp_path / "results.md").read_text()


def test_importing_needs_neither_cupy_nor_torch():
    code = ("import sys; sys.modules['cupy'] = sys.modules['torch'] = None; "
            "import benchmarks.gpu.run, benchmarks.gpu.workloads; "
            "sys.exit(benchmarks.gpu.run.main(['--quick']))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 2 and "pip install cupy-cuda12x" in result.stderr
