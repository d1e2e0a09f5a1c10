"""A derivative made inside the function differentiated: ``s2sad.grad(inner)(x)``.

``inner``, a nested ``def`` or a ``lambda``, reads the enclosing function's variables
as it runs. It is lifted out: each variable of the enclosing function it reads becomes
a parameter after its own (``def inner(y, w)``), a module-level function s2sad makes
the derivative of as if made at module level. That derivative's generated code is
inlined where the call is, given the variables' values now, as Python's closure would
read them. Differentiated again, the code carries the derivative through those values
too: ``d/dx grad(lambda y: sum(y * x))(x)`` counts both ``y`` and the ``x`` it read.

Each maker is written with a generated form, as the API computes it:

* ``grad``, ``value_and_grad``: the gradient's code, called.
* ``hvp(inner)(x, v)``: ``jvp(grad(inner))``'s code, its tangent for ``v``.
* ``hessian(inner)(x)``, ``jacobian(inner)(x)``: that code (of ``inner`` itself for the
  Jacobian) once a column, for each row of ``np.eye(np.size(x))``, stacked as NumPy
  code the compiler differentiates in its turn.
* ``value, push = jvp(inner)(x)`` (``vjp``: ``value, pullback``): ``value`` is ``inner``
  called; ``push(v)`` the generated code called with ``x`` as it was then, and ``v``.

A derivative held in a variable given once and only called (``g = s2sad.grad(inner)``)
is written out at each call ``g(x)``. ``s2sad.grad(g)(x)`` of a module-level ``g`` is
made so too (``g`` itself, nothing to lift). Refused at the line: ``checkpoint``, options
not written as constants, a ``jvp`` not unpacked where it is called, a derivative or a
pushforward passed on or kept in a branch or a loop, and an inner function that has
default values, star parameters, or reads a function or an object of the enclosing one.
"""

from __future__ import annotations

import types

import gast

from .. import hooks, registry
from ..codegen import unparse
from ..errors import DifferentiationError
from ..source import user_code
from ..trees import assigned_names, clone, walk

_MADE_INLINE = ("grad", "value_and_grad")  # the makers whose gradients are inlined


