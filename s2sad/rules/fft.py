"""Derivative rules for ``np.fft`` (``scipy.fft``'s, the same with SciPy's extra arguments, are
in ``scipy_fft.py``).

Every transform is linear, so its tangent is the same call on the tangent. Under
autograd's convention (see ``complex.py``) the adjoint of a linear map is its matrix
transposed, not conjugated: the DFT matrix is symmetric, so the adjoint of ``fft`` is
``fft`` of the sensitivity, cropped or zero-padded back to the input's length (``n``,
``s``). ``rfft`` is ``fft`` keeping the first ``n // 2 + 1`` entries of a real input;
``irfft`` reads those entries and their conjugates, weighted 1 or 2
(``hermitian_weights``); ``hfft``/``ihfft`` are ``irfft``/``rfft`` of conjugates, with
the normalization's direction swapped. ``fftshift`` and ``ifftshift`` are each other's
adjoint; ``fftfreq(n, d)`` is ``k / (n d)``.

>>> import numpy as np
>>> from s2sad import registry
>>> g = np.array([1.0, 0.0, 0.0, 0.0])
>>> registry.lookup(np.fft.fft).adjoint(g, None, np.zeros(4))
array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
"""

import numpy as np

from ..registry import deffacts, deflinear, defresult, deftangent, defvjp, nondifferentiable
from ..runtime import (axis_tuple, fft_axes, fft_sizes, fit_axes, half_sizes, hermitian_weights,
                       lengths, swapped_norm)

# --- complex input ------------------------------------------------------------------------


@defvjp(np.fft.fft, shape="other")
def fft(g, ans, a, n=None, axis=-1, norm=None, out=None):
    return fit_axes(np.fft.fft(g, None, axis, norm), lengths(a, axis_tuple(axis)),
                    axis_tuple(axis))


@defvjp(np.fft.ifft, shape="other")
def ifft(g, ans, a, n=None, axis=-1, norm=None, out=None):
    return fit_axes(np.fft.ifft(g, None, axis, norm), lengths(a, axis_tuple(axis)),
                    axis_tuple(axis))


@defvjp(np.fft.fftn, shape="other")
def fftn(g, ans, a, s=None, axes=None, norm=None, out=None):
    ax = fft_axes(a, s, axes)
    return fit_axes(np.fft.fftn(g, None, ax, norm), lengths(a, ax), ax)


# (the 2-d transforms: fftn's rules with NumPy's default axes, the last two, not all)
@defvjp(np.fft.fft2, shape="other")
def fft2(g, ans, a, s=None, axes=(-2, -1), norm=None, out=None):
    ax = fft_axes(a, s, axes)
    return fit_axes(np.fft.fftn(g, None, ax, norm), lengths(a, ax), ax)


@defvjp(np.fft.ifftn, shape="other")
def ifftn(g, ans, a, s=None, axes=None, norm=None, out=None):
    ax = fft_axes(a, s, axes)
    return fit_axes(np.fft.ifftn(g, None, ax, norm), lengths(a, ax), ax)


@defvjp(np.fft.ifft2, shape="other")
def ifft2(g, ans, a, s=None, axes=(-2, -1), norm=None, out=None):
    ax = fft_axes(a, s, axes)
    return fit_axes(np.fft.ifftn(g, None, ax, norm), lengths(a, ax), ax)


# --- real input: the first n // 2 + 1 entries of fft ---------------------------------------


@defvjp(np.fft.rfft, shape="other")
def rfft(g, ans, a, n=None, axis=-1, norm=None, out=None):
    ax = axis_tuple(axis)
    return np.real(fit_axes(np.fft.fft(fit_axes(g, fft_sizes(a, n, ax), ax), None, axis, norm),
                            lengths(a, ax), ax))


@defvjp(np.fft.rfftn, shape="other")
def rfftn(g, ans, a, s=None, axes=None, norm=None, out=None):
    ax = fft_axes(a, s, axes)
    return np.real(fit_axes(np.fft.fftn(fit_axes(g, fft_sizes(a, s, ax), ax), None, ax, norm),
                            lengths(a, ax), ax))


@defvjp(np.fft.rfft2, shape="other")
def rfft2(g, ans, a, s=None, axes=(-2, -1), norm=None, out=None):
    ax = fft_axes(a, s, axes)
    return np.real(fit_axes(np.fft.fftn(fit_axes(g, fft_sizes(a, s, ax), ax), None, ax, norm),
                            lengths(a, ax), ax))


