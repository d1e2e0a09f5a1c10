"""The Dask target: the same gradient on chunked arrays, lazily, on any Dask scheduler.

* Workloads over a chunked ``X`` (logistic regression, least squares, a GMM's
  log-likelihood): the gradient equals NumPy's to rounding and central differences.
* The gradient has the kind of its argument: a NumPy argument's is a NumPy array, computed
  with the value in one ``dask.compute``; a Dask argument's is a lazy Dask array, in its
  chunks, nothing computed.
* The generated source is the NumPy source with ``da.`` for ``np.``.
* Refusals (class, line, advice): Dask arrays with CuPy arrays, a function Dask lacks, a
  store into an array item, an argument of unknown chunk sizes.
* The rows of the NumPy rule table whose functions Dask has, on chunked arguments.
* A ``LocalCluster`` of two worker processes on loopback, in a subprocess with a timeout
  (a cluster that does not start cannot hang the run).
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="Dask is not installed "
                         "(pip install 'dask[array]' distributed, or the `dask` extra)")
import dask  # noqa: E402
from dask.callbacks import Callback  # noqa: E402

import s2sad  # noqa: E402
from s2sad.api import GradientFunction  # noqa: E402
from s2sad.backends import DASK, HostArrayError, backend_of  # noqa: E402
from s2sad.errors import DifferentiationError  # noqa: E402
from tests import test_gradients as TG  # noqa: E402
from tests.test_higher_order import central_differences  # noqa: E402
from tests.dask_workloads import _data, gmm, least_squares, logistic  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.join(_HERE, "cupy_cases") not in sys.path:
    sys.path.insert(0, os.path.join(_HERE, "cupy_cases"))


def fresh(f, wrt=0, target="auto", with_value=False):
    """A new gradient function (no variant shared with another test)."""
    return GradientFunction(f, wrt, True, False, with_value, target)


class Computes(Callback):
    """Counts the graphs computed while it is active (one per ``dask.compute``)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def _start(self, dsk):
        self.count += 1


# --- the workloads --------------------------------------------------------------------------


@pytest.mark.parametrize("loss", [logistic, least_squares], ids=["logistic", "least-squares"])
@pytest.mark.parametrize("chunks", [(30, 4), (25, 2)], ids=["row-chunks", "row-and-column"])
def test_regression_gradients_equal_numpy(loss, chunks):
    w, X, y = _data()
    Xd = da.from_array(X, chunks=chunks)
    yd = da.from_array(y, chunks=40)  # (not X's row chunks: Dask lines them up)
    expected = s2sad.grad(loss)(w, X, y)
    with Computes() as computes:
        got = fresh(loss)(w, Xd, yd)
    assert type(got) is np.ndarray and got.dtype == w.dtype and computes.count == 1
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, central_differences(loss, (w, X, y), 0),
                               rtol=1e-6, atol=1e-6)


def test_gmm_log_likelihood_gradient():
    rng = np.random.default_rng(5)
    X = np.concatenate([rng.normal(-2.0, 0.5, (40, 2)), rng.normal(1.0, 1.0, (50, 2))])
    params = (rng.standard_normal((3, 2)), 0.2 * rng.standard_normal((3, 2)),
              rng.standard_normal(3))
    expected = s2sad.grad(gmm)(params, X)
    with Computes() as computes:
        got = fresh(gmm)(params, da.from_array(X, chunks=(20, 2)))
    assert type(got) is tuple and computes.count == 1
    for g, e, p in zip(got, expected, params):
        assert type(g) is np.ndarray and g.shape == p.shape
        np.testing.assert_allclose(g, e, rtol=1e-11, atol=1e-12)
    flat = np.concatenate([p.ravel() for p in params])

    def of_flat(v):
        parts, at = [], 0
        for p in params:
            parts.append(v[at:at + p.size].reshape(p.shape))
            at += p.size
        return gmm(tuple(parts), X)
    np.testing.assert_allclose(np.concatenate([g.ravel() for g in got]),
                               central_differences(of_flat, (flat,), 0), rtol=1e-6, atol=1e-6)


