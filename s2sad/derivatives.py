"""The derivative objects: what ``grad``, ``value_and_grad``, ``vjp`` and ``jvp`` return.

A :class:`GradientFunction` is called like the function it differentiates. It compiles
one variant per description of its arguments (:func:`s2sad.descriptors.describe`),
keeps them, and calls the one that fits through its entry (:mod:`s2sad.dispatch`).
:class:`VJPFunction` and :class:`JVPFunction` return the value and a pullback or a
pushforward; :class:`BoundDerivative` is the derivative of a method, bound to its
object. The public functions that make them are in :mod:`s2sad.api`.
"""

from __future__ import annotations

import functools
import inspect
import linecache
import threading
import weakref
from typing import Callable

from . import hooks, registry
from .boundary import boundary, hide
from .backends import (ARRAY_TAGS, backend_of, check_arguments, check_target, check_values,
                       target_backend)
from .descriptors import attribute_object, describe_argument, is_object
from .dispatch import UNSET, given_arguments, make_entry
from .errors import (DifferentiationError, NonScalarOutputError, S2sadError,
                     UnsupportedSyntaxError)
from .located import note_user_line, user_line, user_line_of
from .options import Options
from .pipeline import compile_gradient, load
from .runtime.structures import has_parameters
from .source import FunctionSource, note_reads, still_read
from .transforms.attributes import draws_from_arguments, noting_state
from .transforms import numba_kernel

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_ALL: "weakref.WeakSet" = weakref.WeakSet()  # every gradient made, to forget what it built


def _forget_all() -> None:
    """Forget every built variant (a derivative rule changed): built again when called."""
    for gradient in list(_ALL):
        with gradient._lock:
            gradient._variants.clear()
            gradient._nestables.clear()
            gradient._ready.clear()
            gradient._last = None
            gradient._entry = gradient._general


registry.LISTENERS.append(_forget_all)
_CACHE_LOCK = threading.Lock()
_LEFT_OUT = id(UNSET)  # what an entry's parameter holds when the call left it out
_ATTRIBUTE = "__s2sad_gradients__"


class _Gradients(dict):
    """The gradients made of one function, by options; kept in the function's own
    ``__dict__``, so that they live exactly as long as it does (a cycle the garbage
    collector frees), and never keep it, its closure or its module's data alive."""
    __slots__ = ("owner",)


def _cache_of(func) -> dict:
    namespace = getattr(func, "__dict__", None)
    if not isinstance(namespace, dict):  # no attributes of its own: a weak-keyed table
        return _CACHE.setdefault(func, {})
    cache = namespace.get(_ATTRIBUTE)
    if type(cache) is not _Gradients or cache.owner is not func:  # functools.wraps copies
        cache = _Gradients()                                       # __dict__ to a wrapper
        cache.owner = func
        namespace[_ATTRIBUTE] = cache
    return cache


# the public functions by name ("grad", "vjp"...), given by s2sad.api as it loads: a
# derivative pickles as a call of the one that made it
MAKERS: dict = {}
_BUILDING = threading.local()  # the gradients this thread is building (gradients=set of ids)


