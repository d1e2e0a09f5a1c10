"""The public entry points: ``grad``, ``value_and_grad``, ``vjp``, ``jvp``, ``jacobian``,
``hessian`` and ``hvp``. The objects they return are in :mod:`s2sad.derivatives`."""

from __future__ import annotations

import functools
import types
from typing import Callable, Sequence

import numpy as np

from . import hooks, spread
from .boundary import boundary
from .checkpoint import checkpoint
from .derivatives import (_CACHE, MAKERS, BoundDerivative, GradientFunction,  # noqa: F401
                          JVPFunction, RuntimeVJPFunction, VJPFunction, _make,
                          _refuse_state_read_again,
                          _wrt_names)
from .errors import DifferentiationError, NonScalarOutputError
from .rules.numpy import stop_gradient  # noqa: F401  (s2sad.stop_gradient)
from .runtime.structures import repeating


def _unbound(func):
    """``(function, object)`` for a bound method (or an object whose class defines
    ``__call__`` in Python, or a derivative bound to its object); None for the rest."""
    if isinstance(func, BoundDerivative):
        return func.derivative, func.obj
    if isinstance(func, types.MethodType) and isinstance(func.__func__, types.FunctionType):
        return func.__func__, func.__self__
    call = getattr(type(func), "__call__", None)
    module = type(func).__module__
    if isinstance(call, types.FunctionType) and not (  # (not s2sad's own callables)
            module == "s2sad" or module.startswith("s2sad.")):
        return call, func
    return None


def _past_self(wrt):
    """``wrt`` of a method, counted in its function's parameters (``self`` first)."""
    if isinstance(wrt, (tuple, list)):
        return type(wrt)(_past_self(w) for w in wrt)
    if isinstance(wrt, int) and not isinstance(wrt, bool) and wrt >= 0:
        return wrt + 1
    return wrt


def _methods_too(make):
    """``make`` (grad, vjp...) for a bound method too, as a :class:`BoundDerivative`."""
    @functools.wraps(make)
    @boundary
    def made(func=None, *args, **kwargs):
        unbound = None if func is None else _unbound(func)
        if unbound is None:
            if spread.variadic(func) or isinstance(func, spread.SpreadDerivative):
                return spread.derivative(made, func, args, kwargs)  # (f(w, *args): per call)
            return make(func, *args, **kwargs)
        function, obj = unbound
        if args:
            args = (_past_self(args[0]),) + args[1:]
        else:
            kwargs["wrt"] = _past_self(kwargs.get("wrt", 0))
        if spread.variadic(function):
            return BoundDerivative(spread.derivative(made, function, args, kwargs), obj)
        return BoundDerivative(make(function, *args, **kwargs), obj)
    return made


