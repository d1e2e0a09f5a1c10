"""The CuPy target: the gradient runs where the data lives.

* Golden tests of the generated CuPy source (no GPU, no CuPy needed).
* The whole gradient table (``test_gradients``, ``test_control_flow`` and
  ``test_numpy_rules`` cases) run on CuPy arrays (inputs moved with
  ``cupy.asarray``) and compared with the NumPy gradients, on two backends:

  - ``cupy``: the real CuPy, on a GPU. Skipped, with the reason, where CuPy is
    not installed or no GPU is visible.
  - ``emulated``: ``tests/cupy_cases/fake_cupy.py``, CuPy emulated on the CPU,
    strict where CuPy is (no scalars, no implicit NumPy conversion, no NumPy
    function on device arrays, only CuPy 14's names). It always runs, so CPU CI
    checks that nothing in the generated code or the runtime helpers leaves the
    device or calls NumPy on device data. It says nothing of GPU numerics or speed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.join(_HERE, "cupy_cases") not in sys.path:  # (the tests folder: conftest.py)
    sys.path.insert(0, os.path.join(_HERE, "cupy_cases"))

import s2sad  # noqa: E402
from s2sad.runtime import cupy_compat  # noqa: E402
from s2sad.api import GradientFunction  # noqa: E402
from s2sad.backends import CUPY, BackendUnavailableError, array_module  # noqa: E402
from s2sad.errors import DifferentiationError, S2sadError  # noqa: E402
from examples.f4 import f4  # noqa: E402
import cupy_functions as F  # noqa: E402
import fake_cupy  # noqa: E402
from tests import test_control_flow as TC  # noqa: E402
from tests import test_gradients as TG  # noqa: E402
from tests import test_numpy_rules as TR  # noqa: E402

# --- the two CuPy backends ----------------------------------------------------------------


def _real_cupy():
    """The real CuPy, or a pytest skip saying why it cannot run here."""
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed "
                               "(pip install cupy-cuda12x, or the `cupy` extra of s2sad)")
    if getattr(cupy, "__fake__", False):
        pytest.skip("sys.modules['cupy'] is the CPU emulation")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError and friends: no driver, no device
        pytest.skip(f"CuPy is installed but no CUDA device is usable: {exc}")
    if count < 1:
        pytest.skip("CuPy is installed but no CUDA device is visible")
    return cupy


BACKENDS = ["cupy", "emulated"]


def backend_module(backend, monkeypatch):
    """The ``cupy`` module the generated code will import, real or emulated."""
    if backend == "cupy":
        return _real_cupy()
    return fake_cupy.install(monkeypatch)


@pytest.fixture(params=BACKENDS)
def cupy(request, monkeypatch):
    return backend_module(request.param, monkeypatch)


@pytest.fixture
def emulated(monkeypatch):
    return fake_cupy.install(monkeypatch)


def fresh_grad(f, wrt, optimize=True, target="auto"):
    """A new gradient function, with no compiled variant shared with other tests (the
    real and the emulated CuPy describe their arrays alike)."""
    return GradientFunction(f, wrt, optimize, False, False, target)


def to_device(cupy, value):
    """``value`` with every NumPy array moved to ``cupy`` (scalars and lists stay)."""
    if isinstance(value, np.ndarray):
        return cupy.asarray(value)
    if isinstance(value, list):
        return [to_device(cupy, v) for v in value]
    if isinstance(value, tuple):
        return tuple(to_device(cupy, v) for v in value)
    if isinstance(value, dict):
        return {k: to_device(cupy, v) for k, v in value.items()}
    return value


def to_host(cupy, value):
    if isinstance(value, cupy.ndarray):
        return cupy.asnumpy(value)
    if isinstance(value, (list, tuple)):
        return type(value)(to_host(cupy, v) for v in value)
    if isinstance(value, dict):
        return {k: to_host(cupy, v) for k, v in value.items()}
    return value


def _on_device(cupy, value) -> bool:
    if isinstance(value, cupy.ndarray):
        return True
    if isinstance(value, (list, tuple)):
        return any(_on_device(cupy, v) for v in value)
    if isinstance(value, dict):
        return any(_on_device(cupy, v) for v in value.values())
    return False


def check_placement(cupy, arg, g):
    """The gradient of a device array is a device array of its shape and dtype; of a host
    scalar, a host scalar of its type; containers keep their structure."""
    if isinstance(arg, cupy.ndarray):
        assert isinstance(g, cupy.ndarray), f"expected a CuPy array, got {type(g).__name__}"
        assert g.shape == arg.shape and (g.dtype == arg.dtype or arg.dtype.kind not in "fc")
    elif isinstance(arg, (list, tuple)):
        assert type(g) is type(arg) and len(g) == len(arg), f"{type(g)} for {type(arg)}"
        for a, b in zip(arg, g):
            check_placement(cupy, a, b)
    elif isinstance(arg, dict):
        assert isinstance(g, dict)
        for k in arg:
            check_placement(cupy, arg[k], g[k])
    elif isinstance(arg, np.generic):
        assert isinstance(g, np.generic), f"expected a NumPy scalar, got {type(g).__name__}"
    elif isinstance(arg, float):
        assert type(g) is float, f"expected a Python float, got {type(g).__name__}"


def _outcome(call):
    try:
        return call(), None
    except Exception as exc:  # the NumPy gradient's error, to be matched
        return None, exc


def _copy(x):
    return TG._copy(x)


def _loose(args) -> bool:
    return any(TG._has_float32(a) for a in args)


def compare_with_numpy(cupy, f, args, wrt, optimize, case=None):
    """The gradient on CuPy arrays equals the NumPy gradient and stays on the device; its
    source is the NumPy gradient's with the module changed.

    ``case`` in ``CUPY_DIFFERENCES``: an error is the known CuPy difference (xfail).
    """
    numpy_df = s2sad.grad(f, wrt, optimize=optimize)
    expected, error = _outcome(lambda: numpy_df(*_copy(args)))
    device_args = to_device(cupy, _copy(args))
    target = "auto" if _on_device(cupy, device_args) else "cupy"
    df = fresh_grad(f, wrt, optimize, target)
    if error is not None:
        with pytest.raises(type(error)):
            df(*device_args)
        return
    if case in CUPY_UNDEFINED:
        with pytest.raises(DifferentiationError, match="repeated in idx.*undefined"):
            df(*device_args)
        return
    try:
        got = df(*device_args)
    except (TypeError, AttributeError, ValueError) as exc:
        if case in CUPY_DIFFERENCES:
            pytest.xfail(f"{CUPY_DIFFERENCES[case]} ({type(exc).__name__}: {exc})")
        raise
    # what a student comparing the two sources sees: the module changes, nothing else (but
    # the host values CuPy wants as arrays: cp.asarray(xs))
    assert _without_conversions(_sorted_header(_calls_undone(df.source))) == \
        _without_conversions(as_cupy_source(numpy_df.source))
    indices = TG._wrt_indices(f, wrt)
    pairs = zip(indices, got if isinstance(wrt, tuple) else (got,),
                expected if isinstance(wrt, tuple) else (expected,))
    rtol, atol = (2e-3, 2e-3) if _loose(args) else (1e-6, 1e-9)
    for i, g, e in pairs:
        check_placement(cupy, device_args[i], g)
        np.testing.assert_allclose(TG._flat_get(to_host(cupy, g)), TG._flat_get(e),
                                   rtol=rtol, atol=atol)


# --- the tables, reused -------------------------------------------------------------------

# Where the CuPy gradient cannot be the NumPy one. Keyed by table case id; an error there is
# an expected failure (xfail), success is fine. (Lists and tuples of numbers, which CuPy
# takes nowhere NumPy converts them, are converted by the CuPy variant.)
CUPY_DIFFERENCES: dict = {
    "float64-cast": "cupy.float64 is NumPy's float64, which takes no CuPy array: the function "
                    "itself cannot run there",
}
# Where the function's own result is undefined on CuPy (y[idx] = v with a repeated position:
# CuPy stores any one of the values), the gradient is refused at the user's line.
CUPY_UNDEFINED = frozenset({"dup-assign", "dup-add", "dup-two-axes", "dup-columns", "dup-counts",
                            "dup-in-a-loop"})


def _rows(params, with_optimize):
    """``(f, args, wrt, optimize, case)`` rows from a table's ``pytest.param``s, without
    their NumPy xfail marks (the CuPy gradient is compared with the NumPy one, bugs and
    all)."""
    rows = []
    for p in params:
        if with_optimize:
            for optimize, label in ((True, "opt"), (False, "noopt")):
                rows.append(pytest.param(*p.values, optimize, p.id, id=f"{p.id}-{label}"))
        else:
            *values, optimize = p.values
            case = re.sub(r"-(opt|noopt)$", "", p.id)
            rows.append(pytest.param(*values, optimize, case, id=p.id))
    return rows


GRADIENT_ROWS = _rows(TG.CASES, True)
CONTROL_ROWS = _rows(TC.CASES, True)
RULE_ROWS = _rows([p for row in TR.CASES for p in row], False)


def _on_backends(rows, emulated_too=lambda row: True):
    """Each row on each backend; on the emulation (CPU CI), the rows ``emulated_too`` keeps."""
    return [pytest.param(backend, *row.values, id=f"{backend}-{row.id}")
            for backend in BACKENDS for row in rows
            if backend == "cupy" or emulated_too(row)]


@pytest.mark.parametrize("backend, f, args, wrt, optimize, case", _on_backends(GRADIENT_ROWS))
def test_gradient_table_on_cupy(backend, f, args, wrt, optimize, case, monkeypatch):
    compare_with_numpy(backend_module(backend, monkeypatch), f, args, wrt, optimize, case)


@pytest.mark.parametrize("backend, f, args, wrt, optimize, case", _on_backends(CONTROL_ROWS))
def test_control_flow_table_on_cupy(backend, f, args, wrt, optimize, case, monkeypatch):
    compare_with_numpy(backend_module(backend, monkeypatch), f, args, wrt, optimize, case)


# the emulation checks where data and calls go: the optimized variant of each rule suffices
@pytest.mark.parametrize("backend, f, args, wrt, optimize, case",
                         _on_backends(RULE_ROWS, lambda row: row.values[3]))
def test_numpy_rule_table_on_cupy(backend, f, args, wrt, optimize, case, monkeypatch):
    compare_with_numpy(backend_module(backend, monkeypatch), f, args, wrt, optimize, case)


# --- golden sources: generated without CuPy, they differ from NumPy's by the module only ----

FUNCTIONS = os.path.join(_HERE, "cupy_cases", "cupy_functions.py")

MLP_ARGS = (np.ones((4, 3)), np.ones(3), np.ones((3, 2)), np.ones(2), np.ones((5, 4)),
            np.ones((5, 2)))

GOLDEN_MLP = '''\
import cupy as cp
from s2sad.runtime import sum_grad
from s2sad.runtime.gradients import fresh_gradient

def grad_mlp_loss(W1, b1, W2, b2, x, y):
    h = cp.tanh(x @ W1 + b1)
    t_3 = h @ W2
    out = t_3 + b2
    s_5 = sum_grad(1.0, like=t_3) / t_3.size
    s_out = s_5 * 2 * (out - y)
    s_W2 = h.T @ s_out
    return fresh_gradient(W2, s_W2)
'''

GOLDEN_RNN = '''\
import cupy as cp
from s2sad.runtime import as_gradient

def grad_rnn_loss(W, U, xs, h0):
    s_W, s_U = [0.0] * 2
    h = h0
    t_2 = xs.shape[0]
    h_saved = [None] * t_2
    for t in range(t_2):
        h_saved[t] = h
        h = cp.tanh(W @ h + U @ xs[t])
    s_h = 2 * h
    for t in reversed(range(t_2)):
        s_6 = s_h * (1.0 - h ** 2)
        h = h_saved[t]
        s_U += cp.outer(s_6, xs[t])
        s_W += cp.outer(s_6, h)
        s_h = W.T @ s_6
    return (as_gradient(W, s_W), as_gradient(U, s_U))
'''

GOLDEN_CONSTANTS = '''\
import cupy as cp
import cupy.linalg as la
from cupy import tanh
from s2sad.runtime import broadcast_shape, norm_grad, sum_grad, unbroadcast_product
from s2sad.runtime.gradients import fresh_gradient

def grad_with_constants(x):
    ones = cp.ones(x.shape[0])
    scale = cp.linspace(0.0, 1.0, x.shape[0])
    t_5 = tanh(x)
    s_x = norm_grad(1.0, la.norm(x), x)
    s_7 = sum_grad(1.0, like=broadcast_shape(broadcast_shape(t_5, ones), scale))
    s_6 = unbroadcast_product(scale, s_7, like=broadcast_shape(t_5, ones))
    s_5 = unbroadcast_product(ones, s_6, like=x)
    s_x = s_x + s_5 * (1.0 - t_5 ** 2)
    return fresh_gradient(x, s_x)
'''

GOLDEN_SCATTER = '''\
import cupy as cp
from s2sad.runtime import zeros_like_structure
from s2sad.runtime.gradients import fresh_gradient

def grad_scatter(x, idx):
    s_x = zeros_like_structure(x)
    cp.add.at(s_x, cp.s_[idx], 2 * x[idx])
    return fresh_gradient(x, s_x)
'''


def as_cupy_source(numpy_source: str) -> str:
    """What the CuPy source must be: the NumPy source with the module changed, that is
    ``np.`` -> ``cp.`` and ``import numpy...`` -> ``import cupy...`` (import lines sorted);
    a NumPy function CuPy lacks (``np.linalg.vector_norm``) is called from
    ``s2sad.runtime.cupy_compat`` (``vector_norm``)."""
    header, body = _split(numpy_source)
    stand_ins = set()
    for (module, name), stand_in in cupy_compat.REPLACEMENTS.items():
        called = re.escape(module.replace("numpy", "np") + "." + name) + r"\b"
        if re.search(called, body):
            body = re.sub(called, stand_in, body)
            stand_ins.add(stand_in)
    header = [re.sub(r"^import numpy\b", "import cupy", line) for line in header
              if not line.startswith("from numpy ")]  # (from cupy: left out on both sides)
    header = [line.replace("import cupy as np", "import cupy as cp") for line in header]
    if stand_ins:
        header.append("from s2sad.runtime.cupy_compat import " + ", ".join(sorted(stand_ins)))
        if not re.search(r"\bnp\.", body):
            header.remove("import cupy as cp")
    return "\n".join(sorted(header)) + "\n\n" + re.sub(r"\bnp\.", "cp.", body)


def _calls_undone(cupy_source: str) -> str:
    """``cupy_source`` with the calls s2sad gives to stand-ins because CuPy's function would
    not take them (a keyword CuPy lacks: ``clip(x, min=0.0)``; a display of numbers and
    arrays: ``array([x, 1.0])``; polygamma's order a number) written back as the CuPy
    calls NumPy's code makes (``as_cupy_source`` writes the other stand-ins)."""
    header, body = _split(cupy_source)
    pairs = [*((key, stand_in) for key, (_, stand_in) in CUPY.keyword_stand_ins.items()),
             *CUPY.display_stand_ins.items(), (("scipy.special", "polygamma"), "polygamma")]
    aliases = {}  # (from s2sad.runtime.cupy_compat import polygamma as polygamma_1)
    for line in header:
        if line.startswith("from s2sad.runtime.cupy_compat import "):
            for part in line.split(" import ", 1)[1].split(", "):
                name, _, alias = part.partition(" as ")
                aliases[name] = alias or name
    for (module, name), stand_in in pairs:
        stand_in = aliases.get(stand_in, stand_in)
        call = rf"(?<![\w.]){stand_in}\("
        if not re.search(call, body):
            continue
        if module.startswith("numpy"):
            qualified = "cp." + ".".join([*module.split(".")[1:], name])
        else:  # (scipy.special: the alias the code has for cupyx.scipy.special)
            qualified = next((line.split(" as ")[1] for line in header
                              if line.startswith("import cupyx.scipy.special as ")),
                             "special") + "." + name
        body = re.sub(call, qualified + "(", body)
        header = [re.sub(rf"(, )?\b(\w+ as )?{stand_in}\b(, )?",
                         lambda m: ", " if m.group(1) and m.group(3) else "", line)
                  if line.startswith("from s2sad.runtime.cupy_compat import ") else line
                  for line in header]
    header = [line for line in header
              if line.strip() != "from s2sad.runtime.cupy_compat import"]
    if re.search(r"\bcp\.", body) and "import cupy as cp" not in header:
        header.append("import cupy as cp")
    return "\n".join(header) + "\n\n" + body


def _without_conversions(source: str) -> str:
    """``source`` with ``cp.asarray(name)`` read as ``name``."""
    return re.sub(r"\bcp\.asarray\((\w+)\)", r"\1", source)


def _split(source: str):
    lines = source.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("def "))
    return [line for line in lines[:start] if line.strip()], "\n".join(lines[start:])


