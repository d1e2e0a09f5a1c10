"""Derivative rules for ``scipy.signal``'s convolutions (loaded only where SciPy imports).

A convolution is linear in each input: its tangent is the same call with that input's
tangent. Its adjoint is written as a person writes it: ``g`` padded with zeros back to the
``"full"`` result's shape (the part ``"same"`` or ``"valid"`` cut), then correlated with
the other input (``"valid"``: one value per entry of the input). A correlation's adjoint
is a convolution, and its second input's is the correlation flipped. Each adjoint calls
functions of this table, so derivatives compose to any order.

``scipy.ndimage`` is not modeled: its calls on differentiated values are refused at
their line. ``convolve2d``'s boundaries other than ``"fill"`` with ``fillvalue=0``, and
``fftconvolve``'s and ``oaconvolve``'s ``axes``, are refused too (forward mode takes
every boundary).

>>> import numpy as np
>>> from s2sad import registry
>>> g = np.array([1.0, 0.0, 0.0])  # the first entry of the full result: in1[0] in2[0]
>>> registry.lookup(signal.convolve).adjoint(g, None, np.ones(2), np.array([3.0, 4.0]))[:2]
(array([3., 0.]), array([1., 0.]))
"""

import numpy as np
from scipy import signal

from ..registry import defcomplex, defresult, deftangent, deflinear, defvjp, refuse_values
from ..runtime import full_widths


@defvjp(signal.convolve, shape="other")
def convolve(g, ans, in1, in2, mode="full", method="auto"):
    full = np.pad(g, full_widths(g, in1, in2))
    return (signal.correlate(full, in2, "valid", method),
            signal.correlate(full, in1, "valid", method), None, None)


@defvjp(signal.correlate, shape="other")
def correlate(g, ans, in1, in2, mode="full", method="auto"):
    full = np.pad(g, full_widths(g, in1, in2))
    return (signal.convolve(full, in2, "valid", method),
            np.flip(signal.correlate(full, in1, "valid", method)), None, None)


# (an empty input makes SciPy's FFT convolutions return an empty array, and convolve2d a
# "full" result of zeros: the other input has no part in it, so both derivatives are 0)


@defvjp(signal.fftconvolve, shape="other")
def fftconvolve(g, ans, in1, in2, mode="full", axes=None):
    full = np.pad(g, full_widths(g, in1, in2, False, "fill", 0, axes))
    return (signal.fftconvolve(full, np.flip(in2), "valid") if np.size(in1) * np.size(in2)
            else np.zeros_like(in1, dtype=float),
            signal.fftconvolve(full, np.flip(in1), "valid") if np.size(in1) * np.size(in2)
            else np.zeros_like(in2, dtype=float), None, None)


@defvjp(signal.oaconvolve, shape="other")
def oaconvolve(g, ans, in1, in2, mode="full", axes=None):
    full = np.pad(g, full_widths(g, in1, in2, False, "fill", 0, axes))
    return (signal.oaconvolve(full, np.flip(in2), "valid") if np.size(in1) * np.size(in2)
            else np.zeros_like(in1, dtype=float),
            signal.oaconvolve(full, np.flip(in1), "valid") if np.size(in1) * np.size(in2)
            else np.zeros_like(in2, dtype=float), None, None)


deflinear(signal.convolve, signal.correlate, signal.fftconvolve, signal.oaconvolve,
          argnums=(0, 1))


@defvjp(signal.convolve2d, shape="other")
def convolve2d(g, ans, in1, in2, mode="full", boundary="fill", fillvalue=0):
    full = np.pad(g, full_widths(g, in1, in2, False, boundary, fillvalue))
    return (signal.correlate2d(full, in2, "valid") if np.size(in1) * np.size(in2) else
            np.zeros_like(in1, dtype=np.result_type(in1, in2, g)),
            signal.correlate2d(full, in1, "valid") if np.size(in1) * np.size(in2) else
            np.zeros_like(in2, dtype=np.result_type(in1, in2, g)), None, None, None)


@defvjp(signal.correlate2d, shape="other")
def correlate2d(g, ans, in1, in2, mode="full", boundary="fill", fillvalue=0):
    # (its "same" result starts one entry later than convolve2d's, for an even in2)
    full = np.pad(g, full_widths(g, in1, in2, True, boundary, fillvalue))
    return (signal.convolve2d(full, in2, "valid") if np.size(in1) * np.size(in2) else
            np.zeros_like(in1, dtype=np.result_type(in1, in2, g)),
            np.flip(signal.correlate2d(full, in1, "valid")) if np.size(in1) * np.size(in2)
            else np.zeros_like(in2, dtype=np.result_type(in1, in2, g)), None, None, None)