def _option(node, normalize, static):
    """The constant a maker's option is written as (``wrt=1``, ``wrt=(0, 1)``,
    ``has_aux=True``), or raise KeyError."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, (gast.Tuple, gast.List)):
        return tuple(_option(e, normalize, static) for e in node.elts)
    value = static(node, normalize)  # (KeyError for a local value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    raise KeyError(unparse(node))


def _enclosing(normalize, name: str) -> bool:
    """Is ``name`` a variable of the function ``normalize`` normalizes (or of one it is
    nested in), as a nested function would read it?"""
    scope = normalize
    while scope is not None:
        if name in scope.locals or name in scope.current or name in scope.source.closure:
            return True
        if not scope.lexical:
            return False
        scope = scope.parent
    return False


def _lifted(normalize, node, fdef, shown: str):
    """``(the lifted function, the enclosing variables it reads)`` of ``fdef``."""
    source = normalize.source
    args = fdef.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or \
            getattr(fdef, "defaults_at_def", None):
        raise source.syntax_error(
            f"a derivative made inside the function differentiated ({shown}(...)) of a "
            "function with default values or star parameters", node,
            "Give the nested function plain parameters (def inner(y): ...), or define it "
            "at module level.")
    own = assigned_names(fdef)
    read = []
    for n in walk(fdef):
        if not isinstance(n, gast.Name) or not isinstance(n.ctx, gast.Load) or \
                n.id in own or n.id in read:
            continue
        if n.id in normalize.function_args or n.id in normalize.local_functions or \
                n.id in normalize.current and normalize.current[n.id] in normalize.root.objects:
            raise source.syntax_error(
                f"a derivative made inside the function differentiated ({shown}(...)) of a "
                f"function that reads {n.id!r}, a function or object of the enclosing one",
                node, "Pass what the nested function needs as arguments (numbers and "
                "arrays), or define the functions it calls at module level.")
        if _enclosing(normalize, n.id):
            read.append(n.id)
    params = [gast.Name(p, gast.Param(), None, None) for p in read]
    lifted_args = gast.arguments(list(args.posonlyargs), list(args.args) + params, None, [],
                                 [], None, [])
    tree = gast.FunctionDef(fdef.name, lifted_args, clone(fdef.body), [], None, None)
    gast.copy_location(tree, fdef)
    tree.end_lineno = getattr(fdef, "end_lineno", None)
    return source.lifted_function(tree), read


def _derivative(normalize, node, make, static):
    """``(maker's name, the derivative, the enclosing variables it reads)`` of ``make``
    (``s2sad.hvp(inner, wrt=1)``), made of the lifted function once; None where ``make``
    is not a maker's call s2sad writes out (``node``: the call, where errors are said)."""
    made_here = normalize.root.__dict__.setdefault("_derivatives_made", {})
    if id(make) in made_here:
        return made_here[id(make)][1]
    if not isinstance(make, gast.Call) or not make.args:
        return None
    try:
        maker = static(make.func, normalize)
    except KeyError:
        return None
    if not getattr(maker, "__s2sad_maker__", False):
        return None
    shown = unparse(make.func)
    name = getattr(maker, "__name__", None)
    if name not in _MADE_INLINE + _WRITTEN_OUT or \
            any(isinstance(a, gast.Starred) for a in make.args) or \
            any(k.arg is None for k in make.keywords):
        return None  # (refused at the line: _refuse_derivative_made_here)
    try:
        options = [_option(a, normalize, static) for a in make.args[1:]]
        keywords = {k.arg: _option(k.value, normalize, static) for k in make.keywords}
    except KeyError:
        raise normalize.source.syntax_error(
            f"a derivative made inside the function differentiated ({shown}(...)) with "
            "options that are not constants", make,
            "Write wrt=, has_aux= and the other options as constants (wrt=0, wrt=(0, 1)).") \
            from None
    if name in _WRITTEN_OUT and keywords.get("mode", "fwd") != "fwd" and name == "jacobian":
        keywords.pop("mode")  # (the same numbers, column by column)
    target, read = make.args[0], []
    if isinstance(target, gast.Lambda):
        ret = gast.copy_location(gast.Return(target.body), target)
        fdef = gast.copy_location(gast.FunctionDef("lambda_", target.args, [ret], [], None,
                                                   None), target)
        fdef.end_lineno = getattr(target, "end_lineno", None)
        function, read = _lifted(normalize, node, fdef, shown)
    elif isinstance(target, gast.Name) and target.id in normalize.local_functions and \
            target.id not in normalize.current:
        function, read = _lifted(normalize, node, normalize.local_functions[target.id], shown)
    else:
        try:
            function = static(target, normalize)
        except KeyError:
            return None
        if not isinstance(function, types.FunctionType) or not user_code(function):
            return None
    try:
        if name in ("hvp", "hessian"):  # forward mode over the gradient, as the API does
            wrt = keywords.pop("wrt", options.pop(0) if options else 0)
            if isinstance(wrt, tuple):
                raise TypeError(f"{name} takes one argument (wrt=index or name)")
            gradient = hooks.make_jvp(hooks.make_grad(function, wrt, **keywords), wrt,
                                      **keywords)
        elif name == "jacobian":
            keywords.pop("mode", None)
            gradient = hooks.make_jvp(function, *options, **keywords)
        else:
            gradient = maker(function, *options, **keywords)
    except (TypeError, ValueError) as exc:  # (wrt= naming no parameter...)
        raise normalize.source.error(DifferentiationError, str(exc), make) from None
    if name in ("jacobian", "hessian") and gradient._wrt_tuple:
        raise normalize.source.syntax_error(
            f"a {name} made inside the function differentiated ({shown}(...)) with respect "
            "to several arguments", make, f"Make one {name} for each argument (wrt=0, then "
            "wrt=1).")
    made_here[id(make)] = (make, (name, gradient, read))  # (the node kept: its id too)
    return made_here[id(make)][1]


_WRITTEN_OUT = ("vjp", "jvp", "hvp", "hessian", "jacobian")  # written with the generated


def _function_kinds(normalize, args, gradient, static):
    """The argument descriptions of ``gradient`` called with ``args``, one at least a
    function given to the function differentiated (``s2sad.grad(inner)(x, act)``, ``act``
    np.tanh or the user's def), the others its parameters never given another value:
    the variant built for that function; else None (the general one)."""
    import types
    root = normalize.root
    params = hooks.gradient_parameters(gradient)
    if params is None or len(args) != len(params):
        return None
    from ..descriptors import function_value
    key, functions = [], False
    for arg in args:
        if isinstance(arg, gast.Attribute) or isinstance(arg, gast.Name) and \
                arg.id not in normalize.function_args and arg.id not in normalize.locals:
            try:  # (np.tanh, a function of the module's, written there)
                value = static(arg, normalize)
            except KeyError:
                return None
            if not function_value(value) or registry.lookup(value) is None and not (
                    isinstance(value, types.FunctionType) and user_code(value)):
                return None
            key.append(("function", value))
            functions = True
            continue
        if not isinstance(arg, gast.Name):
            return None
        entry = normalize.function_args.get(arg.id)
        if entry is not None:
            how, what = entry
            if how == "call" and isinstance(what, gast.Name) and \
                    what.id in root.__dict__.get("_fixed", {}):
                value = root._fixed[what.id]
            elif how == "inline" and isinstance(what[0], types.FunctionType) and \
                    what[1] is None:
                value = what[0]
            else:
                return None
            key.append(("function", value))
            functions = True
            continue
        name = normalize.name(arg)
        if not isinstance(name, gast.Name) or name.id not in root.descriptors or \
                root.current.get(name.id) != name.id:
            return None
        key.append(root.descriptors[name.id])
    return tuple(key) if functions else None


def _generated(normalize, node, gradient, args=(), static=None):
    """A fresh name the generated code of ``gradient`` is inlined at the calls of (called
    with ``args``: a function among them gets the variant for it, ``_function_kinds``)."""
    try:
        generated, live = hooks.inline_gradient(gradient, _function_kinds(
            normalize, args, gradient, static) if args else None)
    except ValueError as exc:  # (a function that calls its own gradient)
        raise normalize.source.error(DifferentiationError, str(exc), node) from None
    normalize.root.__dict__.setdefault("_generated_live", {})[generated] = live
    name = normalize.namer.fresh("derivative")
    normalize.function_args[name] = ("inline", (generated, None, None))
    return gast.copy_location(gast.Name(name, gast.Load(), None, None), node)


def _again(normalize, atom):
    """``atom``, made already (a temporary), as an expression normalized again."""
    if not isinstance(atom, gast.Name):
        return atom
    normalize.locals.add(atom.id)
    normalize.current.setdefault(atom.id, atom.id)
    return gast.Name(atom.id, gast.Load(), None, None)


def _loaded(node, names):
    return [gast.copy_location(gast.Name(n, gast.Load(), None, None), node) for n in names]


def _call(node, func, args, index=None):
    call = gast.copy_location(gast.Call(func, list(args), []), node)
    if index is None:
        return call
    return gast.copy_location(gast.Subscript(call, gast.Constant(index, None), gast.Load()),
                              node)


def _columns(normalize, node, generated, args, read, wrt_index):
    """``f``'s Jacobian, one pushforward a column: ``out.shape + x.shape`` (``x``, the
    argument at ``wrt_index``), written as NumPy code the compiler differentiates again."""
    np_ = gast.Name(normalize.root.numpy_name, gast.Load(), None, None)

    def np_call(fname, *call_args):
        return _call(node, gast.Attribute(clone(np_), fname, gast.Load()), call_args)
    x = _again(normalize, normalize.atom(args[wrt_index]))
    e = normalize.namer.fresh("basis")
    shape_x = np_call("shape", clone(x))
    column = _call(node, generated, list(args[:wrt_index]) + [clone(x)] +
                   list(args[wrt_index + 1:]) + list(read) + [
                       gast.Call(gast.Attribute(gast.Name(e, gast.Load(), None, None),
                                                "reshape", gast.Load()), [shape_x], [])], 1)
    comp = gast.ListComp(column, [gast.comprehension(
        gast.Name(e, gast.Store(), None, None),
        np_call("eye", np_call("size", clone(x))), [], 0)])
    stacked = _again(normalize, normalize.atom(np_call("stack", gast.copy_location(comp,
                                                                                   node))))
    moved = np_call("moveaxis", stacked, gast.Constant(0, None), gast.Constant(-1, None))
    shape = gast.BinOp(gast.Subscript(gast.Attribute(clone(stacked), "shape", gast.Load()),
                                      gast.Slice(gast.Constant(1, None), None, None),
                                      gast.Load()), gast.Add(), np_call("shape", clone(x)))
    return np_call("reshape", moved, gast.copy_location(shape, node))


def held_derivative(normalize, stmt, static) -> bool:
    """``g = s2sad.grad(inner)`` (given once, not in a block, only called), or ``value,
    push = s2sad.jvp(inner)(x)`` (``s2sad.vjp``: ``value, pullback``): ``g``, ``push``
    noted, their calls written out (see :func:`gradient_made_here`); True if so."""
    if not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1 or \
            not isinstance(stmt.value, gast.Call):
        return False
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, gast.Name):
        if normalize.nesting or _derivative(normalize, stmt, value, static) is None or \
                not normalize._given_once(target.id) or \
                not _only_called(normalize, target.id):  # (walks last: most lines stop first)
            return False
        normalize.function_args[target.id] = ("derivative", (value, None))
        return True
    if not (isinstance(target, (gast.Tuple, gast.List)) and len(target.elts) == 2 and
            all(isinstance(e, gast.Name) for e in target.elts)):
        return False
    make = _made_by(normalize, value.func)
    made = _derivative(normalize, value, make, static) if make is not None else None
    if made is None or made[0] not in ("vjp", "jvp"):
        return False
    name, gradient, read = made
    shown = unparse(make.func)
    closure = target.elts[1].id
    if normalize.nesting or not normalize._given_once(closure) or \
            not _only_called(normalize, closure) or value.keywords or \
            any(isinstance(a, gast.Starred) for a in value.args):
        raise normalize.source.syntax_error(
            f"the {'pullback' if name == 'vjp' else 'pushforward'} of a {name} made inside "
            f"the function differentiated ({shown}(...)) kept in a branch or a loop, passed "
            "on, or given another value", value,
            f"Unpack it once (value, {closure} = {shown}(f)(x), not in a branch or a loop) "
            f"and only call {closure}(...) after.")
    changed = _changed_later(normalize, [n.id for a in value.args for n in walk(a)
                                         if isinstance(n, gast.Name)], read, stmt, closure)
    if changed:
        raise normalize.source.syntax_error(
            f"the {'pullback' if name == 'vjp' else 'pushforward'} of a {name} made inside "
            f"the function differentiated ({shown}(...)) reads {changed}, which the function "
            "changes: Python's closure would read it as it is when "
            f"{closure}(...) runs, the generated code as it was at {shown}(...)", value,
            f"Give {changed} its value once, before {shown}(...), and leave it unchanged "
            "(a new value under a new name).")
    bound = [normalize._default_now(a) for a in value.args] + \
        [normalize._default_now(n) for n in _loaded(value, read)]
    function = normalize.namer.fresh("function")
    normalize.function_args[function] = ("inline", (gradient.func, None, None))
    normalize.function_args[closure] = ("derivative", (gradient, bound))
    assign = gast.Assign([target.elts[0]], _call(value, gast.Name(function, gast.Load(), None,
                                                                   None),
                                                 [_again(normalize, a) for a in bound]))
    normalize.statement(gast.copy_location(assign, stmt))
    return True


