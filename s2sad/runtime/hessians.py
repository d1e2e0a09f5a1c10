"""Second and higher derivatives of the reductions whose adjoints are not linear in their
input.

``prod_grad(h, x)``, ``cumprod_grad(h, ans, x)``, ``std_grad(h, ans, x)`` and
``average_grad(h, a, weights=w)`` (``s2sad.runtime``) are linear in the sensitivity
``h`` but not in the array they differentiate. A derivative of a gradient
(``s2sad.hvp``, ``s2sad.grad(s2sad.grad(f))``) needs their derivatives in that array
too, and these helpers compute them.

``prod_grad(h, x)`` is the gradient of ``<h, prod(x)>``, whose Hessian is symmetric,
so one function serves both sweeps: ``prod_hvp(h, x, v)`` is the change of
``prod_grad(h, x)`` when ``x`` moves along ``v`` (forward mode) and also the adjoint of
``prod_grad(h, x)`` in ``x`` applied to a sensitivity ``v`` (reverse mode). The same
holds for ``cumprod_hvp``. Both are exact where ``x`` has zeros (no division by zero):

>>> import numpy as np
>>> prod_hvp(1.0, np.array([2.0, 3.0, 5.0]), np.array([1.0, 0.0, 0.0]))
array([0., 5., 3.])
>>> prod_hvp(1.0, np.array([2.0, 0.0, 5.0]), np.array([1.0, 0.0, 0.0]))
array([0., 5., 0.])
>>> cumprod_hvp(np.ones(2), np.array([2.0, 3.0]), np.array([1.0, 0.0]))
array([0., 1.])

``std_grad`` and ``average_grad`` read more than one array; their helpers here are
partial derivatives in one argument at a time (``std_grad_partial`` in ``ans``,
``average_grad_partial`` in ``a`` or the weights), the compiler adding the parts.

Higher derivatives stay in the same few helpers: ``prod_hvp`` and ``cumprod_hvp`` take
up to three directions (``v``, ``u``, ``w``; ``cumprod_jet`` is the change of
``cumprod`` along them), computed with jets (the products of ``x + s_1 v + s_2 u + ...``
with ``s_j^2 = 0``: no division, exact at zeros); ``std_grad_partial`` has a ``power``;
``average_jet`` and ``average_change`` are the weighted average's gradient and change
along up to three directions of ``(a, weights)``. Each one's derivatives are itself with
a direction more or replaced, so that the fourth derivative is written too:

>>> prod_hvp(1.0, np.array([2.0, 3.0, 5.0]), np.ones(3), u=np.ones(3), w=np.ones(3))
array([0., 0., 0.])
>>> prod_hvp(1.0, np.array([2.0, 3.0, 5.0, 7.0]), np.ones(4), u=np.ones(4), w=np.ones(4))
array([6., 6., 6., 6.])

Like ``s2sad.runtime``, every helper computes with the array module of its inputs.
"""

from __future__ import annotations

import numpy as np

from ..backends import array_module
from . import (_argsort, _axes, _dtype, _float_type, _ndim, _to, expand_reduced, std_grad,
               unbroadcast)


def _dense(xp, x, v):
    """``x`` as an array and ``v`` broadcast to its shape, both of one floating dtype."""
    x = xp.asarray(x)
    dtype = np.result_type(_float_type(x), _dtype(v))
    return x.astype(dtype, copy=False), xp.broadcast_to(_to(xp, v), x.shape).astype(dtype)


# --- jets: products along several directions at once --------------------------------------------
#
# The k-th mixed derivative of a product along directions d_1..d_k is the coefficient of
# s_1 s_2 ... s_k in the product of the factors x_i + s_1 d_1i + ... + s_k d_ki, computed
# with s_j^2 = 0: in the ring of multilinear polynomials in s_1..s_k. An element is the
# list of its 2^k coefficients, indexed by the subset (bit mask) of the s_j of each
# monomial. Products use no division, so zeros in x need no special case.


