"""Sum a sensitivity down as it is built, where nothing reads it but that sum.

The GMM's ``xc = x[None, :, :] - means[:, None, :]`` is a (K, n, d) array made from
``means`` (K, d); its sensitivity ``s_xc`` gathers two (K, n, d) terms, only to be summed
over n for ``s_means = -unbroadcast(s_xc, t_2)[:, 0, :]``. Summed term by term instead,
each term can be summed before it is made: ``q * x`` along axes where ``q`` has length 1
is ``q`` times the sum of ``x`` (``unbroadcast_product``), a matrix product's rows sum
before the product (``summed_matmul_grad_left``), and ``s_xc`` is a (K, 1, d) array.

The pass changes a name that the function's top level gives a value once and then adds
to (``s = a``, ``s += b``...), that nothing else reads but one ``unbroadcast(s, like)``
after them (``like`` a name that nothing gives a value or changes in place from before
the first term to the sum), where each term is the adjoint of a matrix product's left operand or a product summed
down to the shape of one same value (``matmul_grad_left(g, xc, W)``,
``unbroadcast(q * g, xc)``: so the terms have one shape, and their sum is their sums'
sum). Each term is summed where it was added (``s = summed_matmul_grad_left(g, xc, W,
like)``, ``s = s + unbroadcast(q * g, like)``), and the sum reads ``s``.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def grad_f(x, m, W):
...     t_2 = m[:, None, :]
...     xc = x - t_2
...     s_4 = g(xc)
...     s_xc = matmul_grad_left(s_4, xc, W)
...     s_xc += unbroadcast(q * s_4, xc)
...     s_m = -unbroadcast(s_xc, t_2)[:, 0, :]
...     return s_m''').body[0]
>>> sums = EarlySums("unbroadcast", "matmul_grad_left", lambda f: f.__name__)
>>> print(unparse(sums.visit(fn)))
def grad_f(x, m, W):
    t_2 = m[:, None, :]
    xc = x - t_2
    s_4 = g(xc)
    s_xc = summed_matmul_grad_left(s_4, xc, W, t_2)
    s_xc = s_xc + unbroadcast(q * s_4, t_2)
    s_m = -s_xc[:, 0, :]
    return s_m
"""

from __future__ import annotations

from typing import Callable

import gast

from .. import trees
from ..trees import clone, located
from ..runtime import summed_matmul_grad_left
from .first_assignment import written


SUMMED = "(the sum's own shape)"  # a term shaped like the sum's other terms


