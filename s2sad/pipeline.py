"""The compiler, as one ordered list of passes: ``PIPELINE``, run by a pass manager.

source -> validate -> generators -> exits -> desugar -> normalize -> kinds + activity ->
reverse (or forward) -> (optimize: simplify, dead code, copy propagation...) -> source text. Each
step's condition is over one :class:`~s2sad.options.Options`; ``stages`` keeps the
source after each pass, for debugging and teaching.
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
from .backends import ARRAY_TAGS, NUMPY, is_array, target_backend
from .codegen import Imports, build_function, register, unparse
from .names import Namer
from .options import Options
from .pass_manager import (ALL, Condition, FixedPoint, PassManager, Stages, Step, analysis,
                           check, rewritten, transform)
from .errors import DifferentiationError
from .located import moved_lines, statement_lines
from .runtime import cast_like, check_in_place, check_number, check_real_power, unchanged_call
from .runtime.budget import check_stack, checked_passes
from .runtime.dask_compat import fused
from .runtime.gradients import fresh_gradient
from .source import FunctionSource, recording
from .transforms.activity import active_names
from .transforms.call_cycles import refuse_changes_in_recursion
from .transforms.unknown_calls import checked_instead
from .transforms.dtypes import argument_categories, dtype_kinds, float_locals
from .transforms.budget import MemoryBudget
from .transforms.device_arguments import DeviceArguments
from .transforms import numba_kernel
from .transforms.combined_terms import CombinedTerms
from .transforms.copy_propagation import CopyPropagation
from .transforms.dead_code import DeadCode, may_raise
from .transforms.unread_raises import UnreadRaises, checks as unread_checks
from .transforms.dicts import DictViews
from .transforms.early_sums import EarlySums
from .transforms.desugar import Desugar
from .transforms.piecewise import Piecewise
from .transforms.strict_zip import StrictZip
from .transforms.try_blocks import TryBlocks
from .transforms.exits import Exits
from .transforms.function_values import argument_functions
from .transforms.first_assignment import FirstAssignment
from .transforms.generators import expand_generators
from .transforms.forward import Forward
from .transforms.gradient_form import GradientForm, fresh_call, fresh_names
from .transforms.forward_substitution import ForwardSubstitution, view_arguments
from .transforms.higher import PrepareGenerated, is_generated, refuse_unpaired, split_aux
from .transforms.lazy_kernels import ElementwiseKernels
from .transforms.list_pops import ListPops
from .transforms.dead_pops import DeadPops
from .transforms.uniform_items import UniformItems
from .transforms.kinds import (ANY, Kind, from_descriptor, infer_kinds, object_members,
                               object_roots)
from .transforms.nan_check import NanCheck
from .transforms.number_checks import check_before, check_updates
from .transforms.py_floats import PythonFloats
from .transforms.complex_values import holds_complex, rebound_names, rebound_sums
from .transforms.normalize import (Normalize, argument_descriptors, argument_objects,
                                   assigned_names)
from .transforms.loop_tape import LoopTape, WhileTape
from .transforms.loop_sums import LoopSums
from .transforms.sum_products import SumProducts
from .transforms.plain_numpy import PlainNumpy
from .transforms.readable import Readable
from .transforms.real_powers import RealPowers
from .transforms.recompute import Recompute
from .transforms.aliasing import Aliasing
from .transforms.curried import Curried
from .transforms.display_loops import DisplayLoops
from .transforms.held_items import HeldItems
from .transforms.view_helpers import ViewHelpers
from .transforms.view_writes import ViewWrites
from .transforms.object_lists import ObjectLists
from .transforms.deep_copies import DeepCopies
from .transforms.resolve import argument_dtypes, single_constants, static_value
from .transforms.reverse import Reverse
from .transforms.scale_inward import ScaleInward
from .transforms.shape_only import ShapeOnly, shape_helpers
from .transforms.reciprocals import Reciprocals
from .transforms.signs import Signs
from .transforms.simplify import Simplify, subtractions
from .transforms.single_assignment import _static
from .transforms.split_dicts import SplitDicts
from .transforms.unit_seed import SpreadByProducts, UnitSeed
from .transforms.validate import Validate
from .trees import clone


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
    # per statement, the values moved into it from another user's line: (text, that line)
    moved: tuple = ()
    # for a derivative of a derivative: the inner one's variant it differentiated (built
    # again when the inner one is: a helper of the function defined again)
    built_from: object = None
    # the numba target: its kernel (s2sad.transforms.numba_kernel.Kernel), else None
    kernel: object = None


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
def compile_gradient(func, wrt: list[str], *args, options: Options | None = None,
                     **kwargs) -> Compiled:
    """Compile the gradient of ``func`` with respect to the parameters ``wrt``; its
    ``reads`` are the functions its names resolved to, checked again at each call (a
    helper redefined in a notebook makes the gradient be built again).

    ``options`` says how (:class:`~s2sad.options.Options`); or, as before it, ``optimize,
    annotate, with_value, arg_descriptors, as_tuple, target, debug_nans`` and the
    keywords of ``Options``. ``arg_descriptors``: the arguments' kinds (None: any), given
    by name with ``options``.
    """
    descriptors, options = _options_of(*args, options=options, **kwargs)
    with recording() as read:
        compiled = build_gradient(func, wrt, descriptors, options)
    compiled.reads = tuple(read)
    return compiled


def _options_of(optimize: bool = True, annotate: bool = False, with_value: bool = False,
                arg_descriptors=None, as_tuple: bool = False, target: str = "numpy",
                debug_nans: bool = False, *, options: Options | None = None,
                **keywords) -> tuple:
    """``(arg_descriptors, Options)`` from ``compile_gradient``'s arguments."""
    given = Options(optimize=optimize, annotate=annotate, with_value=with_value,
                    as_tuple=as_tuple, target=target, debug_nans=debug_nans, **keywords)
    if options is not None and given != Options():
        raise TypeError("compile_gradient() takes options or the options' keywords, not both")
    return arg_descriptors, options or given


def _numpy_number(desc) -> bool:
    """Is ``desc`` a NumPy number's description (``np.float64(0.5)``), not a 0-d array's?"""
    return isinstance(desc, tuple) and len(desc) == 4 and desc[3] == "number"


@dataclass
class Build:
    """What one build holds as it goes: ``tree`` is the function (the user's, then in
    single assignment), ``adjoint`` its derivative once made."""
    options: Options
    wrt: list
    descriptors: list | None  # the arguments' kinds, as given (None: any)
    source: FunctionSource
    tree: gast.FunctionDef
    namer: Namer | None = None
    imports: Imports | None = None
    normalizer: Normalize | None = None
    adjoint: gast.FunctionDef | None = None
    aux: object = None  # (has_aux: what split_aux found)
    # the broadcasts that lines dead code dropped would have checked (UnreadRaises)
    unread_conditions: set = field(default_factory=set)
    params: list = field(default_factory=list)
    arg_kinds: dict = field(default_factory=dict)
    cells: dict = field(default_factory=dict)
    stacks: set = field(default_factory=set)  # the reverse sweep's stacks of saved values
    trips: set = field(default_factory=set)  # its loops' trip counters
    needs_nestable_build: bool = False
    read_live: dict = field(default_factory=dict)  # alias -> (namespace, key): values that
    # generated code reads, made by a pass before normalize (a `try` block's function)

    @property
    def zero_d(self) -> bool:
        """Is an argument a 0-d array (mutable, unlike a number)?"""
        return any(is_array(d) and d[1] == 0 and len(d) == 3 for d in self.descriptors or ())


# --- the analyses: read-only, cached until a pass changes the tree they read -----------------

@analysis(reads="tree")
def local_names(build: Build) -> set:
    """The names the function assigns (found once: several passes need them)."""
    return assigned_names(build.tree)


