"""Calls of the user's own functions: inlined, so their gradients flow."""

import numpy as np
import pytest

import s2sad
from tests import cases_calls as C
from tests import helpers_other_module
from tests.test_control_flow import numeric_gradient

rng = np.random.default_rng(3)
# a nested def's defaults evaluated where it is defined (once read at the call: wrong values)
_DEFAULTS_AT_DEF = [C.default_read_at_def, C.lambda_default_read_at_def,
                    C.keyword_only_default_read_at_def,
                    C.lambda_default_read_in_the_callers_scope,
                    C.helper_with_a_def_with_a_default, C.default_named_like_its_parameter]


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
    pytest.param(C.power, (1.3, 4), 0, id="recursion"),
    pytest.param(C.power, (1.3, 0), 0, id="recursion-base-case"),
    pytest.param(C.calls_recursive, (0.8,), 0, id="calls-a-recursive-function"),
    pytest.param(C.tree_sum, (rng.normal(size=5), 0, 5), 0, id="recursion-two-calls"),
    pytest.param(C.even_steps, (0.7, 5), 0, id="mutual-recursion"),
    pytest.param(C.recursive_on_arrays, (rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5, 3),
                 0, id="recursion-on-arrays-h"),
    pytest.param(C.recursive_on_arrays, (rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5, 3),
                 1, id="recursion-on-arrays-W"),
    pytest.param(C.recursive_in_loop, (0.9,), 0, id="recursion-called-in-a-loop"),
    pytest.param(C.calls_with_an_expression_whose_shape_is_read, (rng.normal(size=(3, 2)),), 0,
                 id="callee-reads-the-shape-of-an-expression"),  # was an internal error
    pytest.param(C.passes_numpy_function, (rng.normal(size=3),), 0, id="passes-np-tanh"),
    pytest.param(C.passes_own_function, (rng.normal(size=3),), 0, id="passes-own-function"),
    pytest.param(C.passes_lambda, (0.7, 1.2), 0, id="passes-lambda-k"),
    pytest.param(C.passes_lambda, (0.7, 1.2), 1, id="passes-lambda-y0"),
    pytest.param(C.passes_local_def, (rng.normal(size=3), 0.8), 0, id="passes-local-def-w"),
    pytest.param(C.passes_local_def, (rng.normal(size=3), 0.8), 1, id="passes-local-def-c"),
    pytest.param(C.passes_by_keyword, (rng.normal(size=3) * 0.3,), 0, id="passes-by-keyword"),
    pytest.param(C.passes_it_on, (rng.normal(size=3),), 0, id="passes-it-on"),
    pytest.param(C.passes_numpy_function_renamed, (0.6,), 0, id="passes-np-sin-renamed"),
    pytest.param(C.passes_own_function_renamed, (0.6,), 0, id="passes-own-function-renamed"),
    # a silent wrong gradient: the helper's `y = y + ...` (its y renamed y_1 in the caller's
    # names) was differentiated as if it read another y
    pytest.param(C.helper_updates_its_parameter_in_a_loop, (0.7, 1.2), 0,
                 id="helper-loop-updates-renamed-parameter-k"),
    pytest.param(C.helper_updates_its_parameter_in_a_loop, (0.7, 1.2), 1,
                 id="helper-loop-updates-renamed-parameter-y0"),
    pytest.param(C.helper_doubles_in_place_a_value_not_read_after, (rng.normal(size=3),), 0,
                 id="helper-in-place-on-a-value-not-read-after"),
    pytest.param(C.helper_doubles_in_place_a_value_read_after, (0.7,), 0,
                 id="helper-in-place-on-a-float-read-after"),  # (a float: a new value)
    pytest.param(C.alias_of_a_numpy_function, (rng.normal(size=3),), 0, id="alias-np-tanh"),
    pytest.param(C.alias_of_a_user_function, (rng.normal(size=3),), 0, id="alias-own-function"),
    pytest.param(C.alias_of_a_nested_def, (rng.normal(size=3),), 0, id="alias-nested-def"),
    *[pytest.param(f, (0.7,), 0, id=f.__name__.replace("_", "-")) for f in _DEFAULTS_AT_DEF],
    pytest.param(C.star_call_into_another_module, (rng.normal(size=3),), 0,
                 id="star-call-into-another-module"),
    pytest.param(C.double_star_into_another_module, (rng.normal(size=3),), 0,
                 id="double-star-into-another-module"),
    pytest.param(C.partial_of_another_modules_function, (rng.normal(size=3),), 0,
                 id="partial-of-another-modules-function"),
    pytest.param(C.map_of_another_modules_function, (rng.normal(size=3),), 0,
                 id="map-of-another-modules-function"),
])
def test_calls(f, args, wrt, optimize):
    got = s2sad.grad(f, wrt=wrt, optimize=optimize)(*args)
    np.testing.assert_allclose(np.asarray(got, dtype=float), numeric_gradient(f, args, wrt),
                               rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("f", _DEFAULTS_AT_DEF, ids=lambda f: f.__name__)
def test_a_nested_defs_defaults_give_the_value_python_does(f):
    assert s2sad.value_and_grad(f)(0.7)[0] == pytest.approx(f(0.7), rel=1e-12)


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


def test_tests_on_an_inlined_helpers_constant_options_are_decided_while_inlining():
    x = rng.normal(size=(3, 4))
    g = s2sad.grad(C.calls_with_constant_options)
    np.testing.assert_allclose(g(x), numeric_gradient(C.calls_with_constant_options, (x,), 0))
    text = g.source_for(x)
    assert " if " not in text and "cond_" not in text, text
    assert "along = -1" in text and "keepdims=True" in text and "keepdims=False" in text


def test_a_gradient_called_inside_is_inlined():
    """MAML: the inner gradient's generated code is inlined, so the outer gradient
    differentiates through the inner steps (a Hessian-vector product each)."""
    w, x, y = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(2, 3))
    cases = [(C.maml, (w, x, y), 0), (C.maml, (w, x, y), 1), (C.calls_a_gradient, (w, x), 0),
             (C.uses_value_and_gradient, (w, x), 0), (C.newton_step, (0.7,), 0)]
    for f, args, i in cases:
        np.testing.assert_allclose(s2sad.grad(f, wrt=i)(*args), numeric_gradient(f, args, i),
                                   rtol=1e-6, atol=1e-8, err_msg=f.__name__)
    text = s2sad.grad(C.maml).source_for(w, x, y)
    assert "_inner_steps_gradient(" not in text and "np.tanh(" in text


