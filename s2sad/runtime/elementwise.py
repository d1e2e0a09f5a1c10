"""Numbers: casts, powers and quotients that stay finite, and their checks.

>>> import numpy as np
>>> scaled_power(3.0, np.array([0.0, 2.0]), 2.0)
array([ 0., 12.])

``scaled_power(c, x, e)`` is ``c * x ** (e - 1)`` without a NaN at 0. ``quotient`` and
``gap_quotient`` divide where the divisor may vanish. ``check_real_power`` refuses a
power that is complex in NumPy. ``cast_like`` and ``clip_grad`` keep the argument's dtype.
"""

from __future__ import annotations

import numpy as np

from ..backends import array_module
from ..errors import DifferentiationError, UnsupportedSyntaxError
from .shapes import _float_type, _shape, _to, unbroadcast


def cast_like(g, x):
    """``g`` with the floating dtype of ``x`` (the adjoint of ``astype`` and ``asarray``):
    the real part of a complex ``g`` for a real ``x`` (``x.astype(complex)``).

    >>> cast_like(np.array([1.0 + 2.0j]), np.zeros(1))
    array([1.])
    """
    xp = array_module(x, g)
    if isinstance(x, (np.ndarray, np.generic, xp.ndarray)):
        if xp.iscomplexobj(g) and _float_type(x).kind != "c":
            g = xp.real(g)
        return xp.asarray(g, dtype=_float_type(x))
    return g


def check_real_power(x, y, varying: bool = False) -> None:
    """Refuse ``x ** y`` where Python makes it a complex number: a negative Python number
    to a power that is not a whole number (NumPy's numbers give NaN there instead), or
    to a ``varying`` (differentiated) power, complex next to each whole number.

    >>> check_real_power(-8.0, 2.0), check_real_power(np.float64(-8.0), 0.5)
    (None, None)
    >>> check_real_power(-8.0, 0.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    s2sad.errors.DifferentiationError: s2sad cannot differentiate (-8.0) ** 0.5: Python ...
    """
    if type(x) in (int, float) and type(y) in (int, float) and x < 0 and \
            (varying or not float(y).is_integer()):
        why = "Python makes a negative number to a power that is not a whole number a " \
            "complex number" if not float(y).is_integer() else "a negative number to a " \
            "power is complex next to each whole number, so it has no real derivative there"
        raise DifferentiationError(
            f"s2sad cannot differentiate ({x!r}) ** {y!r}: {why}, and s2sad differentiates "
            "real numbers only",
            hint="Keep the base non-negative (`max(b, 0.0) ** 0.5`, or take `abs`), or "
                 "compute on NumPy values (`np.sqrt(b)`, `np.float64(b) ** 0.5`), which give "
                 "NaN there.")


def check_distinct(values: tuple, construct: str, hint: str) -> None:
    """Refuse, at run time, a deep copy of an object that s2sad wrote attribute by
    attribute (``copy.deepcopy(p)`` as ``copy.deepcopy(p__w)``, ...) where one object
    (an array, a list) is held twice, by two attributes or by two slots of one: Python's
    copy holds one new object there, twice; s2sad follows each slot of the copy alone.

    >>> y = np.ones(2)
    >>> check_distinct((y, y * 2.0, 1.0, 1.0), "copy.deepcopy(p)", "Copy it yourself.")
    >>> check_distinct((y, [y]), "copy.deepcopy(p)", "Copy it yourself.")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    s2sad.errors.UnsupportedSyntaxError: s2sad does not support copy.deepcopy(p): ...
    >>> check_distinct(([y, y],), "copy.deepcopy(p)", "Copy it yourself.")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    s2sad.errors.UnsupportedSyntaxError: s2sad does not support copy.deepcopy(p): ...
    """
    seen = {}

    def leaves(value, into: set):
        if type(value) in (float, int, complex, bool, str, bytes) or value is None or \
                isinstance(value, np.generic):
            return  # (immutable: the copy may be the same object)
        if id(value) in into:
            raise UnsupportedSyntaxError(
                f"{construct}: one of its attributes holds one object in two slots, where its "
                "copy holds one new object twice (s2sad follows each slot alone)", hint=hint)
        into.add(id(value))
        if isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                leaves(item, into)
        elif isinstance(value, dict):
            for item in list(value.keys()) + list(value.values()):
                leaves(item, into)

    for k, value in enumerate(values):
        found = set()
        leaves(value, found)
        for key in found:
            if seen.setdefault(key, k) != k:
                raise UnsupportedSyntaxError(
                    f"{construct}: two of its attributes hold one object, which its copy "
                    "holds once (s2sad copies each attribute alone)", hint=hint)


