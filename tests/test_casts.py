"""Casts: an integer or bool result carries no derivative, as in NumPy.

``x.astype(int)``, ``np.sum(x, dtype=int)``, ``np.asarray(x, bool)`` and a value stored
into an array made with an integer dtype (``z[0] = x[0]``) are truncated: their
derivative is 0, where s2sad once took them for the identity. A float or complex cast
stays differentiable. Each function is checked against central finite differences in
reverse mode (optimized and not), forward mode, and where it takes a number, second
order (``grad(grad(f))``). The points are away from the integers, where truncation is
locally constant.
"""

import functools
import inspect

import numpy as np
import pytest

import s2sad
from s2sad import registry

X = np.array([0.9, 2.2, -2.1, 1.6])
M = np.array([[0.9, 2.2], [-2.1, 1.6]])
EPS = 1e-6


def astype_int(x):
    return np.sum(x.astype(int) * x)


def astype_bool(x):
    return np.sum(x.astype(bool) * x)


def astype_dtype_keyword(x):
    return np.sum(x.astype(dtype=np.int32) * x)


def astype_with_order(x):
    return np.sum(x.astype(np.int64, "C") * x)


def astype_unbound(x):
    return np.sum(np.ndarray.astype(x, "i8") * x)


def astype_float_keyword(x):
    return np.sum(x.astype(dtype=np.float64) * x)


def astype_float_with_order(x):
    return np.sum(x.astype(np.float64, "C") ** 2)


def astype_float_casting(x):
    return np.sum(x.astype(float, casting="same_kind", copy=True) * x)


def astype_complex(x):
    return np.sum(np.abs(x.astype(np.complex128)) * x)


def asarray_int(x):
    return np.sum(np.asarray(x, int) * x)


def array_bool(x):
    return np.sum(np.array(x, dtype=bool) * x)


def asarray_float(x):
    return np.sum(np.asarray(x, "f8") * x)


def sum_int(x):
    return np.sum(x, dtype=int) * np.sum(x)


def sum_int_positional(x):
    return np.sum(x, None, int) * np.sum(x)


def method_sum_int(x):
    return x.sum(dtype=int) * x.sum()


def sum_float32(x):
    return np.sum(x, dtype=np.float64) * np.sum(x, dtype="f8")


def mean_int(x):
    return np.mean(x, dtype=int) * np.sum(x)


def prod_int(x):
    return np.prod(x, dtype=int) * np.sum(x)


def cumsum_int(x):
    return np.sum(np.cumsum(x, dtype=int) * x)


def cumprod_int(x):
    return np.sum(np.cumprod(np.abs(x) + 1.0, 0, int) * x)


def trace_int(m):
    return np.trace(m, dtype=int) * np.sum(m)


def einsum_int(x):
    return np.einsum("i,i->", x, x, dtype=int, casting="unsafe") * np.sum(x)


def full_int(x):
    return np.sum(np.full(4, x[0], dtype=int) * x)


def full_int_positional(x):
    return np.sum(np.full(4, x[1], int) * x)


def linspace_int(x):
    return np.sum(np.linspace(x[0], 5.0, 4, dtype=int) * x)


def linspace_int_positional(x):
    return np.sum(np.linspace(x[0], 5.0, 4, True, False, int) * x)


def arange_int(x):
    return np.sum(np.arange(x[0], 4.5, dtype=int) * x)


def concatenate_int(x):
    return np.sum(np.concatenate([x, x], dtype=int, casting="unsafe") * np.concatenate([x, x]))


def stack_int(x):
    return np.sum(np.stack([x, x], dtype=int, casting="unsafe") * x)


def ufunc_int(x):
    return np.sum(np.add(x, x, dtype=int, casting="unsafe") * x)


def numpy_integer_type(x):
    return np.sum(np.int32(x) * x) + np.bool_(x[0]) * x[1]


def summed_as(v, kind=int):
    return np.sum(v, dtype=kind)


def inlined_dtype_parameter(x):
    return summed_as(x) * np.sum(x) + summed_as(x, np.float64) * x[0]


def store_int(x):
    z = np.zeros(4, dtype=int)
    z[0] = x[0]
    return np.sum(z * x)


def store_bool(x):
    m = np.zeros(4, dtype=bool)
    m[1] = x[1]
    return np.sum(m * x)


def store_int_copy(x):
    z = np.zeros(4, int)
    w = z
    w[0] = x[0] * 2.0
    return np.sum(w * x)


def store_astype(x):
    z = x.astype(int)
    z[2] = x[3] * 3.0
    return np.sum(z * x)


def store_int_loop(x):
    z = np.ones(4, dtype=np.int64)
    for i in range(3):
        z[i + 1] = x[i] * 2.0
    return np.sum(z * x)


