"""Helpers of the code s2sad generates for vjp, forward mode and higher derivatives.

Like ``s2sad.runtime``, each is small and pure. Most are the transposes (adjoints)
of ``s2sad.runtime``'s helpers, which are linear in the sensitivity they take, so
that a generated gradient can be differentiated again: the adjoint of "sum ``g``
down to the shape of ``x``" is "spread ``h`` back to the shape of ``g``".

>>> import numpy as np
>>> sens_like(np.ones((2, 3)), np.zeros(3))
array([2., 2., 2.])
>>> sens_like([1.0, np.ones(2)], [0.0, np.zeros(2)])
[1.0, array([1., 1.])]
>>> broadcast_like(2.0, np.zeros(3))
array([2., 2., 2.])
"""

from __future__ import annotations

import copy as _copy
import numbers

import numpy as np

from .. import hooks
from ..backends import array_module
from . import _float_type, unbroadcast
from .structures import _zero
from .shapes import _weak


# --- values -------------------------------------------------------------------------------


def snapshot(value):
    """A copy of ``value`` that later in-place updates of lists and arrays leave alone."""
    if isinstance(value, list):
        return [snapshot(v) for v in value]
    if isinstance(value, tuple):
        return tuple(snapshot(v) for v in value) if type(value) is tuple else \
            _copy.deepcopy(value)
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


def _on(xp, value):
    """``value`` as an array of ``xp`` where that is CuPy, which takes no Python number
    where it wants an array (``cupy.broadcast_to(0.0, shape)``); NumPy's, as it is."""
    return value if xp is np or hasattr(value, "shape") and not isinstance(value, np.generic) \
        else xp.asarray(value)


def add_at(s, index, g):
    """``np.add.at(s, index, g)`` on a copy of ``s``, returned (an assignment the compiler
    can differentiate).

    >>> add_at(np.zeros(3), np.s_[[0, 0, 2]], 1.0)
    array([2., 0., 1.])
    """
    xp = array_module(s, g)  # (CuPy arrays: on the device)
    if getattr(xp.add, "at", None) is None:  # (Dask: no add.at; its arrays are not written)
        from .dask_compat import add_at as scattered
        return scattered(s, index, g)
    out = xp.array(s, dtype=np.result_type(_float_type(s), g.dtype if hasattr(g, "dtype")
                                           else np.asarray(g).dtype)
                   if np.ndim(g) else _float_type(s))
    xp.add.at(out, index, g)
    return out


def take_at(h, index, g):
    """Adjoint of :func:`add_at` (and of :func:`s2sad.runtime.index_grad`) with respect to
    ``g``: ``h[index]``, shaped like ``g``; of a list's sensitivity (items of different
    shapes), its items.

    >>> take_at([1.0, np.ones(2), 3.0], np.s_[:-1], [0.0, np.zeros(2)])
    [1.0, array([1., 1.])]
    """
    if isinstance(h, (list, tuple, dict)) or hasattr(h, "ndim"):
        return sens_like(h[index], g)
    return sens_like(np.asarray(h)[index], g)


# --- shapes and structures --------------------------------------------------------------


def sens_like(g, like):
    """The part of ``g`` that goes to ``like``: summed over broadcast axes, cut into the
    items of a list or tuple, and summed over a list for a scalar.

    It is the adjoint of broadcasting ``like`` (and of ``as_gradient(like, ...)``).
    """
    if like is None:  # (a value not set yet: a stack's placeholder)
        return g
    if isinstance(like, (list, tuple)):
        if isinstance(g, (list, tuple)):
            parts = [sens_like(a, b) for a, b in zip(g, like, strict=True)]
        elif np.ndim(g) == 0:
            parts = [sens_like(g, b) for b in like]
        else:
            parts = [sens_like(g[i], b) for i, b in enumerate(like)]
        return parts if isinstance(like, list) else tuple(parts)
    if isinstance(like, dict):
        return {k: sens_like(g[k], v) for k, v in like.items()} if isinstance(g, dict) else \
            {k: sens_like(g, v) for k, v in like.items()}
    if isinstance(g, (list, tuple)):
        if np.ndim(like) >= 1 and len(like) == len(g):  # a list made from an array's rows
            xp = array_module(like, *g)
            return xp.stack([xp.broadcast_to(_on(xp, sens_like(part, like[i])),
                                             np.shape(like[i]))
                             for i, part in enumerate(g)]).astype(_float_type(like))
        total = 0.0
        for part in g:
            total = total + sens_like(part, like)
        return total
    if isinstance(g, dict):
        total = 0.0
        for part in g.values():
            total = total + sens_like(part, like)
        return total
    if np.ndim(g) > np.ndim(like) or (np.ndim(g) == np.ndim(like) and
                                      np.shape(g) != np.shape(like)):
        return unbroadcast(g, like)
    if np.shape(g) != np.shape(like):
        xp = array_module(g, like)
        return xp.array(xp.broadcast_to(_on(xp, _weak(g, like)), np.shape(like)))
    return g