def check_flat(value, items, construct: str, hint: str) -> None:
    """Refuse, at run time, ``y.flat[i] = v`` (written on ``t = y.flatten()`` as ``t[i] =
    v``) where ``v`` is neither one number nor of the shape of ``t[i]``: the flat
    iterator repeats or cuts ``v``'s items in C order, where an array's ``t[i] = v``
    broadcasts them (or raises).

    >>> t = np.zeros(4)
    >>> check_flat(np.ones(2), t[1:3], "`y.flat[1:3] = v`", "Give v two items.")
    >>> check_flat(np.ones(2), t[0:4], "`y.flat[0:4] = v`", "Give v four items.")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    s2sad.errors.UnsupportedSyntaxError: s2sad does not support `y.flat[0:4] = v`: ...
    """
    if np.size(value) == 1 or np.shape(value) == np.shape(items):
        return
    raise UnsupportedSyntaxError(
        f"{construct}: here a value of shape {np.shape(value)} for items of shape "
        f"{np.shape(items)}, which the flat iterator repeats or cuts in C order",
        hint=hint)


def check_in_place(target, value, op: str) -> None:
    """Raise NumPy's error where ``target op= value`` fails on the array ``target``
    (s2sad writes it ``target = target op value``): a result of another kind than its
    dtype's (a float into integers), or of a larger shape. ``op``: the ``operator``
    module's name of the update (``iadd``). A number is rebound: nothing to check.

    >>> check_in_place(np.zeros(2), np.ones(2), "iadd")
    >>> check_in_place(np.arange(2), 1.5, "iadd")
    Traceback (most recent call last):
    ...
    numpy._core._exceptions._UFuncOutputCastingError: Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') with casting rule 'same_kind'
    >>> check_in_place(np.zeros(1), np.ones(3), "imul")
    Traceback (most recent call last):
    ...
    ValueError: non-broadcastable output operand with shape (1,) doesn't match the broadcast shape (3,)
    """
    if type(target) is np.ndarray:
        import operator
        getattr(operator, op)(target.copy(), value)  # (on a copy: NumPy's own checks)


def check_number(value, construct: str, hint: str) -> None:
    """Refuse, at run time, an in-place update s2sad wrote as a new value (``v /= c`` as
    ``v = v / c``) where ``value`` is not a number: ``/=`` changes an array (or a list) in
    place, under another name that reads it; a number it only rebinds.

    >>> check_number(np.float64(2.0), "`v /= ...`", "Write `v = v / ...`.")
    >>> check_number(np.ones(2), "`v /= ...`", "Write `v = v / ...`.")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    s2sad.errors.UnsupportedSyntaxError: s2sad does not support `v /= ...`: here an array, ...
    """
    if type(value) in (float, int, complex, bool) or isinstance(value, np.generic):
        return
    what = "an array" if hasattr(value, "shape") else f"a {type(value).__name__}"
    raise UnsupportedSyntaxError(f"{construct}: here {what}, which the update changes in "
                                 "place", hint=hint)


def unchanged_call(func, watched: tuple, message: str, hint: str, *args, **kwargs):
    """``func(*args, **kwargs)``, a function s2sad has no facts for, given arrays the
    gradient follows (``watched``) where its result needs no gradient (an auxiliary
    output's ``np.polyfit(t, w, 1)``): refused, with ``message`` and ``hint``, if it
    changed one of them in place (the arrays a list or tuple holds), or is given another
    object, or returns an iterator (which does its work when it is read, unwatched).

    >>> w = np.array([1.0, 2.0])
    >>> int(unchanged_call(np.linalg.matrix_rank, (w,), "refused", "", np.outer(w, w)))
    1
    >>> unchanged_call(np.copyto, (w,), "refused", "Copy it.", w, 0.0)
    Traceback (most recent call last):
    ...
    s2sad.errors.NoDerivativeError: refused
    Copy it.
    """
    from ..errors import NoDerivativeError
    arrays, items = [], list(watched)
    while items:  # (a list or tuple made on the line: the arrays it holds)
        v = items.pop()
        if isinstance(v, (list, tuple)) and len(items) < 1000:
            items.extend(v)
        elif isinstance(v, np.ndarray):
            arrays.append(v)
        elif not isinstance(v, (np.generic, float, int, complex)):
            raise NoDerivativeError(message, hint=hint)
    before = [(v, v.copy()) for v in arrays]
    result = func(*args, **kwargs)
    for v, old in before:
        if v.shape != old.shape or not np.array_equal(
                v, old, equal_nan=v.dtype.kind in "fc"):
            raise NoDerivativeError(message, hint=hint)
    if arrays and hasattr(result, "__next__"):  # (a lazy iterator, itertools.starmap's: it
        raise NoDerivativeError(message, hint=hint)  # runs the work when read, unwatched)
    return result


