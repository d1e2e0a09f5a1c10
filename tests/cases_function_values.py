"""Functions held in variables (chosen in a branch, unpacked from a tuple, given again)
and gradients made inside the function differentiated (issue 35): the programs of
``tests/test_function_values.py``. A line marked ``# <- here`` is where a refusal points."""

import numpy as np

import s2sad


def _cube(v):
    return v * v * v


def _square(v):
    return v * v


def _apply(fn, v):
    return fn(v) * 2.0


def _g(y):
    return np.sum(np.sin(y) ** 2)


# --- functions chosen, unpacked, given again ---------------------------------------------

def chosen_by_mode(x, mode):
    pool_fn = np.max if mode == "max" else np.mean
    return pool_fn(x * x) + np.sum(x)


def chosen_in_if_statement(x, name):
    if name == "tanh":
        act = np.tanh
    else:
        act = np.sin
    return np.sum(act(x) * x)


def chosen_among_three(x, k):
    fn = np.sin if k == 0 else (np.cos if k == 1 else np.tanh)
    return np.sum(fn(x) ** 2)


def chosen_by_values(x):
    fn = np.sin if np.sum(x) > 0 else np.cos  # (the test reads x: no derivative)
    return np.sum(fn(x * 1.5))


def chosen_among_users_functions(x, c):
    fn = _cube if c > 0 else _square
    return np.sum(fn(x) * x)


def chosen_and_passed_on(x, c):
    fn = np.tanh if c > 0 else np.exp
    return np.sum(_apply(fn, x))


def chosen_as_a_value(x, c):
    fn = np.tanh if c > 0 else np.exp
    f = fn  # (a name given it)
    return np.sum(f(x))


def chosen_given_first(x, flag):
    act = np.sin
    if flag:
        act = np.tanh
    return np.sum(act(x) * x)


def unpacked_from_a_tuple(x):
    pi, sqrt, tanh = np.pi, np.sqrt, np.tanh
    return np.sum(tanh(x) * pi + sqrt(x * x + 1.0))


def given_again(x):
    act = np.tanh
    act = np.sin
    return np.sum(act(x))


def held_in_a_list(x):
    acts = [np.tanh, np.sin, _square]
    return np.sum(acts[1](x) + acts[-1](x) * acts[0](x))


def held_in_a_dict(x):
    table = {"tanh": np.tanh, "cube": _cube}
    return np.sum(table["cube"](x) * table["tanh"](x))


def loop_over_functions(x):
    for act in (np.tanh, np.sin, _square):
        x = act(x) + 0.5
    return np.sum(x)


def loop_over_a_list_of_functions(x):
    acts = [np.sin, np.exp]
    s = 0.0
    for act in acts:
        s = s + np.sum(act(x) * x)
    return s + np.sum(act(x))  # (after the loop: its last item)


def _layer(x, act=np.tanh):
    return act(x) * 2.0


def _layer_of_mine(x, act=_square):
    return act(x) * 2.0


def default_arguments_of_a_helper(x):
    return np.sum(_layer(x) + _layer(x, np.sin) + _layer_of_mine(x) * _layer_of_mine(x, _cube))


def default_argument_of_a_nested_def(x):
    def inner(y, act=np.tanh, then=_cube):
        return then(act(y))
    return np.sum(inner(x) + inner(x, np.sin))


def _pool(x, mode):
    pool_fn = np.max if mode == "max" else np.mean
    return pool_fn(x)


def chosen_by_a_constant(x):
    return _pool(x * x, "mean") + _pool(x, "max")  # (decided as it compiles)


# --- gradients made inside ----------------------------------------------------------------

def grad_of_a_nested_def(x):
    def inner(y):
        return np.sum(y ** 3)
    return np.sum(s2sad.grad(inner)(x) * x)


def grad_of_a_closure(x):
    a = np.sin(x)

    def inner(y):
        return np.sum(y ** 2 * a)  # (a, read from the enclosing function: active)
    return np.sum(s2sad.grad(inner)(x) ** 2)


def grad_of_a_lambda(x):
    return np.sum(s2sad.grad(lambda y: np.sum(np.exp(y) * x))(x * 2.0) * x)


def value_and_grad_of_a_lambda(x):
    v, d = s2sad.value_and_grad(lambda y: np.sum(np.exp(y) * x))(x * 2.0)
    return v + np.sum(d * x)


def grad_of_a_module_function(x):
    return np.sum(s2sad.grad(_g)(x) ** 2)


def grad_wrt_the_second(x):
    def inner(u, v):
        return np.sum(u * v ** 2)
    return np.sum(s2sad.grad(inner, wrt=1)(x, np.cos(x)) * x)


def grad_reads_late(x):
    a = x * 2.0

    def inner(y):
        return np.sum(y * y * a)
    a = np.sin(x)  # (the closure reads a when grad(inner)(x) runs: this one)
    return np.sum(s2sad.grad(inner)(x) * x)


def grad_in_a_loop(x):
    w = x
    for _ in range(2):
        w = w - 0.1 * s2sad.grad(lambda v: np.sum((v - x) ** 2 * v))(w)  # (MAML's step)
    return np.sum(w ** 2)


# --- still refused ------------------------------------------------------------------------

def chosen_in_one_branch_only(x, c):
    if c > 0:
        fn = np.sin
    return np.sum(fn(x))  # <- here


def given_again_in_a_loop(x):
    act = np.tanh
    s = 0.0
    for i in range(3):
        s = s + np.sum(act(x * (i + 1)))  # <- here
        act = np.sin
    return s


def checkpoint_made_inside(x):
    def inner(y):
        return np.sum(y ** 3)
    return np.sum(s2sad.checkpoint(inner)(x))  # <- here


def grad_made_inside_with_defaults(x):
    def inner(y, k=2.0):
        return np.sum(y ** k)
    return np.sum(s2sad.grad(inner)(x))  # <- here


def grad_made_inside_reads_a_function(x):
    def helper(y):
        return y * 2.0

    def inner(y):
        return np.sum(helper(y) ** 2)
    return np.sum(s2sad.grad(inner)(x))  # <- here


def grad_made_inside_with_a_variable_option(x):
    k = 0
    return np.sum(s2sad.grad(lambda y: np.sum(y ** 2), wrt=k)(x))  # <- here


def list_item_that_is_not_there(x):
    acts = [np.tanh, np.sin]
    return np.sum(acts[2](x))  # <- here


def list_of_functions_read_as_a_value(x):
    acts = [np.tanh, np.sin]
    more = acts + [np.cos]  # (len(acts) and acts[i](x) are followed; this is not)
    return np.sum(more[2](x))  # <- here


def apply(g, x):
    return g(x)


def grad_made_and_passed_on(x):
    g = s2sad.grad(lambda y: np.sum(y ** 2))  # <- here
    return np.sum(apply(g, x))
