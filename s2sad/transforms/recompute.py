"""Recompute in the reverse sweep what a loop reads afresh each pass, instead of saving it.

A loop body that starts a pass with ``x = xs[i]`` (the loop index into values that
never change) need not push ``x`` on the stack: the reverse loop, which walks the
same indices backwards, reads ``xs[i]`` again. Tapenade calls this recomputation;
it saves one push and one pop per pass and the memory they hold.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(xs, h):
...     stack = []
...     x = None
...     for i in range(len(xs)):
...         stack.append(x)
...         x = xs[i]
...         stack.append(h)
...         h = h * x
...     for i in reversed(range(len(xs))):
...         h = stack.pop()
...         s_x = h * s_h
...         s_h = x * s_h
...         s_xs[i] += s_x
...         x = stack.pop()
...     return s_xs''').body[0]
>>> print(unparse(Recompute().visit(fn)))
def g(xs, h):
    stack = []
    x = None
    for i in range(len(xs)):
        x = xs[i]
        stack.append(h)
        h = h * x
    for i in reversed(range(len(xs))):
        x = xs[i]
        h = stack.pop()
        s_x = h * s_h
        s_h = x * s_h
        s_xs[i] += s_x
    return s_xs

A value made from one that the pass overwrites later (``t = a * x`` before ``x = ...``)
is made again in the reverse pass just after ``x`` comes back, where every read of it
follows that restore and precedes its own:

>>> fn = gast.parse('''def g(a, x, n):
...     stack = []
...     t = None
...     for i in range(n):
...         stack.append(t)
...         t = a * x
...         stack.append(x)
...         x = math.sin(t)
...     for i in reversed(range(n)):
...         x = stack.pop()
...         s_t = s_x * math.cos(t)
...         s_a += x * s_t
...         s_x = a * s_t
...         t = stack.pop()
...     return s_a''').body[0]
>>> print(unparse(Recompute({"a", "x"}).visit(fn)))
def g(a, x, n):
    stack = []
    t = None
    for i in range(n):
        t = a * x
        stack.append(x)
        x = math.sin(t)
    for i in reversed(range(n)):
        x = stack.pop()
        t = a * x
        s_t = s_x * math.cos(t)
        s_a += x * s_t
        s_x = a * s_t
    return s_a
"""

from __future__ import annotations

from collections import Counter

import gast

from .. import trees
from ..trees import clone, located
from .first_assignment import written


def _push(stmt):
    """``(stack, name)`` of ``stack.append(name)``, else None."""
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
        call = stmt.value
        if isinstance(call.func, gast.Attribute) and call.func.attr == "append" and \
                isinstance(call.func.value, gast.Name) and call.func.value.id.startswith("stack") \
                and len(call.args) == 1 and isinstance(call.args[0], gast.Name):
            return call.func.value.id, call.args[0].id
    return None


def _pop(stmt):
    """``(stack, name)`` of ``name = stack.pop()``, else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call):
        func = stmt.value.func
        if isinstance(func, gast.Attribute) and func.attr == "pop" and \
                isinstance(func.value, gast.Name) and not stmt.value.args:
            return func.value.id, stmt.targets[0].id
    return None


def _reversed_of(loop, forward) -> bool:
    """Is ``loop`` the reverse loop ``for i in reversed(<forward's iterable>)``?"""
    it = loop.iter
    return isinstance(loop, gast.For) and isinstance(it, gast.Call) and \
        isinstance(it.func, gast.Name) and it.func.id == "reversed" and len(it.args) == 1 and \
        gast.dump(it.args[0]) == gast.dump(forward.iter) and \
        gast.dump(loop.target) == gast.dump(forward.target)


def loop_pairs(stmts: list) -> list:
    """``(forward, backward)`` for each loop of ``stmts`` walked back by a later one,
    ``for i in reversed(<forward's iterable>)``. The sweeps nest, so a reverse loop
    walks back the latest loop before it over the same values not yet walked back
    (two ``for i in range(n)`` loops: the second is walked back first).

    >>> import gast
    >>> tree = gast.parse("for i in range(n): a\\nfor i in range(n): b\\n"
    ...                   "for i in reversed(range(n)): b\\nfor i in reversed(range(n)): a")
    >>> [(f.body[0].value.id, b.body[0].value.id) for f, b in loop_pairs(tree.body)]
    [('b', 'b'), ('a', 'a')]
    """
    pending, pairs = [], []
    for stmt in stmts:
        if not isinstance(stmt, gast.For):
            continue
        forward = next((f for f in reversed(pending) if _reversed_of(stmt, f)), None)
        if forward is None:
            pending.append(stmt)
        else:
            pending.remove(forward)
            pairs.append((forward, stmt))
    return pairs


def _unrestored(forward, backward) -> set[str]:
    """The names a pass of ``forward`` assigns or changes in place, at any depth, that
    the pass of ``backward`` walking it back does not give back: each value saved
    (``stack.append(b)`` before ``b = rows[j]``) and restored (``b = stack.pop()``) is
    back as a loop inside reads it; ``b = rows[j]`` not saved keeps the last pass's."""
    stores: Counter = Counter()
    in_place = set()  # (b[i] = v, b.append(v): changed, whatever is saved)
    for n in trees.walk(forward):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] += 1
        if isinstance(n, gast.stmt) and not isinstance(n, (gast.If, gast.For, gast.While)) \
                and _push(n) is None:
            named = {t.id for t in n.targets if isinstance(t, gast.Name)} \
                if isinstance(n, gast.Assign) else set()
            in_place |= written(n) - named
    saved = Counter(p[1] for p in map(_push, trees.walk(forward)) if p is not None)
    restored = Counter(p[1] for p in map(_pop, trees.walk(backward)) if p is not None)
    return in_place | {name for name, count in stores.items()
                       if not count == saved[name] == restored[name]}


