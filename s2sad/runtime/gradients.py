"""Returning gradients without a copy when the compiler knows they are new arrays."""

from __future__ import annotations

import numpy as np

from ..backends import array_module
from . import as_gradient


def fresh_gradient(x, g):
    """``g`` itself when it is a new array shaped and typed like ``x`` (no copy), else
    ``as_gradient(x, g)``. The compiler only emits this where ``g`` was just computed.
    NumPy and CuPy arrays alike: a CuPy gradient stays where it was computed, uncopied.

    >>> x = np.zeros((2, 2))
    >>> g = np.ones((2, 2))
    >>> fresh_gradient(x, g) is g
    True
    >>> fresh_gradient(x, np.ones(2)).shape
    (2, 2)
    >>> fresh_gradient(x, g[::-1]) is g  # a view of another array is copied
    False
    """
    if type(g) is np.ndarray and type(x) is np.ndarray and g.shape == x.shape and \
            g.dtype == x.dtype and g.flags.writeable and (g.base is None or _numba_owned(g)):
        return g
    if type(g) is type(x) and array_module(g) is not np and g.shape == x.shape and \
            g.dtype == x.dtype and getattr(g, "base", None) is None and \
            getattr(g, "chunks", None) == getattr(x, "chunks", None):  # CuPy arrays are
        # always writeable; a Dask array is never written, and keeps its argument's chunks
        return g
    return as_gradient(x, g)


def _numba_owned(g) -> bool:
    """Is ``g`` an array a numba kernel allocated and returned, held by nothing else?
    Its base is numba's memory record: allocated by numba (no Python object behind it,
    as an argument or a view of one has), referenced once (a second array returned
    over the same memory would make two).

    >>> _numba_owned(np.ones(2)[:1])
    False
    """
    base = g.base
    return type(base).__name__ == "_MemInfo" and \
        type(base).__module__ == "_nrt_python" and base.parent is None and \
        base.refcount == 1
