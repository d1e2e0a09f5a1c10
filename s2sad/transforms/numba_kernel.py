"""The numba target: the generated gradient, lowered to a function ``numba.njit`` compiles.

Two checks refuse what numba cannot compile, at the user's line, before numba runs:
:func:`check_source` reads the user's function (objects, dicts, lists, strings, calls of
functions numba has not), :func:`lower` the generated code (a helper of s2sad's with no
numba version). What passes is written as a *kernel*, compiled in nopython mode (never in
object mode), and a Python *wrapper* with the function's signature that calls it::

    @numba.njit(cache=False)
    def kernel_grad_f(x, tape_budget):
        stack = []                              # (a tape: a list numba types)
        ...
        for _ in range(trips_1 - 1, -1, -1):    # (reversed(range(trips_1)))
        ...
        return (x, s_x)

    def grad_f(x):
        x, s_x = kernel_grad_f(x, memory_budget())
        return as_gradient(x, s_x)

The wrapper turns the kernel's numbers into the gradient's structure as the NumPy target
does (``as_gradient``); module globals the gradient reads live are passed to the kernel
at each call, so numba freezes none. A list of saved values indexed by a loop's counter
(``p_saved = [None] * n``; ``p_saved[i] = p`` in ``for i in range(n)``) becomes a list
appended to in that loop and read by index in the reverse sweep.
"""

from __future__ import annotations

import ast
import builtins
import copy
import dataclasses
import hashlib
import os
import time

import gast

from ..errors import DifferentiationError, UnsupportedSyntaxError
from ..located import _statements
from ..source import FunctionSource
from ..trees import assigned_names, breaks_own_loop
from .numba_fusion import GUARD, GUARD_MODULE, ElementwiseFusion

# argument kinds the kernel takes (a dtype kind: float, int, bool)
_KINDS = "fiub"
_ADVICE = "Use target='numpy' for this function, or write it with numbers, NumPy arrays, " \
          "loops and the math and NumPy functions numba compiles (docs/numba.md)."


def _helper_refusal(name: str) -> tuple[str, str]:
    """What the user wrote that needs s2sad's helper ``name``, which has no numba version,
    and what to do instead, in the user's terms (the helper is s2sad's business).

    >>> _helper_refusal("output_seed")[0]
    'a returned value not known to be a number before the function runs'
    """
    if name == "output_seed":  # (the seed of the reverse sweep, where the kinds say
        return ("a returned value not known to be a number before the function runs",
                "grad needs a function that returns a number, and the numba target "
                "must see that it is one from the code: here the value returned may be an "
                "array (a loop that adds an array to it, say). Reduce it (np.sum, np.mean), "
                "use s2sad.vjp or s2sad.jacobian for a vector output, or use "
                "target='numpy', which checks the value when it runs.")
    return ("the derivative of this line, which numba's compiled gradient has no version "
            f"of (s2sad computes it with {name}, in Python)", _ADVICE)


class _Refused(Exception):
    """A node of the generated code the kernel cannot hold: ``(node, what)``."""


# --- the user's function ------------------------------------------------------------------


def check_arguments(source, descriptors, params) -> None:
    """Refuse arguments numba's compiled gradient does not take: it takes numbers and NumPy
    arrays of numbers (``descriptors``, the kinds of the arguments ``params``), and is
    compiled for their kinds (None: any kind, which it cannot be)."""
    if descriptors is None:
        raise DifferentiationError(
            f"the numba target compiles {source.tree.name}'s derivative for the kinds of "
            "its arguments, and none were given",
            hint="Give example arguments: .source_for(*args), or s2sad show --at '(1.0, ...)'.")
    for name, desc in zip(params, descriptors):
        if not _plain_kind(desc):
            raise source.syntax_error(
                f"the argument {name!r} ({_kind_text(desc)}) on the numba target "
                "(target='numba')", source.tree,
                "numba's compiled gradient takes numbers and NumPy arrays of numbers. "
                + _ADVICE)


def _one_axis(call, keywords: frozenset) -> bool:
    """Is ``call`` (``np.prod(x, ...)``) of a whole array, or along one axis that is not
    written as a tuple, with no keyword but ``keywords`` (keepdims only with an axis)?"""
    given = {k.arg for k in call.keywords}
    if len(call.args) > 2 or None in given or not given <= keywords or \
            len(call.args) == 2 and "axis" in given:
        return False
    axis = call.args[1] if len(call.args) == 2 else next(
        (k.value for k in call.keywords if k.arg == "axis"), None)
    if axis is None or isinstance(axis, gast.Constant) and axis.value is None:
        return "keepdims" not in given
    if isinstance(axis, gast.Constant):
        return type(axis.value) is int
    return not isinstance(axis, (gast.Tuple, gast.List))


def check_source(source, backend, seen=None) -> None:
    """Refuse, at the user's line, what in ``source`` (a ``FunctionSource``) numba cannot
    compile: objects, dicts, lists, sets, strings, comprehensions, nested functions,
    ``with`` and ``try``, methods, and calls of functions ``backend.compiles`` lacks (the
    user's own functions are read in their turn)."""
    seen = set() if seen is None else seen
    seen.add(source.func)
    if not source.locals:  # (read before the compiler's passes name them: a parameter
        source.locals = assigned_names(source.tree)  # is not the module's global)

    def refuse(node, what, hint=_ADVICE):
        raise source.syntax_error(f"{what} on the numba target (target='numba')", node, hint)

    closure = getattr(source.func, "__code__", None)
    if closure is not None and closure.co_freevars:
        refuse(source.tree, f"a closure (it reads {', '.join(closure.co_freevars)} of the "
               "function around it)", "Pass those values as arguments. " + _ADVICE)
    refused = {gast.ClassDef: "a class", gast.Lambda: "a lambda", gast.Dict: "a dict",
               gast.Set: "a set", gast.ListComp: "a list comprehension",
               gast.DictComp: "a dict comprehension", gast.SetComp: "a set comprehension",
               gast.GeneratorExp: "a generator expression", gast.With: "a `with` statement",
               gast.Try: "a `try` statement", gast.Yield: "`yield`",
               gast.YieldFrom: "`yield from`", gast.Global: "a `global` statement",
               gast.Nonlocal: "a `nonlocal` statement", gast.Delete: "a `del` statement",
               gast.JoinedStr: "an f-string", gast.Starred: "a starred expression",
               gast.Raise: "a `raise` statement", gast.Assert: "an `assert` statement"}
    body = list(source.tree.body)
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # (a docstring)
    if len(seen) > 1:  # (a function the gradient calls: its parameters may be ints)
        check_integers(source)
    for top in body:
        for node in _gast_walk(top):
            what = refused.get(type(node))
            if what is not None:
                refuse(node, what)
            if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
                refuse(node, "a function defined inside the function")
            if isinstance(node, gast.List) and isinstance(node.ctx, gast.Load):
                refuse(node, "a list", "Use a NumPy array (np.zeros(n), then x[i] = ...). "
                       + _ADVICE)
            if isinstance(node, gast.Constant) and isinstance(node.value, (str, bytes)):
                refuse(node, "a string")
            if isinstance(node, gast.Call):
                _check_call(source, node, refuse, backend, seen)
            if isinstance(node, gast.For):
                _check_range_loop(node, refuse)
            elif isinstance(node, gast.Attribute) and not _is_call_func(node, top):
                value = _static(source, node)
                if value is _UNKNOWN and node.attr not in backend.kernel_attributes:
                    refuse(node, f"the attribute .{node.attr}",
                           "Pass the value as an argument. " + _ADVICE)
                if value is not _UNKNOWN and not _number(value) and \
                        not isinstance(value, type(os)):
                    refuse(node, f"{_show(node)} ({type(value).__name__})",
                           "Pass it as an argument. " + _ADVICE)
            elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                    node.id not in source.locals and not _is_call_func(node, top):
                value = _static(source, node)
                if value is not _UNKNOWN and not _number(value) and \
                        not isinstance(value, type(os)) and value is not None:
                    refuse(node, f"the global {node.id} ({type(value).__name__})",
                           "Pass it as an argument (numba would freeze it). " + _ADVICE)


def check_integers(source, descriptors=None, params=()) -> None:
    """Refuse, at the user's line, Python integers that may outgrow numba's: the kernel's
    integers are 64-bit and wrap past 9.2e18, where Python's grow without bound. A name that
    may hold a Python int (an ``int`` argument, an int constant, ``len``, a ``range``
    counter, sums and products of those: a fixed point over the assignments) and is
    multiplied, raised or shifted by itself in a loop (``k = k * 31``), or an int raised to
    or shifted by a varying int (``2 ** n``), is refused. Array items are NumPy's integers,
    which wrap in NumPy too. A parameter of a function the gradient calls may be an int.

    >>> import gast
    >>> class S:  # (a FunctionSource's parts this reads)
    ...     tree = gast.parse("def f(x, n):\\n k = 1\\n for _ in range(n):\\n  k = k * 31"
    ...                       "\\n return x * k").body[0]
    ...     def syntax_error(self, message, node, hint):
    ...         return ValueError(f"line {node.lineno}: {message}")
    >>> check_integers(S(), ("float", "int"), ("x", "n"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: line 4: an integer multiplied by itself in a loop (k), on the numba ...
    """
    tree = source.tree
    given = dict(zip(params, descriptors or ()))
    ints = {name for name in parameters_of(tree) if given.get(name, "int") == "int"}

    def is_int(node) -> bool:
        if isinstance(node, gast.Constant):
            return type(node.value) is int
        if isinstance(node, gast.Name):
            return node.id in ints
        if isinstance(node, gast.BinOp):
            return not isinstance(node.op, gast.Div) and is_int(node.left) and \
                is_int(node.right)
        if isinstance(node, gast.UnaryOp):
            return is_int(node.operand)
        if isinstance(node, gast.IfExp):
            return is_int(node.body) or is_int(node.orelse)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            name = node.func.id
            return name in ("len", "int") or name == "round" and len(node.args) == 1 or \
                name in ("abs", "min", "max") and any(is_int(a) for a in node.args)
        if isinstance(node, gast.Attribute):
            return node.attr in ("size", "ndim")
        if isinstance(node, gast.Subscript):
            return isinstance(node.value, gast.Attribute) and node.value.attr == "shape"
        return False

    grown = True
    while grown:  # (a fixed point: a name set from one that may be an int may be one)
        before = len(ints)
        for node in _gast_walk(tree):
            if isinstance(node, gast.Assign):
                for target in node.targets:
                    if isinstance(target, gast.Name) and is_int(node.value):
                        ints.add(target.id)
                    elif isinstance(target, gast.Tuple) and isinstance(node.value, gast.Tuple):
                        ints.update(t.id for t, v in zip(target.elts, node.value.elts)
                                    if isinstance(t, gast.Name) and is_int(v))
            elif isinstance(node, gast.For) and isinstance(node.target, gast.Name) and \
                    isinstance(node.iter, gast.Call) and \
                    isinstance(node.iter.func, gast.Name) and node.iter.func.id == "range":
                ints.add(node.target.id)
        grown = len(ints) != before

    growing = (gast.Mult, gast.Pow, gast.LShift)

    def refuse(node, what):
        raise source.syntax_error(
            f"{what}, on the numba target (target='numba'): numba's integers are 64-bit and "
            "wrap past 9.2e18, where Python's grow without bound", node,
            "Use target='numpy' for this function, or hold the value as a float "
            "(k = 1.0) where its size allows.")

    for node in _gast_walk(tree):
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Pow, gast.LShift)) and \
                is_int(node.left) and is_int(node.right) and \
                not isinstance(node.right, gast.Constant):
            refuse(node, "an integer raised to or shifted by a varying integer")
    for node, loop in _in_loops(tree):
        counter = loop.target.id if isinstance(loop, gast.For) and \
            isinstance(loop.target, gast.Name) else None  # (it starts again each turn)
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            name = node.target.id
            grows = is_int(node.value) and (isinstance(node.op, growing) or isinstance(
                node.op, gast.Add) and name in {n.id for n in _gast_walk(node.value)
                                                if isinstance(n, gast.Name)})  # (k += k)
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            name = node.targets[0].id
            grows = any(isinstance(part, gast.BinOp) and is_int(part) and (
                isinstance(part.op, growing) and any(
                    isinstance(side, gast.Name) and side.id == name
                    for side in (part.left, part.right)) or
                isinstance(part.op, gast.Add) and all(  # (k = k + k: doubled each turn)
                    isinstance(side, gast.Name) and side.id == name
                    for side in (part.left, part.right)))
                for part in _gast_walk(node.value))
        else:
            continue
        if grows and name in ints and name != counter:
            refuse(node, f"an integer multiplied by itself in a loop ({name})")


