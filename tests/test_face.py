"""The face (issue 39): tracebacks without s2sad's frames, advice and carets where a
person reads them, a command line as strict as the API, and the package's metadata.

Tracebacks are read as Python prints them: a script runs in a subprocess and its
standard error is parsed (its frames, the caret's column, the advice).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import traceback
from pathlib import Path

import numpy as np
import pytest

import s2sad
from s2sad import boundary

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = str(ROOT / "s2sad")
ON_310 = sys.version_info < (3, 11)  # (a bare raise there keeps the frame that caught it)


def environment(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", boundary.VARIABLE)}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                        if p)
    env.update(extra)
    return env


def run_script(tmp_path, text: str, **env) -> subprocess.CompletedProcess:
    script = tmp_path / "user_code.py"
    script.write_text(textwrap.dedent(text))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, env=environment(**env), timeout=300, check=False)


def frames(stderr: str) -> list[tuple[str, int]]:
    """``(file, line)`` of each frame of the (last) traceback printed, in order."""
    text = stderr[stderr.rindex("Traceback (most recent call last):"):]
    body = text.split("\n", 1)[1]
    found = []
    for line in body.splitlines():
        if not line.startswith("  File "):  # (the located lines of a message are not
            if found and not line.startswith(" "):  # indented by two: they come after)
                break
            continue
        match = re.match(r'  File "([^"]+)", line (\d+)', line)
        found.append((match.group(1), int(match.group(2))))
    return found


def caret_column(stderr: str, text: str) -> tuple[int, int]:
    """``(column of the caret, column of text)`` in the shown source line holding
    ``text`` and the line under it (both counted in the line as shown)."""
    lines = stderr.splitlines()
    at = max(i for i, line in enumerate(lines) if text in line and
             i + 1 < len(lines) and lines[i + 1].strip().startswith("^"))
    return lines[at + 1].index("^"), lines[at].index(text)


def s2sad_frames(found) -> list:
    return [f for f in found if f[0].startswith(PACKAGE) or f[0].startswith("<s2sad entry")]


NO_RULE = """\
    import numpy as np
    import s2sad


    class Model:
        def loss(self, x):
            y = x * 2.0
            return np.sum(np.unwrap(y) * 3.0)


    s2sad.grad(Model().loss)(np.ones(3))
