"""Derivative rules for NumPy's shape manipulation, joining, splitting and selection.

Functions taking a sequence of arrays (``concatenate``, ``stack``, ``hstack``...)
return the sensitivity of that sequence as a list; the compiler hands its items
to the list display they came from (``np.stack([a, b])``). Functions returning a
list of arrays (``split``...) are ``shape="sequence"`` and receive a list ``g``
(``0.0`` for the pieces that got no sensitivity).

>>> import numpy as np
>>> from s2sad import registry
>>> rule = registry.lookup(np.concatenate)
>>> a, b = np.zeros(2), np.zeros((3,))
>>> rule.adjoint(np.arange(5.0), None, [a, b])
[array([0., 1.]), array([2., 3., 4.])]
>>> registry.lookup(np.tile).adjoint(np.ones((2, 4)), None, np.zeros(2), (2, 2))
array([4., 4.])
"""

import numpy as np

from ..registry import defdtype, deffacts, defresult, defvjp, nondifferentiable, refuse_values
from ..runtime import (array_grad, cast_like, choose_grad, column_stack_grad, concatenate_grad,
                       diff_grad, dstack_grad, hstack_grad, joined_dtype, negated_shift, pad_grad,
                       pad_values_grad,
                       repeat_grad, sort_grad, split_grad, stack_grad, take_along_axis_grad,
                       take_grad, tile_grad, transpose_grad, unbroadcast, vstack_grad)

# --- same values, another shape -------------------------------------------------


@defvjp(np.transpose, shape="other")
def transpose(g, ans, x, axes=None):
    return transpose_grad(g, axes)


if hasattr(np, "permute_dims"):  # NumPy >= 2.0
    defvjp(np.permute_dims, shape="other")(transpose)


@defvjp(np.reshape, shape="other")
def reshape(g, ans, a, shape=None, order="C", newshape=None, copy=None):
    return np.reshape(g, np.shape(a), order=order)


@defvjp(np.ravel, shape="other")
def ravel(g, ans, a, order="C"):
    return np.reshape(g, np.shape(a), order=order)


@defvjp(np.squeeze, shape="other")
def squeeze(g, ans, a, axis=None):
    return np.reshape(g, np.shape(a))


@defvjp(np.expand_dims, shape="other")
def expand_dims(g, ans, a, axis):
    return np.reshape(g, np.shape(a))


@defvjp(np.atleast_1d, np.atleast_2d, np.atleast_3d, shape="other")
def atleast_nd(g, ans, x):
    return np.reshape(g, np.shape(x))


@defvjp(np.swapaxes, shape="other")
def swapaxes(g, ans, a, axis1, axis2):
    return np.swapaxes(g, axis1, axis2)


if hasattr(np, "matrix_transpose"):  # NumPy >= 2.0
    @defvjp(np.matrix_transpose, np.linalg.matrix_transpose, shape="other")
    def matrix_transpose(g, ans, x):
        return np.swapaxes(g, -1, -2)


@defvjp(np.moveaxis, shape="other")
def moveaxis(g, ans, a, source, destination):
    return np.moveaxis(g, destination, source)


@defvjp(np.broadcast_to, shape="other")
def broadcast_to(g, ans, array, shape, subok=False):
    return unbroadcast(g, array)


@defvjp(np.copy, shape="elementwise")
def copy(g, ans, a, order="K", subok=False):
    return g


if hasattr(np, "astype"):  # NumPy >= 2.1
    @defvjp(np.astype, shape="elementwise")
    def astype(g, ans, x, dtype, copy=True, device=None):
        return cast_like(g, x)

    defdtype(np.astype, position=1)
    deffacts(np.astype, raises="values")  # (a dtype it cannot cast to)


# x.astype(dtype, "C"), x.astype(dtype, casting="same_kind"): the method, unbound
@defvjp(np.ndarray.astype, shape="elementwise")
def ndarray_astype(g, ans, x, dtype, order="K", casting="unsafe", subok=True, copy=True):
    return cast_like(g, x)


defdtype(np.ndarray.astype, position=1)
deffacts(np.ndarray.astype, raises="values")  # (a dtype it cannot cast to)


@defvjp(np.asarray, np.ascontiguousarray, np.asfortranarray, np.array, shape="other")
def asarray(g, ans, a, dtype=None, order=None, copy=None, subok=False, ndmin=0, like=None):
    return array_grad(g, a)


defdtype(np.asarray, np.ascontiguousarray, np.asfortranarray, np.array, position=1)


@defvjp(np.flip, shape="other")
def flip(g, ans, m, axis=None):
    return np.flip(g, axis)


@defvjp(np.fliplr, shape="other")
def fliplr(g, ans, m):
    return np.fliplr(g)


@defvjp(np.flipud, shape="other")
def flipud(g, ans, m):
    return np.flipud(g)


@defvjp(np.rot90, shape="other")
def rot90(g, ans, m, k=1, axes=(0, 1)):
    return np.rot90(g, -k, axes)


@defvjp(np.roll, shape="other")
def roll(g, ans, a, shift, axis=None):
    # rolled back by -shift, for an int, a tuple or an array of shifts (ints stay ints:
    # -np.asarray(shift) is a Dask array on the Dask target, which da.roll does not take;
    # np.negative of a tuple would do on NumPy only: CuPy's ufuncs take no tuple)
    return np.roll(g, negated_shift(shift), axis)


