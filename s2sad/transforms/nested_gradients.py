"""A gradient made inside the function differentiated: ``s2sad.grad(inner)(x)``.

``inner``, a nested ``def`` or a ``lambda``, reads the enclosing function's variables
as it runs. It is lifted out: each variable of the enclosing function it reads becomes
a parameter after its own (``def inner(y, w)``), a module-level function s2sad makes
the gradient of as ``s2sad.grad`` made at module level. That gradient's generated code
is inlined where the call is, given the variables' values now, as Python's closure would
read them. Differentiated again, the code carries the derivative through those values
too: ``d/dx grad(lambda y: sum(y * x))(x)`` counts both ``y`` and the ``x`` it read.

``s2sad.grad(g)(x)`` of a module-level ``g`` is made so too (``g`` itself, nothing to
lift). Refused at the line: a maker other than ``grad`` and ``value_and_grad``, its
options not written as constants, and an inner function that has default values, star
parameters, or reads a function or an object of the enclosing one.
"""

from __future__ import annotations

import types

import gast

from .. import hooks
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


def gradient_made_here(normalize, node, static):
    """``s2sad.grad(inner)(x)`` (``node``, the outer call) inside a function
    differentiated: the gradient's generated code inlined (see the module's text); None
    where ``node`` is not a call of a derivative made on its line."""
    make = node.func
    if not isinstance(make, gast.Call) or not make.args:
        return None
    try:
        maker = static(make.func, normalize)
    except KeyError:
        return None
    if not getattr(maker, "__s2sad_maker__", False):
        return None
    shown = unparse(make.func)
    if getattr(maker, "__name__", None) not in _MADE_INLINE or \
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
        gradient = maker(function, *options, **keywords)
    except (TypeError, ValueError) as exc:  # (wrt= naming no parameter...)
        raise normalize.source.error(DifferentiationError, str(exc), make) from None
    if hooks.gradient_parameters(gradient) is None:
        return None
    try:
        generated, live = hooks.inline_gradient(gradient, None)
    except ValueError as exc:  # (a function that calls its own gradient)
        raise normalize.source.error(DifferentiationError, str(exc), node) from None
    normalize.root.__dict__.setdefault("_generated_live", {})[generated] = live
    passed = [gast.copy_location(gast.Name(name, gast.Load(), None, None), node) for name in read]
    call = gast.copy_location(gast.Call(make, list(node.args) + passed, list(node.keywords)),
                              node)
    return normalize.inline(call, generated, None, None)
