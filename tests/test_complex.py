"""Complex numbers, autograd's convention: the gradient of a real ``f(x + iy)`` is
``df/dx - i df/dy``. Each case's gradient against central differences along the real and
the imaginary parts, forward mode against them too, second order by ``check_grads``,
holomorphic derivatives, real functions computed with complex values, and refusals."""

import cmath

import numpy as np
import pytest

import s2sad
from s2sad.checking import GradientCheckError
from s2sad.transforms.complex_values import holds_complex
from test_higher_order import central_differences

rng = np.random.default_rng(34)
Z = np.array([0.8 + 0.6j, -0.4 + 1.1j, 1.3 - 0.7j])
X = np.array([0.3, -0.7, 1.4])
A = np.array([[2.0 + 0.5j, 0.3 - 0.2j, -0.4j], [0.1 + 0.1j, 1.5 - 0.3j, 0.2],
              [-0.3 + 0.2j, 0.4j, 1.8 + 0.1j]])
B = np.array([[1.0, -2.0, 0.5], [0.3, 1.5, -1.0]])


def complex_gradient(f, args, wrt):
    """``df/dx - i df/dy`` by central differences, ``z = x + iy`` argument ``wrt``."""
    z = args[wrt]
    if not np.iscomplexobj(z):
        return central_differences(f, args, wrt)

    def along_real(x):
        return f(*args[:wrt], x + 1j * np.imag(z), *args[wrt + 1:])

    def along_imag(y):
        return f(*args[:wrt], np.real(z) + 1j * y, *args[wrt + 1:])
    return central_differences(along_real, (np.real(z),), 0) - \
        1j * central_differences(along_imag, (np.imag(z),), 0)


# --- real-valued functions of complex arrays ------------------------------------------------

def abs_squared(z):
    return np.sum(np.abs(z) ** 2)


def parts(z):
    return np.sum(np.real(z) ** 3 - 2.0 * np.imag(z) ** 2 + np.real(z) * np.imag(z))


def conjugates(z):
    return np.real(np.sum(np.conj(z) * z * (0.5 + 2.0j) + np.conjugate(z) ** 2))


def angle(z):
    return np.sum(np.angle(z) * np.abs(z))


def real_if_close(z):
    return np.sum(np.abs(np.real_if_close(z * 1.5)))


def holomorphic_inside(z):
    w = np.exp(z) + np.log(z) * np.sin(z) - np.cos(z) / (z + 2.0) + np.sqrt(z)
    return np.abs(np.sum(w * np.tanh(z) + np.sinh(z) * np.cosh(z)))


def powers(z):
    return np.real(np.sum(z ** 3 + z ** (1.5 - 0.5j) + (2.0 + 0.3j) ** z + np.square(z)))


def reciprocal(z):
    return np.sum(np.abs(1.0 / z + np.reciprocal(z + 1.0)))


def products(z):
    w = A @ z + np.dot(A, np.conj(z)) * 0.5 + np.einsum("ij,j->i", A, z)
    return np.sum(np.abs(w) ** 2) + np.real(np.vdot(z, A @ z))


def reductions(z):
    return np.var(z) + 2.0 * np.std(z) + np.linalg.norm(z) + np.abs(np.prod(z)) + \
        np.abs(np.mean(z) * np.cumsum(z)[-1])


def sign(z):
    return np.real(np.sum(np.sign(z) * np.conj(z) * (1.0 + 2.0j)))


def broadcasting(z):
    return np.sum(np.abs(B * z[None, :] + 1j * B) ** 2)


def mixed(z, x):
    return np.sum(np.abs(z * x + 1j * x ** 2))


def linalg(a):
    return np.abs(np.linalg.det(a)) + np.sum(np.abs(np.linalg.inv(a))) + \
        np.real(np.sum(np.linalg.solve(a, Z) * np.conj(Z)))


def hermitian_eigenvalues(a):
    return np.sum(np.linalg.eigvalsh(a @ np.conj(a.T)) * np.arange(1.0, 4.0))


