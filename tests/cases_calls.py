"""Functions calling other functions (inlined by s2sad)."""
import functools
import math

import numpy as np

import s2sad

from tests import cases_methods
from tests import helpers_other_module as other
from tests.helpers_other_module import affine

W_GLOBAL = np.array([[0.5, -0.2], [0.1, 0.3]])


def square(v):
    return v * v


def poly(x, a=1.0, b=2.0, *, c=0.5):
    y = a * x ** 2
    y = y + b * x
    return y + c


def calls_same_module(x):
    return square(np.sin(x)) + poly(x, b=3.0, c=x)


def calls_other_module(W, x):
    h = affine(W, x)
    return np.sum(other.scaled_tanh(h)) + np.sum(other.scaled_tanh(h, gain=3.0))


def calls_in_loop(x):
    y = x
    for i in range(3):
        y = square(y) * 0.5 + poly(y, a=0.1)
    return y


def nested_def(x, w):
    k = 3.0

    def inner(z, scale=2.0):
        t = z * k
        return np.tanh(t * w) * scale

    f = lambda v: v * v + k  # noqa: E731
    return inner(x) + f(inner(x, scale=1.0))


# --- a nested def's or lambda's defaults are evaluated where it is defined -------------------


def default_read_at_def(a):
    def g(t, k=a):
        return t * k
    a = a * a
    return g(2.0)


def lambda_default_read_at_def(a):
    g = lambda t, k=a * 3.0: t * k  # noqa: E731
    a = np.sin(a)
    return g(a) + a


def keyword_only_default_read_at_def(a):
    def g(t, *, k=a):
        return t * k
    a = a + 1.0
    return g(a) + g(a, k=2.0)


def _applies_with_its_own_a(fn, x):
    a = 10.0
    return fn(x) + a


def lambda_default_read_in_the_callers_scope(a):
    """The default names the caller's ``a``, not the ``a`` of the helper that calls it."""
    return _applies_with_its_own_a(lambda t, k=a: t * k, a * 2.0)


def _defines_a_def_with_a_default(a):
    def g(t, k=a):
        return t * k
    a = a * a
    return g(3.0) * a


def helper_with_a_def_with_a_default(a):
    return _defines_a_def_with_a_default(a) + _defines_a_def_with_a_default(a * 2.0)


def default_named_like_its_parameter(a):
    k = 2.0

    def g(t, k=k):
        return t * k
    k = a
    return g(a) * k


def reads_global(x):
    return np.sum(W_GLOBAL @ x)


def callee_reassigns_parameter(v):
    v = v * 2.0
    v = v + 1.0
    return v


def caller_keeps_its_value(x):
    y = callee_reassigns_parameter(x)
    return x * y


def make_closure(scale):
    def loss(x):
        return math.sin(x) * scale
    return loss


def power(x, n):
    """Recursion on an integer: x ** n."""
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def calls_recursive(x):
    return np.sin(power(x, 4)) + power(x, 2)


def tree_sum(w, lo, hi):
    """Two recursive calls per level, on halves of an array."""
    if hi - lo == 1:
        return np.sin(w[lo]) * w[lo]
    mid = (lo + hi) // 2
    return tree_sum(w, lo, mid) * 1.5 + tree_sum(w, mid, hi)


def even_steps(x, n):
    """Mutual recursion with odd_steps."""
    if n == 0:
        return x
    return np.cos(odd_steps(x, n - 1))


def odd_steps(x, n):
    if n == 0:
        return x * x
    return even_steps(x, n - 1) * 2.0


def recursive_on_arrays(h, W, depth):
    if depth == 0:
        return np.sum(h * h)
    return recursive_on_arrays(np.tanh(W @ h), W, depth - 1) + 0.1 * np.sum(h)


def doubling_until_large(a):
    """Recursion whose call gets a constant sensitivity (``+ a * a`` beside it): its second
    derivative is the call's vjp differentiated in ``a``, not only in the sensitivity."""
    return a if a > 10 else doubling_until_large(a * 2.0) + a * a


def calls_gradient_of_recursion(x):
    """The gradient of a recursive function inlined, then differentiated."""
    return np.sin(power_gradient(x, 3)) * x


def recursive_in_loop(x):
    total = 0.0
    for k in range(3):
        total = total + power(x, k + 1)
    return total


power_gradient = s2sad.grad(power)


def _scaled_by_its_shape(x):
    return np.sum(x * (x.shape[1] + len(x))) + np.sum(x.T ** 2)


def calls_with_an_expression_whose_shape_is_read(x):
    # the callee reads attributes of its parameter, here the caller's temporary x * 2.0
    return _scaled_by_its_shape(x * 2.0)