"""


# --- tracebacks -------------------------------------------------------------------------------


def test_a_compile_time_error_shows_the_users_call_and_line_not_the_compiler(tmp_path):
    out = run_script(tmp_path, NO_RULE)
    assert out.returncode == 1
    found = frames(out.stderr)
    assert found[0] == (str(tmp_path / "user_code.py"), 11), out.stderr  # the user's call
    assert len(s2sad_frames(found)) == (1 if ON_310 else 0), out.stderr
    assert "s2sad.errors.NoDerivativeError: no derivative rule for numpy.unwrap" in out.stderr
    assert f'File "{tmp_path / "user_code.py"}", line 8' in out.stderr  # the located line
    assert "Register one with @s2sad.defvjp" in out.stderr  # the advice
    caret, call = caret_column(out.stderr, "return np.sum(np.unwrap(y) * 3.0)")
    assert caret == call + len("return np.sum("), out.stderr  # under np.unwrap, in a method


def test_s2sad_traceback_full_shows_the_compilers_frames(tmp_path):
    out = run_script(tmp_path, NO_RULE, S2SAD_TRACEBACK="full")
    found = frames(out.stderr)
    assert len(s2sad_frames(found)) >= 10, out.stderr
    assert any(name.endswith(os.path.join("transforms", "reverse.py")) for name, _ in found)
    assert "Register one with @s2sad.defvjp" in out.stderr


def test_unsupported_syntax_prints_its_advice_and_the_calls_to_it(tmp_path):
    out = run_script(tmp_path, """\
        import s2sad


        def helper(v):
            with open("somewhere") as handle:
                pass
            return v * 2.0


        def loss(x):
            return helper(x) + 1.0


        s2sad.grad(loss)(1.0)
    """)
    assert out.returncode == 1
    assert len(s2sad_frames(frames(out.stderr))) == (1 if ON_310 else 0), out.stderr
    tail = out.stderr[out.stderr.index("s2sad.errors.UnsupportedSyntaxError"):]
    assert "s2sad does not support a `with` statement" in tail
    assert "explicit call before and after" in tail, out.stderr  # the advice, printed
    assert f'called from "{tmp_path / "user_code.py"}", line 11, in loss' in tail
    assert f'File "{tmp_path / "user_code.py"}", line 5' in out.stderr


def test_a_runtime_error_still_shows_the_generated_line_and_the_users(tmp_path):
    """(Printed by the traceback module, as IPython and Jupyter print it: Python's own
    printer at the top level of a script reads lines from files only.)"""
    out = run_script(tmp_path, """\
        import sys, traceback
        import numpy as np
        import s2sad


        def f(x):
            return np.sum(x * np.ones(2) @ np.ones(3))


        try:
            s2sad.grad(f)(1.0)
        except ValueError:
            traceback.print_exc()
            sys.exit(1)
    """)
    assert out.returncode == 1
    found = frames(out.stderr)
    assert found[0] == (str(tmp_path / "user_code.py"), 11)
    assert found[-1][0].startswith("<s2sad grad_f of "), out.stderr  # the generated code
    assert "matmul_grad_left(" in out.stderr  # its line, shown
    assert len(s2sad_frames(found)) == (1 if ON_310 else 0), out.stderr
    if not ON_310:  # (notes are printed from 3.11)
        assert f"comes from {tmp_path / 'user_code.py'}, line 7:\n" \
            "    return np.sum(x * np.ones(2) @ np.ones(3))" in out.stderr


def test_a_non_scalar_output_points_at_the_value_returned(tmp_path):
    out = run_script(tmp_path, """\
        import numpy as np
        import s2sad


        class Model:
            def loss(self, x):
                return   np.sin(x) * 2.0


        s2sad.grad(Model().loss)(np.ones(2))
    """)
    assert "NonScalarOutputError" in out.stderr
    caret, value = caret_column(out.stderr, "np.sin(x) * 2.0")
    assert caret == value, out.stderr


def test_the_caret_under_a_call_in_a_helper_indented_in_a_class(tmp_path):
    out = run_script(tmp_path, """\
        import numpy as np
        import s2sad


        class Helpers:
            @staticmethod
            def wrap(v):
                return 1.0 + np.unwrap(v)


        def loss(x):
            return np.sum(Helpers.wrap(x))


        s2sad.grad(loss)(np.ones(3))
    """)
    assert "no derivative rule for numpy.unwrap" in out.stderr, out.stderr
    caret, call = caret_column(out.stderr, "return 1.0 + np.unwrap(v)")
    assert caret == call + len("return 1.0 + "), out.stderr


def test_an_internal_error_keeps_the_frame_that_raised_it_with_a_note():
    namespace: dict = {}
    exec(compile("def broken(d):\n    return d['missing']\n",
                 os.path.join(PACKAGE, "not_a_module.py"), "exec"), namespace)
    entry = boundary.boundary(namespace["broken"])
    with pytest.raises(KeyError) as info:
        entry({})
    shown = [frame.filename for frame in traceback.extract_tb(info.value.__traceback__)]
    assert shown[-1].endswith("not_a_module.py")  # (a bug: where it happened stays)
    assert len([name for name in shown if name.startswith(PACKAGE)]) == (2 if ON_310 else 1)
    assert boundary.NOTE in boundary.notes(info.value)


def test_an_error_raised_on_purpose_by_s2sad_leaves_no_frame_of_its_own():
    def two(x, y):
        return x * y
    with pytest.raises(TypeError) as info:
        s2sad.grad(two)(1.0)  # (a missing argument: a TypeError s2sad raises itself)
    shown = [frame.filename for frame in traceback.extract_tb(info.value.__traceback__)]
    assert len([name for name in shown if name.startswith(PACKAGE)]) == (1 if ON_310 else 0)
    assert boundary.NOTE not in boundary.notes(info.value)


def test_filtering_keeps_the_users_frames_between():
    """A user's function that s2sad runs (check_grads calls it) keeps its frame."""
    def fails(x):
        return np.sqrt(x) + undefined_here  # noqa: F821

    with pytest.raises(NameError) as info:
        s2sad.check_grads(fails, (1.0,))
    shown = traceback.extract_tb(info.value.__traceback__)
    assert any(frame.name == "fails" for frame in shown)
    assert len([f for f in shown if f.filename.startswith(PACKAGE)]) == (1 if ON_310 else 0)


