"""The face, session 30 (issue 39): errors a last adversarial pass found misleading.

Each refusal is read as Python prints it from a script (a subprocess): the user's file and
line, the source line, advice in the user's terms, and no frame or name of s2sad's own
(``output_seed``, ``scaled_power``, ``s2sad.runtime``, a ``t_3`` temporary). What s2sad
now takes instead of refusing is checked against central differences in float64.
"""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest

import s2sad
from tests.test_face import ON_310, frames, run_script, s2sad_frames

INTERNAL = re.compile(r"output_seed|scaled_power|s2sad\.runtime|s2sad/|\bt_\d|\bs_\d|\bi_\d")


def refused(tmp_path, body: str, call: str, **env):
    """Run ``body`` (a function ``f``) and ``call`` in a script: ``(stderr, the message's
    tail from the error's class on)``, checked for the frames left and internal names."""
    out = run_script(tmp_path, "import numpy as np\nimport s2sad\n\n\n" + body + "\n\n" +
                     call + "\n", **env)
    assert out.returncode == 1, out.stderr
    found = frames(out.stderr)
    assert found[0][0] == str(tmp_path / "user_code.py"), out.stderr  # the user's call
    assert len(s2sad_frames(found)) == (1 if ON_310 else 0), out.stderr
    tail = out.stderr[out.stderr.index("s2sad.errors."):]
    assert not INTERNAL.search(tail), tail
    return out.stderr, tail


def located(stderr: str, tmp_path, line: int, text: str) -> None:
    assert f'File "{tmp_path / "user_code.py"}", line {line}' in stderr, stderr
    assert f"    {text}\n" in stderr, stderr


