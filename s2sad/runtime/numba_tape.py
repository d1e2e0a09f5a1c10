"""What gradients compiled by numba (``target="numba"``) call in nopython mode.

Generated code for the numba target imports this module (it imports numba); the other
targets never do. ``check_tape`` is :func:`s2sad.runtime.budget.check_stack` for a
list numba types, ``zeros_like`` is :func:`s2sad.runtime.zeros_like_structure` for a
number or an array.

>>> import numpy as np
>>> zeros_like(np.ones(2, np.float32)).dtype, zeros_like(2.5), memory_budget() > 0
(dtype('float32'), 0.0, True)
"""

from __future__ import annotations

import math

import numpy as np

try:
    from numba import types
    from numba.extending import intrinsic, overload
    from numba.np.unsafe.ndarray import to_fixed_tuple
except ImportError:  # (the module imports without numba, for its documentation; compiled
    types = None      # code imports numba first, and says how to install it)

    def overload(function, **options):
        return lambda implementation: implementation

    def intrinsic(function):
        return function

from . import budget
from .budget import MemoryBudgetError
from .numba_tanh import tanh_in_place, tanh_vectorized  # noqa: F401  (the kernels' too)
from .numba_weak import weak  # noqa: F401
from .shapes import _weak

_FULL = ("the values recorded for the reverse sweep would exceed the memory budget. Raise it "
         "with s2sad.set_memory_budget(nbytes), record less, or check that the loop ends.")


def as_numpy_number(value):
    """A float64 (complex128) number a kernel returned, which numba boxes as Python's, as
    NumPy's (``np.float64``), where the NumPy target's code returns NumPy's; any other
    value as it is. The wrapper calls it, in Python.

    >>> type(as_numpy_number(1.5)).__name__, type(as_numpy_number(np.float32(1.5))).__name__
    ('float64', 'float32')
    """
    kind = type(value)
    return np.float64(value) if kind is float else np.complex128(value) if kind is complex \
        else value


def memory_budget() -> int:
    """The memory budget, in bytes, read at each call (compiled code takes it as an argument:
    numba would freeze a global)."""
    return budget._budget


def item_bytes(value) -> int:
    """About how many bytes a tape holds for ``value`` (an array: its data and header)."""
    nbytes = getattr(value, "nbytes", None)
    return nbytes + 100 if nbytes is not None else 8


@overload(item_bytes)
def _item_bytes(value):  # (numba's version, by the kind of value)
    if isinstance(value, types.Optional):
        value = value.type
    if isinstance(value, types.Array):
        return lambda value: 8 if value is None else value.size * value.itemsize + 100
    return lambda value: 8


def tape_bytes(stack):
    """About how many bytes ``stack`` holds (estimated from its newest item, as
    ``check_stack`` does from its newest ones)."""
    if len(stack) == 0:
        return 0
    return len(stack) * item_bytes(stack[len(stack) - 1])


@overload(tape_bytes)
def _tape_bytes(stack):
    return tape_bytes


def check_tape(nbytes, budget):
    """Raise ``MemoryBudgetError`` if the tapes hold ``nbytes``, more than ``budget``."""
    if nbytes > budget:
        raise MemoryBudgetError(_FULL)


@overload(check_tape)
def _check_tape(nbytes, budget):
    return check_tape


def zeros_like(x):
    """Zeros shaped like the number or array ``x``, in its float type (float64 for an
    integer array)."""
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape, x.dtype if x.dtype.kind in "fc" else np.float64)
    return 0.0


@overload(zeros_like)
def _zeros_like(x):
    if isinstance(x, types.Optional) and isinstance(x.type, types.Array):
        array = x.type  # (a value restored to the None it held before a loop: no array)
        dtype = array.dtype if isinstance(array.dtype, (types.Float, types.Complex)) \
            else types.float64
        empty = (0,) * array.ndim

        def optional(x):
            if x is None:
                return np.zeros(empty, dtype)
            return np.zeros(x.shape, dtype)
        return optional
    if isinstance(x, types.Array):
        dtype = x.dtype if isinstance(x.dtype, (types.Float, types.Complex)) else types.float64
        return lambda x: np.zeros(x.shape, dtype)
    if isinstance(x, (types.Number, types.Boolean)):
        return lambda x: 0.0
    return None


def shape_of(x):
    """:func:`s2sad.runtime.shape_of` on the numba target: the value itself (a variable of
    numba's holds one type: an array's place cannot hold its shape)."""
    return x


@overload(shape_of)
def _shape_of(x):
    return lambda x: x


def _axis_split(shape, axis):
    """``(outer, n, inner)``: the sizes before the axis ``axis`` of ``shape``, along it,
    and after it (an array of that shape, C-ordered, reshaped to them)."""
    outer, inner = 1, 1
    for d in range(len(shape)):
        if d < axis:
            outer *= shape[d]
        elif d > axis:
            inner *= shape[d]
    return outer, shape[axis], inner


@overload(_axis_split)
def _axis_split_numba(shape, axis):
    return _axis_split


def _kept_shape(shape, axis, keep, kept):
    """The shape of a reduction of an array of ``shape`` over ``axis``: that axis left out,
    or kept as 1 (``keep``), as an array of ``kept`` sizes (for ``to_fixed_tuple``)."""
    sizes = np.empty(kept, np.int64)
    m = 0
    for d in range(len(shape)):
        if d != axis:
            sizes[m] = shape[d]
            m += 1
        elif keep:
            sizes[m] = 1
            m += 1
    return sizes


@overload(_kept_shape)
def _kept_shape_numba(shape, axis, keep, kept):
    return _kept_shape


def _normal_axis(axis, ndim):
    """``axis`` counted from the front, or NumPy's AxisError where ``ndim`` has no such
    axis (a ValueError and an IndexError too, as NumPy's)."""
    if axis < -ndim or axis >= ndim:
        raise np.exceptions.AxisError("axis is out of bounds for array")
    return axis + ndim if axis < 0 else axis


@overload(_normal_axis)
def _normal_axis_numba(axis, ndim):
    return _normal_axis


