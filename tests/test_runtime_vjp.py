"""The vjp s2sad's runtime calls for itself (an ODE's right-hand side in the adjoint of
``solve_ivp``/``odeint``, through ``hooks.make_value_vjp``): its generated code returns the
sensitivities as computed, without the copies that give a user's vjp results of their own
(``Options.runtime``); the runtime checks their shapes. Gradients through it against
central differences, where a sensitivity comes as a number, a broadcast bias, a float32
parameter, the seed itself."""

import numpy as np
import pytest

integrate = pytest.importorskip("scipy.integrate")

import s2sad  # noqa: E402
from s2sad import hooks  # noqa: E402
from test_higher_order import central_differences  # noqa: E402

solve_ivp, odeint = integrate.solve_ivp, integrate.odeint
TIGHT = 1e-11
Y0 = np.array([0.4, -0.3])
T_EVAL = np.array([0.5, 1.0])


def mlp(t, y, w, b, v, c):
    return np.tanh(y @ w + b) @ v + c


def unused(t, y, k, spare):
    """``spare`` is not read: its sensitivity is a zero the compiler writes as 0.0."""
    return -k * y


def seed_itself(t, y, k):
    """``k``'s sensitivity is the seed itself, the array the runtime passed."""
    return k - y


def float_rate(y, t, k):
    return -k * y + np.sin(t)


ARGS = (np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]]), np.array([0.05]),
        np.array([[0.2, -0.1], [0.3, 0.2], [-0.4, 0.1]]), np.array([0.1, -0.2]))


def loss_of(rhs):
    def loss(*args):
        sol = solve_ivp(rhs, (0.0, 1.0), Y0, t_eval=T_EVAL, args=args, rtol=TIGHT,
                        atol=TIGHT)
        return np.sum(sol.y ** 2)
    return loss


def mlp_loss(w, b, v, c):
    sol = solve_ivp(mlp, (0.0, 1.0), Y0, t_eval=T_EVAL, args=(w, b, v, c), rtol=TIGHT,
                    atol=TIGHT)
    return np.sum(sol.y ** 2)


def unused_loss(k, spare):
    sol = solve_ivp(unused, (0.0, 1.0), Y0, t_eval=T_EVAL, args=(k, spare), rtol=TIGHT,
                    atol=TIGHT)
    return np.sum(sol.y ** 2)


def seed_loss(k):
    sol = solve_ivp(seed_itself, (0.0, 1.0), Y0, t_eval=T_EVAL, args=(k,), rtol=TIGHT,
                    atol=TIGHT)
    return np.sum(sol.y ** 2)


def float_loss(y0, k):
    ys = odeint(float_rate, y0, np.array([0.0, 0.5, 1.0]), args=(k,), rtol=TIGHT, atol=TIGHT)
    return np.sum(ys ** 2)


CASES = [
    (mlp_loss, ARGS, (0, 1, 2, 3)),  # b: shape (1,), broadcast over the hidden layer
    (unused_loss, (np.array([0.5, 1.5]), np.array([1.0, 2.0, 3.0])), (0, 1)),
    (seed_loss, (np.array([0.3, -0.7]),), (0,)),
    (float_loss, (Y0, 0.8), (0, 1)),
]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_through_the_runtime_vjp(f, args, wrt):
    grads = s2sad.grad(f, wrt=wrt)(*args)
    for i, g in zip(wrt, grads):
        expected = central_differences(f, args, i, eps=1e-6)
        assert np.shape(g) == np.shape(args[i])
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-7)


def test_float32_parameter_keeps_its_dtype():
    k = np.array([0.5, 1.5], dtype=np.float32)
    spare = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    g_k, g_spare = s2sad.grad(unused_loss, wrt=(0, 1))(k, spare)
    assert g_k.dtype == np.float32 and g_spare.dtype == np.float32
    np.testing.assert_array_equal(g_spare, 0.0)
    expected = central_differences(unused_loss, (k.astype(float), spare), 0, eps=1e-6)
    np.testing.assert_allclose(g_k, expected, rtol=1e-4)


def _sources():
    args = (0.3, Y0) + ARGS
    runtime = hooks.make_value_vjp(mlp, wrt=(1, 2, 3, 4, 5))
    hooks.call_generated(runtime, args, Y0.copy())
    user = s2sad.vjp(mlp, wrt=(1, 2, 3, 4, 5))
    return runtime.source_for(*args), user.source_for(*args)


def test_runtime_vjp_returns_the_sensitivities_uncopied():
    runtime, user = _sources()
    assert "as_gradient" not in runtime and "fresh_gradient" not in runtime
    assert runtime.rstrip().endswith("return (ret, (s_y, s_w, s_b, s_v, s_c))")
    # a user's vjp keeps them: its results are the user's, in the arguments' form
    assert "as_gradient(b, s_b)" in user and "fresh_gradient(w, s_w)" in user


def test_runtime_vjp_is_a_variant_of_its_own():
    runtime = hooks.make_value_vjp(mlp, wrt=(1, 2, 3, 4, 5))
    assert runtime is hooks.make_value_vjp(mlp, wrt=(1, 2, 3, 4, 5))
    assert runtime is not s2sad.vjp(mlp, wrt=(1, 2, 3, 4, 5))


def test_runtime_sensitivities_of_the_wrong_shape_are_put_in_form():
    """A zero sensitivity (0.0) of an array argument reaches the adjoint as zeros of its
    size, not as one number that would shift the parameters' sensitivities."""
    from s2sad.runtime.ode import _Field
    k, spare = np.array([0.5, 1.5]), np.array([1.0, 2.0, 3.0])
    field = _Field(unused, Y0, (k, spare), True)
    a = np.array([1.0, -2.0])
    out = field.pull(Y0.copy(), 0.1, a)
    # (f, -a^T df/dy, -a^T df/dk, -a^T df/dspare) for f = -k * y
    np.testing.assert_allclose(out, np.concatenate([-k * Y0, a * k, a * Y0, np.zeros(3)]))
    np.testing.assert_array_equal(a, [1.0, -2.0])  # (the adjoint's state is not written)