def _sorted_header(source: str) -> str:
    header, body = _split(source)
    return "\n".join(sorted(line for line in header if not line.startswith("from cupy "))) \
        + "\n\n" + body


GOLDEN_CASES = [
    ("mlp_loss", 2, MLP_ARGS, "GOLDEN_MLP"),
    ("rnn_loss", (0, 1), (np.ones((3, 3)), np.ones((3, 2)), np.ones((4, 2)), np.ones(3)),
     "GOLDEN_RNN"),
    ("with_constants", 0, (np.ones(3),), "GOLDEN_CONSTANTS"),
    ("scatter", 0, (np.ones(3), np.array([0, 1, 1])), "GOLDEN_SCATTER"),
]


@pytest.mark.parametrize("name, wrt, args, golden", GOLDEN_CASES,
                         ids=["mlp", "rnn-loop", "constants-and-imported-names", "scatter-add-at"])
def test_golden_cupy_source(name, wrt, args, golden):
    """The CuPy sources, byte for byte (after a change to the code generator, print the new
    ones with ``python tests/test_cupy.py``)."""
    f, golden = getattr(F, name), globals()[golden]
    cupy_source = s2sad.grad(f, wrt, target="cupy").source_for(*args)
    assert cupy_source == golden
    numpy_source = s2sad.grad(f, wrt, target="numpy").source_for(*args)
    assert _sorted_header(cupy_source) == as_cupy_source(numpy_source)