def broadcast_like(g, like):
    """``g`` spread over the shape of ``like`` (a new, writable array); the adjoint of
    :func:`sens_like` and of ``unbroadcast``. Lists get one item per item of ``like``."""
    if isinstance(like, (list, tuple)):
        if isinstance(g, (list, tuple)):
            parts = [broadcast_like(a, b) for a, b in zip(g, like, strict=True)]
        elif np.ndim(g) == 0:
            parts = [broadcast_like(g, b) for b in like]
        else:  # (an array's rows, one an item, as sens_like cuts them: not each the whole)
            parts = [broadcast_like(g[i], b) for i, b in enumerate(like)]
        return parts if isinstance(like, list) else tuple(parts)
    if isinstance(g, (list, tuple)):
        g = np.asarray(g)
    if np.shape(g) == np.shape(like):
        return g
    if np.ndim(g) > np.ndim(like):
        return unbroadcast(g, like)
    xp = array_module(g, like)
    return xp.array(xp.broadcast_to(_on(xp, _weak(g, like)), np.shape(like)))


def unbroadcast_adjoint(h, g):
    """Adjoint of ``unbroadcast(g, like)`` with respect to ``g``: ``h`` (shaped like
    ``like``) spread back to the shape of ``g``."""
    if np.shape(h) == np.shape(g):
        return h
    if np.size(h) <= np.size(g):
        shape = np.shape(g)
        xp = array_module(h, g)
        h = _on(xp, _weak(h, g))
        h = xp.reshape(h, (1,) * (len(shape) - np.ndim(h)) + np.shape(h)) \
            if np.ndim(h) < len(shape) else h
        return xp.array(xp.broadcast_to(_on(xp, h), shape))
    return unbroadcast(h, g)


def unpack_sens(g, parts):
    """Adjoint of ``pack_like(x, parts)`` with respect to ``parts``: ``g``'s items, each
    shaped like its part."""
    return [sens_like(g[i], part) for i, part in enumerate(parts)]


def sum_parts(parts, like):
    """Adjoint of ``sum_list_grad(g, iterable)`` (every item gets ``g``): the items'
    sensitivities added, shaped like ``g``."""
    if isinstance(parts, (list, tuple)):
        total = 0.0
        for part in parts:
            total = total + part
        return sens_like(total, like)
    return sens_like(array_module(parts).sum(parts, axis=0), like)


def stack_like(parts, like):
    """Adjoint of ``array_grad(g, obj)`` (an array cut into nested lists): the lists made
    an array again, shaped like ``g``."""
    return np.reshape(np.array(parts, dtype=_float_type(like)), np.shape(like))


def not_differentiable_yet(helper: str, argument: str):
    """Stand-in, in generated code, for a second derivative s2sad does not have yet: it
    raises when run (only code that needs it contains it)."""
    from ..errors import NoDerivativeError
    raise NoDerivativeError(
        f"s2sad has no derivative of {helper} with respect to {argument!r} yet, which this "
        "higher derivative needs",
        hint="Differentiate once with s2sad and use finite differences or s2sad.jvp on the "
             "rest, or rewrite the function with functions whose derivatives s2sad knows "
             "to any order.")


