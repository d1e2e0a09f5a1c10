"""Array backends: one object per target, NumPy, CuPy (arrays on an NVIDIA GPU) and Dask
(chunked arrays, computed by Dask's scheduler, on one machine or a cluster).

A target is a :class:`~s2sad.backends.base.Backend` (``NUMPY``, ``CUPY``): its array
module, how it describes and checks its arguments, which helpers stand in for what its
module lacks, and whether it converts lists and numbers. The public API takes a target's
name (``target="auto" | "numpy" | "cupy" | "dask"``); :func:`target_backend` resolves it once.
Adding a target is adding one backend module, and its line in ``BACKENDS``.

Compiling never imports CuPy: the compiler only *names* it (generated code for the
CuPy target starts with ``import cupy as cp``, so its source can be printed where
CuPy is not installed). Generated code imports it when it is loaded; the runtime
helpers find it through :func:`array_module`, in ``sys.modules``, where the module
of any CuPy array must already be. Where CuPy cannot be imported, the generated
function is :func:`unavailable`: calling it says how to install CuPy.

>>> import numpy as np
>>> backend_of([("nd", 1, "f"), "float"], "auto")
<s2sad backend 'numpy'>
>>> backend_of(["float"], "cupy")
<s2sad backend 'cupy'>
>>> array_module(np.ones(3), 2.0) is np
True
"""

from __future__ import annotations

import re
import sys

import numpy as np

from ..errors import DifferentiationError
from .base import SOURCE_MODULE, Backend, numpy_module
from .cupy_backend import CUPY, INSTALL_CUPY  # noqa: F401 (INSTALL_CUPY: public)
from .dask_backend import DASK, INSTALL_DASK, Namespace  # noqa: F401 (INSTALL_DASK: public)
from .numba_backend import INSTALL_NUMBA, NUMBA  # noqa: F401 (INSTALL_NUMBA: public)
from .numpy_backend import NUMPY

# Every target, NumPy first (the default). A new target adds its backend object here.
BACKENDS: tuple[Backend, ...] = (NUMPY, CUPY, DASK, NUMBA)

_BY_NAME = {backend.name: backend for backend in BACKENDS}
TARGETS = ("auto", *_BY_NAME)

# the backend of each array module, for ``describe`` (NumPy's arrays are described first)
BY_MODULE = {backend.module: backend for backend in BACKENDS if backend.translates}
# the backend of each array library, by the top-level module of its classes ("dask")
BY_LIBRARY = {backend.module.split(".")[0]: backend for backend in BACKENDS
              if backend.translates}
# the first items of array descriptors, on any target: ("nd", 2, "f"), ("cupy", 1, "f")
ARRAY_TAGS = frozenset(backend.tag for backend in BACKENDS)
# the top-level modules of the array libraries (whose objects are not the user's)
LIBRARIES = frozenset().union(*(backend.libraries for backend in BACKENDS))
# each target module's usual alias in generated code ("numpy": "np", "cupy": "cp")
SHORT_NAMES = {backend.module: backend.short for backend in BACKENDS}

_modules = sys.modules
_LAZY = tuple(backend for backend in BACKENDS if backend.settles)

__all__ = [
    "ARRAY_TAGS",
    "BACKENDS",
    "BY_LIBRARY",
    "BY_MODULE",
    "CUPY",
    "DASK",
    "LIBRARIES",
    "NUMBA",
    "NUMPY",
    "SHORT_NAMES",
    "SOURCE_MODULE",
    "TARGETS",
    "Backend",
    "BackendUnavailableError",
    "DeviceShape",
    "HostArrayError",
    "LazyShape",
    "Shape",
    "array_class",
    "array_module",
    "backend_of",
    "check_arguments",
    "check_target",
    "check_values",
    "cupy_import_error",
    "is_array",
    "is_lazy",
    "missing_backend",
    "numpy_module",
    "plain_array",
    "shape_type",
    "target_backend",
    "unavailable",
]


def is_array(desc) -> bool:
    """Does ``desc`` describe an array, on any target (``("nd", 2, "f")``,
    ``("cupy", 1, "f")``; NumPy numbers are ``("nd", 0, kind, "number")``)?

    >>> is_array(("nd", 0, "f")), is_array(("cupy", 2, "f")), is_array(("list", ()))
    (True, True, False)
    """
    return isinstance(desc, tuple) and bool(desc) and desc[0] in ARRAY_TAGS