def _integral(axis) -> bool:
    return isinstance(axis, (types.Integer, types.IntegerLiteral))


def _sum_type(dtype):
    """The numba type NumPy sums and multiplies ``dtype`` in: floats and complex keep
    theirs, unsigned integers uint64, other integers and bools int64."""
    if isinstance(dtype, (types.Float, types.Complex)):
        return dtype
    if isinstance(dtype, types.Integer) and not dtype.signed:
        return types.uint64
    return types.int64


def _literal_bool(value):
    """The value of a ``keepdims`` argument numba typed (None where it is not a constant)."""
    if isinstance(value, bool):  # (left out: the default itself)
        return value
    if value is None or isinstance(value, types.NoneType):
        return False
    if isinstance(value, types.Omitted):
        return bool(value.value)
    if isinstance(value, (types.BooleanLiteral, types.IntegerLiteral)):
        return bool(value.literal_value)
    return None


def sum_along(x, axis=None, keepdims=False):
    """``np.sum(x, axis=axis, keepdims=keepdims)`` where numba's ``np.sum`` takes no
    ``keepdims``: the sum over one axis (an int), in the order NumPy adds along it
    (each result's terms first to last)."""
    return np.sum(x, axis=axis, keepdims=keepdims)


@overload(sum_along, prefer_literal=True)
def _sum_along(x, axis=None, keepdims=False):
    keep = _literal_bool(keepdims)
    if not isinstance(x, types.Array) or keep is None:
        return None
    ndim = x.ndim
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        if keep:
            def whole(x, axis=None, keepdims=False):
                return np.full(to_fixed_tuple(np.ones(ndim, np.int64), ndim), np.sum(x))
            return whole
        return lambda x, axis=None, keepdims=False: np.sum(x)
    if not _integral(axis):
        return None  # (a tuple of axes: not compiled, refused as numba types it)
    kept = ndim if keep else ndim - 1
    dtype = _sum_type(x.dtype)

    def along(x, axis=None, keepdims=False):
        ax = _normal_axis(axis, ndim)
        outer, n, inner = _axis_split(x.shape, ax)
        flat = np.ascontiguousarray(x).reshape((outer, n, inner))
        total = np.zeros((outer, inner), dtype)
        for i in range(outer):
            for j in range(n):
                for k in range(inner):
                    total[i, k] += flat[i, j, k]
        if kept == 0:
            return total[0, 0]
        return total.reshape(to_fixed_tuple(_kept_shape(x.shape, ax, keep, kept), kept))
    return along


def mean_along(x, axis=None, keepdims=False):
    """``np.mean(x, axis=axis, keepdims=keepdims)`` on the numba target: the sum over
    ``axis`` (one int, or every axis) divided by how many it adds."""
    return np.mean(x, axis=axis, keepdims=keepdims)


@overload(mean_along, prefer_literal=True)
def _mean_along(x, axis=None, keepdims=False):
    if not isinstance(x, types.Array) or not isinstance(x.dtype, types.Float):
        return None  # (integers: NumPy's mean of them is float64, not compiled here)
    keep = _literal_bool(keepdims)
    if keep is None:
        return None
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        if keep:
            return lambda x, axis=None, keepdims=False: sum_along(x, None, True) / x.size
        return lambda x, axis=None, keepdims=False: sum_along(x, None, False) / x.size
    if keep:
        return lambda x, axis=None, keepdims=False: \
            sum_along(x, axis, True) / x.shape[_normal_axis(axis, x.ndim)]
    return lambda x, axis=None, keepdims=False: \
        sum_along(x, axis, False) / x.shape[_normal_axis(axis, x.ndim)]


def sum_grad(g, like, axis=None, keepdims=False):
    """:func:`s2sad.runtime.sum_grad` on the numba target: ``g``, the sensitivity of a
    sum of ``like`` (whole, or along one axis), spread back to the shape of ``like``; a
    number spread in ``like``'s floating precision (as NumPy's ``np.ones_like(like) * g``)."""
    if axis is None:
        return np.full(np.shape(like), _weak(g, like)) if np.ndim(like) else g
    shape = list(np.shape(like))
    shape[axis] = 1
    return np.array(np.broadcast_to(np.reshape(_weak(g, like), shape), np.shape(like)))


@overload(sum_grad, prefer_literal=True)
def _sum_grad(g, like, axis=None, keepdims=False):
    if isinstance(like, types.NoneType):  # (numba's first typing of a value restored from
        return None  # a tape, None before a loop: left untyped until it is an optional)
    if isinstance(like, types.Optional):
        like = like.type
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        if not isinstance(g, (types.Float, types.Integer)):
            return None
        if isinstance(like, types.Array):
            dtype = np.float32 if like.dtype == types.float32 else np.float64  # (like's
            # precision, as NumPy's np.ones_like(like) * g)
            return lambda g, like, axis=None, keepdims=False: np.full(like.shape, g, dtype)
        return lambda g, like, axis=None, keepdims=False: g
    if not (_integral(axis) and isinstance(like, types.Array)) or \
            _literal_bool(keepdims) is None:
        return None  # (a tuple of axes: not compiled, refused as numba types it)
    if isinstance(g, (types.Float, types.Integer)):  # (a number: spread as it is, in
        dtype = np.float32 if like.dtype == types.float32 else np.float64  # like's precision)
        return lambda g, like, axis=None, keepdims=False: np.full(like.shape, g, dtype)
    if not isinstance(g, types.Array):
        return None

    def spread(g, like, axis=None, keepdims=False):
        ax = _normal_axis(axis, like.ndim)
        outer, n, inner = _axis_split(like.shape, ax)
        if g.size != outer * inner:
            raise ValueError(_BROADCAST)
        flat = np.ascontiguousarray(g).reshape((outer, inner))
        out = np.empty((outer, n, inner), g.dtype)
        for i in range(outer):
            for j in range(n):
                for k in range(inner):
                    out[i, j, k] = flat[i, k]
        return out.reshape(like.shape)
    return spread


def reduced_size(x, axis=None):
    """:func:`s2sad.runtime.reduced_size` on the numba target: how many elements each
    result of a reduction of ``x`` over ``axis`` (one int, or every axis) combines."""
    return int(np.prod(np.shape(x))) if axis is None else np.shape(x)[axis]