@_methods_too
def grad(func: Callable | None = None, wrt: int | str | Sequence[int | str] = 0, *,
         optimize: bool = True, annotate: bool = False, target: str = "auto",
         debug_nans: bool = False, has_aux: bool = False, holomorphic: bool = False):
    """The gradient of a scalar-valued Python function, as generated Python source.

    Args:
        func: a function defined in a .py file, returning a scalar; or a gradient
            (``s2sad.grad(s2sad.grad(f))`` is the second derivative: the generated
            gradient is differentiated in its turn).
        wrt: the argument (index or name) to differentiate with respect to, or a
            tuple of them, in which case the gradient function returns a tuple.
        optimize: turn first accumulations into assignments and remove unused work.
        annotate: precede each adjoint block with the user's line it comes from.
        target: ``"numpy"``, ``"cupy"``, ``"dask"``, ``"numba"`` (the gradient compiled by
            numba in nopython mode, docs/numba.md), or ``"auto"`` (CuPy for CuPy arrays,
            Dask for Dask arrays: see docs/dask.md).
        debug_nans: raise at the first generated statement that makes a NaN or infinity.
        has_aux: ``func`` returns ``(value, aux)``; the gradient function then returns
            ``(gradient, aux)``, ``aux`` as ``func`` computed it.
        holomorphic: ``func`` returns a complex number and is holomorphic: the gradient
            is its complex derivative ``f'(z)`` (s2sad does not check that it is; the
            result is not differentiated again). Without it, a complex output is refused.

    Returns:
        A callable with the same parameters as ``func`` that returns the
        gradient, shaped like the argument(s). ``.source`` is its source code.
        For a real ``f`` of complex ``z = x + iy`` it is ``df/dx - i df/dy`` (autograd's
        convention): the gradient of ``np.abs(z) ** 2`` is ``2 * np.conj(z)``.

    Models: ``s2sad.grad(loss, wrt="model")(model, X, y)``, for an object of your
    class, differentiates with respect to its parameters. They are the floats and float
    arrays reachable through its attributes, their lists, tuples and dicts, and the
    objects it holds. Ints, bools, strings, None, integer arrays, functions, and the
    attributes its class names in :func:`frozen` are not. The gradient is an object of
    the same class, made without calling ``__init__``: gradients in place of the
    parameters, every other attribute kept as it is. The model is not changed.
    See docs/models.md.

    Example:
        >>> import s2sad
        >>> def f(x, y):
        ...     return x * y + x ** 2
        >>> s2sad.grad(f)(3.0, 2.0)
        8.0
        >>> s2sad.grad(f, wrt=(0, "y"))(3.0, 2.0)
        (8.0, 3.0)
        >>> def cube(x):
        ...     return x * x * x
        >>> s2sad.grad(s2sad.grad(cube))(1.0), s2sad.grad(s2sad.grad(s2sad.grad(cube)))(1.0)
        (6.0, 6.0)
        >>> def loss(w):
        ...     error = w * 2.0 - 1.0
        ...     return error ** 2, error
        >>> s2sad.grad(loss, has_aux=True)(1.0)
        (4.0, 1.0)
    """
    if func is None:
        return lambda f: grad(f, wrt, optimize=optimize, annotate=annotate, target=target,
                              debug_nans=debug_nans, has_aux=has_aux, holomorphic=holomorphic)
    if holomorphic:
        if has_aux:
            raise TypeError("grad takes holomorphic=True or has_aux=True, not both")
        return _holomorphic(func, wrt, optimize=optimize, annotate=annotate, target=target,
                            debug_nans=debug_nans)
    return _make(func, wrt, optimize, annotate, False, target, debug_nans, has_aux)


def _holomorphic(func, wrt, **options):
    """``grad(func, holomorphic=True)``: the pullback of 1 through the complex scalar
    ``func`` returns, ``f'(z)`` where ``func`` is holomorphic (autograd's convention).

    >>> import numpy as np, s2sad
    >>> def f(z):
    ...     return z ** 3
    >>> s2sad.grad(f, holomorphic=True)(1.0 + 1.0j)  # 3 (1 + i)^2
    6j
    """
    made = vjp(func, wrt, **options)

    @boundary
    def holomorphic_gradient(*args, **kwargs):
        value, pullback = made(*args, **kwargs)
        if np.size(value) != 1 or isinstance(value, (tuple, list, dict)):
            raise NonScalarOutputError(
                "grad needs a function that returns a scalar, but it returned "
                f"{'an array of shape ' + str(np.shape(value)) if hasattr(value, 'shape') else type(value).__name__}",
                hint="Reduce it (np.sum...) or, for vector outputs, use s2sad.vjp or "
                     "s2sad.jacobian.")
        one = np.ones_like(value) if isinstance(value, np.ndarray) else 1.0
        derivative = pullback(one)
        if np.iscomplexobj(value):
            _check_holomorphic(derivative, pullback(one * 1j), func)
        return derivative

    holomorphic_gradient.__name__ = f"grad_{getattr(func, '__name__', 'f')}"
    holomorphic_gradient.__s2sad_made__ = "a holomorphic gradient"
    holomorphic_gradient.vjp = made  # (its .source, .source_for: the pullback's)
    return holomorphic_gradient


