"""One test per entry of docs/errors.md: the message names the construct, the file, the
line and the fix, and the error comes at the right moment (when the gradient is built or
first compiled, before any generated code runs), never from inside generated code.

Entries s2sad does not meet yet are strict xfails that say what goes wrong; the ids of
the tests are the ids of the entries in docs/errors.md (``test_every_entry_is_tested``).
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
import traceback
from pathlib import Path

import numpy as np
import pytest

import s2sad
from tests import cases_errors_catalogue as C

DOC = Path(__file__).resolve().parent.parent / "docs" / "errors.md"


def marked_line(func) -> int:
    """The line of ``func`` marked ``# <- here``."""
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if "# <- here" in line)


def from_generated_code(err: BaseException) -> bool:
    """Was ``err`` raised while generated code ran (a frame of an ``<s2sad ...>`` file)?"""
    return any(frame.filename.startswith("<s2sad")
               for frame in traceback.extract_tb(err.__traceback__))


def check_located(err, func, construct: str, fix: str) -> None:
    message = str(err)
    assert construct in message, message
    assert fix in message, message
    assert err.filename == C.__file__, (err.filename, message)
    assert err.lineno == marked_line(func), message
    assert f'File "{C.__file__}", line {err.lineno}' in message, message
    assert "# <- here" in message, message  # the source line is shown
    assert not from_generated_code(err)


def xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


ARRAY = np.array([1.0, 2.0, 3.0])

# --- refused syntax: UnsupportedSyntaxError (a SyntaxError) -----------------------------------

SYNTAX = [
    ("generator-call-changes", C.generator_call_changes,
     "a call of bump() in a generator expression read by any()", "Build the list first"),
    ("loop-changes-iterable", C.loop_changes_iterable,
     "a change to 'xs' in a loop over an iterable computed from it", "Take them first"),
    ("update-closure-read", C.update_closure_read, "an in-place update of 'v'",
     "Pass the array to g() as an argument"),
    ("update-kept-default", C.update_kept_default, "the default of 'c' in g()",
     "Update a copy (`a = a.copy()` first)"),
    ("update-star-args", C.update_star_args, "shares its memory with 'f'",
     "Copy first (`a = a.copy()`)"),
    ("try", C.uses_try, "`try` block that changes a value in place",
     "change objects after it, in its `else` block"),
    ("with", C.uses_with, "`with` statement", "explicit call before and after"),
    ("yield", C.uses_yield, "`yield` here", "or return a value"),
    ("yield-from", C.uses_yield_from, "`yield from` here", "as a statement of a generator"),
    ("async-def-inside", C.defines_async, "`async def`", "synchronous code"),
    ("global", C.uses_global, "`global` statement", "Pass the value in as an argument"),
    ("nonlocal", C.uses_nonlocal, "`nonlocal` statement", "Pass the value in as an argument"),
    ("del", C.uses_del, "`del` statement", "Remove the `del`"),
    ("class-inside", C.defines_class, "class definition inside the function",
     "Define the class at module level"),
    ("lambda-value", C.uses_lambda_value, "lambda used as a value", "Assign it to a name"),
    ("lambda-argument", C.uses_lambda_argument, "a lambda passed to filter()",
     "A function of yours that takes a function is inlined with it"),
    ("derivative-inside", C.makes_a_derivative_inside,
     "making a derivative inside the function differentiated (s2sad.checkpoint(...))",
     "Make it once at module level"),
    ("star-call", C.calls_with_star, "`*xs` here: s2sad cannot tell how many values it gives",
     "Pass the values one by one"),
    ("double-star-call", C.calls_with_double_star,
     "`**options` here: s2sad cannot tell which keywords it gives",
     "Pass the keyword arguments one by one"),
    ("starred-assignment", C.starred_assignment, "starred assignment", "Index the sequence"),
    ("nested-recursion", C.recursive, "recursive call of the nested function inner()",
     "Define the function at module level"),
    ("code-after-return", C.code_after_return, "code after `return`",
     "Remove the statements that can never run"),
    ("no-return", C.no_return, "function without `return`", "Return the value"),
    ("bare-return", C.bare_return, "`return` without a value", "Return the value"),
    ("may-not-return", C.may_not_return, "can end without `return`",
     "Make every path end with `return value`"),
    ("in-place-not-followed", C.multiplies_in_place,
     "an in-place operator on an object of Declines, whose __imul__", "NotImplemented"),
    ("nested-subscript-assignment", C.nested_subscript_assignment,
     "assignment into a nested element", "Index once: `y[i, j] = ...`"),
    ("attribute-assignment", C.attribute_assignment, "assignment to attribute",
     "Assign to a plain variable"),
    ("object-list-change", C.changes_object_list,
     "a change to the list of objects 'layers' in place", "make a new list instead"),
    ("object-list-escape", C.object_list_escapes,
     "'model.layers', a list of objects, where s2sad cannot follow it",
     "give it a name (layers = self.layers)"),
    ("object-attributes-as-dict", C.object_attributes_as_dict,
     "setattr, which reads or changes an object's attributes as a dict",
     "Read attributes by name (self.w)"),
    ("variables-by-name", C.reads_variables_by_name,
     "eval, which reads or changes the function's variables by name",
     "Write the expression out in the function"),
    ("update-argument", C.updates_argument, "in-place update of the argument 'x'",
     "Work on a copy: `x = x.copy()`"),
    ("update-shared", C.updates_shared, "shares its memory with 'z'", "Copy first"),
    ("loop-grows-list", C.grows_the_list_it_walks,
     "a loop over an iterator of the list 'xs', which its body lengthens or shortens",
     "Loop over a copy (`list(xs)`)"),
    ("update-stored-in-turn", C.stores_rows_in_turn,
     "storing into 'y' before the right side's `y[0]` is stored", "e.g. `y[0].copy()`"),
    ("augment-shared", C.augments_shared, "`y += ...` on a value shared with 'z'",
     "Write `y = y + ...`"),
    ("augment-slot", C.augments_a_slot,
     "`ys[0] += ...` on a slot holding a value shared with 'z'",
     "Write `ys[0] = ys[0] + ...`"),
    ("list-slice-assignment", C.assigns_a_list_slice,
     "an assignment to a slice of the list 'ys'", "Build a new list"),
    ("import-inside", C.imports_inside, "`import` inside the function", "Import at module level"),
    ("match", C.uses_match, "`match` statement", "Write it with `if`/`elif`"),
    ("set-comprehension", C.set_comprehension, "set comprehension",
     "vectorized NumPy operations"),
    ("walrus", C.walrus, "assignment expression (:=)", "Assign in a separate statement"),
    ("set-display", C.set_display, "set display", "Use a list or a tuple"),
    ("def-in-block", C.def_inside_block, "`def` inside a block", "Define helpers at the top"),
]

