"""Turn an accumulation into a known zero into a plain assignment.

``s = 0.0; ...; s += e`` becomes ``s = e`` wherever ``s`` is known to be zero:
after its zero-initialization, after a reset, and at the top of a loop body when
it is zero before the loop and again at the end of every pass. When ``e`` might
share memory with another array (a name, a view), neither name is updated in place
afterwards (``s += e2`` becomes ``s = s + e2``), so no value changes through an
alias. Zeros that are no longer read are left for the dead-code pass.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(x, n):
...     s_x, s_y, s_1 = [0.0] * 3
...     s_y += 2.0 * x
...     for _ in range(n):
...         s_1 += s_y
...         s_y = 0.0
...         s_y += x * s_1
...         s_1 = 0.0
...     s_x += s_y
...     s_x += x * s_y
...     return s_x''').body[0]
>>> print(unparse(FirstAssignment().visit(fn)))
def g(x, n):
    s_x, s_y, s_1 = [0.0] * 3
    s_y = 2.0 * x
    for _ in range(n):
        s_1 = s_y
        s_y = 0.0
        s_y = x * s_1
        s_1 = 0.0
    s_x = s_y
    s_x = s_x + x * s_y
    return s_x
"""

from __future__ import annotations

import gast

from .. import trees
from ..trees import located
from .gradient_form import fresh_result


def zero_init_names(stmt) -> list[str] | None:
    """Names set to zero by ``s = 0.0`` or ``s_a, s_b = [0.0] * 2``, else None."""
    if not isinstance(stmt, gast.Assign):
        return None
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, gast.Name) and _is_zero(value):
        return [target.id]
    if isinstance(target, gast.Tuple) and isinstance(value, gast.BinOp) and \
            isinstance(value.left, gast.List) and len(value.left.elts) == 1 and \
            _is_zero(value.left.elts[0]):
        return [e.id for e in target.elts]
    return None


def _is_zero(node) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) is float and node.value == 0.0


def _reads(node, name) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for n in trees.walk(node))


def written(stmt) -> set[str]:
    """Names a simple statement assigns or may change in place."""
    names = set()
    if isinstance(stmt, gast.Assign):
        for target in stmt.targets:
            while isinstance(target, gast.Subscript):
                target = target.value
            if isinstance(target, gast.Name):  # (most often: no walk)
                names.add(target.id)
            else:
                names |= {n.id for n in trees.walk(target) if isinstance(n, gast.Name)}
    elif isinstance(stmt, gast.AugAssign):
        target = stmt.target
        while isinstance(target, gast.Subscript):
            target = target.value
        if isinstance(target, gast.Name):
            names.add(target.id)
    elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
        call = stmt.value
        func = call.func
        if isinstance(func, gast.Attribute) and func.attr in ("append", "pop") and \
                isinstance(func.value, gast.Name):
            names.add(func.value.id)  # a list changes, not its items
        elif isinstance(func, gast.Attribute) and func.attr == "at" and call.args and \
                isinstance(call.args[0], gast.Name):
            names.add(call.args[0].id)  # np.add.at(s, i, g) changes s
        else:
            names |= {n.id for n in trees.walk(call) if isinstance(n, gast.Name)}
    return names