def _in_loops(node, loop=None):
    """Each statement under a loop of ``node``, with its innermost loop."""
    for child in gast.iter_child_nodes(node):
        if isinstance(child, gast.stmt) and loop is not None:
            yield child, loop
        inner = child if isinstance(child, (gast.For, gast.While)) else loop
        if isinstance(child, (gast.FunctionDef, gast.ClassDef, gast.Lambda)):
            continue
        yield from _in_loops(child, inner)


def parameters_of(tree) -> list:
    """The names of the parameters of the function ``tree``."""
    args = tree.args
    return [a.id for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                           *filter(None, (args.vararg, args.kwarg))]]


def _gast_walk(node):
    yield node
    for child in gast.iter_child_nodes(node):
        yield from _gast_walk(child)


def _is_call_func(node, top) -> bool:
    """Is ``node`` the function called by a call in ``top``, or the module of one?"""
    for parent in _gast_walk(top):
        if isinstance(parent, gast.Call):
            func = parent.func
            while isinstance(func, gast.Attribute):
                if func is node:
                    return True
                func = func.value
            if func is node:
                return True
    return False


_UNKNOWN = object()


def _static(source, node):
    """The value ``node`` (a name or attributes of one) names in the function's module,
    or ``_UNKNOWN`` (a local, an argument, an attribute of one)."""
    if isinstance(node, gast.Attribute):
        owner = _static(source, node.value)
        if owner is _UNKNOWN or not isinstance(owner, type(os)):
            return _UNKNOWN
        return getattr(owner, node.attr, _UNKNOWN)
    if isinstance(node, gast.Name) and node.id not in source.locals:
        for space in (source.closure, source.globals, vars(builtins)):
            if node.id in space:
                return space[node.id]
    return _UNKNOWN


def _number(value) -> bool:
    import numpy as np
    return isinstance(value, (int, float, np.number)) and not isinstance(value, np.complexfloating)


def _show(node) -> str:
    return ast.unparse(gast.gast_to_ast(node))


def _check_call(source, node, refuse, backend, seen) -> None:
    func = node.func
    if isinstance(func, gast.Attribute) and _static(source, func.value) is _UNKNOWN:
        instead = f"write np.{func.attr}(...)" if backend.compiles_call(
            "numpy", func.attr) else f"it has no np.{func.attr} either" + (
            " (copy an array by arithmetic: x * 1.0)" if func.attr == "copy" else "")
        refuse(node, f"the method call {_show(func)}()",
               f"numba's compiled gradient calls functions, not methods: {instead}. " +
               _ADVICE)
    value = _static(source, func)
    if value is _UNKNOWN:
        refuse(node, f"the call {_show(func)}(...)", _ADVICE)
    module = getattr(value, "__module__", None) or ""
    name = getattr(value, "__name__", "")
    if value is builtins.reversed and len(node.args) == 1 and not node.keywords and \
            isinstance(node.args[0], gast.Call) and \
            _static(source, node.args[0].func) is builtins.range:
        from .loops import backwards_range
        if backwards_range(node.args[0]) is not None:
            return  # (reversed(range(...)): a range of its own, walked from its end)
        refuse(node, "reversed(range(...)) with a step that is not a number written out",
               "Give the step as a number (reversed(range(a, b, 2))). " + _ADVICE)
    if (module, name) in backend.kernel_whole and _same(value, module, name) and \
            not _one_axis(node, backend.kernel_whole[module, name]):
        refuse(node, f"{_show(func)}(...) with a dtype, a tuple of axes or keepdims "
               f"without an axis: numba's compiled gradient takes np.{name} of a whole "
               "array or along one axis (an int)",
               f"Write np.{name}(x) or np.{name}(x, axis=k), or loop over the axes. " +
               _ADVICE)
    if backend.compiles_call(module, name) and _same(value, module, name):
        return
    import types
    if isinstance(value, types.FunctionType) and not module.startswith(("numpy", "s2sad",
                                                                         "scipy")):
        # (a SciPy function is SciPy's, not a helper of the user's to read: refused here,
        # at the user's call, not inside SciPy's wrappers)
        if value not in seen:
            callee = FunctionSource.of(value)
            check_source(callee, backend, seen)
        return
    refuse(node, f"the call {_show(func)}(...): numba's compiled gradient has no "
           f"{module + '.' if module else ''}{name}", _ADVICE)


def _check_range_loop(loop, refuse) -> None:
    """Refuse a loop over ``range(...)`` (or ``reversed`` of one) whose body rebinds a
    name its bounds read: Python reads them once, before the loop, and the kernel walks
    only ranges whose bounds it reads there too."""
    walked = loop.iter
    if isinstance(walked, gast.Call) and isinstance(walked.func, gast.Name) and \
            walked.func.id == "reversed" and len(walked.args) == 1:
        walked = walked.args[0]
    if not (isinstance(walked, gast.Call) and isinstance(walked.func, gast.Name) and
            walked.func.id == "range"):
        return
    read = {n.id for n in _gast_walk(walked) if isinstance(n, gast.Name)} - {"range"}
    rebound = sorted(read & {n.id for stmt in loop.body for n in _gast_walk(stmt)
                             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)})
    if rebound:
        refuse(loop.iter, f"a loop over a range whose bounds read {', '.join(rebound)}, "
               "which its body rebinds", f"Copy the bound into a name of its own before "
               f"the loop (stop = {rebound[0]}; for i in range(..., stop, ...)). " + _ADVICE)


def _same(value, module, name) -> bool:
    """Is ``value`` the function ``name`` of ``module`` (not another of that name)?"""
    import sys
    return getattr(sys.modules.get(module), name, None) is value


def _plain_kind(desc) -> bool:
    """Does an argument so described go to numba as it is (a number, a NumPy array)?"""
    if desc in ("float", "int", "bool"):
        return True
    return isinstance(desc, tuple) and len(desc) >= 3 and desc[0] == "nd" and \
        desc[1] > 0 and desc[2] in _KINDS  # (a NumPy number would come back a float)


def _kind_text(desc) -> str:
    if isinstance(desc, tuple) and len(desc) >= 3 and desc[0] == "nd" and desc[1] == 0 and \
            desc[2] in _KINDS:
        return "a NumPy number or 0-d array: pass float(x)"
    if isinstance(desc, tuple) and desc:
        return {"list": "a list", "tuple": "a tuple", "dict": "a dict"}.get(
            desc[0], "an array of complex numbers" if desc[0] == "nd" else "an object")
    return f"a {desc}" if isinstance(desc, str) else "an object"


# --- the generated code -------------------------------------------------------------------


@dataclasses.dataclass
class Kernel:
    """What :func:`lower` made of a generated function: the kernel's name, the user's line
    of each kernel statement (``(first line, last line, user line)``), and numba's
    compile time once it compiled (``seconds``)."""
    name: str
    lines: list
    source: object
    seconds: float | None = None
    points: dict | None = None  # exact kinds of its arguments -> entry point (attach)
    point: object = None        # the function that finds one (attach)
    dispatcher: object = None   # numba's dispatcher of the kernel (attach)
    # one loop over the elements (numba_fusion), for contiguous arrays, or a kernel that
    # rebinds an argument (``x = x + 0.01 * v``: numba would type the new arrays with the
    # argument's layout A): compiled for the arguments' own types (layout C, which LLVM
    # vectorizes), where a call's overhead is small beside the work
    fused: bool = False


