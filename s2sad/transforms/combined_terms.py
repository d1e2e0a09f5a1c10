"""One sensitivity's terms in one expression, as a person writes them.

The reverse sweep adds each term of a sensitivity in a statement of its own: the
rule of ``x * 1.002`` and that of ``math.sin(x) * 0.01`` each give ``s_x`` a term.
Where the first term is read only by the statement that adds the second, the two
become one statement, and a copy of the old value read by that statement reads the
original (nothing changes it before then). The values computed are the same, in the
same order: no floating-point sum is reordered, so the result is the same to the bit.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(x, n):
...     s_x = 1.0
...     for _ in range(n):
...         s_1 = s_x
...         x = stack.pop()
...         s_x = 0.01 * s_x * math.cos(x)
...         s_x = s_x + 1.002 * s_1
...     return s_x''').body[0]
>>> terms = CombinedTerms(lambda f: unparse(f) == "math.cos", {"s_1"}, {"s_x"})
>>> print(unparse(terms.visit(fn)))
def g(x, n):
    s_x = 1.0
    for _ in range(n):
        x = stack.pop()
        s_x = 0.01 * s_x * math.cos(x) + 1.002 * s_x
    return s_x

Only a sensitivity's own statements combine (``s_x = e`` then ``s_x = f(s_x)``, the
first read once by the second, nothing in between naming ``s_x`` or changing what
``e`` reads), both without side effects, and while the line stays short. What ``e``
reads includes the arrays that share its names' memory: after ``y = out``, the reverse
sweep's restore ``out[:] = stack.pop()`` changes ``y``, so a term reading ``y`` stays
before it.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable

import gast

from .. import trees
from ..codegen import unparse
from ..trees import clone
from .first_assignment import written
from .forward_substitution import _memory

# at most this many operations (operators and calls) in a combined expression, and
# characters in its text
MAX_OPERATIONS = 6
MAX_LENGTH = 64

_OPERATIONS = (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Call)
# (parts evaluated never, or more than once: not combined into)
_CONDITIONAL = (gast.IfExp, gast.BoolOp, gast.Lambda, gast.ListComp, gast.SetComp,
                gast.DictComp, gast.GeneratorExp, gast.NamedExpr, gast.Yield, gast.Await)


class CombinedTerms(trees.Transformer):
    """``is_pure(func)``: has a call of ``func`` no side effects? ``temporaries``: the
    compiler's own names (a copy ``s_1 = s_x`` goes only where ``s_1`` is one of them);
    ``sensitivities``: the names whose statements may combine. ``changed``: whether a
    visit combined any."""

    def __init__(self, is_pure: Callable, temporaries: set, sensitivities: set,
                 view_args: Callable | None = None):
        self.is_pure = is_pure
        self.view_args = view_args  # (which arguments a call's result may be a view of)
        self.temporaries = set(temporaries)
        self.sensitivities = set(sensitivities)
        self.changed = False
        self.named: dict[int, set] = {}  # id of a statement -> the names in it

    def _sharing(self, name: str) -> tuple:
        """The names that may share ``name``'s memory (``y = out``): a store into one of
        them (``out[:] = stack.pop()``, the reverse sweep's restore) changes ``name``."""
        return tuple(self.memory.get(name, (name,)))

    def visit_FunctionDef(self, node):
        loads, stores = Counter(), Counter()
        nodes = trees.start_walk(node)  # (the facts below: read before any change)
        for n in nodes:
            if isinstance(n, gast.Name):
                (loads if isinstance(n.ctx, gast.Load) else stores)[n.id] += 1
            elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                stores[n.target.id] += 1
                loads[n.target.id] += 1
        params = {a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
        # copies read once, assigned once: ``s_1 = s_x`` may go into its one read
        self.copies = {name for name in self.temporaries
                       if stores[name] == 1 and loads[name] == 1 and name not in params}
        # the names that may share memory (y = out: a store into out changes what y reads)
        self.memory = _memory(node, self.view_args, nodes)
        for block in trees.blocks(node.body):
            self._block(block)
        return node

    def _block(self, stmts: list) -> None:
        line = _Line(stmts, self._names)
        q = 0 if stmts else None
        while q is not None:
            p = self._combine(line, q)
            if p is not None:
                self.changed = True
                # (a statement looks only at those before it: those before the one taken
                # away are as they were when each was looked at, so look again from there)
                q = line.after(p)
                continue
            q = line.after(q)
        stmts[:] = line.statements()

    def _combine(self, line, q) -> int | None:
        """Combine statement ``q``, ``v = f(v)``, with the statement before it that gives
        ``v`` its value, or read through a copy it reads; the key of the statement taken
        away, or None if nothing changed."""
        later = line.stmts[q]
        name = _assigned_name(later)
        if name is None or name not in self.sensitivities:
            return None
        if not self._pure(later.value):
            return None
        copied = self._copy_into(line, q)
        if copied is not None:
            return copied
        p = line.previous(q, name, _BARRIERS)
        if p is None:
            return None
        earlier = line.stmts[p]
        if _assigned_name(earlier) != name or not self._pure(earlier.value) or \
                _loads(later.value, name) != 1:
            return None
        reads = {n.id for n in trees.walk(earlier.value) if isinstance(n, gast.Name)}
        if any(line.written_between(p, q, read) or any(
                line.written_between(p, q, shared, in_place=self.sensitivities)
                for shared in self._sharing(read) if shared != read) for read in reads):
            return None  # what the first term reads changes before the second is added
        if _operations(earlier.value) + _operations(later.value) > MAX_OPERATIONS:
            return None
        combined = _Replace(name, earlier.value).visit(clone(later.value))
        if len(unparse(combined)) > MAX_LENGTH:
            return None  # (keep lines short enough to read)
        later.value = combined
        self._changed(later)
        line.renamed(q)
        self._changed(line.remove(p))
        return p

    def _copy_into(self, line, q) -> int | None:
        """``c = v`` before statement ``q`` (``v = f(v, c)``), ``c`` read only there and
        ``v`` unchanged in between: ``c`` reads ``v``, the copy goes; the key of the
        statement it was, or None."""
        later = line.stmts[q]
        name = later.targets[0].id
        for n in trees.walk(later.value):
            if not (isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and
                    n.id in self.copies):
                continue
            copy = n.id
            p = line.previous(q, copy, _COPY_BARRIERS)
            if p is None:
                continue
            stmt = line.stmts[p]
            if _assigned_name(stmt) == copy and isinstance(stmt.value, gast.Name):
                source = stmt.value.id
                if source != name or line.written_between(p, q, source) or any(
                        line.written_between(p, q, shared, in_place=self.sensitivities)
                        for shared in self._sharing(source) if shared != source):
                    continue
                later.value = _Replace(copy, stmt.value).visit(later.value)
                self._changed(later)
                line.renamed(q)
                self._changed(line.remove(p))
                return p
        return None

    def _names(self, stmt) -> set:
        """The names ``stmt`` reads or writes, kept until it changes (a block is looked at
        again after each combination: walking each statement again made the pass cubic)."""
        found = self.named.get(id(stmt))
        if found is None:
            found = self.named[id(stmt)] = {n.id for n in trees.walk(stmt)
                                            if isinstance(n, gast.Name)}
        return found

    def _changed(self, stmt) -> None:
        self.named.pop(id(stmt), None)

    def _pure(self, value) -> bool:
        """No side effects, and each part evaluated once, unconditionally: a value moved
        in is computed exactly as often as before."""
        nodes = trees.walk(value)
        return all(self.is_pure(n.func) for n in nodes if isinstance(n, gast.Call)) \
            and not any(isinstance(n, _CONDITIONAL) for n in nodes)


def _assigned_name(stmt):
    """``v`` of ``v = e``, else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name):
        return stmt.targets[0].id
    return None


def _loads(node, name) -> int:
    return sum(1 for n in trees.walk(node) if isinstance(n, gast.Name) and n.id == name)


def _operations(node) -> int:
    return sum(1 for n in trees.walk(node) if isinstance(n, _OPERATIONS))


class _Replace(trees.Transformer):
    def __init__(self, name, value):
        self.name = name
        self.value = value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, gast.Load):
            return clone(self.value)
        return node


# statements that end the straight line a statement looks back along
_COPY_BARRIERS = (gast.If, gast.For, gast.While, gast.Break, gast.Continue, gast.Return,
                  gast.FunctionDef)
_BARRIERS = _COPY_BARRIERS + (gast.Try, gast.With)


class _Line:
    """A block's statements with an index of where each name is named and written, so
    that looking back from a statement costs no walk along the block (a walk per
    statement made long straight-line code quadratic). A statement keeps its key, its
    position in the block as it came, while those before it are taken away.

    >>> block = gast.parse("a = 1\\nb = a\\nif b:\\n    pass\\nc = a").body
    >>> line = _Line(block, lambda s: {n.id for n in trees.walk(s)
    ...                                if isinstance(n, gast.Name)})
    >>> line.previous(1, "a", _BARRIERS), line.previous(3, "a", _BARRIERS)
    (0, None)
    >>> line.written_between(0, 3, "b"), line.written_between(1, 3, "b")
    (True, False)
    """

    def __init__(self, stmts: list, names: Callable):
        self.stmts = list(stmts)
        self.names = names
        count = len(stmts)
        self.alive = [True] * count
        self.next = [*range(1, count), None] if count else []
        self.before = [None] + list(range(count - 1))
        self.naming: dict[str, list] = {}   # name -> keys of the statements naming it
        self.writing: dict[str, list] = {}  # name -> keys of the statements writing it
        self.indexed: list[set] = []        # key -> the names it is listed under
        self.barriers = {_BARRIERS: [], _COPY_BARRIERS: []}
        for key, stmt in enumerate(stmts):
            named = set(names(stmt))
            self.indexed.append(named)
            for name in named:
                self.naming.setdefault(name, []).append(key)
            for name in written(stmt):
                self.writing.setdefault(name, []).append(key)
            for kinds, keys in self.barriers.items():
                if isinstance(stmt, kinds):
                    keys.append(key)

    def previous(self, q: int, name: str, barriers: tuple) -> int | None:
        """The key of the last statement before ``q`` that names ``name``, with no
        statement of the kinds ``barriers`` from it to ``q``; None if there is none."""
        keys = self.naming.get(name, [])
        i = bisect.bisect_left(keys, q) - 1
        while i >= 0:
            key = keys[i]
            if self.alive[key] and name in self.names(self.stmts[key]):
                break
            del keys[i]  # (taken away, or no longer naming it)
            self.indexed[key].discard(name)
            i -= 1
        else:
            return None
        stops = self.barriers[barriers]
        j = bisect.bisect_left(stops, q) - 1
        if j >= 0 and stops[j] >= key:
            return None
        return key

    def written_between(self, p: int, q: int, name: str, in_place=None) -> bool:
        """Does a statement after ``p`` and before ``q`` write ``name``? Given
        ``in_place`` (the sensitivities, whose ``s += v`` the reverse sweep writes on a
        value of their own), only a write into its memory counts (``name[i] = v``), not
        one that gives the name a new value."""
        keys = self.writing.get(name, [])
        i = bisect.bisect_right(keys, p)
        while i < len(keys) and keys[i] < q:
            if not self.alive[keys[i]]:
                del keys[i]
                continue
            stmt = self.stmts[keys[i]]
            if in_place is None or not (isinstance(stmt, gast.Assign) and all(
                    isinstance(t, gast.Name) for t in stmt.targets) or
                    isinstance(stmt, gast.AugAssign) and
                    isinstance(stmt.target, gast.Name) and stmt.target.id in in_place):
                return True
            i += 1
        return False

    def renamed(self, key: int) -> None:
        """Statement ``key`` changed: list it under the names it has now."""
        for name in self.names(self.stmts[key]) - self.indexed[key]:
            bisect.insort(self.naming.setdefault(name, []), key)
            self.indexed[key].add(name)

    def remove(self, key: int):
        """Take statement ``key`` away; the statement."""
        self.alive[key] = False
        before, after = self.before[key], self.next[key]
        if before is not None:
            self.next[before] = after
        if after is not None:
            self.before[after] = before
        return self.stmts[key]

    def after(self, key: int) -> int | None:
        """The key of the statement after ``key`` (taken away or not), None at the end."""
        return self.next[key]

    def statements(self) -> list:
        return [stmt for stmt, alive in zip(self.stmts, self.alive, strict=True) if alive]
