"""Session 35's fixes: an error of the generated code names the user's line on Python
3.10 too (which prints no exception notes); messages of refusals that a person meets first.

Tracebacks are read as Python prints them: a script runs in a subprocess (with no
``exceptiongroup`` imported, which would print notes on 3.10) and its standard error is
read.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import s2sad
from s2sad import boundary

ROOT = Path(__file__).resolve().parent.parent


def _run(tmp_path, text: str) -> str:
    script = tmp_path / "user_code.py"
    script.write_text(textwrap.dedent(text))
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-I", "-c",
                          f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(tmp_path)!r}]; "
                          "import user_code"],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300,
                         check=False)
    assert "exceptiongroup" not in out.stdout  # (nothing printed notes for us)
    return out.stderr


# --- 1. Python 3.10: a run-time error of the generated code shows the user's line --------

@pytest.mark.parametrize("error, body, text", [
    ("ValueError", "z = y @ np.ones(3)", "z = y @ np.ones(3)"),
    ("ZeroDivisionError", "z = float(y[0]) / 0.0", "z = float(y[0]) / 0.0"),
    ("IndexError", "z = y[7] * 2", "z = y[7] * 2")])
def test_a_run_time_error_prints_the_users_file_line_and_text(tmp_path, error, body, text):
    err = _run(tmp_path, f"""\
        import numpy as np
        import s2sad

        def f(x):
            y = x * 2
            {body}
            return np.sum(z)

        s2sad.grad(f)(np.ones(2))
        """)
    last = err.strip().splitlines()
    at = next(i for i, line in enumerate(last) if line.startswith(error + ":"))
    shown = "\n".join(last[at:])
    assert f"comes from {tmp_path / 'user_code.py'}, line 6:\n    {text}" in shown, err
    assert "s2sad: in grad_f" in shown, err


def _divides(x):
    y = x * 2
    z = float(y[0]) / 0.0
    return z


def test_the_message_holds_the_note_once_and_the_type_and_traceback_stay():
    g = s2sad.grad(_divides)
    for _ in range(2):  # (the general path, then the variant's own entry)
        with pytest.raises(ZeroDivisionError) as info:
            g(np.ones(2))
        notes = boundary.notes(info.value)
        line = inspect.getsourcelines(_divides)[1] + 2
        assert len(notes) == 1 and f"{__file__}, line {line}:" in notes[0], notes
        assert type(info.value) is ZeroDivisionError
        assert info.value.__traceback__.tb_next is not None  # (the generated frame stays)
        if sys.version_info < (3, 11):
            assert str(info.value) == f"float division by zero\n{notes[0]}"
        else:
            assert str(info.value) == "float division by zero"
