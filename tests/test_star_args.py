"""Calls as people write them (issue 35): star calls ``f(*xs)`` and ``f(**kw)``, ``*args``
and ``**kwargs`` in helpers and in the function differentiated, ``functools.partial``,
``map``, ``sorted(d.items())`` and ``zip(*pairs)``. Each against central differences in
float64, forward mode against reverse, second order; what s2sad cannot tell the length
of is refused at the user's line with what to write instead."""

import functools
import inspect
from functools import partial

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences

EPS = 1e-6
rng = np.random.default_rng(35)
X = np.array([0.3, -0.7, 1.4, 0.9])
M = np.array([[0.2, -0.5, 1.1], [0.7, 0.3, -0.9]])
W = np.array([[1.0, -2.0], [0.5, 0.3], [1.5, -1.0], [0.4, 0.8], [-0.6, 0.2]])
W7 = np.concatenate([W, [[0.3, -0.1], [0.2, 0.6]]])  # (two 3-column inputs and the bias)


# --- helpers with *args and **kwargs ---------------------------------------------------------

def scaled_sum(w, *args):
    return w * sum(args)


def affine(x, scale=1.0, **kwargs):
    return x * scale + kwargs["shift"] * x


def concat_and_multiply(weights, *args):  # autograd's rnn.py
    cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat_state, weights)


def counted(*args, **kwargs):
    return len(args) * sum(args) + sum(kwargs[k] for k in sorted(kwargs))


def star_call_of_a_tuple(x):
    xs = (x, np.sin(x))
    return np.sum(scaled_sum(*xs) ** 2)


def star_call_of_a_display(x):
    return np.sum(np.add(*[x, x * x]) * x)


def star_call_after_an_argument(x):
    parts = (np.cos(x), x)
    return np.sum(scaled_sum(x * 2.0, *parts, x))


def helper_star_parameters(x):
    return np.sum(counted(x, x * x, a=np.sin(x), b=x) ** 2)


def helper_keywords(x):
    return np.sum(affine(x, scale=2.0, shift=np.cos(x)) ** 2)


def double_star_of_a_display(x):
    options = {"scale": 3.0, "shift": x}
    return np.sum(affine(x, **options) ** 2)


def double_star_of_an_argument(x, options):
    return np.sum(affine(x, **options) ** 2)


def star_of_an_argument_tuple(x, pair):
    return np.sum(scaled_sum(x, *pair) ** 2)


def hstack_of_star_args(m):
    return np.sum(np.tanh(concat_and_multiply(W7, m, m * m)))


def passes_its_star_args_on(x):
    return np.sum(_forward(np.sin(x), x, 2.0 * x))


def _forward(first, *rest):
    return scaled_sum(first, *rest)


def reshape_star(x):
    shape = (2, 2)
    return np.sum(np.sin(x.reshape(*shape)) @ x.reshape(*shape))


def randn_of_a_shape(x):
    noise = np.random.default_rng(0).standard_normal(x.shape)  # (the same noise each call)
    mask = np.ones(*x.shape)
    return np.sum(x * noise * mask + x ** 2)


def starred_display(x):
    rest = (x * x, np.sin(x))
    return np.sum(np.stack((*rest, x)) ** 2)


def unzip_pairs(x):
    pairs = [(x, 2.0 * x), (x * x, np.sin(x))]
    firsts, seconds = zip(*pairs)
    return np.sum(firsts[0] * seconds[1] + firsts[1] * seconds[0])


def list_of_zip(x):
    ys = list(zip((x, x * x), [np.cos(x), x]))
    return np.sum(ys[0][0] * ys[0][1] + ys[1][0] * ys[1][1])


def _pair_of(x):
    return (np.sin(x), x * 3.0)


def zip_of_a_call(x):
    ys = list(zip(_pair_of(x), [x, np.cos(x)]))
    return np.sum(ys[0][0] * ys[1][1] + ys[1][0] * ys[0][1])


def lambda_star_parameters(x):
    total = lambda *vs: sum(vs)  # noqa: E731
    return np.sum(total(x, x * x, np.sin(x)) ** 2)


# --- functools.partial -------------------------------------------------------------------

def line(w, x, b=0.0):
    return w * x + b


def partial_of_a_numpy_function(m):
    column_sums = functools.partial(np.sum, axis=0)
    return np.sum(column_sums(m * m) ** 2)


def partial_of_a_users_function(x):
    g = partial(line, 2.0, b=np.sin(x))
    return np.sum(g(x * x) ** 2)


def partial_keyword_replaced(x):
    g = partial(line, x, b=x)
    return np.sum(g(x, b=np.cos(x)) ** 2)


def partial_called_where_made(x):
    return np.sum(partial(line, x)(np.sin(x)))


