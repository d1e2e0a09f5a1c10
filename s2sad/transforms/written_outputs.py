"""A call that writes its result into an array it is given, written as an assignment into it.

``np.copyto(y, v)`` is ``y[...] = v``; ``np.exp(x, out=y)`` is ``y[...] = np.exp(x)``, the
value cast to ``y``'s dtype as NumPy casts into an output (``same_kind``: a float into an
integer array raises, where ``y[...] = v`` would cut it). The
in-place update machinery then follows the write as it follows any other: into a view of
another array, into an argument (refused), into an array another name shares. A ufunc
reads its inputs before it writes (NumPy copies what overlaps its output), so
``np.add(a, b, out=a)`` is ``a[...] = np.add(a, b)``, the sum of the old ``a``. A result
kept (``z = np.exp(x, out=y)``) is the output array itself: ``z = y``.

Only the plain forms are written so: an output that is a name of the function's (a
variable or an argument, which is then refused as any update of it is), or a basic slice of one
(``a[1:]``, ``a[:, 0]``: a view, so a write into it is a write into ``a``); no
``where=``, ``casting=`` or ``dtype=``. An output indexed by an array is a copy NumPy
writes and drops, so it is left as it was (refused later), as is anything else.

>>> import gast
>>> from s2sad.codegen import unparse
>>> tree = gast.parse("def f(x, y, a):\\n    np.copyto(y[1:], x)\\n"
...                   "    z = np.add(a, x, out=a)").body[0]
>>> print(unparse(OutputsAsAssignments(lambda f: {"np.copyto": np.copyto,
...     "np.add": np.add}.get(unparse(f).strip())).visit(tree)))
def f(x, y, a):
    y[1:] = np.asarray(x).astype(y[1:].dtype, casting='same_kind', copy=False)
    a[...] = np.asarray(np.add(a, x)).astype(a.dtype, casting='same_kind', copy=False)
    z = a
"""

from __future__ import annotations

import gast
import numpy as np

from .. import trees


def _output(node, local: set):
    """``node`` as the array a write goes into (a name of the function's, ``local``, or a
    view of one by basic slicing), else None (a module's array: refused as it was)."""
    if isinstance(node, gast.Name):
        return node if node.id in local else None
    if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and
            node.value.id in local):
        return None
    parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
    plain = all(isinstance(p, gast.Slice) and all(
        b is None or isinstance(b, gast.Constant) and type(b.value) is int
        for b in (p.lower, p.upper, p.step)) or isinstance(p, gast.Constant) and (
            type(p.value) is int or p.value is None or p.value is Ellipsis) for p in parts)
    sliced = any(isinstance(p, gast.Slice) or isinstance(p, gast.Constant) and
                 p.value is Ellipsis for p in parts)
    return node if plain and sliced else None  # (a[0] of a vector: a number, no array)


def _into(out, value, where, numpy_name: str):
    """``out[...] = value`` (``a[1:] = value`` for a view ``a[1:]``), ``value`` cast to
    ``out``'s dtype as NumPy casts an output: ``same_kind`` (a float into an integer
    array raises)."""
    dtype = gast.Attribute(trees.clone(out), "dtype", gast.Load())
    array = gast.Call(gast.Attribute(gast.Name(numpy_name, gast.Load(), None, None), "asarray",
                                     gast.Load()), [value], [])
    value = gast.Call(gast.Attribute(array, "astype", gast.Load()), [dtype], [
        gast.keyword("casting", gast.Constant("same_kind", None)),
        gast.keyword("copy", gast.Constant(False, None))])
    target = trees.clone(out)
    target.ctx = gast.Store()
    if isinstance(out, gast.Name):
        target = gast.Subscript(target, gast.Constant(Ellipsis, None), gast.Store())
    return trees.located(gast.Assign([target], value, None), where)


class OutputsAsAssignments(trees.Transformer):
    """``np.copyto(y, v)`` and a ufunc's ``out=y`` as assignments into ``y`` (see the
    module); ``callee(func)``: the object a call's function expression names, else None."""

    def __init__(self, callee, numpy_name: str = "np"):
        self.callee, self.numpy_name = callee, numpy_name
        self.changed = False

    def visit_FunctionDef(self, node):
        if getattr(self, "local", None) is not None:
            return node  # (a function defined inside: done where it is inlined)
        args = node.args
        self.local = trees.assigned_names(node) | {
            a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        return self.generic_visit(node)

    def visit_Expr(self, node):
        made = self._written(node.value, node)
        return made if made is not None else node

    def visit_Assign(self, node):
        if len(node.targets) != 1 or not isinstance(node.targets[0], gast.Name):
            return node
        made = self._written(node.value, node)
        if made is None:
            return node
        kept = trees.clone(made[0].targets[0])
        if isinstance(kept, gast.Subscript) and isinstance(kept.slice, gast.Constant) and \
                kept.slice.value is Ellipsis:
            kept = kept.value  # (y[...] = ...: the result is y itself)
        kept.ctx = gast.Load()
        return made + [trees.located(gast.Assign(node.targets, kept, None), node)]

    def _written(self, call, stmt):
        if not isinstance(call, gast.Call) or any(
                isinstance(a, gast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            return None
        func = self.callee(call.func)
        if func is np.copyto:
            given = dict(zip(("dst", "src"), call.args))
            given.update((k.arg, k.value) for k in call.keywords)
            if set(given) != {"dst", "src"} or _output(given["dst"], self.local) is None:
                return None  # (casting=, where=: left to the refusal)
            self.changed = True
            return [_into(given["dst"], given["src"], stmt, self.numpy_name)]
        if isinstance(func, np.ufunc) and len(call.args) == func.nin and \
                [k.arg for k in call.keywords] == ["out"]:
            out = call.keywords[0].value
            if isinstance(out, gast.Tuple) and len(out.elts) == 1:
                out = out.elts[0]  # (out=(y,): the tuple form of one output)
            if func.nout != 1 or _output(out, self.local) is None:
                return None
            self.changed = True
            value = gast.copy_location(gast.Call(call.func, call.args, []), call)
            return [_into(out, value, stmt, self.numpy_name)]
        return None