class GradientFunction:
    """A compiled gradient. Call it like the original function.

    ``source`` is the generated Python source (for the argument kinds of the
    latest call; before any call, the general version that accepts anything).
    ``func`` may itself be a ``GradientFunction``: the gradient of a gradient
    differentiates the generated source of its variant for the same argument kinds.
    """

    # ``_entry`` in a slot: ``g(x)`` reads it from the object's layout, not its __dict__
    # (about 0.1 us less a call: a sixth of the whole gradient of the seed's f4)
    __slots__ = ("_entry", "__dict__", "__weakref__")

    _mode = "reverse"   # what the compiler generates: "reverse" (an adjoint) or "forward"
    _seed = False       # the output's sensitivity is an argument (vjp)
    _prefix = None

    def __init__(self, func: Callable, wrt, optimize: bool, annotate: bool, with_value: bool,
                 target: str = "auto", debug_nans: bool = False, has_aux: bool = False):
        self.func = func
        self.optimize = optimize
        self.annotate = annotate
        self.with_value = with_value
        self.has_aux = has_aux
        self.target = check_target(target)
        self._backend = target_backend(self.target)  # None for "auto": the arguments choose
        self.debug_nans = debug_nans
        if isinstance(func, GradientFunction):
            _check_nestable(func)
        self._signature = inspect.signature(func)
        self._user = func  # the user's function (under a gradient's gradients)
        while isinstance(self._user, GradientFunction):
            self._user = self._user.func
        self._defaults = _defaults_of(self._user)  # those self._signature has
        self._params = list(self._signature.parameters)
        self._wrt_names, self._wrt_tuple = _wrt_names(func, self._params, wrt)
        self._arity = len(self._params)
        # keyword-only parameters stay keyword-only in the generated code
        self._kwonly = [name for name, p in self._signature.parameters.items()
                        if p.kind is p.KEYWORD_ONLY]
        self._variants: dict = {}
        self._nestables: dict = {}  # variants compiled for a derivative of this one to read
        self._ready: dict = {}  # the variants whose calls need no work but the call
        self._last = None
        self._entry = self._general  # replaced by the entry of the variant called last
        self._lock = threading.Lock()
        _ALL.add(self)
        prefix = self._prefix or ("value_and_grad_" if with_value else "grad_")
        self.__name__ = prefix + func.__name__
        self.__qualname__ = self.__name__
        self.__doc__ = f"{self._what()} of {func.__qualname__} with respect to " \
                       f"{', '.join(self._wrt_names)}, generated by s2sad."
        self.__wrapped__ = func

    def _what(self) -> str:
        return "Gradient"

    def _general(self, *args, **kwargs):
        """A call whose variant is found by describing its arguments (compiled if new).
        An error leaves without s2sad's frames (:mod:`s2sad.boundary`)."""
        try:
            return self._general_call(args, kwargs)
        except Exception as exc:
            hide(exc)
            raise

    def _general_call(self, args, kwargs):
        if kwargs or len(args) != self._arity:
            args = self._bind(args, kwargs)
        elif _LEFT_OUT in map(id, args):  # (an entry's: one left out had no default then)
            return self._defaults_changed(*args)
        # the common case first: a variant compiled before that reads no module global live
        compiled = self._ready.get(tuple(map(describe_argument, args)))
        if compiled is None or not still_read(compiled.reads):  # (a helper redefined: the
            compiled = self._variant(args)                      # variant is built again)
        self._last = compiled
        if compiled.entry is not None:
            self._entry = compiled.entry
        try:
            return self._call(self._runnable(compiled, args), args)
        except NonScalarOutputError as exc:
            _at_return(exc, compiled, self.func)
            raise

    def _call(self, function, args, *extra):
        """Call a generated ``function`` with the bound ``args`` (the keyword-only ones by
        keyword), ``extra`` (a seed, tangents) after its own positional parameters. An
        error in the generated code gets a note naming the user's line it comes from."""
        try:
            if not self._kwonly:
                return function(*args, *extra)
            n = len(args) - len(self._kwonly)
            return function(*args[:n], *extra, **dict(zip(self._kwonly, args[n:])))
        except (DifferentiationError, UnsupportedSyntaxError) as exc:  # (a check in the
            # generated code, not located)
            compiled = getattr(self, "_last", None)
            if exc.filename is None and not isinstance(exc, NonScalarOutputError) and \
                    compiled is not None and \
                    compiled.function is getattr(function, "__wrapped__", function):
                _at_user_line(exc, compiled, self.func)
            raise
        except S2sadError:
            raise
        except Exception as exc:
            self._note(exc)
            raise

    def _note(self, exc: Exception) -> None:
        """Name, on ``exc``, the user's line of the failing generated statement."""
        names = set()
        tb = exc.__traceback__
        while tb is not None:
            names.add(tb.tb_frame.f_code.co_filename)
            tb = tb.tb_next
        for compiled in [*self._variants.values(), *self._nestables.values()]:
            if compiled.filename in names:
                note_user_line(exc, compiled, self.__name__)
                return

    def _bind(self, args, kwargs) -> tuple:
        if kwargs or len(args) != len(self._params):
            self._check_defaults()
            try:
                bound = self._signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{self.__name__}(): {exc}") from None
            bound.apply_defaults()
            args = tuple(bound.arguments[p] for p in self._params)
        return args

    def _check_defaults(self) -> None:
        """Read the function's signature again if its defaults changed since (Python reads
        them at each call: ``f.__defaults__ = (5.0,)``)."""
        now = _defaults_of(self._user)
        if not _same_defaults(now, self._defaults):
            self._signature, self._defaults = inspect.signature(self.func), now

    def _defaults_changed(self, *values):
        """A call of an entry made before the function's defaults changed (``values``: its
        parameters', :data:`~s2sad.dispatch.UNSET` where the call left one out): the
        entries are made again, and the call goes the general way with what it gave."""
        with self._lock:
            for compiled in self._ready.values():
                compiled.entry = None
            self._ready.clear()
            self._entry = self._general
        self._check_defaults()
        args, kwargs = given_arguments(self._signature, values)
        return self._general(*args, **kwargs)

    def _bound(self, args, kwargs, method: str):
        self._check_defaults()
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.__name__}.{method}(): {exc}") from None
        return bound

    def _variant(self, args):
        """The compiled variant for these (bound) arguments, its globals read afresh."""
        key = tuple(map(describe_argument, args))  # (CuPy arrays describe themselves)
        check_arguments(key, self._params, self._backend)  # no NumPy array for target='cupy'
        check_values(args, self._params, self._backend)  # (a Dask array of unknown chunk
        # sizes; target='dask' given no Dask array)
        compiled = self._variants.get(key)
        if compiled is None:
            self._refuse_objects(key, args)
            compiled = self._compile(key)
        if not self._refresh(key, compiled):  # a module global is no longer a number:
            self._forget(key)                 # compile again, for what it is now
            compiled = self._compile(key)
            self._refresh(key, compiled)
        self._last = compiled
        if not compiled.live and not isinstance(self.func, GradientFunction):
            self._ready[key] = compiled  # nothing to refresh at its calls
            if compiled.entry is None:
                compiled.entry = make_entry(
                    self.__name__, self._signature, key, self._runnable(compiled, args),
                    self._general,
                    catch=(Exception, functools.partial(_handle, compiled, self.__name__)),
                    reads=compiled.reads, owner=self.func, stale=self._defaults_changed,
                    fast=numba_kernel.fast_entry(compiled, args))  # (numba's entry point)
        return compiled

    def _runnable(self, compiled, args):
        """The variant's function, or on a target whose arrays are lazy (Dask), the
        function that computes the gradients of the other arguments after it, in one call
        (``s2sad.runtime.dask_compat.settling``); found once per variant."""
        found = compiled.__dict__.get("runnable")
        if found is None or getattr(found, "__wrapped__", found) is not compiled.function:
            found = compiled.function
            if self._mode == "reverse" and self._split_key(self._key(args))[0].settles:
                from .runtime.dask_compat import settling
                found = settling(
                    found, tuple((self._params.index(n), n) for n in self._wrt_names),
                    self.with_value and not self._seed, self.has_aux, self._wrt_tuple)
            compiled.runnable = found
        return found

    def _refuse_objects(self, key, args) -> None:
        """An object of a user's class for a differentiated argument: refused where it
        keeps its attributes in ``__slots__`` or holds no parameter (no float)."""
        for name in self._wrt_names:
            value = args[self._params.index(name)]
            if not (type(key[self._params.index(name)]) is tuple and
                    key[self._params.index(name)][0] == "object"):
                continue
            what = f"cannot differentiate {self.func.__qualname__} with respect to {name!r}"
            if not isinstance(getattr(value, "__dict__", None), dict):
                raise TypeError(
                    f"{what}: it is a {type(value).__name__}, whose attributes are in "
                    "__slots__; s2sad differentiates with respect to the attributes of an "
                    "object with a __dict__: drop __slots__, or pass its arrays in a dict")
            if not attribute_object(value):  # (a types.SimpleNamespace: described by its
                raise TypeError(                # members, but not a model s2sad rebuilds)
                    f"{what}: it is a {type(value).__name__}, not an object of a class of "
                    "your own; pass its arrays in a dict (vars(ns)), or make it an object of "
                    "a class you define")
            if not has_parameters(value):
                raise TypeError(
                    f"{what}: its {type(value).__name__} holds no parameter (a float or an "
                    "array of floats, in its attributes, their lists, tuples and dicts, or "
                    "the objects it holds, not frozen); ints, strings and integer arrays are "
                    "not parameters: write 1.0 for 1 to make one")

    def _refresh(self, key, compiled) -> bool:
        """Read the module globals the variant reads live; False if one that it was
        compiled for as a number (``lr = 0.1``) no longer is one, or a function it inlined
        is no longer the one its name gives (a helper defined again)."""
        still = still_read(compiled.reads)
        if isinstance(self.func, GradientFunction):  # the inner gradient's globals first,
            inner = self.func._nestable(key)        # and the variant it was built from
            still = self.func._refresh(key, inner) and still and compiled.built_from is inner
        namespace = compiled.function.__globals__
        for name, (where, item) in compiled.live.items():  # module globals are read live
            value = namespace[name] = where[item]
            if name in compiled.numbers and type(value) not in (float, int):
                still = False
        return still

    def _forget(self, key) -> None:
        with self._lock:
            self._variants.pop(key, None)
            self._nestables.pop(key, None)
            self._ready.pop(key, None)
            self._entry = self._general
        if isinstance(self.func, GradientFunction):
            self.func._forget(key)

    def _on_numpy(self, args) -> bool:
        """Do ``args`` (bound) run on NumPy, not a device target (CuPy)?"""
        return not self._split_key(self._key(args))[0].translates

    def _split_key(self, key):
        """``(backend, argument descriptors)`` of a variant key."""
        return backend_of(key or (), self._backend), key

    def _key(self, args) -> tuple:
        return tuple(map(describe_argument, args))

    def _source_function(self, key):
        """The Python function this one differentiates: the user's, or for a derivative
        of a derivative, the generated function of the inner one for the same kinds."""
        if isinstance(self.func, GradientFunction):
            return self.func._nestable(key).function
        return self.func

    def _nestable(self, key):
        """The variant for ``key`` as a derivative of this one differentiates it: with
        every saved value on the stack (compiled again where a loop's values went to
        lists indexed by its counter, which the compiler does not read back)."""
        compiled = self._variants.get(key) or self._compile(key)
        if not compiled.needs_nestable_build:
            return compiled
        with self._lock:
            nestable = self._nestables.get(key)
            if nestable is None:
                nestable = self._nestables[key] = self._build(key, nestable=True)
        return nestable

    def _inlined(self, key=None):
        """The variant of this gradient for the argument kinds ``key`` (None: the general
        one, for any kinds), as a function that calls it inlines it (``w - lr *
        grad_loss(w, x)`` in a differentiated function: MAML's inner step), and where the
        module globals it reads live are read from (``{name: (namespace, key)}``: the
        user's modules, not the variant's copies); built again if a function it inlined
        was defined again. A ValueError if this gradient is being built (a function that
        calls its own gradient)."""
        building = _BUILDING.__dict__.setdefault("gradients", set())
        if id(self) in building:
            raise ValueError(f"{self.func.__qualname__} calls its own gradient "
                             f"({self.__name__}): s2sad cannot inline a gradient into the "
                             "function it is the gradient of")
        compiled = self._nestable(key)
        if not still_read(compiled.reads):
            self._forget(key)
            compiled = self._nestable(key)
        note_reads(compiled.reads)  # (the caller's gradient is built again with it)
        return compiled.function, dict(compiled.live)

    def _build(self, key, **options):
        """Compile and load the variant for ``key`` (``options``: fields of ``Options``
        beside this derivative's own, ``nestable=True``)."""
        building = _BUILDING.__dict__.setdefault("gradients", set())
        building.add(id(self))
        try:
            return self._build_now(key, **options)
        finally:
            building.discard(id(self))

    def _build_now(self, key, **options):
        backend, descriptors = self._split_key(key)
        inner = self.func._nestable(key) if isinstance(self.func, GradientFunction) else None
        function = self._source_function(key) if inner is None else inner.function
        with noting_state() as notes:  # (its output reads state it changes: refused by
            try:                            # vjp, jvp, jacobian and hessian, for this variant)
                compiled = compile_gradient(
                    function, self._wrt_names, arg_descriptors=descriptors,
                    options=self._build_options(backend, **options))
            except (DifferentiationError, UnsupportedSyntaxError) as exc:
                if inner is not None and exc.filename == inner.filename:  # (a refusal in
                    _at_user_line(exc, None, self.func, (exc.filename, exc.lineno))  # the
                raise                                  # inner gradient's generated code)
        compiled.built_from = inner
        compiled.reads_its_state = getattr(inner, "reads_its_state", None) or \
            (notes[0] if notes else None)  # (the user's line, not the inner gradient's)
        compiled.draws = getattr(inner, "draws", None) or notes.draws  # (rng.normal())
        load(compiled, function)
        return compiled

    def _build_options(self, backend, **options) -> Options:
        """How to build this derivative for ``backend``, as one frozen ``Options``
        (``options``: more of its fields, ``nestable=True``...)."""
        return Options(optimize=self.optimize, annotate=self.annotate,
                       with_value=self.with_value, as_tuple=self._wrt_tuple, target=backend,
                       debug_nans=self.debug_nans, mode=self._mode, seed=self._seed,
                       has_aux=self.has_aux, **options)

    def _compile(self, key):
        with self._lock:
            if key in self._variants:
                return self._variants[key]
            descriptors = self._split_key(key)[1]
            if descriptors is not None:
                for name in self._wrt_names:
                    desc = descriptors[self._params.index(name)]
                    what = _not_numeric(desc)
                    if what is not None:
                        raise TypeError(
                            f"cannot differentiate {self.func.__qualname__} with respect to "
                            f"{name!r}: it holds {what}; pass a float, an array of floats, or "
                            f"a list, tuple or dict of them")
                    if _has_integers(desc):
                        raise TypeError(
                            f"cannot differentiate {self.func.__qualname__} with respect to "
                            f"{name!r}: it holds integers ({_show(desc)}); pass floats, e.g. "
                            f"{name}=float(...) or an array with dtype float64")
            compiled = self._variants[key] = self._build(key)
            return compiled

    @property
    @boundary
    def source(self) -> str:
        """The generated source of this gradient."""
        compiled = self._last or self._compile(None)
        return compiled.text

    @boundary
    def source_for(self, *args, **kwargs) -> str:
        """The generated source specialized to these arguments (without running it)."""
        bound = self._bound(args, kwargs, "source_for")
        bound.apply_defaults()
        key = self._key([bound.arguments[p] for p in self._params])
        return (self._variants.get(key) or self._compile(key)).text

    @boundary
    def stages(self, *args, **kwargs) -> list[tuple[str, str]]:
        """``(pass name, source after it)`` for each pass of the compiler."""
        key = None
        if args or kwargs:
            bound = self._bound(args, kwargs, "stages")
            bound.apply_defaults()
            key = self._key([bound.arguments[p] for p in self._params])
        backend, descriptors = self._split_key(key)
        return compile_gradient(self._source_function(key), self._wrt_names,
                                arg_descriptors=descriptors,
                                options=self._build_options(backend, keep_stages=True)).stages

    def _repr_html_(self) -> str:
        """In Jupyter, a gradient shows its generated source, highlighted."""
        from .display import html_source
        return html_source(self.source)

    def __repr__(self) -> str:
        return f"<s2sad gradient {self.__name__} wrt {', '.join(self._wrt_names)}>"

    def __reduce__(self):
        """Pickle by reference: the function differentiated (by module and name, as pickle
        does for functions) and the options. Unpickling makes the gradient again through
        the public API (``grad``, ``value_and_grad``, ``vjp``, ``jvp``); it is compiled
        afresh at its first call."""
        import functools
        import pickle
        import sys
        makers = {GradientFunction: "value_and_grad" if self.with_value else "grad",
                  VJPFunction: "vjp", JVPFunction: "jvp"}
        name = makers.get(type(self))
        if name not in MAKERS:
            raise pickle.PicklingError(f"cannot pickle {self!r}: pickle the function and "
                                       "make its derivative again after unpickling")
        func = self.func
        if not isinstance(func, GradientFunction):  # a gradient of a gradient pickles both
            found = sys.modules.get(getattr(func, "__module__", None) or "")
            for part in func.__qualname__.split("."):
                found = getattr(found, part, None)
            if found is not func:
                raise pickle.PicklingError(
                    f"cannot pickle {self.__name__}: a gradient is pickled by reference to "
                    f"its function, and {func.__module__}.{func.__qualname__} cannot be "
                    "imported by that name (a nested function, a lambda, or a function "
                    "replaced since). Define it at module level.")
        maker = MAKERS[name]
        options = {"wrt": tuple(self._wrt_names) if self._wrt_tuple else self._wrt_names[0],
                   "optimize": self.optimize, "annotate": self.annotate, "target": self.target,
                   "debug_nans": self.debug_nans, "has_aux": self.has_aux}
        accepted = inspect.signature(maker).parameters
        return functools.partial(maker, **{k: v for k, v in options.items() if k in accepted}), \
            (func,)


