"""A ``try`` statement as a test of which of its blocks run, then those blocks.

Python runs the ``try`` block; where it raises an exception that a handler names, the
statements it ran are kept and that handler runs; else the ``else`` block; then the
``finally`` block. Where the ``try`` block only computes values into names (it changes
no object, calls only functions that change nothing), running it twice gives the same
values: once to learn which block Python runs, once differentiated::

    try:                                        caught = try_caught(try_body, (ZeroDivisionError,), x, d)
        y = x / d                               if caught == -1:
    except ZeroDivisionError:                       y = x / d
        y = 0.0                                 else:
                                                    y = 0.0

``try_body`` is the ``try`` block as a function of the names it reads (compiled with the
function's module, read by the generated code); ``try_caught`` calls it and gives the
position of the handler that catches what it raised (-1: it raised nothing; an
exception no handler names goes on, as in Python). Refused at the ``try``: a block that
changes something (``a[0] = v``, ``v += w``, ``l.append(v)``, a call of a function that
may change its arguments, a generator), that leaves the function or a loop
(``return``, ``break``), an ``except ... as e`` whose ``e`` is read, a ``finally`` that
does more than compute values (it would be skipped where an exception leaves the
function), and ``try``/``except*``.

>>> import gast
>>> tree = gast.parse("def f(x, d):\\n    try:\\n        y = x / d\\n    except ZeroDivisionError:"
...                   "\\n        y = 0.0\\n    return y").body[0]
>>> print(refusal(tree.body[0], lambda name: {"ZeroDivisionError": ZeroDivisionError}[name]))
None
>>> tree = gast.parse("def f(x):\\n    try:\\n        x[0] = 1.0\\n    except IndexError:"
...                   "\\n        pass\\n    return x").body[0]
>>> print(refusal(tree.body[0], lambda name: IndexError)[0])
a `try` block that changes a value in place (it runs twice: to learn which block runs, then differentiated)
"""

from __future__ import annotations

import builtins
import functools
import inspect
import math
import textwrap
import types

import gast
import numpy as np

from .. import registry, trees
from ..runtime.structures import try_caught, try_steps

_IN_PLACE = "a `try` block that changes a value in place (it runs twice: to learn which " \
    "block runs, then differentiated)"
_IN_PLACE_HINT = "Compute new values into names in the `try` block (`y = x / d`), and " \
    "change objects after it, in its `else` block."


def _repeatable_builtin(func) -> bool:
    """Does the builtin ``func`` give the same value when called again, changing nothing?
    The registry's facts: one that computes with numbers (``pure``: ``len``, ``float``),
    converts, or reads a container (``whole``, ``sequence``: ``list``, ``sorted``;
    ``no_attributes``: ``zip``); not ``print``, nor one calling a function it is given
    (``map``). A generator read twice is refused on its own."""
    found = registry.facts(func)
    return found is not None and not found.mutates and not found.hidden_state and \
        not found.calls and not found.iterator and (
            found.pure or found.whole or found.sequence or found.no_attributes or
            found.converts or bool(found.number))


def _reading_method(name: str, given: int) -> bool:
    """Does a method of that name only read its receiver, on each container or array that
    has one (the registry's facts: ``dict.get``, ``np.ndarray.copy``), given ``given``
    positional arguments (``a.sum(0, None, b)`` writes ``b``)?"""
    methods = [getattr(owner, name) for owner in (list, dict, tuple, np.ndarray)
               if hasattr(owner, name)]
    found = [registry.facts(m) for m in methods]
    return bool(methods) and all(
        f is not None and not f.hidden_state and not f.iterator and not any(
            isinstance(m, int) and m <= given for m in f.mutates) for f in found)


def _written_first(stmts) -> set:
    """The names the block's top-level assignments give a value before anything in it
    reads them (the block's function makes them its own)."""
    written, seen = set(), set()
    for stmt in stmts:
        value = stmt.value if isinstance(stmt, gast.Assign) else stmt
        seen |= {n.id for n in trees.walk(value) if isinstance(n, gast.Name) and
                 isinstance(n.ctx, gast.Load)}
        if isinstance(stmt, gast.Assign):
            written |= {n.id for t in stmt.targets for n in trees.walk(t)
                        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)} - seen
        else:
            seen |= {n.id for n in trees.walk(stmt) if isinstance(n, gast.Name)}
    return written