def axes_of(axis, ndim):
    """``axis`` (None, an int or a sequence) as a tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, numbers.Integral):
        axis = (axis,)
    return tuple(int(a) % ndim if ndim else int(a) for a in axis)


# --- tangents (forward mode) of NumPy functions that are neither elementwise nor linear ----


def reduce_tangent(g, partials, axis=None, keepdims=False):
    """Tangent of a reduction whose every result reads its own slice of ``x``: the sum of
    ``g`` times the partial derivatives (``partials``, shaped like ``x``) over the slice.

    A zero partial derivative contributes nothing, even against a NaN tangent (``nanmean``
    skips the NaN entries, whose tangents may be NaN):

    >>> reduce_tangent(np.ones(3), np.array([1.0, 2.0, 3.0]))
    np.float64(6.0)
    >>> reduce_tangent(np.array([1.0, np.nan]), np.array([2.0, 0.0]))
    np.float64(2.0)
    """
    xp = array_module(g, partials)  # (CuPy arrays: computed with CuPy, on the device)
    return xp.sum(xp.where(partials == 0, 0.0, g * partials), axis=axis, keepdims=keepdims)


def cumprod_tangent(g, x, axis=None):
    """Tangent of ``np.cumprod(x, axis)`` (exact where ``x`` has zeros).

    >>> cumprod_tangent(np.array([1.0, 0.0, 0.0]), np.array([2.0, 3.0, 4.0]))
    array([ 1.,  3., 12.])
    """
    xp = array_module(g, x)  # (CuPy arrays: on the device)
    x = xp.asarray(x)
    g = xp.broadcast_to(g, x.shape)
    if axis is None or x.ndim == 0:  # (a 0-d x is one entry, as NumPy reads it)
        x, g, axis = xp.ravel(x), xp.ravel(g), 0
    xm, gm = xp.moveaxis(x, axis, -1), xp.moveaxis(g, axis, -1)
    out = xp.zeros(np.broadcast_shapes(xm.shape, gm.shape),
                   dtype=np.result_type(xm.dtype, gm.dtype, 1.0))
    for i in range(xm.shape[-1]):  # d ans_j = sum_{i <= j} prod_{k <= j, k != i} x_k dx_i
        others = xm.astype(out.dtype, copy=True)
        others = others.copy() if others is xm else others  # (Dask's astype: itself)
        others[..., i] = 1.0
        partial = xp.cumprod(others, -1)
        partial[..., :i] = 0.0
        out = out + partial * gm[..., i:i + 1]
    return xp.moveaxis(out, -1, axis)


def average_tangent(g, a, axis=None, weights=None, keepdims=False, argnum=0):
    """Tangent of ``np.average(a, axis, weights)`` along ``a`` (0) or ``weights`` (1)."""
    xp = array_module(g, a, weights)  # (CuPy arrays: on the device)
    a = xp.asarray(a)
    if weights is None:
        return xp.mean(xp.broadcast_to(g, a.shape), axis=axis, keepdims=keepdims) \
            if argnum == 0 else 0.0
    w = xp.asarray(weights)
    if w.shape != a.shape:  # 1-d weights along the one axis
        shape = [1] * a.ndim
        shape[axes_of(axis, a.ndim)[0]] = w.size
        wide, g_wide = xp.reshape(w, shape), g if argnum == 0 else xp.reshape(g, shape)
    else:
        wide, g_wide = w, g
    total = xp.sum(xp.broadcast_to(wide, a.shape), axis=axis, keepdims=True)
    if argnum == 0:
        out = xp.sum(g_wide * wide, axis=axis, keepdims=True) / total
    else:
        mean = xp.sum(a * wide, axis=axis, keepdims=True) / total
        out = xp.sum(xp.broadcast_to(g_wide * (a - mean), a.shape), axis=axis,
                     keepdims=True) / total
    return out if keepdims else xp.reshape(out, np.shape(xp.sum(a, axis=axis)))


def sort_tangent(g, a, axis=-1):
    """Tangent of ``np.sort(a, axis)``: ``g`` in the sorted order of ``a``."""
    xp = array_module(g, a)  # (CuPy arrays: on the device)
    if axis is None:
        return xp.ravel(g)[xp.argsort(a, axis=None)]
    return xp.take_along_axis(xp.broadcast_to(g, np.shape(a)), xp.argsort(a, axis=axis),
                              axis=axis)


def clip_tangent(g, a, low, high, argnum):
    """Tangent of ``np.clip(a, low, high)`` along ``a`` (0), ``low`` (1) or ``high`` (2),
    with the adjoint's conventions (at a tie the derivative goes to ``a``)."""
    xp = array_module(g, a, low, high)  # (CuPy arrays: on the device)
    a, low, high = (v if v is None else xp.asarray(v) for v in (a, low, high))  # (lists too)
    raised = a if low is None else xp.maximum(a, low)
    under = True if high is None else raised <= high
    if argnum == 0:
        inside = under if low is None else under & (a >= low)
        return xp.where(inside, g, 0.0)
    if argnum == 1:
        return xp.where(under & (a < low), g, 0.0)
    return xp.where(raised > high, g, 0.0)


