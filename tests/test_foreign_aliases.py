"""Values from outside the function reached through a local alias see the same facts as
the name itself: ``E = S``, ``E = mod.S``, ``E = self.s``, ``E = S if c else T``,
``E, F = S, T``, a helper's parameter, a name given it in a loop.

Before:
- ``E = S; for k in E`` (``S`` a module's set of numbers) failed with a TypeError from
  the generated code, and ``for k in S`` was refused (its items taken for data of a class
  s2sad does not model: they are numbers).
- ``E = M; for m in E`` (``M`` a module's list of ``np.matrix``) differentiated ``*`` as
  NumPy's elementwise product: a ValueError from the generated code, or a wrong number.
- ``E = MATRIX if c else ARRAY`` lost the matrix (the kinds' join kept neither fact).
- A loop over a module's dict's ``values()`` was walked by index (TypeError).
- A module's generator failed with TypeError (``len`` of it) instead of a refusal.
- Sets and deques of complex numbers were built with the real rules (TypeError).
- A module's list given an ``np.matrix`` after the build was not built again.
"""

import collections
import types
import warnings

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences

NUMBERS = {1, 3, 5}
FROZEN = frozenset({1.0, 3.0, 5.0})
QUEUE = collections.deque([1.0, 3.0, 5.0])
ORDERED = collections.OrderedDict([(1, 10.0), (5, 1.0), (3, 2.0)])
COUNTS = collections.Counter({1: 2, 5: 1, 3: 4})
DEFAULTS = collections.defaultdict(float, {5: 1.0, 1: 2.0, 3: 4.0})
VALUES = {0: 1.0, 1: 5.0, 2: 3.0}.values()
ELSEWHERE = types.SimpleNamespace(S=NUMBERS)

with warnings.catch_warnings():
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    MATRIX = np.matrix([[1.0, 2.0]])
MATRICES = [MATRIX]
MASKED = [np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])]
QUEUED_MATRICES = collections.deque([MATRIX])
KEYED_MATRICES = {0: MATRIX, 2: MATRIX}
ROW = np.array([[1.0, 2.0]])
COLUMN = np.array([[1.0], [2.0]])


def line_of(func, text: str) -> int:
    """The line of ``func``'s source that holds ``text``."""
    import inspect
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


# --- a module's set (and other containers of numbers walked by a loop) --------------------

def an_alias(x):
    E = NUMBERS
    t = 0.0
    for k in E:
        if k > 4:
            t = t + x * k
    return t


def the_name_itself(x):
    t = 0.0
    for k in NUMBERS:
        if k > 4:
            t = t + x * k
    return t


def a_modules_attribute(x):
    E = ELSEWHERE.S
    t = 0.0
    for k in E:
        t = t + np.sin(x * k)
    return t


def a_chosen_alias(x):
    E = NUMBERS if x > 0 else FROZEN
    t = 0.0
    for k in E:
        t = t + x * x * k
    return t


def an_unpacked_alias(x):
    E, F = NUMBERS, 2.0
    t = 0.0
    for k in E:
        t = t + x * k * F
    return t


def an_alias_of_an_alias(x):
    F = NUMBERS
    E = F
    return sum(x * k for k in E)


def a_comprehension(x):
    E = NUMBERS
    return sum([x ** 2 * k for k in E if k > 1])


def walk(E, x):
    t = 0.0
    for i, k in enumerate(E):
        t = t + x * k * i
    return t


def a_helpers_parameter(x):
    return walk(NUMBERS, x) + walk(QUEUE, x)


def rebound_in_a_loop(x):
    t = 0.0
    for j in range(2):
        E = NUMBERS
        for k in E:
            t = t + x * k * j
        E = FROZEN
    return t


def builtins_over_an_alias(x):
    E = NUMBERS
    return x * len(E) + x * sum(E) + x * max(E) + x * sorted(E)[0] + (x if 3 in E else 0.0)