@overload(reduced_size)
def _reduced_size(x, axis=None):
    if not isinstance(x, types.Array):
        return None
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        return lambda x, axis=None: x.size
    if not _integral(axis):
        return None
    return lambda x, axis=None: x.shape[_normal_axis(axis, x.ndim)]


def sum_product(a, b, axis=None, keepdims=False):
    """:func:`s2sad.runtime.sum_product` on the numba target: ``np.sum(a * b, axis)``."""
    return np.sum(a * b, axis=axis, keepdims=keepdims)


@overload(sum_product, prefer_literal=True)
def _sum_product(a, b, axis=None, keepdims=False):
    keep = _literal_bool(keepdims)
    if keep is None:
        return None
    if keep:
        return lambda a, b, axis=None, keepdims=False: sum_along(a * b, axis, True)
    return lambda a, b, axis=None, keepdims=False: sum_along(a * b, axis, False)


_BROADCAST = ("a sum of a broadcast that numba's compiled gradient does not compute: use "
              "target='numpy' for this function")


def unbroadcast(g, like):
    """:func:`s2sad.runtime.unbroadcast` on the numba target: ``g`` summed down to the
    shape of ``like`` (its leading axes, and those where ``like`` has length 1)."""
    from .shapes import unbroadcast as numpy_unbroadcast
    return numpy_unbroadcast(g, like)


@overload(unbroadcast)
def _unbroadcast(g, like):
    if isinstance(like, types.Optional):
        like = like.type
    if isinstance(like, (types.Number, types.Boolean)):
        if isinstance(g, types.Array):
            return lambda g, like: np.sum(g)
        return lambda g, like: g
    if isinstance(like, types.Array) and isinstance(g, types.Array) and g.ndim >= like.ndim:
        extra = g.ndim - like.ndim

        def down(g, like):
            if g.shape == like.shape:  # (same rank: nothing was broadcast)
                return g
            for d in range(like.ndim):
                if like.shape[d] != 1 and like.shape[d] != g.shape[extra + d]:
                    raise ValueError(_BROADCAST)
            out = np.zeros(like.shape, g.dtype)
            flat = out.reshape(out.size)
            for index in np.ndindex(g.shape):
                k = 0
                for d in range(like.ndim):
                    n = like.shape[d]
                    k = k * n + (0 if n == 1 else index[extra + d])
                flat[k] += g[index]
            return out
        return down
    return None  # (a number spread to an array: not compiled)


def unbroadcast_product(a, b, like):
    """:func:`s2sad.runtime.unbroadcast_product` on the numba target: ``a * b`` summed down
    to the shape of ``like``."""
    return unbroadcast(np.multiply(a, b), like)


@overload(unbroadcast_product)
def _unbroadcast_product(a, b, like):
    return lambda a, b, like: unbroadcast(a * b, like)


def scaled_power(c, x, e):
    """:func:`s2sad.runtime.scaled_power` on the numba target, for numbers: ``c * x ** e``,
    0 where ``c`` is 0, and infinite (signed as NumPy's) where ``x`` is 0 and ``e`` below 0
    (numba raises ZeroDivisionError there, as Python's floats do).

    >>> scaled_power(0, 0.0, -1), scaled_power(3, 2.0, 2), scaled_power(1.0, -0.0, -3)
    (0.0, 12.0, -inf)
    """
    from .elementwise import scaled_power as numpy_scaled_power
    return numpy_scaled_power(c, x, e)


@overload(scaled_power)
def _scaled_power(c, x, e):
    if isinstance(c, types.Number) and isinstance(x, types.Array) and \
            isinstance(e, types.Number):  # (np.sum(x ** i): a number's factor, as NumPy's)
        def power_of_array(c, x, e):
            if c == 0:
                return c * x ** 0
            return c * x ** e
        return power_of_array
    if not all(isinstance(t, types.Number) for t in (c, x, e)):
        return None  # (arrays of exponents or factors: not compiled; numba's typing error)

    def power(c, x, e):
        if c == 0:
            return c * x ** 0
        if x == 0 and e < 0:  # (an odd whole exponent keeps the sign of a zero)
            odd = e == math.floor(e) and math.floor(e / 2.0) * 2.0 != e
            return c * (-math.inf if odd and math.copysign(1.0, x) < 0 else math.inf)
        return c * x ** e
    return power


# math's functions that raise ``ValueError: math domain error`` in Python where numba's
# return NaN: the numba target calls these instead, which raise as Python does
def checked_log(x):
    """``math.log(x)``, raising as Python does where ``x <= 0`` (numba's gives NaN)."""
    if x <= 0.0:
        raise ValueError("math domain error")
    return math.log(x)


def checked_log2(x):
    """``math.log2(x)``, raising as Python does where ``x <= 0``."""
    if x <= 0.0:
        raise ValueError("math domain error")
    return math.log2(x)


def checked_log10(x):
    """``math.log10(x)``, raising as Python does where ``x <= 0``."""
    if x <= 0.0:
        raise ValueError("math domain error")
    return math.log10(x)


def checked_log1p(x):
    """``math.log1p(x)``, raising as Python does where ``x <= -1``."""
    if x <= -1.0:
        raise ValueError("math domain error")
    return math.log1p(x)


def checked_sqrt(x):
    """``math.sqrt(x)``, raising as Python does where ``x < 0``."""
    if x < 0.0:
        raise ValueError("math domain error")
    return math.sqrt(x)


def checked_acos(x):
    """``math.acos(x)``, raising as Python does where ``|x| > 1``."""
    if x < -1.0 or x > 1.0:
        raise ValueError("math domain error")
    return math.acos(x)


def checked_asin(x):
    """``math.asin(x)``, raising as Python does where ``|x| > 1``."""
    if x < -1.0 or x > 1.0:
        raise ValueError("math domain error")
    return math.asin(x)


def checked_acosh(x):
    """``math.acosh(x)``, raising as Python does where ``x < 1``."""
    if x < 1.0:
        raise ValueError("math domain error")
    return math.acosh(x)


