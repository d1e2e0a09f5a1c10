"""The gradient tools the suite times: s2sad and the optional peers.

Each tool turns a workload into a zero-argument callable that returns the
gradient (so that the timer measures exactly one gradient evaluation) and a
converter from its result to a tuple of NumPy arrays (for the check against the
hand-written gradient). A tool that cannot handle a workload raises, and the
suite reports "n/a: <reason>" in that cell.

Peers are imported lazily: a peer that is not installed is skipped with a note.
autograd and JAX run the workload's own source with ``np`` (and ``sin``, ``cos``,
...) rebound to ``autograd.numpy`` / ``jax.numpy``, ``scipy.linalg``, ``scipy.stats``
and ``scipy.special`` to their own ``scipy`` modules, and ``solve_ivp`` / ``odeint`` to
their ODE solvers with adjoint gradients (``jax.experimental.ode.odeint``, Dormand-Prince
as RK45; autograd's ``odeint``, SciPy's LSODA); PyTorch runs the workload's
``torch_f`` (or, for pure Python arithmetic, the same source with math functions
rebound to ``torch``); tangent and s2sad run the NumPy source itself.
"""

from __future__ import annotations

import importlib.metadata
import types
from dataclasses import dataclass

import numpy as np

MATH_NAMES = ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh")


def rebind(func, overrides: dict, replace=None):
    """A copy of ``func`` whose module globals named in ``overrides`` are replaced, and
    those ``replace(value)`` gives a stand-in for (not None). The functions of its module
    that it calls (an ODE's right-hand side) see the same globals."""
    namespace = dict(func.__globals__)
    namespace.update({k: v for k, v in overrides.items() if k in namespace})
    if replace is not None:
        for name, value in func.__globals__.items():
            stand_in = replace(value)
            if stand_in is not None:
                namespace[name] = stand_in
    for name, value in func.__globals__.items():
        if isinstance(value, types.FunctionType) and value is not func and \
                value.__globals__ is func.__globals__:
            namespace[name] = types.FunctionType(value.__code__, namespace, value.__name__,
                                                 value.__defaults__, value.__closure__)
    return types.FunctionType(func.__code__, namespace, func.__name__, func.__defaults__,
                              func.__closure__)


SCIPY_MODULES = ("linalg", "stats", "special")


def scipy_stand_ins(package, solver, patches=None):
    """``replace`` for :func:`rebind`: a workload's ``scipy.linalg``, ``scipy.stats`` and
    ``scipy.special`` (imported as modules) become ``package``'s modules of those names
    (``jax.scipy``, ``autograd.scipy``); ``solve_ivp`` and ``odeint`` (imported as
    functions) become the same calls made with ``solver(func, y0, ts, args, rtol, atol)``,
    an ``odeint(func(y, t, *args), ...)`` of the peer's, which returns ``y`` at the times
    ``ts`` (pieces to concatenate). ``patches`` (module name -> {name: function}) fills a
    gap of the peer's module with the peer's own function of the same meaning."""
    import importlib
    import sys
    modules = {}
    for name in SCIPY_MODULES:
        ours = sys.modules.get(f"scipy.{name}")
        if ours is not None:
            try:
                theirs = importlib.import_module(f"{package}.{name}")
            except ImportError:
                continue
            if patches and name in patches:
                patched = types.ModuleType(theirs.__name__)
                patched.__dict__.update(vars(theirs))
                patched.__dict__.update(patches[name]())
                theirs = patched
            modules[id(ours)] = theirs

    def solve_ivp(fun, t_span, y0, method="RK45", t_eval=None, args=(), rtol=1e-3,
                  atol=1e-6, **options):
        if t_eval is None or method != "RK45" or options:
            raise NotImplementedError("solve_ivp without t_eval, with a method other than "
                                      "RK45, or with other options")
        ys = solver(lambda y, t, *a: fun(t, y, *a), y0, ([t_span[0]], t_eval), tuple(args),
                    rtol, atol)
        return types.SimpleNamespace(t=t_eval, y=ys[1:].T)

    def odeint(func, y0, t, args=(), rtol=1.49012e-8, atol=1.49012e-8, **options):
        if options:
            raise NotImplementedError("odeint with options other than rtol and atol")
        return solver(func, y0, (t,), tuple(args), rtol, atol)

    functions = {("scipy.integrate", "solve_ivp"): solve_ivp,
                 ("scipy.integrate", "odeint"): odeint}

    def replace(value):
        if isinstance(value, types.ModuleType):
            return modules.get(id(value))
        if callable(value) and (getattr(value, "__module__", "") or "").startswith(
                "scipy.integrate"):
            return functions.get(("scipy.integrate", getattr(value, "__name__", "")))
        return None
    return replace


