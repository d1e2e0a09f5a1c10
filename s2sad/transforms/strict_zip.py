"""``zip(..., strict=True)`` as a plain ``zip`` and a check of its arguments' lengths.

Python's strict ``zip`` raises ValueError when it is read to its end and one argument
ran out before another: after the loop's last full turn, or when ``list()`` (``sum``,
a comprehension...) has read every common item. The lengths are taken where Python
evaluates the arguments, the check runs where it would raise::

    for a, b in zip(x, y, strict=True):         n_zip = zip_lengths(x, y)
        s = s + a * b                           for a, b in zip(x, y):
                                                    s = s + a * b
                                                else:
                                                    check_zip_lengths(n_zip)

A loop left by ``break`` or ``return`` skips its ``else``: Python's ``zip`` was not read
to its end and raised nothing. ``v = sum(a * b for a, b in zip(x, y, strict=True))``
becomes ``n_zip = zip_lengths(x, y)``, ``v_zip = sum(...)``, the check, then ``v =
v_zip`` (also for the first argument of a call: ``np.sum([... zip(...)])``). The arguments are evaluated twice: only names, constants, attributes, items,
slices, arithmetic of them, ``range`` and ``reversed`` (the same values again). A
``zip`` read in part (``next``, ``any``, a ``while`` test, an argument evaluated
conditionally) is left as it is (refused later); ``strict=False`` is dropped.

>>> import gast
>>> from s2sad.names import Namer
>>> tree = gast.parse("def f(x, y):\\n    s = 0.0\\n    for a, b in zip(x, y, strict=True):\\n"
...                   "        s = s + a * b\\n    return s").body[0]
>>> out = StrictZip(Namer.for_tree(tree), lambda f: f.__name__, set(), lambda n: True).run(tree)
>>> print(gast.unparse(out).strip())
def f(x, y):
    s = 0.0
    n_zip = zip_lengths(x, y)
    for a, b in zip(x, y):
        s = s + a * b
    else:
        check_zip_lengths(n_zip)
    return s
"""

from __future__ import annotations

import gast

from .. import registry, trees
from ..runtime.structures import check_zip_lengths, zip_lengths

# builtins that read their first argument to its end
_COMPREHENSIONS = (gast.ListComp, gast.DictComp, gast.SetComp)


def _whole(name: str) -> bool:
    """Does the builtin ``name`` read an iterable to its end (the registry's ``whole``:
    ``list``, ``sum``, ``sorted``)?"""
    import builtins
    found = registry.facts(getattr(builtins, name, None))
    return found is not None and found.whole