def test_a_gradient_called_inside_follows_its_functions_given_again():
    w, x = rng.normal(size=3), rng.normal(size=(4, 3))
    g = s2sad.grad(C.calls_a_gradient)
    g(w, x)
    old = C._inner_gradient
    try:
        C._inner_gradient = s2sad.grad(C._inner_square)
        np.testing.assert_allclose(g(w, x), numeric_gradient(C.calls_a_gradient, (w, x), 0),
                                   rtol=1e-6, atol=1e-8)
    finally:
        C._inner_gradient = old
    np.testing.assert_allclose(g(w, x), numeric_gradient(C.calls_a_gradient, (w, x), 0),
                               rtol=1e-6, atol=1e-8)


def test_a_gradient_called_inside_follows_a_function_its_own_function_reads():
    w, x = rng.normal(size=3), rng.normal(size=(4, 3))
    g = s2sad.grad(C.one_step_with_act)
    g(w, x)
    try:
        C._inner_act = np.sin  # (the inner gradient's own variant is stale too)
        np.testing.assert_allclose(g(w, x), numeric_gradient(C.one_step_with_act, (w, x), 0),
                                   rtol=1e-6, atol=1e-8)
    finally:
        C._inner_act = np.tanh
    np.testing.assert_allclose(g(w, x), numeric_gradient(C.one_step_with_act, (w, x), 0),
                               rtol=1e-6, atol=1e-8)


