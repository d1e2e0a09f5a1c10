"""Calls and unpacking as people write them (issue 35): starred assignment of any length
(``a, *rest = xs`` of a list argument, an array, ``X.T``; ``*init, last``; ``first,
*mid, last``) and a write into the rest; ``sorted``/``max``/``min`` with ``key=`` (a key on
data without derivative, and on differentiated values: the order is piecewise constant and
the gradient flows through the items picked); ``zip(*pairs)``, ``dict(zip(keys, vals))``;
``map`` and generator expressions held in a name; ``functools.partial`` chosen in a branch
or made in a comprehension; ``**kwargs`` through two helpers, ``wrt`` inside ``*args``,
``f(**params)``. Checked against central differences (float64), forward mode against
reverse, second derivatives against differences of the gradient; and what stays refused,
at its line with its advice (a line marked ``# <- here``)."""

import inspect
from functools import partial

import numpy as np
import pytest

import s2sad
import table_checks
from tests.test_higher_order import central_differences

EPS = 1e-6
rng = np.random.default_rng(3535)
X = np.array([0.3, -0.7, 1.2, 0.5])
M = np.array([[0.4, -0.3, 0.8], [1.1, 0.2, -0.6], [-0.5, 0.9, 0.3], [0.7, -1.2, 0.1]])


# --- starred assignment ---------------------------------------------------------------------

def rest_of_an_array(x):
    a, *rest = x
    return a * rest[0] + np.sum(np.stack(rest) ** 2) * len(rest)


def init_and_last(x):
    *init, last = x
    return last * init[0] + sum(init) * np.sin(last)


def first_middle_last(x):
    first, *mid, last = x
    return first * last + sum(m ** 3 for m in mid)


def rows_of_a_transpose(m):
    first, *others = m.T
    return np.sum(first * others[-1]) + np.sum(np.stack(others) ** 2)


def rows_of_a_matrix(m):
    top, *middle, bottom = m
    return np.sum(top * bottom) + np.sum(np.sin(np.stack(middle)))


def rows_of_a_slice_scaled(m):
    *head, tail = m[1:] * 2.0
    return np.sum(tail ** 2) + np.sum(head[0] * head[-1])


def _three(x):
    return x * 2.0, np.sin(x), x ** 2


def tuple_from_a_function(x):
    a, *rest = _three(x)
    return np.sum(a * rest[0] * rest[1])


def display_unpacked(x):
    a, *rest, b = [x, x * 2.0, np.cos(x), x + 1.0]
    return np.sum(a * b) + np.sum(rest[0] * rest[1])


def write_into_the_rest(m):
    first, *others = m
    others[0] = others[0] * 2.0
    return np.sum(first * others[0]) + np.sum(m ** 2)


def append_and_loop_over_the_rest(x):
    a, *rest = x
    rest.append(a * 3.0)
    total = 0.0
    for r in rest:
        total = total + r * a
    return total + sum(rest)


# --- sorted, max, min with key= ---------------------------------------------------------------

def sorted_by_data_without_derivative(x):
    keys = [3, 1, 2, 0]
    pairs = sorted(zip(keys, x), key=lambda kv: kv[0])
    return pairs[0][1] * pairs[-1][1] ** 2 + pairs[1][1]


def sorted_by_the_values(x):
    s = sorted(x, key=lambda v: -v)
    return s[0] * 2.0 + s[1] * s[3]


def sorted_reversed_by_a_function(x):
    s = sorted(x, key=abs, reverse=True)
    return s[0] * 3.0 + s[-1] * s[1]


def sorted_rows_by_their_norm(m):
    rows = sorted(m, key=lambda r: np.sum(r * r))
    return np.sum(rows[0] * rows[-1]) + np.sum(rows[1])


def max_and_min_by_key(m):
    best = max(m, key=lambda r: np.sum(r))
    worst = min(m, key=lambda r: r[0])
    return np.sum(best ** 2 * worst)


