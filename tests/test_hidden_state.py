"""Hidden state a function reads: NumPy's global random state and the ``random`` module's
(``np.random.normal()``, ``random.random()``), and an object's counter read again.

A draw changes state no argument holds, so each run of the function draws anew (the
``hidden_state`` fact of these functions' rule entries). ``grad``, ``value_and_grad`` and
``hvp`` run the function once per call, as Python does: the derivative of that one call.
``vjp``, ``jvp``, ``jacobian`` and ``hessian`` run it more than once, each run another
function (a Hessian's columns from different draws): refused at the draw's line.

The refusal is kept per variant (the function compiled for its arguments' kinds): a loss
whose model reads its own counter is refused, the same loss of a stateless model is not.
Each case here gave a wrong number, or a wrong refusal, before."""

import random

import numpy as np
import pytest

import s2sad
from s2sad.errors import DifferentiationError
from s2sad.registry import facts
from test_higher_order import central_differences

X0 = np.array([0.3, 0.9, -0.2])
V0 = np.array([0.5, -1.0, 2.0])


def draws_a_normal(x):
    return np.sum(x ** 3) * (1.0 + np.random.normal())


def draws_rand(x):
    return np.sum(x ** 3 * np.random.rand(3))


def draws_randn_like(x):
    return np.sum(x ** 3 * np.random.randn(*x.shape))


def draws_a_choice(x):
    return np.sum(x ** 3) * np.random.choice([1.0, 2.0, 3.0])


def draws_from_the_random_module(x):
    return np.sum(x ** 3) * (1.0 + random.random())


def _helper_that_draws(x):
    return x ** 3 * np.random.uniform(0.5, 1.5, size=x.shape)


def draws_in_a_helper(x):
    return np.sum(_helper_that_draws(x))


def draws_in_a_branch_test(x):
    if np.random.rand() < 0.5:
        return np.sum(x ** 3)
    return np.sum(x ** 3) * 2.0


DRAWS = [
    (draws_a_normal, "np.random.normal()", "NumPy's global"),
    (draws_rand, "np.random.rand(3)", "NumPy's global"),
    (draws_randn_like, "np.random.randn(*x.shape)", "NumPy's global"),
    (draws_a_choice, "np.random.choice([1.0, 2.0, 3.0])", "NumPy's global"),
    (draws_from_the_random_module, "random.random()", "the random module's"),
    (draws_in_a_helper, "np.random.uniform(0.5, 1.5, size=x.shape)", "NumPy's global"),
    (draws_in_a_branch_test, "np.random.rand() < 0.5", "NumPy's global"),
]
IDS = [f.__name__ for f, _, _ in DRAWS]


def _seed():
    np.random.seed(7)
    random.seed(7)


def _run(maker, f, x):
    if maker == "vjp":
        return s2sad.vjp(f)(x)[1](1.0)
    if maker == "jvp":
        return s2sad.jvp(f)(x)[1](np.ones_like(x))
    if maker == "jacobian_of_grad":
        return s2sad.jacobian(s2sad.grad(f))(x)
    return getattr(s2sad, maker)(f)(x)


@pytest.mark.parametrize("maker", ["vjp", "jvp", "jacobian", "hessian", "jacobian_of_grad"])
@pytest.mark.parametrize("f, line, whose", DRAWS, ids=IDS)
def test_makers_that_run_it_again_refuse_at_the_draw(f, line, whose, maker):
    _seed()
    with pytest.raises(DifferentiationError, match=f"draws from {whose} random state") as info:
        _run(maker, f, X0)
    message = str(info.value)
    assert line in message  # (the user's line, not the generated gradient's)
    assert "test_hidden_state.py" in message and "<s2sad" not in message
    assert "anew at each run" in message and "runs it once for the value and again" in message
    assert "Draw the noise outside the function and pass it as an argument" in message
    assert "s2sad.hvp" in message


@pytest.mark.parametrize("f, line, whose", DRAWS, ids=IDS)
def test_grad_is_the_derivative_of_one_plain_call(f, line, whose):
    """grad draws once per call, as the plain call does, from the state it finds."""
    def one_call(x):  # the function one plain call from the seeded state runs
        _seed()
        return f(x)
    expected = central_differences(one_call, [X0], 0)
    _seed()
    np.testing.assert_allclose(s2sad.grad(f)(X0), expected, rtol=1e-6, atol=1e-8)
    _seed()
    value, g = s2sad.value_and_grad(f)(X0)
    assert value == pytest.approx(one_call(X0), rel=1e-12)
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8)


def test_hvp_runs_it_once_per_call():
    """hvp's one run draws one c: the Hessian of sum(x**3) * (1 + c) times v."""
    np.random.seed(7)
    c = np.random.normal()
    np.random.seed(7)
    got = s2sad.hvp(draws_a_normal)(X0, V0)
    np.testing.assert_allclose(got, 6 * X0 * V0 * (1.0 + c), rtol=1e-12)


def with_the_noise_passed(x, noise):
    return np.sum(x ** 3 * noise)


def draws_from_its_own_seeded_generator(x):
    rng = np.random.default_rng(3)
    return np.sum(x ** 3 * rng.normal(size=3))


