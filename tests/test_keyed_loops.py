"""A loop over a dict or a dict's view reached through a name the kinds do not know walks
``list(E)``, as Python does: walked by index, ``E[i]`` read the value at key ``i``.

Before: ``E = D; for k in E`` (``D`` a module's dict) gave 11.0 for 1.0 (the values of
keys 0 and 1 taken for the keys), a view failed with ``TypeError``, and a module's list
rebound to a dict after the build failed (``KeyError``) or gave a wrong number: the
build notes the type of a global a loop walks, and another type builds again.
"""

import types
import warnings

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences

KEYED = {1: 10.0, 0: 1.0}
AGAIN = {0: 3.0, 2: 5.0}
ELSEWHERE = types.SimpleNamespace(D=KEYED)
ROWS = [1.0, 2.0]


def an_alias(x):
    E = KEYED
    t = 0.0
    for k in E:
        t = t + x * k
    return t


def a_chosen_alias(x):
    E = KEYED if x > 0 else AGAIN
    t = 0.0
    for k in E:
        t = t + x * k * E[k]
    return t


def a_modules_attribute(x):
    E = ELSEWHERE.D
    t = 0.0
    for k in E:
        t = t + np.sin(x * k)
    return t


def a_keys_view(x):
    E = KEYED.keys()
    t = 0.0
    for k in E:
        t = t + x * k
    return t


def a_values_view(x):
    E = KEYED.values()
    t = 0.0
    for v in E:
        t = t + x * v
    return t


def an_items_view(x):
    E = KEYED.items()
    t = 0.0
    for k, v in E:
        t = t + x ** 2 * k * v
    return t


def a_merged_dict(x):
    E = {**KEYED, 2: 4.0}
    t = 0.0
    for k in E:
        t = t + x * k * E[k]
    return t


class Holder:
    def __init__(self):
        self.d = {1: 10.0, 0: 1.0}

    def __call__(self, x):
        E = self.d
        t = 0.0
        for k in E:
            t = t + x * k
        return t


CASES = [an_alias, a_chosen_alias, a_modules_attribute, a_keys_view, a_values_view,
         an_items_view, a_merged_dict, Holder()]


@pytest.mark.parametrize("func", CASES, ids=lambda f: getattr(f, "__name__", "Holder"))
@pytest.mark.parametrize("x", [1.0, -0.7])
def test_a_loop_over_an_alias_of_a_dict_walks_its_keys(func, x):
    expected = central_differences(func, (x,), 0)
    np.testing.assert_allclose(s2sad.grad(func)(x), expected, rtol=1e-6)


def test_the_exact_values():
    """The keys 1 and 0: 1.0, not 11.0 (the values at keys 0 and 1)."""
    assert s2sad.grad(an_alias)(1.0) == 1.0
    assert s2sad.grad(a_values_view)(1.0) == 11.0
    assert s2sad.grad(Holder())(2.0) == 1.0


@pytest.mark.parametrize("func", [an_alias, a_keys_view])
def test_forward_mode_walks_the_keys_too(func):
    value, push = s2sad.jvp(func)(1.0)
    assert value == func(1.0) and push(1.0) == 1.0


def a_parameter(x, E):
    t = 0.0
    for k in E:
        t = t + x * k
    return t


def test_a_dict_argument_walks_its_keys():
    assert s2sad.grad(a_parameter, wrt=(0,))(1.0, {1: 10.0, 0: 1.0}) == (1.0,)


def over_rows(x):
    t = 0.0
    for k in ROWS:
        t = t + x * k
    return t


def test_a_modules_dict_rebound_to_a_list_after_the_build():
    global ROWS
    ROWS = {1: 10.0, 0: 1.0}
    try:
        g = s2sad.grad(over_rows)
        assert g(1.0) == 1.0
        ROWS = [10.0, 1.0]
        assert g(1.0) == 11.0
    finally:
        ROWS = [1.0, 2.0]


def test_a_modules_list_rebound_to_a_dict_after_the_build():
    """The build noted the list's type: a dict at a later call builds again (before: walked
    by index, ``ROWS[i]`` read the values of keys 0 and 1, 11.0 for 1.0)."""
    global ROWS
    try:
        g, j = s2sad.grad(over_rows), s2sad.jvp(over_rows)
        assert g(1.0) == 3.0 and j(1.0)[1](1.0) == 3.0
        ROWS = {1: 10.0, 0: 1.0}
        assert g(1.0) == 1.0 and j(1.0)[1](1.0) == 1.0
        ROWS = (4.0, 5.0)
        assert g(1.0) == 9.0
        ROWS = [10.0, 1.0]
        assert g(1.0) == 11.0
    finally:
        ROWS = [1.0, 2.0]


def closure_over(rows):
    def over(x):
        t = 0.0
        for k in rows:
            t = t + x * k
        return t
    return over


def test_a_closures_list_rebound_to_a_dict_after_the_build():
    rows = [1.0, 2.0]
    func = closure_over(rows)
    g = s2sad.grad(func)
    assert g(1.0) == 3.0
    func.__closure__[0].cell_contents = {1: 10.0, 0: 1.0}
    assert g(1.0) == 1.0


with warnings.catch_warnings():   # np.matrix warns at its creation
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    MATRIX = np.matrix([[1.0, 2.0], [3.0, 4.0]])


def the_rows_of_a_matrix(x):
    E = MATRIX
    t = 0.0
    for r in E:
        t = t + x * np.sum(r)
    return t


def a_matrix_argument(y, M):
    t = 0.0
    for r in M:
        t = t + np.sum(r * y)
    return t


@pytest.mark.parametrize("func, args", [
    (a_matrix_argument, (np.array([[1.0], [2.0]]), MATRIX)), (the_rows_of_a_matrix, (0.3,))])
def test_a_matrix_walked_stays_refused_with_a_differentiated_operand(func, args):
    """Its rows are matrices (``*`` their product): refused at the line, walked or not."""
    with pytest.raises(s2sad.NoDerivativeError, match="not a number or a NumPy array") as e:
        s2sad.grad(func)(*args)
    assert e.value.lineno == func.__code__.co_firstlineno + 4 - (func is a_matrix_argument)
