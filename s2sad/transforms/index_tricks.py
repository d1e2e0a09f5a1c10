"""``np.r_[...]`` and ``np.c_[...]`` written as the joins NumPy makes of them.

NumPy's ``r_`` and ``c_`` are objects whose ``__getitem__`` joins the items it is given:
s2sad has no rule for an object's indexing, so :func:`joined` writes the join with
``np.concatenate`` and ``np.column_stack``, whose rules it has (reverse, forward and
higher orders then follow). It follows NumPy's ``AxisConcatenator``: ``r_`` makes each
item at least 1-d and joins along the first axis; ``c_`` makes a number a 1 x 1 array
and a 1-d item a column, then joins along the last axis; a slice ``a:b:s`` is
``np.arange(a, b, s)`` (``np.linspace(a, b, n)`` for a step ``nj`` written as an
imaginary number). A Python number among the items does not widen the result's dtype
(``np.r_[x32, 1.0]`` is float32): where an item may be one, the join is given the dtype
NumPy's would have (:func:`s2sad.runtime.joined_dtype`).

>>> import numpy as np
>>> from s2sad.codegen import unparse
>>> from s2sad.transforms.normalize import Normalize
>>> from s2sad.source import FunctionSource
>>> from s2sad.names import Namer
>>> def f(x, v):
...     return np.r_[x, 0.0:1.0:3j, v] + np.c_[x, x][:, 0]
>>> source = FunctionSource.of(f)
>>> normalize = Normalize(source, Namer.for_tree(source.tree))
>>> normalize.descriptors = {"x": ("nd", 1, "f")}  # (v: not known to be an array)
>>> print(unparse(normalize.run()))  # doctest: +NORMALIZE_WHITESPACE
def f(x, v):
    t_1 = np.linspace(0.0, 1.0, num=3)
    t_2 = np.atleast_1d(v)
    t_3 = joined_dtype(x, t_1, v)
    t_4 = [x, t_1, t_2]
    t_5 = np.concatenate(t_4, dtype=t_3)
    t_6 = [x, x]
    t_7 = np.column_stack(t_6)
    t_8 = t_7[:, 0]
    ret = t_5 + t_8
    return ret

Forms it does not write out (a directive string, ``np.r_['0,2', ...]``; a step held in a
variable, which may be real or imaginary) are refused at their line.
"""

from __future__ import annotations

import gast
import numpy as np

from .. import runtime
from ..backends import is_array


def joined(normalize, node, static):
    """The normalized join ``node`` (``np.r_[...]`` or ``np.c_[...]``) stands for, its
    items normalized by ``normalize``; None for another subscript. ``static(name,
    normalize)`` is the object a dotted global name stands for (KeyError if none)."""
    try:
        joiner = static(node.value, normalize)
    except KeyError:
        return None
    if joiner is not np.r_ and joiner is not np.c_:  # (NumPy's own two: module singletons)
        return None
    spelled = "np.r_" if joiner is np.r_ else "np.c_"
    items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
    numpy = normalize.root.numpy_name
    parts = []  # (the item as normalized, its array as joined, its rank if known)
    for item in items:
        if isinstance(item, gast.Constant) and isinstance(item.value, (str, bytes)) or \
                isinstance(item, gast.Starred):
            what = "a starred item" if isinstance(item, gast.Starred) else "a directive string"
            raise normalize.source.syntax_error(
                f"{spelled}[...] with {what}", item,
                "Join the arrays with np.concatenate, np.stack or np.column_stack.")
        if isinstance(item, gast.Slice):
            array = normalize.to_atom(_range(normalize, item, numpy, spelled))
            parts.append((array, array, 1))
        else:
            value = normalize.atom(item)
            parts.append((value, value, _rank(normalize, value)))
    if joiner is np.c_ and all(rank in (1, 2) for _, _, rank in parts):
        # 1-d and 2-d arrays only: np.column_stack is c_'s join, exactly
        return _call(numpy, "column_stack", [normalize.to_atom(_list(parts))])
    joined_parts = []
    for value, array, rank in parts:
        if joiner is np.r_ and (rank is None or rank == 0):
            array = normalize.to_atom(_call(numpy, "atleast_1d", [value]))
        elif joiner is np.c_ and (rank is None or rank < 2):  # a number: 1 x 1; 1-d: a column
            single = normalize.to_atom(gast.Tuple([value], gast.Load()))
            array = normalize.to_atom(_call(numpy, "column_stack", [single]))
        joined_parts.append((value, array, rank))
    keywords = []
    if joiner is np.c_:
        keywords.append(gast.keyword("axis", gast.Constant(-1, None)))
    if any(rank is None for _, _, rank in joined_parts):  # (an item may be a Python number)
        helper = gast.Name(normalize.fixed_name(runtime.joined_dtype, "joined_dtype"),
                           gast.Load(), None, None)
        dtype = normalize.to_atom(gast.Call(helper, [value if rank is None else array
                                                     for value, array, rank in parts], []))
        keywords.append(gast.keyword("dtype", dtype))
    listed = normalize.to_atom(_list(joined_parts))
    return _call(numpy, "concatenate", [listed], keywords)


def _range(normalize, item, numpy: str, spelled: str):
    """``np.arange(a, b, s)`` for ``a:b:s``, ``np.linspace(a, b, num=n)`` for ``a:b:nj``."""
    start = gast.Constant(0, None) if item.lower is None else normalize.atom(item.lower)
    stop = gast.Constant(None, None) if item.upper is None else normalize.atom(item.upper)
    if item.step is None:
        return _call(numpy, "arange", [start, stop, gast.Constant(1, None)])
    step = _literal(item.step)
    if isinstance(step, complex):
        return _call(numpy, "linspace", [start, stop],
                     [gast.keyword("num", gast.Constant(int(abs(step)), None))])
    if isinstance(step, (int, float)):
        return _call(numpy, "arange", [start, stop, normalize.atom(item.step)])
    raise normalize.source.syntax_error(
        f"a step of {spelled}[a:b:step] that is not written as a number", item,
        "Write the step as a number (0.5, or 5j for five points), or call np.arange or "
        "np.linspace.")


def _literal(node):
    """The number ``node`` writes (``5j``, ``-0.5``), else None."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        sign = -1 if isinstance(node.op, gast.USub) else 1
        node = node.operand
    if isinstance(node, gast.Constant) and type(node.value) in (int, float, complex):
        return sign * node.value
    return None


def _rank(normalize, value):
    """The rank of the array ``value`` holds where it is a parameter of the function
    given none other (its descriptor: ``("nd", 1, "f")``), else None."""
    if not isinstance(value, gast.Name):
        return None
    root = normalize.root
    desc = root.descriptors.get(value.id)
    if root.current.get(value.id) != value.id or not (
            is_array(desc)):
        return None
    return desc[1]


def _list(parts):
    return gast.List([array for _, array, _ in parts], gast.Load())


def _call(numpy: str, name: str, args, keywords=()):
    func = gast.Attribute(gast.Name(numpy, gast.Load(), None, None), name, gast.Load())
    return gast.Call(func, list(args), list(keywords))