def _jet(xp, x, directions):
    """``x + s_1 d_1 + ... + s_k d_k`` as a jet: ``x`` at mask 0, ``d_j`` at mask ``2^j``."""
    out = [x] + [xp.zeros_like(x)] * ((1 << len(directions)) - 1)
    for j, d in enumerate(directions):
        out[1 << j] = xp.broadcast_to(_to(xp, d), x.shape).astype(x.dtype)
    return out


def _jet_mul(a, b):
    """The product of two jets: the coefficient of each monomial ``S`` sums ``a[T] b[S - T]``
    over the subsets ``T`` of ``S``.

    >>> _jet_mul([2.0, 1.0, 0.0, 0.0], [3.0, 0.0, 1.0, 0.0])  # (2 + s1)(3 + s2)
    [6.0, 3.0, 2.0, 1.0]
    """
    out = []
    for s in range(len(a)):
        total, t = a[0] * b[s], s
        while t:
            total = total + a[t] * b[s ^ t]
            t = (t - 1) & s
        out.append(total)
    return out


def _jet_one(xp, like, size):
    """The jet 1 (shaped like ``like``'s coefficients)."""
    return [xp.ones_like(like)] + [xp.zeros_like(like)] * (size - 1)


def _jet_shift(xp, a, d, fill):
    """The jets of the last axis moved ``d`` places on (``fill``: the jet put in front)."""
    return [xp.concatenate([f[..., :d], c[..., :-d]], -1) if d < c.shape[-1] else f
            for c, f in zip(a, fill)]


def _jet_scan(xp, a):
    """The inclusive prefix products of the jets along the last axis, in ``log2(n)`` steps
    (each product of the jets at ``i`` and ``i - d``, ``d`` doubling)."""
    n, d = a[0].shape[-1], 1
    while d < n:
        a = _jet_mul(a, _jet_shift(xp, a, d, _jet_one(xp, a[0], len(a))))
        d *= 2
    return a


def _jet_exclusive(xp, a):
    """The products of the jets before each one along the last axis (1 for the first)."""
    return _jet_shift(xp, _jet_scan(xp, a), 1, _jet_one(xp, a[0], len(a)))


def _jet_others(xp, a):
    """The product of all the jets along the last axis but each one."""
    before = _jet_exclusive(xp, a)
    after = [xp.flip(c, -1) for c in _jet_exclusive(xp, [xp.flip(c, -1) for c in a])]
    return _jet_mul(before, after)


def _directions(*directions):
    """The directions given (those not None)."""
    return [d for d in directions if d is not None]


# --- prod -------------------------------------------------------------------------------------


def prod_hvp(h, x, v, axis=None, keepdims=False, u=None, w=None):
    """The change of ``prod_grad(h, x, axis, keepdims)`` when ``x`` moves along ``v``
    (the Hessian of ``<h, prod(x)>`` times ``v``); with ``u`` (and ``w``), its change
    along ``u`` (and ``w``) too: the third (fourth) derivative of ``<h, prod(x)>``
    along them, a gradient. Symmetric in ``v``, ``u``, ``w`` and its own result's
    direction: its derivatives in ``x`` are itself with one more direction.

    Entry ``j`` of a product's gradient is the product of the other entries; its change
    is ``sum over i != j of v_i * prod(x_k, k != i, j)``. Counting the zeros of each
    reduced slice keeps it exact with no division by zero: with none it is
    ``prod(x) / x_j * (sum(v / x) - v_j / x_j)``; with one zero, at ``z``, it is
    ``prod(x_k, k != z) / x_j * v_z`` and, at ``z`` itself,
    ``prod(x_k, k != z) * sum(v_i / x_i, i != z)``; with two zeros it is nonzero at
    the zeros only; with three or more it is 0.

    Several directions (``u``) take the jets of the product of the other entries (see
    :func:`_jet`), with no division either:

    >>> prod_hvp(2.0, np.array([0.0, 3.0, 0.0]), np.array([1.0, 1.0, 1.0]))
    array([6., 0., 6.])
    >>> prod_hvp(1.0, np.array([2.0, 3.0, 5.0]), np.ones(3), u=np.ones(3))  # 2 (x_k, k != j)
    array([2., 2., 2.])
    """
    xp = array_module(h, x, v, u, w)
    x, v = _dense(xp, x, v)
    h = expand_reduced(h, x, axis, keepdims)
    axes = _axes(axis, x.ndim)
    if not axes:  # a product over no axis is x itself: its Hessian is 0
        return xp.zeros_like(h * v)
    if u is not None or w is not None:
        return h * _prod_others(xp, x, [v] + _directions(u, w), axes)
    zero = x == 0
    safe = xp.where(zero, 1.0, x)
    count = xp.sum(zero, axis=axes, keepdims=True)
    product = xp.prod(safe, axis=axes, keepdims=True)  # of the nonzero entries
    ratio = xp.where(zero, 0.0, v / safe)
    ratios = xp.sum(ratio, axis=axes, keepdims=True)
    at_zeros = xp.sum(xp.where(zero, v, 0.0), axis=axes, keepdims=True)
    at_nonzero = xp.where(count == 0, ratios - ratio, xp.where(count == 1, at_zeros, 0.0))
    at_zero = xp.where(count == 1, ratios, xp.where(count == 2, at_zeros - v, 0.0))
    return h * product * xp.where(zero, at_zero, at_nonzero / safe)


