"""Index and argument helpers of the NumPy functions :mod:`s2sad.implementations` writes
with functions that have rules (``np.insert``, ``np.delete``, ``np.partition``,
``np.gradient``, ``np.pad``'s computed modes) and of ``np.einsum``'s sublists. None of them
reads a value that carries a derivative: each gives the positions or the numbers the
definition gathers with.

>>> import numpy as np
>>> delete_sources((5,), [1, 3], None)
array([0, 2, 4])
>>> insert_sources((3,), 1, (), None)
array([ 0, -1,  1,  2])
>>> interleaved_subscripts([[0, 1], [1, 2]], [0, 2])
'ab,bc->ac'
"""

from __future__ import annotations

import numpy as np

from ..errors import NoDerivativeError


def delete_sources(shape, obj, axis):
    """The flat positions, in an array of ``shape``, that ``np.delete(arr, obj, axis)``
    keeps, in the result's shape."""
    ids = np.arange(int(np.prod(shape)), dtype=np.intp).reshape(shape)
    return np.delete(ids, obj, axis)


def insert_sources(shape, obj, values_shape, axis):
    """Where each entry of ``np.insert(arr, obj, values, axis)`` comes from: a flat
    position of ``arr`` (0 and up), or ``-1 - k`` for the flat position ``k`` of
    ``values`` (NumPy's broadcasting of ``values`` read from NumPy itself)."""
    ids = np.arange(int(np.prod(shape)), dtype=np.intp).reshape(shape)
    values = -1 - np.arange(int(np.prod(values_shape)), dtype=np.intp).reshape(values_shape)
    return np.insert(ids, obj, values, axis)


def partition_sources(a, kth, axis):
    """The positions along ``axis`` that ``np.partition(a, kth, axis)`` takes its entries
    from, NumPy's own arrangement: the sorted order of ``a`` matched to that of
    NumPy's result (tied values are equal: either source gives the same value)."""
    a = np.asarray(a)
    done = np.partition(a, kth, axis=axis)
    order = np.argsort(a, axis=axis, kind="stable")
    ranks = np.argsort(np.argsort(done, axis=axis, kind="stable"), axis=axis, kind="stable")
    return np.take_along_axis(order, ranks, axis=axis)


def gradient_axes(shape, axis, edge_order):
    """The axes ``np.gradient`` differentiates along (NumPy's checks and errors)."""
    ndim = len(shape)
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = tuple(int(a) for a in np.atleast_1d(axis))
        axes = tuple(a + ndim if a < 0 else a for a in axes)
        if any(a < 0 or a >= ndim for a in axes):
            raise np.exceptions.AxisError(f"axis {axis} is out of bounds for array of "
                                          f"dimension {ndim}")
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    if any(shape[a] < edge_order + 1 for a in axes):
        raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                         "least (edge_order + 1) elements are required.")
    return axes


def pad_pairs(value, ndim: int, as_index: bool = False):
    """``value`` (a number, a pair, or one pair per axis) as one ``(before, after)`` pair
    per axis, as ``np.pad`` reads ``pad_width`` and ``stat_length`` (ints)."""
    if value is None:
        return ((None, None),) * ndim
    pairs = np.broadcast_to(np.asarray(value), (ndim, 2))
    if as_index:
        if np.any(pairs < 0):
            raise ValueError("index can't contain negative values")
        return tuple((int(b), int(a)) for b, a in np.round(pairs).astype(np.intp))
    return tuple((b, a) for b, a in pairs.tolist())


def interleaved_subscripts(sublists, output=None) -> str:
    """The subscripts string of ``np.einsum(op0, sub0, op1, sub1, ..., [output])``: each
    sublist holds ints (labels) and ``Ellipsis``."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def spell(sublist):
        return "".join("..." if s is Ellipsis else letters[int(s)] for s in sublist)
    spec = ",".join(spell(s) for s in sublists)
    return spec if output is None else spec + "->" + spell(output)


def like_dtype(v, a):
    """``v`` as an array of ``a``'s dtype (``np.insert`` casts its values so).

    >>> like_dtype([1.7, 2.0], np.zeros(1, dtype=np.int64))
    array([1, 2])
    """
    return np.asarray(v).astype(np.asarray(a).dtype)


def piecewise_conditions(x, condlist, funclist):
    """``np.piecewise``'s conditions as one boolean array, one condition per item of its
    ``funclist``: "otherwise" added where ``funclist`` has one item more, as NumPy does.
    A function in ``funclist`` is refused here: a call with functions is written out
    (:mod:`s2sad.transforms.piecewise`), its ``funclist`` given as ``None`` items.

    >>> piecewise_conditions(np.array([-1.0, 2.0]), [np.array([True, False])], [0.0, 1.0])
    array([[ True, False],
           [False,  True]])
    """
    if any(callable(f) for f in funclist):
        raise NoDerivativeError(
            "s2sad differentiates np.piecewise with values in funclist, not functions "
            "(NumPy calls each function on the entries its condition selects only)",
            hint="Write np.where(condition, f(x), g(x)) with functions defined on every "
            "entry (np.where(x > 0, np.sqrt(np.where(x > 0, x, 1.0)), 0.0) where one is "
            "not), or np.select.")
    count = len(funclist)
    x = np.asarray(x)
    if x.ndim == 0 and count and all(f is None for f in funclist):
        raise NoDerivativeError(  # (the call written out: transforms/piecewise.py)
            "s2sad writes np.piecewise with functions out for an array x, not a number "
            "(NumPy stores each function's values into a 0-d array)",
            hint="For a number, write the branches with if/else or np.where.")
    if np.isscalar(condlist) or (not isinstance(condlist[0], (list, np.ndarray)) and
                                 x.ndim != 0):
        condlist = [condlist]
    conditions = np.asarray(condlist, dtype=bool)
    if np.shape(conditions)[1:] != x.shape:  # (NumPy's boolean index of x: IndexError)
        raise IndexError(f"np.piecewise: each condition must have x's shape {x.shape}, "
                         f"not {np.shape(conditions)[1:]}")
    if len(conditions) == count - 1:
        otherwise = ~np.any(conditions, axis=0, keepdims=True)
        conditions = np.concatenate([conditions, otherwise], axis=0)
    elif len(conditions) != count:
        raise ValueError(f"with {len(conditions)} condition(s), either {len(conditions)} or "
                         f"{len(conditions) + 1} functions are expected")
    return conditions