# --- functions passed to functions ------------------------------------------------------------

def euler(rhs, y, steps=4, dt=0.1):
    for _ in range(steps):
        y = y + dt * rhs(y)
    return y


def twice(fn, v):
    return fn(fn(v))


def passes_numpy_function(w):
    return np.sum(twice(np.tanh, w))


def passes_own_function(w):
    return np.sum(twice(square, w))


def passes_lambda(k, y0):
    return euler(lambda y: -k * y * y, y0)


def passes_local_def(w, c):
    def scaled(v):
        return np.sin(v) * c
    return np.sum(euler(scaled, w, steps=3))


def passes_by_keyword(w):
    return np.sum(twice(v=w, fn=np.exp))


def passes_it_on(w):
    return np.sum(_passes_on(np.cos, w))


def _passes_on(fn, v):
    return twice(fn, v) * 2.0


def _steps(y, k):
    for _ in range(4):
        y = y + 0.1 * (-k * y * y)
    return y


def helper_updates_its_parameter_in_a_loop(k, y0):
    y = y0 * 1.0
    return _steps(y, k)


def _doubled_sum(v):
    v *= 2.0
    return np.sum(v)


def helper_doubles_in_place_a_value_read_after(x):
    a = x * 1.0
    return _doubled_sum(a) + np.sum(a)  # <- the helper's `v *= 2.0` changes a


def helper_doubles_in_place_a_value_not_read_after(x):
    a = x * 1.0
    return _doubled_sum(a) + np.sum(x)


# --- a helper's `v /= ...` on the caller's value: a number is rebound, an array changed -----


def _halved_square(v):
    v /= 1.0 + np.square(v)
    return v * v


def helper_halves_a_dot_product_read_after(x):
    t = np.dot(x, x)  # (a NumPy number: the kinds say "an array or a number")
    return np.sum(_halved_square(t)) + t


def helper_halves_a_number_in_a_loop(x):
    t = np.tanh(np.dot(x, x) + 0.5)  # (the long fuzz profile's program, in short)
    n = 0
    while n < 2 and t > 0.1:
        n = n + 1
        s = np.outer(x, x) * _halved_square(t)
        t = 0.5 * t + 0.5 * np.tanh(t * np.sum(s))
    return t


def helper_halves_a_float_argument_read_after(a):
    return _halved_square(a) + a


def helper_halves_an_array_not_read_after(x):
    t = x * 1.0
    return np.sum(_halved_square(t))


def helper_halves_an_array_read_after(x):
    t = x * 1.0
    return np.sum(_halved_square(t) + t)  # <- refused: the helper's `v /=` changes t


def helper_halves_an_array_whose_view_is_read_after(x):
    t = x * 1.0
    u = t[1:]
    return np.sum(_halved_square(t)) + np.sum(u)  # <- refused: u is a view of t


def helper_halves_a_view_of_an_array_read_after(x):
    t = x * 1.0
    return np.sum(_halved_square(t[1:])) + np.sum(t)  # <- refused at run time


def helper_halves_the_argument(x):
    return np.sum(_halved_square(x))  # <- refused: the caller's array x would change


def helper_halves_a_matrix_vector_product_read_after(x):
    t = np.dot(np.outer(x, x), x)  # (an array: refused when it runs)
    return np.sum(_halved_square(t)) + np.sum(t)


def _apply_through_a_name(f, x):
    g = f
    return g(x) * 2.0


def passes_numpy_function_renamed(x):
    return _apply_through_a_name(np.sin, x)


def passes_own_function_renamed(x):
    return _apply_through_a_name(square, x)


def _checks_its_function(f, x):
    if f is None:
        return x
    return f(x)


def passes_own_function_checked(x):
    return _checks_its_function(square, x)


def _compares_its_function(f, x):
    if f == square:
        return x
    return f(x)


def passes_own_function_compared(x):
    return _compares_its_function(square, x)


def _relu(z):
    return np.maximum(z, 0.0)


def alias_of_a_numpy_function(x):
    act = np.tanh  # a name for a function, at the top of the function: act(x) is np.tanh(x)
    return np.sum(act(x) * 2.0)


def alias_of_a_user_function(x):
    act = _relu
    return np.sum(act(x - 0.5))


def alias_of_a_nested_def(x):
    def inner(z):
        return z * z
    g = inner
    return np.sum(g(x))


def alias_given_again(x):
    act = np.tanh
    act = np.sin
    return np.sum(act(x))


def alias_chosen_in_a_branch(x, name):
    if name == "tanh":
        act = np.tanh
    else:
        act = np.sin
    return np.sum(act(x))



def _inner_loss(w, x):
    return np.sum((x @ w) ** 2)


