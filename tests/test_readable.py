"""The readable spelling of generated code (issue 39 §1): constants folded exactly, the
helpers' arguments named by their rule entry's ``keywords`` fact, a derivative of a
derivative's sensitivities named ``s2_...``, and every helper documented."""

import importlib
import inspect
import os
import pkgutil
import re
import zlib

import gast
import numpy as np
import pytest

import s2sad
import s2sad.runtime
from s2sad import registry
from s2sad.codegen import unparse
from s2sad.runtime import sum_grad, unbroadcast
from s2sad.transforms.readable import Readable

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs",
                    "reading-generated-code.md")


def _spelled(line, helpers=None, fold=True):
    tree = gast.parse(line)
    return unparse(Readable(helpers or {}, fold).visit(tree)).strip()


# --- constants ----------------------------------------------------------------------------

@pytest.mark.parametrize("line,expected", [
    ("s_x += 2 * -1.0 * 2 * x", "s_x += -4.0 * x"),
    ("s_b = 100 * 1.0", "s_b = 100.0"),
    ("s_x = 3 * 2 * x", "s_x = 6 * x"),             # ints stay ints
    ("s_x = 2.0 * 3 * x ** 2", "s_x = 6.0 * x ** 2"),
    ("s_x = scaled_power(2, x, 2 - 1)", "s_x = scaled_power(2, x, 1)"),
    ("s_x = x * 3 * 5", "s_x = x * 3 * 5"),         # (x * 3) * 5: not folded
    ("s_x = x * 2 * 3", "s_x = x * 6"),             # (x * 2: exact) * 3 is x * 6
    ("s_x = 0.5 * (x * 0.3)", "s_x = x * 0.15"),    # (a power of two: the same bits)
    ("s_x = 1.0 / 0 * x", "s_x = 1.0 / 0 * x"),     # Python's error stays
    ("s_x = 1e308 * 10.0 * x", "s_x = 1e+308 * 10.0 * x"),  # inf: not a literal
    ("s_x = 0.1 + 0.2 + x", "s_x = 0.1 + 0.2 + x"),  # (0.30000000000000004 reads worse)
    ("s_x = 1 / 3 * x", "s_x = 1 / 3 * x"),
    ("s_x = 1.0 / 2 * x", "s_x = 0.5 * x"),
])
def test_constants_fold_as_python_computes_them(line, expected):
    assert _spelled(line) == expected


@pytest.mark.parametrize("left", [0.1, 3, -2.5, 1 / 3, 7.0])
@pytest.mark.parametrize("right", [0.2, -1.0, 3, 1e-30])
@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
def test_a_folded_constant_is_the_same_bits_and_type(left, right, op):
    x = np.array([0.3, -1.7, 2.0], dtype=np.float32)
    line = f"y = {left!r} {op} {right!r} + x"  # ((left op right) + x)
    folded = _spelled(line)
    before, after = {"x": x}, {"x": x}
    exec(line, before)
    exec(folded, after)
    assert after["y"].dtype == before["y"].dtype
    np.testing.assert_array_equal(after["y"], before["y"])


def test_no_folding_without_the_optimizer():
    assert _spelled("s_x += 2 * -1.0 * x", fold=False) == "s_x += 2 * -1.0 * x"
    source = s2sad.grad(lambda_free_polynomial, optimize=False).source_for(np.ones(3))
    assert "scaled_power(2, x, 2 - 1)" in source
    assert "s_x += 6 * x" in s2sad.grad(lambda_free_polynomial).source_for(np.ones(3))


def lambda_free_polynomial(x):
    return np.sum(3 * x ** 2 - 2 * x)


# --- the helpers' arguments by name --------------------------------------------------------

