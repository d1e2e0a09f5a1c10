"""Refuse, with a located error, every construct the compiler does not handle.

Nothing is silently dropped: a statement s2sad cannot differentiate stops
compilation at its line.

>>> import gast
>>> from s2sad.source import FunctionSource
>>> from s2sad.errors import UnsupportedSyntaxError
>>> def f(x):
...     with open("log") as fh:
...         y = x * 2
...     return y
>>> tree = gast.parse("def f(x):\\n    with open('log') as fh:\\n        y = x * 2\\n    return y").body[0]
>>> try:
...     Validate(FunctionSource(f, tree, "demo.py", [], {})).run()
... except UnsupportedSyntaxError as err:
...     print(err)
s2sad does not support a `with` statement
  File "demo.py", line 2
Use an explicit call before and after the block instead of `with`.
"""

from __future__ import annotations

import copy
import dataclasses

import gast

from .. import trees
from ..source import FunctionSource
from ..codegen import unparse

# construct -> (what to call it, what to do instead)
_STATEMENTS = {
    gast.With: ("a `with` statement", "Use an explicit call before and after the block instead "
                "of `with`."),
    gast.AsyncWith: ("an `async with` statement", "Differentiate synchronous code."),
    gast.AsyncFor: ("an `async for` loop", "Differentiate synchronous code."),
    gast.AsyncFunctionDef: ("an `async def`", "Differentiate synchronous code."),
    gast.ClassDef: ("a class definition inside the function", "Define the class at module level."),
    gast.Global: ("a `global` statement", "Pass the value in as an argument and return the "
                  "new value instead of writing a global."),
    gast.Nonlocal: ("a `nonlocal` statement", "Pass the value in as an argument and return the "
                    "new value instead."),
    gast.Delete: ("a `del` statement", "Remove the `del`; a differentiated function keeps its "
                  "values for the reverse sweep anyway."),
    gast.Import: ("an `import` inside the function", "Import at module level."),
    gast.ImportFrom: ("an `import` inside the function", "Import at module level."),
    gast.Match: ("a `match` statement", "Write it with `if`/`elif`: `case (n,) if n > 2:` on "
                "`x.shape` is `if x.ndim == 1 and x.shape[0] > 2:`."),
}
if hasattr(gast, "TryStar"):
    _STATEMENTS[gast.TryStar] = ("`try` with `except*`", "Move error handling outside the "
                                 "differentiated function.")

_EXPRESSIONS = {
    gast.SetComp: ("a set comprehension", "Use vectorized NumPy operations instead."),
    gast.Yield: ("`yield` here", "Use `yield` as a statement of a generator that a `for` "
                 "loop, list(), tuple() or sum() consumes, or return a value."),
    gast.YieldFrom: ("`yield from` here", "Use `yield from` as a statement of a generator "
                     "that a `for` loop, list(), tuple() or sum() consumes."),
    gast.Await: ("`await`", "Differentiate synchronous code."),
    gast.NamedExpr: ("an assignment expression (:=)", "Assign in a separate statement."),
    gast.Set: ("a set display", "Use a list or a tuple."),
}

# values (constants) refused where they are written
_VALUES = {
}


def _always_returns(block) -> bool:
    if not block:
        return False
    last = block[-1]
    if isinstance(last, (gast.Return, gast.Raise)):
        return True
    if isinstance(last, gast.While) and isinstance(last.test, gast.Constant) and \
            bool(last.test.value) and not trees.breaks_own_loop(last.body):
        return True  # `while True:` without `break` ends only by `return`
    if isinstance(last, gast.Try):  # (a try block that returns, or its else; each handler)
        return (_always_returns(last.body) or _always_returns(last.orelse)) and \
            all(_always_returns(h.body) for h in last.handlers)
    return isinstance(last, gast.If) and _always_returns(last.body) and \
        _always_returns(last.orelse)