def sorted_items_of_a_dict(x):
    d = {"b": x, "a": x * 2.0, "c": np.sin(x)}
    total = 0.0
    for i, (k, v) in enumerate(sorted(d.items(), key=lambda kv: kv[0])):
        total = total + np.sum(v) * (i + 1)
    return total


# --- zip, dict(zip), map and generators held, partials --------------------------------------------

def zip_of_pairs(x):
    pairs = [(x, x * 2.0), (np.sin(x), x ** 2)]
    a, b = zip(*pairs)
    return np.sum(a[0] * b[1]) + np.sum(np.stack(a))


def dict_of_zip(x):
    d = dict(zip(("w", "b"), (x * 2.0, np.cos(x))))
    return np.sum(d["w"] * d["b"])


def map_held(x):
    m = map(np.sin, [x, x * 2.0])
    total = sum(m)
    return np.sum(total)


def generator_held_reads_late(x):
    k = 1.0
    g = (v * k for v in [x, np.sin(x)])
    k = 3.0  # (read when the generator gives its values, as Python does)
    return np.sum(sum(g))


def _g(t, a=1.0):
    return np.sin(t) * a


def partial_in_a_branch(x, c=True):
    f = partial(_g, a=2.0) if c else partial(_g, a=3.0)
    return np.sum(f(x) * x)


def partial_in_a_branch_other(x):
    return partial_in_a_branch(x, False)


def _power(t, k=0):
    return t ** (k + 1)


def partials_made_in_a_loop(x):
    fs = [partial(_power, k=k) for k in range(3)]
    return np.sum(fs[0](x) * fs[2](x))


def _h2(t, **kw):
    return t * kw["s"] + kw.get("u", 0.0)


def _h1(t, **kw):
    return _h2(t, **kw)


def kwargs_through_two_helpers(x):
    return np.sum(_h1(x, s=2.0, u=np.sin(x)))


def _model(x, W=None, b=None):
    return np.tanh(W @ x + b)


TABLE = [
    (rest_of_an_array, (X,), "array"),
    (init_and_last, (X,), "array"),
    (first_middle_last, (X,), "array"),
    (rows_of_a_transpose, (M,), "T"),
    (rows_of_a_matrix, (M,), "rows"),
    (rows_of_a_slice_scaled, (M,), "slice"),
    (tuple_from_a_function, (X,), "tuple"),
    (display_unpacked, (X,), "display"),
    (write_into_the_rest, (M,), "write"),
    (append_and_loop_over_the_rest, (X,), "append"),
    (sorted_by_data_without_derivative, (X,), "data"),
    (sorted_by_the_values, (X,), "values"),
    (sorted_reversed_by_a_function, (X,), "abs"),
    (sorted_rows_by_their_norm, (M,), "rows"),
    (max_and_min_by_key, (M,), "rows"),
    (sorted_items_of_a_dict, (X,), "items"),
    (zip_of_pairs, (X,), "pairs"),
    (dict_of_zip, (X,), "dict"),
    (map_held, (X,), "map"),
    (generator_held_reads_late, (X,), "late"),
    (partial_in_a_branch, (X,), "true"),
    (partial_in_a_branch_other, (X,), "false"),
    (partials_made_in_a_loop, (X,), "loop"),
    (kwargs_through_two_helpers, (X,), "kwargs"),
]
IDS = [f"{f.__name__}-{name}" for f, _, name in TABLE]
CASES = [(f, args) for f, args, _ in TABLE]


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_gradient_against_central_differences(f, args):
    table_checks.gradient_matches_differences(f, args, EPS)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_forward_mode_against_reverse(f, args):
    table_checks.forward_matches_reverse(f, args, rng)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_second_derivative_against_differences_of_the_gradient(f, args):
    table_checks.second_derivative_matches_differences(f, args, EPS)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_unoptimized_code_gives_the_same_gradient(f, args):
    table_checks.unoptimized_matches_optimized(f, args)


