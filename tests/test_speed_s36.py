"""Session 36's build speed: idempotent passes kept clean, and a function's names kept.

* ``keeps_clean``: a pass that moves what statements read, but drops no read, leaves an
  idempotent pass (dead code) with nothing to do where it had nothing to do; the pass
  manager skips its next run. Verify mode runs it all the same and raises if it acts.
* ``assigned_names`` is kept with a function's walk while the trees are only read, and
  ``start_names`` at a pass's start; a tree changed in between is read afresh.

On main, 9 of these 16 tests fail (``keeps_clean`` and ``start_names`` do not exist
there, dead code runs four times on a chain, a function's names are walked again); the
checks of a tree read after a change, and of gradients against central differences, pass
there too. The generated code is pinned by the golden and snapshot tests.
"""

import dataclasses
import functools

import gast
import numpy as np
import pytest

import s2sad
from s2sad import pipeline, trees
from s2sad.options import Options
from s2sad.pass_manager import PassManager, Stages, Step, analysis, check, transform


@dataclasses.dataclass
class Build:
    options: object
    tree: object
    adjoint: object = None


def _values(build) -> list:
    return [stmt.value.value for stmt in build.tree.body]


def _toy_passes():
    """On a module of numbers (``1; 0; 2``): ``tidy`` (idempotent: drops the zeros, and
    counts its runs), ``move`` (moves the first number last, keeps tidy clean), ``spoil``
    (adds a zero, says nothing of tidy) and ``lie`` (adds a zero, and says it keeps tidy
    clean)."""
    runs = []

    @transform(idempotent=True)
    def tidy(build):
        runs.append(_values(build))
        kept = [stmt for stmt in build.tree.body if stmt.value.value != 0]
        changed = len(kept) != len(build.tree.body)
        build.tree.body[:] = kept
        return changed

    @transform(keeps_clean=(tidy,))
    def move(build):
        build.tree.body.append(build.tree.body.pop(0))
        return True

    @transform()
    def spoil(build):
        build.tree.body.append(gast.parse("0").body[0])
        return True

    @transform(keeps_clean=(tidy,))
    def lie(build):
        build.tree.body.append(gast.parse("0").body[0])
        return True

    return runs, tidy, move, spoil, lie


def _run(steps, values, verify=False):
    tree = gast.parse("\n".join(map(str, values)))
    build = PassManager(steps, Stages(False, list), verify=verify).run(Build(None, tree))
    return _values(build)


def test_a_pass_kept_clean_is_not_run_again():
    runs, tidy, move, _, _ = _toy_passes()
    tree = _run([Step(tidy), Step(move), Step(tidy), Step(move), Step(tidy)], [1, 0, 2])
    assert tree == [1, 2]  # (moved twice: back where it was)
    assert runs == [[1, 0, 2]]  # (before: three runs, the last two changing nothing)


def test_a_pass_not_keeping_it_clean_runs_it_again():
    runs, tidy, move, spoil, _ = _toy_passes()
    tree = _run([Step(tidy), Step(move), Step(spoil), Step(tidy)], [1, 2])
    assert tree == [2, 1] and runs == [[1, 2], [2, 1, 0]]


def test_kept_clean_only_from_a_clean_state():
    runs, tidy, move, spoil, _ = _toy_passes()
    # (spoil, then move: move keeps tidy as it was, not clean)
    tree = _run([Step(tidy), Step(spoil), Step(move), Step(tidy)], [1])
    assert tree == [1] and runs == [[1], [0, 1]]
    runs.clear()
    tree = _run([Step(move), Step(tidy)], [0, 1])  # (no run of tidy yet: it runs)
    assert tree == [1] and runs == [[1, 0]]


def test_a_second_keeper_keeps_it_clean_and_a_later_change_does_not():
    runs, tidy, move, spoil, _ = _toy_passes()
    tree = _run([Step(tidy), Step(move), Step(move), Step(tidy), Step(spoil), Step(move),
                 Step(tidy)], [1, 2, 3])
    assert tree == [1, 2, 3]
    assert runs == [[1, 2, 3], [1, 2, 0, 3]]  # (the first skipped, the second run)


def test_verify_mode_runs_a_pass_kept_clean_and_catches_a_false_declaration():
    runs, tidy, move, _, lie = _toy_passes()
    tree = _run([Step(tidy), Step(move), Step(tidy)], [1, 2], verify=True)
    assert runs == [[1, 2], [2, 1]] and tree == [2, 1]  # (checked: nothing to do)
    with pytest.raises(AssertionError, match="lie said they leave clean"):
        _run([Step(tidy), Step(lie), Step(tidy)], [1], verify=True)
    runs.clear()  # (outside verify mode the declaration is trusted: the skip is the point)
    assert _run([Step(tidy), Step(lie), Step(tidy)], [1]) == [1, 0] and runs == [[1]]


def test_keeps_clean_names_idempotent_passes_only():
    _, _, move, _, _ = _toy_passes()
    with pytest.raises(ValueError, match="keeps_clean names idempotent passes only"):
        transform(keeps_clean=(move,))(lambda build: True)


def _chain(x, y):
    a = np.sin(x) * y
    b = a * x + np.cos(y)
    c = b * b - a / (1.0 + x * x)
    d = np.tanh(c) * a + b
    return d * y


def _chain_counted(x, y):  # (_chain, for one build only: a gradient built is kept)
    a = np.sin(x) * y
    b = a * x + np.cos(y)
    c = b * b - a / (1.0 + x * x)
    d = np.tanh(c) * a + b
    return d * y


def _central(f, args, i, h=1e-6) -> float:
    up, down = list(args), list(args)
    up[i] += h
    down[i] -= h
    return (f(*up) - f(*down)) / (2 * h)


