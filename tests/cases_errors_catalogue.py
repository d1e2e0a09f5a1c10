"""One function per entry of docs/errors.md, everything s2sad refuses (test_error_catalogue.py).

Each function marks the line the error must point at with a comment ``# <- here``.
"""
# ruff: noqa
import dataclasses
import functools
import statistics
import warnings

import itertools

import numpy as np

import s2sad
from tests import cases_generators

counter = 0


def uses_try(x):
    y = x * 1.0
    try:
        y[0] = 2.0  # <- here
    except IndexError:
        pass
    return y


def uses_with(x):
    with np.errstate(all="ignore"):  # <- here
        y = x * 2.0
    return y


def uses_yield(x):
    yield x * 2.0  # <- here
    return x


def uses_yield_from(x):
    yield from [x]  # <- here
    return x


def pairs(x):
    yield x, 2.0 * x


def uses_a_generator_otherwise(x):
    first = next(pairs(x))  # <- here
    return first[0] * first[1]


def loops_over_another_modules_generator(x):
    t = 0.0
    for v in cases_generators.steps(x):  # <- here
        t = t + v
    return t


async def is_async(x):  # <- here
    return x * 2.0


async def uses_async_for(x):  # <- here
    async for item in x:
        pass
    return x


async def uses_async_with(x):  # <- here
    async with x:
        pass
    return x


def defines_async(x):
    async def inner(y):  # <- here
        return y
    return x


def uses_global(x):
    global counter  # <- here
    counter = counter + 1
    return x * 2.0


def uses_nonlocal(x):
    y = x

    def bump():
        nonlocal y  # <- here
        y = y + 1.0
        return y
    return bump() * x


def uses_del(x):
    y = x * 2.0
    del y  # <- here
    return x


def defines_class(x):
    class Inner:  # <- here
        pass
    return x


def uses_lambda_value(x):
    y = (lambda v: v * 2.0)(x)  # <- here
    return y


def uses_lambda_argument(x):
    ys = list(filter(lambda v: v is not None, [x]))  # <- here
    return ys[0]


def has_star_args(*xs):  # <- here
    return xs[0] * 2.0


def has_star_kwargs(x, **options):  # <- here
    return x * 2.0


def makes_a_derivative_inside(a):
    def inner_fun(t):
        return t * t * a
    return s2sad.checkpoint(inner_fun)(a) * a  # <- here


def calls_with_star(x):
    xs = [x]
    xs.append(x)
    y = np.add(*xs)  # <- here
    return y


def calls_with_double_star(x):
    options = {}
    options["axis"] = 0
    y = np.sum(x, **options)  # <- here
    return y


def starred_assignment(x):
    for _ in range(2):
        x = x * 0.5
    a, *rest, b = x  # <- here
    return a * b


def recursive(x, n):
    def inner(y, k):
        if k == 0:
            return y
        return y * inner(y, k - 1)  # <- here
    return inner(x, n)


def code_after_return(x):
    return x * 2.0  # <- here
    y = x


def no_return(x):  # <- here
    y = x * 2.0


def bare_return(x):
    y = x * 2.0
    return  # <- here


def may_not_return(x):
    if x > 0:  # <- here
        return x


def nested_subscript_assignment(x):
    y = [[0.0, 0.0], [0.0, 0.0]]  # (a list of lists; on a NumPy array, .view_writes)
    y[0][1] = x  # <- here
    return np.sum(y)


def attribute_assignment(x):
    y = np.zeros(2)
    y.shape = (2, 1)  # <- here
    return np.sum(y * x)


class Scaled:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return self.k * x


class Stacked:
    def __init__(self):
        self.layers = [Scaled(2.0), Scaled(3.0)]


def changes_object_list(x, model):
    layers = model.layers
    layers.append(layers[0])  # <- here
    return np.sum(model.layers[-1](x))


def object_list_escapes(x, model):
    both = [model.layers, model.layers]  # <- here
    return np.sum(both[0][0](x))


def object_attributes_as_dict(x, model):
    setattr(model, "k", x)  # <- here
    return np.sum(model.layers[0](x))


def reads_variables_by_name(x):
    y = x * 2.0
    return np.sum(eval("y * y"))  # <- here


def updates_argument(x):
    x[0] = 2.0 * x[1]  # <- here
    return np.sum(x)


