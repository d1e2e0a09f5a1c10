"""A small pass manager: the pipeline as a list of steps over one build.

>>> from dataclasses import dataclass
>>> @dataclass
... class Build:
...     options: object
...     tree: list
>>> @analysis(reads="tree")
... def length(build):
...     return len(build.tree)
>>> @transform(on="tree", needs=(length,))
... def halve(build, length):
...     if length < 2:
...         return False
...     build.tree = build.tree[:length // 2]
...     return True
>>> build = Build(None, list(range(8)))
>>> manager = PassManager([FixedPoint(Step(halve))], Stages(keep=True, show=str))
>>> manager.run(build).tree, [name for name, _ in manager.stages.texts]
([0], ['halve', 'halve', 'halve', 'halve'])

A step runs one pass when its condition on the options holds (``Step(dead_code,
when=optimize & ~debug_nans)``). Each pass says whether it changed its tree: a pass that
returns anything but ``True`` or ``False`` is an error. An analysis is computed once and
kept until a pass changes the tree it reads, unless that pass declares it keeps it
(MLIR's preserved analyses). A :class:`FixedPoint` repeats its steps until none changes
anything. The source after every step is kept as a stage, named after its pass.

An idempotent pass that has nothing to do (it ran, and nothing changed its tree since) is
skipped. So is one that had nothing to do before a pass declaring it ``keeps_clean``: a
pass that moves what statements read but drops no read leaves no dead code behind.

>>> @transform(idempotent=True)
... def tidy(build):
...     runs.append(len(build.tree))
...     return False
>>> @transform(keeps_clean=(tidy,))
... def grow(build):
...     build.tree = build.tree + [0]
...     return True
>>> runs = []
>>> _ = PassManager([Step(tidy), Step(grow), Step(tidy)], Stages(False, str)).run(build)
>>> runs  # (its second run skipped: grow keeps it clean)
[1]

A pass that cannot tell whether it changed its tree compares the trees (:func:`rewritten`)
only where the answer is read: by a later idempotent pass that has run, an analysis
cached, a step run ``after`` it or a fixed point. Elsewhere it says True (a change, maybe).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from dataclasses import dataclass, field

from .trees import kept_walks, pass_start, start_walk, walk


class Analysis:
    """A read-only fact about a build, computed on demand and cached: ``reads`` names the
    build's tree it depends on (None: no tree); ``needs``: the analyses it reads, handed
    to ``compute`` by name."""

    def __init__(self, compute: Callable, reads: str | None, needs: tuple = ()):
        self.compute = compute
        self.reads = reads
        self.needs = tuple(needs)
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __repr__(self) -> str:
        return f"<analysis {self.name}>"


def analysis(reads: str | None = None, needs: tuple = ()) -> Callable[[Callable], Analysis]:
    """Declare ``compute(build, **analyses)`` an analysis of the tree ``build.<reads>``."""
    return lambda compute: Analysis(compute, reads, needs)


class Pass:
    """A pass: ``run(build, **analyses)`` changes ``build.<on>`` and returns whether it
    did. ``needs``: the analyses it reads, handed to it by name; ``keeps``: those still
    true after it changes the tree (``ALL``: every one); ``idempotent``: a second run on
    what it left changes nothing, so the manager skips it then; ``keeps_clean``: the
    idempotent passes that, with nothing to do before it changes the tree, still have
    nothing to do after; ``stage``: its name in the stages (its function's name unless
    given)."""

    def __init__(self, run: Callable, on: str | None, needs: tuple, keeps, idempotent: bool,
                 stage: str | None, keeps_clean: tuple = ()):
        self.run = run
        self.on = on
        self.needs = tuple(needs)
        self.keeps = keeps
        self.idempotent = idempotent
        self.keeps_clean = tuple(keeps_clean)
        if not all(p.idempotent for p in self.keeps_clean):
            raise ValueError(f"{run.__name__}: keeps_clean names idempotent passes only")
        self.name = stage or run.__name__
        self.__doc__ = run.__doc__

    def __repr__(self) -> str:
        return f"<pass {self.name}>"


ALL = "all"


def transform(on: str = "tree", needs: tuple = (), keeps=(), idempotent: bool = False,
              stage: str | None = None, keeps_clean: tuple = ()) -> Callable[[Callable], Pass]:
    """Declare ``run(build, **analyses) -> bool`` a pass changing ``build.<on>``."""
    return lambda run: Pass(run, on, needs, keeps, idempotent, stage, keeps_clean)


def check(needs: tuple = ()) -> Callable[[Callable], Pass]:
    """Declare ``run(build, **analyses)`` a pass that only refuses: it raises or returns
    False, changes no tree and records no stage."""
    return lambda run: Pass(run, None, needs, ALL, False, None)


class Condition:
    """A condition on a build's options, made of flags with ``&``, ``|`` and ``~``.

    >>> from types import SimpleNamespace
    >>> optimize, debug_nans = Condition.flag("optimize"), Condition.flag("debug_nans")
    >>> (optimize & ~debug_nans)(SimpleNamespace(optimize=True, debug_nans=False))
    True
    """

    def __init__(self, test: Callable, text: str):
        self.test = test
        self.text = text

    @classmethod
    def flag(cls, name: str) -> Condition:
        return cls(lambda options: bool(getattr(options, name)), name)

    def __call__(self, options) -> bool:
        return self.test(options)

    def __and__(self, other: Condition) -> Condition:
        return Condition(lambda o: self(o) and other(o), f"{self.text} & {other.text}")

    def __or__(self, other: Condition) -> Condition:
        return Condition(lambda o: self(o) or other(o), f"({self.text} | {other.text})")

    def __invert__(self) -> Condition:
        return Condition(lambda o: not self(o), f"~{self.text}")

    def __repr__(self) -> str:
        return self.text


ALWAYS = Condition(lambda options: True, "always")


@dataclass(frozen=True)
class Step:
    """One line of a pipeline: run ``pass_`` where ``when`` holds for the options, and,
    given ``after``, only where one of those passes changed the tree this build."""
    pass_: Pass
    when: Condition = ALWAYS
    after: tuple = ()


@dataclass(frozen=True)
class FixedPoint:
    """Steps repeated, in order, until a round of them changes nothing (a fixed point)."""
    steps: tuple
    when: Condition = ALWAYS

    def __init__(self, *steps: Step, when: Condition = ALWAYS):
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "when", when)


@dataclass
class Stages:
    """The source after each pass, made into text only when asked for (it costs as much
    as the passes themselves); ``show`` makes a tree into text."""
    keep: bool
    show: Callable
    texts: list = field(default_factory=list)

    def record(self, name: str, tree) -> None:
        if self.keep:
            self.texts.append((name, self.show(tree)))


class PassManager:
    """Runs ``pipeline`` (a list of :class:`Step` and :class:`FixedPoint`) on a build,
    supplying each pass the analyses it needs and recording ``stages``."""

    def __init__(self, pipeline: list, stages: Stages, verify: bool = False):
        self.pipeline = pipeline
        self.stages = stages
        self.verify = verify  # compare the trees too: a pass saying False that changed
        # its tree is an error (for tests: it costs a walk of the tree per pass)
        self.cache: dict[Analysis, object] = {}
        self.changed: dict[Pass, bool] = {}  # each pass's latest report, this build
        self.version: dict[str, int] = {}  # how many changes each tree has had
        self.clean: dict[Pass, int] = {}  # an idempotent pass: the version it left
        # an idempotent pass held clean by others' keeps_clean, not by a run of its own:
        # the passes that said so (verify mode runs it all the same, to check them)
        self.vouched: dict[Pass, list] = {}
        key = tuple(map(id, pipeline))  # (its steps are frozen: the same for every build)
        held = _READERS.get(key)
        if held is None:
            if len(_READERS) > 64:  # (tests make pipelines of their own: a few kept)
                _READERS.clear()
            held = _READERS[key] = (tuple(pipeline), _readers(pipeline))  # (steps held:
        self.watched, self.later = held[1]  # their ids are not reused)
        # the walks of whole functions that analyses and checks made (they only read):
        # kept for the next reader, until a pass that may change a tree runs
        self.walks: dict = {}

    def run(self, build):
        """Run every step on ``build`` and return it."""
        for step in self.pipeline:
            if step.when(build.options):
                if isinstance(step, FixedPoint):
                    self._fixed_point(build, step)
                else:
                    self._step(build, step)
        return build

    def analysis(self, build, wanted: Analysis):
        """The value of ``wanted`` for ``build`` now (cached until a pass changes its tree)."""
        if wanted not in self.cache:
            needs = {a.name: self.analysis(build, a) for a in wanted.needs}
            before = _trees(build) if self.verify else None
            with kept_walks(self.walks):
                self.cache[wanted] = wanted.compute(build, **needs)
            if before is not None and _trees(build) != before:
                raise AssertionError(f"analysis {wanted.name} changed a tree")
        return self.cache[wanted]

    def _fixed_point(self, build, group: FixedPoint) -> None:
        changed = True
        while changed:
            changed = False
            for step in group.steps:
                if step.when(build.options):
                    changed = self._step(build, step) or changed

    def _step(self, build, step: Step) -> bool:
        pass_ = step.pass_
        if step.after and not any(self.changed.get(p) for p in step.after):
            return False
        tree = pass_.on
        if pass_.idempotent and self.clean.get(pass_) == self.version.get(tree, 0) and \
                not (self.verify and pass_ in self.vouched):
            return False  # (nothing changed since it last ran, or only passes keeping it clean)
        before = _fingerprint(getattr(build, tree)) if self.verify and tree and \
            getattr(build, tree) is not None else None
        analyses = {a.name: self.analysis(build, a) for a in pass_.needs}
        told = _TELL.set(self._read(step, tree))  # (once its analyses are in the cache)
        walks = self.walks
        if tree is None:  # (a check, or a pass on no tree: it reads them, as analyses do)
            kept = kept_walks(walks)
            untouched = _trees(build) if self.verify else None
        else:  # (it may change its tree in place: no walk kept while it runs, but for its
            self.walks = {}  # start_walk; those made before hold again if it says it
            kept = pass_start(getattr(build, tree), walks)  # changed nothing)
        try:
            with kept:
                changed = pass_.run(build, **analyses)
        finally:
            _TELL.reset(told)
        if tree is not None and changed is False:
            self.walks = walks
        if tree is None and untouched is not None and _trees(build) != untouched:
            raise AssertionError(f"pass {pass_.name} changes no tree, and changed one")
        if changed is not True and changed is not False:
            raise TypeError(f"pass {pass_.name} returned {changed!r}, not whether it "
                            "changed the tree (True or False)")
        if before is not None and not changed and _fingerprint(getattr(build, tree)) != before:
            raise AssertionError(f"pass {pass_.name} said it changed nothing, and changed "
                                 f"build.{tree}")
        vouched = self.vouched.pop(pass_, None)
        if vouched and changed:
            raise AssertionError(f"pass {pass_.name} changed build.{tree}, which "
                                 f"{', '.join(vouched)} said they leave clean (keeps_clean)")
        self.changed[pass_] = changed
        if tree is None:
            return False
        if changed:
            old = self.version.get(tree, 0)
            self.version[tree] = old + 1
            if pass_.keeps != ALL:
                self._invalidate(tree, pass_.keeps)
            vouched = {p: names for p, names in self.vouched.items() if p.on != tree}
            for kept in pass_.keeps_clean:  # (clean before it: clean after it)
                if kept.on == tree and self.clean.get(kept) == old:
                    self.clean[kept] = old + 1
                    vouched[kept] = self.vouched.get(kept, []) + [pass_.name]
            self.vouched = vouched  # (those of this tree that it did not keep: not clean)
        if pass_.idempotent:
            self.clean[pass_] = self.version.get(tree, 0)
        self.stages.record(pass_.name, getattr(build, tree))
        return changed


    def _read(self, step: Step, tree: str | None) -> bool:
        """Will anything read whether ``step`` changed ``tree``: a fixed point or a step
        ``after`` it, a later idempotent pass that has run, an analysis of it cached?"""
        return self.verify or tree is None or id(step) in self.watched or \
            any(p in self.clean for p in self.later.get(id(step), ())) or \
            any(a.reads == tree for a in self.cache)

    def _invalidate(self, tree: str, keeps) -> None:
        """Forget the analyses of ``tree`` but ``keeps``, and those that read them."""
        stale = {a for a in self.cache if a.reads == tree and a not in keeps}
        while stale:
            for gone in stale:
                del self.cache[gone]
            stale = {a for a in self.cache if a not in keeps and
                     any(n not in self.cache for n in a.needs)}


_READERS: dict = {}  # the ids of a pipeline's steps -> (its steps, _readers of it)


def _readers(pipeline: list) -> tuple[set, dict]:
    """``(watched, later)`` for ``pipeline``: the ids of the steps whose report a step
    reads (in a fixed point, or named in a step's ``after``), and for each step's id
    the idempotent passes on its tree that come after it."""
    steps = [(s, isinstance(step, FixedPoint)) for step in pipeline
             for s in (step.steps if isinstance(step, FixedPoint) else (step,))]
    named = {p for s, _ in steps for p in s.after}
    watched = {id(s) for s, looped in steps if looped or s.pass_ in named}
    later: dict = {}  # (a step given twice: what follows either)
    for i, (s, _) in enumerate(steps):
        later.setdefault(id(s), set()).update(
            t.pass_ for t, _ in steps[i + 1:] if t.pass_.idempotent and t.pass_.on == s.pass_.on)
    return watched, later


# whether the pass running now must say exactly whether it changed its tree
_TELL = contextvars.ContextVar("s2sad_tell_changes", default=True)


def rewritten(visit: Callable, tree) -> tuple:
    """``(visit(tree), changed)`` for a pass that cannot tell whether it changed the tree:
    the trees before and after are compared node by node (identity, fields, shape), where
    the pass manager reads the answer; elsewhere ``changed`` is True (it may have).

    >>> import gast
    >>> tree = gast.parse("x = 1")
    >>> rewritten(lambda t: t, tree)[1], rewritten(lambda t: gast.parse("x = 1"), tree)[1]
    (False, True)
    """
    if not _TELL.get():
        return visit(tree), True
    before = _fingerprint(tree, start_walk(tree))  # (the pass has changed nothing yet)
    new = visit(tree)
    if new is not tree:  # (a new tree: its fingerprint starts with another node)
        return new, True
    return new, _fingerprint(new) != before


def _trees(build) -> list:
    """The fingerprints of the trees a pipeline's build holds (``tree``, ``adjoint``)."""
    return [_fingerprint(t) if t is not None else None
            for t in (getattr(build, "tree", None), getattr(build, "adjoint", None))]


def _fingerprint(tree, nodes=None) -> list:
    """Every node of ``tree`` (held, so no id is reused), in order, with its fields' values
    and its lists as tuples: equal exactly when nothing was changed (``nodes``: its walk).
    A node holding no list (a name, a constant, ``a + b``: most of them) has its values
    taken as they are, a test of their types made in C, not a look at each in Python."""
    out = []
    append, extend = out.append, out.extend
    for node in walk(tree) if nodes is None else nodes:
        append(node)
        values = node.__dict__.values()
        if list in map(type, values):
            extend([tuple(v) if type(v) is list else v for v in values])
        else:
            extend(values)
    return out