def test_golden_f4_on_an_array_is_the_numpy_source():
    """The seed's f4 mentions no module: on an array, its CuPy gradient is its NumPy one."""
    x = np.array([1.0, 2.0, 3.0, 4.0])
    cupy_source = s2sad.grad(f4, target="cupy").source_for(x)
    assert cupy_source == s2sad.grad(f4, target="numpy").source_for(x)
    assert "cupy" not in cupy_source and "numpy" not in cupy_source
    assert cupy_source.startswith("from s2sad.runtime import as_gradient, pack_like\n")


def test_cupy_source_without_cupy(monkeypatch):
    """Generating and printing the CuPy source imports nothing; calling it without CuPy
    says how to install it."""
    monkeypatch.setitem(sys.modules, "cupy", None)  # `import cupy` fails, as if not installed
    df = fresh_grad(F.elementwise, 0, target="cupy")
    source = df.source_for(np.ones(3))
    assert source.startswith("import cupy as cp\n") and "cp.exp(" in source
    with pytest.raises(BackendUnavailableError, match="pip install cupy-cuda12x") as info:
        df(np.ones(3))
    assert isinstance(info.value, ImportError) and isinstance(info.value, S2sadError)
    assert "s2sad[cupy]" in str(info.value)


def test_cli_prints_the_cupy_source_without_cupy():
    code = textwrap.dedent(f"""
        import sys
        sys.modules["cupy"] = None  # not installed
        from s2sad.cli import main
        sys.exit(main(["show", {FUNCTIONS + ':elementwise'!r}, "--target", "cupy"]))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=os.path.dirname(_HERE), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# The general variant") and \
        result.stdout.splitlines()[1] == "import cupy as cp"
    assert "cp.exp(" in result.stdout and "np." not in result.stdout


# --- the runtime keeps CuPy data on the device (emulated CuPy, CPU) -------------------------


def test_array_module(emulated):
    x = emulated.asarray(np.ones(3))
    assert array_module(x) is emulated
    assert array_module(1.0, x) is emulated
    assert array_module(np.ones(3), 2.0, [x]) is np  # containers are not looked into


def test_as_gradient_keeps_device_arrays_and_host_scalars(emulated):
    from s2sad.runtime import as_gradient
    x = emulated.asarray(np.ones((2, 3), np.float32))
    g = as_gradient(x, emulated.asarray(np.float64(2.0)))  # a 0-d sensitivity, broadcast
    assert isinstance(g, emulated.ndarray) and g.shape == (2, 3) and g.dtype == np.float32
    zero_d = emulated.asarray(np.float64(3.5))
    assert as_gradient(1.0, zero_d) == 3.5 and type(as_gradient(1.0, zero_d)) is float
    assert type(as_gradient(np.float32(1.0), zero_d)) is np.float32
    parts = as_gradient([1.0, 2.0], emulated.asarray(np.array([3.0, 4.0])))
    assert parts == [3.0, 4.0] and all(type(p) is float for p in parts)


def test_float_and_device_arguments_together(emulated):
    """``auto`` with a CuPy array compiles for CuPy; the float's gradient is a float."""
    df = fresh_grad(F.elementwise, 0)
    x = emulated.asarray(np.linspace(-1.0, 1.0, 5))
    assert isinstance(df(x), emulated.ndarray)
    assert isinstance(df(np.linspace(-1.0, 1.0, 5)), np.ndarray)  # one function, two variants
    np.testing.assert_allclose(emulated.asnumpy(df(x)), df(np.linspace(-1.0, 1.0, 5)))
    da, dW = fresh_grad(_scaled, (0, 1))(0.5, emulated.asarray(np.ones((2, 2))))
    assert type(da) is float and isinstance(dW, emulated.ndarray)


def _scaled(a, W):
    return a * np.sum(np.tanh(W) ** 2)


def test_mixing_numpy_and_cupy_arrays_is_refused(emulated):
    df = fresh_grad(F.mlp_loss, 0)
    args = list(MLP_ARGS)
    args[0] = emulated.asarray(args[0])
    with pytest.raises(DifferentiationError, match="mix NumPy and CuPy"):
        df(*args)


def test_numpy_scalars_go_with_cupy_arrays(emulated):
    df = fresh_grad(_scaled, (0, 1))
    da, dW = df(np.float64(0.5), emulated.asarray(np.ones((2, 2))))
    assert type(da) is np.float64 and isinstance(dW, emulated.ndarray)


def test_scatter_with_repeated_indices_on_the_device(cupy):
    x = np.arange(4.0)
    idx = np.array([0, 1, 1, 3])
    expected = s2sad.grad(F.scatter, target="numpy")(x, idx)
    got = fresh_grad(F.scatter, 0)(cupy.asarray(x), cupy.asarray(idx))
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(got), expected)
    np.testing.assert_allclose(expected, [0.0, 4.0, 0.0, 6.0])


