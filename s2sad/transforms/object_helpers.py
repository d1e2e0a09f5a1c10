"""An object handed to a one-line helper, or handed out by a method, read where it is used.

``helper(o.inner, x)``, the helper a function of the module whose body returns one
expression (``def helper(layer, h): return layer(h) * 2.0``), is that expression with
its parameters read as the arguments: ``o.inner(x) * 2.0``. Each argument is a name, a
constant or an attribute of a name (``o.inner``), read where the helper reads it: the
same object. ``inn = o.get()``, the method returning an object its object holds
(``def get(self): return self.inner``) and nothing else, makes ``inn`` another name for
``o.inner``: each read of ``inn`` reads ``o.inner``. Then :mod:`.local_objects` writes
the objects as variables where they are read (``o.inner(x)``: ``o.inner____call__(x)``).

>>> from s2sad.implementations import operator_neg   # (def operator_neg(a): return -a)
>>> tree = gast.parse("def f(x):\\n    return operator_neg(o.inner)").body[0]
>>> holds = lambda node: gast.unparse(node).strip() == "o.inner"
>>> resolve = {"operator_neg": operator_neg}.get
>>> print(gast.unparse(helpers_inlined(tree, resolve, holds, set())).strip())
def f(x):
    return -o.inner

A helper with a rule (``custom_vjp``), or handing the object on whole to a call
(``def solve(rhs): return odeint(rhs, y0, t)``), stays a call: its rule, or the helper's
own line, is what an error names.
"""

from __future__ import annotations

import builtins
import inspect
import textwrap

import gast

from .. import registry, trees

_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
           gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)


def rooted(node, names) -> bool:
    """Is ``node`` a name of ``names`` or an attribute of one (``o.inner``, ``o.a.b``)?"""
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name) and node.id in names


def _simple(node) -> bool:
    """A name, a constant or an attribute of a name: read again, the same value."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, (gast.Name, gast.Constant))


def one_line(func) -> tuple | None:
    """``(parameters, defaults, expression)`` of ``def f(a, b=c): return e`` (a docstring
    allowed; each default a constant), else None. None too where the fact table knows
    ``f`` (a rule, ``custom_vjp`` included, or facts): the call is its rule's."""
    if not inspect.isfunction(func) or func.__closure__ or \
            func.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE):
        return None
    if registry.lookup(func) is not None or registry.facts(func) is not None:
        return None  # (sampled(m.of, x) of a custom_vjp: its rule refuses m.of at the line)
    try:
        tree = gast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    if not isinstance(tree, gast.FunctionDef) or tree.decorator_list:
        return None
    args = tree.args
    body = tree.body[1:] if len(tree.body) > 1 and isinstance(tree.body[0], gast.Expr) and \
        isinstance(tree.body[0].value, gast.Constant) else tree.body
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or \
            not all(isinstance(d, gast.Constant) for d in args.defaults) or \
            len(body) != 1 or not isinstance(body[0], gast.Return) or body[0].value is None \
            or any(isinstance(n, _SCOPES) for n in trees.walk(body[0].value)):
        return None
    params = [a.id for a in args.args]
    defaults = [None] * (len(params) - len(args.defaults)) + list(args.defaults)
    return params, defaults, body[0].value


