"""Read the one sensitivity that every item of a summed list gets, not a list of copies.

``ret = sum(xs)`` gives each item of ``xs`` the sensitivity ``s_ret``: its adjoint
builds ``s_xs``, a list of ``len(xs)`` copies of it, which the reverse loop reads back
one by one (``s_x = s_x + s_xs[-1]; s_xs = s_xs[:-1]``, the adjoint of
``xs.append(x)``). Where the list holds Python numbers only, and nothing else reads or
changes ``s_xs``, each of those reads is ``s_ret``: the list is never built.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def grad_f(a, n):
...     xs = []
...     for i in range(n):
...         xs.append(a)
...     ret = sum(xs)
...     s_ret = output_seed(ret)
...     s_xs = add_sens(zeros_like_structure(xs), sum_list_grad(s_ret, xs))
...     for i in reversed(range(n)):
...         s_a = s_a + s_xs[-1]
...         s_xs = s_xs[:-1]
...         xs.pop()
...     return s_a''').body[0]
>>> names = {"sum_list_grad": "sum_list_grad", "add_sens": "add_sens",
...          "zeros_like_structure": "zeros_like_structure", "output_seed": "output_seed"}
>>> items = UniformItems(names, lambda name: name in ("a", "ret"), {"sum"})
>>> print(unparse(items.visit(fn)))
def grad_f(a, n):
    xs = []
    for i in range(n):
        xs.append(a)
    ret = sum(xs)
    s_ret = output_seed(ret)
    for i in reversed(range(n)):
        s_a = s_a + s_ret
        xs.pop()
    return s_a

Why each read is ``s_ret``: ``zeros_like_structure`` gives a Python number's item the
structural zero 0.0, and ``0.0 + s_ret`` is ``s_ret``'s value (``output_seed`` of a
Python number is 1.0, which is never shared in place). The items are Python numbers when
the list is the function's own (:func:`~s2sad.transforms.list_uses.list_uses`), made and
grown only with values the kinds analysis knows to be Python numbers. ``s_xs`` is bound
once, in the function's body, before every statement that reads it.
"""

from __future__ import annotations

from typing import Callable

import gast

from .. import trees
from .list_pops import _shortened
from .list_uses import list_uses


def _call_of(node, alias: str | None, nargs: int) -> bool:
    return alias is not None and isinstance(node, gast.Call) and \
        isinstance(node.func, gast.Name) and node.func.id == alias and \
        len(node.args) == nargs and not node.keywords


def _item(node, name: str) -> bool:
    """``name[k]`` read, ``k`` an integer written out: the adjoint of an append
    (``s_xs[-1]``) or of a list display (``s_xs[0]``), in range by construction."""
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
        node.value.id == name and isinstance(node.ctx, gast.Load) and \
        trees.signed_constant(node.slice, int) is not None


def _bound_once(fn, at: int, name: str):
    """The statement ``name = ...`` of ``fn.body[:at]``, where it binds ``name`` and no
    other statement of ``fn`` does; else None."""
    binds = [n for n in trees.walk(fn) if isinstance(n, gast.Name) and n.id == name and
             not isinstance(n.ctx, gast.Load)]
    made = [stmt for stmt in fn.body[:at] if isinstance(stmt, gast.Assign) and
            len(stmt.targets) == 1 and any(stmt.targets[0] is n for n in binds)]
    return made[0] if len(binds) == 1 and len(made) == 1 else None


