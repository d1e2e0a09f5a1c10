"""Array backends: NumPy, and CuPy for arrays on an NVIDIA GPU.

Compiling never imports CuPy: the compiler only *names* it (generated code for the
CuPy target starts with ``import cupy as cp``, so its source can be printed where
CuPy is not installed). Generated code imports it when it is loaded; the runtime
helpers find it through :func:`array_module`, in ``sys.modules``, where the module
of any CuPy array must already be. Where CuPy cannot be imported, the generated
function is :func:`unavailable`: calling it says how to install CuPy.

>>> import numpy as np
>>> backend_of([("nd", 1, "f"), "float"], "auto")
'numpy'
>>> backend_of(["float"], "cupy")
'cupy'
>>> array_module(np.ones(3), 2.0) is np
True
"""

from __future__ import annotations

import sys

import numpy as np

from .errors import DifferentiationError

TARGETS = ("auto", "numpy", "cupy")

INSTALL_CUPY = "pip install cupy-cuda12x  (or: pip install 's2sad[cupy]')"

_modules = sys.modules


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


def array_module(*values):
    """``cupy`` if one of ``values`` is a CuPy array (or a ``DeviceShape``), else
    ``numpy`` (like ``cupy.get_array_module``, without importing anything).

    Costs one dictionary lookup when CuPy was never imported, so the NumPy path of
    every runtime helper stays as fast as it was.
    """
    cupy = _modules.get("cupy")
    if cupy is not None:
        for value in values:
            if isinstance(value, cupy.ndarray) or type(value) is DeviceShape:
                return cupy
    return np


def is_cupy_array(value) -> bool:
    return type(value).__module__.split(".")[0] == "cupy" and hasattr(value, "ndim")


def _walk(descriptors):
    for d in descriptors:
        if isinstance(d, tuple) and d and d[0] in ("list", "tuple"):
            yield from _walk(d[1])
        elif isinstance(d, tuple) and d and d[0] == "dict":
            yield from _walk([v for _, v in d[1]])
        else:
            yield d


def backend_of(descriptors, target: str) -> str:
    """Which backend compiles a call whose arguments have these descriptors
    (``s2sad.descriptors.describe``): ``"numpy"`` or ``"cupy"``.

    With ``"auto"``, CuPy arrays anywhere in the arguments pick CuPy. NumPy
    scalars (rank 0) go with either; NumPy and CuPy arrays together are an error:

    >>> backend_of([("cupy", 2, "f"), ("nd", 0, "f"), "float"], "auto")
    'cupy'
    >>> backend_of([("cupy", 2, "f"), ("nd", 1, "f")], "auto")
    Traceback (most recent call last):
    ...
    s2sad.errors.DifferentiationError: the arguments mix NumPy and CuPy arrays
    Move them to one device first: cupy.asarray(x) or cupy.asnumpy(x).
    """
    if target == "numpy":
        return "numpy"
    if target == "cupy":
        return "cupy"
    kinds = {"cupy" if d[0] == "cupy" else "numpy" for d in _walk(descriptors)
             if isinstance(d, tuple) and d and (d[0] == "cupy" or d[0] == "nd" and d[1] > 0)}
    if len(kinds) > 1:
        raise DifferentiationError(
            "the arguments mix NumPy and CuPy arrays",
            hint="Move them to one device first: cupy.asarray(x) or cupy.asnumpy(x).")
    return kinds.pop() if kinds else "numpy"


class HostArrayError(DifferentiationError, TypeError):
    """A NumPy array given to a gradient made for CuPy (``target="cupy"``)."""


def check_arguments(descriptors, names, target: str) -> None:
    """Refuse NumPy arrays given to a gradient made with ``target="cupy"``, naming the
    argument: CuPy takes no NumPy array (NumPy scalars and 0-d arrays go with either
    backend, as with ``"auto"``). Where CuPy cannot be imported this says nothing: the
    variant, called, says how to install CuPy.

    ``descriptors`` describe the arguments (``s2sad.descriptors.describe``),
    ``names`` are the parameters they are bound to. The message reads::

        the argument 'x' is a NumPy array, and this gradient was made for CuPy
        (target='cupy'): CuPy takes no NumPy array
        Move it to the GPU first (x = cupy.asarray(x)), or make the gradient with
        target='auto' to compute where the arguments are (...)
    """
    if target != "cupy":
        return
    for name, d in zip(names, descriptors):
        if not any(isinstance(item, tuple) and item[0] == "nd" and item[1] > 0
                   for item in _walk([d])):
            continue
        if cupy_import_error() is not None:
            return
        single = isinstance(d, tuple) and d[0] == "nd"
        raise HostArrayError(
            f"the argument {name!r} {'is a NumPy array' if single else 'holds NumPy arrays'}, "
            "and this gradient was made for CuPy (target='cupy'): CuPy takes no NumPy array",
            hint=(f"Move it to the GPU first ({name} = cupy.asarray({name}))" if single else
                  "Move them to the GPU first (cupy.asarray)") +
            ", or make the gradient with target='auto' to compute where the arguments are "
            "(NumPy arrays on the CPU, CuPy arrays on the GPU).")


def check_target(target: str) -> str:
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(map(repr, TARGETS))}, "
                         f"got {target!r}")
    return target


class BackendUnavailableError(DifferentiationError, ImportError):
    """A gradient compiled for CuPy was called where CuPy cannot be imported."""


def unavailable(name: str, exc: ImportError):
    """A stand-in for a generated function whose imports failed because CuPy is missing:
    its source can be printed (``.source``), calling it explains how to install CuPy."""
    message = (f"{name} was generated for the CuPy target (target='cupy', or CuPy arrays "
               f"with target='auto'), but CuPy cannot be imported ({exc})")

    def missing_backend(*args, **kwargs):
        raise BackendUnavailableError(
            message, hint=f"Install CuPy for your CUDA version: {INSTALL_CUPY}. "
                          "Printing the source needs neither CuPy nor a GPU.")
    missing_backend.__name__ = missing_backend.__qualname__ = name
    return missing_backend


def cupy_import_error() -> ImportError | None:
    """Why ``import cupy`` fails here, or None if it works."""
    try:
        import cupy  # noqa: F401
    except ImportError as exc:
        return exc
    return None
