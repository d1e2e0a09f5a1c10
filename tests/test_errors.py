"""Bad input gets a clear error naming the construct, the file and the line."""

import inspect

import numpy as np
import pytest

import s2sad
from s2sad import boundary
from tests import errors_cases as cases


def line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("func, construct, text", [
    pytest.param(cases.uses_with, "`with` statement", "with open", id="with"),
    pytest.param(cases.may_not_return, "can end without `return`", "if x > 0",
                 id="may-fall-off-the-end"),
    pytest.param(cases.updates_argument, "in-place update of the argument 'x'", "x[0] = 2.0",
                 id="setitem-argument"),
    pytest.param(cases.updates_shared, "shares its memory with 'z'", "y[1] = 1.0",
                 id="setitem-shared"),
    pytest.param(cases.uses_lambda, "lambda used as a value", "lambda v", id="lambda-value"),
    pytest.param(cases.early_return, "code after `return`", "return x", id="code-after-return"),
    pytest.param(cases.uses_global_write, "`global` statement", "global counter", id="global"),
])
def test_unsupported_syntax_is_located(func, construct, text):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(func)(np.array([1.0, 2.0]) if "update" in func.__name__ else 1.0)
    err = info.value
    assert isinstance(err, SyntaxError)
    assert construct in str(err)
    assert err.filename == cases.__file__
    assert err.lineno == line_of(func, text)
    assert text in str(err)          # the source line is shown
    assert "^" in str(err)           # with a caret under the construct
    assert err.hint and err.hint in str(err)  # and what to do instead


def test_call_without_rule_names_function_and_line():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(cases.uses_unknown_call)(np.ones(3))
    message = str(info.value)
    assert "numpy.unwrap" in message
    assert f'line {line_of(cases.uses_unknown_call, "np.unwrap")}' in message
    assert "stop_gradient" in message


def test_non_scalar_output_is_a_clear_error():
    with pytest.raises(s2sad.NonScalarOutputError, match=r"(?s)shape \(3,\).*vjp"):
        s2sad.grad(cases.returns_vector)(np.ones(3))


def test_undefined_name_is_reported_at_compile_time():
    with pytest.raises(s2sad.DifferentiationError, match="not_defined_anywhere") as info:
        s2sad.grad(cases.undefined_name)(1.0)
    assert info.value.lineno == line_of(cases.undefined_name, "not_defined_anywhere")


def test_function_without_source():
    namespace = {}
    exec("def made_by_exec(x):\n    return x * 2.0\n", namespace)
    with pytest.raises(s2sad.NoSourceError, match="source"):
        s2sad.grad(namespace["made_by_exec"])


def test_a_builtin_is_refused_and_a_lambda_differentiated():
    assert s2sad.grad(lambda x: x * 2.0)(1.0) == 2.0
    with pytest.raises(s2sad.NoSourceError):
        s2sad.grad(np.sin)


def test_integer_wrt_is_refused():
    def f(x):
        return x * 2.0
    with pytest.raises(TypeError, match="integers"):
        s2sad.grad(f)(3)
    with pytest.raises(TypeError, match="integer array"):
        s2sad.grad(f)(np.arange(3))


def test_bad_wrt():
    def f(x, y):
        return x * y
    with pytest.raises(s2sad.DifferentiationError, match="out of range"):
        s2sad.grad(f, wrt=2)
    with pytest.raises(s2sad.DifferentiationError, match="not an argument.*x, y"):
        s2sad.grad(f, wrt="z")


def test_wrong_call_of_the_gradient():
    def f(x, y):
        return x * y
    with pytest.raises(TypeError, match="grad_f"):
        s2sad.grad(f)(1.0)


def test_recursion_of_a_module_level_function_differentiates():
    assert s2sad.grad(cases.recursive)(1.5, 3) == pytest.approx(4 * 1.5 ** 3)


# --- an error of the generated code names the user's line it comes from -------------------

def _mlp(W1, W2, x):
    h = np.tanh(x @ W1)
    logits = h @ W2
    return np.sum(logits ** 2)


def _notes(exc) -> str:
    return "\n".join(boundary.notes(exc))


def test_a_shape_mismatch_names_the_users_line():
    g = s2sad.grad(_mlp)
    g(np.ones((3, 4)), np.ones((4, 2)), np.ones((5, 3)))  # (the entry of this variant)
    for call in (lambda: g(np.ones((3, 4)), np.ones((5, 2)), np.ones((5, 3))),
                 lambda: s2sad.grad(_mlp, optimize=False)(np.ones((3, 4)), np.ones((5, 2)),
                                                          np.ones((5, 3)))):
        with pytest.raises(ValueError) as info:
            call()
        line = _mlp.__code__.co_firstlineno + 2
        assert f"{__file__}, line {line}:\n    logits = h @ W2" in _notes(info.value), \
            _notes(info.value)


