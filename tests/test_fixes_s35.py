"""Session 35's fixes: an error of the generated code names the user's line on Python
3.10 too (which prints no exception notes); messages of refusals that a person meets first.

Tracebacks are read as Python prints them: a script runs in a subprocess (with no
``exceptiongroup`` imported, which would print notes on 3.10) and its standard error is
read.
"""

from __future__ import annotations

import inspect
import re
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


# --- 3. mistakes a person makes first: Python's error, or a located refusal ----------------

X3 = np.array([0.3, -0.5, 0.9])


def _central(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = eps
        g.flat[k] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def float_of_array(x):
    return float(x) * 2


def float_of_a_slice(x):
    return float(x[:2]) * 2


def item_of_array(x):
    return x.item() * 2


@pytest.mark.parametrize("f, error, one", [(float_of_array, TypeError, np.array(0.3)),
                                           (float_of_a_slice, TypeError, None),
                                           (item_of_array, ValueError, np.array([0.3]))],
                         ids=lambda v: getattr(v, "__name__", None))
def test_a_conversion_python_refuses_raises_at_the_users_line(f, error, one):
    with pytest.raises(error):
        f(X3.copy())
    with pytest.raises(error) as info:  # (it gave a gradient: the dead conversion went)
        s2sad.grad(f)(X3.copy())
    line = inspect.getsourcelines(f)[1] + 1
    assert any(f"{__file__}, line {line}:" in note for note in boundary.notes(info.value))
    if one is not None:  # (what Python converts: its gradient, checked)
        np.testing.assert_allclose(s2sad.grad(f)(one), _central(f, one), rtol=1e-6)


class Finalized:
    log: list = []

    def __init__(self, v):
        self.v = v

    def __del__(self):
        Finalized.log.append("gone")


class FinalizedChild(Finalized):
    pass


def with_a_finalizer(x):
    h = Finalized(x)
    return np.sum(h.v)


def with_an_inherited_finalizer(x):
    h = FinalizedChild(x * 2.0)
    return np.sum(h.v)


@pytest.mark.parametrize("f, name", [(with_a_finalizer, "Finalized"),
                                     (with_an_inherited_finalizer, "FinalizedChild")])
def test_an_object_whose_class_has_a_del_is_refused_where_it_is_made(f, name):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:  # (its __del__ never ran)
        s2sad.grad(f)(X3.copy())
    error = info.value
    assert error.filename == __file__ and error.lineno == inspect.getsourcelines(f)[1] + 1
    assert f"h = {name}(x" in error.text and error.text[error.offset - 1:].startswith(name)
    assert "__del__" in error.msg and "outside the function" in error.hint
    assert not re.search(r"\b[ts]_\w", error.msg + error.hint)  # (no name of s2sad's)


def starred_rest(x):
    a, *rest = x
    return a * np.sum(rest) + np.sum(rest) ** 2


def test_a_starred_rest_of_an_array_summed():
    got = s2sad.grad(starred_rest)(X3.copy())  # (pack_like read an array's truth value)
    np.testing.assert_allclose(got, _central(starred_rest, X3.copy()), rtol=1e-6)


def list_index(x):
    values = list(x)
    return values.index(x[1]) * np.sum(x)


def removed_method(x):  # (NumPy 2 has no ndarray.ptp: 2.2 keeps an attribute that raises)
    return x.ptp()


def test_a_method_of_a_list_without_a_rule_says_so():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(list_index)(X3.copy())
    error = info.value
    assert error.lineno == inspect.getsourcelines(list_index)[1] + 2
    assert "s2sad has no rule for the method list.index" in error.hint, error.hint
    assert "stop_gradient" in error.hint and "obj.method" not in error.hint  # (objects'
    # advice: a paragraph on classes of the user's, for a list)


def test_a_method_numpy_removed_is_named_as_missing_on_every_numpy():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(removed_method)(X3.copy())
    if callable(getattr(np.ndarray, "ptp", None)):  # (NumPy 1: the method, with no rule)
        assert "no rule for the method ndarray.ptp" in info.value.hint, info.value.hint
    else:
        assert "'x' has no method 'ptp'" in str(info.value), str(info.value)