def store_int_value_used_again(x):
    t = x[0] * 3.0
    z = np.zeros(4, int)
    z[0] = t
    return np.sum(z * x) + t * t


def store_float(x):  # (a float array: the stored value's derivative flows, as before)
    z = np.zeros(4)
    z[0] = x[0]
    return np.sum(z * x)


# --- arrays whose dtype NumPy infers (Rule.result): integer or bool ones truncate --------


def store_into_int_literal(x):
    z = np.array([0, 0, 0, 0])
    z[0] = x[0]
    return np.sum(z * x)


def store_into_nested_int_literal(x):
    z = np.array([[0, 1], [True, 3]])
    z[1, 0] = x[0] * 3.0
    return np.sum(z.ravel() * x)


def store_into_arange(x):
    z = np.arange(4)
    z[1] = x[0]
    return np.sum(z * x)


def store_into_full_of_an_int(x):
    z = np.full(4, 0)
    z[1] = x[0] * 2.0
    return np.sum(z * x)


def store_into_zeros_like_an_int_array(x):
    k = np.array([1, 2, 3, 4])
    z = np.zeros_like(k)
    z[1] = x[0]
    return np.sum(z * x)


def store_into_ones_int_by_position(x):
    z = np.ones(4, int)
    z[1] = x[0] * 3.0
    return np.sum(z * x)


def store_into_argsort(x):
    idx = np.argsort(x)
    idx[0] = x[2] * 1.5
    return np.sum(idx * x)


def store_into_a_comparison(x):
    m = x > 0
    m[0] = x[1]
    return np.sum(m * x)


def store_into_int_arithmetic(x):
    z = np.array([1, 2, 3, 4]) + 0
    z[2] = x[1]
    return np.sum(z * x)


def store_into_where_of_ints(x):
    z = np.where(x > 0, 1, 0)
    z[3] = x[3] * 2.0
    return np.sum(z * x)


def store_into_int_array_made_in_a_loop(x):
    z = np.array([1, 2, 3, 4])
    for i in range(2):
        z = z * 2
        z[i] = x[i] * 3.0
    return np.sum(z * x)


def store_into_float_literal(x):  # (a float among integers: a float array, kept)
    z = np.array([0, 0.0, 0, 0])
    z[0] = x[0] * 2.0
    return np.sum(z * x)


def store_into_full_of_a_float(x):
    z = np.full(4, 0.5)
    z[1] = x[0] * 2.0
    return np.sum(z * x)


def store_into_float_likes(x):  # (x a float array: its copies and likes hold floats)
    z = np.zeros_like(x)
    w = np.empty_like(x)
    c = x.copy()
    z[0] = x[1]
    w[:] = x * 2.0
    c[2] = x[3] ** 2
    return np.sum(z * x) + np.sum(w * x) + np.sum(c * x)


def store_into_int_arange_made_float(x):  # (an integer array times a float: floats)
    z = np.arange(4) * 1.0
    z[1] = x[0] * 2.0
    return np.sum(z * x)


def store_into_a_list_of_ints(x):  # (a Python list keeps what is stored in it)
    ys = [0, 0, 0]
    ys[1] = x[0] * 2.0
    return ys[1] * x[1] + ys[0]


def astype_of_a_numpy_scalar(x):
    s = x[0]
    return s.astype(np.float64, "C") * x[1] + s.astype(int, "C") * x[2]


VECTOR_CASES = [astype_int, astype_bool, astype_dtype_keyword, astype_with_order, astype_unbound,
                astype_float_keyword, astype_float_with_order, astype_float_casting,
                astype_complex, asarray_int, array_bool, asarray_float, sum_int,
                sum_int_positional, method_sum_int, sum_float32, mean_int, prod_int, cumsum_int,
                cumprod_int, einsum_int, full_int, full_int_positional, linspace_int,
                linspace_int_positional, arange_int, concatenate_int, stack_int, ufunc_int,
                numpy_integer_type,
                inlined_dtype_parameter, store_int, store_bool, store_int_copy, store_astype,
                store_int_loop, store_int_value_used_again, store_float,
                store_into_int_literal, store_into_nested_int_literal, store_into_arange,
                store_into_full_of_an_int, store_into_zeros_like_an_int_array,
                store_into_ones_int_by_position, store_into_argsort, store_into_a_comparison,
                store_into_int_arithmetic, store_into_where_of_ints,
                store_into_int_array_made_in_a_loop,
                store_into_float_literal, store_into_full_of_a_float, store_into_float_likes,
                store_into_int_arange_made_float, store_into_a_list_of_ints,
                astype_of_a_numpy_scalar]
CASES = [(f, X) for f in VECTOR_CASES] + [(trace_int, M)]


