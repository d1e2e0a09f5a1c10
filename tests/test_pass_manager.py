"""The pass manager (s2sad/pass_manager.py) and the pipeline it runs (s2sad/pipeline.py)."""

import dataclasses
import functools

import numpy as np
import pytest
import test_forward as F
import test_gradients as G

import s2sad
from s2sad import pipeline
from s2sad.options import Options
from s2sad.pass_manager import (
    ALL,
    Condition,
    FixedPoint,
    PassManager,
    Stages,
    Step,
    analysis,
    check,
    transform,
)


@dataclasses.dataclass
class Build:
    options: object
    tree: list
    other: list = dataclasses.field(default_factory=list)


OPTIONS = Options()
computed = []


@analysis(reads="tree")
def total(build):
    computed.append("total")
    return sum(build.tree)


@analysis(reads="tree", needs=(total,))
def mean(build, total):
    computed.append("mean")
    return total / len(build.tree)


@transform(needs=(total,))
def append_total(build, total):
    build.tree.append(total)
    return True


@transform(needs=(mean,))
def read_mean(build, mean):
    build.other.append(mean)
    return False


@transform(on="other", needs=(total,))
def copy_total(build, total):
    build.other.append(total)
    return True


def run(steps, tree=(1, 2, 3), keep=True):
    manager = PassManager(steps, Stages(keep, lambda tree: list(tree)))
    return manager.run(Build(OPTIONS, list(tree))), manager


def test_a_pass_that_does_not_say_whether_it_changed_the_tree_is_an_error():
    @transform()
    def silent(build):
        build.tree.append(0)

    with pytest.raises(TypeError, match=r"pass silent returned None, not whether it changed"):
        run([Step(silent)])


def test_an_analysis_is_kept_until_a_pass_changes_the_tree_it_reads():
    computed.clear()
    build, _ = run([Step(read_mean), Step(copy_total), Step(read_mean), Step(append_total),
                    Step(read_mean)])
    # total and mean once for the first two reads (copy_total changes another tree), then
    # again after append_total changed the tree they read
    assert computed == ["total", "mean", "total", "mean"]
    assert build.other == [2.0, 6, 2.0, 3.0] and build.tree == [1, 2, 3, 6]


def test_what_a_pass_keeps_is_not_computed_again():
    @transform(keeps=(total,))
    def shuffle(build):
        build.tree.reverse()
        return True

    computed.clear()
    run([Step(read_mean), Step(shuffle), Step(read_mean)])
    assert computed == ["total", "mean", "mean"]  # (mean reads total: kept, not recomputed)
    computed.clear()

    @transform(keeps=ALL)
    def annotate(build):
        build.tree.reverse()
        return True

    run([Step(read_mean), Step(annotate), Step(read_mean)])
    assert computed == ["total", "mean"]


def test_a_fixed_point_repeats_its_steps_until_nothing_changes():
    @transform(needs=(total,))
    def halve(build, total):
        if total < 4:
            return False
        build.tree = [x / 2 for x in build.tree]
        return True

    build, manager = run([FixedPoint(Step(halve))], tree=(8, 8))
    assert build.tree == [1.0, 1.0]
    assert [name for name, _ in manager.stages.texts] == ["halve"] * 4


def test_an_idempotent_pass_runs_again_only_after_a_change():
    runs = []

    @transform(idempotent=True)
    def dedupe(build):
        runs.append(list(build.tree))
        new = sorted(set(build.tree))
        changed, build.tree = new != build.tree, new
        return changed

    run([Step(dedupe), Step(dedupe), Step(append_total), Step(dedupe), Step(dedupe)],
        tree=(3, 1, 3))
    assert runs == [[3, 1, 3], [1, 3, 4]]


def test_a_step_after_others_runs_only_where_one_of_them_changed_the_tree():
    @transform()
    def nothing(build):
        return False

    @transform()
    def double(build):
        build.tree = build.tree * 2
        return True

    build, _ = run([Step(nothing), Step(double, after=(nothing,))])
    assert build.tree == [1, 2, 3]
    build, _ = run([Step(append_total), Step(double, after=(nothing, append_total))])
    assert build.tree == [1, 2, 3, 6] * 2


def test_conditions_are_over_the_options():
    optimize, debug_nans = Condition.flag("optimize"), Condition.flag("debug_nans")
    when = optimize & ~debug_nans
    assert when(Options()) and not when(Options(debug_nans=True))
    assert not when(Options(optimize=False)) and repr(when) == "optimize & ~debug_nans"
    build, manager = run([Step(append_total, when=debug_nans | ~optimize)])
    assert build.tree == [1, 2, 3] and manager.stages.texts == []


def test_a_stage_is_recorded_after_every_transform_and_none_after_a_check():
    @check(needs=(total,))
    def small(build, total):
        if total > 100:
            raise ValueError("too large")
        return False

    _, manager = run([Step(small), Step(append_total), Step(read_mean), Step(copy_total)])
    assert manager.stages.texts == [("append_total", [1, 2, 3, 6]),
                                    ("read_mean", [1, 2, 3, 6]),
                                    ("copy_total", [3.0, 12])]
    with pytest.raises(ValueError, match="too large"):
        run([Step(small)], tree=(100, 1))