def central_differences(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        out.flat[k] = (f(x + e) - f(x - e)) / (2 * eps)
    return out if x.ndim else float(out)


# --- an update in place names the user's variable -------------------------------------


@pytest.mark.parametrize("made, name", [("y = x", "y"), ("y = x[0:2]", "y"),
                                        ("y = x.T", "y")])
def test_an_update_through_another_name_names_it_and_advises_copying_it(tmp_path, made,
                                                                           name):
    """``y = x[0:2]; y[0] = 1.0`` said "an in-place update of the argument 'x'" at a line
    naming y, and advised ``y = x.copy()`` (for a view of x: the wrong values)."""
    body = f"def f(x):\n    {made}\n    {name}[0] = 1.0\n    return np.sum({name} * x)"
    stderr, tail = refused(tmp_path, body, "s2sad.grad(f)(np.ones(3))")
    located(stderr, tmp_path, 7, f"{name}[0] = 1.0")
    assert f"an in-place update of '{name}', which shares its memory with the argument " \
           "'x'" in tail, tail
    assert f"`{name} = {name}.copy()`" in tail and "x.copy()" not in tail, tail


def test_an_augmented_update_through_another_name_names_it(tmp_path):
    body = "def f(x):\n    y = x\n    y *= 2.0\n    return np.sum(y)"
    stderr, tail = refused(tmp_path, body, "s2sad.grad(f)(np.ones(3))")
    located(stderr, tmp_path, 7, "y *= 2.0")
    assert "in-place update of 'y', which shares its memory with the argument 'x'" in tail
    assert "Write `y = y * ...` for a new value" in tail, tail


def test_an_item_of_a_dict_copy_is_not_advised_a_copy_of_the_dict(tmp_path):
    """``q = p.copy()`` holds the caller's arrays: ``w = q['w']; w[0] = 0.0`` advised
    ``w = p.copy()``, a dict."""
    body = ("def f(p):\n    q = p.copy()\n    w = q['w']\n    w[0] = 0.0\n"
            "    return np.sum(p['w']) * p['b']")
    stderr, tail = refused(tmp_path, body, "s2sad.grad(f)({'w': np.ones(2), 'b': 0.5})")
    located(stderr, tmp_path, 8, "w[0] = 0.0")
    assert "'w', which shares its memory with the argument 'p'" in tail, tail
    assert "`w = w.copy()`" in tail and "p.copy()" not in tail, tail


def test_the_argument_itself_is_still_named_so(tmp_path):
    body = "def f(x):\n    x[0] = 1.0\n    return np.sum(x)"
    stderr, tail = refused(tmp_path, body, "s2sad.grad(f)(np.ones(3))")
    located(stderr, tmp_path, 6, "x[0] = 1.0")
    assert "an in-place update of the argument 'x'\n" in tail and "`x = x.copy()`" in tail


# --- a loop over a list that changes its length -----------------------------------------


# A loop over a list it appends to: on main an IndexError in the reverse sweep, or (with a
# break) a wrong value and gradient, 3.0 and 2.0 for 12.0 and 8.0. The grown_walks pass
# walks it as Python's list iterator does; `xs += [...]` there stays refused, at its line.
GROWING = {
    "append": "xs = [x, x * 2.0]\n    for v in xs:\n        if len(xs) < 5:\n"
              "            xs.append(v * 3.0)\n    return sum(xs)",
    "append-break": "xs = [x]\n    for v in xs:\n        xs.append(v * 2.0)\n"
                    "        if len(xs) > 3:\n            break\n    return xs[-1]",
    "enumerate-extend": "xs = [x, x]\n    for i, v in enumerate(xs):\n        if i < 2:\n"
                        "            xs.extend([v, v * v])\n    return xs[-1] * xs[2]",
    "nested-insert": "xs = [x, x * x]\n    for v in xs:\n        for w in [v]:\n"
                     "            xs.insert(0, w * 3.0)\n        break\n    return xs[0] * xs[-1]",
}


def _made(tmp_path, name, body):
    path = tmp_path / f"grows_{name.replace('-', '_')}.py"
    path.write_text("import numpy as np\n\n\ndef f(x):\n    " + body + "\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


@pytest.mark.parametrize("name", list(GROWING))
def test_a_loop_over_a_list_it_lengthens_is_followed(tmp_path, name):
    f = _made(tmp_path, name, GROWING[name])
    value, gradient = s2sad.value_and_grad(f)(1.5)
    assert value == f(1.5)
    np.testing.assert_allclose(gradient, central_differences(f, 1.5), rtol=1e-7)


def test_a_loop_over_a_list_it_augments_is_refused_at_that_line(tmp_path):
    body = ("xs = [x]\n    for v in xs:\n        if len(xs) < 4:\n            xs += [v * 2.0]\n"
            "    return xs[-1]")
    stderr, tail = refused(tmp_path, "def f(x):\n    " + body, "s2sad.grad(f)(1.5)")
    located(stderr, tmp_path, 9, "xs += [v * 2.0]")
    assert "IndexError" not in stderr, stderr


def walks_a_copy(x):
    xs = [x, x * 2.0]
    for v in list(xs):
        xs.append(v * 3.0)
    return sum(xs) * xs[-1]


def rebinds_the_list(x):
    xs = [x]
    for v in xs:
        xs = xs + [v * 2.0]
    return xs[-1] * len(xs)


def walks_by_index(x):
    xs = [x]
    i = 0
    while i < len(xs):
        v = xs[i]
        if len(xs) < 4:
            xs.append(v * 2.0)
        i += 1
    return xs[-1] * xs[1]


@pytest.mark.parametrize("f", [walks_a_copy, rebinds_the_list, walks_by_index])
def test_what_the_refusal_advises_is_taken(f):
    value, gradient = s2sad.value_and_grad(f)(1.3)
    assert value == f(1.3)
    np.testing.assert_allclose(gradient, central_differences(f, 1.3), rtol=1e-7)


# --- hvp of a function with *args -------------------------------------------------------


def cubes(*a, **k):
    def inner(*b, **c):
        return np.sum(b[0] ** 3) * c.get("s", 1.0)
    return inner(*a, **k)


@pytest.mark.parametrize("keywords", [{}, {"s": 2.0}])
def test_hvp_of_a_function_with_star_args(keywords):
    """``hvp(f)(x, v)`` of ``def f(*a, **k)`` took v for one of f's arguments: "give the
    direction v last", and with ``v=``: "jvp_grad_outer(): missing ... 'v'"."""
    x, v = np.array([1.0, -2.0]), np.array([0.5, 1.5])
    eps, gradient = 1e-6, s2sad.grad(cubes)
    expected = (gradient(x + eps * v, **keywords) - gradient(x - eps * v, **keywords)) / \
        (2 * eps)  # (H v: the gradient's derivative along v)
    np.testing.assert_allclose(s2sad.hvp(cubes)(x, v, **keywords), expected, rtol=1e-6)
    np.testing.assert_allclose(s2sad.hvp(cubes)(x, v=v, **keywords), expected, rtol=1e-6)


def test_hvp_of_a_function_with_star_args_and_no_direction(tmp_path):
    out = run_script(tmp_path, """\
        import numpy as np
        import s2sad


        def f(*a):
            return np.sum(a[0] ** 3)


        s2sad.hvp(f)()
    """)
    assert out.returncode == 1
    assert len(s2sad_frames(frames(out.stderr))) == (1 if ON_310 else 0), out.stderr
    assert "hvp_f(): give the direction v last, after the arguments of f" in out.stderr


# --- the numba target ---------------------------------------------------------------------


NUMBA_ARRAY_RETURNED = """\
def f(x):
    s = 0.0
    for i in range(3):
        s = s + x * i
    return s
"""


@pytest.mark.slow
def test_numba_a_returned_value_not_known_a_number_is_refused_in_the_users_terms(tmp_path):
    """It said "s2sad's helper output_seed (its generated code calls
    s2sad.runtime.output_seed, which numba's compiled gradient has no version of)"."""
    pytest.importorskip("numba")
    stderr, tail = refused(tmp_path, NUMBA_ARRAY_RETURNED,
                           "s2sad.grad(f, target='numba')(np.ones(3))",
                           S2SAD_CACHE_DIR=str(tmp_path / "cache"))
    located(stderr, tmp_path, 9, "return s")
    assert "a returned value not known to be a number" in tail, tail
    assert "Reduce it (np.sum, np.mean)" in tail and "target='numpy'" in tail, tail


def power_series(x):
    s = 0.0
    for i in range(4):
        s += x ** i / (i + 1)
    return s


@pytest.mark.slow
@pytest.mark.parametrize("x", [1.3, 0.0, -0.7])
def test_numba_a_power_with_the_loops_counter_as_exponent(x, tmp_path, monkeypatch):
    """``x ** i`` in a loop over i was refused on numba, naming s2sad's helper
    scaled_power; it now has a numba version (0 at x = 0 where i is 0, as NumPy's)."""
    pytest.importorskip("numba")
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path))
    got = s2sad.grad(power_series, target="numba")(x)
    assert got == s2sad.grad(power_series)(x)
    np.testing.assert_allclose(got, central_differences(power_series, x), rtol=1e-7,
                               atol=1e-9)


