"""Functions given to the differentiated function (issue 35): as an argument, a default,
an attribute of an argument object, an item of a list or dict argument, or an item
chosen by an index known only when the function runs. Each function given gets its own
variant (``("function", obj)`` in the arguments' description), its calls resolved as if
its name were written. Checked against central differences (float64), forward mode
against reverse, second derivatives against differences of the gradient; and what stays
refused, at its line with its advice. A line marked ``# <- here`` is where a refusal
points."""

import functools
import inspect

import numpy as np
import pytest
import scipy.special

import s2sad
import table_checks
from s2sad.descriptors import describe
from tests.test_higher_order import central_differences

EPS = 1e-6
rng = np.random.default_rng(3535)
X = np.array([0.3, -0.7, 1.2])
W = np.array([[1.0, 0.5, -0.2], [0.3, -1.0, 0.4], [0.1, 0.2, 0.9]])


# --- the programs ---------------------------------------------------------------------------

def _cube(v):
    return v * v * v


def _layer(z, W, b=0.0):
    return np.tanh(W @ z + b)


def _apply_twice(fn, v):
    return fn(fn(v) * 0.5)


def _scaled(k):
    return lambda z: k * z * z  # (each call: a lambda of its own closure)


class Layer:
    def __init__(self, w):
        self.w = w

    def forward(self, z):
        return np.tanh(z * self.w)

    def __call__(self, z):
        return np.sin(z) * self.w


class Model:
    def __init__(self, act, acts=(np.sin, np.cos), table=None, w=1.5):
        self.act = act
        self.acts = list(acts)
        self.table = table or {"a": np.tanh, "b": np.exp}
        self.w = w


class Block:
    def __init__(self, act):
        self.inner = Model(act)

    def forward(self, x):
        return self.inner.act(x * self.inner.w)


class Hides:
    """``self.act`` given a function where the class has ``def act``: the attribute's."""

    def __init__(self, act):
        self.act = act

    def act(self, z):  # noqa: F811 (hidden by the object's own attribute)
        return z


def act_loss(x, act):
    return np.sum(act(x) * x)


def real_and_imaginary(x, act):
    return np.sum(np.real(act(x)) ** 2 + np.imag(act(x)))


class Complex:
    def __init__(self, w):
        self.w = w

    def power(self, z):
        return np.abs(z * self.w) ** 2


def called_twice(x, act):
    return np.sum(act(x)) + np.sum(act(2.0 * x) ** 2)


def optional(x, act=None):
    y = 2.0 * x
    if act is not None:  # (decided as it compiles: a function given is not None)
        y = act(y)
    return np.sum(y * x)


def with_default(x, act=np.tanh):
    return np.sum(act(x) * x)


def keyword_only(x, *, act):
    return np.sum(act(x * x))


def passed_on(x, act):
    return np.sum(_apply_twice(act, x))


def attribute(x, model):
    return np.sum(model.act(x * model.w))


def attribute_hiding_a_method(x, obj):
    return np.sum(obj.act(x))


def attribute_in_a_helper_method(x, block):
    return np.sum(block.forward(x))


def list_in_an_attribute(x, model):
    return np.sum(model.acts[0](x) * model.acts[-1](x))


def dict_in_an_attribute(x, model):
    return np.sum(model.table["a"](x) + model.table["b"](0.5 * x))


def list_argument(x, fs):
    return np.sum(fs[0](x) * fs[1](x))


def dict_argument(x, table):
    return np.sum(table["f"](x) - table["g"](x))


def loop_over_an_argument(x, fs):
    for f in fs:
        x = f(x)
    return np.sum(x)


def index_known_when_run(x, i):
    acts = [np.tanh, np.sin, np.exp]
    return np.sum(acts[i](x) * x)


def argument_index_known_when_run(x, fs, i):
    return np.sum(fs[i](x) * x)


def int_keyed_dict(x, k):
    table = {1: np.tanh, 2: np.sin, -1: np.exp}  # (keys, not positions)
    return np.sum(table[k](x)) * len(table)


def int_keyed_dict_argument(x, table, k):
    return np.sum(table[k](x) * x) + len(table)


def loop_over_an_attribute(x, model):
    for act in model.acts:
        x = act(x) * model.w
    return np.sum(x)