@analysis(reads="tree", needs=(local_names,))
def numbers(build: Build, local_names: set) -> dict:
    """The module globals read that are Python numbers now (``_module_numbers``)."""
    return _module_numbers(build.tree, build.normalizer, build.source, set(build.params),
                           local_names)


@analysis(reads="tree", needs=(local_names, numbers))
def kinds(build: Build, local_names: set, numbers: dict) -> dict:
    """Each name's kind (array, scalar, list, dict...): a forward dataflow analysis."""
    return infer_kinds(build.tree, {**numbers, **build.arg_kinds}, build.source, local_names)


@analysis(reads="tree", needs=(local_names, kinds))
def active(build: Build, local_names: set, kinds: dict) -> set:
    """The names that depend on ``wrt`` and reach the output (activity analysis)."""
    return active_names(build.tree, set(build.wrt), build.source, local_names, kinds)


@analysis(reads="tree", needs=(local_names,))
def dtype_categories(build: Build, local_names: set):
    """``categories()``: each name's dtype kind and holder (``dtype_kinds``: integers or
    bools, floats...), found at the first call."""
    return functools.cache(lambda: dtype_kinds(build.tree, build.source, local_names))


@analysis()
def is_pure(build: Build):
    """``is_pure(func)``: does a call of ``func`` change nothing (``_purity``)?"""
    return _purity(build.source, build.imports)


# --- the passes: each says whether it changed its tree -----------------------------------------

@transform()
def curried(build: Build) -> bool:
    """``mk = lambda a: lambda b: e``: one function of both argument lists, each call of
    what it returns one call (:mod:`.transforms.curried`). Before validate, which refuses a
    lambda given as a value; on the source's tree, which validate and the namer read."""
    writer = Curried(build.source.globals)
    tree = writer.run(clone(build.source.tree))
    if writer.changed:
        build.source.tree = build.tree = tree
    return writer.changed


@check()
def validate(build: Build) -> bool:
    """Refuse, at the user's line, the syntax s2sad does not model (deny by default)."""
    Validate(build.source).run()
    return False


@transform(on=None)
def names(build: Build) -> bool:
    """Hygiene: a namer of ``t_*`` and ``s_*`` free of every user name, and the imports to
    write."""
    build.namer = Namer.for_tree(build.source.tree)
    # (a derivative of s2sad's derivative: its filename names each one it comes from)
    build.namer.order = 1 + str(build.source.filename).count("<s2sad ")
    build.source.locals = assigned_names(build.source.tree)
    build.imports = Imports(build.namer, build.source, build.options.target)
    return False


def _helper_of(build: Build):
    """``helper(function)``: the name under which the generated code imports one of
    s2sad's runtime helpers, known to the source's names too (for the passes that run
    before the generated code's imports are written: strict_zip, try_blocks)."""
    def helper(function) -> str:
        alias = build.imports.helper(function)
        build.source.extra[alias] = function
        return alias
    return helper


def _refuse_chain(source):
    def refuse(target):
        if trees.flat_item(target):
            array = unparse(target.value.value)
            raise source.syntax_error(  # (y.flat[i] = v, y not known an array: .view_writes)
                f"assignment into {array}.flat, as {array!r} is not an array made here by "
                "NumPy nor an argument given as an array", target,
                f"Write a new value: `t = {array}.flatten()`, `t[...] = v`, then "
                f"`{array} = t.reshape({array}.shape)`." if isinstance(target.value.value,
                                                                     gast.Name) else
                f"Write a new value: `t = {array}.flatten()`, `t[...] = v`, then use "
                f"`t.reshape({array}.shape)` in place of `{array}`.")
        if isinstance(target.value, gast.Attribute):  # (y.T[0] = v, y not an array made here)
            raise source.syntax_error(
                f"assignment into {unparse(target.value)}, which changes an object's array "
                "or list in place where the reverse sweep cannot see it", target,
                f"Make a new value and set the attribute: `{unparse(target.value)} = "
                "np.where(...)` or a copy changed (`buf = x.copy()`).")
        raise source.syntax_error(
            "assignment into a nested element (`y[i][j] = ...` or `f(x)[i] = ...`)", target,
            "Index once: `y[i, j] = ...` for arrays, or name the inner list first.")
    return refuse


def _rewritten(build: Build, writer, names: bool = True) -> bool:
    """Run ``writer`` (a pass's rewriter, whose ``run`` returns a tree and sets
    ``changed``) on a copy of the function; keep the copy where it changed anything (and
    the names it assigns, unless ``names`` is False). Whether it changed anything."""
    tree = writer.run(clone(build.tree))
    if writer.changed:
        build.tree = tree
        if names:
            build.source.locals = assigned_names(build.tree)
    return writer.changed


@transform()
def display_loops(build: Build) -> bool:
    """``for v in ls: v[0] = e``, ``ls`` a display: written out item by item, ``v`` read as
    ``ls[k]``, for held_items to follow (:mod:`.transforms.display_loops`)."""
    return _rewritten(build, DisplayLoops(build.namer))


@transform()
def held_items(build: Build) -> bool:
    """``ls = [y, z]``: each later ``ls[0]`` written ``y``, the object the slot holds, so a
    write through either name is followed (:mod:`.transforms.held_items`)."""
    return _rewritten(build, HeldItems(), names=False)


@transform()
def view_helpers(build: Build) -> bool:
    """``z = ident(y)``, ``r = first(y)``: a helper of the user's that returns its argument
    or a view of it, written as that (``z = y``, ``r = y[0]``), for view_writes to follow
    (:mod:`.transforms.view_helpers`)."""
    return _rewritten(build, ViewHelpers(build.source.resolve), names=False)


@transform()
def view_writes(build: Build) -> bool:
    """Writes through a named view of a local array (``v = y[1:]; v[0] = e``, ``A[i][j] =
    e``) written as writes into the array itself (:mod:`.transforms.view_writes`)."""
    params = parameters(build.tree)
    given = {p: d[1] for p, d in zip(params, build.descriptors or [None] * len(params),
                                     strict=True)
             if type(d) is tuple and len(d) >= 3 and d[0] in ARRAY_TAGS}  # (arrays)
    writer = ViewWrites(build.source.resolve, _helper_of(build), build.imports.numpy(),
                        _refuse_chain(build.source), given, build.namer.temp)
    if not writer.acts(trees.start_walk(build.tree)):
        return False  # (no array made here, no item of an item written: nor a copy made)
    return _rewritten(build, writer)


@transform()
def object_lists(build: Build) -> bool:
    """``[Layer(w) for w in ws]`` over items it can count, written as a list display of
    the objects (:mod:`.transforms.object_lists`)."""
    params = parameters(build.tree)
    lengths = {p: len(d[1]) for p, d in zip(params, build.descriptors or [None] * len(params),
                                            strict=True)
               if type(d) is tuple and len(d) >= 2 and d[0] in ("list", "tuple") and
               isinstance(d[1], tuple)}
    if not ObjectLists.acts(trees.start_walk(build.tree)):
        return False  # (no comprehension to write out: nor a copy made for it)
    writer = ObjectLists(build.source.resolve, lengths)
    return _rewritten(build, writer)


@transform()
def deep_copies(build: Build) -> bool:
    """``copy.deepcopy(d)`` of a dict or list display the function made, written item by
    item (:mod:`.transforms.deep_copies`)."""
    writer = DeepCopies(build.source.resolve)
    if not writer.acts(trees.start_walk(build.tree)):
        return False  # (no deep copy of a display: nor a copy made for it)
    return _rewritten(build, writer, names=False)


@transform()
def strict_zip(build: Build) -> bool:
    """``zip(..., strict=True)`` read to its end: a plain ``zip``, its arguments' lengths
    taken before and checked where Python raises (:mod:`.transforms.strict_zip`)."""
    if not any(type(n) is gast.keyword and n.arg == "strict" for n in trees.start_walk(
            build.tree)):
        return False  # (no strict= anywhere: nothing to write, nor a copy to make for it)
    writer = StrictZip(build.namer, _helper_of(build), build.source.locals,
                       build.source.is_builtin)
    return _rewritten(build, writer)


