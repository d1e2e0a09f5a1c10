"""Add up a reverse loop's weight sensitivities after the loop, many passes in one call.

The reverse sweep of an RNN-like loop adds to each weight's sensitivity in every pass:
``s_Wh += h.T @ s_4``, ``s_b += unbroadcast(s_5, b)``. On small arrays each such term
costs mostly NumPy's overhead per call, and the pass pays it twice (the product, then
the ``+=``). Where nothing in the loop reads the sensitivity, its terms need not be
added pass by pass: each pass hands them to a collector (``s_Wh_terms.add(h, s_4)``,
``s_b_terms.add(s_5, b)``), and after the loop one statement adds what they sum to
(``s_Wh += s_Wh_terms.total()``). The collectors, ``ProductSum`` and ``UnbroadcastSum``
of ``s2sad.runtime.terms``, stack small terms and compute many at a time: one matrix
product of the stacked rows, one sum.

A collector keeps the arrays it is given until it computes with them, so the loop must
not change an array in place: the pass leaves alone a loop that stores into an item or
an attribute, calls anything but NumPy and the runtime's helpers, or gives a value to
a name with ``+=`` that it reads or assigns elsewhere in the loop (in place, that
``+=`` could change an array a term holds). Only reverse loops are changed (the forward sweep computes
what the user wrote, in the user's order).

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def grad_rnn(Wx, Wh, b, xs, h0):
...     s_Wx, s_Wh, s_b = [0.0] * 3
...     for t in range(n):
...         h = np.tanh(xs[t] @ Wx + h @ Wh + b)
...     for t in reversed(range(n)):
...         s_5 = s_h * (1.0 - h ** 2)
...         h = h_saved[t]
...         s_b += unbroadcast(s_5, b)
...         s_h = s_5 @ Wh.T
...         s_Wh += h.T @ s_5
...         s_Wx += xs[t].T @ s_5
...     return s_Wx, s_Wh, s_b''').body[0]
>>> sums = LoopSums({"unbroadcast"}, {"unbroadcast", "np"}, "np", set(),
...                 lambda helper: helper.__name__, lambda name: name)
>>> print(unparse(sums.visit(fn)))
def grad_rnn(Wx, Wh, b, xs, h0):
    s_Wx, s_Wh, s_b = [0.0] * 3
    for t in range(n):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    s_b_terms = UnbroadcastSum()
    s_Wh_terms = ProductSum()
    s_Wx_terms = ProductSum()
    for t in reversed(range(n)):
        s_5 = s_h * (1.0 - h ** 2)
        h = h_saved[t]
        s_b_terms.add(s_5, b)
        s_h = s_5 @ Wh.T
        s_Wh_terms.add(h, s_5)
        s_Wx_terms.add(xs[t], s_5)
    s_b += s_b_terms.total()
    s_Wh += s_Wh_terms.total()
    s_Wx += s_Wx_terms.total()
    return (s_Wx, s_Wh, s_b)

A loop that changes an array in place is left as it is:

>>> fn = gast.parse('''def g(x, n):
...     for i in range(n):
...         p = p * x[i]
...     for i in reversed(range(n)):
...         s_x[i] = p * s_p
...         s_W += p.T @ s_p
...     return s_W''').body[0]
>>> sums = LoopSums({"unbroadcast"}, {"np"}, "np", set(), lambda helper: helper.__name__,
...                 str)
>>> _ = sums.visit(fn); sums.changed
False
"""

from __future__ import annotations

from typing import Callable

import gast
import numpy as np

from .. import trees
from ..trees import located
from ..runtime.terms import ProductSum, UnbroadcastSum
from .recompute import loop_pairs

# what ends a pass early, or leaves the function's scope (a collector must see every term)
_LEAVES = (gast.Break, gast.Continue, gast.Return, gast.Yield, gast.YieldFrom, gast.Await,
           gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
           gast.Global, gast.Nonlocal, gast.Try, gast.With, gast.AsyncWith, gast.Raise)


def _load(name: str, attr: str):
    """``name.attr``, read."""
    return gast.Attribute(gast.Name(name, gast.Load(), None, None), attr, gast.Load())


def _product(value):
    """``(a, b)`` of ``a.T @ b``, else None."""
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.MatMult) and \
            isinstance(value.left, gast.Attribute) and value.left.attr == "T":
        return value.left.value, value.right
    return None