def check_no_function(value, message: str, hint: str) -> None:
    """Refuse, at run time, a function given to a rule as an argument it has no derivative
    in (``odeint(m.rhs, ...)``, ``m`` holding a differentiated value): the function may
    hold those values, and the rule would take it as a constant. Data passes.

    >>> check_no_function(np.ones(2), "odeint: 'func'", "Pass args.")
    >>> check_no_function([np.sin], "odeint: 'func'", "Pass args.")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    s2sad.errors.NoDerivativeError: odeint: 'func', here the function sin...
    """
    found = _held_function(value)
    if found is not None:
        from ..errors import NoDerivativeError
        raise NoDerivativeError(f"{message}, here {found}", hint=hint)


def _held_function(value, depth: int = 0):
    """How an error names the function ``value`` is or holds (in a list, tuple or dict's
    items), or None."""
    if isinstance(value, (np.ndarray, np.generic, float, int, complex, str, bytes)) or \
            value is None or depth > 3:
        return None
    if callable(value):
        owner = getattr(value, "__self__", None)
        name = getattr(value, "__name__", None)
        if owner is not None and name and not isinstance(owner, (type, type(np))):
            return f"the bound method {type(owner).__name__}.{name}"
        if type(value).__name__ == "partial":
            return f"functools.partial of {getattr(value.func, '__name__', 'a function')}"
        if getattr(value, "__closure__", None):
            return f"the closure {name}"
        return f"the function {name}" if name else f"a callable {type(value).__name__}"
    items = value.values() if isinstance(value, dict) else value if isinstance(
        value, (list, tuple)) else ()
    return next((f for f in (_held_function(v, depth + 1) for v in items) if f), None)


def scaled_power(c, x, e):
    """``c * x ** e``, and 0 where ``c`` is 0, whatever ``x ** e`` is there: the slope of
    ``x ** y`` is ``scaled_power(y, x, y - 1)``. Where the exponent is 0 the power is the
    constant 1, whose slope is 0 even at ``x = 0``, where ``0 * 0.0 ** -1`` would be NaN
    (an array) or a ZeroDivisionError (a Python float): ``c * x ** (y - 1)`` alone gives
    a polynomial ``np.sum(a * x ** np.arange(n))`` a NaN gradient at ``x = 0``. Where
    ``c`` is not 0 it is the power as written, infinite where the slope is (``x ** 0.5``
    at 0; no warning there, as for :func:`quotient`).

    >>> scaled_power(np.array([0.0, 1.0, 2.0, 0.5]), 0.0, np.array([-1.0, 0.0, 1.0, -0.5]))
    array([ 0.,  1.,  0., inf])
    >>> scaled_power(0, 0.0, -1), scaled_power(3, 2.0, 2), scaled_power(0.5, 0.0, -0.5)
    (0.0, 12.0, inf)

    Its own slopes are of the same form (``scaled_power(c * e, x, e - 1)`` in ``x``), so
    every order of ``x ** y`` stays finite where the exponent is a whole number.
    """
    if type(c) in (int, float, bool):  # a number: a zero is known here
        if not c:
            return c * x ** 0
        try:
            return c * x ** e
        except ZeroDivisionError:  # (0.0 ** -1: infinite, as an array's; a term a higher
            with np.errstate(divide="ignore"):  # order then multiplies by 0 is no error)
                return c * float(np.float64(x) ** e)
    xp = array_module(c, x, e)
    with np.errstate(divide="ignore"):
        return c * x ** xp.where(c == 0, 0, e)


def quotient(a, b):
    """``a / b``, and 0 where ``a`` is 0 (whatever ``b`` is there): the eigen- and singular
    value rules divide by gaps between eigenvalues, which are 0 where one repeats, and by
    singular values, 0 for a matrix short of full rank. Where the numerator is 0 (a
    gradient that does not reach the eigenvectors) the term is 0; where it is not, the
    derivative does not exist and the result is infinite, as JAX's NaN says too (never
    a finite wrong number).

    >>> quotient(np.array([1.0, 0.0, 2.0]), np.array([2.0, 0.0, 0.0]))
    array([0.5, 0. , inf])

    (No warning: an infinity that reaches a result shows there, and one that does not, a
    tangent of eigenvectors that the function does not read, is no error.)
    """
    xp = array_module(a, b)
    zero = a == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.where(zero, 0.0, a / xp.where(zero, 1.0, b))


