"""Derivatives made inside the function differentiated (issue 35): ``s2sad.hvp``,
``s2sad.hessian``, ``s2sad.jacobian``, ``s2sad.jvp`` and ``s2sad.vjp`` of a nested def, a
lambda or a module-level function, and a ``grad`` held in a variable; and the star forms
(``a, *rest = xs``, ``partial(f, *xs)``, ``x.reshape(*h.shape)``, ``x[*idx]``). Each program's
gradient against central differences (float64), forward mode against reverse, second
derivatives against differences of the gradient; what stays refused, at its line with
its advice."""

import functools
import inspect
import sys

import numpy as np
import pytest

import s2sad
from tests.test_higher_order import central_differences

EPS = 1e-6
X = np.array([0.3, 0.7, 1.1])


def cubic(y, w):
    return np.sum(np.sin(y) * w * y ** 2)


def apply(g, x):
    return g(x)


# --- programs ------------------------------------------------------------------------

def grad_wrt_the_second(x):
    def inner(a, y):
        return np.sum(a * y ** 2 * x)
    return np.sum(s2sad.grad(inner, wrt=1)(x, x * 2.0))


def grad_held(x):
    def inner(y):
        return np.sum(np.sin(y) * x)
    g = s2sad.grad(inner)
    return np.sum(g(x) ** 2) + np.sum(g(2.0 * x))


def value_and_grad_held(x):
    g = s2sad.value_and_grad(lambda y: np.sum(y ** 3 * x))
    value, gradient = g(x)
    return value * np.sum(gradient)


def hvp_of_a_nested_def(x):
    def inner(y):
        return np.sum(np.sin(y) * x * y)
    return np.sum(s2sad.hvp(inner)(x, x + 1.0) ** 2)


def hvp_of_a_lambda(x):
    v = np.cos(x)
    return np.sum(s2sad.hvp(lambda y: np.sum(np.exp(y * x[0])))(x, v) * x)


def hvp_of_a_module_function(x):
    return np.sum(s2sad.hvp(cubic)(x, 2.0, x[::-1]))


def hvp_wrt_the_second(x):
    return np.sum(s2sad.hvp(cubic, wrt=1)(x, x * x, np.ones(3)) * x)


def hvp_held(x):
    hv = s2sad.hvp(lambda y: np.sum(np.tanh(y) * x))
    return np.sum(hv(x, x) + hv(x, np.ones(3)))


def newton_step(x):
    def inner(y):
        return np.sum(np.exp(y) * x + y ** 4)
    g = s2sad.grad(inner)(x)
    H = s2sad.hessian(inner)(x)
    step = np.linalg.solve(H, g)
    return np.sum((x - step) ** 2)


def hessian_of_a_float(x):
    s = x[0]
    h = s2sad.hessian(lambda t: np.sin(t) * t * x[1])(s)
    return h * x[2]


def hessian_of_a_matrix(x):
    m = np.outer(x, x[:2])
    H = s2sad.hessian(lambda a: np.sum(np.sin(a) * a))(m)
    return np.sum(H * H) + np.sum(H.shape)


def jacobian_of_a_lambda(x):
    J = s2sad.jacobian(lambda y: np.sin(y) * x[::-1] * y)(x)
    return np.sum(J ** 2) + np.sum(J[0] * x)


def jacobian_reverse_mode(x):
    J = s2sad.jacobian(lambda y: np.array([np.sum(y * x), np.prod(y)]), mode="rev")(x)
    return np.sum(J * J[::-1])


def jvp_unpacked(x):
    def inner(y):
        return np.sin(y) * x * y
    value, push = s2sad.jvp(inner)(x)
    return np.sum(value * push(x + 1.0)) + np.sum(push(np.ones(3)))


def vjp_unpacked(x):
    value, pull = s2sad.vjp(lambda y: np.sin(y) * x * y)(x)
    return np.sum(value * pull(x + 1.0))


def jvp_held_then_unpacked(x):
    jv = s2sad.jvp(cubic)
    value, push = jv(x, 3.0)
    return value * np.sum(push(x))


def vjp_of_the_point_then(x):
    """The pullback is of the point where vjp was called, not of the names as they are
    later: ``y`` given another value after is not read by ``pull``."""
    y = x * 2.0
    _value, pull = s2sad.vjp(lambda t: t ** 3)(y)
    y = x * 0.0
    return np.sum(pull(x) + y)


