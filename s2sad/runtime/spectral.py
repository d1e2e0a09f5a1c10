"""Helpers of the FFT rules: lengths along axes, cropping and zero padding, weights.

>>> import numpy as np
>>> fit_axes(np.arange(5.0), (3,), (0,)), fit_axes(np.arange(2.0), (4,), (-1,))
(array([0., 1., 2.]), array([0., 1., 0., 0.]))
>>> fft_axes(np.zeros((2, 3, 4)), None, None), fft_axes(np.zeros((2, 3)), (5,), None)
((0, 1, 2), (1,))

``fit_axes`` is linear (its adjoint crops or pads back); the others compute numbers
from shapes and arguments that are no derivative's.
"""

from __future__ import annotations

import numpy as np

from ..backends import array_module
from .shapes import _shape


def fit_axes(a, lengths, axes):
    """``a`` cropped or zero-padded at the end of each of ``axes`` to ``lengths`` entries
    (what ``np.fft.fft(a, n)`` does to its input)."""
    xp = array_module(a)
    a = xp.asarray(a)
    index = [slice(None)] * a.ndim
    widths = [(0, 0)] * a.ndim
    for length, axis in zip(lengths, axes):
        axis = axis % a.ndim
        if a.shape[axis] > length:
            index[axis] = slice(0, length)
        else:
            widths[axis] = (0, length - a.shape[axis])
    out = a[tuple(index)]
    return xp.pad(out, widths) if any(w != (0, 0) for w in widths) else out


def lengths(a, axes) -> tuple:
    """The lengths of ``a`` along ``axes``."""
    shape = _shape(a)
    return tuple(shape[axis] for axis in axes)


def fft_axes(a, s, axes) -> tuple:
    """The axes ``np.fft.fftn(a, s, axes)`` transforms: ``axes``, else the last ``len(s)``
    axes, else all of them."""
    ndim = len(_shape(a))
    if axes is not None:
        return (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
    if s is not None:  # (scipy.fft.dctn(a, s=4): one number, the last axis)
        return tuple(range(ndim - (1 if isinstance(s, (int, np.integer)) else len(s)), ndim))
    return tuple(range(ndim))


def fft_sizes(a, s, axes) -> tuple:
    """The transform's length along each of ``axes``: ``s`` (``n``, a number, for one
    axis), else ``a``'s lengths."""
    if s is None:
        return lengths(a, axes)
    return (s,) if isinstance(s, (int, np.integer)) else tuple(s)


def half_sizes(sizes) -> tuple:
    """``sizes`` with the last one ``n // 2 + 1``: the lengths of a real input's transform."""
    return tuple(sizes[:-1]) + (sizes[-1] // 2 + 1,)


def hermitian_weights(a, n: int, axis: int):
    """``irfft``'s weight of each of the ``n // 2 + 1`` entries it reads along ``axis``
    (broadcast against ``a``): 1 for the constant term (and the Nyquist one of an even
    ``n``), 2 for the others, whose conjugates it adds. The adjoint of ``irfft``
    multiplies by them."""
    xp = array_module(a)
    weights = np.full(n // 2 + 1, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    shape = [1] * len(_shape(a))
    shape[axis % len(shape)] = weights.size
    return xp.asarray(weights.reshape(shape))


def swapped_norm(norm):
    """The normalization of the inverse direction (``hfft`` is an ``irfft`` of the
    conjugate with ``"backward"`` and ``"forward"`` swapped)."""
    return {None: "forward", "backward": "forward", "forward": "backward",
            "ortho": "ortho"}[norm]


def axis_tuple(axis) -> tuple:
    """``(axis,)``: a one-axis transform's axes."""
    return (axis,)


_INVERSE = {"dct": "idct", "idct": "dct", "dst": "idst", "idst": "dst"}


def trig_adjoint(g, kind: str, type: int, axis: int, norm, orthogonalize):
    """The adjoint of ``scipy.fft.<kind>(x, type, axis=axis, norm=norm)`` (``kind``:
    ``"dct"``, ``"dst"``, ``"idct"`` or ``"idst"``) applied to ``g``: the transposed
    matrix, written with the transforms themselves.

    >>> import scipy.fft
    >>> m = scipy.fft.dct(np.eye(4), 2, axis=0)
    >>> bool(np.allclose(trig_adjoint(np.eye(4), "dct", 2, 0, None, None), m.T))
    True

    An orthogonal transform's (``norm="ortho"``) is its inverse. Otherwise, with ``M_t``
    the matrix of type ``t``: ``M_2.T = M_3 @ diag(w)`` (``w``: 2 at the constant term
    of a cosine, the last of a sine, else 1), so ``M_3.T = diag(1 / w) @ M_2``; types 4
    and DST-I are symmetric; DCT-I is ``diag(v) @ M_1 @ diag(1 / v)`` (``v``: 1 at both
    ends, else 2). An inverse transform's adjoint is the inverse of the transposed."""
    import scipy.fft
    if isinstance(axis, tuple):  # (dctn: the transform along each axis, which commute)
        for one in axis:
            g = trig_adjoint(g, kind, type, one, norm, orthogonalize)
        return g
    if orthogonalize and norm != "ortho":
        from ..errors import NoDerivativeError
        raise NoDerivativeError(f"scipy.fft.{kind} is differentiated with orthogonalize=True "
                                f"only with norm='ortho', not norm={norm!r}")
    run = getattr(scipy.fft, kind)
    if norm == "ortho" and orthogonalize is not False:
        return getattr(scipy.fft, _INVERSE[kind])(g, type, axis=axis, norm=norm)
    xp = array_module(g)
    shape = [1] * len(_shape(g))
    n = _shape(g)[axis]
    shape[axis % len(shape)] = n
    sine = kind in ("dst", "idst")
    weights = np.ones(n)
    if type == 1 and not sine:
        weights[1:-1] = 2.0
        weights = xp.asarray(weights.reshape(shape))
        return weights * run(g / weights, 1, axis=axis, norm=norm,
                             orthogonalize=orthogonalize)
    if type not in (2, 3):
        return run(g, type, axis=axis, norm=norm, orthogonalize=orthogonalize)
    weights[-1 if sine else 0] = 2.0
    weights = xp.asarray(weights.reshape(shape))
    if (type == 2) == (kind in ("dct", "dst")):  # (M_2.T and the inverse of M_3.T)
        return run(g * weights, 5 - type, axis=axis, norm=norm, orthogonalize=orthogonalize)
    return run(g, 5 - type, axis=axis, norm=norm, orthogonalize=orthogonalize) / weights


def trig_transform(a, kind: str, type: int, axis: int, norm, orthogonalize):
    """``scipy.fft.<kind>(a, type, axis=axis, norm=norm)``: the adjoint of
    :func:`trig_adjoint` (a second derivative's).

    >>> bool(np.allclose(trig_transform(np.eye(3), "dst", 1, 0, None, None),
    ...                  trig_adjoint(np.eye(3), "dst", 1, 0, None, None).T))
    True
    """
    import scipy.fft
    if isinstance(axis, tuple):  # (along each of the axes of dctn, in turn)
        for one in axis:
            a = trig_transform(a, kind, type, one, norm, orthogonalize)
        return a
    return getattr(scipy.fft, kind)(a, type, axis=axis, norm=norm, orthogonalize=orthogonalize)
