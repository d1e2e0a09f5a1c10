"""Functions held as values, as people write them (issue 35): ``g = f`` of a function
given, a comprehension over a list of functions given, ``*fs`` and ``**kw`` holding
functions, ``self.layers[i](x)`` in a loop over a range, and ``b = a.flatten()`` then
``a[1] = v`` (a copy, as NumPy makes it). Checked against central differences (float64),
forward mode against reverse, second derivatives against differences of the gradient."""

import inspect

import numpy as np
import pytest

import s2sad
import table_checks
from tests.test_higher_order import central_differences

EPS = 1e-6
rng = np.random.default_rng(3536)
X = np.array([0.7, -0.4, 1.2])


# --- the programs ---------------------------------------------------------------------------

def _square(v):
    return v * v


def _cube(v, p=3):
    return v ** p


_LAMBDA = lambda v: np.exp(v) * v  # noqa: E731 (a lambda given as an argument)


def given_another_name(x, f):
    g = f
    return np.sum(g(x) * x)


def given_two_names(x, f):
    g = f
    h = g
    return np.sum(h(x) * g(2.0 * x))


def given_in_both_branches(x, f, c):
    if c:
        g = f
    else:
        g = np.cos
    return np.sum(g(x))


def sum_of_a_generator(x, fs):
    return sum(np.sum(f(x)) for f in fs)


def list_comprehension(x, fs):
    return np.sum(np.stack([f(x) * (1.0 + x) for f in fs]))


def comprehension_over_a_local_list(x):
    acts = [np.tanh, _square]
    return sum(np.sum(a(x)) for a in acts)


def star_functions(x, *fs):
    return sum(np.sum(f(x)) for f in fs)


def star_functions_by_index(x, *fs):
    return np.sum(fs[0](x) * fs[-1](x)) + len(fs)


def _star_helper(x, *fs):
    out = x
    for f in fs:
        out = f(out)
    return out


def star_functions_in_a_helper(x):
    return np.sum(_star_helper(x, np.sin, _square, lambda v: v * 3.0))


def keyword_functions(x, **kw):
    return np.sum(kw["f"](x) * kw["s"])


def _keyword_helper(x, **kw):
    return kw["act"](x * kw["w"]) + kw["other"](x)


def keyword_functions_in_a_helper(x):
    return np.sum(_keyword_helper(x, act=_cube, w=0.5, other=np.tanh))


class Dense:
    def __init__(self, n, m, act=np.tanh):
        self.W = rng.normal(size=(n, m)) * 0.5
        self.b = rng.normal(size=m) * 0.1
        self.act = act

    def __call__(self, X):
        return self.act(X @ self.W + self.b)


class ByReversedIndex:
    def __init__(self, acts):
        self.layers = [Dense(3, 3, act) for act in acts]

    def __call__(self, X):
        for i in reversed(range(len(self.layers))):
            X = self.layers[i](X) * (i + 1)
        return X


class ByIndex:
    def __init__(self, acts):
        self.layers = [Dense(3, 3, act) for act in acts]

    def __call__(self, X):
        for i in range(len(self.layers) - 1, -1, -1):
            X = self.layers[i](X)
        return X


def network(X, model):
    return np.sum(model(X) ** 2)


def flattened_then_changed(x):
    a = x * 2.0
    b = a.flatten()
    a[1] = 5.0
    return np.sum(b * a)


def flattened_matrix_then_changed(x):
    a = np.reshape(x * 2.0, (2, 2))
    b = a.flatten()
    a[0, 1] = 5.0
    b[0] = b[0] * 3.0
    return np.sum(b ** 2) + np.sum(a * a)


class Box:
    def __init__(self, f, s):
        self.f = f
        self.s = s

    def scaled(self, x):
        return self.f(x) * self.s


def bound_method(x, method):
    return np.sum(method(x) * x)


def _inner(x, f):
    return np.sum(f(x))


def derivative_made_inside(x, f):
    return np.sum(s2sad.grad(_inner)(x, f) * x)


def derivative_made_inside_of_tanh(x):
    return np.sum(s2sad.grad(_inner)(x, np.tanh) * x)


X4 = np.array([0.7, -0.4, 1.2, 2.0])
XM = rng.normal(size=(4, 3))