def zipped(x):
    E = NUMBERS
    t = 0.0
    for a, b in zip(E, sorted(E)):
        t = t + x * a * b
    return t


def a_frozenset(x):
    E = FROZEN
    return sum(x * k for k in E)


def a_deque(x):
    E = QUEUE
    return sum(x * k for k in E) + x * E[1]


def an_ordered_dict(x):
    E = ORDERED
    t = 0.0
    for k in E:
        t = t + x * k * E[k]
    return t


def a_counter(x):
    E = COUNTS
    t = 0.0
    for k in E:
        t = t + x * k * E[k]
    return t


def a_defaultdict(x):
    E = DEFAULTS
    t = 0.0
    for k in E:
        t = t + x * k * E[k]
    return t


def a_dicts_values(x):
    t = 0.0
    for v in VALUES:
        t = t + x * v
    return t


def a_dict_of_matrices_keys(x):
    E = KEYED_MATRICES
    t = 0.0
    for k in E:
        t = t + x * k
    return t


def closure(values):
    def over(x):
        E = values
        t = 0.0
        for k in E:
            t = t + x * k
        return t
    return over


NUMBER_CASES = [an_alias, the_name_itself, a_modules_attribute, a_chosen_alias,
                an_unpacked_alias, an_alias_of_an_alias, a_comprehension, a_helpers_parameter,
                rebound_in_a_loop, builtins_over_an_alias, zipped, a_frozenset, a_deque,
                an_ordered_dict, a_counter, a_defaultdict, a_dicts_values,
                a_dict_of_matrices_keys, closure(NUMBERS), closure(VALUES)]


def _name(func):
    return getattr(func, "__name__", type(func).__name__)


@pytest.mark.parametrize("func", NUMBER_CASES, ids=_name)
@pytest.mark.parametrize("x", [0.7, -1.3])
def test_an_alias_of_a_modules_numbers_is_differentiated(func, x):
    expected = central_differences(func, (x,), 0)
    np.testing.assert_allclose(s2sad.grad(func)(x), expected, rtol=1e-6)


@pytest.mark.parametrize("func", [an_alias, a_deque, a_dicts_values, a_helpers_parameter],
                         ids=_name)
def test_forward_mode_alike(func):
    value, push = s2sad.jvp(func)(0.7)
    assert value == pytest.approx(func(0.7))
    assert push(1.0) == pytest.approx(central_differences(func, (0.7,), 0), rel=1e-6)


def test_the_reproducers_exact_value():
    assert s2sad.grad(an_alias)(2.0) == 5.0
    assert s2sad.grad(the_name_itself)(2.0) == 5.0


class Holder:
    """A set in an argument's attribute: its description says a set, not what it holds
    (the same description at a later call may hold anything), so its items are refused
    where a derivative needs them, through the alias as through the attribute."""

    def __init__(self):
        self.s = NUMBERS

    def __call__(self, x):
        E = self.s
        t = 0.0
        for k in E:
            t = t + x * k
        return t

    def directly(self, x):
        t = 0.0
        for k in self.s:
            t = t + x * k
        return t


def an_attributes_set(holder, x):
    return holder(x)


def an_attributes_set_directly(holder, x):
    return holder.directly(x)


@pytest.mark.parametrize("func", [an_attributes_set, an_attributes_set_directly], ids=_name)
def test_an_arguments_set_is_refused_alike_through_an_alias(func):
    with pytest.raises(s2sad.NoDerivativeError, match="not a number or a NumPy array") as e:
        s2sad.grad(func, wrt=1)(Holder(), 0.7)
    assert e.value.lineno == line_of(Holder, "t = t + x * k") or \
        e.value.lineno == line_of(Holder.directly, "t = t + x * k")


# --- foreign data through an alias: refused at the line, as through the name --------------

def a_list_of_matrices(x):
    E = MATRICES
    t = 0.0
    for m in E:
        t = t + np.sum(m * x)
    return t


def a_list_of_matrices_directly(x):
    t = 0.0
    for m in MATRICES:
        t = t + np.sum(m * x)
    return t