# --- the command line -------------------------------------------------------------------------


def cli(*args, cwd=ROOT, script=False):
    """``s2sad ARGS`` in a subprocess; ``script``: with the console script's sys.path
    (no current directory in it), as an installed ``s2sad`` runs."""
    code = "import os, sys\n" + \
        ("sys.path[:] = [p for p in sys.path if p not in ('', os.getcwd())]\n" if script
         else "") + f"from s2sad.cli import main\nsys.exit(main({list(args)!r}))\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, env=environment(), timeout=300, check=False)


VECTORS = """\
import numpy as np


def vector(x):
    return np.sin(x) * 2.0


def one(x):
    return np.sum(x ** 2)


class Model:
    def __init__(self, scale=3.0):
        self.scale = scale

    def loss(self, w):
        return np.sum(w ** 2) * self.scale

    @staticmethod
    def square(w):
        return w * w


class NeedsData:
    def __init__(self, data):
        self.data = data

    def loss(self, w):
        return w * 2.0


model = Model(5.0)
"""


@pytest.fixture
def vectors(tmp_path):
    (tmp_path / "vectors.py").write_text(VECTORS)
    return tmp_path / "vectors.py"


def test_check_and_show_refuse_a_vector_output_with_the_apis_error(vectors):
    commands = [("check", f"{vectors}:vector", "--at", "np.ones(2)"),
                ("show", f"{vectors}:vector", "--at", "np.ones(2)"),
                ("show", f"{vectors}:vector", "--at", "np.ones(2)", "--order", "2"),
                ("show", f"{vectors}:vector", "--at", "np.ones(2)", "--mode", "forward",
                 "--order", "2")]
    for args in commands:
        out = cli(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert not out.stdout, args  # (no code shown that fails)
        assert "grad needs a function that returns a scalar, but it returned an array of " \
               "shape (2,)" in out.stderr, (args, out.stderr)
        assert f'File "{vectors}", line 5' in out.stderr and "^" in out.stderr
        assert "TypeError" not in out.stderr
    forward = cli("show", f"{vectors}:vector", "--at", "np.ones(2)", "--mode", "forward")
    assert forward.returncode == 0, forward.stderr  # (a jvp takes any output)


def test_order_2_refuses_a_vector_gradient_as_the_api_does(vectors):
    out = cli("show", f"{vectors}:one", "--at", "np.ones(2)", "--order", "2")
    assert out.returncode == 2 and not out.stdout
    with pytest.raises(s2sad.NonScalarOutputError) as info:
        s2sad.grad(s2sad.grad(one_of(vectors)))(np.ones(2))
    assert str(info.value).splitlines()[0] in out.stderr
    scalar = cli("show", f"{vectors}:one", "--at", "1.5", "--order", "2")
    assert scalar.returncode == 0 and "def grad_grad_one(x):" in scalar.stdout


def one_of(path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("vectors_for_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.one


def test_a_tuple_at_for_a_one_argument_function_is_an_error(vectors):
    out = cli("show", f"{vectors}:one", "--at", "1.0, 2.0")
    assert out.returncode == 2 and not out.stdout
    assert "--at gives 2 values but one(x) cannot take them" in out.stderr
    assert "--at '((1.0, 2.0),)'" in out.stderr
    packed = cli("check", f"{vectors}:one", "--at", "(np.array([1.0, 2.0]),)")
    assert packed.returncode == 0, packed.stderr


def test_methods_by_class_and_by_object(vectors):
    by_class = cli("check", f"{vectors}:Model.loss", "--at", "np.array([1.0, 2.0])")
    assert by_class.returncode == 0, by_class.stderr
    assert "gradient:  [ 6., 12.]" in by_class.stdout  # Model(): scale 3
    by_object = cli("check", f"{vectors}:model.loss", "--at", "np.array([1.0, 2.0])")
    assert by_object.returncode == 0, by_object.stderr
    assert "gradient:  [10., 20.]" in by_object.stdout  # model = Model(5.0)
    static = cli("show", f"{vectors}:Model.square", "--at", "2.0")
    assert static.returncode == 0 and "def grad_square(w):" in static.stdout
    shown = cli("show", f"{vectors}:model.loss")
    assert shown.returncode == 0 and "def grad_loss(self, w):" in shown.stdout
    for args, words in [((f"{vectors}:NeedsData.loss",),
                         ["NeedsData.loss is a method", "NeedsData() cannot make an object",
                          "FILE.py:obj.loss"]),
                        ((f"{vectors}:Model.nope",), ["Model has no attribute 'nope'"]),
                        ((f"{vectors}:Nope.loss",), ["has no function 'Nope'"])]:
        out = cli("show", *args)
        assert out.returncode == 2, out.stdout
        for word in words:
            assert word in out.stderr, (word, out.stderr)


def test_module_func_is_found_in_the_current_directory(vectors):
    out = cli("check", "vectors:one", "--at", "np.array([1.0, 2.0])", cwd=vectors.parent,
              script=True)
    assert out.returncode == 0, out.stderr
    assert "gradient:  [2., 4.]" in out.stdout
    missing = cli("show", "no_such_module:f", cwd=vectors.parent, script=True)
    assert missing.returncode == 2 and "no such file or module: no_such_module" in \
        missing.stderr


def test_show_says_which_variant_it_prints(vectors):
    general = cli("show", f"{vectors}:one")
    assert general.stdout.splitlines()[0] == (
        "# The general variant, for arguments of any kind; --at gives the one specialized "
        "to example arguments.")
    assert general.stdout.split("\n", 1)[1] == s2sad.grad(one_of(vectors)).source
    specialized = cli("show", f"{vectors}:one", "--at", "np.ones(2)")
    assert not specialized.stdout.startswith("#")
    assert specialized.stdout == s2sad.grad(one_of(vectors)).source_for(np.ones(2))


def test_messages_end_in_no_dangling_colon(tmp_path, vectors):
    (tmp_path / "raises.py").write_text("import numpy as np\n\n\ndef f(x):\n"
                                        "    return np.sum(x) / undefined_name\n")
    (tmp_path / "broken_import.py").write_text("import numpy as np\nnp.nope()\n"
                                               "def f(x):\n    return x\n")
    (tmp_path / "bad_syntax.py").write_text("def f(x):\n    return x +\n")
    for args in [("check", f"{tmp_path}/raises.py:f", "--at", "[1.0]"),
                 ("show", f"{tmp_path}/broken_import.py:f"),
                 ("show", f"{tmp_path}/bad_syntax.py:f"),
                 ("check", f"{vectors}:vector", "--at", "np.ones(2)"),
                 ("show", f"{vectors}:one", "--at", "1.0, 2.0")]:
        out = cli(*args)
        assert out.returncode == 2, (args, out.stderr)
        lines = out.stderr.rstrip("\n").splitlines()
        for i, line in enumerate(lines):  # (a colon that ends a line says what follows)
            if line.rstrip().endswith(":"):
                assert i + 1 < len(lines) and lines[i + 1].startswith("    "), \
                    (args, out.stderr)
        assert not lines[-1].rstrip().endswith(":"), out.stderr


# --- the package --------------------------------------------------------------------------------


def test_the_namespace_holds_no_import_machinery():
    assert "version" not in dir(s2sad) and "PackageNotFoundError" not in dir(s2sad)
    assert isinstance(s2sad.__version__, str)


def test_metadata_lives_in_pyproject_with_an_spdx_license_and_the_extras():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^license = "MIT"$', pyproject, flags=re.MULTILINE)
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    assert '"py.typed"' in pyproject and (ROOT / "s2sad" / "py.typed").is_file()
    notebooks = re.search(r"^notebooks = \[(.*?)\]", pyproject, flags=re.MULTILINE | re.DOTALL)
    assert notebooks and all(name in notebooks.group(1) for name in (
        "jupyterlab", "ipykernel", "matplotlib", "scikit-learn"))
    assert "[metadata]" not in (ROOT / "setup.cfg").read_text()  # (one place: pyproject)
    assert (ROOT / "CHANGELOG.md").read_text().startswith("# Changelog")