def checked_atanh(x):
    """``math.atanh(x)``, raising as Python does where ``|x| >= 1``."""
    if x <= -1.0 or x >= 1.0:
        raise ValueError("math domain error")
    return math.atanh(x)


def _itself(function):
    """The overload that compiles ``function`` itself, for numba (its arguments: numbers)."""
    def typed(x):
        return function if isinstance(x, (types.Float, types.Integer)) else None
    return typed


for _checked in (checked_log, checked_log2, checked_log10, checked_log1p, checked_sqrt,
                 checked_acos, checked_asin, checked_acosh, checked_atanh):
    overload(_checked)(_itself(_checked))


@intrinsic
def _unwrapped(typingctx, value):
    """An optional index as an integer (numba raises where it is None). Typed for None
    alone too, as numba types a loop's first turn, as an integer that unifies with the
    optional's: that version is never the one compiled."""
    if isinstance(value, types.NoneType):
        return types.intp(value), lambda context, builder, signature, args: \
            context.get_constant(types.intp, 0)
    if not isinstance(value, types.Optional):
        return None

    def codegen(context, builder, signature, args):
        return context.cast(builder, args[0], value, value.type)
    return value.type(value), codegen


def as_index(i):
    """An index restored from a tape, which numba types as optional (the first value a
    tape saves is None): its value, for numba to index with."""
    return i


@overload(as_index)
def _as_index(i):
    if isinstance(i, (types.Optional, types.NoneType)):
        return lambda i: _unwrapped(i)
    return lambda i: i


def float_tape(n):
    """The values a loop of ``n`` turns saves of a name that holds a float64: an array
    (``p_saved[i] = p`` then writes into it, where a list would grow by appends)."""
    return np.empty(max(n, 0))


@overload(float_tape)
def _float_tape(n):
    return float_tape


def put_float(tape, i, value):
    """``tape[i] = value``, for a ``float_tape``: numba compiles it for a float64 only (a
    value of another type, which would be rounded or cast, is not compiled: refused)."""
    tape[i] = value


@overload(put_float)
def _put_float(tape, i, value):
    if isinstance(value, types.Float) and value.bitwidth == 64:
        return put_float
    return None


def push_float(tape, n, value):
    """``tape[n] = value`` for a tape of floats saved in turn (``float_tape``, grown by
    ``grow_tape`` before the loop that saves), and the count after it. A float32 is kept
    exactly (widened); a number restored to None saves a zero, which the reverse sweep
    restores last and never reads (``tape_value``). A value of another type (an integer,
    a complex number) is not compiled: refused.

    >>> tape = float_tape(2)
    >>> push_float(tape, 0, 1.5), float(tape[0])
    (1, 1.5)
    """
    if n >= len(tape):
        raise IndexError("s2sad's tape of floats is full (a bug of s2sad's: please report it)")
    tape[n] = value
    return n + 1


@overload(push_float)
def _push_float(tape, n, value):
    number = value.type if isinstance(value, types.Optional) else value
    if not (isinstance(tape, types.Array) and isinstance(number, types.Float) and
            number.bitwidth <= tape.dtype.bitwidth):
        return None

    def push(tape, n, value):
        if n >= len(tape):
            raise IndexError("s2sad's tape of floats is full (a bug of s2sad's)")
        tape[n] = tape_value(value)
        return n + 1
    return push


def grow_tape(tape, needed):
    """``tape`` where it holds ``needed`` values, else a longer copy of it (twice as long,
    at least): the room a loop's turns need, made before the loop.

    >>> len(grow_tape(float_tape(0), 5)), len(grow_tape(float_tape(8), 5))
    (5, 8)
    """
    if needed <= len(tape):
        return tape
    bigger = np.empty(max(needed, 2 * len(tape)), tape.dtype)
    bigger[:len(tape)] = tape
    return bigger


@overload(grow_tape)
def _grow_tape(tape, needed):
    return grow_tape


def saved_item(value):
    """An array's item as a tape keeps it before an assignment overwrites it: a copy where
    it is an array (a row), the number itself otherwise (``np.array(f[i])`` in NumPy's
    generated code)."""
    return np.array(value)


@overload(saved_item)
def _saved_item(value):
    if isinstance(value, types.Array):
        return lambda value: value.copy()
    if isinstance(value, (types.Number, types.Boolean)):
        return lambda value: value
    return None


def head_length(n, k):
    """``len(range(n)[:k])``: how many turns of ``for i in range(n)`` a loop made before it
    left early (``k`` its trip counter), for its reverse sweep in a numba kernel."""
    size = max(0, n)
    return min(size, k) if k >= 0 else max(0, size + k)


@overload(head_length)
def _head_length(n, k):
    return head_length


def prod_grad(g, x, axis=None, keepdims=False):
    """:func:`s2sad.runtime.prod_grad` on the numba target, for a product of the whole
    array: ``g`` times the product of the *other* entries, each made as NumPy's helper
    makes it (the products before it, first to last, times those after it, last to first:
    exact where ``x`` has zeros). In ``x``'s floating precision (float64 for integers)."""
    from .reductions import prod_grad as numpy_prod_grad
    return numpy_prod_grad(g, x, axis, keepdims)


@overload(prod_grad, prefer_literal=True)
def _prod_grad(g, x, axis=None, keepdims=False):
    if isinstance(x, types.Array) and _integral(axis) and \
            _literal_bool(keepdims) is not None and \
            isinstance(g, (types.Float, types.Integer, types.Array)):
        return _prod_grad_along(g, x)
    if not isinstance(x, types.Array) or not isinstance(g, (types.Float, types.Integer)) or \
            not (axis is None or isinstance(axis, (types.NoneType, types.Omitted))) or \
            _literal_bool(keepdims) is not False:
        return None  # (a tuple of axes: refused before numba, at the user's line)
    dtype = np.float32 if x.dtype == types.float32 else np.float64

    def whole(g, x, axis=None, keepdims=False):
        flat = np.ascontiguousarray(x).reshape(x.size)
        n = flat.size
        before = np.empty(n, dtype)
        after = np.empty(n, dtype)
        product = dtype(1.0)
        for k in range(n):
            before[k] = product
            product = product * dtype(flat[k])
        product = dtype(1.0)
        for k in range(n - 1, -1, -1):
            after[k] = product
            product = product * dtype(flat[k])
        weight = dtype(g)
        out = np.empty(n, dtype)
        for k in range(n):
            out[k] = weight * (before[k] * after[k])
        return out.reshape(x.shape)
    return whole