_inner_gradient = s2sad.grad(_inner_loss)


def calls_a_gradient(w, x):
    """One step of gradient descent inside (MAML): the inner gradient is not inlined."""
    w2 = w - 0.1 * _inner_gradient(w, x)
    return np.sum(w2 ** 2)


def alias_given_again_in_a_loop(x):
    act = np.tanh
    s = 0.0
    for i in range(3):
        s = s + np.sum(act(x * (i + 1)))
        act = np.sin  # (from the second pass on: act is not np.tanh all along)
    return s


def method_as_a_value(x):
    m = x.sum  # (it once gave a zero gradient)
    return m() * 2.0


def _scaled(x, axis=None, keepdims=False, mode="sum"):
    along = -1 if axis is None else axis
    total = np.sum(x, axis=along, keepdims=keepdims and axis is not None)
    if mode == "sum" and not keepdims:
        return total * 2.0
    return total


def calls_with_constant_options(x):
    """Tests of the helper's constant options are decided while inlining: no branch left."""
    return np.sum(_scaled(x) ** 2) + np.sum(_scaled(x, axis=0, keepdims=True, mode="raw"))


def _inner_square(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


_inner_steps_gradient = s2sad.grad(_inner_square)
_inner_value_and_gradient = s2sad.value_and_grad(_inner_square)


def maml(w, x, y):
    """Three inner steps of gradient descent, then the loss at the adapted weights."""
    adapted = w
    for i in range(3):
        adapted = adapted - 0.2 * _inner_steps_gradient(adapted, x)
    return np.sum((y @ adapted) ** 2)


def uses_value_and_gradient(w, x):
    value, gradient = _inner_value_and_gradient(w, x)
    return value * np.sum(gradient ** 2)


def scalar_inner(a):
    return a ** 3 + math.sin(a)


_scalar_inner_gradient = s2sad.grad(scalar_inner)


def newton_step(a):
    return a - scalar_inner(a) / _scalar_inner_gradient(a)


_inner_vjp = s2sad.vjp(_inner_square)


def calls_a_vjp(w, x):
    value, pullback = _inner_vjp(w, x)
    return value


_inner_act = np.tanh


def _inner_with_act(w, x):
    return np.sum(_inner_act(x @ w) ** 2)


_inner_act_gradient = s2sad.grad(_inner_with_act)


def one_step_with_act(w, x):
    return np.sum((w - 0.3 * _inner_act_gradient(w, x)) ** 2)


MIX = np.array([[1.0, 0.5, 0.0], [0.2, -1.0, 0.3]])


def _inner_reads_a_global(w):
    return np.sum(np.tanh(MIX @ w) ** 2)


_inner_global_gradient = s2sad.grad(_inner_reads_a_global)


def step_reads_a_global(w):
    """The inner gradient's module global, read at each call (not its code's own copy)."""
    return np.sum((w - 0.3 * _inner_global_gradient(w)) ** 2)


def _inner_builds_a_list(w):
    out = []
    for i in range(3):
        out.append(w[i] ** 2)
    return sum(out)


_inner_list_gradient = s2sad.grad(_inner_builds_a_list)


def step_of_a_list_builder(w):
    return np.sum(_inner_list_gradient(w) ** 2)


def _sines(a):
    s = a
    for i in range(2):
        s = math.sin(s)
    return s


_sines_gradient = s2sad.grad(_sines)


def _sines_step(a):
    return a - 0.1 * _sines_gradient(a)


_sines_step_gradient = s2sad.grad(_sines_step)


def two_levels_of_gradients(a):
    return _sines_step_gradient(a) ** 2


def calls_its_own_gradient(w):
    return np.sum(w ** 2) + 0.1 * np.sum(_own_gradient(w) ** 2)


_own_gradient = s2sad.grad(calls_its_own_gradient)


def uses_objects_of_another_module(w):
    """An object reached through a module's name: its class's methods are inlined."""
    return np.sum(cases_methods.net.second.forward(w)) + np.sum(cases_methods.dense(w))


# --- calls as people write them (issue 35): star arguments, partial, map ---------------------


def star_call_into_another_module(x):
    parts = (np.sin(x), x * x)
    return np.sum(other.weighted_total(x, *parts, scale=0.5) ** 2)


def double_star_into_another_module(x):
    options = {"scale": 3.0}
    return np.sum(other.weighted_total(x, x, **options))


def partial_of_another_modules_function(x):
    gained = functools.partial(other.scaled_tanh, gain=3.0)
    return np.sum(gained(x) ** 2)


def map_of_another_modules_function(x):
    return np.sum(sum(map(other.scaled_tanh, [x, 2.0 * x], [1.0, 0.5])))
