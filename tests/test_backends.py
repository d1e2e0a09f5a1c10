"""Targets are backend objects (``s2sad.backends``): the rest of s2sad asks them, never
compares a target's name, and every registered target computes the same gradients.

* A scan of every module of ``s2sad/`` outside ``s2sad/backends/``: no comparison or
  ``in`` test of a target's name (``"numpy"``, ``"cupy"``, the name and module of any
  registered backend), and no ``target ==`` (or ``backend ==``) against a string.
* A small table of gradients, run on every registered backend, checked against central
  finite differences in float64. CuPy runs on its CPU emulation
  (``tests/cupy_cases/fake_cupy.py``). A new backend needs its row in ``ROWS``.
"""

from __future__ import annotations

import ast
import os
import pathlib
import sys

import numpy as np
import pytest

import s2sad
from s2sad.api import GradientFunction
from s2sad.backends import (BACKENDS, CUPY, DASK, NUMBA, NUMPY, TARGETS, Backend,
                            HostArrayError,
                            backend_of, check_arguments, target_backend)
from s2sad.errors import DifferentiationError, UnsupportedSyntaxError
from tests import test_gradients as TG

_HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.join(_HERE, "cupy_cases") not in sys.path:
    sys.path.insert(0, os.path.join(_HERE, "cupy_cases"))

import fake_cupy

PACKAGE = pathlib.Path(s2sad.__file__).parent

# --- no module outside the backends compares a target's name --------------------------------

NAMES = frozenset({b.name for b in BACKENDS} | {b.module for b in BACKENDS})
_HOLDERS = {"target", "backend"}  # what a variable holding a target is called


def _strings(node) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant)
            and isinstance(n.value, str)}


def _holds_target(node) -> bool:
    """``target``, ``self.target``, ``backend``, ``imports.backend.name``..."""
    while isinstance(node, ast.Attribute):
        if node.attr in _HOLDERS:
            return True
        node = node.value
    return isinstance(node, ast.Name) and node.id in _HOLDERS


