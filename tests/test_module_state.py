"""State a function changes but does not own: a module's or a closure's list, dict, set,
deque, array or object (``LOG.append(1)``, ``OB.log.append(1)``, ``d = D; d["k"] = v``,
``next(IT)``).

Python runs such a change once per call, and so does the generated code: ``grad`` gives
the derivative of the function one plain call runs. ``vjp``, ``jvp``, ``jacobian`` and
``hessian`` run the function more than once, so where it also reads that state each run
is another function: they refuse it at the change's line. A value with a derivative
stored there and read again would be read as a constant: refused at the store, for
``grad`` too. Each case here gave a wrong number before (a non-symmetric "Hessian", a
pullback of another function, a zero gradient)."""

import collections
import copy
import types

import numpy as np
import pytest

import s2sad
from s2sad.errors import DifferentiationError
from test_higher_order import central_differences

X0 = np.array([0.3, 0.9, -0.2])


class Holder:
    pass


LOG = []
D = {}
ST = set()
DQ = collections.deque()
BUF = np.zeros(3)
OB = Holder()
NS = types.SimpleNamespace(log=[])
IT = iter(())
CACHE = []


@pytest.fixture(autouse=True)
def fresh_state():
    """Each test starts from the same module state."""
    global IT
    LOG.clear()
    D.clear()
    D["k"] = 0.0
    ST.clear()
    DQ.clear()
    BUF[:] = 0.0
    OB.log, OB.n = [], 0
    NS.log = []
    IT = iter(range(1, 100))
    CACHE.clear()
    yield


# --- functions whose output reads module state they change --------------------------------------

def appends_and_counts(x):
    LOG.append(1)
    return np.sum(x) ** 3 * len(LOG)


def extends(x):
    LOG.extend([1, 2])
    return np.sum(x) ** 3 * len(LOG)


def inserts(x):
    LOG.insert(0, 2.0)
    return np.sum(x) ** 3 * LOG[0] * len(LOG)


def updates_a_dict(x):
    D.update(k=D["k"] + 1)
    return np.sum(x) ** 3 * D["k"]


def sets_an_item_through_an_alias(x):
    d = D
    d["k"] = d["k"] + 1
    return np.sum(x) ** 3 * D["k"]


def adds_to_a_set(x):
    ST.add(len(ST))
    return np.sum(x) ** 3 * len(ST)


def appends_to_a_deque(x):
    DQ.append(1)
    return np.sum(x) ** 3 * len(DQ)


def fills_an_array(x):
    BUF.fill(BUF[0] + 1)
    return np.sum(x) ** 3 * BUF[0]


def appends_to_an_objects_list(x):
    OB.log.append(1)
    return np.sum(x) ** 3 * len(OB.log)


def appends_to_a_namespaces_list(x):
    NS.log.append(1)
    return np.sum(x) ** 3 * len(NS.log)


def takes_the_next_item(x):
    k = next(IT)
    return np.sum(x) ** 3 * k


def _helper_that_counts(x):
    LOG.append(1)
    return np.sum(np.sin(x)) * len(LOG)


def calls_a_helper_that_counts(x):
    return _helper_that_counts(x) * 2.0


def _closure_that_counts():
    seen = []

    def counts(x):
        seen.append(1)
        return np.sum(x) ** 3 * len(seen)
    return counts


READS_WHAT_IT_CHANGES = [
    (appends_and_counts, "LOG.append(1)"),
    (extends, "LOG.extend([1, 2])"),
    (inserts, "LOG.insert(0, 2.0)"),
    (updates_a_dict, "D.update(k=D[\"k\"] + 1)"),
    (sets_an_item_through_an_alias, "d[\"k\"] = d[\"k\"] + 1"),
    (adds_to_a_set, "ST.add(len(ST))"),
    (appends_to_a_deque, "DQ.append(1)"),
    (fills_an_array, "BUF.fill(BUF[0] + 1)"),
    (appends_to_an_objects_list, "OB.log.append(1)"),
    (appends_to_a_namespaces_list, "NS.log.append(1)"),
    (takes_the_next_item, "k = next(IT)"),
    (calls_a_helper_that_counts, "LOG.append(1)"),
]
IDS = [f.__name__ for f, _ in READS_WHAT_IT_CHANGES]


