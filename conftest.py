"""Collection from the checkout's root: the rule modules of an optional dependency (SciPy)
are left out of the doctests where it does not import, and modules written in a newer
Python's syntax (``x[*idx]``, 3.11) where it is older."""

import glob
import os
import sys

collect_ignore = []
try:
    import scipy  # noqa: F401
except ImportError:
    _HERE = os.path.dirname(os.path.abspath(__file__))
    collect_ignore += sorted(os.path.relpath(path, _HERE) for path in
                             glob.glob(os.path.join(_HERE, "s2sad", "rules", "scipy_*.py")))
    collect_ignore.append("s2sad/transforms/frozen.py")
if sys.version_info < (3, 11):
    collect_ignore.append("tests/cases_star_index.py")
