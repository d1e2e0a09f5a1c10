"""Layers: every module of ``s2sad/`` imports only its own floor and the floors below.

The five floors, lowest first (see docs/design.md, "Layers")::

    core      errors, trees, names, source, located, backends, the argument descriptions
    runtime   the helpers the generated code imports (runtime/)
    rules     the registry, the rules/ package, the stand-in implementations
    compiler  pipeline, codegen, transforms/, options, rule instantiation
    face      api, derivative objects, dispatch, checkpoint, cli, display, checking

Every import counts: at module level and inside functions, relative and absolute.
``from . import x`` counts as an import of the submodule ``x`` where there is one. A
module's parent packages, which Python runs first, are not counted: ``s2sad/__init__``
is the face, and every module would otherwise import it.

>>> edges = imports_of("s2sad.transforms.kinds", "from ..trees import clone\\n"
...                    "def f():\\n    from . import resolve\\n")
>>> [(target, line) for target, line, _ in edges]
[('s2sad.trees', 1), ('s2sad.transforms.resolve', 3)]
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "s2sad"

FLOORS = ("core", "runtime", "rules", "compiler", "face")

# Each module's floor; a module missing here fails test_every_module_has_a_floor.
LAYERS = {
    "core": [
        "errors", "trees", "names", "source", "located", "backends", "backends.*", "hooks",
        "descriptors",
    ],
    "runtime": [
        "runtime", "runtime.*",
    ],
    "rules": [
        "registry", "rules", "rules.*", "implementations",
    ],
    "compiler": [
        "pipeline", "pass_manager", "codegen", "options", "transforms", "transforms.*",
    ],
    "face": [
        "__init__", "__main__", "api", "derivatives", "dispatch", "checkpoint", "cli",
        "display", "checking", "spread", "boundary",
    ],
}


def modules() -> dict[str, Path]:
    """``{"s2sad.transforms.kinds": path, ...}`` for every module of the package
    (a package is named by its ``__init__.py``: ``"s2sad.rules"``; the top one is
    ``"s2sad"``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if "__pycache__" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = modules()


def _is_package(name: str) -> bool:
    return name == "s2sad" or (MODULES.get(name) is not None and
                               MODULES[name].name == "__init__.py")


def _module_or_parent(name: str) -> str | None:
    """``name`` if it is a module of s2sad, else its nearest enclosing one (an import of
    ``s2sad.runtime.as_gradient`` is one of ``s2sad.runtime``); None outside s2sad."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, text: str) -> list[tuple[str, int, str]]:
    """``(imported module, line, the import's text)`` for every import of an s2sad module
    in ``text``, the source of ``module``; at any depth (inside functions too)."""
    package = module if _is_package(module) else module.rpartition(".")[0]
    lines = text.splitlines()
    found = []
    for node in ast.walk(ast.parse(text)):
        targets = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                if node.module:
                    base += node.module.split(".")
                base = ".".join(base)
            else:
                base = node.module
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                targets.append(submodule if submodule in MODULES else base)
        for target in targets:
            resolved = _module_or_parent(target)
            if resolved is not None and resolved != module:
                found.append((resolved, node.lineno, lines[node.lineno - 1].strip()))
    return sorted(set(found), key=lambda edge: (edge[1], edge[0]))


def floor_of(module: str) -> str | None:
    """The floor of ``module`` (``"s2sad.rules.numpy"`` -> ``"rules"``), None if unplaced."""
    short = module.removeprefix("s2sad").removeprefix(".") or "__init__"
    for floor, names in LAYERS.items():
        for name in names:
            if short == name or (name.endswith(".*") and
                                 short.startswith(name[:-1]) and short != name[:-2]):
                return floor
    return None


def graph() -> dict[str, list[tuple[str, int, str]]]:
    return {module: imports_of(module, path.read_text(encoding="utf-8"))
            for module, path in MODULES.items()}


def _where(module: str, line: int, text: str) -> str:
    return f"{MODULES[module].relative_to(ROOT)}:{line}: {text}"


def cycles(edges: dict[str, list]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm):
    each is a set of modules that import one another, directly or not."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target, _, _ in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or any(t == node for t, _, _ in edges.get(node, ())):
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_package_is_found():
    assert {"s2sad", "s2sad.api", "s2sad.transforms.normalize", "s2sad.rules.numpy"} <= \
        set(MODULES)


def test_every_module_has_a_floor():
    unplaced = [str(MODULES[m].relative_to(ROOT)) for m in MODULES if floor_of(m) is None]
    assert not unplaced, ("place each new module on a floor in tests/test_layers.py "
                          f"LAYERS: {unplaced}")


def test_imports_go_down_or_stay():
    upward = []
    for module, edges in graph().items():
        mine = floor_of(module)
        for target, line, text in edges:
            theirs = floor_of(target)
            if mine and theirs and FLOORS.index(theirs) > FLOORS.index(mine):
                upward.append(f"{_where(module, line, text)}  ({mine} imports {theirs})")
    assert not upward, "imports to a higher floor:\n" + "\n".join(upward)


def test_no_import_circle():
    edges = graph()
    found = cycles(edges)
    report = []
    for component in found:
        members = set(component)
        report.append(f"a circle of {len(component)} modules:")
        for module in component:
            report += [f"  {_where(module, line, text)}" for target, line, text in
                       edges[module] if target in members]
    assert not found, "\n".join(report)


@pytest.mark.parametrize("text, expected", [
    ("from . import resolve", ["s2sad.transforms.resolve"]),
    ("from .. import registry, trees", ["s2sad.registry", "s2sad.trees"]),
    ("from ..rules.operators import OPERATORS", ["s2sad.rules.operators"]),
    ("import s2sad.runtime", ["s2sad.runtime"]),
    ("from s2sad.runtime import as_gradient", ["s2sad.runtime"]),
    ("from s2sad import rules", ["s2sad.rules"]),
    ("from .. import __version__", ["s2sad"]),
    ("def f():\n    if x:\n        from .kinds import describe", ["s2sad.transforms.kinds"]),
    ("import numpy as np\nfrom gast import Name", []),
])
def test_imports_are_read(text, expected):
    found = [target for target, _, _ in imports_of("s2sad.transforms.normalize", text)]
    assert found == expected


def test_a_circle_is_found():
    edges = {"a": [("b", 1, "")], "b": [("c", 1, "")], "c": [("a", 1, "")], "d": [("a", 1, "")]}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": [("b", 1, "")], "b": []}) == []


# --- helpers are named by object --------------------------------------------------------------

def helpers_named_by_string(text: str) -> list[int]:
    """The lines of ``text`` that ask for a runtime helper by a string
    (``imports.helper("check_stack", "s2sad.runtime.budget")``) rather than by the
    function object, which an import in the compiler checks."""
    return [node.lineno for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
            node.func.attr == "helper" and any(
                isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args)]


def test_the_compiler_names_helpers_by_object():
    """A helper moved or renamed is then an ImportError in the compiler, not an import
    line of generated code that fails when the gradient is built or run."""
    assert helpers_named_by_string('x = imports.helper("check_stack", "s2sad.runtime")\n'
                                   "y = self.helper(check_stack)\n") == [1]
    found = [f"{path.relative_to(ROOT)}:{line}" for path in MODULES.values()
             for line in helpers_named_by_string(path.read_text())]
    assert not found, f"a helper named by a string: {found}"