def vjp_with_respect_to_two(x):
    def inner(a, b):
        return a * np.sin(b)
    value, pull = s2sad.vjp(inner, wrt=(0, 1))(x, x ** 2)
    da, db = pull(np.ones(3))
    return np.sum(value) + np.sum(da * db)


TABLE = [grad_wrt_the_second, grad_held, value_and_grad_held, hvp_of_a_nested_def,
         hvp_of_a_lambda, hvp_of_a_module_function, hvp_wrt_the_second, hvp_held,
         newton_step, hessian_of_a_float, hessian_of_a_matrix, jacobian_of_a_lambda,
         jacobian_reverse_mode, jvp_unpacked, vjp_unpacked, jvp_held_then_unpacked,
         vjp_of_the_point_then, vjp_with_respect_to_two]
SECOND = [grad_held, hvp_of_a_nested_def, hvp_held, jvp_unpacked, vjp_unpacked,
          jacobian_of_a_lambda, hessian_of_a_float]


@pytest.mark.parametrize("f", TABLE, ids=[f.__name__ for f in TABLE])
def test_gradient_against_central_differences(f):
    got = s2sad.grad(f)(X)
    np.testing.assert_allclose(got, central_differences(f, (X,), 0, EPS), rtol=1e-6,
                               atol=1e-7)


@pytest.mark.parametrize("f", TABLE, ids=[f.__name__ for f in TABLE])
def test_forward_mode_against_reverse(f):
    value, push = s2sad.jvp(f)(X)
    assert value == pytest.approx(f(X), rel=1e-12)
    v = np.array([0.5, -1.0, 2.0])
    assert push(v) == pytest.approx(np.dot(s2sad.grad(f)(X), v), rel=1e-9)


@pytest.mark.parametrize("f", SECOND, ids=[f.__name__ for f in SECOND])
def test_second_derivative_against_differences_of_the_gradient(f):
    gradient = s2sad.grad(f)
    np.testing.assert_allclose(s2sad.hessian(f)(X),
                               central_differences(gradient, (X,), 0, EPS), rtol=1e-5,
                               atol=1e-6)


def test_the_derivatives_are_what_the_api_gives():
    """Written out inside, each derivative gives the numbers the API's own gives (the
    value of the generated code against the function run by Python, which calls them)."""
    W = np.arange(9.0).reshape(3, 3)
    for f in (newton_step, hessian_of_a_matrix, jacobian_of_a_lambda, jvp_unpacked,
              lambda x: np.sum(s2sad.hessian(cubic)(x, 2.0) * W) +
              np.sum(s2sad.jacobian(lambda y: y ** 3)(x) * W)):
        assert s2sad.value_and_grad(f)(X)[0] == pytest.approx(f(X), rel=1e-12)


def test_float32_kept():
    x = X.astype(np.float32)
    got = s2sad.grad(hvp_of_a_nested_def)(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, s2sad.grad(hvp_of_a_nested_def)(X), rtol=1e-4)


# --- refused, at the line, with advice ------------------------------------------------

def jvp_not_unpacked(x):
    return np.sum(s2sad.jvp(lambda y: y ** 2)(x)[0])  # <- here


def jvp_unpacked_in_a_loop(x):
    s = 0.0
    for i in range(2):
        _value, push = s2sad.jvp(lambda y: y ** 2)(x)  # <- here
        s = s + np.sum(push(x))
    return s


def pullback_passed_on(x):
    _value, pull = s2sad.vjp(lambda y: y ** 2)(x)  # <- here
    return np.sum(apply(pull, x))


def hvp_held_and_passed_on(x):
    hv = s2sad.hvp(lambda y: np.sum(y ** 3))  # <- here
    return np.sum(apply(hv, x))


def hessian_of_two(x):
    return np.sum(s2sad.hessian(cubic, wrt=(0, 1))(x, 2.0))  # <- here


def jacobian_of_two(x):
    return np.sum(s2sad.jacobian(cubic, wrt=(0, 1))(x, 2.0))  # <- here


def hvp_without_its_direction(x):
    return np.sum(s2sad.hvp(lambda y: np.sum(y ** 3))(x))  # <- here


def hessian_with_a_keyword(x):
    return np.sum(s2sad.hessian(cubic)(x, w=2.0))  # <- here


def pushforward_of_a_closure_given_again(x):
    a = x * 2.0
    _value, push = s2sad.jvp(lambda t: np.sin(t) * a)(x)  # <- here
    a = a * 3.0
    return np.sum(push(0.5))