def test_mlp_and_rnn_on_cupy(cupy):
    rng = np.random.default_rng(0)
    host = [rng.normal(size=a.shape) for a in MLP_ARGS]
    expected = s2sad.grad(F.mlp_loss, (0, 1, 2, 3), target="numpy")(*host)
    got = fresh_grad(F.mlp_loss, (0, 1, 2, 3))(*to_device(cupy, host))
    for g, e in zip(got, expected):
        assert isinstance(g, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(g), e, rtol=1e-6, atol=1e-9)
    rnn = [rng.normal(size=s) * 0.5 for s in ((3, 3), (3, 2), (6, 2), (3,))]
    expected = s2sad.grad(F.rnn_loss, (0, 1), target="numpy")(*rnn)
    got = fresh_grad(F.rnn_loss, (0, 1))(*to_device(cupy, rnn))
    for g, e in zip(got, expected):
        assert isinstance(g, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(g), e, rtol=1e-6, atol=1e-9)


def test_a_loop_adds_its_weight_terms_after_it_on_cupy(cupy):
    rng = np.random.default_rng(1)
    host = [rng.normal(size=s) * 0.5 for s in ((3, 4), (4, 4), (4,), (40, 5, 3), (5, 4))]
    expected = s2sad.grad(F.rnn_batched_loss, (0, 1, 2), target="numpy")(*host)
    g = fresh_grad(F.rnn_batched_loss, (0, 1, 2))
    device = to_device(cupy, host)
    got = g(*device)
    source = g.source_for(*device)
    assert "s_Wh_terms = ProductSum()" in source and "s_b += s_5.sum(axis=0)" in source, \
        source  # (the kinds decide the bias's sum: its rows keep their axes' lengths)
    for mine, e in zip(got, expected):
        assert isinstance(mine, cupy.ndarray) and mine.shape == e.shape
        np.testing.assert_allclose(cupy.asnumpy(mine), e, rtol=1e-10, atol=1e-12)


