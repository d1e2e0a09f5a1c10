"""``check_grads``: test s2sad's derivatives of your own function against finite differences.

Each derivative s2sad generates (reverse mode ``vjp``, forward mode ``jvp``, and
the same again on the generated derivative for higher orders) is compared, along
random directions, with central differences of the function one order lower:

* forward: ``jvp(F)(x; v)`` against ``(F(x + eps v) - F(x - eps v)) / (2 eps)``;
* reverse: ``<u, J v>`` computed as ``<vjp(F)(x; u), v>`` against ``<u, the same
  difference>``, for a random cotangent ``u``.

Orders above 1 check the gradient ``s2sad.grad(f)`` the same way (its Jacobian is
the Hessian); for a float argument, each order differentiates the previous one.
"""

from __future__ import annotations

import inspect

import numpy as np

from .boundary import boundary
from .descriptors import attribute_object
from .errors import DifferentiationError, S2sadError
from .runtime.structures import frozen_attributes, has_parameters


class GradientCheckError(S2sadError, AssertionError):
    """A derivative s2sad computed differs from finite differences."""


def _flat(x, seen=None) -> np.ndarray:
    if attribute_object(x):  # (a model: its parameters, each object once)
        seen = set() if seen is None else seen
        if id(x) in seen:
            return np.zeros(0)
        seen.add(id(x))
        frozen = frozen_attributes(type(x))
        parts = [_flat(v, seen) for k, v in vars(x).items()
                 if k not in frozen and has_parameters(v)]
        return np.concatenate(parts) if parts else np.zeros(0)
    if isinstance(x, (list, tuple)):
        parts = [_flat(v, seen) for v in x if seen is None or has_parameters(v)]
        return np.concatenate(parts) if parts else np.zeros(0)
    if isinstance(x, dict):
        return _flat(list(x.values()), seen)
    return np.ravel(np.asarray(x, dtype=complex if np.iscomplexobj(x) else float))


def _like(x, rng, part=None):
    """A random value with the structure of ``x``; where ``x`` is complex, ``part`` picks
    the direction: "real", "imag" (purely imaginary), or None (both). For a model, an
    object of its class with random parameters (its other attributes kept)."""
    if attribute_object(x) or _holds_model(x):
        return _mapped(x, lambda leaf: _like(leaf, rng, part), {})
    if isinstance(x, list):
        return [_like(v, rng, part) for v in x]
    if isinstance(x, tuple):
        return tuple(_like(v, rng, part) for v in x)
    if np.iscomplexobj(x):
        shape = np.shape(x)
        re = rng.normal(size=shape) if part != "imag" else np.zeros(shape)
        im = rng.normal(size=shape) if part != "real" else np.zeros(shape)
        v = re + 1j * im
        if isinstance(x, np.ndarray):
            return v.astype(x.dtype)
        return x.dtype.type(v) if isinstance(x, np.generic) else complex(v)
    if isinstance(x, np.ndarray):
        return rng.normal(size=x.shape).astype(x.dtype if x.dtype.kind == "f" else float)
    if isinstance(x, np.generic):
        return x.dtype.type(rng.normal())
    return float(rng.normal())


def _conj(u):
    """The cotangent that pulls back ``<u, .>``: ``conj(u)`` where ``u`` is complex
    (autograd's convention), ``u`` itself where it is real."""
    if isinstance(u, (list, tuple)):
        return type(u)(_conj(v) for v in u)
    return np.conj(u) if np.iscomplexobj(u) else u


def _step(x, v, eps):
    if attribute_object(x) or _holds_model(x):
        leaves = iter(_leaves(v, set()))
        return _mapped(x, lambda leaf: _step(leaf, next(leaves), eps), {})
    if isinstance(x, (list, tuple)):
        return type(x)(_step(a, b, eps) for a, b in zip(x, v))
    if isinstance(x, np.ndarray):
        return x + eps * v
    return type(x)(x + eps * v)


def _holds_model(x) -> bool:
    return isinstance(x, (list, tuple)) and any(map(attribute_object, x))


def _mapped(x, leaf, made: dict):
    """``x`` with ``leaf`` applied to each parameter of a model (objects shared where
    ``x`` shares them; other attributes, frozen ones too, kept)."""
    if attribute_object(x):
        if id(x) not in made:
            frozen = frozen_attributes(type(x))
            new = made[id(x)] = object.__new__(type(x))
            new.__dict__.update((k, v if k in frozen else _mapped(v, leaf, made))
                                for k, v in vars(x).items())
        return made[id(x)]
    if isinstance(x, (list, tuple)):
        items = [_mapped(v, leaf, made) for v in x]
        return items if isinstance(x, list) else type(x)(items) if type(x) is tuple else \
            type(x)(*items)
    if isinstance(x, dict):
        return {k: _mapped(v, leaf, made) for k, v in x.items()}
    return leaf(x) if has_parameters(x) else x


def _leaves(x, seen: set):
    """The parameters of a model ``x`` in the order ``_mapped`` visits them."""
    if attribute_object(x):
        if id(x) in seen:
            return
        seen.add(id(x))
        frozen = frozen_attributes(type(x))
        for k, v in vars(x).items():
            if k not in frozen:
                yield from _leaves(v, seen)
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from _leaves(v, seen)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _leaves(v, seen)
    elif has_parameters(x):
        yield x


def _differentiable(value) -> bool:
    from .runtime.higher import _differentiable as check
    return check(value)