def _reads(node, bound, out) -> None:
    """The names ``node`` reads from the function's scope, in order, into ``out`` (a
    comprehension's own variables left out: Python gives it a scope of its own)."""
    if isinstance(node, (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)):
        _reads(node.generators[0].iter, bound, out)  # (evaluated where it is written)
        inner = bound | {n.id for g in node.generators for n in trees.walk(g.target)
                         if isinstance(n, gast.Name)}
        for g in node.generators:
            if g is not node.generators[0]:
                _reads(g.iter, inner, out)
            for test in g.ifs:
                _reads(test, inner, out)
        for part in ("elt", "key", "value"):
            if getattr(node, part, None) is not None:
                _reads(getattr(node, part), inner, out)
        return
    if isinstance(node, gast.Name):
        if isinstance(node.ctx, gast.Load) and node.id not in bound and node.id not in out:
            out.append(node.id)
        return
    for child in gast.iter_child_nodes(node):
        _reads(child, bound, out)


def _names_read(nodes) -> list:
    seen = []
    for stmt in nodes:
        _reads(stmt, frozenset(), seen)
    return seen


class _Purity:
    """Does a block only compute values into names? ``check`` gives the first node that
    may change something (or leave the block), else None."""

    def __init__(self, resolve, local_defs=None, depth=0, local_names=frozenset()):
        self.resolve, self.local_defs, self.depth = resolve, local_defs or {}, depth
        self.local_names = local_names  # (a variable: its value is not known here)

    def block(self, stmts, loops=0):
        for stmt in stmts:
            bad = self.statement(stmt, loops)
            if bad is not None:
                return bad
        return None

    def statement(self, stmt, loops):
        if isinstance(stmt, gast.Assign):
            if not all(self._name_target(t) for t in stmt.targets):
                return stmt
            return self.expression(stmt.value)
        if isinstance(stmt, gast.Pass):
            return None
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant):
            return None  # (a docstring)
        if isinstance(stmt, (gast.Break, gast.Continue)):
            return None if loops else stmt
        if isinstance(stmt, gast.If):
            return self.expression(stmt.test) or self.block(stmt.body, loops) or \
                self.block(stmt.orelse, loops)
        if isinstance(stmt, gast.For):
            if not self._name_target(stmt.target):
                return stmt
            return self.expression(stmt.iter) or self.block(stmt.body, loops + 1) or \
                self.block(stmt.orelse, loops)
        if isinstance(stmt, gast.While):
            return self.expression(stmt.test) or self.block(stmt.body, loops + 1) or \
                self.block(stmt.orelse, loops)
        return stmt

    def _name_target(self, target) -> bool:
        if isinstance(target, gast.Name):
            return True
        return isinstance(target, (gast.Tuple, gast.List)) and all(
            self._name_target(e) for e in target.elts)

    def expression(self, node):
        for n in trees.walk(node):
            if isinstance(n, (gast.Lambda, gast.Yield, gast.YieldFrom, gast.NamedExpr,
                              gast.Await)):
                return n
            if isinstance(n, gast.Call) and not self._pure_call(n):
                return n
        return None

    def _value(self, node):
        """The value ``node`` (a name or attributes of one) stands for, statically; a
        FunctionDef for a local def; KeyError where not known."""
        if isinstance(node, gast.Name):
            if node.id in self.local_defs:
                return self.local_defs[node.id]
            if node.id in self.local_names:
                raise KeyError(node.id)
            return self.resolve(node.id)
        if isinstance(node, gast.Attribute):
            return getattr(self._value(node.value), node.attr)
        raise KeyError(node)

    def _pure_call(self, call) -> bool:
        if any(k.arg in ("out", None) for k in call.keywords):
            return False  # (out=: written in place; **kw: not known)
        try:
            value = self._value(call.func)
        except (KeyError, AttributeError):
            value = None
        if value is None:  # a method of a value: one that reads it only (given no `out`
            from .desugar import array_function  # by position: a.sum(0, None, b))
            if not isinstance(call.func, gast.Attribute):
                return False
            name = array_function(call.func.attr)
            try:
                params = list(inspect.signature(getattr(np, name)).parameters)
            except (AttributeError, TypeError, ValueError):
                return _reading_method(call.func.attr, len(call.args))
            return "out" not in params or len(call.args) < params.index("out")
        if isinstance(value, gast.FunctionDef):
            return False  # (a def of the function's: not a value the try block's function
            # can read; refused with its own advice)
        try:
            if getattr(builtins, getattr(value, "__name__", ""), None) is value:
                return _repeatable_builtin(value)
        except TypeError:  # (unhashable)
            return False
        module = getattr(value, "__module__", None) or ""
        if isinstance(value, np.ufunc):
            return True
        if isinstance(value, types.BuiltinFunctionType) and getattr(
                value, "__self__", None) is math:
            return True
        if module.startswith(("numpy", "scipy")) and not module.startswith("numpy.random"):
            facts = registry.facts(value)
            return facts is not None and not any(
                isinstance(m, int) and m < len(call.args) for m in facts.mutates) and \
                not any(k.arg in facts.mutates for k in call.keywords) and \
                not facts.hidden_state and not facts.iterator
        if inspect.isfunction(value) and not module.startswith(("s2sad", "numpy", "scipy")):
            try:
                lines = inspect.getsource(value)
                tree = gast.parse(textwrap.dedent(lines)).body[0]
            except (OSError, TypeError, SyntaxError, IndexError):
                return False
            if not isinstance(tree, gast.FunctionDef):
                return False

            def resolve(name, g=value.__globals__):
                if name in g:
                    return g[name]
                return getattr(builtins, name)
            return self._pure_function(tree, _Resolver(resolve))
        return False

    def _pure_function(self, fdef, resolve) -> bool:
        if self.depth >= 4 or fdef.decorator_list or any(
                isinstance(n, (gast.Global, gast.Nonlocal, gast.Yield, gast.YieldFrom))
                for n in trees.walk(fdef)):
            return False
        inner = _Purity(resolve, {}, self.depth + 1, _locals(fdef))
        body = [s for s in fdef.body if not isinstance(s, gast.Return)]
        returns = [s for s in trees.walk(fdef) if isinstance(s, gast.Return)]
        if any(r.value is not None and inner.expression(r.value) is not None for r in returns):
            return False
        return inner._with_returns(body) is None

    def _with_returns(self, stmts, loops=0):
        for stmt in stmts:
            if isinstance(stmt, gast.Return):
                continue
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                head = stmt.test if not isinstance(stmt, gast.For) else stmt.iter
                if isinstance(stmt, gast.For) and not self._name_target(stmt.target):
                    return stmt
                more = 1 if isinstance(stmt, (gast.For, gast.While)) else 0
                bad = self.expression(head) or self._with_returns(stmt.body, loops + more) or \
                    self._with_returns(stmt.orelse, loops)
            else:
                bad = self.statement(stmt, loops)
            if bad is not None:
                return bad
        return None


