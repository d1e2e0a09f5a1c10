"""One table of facts: every fact about a function lives in its rule entry.

A pass asks the registry (``registry.lookup``, ``registry.facts``) what a function does;
it keeps no table of its own keyed by functions (``{np.zeros, np.ones}``) or by their
names (``{"sum_grad": 1}``). The first test reads every module of ``s2sad/transforms``
and fails on a new such table; the second checks that the rule modules fill the same
table whatever order they are imported in.
"""

import ast
import builtins
import importlib
import inspect
import math
import pathlib
import random

import numpy as np
import pytest

from s2sad import registry, runtime
from s2sad.runtime import higher as runtime_higher

TRANSFORMS = pathlib.Path(__file__).resolve().parent.parent / "s2sad" / "transforms"

# No pass keeps a module-level table of functions or of their names, not even one with a
# reason: what a function does is declared in its rule entry (s2sad/registry.py: Facts,
# defresult...), and a pass that has code of its own for a builtin names it by object.
# The allow-lists the scan once had (py_floats' builtin names, kinds' names of array
# subclasses' converting attributes) are gone; none may come back.


def _function(value) -> bool:
    """Is ``value`` a function (not a class: a table of types is not one of functions)?"""
    return callable(value) and not isinstance(value, type)


_NAMESPACES = (builtins, np, math, runtime, runtime_higher)


def _names_function(text: str) -> bool:
    """Does the string ``text`` name a function of NumPy, math, the builtins or s2sad's
    helpers (``"sum"``, ``"numpy.max"``, ``"sum_grad"``)? (Not a dunder: ``"__dict__"``
    is a module's own attribute.)"""
    if text.startswith("numpy."):
        value = np
        for part in text.split(".")[1:]:
            value = getattr(value, part, None)
        return _function(value)
    return text.isidentifier() and not text.startswith("__") and any(_function(getattr(namespace, text, None))
                                       for namespace in _NAMESPACES)


def _entries(value) -> list:
    """The keys of a dict, the items of a set, frozenset, tuple or list."""
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, (set, frozenset, tuple, list)):
        return list(value)
    return []


def fact_tables(path: pathlib.Path) -> list[tuple[str, str]]:
    """``(file, name)`` of the module-level tables of ``path`` keyed by functions or by
    functions' names, read from the module once imported (``{np.zeros, np.ones}``,
    ``{"sum_grad": 1}``, ``frozenset(...)``...)."""
    tree = ast.parse(path.read_text())
    module = importlib.import_module(f"s2sad.transforms.{path.stem}")
    found = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            if not isinstance(target, ast.Name) or target.id == "__all__":
                continue
            entries = _entries(getattr(module, target.id, None))
            if any(_function(e) or isinstance(e, str) and _names_function(e)
                   for e in entries if not isinstance(e, type)):
                found.append((path.name, target.id))
    return found


def test_the_scan_finds_a_table_of_functions():
    """The scan would catch each kind of side table the passes had (so the next test can
    fail): functions, their names, dotted names; not types, keywords or node classes."""
    assert _names_function("sum_grad") and _names_function("numpy.max")
    assert _names_function("len") and _names_function("copy")  # (np.copy)
    assert not _names_function("axis") and not _names_function("float")
    assert _entries({np.zeros: 0}) == [np.zeros]
    assert not _function(np.ndarray) and _function(np.sum) and _function(math.sin)


def test_no_pass_keeps_a_table_of_facts_about_functions():
    found = {table for path in sorted(TRANSFORMS.glob("*.py")) for table in fact_tables(path)}
    assert not found, (f"{sorted(found)}: a table of facts about functions in a pass; declare "
                       "the facts in the rule entries (s2sad/registry.py) and ask the registry")


