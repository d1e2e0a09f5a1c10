"""Derivative rules for ``scipy.fft``: ``np.fft``'s transforms with SciPy's extra arguments
(``overwrite_x``, ``workers``, ``plan``), each adjoint written with ``np.fft`` (see
``fft.py``). Loaded once ``scipy.fft`` is imported (``s2sad.rules``).

>>> import numpy as np, scipy.fft
>>> from s2sad import registry
>>> registry.lookup(scipy.fft.fft).adjoint(np.array([1.0, 0.0]), None, np.zeros(2))
array([1.+0.j, 1.+0.j])
"""

import numpy as np
import scipy.fft as sfft

from ..registry import deffacts, deflinear, defresult, deftangent, defvjp, refuse_values
from ..runtime import (axis_tuple, fft_axes, fft_sizes, fit_axes, half_sizes, hermitian_weights,
                       lengths, swapped_norm, trig_adjoint, trig_transform)


@defvjp(sfft.fft, shape="other")
def scipy_fft(g, ans, x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *,
              plan=None):
    return fit_axes(np.fft.fft(g, None, axis, norm), lengths(x, axis_tuple(axis)),
                    axis_tuple(axis))

@defvjp(sfft.ifft, shape="other")
def scipy_ifft(g, ans, x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *,
               plan=None):
    return fit_axes(np.fft.ifft(g, None, axis, norm), lengths(x, axis_tuple(axis)),
                    axis_tuple(axis))

@defvjp(sfft.fftn, shape="other")
def scipy_fftn(g, ans, x, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
               *, plan=None):
    ax = fft_axes(x, s, axes)
    return fit_axes(np.fft.fftn(g, None, ax, norm), lengths(x, ax), ax)

@defvjp(sfft.fft2, shape="other")
def scipy_fft2(g, ans, x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None,
               *, plan=None):
    ax = fft_axes(x, s, axes)
    return fit_axes(np.fft.fftn(g, None, ax, norm), lengths(x, ax), ax)

@defvjp(sfft.ifftn, shape="other")
def scipy_ifftn(g, ans, x, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
                *, plan=None):
    ax = fft_axes(x, s, axes)
    return fit_axes(np.fft.ifftn(g, None, ax, norm), lengths(x, ax), ax)

@defvjp(sfft.ifft2, shape="other")
def scipy_ifft2(g, ans, x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None,
                *, plan=None):
    ax = fft_axes(x, s, axes)
    return fit_axes(np.fft.ifftn(g, None, ax, norm), lengths(x, ax), ax)

@defvjp(sfft.rfft, shape="other")
def scipy_rfft(g, ans, x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *,
               plan=None):
    ax = axis_tuple(axis)
    return np.real(fit_axes(np.fft.fft(fit_axes(g, fft_sizes(x, n, ax), ax), None, axis,
                                       norm), lengths(x, ax), ax))

@defvjp(sfft.rfftn, shape="other")
def scipy_rfftn(g, ans, x, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
                *, plan=None):
    ax = fft_axes(x, s, axes)
    return np.real(fit_axes(np.fft.fftn(fit_axes(g, fft_sizes(x, s, ax), ax), None, ax,
                                        norm), lengths(x, ax), ax))

@defvjp(sfft.rfft2, shape="other")
def scipy_rfft2(g, ans, x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None,
                *, plan=None):
    ax = fft_axes(x, s, axes)
    return np.real(fit_axes(np.fft.fftn(fit_axes(g, fft_sizes(x, s, ax), ax), None, ax,
                                        norm), lengths(x, ax), ax))

@defvjp(sfft.ihfft, shape="other")
def scipy_ihfft(g, ans, x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *,
                plan=None):
    ax = axis_tuple(axis)
    return np.real(fit_axes(np.fft.fft(fit_axes(np.conj(g), fft_sizes(x, n, ax), ax), None,
                                       axis, swapped_norm(norm)), lengths(x, ax), ax))

@defvjp(sfft.irfft, shape="other")
def scipy_irfft(g, ans, x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *,
                plan=None):
    ax = axis_tuple(axis)
    return fit_axes(fit_axes(np.fft.ifft(np.real(g), None, axis, norm),
                             half_sizes(lengths(ans, ax)), ax) *
                    hermitian_weights(ans, lengths(ans, ax)[-1], axis), lengths(x, ax), ax)

@defvjp(sfft.irfftn, shape="other")
def scipy_irfftn(g, ans, x, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
                 *, plan=None):
    ax = fft_axes(x, s, axes)
    return fit_axes(fit_axes(np.fft.ifftn(np.real(g), None, ax, norm),
                             half_sizes(lengths(ans, ax)), ax) *
                    hermitian_weights(ans, lengths(ans, ax)[-1], ax[-1]), lengths(x, ax),
                    ax)

@defvjp(sfft.irfft2, shape="other")
def scipy_irfft2(g, ans, x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None,
                 *, plan=None):
    ax = fft_axes(x, s, axes)
    return fit_axes(fit_axes(np.fft.ifftn(np.real(g), None, ax, norm),
                             half_sizes(lengths(ans, ax)), ax) *
                    hermitian_weights(ans, lengths(ans, ax)[-1], ax[-1]), lengths(x, ax),
                    ax)

@defvjp(sfft.hfft, shape="other")
def scipy_hfft(g, ans, x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *,
               plan=None):
    ax = axis_tuple(axis)
    return np.conj(fit_axes(fit_axes(np.fft.ifft(np.real(g), None, axis,
                                                 swapped_norm(norm)),
                                     half_sizes(lengths(ans, ax)), ax) *
                            hermitian_weights(ans, lengths(ans, ax)[-1], axis),
                            lengths(x, ax), ax))