def test_value_and_grad_in_one_compute():
    w, X, y = _data()
    value, grad = fresh(logistic, with_value=True)(w, da.from_array(X, chunks=(30, 4)),
                                                  da.from_array(y, chunks=30))
    e_value, e_grad = s2sad.value_and_grad(logistic)(w, X, y)
    with Computes() as computes:
        again = fresh(logistic, with_value=True)(w, da.from_array(X, chunks=(30, 4)),
                                                da.from_array(y, chunks=30))
    assert computes.count == 1  # (the value and the gradient share the forward graph)
    assert np.isclose(float(again[0]), e_value, rtol=1e-12)
    assert not isinstance(value, da.Array) and np.isclose(float(value), e_value, rtol=1e-12)
    np.testing.assert_allclose(grad, e_grad, rtol=1e-12)


def test_a_dask_argument_gets_a_lazy_gradient():
    w, X, y = _data()
    Xd = da.from_array(X, chunks=(30, 4))
    with Computes() as computes:
        g_w, g_X = fresh(logistic, (0, 1))(w, Xd, da.from_array(y, chunks=30))
        assert computes.count == 1  # (w's gradient, computed; X's left lazy)
    assert isinstance(g_X, da.Array) and g_X.chunks == Xd.chunks and g_X.dtype == X.dtype
    assert type(g_w) is np.ndarray
    e_w, e_X = s2sad.grad(logistic, (0, 1))(w, X, y)
    np.testing.assert_allclose(g_X.compute(), e_X, rtol=1e-12)
    np.testing.assert_allclose(g_w, e_w, rtol=1e-12)
    with Computes() as computes:
        value, g = fresh(logistic, 1, with_value=True)(w, Xd, y)
    assert computes.count == 0  # (nothing computed: the value stays lazy too)
    assert isinstance(value, da.Array) and isinstance(g, da.Array)
    assert np.isclose(value.compute(), logistic(w, X, y))


def test_control_flow_on_a_dask_value_computes_it():
    def clipped(w, X):
        s = np.sum(X @ w)
        if s > 0.0:  # (a Dask scalar's truth: computed, as the user's own code computes it)
            return s * 2.0
        return s * -3.0
    w, X, _ = _data()
    for sign in (1.0, -1.0):
        np.testing.assert_allclose(fresh(clipped)(sign * w, da.from_array(X, chunks=(30, 4))),
                                   s2sad.grad(clipped)(sign * w, X), rtol=1e-12)


def test_scattered_sensitivities_at_repeated_indices():
    def picked(w, X, idx):
        return np.sum(w[idx] * np.sum(X, axis=0)[idx])
    w, X, _ = _data()
    idx = np.array([0, 2, 2, 3, 0, 0])
    got = fresh(picked)(w, da.from_array(X, chunks=(30, 4)), idx)
    np.testing.assert_allclose(got, s2sad.grad(picked)(w, X, idx), rtol=1e-12)
    source = fresh(picked).source_for(w, da.from_array(X, chunks=(30, 4)), idx)
    assert re.search(r"s_w = add_at\((s_w|zeros_like_structure\(w\)), s_\[idx\],", source) \
        and "add.at" not in source, source


# --- the source -----------------------------------------------------------------------------