def hermitian_eigenvectors(a):
    # (functions of the eigenvectors that their phases do not change)
    w, v = np.linalg.eigh(a @ np.conj(a.T))
    u = v[:, 0]
    return np.abs(np.conj(u) @ A @ u) + np.sum(np.abs(v) ** 3) + np.sum(w * np.arange(3))


def log_determinant(a):
    sign, logabs = np.linalg.slogdet(a)
    return logabs + np.real(sign * (1.0 + 2.0j))


def attributes(z):
    return np.sum(z.imag ** 2 + z.real * z.conj().real + abs(z))


# --- real functions of real arguments, complex inside ----------------------------------------

def phasor(x):
    return np.real(np.sum(np.exp(1j * x) * np.conj(np.exp(2j * x + 0.3))))


def cast(x):
    return np.sum(np.abs(x.astype(np.complex128) * (1.0 + 2.0j)) ** 3)


def modulus(t):
    return float(np.abs(t * (3.0 - 4.0j) + 1j))


def cmath_inverse(t):  # (session 37: cmath's inverse functions)
    z = complex(t, 0.4)
    return (cmath.atan(z) * cmath.asinh(z) + cmath.acos(z) / cmath.atanh(z)).real


TABLE = [
    (abs_squared, (Z,), 0), (parts, (Z,), 0), (conjugates, (Z,), 0), (angle, (Z,), 0),
    (real_if_close, (Z,), 0), (holomorphic_inside, (Z,), 0), (powers, (Z,), 0),
    (reciprocal, (Z,), 0), (products, (Z,), 0), (reductions, (Z,), 0), (sign, (Z,), 0),
    (broadcasting, (Z,), 0), (mixed, (Z, X), 0), (mixed, (Z, X), 1), (linalg, (A,), 0),
    (hermitian_eigenvalues, (A,), 0), (hermitian_eigenvectors, (A,), 0),
    (log_determinant, (A,), 0), (attributes, (Z,), 0),
    (phasor, (X,), 0), (cast, (X,), 0), (modulus, (0.7,), 0), (cmath_inverse, (0.7,), 0),
]


def _ids(table):
    return [f"{f.__name__}-{wrt}" for f, _, wrt in table]


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_gradient_against_central_differences(f, args, wrt):
    got = s2sad.grad(f, wrt=wrt)(*args)
    assert np.shape(got) == np.shape(args[wrt])
    assert np.iscomplexobj(got) == np.iscomplexobj(args[wrt])
    np.testing.assert_allclose(got, complex_gradient(f, args, wrt), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_check_grads_first_and_second_order_real_and_imaginary_directions(f, args, wrt):
    s2sad.check_grads(f, args, order=2, wrt=[wrt])


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_forward_mode_against_central_differences(f, args, wrt):
    z = args[wrt]
    for direction in ((np.ones_like(z), 1j * np.ones_like(z)) if np.iscomplexobj(z) else
                      (np.ones_like(z),)):
        direction = direction * (1.0 + np.arange(np.size(z)).reshape(np.shape(z)))
        _, push = s2sad.jvp(f, wrt=wrt)(*args)
        step = 1e-6

        def moved(s):
            return f(*args[:wrt], z + s * direction, *args[wrt + 1:])
        np.testing.assert_allclose(push(direction), (moved(step) - moved(-step)) / (2 * step),
                                   rtol=1e-6, atol=1e-7)


def test_the_convention_abs_squared_is_twice_the_conjugate():
    np.testing.assert_allclose(s2sad.grad(abs_squared)(Z), 2.0 * np.conj(Z), rtol=1e-14)


def test_a_real_function_computed_with_complex_numbers_gives_the_real_gradient():
    def real_version(x):
        return np.exp(0.3) * np.sum(np.cos(x))  # (exp(ix) conj(exp(2ix + 0.3)))
    got = s2sad.grad(phasor)(X)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, s2sad.grad(real_version)(X), rtol=1e-12)
    assert type(s2sad.grad(modulus)(0.7)) is float