@deftangent(signal.convolve2d)
def convolve2d_tangent(g, ans, in1, in2, mode="full", boundary="fill", fillvalue=0):
    # in1's tangent padded as in1 is, with zeros for the fill value (a constant)
    return (signal.convolve2d(g, in2, mode, boundary),
            signal.convolve2d(in1, g, mode, boundary, fillvalue), None, None, None)


@deftangent(signal.correlate2d)
def correlate2d_tangent(g, ans, in1, in2, mode="full", boundary="fill", fillvalue=0):
    return (signal.correlate2d(g, in2, mode, boundary),
            signal.correlate2d(in1, g, mode, boundary, fillvalue), None, None, None)


# --- complex values: the adjoint of a linear map is its transpose, with no conjugate
# (autograd's convention, see rules/complex.py), but SciPy's correlations conjugate their
# second input: the real rules' correlations take conj() of it back; a correlation is
# antilinear in in2, whose sensitivity is the conjugate of the transpose's


@defcomplex(signal.convolve, shape="other")
def convolve_complex(g, ans, in1, in2, mode="full", method="auto"):
    full = np.pad(g, full_widths(g, in1, in2))
    return (signal.correlate(full, np.conj(in2), "valid", method),
            signal.correlate(full, np.conj(in1), "valid", method), None, None)


@defcomplex(signal.correlate, shape="other")
def correlate_complex(g, ans, in1, in2, mode="full", method="auto"):
    full = np.pad(g, full_widths(g, in1, in2))
    return (signal.convolve(full, np.conj(in2), "valid", method),
            np.flip(signal.correlate(np.conj(full), in1, "valid", method)), None, None)


@defcomplex(signal.convolve2d, shape="other")
def convolve2d_complex(g, ans, in1, in2, mode="full", boundary="fill", fillvalue=0):
    full = np.pad(g, full_widths(g, in1, in2, False, boundary, fillvalue))
    return (signal.correlate2d(full, np.conj(in2), "valid") if np.size(in1) * np.size(in2) else
            np.zeros_like(in1, dtype=np.result_type(in1, in2, g)),
            signal.correlate2d(full, np.conj(in1), "valid") if np.size(in1) * np.size(in2) else
            np.zeros_like(in2, dtype=np.result_type(in1, in2, g)), None, None, None)


@defcomplex(signal.correlate2d, shape="other")
def correlate2d_complex(g, ans, in1, in2, mode="full", boundary="fill", fillvalue=0):
    full = np.pad(g, full_widths(g, in1, in2, True, boundary, fillvalue))
    return (signal.convolve2d(full, np.conj(in2), "valid") if np.size(in1) * np.size(in2) else
            np.zeros_like(in1, dtype=np.result_type(in1, in2, g)),
            np.flip(signal.correlate2d(np.conj(full), in1, "valid"))
            if np.size(in1) * np.size(in2)
            else np.zeros_like(in2, dtype=np.result_type(in1, in2, g)), None, None, None)


_BOUNDARY_ADVICE = ("s2sad differentiates the zero padding only; pad the input yourself "
                    "(np.pad(x, k - 1, mode='wrap'), 'symmetric', or constant_values=c) and "
                    "convolve that with mode='valid'.")
refuse_values(signal.convolve2d, "boundary", ("fill",), _BOUNDARY_ADVICE)
refuse_values(signal.convolve2d, "fillvalue", (0,), _BOUNDARY_ADVICE)
refuse_values(signal.correlate2d, "boundary", ("fill",), _BOUNDARY_ADVICE)
refuse_values(signal.correlate2d, "fillvalue", (0,), _BOUNDARY_ADVICE)
_AXES_ADVICE = ("s2sad differentiates the convolution along all axes; for some axes only, "
                "give the kernel length 1 along the others (k[np.newaxis, :]), or "
                "convolve each slice.")
refuse_values(signal.fftconvolve, "axes", (None,), _AXES_ADVICE)
refuse_values(signal.oaconvolve, "axes", (None,), _AXES_ADVICE)

# the dtype of their result: their inputs' (the FFT ones: floats)
defresult(signal.convolve, signal.correlate, signal.convolve2d, signal.correlate2d,
          follows=(("in1", 0), ("in2", 1)))
defresult(signal.fftconvolve, signal.oaconvolve, kind="f")