def test_the_source_is_numpys_with_dask_for_numpy():
    w, X, y = _data()
    Xd, yd = da.from_array(X, chunks=(30, 4)), da.from_array(y, chunks=30)
    dask_source = fresh(logistic, target="dask").source_for(w, Xd, yd)
    numpy_source = fresh(logistic, target="numpy").source_for(w, X, y)
    assert "import dask.array as da" in dask_source and "np." not in dask_source
    # (a sensitivity added to is a new array on Dask, s = s + e: a NumPy one cannot take a
    # Dask term in place)
    rebound = re.sub(r"^( +)(s_\w+) ([-+])= ", r"\1\2 = \2 \3 ", numpy_source, flags=re.M)
    assert rebound != numpy_source
    # (the elementwise run between the products is one kernel, applied chunk by chunk:
    # tests/test_dask_target_s28.py; here its statements are put back in place)
    assert "def kernel_1(z, y):" in dask_source and "s_z = fused(kernel_1, z, y)" in dask_source
    # (the kernel hides from dead code the broadcast of y and z that NumPy's unread
    # y * log(p) checks: broadcast_checks checks it before the kernel, on Dask alone)
    checked = re.sub(r"^from s2sad.runtime import broadcast_shape\n|^    broadcast_shape\(y, z\)\n",
                     "", unfused(dask_source), flags=re.M)
    assert checked != unfused(dask_source) and "broadcast_shape" not in numpy_source
    assert checked.replace("da.", "np.").replace("dask.array as da", "numpy as np") == rebound
    assert fresh(logistic, target="auto").source_for(w, Xd, yd) == dask_source


def unfused(source: str) -> str:
    """``source`` with each kernel's statements back where its call is (lazy_kernels)."""
    out, inside = [], False
    for line in source.splitlines(keepends=True):
        if re.match(r"    def kernel_\d+\(", line):
            inside = True
        elif inside and line.startswith("        "):
            if not line.startswith("        return "):
                out.append(line[4:])
        elif re.match(r"    \w+ = fused\(kernel_\d+", line):
            inside = False
        elif line.strip() or not out or not out[-1].startswith("    "):
            if "import fused" not in line:
                out.append(line)
    return "".join(out)


def test_cli_shows_the_dask_source():
    path = os.path.join(_HERE, "cupy_cases", "cupy_functions.py")
    result = subprocess.run([sys.executable, "-m", "s2sad", "show", path + ":elementwise",
                             "--target", "dask"], capture_output=True, text=True,
                            cwd=os.path.dirname(_HERE), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1] == "import dask.array as da"
    assert "da.exp(" in result.stdout and "np." not in result.stdout


# --- refusals -------------------------------------------------------------------------------


def _line_of(f, text):
    lines, first = inspect.getsourcelines(f)
    return first + next(i for i, line in enumerate(lines) if text in line)


def sorted_loss(w, X):
    z = X @ w
    return np.sum(np.sort(z) * np.linspace(0.0, 1.0, z.shape[0]))


def stored_loss(w, X):
    z = X @ w
    z[0] = 0.0
    return np.sum(z * z)


@pytest.mark.parametrize("f, text, message, advice", [
    (sorted_loss, "np.sort(z)", "numpy.sort has no Dask twin, and this code runs on Dask",
     "target='numpy'"),
    (stored_loss, "z[0] = 0.0", "a store into an item of the array 'z', and this code runs "
     "on Dask", "np.where(mask, v, x)"),
], ids=["function-dask-lacks", "item-store"])
def test_refused_at_the_users_line(f, text, message, advice):
    w, X, _ = _data()
    with pytest.raises(DifferentiationError) as info:
        fresh(f)(w, da.from_array(X, chunks=(30, 4)))
    error = info.value
    assert error.message.startswith(message), error.message
    assert error.lineno == _line_of(f, text) and text in error.text
    assert advice in error.hint
    fresh(f)(w, X)  # (NumPy has them)


def test_unknown_chunk_sizes_are_refused_at_the_call():
    w, X, y = _data()
    Xd = da.from_array(X, chunks=(30, 4))
    masked = Xd[Xd[:, 0] > 0.0]
    with pytest.raises(HostArrayError, match=r"the argument 'X' is a Dask array of unknown "
                       r"chunk sizes") as info:
        fresh(least_squares)(w, masked, y[:3])
    assert "X = X.compute_chunk_sizes()" in info.value.hint
    masked.compute_chunk_sizes()
    yd = da.from_array(y, chunks=30)[Xd[:, 0] > 0.0].compute_chunk_sizes()
    np.testing.assert_allclose(fresh(least_squares)(w, masked, yd),
                               s2sad.grad(least_squares)(w, X[X[:, 0] > 0], y[X[:, 0] > 0]),
                               rtol=1e-12)


