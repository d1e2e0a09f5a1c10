"""``target="numba"``: the gradient compiled by numba in nopython mode.

Each gradient is checked against the NumPy target's and against central differences;
what numba cannot compile is refused at the user's line, with the reason and what to do.
Skipped where numba is not installed (its absence is tested by hiding it).
"""

from __future__ import annotations

import inspect
import math
import subprocess
import sys

import numpy as np
import pytest

import s2sad
from s2sad.backends import NUMBA, BackendUnavailableError, target_backend
from s2sad.errors import DifferentiationError, UnsupportedSyntaxError
from tests.test_higher_order import central_differences

numba = pytest.importorskip("numba")


# --- the workloads ------------------------------------------------------------------------


def while_loop(x):
    while x < 50:
        x = x * 1.002 + math.sin(x) * 0.01 + 0.02
    return x


def speelpenning(x):
    p = 1.0
    for i in range(x.shape[0]):
        p = p * x[i]
    return p


def euler(y0, k):
    y = y0
    dt = 0.01
    for _ in range(200):
        y = y + dt * (-k * y + math.sin(y))
    return y


def branches(x):
    s = 0.0
    for _ in range(12):
        if x > 1.0:
            x = x * 0.9
        else:
            x = x * 1.3 + 0.1
        s = s + x * x
    return s


def early_exit(x, limit):
    n = 0
    while x < limit and n < 1000:
        if x > 2.0:
            x = x + math.log(x) * 0.1
        else:
            x = x * 1.1 + 0.05
        n += 1
    return x * x


def array_functions(x, w):
    y = np.tanh(x) * w + np.exp(-x * x)
    z = np.sqrt(y * y + 1.0) + np.maximum(x, 0.5) * np.sin(w)
    return np.sum(z * np.log1p(x * x))


def helper(v, c):
    return v * math.cos(v) + c


def with_a_helper(x, c):
    total = 0.0
    for i in range(5):
        total = total + helper(x * (i + 1), c)
    return total


def sum_loop(x):
    total = 0.0
    for i in range(x.shape[0]):
        total = total + math.exp(x[i]) * (i + 1.0)
    return total


