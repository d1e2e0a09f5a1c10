"""Stop at the first generated statement that makes a NaN or an infinity (``debug_nans``).

After every assignment of the adjoint, forward and reverse sweeps alike, a call
``check_finite(value, statement, file, line)`` checks what was assigned; the
arguments are checked on entry. The statement's text and the user's line it
comes from (every generated statement carries the user's line number) are
constants in the call, so the error names both. Assignments that cannot make a
NaN are left alone: constants, comparisons, values restored from the stack,
loop counters.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.source import FunctionSource
>>> fn = gast.parse('''def grad_f(x):
...     s_x = 0.0
...     t_1 = np.log(x)
...     s_x += 1.0 / x
...     return float(s_x)''').body[0]
>>> source = FunctionSource(None, fn, "demo.py", ["def f(x):\\n", "    return np.log(x)\\n"], {})
>>> for stmt in fn.body[1:3]:
...     stmt.lineno = 2
>>> print(unparse(NanCheck(source, lambda f: f.__name__).visit(fn)))
def grad_f(x):
    check_argument(x, 'x', 'demo.py', 1)
    s_x = 0.0
    t_1 = np.log(x)
    check_finite(t_1, 't_1 = np.log(x)', 'demo.py', 2)
    s_x += 1.0 / x
    check_finite(s_x, 's_x += 1.0 / x', 'demo.py', 2)
    return float(s_x)
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from .. import trees
from ..codegen import comment_text, unparse
from ..runtime.debug import check_argument, check_finite
from ..source import FunctionSource
from ..trees import clone


def _constant(node) -> bool:
    """Does ``node`` obviously hold no NaN: a constant, or a display or repetition of them?"""
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, (gast.List, gast.Tuple)):
        return all(_constant(e) for e in node.elts)
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        return _constant(node.left) and _constant(node.right)
    return False


def _skipped(value) -> bool:
    if _constant(value) or isinstance(value, (gast.Compare, gast.BoolOp)):
        return True
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.Not):
        return True
    # `x = stack.pop()` restores a value already checked when it was made
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
        value.func.attr == "pop" and not value.args


def _loads(target) -> list:
    """The values an assignment target holds after the assignment, as expressions."""
    if isinstance(target, gast.Name):
        return [gast.Name(target.id, gast.Load(), None, None)]
    if isinstance(target, (gast.Tuple, gast.List)):
        return [load for elt in target.elts for load in _loads(elt)]
    if isinstance(target, gast.Subscript):
        load = clone(target)
        load.ctx = gast.Load()
        return [load]
    return []


class NanCheck(trees.Transformer):
    """``helper(function)`` gives the generated name of a ``s2sad.runtime.debug``
    function (imported on first use); ``source`` maps line numbers to the user's file."""

    def __init__(self, source: FunctionSource, helper: Callable[[Callable], str],
                 spell: Callable | None = None):
        self.source = source
        self.helper = helper
        self.spell = spell or (lambda stmt: stmt)  # (a copy of a statement as the
        # generated code finally reads: the ``readable`` pass's spelling)
        self.changed = False  # (whether a visit added a check)

    def visit_FunctionDef(self, node):
        node.body = self._block(node.body)
        args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        line = getattr(self.source.tree, "lineno", None)  # the user's `def` line
        checks = [self._call(check_argument, gast.Name(a.id, gast.Load(), None, None),
                             a.id, self.source.filename, line) for a in args]
        node.body[:0] = checks
        self.changed = self.changed or bool(checks)
        return node

    def _block(self, stmts: list) -> list:
        out = []
        for stmt in stmts:
            out.append(stmt)
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                stmt.body = self._block(stmt.body) or [gast.Pass()]
                stmt.orelse = self._block(stmt.orelse)
                continue
            origin = getattr(stmt, "origin", ())  # (inlined: the line it comes from)
            place = origin[-1][:2] if len(origin) > 1 else \
                (self.source.filename, getattr(stmt, "lineno", None))
            for value in self._checked(stmt):
                text = unparse(self.spell(clone(stmt))).strip()
                call = self._call(check_finite, value, text, *place)
                out.append(gast.copy_location(call, stmt))
                self.changed = True
        return out

    def _checked(self, stmt) -> list:
        if isinstance(stmt, gast.Assign) and not _skipped(stmt.value):
            return [load for target in stmt.targets for load in _loads(target)]
        if isinstance(stmt, gast.AugAssign) and not _constant(stmt.value):
            return _loads(stmt.target)
        if isinstance(stmt, gast.AnnAssign) and stmt.value is not None and \
                not _skipped(stmt.value):
            return _loads(stmt.target)
        if isinstance(stmt, gast.Expr) and comment_text(stmt) is None and \
                isinstance(stmt.value, gast.Call) and isinstance(stmt.value.func, gast.Attribute) \
                and stmt.value.func.attr == "at" and stmt.value.args:
            return [clone(stmt.value.args[0])]  # np.add.at(s_x, index, g)
        return []

    def _call(self, helper: Callable, value, text: str, filename: str, lineno):
        args = [value, gast.Constant(text, None), gast.Constant(filename, None),
                gast.Constant(lineno, None)]
        name = gast.Name(self.helper(helper), gast.Load(), None, None)
        return gast.Expr(gast.Call(name, args, []))
