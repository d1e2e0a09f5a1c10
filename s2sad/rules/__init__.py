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
import numpy as _np  # noqa: E402

from ..registry import builtins_loaded, defdtype, defresult, optional, registered  # noqa: E402


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


def _ufunc_facts(rules) -> None:
    """Every ufunc among ``rules`` takes dtype= (by keyword: ``np.add(x, y, dtype=int,
    casting="unsafe")``), and its result's dtype is read from its loops."""
    ufuncs = [rule.func for rule in rules if isinstance(rule.func, _np.ufunc)]
    defdtype(*ufuncs, position=None)
    for ufunc in ufuncs:
        if ufunc.nout == 1:
            defresult(ufunc, **_ufunc_result(ufunc))


_ufunc_facts(registered(installed=False))

# SciPy is optional, and costs most of the time to import s2sad: each group of its rules
# loads once its module is imported (by the program, or by ``registered()``).
_OPTIONAL = (  # (library module, rule module)
    ("scipy.special", "scipy_special"),
    ("scipy.integrate", "scipy_integrate"),
    ("scipy.stats", "scipy_stats"),
    ("scipy.linalg", "scipy_linalg"),
    ("scipy.signal", "scipy_signal"),
    ("scipy._lib._array_api", "scipy_array_api"),  # (SciPy's own array-API code)
    ("scipy.fft", "scipy_fft"),
)


def _loader(rules: str):
    def load():
        before = set(map(id, registered(installed=False)))
        _importlib.import_module(f"{__name__}.{rules}")
        _ufunc_facts([rule for rule in registered(installed=False) if id(rule) not in before])
    return load


def __getattr__(name: str):
    """``s2sad.rules.scipy_special``: the rule module, loaded (with SciPy) where SciPy is
    installed."""
    for library, rules in _OPTIONAL:
        if rules == name:
            try:
                _importlib.import_module(library)
            except ImportError:
                break
            registered()  # (loads it)
            return _importlib.import_module(f"{__name__}.{rules}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


for _library, _rules in _OPTIONAL:
    optional(_library, _loader(_rules))
builtins_loaded()
