"""Walks of a whole function shared by the analyses and checks of one build (session 32).

The pass manager keeps a function's walk while only analyses and read-only passes run,
and forgets it before a pass that may change a tree. These tests pin both halves: a
walk is served again where nothing changed, made afresh where something may have, and
a reader that breaks the contract (an analysis changing the tree) is caught in verify
mode. The gradients built with it are checked against central differences.
"""

import dataclasses

import gast
import numpy as np
import pytest

import s2sad
from s2sad import trees
from s2sad.options import Options
from s2sad.pass_manager import PassManager, Stages, Step, analysis, check, transform


@dataclasses.dataclass
class Build:
    options: object
    tree: object
    adjoint: object = None


def _function():
    return gast.parse("def f(x):\n    y = x * 2.0\n    return y").body[0]


def _walks(monkeypatch) -> list:
    """The walks made (not served from the kept ones): the class of each node whose
    fields a walk read, as ``trees.walk`` looks them up in its table."""
    made = []

    class Table(dict):
        def get(self, key, default=None):
            made.append(key.__name__)
            return super().get(key, default)
    monkeypatch.setattr(trees, "_WALKED", Table(trees._WALKED))
    return made


def test_analyses_and_checks_share_one_walk_of_the_function(monkeypatch):
    sizes = []

    @analysis(reads="tree")
    def size(build):
        return len(trees.walk(build.tree))

    @check(needs=(size,))
    def same_size(build, size):
        sizes.append((size, len(trees.walk(build.tree))))
        return False

    n = len(trees.walk(_function()))
    made = _walks(monkeypatch)
    PassManager([Step(same_size)], Stages(False, list)).run(Build(Options(), _function()))
    assert sizes == [(n, n)]
    assert made.count("FunctionDef") == 1  # (the check's walk was the analysis's)


def test_a_pass_that_changes_the_tree_gets_a_fresh_walk(monkeypatch):
    seen = []

    @analysis(reads="tree")
    def size(build):
        return len(trees.walk(build.tree))

    @transform(needs=(size,))
    def grow(build, size):
        build.tree.body.insert(0, gast.parse("z = 1").body[0])
        seen.append((size, len(trees.walk(build.tree))))
        return True

    @check(needs=(size,))
    def after(build, size):
        seen.append((size, len(trees.walk(build.tree))))
        return False

    n = len(trees.walk(_function()))
    PassManager([Step(grow), Step(after)], Stages(False, list)).run(
        Build(Options(), _function()))
    assert seen == [(n, n + 3), (n + 3, n + 3)]  # (z = 1: an Assign, a Name, a Constant)


def test_verify_mode_catches_an_analysis_or_a_check_that_changes_a_tree():
    @analysis(reads="tree")
    def sneaky(build):
        build.tree.body.pop(0)
        return 0

    @transform(needs=(sneaky,))
    def reads_it(build, sneaky):
        return False

    @check()
    def sneaky_check(build):
        build.tree.body.pop(0)
        return False

    with pytest.raises(AssertionError, match="analysis sneaky changed a tree"):
        PassManager([Step(reads_it)], Stages(False, list), verify=True).run(
            Build(Options(), _function()))
    with pytest.raises(AssertionError, match="pass sneaky_check changes no tree"):
        PassManager([Step(sneaky_check)], Stages(False, list), verify=True).run(
            Build(Options(), _function()))


def _net(w, x):
    h = np.tanh(x @ w)
    d = {"h": h, "n": 2.0}
    out = 0.0
    for k in d:
        out = out + np.sum(d[k] * d[k]) if k == "h" else out - d[k] * np.sum(x ** 2 - x)
    return out


@pytest.mark.parametrize("optimize", [True, False])
def test_a_gradient_through_dicts_and_subtractions_matches_central_differences(optimize):
    rng = np.random.default_rng(32)
    w, x = rng.normal(size=(3, 2)), rng.normal(size=(4, 3))
    g = s2sad.grad(_net, optimize=optimize)(w, x)
    eps, fd = 1e-6, np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = eps
        fd[i] = (_net(w + e, x) - _net(w - e, x)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
