"""What a function does to memory is a fact of its rule entry (s2sad.registry.facts): a
call that returns its argument or a view of it shares its memory, a call that writes into
an argument is refused, and a call s2sad knows nothing of, given a mutable value the
gradient follows, is refused at its line. Valid code still differentiates."""

import inspect
import operator
import re

import numpy as np
import pytest

import s2sad
from s2sad import registry
from tests import cases_memory as cases
from tests.test_control_flow import numeric_gradient
from tests.numpy_deprecations import expect_fix_warning

X = np.array([0.3, 1.2, -0.7])


def marked_line(func) -> int:
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if "# <- here" in line)


def located(err, func) -> None:
    assert err.filename == cases.__file__, str(err)
    assert err.lineno == marked_line(func), str(err)
    assert "# <- here" in str(err)


@pytest.mark.parametrize("func", cases.VIEWS, ids=lambda f: f.__name__)
def test_update_of_a_returned_argument_or_view_is_refused(func):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="shares its memory with|shared") \
            as info:
        s2sad.grad(func)(X.copy())
    located(info.value, func)
    assert "copy" in str(info.value)


@pytest.mark.parametrize("func", cases.MUTATIONS, ids=lambda f: f.__name__)
def test_change_in_place_through_a_call_is_refused(func):
    x = X.copy()
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="in place where the reverse sweep") \
            as info:
        s2sad.grad(func)(x)
    located(info.value, func)
    assert np.array_equal(x, X)


@pytest.mark.parametrize("func", cases.UNKNOWN, ids=lambda f: f.__name__)
def test_unknown_function_given_a_followed_value_is_refused(func):
    with pytest.raises(s2sad.NoDerivativeError, match="does not know whether it changes") \
            as info:
        s2sad.grad(func)(X.copy())
    located(info.value, func)
    assert "'z'" in str(info.value) and "copy" in str(info.value)


@pytest.mark.parametrize("func", cases.SAFE + cases.SLOTS, ids=lambda f: f.__name__)
def test_known_or_unfollowed_calls_differentiate(func):
    grad = s2sad.grad(func)(X.copy())
    np.testing.assert_allclose(grad, numeric_gradient(func, (X.copy(),), 0), rtol=1e-6,
                               atol=1e-8)


def test_facts_are_kept_by_function_object():
    """Methods by their unbound functions; a bound method without its receiver; a rule's
    function is known (no change, no view); an output array given by position."""
    assert registry.facts(np.ndarray.fill).mutates == (0,)
    assert registry.facts(list.sort).mutates == (0,)
    assert registry.facts(operator.iadd).returns_view_of == (0,)
    assert registry.facts(np.random.default_rng(0).shuffle).mutates == (0,)
    assert registry.facts(np.add.at).mutates == (0,)
    assert registry.facts(np.clip).mutates == (3, "out")
    assert registry.facts(np.tanh).mutates == (1, "out")
    assert registry.facts(np.ndarray.conj).returns_view_of == (0,)
    assert registry.facts(np.sinc) == registry.Facts()  # (a rule, no output array)
    assert registry.lookup(np.sinc).facts == registry.Facts()
    found = registry.facts(len)  # (and what else the passes read: pure, an int)
    assert (found.returns_view_of, found.uncopied_view_of, found.mutates) == ((), (), ())
    assert registry.facts(lambda v: v) is None


@pytest.mark.parametrize("func", cases.VIEWS + cases.MUTATIONS + cases.UNKNOWN,
                         ids=lambda f: f.__name__)
def test_forward_mode_refuses_at_the_same_line(func):
    with pytest.raises((s2sad.UnsupportedSyntaxError, s2sad.NoDerivativeError)) as info:
        s2sad.jvp(func)(X.copy())[1](np.ones(3))
    located(info.value, func)