def a_list_of_matrices_item(x):
    E = MATRICES
    m = E[0]
    return np.sum(m * (x * COLUMN))


def a_list_of_matrices_in_a_helper(x):
    return walk_matrices(MATRICES, x)


def walk_matrices(E, x):
    t = 0.0
    for m in E:
        t = t + np.sum(m * (x * COLUMN))
    return t


def a_list_of_matrices_as_list(x):
    E = list(MATRICES)
    return np.sum(E[0] * (x * COLUMN))


def a_deque_of_matrices(x):
    E = QUEUED_MATRICES
    t = 0.0
    for m in E:
        t = t + np.sum(m * (x * COLUMN))
    return t


def a_dict_of_matrices(x):
    E = KEYED_MATRICES
    return np.sum(E[0] * (x * COLUMN))


def a_list_of_masked_arrays(x):
    E = MASKED
    t = 0.0
    for m in E:
        t = t + np.sum(m * x)
    return t


def a_matrix_or_an_array(x):
    E = MATRIX if x > 0 else ROW
    return np.sum(E * (x * COLUMN))


def a_matrix_after_an_array(x):
    E = ROW
    if x > 0:
        E = MATRIX
    return np.sum(E * (x * COLUMN))


def joined_matrices(x):
    return np.sum(np.concatenate(MATRICES) * (x * COLUMN))


def joined_matrices_through_an_alias(x):
    E = MATRICES
    return np.sum(np.vstack(E) * (x * COLUMN))


def a_display_of_a_matrix(x):
    L = [MATRIX]
    return np.sum(L[0] * (x * COLUMN))


def a_dict_display_of_a_matrix(x):
    D = {"m": MATRIX}
    return np.sum(D["m"] * (x * COLUMN))


def a_loop_over_a_display(x):
    t = 0.0
    for m in [MATRIX, MATRIX]:
        t = t + np.sum(m * (x * COLUMN))
    return t


def a_loop_over_modules_containers(x):
    t = 0.0
    for E in (NUMBERS, MATRICES):
        for k in E:
            t = t + np.sum(k * (x * COLUMN))
    return t


def a_display_of_a_list_of_matrices(x):
    T = (MATRICES, 1.0)
    return np.sum(T[0][0] * (x * COLUMN))


class MatrixHolder:
    def __init__(self):
        self.ms = MATRICES

    def __call__(self, x):
        E = self.ms
        t = 0.0
        for m in E:
            t = t + np.sum(m * (x * COLUMN))
        return t


REFUSED = [
    (a_list_of_matrices, "t = t + np.sum(m * x)"),
    (a_list_of_matrices_directly, "t = t + np.sum(m * x)"),
    (a_list_of_matrices_item, "return np.sum(m * (x * COLUMN))"),
    (a_list_of_matrices_in_a_helper, "t = t + np.sum(m * (x * COLUMN))"),
    (a_list_of_matrices_as_list, "return np.sum(E[0] * (x * COLUMN))"),
    (a_deque_of_matrices, "t = t + np.sum(m * (x * COLUMN))"),
    (a_dict_of_matrices, "return np.sum(E[0] * (x * COLUMN))"),
    (a_list_of_masked_arrays, "t = t + np.sum(m * x)"),
    (a_matrix_or_an_array, "return np.sum(E * (x * COLUMN))"),
    (a_matrix_after_an_array, "return np.sum(E * (x * COLUMN))"),
    (MatrixHolder(), "t = t + np.sum(m * (x * COLUMN))"),
    (a_display_of_a_matrix, "return np.sum(L[0]"),  # (a display of a module's matrix:
    (a_dict_display_of_a_matrix, 'return np.sum(D["m"]'),  # its items are matrices)
    (a_loop_over_a_display, "t = t + np.sum(m * (x * COLUMN))"),
    (a_loop_over_modules_containers, "t = t + np.sum(k * (x * COLUMN))"),
    (a_display_of_a_list_of_matrices, "return np.sum(T[0][0]"),
    (joined_matrices, "return np.sum(np.concatenate(MATRICES)"),  # (a list of matrices
    (joined_matrices_through_an_alias, "return np.sum(np.vstack(E)"),  # joined: a matrix)
]