# --- what the CuPy target needs of s2sad beyond the generated code -------------------------


def _on_host_scalars(x, y):
    """Rules whose conditions compare Python floats: np.where needs an array condition on
    CuPy (np.greater(x, 0) is one, x > 0 is a bool)."""
    return (np.maximum(x, y) + np.minimum(x, 2.0) + np.fmax(x, y) + np.fmin(y, x)
            + np.sinc(x) + np.power(1.5, y) + np.float_power(x, y) + x ** y)


@pytest.mark.parametrize("args", [(0.7, 0.7), (0.3, 1.3), (0.0, 2.0)],
                         ids=["tie", "apart", "zero"])
def test_rules_on_host_scalars_for_cupy(emulated, args):
    expected = s2sad.grad(_on_host_scalars, (0, 1), target="numpy")(*args)
    got = fresh_grad(_on_host_scalars, (0, 1), target="cupy")(*args)
    assert all(type(g) is float for g in got)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def _host_values(x, y):
    return np.sum(x * y) * x + np.linalg.norm(y)


def test_numpy_functions_of_host_numbers_for_cupy(emulated):
    """np.sum(float) and np.linalg.norm(float): the CuPy variant converts the host numbers
    (cp.asarray), which CuPy's functions other than ufuncs want as arrays."""
    expected = s2sad.grad(_host_values, (0, 1), target="numpy")(0.5, 2.0)
    cupy_grad = fresh_grad(_host_values, (0, 1), target="cupy")
    got = cupy_grad(0.5, 2.0)
    source = cupy_grad.source_for(0.5, 2.0)
    assert "cp.sum(cp.asarray(t_1))" in source and "cp.linalg.norm(cp.asarray(y))" in source
    assert all(type(g) is float for g in got)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def _rolled(x):
    return np.sum(np.roll(x, (1, -2), axis=(0, 1)) * np.arange(12.0).reshape(3, 4)) + \
        np.sum(np.roll(x, 5) ** 2) + np.sum(np.roll(x, np.array([2, 1]), axis=(1, 0)) ** 3)


