"""Snapshot: the generated source of every case in the main tables, byte for byte.

The compiler is being reshaped (layers, a pass manager, split modules). Each step must
keep what it emits identical, or change it in one reviewed commit. This test holds that
line: for every row of the gradient table (``tests/test_gradients.py``), the NumPy rule
table and the control-flow table (the rows ``tests/test_forward.py`` uses), it builds

* the optimized gradient, ``grad(f)``;
* the unoptimized one, ``grad(f, optimize=False)``;
* the annotated one, ``grad(f, optimize=False, annotate=True)``;
* the forward-mode code, ``jvp(f)``;

and compares each source with ``tests/snapshots/generated.txt``. After a reviewed change
of the generated code, rewrite the file with::

    S2SAD_SNAPSHOT=update python -m pytest -q tests/test_snapshot.py
"""

import difflib
import os
import warnings

import numpy as np
import pytest

import s2sad
import test_forward as F
import test_gradients as G

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "snapshots", "generated.txt")
VARIANTS = {
    "grad": lambda f, wrt: s2sad.grad(f, wrt=wrt),
    "grad-noopt": lambda f, wrt: s2sad.grad(f, wrt=wrt, optimize=False),
    "grad-annotated": lambda f, wrt: s2sad.grad(f, wrt=wrt, optimize=False, annotate=True),
    "jvp": lambda f, wrt: s2sad.jvp(f, wrt=wrt),
}


def _rows():
    """``(name, f, args, wrt)`` for every table row, one per function and argument kinds."""
    seen, rows = set(), []
    for param in G.CASES:
        f, args, wrt = param.values
        rows.append((f"gradients/{param.id}", f, args, wrt))
    for param in F._table_rows():
        f, args, wrt = param.values
        if param.id in seen:
            continue
        seen.add(param.id)
        rows.append((f"rules/{param.id}", f, args, wrt))
    for i, (f, args, wrt) in enumerate(F.CONTROL):
        rows.append((f"control/{f.__name__}-{i}", f, args, wrt))
    return rows


def _kinds(args) -> str:
    """A short, deterministic description of the arguments' kinds (not their values)."""
    def one(a):
        if isinstance(a, np.ndarray):
            return f"{a.dtype}{list(a.shape)}"
        if isinstance(a, (list, tuple)):
            inner = ",".join(one(v) for v in a)
            return f"[{inner}]" if isinstance(a, list) else f"({inner})"
        return type(a).__name__
    return ",".join(one(a) for a in args)


def _source(variant: str, f, args, wrt) -> str:
    """The generated source, or the error's class and first line where s2sad refuses."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return VARIANTS[variant](f, wrt).source_for(*args)
    except Exception as exc:  # a refusal is part of the snapshot too
        return f"<{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}>\n"


def _render() -> str:
    parts = []
    for name, f, args, wrt in _rows():
        for variant in VARIANTS:
            parts.append(f"=== {name} [{variant}]\n{_source(variant, f, args, wrt).rstrip()}\n")
    return "\n".join(parts)


def _sections(text: str) -> dict[str, str]:
    out, key, lines = {}, None, []
    for line in text.splitlines():
        if line.startswith("=== "):
            if key is not None:
                out[key] = "\n".join(lines)
            key, lines = line, []
        else:
            lines.append(line)
    if key is not None:
        out[key] = "\n".join(lines)
    return out


def test_generated_source_is_unchanged():
    now = _render()
    if os.environ.get("S2SAD_SNAPSHOT") == "update":
        with open(PATH, "w", encoding="utf-8") as fh:
            fh.write(now)
        pytest.skip(f"snapshot rewritten: {PATH}")
    with open(PATH, encoding="utf-8") as fh:
        then = fh.read()
    if now == then:
        return
    old, new = _sections(then), _sections(now)
    changed = [k for k in new if old.get(k) != new[k]] + [k for k in old if k not in new]
    first = changed[0]
    diff = "\n".join(difflib.unified_diff(old.get(first, "").splitlines(),
                                          new.get(first, "").splitlines(),
                                          "snapshot", "now", lineterm=""))
    pytest.fail(f"{len(changed)} generated sources changed; the first, {first}:\n{diff}\n"
                "If the change is intended, review it and rewrite the snapshot with "
                "S2SAD_SNAPSHOT=update.")