def fresh_copy(func):
    """A new function object with the same code: no tool has a cache entry for it."""
    return types.FunctionType(func.__code__, func.__globals__, func.__name__, func.__defaults__,
                              func.__closure__)


def wrt_arg(wrt):
    return wrt if len(wrt) > 1 else wrt[0]


def as_tuple(result, wrt):
    return tuple(result) if len(wrt) > 1 else (result,)


def to_numpy(value):
    """A gradient part (float, list, NumPy/JAX array, torch tensor) as a float64 array."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=np.float64)


def dist_version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


@dataclass
class Prepared:
    call: object          # zero-argument callable: one gradient evaluation
    convert: object       # result -> tuple of NumPy arrays
    memory: bool = True   # whether tracemalloc sees its allocations (NumPy-backed)
    build_s: float | None = None   # time to build the gradient, where the tool builds one


class Tool:
    name = ""        # column label
    dists: tuple = ()  # distributions whose versions the results record
    memory = True

    def available(self) -> tuple[bool, str]:
        return True, ""

    def versions(self) -> dict:
        return {d: dist_version(d) for d in self.dists}

    def prepare(self, workload, args) -> Prepared:
        raise NotImplementedError


class S2sad(Tool):
    name = "s2sad"
    dists = ("s2sad", "gast")

    def prepare(self, workload, args):
        import s2sad
        f = workload.s2sad_f or workload.f
        g = s2sad.grad(f, wrt=wrt_arg(workload.wrt))
        return Prepared(lambda: g(*args), lambda r: tuple(map(to_numpy, as_tuple(r, workload.wrt))))

    def build(self, workload, args, clock):
        """Seconds from ``s2sad.grad`` on a fresh function to its first result."""
        import s2sad
        f = fresh_copy(workload.s2sad_f or workload.f)
        t0 = clock()
        s2sad.grad(f, wrt=wrt_arg(workload.wrt))(*args)
        return clock() - t0

    def core(self, workload, args):
        """The generated function itself, without the per-call entry
        (its checks of the argument kinds); None if s2sad's internals moved."""
        import s2sad
        g = s2sad.grad(workload.s2sad_f or workload.f, wrt=wrt_arg(workload.wrt))
        g(*args)
        function = getattr(getattr(g, "_last", None), "function", None)
        return None if function is None else (lambda: function(*args))

    def source(self, workload, args):
        import s2sad
        return s2sad.grad(workload.s2sad_f or workload.f,
                          wrt=wrt_arg(workload.wrt)).source_for(*args)


class Autograd(Tool):
    name = "autograd"
    dists = ("autograd",)

    def available(self):
        try:
            import autograd  # noqa: F401
        except ImportError as exc:
            return False, f"not installed ({exc.name})"
        return True, ""

    def prepare(self, workload, args):
        import autograd
        import autograd.numpy as anp
        f = rebind(workload.f, {"np": anp, **{n: getattr(anp, n) for n in MATH_NAMES}},
                   scipy_stand_ins("autograd.scipy", _autograd_odeint,
                                   {"linalg": _autograd_linalg_patches}))
        g = autograd.grad(f, wrt_arg(workload.wrt))
        return Prepared(lambda: g(*args), lambda r: tuple(map(to_numpy, as_tuple(r, workload.wrt))))


class _Jax(Tool):
    dists = ("jax", "jaxlib")
    memory = False
    jit = False

    def available(self):
        try:
            import jax
        except ImportError as exc:
            return False, f"not installed ({exc.name})"
        jax.config.update("jax_enable_x64", True)   # float64, like the NumPy code
        return True, ""

    def prepare(self, workload, args):
        import time

        import jax
        import jax.numpy as jnp
        f = rebind(workload.f, {"np": jnp, **{n: getattr(jnp, n) for n in MATH_NAMES}},
                   scipy_stand_ins("jax.scipy", _jax_odeint))
        g = jax.grad(f, argnums=wrt_arg(workload.wrt))
        if self.jit:
            g = jax.jit(g)
        jargs = tuple(jnp.asarray(a) if isinstance(a, (np.ndarray, list)) else a for a in args)

        def call():
            return jax.block_until_ready(g(*jargs))
        build = None
        if self.jit:   # the first call traces and compiles: report it on its own
            t0 = time.perf_counter()
            call()
            build = time.perf_counter() - t0
        return Prepared(call, lambda r: tuple(map(to_numpy, as_tuple(r, workload.wrt))),
                        memory=False, build_s=build)