def test_roll_back_by_any_shift_on_the_device(cupy):
    x = np.random.default_rng(3).normal(size=(3, 4))
    expected = s2sad.grad(_rolled, target="numpy")(x)
    got = fresh_grad(_rolled, 0)(cupy.asarray(x))
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(got), expected, rtol=1e-12)


_NEEDS_NUMPY_2 = pytest.mark.skipif(not hasattr(np.linalg, "vector_norm"),
                                    reason="NumPy < 2 has no vector_norm to compare with")


@_NEEDS_NUMPY_2
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (2, 0), (0, 1, 2)])
@pytest.mark.parametrize("ord", [2, 1, 0, np.inf, -np.inf, 3.5])
def test_cupy_compat_vector_norm(cupy, axis, ord):
    x = np.random.default_rng(1).normal(size=(2, 3, 4))
    for keepdims in (False, True):
        got = cupy_compat.vector_norm(cupy.asarray(x), axis=axis, keepdims=keepdims, ord=ord)
        expected = np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
        assert isinstance(got, cupy.ndarray) and got.shape == np.shape(expected)
        np.testing.assert_allclose(cupy.asnumpy(got), expected, rtol=1e-12)


@_NEEDS_NUMPY_2
@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_cupy_compat_matrix_norm(cupy, ord):
    x = np.random.default_rng(2).normal(size=(2, 3, 4))
    for keepdims in (False, True):
        got = cupy_compat.matrix_norm(cupy.asarray(x), keepdims=keepdims, ord=ord)
        expected = np.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
        assert isinstance(got, cupy.ndarray) and got.shape == expected.shape
        np.testing.assert_allclose(cupy.asnumpy(got), expected, rtol=1e-10)