def test_an_error_in_the_reverse_sweep_names_the_users_line():
    def f(x, d):
        y = x * 2.0
        z = y / d
        return z
    with pytest.raises(ZeroDivisionError) as info:
        s2sad.grad(f, wrt=0)(1.0, 0.0)
    assert f"line {f.__code__.co_firstlineno + 2}:\n    z = y / d" in _notes(info.value)



def test_a_derivative_that_is_not_inlined_inside_a_differentiated_function_says_what_to_do():
    from tests import cases_calls as C
    with pytest.raises(s2sad.NoDerivativeError, match="this one is not") as info:
        s2sad.grad(C.calls_a_vjp)(np.ones(2), np.ones((3, 2)))
    assert "call s2sad.grad of a function instead" in str(info.value)


def test_an_error_in_inlined_code_names_its_own_line_and_the_calls_to_it():
    """A call without a rule inside a helper of another module: the error is located at
    the helper's line, with the differentiated function's call above it, as a traceback
    shows calls."""
    from tests import helpers_other_module as other
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(cases.calls_a_helper_without_a_rule)(np.array([1.0, 2.0]))
    err = info.value
    assert (err.filename, err.lineno) == (other.__file__, line_of(other.no_rule, "frexp"))
    call = line_of(cases.calls_a_helper_without_a_rule, "no_rule(x)")
    assert [frame[:2] for frame in err.calls] == [(cases.__file__, call),
                                                 (other.__file__, err.lineno)]
    text = str(err)
    outer = f'File "{cases.__file__}", line {call}, in calls_a_helper_without_a_rule'
    inner = f'File "{other.__file__}", line {err.lineno}, in no_rule'
    assert outer in text and inner in text and text.index(outer) < text.index(inner)
    assert "return onp.frexp(y)[0]" in text and "^" in text


def test_a_run_time_error_in_an_inlined_method_names_its_line_and_the_calls():
    from tests import helpers_other_module as other
    g = s2sad.grad(cases.calls_a_projection)
    with pytest.raises(ValueError) as info:
        g(np.ones(3), other.Projection(np.ones((4, 2))))
    note = "\n".join(boundary.notes(info.value))
    assert f"{other.__file__}, line {line_of(other.Projection.__call__, 'tanh')}, in " \
           "Projection.__call__" in note, note
    assert f"called from {cases.__file__}, line " \
           f"{line_of(cases.calls_a_projection, 'layer(y)')}, in calls_a_projection" in note


def test_errors_in_a_helper_at_every_stage_name_its_line_and_the_calls():
    """Refused while normalizing (an update of the caller's array), by the reverse pass
    (no rule: the message quotes the helper's line), and nested defs and lambdas (the
    caret under the call refused, in their own statement)."""
    from tests import helpers_other_module as other
    x = np.array([1.0, 2.0])
    for f, error, helper, text in [
            (cases.calls_adds_in_place, s2sad.UnsupportedSyntaxError, other.adds_in_place,
             "z += 1.0"),
            (cases.calls_tiled, s2sad.NoDerivativeError, other.tiled,
             "parts = onp.frexp(onp.sum(z) * 3)")]:
        with pytest.raises(error) as info:
            s2sad.grad(f)(x)
        err = info.value
        assert (err.filename, err.lineno) == (other.__file__, line_of(helper, text))
        assert [frame[-1] for frame in err.calls] == [f.__name__, helper.__name__]
    assert "no derivative rule for numpy.frexp" in str(err)
    for f, name, text in [(cases.nested_without_rule, "inner", "return np.frexp(v)[0]"),
                          (cases.lambda_without_rule, "<lambda>", "lambda v: np.frexp")]:
        with pytest.raises(s2sad.NoDerivativeError) as info:
            s2sad.grad(f)(x)
        lines = str(info.value).splitlines()
        at = next(i for i, line in enumerate(lines) if line.endswith(f", in {name}"))
        source, caret = lines[at + 1], lines[at + 2]
        assert text in source and caret.index("^") == source.index("np.frexp"), lines
        assert "the value of 'x' passed in" in str(info.value)  # (v, in the helper's line)


