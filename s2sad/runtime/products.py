"""Adjoint helpers of products and linear algebra: dot, matmul, einsum, solve, norms.

>>> import numpy as np
>>> x, y = np.ones((2, 3)), np.arange(12.0).reshape(3, 4)
>>> matmul_grad_left(np.ones((2, 4)), x, y)
array([[ 6., 22., 38.],
       [ 6., 22., 38.]])

Each takes the sensitivity ``g`` of a product's result and returns that of one factor.
Broadcast batch axes are summed away. The cofactor helpers give the derivatives of a
determinant without dividing by it; the SVD ones refuse repeated singular values.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..backends import DASK, Shape, array_module
from ..errors import DifferentiationError, NoDerivativeError
from .shapes import (_argsort, _axes, _float_type, _full, _ndim, _remember, _shape, _summed_axes,
                     _to, _zeros, matmul_shape, unbroadcast)


def summed_matmul_grad_left(g, x, y, like):
    """``unbroadcast(matmul_grad_left(g, x, y), like)``: where the sum runs along the
    rows of ``x @ y`` (axis -2), or along batch axes that ``y`` does not have, ``g`` is
    summed first and multiplied after (``sum(g) @ y.T``, not ``sum(g @ y.T)``). The GMM's
    ``s_xc``, read only for ``s_means``, is then a (K, 1, d) array, never a (K, n, d) one.

    >>> g, y = np.ones((4, 5, 3)), np.ones((4, 2, 3))
    >>> summed_matmul_grad_left(g, np.ones((4, 5, 2)), y, np.ones((4, 1, 2)))[..., 0]
    array([[15.],
           [15.],
           [15.],
           [15.]])
    """
    if type(g) is np.ndarray and type(x) is np.ndarray and type(y) is np.ndarray and \
            g.ndim >= 2 and x.ndim >= 2 and y.ndim >= 2:
        key = g.shape, x.shape, y.shape, _shape(like)
        summed = _SUMMED_FIRST.get(key)
        if summed is None:
            summed = _summed_first(*key)
            _remember(_SUMMED_FIRST, key, summed)
        if summed:
            return unbroadcast(np.matmul(unbroadcast(g, summed), y.swapaxes(-1, -2)), like)
    return unbroadcast(matmul_grad_left(g, x, y), like)


_SUMMED_FIRST: dict = {}  # (shapes of g, x, y and like) -> summed_matmul_grad_left's plan


def _summed_first(g: tuple, x: tuple, y: tuple, like: tuple):
    """The Shape ``g`` is summed to before the product in ``summed_matmul_grad_left``
    (its summed axes kept, of length 1), or () where it is not summed first.

    >>> _summed_first((4, 5, 3), (4, 5, 2), (4, 2, 3), (4, 1, 2))
    Shape((4, 1, 3))
    >>> _summed_first((4, 5, 3), (4, 5, 2), (4, 2, 3), (4, 5, 2))
    ()
    """
    try:
        full = np.broadcast_shapes(x, g[:-1] + (x[-1],))
    except ValueError:  # (matmul_grad_left says what NumPy says)
        return ()
    summed = _summed_axes(full, like)
    if summed and -1 not in summed and all(i == -2 or -i > len(y) or y[i] == 1
                                           for i in summed):
        n = len(g)
        return Shape(tuple(1 if i - n in summed else m for i, m in enumerate(g)))
    return ()


def _listed(xp, value):
    """``value`` as an array where it is a list or tuple (``np.dot([a, b], [a, b])``), which
    the product's own NumPy function reads as one; otherwise unchanged.

    >>> _listed(np, [1.0, 2.0]) * 2.0
    array([2., 4.])
    """
    return xp.asarray(value) if type(value) in (list, tuple) else value


def _dot_shape(x, y) -> tuple:
    """The shape of ``np.dot(x, y)`` for arrays of rank 1 or more."""
    sx, sy = _shape(x), _shape(y)
    return tuple(sx[:-1]) + (tuple(sy[:-2]) + tuple(sy[-1:]) if len(sy) > 1 else ())


def dot_grad_left(g, x, y):
    """Adjoint of ``np.dot(x, y)`` with respect to ``x``, for every combination of ranks."""
    if _ndim(y) == 0 or _ndim(x) == 0:
        return unbroadcast(g * y, x) if _ndim(x) == 0 else g * y
    xp = array_module(g, x, y)
    g = _full(xp, g, _dot_shape(x, y))
    y = _listed(xp, y)  # (np.dot(xs, xs) of a list: read as the array np.dot reads)
    if _ndim(y) == 1:
        return xp.multiply.outer(_to(xp, g), y) if _ndim(x) > 1 else g * y
    # dot contracts the last axis of x with the second-to-last axis of y
    y_axes = [a for a in range(_ndim(y)) if a != _ndim(y) - 2]
    g_axes = list(range(_ndim(x) - 1, _ndim(g)))
    return xp.tensordot(_to(xp, g), y, axes=(tuple(g_axes), tuple(y_axes)))


def dot_grad_right(g, x, y):
    """Adjoint of ``np.dot(x, y)`` with respect to ``y``."""
    if _ndim(y) == 0 or _ndim(x) == 0:
        return unbroadcast(g * x, y) if _ndim(y) == 0 else g * x
    xp = array_module(g, x, y)
    g = _full(xp, g, _dot_shape(x, y))
    x = _listed(xp, x)
    if _ndim(x) == 1:
        if _ndim(y) == 1:
            return g * x
        g = xp.reshape(_to(xp, g), _shape(y)[:-2] + _shape(y)[-1:])
        return xp.moveaxis(xp.multiply.outer(x, g), 0, -2)
    x_axes = list(range(_ndim(x) - 1))
    g_axes = list(range(_ndim(x) - 1))
    gy = xp.tensordot(x, _to(xp, g), axes=(tuple(x_axes), tuple(g_axes)))  # (k, *y_other)
    return xp.moveaxis(gy, 0, -2) if _ndim(y) > 1 else gy


def matmul_grad_left(g, x, y):
    """Adjoint of ``x @ y`` with respect to ``x`` (batched, with 1-d operands)."""
    xp = array_module(g, x, y)
    g = _full(xp, g, matmul_shape(x, y))
    if _ndim(y) == 1:
        gx = xp.multiply.outer(_to(xp, g), y) if _ndim(x) > 1 else g * y
        return unbroadcast(gx, x)
    if _ndim(x) == 1:
        return unbroadcast(xp.matmul(y, g[..., None])[..., 0], x)
    if type(y) is np.ndarray:  # (the method: np.swapaxes's own, called directly)
        return unbroadcast(xp.matmul(g, y.swapaxes(-1, -2)), x)
    return unbroadcast(xp.matmul(g, xp.swapaxes(y, -1, -2)), x)


def matmul_grad_right(g, x, y):
    """Adjoint of ``x @ y`` with respect to ``y``."""
    xp = array_module(g, x, y)
    g = _full(xp, g, matmul_shape(x, y))
    if _ndim(x) == 1:
        if _ndim(y) == 1:
            return g * x
        # x @ y contracts x with axis -2 of y: the new axis from the outer product goes there
        return unbroadcast(xp.moveaxis(xp.multiply.outer(x, g), 0, -2), y)
    if _ndim(y) == 1:
        return unbroadcast(xp.matmul(xp.swapaxes(x, -1, -2), g[..., None])[..., 0], y)
    if type(x) is np.ndarray:  # (the method: np.swapaxes's own, called directly)
        return unbroadcast(xp.matmul(x.swapaxes(-1, -2), g), y)
    return unbroadcast(xp.matmul(xp.swapaxes(x, -1, -2), g), y)


def tensordot_grad(g, x, y, axes, argnum):
    """Adjoint of ``np.tensordot(x, y, axes)`` with respect to ``x`` (0) or ``y`` (1).

    (Axes go to ``tensordot`` as tuples: CuPy multiplies a 0-d operand only when the
    axes are ``((), ())``, and refuses ``([], [])``.)"""
    xp = array_module(g, x, y)
    g = _to(xp, g)
    nx, ny = _ndim(x), _ndim(y)
    if isinstance(axes, numbers.Integral):
        x_axes = list(range(nx - axes, nx))
        y_axes = list(range(axes))
    else:
        x_axes, y_axes = ([a] if isinstance(a, numbers.Integral) else list(a) for a in axes)
        x_axes = [a % nx for a in x_axes]
        y_axes = [a % ny for a in y_axes]
    x_free = [a for a in range(nx) if a not in x_axes]
    y_free = [a for a in range(ny) if a not in y_axes]
    n_xfree = len(x_free)
    g = _full(xp, g, tuple(_shape(x)[a] for a in x_free) + tuple(_shape(y)[b] for b in y_free))
    # g has axes (x_free..., y_free...)
    if argnum == 0:
        gx = xp.tensordot(g, y, axes=(tuple(range(n_xfree, _ndim(g))), tuple(y_free)))
        # gx's axes: x's free axes, then y's contracted axes in increasing order, each of
        # which stands for the x axis it was paired with
        labels = x_free + [x_axes[y_axes.index(a)] for a in sorted(y_axes)]
        return xp.transpose(gx, _argsort(labels))
    gy = xp.tensordot(x, g, axes=(tuple(x_free), tuple(range(n_xfree))))
    labels = [y_axes[x_axes.index(a)] for a in sorted(x_axes)] + y_free
    return xp.transpose(gy, _argsort(labels))


def _safe_divide(a, b):
    """``a / b``, and 0 where ``b`` is 0 (a norm's gradient at the origin)."""
    xp = array_module(a, b)
    return xp.where(b == 0, 0.0, a / xp.where(b == 0, 1.0, b))


def _vector_norm_grad(g, ans, x, ord, axes):
    """``g`` and ``ans`` already broadcast against ``x``; ``axes`` the reduced ones."""
    xp = array_module(g, ans, x)
    if ord is None or ord == 2:
        return g * _safe_divide(x, ans)
    if ord == 1:
        return g * xp.sign(x)
    if ord == 0:
        return xp.zeros_like(g * x)
    if ord in (np.inf, -np.inf):
        hit = xp.abs(x) == ans
        return g * xp.sign(x) * hit / xp.sum(hit, axis=axes, keepdims=True)
    p = float(ord)
    scaled = _safe_divide(xp.abs(x), ans)
    return g * xp.sign(x) * xp.where(x == 0, 0.0, scaled ** (p - 1))


def norm_grad(g, ans, x, ord=None, axis=None, keepdims=False, matrix=None):
    """Adjoint of ``np.linalg.norm`` for vector and matrix norms (0 at the origin).

    ``matrix`` False: a vector norm over all of ``axis`` (``np.linalg.vector_norm``).
    """
    xp = array_module(g, ans, x)
    x = xp.asarray(x)
    axes = _axes(axis, x.ndim)
    if matrix is None:
        matrix = ord is not None and x.ndim == 2 if axis is None else len(axes) == 2
    g = xp.asarray(g)
    ans = xp.asarray(ans)
    if not keepdims and axis is not None:
        g, ans = xp.expand_dims(g, axes), xp.expand_dims(ans, axes)
    elif not keepdims:
        g, ans = xp.reshape(g, (1,) * x.ndim), xp.reshape(ans, (1,) * x.ndim)
    if not matrix or ord in (None, "fro"):
        return _vector_norm_grad(g, ans, x, None if ord == "fro" else ord, axes)
    row, col = axes
    if ord in ("nuc", 2, -2):
        moved = xp.moveaxis(x, (row, col), (-2, -1))
        u, s, vh = xp.linalg.svd(moved, full_matrices=False)
        if ord == "nuc":
            inner = u @ vh
        else:
            k = 0 if ord == 2 else -1
            inner = u[..., :, k:k + 1 if k == 0 else None] @ vh[..., k:k + 1 if k == 0 else None, :]
        return g * xp.moveaxis(inner, (-2, -1), (row, col))
    if ord in (1, -1, np.inf, -np.inf):
        summed = col if ord in (np.inf, -np.inf) else row  # sum |x| over this axis
        sums = xp.sum(xp.abs(x), axis=summed, keepdims=True)
        hit = sums == ans
        return g * xp.sign(x) * hit / xp.sum(hit, axis=axes, keepdims=True)
    raise NoDerivativeError(f"s2sad has no gradient for np.linalg.norm with ord={ord!r}",
                            hint="Write the norm out with functions s2sad knows.")


def diagonal_grad(g, x, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.diagonal``: ``g`` placed on that diagonal of zeros."""
    xp = array_module(g, x)
    out = _zeros(x, g)
    view = xp.moveaxis(out, (axis1, axis2), (-2, -1))
    if DASK.is_lazy(out):
        # (a Dask array: moveaxis is a new array, not a view a store writes through, and
        # Dask stores at one array index alone) g times a NumPy 0/1 placement instead
        k = _shape(g)[-1] if _ndim(g) else 1
        place = np.zeros((k,) + tuple(view.shape[-2:]), dtype=view.dtype)
        j = np.arange(k)
        place[j, j + max(-offset, 0), j + max(offset, 0)] = 1
        g = xp.broadcast_to(_to(xp, g), view.shape[:-2] + (k,))
        return xp.moveaxis(xp.tensordot(g, place, axes=1), (-2, -1), (axis1, axis2))
    i = xp.arange(_shape(g)[-1] if _ndim(g) else 1)
    view[..., i + max(-offset, 0), i + max(offset, 0)] = g
    return out


def trace_grad(g, x, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.trace``: ``g`` on the diagonal."""
    xp = array_module(g, x)
    k = xp.diagonal(x, offset, axis1, axis2).shape[-1]
    return diagonal_grad(xp.expand_dims(_to(xp, g), -1) * xp.ones(k, dtype=_float_type(x)), x,
                         offset, axis1, axis2)


def diag_grad(g, v, k=0):
    """Adjoint of ``np.diag``: the diagonal of ``g`` (1-d ``v``) or ``g`` placed on it (2-d)."""
    if _ndim(v) == 1:
        return array_module(g).diagonal(g, k)
    return diagonal_grad(g, v, k)


def inner_grad(g, a, b, argnum):
    """Adjoint of ``np.inner(a, b)`` (contracting the last axes)."""
    this, other = (a, b) if argnum == 0 else (b, a)
    if _ndim(a) == 0 or _ndim(b) == 0:
        return unbroadcast(g * other, this)
    xp = array_module(g, a, b)
    n_a = _ndim(a) - 1
    g = xp.asarray(g)
    if argnum == 0:
        return xp.tensordot(g, b, axes=(tuple(range(n_a, g.ndim)), tuple(range(_ndim(b) - 1))))
    return xp.tensordot(g, a, axes=(tuple(range(n_a)), tuple(range(n_a))))


def kron_grad(g, a, b, argnum):
    """Adjoint of ``np.kron(a, b)`` with respect to ``a`` (0) or ``b`` (1)."""
    xp = array_module(g, a, b)
    a, b = xp.asarray(a), xp.asarray(b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    pairs = xp.reshape(g, [n for pair in zip(sa, sb) for n in pair])  # (a0, b0, a1, b1, ...)
    if argnum == 0:
        out = xp.tensordot(pairs, xp.reshape(b, sb), axes=(list(range(1, 2 * nd, 2)),
                                                           list(range(nd))))
        return xp.reshape(out, a.shape)
    out = xp.tensordot(xp.reshape(a, sa), pairs, axes=(list(range(nd)), list(range(0, 2 * nd, 2))))
    return xp.reshape(out, b.shape)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_labels(subscripts, shapes):
    """Each operand's labels and the output's, with ``...`` spelled out as letters."""
    if not isinstance(subscripts, str):
        raise NoDerivativeError("s2sad differentiates np.einsum with a subscripts string "
                                "('ij,jk->ik'), not the interleaved operand/list form",
                                hint="Write the subscripts as one string.")
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    inputs = inputs.split(",")
    if len(inputs) != len(shapes):
        raise ValueError(f"einsum subscripts {subscripts!r} name {len(inputs)} operands, "
                         f"but {len(shapes)} were given")
    free = [c for c in _LETTERS if c not in text]
    n_ell = max([len(s) - len(i) + 3 for i, s in zip(inputs, shapes) if "..." in i], default=0)
    ell = "".join(free[:n_ell])
    labels = []
    for i, shape in zip(inputs, shapes):
        if "..." in i:
            k = len(shape) - len(i) + 3
            i = i.replace("...", ell[n_ell - k:])
        labels.append(i)
    if not arrow:
        letters = [c for i in inputs for c in i if c != "."]
        output = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    else:
        output = output.replace("...", ell)
    return labels, output, free[n_ell:]


def einsum_grad(g, subscripts, operands, argnum):
    """Adjoint of ``np.einsum(subscripts, *operands)`` with respect to operand ``argnum``.

    Handles implicit output, ``...`` with broadcasting, repeated labels (diagonals)
    and labels summed within one operand only.

    >>> a, b = np.arange(6.0).reshape(2, 3), np.ones((3, 2))
    >>> einsum_grad(np.ones((2, 2)), "ij,jk", (a, b), 0)
    array([[2., 2., 2.],
           [2., 2., 2.]])
    >>> einsum_grad(1.0, "ii", (np.eye(2),), 0)
    array([[1., 0.],
           [0., 1.]])
    """
    xp = array_module(g, *operands)
    operands = [xp.asarray(o) for o in operands if o is not None]
    labels, output, free = _einsum_labels(subscripts, [o.shape for o in operands])
    sizes: dict = {}
    for lab, o in zip(labels, operands):
        for c, n in zip(lab, o.shape):
            sizes[c] = n if sizes.get(c, 1) == 1 else sizes[c]  # (as they broadcast: 0 too)
    target, x = labels[argnum], operands[argnum]
    unique = "".join(dict.fromkeys(target))
    others = [(lab, o) for j, (lab, o) in enumerate(zip(labels, operands)) if j != argnum]
    seen = set(output).union(*[set(lab) for lab, _ in others])
    present = "".join(c for c in unique if c in seen)
    spec = ",".join([output] + [lab for lab, _ in others]) + "->" + present
    grad = xp.einsum(spec, _to(xp, g), *[o for _, o in others])
    # labels summed within this operand alone: the sensitivity is the same all along them
    grad = xp.broadcast_to(xp.reshape(grad, [sizes[c] if c in present else 1 for c in unique]),
                           [sizes[c] for c in unique])
    if len(unique) != len(target):  # repeated labels: put the sensitivity on the diagonal
        renamed, eyes, specs = "", [], []
        for c in target:
            if c in renamed:
                new = free.pop(0)
                eyes.append(xp.eye(sizes[c], dtype=grad.dtype))
                specs.append(c + new)
                c = new
            renamed += c
        grad = xp.einsum(",".join([unique] + specs) + "->" + renamed, grad, *eyes)
    # operands broadcast along a length-1 axis: sum over it
    axes = tuple(k for k, n in enumerate(x.shape) if n == 1 and grad.shape[k] != 1)
    if axes:
        grad = xp.sum(grad, axis=axes, keepdims=True)
    return grad


def solve_grad(g, ans, a, b, argnum):
    """Adjoint of ``np.linalg.solve(a, b)`` with respect to ``a`` (0) or ``b`` (1)."""
    xp = array_module(g, ans, a, b)
    a, ans = xp.asarray(a), xp.asarray(ans)
    g = _full(xp, g, _shape(ans))
    a_t = xp.swapaxes(a, -1, -2)
    if _ndim(b) == 1:  # one right-hand side vector, shared by the stack of matrices
        gb = xp.linalg.solve(a_t, xp.asarray(g)[..., None])[..., 0]
        if argnum == 1:
            return unbroadcast(gb, b)
        return unbroadcast(-gb[..., :, None] * ans[..., None, :], a)
    gb = xp.linalg.solve(a_t, g)
    if argnum == 1:
        return unbroadcast(gb, b)
    return unbroadcast(-gb @ xp.swapaxes(ans, -1, -2), a)


def _products_but_one(xp, s):
    """``c[..., i]``: the product of ``s[..., j]`` over ``j != i``, without dividing (a zero
    in ``s`` is no special case)."""
    ones = xp.ones_like(s[..., :1])
    left = xp.cumprod(xp.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    right = xp.flip(xp.cumprod(xp.concatenate([ones, xp.flip(s[..., 1:], axis=-1)], axis=-1),
                               axis=-1), axis=-1)
    return left * right


def _cofactor_frame(a):
    """``(xp, u, vh, sign, s)``: ``a = u diag(s) vh`` and ``sign = det(u) det(vh)``, the
    frame the cofactors of ``a`` are diagonal in."""
    xp = array_module(a)
    a = xp.asarray(a)
    u, s, vh = xp.linalg.svd(a)
    sign = xp.linalg.det(u) * xp.linalg.det(vh)
    return xp, xp.conj(u), xp.conj(vh), sign[..., None, None], s


def cofactors(a):
    """The matrix of cofactors of ``a`` (``det(a) inv(a).T`` where ``a`` is invertible),
    the gradient of ``np.linalg.det``: from the singular value decomposition, singular
    matrices included.

    >>> np.round(cofactors(np.array([[1.0, 2.0], [2.0, 4.0]])), 12)  # singular: det is 0
    array([[ 4., -2.],
           [-2.,  1.]])
    """
    xp, u, vh, sign, s = _cofactor_frame(a)
    return sign * (u * _products_but_one(xp, s)[..., None, :]) @ vh


def cofactors_change(a, e):
    """The change of ``cofactors(a)`` when ``a`` changes by ``e``; also its adjoint (the map
    is its own transpose). In the frame of ``a = u diag(s) vh``, with ``m = u^T e vh^T``
    and ``p[i, k]`` the product of the ``s[l]``, ``l`` neither ``i`` nor ``k``: the
    diagonal gets ``sum_k p[i, k] m[k, k]``, the rest ``-p[i, j] m[j, i]``.

    >>> a, e = np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> np.allclose(cofactors_change(a, e), [[0.0, 0.0], [-1.0, 0.0]])  # d a[0, 1]: -d a[1, 0]
    True
    """
    xp, u, vh, sign, s = _cofactor_frame(a)
    n = s.shape[-1]
    m = xp.swapaxes(u, -1, -2) @ xp.asarray(e) @ xp.swapaxes(vh, -1, -2)
    eye = xp.eye(n, dtype=bool)
    # row i: s with s[i] taken out (set to 1), then the products of all but one
    rows = xp.where(eye, xp.ones_like(s)[..., None, :], s[..., None, :])
    p = xp.where(eye, 0.0, _products_but_one(xp, rows))
    diagonal = xp.sum(p * xp.diagonal(m, 0, -2, -1)[..., None, :], axis=-1)
    change = xp.where(eye, diagonal[..., :, None] * eye, -p * xp.swapaxes(m, -1, -2))
    return sign * u @ change @ vh


def cofactors_second(a, e, t):
    """The second change of ``cofactors(a)``, along ``e`` and ``t`` (symmetric in them, and
    the gradient of ``det``'s third derivative). In the frame of ``a``, with ``q[i, k, l]``
    the product of the singular values but those three: the terms of the 3 by 3 minors.

    >>> a = np.diag([1.0, 2.0, 3.0])
    >>> e, t = np.diag([1.0, 0.0, 0.0]), np.diag([0.0, 1.0, 0.0])
    >>> round(float(cofactors_second(a, e, t)[2, 2]), 12)  # the cofactor a00 a11 - a01 a10
    1.0
    """
    xp, u, vh, sign, s = _cofactor_frame(a)
    n = s.shape[-1]
    ut, v = xp.swapaxes(u, -1, -2), xp.swapaxes(vh, -1, -2)
    m, w = ut @ xp.asarray(e) @ v, ut @ xp.asarray(t) @ v
    eye = xp.eye(n, dtype=bool)
    distinct = ~(eye[:, :, None] | eye[:, None, :] | eye[None, :, :])
    # q[i, k, l]: the products of all but one of s with s[i] and s[k] taken out (set to 1)
    out = eye[:, None, :] | eye[None, :, :]
    q = xp.where(distinct, _products_but_one(xp, xp.where(out, 1.0, s[..., None, None, :])),
                 0.0)
    md, wd = xp.diagonal(m, 0, -2, -1), xp.diagonal(w, 0, -2, -1)
    diagonal = xp.einsum("...ikl,...i,...k->...l", q, md, wd) - \
        xp.einsum("...ikl,...ik,...ki->...l", q, m, w)
    rest = xp.einsum("...jlm,...mj,...jl->...lm", q, m, w) + \
        xp.einsum("...jlm,...jl,...mj->...lm", q, m, w) - \
        xp.swapaxes(m, -1, -2) * xp.einsum("...jlm,...j->...lm", q, wd) - \
        xp.swapaxes(w, -1, -2) * xp.einsum("...jlm,...j->...lm", q, md)
    change = rest + diagonal[..., :, None] * eye
    return sign * u @ change @ vh


def cholesky_grad(g, L):
    """Adjoint of ``L = np.linalg.cholesky(a)``, symmetric (``a`` is a symmetric matrix):
    ``sym(L^-T Phi(L^T tril(g)) L^-1)``, Murray's formula. A NumPy matrix larger than
    ``_CHOLESKY_BLOCK`` takes the blocked algorithm (:func:`_cholesky_grad_blocked`),
    which costs about twice the factorization's flops, not twelve times.

    >>> L = np.array([[2.0, 0.0], [1.0, 1.0]])
    >>> cholesky_grad(np.eye(2), L)  # d tr(L) / d a
    array([[ 0.375, -0.25 ],
           [-0.25 ,  0.5  ]])
    """
    if type(L) is np.ndarray and L.ndim == 2 and L.shape[0] > _CHOLESKY_BLOCK and \
            L.dtype.kind == "f" and np.shape(g) == L.shape and np.asarray(g).dtype.kind == "f":
        return _cholesky_grad_blocked(np.asarray(g), L, _CHOLESKY_BLOCK)
    xp = array_module(g, L)
    g = xp.tril(g)  # L's upper triangle is constant zero
    n = _shape(L)[-1]
    inner = xp.swapaxes(L, -1, -2) @ g
    phi = xp.tril(inner) / (1.0 + xp.eye(n, dtype=inner.dtype))
    l_inv = xp.linalg.inv(L)
    s = xp.swapaxes(l_inv, -1, -2) @ phi @ l_inv
    return (s + xp.swapaxes(s, -1, -2)) / 2.0


_CHOLESKY_BLOCK = 128


def _solve_lower_right(d, x):
    """``x d^-1`` for a lower-triangular ``d``: a triangular solve where SciPy imports."""
    try:
        from scipy.linalg import solve_triangular
    except ImportError:  # (NumPy alone: a general solve, exact all the same)
        return np.linalg.solve(d.T, x.T).T
    return solve_triangular(d, x.T, trans=1, lower=True, check_finite=False).T


def _cholesky_grad_blocked(g, L, block):
    """:func:`cholesky_grad` by Murray's blocked algorithm (Differentiation of the Cholesky
    decomposition, 2016): the reverse of the left-looking blocked factorization, from the
    last block column to the first, in matrix products of a block's width; each diagonal
    block takes the formula itself. ``a`` is the adjoint of the lower triangle, then
    symmetrized.

    >>> L = np.linalg.cholesky(np.eye(3) + 0.5)
    >>> g = np.arange(9.0).reshape(3, 3)
    >>> bool(np.allclose(_cholesky_grad_blocked(g, L, 1), cholesky_grad(g, L)))
    True
    """
    n = L.shape[0]
    dtype = np.result_type(L, g)
    a = np.tril(g).astype(dtype, copy=False)  # (a new array either way)
    eye = 1.0 + np.eye(block, dtype=dtype)
    for j in range(((n - 1) // block) * block, -1, -block):
        k = min(j + block, n)
        d = L[j:k, j:k]
        if k < n:  # the column below the diagonal block: c = c1 d^-T, c1 = a - b r^T
            c_bar = a[k:, j:k] = _solve_lower_right(d, a[k:, j:k])
            a[j:k, j:k] -= np.tril(c_bar.T @ L[k:, j:k])
            if j:
                a[k:, :j] -= c_bar @ L[j:k, :j]
                a[j:k, :j] -= c_bar.T @ L[k:, :j]
        # the diagonal block d = chol(a - r r^T): Murray's formula, as the lower triangle
        p = np.tril(d.T @ np.tril(a[j:k, j:k])) / eye[:k - j, :k - j]
        x = _solve_lower_right(d, _solve_lower_right(d, p.T).T)  # d^-T p d^-1
        d_bar = np.tril(x + x.T) / eye[:k - j, :k - j]
        a[j:k, j:k] = d_bar
        if j:
            a[j:k, :j] -= (d_bar + d_bar.T) @ L[j:k, :j]
    # the symmetric part of the lower triangle's adjoint, in place: half of each entry off
    # the diagonal, mirrored, block by block (no second matrix)
    diagonal = a.diagonal().copy()
    a *= 0.5
    a[np.diag_indices(n)] = diagonal
    for j in range(0, n, block):
        k = min(j + block, n)
        a[j:k, k:] = a[k:, j:k].T
        d = a[j:k, j:k]
        a[j:k, j:k] = np.tril(d) + np.tril(d, -1).T
    return a


def svd_kept(g, ans, full_matrices=True):
    """How many singular vectors the rules of ``np.linalg.svd`` differentiate:
    ``min(m, n)``. With ``full_matrices`` the factors have more columns than that (an
    arbitrary completion to an orthonormal basis, not a function of the matrix): a
    gradient through them is refused, not made up.

    >>> u, s, vh = np.linalg.svd(np.ones((3, 2)))
    >>> svd_kept([0.0, np.ones(2), 0.0], (u, s, vh))
    2
    >>> svd_kept([np.ones((3, 3)), 0.0, 0.0], (u, s, vh))
    Traceback (most recent call last):
        ...
    s2sad.errors.DifferentiationError: the gradient reaches the columns of u beyond the \
first min(m, n) = 2 that np.linalg.svd(a, full_matrices=True) returns: they are an \
arbitrary completion of the basis, without a derivative
    Call np.linalg.svd(a, full_matrices=False), and use only u[..., :k] and vh[..., :k, :] \
with k = min(m, n).
    """
    k = _shape(ans[1])[-1]
    if full_matrices:
        for name, part, axis in (("u", g[0], -1), ("vh", g[2], -2)):
            if _ndim(part) and _shape(part)[axis] > k and \
                    bool((array_module(part).moveaxis(part, axis, 0)[k:] != 0).any()):
                raise DifferentiationError(
                    f"the gradient reaches the {'columns' if axis == -1 else 'rows'} of "
                    f"{name} beyond the first min(m, n) = {k} that "
                    "np.linalg.svd(a, full_matrices=True) returns: they are an arbitrary "
                    "completion of the basis, without a derivative",
                    hint="Call np.linalg.svd(a, full_matrices=False), and use only "
                         "u[..., :k] and vh[..., :k, :] with k = min(m, n).")
    return k


def svd_completed(d, like, fill):
    """``d`` (the derivative of the first ``min(m, n)`` singular vectors) made as wide as
    ``like`` (a factor of ``np.linalg.svd(a, full_matrices=True)``), ``fill`` in the
    columns (of ``u``) or rows (of ``vh``) beyond: NaN in a tangent, as those vectors, an
    arbitrary completion of the basis, have no derivative. :func:`svd_cut` is its adjoint.

    >>> svd_completed(np.ones((3, 2)), np.zeros((3, 3)), np.nan)
    array([[ 1.,  1., nan],
           [ 1.,  1., nan],
           [ 1.,  1., nan]])
    """
    shape, wanted = _shape(d), _shape(like)
    if tuple(shape[-2:]) == tuple(wanted[-2:]):
        return d
    xp = array_module(d)
    widths = [(0, 0)] * (len(shape) - 2) + [(0, wanted[-2] - shape[-2]),
                                            (0, wanted[-1] - shape[-1])]
    return xp.pad(d, widths, constant_values=fill)


def svd_cut(g, d):
    """``g`` cut to the shape of ``d`` in its last two axes (the adjoint of
    :func:`svd_completed`)."""
    rows, cols = _shape(d)[-2:]
    return g[..., :rows, :cols]


def vecdot_grad(g, other, x, axis=-1, keepdims=False):
    """Adjoint of ``np.vecdot(x, other)`` (or of ``other, x``) with respect to ``x``."""
    if not keepdims:
        xp = array_module(g, other, x)
        g = xp.expand_dims(_to(xp, g), axis)
    return unbroadcast(g * other, x)