def _refuse_state_read_again(made, what: str, then: str, compiled, args=None,
                             instead: str = "") -> None:
    """``made`` runs the user's function once for the value and again for each ``then``;
    where its variant ``compiled`` (the one for these arguments' kinds) has an output that
    reads state it changes (``self.k += 1; return x * self.k``; ``np.random.normal()``),
    each run is another function, so it is refused. So where it draws from a generator
    an argument holds (``args``: the call's, by parameter; ``rng.normal()``), whose type
    the arguments' kinds do not say."""
    func = made.func
    while isinstance(func, GradientFunction):
        func = func.func
    found = getattr(compiled, "reads_its_state", None)
    drawn = None if args is None else draws_from_arguments(
        getattr(compiled, "draws", None) or (), dict(zip(made._params, args)))
    if found is None and drawn is not None:
        (source, stmt, _, _, spelling), holder = drawn
        found = (source, stmt, f"draws from the state of {spelling.rsplit('.', 1)[0]}, a "
                 f"{type(holder).__module__}.{type(holder).__qualname__} given in its "
                 f"arguments ({spelling}), anew at each run",
                 "Draw the numbers outside the function and pass them in (noise = "
                 "rng.normal(size=x.shape); f(x, noise)), or use s2sad.grad, "
                 "s2sad.value_and_grad or s2sad.hvp, which run it once per call.")
    if found is not None:
        source, stmt, state, advice = found
        raise source.error(
            DifferentiationError,
            f"{what} of {getattr(func, '__name__', 'a function')}, whose output {state}: "
            f"{what} runs it once for the value and again for each "
            f"{then}, each run another function" + (
                "" if instead else " (a hessian is a jacobian of the gradient)"),
            stmt, instead or advice or "Use s2sad.grad or s2sad.value_and_grad, which run it "
            "once, or pass the state it reads as an argument.")


