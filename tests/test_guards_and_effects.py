"""Python as people write it (issue 35): ``assert`` and input checks that ``raise``, helpers
without ``return``, ``print`` and ``logging`` calls, a classmethod and ``super()`` of the
user's classes, properties and dataclasses. Checks and side effects run in the forward
sweep, once per gradient call, in the user's order, and carry no derivative; gradients
against central differences (float64), forward mode against reverse, second order."""

import dataclasses
import inspect
import logging

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences

X = np.array([0.3, 0.7, 1.4, 0.55])
LOG = logging.getLogger("s2sad_tests_effects")
SEEN = []


# --- checks that raise ------------------------------------------------------------------------

def asserts(x):
    assert x.ndim == 1, "need a vector"
    assert np.all(x > 0), f"negative entries: {x.min()}"
    return np.sum(np.log(x) * x)


def checks_input(x, mode="sum"):
    if x.ndim != 1:
        raise ValueError(f"expected a vector, got {x.ndim} dimensions")
    if mode == "sum":
        return np.sum(x ** 3)
    elif mode == "mean":
        return np.mean(x ** 3)
    raise ValueError(f"unknown mode {mode!r}")


def raises_in_a_loop(x):
    t = 0.0
    for i in range(3):
        y = np.sin(x * (i + 1))
        if np.any(np.isnan(y)):
            raise FloatingPointError("nan")
        t = t + np.sum(y * y)
    return t


def validate(v, k):
    if k > 10:
        raise ValueError("k too large")
    assert v.shape == (4,)


def check_in_a_helper(x):
    t = 0.0
    for k in range(3):
        validate(x, k)
        t = t + np.sum(np.tanh(x * k))
    return t


def raises_from(x):
    if x.size == 0:
        raise ValueError("empty") from None
    return np.sum(np.exp(x))


# --- side effects -----------------------------------------------------------------------------

def report(v, tag):
    print(tag, np.round(v, 6))
    SEEN.append(tag)


def prints_in_a_helper(x):
    y = np.exp(x)
    report(y, "y")          # a helper without return: its result unused
    report(y * 2, "twice")
    return np.sum(y * x)


def prints_in_a_loop(x):
    t = 0.0
    i = 0
    while i < 3:
        t = t + np.sum(np.cos(x) * i)
        print("step", i, np.round(t, 6))
        i += 1
    return t


def bare_return(v):
    if v is None:
        return
    SEEN.append("bare")


def returns_nothing(x):
    bare_return(x)
    bare_return(None)
    return np.sum(x ** 2)


def logs(x):
    y = np.exp(x)
    LOG.info("y is %s", np.round(y, 6))
    logging.getLogger("s2sad_tests_effects").warning("sum %.6f", np.sum(y))
    return np.sum(y)


# --- classes -----------------------------------------------------------------------------------

class Base:
    scale = 3.0

    def __init__(self, w):
        self.w = w

    @property
    def doubled(self):
        return self.w * 2.0

    @classmethod
    def factor(cls, v):
        return v * cls.scale

    def forward(self, x):
        return np.tanh(self.w * x)


class Derived(Base):
    scale = 0.5

    def forward(self, x):
        return super().forward(x) * 2.0 + super(Derived, self).forward(x * x)

    def scaled(self, x):
        return np.sum(self.factor(x) * self.doubled)


def with_property(x, model):
    return np.sum(np.sin(model.doubled * x))


def with_classmethod(x, model):
    return np.sum(Base.factor(x) ** 2) + np.sum(model.factor(x) * x)


def with_super(x, model):
    return np.sum(model.forward(x))


def classmethod_in_a_method(x, model):
    return model.scaled(x)


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float = 1.0

    def apply(self, x):
        return np.tanh(self.w * x + self.b)


@dataclasses.dataclass(frozen=True)
class Frozen:
    w: np.ndarray
    b: float = 0.5


def with_dataclass(x, params):
    return np.sum(params.apply(x)) + np.sum(params.w * params.b * x ** 2)


def with_frozen_dataclass(x, params):
    return np.sum(np.exp(params.w * x) * params.b)


