"""A local function that returns a function, written as one function of all the
arguments.

``mk = lambda a: lambda b: a * b`` (or ``def mk(a): return lambda b: ...``, or a ``def``
returning a one-line ``def``) is called twice to give a value: ``mk(2.0)(x)``, or ``g =
mk(w)`` then ``g(x)``. s2sad inlines a function where it is called, not a function given
as a value, so ``mk`` is written as a function of both argument lists, and each call
of what it returns as one call::

    mk = lambda a: lambda b: a * b          mk = lambda a, b: a * b
    y = mk(2.0)(x)                          y = mk(2.0, x)
    g = mk(w)                               g = lambda b: mk(w, b)
    z = g(x)                                z = g(x)

The same values, in the same order: making the inner function evaluates nothing, and
``g`` reads ``w``, bound once before, as the function ``mk`` returned holds it (another
argument, ``g = mk(x[0])``, is given a name of its own first: ``a_1 = x[0]``). Written
only where every read of ``mk`` is such a call, ``g = mk(w)`` a line of the function's
top level after ``mk``'s, and ``g`` bound once and only called; anything else is left
as it is (refused at its line). A function of the module's own called so
(``compose(np.sin, np.cos)(x)``) is copied to the top of the function first (its names
mean the same there: the same module, none a variable of the function's).

>>> import gast
>>> tree = gast.parse("def f(x):\\n    mk = lambda a: lambda b: a * b\\n"
...                   "    g = mk(x)\\n    return mk(2.0)(x) + g(x)").body[0]
>>> print(gast.unparse(Curried().run(tree)).strip())
def f(x):
    mk = lambda a, b: a * b
    g = lambda b: mk(x, b)
    return mk(2.0, x) + g(x)
"""

from __future__ import annotations

import collections
import types

import gast

from .. import trees
from ..trees import clone, located


def _plain(args) -> bool:
    """Positional parameters only, without defaults."""
    return not (args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg or
                args.defaults)


def _returned(stmt):
    """``(outer parameters, inner parameters, inner body expression)`` of ``mk = lambda a:
    lambda b: e``, ``def mk(a): return lambda b: e`` or ``def mk(a): def inner(b): return
    e; return inner``, else None."""
    if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Lambda) and \
            isinstance(stmt.value.body, gast.Lambda):
        outer, inner = stmt.value, stmt.value.body
        return (outer.args, inner.args, inner.body) if _plain(outer.args) and \
            _plain(inner.args) else None
    if not isinstance(stmt, gast.FunctionDef) or stmt.decorator_list or \
            stmt.returns is not None or not _plain(stmt.args):
        return None
    body = stmt.body
    if len(body) == 1 and isinstance(body[0], gast.Return) and \
            isinstance(body[0].value, gast.Lambda) and _plain(body[0].value.args):
        return stmt.args, body[0].value.args, body[0].value.body
    if len(body) == 2 and isinstance(body[0], gast.FunctionDef) and \
            isinstance(body[1], gast.Return) and isinstance(body[1].value, gast.Name) and \
            body[1].value.id == body[0].name and _plain(body[0].args) and \
            not body[0].decorator_list and len(body[0].body) == 1 and \
            isinstance(body[0].body[0], gast.Return) and body[0].body[0].value is not None:
        return stmt.args, body[0].args, body[0].body[0].value
    return None


_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
           gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)


def _positional(call, count: int) -> bool:
    return len(call.args) == count and not call.keywords and \
        not any(isinstance(a, gast.Starred) for a in call.args)