def cholesky_tangent(g, L):
    """Tangent of ``L = np.linalg.cholesky(a)`` for a symmetric change ``(g + g^T) / 2``
    (the adjoint's convention): ``L Phi(L^-1 dA L^-T)``, ``Phi`` the lower triangle with
    half the diagonal."""
    xp = array_module(g, L)  # (CuPy arrays: on the device)
    g = (g + xp.swapaxes(g, -1, -2)) / 2.0
    n = np.shape(L)[-1]
    l_inv = xp.linalg.inv(L)
    inner = l_inv @ g @ xp.swapaxes(l_inv, -1, -2)
    phi = xp.tril(inner) / (1.0 + xp.eye(n, dtype=inner.dtype))
    return L @ phi


def arange_tangent(g, ans, argnum):
    """Tangent of ``np.arange(start, stop, step)`` along ``start`` (0) or ``step`` (2)."""
    xp = array_module(g, ans)  # (CuPy arrays: on the device)
    if argnum == 0:
        return xp.full(np.shape(ans), g, dtype=np.result_type(ans.dtype if hasattr(
            ans, "dtype") else ans, g.dtype if hasattr(g, "dtype") else g, 1.0))
    return g * xp.arange(np.size(ans))


# --- transposes of the joining and splitting helpers ---------------------------------------


def join_like(how, parts, arrays, axis=None):
    """Adjoint of ``concatenate_grad`` and friends (which cut a sensitivity into the joined
    arrays' pieces): the pieces' sensitivities joined again (``how``: the NumPy function)."""
    xp = array_module(*parts, *arrays)  # (CuPy arrays: on the device)
    parts = [xp.broadcast_to(_on(xp, p), np.shape(a))
             for p, a in zip(parts, arrays, strict=True)]
    join = getattr(xp, how)
    if how in ("concatenate", "stack"):
        return join(parts, axis=axis)
    return join(parts)


def cut_like(how, g, parts, arrays, axis=None):
    """Adjoint of :func:`join_like` with respect to ``parts``: ``g`` cut into the joined
    arrays' pieces (by ``concatenate_grad`` and friends, ``how`` naming the NumPy
    function), each summed to the shape of its part. ``join_like`` is its adjoint.

    >>> cut_like("concatenate", np.arange(5.0), [0.0, np.zeros(3)], [np.zeros(2), np.zeros(3)])
    [np.float64(1.0), array([2., 3., 4.])]
    """
    from .. import runtime
    cut = getattr(runtime, how + "_grad")
    pieces = cut(g, arrays, axis) if how in ("concatenate", "stack") else cut(g, arrays)
    return sens_like(pieces, parts)


def split_like(g, parts, pieces, axis=0, indices=None):
    """Adjoint of ``split_grad`` (which joins the pieces' sensitivities): ``g`` cut into
    pieces shaped like ``pieces`` (at ``indices`` where given: where the pieces were cut,
    which may overlap), each summed to the shape of its part."""
    if indices is None or np.ndim(indices) == 0:
        sizes = [np.shape(p)[axis] for p in pieces]
        indices = list(np.cumsum(sizes))[:-1]
    xp = array_module(g)  # (CuPy arrays: on the device)
    return [sens_like(piece, part) for piece, part in zip(xp.split(g, indices, axis=axis),
                                                          parts, strict=True)]


def pad_values_forward(g, x, pad_width):
    """Adjoint of ``pad_values_grad``: ``g`` on the border of the padded array, 0 inside.
    ``g`` may be nested as ``np.pad``'s ``constant_values`` (a pair per axis), a constant
    pair's tangent one 0.0 (``((d, 0.0), 0.0)``): the pairs are broadcast together.

    >>> pad_values_forward(((1.0, 0.0), 0.0), np.zeros((1, 1)), 1)  # (corners: axis 1's)
    array([[0., 1., 0.],
           [0., 0., 0.],
           [0., 0., 0.]])
    """
    g = _pairs_array(g)
    return np.pad(np.zeros(np.shape(x), dtype=np.result_type(_float_type(x), g)), pad_width,
                  constant_values=g)


def _pairs_array(v):
    """A nested tuple of numbers and 0-d or 1-d arrays as one array, its items broadcast."""
    if isinstance(v, (tuple, list)):
        return np.stack(np.broadcast_arrays(*[_pairs_array(item) for item in v]))
    return np.asarray(v)


