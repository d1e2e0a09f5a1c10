"""Random, well-conditioned Python/NumPy programs for differential fuzzing.

``generate(choices)`` writes a module: a few helper functions ``h0, h1, ...``
and the function ``f`` that ``tests/test_fuzz.py`` differentiates and checks
against central finite differences. Programs use what s2sad supports:
straight-line code over floats, vectors of ``N`` floats and ``N x N`` matrices,
``if/elif/else`` on runtime comparisons, ``for`` over ranges and arrays
(``zip``, ``enumerate``), ``while`` loops whose trip count depends on the data
(bounded by a counter), ``break``/``continue``, early returns, in-place updates
``y[i] = ...`` of arrays the function made, calls between the generated
functions (keywords, defaults), module globals, and user names that look like
the generated ones (``s_x``, ``t_1``, ``stack``, ``cond_1``, ``unbroadcast``); and
the patterns of issue 32: casts, views (read, and written through), calls s2sad has no
rule for (on constants; on a differentiated value, where a refusal is the expected
answer: ``Program.expect_refusal``), list slots read then stored, scalars taken from
arrays by an index, recursion, nested functions with defaults, and returns inside loops.

The math stays well-conditioned: every value is bounded by ``CAP`` (an
assignment whose bound could exceed it is squashed with ``tanh``), ``exp`` only
sees bounded arguments, ``log`` and ``sqrt`` only ``1 + u**2``, division only
``1 + u**2`` or ``2 + cos(u)``, and nothing has a kink (no ``abs``, ``max``,
``where``). Every float comparison is written twice: plainly in ``source``, and
as ``_cmp(left, op, right)`` in ``traced``, which records the outcome and the
margin ``left - right``, so the checker can tell when a finite difference
crosses a branch; so is every value a cast or a step jumps on (``bool``, ``int``,
``np.floor``, ``x > 0.1``), as ``_cut(value, at)`` (see ``Gen.cut``).

Decisions come from a ``Choices``: hypothesis draws (shrinking toward 0, the
simplest choice, so a failing program shrinks to a small one) or a
``random.Random``. Run ``python -m tests.fuzzgen [seed]`` to print a program.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

N = 3          # length of every vector; matrices are N x N
CAP = 4.0      # bound on the absolute value of every float the program holds
ARG_BOUND = 2.0  # arguments are drawn in [-ARG_BOUND, ARG_BOUND]

# names a user might pick that look like what s2sad generates
FLOAT_NAMES = ["a", "b", "c", "u", "z", "s_x", "t_1", "s_1", "t_2", "stack", "ret", "cond_2",
               "result_1", "x_1", "s_z", "unbroadcast", "as_gradient", "sum_grad", "g", "_s"]
INT_NAMES = ["i", "j", "k", "trips_1", "cond_1", "_", "n_1", "t_9"]
SCALAR_PARAMS = ["x", "y", "s_y", "t_3"]
VECTOR_PARAMS = ["v", "w", "s_v"]
MATRIX_PARAMS = ["M", "W"]
HELPER_PARAMS = ["p", "q", "r"]
CONSTANTS = ["0.5", "1.5", "-0.7", "2.0", "0.3", "-1.2"]
THRESHOLDS = ["0.0", "0.3", "-0.4", "0.8", "-1.0", "1.5"]
NUMPY_ALIASES = ["np", "numpy", "onp"]



class FuzzState:
    """The object a generated ``f`` may be given (``model``, issue 35): ``model.step(t)``
    counts its calls and caches what it sees, changes s2sad runs in the forward sweep
    once per gradient call; its value, ``np.tanh(t)``, reads no state."""

    def __init__(self):
        self.calls = 0
        self.seen = []

    def step(self, t):
        self.calls += 1
        self.seen.append(t)
        return np.tanh(t)


# Known s2sad bugs the generator steers clear of, so that fuzzing finds new ones. Each
# has a strict-xfail regression test in tests/test_fuzz.py; S2SAD_FUZZ_KNOWN=1 generates
# them anyway.
AVOID_KNOWN_BUGS = os.environ.get("S2SAD_FUZZ_KNOWN") != "1"

# Root causes of issue 32 the newer patterns hit, one flag each, so that the quick profile
# stays at 0 wrong and 0 internal errors while they are open (tests/test_operation_table.py
# holds a row for each). Clear a flag when its cause is fixed: False is a cause fixed, whose
# pattern is generated again.
AVOID_INT_CASTS = False        # root cause 2: an int or bool cast taken for identity
AVOID_SHARING_CALLS = False    # root cause 3: ``z.conj()``, ``np.float64(z)``,
#                                           ``np.nan_to_num(z, copy=False)`` return ``z``
AVOID_RECURSION_SECOND_ORDER = False  # root cause 7 (the checker skips grad(grad))
AVOID_RECURSION_IN_LOOPS = False         # fixed: a recursive helper called in a loop on
#                                           a constant (``u *= h(0.25 * j, 2)``) read
#                                           'recursive_call' undefined (Normalize._restore)
AVOID_DEFAULT_REBINDING = False  # root cause 11: a default read at the call
AVOID_VIEW_WRITES = AVOID_KNOWN_BUGS      # false refusals: a write through a view is refused
AVOID_VIEW_METHOD = AVOID_KNOWN_BUGS      # false refusals: ``z.view()`` has no rule
AVOID_ITEM_UPDATED = False                # fixed: ``g = a[0]; g *= ...`` (``a`` a helper's
#                                           parameter, or ``M[-1, k]``), and ``a = z[2];
#                                           z[2] = ...`` where s2sad cannot tell that ``z``
#                                           is 1-d were refused ("shares its memory with
#                                           'a'"), and ``t = M.T[1, -1]; t *= ...`` on the
#                                           argument M ("an in-place update of the argument
#                                           'M'", about 0.14% of the long profile): a
#                                           number checked at run time
AVOID_NEXT_AFTER_STATE = False  # fixed: ``next(it)`` after ``model.step(x)`` stored x
#                                           in the object was taken for a read of its
#                                           attributes (attributes._Reach: a call reads an
#                                           object only if one reaches it; test_fuzz:
#                                           test_next_after_an_object_store_is_not_refused)
AVOID_GLOBAL_ITEM_WITH_STATE = False  # fixed: ``np.sum(G0[1])`` (an item of a module
#                                           array) with ``model.step(x)`` caching x: the
#                                           call was taken for a read of any object's
#                                           attributes (test_fuzz: test_a_module_arrays_...)
AVOID_STATE_WITH_RECURSION = False  # fixed: ``model.step(a)`` in ``f`` beside a call of
#                                           a recursive helper was refused ("a change to
#                                           an object's state in a recursive function"),
#                                           though only the helper's levels run again; now
#                                           refused only on a cycle of the call graph
#                                           (transforms/call_cycles.py); 5 of 250 quick
#                                           programs (test_recursion_state_s36.py)
AVOID_CONSTANT_RETURN_IN_LOOP = False    # fixed: a loop holding a `return` and an
#                                           ``if 0.5 < 0.3:`` read an unassigned 'result_1'


class Choices:
    """Where a program's decisions come from. ``int(lo, hi)`` includes both ends;
    0 (``lo``) is always the simplest choice."""

    def __init__(self, draw_int: Callable[[int, int], int],
                 draw_real: Callable[[float, float], float]):
        self._int = draw_int
        self._real = draw_real

    @classmethod
    def from_random(cls, rng: random.Random) -> Choices:
        return cls(rng.randint, rng.uniform)

    @classmethod
    def from_hypothesis(cls, draw) -> Choices:
        """``draw`` is a composite strategy's ``draw`` (or ``data.draw``)."""
        from hypothesis import strategies as st
        return cls(lambda lo, hi: draw(st.integers(lo, hi)),
                   lambda lo, hi: draw(st.floats(lo, hi, allow_nan=False,
                                                 allow_infinity=False)))

    def int(self, lo: int, hi: int) -> int:
        return self._int(lo, hi) if hi > lo else lo

    def real(self, lo: float, hi: float) -> float:
        return self._real(lo, hi)

    def pick(self, seq):
        return seq[self.int(0, len(seq) - 1)]

    def chance(self, percent: int) -> bool:
        """True about ``percent`` % of the time; shrinks toward False."""
        return self.int(0, 99) >= 100 - percent


@dataclass
class Var:
    kind: str                 # "s" float, "v" vector, "m" matrix, "i" int
    bound: float = CAP        # |value| <= bound (for "i": the largest value)
    owned: bool = False       # no other name refers to the value: it may be updated in place
    readonly: bool = False    # a module global: read, never assigned


@dataclass
class E:
    """An expression: its source, a bound on its absolute value, and whether it
    builds a new array (not a view of, or another name for, an existing one)."""
    src: str
    bound: float
    fresh: bool = True


@dataclass
class Program:
    source: str                       # the module to differentiate
    traced: str = field(repr=False)   # the same module, recording every float comparison
    params: list = field(default_factory=list)  # [(name, kind)] of ``f``
    main: str = "f"
    stats: dict = field(default_factory=dict, repr=False)
    expect_refusal: bool = False      # a call s2sad has no rule for gets a differentiated value

    def float_params(self) -> list[str]:
        return [p for p, k in self.params if k != "i"]


@dataclass
class _Ctx:
    returns: str            # kind the function returns
    loop: bool = False      # inside a loop body
    top: bool = True        # at the top level of the function body (early return allowed)
    depth: int = 0          # nesting of blocks