# A call goes straight to the entry of the variant called last (s2sad/dispatch.py): a guard
# on the arguments' kinds, then the variant, or else ``_general``. ``__call__`` is the slot
# ``_entry`` itself: ``g(x)`` reads the entry from the object's layout and calls it, with no
# method call between (a property reading it through operator.attrgetter costs about 0.05 us
# more a call, a tenth of numba's compiled gradient of Speelpenning's loop).
GradientFunction.__call__ = GradientFunction.__dict__["_entry"]


class VJPFunction(GradientFunction):
    """``vjp(f)``: called like ``f``, returns ``(value, pullback)``.

    ``pullback(cotangent)`` runs the generated adjoint, whose last argument is the
    sensitivity of the output (``seed``), and returns the sensitivity of each
    differentiated argument, shaped like it. It recomputes the forward sweep: call it
    once per cotangent (``jacobian`` does).
    """

    _seed = True
    _prefix = "vjp_"

    def _what(self) -> str:
        return "Vector-Jacobian product"

    @boundary
    def __call__(self, *args, **kwargs):
        args = self._bind(args, kwargs)
        compiled = self._variant(args)  # compile now: an error shows at this call, not later
        _refuse_state_read_again(self, "vjp", "pullback", compiled, args)
        value = self._call(self.func, args) if self._on_numpy(args) else \
            _make(self.func, self._wrt_names if self._wrt_tuple else self._wrt_names[0],
                  self.optimize, self.annotate, False, self.target, self.debug_nans, False,
                  JVPFunction)._device_value(args)

        @boundary
        def pullback(cotangent):  # (the call ran the function's state changes: not again)
            from .runtime.higher import snapshot
            from .runtime.structures import repeating
            wrong = _cotangent_mismatch(value, cotangent)
            if wrong is not None:  # (JAX refuses it too: a number is not broadcast)
                raise ValueError(
                    f"{pullback.__name__}: the cotangent{wrong}; pass a cotangent shaped "
                    "like the value the function returned (np.full(value.shape, c) for "
                    "a constant c)")
            with repeating():
                return self._call(self._runnable(self._variant(args), args), args,
                                  snapshot(cotangent))
        pullback.__name__ = f"pullback_{getattr(self.func, '__name__', 'f')}"
        return value, pullback

    def __repr__(self) -> str:
        return f"<s2sad vjp {self.__name__} wrt {', '.join(self._wrt_names)}>"


