"""Calls of the user's own functions: inlined, so their gradients flow."""

import numpy as np
import pytest

import s2sad
from tests import cases_calls as C
from tests import helpers_other_module
from tests.test_control_flow import numeric_gradient

rng = np.random.default_rng(3)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("f, args, wrt", [
    pytest.param(C.calls_same_module, (0.7,), 0, id="same-module-keywords-defaults"),
    pytest.param(C.calls_other_module, (rng.normal(size=(2, 2)), rng.normal(size=2)), 0,
                 id="other-module-W"),
    pytest.param(C.calls_other_module, (rng.normal(size=(2, 2)), rng.normal(size=2)), 1,
                 id="other-module-x"),
    pytest.param(C.calls_in_loop, (0.6,), 0, id="calls-in-loop"),
    pytest.param(C.nested_def, (0.3, 0.8), 0, id="nested-def-and-lambda-x"),
    pytest.param(C.nested_def, (0.3, 0.8), 1, id="nested-def-and-lambda-w"),
    pytest.param(C.reads_global, (rng.normal(size=2),), 0, id="module-global"),
    pytest.param(C.caller_keeps_its_value, (0.9,), 0, id="callee-reassigns-parameter"),
])
def test_calls(f, args, wrt, optimize):
    got = s2sad.grad(f, wrt=wrt, optimize=optimize)(*args)
    np.testing.assert_allclose(np.asarray(got, dtype=float), numeric_gradient(f, args, wrt),
                               rtol=1e-5, atol=1e-7)


def test_closure_cells_are_read_live():
    loss = C.make_closure(2.0)
    dloss = s2sad.grad(loss)
    assert dloss(0.3) == pytest.approx(2.0 * np.cos(0.3))
    assert "scale" not in C.__dict__ and "scale" not in dloss._last.function.__globals__


def test_globals_of_another_module_are_read_live():
    df = s2sad.grad(C.calls_other_module, wrt=1)
    W, x = np.eye(2), np.array([0.2, -0.1])
    before = df(W, x)
    old = helpers_other_module.GAIN
    try:
        helpers_other_module.GAIN = 5.0
        after = df(W, x)
    finally:
        helpers_other_module.GAIN = old
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, numeric_gradient(
        lambda W_, x_: _with_gain(5.0, C.calls_other_module, W_, x_), (W, x), 1), rtol=1e-5)


def _with_gain(gain, f, *args):
    old = helpers_other_module.GAIN
    helpers_other_module.GAIN = gain
    try:
        return f(*args)
    finally:
        helpers_other_module.GAIN = old


def test_inlined_source_is_readable():
    text = s2sad.grad(C.calls_same_module).source_for(0.7)
    assert "def grad_calls_same_module(x):" in text
    assert "square" not in text.split("def ")[1].split("\n")[1]  # the call was inlined
