"""Elementwise fusion on ``target="numba"`` (session 28): a run of elementwise statements
on 1-D float64 arrays becomes one loop over the elements.

Each gradient is checked against the NumPy target's (to rounding: numba's ``tanh`` and
``exp`` are the C library's) and against central differences in float64; each kernel
rewritten by the pass, against the same statements run by NumPy. Skipped where numba is
not installed.
"""

from __future__ import annotations

import ast

import numpy as np
import pytest

import s2sad
from s2sad.backends.numba_backend import NUMBA
from s2sad.runtime.numba_fused import in_place
from s2sad.transforms.numba_fusion import ElementwiseFusion
from tests.test_higher_order import central_differences

numba = pytest.importorskip("numba")


def elementwise(x):
    return np.sum(np.tanh(x) * np.exp(-0.5 * x * x) + np.log(1.0 + x * x))


def two_arrays(x, y):
    return np.sum(np.sin(x) * y + x ** 2 / y)


def relu_and_scale(x, a):
    z = np.exp(a * x)
    w = np.sqrt(1.0 + z * z)
    return np.sum(w) + np.sum(np.maximum(x, 0.0))


def mean_of_cubes(x):
    return np.mean(np.cos(x) ** 3)


def with_an_int(x, n):
    return np.sum(np.arctan(x * n) / (2.0 + np.cos(x)))


def reciprocal(x):
    return np.sum(np.exp(x) / x)


RNG = np.random.default_rng(28)
X = RNG.standard_normal(50)
CASES = [  # (id, function, arguments, wrt)
    ("elementwise", elementwise, (X,), 0),
    ("two arrays", two_arrays, (X, RNG.uniform(1.0, 2.0, 50)), (0, 1)),
    ("where, maximum and a float", relu_and_scale, (X, 0.3), (0, 1)),
    ("mean", mean_of_cubes, (X,), 0),
    ("an int argument", with_an_int, (X, 3), 0),
]


def _looped(source):
    """Does ``source`` hold a fused loop (over the elements, or over their blocks where
    NumPy computes some calls: session 33)?"""
    return "for i in range(x.shape[0]):" in source or \
        "for j in range(0, x.shape[0], 65536):" in source


def _parts(value):
    return value if isinstance(value, tuple) else (value,)


@pytest.mark.parametrize("f, args, wrt", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_fused_gradient_is_numpys_and_central_differences(f, args, wrt):
    df = s2sad.grad(f, wrt, target="numba")
    source = df.source_for(*args)
    assert _looped(source) and "_plain(" in source, source
    got, expected = df(*args), s2sad.grad(f, wrt)(*args)
    for g, e in zip(_parts(got), _parts(expected), strict=True):
        assert np.shape(g) == np.shape(e) and np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)
    for g, w in zip(_parts(got), _parts(wrt), strict=True):
        np.testing.assert_allclose(g, central_differences(f, args, w), rtol=1e-6, atol=1e-8)
    value, grads = s2sad.value_and_grad(f, wrt, target="numba")(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-13)
    for g, e in zip(_parts(grads), _parts(expected), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)


def test_a_fused_gradient_on_a_large_array_is_numpys():
    """(the loop computes each element by the operations NumPy does; session 33: NumPy
    computes its tanh and exp, so the values are NumPy's exactly; the unfused kernel's
    tanh and exp are the C library's)"""
    x = RNG.standard_normal(100_000)
    df = s2sad.grad(elementwise, target="numba")
    fused = df(x)
    namespace = {}
    exec(df.source_for(x).replace("cache=True", "cache=False"), namespace)
    np.testing.assert_array_equal(fused, s2sad.grad(elementwise)(x))
    np.testing.assert_allclose(fused, namespace["kernel_grad_elementwise_plain"](x),
                               rtol=1e-12, atol=1e-15)


def test_a_zero_divisor_gives_inf_as_in_numpy():
    """numba's ``/`` on numbers raises ZeroDivisionError; NumPy's on arrays gives inf."""
    x = np.array([0.5, 0.0, -2.0])
    df = s2sad.grad(reciprocal, target="numba")
    assert _looped(df.source_for(x))
    got = df(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = s2sad.grad(reciprocal)(x)
    np.testing.assert_array_equal(got, expected)
    assert not np.isfinite(got[1]) and np.isfinite(got[[0, 2]]).all()


@pytest.mark.parametrize("x, y", [
    (X.astype(np.float32), (X + 3.0).astype(np.float32)),  # float32: the unfused kernel
    (X[::2], X[1::2] + 3.0),                                # strided views: the loop
], ids=["float32", "strided"])
def test_float32_and_strided_arguments(x, y):
    got = s2sad.grad(two_arrays, (0, 1), target="numba")(x, y)
    expected = s2sad.grad(two_arrays, (0, 1))(x, y)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-5 if g.dtype == np.float32 else 1e-12)


def test_a_length_one_array_is_broadcast_by_the_unfused_kernel():
    x, y = X, np.array([1.5])
    got = s2sad.grad(two_arrays, (0, 1), target="numba")(x, y)
    expected = s2sad.grad(two_arrays, (0, 1))(x, y)
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-12)
    for g, w in zip(got, (0, 1), strict=True):
        np.testing.assert_allclose(g, central_differences(two_arrays, (x, y), w), rtol=1e-6)