ARGS = {C.updates_argument: (ARRAY,), C.grows_the_list_it_walks: (ARRAY,),
        C.updates_shared: (ARRAY,), C.augments_shared: (ARRAY,),
        C.stores_rows_in_turn: (ARRAY,), C.augments_a_slot: (ARRAY,),
        C.assigns_a_list_slice: (ARRAY,),
        C.recursive: (1.5, 3), C.set_comprehension: (ARRAY,),
        C.calls_with_double_star: (ARRAY,), C.starred_assignment: (ARRAY,),
        C.sorts_argument: (ARRAY,), C.fills_argument: (ARRAY,),
        C.writes_argument_through_out: (ARRAY,), C.copies_into_argument: (ARRAY,),
        C.writes_argument_through_positional_out: (ARRAY,),
        C.appends_to_argument: ([1.0, 2.0],), C.unknown_call: (ARRAY,),
        C.returns_vector: (ARRAY,), C.returns_complex: (ARRAY,),
        C.changes_object_list: (ARRAY, C.Stacked()),
        C.object_list_escapes: (ARRAY, C.Stacked()),
        C.object_attributes_as_dict: (ARRAY, C.Stacked())}
ARGS.update({f: (ARRAY,) for f in (
    C.generator_call_changes, C.loop_changes_iterable, C.update_closure_read,
    C.update_kept_default, C.update_module_view, C.update_star_args)})


def call_gradient(func):
    args = [np.copy(a) if isinstance(a, np.ndarray) else a for a in ARGS.get(func, (1.0,))]
    return s2sad.grad(func)(*args)


@pytest.mark.parametrize("func, construct, fix", [
    pytest.param(func, construct, fix, id=key) for key, func, construct, fix in SYNTAX])
def test_refused_syntax(func, construct, fix):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        call_gradient(func)
    assert isinstance(info.value, SyntaxError)
    check_located(info.value, func, construct, fix)
    assert "^" in str(info.value)  # a caret under the construct


@pytest.mark.parametrize("func", [
    pytest.param(C.is_async, id="async-def"),
    pytest.param(C.uses_async_for, id="async-for"),
    pytest.param(C.uses_async_with, id="async-with"),
])
def test_async_functions_are_refused_when_the_gradient_is_made(func):
    """``async for`` and ``async with`` only exist in an ``async def``, refused as a whole."""
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(func)
    assert info.value.lineno == marked_line(func)
    assert "async def" in str(info.value) or "AsyncFunctionDef" in str(info.value)


def test_async_def_error_says_what_to_do():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(C.is_async)
    check_located(info.value, C.is_async, "`async def`", "synchronous")


# in-place updates of an argument through a method or `out=`: refused as `x[0] = ...` is
# (they used to mutate the caller's array and give a wrong gradient)
MUTATIONS = [
    ("sort-argument", C.sorts_argument, "'x'"),
    ("fill-argument", C.fills_argument, "'x'"),
    ("out-argument", C.writes_argument_through_out, "'x'"),
    ("out-argument", C.writes_argument_through_positional_out, "'x'"),
    ("copyto-argument", C.copies_into_argument, "'x'"),
    ("append-argument", C.appends_to_argument, "'xs'"),
]