@_methods_too
def value_and_grad(func: Callable | None = None, wrt: int | str | Sequence[int | str] = 0, *,
                   optimize: bool = True, annotate: bool = False, target: str = "auto",
                   debug_nans: bool = False, has_aux: bool = False):
    """Like :func:`grad`, but the function returns ``(value, gradient)``.

    With ``has_aux=True`` it returns ``((value, aux), gradient)``.

    Example:
        >>> import s2sad
        >>> def f(x):
        ...     return x ** 3
        >>> s2sad.value_and_grad(f)(2.0)
        (8.0, 12.0)
    """
    if func is None:
        return lambda f: value_and_grad(f, wrt, optimize=optimize, annotate=annotate,
                                        target=target, debug_nans=debug_nans, has_aux=has_aux)
    return _make(func, wrt, optimize, annotate, True, target, debug_nans, has_aux)


def _leaves(tree):
    """The numbers and arrays of a tree of tuples, lists and dicts (not converted: a CuPy
    array stays on its device)."""
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in _leaves(item)]
    return [tree]


def _check_holomorphic(derivative, turned, func):
    """Refuse ``grad(func, holomorphic=True)`` where the pullback of 1 is not ``func``'s
    complex derivative. ``turned`` is the pullback of ``1j``: ``1j`` times the pullback of
    1 where ``func`` is holomorphic; not so where ``np.conj``, ``np.abs``, ``np.real``...
    make ``df = a dz + b conj(dz)``, ``b`` not 0. A real argument's pullback is the real
    part of the derivative: right only where its imaginary part (``-turned``) is 0.

    >>> _check_holomorphic(2.0 + 1.0j, -1.0 + 2.0j, None)
    >>> _check_holomorphic(1.0 + 0j, -1j, abs)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    s2sad.errors.DifferentiationError: abs is not holomorphic here ...
    """
    name = getattr(func, "__name__", "the function")
    for d, t in zip(_leaves(derivative), _leaves(turned), strict=True):
        if not np.size(d):
            continue
        scale = 1e-8 * (1.0 + float(np.max(np.abs(d))) + float(np.max(np.abs(t))))
        if not np.iscomplexobj(d) and float(np.max(np.abs(t))) > scale:
            raise DifferentiationError(
                f"{name} returns a complex value of a real argument, whose derivative is "
                "complex: grad(..., holomorphic=True) would give its real part alone",
                hint="Pass the argument as a complex number (x + 0j).")
        if np.iscomplexobj(d) and float(np.max(np.abs(t - 1j * d))) > scale:
            raise DifferentiationError(
                f"{name} is not holomorphic here (its change depends on the direction of "
                "the change of its argument, as np.conj, np.abs or np.real make it), so it "
                "has no complex derivative for grad(..., holomorphic=True) to give",
                hint="Differentiate its real and imaginary parts: s2sad.grad of np.real(f) "
                     "and of np.imag(f), or s2sad.vjp.")


@_methods_too
def vjp(func: Callable, wrt: int | str | Sequence[int | str] = 0, *, optimize: bool = True,
        annotate: bool = False, target: str = "auto", debug_nans: bool = False):
    """Vector-Jacobian products of a function with any output (array, tuple, list...).

    Args:
        func: a function defined in a .py file (or a gradient s2sad made).
        wrt: the argument (index or name), or a tuple of them.
        optimize, annotate, target, debug_nans: as for :func:`grad`.

    Returns:
        A callable with the parameters of ``func`` returning ``(value, pullback)``:
        ``pullback(cotangent)``, the cotangent shaped like the value, returns
        ``cotangent · d value / d argument`` shaped like the argument (a tuple of them
        when ``wrt`` is a tuple). A cotangent of another shape or structure than the
        value is refused with a ``ValueError`` (a number is not broadcast, as in JAX).
        Its generated source (``.source``) is the adjoint, with the output's sensitivity
        as its last parameter ``seed``.

    Example:
        >>> import numpy as np, s2sad
        >>> def f(x):
        ...     return np.sin(x) * 2.0
        >>> value, pullback = s2sad.vjp(f)(np.array([0.0, np.pi]))
        >>> pullback(np.array([1.0, 1.0]))
        array([ 2., -2.])
        >>> def pair(x, y):
        ...     return x * y, x + y
        >>> s2sad.vjp(pair, wrt=(0, 1))(2.0, 3.0)[1]((1.0, 0.0))
        (3.0, 2.0)
    """
    return _make(func, wrt, optimize, annotate, False, target, debug_nans, False, VJPFunction)