def pushforward_of_a_parameter_given_again(x, a=2.0):
    _value, push = s2sad.jvp(lambda t: np.sin(t) * a)(x)  # <- here
    a = a * 3.0
    return np.sum(push(0.5))


def pullback_of_a_point_changed_in_place(x):
    y = x * 2.0
    _value, pull = s2sad.vjp(lambda t: t ** 3)(y)  # <- here
    y[0] = 1.0
    return np.sum(pull(x))


REFUSED = [
    (pushforward_of_a_closure_given_again, s2sad.UnsupportedSyntaxError,
     "reads a, which the function changes", "leave it unchanged"),
    (pushforward_of_a_parameter_given_again, s2sad.UnsupportedSyntaxError,
     "reads a, which the function changes", "leave it unchanged"),
    (pullback_of_a_point_changed_in_place, s2sad.UnsupportedSyntaxError,
     "reads y, which the function changes", "leave it unchanged"),
    (jvp_not_unpacked, s2sad.UnsupportedSyntaxError, "not unpacked where it is called",
     "value, push = s2sad.jvp(f)(x)"),
    (jvp_unpacked_in_a_loop, s2sad.UnsupportedSyntaxError,
     "kept in a branch or a loop, passed on, or given another value", "not in a branch"),
    (pullback_passed_on, s2sad.UnsupportedSyntaxError,
     "the pullback of a vjp made inside", "only call pull(...)"),
    (hvp_held_and_passed_on, s2sad.UnsupportedSyntaxError,
     "making a derivative inside the function differentiated (s2sad.hvp(...))",
     "held in a variable given once and only called"),
    (hessian_of_two, s2sad.DifferentiationError, "hessian takes one argument", "wrt="),
    (jacobian_of_two, s2sad.UnsupportedSyntaxError,
     "jacobian made inside the function differentiated", "Make one jacobian for each"),
    (hvp_without_its_direction, s2sad.UnsupportedSyntaxError,
     "called with 1 arguments", "then the direction v"),
    (hessian_with_a_keyword, s2sad.UnsupportedSyntaxError,
     "called with keywords or star arguments", "by position"),
]


def _marked_line(f) -> int:
    lines, first = inspect.getsourcelines(f)
    return first + next(i for i, line in enumerate(lines) if "# <- here" in line)