def test_a_gradient_called_inside_reads_the_modules_globals_live():
    w = rng.normal(size=3)
    g = s2sad.grad(C.step_reads_a_global)
    g(w)
    old = C.MIX
    try:
        C.MIX = rng.normal(size=(2, 3))
        np.testing.assert_allclose(g(w), numeric_gradient(C.step_reads_a_global, (w,), 0),
                                   rtol=1e-6, atol=1e-8)
    finally:
        C.MIX = old


def test_gradients_called_inside_that_build_lists_loop_or_nest():
    w = rng.normal(size=3)
    np.testing.assert_allclose(s2sad.grad(C.step_of_a_list_builder)(w), 8 * w, rtol=1e-12)
    assert s2sad.grad(C.two_levels_of_gradients)(0.4) == pytest.approx(
        numeric_gradient(C.two_levels_of_gradients, (0.4,), 0), rel=1e-6)


def test_a_function_calling_its_own_gradient_is_refused_at_the_call():
    with pytest.raises(s2sad.DifferentiationError, match="calls its own gradient") as info:
        C._own_gradient(np.ones(2))
    assert "_own_gradient(w)" in str(info.value)


def test_objects_reached_through_a_modules_name_are_inlined_and_followed():
    from tests import cases_methods as M
    w = rng.normal(size=3)
    g = s2sad.grad(C.uses_objects_of_another_module)
    np.testing.assert_allclose(g(w), numeric_gradient(C.uses_objects_of_another_module, (w,), 0),
                               rtol=1e-6, atol=1e-8)
    assert ".forward(" not in g.source_for(w)
    old = M.net.second
    try:
        M.net.second = M.Sine(0.9)  # (given another after the first call: built again)
        np.testing.assert_allclose(g(w), numeric_gradient(C.uses_objects_of_another_module,
                                                          (w,), 0), rtol=1e-6, atol=1e-8)
    finally:
        M.net.second = old


def test_recursive_call_stays_a_call_in_readable_source():
    source = s2sad.grad(C.power).source
    assert "recursive_call(power, " in source and "recursive_pullback(" in source
    assert "from s2sad.runtime.recursion import" in source