class FirstAssignment(trees.Transformer):
    """``fresh_call(func)``: does a call of ``func`` return a new array, one that no other
    name holds (``matmul_grad_left``...)? ``views``: the names of the helpers whose result
    is their first argument, or a view of it, or a new array (``unbroadcast``).

    >>> from s2sad.codegen import unparse
    >>> fn = gast.parse('''def g(x, w, m):
    ...     s_x, s_w, s_v, s_u = [0.0] * 4
    ...     s_x += matmul_grad_left(s_y, x, w)
    ...     s_v += unbroadcast(m * s_x, x)
    ...     s_u += unbroadcast(s_y, w)
    ...     s_x += x * s_y
    ...     s_u += x
    ...     return s_x, s_v, s_u''').body[0]
    >>> fresh = lambda func: isinstance(func, gast.Name) and func.id == "matmul_grad_left"
    >>> print(unparse(FirstAssignment(fresh, {"unbroadcast"}).visit(fn)))
    def g(x, w, m):
        s_x, s_w, s_v, s_u = [0.0] * 4
        s_x = matmul_grad_left(s_y, x, w)
        s_v = unbroadcast(m * s_x, x)
        s_u = unbroadcast(s_y, w)
        s_x += x * s_y
        s_u = s_u + x
        return (s_x, s_v, s_u)

    ``s_x`` holds a new array: it is updated in place. ``s_u`` may be ``s_y`` itself: neither
    is. ``s_v`` may be a read-only view (``unbroadcast`` spreads a number over an array),
    but it shares no memory with ``s_x``, a new array that ``m * s_x`` only reads.
    """

    def __init__(self, fresh_call=None, views=frozenset()):
        self.fresh_call = fresh_call or (lambda func: False)
        self.views = views

    def visit_FunctionDef(self, node):
        body = node.body
        zero = set(zero_init_names(body[0]) or []) if body else set()
        self.shared: set[str] = set()  # names that must not be updated in place
        self.block(body, zero, apply=True)
        if self.shared:
            _not_in_place(node.body, self.shared)
        _first_items(node.body)
        return node

    def block(self, stmts: list, zero: set, apply: bool) -> set:
        """Walk ``stmts`` knowing which accumulators are ``zero``; rewrite when ``apply``."""
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, gast.If):
                after_body = self.block(stmt.body, set(zero), apply)
                after_else = self.block(stmt.orelse, set(zero), apply)
                zero = after_body & after_else
            elif isinstance(stmt, (gast.For, gast.While)):
                entry = set(zero)
                while True:  # zero at the top of every pass: zero before and after one
                    end = self.block(stmt.body, set(entry), apply=False)
                    if entry <= end:
                        break
                    entry &= end
                self.block(stmt.body, set(entry), apply)
                zero = entry
            else:
                new = self.simple(stmt, zero) if apply else None
                if new is not None:
                    stmts[i] = located(new, stmt)
                    zero -= written(stmt)
                    continue
                if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                        isinstance(stmt.targets[0], gast.Name) and _is_zero(stmt.value):
                    zero.add(stmt.targets[0].id)
                    continue
                init = zero_init_names(stmt)
                if init:  # s_a, s_b = [0.0] * 2
                    zero |= set(init)
                    continue
                zero -= written(stmt)
        return zero

    def simple(self, stmt, zero):
        """The statement rewritten as an assignment, or None."""
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) and \
                stmt.target.id in zero and isinstance(stmt.op, (gast.Add, gast.Sub)) and \
                not _reads(stmt.value, stmt.target.id):
            value = stmt.value
            if isinstance(stmt.op, gast.Sub):  # (s -= -e: s = e, not s = --e)
                value = value.operand if isinstance(value, gast.UnaryOp) and \
                    isinstance(value.op, gast.USub) else gast.UnaryOp(gast.USub(), value)
            self._share(stmt.target.id, value)
            return gast.Assign([stmt.target], value, None)
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in zero and \
                isinstance(stmt.value, gast.Call) and len(stmt.value.args) == 2 and \
                isinstance(stmt.value.args[0], gast.Name) and \
                stmt.value.args[0].id == stmt.targets[0].id and \
                not _reads(stmt.value.args[1], stmt.targets[0].id):
            value = stmt.value.args[1]  # s = add_sens(s, e) with s == 0 is s = e
            self._share(stmt.targets[0].id, value)
            return gast.Assign(stmt.targets, value, None)
        return None

    def _share(self, name, value):
        if not self._fresh(value):  # `s = e` may alias e: update neither in place from now on
            self.shared.add(name)
            self.shared |= self._aliases(value)

    def _fresh(self, expr) -> bool:
        """Does ``expr`` build a new value, one that no other name holds (so updating it
        in place is safe)?"""
        if isinstance(expr, (gast.BinOp, gast.UnaryOp, gast.Constant)):
            return True
        return isinstance(expr, gast.Call) and fresh_result(expr, self.fresh_call)

    def _aliases(self, expr) -> set[str]:
        """The names whose values ``expr``'s value may share memory with."""
        if isinstance(expr, gast.Name):
            return {expr.id}
        if self._fresh(expr):
            return set()
        if isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and \
                expr.func.id in self.views and expr.args and not expr.keywords:
            return self._aliases(expr.args[0])  # (the others: a shape, axes)
        return {n.id for n in trees.walk(expr) if isinstance(n, gast.Name)}