@transform()
def try_blocks(build: Build) -> bool:
    """``try`` statements whose ``try`` block only computes values: a test of which
    block Python runs (the block run once first), then those blocks
    (:mod:`.transforms.try_blocks`)."""
    def value_name(value, base: str) -> str:
        alias = build.namer.claim(base)
        build.source.extra[alias] = value
        build.read_live[alias] = ({alias: value}, alias)
        return alias
    if not any(type(n) is gast.Try for n in trees.start_walk(build.tree)):
        return False  # (no try statement: nothing to write, nor a copy to make for it)
    writer = TryBlocks(build.source, _helper_of(build), value_name, build.namer)
    return _rewritten(build, writer)


@transform()
def generators(build: Build) -> bool:
    """A generator of the user's written out where a loop (or list(), sum()...) consumes it:
    its body, with the loop's at each ``yield``."""
    build.tree, changed = expand_generators(build.tree, build.source, build.namer)
    if changed:
        build.source.locals = assigned_names(build.tree)
    return changed


@transform()
def exits(build: Build) -> bool:
    """One exit: early ``return``, ``break`` and ``continue`` become assignments and flags
    (structured control flow). On a copy of the user's tree: a new tree, always."""
    build.tree = Exits(build.namer).visit(clone(build.tree))
    return True


@transform()
def prepare_generated(build: Build) -> bool:
    """Differentiating s2sad's own output (a higher derivative): its stack pushes and pops
    made differentiable."""
    if not is_generated(build.source):  # (differentiating s2sad's own output: a higher
        return False  # derivative)
    build.tree, changed = rewritten(
        PrepareGenerated(build.namer, build.imports, build.source).visit, build.tree)
    return changed


@transform()
def piecewise(build: Build) -> bool:
    """``np.piecewise`` with functions in its funclist written out as NumPy runs it: each
    function called on the entries its condition selects (:mod:`.transforms.piecewise`)."""
    writer = Piecewise(build.source, build.namer, build.imports.helper, build.imports.numpy(),
                       build.source.locals)
    if not writer.acts(trees.start_walk(build.tree)):
        return False  # (no call with a list of functions: nothing to write out)
    build.tree = writer.run(build.tree)
    if writer.changed:
        build.source.locals = assigned_names(build.tree)
    return writer.changed


@transform()
def desugar(build: Build) -> bool:
    """Desugaring: augmented assignments, comprehensions and methods rewritten into the
    small primitive set."""
    source = build.source
    build.tree, changed = rewritten(
        Desugar(build.imports.numpy(), source.locals, source.is_builtin, source.resolve,
                source, _helper_of(build)).visit,
        build.tree)
    build.source = dataclasses.replace(source, tree=build.tree)
    build.namer.taken |= {n.id for n in trees.walk(build.tree) if isinstance(n, gast.Name)}
    return changed  # (names it wrote, t__w of an object t: no s__w of t__w's is s's own)


@transform()
def normalize(build: Build) -> bool:
    """Single assignment: every value a fresh ``t_*`` name, calls inlined, loops by index.
    A new tree, always."""
    normalizer = build.normalizer = Normalize(build.source, build.namer,
                                              numpy_name=build.imports.numpy())
    normalizer.foreign.update(build.read_live)
    normalizer.objects = argument_objects(build.tree, build.descriptors)  # (their methods
    normalizer.descriptors = argument_descriptors(build.tree, build.descriptors)  # inlined)
    argument_functions(normalizer, build.tree, build.descriptors,  # (act_loss(x, np.tanh))
                       _static)
    # (a program with complex values takes the stand-ins written for them: np.cov...)
    normalizer.complex_values = holds_complex(build.tree, build.descriptors,
                                              build.source.resolve)
    build.tree = normalizer.run()
    real_only = normalizer.__dict__.get("_real_stand_ins")
    if real_only and holds_complex(build.tree, build.descriptors, build.source.resolve):
        source, node, func = real_only[0]  # (complex values made in a function inlined)
        name = registry.describe_function(func)
        raise source.error(
            DifferentiationError, f"{name} may get complex values here, made in a function "
            "s2sad inlined, and its stand-in for them was not chosen", node,
            "Make the complex values visible in the differentiated function itself (pass "
            "them as an argument, or write the complex constant there).")
    return True


@check()
def changes_in_recursion(build: Build) -> bool:
    """A change to an object's state that a recursion makes again (in a function on a cycle
    of the call graph, or one it calls), refused at its line (:mod:`.transforms.call_cycles`)."""
    refuse_changes_in_recursion(build.tree, build.source, build.normalizer.called,
                                build.normalizer.emitted)
    return False


@transform()
def aux_output(build: Build) -> bool:
    """``return value, aux``: ``aux`` set aside and returned untouched."""
    def split(tree):
        tree, build.aux = split_aux(tree, build.namer, build.source)
        return tree
    build.tree, changed = rewritten(split, build.tree)
    return changed


@transform(on=None)
def argument_facts(build: Build) -> bool:
    """The parameters, their kinds and dtypes, and the constants a dtype argument reads
    (``x.dtype``); no tree changes."""
    build.params = params = parameters(build.tree)
    build.source.constants = single_constants(build.tree, build.source)
    build.source.dtypes = argument_dtypes(build.tree, params, build.descriptors)
    build.source.arguments = argument_categories(params, build.descriptors)
    build.source.floats = float_locals(build.tree, build.source)  # (dtype=x.dtype, x made)
    build.source.members = object_members(params, build.descriptors)  # (p.W's dtype: kinds.member)
    build.source.roots = object_roots(params, build.descriptors)  # (p.inner.s: kinds.member)
    build.source.wrt = frozenset(build.wrt)  # (m.cached read: kinds.member, where m varies)
    build.source.complex = holds_complex(build.tree, build.descriptors, build.source.resolve,
                                         build.source)
    descriptors = build.descriptors or [None] * len(params)
    build.source.descriptors = dict(zip(params, descriptors))  # (attributes._Reach)
    build.arg_kinds = {p: from_descriptor(d, p) if d is not None else ANY
                       for p, d in zip(params, descriptors, strict=True)}
    return False


@transform(needs=(kinds,), keeps=(numbers,))
def dict_views(build: Build, kinds: dict) -> bool:
    """A dict's ``keys``, ``values`` and ``items`` written out where the kinds say it is a
    dict; run to a fixed point."""
    views = DictViews(kinds, build.namer, build.source.is_builtin, build.source.resolve)  # a dict's keys, values
    # and items, where it is one (sorted(d.items()) too)
    views.visit(build.tree)
    if views.replaced:  # (p._replace(W=v) of a namedtuple: a new one built, not a call)
        build.normalizer.unknown_calls[:] = [
            entry for entry in build.normalizer.unknown_calls
            if not (len(entry) > 2 and id(entry[2]) in views.replaced)]
    return views.changed


@transform(needs=(kinds,), keeps=ALL)
def refuse_array_stores(build: Build, kinds: dict) -> bool:
    """On a target whose arrays are not written in place (Dask's: a store into a slice is
    not seen by the array it was sliced from, as NumPy's views see it), ``x[i] = v`` on an
    array is refused at its line; on a number-or-array too (``y = z.astype(float)``: Dask's
    ``astype`` to the same dtype returns ``z`` itself, which the store would change)."""
    for stmt in trees.walk(build.tree):
        target = stmt.targets[0] if isinstance(stmt, gast.Assign) and stmt.targets else None
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) and \
                kinds.get(target.value.id, ANY).tag in ("array", "numeric"):
            title = target_backend(build.options.target).title
            raise build.source.error(
                DifferentiationError, f"a store into an item of the array "
                f"{target.value.id!r}, and this code runs on {title}, whose arrays s2sad "
                "does not write in place (a store into a slice is not seen by its array, as "
                "NumPy's views see it)", stmt,
                "Make the new array instead: np.where(mask, v, x) for items chosen by a mask, "
                "np.concatenate([x[:i], v, x[i + 1:]]) for a slice; or make the gradient "
                "with target='numpy'.")
    return False


