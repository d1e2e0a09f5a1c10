"""What every test module needs before it is imported: the tests folder and the project
root on ``sys.path``, so that ``import test_numpy_rules`` (one table read by several test
modules) and ``from tests import cases_core`` both work, however pytest is started."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _p in (_HERE, os.path.dirname(_HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import pytest  # noqa: E402

# The long tables of the other targets (CuPy's stand-in, Dask, numba) and of third
# derivatives: marked ``slow``. CI runs everything on the newest Python, then the rest
# (``-m "not slow"``) on Python 3.10, where parsing, errors and the oldest NumPy and SciPy
# differ; these tables check code that does not change with Python's version.
SLOW = frozenset({"test_cupy.py", "test_cupy_hvp.py", "test_cupy_scipy.py",
                  "test_dask_target.py", "test_dask_target_s27.py", "test_dask_target_s28.py",
                  "test_numba_target.py", "test_numba_target_s27.py", "test_numba_target_s28.py",
                  "test_numba_target_s29.py", "test_numba_target_s30.py",
                  "test_numba_fusion_s28.py", "test_third_order.py"})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SLOW:
            item.add_marker(pytest.mark.slow)
