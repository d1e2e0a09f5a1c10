"""The command line, run as a user would, in a subprocess."""

import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import s2sad
from s2sad import cli
from s2sad.display import ansi_source, paint, use_color

ROOT = Path(__file__).resolve().parent.parent
ESC = "\x1b["


def environment(env=None) -> dict:
    """The caller's environment, without NO_COLOR unless given, finding this checkout's s2sad."""
    result = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    result.update(env or {})
    result["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return result


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "s2sad", *args], capture_output=True,
                          text=True, cwd=ROOT, env=environment(env), check=False)


def run_all(commands):
    """``run`` for each argument list, the processes running side by side."""
    processes = [subprocess.Popen([sys.executable, "-m", "s2sad", *args], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                  env=environment()) for args in commands]
    try:
        results = []
        for args, process in zip(commands, processes, strict=True):
            stdout, stderr = process.communicate(timeout=600)  # (a loaded machine is slow)
            results.append(subprocess.CompletedProcess(args, process.returncode, stdout, stderr))
        return results
    finally:  # (a process left running, after a timeout, is stopped and its pipes closed)
        for process in processes:
            if process.poll() is None:
                process.kill()
            for pipe in (process.stdout, process.stderr):
                if not pipe.closed:
                    pipe.close()
            process.wait()


def run_on_a_terminal(*args, env=None) -> str:
    """What the command prints when its standard output is a terminal (a pseudo-terminal)."""
    pty = pytest.importorskip("pty")
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "s2sad", *args], stdout=follower,
                               stderr=subprocess.PIPE, cwd=ROOT, env=environment(env))
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=60) == 0, process.stderr.read()
    process.stderr.close()
    return b"".join(chunks).decode()


def higher_order_works() -> bool:
    def cube(x):
        return x * x * x
    try:
        return s2sad.grad(s2sad.grad(cube))(1.0) == 6.0
    except s2sad.S2sadError:
        return False


# --- show -------------------------------------------------------------------------------------


def test_show_prints_the_seeds_grad_f4():
    out = run("show", "examples/f4.py:f4", "--at", "[1.0, 2.0, 3.0, 4.0]", "--annotate",
              "--no-optimize")
    assert out.returncode == 0, out.stderr
    assert "def grad_f4(side_lengths):" in out.stdout
    assert '# Analyzing the line: "t_bcd = t_b * t_cd"\n    s_b += t_cd * s_bcd' in out.stdout
    assert ESC not in out.stdout  # not a terminal: no colour


def test_show_with_wrt_and_generic_source():
    out = run("show", "examples/f4.py:f4", "--wrt", "side_lengths")
    assert out.returncode == 0, out.stderr
    compile(out.stdout, "shown.py", "exec")  # valid Python


REGRESSION_AT = ("0.3, 0.2, np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 4.0]), "
                 "np.array([-3.0, -1.0, 1.0, 3.0, 5.0, 7.0])")


def test_show_wrt_by_name_index_repeated_and_comma_separated():
    path = "examples/eager.py:regression_loss"
    *both, only_b = run_all([("show", path, *wrt, "--at", REGRESSION_AT) for wrt in (
        ["--wrt", "w", "--wrt", "b"], ["--wrt", "0,b"], ["--wrt", "b"])])
    assert {out.stdout for out in both} == {both[0].stdout}
    source = both[0].stdout
    assert "def grad_regression_loss(w, b, real_x, real_y):" in source
    assert "s_w" in source and "s_b" in source
    assert only_b.stdout != source and "s_b" in only_b.stdout


def test_show_at_accepts_numpy_expressions_and_reads_integers_as_floats():
    out = run("show", "examples/eager.py:polynomial", "--at", "np.arange(4)")
    assert out.returncode == 0, out.stderr
    assert "def grad_polynomial(x):" in out.stdout


def test_show_target_numpy_and_cupy():
    numpy_out, cupy_out, bad = run_all([("show", "examples/mlp.py:loss", "--target", target)
                                        for target in ("numpy", "cupy", "tpu")])
    assert numpy_out.returncode == 0, numpy_out.stderr
    assert "np.tanh" in numpy_out.stdout
    assert cupy_out.returncode == 0, cupy_out.stderr  # no GPU needed to see the source
    assert "def grad_loss(params, X, Y):" in cupy_out.stdout
    assert bad.returncode == 2