def test_float32_is_kept():
    x = X.astype(np.float32)
    for f in (init_and_last, sorted_by_the_values, map_held):
        assert s2sad.grad(f)(x).dtype == np.float32


# --- list, tuple and dict arguments --------------------------------------------------------------

XS = [rng.normal(size=2) for _ in range(4)]


def rest_of_a_list(xs):
    a, *rest = xs
    return np.sum(a * rest[0]) + np.sum(rest[-1] ** 2) * len(rest) + np.sum(sum(rest))


def middle_of_a_list(xs):
    first, *mid, last = xs
    return np.sum(first * last) + sum(np.sum(m ** 2) for m in mid)


def max_of_a_list_by_its_sum(xs):
    best = max(xs, key=lambda v: np.sum(v))
    return np.sum(best ** 2) + np.sum(xs[0])


def sorted_by_a_key_argument(xs, keys):
    s = sorted(zip(keys, xs), key=lambda kv: kv[0])
    return np.sum(s[0][1] * s[-1][1] ** 2)


def zip_of_argument_pairs(pairs):
    a, b = zip(*pairs)
    return np.sum(a[0] * b[1]) + np.sum(np.stack(a))


def dict_of_zip_of_an_argument(vals):
    d = dict(zip(["a", "b"], vals))
    return np.sum(d["a"] * d["b"] ** 2)


def first_by_next(xs):
    return np.sum(next(iter(xs)) * xs[1]) + np.sum(next(iter([xs[2]]), xs[3]) ** 2)


def _list_differences(f, xs, *rest):
    out = []
    for i in range(len(xs)):
        def one(z, i=i):
            items = list(xs)
            items[i] = z
            return f(type(xs)(items), *rest)
        out.append(central_differences(one, (xs[i],), 0, EPS))
    return out