def helpers_inlined(fdef, resolve, holds, local: set):
    """``fdef`` with each call ``f(a, ...)`` of a one-line helper (``resolve(name)``: the
    value of a free name, None if none) given an object (``holds(argument)``) written as
    the helper's expression (see the module). ``local``: the function's own names (a
    helper's free name must not be one)."""
    class _Calls(trees.Transformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            made = _inlined(node, resolve, holds, local)
            return made if made is not None else node

        def visit_FunctionDef(self, node):
            if node is fdef:
                self.generic_visit(node)
            return node

        def visit_Lambda(self, node):
            return node

    return _Calls().visit(fdef)


def _inlined(call, resolve, holds, local):
    if not isinstance(call.func, gast.Name) or call.func.id in local or call.keywords or \
            not any(holds(a) for a in call.args) or \
            not all(_simple(a) for a in call.args):
        return None
    func = resolve(call.func.id)
    found = one_line(func) if func is not None else None
    if found is None:
        return None
    params, defaults, value = found
    if len(call.args) > len(params) or \
            any(d is None for d in defaults[len(call.args):]):
        return None  # (an argument missing: Python raises TypeError)
    given = dict(zip(params, list(call.args) + defaults[len(call.args):]))
    names = [n for n in trees.walk(value) if isinstance(n, gast.Name)]
    if any(p not in {n.id for n in names} for p in params) or any(
            n.id not in given and (n.id in local or not isinstance(n.ctx, gast.Load) or
                                   resolve(n.id) is not func.__globals__.get(
                                       n.id, getattr(builtins, n.id, _ABSENT)))
            for n in names):
        return None  # (a parameter not read, or a name meaning something else here)
    if any(isinstance(n, gast.Call) and any(
            isinstance(a, gast.Name) and a.id in given and holds(given[a.id])
            for a in [*n.args, *(k.value for k in n.keywords)])
           for n in trees.walk(value)):
        return None  # (odeint(rhs, y0, t): handed on whole, refused at the helper's line)
    value = trees.clone(value)

    class _Given(trees.Transformer):
        def visit_Name(self, node):
            if node.id in given:
                return trees.clone(given[node.id])
            return node

    value = _Given().visit(value)
    for node in trees.walk(value):
        if isinstance(node, (gast.expr, gast.Slice)):
            gast.copy_location(node, call)  # (at the line that calls it)
    return value


_ABSENT = object()


def handed_out(fdef, methods_of: dict) -> None:
    """``inn = o.get()`` read as ``o.inner`` (see the module): ``methods_of``, each name
    bound once to an object of a plain class -> ``(the class, its methods)``. Only where ``inn`` is bound
    once, and read after its line in its block; ``get`` only returns ``self.inner``, and
    no method but ``__init__`` (nor the function) sets ``inner``."""
    bound = {}
    for node in trees.walk(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            bound[node.id] = bound.get(node.id, 0) + 1
    closed = {n.id for d in trees.walk(fdef) if d is not fdef and
              isinstance(d, (gast.FunctionDef, gast.Lambda)) for n in trees.walk(d)
              if isinstance(n, gast.Name)}

    def rewrite(block: list) -> list:
        out = []
        for at, stmt in enumerate(block):
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and not isinstance(stmt, gast.FunctionDef):
                    setattr(stmt, field, rewrite(inner))
            held = _handing(stmt, methods_of, bound, closed, fdef)
            if held is None:
                out.append(stmt)
                continue
            name = stmt.targets[0].id
            later = {id(n) for s in block[at + 1:] for n in trees.walk(s)}
            if any(isinstance(n, gast.Name) and n.id == name and id(n) not in later and
                   n is not stmt.targets[0] for n in trees.walk(fdef)):
                out.append(stmt)  # (read before its line, or outside its block)
                continue
            for s in block[at + 1:]:
                for node in trees.walk(s):
                    for field, value in list(gast.iter_fields(node)):
                        if isinstance(value, gast.Name) and value.id == name:
                            setattr(node, field, gast.copy_location(trees.clone(held), value))
                        elif isinstance(value, list):
                            value[:] = [gast.copy_location(trees.clone(held), v)
                                        if isinstance(v, gast.Name) and v.id == name else v
                                        for v in value]
        return out

    fdef.body = rewrite(fdef.body)


def _handing(stmt, methods_of, bound, closed, fdef):
    """``o.inner`` for ``inn = o.get()`` as :func:`handed_out` rewrites it, else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call) and
            not stmt.value.args and not stmt.value.keywords and
            isinstance(stmt.value.func, gast.Attribute) and
            isinstance(stmt.value.func.value, gast.Name)):
        return None
    name, owner = stmt.targets[0].id, stmt.value.func.value.id
    cls, methods = methods_of.get(owner, (None, None))
    method = _method(cls, stmt.value.func.attr) if methods is not None else None
    if method is None or bound.get(name) != 1 or bound.get(owner) != 1 or name in closed or \
            len(method.args.args) != 1 or method.args.vararg or method.args.kwarg or \
            method.args.kwonlyargs or method.decorator_list:
        return None
    me = method.args.args[0].id
    body = method.body[1:] if len(method.body) > 1 and \
        isinstance(method.body[0], gast.Expr) and \
        isinstance(method.body[0].value, gast.Constant) else method.body
    value = body[0].value if len(body) == 1 and isinstance(body[0], gast.Return) else None
    if not (isinstance(value, gast.Attribute) and isinstance(value.value, gast.Name) and
            value.value.id == me):
        return None
    attr = value.attr
    for key, other in methods.items():
        if key not in ("__init__", stmt.value.func.attr) and any(
                isinstance(n, gast.Attribute) and n.attr == attr and
                not isinstance(n.ctx, gast.Load) for n in trees.walk(other)):
            return None  # (set again by a method: the object handed out may be another)
    if any(isinstance(n, gast.Attribute) and n.attr == attr and
           not isinstance(n.ctx, gast.Load) for n in trees.walk(fdef)):
        return None
    return gast.Attribute(gast.Name(owner, gast.Load(), None, None), attr, gast.Load())


def _method(cls, name: str):
    """The tree of ``cls``'s function ``name`` (a plain function, no decorator), else None."""
    func = getattr(cls, name, None)
    if not inspect.isfunction(func):
        return None
    try:
        tree = gast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    return tree if isinstance(tree, gast.FunctionDef) and tree.name == name else None