class Gen:
    """Generates one program from ``choices``."""

    def __init__(self, choices: Choices, max_statements: int = 8, max_helpers: int = 2):
        self.ch = choices
        self.max_statements = max_statements
        self.max_helpers = max_helpers
        self.conds: list[tuple[str, str, str]] = []
        self.cuts: list[tuple[str, float | None]] = []  # where a cast jumps: see cut()
        self.helpers: list[tuple] = []  # (name, [(param, kind, default)], kind, lines)
        self.globals: dict[str, Var] = {}
        self.stats: dict[str, int] = {}
        self.params: set[str] = set()
        self.tainted: set[str] = set()
        self.safe_index: set[str] | None = None  # inside a branch: the names made before it
        self.returned_early = False
        self.in_helper = False
        self.alias = "np"
        self.indexing_helpers: set[str] = set()
        self.recursive: str | None = None  # the name of the recursive helper, if any
        self.loops = 0  # how many loops the code being generated is in
        self.expect_refusal = False
        self.generators: list[list[str]] = []  # module-level generators (issue 35)
        self.uses_next = False  # (a helper takes ``next``: see AVOID_NEXT_AFTER_STATE)

    # --- bookkeeping ---------------------------------------------------------------------

    def note(self, feature: str) -> None:
        self.stats[feature] = self.stats.get(feature, 0) + 1

    @contextlib.contextmanager
    def branch(self, env):
        """Generate code that runs only when a branch is taken."""
        outer = self.safe_index
        if outer is None:
            self.safe_index = set(env)
        try:
            yield
        finally:
            self.safe_index = outer

    def subscriptable(self, env, e: E, kind: str) -> E | None:
        """``e``, to be indexed; in a branch, a name made before the branch (or None).

        (Known bug: s2sad makes the sensitivity of what a branch indexes before the reverse
        sweep, also when the branch did not run and the value does not exist.)"""
        if self.safe_index is None or not AVOID_KNOWN_BUGS:
            return e
        if e.src in self.safe_index and e.src in env and env[e.src].kind == kind:
            return e
        names = [n for n in self.vars_of(env, kind) if n in self.safe_index]
        if not names:
            return None
        name = self.ch.pick(names)
        return E(name, env[name].bound, fresh=False)

    def vars_of(self, env: dict, kinds: str, owned: bool = False, writable: bool = False):
        return [n for n, v in sorted(env.items()) if v.kind in kinds
                and (not owned or (v.owned and n not in self.tainted))
                and (not writable or not v.readonly)]

    def new_name(self, env: dict, kind: str) -> str:
        """A name for a new variable of ``kind`` (one kind per name in a function)."""
        pool = INT_NAMES if kind == "i" else FLOAT_NAMES
        free = [n for n in pool if self.kinds.get(n, kind) == kind and n not in env
                and n not in self.globals]
        name = self.ch.pick(free) if free else f"{kind}{len(self.kinds)}"
        self.kinds[name] = kind
        return name

    # --- expressions ---------------------------------------------------------------------

    def expr(self, env, kind: str, depth: int) -> E:
        return {"s": self.scalar, "v": self.vector, "m": self.matrix}[kind](env, depth)

    def const(self) -> E:
        c = self.ch.pick(CONSTANTS)
        return E(c, abs(float(c)))

    def leaf(self, env, kind: str) -> E:
        names = self.vars_of(env, kind)
        if kind == "s" and (not names or self.ch.chance(15)):
            return self.const()
        if not names:
            if kind == "v":
                return self.ch.pick([E(f"np.ones({N})", 1.0),
                                     E(f"np.linspace(-0.5, 1.0, {N})", 1.0),
                                     E(f"np.full({N}, 0.25)", 0.25)])
            return E(f"np.eye({N})", 1.0)
        name = self.ch.pick(names)
        return E(name, env[name].bound, fresh=False)

    def cond(self, env, depth: int) -> str:
        """A condition: float comparisons (recorded in the traced program), and/or/not."""
        shape = self.ch.int(0, 4) if depth > 0 else 0
        if shape == 3:
            a = self.cond(env, 0)
            with self.branch(env):  # evaluated only if the first one does not decide
                b = self.cond(env, 0)
            return f"({a} {self.ch.pick(['and', 'or'])} {b})"
        if shape == 4:
            return f"(not {self.cond(env, 0)})"
        left = self.scalar(env, max(depth - 1, 0) if shape < 2 else min(depth, 2))
        op = self.ch.pick([">", "<", ">=", "<="])
        self.conds.append((left.src, op, self.ch.pick(THRESHOLDS)))
        self.note("comparison")
        return f"@@{len(self.conds) - 1}@@"

    def unary(self, a: E, scalar: bool) -> E:
        forms = [("np.sin({})", lambda b: 1.0), ("np.cos({})", lambda b: 1.0),
                 ("np.tanh({})", lambda b: 1.0), ("np.square({})", lambda b: b * b),
                 ("({}) ** 2", lambda b: b * b), ("(-{})", lambda b: b),
                 ("np.log(1.0 + np.square({}))", lambda b: 1.0 + b * b),
                 ("np.sqrt(1.0 + np.square({}))", lambda b: 1.0 + b),
                 ("np.arctan({})", lambda b: 1.6), ("np.log1p(({}) ** 2)", lambda b: 1.0 + b * b),
                 ("(1.0 / (1.0 + np.exp(-{})))", lambda b: 1.0), ("np.arcsinh({})", lambda b: b),
                 ("np.expm1(np.tanh({}))", lambda b: 1.8)]
        if scalar:
            forms += [("math.sin({})", lambda b: 1.0), ("math.cos({})", lambda b: 1.0),
                      ("math.tanh({})", lambda b: 1.0),
                      ("math.sqrt(1.0 + ({}) ** 2)", lambda b: 1.0 + b)]
        if a.bound <= 2.0:
            forms.append(("np.exp({})", lambda b: 7.4))
            if scalar:
                forms.append(("math.exp({})", lambda b: 7.4))
        else:
            forms.append(("np.exp(np.tanh({}))", lambda b: 2.8))
        template, bound = self.ch.pick(forms)
        self.note("unary")
        src = a.src
        return E(template.format(src), bound(a.bound))

    def binary(self, a: E, b: E) -> E:
        op = self.ch.int(0, 4)
        self.note("binary")
        if op == 3:
            return E(f"({a.src} / (1.0 + np.square({b.src})))", a.bound)
        if op == 4:
            return E(f"({a.src} / (2.0 + np.cos({b.src})))", a.bound)
        symbol = "+-*"[op]
        bound = a.bound * b.bound if symbol == "*" else a.bound + b.bound
        return E(f"({a.src} {symbol} {b.src})", bound)

    def ifexp(self, env, kind: str, depth: int) -> E:
        with self.branch(env):
            a, b = self.expr(env, kind, depth - 1), self.expr(env, kind, depth - 1)
        self.note("ifexp")
        return E(f"({a.src} if {self.cond(env, depth - 1)} else {b.src})",
                 max(a.bound, b.bound), fresh=a.fresh and b.fresh)

    def call(self, env, kind: str, depth: int) -> E | None:
        options = [h for h in self.helpers if h[2] == kind and not (
            self.safe_index is not None and h[0] in self.indexing_helpers)]
        if not options:
            return None
        name, params = self.ch.pick(options)[:2]
        args, keywords = [], False
        for pname, pkind, default in params:
            if default is not None and self.ch.chance(40):
                keywords = True  # skipped: later arguments go by keyword
                continue
            value = self.expr(env, pkind, max(depth - 1, 0)).src
            keywords = keywords or self.ch.chance(25)
            args.append(f"{pname}={value}" if keywords else value)
        self.note("call")
        return self.call_form(env, name, params, args, depth)

    def call_form(self, env, name: str, params: list, args: list[str], depth: int) -> E:
        """The call of helper ``name`` with ``args``, written as people write calls
        (issue 35): ``h(*(a, b))``, ``h(a, **{"q": b})``, ``functools.partial(h, a)(b)``,
        ``functools.partial(h, *(a, b))(c)``, or, for a helper of one parameter,
        ``sum(map(h, [a, b]))``."""
        positional = [a for a in args if not re.match(r"\w+=(?!=)", a)]
        named = args[len(positional):]
        form = self.ch.int(0, 7)
        if form == 1 and positional:
            self.note("star-call")
            return E(f"{name}(*({', '.join(positional)},), {', '.join(named)})".replace(
                ", )", ")"), CAP, fresh=False)
        if form == 2 and (named or positional):
            if not named:  # (the last positional one, by keyword)
                named = [f"{params[len(positional) - 1][0]}={positional.pop()}"]
            self.note("double-star-call")
            pairs = ", ".join(f"'{a.split('=', 1)[0]}': {a.split('=', 1)[1]}" for a in named)
            return E(f"{name}({''.join(p + ', ' for p in positional)}**{{{pairs}}})", CAP,
                     fresh=False)
        if form == 3 and positional:
            self.note("partial-call")
            rest = positional[1:] + named
            return E(f"functools.partial({name}, {positional[0]})({', '.join(rest)})", CAP,
                     fresh=False)
        if form == 5 and len(positional) >= 2:
            self.note("partial-star-call")
            rest = positional[2:] + named
            return E(f"functools.partial({name}, *({positional[0]}, {positional[1]}))"
                     f"({', '.join(rest)})", CAP, fresh=False)
        if form == 4 and len(params) == 1 and len(positional) == 1:
            other = self.expr(env, params[0][1], max(depth - 1, 0)).src
            self.note("map-call")
            return E(f"sum(map({name}, [{positional[0]}, {other}]))", 2 * CAP, fresh=False)
        return E(f"{name}({', '.join(args)})", CAP, fresh=False)

    def index(self, env) -> str:
        ints = [n for n in self.vars_of(env, "i") if env[n].bound <= N - 1]
        if ints and self.ch.chance(50):
            return self.ch.pick(ints)
        return self.ch.pick(["0", "1", "2", "-1"])

    def scalar(self, env, depth: int) -> E:
        c = self.ch.int(0, 8) if depth > 0 else 0
        d = depth - 1
        if c == 1:
            return self.binary(self.scalar(env, d), self.scalar(env, d))
        if c == 2:
            return self.unary(self.scalar(env, d), scalar=True)
        if c in (3, 4):
            has_vector = bool(self.vars_of(env, "vm")) or c == 4
            if has_vector:
                return self.reduce(env, d)
        if c == 5:
            if self.recursive and self.ch.chance(40) and not (
                    AVOID_RECURSION_IN_LOOPS and self.loops):
                arg = self.scalar(env, d)
                self.note("recursion-call")
                return E(f"{self.recursive}({arg.src}, {self.ch.int(0, 2)})", 1.0)
            result = self.call(env, "s", depth)
            if result is not None:
                return result
        if c == 6:
            return self.ifexp(env, "s", depth)
        if c == 7:
            ints = self.vars_of(env, "i")
            if ints:
                i = self.ch.pick(ints)
                self.note("int-mix")
                return E(f"(0.25 * {i})", 0.25 * env[i].bound)
        if c == 8:
            a = self.scalar(env, d)
            return E(f"({a.src} * {self.ch.pick(CONSTANTS)})", a.bound * 2.0)
        return self.leaf(env, "s")

    def reduce(self, env, depth: int) -> E:
        self.note("reduce")
        if self.vars_of(env, "m") and self.ch.chance(20):
            m = self.matrix(env, depth)
            return self.ch.pick([E(f"np.trace({m.src})", N * m.bound),
                                 E(f"np.sum({m.src})", N * N * m.bound),
                                 E(f"np.mean({m.src} ** 2)", m.bound ** 2)])
        a = self.vector(env, depth)
        b = self.vector(env, max(depth - 1, 0))
        forms = [E(f"np.sum({a.src})", N * a.bound), E(f"np.mean({a.src})", a.bound),
                 E(f"np.dot({a.src}, {b.src})", N * a.bound * b.bound),
                 E(f"({a.src} @ {b.src})", N * a.bound * b.bound),
                 self.method(E(f"{atom(a.src)}.sum()", N * a.bound),
                             E(f"np.sum({a.src})", N * a.bound)),
                 E(f"np.prod(np.cos({a.src}))", 1.0),
                 E(f"np.var({a.src})", a.bound ** 2),
                 E(f"np.sum(np.logaddexp({a.src}, {b.src}))", N * (a.bound + b.bound + 0.7))]
        indexed = self.subscriptable(env, a, "v")
        if indexed is not None:
            # (known bug: s2sad takes an item of an array for a view of it, so neither may be
            # updated in place afterwards: not fresh)
            forms += [E(f"{atom(indexed.src)}[{self.index(env)}]", indexed.bound,
                        fresh=not AVOID_KNOWN_BUGS),
                      E(f"np.sum({atom(indexed.src)}[{self.ch.pick(['0:2', '1:', ':2', '::2'])}])",
                        N * indexed.bound)]
        return self.ch.pick(forms)

    def vector(self, env, depth: int) -> E:
        c = self.ch.int(0, 9) if depth > 0 else 0
        d = depth - 1
        if c == 1:
            left = self.vector(env, d)
            right = self.vector(env, d) if self.ch.chance(60) else self.scalar(env, d)
            if self.ch.chance(30):
                left, right = right, left
            return self.binary(left, right)
        if c == 2:
            return self.unary(self.vector(env, d), scalar=False)
        if c == 3:
            parts = [self.scalar(env, d) for _ in range(N)]
            self.note("stack")
            func = self.ch.pick(["np.stack", "np.array"])
            return E(f"{func}([{', '.join(p.src for p in parts)}])", max(p.bound for p in parts))
        if c == 4 and self.vars_of(env, "m"):
            m, a = self.matrix(env, d), self.vector(env, d)
            self.note("matvec")
            forms = [E(f"({m.src} @ {a.src})", N * m.bound * a.bound),
                     self.method(E(f"({atom(m.src)}.T @ {a.src})", N * m.bound * a.bound),
                                 E(f"(np.transpose({m.src}) @ {a.src})", N * m.bound * a.bound)),
                     E(f"np.dot({m.src}, {a.src})", N * m.bound * a.bound),
                     E(f"np.sum({m.src}, axis=0)", N * m.bound),
                     E(f"np.mean({m.src}, axis=1)", m.bound)]
            indexed = self.subscriptable(env, m, "m")
            if indexed is not None:
                forms += [E(f"{atom(indexed.src)}[{self.index(env)}]", m.bound, fresh=False),
                          E(f"{atom(indexed.src)}[:, {self.index(env)}]", m.bound, fresh=False)]
            return self.ch.pick(forms)
        if c == 5:
            a, b = self.vector(env, d), self.vector(env, d)
            self.note("shuffle")
            forms = [E(f"np.cumsum({a.src})", N * a.bound),
                     E(f"np.flip({a.src})", a.bound, fresh=False),
                     E(f"np.roll({a.src}, 1)", a.bound),
                     self.method(E(f"{atom(a.src)}.copy()", a.bound),
                                 E(f"np.copy({a.src})", a.bound))]
            ia, ib = self.subscriptable(env, a, "v"), self.subscriptable(env, b, "v")
            if ia is not None and ib is not None:
                forms += [E(f"{atom(ia.src)}[::-1]", ia.bound, fresh=False),
                          E(f"np.concatenate([{atom(ia.src)}[:1], {atom(ib.src)}[1:]])",
                            max(ia.bound, ib.bound))]
            return self.ch.pick(forms)
        if c == 6:
            result = self.call(env, "v", depth)
            if result is not None:
                return result
        if c == 7:
            return self.ifexp(env, "v", depth)
        if c == 8:
            s = self.scalar(env, d)
            return E(f"({s.src} * {self.leaf(env, 'v').src})", s.bound * CAP)
        return self.leaf(env, "v")

    def matrix(self, env, depth: int) -> E:
        c = self.ch.int(0, 4) if depth > 0 else 0
        d = depth - 1
        if c == 1:
            a, b = self.vector(env, d), self.vector(env, d)
            self.note("outer")
            return E(f"np.outer({a.src}, {b.src})", a.bound * b.bound)
        if c == 2:
            return self.unary(self.matrix(env, d), scalar=False)
        if c == 3:
            return self.binary(self.matrix(env, d), self.scalar(env, d))
        if c == 4:
            a = self.matrix(env, d)
            return self.method(E(f"{atom(a.src)}.T", a.bound, fresh=False),
                               E(f"np.transpose({a.src})", a.bound, fresh=False))
        return self.leaf(env, "m")

    def method(self, call: E, instead: E) -> E:
        """``call`` (a method call; ``instead``, the same as a NumPy call, was used in helpers
        of a module that does not call NumPy ``np`` while s2sad desugared methods there with
        an undefined ``np``: fixed, kept for the generator's choices to stay the same)."""
        return call

    def squash(self, e: E) -> E:
        if e.bound <= CAP:
            return e
        self.note("squash")
        return E(f"np.tanh({e.src})", 1.0)

    # --- statements ------------------------------------------------------------------------

    def block(self, env: dict, ctx: _Ctx, count: int) -> tuple[list[str], bool]:
        """``count`` statements; returns (lines, ends with return)."""
        lines: list[str] = []
        for _ in range(count):
            if self.budget <= 0:
                break
            self.budget -= 1
            new, returned = self.statement(env, ctx)
            lines.extend(new)
            if self.returned_early and self.safe_index is None and AVOID_KNOWN_BUGS:
                # what follows an early return runs in a branch (s2sad makes it an `else:`)
                self.safe_index = set(env)
            if returned:
                return lines, True
        return lines, False

    def statement(self, env, ctx: _Ctx) -> tuple[list[str], bool]:
        if self.vars_of(env, "o") and self.vars_of(env, "s") and self.ch.chance(15) and \
                not (AVOID_STATE_WITH_RECURSION and self.recursive):
            return self.object_state(env), False
        c = self.ch.int(0, 13)
        if c >= 12:
            lines = self.issue32_pattern(env, ctx)
            if lines:
                return lines, False
            c = 0
        nested = ctx.depth < 2
        if c == 1:
            lines = self.augassign(env, ctx)
            if lines:
                return lines, False
        if c == 2:
            lines = self.setitem(env, ctx)
            if lines:
                return lines, False
        if c == 3 and nested:
            return self.if_statement(env, ctx)
        if c == 4 and nested:
            return self.for_range(env, ctx), False
        if c == 5 and nested:
            return self.while_loop(env, ctx), False
        if c == 6 and nested:
            return self.for_sequence(env, ctx), False
        if c == 7 and ctx.loop:
            return self.contracting(env), False
        if c == 8 and not ctx.loop and self.vars_of(env, "v", owned=True):
            return self.setitem(env, ctx) or self.assign(env, ctx), False
        if c == 9:
            new = self.new_array(env)
            if new:
                return new, False
        if c == 10 and nested:
            return self.lists(env, ctx), False
        if c == 11:
            return self.unpack(env, ctx), False
        return self.assign(env, ctx), False

    def object_state(self, env) -> list[str]:
        """Issue 35: a method of the object ``f`` is given that changes its state
        (``model.step(a)``: a counter and a cache, in a branch or a loop too)."""
        a = self.ch.pick(self.vars_of(env, "s"))
        target = self.new_name(env, "s")
        env[target] = Var("s", 1.0, owned=True)
        self.note("object-state")
        return [f"{target} = model.step({a})"]

    # --- the patterns of issue 32 ---------------------------------------------------------

    def issue32_pattern(self, env, ctx: _Ctx) -> list[str] | None:
        """One of: a cast, a view, a call s2sad has no rule for, list slots, a scalar from
        an index, a nested function with a default (None: none fits here)."""
        form = self.ch.int(0, 11)  # (8, 9: functions as values again, a form with many kinds)
        if form in (5, 6, 8, 9) and not (ctx.top and not ctx.loop and not self.in_helper):
            form = 0
        return [self.cast, self.view, self.unknown_call, self.list_slots,
                self.scalar_from_index, self.nested_default, self.function_value,
                self.python35, self.function_value, self.function_value,
                self.python35_next_none, self.python35_next_none][form](env, ctx)

    def python35(self, env, ctx: _Ctx) -> list[str] | None:
        """Issue 35: a check that raises, never taken (``assert``, ``if ...: raise``), or a
        generator of the module's consumed by a ``for`` loop, ``sum`` or ``list``; or (forms
        appended: the draws of the first five are unchanged) a starred assignment of a
        vector, ``sorted``/``max`` with a key on constants, a ``map`` held in a name or a
        partial chosen in a branch."""
        floats = self.vars_of(env, "s")
        if not floats:
            return None
        a = self.ch.pick(floats)
        form = self.ch.int(0, 7)
        if form >= 5:
            return self.python35_calls(env, a, form)
        if form == 0:
            self.note("assert")
            return [f"assert -{CAP + 1.0} <= {a} <= {CAP + 1.0}, 'bounded'"]
        if form == 1:
            self.note("raise")
            return [f"if not {a} <= {CAP + 1.0}:", f"    raise ValueError('{a} out of range')"]
        name = f"gen_{len(self.generators)}"
        c = self.ch.pick(CONSTANTS)
        self.generators.append([f"def {name}(t, n):", "    for i in range(n):",
                                f"        yield np.tanh(t * {c} + i)"])
        n = self.ch.int(1, 3)
        target = self.new_name(env, "s")
        if form == 2:
            item = f"e_{len(self.generators)}"
            lines = [f"{target} = 0.0", f"for {item} in {name}({a}, {n}):",
                     f"    {target} = {target} + {item}"]
            self.note("generator-loop")
        elif form == 3:
            lines = [f"{target} = sum({name}({a}, {n}))"]
            self.note("generator-sum")
        else:
            lines = [f"{target} = list({name}({a}, {n}))[-1]"]
            self.note("generator-list")
        env[target] = Var("s", float(n), owned=True)
        return lines

    def python35_calls(self, env, a: str, form: int) -> list[str] | None:
        """``first, *mid, last = v``; ``sorted(zip(keys, [a, b, c]), key=...)`` and
        ``max(..., key=...)`` ordered by constants; ``m = map(np.tanh, [a, b]); sum(m)``, or
        a partial of ``np.multiply`` chosen in a branch. A new float each."""
        floats = self.vars_of(env, "s")
        target = self.new_name(env, "s")
        if form == 5:
            vectors = [n for n in self.vars_of(env, "v") if n in self.params]
            if not vectors:  # (an argument array: its length is known when it runs)
                return None
            v = self.ch.pick(vectors)
            bound = env[v].bound
            self.note("starred-array")
            lines = [f"{target}_first, *{target}_mid, {target}_last = {v}",
                     f"{target} = np.tanh({target}_first * {target}_last) + 0.1 * "
                     f"sum({target}_mid)"]
            env[target] = Var("s", 1.0 + 0.1 * (N - 2) * bound, owned=True)
            return lines
        b, c = self.ch.pick(floats), self.ch.pick(floats)
        bound = max(env[n].bound for n in (a, b, c))
        if form == 6:
            keys = [self.ch.int(0, 3) for _ in range(3)]
            self.note("sorted-key")
            lines = [f"{target} = sorted(zip({keys}, [{a}, {b}, {c}]), key=lambda kv: "
                     f"kv[0])[0][1] * 0.5 + max(zip({keys[::-1]}, [{a}, {b}, {c}]), "
                     f"key=lambda kv: kv[0])[1] * 0.25"]
            env[target] = Var("s", 0.75 * bound, owned=True)
            return lines
        m = f"{target}_held"
        if self.ch.chance(50):
            self.note("map-held")
            lines = [f"{m} = map(np.tanh, [{a}, {b} * 0.5])", f"{target} = sum({m})"]
            env[target] = Var("s", 2.0, owned=True)
            return lines
        k1, k2 = self.ch.pick(CONSTANTS), self.ch.pick(CONSTANTS)
        self.note("partial-branch")
        lines = [f"{m} = functools.partial(np.multiply, {k1}) if {self.ch.pick(CONSTANTS)} > "
                 f"0.4 else functools.partial(np.multiply, {k2})",
                 f"{target} = np.tanh({m}({a}))"]
        env[target] = Var("s", 1.0, owned=True)
        return lines

    def python35_next_none(self, env, ctx: _Ctx) -> list[str] | None:
        """``it = iter([a, b, c])`` (or ``iter(v)``) then ``next(it)`` twice, or a module
        generator held in a name and taken by ``next`` (with a default past its end); or
        ``None``: a helper's default (``def opt_0(t, s=None): if s is None: ...``), a
        function default (``fn=None``) or ``f``'s own ``scale=None``. A new float each."""
        floats = self.vars_of(env, "s")
        if not floats:
            return None
        a = self.ch.pick(floats)
        form = 8 + self.ch.int(0, 1)
        if form == 8 and AVOID_NEXT_AFTER_STATE and self.vars_of(env, "o"):
            form = 9
        if form == 8 and self.vars_of(env, "o"):  # (beside an object that caches x)
            self.note("next-beside-state")
        self.uses_next = self.uses_next or form == 8
        target = self.new_name(env, "s")
        b, c = self.ch.pick(floats), self.ch.pick(floats)
        if form == 8:
            it = f"{target}_it"
            vectors = self.vars_of(env, "v")
            if vectors and self.ch.chance(50):
                v = self.ch.pick(vectors)
                lines = [f"{it} = iter({v})"]
                self.note("next-iter-array")
            else:
                lines = [f"{it} = iter([{a}, {b} * 0.5, {c}])"]
                self.note("next-iter-list")
            lines += [f"{target}_p = next({it})", f"{target}_q = next({it})",
                      f"{target} = np.tanh({target}_p) * np.cos({target}_q)"]
            if not self.ch.chance(50):
                return self.typed(env, target, lines, 1.0)
            name = f"gen_{len(self.generators)}"
            k = self.ch.pick(CONSTANTS)
            self.generators.append([f"def {name}(t, n):", "    for i in range(n):",
                                    f"        yield np.sin(t * {k}) + 0.5 * i"])
            n = self.ch.int(1, 3)
            g = f"{target}_g"
            lines += [f"{g} = {name}({a}, {n})", f"{target}_r = next({g})",
                      f"{target}_s = next({g}, 0.25)",
                      f"{target} = {target} + {target}_r * {target}_s"]
            self.note("next-generator")
            return self.typed(env, target, lines, 1.0 + 1.5 * 1.5)
        choice = self.ch.int(0, 2)
        if choice == 2 and ctx.top and not ctx.loop and not self.in_helper:
            self.none_argument = True  # (``f(..., scale=None)``, never given: None)
            lines = [f"{target} = np.tanh({a})", "if scale is not None:",
                     f"    {target} = {target} * scale"]
            self.note("none-argument")
            return self.typed(env, target, lines, 1.0)
        name = f"opt_{len(self.generators)}"
        if choice == 1:
            self.generators.append([f"def {name}(t, fn=None):",
                                    "    return fn(t) if fn is not None else np.tanh(t) * 0.5"])
            call = self.ch.pick([f"{name}({a})", f"{name}({a}, np.sin)",
                                 f"{name}({a}, fn=None)"])
            self.note("none-function")
        else:
            self.generators.append([f"def {name}(t, s=None):", "    if s is None:",
                                    "        s = 0.5", "    return np.tanh(t * s)"])
            call = self.ch.pick([f"{name}({a})", f"{name}({a}, None)", f"{name}({a}, {b})",
                                 f"{name}({a}, s={b})"])
            self.note("none-default")
        return self.typed(env, target, [f"{target} = {call}"], 1.0)

    @staticmethod
    def typed(env, target: str, lines: list[str], bound: float) -> list[str]:
        env[target] = Var("s", bound, owned=True)
        return lines

    def cast(self, env, ctx: _Ctx) -> list[str]:
        """A new float or vector through a cast: to float (an identity, or ``np.asarray``,
        which returns its argument), or to an integer or bool (no derivative)."""
        kind = self.ch.pick(["s", "v"])
        e = self.squash(self.expr(env, kind, self.ch.int(0, 2)))
        a = atom(e.src)
        whole, zero = self.cut(f"{a} * 2.0", None), self.cut(a, 0.0)
        step = self.cut(e.src if kind == "s" else a, 0.1)
        if kind == "s":
            forms = [E(f"float({e.src})", e.bound), E(f"np.float64({e.src})", e.bound),
                     E(f"({step} > 0.1) * {a}", e.bound),
                     E(f"np.floor({whole}) * 0.25 + {a}", 1.5 * e.bound + 0.25)]
            if not AVOID_INT_CASTS:
                forms += [E(f"int({whole}) * 0.25 + {a}", 1.5 * e.bound),
                          E(f"np.asarray({self.cut(a, None)}).astype(int) * {a}",
                            e.bound * e.bound)]
        else:
            forms = [E(f"{a}.astype(float)", e.bound), E(f"{a}.astype(np.float64)", e.bound),
                     E(f"np.array({e.src}, dtype=float)", e.bound),
                     E(f"np.asarray({e.src}, dtype=np.float64)", e.bound, fresh=e.fresh),
                     E(f"({step} > 0.1).astype(float) * {a}", e.bound)]
            if not AVOID_INT_CASTS:
                forms += [E(f"({whole}).astype(int) * 0.25 + {a}", 1.5 * e.bound),
                          E(f"{zero}.astype(bool) * {a}", e.bound),
                          E(f"np.sum({whole}, dtype=int) * 0.1 + {a}", 1.6 * e.bound),
                          E(f"np.array({whole}, dtype=int) * {a}", 2 * e.bound ** 2)]
        value = self.squash(self.ch.pick(forms))
        self.note("cast")
        return self.bind(env, kind, value)

    def cut(self, src: str, at: float | None) -> str:
        """``src`` where a cast or a step of it jumps: at ``at`` (``x > 0.1``, ``bool(x)``
        at 0.0) or, for ``at`` None, at every integer (``int``, ``np.floor``). Plain in
        ``source``; ``_cut(src, at)`` in ``traced``, which records where the value lies
        and how far from the jump, as ``_cmp`` does for a comparison. Central differences
        straddling the jump are no derivative (AD takes the derivative of the piece the
        point lies on, as autograd and JAX do, even exactly at the jump: ``bool(-0.0)``),
        so the checker skips such a sample (near-branch), or calls it inconclusive where a
        difference step crosses a jump; a sample clear of every jump is checked."""
        self.cuts.append((src, at))
        return f"@!{len(self.cuts) - 1}!@"

    def bind(self, env, kind: str, value: E) -> list[str]:
        """``name = value`` for a new name of ``kind``."""
        name = self.new_name(env, kind)
        if not value.fresh:
            self.disown(env, value.src)
            self.taint(name)
        env[name] = Var(kind, value.bound, owned=self.ownable(name, value.fresh))
        return [f"{name} = {value.src}"]

    def view(self, env, ctx: _Ctx) -> list[str] | None:
        """A view of a vector (or the vector itself, as ``np.asarray`` returns it), read;
        and, where the vector is the function's own, written through."""
        vectors = self.in_branch_safe(self.vars_of(env, "v"))
        if not vectors:
            return None
        z = self.ch.pick(vectors)
        forms = [f"{z}[:]", f"{z}.reshape({N})", f"np.reshape({z}, ({N},))", f"{z}.T",
                 f"np.flip({z})", f"{z}[::-1]", f"np.asarray({z})", f"{z}.ravel()",
                 f"np.ravel({z})", f"{z}[...]", f"np.atleast_1d({z})", f"np.squeeze({z})"]
        if not AVOID_VIEW_METHOD:
            forms.append(f"{z}.view()")
        if not AVOID_SHARING_CALLS:
            forms += [f"{z}.conj()", f"np.float64({z})", f"np.nan_to_num({z}, copy=False)",
                      f"{z}.conjugate()", f"np.einsum('i->i', {z})"]
        form = self.ch.pick(forms)
        name = self.new_name(env, "v")
        lines = [f"{name} = {form}"]
        own = env[z].owned and z not in self.tainted and z not in self.params and \
            not env[z].readonly
        self.note("view")
        if not AVOID_VIEW_WRITES and own and self.ch.chance(60):
            e = self.squash(self.scalar(env, self.ch.int(0, 2)))
            target = self.ch.pick([name, z])
            lines.append(f"{target}[{self.index(env)}] = {e.src}")
            env[z].bound = max(env[z].bound, e.bound)
            self.note("view-write")
        env[name] = Var("v", env[z].bound, owned=False)
        self.disown(env, z)
        self.taint(name)
        return lines

    def unknown_call(self, env, ctx: _Ctx) -> list[str]:
        """A call s2sad has no rule for: on a constant (a constant result: no refusal), or,
        rarely, on a differentiated value (a refusal at that line is the answer)."""
        const = self.ch.pick([
            E(f"np.real(np.fft.fft(np.linspace(-0.5, 1.0, {N})))", 1.75),
            E(f"np.histogram(np.linspace(-0.5, 1.0, {2 * N}), bins={N})[0] * 0.25", 0.5),
            E("np.unique(np.array([0.5, -0.25, 0.5, 1.0]))", 1.0)])
        self.note("unknown-call")
        if self.ch.chance(5):
            e = self.vector(env, self.ch.int(0, 1))
            const = E(f"np.real(np.fft.fft({e.src}))", N * e.bound)
            self.expect_refusal = True
            self.note("unknown-call-active")
        other = self.vector(env, self.ch.int(0, 1))
        value = self.squash(E(f"{atom(const.src)} * {atom(other.src)}",
                              const.bound * other.bound))
        lines = self.bind(env, "v", value)
        if AVOID_KNOWN_BUGS:  # (known: the dtype of a call without a rule is not known, so
            env[lines[0].split(" = ")[0]].owned = False  # a store into it is refused)
        return lines

    def list_slots(self, env, ctx: _Ctx) -> list[str]:
        """``hs = [a, b]``, then each slot read and stored again in a loop (the layer
        states of an LSTM), then the slots used."""
        kind = self.ch.pick(["s", "v"])
        items = [self.squash(self.expr(env, kind, self.ch.int(0, 1))) for _ in range(2)]
        for item in items:
            if not item.fresh:
                self.disown(env, item.src)
        hs, i = self.new_name(env, "l"), self.new_name(env, "i")
        inner = {n: Var(v.kind, v.bound, False, True) for n, v in env.items()}
        h = self.new_name(inner, kind)
        inner[h] = Var(kind, max(max(it.bound for it in items), 1.0))
        inner[i] = Var("i", 1)
        step = self.squash(self.expr(inner, self.ch.pick(["s", kind]), self.ch.int(1, 2)))
        target = self.new_name(env, kind)
        env[target] = Var(kind, 2.0 * inner[h].bound, owned=True)
        self.note("list-slots")
        return [f"{hs} = [{items[0].src}, {items[1].src}]", f"for {i} in range(2):",
                f"    {h} = {hs}[{i}]", f"    {hs}[{i}] = 0.5 * {h} + 0.5 * np.tanh({step.src})",
                f"{target} = {hs}[0] + {hs}[1] * 0.5"]

    def scalar_from_index(self, env, ctx: _Ctx) -> list[str] | None:
        """``a = z[i]`` (a NumPy scalar: a copy), then ``a`` updated in place, or ``z[i]``
        stored while ``a`` keeps the old value."""
        vectors = self.in_branch_safe(self.vars_of(env, "vm"))
        if not vectors:
            return None
        z = self.ch.pick(vectors)
        index = self.index(env) if env[z].kind == "v" else \
            f"{self.index(env)}, {self.index(env)}"
        a = self.new_name(env, "s")
        bound = env[z].bound
        lines = [f"{a} = {z}[{index}]"]
        own = env[z].owned and z not in self.tainted and z not in self.params and \
            not env[z].readonly and env[z].kind == "v"
        if own and self.ch.chance(50) and not AVOID_ITEM_UPDATED:
            e = self.squash(self.scalar(env, self.ch.int(0, 2)))
            lines.append(f"{z}[{index}] = {e.src}")
            env[z].bound = max(env[z].bound, e.bound)
        e = self.scalar(env, self.ch.int(0, 2))
        add, times = (f"{a} = {a} + ", f"{a} = {a} * ") if AVOID_ITEM_UPDATED else \
            (f"{a} += ", f"{a} *= ")
        if bound + e.bound <= CAP and self.ch.chance(50):
            lines.append(f"{add}{e.src}")
            bound += e.bound
        else:
            lines.append(f"{times}np.tanh({e.src})")
        env[a] = Var("s", bound, owned=True)
        self.note("scalar-from-index")
        return lines

    def nested_default(self, env, ctx: _Ctx) -> list[str] | None:
        """``def inner(t, k=a): ...`` in ``f``, its default taken from a float the
        function holds when the ``def`` runs (then, maybe, ``a`` rebound), then called."""
        floats = self.vars_of(env, "s")
        if not floats:
            return None
        a = self.ch.pick(floats)
        name = f"inner_{len(self.kinds)}"
        self.kinds[name] = "f"
        lines = [f"def {name}(t, k={a}):", "    return t * k + np.tanh(t)"]
        k_bound = env[a].bound
        if not AVOID_DEFAULT_REBINDING and a not in self.params and not env[a].readonly:
            e = self.squash(self.scalar(env, self.ch.int(1, 2)))
            lines.append(f"{a} = {e.src}")
            env[a] = Var("s", e.bound, owned=e.fresh)
            self.note("default-rebound")
        t = self.squash(self.scalar(env, self.ch.int(0, 2)))
        value = self.squash(E(f"{name}({t.src})", t.bound * k_bound + 1.0))
        self.note("nested-default")
        return lines + self.bind(env, "s", value)

    def function_value(self, env, ctx: _Ctx) -> list[str] | None:
        """A function held in a variable (issue 35): chosen by a comparison (``fn =
        np.tanh if (a > 0.1) else np.sin``), unpacked from a tuple, or a gradient made
        inside of a lambda that reads a float of the function (``s2sad.grad(lambda t:
        np.tanh(t) * a)(e)``), then called."""
        floats = self.vars_of(env, "s")
        if not floats:
            return None
        a = self.ch.pick(floats)
        name = f"fn_{len(self.kinds)}"
        self.kinds[name] = "f"
        t = self.squash(self.scalar(env, self.ch.int(0, 2)))
        form = self.ch.int(0, 7)  # (2, 6 and 7: a derivative made inside, four forms)
        ints = self.vars_of(env, "i")
        if form == 5 and ints and not ctx.loop and ctx.depth == 0:
            # (an item at an index known when the function runs: an `if` over the items)
            k = self.ch.pick(ints)
            lines = [f"{name} = (np.tanh, np.sin, np.cos)"]
            value = E(f"{name}[{k} % 3]({t.src})", 1.0)
            self.note("function-indexed")
        elif form == 3 and self.kinds.get("act") == "F" and not self.in_helper:
            lines = []  # (a function given as an argument: f(x, act=np.tanh))
            value = E(f"act({t.src})", 1.0)
            self.note("function-argument")
        elif form in (3, 4, 5):  # (a function in a module object's attribute: HOLD.act)
            self.holds_function = True
            lines = []
            value = E(f"HOLD.act({t.src})", 1.0)
            self.note("function-attribute")
        elif form == 0:
            lines = [f"{name} = np.tanh if ({self.cut(a, 0.1)} > 0.1) else np.sin"]
            value = E(f"{name}({t.src})", 1.0)
            self.note("function-chosen")
        elif form == 1:
            lines = [f"{name}, half = np.cos, 0.5"]
            self.kinds["half"] = "s"
            value = E(f"{name}({t.src}) * half", 0.5)
            self.note("function-unpacked")
        else:
            self.uses_s2sad = True
            lines = []
            inside = self.ch.int(0, 3) if not ctx.loop and ctx.depth == 0 else 0
            if inside == 0:
                value = E(f"s2sad.grad(lambda t: np.tanh(t) * {a})({t.src})", env[a].bound)
                self.note("grad-inside")
            elif inside == 1:  # (d2/dt2 tanh(t) * a times 0.5: |tanh''| < 0.77)
                value = E(f"s2sad.hvp(lambda t: np.tanh(t) * {a})({t.src}, 0.5)",
                          env[a].bound)
                self.note("hvp-inside")
            elif inside == 2:
                lines = [f"{name} = s2sad.grad(lambda t: np.sin(t) * {a})"]
                value = E(f"{name}({t.src})", env[a].bound)
                self.note("grad-held-inside")
            else:
                lines = [f"{name}_v, {name} = s2sad.jvp(lambda t: np.sin(t) * {a})({t.src})"]
                self.kinds[f"{name}_v"] = "s"
                value = E(f"{name}_v + {name}(0.5)", 1.5 * env[a].bound)
                self.note("jvp-inside")
        return lines + self.bind(env, "s", self.squash(value))

    def unpack(self, env, ctx: _Ctx) -> list[str]:
        """``a, b = e1, e2`` (new floats), or a swap ``a, b = b, a`` of two floats."""
        floats = [n for n in self.vars_of(env, "s", writable=True) if n not in self.params]
        if len(floats) >= 2 and self.ch.chance(30):
            a = self.ch.pick(floats)
            b = self.ch.pick([n for n in floats if n != a])
            env[a], env[b] = env[b], env[a]
            for name in (a, b):
                self.taint(name)
                env[name].owned = False
            self.note("swap")
            return [f"{a}, {b} = {b}, {a}"]
        value_a = self.squash(self.scalar(env, self.ch.int(0, 2)))
        value_b = self.squash(self.scalar(env, self.ch.int(0, 2)))
        a = self.new_name(env, "s")
        b = self.new_name({**env, a: None}, "s")
        for name, value in ((a, value_a), (b, value_b)):
            if not value.fresh:
                self.disown(env, value.src)
                self.taint(name)
            env[name] = Var("s", value.bound, owned=value.fresh and name not in self.tainted)
        self.note("unpack")
        if self.ch.chance(25):  # (issue 35: a starred target, its list indexed)
            self.note("starred-unpack")
            return [f"{a}, *{b}_rest = {value_a.src}, {value_b.src}", f"{b} = {b}_rest[0]"]
        return [f"{a}, {b} = {value_a.src}, {value_b.src}"]

    def lists(self, env, ctx: _Ctx) -> list[str]:
        """A float made from a list: built by ``append`` in a loop, or a comprehension."""
        target = self.new_name(env, "s")
        vectors = self.in_branch_safe(self.vars_of(env, "v"))
        form = self.ch.int(0, 3) if vectors else 0
        inner = {n: Var(v.kind, v.bound, False, True) for n, v in env.items()}
        if form == 0:
            ys, i = self.new_name(env, "l"), self.new_name(env, "i")
            inner[i] = Var("i", N - 1)
            item = self.squash(self.scalar(inner, self.ch.int(1, 2)))
            if not item.fresh:  # the list holds (shares) the item's value
                self.disown(env, item.src)
            total = self.ch.pick([f"sum({ys})", f"np.sum(np.stack({ys}))"] if
                                 self.safe_index is not None and AVOID_KNOWN_BUGS else
                                 [f"sum({ys})", f"np.sum(np.stack({ys}))",
                                  f"{ys}[0] * {ys}[-1]", f"{ys}[-1] - len({ys}) * {ys}[0]"])
            lines = [f"{ys} = []", f"for {i} in range({self.ch.int(1, N)}):",
                     f"    {ys}.append({item.src})", f"{target} = {total}"]
            bound = N * item.bound + N * item.bound ** 2
            self.note("append")
        else:
            e = self.new_name(env, "s")
            v = self.ch.pick(vectors)
            inner[e] = Var("s", env[v].bound)
            item = self.squash(self.scalar(inner, self.ch.int(1, 2)))
            loop = f"{item.src} for {e} in {v}"
            lines = [f"{target} = " + [f"sum([{loop}])", f"sum({loop})",
                                       f"np.sum(np.stack([{loop}]))"][form - 1]]
            bound = N * item.bound
            self.note("comprehension")
        if bound > CAP:
            lines[-1] = lines[-1].replace(f"{target} = ", f"{target} = np.tanh(", 1) + ")"
            bound = 1.0
        env[target] = Var("s", bound, owned=True)
        return lines

    def assign(self, env, ctx: _Ctx) -> list[str]:
        kinds = ["s", "s", "v"] + (["m"] if self.vars_of(env, "m") else [])
        kind = self.ch.pick(kinds)
        existing = self.vars_of(env, kind, writable=True)
        target = self.ch.pick(existing) if existing and self.ch.chance(50) else \
            self.new_name(env, kind)
        value = self.squash(self.expr(env, kind, self.ch.int(1, 3)))
        conditional = ctx.loop or self.safe_index is not None
        if AVOID_KNOWN_BUGS and target in self.params and conditional and \
                target not in re.findall(r"[A-Za-z_]\w*", value.src):
            # (known bug: jvp loses the tangent of an argument that a branch or a loop may
            # set to a value that does not depend on it)
            target = self.new_name(env, kind)
        if not value.fresh:
            sources = [n for n in re.findall(r"[A-Za-z_]\w*", value.src) if n in env]
            if ctx.loop and kind != "s" and any(
                    env[n].owned and env[n].kind in "vm" for n in [target] + sources
                    if env.get(n) is not None):
                # the next pass may update it (or what it would share) in place again: it
                # must stay its own array
                value = E(f"np.copy({value.src})", value.bound)
            else:
                self.disown(env, value.src)
                self.taint(target)
        env[target] = Var(kind, value.bound,
                          owned=self.ownable(target, value.fresh))
        self.note("assign")
        return [f"{target} = {value.src}"]

    def ownable(self, name: str, fresh: bool) -> bool:
        """May the function update ``name`` in place after this assignment (a new value
        ends whatever sharing the name had)?"""
        if fresh:
            self.tainted.discard(name)
        return fresh and name not in self.tainted

    def disown(self, env, src: str) -> None:
        """Values ``src`` may alias are no longer the function's own to update.

        (Known bugs: s2sad takes ``a = z[2]`` for a view of ``z``, and refuses
        ``a = b; a += 1.0`` when its kinds cannot tell that ``a`` is a number, as after
        ``b = np.tanh(sum(xs))`` on a list built by ``append``.)"""
        for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", src):
            if name in env and (env[name].kind in "vm" or AVOID_KNOWN_BUGS):
                env[name].owned = False
                self.taint(name)

    def taint(self, name: str) -> None:
        """``name`` shared its value once: s2sad will refuse updating it in place."""
        if AVOID_KNOWN_BUGS:
            self.tainted.add(name)

    def new_array(self, env) -> list[str]:
        """An array the function owns, to update in place."""
        name = self.new_name(env, "v")
        value = self.ch.pick([f"np.zeros({N})", f"np.ones({N})", None])
        if value is None:
            e = self.squash(self.vector(env, 1))
            value, bound = f"{e.src} * 1.0", e.bound
        else:
            bound = 1.0
        env[name] = Var("v", bound, owned=self.ownable(name, True))
        self.note("new-array")
        return [f"{name} = {value}"]

    def contracting(self, env) -> list[str]:
        """``v = c * v + (1 - c) * tanh(e)``: stays within its bound however long it loops."""
        names = self.vars_of(env, "sv", writable=True)
        if not names:
            return self.assign(env, _Ctx("s", loop=True))
        name = self.ch.pick(names)
        kind = env[name].kind
        e = self.expr(env, kind if self.ch.chance(50) else "s", self.ch.int(0, 2))
        c = self.ch.pick(["0.5", "0.75", "0.9"])
        rest = f"{1 - float(c):g}"
        env[name] = Var(kind, CAP, owned=self.ownable(name, True))
        self.note("contracting")
        return [f"{name} = {c} * {name} + {rest} * np.tanh({e.src})"]

    def augassign(self, env, ctx: _Ctx) -> list[str] | None:
        names = self.vars_of(env, "sv", owned=True, writable=True)
        if not names:
            return None
        name = self.ch.pick(names)
        var = env[name]
        op = self.ch.int(0, 3)
        self.note("augassign")
        if op in (0, 1):
            e = self.expr(env, "s" if var.kind == "s" or self.ch.chance(40) else "v",
                          self.ch.int(0, 2))
            if var.bound + e.bound <= CAP and not ctx.loop:
                var.bound += e.bound
                return [f"{name} {'+-'[op]}= {e.src}"]
            op = 2
        e = self.expr(env, "s" if var.kind == "s" or self.ch.chance(40) else "v",
                      self.ch.int(0, 2))
        if op == 2:
            return [f"{name} *= {self.ch.pick(['np.cos', 'np.tanh', 'np.sin'])}({e.src})"]
        return [f"{name} /= 1.0 + np.square({e.src})"]

    def in_branch_safe(self, names: list[str]) -> list[str]:
        """In a branch, only the names made before it (see ``subscriptable``)."""
        if self.safe_index is None or not AVOID_KNOWN_BUGS:
            return names
        return [n for n in names if n in self.safe_index]

    def setitem(self, env, ctx: _Ctx) -> list[str] | None:
        names = self.in_branch_safe(self.vars_of(env, "vm", owned=True, writable=True))
        if not names:
            return None
        name = self.ch.pick(names)
        var = env[name]
        self.note("setitem")
        form = self.ch.int(0, 3)
        if var.kind == "m":
            i = self.index(env)
            if form < 2:
                e = self.squash(self.scalar(env, self.ch.int(0, 2)))
                var.bound = max(var.bound, e.bound)
                return [f"{name}[{i}, {self.index(env)}] = {e.src}"]
            e = self.squash(self.vector(env, self.ch.int(0, 2)))
            var.bound = max(var.bound, e.bound)
            return [f"{name}[{i}] = {e.src}"]
        if form == 1 and not ctx.loop:
            e = self.scalar(env, self.ch.int(0, 2))
            if var.bound + e.bound <= CAP:
                var.bound += e.bound
                return [f"{name}[{self.index(env)}] += {e.src}"]
        if form == 2:
            e = self.subscriptable(env, self.squash(self.vector(env, self.ch.int(0, 2))), "v")
            e = e or E(f"np.ones({N})", 1.0)
            var.bound = max(var.bound, e.bound)
            target, source = self.ch.pick([("0:2", "1:3"), ("1:", ":2"), (":", ":"),
                                           ("::2", "::2"), ("1:3", "0:2")])
            return [f"{name}[{target}] = {atom(e.src)}[{source}]"]
        if form == 3:
            e = self.squash(self.scalar(env, self.ch.int(0, 2)))
            var.bound = max(var.bound, e.bound)
            return [f"{name}[{self.ch.pick(['0:2', '1:', ':'])}] = {e.src}"]
        e = self.squash(self.scalar(env, self.ch.int(0, 2)))
        var.bound = max(var.bound, e.bound)
        return [f"{name}[{self.index(env)}] = {e.src}"]

    def body(self, env, ctx: _Ctx, loop: bool, may_return: bool = False):
        """A nested block on a copy of ``env``: (lines, env after, ends with return)."""
        inner = {n: Var(v.kind, CAP if loop and v.kind != "i" else v.bound, v.owned, v.readonly)
                 for n, v in env.items()}
        sub = _Ctx(ctx.returns, loop=ctx.loop or loop, top=False, depth=ctx.depth + 1)
        self.loops += loop
        try:
            lines, returned = self.block(inner, sub, self.ch.int(1, 3))
        finally:
            self.loops -= loop
        if may_return and not returned and self.ch.chance(50):
            e = self.squash(self.expr(inner, ctx.returns, self.ch.int(0, 2)))
            if re.fullmatch(r"[A-Za-z_]\w*", e.src):
                self.taint(e.src)  # (known bug: updating it later is refused as shared)
            lines.append(f"return {e.src}")
            returned = True
            self.returned_early = True
            self.note("early-return")
        return lines or ["pass"], inner, returned

    @staticmethod
    def join(env, branches: list[dict], loop: bool = False) -> None:
        """After a branch or loop: what every path leaves (bounds widened, ownership kept
        only where every path keeps it)."""
        for name, var in list(env.items()):
            for other in branches:
                after = other.get(name)
                if after is None:
                    continue
                var.bound = max(var.bound, after.bound)
                var.owned = var.owned and after.owned
        if loop:  # a loop may run no pass: what it defines is not defined after it
            return
        common = set.intersection(*(set(b) for b in branches)) if branches else set()
        for name in sorted(common - set(env)):
            picks = [b[name] for b in branches]
            env[name] = Var(picks[0].kind, max(p.bound for p in picks),
                            all(p.owned for p in picks))

    def if_statement(self, env, ctx: _Ctx) -> tuple[list[str], bool]:
        may_return = ctx.top and not ctx.loop
        lines, finished = [], []
        test = self.cond(env, self.ch.int(1, 2))
        with self.branch(env):
            body, after, returned = self.body(env, ctx, loop=False, may_return=may_return)
        lines += [f"if {test}:"] + _indent(body)
        if not returned:
            finished.append(after)
        self.note("if")
        for _ in range(self.ch.int(0, 2)):
            with self.branch(env):
                test = self.cond(env, self.ch.int(1, 2))
                body, after, returned = self.body(env, ctx, loop=False, may_return=may_return)
            lines += [f"elif {test}:"] + _indent(body)
            if not returned:
                finished.append(after)
            self.note("elif")
        if self.ch.chance(50):
            with self.branch(env):
                body, after, _ = self.body(env, ctx, loop=False)
            lines += ["else:"] + _indent(body)
            finished.append(after)
        else:
            finished.append({n: Var(v.kind, v.bound, v.owned, v.readonly)
                             for n, v in env.items()})
        self.join(env, finished)
        return lines, False

    def loop_exit(self, env, body: list[str]) -> list[str]:
        """Maybe ``if cond: break`` or ``continue`` somewhere in a loop body."""
        if not self.ch.chance(30):
            return body
        word = self.ch.pick(["break", "continue"])
        self.note(word)
        at = self.ch.int(0, len(body))
        while at < len(body) and body[at].startswith(" "):
            at += 1  # not in the middle of a nested block
        return body[:at] + [f"if {self.cond(env, 1)}:", f"    {word}"] + body[at:]

    def for_range(self, env, ctx: _Ctx) -> list[str]:
        var = self.new_name(env, "i")
        ints = [n for n in self.vars_of(env, "i") if n in self.params]
        stop = self.ch.pick(["1", "2", "3", f"len({self.leaf(env, 'v').src})"] + ints)
        start = "0, " if self.ch.chance(15) else ""
        inner_env = dict(env)
        inner_env[var] = Var("i", N - 1)
        body, after, _ = self.body(inner_env, ctx, loop=True)
        if ctx.top and not ctx.loop and self.ch.chance(20):
            e = self.squash(self.expr(after, ctx.returns, self.ch.int(0, 2)))
            test = self.cond(after, 0 if AVOID_CONSTANT_RETURN_IN_LOOP else 1)
            floats = [n for n in self.vars_of(after, "s") if n != var]
            if AVOID_CONSTANT_RETURN_IN_LOOP and floats:
                self.conds[-1] = (self.ch.pick(floats),) + self.conds[-1][1:]
            if floats or not AVOID_CONSTANT_RETURN_IN_LOOP:
                body = body + [f"if {test}:", f"    return {e.src}"]
                self.returned_early = True
                self.note("return-in-loop")
        if not (AVOID_CONSTANT_RETURN_IN_LOOP and any("return" in line for line in body)):
            body = self.loop_exit(inner_env, body)
        after.pop(var, None)
        lines = [f"for {var} in range({start}{stop}):"] + _indent(body)
        self.join(env, [after], loop=True)
        self._widen(env)
        if self.ch.chance(10):
            tail, tail_env, _ = self.body(env, ctx, loop=True)
            lines += ["else:"] + _indent(tail)
            self.join(env, [tail_env], loop=True)
            self.note("for-else")
        self.note("for-range")
        return lines

    def for_sequence(self, env, ctx: _Ctx) -> list[str]:
        vectors = self.in_branch_safe(self.vars_of(env, "v"))
        if not vectors:
            return self.for_range(env, ctx)
        inner_env = {n: Var(v.kind, v.bound, v.owned, v.readonly) for n, v in env.items()}
        form = self.ch.int(0, 3)
        a = self.ch.pick(vectors)
        inner_env[a].owned = False  # not updated while iterated over
        if form == 1 and len(vectors) > 1:
            b = self.ch.pick([v for v in vectors if v != a])
            inner_env[b].owned = False
            p, q = self.new_name(env, "s"), self.new_name(env, "s")
            while q == p:
                q = self.new_name(env, "s")
            header = f"for {p}, {q} in zip({a}, {b}):"
            inner_env[p], inner_env[q] = Var("s", env[a].bound), Var("s", env[b].bound)
            targets = [p, q]
            self.note("zip")
        elif form == 2:
            i, e = self.new_name(env, "i"), self.new_name(env, "s")
            header = f"for {i}, {e} in enumerate({a}):"
            inner_env[i], inner_env[e] = Var("i", N - 1), Var("s", env[a].bound)
            targets = [i, e]
            self.note("enumerate")
        elif form == 3 and self.in_branch_safe(self.vars_of(env, "m")):
            m = self.ch.pick(self.in_branch_safe(self.vars_of(env, "m")))
            inner_env[m].owned = False
            row = self.new_name(env, "v")
            header = f"for {row} in {m}:"
            inner_env[row] = Var("v", env[m].bound)
            targets = [row]
            self.note("for-rows")
        else:
            e = self.new_name(env, "s")
            header = f"for {e} in {a}:"
            inner_env[e] = Var("s", env[a].bound)
            targets = [e]
            self.note("for-array")
        for t in targets:
            self.taint(t)  # it shares its value with an item of the sequence
        body, after, _ = self.body(inner_env, ctx, loop=True)
        body = self.loop_exit(inner_env, body)
        for t in targets:
            after.pop(t, None)
        self.join(env, [after], loop=True)
        self._widen(env)
        return [header] + _indent(body)

    def while_loop(self, env, ctx: _Ctx) -> list[str]:
        counter = self.new_name(env, "i")
        limit = self.ch.int(1, 4)
        inner_env = dict(env)
        inner_env[counter] = Var("i", limit)
        body, after, _ = self.body(inner_env, ctx, loop=True)
        self.note("while")
        if self.ch.chance(25):  # while True: ... break
            test = self.cond(after, 1)
            lines = [f"{counter} = 0", "while True:"] + _indent(
                body + [f"{counter} = {counter} + 1", f"if {test} or {counter} >= {limit}:",
                        "    break"])
            self.note("while-true")
        else:
            test = self.cond(inner_env, self.ch.int(1, 2))
            guard = f"{counter} < {limit}"
            both = f"{guard} and {test}" if self.ch.chance(70) else f"{test} and {guard}"
            # the counter goes up first, so that `continue` cannot skip it
            step = f"{counter} += 1" if self.ch.chance(50) else f"{counter} = {counter} + 1"
            lines = [f"{counter} = 0", f"while {both}:"] + _indent(
                [step] + self.loop_exit(inner_env, body))
        after.pop(counter, None)
        env[counter] = Var("i", limit)
        self.join(env, [after], loop=True)
        self._widen(env)
        return lines

    @staticmethod
    def _widen(env) -> None:
        for var in env.values():
            if var.kind != "i" and not var.readonly:
                var.bound = CAP

    # --- functions and the module ----------------------------------------------------------

    def function(self, name: str, params: list, returns: str, statements: int) -> list[str]:
        self.kinds = {p: k for p, k, _ in params}
        self.in_helper = name != "f"
        self.params = {p for p, _, _ in params}
        self.tainted: set[str] = set()
        self.safe_index, self.returned_early = None, False
        env = dict(self.globals)
        for p, k, _ in params:
            env[p] = Var(k, ARG_BOUND if k != "i" else N, owned=k == "s")
            self.kinds[p] = k
        if name != "f":  # a helper's arguments may be anything the caller holds
            for p, k, _ in params:
                env[p].bound = CAP
        self.budget = statements
        lines, returned = self.block(env, _Ctx(returns), statements)
        if not returned:
            lines.append(f"return {self.result(env, returns)}")
        if name == "f" and getattr(self, "none_argument", False):
            params = params + [("scale", "N", "None")]  # (issue 35: never given)
        signature = ", ".join(p if d is None else f"{p}={d}" for p, _, d in params)
        return [f"def {name}({signature}):"] + _indent(lines)

    def result(self, env, returns: str) -> str:
        if returns != "s":
            return self.squash(self.expr(env, returns, self.ch.int(0, 2))).src
        names = [n for n in self.vars_of(env, "svm") if not env[n].readonly]
        terms = []
        for _ in range(self.ch.int(1, 3)):
            if not names:
                break
            n = self.ch.pick(names)
            kind = env[n].kind
            terms.append(n if kind == "s" else self.ch.pick(
                [f"np.sum({n})", f"np.dot({n}, {n})" if kind == "v" else f"np.sum({n} ** 2)",
                 f"np.mean(np.sin({n}))"]))
        if not terms or self.ch.chance(30):
            terms.append(self.scalar(env, self.ch.int(0, 2)).src)
        return " + ".join(dict.fromkeys(terms))

    def program(self) -> Program:
        ch = self.ch
        self.alias = alias = ch.pick(NUMPY_ALIASES)
        if ch.chance(40):
            self.globals["K0"] = Var("s", 0.75, readonly=True)
        if ch.chance(30):
            self.globals["G0"] = Var("v", 1.0, readonly=True)
        for h in range(ch.int(0, self.max_helpers)):
            # (the caller's own names too: a parameter the caller's names rename, `y_1`)
            names = ch.pick([HELPER_PARAMS, ["x", "v", "a"], ["a", "w", "y"]])[:ch.int(1, 3)]
            params = []
            for i, p in enumerate(names):
                kind = ch.pick(["s", "v"])
                default = "0.5" if kind == "s" and i == len(names) - 1 and ch.chance(40) \
                    else None
                params.append((p, kind, default))
            returns = ch.pick(["s", "v"])
            text = self.function(f"h{h}", params, returns, ch.int(0, 3))
            self.helpers.append((f"h{h}", params, returns, text))
            if any(re.search(r"[\w)\]]\[|^\s*for .* in (?!range)", line) for line in text):
                self.indexing_helpers.add(f"h{h}")  # (known bug: not called in a branch)
        if ch.chance(25):
            self.recursive = self.recursion(len(self.helpers))
        params = []
        for kind, pool, most in (("s", SCALAR_PARAMS, 2), ("v", VECTOR_PARAMS, 2),
                                 ("m", MATRIX_PARAMS, 1), ("i", ["n"], 1)):
            count = ch.int(0, most)
            if kind == "s" and count == 0 and ch.chance(60):
                count = 1
            chosen = []
            for _ in range(count):
                free = [p for p in pool if p not in chosen]
                chosen.append(ch.pick(free))
            params += [(p, kind, None) for p in chosen]
        if all(k == "i" for _, k, _ in params):
            params.insert(0, ("x", "s", None))
        if len(params) > 1 and ch.chance(30):  # any order
            first = ch.int(0, len(params) - 1)
            params.insert(0, params.pop(first))
        if ch.chance(30) and not (AVOID_NEXT_AFTER_STATE and self.uses_next) and not (
                AVOID_GLOBAL_ITEM_WITH_STATE and "G0" in self.globals):
            # (an object that keeps state, not differentiated: FuzzState)
            params.append(("model", "o", None))
        if ch.chance(20):  # a function given as a default argument (its own variant)
            params.append(("act", "F", ch.pick(["np.tanh", "np.sin", "_act"])))
        main = self.function("f", params, "s", ch.int(1, self.max_statements))
        header = ["import functools", "import math", "", f"import numpy as {alias}"
                  if alias != "numpy" else "import numpy", ""]
        if getattr(self, "uses_s2sad", False):
            header[-1:-1] = ["import s2sad"]
        if "K0" in self.globals:
            header.append("K0 = 0.75")
        if "G0" in self.globals:
            header.append("G0 = np.array([0.5, -0.25, 1.0])")
            if any(kind == "o" for _, kind, _ in params):  # (beside an object that caches x)
                self.note("global-item-beside-state")
        body = []
        if any(d == "_act" for _, _, d in params):  # (a function of the user's, inlined)
            body += ["", "", "def _act(t):", "    return 0.5 * np.tanh(t) + 0.5 * np.sin(t)"]
        if getattr(self, "holds_function", False):
            body += ["", "", "class _Holder:", "    pass", "", "", "HOLD = _Holder()",
                     "HOLD.act = np.cos"]
        for name, _, _, text in self.helpers:
            body += ["", ""] + text
        for text in self.generators:
            body += ["", ""] + text
        body += ["", ""] + main
        template = "\n".join(header + body) + "\n"
        source = re.sub(r"\bnp\.", alias + ".", self.render(template, traced=False))
        traced = re.sub(r"\bnp\.", alias + ".", self.render(template, traced=True))
        traced = traced.replace("import math\n", TRACE_PRELUDE, 1)
        return Program(source, traced, [(p, k) for p, k, _ in params if k not in "FN"],
                       stats=dict(self.stats),
                       expect_refusal=self.expect_refusal)

    def recursion(self, number: int) -> str:
        """A helper ``hN(a, n)`` that calls itself ``n`` times; its value stays in (-1, 1)."""
        name = f"h{number}"
        c1, c2 = self.ch.pick(["0.5", "1.5", "-0.7"]), self.ch.pick(["0.3", "-1.2", "0.5"])
        text = [f"def {name}(a, n):", "    if n <= 0:", "        return np.tanh(a)",
                f"    return np.tanh({name}(0.5 * a + 0.5 * np.tanh(a * {c1}), n - 1) * 0.75"
                f" + a * {c2})"]
        self.helpers.append((name, [("a", "s", None), ("n", "i", None)], "r", text))
        self.note("recursion")
        return name

    def render(self, template: str, traced: bool) -> str:
        def one(match):
            left, op, right = self.conds[int(match.group(1))]
            return f"_cmp({left}, {op!r}, {right})" if traced else f"{left} {op} {right}"

        def cut(match):
            src, at = self.cuts[int(match.group(1))]
            return f"_cut({src}, {at!r})" if traced else src
        text = template
        while "@@" in text or "@!" in text:
            text = re.sub(r"@!(\d+)!@", cut, re.sub(r"@@(\d+)@@", one, text))
        return text