@transform(needs=(kinds, local_names), keeps=ALL)
def refuse_updates(build: Build, kinds: dict, local_names: set) -> bool:
    """Alias analysis: ``x += e`` on a value shared with another name or the caller's
    argument, and ``ys[1:] = v`` on a list, refused where the kinds say they change the
    caller's values; where they cannot say whether ``x`` is a number, a check at run time
    before the update (``check_number``: a statement, so every analysis still holds)."""
    normalizer, zero_d = build.normalizer, build.zero_d
    changed = False
    for name, error, *before in normalizer.deferred:  # `x += e` on a value shared with
        tag = kinds.get(name, ANY).tag                  # another: an error unless a number
        if tag == "scalar" and not zero_d:
            continue
        if not (before and tag in ("scalar", "numeric", "any") and check_before(
                build.tree, before[0], name, error, build.imports.helper(check_number))):
            raise error  # (an array, or a number by kind: checked at run time)
        changed = True
    given = dict(zip(build.params, build.descriptors or [None] * len(build.params)))
    for name, owner, itself, error, *before in normalizer.argument_updates:  # `x += v`, x
        if given.get(owner) in ("float", "int", "complex") or _numpy_number(given.get(owner)):
            continue  # (the caller's number is immutable: x names a new value from here)
        tag = kinds.get(name, ANY).tag  # (a new list or dict holding its items: not)
        if zero_d or tag != "scalar" and (itself or tag not in ("list", "dict", "tuple")):
            if not (before and tag in ("scalar", "numeric", "any") and check_before(
                    build.tree, before[0], name, error, build.imports.helper(check_number))):
                raise error  # (`t = M.T[1, -1]; t *= c`: a NumPy number, checked at run time)
            changed = True
    for name, error in normalizer.list_slices:  # `ys[1:] = v` on a list: refused
        if kinds.get(name, ANY).tag == "list":
            raise error
    _refuse_arithmetic_on_dicts(build.tree, kinds, build.source)
    if normalizer.in_place:  # `x += e` on an array: NumPy's dtype and shape, or its error
        from .transforms.dtypes import dtype_kinds
        floats = {name for name, category in dtype_kinds(
            build.tree, build.source, local_names).items() if category and category[0] == "f"}
        changed |= check_updates(build.tree, normalizer.in_place, kinds, floats, zero_d,
                                 build.imports.helper(check_in_place))
    return changed


@check(needs=(kinds,))
def refuse_unpaired_aux(build: Build, kinds: dict) -> bool:
    """``has_aux``: the function must return a ``(value, aux)`` pair on every path."""
    refuse_unpaired(build.tree, kinds, build.source)
    return False


@transform(needs=(kinds, active, local_names), keeps=ALL)
def real_powers(build: Build, kinds: dict, active: set, local_names: set) -> bool:
    """A check before each power a Python number may make complex (``(-1.0) ** 0.5``); no
    new names, so every analysis stays true."""
    imports = build.imports
    powers = RealPowers(kinds, active, lambda: imports.helper(check_real_power),
                        build.source, local_names)
    build.tree = powers.visit(build.tree)
    return powers.changed


@transform(on=None, needs=(local_names,))
def user_globals(build: Build, local_names: set) -> bool:
    """Free variables: the closure cells and module globals the function reads, imported or
    read live."""
    source, imports, normalizer = build.source, build.imports, build.normalizer
    cells = build.cells = dict(normalizer.foreign_cells)
    for node in trees.walk(build.tree):
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
    return False


@transform(on="adjoint", needs=(kinds, active, local_names))
def reverse(build: Build, kinds: dict, active: set, local_names: set) -> bool:
    """Reverse-mode differentiation: the adjoint, the statements' derivatives in reverse
    order (the reverse sweep)."""
    o = build.options
    sweep = Reverse(build.source, build.namer, build.tree, build.wrt, kinds, active,
                    build.imports, o.annotate, o.with_value, o.as_tuple, seed=o.seed,
                    aux=build.aux, local_names=local_names)
    build.adjoint = sweep.run()
    build.stacks, build.trips = {sweep.stack} - {None}, set(sweep.trips.values())
    return True


@transform(on="adjoint", needs=(kinds, active))
def forward(build: Build, kinds: dict, active: set) -> bool:
    """Forward-mode differentiation: a tangent beside each value, in program order."""
    o = build.options
    build.adjoint = Forward(build.source, build.namer, build.tree, build.wrt, kinds, active,
                            build.imports, o.annotate, o.with_value, o.as_tuple).run()
    return True


@transform(on="adjoint", needs=(kinds, active), keeps=ALL)
def refuse_unknown_calls(build: Build, kinds: dict, active: set) -> bool:
    """Deny by default: a function s2sad does not know, given an array the gradient
    follows, may change it; refused, or where its result needs no gradient (an auxiliary
    output's), checked when it runs (``unchanged_call``)."""
    refused = [(names, error, *call) for names, error, *call in build.normalizer.unknown_calls
               if any(n in active and (build.zero_d or kinds.get(n, ANY).tag != "scalar")
                      for n in names)]
    calls = {}  # (a call given several followed values: all of them watched)
    for names, _, *call in refused:
        calls.setdefault(id(call[0]) if call else None, set()).update(names)
    for names, error, *call in refused:  # (in the user's order: the first one's error)
        if not call or id(call[0]) in calls and not checked_instead(
                build.adjoint, call[0], calls.pop(id(call[0])), active | set().union(*(
                    n for n, _, *c in refused if not c or c[0] is not call[0])), error,
                build.imports.helper(unchanged_call)):
            raise error  # (a result another refused call is given: refused here first)
    return bool(refused)


@transform(on="adjoint")
def simplify(build: Build) -> bool:
    """Constant folding: operations that change nothing dropped, soundly for arrays and
    NaN (never ``x * 0 -> 0``)."""
    fold = Simplify(build.imports.helpers.get("scaled_power"))
    build.adjoint = fold.visit(build.adjoint)
    return fold.changed


@transform(on="adjoint", stage="simplify")
def simplify_powers(build: Build) -> bool:
    """Algebraic simplification again where copy propagation moved a constant into a power
    (``x ** -2``'s slope)."""
    if "scaled_power" not in build.imports.helpers:
        return False
    fold = Simplify(build.imports.helpers["scaled_power"])
    build.adjoint = fold.visit(build.adjoint)
    return fold.changed


@transform(on="adjoint", needs=(kinds,))
def shape_only(build: Build, kinds: dict) -> bool:
    """Liveness of shapes: a helper reading only a shape reads it from an argument, so the
    computed value dies early."""
    imports = build.imports
    shape_readers = shape_helpers(imports.helper_functions())
    if not shape_readers:  # (nothing reads a shape: nothing to do)
        return False
    build.adjoint, changed = rewritten(
        ShapeOnly(kinds, shape_readers, imports.helper, build.namer.temporaries).visit,
        build.adjoint)
    return changed


@transform(on="adjoint", needs=(kinds,))
def split_dicts(build: Build, kinds: dict) -> bool:
    """Scalar replacement of aggregates: a dict's sensitivity becomes one variable per key."""
    helpers = build.imports.helpers
    split = SplitDicts(kinds, helpers.get("zeros_like_structure"), helpers.get("as_gradient"),
                       build.namer.claim)
    build.adjoint = split.visit(build.adjoint)
    build.needs_nestable_build |= split.changed
    return split.changed