def test_arguments_named_from_the_fact_and_defaults_left_out():
    helpers = {"sum_grad": sum_grad, "unbroadcast": unbroadcast}
    assert _spelled("s = sum_grad(g, x, None, False)", helpers) == "s = sum_grad(g, like=x)"
    assert _spelled("s = sum_grad(g, x, 1, True)", helpers) == \
        "s = sum_grad(g, like=x, axis=1, keepdims=True)"
    assert _spelled("s = sum_grad(g, x, (0, 1), False)", helpers) == \
        "s = sum_grad(g, like=x, axis=(0, 1))"
    assert _spelled("s = unbroadcast(g, t_3)", helpers) == "s = unbroadcast(g, like=t_3)"
    # 0 is not False, and a name is not its default
    assert _spelled("s = sum_grad(g, x, 0, 0)", helpers) == \
        "s = sum_grad(g, like=x, axis=0, keepdims=0)"
    assert _spelled("s = sum_grad(g, x, axis, k)", helpers) == \
        "s = sum_grad(g, like=x, axis=axis, keepdims=k)"
    # a name that is not the helper's alias is left alone
    assert _spelled("s = sum_grad(g, x, None, False)", {}) == "s = sum_grad(g, x, None, False)"


def _helpers_with_keywords():
    found = []
    for module in _runtime_modules():
        for name, value in vars(module).items():
            if inspect.isfunction(value) and value.__module__ == module.__name__:
                facts = registry.facts(value)
                if facts is not None and facts.keywords is not None:
                    found.append(value)
    return found


def test_every_keywords_fact_names_parameters_that_take_keywords():
    helpers = _helpers_with_keywords()
    assert sum_grad in helpers and unbroadcast in helpers and len(helpers) > 40
    for helper in helpers:
        parameters = list(inspect.signature(helper).parameters.values())
        first = registry.facts(helper).keywords
        assert 0 < first < len(parameters), helper.__name__
        assert all(p.kind is p.POSITIONAL_OR_KEYWORD for p in parameters), helper.__name__


def test_generated_code_names_the_arguments_and_runs():
    def f(x):
        return np.sum(np.max(x, axis=1) ** 2) + np.sum(np.cumsum(x, axis=0))

    x = np.array([[0.5, 2.0, -1.0], [3.0, 0.25, 1.5]])
    g = s2sad.grad(f)
    source = g.source_for(x)
    assert "extremum_grad(" in source and "axis=1)" in source
    assert "cumsum_grad(" in source and "axis=0)" in source
    assert ", None, False)" not in source
    expected = np.zeros_like(x)
    expected[np.arange(2), np.argmax(x, axis=1)] = 2 * np.max(x, axis=1)
    expected += np.array([[2.0], [1.0]])
    np.testing.assert_allclose(g(x), expected)