@defvjp(sfft.fftshift, shape="other")
def scipy_fftshift(g, ans, x, axes=None):
    return np.fft.ifftshift(g, axes)

@defvjp(sfft.ifftshift, shape="other")
def scipy_ifftshift(g, ans, x, axes=None):
    return np.fft.fftshift(g, axes)

@defvjp(sfft.fftfreq, sfft.rfftfreq, shape="other")
def scipy_fftfreq(g, ans, n, d=1.0, *, xp=None, device=None):
    return None, -np.sum(g * ans) / d

@deftangent(sfft.fftfreq, sfft.rfftfreq)
def scipy_fftfreq_tangent(g, ans, n, d=1.0, *, xp=None, device=None):
    return None, -g * ans / d

_SCIPY = (sfft.fft, sfft.ifft, sfft.fftn, sfft.fft2, sfft.ifftn, sfft.ifft2, sfft.rfft,
          sfft.rfftn, sfft.rfft2, sfft.ihfft, sfft.irfft, sfft.irfftn, sfft.irfft2,
          sfft.hfft)
deflinear(*_SCIPY, sfft.fftshift, sfft.ifftshift, argnums=(0,))
deffacts(*_SCIPY, complex=True)
defresult(*_SCIPY, sfft.fftfreq, sfft.rfftfreq, kind="f")
defresult(sfft.fftshift, sfft.ifftshift, follows=[("x", 0)])


# --- the real trigonometric transforms: linear, their matrices real ------------------------

@defvjp(sfft.dct, shape="other")
def scipy_dct(g, ans, x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
              orthogonalize=None):
    return fit_axes(trig_adjoint(g, "dct", type, axis, norm, orthogonalize),
                    lengths(x, axis_tuple(axis)), axis_tuple(axis))

@defvjp(sfft.idct, shape="other")
def scipy_idct(g, ans, x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
               orthogonalize=None):
    return fit_axes(trig_adjoint(g, "idct", type, axis, norm, orthogonalize),
                    lengths(x, axis_tuple(axis)), axis_tuple(axis))

@defvjp(sfft.dst, shape="other")
def scipy_dst(g, ans, x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
              orthogonalize=None):
    return fit_axes(trig_adjoint(g, "dst", type, axis, norm, orthogonalize),
                    lengths(x, axis_tuple(axis)), axis_tuple(axis))

@defvjp(sfft.idst, shape="other")
def scipy_idst(g, ans, x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
               orthogonalize=None):
    return fit_axes(trig_adjoint(g, "idst", type, axis, norm, orthogonalize),
                    lengths(x, axis_tuple(axis)), axis_tuple(axis))

@defvjp(sfft.dctn, shape="other")
def scipy_dctn(g, ans, x, type=2, s=None, axes=None, norm=None, overwrite_x=False,
               workers=None, *, orthogonalize=None):
    ax = fft_axes(x, s, axes)
    return fit_axes(trig_adjoint(g, "dct", type, ax, norm, orthogonalize), lengths(x, ax), ax)

@defvjp(sfft.idctn, shape="other")
def scipy_idctn(g, ans, x, type=2, s=None, axes=None, norm=None, overwrite_x=False,
                workers=None, orthogonalize=None):
    ax = fft_axes(x, s, axes)
    return fit_axes(trig_adjoint(g, "idct", type, ax, norm, orthogonalize), lengths(x, ax), ax)

@defvjp(sfft.dstn, shape="other")
def scipy_dstn(g, ans, x, type=2, s=None, axes=None, norm=None, overwrite_x=False,
               workers=None, orthogonalize=None):
    ax = fft_axes(x, s, axes)
    return fit_axes(trig_adjoint(g, "dst", type, ax, norm, orthogonalize), lengths(x, ax), ax)

@defvjp(sfft.idstn, shape="other")
def scipy_idstn(g, ans, x, type=2, s=None, axes=None, norm=None, overwrite_x=False,
                workers=None, orthogonalize=None):
    ax = fft_axes(x, s, axes)
    return fit_axes(trig_adjoint(g, "idst", type, ax, norm, orthogonalize), lengths(x, ax), ax)

_TRIG = (sfft.dct, sfft.idct, sfft.dst, sfft.idst, sfft.dctn, sfft.idctn, sfft.dstn,
         sfft.idstn)
deflinear(*_TRIG, argnums=(0,))
defresult(*_TRIG, kind="f")
for _transform in _TRIG:
    refuse_values(_transform, "type", (1, 2, 3, 4), "Use type 1, 2, 3 or 4 (SciPy's types).")
    refuse_values(_transform, "orthogonalize", (None, False),
                  "Leave orthogonalize out: norm='ortho' orthogonalizes by default; "
                  "with another norm, s2sad has no rule for it.")


# (the helpers, each the other's adjoint: the second derivative of a transform)
@defvjp(trig_adjoint, shape="other")
def trig_adjoint_vjp(g, ans, a, kind, type, axis, norm, orthogonalize):
    return trig_transform(g, kind, type, axis, norm, orthogonalize)

@defvjp(trig_transform, shape="other")
def trig_transform_vjp(g, ans, a, kind, type, axis, norm, orthogonalize):
    return trig_adjoint(g, kind, type, axis, norm, orthogonalize)

deflinear(trig_adjoint, trig_transform, argnums=(0,))
defresult(trig_adjoint, trig_transform, kind="f")