TRACE_PRELUDE = '''import math
import operator

_TRACE = []
_OPS = {">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le}


def _cmp(left, op, right):
    """``left op right``, recording the outcome and how far it was from flipping."""
    outcome = bool(_OPS[op](left, right))
    _TRACE.append((outcome, float(left - right)))
    return outcome


def _cut(value, at):
    """``value``, recording on which side of a cast's jumps it lies (at ``at``, or at every
    integer for None) and how far from the nearest: see ``Gen.cut``."""
    import numpy
    x = numpy.asarray(value, dtype=float).ravel()
    if at is None:
        outcome, margin = tuple(numpy.floor(x).tolist()), numpy.abs(x - numpy.round(x))
    else:
        outcome, margin = tuple(numpy.sign(x - at).tolist()), numpy.abs(x - at)
    _TRACE.append((outcome, float(numpy.min(margin, initial=numpy.inf))))
    return value
'''


def atom(src: str) -> str:
    """``src`` ready to be indexed or to have an attribute taken."""
    return src if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", src) else f"({src})"


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def generate(choices: Choices, max_statements: int = 8) -> Program:
    """A random program (see the module docstring)."""
    return Gen(choices, max_statements=max_statements).program()


def sample_arguments(program: Program, choices: Choices) -> list:
    """Arguments for ``f``: floats in [-ARG_BOUND, ARG_BOUND], small ints for ``n``."""
    import numpy as np
    args = []
    for _, kind in program.params:
        if kind == "o":
            args.append(FuzzState())
        elif kind == "i":
            args.append(choices.int(0, N))
        elif kind == "s":
            args.append(choices.real(-ARG_BOUND, ARG_BOUND))
        else:
            shape = (N,) if kind == "v" else (N, N)
            values = [choices.real(-ARG_BOUND, ARG_BOUND) for _ in range(int(np.prod(shape)))]
            args.append(np.array(values, dtype=np.float64).reshape(shape))
    return args


if __name__ == "__main__":  # python -m tests.fuzzgen [seed]: print one program
    import sys
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    print(generate(Choices.from_random(random.Random(seed))).source)
