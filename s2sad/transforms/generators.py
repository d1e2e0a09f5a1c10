"""Generators of the user's, written out where they are consumed.

``for w, b in layers(params): h = np.tanh(h @ w + b)``, where ``layers`` is a generator
function of the user's (``yield``), becomes the generator's body with each ``yield e``
replaced by ``w, b = e`` and a copy of the loop's body: the values flow as in Python, in
the same order, and every side effect happens once. The generator's own names are
renamed apart; its ``return``, and the loop's ``break``, end it through a flag (``break``
out of its loops, the rest of a block under ``if not done:``); ``continue`` skips the rest
of that copy; the loop's ``else`` runs when no ``break`` left it. ``yield from it`` is
``for v in it: yield v``. ``list(gen(...))``, ``tuple(...)``, ``sum(...)`` and a list
comprehension over one, which consume it whole, are a list built by such a loop, just
before the statement (where the generator shows nothing, or nothing of the statement
that runs before it calls a function of the user's or print). ``enumerate(gen(...))``
counts beside it; ``zip(ys, gen(...))`` indexes its other arguments (lists, tuples,
ranges, arrays: checked) by a count, and stops where zip stops, the generator run as far
as zip runs it. Any other use of a generator of the user's (``next``, a generator kept in
a variable or passed on) is refused at its line.

For ``pairs`` and ``f`` of one module::

    def pairs(n):                       def f(x):
        for i in range(n):                  t = 0.0
            if i == 2:                      n = 4
                return                      done = False
            yield i, 2 * i                  for i in range(n):
                                                if i == 2:
    def f(x):                                       done = True
        t = 0.0                                     break
        for a, b in pairs(4):    --->           a, b = (i, 2 * i)
            t = t + a * b * x                   t = t + a * b * x
        return t                            return t

(``tests/test_generators.py`` checks this text.) The generator must be defined in the
module of the function that loops over it (its lines are that file's).
"""

from __future__ import annotations

import dataclasses
import inspect
import types

import gast

from .. import trees
from ..errors import DifferentiationError
from ..source import FunctionSource, user_code

_ADVICE = ("Loop over it (`for v in gen(...)`), or make a list of it in a statement of its "
           "own (`items = list(gen(...))`): s2sad writes a generator of yours out where a "
           "`for` loop, list(), tuple(), sum() or a list comprehension consumes it whole.")
_DEPTH = 16  # a generator expanded inside itself so many times: recursion, refused

_UNKNOWN = object()  # (a name that resolves to nothing)


def _name(name: str, ctx=None) -> gast.Name:
    return gast.Name(name, ctx or gast.Load(), None, None)


def _set(name: str, value: bool, where) -> gast.Assign:
    return gast.copy_location(gast.Assign([_name(name, gast.Store())],
                                          gast.Constant(value, None), None), where)


def _assigns(stmts, name: str) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
               for s in stmts for n in trees.walk(s))


def _own_parts(stmt) -> list:
    """The expressions of ``stmt`` itself, not those of the statements it holds."""
    blocks = {id(b) for f in ("body", "orelse", "finalbody", "handlers")
              for b in [getattr(stmt, f, None)] if isinstance(b, list)}
    parts = []
    for field, value in gast.iter_fields(stmt):
        if isinstance(value, list) and id(value) in blocks:
            continue
        parts.extend(v for v in (value if isinstance(value, list) else [value])
                     if isinstance(v, gast.AST))
    return parts


def expand_generators(tree, source: FunctionSource, namer) -> tuple:
    """``(tree, changed)``: ``tree`` (a function; copied if it changes) with every
    generator of the user's written out where it is consumed (the module's text)."""
    expander = _Expander(source, namer)
    if not any(isinstance(n, gast.Call) and expander.generator(n.func) is not None
               for n in trees.start_walk(tree)):
        return tree, False
    from .held_generators import taken  # (g = gen(x); a = next(g): the items taken)
    tree = taken(trees.clone(tree), source.is_builtin, expander.generator)
    tree.body = expander.block(tree.body, ())
    return tree, True