def partial_of_a_partial(x):
    g = partial(line, x)
    h = partial(g, b=3.0)
    return np.sum(h(x) ** 2)


def _apply(fn, v):
    return fn(v)


def partial_passed_to_a_helper(x):
    g = partial(np.power, x)
    return np.sum(_apply(g, 3.0))


def partial_binds_then(x):
    y = x * 2.0
    g = partial(line, y)
    y = y * 10.0  # (the bound y is the one the partial was made with)
    return np.sum(g(x) + y)


# --- map, sorted -----------------------------------------------------------------------

def sum_of_map(x):
    return np.sum(sum(map(np.sin, [x, 2.0 * x])))


def map_of_a_lambda(x):
    return np.sum(sum(map(lambda a, b: a * b, [x, x], [np.cos(x), 2.0 * x])))


def _square(v):
    return v * v


def list_of_map(x):
    ys = list(map(_square, (x, np.sin(x))))
    return np.sum(ys[0] * ys[1])


def loop_over_map_of_a_partial(x):
    t = 0.0
    for y in map(partial(np.power, x), [2.0, 3.0]):
        t = t * 0.5 + np.sum(y)  # (the order matters)
    return t


def sorted_items(p):
    t = 0.0
    for key, value in sorted(p.items()):
        t = t * 0.5 + np.sum(value ** 2)  # (the order matters)
    return t


def sorted_items_reversed(p):
    t = 0.0
    for key, value in sorted(p.items(), reverse=True):
        t = t * 0.5 + np.sum(value ** 2)
    return t


def sorted_keys(p):
    t = 0.0
    for key in sorted(p):
        t = t * 0.5 + np.sum(np.sin(p[key]))
    return t


P = {"w": X, "b": 2.0 * X[:3], "a": X[1:] - 1.0}

TABLE = [
    (star_call_of_a_tuple, (X,), 0),
    (star_call_of_a_display, (X,), 0),
    (star_call_after_an_argument, (X,), 0),
    (helper_star_parameters, (X,), 0),
    (helper_keywords, (X,), 0),
    (double_star_of_a_display, (X,), 0),
    (double_star_of_an_argument, (X, {"scale": 2.0, "shift": 0.5}), 0),
    (star_of_an_argument_tuple, (X, (np.cos(X), 2.0)), 0),
    (hstack_of_star_args, (M,), 0),
    (passes_its_star_args_on, (X,), 0),
    (reshape_star, (X,), 0),
    (randn_of_a_shape, (X,), 0),
    (starred_display, (X,), 0),
    (unzip_pairs, (X,), 0),
    (list_of_zip, (X,), 0),
    (lambda_star_parameters, (X,), 0),
    (zip_of_a_call, (X,), 0),
    (partial_of_a_numpy_function, (M,), 0),
    (partial_of_a_users_function, (X,), 0),
    (partial_keyword_replaced, (X,), 0),
    (partial_called_where_made, (X,), 0),
    (partial_of_a_partial, (X,), 0),
    (partial_passed_to_a_helper, (X,), 0),
    (partial_binds_then, (X,), 0),
    (sum_of_map, (X,), 0),
    (map_of_a_lambda, (X,), 0),
    (list_of_map, (X,), 0),
    (loop_over_map_of_a_partial, (X,), 0),
]

DICT_TABLE = [(sorted_items, "w"), (sorted_items, "a"), (sorted_items_reversed, "b"),
              (sorted_keys, "a"), (sorted_keys, "w")]