@defvjp(np.triu, shape="other")
def triu(g, ans, m, k=0):
    return np.triu(g, k)


@defvjp(np.tril, shape="other")
def tril(g, ans, m, k=0):
    return np.tril(g, k)


# --- more or fewer values ---------------------------------------------------------


@defvjp(np.tile, shape="other")
def tile(g, ans, A, reps):
    return tile_grad(g, A, reps)


@defvjp(np.repeat, shape="other")
def repeat(g, ans, a, repeats, axis=None):
    return repeat_grad(g, a, repeats, axis)


@defvjp(np.pad, shape="other")
def pad(g, ans, array, pad_width, mode="constant", constant_values=0, reflect_type="even"):
    return (pad_grad(g, array, pad_width, mode, reflect_type), None, None,
            pad_values_grad(g, array, pad_width, constant_values))


refuse_values(np.pad, "mode", ("constant", "empty", "edge", "wrap", "reflect", "symmetric"),
              "s2sad differentiates the modes that copy entries or add constants; for the "
              "others write the padding out with np.concatenate.")
refuse_values(np.pad, "reflect_type", ("even",),
              "Write the padding out with np.concatenate (an odd reflection is 2 * edge - "
              "the even one).")


@defvjp(np.diff, shape="other")
def diff(g, ans, a, n=1, axis=-1):
    return diff_grad(g, a, n, axis)


# --- joining and splitting ---------------------------------------------------------


@defvjp(np.concatenate, shape="other")
def concatenate(g, ans, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    return concatenate_grad(g, arrays, axis)


defdtype(np.concatenate, position=None)


@defvjp(np.stack, shape="other")
def stack(g, ans, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    return stack_grad(g, arrays, axis)


defdtype(np.stack, position=None)


@defvjp(np.hstack, shape="other")
def hstack(g, ans, tup, dtype=None, casting="same_kind"):
    return hstack_grad(g, tup)


defdtype(np.hstack, position=None)


@defvjp(np.vstack, shape="other")
def vstack(g, ans, tup, dtype=None, casting="same_kind"):
    return vstack_grad(g, tup)


defdtype(np.vstack, position=None)


@defvjp(np.dstack, shape="other")
def dstack(g, ans, tup):
    return dstack_grad(g, tup)


@defvjp(np.column_stack, shape="other")
def column_stack(g, ans, tup):
    return column_stack_grad(g, tup)


# the dtype of np.r_[...] and np.c_[...], written as joins (transforms/index_tricks.py)
nondifferentiable(joined_dtype)
defresult(joined_dtype, follows="*")  # (the dtype NumPy joins its items' to: np.r_'s)


# (the indices and the array: pieces cut at indices out of order overlap)
@defvjp(np.split, np.array_split, shape="sequence")
def split(g, ans, ary, indices_or_sections, axis=0):
    return split_grad(g, ans, axis, indices_or_sections, ary)


@defvjp(np.hsplit, shape="sequence")
def hsplit(g, ans, ary, indices_or_sections):
    return split_grad(g, ans, 1 if np.ndim(ary) > 1 else 0, indices_or_sections, ary)


@defvjp(np.vsplit, shape="sequence")
def vsplit(g, ans, ary, indices_or_sections):
    return split_grad(g, ans, 0, indices_or_sections, ary)


@defvjp(np.dsplit, shape="sequence")
def dsplit(g, ans, ary, indices_or_sections):
    return split_grad(g, ans, 2, indices_or_sections, ary)


# --- selection ------------------------------------------------------------------------


@defvjp(np.take, shape="other")
def take(g, ans, a, indices, axis=None, out=None, mode="raise"):
    return take_grad(g, a, indices, axis, mode)


@defvjp(np.take_along_axis, shape="other")
def take_along_axis(g, ans, arr, indices, axis=-1):
    return take_along_axis_grad(g, arr, indices, axis)


@defvjp(np.sort, shape="other")
def sort(g, ans, a, axis=-1, kind=None, order=None, stable=None):
    return sort_grad(g, a, axis)


@defvjp(np.choose, shape="other")
def choose(g, ans, a, choices, out=None, mode="raise"):
    return None, choose_grad(g, a, choices, mode)



# NumPy's float types called as functions: np.float32(x) casts (an array stays an array)
@defvjp(np.float64, np.float32, shape="elementwise")
def float_type(g, ans, x=0.0):
    return cast_like(g, x)


# NumPy's integer and bool types called as functions: np.int32(x) truncates (no derivative)
nondifferentiable(np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                  np.uint64, np.bool_, shape="elementwise")


# the dtype of their result is their argument's (promoted, for several)
defresult(np.asarray, np.ascontiguousarray, np.asfortranarray, np.copy, np.transpose, np.reshape,
          np.ravel, np.flip, np.tile, np.sort, follows=[("a", 0)])
defresult(np.array, follows=[("object", 0)])
defresult(np.concatenate, np.stack, follows=[("arrays", 0)])
defresult(np.hstack, np.vstack, np.dstack, follows=[("tup", 0)])
defresult(np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
          np.uint32, np.uint64, kind="i")
defresult(np.bool_, kind="b")
defresult(np.float64, np.float32, kind="f")
