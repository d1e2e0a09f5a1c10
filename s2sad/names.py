"""All naming of generated variables, in one place.

Primal values keep the user's names; reassigned variables get ``x_1, x_2, ...``;
temporaries made by splitting expressions are ``t_1, t_2, ...``; the sensitivity
of ``t_ab`` is ``s_ab`` and that of ``x`` is ``s_x``, as in the seed's ``grad_f4``.
In a derivative of a derivative the sensitivities are ``s2_x`` (of ``x``) and ``s2_s_x``
(of the first derivative's ``s_x``); a third derivative's, ``s3_...`` (``order``).
Every name is checked against every name the user's function mentions and every
name handed out before, so nothing ever collides, and the same function always
gets the same names.

>>> import gast
>>> tree = gast.parse("def f(x, s_x):\\n    t_1 = x * s_x\\n    return t_1")
>>> namer = Namer.for_tree(tree)
>>> namer.temp(), namer.sens("x"), namer.sens("t_1"), namer.version("x")
('t_2', 's_x_1', 's_1', 'x_1')
"""

from __future__ import annotations

import re

import gast

from . import trees


class Namer:
    def __init__(self, taken: set[str]):
        self.taken = set(taken)
        self._sens: dict[str, str] = {}
        self._temps = 0
        self.temporaries: set[str] = set()  # t_1, t_2... and their sensitivities s_1, s_2...
        self.users: dict[str, str] = {}  # a name given another's version -> the user's name
        self.order = 1  # of the derivative named: 2 for one of a derivative (``s2_x``)

    @classmethod
    def for_tree(cls, tree) -> "Namer":
        taken = set()
        for node in trees.walk(tree):
            if isinstance(node, gast.Name):
                taken.add(node.id)
            elif isinstance(node, (gast.FunctionDef, gast.ClassDef)):
                taken.add(node.name)
            elif isinstance(node, gast.alias):
                taken.add((node.asname or node.name).split(".")[0])
        return cls(taken)

    def claim(self, name: str) -> str:
        """Take ``name`` itself if it is free, else ``name_1``, ``name_2``, ..."""
        candidate, n = name, 0
        while candidate in self.taken:
            n += 1
            candidate = f"{name}_{n}"
        self.taken.add(candidate)
        if candidate != name:
            self.users[candidate] = self.users.get(name, name)
        return candidate

    def version(self, name: str) -> str:
        """A new name for a reassigned variable: ``x`` -> ``x_1`` (never ``x`` itself)."""
        base = re.sub(r"_\d+$", "", name) or name
        n = 0
        while True:
            n += 1
            candidate = f"{base}_{n}"
            if candidate not in self.taken:
                self.taken.add(candidate)
                self.users[candidate] = self.users.get(name, base)
                return candidate

    def fresh(self, base: str) -> str:
        """``base_1``, ``base_2``, ...: numbered names for loop counters, conditions, indices."""
        n = 0
        while True:
            n += 1
            candidate = f"{base}_{n}"
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate

    def temp(self) -> str:
        while True:
            self._temps += 1
            candidate = f"t_{self._temps}"
            if candidate not in self.taken:
                self.taken.add(candidate)
                self.temporaries.add(candidate)
                return candidate

    @property
    def sensitivities(self) -> set[str]:
        """The sensitivity variables named so far (``s_x``, ``s_1``...)."""
        return set(self._sens.values())

    def sens(self, primal: str) -> str:
        """The sensitivity variable of ``primal`` (``t_ab`` -> ``s_ab``, ``x`` -> ``s_x``)."""
        if primal not in self._sens:
            stem = primal[2:] if primal.startswith("t_") and len(primal) > 2 else primal
            prefix = "s_" if self.order == 1 else f"s{self.order}_"
            self._sens[primal] = self.claim(prefix + stem)
            if primal in self.temporaries or self.order > 1 and primal.startswith(("s_", "t_")):
                # (a derivative of a derivative: the first one's names are s2sad's own, and
                # their sensitivities copies of the seed a person would not write)
                self.temporaries.add(self._sens[primal])
        return self._sens[primal]