@pytest.mark.parametrize("func, text", REFUSED, ids=lambda f: _name(f) if callable(f) else "")
@pytest.mark.parametrize("derivative", [s2sad.grad, s2sad.jvp], ids=["grad", "jvp"])
def test_foreign_data_through_an_alias_is_refused_at_the_line(func, text, derivative):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        with pytest.raises(s2sad.NoDerivativeError, match="not a number or a NumPy array") as e:
            derivative(func)(0.7)
    where = walk_matrices if func is a_list_of_matrices_in_a_helper else \
        type(func).__call__ if isinstance(func, MatrixHolder) else func
    assert e.value.lineno == line_of(where, text)
    assert "np.asarray" in e.value.hint


def differentiated_on_one_path(x):
    E = MATRIX
    if x > 0:
        E = x * ROW
    return np.sum(E * COLUMN)


def test_a_differentiated_value_given_to_a_name_that_may_hold_a_matrix_is_refused():
    """On the other path the name is an np.matrix: ``E * COLUMN`` is then a matrix product,
    which a derivative of ``*`` for arrays would not follow."""
    with pytest.raises(s2sad.NoDerivativeError, match="on another path") as e:
        s2sad.grad(differentiated_on_one_path)(0.7)
    assert e.value.lineno == line_of(differentiated_on_one_path, "E = x * ROW")


def converted(x):
    E = MATRICES
    t = 0.0
    for m in E:
        t = t + np.sum(np.asarray(m) * (x * COLUMN))
    return t


def test_converted_first_is_differentiated():
    np.testing.assert_allclose(s2sad.grad(converted)(0.7),
                               central_differences(converted, (0.7,), 0), rtol=1e-6)


# --- iterators read from outside the function ---------------------------------------------

GENERATOR = (v for v in [1.0, 3.0])
HOLDS_GENERATOR = types.SimpleNamespace(G=GENERATOR)


def over_a_generator(x):
    t = 0.0
    for k in GENERATOR:
        t = t + x * k
    return t


def over_an_alias_of_a_generator(x):
    E = GENERATOR
    t = 0.0
    for k in E:
        t = t + x * k
    return t


def zipping_a_generator_with_itself(x):
    t = 0.0
    for a, b in zip(HOLDS_GENERATOR.G, HOLDS_GENERATOR.G):
        t = t + x * a * b
    return t


@pytest.mark.parametrize("func, text", [
    (over_a_generator, "for k in GENERATOR:"), (over_an_alias_of_a_generator, "E = GENERATOR"),
    (zipping_a_generator_with_itself, "for a, b in zip(")], ids=lambda f: _name(f) if callable(f) else "")
def test_an_iterator_from_outside_is_refused_at_the_line(func, text):
    """A loop consumes it: a second call would find it spent (before: TypeError, len of a
    generator)."""
    with pytest.raises(s2sad.DifferentiationError, match="an iterator from outside") as e:
        s2sad.grad(func)(0.7)
    assert e.value.lineno == line_of(func, text)
    assert "list(...)" in e.value.hint


# --- complex numbers in sets and deques --------------------------------------------------

COMPLEX_SET = {1 + 2j, 3.0}
COMPLEX_QUEUE = collections.deque([1 + 2j, 3.0])


def over_a_complex_set(x):
    E = COMPLEX_SET
    t = 0.0
    for k in E:
        t = t + np.imag(x * x * k) + np.real(x * k)
    return t


def over_a_complex_deque(x):
    t = 0.0
    for k in COMPLEX_QUEUE:
        t = t + np.imag(x * x * k) + np.real(x * k)
    return t


