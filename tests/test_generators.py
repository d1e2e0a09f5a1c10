"""Generators of the user's (issue 35): a helper with ``yield`` consumed by a ``for`` loop,
``list``, ``tuple``, ``sum``, a list comprehension, ``enumerate`` or ``zip`` in the
differentiated function is written out where it is consumed (s2sad/transforms/generators.py).
Each gradient against central differences (float64), forward mode against reverse, the
Hessian against differences of the gradient, every side effect once and in Python's
order; what cannot be written out exactly is refused at its line."""

import inspect

import numpy as np
import pytest

import s2sad
from s2sad.errors import DifferentiationError, UnsupportedSyntaxError
from test_higher_order import central_differences

from tests import cases_generators

EPS = 1e-6
X = np.array([0.3, -0.7, 1.1, 0.45, -0.2, 0.9, 0.15, -1.3, 0.6, 0.25, -0.4, 0.8, 0.05])
LOG = []  # what the generators and the loops' bodies did, in order


# --- generators ------------------------------------------------------------------------------

def unpack_layers(params, sizes):
    """autograd's pattern: the weights of each layer, cut out of one flat vector."""
    start = 0
    for m, n in zip(sizes[:-1], sizes[1:]):
        W = params[start:start + m * n].reshape(m, n)
        b = params[start + m * n:start + m * n + n]
        yield W, b
        start += m * n + n


def counted(x, n):
    k = 0
    while True:
        if k >= n:
            return
        LOG.append(("gen", k))
        yield x * k
        k += 1


def scaled(x, n=4):
    for i in range(n):
        yield i, np.cos(x * i)


def grid(x):
    for i in range(2):
        for j in range(3):
            if j == 2:
                break
            yield x * i + j


def chained(x):
    yield x
    yield from grid(x * 2)
    yield from [x, x * 3]


def noisy(x):
    print("noisy", float(np.sum(x)))
    yield np.sin(x)
    print("noisy again")
    yield np.cos(x)


# --- the functions differentiated ---------------------------------------------------------

def mlp(params):
    inputs = np.linspace(-1, 1, 6).reshape(3, 2)
    h = inputs
    for W, b in unpack_layers(params, (2, 3, 1)):
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)


def ends_by_return(x):
    t = 0.0
    for v in counted(x, 4):
        t = t + np.sum(np.sin(v))
    return t


def breaks(x):
    t = 0.0
    for v in counted(x, 10):
        LOG.append(("body", round(float(t), 9)))
        if t > 0.5:
            break
        t = t + np.sum(np.sin(v) ** 2)
    else:
        t = t * 100
    return t


def continues_else(x):
    t = 0.0
    for i, v in scaled(x):
        if i % 2 == 1:
            continue
        t = t + np.sum(v * v)
    else:
        t = t * 2
    return t


def nested_loops(x):
    t = 0.0
    for v in grid(x):
        t = t + np.sum(np.exp(-v * v))
    return t


def yields_from(x):
    t = 0.0
    for v in chained(x):
        t = t + np.sum(np.sin(v))
    return t


def listed(x):
    vs = list(grid(x))
    return np.sum(np.stack(vs) ** 2) + np.sum(tuple(chained(x))[1])


def summed(x):
    return np.sum(sum(grid(x))) + sum(np.sum(v ** 3) for v in chained(x))


def comprehended(x):
    vs = [np.sin(v) for v in grid(x)]
    return np.sum(np.stack(vs))


def consumer(x):
    t = 0.0
    for v in chained(x):
        LOG.append(("helper", round(float(np.sum(v)), 9)))
        t = t + np.sum(v ** 2)
    return t


def in_a_helper(x):
    return consumer(x) * 2.0 + consumer(x * 0.5)


def generator_in_generator_loop(x):
    t = 0.0
    for v in grid(x):
        for i, w in scaled(v, 3):
            t = t + np.sum(w * v) * i
    return t


