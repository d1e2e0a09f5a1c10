"""``functools.partial``: a function with some arguments bound, called with the rest.

``g = functools.partial(f, a, axis=0)`` then ``g(x)`` is ``f(a, x, axis=0)``: the bound
arguments are evaluated where the partial is made (as Python does), and a keyword given
at the call replaces a bound one. ``f`` may be the user's function (inlined), a function
with a derivative rule (``np.sum``), or another partial. A partial held in a variable
given once (not in a branch or a loop), passed to a helper, or called where it is made
(``partial(f, a)(x)``) is written out; anything else keeps the refusal of a function
s2sad does not know.
"""

from __future__ import annotations

import functools

import gast

from .. import registry, trees


def _is_partial(normalize, node, static) -> bool:
    if not isinstance(node, gast.Call) or not node.args:
        return False
    try:
        return static(node.func, normalize) is functools.partial
    except (KeyError, TypeError):
        return False


def made(normalize, node, static, holder: str | None = None):
    """(``static``: a name's value, see ``single_assignment._static``)
    ``("partial", (function, bound atoms, bound keyword atoms))`` for ``node``, a call of
    ``functools.partial`` of a function s2sad inlines or has a rule for; else None.
    ``holder``: the name the partial is kept in (``g = partial(f, a)``): it reaches the
    list ``a`` too, so a later ``a[0] = v`` read through ``g()`` is refused."""
    if not _is_partial(normalize, node, static) or \
            isinstance(node.args[0], gast.Starred):
        return None
    from .star_args import spread
    node = spread(normalize, node)  # partial(f, *xs): written out for the length of xs
    function = normalize._function_argument(node.args[0])
    if function is None:
        return None
    shown = f"an argument the partial {holder!r} binds, evaluated where it is made"
    args = [normalize._default_now(a, holder, shown) for a in node.args[1:]]
    keywords = {k.arg: normalize._default_now(k.value, holder, shown) for k in node.keywords}
    return "partial", (function, args, keywords)


def _only_called(normalize, name: str, static, user_code, _seen=()) -> bool:
    """Is ``name`` only called (``g(x)``), passed to a function of the user's (inlined
    with it), or given to a name that is so (``g = f``), not passed to one that is not
    (``odeint(g, ...)``: the partial object itself, which that function's rule judges)?"""
    import types
    tree = normalize.source.tree
    nodes = _scope_nodes(tree)
    calls = [n for n in nodes if isinstance(n, gast.Call)]
    for node in nodes:
        if not (isinstance(node, gast.Name) and node.id == name and
                isinstance(node.ctx, gast.Load)) or _tested_none(tree, node):
            continue
        alias = _given_to(tree, node)
        if alias is not None:  # (g = f: g stands for it, normalize's `g = f`)
            if alias in _seen + (name,) or not _only_called(
                    normalize, alias, static, user_code, _seen + (name,)):
                return False
            continue
        call = next((c for c in calls if c.func is node or node in c.args or
                     any(k.value is node for k in c.keywords)), None)
        if call is None:
            return False
        if call.func is node:
            continue
        if _made_here(normalize, call.func, static):  # s2sad.grad(inner)(x, f): its
            continue  # variant for f (nested_gradients._function_kinds)
        try:
            callee = static(call.func, normalize)
        except (KeyError, TypeError):
            return False
        inlined = isinstance(callee, types.FunctionType) and user_code(callee) and \
            registry.lookup(callee) is None  # (one with a custom rule is called, not inlined)
        if not (inlined or callee is functools.partial and call.args[0] is node):
            return False
    return True


def _scope_nodes(tree) -> list:
    """The nodes of a function's body: its defaults, decorators and annotations are read in
    the enclosing scope, where the def runs (``def g(x, f=f)``: the default ``f`` is the
    module's, not the parameter)."""
    if isinstance(tree, (gast.FunctionDef, gast.AsyncFunctionDef)):
        return [n for stmt in tree.body for n in trees.walk(stmt)]
    return trees.walk(tree)


def _made_here(normalize, func, static) -> bool:
    """Is ``func`` ``s2sad.grad(inner)`` or ``s2sad.value_and_grad(inner, ...)`` made on
    its line (its generated code inlined where it is called)?"""
    if not isinstance(func, gast.Call):
        return False
    try:
        maker = static(func.func, normalize)
    except (KeyError, TypeError):
        return False
    return getattr(maker, "__s2sad_maker__", False) and \
        getattr(maker, "__name__", None) in ("grad", "value_and_grad")


def _given_to(tree, node):
    """The name ``node`` is the whole value of (``g = f``), else None."""
    for n in trees.walk(tree):
        if isinstance(n, gast.Assign) and n.value is node and len(n.targets) == 1 and \
                isinstance(n.targets[0], gast.Name):
            return n.targets[0].id
    return None


def _tested_none(tree, node) -> bool:
    """Is ``node`` the left side of ``... is None`` or ``... is not None`` (decided as the
    function is compiled: a function is not None)?"""
    return any(isinstance(n, gast.Compare) and n.left is node and len(n.ops) == 1 and
               type(n.ops[0]) in (gast.Is, gast.IsNot) and
               isinstance(n.comparators[0], gast.Constant) and n.comparators[0].value is None
               for n in trees.walk(tree))


def held(normalize, stmt, static, user_code) -> bool:
    """``g = functools.partial(f, ...)`` (given once, not in a block): ``g`` noted as that
    partial, its calls written out; True if so."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and not normalize.nesting and
            _is_partial(normalize, stmt.value, static) and  # (first: no walk of the whole
            normalize._given_once(stmt.targets[0].id)):      # function for most lines)
        return False
    entry = made(normalize, stmt.value, static, stmt.targets[0].id)
    if entry is None or not _only_called(normalize, stmt.targets[0].id, static, user_code):
        return False
    normalize.function_args[stmt.targets[0].id] = entry
    return True


def called(normalize, node, static):
    """``node``, a call of a partial (held, passed in, or made there), as the call of its
    function with the bound arguments first; else ``node`` itself."""
    func = node.func
    if isinstance(func, gast.Name) and func.id in normalize.function_args and \
            normalize.function_args[func.id][0] == "partial":
        entry = normalize.function_args[func.id]
    elif _is_partial(normalize, func, static):
        entry = made(normalize, func, static)
        if entry is None:
            return node
    else:
        return node
    function, args, keywords = entry[1]
    for value in list(args) + list(keywords.values()):  # (atoms made where it was made)
        if isinstance(value, gast.Name):
            normalize.locals.add(value.id)
            normalize.current.setdefault(value.id, value.id)
    name = normalize.namer.fresh("partial")
    normalize.function_args[name] = function
    given = {k.arg: k.value for k in node.keywords}
    merged = [gast.keyword(k, gast.Name(v.id, gast.Load(), None, None)
                           if isinstance(v, gast.Name) else v)
              for k, v in keywords.items() if k not in given] + list(node.keywords)
    call = gast.Call(gast.Name(name, gast.Load(), None, None),
                     [gast.Name(a.id, gast.Load(), None, None) if isinstance(a, gast.Name)
                      else a for a in args] + list(node.args), merged)
    return called(normalize, gast.copy_location(call, node), static)  # (a partial of a partial)
