"""SciPy's code written against the array API (SciPy 1.15+): ``xp = array_namespace(x)``
is NumPy, so ``xp.sum(v, axis=0, dtype=x.dtype)`` is ``np.sum``, in the user's code and in
SciPy's own functions s2sad reads (``scipy.optimize.rosen``, checked against SciPy's
``rosen_der``, ``rosen_hess`` and ``rosen_hess_prod``); what is not modeled is refused at
the user's line (skipped where SciPy is missing)."""

import inspect
import re
import math

import gast
import numpy as np
import pytest

optimize = pytest.importorskip("scipy.optimize")
from scipy._lib._array_api import array_namespace  # noqa: E402
import scipy.stats  # noqa: E402

import s2sad  # noqa: E402
from s2sad.transforms.desugar import namespace_variables  # noqa: E402
from test_higher_order import central_differences  # noqa: E402

X = np.array([0.3, 0.7, 1.2, -0.4, 0.9])
P = np.array([1.0, -0.5, 0.25, 2.0, -1.5])
rng = np.random.default_rng(36)

def rosen(x):
    return optimize.rosen(x)


def rosen_der_along_p(x):
    return np.sum(optimize.rosen_der(x) * P)


def rosen_of_a_grid(x):
    # rosen of a 2-by-n array: one value per column
    return np.sum(optimize.rosen(np.stack([x, x * x])) * np.arange(1.0, 6.0))


def test_rosen_gradient_is_rosen_der():
    np.testing.assert_allclose(s2sad.grad(rosen)(X), optimize.rosen_der(X), rtol=1e-12)


def test_rosen_hessian_is_rosen_hess():
    np.testing.assert_allclose(s2sad.hessian(rosen)(X), optimize.rosen_hess(X), rtol=1e-12)


def test_the_gradient_of_rosen_der_is_the_hessian_product():
    np.testing.assert_allclose(s2sad.grad(rosen_der_along_p)(X),
                               optimize.rosen_hess_prod(X, P), rtol=1e-12)


def test_rosen_forward_mode():
    v = rng.normal(size=X.shape)
    value, push = s2sad.jvp(rosen)(X)
    assert value == optimize.rosen(X)
    np.testing.assert_allclose(push(v), optimize.rosen_der(X) @ v, rtol=1e-12)


def test_rosen_broadcast_over_columns():
    np.testing.assert_allclose(s2sad.grad(rosen_of_a_grid)(X),
                               central_differences(rosen_of_a_grid, (X,), 0, 1e-6), rtol=1e-6)


def test_rosen_keeps_float32():
    assert s2sad.grad(rosen)(X.astype(np.float32)).dtype == np.float32


# --- the user's own code, written the same way ----------------------------------------------

def written_like_scipy(x):
    xp = array_namespace(x)
    x = xp.asarray(x)
    return xp.sum(xp.exp(x[1:]) * x[:-1] ** 2, axis=0, dtype=x.dtype)


def module_in_a_variable(x):
    xp = np
    m = math
    return xp.sum(xp.sin(x), axis=0) * m.cos(0.5)


@pytest.mark.parametrize("f", [written_like_scipy, module_in_a_variable])
def test_a_variable_holding_a_namespace_is_the_module(f):
    np.testing.assert_allclose(s2sad.grad(f)(X), central_differences(f, (X,), 0, 1e-6),
                               rtol=1e-6, atol=1e-8)
    source = s2sad.grad(f).source
    assert not re.search(r"\bxp\b", source)


try:  # (SciPy 1.16+)
    from scipy._lib._array_api import xp_promote
except ImportError:
    xp_promote = None


def promoted(x):
    xp = array_namespace(x)
    y = xp_promote(x, force_floating=True, xp=xp)
    return xp.sum(y * y * x, axis=0, dtype=y.dtype)


@pytest.mark.skipif(xp_promote is None, reason="SciPy before 1.16 has no xp_promote")
def test_xp_promote_is_the_array_itself():
    np.testing.assert_allclose(s2sad.grad(promoted)(X), 3.0 * X ** 2, rtol=1e-12)
    v = rng.normal(size=X.shape)
    np.testing.assert_allclose(s2sad.jvp(promoted)(X)[1](v), (3.0 * X ** 2) @ v, rtol=1e-12)
    np.testing.assert_allclose(s2sad.hessian(promoted)(X), np.diag(6.0 * X), rtol=1e-12)
    assert s2sad.grad(promoted)(X.astype(np.float32)).dtype == np.float32


def _variables(text, local_names):
    tree = gast.parse(text).body[0]
    found = namespace_variables(tree, local_names, "np",
                                {"np": np, "math": math, "array_namespace": array_namespace,
                                 "f": len}.__getitem__)
    return {name: gast.unparse(value).strip() for name, value in found.items()}


def test_only_a_variable_always_given_a_module_is_one():
    assert _variables("def f(x):\n    xp = array_namespace(x)\n    m = math\n    return x",
                      {"x", "xp", "m"}) == {"xp": "np", "m": "math"}
    # given something else too, a parameter, or bound otherwise: an ordinary variable
    assert _variables("def f(x):\n    xp = np\n    xp = x\n    return x", {"x", "xp"}) == {}
    assert _variables("def f(xp):\n    xp = np\n    return xp", {"xp"}) == {}
    assert _variables("def f(x):\n    xp = np\n    for xp in x:\n        pass\n    return x",
                      {"x", "xp"}) == {}
    assert _variables("def f(x):\n    xp = f(x)\n    return x", {"x", "xp"}) == {}


# --- refused ----------------------------------------------------------------------------------

def variation(x):
    return scipy.stats.variation(x)  # <- here


def test_scipy_code_not_read_is_refused_at_the_users_line():
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(variation)(X)
    lines, first = inspect.getsourcelines(variation)
    assert info.value.lineno == first + next(i for i, t in enumerate(lines) if "<- here" in t)
    assert "no derivative rule for scipy.stats.variation" in str(info.value)
