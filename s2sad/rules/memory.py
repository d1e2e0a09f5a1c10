"""What functions do to memory: views, the argument itself returned, changes in place.

These facts sit beside the derivative rules (:func:`s2sad.registry.deffacts`), keyed by
the function object; a method by its unbound function (``np.ndarray.fill``,
``list.sort``, ``dict.update``). A function with a rule and no facts here returns a new
value and changes nothing; a function with neither is not known, and the compiler
refuses to give it a mutable value that the gradient follows.

>>> import numpy as np
>>> from s2sad.registry import facts
>>> facts(np.ndarray.conj).returns_view_of  # a real array's conj() is the array itself
(0,)
>>> facts(list.sort).mutates, facts(len).mutates
((0,), ())
"""

from __future__ import annotations

import bisect
import builtins
import logging
import copy
import heapq
import operator
import random

import numpy as np

from ..registry import deffacts


def _found(owner, *names) -> list:
    """``owner``'s attributes of these names that it has (NumPy versions differ)."""
    return [getattr(owner, name) for name in names if hasattr(owner, name)]


# --- a view of an argument, or the argument itself -------------------------------------------

deffacts(*_found(np, "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis",
                 "squeeze", "expand_dims", "asarray", "asanyarray", "ascontiguousarray",
                 "asfortranarray", "require", "atleast_1d", "atleast_2d", "atleast_3d",
                 "broadcast_to", "diagonal", "real", "imag", "split", "array_split",
                 "hsplit", "vsplit", "dsplit", "unstack", "flip", "fliplr", "flipud", "rot90",
                 "matrix_transpose", "permute_dims", "float64", "float32", "float16",
                 "longdouble", "complex128", "complex64", "clongdouble", "diag",
                 "real_if_close"), returns_view_of=(0,))  # (diag of a matrix: its diagonal;
# real_if_close of a real array: the array itself)
deffacts(*_found(np.linalg, "matrix_transpose"), returns_view_of=(0,))
deffacts(*_found(np.lib.stride_tricks, "sliding_window_view", "as_strided"),
         returns_view_of=(0,))  # (s2sad's stand-in copies: an update of the base is refused)
deffacts(*_found(np, "broadcast_arrays", "einsum", "meshgrid", "ix_"), returns_view_of="*")
deffacts(*_found(np, "array", "astype", "nan_to_num"), uncopied_view_of=(0,))
deffacts(*_found(np, "nan_to_num"), uncopied_mutates=(0,),  # (its entries replaced in place)
         advice="Assign the result instead: `{n} = np.nan_to_num({n})`.")
# methods of arrays (x.conj() of a real array is x; x.astype(t, copy=False) may be x)
deffacts(*_found(np.ndarray, "reshape", "ravel", "transpose", "swapaxes", "squeeze", "view",
                 "diagonal", "conj", "conjugate", "T", "mT", "real", "imag", "flat", "base",
                 "__array__", "__getitem__"), returns_view_of=(0,))
deffacts(np.ndarray.astype, uncopied_view_of=(0,))
# containers: the result holds (or is) what the argument holds
deffacts(builtins.list, builtins.tuple, builtins.iter, builtins.reversed, builtins.sorted,
         builtins.next, builtins.min, builtins.max, builtins.dict, builtins.zip,
         builtins.enumerate, builtins.filter, builtins.map, copy.copy, operator.getitem,
         operator.itemgetter, list.copy, list.__getitem__, tuple.__getitem__, dict.copy,
         dict.get, dict.values, dict.items, dict.keys, dict.__getitem__,
         returns_view_of="*")
deffacts(builtins.map, builtins.filter, calls=(0,))  # (f(item): what f does to an item)

# --- no change, no view: a number, a new value, or nothing -----------------------------------

deffacts(builtins.len, builtins.print, builtins.isinstance, builtins.issubclass, builtins.type,
         builtins.range, builtins.id, builtins.repr, builtins.str, builtins.hash,
         builtins.callable, builtins.hasattr, builtins.bool, builtins.int, builtins.float,
         builtins.abs, builtins.round, builtins.format, builtins.any, builtins.all,
         copy.deepcopy, list.index, list.count, tuple.index, tuple.count, dict.__contains__,
         list.__contains__, np.ndarray.copy, np.ndarray.tolist, np.ndarray.flatten,
         np.copy, np.ndarray.item, np.ndarray.__contains__, np.ndarray.shape, np.ndarray.ndim,
         np.ndarray.size, np.ndarray.dtype, np.ndarray.itemsize, np.ndarray.nbytes,
         np.ndarray.strides, np.ndarray.__len__)
# logging formats its arguments (in the forward sweep, as the user's function does)
deffacts(*(getattr(owner, level) for owner in (logging, logging.Logger, logging.LoggerAdapter)
           for level in ("debug", "info", "warning", "error", "critical", "exception", "log")))

# --- changes in place ------------------------------------------------------------------------

_NEW_ARRAY = "Make a new array, or assign into it: `{n}[...] = ...`."
deffacts(np.ndarray.sort, list.sort,
         advice="Sort a copy: `{n} = np.sort({n})` (`{n} = sorted({n})` for a list).",
         mutates=(0,))
deffacts(np.ndarray.fill, advice="Make a new array: `{n} = np.full_like({n}, v)`.",
         mutates=(0,))
