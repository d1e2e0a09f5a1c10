"""Inlining: a call of the user's own function is replaced by its body, normalized where it
is called.

``def g(v): return v * v`` called as ``g(x)`` becomes ``t_1 = x * x`` (inline expansion).
The callee's body is validated, desugared and normalized by a child :class:`Normalize`
that shares the caller's namer, so its names never clash. Its parameters stand for the
caller's atoms (a constant given folds its tests), and its globals get collision-free names
(``foreign_name``). An error in it names its own line and the calls that led there
(``frames``). A function with a derivative rule is called, not inlined. A gradient made at
module level is inlined as its generated code. A call that recurses stays a call, whose
adjoint asks the function's own compiled vjp (:mod:`s2sad.runtime.recursion`).
"""

from __future__ import annotations

import copy
import dataclasses
import linecache
import types

import gast
import numpy as np

from .. import hooks, trees
from .. import registry
from ..codegen import unparse
from ..errors import DifferentiationError, S2sadError
from ..source import FunctionSource
from ..trees import clone
from .function_values import function_default, function_defaults
from .higher import is_generated
from .objects import RecursiveCall, _named
from .single_assignment import _NOT_CONSTANT, _constant, _static, _user_code, assigned_names


def _numpy_alias(namespace: dict) -> str | None:
    """A module's own name for NumPy (``np`` first), to desugar its methods with."""
    import numpy
    aliases = sorted(name for name, value in namespace.items() if value is numpy)
    return "np" if "np" in aliases else (aliases[0] if aliases else None)


class _RootHelpers:
    """What :class:`s2sad.transforms.higher.PrepareGenerated` asks of the compiler's
    imports, for a gradient's code inlined (a gradient called inside): each helper named
    once for the whole function (``Normalize.fixed_name``)."""

    def __init__(self, normalize):
        self.normalize = normalize
        self.helpers: dict = {}
        self.lines: dict = {}

    def helper(self, function) -> str:
        return self.normalize.fixed_name(function, function.__name__)


def _read_as_users(value) -> bool:
    """Is ``value`` a library's function s2sad inlines as the user's code (its ``inline``
    fact: SciPy's ``rosen``, written against the array API)?"""
    facts = registry.facts(value)
    return facts is not None and facts.inline


def _stand_in(value, complex_values=False):
    """The definition of ``s2sad.implementations`` a NumPy function without a derivative
    rule is inlined as (``np.interp``...), or None (``complex_values``: its twin for a
    program with complex values, where it has one)."""
    from .. import implementations
    return implementations.stand_in(value, complex_values) if registry.lookup(value) is None \
        else None