@_methods_too
def jvp(func: Callable, wrt: int | str | Sequence[int | str] = 0, *, optimize: bool = True,
        annotate: bool = False, target: str = "auto", debug_nans: bool = False):
    """Forward mode: Jacobian-vector products, by source transformation.

    The generated function (``.source``) computes each active value ``v`` together with
    its tangent ``d_v``, statement by statement, with the user's branches and loops; it
    takes one tangent per differentiated argument after the function's own arguments
    and returns ``(value, tangent)``.

    Args:
        func: a function defined in a .py file, with any output (or a gradient s2sad
            made: ``jvp(grad(f))`` gives Hessian-vector products).
        wrt: the argument (index or name), or a tuple of them (an argument named twice
            takes a tangent each: its tangent is their sum).
        optimize, annotate, target, debug_nans: as for :func:`grad`.

    Returns:
        A callable with the parameters of ``func`` returning ``(value, pushforward)``:
        ``pushforward(*tangents)`` (one per argument in ``wrt``, shaped like it)
        returns the tangent of the output, shaped like the output.

    Example:
        >>> import numpy as np, s2sad
        >>> def f(x, y):
        ...     return np.sin(x) * y
        >>> value, push = s2sad.jvp(f)(0.0, 3.0)
        >>> print(push(1.0))
        3.0
        >>> print(s2sad.jvp(f).source_for(0.0, 3.0))
        import numpy as np
        from s2sad.runtime import as_gradient
        <BLANKLINE>
        def jvp_f(x, y, d_x):
            ret = np.sin(x) * y
            return (ret, as_gradient(ret, d_x * np.cos(x) * y))
        <BLANKLINE>
    """
    return _make(func, wrt, optimize, annotate, False, target, debug_nans, False, JVPFunction)


def _basis(like):
    """One-hot arrays shaped like ``like`` (a float, an array or a list of floats),
    each in the structure of ``like``."""
    import numpy as np
    from .runtime import as_gradient
    flat = np.asarray(like, dtype=float)
    for i in range(flat.size):
        e = np.zeros(flat.size)
        e[i] = 1.0
        yield as_gradient(like, e.reshape(flat.shape))