@transform(on="adjoint")
def first_assignment(build: Build) -> bool:
    """Def-use on known zeros: ``s = 0.0; s += e`` becomes ``s = e`` where ``s`` is zero."""
    imports = build.imports
    views = {imports.helpers[n] for n in ("unbroadcast", "transpose_grad")
             if n in imports.helpers}
    build.adjoint, changed = rewritten(FirstAssignment(_fresh_call(imports), views).visit,
                                       build.adjoint)
    return changed


@transform(on="adjoint", needs=(is_pure, kinds, dtype_categories), idempotent=True)
def dead_code(build: Build, is_pure, kinds: dict, dtype_categories) -> bool:
    """Dead code elimination by liveness, walking backwards; idempotent, so the manager
    runs it again only after a change. A line of the user's that may raise stays
    (``x[10]``, a division of Python's numbers), unless a line kept raises in the same
    cases (``UnreadRaises``)."""
    raises = UnreadRaises(kinds, dtype_categories, _function_of(build.source, build.imports),
                          bool(getattr(build.source, "complex", False)))
    dead = DeadCode(is_pure, build.stacks, kinds, build.namer.sensitivities, raises)
    build.adjoint = dead.visit(build.adjoint)
    build.unread_conditions |= dead.dropped_conditions
    return dead.changed


@transform(on="adjoint", needs=(kinds,))
def broadcast_checks(build: Build, kinds: dict) -> bool:
    """The broadcasts the lines dead code dropped would have checked, each still checked
    by a line left (a pass after dead code may have rewritten it), else by a check:
    ``broadcast_shape(x, w)``."""
    if not build.unread_conditions:
        return False
    from .runtime import broadcast_shape
    raises = UnreadRaises(kinds, {}, _function_of(build.source, build.imports),
                          bool(getattr(build.source, "complex", False)))
    function = next(n for n in trees.walk(build.adjoint) if isinstance(n, gast.FunctionDef))
    return unread_checks(function, build.unread_conditions, raises,
                         lambda: build.imports.helper(broadcast_shape))


@transform(on="adjoint", needs=(kinds,))
def recompute(build: Build, kinds: dict) -> bool:
    """Rematerialization: what a loop reads afresh each iteration is recomputed in the
    reverse loop, not saved."""
    again = Recompute({name for name, kind in kinds.items() if kind.tag == "scalar"})
    build.adjoint = again.visit(build.adjoint)
    return again.changed


@transform(on="adjoint")
def copy_propagation(build: Build) -> bool:
    """Copy propagation along def-use chains: ``a = b`` and later reads of ``a`` read
    ``b``."""
    propagate = CopyPropagation(build.namer.temporaries)
    build.adjoint = propagate.visit(build.adjoint)
    return propagate.changed


@transform(on="adjoint", needs=(is_pure, kinds), keeps_clean=(dead_code,))
def forward_substitution(build: Build, is_pure, kinds: dict) -> bool:
    """Forward substitution: a temporary read once is replaced by its definition (def-use);
    one that may raise (Python's numbers divided by 0) only into the next line. No dead
    code after it where there was none: a value moves into the line that read it, and
    each name it read is read there (no statement loses a reader, none gets purer)."""
    helpers = build.imports.helpers
    idempotent = {helpers["unbroadcast"]} if "unbroadcast" in helpers else set()
    sensitivities = build.namer.sensitivities

    def raises(value) -> bool:
        return any(may_raise(node, kinds, sensitivities) for node in trees.walk(value))
    substitute = ForwardSubstitution(is_pure, build.namer.temporaries, idempotent,
                                     view_arguments(build.source, build.imports), raises)
    build.adjoint = substitute.visit(build.adjoint)
    return substitute.changed


@transform(on="adjoint", needs=(is_pure,), keeps_clean=(dead_code,))
def combined_terms(build: Build, is_pure) -> bool:
    """A sensitivity's terms added in one expression where the first is read only by
    the statement that adds the next (the same operations, in the same order). No dead
    code after it where there was none: what the two statements read, the one reads."""
    source = build.source

    def may_move(func) -> bool:  # (a `math` function's only effect is its error: it is
        if is_pure(func):  # still raised, once, from the combined statement)
            return True
        try:
            target = static_value(func, source, source.locals)
        except KeyError:
            return False
        return registry.lookup(target) is not None and \
            getattr(target, "__module__", None) == "math"
    terms = CombinedTerms(may_move, build.namer.temporaries, build.namer.sensitivities,
                          view_arguments(source, build.imports))
    build.adjoint = terms.visit(build.adjoint)
    return terms.changed


@transform(on="adjoint", needs=(kinds,))
def unit_seed(build: Build, kinds: dict) -> bool:
    """Constant propagation of ``np.sum``'s unit seed: multiplying by ones is left out."""
    seed = UnitSeed(kinds, build.imports.helpers.get("sum_grad"), build.namer.temporaries)
    build.adjoint = seed.visit(build.adjoint)
    return seed.changed


@transform(on="adjoint")
def scale_inward(build: Build) -> bool:
    """A constant factor moved to where the array is smallest (distributivity)."""
    scale = ScaleInward(build.imports.helpers.get("sum_grad"), build.namer.temporaries)
    build.adjoint = scale.visit(build.adjoint)
    return scale.changed


@transform(on="adjoint", needs=(kinds,))
def spread_by_products(build: Build, kinds: dict) -> bool:
    """A reduction's sensitivity spread by the product that reads it: ``sum_grad(g, x, 1,
    True) * e``, ``e`` shaped like ``x``, is ``g * e``."""
    spread = SpreadByProducts(kinds, build.imports.helpers.get("sum_grad"),
                              build.namer.temporaries)
    build.adjoint = spread.visit(build.adjoint)
    return spread.changed


@transform(on="adjoint")
def reciprocals(build: Build) -> bool:
    """``g * p / t`` where ``p = 1.0 / t`` is ``g * p * p`` (to rounding), so that ``t``,
    read by nothing else, goes back into ``p``'s line."""
    if build.source.complex:
        return False
    again = Reciprocals(build.namer.temporaries)
    build.adjoint = again.visit(build.adjoint)
    return again.changed


@transform(on="adjoint")
def signs(build: Build) -> bool:
    """Negations taken out where they cancel (``-(-a) * b``, a seed of ``-1.0``, a
    temporary negated and negated again): exact, as rounding is symmetric in sign."""
    taken = Signs(build.namer.temporaries, build.source.arguments, not build.source.complex,
                  build.namer.sensitivities)
    build.adjoint = taken.visit(build.adjoint)
    return taken.changed


@transform(on="adjoint", stage="subtract")
def subtraction(build: Build) -> bool:
    """A peephole rewrite: ``s += -e`` becomes ``s -= e`` where the passes above left them."""
    return subtractions(build.adjoint) > 0  # (in place: it counts what it turns)


@transform(on="adjoint", needs=(kinds, local_names))
def gradient_form(build: Build, kinds: dict, local_names: set) -> bool:
    """Each gradient given its argument's form directly where type inference knows the
    argument's kind."""
    imports = build.imports
    if "as_gradient" not in imports.helpers or build.source.complex or \
            {"float", "map", "list", "tuple"} & (local_names | set(build.source.globals)):
        return False  # (complex values: as_gradient takes each real part)
    fresh = fresh_names(build.adjoint.body, _fresh_call(imports))
    form = GradientForm(kinds, imports.helpers["as_gradient"], fresh=fresh,
                        fresh_gradient=lambda: imports.helper(fresh_gradient),
                        raw=build.options.runtime,
                        floats=not (target_backend(build.options.target) or NUMPY).settles)
    build.adjoint, changed = rewritten(form.visit, build.adjoint)
    return changed


