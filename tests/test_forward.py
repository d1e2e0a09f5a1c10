"""Forward mode by source transformation: ``s2sad.jvp``.

* forward and reverse agree on every rule: for every row of the NumPy rule table
  (``tests/test_numpy_rules.py``, ~290 functions over the whole registry) and the
  control-flow table, ``<jvp(f)(x; v), 1> == <grad f(x), v>`` for a random ``v``;
* every function with an adjoint rule has a tangent rule (or is linear, or elementwise);
* tangents of vector and tuple outputs against finite differences;
* the generated source is readable: ``d_*`` tangents next to their values.
"""

import os

import numpy as np
import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
# The rule tables kept in their own files, read by the check that every rule has a case.
OTHER_TABLES = ("test_scipy_special.py", "test_scipy_integrate.py", "test_scipy_stats.py",
                "test_scipy_linalg.py", "test_numpy_gaps.py", "test_complex.py",
                "test_fft.py", "test_scipy_signal.py", "test_scipy_xp.py",
                "test_complex_linalg.py")

import s2sad  # noqa: E402
from s2sad import registry  # noqa: E402
import test_numpy_rules as T  # noqa: E402
from tests import cases_control as CC  # noqa: E402

rng = np.random.default_rng(11)


def _direction(x):
    """A random tangent with the structure of ``x`` (float64)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_direction(v) for v in x)
    if isinstance(x, np.ndarray):
        return rng.normal(size=x.shape).astype(x.dtype if x.dtype.kind == "f" else float)
    if isinstance(x, (float, np.floating)):
        return float(rng.normal())
    return None


def _dot(a, b) -> float:
    return float(np.dot(T._flat(a), T._flat(b)))


def _table_rows():
    rows = []
    for row in T.CASES:
        for param in row:
            f, args, wrt, optimize = param.values
            if not optimize or param.marks:  # one row per function; known bugs elsewhere
                continue
            rows.append(pytest.param(f, args, wrt, id=param.id[:-len("-opt")]))
    return rows


def _check_forward_against_reverse(f, args, wrt, rtol, atol):
    indices = list(wrt) if isinstance(wrt, tuple) else [wrt]
    args = T._copy(args)
    for i in indices:
        v = _direction(args[i])
        value, push = s2sad.jvp(f, wrt=i)(*args)
        tangent = push(v)
        gradient = s2sad.grad(f, wrt=i)(*args)
        np.testing.assert_allclose(float(np.asarray(tangent)), _dot(gradient, v), rtol=rtol,
                                   atol=atol, err_msg=f"{f.__name__}: jvp != <grad, v> "
                                   f"for argument {i}")
        np.testing.assert_allclose(np.asarray(value, dtype=float),
                                   np.asarray(f(*args), dtype=float), rtol=1e-12)


@pytest.mark.parametrize("f, args, wrt", _table_rows())
def test_forward_and_reverse_agree_on_the_rule_table(f, args, wrt):
    float32 = any(T._has_float32(a) for a in args)
    _check_forward_against_reverse(f, args, wrt, *(1e-3, 1e-3) if float32 else (1e-9, 1e-10))


CONTROL = [
    (CC.seed_while, (rng.normal(size=3),), 0),
    (CC.branchy, (2.0, 1.0), 0), (CC.branchy, (0.5, 1.0), 0), (CC.branchy, (-0.5, 1.0), 1),
    (CC.ifexp, (0.5,), 0), (CC.sum_loop, (rng.normal(size=4),), 0),
    (CC.sum_loop, ([0.3, -1.2, 2.0],), 0), (CC.range_loop, (0.7, 3), 0),
    (CC.scalar_while, (1.3,), 0), (CC.nested, (rng.normal(size=(3, 3)) * 0.5,
                                               rng.normal(size=(4, 3))), 0),
    (CC.zipped, (rng.normal(size=4), rng.normal(size=4)), 1),
    (CC.rnn, (rng.normal(size=(4, 4)) * 0.4, rng.normal(size=(4, 3)),
              rng.normal(size=(6, 3)), rng.normal(size=4)), (0, 1, 2, 3)),
    (CC.tuple_loop, (0.4,), 0), (CC.list_loop, ([0.5, -1.5, 2.0], 0.3), (0, 1)),
    (CC.loop_carried_pair, (0.8,), 0), (CC.nested_branch_in_loop, (0.45,), 0),
    (CC.while_with_counter, (1.7,), 0), (CC.not_and_or, (0.5, 2.0), 0),
    (CC.for_else, (0.9,), 0), (CC.while_else, (0.9,), 0), (CC.early_returns, (0.5,), 0),
    (CC.loop_with_break, (0.9,), 0), (CC.loop_with_continue, (0.7,), 0),
    (CC.while_true_break, (1.1,), 0), (CC.for_else_break, (2.0,), 0),
    (CC.nested_break, (rng.normal(size=3),), 0), (CC.setitem_basic, (rng.normal(size=3),), 0),
    (CC.setitem_in_loop, (rng.normal(size=5),), 0), (CC.setitem_mask, (rng.normal(size=6),), 0),
    (CC.setitem_list, (0.3, 1.2), (0, 1)), (CC.setitem_broadcast, (rng.normal(size=3), 0.7),
                                            (0, 1)),
    (CC.f4_compact, ([1.0, 2.0, 3.0, 4.0],), 0), (CC.list_comprehension, (rng.normal(size=4),), 0),
    (CC.nested_comprehension, (rng.normal(size=3), rng.normal(size=2)), (0, 1)),
    (CC.append_loop, (0.4,), 0), (CC.append_then_index, (0.4,), 0),
    (CC.iterate_a_name_rebound_in_the_loop, (0.4, rng.normal(size=3)), (0, 1)),
    (CC.iterate_an_expression, (rng.normal(size=3),), 0),
    (CC.sequence_conversions, (0.3, 0.7), (0, 1)),
]


@pytest.mark.parametrize("f, args, wrt", [pytest.param(*c, id=f"{c[0].__name__}-{i}")
                                          for i, c in enumerate(CONTROL)])
def test_forward_and_reverse_agree_with_control_flow(f, args, wrt):
    _check_forward_against_reverse(f, args, wrt, 1e-9, 1e-10)


def test_every_rule_has_a_tangent():
    """Forward mode knows every function reverse mode knows, s2sad's helpers included."""
    missing = [rule.name for rule in registry.registered(helpers=True)
               if rule.differentiable and not rule.has_tangent()]
    assert not missing


