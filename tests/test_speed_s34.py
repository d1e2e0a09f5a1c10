"""Session 34's build-speed work: ``trees.walk`` reads a field that holds one node or None
without ``isinstance``, and the scans of ``np.vectorize``, of loops over a list they grow
and of class forms read one walk of the function where they made several. Each test
checks the walk is the same, or counts the walks; the generated code is pinned by the
golden tests.
"""

import ast

import gast
import numpy as np
import pytest

import s2sad
from s2sad import trees
from s2sad.transforms.class_forms import NamedItems, ObjectLoops
from s2sad.transforms.grown_walks import GrownWalks
from s2sad.transforms.vectorized import VectorizedCalls


def _reference_walk(node) -> list:
    """Breadth first, every child but a context (``Load()``) and an operator (``Add()``),
    each tested with ``isinstance``: what ``trees.walk`` gave before session 34."""
    found = [node]
    for item in found:
        if isinstance(item, gast.Constant):
            continue
        for field, value in ast.iter_fields(item):
            if field in ("ctx", "op"):
                continue
            if isinstance(value, list):
                found.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                found.append(value)
    return found


SOURCES = {
    "match": "match p:\n    case None: pass\n    case [1, *rest]: pass\n"
             "    case {'k': v, **kw}: pass\n    case P(x=1) as q: pass",
    "imports": "import numpy as np\nfrom a.b import c as d, e",
    "annotated": "x: int = 1\ny: float",
    "names": "def f(a: int, *b, c=2, **d) -> float:\n    global g\n    return {**a, 1: b}",
    "handlers": "try:\n    x = 1\nexcept ValueError as e:\n    raise X from e\nfinally:\n"
                "    pass",
    "expressions": "y = [a for a in b if a] + (lambda t=1: t)(2)[1:2:3] or f'{x!r:>{w}}'",
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_walk_is_the_reference_walk(name):
    tree = gast.parse(SOURCES[name])
    assert [id(n) for n in trees.walk(tree)] == [id(n) for n in _reference_walk(tree)]


def _whole_walks(monkeypatch, run) -> int:
    """How many times ``run(fdef)`` walks the whole function ``fdef``."""
    fdef = gast.parse("def f(x, n):\n    xs = [x]\n    for i in range(n):\n"
                      "        y = np.sin(xs[i]) * {'a': x}['a']\n        xs.append(y)\n"
                      "    return y").body[0]
    count = []
    walk = trees.walk

    def counted(node):
        if node is fdef:
            count.append(node)
        return walk(node)
    monkeypatch.setattr(trees, "walk", counted)
    run(fdef)
    return len(count)


def test_vectorized_calls_walk_a_function_without_vectorize_once(monkeypatch):
    # (before: six walks, for the names taken, the stores, the assignments, the calls,
    # the reads of a held name and the names read after)
    assert _whole_walks(monkeypatch, lambda f: VectorizedCalls(
        lambda func: None, "np", lambda name: True).visit(f)) == 1


def test_grown_walks_walk_the_function_once(monkeypatch):
    assert _whole_walks(monkeypatch, lambda f: GrownWalks(lambda name: True).visit(f)) == 1


def test_class_forms_walk_the_function_once(monkeypatch):
    # (NamedItems: one for the names taken, one for its scan; before: five)
    assert _whole_walks(monkeypatch, lambda f: NamedItems(f, lambda call: False).visit(f)) == 2
    assert _whole_walks(monkeypatch, lambda f: ObjectLoops(f, lambda call: False)) == 1


def test_gradients_through_those_scans_match_finite_differences():
    def f(x):
        g = np.vectorize(lambda t: t * t + np.sin(t))
        xs = [x]
        for v in xs:
            if len(xs) < 3:
                xs.append(v * 1.5)
        return np.sum(g(xs[-1])) + np.sum(xs[0] * xs[1])

    x = np.linspace(0.1, 0.9, 4)
    gx = s2sad.grad(f)(x)
    h = 1e-6
    fd = np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(gx, fd, rtol=1e-6, atol=1e-8)


def _runs(monkeypatch, f, *args) -> list:
    """The writers of ``try`` blocks and strict ``zip`` that a build of ``f``'s gradient
    runs (and the gradient at ``args``)."""
    from s2sad.transforms.strict_zip import StrictZip
    from s2sad.transforms.try_blocks import TryBlocks
    ran = []
    for cls in (TryBlocks, StrictZip):
        def counted(self, tree, run=cls.run, name=cls.__name__):
            ran.append(name)
            return run(self, tree)
        monkeypatch.setattr(cls, "run", counted)
    return ran, s2sad.grad(f)(*args)


def test_no_try_nor_strict_zip_no_writer_run(monkeypatch):
    def f(x):
        return np.sum(np.sin(x) * x)

    x = np.linspace(0.1, 0.9, 3)
    ran, g = _runs(monkeypatch, f, x)
    assert ran == []  # (before: both ran, each on a copy of the whole function)
    np.testing.assert_allclose(g, np.sin(x) + x * np.cos(x), rtol=1e-12)


def test_try_and_strict_zip_still_written_and_match_finite_differences(monkeypatch):
    def f(x, y):
        try:
            z = np.sqrt(x)
        except ValueError:
            z = x
        s = 0.0
        for a, b in zip(z, y, strict=True):
            s = s + a * b
        return s

    x, y = np.linspace(0.1, 0.9, 3), np.array([1.0, 2.0, 3.0])
    ran, g = _runs(monkeypatch, f, x, y)
    assert sorted(ran) == ["StrictZip", "TryBlocks"]
    h = 1e-6
    fd = np.array([(f(x + h * e, y) - f(x - h * e, y)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_fingerprint_sees_each_change_in_place():
    from s2sad.pass_manager import _fingerprint
    text = "def f(x):\n    global g\n    d = {**x, 'a': x}\n    return x + 1.0"
    tree = gast.parse(text).body[0]
    before = _fingerprint(tree)
    assert _fingerprint(tree) == before
    changes = [
        lambda t: setattr(t.body[2].value.left, "id", "y"),  # a name's id (no list held)
        lambda t: t.body[0].names.append("h"),  # a list of names, changed in place
        lambda t: t.body[1].value.keys.__setitem__(0, gast.Constant("b", None)),  # **x
        lambda t: setattr(t.body[2].value.right, "value", 2.0),  # a constant's value
        lambda t: setattr(t.body[2], "lineno", 99),  # a position
    ]
    for change in changes:
        tree = gast.parse(text).body[0]
        before = _fingerprint(tree)
        change(tree)
        assert _fingerprint(tree) != before