def _prod_grad_along(g, x):
    """numba's ``prod_grad`` along one axis, as NumPy's helper computes it: for each line
    along the axis, the products before each entry (first to last) times those after it
    (last to first), times ``g`` (its line's sensitivity, ``g``'s type and ``x``'s
    floating precision promoted as NumPy promotes them)."""
    from numba.np.numpy_support import as_dtype
    dtype = np.float32 if x.dtype == types.float32 else np.float64
    out_dtype = np.result_type(as_dtype(g.dtype), dtype) if isinstance(g, types.Array) \
        else np.dtype(dtype)  # (a number: x's floating precision, as the whole array's)

    def along(g, x, axis=None, keepdims=False):
        ax = _normal_axis(axis, x.ndim)
        outer, n, inner = _axis_split(x.shape, ax)
        flat = np.ascontiguousarray(x).reshape((outer, n, inner))
        out = np.empty((outer, n, inner), out_dtype)
        before = np.empty(n, dtype)
        for i in range(outer):
            for k in range(inner):
                weight = _line_weight(g, i * inner + k)
                product = dtype(1.0)
                for j in range(n):
                    before[j] = product
                    product = product * dtype(flat[i, j, k])
                product = dtype(1.0)
                for j in range(n - 1, -1, -1):
                    out[i, j, k] = weight * (before[j] * product)
                    product = product * dtype(flat[i, j, k])
        return out.reshape(x.shape)
    return along


def _line_weight(g, m):
    """``g``'s ``m``-th entry, C order (``g`` itself where it is a number)."""
    return g if np.ndim(g) == 0 else np.ravel(g)[m]


@overload(_line_weight)
def _line_weight_numba(g, m):
    if isinstance(g, types.Array):
        return lambda g, m: g.flat[m] if g.ndim else g[()]
    return lambda g, m: g


def prod_along(x, axis=None, keepdims=False):
    """``np.prod(x, axis=axis, keepdims=keepdims)`` where numba's ``np.prod`` takes no
    axis: the product over one axis (an int), first entry to last along it."""
    return np.prod(x, axis=axis, keepdims=keepdims)


@overload(prod_along, prefer_literal=True)
def _prod_along(x, axis=None, keepdims=False):
    keep = _literal_bool(keepdims)
    if not isinstance(x, types.Array) or keep is None:
        return None
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        if keep:
            return None  # (refused before numba, at the user's line)
        return lambda x, axis=None, keepdims=False: np.prod(x)
    if not _integral(axis):
        return None
    ndim = x.ndim
    kept = ndim if keep else ndim - 1
    dtype = _sum_type(x.dtype)

    def along(x, axis=None, keepdims=False):
        ax = _normal_axis(axis, ndim)
        outer, n, inner = _axis_split(x.shape, ax)
        flat = np.ascontiguousarray(x).reshape((outer, n, inner))
        total = np.ones((outer, inner), dtype)
        for i in range(outer):
            for k in range(inner):
                product = flat[i, 0, k] if n else total[i, k]
                for j in range(1, n):
                    product = product * flat[i, j, k]
                total[i, k] = product
        if kept == 0:
            return total[0, 0]
        return total.reshape(to_fixed_tuple(_kept_shape(x.shape, ax, keep, kept), kept))
    return along


def cumsum_along(x, axis=None):
    """``np.cumsum(x, axis=axis)`` where numba's ``np.cumsum`` takes no axis: the running
    sums along one axis (an int), first entry to last."""
    return np.cumsum(x, axis=axis)


@overload(cumsum_along)
def _cumsum_along(x, axis=None):
    if not isinstance(x, types.Array):
        return None
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        return lambda x, axis=None: np.cumsum(x)
    if not _integral(axis) or x.ndim == 0:
        return None
    dtype = _sum_type(x.dtype)

    def along(x, axis=None):
        ax = _normal_axis(axis, x.ndim)
        outer, n, inner = _axis_split(x.shape, ax)
        flat = np.ascontiguousarray(x).reshape((outer, n, inner))
        out = np.empty((outer, n, inner), dtype)
        for i in range(outer):
            for k in range(inner):
                if n:
                    out[i, 0, k] = flat[i, 0, k]
                for j in range(1, n):
                    out[i, j, k] = out[i, j - 1, k] + flat[i, j, k]
        return out.reshape(x.shape)
    return along


def cumsum_grad(g, x, axis=None):
    """:func:`s2sad.runtime.cumsum_grad` on the numba target, for ``np.cumsum(x)`` of the
    whole array: the sums of ``g`` from the end (as NumPy's helper adds them), in ``x``'s
    shape."""
    from .reductions import cumsum_grad as numpy_cumsum_grad
    return numpy_cumsum_grad(g, x, axis)


@overload(cumsum_grad)
def _cumsum_grad(g, x, axis=None):
    if isinstance(g, types.Array) and isinstance(x, types.Array) and x.ndim >= 1 and \
            g.ndim == x.ndim and _integral(axis):
        def along(g, x, axis=None):  # (the sums of g along the axis, from its end)
            ax = _normal_axis(axis, g.ndim)
            outer, n, inner = _axis_split(g.shape, ax)
            flat = np.ascontiguousarray(g).reshape((outer, n, inner))
            out = np.empty_like(flat)
            for i in range(outer):
                for k in range(inner):
                    if n:
                        out[i, n - 1, k] = flat[i, n - 1, k]
                    for j in range(n - 2, -1, -1):
                        out[i, j, k] = out[i, j + 1, k] + flat[i, j, k]
            return out.reshape(g.shape)
        return along
    if not (isinstance(g, types.Array) and isinstance(x, types.Array) and x.ndim >= 1) or \
            not (axis is None or isinstance(axis, (types.NoneType, types.Omitted))):
        return None  # (a tuple of axes: refused before numba, at the user's line)

    def whole(g, x, axis=None):
        flat = np.ascontiguousarray(g).reshape(g.size)
        if flat.size != x.size:
            raise ValueError("cannot reshape the sensitivity of np.cumsum to its argument")
        out = np.empty_like(flat)
        n = flat.size
        if n:
            out[n - 1] = flat[n - 1]
        for k in range(n - 2, -1, -1):
            out[k] = out[k + 1] + flat[k]
        return out.reshape(x.shape)
    return whole