def _cotangent_mismatch(value, cotangent, at: str = "") -> str | None:
    """How ``cotangent`` differs in shape or structure from the function's ``value``
    (``at``: the place in it, ``[0]``), or None where it does not. A part of a structure
    given as None, or a value that is not a number, an array or a structure of them, is
    not checked.

    >>> import numpy as np
    >>> _cotangent_mismatch(np.zeros(3), 1.0)
    ' has shape (); the value has shape (3,)'
    >>> _cotangent_mismatch((np.zeros(2), 2.0), (np.ones(2), np.ones(1)))
    '[1] has shape (1,); the value[1] has shape ()'
    >>> _cotangent_mismatch((1.0, 2.0), (1.0,))
    ' has 1 item; the value has 2'
    >>> _cotangent_mismatch(np.zeros((2, 2)), [[1.0, 0.0], [0.0, 1.0]]) is None
    True
    """
    import numbers
    if cotangent is None:
        return None
    if type(value) in (tuple, list) or (isinstance(value, tuple) and
                                         hasattr(value, "_fields")):
        if not isinstance(cotangent, (tuple, list)):
            return f"{at} is a {type(cotangent).__name__}; the value{at} is a " \
                   f"{type(value).__name__} of {len(value)}"
        if len(cotangent) != len(value):
            return f"{at} has {len(cotangent)} item{'s' if len(cotangent) != 1 else ''}; " \
                   f"the value{at} has {len(value)}"
        for i, (v, c) in enumerate(zip(value, cotangent, strict=True)):
            found = _cotangent_mismatch(v, c, f"{at}[{i}]")
            if found is not None:
                return found
        return None
    if type(value) is dict:
        if not isinstance(cotangent, dict) or set(cotangent) != set(value):
            return f"{at} has other keys than the value{at}'s ({', '.join(map(repr, value))})"
        for key in value:
            found = _cotangent_mismatch(value[key], cotangent[key], f"{at}[{key!r}]")
            if found is not None:
                return found
        return None
    shape = getattr(value, "shape", None)
    if shape is None and isinstance(value, numbers.Number):
        shape = ()
    if shape is None or not all(isinstance(n, numbers.Integral) for n in shape):
        return None  # (not an array, or a lazy one whose shape is not known yet)
    given = getattr(cotangent, "shape", None)
    if given is None and isinstance(cotangent, (numbers.Number, list)):
        import numpy as np
        given = np.shape(cotangent)
    if given is None or not all(isinstance(n, numbers.Integral) for n in given) or \
            tuple(given) == tuple(shape):
        return None
    return f"{at} has shape {tuple(given)}; the value{at} has shape {tuple(shape)}"


class RuntimeVJPFunction(VJPFunction):
    """The vjp s2sad's runtime calls (an ODE's right-hand side in its adjoint, through
    ``hooks.make_value_vjp``): its generated code returns each array argument's
    sensitivity as computed, without the copy that gives a user's result its own memory
    and dtype (``Options.runtime``); the runtime reads it at once and checks its shape."""

    def _build_options(self, backend, **options) -> Options:
        return super()._build_options(backend, runtime=True, **options)


