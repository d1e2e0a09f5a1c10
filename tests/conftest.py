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
# and marked ``slow``: CI's Python 3.10 and 3.12 legs run the rest (``-m "not slow"``),
# where parsing, errors and NumPy's and SciPy's versions differ. Two kinds of tests:
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
