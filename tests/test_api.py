"""The public API's promises: structure, caching, hygiene, tracebacks, keyword calls."""

import copy
import inspect
import linecache
import traceback

import numpy as np
import pytest

import s2sad

SCALE = np.array([1.0, 2.0, 3.0])


def uses_global(x):
    return np.sum(SCALE * x)


def test_module_globals_are_read_live():
    global SCALE
    dg = s2sad.grad(uses_global)
    np.testing.assert_allclose(dg(np.ones(3)), [1.0, 2.0, 3.0])
    old = SCALE
    try:
        SCALE = np.array([5.0, 6.0, 7.0])
        np.testing.assert_allclose(dg(np.ones(3)), [5.0, 6.0, 7.0])
    finally:
        SCALE = old
    assert "s2sad" not in "".join(k for k in globals() if k.startswith("__s2sad"))


RATE = 0.5


def shares_a_number(x):
    y = x * RATE
    z = y
    z += 1.0  # on numbers `+=` makes a new value: y keeps its own
    return z * y


def scales_by_rate(x):
    return np.sum(np.sin(x * RATE))


def test_module_global_numbers_are_numbers_until_they_change():
    """A module global that is a Python number is compiled as one (`z += 1.0` on a copy
    of a float is fine); if it becomes an array, the gradient is compiled again for it."""
    global RATE
    dg = s2sad.grad(shares_a_number)
    y = 0.3 * RATE
    assert dg(0.3) == pytest.approx((2 * y + 1.0) * RATE)
    ds = s2sad.grad(scales_by_rate)
    x = np.array([0.2, -0.4])
    np.testing.assert_allclose(ds(x), RATE * np.cos(x * RATE))
    old = RATE
    try:
        RATE = np.array([0.5, 2.0])  # `z += 1.0` would now change y as well: refused
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="on a value shared with 'y'"):
            dg(0.3)
        np.testing.assert_allclose(ds(x), RATE * np.cos(x * RATE))  # compiled again
        RATE = 2
        np.testing.assert_allclose(ds(x), 2 * np.cos(x * 2))
    finally:
        RATE = old


def test_closures_are_read_from_their_cells():
    w = 2.0

    def f(x):
        return x * w * x

    df = s2sad.grad(f)
    assert df(3.0) == 12.0
    w = 3.0  # noqa: F841  (the cell changes; the gradient follows)
    assert df(3.0) == 18.0


def test_user_names_like_generated_ones_do_not_clash():
    def f(x, s_x, t_1, np_):
        t_2 = x * s_x
        s_1 = t_2 * t_1
        return np.sin(s_1) + np_

    df = s2sad.grad(f, wrt=(0, 1))
    x, s_x, t_1 = 0.3, 0.7, 1.1
    gx, gs = df(x, s_x, t_1, 2.0)
    assert gx == pytest.approx(np.cos(x * s_x * t_1) * s_x * t_1)
    assert gs == pytest.approx(np.cos(x * s_x * t_1) * x * t_1)


def test_nothing_passed_in_is_mutated():
    def f(x, w):
        y = x * w
        z = y + x
        return np.sum(z * z)

    x = np.arange(6.0).reshape(2, 3)
    w = np.linspace(0.5, 1.5, 3)
    before = copy.deepcopy((x, w))
    gx, gw = s2sad.grad(f, wrt=(0, 1))(x, w)
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(w, before[1])
    assert gx.shape == x.shape and gw.shape == w.shape


def test_gradient_does_not_alias_an_input():
    def f(x, w):
        return np.dot(x, w)

    x, w = np.ones(3), np.array([1.0, 2.0, 3.0])
    gx = s2sad.grad(f)(x, w)
    gx[0] = 100.0
    assert w[0] == 1.0


def test_structure_of_gradients():
    def f(p):
        a, b = p
        return a * b

    assert s2sad.grad(f)([2.0, 3.0]) == [3.0, 2.0]
    assert s2sad.grad(f)((2.0, 3.0)) == (3.0, 2.0)
    g32 = s2sad.grad(f)(np.array([2.0, 3.0], np.float32))
    assert g32.dtype == np.float32
    assert isinstance(s2sad.grad(lambda_free)(2.0), float)


def lambda_free(x):
    return x * x