def _prod_others(xp, x, directions, axes):
    """For each entry of ``x``, the mixed derivative along ``directions`` of the product of
    the other entries of its slice over ``axes``."""
    kept = [a for a in range(x.ndim) if a not in axes]
    order = kept + list(axes)
    moved = xp.transpose(x, order)
    flat_shape = moved.shape[:len(kept)] + (-1,)
    jet = [xp.reshape(xp.transpose(c, order), flat_shape) for c in _jet(xp, x, directions)]
    top = _jet_others(xp, jet)[-1]
    return xp.transpose(xp.reshape(top, moved.shape), _argsort(order))


# --- cumprod ----------------------------------------------------------------------------------


def _prefix_tangent(xp, x, v):
    """The change of ``cumprod(x, -1)`` along ``v``, exact where ``x`` has zeros: with no
    zero up to ``j`` it is ``cumprod(x)_j * sum(v_i / x_i, i <= j)``; with one, at ``z``,
    ``prod(x_k, k <= j, k != z) * v_z``; with more, 0.

    >>> _prefix_tangent(np, np.array([2.0, 0.0, 4.0]), np.array([1.0, 1.0, 1.0]))
    array([1., 2., 8.])
    """
    zero = x == 0
    safe = xp.where(zero, 1.0, x)
    zeros = xp.cumsum(zero, -1)
    products = xp.cumprod(safe, -1)
    ratios = xp.cumsum(xp.where(zero, 0.0, v / safe), -1)
    at_zero = xp.cumsum(xp.where(zero, v, 0.0), -1)
    return products * xp.where(zeros == 0, ratios, xp.where(zeros == 1, at_zero, 0.0))


def _along_last(xp, arrays, shape, axis):
    """``arrays`` (shaped like ``x``, or like ``cumprod(x, axis)``, or broadcasting) with
    ``axis`` last: raveled for None, as ``np.cumprod`` does."""
    if axis is None:
        size = int(np.prod(shape))
        return [xp.broadcast_to(xp.ravel(_to(xp, a)), (size,)) for a in arrays]
    return [xp.moveaxis(xp.broadcast_to(_to(xp, a), shape), axis, -1) for a in arrays]


def _back_from_last(xp, out, shape, axis):
    """The inverse of :func:`_along_last` for one array (``shape``: the result's)."""
    return xp.reshape(out if axis is None else xp.moveaxis(out, -1, axis), shape)