def _check_receivers(body, check: str, reads) -> bool:
    """In ``body`` (changed in place), the receiver of each method called on an attribute
    or an item of a local name, one of ``reads`` (``self.store.get(k)``, ``d["s"].get(k)``;
    not ``np.linalg.solve``: a global's, judged as the block is built), passed through
    ``check`` first,
    with its text: a user's object there may change as its method runs, and the block runs
    twice. Returns whether there was one.

    >>> from s2sad.codegen import unparse
    >>> body = gast.parse("y = self.store.get(k) + d[0].copy() + v.sum()").body
    >>> _check_receivers(body, "plain", {"self", "d", "k", "v"})
    True
    >>> print(unparse(body[0]).strip())
    y = plain(self.store, 'self.store').get(k) + plain(d[0], 'd[0]').copy() + v.sum()
    """
    found = False
    for node in [n for stmt in body for n in trees.walk(stmt)]:
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                isinstance(node.func.value, (gast.Attribute, gast.Subscript)):
            receiver = node.func.value
            if trees.root_name(receiver) not in reads:
                continue
            text = gast.unparse(receiver).strip()
            node.func.value = gast.Call(gast.Name(check, gast.Load(), None, None),
                                        [receiver, gast.Constant(text, None)], [])
            found = True
    return found


def _locals(fdef) -> set:
    args = fdef.args
    names = {a.id for a in args.args + args.kwonlyargs + args.posonlyargs}
    names |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    return names | trees.assigned_names(fdef)


class _Resolver:
    def __init__(self, resolve):
        self.resolve = resolve

    def __call__(self, name):
        try:
            return self.resolve(name)
        except AttributeError:
            raise KeyError(name) from None