class JaxEager(_Jax):
    name = "JAX"


class JaxJit(_Jax):
    name = "JAX jit"
    jit = True


def _autograd_linalg_patches():
    """``autograd.scipy.linalg.cholesky`` has no vjp; ``autograd.numpy.linalg``'s has."""
    import autograd.numpy as anp

    def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
        factor = anp.linalg.cholesky(a)
        return factor if lower else anp.swapaxes(factor, -1, -2)
    return {"cholesky": cholesky}


def _autograd_odeint(func, y0, ts, args, rtol, atol):
    import autograd.numpy as anp
    from autograd.builtins import tuple as traced_tuple   # (args differentiated as one)
    from autograd.scipy.integrate import odeint
    return odeint(func, y0, anp.concatenate([anp.ravel(anp.asarray(t, dtype=float)) for t in ts]),
                  traced_tuple(args), rtol=rtol, atol=atol)


def _jax_odeint(func, y0, ts, args, rtol, atol):
    import jax.numpy as jnp
    from jax.experimental.ode import odeint
    return odeint(func, jnp.asarray(y0),
                  jnp.concatenate([jnp.ravel(jnp.asarray(t, dtype=float)) for t in ts]), *args,
                  rtol=rtol, atol=atol)


class Torch(Tool):
    name = "PyTorch"
    dists = ("torch",)
    memory = False

    def available(self):
        try:
            import torch
        except ImportError as exc:
            return False, f"not installed ({exc.name})"
        torch.set_num_threads(1)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:   # already set (or parallel work already started)
            pass
        return True, ""

    def prepare(self, workload, args):
        import torch
        if workload.torch_f is not None:
            f = workload.torch_f(torch)
        else:
            f = rebind(workload.f, {n: getattr(torch, n) for n in MATH_NAMES})
        targs = []
        for i, a in enumerate(args):
            grad = i in workload.wrt
            if isinstance(a, np.ndarray):
                t = torch.from_numpy(a.copy())
                if t.is_floating_point():
                    t.requires_grad_(grad)
            elif isinstance(a, list) or (isinstance(a, float) and grad):
                t = torch.tensor(a, dtype=torch.float64, requires_grad=grad)
            else:
                t = a
            targs.append(t)
        inputs = [targs[i] for i in workload.wrt]

        def call():
            return torch.autograd.grad(f(*targs), inputs)
        return Prepared(call, lambda r: tuple(map(to_numpy, r)), memory=False)


class Tangent(Tool):
    name = "tangent"
    dists = ("tangent-ad",)

    def available(self):
        try:
            import tangent  # noqa: F401
        except Exception as exc:   # noqa: BLE001  (it may fail to import on new Pythons)
            return False, f"cannot import ({type(exc).__name__}: {exc})"
        return True, ""

    def prepare(self, workload, args):
        import time

        import warnings

        import tangent
        # tangent has no rules for math.*: the NumPy functions of the same names stand in
        f = rebind(workload.f, {n: getattr(np, n) for n in MATH_NAMES})
        t0 = time.perf_counter()
        with warnings.catch_warnings():   # its generated code says `if 1 is None:`
            warnings.simplefilter("ignore", SyntaxWarning)
            g = tangent.grad(f, wrt=tuple(workload.wrt), verbose=0)
            g(*args)
        build = time.perf_counter() - t0
        return Prepared(lambda: g(*args), lambda r: tuple(map(to_numpy, as_tuple(r, workload.wrt))),
                        build_s=build)


PEERS = [Autograd(), JaxEager(), JaxJit(), Torch(), Tangent()]
PEER_NAMES = {"autograd": "autograd", "jax": "JAX", "jax-jit": "JAX jit", "torch": "PyTorch",
              "tangent": "tangent"}