@transform(on="adjoint", needs=(local_names,))
def python_floats(build: Build, local_names: set) -> bool:
    """Type inference of Python floats: no ``float(...)`` of what is a Python float
    already."""
    floats = PythonFloats(build.arg_kinds, _resolver(build.source, build.imports),
                          local_names | set(build.source.globals))
    build.adjoint, changed = rewritten(floats.visit, build.adjoint)
    return changed


@transform(on="adjoint")
def nan_check(build: Build) -> bool:
    """Instrumentation: stop at the first generated statement that makes a NaN or an
    infinity."""
    imports = build.imports
    spell = Readable(imports.helper_functions(), fold=build.options.optimize)
    check_nans = NanCheck(build.source, imports.helper, spell.visit)  # (quoted as read)
    build.adjoint = check_nans.visit(build.adjoint)
    return check_nans.changed


@transform(on="adjoint", needs=(local_names,))
def loop_tape(build: Build, local_names: set) -> bool:
    """The tape of a counted loop: its saved values in lists indexed by the counter, not on
    the stack."""
    if not build.stacks or "range" in local_names | set(build.source.globals):  # (the
        return False  # builtin's loops only)
    tape = LoopTape(build.stacks, build.namer.claim)
    build.adjoint = tape.visit(build.adjoint)
    build.stacks |= tape.lists  # (the memory budget counts them with a later loop's)
    build.needs_nestable_build |= tape.changed
    return tape.changed


@transform(on="adjoint", needs=(local_names,))
def loop_sums(build: Build, local_names: set) -> bool:
    """A reduction hoisted out of a loop: a reverse loop's weight sensitivities summed
    after it, in one call."""
    if "range" in local_names | set(build.source.globals):
        return False
    imports = build.imports
    sums = LoopSums(*_loop_sums_names(build.source, imports), build.trips,
                    imports.helper, build.namer.claim)
    build.adjoint = sums.visit(build.adjoint)
    build.needs_nestable_build |= sums.changed
    return sums.changed


def _list_readers(build: Build, local_names: set) -> set:
    """The builtins that read a list and keep nothing of it, where the function's names
    leave them the builtins'."""
    return {"sum", "len"} - (local_names | set(build.source.globals))


@transform(on="adjoint", needs=(local_names, kinds))
def uniform_items(build: Build, local_names: set, kinds: dict) -> bool:
    """A summed list of Python numbers: its items' sensitivity read as the sum's, the
    list of copies never built (``s_x = s_x + s_ret``, not ``s_xs[-1]``)."""
    def python_number(name: str) -> bool:
        kind = kinds.get(name)
        return kind is not None and kind.tag == "scalar" and kind.py in ("float", "int")
    items = UniformItems(build.imports.helpers, python_number,
                         _list_readers(build, local_names))
    build.adjoint = items.visit(build.adjoint)
    return items.changed


@transform(on="adjoint", needs=(local_names,))
def dead_pops(build: Build, local_names: set) -> bool:
    """The reverse sweep's ``xs.pop()`` dropped where nothing reads the list after it."""
    helpers = build.imports.helpers
    pops = DeadPops(_list_readers(build, local_names) | {
        helpers[n] for n in ("sum_list_grad", "zeros_like_structure") if n in helpers})
    build.adjoint = pops.visit(build.adjoint)
    return pops.changed


@transform(on="adjoint", needs=(local_names,))
def list_pops(build: Build, local_names: set) -> bool:
    """A list's sensitivity that a reverse loop shortens step by step (``s_xs =
    s_xs[:-1]``, the adjoint of an append): copied once before the loop, popped in place."""
    pops = ListPops(local_names | set(build.source.globals))
    build.adjoint = pops.visit(build.adjoint)
    build.needs_nestable_build |= pops.changed
    return pops.changed


@transform(on="adjoint", needs=(local_names,))
def while_tape(build: Build, local_names: set) -> bool:
    """The tape of a ``while`` loop in no other loop: a list per saved value, the trip
    count its length, walked back by the reverse loop."""
    if not build.stacks or {"range", "len", "reversed"} & (local_names |
                                                          set(build.source.globals)):
        return False  # (the builtins' loops only)
    tape = WhileTape(build.stacks, build.namer.claim)
    build.adjoint = tape.visit(build.adjoint)
    build.stacks |= tape.lists  # (the memory budget watches them)
    build.needs_nestable_build |= tape.changed
    return tape.changed


@transform(on="adjoint", needs=(local_names,))
def memory_budget(build: Build, local_names: set) -> bool:
    """Instrumentation: an unbounded loop's recording checked against the memory budget."""
    imports = build.imports
    # (a loop in another loop counts its checks by the stack's length: NumPy's own list,
    # with the builtin len)
    lengths = not (target_backend(build.options.target) or NUMPY).compiler and \
        "len" not in local_names | set(build.source.globals)
    budget = MemoryBudget(lambda: imports.helper(check_stack), build.stacks,
                          build.namer.fresh, lambda: imports.helper(checked_passes), lengths)
    build.adjoint = budget.visit(build.adjoint)
    return budget.changed


@transform(on="adjoint", needs=(kinds,))
def device_arguments(build: Build, kinds: dict) -> bool:
    """On CuPy, NumPy's implicit conversions made explicit: lists and numbers used as
    arrays go through ``cp.asarray``."""
    imports = build.imports
    convert = DeviceArguments(kinds, build.source.globals, imports.numpy(),
                              set(imports.helpers.values()))
    build.adjoint, changed = rewritten(convert.visit, build.adjoint)
    return changed


@transform(on="adjoint")
def early_sums(build: Build) -> bool:
    """A sensitivity summed down as it is built where only that sum reads it (after
    ``cp.asarray``, CuPy's arrays take the helpers' form)."""
    imports = build.imports
    if not imports.array_module_used or "unbroadcast" not in imports.helpers:
        return False  # (sums the products pass then takes over)
    early = EarlySums(imports.helpers["unbroadcast"], imports.helpers.get("matmul_grad_left"),
                      imports.helper)
    build.adjoint = early.visit(build.adjoint)
    build.needs_nestable_build |= early.changed
    return early.changed


@transform(on="adjoint", needs=(kinds,))
def sum_products(build: Build, kinds: dict) -> bool:
    """Fusion: a sum of a product made in one call (``np.sum(a * b, axis=2)`` is
    ``sum_product(a, b, axis=2)``)."""
    imports = build.imports
    if not imports.array_module_used:
        return False
    products = SumProducts({imports.numpy(), *imports.renamed},
                           imports.helpers.get("unbroadcast"), kinds, imports.helper)
    build.adjoint = products.visit(build.adjoint)
    build.needs_nestable_build |= products.changed
    return products.changed


@transform(on="adjoint")
def complex_sums(build: Build) -> bool:
    """A program with complex values adds to each sensitivity out of place (a real array's
    takes a complex part)."""
    return build.source.complex and rebound_sums(
        build.adjoint, lambda: build.imports.helper(cast_like),
        build.imports.helpers.get("add_sens"))


@transform(on="adjoint", needs=(kinds,))
def plain_numpy(build: Build, kinds: dict) -> bool:
    """A helper whose work the kinds decide written as NumPy (``sum_grad(g, like=x,
    axis=2)`` spread by a product: ``g[:, :, None]``)."""
    imports = build.imports
    if not imports.array_module_used:
        return False
    floats = {name for name, (kind, holder) in build.source.arguments.items()
              if kind == "f" and holder in ("a", "n")}  # (real: the program has no complex)
    arrays = {name for name, desc in (build.source.descriptors or {}).items()
              if type(desc) is tuple and len(desc) >= 3 and desc[0] in ARRAY_TAGS and
              isinstance(desc[1], int) and desc[1] >= 1 and desc[2] == "f"}
    plain = PlainNumpy(kinds, imports.helpers, imports.numpy(), negate=not build.source.complex,
                       floats=frozenset(floats), arrays=frozenset(arrays & floats),
                       modules=frozenset(imports.renamed))
    build.adjoint = plain.visit(build.adjoint)
    return plain.changed