@_NEEDS_NUMPY_2
@pytest.mark.parametrize("shapes, axis, keepdims", [
    (((3, 4), (4,)), -1, False), (((4, 3), (4,)), 0, False), (((2, 4, 3), (4, 3)), -2, True),
    (((2, 1, 4), (3, 4)), -1, True), (((5,), (5,)), 0, False)])
def test_cupy_compat_vecdot(cupy, shapes, axis, keepdims):
    rng = np.random.default_rng(4)
    a = rng.normal(size=shapes[0]) + 1j * rng.normal(size=shapes[0])
    b = rng.normal(size=shapes[1])
    got = cupy_compat.vecdot(cupy.asarray(a), cupy.asarray(b), axis=axis, keepdims=keepdims)
    expected = np.vecdot(a, b, axis=axis, keepdims=keepdims)
    assert isinstance(got, cupy.ndarray) and got.shape == np.shape(expected)
    np.testing.assert_allclose(cupy.asnumpy(got), expected, rtol=1e-12)
    if not keepdims and axis == -1:
        np.testing.assert_allclose(cupy.asnumpy(got), np.linalg.vecdot(a, b), rtol=1e-12)
    with pytest.raises(ValueError, match="have 4 and 2 elements"):
        cupy_compat.vecdot(cupy.asarray(np.ones((3, 4))), cupy.asarray(np.ones(2)))


