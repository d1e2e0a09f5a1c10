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


# --- NumPy's errors, for the definitions that would compute a value where NumPy raises ---
# Each returns None or raises NumPy's exception type; the generated code keeps its call
# (its facts say ``checks``) even where nothing reads the result.


def check_interp(xp, fp) -> None:
    """``np.interp``'s ValueErrors: xp and fp 1-d, of one length, not empty.

    >>> check_interp(np.zeros(3), np.zeros(2))
    Traceback (most recent call last):
        ...
    ValueError: interp: xp and fp must be 1-d, of one length
    """
    if np.ndim(xp) != 1 or np.shape(fp) != np.shape(xp):
        raise ValueError("interp: xp and fp must be 1-d, of one length")
    if 0 in np.shape(xp):  # (np.shape, not np.size: Dask has no np.size)
        raise ValueError("interp: xp is empty (NumPy: array of sample points is empty)")


def check_convolve(a, v, mode) -> None:
    """``np.convolve``'s ValueErrors (``np.correlate`` calls it).

    >>> check_convolve(np.ones((2, 2)), np.ones(2), "full")
    Traceback (most recent call last):
        ...
    ValueError: convolve: a and v must be 1-d (NumPy: object too deep for desired array)
    """
    if np.ndim(a) > 1 or np.ndim(v) > 1:
        raise ValueError("convolve: a and v must be 1-d (NumPy: object too deep for "
                         "desired array)")
    if 0 in np.shape(a) or 0 in np.shape(v):
        raise ValueError(f"convolve: {'a' if 0 in np.shape(a) else 'v'} cannot be empty")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")


def check_rollaxis(ndim: int, axis, start) -> None:
    """``np.rollaxis``'s AxisErrors.

    >>> check_rollaxis(3, -4, 0)
    Traceback (most recent call last):
        ...
    numpy.exceptions.AxisError: axis -4 is out of bounds for array of dimension 3
    """
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(f"axis {axis} is out of bounds for array of "
                                      f"dimension {ndim}")
    if not -ndim <= start < ndim + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-ndim} <= start < {ndim + 1}, "
                                      f"but {start} was passed in")


def check_select(condlist, choicelist) -> None:
    """``np.select``'s errors: as many choices as conditions, one at least, each a bool array.

    >>> check_select([np.ones(2)], [np.ones(2)])
    Traceback (most recent call last):
        ...
    TypeError: invalid entry 0 in condlist: should be boolean ndarray
    """
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    for i, condition in enumerate(condlist):
        dtype = getattr(condition, "dtype", None) or np.asarray(condition).dtype
        if dtype != np.bool_:  # (a device array's dtype read, not the array)
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")


def check_gradient_spacings(shape, axes, *spacings) -> None:
    """``np.gradient``'s spacings: none, one number, or one per axis, each a number or a
    1-d array of that axis's length (NumPy's TypeError and ValueErrors).

    >>> check_gradient_spacings((3, 5), (0, 1), np.ones(5), None, None, None)
    Traceback (most recent call last):
        ...
    TypeError: invalid number of arguments
    """
    given = [h for h in spacings if h is not None]
    if len(given) not in (0, len(axes)) and not (len(given) == 1 and np.ndim(given[0]) == 0):
        raise TypeError("invalid number of arguments")
    for axis, h in zip(axes, given if len(given) == len(axes) else [], strict=False):
        if np.ndim(h) > 1:
            raise ValueError("distances must be either scalars or 1d")
        if np.ndim(h) == 1 and np.shape(h)[0] != shape[axis]:
            raise ValueError("when 1d, distances must match the length of the corresponding "
                             "dimension")


def check_ranks(function: str, *pairs) -> None:
    """NumPy's errors where an argument has too few (or other) axes: ``pairs`` alternate an
    argument and the ranks the function takes (a tuple), or the least it takes (an int).

    ``function`` is named without ``np.`` (CuPy's generated code reads ``cp.`` for it).

    >>> check_ranks("linalg.outer", np.ones((2, 2)), (1,), np.ones(2), (1,))
    Traceback (most recent call last):
        ...
    ValueError: linalg.outer: argument 1 has 2 axes; it takes 1
    """
    linalg = function.startswith("linalg.") and function != "linalg.outer"
    for i in range(0, len(pairs), 2):
        n, takes = np.ndim(pairs[i]), pairs[i + 1]
        if n in takes if isinstance(takes, tuple) else n >= takes:
            continue
        wanted = " or ".join(map(str, takes)) if isinstance(takes, tuple) else f"{takes} or more"
        error = np.linalg.LinAlgError if linalg else ValueError
        raise error(f"{function}: argument {i // 2 + 1} has {n} axes; it takes {wanted}")
    if function == "linalg.matrix_power" and np.shape(pairs[0])[-1] != np.shape(pairs[0])[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")


def check_accumulated(array) -> None:
    """The accumulate methods' TypeError: an array of one axis at least.

    >>> check_accumulated(np.float64(1.0))
    Traceback (most recent call last):
        ...
    TypeError: cannot accumulate on a scalar
    """
    if np.ndim(array) == 0:
        raise TypeError("cannot accumulate on a scalar")


def check_multi_dot(arrays) -> None:
    """``np.linalg.multi_dot``'s errors: two arrays at least; of three or more, the first
    and last 1-d or 2-d, the others 2-d.

    >>> check_multi_dot([np.ones((2, 2)), np.ones(2), np.ones((2, 2))])
    Traceback (most recent call last):
        ...
    numpy.linalg.LinAlgError: 1-dimensional array given. Array must be two-dimensional
    """
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    for i, a in enumerate(arrays if len(arrays) > 2 else []):
        if np.ndim(a) != 2 and not (np.ndim(a) == 1 and i in (0, len(arrays) - 1)):
            raise np.linalg.LinAlgError(f"{np.ndim(a)}-dimensional array given. Array must "
                                        "be two-dimensional")


def check_cross3(x1, x2, axis) -> None:
    """``np.linalg.cross``'s ValueError: 3-vectors along ``axis`` (no 2-vectors).

    >>> check_cross3(np.ones(2), np.ones(2), -1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: Both input arrays must be (arrays of) 3-dimensional vectors, but they ...
    """
    n1, n2 = np.shape(x1)[axis], np.shape(x2)[axis]
    if n1 != 3 or n2 != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they are {n1} and {n2} dimensional instead.")
