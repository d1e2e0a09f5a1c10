"""Facts about SciPy's array-API helpers (loaded only where SciPy imports).

SciPy 1.15+ writes its functions against the array API: ``xp = array_namespace(x)``,
then ``xp.sum(...)``. For the arrays s2sad differentiates that namespace is NumPy's, so
``array_namespace`` is declared to return one (the ``namespace`` fact): a variable given
its result is read as NumPy, and ``xp.sum(v, axis=0)`` is ``np.sum(v, axis=0)``.

>>> from s2sad import registry
>>> registry.facts(array_namespace).namespace, registry.facts(optimize.rosen).inline
(True, True)
"""

from scipy import optimize
from scipy._lib._array_api import array_namespace

from ..registry import deffacts

try:  # (SciPy 1.15 to 1.17 vendor the array-API compatibility layer here, 1.18 elsewhere)
    from scipy._lib import array_api_compat
except ImportError:  # pragma: no cover
    from scipy._external import array_api_compat

deffacts(array_namespace, array_api_compat.array_namespace, array_api_compat.get_namespace,
         namespace=True)

# SciPy's functions written against the array API that s2sad reads as the user's code (the
# ``inline`` fact): each is checked against SciPy's own derivative (tests/test_scipy_xp.py);
# the others stay refused at the user's line (no derivative rule)
deffacts(optimize.rosen, optimize.rosen_der, inline=True)

try:  # (SciPy 1.16+)
    from scipy._lib._array_api import xp_promote
except ImportError:  # pragma: no cover
    xp_promote = None
if xp_promote is not None:
    from ..registry import deflinear, defvjp

    @defvjp(xp_promote, shape="other")
    def promote(g, ans, x, broadcast=False, force_floating=False, xp=None):
        # one array, made an array of its floating dtype: the same values
        return g, None, None, None

    deflinear(xp_promote, argnums=(0,))
    deffacts(xp_promote, returns_view_of=(0,))  # (x itself where it is already so)