@_methods_too
def jacobian(func: Callable, wrt: int | str | Sequence[int | str] = 0, *, mode: str = "auto",
             optimize: bool = True, target: str = "auto"):
    """The dense Jacobian of a function, column by column (forward) or row by row (reverse).

    Args:
        func: a function defined in a .py file (or a gradient s2sad made) whose output is
            a float, an array or a list/tuple of floats.
        wrt: the argument (index or name), or a tuple of them (then a tuple of Jacobians).
        mode: ``"rev"`` (one pullback per output entry), ``"fwd"`` (one pushforward per
            input entry) or ``"auto"`` (the one with fewer runs).

    Returns:
        A callable with the parameters of ``func`` returning an array of shape
        ``output.shape + argument.shape``.

    Example:
        >>> import numpy as np, s2sad
        >>> def f(x):
        ...     return np.array([x[0] * x[1], np.sin(x[0])])
        >>> s2sad.jacobian(f)(np.array([0.0, 2.0]))
        array([[2., 0.],
               [1., 0.]])
    """
    if mode not in ("auto", "rev", "fwd"):
        raise ValueError(f"mode must be 'auto', 'rev' or 'fwd', got {mode!r}")
    if getattr(func, "__s2sad_jacobian_of__", None) is not None:
        return _jacobian_of_jacobian(func, wrt, mode, optimize, target)
    rev = vjp(func, wrt, optimize=optimize, target=target)
    fwd = jvp(func, wrt, optimize=optimize, target=target)

    @boundary
    def jacobian_function(*args, **kwargs):
        import numpy as np
        args = rev._bind(args, kwargs)
        names = rev._wrt_names
        inputs = [args[rev._params.index(n)] for n in names]
        value = rev._call(func, args)
        function = getattr(func, "__qualname__", "the function")
        for what, part in [(f"{function} returned", value)] + [
                (f"its argument {n!r} is", x) for n, x in zip(names, inputs)]:
            if isinstance(getattr(part, "__dict__", None), dict):  # (a model's parameters)
                raise TypeError(
                    f"jacobian_{getattr(func, '__name__', 'f')}(): a Jacobian is one array, "
                    f"and {what} a {type(part).__name__}, an object holding parameters: use "
                    "s2sad.grad, s2sad.vjp or s2sad.jvp for it, s2sad.hvp for its Hessian "
                    "times a direction shaped like it, or pass its arrays as arrays")
            if isinstance(part, dict) or isinstance(part, (list, tuple)) and \
                    not _one_array(part):
                raise TypeError(
                    f"jacobian_{getattr(func, '__name__', 'f')}(): a Jacobian is one array, "
                    f"and {what} a {type(part).__name__} of parts: use s2sad.vjp or s2sad.jvp "
                    "for structures, or pass and return arrays")
        _refuse_complex(jacobian_function.__name__, function, value, zip(names, inputs))
        out_shape = np.shape(np.asarray(value, dtype=float))
        n_out = int(np.prod(out_shape))
        n_in = sum(int(np.size(np.asarray(x, dtype=float))) for x in inputs)
        use = mode if mode != "auto" else ("rev" if n_out <= n_in else "fwd")
        blocks = []
        made = rev if use == "rev" else fwd  # (a function reading the state it changes:
        compiled = made._variant(args)        # refused, each row or column another one)
        _refuse_state_read_again(made, "jacobian", "row" if use == "rev" else "column",
                                 compiled, args)
        if use == "rev":
            rows = [[] for _ in names]
            for e in _basis(value):
                with repeating():  # (value ran the function's state changes: not again)
                    got = rev._call(rev._variant(args).function, args, e)
                got = got if rev._wrt_tuple else (got,)
                for row, g in zip(rows, got):
                    row.append(np.asarray(g, dtype=float))
            for row, x in zip(rows, inputs):
                x_shape = np.shape(np.asarray(x, dtype=float))
                stacked = np.array(row).reshape(out_shape + x_shape)
                blocks.append(stacked)
        else:
            for k, x in enumerate(inputs):
                x_shape = np.shape(np.asarray(x, dtype=float))
                columns = []
                for e in _basis(x):
                    tangents = [e if j == k else _zero_like(inputs[j]) for j in range(len(names))]
                    with repeating():  # (value ran the function's state changes)
                        columns.append(np.asarray(fwd._both(args, tangents)[1], dtype=float))
                stacked = np.array(columns).reshape(x_shape + out_shape)
                blocks.append(np.moveaxis(stacked, list(range(len(x_shape))),
                                          list(range(len(out_shape),
                                                     len(out_shape) + len(x_shape)))))
        # (float32 in and out: a float32 Jacobian, as the gradient keeps float32)
        dtype = np.result_type(*(np.asarray(p).dtype if np.asarray(p).dtype.kind == "f"
                                 else np.float64 for p in [value, *inputs]))
        blocks = [block.astype(dtype, copy=False) for block in blocks]
        return tuple(blocks) if rev._wrt_tuple else blocks[0]

    jacobian_function.__name__ = f"jacobian_{getattr(func, '__name__', 'f')}"
    jacobian_function.__s2sad_made__ = "a Jacobian"
    jacobian_function.__s2sad_jacobian_of__ = (func, wrt, optimize, target)
    jacobian_function.__doc__ = f"Jacobian of {getattr(func, '__qualname__', func)!s}, by s2sad."
    return jacobian_function