def grows_the_list_it_walks(x):
    xs = [x[0], x[1]]
    for v, w in zip(xs, [1.0, 2.0, 3.0]):  # <- here
        if len(xs) < 4:
            xs.append(v * w)
    return xs[-1]


def updates_shared(x):
    y = x * 1.0
    z = y[1:]
    y[1] = 1.0  # <- here
    return np.sum(z * x[1:])


def stores_rows_in_turn(x):
    y = np.outer(x, x)
    y[0], y[1] = y[1], y[0]  # <- here
    return np.sum(y * x)


def augments_shared(x):
    y = x * 1.0
    z = y
    y += x  # <- here
    return np.sum(z)


def augments_a_slot(x):
    z = x * 1.0
    ys = [z]
    ys[0] += x  # <- here
    return np.sum(z)


def assigns_a_list_slice(x):
    ys = [x[0], x[1], x[2]]
    ys[1:] = [x[0]]  # <- here
    return ys[0] * ys[1]


def imports_inside(x):
    import math  # <- here
    return math.sin(x)


def uses_match(x):
    match x:  # <- here
        case 0.0:
            y = 1.0
        case _:
            y = x
    return y


def set_comprehension(x):
    s = {v for v in x}  # <- here
    return np.sum(x)


def walrus(x):
    if (y := x * 2.0) > 0:  # <- here
        return y
    return x


def set_display(x):
    s = {x, 2.0}  # <- here
    return x


def returns_complex(x):
    z = x + 1j * x ** 2
    return np.sum(z)  # <- here


def def_inside_block(x):
    if x > 0:
        def helper(v):  # <- here
            return v
    return x


def norm_of_varying_order(x):
    p = 1.5 + x[0] ** 2
    return np.linalg.norm(x, ord=p)  # <- here


def pad_in_an_unsupported_mode(x):
    return np.sum(np.pad(x, 1, mode="reflect", reflect_type="odd") ** 2)  # <- here


def einsum_with_sublists(x):
    sublist = [0, 1]
    return np.sum(np.einsum(x, sublist, x, [1, 2]))  # <- here


def unknown_call(x):
    y = np.unwrap(x)  # <- here
    return np.sum(np.abs(y))


def cast_to_a_variable_dtype(x, kind):
    y = x.astype(kind)  # <- here
    return np.sum(y * x)


def unknown_call_may_change(x):
    rng = np.random.default_rng(0)
    y = x * 2.0
    rng.shuffle(y)  # <- here
    return np.sum(y * x)


def store_into_a_global_copy(x):
    z = ARRAY_OF_UNKNOWN_DTYPE.copy()
    z[1] = x[0]  # <- here
    return np.sum(z * x)


ARRAY_OF_UNKNOWN_DTYPE = np.ones(3)


def dict_with_computed_keys(x):
    name = "w"
    d = {name: x}  # <- here
    return d["w"] * 2.0


def unknown_user_callable(x):
    y = statistics.fmean([x, x])  # <- here
    return y


def calls_function_without_source(x):
    y = made_by_exec(x)  # <- here
    return y


def returns_vector(x):
    return x * 2.0  # <- here


def returns_tuple(x):
    return x, x * 2.0  # <- here


def returns_string(x):
    y = "done"
    return y  # <- here


def undefined_name(x):
    return x * not_defined_anywhere  # <- here


def undefined_module_attribute(x):
    return np.not_a_numpy_function(x)  # <- here


def two_arguments(x, y):
    return x * y


def fine(x):
    return np.sum(x * x)


namespace: dict = {}
exec("def made_by_exec(x):\n    return x * 2.0\n", namespace)
made_by_exec = namespace["made_by_exec"]


def sorts_argument(x):
    x.sort()  # <- here
    return np.sum(x * np.arange(3.0))


def fills_argument(x):
    y = x * 2.0
    x.fill(1.0)  # <- here
    return np.sum(y * x)


def writes_argument_through_out(x):
    np.multiply(x, 2.0, out=x)  # <- here
    return np.sum(x)


def writes_argument_through_positional_out(x):
    np.multiply(x, 2.0, x)  # <- here
    return np.sum(x)


def copies_into_argument(x):
    np.copyto(x, 2.0 * x)  # <- here
    return np.sum(x)


def sorts_a_local(x):
    y = x * 2.0
    y.sort()  # <- here
    return np.sum(y * np.arange(3.0))


def fills_a_local(x):
    y = x * 2.0
    y.fill(1.0)  # <- here
    return np.sum(y * x)