def test_complex64_stays_complex64():
    z = Z.astype(np.complex64)
    got = s2sad.grad(abs_squared)(z)
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, 2.0 * np.conj(z), rtol=1e-6)


def test_python_complex_argument_and_constant():
    def f(z):
        return abs(z * (1.0 - 2.0j)) ** 2
    got = s2sad.grad(f)(0.3 + 0.4j)
    assert type(got) is complex
    assert abs(got - 2.0 * 5.0 * (0.3 - 0.4j)) < 1e-12


# --- holomorphic functions ---------------------------------------------------------------------

def cube(z):
    return z ** 3


def composite(z):
    return np.sum(np.exp(np.sin(z)) * z + np.log(z + 3.0))


def test_holomorphic_gradient_is_the_complex_derivative():
    assert abs(s2sad.grad(cube, holomorphic=True)(1.0 + 1.0j) - 3.0 * (1.0 + 1.0j) ** 2) < 1e-12
    want = np.exp(np.sin(Z)) * (np.cos(Z) * Z + 1.0) + 1.0 / (Z + 3.0)
    np.testing.assert_allclose(s2sad.grad(composite, holomorphic=True)(Z), want, rtol=1e-12)


def test_a_complex_output_is_refused_without_holomorphic():
    with pytest.raises(s2sad.NonScalarOutputError) as info:
        s2sad.grad(composite)(Z)
    message = str(info.value)
    assert "returned a complex number" in message and "holomorphic=True" in message
    assert "np.real" in message
    assert info.value.lineno == composite.__code__.co_firstlineno + 1


def test_holomorphic_refuses_an_array_output():
    def vector(z):
        return z * 2.0
    with pytest.raises(s2sad.NonScalarOutputError, match="returned an array of shape"):
        s2sad.grad(vector, holomorphic=True)(Z)


def test_holomorphic_gradient_is_not_differentiated_again():
    with pytest.raises(s2sad.DifferentiationError, match="a holomorphic gradient"):
        s2sad.grad(s2sad.grad(cube, holomorphic=True))


# --- check_grads along imaginary directions --------------------------------------------------

def squared_modulus(z):
    return np.sum(np.real(z) ** 2 + np.imag(z) ** 2)


@s2sad.custom_vjp(squared_modulus)
def squared_modulus_without_conjugate(g, ans, z):
    return 2.0 * g * z  # (wrong: 2 conj(z))


def uses_the_wrong_rule(z):
    return squared_modulus(z) * 1.0


def test_check_grads_finds_a_missing_conjugate():
    with pytest.raises(GradientCheckError, match="reverse mode.*(real|imaginary) direction"):
        s2sad.check_grads(uses_the_wrong_rule, (Z,), order=1, modes="rev")


def test_check_grads_steps_along_the_imaginary_part():
    # a rule right along the real axis only: z real there, so only an imaginary step sees it
    @s2sad.custom_vjp(squared_modulus)
    def right_on_the_real_axis(g, ans, z):
        return 2.0 * g * np.real(z)
    try:
        with pytest.raises(GradientCheckError, match="imaginary direction"):
            s2sad.check_grads(uses_the_wrong_rule, (np.array([0.5 + 0.7j, -0.2 + 0.1j]),),
                              order=1, modes="rev")
    finally:
        s2sad.custom_vjp(squared_modulus)(squared_modulus_without_conjugate)


# --- refusals ---------------------------------------------------------------------------------

def angle_in_degrees(z):
    return np.sum(np.angle(z, deg=True) * np.arange(3.0))


def test_angle_in_degrees_is_numpy_s_factor_times_the_radians_rule():
    # (refused before session 36: now the rule multiplies by 180 / pi where deg is true)
    np.testing.assert_allclose(s2sad.grad(angle_in_degrees)(Z),
                               complex_gradient(angle_in_degrees, (Z,), 0), rtol=1e-6)


def singular_values(a):
    return np.sum(np.linalg.svdvals(a) ** 2 * np.arange(3.0))


