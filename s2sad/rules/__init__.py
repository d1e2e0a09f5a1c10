"""Derivative rules, one small function per primitive. Importing this package fills the table."""

from . import math, numpy, numpy_linalg, numpy_shape, operators  # noqa: F401
from . import runtime_rules, tangents  # noqa: F401,E402  (higher order; forward mode)
from . import linalg_helper_rules  # noqa: F401,E402
from . import memory  # noqa: F401,E402  (views and changes in place)

import numpy as _np  # noqa: E402

from ..registry import builtins_loaded, defdtype, registered  # noqa: E402

# every ufunc takes dtype= (by keyword): np.add(x, y, dtype=int, casting="unsafe")
defdtype(*[rule.func for rule in registered() if isinstance(rule.func, _np.ufunc)],
         position=None)
builtins_loaded()