def rnn(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def skips_a_turn(x):
    s = 0.0
    for i in range(8):
        if i == 3:
            continue
        x = x * 1.1 + math.sin(x)
        s = s + x * x
    return s


def breaks_out(x):
    s = 0.0
    for i in range(8):
        if x > 3.0:
            break
        x = x * 1.3 + math.sin(x)
        s = s + x * x
    return s


SCALE = 0.5


def reads_a_global(x):
    return x * SCALE + math.sin(x)


_rng = np.random.default_rng(38)

CASES = [
    pytest.param(while_loop, (1.0,), 0, id="while"),
    pytest.param(speelpenning, (np.linspace(0.5, 1.5, 7),), 0, id="speelpenning"),
    pytest.param(euler, (0.5, 2.0), 0, id="euler-y0"),
    pytest.param(euler, (0.5, 2.0), 1, id="euler-k"),
    pytest.param(branches, (1.2,), 0, id="branches"),
    pytest.param(branches, (0.3,), 0, id="branches-low"),
    pytest.param(early_exit, (0.4, 30.0), 0, id="early-exit"),
    pytest.param(array_functions, (_rng.uniform(0.1, 1.0, 5), _rng.standard_normal(5)), 0,
                 id="array-functions-x"),
    pytest.param(array_functions, (_rng.uniform(0.1, 1.0, 5), _rng.standard_normal(5)), 1,
                 id="array-functions-w"),
    pytest.param(with_a_helper, (0.7, 2.0), 0, id="inlined-helper"),
    pytest.param(sum_loop, (_rng.standard_normal(6),), 0, id="sum-loop"),
    pytest.param(reads_a_global, (0.3,), 0, id="module-global"),
    pytest.param(rnn, (_rng.standard_normal((3, 3)) * 0.5, _rng.standard_normal((6, 3))), 0,
                 id="rnn"),
    pytest.param(skips_a_turn, (0.5,), 0, id="continue"),
    pytest.param(breaks_out, (0.5,), 0, id="break"),
    pytest.param(breaks_out, (3.5,), 0, id="break-at-once"),
]


@pytest.mark.parametrize("f, args, wrt", CASES)
def test_gradient_equals_numpy_and_central_differences(f, args, wrt):
    compiled = s2sad.grad(f, wrt, target="numba")
    got = compiled(*args)
    expected = s2sad.grad(f, wrt, target="numpy")(*args)
    assert type(got) is type(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, central_differences(f, args, wrt), rtol=1e-6, atol=1e-8)
    assert "@numba.njit" in compiled.source_for(*args)


def test_the_kernel_is_compiled_once_per_argument_kinds():
    compiled = s2sad.grad(euler, target="numba")
    assert compiled(0.5, 2.0) == s2sad.grad(euler)(0.5, 2.0)
    variant = compiled._last
    seconds = variant.kernel.seconds
    assert seconds is not None and seconds > 0  # (numba's compile time, the build time)
    assert compiled(0.7, 1.0) == s2sad.grad(euler)(0.7, 1.0)
    assert compiled._last is variant and variant.kernel.seconds == seconds
    x = np.linspace(0.5, 1.5, 4)
    grad = s2sad.grad(speelpenning, target="numba")
    np.testing.assert_allclose(grad(x), s2sad.grad(speelpenning)(x))
    np.testing.assert_allclose(grad(x[:3]), s2sad.grad(speelpenning)(x[:3]))
    assert len(grad._variants) == 1


KERNEL_USER = """
import math


def loop(x):
    while x < 50:
        x = x * 1.002 + math.sin(x) * 0.01 + 0.02
    return x
"""

RUN = """
import sys
sys.path.insert(0, sys.argv[1])
import s2sad, loop_module
g = s2sad.grad(loop_module.loop, target="numba")
value = g(1.0)
kernel = g._last.kernel
stats = kernel.dispatcher.stats
print(repr(value), sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
"""


def test_numba_caches_the_kernel_across_processes(tmp_path):
    (tmp_path / "loop_module.py").write_text(KERNEL_USER)
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", RUN, str(tmp_path)], capture_output=True,
                              text=True, timeout=300,
                              env={**__import__("os").environ, "S2SAD_CACHE_DIR": str(tmp_path)})
        assert done.returncode == 0, done.stderr
        runs.append(done.stdout.split())
    assert runs[0][0] == runs[1][0] == repr(s2sad.grad(while_loop)(1.0))
    assert runs[0][1:] == ["0", "1"] and runs[1][1:] == ["1", "0"]  # (compiled, then loaded)
    assert list((tmp_path / "numba").glob("grad_loop_*.py"))


def test_a_global_is_read_at_each_call(monkeypatch):
    compiled = s2sad.grad(reads_a_global, target="numba")
    assert compiled(0.3) == pytest.approx(0.5 + math.cos(0.3))
    monkeypatch.setattr(sys.modules[__name__], "SCALE", 2.0)
    assert compiled(0.3) == pytest.approx(2.0 + math.cos(0.3))


def test_value_and_grad_vjp_and_jvp():
    value, gradient = s2sad.value_and_grad(while_loop, target="numba")(1.0)
    assert value == while_loop(1.0)
    assert gradient == s2sad.grad(while_loop)(1.0)
    pull = s2sad.vjp(euler, target="numba")
    value, pullback = pull(0.5, 2.0)
    assert value == pytest.approx(euler(0.5, 2.0))
    assert pullback(3.0) == pytest.approx(3.0 * s2sad.grad(euler)(0.5, 2.0), rel=1e-12)
    value, push = s2sad.jvp(branches, target="numba")(1.2)
    assert value == pytest.approx(branches(1.2))
    assert push(2.0) == pytest.approx(2.0 * s2sad.grad(branches)(1.2), rel=1e-12)
    x, w = _rng.uniform(0.1, 1.0, 4), _rng.standard_normal(4)
    value, push = s2sad.jvp(array_functions, target="numba")(x, w)
    direction = _rng.standard_normal(4)
    assert push(direction) == pytest.approx(
        s2sad.grad(array_functions)(x, w) @ direction, rel=1e-10)


def test_the_kernel_is_compiled_in_nopython_mode_with_a_typed_tape():
    source = s2sad.grad(while_loop, target="numba").source_for(1.0)
    assert "@numba.njit(cache=True)" in source and "stack_x = []" in source
    assert "check_tape(tape_bytes(stack_x), tape_budget)" in source  # (the memory budget)
    assert "forceobj" not in source and "object" not in source
    source = s2sad.grad(speelpenning, target="numba").source_for(np.ones(3))
    assert "p_saved = float_tape(t_2)" in source and "put_float(p_saved, i, p)" in source
    assert "for i in range(t_2 - 1, -1, -1):" in source  # (reversed(range(n)))


