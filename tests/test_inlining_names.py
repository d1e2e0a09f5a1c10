"""An inlined helper's parameter reads the value it was given, in every construct.

A helper ``h(x, v)`` is inlined into its caller with its read-only parameters renamed to
the values passed. Where the caller has names of its own spelled like the helper's
parameters (``f(v): return h(v, K0)``: the caller's ``v`` is the helper's ``x``), a read
of the helper's ``v`` must still be the helper's ``v`` (``K0`` here), never the caller's.

The table crosses helpers that read their parameters in one construct each (a
conditional expression, ``if``, ``for``, ``while``, a comprehension, ``and``/``or``, a
lambda, a nested def, a default argument) with callers that pass them a module
constant, a literal, the caller's locals or arguments of the other parameter's name.
Each program is checked in reverse mode (``value_and_grad``) and forward mode (``jvp``),
value and derivative, against central differences in float64.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import s2sad

# helper h(x, v): each reads v (and x) in one construct
HELPERS = {
    "ifexp_constant_test": """
def h(x, v):
    return x * x + (K0 if K0 <= 0.0 else v)
""",
    "ifexp": """
def h(x, v):
    return x * x + (v * x if x > -10.0 else x)
""",
    "ifexp_both_branches": """
def h(x, v):
    return (v if K0 > 0.0 else x) * (x if K0 <= 0.0 else v + x)
""",
    "boolop_or": """
def h(x, v):
    return x * (v or x)
""",
    "boolop_and": """
def h(x, v):
    return x * (v and x) + v
""",
    "if_statement": """
def h(x, v):
    if x > -10.0:
        r = v * x
    else:
        r = x
    return r + v
""",
    "if_constant_test": """
def h(x, v):
    if K0 <= 0.0:
        r = x
    else:
        r = v * x
    return r
""",
    "nested_branches": """
def h(x, v):
    r = x
    if x > -10.0:
        if K0 > 0.0:
            r = r * v
        else:
            r = r + x
    return r + (v if x < 10.0 else x)
""",
    "for_range": """
def h(x, v):
    r = 0.0
    for i in range(3):
        r = r + v * x
    return r
""",
    "for_list": """
def h(x, v):
    r = 0.0
    for t in [v, x]:
        r = r + t * v
    return r
""",
    "while": """
def h(x, v):
    r = x
    k = 0
    while k < 2:
        r = r * v + x
        k += 1
    return r
""",
    "comprehension": """
def h(x, v):
    return sum([t * v for t in [x, v]])
""",
    "comprehension_ifexp": """
def h(x, v):
    return sum([t * v if K0 > 0.0 else t for t in [x, v, x]])
""",
    "lambda": """
def h(x, v):
    g = lambda t: t * v
    return g(x) + v
""",
    "lambda_default": """
def h(x, v):
    g = lambda t, c=v: t * c
    return g(x)
""",
    "nested_def": """
def h(x, v):
    def g(t):
        return t * v + x
    return g(v)
""",
    "nested_def_default": """
def h(x, v):
    def g(t, c=v):
        return t * c
    return g(x) + g(x, x)
""",
    "assigned_parameter": """
def h(x, v):
    v = v * x
    return x + (v if K0 > 0.0 else x)
""",
    "boolop_module_constant": """
def h(x, v):
    return x * (K0 or v) + (K0 and v)
""",
}

# caller f(p, q): gives h's parameters values whose caller-side names collide with h's
CALLERS = {
    "module_constant": """
def f(v, x):
    return h(v, K0) * x
""",
    "literal": """
def f(v, x):
    return h(v, 0.75) * x
""",
    "callers_locals": """
def f(a, b):
    v = a * b
    x = a - b
    return h(v, x)
""",
    "callers_arguments": """
def f(x, v):
    return h(v, x)
""",
    "keywords": """
def f(v, x):
    return h(v=x, x=v)
""",
    "constant_beside_argument": """
def f(v, x):
    return h(x, K0) + v * h(v, x)