class Curried:
    """Writes a local function returning a function as one function (see the module)."""

    def __init__(self, namespace: dict | None = None):
        self.namespace = namespace or {}  # the function's module's globals
        self.changed = False

    def run(self, tree):
        for _ in range(3):  # (a function returning one returning one: a round each)
            if not self._round(tree) and not self._module_function(tree):
                break
            self.changed = True
        return tree

    def _module_function(self, tree) -> bool:
        """A function of the function's own module returning a function, called so
        (``compose(f, g)(x)``): its ``def`` (or ``name = lambda``) copied to the top of the
        function, where a round writes it out; False where there is none to copy."""
        import inspect
        import textwrap
        names = {n.id for n in trees.walk(tree) if isinstance(n, gast.Name)}
        bound = {n.id for n in trees.walk(tree) if isinstance(n, gast.Name) and
                 not isinstance(n.ctx, gast.Load)} | {
            n.name for n in trees.walk(tree) if isinstance(n, gast.FunctionDef)}
        nodes = trees.walk(tree)
        called = {n.func.id for n in nodes if isinstance(n, gast.Call) and
                  isinstance(n.func, gast.Name)}
        candidates = {n.func.func.id for n in nodes if isinstance(n, gast.Call) and
                      isinstance(n.func, gast.Call) and isinstance(n.func.func, gast.Name)}
        candidates |= {n.value.func.id for n in nodes if isinstance(n, gast.Assign) and
                       isinstance(n.value, gast.Call) and isinstance(n.value.func, gast.Name)
                       and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name) and
                       n.targets[0].id in called}  # (g = compose(f, h), then g(x))
        for name in sorted((names - bound) & candidates):
            value = self.namespace.get(name)
            if not inspect.isfunction(value) or value.__globals__ is not self.namespace or \
                    value.__closure__ or value.__defaults__ or value.__kwdefaults__:
                continue
            try:
                module = gast.parse(textwrap.dedent(inspect.getsource(value)))
            except (OSError, TypeError, SyntaxError):
                continue
            if len(module.body) != 1 or _returned(module.body[0]) is None:
                continue
            copied = module.body[0]
            if isinstance(copied, gast.Assign) and not (
                    len(copied.targets) == 1 and isinstance(copied.targets[0], gast.Name) and
                    copied.targets[0].id == name) or \
                    isinstance(copied, gast.FunctionDef) and copied.name != name:
                continue
            free = {n.id for n in trees.walk(copied) if isinstance(n, gast.Name) and
                    isinstance(n.ctx, gast.Load)}
            if free & bound:
                continue  # (a name of the module the function has a variable of)
            gast.increment_lineno(module, value.__code__.co_firstlineno - 1)
            trial = trees.clone(tree)
            trial.body.insert(0, copied)
            if self._round(trial):
                tree.body = trial.body
                return True
        return False

    def _round(self, tree) -> bool:
        nodes = trees.walk(tree)
        bound = collections.Counter(n.id for n in nodes if isinstance(n, gast.Name) and
                                    not isinstance(n.ctx, gast.Load))
        for n in nodes:
            if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) and \
                    n is not tree:
                bound[n.name] += 1
        if any(isinstance(n, (gast.Global, gast.Nonlocal)) for n in nodes):
            return False
        params = {a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
        calls = {id(n.func): n for n in nodes if isinstance(n, gast.Call)}
        values = {id(n.value): n for n in nodes if isinstance(n, gast.Assign)}
        for at, stmt in enumerate(tree.body):
            found = _returned(stmt)
            name = stmt.name if isinstance(stmt, gast.FunctionDef) else \
                stmt.targets[0].id if found is not None and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) else None
            if found is None or name is None or bound[name] != 1 or name in params:
                continue
            outer, inner, body = found
            plan = self._plan(tree, at, name, len(outer.args), inner, nodes, calls, values,
                              bound, params)
            if plan is None:
                continue
            self._write(tree, at, stmt, outer, inner, body, plan)
            return True
        return False

    def _plan(self, tree, at, name, count, inner, nodes, calls, values, bound, params):
        """``[(call, how, where)]`` for each read of ``name``: ``("twice", outer call)`` for
        ``mk(a)(b)``, ``("held", assignment)`` for ``g = mk(a)`` (a line of the function's
        top level after ``mk``'s); None where one is anything else."""
        inner_names = {a.id for a in inner.args}
        place = {id(s): k for k, s in enumerate(tree.body)}
        given_at = {}  # a name given a value once, by a top-level line -> its place
        for k, s in enumerate(tree.body):
            if isinstance(s, gast.Assign):
                for target in s.targets:
                    for t in target.elts if isinstance(target, gast.Tuple) else [target]:
                        if isinstance(t, gast.Name):
                            given_at.setdefault(t.id, k)
        plan = []
        for node in nodes:
            if not (isinstance(node, gast.Name) and node.id == name and
                    isinstance(node.ctx, gast.Load)):
                continue
            call = calls.get(id(node))
            if call is None or not _positional(call, count):
                return None
            twice = calls.get(id(call))
            if twice is not None:
                if not _positional(twice, len(inner.args)):
                    return None
                plan.append((call, "twice", twice))
                continue
            stmt = values.get(id(call))
            if stmt is None or len(stmt.targets) != 1 or \
                    not isinstance(stmt.targets[0], gast.Name):
                return None
            held = stmt.targets[0].id
            if bound[held] != 1 or held in params or place.get(id(stmt), -1) <= at:
                return None

            def steady(a) -> bool:  # (the same value at each call of g: read there)
                root = a
                while isinstance(root, gast.Attribute):
                    root = root.value
                if isinstance(a, gast.Attribute) and isinstance(root, gast.Name) and \
                        not bound[root.id] and root.id not in inner_names and \
                        isinstance(self.namespace.get(root.id), types.ModuleType):
                    return True  # (np.sin: a module's function)
                return isinstance(a, gast.Constant) or isinstance(a, gast.Name) and \
                    bound[a.id] == 1 and (a.id in params or given_at.get(
                        a.id, len(tree.body)) < place[id(stmt)]) and a.id not in inner_names
            if any(not steady(a) and any(isinstance(n, _SCOPES) for n in trees.walk(a))
                   for a in call.args):
                return None
            for a in call.args:
                a.steady = steady(a)
            for use in nodes:  # (g only called, with the inner function's arguments)
                if isinstance(use, gast.Name) and use.id == held and \
                        isinstance(use.ctx, gast.Load) and (
                            calls.get(id(use)) is None or
                            not _positional(calls[id(use)], len(inner.args))):
                    return None
            plan.append((call, "held", stmt))
        return plan

    def _write(self, tree, at, stmt, outer, inner, body, plan) -> None:
        taken = {n.id for n in trees.walk(tree) if isinstance(n, gast.Name)} | {
            n.name for n in trees.walk(tree) if isinstance(n, gast.FunctionDef)}
        args = gast.arguments(outer.args + inner.args, [], None, [], [], None, [])
        if isinstance(stmt, gast.FunctionDef):
            tree.body[at] = located(gast.FunctionDef(
                stmt.name, args, [located(gast.Return(body), body)], [], None, None, []), stmt)
        else:
            stmt.value = located(gast.Lambda(args, body), stmt.value)
        for call, how, where in plan:
            if how == "twice":  # mk(a)(b): mk(a, b)
                where.func = call.func
                where.args = call.args + where.args
            else:  # g = mk(a): g = lambda b: mk(a, b), a made first (a_1 = e) if it may
                given = [gast.Name(a.id, gast.Load(), None, None) for a in inner.args]
                args = []  # change (an expression, a name given another value)
                for param, a in zip(outer.args, call.args, strict=True):
                    if isinstance(a, gast.Constant) or a.__dict__.get("steady"):
                        args.append(a)
                        continue
                    fresh, k = param.id, 0
                    while fresh in taken:
                        k += 1
                        fresh = f"{param.id}_{k}"
                    taken.add(fresh)
                    tree.body.insert(tree.body.index(where), located(gast.Assign(
                        [gast.Name(fresh, gast.Store(), None, None)], a, None), a))
                    args.append(located(gast.Name(fresh, gast.Load(), None, None), a))
                where.value = located(gast.Lambda(
                    gast.arguments([clone(a) for a in inner.args], [], None, [], [], None, []),
                    located(gast.Call(call.func, args + given, []), call)), call)