def _handler_types(handler, resolve, local_names=frozenset()):
    """The exception classes ``handler`` names (a name, attributes of one, a tuple of
    them; ``BaseException`` for a bare ``except:``), else None."""
    if handler.type is None:
        return BaseException

    def value(node):
        if isinstance(node, gast.Tuple):
            parts = [value(e) for e in node.elts]
            return None if any(p is None for p in parts) else tuple(parts)
        try:
            found = _Purity(resolve, None, 0, local_names)._value(node)
        except (KeyError, AttributeError):
            return None
        return found if isinstance(found, type) and issubclass(found, BaseException) else None
    return value(handler.type)


def refusal(node, resolve, function=None, local_defs=None):
    """``(what, hint, where)`` where s2sad does not model the ``try`` statement ``node``
    (see the module), else None. ``function``: the function it is in (an ``except ...
    as e`` whose ``e`` it reads is refused)."""
    if not node.handlers:
        return ("a `try` without `except`", "Write the `finally` block's statements after "
                "the computation.", node)
    purity = _Purity(resolve, local_defs, 0, _locals(function) - set(local_defs or ())
                     if function is not None else frozenset())
    body, last = node.body, node.body[-1]
    if isinstance(last, gast.Return) and last.value is not None:
        body = body[:-1]  # (try: ...; return e: e computed in the block, returned after)
    bad = purity.block(body) or (purity.expression(last.value) if body is not node.body
                                 else None)
    if bad is not None:
        if isinstance(bad, (gast.Return, gast.Break, gast.Continue)):
            return ("a `return`, `break` or `continue` in a `try` block", "Assign the value "
                    "in the `try` block, and return it (or leave the loop) after it.", bad)
        if isinstance(bad, gast.Call) and isinstance(bad.func, gast.Name) and \
                bad.func.id in (local_defs or {}):
            return (f"a `try` block calling {bad.func.id}(), defined inside the function",
                    "Define it at module level.", bad)
        if isinstance(bad, gast.Call):
            return ("a `try` block calling a function that may change a value (the block "
                    "runs twice: to learn which block runs, then differentiated)",
                    _IN_PLACE_HINT, bad)
        return (_IN_PLACE, _IN_PLACE_HINT, bad)
    if node.finalbody:
        bad = purity.block(node.finalbody)
        if bad is not None:
            return ("a `finally` block that does more than compute values", "Write its "
                    "statements after the `try` statement.", bad)
    for handler in node.handlers:
        if _handler_types(handler, resolve, purity.local_names) is None:
            return ("an `except` naming something else than exception classes", "Name the "
                    "exception classes (`except (ValueError, ZeroDivisionError):`).", handler)
        if handler.name is not None and function is not None and any(
                isinstance(n, gast.Name) and n.id == handler.name.id and
                isinstance(n.ctx, gast.Load) for n in trees.walk(function)):
            return ("an exception read in its handler (`except ... as e`)", "Leave out "
                    "`as e`, or handle the exception outside the differentiated function.",
                    handler)
    return None


def _whole(stmt) -> bool:
    """Does ``stmt`` assign its names only once it ran to its end? An exception partway
    through a loop, through a block of two statements, or through a nested unpacking
    (``a, (b, c) = v, w``: ``a`` is stored before ``w`` fails to unpack) leaves some of
    its names changed.

    >>> [_whole(gast.parse(t).body[0]) for t in ("a, b = f(x)", "a, (b, c) = f(x)",
    ...     "if c:\\n    y = f(x)\\nelse:\\n    y = 0.0", "for v in x:\\n    s = s + v")]
    [True, False, True, False]
    """
    if isinstance(stmt, gast.Assign):
        return not any(isinstance(e, (gast.Tuple, gast.List, gast.Starred))
                       for t in stmt.targets if isinstance(t, (gast.Tuple, gast.List))
                       for e in t.elts)
    if isinstance(stmt, gast.If):
        return all(len(b) <= 1 and all(_whole(s) for s in b) for b in (stmt.body, stmt.orelse))
    return not isinstance(stmt, (gast.For, gast.While))


def _stored(stmt) -> list:
    return sorted({n.id for n in trees.walk(stmt) if isinstance(n, gast.Name) and
                   isinstance(n.ctx, gast.Store)})


