"""Random models (issue 35): layer classes that keep state, differentiated with respect to
the model and to the input.

``program(seed)`` writes a module of layer classes (dense layers, activations, residual
blocks, containers holding layers in lists and tuples, parameters in dicts), some of
which count their calls, cache what they see or hold a frozen attribute, and a
``make()`` that builds the model (a layer sometimes held twice). ``loss(model, X)`` is
what the checker differentiates. The features each program uses are in ``features``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

ACTIVATIONS = ["np.tanh", "np.sin"]
LOOPS = ["for", "enumerate", "zip_reversed", "enumerate_reversed"]
DICT_WALKS = ["keys-written", "items", "values"]


@dataclass
class ModelProgram:
    source: str
    features: set = field(default_factory=set)


class _Gen:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.classes: list[list[str]] = []
        self.features: set = set()

    def chance(self, percent: int) -> bool:
        return self.rng.randrange(100) < percent

    def effects(self, name: str) -> tuple[list[str], list[str], str]:
        """The ``__init__`` lines, the ``__call__`` lines of a layer's side effects, and a
        factor its output is scaled by (a counter read back)."""
        init, call, factor = [], [], ""
        if self.chance(40):
            init.append("self.n_calls = 0")
            call.append(self.rng.choice(["self.n_calls += 1",
                                         "self.n_calls = self.n_calls + 1"]))
            self.features.add("counter")
            if self.chance(50):
                factor = " * (1.0 + 0.25 * self.n_calls)"
                self.features.add("counter-read")
            elif self.chance(50):
                call.append("if self.n_calls > 1:")
                call.append("    X = X * 0.5")
                self.features.add("counter-branch")
        if self.chance(30):
            init.append("self.cache = []")
            call.append("self.cache.append(X)")
            self.features.add("cache")
        return init, call, factor

    def dense(self) -> str:
        name = f"Dense{len(self.classes)}"
        act = self.rng.choice(ACTIVATIONS)
        init, call, factor = self.effects(name)
        frozen = self.chance(25)
        params = self.chance(30)  # (parameters in a dict)
        lines = []
        if frozen:
            lines.append('@s2sad.frozen("mask")')
            self.features.add("frozen")
        lines += [f"class {name}:", "    def __init__(self, rng):"]
        if params:
            lines.append('        self.p = {"W": rng.normal(size=(3, 3)) * 0.5, '
                         '"b": rng.normal(size=3) * 0.1}')
            w, b = 'self.p["W"]', 'self.p["b"]'
            self.features.add("dict-params")
        else:
            lines.append("        self.W = rng.normal(size=(3, 3)) * 0.5")
            lines.append("        self.b = rng.normal(size=3) * 0.1")
            w, b = "self.W", "self.b"
        if frozen:
            lines.append("        self.mask = np.abs(rng.normal(size=(3, 3))) + 0.5")
            w = f"({w} * self.mask)"
        lines += [f"        {line}" for line in init]
        lines += ["", "    def __call__(self, X):"] + [f"        {line}" for line in call]
        lines.append(f"        return {act}(X @ {w} + {b}){factor}")
        self.classes.append(lines)
        self.features.add("dense")
        return name

    def scale(self) -> str:
        name = f"Scale{len(self.classes)}"
        init, call, factor = self.effects(name)
        lines = [f"class {name}:", "    def __init__(self, rng):",
                 "        self.s = float(rng.normal()) * 0.5 + 1.0"]
        lines += [f"        {line}" for line in init]
        lines += ["", "    def __call__(self, X):"] + [f"        {line}" for line in call]
        lines.append(f"        return {self.rng.choice(ACTIVATIONS)}(X) * self.s{factor}")
        self.classes.append(lines)
        self.features.add("activation")
        return name

    def residual(self, depth: int) -> str:
        inner = self.layer(depth + 1)
        name = f"Residual{len(self.classes)}"
        lines = [f"class {name}:", "    def __init__(self, rng):",
                 f"        self.inner = {inner}", "", "    def __call__(self, X):",
                 "        return X + 0.5 * self.inner(X)"]
        self.classes.append(lines)
        self.features.add("residual")
        return f"{name}(rng)"

    def container(self, depth: int) -> str:
        count = self.rng.randint(1, 3)
        items = [self.layer(depth + 1) for _ in range(count)]
        if count > 1 and self.chance(20):
            items[-1] = "SHARED"  # (the first layer held again)
        kind = self.rng.choice(["list", "tuple", "dict"])
        loop = self.rng.choice(LOOPS if kind != "dict" else DICT_WALKS)
        name = f"Seq{len(self.classes)}"
        scales = ", ".join(str(round(0.6 + 0.2 * k, 1)) for k in range(count))
        held = ", ".join(items).replace("SHARED", "first")
        display = f"[{held}]" if kind == "list" else f"({held},)"
        if kind == "dict":  # (issue 35: layers held in a dict, by key or walked)
            keys = [f"l{k}" for k in range(count)]
            display = "{" + ", ".join(f'"{k}": {item}' for k, item in zip(
                keys, items)).replace("SHARED", "first") + "}"
        init = [f"class {name}:", "    def __init__(self, rng):"]
        if "SHARED" in items:
            init.append(f"        first = {items[0]}")
            display = display.replace(items[0], "first", 1)
            self.features.add("held-twice")
        init += [f"        self.layers = {display}", f"        self.scales = [{scales}]"]
        body = {"for": ["for layer in self.layers:", "    X = layer(X)"],
                "enumerate": ["for i, layer in enumerate(self.layers):",
                              "    X = layer(X) * self.scales[i]"],
                "zip_reversed": ["for layer, s in zip(reversed(self.layers), self.scales):",
                                 "    X = layer(X) * s"],
                "enumerate_reversed": ["for i, layer in enumerate(reversed(self.layers)):",
                                       "    X = layer(X) + 0.1 * i"]}.get(loop)
        if kind == "dict":
            order = self.rng.sample(keys, count)  # (written keys, in any order)
            body = {"keys-written": [f'X = self.layers["{k}"](X) * {s}' for k, s in zip(
                        order, scales.split(", "))],
                    "items": ["for key, layer in self.layers.items():",
                              f'    X = layer(X) + (0.25 if key == "{order[0]}" else 0.0)'],
                    "values": ["for layer in self.layers.values():",
                               "    X = layer(X)"]}[loop]
        lines = init + ["", "    def __call__(self, X):"] + \
            [f"        {line}" for line in body] + ["        return X"]
        self.classes.append(lines)
        self.features |= {f"container-{kind}", f"loop-{loop}"}
        return f"{name}(rng)"

    def layer(self, depth: int) -> str:
        form = self.rng.randrange(4) if depth < 2 else self.rng.randrange(2)
        if form == 0:
            return f"{self.dense()}(rng)"
        if form == 1:
            return f"{self.scale()}(rng)"
        if form == 2:
            return self.residual(depth)
        return self.container(depth)

    def program(self) -> ModelProgram:
        top = self.container(0)
        text = ["import numpy as np", "", "import s2sad", ""]
        for lines in self.classes:
            text += ["", ""] + lines
        text += ["", "", "def make(seed=0):", "    rng = np.random.default_rng(seed)",
                 f"    return {top}", "", "",
                 "def loss(model, X):", "    return np.sum(np.sin(model(X)) ** 2)", ""]
        return ModelProgram("\n".join(text), self.features)


def program(seed: int) -> ModelProgram:
    """The random model program of ``seed``."""
    return _Gen(seed).program()
