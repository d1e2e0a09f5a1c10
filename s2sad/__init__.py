"""s2sad: source-to-source reverse-mode automatic differentiation for Python and NumPy."""

from . import rules  # noqa: F401  (fills the rule table)
from .api import GradientFunction, frozen, grad, stop_gradient, supported, value_and_grad
from .api import (HVPFunction, JVPFunction, VJPFunction, checkpoint, hessian, hvp,  # noqa: E402
                  jacobian, jvp, vjp)
from .errors import (DifferentiationError, NoDerivativeError, NonScalarOutputError,
                     NoSourceError, S2sadError, UnsupportedSyntaxError)
from .checking import GradientCheckError, check_grads  # noqa: E402
from .registry import (custom_jvp, custom_vjp, deflinear, deftangent, defvjp,  # noqa: E402
                       nondifferentiable)
from .runtime.budget import MemoryBudgetError, set_memory_budget



def _version() -> str:
    """The installed distribution's version ("0+unknown" in a source tree not installed);
    a function, so that ``version`` and ``PackageNotFoundError`` stay out of ``s2sad``."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("s2sad")
    except PackageNotFoundError:
        return "0+unknown"


__version__ = _version()
del _version

__all__ = [
    "grad", "value_and_grad", "stop_gradient", "supported", "defvjp", "nondifferentiable",
    "GradientFunction", "S2sadError", "UnsupportedSyntaxError", "DifferentiationError",
    "NoDerivativeError", "NonScalarOutputError", "NoSourceError", "MemoryBudgetError",
    "set_memory_budget", "__version__",
    "vjp", "jvp", "jacobian", "hessian", "hvp", "deftangent", "deflinear", "VJPFunction",
    "JVPFunction", "HVPFunction", "custom_vjp", "custom_jvp",
    "checkpoint", "check_grads", "GradientCheckError", "frozen",
]