def finite_differences(f, x, eps=EPS):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "plain"])
@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradient_of_a_cast(f, x, optimize):
    expected = finite_differences(f, x)
    got = s2sad.grad(f, optimize=optimize)(x.copy())
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_forward_derivative_of_a_cast(f, x):
    v = np.linspace(0.3, 1.1, x.size).reshape(x.shape)
    expected = (f(x + EPS * v) - f(x - EPS * v)) / (2 * EPS)
    value, tangent = s2sad.jvp(f)(x.copy())
    assert np.isclose(value, f(x))
    assert np.isclose(tangent(v), expected, rtol=1e-6, atol=1e-6)


def scalar_sum_int(a):
    v = np.array([a, 2.0 * a])
    return np.sum(v, dtype=int) * a ** 2 + np.sum(v.astype(int) * v)


def scalar_store_int(a):
    z = np.zeros(2, dtype=int)
    z[0] = a * 3.0
    return np.sum(z) * a ** 3 + z[0] * a


def scalar_full(a):
    return np.sum(np.full(3, a, dtype=int)) * a * a + np.sum(np.asarray([a, a], bool)) * a ** 3


def scalar_float_cast(a):
    return np.sum(np.array([a, a * a]).astype(np.float64, "C") ** 2)


def scalar_store_into_int_literal(a):
    z = np.array([0, 0])
    z[0] = a * 3.0
    return np.sum(z) * a ** 3 + z[0] * a + np.sum(np.full(2, 0).astype(float) + a) * a


@pytest.mark.parametrize("f", [scalar_sum_int, scalar_store_int, scalar_full, scalar_float_cast,
                               scalar_store_into_int_literal])
def test_second_derivative_of_a_cast(f):
    a = 1.3
    first = s2sad.grad(f)
    expected = (first(a + EPS) - first(a - EPS)) / (2 * EPS)
    assert np.isclose(first(a), (f(a + EPS) - f(a - EPS)) / (2 * EPS), rtol=1e-6)
    assert np.isclose(s2sad.grad(first)(a), expected, rtol=1e-5, atol=1e-6)


def sum_to_a_chosen_dtype(x, kind):
    return np.sum(x, dtype=kind) * np.sum(x)  # <- here


def ufunc_with_a_loop_signature(x):
    return np.sum(np.add(x, x, signature="ll->l", casting="unsafe") * x)


def zeros_like_its_argument(x):  # (np.zeros has no derivative, whatever its dtype)
    z = np.zeros(4, dtype=x.dtype)
    z[1] = x[0]
    return np.sum(z * x)


def _refused_at_its_line(f, args, *phrases):
    """Both modes refuse ``f(*args)`` with a NoDerivativeError at the line marked
    ``# <- here``, whose message holds each of ``phrases``."""
    lines, start = inspect.getsourcelines(f)
    line = start + next(i for i, text in enumerate(lines) if "# <- here" in text)
    for derivative in (s2sad.grad, s2sad.jvp):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(f)(*args)
        message = str(info.value)
        assert info.value.lineno == line, message
        for phrase in phrases:
            assert phrase in message, message


def test_a_dtype_s2sad_cannot_read_is_refused_at_the_line():
    _refused_at_its_line(sum_to_a_chosen_dtype, (X.copy(), int),
                         "numpy.sum with a dtype s2sad cannot read",
                         "Write it so, or cast the result after the call")
    with pytest.raises(s2sad.NoDerivativeError, match="numpy.add with a dtype s2sad cannot"):
        s2sad.grad(ufunc_with_a_loop_signature)(X.copy())
    # (the value it reads does not depend on the differentiated argument: not refused)
    np.testing.assert_allclose(s2sad.grad(zeros_like_its_argument)(X.copy()),
                               finite_differences(zeros_like_its_argument, X))


def cast_to_the_dtype_of(x, w):
    y = np.asarray(x * 2.0, x.dtype)  # (x's dtype: a float one, x being differentiated)
    return np.sum(x.astype(w.dtype) * y)


@pytest.mark.parametrize("w", [np.zeros(4), np.zeros(4, np.float32), np.zeros(4, int),
                               np.zeros(4, bool)], ids=["float64", "float32", "int", "bool"])
def test_a_cast_to_the_dtype_of_an_argument(w):
    """The gradient is made for the kinds of its arguments: their dtypes are known."""
    f = functools.partial(cast_to_the_dtype_of, w=w)
    expected = finite_differences(f, X, 1e-3)  # (a quadratic: exact but for rounding)
    rtol = 1e-3 if w.dtype == np.float32 else 1e-6  # (x's values rounded to float32)
    np.testing.assert_allclose(s2sad.grad(cast_to_the_dtype_of)(X.copy(), w), expected,
                               rtol=rtol, atol=1e-6)
    v = np.linspace(0.3, 1.1, X.size)
    tangent = s2sad.jvp(cast_to_the_dtype_of)(X.copy(), w)[1](v)
    assert np.isclose(tangent, (f(X + 1e-3 * v) - f(X - 1e-3 * v)) / 2e-3, rtol=rtol)