deffacts(np.ndarray.put, advice="Assign into it (`{n}[i] = v`) or make a new array.",
         mutates=(0,))
deffacts(*_found(np.ndarray, "itemset"), advice="Assign into it: `{n}[i] = v`.", mutates=(0,))
deffacts(np.ndarray.resize, advice="Make a new array: `{n} = np.resize({n}, shape)`.",
         mutates=(0,))
deffacts(np.ndarray.partition, advice="Use `{n} = np.partition({n}, k)`.", mutates=(0,))
deffacts(np.ndarray.setfield, np.ndarray.setflags, np.ndarray.byteswap,
         advice="Make a new array.", mutates=(0,))
deffacts(np.ndarray.__setitem__, np.ndarray.__delitem__, list.__setitem__, list.__delitem__,
         dict.__setitem__, dict.__delitem__,
         advice="Assign into it: `{n}[i] = v` (a slot of a list or dict you made).",
         mutates=(0,))
deffacts(*[getattr(np.ndarray, f"__i{op}__") for op in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
    "lshift", "rshift")], list.__iadd__, list.__imul__, dict.__ior__,
    advice="Write `{n} = {n} + ...` for a new value.", mutates=(0,), returns_view_of=(0,))
deffacts(*[getattr(operator, f"i{op}") for op in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
    "lshift", "rshift", "concat")],
    advice="Write `{n} = {n} + ...` (the operator's new value) instead.", mutates=(0,),
    returns_view_of=(0,))
deffacts(operator.setitem, operator.delitem, advice="Assign into it: `{n}[i] = v`.",
         mutates=(0,))
deffacts(list.extend, advice="Build a new list: `{n} = {n} + more`.", mutates=(0,))
deffacts(list.insert, list.remove, advice="Build a new list.", mutates=(0,))
deffacts(list.pop, advice="Build a new list (`{n} = {n}[:-1]`) or dict.", mutates=(0,),
         returns_view_of=(0,))
deffacts(list.reverse, advice="Use `{n} = {n}[::-1]`.", mutates=(0,))
deffacts(list.clear, advice="Start a new list: `{n} = []`.", mutates=(0,))
deffacts(list.append, advice="Build a new list: `{n} = {n} + [v]`.", mutates=(0,))
deffacts(dict.update, advice="Build a new dict: `{n} = {{**{n}, **more}}`.", mutates=(0,))
deffacts(dict.clear, advice="Start a new dict: `{n} = {{}}`.", mutates=(0,))
deffacts(dict.popitem, dict.setdefault, dict.pop, advice="Build a new dict.", mutates=(0,),
         returns_view_of=(0,))
deffacts(heapq.heappush, heapq.heapify, bisect.insort, bisect.insort_left,
         bisect.insort_right, random.shuffle,
         advice="Build a new list (`{n} = sorted({n} + [v])`).", mutates=(0,))
deffacts(heapq.heappop, heapq.heapreplace, heapq.heappushpop,
         advice="Build a new list (`{n} = sorted({n})`, then index it).", mutates=(0,),
         returns_view_of=(0,))
deffacts(np.copyto, np.put, np.place, np.putmask, np.fill_diagonal, np.put_along_axis,
         np.random.shuffle, advice=_NEW_ARRAY, mutates=(0,))
deffacts(np.random.Generator.shuffle, np.random.RandomState.shuffle, random.Random.shuffle,
         advice="Shuffle a copy: `{n} = rng.permutation({n})`.", mutates=(1,))
deffacts(np.ufunc.at, advice=_NEW_ARRAY, mutates=(1,))

# --- hidden state: NumPy's global random state, the random module's -------------------------
# (a local or seeded Generator, np.random.default_rng(0), is the function's own: not these)
deffacts(*[value for name in dir(np.random) for value in [getattr(np.random, name)]
           if getattr(value, "__self__", None) is np.random.mtrand._rand],
         *_found(np.random, "ranf", "sample", "get_bit_generator", "set_bit_generator"),
         *[value for name in dir(random) for value in [getattr(random, name)]
           if getattr(value, "__self__", None) is random._inst], hidden_state="draws")
deffacts(np.random.seed, random.seed, hidden_state="seeds")  # (seeded with a constant first,
# the function draws the same at each run)
deffacts(np.random.default_rng, np.random.RandomState, random.Random,
         hidden_state="unseeded")  # (with no seed: from fresh entropy, other at each run)
# a generator's own methods draw from its state (rng.normal(); where the generator is an
# argument, the makers that run the function more than once refuse it at the call); its
# seed method, given constants, makes the draws after it the same at each run
_STATE_ONLY = ("seed", "get_state", "set_state", "getstate", "setstate", "bit_generator",
               "VERSION")
deffacts(*[getattr(kind, name) for kind in (np.random.Generator, np.random.RandomState,
                                            random.Random)
           for name in dir(kind) if not name.startswith("_") and name not in _STATE_ONLY
           and callable(getattr(kind, name))], hidden_state="draws")
deffacts(np.random.Generator.permuted, mutates=("out",))  # (its output array, by keyword)
deffacts(np.random.RandomState.seed, random.Random.seed, hidden_state="seeds")
# written in C: their signatures, where `out` is found by position, are not readable on every
# NumPy (2.2's), so their output array is declared
deffacts(np.dot, np.concatenate, mutates=(2, "out"))