@pytest.mark.parametrize("f, rest", [
    (rest_of_a_list, ()), (middle_of_a_list, ()), (max_of_a_list_by_its_sum, ()),
    (sorted_by_a_key_argument, ([3, 1, 2, 0],)), (sorted_by_a_key_argument, ([0, 2, 2, 1],)),
    (dict_of_zip_of_an_argument, ()), (first_by_next, ()),
], ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("kind", [list, tuple])
def test_list_argument_against_central_differences(f, rest, kind):
    xs = kind(XS[:2]) if f is dict_of_zip_of_an_argument else kind(XS)
    got = s2sad.grad(f)(xs, *rest)
    for g, e in zip(got, _list_differences(f, xs, *rest), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


def test_zip_of_argument_pairs_against_central_differences():
    pairs = [(XS[0], XS[1]), (XS[2], XS[3])]
    got = s2sad.grad(zip_of_argument_pairs)(pairs)
    for p in range(2):
        for q in range(2):
            def one(z, p=p, q=q):
                items = [list(t) for t in pairs]
                items[p][q] = z
                return zip_of_argument_pairs([tuple(t) for t in items])
            np.testing.assert_allclose(got[p][q], central_differences(one, (pairs[p][q],), 0,
                                                                      EPS), rtol=1e-6, atol=1e-7)


def test_wrt_a_position_inside_star_args():
    def f(w, *args):
        return np.sum(w * args[0] * args[1] ** 2)
    a, b = X * 2.0, X + 1.0
    np.testing.assert_allclose(s2sad.grad(f, wrt=2)(X, a, b),
                               central_differences(lambda z: f(X, a, z), (b,), 0, EPS),
                               rtol=1e-6, atol=1e-7)


def test_star_star_params_of_a_dict_argument():
    def loss(x, params):
        return np.sum(_model(x, **params) ** 2)
    params = {"W": M[:3], "b": X[:3]}
    got = s2sad.grad(loss, wrt=1)(X[:3], params)
    for key, value in params.items():
        def one(z, key=key):
            return loss(X[:3], dict(params, **{key: z}))
        np.testing.assert_allclose(got[key], central_differences(one, (value,), 0, EPS),
                                   rtol=1e-6, atol=1e-7)


def test_ties_keep_the_first_as_python_does():
    """Equal keys: sorted is stable, max and min take the first; the gradient goes there."""
    def f(x):
        s = sorted(x, key=lambda v: 0.0)
        return s[0] * 2.0 + max(x, key=lambda v: 1.0) * 3.0
    np.testing.assert_allclose(s2sad.grad(f)(X), [5.0, 0.0, 0.0, 0.0])


# --- Python's own errors, as Python raises them -----------------------------------------------

def test_too_short_for_the_names_beside_the_star():
    with pytest.raises(ValueError, match="not enough values to unpack"):
        s2sad.grad(first_middle_last)(np.array([1.0]))
    with pytest.raises(ValueError, match="empty"):
        s2sad.grad(lambda_free_max)(np.zeros(0))


def lambda_free_max(x):
    return np.sum(max(x, key=abs))


def test_a_generator_held_reads_names_when_consumed():
    """``k`` is 3.0 when ``sum`` reads the generator: the gradient is 3 + 3 cos(x)."""
    np.testing.assert_allclose(s2sad.grad(generator_held_reads_late)(X), 3.0 + 3.0 * np.cos(X),
                               rtol=1e-12)


# --- still refused, at the line, with advice ------------------------------------------------------

def generator_read_twice(x):
    g = (np.sin(v) for v in [x, x * 2.0])
    t = 0.0
    for v in g:
        t = t + np.sum(v)
    return t + np.sum(sum(g))  # <- here


def generator_read_in_a_loop(x):
    g = (v * 2.0 for v in [x])
    t = 0.0
    for _ in range(2):
        t = t + np.sum(sum(g))  # <- here
    return t


def starred_of_a_grown_list(x):
    xs = [x]
    xs.append(x * 2.0)
    a, *rest = xs  # <- here
    return np.sum(a * rest[0])


def starred_of_an_unknown_value(x):
    for _ in range(2):
        x = x * 0.5
    a, *rest = x  # <- here (a name given another value in a loop)
    return np.sum(a * rest[0])


def max_with_a_default(x):
    return max(x, key=abs, default=0.0)  # <- here


def next_of_a_generator(x):
    g = _gen(x)  # <- here
    return np.sum(next(g))


def _gen(x):
    yield x * 2.0
    yield np.sin(x)


def _marked_line(f) -> int:
    lines, first = inspect.getsourcelines(f)
    return first + next(i for i, line in enumerate(lines) if "# <- here" in line)


REFUSED = [
    (generator_read_twice, s2sad.UnsupportedSyntaxError, "the generator 'g' read again",
     "Make a list of them"),
    (generator_read_in_a_loop, s2sad.UnsupportedSyntaxError, "the generator 'g' read again",
     "read it once, outside loops"),
    (starred_of_a_grown_list, s2sad.UnsupportedSyntaxError, "starred assignment",
     "a list argument the function does not grow"),
    (starred_of_an_unknown_value, s2sad.UnsupportedSyntaxError, "starred assignment",
     "Index the sequence instead"),
    (max_with_a_default, s2sad.DifferentiationError, "max is called in a way",
     "np.max(xs)"),
    (next_of_a_generator, s2sad.DifferentiationError, "a generator of yours",
     "Loop over it"),
]


@pytest.mark.parametrize("f, cls, what, advice", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_refused_at_the_line_with_advice(f, cls, what, advice):
    with pytest.raises(cls) as info:
        s2sad.grad(f)(X)
    message = str(info.value)
    assert what in message and advice in message, message
    assert info.value.lineno == _marked_line(f), message
    assert info.value.filename == inspect.getsourcefile(f)