def lower(compiled, source, backend, kinds=None, floats=(frozenset(),) * 4,
          numpy_numbers=frozenset(), fixed_rows=frozenset()):
    """``compiled`` (a generated gradient) as a kernel numba compiles and its wrapper, or
    an ``UnsupportedSyntaxError`` at the user's line of the first generated statement the
    kernel cannot hold. ``kinds``: each argument's kind, by name; ``floats``: the names
    the pipeline's kinds say hold real floating numbers, arrays and 1-d arrays of them, and
    integers (their tapes, arrays of floats: :meth:`_Lowering.array_tapes`; the items of a
    vector never read back, not saved: :meth:`_Lowering.unread_items`); ``numpy_numbers``:
    the returned names that hold NumPy's floats, which the wrapper returns as NumPy's
    (``as_numpy_number``: numba boxes a float64 as a Python float); ``fixed_rows``: the
    1-d arrays whose every value a loop saves has one length
    (:func:`~s2sad.transforms.fixed_shapes.fixed_rows`), saved in the rows of a 2-d
    array (``grid_tape``)."""
    module = ast.parse(compiled.text)
    fn = next(s for s in module.body if isinstance(s, ast.FunctionDef) and
              s.name == compiled.name)
    statements = list(_statements(fn.body))
    for stmt, line in zip(statements, compiled.user_lines):
        stmt.user = line
    aliases = _aliases(module)
    names = ({n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} |
             {a.arg for a in fn.args.args}) - set(aliases)  # (its variables, before lowering)
    try:
        kernel, wrapper = _Lowering(fn, aliases, set(compiled.live), backend, kinds or {},
                                    floats, numpy_numbers, fixed_rows).run()
    except _Refused as refused:
        node, stmt, what, hint = refused.args
        raise _located(source, getattr(stmt, "user", None), what, hint) from None
    fused = ElementwiseFusion(kinds or {}, next(
        (k for k, v in aliases.items() if v == backend.module), None), backend).run(
        kernel, wrapper) \
        if GUARD not in names else None   # (runs of elementwise statements: one loop each)
    plain = fused and fused.plain
    for each in (kernel, plain) if plain else (kernel,):
        _vectorized_calls(each, aliases, backend)
    _weak_constants(plain or kernel, next(  # (the fused loop's are float64's: no need)
        (k for k, v in aliases.items() if v == backend.module), None),
        backend.fused_unary | {"sum", "prod"})   # (a whole array's sum: its dtype's number)
    called = {n.id for n in ast.walk(ast.Module([kernel, wrapper, *filter(None, [plain])], []))
              if isinstance(n, ast.Name)}
    helpers = sorted(called & {*backend.kernel_helpers.values(), *backend.kernel_checked.values(),
                               *backend.kernel_replaced.values(),
                               *(n for pair in backend.kernel_vectorized.values()
                                 for n in pair), "saved_item", "as_index",
                               "float_tape", "put_float", "range_last", "tape_value",
                               "push_float", "grow_tape", "matmul_small", "dot_small",
                               "outer_small",
                               "check_tape", "memory_budget", "tape_bytes", "zeros_like",
                               "head_length", "row_tape", "put_row", "row_of",
                               "grid_tape", "put_grid",
                               "new_shape", "shape_places", "put_place", "add_outer",
                               "as_numpy_number", "weak"})
    clash = sorted(set(helpers) & names)
    if clash:
        raise _located(source, source.tree.lineno, f"a variable named {clash[0]}",
                       f"Rename it: the compiled gradient calls s2sad's helper {clash[0]}.")
    header = [s for s in module.body if isinstance(s, (ast.Import, ast.ImportFrom))] + \
        ast.parse(f"import {backend.compiler}" + (
            f"\nfrom {backend.kernel_module} import {', '.join(helpers)}" if helpers else "")
            + (f"\nfrom {GUARD_MODULE} import {', '.join(sorted(fused.helpers))}" if plain
               else "")).body

    def written(cache: bool) -> str:
        for each in (kernel, plain) if plain else (kernel,):
            each.decorator_list = [ast.Call(
                ast.Attribute(ast.Name(backend.compiler, ast.Load()), "njit", ast.Load()), [],
                [ast.keyword("cache", ast.Constant(cache))])]
        return "\n\n\n".join([ast.unparse(ast.fix_missing_locations(ast.Module(header, []))),
                               *(ast.unparse(ast.fix_missing_locations(f))
                                 for f in (kernel, plain, wrapper) if f)]) + "\n"
    text = written(True)
    path = _cache_file(compiled.name, text) if os.path.isfile(source.filename or "") else None
    if path is None:
        text = written(False)
    lines = _kernel_lines(kernel, text)
    result = dataclasses.replace(compiled, text=text)
    if path is not None:  # (numba caches what lives in a file: the kernel's module is one)
        if not os.path.exists(path):
            partial = f"{path}.{os.getpid()}.tmp"
            with open(partial, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(partial, path)
        result.filename = path
    stored = {n.id for n in ast.walk(kernel) if isinstance(n, ast.Name) and
              isinstance(n.ctx, ast.Store)}
    result.kernel = Kernel(kernel.name, lines, source, fused=bool(plain) or any(
        a.arg in stored and isinstance((kinds or {}).get(a.arg), tuple)
        for a in kernel.args.args))  # (an array argument rebound)
    return result


def module_namespace(compiled, namespace: dict) -> dict:
    """The namespace of a module, in ``sys.modules``, for the kernel's code to run in:
    numba's cache finds a kernel's module by name when it loads it (the name is the file's,
    the same in every process)."""
    import sys
    import types
    stem = os.path.splitext(os.path.basename(compiled.filename))[0]
    name = "s2sad.kernels." + ("".join(c if c.isalnum() else "_" for c in stem))
    module = types.ModuleType(name)
    module.__dict__.update(namespace, __name__=name, __file__=compiled.filename)
    sys.modules[name] = module
    return module.__dict__


def cache_directory() -> str:
    """Where the kernels of functions that live in a file are written, for numba's cache
    (``$S2SAD_CACHE_DIR``, else ``~/.cache/s2sad``): numba keeps its compiled code beside
    them, across processes."""
    return os.path.join(os.environ.get("S2SAD_CACHE_DIR") or
                        os.path.join(os.path.expanduser("~"), ".cache", "s2sad"), "numba")


def _cache_file(name: str, text: str) -> str | None:
    """The file of a kernel: named by its text and s2sad's numba helpers (numba's cache
    does not follow the helpers it calls), or None where it cannot be written."""
    from ..runtime import budget
    helpers = os.path.join(os.path.dirname(budget.__file__), "numba_tape.py")
    with open(helpers, "rb") as file:
        digest = hashlib.sha1(text.encode() + file.read()).hexdigest()[:16]
    directory = cache_directory()
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError:
        return None
    return os.path.join(directory, f"{name}_{digest}.py") if os.access(directory, os.W_OK) \
        else None


def _located(source, user, what, hint):
    message = f"{what} on the numba target (target='numba')"
    if isinstance(user, tuple):  # (inlined from another function of the user's)
        filename, lineno, text, _, _ = user[-1]
        return UnsupportedSyntaxError(message, filename, lineno, text, None, hint, calls=user)
    return UnsupportedSyntaxError(message, source.filename, user, source.line(user)
                                  if user else None, None, hint)


def _aliases(module) -> dict:
    """Each name the generated module's imports bind -> the dotted name it stands for."""
    found = {}
    for stmt in module.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                found[alias.asname or alias.name.split(".")[0]] = \
                    alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                found[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
    return found


def _vectorized_calls(function, aliases, backend) -> None:
    """Each call ``np.tanh(x)`` in ``function`` (the kernel, its loops over elements
    fused) made a call of the backend's version that LLVM vectorizes
    (``backend.kernel_vectorized``). A call with more arguments (``out``) is left as it is.

    >>> from s2sad.backends.numba_backend import NUMBA
    >>> fn = ast.parse("def k(x):\\n    return np.tanh(x) + np.tanh(x, x)").body[0]
    >>> _vectorized_calls(fn, {"np": "numpy"}, NUMBA)
    >>> print(ast.unparse(fn.body[0]))
    return tanh_vectorized(x) + np.tanh(x, x)
    >>> fn = ast.parse("def k(x):\\n    return np.tanh(x + 1.0)").body[0]
    >>> _vectorized_calls(fn, {"np": "numpy"}, NUMBA)
    >>> print(ast.unparse(fn.body[0]))
    return tanh_in_place(x + 1.0)
    """
    for node in ast.walk(function):
        if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
            continue
        func = node.func
        full = f"{aliases.get(func.value.id)}.{func.attr}" if isinstance(func, ast.Attribute) \
            and isinstance(func.value, ast.Name) else \
            aliases.get(func.id) if isinstance(func, ast.Name) else None
        replaced = backend.kernel_vectorized.get(tuple((full or "").rsplit(".", 1)))
        if replaced is not None:   # (of an operator's new array: into it, no array made)
            node.func = ast.Name(replaced[isinstance(node.args[0], ast.BinOp)], ast.Load())


def _weak_constants(function, numpy, keeping) -> None:
    """Each float constant of ``function`` that is an operand of an arithmetic operator,
    beside an operand made of named values by arithmetic and NumPy's functions
    ``keeping`` a float type (``numpy``: the name NumPy is bound to), written
    ``weak(c, *names)``: NumPy casts a Python float to a float32 operand's type (NEP 50),
    where numba's float64 constant would make the result float64
    (s2sad.runtime.numba_weak). Beside another operand (``np.zeros(n)``, a Python
    float's name) it is left as numba takes it.

    >>> fn = ast.parse("def k(x, n):\\n    return 1.0 + x * x - 2.0 * 3.0 + -0.5 * np.exp(x[0]) "
    ...                "+ 0.5 * np.zeros(n)").body[0]
    >>> _weak_constants(fn, "np", frozenset({"exp"}))
    >>> print(ast.unparse(fn.body[0]))
    return weak(1.0, x) + x * x - 2.0 * 3.0 + weak(-0.5, x) * np.exp(x[0]) + 0.5 * np.zeros(n)
    """
    def constant(node) -> bool:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            node = node.operand
        return isinstance(node, ast.Constant) and type(node.value) is float

    def made_of(node):   # (the names, or None where the operand is made otherwise)
        if isinstance(node, ast.Name):
            return [node.id]
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            return [node.value.id]
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return []
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return made_of(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult,
                                                                 ast.Div, ast.Pow)):
            left, right = made_of(node.left), made_of(node.right)
            return None if left is None or right is None else left + right
        if isinstance(node, ast.Call) and not node.keywords:
            func = node.func
            if isinstance(func, ast.Name) and func.id == "weak":
                return []
            kept = isinstance(func, ast.Name) and func.id in ("tanh_vectorized",
                                                               "tanh_in_place") or \
                isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id == numpy and func.attr in keeping
            if kept and len(node.args) == 1:
                return made_of(node.args[0])
        return None

    for node in ast.walk(function):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (
                ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)) and \
                constant(node.left) != constant(node.right):
            side, other = ("left", node.right) if constant(node.left) else ("right", node.left)
            names = list(dict.fromkeys(made_of(other) or ()))
            if not names or len(names) > 4:   # (weak takes four)
                continue
            value = getattr(node, side)
            if isinstance(value, ast.UnaryOp):
                value = ast.Constant(-value.operand.value)
            setattr(node, side, ast.Call(ast.Name("weak", ast.Load()), [value, *(
                ast.Name(n, ast.Load()) for n in names)], []))


def _kernel_lines(kernel, text) -> list:
    parsed = next(s for s in ast.parse(text).body if isinstance(s, ast.FunctionDef) and
                  s.name == kernel.name)
    return [(new.lineno, new.end_lineno or new.lineno, getattr(old, "user", None))
            for old, new in zip(_statements(kernel.body), _statements(parsed.body))]


