"""The entry of a compiled variant: a guard on the arguments' kinds, then the call.

A gradient is compiled for the kinds of its arguments (``describe``: Python floats, a
list of four floats, a 2-d float array...). Finding the variant of a call by
describing every argument and looking the description up costs microseconds, more than
the whole gradient of a small function. So each variant gets an *entry*: a small
generated function that tests exactly what its description says, with ``type(...) is``
checks, and calls the variant, or hands the call back to the general path when a test
fails. The gradient object calls the entry of the variant it used last.

>>> import numpy as np
>>> entry = make_entry("grad_f", ["x", "w"], ["float", ("nd", 2, "f")],
...                    lambda x, w: ("variant", x), lambda *a, **k: ("general path", a, k))
>>> entry(1.5, np.ones((2, 2)))
('variant', 1.5)
>>> [entry(*a, **k)[0] for a, k in [((1, np.ones((2, 2))), {}), ((1.5, np.ones(2)), {}),
...                                  ((1.5,), {}), ((1.5,), {"w": np.ones((2, 2))})]]
['general path', 'general path', 'general path', 'general path']
>>> print(entry_source("grad_f", ["side_lengths"], [("list", ("float",) * 3)],
...                    catch=True))
def enter_grad_f(*args, **kwargs):
    if len(args) == 1 and not kwargs:
        side_lengths, = args
        if type(side_lengths) is list and len(side_lengths) == 3 and type(side_lengths[0]) is float and type(side_lengths[1]) is float and type(side_lengths[2]) is float:
            try:
                return variant(side_lengths)
            except caught as exc:
                handle(exc)
                raise
    return general(*args, **kwargs)
"""

from __future__ import annotations

import keyword
import re
import operator

import numpy as np

from .codegen import register
from .transforms.kinds import describe

_PYTHON = {"float": "float", "int": "int", "complex": "complex"}
_UNROLL = 6  # lists and tuples up to this length test their items one by one
# names the entry's own code uses: a parameter with one of these names is renamed
_RESERVED = {"type", "len", "float", "int", "complex", "list", "tuple", "ndarray", "args",
             "kwargs", "variant", "general", "describe", "count_of", "caught", "handle", "exc"}


def guard(desc, name: str, constants: dict) -> str:
    """A Python test that the value called ``name`` is described by ``desc``.

    ``constants`` receives the values the test refers to (descriptions compared whole).

    >>> guard("float", "x", {}), guard(("nd", 1, "f"), "x", {})
    ('type(x) is float', "type(x) is ndarray and x.ndim == 1 and x.dtype.kind == 'f'")
    >>> guard(("tuple", ("float",) * 10), "xs", {})
    'type(xs) is tuple and len(xs) == 10 and count_of(map(type, xs), float) == 10'
    >>> constants = {}
    >>> guard(("dict", (("a", "float"),)), "d", constants), constants
    ('describe(d) == described_0', {'described_0': ('dict', (('a', 'float'),))})
    """
    if isinstance(desc, str) and desc in _PYTHON:
        return f"type({name}) is {_PYTHON[desc]}"  # (a bool, described as "int", goes
    if isinstance(desc, tuple) and desc[0] == "nd":  # the general way)
        return f"type({name}) is ndarray and {name}.ndim == {desc[1]} and " \
               f"{name}.dtype.kind == {desc[2]!r}"
    if isinstance(desc, tuple) and desc[0] in ("list", "tuple") and desc[1] and \
            len(set(desc[1])) == 1 and desc[1][0] in _PYTHON:
        items, item = len(desc[1]), _PYTHON[desc[1][0]]
        head = f"type({name}) is {desc[0]} and len({name}) == {items}"
        if items <= _UNROLL:
            return " and ".join([head] + [f"type({name}[{i}]) is {item}"
                                          for i in range(items)])
        return f"{head} and count_of(map(type, {name}), {item}) == {items}"
    constant = f"described_{len(constants)}"
    constants[constant] = desc
    return f"describe({name}) == {constant}"


def _names(params: list[str]) -> list[str]:
    names = []
    for i, param in enumerate(params):
        ok = param.isidentifier() and not keyword.iskeyword(param) and \
            param not in _RESERVED and not param.startswith("described_")
        names.append(param if ok and param not in names else f"arg_{i}")
    return names


def entry_source(name: str, params: list[str], descriptors, constants=None,
                 catch: bool = False) -> str:
    """The text of the entry of the variant of gradient ``name`` for ``descriptors``;
    with ``catch``, an exception of class ``caught`` from the variant goes through
    ``handle`` (which may raise another in its place)."""
    constants = {} if constants is None else constants
    name = re.sub(r"\W", "_", name)  # grad_<lambda>
    names = _names(params)
    tests = " and ".join(guard(d, n, constants) for d, n in zip(descriptors, names)) or "True"
    unpack = ", ".join(names) + ("," if len(names) == 1 else "")
    call = f"variant({', '.join(names)})"
    lines = [f"def enter_{name}(*args, **kwargs):",
             f"    if len(args) == {len(names)} and not kwargs:"]
    if names:
        lines.append(f"        {unpack} = args")
    lines.append(f"        if {tests}:")
    if catch:
        lines += ["            try:", f"                return {call}",
                  "            except caught as exc:", "                handle(exc)",
                  "                raise"]
    else:
        lines.append(f"            return {call}")
    lines.append("    return general(*args, **kwargs)")
    return "\n".join(lines)


def make_entry(name: str, params: list[str], descriptors, variant, general, catch=None):
    """The entry function: ``variant(*args)`` when the arguments fit ``descriptors``,
    else ``general(*args, **kwargs)``. ``catch``: ``(exception class, handler)``. Its
    source shows in tracebacks."""
    constants: dict = {}
    text = entry_source(name, params, descriptors, constants, catch is not None) + "\n"
    filename = f"<s2sad entry of {name}>"
    register(filename, text)
    namespace = {"ndarray": np.ndarray, "describe": describe, "count_of": operator.countOf,
                 "variant": variant, "general": general, **constants}
    if catch is not None:
        namespace["caught"], namespace["handle"] = catch
    exec(compile(text, filename, "exec"), namespace)
    return namespace["enter_" + re.sub(r"\W", "_", name)]