def _position(f, wrt):
    """``wrt`` as the index into ``args``: ``"x"`` of ``f(x, w)`` is 0, as grad reads it."""
    if not isinstance(wrt, str):
        return wrt
    params = [p.name for p in inspect.signature(f).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if wrt not in params:
        raise DifferentiationError(
            f"wrt={wrt!r} is not an argument of {getattr(f, '__qualname__', 'f')}; its "
            f"arguments are {', '.join(params) or 'none'}")
    return params.index(wrt)


def _check_level(F, args, i, modes, eps, rtol, atol, rng, label):
    """Compare the derivatives of ``F`` along argument ``i`` with central differences:
    along real and along imaginary directions where the argument is complex."""
    for part in ("real", "imag") if _holds_complex(args[i]) else (None,):
        _check_along(F, args, i, modes, eps, rtol, atol, rng, label, part)


def _holds_complex(x) -> bool:
    if isinstance(x, (list, tuple)):
        return any(map(_holds_complex, x))
    return np.iscomplexobj(x)


def _check_along(F, args, i, modes, eps, rtol, atol, rng, label, part):
    from .api import jvp, vjp
    x = args[i]
    v = _like(x, rng, part)
    up, down = list(args), list(args)
    up[i], down[i] = _step(x, v, eps), _step(x, v, -eps)
    difference = (_flat(F(*up)) - _flat(F(*down))) / (2 * eps)
    name = getattr(F, "__name__", "f")
    if "fwd" in modes:
        _, push = jvp(F, wrt=i)(*args)
        tangent = _flat(push(v))
        _compare(tangent, difference, rtol, atol,
                 f"{label}: forward mode (jvp of {name}) along argument {i}{_along(part)}")
    if "rev" in modes:
        value, pullback = vjp(F, wrt=i)(*args)
        u = _like(value, rng)
        cotangent = pullback(_conj(u))  # (the gradient of Re <u, F>: autograd's convention)
        got = np.real(np.sum(_flat(cotangent) * _flat(v)))
        expected = np.real(np.vdot(_flat(u), difference))
        _compare(np.array([got]), np.array([expected]), rtol, atol,
                 f"{label}: reverse mode (vjp of {name}) along argument {i}{_along(part)}")


def _along(part) -> str:
    return "" if part is None else f", {'real' if part == 'real' else 'imaginary'} direction"


def _compare(got, expected, rtol, atol, what):
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape or not np.allclose(got, expected, rtol=rtol, atol=atol):
        raise GradientCheckError(
            f"{what}: s2sad gives {np.array2string(got, precision=8, threshold=8)}, "
            f"central differences give {np.array2string(expected, precision=8, threshold=8)}")


@boundary
def check_grads(f, args, order: int = 2, modes=("rev", "fwd"), wrt=None, *, eps: float = 1e-6,
                rtol: float = 1e-4, atol: float = 1e-6, seed: int = 0) -> None:
    """Check s2sad's derivatives of ``f`` against central finite differences.

    Args:
        f: a function defined in a .py file (any output: a float, an array, a tuple...).
        args: a tuple of arguments to check the derivatives at.
        order: how many times to differentiate: 1 checks ``vjp``/``jvp`` of ``f``; 2 also
            those of its gradient (``f`` must return a scalar); 3 and more differentiate
            the gradient again (float arguments only).
        modes: ``"rev"`` (reverse mode) and/or ``"fwd"`` (forward mode).
        wrt: the argument indices or names to check (default: every float argument).
        eps, rtol, atol: the finite-difference step and the tolerances.
        seed: of the random directions.

    Raises:
        GradientCheckError: (an ``AssertionError``) naming the mode, the order and the
            argument of the first mismatch.

    Example:
        >>> import numpy as np, s2sad
        >>> def f(x, w):
        ...     y = x
        ...     for _ in range(3):
        ...         y = np.tanh(w * y)
        ...     return np.sum(y ** 2)
        >>> s2sad.check_grads(f, (np.array([0.3, -0.5]), 0.8), order=2)
        >>> def wrong(x):
        ...     return np.sum(x ** 2)
        >>> @s2sad.custom_vjp(wrong)
        ... def wrong_vjp(g, ans, x):
        ...     return g * x
        >>> def uses_it(x):
        ...     return wrong(x) * 1.0
        >>> s2sad.check_grads(uses_it, (np.array([1.0, 2.0]),), order=1, modes="rev")
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        s2sad.checking.GradientCheckError: order 1: reverse mode (vjp of uses_it) along argument 0: ...
    """
    from .api import grad
    if isinstance(modes, str):
        modes = (modes,)
    unknown = set(modes) - {"rev", "fwd"}
    if unknown:
        raise ValueError(f"modes must be 'rev' and/or 'fwd', got {sorted(unknown)}")
    args = tuple(args)
    indices = list(wrt) if isinstance(wrt, (list, tuple)) else [wrt] if wrt is not None else \
        [i for i, a in enumerate(args) if _differentiable(a)]
    indices = [_position(f, w) for w in indices]
    rng = np.random.default_rng(seed)
    for i in indices:
        _check_level(f, args, i, modes, eps, rtol, atol, rng, "order 1")
        derivative = f
        for k in range(2, order + 1):
            derivative = grad(derivative, wrt=i)
            if k > 2 and not isinstance(args[i], float):
                break  # the gradient of an array argument is an array: order 2 at most
            _check_level(derivative, args, i, modes, eps, rtol * 10 ** (k - 1),
                         atol * 10 ** (k - 1), rng, f"order {k}")