@pytest.mark.parametrize("func, name", [
    pytest.param(func, name, id=key) for key, func, name in MUTATIONS])
def test_in_place_update_of_an_argument_through_a_call(func, name):
    args = [np.copy(a) if isinstance(a, np.ndarray) else list(a) for a in ARGS[func]]
    before = [np.copy(a) for a in args]
    try:
        with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
            s2sad.grad(func)(*args)
        check_located(info.value, func, f"in-place update of the argument {name}", "copy")
    finally:
        for a, b in zip(args, before, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("func, construct, fix", [
    pytest.param(C.sorts_a_local, "`y.sort(...)`, which changes 'y' in place",
                 "`y = np.sort(y)`", id="sort"),
    pytest.param(C.fills_a_local, "`y.fill(...)`, which changes 'y' in place",
                 "`y = np.full_like(y, v)`", id="fill"),
    pytest.param(C.writes_a_local_through_out, "`out=`, which changes 'y' in place",
                 "Assign the result instead", id="out"),
    pytest.param(C.writes_a_local_through_positional_out,
                 "`np.tanh(...)` with an output array after its inputs, which changes 'z' in "
                 "place", "`z = np.tanh(...)`", id="positional-out"),
    pytest.param(C.adds_at_into_a_local, "`np.add.at(y, ...)`, which changes 'y' in place",
                 "Make a new array", id="ufunc-at"),
    pytest.param(C.pops_a_local_list, "`ys.pop(...)`, which changes 'ys' in place",
                 "Build a new list", id="list-pop"),
    pytest.param(C.appends_to_a_list_another_holds,
                 "`a.append(...)` on a list that 'd' reaches too", "`a = a + [...]`",
                 id="append-held"),
    pytest.param(C.appends_to_an_alias, "`b.append(...)` on a list that 'a' reaches too",
                 "Append before the list is shared", id="append-alias"),
    pytest.param(C.appends_to_a_list_in_a_dict,
                 "`d['a'].append(...)`, which changes a value held in 'd' in place",
                 "Give the list a name of its own", id="append-in-dict"),
    pytest.param(C.sets_an_item_of_a_list_another_holds,
                 "an in-place update of 'a', which 'outer' reaches too", "Copy first",
                 id="setitem-held"),
])
def test_hidden_update(func, construct, fix):
    """Calls that change a value in place where the reverse sweep cannot see it are refused:
    they used to run, and the gradient ignored the change (a wrong gradient)."""
    scalar = (C.pops_a_local_list, C.appends_to_a_list_another_holds, C.appends_to_an_alias,
              C.appends_to_a_list_in_a_dict, C.sets_an_item_of_a_list_another_holds)
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(func)(np.array([3.0, 1.0, 2.0]) if func not in scalar else 0.5)
    check_located(info.value, func, construct, fix)


# --- calls without a derivative ---------------------------------------------------------------

def test_unknown_call():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        call_gradient(C.unknown_call)
    check_located(info.value, C.unknown_call, "no derivative rule for numpy.unwrap",
                  "s2sad.defvjp")
    assert "stop_gradient" in str(info.value)


def test_an_argument_the_rule_does_not_differentiate():
    """np.linalg.norm(x, ord=p) depends on p; its rule has no derivative in p: refused, in
    reverse and forward mode, never a zero derivative."""
    x = np.array([0.5, -1.2, 2.0])
    for derivative in (s2sad.grad, lambda f: (lambda v: s2sad.jvp(f)(v)[1](v))):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(C.norm_of_varying_order)(x)
        check_located(info.value, C.norm_of_varying_order,
                      "numpy.linalg.norm has no derivative with respect to its argument 'ord'",
                      "np.sum(np.abs(x) ** p) ** (1.0 / p)")
        assert "stop_gradient" in str(info.value)


@pytest.mark.parametrize("func, construct, fix", [
    (C.pad_in_an_unsupported_mode, "numpy.pad is differentiated with reflect_type 'even', "
     "not 'odd'", "Write the padding out with np.concatenate"),
    (C.einsum_with_sublists, "numpy.einsum is differentiated with subscripts a str, not an "
     "array", "np.einsum('ij,jk->ik', a, b)")], ids=["pad-mode", "einsum-sublists"])
def test_a_value_the_rule_is_not_written_for(func, construct, fix):
    x = np.array([[0.5, -1.2], [2.0, 0.3]])
    for derivative in (s2sad.grad, lambda f: (lambda v: s2sad.jvp(f)(v)[1](v))):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(func)(x)
        check_located(info.value, func, construct, fix)


def test_unknown_call_that_may_change_its_argument():
    """A function s2sad does not know (no rule, no facts, not inlined) given a value the
    gradient follows: it may change it in place, or return it, unseen."""
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(C.unknown_call_may_change)(np.copy(ARRAY))
    check_located(info.value, C.unknown_call_may_change,
                  "rng.shuffle(...) is given 'y', which the gradient follows",
                  "Give it a copy (rng.shuffle(y.copy(), ...))")


def test_call_of_a_function_without_source():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        call_gradient(C.calls_function_without_source)
    check_located(info.value, C.calls_function_without_source, "made_by_exec", "s2sad.defvjp")


def test_unknown_call_on_an_expression_names_no_generated_variable():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        call_gradient(C.unknown_user_callable)
    check_located(info.value, C.unknown_user_callable, "statistics.fmean", "s2sad.defvjp")
    assert not re.search(r"\b[ts]_\d+\b", str(info.value)), str(info.value)


def test_index_into_an_object_not_modeled():
    for derivative in (s2sad.grad, s2sad.jvp):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(C.indexes_mgrid)(1.0)
        check_located(info.value, C.indexes_mgrid, "no derivative rule for indexing np.mgrid",
                      "np.arange")


def test_operator_on_an_object_not_modeled():
    for derivative in (s2sad.grad, s2sad.jvp):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(C.multiplies_a_matrix)(np.ones(2))
        check_located(info.value, C.multiplies_a_matrix,
                      "no derivative rule for the operator * on MATRIX", "np.asarray")


def test_call_given_data_not_modeled():
    for derivative in (s2sad.grad, s2sad.jvp):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(C.dots_a_matrix)(np.ones(2))
        check_located(info.value, C.dots_a_matrix,
                      "no derivative rule for numpy.dot given MATRIX (a numpy.matrix)",
                      "np.asarray")


def test_r_or_c_in_a_form_not_written_out():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(C.joins_with_a_directive)(np.ones(2))
    check_located(info.value, C.joins_with_a_directive, "np.r_[...] with a directive string",
                  "np.concatenate")


def test_dict_display_with_computed_keys():
    for derivative in (s2sad.grad, s2sad.jvp):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(C.dict_with_computed_keys)(1.0)[1](1.0) if derivative is s2sad.jvp \
                else derivative(C.dict_with_computed_keys)(1.0)
        check_located(info.value, C.dict_with_computed_keys,
                      "a dict display whose keys are not written out", "Write the keys out")


def test_cast_to_a_dtype_s2sad_cannot_read():
    for derivative in (s2sad.grad, s2sad.jvp):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(C.cast_to_a_variable_dtype)(ARRAY, int)
        check_located(info.value, C.cast_to_a_variable_dtype,
                      "with a dtype s2sad cannot read, called on 'x'",
                      "Write it so, or cast the result after the call")


def test_store_into_an_array_of_unknown_dtype():
    for derivative in (s2sad.grad, s2sad.jvp):
        with pytest.raises(s2sad.NoDerivativeError) as info:
            derivative(C.store_into_a_global_copy)(ARRAY)
        check_located(info.value, C.store_into_a_global_copy,
                      "stored into z, an array whose dtype s2sad cannot establish",
                      "Make the array in the function with a dtype s2sad reads")


def test_a_dataclass_argument_is_differentiated_with_respect_to_its_fields():
    g = s2sad.grad(C.uses_dataclass)(C.DataParams(np.ones(2)))  # (refused before)
    assert type(g) is C.DataParams
    np.testing.assert_array_equal(g.W, [2.0, 2.0])


def test_a_string_argument_is_refused_at_the_call():
    with pytest.raises(TypeError, match=r"with respect to 'x': it holds a value that is not "
                                        r"a number \(a string, None, an object...\)"):
        s2sad.grad(C.fine)("a")


def test_builtin_max_of_one_list_with_a_default_says_what_to_write():
    with pytest.raises(s2sad.DifferentiationError) as info:
        s2sad.grad(C.max_of_a_list)([0.3, 0.9])
    check_located(info.value, C.max_of_a_list, "max is called in a way its derivative rule",
                  "write np.max(xs)")


def test_unknown_user_callable_is_located():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        call_gradient(C.unknown_user_callable)
    check_located(info.value, C.unknown_user_callable, "fmean", "s2sad.defvjp")


# --- names ------------------------------------------------------------------------------------

def test_undefined_name():
    with pytest.raises(s2sad.DifferentiationError) as info:
        call_gradient(C.undefined_name)
    check_located(info.value, C.undefined_name, "name 'not_defined_anywhere' is not defined",
                  "Define it in the function's module or pass it in")


def test_undefined_module_attribute():
    with pytest.raises(s2sad.DifferentiationError) as info:
        call_gradient(C.undefined_module_attribute)
    check_located(info.value, C.undefined_module_attribute, "np.not_a_numpy_function",
                  "not defined")


# --- functions s2sad cannot read: NoSourceError at grad() -------------------------------------

def test_function_made_by_exec():
    with pytest.raises(s2sad.NoSourceError) as info:
        s2sad.grad(C.made_by_exec)
    err = info.value
    assert "cannot read the source of 'made_by_exec'" in str(err)
    assert err.filename == "<string>" and err.lineno == 1
    assert "define the function in a .py file" in str(err)


def test_function_typed_at_a_repl():
    namespace: dict = {}
    code = compile("def typed(x):\n    return x * 2.0\n", "<stdin>", "exec")
    exec(code, namespace)  # noqa: S102
    with pytest.raises(s2sad.NoSourceError) as info:
        s2sad.grad(namespace["typed"])
    assert 'File "<stdin>", line 1' in str(info.value)
    assert "REPL" in str(info.value) and "define the function in a .py file" in str(info.value)


@pytest.mark.parametrize("func, shown", [
    pytest.param(len, "builtin_function_or_method", id="builtin"),
    pytest.param(np.sin, "ufunc", id="ufunc"),
    pytest.param(functools.partial(C.two_arguments, 2.0), "partial", id="partial"),
    pytest.param(C.Model(), "Model", id="callable-object"),
])
def test_callables_that_are_not_python_functions(func, shown):
    with pytest.raises(s2sad.NoSourceError) as info:
        s2sad.grad(func)
    message = str(info.value)
    assert "can only differentiate Python functions" in message and shown in message
    assert "Wrap it in a `def`" in message


def test_lambda_passed_directly():
    """(It was refused.) The lambda's source is the one lambda at its line with its
    parameters; among two on a line, the one whose body holds its code's column."""
    assert s2sad.grad(lambda x: x * 2.0)(1.0) == 2.0
    pair = (lambda x: x * 3.0, lambda x: x * 5.0)
    if sys.version_info >= (3, 11):  # (a code object's columns: co_positions, Python 3.11)
        assert (s2sad.grad(pair[0])(1.0), s2sad.grad(pair[1])(1.0)) == (3.0, 5.0)
    else:  # (without them, two lambdas on a line are told apart by nothing: refused)
        with pytest.raises(s2sad.NoSourceError, match="cannot tell this lambda"):
            s2sad.grad(pair[0])
    assert s2sad.grad(C.module_lambda_caller)(0.5) == pytest.approx(2.0 * (1.0 - np.sin(0.5)))


def test_a_lambda_that_cannot_be_told_apart_is_refused(monkeypatch):
    from s2sad import source
    monkeypatch.setattr(source, "_lambda_tree", lambda func, filename: None)
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(s2sad.NoSourceError) as info:
        s2sad.grad(lambda x: x * 7.0)
    assert "cannot tell this lambda" in str(info.value)
    assert "Give it a name with `def`" in str(info.value)
    assert info.value.filename == __file__ and info.value.lineno == line


def test_bound_method_is_differentiated_with_its_object_as_a_constant():
    """(It was refused.) ``s2sad.grad(model.loss)`` is the gradient of ``Model.loss``
    with respect to ``x``, ``self`` passed first."""
    g = s2sad.grad(C.Model().loss)
    assert g(2.0) == 3.0 and s2sad.grad(g)(2.0) == 0.0
    assert "def grad_loss(self, x):" in g.source_for(2.0)


# --- outputs ----------------------------------------------------------------------------------

OUTPUTS = [
    ("output-array", C.returns_vector, "an array of shape (3,)", "Reduce it"),
    ("output-tuple", C.returns_tuple, "returned tuple", "Return a float"),
    ("output-string", C.returns_string, "returned str", "Return a float"),
    ("output-complex", C.returns_complex, "returned a complex number", "holomorphic=True"),
]


@pytest.mark.parametrize("func, what, fix", [
    pytest.param(func, what, fix, id=key) for key, func, what, fix in OUTPUTS])
def test_non_scalar_output(func, what, fix):
    with pytest.raises(s2sad.NonScalarOutputError) as info:
        call_gradient(func)
    message = str(info.value)
    assert "grad needs a function that returns a scalar" in message and what in message
    assert fix in message and "s2sad.vjp" in message


@pytest.mark.parametrize("func", [pytest.param(func, id=key) for key, func, _, _ in OUTPUTS])
def test_non_scalar_output_is_located(func):
    with pytest.raises(s2sad.NonScalarOutputError) as info:
        call_gradient(func)
    assert info.value.filename == C.__file__ and info.value.lineno == marked_line(func)


# --- wrt: refused when the gradient is made ---------------------------------------------------

@pytest.mark.parametrize("wrt, error, words", [
    pytest.param(2, s2sad.DifferentiationError, ["wrt=2 is out of range", "2 arguments (x, y)"],
                 id="wrt-out-of-range"),
    pytest.param(-3, s2sad.DifferentiationError, ["wrt=-3 is out of range"],
                 id="wrt-negative-out-of-range"),
    pytest.param("z", s2sad.DifferentiationError,
                 ["wrt='z' is not an argument of two_arguments", "its arguments are x, y"],
                 id="wrt-unknown-name"),
    pytest.param(1.0, TypeError, ["wrt must be argument indices or names, got 1.0"],
                 id="wrt-float"),
    pytest.param(True, TypeError, ["got True"], id="wrt-bool"),
    pytest.param((), s2sad.DifferentiationError, ["wrt is empty", "two_arguments"],
                 id="wrt-empty"),
])
def test_bad_wrt(wrt, error, words):
    with pytest.raises(error) as info:
        s2sad.grad(C.two_arguments, wrt=wrt)
    for word in words:
        assert word in str(info.value)


def test_wrt_of_star_parameters_counts_the_arguments_a_call_passes():
    """``*xs`` takes as many as the call passes: wrt=2 is read then, not when the
    gradient is made (s2sad/spread.py)."""
    gradient = s2sad.grad(C.has_star_args, wrt=2)
    with pytest.raises(s2sad.DifferentiationError) as info:
        gradient(1.0, 2.0)
    assert "wrt=2 is out of range: this call of has_star_args passes 2 positional " \
        "arguments" in str(info.value)
    assert gradient(1.0, 2.0, 3.0) == 0.0
    assert s2sad.grad(C.has_star_args, wrt=0)(1.0, 2.0) == 2.0
    assert s2sad.grad(C.has_star_kwargs)(1.5, scale=2.0) == 2.0


@pytest.mark.parametrize("make", [
    pytest.param(lambda f: s2sad.jacobian(s2sad.jacobian(s2sad.jacobian(f))),
                 id="jacobian-of-jacobian-of-jacobian"),
    pytest.param(lambda f: s2sad.grad(s2sad.jacobian(f)), id="grad-of-jacobian"),
    pytest.param(lambda f: s2sad.jvp(s2sad.jacobian(f)), id="jvp-of-jacobian"),
    pytest.param(lambda f: s2sad.jacobian(s2sad.hessian(f)), id="jacobian-of-hessian"),
    pytest.param(lambda f: s2sad.grad(s2sad.hvp(f)), id="grad-of-hvp"),
])
def test_derivative_of_jacobian(make):
    """(Once a refusal of the ``*args`` of a function in s2sad's own api.py.)"""
    with pytest.raises(s2sad.DifferentiationError) as info:
        make(C.two_arguments)
    message = str(info.value)
    assert "s2sad computes by calling the derivatives it compiled" in message, message
    assert "s2sad.jacobian(s2sad.grad(f))" in message, message


def test_a_checkpointed_function_is_differentiated_as_itself():
    checkpointed = s2sad.checkpoint(C.two_arguments)
    assert s2sad.grad(checkpointed, wrt=1)(3.0, 2.0) == 3.0


# --- the arguments of the gradient function, refused at the call ------------------------------

@pytest.mark.parametrize("args, kwargs, words", [
    pytest.param((1.0,), {}, ["grad_two_arguments()", "missing a required argument: 'y'"],
                 id="too-few-arguments"),
    pytest.param((1.0, 2.0, 3.0), {}, ["grad_two_arguments()", "too many positional"],
                 id="too-many-arguments"),
    pytest.param((1.0, 2.0), {"z": 1.0}, ["unexpected keyword argument 'z'"],
                 id="unknown-keyword"),
    pytest.param((1.0,), {"x": 2.0}, ["multiple values for argument 'x'"],
                 id="duplicate-argument"),
])
def test_wrong_call_of_the_gradient(args, kwargs, words):
    with pytest.raises(TypeError) as info:
        s2sad.grad(C.two_arguments)(*args, **kwargs)
    for word in words:
        assert word in str(info.value)
    assert not from_generated_code(info.value)


def test_wrong_call_of_source_for():
    with pytest.raises(TypeError, match=r"grad_two_arguments\.source_for\(\): too many"):
        s2sad.grad(C.two_arguments).source_for(1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match=r"grad_two_arguments\.stages\(\): missing"):
        s2sad.grad(C.two_arguments).stages(1.0)


@pytest.mark.parametrize("value, shown", [
    pytest.param(3, "(int)", id="integer-argument"),
    pytest.param(np.arange(3), "(an integer array)", id="integer-array-argument"),
    pytest.param(np.array([True, False]), "(a boolean array)", id="boolean-array-argument"),
    pytest.param([1, 2], "(a container with integers)", id="integer-list-argument"),
])
def test_integer_wrt_argument(value, shown):
    with pytest.raises(TypeError) as info:
        s2sad.grad(C.fine)(value)
    message = str(info.value)
    assert "cannot differentiate fine with respect to 'x': it holds integers" in message
    assert shown in message and "pass floats" in message
    assert not from_generated_code(info.value)


@pytest.mark.parametrize("value", [
    pytest.param(1j, id="complex-argument"),
    pytest.param(np.array([1.0 + 2.0j]), id="complex-array-argument"),
    pytest.param([1.0, 2.0j], id="complex-list-argument"),
])
def test_complex_argument_is_differentiated(value):
    # (once refused: "holds complex numbers"; now autograd's convention, tests/test_complex.py)
    def square_modulus(x):
        return np.sum(np.abs(np.asarray(x)) ** 2)
    got = s2sad.grad(square_modulus)(value)
    np.testing.assert_allclose(np.asarray(got), 2.0 * np.conj(np.asarray(value)))


@pytest.mark.parametrize("value", [
    pytest.param("abc", id="string"), pytest.param(None, id="none"),
    pytest.param({"a": 1.0}, id="dict"),  # a structure s2sad differentiates, but not one
    # the function can do arithmetic on: refused at the call, with the line
    pytest.param(object(), id="object"),
    pytest.param(np.array(["a", "b"]), id="string-array"),
    pytest.param(np.array([1.0, None]), id="object-array"),
])
def test_non_numeric_wrt_argument(value):
    with pytest.raises(TypeError) as info:
        s2sad.grad(C.fine)(value)
    assert "'x'" in str(info.value) and "fine" in str(info.value)
    assert not from_generated_code(info.value)


# --- debug_nans -------------------------------------------------------------------------------

def test_nan_or_infinity_with_debug_nans():
    from s2sad.runtime.debug import NonFiniteError
    with np.errstate(all="ignore"), pytest.raises(NonFiniteError) as info:
        s2sad.grad(C.log_of, debug_nans=True)(np.array([0.0, 1.0]))
    err = info.value
    assert isinstance(err, FloatingPointError)
    check_located_nan(err, C.log_of, "infinity made by the generated statement")
    # the gradient does not need log(x) itself, but debug_nans computes it (its dead code
    # stays): the first infinity is the function's own value, log(0), before 1/x
    assert err.statement in str(err) and "np.log(x)" in err.statement
    with np.errstate(all="ignore"), pytest.raises(NonFiniteError) as info:
        s2sad.value_and_grad(C.log_of, debug_nans=True)(np.array([0.0, 1.0]))
    check_located_nan(info.value, C.log_of, "infinity made by the generated statement")
    assert "np.log(x)" in info.value.statement


def test_nan_in_an_argument_with_debug_nans():
    from s2sad.runtime.debug import NonFiniteError
    with pytest.raises(NonFiniteError) as info:
        s2sad.grad(C.log_of, debug_nans=True)(np.array([np.nan, 1.0]))
    assert "the argument 'x' already holds a NaN" in str(info.value)
    assert info.value.lineno == inspect.getsourcelines(C.log_of)[1]


def check_located_nan(err, func, what: str) -> None:
    message = str(err)
    assert what in message
    assert err.filename == C.__file__ and err.lineno == marked_line(func)
    assert f'File "{C.__file__}", line {err.lineno}' in message and "# <- here" in message
    assert "stop_gradient" in message  # what to do


# --- the catalogue and its tests stay in step -------------------------------------------------

def test_every_entry_is_tested():
    """Every ``### `id` `` heading of docs/errors.md is the id of a test here, and back."""
    documented = set(re.findall(r"^### `([a-z0-9-]+)`", DOC.read_text(), flags=re.MULTILINE))
    tested = {key for key, *_ in SYNTAX + MUTATIONS + OUTPUTS} | {
        "async-def", "async-for", "async-with", "unknown-call", "call-without-source",
        "no-derivative-in-argument", "unsupported-argument-value",
        "unknown-call-on-expression", "dict-computed-keys", "dtype-unread", "dtype-unknown-store",
        "undefined-name",
        "undefined-module-attribute", "exec",
        "repl", "builtin", "ufunc", "partial", "callable-object", "lambda-directly",
        "wrt-out-of-range", "wrt-negative-out-of-range", "wrt-unknown-name",
        "wrt-float", "wrt-bool", "wrt-empty", "too-few-arguments", "too-many-arguments",
        "unknown-keyword", "duplicate-argument", "integer-argument",
        "non-numeric-argument",
        "nan-or-infinity", "hidden-update", "derivative-of-jacobian", "custom-vjp-form",
        "update-module-view"} | {
        "index-not-modeled", "operator-not-modeled", "r-c-form", "unknown-call-may-change",
        "call-not-modeled", "generator-use", "generator-other-module"}
    assert documented == tested, (sorted(documented - tested), sorted(tested - documented))


@pytest.mark.parametrize("func, construct, fix", [
    pytest.param(C.uses_a_generator_otherwise, "a generator of yours (pairs) used other than",
                 "items = list(gen(...))", id="generator-use"),
    pytest.param(C.loops_over_another_modules_generator,
                 "a generator of another module (steps), looped over",
                 "Define the generator in the module", id="generator-other-module")])
def test_generators_written_out_or_refused(func, construct, fix):
    with pytest.raises(s2sad.DifferentiationError) as info:
        call_gradient(func)
    check_located(info.value, func, construct, fix)


# --- debug_nans, beyond the catalogue entry ---------------------------------------------------

@pytest.mark.parametrize("func, args, what, statement", [
    pytest.param(C.sqrt_of, (0.0,), "infinity", "/ y", id="sqrt-at-0"),
    pytest.param(C.sqrt_of, (-1.0,), "NaN", "np.sqrt(x)", id="sqrt-of-negative"),
    pytest.param(C.log_of, (np.zeros(2),), "infinity", "np.log(x)", id="log-at-0"),
    pytest.param(C.divide, (np.ones(2), np.zeros(2)), "infinity", "x / d", id="divide-by-0"),
    pytest.param(C.overflows_in_a_loop, (2.0,), "infinity", "y * y", id="overflow-in-loop"),
])
def test_debug_nans_names_the_statement_and_the_line(func, args, what, statement):
    from s2sad.runtime.debug import NonFiniteError
    with np.errstate(all="ignore"), pytest.raises(NonFiniteError) as info:
        s2sad.grad(func, debug_nans=True)(*args)
    err = info.value
    assert err.what == what and statement in err.statement
    check_located_nan(err, func, f"{what} made by the generated statement")
    assert "<s2sad grad_" in str(err)  # and where in the generated code


def test_debug_nans_changes_no_result():
    args = (np.array([0.5, 1.5]),)
    plain = s2sad.grad(C.log_of)
    checked = s2sad.grad(C.log_of, debug_nans=True)
    np.testing.assert_array_equal(plain(*args), checked(*args))
    assert "check_finite" not in plain.source and "check_finite" in checked.source
    names = [name for name, _ in checked.stages(*args)]
    assert "nan_check" in names and "nan_check" not in [n for n, _ in plain.stages(*args)]
    assert "dead_code" not in names  # (the values nothing reads are checked too)
    both = s2sad.value_and_grad(C.sqrt_of, debug_nans=True)
    assert both(4.0) == s2sad.value_and_grad(C.sqrt_of)(4.0) == (4.0, 0.5)


def test_debug_nans_checks_every_assignment():
    import ast

    def can_hold_nan(stmt) -> bool:
        if isinstance(stmt, ast.AugAssign):
            return not isinstance(stmt.value, ast.Constant)
        if not isinstance(stmt, ast.Assign):
            return False
        value = stmt.value
        if isinstance(value, (ast.Constant, ast.Compare, ast.List, ast.Tuple)):
            return False
        if isinstance(value, ast.BinOp) and isinstance(value.left, ast.List):
            return False  # [0.0] * n
        return not (isinstance(value, ast.Call) and getattr(value.func, "attr", "") == "pop")

    text = s2sad.grad(C.overflows_in_a_loop, debug_nans=True, optimize=False).source_for(2.0)
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for stmt, after in zip(body, body[1:] + [None]):
            if can_hold_nan(stmt):
                assert after is not None and "check_finite" in ast.unparse(after), \
                    ast.unparse(stmt)


@pytest.mark.parametrize("value, what", [
    (1.0, None), (np.float32(np.inf), "infinity"), (float("nan"), "NaN"), (3, None),
    (np.array([1.0, np.nan]), "NaN"), (np.array([np.inf, np.nan]), "NaN"),
    (np.arange(3), None), ([1.0, (2.0, float("inf"))], "infinity"), ({"a": np.nan}, "NaN"),
    (None, None), ("text", None), (complex(0.0, np.inf), "infinity"), (np.array([1 + 2j]), None),
])
def test_check_finite_on_every_kind_of_value(value, what):
    from s2sad.runtime.debug import NonFiniteError, check_finite
    if what is None:
        check_finite(value, "v = ...", None, None)
    else:
        with pytest.raises(NonFiniteError, match=what):
            check_finite(value, "v = ...", None, None)


def _clipped(x):
    return x


def test_custom_vjp_form():
    """``@s2sad.custom_vjp`` over the function itself, as JAX's is: the call of what it
    bound says how s2sad's rules are written (the rule under the decorator)."""
    decorated = s2sad.custom_vjp(_clipped)
    with pytest.raises(TypeError, match=r"(?s)decorates the rule of _clipped.*"
                       r"@s2sad.custom_vjp\(_clipped\)"):
        decorated(ARRAY.copy())


def test_update_module_view():
    """``v = BUFFER[:2]; v += w``: refused where the update runs (``v`` may be a NumPy
    number, which ``+=`` only rebinds), located at the user's line, before the update."""
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        call_gradient(C.update_module_view)
    message = str(info.value)
    assert "shared with the module's 'BUFFER'" in message and "`v = v.copy()`" in message
    assert info.value.lineno == marked_line(C.update_module_view), message
    assert "# <- here" in message
    np.testing.assert_array_equal(C.BUFFER, np.zeros(3))  # (nothing changed)
