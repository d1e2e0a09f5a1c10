"""Put back into its single use a value that is computed once and read once.

Normalization splits every expression into one operation per statement, which
the reverse sweep needs; values the reverse sweep does not read can go back into
the expression that uses them, as a person would write it. A definition moves
into its use only when both are in the same block, nothing in between changes
what it reads, and it has no side effects.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(y, n):
...     stack = []
...     for _ in range(n):
...         t_1 = y * 0.999
...         t_2 = math.sin(y)
...         t_3 = t_2 * 0.001
...         stack.append(y)
...         y = t_1 + t_3
...     s_1 = y
...     s_2 = 0.5 * s_1
...     y = stack.pop()
...     return s_2 * y''').body[0]
>>> movable = {"t_1", "t_2", "t_3", "s_1"}
>>> print(unparse(ForwardSubstitution(lambda f: unparse(f) == "math.sin", movable).visit(fn)))
def g(y, n):
    stack = []
    for _ in range(n):
        stack.append(y)
        y = y * 0.999 + math.sin(y) * 0.001
    s_2 = 0.5 * y
    y = stack.pop()
    return s_2 * y
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections import Counter
from typing import Callable

import gast

from .. import registry, trees
from ..codegen import comment_text
from ..trees import clone
from .aliasing import Aliasing
from .first_assignment import written
from .resolve import static_value


class ForwardSubstitution(trees.Transformer):
    """``movable``: the names that may disappear (the compiler's own temporaries; the
    user's variables and their sensitivities keep their names). ``idempotent``: names of
    helpers ``f`` with ``f(f(e, x), x) == f(e, x)``, also through a negation
    (``unbroadcast``): where the value moved in is ``f(e, x)`` or ``-f(e, x)`` and its use
    is ``f(t, x)``, the use's own call goes.

    >>> from s2sad.codegen import unparse
    >>> fn = gast.parse('''def g(x, y):
    ...     s_1 = -unbroadcast(y, x)
    ...     return unbroadcast(s_1, x)[:, 0]''').body[0]
    >>> print(unparse(ForwardSubstitution(lambda f: True, {"s_1"}, {"unbroadcast"}).visit(fn)))
    def g(x, y):
        return -unbroadcast(y, x)[:, 0]
    """

    def __init__(self, is_pure: Callable, movable: set[str] | None = None,
                 idempotent: frozenset | set = frozenset(), view_args: Callable | None = None,
                 raises: Callable | None = None):
        self.is_pure = is_pure
        # (``raises(value)``: may it raise, Python's numbers divided by 0? It moves past no
        # line that changes something or may raise: the reverse sweep's would run first)
        self.raises = raises
        self.movable = movable
        self.idempotent = idempotent
        self.view_args = view_args  # (the arguments a call's result may be, or be a view of)
        self.changed = False  # (whether a visit moved a definition)

    def visit_FunctionDef(self, node):
        loads, stores = Counter(), Counter()
        nodes = trees.start_walk(node)  # (one walk for the facts below: none changes the tree)
        for n in nodes:
            if isinstance(n, gast.Name):
                if isinstance(n.ctx, gast.Load):
                    loads[n.id] += 1
                elif isinstance(n.ctx, gast.Store):
                    stores[n.id] += 1
            elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                stores[n.target.id] += 1
        self._facts: dict = {}  # id of a statement -> (it, names in it, names it writes)
        self.memory = _memory(node, self.view_args, nodes)
        self.lists = _lists(node, nodes) if self.memory else set()
        params = {a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
        self.single = {name for name, count in stores.items()
                       if count == 1 and loads[name] == 1 and name not in params and
                       (self.movable is None or name in self.movable)}
        # names assigned more than once (a loop's forward sweep and its reverse sweep both
        # read x[i] into t_2), each of whose reads follows an assignment in its own block
        self.once = _read_once(node.body, {
            name for name in stores if name not in params and name not in self.single and
            (self.movable is None or name in self.movable)})
        if self.single or self.once:  # (else nothing can move)
            self.block(node.body)
        return node

    def block(self, stmts: list) -> None:
        """Move what can move in ``stmts`` (and the blocks nested in them), front to back.

        A definition at position ``p`` moves into the first later statement ``q`` that
        names it, when no statement in between is control flow or writes what it reads.
        Where each name appears, where it is written and where control flows are indexed
        once for the block, so that finding ``q`` and checking what lies in between take
        a few lookups, not a walk to ``q`` (a value read only by the reverse sweep is used
        hundreds of statements below its definition)."""
        appears: dict[str, list] = {}  # name -> positions of the statements naming it
        writes: dict[str, list] = {}  # name -> positions of the statements writing it
        changes: dict[str, list] = {}  # name -> positions of those changing it in place
        barriers = []  # positions of if, for, while, break: the end of a straight line
        for q, stmt in enumerate(stmts):
            if comment_text(stmt) is not None:
                continue
            if isinstance(stmt, (gast.If, gast.For, gast.While, gast.Break)):
                barriers.append(q)
            names, written_names = self._names(stmt)
            for name in names:
                appears.setdefault(name, []).append(q)
            for name in written_names:
                writes.setdefault(name, []).append(q)
            for name in _changed(stmt, written_names, self.lists) if self.memory else ():
                changes.setdefault(name, []).append(q)
        gone = set()  # positions of the definitions moved
        for p, stmt in enumerate(stmts):
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and not isinstance(stmt, gast.FunctionDef):
                    self.block(inner)
            if self._movable(stmt) and self._substitute(stmts, p, appears, writes, changes,
                                                        barriers):
                gone.add(p)
        if gone:
            self.changed = True
            stmts[:] = [stmt for p, stmt in enumerate(stmts) if p not in gone]

    def _movable(self, stmt) -> bool:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and
                (stmt.targets[0].id in self.single or
                 (id(stmt), stmt.targets[0].id) in self.once)):
            return False
        return all(self.is_pure(call.func) for call in self._facts_of(stmt)[3])

    def _substitute(self, stmts, p, appears, writes, changes, barriers) -> bool:
        name = stmts[p].targets[0].id
        value = stmts[p].value
        named = appears[name]
        k = bisect_right(named, p)
        if k == len(named):
            return False  # not used in this block
        q = named[k]  # (positions are the block's at its start: a statement that took in a
        # moved definition keeps its own, and is indexed there under the names it took in)
        if bisect_right(barriers, p) != bisect_right(barriers, q):
            return False  # the use must be in the same straight-line block, not a block's
                          # header or a block nested below
        facts = self._facts_of(stmts[p])
        reads = facts[1] - {name}  # (assigned once: `name` is not read in its own value)
        for read in reads:
            written_at = writes.get(read, ())
            if bisect_right(written_at, p) != bisect_left(written_at, q):
                return False  # what it reads changes before the use
            for other in self.memory.get(read, ()):  # (a store into a view changes its base)
                changed_at = changes.get(other, ())
                if bisect_right(changed_at, p) != bisect_left(changed_at, q):
                    return False
        later = stmts[q]
        if q > p + 1 and self.raises is not None and self.raises(value) and any(
                self._barrier(stmts[k]) for k in range(p + 1, q)):
            return False  # (it would raise after a line that changes or raises)
        if self._facts_of(later)[4] > MAX_OPERATIONS - facts[4]:
            return False  # keep lines short enough to read
        origin = stmts[p].__dict__.get("origin") or getattr(stmts[p], "lineno", None)
        if origin is not None and "moved_from" not in value.__dict__ and origin != (
                later.__dict__.get("origin") or getattr(later, "lineno", None)):
            value.moved_from = origin  # (its user's line, for an error as it runs: located)
        if not _Replace(name, value, self.idempotent).visit_statement(later):
            return False
        self._facts.pop(id(later), None)  # (it reads other names now)
        for read in reads:  # ... at q, where the definition's names move to
            insort(appears.setdefault(read, []), q)
        return True

    def _barrier(self, stmt) -> bool:
        """May ``stmt`` change something (an item, a call's argument) or raise (a call of
        a function that is not pure, a division of Python's numbers)? A definition that
        may raise does not move past it."""
        if not (isinstance(stmt, gast.Assign) and
                all(isinstance(t, gast.Name) for t in stmt.targets)):
            return comment_text(stmt) is None
        return any(not self.is_pure(call.func) for call in self._facts_of(stmt)[3]) or \
            self.raises(stmt.value)

    def _names(self, stmt) -> tuple[set, set]:
        """The names in a simple statement, and those it writes (computed once)."""
        facts = self._facts_of(stmt)
        return facts[1], facts[2]

    def _facts_of(self, stmt) -> tuple:
        """``(stmt, names in it, names it writes, calls in it, its operations)``, from one
        walk of a statement, kept until a definition moves into it."""
        facts = self._facts.get(id(stmt))
        if facts is None or facts[0] is not stmt:
            names, calls, operations = set(), [], 0
            for n in trees.walk(stmt):
                cls = type(n)
                if cls is gast.Name:
                    names.add(n.id)
                elif cls is gast.Call:
                    calls.append(n)
                    operations += 1
                elif cls in _OPERATIONS:
                    operations += 1
            facts = self._facts[id(stmt)] = (stmt, names, written(stmt), calls, operations)
        return facts


def _changed(stmt, written_names: set, lists: set) -> set:
    """The names whose memory ``stmt`` changes in place (``y[:3] = v``, ``y += v``,
    ``np.add.at(y, i, v)``): of those it writes, not a name it binds again (``y = v``),
    nor a list of ``lists`` whose slots it sets (``y_saved[i] = y``, ``stack.append(y)``:
    the arrays the list holds are unchanged)."""
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and \
            isinstance(stmt.value.func, gast.Attribute) and \
            isinstance(stmt.value.func.value, gast.Name) and \
            stmt.value.func.value.id in lists and stmt.value.func.attr in ("append", "pop"):
        return set()
    if not isinstance(stmt, gast.Assign):
        return written_names
    bound = {n.id for target in stmt.targets for n in trees.walk(target)
             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    return written_names - bound | {
        n.id for target in stmt.targets for part in trees.walk(target)
        if isinstance(part, (gast.Subscript, gast.Attribute)) and not (
            isinstance(part, gast.Subscript) and isinstance(part.value, gast.Name) and
            part.value.id in lists)
        for n in trees.walk(part.value) if isinstance(n, gast.Name)}


def _lists(node, nodes=None) -> set[str]:
    """The names every assignment of which is a new list (``[]``, ``[None] * n``);
    ``nodes``: ``trees.walk(node)``, where the caller has it."""
    made, other = set(), set()
    for stmt in trees.walk(node) if nodes is None else nodes:
        if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.For)):
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            value = stmt.value if isinstance(stmt, gast.Assign) else None
            listed = isinstance(value, gast.List) or isinstance(value, gast.BinOp) and \
                isinstance(value.op, gast.Mult) and isinstance(value.left, gast.List)
            for target in targets:
                if isinstance(target, gast.Name):
                    (made if listed else other).add(target.id)
                else:
                    other |= {n.id for n in trees.walk(target) if isinstance(n, gast.Name)
                              and isinstance(n.ctx, gast.Store)}
    return made - other


def view_arguments(source, imports):
    """``view_args(call)``: the arguments of a call in the generated code whose memory its
    result may share (``np.reshape(y, s)``: ``[y]``; ``y.T.copy()``: none), by the rule
    entry's facts; all of them for a function or method with no facts. A method of a
    local value (``y.reshape(3)``) has its receiver at position 0."""
    helpers = imports.helper_functions()

    def view_args(call) -> list:
        func, args = call.func, list(call.args)
        try:
            found = registry.facts(helpers[func.id] if isinstance(func, gast.Name) and
                                   func.id in helpers else
                                   static_value(func, source, source.locals))
        except KeyError:  # (a method of a local value: what that method does on any)
            found = Aliasing._method_facts(func.attr) if isinstance(func, gast.Attribute) \
                else None
            args = [func.value] + args if isinstance(func, gast.Attribute) else args
        keywords = [k.value for k in call.keywords]
        if found is None or "*" in (found.returns_view_of, found.uncopied_view_of):
            return args + keywords
        positions = set(found.returns_view_of) | set(found.uncopied_view_of)
        return [a for i, a in enumerate(args) if i in positions]
    return view_args


def _memory(node, view_args, nodes=None) -> dict[str, set]:
    """The names that may share memory with each name: ``t_3 = y[:3]`` or
    ``t = y.reshape(2, 3)`` makes ``t_3`` and ``y`` one memory, so a store into ``y``
    changes what ``t_3`` reads (``np.copy(t_3)`` does not move past it). Arithmetic makes
    a new memory; a call shares the memory of the arguments ``view_args(call)`` gives
    (where not given: all of them)."""
    links: dict[str, set] = {}
    def link(a: str, b: str) -> None:
        links.setdefault(a, {a}).add(b)
        links.setdefault(b, {b}).add(a)
    for stmt in trees.walk(node) if nodes is None else nodes:
        if isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name):
            target, value = stmt.target.id, stmt.iter  # (a row of a matrix is a view)
        elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name):
            target, value = stmt.targets[0].id, stmt.value
        else:
            continue
        names = _bases(value, view_args)
        for name in names:
            link(target, name)
    groups: dict[str, set] = {}
    for start in links:  # (each connected part of the links, one set shared by its names)
        if start in groups:
            continue
        group, todo = set(), [start]
        while todo:
            name = todo.pop()
            if name not in group:
                group.add(name)
                todo.extend(links[name] - group)
        for name in group:
            groups[name] = group
    return groups


def _bases(value, view_args) -> set[str]:
    """The names whose memory ``value`` may be: ``{'y'}`` for ``y[:3]``, ``y.T`` or
    ``np.reshape(y, s)``; none for ``y * 2`` or ``np.sin(y)`` (a new array)."""
    while isinstance(value, (gast.Subscript, gast.Attribute, gast.Starred)):
        value = value.value
    if isinstance(value, gast.Name):
        return {value.id}
    if isinstance(value, (gast.Tuple, gast.List, gast.Set)):
        return set().union(*(_bases(e, view_args) for e in value.elts))
    if isinstance(value, gast.Dict):  # ({"k": a}: holds a)
        return set().union(*(_bases(e, view_args) for e in value.values if e is not None))
    if isinstance(value, gast.IfExp):
        return _bases(value.body, view_args) | _bases(value.orelse, view_args)
    if isinstance(value, gast.Call):
        parts = value.args + [k.value for k in value.keywords] + (
            [value.func.value] if isinstance(value.func, gast.Attribute) else []) \
            if view_args is None else view_args(value)
        return set().union(*(_bases(part, view_args) for part in parts))
    return set()


def _read_once(body: list, candidates: set) -> set[tuple]:
    """``(id, t)`` of the assignments ``t = e`` to one of ``candidates`` whose value is read
    exactly once, where every read of ``t`` follows an assignment to it in the same block
    (no block nested in between assigns it): values that never outlive their block."""
    if not candidates:
        return set()
    local = set(candidates)
    reads: dict[tuple, int] = {}  # (id of an assignment, name) -> reads of its value

    def names(node) -> tuple[list, set]:
        """The names ``node`` reads (with repeats) and those it assigns, in one walk."""
        loads, stores = [], set()
        for n in trees.walk(node):
            if isinstance(n, gast.Name):
                if isinstance(n.ctx, gast.Load):
                    loads.append(n.id)
                else:
                    stores.add(n.id)
            elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                loads.append(n.target.id)
                stores.add(n.target.id)
        return loads, stores

    def read(loaded, current) -> None:
        for name in loaded:
            if name in current:
                reads[current[name], name] += 1
            else:
                local.discard(name)

    def block(stmts) -> set:
        """Follow ``stmts``; the names assigned anywhere in them."""
        current: dict[str, int] = {}  # name -> id of the assignment (here) it holds
        assigned: set = set()
        for stmt in stmts:
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                header = stmt.test if isinstance(stmt, (gast.If, gast.While)) else stmt.iter
                read(names(header)[0], current)
                inner = block(stmt.body) | block(stmt.orelse)
                if isinstance(stmt, gast.For):
                    inner |= names(stmt.target)[1]
                for name in inner:
                    current.pop(name, None)
                assigned |= inner
            elif isinstance(stmt, (gast.FunctionDef, gast.ClassDef, gast.Try, gast.With)):
                loaded, stored = names(stmt)
                local.difference_update(loaded, stored)
                assigned |= stored
            else:
                loaded, stored = names(stmt)
                read(loaded, current)
                for name in stored:
                    current[name] = id(stmt)
                    reads[id(stmt), name] = 0
                assigned |= stored
        return assigned
    block(body)
    return {key for key, count in reads.items() if count == 1 and key[1] in local}


# at most this many operations (operators and calls) in one substituted expression
MAX_OPERATIONS = 4


_OPERATIONS = (gast.BinOp, gast.UnaryOp, gast.Compare)  # (and calls): what a line counts


class _Replace(trees.Transformer):
    def __init__(self, name, value, idempotent=frozenset()):
        self.name = name
        self.value = value
        self.done = False
        applied = value.operand if type(value) is gast.UnaryOp and \
            type(value.op) is gast.USub else value
        # `f(e, x)` (or its negation) moving into `f(name, x)`: the outer call goes
        self.call = (applied.func.id, applied.args[1].id) if type(applied) is gast.Call and \
            type(applied.func) is gast.Name and applied.func.id in idempotent and \
            len(applied.args) == 2 and type(applied.args[1]) is gast.Name and \
            not applied.keywords else None

    def visit_Subscript(self, node):
        before = self.done
        node = self.generic_visit(node)
        if self.call is not None and not before and self.done and \
                type(node.value) is gast.UnaryOp and type(node.value.op) is gast.USub and \
                isinstance(node.ctx, gast.Load):  # (-f(e, x))[i]: -f(e, x)[i], a smaller
            return gast.UnaryOp(gast.USub(), gast.Subscript(  # negation, as a person writes it
                node.value.operand, node.slice, node.ctx))
        return node

    def visit_Call(self, node):
        if self.call is not None and type(node.func) is gast.Name and len(node.args) == 2 and \
                not node.keywords and type(node.args[0]) is gast.Name and \
                node.args[0].id == self.name and type(node.args[1]) is gast.Name and \
                (node.func.id, node.args[1].id) == self.call:
            self.done = True
            return clone(self.value)
        return self.generic_visit(node)

    def visit_statement(self, stmt) -> bool:
        for field, old in gast.iter_fields(stmt):
            if field in ("targets", "target"):
                continue  # a use on the left (s[t] = v) is not replaced
            if isinstance(old, gast.AST):
                setattr(stmt, field, self.visit(old))
            elif isinstance(old, list):
                setattr(stmt, field, [self.visit(x) if isinstance(x, gast.AST) else x
                                      for x in old])
        for target in getattr(stmt, "targets", []) + [getattr(stmt, "target", None)]:
            if target is None or isinstance(target, gast.Name):
                continue
            base = target.value if isinstance(target, (gast.Subscript, gast.Attribute)) \
                else target
            if any(isinstance(n, gast.Name) and n.id == self.name for n in trees.walk(base)):
                return False  # the value updated in place (s_x[0] += g) keeps its name
            if isinstance(target, gast.Subscript):  # e.g. s_x[t_1] += g
                target.slice = self.visit(target.slice)
        return self.done

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, gast.Load):
            self.done = True
            return clone(self.value)
        return node

