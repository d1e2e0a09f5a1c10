"""Every operation in the table is differentiated right or refused at the user's line.

``tests/cases_operations.py`` holds the table: one small function per row, applying one
operation (a call, subscript, operator, cast, view- or mutation-making call) to a value
that depends on the differentiated argument. The checker differentiates each row in
three modes:

* ``grad``: ``s2sad.value_and_grad`` against central differences in float64 (a
  five-point stencil), and its value against the function itself;
* ``jvp``: ``s2sad.jvp`` along a fixed direction against the same differences;
* ``hess`` (rows of one float argument): ``grad(grad(f))`` against the second
  difference of ``f``.

A mode passes when the derivative is right, or when s2sad refuses with one of its own
errors (``s2sad.errors``) that names the file and line. A wrong derivative or value, a
refusal without a place, and any other exception (an internal error) fail. The rows
s2sad gets wrong today are in ``cases_operations.KNOWN`` with their root cause in issue
32: they are strict xfails, so a fix of a cause must take its rows out of ``KNOWN``.

Run ``python -m tests.test_operation_table`` to print every row's outcome per mode.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest

import s2sad
from s2sad.errors import S2sadError
from tests import cases_operations as C
from tests.numpy_deprecations import expect_fix_warning, let_fix_warning_through

_DIR = Path(tempfile.mkdtemp(prefix="s2sad-ops-"))
_MODULES: dict[str, object] = {}
H1 = 1e-3          # step of the five-point first difference
H2 = 1e-3          # step of the five-point second difference
ATOL = 1e-7


def load(op: C.Op):
    """The row's module, written to a file (s2sad reads source) and imported once."""
    if op.id not in _MODULES:
        name = "s2sad_op_" + "".join(c if c.isalnum() else "_" for c in op.id)
        path = _DIR / f"{name}.py"
        path.write_text(op.source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _MODULES[op.id] = module
    return _MODULES[op.id]


def fresh(value):
    return value.copy() if isinstance(value, np.ndarray) else value


def call(f, x) -> float:
    return float(np.real(f(fresh(x))))


def along(f, x, direction, t: float) -> float:
    return call(f, x + t * direction)


def directional(f, x, direction, h: float = H1) -> float:
    """d/dt f(x + t * direction) at 0, five-point central difference."""
    return (-along(f, x, direction, 2 * h) + 8 * along(f, x, direction, h)
            - 8 * along(f, x, direction, -h) + along(f, x, direction, -2 * h)) / (12 * h)


def numeric_gradient(f, x):
    if not isinstance(x, np.ndarray):
        return directional(f, x, 1.0)
    grad = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = 1.0
        grad[k] = directional(f, x, e)
    return grad


def second_difference(f, x: float, h: float = H2) -> float:
    values = [call(f, x + k * h) for k in (-2, -1, 0, 1, 2)]
    return (-values[0] + 16 * values[1] - 30 * values[2] + 16 * values[3]
            - values[4]) / (12 * h * h)


def direction_for(x):
    if not isinstance(x, np.ndarray):
        return 1.0
    return np.linspace(0.6, -0.9, x.size).reshape(x.shape) + 0.05


class Wrong(AssertionError):
    """A derivative or value that is not the function's."""


def agree(got, want, rtol: float) -> bool:
    got = np.asarray(got, dtype=complex if np.iscomplexobj(got) else float)
    want = np.asarray(want, dtype=float)
    if got.shape != want.shape or np.iscomplexobj(got):
        return False
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    return bool(np.all(np.abs(got - want) <= ATOL + rtol * scale))


def check_grad(op: C.Op, f, x) -> None:
    value, grad = s2sad.value_and_grad(f)(fresh(x))
    want_value = call(f, x)
    if not agree(value, want_value, 1e-9):
        raise Wrong(f"value {value!r}, the function gives {want_value!r}")
    want = numeric_gradient(f, x)
    if not agree(grad, want, max(op.rtol, 1e-6)):
        raise Wrong(f"gradient {grad!r}, differences give {want!r}")


def check_jvp(op: C.Op, f, x) -> None:
    direction = direction_for(x)
    value, push = s2sad.jvp(f)(fresh(x))
    tangent = push(fresh(direction))
    want_value = call(f, x)
    if not agree(value, want_value, 1e-9):
        raise Wrong(f"jvp's value {value!r}, the function gives {want_value!r}")
    want = directional(f, x, direction)
    if not agree(tangent, want, max(op.rtol, 1e-6)):
        raise Wrong(f"tangent {tangent!r}, differences give {want!r}")


def check_hess(op: C.Op, f, x) -> None:
    got = s2sad.grad(s2sad.grad(f))(x)
    want = second_difference(f, x)
    if not agree(got, want, max(op.rtol, 1e-4)):
        raise Wrong(f"second derivative {got!r}, differences give {want!r}")


CHECKS = {"grad": check_grad, "jvp": check_jvp, "hess": check_hess}


def located(err: S2sadError, path: str) -> bool:
    """The refusal names the row's file and a line of it (directly or in its calls)."""
    places = [(getattr(err, "filename", None), getattr(err, "lineno", None))]
    places += [(frame[0], frame[1]) for frame in getattr(err, "calls", ()) or ()]
    return any(where == path and line for where, line in places)


def outcome(op: C.Op, mode: str) -> tuple[str, str]:
    """("right" | "refused" | "unlocated" | "wrong" | "internal", detail)."""
    module = load(op)
    f = module.f
    x = C.ARGS[op.arg]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            let_fix_warning_through(op.source)  # (NumPy 2.5's, the user's call's too)
            CHECKS[mode](op, f, x)
    except Wrong as exc:
        return "wrong", str(exc)
    except S2sadError as exc:
        if located(exc, module.__file__):
            return "refused", str(exc).split("\n")[0]
        return "unlocated", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001  (an internal error: what the test reports)
        return "internal", f"{type(exc).__name__}: {exc}"
    return "right", ""


def modes(op: C.Op) -> tuple[str, ...]:
    """Second order for rows of one float (not through float32: its rounding is all a
    second difference would see)."""
    return ("grad", "jvp", "hess") if op.scalar and op.rtol <= 1e-6 else ("grad", "jvp")


def params():
    for op in C.OPS:
        for mode in modes(op):
            marks = []
            known = C.KNOWN.get(f"{op.id}:{mode}")
            if known:
                marks.append(pytest.mark.xfail(strict=True, reason=known))
            yield pytest.param(op, mode, id=f"{op.id}:{mode}", marks=marks)


@pytest.mark.parametrize("op, mode", list(params()))
def test_operation(op, mode):
    """Right, or refused at the user's line; never wrong, never an internal error."""
    result, detail = outcome(op, mode)
    assert result in ("right", "refused"), f"{result}: {detail}\n--- source ---\n{op.source}"


def test_table_rows_are_valid_programs():
    """Every row runs in plain Python and returns a finite scalar: a refusal of a row
    is a refusal of valid code."""
    for op in C.OPS:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with expect_fix_warning(op.source):  # (NumPy 2.5's)
                value = load(op).f(fresh(C.ARGS[op.arg]))
        assert np.ndim(value) == 0 and np.isfinite(float(np.real(value))), op.id


def test_known_rows_exist():
    """Every entry of KNOWN names a row and a mode of the table, with a root cause."""
    ids = {f"{op.id}:{mode}" for op in C.OPS for mode in modes(op)}
    ids |= {f"changed-{p.id}:grad" for p in CHANGED_DEFAULTS}
    assert set(C.KNOWN) <= ids, sorted(set(C.KNOWN) - ids)
    assert all(reason.startswith("issue 32") for reason in C.KNOWN.values())


CHANGED_DEFAULTS = [
    pytest.param("def f(x, k=2.0):\n    return x * x * k\n", "__defaults__", (5.0,),
                 id="defaults"),
    pytest.param("def f(x, *, k=2.0):\n    return x * x * k\n", "__kwdefaults__",
                 {"k": 5.0}, id="kwdefaults"),
]


@pytest.mark.parametrize("source, attribute, value", CHANGED_DEFAULTS)
def test_changed_default_is_read(source, attribute, value, request):
    """A default changed after the first gradient is the one the next gradient uses."""
    op = C.Op(f"changed-{request.node.callspec.id}", "", "s")
    key = f"{op.id}:grad"
    if key in C.KNOWN:
        request.applymarker(pytest.mark.xfail(strict=True, reason=C.KNOWN[key]))
    path = _DIR / f"s2sad_op_changed_{attribute.strip('_')}.py"
    path.write_text("import numpy as np\n\n\n" + source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    f = module.f
    assert s2sad.grad(f)(0.7) == pytest.approx(2.8)
    setattr(f, attribute, value)
    try:
        got = s2sad.grad(f)(0.7)
    except S2sadError as exc:
        assert located(exc, str(path)), exc
        return
    assert got == pytest.approx(7.0), "the gradient still uses the old default"


if __name__ == "__main__":  # python -m tests.test_operation_table [id-substring]: outcomes
    wanted = sys.argv[1] if len(sys.argv) > 1 else ""
    for param in params():
        op, mode = param.values
        if wanted in op.id:
            result, detail = outcome(op, mode)
            print(f"{op.id}:{mode}\t{result}\t{detail[:300]!r}", flush=True)
