"""The command line, run as a user would, in a subprocess."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args):
    return subprocess.run([sys.executable, "-m", "s2sad", *args], capture_output=True, text=True,
                          cwd=ROOT)


def test_show_prints_the_seeds_grad_f4():
    out = run("show", "examples/f4.py:f4", "--at", "[1.0, 2.0, 3.0, 4.0]", "--annotate",
              "--no-optimize")
    assert out.returncode == 0, out.stderr
    assert "def grad_f4(side_lengths):" in out.stdout
    assert '# Analyzing the line: "t_bcd = t_b * t_cd"\n    s_b += t_cd * s_bcd' in out.stdout


def test_show_with_wrt_and_generic_source():
    out = run("show", "examples/f4.py:f4", "--wrt", "side_lengths")
    assert out.returncode == 0, out.stderr
    compile(out.stdout, "shown.py", "exec")  # valid Python


def test_errors_exit_non_zero_with_a_message():
    for args, message in [
        (("show", "nope.py:f"), "no such file"),
        (("show", "examples/f4.py:missing"), "no function 'missing'"),
        (("show", "examples/f4.py:f4", "--wrt", "zz"), "not an argument"),
        (("show", "examples/f4.py:f4", "--at", "[1.0,"), "--at must be a Python literal"),
        (("show", "tests/errors_cases.py:uses_with"), "errors_cases.py\", line"),
    ]:
        out = run(*args)
        assert out.returncode != 0, args
        assert message in out.stderr, (args, out.stderr)


def test_version_and_help():
    assert run("--version").stdout.startswith("s2sad ")
    assert "show" in run("--help").stdout