@pytest.mark.parametrize("func", cases.SAFE + cases.SLOTS, ids=lambda f: f.__name__)
def test_forward_and_second_order_agree_with_central_differences(func):
    direction = np.array([0.5, -1.0, 2.0])
    _, tangent = s2sad.jvp(func)(X.copy())
    step = 1e-6
    slope = (func(X + step * direction) - func(X - step * direction)) / (2 * step)
    np.testing.assert_allclose(tangent(direction), slope, rtol=1e-6, atol=1e-8)
    hessian = s2sad.hessian(func)(X.copy())
    columns = [(s2sad.grad(func)(X + 1e-5 * e) - s2sad.grad(func)(X - 1e-5 * e)) / 2e-5
               for e in np.eye(3)]
    np.testing.assert_allclose(hessian, np.array(columns).T, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("func", cases.ARGUMENT_UPDATES, ids=lambda f: f.__name__)
def test_in_place_update_of_the_argument_is_refused_in_every_form(func):
    for make in (s2sad.grad, lambda f: (lambda x: s2sad.jvp(f)(x)[1](np.ones(3)))):
        x = X.copy()
        with pytest.raises(s2sad.UnsupportedSyntaxError,
                           match="in-place update of the argument 'x'") as info:
            make(func)(x)
        located(info.value, func)
        assert np.array_equal(x, X)


def test_a_bound_method_held_by_a_variable_is_refused():
    for make in (s2sad.grad, lambda f: (lambda x: s2sad.jvp(f)(x)[1](np.ones(3)))):
        with pytest.raises(s2sad.NoDerivativeError, match="does not know whether it changes") \
                as info:
            make(cases.bound_method_held)(X.copy())
        located(info.value, cases.bound_method_held)
        assert "z.fill" in str(info.value)


@pytest.mark.parametrize("func", cases.LIST_SLICES, ids=lambda f: f.__name__)
def test_assignment_to_a_slice_of_a_list_is_refused(func):
    for make in (s2sad.grad, lambda f: (lambda x: s2sad.jvp(f)(x)[1](np.ones(3)))):
        with pytest.raises(s2sad.UnsupportedSyntaxError,
                           match="assignment to a slice of the list 'ys'") as info:
            make(func)(X.copy())
        located(info.value, func)
        assert "Build a new list" in str(info.value)


# --- an output array given by position, on every NumPy (2.2's C functions have no signature) -

OUTPUT_BY_POSITION = {
    "clip": "np.clip(z, 0.0, 1.0, z)", "add": "np.add(z, x, z)",
    "sin": "np.sin(x, z)", "multiply": "np.multiply(x, x, z)",
    "cumsum": "np.cumsum(x, 0, None, z)", "cumprod": "np.cumprod(x, 0, None, z)",
    "matmul": "np.matmul(M, x, z)", "dot": "np.dot(M, x, z)",
    "take": "np.take(x, [2, 1, 0], None, z)", "round": "np.round(x, 0, z)",
    "around": "np.around(x, 0, z)", "concatenate": "np.concatenate([x[:1], x[1:]], 0, z)",
    "stack": "np.stack([x], 0, z.reshape(1, 3))", "outer": "np.outer(x[:1], x, z.reshape(1, 3))",
    "sum": "np.sum(M, 0, None, z)", "mean": "np.mean(M, 0, None, z)", "max": "np.max(M, 0, z)",
    "prod": "np.prod(M, 0, None, z)", "std": "np.std(M, 0, None, z)",
    "choose": "np.choose([0, 1, 0], [x, x * 2.0], z)", "fix": "np.fix(x, z)",
    "trace": "np.trace(M[:, :, None] * x, 0, 0, 1, None, z)",
    "method-clip": "x.clip(0.0, 1.0, z)", "method-cumsum": "x.cumsum(0, None, z)",
    "method-round": "x.round(0, z)", "method-take": "x.take([2, 1, 0], None, z)",
    "method-dot": "M.dot(x, z)", "method-sum": "M.sum(0, None, z)",
    "method-max": "M.max(0, z)", "method-var": "M.var(0, None, z)",
    "einsum-keyword": "np.einsum('ij,j->i', M, x, out=z)",
}  # (np.matmul(M, x, out=z), a ufunc's out=: followed since session 30, test_overrefusals_s30)


@pytest.fixture(scope="module")
def output_module(tmp_path_factory):
    """The table's calls, one function each, in a file (s2sad reads source)."""
    import importlib.util
    lines = ["import numpy as np", ""]
    for i, call in enumerate(OUTPUT_BY_POSITION.values()):
        lines += ["", f"def f_{i}(x):", "    M = np.outer(x, x) + 1.0", "    z = x * 2.0",
                  f"    r = {call}  # <- here", "    return np.sum(z * x) + np.sum(r)", ""]
    path = tmp_path_factory.mktemp("outputs") / "s2sad_outputs_by_position.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("i", range(len(OUTPUT_BY_POSITION)), ids=list(OUTPUT_BY_POSITION))
def test_an_output_array_given_by_position_is_refused(output_module, i, mode):
    """``np.clip(z, 0, 1, z)`` writes into ``z``: refused at its line on every NumPy, for
    functions (NumPy 2.2's C functions have no signature to find ``out`` in) and methods."""
    func = getattr(output_module, f"f_{i}")
    with expect_fix_warning(list(OUTPUT_BY_POSITION.values())[i]):  # (NumPy 2.5's)
        func(X.copy())  # (valid code)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="changes 'z' in place") as info:
        if mode == "grad":
            s2sad.grad(func)(X.copy())
        else:
            s2sad.jvp(func)(X.copy())[1](np.ones(3))
    assert info.value.filename == output_module.__file__
    assert "# <- here" in str(info.value)


def _signature_text(func) -> str | None:
    """The signature a NumPy function's docstring opens with (``dot(a, b, out=None)``),
    where Python cannot read one (NumPy 2.2's C functions); None where it can."""
    try:
        inspect.signature(func)
        return None
    except (TypeError, ValueError):
        doc = (getattr(func, "__doc__", None) or "").strip()
        return doc.split("\n\n")[0]


def test_every_rules_output_array_is_known():
    """Every NumPy function with a rule that takes ``out`` knows it, as a fact (declared
    in s2sad/rules/memory.py where the signature is not readable); where it is readable,
    the declared position is the signature's."""
    missing = []
    for rule in list(registry._RULES.values()):
        func = rule.func
        if not (getattr(func, "__module__", None) or "").startswith("numpy") or \
                type(func).__name__ == "ufunc":
            continue
        text = _signature_text(func)
        if text is not None and re.search(r"\bout\b", text) and \
                "out" not in registry.facts(func).mutates:
            missing.append(rule.name)
    assert not missing, f"an output array not declared: {missing}"
    for func in (np.dot, np.concatenate):  # (declared: the same as their signatures say)
        if _signature_text(func) is None:
            assert registry._out_position(func) == registry.facts(func).mutates[0]


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("func, fix", cases.OUTPUTS_MADE_HERE,
                         ids=[f.__name__ for f, _ in cases.OUTPUTS_MADE_HERE])
def test_an_output_array_made_on_the_line_is_refused_as_the_output_array(func, fix, mode):
    """``np.sin(x, np.zeros(3))``: the message names the output array (it named 'np'),
    and the advice is the call without it."""
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        if mode == "grad":
            s2sad.grad(func)(X.copy())
        else:
            s2sad.jvp(func)(X.copy())[1](np.ones(3))
    located(info.value, func)
    message = str(info.value)
    assert "with an output array made on the line" in message and "'np'" not in message
    assert f"Leave the output array out: {fix} makes a new array." in message, message


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_an_output_array_made_by_keyword_in_a_statement_is_followed(mode):
    """``y = np.sin(x, out=np.zeros(3))``: the zeros are made first, into a name of
    their own, and the call followed as ``out=`` a name is: the derivative is cos(x)."""
    f = cases.sin_into_a_new_array_by_keyword
    if mode == "grad":
        np.testing.assert_allclose(s2sad.grad(f)(X.copy()), np.cos(X))
    else:
        np.testing.assert_allclose(s2sad.jvp(f)(X.copy())[1](np.ones(3)), np.sum(np.cos(X)))


def test_an_array_of_the_module_written_by_a_call_is_refused():
    """``np.copyto(G, v)`` on a module's array: refused, naming it (a call's own names,
    ``np``, are not taken for the array written)."""
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="changes 'GLOBAL_BUFFER' in place") \
            as info:
        s2sad.grad(cases.copies_into_a_global_array)(X.copy())
    located(info.value, cases.copies_into_a_global_array)