@pytest.mark.skipif(not hasattr(np.linalg, "svdvals"), reason="NumPy >= 2.0")
def test_singular_values_of_a_complex_matrix():
    np.testing.assert_allclose(s2sad.grad(singular_values)(A),
                               complex_gradient(singular_values, (A,), 0), rtol=1e-6)
    s2sad.check_grads(singular_values, (A,), order=1)


# --- real programs keep their rules -----------------------------------------------------------

def real_abs(x):
    return np.sum(np.abs(x) * x)


def test_a_real_program_keeps_its_real_rules():
    text = s2sad.grad(real_abs).source_for(X)
    assert "np.sign(x)" in text and "conj" not in text and "output_seed" not in text
    assert "conj" in s2sad.grad(real_abs).source_for(Z)


def test_which_programs_hold_complex_numbers():
    import gast

    def holds(text, descriptor, names=None):
        names = {"np": np, **(names or {})}
        return holds_complex(gast.parse(text).body[0], [descriptor], names.__getitem__)
    assert not holds("def f(x):\n    return x * 2.0", ("nd", 1, "f"))
    assert holds("def f(x):\n    return x * 2.0", ("nd", 1, "c"))
    assert holds("def f(x):\n    return x * 2.0", ("list", ("float", "complex")))
    assert holds("def f(x):\n    return x * 2.0", ("dict", (("a", ("nd", 0, "c")),)))
    assert holds("def f(x):\n    return x * 1j", "float")
    assert holds("def f(x):\n    return np.imag(x)", "float")
    assert holds("def f(x):\n    return x.astype('complex64')", "float")
    assert holds("def f(x):\n    return x.astype(np.complex128)", "float")
    assert holds("def f(x):\n    return x.astype(complex)", "float", {"complex": complex})
    assert not holds("def f(x):\n    return x.astype('f4')", "float")
    assert holds("def f(x):\n    return x * W", "float", {"W": np.ones(2, complex)})
    assert not holds("def f(x):\n    return x * W", "float", {"W": np.ones(2)})
    assert not holds("def f(x, W):\n    return x * W", "float", {"W": np.ones(2, complex)})


W = np.array([1.0 + 2.0j, -0.5 + 0.1j, 0.3j])


def reads_a_complex_global(x):
    return np.sum(np.abs(x * W))


def test_a_complex_global_makes_the_program_complex():
    np.testing.assert_allclose(s2sad.grad(reads_a_complex_global)(X),
                               complex_gradient(reads_a_complex_global, (X,), 0), rtol=1e-6)


# --- cmath (session 36): forward and reverse, second order ------------------------------------

def cmath_polar_rect(x):
    r, p = cmath.polar(complex(x[0], x[1]) ** 2)
    w = cmath.rect(r * x[0], p + x[1])
    return abs(cmath.log(w, 2.0 + x[0])) + cmath.phase(cmath.sqrt(w) * cmath.exp(w)) + \
        (cmath.sin(w) * cmath.cos(w)).real


def test_cmath_forward_reverse_and_second_order():
    s2sad.check_grads(cmath_polar_rect, (np.array([0.3, 0.8]),), order=2)


def cmath_inverses(x):  # (session 37: the hyperbolic, inverse and base-10 functions)
    w = complex(x[0], x[1])
    return (cmath.atan(w) * cmath.asin(w * 0.5) + cmath.acos(w * 0.3) * cmath.tan(w)).real + \
        abs(cmath.sinh(w) + cmath.cosh(w) * cmath.tanh(w)) + \
        (cmath.asinh(w) * cmath.acosh(w + 2.0) + cmath.atanh(w * 0.4)).imag + \
        abs(cmath.log10(w))


def test_cmath_inverses_forward_reverse_and_second_order():
    x = np.array([0.3, 0.8])
    np.testing.assert_allclose(s2sad.grad(cmath_inverses)(x),
                               central_differences(cmath_inverses, (x,), 0), rtol=1e-6, atol=1e-8)
    s2sad.check_grads(cmath_inverses, (x,), order=2)
