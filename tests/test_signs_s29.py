"""Session 29: negations that cancel taken out of the generated code (s2sad.transforms.signs).

The logistic log-likelihood's gradient had 17 operations on arrays where a person writes 5:
the seed ``-1.0`` of ``-np.sum``, the adjoints of ``1.0 - p`` and ``1.0 / t`` each negated,
and negations of negations. Each rewrite must be exact: the tests compare the new code with
the old one bit for bit (NaN and infinity included) and with central differences.
"""

import inspect
import random

import gast
import numpy as np
import pytest

import s2sad
from s2sad.codegen import unparse
from s2sad.transforms.signs import Signs


def logistic(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.sum(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def logistic_before(w, X, y):
    """The gradient s2sad generated for ``logistic`` before the pass (session 28)."""
    z = X @ w
    t_2 = np.exp(-z)
    t_3 = 1.0 + t_2
    p = 1.0 / t_3
    s_10 = -1.0
    s_7 = (1.0 - y) * s_10 / (1.0 - p)
    s_p = -s_7
    s_p += y * s_10 / p
    s_1 = -s_p * p / t_3 * t_2
    s_z = -s_1
    return X.T @ s_z


def _arithmetic(source: str) -> int:
    tree = gast.parse(source)
    return sum(1 for n in gast.walk(tree) if isinstance(n, (gast.BinOp, gast.AugAssign)) or
               isinstance(n, gast.UnaryOp) and not isinstance(n.operand, gast.Constant))


def _data(rng, n=40, d=5):
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = (rng.random(n) < 0.5).astype(float)
    return w, X, y


def test_logistic_gradient_has_the_operations_a_person_writes():
    w, X, y = _data(np.random.default_rng(0))
    source = s2sad.grad(logistic).source_for(w, X, y)
    body = source[source.index("def "):]
    # z = X @ w; exp(-z); 1 + t_2; 1 / t_3; (1 - y) / (1 - p) - y / p; * p / t_3 * t_2;
    # X.T @ s_z: 13 in all, with the two products by matrices (18 before)
    before = inspect.getsource(logistic_before)
    assert _arithmetic(before[before.index("def "):]) == 18
    assert _arithmetic(body) == 13, source
    assert "p = 1.0 / (1.0 + t_2)" in body and "s_p * p * p * t_2" in body, source
    assert "--" not in body and "-1.0" not in body and "-s_" not in body, source


def test_logistic_gradient_is_the_old_one_to_rounding():
    """The sensitivity of each ``z`` (one row, ``X`` one: the gradient is it) is the old
    code's to 4 units in the last place (the signs: exact; ``s * p / t`` as ``s * p * p``:
    one rounding), NaN and infinity where they were, for ``z`` from -800 to 800."""
    z = np.concatenate([np.linspace(-800.0, 800.0, 81), np.linspace(-40.0, 40.0, 161)])
    grad = s2sad.grad(logistic)
    one = np.ones((1, 1))
    for y in (0.0, 1.0, 0.3):
        labels = np.array([y])
        with np.errstate(all="ignore"):
            new = np.array([grad(np.array([v]), one, labels)[0] for v in z])
            old = np.array([logistic_before(np.array([v]), one, labels)[0] for v in z])
        assert np.isnan(old).any() and np.isfinite(old).sum() > 150
        np.testing.assert_array_equal(np.isnan(new), np.isnan(old))
        np.testing.assert_array_equal(new[np.isinf(old)], old[np.isinf(old)])
        finite = np.isfinite(old)
        np.testing.assert_array_max_ulp(new[finite], old[finite], maxulp=4)


def signs_only(w, X, y):
    z = X @ w
    e = np.exp(-z)
    return -np.sum(y * np.log(e) - (1.0 - y) * np.tanh(-e))


def test_the_signs_alone_keep_the_unoptimized_gradient_to_the_bit():
    """Without a reciprocal, the optimized gradient is the unoptimized one to the bit
    (NaN and infinity included): the negations moved are exact."""
    rng = np.random.default_rng(4)
    w, X, y = _data(rng, n=300)
    X[:30] *= 400.0
    optimized, plain = s2sad.grad(signs_only), s2sad.grad(signs_only, optimize=False)
    with np.errstate(all="ignore"):
        new, old = optimized(w, X, y), plain(w, X, y)
        assert not np.isfinite(old).all()
        np.testing.assert_array_equal(new, old)
        np.testing.assert_array_equal(optimized(w, X[30:], y[30:]), plain(w, X[30:], y[30:]))


def _central(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def negated_chain(x, y):
    t = -x * y
    u = -(t / (1.0 + x * x))
    return -np.sum(-u * np.exp(-x)) + np.sum(-(-y) * x)


def negated_loop(x):
    acc = 0.0
    for k in range(3):
        acc = acc - (-x[k]) * x[k + 1] / (1.0 + x[k] ** 2)
    return -acc


def float_negations(a, b):
    c = -a * b
    return -(c / (1.0 + b * b)) - -a


def int_weights(w, k):
    return -np.sum(k * np.log(w)) - np.sum((1 - k) * np.log(2.0 - w))


def reciprocal_read_again(x):
    t = 1.0 + x * x
    return np.sum(1.0 / t * x) + np.sum(np.log(t))  # (t read again: it stays)


def reciprocal_twice(x):
    r = 1.0 / (2.0 + np.sin(x))
    return np.sum(r * r * x) - np.sum(1.0 / (1.0 + np.exp(-r)))


CASES = [
    ("logistic", logistic, lambda rng: _data(rng), 0),
    ("negated-chain", negated_chain, lambda rng: (rng.standard_normal(6),
                                                  rng.standard_normal(6)), 0),
    ("negated-chain-y", negated_chain, lambda rng: (rng.standard_normal(6),
                                                    rng.standard_normal(6)), 1),
    ("negated-loop", negated_loop, lambda rng: (rng.standard_normal(5),), 0),
    ("python-floats", float_negations, lambda rng: (0.7, -1.3), 0),
    ("python-floats-b", float_negations, lambda rng: (0.7, -1.3), 1),
    ("reciprocal-read-again", reciprocal_read_again, lambda rng: (rng.standard_normal(6),),
     0),
    ("reciprocal-twice", reciprocal_twice, lambda rng: (rng.standard_normal(6),), 0),
    ("int-weights", int_weights, lambda rng: (rng.uniform(0.2, 0.8, 7),
                                              rng.integers(0, 2, 7)), 0),
]


@pytest.mark.parametrize("name,f,make,wrt", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_central_differences(name, f, make, wrt):
    args = make(np.random.default_rng(2))
    g = s2sad.grad(f, wrt=wrt)(*args)
    x = np.asarray(args[wrt], dtype=float)

    def at(v):
        new = list(args)
        new[wrt] = v if np.ndim(args[wrt]) else float(v)
        return f(*new)
    np.testing.assert_allclose(g, _central(at, x), rtol=1e-6, atol=1e-8)


def test_a_reciprocal_read_again_keeps_its_quotient():
    x = np.linspace(-1.0, 1.0, 5)
    text = s2sad.grad(reciprocal_read_again).source_for(x)
    assert "t_2 / t\n" in text, text  # (t, the user's, stays: so does the quotient)
    text = s2sad.grad(reciprocal_twice).source_for(x)
    body = text[text.index("def "):]
    # (the slope of r = 1.0 / t through r: t goes back into r's line)
    assert "r = 1.0 / (2.0 + np.sin(x))" in body and "r * r * np.cos(x)" in body, text


def test_float32_and_integer_data_keep_their_results():
    """``y * -1.0 / p`` is ``-(y / p)`` for any real ``y`` (the quotient is float); the
    gradient for float32 and integer labels is the old code's, to rounding, and its
    dtype."""
    rng = np.random.default_rng(3)
    w, X, y = _data(rng)
    for labels in (y.astype(np.int64), y.astype(np.float32), y.astype(bool)):
        new, old = s2sad.grad(logistic)(w, X, labels), logistic_before(w, X, labels)
        assert new.dtype == old.dtype
        np.testing.assert_allclose(new, old, rtol=1e-13)


def complex_scale(x, c):
    return np.sum(np.abs(-c * x) ** 2)


def test_complex_values_keep_their_unit_factors():
    """Complex ``y * 1.0`` is not ``y`` where a part is infinite: not dropped there."""
    x = np.array([0.5, -1.5, 2.0])
    c = 1.0 - 2.0j
    g = s2sad.grad(complex_scale)(x, c)
    np.testing.assert_allclose(g, _central(lambda v: complex_scale(v, c), x), rtol=1e-6)


# --- the pass alone: random statements, run before and after, bit for bit ------------------

def _random_program(rng: random.Random) -> str:
    """Straight-line code over float arrays ``a, b, c``, an integer array ``k`` and
    temporaries ``s_1...``, with negations, numbers, calls and a second read of some
    temporaries."""
    names = ["a", "b", "c", "k"]
    lines = []

    def operand():
        name = rng.choice(names)
        return rng.choice([name, f"-{name}", f"-(-{name})"])

    def expression(depth=0):
        if depth > 2 or rng.random() < 0.3:
            return rng.choice([operand(), operand(), rng.choice(["-1.0", "2.0", "1.0",
                                                                 "-0.5", "1"])])
        op = rng.choice(["*", "/", "+", "-", "*", "/", "call"])
        if op == "call":
            return f"np.abs({expression(depth + 1)})"
        text = f"({expression(depth + 1)} {op} {expression(depth + 1)})"
        return rng.choice([text, f"-{text}"])

    for k in range(1, rng.randint(3, 8)):
        target = f"s_{k}"
        if k > 1 and rng.random() < 0.25:
            lines.append(f"{target} = -{rng.choice(names[4:] or names)}")
        else:
            lines.append(f"{target} = {expression()}")
        if rng.random() < 0.3:
            lines.append(f"{target} += {expression()}")
        names.append(target)
    lines.append(f"out = {expression()}")
    return "def g(a, b, c, k):\n" + "".join(f"    {line}\n" for line in lines) + \
        f"    return out, {', '.join(names[4:])}\n"


def _run(source, values):
    space = {"np": np}
    exec(compile(source, "<signs>", "exec"), space)
    with np.errstate(all="ignore"):
        try:
            return space["g"](*[v.copy() for v in values])
        except Exception as error:  # (1.0 / (1.0 - 1.0); an integer array += a float)
            return (f"raised {type(error).__name__}",)


def _same(x, y) -> bool:
    if isinstance(x, str) or isinstance(y, str):
        return x == y
    x, y = np.asarray(x), np.asarray(y)
    return x.dtype == y.dtype and x.shape == y.shape and bool(
        np.all((x == y) | (np.isnan(x) & np.isnan(y))))


def test_random_statements_compute_the_same_bits():
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 1.5, -2.25, 3e300, 7.0])
    rng = random.Random(29)
    integers = np.array([0, 3, -2, 0, 1, 0, -1, 5, 0, 2])
    values = [special, np.roll(special, 3), np.roll(special, 7), integers]
    changed = 0
    for _ in range(300):
        source = _random_program(rng)
        tree = gast.parse(source).body[0]
        temporaries = {f"s_{k}" for k in range(1, 10)}
        pass_ = Signs(temporaries, {"a": ("f", "a"), "b": ("f", "a"), "c": ("f", "a")})
        after = unparse(pass_.visit(tree))
        changed += pass_.changed
        before_out, after_out = _run(source, values), _run(after, values)
        assert len(before_out) == len(after_out)
        for x, y in zip(before_out, after_out, strict=True):
            assert _same(x, y), (source, after)
        for v, original in zip(values, [special, np.roll(special, 3), np.roll(special, 7),
                                        np.array([0, 3, -2, 0, 1, 0, -1, 5, 0, 2])],
                               strict=True):
            assert _same(v, original)
    assert changed > 100  # (the programs do give it negations to take out)


def test_a_temporary_read_twice_is_not_given_a_second_name():
    fn = gast.parse("def g(a, b, c):\n"
                    "    s_1 = -(a * b)\n"
                    "    s_2 = -s_1\n"
                    "    s_2 += c\n"
                    "    s_3 = s_1 * c\n"
                    "    return s_2, s_3\n").body[0]
    text = unparse(Signs({"s_1", "s_2", "s_3"}, {}).visit(fn))
    assert "s_2 = s_1\n" not in text, text
    a, b, c = np.array([1.0, 2.0]), np.array([3.0, -1.0]), np.array([0.5, 0.25])
    before = _run("def g(a, b, c):\n    s_1 = -(a * b)\n    s_2 = -s_1\n    s_2 += c\n"
                  "    s_3 = s_1 * c\n    return s_2, s_3\n", [a, b, c])
    for x, y in zip(before, _run(text, [a, b, c]), strict=True):
        assert _same(x, y)