@transform(on="adjoint")
def lazy_sums(build: Build) -> bool:
    """On a lazy target (Dask), ``s_x += e`` as ``s_x = s_x + e``: a NumPy sensitivity
    (of a NumPy parameter) cannot take a Dask term in place."""
    return rebound_names(build.adjoint, build.namer.sensitivities)


@transform(on="adjoint")
def lazy_kernels(build: Build) -> bool:
    """Fusion on a lazy target (Dask): a run of elementwise statements made one kernel,
    applied chunk by chunk in one task layer (``fused``), not one layer each."""
    imports = build.imports
    modules = {imports.numpy(), *imports.renamed} if imports.array_module_used else set()
    kernels = ElementwiseKernels(modules, lambda: imports.helper(fused),
                                 lambda: build.namer.fresh("kernel"))
    build.adjoint = kernels.visit(build.adjoint)
    build.needs_nestable_build |= kernels.changed  # (a derivative of it reads one without)
    return kernels.changed


@transform(on="adjoint")
def readable(build: Build) -> bool:
    """The spelling a person writes: constants folded (``2 * -1.0 * 2 * x`` is ``-4.0 *
    x``, exactly), the helpers' arguments named (``sum_grad(g, like=x, axis=1)``), and a
    sensitivity only copied into another given its name (no ``s_logits = s_z``)."""
    spell = Readable(build.imports.helper_functions(), fold=build.options.optimize,
                     own=frozenset(() if build.options.annotate else  # (each line's
                                   build.namer.sensitivities),  # adjoint under its comment)
                     floating=frozenset(build.namer.sensitivities))
    build.adjoint = spell.visit(build.adjoint)
    return spell.changed


# --- the pipeline ----------------------------------------------------------------------------

optimize, debug_nans, has_aux, nestable, reverse_mode = map(
    Condition.flag, ("optimize", "debug_nans", "has_aux", "nestable", "reverse"))
# (a backend whose functions want arrays, not lists and numbers: CuPy's)
wants_arrays = Condition(lambda options: not (target_backend(options.target) or NUMPY).takes_lists,
                         "wants_arrays")
# (a backend whose arrays are lazy, computed after: Dask's)
lazy_target = Condition(lambda options: (target_backend(options.target) or NUMPY).settles,
                        "lazy_target")
# (a backend that compiles the generated code, numba's: its kernel reads the counted tape)
compiled_target = Condition(lambda options: bool((target_backend(options.target) or NUMPY).compiler),
                            "compiled_target")
# (the passes that rewrite loops and sums: not for code differentiated again, nor checked
# for NaNs statement by statement)
final_reverse = optimize & reverse_mode & ~nestable & ~debug_nans

PIPELINE = [
    Step(curried),
    Step(validate),
    Step(names),
    Step(view_helpers),
    Step(display_loops),
    Step(held_items),
    Step(view_writes),
    Step(object_lists),
    Step(deep_copies),
    Step(try_blocks),  # (first: its try block's function is the user's code, zips and all)
    Step(strict_zip),
    Step(generators),
    Step(exits),
    Step(prepare_generated),
    Step(piecewise),
    Step(desugar),
    Step(normalize),
    Step(changes_in_recursion),
    Step(aux_output, when=has_aux),
    Step(argument_facts),
    FixedPoint(Step(dict_views)),  # (a dict made of one made of one...)
    Step(refuse_updates),
    Step(refuse_array_stores, when=lazy_target),
    Step(refuse_unpaired_aux, when=has_aux),
    Step(real_powers),
    Step(user_globals),
    Step(reverse, when=reverse_mode),
    Step(forward, when=~reverse_mode),
    Step(refuse_unknown_calls),
    Step(simplify, when=optimize),
    Step(shape_only, when=optimize),
    Step(split_dicts, when=optimize & reverse_mode & ~nestable),
    Step(first_assignment, when=optimize & reverse_mode),
    # debug_nans keeps the forward values nothing reads: a NaN there (the loss itself, log
    # of a negative number) is reported too. Dead code goes again after the passes that
    # may leave some, where they changed anything (it is idempotent).
    Step(dead_code, when=optimize & ~debug_nans),
    Step(recompute, when=optimize),
    Step(copy_propagation, when=optimize),
    Step(simplify_powers, when=optimize, after=(copy_propagation,)),
    Step(dead_code, when=optimize & ~debug_nans),
    Step(forward_substitution, when=optimize),
    Step(unit_seed, when=optimize),
    Step(scale_inward, when=optimize),
    Step(spread_by_products, when=optimize),
    Step(dead_code, when=optimize & ~debug_nans),
    Step(reciprocals, when=optimize & reverse_mode),
    Step(signs, when=optimize & reverse_mode),
    # a seed left out, a constant moved, a sign taken out: a value they read may be read
    # once now (``t_2`` of ``t_3 = np.exp(t_2)``, read also by ``sum_grad(1.0, t_2...)``)
    Step(forward_substitution, when=optimize, after=(unit_seed, scale_inward,
                                                     spread_by_products, reciprocals,
                                                     signs)),
    Step(subtraction, when=optimize),
    Step(gradient_form, when=optimize),
    Step(python_floats, when=optimize),
    Step(nan_check, when=debug_nans),
    Step(loop_tape, when=optimize & ~nestable),
    Step(loop_sums, when=final_reverse & ~compiled_target),  # (numba: loops are fast)
    Step(while_tape, when=optimize & ~nestable & ~compiled_target),
    Step(memory_budget),
    Step(early_sums, when=final_reverse),
    # (after the early sums, which read a sensitivity's terms one statement each)
    Step(combined_terms, when=optimize & reverse_mode),
    Step(dead_code, when=optimize & ~debug_nans, after=(combined_terms,)),
    # (CuPy's conversions last, so that its code is NumPy's with the module changed)
    Step(device_arguments, when=wants_arrays),
    Step(sum_products, when=final_reverse),
    Step(complex_sums),
    Step(plain_numpy, when=final_reverse & ~compiled_target & ~lazy_target),
    Step(dead_code, when=optimize & ~debug_nans, after=(plain_numpy,)),
    Step(lazy_sums, when=lazy_target),
    Step(lazy_kernels, when=lazy_target & final_reverse),
    Step(uniform_items, when=final_reverse & ~compiled_target),
    Step(dead_pops, when=final_reverse & ~compiled_target),
    # (last: the passes before it would read `del s_xs[-1]` as no write to s_xs)
    Step(list_pops, when=final_reverse & ~compiled_target),
    # (a broadcast an unread line checked, which a pass after dead code rewrote: checked)
    Step(broadcast_checks, when=optimize & ~debug_nans),
    Step(readable),
]


def build_gradient(func, wrt: list[str], arg_descriptors=None,
                   options: Options | None = None) -> Compiled:
    """Compile the derivative of ``func`` for the argument kinds ``arg_descriptors``, as
    ``options`` say: ``PIPELINE`` run by a :class:`~s2sad.pass_manager.PassManager`."""
    options = options or Options()
    source = FunctionSource.of(func)
    backend = target_backend(options.target)
    if backend is not None and backend.compiler:  # (numba: what it cannot compile, refused)
        numba_kernel.check_arguments(source, arg_descriptors, parameters(source.tree))
        numba_kernel.check_source(source, backend)
        numba_kernel.check_integers(source, arg_descriptors, parameters(source.tree))
    stages = Stages(options.keep_stages, unparse)
    stages.record("source", source.tree)
    manager = PassManager(PIPELINE, stages)
    build = manager.run(Build(options, wrt, arg_descriptors, source, source.tree))
    compiled = _compiled(build, stages, manager.analysis(build, numbers))
    if backend is not None and backend.compiler:
        return numba_kernel.lower(compiled, source, backend,
                                  dict(zip(parameters(source.tree), arg_descriptors)),
                                  _real_floats(build, manager), _numpy_numbers(build, manager),
                                  _fixed_rows(build, manager))
    return compiled