""",
}

ARGS = (0.3, 0.6)
DIRECTION = (0.7, -1.3)
_DIR = Path(tempfile.mkdtemp(prefix="s2sad-inlining-names-"))
_MODULES: dict[str, object] = {}


def load(helper: str, caller: str):
    """The program (module constant, helper, caller) written to a file and imported."""
    key = f"s2sad_inl_{helper}_{caller}"
    if key not in _MODULES:
        path = _DIR / f"{key}.py"
        path.write_text("K0 = 0.75\n\n" + HELPERS[helper] + "\n" + CALLERS[caller])
        spec = importlib.util.spec_from_file_location(key, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
        _MODULES[key] = module
    return _MODULES[key].f


def differences(f, args, direction, h=1e-4):
    """The derivative of ``f`` at ``args`` along ``direction``: a five-point stencil."""
    def at(s):
        return f(*(a + s * d for a, d in zip(args, direction)))
    return (-at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h)) / (12 * h)


CASES = [(h, c) for h in HELPERS for c in CALLERS]


@pytest.mark.parametrize("helper,caller", CASES)
def test_reverse(helper, caller):
    f = load(helper, caller)
    value, grads = s2sad.value_and_grad(f, wrt=(0, 1))(*ARGS)
    assert value == pytest.approx(f(*ARGS), rel=1e-12, abs=1e-12)
    for i in range(2):
        unit = tuple(float(i == j) for j in range(2))
        assert grads[i] == pytest.approx(differences(f, ARGS, unit), rel=1e-7, abs=1e-8)


@pytest.mark.parametrize("helper,caller", CASES)
def test_forward(helper, caller):
    f = load(helper, caller)
    value, push = s2sad.jvp(f, wrt=(0, 1))(*ARGS)
    assert value == pytest.approx(f(*ARGS), rel=1e-12, abs=1e-12)
    assert push(*DIRECTION) == pytest.approx(differences(f, ARGS, DIRECTION),
                                             rel=1e-7, abs=1e-8)


def test_reproducer_generated_code_reads_the_parameter():
    """prog3 of the long fuzzer: the else branch read the caller's ``v`` (``s_v = 1.0``)."""
    f = load("ifexp_constant_test", "module_constant")
    value, grads = s2sad.value_and_grad(f, wrt=(0, 1))(*ARGS)
    assert value == pytest.approx((0.3 * 0.3 + 0.75) * 0.6)
    assert grads[0] == pytest.approx(2 * 0.3 * 0.6)
    source = s2sad.grad(f).source_for(*ARGS)
    assert "t_2 = v\n" not in source.replace("    ", "")


def test_fuzz_program_with_a_helper_in_a_loop():
    """prog1 of the long fuzzer: an internal error from the same cause."""
    source = '''import math

import numpy as onp

K0 = 0.75
G0 = onp.array([0.5, -0.25, 1.0])


def h0(x, v, a):
    return onp.dot(x, x) + onp.mean(onp.sin(a)) + (K0 if K0 <= 0.0 else v)


def h1(x=0.5):
    x = h0(x=G0, v=(K0 - x), a=G0)
    return x + K0 * 1.5


def f(s_v, v, n):
    sum_grad = (math.tanh(K0) if (not K0 < 1.5) else h0(v, K0, a=v))
    t_2 = onp.prod(onp.cos(onp.array([onp.log1p(sum_grad ** 2),
                                      onp.sum(onp.logaddexp(v, v)),
                                      sum_grad / (1.0 + onp.square(sum_grad))])))
    for b in s_v:
        a = []
        for k in range(3):
            a.append(b / (2.0 + onp.cos(t_2 * 1.5)))
        s_x = onp.tanh(onp.sum(onp.stack(a)))
        s_x *= onp.sin(h1())
    return onp.mean(onp.sin(v)) + t_2
'''
    path = _DIR / "s2sad_inl_fuzz_prog1.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    f = module.f
    s_v, v = np.array([0.3, -0.4]), np.array([0.2, 0.5, -0.7])
    value, grad = s2sad.value_and_grad(f, wrt=1)(s_v, v, 2)
    assert value == pytest.approx(f(s_v, v, 2), rel=1e-12)
    want = [differences(lambda t: f(s_v, v + t * e, 2), (0.0,), (1.0,)) for e in np.eye(3)]
    np.testing.assert_allclose(grad, want, rtol=1e-7, atol=1e-9)