def returns_from_the_body(x):
    t = 0.0
    for v in grid(x):
        t = t + np.sum(v ** 2)
        if t > 15.0:
            return t * 2
    return t


def enumerated(x):
    t = 0.0
    for k, v in enumerate(grid(x), 1):
        t = t + k * np.sum(np.sin(v))
    return t


def zipped(x):
    t = 0.0
    for a, v, c in zip([1.0, 2.0, 3.0], grid(x), (0.5, -1.0, 2.0, 4.0)):
        t = t + a * c * np.sum(np.tanh(v))
    return t


def zipped_short_before(x):
    t = 0.0
    for a, v in zip([1.0, 2.0], counted(x, 5)):
        t = t + np.sum(a * np.sin(v))
    return t


def zipped_short_after(x):
    t = 0.0
    for v, a in zip(counted(x, 5), [1.0, 2.0]):
        if a > 5:
            break
        t = t + np.sum(a * np.sin(v))
    else:
        t = t * 3
    return t


def printed(x):
    t = 0.0
    for v in noisy(x):
        print("body", float(np.sum(v)))
        t = t + np.sum(v ** 2 * x)
    return t


CASES = [mlp, ends_by_return, breaks, continues_else, nested_loops, yields_from, listed,
         summed, comprehended, in_a_helper, generator_in_generator_loop,
         returns_from_the_body, enumerated, zipped, zipped_short_before, zipped_short_after,
         printed]


def _run(f, *args):
    LOG.clear()
    value = f(*args)
    done = LOG[:]
    LOG.clear()
    return value, done


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_gradient_against_central_differences(f, capsys):
    _, expected_log = _run(f, X)
    expected_out = capsys.readouterr().out
    LOG.clear()
    gradient = s2sad.grad(f)(X)
    assert LOG == expected_log  # (each side effect once, in Python's order)
    assert capsys.readouterr().out == expected_out
    LOG.clear()
    numeric = central_differences(f, [X], 0)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-7)
    assert np.any(gradient != 0)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_forward_mode_matches_reverse(f, capsys):
    direction = np.linspace(-1.0, 1.0, X.size)
    value, push = s2sad.jvp(f)(X, )
    np.testing.assert_allclose(value, f(X), rtol=1e-12)
    np.testing.assert_allclose(push(direction), s2sad.grad(f)(X) @ direction, rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("f", [mlp, breaks, continues_else, yields_from, summed, enumerated,
                               zipped, in_a_helper],
                         ids=lambda f: f.__name__)
def test_second_order(f, capsys):
    hessian = s2sad.hessian(f)(X)
    numeric = central_differences(s2sad.grad(f), [X], 0)
    np.testing.assert_allclose(hessian, numeric, rtol=1e-5, atol=1e-6)


def test_the_generator_is_gone_from_the_generated_code():
    text = s2sad.grad(ends_by_return).source
    assert "counted" not in text and "yield" not in text
    assert s2sad.grad(pairs_user)(2.0) == sum(i * 2 * i for i in range(2))


def pairs(n):
    for i in range(n):
        if i == 2:
            return
        yield i, 2 * i


def pairs_user(x):
    t = 0.0
    for a, b in pairs(4):
        t = t + a * b * x
    return t


def test_the_expansion_text():
    """The docstring of s2sad/transforms/generators.py shows this expansion."""
    from s2sad.codegen import unparse
    from s2sad.names import Namer
    from s2sad.source import FunctionSource
    from s2sad.transforms.generators import expand_generators
    source = FunctionSource.of(pairs_user)
    tree, changed = expand_generators(source.tree, source, Namer.for_tree(source.tree))
    assert changed
    assert unparse(tree).strip().splitlines()[1:] == [
        "    t = 0.0", "    n = 4", "    done = False", "    for i in range(n):",
        "        if i == 2:", "            done = True", "            break",
        "        a, b = (i, 2 * i)", "        t = t + a * b * x", "    return t"]


# --- refused, at the user's line -------------------------------------------------------------

def gen(x):
    for i in range(3):
        yield x * i


def marked(func) -> int:
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if "# <- here" in line)