def _literal(node, normalize):
    """The string or number ``node`` is, a literal or a module's constant (``MODE``), or
    None."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, (gast.Name, gast.Attribute)):
        try:
            value = _static(node, normalize)
        except KeyError:
            return None
        return value if isinstance(value, (str, int, float)) else None
    return None


def _spell_einsum(call) -> None:
    """``np.einsum(a, [0, 1], b, [1, 2], [0, 2])``, its sublists written out, becomes
    ``np.einsum("ab,bc->ac", a, b)`` (in place); other calls are left as they are."""
    from ..runtime.numpy_more import interleaved_subscripts
    args = list(call.args)
    if len(args) < 2 or any(isinstance(a, gast.Starred) for a in args):
        return
    output = args.pop() if len(args) % 2 else None
    lists = args[1::2] + ([output] if output is not None else [])
    if not all(isinstance(a, (gast.List, gast.Tuple)) for a in lists):
        return  # (a sublist that is not a display: the rule refuses it)
    labels = [[Ellipsis if isinstance(e, gast.Name) and e.id == "Ellipsis" or
               isinstance(e, gast.Constant) and e.value is Ellipsis else _constant(e)
               for e in a.elts] for a in lists]
    if not all(type(lab) is int or lab is Ellipsis for sub in labels for lab in sub):
        return
    spec = interleaved_subscripts(labels[:len(args) // 2],
                                  labels[-1] if output is not None else None)
    call.args = [gast.Constant(spec, None)] + args[0::2]


class Inlining:
    """The calls of :class:`Normalize`: the user's functions inlined, the others resolved."""

    def frames(self) -> tuple:
        """The user's lines that lead to the statement normalized now, outermost first:
        ``(file, line, text, column, function)`` each (:meth:`FunctionSource.error`)."""
        if not self.shown or self.stmt is None or getattr(self.stmt, "lineno", None) is None:
            return self.calls
        return self.calls + (self._frame(self.stmt.lineno, self.source._col(self.stmt)),)

    def _frame(self, lineno: int, col) -> tuple:
        source = self.source
        name = getattr(source.func, "__qualname__", None) or \
            getattr(source.tree, "shown_name", source.tree.name)
        return source.filename, lineno, source.line(lineno), col, name

    def with_calls(self, exc):
        """``exc``, an error located in this (inlined) function's code, with the user's
        lines that called it (``frames``); as it is where it has them, or is elsewhere."""
        if not self.calls or not self.shown or getattr(exc, "calls", ()) or \
                getattr(exc, "filename", None) != self.source.filename or \
                getattr(exc, "lineno", None) is None:
            return exc
        return exc.with_calls(self.calls + (self._frame(exc.lineno, exc.col),))

    def anchor_stmt(self):
        return self.anchor or self.stmt

    def _refuse_derivative_made_here(self, call) -> None:
        """``s2sad.grad(inner)(x)`` inside the function differentiated: refused at its
        line (a gradient is inlined where it was made once, at module level)."""
        try:
            maker = _static(call.func, self)
        except KeyError:
            return
        if not getattr(maker, "__s2sad_maker__", False):
            return
        shown = unparse(call.func)
        raise self.source.syntax_error(
            f"making a derivative inside the function differentiated ({shown}(...))", call,
            f"Make it once at module level, of a function defined there (grad_g = "
            f"{shown}(g)), and call grad_g(...) here: s2sad inlines that gradient. Made "
            "here, a grad, hvp, hessian or jacobian of a nested def or a lambda is written "
            "out where it is called (s2sad.grad(inner)(x)), or held in a variable given "
            "once and only called; a jvp or vjp where it is unpacked (value, push = ...).")

    def _defined_here(self, fdef):
        """``fdef`` with its defaults evaluated here, where the ``def`` or ``lambda`` runs,
        as Python does (a call later reads these, not the names as they are then):
        ``defaults_at_def``, each parameter's atom, copied where a name may change."""
        values, functions = {}, {}
        params = fdef.args.posonlyargs + fdef.args.args
        pairs = list(zip(params[len(params) - len(fdef.args.defaults):], fdef.args.defaults)) \
            + [(p, e) for p, e in zip(fdef.args.kwonlyargs, fdef.args.kw_defaults)
               if e is not None]
        for param, expr in pairs:
            function = function_default(self, expr, _static)  # (act=np.tanh: called as it)
            if function is not None:
                functions[param.id] = function
            else:
                values[param.id] = self._default_now(
                    expr, fdef.name, f"the default of {param.id!r} in {fdef.name}(), "
                    "evaluated where the function is defined")
        if not values and not functions:
            return fdef
        fdef = copy.copy(fdef)
        fdef.defaults_at_def = values
        fdef.function_defaults = functions
        return fdef

    def _default_now(self, expr, holder: str | None = None, shown: str | None = None):
        """``expr`` (a default, a partial's bound argument) evaluated now, as an atom.
        ``holder``, the function keeping it, reaches its list and shares its array:
        ``kept`` notes it, so that ``a[0] = v`` or ``a += v`` is refused where ``holder``
        is read later (Python's function keeps the array, and sees the change)."""
        value = self.atom(expr)
        if holder is not None and isinstance(value, gast.Name):  # (def get(l=a): get reaches
            # a's list, as b = a does)
            self.holders.setdefault(value.id, set()).add(holder)
        if isinstance(value, gast.Name) and value.id not in self.temps:
            value = self.snapshot(value)  # (the variable may be given another value later)
        if holder is not None and isinstance(value, gast.Name):
            self.kept.append((holder, value.id, shown or f"a value {holder!r} keeps"))
        return value

    def _given_once(self, name: str) -> bool:
        """Is ``name`` given a value by one statement of the function only (no other
        assignment, loop variable or ``def`` of that name)?"""
        stores = sum(isinstance(n, gast.Name) and n.id == name and
                     isinstance(n.ctx, gast.Store) for n in trees.walk(self.source.tree))
        defs = any(isinstance(n, gast.FunctionDef) and n.name == name
                   for n in trees.walk(self.source.tree) if n is not self.source.tree)
        return stores == 1 and not defs

    def _callee(self, func):
        """The object a call's function expression names (``np.copyto``), or None."""
        if isinstance(func, gast.Name):
            if func.id in self.locals:
                return None
            try:
                return self.source.resolve(func.id)
            except KeyError:  # (a name of the generated code: a function given, np.tanh)
                return self.root.__dict__.get("_fixed", {}).get(func.id)
        if isinstance(func, gast.Attribute):
            base = self._callee(func.value)
            return getattr(base, func.attr, None) if base is not None else None
        return None

    # --- calls of the user's own functions are inlined ---------------------------------

    def callee(self, func, call=None):
        """``(function object or None, its def)`` if ``func`` is a function of the user's
        (``call``: the call, whose arguments choose the variant of a gradient inlined)."""
        import types
        if isinstance(func, gast.Name) and func.id in self.function_args:
            how, target = self.function_args[func.id]
            return target if how == "inline" else None
        if isinstance(func, gast.Name):
            scope = self
            while scope is not None:
                if func.id in scope.local_functions:
                    return None, scope.local_functions[func.id], scope
                if func.id in scope.locals or not scope.lexical:
                    break
                scope = scope.parent
        try:
            value = _static(func, self)
        except KeyError:
            return None
        # np.interp...: written with functions that have rules
        stand_in = _stand_in(value, self.root.__dict__.get("complex_values", False))
        if stand_in is not None:
            if stand_in is not _stand_in(value, True):  # (real values only: noted)
                self.root.__dict__.setdefault("_real_stand_ins", []).append(
                    (self.source, func, value))
            return stand_in, None, None
        if isinstance(value, types.FunctionType) and registry.lookup(value) is None and \
                (_user_code(value) or _read_as_users(value)):
            return value, None, None
        params = hooks.gradient_parameters(value)
        if params is not None:  # a gradient called inside: its generated code
            try:
                function, live = hooks.inline_gradient(value, self._argument_kinds(call, params))
            except ValueError as exc:  # (one the function calls its own gradient)
                raise self.source.error(DifferentiationError, str(exc), func,
                                        "Write the inner step out in the function.") from None
            self.root.__dict__.setdefault("_generated_live", {})[function] = live
            return function, None, None
        return None

    def _argument_kinds(self, call, params):
        """The descriptors of the arguments of ``call`` of a gradient, where each is a
        parameter of the differentiated function that holds numbers only and is never
        given another value, and one holds a namedtuple or a dict (``grad_loss(p, x)``:
        whose fields or keys the general variant would not know); else None."""
        if call is None or call.keywords or len(call.args) != len(params):
            return None
        key = []
        for arg in call.args:  # (each one's value named as in the generated function:
            if not isinstance(arg, gast.Name) or arg.id in self.function_args:  # through
                return None                                      # the helpers inlined)
            name = self.name(arg).id
            if name not in self.root.descriptors or self.root.current.get(name) != name:
                return None
            key.append(self.root.descriptors[name])
        return tuple(key) if any(map(_named, key)) else None  # (else the general one)

    def _keyword_stand_in(self, node):
        """A NumPy function whose rule does not take a keyword this call gives, written
        with functions that have rules (``np.diff(x, prepend=0.0)``), or None."""
        from .. import implementations
        keywords = {k.arg for k in node.keywords}
        try:
            value = _static(node.func, self)
        except KeyError:
            return None
        for func, names, stand_in in implementations.by_keyword():
            if value is func and keywords & names:
                return stand_in, None, None
        starred = any(isinstance(a, gast.Starred) for a in node.args)
        for func, counts, stand_in in implementations.by_arity():
            if value is func and not starred and len(node.args) not in counts:
                return stand_in, None, None
        if value is np.einsum:  # np.einsum(a, [0, 1], b, [1, 2]): the subscripts spelled
            _spell_einsum(node)
        for func, position, name, values, stand_in in implementations.by_value():
            given = next((k.value for k in node.keywords if k.arg == name), None) \
                if name else None
            if given is None and len(node.args) > position and \
                    not any(isinstance(a, gast.Starred) for a in node.args[:position + 1]):
                given = node.args[position]
            if value is func and given is not None and _literal(given, self) in values:
                return stand_in, None, None
        return None

    def _ufunc_method(self, node):
        """``np.add.reduce(x)``, ``np.maximum.accumulate(x)``, ``np.subtract.outer(a, b)``:
        ``(call, stand-in)``, the stand-in written with functions that have rules
        (``np.sum(x, axis=0)``...; ``outer`` gets the ufunc first), or ``(node, None)``."""
        from .. import implementations
        if node.func.attr not in ("reduce", "accumulate", "outer"):
            return node, None
        try:
            ufunc = _static(node.func.value, self)
        except KeyError:
            return node, None
        if not isinstance(ufunc, np.ufunc) or registry.lookup(ufunc) is None:
            return node, None
        stand_in = implementations.ufunc_method(ufunc, node.func.attr)
        if stand_in is None:
            return node, None
        if node.func.attr == "outer":
            node = gast.copy_location(gast.Call(node.func, [node.func.value, *node.args],
                                                node.keywords), node)
        return node, (stand_in, None, None)

    def fixed_name(self, value, name: str) -> str:
        """A name for ``value`` in the whole generated function, in every inlined scope
        (a method called as a function, a runtime helper of inlined generated code)."""
        fixed = self.root.__dict__.setdefault("_fixed", {})  # alias -> value
        alias = next((a for a, v in fixed.items() if v is value), None)
        if alias is None:
            alias = self.root.namer.claim(name)
            fixed[alias] = value
            self.root.foreign[alias] = ({alias: value}, alias)
            self.root.source.extra[alias] = value
        return alias

    def _function_argument(self, arg):
        """What a helper's parameter stands for when the caller passes it ``arg``, a
        function: ``("inline", ...)`` for the user's own (a def, a lambda, a module-level
        function), ``("call", expression)`` for one with a derivative rule; else None."""
        if isinstance(arg, gast.Lambda):
            name = self.namer.fresh("lambda")
            ret = gast.copy_location(gast.Return(arg.body), arg)
            fdef = gast.FunctionDef(name, arg.args, [ret], [], None, None)
            fdef.shown_name = "<lambda>"  # (as Python names it in a traceback)
            self.local_functions[name] = self._defined_here(gast.copy_location(fdef, arg))
            arg = gast.Name(name, gast.Load(), None, None)
        if not isinstance(arg, (gast.Name, gast.Attribute)):
            return None
        if isinstance(arg, gast.Name) and arg.id in self.function_args:
            return self.function_args[arg.id]  # passed on as it came
        target = self.callee(arg)
        if target is not None:
            return "inline", target
        try:
            value = _static(arg, self)
        except KeyError:
            return None
        if registry.lookup(value) is not None:
            return "call", self.simple(arg)
        return None

    def inline(self, node, func, fdef, scope, key=None):
        """The callee's body, normalized in place, with its own names made unique. An
        error located in the callee's own lines gets the lines that called it. ``key``:
        what a recursive call would call again (a method: with its object)."""
        key = key if key is not None else func if func is not None else fdef
        forced = isinstance(key, RecursiveCall)  # (a method of an object made here)
        key = key.method if forced else key
        self.root.called.setdefault(self.inlining[-1], {})[key] = None  # (an ordered set)
        if key in self.inlining or forced:
            if func is None:
                raise self.source.syntax_error(
                    f"a recursive call of the nested function {fdef.name}()", node,
                    "Define the function at module level (recursion goes through its own "
                    "compiled gradient), or write the recursion as a loop.")
            return self.recursive(node, func)
        try:
            return self._inline(node, func, fdef, scope, key)
        except S2sadError as exc:
            placed = self._placed(exc, func, fdef)
            if placed is exc:
                raise
            raise placed from None

    def _placed(self, exc, func, fdef):
        """``exc``, raised in the user's function ``func`` (or nested ``fdef``) inlined
        here at its own line, with the lines that called it; else ``exc`` itself."""
        if getattr(exc, "calls", ()) or not self.shown or getattr(exc, "lineno", None) is None \
                or not hasattr(exc, "with_calls") or (func is not None and not _user_code(func)):
            return exc
        name = getattr(func, "__qualname__", None) or getattr(fdef, "shown_name", fdef.name)
        filename = func.__code__.co_filename if func is not None else self.source.filename
        tree = fdef if func is None else FunctionSource.of(func).tree
        if exc.filename != filename or not (  # (its own lines: not the call's, in the
                tree.lineno <= exc.lineno <= (tree.end_lineno or tree.lineno)):  # same file)
            return exc
        return exc.with_calls(self.frames() + ((exc.filename, exc.lineno, exc.text, exc.col,
                                                 name),))

    def _inline(self, node, func, fdef, scope, key):
        if func is not None:
            callee = FunctionSource.of(func)
            lexical = False
        else:  # a def or lambda inside the function: it sees the enclosing variables
            outer = self.source if scope is None else scope.source
            callee = dataclasses.replace(outer, tree=fdef, func=None,
                                         outer=outer.outer or outer.tree)
            filename = getattr(fdef, "source_file", None)  # (a method of a class of
            if filename is not None and filename != callee.filename:  # another module's)
                at = gast.Pass()  # (the class's line: its indentation, cut off the columns)
                at.lineno = fdef.class_line
                callee = dataclasses.replace(callee, filename=filename, outer=at,
                                             lines=linecache.getlines(filename))
            lexical = True
        from .desugar import Desugar
        from .exits import Exits
        from .validate import Validate, explicit_returns
        callee = dataclasses.replace(callee, tree=explicit_returns(callee.tree))
        Validate(callee, nested=True).run()
        from .try_blocks import TryBlocks
        tries = TryBlocks(callee, _RootHelpers(self.root).helper, self.fixed_name, self.namer)
        tree = tries.run(clone(callee.tree))
        if tries.changed:
            callee = dataclasses.replace(callee, tree=tree)
        from .strict_zip import StrictZip
        zips = StrictZip(self.namer, _RootHelpers(self.root).helper,
                         assigned_names(callee.tree) | {a.id for a in callee.tree.args.args},
                         callee.is_builtin)
        tree = zips.run(clone(callee.tree))
        if zips.changed:
            callee = dataclasses.replace(callee, tree=tree)
        from .generators import expand_generators
        tree, _ = expand_generators(callee.tree, callee, self.namer)
        numpy_name = _numpy_alias(callee.globals) or self.root.numpy_name
        tree = Exits(self.namer).visit(clone(tree))
        callee.locals = assigned_names(tree)
        from .piecewise import Piecewise
        writer = Piecewise(callee, self.namer, _RootHelpers(self.root).helper, numpy_name,
                           callee.locals)
        tree = writer.run(tree)
        callee.locals = assigned_names(tree) if writer.changed else callee.locals
        tree = Desugar(numpy_name, callee.locals, callee.is_builtin, callee.resolve,
                       callee).visit(tree)
        live = {}
        if is_generated(callee):  # a gradient called inside: its pops become assignments
            from .higher import PrepareGenerated
            tree = PrepareGenerated(self.namer, _RootHelpers(self.root), callee).visit(tree)
            live = self.root.__dict__.get("_generated_live", {}).get(func, {})
        callee = dataclasses.replace(callee, tree=tree, locals=callee.locals, live=live)
        child = type(self)(callee, self.namer, parent=scope if lexical and scope else self,
                          lexical=lexical)
        child.anchor = self.anchor_stmt()
        child.inlining = self.inlining + (key,)
        child.calls = self.frames()
        spread = getattr(self.source.func, "__s2sad_spread__", None) is not None
        child.shown = (self.shown or spread) and not is_generated(callee) and (
            func is None or _user_code(func))  # (the user's function a flat one calls: shown)
        child.from_spread = spread and child.shown  # (its statements: its lines, see emit)
        child.out = self.out
        params = tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs
        names = [p.id for p in params]
        from .function_values import bind_extra_functions, extra_functions
        extras = extra_functions(self, tree, node)  # (def h(x, *fs) given functions in fs)
        if extras is not None:
            node = extras[0]
            bind_extra_functions(child, tree, extras[1])
        passed_functions = {}  # parameters given a function: called as that function
        for name, arg in list(zip(names, node.args)) + [(k.arg, k.value) for k in node.keywords]:
            function = self._function_argument(arg)
            if function is not None:
                passed_functions[name] = function
        args = [None if i < len(names) and names[i] in passed_functions else self.atom(a)
                for i, a in enumerate(node.args)]
        keywords = {k.arg: None if k.arg in passed_functions else self.atom(k.value)
                    for k in node.keywords}
        n_pos = len(tree.args.posonlyargs) + len(tree.args.args)
        from .star_args import bind_extras  # (def g(w, *args, **kwargs): its tuple, dict)
        args, keywords = bind_extras(self, child, tree, args, keywords, names, n_pos, node)
        advice = getattr(func, "stand_in_advice", None)  # (SciPy's solve_ivp: a function
        if advice is not None:                           # of the user's, known arguments)
            shown = self._dotted(node.func)
            for name, function in passed_functions.items():
                if function[0] == "inline" and function[1][0] is None:
                    raise self.source.error(
                        DifferentiationError, f"s2sad differentiates {shown} with a function of "
                        f"the module's own as {name!r}, not a nested function or a lambda", node, advice["function"])
            extra = sorted(set(keywords) - set(names))
            if len(args) > n_pos or extra:
                raise self.source.error(
                    DifferentiationError, f"s2sad differentiates {shown} with the arguments "
                    f"({', '.join(names)}) only, not "
                    f"{', '.join(extra) if extra else 'more positional ones'}", node,
                    advice["arguments"])
        if getattr(func, "__module__", None) == "s2sad.implementations" and args:
            from .. import implementations
            other = implementations.positional_mismatch(func, names, len(args))
            if other is not None:  # (np.nanvar(x, 0, float): NumPy's dtype, not ddof)
                raise self.source.error(
                    DifferentiationError, f"s2sad writes "
                    f"{implementations.shown_name(func, node, self._dotted)} with the "
                    f"arguments ({', '.join(names)}) only (s2sad/implementations.py): its "
                    f"positional argument {other[0] + 1} is the function's own {other[1]!r}, "
                    f"not {names[other[0]]!r}", node,
                    "Give the arguments after the first ones by keyword (keepdims=True), "
                    "and leave out those the function's defaults give.")
        if len(args) > n_pos or set(keywords) - set(names):
            if getattr(func, "__module__", None) == "s2sad.implementations":
                from .. import implementations
                shown = implementations.shown_name(func, node, self._dotted)
                extra = sorted(set(keywords) - set(names))
                raise self.source.error(
                    DifferentiationError, f"s2sad writes {shown} with the arguments "
                    f"({', '.join(names)}) only (s2sad/implementations.py): "
                    + (f"{', '.join(k + '=' for k in extra)} is not supported" if extra else
                       f"{len(args)} positional arguments are more than it takes"), node,
                    "Leave the argument out where NumPy's default does, or compute the value "
                    "with functions s2sad knows (see s2sad.supported()).")
            raise self.source.error(DifferentiationError, f"this call does not match the "
                                    f"parameters of {tree.name}({', '.join(names)})", node)
        bound = dict(zip(names[:len(args)], args))
        for name, function in function_defaults(child, func, fdef, names, n_pos).items():
            if name not in bound and name not in keywords:  # (a default that is a function)
                passed_functions[name] = function
        for key, value in keywords.items():
            if key in bound:
                raise self.source.error(DifferentiationError, f"{tree.name}() got two values "
                                        f"for {key!r}", node)
            bound[key] = value
        defaults = getattr(fdef, "defaults_at_def", None) or \
            self._defaults(func, tree, names, n_pos, child)
        body_assigned = {n.id for s in tree.body for n in trees.walk(s)
                         if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        passed: dict[int, str] = {}  # the callee's argument values -> the names passed
        represented = []  # (the callee's name for a value passed, the caller's atom)
        for name in names:
            if name in passed_functions:
                child.function_args[name] = passed_functions[name]
                continue
            if name in bound:
                value = bound[name]
            elif name in defaults:
                value = defaults[name]
            else:
                raise self.source.error(DifferentiationError, f"{tree.name}() is missing the "
                                        f"argument {name!r}", node)
            if isinstance(value, gast.Name) and name not in body_assigned:
                child.current[name] = value.id  # read-only parameter: use the value itself
            else:
                copy_name = self.namer.claim(name)
                child.current[name] = copy_name
                child.emit(gast.Assign([self.store(copy_name)], value, None))
                if name not in body_assigned and _constant(value) is not _NOT_CONSTANT:
                    child.constants[copy_name] = _constant(value)  # (tests on it fold)
            if name not in body_assigned:  # an object: its methods inlined there too
                source_arg = next((a for n, a in list(zip(names, node.args)) +
                                   [(k.arg, k.value) for k in node.keywords] if n == name), None)
                ref = self._object_ref(source_arg)
                if ref is not None:
                    self.root.objects.setdefault(child.current[name], ref)
            if isinstance(value, gast.Name):
                child.bind_caller(child.current[name], name)
                passed[child._blocks] = value.id
                represented.append((child.current[name], value.id))
                user = self._read_after_call(value.id, next(
                    (a for n, a in list(zip(names, node.args)) +
                     [(k.arg, k.value) for k in node.keywords] if n == name), None))
                if user is not None:
                    child.passed_names[name] = user
        passed.update(child.__dict__.pop("extra_passed", {}))  # (*args, **kwargs' items)
        body = tree.body
        for stmt in body[:-1]:
            child.stmt = stmt
            child.statement(stmt)
        child.stmt = body[-1]
        result = child.atom(body[-1].value)
        if isinstance(result, gast.Name):  # what the result may share memory with, here
            blocks = child.node.get(result.id, frozenset())
            shares = [v for b, v in passed.items() if b in blocks]
            shares += self._stand_in_views(node, func, names, bound)
            if result.id not in self.node or shares:
                self.bind(result.id, shares + ([result.id] if result.id in self.node else []))
        shown = getattr(func, "__qualname__", None) or getattr(tree, "shown_name", tree.name)
        self.carry_back(child, passed, represented, result, shown)
        for scope_ in (child,):
            self.root.foreign.update(scope_.foreign)
            self.root.foreign_cells.update(scope_.foreign_cells)
        return result

    def _stand_in_views(self, node, func, names, bound) -> list[str]:
        """The arguments whose memory the NumPy function a stand-in is inlined for returns
        a view of (``sliding_window_view(a, 3)``: ``a``), by its facts: the stand-in
        copies, so an update of ``a`` after would be seen by NumPy's view and not by it."""
        if getattr(func, "__module__", None) != "s2sad.implementations":
            return []
        facts = registry.facts(self._callee(node.func))
        if facts is None or not facts.returns_view_of:
            return []
        positions = range(len(names)) if facts.returns_view_of == "*" else \
            facts.returns_view_of
        return [bound[names[i]].id for i in positions if i < len(names) and
                isinstance(bound.get(names[i]), gast.Name)]

    def _read_after_call(self, value: str, given) -> str | None:
        """The caller's variable that a helper's in-place update of the parameter given
        ``value`` (written ``given`` in the call) would change under a reader, if any: one
        whose value may share ``value``'s memory (``t``, a view ``u = t[1:]``, ``t`` of
        ``h(t[1:])``), read after the call or beside it; an argument of the function
        differentiated (the user's own); or what the caller's caller reads."""
        blocks = self.node.get(value, frozenset())
        users = [k for k, v in self.current.items() if v == value or blocks & self.node.get(
            v, frozenset())]

        def count(node, name: str) -> int:
            return sum(isinstance(n, gast.Name) and n.id == name for n in trees.walk(node))
        for user in users:
            if self._read_later(self.stmt, user) or \
                    count(self.stmt, user) > (count(given, user) if given is not None else 1):
                return user
        owner = self.caller_of(value)  # (the function's argument, or its caller's value)
        if owner is not None and (self.parent is None or owner in self.passed_names):
            return users[0] if users else owner
        return None

    def recursive(self, node, func):
        """A call that recurses, kept as a call: ``t_2 = recursive_call(f, (x, n))`` runs
        it, ``t_3 = recursion_value(t_2, (x, n))`` is its value, whose adjoint asks
        ``f``'s own compiled vjp (:mod:`s2sad.runtime.recursion`)."""
        import inspect
        from ..runtime import recursion as runtime_recursion
        args = [self.atom(a) for a in node.args]
        keywords = {k.arg: self.atom(k.value) for k in node.keywords}
        try:
            bound = inspect.signature(func).bind(*args, **keywords)
        except TypeError as exc:
            raise self.source.error(DifferentiationError, f"this call of {func.__name__}() "
                                    f"does not match its parameters: {exc}", node) from None
        bound.apply_defaults()
        values = [v if isinstance(v, gast.AST) else self.constant(v, name)
                  for name, v in bound.arguments.items()]
        packed = self.to_atom(gast.Tuple(values, gast.Load()))
        helpers = {name: self.fixed_name(getattr(runtime_recursion, name), name)
                   for name in ("recursive_call", "recursion_value")}
        function = self.simple(node.func)
        pair = self.to_atom(gast.Call(self.load(helpers["recursive_call"]),
                                      [function, packed], []))
        return self.to_atom(gast.Call(self.load(helpers["recursion_value"]),
                                      [pair, clone(packed)], []))

    def _defaults(self, func, tree, names, n_pos, child) -> dict:
        values = {}
        if func is not None:
            pos_defaults = func.__defaults__ or ()
            for name, value in zip(names[n_pos - len(pos_defaults):n_pos], pos_defaults):
                values[name] = child.constant(value, name)
            for name, value in (func.__kwdefaults__ or {}).items():
                values[name] = child.constant(value, name)
        else:
            pos = tree.args.defaults
            for name, expr in zip(names[n_pos - len(pos):n_pos], pos):
                values[name] = self.atom(expr)
            for arg, expr in zip(tree.args.kwonlyargs, tree.args.kw_defaults):
                if expr is not None:
                    values[arg.id] = self.atom(expr)
        return values

    def constant(self, value, name: str):
        """A default argument's value in generated code: a literal, or a bound name."""
        if value is None or isinstance(value, (bool, int, float, complex, str)):
            return gast.Constant(value, None)
        alias = self.root.namer.claim(f"{self.source.tree.name}_{name}_default")
        holder = {alias: value}
        self.root.foreign[alias] = (holder, alias)
        self.root.source.extra[alias] = value
        return self.load(alias)

    def foreign_name(self, node) -> str:
        """Name, in generated code, of a global or closure variable of inlined code."""
        if node.id in self.root.__dict__.get("_fixed", ()):  # (named for the whole function)
            return node.id
        key = (id(self.source.globals), node.id)
        cache = self.root.__dict__.setdefault("_foreign_keys", {})
        if key in cache:
            return cache[key]
        live = getattr(self.source, "live", None) or {}
        if node.id in live:  # a gradient's code inlined: the user's module global it reads
            where, item = live[node.id]
            alias = self.root.namer.claim(node.id)
            self.root.foreign[alias] = (where, item)
            self.root.source.extra[alias] = where[item]
            cache[key] = alias
            return alias
        if node.id in self.source.closure:
            alias = self.root.namer.claim(node.id)
            self.root.foreign_cells[alias] = self.source.closure[node.id]
            self.root.source.extra[alias] = self.source.closure[node.id].cell_contents
        else:
            try:
                value = self.source.resolve(node.id)
            except KeyError:
                if node.id == self.root.numpy_name:  # `x.sum()` desugared in a module
                    cache[key] = node.id            # that does not import NumPy
                    return node.id
                raise self.source.error(DifferentiationError, f"name {node.id!r} is not defined",
                                        node) from None
            import builtins
            if node.id not in self.source.globals and getattr(builtins, node.id, None) is value:
                cache[key] = node.id
                return node.id
            same = self.source.globals is self.root.source.globals
            if not same and isinstance(value, types.ModuleType) and \
                    node.id not in self.root.locals:  # `np` there is `np` here too
                try:
                    same = self.root.source.resolve(node.id) is value
                except KeyError:
                    pass
            if same and node.id not in self.root.locals:
                cache[key] = node.id
                return node.id
            alias = self.root.namer.claim(node.id)
            self.root.foreign[alias] = (self.source.globals, node.id)
            self.root.source.extra[alias] = value
        cache[key] = alias
        return alias
