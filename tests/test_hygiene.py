"""Hygiene: names never clash, nothing the user owns changes, output is deterministic,
gradients pickle, compile once under threads, and the cache keeps no data alive."""

from __future__ import annotations

import copy
import functools
import gc
import json
import os
import pickle
import subprocess
import sys
import textwrap
import threading
import weakref
from pathlib import Path

import numpy as onp
import pytest

import s2sad

ROOT = Path(__file__).resolve().parent.parent

# globals named like what s2sad generates and imports
stack = onp.array([0.5, -1.0, 2.0])
trips_1 = 0.25
GLOBAL_LIST = [1.0, 2.0]


def sum_grad(v):
    """A user function named like a runtime helper (it is inlined, not confused)."""
    return v * 2.0


def names_like_generated_ones(s_x, t_1):
    np = onp.tanh(s_x)                     # a local named `np`: numpy is `onp` here
    stack_1 = [np, t_1]
    s_1 = trips_1 + 0.0
    cond_1 = s_x > 0.2
    unbroadcast = onp.zeros(3)
    as_gradient = 0.5
    for i in range(3):
        if cond_1:
            unbroadcast[i] = np * t_1 + s_1
        else:
            unbroadcast[i] = t_1 * t_1
        s_1 = s_1 + as_gradient * onp.sin(unbroadcast[i])
        k = 0
        while k < 2 and s_1 < 3.0:
            s_1 = s_1 * 1.1 + stack_1[1] * 0.1
            k = k + 1
    ret = onp.sum(unbroadcast * stack) + sum_grad(s_1)
    return ret * stack_1[0]


def parameters_like_generated_ones(stack, trips_1, cond_1, _, s_t_1):
    total = 0.0
    for _i in range(3):
        if cond_1 > 0.0:
            total = total + stack * trips_1
        else:
            total = total - s_t_1
        trips_1 = trips_1 * 0.9 + _
    result_1 = total * cond_1
    return result_1 + onp.sin(s_t_1)


def loss(W, x):
    """Module level, so its gradient pickles."""
    h = onp.tanh(W @ x)
    return onp.sum(h * h)


def scalar_loss(x, y):
    return onp.sin(x) * y + x * x


def numeric(f, args, index, eps=1e-6):
    x = onp.asarray(args[index], dtype=float)
    out = onp.zeros_like(x)
    for k in onp.ndindex(x.shape):
        up, down = [copy.deepcopy(a) for a in args], [copy.deepcopy(a) for a in args]
        if x.ndim:
            up[index] = x.copy()
            down[index] = x.copy()
            up[index][k] += eps
            down[index][k] -= eps
        else:
            up[index], down[index] = float(x) + eps, float(x) - eps
        out[k] = (f(*up) - f(*down)) / (2 * eps)
    return out


# --- names ------------------------------------------------------------------------------------