class _Lowering:
    """One generated function made a kernel and a wrapper (see the module's docstring)."""

    def __init__(self, fn, aliases, live, backend, kinds, floats=(frozenset(),) * 4,
                 numpy_numbers=frozenset(), fixed_rows=frozenset()):
        self.fn, self.aliases, self.live, self.backend = fn, aliases, live, backend
        self.numpy_numbers = numpy_numbers
        self.fixed_rows = fixed_rows
        self.grids = set()  # lists held as rows whose rows have one length: a 2-d array
        self.kinds = kinds
        self.real_scalars, self.real_arrays, self.real_vectors, self.integers = floats
        self.unread = set()  # the tapes of items the reverse sweep never reads: left out
        self.counts = {}   # a tape held in an array of floats -> the name of its count
        self.reserves = {}  # a loop (its id) -> [(tape, values a turn saves)], grown before it
        self.zeros = {}  # an array argument's sensitivity, started as 0.0 -> the argument
        self.tapes = set()      # lists appended to and popped (`stack = []`)
        self.indexed = {}       # lists indexed by a loop's counter: name -> their length
        self.budget = None      # the kernel's parameter holding the memory budget
        self.rows = {}   # a list indexed by a loop's counter held as rows -> its offsets (a
        # grid_tape: None)
        self.row_saves = {}  # a list held as rows -> the name it saves
        self.shapes = {}  # one of shapes, a place a run of equal shapes -> the turns' places
        used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | \
            {a.arg for a in fn.args.args}
        self.fresh = lambda base: next(f"{base}{'_' * k}" for k in range(len(used) + 2)
                                       if f"{base}{'_' * k}" not in used | self.taken)
        self.taken = set()
        # for each loop around the statement lowered, innermost last: does its every turn
        # reach the next (no `break`)? A value saved there is then one the loop assigns
        # too (numba types it as the number it is from its second turn)
        self.loops = []

    def run(self):
        fn = self.fn
        args = fn.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise _Refused(fn, fn.body[0], "a function with *args, **kwargs or keyword-only "
                           "parameters", _ADVICE)
        body = list(fn.body)
        if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
            raise _Refused(fn, body[-1], "a function that does not end in one `return`",
                           _ADVICE)
        ret = body.pop()
        self.split = self.tapes_by_name(body)
        self.floats = self.float_tapes(body)
        returned = {n.id for n in ast.walk(ret) if isinstance(n, ast.Name)}
        self.unread = {tape for names in self.split.values() for saved, tape in names.items()
                       if saved.partition("[")[0] not in returned and
                       self.unread_items(body, saved)}
        self.array_tapes(body)
        self.rows, self.shapes = self.turn_tapes(body)
        lists = {t.targets[0].id for t in ast.walk(ast.Module(body, [])) if isinstance(
            t, ast.Assign) and isinstance(t.targets[0], ast.Name) and isinstance(
            t.value, ast.BinOp) and isinstance(t.value.left, ast.List)}  # ([None] * n)
        # names restored from a tape, which numba types as optional (their first value
        # saved is None): an index of theirs is unwrapped (as_index)
        self.restored = {name for names in self.split.values() for name in names
                         if name.isidentifier()} | {
            t.targets[0].id for t in ast.walk(ast.Module(body, [])) if isinstance(
                t, ast.Assign) and isinstance(t.targets[0], ast.Name) and isinstance(
                t.value, ast.Subscript) and isinstance(t.value.value, ast.Name) and
            t.value.value.id in lists}
        for node in ast.walk(ret.value):  # (as_gradient(W, s_W) of an array argument W)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    self.aliases.get(node.func.id, "").endswith(("as_gradient", "fresh_gradient")) \
                    and len(node.args) == 2 and all(isinstance(a, ast.Name) for a in node.args):
                kind = self.kinds.get(node.args[0].id)
                if isinstance(kind, tuple) and len(kind) >= 3 and kind[1] > 0:
                    self.zeros[node.args[1].id] = node.args[0].id
        for param in args.args:  # (an array argument not differentiated: its sensitivity
            kind = self.kinds.get(param.arg)  # too, 0.0 + an array in NumPy's code)
            if isinstance(kind, tuple) and len(kind) >= 3 and kind[1] > 0:
                self.zeros.setdefault(f"s_{param.arg}", param.arg)
        kernel_body = self.block(body, None)
        for node in ast.walk(ast.Module(kernel_body, [])):
            if isinstance(node, ast.Return):
                raise _Refused(node, node, "an early `return`", _ADVICE)
        # the return: the kernel computes its parts, the wrapper shapes the gradient
        params = [a.arg for a in args.args]
        stored = {n.id for n in ast.walk(ast.Module(kernel_body, [])) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Store)}
        self.unchanged = set(params) - stored  # (read by the wrapper: not handed back)
        self.own = _own_arrays(kernel_body, self.zeros, self.kinds)
        hoisted, names = [], []
        shaped = self.shape(ret.value, ret, hoisted, names)
        shaped = self.numpy_number(shaped)
        kernel_body += hoisted
        kernel_body.append(ast.Return(ast.Name(names[0], ast.Load()) if len(names) == 1 else
                                      ast.Tuple([ast.Name(n, ast.Load()) for n in names],
                                                ast.Load())))
        live = sorted(self.live)
        extra = live + ([self.budget] if self.budget else [])
        kname = self.fresh(f"kernel_{fn.name}")
        kernel = _function(kname, params + extra, kernel_body)
        call = ast.Call(ast.Name(kname, ast.Load()), [ast.Name(p, ast.Load()) for p in params + live] +
                        ([ast.Call(ast.Name("memory_budget", ast.Load()), [], [])]
                         if self.budget else []), [])
        if _names_of(shaped) == names and names:  # (the kernel's result is the gradient)
            wrapper = _function(fn.name, params, [ast.Return(call)])
        else:
            targets = ast.Name(names[0], ast.Store()) if len(names) == 1 else \
                ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
            wrapper = _function(fn.name, params, [ast.Assign([targets], call),
                                                  ast.Return(shaped)])
        for stmt in (kernel, wrapper):
            stmt.lineno = 1
        return kernel, wrapper

    def numpy_number(self, shaped):
        """The wrapper's result ``shaped`` with each returned NumPy float (a name of
        ``numpy_numbers``, alone or an item of the tuple) given as NumPy's."""
        def made(node):
            if isinstance(node, ast.Name) and node.id in self.numpy_numbers:
                return ast.Call(ast.Name("as_numpy_number", ast.Load()), [node], [])
            return node
        if isinstance(shaped, ast.Tuple):
            shaped.elts = [made(e) for e in shaped.elts]
            return shaped
        return made(shaped)

    def float_tapes(self, body) -> set:
        """The lists indexed by a loop's counter (``p_saved = [None] * n``) that save one
        name, a Python float where the list is made (``p = 1.0``, or a float argument):
        numba's variable then holds a float64 in every turn, and the list is an array of
        them (``float_tape``), not a list grown by appends."""
        found = set()
        saved = {}
        for node in ast.walk(ast.Module(body, [])):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                    isinstance(node.targets[0], ast.Subscript) and \
                    isinstance(node.targets[0].value, ast.Name):
                saved.setdefault(node.targets[0].value.id, set()).add(
                    node.value.id if isinstance(node.value, ast.Name) else None)
        kinds = dict(self.kinds)
        floats = {name for name, kind in kinds.items() if kind == "float"}
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name):
                name, value = stmt.targets[0].id, stmt.value
                if isinstance(value, ast.BinOp) and isinstance(value.left, ast.List):
                    names = saved.get(name, set())
                    if len(names) == 1 and next(iter(names)) in floats:
                        found.add(name)
                    continue
                if isinstance(value, ast.Constant) and type(value.value) is float or \
                        isinstance(value, ast.Name) and value.id in floats:
                    floats.add(name)
                    continue
            for node in ast.walk(stmt):  # (bound otherwise: not known a float here)
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                    floats.discard(node.id)
        return found

    def array_tapes(self, body) -> None:
        """The tapes (a name's list, :meth:`tapes_by_name`) held in an array of floats and a
        count, not a list grown by appends: those whose every value is a real float by the
        pipeline's kinds (a name's, or an item of a float array's), saved only at the top
        level of loops ``for i in range(n)`` that neither break nor continue. Before each
        such loop the array grows by what its turns save (``grow_tape``); a turn writes
        into it (``push_float``), as a person preallocates ``np.empty(n)``. Fills
        ``counts`` (each such tape's count) and ``reserves`` (by loop)."""
        module = ast.Module(body, [])
        total, covered, loops = {}, {}, []
        for node in ast.walk(module):
            push = self.tape_push(node)
            if push is not None:
                total[push] = total.get(push, 0) + 1
            if isinstance(node, ast.For) and _call_of(node.iter, "range") and \
                    self.aliases.get("range") is None and len(node.iter.args) == 1 and \
                    _atom(node.iter.args[0]) and not node.orelse and not any(
                        isinstance(n, (ast.Break, ast.Continue))
                        for n in ast.walk(ast.Module(node.body, []))):
                turn = {}
                for stmt in node.body:
                    push = self.tape_push(stmt)
                    if push is not None:
                        turn[push] = turn.get(push, 0) + 1
                        covered[push] = covered.get(push, 0) + 1
                loops.append((node, turn))
        arrays = sorted(tape for tape, count in total.items() if covered.get(tape) == count)
        for tape in arrays:
            self.counts[tape] = self.fresh(f"{tape}_n")
            self.taken.add(self.counts[tape])
        for loop, turn in loops:
            grown = [(tape, count) for tape, count in sorted(turn.items()) if tape in self.counts]
            if grown:
                self.reserves[id(loop)] = grown

    def turn_tapes(self, body) -> tuple:
        """The lists indexed by a loop's counter (``h_saved = [None] * n``; ``h_saved[t] = h``
        in ``for t in range(n)``; ``h = h_saved[t]`` in the reverse sweep) held otherwise than
        in a list of n values (the names of their offsets or places, by list):

        - *rows*, where every value saved is one name holding a 1-d array of real floats
          (the pipeline's kinds, or its value before the list is made: ``np.zeros(n)``;
          numba's variable holds one type), never None, bound only to new arrays (NumPy's
          functions, arithmetic, its own tape), in a function that writes into no array
          but sensitivities (``s_x[i] += ...``: arrays the reverse sweep made): a copy of
          each is the value itself. The turns' rows lie in one buffer made at the first
          turn (:func:`~s2sad.runtime.numba_tape.put_row`), where a list holds n arrays
          made one a turn; a row of another length has its own.
        - *shapes*, where every value saved is ``shape_of(x)`` (read back for its shape only):
          a run of turns saving the same shape keeps one value (``new_shape``) and each turn
          its place, an integer, where a list grows by one value a turn.
        """
        module = ast.Module(body, [])
        made = {t.targets[0].id for t in ast.walk(module) if isinstance(t, ast.Assign) and
                len(t.targets) == 1 and isinstance(t.targets[0], ast.Name) and
                isinstance(t.value, ast.BinOp) and isinstance(t.value.op, ast.Mult) and
                isinstance(t.value.left, ast.List) and len(t.value.left.elts) == 1 and
                isinstance(t.value.left.elts[0], ast.Constant) and
                t.value.left.elts[0].value is None}
        made -= self.floats
        saves, uses = {}, {}
        for t in ast.walk(module):
            if isinstance(t, ast.Assign) and len(t.targets) == 1 and \
                    isinstance(t.targets[0], ast.Subscript) and \
                    isinstance(t.targets[0].value, ast.Name) and t.targets[0].value.id in made:
                saves.setdefault(t.targets[0].value.id, []).append(t.value)
                uses.setdefault(t.targets[0].value.id, set()).add(id(t.targets[0].value))
            elif isinstance(t, ast.Assign) and len(t.targets) == 1 and \
                    isinstance(t.targets[0], ast.Name) and isinstance(t.value, ast.Subscript) \
                    and isinstance(t.value.value, ast.Name) and t.value.value.id in made:
                uses.setdefault(t.value.value.id, set()).add(id(t.value.value))
        for n in ast.walk(module):  # (a list read otherwise: as it is)
            if isinstance(n, ast.Name) and n.id in made and isinstance(n.ctx, ast.Load) and \
                    id(n) not in uses.get(n.id, ()):
                made.discard(n.id)

        def shape_call(v) -> bool:
            return isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and \
                self.aliases.get(v.func.id, "").rpartition(".")[2] == "shape_of" and \
                len(v.args) == 1 and not v.keywords and isinstance(v.args[0], ast.Name)
        written = {n.value.id for n in ast.walk(module) if isinstance(n, ast.Subscript) and
                   isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)} | {
            n.target.id for n in ast.walk(module) if isinstance(n, ast.AugAssign) and
            isinstance(n.target, ast.Name)}
        updates = any(isinstance(n, ast.AugAssign) and not (
            isinstance(n.target, ast.Name) and n.target.id.startswith("s_") or
            isinstance(n.target, ast.Subscript) and isinstance(n.target.value, ast.Name) and
            n.target.value.id.startswith("s_"))
            for n in ast.walk(module)) or any(
            isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and not (
                isinstance(n.value, ast.Name) and (n.value.id in made or
                                                   n.value.id.startswith("s_")))
            for n in ast.walk(module))  # (a sensitivity holds what the reverse sweep made)
        aliased = {t.value.id for t in ast.walk(module) if isinstance(t, ast.Assign) and
                   isinstance(t.value, ast.Name) and not (  # (y = h: two names, one array)
                       isinstance(t.targets[0], ast.Subscript) and
                       isinstance(t.targets[0].value, ast.Name) and
                       t.targets[0].value.id in made)}

        def new_array(name, value) -> bool:
            if isinstance(value, (ast.BinOp, ast.UnaryOp)):
                return True
            if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
                return value.value.id in made and all(
                    isinstance(v, ast.Name) and v.id == name for v in saves[value.value.id])
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                full = self.dotted(value.func) or ""
                head, _, attr = full.rpartition(".")
                if head != self.backend.module:   # (the array module's: NumPy's for numba)
                    return False
                if attr in ("zeros", "ones", "empty", "full"):
                    return True
                import numpy
                return isinstance(getattr(numpy, attr, None), numpy.ufunc)
            return False
        def vector(value) -> bool:  # (np.zeros(n): a 1-d array of float64, whose type
            return isinstance(value, ast.Call) and isinstance(  # numba's variable keeps)
                value.func, ast.Attribute) and (self.dotted(value.func) or "") in (
                    "numpy.zeros", "numpy.ones", "numpy.empty") and len(value.args) == 1 and \
                not value.keywords and (isinstance(value.args[0], ast.Constant) and type(
                    value.args[0].value) is int or isinstance(value.args[0], ast.Subscript) and
                    isinstance(value.args[0].value, ast.Attribute) and
                    value.args[0].value.attr == "shape" or isinstance(value.args[0], ast.Name)
                    and value.args[0].id in self.integers)
        rows, shapes = {}, {}
        for name in sorted(made):
            values = saves.get(name, [])
            if values and all(shape_call(v) for v in values):
                shapes[name] = self.fresh(f"{name}_at")
                self.taken.add(shapes[name])
                continue
            if not values or updates or not all(isinstance(v, ast.Name) for v in values):
                continue
            array = values[0].id
            if any(v.id != array for v in values) or \
                    array in written | aliased or \
                    array in {a.arg for a in self.fn.args.args}:
                continue
            binds = [t.value for t in ast.walk(module) if isinstance(t, ast.Assign) and any(
                isinstance(n, ast.Name) and n.id == array and isinstance(n.ctx, ast.Store)
                for u in t.targets for n in ast.walk(u))]
            if binds and all(len(t.targets) == 1 and isinstance(t.targets[0], ast.Name)
                             for t in ast.walk(module) if isinstance(t, ast.Assign) and any(
                                 isinstance(n, ast.Name) and n.id == array and
                                 isinstance(n.ctx, ast.Store)
                                 for u in t.targets for n in ast.walk(u))) and \
                    all(new_array(array, v) for v in binds) and not any(
                        isinstance(n, (ast.For, ast.comprehension)) and any(
                            isinstance(m, ast.Name) and m.id == array
                            for m in ast.walk(n.target)) for n in ast.walk(module)):
                made_at = next(k for k, top in enumerate(body) if any(
                    isinstance(t, ast.Assign) and isinstance(t.targets[0], ast.Name) and
                    t.targets[0].id == name for t in ast.walk(top)))
                before = [top.value for top in body[:made_at] if isinstance(top, ast.Assign)
                          and len(top.targets) == 1 and isinstance(top.targets[0], ast.Name)
                          and top.targets[0].id == array]
                if not before or array not in self.real_vectors and not vector(before[-1]):
                    continue  # (its type read from its value before the list is made)
                self.row_saves[name] = array
                if array in self.fixed_rows:   # (one length: a 2-d array, no offsets)
                    self.grids.add(name)
                    rows[name] = None
                    continue
                rows[name] = self.fresh(f"{name}_at")
                self.taken.add(rows[name])
        return rows, shapes

    def unread_items(self, body, saved) -> bool:
        """Are the items a tape saves as ``saved`` (``f[i]``) never read back? So where
        ``f`` is a 1-d array of real floats that only ``f`` and its own tapes hold (each
        value bound to it a new array: ``np.zeros(n)``, or one of its own restored), read in
        the forward sweep only (by item, or whole where arithmetic makes a new array), and
        in the reverse sweep only for its shape (``zeros_like(f)``). Restoring its items
        there changes nothing anyone reads: the kernel neither saves nor restores them
        (``f[i] = f[i] + fi`` has a derivative that does not read ``f``)."""
        array, _, rest = saved.partition("[")
        if not rest or array not in self.real_vectors:
            return False
        module = ast.Module(body, [])
        tapes = {tape for tape, names in self.split.items() if saved in names}
        own = {tape for tape, names in self.split.items() if array in names}  # (f itself)
        if array in {a.arg for a in self.fn.args.args}:
            return False  # (the caller's array)
        # the lists indexed by a loop's counter that hold f's values (f_saved[_] = f), and
        # only those: each is read back into f alone (f = f_saved[_])
        lists = {t.targets[0].value.id for t in ast.walk(module) if isinstance(
            t, ast.Assign) and len(t.targets) == 1 and isinstance(t.targets[0], ast.Subscript)
            and isinstance(t.targets[0].value, ast.Name) and
            t.targets[0].value.id in self.indexed_lists(module) and
            isinstance(t.value, ast.Name) and t.value.id == array}
        for t in ast.walk(module):
            if isinstance(t, ast.Assign) and len(t.targets) == 1 and isinstance(
                    t.targets[0], ast.Subscript) and isinstance(t.targets[0].value, ast.Name) \
                    and t.targets[0].value.id in lists and not (
                        isinstance(t.value, ast.Name) and t.value.id == array):
                return False
        restores = {id(t.value.value) for t in ast.walk(module) if isinstance(t, ast.Assign)
                    and [ast.dump(u) for u in t.targets] ==
                    [ast.dump(ast.Name(array, ast.Store()))] and
                    isinstance(t.value, ast.Subscript) and
                    isinstance(t.value.value, ast.Name) and t.value.value.id in lists}
        stores = {id(t.targets[0].value) for t in ast.walk(module) if isinstance(t, ast.Assign)
                  and len(t.targets) == 1 and isinstance(t.targets[0], ast.Subscript) and
                  isinstance(t.targets[0].value, ast.Name) and t.targets[0].value.id in lists}
        if any(isinstance(n, ast.Name) and n.id in lists and id(n) not in restores | stores
               and not (isinstance(n.ctx, ast.Store)) for n in ast.walk(module)):
            return False
        reverse = next((k for k, top in enumerate(body) if any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
            n.func.attr == "pop" and isinstance(n.func.value, ast.Name) and
            n.func.value.id in tapes for n in ast.walk(top))), None)
        if reverse is None:
            return False
        parents = {}
        for k, top in enumerate(body):
            for node in ast.walk(top):
                for child in ast.iter_child_nodes(node):
                    parents[id(child)] = (node, k)

        def helper(call, *names) -> bool:
            return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
                self.aliases.get(call.func.id, "").rpartition(".")[2] in names and \
                len(call.args) == 1 and not call.keywords

        def integral(node) -> bool:
            if isinstance(node, ast.Constant):
                return type(node.value) is int
            if isinstance(node, ast.Name):
                return node.id in self.integers
            return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) \
                and integral(node.left) and integral(node.right)

        def fresh(value) -> bool:  # (a new array, None, or a value of f's own restored)
            if isinstance(value, ast.Constant):
                return value.value is None
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                    self.dotted(value.func) in ("numpy.zeros", "numpy.ones", "numpy.empty",
                                                "numpy.full"):
                return True
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                    value.func.attr == "pop" and isinstance(value.func.value, ast.Name):
                return value.func.value.id in own
            return isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and \
                value.value.id in lists

        for node in ast.walk(module):
            if not (isinstance(node, ast.Name) and node.id == array):
                continue
            parent, top = parents.get(id(node), (None, None))
            if isinstance(node.ctx, ast.Store):
                if isinstance(parent, ast.Assign) and not fresh(parent.value):
                    return False
                if isinstance(parent, ast.Tuple):  # (d, f = (None, None))
                    up = parents[id(parent)][0]
                    at = parent.elts.index(node)
                    if not (isinstance(up, ast.Assign) and isinstance(up.value, ast.Tuple) and
                            len(up.value.elts) == len(parent.elts) and
                            fresh(up.value.elts[at])):
                        return False
                elif not isinstance(parent, ast.Assign):
                    return False  # (a loop's counter, a with's target...)
                continue
            if isinstance(parent, ast.Subscript) and parent.value is node and \
                    integral(parent.slice):  # (an item: a number)
                up = parents[id(parent)][0]
                if top < reverse or isinstance(up, ast.Assign) and parent in up.targets and \
                        isinstance(up.value, ast.Call) and isinstance(up.value.func,
                                                                       ast.Attribute) \
                        and up.value.func.attr == "pop" and \
                        isinstance(up.value.func.value, ast.Name) and \
                        up.value.func.value.id in tapes:
                    continue  # (read in the forward sweep, or restored)
                return False
            if helper(parent, "zeros_like_structure", "shape_of", "zeros_like"):
                continue  # (its shape)
            if top < reverse and (isinstance(parent, ast.BinOp) and isinstance(
                    parent.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)) or
                    isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub)):
                continue  # (arithmetic: a new array)
            if isinstance(parent, ast.Assign) and parent.value is node and \
                    len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Subscript) \
                    and isinstance(parent.targets[0].value, ast.Name) and \
                    parent.targets[0].value.id in lists:
                continue  # (saved in a list of its own values: f_saved[_] = f)
            if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and \
                    parent.func.attr == "append" and isinstance(parent.func.value, ast.Name) \
                    and parent.func.value.id in own:
                continue  # (saved on its own tape)
            return False
        return True

    @staticmethod
    def indexed_lists(module) -> set:
        """The lists indexed by a loop's counter (``f_saved = [None] * n``)."""
        return {t.targets[0].id for t in ast.walk(module) if isinstance(t, ast.Assign) and
                len(t.targets) == 1 and isinstance(t.targets[0], ast.Name) and
                isinstance(t.value, ast.BinOp) and isinstance(t.value.left, ast.List)}

    def tape_push(self, node) -> str | None:
        """The name of the list ``node`` (a statement) saves a real float in
        (``stack.append(d)``, ``stack.append(np.array(f[i]))``), else None."""
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and
                isinstance(node.value.func, ast.Attribute) and
                node.value.func.attr == "append" and
                isinstance(node.value.func.value, ast.Name) and
                node.value.func.value.id in self.split):
            return None
        saved = _saved_name(node.value, self.aliases, self.backend.module)
        real = saved in self.real_scalars if saved.isidentifier() else \
            saved.partition("[")[0] in self.real_arrays
        tape = self.split[node.value.func.value.id][saved]
        return tape if real and tape not in self.unread else None

    def tapes_by_name(self, body) -> dict:
        """A tape of values of several kinds (a branch's bit, a float) is one list per
        name it saves: ``stack.append(x)`` pairs with ``x = stack.pop()`` (a value saved
        is restored to its name), so each name's list pops in the order the one list did.
        ``{tape: {name: its list's name}}``; anything else done with a tape is refused."""
        module = ast.Module(body, [])
        tapes = {t.targets[0].id for t in ast.walk(module) if isinstance(t, ast.Assign) and
                 len(t.targets) == 1 and isinstance(t.targets[0], ast.Name) and
                 isinstance(t.value, ast.List) and not t.value.elts}
        pushed = {tape: set() for tape in tapes}
        popped = {tape: set() for tape in tapes}
        for node in ast.walk(module):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Name) and node.func.value.id in tapes:
                tape = node.func.value.id
                saved = _saved_name(node, self.aliases, self.backend.module) \
                    if node.func.attr == "append" else None
                if saved is not None:
                    pushed[tape].add(saved)
                elif node.func.attr != "pop" or node.args:
                    raise _Refused(node, _statement_of(module, node),
                                   f"the tape operation {ast.unparse(node)}", _ADVICE)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                    isinstance(node.value.func, ast.Attribute) and \
                    isinstance(node.value.func.value, ast.Name) and \
                    node.value.func.value.id in tapes and node.value.func.attr == "pop":
                if len(node.targets) != 1 or _restored_name(node.targets[0]) is None:
                    raise _Refused(node, node, "a tape popped into " +
                                   ast.unparse(node.targets[0]), _ADVICE)
                popped[node.value.func.value.id].add(_restored_name(node.targets[0]))
        pops = {id(n.value) for n in ast.walk(module) if isinstance(n, ast.Assign)}
        for node in ast.walk(module):  # (a pop whose value is not restored to a name)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "pop" and isinstance(node.func.value, ast.Name) and \
                    node.func.value.id in tapes and id(node) not in pops:
                raise _Refused(node, _statement_of(module, node),
                               f"the tape operation {ast.unparse(node)}", _ADVICE)
        split = {}
        for tape in sorted(tapes):
            if pushed[tape] != popped[tape]:
                raise _Refused(self.fn, self.fn.body[0], "a tape whose values are not "
                               "restored to the names they were saved from", _ADVICE)
            split[tape] = {}
            for name in sorted(pushed[tape]):
                split[tape][name] = self.fresh(f"{tape}_{name}" if name.isidentifier() else
                                               f"{tape}_item_{name.partition('[')[0]}")
                self.taken.add(split[tape][name])
        return split

    # -- statements

    def block(self, body, loop):
        out = []
        for stmt in body:
            out.extend(self.statement(stmt, loop))
        return out

    def keep(self, new, old):
        new = ast.copy_location(new, old)
        new.user = getattr(old, "user", None)
        return new

    def statement(self, stmt, loop):
        if isinstance(stmt, ast.Assign):
            return self.assign(stmt, loop)
        if isinstance(stmt, ast.AugAssign):
            if not isinstance(stmt.target, (ast.Name, ast.Subscript)):
                raise _Refused(stmt, stmt, "an update of an attribute", _ADVICE)
            self.target(stmt.target, stmt)
            stmt.value = self.expr(stmt.value, stmt)
            value = stmt.value
            if isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name) and \
                    isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
                    value.func.id == "outer_small" and len(value.args) == 2 and \
                    not value.keywords:  # (s_W += np.outer(a, b): the products added in place)
                return [self.keep(ast.Assign([ast.Name(stmt.target.id, ast.Store())], ast.Call(
                    ast.Name("add_outer", ast.Load()), [ast.Name(stmt.target.id, ast.Load()),
                                                        *value.args], [])), stmt)]
            return [stmt]
        if isinstance(stmt, ast.If):
            stmt.test = self.expr(stmt.test, stmt)
            stmt.body = self.block(stmt.body, None if loop is None else ("if", loop))
            stmt.orelse = self.block(stmt.orelse, None if loop is None else ("if", loop))
            return [stmt]
        if isinstance(stmt, ast.While):
            if stmt.orelse:
                raise _Refused(stmt, stmt, "a `while` loop with an `else` block", _ADVICE)
            stmt.test = self.expr(stmt.test, stmt)
            self.loops.append(not breaks_own_loop(stmt.body))
            stmt.body = self.block(stmt.body, None)
            self.loops.pop()
            return [stmt]
        if isinstance(stmt, ast.For):
            return self.for_loop(stmt)
        if isinstance(stmt, ast.Expr):
            return self.effect(stmt)
        if isinstance(stmt, (ast.Pass, ast.Break, ast.Continue)):
            return [stmt]
        raise _Refused(stmt, stmt, f"a `{type(stmt).__name__.lower()}` statement", _ADVICE)

    def assign(self, stmt, loop):
        value = stmt.value
        if len(stmt.targets) != 1:
            raise _Refused(stmt, stmt, "a chained assignment", _ADVICE)
        target = stmt.targets[0]
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and \
                len(target.elts) == len(value.elts) and \
                all(isinstance(e, ast.Name) for e in target.elts):
            return [out for t, v in zip(target.elts, value.elts)   # (a, b = (None, None))
                    for out in self.assign(self.keep(ast.Assign([t], v), stmt), loop)]
        if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts) \
                and isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult) and \
                isinstance(value.left, ast.List) and len(value.left.elts) == 1 and \
                isinstance(value.left.elts[0], ast.Constant) and \
                isinstance(value.right, ast.Constant) and \
                value.right.value == len(target.elts):  # (s_v, s_k = [0.0] * 2)
            return [out for t in target.elts for out in self.assign(self.keep(ast.Assign(
                [t], ast.Constant(value.left.elts[0].value)), stmt), loop)]
        if loop is None and isinstance(target, ast.Name) and target.id in self.zeros and \
                isinstance(value, ast.Constant) and value.value == 0 and \
                type(value.value) is float:  # (its first term an array: numba keeps one type)
            return [self.keep(ast.Assign([target], ast.Call(ast.Name("zeros_like", ast.Load()), [
                ast.Name(self.zeros[target.id], ast.Load())], [])), stmt)]
        if isinstance(target, ast.Name) and isinstance(value, ast.List) and not value.elts:
            self.tapes.add(target.id)
            made = []
            for each in self.split[target.id].values():
                if each in self.unread:
                    continue  # (items never read back: not saved)
                if each in self.counts:  # (an array of floats, grown before its loops)
                    made += [self.keep(ast.Assign([ast.Name(each, ast.Store())], ast.Call(
                        ast.Name("float_tape", ast.Load()), [ast.Constant(0)], [])), stmt),
                        self.keep(ast.Assign([ast.Name(self.counts[each], ast.Store())],
                                             ast.Constant(0)), stmt)]
                else:
                    made.append(self.keep(ast.Assign([ast.Name(each, ast.Store())],
                                                     ast.List([], ast.Load())), stmt))
            return made
        if isinstance(value, ast.Call) and \
                isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name) \
                and value.func.value.id in self.split and value.func.attr == "pop":
            value.func.value.id = self.split[value.func.value.id][_restored_name(target)]
            self.target(target, stmt)
            tape = value.func.value.id
            if tape in self.unread:
                return []
            if tape in self.counts:  # (the count down by one, then the value there)
                count = self.counts[tape]
                return [self.keep(ast.AugAssign(ast.Name(count, ast.Store()), ast.Sub(),
                                                ast.Constant(1)), stmt),
                        self.keep(ast.Assign([target], ast.Subscript(
                            ast.Name(tape, ast.Load()), ast.Name(count, ast.Load()),
                            ast.Load())), stmt)]
            return [stmt]
        if isinstance(target, ast.Name) and isinstance(value, ast.BinOp) and \
                isinstance(value.op, ast.Mult) and isinstance(value.left, ast.List) and \
                len(value.left.elts) == 1 and isinstance(value.left.elts[0], ast.Constant) \
                and value.left.elts[0].value is None:  # (saved by the loop's counter)
            self.indexed[target.id] = ast.dump(value.right)
            size = self.expr(value.right, stmt)
            if target.id in self.grids:  # (a 2-d array, a row a turn)
                return [self.keep(ast.Assign([target], ast.Call(
                    ast.Name("grid_tape", ast.Load()), [
                        size, ast.Name(self.row_saves[target.id], ast.Load())], [])), stmt)]
            if target.id in self.rows:  # (a buffer of rows and their offsets)
                like = self.row_saves[target.id]
                return [self.keep(ast.Assign([ast.Tuple([
                    ast.Name(target.id, ast.Store()),
                    ast.Name(self.rows[target.id], ast.Store())], ast.Store())], ast.Call(
                        ast.Name("row_tape", ast.Load()), [size, ast.Name(like, ast.Load())],
                        [])), stmt)]
            if target.id in self.shapes:  # (the shapes, and each turn's place among them)
                return [self.keep(ast.Assign([ast.Name(target.id, ast.Store())],
                                             ast.List([], ast.Load())), stmt),
                        self.keep(ast.Assign([ast.Name(self.shapes[target.id], ast.Store())],
                                             ast.Call(ast.Name("shape_places", ast.Load()),
                                                      [size], [])), stmt)]
            if loop is None and target.id in self.floats:  # (an array of floats, made once)
                return [self.keep(ast.Assign([target], ast.Call(
                    ast.Name("float_tape", ast.Load()), [size], [])), stmt)]
            return [self.keep(ast.Assign([target], ast.List([], ast.Load())), stmt)]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                target.value.id in self.indexed:
            name = target.value.id
            if not (loop is not None and loop[0] == "for" and isinstance(target.slice, ast.Name)
                    and target.slice.id == loop[1] and loop[2] is not None and
                    loop[2] == self.indexed[name]):
                raise _Refused(stmt, stmt, "a value saved out of its loop's order", _ADVICE)
            if name in self.grids:
                return [self.keep(ast.Assign([ast.Name(name, ast.Store())], ast.Call(
                    ast.Name("put_grid", ast.Load()), [
                        ast.Name(name, ast.Load()), target.slice, self.expr(value, stmt)],
                    [])), stmt)]
            if name in self.rows:
                return [self.keep(ast.Assign([ast.Name(name, ast.Store())], ast.Call(
                    ast.Name("put_row", ast.Load()), [
                        ast.Name(name, ast.Load()), ast.Name(self.rows[name], ast.Load()),
                        target.slice, self.expr(value, stmt)], [])), stmt)]
            if name in self.shapes:
                saved = self.saved(self.expr(value, stmt))
                here = ast.BinOp(ast.Call(ast.Name("len", ast.Load()), [
                    ast.Name(name, ast.Load())], []), ast.Sub(), ast.Constant(1))
                return [self.keep(ast.If(ast.Call(ast.Name("new_shape", ast.Load()), [
                    ast.Name(name, ast.Load()), copy.deepcopy(saved)], []), [
                        self.keep(ast.Expr(ast.Call(ast.Attribute(
                            ast.Name(name, ast.Load()), "append", ast.Load()), [saved], [])),
                            stmt)], []), stmt),
                    self.keep(ast.Expr(ast.Call(ast.Name("put_place", ast.Load()), [
                        ast.Name(self.shapes[name], ast.Load()), target.slice, here], [])),
                        stmt)]
            if name in self.floats:
                return [self.keep(ast.Expr(ast.Call(ast.Name("put_float", ast.Load()), [
                    ast.Name(name, ast.Load()), target.slice, self.expr(value, stmt)], [])),
                    stmt)]
            return [self.keep(ast.Expr(ast.Call(ast.Attribute(
                ast.Name(name, ast.Load()), "append", ast.Load()),
                [self.saved(self.expr(value, stmt))], [])), stmt)]
        if isinstance(target, ast.Name) and isinstance(value, ast.Subscript) and \
                isinstance(value.value, ast.Name) and value.value.id in {**self.rows,
                                                                          **self.shapes}:
            name = value.value.id
            index = self.expr(value.slice, stmt)
            if name in self.grids:
                stmt.value = ast.Subscript(ast.Name(name, ast.Load()), index, ast.Load())
            elif name in self.rows:
                stmt.value = ast.Call(ast.Name("row_of", ast.Load()), [
                    ast.Name(name, ast.Load()), ast.Name(self.rows[name], ast.Load()), index], [])
            else:
                stmt.value = ast.Subscript(ast.Name(name, ast.Load()), ast.Subscript(
                    ast.Name(self.shapes[name], ast.Load()), index, ast.Load()), ast.Load())
            return [stmt]
        self.target(target, stmt)
        stmt.value = self.expr(value, stmt)
        return [stmt]

    def target(self, target, stmt):
        if isinstance(target, ast.Name):
            return
        if isinstance(target, ast.Tuple):
            for item in target.elts:
                self.target(item, stmt)
            return
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                target.value.id not in self.tapes:
            target.slice = self.index(self.expr(target.slice, stmt))
            return
        raise _Refused(target, stmt, f"the assignment to {ast.unparse(target)}", _ADVICE)

    def for_loop(self, stmt):
        if stmt.orelse or not isinstance(stmt.target, ast.Name):
            raise _Refused(stmt, stmt, "this `for` loop", _ADVICE)
        it = stmt.iter
        size = None
        hoisted = []  # (a bound read twice, computed once before the loop)
        if _call_of(it, "range") and self.aliases.get("range") is None:
            size = ast.dump(it.args[0]) if len(it.args) == 1 else None
            stmt.iter = self.expr(it, stmt)
        elif _call_of(it, "reversed") and len(it.args) == 1 and _call_of(it.args[0], "range") \
                and len(it.args[0].args) in (1, 2) and not it.args[0].keywords:
            bounds = [self.expr(a, stmt) for a in it.args[0].args]
            start, stop = (ast.Constant(0), bounds[0]) if len(bounds) == 1 else bounds
            stmt.iter = ast.Call(ast.Name("range", ast.Load()), [
                _minus_one(stop), _minus_one(start), ast.Constant(-1)], [])
        elif _call_of(it, "reversed") and len(it.args) == 1 and _call_of(it.args[0], "range") \
                and len(it.args[0].args) == 3:  # (a range with a step, from its last value)
            start, stop, step = [self.expr(a, stmt) for a in it.args[0].args]
            if not _atom(start):
                hoisted.append(self.keep(ast.Assign(
                    [ast.Name(self.fresh("range_start"), ast.Store())], start), stmt))
                self.taken.add(hoisted[-1].targets[0].id)
                start = ast.Name(hoisted[-1].targets[0].id, ast.Load())
            if not _atom(step):
                hoisted.append(self.keep(ast.Assign(
                    [ast.Name(self.fresh("range_step"), ast.Store())], step), stmt))
                self.taken.add(hoisted[-1].targets[0].id)
                step = ast.Name(hoisted[-1].targets[0].id, ast.Load())
            stmt.iter = ast.Call(ast.Name("range", ast.Load()), [
                ast.Call(ast.Name("range_last", ast.Load()), [start, stop, step], []),
                ast.BinOp(start, ast.Sub(), step), ast.UnaryOp(ast.USub(), step)], [])
        elif _call_of(it, "reversed") and len(it.args) == 1 and \
                isinstance(it.args[0], ast.Subscript) and _call_of(it.args[0].value, "range") \
                and len(it.args[0].value.args) == 1 and isinstance(it.args[0].slice, ast.Slice) \
                and it.args[0].slice.lower is None and it.args[0].slice.step is None and \
                it.args[0].slice.upper is not None:  # (reversed(range(n)[:trips]): an exit)
            length = ast.Call(ast.Name("head_length", ast.Load()), [
                self.expr(it.args[0].value.args[0], stmt),
                self.expr(it.args[0].slice.upper, stmt)], [])
            stmt.iter = ast.Call(ast.Name("range", ast.Load()), [
                _minus_one(length), ast.Constant(-1), ast.Constant(-1)], [])
        else:
            raise _Refused(stmt, stmt, f"the loop over {ast.unparse(it)}: numba's compiled "
                           "gradient loops over range(...)", _ADVICE)
        for tape, count in self.reserves.get(id(stmt), ()):  # (room for what its turns save)
            size = copy.deepcopy(stmt.iter.args[0])
            hoisted.append(self.keep(ast.Assign([ast.Name(tape, ast.Store())], ast.Call(
                ast.Name("grow_tape", ast.Load()), [ast.Name(tape, ast.Load()), ast.BinOp(
                    ast.Name(self.counts[tape], ast.Load()), ast.Add(),
                    size if count == 1 else ast.BinOp(ast.Constant(count), ast.Mult(), size))],
                [])), stmt))
        jumps = any(isinstance(n, (ast.Break, ast.Continue))  # (a turn that skips its save
                    for n in ast.walk(ast.Module(stmt.body, [])))  # would shift the rest)
        self.loops.append(not breaks_own_loop(stmt.body))
        stmt.body = self.block(stmt.body, ("for", stmt.target.id, None if jumps else size))
        self.loops.pop()
        return [*hoisted, stmt]

    def saved(self, node):
        """``node``, a value a tape saves: ``tape_value(node)`` in a loop whose every turn
        reaches the next (a number kept as a number, not an optional one), else as it is
        (a value saved only before a `break`, or out of loops, may be None alone)."""
        if self.loops and self.loops[-1]:
            return ast.Call(ast.Name("tape_value", ast.Load()), [node], [])
        return node

    def effect(self, stmt):
        call = stmt.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                isinstance(call.func.value, ast.Name) and call.func.value.id in self.split:
            saved = _saved_name(call, self.aliases, self.backend.module)
            call.func.value.id = self.split[call.func.value.id][saved]
            tape = call.func.value.id
            if tape in self.unread:
                return []
            if tape in self.counts:  # (written into its array, the count up by one)
                value = call.args[0] if saved.isidentifier() else call.args[0].args[0]
                count = self.counts[tape]
                return [self.keep(ast.Assign([ast.Name(count, ast.Store())], ast.Call(
                    ast.Name("push_float", ast.Load()), [ast.Name(tape, ast.Load()),
                                                         ast.Name(count, ast.Load()),
                                                         self.expr(value, stmt)], [])), stmt)]
            if not saved.isidentifier():  # (an item's value, np.array(f[i]): a copy of it)
                call.args = [ast.Call(ast.Name("saved_item", ast.Load()),
                                      [self.expr(call.args[0].args[0], stmt)], [])]
                return [stmt]
            call.args = [self.saved(self.expr(a, stmt)) for a in call.args]
            return [stmt]
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
                self.aliases.get(call.func.id, "").endswith(".check_stack") and \
                call.args and all(isinstance(a, ast.Name) for a in call.args):
            self.budget = self.budget or self.fresh("tape_budget")
            self.taken.add(self.budget)
            lists = [each for a in call.args for each in self.split.get(a.id, {}).values()
                     if each not in self.unread]
            if not lists:
                return []
            sizes = [ast.BinOp(ast.Constant(8), ast.Mult(), ast.Name(self.counts[each],
                                                                     ast.Load()))
                     if each in self.counts else
                     ast.Call(ast.Name("tape_bytes", ast.Load()), [ast.Name(each, ast.Load())], [])
                     for each in lists]
            total = sizes[0]
            for each in sizes[1:]:
                total = ast.BinOp(total, ast.Add(), each)
            return [self.keep(ast.Expr(ast.Call(ast.Name("check_tape", ast.Load()), [
                total, ast.Name(self.budget, ast.Load())], [])), stmt)]
        raise _Refused(stmt, stmt, f"the statement {ast.unparse(stmt)}", _ADVICE)

    # -- expressions

    def expr(self, node, stmt):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (str, bytes)) or node.value is Ellipsis:
                raise _Refused(node, stmt, "a string", _ADVICE)
            return node
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                raise _Refused(node, stmt, f"the module value {node.id}", _ADVICE)
            return node
        if isinstance(node, ast.Call):
            return self.call(node, stmt)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            return ast.Call(ast.Name("matmul_small", ast.Load()), [   # (small: loops, not
                self.expr(node.left, stmt), self.expr(node.right, stmt)], [])   # BLAS)
        if isinstance(node, ast.Subscript):
            node.value = self.expr(node.value, stmt)
            node.slice = self.index(self.expr(node.slice, stmt))
            return node
        if isinstance(node, ast.Attribute):
            full = self.dotted(node)
            if full is not None:
                import importlib
                head, _, attr = full.rpartition(".")
                try:
                    value = getattr(importlib.import_module(head), attr)
                except (ImportError, AttributeError):
                    value = None
                if isinstance(value, float):
                    return ast.Constant(value)  # (np.pi, math.e: a constant, as numba reads it)
                raise _Refused(node, stmt, f"the value {ast.unparse(node)}", _ADVICE)
            if node.attr not in self.backend.kernel_attributes:
                raise _Refused(node, stmt, f"the attribute .{node.attr}", _ADVICE)
            node.value = self.expr(node.value, stmt)
            return node
        if isinstance(node, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp,
                             ast.SetComp, ast.GeneratorExp, ast.Lambda, ast.JoinedStr,
                             ast.Starred, ast.Await, ast.Yield, ast.YieldFrom,
                             ast.NamedExpr)):
            raise _Refused(node, stmt, f"{ast.unparse(node)} (a {type(node).__name__})",
                           _ADVICE)
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                setattr(node, field, self.expr(value, stmt))
            elif isinstance(value, list):
                setattr(node, field, [self.expr(v, stmt) if isinstance(v, ast.expr) else v
                                      for v in value])
        return node

    def index(self, node):
        """An index (or a tuple of them), each name restored from a tape unwrapped."""
        if isinstance(node, ast.Name) and node.id in self.restored:
            return ast.Call(ast.Name("as_index", ast.Load()), [node], [])
        if isinstance(node, ast.Tuple):
            node.elts = [self.index(e) for e in node.elts]
        return node

    def dotted(self, node) -> str | None:
        """The dotted name ``np.linalg.norm`` stands for (``numpy.linalg.norm``), if its
        root is a module the generated code imports; else None."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        return ".".join([self.aliases[node.id], *reversed(parts)])

    def call(self, node, stmt):
        func = node.func
        node.args = [self.expr(a, stmt) for a in node.args]
        for keyword in node.keywords:
            if keyword.arg is None:
                raise _Refused(node, stmt, "a call with **keywords", _ADVICE)
            keyword.value = self.expr(keyword.value, stmt)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id in ({n for t in self.split.values() for n in t.values()} |
                                  set(self.indexed)) and func.attr in ("append", "pop"):
            return node
        full = self.dotted(func) if isinstance(func, ast.Attribute) else \
            self.aliases.get(func.id) if isinstance(func, ast.Name) else None
        if full is None and isinstance(func, ast.Name) and \
                self.backend.compiles_call("builtins", func.id):
            return node
        if full is not None:
            head, _, name = full.rpartition(".")
            if (head, name) in self.backend.kernel_checked:
                if len(node.args) != 1 or node.keywords:
                    raise _Refused(node, stmt, f"{ast.unparse(node)} (with a base)", _ADVICE)
                node.func = ast.Name(self.backend.kernel_checked[head, name], ast.Load())
                return node  # (raises as Python's does outside its domain: numba's, NaN)
            replaced = self.backend.kernel_replaced.get((head, name))
            if replaced is not None and (name not in ("sum", "prod", "cumsum") or
                                         node.keywords or len(node.args) > 1) and \
                    (name != "array" or len(node.args) == 1 and not node.keywords):
                node.func = ast.Name(replaced, ast.Load())  # (np.sum(x) as numba has it)
                return node
            small = self.backend.kernel_small_products.get((head, name))
            if small is not None and len(node.args) == 2 and not node.keywords:
                node.func = ast.Name(small, ast.Load())  # (small: loops, not BLAS)
                return node
            if self.backend.compiles_call(head, name):
                return node
            if head.startswith("s2sad.runtime") and name in self.backend.kernel_helpers:
                node.func = ast.Name(self.backend.kernel_helpers[name], ast.Load())
                return node
            if head.startswith("s2sad"):
                raise _Refused(node, stmt, *_helper_refusal(name))
            raise _Refused(node, stmt, f"the call of {full}, which numba's compiled gradient "
                           "has not", _ADVICE)
        raise _Refused(node, stmt, f"the call {ast.unparse(node)}", _ADVICE)

    # -- the return

    def shape(self, node, stmt, hoisted, names):
        """The wrapper's return expression: calls of s2sad's helpers and Python's
        ``float`` (which shape the gradient) kept, every other part computed in the kernel
        and read from its result."""
        if isinstance(node, ast.Name) and node.id not in self.aliases:
            if node.id not in names and node.id not in self.unchanged:
                names.append(node.id)
            return node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                self.aliases.get(node.func.id, "").endswith((".as_gradient", ".fresh_gradient")) \
                and len(node.args) == 2 and not node.keywords and \
                all(isinstance(a, ast.Name) for a in node.args) and \
                self.own.get(node.args[1].id) == node.args[0].id and \
                node.args[0].id in self.unchanged:  # (an array the kernel made for it)
            return self.shape(node.args[1], stmt, hoisted, names)
        if isinstance(node, ast.Constant) and not isinstance(node.value, (str, bytes)):
            return node
        if isinstance(node, ast.Tuple):
            node.elts = [self.shape(e, stmt, hoisted, names) for e in node.elts]
            return node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                self.aliases.get(node.func.id, "").startswith("s2sad.runtime") or
                node.func.id in ("float", "tuple", "list") and node.func.id not in self.aliases):
            node.args = [self.shape(a, stmt, hoisted, names) for a in node.args]
            for keyword in node.keywords:
                keyword.value = self.shape(keyword.value, stmt, hoisted, names)
            return node
        name = self.fresh("r")
        self.taken.add(name)
        hoisted.append(self.keep(ast.Assign([ast.Name(name, ast.Store())],
                                            self.expr(node, stmt)), stmt))
        names.append(name)
        return ast.Name(name, ast.Load())


def _names_of(node) -> list | None:
    """The names ``node`` (a name, or a tuple of names) is made of, else None."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Tuple) and len(node.elts) > 1 and \
            all(isinstance(e, ast.Name) for e in node.elts):
        return [e.id for e in node.elts]
    return None