def _shape_tuple(value):
    """``np.shape(value)`` of a number or an array, for numba."""
    return np.shape(value)


@overload(_shape_tuple)
def _shape_tuple_numba(value):
    if isinstance(value, types.Array):
        return lambda value: value.shape
    if isinstance(value, (types.Number, types.Boolean)):
        return lambda value: ()
    return None


def broadcast_shape(a, b):
    """:func:`s2sad.runtime.broadcast_shape` on the numba target: an array of the shape of
    ``a + b`` (a broadcast view of one float64, nothing allocated), read for its shape by
    ``sum_grad`` and ``unbroadcast`` as a ``Shape`` is (NumPy's raises where they do not
    broadcast)."""
    return np.broadcast_to(np.zeros(()), np.broadcast_shapes(np.shape(a), np.shape(b)))


@overload(broadcast_shape)
def _broadcast_shape(a, b):
    return lambda a, b: np.broadcast_to(
        np.zeros(()), np.broadcast_shapes(_shape_tuple(a), _shape_tuple(b)))


def range_last(start, stop, step):
    """The last value of ``range(start, stop, step)`` (``start - step`` where it is empty):
    ``reversed(range(start, stop, step))`` is ``range(range_last(...), start - step, -step)``.

    >>> range_last(1, 9, 2), list(range(range_last(1, 9, 2), 1 - 2, -2))
    (7, [7, 5, 3, 1])
    >>> range_last(10, 0, -3), range_last(5, 5, 1)
    (1, 4)
    """
    if step == 0:
        raise ValueError("range() arg 3 must not be zero")
    if step > 0:
        count = (stop - start + step - 1) // step
    else:
        count = (start - stop - step - 1) // -step
    return start + (max(count, 0) - 1) * step


@overload(range_last)
def _range_last(start, stop, step):
    return range_last



def tape_value(value):
    """A number as a tape of the numba target keeps it: its value, where numba types it as
    optional (None before the loop's first turn, saved by that turn): ``stack.append(x)``
    then makes a list of numbers, not of optional numbers. The None becomes a zero, which
    the reverse sweep restores last and never reads (NumPy's code would read None)."""
    return value


@overload(tape_value)
def _tape_value(value):
    if isinstance(value, types.NoneType):
        return None  # (numba's first typing, before the value's own: left untyped)
    if isinstance(value, types.Optional) and \
            isinstance(value.type, (types.Float, types.Integer, types.Boolean)):
        from numba.np.numpy_support import as_dtype
        zero = as_dtype(value.type).type(0)

        def number(value):
            if value is None:
                return zero
            return _unwrapped(value)
        return number
    return lambda value: value  # (an array, optional or not, is kept as it is)


# -- products of small arrays as loops (numba's @ and np.dot call BLAS, whose fixed cost
# is a microsecond: 8x8 times a vector is 64 multiplications)

SMALL_PRODUCT = 256   # the products at or below which loops are faster than BLAS (measured)


def matmul_small(a, b):
    """``a @ b`` in a kernel: of 1-d and 2-d float64 arrays whose product takes at most
    ``SMALL_PRODUCT`` multiplications, loops that add each term in order (BLAS adds them
    in its own order: the values agree to rounding); of others, numba's ``@``.

    >>> matmul_small(np.eye(2), np.array([1.0, 2.0]))
    array([1., 2.])
    """
    return a @ b


def dot_small(a, b):
    """``np.dot(a, b)`` in a kernel: as :func:`matmul_small` for 1-d and 2-d float64 arrays
    (where ``np.dot`` is ``@``), numba's ``np.dot`` for others.

    >>> float(dot_small(np.array([1.0, 2.0]), np.array([3.0, 4.0])))
    11.0
    """
    return np.dot(a, b)


def _small(a, b) -> bool:
    """Are ``a`` and ``b`` (numba's types) 1-d or 2-d float64 arrays, which the loops
    of :func:`matmul` take?"""
    return all(isinstance(x, types.Array) and x.dtype == types.float64 and x.ndim in (1, 2)
               for x in (a, b))


_MISMATCH = "matmul: Input operand 1 has a mismatch in its core dimension 0"


def _product_loops(a, b):
    """The overload of ``a @ b`` as loops for numba's types ``a``, ``b`` (1-d or 2-d),
    calling numba's ``np.dot`` (``@`` on them) for a product of more than
    ``SMALL_PRODUCT`` multiplications."""
    if a.ndim == 2 and b.ndim == 1:
        def matrix_vector(a, b):
            m, n = a.shape
            if b.shape[0] != n:
                raise ValueError(_MISMATCH)
            if m * n > SMALL_PRODUCT:
                return np.dot(a, b)
            out = np.empty(m)
            for i in range(m):
                total = 0.0
                for j in range(n):
                    total += a[i, j] * b[j]
                out[i] = total
            return out
        return matrix_vector
    if a.ndim == 1 and b.ndim == 2:
        def vector_matrix(a, b):
            n, m = b.shape
            if a.shape[0] != n:
                raise ValueError(_MISMATCH)
            if m * n > SMALL_PRODUCT:
                return np.dot(a, b)
            out = np.empty(m)
            for j in range(m):
                total = 0.0
                for i in range(n):
                    total += a[i] * b[i, j]
                out[j] = total
            return out
        return vector_matrix
    if a.ndim == 2 and b.ndim == 2:
        def matrix_matrix(a, b):
            m, n = a.shape
            if b.shape[0] != n:
                raise ValueError(_MISMATCH)
            p = b.shape[1]
            if m * n * p > SMALL_PRODUCT:
                return np.dot(a, b)
            out = np.empty((m, p))
            for i in range(m):
                for k in range(p):
                    total = 0.0
                    for j in range(n):
                        total += a[i, j] * b[j, k]
                    out[i, k] = total
            return out
        return matrix_matrix

    def vector_vector(a, b):
        n = a.shape[0]
        if b.shape[0] != n:
            raise ValueError(_MISMATCH)
        if n > SMALL_PRODUCT:
            return np.dot(a, b)
        total = 0.0
        for i in range(n):
            total += a[i] * b[i]
        return total
    return vector_vector