def _jet_cumprod_grad(xp, h, jet):
    """The jets of ``sum over j >= i of h_j prod(f_k, k <= j, k != i)`` along the last axis:
    the product of the jets before ``i`` times ``B_i = h_i + f_{i+1} B_{i+1}``, a linear
    recurrence scanned backwards as affine maps ``b -> A b + C`` (composed in ``log2(n)``
    steps)."""
    size = len(jet)
    zero = [xp.zeros_like(jet[0])] * size
    one = _jet_one(xp, jet[0], size)
    factor = _jet_shift(xp, [xp.flip(c, -1) for c in jet], 1, one)  # f_{i+1}, backwards
    offset = [xp.flip(xp.broadcast_to(h, jet[0].shape), -1)] + zero[1:]
    n, d = jet[0].shape[-1], 1
    while d < n:
        factor_before = _jet_shift(xp, factor, d, one)
        offset_before = _jet_shift(xp, offset, d, zero)
        offset = [a + b for a, b in zip(_jet_mul(factor, offset_before), offset)]
        factor = _jet_mul(factor, factor_before)
        d *= 2
    after = [xp.flip(c, -1) for c in offset]
    return _jet_mul(_jet_exclusive(xp, jet), after)


def cumprod_hvp(h, x, v, axis=None, u=None, w=None):
    """The change of ``cumprod_grad(h, cumprod(x), x, axis)`` when ``x`` moves along
    ``v`` (the Hessian of ``<h, cumprod(x)>`` times ``v``); with ``u`` (and ``w``), its
    change along them too (the third and fourth derivatives of ``<h, cumprod(x)>``, as
    gradients), and with no direction at all (``v`` None), ``cumprod_grad`` itself.
    Symmetric in the directions and its result's own: its derivatives in ``x`` are
    itself with one more direction.

    Entry ``i`` of the gradient is ``sum over j >= i of h_j * prod(x_k, k <= j, k != i)``;
    each such product changes along ``v`` with ``v_i`` left out. Without zeros this is
    ``(revcumsum(h * dc) - revcumsum(h * c) * v / x) / x`` with ``c = cumprod(x)`` and
    ``dc`` its change. Several directions take jets (see :func:`_jet`).

    >>> x, v = np.array([2.0, 0.0, 3.0]), np.array([1.0, 2.0, 0.5])
    >>> cumprod_hvp(np.ones(3), x, v)  # the Hessian of x0 + x0 x1 + x0 x1 x2, times v
    array([8., 5., 4.])
    >>> cumprod_hvp(np.ones(3), x, v, u=np.ones(3))  # its third derivative: x0 x1 x2's
    array([2.5, 1.5, 3. ])
    """
    xp = array_module(h, x, v, u, w)
    axis = None if np.ndim(x) == 0 else axis  # (a 0-d x is one entry, as NumPy reads it)
    if v is None or u is not None or w is not None:
        x = xp.asarray(x)
        directions = _directions(v, u, w)
        dtype = np.result_type(_float_type(x), *[_dtype(d) for d in directions])
        x = x.astype(dtype, copy=False)
        moved = _along_last(xp, [x, h] + directions, x.shape, axis)
        jet = _jet(xp, moved[0], moved[2:])
        return _back_from_last(xp, _jet_cumprod_grad(xp, moved[1], jet)[-1], x.shape, axis)
    x, v = _dense(xp, x, v)
    shape = x.shape
    x, v, h = _along_last(xp, [x, v, h], shape, axis)  # (h: shaped like cumprod(x, axis))
    axis = 0 if axis is None else axis

    def reverse_cumsum(a):
        return xp.flip(xp.cumsum(xp.flip(a, -1), -1), -1)

    if bool(xp.all(x != 0)):
        c = xp.cumprod(x, -1)
        dc = _prefix_tangent(xp, x, v)
        out = (reverse_cumsum(h * dc) - reverse_cumsum(h * c) * v / x) / x
    else:
        columns = []
        for i in range(x.shape[-1]):  # x_i left out: set to 1, its change to 0
            others, moved = x.copy(), v.copy()
            others[..., i], moved[..., i] = 1.0, 0.0
            change = _prefix_tangent(xp, others, moved)
            columns.append(xp.sum(h[..., i:] * change[..., i:], -1))
        out = xp.stack(columns, -1)
    return xp.reshape(xp.moveaxis(out, -1, axis), shape)