def _changed_later(normalize, point, read, made=None, closure=None) -> str | None:
    """The first name a pushforward made inside would read other than it was when made:
    a variable of its closure (``read``) the function gives another value, or a name of
    its point (``point``) changed in place (``a[0] = v``, ``a.w = v``, ``a += v``); else
    None. The generated code reads them as they were, Python's closure as they are.

    Where ``made`` (the line that makes it) and every call of ``closure`` are lines of the
    function's body, only the lines from just after ``made`` to the last call count: a
    change before it is read alike by both, one after the last call by neither.
    """
    body = normalize.source.tree.body
    lines = body
    at = next((i for i, line in enumerate(body) if line is made), None)
    if at is not None and closure is not None:
        calls = [i for i, line in enumerate(body) if any(
            isinstance(n, gast.Name) and n.id == closure and isinstance(n.ctx, gast.Load)
            for n in walk(line))]
        everywhere = sum(isinstance(n, gast.Name) and n.id == closure and
                         isinstance(n.ctx, gast.Load) for n in walk(normalize.source.tree))
        found = sum(isinstance(n, gast.Name) and n.id == closure and
                    isinstance(n.ctx, gast.Load) for i in calls for n in walk(body[i]))
        if found == everywhere:  # (each call on a line of the body: the lines between)
            lines = body[at + 1:max(calls, default=at) + 1]
            return _changed_in(lines, point, read, set())
    args = normalize.source.tree.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs +
              [args.vararg, args.kwarg] if isinstance(a, gast.Name)}
    return _changed_in([normalize.source.tree], point, read, params, once=True)