def _own_arrays(body, zeros, kinds) -> dict:
    """The sensitivities in ``zeros`` (name -> its float array argument) that the kernel
    ``body`` binds once, to ``zeros_like(argument)`` in a statement of its own level, and
    then only changes in place (``s_x[i] += ...``, ``s_x += ...``: numba adds into the
    array): an array of the kernel's own, shaped and typed like its argument, that no
    other result holds, so the wrapper returns it as it is (``as_gradient`` copies)."""
    found = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id in zeros and \
                _call_of(stmt.value, "zeros_like") and len(stmt.value.args) == 1 and \
                isinstance(stmt.value.args[0], ast.Name) and \
                stmt.value.args[0].id == zeros[stmt.targets[0].id]:
            kind = kinds.get(stmt.value.args[0].id)
            if isinstance(kind, tuple) and len(kind) >= 3 and kind[1] > 0 and kind[2] == "f":
                found[stmt.targets[0].id] = stmt.value.args[0].id
    augmented = {id(n.target) for n in ast.walk(ast.Module(body, []))
                 if isinstance(n, ast.AugAssign)}
    bindings = {}
    for node in ast.walk(ast.Module(body, [])):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and \
                id(node) not in augmented:
            bindings[node.id] = bindings.get(node.id, 0) + 1
    return {name: arg for name, arg in found.items() if bindings.get(name) == 1}