def _jacobian_of_jacobian(inner, wrt, mode, optimize, target):
    """``jacobian(jacobian(f))``: row ``o`` of the inner Jacobian is ``f``'s generated vjp
    for the cotangent ``e_o``, a function s2sad differentiates again; each row's Jacobian
    is stacked, ``output.shape + x.shape + y.shape`` (``x``: the inner ``wrt``, ``y``
    the outer's).

    >>> import numpy as np, s2sad
    >>> def f(x):
    ...     return np.array([x[0] ** 2 * x[1], np.sin(x[1])])
    >>> s2sad.jacobian(s2sad.jacobian(f))(np.array([1.0, 0.0]))[0]
    array([[0., 2.],
           [2., 0.]])
    """
    import numpy as np
    func, inner_wrt, inner_optimize, inner_target = inner.__s2sad_jacobian_of__
    rev = vjp(func, inner_wrt, optimize=inner_optimize, target=inner_target)
    if rev._wrt_tuple or isinstance(wrt, (tuple, list)):
        raise DifferentiationError(
            f"cannot differentiate {inner.__name__} with respect to several arguments, or "
            "a Jacobian with respect to several: s2sad takes one argument for each",
            hint="Give one argument to each: s2sad.jacobian(s2sad.jacobian(f, wrt=i), wrt=j).")
    _wrt_names(func, rev._params, wrt)  # (said now, as for any jacobian)

    @boundary
    def jacobian_function(*args, **kwargs):
        args = rev._bind(args, kwargs)
        value = rev._call(func, args)
        if isinstance(value, dict) or isinstance(value, (list, tuple)) and \
                not _one_array(value):
            raise TypeError(f"{jacobian_function.__name__}(): a Jacobian is one array, and "
                            f"{func.__qualname__} returned a {type(value).__name__} of parts")
        _refuse_complex(jacobian_function.__name__, func.__qualname__, value,
                        [(n, args[rev._params.index(n)]) for n in rev._wrt_names])
        rev._variant(args)
        own = rev._nestable(rev._key(args)).function  # (its parameters, then the cotangent)
        row_of = jacobian(own, wrt, mode=mode, optimize=optimize, target=target)
        with repeating():  # (value ran the function's state changes: not again)
            rows = [np.asarray(row_of(*args, e), dtype=float) for e in _basis(value)]
        return np.array(rows).reshape(np.shape(np.asarray(value, dtype=float)) +
                                      rows[0].shape)

    jacobian_function.__name__ = f"jacobian_{inner.__name__}"
    jacobian_function.__s2sad_made__ = "a Jacobian of a Jacobian"
    return jacobian_function


def _refuse_complex(made, function, value, inputs):
    """A Jacobian (or Hessian) is an array of real numbers: refuse a complex value or
    argument, whose real and imaginary parts it would drop or mix (``jacobian`` of
    ``np.abs(z) ** 2`` gave the derivatives along the real parts alone, as a real matrix).

    >>> _refuse_complex("jacobian_f", "f", 1.0, [("x", np.ones(2))])
    >>> _refuse_complex("jacobian_f", "f", 1.0, [("z", np.ones(2) * 1j)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    s2sad.errors.DifferentiationError: jacobian_f(): its argument 'z' is complex: ...
    """
    for what, part in [(f"its argument {n!r} is complex", x) for n, x in inputs] + [
            (f"{function} returned a complex value", value)]:
        if any(np.iscomplexobj(leaf) for leaf in _leaves(part)):
            raise DifferentiationError(
                f"{made}(): {what}: a Jacobian or Hessian is an array of real numbers, and "
                "a complex number has two real parts (a function that is not holomorphic "
                "has no complex Jacobian)",
                hint="Use s2sad.vjp or s2sad.jvp (autograd's convention), s2sad.hvp for a "
                     "Hessian times a direction, or pass the real and imaginary parts as "
                     "two real arrays.")


def _zero_like(x):
    from .runtime import zeros_like_structure
    zero = zeros_like_structure(x)
    return tuple(zero) if isinstance(x, tuple) else zero


