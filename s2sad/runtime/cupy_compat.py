"""NumPy functions CuPy 14 does not have, for the CuPy target.

The CuPy target's code is the NumPy code with ``cupy`` for ``numpy``. A few NumPy 2
functions have no CuPy twin (``cupy.linalg.vector_norm``, ``cupy.linalg.matrix_norm``,
``cupy.vecdot``, ``cupy.linalg.vecdot``, ``cupy.linalg.svdvals``): these are the functions for the CuPy target to
call in their place (:func:`replacement` says which). Each one computes with the array module of
its arguments (:func:`s2sad.backends.array_module`), with CuPy's own primitives
(``linalg.norm``, ``sum``...), so CuPy data stays on the GPU; on NumPy arrays they give
what NumPy gives:

>>> import numpy as np
>>> x = np.array([[3.0, 4.0], [6.0, -8.0]])
>>> vector_norm(x, axis=1)
array([ 5., 10.])
>>> vector_norm(x, axis=0, ord=1, keepdims=True)
array([[ 9., 12.]])
>>> float(matrix_norm(x)) == float(np.linalg.norm(x))
True
>>> vecdot(x, np.array([1.0, 0.5]))
array([5., 2.])
>>> replacement("numpy.linalg", "vector_norm"), replacement("numpy", "sin")
('vector_norm', None)
"""

from __future__ import annotations

import operator

from ..backends import CUPY, array_module

# the NumPy functions CuPy lacks (module, name) -> the name of their stand-in here (a fact
# of the CuPy backend: ``s2sad.backends.cupy_backend``)
REPLACEMENTS = CUPY.stand_ins


def replacement(module: str, name: str) -> str | None:
    """The name of this module's stand-in for NumPy's ``module.name`` on the CuPy target,
    or None where CuPy has that function itself."""
    return REPLACEMENTS.get((module, name))


def _axes(axis, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, an int or a tuple of ints) as a tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(operator.index(a) for a in (axis if isinstance(axis, tuple) else (axis,)))
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of bounds for an array of dimension {ndim}")
    axes = tuple(a % ndim for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {axis!r}")
    return axes


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """``numpy.linalg.vector_norm``: the ``ord``-norm of ``x`` over ``axis`` (all axes by
    default, as one vector), through the array module's ``linalg.norm`` over one axis.

    >>> import numpy as np
    >>> x = np.arange(24.0).reshape(2, 3, 4)
    >>> bool(np.allclose(vector_norm(x, axis=(0, 2), ord=3),
    ...                  np.linalg.norm(np.moveaxis(x, 1, 0).reshape(3, 8), 3, axis=1)))
    True
    >>> vector_norm(x, axis=(0, 2), keepdims=True).shape
    (1, 3, 1)
    """
    xp = array_module(x)
    x = xp.asarray(x)
    shape = x.shape
    axes = _axes(axis, x.ndim)
    if len(axes) == 1:
        along = axes[0]
    else:  # the reduced axes moved last and made one
        kept = tuple(a for a in range(x.ndim) if a not in axes)
        size = 1
        for a in axes:
            size *= shape[a]
        x = xp.reshape(xp.transpose(x, kept + axes), tuple(shape[a] for a in kept) + (size,))
        along = x.ndim - 1
    result = xp.linalg.norm(x, ord=ord, axis=along)
    if keepdims:
        result = xp.reshape(result, tuple(1 if a in axes else n for a, n in enumerate(shape)))
    return result


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """``numpy.linalg.matrix_norm``: the ``ord``-norm of each matrix of the stack ``x``
    (its last two axes).

    >>> import numpy as np
    >>> matrix_norm(np.stack([np.eye(2), 2.0 * np.eye(2)]), ord="nuc")
    array([2., 4.])
    """
    xp = array_module(x)
    x = xp.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_norm needs an array of at least 2 dimensions, got {x.ndim}")
    return xp.linalg.norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def vecdot(x1, x2, /, *, axis=-1, keepdims=False):
    """``numpy.vecdot`` (and ``numpy.linalg.vecdot``): the dot products of the vectors of
    ``x1`` and ``x2`` along ``axis``, the other axes broadcast; ``x1`` is conjugated.

    >>> import numpy as np
    >>> vecdot(np.array([1j, 2.0]), np.array([1j, 1.0]))
    np.complex128(3+0j)
    >>> vecdot(np.ones((4, 3)), np.arange(4.0), axis=0)
    array([6., 6., 6.])
    >>> vecdot(np.ones((2, 3)), np.ones((2, 1)))
    Traceback (most recent call last):
    ...
    ValueError: vecdot: the vectors along axis -1 have 3 and 1 elements
    """
    xp = array_module(x1, x2)
    x1, x2 = xp.asarray(x1), xp.asarray(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot needs arrays of at least one dimension")
    n1, n2 = x1.shape[axis], x2.shape[axis]
    if n1 != n2:
        raise ValueError(f"vecdot: the vectors along axis {axis} have {n1} and {n2} elements")
    if xp.iscomplexobj(x1):
        x1 = xp.conj(x1)
    # the vectors last in each operand (``axis`` counts in each one), the rest broadcast
    products = xp.moveaxis(x1, axis, -1) * xp.moveaxis(x2, axis, -1)
    result = xp.sum(products, axis=-1, keepdims=keepdims)
    return xp.moveaxis(result, -1, axis) if keepdims else result


def svdvals(x, /):
    """``numpy.linalg.svdvals``: the singular values of the matrices in the last two axes.

    >>> import numpy as np
    >>> svdvals(np.array([[3.0, 0.0], [0.0, -4.0]]))
    array([4., 3.])
    """
    xp = array_module(x)
    return xp.linalg.svd(xp.asarray(x), compute_uv=False)