def test_show_stages_prints_every_pass_that_changed_the_source():
    out = run("show", "examples/f4.py:f4", "--stages", "--at", "[1.0, 2.0, 3.0, 4.0]")
    assert out.returncode == 0, out.stderr
    stages = s2sad.grad(f4()).stages([1.0, 2.0, 3.0, 4.0])
    same = [i > 0 and text == stages[i - 1][1] for i, (_, text) in enumerate(stages)]
    changed = [name for (name, _), unchanged in zip(stages, same) if not unchanged]
    unchanged = [name for (name, _), unchanged in zip(stages, same) if unchanged]
    assert [line[len("# ---- after "):-len(" ----")] for line in out.stdout.splitlines()
            if line.startswith("# ---- after ")] == changed
    assert "reverse" in changed and unchanged
    assert out.stdout.splitlines()[-1] == \
        f"# (these passes changed nothing: {', '.join(unchanged)})"


def test_show_mode_forward_uses_jvp_or_says_it_is_not_available():
    out = run("show", "examples/eager.py:cube", "--mode", "forward", "--at", "1.0")
    if hasattr(s2sad, "jvp"):
        assert out.returncode == 0, out.stderr
        assert out.stdout == s2sad.jvp(cube()).source_for(1.0)
    else:
        assert out.returncode == 2
        assert "--mode forward is not available yet" in out.stderr


def test_show_order_nests_grad_or_says_it_is_not_available():
    second, first, plain = run_all([
        ("show", "examples/eager.py:cube", "--order", "2", "--at", "1.0"),
        ("show", "examples/eager.py:cube", "--order", "1"),
        ("show", "examples/eager.py:cube")])
    if higher_order_works():
        assert second.returncode == 0, second.stderr
        assert second.stdout == s2sad.grad(s2sad.grad(cube())).source_for(1.0)
    else:
        assert second.returncode == 2
        assert "--order 2 is not available yet" in second.stderr
    assert first.returncode == 0 and first.stdout == plain.stdout


# --- check ------------------------------------------------------------------------------------


def test_check_prints_value_gradient_and_difference():
    out = run("check", "examples/f4.py:f4", "--at", "[1, 2, 3, 4]")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "value:     100.0"
    assert lines[1] == "gradient:  [52.0, 38.0, 28.0, 22.0]"
    assert lines[2].startswith("largest difference from central finite differences: ")
    assert lines[2].endswith("tolerance 1e-05: ok")
    difference = float(lines[2].split(": ")[1].split()[0].rstrip(","))
    assert difference < 1e-8


def test_check_control_flow_and_several_wrt():
    out = run("check", "examples/eager.py:control_flow", "--at", "0.3")
    assert out.returncode == 0, out.stderr
    assert "gradient:  4096.0" in out.stdout
    out = run("check", "examples/eager.py:regression_loss", "--wrt", "w,b", "--at", REGRESSION_AT)
    assert out.returncode == 0, out.stderr
    assert "gradient wrt w:  -11.0" in out.stdout and "gradient wrt b:  -2.0" in out.stdout
    assert out.stdout.rstrip().endswith(": ok")


def test_check_exits_1_when_the_gradient_is_wrong(tmp_path):
    (tmp_path / "wrong.py").write_text(textwrap.dedent("""\
        import numpy as np
        import s2sad


        def halved(x):
            return x * 0.5


        @s2sad.defvjp(halved)
        def halved_adjoint(g, ans, x):
            return g  # wrong on purpose: should be g * 0.5


        def f(x):
            return np.sum(halved(x) ** 2)
        """))
    out = run("check", f"{tmp_path}/wrong.py:f", "--at", "np.array([1.0, 2.0])")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "MISMATCH" in out.stdout
    assert "(at x[1])" in out.stdout


def test_check_and_show_call_keyword_only_parameters_by_keyword(tmp_path):
    """``--at`` gives the positional values; a keyword-only parameter keeps its default
    and is passed by keyword (it was passed by position: a TypeError)."""
    (tmp_path / "kwonly.py").write_text(textwrap.dedent("""\
        import numpy as np


        def loss(w, x, *, reg=0.1):
            return np.sum((x @ w) ** 2) + reg * np.sum(w ** 2)
        """))
    at = ["--at", "np.ones(2), np.ones((3, 2))"]
    check, show, stages = run_all([["check", f"{tmp_path}/kwonly.py:loss", *at],
                                   ["show", f"{tmp_path}/kwonly.py:loss", *at],
                                   ["show", f"{tmp_path}/kwonly.py:loss", "--stages", *at]])
    assert check.returncode == 0 and "ok" in check.stdout, check.stdout + check.stderr
    assert "value:     12.2" in check.stdout
    assert show.returncode == 0 and "def grad_loss(w, x, *, reg):" in show.stdout, show.stderr
    assert stages.returncode == 0 and "# ---- after source ----" in stages.stdout, stages.stderr


# --- errors -----------------------------------------------------------------------------------