def solve_tangent(g, ans, a, b, argnum):
    """Tangent of ``x = np.linalg.solve(a, b)`` along ``a`` (0: ``-a^-1 da x``) or ``b``
    (1: ``a^-1 db``), with one right-hand side vector shared by a stack of matrices."""
    xp = array_module(g, ans, a, b)  # (CuPy arrays: on the device)
    vector = np.ndim(b) == 1
    if argnum == 1:
        return xp.linalg.solve(a, g)
    rhs = (g @ ans[..., None])[..., 0] if vector else g @ ans
    if vector and np.ndim(a) > 2:
        return -xp.linalg.solve(a, rhs[..., None])[..., 0]
    return -xp.linalg.solve(a, rhs)


# --- checkpointing -----------------------------------------------------------------------------


def _differentiable(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (float, complex)):
        return True
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.kind in "fc"
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_differentiable(v) for v in value)
    return False


def checkpoint_grads(func, g, args):
    """The adjoint of a checkpointed call ``func(*args)``: ``func``'s forward sweep runs
    again, now recording, then its reverse sweep (``s2sad.vjp``). One sensitivity per
    argument (``None`` for the arguments that are not floats)."""
    wrt = tuple(i for i, a in enumerate(args) if _differentiable(a))
    if not wrt:
        return [None] * len(args)
    pullback = hooks.make_vjp(func, wrt=wrt)  # (the forward sweep ran the call)
    grads = hooks.call_again(pullback, tuple(args), snapshot(g))
    out = [None] * len(args)
    for i, grad in zip(wrt, grads):
        out[i] = grad
    return out


def checkpoint_tangent(func, args, argnum, g):
    """The tangent of a checkpointed call along argument ``argnum`` (``s2sad.jvp`` of
    ``func``)."""
    push = hooks.make_jvp(func, wrt=argnum)  # (the forward sweep ran the call)
    return hooks.call_again(push, tuple(args), g)[1]


def checkpoint_value(func, args):
    """``func(*args)`` for a checkpointed call met while a call is run again
    (:func:`~s2sad.runtime.structures.repeating`: a checkpointed function calling
    another): through its generated forward-mode code with zero tangents, whose changes
    to objects' state are not made again; in plain Python where no argument is a float.

    >>> def f(x):
    ...     return x * 2.0
    >>> checkpoint_value(f, (1.5,))
    3.0
    """
    from . import zeros_like_structure
    wrt = tuple(i for i, a in enumerate(args) if _differentiable(a))
    if not wrt:
        return func(*args)
    push = hooks.make_jvp(func, wrt=wrt)  # (refused where it reads state it changes)
    return hooks.call_again(push, tuple(args), *(zeros_like_structure(args[i])
                                                 for i in wrt))[0]


# --- second derivatives of a few nonlinear adjoints ----------------------------------------


def einsum_with(subscripts, operands, argnum, value):
    """``np.einsum(subscripts, *operands)`` with operand ``argnum`` replaced by ``value``."""
    ops = [value if i == argnum else o for i, o in enumerate(operands) if o is not None]
    return array_module(*ops).einsum(subscripts, *ops)


def einsum_grad_operands(g, h, subscripts, operands, argnum):
    """Adjoint of ``einsum_grad(h, subscripts, operands, argnum)`` with respect to the
    operands for the sensitivity ``g`` (one per operand; 0 for the one differentiated,
    whose value it ignores): the adjoints of the einsum in each other operand, operand
    ``argnum`` replaced by ``g``. Also the adjoint of ``einsum_with(subscripts, operands,
    argnum, g)`` in the operands for ``h``. A :class:`Parts` (they add item by item)."""
    from . import einsum_grad
    replaced = tuple(g if i == argnum else o for i, o in enumerate(operands))
    return Parts(0.0 if (i == argnum or o is None) else einsum_grad(h, subscripts, replaced, i)
                 for i, o in enumerate(operands))


def einsum_grad_tangent(h, subscripts, operands, tangents, argnum):
    """Tangent of ``einsum_grad(h, subscripts, operands, argnum)`` along the operands."""
    from . import einsum_grad
    total = 0.0
    for i, (o, d) in enumerate(zip(operands, tangents)):
        if i == argnum or o is None or (np.ndim(d) == 0 and np.ndim(o) > 0 and d == 0):
            continue
        ops = tuple(d if j == i else p for j, p in enumerate(operands))
        total = total + einsum_grad(h, subscripts, ops, argnum)
    return total