def explicit_returns(tree):
    """``tree``, a helper the function calls, with Python's implicit ``return None``
    written out (at its end, and for a bare ``return``); ``tree`` itself if it needs none.

    >>> tree = gast.parse("def log(v):\\n    if v is None:\\n        return\\n    print(v)").body[0]
    >>> print(gast.unparse(explicit_returns(tree)).strip())
    def log(v):
        if v is None:
            return None
        print(v)
        return None
    """
    own = [n for n in trees.walk(tree) if isinstance(n, gast.Return)]
    if all(r.value is not None for r in own) and _always_returns(tree.body):
        return tree
    tree = trees.clone(tree)
    if not _always_returns(tree.body):  # (before the walk: a walk kept is of the tree whole)
        end = tree.body[-1]
        ret = gast.Return(gast.Constant(None, None))
        ret.lineno = ret.value.lineno = getattr(end, "end_lineno", None) or end.lineno
        ret.col_offset = ret.value.col_offset = 0
        tree.body.append(ret)
    for ret in trees.walk(tree):
        if isinstance(ret, gast.Return) and ret.value is None:
            ret.value = gast.copy_location(gast.Constant(None, None), ret)
    return tree


def _nested_item(stored) -> bool:
    """Is ``stored`` an item of an item of a name (``a[i][j]``, ``a.T[i]``)?"""
    if not (isinstance(stored, gast.Subscript) and (
            isinstance(stored.value, gast.Subscript) or
            isinstance(stored.value, gast.Attribute) and stored.value.attr == "T")):
        return False
    while isinstance(stored, gast.Subscript) or \
            isinstance(stored, gast.Attribute) and stored.attr == "T":
        stored = stored.value
    return isinstance(stored, gast.Name)