def _not_in_place(stmts: list, names: set) -> None:
    """``s += e`` -> ``s = s + e`` for the given names, in every block (statements only are
    read: there is none in an expression)."""
    for block in trees.blocks(stmts):
        for i, stmt in enumerate(block):
            if type(stmt) is gast.AugAssign and isinstance(stmt.target, gast.Name) and \
                    stmt.target.id in names:
                load = gast.Name(stmt.target.id, gast.Load(), None, None)
                block[i] = located(gast.Assign(
                    [stmt.target], gast.BinOp(load, stmt.op, stmt.value), None), stmt)


def _first_items(stmts: list) -> None:
    """``s_x = [0.0] * n``, then a loop ``for i in range(...)`` (or ``reversed(range(...))``)
    whose one change to ``s_x`` is ``s_x[i] += e``: each item is still zero when the loop
    comes to it (``i`` differs from pass to pass), so ``s_x[i] = e``. In every block.

    >>> from s2sad.codegen import unparse
    >>> fn = gast.parse('''def g(x, n):
    ...     s_x = [0.0] * len(x)
    ...     s_p = 1.0
    ...     for i in reversed(range(n)):
    ...         p = stack.pop()
    ...         s_x[i] += p * s_p
    ...         s_p = x[i] * s_p
    ...     return s_x''').body[0]
    >>> _first_items(fn.body)
    >>> print(unparse(fn.body[2].body[1]))
    s_x[i] = p * s_p
    """
    zeros: set[str] = set()  # lists of zeros, made in this block, untouched since
    for stmt in stmts:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(stmt, gast.FunctionDef):
                _first_items(inner)
        if isinstance(stmt, gast.For) and zeros:
            k = _item_update(stmt, zeros)
            if k is not None:
                update = stmt.body[k]
                stmt.body[k] = located(
                    gast.Assign([update.target], update.value, None), update)
        if zeros:
            zeros -= {n.id for n in trees.walk(stmt) if isinstance(n, gast.Name)}
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and _list_of_zeros(stmt.value):
            zeros.add(stmt.targets[0].id)


def _list_of_zeros(value) -> bool:
    return isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult) and \
        isinstance(value.left, gast.List) and len(value.left.elts) == 1 and \
        _is_zero(value.left.elts[0])


def _item_update(loop, zeros: set) -> int | None:
    """The position in ``loop``'s body of its one change to a list of ``zeros``,
    ``s_x[i] += e`` with ``i`` the loop's own counter over distinct integers, or None."""
    iterated = loop.iter
    if isinstance(iterated, gast.Call) and isinstance(iterated.func, gast.Name) and \
            iterated.func.id == "reversed" and len(iterated.args) == 1:
        iterated = iterated.args[0]
    if not (isinstance(loop.target, gast.Name) and isinstance(iterated, gast.Call) and
            isinstance(iterated.func, gast.Name) and iterated.func.id == "range" and
            not iterated.keywords) or loop.orelse:
        return None
    counter = loop.target.id
    found = None
    for k, stmt in enumerate(loop.body):
        if not isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr)):
            names = {n.id for n in trees.walk(stmt) if isinstance(n, gast.Name)}
            if names & (zeros | {counter}):
                return None  # (a nested block that reads or changes them: not followed)
            continue
        if counter in written(stmt):
            return None  # the counter changes in the body
        touched = {n.id for n in trees.walk(stmt) if isinstance(n, gast.Name)} & zeros
        if not touched:
            continue
        target = stmt.target if isinstance(stmt, gast.AugAssign) else None
        if found is not None or not (
                isinstance(target, gast.Subscript) and isinstance(stmt.op, gast.Add) and
                isinstance(target.value, gast.Name) and target.value.id in zeros and
                isinstance(target.slice, gast.Name) and target.slice.id == counter and
                not _reads(stmt.value, target.value.id) and touched == {target.value.id}):
            return None
        found = k
    return found