class JVPFunction(GradientFunction):
    """``jvp(f)``: called like ``f``, returns ``(value, pushforward)``.

    ``pushforward(tangent)`` (one tangent per differentiated argument, shaped like it)
    runs the generated forward-mode code and returns the output's tangent, shaped like
    the output.
    """

    _mode = "forward"
    _prefix = "jvp_"

    def _what(self) -> str:
        return "Jacobian-vector product"

    @boundary
    def __call__(self, *args, **kwargs):
        args = self._bind(args, kwargs)
        compiled = self._variant(args)  # compile now: an error shows at this call, not later
        _refuse_state_read_again(self, "jvp", "pushforward", compiled, args)
        value = self._call(self.func, args) if self._on_numpy(args) else \
            self._device_value(args)

        @boundary
        def pushforward(*tangents):  # (the call ran the function's state changes: not again)
            from .runtime.structures import repeating
            for name, t in zip(self._wrt_names, tangents):  # (a number for an array: as
                value = args[self._params.index(name)]  # JAX, refused, not broadcast)
                wrong = _cotangent_mismatch(value, t) if isinstance(t, (int, float)) and \
                    getattr(value, "ndim", 0) else None
                if wrong is not None:
                    raise ValueError(f"{pushforward.__name__}: the tangent for {name!r}"
                                     f"{wrong.replace('the value', repr(name))}; pass a "
                                     "tangent shaped like it")
            with repeating():
                return self._both(args, tangents)[1]
        pushforward.__name__ = f"pushforward_{getattr(self.func, '__name__', 'f')}"
        return value, pushforward

    def _device_value(self, args):
        """The function's value at ``args`` on a device target: the generated code's, run
        with zero tangents. Its library calls are the target's (``cupyx.scipy.special.erf``
        for ``scipy.special.erf``; those the target lacks were refused at the user's line
        as it compiled), where the user's own code would hand device arrays to SciPy."""
        from .runtime import as_gradient
        zeros = [as_gradient(args[self._params.index(name)], 0.0) for name in self._wrt_names]
        return self._settled(args, self._call(self._variant(args).function, args, *zeros))[0]

    def _settled(self, args, result):
        """``result``, ``(value, tangent)``, as it is; or where this differentiates a
        gradient on a lazy target (Dask), with the parts that gradient computes (those of
        its arguments that are not Dask arrays) computed, value and tangent in one
        ``dask.compute``: a gradient's derivative has the gradient's kind."""
        inner = self.func
        if not isinstance(inner, GradientFunction) or inner._mode != "reverse" or \
                not self._split_key(self._key(args))[0].settles:
            return result
        from .runtime.dask_compat import computed_together
        arguments = tuple(args[inner._params.index(n)] for n in inner._wrt_names)
        return tuple(computed_together(
            result, arguments, inner.with_value and not inner._seed, inner.has_aux,
            inner._wrt_tuple))

    def _both(self, args, tangents):
        """``(value, tangent)`` in one run of the generated code."""
        if len(tangents) != len(self._wrt_names):
            raise TypeError(f"{self.__name__}: expected {len(self._wrt_names)} tangent"
                            f"{'s' if len(self._wrt_names) > 1 else ''} (for "
                            f"{', '.join(self._wrt_names)}), got {len(tangents)}")
        from .runtime import as_gradient
        for name, t in zip(self._wrt_names, tangents):
            value = args[self._params.index(name)]
            shape, given = getattr(value, "shape", None), getattr(t, "shape", ())
            if shape is not None and given and tuple(given) != tuple(shape):
                raise ValueError(f"{self.__name__}: the tangent for {name!r} has shape "
                                 f"{tuple(given)}; {name!r} has shape {tuple(shape)}")
        tangents = [as_gradient(args[self._params.index(name)], t)
                    for name, t in zip(self._wrt_names, tangents)]
        return self._settled(args, self._call(self._variant(args).function, args, *tangents))

    def __repr__(self) -> str:
        return f"<s2sad jvp {self.__name__} wrt {', '.join(self._wrt_names)}>"


def _handle(compiled, who: str, exc: Exception) -> None:
    """What the entry does with an error of the generated code before it goes on: a
    non-scalar output is said at the user's ``return``; another error gets a note naming
    the user's line (:mod:`s2sad.located`)."""
    if isinstance(exc, NonScalarOutputError):
        _at_return(exc, compiled)
    elif isinstance(exc, (DifferentiationError, UnsupportedSyntaxError)) and \
            exc.filename is None:
        _at_user_line(exc, compiled)  # (a check in the generated code: check_real_power)
    elif not isinstance(exc, S2sadError):
        note_user_line(exc, compiled, who)


def _at_user_line(exc: DifferentiationError, compiled, func=None, at=None) -> None:
    """Raise ``exc`` again located at the user's line of the generated statement that
    raised it, where that is known; in a derivative of a derivative (``func``, the
    derivative differentiated), at the line of the user's own code it comes from. ``at``:
    ``(generated file, line)`` of a refusal met while building a derivative of ``func``'s
    generated code (``compiled`` None), found in ``func``'s code the same way."""
    if at is not None:
        where = (at + (None, None, None),)
    else:
        where = user_line_of(exc, compiled, following=True)  # (a sensitivity's zeros:
        if where is None or compiled.output_at is None:  # the adjoint that adds to them)
            return
    if not isinstance(where, tuple):
        where = ((compiled.output_at[0], where, None, None, None),)
    while isinstance(func, GradientFunction):
        inner = _compiled_named(func, where[-1][0])  # (the statement's line in the
        if inner is None:                            # derivative's own generated code)
            break
        line = user_line(inner.text, inner.name, inner.user_lines, where[-1][1])
        if line is None or inner.output_at is None:
            break
        where = line if isinstance(line, tuple) else ((inner.output_at[0], line, None, None,
                                                       None),)
        func = func.func
    filename, line, text, col, _ = where[-1]
    if at is not None and filename == at[0]:
        return  # (not found in the user's code: left where it is)
    text = text or linecache.getline(filename, line)
    if col is None and text:  # (refused as it runs: the caret under the line's expression)
        col = expression_column(text)
    raise type(exc)(getattr(exc, "construct", None) or exc.message, filename, line, text, col,
                    exc.hint, where if len(where) > 1 else ()) from None


def expression_column(text: str) -> int:
    """The column of the user's line ``text`` that a refusal met as the gradient runs
    points at: an assignment's value, an update's target (``v += w``: ``v``), a
    ``return``'s value; else the statement's first character.

    >>> expression_column("    y = x ** 0.5\\n"), expression_column("    v += w\\n")
    (8, 4)
    >>> expression_column("    try:\\n")
    4
    """
    import ast
    stripped = text.rstrip("\n")
    indent = len(stripped) - len(stripped.lstrip())
    try:
        body = ast.parse(stripped.strip()).body
    except SyntaxError:  # (a block's header alone: `try:`, `for v in xs:`)
        return indent
    stmt = body[0] if body else None
    if isinstance(stmt, ast.AugAssign):
        return indent + stmt.target.col_offset
    value = getattr(stmt, "value", None)
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Return, ast.Expr)) and \
            isinstance(value, ast.AST):
        return indent + value.col_offset
    return indent


def _compiled_named(func, filename: str):
    """``func``'s compiled code whose generated file is ``filename`` (the one called last,
    or one compiled for a derivative of it to read, ``func`` itself never called), or None."""
    for compiled in (func._last, *func._nestables.values(), *func._variants.values()):
        if compiled is not None and compiled.filename == filename and compiled.user_lines:
            return compiled
    return None


