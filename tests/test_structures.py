"""Random nested structures (dicts, lists, tuples, namedtuples of floats and vectors) read every way
Python reads them, differentiated and checked against central differences.

For a random structure, a function ``f(p)`` is written that reaches every leaf, each
container by one of the ways a user would: by key or index, unpacking, a loop over it
(``for k in d``, ``.keys()``, ``.values()``, ``.items()``, ``enumerate``), a name bound
to a part on the way, a dict or list display rebuilt from parts (one slot set again),
``{**d, key: ...}``. Each leaf adds a
smooth term to the result. The gradient must equal central differences leaf by leaf and
have the argument's structure; forward mode (``jvp``) must agree along a random
direction. ``S2SAD_STRUCTURES`` sets how many structures are
tried (default 60).
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import random
import sys
import tempfile
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import s2sad

from .test_containers import _leaves, _rebuilt, _same_structure, numeric

EXAMPLES = int(os.environ.get("S2SAD_STRUCTURES", "60"))
KEYS = ["w", "b", "scale", "enc", "dec", "W1", "b_2"]
TERMS = ["np.sum(np.sin({}) * {c})", "np.sum({} ** 2) * {c}", "np.sum(np.tanh({c} * {}))",
         "np.sum({} * {}) * {c}"]
DIR = Path(tempfile.mkdtemp(prefix="s2sad-structures-"))
NAMEDTUPLES = {n: namedtuple(f"Fields{n}", [f"f{i}" for i in range(n)]) for n in (1, 2, 3)}


def structure(rng: random.Random, depth: int = 0):
    """A random structure: floats, vectors of 2, and lists, tuples and dicts of them."""
    if depth >= 3 or rng.random() < 0.3 + 0.15 * depth:
        return rng.uniform(-1.5, 1.5) if rng.random() < 0.5 else \
            np.array([rng.uniform(-1.5, 1.5) for _ in range(2)])
    size = rng.randint(1, 3)
    kind = rng.choice(["list", "tuple", "dict", "namedtuple"])
    items = [structure(rng, depth + 1) for _ in range(size)]
    if kind == "dict":
        return dict(zip(rng.sample(KEYS, size), items))
    if kind == "namedtuple":
        return NAMEDTUPLES[size](*items)
    return items if kind == "list" else tuple(items)


def _leaf(value) -> bool:
    return not isinstance(value, (dict, list, tuple))


class Writer:
    """Writes the statements of ``f`` that reach every leaf of a structure."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.lines: list[str] = []
        self.names = itertools.count(1)

    def name(self, stem: str) -> str:
        return f"{stem}{next(self.names)}"

    def emit(self, line: str, indent: int) -> None:
        self.lines.append("    " * indent + line)

    def term(self, expr: str, indent: int) -> None:
        template = self.rng.choice(TERMS)
        c = self.rng.choice(["0.5", "1.5", "-0.7"])
        self.emit(f"total = total + {template.format(expr, expr, c=c)}", indent)

    def reach(self, value, expr: str, indent: int = 1) -> None:
        """Statements that add a term for every leaf of ``value``, held by ``expr``."""
        rng = self.rng
        if _leaf(value):
            self.term(expr, indent)
            return
        if rng.random() < 0.25:  # a name for the part on the way
            part = self.name("part")
            self.emit(f"{part} = {expr}", indent)
            expr = part
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        leaves = all(_leaf(v) for _, v in items)
        ways = ["each"]
        if leaves:
            ways += ["loop", "rebuilt", "slot"] + (["merged"] if isinstance(value, dict) else [])
        if not isinstance(value, dict) and len(items) > 1:
            ways.append("unpack")
        way = rng.choice(ways)
        if way == "each":
            for key, item in items:
                if hasattr(value, "_fields") and rng.random() < 0.7:  # a namedtuple's field
                    self.reach(item, f"{expr}.{value._fields[key]}", indent)
                else:
                    self.reach(item, f"{expr}[{key!r}]", indent)
        elif way == "unpack":
            names = [self.name("item") for _ in items]
            self.emit(f"{', '.join(names)} = {expr}", indent)
            for name, (_, item) in zip(names, items):
                self.reach(item, name, indent)
        elif way == "merged":  # {**d, key: ...}: one value replaced, the rest as they were
            key = rng.choice([k for k, _ in items])
            copy = self.name("merged")
            self.emit(f"{copy} = {{**{expr}, {key!r}: {expr}[{key!r}] * 2.0}}", indent)
            for k, _ in items:
                self.term(f"{copy}[{k!r}]", indent)
        elif way == "slot":  # a display of the parts with one slot set again
            key = rng.choice([k for k, _ in items])
            copy = self.name("slots")
            if isinstance(value, dict):
                pairs = ", ".join(f"{k!r}: {expr}[{k!r}]" for k, _ in items)
                self.emit(f"{copy} = {{{pairs}}}", indent)
            else:
                self.emit(f"{copy} = [{', '.join(f'{expr}[{k!r}]' for k, _ in items)}]", indent)
            self.emit(f"{copy}[{key!r}] = {copy}[{key!r}] * 1.5 + 0.25", indent)
            for k, _ in items:
                self.term(f"{copy}[{k!r}]", indent)
        elif way == "rebuilt":  # a display of the parts, scaled, read back by key or index
            scaled = [f"{expr}[{key!r}] * 2.0" for key, _ in items]
            copy = self.name("copy")
            if isinstance(value, dict):
                pairs = ", ".join(f"{key!r}: {s}" for (key, _), s in zip(items, scaled))
                self.emit(f"{copy} = {{{pairs}}}", indent)
            else:
                self.emit(f"{copy} = [{', '.join(scaled)}]", indent)
            for key, _ in items:
                self.term(f"{copy}[{key!r}]", indent)
        else:  # a loop over the leaves
            item = self.name("item")
            loops = [f"for {item} in {expr}:"] if not isinstance(value, dict) else [
                f"for {item} in {expr}.values():"]
            key = self.name("key")
            if isinstance(value, dict):
                loops += [f"for {key} in {expr}:", f"for {key} in {expr}.keys():",
                          f"for {key}, {item} in {expr}.items():"]
            else:
                loops += [f"for {key}, {item} in enumerate({expr}):"]
            loop = rng.choice(loops)
            self.emit(loop, indent)
            if f"for {key} in" in loop:
                self.emit(f"{item} = {expr}[{key}]", indent + 1)
            self.term(item, indent + 1)

    def source(self, value) -> str:
        self.lines = ["import numpy as np", "", "", "def f(p):", "    total = 0.0"]
        self.reach(value, "p")
        self.lines.append("    return total")
        return "\n".join(self.lines) + "\n"