def test_what_is_not_elementwise_is_not_fused():
    def matrix(W):   # (2-D: not fused)
        return np.sum(np.tanh(W) * np.exp(W))

    def one_statement(x):
        return np.sum(np.sin(x))
    for f, x in ((matrix, RNG.standard_normal((4, 3))), (one_statement, X)):
        source = s2sad.grad(f, target="numba").source_for(x)
        assert "_plain" not in source and "for " not in source, source
        np.testing.assert_allclose(s2sad.grad(f, target="numba")(x), s2sad.grad(f)(x),
                                   rtol=1e-12)


# --- the pass on kernels written here, against NumPy running them ------------------------

KERNELS = [  # (id, the kernel's statements, its loops, the statements fused into them)
    ("a run", "t = np.tanh(x)\ns = x * t / (1.0 + y)\ns -= t ** 2\nreturn s", 1, 2),
    # (np.tanh(x): NumPy's, on blocks, before the loop)
    ("bound again in the run", "t = x * 2.0\nu = t + x\nt = u * 3.0\nreturn t + u", 1, 3),
    ("read before the run binds it again",
     "t = x * 2.0\nr = np.sum(t, axis=0)\nu = t + x\nt = u * 3.0\nv = t * u\nreturn v + r",
     1, 2),
    ("a sum taken after the loop, where the run binds its array again",
     "t = x * 2.0\nr = np.sum(t)\nu = t + x\nt = u * 3.0\nv = t * u\nreturn v + r", 1, 4),
    ("in place only on the run's own arrays",
     "t = x * 2.0\nv = t + 1.0\nr = np.sum(v)\nt += r\nu = t * x\nw = u - x\n"
     "return w + v", 2, 4),
    ("an array named twice, changed in place: not fused",
     "t = x * 1.0\nu = t\nu += 1.0\nreturn t", 0, 0),
    ("bools inside", "m = x > 0.0\nt = x * m\nu = t * t\nreturn u", 1, 3),
    ("bools kept: not fused", "m = x > 0.0\nt = x * m\nk = m + m\nu = t * t\nreturn u + k",
     0, 0),
    ("where and comparisons",
     "t = np.where(np.equal(x, 0.0), 0.5, x > 0.0)\nu = t * np.maximum(x, y)\nreturn u",
     1, 2),
    ("division by zero and nan powers",
     "t = x / (y - y)\nu = np.power(x, 0.5) + t\nu /= y\nreturn u", 1, 3),
    ("a sum read by the run ends it",
     "t = x * y\nv = t + 1.0\nr = np.sum(v)\nu = t * r\nw = u + v\nreturn w * r", 1, 2),
    ("a sum of the run's elements, after it",
     "t = x * y\nr = np.sum(t * 2.0) + 1.0\nu = t + x\nreturn u * r", 1, 2),
    ("bound again after its sum", "t = x * y\nr = np.sum(t)\nr = t * 2.0\nreturn r", 1, 1),
]


@pytest.mark.parametrize("body, loops, fused", [k[1:] for k in KERNELS],
                         ids=[k[0] for k in KERNELS])
def test_the_pass_keeps_numpys_values(body, loops, fused):
    text = "def kernel(x, y):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    kernel = ast.parse(text).body[0]
    wrapper = ast.parse("def wrapper(x, y):\n    return kernel(x, y)").body[0]
    kinds = {"x": ("nd", 1, "f", ()), "y": ("nd", 1, "f", ())}
    done = ElementwiseFusion(kinds, "np", NUMBA).run(kernel, wrapper)
    shown = ast.unparse(ast.fix_missing_locations(done.kernel))
    found = [s for s in done.kernel.body if isinstance(s, ast.For)]
    assert len(found) == loops and (done.plain is not None) == (loops > 0), shown
    found = [loop.body[-1] if isinstance(loop.body[-1], ast.For) else loop
             for loop in found]   # (a loop over blocks: the loop over a block's elements)
    assert sum(1 for loop in found for s in loop.body if isinstance(s, ast.AugAssign) or not (
        isinstance(s.targets[0], ast.Subscript) or isinstance(s.value, ast.Subscript))
        ) == fused, shown   # (the loads and stores of the arrays apart)
    x = np.array([-1.5, 0.0, 0.25, 2.0, 3.0])
    y = np.array([0.5, 1.0, -2.0, 0.0, 4.0])
    namespace = {"np": np, "numba": numba, "in_place": in_place}
    exec(shown, namespace)
    got = numba.njit(namespace["kernel"])(x.copy(), y.copy())
    plain = {"np": np}
    exec(text, plain)
    with np.errstate(all="ignore"):
        expected = plain["kernel"](x.copy(), y.copy())
    assert got.dtype == expected.dtype
    # (to rounding: numba's tanh is the C library's, NumPy's its own)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0, equal_nan=True)


def test_the_functions_a_loop_takes_give_numpys_values_on_numbers():
    """(the backend's fused_* facts: numba's function of numbers, NumPy's of arrays)"""
    a = np.array([-2.5, -0.5, 0.0, 0.5, 1.5, 3.0])
    b = np.array([1.5, -2.0, 0.5, 0.0, 2.5, -1.0])
    with np.errstate(all="ignore"):
        for name in sorted(NUMBA.fused_unary):
            fn = getattr(np, name)
            one = numba.njit(lambda v, fn=fn: fn(v))
            got = np.array([one(v) for v in a])
            np.testing.assert_allclose(got, fn(a), rtol=1e-14, equal_nan=True, err_msg=name)
        for name in sorted(NUMBA.fused_binary):
            fn = getattr(np, name)
            two = numba.njit(lambda v, w, fn=fn: fn(v, w))
            got = np.array([two(v, w) for v, w in zip(a, b, strict=True)])
            np.testing.assert_allclose(got, fn(a, b), rtol=1e-14, equal_nan=True, err_msg=name)