def _fixed_rows(build: Build, manager) -> frozenset:
    """The 1-d arrays a loop saves pass by pass whose every value saved has one length
    (``fixed_shapes.fixed_rows``): the numba kernel keeps them in a 2-d array."""
    from .transforms.fixed_shapes import fixed_rows
    source = build.source
    return frozenset(fixed_rows(build.tree, manager.analysis(build, kinds), source.resolve,
                                "range" not in source.globals and
                                "range" not in source.closure))


def _numpy_numbers(build: Build, manager) -> frozenset:
    """The names the function returns that hold a NumPy float (``np.sum(x)``, ``x[0]``),
    not a Python one: the numba target returns them as NumPy's (numba boxes a float64 as
    a Python float)."""
    from .transforms.dtypes import dtype_kinds
    found = manager.analysis(build, kinds)
    dtypes = dtype_kinds(build.tree, build.source, manager.analysis(build, local_names))
    returned = {n.id for r in trees.walk(build.tree) if isinstance(r, gast.Return) and
                r.value is not None for n in trees.walk(r.value) if isinstance(n, gast.Name)}
    return frozenset(n for n in returned if found.get(n, ANY).tag == "scalar" and
                     found[n].py is None and dtypes.get(n) == ("f", "a"))


def _real_floats(build: Build, manager) -> tuple:
    """``(scalars, arrays, vectors, integers)``: the names the inferred kinds say hold a
    real floating number, an array of them, a 1-d array of them, and an integer (no float
    where the program holds complex values). The numba kernel saves their values in arrays
    of floats, not lists, and leaves out the items of a vector it never reads back."""
    from .transforms.dtypes import dtype_kinds
    found = manager.analysis(build, kinds)
    dtypes = dtype_kinds(build.tree, build.source, manager.analysis(build, local_names))
    integers = frozenset(n for n, category in dtypes.items() if category[0] == "i" and
                         found.get(n, ANY).tag == "scalar")
    if build.source.complex:
        return frozenset(), frozenset(), frozenset(), integers
    real = {name for name, category in dtypes.items() if category[0] == "f"}
    arrays = frozenset(n for n in real if found.get(n, ANY).tag == "array")
    return (frozenset(n for n in real if found.get(n, ANY).tag == "scalar"), arrays,
            frozenset(n for n in arrays if found[n].ndim == 1), integers)


def _compiled(build: Build, stages: Stages, module_numbers: dict) -> Compiled:
    """The source text of ``build``'s derivative, and what a call checks."""
    adjoint, source, imports = build.adjoint, build.source, build.imports
    header = imports.header(adjoint)
    text = ("\n".join(header) + "\n\n" if header else "") + unparse(adjoint) + "\n"
    digest = hashlib.sha1(text.encode()).hexdigest()[:8]
    filename = f"<s2sad {adjoint.name} of {source.filename}:{source.tree.lineno} {digest}>"
    user = getattr(source.func, "__s2sad_spread__", None)  # (a flat function of one with
    shown = source if user is None else FunctionSource.of(user)  # *args: the user's lines)
    returns = [n for n in trees.walk(shown.tree) if isinstance(n, gast.Return)]
    at = returns[0] if len(returns) == 1 else shown.tree
    output_at = (shown.filename, at.lineno, shown.line(at.lineno))
    return Compiled(text, filename, adjoint.name, dict(imports.live), build.cells, stages.texts,
                    output_at=output_at, numbers=frozenset(module_numbers) & set(imports.live),
                    needs_nestable_build=build.needs_nestable_build,
                    user_lines=statement_lines(adjoint), moved=moved_lines(adjoint, unparse))


def _fresh_call(imports):
    """Does a call of ``func`` return a new array (a helper or a NumPy function whose
    facts say ``fresh``: ``np.outer``)?"""
    return fresh_call(imports.helper_functions(), imports.numpy())


_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow,
               gast.MatMult, gast.USub, gast.UAdd)


def _refuse_arithmetic_on_dicts(tree, kinds: dict, source) -> None:
    """A dict passed where the function does arithmetic (``x * x``): a ``TypeError`` at
    the call, naming the line, not Python's own from inside the generated code."""
    if not any(kind.tag == "dict" for kind in kinds.values()):
        return  # (no name is a dict: no statement to go through)
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
    helpers (but those whose facts say ``checks``: ``output_seed`` may raise) and the
    builtins whose facts say ``pure`` (``len``, ``float``...) where the user's code does
    not give those names another meaning."""
    functions = imports.helper_functions()
    helpers = {alias for alias in imports.helpers.values()
               if not (registry.facts(functions.get(alias)) or registry.Facts()).checks}
    now = vars(builtins)  # (a builtin the user replaced is not the one the table knows)
    return helpers | ({name for name, f in registry.pure_builtins().items()
                       if now.get(name) is f} - set(source.locals) - set(source.globals))


def _loop_sums_names(source, imports) -> tuple:
    """The names ``LoopSums`` asks for: the ``unbroadcast`` helper's, those of the
    functions a loop it changes may call (``_pure_names``), and the array module's."""
    unbroadcast = {imports.helpers["unbroadcast"]} if "unbroadcast" in imports.helpers \
        else set()
    return unbroadcast, _pure_names(source, imports), imports.numpy()


def _function_of(source, imports):
    """``function_of(func)``: the function a called name stands for in generated code
    (a runtime helper, a builtin, a module's function), or None where it is not known."""
    pure_names = functools.cache(lambda: _pure_names(source, imports))

    def function_of(func):
        if isinstance(func, gast.Name) and func.id in imports.helpers.values():
            return imports.helper_functions().get(func.id)
        if isinstance(func, gast.Name) and func.id in pure_names():
            return registry.pure_builtins().get(func.id)
        try:
            return static_value(func, source, source.locals)
        except KeyError:
            return None
    return function_of


def _purity(source, imports):
    pure_names = _pure_names(source, imports)

    def is_pure(func) -> bool:
        if isinstance(func, gast.Name) and func.id in pure_names:
            return True
        if isinstance(func, gast.Name) and func.id in imports.helpers.values():
            # (a helper a later pass made the code call: sum_product...)
            helper = imports.helper_functions().get(func.id)
            return helper is not None and not (registry.facts(helper) or
                                               registry.Facts()).checks
        try:
            target = static_value(func, source, source.locals)
        except KeyError:
            return False
        if (registry.facts(target) or registry.Facts()).freezes:  # (norm(mu, s): frozen)
            return True
        if isinstance(func, gast.Name):
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
    if compiled.kernel is not None:  # (a module numba's cache can import again)
        namespace = numba_kernel.module_namespace(compiled, namespace)
    register(compiled.filename, compiled.text)
    fn = build_function(compiled.text, compiled.filename, compiled.name, namespace,
                        compiled.cells)
    fn.__defaults__ = func.__defaults__
    fn.__kwdefaults__ = func.__kwdefaults__
    if compiled.kernel is not None and compiled.kernel.name in fn.__globals__:
        numba_kernel.attach(fn, compiled)  # (numba compiles it at its first call)
    compiled.function = fn
    return fn


def compile_source(func, wrt=(0,), optimize=True, annotate=False, with_value=False,
                   arg_descriptors=None) -> str:
    """The generated source, for argument indices or names ``wrt`` (handy in doctests)."""
    tree_params = parameters(FunctionSource.of(func).tree)
    names = [tree_params[w] if isinstance(w, int) else w for w in wrt]
    return compile_gradient(func, names, optimize, annotate, with_value, arg_descriptors,
                            len(names) > 1).text.rstrip("\n")
