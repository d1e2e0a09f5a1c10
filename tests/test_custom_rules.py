"""Custom derivative rules, non-differentiable functions, checkpointing and check_grads."""

import os

import numpy as np
import pytest

import s2sad
from examples import checkpoint as CK
from examples import custom_rule as CR
from s2sad.cli import main as cli_main

rng = np.random.default_rng(2)


# --- custom_vjp / custom_jvp ---------------------------------------------------------------


def test_custom_rule_is_used_and_shown_in_the_source():
    w, x, y = rng.normal(size=3), rng.normal(size=(6, 3)), rng.choice([-1.0, 1.0], size=6)
    text = s2sad.grad(CR.loss).source_for(w, x, y)
    assert "_sigmoid(-t_4)" in text       # the rule's expression, with the call's names
    assert "logaddexp" not in text         # the body of log_sigmoid is not differentiated
    s2sad.check_grads(CR.loss, (w, x, y), order=1, wrt=0)


def test_custom_rule_helpers_are_read_from_their_module_at_each_call(monkeypatch):
    w, x, y = np.ones(2), np.ones((1, 2)), np.ones(1)
    g = s2sad.grad(CR.loss)
    before = g(w, x, y)
    monkeypatch.setattr(CR, "_sigmoid", lambda z: 2.0 * (0.5 * (np.tanh(0.5 * z) + 1.0)))
    np.testing.assert_allclose(g(w, x, y), 2.0 * before)


def test_custom_tangent_rule_in_forward_mode():
    w, x, y = rng.normal(size=3), rng.normal(size=(6, 3)), rng.choice([-1.0, 1.0], size=6)
    v = rng.normal(size=3)
    _, push = s2sad.jvp(CR.loss)(w, x, y)
    assert push(v) == pytest.approx(np.dot(s2sad.grad(CR.loss)(w, x, y), v))
    assert "_sigmoid" in s2sad.jvp(CR.loss).source_for(w, x, y)


def test_custom_rule_works_with_the_cli(capsys):
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "examples", "custom_rule.py")
    assert cli_main(["show", f"{path}:loss", "--at",
                     "([0.1, 0.2], [[1.0, 2.0]], [1.0])"]) == 0
    out = capsys.readouterr().out
    assert "_sigmoid(-t_4)" in out


def test_custom_rule_example_runs(capsys):
    CR.main()
    assert "agrees with finite differences" in capsys.readouterr().out


def cubic(x):
    return x ** 3 + 1.0


def uses_cubic(x):
    return np.sum(cubic(x) * x)


def test_custom_vjp_without_custom_jvp_refuses_forward_mode():
    def cubic_vjp(g, ans, x):
        return 3.0 * g * x ** 2

    s2sad.custom_vjp(cubic)(cubic_vjp)
    try:
        x = np.array([0.5, -1.0])
        np.testing.assert_allclose(s2sad.grad(uses_cubic)(x), 4.0 * x ** 3 + 1.0)
        with pytest.raises(s2sad.NoDerivativeError, match="custom_jvp|deftangent"):
            s2sad.jvp(uses_cubic)(x)
    finally:
        s2sad.registry._RULES.pop(cubic)


def scaled(x, c):
    return c * x ** 2


def uses_scaled(x, c):
    return np.sum(scaled(x, c))


def test_a_tangent_rule_silent_on_an_argument_its_adjoint_differentiates_is_refused():
    """The tangent rule gives x's part only; the adjoint has c's too: forward mode in c is
    refused at the line, not a zero tangent."""
    def scaled_vjp(g, ans, x, c):
        return 2.0 * g * c * x, np.sum(g * x ** 2)

    def scaled_jvp(g, ans, x, c):
        return 2.0 * g * c * x

    s2sad.custom_vjp(scaled)(scaled_vjp)
    s2sad.custom_jvp(scaled)(scaled_jvp)
    try:
        x = np.array([0.5, -1.0])
        _, push = s2sad.jvp(uses_scaled, wrt=0)(x, 1.5)
        assert push(np.ones(2)) == pytest.approx(np.sum(3.0 * x))
        assert s2sad.grad(uses_scaled, wrt=1)(x, 1.5) == pytest.approx(1.25)
        with pytest.raises(s2sad.NoDerivativeError, match="with respect to its argument 'c'"):
            s2sad.jvp(uses_scaled, wrt=1)(x, 1.5)
    finally:
        s2sad.registry._RULES.pop(scaled)


def test_nondifferentiable_decorator_returns_the_function():
    assert CR.quantize(0.33) == pytest.approx(0.3)
    assert s2sad.grad(CR.scaled)(0.33) == pytest.approx(0.3)
    _, push = s2sad.jvp(CR.scaled)(0.33)
    assert push(1.0) == pytest.approx(0.3)


def wrong_rule_function(x):
    return np.sum(np.sin(x))


def uses_wrong(x):
    return wrong_rule_function(x) * 2.0