def test_the_memory_budget_holds_in_compiled_code():
    from s2sad.runtime.budget import DEFAULT_BUDGET, MemoryBudgetError, set_memory_budget
    forever = s2sad.grad(while_loop, target="numba")
    assert forever(1.0) == s2sad.grad(while_loop)(1.0)
    set_memory_budget(1000)
    try:
        with pytest.raises(MemoryBudgetError, match="memory budget"):
            forever(-1e9)  # (x falls forever: the check at 4096 passes finds 32 kB recorded)
        set_memory_budget(10 ** 6)
        assert forever(1.0) == s2sad.grad(while_loop)(1.0)  # (the budget, read at each call)
    finally:
        set_memory_budget(DEFAULT_BUDGET)


def test_show_prints_the_kernel():
    path = inspect.getsourcefile(while_loop)
    done = subprocess.run(
        [sys.executable, "-m", "s2sad", "show", "--target", "numba", "--at", "(1.0,)",
         f"{path}:while_loop", "--color", "never"], capture_output=True, text=True,
        timeout=120)
    assert done.returncode == 0, done.stderr
    assert "@numba.njit" in done.stdout and "def kernel_grad_while_loop(x, tape_budget):" \
        in done.stdout and "def grad_while_loop(x):" in done.stdout


def only_its_source(x):
    return x * math.exp(x)


def test_the_source_needs_example_arguments():
    with pytest.raises(DifferentiationError, match="for the kinds of its arguments") as info:
        s2sad.grad(only_its_source, target="numba").source
    assert "source_for" in str(info.value)


# --- refusals at the user's line ----------------------------------------------------------


class Box:
    def __init__(self, w):
        self.w = w


def uses_a_dict(x):
    d = {"a": x}
    return d["a"] * x


def calls_a_method(x):
    y = x * 2.0
    return y.sum()


def unsupported_numpy(x):
    y = x * 2.0
    return np.einsum("i,i->", y, x)


def makes_a_list(x):
    parts = [x, x * 2.0]
    return parts[0] * parts[1]


def reads_an_attribute(x, box):
    return x * box.w


def helper_with_a_dict(v):
    table = {"k": v}
    return table["k"]


def calls_a_bad_helper(x):
    return helper_with_a_dict(x) * x


@pytest.mark.parametrize("f, args, line, what, advice", [
    (uses_a_dict, (1.0,), 1, "a dict", "target='numpy'"),
    (calls_a_method, (np.ones(3),), 2, "the method call y.sum()", "np.sum(...)"),
    (unsupported_numpy, (np.ones(3),), 2, "no numpy.einsum", "target='numpy'"),
    (makes_a_list, (1.0,), 1, "a list", "NumPy array"),
    (reads_an_attribute, (1.0, Box(2.0)), 0, "the argument 'box' (an object)",
     "numbers and NumPy arrays"),
    (speelpenning, ([1.0, 2.0],), 0, "the argument 'x' (a list)", "numbers and NumPy arrays"),
], ids=["dict", "method", "einsum", "list", "object", "list-argument"])
def test_refused_at_the_users_line(f, args, line, what, advice):
    first = inspect.getsourcelines(f)[1]
    with pytest.raises(UnsupportedSyntaxError) as info:
        s2sad.grad(f, target="numba")(*args)
    err = info.value
    assert err.lineno == first + line, str(err)
    assert err.filename == inspect.getsourcefile(f)
    assert what in str(err) and "target='numba'" in str(err)
    assert advice in str(err)


def test_a_helper_is_refused_at_its_own_line():
    first = inspect.getsourcelines(helper_with_a_dict)[1]
    with pytest.raises(UnsupportedSyntaxError, match="a dict") as info:
        s2sad.grad(calls_a_bad_helper, target="numba")(1.0)
    assert info.value.lineno == first + 1


