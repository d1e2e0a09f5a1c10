"""The four checks a table of ``(f, args)`` rows gets, differentiated in the first argument
(``tests/test_function_arguments.py``, ``test_star_forms.py``,
``test_function_values_more.py``): the gradient against central differences, forward mode
against reverse, the second derivative against differences of the gradient, and the
unoptimized code against the optimized."""

import numpy as np

import s2sad
from test_higher_order import central_differences


def gradient_matches_differences(f, args, eps):
    np.testing.assert_allclose(s2sad.grad(f)(*args), central_differences(f, args, 0, eps),
                               rtol=1e-6, atol=1e-7)


def forward_matches_reverse(f, args, rng):
    v = rng.normal(size=np.shape(args[0]))
    value, push = s2sad.jvp(f)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(push(v), np.sum(s2sad.grad(f)(*args) * v), rtol=1e-9,
                               atol=1e-12)


def second_derivative_matches_differences(f, args, eps):
    expected = central_differences(s2sad.grad(f), args, 0, eps)
    np.testing.assert_allclose(s2sad.hessian(f)(*args), expected, rtol=1e-5, atol=1e-6)


def unoptimized_matches_optimized(f, args):
    np.testing.assert_allclose(s2sad.grad(f, optimize=False)(*args), s2sad.grad(f)(*args),
                               rtol=1e-12, atol=1e-14)