@pytest.mark.parametrize("func", [over_a_complex_set, over_a_complex_deque], ids=_name)
def test_a_set_or_deque_of_complex_numbers_takes_the_complex_rules(func):
    np.testing.assert_allclose(s2sad.grad(func)(0.7), central_differences(func, (0.7,), 0),
                               rtol=1e-6)


REAL_SET = {1.0, 3.0}


def over_a_real_set(x):
    E = REAL_SET
    t = 0.0
    for k in E:
        t = t + np.imag(x * x * k)
    return t


def test_a_set_given_a_complex_number_after_the_build_builds_again():
    g = s2sad.grad(over_a_real_set)
    assert g(0.7) == 0.0
    REAL_SET.add(2j)
    try:
        assert g(0.7) == pytest.approx(2 * 0.7 * 2)
    finally:
        REAL_SET.discard(2j)


# --- a module's value changed after the build --------------------------------------------

CHANGING = [np.array([[1.0, 2.0]])]


def over_changing(x):
    E = CHANGING
    t = 0.0
    for m in E:
        t = t + np.sum(m * (x * COLUMN))
    return t


def test_a_list_of_arrays_given_a_matrix_after_the_build_is_refused():
    """The build noted that the list held no foreign data: a matrix in it at a later call
    builds again, which refuses it (before: ``*`` taken for the elementwise product)."""
    global CHANGING
    g = s2sad.grad(over_changing)
    assert g(0.7) == pytest.approx(9.0)
    saved = CHANGING[0]
    try:
        CHANGING[0] = MATRIX
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PendingDeprecationWarning)
            with pytest.raises(s2sad.NoDerivativeError, match="not a number or a NumPy array"):
                g(0.7)
        CHANGING = [saved]
        assert g(0.7) == pytest.approx(9.0)
    finally:
        CHANGING = [saved]


SWAPPED = {1, 3}


def over_swapped(x):
    E = SWAPPED
    t = 0.0
    for k in E:
        t = t + x * k
    return t


def test_a_set_rebound_to_a_list_and_a_dict_after_the_build():
    global SWAPPED
    g = s2sad.grad(over_swapped)
    try:
        assert g(1.0) == 4.0
        SWAPPED = [10.0, 1.0]
        assert g(1.0) == 11.0
        SWAPPED = {1: 10.0, 0: 1.0}
        assert g(1.0) == 1.0
        SWAPPED = frozenset({2.0})
        assert g(1.0) == 2.0
    finally:
        SWAPPED = {1, 3}


# --- an argument's attributes: complex numbers in a tuple, a generator -------------------

class ComplexNumbers:
    def __init__(self):
        self.zs = (1 + 1j, 2.0)

    def __call__(self, x):
        E = self.zs
        t = 0.0
        for z in E:
            t = t + np.real(np.sum(z * x * x))
        return t


class Generating:
    def __init__(self):
        self.gen = (v for v in [1.0, 3.0])

    def __call__(self, x):
        E = self.gen
        t = 0.0
        for k in E:
            t = t + x * k
        return t

    def directly(self, x):
        t = 0.0
        for k in self.gen:
            t = t + x * k
        return t


def called(obj, x):
    return obj(x)


def called_directly(obj, x):
    return obj.directly(x)


def test_an_attributes_tuple_of_complex_numbers_takes_the_complex_rules():
    """The object's description carries the tuple (before: real rules, a TypeError or
    a ComplexWarning from the generated code)."""
    obj = ComplexNumbers()
    expected = central_differences(lambda x: called(obj, x), (0.7,), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(s2sad.grad(called, wrt=1)(obj, 0.7), expected, rtol=1e-6)


@pytest.mark.parametrize("func, text", [(called, "E = self.gen"),
                                        (called_directly, "for k in self.gen:")],
                         ids=["alias", "directly"])
def test_an_attributes_generator_is_refused_at_the_line(func, text):
    with pytest.raises(s2sad.DifferentiationError, match="an iterator from outside") as e:
        s2sad.grad(func, wrt=1)(Generating(), 0.7)
    assert e.value.lineno == line_of(Generating, text)