def test_numbas_own_refusal_is_mapped_to_the_users_line():
    # a sum over a tuple of axes passes the checks; numba's compiled gradient has no
    # version of it, and numba's typing error names the user's line
    first = inspect.getsourcelines(sum_along_an_axis)[1]
    with pytest.raises(UnsupportedSyntaxError, match="numba cannot compile") as info:
        s2sad.grad(sum_along_an_axis, target="numba")(np.ones((2, 3, 2)))
    assert info.value.lineno == first + 1, str(info.value)
    assert "numba code for this line does not take the kinds of its values" in \
        str(info.value) and "target='numpy'" in str(info.value)
    assert "sum_along" not in str(info.value)  # (s2sad's name: not the user's business)


def sum_along_an_axis(x):
    columns = np.sum(x, axis=(0, 1))
    return np.sum(np.sin(columns))


def test_the_numpy_target_is_unchanged():
    assert target_backend("numba") is NUMBA and not NUMBA.claims(("nd", 2, "f"))
    assert "numba" not in s2sad.grad(while_loop).source_for(1.0)


def only_without_numba(y, k):
    return y * k + math.sin(y)


def test_without_numba_a_clear_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # (import numba raises ImportError)
    compiled = s2sad.grad(only_without_numba, target="numba")
    with pytest.raises(BackendUnavailableError, match="numba cannot be imported") as info:
        compiled(0.5, 2.0)
    assert "pip install 's2sad[numba]'" in str(info.value)
    assert "@numba.njit" in compiled.source_for(0.5, 2.0)  # (the source stays printable)


def test_derivatives_of_derivatives_are_refused_with_advice():
    for make in (lambda: s2sad.grad(s2sad.grad(euler, target="numba")),
                 lambda: s2sad.grad(s2sad.grad(euler), target="numba"),
                 lambda: s2sad.hessian(speelpenning, target="numba"),
                 lambda: s2sad.hvp(speelpenning, target="numba")):
        with pytest.raises(DifferentiationError, match="first derivatives") as info:
            make()  # (refused as it is made: there is no kernel's source to read)
        assert "target='numpy'" in str(info.value)


def test_kinds_of_arguments_kept_as_numpy_keeps_them():
    x32 = np.linspace(0.5, 1.5, 4).astype(np.float32)
    got = s2sad.grad(speelpenning, target="numba")(x32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, s2sad.grad(speelpenning)(x32), rtol=1e-6)
    assert s2sad.grad(euler, target="numba")(0.5, 2) == s2sad.grad(euler)(0.5, 2)
    assert s2sad.grad(euler, wrt=(0, 1), target="numba")(0.5, 2.0) == \
        pytest.approx(s2sad.grad(euler, wrt=(0, 1))(0.5, 2.0), rel=1e-12)
    x = np.linspace(0.5, 1.5, 3)
    np.testing.assert_allclose(s2sad.jacobian(speelpenning, target="numba")(x),
                               s2sad.grad(speelpenning)(x), rtol=1e-12)


def test_a_numpy_number_is_refused_with_advice():
    # (numba would hand back a float where the NumPy target gives np.float64)
    with pytest.raises(UnsupportedSyntaxError, match="a NumPy number") as info:
        s2sad.grad(euler, target="numba")(np.float64(0.5), 2.0)
    assert info.value.lineno == inspect.getsourcelines(euler)[1]
    assert "float(x)" in str(info.value)


def log_of(x):
    y = x - 1.0
    return math.log(y) * x


def test_a_math_domain_error_is_raised_as_python_raises_it():
    # (numba's math.log(-0.5) is NaN; Python's, and the NumPy target's, a ValueError)
    compiled = s2sad.grad(log_of, target="numba")
    assert compiled(3.0) == pytest.approx(s2sad.grad(log_of)(3.0), rel=1e-12)
    assert "checked_log(" in compiled.source_for(3.0)
    with pytest.raises(ValueError, match="math domain error"):
        s2sad.grad(log_of)(0.5)
    with pytest.raises(ValueError, match="math domain error"):
        compiled(0.5)


def names_a_helper(x, memory_budget):
    y = x
    while y < 10.0:
        y = y * 1.5 + memory_budget
    return y


def test_a_name_the_compiled_gradient_calls_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match="a variable named memory_budget") as info:
        s2sad.grad(names_a_helper, target="numba")(1.0, 0.5)
    assert info.value.lineno == inspect.getsourcelines(names_a_helper)[1]
    assert "Rename it" in str(info.value)