def test_numba_helper_scaled_power_matches_numpys_at_zero():
    numba = pytest.importorskip("numba")
    from s2sad.runtime.elementwise import scaled_power as python_version
    from s2sad.runtime.numba_tape import scaled_power

    compiled = numba.njit(lambda c, x, e: scaled_power(c, x, e))
    for args in [(0, 0.0, -1), (3, 2.0, 2), (1.0, -0.0, -3), (1.0, -0.0, -2), (2, 0.0, -0.5),
                 (-1, 0.0, -1), (0.0, 0.0, -1.0), (2, 1.5, -1), (1, -0.0, -1.0)]:
        assert compiled(*args) == python_version(*args), args


# --- the generated code a student reads -------------------------------------------------


def sine_times_exp(x):
    return np.sin(x) * np.exp(x)


def softplus_norm(x, y):
    return np.sum(np.tanh(x * y) ** 2)


@pytest.mark.parametrize("f, args", [(sine_times_exp, (0.7,)), (softplus_norm, (0.4, -1.3))],
                         ids=["sin-exp", "tanh-squared"])
def test_a_second_derivative_has_no_copies_of_its_seed(f, args):
    """``grad(grad(f))`` wrote ``s2_s_x_1 = 1.0``, ``s2_s_x = s2_s_x_1`` and multiplied by
    both: the first gradient's sensitivities are s2sad's names, free to propagate."""
    second = s2sad.grad(s2sad.grad(f))
    text = second.source_for(*args)
    assert "s2_s_" not in text, text
    first = s2sad.grad(f)
    expected = central_differences(lambda x: first(x, *args[1:]), args[0])
    np.testing.assert_allclose(second(*args), expected, rtol=1e-7)