class Recompute(trees.Transformer):
    """``numbers``: the names that hold numbers, never arrays: a value made from one a pass
    saves is recomputed only from numbers (arithmetic on arrays costs more than a save)."""
    changed = False  # (whether a visit moved a read)

    def __init__(self, numbers: frozenset | set = frozenset()):
        self.numbers = set(numbers)

    def visit_FunctionDef(self, node):
        self.node = node
        self._stores = None
        self.pair(node.body)
        return node

    @property
    def stores(self) -> Counter:
        """Names with one value for the whole call: read again later, they read the same
        (counted once, when a pair of loops asks)."""
        if self._stores is not None:
            return self._stores
        stores = Counter()
        for n in trees.walk(self.node):
            if _pop(n) is not None:
                continue  # restoring a saved value is not a new one
            for name in written(n) if isinstance(n, gast.stmt) and not isinstance(
                    n, (gast.If, gast.For, gast.While, gast.FunctionDef)) else ():
                stores[name] += 1
            if isinstance(n, gast.For):
                for t in trees.walk(n.target):
                    if isinstance(t, gast.Name):
                        stores[t.id] += 1
        self._stores = stores
        return stores

    def pair(self, stmts):
        for forward, backward in loop_pairs(stmts):
            self.recompute(forward, backward)
        for s in stmts:
            for field in ("body", "orelse"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and not isinstance(s, gast.FunctionDef):
                    self.pair(inner)

    def recompute(self, forward, backward, enclosing: frozenset = frozenset()):
        # (the loops in one pass of the forward loop, walked back in the reverse loop's
        # pass over the same values: ``i + 1`` of an inner loop, recomputed there too;
        # ``enclosing``: what the passes of the loops around it write, which the reverse
        # loops around it do not give back as the inner reverse loop reads them)
        for inner, back in loop_pairs(forward.body + backward.body):
            if inner in forward.body and back in backward.body:
                self.recompute(inner, back, enclosing | _unrestored(forward, backward))
        index = {t.id for t in trees.walk(forward.target) if isinstance(t, gast.Name)}
        body = forward.body
        for k in range(len(body) - 1):
            push = _push(body[k])
            read = body[k + 1]
            if push is None or not (isinstance(read, gast.Assign) and len(read.targets) == 1
                                    and isinstance(read.targets[0], gast.Name)
                                    and read.targets[0].id == push[1]):
                continue
            stack, name = push
            reads = {n.id for n in trees.walk(read.value) if isinstance(n, gast.Name)}
            in_loop = {n for s in body for n in (written(s) if isinstance(s, gast.stmt) and
                       not isinstance(s, (gast.If, gast.For, gast.While)) else ())} | {
                n.id for s in body for n in trees.walk(s)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            read_before = any(isinstance(n, gast.Name) and n.id == name and
                              isinstance(n.ctx, gast.Load)
                              for s in body[:k] for n in trees.walk(s))
            numbers = reads <= self.numbers | index and not any(
                isinstance(n, gast.BinOp) and isinstance(n.op, gast.MatMult)
                for n in trees.walk(read.value))
            taped = {r for r in reads - index if self._taped(r, k, forward, backward)} \
                if numbers else set()
            late = {r for r in reads - index - taped
                    if self._restored_after(r, k, forward, backward)} \
                if numbers and not taped else set()
            if read_before or name in reads or (reads - index - taped - late) & in_loop:
                continue  # each pass must set it first, from values the loop leaves alone
            if late:  # (from values the reverse pass restores: recomputed after them)
                if not (reads - index) & enclosing and \
                        self._after_restores(late, read, forward, backward, k):
                    return self.recompute(forward, backward, enclosing)
                continue
            if not self._invariant(reads - index - taped) or self.stores[name] > 2:
                continue  # (x = None before the loop and) x = xs[i] in it: nothing else
            if (reads - index) & enclosing:
                continue  # (b = rows[j] in the loop around: b of the last pass, walked back)
            if any(isinstance(n, gast.Call) for n in trees.walk(read.value)):
                continue  # a plain read (a subscript), cheap to do twice
            pops = [j for j, s in enumerate(backward.body) if _pop(s) == (stack, name)]
            if len(pops) != 1 or self._read_elsewhere(name, forward, backward):
                continue
            self.changed = True
            del backward.body[pops[0]]
            backward.body.insert(0, located(clone(read), read))
            del body[k]
            return self.recompute(forward, backward, enclosing)  # positions moved: again

    def _taped(self, name, k, forward, backward) -> bool:
        """Does ``name``, at the top of a pass of the reverse loop, hold what it held after
        the statement ``k`` of the same pass of the forward loop? So it does where each
        pass sets it once, before ``k``, saving the value it overwrites, which the reverse
        pass restores (once, and nothing else there sets it), and nothing else sets it
        (but ``name = None`` before the loop): later passes and what follows the loop
        restore it as they are walked back (``t_6 = d - 1.0``, recomputed from ``d``)."""
        return self._saved_once(name, forward, backward, lambda j: 0 < j < k)

    def _restored_after(self, name, k, forward, backward) -> bool:
        """Does the pass of the forward loop set ``name`` once, after the statement ``k``,
        saving the value it overwrites (``stack.append(x); x = ...``), which the reverse
        pass restores once, in its body (``x = stack.pop()``)? Then ``name``, just after
        that restore, holds what it held at ``k`` (``t_2 = a * x``, read before ``x``
        changes)."""
        return self._saved_once(name, forward, backward, lambda j: j > k + 1)

    def _saved_once(self, name, forward, backward, placed) -> bool:
        """Does the forward loop's pass set ``name`` once, by a top-level statement whose
        position ``placed`` accepts, just after saving the value it overwrites, which the
        reverse pass restores once and sets nowhere else?"""
        body = forward.body
        sets = [j for j, s in enumerate(body) if isinstance(s, gast.Assign) and
                len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and
                s.targets[0].id == name]
        if len(sets) != 1 or not placed(sets[0]) or self.stores[name] > 2:
            return False
        push = _push(body[sets[0] - 1])
        if push is None or push[1] != name:
            return False
        stored = sum(isinstance(n, gast.Name) and n.id == name and
                     isinstance(n.ctx, gast.Store) for n in trees.walk(forward))
        restores = [s for s in backward.body if _pop(s) == push]
        written_back = sum(isinstance(n, gast.Name) and n.id == name and
                           isinstance(n.ctx, gast.Store) for n in trees.walk(backward))
        return stored == 1 and len(restores) == 1 and written_back == 1

    def _after_restores(self, late, read, forward, backward, k) -> bool:
        """Recompute ``read`` (``t_2 = a * x``, the statement ``k + 1`` of the forward
        pass) just after the reverse pass restores the names of ``late``, where every read
        of ``t_2`` there follows them and precedes its own restore, which goes (with the
        save before ``read``). The values it reads: those restored, the loop's index and
        values set once for the whole call. True if so."""
        name = read.targets[0].id
        index = {t.id for t in trees.walk(forward.target) if isinstance(t, gast.Name)}
        others = {n.id for n in trees.walk(read.value) if isinstance(n, gast.Name)} - \
            index - set(late)
        if not self._invariant(others) or self.stores[name] > 2 or any(
                isinstance(n, gast.Call) for n in trees.walk(read.value)):
            return False  # (t_2 = None before the loop, t_2 = a * x in it: nothing else)
        stack = _push(forward.body[k])[0]
        body = backward.body
        after = max(j for j, s in enumerate(body) if _pop(s) is not None and
                    _pop(s)[1] in late)
        pops = [j for j, s in enumerate(body) if _pop(s) == (stack, name)]
        if len(pops) != 1 or pops[0] < after or self._read_elsewhere(name, forward, backward):
            return False
        if any(isinstance(n, gast.Name) and n.id == name and not after < j < pops[0]
               for j, s in enumerate(body) for n in trees.walk(s)
               if j != pops[0]):
            return False  # (read before the values come back, or after its own restore)
        self.changed = True
        del body[pops[0]]
        body.insert(after + 1, located(clone(read), read))
        del forward.body[k]
        return True

    def _invariant(self, names) -> bool:
        return all(self.stores[n] <= 1 for n in names)

    def _read_elsewhere(self, name, *loops) -> bool:
        inside = {id(n) for loop in loops for n in trees.walk(loop)}
        return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
                   and id(n) not in inside for n in trees.walk(self.node))