def test_every_function_with_a_dtype_parameter_says_so_in_its_rule():
    """The fact is in the rule entry: a rule whose adjoint takes ``dtype`` declares it, at
    the position NumPy's own signature gives it (keyword only: None)."""
    for rule in registry.registered():
        if rule.adjoint is not None and "dtype" in registry.signature(rule.adjoint).parameters:
            assert rule.dtype is not None and rule.dtype[0] == "dtype", rule.name
        if rule.dtype is None:
            continue
        try:
            parameters = list(inspect.signature(rule.func).parameters.values())
        except (TypeError, ValueError):  # (a ufunc, a function written in C)
            continue
        names = [p.name for p in parameters]  # (np.ndarray.astype's first is self: x)
        if "dtype" not in names or rule.func is np.arange:  # (its text signature has dtype
            continue  # after `*`; NumPy takes it at position 3: np.arange(0, 5, 1, int))
        found = parameters[[p.name for p in parameters].index("dtype")]
        position = None if found.kind is found.KEYWORD_ONLY else names.index("dtype")
        assert rule.dtype == ("dtype", position), (rule.name, rule.dtype, position)


G = np.array([1.0, 2.0, 3.0, 4.0])  # (a global array: read as the function runs)


def store_array_made_twice(x):  # (an integer array on one path, a float one on the other)
    z = np.zeros(4, dtype=int)
    if x[0] > 0:
        z = np.zeros(4)
    z[0] = x[0]  # <- here
    return np.sum(z * x)


def store_into_a_global_copy(x):
    z = G.copy()
    z[0] = x[0] * 2.0  # <- here
    return np.sum(z * x)


def store_into_an_unknown_result(x):
    z = np.require(np.zeros(4))
    z[1] = x[0]  # <- here
    return np.sum(z * x)


@pytest.mark.parametrize("f", [store_array_made_twice, store_into_a_global_copy,
                               store_into_an_unknown_result])
def test_a_store_into_an_array_of_unknown_dtype_is_refused_at_the_line(f):
    """Its dtype may be an integer one (a store truncates) or a float one: refused."""
    _refused_at_its_line(f, (X.copy(),), "an array whose dtype s2sad cannot establish",
                         "Make the array in the function with a dtype s2sad reads")


def store_of_a_constant_into_a_global_copy(x):  # (no derivative is stored: not refused)
    z = G.copy()
    z[0] = 5.0
    return np.sum(z * x)


def test_a_store_without_a_derivative_into_an_array_of_unknown_dtype():
    np.testing.assert_allclose(s2sad.grad(store_of_a_constant_into_a_global_copy)(X.copy()),
                               finite_differences(store_of_a_constant_into_a_global_copy, X))


def test_every_ufunc_says_the_kind_of_its_result():
    """A ufunc's fact is read from its loops: bool ones for comparisons, integers for
    integers where it has such a loop (np.add), floats otherwise (np.sqrt)."""
    ints = np.array([3, 1, 2])
    for rule in registry.registered():
        if not isinstance(rule.func, np.ufunc) or rule.func.nout != 1:
            continue
        args = [ints] * rule.func.nin
        try:
            with np.errstate(all="ignore"):
                kind = rule.func(*args).dtype.kind
        except TypeError:
            continue
        if rule.result == "b":
            assert kind == "b", rule.name
        elif rule.result == "f":
            assert kind in "fc", rule.name
        else:
            assert kind in "iub", rule.name


class Layer:
    def __init__(self):
        self.W = np.array([1.0, 0.5, 2.0, -1.0])

    def response(self, x):
        z = np.zeros_like(self.W)  # (a float member: the stored value's derivative flows)
        z[0] = x[0] * 2.0
        return np.sum(z * self.W * x)


def store_into_zeros_like_a_member(x, layer):
    z = np.zeros_like(layer.W)
    z[1] = x[1] ** 2
    return np.sum(z * x) + layer.response(x)


def test_a_store_into_an_array_like_an_object_member():
    """An object's members are taken as floats, as before (its description has no dtypes)."""
    layer = Layer()
    f = functools.partial(store_into_zeros_like_a_member, layer=layer)
    np.testing.assert_allclose(s2sad.grad(store_into_zeros_like_a_member)(X.copy(), layer),
                               finite_differences(f, X), rtol=1e-6, atol=1e-6)