class Parts(tuple):
    """The sensitivities (or tangents) of the items of a tuple, which add item by item:
    forward mode adds the parts of a tangent with ``+``, which would join two plain tuples.

    >>> Parts((1.0, np.ones(2))) + (2.0, np.ones(2))
    (3.0, array([2., 2.]))
    """

    def __add__(self, other):
        from . import add_sens
        if isinstance(other, (list, tuple)):
            return Parts(add_sens(tuple(self), tuple(other)))
        if np.ndim(other) == 0 and other == 0:
            return self
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, (list, tuple)):
            return Parts(other) + self
        return self.__add__(other)


def _filled(fill, operand) -> bool:
    """Does ``fill`` move ``operand`` (not None, nor the ``0.0`` nothing has flowed into)?"""
    if fill is None or operand is None:
        return False
    return not (np.ndim(fill) == 0 and np.ndim(operand) > 0 and fill == 0)


def einsum_fill_sum(h, subscripts, operands, fills, target, argnum=None, value=None):
    """``sum over i of P(operands with operand i replaced by fills[i])``, with ``P`` the
    adjoint of the einsum in operand ``target`` for the sensitivity ``h`` (``einsum_grad``),
    or, for ``target`` None, the einsum itself: the change of ``P`` when the operands move
    along ``fills`` (it is linear in each). With ``argnum``, operand ``argnum`` is
    ``value`` instead, and does not move. Operands and fills that are None are left out.

    >>> a, b = np.ones((2, 3)), np.ones((3, 2))
    >>> einsum_fill_sum(None, "ij,jk", (a, b), (2 * a, 3 * b), None)  # 2 ab + 3 ab
    array([[15., 15.],
           [15., 15.]])
    """
    from . import einsum_grad
    operands = tuple(value if i == argnum else o for i, o in enumerate(operands))
    total = 0.0
    for i, (o, d) in enumerate(zip(operands, fills)):
        if i in (argnum, target) or not _filled(d, o):
            continue
        ops = tuple(d if j == i else p for j, p in enumerate(operands))
        total = total + (einsum_with(subscripts, ops, i, d) if target is None else
                         einsum_grad(h, subscripts, ops, target))
    return total


def einsum_fill_each(h, subscripts, operands, fills, argnum=None, value=None):
    """For each operand ``m``, ``einsum_fill_sum(h, subscripts, operands, fills, m, argnum,
    value)`` (0 for ``argnum`` and the operands that are None): the adjoint of
    ``einsum_grad_operands(value, h, subscripts, operands, argnum)`` in the operands for the
    sensitivities ``fills``, which is also its change along them."""
    return Parts(0.0 if (m == argnum or o is None) else
                 einsum_fill_sum(h, subscripts, operands, fills, m, argnum, value)
                 for m, o in enumerate(operands))


def rule_part(result, i):
    """Part ``i`` of what a derivative rule returned (one value, or a tuple of them)."""
    if isinstance(result, tuple):
        return result[i] if i < len(result) else None
    return result if i == 0 else None


def sens_item(g, i):
    """Item ``i`` of the sensitivity of a list or tuple display, ``0.0`` while it is still
    the ``0.0`` nothing has flowed into."""
    if isinstance(g, (float, int)) and not isinstance(g, bool) and g == 0:
        return 0.0
    return g[i]


def put_item(g, like, i):
    """Adjoint of :func:`sens_item`: ``g`` at position ``i`` of zeros shaped like ``like``."""
    from . import index_grad
    if isinstance(like, (float, int)) and not isinstance(like, bool):
        return 0.0
    return index_grad(g, like, i)


def plus_part_adjoint(h, g, at, parts):
    """The adjoint of :func:`plus_part` in its ``g``: ``h`` put at ``parts[at]``'s
    place in zeros shaped like ``g`` (the joined parts), or spread back as ``g`` was summed.

    >>> plus_part_adjoint([2.0, 3.0], [0.0] * 3, 1, ((0.5,), (0.1, 0.2)))
    [0.0, 2.0, 3.0]
    """
    if all(isinstance(p, (list, tuple)) for p in parts):
        if _zero(h):
            return 0.0
        start = sum(len(p) for p in parts[:at])
        rest = sum(len(p) for p in parts[at + 1:])
        return [0.0] * start + list(h) + [0.0] * rest
    return unbroadcast_adjoint(h, g)
