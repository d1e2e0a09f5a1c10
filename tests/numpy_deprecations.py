"""NumPy's own deprecation warnings, where the installed NumPy gives them: a test expects
or lets through exactly these, by message, never a whole category.

>>> import re
>>> bool(re.search(FIX, "numpy.fix is deprecated. Use numpy.trunc instead"))
True
>>> calls_fix("y = np.fix(x)"), calls_fix("y = np.trunc(x)")
(True, False)
"""

import contextlib
import re
import warnings

import numpy as np
import pytest

FIX = r"numpy\.fix is deprecated"  # (NumPy 2.5's words)


def _warns(call, message: str) -> bool:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return any(issubclass(w.category, DeprecationWarning) and re.search(message, str(w.message))
               for w in caught)


FIX_WARNS = hasattr(np, "fix") and _warns(lambda: np.fix(0.5), FIX)  # (NumPy >= 2.5)


def calls_fix(source: str) -> bool:
    return "np.fix(" in source


def expect_fix_warning(source: str):
    """``pytest.warns`` NumPy's deprecation of np.fix, where ``source`` calls np.fix and the
    installed NumPy deprecates it; nothing otherwise."""
    if FIX_WARNS and calls_fix(source):
        return pytest.warns(DeprecationWarning, match=FIX)
    return contextlib.nullcontext()


def let_fix_warning_through(source: str) -> None:
    """Inside ``warnings.catch_warnings``: ignore NumPy's deprecation of np.fix (its message
    alone), where ``source`` calls np.fix and the installed NumPy deprecates it."""
    if FIX_WARNS and calls_fix(source):
        warnings.filterwarnings("ignore", message=FIX, category=DeprecationWarning)
