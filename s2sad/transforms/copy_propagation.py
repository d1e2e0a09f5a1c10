"""Read the original instead of a copy: after ``s_5 = s_y``, later reads of ``s_5`` read ``s_y``.

Rules copy sensitivities around (``s_5 = s_y``, then ``s_4 = s_5``); a person
would write the original each time. Only the compiler's own temporaries are
replaced (the user's variables and their sensitivities keep their names), and
only while neither name has been given a new value; a copy of a number constant
is replaced by the number. A statement that becomes ``x = x`` is dropped; copies
no longer read are left to dead-code elimination.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def g(a, y, n):
...     s_a = 0.0
...     s_y = 2.0 * y
...     for _ in range(n):
...         s_5 = s_y
...         y = stack.pop()
...         s_y = s_5
...         s_4 = s_5
...         s_a += y * s_4
...         s_y = s_y + 0.5 * a * s_4
...     return s_a, s_y''').body[0]
>>> print(unparse(CopyPropagation({"s_4", "s_5"}).visit(fn)))
def g(a, y, n):
    s_a = 0.0
    s_y = 2.0 * y
    for _ in range(n):
        s_5 = s_y
        y = stack.pop()
        s_4 = s_y
        s_a += y * s_y
        s_y = s_y + 0.5 * a * s_y
    return (s_a, s_y)

An update of the original sinks below the reads of its copy, where it may:

>>> fn = gast.parse('''def g(x, t, n):
...     for i in range(n):
...         s_3 = s_p
...         s_p = t * s_3
...         s_x[i] += x * s_3
...     return s_x''').body[0]
>>> print(unparse(CopyPropagation({"s_3"}).visit(fn)))
def g(x, t, n):
    for i in range(n):
        s_3 = s_p
        s_x[i] += x * s_p
        s_p = t * s_p
    return s_x
"""

from __future__ import annotations

import gast

from .. import trees
from ..trees import clone, located
from .first_assignment import written


def _stored(node) -> set[str]:
    """Names a statement (with what it contains) gives a new value."""
    names = set()
    for n in trees.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            names.add(n.id)
    return names


class _Copies:
    """Which names hold copies: ``values`` (name -> the name or number it copies) and its
    reverse, ``sources`` (name -> the names holding a copy of it), so that forgetting
    what a statement changes costs what it changes, not what is known."""

    def __init__(self, values=None, sources=None):
        self.values = dict(values or {})
        self.sources = {name: set(copies) for name, copies in (sources or {}).items()}

    def copy(self) -> "_Copies":
        return _Copies(self.values, self.sources)

    def add(self, name: str, value) -> None:
        self.values[name] = value
        if isinstance(value, gast.Name):
            self.sources.setdefault(value.id, set()).add(name)

    def forget(self, changed) -> None:
        """Forget (in place) the copies held by, or of, the names in ``changed``."""
        for name in changed:
            value = self.values.pop(name, None)
            if isinstance(value, gast.Name):
                self.sources.get(value.id, set()).discard(name)
            for alias in self.sources.pop(name, ()):
                self.values.pop(alias, None)

    def without(self, changed) -> "_Copies":
        kept = self.copy()
        kept.forget(changed)
        return kept