def _ids(table):
    return [f.__name__ for f, *_ in table]


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_gradient_against_central_differences(f, args, wrt):
    np.testing.assert_allclose(s2sad.grad(f, wrt=wrt)(*args),
                               central_differences(f, args, wrt, EPS), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_forward_mode_against_reverse(f, args, wrt):
    v = rng.normal(size=np.shape(args[wrt]))
    value, push = s2sad.jvp(f, wrt=wrt)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(push(v), np.sum(s2sad.grad(f, wrt=wrt)(*args) * v),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("f, args, wrt", TABLE, ids=_ids(TABLE))
def test_second_derivative_against_differences_of_the_gradient(f, args, wrt):
    gradient = s2sad.grad(f, wrt=wrt)
    expected = central_differences(gradient, args, wrt, EPS)
    np.testing.assert_allclose(s2sad.hessian(f, wrt=wrt)(*args), expected, rtol=1e-5,
                               atol=1e-6)


def _with(p, key, value):
    return {**p, key: value}


@pytest.mark.parametrize("f, key", DICT_TABLE, ids=[f"{f.__name__}-{k}" for f, k in DICT_TABLE])
def test_sorted_dict_views_against_central_differences(f, key):
    got = s2sad.grad(f)(P)
    assert list(got) == list(P)
    expected = central_differences(lambda v: f(_with(P, key, v)), (P[key],), 0, EPS)
    np.testing.assert_allclose(got[key], expected, rtol=1e-6, atol=1e-7)


def test_sorted_follows_the_order_of_the_keys():
    """A dict's items in sorted order, not in the order it holds them (the loop weighs the
    first half as much as the last: a wrong order gives another number)."""
    p = {"b": np.array([1.0]), "a": np.array([3.0])}
    assert sorted_items(p) == 0.5 * 9.0 + 1.0
    np.testing.assert_allclose(s2sad.grad(sorted_items)(p)["a"], [3.0])  # 0.5 * 2 * 3
    np.testing.assert_allclose(s2sad.grad(sorted_items)(p)["b"], [2.0])
    np.testing.assert_allclose(s2sad.grad(sorted_items_reversed)(p)["b"], [1.0])


def test_a_partial_reads_its_arguments_where_it_is_made():
    """g = partial(line, y) binds the y of then (2x), not the y of later (20x)."""
    np.testing.assert_allclose(s2sad.grad(partial_binds_then)(X), 4.0 * X + 20.0)


# --- the function differentiated takes *args and **kwargs -----------------------------------

def loss(weights, *inputs, scale=1.0, **terms):
    out = concat_and_multiply(weights, *inputs)
    return np.sum(np.tanh(out) ** 2) * scale + sum(np.sum(t * out[0, 0]) for t in
                                                    (terms[k] for k in sorted(terms)))


A = np.array([[0.3, -0.2], [0.5, 0.1], [-0.4, 0.8]])
B = np.array([[0.1, 0.9], [0.2, -0.6], [0.7, 0.05]])
def test_wrt_counts_the_positional_arguments_as_passed():
    w, a = W, A
    args = (w, a, B)
    for wrt in (0, 1, 2, -1):
        got = s2sad.grad(loss, wrt=wrt)(*args, scale=2.0, c=1.5)
        expected = central_differences(lambda *v: loss(*v, scale=2.0, c=1.5), args,
                                       wrt % 3, EPS)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_wrt_names_the_star_parameter_for_a_tuple_of_gradients():
    b = B
    together = s2sad.grad(loss, wrt="inputs")(W, A, b)
    assert isinstance(together, tuple) and len(together) == 2
    np.testing.assert_allclose(together[0], s2sad.grad(loss, wrt=1)(W, A, b), rtol=1e-12)
    np.testing.assert_allclose(together[1], s2sad.grad(loss, wrt=2)(W, A, b), rtol=1e-12)
    with pytest.raises(s2sad.DifferentiationError, match="names \\*inputs inside a tuple"):
        s2sad.grad(loss, wrt=(0, "inputs"))(W, A, b)


def test_wrt_names_a_keyword_passed_through_double_star():
    b = B
    got = s2sad.grad(loss, wrt="c")(W, A, b, c=1.5, d=0.5)
    expected = central_differences(lambda c: loss(W, A, b, c=c, d=0.5), (1.5,), 0, EPS)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    both = s2sad.grad(loss, wrt="terms")(W, A, b, c=1.5, d=0.5)
    np.testing.assert_allclose(both, (got, got), rtol=1e-12)  # (both multiply out[0, 0])


def test_each_call_form_is_its_own_variant():
    gradient = s2sad.grad(loss, wrt=0)
    b = B
    one = gradient(W[:3], A)  # one input: 2 + 1 columns
    two = gradient(W, A, b, scale=0.5)  # two: 2 + 1 + 1
    assert one.shape == (3, 2) and two.shape == (5, 2)
    np.testing.assert_allclose(one, central_differences(loss, (W[:3], A), 0, EPS), rtol=1e-6,
                               atol=1e-7)
    with pytest.raises(s2sad.DifferentiationError, match="wrt=3 is out of range"):
        s2sad.grad(loss, wrt=3)(W, A, b)


def test_forward_mode_and_hessian_of_a_function_with_star_parameters():
    def energy(x, *others, weight=1.0):
        return weight * np.sum(np.sin(x * sum(others)) ** 2)
    args = (X, X[::-1], np.cos(X))
    for wrt in (0, 2):
        v = rng.normal(size=X.shape)
        _, push = s2sad.jvp(energy, wrt=wrt)(*args, weight=2.0)
        gradient = s2sad.grad(energy, wrt=wrt)
        np.testing.assert_allclose(push(v), np.sum(gradient(*args, weight=2.0) * v), rtol=1e-9)
        np.testing.assert_allclose(
            s2sad.hessian(energy, wrt=wrt)(*args, weight=2.0),
            central_differences(lambda *a: gradient(*a, weight=2.0), args, wrt, EPS),
            rtol=1e-5, atol=1e-6)


def test_a_method_with_star_parameters():
    class Model:
        def __init__(self, w):
            self.w = w

        def loss(self, *xs):
            return np.sum((self.w * sum(xs)) ** 2)
    m = Model(2.0)
    np.testing.assert_allclose(s2sad.grad(m.loss, wrt=1)(X, np.sin(X)), 8.0 * (X + np.sin(X)))


def test_float32_stays_float32():
    x = X.astype(np.float32)
    assert s2sad.grad(star_call_of_a_tuple)(x).dtype == np.float32
    assert s2sad.grad(partial_of_a_users_function)(x).dtype == np.float32
    assert s2sad.grad(lambda_star_parameters)(x).dtype == np.float32


# --- what is still refused, at its line ------------------------------------------------------

def star_of_a_list_that_grows(x):
    parts = [x]
    parts.append(np.sin(x))
    return np.sum(scaled_sum(*parts))  # <- here


def star_of_a_computed_shape(x):
    h = np.tanh(x)
    return np.sum(h * np.ones(*h.shape))  # <- here


def double_star_of_a_dict_filled_in(x):
    options = {}
    options["shift"] = x
    return np.sum(affine(x, **options))  # <- here


def _line(func):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, text in enumerate(lines) if "# <- here" in text)


@pytest.mark.parametrize("func, message, advice", [
    (star_of_a_list_that_grows, "`*parts` here: s2sad cannot tell how many values it gives",
     "Pass the values one by one"),
    (star_of_a_computed_shape, "`*h.shape` here: s2sad cannot tell how many values it gives",
     "x.shape[0], x.shape[1]"),
    (double_star_of_a_dict_filled_in, "`**options` here: s2sad cannot tell which keywords",
     "Pass the keyword arguments one by one"),
], ids=["list-that-grows", "computed-shape", "dict-filled-in"])
def test_a_length_not_known_is_refused_at_its_line(func, message, advice):
    for derivative in (s2sad.grad, lambda f: (lambda *a: s2sad.jvp(f)(*a)[1](X))):
        with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
            derivative(func)(X)
        assert info.value.lineno == _line(func), str(info.value)
        assert info.value.filename == __file__
        assert message in str(info.value) and advice in str(info.value), str(info.value)


def test_a_keyword_that_is_no_name_is_refused():
    def f(x, **kw):
        return np.sum(x * kw["a-b"])
    with pytest.raises(s2sad.DifferentiationError, match="Pass keywords that are Python names"):
        s2sad.grad(f)(X, **{"a-b": 2.0})


def test_a_partial_passed_to_a_function_that_is_not_inlined_stays_a_value():
    """``odeint(g, ...)`` reads the partial object itself (its rule refuses one holding
    the differentiated value: tests/test_callable_arguments.py); ``g`` is not rewritten."""
    def not_called(x):
        g = partial(line, 2.0)
        return np.sum(x) if callable(g) else 0.0
    np.testing.assert_allclose(s2sad.grad(not_called)(X), np.ones(4))


def test_map_kept_for_later_is_written_at_its_one_read():
    """``m = map(...)`` is an iterator that one pass exhausts: read once, it is the generator
    expression at that read (issue 35); read twice, refused at the second read."""
    def kept(x):
        m = map(np.sin, [x, x])
        return np.sum(sum(m))
    np.testing.assert_allclose(s2sad.grad(kept)(X), 2.0 * np.cos(X), rtol=1e-12)

    def twice(x):
        m = map(np.sin, [x, x])
        return np.sum(sum(m)) + np.sum(sum(m, 0.0))
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(twice)(X)
    assert "the generator 'm' read again" in str(info.value)


def test_map_whose_function_the_loop_changes_is_not_rewritten():
    """``map`` reads its function (a partial of ``x``) once; a generator expression would
    read it again at each item, after the loop gave ``x`` another value: kept, refused."""
    def rebinds(x):
        t = 0.0
        for y in map(partial(np.power, x), [2.0, 3.0]):
            t = t + np.sum(y)
            x = x * 2.0
        return t
    with pytest.raises(s2sad.NoDerivativeError, match="no derivative rule for map"):
        s2sad.grad(rebinds)(X)
    np.testing.assert_allclose(s2sad.grad(loop_over_map_of_a_partial)(X),
                               central_differences(loop_over_map_of_a_partial, (X,), 0, EPS),
                               rtol=1e-6)


def test_source_for_a_call_form():
    text = s2sad.grad(loss, wrt=2).source_for(W, A, B, c=1.0)
    assert "def grad_loss(weights, inputs_0, inputs_1, *, scale, c)" in text, text


def test_zip_of_a_call_runs_the_call_once():
    text = s2sad.grad(zip_of_a_call).source_for(X)
    forward = text.split("zeros_like_structure(")[0]  # (the forward sweep)
    assert forward.count("_pair_of") == 0 and forward.count("x * 3.0") == 1, text