def test_the_reverse_sweeps_errors_and_debug_nans_name_the_helpers_line():
    from s2sad import registry
    from s2sad.runtime.debug import NonFiniteError
    from tests import helpers_other_module as other

    @s2sad.defvjp(other.ones_vjp)
    def broken(g, ans, x):
        return g @ np.ones((5, 5))  # (fails when the reverse sweep runs)
    try:
        with pytest.raises(ValueError) as info:
            s2sad.grad(cases.calls_scaled)(np.ones(3))
    finally:
        registry._RULES.pop(other.ones_vjp)
        registry.changed()
    note = "\n".join(boundary.notes(info.value))
    assert f"comes from {other.__file__}, line {line_of(other.scaled, 'ones_vjp(w)')}, " \
           "in scaled" in note and "called from " in note, note
    with pytest.raises(NonFiniteError) as info, np.errstate(invalid="ignore"):
        s2sad.grad(cases.calls_shifted_root, debug_nans=True)(np.ones(2))
    assert f'File "{other.__file__}", line {line_of(other.shifted_root, "sqrt")}' in \
        str(info.value)


def test_a_list_of_objects_or_an_attribute_changed_inside_is_refused():
    from tests import cases_methods as M
    model = M.Sequential(M.Dense(0.5), M.Sine(1.5))
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="list of objects 'layers' in "
                       "place") as info:
        s2sad.grad(cases.changes_its_layers, wrt=1)(model, np.ones(3))
    assert "layers.append(layers[0])" in str(info.value)
    for f, said in [(cases.sets_an_attribute, "setattr, which reads or changes"),
                    (cases.setattr_aliased, "setattr, which reads or changes"),
                    (cases.object_setattr, "object.__setattr__, which reads or changes"),
                    (cases.through_vars, "assignment into a nested element"),
                    (cases.tuple_alias_changed, "list of objects 'ls' in place"),
                    (cases.changed_in_a_test, "list of objects 'model.layers' in place"),
                    (cases.given_to_list_append, "'model.layers', a list of objects, where"),
                    (cases.in_a_display, "'model.layers', a list of objects, where")]:
        with pytest.raises(s2sad.UnsupportedSyntaxError, match=said):
            s2sad.grad(f, wrt=1)(model, np.ones(3))
    assert len(model.layers) == 2 and model.layers[0].scale == 0.5 and \
        "scale" not in vars(model)


def test_a_dict_in_a_helpers_arithmetic_and_a_tangent_of_another_shape():
    from tests import helpers_other_module as other
    with pytest.raises(TypeError, match="'d' is a dict here") as info:
        s2sad.grad(cases.calls_doubled)(np.ones(2), {"a": 1.0})
    assert f'File "{other.__file__}", line {line_of(other.doubled, "d * 2.0")}: ' \
           "y = d * 2.0" in str(info.value)
    _, pushforward = s2sad.jvp(cases.calls_doubled)(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match=r"the tangent for 'x' has shape \(4,\); 'x' has "
                       r"shape \(3,\)"):
        pushforward(np.ones(4))


def test_a_call_that_does_not_fit_its_helper_is_located_at_the_call_alone():
    """Raised where the helper is called (in the same file): not taken for an error in
    the helper's own lines, so no frame of the helper is shown."""
    with pytest.raises(s2sad.DifferentiationError, match="does not match the parameters") \
            as info:
        s2sad.grad(cases.calls_with_too_many)(np.ones(2))
    err = info.value
    assert err.lineno == line_of(cases.calls_with_too_many, "_two_arguments(x, x, x)")
    assert err.calls == () and ", in _two_arguments" not in str(err)


@pytest.mark.parametrize("func, arg", [
    pytest.param(cases.negative_base_power, 1.0, id="float-to-a-fraction"),
    pytest.param(cases.negative_base_power_in_helper, 1.0, id="builtin-pow-in-a-helper"),
    pytest.param(cases.negative_constant_to_a_power, 0.5, id="negative-constant-base"),
    pytest.param(cases.negative_constant_to_a_power, 2.0, id="negative-base-varying-power"),
])
@pytest.mark.parametrize("mode", ["grad", "value_and_grad", "jvp"])
def test_a_complex_power_of_python_floats_is_refused_at_its_line(func, arg, mode):
    # (was a TypeError: float() of the complex gradient Python's ** made)
    with pytest.raises(s2sad.DifferentiationError) as info:
        if mode == "jvp":
            s2sad.jvp(func)(arg)[1](1.0)
        else:
            getattr(s2sad, mode)(func)(arg)
    err = info.value
    assert "complex" in str(err) and "s2sad differentiates real numbers only" in str(err)
    assert err.filename == cases.__file__
    assert err.lineno == line_of(func if func is not cases.negative_base_power_in_helper
                                 else cases._root, "# <- power")
    assert "np.sqrt(b)" in err.hint and "Keep the base non-negative" in err.hint