class LoopSums:
    """``unbroadcast``: the names of the ``unbroadcast`` helper in the generated code;
    ``pure``: the names of the functions a loop may call (the runtime's helpers,
    ``len``...); ``numpy_name``: the array module's name (its functions may be called,
    without ``out=``); ``trips``: the counters of ``for _ in range(trips_1)``, the reverse
    loops of ``while`` loops; ``helper(cls)``: the generated code's name for a class of
    ``s2sad.runtime.terms``; ``claim(name)``: a free name. ``changed``: whether a loop
    changed."""

    def __init__(self, unbroadcast, pure, numpy_name: str, trips,
                 helper: Callable[[type], str], claim: Callable[[str], str]):
        self.unbroadcast = set(unbroadcast)
        self.pure = set(pure)
        self.numpy_name = numpy_name
        self.trips = set(trips)
        self.helper = helper
        self.claim = claim
        self.changed = False

    def visit(self, fn):
        for block in trees.blocks(fn.body):
            loops = [backward for _, backward in loop_pairs(block)] + [
                s for s in block if isinstance(s, gast.For) and self._walks_trips(s)]
            for loop in loops:
                made = self._loop(loop)
                if made:
                    before, after = made
                    at = block.index(loop)
                    block[at + 1:at + 1] = [located(s, loop) for s in after]
                    block[at:at] = [located(s, loop) for s in before]
                    self.changed = True
        return fn

    def _walks_trips(self, loop) -> bool:
        """Is ``loop`` ``for _ in range(trips_1)``, a ``while`` loop walked back?"""
        it = loop.iter
        return isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and \
            it.func.id == "range" and len(it.args) == 1 and not it.keywords and \
            isinstance(it.args[0], gast.Name) and it.args[0].id in self.trips

    def _call_is_pure(self, call) -> bool:
        func = call.func
        if isinstance(func, gast.Name):
            return func.id in self.pure or func.id in ("range", "reversed")
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
            if func.value.id == self.numpy_name:  # (a NumPy function; out= writes in place,
                # as does a ufunc's output array given after its inputs)
                ufunc = getattr(np, func.attr, None)
                return not any(k.arg == "out" for k in call.keywords) and not (
                    isinstance(ufunc, np.ufunc) and len(call.args) > ufunc.nin)
            return func.attr == "pop" and not call.args  # (the tape: lists, not arrays)
        return False

    def _loop(self, loop):
        """The statements to put before and after ``loop``, its terms handed to
        collectors; None where it stays as it is."""
        if loop.orelse:
            return None
        nodes = [n for s in loop.body for n in trees.walk(s)]
        augmented = [n for n in nodes if isinstance(n, gast.AugAssign)]
        if not augmented or any(
                isinstance(n, _LEAVES) or
                isinstance(n, (gast.Subscript, gast.Attribute, gast.Starred)) and
                not isinstance(n.ctx, gast.Load) or
                isinstance(n, gast.Name) and isinstance(n.ctx, gast.Del) or
                isinstance(n, gast.Call) and not self._call_is_pure(n) for n in nodes):
            return None
        if not all(isinstance(a.target, gast.Name) for a in augmented):
            return None
        mentions: dict = {}
        for n in nodes + trees.walk(loop.target):
            if isinstance(n, gast.Name):
                mentions[n.id] = mentions.get(n.id, 0) + 1
        by_target: dict = {}
        for a in augmented:
            by_target.setdefault(a.target.id, []).append(a)
        if any(mentions[name] != len(updates) for name, updates in by_target.items()):
            return None  # (a name given a value by `+=` read in the loop: it may be an
            # array changed in place that a term is, or is a view of)
        kinds = {}
        for name, updates in by_target.items():
            terms = [self._term(a) for a in updates]
            if None not in terms and len({kind for kind, _ in terms}) == 1 and \
                    len({type(a.op) for a in updates}) == 1 and \
                    isinstance(updates[0].op, (gast.Add, gast.Sub)):  # (a sum of terms)
                kinds[name] = terms[0][0]
        if not kinds:
            return None
        collectors = {name: self.claim(f"{name}_terms") for name in kinds}
        for block in trees.blocks(loop.body):
            for k, stmt in enumerate(block):
                if isinstance(stmt, gast.AugAssign) and stmt.target.id in kinds:
                    _, args = self._term(stmt)
                    block[k] = located(gast.Expr(gast.Call(
                        _load(collectors[stmt.target.id], "add"), list(args), [])), stmt)
        before = [gast.Assign([gast.Name(collectors[name], gast.Store(), None, None)],
                              gast.Call(gast.Name(self.helper(kind), gast.Load(), None, None),
                                        [], []), None) for name, kind in kinds.items()]
        after = [gast.AugAssign(gast.Name(name, gast.Store(), None, None),
                                type(by_target[name][0].op)(),
                                gast.Call(_load(collectors[name], "total"), [], []))
                 for name in kinds]
        return before, after

    def _term(self, update):
        """``(collector class, arguments of its add)`` for the term of ``update``."""
        value = update.value
        pair = _product(value)
        if pair is not None:
            return ProductSum, pair
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
                value.func.id in self.unbroadcast and len(value.args) == 2 and \
                not value.keywords:
            return UnbroadcastSum, tuple(value.args)
        return None
