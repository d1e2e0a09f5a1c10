"""np.fft and scipy.fft: each transform's gradient against central differences along the
real and imaginary parts of its input, forward mode against them too, second order by
``check_grads``, every form of ``n``, ``axis``, ``s``, ``axes`` and ``norm``, dtypes, and a
complex output refused."""

import numpy as np
import pytest

import s2sad
from test_complex import complex_gradient

rng = np.random.default_rng(34)
Z = rng.normal(size=6) + 1j * rng.normal(size=6)
X = rng.normal(size=6)
Z2 = rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))
X2 = rng.normal(size=(3, 4))
W = rng.normal(size=6) + 1j * rng.normal(size=6)


def fft(z):
    return np.sum(np.abs(np.fft.fft(z) * W) ** 2)


def fft_padded(z):
    return np.sum(np.abs(np.fft.fft(z, 8, norm="ortho")) ** 3)


def fft_cropped(z):
    return np.sum(np.abs(np.fft.fft(z, 4, norm="forward") - 1.0) ** 2)


def fft_batched(z):
    return np.sum(np.abs(np.fft.fft(z, axis=0)) ** 3)


def ifft(z):
    return np.sum(np.abs(np.fft.ifft(z * W, 5)) ** 3)


def rfft(x):
    return np.sum(np.abs(np.fft.rfft(x) * (1.0 + 2.0j)) ** 3)


def rfft_padded(x):
    return np.sum(np.abs(np.fft.rfft(x, 9, norm="ortho")) ** 3)


def rfft_cropped(x):
    return np.sum(np.abs(np.fft.rfft(x, 3)) ** 3)


def irfft(z):
    return np.sum(np.fft.irfft(z) ** 3 * np.arange(10.0))


def irfft_odd(z):
    return np.sum(np.fft.irfft(z, 7, norm="ortho") ** 3)


def irfft_padded(z):
    return np.sum(np.fft.irfft(z, 15, axis=-1) ** 3)


def hfft(z):
    return np.sum(np.fft.hfft(z, norm="forward") ** 3)


def ihfft(x):
    return np.sum(np.abs(np.fft.ihfft(x, 5) + 1.0j) ** 3)


def fft2(z):
    return np.sum(np.abs(np.fft.fft2(z, (4, 3))) ** 3)


def ifft2(z):
    return np.sum(np.abs(np.fft.ifft2(z, axes=(0, 1), norm="ortho")) ** 3)


def fftn(z):
    return np.sum(np.abs(np.fft.fftn(z, axes=(0,))) ** 3)


def ifftn(z):
    return np.sum(np.abs(np.fft.ifftn(z, s=(5, 2), axes=(0, 1))) ** 3)


def rfft2(x):
    return np.sum(np.abs(np.fft.rfft2(x)) ** 3)


def rfftn(x):
    return np.sum(np.abs(np.fft.rfftn(x, s=(4, 6), axes=(0, 1))) ** 3)


def irfft2(z):
    return np.sum(np.fft.irfft2(z) ** 3)


def irfftn(z):
    return np.sum(np.fft.irfftn(z, s=(2, 5), axes=(1, 0)) ** 3)


def fftshift(z):
    return np.sum(np.abs(np.fft.fftshift(z) * W) ** 2 + np.abs(np.fft.ifftshift(z * W)) ** 3)


def fftshift_axes(z):
    return np.sum(np.abs(np.fft.fftshift(z, axes=0) * np.arange(4.0)) ** 2)


def fftfreq(d):
    return np.sum(np.fft.fftfreq(6, d) * X) + np.sum(np.fft.rfftfreq(6, d) ** 2)


def low_pass(x):
    spectrum = np.fft.rfft(x) * np.exp(-np.fft.rfftfreq(6) ** 2 * 10.0)
    return np.sum(np.fft.irfft(spectrum, 6) ** 2)


TABLE = [
    (fft, Z), (fft, X), (fft_padded, Z), (fft_cropped, Z), (fft_batched, Z2), (ifft, Z),
    (rfft, X), (rfft_padded, X), (rfft_cropped, X), (irfft, Z), (irfft, X), (irfft_odd, Z),
    (irfft_padded, Z), (hfft, Z), (ihfft, X), (fft2, Z2), (ifft2, Z2), (fftn, Z2),
    (ifftn, Z2), (rfft2, X2), (rfftn, X2), (irfft2, Z2), (irfftn, Z2), (fftshift, Z),
    (fftshift_axes, Z2), (fftfreq, 0.3), (low_pass, X),
]


def _ids(table):
    return [f"{f.__name__}-{'complex' if np.iscomplexobj(a) else 'real'}" for f, a in table]


