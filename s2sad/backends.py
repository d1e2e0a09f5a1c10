"""Array backends: NumPy, and CuPy for arrays on an NVIDIA GPU.

This is the only module that knows about CuPy, and it never imports it unless a
CuPy array is seen or ``target="cupy"`` is asked for.

>>> import numpy as np
>>> backend_of([np.ones(3), 2.0], "auto")
'numpy'
>>> backend_of([1.0], "numpy")
'numpy'
"""

from __future__ import annotations

from .errors import DifferentiationError

TARGETS = ("auto", "numpy", "cupy")


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
    (``s2sad.transforms.kinds.describe``): ``"numpy"`` or ``"cupy"``."""
    if target == "numpy":
        return "numpy"
    if target == "cupy":
        return "cupy"
    kinds = {"cupy" if d[0] == "cupy" else "numpy" for d in _walk(descriptors)
             if isinstance(d, tuple) and d and d[0] in ("nd", "cupy")}
    if len(kinds) > 1:
        raise DifferentiationError(
            "the arguments mix NumPy and CuPy arrays",
            hint="Move them to one device first: cupy.asarray(x) or cupy.asnumpy(x).")
    return kinds.pop() if kinds else "numpy"


def check_target(target: str) -> str:
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(map(repr, TARGETS))}, "
                         f"got {target!r}")
    return target