W = np.array([0.5, -1.0, 2.0, 0.25])
MODELS = {with_property: Base(W), with_classmethod: Derived(W), with_super: Derived(W),
          classmethod_in_a_method: Derived(W), with_dataclass: Params(W, 0.3),
          with_frozen_dataclass: Frozen(W, 1.5)}

CASES = [asserts, checks_input, raises_in_a_loop, check_in_a_helper, raises_from,
         prints_in_a_helper, prints_in_a_loop, returns_nothing, logs, *MODELS]


def _args(f):
    return (X, MODELS[f]) if f in MODELS else (X,)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_gradient_against_central_differences(f, capsys, caplog):
    caplog.set_level(logging.INFO, logger="s2sad_tests_effects")
    SEEN.clear()
    f(*_args(f))
    expected = capsys.readouterr().out, [r.getMessage() for r in caplog.records], SEEN[:]
    caplog.clear()
    SEEN.clear()
    gradient = s2sad.grad(f)(*_args(f))
    # each side effect once, in the user's order, with the forward values
    assert (capsys.readouterr().out, [r.getMessage() for r in caplog.records], SEEN) == expected
    np.testing.assert_allclose(gradient, central_differences(f, list(_args(f)), 0),
                               rtol=1e-6, atol=1e-8)
    assert np.any(gradient != 0)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_forward_mode_matches_reverse(f, capsys):
    direction = np.array([0.5, -1.0, 0.25, 2.0])
    value, push = s2sad.jvp(f)(*_args(f))
    np.testing.assert_allclose(value, f(*_args(f)), rtol=1e-12)
    np.testing.assert_allclose(push(direction), s2sad.grad(f)(*_args(f)) @ direction,
                               rtol=1e-9)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_second_order(f, capsys):
    hessian = s2sad.hessian(f)(*_args(f))
    numeric = central_differences(s2sad.grad(f), list(_args(f)), 0)
    np.testing.assert_allclose(hessian, numeric, rtol=1e-5, atol=1e-6)


def test_a_failing_check_raises_the_users_exception():
    with pytest.raises(AssertionError, match="negative entries: -0.7"):
        s2sad.grad(asserts)(X * np.array([1, -1, 1, 1]))
    with pytest.raises(ValueError, match="expected a vector, got 2 dimensions"):
        s2sad.grad(checks_input)(np.ones((2, 2)))
    with pytest.raises(ValueError, match="unknown mode 'max'"):
        s2sad.grad(checks_input)(X, "max")
    with pytest.raises(ValueError, match="unknown mode 'max'"):
        s2sad.hessian(checks_input)(X, "max")
    with pytest.raises(FloatingPointError):
        s2sad.grad(raises_in_a_loop)(np.array([0.3, np.nan, 1.0, 1.0]))
    with pytest.raises(ValueError, match="empty") as info:
        s2sad.grad(raises_from)(np.zeros(0))
    assert info.value.__suppress_context__


def test_a_check_not_taken_costs_no_derivative_work():
    text = s2sad.grad(checks_input).source_for(X)
    assert "raise " in text
    text = s2sad.grad(asserts).source_for(X)
    assert text.count("AssertionError") == 2
    assert "s_" not in text.split("AssertionError")[1].split("\n")[0]


def test_super_and_classmethod_are_the_ones_python_calls():
    model = Derived(W)
    assert np.allclose(with_super(X, model), np.sum(2 * np.tanh(W * X) + np.tanh(W * X * X)))
    text = s2sad.grad(with_classmethod).source_for(X, model)
    assert "factor(" not in text and "forward(" not in text


def uses_super_of_a_property(x, model):
    return model.calls_super_property(x)


class WithProperty(Base):
    def calls_super_property(self, x):
        return np.sum(super().doubled * x)  # <- here


def test_super_of_what_is_no_method_is_refused_at_its_line():
    from s2sad.errors import UnsupportedSyntaxError
    with pytest.raises(UnsupportedSyntaxError, match="super[(][)] other than to call a "
                       "method") as info:
        s2sad.grad(uses_super_of_a_property, wrt=0)(X, WithProperty(W))
    _, start = inspect.getsourcelines(WithProperty.calls_super_property)
    assert info.value.lineno == start + 1
    assert "by the base class's name" in str(info.value)