def cumprod_jet(x, v, axis=None, u=None, w=None):
    """The mixed derivative of ``np.cumprod(x, axis)`` along ``v``, ``u`` and ``w`` (those
    given): ``cumprod_tangent`` for ``v`` alone, the second and third derivatives with
    more. Exact where ``x`` has zeros (the prefix products of jets, no division).

    >>> cumprod_jet(np.array([2.0, 3.0, 4.0]), np.ones(3), u=np.ones(3))  # 2 e2(x_k, k <= j)
    array([ 0.,  2., 18.])
    """
    xp = array_module(x, v, u, w)
    x = xp.asarray(x)
    axis = None if x.ndim == 0 else axis  # (a 0-d x is one entry, as NumPy reads it)
    directions = _directions(v, u, w)
    dtype = np.result_type(_float_type(x), *[_dtype(d) for d in directions])
    x = x.astype(dtype, copy=False)
    moved = _along_last(xp, [x] + directions, x.shape, axis)
    top = _jet_scan(xp, _jet(xp, moved[0], moved[1:]))[-1]
    return _back_from_last(xp, top, top.shape if axis is None else x.shape, axis)


# --- std --------------------------------------------------------------------------------------


def std_grad_partial(t, h, ans, x, axis=None, ddof=0, keepdims=False, tangent=False, power=1):
    """Derivative of ``std_grad(h, ans, x, ...)`` (``h (x - mean) / ((n - ddof) ans)``)
    in ``ans``: its adjoint applied to ``t`` (shaped like ``x``), or with ``tangent``,
    its change along ``t`` (shaped like ``ans``). 0 where the std is 0, like the gradient.

    ``power`` p > 1 differentiates ``h (x - mean) / ((n - ddof) ans^p)`` instead (the
    slope in ``ans`` is ``-p h (x - mean) / ((n - ddof) ans^(p+1))``): the derivatives of
    this helper are the same helper with ``power`` one higher (in ``ans``), or with ``x``
    replaced (it is linear in ``x - mean``), so that every order is written.

    >>> x = np.array([1.0, 3.0])
    >>> std_grad_partial(1.0, 1.0, 1.0, x, tangent=True)
    array([ 0.5, -0.5])
    >>> std_grad_partial(1.0, 1.0, 2.0, x, tangent=True, power=2)  # -2 (x - 2) / (2 * 2**3)
    array([ 0.125, -0.125])
    """
    xp = array_module(t, h, ans, x)
    x = xp.asarray(x)
    axes = _axes(axis, x.ndim)
    spread = expand_reduced(ans, x, axis, keepdims)
    safe = xp.where(spread == 0, 1.0, spread)
    slope = xp.where(spread == 0, 0.0,
                     -power * std_grad(h, ans, x, axis, ddof, keepdims) / safe ** power)
    if tangent:
        return slope * expand_reduced(t, x, axis, keepdims)
    out = xp.sum(t * slope, axis=axes, keepdims=True)
    return out if keepdims else xp.reshape(out, xp.shape(xp.asarray(ans)))


# --- average with weights ---------------------------------------------------------------------