def test_verification_finds_a_pass_that_changed_the_tree_and_said_it_did_not():
    import gast

    @transform()
    def lying(build):
        build.tree.body.append(gast.parse("y = 2").body[0])
        return False

    manager = PassManager([Step(lying)], Stages(False, list), verify=True)
    with pytest.raises(AssertionError, match="pass lying said it changed nothing"):
        manager.run(Build(OPTIONS, gast.parse("x = 1")))


def _verified_rows():
    return [p.values for p in G.CASES[::3]] + list(F.CONTROL)


@pytest.mark.parametrize("options", [Options(), Options(optimize=False, annotate=True),
                                     Options(debug_nans=True), Options(mode="forward"),
                                     Options(nestable=True)],
                         ids=["optimized", "annotated", "debug_nans", "forward", "nestable"])
def test_every_pass_of_the_pipeline_says_truly_whether_it_changed_the_tree(
        monkeypatch, options):
    monkeypatch.setattr(pipeline, "PassManager", functools.partial(PassManager, verify=True))
    for f, args, wrt in _verified_rows():
        gradient = s2sad.grad(f, wrt=wrt)
        descriptors = gradient._split_key(gradient._key(list(args)))[1]
        pipeline.compile_gradient(f, gradient._wrt_names, arg_descriptors=descriptors,
                                  options=dataclasses.replace(
                                      options, as_tuple=gradient._wrt_tuple))


def _sin_times(x):
    return np.sum(np.sin(x) * x)


def test_options_are_one_frozen_object_and_the_keywords_still_work():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Options().optimize = False
    by_keywords = pipeline.compile_gradient(_sin_times, ["x"], False, True)
    by_options = pipeline.compile_gradient(_sin_times, ["x"],
                                           options=Options(optimize=False, annotate=True))
    assert by_keywords.text == by_options.text and "# " in by_options.text
    with pytest.raises(TypeError, match="options or the options' keywords, not both"):
        pipeline.compile_gradient(_sin_times, ["x"], False, options=Options())


def test_the_stages_are_the_pipeline_s_passes_in_order():
    names = [name for name, _ in s2sad.grad(_sin_times).stages(np.ones(3))]
    steps = [s for step in pipeline.PIPELINE
             for s in (step.steps if isinstance(step, FixedPoint) else (step,))]
    remaining = iter(step.pass_.name for step in steps)
    assert names[0] == "source" and all(name in remaining for name in names[1:]), names
    # (dead_code three times: the last after plain_numpy, whose kinds of np.sin(x) leave
    # the spread of the seed unread)
    assert names.count("dead_code") == 3 and "reverse" in names and "nan_check" not in names


def _untouched_tree_steps():
    """A pass that leaves a gast tree as it is, asking ``rewritten`` whether it changed it;
    what it was told is kept in ``told``."""
    import gast

    from s2sad.pass_manager import rewritten
    told = []

    @transform()
    def untouched(build):
        build.tree, changed = rewritten(lambda tree: tree, build.tree)
        told.append(changed)
        return changed

    @transform(idempotent=True)
    def tidy(build):
        return False

    @analysis(reads="tree")
    def size(build):
        return len(build.tree.body)

    @transform(on="other", needs=(size,))
    def read_size(build, size):
        build.other.append(size)
        return True

    def run_on(steps):
        told.clear()
        PassManager(steps, Stages(False, list)).run(Build(OPTIONS, gast.parse("x = 1")))
        return told

    return untouched, tidy, read_size, run_on


def test_a_pass_is_told_truly_whether_it_changed_the_tree_where_that_is_read():
    untouched, tidy, read_size, run_on = _untouched_tree_steps()
    # read: a fixed point (said True, it would never end), a step run after it, a later
    # idempotent pass that has run, an analysis of the tree cached
    assert run_on([FixedPoint(Step(untouched))]) == [False]
    assert run_on([Step(untouched), Step(tidy, after=(untouched,))]) == [False]
    assert run_on([Step(tidy), Step(untouched), Step(tidy)]) == [False]
    assert run_on([Step(read_size), Step(untouched)]) == [False]
    # read by nothing: the trees are not compared, and a change is said, maybe
    assert run_on([Step(untouched)]) == [True]
    assert run_on([Step(untouched), Step(tidy)]) == [True]  # (its first run: it runs anyway)
    assert run_on([Step(untouched), Step(read_size)]) == [True]  # (computed after it)


def test_verification_compares_the_trees_even_where_nothing_reads_the_answer():
    import gast
    untouched, _, _, _ = _untouched_tree_steps()
    manager = PassManager([Step(untouched)], Stages(False, list), verify=True)
    tree = gast.parse("x = 1")
    assert manager.run(Build(OPTIONS, tree)).tree is tree and manager.changed[untouched] is False