def _state():
    return copy.deepcopy((LOG, D, ST, DQ, BUF, OB.log, NS.log, CACHE))


def _run(maker, f, x):
    if maker == "vjp":
        return s2sad.vjp(f)(x)[1](1.0)
    if maker == "jvp":
        return s2sad.jvp(f)(x)[1](np.ones_like(x))
    if maker == "jacobian_of_grad":
        return s2sad.jacobian(s2sad.grad(f))(x)
    return getattr(s2sad, maker)(f)(x)


@pytest.mark.parametrize("maker", ["vjp", "jvp", "jacobian", "hessian", "jacobian_of_grad"])
@pytest.mark.parametrize("f, line", READS_WHAT_IT_CHANGES, ids=IDS)
def test_makers_that_run_it_again_refuse_at_the_change(f, line, maker):
    with pytest.raises(DifferentiationError, match="it changes: .* runs it once for the "
                       "value and again") as info:
        _run(maker, f, X0)
    assert line in str(info.value)  # (the change's line, shown with its file)
    assert "s2sad.grad or s2sad.value_and_grad" in str(info.value)
    assert "module's" in str(info.value)


@pytest.mark.parametrize("maker", ["vjp", "hessian"])
def test_a_closures_list_is_refused_as_a_modules_is(maker):
    with pytest.raises(DifferentiationError, match="the closure's 'seen' it changes") as info:
        _run(maker, _closure_that_counts(), X0)
    assert "seen.append(1)" in str(info.value)


def _restore(start):
    global IT
    LOG[:] = start[0]
    D.clear()
    D.update(start[1])
    ST.clear()
    ST.update(start[2])
    DQ.clear()
    DQ.extend(start[3])
    BUF[:] = start[4]
    OB.log, NS.log, CACHE[:] = list(start[5]), list(start[6]), start[7]
    IT = iter(range(1, 100))


@pytest.mark.parametrize("f, line", READS_WHAT_IT_CHANGES, ids=IDS)
def test_grad_is_the_derivative_of_one_plain_call_where_hessian_refuses(f, line):
    """grad runs the change once, as the plain call does, and reads what it left."""
    start = _state()
    g = s2sad.grad(f)(X0)
    after = _state()

    def one_call(x):  # the function one plain call from the starting state runs
        _restore(start)
        return f(x)
    expected = central_differences(one_call, [X0], 0)
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8)
    one_call(X0)
    assert repr(_state()) == repr(after)  # (the change happened once)
    with pytest.raises(DifferentiationError, match="it changes"):
        s2sad.hessian(f)(X0)


def writes_but_does_not_read(x):
    LOG.append(float(np.sum(x)))
    return np.sum(np.sin(x) ** 2)


@pytest.mark.parametrize("maker", ["vjp", "hessian"])
def test_a_change_the_function_does_not_read_is_not_refused(maker):
    """A log the output never reads: each run gives the same function; one it reads is
    refused."""
    with pytest.raises(DifferentiationError, match="it changes"):
        _run(maker, appends_and_counts, X0)
    LOG.clear()
    got = _run(maker, writes_but_does_not_read, X0)
    expected = central_differences(lambda x: np.sum(np.sin(x) ** 2), [X0], 0)
    if maker == "hessian":
        expected = np.diag(2 * np.cos(2 * X0))
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
    assert len(LOG) >= 2  # (once per run: the value's and the pullback's or columns')