def _at_return(exc: NonScalarOutputError, compiled, func=None) -> None:
    """Raise ``exc`` again located at the user's ``return``, when it has no place yet. For
    a gradient of a gradient (``func``, a derivative) whose inner gradient is a vector, at
    the ``return`` of the user's function, saying what gives its second derivatives."""
    if exc.filename is not None or compiled.output_at is None:
        return
    inner = func
    while isinstance(inner, GradientFunction) and isinstance(inner.func, GradientFunction):
        inner = inner.func
    at = next((c.output_at for c in (inner._last, *inner._nestables.values(),
                                     *inner._variants.values())
               if c is not None and c.output_at is not None), None) \
        if isinstance(inner, GradientFunction) else None
    if at is not None:
        name = getattr(inner.func, "__name__", "f")
        raise NonScalarOutputError(
            f"{exc.message}: the gradient of {name}, which a gradient of a gradient "
            "differentiates, is one derivative per entry of its argument",
            *at, _returned_column(at[2]),
            f"For the second derivatives use s2sad.hessian({name}) (the matrix), "
            f"s2sad.hvp({name}) (its product with a vector), or "
            f"s2sad.jacobian(s2sad.grad({name})).") from None
    raise NonScalarOutputError(exc.message, *compiled.output_at,
                               _returned_column(compiled.output_at[2]), exc.hint) from None


def _returned_column(text: str | None) -> int | None:
    """The column of the value a ``return`` line returns, where the caret of a
    non-scalar output points; None for a line that is no ``return``.

    >>> _returned_column("    return np.ones(3)\\n"), _returned_column("def f(x):\\n")
    (11, None)
    """
    stripped = (text or "").lstrip()
    if not stripped.startswith("return") or stripped[6:7].isidentifier() or \
            not stripped[6:].strip():
        return None
    rest = stripped[6:]
    return len(text) - len(stripped) + 6 + len(rest) - len(rest.lstrip())


def _check_nestable(func) -> None:
    if type(func) is not GradientFunction or func.with_value or func.has_aux or \
            func._wrt_tuple:
        raise DifferentiationError(
            f"cannot differentiate {func!r}: s2sad differentiates a gradient that returns one "
            "gradient (not value_and_grad, has_aux, a vjp/jvp, or a tuple of gradients)",
            hint="Differentiate s2sad.grad(f, wrt=i) for one argument i; for several, use "
                 "s2sad.jacobian or s2sad.hessian.")


def _defaults_of(func) -> tuple:
    """``func``'s defaults: the tuple, the dict of keyword-only ones and that dict's items
    (it may change in place)."""
    keywords = getattr(func, "__kwdefaults__", None)
    return getattr(func, "__defaults__", None), keywords, tuple((keywords or {}).items())


def _same_defaults(now: tuple, then: tuple) -> bool:
    return now[0] is then[0] and now[1] is then[1] and len(now[2]) == len(then[2]) and \
        all(a[0] == b[0] and a[1] is b[1] for a, b in zip(now[2], then[2]))


def _wrt_names(func, params: list[str], wrt) -> tuple[list[str], bool]:
    if not isinstance(func, GradientFunction) and any(
            p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            for p in inspect.signature(func).parameters.values()):
        source = FunctionSource.of(func)  # (said here, not as a wrt out of range)
        raise source.syntax_error("`*args` or `**kwargs` parameters", source.tree,
                                  "Name every parameter.")
    as_tuple = isinstance(wrt, (tuple, list))
    items = list(wrt) if as_tuple else [wrt]
    if not items:
        raise DifferentiationError(f"wrt is empty: name at least one argument of "
                                   f"{func.__qualname__}")
    names = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise TypeError(f"wrt must be argument indices or names, got {item!r}")
        if isinstance(item, int):
            if not -len(params) <= item < len(params):
                raise DifferentiationError(
                    f"wrt={item} is out of range: {func.__qualname__} has {len(params)} "
                    f"argument{'s' if len(params) != 1 else ''} ({', '.join(params)})")
            item = params[item]
        elif item not in params:
            raise DifferentiationError(
                f"wrt={item!r} is not an argument of {func.__qualname__}; its arguments are "
                f"{', '.join(params) or 'none'}")
        names.append(item)
    return names, as_tuple


def _not_numeric(desc) -> str | None:
    """What in an argument's descriptor cannot be differentiated (not a number), or None.
    An object of a user's class is differentiated with respect to its parameters (the
    floats it holds: :func:`s2sad.runtime.structures.object_gradient`)."""
    if type(desc) is tuple and desc[0] == "object":
        return None
    if is_object(desc):
        return "a value that is not a number (a string, None, an object...)"
    if isinstance(desc, tuple):
        if desc[0] in ARRAY_TAGS:
            return None if desc[2] in "fciub" else f"an array of dtype kind {desc[2]!r} " \
                "(strings, objects...)"
        items = (v for _, v in desc[1]) if desc[0] == "dict" else desc[1]
        return next((w for w in map(_not_numeric, items) if w is not None), None)
    return None


def _leaf_kinds(desc):
    """The kinds of the numbers an argument's descriptor holds: ``"float"``, ``"int"``,
    ``"complex"``, or an array's dtype kind (``"f"``, ``"c"``, ``"i"``...)."""
    if not isinstance(desc, tuple):
        yield desc
    elif desc[0] in ("object", "data", "function"):
        return
    elif desc[0] in ARRAY_TAGS:
        yield desc[2]
    else:
        for item in (v for _, v in desc[1]) if desc[0] == "dict" else desc[1]:
            yield from _leaf_kinds(item)


def _has_integers(desc) -> bool:
    return any(kind in ("int", "i", "u", "b") for kind in _leaf_kinds(desc))


def _show(desc) -> str:
    if desc == "int":
        return "int"
    if isinstance(desc, tuple) and desc[0] in ARRAY_TAGS:
        return "an integer array" if desc[2] in "iu" else "a boolean array"
    return "a container with integers"


def _check_wrt(wrt) -> None:
    """Refuse a ``wrt`` that is not an argument's index or name, nor a tuple of them
    (``s2sad.vjp(f, x)``: the argument given to the maker, not to what it makes).

    >>> _check_wrt((0, "y"))
    >>> _check_wrt([1.0, 2.0])
    Traceback (most recent call last):
    ...
    TypeError: wrt must be argument indices or names, got 1.0. The function's arguments go to the derivative s2sad returns: s2sad.vjp(f)(x), not s2sad.vjp(f, x)
    """
    for item in wrt if isinstance(wrt, (list, tuple)) else (wrt,):
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            shown = repr(item) if len(repr(item)) < 40 else f"a {type(item).__name__}"
            raise TypeError(
                f"wrt must be argument indices or names, got {shown}. The function's "
                "arguments go to the derivative s2sad returns: s2sad.vjp(f)(x), not "
                "s2sad.vjp(f, x)")


