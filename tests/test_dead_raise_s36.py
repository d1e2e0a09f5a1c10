"""A line nothing reads, which raises in Python, raises in the derivative too (session 36).

``t = x[10]`` or ``u = x + np.ones(3)`` with ``t``, ``u`` read nowhere: dead code used to drop
them, so ``grad`` returned a gradient where the user's function raises. Each row of
``RAISING`` is checked against Python itself (the same exception type) for ``grad``,
``value_and_grad`` and ``hvp`` (forward mode over the gradient's code), and for ``jvp``'s
generated code; the rows that raise in none of them are checked against float64 central
differences. ``DROPPED`` rows are lines that cannot raise, or raise only where a line kept
does: they still go. On main (2243c0d) 58 of its 74 tests fail.
"""

import numpy as np
import pytest

import s2sad

X = np.array([1.0, -2.0, 3.0, 0.5])
D = {"a": 2.0}


def helper_index(v):
    return v[10]


def index(x):
    t = x[10]
    return np.sum(x ** 2)


def reshaped(x):
    t = x.reshape(3, 3)
    return np.sum(x ** 2)


def broadcast(x):
    u = x + np.ones(3)
    return np.sum(x ** 2)


def product(x):
    u = x * np.ones(3)
    return np.sum(np.sin(x))


def unpack(x):
    a, b = x[:3]
    return np.sum(x ** 2)


def truth(x):
    t = not x
    return np.sum(x ** 2)


def in_loop(x):
    s = 0.0
    for i in range(3):
        t = x[i + 8]
        s = s + x[i] ** 2
    return s


def in_branch(x):
    if x[0] > 0:
        u = x * np.ones(3)
    return np.sum(x ** 2)


def inlined(x):
    t = helper_index(x)
    return np.sum(x ** 2)


def bool_negative(x):
    m = x > 0
    u = -m
    return np.sum(x ** 2)


def bool_subtract(x):
    m = x > 0
    u = m - m
    return np.sum(x ** 2)


def bool_index(x):
    m = x > 0
    t = m[10]
    return np.sum(x ** 2)


def integer_power(x):
    k = np.arange(4)
    u = k ** -1
    return np.sum(x ** 2)


def axis_out_of_rank(x):
    t = np.sum(x, axis=1)
    return np.sum(x ** 2)


def max_of_arrays(x):
    t = max(x, 2.0 * x)
    return np.sum(x ** 2)


def max_of_empty(x):
    e = x[4:]
    t = np.max(e)
    return np.sum(x ** 2)


def sum_of_arrays(x):
    t = sum([x, np.ones(3)])
    return np.sum(x ** 2)


def dot_of_sizes(x):
    t = np.dot(x, np.ones(3))
    return np.sum(x ** 2)


def key(x, d):
    t = d["b"]
    return np.sum(x ** 2) * d["a"]


def key_in_loop(x, d):
    s = 0.0
    for k in ("a", "b"):
        t = d[k]
        s = s + np.sum(x)
    return s


def repeated_list(x, n):
    ys = [0.0] * n
    t = ys[2]
    return np.sum(x ** 2)


def list_argument(x, ys):
    t = ys[5]
    return np.sum(x ** 2) + ys[0]


def tuple_item(x):
    p = (x, x)
    t = p[2]
    return np.sum(x ** 2)


def list_plus_number(x):
    ys = [1.0, 2.0]
    t = ys + 1.0
    return np.sum(x ** 2)


def float_range(x):
    n = x[0]
    for i in range(n):
        t = 1.0
    return np.sum(x ** 2)


def caught(x, w):
    try:
        u = x * w
    except ValueError:
        u = 0.0
    return np.sum(x * 2.0) + np.sum(w * 3.0)


def implied_pair(x, w):
    u = x * w
    return np.sum(np.sin(x) * w)


def unread_sensitivity_shape(x):
    y = np.sin(x)
    u = y * np.ones(3)
    return np.sum(y)