def _restored_name(target) -> str | None:
    """The name (``x``), or item of an array named (``f[i]``, as written), that
    ``target = stack.pop()`` restores; else None."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        return ast.unparse(target)
    return None


def _saved_name(call, aliases=None, arrays=None) -> str | None:
    """The name ``stack.append(x)`` or ``stack.append(shape_of(x))`` saves, or the item
    ``stack.append(np.array(f[i]))`` saves (``f[i]``, as written), else None."""
    if len(call.args) != 1 or call.keywords:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and \
            arg.func.attr == "array" and isinstance(arg.func.value, ast.Name) and \
            arrays is not None and (aliases or {}).get(arg.func.value.id) == arrays and \
            len(arg.args) == 1 and \
            not arg.keywords and isinstance(arg.args[0], ast.Subscript) and \
            isinstance(arg.args[0].value, ast.Name):
        return ast.unparse(arg.args[0])
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and \
            arg.func.id == "shape_of" and len(arg.args) == 1:
        arg = arg.args[0]
    return arg.id if isinstance(arg, ast.Name) else None


def _statement_of(module, node):
    """The innermost statement of ``module`` holding ``node`` (for its user line)."""
    found = None
    for stmt in ast.walk(module):
        if isinstance(stmt, ast.stmt) and any(n is node for n in ast.walk(stmt)):
            found = stmt
    return found


def _atom(node) -> bool:
    """Is ``node`` a name or a number (``-2`` too), read again at no cost?"""
    return isinstance(node, (ast.Name, ast.Constant)) or isinstance(node, ast.UnaryOp) and \
        isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)


def _minus_one(node):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return ast.Constant(node.value - 1)
    return ast.BinOp(node, ast.Sub(), ast.Constant(1))


def _function(name: str, params: list, body: list) -> ast.FunctionDef:
    return ast.FunctionDef(name=name, args=ast.arguments(
        posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None, kwonlyargs=[],
        kw_defaults=[], kwarg=None, defaults=[]), body=body, decorator_list=[], returns=None)


def _call_of(node, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == name and not node.keywords


# --- numba's compile, at the first call ---------------------------------------------------


def exact_kinds(args) -> tuple | None:
    """What numba's types of ``args`` follow from, where a test in Python tells it in a
    few reads: an ndarray's (not a subclass's) number of axes and dtype, that of NumPy's
    own native dtype (not ``>f8``); a Python float, int or bool's type. None for the rest.

    >>> import numpy as np
    >>> exact_kinds((np.ones(3), 2.0, 4))
    ((1, dtype('float64')), <class 'float'>, <class 'int'>)
    >>> class Sub(np.ndarray):
    ...     pass
    >>> [exact_kinds((a,)) for a in (np.ones(3).astype(">f8"), np.ones(2).view(Sub), 1j)]
    [None, None, None]
    """
    import numpy as np
    kinds = []
    for arg in args:
        kind = type(arg)
        if kind is np.ndarray and arg.dtype is np.dtype(arg.dtype.char) and \
                arg.dtype.kind in _KINDS:
            kinds.append((arg.ndim, arg.dtype))
        elif kind in (float, int, bool):
            kinds.append(kind)
        else:
            return None
    return tuple(kinds)


def _wide_types(kinds) -> tuple:
    """numba's types for arguments of ``kinds`` (:func:`exact_kinds`) that take every
    array of that dtype and number of axes: any strides (layout ``A``), read-only or not,
    aligned or not. The kernel compiled for them runs on each such array as it is."""
    from numba.core import types
    from numba.np.numpy_support import from_dtype
    scalars = {float: types.float64, int: types.int64, bool: types.boolean}
    return tuple(scalars[k] if k in scalars else
                 types.Array(from_dtype(k[1]), k[0], "A", readonly=True, aligned=False)
                 for k in kinds)


def attach(function, compiled) -> None:
    """Make the first call of ``function`` (the wrapper ``load`` made of ``compiled``)
    compile its kernel for the arguments' types, timing it (``compiled.kernel.seconds``),
    and turn an error of numba's into an ``UnsupportedSyntaxError`` at the user's line.

    Where the arguments are plain (:func:`exact_kinds`), the kernel is compiled once for
    every array of their dtypes and numbers of axes (:func:`_wide_types`), and its entry
    point (numba's compiled function, without the dispatcher's typing of each argument)
    is kept by their kinds (``kernel.points``): the entry of the variant calls it where
    its guard finds those kinds exactly (:func:`fast_entry`). A kernel numba does not
    compile so (one that writes into an argument, or on which numba warns: a product of
    arrays not contiguous), and a fused loop over the elements (``Kernel.fused``), is
    compiled for the arguments' own types, as numba does."""
    kernel = compiled.kernel
    namespace = function.__globals__
    dispatcher = kernel.dispatcher = namespace[kernel.name]
    kernel.points = {}
    typed = _typed_call(dispatcher)  # (numba's dispatcher, its float32 numbers NumPy's)
    plain = f"{kernel.name}_plain"   # (a fused kernel's NumPy form, for other arguments)
    if hasattr(namespace.get(plain), "overloads"):
        namespace[plain] = _typed_call(namespace[plain])

    def point(args):
        """The compiled kernel to call with ``args``: an entry point for their exact kinds,
        compiled now if new, or numba's dispatcher (which types them at each call)."""
        kinds = exact_kinds(args) if not kernel.fused else None
        found = kernel.points.get(kinds, False) if kinds is not None else None
        if found is not False:
            return found or typed
        import warnings

        import numba
        started = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # (numba's performance warnings: not this way)
                wide = _wide_types(kinds)
                dispatcher.compile(wide)
            found = dispatcher.overloads[wide].entry_point
            narrow = _narrow_scalars(dispatcher.overloads[wide].signature.return_type)
            if narrow is not None:  # (float32 numbers: NumPy's, as numba boxes floats)
                found = _narrowed_call(found, narrow)
        except Exception:  # (numba refuses these types, or warns: its own way, below)
            found = None
            try:
                dispatcher.compile(tuple(numba.typeof(a) for a in args))
            except numba.core.errors.NumbaError as exc:
                raise _numba_error(exc, compiled) from None
        if kernel.seconds is None:
            kernel.seconds = time.perf_counter() - started
        kernel.points[kinds] = found
        return found or typed

    def call(*args):  # (a call not through a variant's entry: its kinds looked up here)
        return point(args)(*args)

    def first_call(*args):
        if kernel.fused or exact_kinds(args) is None:  # (numba's own typing, at each call)
            import numba
            started = time.perf_counter()
            try:
                dispatcher.compile(tuple(numba.typeof(a) for a in args))
            except numba.core.errors.NumbaError as exc:
                raise _numba_error(exc, compiled) from None
            kernel.seconds = time.perf_counter() - started
        namespace[kernel.name] = call
        return call(*args)
    first_call.__name__ = call.__name__ = kernel.name
    kernel.point = point
    namespace[kernel.name] = first_call