@pytest.mark.parametrize("f, cls, what, advice", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_refused_at_the_line_with_advice(f, cls, what, advice):
    with pytest.raises(cls) as info:
        s2sad.grad(f)(X)
    message = str(info.value)
    assert what in message and advice in message, message
    assert info.value.lineno == _marked_line(f), message
    assert info.value.filename == inspect.getsourcefile(f)


# --- star forms: a, *rest = xs; partial(f, *xs); x.reshape(*h.shape); x[*idx] -----------

def head_and_rest_of_an_array(x):
    a, *rest = x
    return a * np.sum(np.array(rest)) + rest[-1] ** 2


def head_and_rest_of_a_display(x):
    a, *rest = (x[0], x[1] * 2.0, np.sin(x[2]))
    return a * rest[0] * rest[1] + len(rest)


def first_and_last_of_a_tuple(x):
    t = (x[0], x[1], x[2] ** 2)
    *first, last = t
    return first[0] * first[1] * last


def middle_of_an_argument_tuple(x, p):
    a, *mid, b = p
    return x[0] * a + np.sum(x * mid[0]) * b * np.sum(np.stack(mid) * x)


def star_of_an_empty_rest(x):
    a, b, c, *rest = x[0], x[1], x[2]
    return a * b * c + len(rest)


def three(a, b, c):
    return a * b + np.sin(c)


def partial_of_a_star(x):
    xs = (x[0], x[1] ** 2)
    g = functools.partial(three, *xs)
    return g(x[2]) + functools.partial(three, *(x[2], x[0]))(x[1])


def reshape_of_a_computed_shape(x):
    h = np.outer(x, x[:2])
    return np.sum(np.sin(h.ravel()).reshape(*h.shape) * h)


STARS = [(head_and_rest_of_an_array, (X,)), (head_and_rest_of_a_display, (X,)),
         (first_and_last_of_a_tuple, (X,)),
         (middle_of_an_argument_tuple, (X, (1.5, X ** 2, 2.5))),
         (star_of_an_empty_rest, (X,)), (partial_of_a_star, (X,)),
         (reshape_of_a_computed_shape, (X,))]
if sys.version_info >= (3, 11):
    from tests import cases_star_index as S
    STARS += [(S.index_by_a_tuple_argument, (X, (0, 2))), (S.index_by_a_display, (X,))]


@pytest.mark.parametrize("f, args", STARS, ids=[f.__name__ for f, _ in STARS])
def test_star_forms_against_central_differences(f, args):
    got = s2sad.grad(f)(*args)
    np.testing.assert_allclose(got, central_differences(f, args, 0, EPS), rtol=1e-6,
                               atol=1e-7)
    assert s2sad.value_and_grad(f)(*args)[0] == pytest.approx(f(*args), rel=1e-12)
    _, push = s2sad.jvp(f)(*args)
    v = np.array([0.5, -1.0, 2.0])
    assert push(v) == pytest.approx(np.dot(got, v), rel=1e-9)
    second = s2sad.hessian(f)(*args)
    np.testing.assert_allclose(second, central_differences(s2sad.grad(f), args, 0, EPS),
                               rtol=1e-5, atol=1e-6)


def rest_of_a_computed_array(x):
    h = np.outer(x, x)
    a, *_rest = h  # <- here
    return np.sum(a)


def name_after_the_star_of_an_array(x):
    for _ in range(2):
        x = x * 0.5  # (given another value in a loop: its kind is not followed)
    a, *_rest, b = x  # <- here
    return a * b


def too_few_values(x):
    a, b, *_rest, _c = x[0], x[1]  # <- here
    return a * b


def random_of_a_computed_shape(x):
    h = np.outer(x, x)
    return np.sum(np.random.randn(*h.shape) * 0.0 + h)  # <- here


STAR_REFUSED = [
    (rest_of_a_computed_array, s2sad.UnsupportedSyntaxError,
     "starred assignment (`a, *b = ...`) of a value whose length s2sad cannot tell",
     "Index the sequence instead (a, rest = xs[0], xs[1:])"),
    (name_after_the_star_of_an_array, s2sad.UnsupportedSyntaxError,
     "of a value whose length s2sad cannot tell", "or an array"),
    (too_few_values, s2sad.DifferentiationError,
     "not enough values to unpack (expected at least 3, got 2)", "as many values"),
    (random_of_a_computed_shape, s2sad.UnsupportedSyntaxError,
     "`*h.shape` here: s2sad cannot tell how many values it gives",
     "np.random.standard_normal(h.shape) for np.random.randn(*h.shape)"),
]
if sys.version_info >= (3, 11):
    STAR_REFUSED.append((S.index_by_a_slice_of_a_tuple, s2sad.UnsupportedSyntaxError,
                         "`*i[:1]` here: s2sad cannot tell how many values it gives",
                         "Pass the values one by one"))


@pytest.mark.parametrize("f, cls, what, advice", STAR_REFUSED,
                         ids=[r[0].__name__ for r in STAR_REFUSED])
def test_star_forms_refused_at_the_line(f, cls, what, advice):
    test_refused_at_the_line_with_advice(f, cls, what, advice)


# --- a gradient of a list argument, its result stacked (runtime.higher.broadcast_like) ----

def _list_square(y):
    return y[0] ** 2 * y[1]


grad_of_a_list = s2sad.grad(_list_square)


def gradient_of_a_list_stacked(x):
    return np.sum(np.stack([grad_of_a_list([x[0], x[1]])]) * x[2])


def hessian_of_a_list(x):
    H = s2sad.hessian(lambda y: y[0] ** 2 * y[1])([x[0], x[1]])
    return np.sum(H * x[2])


@pytest.mark.parametrize("f", [gradient_of_a_list_stacked, hessian_of_a_list])
def test_a_list_arguments_sensitivity_is_cut_into_its_items(f):
    """The sensitivity of a list (an array, from np.stack's adjoint) goes to each item
    by its row, not whole to each: it was counted twice here."""
    np.testing.assert_allclose(s2sad.grad(f)(X), central_differences(f, (X,), 0, EPS),
                               rtol=1e-6, atol=1e-7)


def test_broadcast_like_cuts_an_array_into_a_lists_items():
    from s2sad.runtime.higher import broadcast_like, sens_like
    like = [0.5, np.array([1.0, 2.0])]
    assert broadcast_like(np.array([1.5, 2.5]), [0.5, 0.25]) == [1.5, 2.5]
    parts = broadcast_like([3.0, np.array([1.0, 1.0])], like)
    assert parts[0] == 3.0 and list(parts[1]) == [1.0, 1.0]
    assert sens_like(np.array([1.5, 2.5]), [0.5, 0.25]) == [1.5, 2.5]