class UniformItems:
    """``visit(fn)``: ``fn`` with each read of a summed list's sensitivity made the sum's
    (see the module's text). ``helpers``: the names generated code calls s2sad's runtime
    helpers by (``{"sum_list_grad": alias, ...}``); ``python_number(name)``: does ``name``
    always hold a Python float or int?; ``readers``: functions that read a list and keep
    nothing of it. ``changed``: whether a list was left out."""

    def __init__(self, helpers: dict, python_number: Callable[[str], bool], readers):
        self.helpers = helpers
        self.python_number = python_number
        self.readers = frozenset(readers) | {
            helpers[n] for n in ("sum_list_grad", "zeros_like_structure") if n in helpers}
        self.changed = False

    def visit(self, fn):
        for stmt in list(fn.body):
            found = self._summed(stmt)
            if found is None:
                continue
            s, seed, xs = found
            at = next(j for j, kept in enumerate(fn.body) if kept is stmt)  # (one went?)
            if self._uniform(fn, at, s, seed, xs):
                self._rewrite(fn, stmt, s, seed)
                self.changed = True
        return fn

    def _summed(self, stmt):
        """``(s_xs, g, xs)`` of ``s_xs = sum_list_grad(g, xs)``, maybe added to
        ``zeros_like_structure(xs)``; else None."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name)):
            return None
        value, helpers = stmt.value, self.helpers
        if _call_of(value, helpers.get("add_sens"), 2):
            zeros, value = value.args
            made_of = self._zeros_of(zeros)
            if made_of is None:
                return None
        else:
            made_of = None
        if not (_call_of(value, helpers.get("sum_list_grad"), 2) and
                isinstance(value.args[1], gast.Name)):
            return None
        seed, xs = value.args
        if made_of not in (None, xs.id):
            return None
        return stmt.targets[0].id, seed, xs.id

    def _zeros_of(self, node) -> str | None:
        """``xs`` of ``zeros_like_structure(xs)`` or ``[0.0] * len(xs)``, else None."""
        if _call_of(node, self.helpers.get("zeros_like_structure"), 1):
            found = node.args[0]
        elif isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult) and \
                isinstance(node.left, gast.List) and len(node.left.elts) == 1 and \
                isinstance(node.left.elts[0], gast.Constant) and \
                type(node.left.elts[0].value) is float and node.left.elts[0].value == 0.0 and \
                "len" in self.readers and _call_of(node.right, "len", 1):
            found = node.right.args[0]
        else:
            return None
        return found.id if isinstance(found, gast.Name) else None

    def _uniform(self, fn, at: int, s: str, seed: str, xs: str) -> bool:
        """Is every item of ``s`` (bound by ``fn.body[at]``) ``seed``'s Python float,
        read only as ``s[-1]`` and shortened only by ``s = s[:-1]``?"""
        uses = list_uses(fn, xs, self.readers)
        if uses is None or not self._numbers(uses) or not self._seed(fn, at, seed, xs):
            return False
        allowed = set()
        for node in trees.walk(fn):
            if _shortened(node) == s:
                allowed.update((id(node.targets[0]), id(node.value.value)))
            elif _item(node, s):
                allowed.add(id(node.value))
        allowed.add(id(fn.body[at].targets[0]))
        later = {id(n) for stmt in fn.body[at + 1:] for n in trees.walk(stmt)}
        return all(id(n) in allowed and (id(n) in later or n is fn.body[at].targets[0])
                   for n in trees.walk(fn) if isinstance(n, gast.Name) and n.id == s)

    def _numbers(self, uses) -> bool:
        """Are the list's items Python numbers, whenever it is read?"""
        values = list(uses.made.stmt.value.elts) + [value for _, value in uses.appends]
        return all(map(self._number, values))

    def _number(self, node) -> bool:
        """Is ``node`` a Python float or int: one, a name the kinds say holds one, or
        ``+ - * /`` of them (``**`` may make a complex number)?"""
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float)
        if isinstance(node, gast.Name):
            return self.python_number(node.id)
        if isinstance(node, gast.BinOp):
            return isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)) and \
                self._number(node.left) and self._number(node.right)
        if isinstance(node, gast.UnaryOp):
            return isinstance(node.op, (gast.USub, gast.UAdd)) and self._number(node.operand)
        return False

    def _seed(self, fn, at: int, seed, xs: str) -> bool:
        """Is ``seed`` a Python float written out (not zero), or a name bound once, in ``fn``'s body
        before ``fn.body[at]``, by ``output_seed(r)`` of a Python number ``r`` (so it is
        1.0)? ``r`` is one where the kinds say so, or where ``r = sum(xs)`` binds it,
        once."""
        if isinstance(seed, gast.Constant):  # (0.0 + -0.0 is 0.0: a zero is left as is)
            return type(seed.value) is float and seed.value != 0.0
        if not isinstance(seed, gast.Name):
            return False
        made = _bound_once(fn, at, seed.id)
        if made is None or not _call_of(made.value, self.helpers.get("output_seed"), 1) or \
                not isinstance(made.value.args[0], gast.Name):
            return False
        r = made.value.args[0].id
        if self.python_number(r):
            return True
        summed = _bound_once(fn, at, r)
        return summed is not None and "sum" in self.readers and \
            _call_of(summed.value, "sum", 1) and isinstance(summed.value.args[0], gast.Name) \
            and summed.value.args[0].id == xs

    def _rewrite(self, fn, bound, s: str, seed) -> None:
        for block in trees.blocks(fn.body):
            block[:] = [stmt for stmt in block
                        if stmt is not bound and _shortened(stmt) != s] or [gast.Pass()]
        for node in trees.walk(fn):
            for field, value in gast.iter_fields(node):
                if _item(value, s):
                    setattr(node, field, trees.clone(seed))
                elif isinstance(value, list):
                    value[:] = [trees.clone(seed) if _item(v, s)
                                else v for v in value]