def average_grad_partial(t, h, a, axis=None, weights=None, keepdims=False, argnum=0, wrt=0,
                         tangent=False):
    """Derivative of ``average_grad(h, a, axis, weights, keepdims, argnum)`` (the adjoint
    of the weighted average ``f = sum(a w) / sum(w)`` in ``a``, argnum 0, or in the
    weights, 1) with respect to ``a`` (``wrt`` 0) or the weights (1): its adjoint applied
    to ``t`` (shaped like that helper's result), or with ``tangent``, its change along
    ``t`` (shaped like ``a`` or the weights).

    With ``W = sum(w)``, the gradients are ``h w / W`` and ``h (a - f) / W``; the mixed
    derivative is ``h (t - sum(t w) / W) / W`` (one way) or ``h (t - w sum(t) / W) / W``
    (the other), and in the weights twice ``-h (sum(t) (a - f) + sum(t (a - f))) / W**2``.
    One-dimensional weights along ``axis`` are shared by every slice: their
    derivatives are summed over the slices.

    >>> a, w = np.array([1.0, 3.0]), np.array([1.0, 1.0])
    >>> average_grad_partial(np.array([1.0, 2.0]), 1.0, a, weights=w, argnum=1, wrt=1)
    array([ 0.5, -1. ])
    """
    xp = array_module(t, h, a, weights)
    a = xp.asarray(a)
    w = xp.asarray(weights)
    wide = w
    if w.shape != a.shape:  # 1-d weights along the one axis
        shape = [1] * a.ndim
        shape[_axes(axis, a.ndim)[0]] = w.size
        wide = xp.reshape(w, shape)
    axes = _axes(axis, a.ndim)
    total = xp.sum(xp.broadcast_to(wide, a.shape), axis=axes, keepdims=True)
    h = expand_reduced(h, a, axis, keepdims)

    def summed(value):
        return xp.sum(value, axis=axes, keepdims=True)

    def as_weights(value):
        return xp.reshape(unbroadcast(xp.broadcast_to(value, a.shape), wide), w.shape)

    into_a = wrt == 0 if tangent else argnum == 0  # is t shaped like a (or the weights)?
    out_a = argnum == 0 if tangent else wrt == 0   # is the result shaped like a?
    if not into_a and _ndim(t):
        t = xp.reshape(_to(xp, t), wide.shape)
    t = xp.broadcast_to(_to(xp, t), a.shape)
    if argnum == 0 and wrt == 0:
        out = xp.zeros(a.shape, dtype=np.result_type(_float_type(a), _dtype(t)))
    elif argnum != wrt:  # the mixed derivative (symmetric: the two orders are transposes)
        weighs_t = (argnum == 0) != tangent  # t is weighted in the sum, or w is
        out = h * ((t - summed(t * wide) / total) if weighs_t else
                   (t - wide * summed(t) / total)) / total
    else:  # in the weights twice
        centered = a - summed(a * wide) / total
        out = -h * (summed(t) * centered + summed(t * centered)) / total ** 2
    return xp.broadcast_to(out, a.shape) if out_a else as_weights(out)


# --- weighted average: every order, with jets --------------------------------------------------
#
# The average f = sum(a w) / sum(w) of each slice, moved along directions (da_j, dw_j) of
# (a, w): with a(s) = a + sum s_j da_j and w(s) likewise, f(s) = N(s) / D(s) is a jet, and
# so are its partial derivatives in a (w(s) / D(s)) and in w ((a(s) - f(s)) / D(s)). Their
# coefficients of s_1...s_k are the mixed derivatives along the directions.


def _jet_inverse(xp, d):
    """``1 / d`` for a jet with an invertible constant term:
    ``(1 / d0) sum over r of (-e)^r``, ``e = (d - d0) / d0`` (nilpotent)."""
    e = [xp.zeros_like(d[0])] + [c / d[0] for c in d[1:]]
    term = _jet_one(xp, d[0], len(d))
    total = term
    for _ in range(len(d).bit_length() - 1):  # e^(k+1) = 0
        term = [-c for c in _jet_mul(term, e)]
        total = [a + b for a, b in zip(total, term)]
    return [c / d[0] for c in total]


def _average_jets(xp, a, axis, weights, pairs):
    """``(w(s) / D(s), (a(s) - f(s)) / D(s), f(s), shape)``: the jets of the average's
    partial derivatives and of the average, for the direction ``pairs`` ``(da, dw)``, and
    the shape the weights broadcast from."""
    a = xp.asarray(a)
    axes = _axes(axis, a.ndim)
    w = xp.ones(a.shape, dtype=_float_type(a)) if weights is None else xp.asarray(weights)
    shape = list(a.shape)
    if w.shape != a.shape:  # 1-d weights along the one axis
        shape = [1] * a.ndim
        shape[axes[0]] = w.size

    def wide(value):
        return xp.broadcast_to(xp.reshape(_to(xp, value), shape) if _ndim(value) else
                               _to(xp, value), a.shape)

    dtype = np.result_type(_float_type(a), _float_type(w),
                           *[_dtype(d) for pair in pairs for d in pair if d is not None])
    zero = xp.zeros(a.shape, dtype=dtype)
    a_jet = _jet(xp, a.astype(dtype), [zero if da is None else da for da, _ in pairs])
    w_jet = _jet(xp, wide(w).astype(dtype), [zero if dw is None else wide(dw)
                                            for _, dw in pairs])

    def summed(jet):
        return [xp.sum(c, axis=axes, keepdims=True) for c in jet]
    inverse = _jet_inverse(xp, summed(w_jet))
    average = _jet_mul(summed(_jet_mul(a_jet, w_jet)), inverse)
    in_a = _jet_mul(w_jet, inverse)
    in_w = _jet_mul([x - f for x, f in zip(a_jet, average)], inverse)
    return in_a, in_w, average, shape