def writes_a_local_through_out(x):
    y = x * 1.0
    np.multiply(y, 2.0, out=y, casting="unsafe")  # <- here (out=, where=: followed)
    return np.sum(y * x)


def writes_a_local_through_positional_out(x):
    y = x * 1.0
    for _ in range(2):
        z = y * x
        np.tanh(z, z)  # <- here
        y = z
    return np.sum(y)


def adds_at_into_a_local(x):
    y = np.zeros(3)
    np.add.at(y, [0, 0], x[0])  # <- here
    return np.sum(y * x)


def pops_a_local_list(x):
    ys = [x, 2.0 * x]
    zs = ys  # (zs loses the item too: the sweep follows the list by one name)
    ys.pop()  # <- here
    return zs[0] * len(zs)


def appends_to_a_list_another_holds(x):
    a = [x]
    d = {"a": a}
    a.append(5.0 * x)  # <- here
    return d["a"][1]


def appends_to_an_alias(x):
    a = [x]
    b = a
    b.append(2.0 * x)  # <- here
    return a[1] + b[0]


def appends_to_a_list_in_a_dict(x):
    d = {"a": [x, 2.0 * x]}
    d["a"].append(3.0 * x)  # <- here
    return d["a"][2] + d["a"][0]


def sets_an_item_of_a_list_another_holds(x):
    a = [x, 1.0]
    outer = [a, 2.0]
    a[1] = x * x  # <- here
    return outer[0][1] + outer[1]


def appends_to_argument(xs):
    xs.append(1.0)  # <- here
    return xs[0] * xs[-1]


class Model:
    def loss(self, x):
        return x * 3.0


def log_of(x):
    y = np.log(x)  # <- here
    return np.sum(y)


def sqrt_of(x):
    y = np.sqrt(x)  # <- here
    return y * 2.0


def divide(x, d):
    y = x / d  # <- here
    return np.sum(y)


def overflows_in_a_loop(x):
    y = x
    for i in range(40):
        y = y * y + 1.0  # <- here
    return y


def max_of_a_list(xs):
    return max(xs, default=0.0) * 2.0  # <- here


@dataclasses.dataclass
class DataParams:
    W: np.ndarray


def uses_dataclass(p):
    return np.sum(p.W ** 2)


module_lambda = lambda x: x + np.cos(x)  # noqa: E731 (a module-level lambda, called)


def module_lambda_caller(x):
    return module_lambda(x) * 2.0


def indexes_mgrid(a):
    return np.sum(np.mgrid[a:a + 2.5])  # <- here


with warnings.catch_warnings():
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    MATRIX = np.matrix([[1.0, 2.0], [3.0, 4.0]])


def multiplies_a_matrix(x):
    return np.sum(MATRIX * x)  # <- here


def dots_a_matrix(x):
    return np.sum(np.dot(MATRIX, x))  # <- here


class Declines:
    def __imul__(self, other):
        return NotImplemented

    def __mul__(self, other):
        return other * 2.0


DECLINES = Declines()


def multiplies_in_place(x):
    o = DECLINES
    o *= x  # <- here
    return o


def joins_with_a_directive(x):
    return np.sum(np.r_["0,2", x, x])  # <- here


# --- session 31's refusals (docs/errors.md): each at its line --------------------------------

BUFFER = np.zeros(3)


def bump(v):
    v[0] += 1.0
    return v[1] > 0.0


def _first_of(*args):
    return args[0]


def generator_call_changes(x):
    rows = [x * 1.0, x * 2.0]
    hit = any(bump(r) for r in rows)  # <- here
    return np.sum(rows[0] * x) + hit


def loop_changes_iterable(x):
    xs = [x[0], x[1], x[2]]
    total = 0.0
    for c in itertools.accumulate(xs):
        xs[2] = c * 2.0  # <- here
        total = total + c
    return total


def update_closure_read(x):
    a = x * 1.0

    def g():
        return np.sum(a * x)
    v = a[1:]
    v[0] = 5.0  # <- here
    return g()


def update_kept_default(x):
    a = x * 1.0

    def g(v, c=a):
        return np.sum(v * c)
    a[0] = 2.0  # <- here
    return g(x)


def update_module_view(x):
    v = BUFFER[:2]
    v += x[:2]  # <- here
    return np.sum(v * x[:2])


def update_star_args(x):
    a = x * 1.0
    f = _first_of(a, x)
    a[0] = 3.0  # <- here
    return np.sum(f * x)