def test_the_attributes_that_convert_an_array_subclass_are_facts():
    """What ``kinds._CONVERTED`` listed by name: the attributes of ``np.matrix``, masked
    arrays and ndarrays that give an ndarray, a number or a tuple, declared as facts."""
    from s2sad.transforms.kinds import converted
    facts = registry.facts
    assert facts(np.matrix.A).converts and facts(np.ma.MaskedArray.filled).converts
    assert facts(np.ndarray.tolist).converts and facts(np.ma.filled).converts
    assert not facts(np.ndarray.T).converts and not facts(np.ndarray.sum).converts
    assert all(converted(name) for name in ("shape", "ndim", "size", "dtype", "A", "A1",
                                            "data", "mask", "itemsize", "nbytes", "strides",
                                            "tolist", "item", "filled", "getA", "getA1",
                                            "__array__"))
    assert not any(converted(name) for name in ("T", "sum", "real", "H", "I", "ravel", "x"))


# --- the table is the same whatever order its modules are imported in -------------------------

RULE_MODULES = ["math", "numpy", "numpy_linalg", "numpy_shape", "operators", "runtime_rules",
                "reduction_helper_rules", "linear_helper_rules", "tangents",
                "linalg_helper_rules", "memory", "numpy_more", "complex", "fft"]
if hasattr(importlib.import_module("s2sad.rules"), "scipy_special"):  # (where SciPy imports)
    RULE_MODULES.append("scipy_special")
if hasattr(importlib.import_module("s2sad.rules"), "scipy_stats"):
    RULE_MODULES.append("scipy_stats")
if hasattr(importlib.import_module("s2sad.rules"), "scipy_linalg"):
    RULE_MODULES.append("scipy_linalg")
if hasattr(importlib.import_module("s2sad.rules"), "scipy_signal"):
    RULE_MODULES.append("scipy_signal")
if hasattr(importlib.import_module("s2sad.rules"), "scipy_array_api"):
    RULE_MODULES.append("scipy_array_api")


def _name(function) -> str:
    return "" if function is None else f"{function.__module__}.{function.__qualname__}"


def _at(function) -> str:
    """Where a function lives (a rule module's own function, ``stop_gradient``, is made
    anew by a reload: its name says which)."""
    own = (getattr(function, "__module__", None) or "").startswith("s2sad.rules")
    if inspect.ismethod(function):  # (norm.logpdf: a bound method, made at each reading)
        return f"@{id(function.__self__)}.{id(function.__func__)}"
    return "" if own else f"@{id(function)}"


def _table() -> dict:
    """Everything the registry holds, by function, with rules' own functions by name (a
    module imported again makes them anew)."""
    rules = {registry.describe_function(rule.func) + _at(rule.func): (
        _name(rule.adjoint), rule.shape, rule.differentiable, _name(rule.tangent), rule.linear,
        rule.joint, rule.builtin, rule.dtype, rule.result, tuple(rule.refuses),
        tuple(rule.accepts)) for rule in registry._RULES.values()}
    facts = {(registry.describe_function(f) if not isinstance(f, int) else "?") +
             _at(f): value for f, value in registry._FACTS.items()}
    return {"rules": rules, "facts": facts, "pending": dict(registry._PENDING)}


def _load(order) -> dict:
    """The table the rule modules fill, imported again in ``order``."""
    registry._RULES.clear()
    registry._PENDING.clear()
    registry._FACTS.clear()
    registry._DERIVED.clear()
    registry._LOADING_BUILTINS = True
    for name in order:
        importlib.reload(importlib.import_module(f"s2sad.rules.{name}"))
    importlib.reload(importlib.import_module("s2sad.rules"))  # (ufuncs' facts, then done)
    return _table()


@pytest.fixture
def saved_table():
    saved = (dict(registry._RULES), dict(registry._PENDING), dict(registry._FACTS),
             registry._LOADING_BUILTINS)
    yield
    for table, old in zip((registry._RULES, registry._PENDING, registry._FACTS), saved[:3],
                          strict=True):
        table.clear()
        table.update(old)
    registry._DERIVED.clear()
    registry._LOADING_BUILTINS = saved[3]