def _changed_in(lines, point, read, params, once=False) -> str | None:
    """The first of ``point`` changed in place in ``lines``, or of ``read`` changed there at
    all; ``once``: a name of ``read`` not in ``params`` may be given its first value."""
    stores: dict[str, int] = {}
    in_place: set[str] = set()
    for n in (n for line in lines for n in walk(line)):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, (gast.Subscript, gast.Attribute)) and \
                isinstance(n.ctx, (gast.Store, gast.Del)):
            base = n
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
            if isinstance(base, gast.Name):
                in_place.add(base.id)
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            in_place.add(n.target.id)
    return next((n for n in point if n in in_place), None) or \
        next((n for n in read if n in in_place or
              stores.get(n, 0) > (1 if once and n not in params else 0)), None)


def _made_by(normalize, func):
    """The maker's call a call's function is (``s2sad.jvp(inner)``), or that a held
    derivative was made by (``g``, ``g = s2sad.grad(inner)``); else None."""
    if isinstance(func, gast.Name):
        entry = normalize.function_args.get(func.id)
        if entry is not None and entry[0] == "derivative" and entry[1][1] is None:
            return entry[1][0]
        return None
    return func if isinstance(func, gast.Call) else None


def _only_called(normalize, name: str) -> bool:
    """Is ``name`` only ever called (``g(x)``) in the function?"""
    called = {id(n.func) for n in walk(normalize.source.tree) if isinstance(n, gast.Call)}
    return all(id(n) in called for n in walk(normalize.source.tree)
               if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load))