def test_named_arguments_differentiate_again():
    def f(x):
        return np.sum(np.sin(x) ** 2 * np.sum(x, axis=1, keepdims=True))

    x = np.array([[0.3, 0.8], [1.1, -0.4]])
    h = s2sad.hessian(f)(x)
    gg = s2sad.grad(lambda v: np.sum(s2sad.grad(f)(v) ** 2))
    assert "like=" in s2sad.grad(f).source_for(x)
    eps = 1e-6
    numeric = np.zeros(h.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        numeric[(slice(None), slice(None)) + i] = (s2sad.grad(f)(x + e) -
                                                   s2sad.grad(f)(x - e)) / (2 * eps)
    np.testing.assert_allclose(h, numeric, rtol=1e-6, atol=1e-8)
    assert np.all(np.isfinite(gg(x)))


def test_the_cupy_target_names_the_arguments_too():
    def f(x):
        return np.sum(np.sum(x, axis=1) ** 2)

    source = s2sad.grad(f, target="cupy").source_for(np.ones((2, 3)))
    assert "like=x, axis=1)" in source


# --- a derivative of a derivative --------------------------------------------------------

def cubic(x):
    return x ** 3 - 2 * x ** 2 + 100 * x


def test_second_derivative_names_its_sensitivities_s2():
    g2 = s2sad.grad(s2sad.grad(cubic))
    source = g2.source_for(0.75)
    assert "s2_x" in source and "s_s_" not in source and "s_x_2" not in source
    assert g2(0.75) == pytest.approx(6 * 0.75 - 4)


def test_third_derivative_names_its_sensitivities_s3():
    g3 = s2sad.grad(s2sad.grad(s2sad.grad(cubic)))
    source = g3.source_for(0.75)
    assert "s3_x" in source and "s_s_" not in source
    assert g3(0.75) == pytest.approx(6.0)


def test_a_user_name_like_s2_is_never_taken():
    def f(s2_x):
        return s2_x ** 3

    g2 = s2sad.grad(s2sad.grad(f))
    assert g2(2.0) == pytest.approx(12.0)


# --- the seed of a scalar dot ------------------------------------------------------------

def test_dot_of_two_vectors_is_a_scalar_and_needs_no_seed_check():
    def f(x):
        return 2 * np.dot(x, x)

    g = s2sad.grad(f)
    x = np.array([1.0, -2.0, 0.5])
    assert "output_seed" not in g.source_for(x)
    np.testing.assert_allclose(g(x), 4 * x)
    with pytest.raises(s2sad.NonScalarOutputError):
        g(np.ones((2, 2)))


# --- the documentation -------------------------------------------------------------------

def _runtime_modules():
    package = s2sad.runtime
    yield package
    for info in pkgutil.iter_modules(package.__path__):
        yield importlib.import_module(f"{package.__name__}.{info.name}")


def _exported_helpers():
    """Every public function and class the runtime's modules define (what generated code
    can import)."""
    names = set()
    for module in _runtime_modules():
        for name, value in vars(module).items():
            if not name.startswith("_") and (inspect.isfunction(value) or inspect.isclass(value)) \
                    and getattr(value, "__module__", "") == module.__name__:
                names.add(name)
    return names - {"public_module"}  # (it names modules for the compiler)


def test_every_runtime_helper_is_documented():
    with open(DOCS) as file:
        text = file.read()
    documented = set()
    for line in text.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            documented |= set(re.findall(r"`(\w+)`", first))
    missing = sorted(_exported_helpers() - documented)
    assert not missing, f"not in docs/reading-generated-code.md: {missing}"
    for line in text.splitlines():  # each row: the helper, its NumPy, an example
        if line.startswith("| `"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip("|"))]
            assert len(cells) == 3 and all(cells), line


def test_named_arguments_go_back_to_positions_when_read_again():
    """s2sad's passes read a helper's arguments by position where they read its own code
    again (``broadcast_like(g, like)`` of a tuple is a list): PrepareGenerated undoes the
    spelling, defaults given again (a named ``like=`` gave a third derivative of
    ``eigh(...).eigenvalues`` of -2.30 where it is -0.82)."""
    from s2sad.transforms.readable import named_arguments, positional_arguments
    for helper in _helpers_with_keywords():
        parameters = list(inspect.signature(helper).parameters.values())
        written = ", ".join(p.name if p.default is p.empty else repr(p.default)
                            for p in parameters)
        call = gast.parse(f"{helper.__name__}({written})").body[0].value
        before = unparse(call)
        named_arguments(call, helper)
        positional_arguments(call, helper)
        assert unparse(call) == before, helper.__name__


def test_a_third_derivative_through_a_named_result_is_right():
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import test_third_order as T
    import test_numpy_rules as N
    name, f, args, i = next(r for r in N.higher_order_rows() if r[0] == "eigh-fields")
    x = np.asarray(args[i])
    v = np.random.default_rng(zlib.crc32(name.encode())).normal(size=x.shape)

    def phi(t):
        return f(x + t * v)

    third = s2sad.grad(s2sad.grad(s2sad.grad(phi)))
    np.testing.assert_allclose(third(0.0), T.central(s2sad.grad(s2sad.grad(phi)), 0.0),
                               rtol=1e-5, atol=1e-6)