def test_dead_code_is_skipped_after_forward_substitution_and_the_gradient_is_right(
        monkeypatch):
    ran = []
    run = pipeline.dead_code.run

    def counted(build, **analyses):
        ran.append(1)
        return run(build, **analyses)
    monkeypatch.setattr(pipeline.dead_code, "run", counted)
    args = (0.3, 0.7)
    gx, gy = s2sad.grad(_chain_counted, wrt=(0, 1))(*args)
    # (before: four runs; the one after forward substitution, and the one after the
    # terms combined, found nothing to drop)
    assert len(ran) == 2 + 1
    np.testing.assert_allclose([gx, gy], [_central(_chain, args, 0),
                                          _central(_chain, args, 1)], rtol=1e-6)


def _mlp(w1, w2, x):
    h = np.tanh(x @ w1)
    out = h @ w2
    return np.sum(out * out) / out.size + 0.01 * np.sum(w1 * w1)


def _loop(x, n):
    total = 0.0
    for i in range(n):
        total = total + np.sin(x * i) * x / (1.0 + i)
    return total


@pytest.mark.parametrize("options", [Options(), Options(nestable=True), Options(mode="forward")],
                         ids=["optimized", "nestable", "forward"])
def test_every_declaration_holds_in_verify_mode(monkeypatch, options):
    monkeypatch.setattr(pipeline, "PassManager", functools.partial(PassManager, verify=True))
    rng = np.random.default_rng(36)
    cases = [(_chain, ["x", "y"], (0.3, 0.7)), (_loop, ["x"], (0.4, 3)),
             (_mlp, ["w1", "w2"], (rng.normal(size=(3, 4)), rng.normal(size=(4, 2)),
                                   rng.normal(size=(5, 3))))]
    for f, wrt, args in cases:
        gradient = s2sad.grad(f, wrt=tuple(wrt))
        descriptors = gradient._split_key(gradient._key(list(args)))[1]
        pipeline.compile_gradient(f, wrt, arg_descriptors=descriptors,
                                  options=dataclasses.replace(options, as_tuple=True))


def test_the_mlp_gradient_matches_central_differences():
    rng = np.random.default_rng(7)
    w1, w2, x = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=(5, 3))
    g1, g2 = s2sad.grad(_mlp, wrt=(0, 1))(w1, w2, x)
    for w, g, i in ((w1, g1, 0), (w2, g2, 1)):
        fd = np.zeros_like(w)
        for j in np.ndindex(w.shape):
            e = np.zeros_like(w)
            e[j] = 1e-6
            args_up, args_down = [w1, w2, x], [w1, w2, x]
            args_up[i], args_down[i] = w + e, w - e
            fd[j] = (_mlp(*args_up) - _mlp(*args_down)) / 2e-6
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)


# --- assigned_names kept with the walk ---------------------------------------------------------

def _function():
    return gast.parse("def f(x):\n    y = x * 2.0\n    return y").body[0]


def test_assigned_names_kept_while_only_read_and_a_set_of_its_own(monkeypatch):
    tree, walks = _function(), []
    walk = trees.walk
    monkeypatch.setattr(trees, "walk", lambda node: walks.append(node) or walk(node))
    kept = {}
    with trees.kept_walks(kept):
        first = trees.assigned_names(tree)
        first.add("spoiled")  # (a caller's own set: the kept one stays as it was)
        again = trees.assigned_names(tree)
    assert sorted(again) == ["x", "y"] and walks == [tree]


def test_assigned_names_after_a_change_reads_the_tree_as_it_is():
    tree = _function()
    with trees.kept_walks({}):
        assert sorted(trees.assigned_names(tree)) == ["x", "y"]
    tree.body.insert(0, gast.parse("z = x").body[0])  # (a pass changes it: a new dict)
    with trees.kept_walks({}):
        assert sorted(trees.assigned_names(tree)) == ["x", "y", "z"]
    assert sorted(trees.assigned_names(tree)) == ["x", "y", "z"]  # (outside: no cache)


def test_start_names_at_a_pass_start_and_the_tree_changed_after():
    tree, kept = _function(), {}
    with trees.pass_start(tree, kept):
        assert sorted(trees.start_names(tree)) == ["x", "y"]
        tree.body.insert(0, gast.parse("z = x").body[0])  # (the pass changes its tree)
        assert sorted(trees.assigned_names(tree)) == ["x", "y", "z"]  # (not the kept)
    other = _function()
    with trees.pass_start(tree, {}):  # (another tree than the pass's: found afresh)
        assert sorted(trees.start_names(other)) == ["x", "y"]


def test_local_names_of_the_pipeline_follow_a_pass_that_adds_one():
    seen = []

    @analysis(reads="tree")
    def local_names(build):
        return trees.assigned_names(build.tree)

    @check(needs=(local_names,))
    def look(build, local_names):
        seen.append(sorted(local_names))
        return False

    @transform()
    def add(build):
        build.tree.body.insert(0, gast.parse("z = x").body[0])
        return True

    @check()
    def names_again(build):  # (a check reads the kept names: those of the tree now)
        seen.append(sorted(trees.assigned_names(build.tree)))
        return False

    PassManager([Step(look), Step(names_again), Step(add), Step(look), Step(names_again)],
                Stages(False, list)).run(Build(Options(), _function()))
    assert seen == [["x", "y"], ["x", "y"], ["x", "y", "z"], ["x", "y", "z"]]


def _squares(v):
    for i in range(3):
        yield v * i


def _gen(x):
    total = 0.0
    for s in _squares(x):
        total = total + np.sin(s)
    return total


def test_generators_and_normalize_take_the_names_at_their_start_and_are_right():
    g = s2sad.grad(_gen)(0.6)
    np.testing.assert_allclose(g, _central(_gen, (0.6,), 0), rtol=1e-6)