def test_keyword_calls_and_defaults():
    def f(x, W, scale=2.0):
        return np.sum(scale * (W @ x))

    df = s2sad.grad(f, wrt="W")
    x, W = np.ones(2), np.eye(2)
    np.testing.assert_allclose(df(x=x, W=W), 2.0 * np.ones((2, 2)))
    np.testing.assert_allclose(df(x, W, scale=1.0), np.ones((2, 2)))


def test_cache_per_function_and_options():
    assert s2sad.grad(lambda_free) is s2sad.grad(lambda_free)
    assert s2sad.grad(lambda_free) is not s2sad.grad(lambda_free, optimize=False)


def test_decorator_form():
    @s2sad.grad
    def cube(x):
        return x * x * x

    assert cube(1.0) == 3.0


def test_generated_source_is_in_tracebacks_and_getsource():
    def f(x):
        return np.sum(np.log(x))

    df = s2sad.grad(f)
    df(np.ones(2))
    fn = df._last.function
    assert "def grad_f(x):" in inspect.getsource(fn)
    assert linecache.getlines(fn.__code__.co_filename)
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError) as info:
            df(np.zeros(2))
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any("s_x" in (frame.line or "") or "np.log" in (frame.line or "") for frame in frames)


def test_stop_gradient():
    def f(x):
        u = s2sad.stop_gradient(x ** 3)
        return 2.0 * u * x

    assert s2sad.grad(f)(2.0) == 2.0 * 2.0 ** 3


def test_stages_show_every_pass():
    names = [name for name, _ in s2sad.grad(lambda_free).stages(1.0)]
    assert names == ["source", "curried", "view_helpers", "display_loops", "held_items",
                     "view_writes", "object_lists", "deep_copies", "try_blocks", "strict_zip", "generators", "exits",
                     "prepare_generated",
                     "piecewise",
                     "desugar", "normalize",
                     "dict_views", "refuse_updates", "real_powers", "reverse",
                     "refuse_unknown_calls", "simplify", "shape_only", "split_dicts",
                     "first_assignment", "dead_code", "recompute",
                     "copy_propagation", "forward_substitution", "unit_seed", "scale_inward",
                     "spread_by_products", "reciprocals", "signs",
                     "subtract", "gradient_form", "python_floats",
                     "loop_tape", "loop_sums", "while_tape", "memory_budget", "early_sums",
                     "combined_terms", "sum_products",
                     "complex_sums", "plain_numpy", "uniform_items", "dead_pops", "list_pops",
                     "broadcast_checks", "readable"]


# --- methods ---------------------------------------------------------------------------------

class _Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, w, x):
        return np.sum(np.tanh(x @ w) * self.scale)

    def __call__(self, w):
        return np.sum(w ** 3) * self.scale


def test_a_bound_method_and_a_callable_object():
    """``s2sad.grad(model.loss)``: the method's function, ``self`` first and constant."""
    model, w, x = _Model(2.0), np.array([0.3, -0.2]), np.array([[1.0, 2.0], [0.5, -1.0]])
    expected = x.T @ ((1.0 - np.tanh(x @ w) ** 2) * 2.0)
    np.testing.assert_allclose(s2sad.grad(model.loss)(w, x), expected)
    np.testing.assert_allclose(s2sad.grad(model.loss, wrt="w")(w, x), expected)
    np.testing.assert_allclose(s2sad.grad(_Model.loss, wrt=1)(model, w, x), expected)
    value, gradient = s2sad.value_and_grad(model.loss)(w, x)
    assert value == pytest.approx(model.loss(w, x))
    np.testing.assert_allclose(s2sad.hessian(model.loss)(w, x) @ np.ones(2),
                               s2sad.hvp(model.loss)(w, x, np.ones(2)))
    np.testing.assert_allclose(s2sad.grad(model)(w), 6.0 * w ** 2)
    np.testing.assert_allclose(s2sad.grad(s2sad.grad(_Model(1.0)))(1.5), 9.0)
    assert "def grad_loss(self, w, x):" in s2sad.grad(model.loss).source_for(w, x)
    other = _Model(3.0)  # the object is the bound one's, each call
    np.testing.assert_allclose(s2sad.grad(other.loss)(w, x), expected * 1.5)