@defvjp(np.fft.ihfft, shape="other")
def ihfft(g, ans, a, n=None, axis=-1, norm=None, out=None):
    # conj(rfft(a)), normalized the other way
    ax = axis_tuple(axis)
    return np.real(fit_axes(np.fft.fft(fit_axes(np.conj(g), fft_sizes(a, n, ax), ax), None,
                                       axis, swapped_norm(norm)), lengths(a, ax), ax))


# --- real output: the half spectrum and its conjugates ------------------------------------


@defvjp(np.fft.irfft, shape="other")
def irfft(g, ans, a, n=None, axis=-1, norm=None, out=None):
    ax = axis_tuple(axis)
    return fit_axes(fit_axes(np.fft.ifft(np.real(g), None, axis, norm),
                             half_sizes(lengths(ans, ax)), ax) *
                    hermitian_weights(ans, lengths(ans, ax)[-1], axis), lengths(a, ax), ax)


@defvjp(np.fft.irfftn, shape="other")
def irfftn(g, ans, a, s=None, axes=None, norm=None, out=None):
    ax = fft_axes(a, s, axes)
    return fit_axes(fit_axes(np.fft.ifftn(np.real(g), None, ax, norm),
                             half_sizes(lengths(ans, ax)), ax) *
                    hermitian_weights(ans, lengths(ans, ax)[-1], ax[-1]), lengths(a, ax), ax)


@defvjp(np.fft.irfft2, shape="other")
def irfft2(g, ans, a, s=None, axes=(-2, -1), norm=None, out=None):
    ax = fft_axes(a, s, axes)
    return fit_axes(fit_axes(np.fft.ifftn(np.real(g), None, ax, norm),
                             half_sizes(lengths(ans, ax)), ax) *
                    hermitian_weights(ans, lengths(ans, ax)[-1], ax[-1]), lengths(a, ax), ax)


@defvjp(np.fft.hfft, shape="other")
def hfft(g, ans, a, n=None, axis=-1, norm=None, out=None):
    # irfft(conj(a)), normalized the other way
    ax = axis_tuple(axis)
    return np.conj(fit_axes(fit_axes(np.fft.ifft(np.real(g), None, axis, swapped_norm(norm)),
                                     half_sizes(lengths(ans, ax)), ax) *
                            hermitian_weights(ans, lengths(ans, ax)[-1], axis),
                            lengths(a, ax), ax))


# --- shifts and frequencies ----------------------------------------------------------------


@defvjp(np.fft.fftshift, shape="other")
def fftshift(g, ans, x, axes=None):
    return np.fft.ifftshift(g, axes)


@defvjp(np.fft.ifftshift, shape="other")
def ifftshift(g, ans, x, axes=None):
    return np.fft.fftshift(g, axes)


@defvjp(np.fft.fftfreq, np.fft.rfftfreq, shape="other")
def fftfreq(g, ans, n, d=1.0, device=None):
    # k / (n d): d's slope is -ans / d
    return None, -np.sum(g * ans) / d


@deftangent(np.fft.fftfreq, np.fft.rfftfreq)
def fftfreq_tangent(g, ans, n, d=1.0, device=None):
    return None, -g * ans / d


_NUMPY = (np.fft.fft, np.fft.ifft, np.fft.fftn, np.fft.fft2, np.fft.ifftn, np.fft.ifft2,
          np.fft.rfft, np.fft.rfftn, np.fft.rfft2, np.fft.ihfft, np.fft.irfft, np.fft.irfftn,
          np.fft.irfft2, np.fft.hfft)
deflinear(*_NUMPY, np.fft.fftshift, np.fft.ifftshift, argnums=(0,))
deffacts(*_NUMPY, complex=True)  # (a program calling one holds complex values)
defresult(*_NUMPY, np.fft.fftfreq, np.fft.rfftfreq, kind="f")
defresult(np.fft.fftshift, np.fft.ifftshift, follows=[("x", 0)])


# --- the helpers' own rules (second derivatives) -------------------------------------------


@defvjp(fit_axes, shape="other")
def fit_axes_adjoint(g, ans, a, lengths_, axes):
    return fit_axes(g, lengths(a, axes), axes)


deflinear(fit_axes, argnums=(0,))
nondifferentiable(lengths, fft_axes, fft_sizes, half_sizes, hermitian_weights, swapped_norm,
                  axis_tuple)