def test_the_table_covers_every_rule():
    """Each function with an adjoint rule is called by a function of the table above (so
    forward and reverse mode are compared on every rule of the registry)."""
    import re
    with open(os.path.join(_HERE, "cases_numpy.py")) as f:
        text = f.read()
    for other in OTHER_TABLES:  # (the tables of scipy.special, scipy.stats, ...)
        with open(os.path.join(_HERE, other)) as f:
            text += f.read()
    elsewhere = {"math.atan", "math.pow"}  # tests/test_gradients.py
    missing = [rule.name for rule in registry.registered() if rule.adjoint is not None and
               rule.name not in elsewhere and
               not re.search(r"\b%s\b" % rule.name.split(".")[-1], text)]
    assert not missing


def test_every_tangent_rule_parses():
    for rule in registry.registered(helpers=True):
        if rule.tangent is not None:
            pre, returned = rule.parsed_tangent()
            assert returned is not None


# --- vector outputs, several arguments, the source ---------------------------------------------


def vector_out(x, w):
    h = np.tanh(w @ x)
    return np.concatenate([h, np.array([np.sum(h * h)])])


def tuple_out(x, y):
    return x * y, np.sin(x) + y


def test_vector_output_against_finite_differences():
    x, w = rng.normal(size=3), rng.normal(size=(2, 3))
    v = rng.normal(size=3)
    value, push = s2sad.jvp(vector_out)(x, w)
    eps = 1e-6
    expected = (vector_out(x + eps * v, w) - vector_out(x - eps * v, w)) / (2 * eps)
    np.testing.assert_allclose(push(v), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(value, vector_out(x, w))


def test_tuple_output_and_several_arguments():
    value, push = s2sad.jvp(tuple_out, wrt=(0, 1))(0.5, 2.0)
    assert value == tuple_out(0.5, 2.0)
    dx, dy = push(1.0, 0.0), push(0.0, 1.0)
    assert dx == pytest.approx((2.0, np.cos(0.5)))
    assert dy == pytest.approx((0.5, 1.0))
    assert isinstance(dx, tuple)


def test_tangent_has_the_structure_of_the_output():
    _, push = s2sad.jvp(vector_out)(np.ones(3), np.ones((2, 3)))
    out = push(np.ones(3))
    assert isinstance(out, np.ndarray) and out.shape == (3,)


def test_source_has_tangents_next_to_values():
    text = s2sad.jvp(CC.range_loop).source_for(0.7, 3)
    assert "def jvp_range_loop(x, n, d_x):" in text
    assert "d_y" in text and "stack" not in text
    assert text == s2sad.jvp(CC.range_loop).source_for(0.5, 4)


def test_power_with_respect_to_the_exponent():
    def f(x, y):
        return np.sum(x ** y)

    x, y = np.array([0.5, 1.5, 2.0]), np.array([1.5, 0.5, 2.5])
    for i in (0, 1):
        _check_forward_against_reverse(f, (x, y), i, 1e-10, 1e-12)


def test_tangent_of_a_wrong_shape_is_refused_or_broadcast():
    _, push = s2sad.jvp(CC.sum_loop)(np.ones(3))
    assert push(np.ones(3)) == pytest.approx(6.0)


def test_unknown_function_is_a_located_error():
    with pytest.raises(s2sad.NoDerivativeError, match="no derivative rule"):
        s2sad.jvp(uses_unknown)(1.0)


def uses_unknown(x):
    return np.frexp(x)[0] * x


def _number_spread_by_an_array(a, M):
    b = np.sin(np.sum(M + a))  # a number added to each entry of M: d(M + a) is d_a spread
    c = np.sum((M - a) * np.ones(3))
    return np.tanh((b * np.arange(3.0)) @ np.arange(3.0)) + c * a


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_tangent_of_a_number_spread_by_an_inactive_array(optimize):
    """The tangent of ``M + a`` (``M`` not differentiated) has the shape of ``M``: it was
    ``d_a`` alone, so np.sum of it missed a factor of M.size (found by the fuzzer)."""
    M = np.array([[1.1, -0.05, 0.8], [-0.7, -0.016, 0.0], [0.4, -0.44, 0.47]])
    f = _number_spread_by_an_array
    _, push = s2sad.jvp(f, wrt=0, optimize=optimize)(0.68, M)
    expected = (f(0.68 + 1e-6, M) - f(0.68 - 1e-6, M)) / 2e-6
    np.testing.assert_allclose(push(1.0), expected, rtol=1e-6)
    np.testing.assert_allclose(s2sad.grad(f, optimize=optimize)(0.68, M), expected, rtol=1e-6)


# --- a literal beside a varying argument of a jointly linear call (issue 32) -----------------
# np.linspace(a, 2.0, 5) is affine in 2.0: its tangent is np.linspace(d_a, 0.0, 5), not with
# the 2.0, which is a constant offset; so are initial=, sum's start and constant_values=


def _linspace_literal(a):
    return np.sum(np.linspace(a, 2.0, 5) ** 2) + np.sum(np.linspace(1.5, a * a, 4) ** 3)


def _sum_initial_literal(x):
    return np.sum(x ** 2, initial=5.0) ** 2 + np.sum(np.sum(x, axis=0, initial=-1.0) ** 2)


def _builtin_sum_start_literal(x):
    return sum([x, x * x], 2.0) ** 2 + sum([1.5, x], x * 3.0) ** 3


def _pad_literal(x):
    return np.sum(np.pad(x, 1, constant_values=3.0) ** 2) + \
        np.sum(np.pad(x * x, ((1, 0), (2, 1)), constant_values=-0.5) ** 3)


def _fd(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[i] = eps
        out[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


@pytest.mark.parametrize("f, x", [
    (_linspace_literal, 0.3), (_sum_initial_literal, rng.normal(size=(3, 2))),
    (_builtin_sum_start_literal, 0.4), (_pad_literal, rng.normal(size=(2, 3)))],
    ids=["linspace", "sum-initial", "builtin-sum-start", "pad-constant-values"])
def test_a_literal_offset_does_not_leak_into_the_tangent(f, x):
    """jvp, forward jacobian, hessian and hvp (forward over reverse) against central
    differences: each kept the literal (2.0 in np.linspace(d_a, 2.0, 5)) in the tangent."""
    def scalar_or_array(y):
        return float(y) if np.ndim(y) == 0 else y
    direction = _direction(x)
    _, push = s2sad.jvp(f)(x)
    expected = _fd(lambda y: f(scalar_or_array(y)), x)
    np.testing.assert_allclose(push(direction), np.sum(expected * direction), rtol=1e-6,
                               atol=1e-8)
    if np.ndim(x):  # forward mode's jacobian, column by column
        np.testing.assert_allclose(s2sad.jacobian(f, mode="fwd")(x), expected, rtol=1e-6,
                                   atol=1e-8)
    gradient, size = s2sad.grad(f), int(np.size(x))
    columns = []  # d grad / d x_j, by central differences
    for j in range(size):
        e = np.zeros(size)
        e[j] = 1e-5
        step = e.reshape(np.shape(x))
        columns.append(np.ravel(gradient(scalar_or_array(x + step)) -
                                gradient(scalar_or_array(x - step))) / 2e-5)
    hessian = np.asarray(s2sad.hessian(f)(x))
    np.testing.assert_allclose(hessian.reshape(size, size), np.array(columns).T, rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(np.ravel(s2sad.hvp(f)(x, direction)),
                               hessian.reshape(size, size) @ np.ravel(direction), rtol=1e-6,
                               atol=1e-8)