def _narrow_scalars(result_type):
    """What makes a kernel's result, of numba's type ``result_type``, what NumPy returns,
    where numba boxes a float32 (complex64) number as a Python float (complex): a
    function of the result, or None where nothing changes. numba's float32 numbers come
    from NumPy's float32 values only (Python's floats are float64).

    >>> from numba import types
    >>> fix = _narrow_scalars(types.Tuple((types.float32, types.float64)))
    >>> [type(v).__name__ for v in fix((1.5, 2.5))], _narrow_scalars(types.float64)
    (['float32', 'float'], None)
    """
    from numba import types
    import numpy
    if result_type == types.float32:
        return numpy.float32
    if result_type == types.complex64:
        return numpy.complex64
    if isinstance(result_type, types.BaseTuple) and not isinstance(result_type,
                                                                   types.NamedTuple):
        parts = [_narrow_scalars(t) for t in result_type]
        if all(p is None for p in parts):
            return None
        return lambda value: tuple(v if p is None else p(v) for p, v in zip(parts, value))
    return None


def _narrowed_call(entry, narrow):
    """``entry``, its result made NumPy's by ``narrow`` (:func:`_narrow_scalars`)."""
    def call(*args):
        return narrow(entry(*args))
    return call


def _typed_call(dispatcher):
    """numba's ``dispatcher``, its float32 numbers returned as NumPy's (numba boxes them as
    Python floats): after a call, the result of the overload that ran, by the arguments'
    types, where any overload returns such numbers (looked for again after numba compiles
    another)."""
    known = [-1, False]

    def call(*args):
        result = dispatcher(*args)
        if len(dispatcher.overloads) != known[0]:
            known[:] = [len(dispatcher.overloads), any(
                _narrow_scalars(c.signature.return_type) is not None
                for c in list(dispatcher.overloads.values()))]
        if not known[1]:
            return result
        import numba
        made = dispatcher.overloads.get(tuple(numba.typeof(a) for a in args))
        narrow = None if made is None else _narrow_scalars(made.signature.return_type)
        return result if narrow is None else narrow(result)
    return call