RAISING = [
    pytest.param(index, (X,), IndexError, id="index"),
    pytest.param(reshaped, (X,), ValueError, id="reshape"),
    pytest.param(broadcast, (X,), ValueError, id="broadcast"),
    pytest.param(product, (X,), ValueError, id="product"),
    pytest.param(unpack, (X,), ValueError, id="unpack"),
    pytest.param(truth, (X,), ValueError, id="truth"),
    pytest.param(in_loop, (X,), IndexError, id="loop"),
    pytest.param(in_branch, (X,), ValueError, id="branch"),
    pytest.param(inlined, (X,), IndexError, id="inlined-helper"),
    pytest.param(bool_negative, (X,), TypeError, id="bool-negative"),
    pytest.param(bool_subtract, (X,), TypeError, id="bool-subtract"),
    pytest.param(bool_index, (X,), IndexError, id="bool-index"),
    pytest.param(integer_power, (X,), ValueError, id="integer-power"),
    pytest.param(axis_out_of_rank, (X,), ValueError, id="axis"),  # (AxisError)
    pytest.param(max_of_arrays, (X,), ValueError, id="max-of-arrays"),
    pytest.param(max_of_empty, (X,), ValueError, id="max-of-empty"),
    pytest.param(sum_of_arrays, (X,), ValueError, id="sum-of-arrays"),
    pytest.param(dot_of_sizes, (X,), ValueError, id="dot-of-sizes"),
    pytest.param(key, (X, D), KeyError, id="key"),
    pytest.param(key_in_loop, (X, D), KeyError, id="key-in-loop"),
    pytest.param(unread_sensitivity_shape, (X,), ValueError, id="unread-beside-sin"),
    pytest.param(repeated_list, (X, 2), IndexError, id="list-times-n"),
    pytest.param(list_argument, (X, [1.0, 2.0]), IndexError, id="list-argument"),
    pytest.param(tuple_item, (X,), IndexError, id="tuple-item"),
    pytest.param(list_plus_number, (X,), TypeError, id="list-plus-number"),
    pytest.param(float_range, (X,), TypeError, id="range-of-a-float"),
    pytest.param(implied_pair, (X, np.ones(3)), ValueError, id="implied-by-a-kept-line"),
]


@pytest.mark.parametrize("f, args, error", RAISING)
def test_python_raises_so_grad_does(f, args, error):
    with pytest.raises(error):
        f(*args)
    with pytest.raises(error):
        s2sad.grad(f)(*args)
    with pytest.raises(error):
        s2sad.value_and_grad(f)(*args)


@pytest.mark.parametrize("f, args, error", RAISING)
def test_hvp_raises_too(f, args, error):
    with pytest.raises(error):
        s2sad.hvp(f)(*args, np.ones(4))


@pytest.mark.parametrize("f, args, error", [
    pytest.param(index, (X,), IndexError, id="index"),
    pytest.param(broadcast, (X,), ValueError, id="broadcast"),
    pytest.param(unpack, (X,), ValueError, id="unpack"),
    pytest.param(in_loop, (X,), IndexError, id="loop"),
])
def test_jvp_code_keeps_the_line(f, args, error):
    """``jvp`` runs the user's function for its value; its generated code keeps the line
    too (it is what a device target runs for the value)."""
    jvp = s2sad.jvp(f)
    with pytest.raises(error):
        jvp(*args)
    source = jvp.source_for(*args)
    line = {index: "x[10]", broadcast: "np.ones(3)", unpack: "x[:3]", in_loop: "x[i + 8]"}[f]
    assert line in source, source


def _central(f, args, eps=1e-6):
    x = np.asarray(args[0], dtype=float)
    out = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = eps
        out[k] = (f(x + e, *args[1:]) - f(x - e, *args[1:])) / (2 * eps)
    return out