def test_cupy_compat_covers_what_cupy_lacks():
    """Every NumPy function with a rule that CuPy 14 lacks has a stand-in, and no other
    (but those whose CuPy twin reads an argument as an array, where NumPy converts it)."""
    lacking = set()
    for rule in s2sad.registry.registered():
        name = getattr(rule.func, "__name__", None)
        for module, where in ((np, None), (np.linalg, "linalg"), (np.fft, "fft")):
            if name and getattr(module, name, None) is rule.func:
                names = fake_cupy._TOP if where is None else fake_cupy._SUB.get(where, ())
                if name not in names:
                    lacking.add((module.__name__, name))
                break
    assert lacking == set(cupy_compat.REPLACEMENTS) - set(CUPY.argument_stand_ins)


def test_numpy_arrays_for_the_cupy_target_are_named(emulated, monkeypatch):
    from s2sad.backends import HostArrayError, check_arguments
    names = ["W", "xs", "a"]
    for fine in ([("cupy", 2, "f"), ("list", (("cupy", 1, "f"),)), ("nd", 0, "f")],
                 [("cupy", 2, "f"), ("tuple", ("float", "float")), "float"]):
        check_arguments(fine, names, "cupy")
    check_arguments([("nd", 2, "f"), "float", "float"], names, "auto")
    with pytest.raises(HostArrayError, match=r"the argument 'W' is a NumPy array, and this "
                       r"gradient was made for CuPy \(target='cupy'\)") as info:
        check_arguments([("nd", 2, "f"), "float", "float"], names, "cupy")
    assert "W = cupy.asarray(W)" in str(info.value) and "target='auto'" in str(info.value)
    assert isinstance(info.value, TypeError) and isinstance(info.value, DifferentiationError)
    with pytest.raises(HostArrayError, match="the argument 'xs' holds NumPy arrays"):
        check_arguments([("cupy", 2, "f"), ("dict", (("h", ("nd", 1, "f")),)), "float"],
                        names, "cupy")
    monkeypatch.setitem(sys.modules, "cupy", None)  # not installed: calling says how to
    check_arguments([("nd", 2, "f"), "float", "float"], names, "cupy")


def test_calling_a_cupy_gradient_with_numpy_arrays(emulated):
    df = fresh_grad(F.mlp_loss, 0, target="cupy")
    with pytest.raises(DifferentiationError, match="the argument 'W1' is a NumPy array"):
        df(*MLP_ARGS)


def test_fresh_gradient_keeps_new_device_arrays(emulated):
    from s2sad.runtime.gradients import fresh_gradient
    x = emulated.asarray(np.ones((2, 3)))
    g = emulated.asarray(np.full((2, 3), 2.0))
    assert fresh_gradient(x, g) is g
    view = emulated.asarray(np.ones((3, 2))).T  # not its own data: copied
    assert fresh_gradient(x, view) is not view and isinstance(fresh_gradient(x, view),
                                                              emulated.ndarray)
    x32 = emulated.asarray(np.ones((2, 3), np.float32))
    assert fresh_gradient(x32, g).dtype == np.float32
    row = fresh_gradient(x, emulated.asarray(np.ones(3)))  # broadcast to x's shape
    assert row.shape == (2, 3) and isinstance(row, emulated.ndarray)


def _log_sum(x):
    return np.sum(np.log(x))


def test_debug_nans_on_the_device(emulated):
    from s2sad.runtime.debug import NonFiniteError, check_finite
    df = GradientFunction(_log_sum, 0, True, False, False, "auto", debug_nans=True)
    got = df(emulated.asarray(np.array([1.0, 2.0])))
    np.testing.assert_allclose(emulated.asnumpy(got), [1.0, 0.5])
    with pytest.raises(NonFiniteError, match="infinity"), np.errstate(divide="ignore"):
        df(emulated.asarray(np.array([0.0, 2.0])))  # 1 / 0 in the reverse sweep
    with pytest.raises(NonFiniteError, match="NaN"):
        check_finite([1.0, emulated.asarray(np.array([np.nan]))], "t = x", None, None)
    check_finite(emulated.asarray(np.array([1, 2])), "t = i", None, None)  # integers pass


if __name__ == "__main__":  # print the golden sources as the compiler makes them now
    for _name, _wrt, _args, _golden in GOLDEN_CASES:
        print(f"{_golden} = '''\\\n" + s2sad.grad(getattr(F, _name), _wrt, target="cupy")
              .source_for(*_args) + "'''\n")