def loop_by_index_with_len(x, fs):
    s = 0.0
    for k in range(len(fs)):
        s = s + np.sum(fs[k](x) * (k + 1))
    return s


def last_item_by_len(x):
    acts = [np.tanh, np.sin]
    return np.sum(acts[len(acts) - 1](x))


def key_known_when_run(x, key):
    table = {"t": np.tanh, "s": np.sin}
    return np.sum(table[key](x))


# the variable of each table row: what the function is given
FUNCTIONS = [
    ("ufunc", np.tanh),
    ("numpy-function", np.sum),
    ("scipy-rule", scipy.special.erf),
    ("users", _cube),
    ("lambda", lambda z: np.exp(0.5 * z)),
    ("partial-of-numpy", functools.partial(np.dot, W)),
    ("partial-of-users", functools.partial(_layer, W=W, b=0.25)),
    ("bound-method", Layer(1.5).forward),
    ("callable-object", Layer(-0.5)),
]

TABLE = [(act_loss, (X, fn), name) for name, fn in FUNCTIONS] + [
    (real_and_imaginary, (X, functools.partial(np.multiply, 1.0 + 2.0j)), "complex-partial"),
    (act_loss, (X, Complex(np.array([1 + 1j, 2.0, 3j])).power), "complex-object"),
    (called_twice, (X, np.sin), "sin"),
    (called_twice, (X, _cube), "users"),
    (optional, (X, _cube), "users"),
    (optional, (X, np.tanh), "ufunc"),
    (optional, (X, functools.partial(np.multiply, 3.0)), "partial"),
    (with_default, (X,), "default"),
    (with_default, (X, np.sin), "default-given"),
    (passed_on, (X, np.tanh), "ufunc"),
    (passed_on, (X, _cube), "users"),
    (attribute, (X, Model(np.tanh)), "ufunc"),
    (attribute, (X, Model(_cube)), "users"),
    (attribute, (X, Model(functools.partial(np.multiply, 3.0))), "partial"),
    (attribute_hiding_a_method, (X, Hides(np.sin)), "sin"),
    (attribute_in_a_helper_method, (X, Block(np.tanh)), "tanh"),
    (list_in_an_attribute, (X, Model(np.tanh)), "list"),
    (list_in_an_attribute, (X, Model(np.tanh, acts=(_cube, np.exp))), "list-users"),
    (dict_in_an_attribute, (X, Model(np.tanh)), "dict"),
    (list_argument, (X, [np.sin, np.exp]), "list"),
    (list_argument, (X, (_cube, np.tanh)), "tuple"),
    (dict_argument, (X, {"f": np.sin, "g": _cube}), "dict"),
    (loop_over_an_argument, (X, [np.sin, np.tanh, _cube]), "loop"),
    (index_known_when_run, (X, 0), "0"),
    (index_known_when_run, (X, 2), "2"),
    (index_known_when_run, (X, -2), "-2"),
    (argument_index_known_when_run, (X, [np.tanh, _cube], 1), "1"),
    (argument_index_known_when_run, (X, (np.tanh, _cube), -2), "-2"),
    (key_known_when_run, (X, "s"), "s"),
    (loop_over_an_attribute, (X, Model(np.tanh, acts=(np.sin, _cube, np.tanh))), "loop"),
    (loop_by_index_with_len, (X, [np.sin, np.tanh, _cube]), "list"),
    (loop_by_index_with_len, (X, (np.exp,)), "one"),
    (last_item_by_len, (X,), "len"),
    (int_keyed_dict, (X, 1), "1"),
    (int_keyed_dict, (X, -1), "-1"),
    (int_keyed_dict_argument, (X, {2: np.sin, 0: _cube}, 0), "0"),
    (int_keyed_dict_argument, (X, {2: np.sin, 0: _cube}, 2), "2"),
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


# --- one variant for each function: never a wrong one reused --------------------------------

def _differences(f, *args):
    return central_differences(f, args, 0, EPS)


def test_each_function_given_gets_its_own_variant():
    """Calls alternate between functions: each call's gradient is its function's (the
    second call of each goes through the entry the first one made)."""
    gradient = s2sad.grad(act_loss)
    order = [np.tanh, np.sin, _cube, np.tanh, _cube, np.sin, np.tanh, np.tanh]
    for fn in order:
        np.testing.assert_allclose(gradient(X, fn), _differences(act_loss, X, fn),
                                   rtol=1e-6, atol=1e-7)
    assert {k[1] for k in gradient._variants} >= {("function", f) for f in order}


def test_two_lambdas_of_one_code_with_other_closures_are_two_functions():
    gradient = s2sad.grad(act_loss)
    for k in (1.0, 3.0, -2.0, 1.0):
        fn = _scaled(k)
        np.testing.assert_allclose(gradient(X, fn), 3 * k * X * X, rtol=1e-12)


def test_bound_methods_of_two_objects_are_two_functions():
    gradient = s2sad.grad(act_loss)
    for w in (2.0, 3.0, 2.0):
        method = Layer(w).forward
        np.testing.assert_allclose(gradient(X, method), _differences(act_loss, X, method),
                                   rtol=1e-6, atol=1e-7)


def test_an_attribute_given_another_function_builds_another_variant():
    gradient = s2sad.grad(attribute)
    model = Model(np.tanh)
    for fn in (np.tanh, np.sin, np.tanh, _cube, np.sin):
        model.act = fn
        np.testing.assert_allclose(gradient(X, model), _differences(attribute, X, model),
                                   rtol=1e-6, atol=1e-7)


def test_a_list_attribute_looped_over_given_another_function():
    gradient = s2sad.grad(loop_over_an_attribute)
    model = Model(np.tanh, acts=(np.sin, np.tanh))
    for first in (np.sin, _cube, np.sin):
        model.acts[0] = first
        np.testing.assert_allclose(gradient(X, model),
                                   _differences(loop_over_an_attribute, X, model),
                                   rtol=1e-6, atol=1e-7)


def test_an_item_of_a_list_attribute_given_another_function():
    gradient = s2sad.grad(list_in_an_attribute)
    model = Model(np.tanh)
    for first in (np.sin, np.tanh, np.sin):
        model.acts[0] = first
        np.testing.assert_allclose(gradient(X, model),
                                   _differences(list_in_an_attribute, X, model),
                                   rtol=1e-6, atol=1e-7)


def test_a_changed_default_is_the_function_called():
    def default_changes(x, act=np.tanh):
        return np.sum(act(x))
    gradient = s2sad.grad(default_changes)
    np.testing.assert_allclose(gradient(X), 1 - np.tanh(X) ** 2, rtol=1e-12)
    default_changes.__defaults__ = (np.sin,)
    np.testing.assert_allclose(gradient(X), np.cos(X), rtol=1e-12)


def test_keyword_only_function():
    gradient = s2sad.grad(keyword_only)
    np.testing.assert_allclose(gradient(X, act=np.sin), 2 * X * np.cos(X * X), rtol=1e-12)
    np.testing.assert_allclose(gradient(X, act=np.exp), 2 * X * np.exp(X * X), rtol=1e-12)


def test_the_call_is_written_as_the_function_given():
    """``act(x)`` is ``tanh(x)`` in the variant for np.tanh; the user's is inlined."""
    gradient = s2sad.grad(act_loss)
    source = gradient.source_for(X, np.tanh)
    assert "from numpy import tanh" in source and "tanh(x)" in source, source
    inlined = gradient.source_for(X, _cube)
    assert "act(" not in inlined and "x * x" in inlined, inlined


def test_functions_are_described_by_themselves():
    assert describe(np.tanh) == ("function", np.tanh)
    assert describe([np.sin, _cube]) == ("list", (("function", np.sin), ("function", _cube)))
    assert describe(_scaled(1.0)) != describe(_scaled(1.0))
    members = dict(describe(Model(np.tanh))[3])
    assert members["act"] == ("function", np.tanh)
    assert members["table"] == ("dict", (("a", ("function", np.tanh)),
                                         ("b", ("function", np.exp))))


def test_float32_is_kept():
    x = X.astype(np.float32)
    for f, args in ((act_loss, (x, np.tanh)), (act_loss, (x, _cube)),
                    (attribute, (x, Model(np.sin, w=np.float32(1.5)))),
                    (index_known_when_run, (x, 1))):
        assert s2sad.grad(f)(*args).dtype == np.float32


def test_an_index_out_of_range_raises_as_python_does():
    gradient = s2sad.grad(index_known_when_run)
    for i in (3, -4):
        with pytest.raises(IndexError):
            index_known_when_run(X, i)
        with pytest.raises(IndexError):
            gradient(X, i)
    with pytest.raises(KeyError):
        s2sad.grad(key_known_when_run)(X, "u")
    for k in (0, 3):  # (a dict with keys 1, 2 and -1: no position)
        with pytest.raises(KeyError):
            s2sad.grad(int_keyed_dict)(X, k)


def test_a_function_read_only_on_values_without_derivative_is_not_refused():
    def reads_a_constant(x, act):
        return np.sum(x * act(2.0))
    gradient = s2sad.grad(reads_a_constant)
    np.testing.assert_allclose(gradient(X, np.spacing), np.full(3, np.spacing(2.0)))


# --- refused, at the line, with advice ------------------------------------------------------

def optional_left_out(x, act=None):
    y = 2.0 * x
    if act is not None:
        y = act(y)  # <- here
    return np.sum(y * x)


def given_in_a_loop(x, flag):
    act = np.tanh
    s = 0.0
    for i in range(2):
        if flag:
            act = np.sin
        s = s + np.sum(act(x))  # <- here
    return s


def list_read_as_a_value(x, fs):
    more = fs + [np.cos]
    return np.sum(more[1](x))  # <- here


def unknown_function_given(x, act):
    return np.sum(act(x))  # <- here


def unknown_function_in_an_attribute(x, model):
    return np.sum(model.act(x))  # <- here


def _marked_line(f) -> int:
    lines, first = inspect.getsourcelines(f)
    return first + next(i for i, line in enumerate(lines) if "# <- here" in line)


REFUSED = [
    (given_in_a_loop, (X, True), s2sad.NoDerivativeError,
     "act() (a function held in a variable)", "s2sad follows a variable given a function"),
    (list_read_as_a_value, (X, [np.sin, np.cos]), s2sad.NoDerivativeError,
     "no derivative rule for this call", "call the function itself"),
    (unknown_function_given, (X, np.spacing), s2sad.NoDerivativeError,
     "act() (a function held in a variable)", "register a rule with @s2sad.defvjp"),
    (unknown_function_given, (X, functools.partial(np.spacing)), s2sad.NoDerivativeError,
     "act() (a function held in a variable)", "register a rule with @s2sad.defvjp"),
    (unknown_function_in_an_attribute, (X, Model(np.spacing)), s2sad.NoDerivativeError,
     "model.act()", "register a rule with @s2sad.defvjp"),
]


@pytest.mark.parametrize("f, args, cls, what, advice", REFUSED,
                         ids=[f"{r[0].__name__}-{k}" for k, r in enumerate(REFUSED)])
def test_refused_at_the_line_with_advice(f, args, cls, what, advice):
    with pytest.raises(cls) as info:
        s2sad.grad(f)(*args)
    message = str(info.value)
    assert what in message and advice in message, message
    assert info.value.lineno == _marked_line(f), message
    assert info.value.filename == inspect.getsourcefile(f)


def test_an_optional_function_left_out_is_decided():
    """``act=None`` is part of the variant's key: ``if act is not None`` is decided, and a
    later call given a function gets a variant of its own."""
    gradient = s2sad.grad(optional_left_out)
    np.testing.assert_allclose(gradient(X), 4.0 * X, rtol=1e-12)
    np.testing.assert_allclose(gradient(X, np.sin),
                               np.sin(2 * X) + 2 * X * np.cos(2 * X), rtol=1e-12)
    np.testing.assert_allclose(gradient(X), 4.0 * X, rtol=1e-12)


def test_a_refused_function_does_not_stop_another_variant():
    """The variant for np.spacing is refused; the one for np.sin is built and right."""
    gradient = s2sad.grad(unknown_function_given)
    with pytest.raises(s2sad.NoDerivativeError):
        gradient(X, np.spacing)
    np.testing.assert_allclose(gradient(X, np.sin), np.cos(X), rtol=1e-12)
    with pytest.raises(s2sad.NoDerivativeError):
        gradient(X, np.spacing)