def _half_written(node, function, in_loop: bool):
    """A statement of the ``try`` statement ``node``'s block that may raise partway and
    a name it assigns that Python then reads with its half-changed value (a handler
    that does not assign it first, a later line; in a loop, the block itself), else
    None. s2sad runs the statements that ran to their end again, not part of one."""
    inside = {id(n) for stmt in node.body for n in trees.walk(stmt)}
    read = {n.id for n in trees.walk(function) if isinstance(n, gast.Name) and
            isinstance(n.ctx, gast.Load) and (in_loop or id(n) not in inside)}
    for stmt in node.body:
        if _whole(stmt):
            continue
        for name in _stored(stmt):
            if name in read and not all(name in _written_first(h.body)
                                        for h in node.handlers):
                return stmt, name
    return None


class TryBlocks(trees.Transformer):
    """Writes a function's ``try`` statements as tests and blocks (see the module).
    ``helper(function)`` names an s2sad helper; ``value_name(value, base)`` names a value
    the generated code reads (the ``try`` block's function)."""

    def __init__(self, source, helper, value_name, namer):
        self.source, self.helper, self.value_name, self.namer = source, helper, value_name, namer
        self.changed = False

    def run(self, tree):
        self.function = tree
        self.params = {a.id for a in tree.args.args + tree.args.kwonlyargs +
                       tree.args.posonlyargs}
        for extra in (tree.args.vararg, tree.args.kwarg):
            if extra is not None:
                self.params.add(extra.id)
        self.locals = self.params | trees.assigned_names(tree)
        self.local_defs = {s.name: s for s in tree.body if isinstance(s, gast.FunctionDef)}
        self.in_loops = {id(n) for loop in trees.walk(tree) if isinstance(
            loop, (gast.For, gast.While)) for n in trees.walk(loop) if isinstance(n, gast.Try)}
        body = []
        self.bound = set(self.params)  # (names given a value on every path so far)
        for stmt in tree.body:
            out = self.visit(stmt) if not isinstance(stmt, gast.FunctionDef) else stmt
            body.extend(out if isinstance(out, list) else [out])
            if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
                self.bound |= {n.id for n in trees.walk(stmt) if isinstance(n, gast.Name)
                               and isinstance(n.ctx, gast.Store)}
            elif isinstance(stmt, gast.FunctionDef):
                self.bound.add(stmt.name)
        tree.body = body
        return tree

    def visit_FunctionDef(self, node):
        return node  # (a helper: written where it is inlined)

    def visit_Try(self, node):
        self.generic_visit(node)  # (a try in a handler)
        found = refusal(node, self.source.resolve, self.function, self.local_defs)
        if found is not None:
            what, hint, where = found
            raise self.source.syntax_error(what, where, hint)
        half = _half_written(node, self.function, id(node) in self.in_loops)
        if half is not None:
            stmt, name = half
            raise self.source.syntax_error(
                f"a `try` block whose statement may raise partway, leaving {name!r} "
                "half-changed where the handler runs", stmt,
                f"Compute into new names there and assign {name!r} in a statement of its "
                f"own after it, or give {name!r} a value first thing in each handler.")
        self.changed = True
        written = _written_first(node.body)  # (the block's own: not passed in)
        reads = [n for n in _names_read(node.body)
                 if (n in self.locals or n in self.source.closure) and n not in written]
        unbound = [n for n in reads if n in self.locals and n not in self.bound]
        if unbound and any(issubclass(UnboundLocalError, _handler_types(h, self.source.resolve))
                           for h in node.handlers):
            raise self.source.syntax_error(
                f"a `try` block reading {unbound[0]!r}, which may have no value yet, with a "
                "handler that catches the NameError Python raises then", node,
                f"Give {unbound[0]!r} a value before the `try` statement, at the function's "
                "top level.")
        steps = len(node.body) > 1  # (Python keeps what the statements before it assigned)
        guard = self._compile(node, reads, steps)
        body_name = self.value_name(guard, "try_body")
        handlers = gast.Tuple([self._types(h) for h in node.handlers], gast.Load())
        caught = self.namer.claim("caught")
        ran = self.namer.claim("ran") if steps else None
        call = gast.Call(gast.Name(self.helper(try_steps if steps else try_caught),
                                   gast.Load(), None, None),
                         [gast.Name(body_name, gast.Load(), None, None), handlers] +
                         [gast.Name(n, gast.Load(), None, None) for n in reads], [])
        target = gast.Name(caught, gast.Store(), None, None)
        if steps:
            target = gast.Tuple([target, gast.Name(ran, gast.Store(), None, None)],
                                gast.Store())
        test = trees.located(gast.Assign([target], call, None), node)
        chain = node.body + node.orelse
        last = node.body[-1]
        if isinstance(last, gast.Return):  # (the else block does not run; finally does,
            if node.finalbody:             # before the function returns)
                kept = self.namer.claim("returned")
                chain = node.body[:-1] + [
                    trees.located(gast.Assign([gast.Name(kept, gast.Store(), None, None)],
                                              last.value, None), last)] + \
                    [trees.clone(s) for s in node.finalbody] + [trees.located(gast.Return(
                        gast.Name(kept, gast.Load(), None, None)), last)]
            else:
                chain = list(node.body)
        branches = []
        for k, handler in enumerate(node.handlers):
            branches.append((k, handler.body))
        orelse = []
        for k, block in reversed(branches):
            if not orelse and k == len(branches) - 1:
                orelse = list(block)
                continue
            cond = gast.Compare(gast.Name(caught, gast.Load(), None, None), [gast.Eq()],
                                [gast.Constant(k, None)])
            orelse = [trees.located(gast.If(cond, list(block), orelse), node)]
        if steps:  # (the statements that ran before the one that raised, again)
            orelse = [trees.located(gast.If(
                gast.Compare(gast.Name(ran, gast.Load(), None, None), [gast.Gt()],
                             [gast.Constant(k, None)]), [trees.clone(stmt)], []), stmt)
                      for k, stmt in enumerate(node.body[:-1])] + orelse
        cond = gast.Compare(gast.Name(caught, gast.Load(), None, None), [gast.Eq()],
                            [gast.Constant(-1, None)])
        choice = trees.located(gast.If(cond, chain, orelse), node)
        return [test, choice] + node.finalbody

    def _types(self, handler):
        if handler.type is None:
            return gast.Name("BaseException", gast.Load(), None, None)
        return handler.type

    def _compile(self, node, reads, steps=False):
        """The ``try`` block as a function of the names it reads, in the function's
        module (its globals: read when it runs), at the user's lines. ``steps``: it
        counts the statements that ran to their end in ``s2sad_ran[0]`` (``try_steps``)."""
        import ast
        body = [trees.clone(s) for s in node.body] + [gast.Pass()]
        check = "s2sad_plain_receiver"  # (not a name of the function's: it reads `reads`)
        wrapped = _check_receivers(body, check, set(reads))
        counter = "s2sad_ran"
        if steps:
            body = [part for k, stmt in enumerate(body) for part in (
                [stmt] if k >= len(node.body) - 1 else [stmt, gast.Assign(
                    [gast.Subscript(gast.Name(counter, gast.Load(), None, None),
                                    gast.Constant(0, None), gast.Store())],
                    gast.Constant(k + 1, None), None)])]
        params = gast.arguments([gast.Name(n, gast.Param(), None, None) for n in reads] + (
            [gast.Name(check, gast.Param(), None, None)] if wrapped else []) + (
            [gast.Name(counter, gast.Param(), None, None)] if steps else []), [],
                                None, [], [], None, [])
        fdef = gast.FunctionDef("try_body", params, body, [], None, None)
        module = gast.Module([fdef], [])
        tree = gast.gast_to_ast(module)
        ast.fix_missing_locations(tree)
        code = compile(tree, str(self.source.filename), "exec")
        inner = next(c for c in code.co_consts if isinstance(c, types.CodeType))
        guard = types.FunctionType(inner, self.source.globals, "try_body")
        if wrapped:  # (a method of an attribute or an item: its receiver checked as it runs)
            from ..runtime.structures import plain_receiver
            guard = functools.partial(guard, **{check: plain_receiver})
        receivers = [n for n in reads if any(
            isinstance(c, gast.Call) and isinstance(c.func, gast.Attribute) and
            isinstance(c.func.value, gast.Name) and c.func.value.id == n
            for stmt in node.body for c in trees.walk(stmt))]
        if not receivers:
            return guard
        from ..runtime.structures import plain_values
        positions = [reads.index(n) for n in receivers]

        def checked(*args, **counter):
            plain_values(tuple(receivers), *(args[i] for i in positions))
            return guard(*args, **counter)
        checked.__name__ = checked.__qualname__ = "try_body"
        return checked