@pytest.mark.parametrize("f, args", [
    pytest.param(C.doubling_until_large, (0.7,), id="constant-sensitivity"),
    pytest.param(C.power, (1.3, 4), id="sensitivity-varies"),
    pytest.param(C.even_steps, (0.7, 5), id="mutual-recursion"),
    pytest.param(C.calls_recursive, (0.8,), id="calls-a-recursive-function"),
    pytest.param(C.recursive_in_loop, (0.9,), id="called-in-a-loop"),
])
def test_recursion_differentiated_twice_matches_differences_of_the_gradient(f, args):
    """A recursive call's vjp depends on the call's arguments as well as on its
    sensitivity: a second derivative follows both (once the arguments' part was dropped
    where the sensitivity was constant: 2.0 for 170.0)."""
    g = s2sad.grad(f)
    eps = 1e-5
    expected = (g(args[0] + eps, *args[1:]) - g(args[0] - eps, *args[1:])) / (2 * eps)
    assert s2sad.grad(g)(*args) == pytest.approx(expected, rel=1e-6, abs=1e-8)
    assert s2sad.hessian(f)(*args) == pytest.approx(expected, rel=1e-6, abs=1e-8)
    assert s2sad.hvp(f)(*args, 1.0) == pytest.approx(expected, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("f, args", [
    pytest.param(C.recursive_on_arrays, (rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5, 3),
                 id="recursion-on-arrays"),
    pytest.param(C.tree_sum, (rng.normal(size=5), 0, 5), id="recursion-two-calls"),
])
def test_the_hessian_through_recursion_on_arrays_matches_differences_of_the_gradient(f, args):
    g = s2sad.grad(f)
    x, eps = args[0], 1e-6
    columns = [(g(x + e, *args[1:]) - g(x - e, *args[1:])) / (2 * eps)
               for e in np.eye(x.size) * eps]
    expected = np.array(columns).T
    np.testing.assert_allclose(s2sad.hessian(f)(*args), expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(s2sad.jacobian(g, mode="rev")(*args), expected, rtol=1e-5,
                               atol=1e-7)


def test_the_gradient_of_a_recursive_function_inlined_is_differentiated():
    expected = numeric_gradient(C.calls_gradient_of_recursion, (0.9,), 0)
    assert s2sad.grad(C.calls_gradient_of_recursion)(0.9) == pytest.approx(expected, rel=1e-6)


def test_recursion_cannot_be_differentiated_three_times_yet():
    """A third derivative through a recursive call is said when it runs, never dropped."""
    for f, args in [(C.power, (1.3, 3)), (C.doubling_until_large, (0.7,))]:
        with pytest.raises(s2sad.NoDerivativeError, match="a recursive call"):
            s2sad.grad(s2sad.grad(s2sad.grad(f)))(*args)


@pytest.mark.parametrize("f, args", [
    pytest.param(C.power, (1.3, 4), id="recursion"),
    pytest.param(C.even_steps, (0.7, 5), id="mutual-recursion"),
    pytest.param(C.recursive_on_arrays, (rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5, 3),
                 id="recursion-on-arrays"),
])
def test_recursion_in_forward_mode_matches_finite_differences(f, args):
    direction = rng.normal(size=np.shape(args[0])) if np.ndim(args[0]) else 1.0
    _, pushforward = s2sad.jvp(f)(*args)
    expected = np.sum(numeric_gradient(f, args, 0) * direction)
    assert pushforward(direction) == pytest.approx(expected, rel=1e-5, abs=1e-7)


def test_a_helper_changing_an_array_of_the_callers_in_place_is_refused():
    """``v *= 2.0`` in a helper changes the caller's array: once differentiated as if it
    made a new one (a silent wrong gradient)."""
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(C.helper_doubles_in_place_a_value_read_after)(np.array([0.5, 1.0]))
    message = str(info.value)
    assert "`v *= ...` on 'v', which holds the caller's 'a'" in message, message
    assert "v *= 2.0" in message and "Write `v = v * ...`" in message, message


def test_a_function_of_the_users_passed_and_used_as_a_value_is_located():
    """It is inlined where it is called (or where a name given it, `g = f`, is called):
    `f == square` reads it as a value."""
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(C.passes_own_function_compared)(0.6)
    message = str(info.value)
    assert "the function passed as 'f' used as a value" in message, message
    assert "if f == square" in message and "call it" in message, message


def test_a_function_passed_tested_against_none_is_decided():
    """`if f is None` on a function passed is False as the gradient is built: f is called."""
    assert s2sad.grad(C.passes_own_function_checked)(0.6) == pytest.approx(1.2, rel=1e-12)


@pytest.mark.parametrize("f, args", [
    (C.alias_given_again_in_a_loop, (np.ones(2),)),  # (not np.tanh on every pass)
])
def test_a_function_given_again_in_a_loop_is_named_in_the_refusal(f, args):
    with pytest.raises(s2sad.NoDerivativeError,
                       match=r"act(_\d+)?\(\) \(a function held in a variable\)"):
        s2sad.grad(f)(*args)


@pytest.mark.parametrize("f, args, expected", [
    (C.alias_chosen_in_a_branch, (np.full(2, 0.5), "tanh"), 1 - np.tanh(0.5) ** 2),
    (C.alias_chosen_in_a_branch, (np.full(2, 0.5), "sin"), np.cos(0.5)),
    (C.alias_given_again, (np.full(2, 0.5),), np.cos(0.5)),  # (the last one given)
])
def test_a_function_chosen_in_a_branch_or_given_again_is_the_one_called(f, args, expected):
    np.testing.assert_allclose(s2sad.grad(f)(*args), np.full(2, expected), rtol=1e-12)


def test_a_method_used_as_a_value_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=r"the method x\.sum used as a value"):
        s2sad.grad(C.method_as_a_value)(np.ones(2))


@pytest.mark.parametrize("f, args", [
    pytest.param(C.helper_halves_a_dot_product_read_after, (rng.normal(size=3),),
                 id="dot-product-read-after"),
    pytest.param(C.helper_halves_a_number_in_a_loop, (np.array([0.3, -0.2, 0.4]),),
                 id="number-in-a-loop"),
    pytest.param(C.helper_halves_a_float_argument_read_after, (0.7,), id="float-argument"),
    pytest.param(C.helper_halves_an_array_not_read_after, (rng.normal(size=3),),
                 id="array-not-read-after"),
])
def test_a_helpers_update_of_a_number_or_an_unread_array_is_differentiated(f, args):
    """``v /= ...`` in a helper rebinds a number (Python's or NumPy's), and changes an array
    no later line reads: both differentiated (a NumPy number the kinds call "an array or a
    number" was refused, the long fuzz profile's last kind of refusal)."""
    expected = numeric_gradient(f, args, 0)
    np.testing.assert_allclose(s2sad.grad(f)(*args), expected, rtol=1e-6, atol=1e-8)
    value, _ = s2sad.value_and_grad(f)(*args)
    assert value == pytest.approx(f(*[a.copy() if isinstance(a, np.ndarray) else a
                                      for a in args]))
    _, pushforward = s2sad.jvp(f)(*args)
    direction = np.ones_like(args[0])
    assert pushforward(direction) == pytest.approx(np.sum(expected * direction), rel=1e-6)


def test_a_helpers_update_of_a_number_has_second_derivatives():
    f = C.helper_halves_a_dot_product_read_after
    x = np.array([0.3, -0.2, 0.4])
    hessian = s2sad.hessian(f)(x)
    for i in range(3):
        step = np.eye(3)[i] * 1e-5
        column = (s2sad.grad(f)(x + step) - s2sad.grad(f)(x - step)) / 2e-5
        np.testing.assert_allclose(hessian[:, i], column, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("f, reader", [
    pytest.param(C.helper_halves_an_array_read_after, "'t'", id="array-read-after"),
    pytest.param(C.helper_halves_an_array_whose_view_is_read_after, "'u'",
                 id="view-read-after"),  # (was a silently wrong gradient)
    pytest.param(C.helper_halves_a_view_of_an_array_read_after, "'t'",
                 id="view-passed-array-read-after"),  # (was a silently wrong gradient)
    pytest.param(C.helper_halves_the_argument, "'x'", id="the-argument"),
    pytest.param(C.helper_halves_a_matrix_vector_product_read_after, "'t'",
                 id="matrix-vector-product"),
])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_helpers_update_of_an_array_read_after_is_refused(f, reader, mode):
    """An array another live name reads (or the caller's own argument): refused at the
    helper's line, under the caller's, when it is built or, where only the run says it is
    an array, when it runs."""
    x = rng.normal(size=3)
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        if mode == "grad":
            s2sad.grad(f)(x)
        else:
            s2sad.jvp(f)(x)[1](np.ones(3))
    message = str(info.value)
    assert f"`v /= ...` on 'v', which holds the caller's {reader}" in message, message
    assert "v /= 1.0 + np.square(v)" in message and "Write `v = v / ...`" in message, message
    assert info.value.filename == C.__file__
    assert info.value.lineno == C._halved_square.__code__.co_firstlineno + 1
    assert f.__name__ in message  # (the caller's line, shown as a traceback shows calls)