def test_the_advice_works_and_a_seeded_local_generator_is_one_function():
    _seed()
    with pytest.raises(DifferentiationError, match="Draw the noise outside"):
        s2sad.hessian(draws_randn_like)(X0)
    noise = np.random.randn(*X0.shape)
    np.testing.assert_allclose(s2sad.hessian(with_the_noise_passed)(X0, noise),
                               np.diag(6 * X0 * noise), rtol=1e-12)
    fixed = np.random.default_rng(3).normal(size=3)  # (drawn anew, equal, at each run)
    np.testing.assert_allclose(s2sad.hessian(draws_from_its_own_seeded_generator)(X0),
                               np.diag(6 * X0 * fixed), rtol=1e-12)


def test_the_draws_are_facts_of_their_rule_entries():
    for func in (np.random.normal, np.random.rand, np.random.randn, np.random.choice,
                 np.random.seed, np.random.shuffle, random.random, random.gauss,
                 random.shuffle):
        assert facts(func).hidden_state, func
    assert facts(np.random.shuffle).mutates == (0,)  # (its other facts kept)
    assert facts(np.random.default_rng).hidden_state == "unseeded"  # (seeded: its own)
    assert not facts(np.sin).hidden_state


# --- the refusal belongs to the variant: a model that reads its counter, one that does not ----

class Counting:
    def __init__(self):
        self.k = 0
        self.w = 1.5

    def __call__(self, x):
        self.k += 1
        return x * self.w * self.k


class Plain:
    def __init__(self):
        self.w = 1.5

    def __call__(self, x):
        return x * self.w


def loss(x, m):
    return np.sum(np.sin(m(x)))


def _expected_gradient(make):
    return central_differences(lambda x: loss(x, make()), [X0], 0)


@pytest.mark.parametrize("maker", ["jvp", "vjp", "hessian"])
@pytest.mark.parametrize("stateful_first", [True, False])
def test_a_stateless_model_is_not_refused_for_a_stateful_ones_counter(maker, stateful_first):
    def stateful():
        with pytest.raises(DifferentiationError, match="reads an attribute it changes") as info:
            if maker == "jvp":
                s2sad.jvp(loss)(X0, Counting())
            elif maker == "vjp":
                s2sad.vjp(loss)(X0, Counting())
            else:
                s2sad.hessian(loss)(X0, Counting())
        assert "self.k += 1" in str(info.value)

    if stateful_first:
        stateful()
    g = _expected_gradient(Plain)
    if maker == "jvp":
        value, push = s2sad.jvp(loss)(X0, Plain())
        assert push(V0) == pytest.approx(np.sum(g * V0), rel=1e-6)
    elif maker == "vjp":
        value, pull = s2sad.vjp(loss)(X0, Plain())
        np.testing.assert_allclose(pull(1.0), g, rtol=1e-6, atol=1e-8)
    else:
        np.testing.assert_allclose(s2sad.hessian(loss)(X0, Plain()),
                                   np.diag(-1.5 ** 2 * np.sin(1.5 * X0)), rtol=1e-9)
    stateful()  # (still refused, after the stateless variant was built)


def test_one_made_function_keeps_each_variants_refusal():
    """One jvp object, two variants: the stateful one refused, the stateless one not."""
    made = s2sad.jvp(loss)
    with pytest.raises(DifferentiationError, match="reads an attribute it changes"):
        made(X0, Counting())
    value, push = made(X0, Plain())
    assert value == pytest.approx(loss(X0, Plain()))
    assert push(V0) == pytest.approx(np.sum(np.cos(1.5 * X0) * 1.5 * V0), rel=1e-12)
    with pytest.raises(DifferentiationError, match="reads an attribute it changes"):
        made(X0, Counting())


def seeds_then_draws(x):
    np.random.seed(11)
    return np.sum(x ** 3 * np.random.normal(size=3))


def draws_then_seeds(x):
    noise = np.random.normal(size=3)
    np.random.seed(11)
    return np.sum(x ** 3 * noise)


def seeds_the_other_state(x):
    random.seed(11)
    return np.sum(x ** 3 * np.random.normal(size=3))


def test_a_function_that_seeds_first_draws_the_same_at_each_run():
    """np.random.seed(11) as a statement of the body, before the draws: one function."""
    fixed = np.random.RandomState(11).normal(size=3)
    np.testing.assert_allclose(s2sad.hessian(seeds_then_draws)(X0), np.diag(6 * X0 * fixed),
                               rtol=1e-12)
    value, push = s2sad.jvp(seeds_then_draws)(X0)
    assert push(V0) == pytest.approx(np.sum(3 * X0 ** 2 * fixed * V0), rel=1e-12)
    for f, line in [(draws_then_seeds, "noise = np.random.normal(size=3)"),
                    (seeds_the_other_state, "np.random.normal(size=3)")]:
        with pytest.raises(DifferentiationError, match="draws from NumPy's global") as info:
            s2sad.hessian(f)(X0)
        assert line in str(info.value)
    assert facts(np.random.seed).hidden_state == "seeds"
    assert facts(np.random.normal).hidden_state == "draws"