def cubic_sum(x):
    return np.sum(2 * x ** 2 + 3 * x + 10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_np_sums_seed_over_an_argument_reads_ones_like(dtype):
    """``3 * sum_grad(1.0, like=x)`` reads ``3 * np.ones_like(x)``: x's shape and dtype, the
    same bits as the helper's (and as the unoptimized gradient's)."""
    x = np.array([0.3, -1.2, 2.0], dtype)
    gradient = s2sad.grad(cubic_sum)
    text = gradient.source_for(x)
    assert "3 * np.ones_like(x)" in text and "sum_grad" not in text, text
    assert "fresh_gradient" not in text, text  # (a new array of x's dtype: returned as is)
    got, plain = gradient(x), s2sad.grad(cubic_sum, optimize=False)(x)
    assert got.dtype == x.dtype and got.shape == x.shape and got.flags.writeable
    assert np.array_equal(got, plain), (got, plain)
    if dtype is np.float64:
        np.testing.assert_allclose(got, central_differences(cubic_sum, x), rtol=1e-7)
    else:  # (4 x + 3, in x's precision)
        np.testing.assert_allclose(got, 4 * x + 3, rtol=np.finfo(dtype).eps * 4)


def mean_of_a_spread(x):
    return np.mean(x) * 0.5


def test_a_seed_other_than_one_reads_full_like():
    x = np.linspace(-1.0, 1.0, 4)
    text = s2sad.grad(mean_of_a_spread).source_for(x)
    assert "np.full_like(x, 0.5)" in text and "sum_grad" not in text, text
    np.testing.assert_allclose(s2sad.grad(mean_of_a_spread)(x),
                               central_differences(mean_of_a_spread, x), rtol=1e-7)


# --- the entry's tests, cheaper ---------------------------------------------------------


def test_the_entry_tests_float64_by_identity_and_every_float_by_kind():
    """An argument described ``("nd", 1, "f")`` is tested ``x.dtype is float64_dtype or
    x.dtype.kind == 'f'``: the same arrays pass (float32, a byte-swapped float64), others go
    the general way."""
    import inspect

    from s2sad.dispatch import entry_source, make_entry

    def f(x, w):
        return 0.0

    descriptors = [("nd", 1, "f", ()), ("nd", 2, "f", ())]
    text = entry_source("grad_f", inspect.signature(f), descriptors, {}, False)
    assert text.count("dtype is float64_dtype or") == 2, text
    entry = make_entry("grad_f", inspect.signature(f), descriptors,
                       lambda x, w: "variant", lambda *a: "general")
    w = np.ones((2, 3))
    for x, expected in [(np.ones(3), "variant"), (np.ones(3, np.float32), "variant"),
                        (np.ones(3, ">f8"), "variant"), (np.ones(3, int), "general"),
                        (np.ones(3, complex), "general"), (np.ones(1), "general")]:
        assert entry(x, w) == expected, x.dtype
    assert s2sad.grad(cubic_sum)(np.ones(3, ">f8")).tolist() == [7.0, 7.0, 7.0]


def power_sums(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(x ** i)
    return s


@pytest.mark.slow
@pytest.mark.parametrize("x", [[0.5, 1.5], [0.0, 2.0]], ids=["positive", "a-zero"])
def test_numba_a_power_of_an_array_with_the_loops_counter_as_exponent(x, tmp_path,
                                                                     monkeypatch):
    """``np.sum(x ** i)``: numba's typing of the helper failed, and the message named it
    (``Function(<function scaled_power at 0x...>)``)."""
    pytest.importorskip("numba")
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path))
    x = np.array(x)
    got = s2sad.grad(power_sums, target="numba")(x)
    np.testing.assert_array_equal(got, s2sad.grad(power_sums)(x))
    np.testing.assert_allclose(got, central_differences(power_sums, x), rtol=1e-7, atol=1e-9)
