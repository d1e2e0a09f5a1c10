"""Soundness of complex programs: second derivatives of norms of complex values (exact, or
refused at the line), a gradient built for a real global rebuilt when it turns complex,
and shape reads of computed values (``np.sin(t).size``) in forward and reverse mode."""

import inspect

import numpy as np
import pytest

import s2sad
from s2sad.errors import DifferentiationError
from test_higher_order import central_differences

W = np.array([0.7, 0.4, -0.9])
X = np.array([0.3, -1.2, 2.0])
C = np.array([0.7 + 1.0j, 0.4 - 2.0j, -0.9 + 0.5j])


def _line(f, text):
    lines, start = inspect.getsourcelines(f)
    return start + next(i for i, line in enumerate(lines) if text in line)


# --- second derivatives of norms and |z| of complex values -----------------------------------

def _matrix(z):
    return np.outer(z, np.conj(z) * (1.0 - 2.0j)) + np.eye(3)


def norm_1(x):
    return np.linalg.norm(x + 1j * W, 1)


def norm_inf(x):
    return np.linalg.norm(x + 1j * W, np.inf)


def norm_minus_inf(x):
    return np.linalg.norm(x + 1j * W, -np.inf)


def norm_3(x):
    return np.linalg.norm(x + 1j * W, 3)


def norm_nuc(x):
    return np.linalg.norm(_matrix(x + 1j * W), "nuc")


def norm_spectral(x):
    return np.linalg.norm(_matrix(x + 1j * W), 2)


def norm_matrix_1(x):
    return np.linalg.norm(_matrix(x + 1j * W), 1)


def norm_matrix_inf(x):
    return np.linalg.norm(_matrix(x + 1j * W), np.inf)


def norm_2(x):
    return np.linalg.norm(x + 1j * W)


def norm_vector_2(x):
    return np.linalg.norm(x + 1j * W, 2)


def norm_fro(x):
    return np.linalg.norm(_matrix(x + 1j * W), "fro")


def abs_sum(x):
    return np.sum(np.abs(x + 1j * W))


def abs_cubed(x):
    return np.sum(np.abs(x + 1j * W) ** 3)


def abs_max(x):
    return np.max(np.abs(x + 1j * W))


def sign_sum(x):
    return np.real(np.sum(np.sign(x + 1j * W) * W))


def imag_norm_2(y):
    return np.linalg.norm(W + 1j * y)


def imag_abs_sum(y):
    return np.sum(np.abs(W + 1j * y) * (1.0 + y ** 2))


REFUSED = [norm_1, norm_inf, norm_minus_inf, norm_3, norm_nuc, norm_spectral, norm_matrix_1,
           norm_matrix_inf]
EXACT = [norm_2, norm_vector_2, norm_fro, abs_sum, abs_cubed, abs_max, sign_sum, imag_norm_2,
         imag_abs_sum]


@pytest.mark.parametrize("f", EXACT, ids=lambda f: f.__name__)
def test_second_order_matches_differences_of_the_gradient(f):
    expected = central_differences(s2sad.grad(f), (X,), 0)
    assert np.allclose(s2sad.hessian(f)(X), expected, atol=1e-6)
    _, push = s2sad.jvp(s2sad.grad(f))(X)
    v = np.array([1.0, -0.5, 0.25])
    assert np.allclose(push(v), expected.T @ v, atol=1e-6)


@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("order", ["hessian", "jvp_of_grad", "grad_of_grad"])
def test_second_order_of_a_nonsmooth_complex_norm_is_refused_at_the_line(f, order):
    # the real helper rule took sign(x) (and singular vectors) as locally constant: 0
    with pytest.raises(DifferentiationError) as caught:
        if order == "hessian":
            s2sad.hessian(f)(X)
        elif order == "jvp_of_grad":
            s2sad.jvp(s2sad.grad(f))(X)[1](np.ones(3))
        else:
            s2sad.jacobian(s2sad.grad(f), mode="rev")(X)
    text = str(caught.value)
    assert "second derivative of np.linalg.norm" in text and "complex" in text
    assert f"line {_line(f, 'np.linalg.norm')}" in text
    assert "np.abs" in text  # (the advice: write the norm with np.abs)