@_methods_too
def hessian(func: Callable, wrt: int | str = 0, *, optimize: bool = True,
            target: str = "auto"):
    """The dense Hessian of a scalar function: forward mode over the generated gradient.

    Args:
        func: a function defined in a .py file returning a scalar.
        wrt: the argument (index or name): a float, an array or a list of floats.

    Returns:
        A callable with the parameters of ``func`` returning an array of shape
        ``argument.shape + argument.shape`` (a float for a float argument).

    Example:
        >>> import numpy as np, s2sad
        >>> def f(x):
        ...     return x[0] ** 2 * x[1] + np.sum(x ** 3)
        >>> s2sad.hessian(f)(np.array([1.0, 2.0]))
        array([[10.,  2.],
               [ 2., 12.]])
    """
    if isinstance(wrt, (tuple, list)):
        raise TypeError("hessian takes one argument (wrt=index or name); for several, "
                        "differentiate s2sad.grad(f, wrt=i) with s2sad.jacobian")
    _first_order_target("hessian", "a Hessian", func, target)
    inner = jacobian(grad(func, wrt, optimize=optimize, target=target), wrt, mode="fwd",
                     optimize=optimize, target=target)

    @boundary
    def hessian_function(*args, **kwargs):
        out = inner(*args, **kwargs)
        return float(out) if out.ndim == 0 else out

    hessian_function.__name__ = f"hessian_{getattr(func, '__name__', 'f')}"
    hessian_function.__s2sad_made__ = "a Hessian"
    return hessian_function