@overload(matmul_small)
def _matmul(a, b):
    if not _small(a, b):
        return lambda a, b: a @ b
    return _product_loops(a, b)


@overload(dot_small)
def _dot(a, b):
    if not _small(a, b):
        return lambda a, b: np.dot(a, b)
    return _product_loops(a, b)


def outer_small(a, b):
    """``np.outer(a, b)`` in a kernel: of 1-d float64 arrays, two loops (numba's
    ``np.outer`` broadcasts a multiplication, whose setup costs more than 64 products);
    of others, numba's ``np.outer``. Each item is one product, as NumPy's.

    >>> outer_small(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    array([[3., 4.],
           [6., 8.]])
    """
    return np.outer(a, b)


@overload(outer_small)
def _outer_small(a, b):
    if not all(isinstance(x, types.Array) and x.dtype == types.float64 and x.ndim == 1
               for x in (a, b)):
        return lambda a, b: np.outer(a, b)

    def loops(a, b):
        out = np.empty((a.shape[0], b.shape[0]))
        for i in range(a.shape[0]):
            for j in range(b.shape[0]):
                out[i, j] = a[i] * b[j]
        return out
    return loops


# -- tapes of a range loop's turns, one row a turn (session 33): a loop `for t in range(n)`
# that saves an array each turn keeps the rows in one buffer made once, not n arrays in a list

def row_tape(n, like):
    """The tape of a 1-d array saved by each of a loop's ``n`` turns: a flat buffer of
    ``like``'s dtype (filled by :func:`put_row`) and the offsets of its rows (``n + 1``).
    Where every turn saves ``m`` items the buffer is one ``n * m`` block, made at the first
    turn; a row of another length grows it (each row keeps its own length).

    >>> rows, at = row_tape(2, np.zeros(3))
    >>> rows = put_row(rows, at, 0, np.ones(3)); rows = put_row(rows, at, 1, np.arange(2.0))
    >>> row_of(rows, at, 1), row_of(rows, at, 0)
    (array([0., 1.]), array([1., 1., 1.]))
    """
    return np.empty(0, np.asarray(like).dtype), np.zeros(max(n, 0) + 1, np.int64)


@overload(row_tape)
def _row_tape(n, like):
    if not (isinstance(like, types.Array) and like.ndim == 1):
        raise TypeError("s2sad's row tape holds 1-d arrays (a bug of s2sad's: please report it)")
    dtype = like.dtype
    return lambda n, like: (np.empty(0, dtype), np.zeros(max(n, 0) + 1, np.int64))


def put_row(rows, at, t, value):
    """``rows`` with turn ``t``'s ``value`` copied in after turn ``t - 1``'s row (turns
    save in order: 0, 1, ...), grown where it has no room (``_grown_rows``). A turn the
    tape was not made for raises IndexError.

    >>> rows, at = row_tape(1, np.zeros(2))
    >>> put_row(rows, at, 1, np.ones(2))
    Traceback (most recent call last):
    IndexError: s2sad's row tape is full (a bug of s2sad's: please report it)
    """
    rows = _grown_rows(rows, at, t, len(value))
    start = at[t]
    rows[start:start + len(value)] = value
    at[t + 1] = start + len(value)
    return rows


def _grown_rows(rows, at, t, length):
    """``rows``, or a copy of it grown, with room for turn ``t``'s row of ``length`` items
    after turn ``t - 1``'s: at the first turn, to what all turns need if each saves as many
    items (``len(at) - 1`` turns); later, to twice its size. The check of ``t`` that
    numba's arrays do not make: IndexError beyond the turns the tape was made for (or
    before the first). Python's :func:`put_row` and numba's call it alike."""
    if t < 0 or t + 1 >= len(at):
        raise IndexError("s2sad's row tape is full (a bug of s2sad's: please report it)")
    start = at[t]
    if start + length > len(rows):
        bigger = np.empty(max(start + length * (len(at) - 1 - t), 2 * len(rows)), rows.dtype)
        bigger[:start] = rows[:start]
        rows = bigger
    return rows


@overload(_grown_rows)
def _row_room(rows, at, t, length):
    return _grown_rows


@overload(put_row)
def _put_row(rows, at, t, value):
    if not (isinstance(value, types.Array) and value.ndim == 1 and value.dtype == rows.dtype):
        return None

    def put(rows, at, t, value):
        rows = _grown_rows(rows, at, t, len(value))
        start = at[t]
        for k in range(len(value)):
            rows[start + k] = value[k]
        at[t + 1] = start + len(value)
        return rows
    return put


def grid_tape(n, like):
    """The tape of a 1-d array saved by each of a loop's ``n`` turns where every value saved
    has one length (``s2sad.transforms.fixed_shapes.fixed_rows`` proves it): a 2-d array,
    row ``t`` turn ``t``'s value, as a person preallocates ``np.empty((n, len(h)))``.

    >>> rows = grid_tape(2, np.zeros(3))
    >>> rows = put_grid(rows, 0, np.ones(3)); rows = put_grid(rows, 1, np.arange(3.0))
    >>> rows[1], rows[0]
    (array([0., 1., 2.]), array([1., 1., 1.]))
    """
    like = np.asarray(like)
    return np.empty((max(n, 0), len(like)), like.dtype)


@overload(grid_tape)
def _grid_tape(n, like):
    if not (isinstance(like, types.Array) and like.ndim == 1):
        raise TypeError("s2sad's grid tape holds 1-d arrays (a bug of s2sad's: please report it)")
    dtype = like.dtype
    return lambda n, like: np.empty((max(n, 0), len(like)), dtype)