def test_the_rule_modules_fill_one_table_in_any_order(saved_table):
    """Facts and tangents declared before their function's adjoint wait for it: the
    tangents, the memory facts, the helpers' facts may come first."""
    expected = _load(RULE_MODULES)
    assert not expected["pending"]  # (every fact found its function's rule)
    orders = [RULE_MODULES[::-1], ["tangents", "memory"] + RULE_MODULES[:8] +
              ["linalg_helper_rules"] + RULE_MODULES[11:]]
    shuffled = list(RULE_MODULES)
    random.Random(33).shuffle(shuffled)
    for order in orders + [shuffled]:
        assert _load(order) == expected, order


def test_a_fact_declared_before_its_rule_waits_for_it(saved_table):
    def cube(x):
        return x ** 3

    registry.deflinear(cube)  # (before any rule: kept aside, not a rule yet)
    registry.defresult(cube, follows=[("x", 0)])
    assert registry.lookup(cube) is None

    @registry.defvjp(cube)
    def cube_vjp(g, ans, x):
        return 3.0 * g * x ** 2

    rule = registry.lookup(cube)
    assert rule.linear == (0,) and rule.result == (("x", 0),) and rule.adjoint is cube_vjp
    registry.nondifferentiable(cube)  # (the facts stay with a rule that replaces it)
    assert registry.lookup(cube).result == (("x", 0),)


def test_the_former_side_tables_are_facts_of_rule_entries():
    """What the passes kept in tables of their own, the registry says."""
    from s2sad.runtime import (
        cast_like,
        matmul_grad_left,
        output_seed,
        sum_grad,
        unbroadcast,
    )
    from s2sad.runtime.higher import sens_item
    facts = registry.facts
    assert facts(matmul_grad_left).fresh and facts(np.outer).fresh  # gradient_form
    assert not facts(unbroadcast).fresh
    assert (facts(sum_grad).shape_of, facts(unbroadcast).shape_of) == (1, 1)  # shape_only
    assert facts(sens_item).structure_of == "item"  # kinds._STRUCTURE_HELPERS
    assert facts(runtime_higher.broadcast_like).structure_of == (1,)
    assert facts(output_seed).checks and facts(len).pure and not facts(print).pure  # pipeline
    assert facts(math.atan2).floats and not facts(math.floor).floats  # py_floats
    assert facts(np.zeros).builds and not facts(np.sin).builds  # device_arguments
    assert facts(np.ndarray.shape).no_derivative and not facts(np.ndarray.T).no_derivative
    assert facts(np.ndarray.flatten).method == "ravel"  # desugar.METHODS
    assert facts(np.ndarray.reshape).varargs  # desugar._VARARGS
    assert facts(np.linalg.eigh).fields[0] == ("eigenvalues", "eigenvectors")  # kinds
    assert facts(np.zeros).shape_from == 0 and facts(np.zeros_like).shape_from is None
    assert facts(np.amax).extremum and not facts(np.nanmax).extremum  # activity._EXTREMA
    assert facts(cast_like).returns_view_of == (0,)  # forward._PASSING
    assert registry.lookup(runtime.joined_dtype).result == registry.ALL_ARGUMENTS  # resolve
    assert "dtype" in registry.NOT_BROADCAST  # kinds' and forward's _NOT_BROADCAST
    assert facts(len).number == "i" and facts(sorted).sequence  # dtypes' tables
    assert not facts(round).number  # (a float given ndigits)


def test_a_method_bound_to_a_class_has_facts_or_none():
    """``object.__new__`` and ``np.ndarray.__subclasshook__`` are bound to their class;
    their facts were looked for on the metaclass's method, bound to it in turn, without
    end (a RecursionError from desugar's ``x.__subclasshook__(...)``)."""
    assert registry.facts(object.__new__) is None
    assert registry.facts(np.ndarray.__subclasshook__) is None
    from s2sad.transforms.desugar import array_function
    assert array_function("__subclasshook__") == ""