def check_target(target: str) -> str:
    """``target``, a target's name or ``"auto"``; else a ValueError listing the targets.

    >>> check_target("gpu")
    Traceback (most recent call last):
    ...
    ValueError: target must be one of 'auto', 'numpy', 'cupy', 'dask', 'numba', got 'gpu'
    """
    if isinstance(target, Backend) and _BY_NAME.get(target.name) is target:
        return target.name
    if not isinstance(target, str) or target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(map(repr, TARGETS))}, "
                         f"got {target!r}")
    return target


def target_backend(target) -> Backend | None:
    """The backend ``target`` names (a name, or a backend itself); None for ``"auto"``,
    where the arguments choose (:func:`backend_of`).

    >>> target_backend("cupy") is CUPY, target_backend("auto"), target_backend(NUMPY)
    (True, None, <s2sad backend 'numpy'>)
    """
    if target is None or isinstance(target, Backend):
        return target
    return _BY_NAME.get(check_target(target))


class Shape(tuple):
    """A shape standing in for an array whose shape alone a runtime helper reads.

    ``unbroadcast``, ``sum_grad`` and ``reduced_size`` read ``like.shape``; given a
    ``Shape`` (from ``broadcast_shape`` or ``matmul_shape``), they need no array of that
    shape kept alive in the forward sweep. A plain tuple is no shape here: it is a value
    (``x + (1.0, 2.0)`` broadcasts the tuple as an array).

    >>> s = Shape((2, 3))
    >>> s.shape, s.ndim
    ((2, 3), 2)
    """

    __slots__ = ()

    @property
    def shape(self) -> tuple:
        return tuple(self)  # (a plain tuple, as CuPy's functions take it)

    @property
    def ndim(self):
        return len(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({tuple(self)!r})"


class DeviceShape(Shape):
    """The shape of a CuPy array: a helper given it computes with CuPy, as it would
    given the array (``sum_grad(1.0, shape)`` spreads the seed on the GPU)."""

    __slots__ = ()


class LazyShape(Shape):
    """The shape of a Dask array: a helper given it computes with Dask, lazily."""

    __slots__ = ()


def array_module(*values):
    """``cupy`` if one of ``values`` is a CuPy array (or a ``DeviceShape``), ``dask.array``
    if one is a Dask array (or a ``LazyShape``), else ``numpy`` (like
    ``cupy.get_array_module``, without importing anything).

    Costs two dictionary lookups when neither CuPy nor Dask was imported, so the NumPy
    path of every runtime helper stays as fast as it was.
    """
    cupy = _modules.get("cupy")
    if cupy is not None:
        for value in values:
            if isinstance(value, cupy.ndarray) or type(value) is DeviceShape:
                return cupy
    dask = _modules.get("dask.array")
    if dask is not None:
        for value in values:
            if isinstance(value, dask.Array) or type(value) is LazyShape:
                return _namespace(dask)
    return np


_NAMESPACES: dict = {}


def _namespace(module):
    """``module`` (``dask.array``) with the NumPy names the runtime helpers read that it
    lacks (:class:`~s2sad.backends.dask_backend.Namespace`), one per module."""
    found = _NAMESPACES.get(id(module))
    if found is None or found.module is not module:
        found = _NAMESPACES[id(module)] = Namespace(module)
    return found


def array_class(xp) -> type:
    """The class of the arrays of the array module ``xp`` (``numpy.ndarray``,
    ``cupy.ndarray``, ``dask.array.Array``)."""
    return xp.ndarray


def shape_type(xp) -> type:
    """The class of the shapes of arrays of the array module ``xp`` (``Shape`` for
    NumPy's)."""
    return Shape if xp is np else LazyShape if isinstance(xp, Namespace) else DeviceShape


def is_lazy(value) -> bool:
    """Is ``value`` an array of a target that computes later (a Dask array)?"""
    return any(backend.is_lazy(value) for backend in _LAZY)


def plain_array(x) -> bool:
    """Is ``x`` an array of NumPy's or CuPy's own type (not a subclass: a matrix, a
    masked array)?"""
    if type(x) is np.ndarray:
        return True
    cupy = _modules.get("cupy")
    return cupy is not None and type(x) is cupy.ndarray


def _walk(descriptors):
    for d in descriptors:
        if isinstance(d, tuple) and d and d[0] in ("list", "tuple"):
            yield from _walk(d[1])
        elif isinstance(d, tuple) and d and d[0] == "dict":
            yield from _walk([v for _, v in d[1]])
        else:
            yield d


def backend_of(descriptors, target) -> Backend:
    """Which backend compiles a call whose arguments have these descriptors
    (``s2sad.descriptors.describe``), for ``target`` (a name, a backend, or
    ``"auto"``).

    With ``"auto"``, CuPy arrays anywhere in the arguments pick CuPy. NumPy
    scalars (rank 0) go with either; NumPy and CuPy arrays together are an error:

    >>> backend_of([("cupy", 2, "f"), ("nd", 0, "f"), "float"], "auto")
    <s2sad backend 'cupy'>
    >>> backend_of([("cupy", 2, "f"), ("nd", 1, "f")], "auto")
    Traceback (most recent call last):
    ...
    s2sad.errors.DifferentiationError: the arguments mix NumPy and CuPy arrays
    Move them to one device first: cupy.asarray(x) or cupy.asnumpy(x).
    """
    chosen = target_backend(target)
    if chosen is not None:
        return chosen
    found = [backend for backend in BACKENDS
             if any(backend.claims(d) for d in _walk(descriptors))]
    # (NumPy arrays with Dask arrays: Dask's, which takes them along its own)
    found = [b for b in found if not any(b.tag in other.joins for other in found)]
    if len(found) > 1:
        raise DifferentiationError(
            f"the arguments mix {' and '.join(b.title for b in found)} arrays",
            hint=next(b.mix_hint for b in reversed(found) if b.mix_hint))
    return found[0] if found else NUMPY


class HostArrayError(DifferentiationError, TypeError):
    """An array of another device given to a gradient made for a target (a NumPy array,
    ``target="cupy"``)."""


def check_arguments(descriptors, names, target) -> None:
    """Refuse the arrays ``target`` cannot take, naming the argument: with
    ``target="cupy"``, NumPy arrays (NumPy scalars and 0-d arrays go with either
    backend, as with ``"auto"``). Where the target's module cannot be imported this
    says nothing: the variant, called, says how to install it.

    ``descriptors`` describe the arguments (``s2sad.descriptors.describe``),
    ``names`` are the parameters they are bound to. The message reads::

        the argument 'x' is a NumPy array, and this gradient was made for CuPy
        (target='cupy'): CuPy takes no NumPy array
        Move it to the GPU first (x = cupy.asarray(x)), or make the gradient with
        target='auto' to compute where the arguments are (...)
    """
    backend = target_backend(target)
    if backend is None or not backend.foreign:
        return
    for name, d in zip(names, descriptors):
        if not any(map(backend.refuses, _walk([d]))):
            continue
        if backend.import_error() is not None:
            return
        message, hint = backend.refusal(name, backend.refuses(d))
        raise HostArrayError(message, hint=hint)


def check_values(values, names, target=None) -> None:
    """Refuse an argument a target cannot compute with though its kind fits: a Dask array
    of unknown chunk sizes (``HostArrayError``, naming the argument); and arguments that
    hold none of the arrays of the target asked for by name, where it needs one
    (``target="dask"`` given NumPy arrays alone)."""
    if target is not None:
        found = target.none_given(values)
        if found is not None:
            raise HostArrayError(found[0], hint=found[1])
    for backend in _LAZY:
        for name, value in zip(names, values):
            found = backend.unknown_chunks(name, value)
            if found is not None:
                raise HostArrayError(found[0], hint=found[1])


class BackendUnavailableError(DifferentiationError, ImportError):
    """A gradient compiled for CuPy (or numba) was called where it cannot be imported."""


def missing_backend(text: str) -> tuple[Backend, ImportError] | None:
    """``(backend, why)`` if the generated code ``text`` imports a target's module that
    cannot be imported here, else None."""
    for backend in BACKENDS:
        modules = "|".join(re.escape(m) for m in [backend.module] +
                           [twin for twin, _ in backend.twins.values()]) \
            if backend.translates else re.escape(backend.compiler)
        if (backend.translates or backend.compiler) and \
                re.search(rf"^(import|from) ({modules})\b", text, re.MULTILINE):
            reason = backend.import_error()
            if reason is not None:
                return backend, reason
    return None


def unavailable(name: str, exc: ImportError, backend: Backend = CUPY):
    """A stand-in for a generated function whose imports failed because the target's
    module is missing: its source can be printed (``.source``), calling it explains how
    to install that module."""
    title = backend.title
    message = (f"{name} was generated for the {title} target (target={backend.name!r}, or "
               f"{title} arrays with target='auto'), but {title} cannot be imported ({exc})")

    def missing_backend(*args, **kwargs):
        raise BackendUnavailableError(message, hint=backend.install_hint)
    missing_backend.__name__ = missing_backend.__qualname__ = name
    return missing_backend


def cupy_import_error() -> ImportError | None:
    """Why ``import cupy`` fails here, or None if it works."""
    return CUPY.import_error()