def name_comparisons(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, source)`` of each comparison in ``tree`` of a target's name: a string
    constant naming a target (or its module) in an ``==``, ``!=``, ``in``, ``not in``
    test, or a variable holding a target compared with a string.

    >>> name_comparisons(ast.parse("if target == 'gpu': pass\\nok = d[0] in TAGS"))
    [(1, "target == 'gpu'")]
    >>> name_comparisons(ast.parse("x = m.split('.')[0] in ('numpy', 'math')"))
    [(1, "m.split('.')[0] in ('numpy', 'math')")]
    """
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        if _strings(node) & NAMES or any(map(_holds_target, operands)) and any(
                _strings(o) for o in operands if not _holds_target(o)):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_module_outside_the_backends_compares_a_target_name():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "backends":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        found += [f"s2sad/{relative}:{line}: {text}" for line, text in name_comparisons(tree)]
    assert not found, "ask the backend object instead:\n" + "\n".join(found)


def test_the_scan_sees_what_it_looks_for():
    """The scan finds the forms of comparison that were in s2sad before the backends."""
    for text in ('if target == "cupy": pass', 'ok = desc[0] in ("nd", "cupy")',
                 'ok = self.target != "numpy"', 'ok = imports.backend.name == "x"',
                 'ok = "numpy" in imports.modules', 'ok = module not in {"cupy", "cupyx"}'):
        assert name_comparisons(ast.parse(text)), text
    for text in ('ok = desc[0] in ARRAY_TAGS', 'ok = target is None', 'x = "cupy"',
                 'ok = kind.tag in ("list", "tuple")'):
        assert not name_comparisons(ast.parse(text)), text


# --- the registry of targets ------------------------------------------------------------------


def test_targets_are_the_registered_backends():
    assert TARGETS == ("auto", *(b.name for b in BACKENDS))
    assert BACKENDS[0] is NUMPY and CUPY in BACKENDS
    assert len({b.name for b in BACKENDS}) == len({b.tag for b in BACKENDS}) == len(BACKENDS)
    for backend in BACKENDS:
        assert isinstance(backend, Backend)
        assert target_backend(backend.name) is backend and target_backend(backend) is backend
    assert target_backend("auto") is None


def test_an_unknown_target_lists_the_targets():
    def f(x):
        return x * x
    for maker in (s2sad.grad, s2sad.value_and_grad, s2sad.vjp, s2sad.jvp):
        with pytest.raises(ValueError, match=r"target must be one of 'auto', 'numpy', "
                                             r"'cupy', 'dask', 'numba', got 'gpu'"):
            maker(f, target="gpu")


def test_the_stand_ins_a_backend_names_exist():
    import importlib
    for backend in BACKENDS:
        for (module, name), stand_in in backend.stand_ins.items():
            assert backend.stand_in(module, name) == (backend.helpers, stand_in)
            assert callable(getattr(importlib.import_module(backend.helpers), stand_in))
        assert backend.stand_in("numpy", "sin") is None


def test_auto_picks_the_backend_of_the_arrays():
    assert backend_of([("nd", 2, "f"), "float"], "auto") is NUMPY
    assert backend_of([("list", (("cupy", 1, "f"),)), ("nd", 0, "f")], "auto") is CUPY
    assert backend_of(["float"], "auto") is NUMPY
    assert backend_of([("nd", 2, "f")], CUPY) is CUPY  # (an explicit target is kept)
    with pytest.raises(DifferentiationError, match="mix NumPy and CuPy arrays"):
        backend_of([("cupy", 1, "f"), ("dict", (("w", ("nd", 2, "f")),))], None)


def test_a_target_refuses_the_arrays_it_cannot_take(emulated):
    names = ["x", "w"]
    check_arguments([("cupy", 1, "f"), ("nd", 0, "f")], names, CUPY)
    check_arguments([("cupy", 1, "f"), ("nd", 2, "f")], names, NUMPY)  # (NumPy refuses none)
    with pytest.raises(HostArrayError, match="the argument 'w' is a NumPy array"):
        check_arguments([("cupy", 1, "f"), ("nd", 2, "f")], names, CUPY)


def test_generated_imports_come_from_the_backend():
    def f(x):
        return np.sum(np.linalg.norm(x) * np.sin(x))
    x = np.ones(3)
    numpy_source = GradientFunction(f, 0, True, False, False, "numpy").source_for(x)
    cupy_source = GradientFunction(f, 0, True, False, False, "cupy").source_for(x)
    assert "import numpy as np" in numpy_source and "cupy" not in numpy_source
    assert "import cupy as cp" in cupy_source and "numpy" not in cupy_source
    assert cupy_source.replace("cp.", "np.").replace("cupy as cp", "numpy as np") == \
        numpy_source


# --- a table of gradients on every backend ----------------------------------------------------


def _on_numpy(monkeypatch):
    return np


def _on_emulated_cupy(monkeypatch):
    return fake_cupy.install(monkeypatch)


def _on_dask(monkeypatch):
    try:
        import dask.array
    except ImportError:
        return None
    return _DaskModule(dask.array)


class _DaskModule:
    """``dask.array``, with ``asarray`` splitting an array in chunks of two along its first
    axis (so that every gradient crosses chunks) and ``asnumpy`` computing one."""

    def __init__(self, module):
        self.module = module

    def asarray(self, a):
        return self.module.from_array(a, chunks=(2,) + a.shape[1:]) if a.ndim else \
            self.module.from_array(a)

    def asnumpy(self, a):
        return a.compute()


def _on_numba(monkeypatch):
    return None if NUMBA.import_error() is not None else np


# each backend -> how a test gets its array module (None: skip, with the reason). A new
# backend adds its row here.
ROWS = {NUMPY: _on_numpy, CUPY: _on_emulated_cupy, DASK: _on_dask, NUMBA: _on_numba}


# what a target's compiler refuses of the table (at the user's line): numba compiles no list
# and no np.linalg.vector_norm
REFUSED = {NUMBA: {"with_lists", "vector_norm_of"}}


def test_every_backend_has_a_row():
    assert set(ROWS) == set(BACKENDS)


def weighted_sines(x, w):
    return np.sum(np.sin(x) * w)


def layer(W, x):
    h = np.tanh(W @ x)
    return np.sum(h * h)


def summed_in_a_loop(x, n):
    total = 0.0
    for i in range(n):
        total = total + np.sum(x * x) * (i + 1)
    return total


def with_lists(x):
    scale = np.array([1.0, 2.0, 3.0])  # a list made an array (CuPy: cp.asarray)
    return np.sum(np.exp(x) * scale) + np.max(x)


def vector_norm_of(x):
    return np.linalg.vector_norm(x, axis=1).sum()  # (CuPy lacks it: s2sad's stand-in)


_rng = np.random.default_rng(33)

TABLE = [
    pytest.param(weighted_sines, (_rng.standard_normal(4), _rng.standard_normal(4)), 0,
                 id="weighted-sines"),
    pytest.param(layer, (_rng.standard_normal((3, 2)), _rng.standard_normal(2)), 0, id="layer"),
    pytest.param(summed_in_a_loop, (_rng.standard_normal(3), 3), 0, id="loop"),
    pytest.param(with_lists, (_rng.permutation(np.linspace(-1.0, 1.0, 3)),), 0, id="lists"),
    pytest.param(vector_norm_of, (_rng.standard_normal((2, 3)) + 2.0,), 0, id="vector-norm"),
]


@pytest.fixture
def emulated(monkeypatch):
    return fake_cupy.install(monkeypatch)


@pytest.mark.parametrize("backend", list(ROWS), ids=lambda b: b.name)
@pytest.mark.parametrize("f, args, wrt", TABLE)
def test_gradients_on_every_backend(backend, f, args, wrt, monkeypatch):
    xp = ROWS[backend](monkeypatch)
    if xp is None:
        pytest.skip(f"{backend.title} is not available here")
    on_device = tuple(xp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
    if f.__name__ in REFUSED.get(backend, ()):
        with pytest.raises(UnsupportedSyntaxError, match=f"target={backend.name!r}") as info:
            GradientFunction(f, wrt, True, False, False, backend.name)(*on_device)
        assert info.value.filename == __file__ and info.value.lineno is not None
        return
    for target in ("auto", backend.name):
        df = GradientFunction(f, wrt, True, False, False, target)  # (a fresh one per target)
        got = df(*on_device)
        assert type(got) is type(on_device[wrt]), f"{type(got)} on {backend.name}"
        host = xp.asnumpy(got) if hasattr(xp, "asnumpy") else got
        np.testing.assert_allclose(np.ravel(host), TG.finite_differences(f, args, wrt),
                                   rtol=1e-5, atol=1e-7)


# --- what a target lacks is refused at the user's line ----------------------------------------


def lacking_by_attribute(x):
    y = x * 2.0
    return np.sum(y * np.geomspace(1.0, 2.0, 3))


def lacking_as_global(x):
    return np.sum(x * geomspace(1.0, 2.0, 3))


geomspace = np.geomspace


@pytest.mark.parametrize("f, line, text", [
    (lacking_by_attribute, 2, "return np.sum(y * np.geomspace(1.0, 2.0, 3))"),
    (lacking_as_global, 1, "return np.sum(x * geomspace(1.0, 2.0, 3))"),
], ids=["attribute", "imported-by-name"])
def test_a_function_the_target_lacks_is_refused_at_its_line(f, line, text, emulated):
    import inspect
    first = inspect.getsourcelines(f)[1]
    x = np.ones(3)
    for make in (lambda: GradientFunction(f, 0, True, False, False, "cupy").source_for(x),
                 lambda: GradientFunction(f, 0, True, False, False, "auto")(emulated.asarray(x))):
        with pytest.raises(DifferentiationError) as info:
            make()
        error = info.value
        assert error.message.startswith("numpy.geomspace has no CuPy twin")
        assert error.lineno == first + line and error.text.strip() == text
        assert "target='numpy'" in error.hint
    got = GradientFunction(f, 0, True, False, False, "numpy")(x)  # (NumPy has it)
    np.testing.assert_allclose(got, np.geomspace(1.0, 2.0, 3) * (2.0 if line == 2 else 1.0))


def test_what_cupy_lacks_is_what_the_emulation_lacks():
    """Every NumPy function CuPy 14 lacks (``tests/cupy_cases/cupy_names.txt``) has a
    stand-in or is refused, and every function refused is one CuPy lacks."""
    lacking = set()
    for module, where in ((np, None), (np.linalg, "linalg"), (np.fft, "fft")):
        names = fake_cupy._TOP if where is None else fake_cupy._SUB.get(where, ())
        for name in dir(module):
            value = getattr(module, name)
            if not name.startswith("_") and callable(value) and not isinstance(value, type) \
                    and name not in names:
                lacking.add((module.__name__, name))
    assert lacking <= CUPY.lacks | set(CUPY.stand_ins)
    assert not CUPY.lacks & set(CUPY.stand_ins)
    for module, name in CUPY.lacks:
        where = module.split(".")[1] if "." in module else None
        assert name not in (fake_cupy._TOP if where is None else fake_cupy._SUB.get(where, ()))
