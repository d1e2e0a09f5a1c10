"""vjp, jacobian, has_aux: vector and tuple outputs of one compiled adjoint."""

import numpy as np
import pytest

import s2sad
from examples import several_outputs as E
from tests import cases_control as C

rng = np.random.default_rng(3)
EPS = 1e-6


def vector_out(x, w):
    h = np.tanh(w @ x)
    return h * np.sum(x)


def loop_out(x):
    ys = []
    y = x
    for i in range(3):
        y = np.sin(y) * 1.5
        ys.append(y)
    return np.stack(ys)


def test_vjp_matches_finite_differences_for_a_vector_output():
    x, w = rng.normal(size=3), rng.normal(size=(4, 3))
    u = rng.normal(size=4)
    value, pullback = s2sad.vjp(vector_out)(x, w)
    np.testing.assert_allclose(value, vector_out(x, w))
    J = np.array([(vector_out(x + EPS * e, w) - vector_out(x - EPS * e, w)) / (2 * EPS)
                  for e in np.eye(3)]).T
    np.testing.assert_allclose(pullback(u), u @ J, rtol=1e-6, atol=1e-8)


def test_vjp_with_respect_to_several_arguments_returns_a_tuple():
    x, w = rng.normal(size=3), rng.normal(size=(4, 3))
    _, pullback = s2sad.vjp(vector_out, wrt=(0, "w"))(x, w)
    gx, gw = pullback(np.ones(4))
    assert gx.shape == (3,) and gw.shape == (4, 3)
    np.testing.assert_allclose(gw, s2sad.grad(lambda_free_sum, wrt=1)(x, w))


def lambda_free_sum(x, w):
    return np.sum(vector_out(x, w))


def test_vjp_through_a_loop_with_appends():
    x = rng.normal(size=2)
    u = rng.normal(size=(3, 2))
    _, pullback = s2sad.vjp(loop_out)(x)
    J = np.array([(loop_out(x + EPS * e) - loop_out(x - EPS * e)) / (2 * EPS)
                  for e in np.eye(2)])  # (input, 3, 2)
    np.testing.assert_allclose(pullback(u), np.tensordot(J, u, 2), rtol=1e-6, atol=1e-8)


def test_pullback_can_be_called_many_times_and_leaves_the_cotangent_alone():
    x = rng.normal(size=2)
    _, pullback = s2sad.vjp(loop_out)(x)
    u = np.ones((3, 2))
    first = pullback(u)
    np.testing.assert_array_equal(u, np.ones((3, 2)))
    np.testing.assert_allclose(pullback(u), first)


def test_vjp_of_a_scalar_function_is_the_gradient_scaled():
    _, pullback = s2sad.vjp(C.scalar_while)(1.3)
    assert pullback(2.0) == pytest.approx(2.0 * s2sad.grad(C.scalar_while)(1.3))


def test_vjp_source_takes_the_seed_as_an_argument():
    text = s2sad.vjp(E.square_twice).source_for(3.0)
    assert text.startswith("def vjp_square_twice(x, seed):")
    assert "s_ret = seed" in text


def test_persistent_tape_the_s2sad_way():
    (z, y), pullback = s2sad.vjp(E.square_twice)(3.0)
    assert (z, y) == (81.0, 9.0)
    assert pullback((1.0, 0.0)) == 108.0  # dz/dx
    assert pullback((0.0, 1.0)) == 6.0    # dy/dx
    np.testing.assert_allclose(s2sad.jacobian(E.square_twice)(3.0), [108.0, 6.0])


def test_several_outputs_example_runs(capsys):
    E.main()
    out = capsys.readouterr().out
    assert "dz/dx = 108.0, dy/dx = 6.0" in out


# --- has_aux -----------------------------------------------------------------------------------


def test_has_aux_returns_the_aux_untouched():
    w, x, target = rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5)
    gradient, prediction = s2sad.grad(E.loss_and_prediction, has_aux=True)(w, x, target)
    np.testing.assert_allclose(prediction, np.tanh(x @ w))
    expected = s2sad.grad(loss_only)(w, x, target)
    np.testing.assert_allclose(gradient, expected)
    (value, aux), again = s2sad.value_and_grad(E.loss_and_prediction, has_aux=True)(
        w, x, target)
    assert value == pytest.approx(loss_only(w, x, target))
    np.testing.assert_allclose(aux, prediction)
    np.testing.assert_allclose(again, gradient)