def test_first_order_of_the_refused_norms_still_holds():
    for f in REFUSED:
        assert np.allclose(s2sad.grad(f)(X), central_differences(f, (X,), 0), atol=1e-6)


def test_real_second_order_of_norms_is_unchanged():
    def real_norms(x):
        return np.linalg.norm(x, 3) + np.linalg.norm(x, 1) * np.linalg.norm(x)
    assert np.allclose(s2sad.hessian(real_norms)(X),
                       central_differences(s2sad.grad(real_norms), (X,), 0), atol=1e-6)


# --- a free value real when the gradient was built, complex later ----------------------------

SCALE = W.copy()


class Holder:
    pass


HELD = Holder()
HELD.w = W.copy()


def uses_global(x):
    return np.sum(np.abs(x * SCALE))


def uses_member(x):
    return np.sum(np.abs(x * HELD.w))


def _closure(value):
    def uses_cell(x):
        return np.sum(np.abs(x * value))
    return uses_cell


def _check_rebuilt(f, set_complex, set_real):
    g = s2sad.grad(f)
    g(X), g(X)  # (built for the real value, and its entry used)
    try:
        set_complex()
        expected = central_differences(f, (X,), 0)
        assert np.allclose(g(X), expected, atol=1e-6)
        assert np.allclose(g(X), s2sad.grad(f)(X))
    finally:
        set_real()
    assert np.allclose(g(X), central_differences(f, (X,), 0), atol=1e-6)


def test_a_global_made_complex_rebuilds_the_gradient():
    def set_to(value):
        def set_():
            global SCALE
            SCALE = value
        return set_
    _check_rebuilt(uses_global, set_to(C), set_to(W.copy()))


def test_a_module_objects_member_made_complex_rebuilds_the_gradient():
    _check_rebuilt(uses_member, lambda: setattr(HELD, "w", C), lambda: setattr(HELD, "w", W))


def test_a_closure_value_made_complex_rebuilds_the_gradient():
    f = _closure(W.copy())
    cell = f.__closure__[0]
    _check_rebuilt(f, lambda: setattr(cell, "cell_contents", C),
                   lambda: setattr(cell, "cell_contents", W.copy()))


def test_a_default_made_complex_rebuilds_the_gradient():
    def uses_default(x, v=W.copy()):
        return np.sum(np.abs(x * v))
    _check_rebuilt(uses_default, lambda: setattr(uses_default, "__defaults__", (C,)),
                   lambda: setattr(uses_default, "__defaults__", (W.copy(),)))


# --- shape reads of computed values (t.size, t.shape[0], len(t), t.ndim) ---------------------

def size_of_computed(t):
    return np.sin(t) * (3.0 + np.sin(t).size)


def size_of_transpose(t):
    return t * (3.0 + t.T.size)


def shape_of_computed(t):
    u = t * 2.0
    return u.shape[0] * t + (u.shape[0] - t)


def len_of_computed(t):
    u = np.cos(t)
    return len(u) + t - len(u[1:])


def ndim_of_computed(t):
    u = np.exp(t)
    return t ** u.ndim + (t - u.ndim)


def size_of_an_item(t):
    return t * (3.0 + t[0].size) - t.real.size


SHAPES = [size_of_computed, size_of_transpose, shape_of_computed, len_of_computed,
          ndim_of_computed, size_of_an_item]


@pytest.mark.parametrize("f", SHAPES, ids=lambda f: f.__name__)
def test_shape_reads_of_computed_values_forward_and_reverse(f):
    expected = central_differences(f, (X,), 0)
    value, push = s2sad.jvp(f)(X)
    assert np.allclose(value, f(X))
    v = np.array([1.0, 0.5, -0.25])
    assert np.allclose(push(v), expected.T @ v, atol=1e-6)
    total = lambda t: np.sum(f(t))  # noqa: E731
    assert np.allclose(s2sad.grad(total)(X), central_differences(total, (X,), 0), atol=1e-6)