class StrictZip(trees.Transformer):
    """Rewrites a function's ``zip(..., strict=True)`` read to its end (see the module)."""

    def __init__(self, namer, helper, local_names: set, is_builtin):
        self.namer, self.helper = namer, helper
        self.local_names, self.is_builtin = local_names, is_builtin
        self.changed = False

    def run(self, tree):
        tree.body = self._block(tree.body)
        return tree

    def _builtin(self, node, name: str) -> bool:
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id == name and name not in self.local_names and self.is_builtin(name)

    def _strict(self, node):
        """The ``strict`` keyword of ``zip(...)``, else None."""
        if not self._builtin(node, "zip"):
            return None
        return next((k for k in node.keywords if k.arg == "strict"), None)

    def _pure(self, node) -> bool:
        if isinstance(node, (gast.Name, gast.Constant)):
            return True
        if isinstance(node, gast.Attribute):
            return self._pure(node.value)
        if isinstance(node, gast.Subscript):
            return self._pure(node.value) and self._pure(node.slice)
        if isinstance(node, gast.Slice):
            return all(p is None or self._pure(p) for p in (node.lower, node.upper, node.step))
        if isinstance(node, (gast.Tuple, gast.List)):
            return all(self._pure(e) for e in node.elts)
        if isinstance(node, gast.BinOp):
            return self._pure(node.left) and self._pure(node.right)
        if isinstance(node, gast.UnaryOp):
            return self._pure(node.operand)
        if self._builtin(node, "range") or self._builtin(node, "reversed"):
            return not node.keywords and all(self._pure(a) for a in node.args)
        return False

    def _read_whole(self, node):
        """The strict ``zip`` call that ``node`` (an iterable) is, or wraps in
        ``enumerate``, with plain arguments; else None."""
        if self._builtin(node, "enumerate") and node.args:
            node = node.args[0]
        keyword = self._strict(node)
        if keyword is None or not isinstance(keyword.value, gast.Constant) or \
                keyword.value.value is not True or len(node.keywords) != 1 or \
                any(isinstance(a, gast.Starred) for a in node.args) or \
                not all(self._pure(a) for a in node.args):
            return None
        return node

    def _consumed(self, value):
        """The strict ``zip`` that ``value`` reads to its end: ``list(zip(...))``,
        ``sum(f(a) for a in zip(...))``, ``[... for a, b in zip(...)]``."""
        if isinstance(value, _COMPREHENSIONS):
            return self._read_whole(value.generators[0].iter)
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
                self._builtin(value, value.func.id) and _whole(value.func.id) and value.args and \
                not any(isinstance(a, gast.Starred) for a in value.args):
            first = value.args[0]
            if isinstance(first, (gast.GeneratorExp,) + _COMPREHENSIONS):
                return self._read_whole(first.generators[0].iter)
            return self._read_whole(first)
        return None

    def _lengths(self, call, at):
        """``n_zip = zip_lengths(args...)`` (a copy of the arguments), and ``strict``
        dropped from ``call``."""
        self.changed = True
        name = self.namer.claim("n_zip")
        call.keywords = []
        lengths = gast.Call(gast.Name(self.helper(zip_lengths), gast.Load(), None, None),
                            [trees.clone(a) for a in call.args], [])
        stmt = gast.Assign([gast.Name(name, gast.Store(), None, None)], lengths, None)
        return name, trees.located(stmt, at)

    def _check(self, name, at):
        call = gast.Call(gast.Name(self.helper(check_zip_lengths), gast.Load(), None, None),
                         [gast.Name(name, gast.Load(), None, None)], [])
        return trees.located(gast.Expr(call), at)

    def _block(self, stmts) -> list:
        out = []
        for stmt in stmts:
            for field in ("body", "orelse"):
                if isinstance(getattr(stmt, field, None), list) and \
                        not isinstance(stmt, gast.FunctionDef):
                    setattr(stmt, field, self._block(getattr(stmt, field)))
            out.extend(self._statement(stmt))
        return out

    def _statement(self, stmt) -> list:
        if isinstance(stmt, gast.FunctionDef):
            return [stmt]  # (a helper: rewritten where it is inlined)
        if isinstance(stmt, gast.For):
            call = self._read_whole(stmt.iter)
            if call is not None:
                name, before = self._lengths(call, stmt)
                stmt.orelse = [self._check(name, stmt)] + stmt.orelse
                return [before, stmt]
        if isinstance(stmt, (gast.Assign, gast.Return)) and stmt.value is not None:
            holder, field = stmt, "value"  # (what reads the zip: the value, or its first
            call = self._consumed(stmt.value)  # argument, np.sum([... zip ...]), after a
            value = stmt.value                 # function's name, read first)
            if call is None and isinstance(value, gast.Call) and value.args and \
                    isinstance(value.func, (gast.Name, gast.Attribute)) and \
                    self._pure(value.func):
                holder, field, call = value.args, 0, self._consumed(value.args[0])
            if call is not None:
                name, before = self._lengths(call, stmt)
                value = self.namer.claim("v_zip")
                read = holder[field] if field == 0 else getattr(holder, field)
                first = trees.located(gast.Assign(
                    [gast.Name(value, gast.Store(), None, None)], read, None), stmt)
                if field == 0:
                    holder[0] = gast.Name(value, gast.Load(), None, None)
                else:
                    stmt.value = gast.Name(value, gast.Load(), None, None)
                return [before, first, self._check(name, stmt), stmt]
        for node in trees.walk(stmt):  # (strict=False: zip as it is)
            keyword = self._strict(node)
            if keyword is not None and isinstance(keyword.value, gast.Constant) and \
                    keyword.value.value is False:
                node.keywords = [k for k in node.keywords if k is not keyword]
                self.changed = True
        return [stmt]