@pytest.mark.parametrize("f, arg", TABLE, ids=_ids(TABLE))
def test_gradient_against_central_differences(f, arg):
    got = s2sad.grad(f)(arg)
    assert np.shape(got) == np.shape(arg) and np.iscomplexobj(got) == np.iscomplexobj(arg)
    np.testing.assert_allclose(got, complex_gradient(f, (arg,), 0), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f, arg", TABLE, ids=_ids(TABLE))
def test_check_grads_to_second_order_along_real_and_imaginary_directions(f, arg):
    s2sad.check_grads(f, (arg,), order=2)


@pytest.mark.parametrize("f, arg", TABLE, ids=_ids(TABLE))
def test_forward_mode_against_reverse(f, arg):
    direction = np.cos(np.arange(np.size(arg)) + 0.5).reshape(np.shape(arg))
    if np.iscomplexobj(arg):
        direction = direction + 1j * np.sin(np.arange(np.size(arg)) + 0.5).reshape(np.shape(arg))
    _, push = s2sad.jvp(f)(arg)
    # <grad, v> in autograd's convention: Re(sum(grad * v))
    assert np.isclose(push(direction), np.real(np.sum(s2sad.grad(f)(arg) * direction)),
                      rtol=1e-9, atol=1e-9)


def test_float32_and_complex64_are_kept():
    assert s2sad.grad(rfft)(X.astype(np.float32)).dtype == np.float32
    assert s2sad.grad(fft)(Z.astype(np.complex64)).dtype == np.complex64


def test_the_adjoint_of_a_transform_is_a_transform():
    text = s2sad.grad(fft).source_for(Z)
    assert "np.fft.fft(" in text


def spectrum(x):
    return np.sum(np.fft.fft(x))  # <- here


def test_a_complex_spectrum_as_the_output_is_refused_at_its_line():
    with pytest.raises(s2sad.NonScalarOutputError) as info:
        s2sad.grad(spectrum)(X)
    assert info.value.lineno == spectrum.__code__.co_firstlineno + 1
    assert "complex number" in str(info.value) and "np.abs" in str(info.value)


def test_holomorphic_gradient_of_a_spectrum():
    # sum(fft(z)) = n z[0]: its complex derivative is n at entry 0
    got = s2sad.grad(spectrum, holomorphic=True)(Z)
    np.testing.assert_allclose(got, np.eye(6)[0] * 6.0, atol=1e-12)


# --- scipy.fft -------------------------------------------------------------------------------

sfft = pytest.importorskip("scipy.fft")


def scipy_transforms(z):
    return np.sum(np.abs(sfft.fft(z, 8, norm="ortho")) ** 3) + \
        np.sum(sfft.irfft(z, 9) ** 2) + np.sum(np.abs(sfft.fftshift(sfft.ifft(z))) ** 3) + \
        np.sum(sfft.hfft(z) ** 2) * 0.01


def scipy_real(x):
    return np.sum(np.abs(sfft.rfft2(x, axes=(1, 0))) ** 3) + \
        np.sum(np.abs(sfft.ihfft(x[0])) ** 2) + np.sum(np.abs(sfft.rfftn(x)) ** 2)


def scipy_nd(z):
    return np.sum(np.abs(sfft.fftn(z, s=(4, 3), axes=(0, 1), workers=1)) ** 3) + \
        np.sum(sfft.irfftn(z, s=(3, 4), axes=(0, 1)) ** 2) + \
        np.sum(np.abs(sfft.ifft2(z, norm="forward")) ** 2) * 0.01


def scipy_trig(x):  # (session 36: dct, dst, idct, idst)
    return np.sum(sfft.dct(x, 1, axis=0) ** 2) + \
        np.sum(sfft.idct(x, 3, 5, axis=1, norm="ortho") ** 3) + \
        np.sum(sfft.dst(x[0], 4) * sfft.idst(x[1], 2, norm="forward"))


def scipy_trig_nd(x):  # (session 37: dctn, dstn, idctn, idstn)
    return np.sum(sfft.dctn(x, 2, norm="ortho") ** 2) + \
        np.sum(sfft.idctn(x, 3, s=(5, 2), axes=(0, 1)) ** 3) + \
        np.sum(sfft.dstn(x, 1, axes=[1]) * sfft.idstn(x, 4, norm="forward"))


def scipy_trig_n(x):  # (session 37: the other types, norms and axes)
    return np.sum(sfft.dctn(x, 1, axes=(0, 1)) ** 2) + \
        np.sum(sfft.idctn(x, 3, s=(4, 5), norm="ortho") ** 3) + \
        np.sum(sfft.dstn(x, 4, axes=1) * sfft.idstn(x, 2, axes=(1, 0), norm="forward"))


@pytest.mark.parametrize("f, arg", [(scipy_transforms, Z), (scipy_real, X2), (scipy_nd, Z2),
                                    (scipy_trig, X2), (scipy_trig_nd, X2), (scipy_trig_n, X2)],
                         ids=["1-d", "real", "n-d", "trigonometric", "trigonometric-n-d",
                              "trigonometric-n"])
def test_scipy_fft(f, arg):
    np.testing.assert_allclose(s2sad.grad(f)(arg), complex_gradient(f, (arg,), 0), rtol=1e-6,
                               atol=1e-6)
    s2sad.check_grads(f, (arg,), order=2)


def test_scipy_fft_is_named_by_its_public_module():
    assert "scipy.fft.fft" in s2sad.supported() and "scipy.fft.irfftn" in s2sad.supported()