def _equal_code_module(name, reads):
    """A module whose ``f`` has the same code as another's, its helper another one."""
    module = types.ModuleType(name)
    module.np, module.LOG = np, []
    body = "    return np.sum(x) ** 3 * len(LOG)\n" if reads else "    return np.sum(x) ** 3\n"
    text = "def helper(x):\n    LOG.append(1)\n" + body + \
        "def f(x):\n    return helper(x) * 1.0\n"
    path = f"/tmp/s2sad_test_module_state_{name}.py"
    with open(path, "w") as out:
        out.write(text)
    exec(compile(text, path, "exec"), vars(module))
    return module.f


def test_a_function_with_equal_code_but_other_globals_is_not_refused():
    """The refusal is noted for the function's own code object, not for equal code."""
    reads = _equal_code_module("reads_its_log", True)
    writes = _equal_code_module("writes_its_log", False)
    assert reads.__code__ == writes.__code__
    with pytest.raises(DifferentiationError, match="it changes"):
        s2sad.hessian(reads)(X0)
    np.testing.assert_allclose(s2sad.hessian(writes)(X0), np.full((3, 3), 6 * np.sum(X0)))


# --- a value with a derivative stored in module state and read again ----------------------------

def appends_and_reads_back(x):
    CACHE.append(x * 2)
    return np.sum(CACHE[-1] * 3)


def sums_what_it_appended(x):
    CACHE.append(np.sum(x * 2))
    return sum(CACHE) * 3


def stores_in_a_dict_and_reads_back(x):
    D.update(h=x * 2)
    return np.sum(D["h"] * 3)


def stores_in_an_objects_list_and_reads_back(x):
    OB.log.append(x * 2)
    return np.sum(OB.log[-1] * 3)


def _helper_that_caches(x):
    CACHE.append(np.sin(x))
    return CACHE[-1]


def caches_in_a_helper(x):
    return np.sum(_helper_that_caches(x) ** 2)


READ_BACK = [
    (appends_and_reads_back, "CACHE.append(x * 2)"),
    (sums_what_it_appended, "CACHE.append(np.sum(x * 2))"),
    (stores_in_a_dict_and_reads_back, "D.update(h=x * 2)"),
    (stores_in_an_objects_list_and_reads_back, "OB.log.append(x * 2)"),
    (caches_in_a_helper, "CACHE.append(np.sin(x))"),
]


@pytest.mark.parametrize("maker", ["grad", "value_and_grad", "vjp", "jvp", "hessian"])
@pytest.mark.parametrize("f, line", READ_BACK, ids=[f.__name__ for f, _ in READ_BACK])
def test_a_value_with_a_derivative_read_back_is_refused_at_the_store(f, line, maker):
    with pytest.raises(DifferentiationError, match="a value with a derivative stored in a "
                       "list, dict, array or object the function does not own") as info:
        if maker == "value_and_grad":
            s2sad.value_and_grad(f)(X0)
        else:
            _run(maker, f, X0)
    assert line in str(info.value)
    assert "Keep the value in a variable and read that" in str(info.value)


def _closure_that_caches():
    kept = []

    def caches(x):
        kept.append(x * 2)
        return np.sum(kept[-1] * 3)
    return caches


def test_a_closures_list_read_back_is_refused():
    with pytest.raises(DifferentiationError, match="a value with a derivative stored") as info:
        s2sad.grad(_closure_that_caches())(X0)
    assert "kept.append(x * 2)" in str(info.value)


def keeps_the_value_in_a_variable(x):
    h = x * 2
    CACHE.append(h)
    return np.sum(h * 3)


def test_the_advice_works_and_the_cache_holds_the_forward_value():
    with pytest.raises(DifferentiationError, match="Keep the value in a variable"):
        s2sad.grad(appends_and_reads_back)(X0)
    CACHE.clear()
    g = s2sad.grad(keeps_the_value_in_a_variable)(X0)
    np.testing.assert_allclose(g, np.full(3, 6.0))
    assert len(CACHE) == 1 and np.array_equal(CACHE[0], X0 * 2)
