"""Session 28: state changes run once per call, and the memory budget counts every tape.

Findings of an adversarial pass, each with the tests that fail without its fix:

- ``vjp`` and ``jvp`` ran an object's state changes twice: once at the call (the value),
  again at each pullback or pushforward (the generated code, its ``side_effect`` calls
  with it). ``model.calls += 1`` read 2 after one call and one pushforward; a Jacobian's
  rows or columns, a Hessian's columns, ``jvp(grad(f))`` and a checkpoint's recomputation
  counted once per run. Those runs now go through ``runtime.structures.repeating``, where
  ``side_effect`` changes nothing: the call made the changes already, and a function whose
  output reads the state it changes is refused by these makers. A checkpointed function
  that reads the state it changes was not refused: its recomputation read the state its
  first run had changed, a silently wrong derivative. It is refused now. A recursive
  function that changes an object's state is refused at the change's line: its derivative
  runs the levels below each call again in plain Python.
- A ``while`` loop's memory budget check counted only the lists that loop records on:
  two loops one after the other, each under the budget, recorded more than it together
  (so a ``for`` loop's tape before a ``while`` loop, or a loop's tape made in a branch).
  A loop's check now counts every tape made before it.
"""

import math

import numpy as np
import pytest
from test_higher_order import central_differences

import s2sad
from s2sad.errors import DifferentiationError
from s2sad.runtime.budget import DEFAULT_BUDGET

X = np.array([0.3, -0.7])


# --- state changes run once per call ----------------------------------------------------------


class Model:
    def __init__(self):
        self.calls = 0
        self.log = []
        self.w = np.array([1.5, -2.0])


class Layer:
    """A layer that counts its calls (``self.n += 1`` in the method ``f`` calls)."""

    def __init__(self):
        self.n = 0
        self.w = np.array([0.5, 2.0])

    def __call__(self, x):
        self.n += 1
        return np.sin(self.w * x)


def counted(model, x):
    model.calls += 1
    model.log.append(1.0)
    return model.w * np.sin(x) * x


def counted_scalar(model, x):
    model.calls += 1
    model.log.append(1.0)
    return np.sum(model.w * np.sin(x) * x)


def layered(layer, x):
    return layer(x) * np.cos(x)


def layered_scalar(layer, x):
    return np.sum(layer(x) * x)


def _count(obj):
    return obj.calls if isinstance(obj, Model) else obj.n


def _new(kind):
    return Model() if kind == "model" else Layer()


FUNCS = {"model": (counted, counted_scalar), "layer": (layered, layered_scalar)}


def _makers():
    """``(name, run(f, f_scalar, obj) -> result)``: one call of each maker's function."""
    def vjp(f, _, obj):
        value, pullback = s2sad.vjp(f, wrt=1)(obj, X)
        return pullback(np.array([1.0, 0.5]))

    def vjp_twice(f, _, obj):
        value, pullback = s2sad.vjp(f, wrt=1)(obj, X)
        pullback(np.array([1.0, 0.0]))
        return pullback(np.array([1.0, 0.5]))

    def jvp(f, _, obj):
        value, push = s2sad.jvp(f, wrt=1)(obj, X)
        return push(np.array([1.0, 0.5]))

    def jvp_grad(_, g, obj):
        value, push = s2sad.jvp(s2sad.grad(g, wrt=1), wrt=1)(obj, X)
        return push(np.array([1.0, 0.5]))

    return {
        "grad": lambda f, g, obj: s2sad.grad(g, wrt=1)(obj, X),
        "value_and_grad": lambda f, g, obj: s2sad.value_and_grad(g, wrt=1)(obj, X)[1],
        "hvp": lambda f, g, obj: s2sad.hvp(g, wrt=1)(obj, X, np.array([1.0, 0.5])),
        "vjp": vjp, "vjp_twice": vjp_twice, "jvp": jvp, "jvp_grad": jvp_grad,
        "jacobian_rev": lambda f, g, obj: s2sad.jacobian(f, wrt=1, mode="rev")(obj, X),
        "jacobian_fwd": lambda f, g, obj: s2sad.jacobian(f, wrt=1, mode="fwd")(obj, X),
        "jacobian_of_jacobian": lambda f, g, obj: s2sad.jacobian(
            s2sad.jacobian(f, wrt=1), wrt=1)(obj, X),
        "hessian": lambda f, g, obj: s2sad.hessian(g, wrt=1)(obj, X),
    }