class Validate(trees.Visitor):
    """Walk the function and raise ``UnsupportedSyntaxError`` at the first thing not handled."""

    def __init__(self, source: FunctionSource, nested: bool = False, generator: bool = False):
        self.source = source
        self.nested = nested  # a function called by the differentiated one (inlined)
        self.generator = generator  # a generator of the user's, written out where a loop
        # consumes it (transforms/generators.py): `yield e` and `yield from e` statements
        self.top_level = not nested and not generator and \
            getattr(source, "func", None) is not None  # (.view_writes, .local_objects run on it)

    def run(self) -> None:
        tree = self.source.tree
        args = tree.args
        if not self.nested and (args.vararg is not None or args.kwarg is not None):
            raise self.source.syntax_error("`*args` or `**kwargs` parameters", tree,
                                           "Name every parameter.")
        body = tree.body
        for stmt in body:
            if isinstance(stmt, gast.FunctionDef):
                # a helper defined inside: checked like a function of its own, with
                # Python's implicit `return None` written out, as where it is inlined
                Validate(dataclasses.replace(self.source, tree=explicit_returns(stmt)),
                         nested=True).run()
                continue
            if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Lambda):
                self._check_lambda(stmt)
                continue
            self.visit(stmt)
        if self.generator:
            return  # (it ends when its body does, or at a `return`)
        helpers = {id(n) for s in body if isinstance(s, gast.FunctionDef)
                   for n in trees.walk(s)}  # (a helper's own `return`s are checked above)
        returns = [s for s in trees.walk(tree) if isinstance(s, gast.Return) and
                   id(s) not in helpers]
        if not returns:
            raise self.source.syntax_error("a function without `return`", tree,
                                           "Return the value to differentiate.")
        for ret in returns:
            if ret.value is None:
                raise self.source.syntax_error("`return` without a value", ret,
                                               "Return the value to differentiate.")
        for stmt in body:
            if isinstance(stmt, gast.Return) and stmt is not body[-1]:
                raise self.source.syntax_error("code after `return`", stmt,
                                               "Remove the statements that can never run.")
        if not _always_returns(body):
            raise self.source.syntax_error(
                "a function that can end without `return`", body[-1],
                "Make every path end with `return value` (Python would return None).")

    def generic_visit(self, node):
        kind = type(node)
        if kind in _STATEMENTS:
            what, hint = _STATEMENTS[kind]
            if kind is gast.Delete and not all(isinstance(t, gast.Name) for t in node.targets):
                hint = ("`del d[k]` changes the dict or list it deletes from: build a new "
                        "one without the item ({k: v for k, v in d.items() if k != key}, "
                        "xs[:i] + xs[i + 1:]).")
            raise self.source.syntax_error(what, node, hint)
        if kind in _EXPRESSIONS:
            what, hint = _EXPRESSIONS[kind]
            raise self.source.syntax_error(what, node, hint)
        super().generic_visit(node)

    def visit_Try(self, node):
        from .try_blocks import refusal
        tree = self.source.tree
        found = refusal(node, self.source.resolve, tree, {
            s.name: s for s in tree.body if isinstance(s, gast.FunctionDef)})
        if found is not None:
            what, hint, where = found
            raise self.source.syntax_error(what, where, hint)
        self.generic_visit(node)

    def _check_lambda(self, stmt):
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], gast.Name):
            raise self.source.syntax_error("a lambda assigned to something else than a name",
                                           stmt, "Write `name = lambda ...` or a `def`.")
        self.visit(stmt.value.body)  # (its *args and **kwargs: bound where it is inlined)

    def visit_Constant(self, node):
        if type(node.value) in _VALUES:
            what, hint = _VALUES[type(node.value)]
            raise self.source.syntax_error(what, node, hint)

    def visit_Slice(self, node):
        # the step of np.r_[a:b:5j] (five points from a to b) is an imaginary literal: it
        # counts points (transforms/index_tricks.py), it is not a complex value
        step = node.step.operand if isinstance(node.step, gast.UnaryOp) else node.step
        for part in (node.lower, node.upper, node.step):
            if part is not None and not (
                    part is node.step and isinstance(step, gast.Constant) and
                    type(step.value) is complex):
                self.visit(part)

    def visit_FunctionDef(self, node):
        raise self.source.syntax_error(
            "a `def` inside a block", node, "Define helpers at the top of the function body "
            "or at module level.")

    def visit_Lambda(self, node):
        raise self.source.syntax_error(
            "a lambda used as a value", node, "Assign it to a name (`f = lambda x: ...`) and "
            "call it, or use a `def`.")

    def visit_Assign(self, node):
        for target in node.targets:
            if len(node.targets) == 1 and isinstance(target, (gast.Tuple, gast.List)) and \
                    sum(isinstance(e, gast.Starred) for e in target.elts) == 1:
                target = copy.copy(target)  # a, *rest = xs: written out (.star_args)
                target.elts = [e.value if isinstance(e, gast.Starred) else e
                               for e in target.elts]
            self._check_target(target, chained=len(node.targets) == 1)
        self.visit(node.value)

    def visit_AugAssign(self, node):
        self._check_target(node.target, chained=True)
        self.visit(node.value)

    def visit_AnnAssign(self, node):
        if node.value is None:
            return
        self._check_target(node.target)
        self.visit(node.value)

    def _check_target(self, target, chained: bool = False):
        if chained and _nested_item(target):  # (`a[i][j] = v`: .view_writes, on an array)
            for node in trees.walk(target):
                if isinstance(node, gast.Subscript):
                    self.visit(node.slice)
            return
        if isinstance(target, gast.Name):
            return
        if isinstance(target, (gast.Tuple, gast.List)):
            for elt in target.elts:
                if isinstance(elt, gast.Starred):
                    raise self.source.syntax_error("starred assignment (`a, *b = ...`)", elt,
                                                   "Index the sequence instead.")
                self._check_target(elt)
            return
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            self.visit(target.slice)
            return
        if trees.flat_item(target) and isinstance(target.value.value, gast.Name) \
                and self.top_level:
            self.visit(target.slice)  # (y.flat[i] = v: .view_writes, on an array)
            return
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Attribute) \
                and isinstance(target.value.value, gast.Name) and self.top_level:
            self.visit(target.slice)  # (p.w[i] = v: p__w[i] = v, p an object written as
            return                    # variables, .local_objects; else refused there)
        if isinstance(target, gast.Attribute) and _object_path(target.value):
            self.visit(target.value)  # (self.n = v: a change to an object's state, .attributes)
            return
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Attribute):
            raise self.source.syntax_error(
                f"assignment into {unparse(target.value)}, which changes an object's array or "
                "list in place where the reverse sweep cannot see it", target,
                f"Make a new value and set the attribute: `{unparse(target.value)} = "
                "np.where(...)` or a copy changed (`buf = x.copy()`).")
        if isinstance(target, gast.Subscript):
            raise self.source.syntax_error(
                "assignment into a nested element (`y[i][j] = ...` or `f(x)[i] = ...`)", target,
                "Index once: `y[i, j] = ...` for arrays, or name the inner list first.")
        raise self.source.syntax_error(f"assignment to {type(target).__name__.lower()}", target,
                                       "Assign to a plain variable.")

    def visit_Expr(self, node):
        if self.generator and isinstance(node.value, (gast.Yield, gast.YieldFrom)):
            if node.value.value is not None:
                self.visit(node.value.value)
            return
        self.visit(node.value)

    def visit_If(self, node):
        self.generic_visit_fields(node)

    def visit_Return(self, node):
        if node.value is not None:
            self.visit(node.value)

    def visit_While(self, node):
        self.generic_visit_fields(node)

    def visit_For(self, node):
        self._check_target(node.target)
        self.generic_visit_fields(node)

    def generic_visit_fields(self, node):
        for field in ("test", "iter"):
            if hasattr(node, field):
                self.visit(getattr(node, field))
        for stmt in node.body + node.orelse:
            self.visit(stmt)

    def visit_Starred(self, node):
        raise self.source.syntax_error("`*` unpacking here", node,
                                       "Pass the values one by one, or index the sequence.")

    def visit_Tuple(self, node):
        """``(*xs, y)``: written out for the length of ``xs`` (normalization)."""
        for elt in node.elts:
            self.visit(elt.value if isinstance(elt, gast.Starred) and
                       isinstance(node.ctx, gast.Load) else elt)

    visit_List = visit_Tuple

    def visit_Call(self, node):
        """A lambda may be an argument (``integrate(lambda t, y: -k * y, y0)``): inlined
        where the callee is the user's own function (normalization refuses it elsewhere).
        ``f(*xs)`` and ``f(**kw)`` are written out for the length and keys of ``xs`` and
        ``kw`` (normalization, :mod:`.star_args`)."""
        self.visit(node.func)
        pieces = not self.generator and _piecewise(node, self.source)
        for arg in list(node.args) + [k.value for k in node.keywords]:
            if any(k.value is arg and k.arg == "excluded" for k in node.keywords) and \
                    isinstance(arg, gast.Set) and all(
                        isinstance(e, gast.Constant) for e in arg.elts) and \
                    _is_vectorize(node.func, self.source):
                continue  # (np.vectorize(f, excluded={1}): a set of constants, read here)
            if isinstance(arg, gast.Starred):
                arg = arg.value
            if isinstance(arg, gast.Lambda):
                self.visit(arg.body)
            elif pieces and isinstance(arg, (gast.List, gast.Tuple)):
                for item in arg.elts:  # (np.piecewise's functions: transforms/piecewise.py)
                    self.visit(item.body if isinstance(item, gast.Lambda) else item)
            else:
                self.visit(arg)


def _is_vectorize(func, source) -> bool:
    """Does ``func`` (``np.vectorize``, a dotted name) name ``numpy.vectorize``?"""
    import numpy as np
    path = []
    while isinstance(func, gast.Attribute):
        path.append(func.attr)
        func = func.value
    if not isinstance(func, gast.Name) or func.id in trees.assigned_names(source.tree):
        return False
    try:
        value = source.resolve(func.id)
        for attr in reversed(path):
            value = getattr(value, attr)
    except (KeyError, AttributeError):
        return False
    return value is np.vectorize


def _piecewise(node, source) -> bool:
    """Is ``node`` a call of ``np.piecewise`` with a display for ``funclist``, whose
    lambdas :mod:`.piecewise` assigns to names?"""
    from .piecewise import _funclist, is_piecewise
    if not isinstance(_funclist(node), (gast.List, gast.Tuple)):
        return False  # (most calls: no walk of the whole function for its names)
    return is_piecewise(node, source, trees.assigned_names(source.tree))


def _object_path(node) -> bool:
    """``self``, ``self.layer``, ``self.layers[i]``: a path to an object, whose attribute a
    statement may set (:mod:`.attributes` follows it or refuses it)."""
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return isinstance(node, gast.Name)