def test_dask_and_cupy_arrays_together_are_refused(monkeypatch):
    import fake_cupy
    cupy = fake_cupy.install(monkeypatch)
    w, X, y = _data()
    with pytest.raises(DifferentiationError, match="the arguments mix CuPy and Dask arrays") \
            as info:
        fresh(least_squares)(cupy.asarray(w), da.from_array(X, chunks=(30, 4)), y)
    assert "cupy.asnumpy(x)" in info.value.hint
    with pytest.raises(HostArrayError, match="the argument 'w' is a CuPy array, and this "
                       r"gradient was made for Dask \(target='dask'\)") as info:
        fresh(least_squares, target="dask")(cupy.asarray(w), da.from_array(X, chunks=30), y)
    assert "w = cupy.asnumpy(w)" in info.value.hint


def test_auto_picks_dask_and_numpy_arrays_go_along():
    assert backend_of([("nd", 1, "f"), ("dask", 2, "f"), "float"], "auto") is DASK
    assert backend_of([("list", (("dask", 1, "f"),))], "auto") is DASK
    assert backend_of([("nd", 1, "f")], "dask") is DASK


# --- the rule table, where Dask has the functions -----------------------------------------

from tests import test_numpy_rules as TR  # noqa: E402

# Rows whose Dask run fails loudly (an error, never a number) for a reason of Dask's: by
# case id, the reason. (A row refused at compile time, "has no Dask twin", is skipped.)
DASK_DIFFERENCES = {
    "clip-keywords": "dask.array.clip takes no min=/max= keywords",
    "clip-keywords-wrt-bound": "dask.array.clip takes no min=/max= keywords",
    "clip-keyword-array-broadcasts-x": "dask.array.clip takes no min=/max= keywords",
    "trace": "Dask stores along one index array per assignment (the diagonal's sensitivity)",
    "trace-offset-axes": "Dask stores along one index array per assignment",
    "diag-of-matrix": "Dask stores along one index array per assignment",
    "diagonal-axes": "Dask stores along one index array per assignment",
    "methods-misc": "a method Dask's arrays take other arguments for",
    "methods-tolist": "a Dask array has no tolist (it is no list of numbers until computed)",
    "methods-argmax": "an index computed on Dask (argmax) is a Dask array",
    "diff-prepend-append": "a scatter into a view (Dask has no add.at)",
    "sliding_window_view": "Dask indexes with one index array at a time",
    "sliding_window_view-axis": "Dask indexes with one index array at a time",
    "pad-modes": "an index computed on Dask is a Dask array",
    "pad-mode-through-a-helper": "an index computed on Dask is a Dask array",
    "index-int-array-argument": "the index is a Dask array (computed indices only)",
    "index-int-array-2d": "Dask indexes with one index array at a time",
    "index-mask-and-int": "Dask indexes with one index array at a time",
    "index-multi-axis": "Dask indexes with one index array at a time",
    "index-mixed-3d": "Dask indexes with one index array at a time",
    "index-float32": "Dask indexes with one index array at a time",
}

# Rows refused at the user's line: a mask picks from a Dask array items Dask counts only
# when computed, and the gradient reads their number (tests/test_dask_target_s28.py)
UNKNOWN_SIZES = {"index-bool-mask", "index-bool-mask-rows", "index-mask-column"}

RULE_ROWS = [pytest.param(*p.values[:3], id=re.sub(r"-opt$", "", p.id))
             for row in TR.CASES for p in row if p.values[3]]


def to_dask(value):
    """``value`` with each NumPy array of one axis or more chunked in twos along the first
    (every gradient crosses chunks)."""
    if isinstance(value, np.ndarray) and value.ndim:
        return da.from_array(value, chunks=(2,) + value.shape[1:])
    if isinstance(value, (list, tuple)):
        return type(value)(to_dask(v) for v in value)
    return value