@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("args", [(0.7, -0.4), (-0.3, 1.2)], ids=["taken", "not-taken"])
def test_user_names_like_generated_ones_never_clash(args, optimize):
    f = names_like_generated_ones
    value, grads = s2sad.value_and_grad(f, wrt=(0, 1), optimize=optimize)(*args)
    assert value == pytest.approx(f(*args))
    for i in range(2):
        assert grads[i] == pytest.approx(float(numeric(f, args, i)), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("cond", [1.0, -1.0])
def test_parameters_named_like_generated_ones(cond):
    f = parameters_like_generated_ones
    args = (0.8, 0.3, cond, 0.2, 0.6)
    grads = s2sad.grad(f, wrt=(0, 1, 2, 3, 4))(*args)
    for i in range(5):
        assert grads[i] == pytest.approx(float(numeric(f, args, i)), rel=1e-6, abs=1e-8)
    text = s2sad.grad(f, wrt=(0, 1, 2, 3, 4)).source_for(*args)
    assert "def grad_parameters_like_generated_ones(stack, trips_1, cond_1, _, s_t_1):" in text


# --- nothing the user owns changes ------------------------------------------------------------

def updates_its_own(x, ws, pair):
    y = onp.zeros(3)
    for i in range(3):
        y[i] = x[i] * ws[i % 2] + pair[0]
    ys = []
    for w in ws:
        ys.append(w * onp.sum(y))
    y += stack
    return onp.sum(y * y) + ys[0] * ys[1] + pair[1] * GLOBAL_LIST[1]


@pytest.mark.parametrize("make", [s2sad.grad, s2sad.value_and_grad], ids=["grad", "vg"])
@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_arguments_and_globals_are_never_mutated(make, optimize):
    x = onp.array([0.3, -0.2, 0.9])
    ws = [0.5, -1.5]                       # a list passed in
    pair = (0.25, onp.array(2.0))
    args = (x, ws, pair)
    before = copy.deepcopy(args)
    module_before = dict(globals())
    saved = (stack.copy(), list(GLOBAL_LIST), trips_1)
    result = make(updates_its_own, wrt=(0, 1, 2), optimize=optimize)(*args)
    for got, want in zip(args, before, strict=True):
        assert type(got) is type(want)
    onp.testing.assert_array_equal(x, before[0])
    assert ws == before[1] and pair[0] == before[2][0] and pair[1] == before[2][1]
    onp.testing.assert_array_equal(stack, saved[0])
    assert GLOBAL_LIST == saved[1] and trips_1 == saved[2]
    assert set(globals()) == set(module_before)
    grads = result[1] if make is s2sad.value_and_grad else result
    onp.testing.assert_allclose(grads[0], numeric(lambda a: updates_its_own(a, ws, pair),
                                                  [x], 0), rtol=1e-6)
    # gradients are new objects, never the arguments themselves
    assert grads[0] is not x and grads[1] is not ws


# --- determinism ------------------------------------------------------------------------------

SOURCES = textwrap.dedent("""
    import json, sys
    import numpy as np
    import s2sad
    from tests import cases_control as C, test_hygiene as H
    rng = np.random.default_rng(0)
    cases = {
        "rnn": (C.rnn, (rng.normal(size=(3, 3)), rng.normal(size=(3, 2)),
                        rng.normal(size=(4, 2)), rng.normal(size=3)), {}),
        "early_returns": (C.early_returns, (0.5,), {}),
        "setitem_in_loop": (C.setitem_in_loop, (rng.normal(size=4),), {}),
        "append_loop": (C.append_loop, (0.3,), {"annotate": True}),
        "list_comprehension": (C.list_comprehension, (rng.normal(size=3),), {}),
        "names": (H.names_like_generated_ones, (0.7, -0.4), {"debug_nans": True}),
        "noopt": (C.nested, (rng.normal(size=(3, 3)), rng.normal(size=(2, 3))),
                  {"optimize": False}),
    }
    out = {}
    for name, (f, args, options) in cases.items():
        for wrt in (0, tuple(range(len(args)))):
            out[f"{name}-{wrt}"] = s2sad.grad(f, wrt=wrt, **options).source_for(*args)
    json.dump(out, sys.stdout)
""")


def sources_in_a_new_process(hash_seed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run([sys.executable, "-c", SOURCES], cwd=ROOT, env=env, check=False,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_generated_source_is_identical_across_runs_and_processes():
    namespace: dict = {}
    exec(SOURCES.replace("json.dump(out, sys.stdout)", ""), namespace)  # noqa: S102
    here = namespace["out"]
    again = {}
    for name, (f, args, options) in namespace["cases"].items():
        for wrt in (0, tuple(range(len(args)))):
            # a fresh compilation, not the cached one
            df = s2sad.api.GradientFunction(f, wrt, options.get("optimize", True),
                                            options.get("annotate", False), False,
                                            debug_nans=options.get("debug_nans", False))
            again[f"{name}-{wrt}"] = df.source_for(*args)
    assert again == here
    assert sources_in_a_new_process("1") == here
    assert sources_in_a_new_process("12345") == here


# --- pickling ---------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    pytest.param(lambda: s2sad.grad(loss), id="grad"),
    pytest.param(lambda: s2sad.grad(loss, wrt=(0, "x"), optimize=False), id="grad-tuple"),
    pytest.param(lambda: s2sad.value_and_grad(loss, wrt="W", annotate=True), id="value-and-grad"),
    pytest.param(lambda: s2sad.grad(loss, debug_nans=True), id="debug-nans"),
])
def test_gradients_pickle_by_reference(make):
    df = make()
    W, x = onp.eye(2) * 0.5, onp.array([0.3, -0.7])
    want = df(W, x)
    again = pickle.loads(pickle.dumps(df))
    assert type(again) is type(df) and again.func is loss
    got = again(W, x)
    for a, b in zip(want if isinstance(want, tuple) else (want,),
                    got if isinstance(got, tuple) else (got,), strict=True):
        onp.testing.assert_array_equal(a, b)


def test_higher_order_gradients_pickle():
    try:
        d2 = s2sad.grad(s2sad.grad(scalar_loss))
        want = d2(0.3, 2.0)
    except s2sad.S2sadError:
        pytest.skip("no higher-order derivatives")
    assert pickle.loads(pickle.dumps(d2))(0.3, 2.0) == want


def test_gradients_unpickle_in_another_process():
    blob = pickle.dumps(s2sad.grad(loss, wrt=(0, 1)))
    script = ("import pickle, sys, numpy as np\n"
              "df = pickle.loads(sys.stdin.buffer.read())\n"
              "gW, gx = df(np.eye(2) * 0.5, np.array([0.3, -0.7]))\n"
              "print(repr(float(gW.sum())), repr(float(gx.sum())))\n")
    done = subprocess.run([sys.executable, "-c", script], input=blob, cwd=ROOT, check=False,
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    gW, gx = s2sad.grad(loss, wrt=(0, 1))(onp.eye(2) * 0.5, onp.array([0.3, -0.7]))
    assert done.stdout.decode().split() == [repr(float(gW.sum())), repr(float(gx.sum()))]


def test_gradient_of_a_nested_function_fails_to_pickle_clearly():
    def local(x):
        return x * x

    with pytest.raises(pickle.PicklingError, match=r"(?s)pickled by reference.*module level"):
        pickle.dumps(s2sad.grad(local))


# --- threads ----------------------------------------------------------------------------------

def test_eight_threads_compile_once(monkeypatch):
    from s2sad import derivatives
    calls = []
    real = derivatives.compile_gradient

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)
    monkeypatch.setattr(derivatives, "compile_gradient", counting)

    def fresh(x, y):  # a new function object: nothing cached for it yet
        z = onp.sin(x) * y
        for i in range(3):
            z = z * 0.5 + onp.cos(x * i)
        return onp.sum(z)

    barrier = threading.Barrier(8)
    results, errors = [None] * 8, []

    def work(k):
        try:
            barrier.wait()
            results[k] = s2sad.grad(fresh)(onp.array([0.1, 0.2, 0.3]), 2.0)
        except Exception as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(calls) == 1
    want = numeric(fresh, [onp.array([0.1, 0.2, 0.3]), 2.0], 0)
    for r in results:
        onp.testing.assert_allclose(r, want, rtol=1e-6)
    assert len({id(s2sad.grad(fresh))}) == 1


def test_threads_with_different_kinds_compile_once_per_kind(monkeypatch):
    from s2sad import derivatives
    calls = []
    real = derivatives.compile_gradient
    monkeypatch.setattr(derivatives, "compile_gradient",
                        lambda *a, **k: calls.append(a[0]) or real(*a, **k))

    def fresh(x):
        return onp.sum(onp.tanh(x) * x)

    barrier = threading.Barrier(8)
    inputs = [0.5, onp.array([0.5, 1.0])] * 4
    results = [None] * 8

    def work(k):
        barrier.wait()
        results[k] = s2sad.grad(fresh)(inputs[k])
    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 2
    for k in range(8):
        onp.testing.assert_allclose(results[k], numeric(fresh, [inputs[k]], 0), rtol=1e-6)


# --- the cache keeps nothing alive ------------------------------------------------------------

@pytest.mark.parametrize("make", [s2sad.grad, s2sad.value_and_grad], ids=["grad", "vg"])
def test_cache_does_not_keep_arguments_alive(make):
    big = onp.ones(10 ** 6) * 0.5
    ref = weakref.ref(big)
    make(loss, wrt=1)(onp.ones((3, 10 ** 6)) * 1e-3, big)
    del big
    gc.collect()
    assert ref() is None


def test_cache_does_not_keep_arguments_alive_after_an_error():
    big = onp.zeros(10 ** 5)
    ref = weakref.ref(big)
    with onp.errstate(all="ignore"), pytest.raises(FloatingPointError):
        s2sad.grad(log_sum, debug_nans=True)(big)
    del big
    gc.collect()
    assert ref() is None


def log_sum(x):
    return onp.sum(onp.log(x))


def test_cache_does_not_keep_functions_or_their_closures_alive():
    def make():
        weights = onp.ones(10 ** 6)

        def f(x):
            return onp.sum(weights * x)
        return f, weakref.ref(weights)
    f, weights = make()
    s2sad.grad(f)(0.5)
    function = weakref.ref(f)
    del f
    gc.collect()
    assert function() is None and weights() is None


def test_cache_gives_the_same_gradient_and_follows_the_function_not_its_copied_attributes():
    assert s2sad.grad(log_sum) is s2sad.grad(log_sum)
    x = onp.array([0.5, 2.0])
    first = s2sad.grad(log_sum)(x)

    @functools.wraps(log_sum)  # copies log_sum.__dict__, s2sad's cache included, to `doubled`
    def doubled(x):
        return 2.0 * log_sum(x)
    assert s2sad.grad(doubled) is not s2sad.grad(log_sum)
    onp.testing.assert_allclose(s2sad.grad(doubled)(x), 2.0 * first)
    onp.testing.assert_allclose(first, 1.0 / x)


def _square_sum(x):
    return onp.sum(x * x)


def _no_rule(x):
    return onp.sum(onp.frexp(x)[0])  # no derivative rule: the build stops with an error


@pytest.mark.parametrize("enabled", [True, False])
def test_a_build_leaves_the_garbage_collector_as_it_found_it(enabled):
    # builds pause the cyclic collector (tree nodes are not cycles): after one, it runs
    # again, whether the build worked or raised; a user who paused it keeps it paused
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        s2sad.grad(_square_sum)(onp.ones(3))
        assert gc.isenabled() is enabled
        with pytest.raises(s2sad.DifferentiationError):
            s2sad.grad(_no_rule)(onp.ones(3))
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