def _oracle(name, f, g, kind):
    """The maker's result by central differences of the plain functions."""
    plain_f = lambda x: f(_new(kind), x)  # noqa: E731
    plain_g = lambda x: g(_new(kind), x)  # noqa: E731
    if name in ("grad", "value_and_grad"):
        return central_differences(plain_g, (X,), 0)
    jac = np.moveaxis(central_differences(plain_f, (X,), 0), 0, -1)  # (output, input)
    if name == "vjp" or name == "vjp_twice":
        return np.array([1.0, 0.5]) @ jac
    if name == "jvp":
        return jac @ np.array([1.0, 0.5])
    if name in ("jacobian_rev", "jacobian_fwd"):
        return jac
    gradient = lambda x: central_differences(plain_g, (x,), 0)  # noqa: E731
    hess = central_differences(gradient, (X,), 0, eps=1e-4)  # (input, input)
    if name == "jacobian_of_jacobian":
        return np.moveaxis(central_differences(
            lambda x: np.moveaxis(central_differences(plain_f, (x,), 0, eps=1e-4), 0, -1),
            (X,), 0, eps=1e-4), 0, -1)
    if name in ("hvp", "jvp_grad"):
        return hess @ np.array([1.0, 0.5])
    return hess


@pytest.mark.parametrize("kind", ["model", "layer"])
def test_one_call_of_any_maker_runs_the_state_changes_once(kind):
    """``model.calls += 1`` (an argument's attribute) and ``self.n += 1`` (a layer's
    method ``f`` calls) read 1 after one call of each maker's function, as after one call
    of ``f``; its results are the central differences'."""
    f, g = FUNCS[kind]
    plain = _new(kind)
    f(plain, X)
    assert _count(plain) == 1
    wrong = []
    for name, run in _makers().items():
        obj = _new(kind)
        got = run(f, g, obj)
        if _count(obj) != 1 or (kind == "model" and obj.log != [1.0]):
            wrong.append((name, _count(obj)))
        rtol = 1e-4 if name in ("hessian", "hvp", "jvp_grad", "jacobian_of_jacobian") \
            else 1e-6
        np.testing.assert_allclose(np.asarray(got, dtype=float), _oracle(name, f, g, kind),
                                   rtol=rtol, atol=1e-6, err_msg=name)
    assert wrong == []


def test_on_dask_a_pullback_and_a_pushforward_change_no_state():
    da = pytest.importorskip("dask.array")
    model = Model()
    lazy = da.from_array(X, chunks=1)   # target="dask" asks for a Dask argument
    value, pullback = s2sad.vjp(counted, wrt=1, target="dask")(model, lazy)
    pullback(np.array([1.0, 0.5]))
    value, push = s2sad.jvp(counted, wrt=1, target="dask")(model, lazy)
    got = push(np.array([1.0, 0.5]))
    assert model.calls == 2 and model.log == [1.0, 1.0]
    jac = np.moveaxis(central_differences(lambda x: counted(Model(), x), (X,), 0), 0, -1)
    np.testing.assert_allclose(np.asarray(got, dtype=float), jac @ np.array([1.0, 0.5]),
                               rtol=1e-6)


def step(model, h):
    model.calls += 1
    return np.tanh(model.w * h)


step_ = s2sad.checkpoint(step)


def through_checkpoint(model, x):
    h = step_(model, x)
    return np.sum(h * h * x)


def outer(model, h):
    return step_(model, h) * np.cos(h)


outer_ = s2sad.checkpoint(outer)


def through_nested_checkpoints(model, x):
    return np.sum(outer_(model, x) * x)


@pytest.mark.parametrize("f", [through_checkpoint, through_nested_checkpoints],
                         ids=["checkpoint", "nested"])
def test_a_checkpoints_recomputation_runs_no_state_change_again(f):
    """The forward sweep runs the checkpointed call, its ``model.calls += 1`` with it; its
    derivative recomputes it (and, nested, the recomputation calls the inner one again)."""
    expected = central_differences(lambda x: f(Model(), x), (X,), 0)
    model = Model()
    np.testing.assert_allclose(s2sad.grad(f, wrt=1)(model, X), expected, rtol=1e-6)
    assert model.calls == 1
    model = Model()
    value, push = s2sad.jvp(f, wrt=1)(model, X)
    np.testing.assert_allclose(push(np.array([1.0, 0.5])), expected @ [1.0, 0.5], rtol=1e-6)
    assert model.calls == 1


class Counter:
    def __init__(self):
        self.k = 1.0


