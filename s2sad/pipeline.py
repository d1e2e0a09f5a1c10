"""The compiler, as one ordered list of passes.

source -> validate -> desugar -> normalize -> kinds + activity -> reverse ->
(optimize: first accumulation as assignment, dead code) -> source text.
``stages`` keeps the source after each pass, for debugging and teaching.
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import gc
import hashlib
import types
from dataclasses import dataclass, field

import gast

from . import trees
from . import registry
from . import rules  # noqa: F401  (fills the rule table)
from .codegen import Imports, build_function, register, unparse
from .names import Namer
from .located import statement_lines
from .source import FunctionSource, recording
from .transforms.activity import active_names
from .transforms.dtypes import argument_categories
from .transforms.budget import MemoryBudget
from .transforms.device_arguments import DeviceArguments
from .transforms.copy_propagation import CopyPropagation
from .transforms.dead_code import DeadCode
from .transforms.dicts import DictViews
from .transforms.early_sums import EarlySums
from .transforms.desugar import Desugar
from .transforms.exits import Exits
from .transforms.first_assignment import FirstAssignment
from .transforms.forward import Forward
from .transforms.gradient_form import FRESH_HELPERS, GradientForm, fresh_names
from .transforms.forward_substitution import ForwardSubstitution
from .transforms.higher import PrepareGenerated, is_generated, refuse_unpaired, split_aux
from .transforms.kinds import ANY, Kind, from_descriptor, infer_kinds
from .transforms.nan_check import NanCheck
from .transforms.number_checks import check_before
from .transforms.py_floats import PythonFloats
from .transforms.normalize import (Normalize, argument_descriptors, argument_objects,
                                   assigned_names)
from .transforms.loop_tape import LoopTape
from .transforms.loop_sums import LoopSums
from .transforms.sum_products import SumProducts
from .transforms.real_powers import RealPowers
from .transforms.recompute import Recompute
from .transforms.resolve import argument_dtypes, single_constants, static_value
from .transforms.reverse import Reverse
from .transforms.scale_inward import ScaleInward
from .transforms.shape_only import SHAPE_ARGUMENTS, ShapeOnly
from .transforms.simplify import Simplify, subtract
from .transforms.split_dicts import SplitDicts
from .transforms.unit_seed import UnitSeed
from .transforms.validate import Validate
from .trees import clone


class _Stages:
    """The source after each pass, unparsed only when asked for (it costs as much as the
    passes themselves)."""

    def __init__(self, keep: bool):
        self.keep = keep
        self.texts: list[tuple[str, str]] = []

    def append(self, stage):
        if self.keep:
            name, tree = stage
            self.texts.append((name, unparse(tree)))


@dataclass
class Compiled:
    text: str
    filename: str
    name: str
    live: dict            # globals read at every call: name -> (namespace, key) to read
    cells: dict
    stages: list = field(default_factory=list)
    function: types.FunctionType | None = None
    output_at: tuple | None = None  # (file, line, text) of the user's `return`: where a
    # non-scalar output is reported
    numbers: frozenset = frozenset()  # module globals compiled as numbers: checked at calls
    entry: types.FunctionType | None = None  # guard and call (s2sad/dispatch.py), once ready
    # compiled otherwise than for a derivative of it to read, which compiles it again with
    # nestable=True: a loop saves its values in lists indexed by its counter (LoopTape), or
    # hands its terms to collectors (LoopSums)
    needs_nestable_build: bool = False
    # what the build's names resolved to (s2sad.source.recording): a call checks them
    reads: tuple = ()
    # the user's line of each generated statement (s2sad.located), for errors at run time
    user_lines: tuple = ()
    # for a derivative of a derivative: the inner one's variant it differentiated (built
    # again when the inner one is: a helper of the function defined again)
    built_from: object = None


def parameters(tree) -> list[str]:
    args = tree.args
    return [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]


def _collector_paused(build):
    """Run ``build`` with the cyclic garbage collector paused (as it was, after).

    A build makes tens of thousands of small tree nodes, none of them in a cycle that
    outlives it; in a process that holds many objects, each collection of the oldest
    generation walks all of them, a quarter of the build's time for nothing.
    """
    @functools.wraps(build)
    def paused(*args, **kwargs):
        if not gc.isenabled():  # (a build within a build, or the user's own choice)
            return build(*args, **kwargs)
        gc.disable()
        try:
            return build(*args, **kwargs)
        finally:
            gc.enable()
    return paused


@_collector_paused
def compile_gradient(func, *args, **kwargs) -> Compiled:
    """Compile the gradient of ``func`` (:func:`build_gradient` says how); its ``reads``
    are the functions its names resolved to, checked again at each call (a helper
    redefined in a notebook makes the gradient be built again)."""
    with recording() as read:
        compiled = build_gradient(func, *args, **kwargs)
    compiled.reads = tuple(read)
    return compiled


def _numpy_number(desc) -> bool:
    """Is ``desc`` a NumPy number's description (``np.float64(0.5)``), not a 0-d array's?"""
    return isinstance(desc, tuple) and len(desc) == 4 and desc[3] == "number"


def build_gradient(func, wrt: list[str], optimize: bool = True, annotate: bool = False,
                     with_value: bool = False, arg_descriptors=None,
                     as_tuple: bool = False, target: str = "numpy",
                     debug_nans: bool = False, *, mode: str = "reverse", seed: bool = False,
                     has_aux: bool = False, keep_stages: bool = False,
                     nestable: bool = False) -> Compiled:
    """Compile the gradient of ``func`` for the argument kinds ``arg_descriptors``.

    ``target`` is the backend ("numpy" or "cupy"); ``debug_nans`` asks for code
    that stops at the first statement producing a NaN or infinity. ``mode``:
    ``"reverse"`` (an adjoint; ``seed``: the output's sensitivity is an extra
    argument, for ``vjp``) or ``"forward"`` (tangents, for ``jvp``); ``has_aux``:
    ``func`` returns ``(value, aux)`` and ``aux`` is returned untouched. ``nestable``:
    the code will be differentiated again, so a loop's saved values stay on the stack
    (whose ``append`` and ``pop`` the compiler reads back; see ``LoopTape``).
    """
    source = FunctionSource.of(func)
    stages = _Stages(keep_stages)
    stages.append(("source", source.tree))
    Validate(source).run()
    namer = Namer.for_tree(source.tree)
    source.locals = assigned_names(source.tree)
    imports = Imports(namer, source, target)
    tree = Exits(namer).visit(clone(source.tree))
    if is_generated(source):  # differentiating s2sad's own output: a higher derivative
        tree = PrepareGenerated(namer, imports, source).visit(tree)
    stages.append(("exits", tree))
    tree = Desugar(imports.numpy(), source.locals, source.is_builtin).visit(tree)
    source = dataclasses.replace(source, tree=tree)
    stages.append(("desugar", tree))
    normalizer = Normalize(source, namer, numpy_name=imports.numpy())
    normalizer.objects = argument_objects(tree, arg_descriptors)  # (their methods inlined)
    normalizer.descriptors = argument_descriptors(tree, arg_descriptors)
    normalized = normalizer.run()
    aux = None
    if has_aux:
        normalized, aux = split_aux(normalized, namer, source)
    stages.append(("normalize", normalized))

    params = parameters(normalized)
    local_names = assigned_names(normalized)  # (found once: several analyses need them)
    source.constants = single_constants(normalized)  # (what a dtype argument reads: x.dtype
    source.dtypes = argument_dtypes(normalized, params, arg_descriptors)  # of an argument too)
    source.arguments = argument_categories(params, arg_descriptors)  # (stores: transforms.dtypes)
    descriptors = arg_descriptors or [None] * len(params)
    arg_kinds = {p: from_descriptor(d, p) if d is not None else ANY
                 for p, d in zip(params, descriptors, strict=True)}
    numbers = _module_numbers(normalized, normalizer, source, set(params), local_names)
    kinds = infer_kinds(normalized, {**numbers, **arg_kinds}, source, local_names)
    views = DictViews(kinds, namer)  # a dict's keys, values and items, where it is one
    while views.visit(normalized) and views.changed:  # (a dict made of one made of one...)
        local_names = assigned_names(normalized)
        kinds = infer_kinds(normalized, {**numbers, **arg_kinds}, source, local_names)
        views = DictViews(kinds, namer)
        stages.append(("dict_views", normalized))
    zero_d = any(isinstance(d, tuple) and d[0] in ("nd", "cupy") and d[1] == 0 and len(d) == 3
                 for d in descriptors)
    for name, error, *before in normalizer.deferred:  # `x += e` on a value shared with
        tag = kinds.get(name, ANY).tag                  # another: an error unless a number
        if tag == "scalar" and not zero_d:
            continue
        if not (before and tag in ("scalar", "numeric", "any") and check_before(
                normalized, before[0], name, error, imports.helper("check_number"))):
            raise error  # (an array, or a number by kind: checked at run time)
    given = dict(zip(params, descriptors))
    for name, owner, itself, error in normalizer.argument_updates:  # `x += v`, x the argument
        if given.get(owner) in ("float", "int", "complex") or _numpy_number(given.get(owner)):
            continue  # (the caller's number is immutable: x names a new value from here)
        tag = kinds.get(name, ANY).tag  # (a new list or dict holding its items: not)
        if zero_d or tag != "scalar" and (itself or tag not in ("list", "dict", "tuple")):
            raise error
    for name, error in normalizer.list_slices:  # `ys[1:] = v` on a list: refused
        if kinds.get(name, ANY).tag == "list":
            raise error
    _refuse_arithmetic_on_dicts(normalized, kinds, source)
    if aux is not None:
        refuse_unpaired(normalized, kinds, source)
    active = active_names(normalized, set(wrt), source, local_names, kinds)
    normalized = RealPowers(kinds, active, lambda: imports.helper("check_real_power"), source,
                            local_names).visit(normalized)

    cells = dict(normalizer.foreign_cells)
    for node in trees.walk(normalized):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                node.id not in local_names and node.id not in imports.lines:
            if node.id in cells:
                continue
            if node.id in source.closure:
                cells[node.id] = source.closure[node.id]
            elif node.id in normalizer.foreign:
                imports.user_global(node.id, source.extra[node.id], normalizer.foreign[node.id])
            elif node.id in source.globals:
                imports.user_global(node.id, source.globals[node.id],
                                    (source.globals, node.id))

    stacks = set()
    if mode == "forward":
        adjoint = Forward(source, namer, normalized, wrt, kinds, active, imports, annotate,
                          with_value, as_tuple).run()
    else:
        reverse = Reverse(source, namer, normalized, wrt, kinds, active, imports, annotate,
                          with_value, as_tuple, seed=seed, aux=aux, local_names=local_names)
        adjoint = reverse.run()
        stacks = {reverse.stack} - {None}
    stages.append((mode, adjoint))
    for names, error in normalizer.unknown_calls:  # a function s2sad does not know, given
        if any(n in active and (zero_d or kinds.get(n, ANY).tag != "scalar")  # an array
               for n in names):  # (or a list, a dict) the gradient follows: it may change it
            raise error
    if optimize:
        adjoint = Simplify(imports.helpers.get("scaled_power")).visit(adjoint)
        stages.append(("simplify", adjoint))
        shape_helpers = {imports.helpers[n]: i for n, i in SHAPE_ARGUMENTS.items()
                         if n in imports.helpers}
        if shape_helpers:  # (nothing reads a shape: nothing to do)
            adjoint = ShapeOnly(kinds, shape_helpers, imports.helper,
                                namer.temporaries).visit(adjoint)
        split = SplitDicts(kinds, imports.helpers.get("zeros_like_structure"),
                           imports.helpers.get("as_gradient"), namer.claim)
        if mode != "forward" and not nestable:  # a dict's sensitivity, one name per key
            adjoint = split.visit(adjoint)
        if mode != "forward":  # (it turns first accumulations `s += e` into `s = e`)
            views = {imports.helpers[n] for n in ("unbroadcast", "transpose_grad")
                     if n in imports.helpers}
            adjoint = FirstAssignment(_fresh_call(imports), views).visit(adjoint)
            stages.append(("first_assignment", adjoint))
        is_pure = _purity(source, imports)
        # debug_nans keeps the forward values nothing reads: a NaN there (the loss itself,
        # log of a negative number) is reported too
        dead_code = (lambda tree: tree) if debug_nans else DeadCode(is_pure).visit
        adjoint = dead_code(adjoint)
        stages.append(("dead_code", adjoint))
        # dead code goes again after the passes that may leave some, where they changed
        # anything (dead code elimination leaves none behind it)
        recompute = Recompute()
        adjoint = recompute.visit(adjoint)
        stages.append(("recompute", adjoint))
        propagate = CopyPropagation(namer.temporaries)
        adjoint = propagate.visit(adjoint)
        if propagate.changed and "scaled_power" in imports.helpers:  # (a constant moved
            # in: `x ** -2`'s slope, -2 * x ** -3)
            adjoint = Simplify(imports.helpers["scaled_power"]).visit(adjoint)
        if recompute.changed or propagate.changed:
            adjoint = dead_code(adjoint)
        stages.append(("copy_propagation", adjoint))
        sum_grad = imports.helpers.get("sum_grad")
        unit_seed = UnitSeed(kinds, sum_grad, namer.temporaries)
        scale = ScaleInward(sum_grad, namer.temporaries)
        idempotent = {imports.helpers["unbroadcast"]} if "unbroadcast" in imports.helpers \
            else set()
        passes = (ForwardSubstitution(is_pure, namer.temporaries, idempotent), unit_seed, scale)
        for optimization in passes:
            adjoint = optimization.visit(adjoint)
        if any(optimization.changed for optimization in passes):
            adjoint = dead_code(adjoint)
        if unit_seed.changed or scale.changed:
            # a seed left out, a constant moved: a value they read may be read once now
            # (``t_2`` of ``t_3 = np.exp(t_2)``, read also by ``sum_grad(1.0, t_2...)``)
            adjoint = ForwardSubstitution(is_pure, namer.temporaries,
                                          idempotent).visit(adjoint)
        stages.append(("forward_substitution", adjoint))
        adjoint = subtract(adjoint)  # s += -e -> s -= e, where the passes above left them
        stages.append(("subtract", adjoint))

    builtin_names = {"float", "map", "list", "tuple"}
    if optimize and "as_gradient" in imports.helpers and \
            not builtin_names & (local_names | set(source.globals)):
        fresh = fresh_names(adjoint.body, _fresh_call(imports))
        adjoint = GradientForm(kinds, imports.helpers["as_gradient"], fresh=fresh,
                               fresh_gradient=lambda: imports.helper(
                                   "fresh_gradient", "s2sad.runtime_gradients")).visit(adjoint)
    if optimize:  # no float(...) of what is a Python float already
        adjoint = PythonFloats(arg_kinds, _resolver(source, imports),
                               local_names | set(source.globals)).visit(adjoint)
        stages.append(("python_floats", adjoint))
    if debug_nans:  # stop at the first generated statement that makes a NaN or an infinity
        adjoint = NanCheck(source, lambda name: imports.helper(
            name, "s2sad.runtime_debug")).visit(adjoint)
        stages.append(("debug_nans", adjoint))
    needs_nestable_build = optimize and split.changed
    if optimize and stacks and not nestable and \
            "range" not in local_names | set(source.globals):  # (the builtin's loops only)
        tape = LoopTape(stacks, namer.claim)
        adjoint = tape.visit(adjoint)
        needs_nestable_build = needs_nestable_build or tape.changed
        stages.append(("loop_tape", adjoint))
    if optimize and mode != "forward" and not nestable and not debug_nans and \
            "range" not in local_names | set(source.globals):
        sums = LoopSums(*_loop_sums_names(source, imports), set(reverse.trips.values()),
                        lambda name: imports.helper(name, "s2sad.runtime_terms"), namer.claim)
        adjoint = sums.visit(adjoint)
        needs_nestable_build = needs_nestable_build or sums.changed
        stages.append(("loop_sums", adjoint))
    adjoint = MemoryBudget(lambda: imports.helper("check_stack", "s2sad.runtime_budget"),
                           stacks, namer.fresh).visit(adjoint)
    if target == "cupy":  # lists and numbers used as arrays: cp.asarray (NumPy converts them)
        adjoint = DeviceArguments(kinds, source.globals, imports.numpy(),
                                  set(imports.helpers.values())).visit(adjoint)
    if optimize and mode != "forward" and not nestable and not debug_nans and \
            "numpy" in imports.modules:  # (after cp.asarray of lists: CuPy's arrays
        # take the helpers' written form)
        if "unbroadcast" in imports.helpers:  # (sums the products pass then takes over)
            early = EarlySums(imports.helpers["unbroadcast"],
                              imports.helpers.get("matmul_grad_left"), imports.helper)
            adjoint = early.visit(adjoint)
            needs_nestable_build = needs_nestable_build or early.changed
            stages.append(("early_sums", adjoint))
        products = SumProducts({imports.numpy(), *imports.renamed},
                               imports.helpers.get("unbroadcast"), kinds, imports.helper)
        adjoint = products.visit(adjoint)
        needs_nestable_build = needs_nestable_build or products.changed
        stages.append(("sum_products", adjoint))
    header = imports.header(adjoint)
    text = ("\n".join(header) + "\n\n" if header else "") + unparse(adjoint) + "\n"
    digest = hashlib.sha1(text.encode()).hexdigest()[:8]
    filename = f"<s2sad {adjoint.name} of {source.filename}:{source.tree.lineno} {digest}>"
    returns = [n for n in trees.walk(source.tree) if isinstance(n, gast.Return)]
    at = returns[0] if len(returns) == 1 else source.tree
    output_at = (source.filename, at.lineno, source.line(at.lineno))
    return Compiled(text, filename, adjoint.name, dict(imports.live), cells, stages.texts,
                    output_at=output_at, numbers=frozenset(numbers) & set(imports.live),
                    needs_nestable_build=needs_nestable_build,
                    user_lines=statement_lines(adjoint))


def _fresh_call(imports):
    """Does a call of ``func`` return a new array (a helper of ``FRESH_HELPERS``,
    ``np.outer``)?"""
    fresh_helpers = {imports.helpers[n] for n in FRESH_HELPERS if n in imports.helpers}
    numpy_name = imports.numpy()
    return lambda func: isinstance(func, gast.Name) and func.id in fresh_helpers or \
        isinstance(func, gast.Attribute) and func.attr == "outer" and \
        isinstance(func.value, gast.Name) and func.value.id == numpy_name


_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow,
               gast.MatMult, gast.USub, gast.UAdd)


def _refuse_arithmetic_on_dicts(tree, kinds: dict, source) -> None:
    """A dict passed where the function does arithmetic (``x * x``): a ``TypeError`` at
    the call, naming the line, not Python's own from inside the generated code."""
    for stmt in trees.walk(tree):  # (the simple statements: normalized, operands are names)
        if not isinstance(stmt, gast.stmt) or isinstance(stmt, (gast.FunctionDef, gast.If,
                                                                 gast.For, gast.While)):
            continue
        for node in trees.walk(stmt):
            if not (isinstance(node, (gast.BinOp, gast.UnaryOp)) and
                    isinstance(node.op, _ARITHMETIC)):
                continue
            operands = [node.left, node.right] if isinstance(node, gast.BinOp) \
                else [node.operand]
            for operand in operands:
                if isinstance(operand, gast.Name) and kinds.get(operand.id, ANY).tag == "dict":
                    origin = getattr(stmt, "origin", ())  # (inlined: the helper's line)
                    filename, lineno, line = origin[-1][:3] if len(origin) > 1 else (
                        source.filename, node.lineno, source.line(node.lineno))
                    where = f' (File "{filename}", line {lineno}: {line.strip()})' \
                        if line else ""
                    raise TypeError(
                        f"{source.tree.name}(): {operand.id!r} is a dict here, and the "
                        f"function does arithmetic on it{where}; pass a float, an array or "
                        "a list of them, or index the dict first")