TABLE = [
    (given_another_name, (X, _cube), "users"),
    (given_another_name, (X, _LAMBDA), "lambda"),
    (given_another_name, (X, np.tanh), "numpy"),
    (given_two_names, (X, _square), "users"),
    (given_in_both_branches, (X, _cube, True), "users"),
    (given_in_both_branches, (X, _cube, False), "cos"),
    (sum_of_a_generator, (X, [np.sin, _square, _LAMBDA]), "list"),
    (sum_of_a_generator, (X, (np.cos, _cube)), "tuple"),
    (list_comprehension, (X, [np.sin, _square]), "list"),
    (comprehension_over_a_local_list, (X,), "local"),
    (star_functions, (X, np.sin, _square), "two"),
    (star_functions, (X, _LAMBDA), "one"),
    (star_functions_by_index, (X, _cube, np.tanh, _square), "three"),
    (star_functions_in_a_helper, (X,), "helper"),
    (keyword_functions_in_a_helper, (X,), "helper"),
    (bound_method, (X, Box(_LAMBDA, 1.5).scaled), "lambda-attribute"),
    (bound_method, (X, Box(_square, -0.5).scaled), "users-attribute"),
    (derivative_made_inside, (X, np.tanh), "numpy"),
    (derivative_made_inside, (X, _cube), "users"),
    (derivative_made_inside_of_tanh, (X,), "written"),
    (flattened_then_changed, (X4,), "vector"),
    (flattened_matrix_then_changed, (X4,), "matrix"),
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


def test_keyword_functions_given_to_the_function_differentiated():
    def loss(v):
        return keyword_functions(v, f=np.sin, s=3.0)
    gradient = s2sad.grad(keyword_functions)
    np.testing.assert_allclose(gradient(X, f=np.sin, s=3.0), 3.0 * np.cos(X), rtol=1e-12)
    np.testing.assert_allclose(gradient(X, f=_cube, s=-2.0),
                               central_differences(lambda v: keyword_functions(
                                   v, f=_cube, s=-2.0), (X,), 0, EPS), rtol=1e-6)
    np.testing.assert_allclose(s2sad.hessian(keyword_functions)(X, f=np.sin, s=3.0),
                               central_differences(s2sad.grad(loss), (X,), 0, EPS),
                               rtol=1e-5, atol=1e-6)


def test_the_function_given_another_name_is_inlined():
    source = s2sad.grad(given_another_name).source_for(X, _cube)
    assert "g(" not in source and "scaled_power(p, x, p - 1)" in source, source


@pytest.mark.parametrize("model_class", [ByReversedIndex, ByIndex])
@pytest.mark.parametrize("acts", [(np.tanh, np.tanh, np.tanh), (np.tanh, np.sin, _cube)],
                         ids=["alike", "each-its-own"])
def test_layers_called_by_an_index_of_a_range(model_class, acts):
    model = model_class(acts)
    grads = s2sad.grad(network, wrt=1)(XM, model)
    for k, layer in enumerate(model.layers):
        for attr in ("W", "b"):
            value = getattr(layer, attr)

            def loss(v, layer=layer, attr=attr, value=value):
                setattr(layer, attr, v)
                try:
                    return network(XM, model)
                finally:
                    setattr(layer, attr, value)
            np.testing.assert_allclose(getattr(grads.layers[k], attr),
                                       central_differences(loss, (value.copy(),), 0, EPS),
                                       rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2sad.grad(network)(XM, model),
                               central_differences(network, (XM, model), 0, EPS),
                               rtol=1e-6, atol=1e-7)


def test_a_flatten_is_a_copy_only_where_an_update_could_show_it():
    changed = s2sad.grad(flattened_then_changed).source_for(X4)
    assert "np.copy(" in changed, changed

    def only_read(x):
        return np.sum(x.reshape(2, 2).flatten() * x)
    kept = s2sad.grad(only_read).source_for(X4)
    assert "np.copy(" not in kept and "np.ravel(" in kept, kept


def test_a_function_argument_vectorized_is_called_item_by_item():
    got = s2sad.grad(function_returned)(X, _cube)
    want = np.zeros_like(X)
    for i in range(X.size):
        e = np.zeros_like(X)
        e[i] = 1e-6
        want[i] = (function_returned(X + e, _cube) - function_returned(X - e, _cube)) / 2e-6
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


# --- still refused, at the line --------------------------------------------------------------

def function_returned(x, f):
    g = f
    return np.sum(x) + np.sum(np.vectorize(g)(x))  # <- here


def keyword_function_read_as_a_value(x, **kw):  # <- here
    fn = kw["f"]
    return np.sum(fn(x))


def keys_of_a_dict_of_functions(x, table):
    s = 0.0
    for k in table:  # <- here
        s = s + np.sum(table[k](x))
    return s


def _marked_line(f) -> int:
    lines, first = inspect.getsourcelines(f)
    return first + next(i for i, line in enumerate(lines) if "# <- here" in line)


@pytest.mark.parametrize("f, args, kwargs, cls, what", [
    (keyword_function_read_as_a_value, (X,), {"f": _cube}, s2sad.UnsupportedSyntaxError,
     "a function passed in keyword_function_read_as_a_value()'s *kw or **kw"),
    (keys_of_a_dict_of_functions, (X, {0: np.sin, 2: np.cos}), {},  # (its keys, not the
     s2sad.UnsupportedSyntaxError, "'table' used as a value"),      # functions: was a
])                                                                  # KeyError when run
def test_a_function_used_where_it_is_not_called_stays_refused(f, args, kwargs, cls, what):
    """``g = f`` then ``np.vectorize(g)``, ``fn = kw["f"]``, and a loop over the keys of
    a dict of functions: refused at the line."""
    with pytest.raises(cls) as info:
        s2sad.grad(f)(*args, **kwargs)
    assert what in str(info.value), str(info.value)
    assert info.value.lineno == _marked_line(f), str(info.value)


def copied_then_changed(x):
    a = x * 2.0
    b = a.copy()
    a[1] = 5.0
    return np.sum(b * a)


def test_the_tangent_of_a_copy_is_not_changed_by_an_update_of_the_original():
    """``b = a.copy(); a[1] = 5.0``: ``d_b`` keeps ``d_a``'s values from before."""
    v = rng.normal(size=X4.shape)
    value, push = s2sad.jvp(copied_then_changed)(X4)
    np.testing.assert_allclose(push(v), np.sum(central_differences(
        copied_then_changed, (X4,), 0, EPS) * v), rtol=1e-6)
    np.testing.assert_allclose(push(v), np.sum(s2sad.grad(copied_then_changed)(X4) * v),
                               rtol=1e-9)


def test_a_bound_method_reads_its_object_attributes_at_each_call():
    """The object's function attribute and number changed between calls: each call's own."""
    gradient = s2sad.grad(bound_method)
    box = Box(_square, 1.5)
    for f, k in ((_square, 1.5), (_LAMBDA, 1.5), (_LAMBDA, 2.0), (np.sin, 2.0), (_square, 1.5)):
        box.f, box.s = f, k
        np.testing.assert_allclose(gradient(X, box.scaled),
                                   central_differences(bound_method, (X, box.scaled), 0, EPS),
                                   rtol=1e-6, atol=1e-7)