def _make(func, wrt, optimize, annotate, with_value, target="auto", debug_nans=False,
          has_aux=False, cls=None):
    cls = cls or GradientFunction
    _check_wrt(wrt)
    options = (cls, tuple(wrt) if isinstance(wrt, (list, tuple)) else wrt, bool(optimize),
               bool(annotate), with_value, check_target(target), bool(debug_nans),
               bool(has_aux))
    made = getattr(func, "__s2sad_made__", None)
    if made is not None:
        raise DifferentiationError(
            f"cannot differentiate {getattr(func, '__name__', func)!s}: it is {made} that "
            "s2sad computes by calling the derivatives it compiled, not a function s2sad can "
            "read the source of",
            hint="Differentiate a gradient instead: s2sad.hessian(f), "
                 "s2sad.jacobian(s2sad.grad(f)) or s2sad.grad(s2sad.grad(f)) for a scalar f; "
                 "for a vector output, the Hessian of each output, s2sad.hessian(f_i) with "
                 "f_i a def returning f(x)[i].")
    if getattr(func, "__s2sad_checkpoint__", False):  # (the same function, its rules aside)
        func = func.__wrapped__
    compiled_by = [b for b in (target_backend(target), isinstance(func, GradientFunction) and
                               target_backend(func.target)) if b and b.compiler]
    if compiled_by and isinstance(func, GradientFunction):  # (numba's kernel: no source)
        raise DifferentiationError(
            f"cannot differentiate {func.__name__} for target={compiled_by[0].name!r}: "
            f"the {compiled_by[0].title} target compiles first derivatives of your functions, "
            "not derivatives of derivatives",
            hint="Make the derivatives of derivatives with target='numpy' (s2sad.hessian(f), "
                 "s2sad.grad(s2sad.grad(f))).")
    if not isinstance(func, GradientFunction):
        FunctionSource.of(func)  # fail early, at the user's call, if there is no source
    with _CACHE_LOCK:
        per_function = _cache_of(func)
        if options not in per_function:
            per_function[options] = cls(func, wrt, optimize, annotate, with_value, target,
                                        debug_nans, has_aux)
        return per_function[options]


# --- methods: s2sad.grad(model.loss) -----------------------------------------------------


class BoundDerivative:
    """The derivative of a method, bound to its object: ``s2sad.grad(model.loss)`` is
    ``s2sad.grad(Model.loss, wrt=1)`` (``self`` first, not differentiated: its attributes
    are constants) called with ``model`` first. ``.source``, ``.source_for(...)`` and
    ``.stages(...)`` are the method's; a derivative of it is again bound.

    >>> import numpy as np, s2sad
    >>> class Line:
    ...     def __init__(self, slope):
    ...         self.slope = slope
    ...     def loss(self, w):
    ...         return np.sum((self.slope * w) ** 2)
    >>> g = s2sad.grad(Line(3.0).loss)
    >>> g(np.array([1.0, 2.0])), s2sad.grad(g)(1.0)
    (array([18., 36.]), 18.0)
    """

    def __init__(self, derivative, obj):
        self.derivative, self.obj = derivative, obj
        self.__name__ = getattr(derivative, "__name__", "derivative")
        self.__qualname__ = self.__name__
        self.__doc__ = getattr(derivative, "__doc__", None)

    @boundary
    def __call__(self, *args, **kwargs):
        return self.derivative(self.obj, *args, **kwargs)

    @property
    @boundary
    def source(self) -> str:
        return self.derivative.source

    @boundary
    def source_for(self, *args, **kwargs) -> str:
        return self.derivative.source_for(self.obj, *args, **kwargs)

    @boundary
    def stages(self, *args, **kwargs):
        return self.derivative.stages(self.obj, *args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.derivative, name)

    def __repr__(self) -> str:
        return f"<{self.derivative!r} bound to a {type(self.obj).__name__}>"


def _call_generated(derivative, args, *extra):
    """:data:`s2sad.hooks.call_generated`."""
    args = derivative._bind(tuple(args), {})  # (a parameter left out: its default)
    return derivative._call(derivative._variant(args).function, args, *extra)


def _call_again(derivative, args, *extra):
    """:data:`s2sad.hooks.call_again`."""
    from .runtime.structures import repeating
    args = derivative._bind(tuple(args), {})
    compiled = derivative._variant(args)
    _refuse_state_read_again(
        derivative, "s2sad.checkpoint", "derivative (recomputing it)", compiled, args,
        "Call it without s2sad.checkpoint, or pass the state it reads as an argument.")
    with repeating():
        return derivative._call(compiled.function, args, *extra)


def _variant_function(derivative, args):
    """:data:`s2sad.hooks.variant_function`."""
    function = derivative._variant(derivative._bind(tuple(args), {})).function
    return None if derivative._kwonly else function


def _generated_function(derivative, args):
    """:data:`s2sad.hooks.generated_function`."""
    args = derivative._bind(tuple(args), {})
    derivative._variant(args)  # (its module globals read afresh)
    return derivative._nestable(derivative._key(args)).function


def _gradient_parameters(value):
    """:data:`s2sad.hooks.gradient_parameters`."""
    return value._params if type(value) is GradientFunction else None


# what the runtime (a recursive or checkpointed call's derivatives) and the inliner (a
# gradient called inside a differentiated function) reach through s2sad.hooks
hooks.call_generated.install(_call_generated)
hooks.call_again.install(_call_again)
hooks.push_forward.install(lambda derivative, args, tangents: derivative._both(args, tangents))
hooks.generated_function.install(_generated_function)
hooks.variant_function.install(_variant_function)
hooks.gradient_parameters.install(_gradient_parameters)
hooks.inline_gradient.install(lambda gradient, key: gradient._inlined(key))