def reads_then_counts(c, h):
    y = h * c.k
    c.k += 1.0
    return y


reads_then_counts_ = s2sad.checkpoint(reads_then_counts)


def through_reading_checkpoint(c, x):
    return reads_then_counts_(c, x) * 3.0


def around_reading(c, h):
    return reads_then_counts_(c, np.sin(h)) * 2.0


around_reading_ = s2sad.checkpoint(around_reading)


def through_nested_reading_checkpoint(c, x):
    return around_reading_(c, x) * 3.0


@pytest.mark.parametrize("f", [through_reading_checkpoint, through_nested_reading_checkpoint],
                         ids=["checkpoint", "nested"])
@pytest.mark.parametrize("maker", ["grad", "jvp"])
def test_a_checkpointed_function_reading_the_state_it_changes_is_refused(maker, f):
    """Its recomputation would read ``c.k`` as its first run left it (2, not 1): a
    gradient of 6 for 3, silently (nested: the outer one's recomputation calls it
    again)."""
    with pytest.raises(DifferentiationError, match="reads an attribute it changes") as info:
        if maker == "grad":
            s2sad.grad(f, wrt=1)(Counter(), 2.0)
        else:
            s2sad.jvp(f, wrt=1)(Counter(), 2.0)[1](1.0)
    assert "c.k += 1.0" in str(info.value) and "s2sad.checkpoint" in str(info.value)


def levels(model, x, n):
    model.calls += 1
    if n == 0:
        return x * model.w
    return levels(model, x, n - 1) * 2.0


def recursive_total(model, x):
    return np.sum(levels(model, x, 2))


@pytest.mark.parametrize("maker", ["grad", "vjp", "jvp"])
def test_a_recursive_function_changing_an_objects_state_is_refused(maker):
    """Its derivative runs the levels below each recursive call again in plain Python:
    ``model.calls`` read 6 after one gradient (3 after one call)."""
    made = {"grad": s2sad.grad, "vjp": s2sad.vjp, "jvp": s2sad.jvp}[maker]
    with pytest.raises(DifferentiationError, match="recursive function") as info:
        made(recursive_total, wrt=1)(Model(), X)
    assert "model.calls += 1" in str(info.value)


# --- the memory budget counts every tape ------------------------------------------------------

PASSES = 10_000  # (each loop's tape: about 240 kB of floats; checks every 4096 passes)
BUDGET = 400_000


def two_loops(x):
    i = 0
    while i < PASSES:
        x = x * 0.99999 + math.sin(x) * 1e-6
        i += 1
    j = 0
    while j < PASSES:
        x = x * 1.00001 + math.cos(x) * 1e-6
        j += 1
    return x


def for_then_while(x):
    for _ in range(PASSES):
        x = x * 0.99999 + math.sin(x) * 1e-6
    j = 0
    while j < PASSES:
        x = x * 1.00001 + math.cos(x) * 1e-6
        j += 1
    return x


def branch_then_while(x):
    if x > 0.0:
        i = 0
        while i < PASSES:
            x = x * 0.99999 + math.sin(x) * 1e-6
            i += 1
    j = 0
    while j < PASSES:
        x = x * 1.00001 + math.cos(x) * 1e-6
        j += 1
    return x


@pytest.mark.parametrize("f", [two_loops, for_then_while, branch_then_while],
                         ids=["two_whiles", "for_then_while", "while_in_a_branch"])
def test_the_memory_budget_counts_the_tapes_of_every_loop(f):
    """Each loop records about 240 kB, under a budget of 400 kB; together about 480 kB."""
    s2sad.set_memory_budget(BUDGET)
    try:
        with pytest.raises(s2sad.MemoryBudgetError, match="memory budget"):
            s2sad.grad(f)(0.5)
        with pytest.raises(s2sad.MemoryBudgetError, match="memory budget"):
            s2sad.value_and_grad(f)(0.5)
    finally:
        s2sad.set_memory_budget(DEFAULT_BUDGET)
    # each loop alone is within the budget; the gradient is the derivative
    g = s2sad.grad(f)(0.5)
    np.testing.assert_allclose(g, central_differences(f, (0.5,), 0).ravel()[0], rtol=1e-6)
    if f is branch_then_while:  # (the branch not taken: the second loop alone)
        np.testing.assert_allclose(s2sad.grad(f)(-0.5),
                                   central_differences(f, (-0.5,), 0).ravel()[0], rtol=1e-6)