class CopyPropagation(trees.Transformer):
    """``movable``: the names whose reads may be replaced (the compiler's temporaries)."""

    def __init__(self, movable: set[str]):
        self.movable = movable
        self.changed = False  # (whether a visit replaced, moved or dropped anything)

    def visit_FunctionDef(self, node):
        if _anything_to_do(node.body, self.movable):
            node.body = self.block(node.body, _Copies())
        return node

    def _block(self, stmts: list, copies: _Copies) -> list:
        """``block``, never empty (``pass``)."""
        kept = self.block(stmts, copies)
        if kept:
            return kept
        self.changed = True
        return [gast.Pass()]

    def block(self, stmts: list, copies: _Copies) -> list:
        """``copies``: the names holding a copy of a name or a number (this block's own:
        updated in place)."""
        kept = []
        stmts = list(stmts)
        for i in range(len(stmts)):
            self._sink(stmts, i, copies)
            stmt = stmts[i]
            if isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
                kept.append(stmt)
                copies = _Copies()
                continue
            if isinstance(stmt, gast.If):
                stmt.test = self.replace(stmt.test, copies)
                stmt.body = self._block(stmt.body, copies.copy())
                stmt.orelse = self.block(stmt.orelse, copies.copy())
            elif isinstance(stmt, (gast.For, gast.While)):
                changed = _stored(stmt)  # what one pass changes is changed at the next one
                inner = copies.without(changed)
                if isinstance(stmt, gast.For):
                    stmt.iter = self.replace(stmt.iter, copies)  # read once, on the way in
                else:
                    stmt.test = self.replace(stmt.test, inner)  # read before every pass
                stmt.body = self._block(stmt.body, inner.copy())
                stmt.orelse = self.block(stmt.orelse, inner)
            else:
                self._replace_reads(stmt, copies)
                if _self_copy(stmt):
                    self.changed = True
                    continue  # x = x
            copies.forget(_stored(stmt))
            if _copy_to(stmt, self.movable):
                copies.add(stmt.targets[0].id, stmt.value)
            kept.append(stmt)
        return kept

    def _sink(self, stmts: list, i: int, copies: _Copies) -> None:
        """``b = e`` while ``a`` holds a copy of ``b``: move it below the statements right
        after it that read ``a`` (and may run first), so that they read ``b`` instead and
        the copy goes. ``s_3 = s_p; s_p = t * s_3; s_x[i] += p * s_3`` becomes
        ``s_x[i] += p * s_p; s_p = t * s_p``."""
        stmt = stmts[i]
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name)) or \
                any(isinstance(n, gast.Call) for n in trees.walk(stmt.value)):
            return
        b = stmt.targets[0].id
        aliases = copies.sources.get(b)
        if not aliases:
            return
        reads = _loads(stmt.value)
        j, useful = i, False
        while j + 1 < len(stmts):  # as far down as it may go: it reads what it read
            after = stmts[j + 1]
            if not isinstance(after, (gast.Assign, gast.AugAssign, gast.Expr)) or \
                    isinstance(after, gast.Expr) and not _known_effect(after):
                break
            names = _loads(after) | written(after)
            if b in names or written(after) & reads:
                break
            useful = useful or bool(names & aliases)
            j += 1
        if useful:
            self.changed = True
            stmts.insert(j, stmts.pop(i))

    def _replace_reads(self, stmt, copies: _Copies) -> None:
        if not copies.values:
            return
        for field, old in gast.iter_fields(stmt):
            if field in ("targets", "target"):
                continue  # what a statement writes keeps its name (s_x[i] += g)
            if isinstance(old, gast.AST):
                setattr(stmt, field, self.replace(old, copies))
            elif isinstance(old, list):
                setattr(stmt, field, [self.replace(x, copies) if isinstance(x, gast.AST)
                                      else x for x in old])

    def replace(self, node, copies: _Copies):
        if not copies.values:
            return node
        reads = _Reads(copies.values)
        node = reads.visit(node)
        self.changed = self.changed or reads.replaced
        return node


def _anything_to_do(stmts: list, movable: set[str]) -> bool:
    """Does ``block`` have anything to do in ``stmts``: a copy to a movable name, ``x = x``,
    or an empty block (the blocks it walks: those of ``if``, ``for`` and ``while``)?"""
    for stmt in stmts:
        if _self_copy(stmt) or _copy_to(stmt, movable):
            return True
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            if not stmt.body or _anything_to_do(stmt.body, movable) or \
                    _anything_to_do(stmt.orelse, movable):
                return True
    return False


def _copy_to(stmt, movable: set[str]) -> bool:
    """``t = y`` or ``t = 2.0``, ``t`` one of ``movable``."""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in movable and \
        _copyable(stmt.value)


def _self_copy(stmt) -> bool:
    """``x = x``."""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name) and \
        stmt.value.id == stmt.targets[0].id


def _known_effect(stmt) -> bool:
    """A call statement whose only effect ``written`` names: push, pop, ``np.add.at``."""
    call = stmt.value
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr in ("append", "pop", "at")


def _loads(node) -> set[str]:
    return {n.id for n in trees.walk(node) if isinstance(n, gast.Name)}


def _copyable(value) -> bool:
    if isinstance(value, gast.Name):
        return True
    return isinstance(value, gast.Constant) and type(value.value) in (int, float)


class _Reads(trees.Transformer):
    """Each read of a copy replaced by its original; a rule's test of a keyword made
    ``-0.2 is None`` so is decided (Python warns of ``is`` with a literal, an error where
    warnings are): ``None if -0.2 is None else -0.2`` is ``-0.2``.

    >>> from s2sad.codegen import unparse
    >>> tree = gast.parse("f(None if t_1 is None else t_1, t_1 is not None)", mode="eval")
    >>> unparse(_Reads({"t_1": gast.Constant(-0.2, None)}).visit(tree.body))
    'f(-0.2, True)'
    """

    def __init__(self, copies: dict):
        self.copies = copies
        self.replaced = False

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.copies:
            self.replaced = True
            return located(clone(self.copies[node.id]), node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        sides = [node.left, *node.comparators]
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot)) and \
                all(isinstance(side, gast.Constant) for side in sides) and \
                any(side.value is None for side in sides):
            same = node.left.value is node.comparators[0].value
            return located(gast.Constant(same is isinstance(node.ops[0], gast.Is), None), node)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if isinstance(node.test, gast.Constant) and type(node.test.value) is bool:
            return node.body if node.test.value else node.orelse
        return node
