"""Session 33's build-speed work (s2sad/trees.py, s2sad/pass_manager.py): a pass's first
scan shares the walk of its tree kept since the last change (``trees.start_walk``), and a
constant is not dispatched to the standard library's ``visit_Constant``. Each test checks
what is shared and when it must not be; the generated code is pinned by the golden tests.
"""

from dataclasses import dataclass

import gast
import numpy as np

import s2sad
from s2sad import trees
from s2sad.pass_manager import FixedPoint, PassManager, Stages, Step, analysis, transform


@dataclass
class _Build:
    options: object
    tree: object


def _function(text="def f(x):\n    y = x * 2.0\n    return y"):
    return gast.parse(text).body[0]


def test_start_walk_shares_the_walk_an_analysis_made():
    made = []

    @analysis(reads="tree")
    def names(build):
        made.append(trees.walk(build.tree))
        return {n.id for n in made[-1] if isinstance(n, gast.Name)}

    seen = []

    @transform(needs=(names,))
    def scan(build, names):
        seen.append(trees.start_walk(build.tree))
        return False

    PassManager([Step(scan)], Stages(False, str)).run(_Build(None, _function()))
    assert seen[0] == made[0] and seen[0] is not made[0]
    assert all(a is b for a, b in zip(seen[0], made[0]))  # (the same nodes, one walk)


def test_start_walk_after_a_change_walks_the_tree_as_it_is():
    # the first pass walks, then changes the tree: the second must see the new statement
    @transform()
    def grow(build):
        trees.start_walk(build.tree)
        if len(build.tree.body) > 2:
            return False
        build.tree.body.insert(0, gast.parse("z = 1.0").body[0])
        return True

    seen = []

    @transform()
    def scan(build):
        seen.append({n.id for n in trees.start_walk(build.tree) if isinstance(n, gast.Name)})
        return False

    PassManager([Step(grow), Step(scan)], Stages(False, str)).run(_Build(None, _function()))
    assert "z" in seen[0]


def test_start_walk_is_dropped_in_a_fixed_point_when_a_pass_changes_the_tree():
    counts = []

    @transform()
    def rename(build):
        names = [n for n in trees.start_walk(build.tree) if isinstance(n, gast.Name)]
        counts.append(len(names))
        stores = [s for s in build.tree.body if isinstance(s, gast.Assign)]
        if len(stores) >= 3:
            return False
        build.tree.body.insert(0, gast.parse(f"w{len(stores)} = 0.0").body[0])
        return True

    PassManager([FixedPoint(Step(rename))], Stages(False, str)).run(
        _Build(None, _function()))
    assert counts == [4, 5, 6]  # (x, y, x, y; then one more name each round)


def test_start_walk_of_another_tree_is_a_plain_walk():
    tree, other = _function(), _function("def g(a):\n    return a")
    kept = {}
    with trees.pass_start(tree, kept):
        found = trees.start_walk(other)
    assert kept == {} and [type(n) for n in found] == [type(n) for n in trees.walk(other)]


def test_a_constant_is_not_dispatched_to_the_standard_librarys_visit_constant():
    class Names(trees.Visitor):
        def __init__(self):
            self.seen = []

        def visit_Name(self, node):
            self.seen.append(node.id)

    visitor = Names()
    visitor.visit(_function())
    assert visitor.seen == ["x", "y", "x", "y"]
    assert Names._table[gast.Constant] is trees._LEAF  # (no getattr of visit_Num per constant)

    class Own(trees.Transformer):  # a generic visit of its own still sees each constant
        def __init__(self):
            self.constants = []

        def generic_visit(self, node):
            if isinstance(node, gast.Constant):
                self.constants.append(node.value)
            return super().generic_visit(node)

    own = Own()
    own.visit(_function())
    assert own.constants == [2.0]


def test_gradients_after_the_shared_walks_match_finite_differences():
    def f(x, w):
        t = np.sin(x) * w  # (signs, combined terms, forward substitution, plain NumPy)
        u = -t * 2.0
        return np.sum(u * u) + np.sum(-(-x) * 0.5)

    x, w = np.linspace(0.1, 0.9, 4), 1.3
    gx = s2sad.grad(f)(x, w)
    h = 1e-6
    fd = np.array([(f(x + h * e, w) - f(x - h * e, w)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(gx, fd, rtol=1e-6, atol=1e-8)
