"""Derivative rules, one small function per primitive. Importing this package fills the table."""

import importlib as _importlib

from . import math, numpy, numpy_linalg, numpy_shape, operators  # noqa: F401
from . import runtime_rules, reduction_helper_rules, linear_helper_rules  # noqa: F401,E402
from . import tangents  # noqa: F401,E402  (higher order; forward mode)
from . import linalg_helper_rules  # noqa: F401,E402
from . import memory  # noqa: F401,E402  (views and changes in place)
from . import complex  # noqa: F401,E402  (complex numbers: defcomplex's rules)
from . import complex_linalg  # noqa: F401,E402  (eig; complex svd, cholesky, eigh)
from . import fft  # noqa: F401,E402  (np.fft)
from . import numpy_more  # noqa: F401,E402  (pinv, lstsq, qr; helpers of implementations)
# SciPy is optional: each group of its rules loads where its module imports.
_OPTIONAL = (  # (library module, rule module)
    ("scipy.special", "scipy_special"),
    ("scipy.integrate", "scipy_integrate"),
    ("scipy.stats", "scipy_stats"),
    ("scipy.linalg", "scipy_linalg"),
    ("scipy.signal", "scipy_signal"),
    ("scipy._lib._array_api", "scipy_array_api"),  # (SciPy's own array-API code)
)
for _library, _rules in _OPTIONAL:
    try:
        _importlib.import_module(_library)
    except ImportError:  # pragma: no cover
        continue
    _importlib.import_module(f"{__name__}.{_rules}")

import numpy as _np  # noqa: E402

from ..registry import builtins_loaded, defdtype, defresult, registered  # noqa: E402

# every ufunc takes dtype= (by keyword): np.add(x, y, dtype=int, casting="unsafe")
_UFUNCS = [rule.func for rule in registered() if isinstance(rule.func, _np.ufunc)]
defdtype(*_UFUNCS, position=None)


def _ufunc_result(ufunc):
    """A ufunc's result dtype, read from its loops: ``"b"`` where they all make bools
    (np.isnan), its inputs' where integers make integers (np.add: ``"ll->l"``), else
    ``"f"`` (np.sqrt)."""
    outputs = {t.split("->")[1] for t in ufunc.types} - {"O"}  # (objects: any)
    if outputs == {"?"}:
        return {"kind": "b"}
    if "l" * ufunc.nin + "->l" in ufunc.types or "q" * ufunc.nin + "->q" in ufunc.types:
        return {"follows": [(f"x{i + 1}", i) for i in range(ufunc.nin)]}
    return {"kind": "f"}


for _ufunc in _UFUNCS:
    if _ufunc.nout == 1:
        defresult(_ufunc, **_ufunc_result(_ufunc))
builtins_loaded()