def load(text: str, tag: str):
    path = DIR / f"structure_{tag}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module.f


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2 ** 32 - 1), st.booleans())
def test_every_leaf_gets_its_gradient(seed, optimize):
    rng = random.Random(seed)
    value = structure(rng)
    if _leaf(value):
        value = {"w": value}
    text = Writer(rng).source(value)
    f = load(text, f"{seed}_{int(optimize)}")
    gradient = s2sad.grad(f, optimize=optimize)(value)
    assert _same_structure(gradient, value), text
    expected = numeric(f, (value,), 0)
    np.testing.assert_allclose(np.array(_leaves(gradient), dtype=float), expected,
                               rtol=1e-6, atol=1e-8, err_msg=text)
    # forward mode: the tangent along a random direction is the gradient's dot with it
    direction = np.array([rng.uniform(-1.0, 1.0) for _ in expected])
    value_again, pushforward = s2sad.jvp(f, optimize=optimize)(value)
    assert value_again == pytest.approx(f(value)), text
    tangent = pushforward(_rebuilt(value, iter(direction)))
    assert tangent == pytest.approx(float(expected @ direction), rel=1e-6, abs=1e-8), text


def test_the_writer_reaches_every_way():
    """The generator does write each way of reading a container (so the test above
    tries them all)."""
    texts = []
    for seed in range(1000):
        rng = random.Random(seed)
        texts.append(Writer(rng).source(structure(rng)))
    text = "\n".join(texts)
    for way in (".values():", ".keys():", ".items():", "in enumerate(", "= {'", "= [p",
                "part", "item1, item2", "= {**", "] * 1.5 + 0.25", ".f1"):
        assert way in text, way


@pytest.mark.parametrize("seed", [0])
def test_a_written_function_runs(seed):
    rng = random.Random(seed)
    value = {"w": (1.0, np.array([0.5, -0.5])), "b": [0.25, {"enc": 0.3}]}
    f = load(Writer(rng).source(value), f"fixed_{seed}")
    assert np.isfinite(f(value))