@pytest.mark.parametrize("f, args, wrt", RULE_ROWS)
def test_numpy_rule_table_on_dask(f, args, wrt, request):
    case = request.node.callspec.id
    try:
        expected = s2sad.grad(f, wrt)(*TG._copy(args))
    except Exception as exc:  # (NumPy's gradient refuses it: so must Dask's)
        with pytest.raises(type(exc)):
            fresh(f, wrt)(*to_dask(TG._copy(args)))
        return
    dask_args = to_dask(TG._copy(args))
    try:
        got = fresh(f, wrt)(*dask_args)
    except DifferentiationError as exc:
        if "has no Dask twin" in exc.message:
            pytest.skip(exc.message.split(",")[0])
        if case in UNKNOWN_SIZES and "sizes Dask does not know" in exc.message:
            assert exc.lineno is not None and exc.text  # (at the user's line)
            return
        raise
    except Exception as exc:
        if case in DASK_DIFFERENCES:
            pytest.xfail(f"{DASK_DIFFERENCES[case]} ({type(exc).__name__})")
        raise
    pairs = zip(TG._wrt_indices(f, wrt), got if isinstance(wrt, tuple) else (got,),
                expected if isinstance(wrt, tuple) else (expected,))
    rtol, atol = (2e-3, 2e-3) if any(TG._has_float32(a) for a in args) else (1e-7, 1e-9)
    for i, g, e in pairs:
        if isinstance(dask_args[i], da.Array):
            assert isinstance(g, da.Array) and g.chunks == dask_args[i].chunks
            try:
                g = g.compute()
            except Exception as exc:
                if case in DASK_DIFFERENCES:
                    pytest.xfail(f"{DASK_DIFFERENCES[case]} ({type(exc).__name__})")
                raise
        np.testing.assert_allclose(TG._flat_get(g), TG._flat_get(e), rtol=rtol, atol=atol)


# --- on a cluster ---------------------------------------------------------------------------

CLUSTER_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import dask.array as da
    from dask.distributed import Client, LocalCluster
    import s2sad
    from tests.dask_workloads import _data, gmm, least_squares, logistic

    if __name__ == "__main__":
        with LocalCluster(host="127.0.0.1", dashboard_address=None, n_workers=2,
                          threads_per_worker=1, processes=True) as cluster, \\
                Client(cluster, timeout="60s") as client:
            w, X, y = _data(400, 5)
            Xd, yd = da.from_array(X, chunks=(100, 5)), da.from_array(y, chunks=100)
            for loss in (logistic, least_squares):
                got = s2sad.grad(loss)(w, Xd, yd)
                np.testing.assert_allclose(got, s2sad.grad(loss)(w, X, y), rtol=1e-12)
                value, g = s2sad.value_and_grad(loss)(w, Xd, yd)
                assert np.isclose(value, loss(w, X, y), rtol=1e-12)
            g_X = s2sad.grad(logistic, 1)(w, Xd, yd)
            assert isinstance(g_X, da.Array)
            np.testing.assert_allclose(g_X.compute(), s2sad.grad(logistic, 1)(w, X, y),
                                       rtol=1e-12)
            params = (np.ones((2, 5)), np.zeros((2, 5)), np.zeros(2))
            for g, e in zip(s2sad.grad(gmm)(params, Xd), s2sad.grad(gmm)(params, X)):
                np.testing.assert_allclose(g, e, rtol=1e-11)
            assert len(client.scheduler_info()["workers"]) == 2
            print("cluster gradients agree")
""")


def test_gradients_on_a_local_cluster(tmp_path):
    """Two worker processes on loopback; the run is a subprocess with a timeout."""
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    script = tmp_path / "cluster_run.py"
    script.write_text(CLUSTER_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(_HERE), _HERE, os.environ.get("PYTHONPATH", "")]))
    try:
        result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                                cwd=os.path.dirname(_HERE), env=env, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail("the LocalCluster run did not finish in 240 s")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cluster gradients agree" in result.stdout