def gap_quotient(m, w):
    """``m[..., i, j] / (w[..., j] - w[..., i])`` off the diagonal, 0 on it: the turn of
    the eigenvectors (singular vectors, with ``w`` their squared singular values) that a
    change ``m`` in their basis makes (:func:`quotient`: 0 where ``m`` is 0, infinite where
    an eigenvalue repeats and ``m`` is not 0 there).

    >>> gap_quotient(np.ones((3, 3)), np.array([1.0, 2.0, 4.0]))
    array([[ 0.        ,  1.        ,  0.33333333],
           [-1.        ,  0.        ,  0.5       ],
           [-0.33333333, -0.5       ,  0.        ]])
    """
    xp = array_module(m, w)
    n = _shape(w)[-1]
    if n == 0:  # (no eigenvalue: no gap, and no largest one to scale the roundoff by)
        return m * (1.0 - xp.eye(0))
    gaps = xp.expand_dims(w, -2) - xp.expand_dims(w, -1)
    # eigenvalues repeated in exact arithmetic come out of LAPACK a few roundings apart
    roundoff = 4 * n * xp.finfo(xp.result_type(w, 1.0)).eps * \
        xp.max(xp.abs(w), axis=-1, keepdims=True)[..., None]
    gaps = xp.where(xp.abs(gaps) <= roundoff, 0.0, gaps)
    return quotient(m * (1.0 - xp.eye(n)), gaps)


def clip_grad(g, a, low, high, argnum):
    """Adjoint of ``np.clip(a, low, high)`` = ``minimum(maximum(a, low), high)`` with
    respect to ``a`` (0), ``low`` (1) or ``high`` (2); at a tie the gradient goes to ``a``."""
    xp = array_module(g, a, low, high)
    a, low, high = (v if v is None else xp.asarray(v) for v in (a, low, high))  # (lists too)
    raised = a if low is None else xp.maximum(a, low)
    under = True if high is None else raised <= high
    if argnum == 0:
        inside = under if low is None else under & (a >= low)
        return unbroadcast(xp.where(_to(xp, inside), g, 0.0), a)
    if argnum == 1:
        return unbroadcast(xp.where(under & (a < low), g, 0.0), low)
    return unbroadcast(xp.where(raised > high, g, 0.0), high)


def hypot_of(coordinates):
    """``math.hypot(*coordinates)``, of any number of them (Python >= 3.8): its own value.

    >>> hypot_of((3.0, 4.0, 12.0))
    13.0
    """
    import math
    return math.hypot(*coordinates)


def hypot_grad(g, ans, coordinates):
    """Each coordinate's sensitivity in ``ans = hypot_of(coordinates)``: ``c * g / ans``
    (0.0 where ``ans`` is 0: all coordinates are; a 0.0 for ``coordinates``: none).

    An array, so that two of them add (lists would be joined).

    >>> hypot_grad(2.0, 5.0, (3.0, 4.0))
    array([1.2, 1.6])
    """
    if not isinstance(coordinates, (list, tuple, np.ndarray)):
        return 0.0
    return np.array([c * g / ans if ans else 0.0 * c for c in coordinates], dtype=float)


def dot_items(a, b):
    """``sum(u * v for u, v in zip(a, b))`` of two lists or tuples (0.0 where either is a
    0.0 placeholder).

    >>> dot_items((1.0, 2.0), [3.0, 4.0]), dot_items(0.0, [1.0])
    (11.0, 0.0)
    """
    if not isinstance(a, (list, tuple, np.ndarray)) or \
            not isinstance(b, (list, tuple, np.ndarray)):
        return 0.0
    total = 0.0
    for u, v in zip(a, b, strict=True):
        total = total + u * v
    return total


def fsum_of(items):
    """``math.fsum(items)``: its own value, the exactly rounded sum (0.0 for a 0.0
    placeholder of a list's tangent).

    >>> fsum_of([0.1] * 10), fsum_of(0.0)
    (1.0, 0.0)
    """
    import math
    if not isinstance(items, (list, tuple, np.ndarray)):
        return 0.0
    return math.fsum(items)


def _clip_bounds(a_min, a_max, min, max):  # noqa: A002
    """``(a_min, a_max)`` of a call of ``np.clip`` that may use NumPy 2's ``min=`` and
    ``max=`` (for array modules whose ``clip`` takes only ``a_min`` and ``a_max``).

    >>> _clip_bounds(None, None, 0.0, 1.0)
    (0.0, 1.0)
    """
    if min is not None:
        if a_min is not None:
            raise ValueError("clip: give a_min or min, not both")
        a_min = min
    if max is not None:
        if a_max is not None:
            raise ValueError("clip: give a_max or max, not both")
        a_max = max
    return a_min, a_max
