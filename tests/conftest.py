"""What every test module needs before it is imported: the tests folder and the project
root on ``sys.path``, so that ``import test_numpy_rules`` (one table read by several test
modules) and ``from tests import cases_core`` both work, however pytest is started."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _p in (_HERE, os.path.dirname(_HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import re  # noqa: E402

import pytest  # noqa: E402

# Checked once, on CI's main leg (README's command, the newest NumPy this Python gets),
# and marked ``slow``: CI's Python 3.10 leg runs the rest (``-m "not slow"``), and 3.12's
# those of the rest marked ``versions`` (below), where parsing, errors and NumPy's and
# SciPy's versions differ. Two kinds of tests:
# - the tables of the other targets (CuPy's stand-in, Dask, numba): every file of theirs;
# - derivatives of order two and up beyond the rule table's own: the same rules, built by
#   the same passes as their first derivatives, which every leg checks. The rule table's
#   second derivatives (tests/test_higher_order.py) stay on every leg: they check each
#   rule's second derivative against every NumPy the project supports.
OTHER_TARGETS = re.compile(r"test_(cupy|dask|numba)\w*\.py$")
ONCE_FILES = frozenset({"test_third_order.py"})
ONCE_TESTS = {  # file -> its test functions checked once
    "test_numpy_gaps.py": {"test_second_derivative_against_differences_of_the_gradient"},
    "test_scipy_linalg.py": {"test_second_derivative_against_differences_of_the_gradient"},
    "test_scipy_stats.py": {"test_second_derivative_against_differences_of_the_gradient"},
    "test_scipy_special.py": {"test_second_derivative_against_differences_of_the_gradient"},
    "test_scipy_signal.py": {"test_second_derivative_against_differences_of_the_gradient"},
    "test_function_values.py": {"test_second_derivative_against_differences_of_the_gradient"},
    "test_higher_order.py": {"test_third_derivative"},
    "test_implementations.py": {"test_fourth_derivative_through_a_while_loop",
                                "test_third_derivative_of_powers_a_loop_carries_at_zero"},
    "test_fixes_s32.py": {"test_hypot_of_any_number_dist_and_fsum_to_third_order",
                          "test_itertools_product_at_third_order"},
    "test_issue34_s27.py": {"test_piecewise_forward_mode_and_second_order"},
    "test_fft.py": {"test_check_grads_to_second_order_along_real_and_imaginary_directions"},
    "test_complex_linalg.py": {"test_check_grads_second_order_real_and_imaginary_directions"},
    "test_linalg_second_order.py": {"test_second_derivatives_end_to_end"},
}


# What changes with the library's version or Python's, run on CI's 3.12 leg (NumPy 2.5,
# the newest SciPy) as ``-m "not slow and versions"``: each rule against NumPy and SciPy
# (the tables, complex numbers, FFT, zero sizes, casts), the generated source (ast.unparse
# changes with Python), the messages and tracebacks, the command line, the docs and
# notebooks, and the fuzz's random programs. The compiler's other tests run on the 3.11
# leg (all) and the 3.10 leg (not slow): they differ only where Python's syntax does.
VERSIONED = re.compile(
    r"test_(operation_table|numpy_\w+|higher_order|issue34_\w+|scipy_\w+|complex\w*|fft|"
    r"zero_size|casts|runtime_\w+|implementations|linalg_second_order|snapshot|golden\w*|"
    r"readable\w*|face\w*|errors|error_catalogue|cli|hygiene|api\w*|docs|notebooks|"
    r"lazy_rules|small_sizes\w*|inserted_axes|shapes_and_ranks|dispatch|custom_rules|forward|"
    r"gradients|star_forms|source|brackets|fuzz)\.py$")


def checked_once(item) -> bool:
    """Whether ``item`` is one of the tests above (the operation table's second
    derivatives, its rows ``op:hess``, too)."""
    name = item.path.name
    if name in ONCE_FILES or OTHER_TARGETS.match(name):
        return True
    if getattr(item, "originalname", None) in ONCE_TESTS.get(name, ()):
        return True
    callspec = getattr(item, "callspec", None)
    return name == "test_operation_table.py" and callspec is not None \
        and callspec.id.endswith(":hess")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if checked_once(item):
            item.add_marker(pytest.mark.slow)
        if VERSIONED.match(item.path.name):
            item.add_marker(pytest.mark.versions)


NUMBA_FILES = re.compile(r"test_numba\w*\.py$")


@pytest.fixture(autouse=True)
def kernel_cache(request, monkeypatch):
    """In the numba target's test files, kernels are written to (and numba caches them in)
    a directory of the test's own, so one test never reads another's compiled kernel."""
    if not NUMBA_FILES.match(request.path.name):
        return None
    path = request.getfixturevalue("tmp_path")
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(path))
    return path