def _first_order_target(api: str, what: str, func, target) -> None:
    """Refuse ``s2sad.hessian(f, target="numba")`` at the user's call (the first frame
    outside s2sad): a compiling target makes first derivatives alone.

    >>> def f(x):
    ...     return x * x
    >>> _first_order_target("hessian", "a Hessian", f, "numba")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    s2sad.errors.DifferentiationError: s2sad.hessian does not support target='numba': ...
    """
    from .backends import target_backend
    backend = target_backend(target)
    if backend is None or not backend.compiler:
        return
    import linecache
    import sys

    from .boundary import _internal
    frame = sys._getframe(1)
    while frame.f_back is not None and _internal(frame):
        frame = frame.f_back
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    col = None
    if hasattr(frame.f_code, "co_positions"):  # (Python 3.11: the call's column)
        positions = list(frame.f_code.co_positions())
        if 0 <= frame.f_lasti // 2 < len(positions):
            col = positions[frame.f_lasti // 2][2]
    name = getattr(func, "__name__", "f")
    raise DifferentiationError(
        f"s2sad.{api} does not support target={backend.name!r}: the {backend.title} "
        f"target compiles first derivatives (s2sad.grad), and {what} is a derivative of a "
        "derivative", filename, lineno, linecache.getline(filename, lineno) or None, col,
        hint=f"Compute {what} with target='numpy': s2sad.{api}({name}). The gradient "
             f"itself may still run on {backend.title}: s2sad.grad({name}, "
             f"target={backend.name!r}).")


def _one_array(items) -> bool:
    """Do the numbers of the list or tuple ``items`` make one array (no dict, ragged rows)?

    >>> _one_array([1.0, 2.0]), _one_array([[1.0], [2.0, 3.0]]), _one_array([{"a": 1.0}])
    (True, False, False)
    """
    import numpy as np
    try:
        np.asarray(items, dtype=complex)
    except (TypeError, ValueError):
        return False
    return True


class HVPFunction:
    """``hvp(f)``: ``hvp_f(*args, v)`` is the Hessian of ``f`` times ``v``, computed by
    forward mode over the generated gradient (``.source`` shows that code)."""

    __s2sad_made__ = "a Hessian-vector product"

    def __init__(self, func, wrt, optimize, target):
        if isinstance(wrt, (tuple, list)):
            raise TypeError("hvp takes one argument (wrt=index or name)")
        _first_order_target("hvp", "a Hessian-vector product", func, target)
        self.jvp = jvp(grad(func, wrt, optimize=optimize, target=target), wrt,
                       optimize=optimize, target=target)
        self.__name__ = f"hvp_{getattr(func, '__name__', 'f')}"
        self.__wrapped__ = func

    @boundary
    def __call__(self, *args, **kwargs):
        if "v" in kwargs:
            v = kwargs.pop("v")
        else:
            arity = self.jvp._arity - len(kwargs) - sum(
                p.default is not p.empty and p.name not in kwargs
                for p in self.jvp._signature.parameters.values())
            if len(args) <= max(arity, 0):
                raise TypeError(f"{self.__name__}(): give the direction v last, after the "
                                f"{self.jvp._arity} argument{'s' if self.jvp._arity != 1 else ''}"
                                f" of {self.jvp.func.func.__name__} (or as v=...)")
            args, v = args[:-1], args[-1]
        args = self.jvp._bind(args, kwargs)
        return self.jvp._both(args, (v,))[1]

    @property
    def source(self) -> str:
        return self.jvp.source

    def source_for(self, *args, **kwargs) -> str:
        return self.jvp.source_for(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<s2sad hvp {self.__name__}>"


@_methods_too
def hvp(func: Callable, wrt: int | str = 0, *, optimize: bool = True, target: str = "auto"):
    """Hessian-vector products, forward mode over reverse mode, without the Hessian.

    Args:
        func: a function defined in a .py file returning a scalar.
        wrt: the argument (index or name).

    Returns:
        A callable ``hvp_f(*args, v)``: the arguments of ``func``, then the direction
        ``v`` shaped like the argument ``wrt``; it returns ``H v``.

    Example:
        >>> import numpy as np, s2sad
        >>> def f(x):
        ...     return np.sum(x ** 3)
        >>> s2sad.hvp(f)(np.array([1.0, 2.0]), np.array([1.0, 0.0]))
        array([6., 0.])
    """
    return HVPFunction(func, wrt, optimize, target)


hvp.__s2sad_direction__ = True  # (its function takes v after f's: spread.SpreadDerivative)


MAKERS.update(grad=grad, value_and_grad=value_and_grad, vjp=vjp, jvp=jvp)  # (pickling)

# s2sad.vjp and s2sad.jvp, for what the runtime compiles as it runs (s2sad.hooks)
hooks.make_vjp.install(vjp)
hooks.make_jvp.install(jvp)
hooks.make_grad.install(grad)
hooks.make_value_vjp.install(lambda func, wrt: _make(
    func, wrt, True, False, True, "auto", False, False, RuntimeVJPFunction))

# a call of one of these inside a function differentiated is refused at its line
# (Normalize: a derivative is made once, at module level, and its calls inlined)
for _maker in (grad, value_and_grad, vjp, jvp, jacobian, hessian, hvp, checkpoint):
    _maker.__s2sad_maker__ = True


def frozen(*names: str):
    """A class decorator: the attributes ``names`` of its objects are not parameters.

    >>> import numpy as np, s2sad
    >>> @s2sad.frozen("mask")
    ... class Masked:
    ...     def __init__(self, w, mask):
    ...         self.w, self.mask = w, mask

    ``s2sad.grad(loss, wrt="model")`` differentiates with respect to the floats and float
    arrays an object holds (its parameters). No gradient flows into a frozen attribute:
    the gradient object keeps it as it is, as it keeps ints, strings and integer arrays.
    It sets ``__s2sad_frozen__`` on the class (a subclass adds its own to its bases').
    ``s2sad.stop_gradient(self.mask)`` where the function reads it does the same for one
    read.
    """
    for name in names:
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"s2sad.frozen takes attribute names, got {name!r}")

    def mark(cls):
        if not isinstance(cls, type):
            raise TypeError(f"s2sad.frozen(...) decorates a class, got {cls!r}")
        cls.__s2sad_frozen__ = tuple(vars(cls).get("__s2sad_frozen__", ())) + names
        return cls
    return mark


def supported() -> list[str]:
    """The names of every function with a derivative rule (or a zero derivative), and of
    the NumPy functions written with those (``s2sad.implementations``); a library's private
    helpers with a rule (SciPy's ``_lib._array_api.xp_promote``, which its own code calls)
    are left out."""
    from . import implementations, registry
    return sorted({rule.name for rule in registry.registered()
                   if not any(part.startswith("_") for part in rule.name.split(".")[:-1])}
                  | set(implementations.names()))