def fast_entry(compiled, args):
    """For the entry of ``compiled``'s variant called with ``args`` (s2sad/dispatch.py):
    ``(kernel's name, kinds, cell)``, where ``kinds`` are the arguments' exact kinds
    (:func:`exact_kinds`) its guard tests first, and ``cell`` holds what the wrapper's
    call of the kernel calls then: the kernel's entry point for those kinds, found at its
    first call. None where the arguments are not so plain, or the variant has no kernel."""
    import types
    kernel = getattr(compiled, "kernel", None)
    kinds = exact_kinds(args)
    if kernel is None or kernel.fused or kinds is None or \
            getattr(compiled, "function", None) is None or \
            kernel.name not in compiled.function.__globals__:
        return None
    namespace = compiled.function.__globals__
    cell = types.CellType()

    def first(*kernel_args):  # (the kernel's arguments: these, then a memory budget)
        point = kernel.point(kernel_args) if kernel.point is not None else None
        cell.cell_contents = point if point is not None else namespace[kernel.name]
        return cell.cell_contents(*kernel_args)
    cell.cell_contents = first
    return kernel.name, kinds, cell


def _numba_error(exc, compiled) -> DifferentiationError:
    """numba's typing error in the kernel of ``compiled``, at the user's line it comes
    from (its first line of the kernel's file), its reason first."""
    import re
    kernel = compiled.kernel
    text = str(exc)
    lines = [int(n) for n in re.findall(r'File "[^"]*", line (\d+)', text)]
    user = None
    for number in lines:
        inner = [u for first, last, u in kernel.lines if first <= number <= last and u]
        if inner:
            user = inner[-1]
            break
    reason = next((line.strip() for line in text.splitlines() if line.strip() and
                   not line.startswith(("Failed in", "During:", "File "))), text.strip())
    helper = re.search(r"Function\(<function (\w+) at 0x[0-9a-f]+>\)", reason)
    if helper is not None:  # (s2sad's numba version of a helper, for kinds it lacks: the
        # user's terms, not the helper's name and address)
        reason = "s2sad's numba code for this line does not take the kinds of its values " \
            "here"
    return _located(kernel.source, user, f"an operation numba cannot compile ({reason})",
                    _ADVICE)
