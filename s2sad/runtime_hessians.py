"""Second derivatives of the reductions whose adjoints are not linear in their input.

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

Like ``s2sad.runtime``, every helper computes with the array module of its inputs.
"""

from __future__ import annotations

import numpy as np

from .backends import array_module
from .runtime import _axes, _dtype, _ndim, _float_type, _to, expand_reduced, std_grad, unbroadcast


def _dense(xp, x, v):
    """``x`` as an array and ``v`` broadcast to its shape, both of one floating dtype."""
    x = xp.asarray(x)
    dtype = np.result_type(_float_type(x), _dtype(v))
    return x.astype(dtype, copy=False), xp.broadcast_to(_to(xp, v), x.shape).astype(dtype)


# --- prod -------------------------------------------------------------------------------------


def prod_hvp(h, x, v, axis=None, keepdims=False):
    """The change of ``prod_grad(h, x, axis, keepdims)`` when ``x`` moves along ``v``
    (the Hessian of ``<h, prod(x)>`` times ``v``).

    Entry ``j`` of a product's gradient is the product of the other entries; its change
    is ``sum over i != j of v_i * prod(x_k, k != i, j)``. Counting the zeros of each
    reduced slice keeps it exact with no division by zero: with none it is
    ``prod(x) / x_j * (sum(v / x) - v_j / x_j)``; with one zero, at ``z``, it is
    ``prod(x_k, k != z) / x_j * v_z`` and, at ``z`` itself,
    ``prod(x_k, k != z) * sum(v_i / x_i, i != z)``; with two zeros it is nonzero at
    the zeros only; with three or more it is 0.

    >>> prod_hvp(2.0, np.array([0.0, 3.0, 0.0]), np.array([1.0, 1.0, 1.0]))
    array([6., 0., 6.])
    """
    xp = array_module(h, x, v)
    x, v = _dense(xp, x, v)
    h = expand_reduced(h, x, axis, keepdims)
    axes = _axes(axis, x.ndim)
    if not axes:  # a product over no axis is x itself: its Hessian is 0
        return xp.zeros_like(h * v)
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


def cumprod_hvp(h, x, v, axis=None):
    """The change of ``cumprod_grad(h, cumprod(x), x, axis)`` when ``x`` moves along
    ``v`` (the Hessian of ``<h, cumprod(x)>`` times ``v``).

    Entry ``i`` of the gradient is ``sum over j >= i of h_j * prod(x_k, k <= j, k != i)``;
    each such product changes along ``v`` with ``v_i`` left out. Without zeros this is
    ``(revcumsum(h * dc) - revcumsum(h * c) * v / x) / x`` with ``c = cumprod(x)`` and
    ``dc`` its change.

    >>> x, v = np.array([2.0, 0.0, 3.0]), np.array([1.0, 2.0, 0.5])
    >>> cumprod_hvp(np.ones(3), x, v)  # the Hessian of x0 + x0 x1 + x0 x1 x2, times v
    array([8., 5., 4.])
    """
    xp = array_module(h, x, v)
    x, v = _dense(xp, x, v)
    shape = x.shape
    h = xp.broadcast_to(_to(xp, h), shape)
    if axis is None:
        x, v, h, axis = xp.ravel(x), xp.ravel(v), xp.ravel(h), 0
    x, v, h = (xp.moveaxis(a, axis, -1) for a in (x, v, h))

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


# --- std --------------------------------------------------------------------------------------


def std_grad_partial(t, h, ans, x, axis=None, ddof=0, keepdims=False, tangent=False):
    """Derivative of ``std_grad(h, ans, x, ...)`` (``h (x - mean) / ((n - ddof) ans)``)
    in ``ans``: its adjoint applied to ``t`` (shaped like ``x``), or with ``tangent``,
    its change along ``t`` (shaped like ``ans``). 0 where the std is 0, like the gradient.

    >>> x = np.array([1.0, 3.0])
    >>> std_grad_partial(1.0, 1.0, 1.0, x, tangent=True)
    array([ 0.5, -0.5])
    """
    xp = array_module(t, h, ans, x)
    x = xp.asarray(x)
    axes = _axes(axis, x.ndim)
    spread = expand_reduced(ans, x, axis, keepdims)
    safe = xp.where(spread == 0, 1.0, spread)
    slope = xp.where(spread == 0, 0.0, -std_grad(h, ans, x, axis, ddof, keepdims) / safe)
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