def gradient_made_here(normalize, node, static):
    """``s2sad.grad(inner)(x)`` (``node``, the outer call) inside a function
    differentiated: the derivative's generated code inlined (see the module's text); None
    where ``node`` is not a call of a derivative made on its line (or held: ``g(x)``,
    ``g = s2sad.grad(inner)``; ``push(v)``, ``value, push = s2sad.jvp(inner)(x)``)."""
    func = node.func
    if isinstance(func, gast.Name) and \
            normalize.function_args.get(func.id, ("",))[0] == "derivative" and \
            normalize.function_args[func.id][1][1] is not None:
        gradient, bound = normalize.function_args[func.id][1]  # push(v): the generated
        generated = _generated(normalize, node, gradient)    # code with x, v
        args = [_again(normalize, a) for a in bound] + list(node.args)  # (made where it
                                                                        # was made)
        if node.keywords or any(isinstance(a, gast.Starred) for a in node.args):
            raise normalize.source.syntax_error(
                f"a call of {func.id} with keywords or star arguments", node,
                f"Give {func.id} its cotangent or tangents as plain arguments.")
        return normalize.atom(_call(node, generated, args,
                                    1 if gradient._mode == "forward" else None))
    make = _made_by(normalize, func)
    if make is None:
        return None
    made = _derivative(normalize, node, make, static)
    if made is None:
        return None
    name, gradient, read = made
    shown = unparse(make.func)
    if name in ("vjp", "jvp"):
        raise normalize.source.syntax_error(
            f"a {name} made inside the function differentiated ({shown}(...)) not unpacked "
            "where it is called", node,
            f"Unpack it: value, {'pullback' if name == 'vjp' else 'push'} = {shown}(f)(x), "
            f"then call {'pullback(cotangent)' if name == 'vjp' else 'push(tangent)'}.")
    if node.keywords or any(isinstance(a, gast.Starred) for a in node.args):
        raise normalize.source.syntax_error(
            f"a derivative made inside the function differentiated ({shown}(...)) called "
            "with keywords or star arguments", node,
            "Pass its arguments by position: grad_inner(x, y).")
    passed = _loaded(node, read)
    if name in _MADE_INLINE:
        if hooks.gradient_parameters(gradient) is None:
            return None
        generated = _generated(normalize, node, gradient, () if read else node.args, static)
        return normalize.atom(_call(node, generated, list(node.args) + passed))
    generated = _generated(normalize, node, gradient)
    arity = len(gradient._params) - len(read)
    if name == "hvp":  # hvp(inner)(x, v): jvp(grad(inner))'s tangent for v
        if len(node.args) != arity + 1:
            raise normalize.source.syntax_error(
                f"{shown}(...) called with {len(node.args)} arguments", node,
                f"Give the function's {arity} arguments, then the direction v.")
        return normalize.atom(_call(node, generated, list(node.args[:-1]) + passed +
                                    [node.args[-1]], 1))
    if len(node.args) != arity:
        raise normalize.source.syntax_error(
            f"{shown}(...) called with {len(node.args)} arguments", node,
            f"Give the function's {arity} arguments by position.")
    wrt_index = gradient._params.index(gradient._wrt_names[0])
    return normalize.atom(_columns(normalize, node, generated, list(node.args), passed,
                                   wrt_index))