def _pairs(*parts):
    """The direction pairs ``(da, dw)`` given (one of the two at least)."""
    pairs = [(parts[i], parts[i + 1]) for i in range(0, len(parts), 2)]
    return [p for p in pairs if p[0] is not None or p[1] is not None]


def average_jet(h, a, axis=None, weights=None, keepdims=False, argnum=0, da=None, dw=None,
                ua=None, uw=None, va=None, vw=None):
    """The mixed derivative of ``average_grad(h, a, axis, weights, keepdims, argnum)`` (the
    gradient of ``<h, np.average(a, axis, weights)>`` in ``a``, argnum 0, or the weights,
    1) along the directions ``(da, dw)``, ``(ua, uw)`` and ``(va, vw)`` of ``(a, weights)``
    (those given; a part left None does not move). Symmetric in the directions and its own
    result's, so that its derivatives are itself with one direction more or replaced.
    One-dimensional weights along ``axis`` are shared by every slice: their derivatives
    are summed over the slices.

    >>> a, w = np.array([1.0, 3.0]), np.array([1.0, 1.0])
    >>> average_jet(1.0, a, weights=w, argnum=1, dw=np.array([1.0, 2.0]))
    array([ 0.5, -1. ])
    >>> average_jet(1.0, a, weights=w, argnum=1, dw=np.ones(2), uw=np.ones(2))  # (a - f) 8 / W^3
    array([-1.,  1.])
    """
    if argnum != 0 and weights is None:
        return None
    xp = array_module(h, a, weights, da, dw, ua, uw, va, vw)
    a = xp.asarray(a)
    in_a, in_w, _, shape = _average_jets(xp, a, axis, weights, _pairs(da, dw, ua, uw, va, vw))
    h = expand_reduced(h, a, axis, keepdims)
    if argnum == 0:
        return h * in_a[-1]
    out = h * in_w[-1]
    return xp.reshape(unbroadcast(xp.broadcast_to(out, a.shape), xp.zeros(shape)),
                      _shape_of(weights))


def average_change(a, axis=None, weights=None, keepdims=False, da=None, dw=None, ua=None,
                   uw=None, va=None, vw=None):
    """The mixed derivative of ``np.average(a, axis, weights, keepdims=keepdims)`` along the
    directions ``(da, dw)``, ``(ua, uw)`` and ``(va, vw)`` of ``(a, weights)`` (see
    :func:`average_jet`, its gradient): ``average_tangent`` for one direction.

    >>> a, w = np.array([1.0, 3.0]), np.array([1.0, 1.0])
    >>> float(average_change(a, weights=w, dw=np.array([1.0, 0.0]), uw=np.array([1.0, 0.0])))
    0.5
    """
    xp = array_module(a, weights, da, dw, ua, uw, va, vw)
    a = xp.asarray(a)
    average = _average_jets(xp, a, axis, weights, _pairs(da, dw, ua, uw, va, vw))[2]
    out = average[-1]  # (the reduced axes kept, with length 1)
    return out if keepdims else xp.reshape(out, xp.sum(a, axis=axis).shape)


def _shape_of(value):
    """The shape of an array or a Python number."""
    shape = getattr(value, "shape", None)
    return np.shape(value) if shape is None else shape