@pytest.mark.parametrize("f, args", [
    pytest.param(index, (np.linspace(-1.0, 1.0, 12),), id="index"),
    pytest.param(broadcast, (np.array([0.3, -0.2, 0.9]),), id="broadcast"),
    pytest.param(product, (np.array([0.3, -0.2, 0.9]),), id="product"),
    pytest.param(unpack, (np.array([0.3, -0.2]),), id="unpack"),
    pytest.param(in_loop, (np.linspace(-1.0, 1.0, 12),), id="loop"),
    pytest.param(key, (X, {"a": 2.0, "b": 1.0}), id="key"),
    pytest.param(caught, (X, np.ones(3)), id="caught-in-try"),
])
def test_where_python_does_not_raise_the_gradient_is_right(f, args):
    got = s2sad.grad(f)(*args)
    np.testing.assert_allclose(got, _central(f, args), rtol=1e-6, atol=1e-8)


# --- lines that still go ---------------------------------------------------------------------

def scaled(x):
    u = x * 2.0
    return np.sum(np.sin(x))


def sliced(x):
    t = x[1:]
    return np.sum(np.sin(x))


def reduced(x):
    t = np.sum(x, axis=0)
    return np.sum(np.sin(x))


def keepdims_broadcast(x):
    m = np.sum(x, axis=1, keepdims=True)
    u = x - m
    return np.sum(np.sin(x))


def implied_by_reverse(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z)


def numbers(a, b):
    c = max(a, b)
    d = float(a * b)
    return a * b


DROPPED = [
    pytest.param(scaled, (X,), "x * 2.0", id="scaled"),
    pytest.param(sliced, (X,), "x[1:]", id="slice"),
    pytest.param(reduced, (X,), "np.sum(x, axis=0)", id="sum-axis-in-rank"),
    pytest.param(keepdims_broadcast, (np.ones((2, 3)),), "x - m", id="keepdims"),
    pytest.param(implied_by_reverse, (np.ones(3), np.ones((5, 3)), np.ones(5)), "y * z",
                 id="implied-by-a-kept-line"),
    pytest.param(numbers, (0.5, 2.0), "max(", id="python-numbers"),
    pytest.param(implied_pair, (np.ones(3), np.ones(3)), "x * w", id="implied-pair"),
]


@pytest.mark.parametrize("f, args, text", DROPPED)
def test_a_line_that_cannot_raise_still_goes(f, args, text):
    source = s2sad.grad(f).source_for(*args)
    assert text not in source, source


def test_the_rule_table_says_what_raises():
    """Each elementwise rule whose entry declares no ``raises`` is taken to raise only where
    its arrays do not broadcast: checked against NumPy on floats, ints and bools."""
    import inspect
    import warnings
    from s2sad import registry
    wrong = []
    for rule in registry.registered():
        facts = registry.facts(rule.func)
        if rule.shape != "elementwise" or facts is None or facts.raises is not None:
            continue
        f = rule.func
        if isinstance(f, np.ufunc):
            n = f.nin
        else:
            try:
                params = list(inspect.signature(rule.adjoint or f).parameters.values())
            except (TypeError, ValueError):
                continue
            params = params[2:] if rule.adjoint else params
            n = sum(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                         p.POSITIONAL_OR_KEYWORD)
                    for p in params)
        if n == 0:
            continue
        for value in (np.array([0.5, -1.5, 2.0]), np.array([1, -2, 3]),
                      np.array([True, False, True])):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    f(*[value] * n)
            except Exception as exc:  # noqa: BLE001 (any error: a fact missing)
                wrong.append(f"{registry.describe_function(f)}({value.dtype}): {exc!r}")
    assert not wrong, wrong


def test_conditions_of_one_line():
    import gast
    from s2sad.transforms.kinds import Kind
    from s2sad.transforms.unread_raises import UnreadRaises
    kinds = {"x": Kind("array", "x", 1), "w": Kind("array", "w", 1),
             "a": Kind("scalar", "()", 0, py="float")}
    facts = UnreadRaises(kinds, {"x": ("f", "a"), "w": ("f", "a")}, lambda func: None)

    def of(text):
        return facts.conditions(gast.parse(text).body[0])
    assert of("t = x * w") == {frozenset({"x", "w"})}
    assert of("t = x * a") == frozenset()
    assert of("t = x[0]") is None
    assert of("a1, a2 = (x, w)") == frozenset()
    assert of("a1, a2 = x") is None