def _module_numbers(tree, normalizer, source, params: set, local_names: set) -> dict:
    """Kinds of the module globals the function reads that are Python numbers now (``lr =
    0.1``): the compiled code relies on it, and each call checks they still are."""
    numbers = {}
    for node in trees.walk(tree):
        if not (isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load)) or \
                node.id in local_names or node.id in params or node.id in numbers or \
                node.id in source.closure:
            continue
        if node.id in normalizer.foreign:
            namespace, item = normalizer.foreign[node.id]
        elif node.id in source.globals and node.id not in source.extra:
            namespace, item = source.globals, node.id
        else:
            continue
        value = namespace.get(item)
        if type(value) in (float, int):
            numbers[node.id] = Kind("scalar", "()", 0, py=type(value).__name__)
    return numbers


def _resolver(source, imports):
    """``resolve(func)``: the object a called name stands for in the final code, when it
    is imported there (a module's function, or a name of the user's read at compile time),
    else None. Globals read live may change between calls: they are not resolved."""
    modules = {alias: name for name, alias in imports.modules.items()}

    def resolve(func):
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                func.value.id in modules:
            import sys
            return getattr(sys.modules.get(modules[func.value.id]), func.attr, None)
        if isinstance(func, gast.Name) and func.id in imports.lines and \
                func.id not in imports.live:
            try:
                return static_value(func, source, source.locals)
            except KeyError:
                return None
        return None
    return resolve