@dataclasses.dataclass
class _Loop:
    """The consuming loop a generator is written out for, and its flags' names."""
    target: gast.AST
    body: list
    done: str
    broke: str | None
    skip: str
    count: str | None = None  # enumerate's count, or zip's
    before: list | None = None  # zip's other arguments before the generator's
    after: list | None = None  # and after it


class _Expander:
    def __init__(self, source: FunctionSource, namer):
        self.source = source
        self.namer = namer
        self.locals = trees.start_names(source.tree)  # (made before anything changes)

    def generator(self, func):
        """The generator function of the user's ``func`` names, or None."""
        if isinstance(func, gast.Name) and func.id in self.locals:
            return None
        path = []
        while isinstance(func, gast.Attribute):
            path.append(func.attr)
            func = func.value
        if not isinstance(func, gast.Name) or func.id in self.locals:
            return None
        try:
            value = self.source.resolve(func.id)
            for attr in reversed(path):
                value = getattr(value, attr)
        except (KeyError, AttributeError):
            return None
        if isinstance(value, types.FunctionType) and inspect.isgeneratorfunction(value) and \
                user_code(value):
            return value
        return None

    def _refuse(self, what: str, node, advice: str = _ADVICE):
        return self.source.error(DifferentiationError, what, node, advice)

    # --- blocks ----------------------------------------------------------------------------

    def block(self, stmts: list, chain: tuple) -> list:
        out = []
        for stmt in stmts:
            out.extend(self.statement(stmt, chain))
        return out

    def statement(self, stmt, chain: tuple) -> list:
        if isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
            return [stmt]  # (a helper defined inside: written out where it is inlined)
        if isinstance(stmt, gast.For) and isinstance(stmt.iter, gast.Call):
            func = self.generator(stmt.iter.func)
            if func is not None:
                if chain.count(func) >= _DEPTH:
                    raise self._refuse(f"a generator that consumes itself ({func.__name__})",
                                       stmt.iter, "Write the recursion as a loop.")
                return self.block(self.expand(stmt, func), chain + (func,))
            counted = self._enumerated(stmt.iter)
            if counted is not None:  # enumerate(gen(x), start): its count beside
                func, call, start = counted
                return self.block(self.expand(stmt, func, call, start), chain + (func,))
            zipped = self._zipped(stmt.iter)
            if zipped is not None:  # zip(ys, gen(x)): the others indexed by a count
                func, position = zipped
                return self.block(self.expand(stmt, func, stmt.iter.args[position],
                                              zipped=position), chain + (func,))
        hoisted = self.hoist(stmt)
        if hoisted is not None:
            return self.block(hoisted, chain)
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, self.block(getattr(stmt, field), chain))
        for part in _own_parts(stmt):
            for node in trees.walk(part):
                if isinstance(node, gast.Call) and self.generator(node.func) is not None:
                    raise self._refuse(
                        f"a generator of yours ({self.generator(node.func).__name__}) used "
                        "other than by a `for` loop, list(), tuple(), sum() or a list "
                        "comprehension", node)
        return [stmt]

    # --- list(gen(...)), sum(gen(...)), [e for v in gen(...)] -------------------------------

    def _consumer(self, node):
        """``(the generator's call, where it is in node)`` if ``node`` consumes a generator
        of the user's whole: list(g), tuple(g), sum(g[, start]), [e for v in g ...]."""
        import builtins
        if isinstance(node, gast.Call) and node.args and not node.keywords and \
                isinstance(node.func, gast.Name) and node.func.id not in self.locals:
            try:
                value = self.source.resolve(node.func.id)
            except KeyError:
                value = None
            first = node.args[0]
            if isinstance(first, gast.Call) and self.generator(first.func) is not None and (
                    value in (builtins.list, builtins.tuple) and len(node.args) == 1 or
                    value is builtins.sum and len(node.args) in (1, 2)):
                return first, (node.args, 0)
        if isinstance(node, (gast.ListComp, gast.GeneratorExp)):
            first = node.generators[0].iter
            consumed = isinstance(node, gast.ListComp) or getattr(node, "consumed", False)
            if consumed and isinstance(first, gast.Call) and \
                    self.generator(first.func) is not None:
                return first, (node.generators[0], "iter")
        return None

    def hoist(self, stmt):
        """``y = f(sum(gen(x)))``: ``items = []; for v in gen(x): items.append(v)`` first,
        then ``y = f(sum(items))``; None if ``stmt`` consumes no generator so."""
        import builtins
        if isinstance(stmt, gast.While):
            return None  # (its test runs again at each trip: refused by statement())
        calls = self._calls_in_order(stmt)
        for node, _ in calls:  # (sum(e for v in gen(x)): the expression consumed whole)
            if node.args and isinstance(node.args[0], gast.GeneratorExp) and \
                    isinstance(node.func, gast.Name) and node.func.id not in self.locals:
                try:
                    value = self.source.resolve(node.func.id)
                except KeyError:
                    continue
                if value in (builtins.list, builtins.tuple, builtins.sum):
                    node.args[0].consumed = True
        for k, (node, conditional) in enumerate(calls + self._comprehensions(stmt)):
            found = self._consumer(node)
            if found is None:
                continue
            call, (holder, key) = found
            if conditional:
                raise self._refuse("a generator of yours consumed in a part of an expression "
                                   "that may not run (after `and`/`or`, in `a if c else b`, "
                                   "or for each item of a comprehension)", call)
            inside = {id(n) for n in trees.walk(node)}
            before = calls[:k] if k < len(calls) else calls  # (a comprehension: it interleaves
            before = before + [(n, True) for n in trees.walk(node)  # with its elements)
                               if isinstance(n, gast.Call) and n is not call and
                               not isinstance(node, gast.Call) and
                               not any(n is m for m in trees.walk(call))]
            quiet = self._quiet(self.generator(call.func))
            for other, _ in before:
                if quiet:
                    break
                if (id(other) not in inside or not isinstance(node, gast.Call)) and \
                        self._effects(other.func):
                    raise self._refuse(
                        "a generator of yours consumed after a call of a function of yours "
                        "(or print) in the same statement", call, "Make the list in a "
                        "statement of its own first: `items = list(gen(...))`.")
            items = self.namer.claim("items")
            item = self.namer.claim("item")
            fill = gast.Expr(gast.Call(gast.Attribute(_name(items), "append", gast.Load()),
                                       [_name(item)], []))
            loop = gast.For(_name(item, gast.Store()), call,
                            [gast.copy_location(fill, stmt)], [], None)
            start = gast.Assign([_name(items, gast.Store())], gast.List([], gast.Load()),
                                None)
            if isinstance(holder, list):
                holder[key] = _name(items)
            else:
                setattr(holder, key, _name(items))
            return [gast.copy_location(start, stmt), gast.copy_location(loop, stmt), stmt]
        return None

    def _calls_in_order(self, stmt) -> list:
        """``(call, conditional)`` for each call of ``stmt``'s own expressions, in the order
        Python finishes them (arguments first, left to right); ``conditional``: in a part
        that may not run, or runs once per item (a comprehension's element)."""
        found = []

        def visit(node, conditional):
            if isinstance(node, gast.Lambda):
                return
            if isinstance(node, gast.IfExp):
                visit(node.test, conditional)
                visit(node.body, True)
                visit(node.orelse, True)
            elif isinstance(node, gast.BoolOp):
                visit(node.values[0], conditional)
                for value in node.values[1:]:
                    visit(value, True)
            elif isinstance(node, (gast.ListComp, gast.GeneratorExp, gast.SetComp,
                                   gast.DictComp)):
                visit(node.generators[0].iter, conditional)
                for child in trees.walk(node):
                    if child is not node.generators[0].iter and isinstance(child, gast.Call) \
                            and not any(child is n for n in trees.walk(
                                node.generators[0].iter)):
                        found.append((child, True))
            else:
                for child in trees.children(node):
                    visit(child, conditional)
            if isinstance(node, gast.Call):
                found.append((node, conditional))
        parts = _own_parts(stmt)
        if isinstance(stmt, gast.Assign):  # (the value runs before the targets' indices)
            parts = [stmt.value] + list(stmt.targets)
        for part in parts:
            visit(part, False)
        return found

    def _comprehensions(self, stmt) -> list:
        """The comprehensions of ``stmt`` (as ``(node, conditional)``) whose first loop
        runs once, where the statement runs: ``[e for v in gen(x)]``."""
        return [(node, False) for part in _own_parts(stmt) for node in trees.walk(part)
                if isinstance(node, (gast.ListComp, gast.GeneratorExp))]

    def _quiet(self, func, seen=()) -> bool:
        """Does the generator ``func`` run no statement whose effect shows (no ``raise``,
        ``assert``, print, or call of a function of the user's but quiet generators)?"""
        tree = FunctionSource.of(func).tree
        for node in trees.walk(tree):
            if isinstance(node, (gast.Raise, gast.Assert)):
                return False
            if isinstance(node, gast.Call):
                inner = self.generator(node.func)
                if inner is not None and inner not in seen and inner is not func:
                    if not self._quiet(inner, seen + (func,)):
                        return False
                elif inner is None and self._effects(node.func):
                    return False
        return True

    def _effects(self, func) -> bool:
        """May a call of ``func`` do something a generator's body could see or print
        before it (a function of the user's, print, an unknown object's method)?"""
        import builtins
        if not self._users_function(func):
            value = self._resolved(func)
            if value is _UNKNOWN:
                return True
            return value is builtins.print or getattr(value, "__module__", "") == "logging"
        return True

    def _users_function(self, func) -> bool:
        if isinstance(func, gast.Name) and func.id in self.locals:
            return True  # (a function held in a variable, a def inside)
        base = func
        while isinstance(base, gast.Attribute):
            base = base.value
        if not isinstance(base, gast.Name):
            return True
        if base.id in self.locals:
            return True  # (a method of an object of the function's, perhaps the user's)
        value = self._resolved(func)
        return value is _UNKNOWN or isinstance(value, types.FunctionType) and user_code(value)

    def _resolved(self, func):
        """What the dotted name ``func`` (``log.info``) gives, from the function's globals;
        ``_UNKNOWN`` where it gives nothing."""
        base = func
        while isinstance(base, gast.Attribute):
            base = base.value
        try:
            value = self.source.resolve(base.id)
            for attr in reversed(self._path(func)):
                value = getattr(value, attr)
        except (KeyError, AttributeError):
            return _UNKNOWN
        return value

    @staticmethod
    def _path(func) -> list:
        path = []
        while isinstance(func, gast.Attribute):
            path.append(func.attr)
            func = func.value
        return path

    # --- for v in gen(...) -------------------------------------------------------------------

    def _enumerated(self, node):
        """``(generator, its call, start)`` for ``enumerate(gen(...)[, start])``, or None."""
        import builtins
        if not (isinstance(node.func, gast.Name) and node.func.id not in self.locals and
                node.args and isinstance(node.args[0], gast.Call)):
            return None
        func = self.generator(node.args[0].func)
        try:
            enumerates = self.source.resolve(node.func.id) is builtins.enumerate
        except KeyError:
            return None
        starts = node.args[1:] + [k.value for k in node.keywords if k.arg == "start"]
        if func is None or not enumerates or len(starts) > 1 or \
                any(k.arg != "start" for k in node.keywords):
            return None
        return func, node.args[0], starts[0] if starts else gast.Constant(0, None)

    def _zipped(self, node):
        """``(generator, its position)`` for ``zip(..., gen(...), ...)`` whose other
        arguments are no generator of the user's, or None."""
        import builtins
        if not isinstance(node.func, gast.Name) or node.func.id in self.locals or \
                node.keywords or any(isinstance(a, gast.Starred) for a in node.args):
            return None
        try:
            if self.source.resolve(node.func.id) is not builtins.zip:
                return None
        except KeyError:
            return None
        found = [(self.generator(a.func), k) for k, a in enumerate(node.args)
                 if isinstance(a, gast.Call) and self.generator(a.func) is not None]
        return found[0] if len(found) == 1 else None

    def _zip_prologue(self, loop, position, bound, state) -> list:
        """zip's other arguments named, in order around the generator's (``bound``), each
        checked to be a list, tuple, range or array (indexed by the count as zip would
        iterate it); the count at 0."""
        import numpy
        out, state.before, state.after = [], [], []
        numpy_name = next((n for n, v in sorted(self.source.globals.items())
                           if v is numpy and n not in self.locals), None)
        kinds = [_name(k) for k in ("list", "tuple", "range")]
        if numpy_name is not None:
            kinds.append(gast.Attribute(_name(numpy_name), "ndarray", gast.Load()))
        for k, arg in enumerate(loop.iter.args):
            if k == position:
                out.extend(bound)
                continue
            name = self.namer.claim("zipped")
            (state.before if k < position else state.after).append(name)
            out.append(gast.copy_location(gast.Assign([_name(name, gast.Store())], arg, None),
                                          arg))
        for name in state.before + state.after:
            test = gast.UnaryOp(gast.Not(), gast.Call(_name("isinstance"), [
                _name(name), gast.Tuple([trees.clone(k) for k in kinds], gast.Load())], []))
            error = gast.Call(_name("TypeError"), [gast.Constant(
                "s2sad indexes the other arguments of zip() beside a generator: a list, "
                "tuple, range or NumPy array, not another iterable", None)], [])
            out.append(gast.copy_location(gast.If(test, [gast.Raise(error, None)], []),
                                          loop.iter))
        state.count = self.namer.claim("count")
        out.append(gast.copy_location(gast.Assign([_name(state.count, gast.Store())],
                                                  gast.Constant(0, None), None), loop.iter))
        return out

    def _exhausted(self, names, state):
        """``count >= len(a) or count >= len(b)``: one of zip's others has no item left."""
        tests = [gast.Compare(_name(state.count), [gast.GtE()],
                              [gast.Call(_name("len"), [_name(n)], [])]) for n in names]
        return tests[0] if len(tests) == 1 else gast.BoolOp(gast.Or(), tests)

    def _stop(self, names, in_loop, state, where) -> list:
        """``if count >= len(a): done = True; break``: zip ends, its loop's else runs."""
        if not names:
            return []
        stop = [_set(state.done, True, where)]
        if in_loop:
            stop.append(gast.copy_location(gast.Break(), where))
        return [gast.copy_location(gast.If(self._exhausted(names, state), stop, []), where)]

    def expand(self, loop, func, call=None, start=None, zipped=None) -> list:
        """The statements that ``loop``, a ``for`` over ``func(...)`` (``call``; with
        ``start``: ``enumerate(call, start)``), runs: the arguments bound to the
        generator's parameters, then its body with the loop's at each yield."""
        call = call or loop.iter
        gen = FunctionSource.of(func)
        if gen.filename != self.source.filename or gen.globals is not self.source.globals:
            raise self._refuse(f"a generator of another module ({func.__name__}), looped over",
                               call, "Define the generator in the module of the function "
                               "that loops over it, or build a list there and pass it in.")
        from .validate import Validate
        Validate(gen, nested=True, generator=True).run()
        tree = gen.tree
        params = [p.id for p in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs]
        own = trees.assigned_names(tree)
        for node in trees.walk(tree):  # its free names: the same objects here
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                    node.id not in own:
                same = node.id not in self.locals
                try:
                    same = same and self.source.resolve(node.id) is gen.resolve(node.id)
                except KeyError:
                    same = False
                if not same:
                    raise self._refuse(
                        f"a generator ({func.__name__}) whose name {node.id!r} means another "
                        "thing in the function that loops over it", call,
                        f"Give the function's variable {node.id!r} another name.")
        self.namer.taken.update(n.id for n in trees.walk(tree)  # (its free names kept)
                                if isinstance(n, gast.Name) and n.id not in own)
        renamed = {name: self.namer.claim(name) for name in sorted(own)}
        for node in trees.walk(tree):
            if isinstance(node, gast.Name) and node.id in renamed:
                node.id = renamed[node.id]
        out = self._bind(call, func, params, renamed)
        done = self.namer.claim("done")
        broke = self.namer.claim("broke") if loop.orelse else None
        state = _Loop(loop.target, loop.body, done, broke, self.namer.claim("skip"))
        if zipped is not None:
            out = self._zip_prologue(loop, zipped, out, state)
        if start is not None:
            state.count = self.namer.claim("count")
            out.append(gast.copy_location(gast.Assign([_name(state.count, gast.Store())],
                                                      start, None), loop.iter))
        body = self._generator_block(tree.body, False, state)
        if state.before:  # (zip tries them before the generator: none left, it never runs)
            body = [gast.copy_location(gast.If(gast.UnaryOp(gast.Not(), self._exhausted(
                state.before, state)), body or [gast.Pass()], []), loop)]
        if _assigns(body, done):
            out.append(_set(done, False, loop))
        if broke is not None:
            out.append(_set(broke, False, loop))
        out.extend(body)
        if loop.orelse:
            out.append(gast.copy_location(
                gast.If(gast.UnaryOp(gast.Not(), _name(broke)), loop.orelse, []), loop))
        for stmt in out:  # (what s2sad wrote: at the loop's line)
            for node in trees.walk(stmt):
                if isinstance(node, (gast.stmt, gast.expr)) and \
                        getattr(node, "lineno", None) is None:
                    gast.copy_location(node, loop.iter)
        return out

    def _bind(self, call, func, names, renamed) -> list:
        """``n = 4``: each parameter given its argument, in the order the call gives them,
        then the defaults (numbers and strings: the values the ``def`` kept)."""
        n_pos = func.__code__.co_argcount
        mismatch = self.source.error(DifferentiationError, "this call does not match the "
                                     f"parameters of {func.__name__}({', '.join(names)})",
                                     call)
        if any(isinstance(a, gast.Starred) for a in call.args) or len(call.args) > n_pos:
            raise mismatch
        given = dict(zip(names, call.args))
        for keyword in call.keywords:
            if keyword.arg not in names or keyword.arg in given:
                raise mismatch
            given[keyword.arg] = keyword.value
        defaults = dict(zip(names[n_pos - len(func.__defaults__ or ()):n_pos],
                            func.__defaults__ or ()))
        defaults.update(func.__kwdefaults__ or {})
        for name in names:
            if name in given:
                continue
            if name not in defaults:
                raise self.source.error(DifferentiationError, f"{func.__name__}() is missing "
                                        f"the argument {name!r}", call)
            value = defaults[name]
            if not isinstance(value, (bool, int, float, str, type(None))):
                raise self._refuse(f"a generator's default {name}={value!r}, not a number or "
                                   "a string", call, f"Pass {name} in the call.")
            given[name] = gast.Constant(value, None)
        return [gast.copy_location(gast.Assign([_name(renamed[name], gast.Store())], value,
                                               None), call) for name, value in given.items()]

    def _generator_block(self, block: list, in_loop: bool, state: _Loop) -> list:
        out = []
        for i, stmt in enumerate(block):
            if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.YieldFrom):
                item = self.namer.claim("item")
                stmt = gast.copy_location(gast.For(
                    _name(item, gast.Store()), stmt.value.value,
                    [gast.copy_location(gast.Expr(gast.Yield(_name(item))), stmt)], [], None),
                    stmt)
            if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Yield):
                value = stmt.value.value or gast.Constant(None, None)
                counted, checks, after = [], [], []
                if state.before is not None:  # zip: the others' items at the count
                    items = [gast.Subscript(_name(n), _name(state.count), gast.Load())
                             for n in state.before] + [value] + [
                        gast.Subscript(_name(n), _name(state.count), gast.Load())
                        for n in state.after]
                    value = gast.Tuple(items, gast.Load())
                    checks = self._stop(state.after, in_loop, state, stmt)
                elif state.count is not None:  # (enumerate's count, then one more)
                    value = gast.Tuple([_name(state.count), value], gast.Load())
                if state.count is not None:
                    counted = [gast.copy_location(gast.Assign(
                        [_name(state.count, gast.Store())], gast.BinOp(
                            _name(state.count), gast.Add(), gast.Constant(1, None)), None),
                        stmt)]
                if state.before:  # (the next round tries them before the generator)
                    after = self._stop(state.before, in_loop, state, stmt)
                assign = gast.copy_location(gast.Assign([trees.clone(state.target)], value,
                                                        None), stmt)
                copy = [assign] + counted + self._copy(in_loop, state)
                if checks and not in_loop:  # (zip ended: not the loop's body)
                    copy = [gast.If(gast.UnaryOp(gast.Not(), _name(state.done)), copy, [])]
                stmts = checks + copy + after
                if after and not in_loop:  # (a break of the body: not tested again)
                    stmts = checks + copy + [gast.If(gast.UnaryOp(gast.Not(), _name(
                        state.done)), after, [])]
            elif isinstance(stmt, gast.Return):
                stmts = [] if stmt.value is None or isinstance(
                    stmt.value, (gast.Constant, gast.Name)) else [
                    gast.copy_location(gast.Expr(stmt.value), stmt)]
                stmts.append(_set(state.done, True, stmt))
                if in_loop:
                    stmts.append(gast.copy_location(gast.Break(), stmt))
                return out + stmts  # (what follows never runs)
            elif isinstance(stmt, gast.If):
                stmt.body = self._generator_block(stmt.body, in_loop, state) or [gast.Pass()]
                stmt.orelse = self._generator_block(stmt.orelse, in_loop, state)
                stmts = [stmt]
            elif isinstance(stmt, (gast.For, gast.While)):
                stmt.body = self._generator_block(stmt.body, True, state) or [gast.Pass()]
                stmt.orelse = self._generator_block(stmt.orelse, in_loop, state)
                stmts = [stmt]
                if in_loop and _assigns(stmt.body, state.done):
                    stmts.append(gast.copy_location(
                        gast.If(_name(state.done), [gast.Break()], []), stmt))
            else:
                stmts = [stmt]
            out.extend(stmts)
            rest = block[i + 1:]
            if rest and not in_loop and _assigns(stmts, state.done):
                guard = gast.If(gast.UnaryOp(gast.Not(), _name(state.done)),
                                self._generator_block(rest, in_loop, state) or [gast.Pass()], [])
                out.append(gast.copy_location(guard, rest[0]))
                return out
        return out

    def _copy(self, in_loop: bool, state: _Loop) -> list:
        """A copy of the loop's body for one yield: its ``break`` ends the generator, its
        ``continue`` the copy."""
        body = self._copy_block(trees.clone(state.body), in_loop, state)
        if _assigns(body, state.skip):
            body.insert(0, _set(state.skip, False, state.body[0]))
        return body

    def _copy_block(self, block: list, in_loop: bool, state: _Loop) -> list:
        out = []
        for i, stmt in enumerate(block):
            if isinstance(stmt, gast.Break):
                out.append(_set(state.done, True, stmt))
                if state.broke is not None:
                    out.append(_set(state.broke, True, stmt))
                out.append(gast.copy_location(gast.Break(), stmt) if in_loop else
                           _set(state.skip, True, stmt))
                return out
            if isinstance(stmt, gast.Continue):
                out.append(_set(state.skip, True, stmt))
                return out
            if isinstance(stmt, gast.If):
                stmt.body = self._copy_block(stmt.body, in_loop, state) or [gast.Pass()]
                stmt.orelse = self._copy_block(stmt.orelse, in_loop, state)
            out.append(stmt)
            rest = block[i + 1:]
            if rest and _assigns([stmt], state.skip):
                guard = gast.If(gast.UnaryOp(gast.Not(), _name(state.skip)),
                                self._copy_block(rest, in_loop, state) or [gast.Pass()], [])
                out.append(gast.copy_location(guard, rest[0]))
                return out
        return out
