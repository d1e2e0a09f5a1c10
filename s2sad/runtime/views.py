"""Writes through a view: the index into the base array that a view's index reaches.

>>> import numpy as np
>>> y = np.zeros((3, 4))
>>> view_index(y, np.s_[1:], 0)         # (y[1:])[0] is y[1]
(1, slice(0, 4, 1))
>>> view_index(y, np.s_[:, ::-1], np.s_[..., 1:3])
(slice(0, 3, 1), slice(2, 0, -1))
>>> view_index(y, 2, np.s_[None, 1])    # (y[2])[None, 1]: the new axis is kept
(None, 2, 1)

``v = y[1:]; v[0] = e`` is written ``y[view_index(y, np.s_[1:], 0)] = e``; through
``t = y.T`` the value is put in ``y``'s order first (``np.transpose(np.broadcast_to(e,
view_shape(...)), view_axes(...))``)
(:mod:`.transforms.view_writes`): the store is on ``y`` itself, so the reverse sweep
sees it. Only basic indices compose: ints, slices, ``None`` and ``...``. An array or a
boolean index made a copy in NumPy, not a view: refused here.
"""

from __future__ import annotations

import operator

import numpy as np

from ..errors import DifferentiationError


def _refused(what: str) -> DifferentiationError:
    return DifferentiationError(
        f"s2sad follows a write through a view made by basic indexing only (ints, slices, "
        f"None, ...), and this index is {what}. Copy explicitly (`v = y[...].copy()`) if "
        "the write should not reach the array, or write into the array itself.")


def _items(index, ndim: int) -> list:
    """``index`` as a list of one item an axis (``...`` spelt out), new axes as None."""
    items = list(index) if isinstance(index, tuple) else [index]
    for item in items:
        if isinstance(item, (bool, np.bool_)):
            raise _refused("a boolean (NumPy reads it as a mask: a copy)")
        if not (item is None or item is Ellipsis or isinstance(item, slice)):
            if isinstance(item, (np.ndarray, list, tuple)):
                raise _refused(f"an array or a list ({item!r}): NumPy copies")
            try:
                operator.index(item)
            except TypeError:
                raise _refused(f"{item!r}, not an int") from None
    taking = sum(1 for item in items if item is not None and item is not Ellipsis)
    dots = [i for i, item in enumerate(items) if item is Ellipsis]
    if len(dots) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if taking > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but "
                         f"{taking} were indexed")
    rest = [slice(None)] * (ndim - taking)
    if dots:
        return items[:dots[0]] + rest + items[dots[0] + 1:]
    return items + rest


def _slice(r: range) -> slice:
    if not r:
        return slice(0, 0, 1)
    stop = r.start + len(r) * r.step
    return slice(r.start, stop if stop >= 0 else None, r.step)


class Transposed:
    """In :func:`view_index`'s indices: ``.T``, the view's axes in reverse order."""


def _view(base, indices) -> tuple:
    """``(view, fixed)``: the view's axes, each ``(axis of base or None, its items)``,
    and the base's axes an int took (``{axis: item}``)."""
    shape = getattr(base, "shape", None)
    if shape is None or not hasattr(base, "strides"):
        raise _refused(f"on a {type(base).__name__}, not an array")
    view = [(axis, range(n)) for axis, n in enumerate(shape)]  # (axis, items) an axis
    fixed = {}  # the base's axes an int took
    for index in indices:
        if index is Transposed:
            view.reverse()
            continue
        kept = []
        axes = iter(view)
        for item in _items(index, len(view)):
            if item is None:
                kept.append((None, range(1)))
                continue
            axis, items = next(axes)
            if isinstance(item, slice):
                if axis is None and len(items[item]) != 1:
                    raise _refused("a slice that empties a new axis")
                kept.append((axis, items[item]))
                continue
            position = operator.index(item)
            if not -len(items) <= position < len(items):
                where = "" if axis is None else f" {axis}"
                raise IndexError(f"index {position} is out of bounds for axis{where} with "
                                 f"size {len(items)}")
            if axis is not None:
                fixed[axis] = items[position]
        view = kept
    return view, fixed


def view_index(base, *indices) -> tuple:
    """The basic index of ``base`` that ``base[indices[0]][indices[1]]...`` reads: the
    same items (in the same shape where no index is :class:`Transposed`)."""
    view, fixed = _view(base, indices)
    if any(i is Transposed for i in indices):
        if any(axis is None for axis, _ in view):
            raise _refused("a new axis of a transposed view")
        view = sorted(view, key=lambda part: part[0])  # (the base's order)
    out, done = [], 0
    for axis, items in view:
        if axis is None:
            out.append(None)
            continue
        out.extend(fixed[a] for a in range(done, axis))
        out.append(_slice(items))
        done = axis + 1
    out.extend(fixed[a] for a in range(done, len(base.shape)))
    return tuple(out)


def view_shape(base, *indices) -> tuple:
    """The shape of ``base[indices[0]][indices[1]]...`` (``.T`` too).

    >>> import numpy as np
    >>> view_shape(np.zeros((2, 3, 4)), Transposed, np.s_[1:])
    (3, 3, 2)
    """
    return tuple(len(items) for _, items in _view(base, indices)[0])


def view_axes(base, *indices) -> tuple:
    """The axes that put a value of the view's shape in the order of the base's
    :func:`view_index` (``np.transpose(v, view_axes(...))``).

    >>> import numpy as np
    >>> y = np.arange(6.0).reshape(2, 3)
    >>> t = y.T[1:]                      # (2, 2): y[:, 1:] transposed
    >>> k = view_index(y, Transposed, np.s_[1:])
    >>> bool(np.array_equal(y[k], np.transpose(t, view_axes(y, Transposed, np.s_[1:]))))
    True
    """
    view = _view(base, indices)[0]
    return tuple(sorted(range(len(view)), key=lambda i: view[i][0]))


def raveled_in_place(a) -> bool:
    """Does ``a.ravel()`` give a view of ``a``? NumPy's does exactly where ``a`` is
    C-contiguous (``y.T`` of a C-contiguous ``y`` with one row or one column), else a copy.

    >>> y = np.zeros((2, 3))
    >>> raveled_in_place(y.T), raveled_in_place(y[:1].T), raveled_in_place(y)
    (False, True, True)
    """
    flags = getattr(a, "flags", None)
    return bool(flags is not None and flags.c_contiguous)
