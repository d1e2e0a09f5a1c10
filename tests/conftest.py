"""What every test module needs before it is imported: the tests folder and the project
root on ``sys.path``, so that ``import test_numpy_rules`` (one table read by several test
modules) and ``from tests import cases_core`` both work, however pytest is started."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _p in (_HERE, os.path.dirname(_HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)