def test_check_grads_finds_a_wrong_rule():
    s2sad.custom_vjp(wrong_rule_function)(_wrong_vjp)
    try:
        with pytest.raises(s2sad.GradientCheckError, match="reverse mode"):
            s2sad.check_grads(uses_wrong, (np.array([0.3, 0.7]),), order=1, modes="rev")
    finally:
        s2sad.registry._RULES.pop(wrong_rule_function)


def _wrong_vjp(g, ans, x):
    return g * np.sin(x)  # should be cos


# --- check_grads on a table with loops and branches, two orders, both modes -------------------


def loop_and_branch(x, w):
    y = x
    for i in range(3):
        if np.sum(y) > 0:
            y = np.tanh(w * y) + 0.1 * y
        else:
            y = y * w
    return np.sum(y ** 2)


def while_loop(x):
    y = x
    while y < 10.0:
        y = y * 1.7 + np.sin(y)
    return y


@pytest.mark.parametrize("f, args", [
    (loop_and_branch, (np.array([0.3, -0.5, 0.8]), 0.7)),
    (loop_and_branch, (np.array([-0.3, -0.5, 0.1]), 0.7)),
    (while_loop, (1.3,)),
], ids=["loop-branch-pos", "loop-branch-neg", "while"])
def test_check_grads_second_order_both_modes(f, args):
    s2sad.check_grads(f, args, order=2, modes=("rev", "fwd"))


def test_check_grads_third_order_on_a_float():
    s2sad.check_grads(while_loop, (1.3,), order=3)


# --- checkpoint ------------------------------------------------------------------------------


def test_checkpointed_gradient_equals_the_recorded_one_and_uses_less_memory():
    (peak_plain, _), (peak_checkpointed, _) = CK.compare(n=60, segments=20)
    assert peak_checkpointed < 0.5 * peak_plain


def test_checkpoint_shows_in_the_source_and_records_only_arguments():
    text = s2sad.grad(CK.loss_checkpointed, wrt=1).source_for(np.ones(3), np.eye(3),
                                                              np.ones(3), 2)
    assert "checkpoint_grads(segment, s_h, (h, W, u))" in text
    assert "h_saved[_] = h" in text and "append(" not in text  # only h, once per segment


def test_checkpoint_in_forward_mode_and_gradient_of_each_argument():
    h, W, u = rng.normal(size=4), rng.normal(size=(4, 4)) * 0.3, rng.normal(size=4)
    for wrt in (0, 1, 2):
        g1 = s2sad.grad(CK.loss, wrt=wrt)(h, W, u, 3)
        g2 = s2sad.grad(CK.loss_checkpointed, wrt=wrt)(h, W, u, 3)
        np.testing.assert_allclose(g1, g2, rtol=1e-10, atol=1e-12)
        v = rng.normal(size=np.shape((h, W, u)[wrt]))
        _, push = s2sad.jvp(CK.loss_checkpointed, wrt=wrt)(h, W, u, 3)
        assert push(v) == pytest.approx(float(np.sum(g1 * v)))


def test_checkpoint_is_idempotent_and_keeps_the_function():
    assert s2sad.checkpoint(CK.segment_checkpointed) is CK.segment_checkpointed
    x = np.ones(3)
    np.testing.assert_allclose(CK.segment_checkpointed(x, np.eye(3), x),
                               CK.segment(x, np.eye(3), x))


def test_checkpoint_example_runs(capsys):
    (peak1, t1), (peak2, t2) = CK.compare(n=40, segments=4)
    assert peak2 < peak1


# --- a rule that is more than one `return`: called by reference, not inlined -------------------


def clipped_log(x):
    return np.log(np.maximum(x, 1e-3))


@s2sad.custom_vjp(clipped_log, shape="elementwise")
def clipped_log_vjp(g, ans, x):
    if np.ndim(x) == 0:
        return g / x if x > 1e-3 else 0.0
    return np.where(x > 1e-3, g / np.maximum(x, 1e-3), 0.0)


@s2sad.custom_jvp(clipped_log)
def clipped_log_jvp(g, ans, x):
    if np.ndim(x) == 0:
        return g / x if x > 1e-3 else 0.0
    return np.where(x > 1e-3, g / np.maximum(x, 1e-3), 0.0)


def uses_clipped_log(x):
    return np.sum(clipped_log(x) * x)


def test_a_rule_with_statements_is_called_by_reference():
    x = np.array([0.5, 2.0, 1e-4])
    expected = np.log(np.maximum(x, 1e-3)) + np.where(x > 1e-3, 1.0, 0.0)
    np.testing.assert_allclose(s2sad.grad(uses_clipped_log)(x), expected)
    assert "clipped_log_vjp(" in s2sad.grad(uses_clipped_log).source_for(x)
    _, push = s2sad.jvp(uses_clipped_log)(x)
    assert push(np.ones(3)) == pytest.approx(np.sum(expected))
    assert "clipped_log_jvp(" in s2sad.jvp(uses_clipped_log).source_for(x)