class EarlySums:
    """``unbroadcast``: the ``unbroadcast`` helper's name in the generated code;
    ``matmul_left``: the name of ``matmul_grad_left`` there (None where the code does not
    call it); ``helper(function)``: the
    generated code's name for a helper of ``s2sad.runtime``. ``changed``: whether a sum
    moved."""

    def __init__(self, unbroadcast: str, matmul_left: str | None,
                 helper: Callable[[Callable], str]):
        self.unbroadcast = unbroadcast
        self.matmul_left = matmul_left
        self.helper = helper
        self.changed = False

    def visit(self, fn):
        body = fn.body
        params = {a.id for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        nested = {n.id for s in body if not isinstance(s, (gast.Assign, gast.AugAssign,
                                                           gast.Expr, gast.Return))
                  for n in trees.walk(s) if isinstance(n, gast.Name)}
        moved = True
        while moved:  # (each move changes what reads what: count again)
            moved = False
            reads: dict = {}  # name -> how many times the function reads it (but to add
            walks = [trees.walk(stmt) for stmt in body]  # to it: `s = s + e`; each
            for stmt, nodes in zip(body, walks):  # statement walked once a round)
                own = stmt.value.left if isinstance(stmt, gast.Assign) and \
                    _addition(stmt) is not None else None
                for node in nodes:
                    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                            node is not own:
                        reads[node.id] = reads.get(node.id, 0) + 1
            for k, stmt in enumerate(body):  # (nothing changes before a move, then a round)
                for call in [n for n in walks[k] if self._sum_of_a_name(n)]:
                    name = call.args[0].id
                    if name not in nested and reads.get(name) == 1 and \
                            self._move(body, k, call, params):
                        moved = self.changed = True
                        break
                if moved:
                    break
        return fn

    def _sum_of_a_name(self, node) -> bool:
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id == self.unbroadcast and len(node.args) == 2 and \
            not node.keywords and isinstance(node.args[0], gast.Name)

    def _move(self, body, at, call, params) -> bool:
        """Sum ``call``'s name term by term, if its values are a first one and additions
        of terms of one shape that sum early (statements of ``body`` before ``at``)."""
        name, like = call.args[0].id, call.args[1]
        stores = [k for k in range(at) if name in _changed(body[k])]
        if not isinstance(like, gast.Name) or not stores or name in _changed(body[at]) or \
                not _first_value(body[stores[0]], name) or \
                not all(_addition(body[k]) == name for k in stores[1:]):
            return False
        shapes = {self._shaped_like(_term(body[k])) for k in stores} - {SUMMED}
        if len(shapes) != 1 or None in shapes:  # (one term at least says the shape)
            return False
        before = set(params).union(*(_changed(s) for s in body[:stores[0]]))
        during = set().union(*(_changed(s) for s in body[stores[0]:at]))
        if like.id not in before or like.id in during:
            return False
        for k in stores:
            body[k] = located(self._summed(body[k], name, like), body[k])
        replaced = _replace(body[at], call, gast.Name(name, gast.Load(), None, None))
        assert replaced, "the sum is a node of its statement"
        return True

    def _shaped_like(self, term) -> str | None:
        """The name whose shape ``term`` has: ``xc`` of ``matmul_grad_left(g, xc, W)``
        and of ``unbroadcast(q * g, xc)``; ``SUMMED`` for a product ``q * g`` the kinds
        left without its ``unbroadcast`` (shaped like the value whose sensitivity it adds
        to: the others' name says which); None for another term."""
        if isinstance(term, gast.BinOp) and isinstance(term.op, gast.Mult):
            return SUMMED
        if not isinstance(term, gast.Call) or not isinstance(term.func, gast.Name) or \
                term.keywords or len(term.args) < 2 or not isinstance(term.args[1], gast.Name):
            return None
        product = isinstance(term.args[0], gast.BinOp) and isinstance(term.args[0].op,
                                                                      gast.Mult)
        if term.func.id == self.matmul_left and len(term.args) == 3 or \
                term.func.id == self.unbroadcast and len(term.args) == 2 and product:
            return term.args[1].id
        return None

    def _summed(self, stmt, name: str, like):
        term = _term(stmt)
        if isinstance(term, gast.BinOp):  # q * g, shaped like the others: summed down too
            summed = gast.Call(gast.Name(self.unbroadcast, gast.Load(), None, None),
                               [term, clone(like)], [])
        elif term.func.id == self.matmul_left:
            summed = gast.Call(gast.Name(self.helper(summed_matmul_grad_left), gast.Load(),
                                         None, None), term.args + [clone(like)], [])
        else:  # (the sum down to like's shape goes through the term's own shape)
            summed = gast.Call(term.func, [term.args[0], clone(like)], [])
        if _addition(stmt) is None:
            value = summed
        else:  # (a new value, not +=: the first one may be a term's own array)
            op = stmt.op if isinstance(stmt, gast.AugAssign) else stmt.value.op
            value = gast.BinOp(gast.Name(name, gast.Load(), None, None), op, summed)
        return gast.Assign([gast.Name(name, gast.Store(), None, None)], value, None)


def _changed(stmt) -> set:
    """The names ``stmt`` gives a value or may change in place (``written``: ``s[i] =
    e`` changes ``s``); for a compound statement (a loop, an ``if``), every name in it."""
    if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return)):
        return written(stmt)
    return {n.id for n in trees.walk(stmt) if isinstance(n, gast.Name)}


def _first_value(stmt, name: str) -> bool:
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name


def _addition(stmt) -> str | None:
    """The name ``stmt`` adds to or subtracts from (``s += e``, ``s = s + e``), else None."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) and \
            isinstance(stmt.op, (gast.Add, gast.Sub)):
        return stmt.target.id
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.BinOp) and \
            isinstance(stmt.value.op, (gast.Add, gast.Sub)) and \
            isinstance(stmt.value.left, gast.Name) and \
            stmt.value.left.id == stmt.targets[0].id:
        return stmt.targets[0].id
    return None


def _term(stmt):
    """What ``stmt`` gives its name, or adds to it."""
    if isinstance(stmt, gast.Assign) and _addition(stmt) is not None:
        return stmt.value.right
    return stmt.value


def _replace(stmt, old, new) -> bool:
    """Put ``new`` where ``stmt`` holds the node ``old``."""
    for node in trees.walk(stmt):
        for field in trees.node_fields(type(node)):
            value = getattr(node, field, None)
            if value is old:
                setattr(node, field, new)
                return True
            if isinstance(value, list) and any(v is old for v in value):
                value[[i for i, v in enumerate(value) if v is old][0]] = new
                return True
    return False