_GRID = "s2sad's grid tape got a row of another length (a bug of s2sad's: please report it)"


def put_grid(rows, t, value):
    """``rows`` with turn ``t``'s ``value`` copied into row ``t``: made anew at the first
    turn where the value there is longer or shorter than the value the tape was made
    like (a loop's statements before the save may bind another); a later turn's value of
    another length raises IndexError, never a row cut or padded.

    >>> rows = put_grid(grid_tape(2, np.zeros(1)), 0, np.ones(2)); rows.shape
    (2, 2)
    >>> put_grid(rows, 1, np.ones(3))
    Traceback (most recent call last):
    IndexError: s2sad's grid tape got a row of another length (a bug of s2sad's: please report it)
    """
    if len(value) != rows.shape[1]:
        if t != 0:
            raise IndexError(_GRID)
        rows = np.empty((rows.shape[0], len(value)), rows.dtype)
    rows[t] = value
    return rows


@overload(put_grid)
def _put_grid(rows, t, value):
    if not (isinstance(value, types.Array) and value.ndim == 1 and value.dtype == rows.dtype):
        return None

    def put(rows, t, value):
        m = len(value)
        if t < 0 or t >= rows.shape[0]:
            raise IndexError("s2sad's grid tape is full (a bug of s2sad's: please report it)")
        if m != rows.shape[1]:
            if t != 0:
                raise IndexError(_GRID)
            rows = np.empty((rows.shape[0], m), rows.dtype)
        for k in range(m):
            rows[t, k] = value[k]
        return rows
    return put


def row_of(rows, at, t):
    """Turn ``t``'s row of a :func:`row_tape` (a view of the buffer)."""
    return rows[at[t]:at[t + 1]]


@overload(row_of)
def _row_of(rows, at, t):
    def row(rows, at, t):
        if t < 0 or t + 1 >= len(at):
            raise IndexError("s2sad's row tape has no such turn (a bug of s2sad's)")
        return rows[at[t]:at[t + 1]]
    return row


def new_shape(saved, value) -> bool:
    """Does ``value`` (an array or None: what ``shape_of`` saves on the numba target, read
    back only for its shape) need a place of its own on a tape ``saved`` of such values,
    which holds one for each run of turns that saved the same shape? Yes where the tape is
    empty, or its last value is None and ``value`` is not (or the reverse), or their shapes
    differ.

    >>> new_shape([], None), new_shape([np.zeros(2)], np.ones(2)), new_shape([None], None)
    (True, False, False)
    >>> new_shape([np.zeros(2)], np.ones(3)), new_shape([None], np.ones(3))
    (True, True)
    """
    if len(saved) == 0:
        return True
    last = saved[-1]
    if last is None or value is None:
        return (last is None) != (value is None)
    return np.shape(last) != np.shape(value)


@overload(new_shape)
def _new_shape(saved, value):
    def same(saved, value):
        if len(saved) == 0:
            return True
        last = saved[len(saved) - 1]
        if last is None:
            return value is not None
        if value is None:
            return True
        return last.shape != value.shape
    return same


def shape_places(n):
    """Each of ``n`` turns' place among the shapes a loop saved (:func:`new_shape`)."""
    return np.zeros(max(n, 0), np.int64)


@overload(shape_places)
def _shape_places(n):
    return lambda n: np.zeros(max(n, 0), np.int64)


def put_place(places, t, place):
    """``places[t] = place``, checked (numba's arrays are not): turn ``t``'s place among
    the shapes a loop saved."""
    if t < 0 or t >= len(places):
        raise IndexError("s2sad's tape of places is full (a bug of s2sad's: please report it)")
    places[t] = place


@overload(put_place)
def _put_place(places, t, place):
    return put_place


def add_outer(total, a, b):
    """``total += np.outer(a, b)``, and ``total``: in a kernel, where ``total`` is a 2-d
    float64 array of the outer product's shape that neither ``a`` nor ``b`` overlaps,
    two loops that add each product in place (each item ``total[i, j] + a[i] * b[j]``, as
    NumPy rounds it), no product array made; else ``+=`` as NumPy's (a number: a new
    value). A product that does not broadcast to ``total``'s shape raises ValueError, as
    NumPy's ``+=`` (numba's would write it anyway).

    >>> total = np.ones((2, 2))
    >>> add_outer(total, np.array([1.0, 2.0]), np.array([3.0, 4.0])) is total, total
    (True, array([[4., 5.],
           [7., 9.]]))
    """
    total += np.outer(a, b)
    return total


def _apart(x, total) -> bool:
    """Does 1-d ``x`` lie outside the bytes of C-contiguous ``total``? (numba's version)"""
    if x.shape[0] == 0:
        return True
    first = x.ctypes.data
    last = first + (x.shape[0] - 1) * x.strides[0]
    low, high = min(first, last), max(first, last) + x.itemsize
    start = total.ctypes.data
    return high <= start or low >= start + total.size * total.itemsize


@overload(_apart)
def _apart_numba(x, total):
    return _apart


@overload(add_outer)
def _add_outer(total, a, b):
    if not (isinstance(total, types.Array) and total.ndim == 2 and
            total.dtype == types.float64 and all(
                isinstance(x, types.Array) and x.ndim == 1 and x.dtype == types.float64
                for x in (a, b))):
        if isinstance(total, types.Array):
            def general(total, a, b):
                total += np.outer(a, b)
                return total
            return general
        return lambda total, a, b: total + np.outer(a, b)

    def loops(total, a, b):
        m, n = a.shape[0], b.shape[0]
        if m != total.shape[0] and m != 1 or n != total.shape[1] and n != 1:
            raise ValueError("non-broadcastable output operand (s_W += np.outer(a, b))")
        if total.shape[0] != m or total.shape[1] != n or not total.flags.c_contiguous or \
                not (_apart(a, total) and _apart(b, total)):
            total += np.outer(a, b)
            return total
        for i in range(m):
            ai = a[i]
            for j in range(n):
                total[i, j] = total[i, j] + ai * b[j]
        return total
    return loops