@pytest.mark.parametrize("func, arg, expected", [
    (cases.negative_base_power, 3.0, 1.5 + 1.0),
    (cases.negative_base_power_in_helper, 3.0, 1.0 + 0.5 * 3.0),
])
def test_a_power_of_python_floats_where_it_is_real_differentiates(func, arg, expected):
    assert s2sad.grad(func)(arg) == pytest.approx(expected)


def test_powers_of_numpy_values_are_not_checked():
    x = np.array([1.0, 3.0])
    source = s2sad.grad(cases.power_of_numpy_values).source_for(x)
    assert "check_real_power" not in source
    np.testing.assert_allclose(s2sad.grad(cases.power_of_numpy_values)(x),
                               [-0.5 + 2.0 * (1.0 - 2.0), 0.5])


@pytest.mark.parametrize("func, arg", [
    pytest.param(cases.negative_base_power, 1.0, id="float-to-a-fraction"),
    pytest.param(cases.negative_base_power_in_helper, 1.0, id="builtin-pow-in-a-helper"),
])
def test_a_complex_power_is_refused_at_the_users_line_in_a_second_derivative(func, arg):
    with pytest.raises(s2sad.DifferentiationError, match="complex number") as info:
        s2sad.grad(s2sad.grad(func))(arg)
    assert info.value.filename == cases.__file__  # (not the first derivative's own code)
    assert info.value.lineno == line_of(func if func is not cases.negative_base_power_in_helper
                                        else cases._root, "# <- power")
    assert s2sad.hessian(func)(3.0) == pytest.approx(
        s2sad.grad(s2sad.grad(func))(3.0))  # (where the power is real: differentiated)


def test_a_numpy_number_to_a_fraction_is_nan_as_numpy_defines():
    with np.errstate(invalid="ignore"):
        assert np.isnan(s2sad.grad(cases.negative_base_power)(np.float64(1.0)))


@pytest.mark.parametrize("make", [
    lambda f: s2sad.grad(s2sad.grad(f)),
    lambda f: s2sad.value_and_grad(s2sad.grad(f)),
    lambda f: s2sad.grad(s2sad.grad(s2sad.grad(f))),
], ids=["grad-grad", "value_and_grad-grad", "grad-grad-grad"])
def test_a_gradient_of_a_vector_gradient_names_the_users_return_and_hessian(make):
    """The gradient differentiated is a vector: said at the user's ``return`` (not at a
    line of the generated code), with what gives second derivatives."""
    with pytest.raises(s2sad.NonScalarOutputError) as info:
        make(cases.sum_of_squares)(np.array([0.3, 0.9]))
    err = info.value
    assert err.filename == cases.__file__
    assert err.lineno == line_of(cases.sum_of_squares, "its gradient is a vector")
    assert "return np.sum(x ** 2)" in str(err)
    assert "the gradient of sum_of_squares" in str(err)
    assert "s2sad.hessian(sum_of_squares)" in err.hint
    assert "s2sad.hvp(sum_of_squares)" in err.hint
    assert "s2sad.jacobian(s2sad.grad(sum_of_squares))" in err.hint
    assert "<s2sad" not in str(err)


@pytest.mark.parametrize("func, text, what", [
    (cases.misspelled_attribute, "x.not_an_attribute", "'x' has no attribute 'not_an_attribute'"),
    (cases.misspelled_attribute_of_a_result, "y.not_an_attribute",
     "'y' has no attribute 'not_an_attribute'"),
    (cases.misspelled_method, "y.tranpose()", "'y' has no method 'tranpose'"),
], ids=["attribute", "attribute-of-a-result", "method"])
@pytest.mark.parametrize("maker", ["grad", "jvp"])
def test_an_attribute_no_array_has_is_said_so_at_its_line(func, text, what, maker):
    """Python would raise AttributeError: the error says the attribute does not exist, not
    that it has no derivative rule."""
    with pytest.raises(s2sad.NoDerivativeError) as info:
        getattr(s2sad, maker)(func)(np.array([0.3, 0.9]))
    err = info.value
    assert what in str(err)
    assert "AttributeError" in str(err)
    assert "no derivative rule" not in str(err)
    assert err.filename == cases.__file__
    assert err.lineno == line_of(func, text)
    assert "Check the" in err.hint