def uses_next(x):
    return np.sum(next(gen(x)))  # <- here


def keeps_it(x):
    g = gen(x)  # <- here
    t = 0.0
    for v in g:
        t = t + np.sum(v)
    return t


def consumed_in_a_branch(x):
    return np.sum(x) > 0 and np.sum(sum(gen(x)))  # <- here


def shows(v):
    print("shows")
    return v


def noisy_after_a_call(x):
    return np.sum(shows(x)) + np.sum(sum(noisy(x)))  # <- here


def recurse(x, n):
    yield x
    yield from recurse(x, n - 1)


def recursive(x):
    t = 0.0
    for v in recurse(x, 3):
        t = t + np.sum(v)
    return t


def receives(x):
    y = yield x  # <- here
    yield y


def sends(x):
    t = 0.0
    for v in receives(x):
        t = t + np.sum(v)
    return t


def is_a_generator(x):
    yield np.sum(x)  # <- here


def zips_a_dict(x):
    t = 0.0
    for a, b in zip({0: 1.0, 1: 2.0}, gen(x)):
        t = t + np.sum(a * b)
    return t


REFUSED = [
    (uses_next, DifferentiationError, "a generator of yours (gen) used other than",
     "Loop over it"),
    (keeps_it, DifferentiationError, "a generator of yours (gen) used other than",
     "items = list(gen(...))"),
    (consumed_in_a_branch, DifferentiationError, "may not run", "Loop over it"),
    (noisy_after_a_call, DifferentiationError, "after a call of a function of yours",
     "statement of its own"),
    (sends, UnsupportedSyntaxError, "`yield` here", "as a statement of a generator"),
    (is_a_generator, UnsupportedSyntaxError, "`yield` here", "or return a value"),
]


@pytest.mark.parametrize("f, cls, what, advice", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_refused_at_the_line(f, cls, what, advice):
    with pytest.raises(cls) as info:
        s2sad.grad(f)(X)
    message = str(info.value)
    assert what in message and advice in message, message
    assert info.value.filename == __file__
    where = receives if f is sends else f
    assert info.value.lineno == marked(where), message


def test_a_generator_that_consumes_itself_is_refused():
    with pytest.raises(DifferentiationError, match="consumes itself") as info:
        s2sad.grad(recursive)(X)
    assert "Write the recursion as a loop" in str(info.value)
    assert info.value.lineno == inspect.getsourcelines(recurse)[1] + 2


def test_zip_checks_the_other_arguments_before_indexing_them():
    with pytest.raises(TypeError, match="a list, tuple, range or NumPy array"):
        s2sad.grad(zips_a_dict)(X)


def elsewhere(x):
    t = 0.0
    for v in cases_generators.steps(x):  # <- here
        t = t + np.sum(v)
    return t


def test_a_generator_of_another_module_is_refused():
    with pytest.raises(DifferentiationError, match="another module") as info:
        s2sad.grad(elsewhere)(X)
    assert info.value.lineno == marked(elsewhere)
    assert "Define the generator in the module" in str(info.value)


# --- generator expressions in tests ----------------------------------------------------------

def any_of_a_generator_expression(x):
    if any(v > 10 for v in x):
        return np.sum(x)
    return np.sum(np.sin(x) ** 2)


def all_of_a_list_comprehension(x):
    if all([v < 10 for v in x]):
        return np.sum(np.cos(x) * x)
    return np.sum(x)


@pytest.mark.parametrize("f", [any_of_a_generator_expression, all_of_a_list_comprehension],
                         ids=lambda f: f.__name__)
def test_a_comprehension_in_an_if_test(f):
    """Its loop is written before the test (it was read as names never assigned)."""
    np.testing.assert_allclose(s2sad.grad(f)(X), central_differences(f, [X], 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.hessian(f)(X),
                               central_differences(s2sad.grad(f), [X], 0), rtol=1e-5,
                               atol=1e-6)