def loss_only(w, x, target):
    return E.loss_and_prediction(w, x, target)[0]


def aux_from_a_loop(x):
    hs = []
    h = x
    for i in range(3):
        h = np.tanh(h * 1.2)
        hs.append(h)
    total = np.sum(hs[-1] ** 2)
    return total, hs


def test_has_aux_with_a_list_the_reverse_sweep_empties():
    x = rng.normal(size=2)
    gradient, hs = s2sad.grad(aux_from_a_loop, has_aux=True)(x)
    assert len(hs) == 3
    expected = []
    h = x
    for _ in range(3):
        h = np.tanh(h * 1.2)
        expected.append(h)
    np.testing.assert_allclose(np.array(hs), np.array(expected))
    np.testing.assert_allclose(gradient, s2sad.grad(lambda_loop_total)(x))


def lambda_loop_total(x):
    return aux_from_a_loop(x)[0]


def not_a_pair(x):
    return x, x, x


def test_has_aux_needs_a_pair():
    with pytest.raises(s2sad.DifferentiationError, match="pair"):
        s2sad.grad(not_a_pair, has_aux=True)(1.0)


def only_a_loss(w, x):
    return np.sum((x @ w) ** 2)


def test_has_aux_of_a_function_returning_the_loss_alone_is_said_at_the_return():
    """(It was a TypeError from the generated code's `loss, aux = ret`.)"""
    with pytest.raises(s2sad.DifferentiationError, match="a number or an array") as info:
        s2sad.grad(only_a_loss, has_aux=True)(np.ones(2), np.ones((3, 2)))
    assert info.value.lineno == only_a_loss.__code__.co_firstlineno + 1


def test_hvp_without_the_direction_says_so():
    with pytest.raises(TypeError, match=r"hvp_only_a_loss\(\): give the direction v last, "
                                        r"after the 2 arguments of only_a_loss"):
        s2sad.hvp(only_a_loss)(np.ones(2), np.ones((3, 2)))
    np.testing.assert_allclose(s2sad.hvp(only_a_loss)(np.ones(2), np.ones((3, 2)), np.ones(2)),
                               2.0 * np.ones((2, 3)) @ np.ones((3, 2)) @ np.ones(2))


# --- jacobian ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_jacobian_shapes(mode):
    x, w = rng.normal(size=3), rng.normal(size=(4, 3))
    Jx, Jw = s2sad.jacobian(vector_out, wrt=(0, 1), mode=mode)(x, w)
    assert Jx.shape == (4, 3) and Jw.shape == (4, 4, 3)
    Jx2 = s2sad.jacobian(vector_out, mode="fwd" if mode == "rev" else "rev")(x, w)
    np.testing.assert_allclose(Jx, Jx2, rtol=1e-10, atol=1e-12)


def test_jacobian_of_a_scalar_function_is_the_gradient():
    x = rng.normal(size=3)
    np.testing.assert_allclose(s2sad.jacobian(C.sum_loop)(x), s2sad.grad(C.sum_loop)(x))


def test_jacobian_mode_is_checked():
    with pytest.raises(ValueError, match="mode"):
        s2sad.jacobian(C.sum_loop, mode="sideways")


def test_a_function_returning_its_argument_has_the_identity_for_its_jacobian():
    """``return x``: the seed is x's sensitivity, once (it was added to itself: 2 I)."""
    def ident(x):
        return x

    def second(x, y):
        z = x * y  # noqa: F841  (a value the output does not read)
        return y

    for optimize in (True, False):
        _, pullback = s2sad.vjp(ident, optimize=optimize)(0.5)
        assert pullback(1.0) == 1.0
        np.testing.assert_array_equal(s2sad.jacobian(ident, optimize=optimize)(np.ones(2)),
                                      np.eye(2))
        _, pullback = s2sad.vjp(second, wrt=(0, 1), optimize=optimize)(0.1, np.ones(2))
        got = pullback(np.array([1.0, 10.0]))
        assert got[0] == 0.0
        np.testing.assert_array_equal(got[1], [1.0, 10.0])


def test_jacobian_and_hessian_of_float32_stay_float32():
    def cubes(x):
        return np.sum(x ** 3)
    x = np.ones(2, dtype=np.float32)
    assert s2sad.hessian(cubes)(x).dtype == np.float32
    assert s2sad.jacobian(cubes)(x).dtype == np.float32
    assert s2sad.hessian(cubes)(np.ones(2)).dtype == np.float64