def test_errors_exit_2_with_a_located_message(tmp_path):
    (tmp_path / "broken.py").write_text("def f(x):\n    return x +\n")
    (tmp_path / "raises.py").write_text("import numpy as np\n\n\ndef f(x):\n"
                                        "    return np.sum(x) / undefined_name\n")
    cases = [
        (("show", "nope.py:f"), ["no such file: nope.py"]),
        (("show", "examples/f4.py"), ["expected FILE.py:FUNC"]),
        (("show", "examples/f4.py:missing"), ["no function 'missing'", "it defines: f4"]),
        (("show", "examples/f4.py:f4", "--wrt", "zz"), ["not an argument"]),
        (("show", "examples/f4.py:f4", "--at", "[1.0,"),
         ["--at must be a Python literal", "  [1.0,\n", "^"]),
        (("show", "examples/f4.py:f4", "--at", "nope(3)"), ["NameError"]),
        (("show", "examples/eager.py:regression_loss", "--at", "(1.0, 2.0)"),
         ["--at gives 2 values but regression_loss(w, b, real_x, real_y)"]),
        (("show", "tests/errors_cases.py:uses_with"),
         ["a `with` statement", "errors_cases.py\", line", "^"]),
        (("show", f"{tmp_path}/broken.py:f"), ["cannot import", "broken.py\", line 2"]),
        (("check", f"{tmp_path}/raises.py:f", "--at", "[1.0]"),
         ["f failed at --at", "raises.py\", line 5", "NameError"]),
        (("check", "examples/f4.py:f4"), ["--at"]),  # argparse: required
        (("show", "examples/eager.py:cube", "--order", "0"), ["--order must be 1 or more"]),
        (("show", "examples/eager.py:regression_loss", "--order", "2", "--wrt", "w,b"),
         ["--order needs a single --wrt"]),
    ]
    for (args, messages), out in zip(cases, run_all([args for args, _ in cases]), strict=True):
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        for message in messages:
            assert message in out.stderr, (args, message, out.stderr)
        assert "Traceback (most recent call last)" not in out.stderr, out.stderr


def test_the_examples_in_help_work():
    examples = [shlex.split(line.strip())[1:] for line in cli.EPILOG.splitlines()
                if line.startswith("  s2sad ")]
    assert len(examples) >= 8
    for args, out in zip(examples, run_all(examples), strict=True):
        needs = {"--order": higher_order_works(), "--mode": hasattr(s2sad, "jvp")}
        if all(available for option, available in needs.items() if option in args):
            assert out.returncode == 0, (args, out.stderr)
            assert out.stdout, args


def test_version_and_help():
    version = run("--version")
    assert version.returncode == 0
    assert version.stdout.strip() == f"s2sad {s2sad.__version__}"
    help_text = run("--help").stdout
    for text in ("show", "check", "examples (", "s2sad check examples/f4.py:f4", "NO_COLOR"):
        assert text in help_text
    show_help = run("show", "--help").stdout
    for option in ("--wrt", "--target", "--mode", "--order", "--annotate", "--no-optimize",
                   "--at", "--stages"):
        assert option in show_help
    assert "--eps" in run("check", "--help").stdout


# --- colour -----------------------------------------------------------------------------------


def test_colour_only_on_a_terminal_and_without_no_color():
    coloured = run_on_a_terminal("show", "examples/f4.py:f4")
    assert ESC in coloured
    assert "grad_f4" in coloured
    assert ESC not in run_on_a_terminal("show", "examples/f4.py:f4", env={"NO_COLOR": "1"})
    checked = run_on_a_terminal("check", "examples/f4.py:f4", "--at", "[1.0, 2.0, 3.0, 4.0]")
    assert paint("ok", "bold green") in checked
    piped = run("show", "examples/f4.py:f4", "--color", "always")
    assert ESC in piped.stdout


def test_use_color_and_paint(monkeypatch):
    class Terminal:
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(Terminal())
    with open(os.devnull, "w") as devnull:
        assert not use_color(devnull)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(Terminal())
    monkeypatch.setenv("NO_COLOR", "")  # empty means unset (no-color.org)
    assert use_color(Terminal())
    assert paint("x", "bold red") == "\x1b[1;31mx\x1b[0m"
    assert paint("x", "bold red", enabled=False) == "x"


def test_ansi_source_without_pygments_dims_comments(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygments", None)  # import pygments now fails
    text = "x = 1  # not a line comment\n    # a comment\n"
    assert ansi_source(text) == "x = 1  # not a line comment\n    " + paint("# a comment", "dim") \
        + "\n"


# --- helpers ----------------------------------------------------------------------------------


def example(module: str, name: str):
    """A function of examples/, loaded the way the command line loads it (from its file)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"_test_cli_{module}",
                                                  ROOT / "examples" / f"{module}.py")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return getattr(loaded, name)


def f4():
    return example("f4", "f4")


def cube():
    return example("eager", "cube")