def _pure_names(source, imports) -> set:
    """The names of the calls generated code makes that change nothing: the runtime's
    helpers (but ``output_seed``, which may raise) and the builtins on numbers (``len``,
    ``float``, ``abs``, ``max``, ``min``, ``pow``, ``sum``, ``range``, ``reversed``) where
    the user's code does not give those names another meaning."""
    helpers = {alias for name, alias in imports.helpers.items() if name != "output_seed"}
    return helpers | ({"len", "float", "abs", "max", "min", "pow", "sum", "range", "reversed"}
                      - set(source.locals) - set(source.globals))


def _loop_sums_names(source, imports) -> tuple:
    """The names ``LoopSums`` asks for: the ``unbroadcast`` helper's, those of the
    functions a loop it changes may call (``_pure_names``), and the array module's."""
    unbroadcast = {imports.helpers["unbroadcast"]} if "unbroadcast" in imports.helpers \
        else set()
    return unbroadcast, _pure_names(source, imports), imports.numpy()


def _purity(source, imports):
    pure_names = _pure_names(source, imports)

    def is_pure(func) -> bool:
        if isinstance(func, gast.Name):
            return func.id in pure_names
        try:
            target = static_value(func, source, source.locals)
        except KeyError:
            return False
        # (`math` raises where NumPy warns, math.log(-1.0): a value nothing reads still
        # says, as the function does, that the point is outside its domain)
        return registry.lookup(target) is not None and \
            getattr(target, "__module__", None) != "math"
    return is_pure


def load(compiled: Compiled, func) -> types.FunctionType:
    """Compile the text into a function reading the user's globals live and closure cells."""
    namespace = {"__name__": "s2sad.generated", "__builtins__": func.__globals__.get(
        "__builtins__", builtins)}
    for name, (where, key) in compiled.live.items():
        namespace[name] = where[key]
    register(compiled.filename, compiled.text)
    fn = build_function(compiled.text, compiled.filename, compiled.name, namespace,
                        compiled.cells)
    fn.__defaults__ = func.__defaults__
    fn.__kwdefaults__ = func.__kwdefaults__
    compiled.function = fn
    return fn


def compile_source(func, wrt=(0,), optimize=True, annotate=False, with_value=False,
                   arg_descriptors=None) -> str:
    """The generated source, for argument indices or names ``wrt`` (handy in doctests)."""
    tree_params = parameters(FunctionSource.of(func).tree)
    names = [tree_params[w] if isinstance(w, int) else w for w in wrt]
    return compile_gradient(func, names, optimize, annotate, with_value, arg_descriptors,
                            len(names) > 1).text.rstrip("\n")
