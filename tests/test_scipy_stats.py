"""scipy.stats: each distribution's density, distribution function and their logarithms,
differentiated in ``x``, ``loc``, ``scale`` and the shape parameters, against central
differences, forward mode against reverse, second derivatives against differences of the
gradient; frozen distributions; the support's boundaries; the refusals at the user's line
(skipped where SciPy is missing)."""

import inspect

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

import s2sad  # noqa: E402
from test_higher_order import central_differences  # noqa: E402

EPS = 1e-6
rng = np.random.default_rng(34)
W = np.array([[1.0, -2.0, 0.5], [0.3, 1.5, -1.0]])  # weights: not a symmetric loss
LOC = np.array([[0.05], [-0.05]])                    # broadcast against x: (2, 3) results
SCALE = 1.1

# each family: its points x (inside the support for every loc), its shape parameters
REAL = np.array([-0.4, 0.3, 1.2])
POSITIVE = np.array([0.5, 1.3, 2.8])
UNIT = np.array([0.2, 0.45, 0.7])    # (x - loc) / scale in (0, 1)
FAMILIES = {
    "norm": (REAL, ()), "t": (REAL, (4.5,)), "chi2": (POSITIVE, (3.5,)),
    "gamma": (POSITIVE, (2.5,)), "beta": (UNIT, (2.5, 1.7)), "expon": (POSITIVE, ()),
    "laplace": (REAL, ()), "logistic": (REAL, ()), "cauchy": (REAL, ()),
    "lognorm": (POSITIVE, (0.7,)), "uniform": (UNIT, ()),
}
METHODS = ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")
# the shapes of distribution functions with no derivative in closed form: refused
NOT_CLOSED = {"t", "chi2", "gamma", "beta"}


def _function(method, shapes: int):
    """``f(x, *shapes, loc, scale)``: a weighted sum of ``method(x, *shapes, loc, scale)``."""
    if shapes == 0:
        def f(x, loc, scale):
            return np.sum(method(x, loc, scale) * W)
    elif shapes == 1:
        def f(x, a, loc, scale):
            return np.sum(method(x, a, loc, scale) * W)
    else:
        def f(x, a, b, loc, scale):
            return np.sum(method(x, a, b, loc, scale) * W)
    return f


def _cases():
    for name, (x, shapes) in FAMILIES.items():
        for method in METHODS:
            args = (x,) + shapes + (LOC, SCALE)
            wrt = tuple(i for i in range(len(args)) if not (
                0 < i <= len(shapes) and name in NOT_CLOSED and "pdf" not in method))
            yield pytest.param(_function(getattr(getattr(stats, name), method), len(shapes)),
                               args, wrt, id=f"{name}-{method}")


TABLE = list(_cases())


@pytest.mark.parametrize("f, args, wrt", TABLE)
def test_gradient_against_central_differences(f, args, wrt):
    found = s2sad.grad(f, wrt=wrt)(*args)
    for i, gradient in zip(wrt, found):
        np.testing.assert_allclose(gradient, central_differences(f, args, i, EPS),
                                   rtol=1e-6, atol=1e-7, err_msg=f"argument {i}")


@pytest.mark.parametrize("f, args, wrt", TABLE)
def test_forward_mode_against_reverse(f, args, wrt):
    tangents = tuple(rng.normal(size=np.shape(args[i])) for i in wrt)
    tangents = tuple(t if np.ndim(t) else float(t) for t in tangents)
    value, push = s2sad.jvp(f, wrt=wrt)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    gradients = s2sad.grad(f, wrt=wrt)(*args)
    np.testing.assert_allclose(push(*tangents), sum(np.sum(g * t) for g, t in
                                                    zip(gradients, tangents)),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("f, args, wrt", TABLE)
def test_second_derivative_against_differences_of_the_gradient(f, args, wrt):
    for i in (wrt[0], wrt[-1]) if len(wrt) < 4 else (wrt[0], wrt[1], wrt[-1]):
        gradient = s2sad.grad(f, wrt=i)
        expected = central_differences(gradient, args, i, EPS)
        np.testing.assert_allclose(s2sad.hessian(f, wrt=i)(*args), expected, rtol=1e-5,
                                   atol=1e-6, err_msg=f"argument {i}")
