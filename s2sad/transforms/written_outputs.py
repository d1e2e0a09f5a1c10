"""A call that writes its result into an array it is given, written as an assignment into it.

``np.copyto(y, v)`` is ``y[...] = v``; ``np.exp(x, out=y)`` is ``y[...] = np.exp(x)``, the
value cast to ``y``'s dtype as NumPy casts into an output (``same_kind``: a float into an
integer array raises, where ``y[...] = v`` would cut it). The
in-place update machinery then follows the write as it follows any other: into a view of
another array, into an argument (refused), into an array another name shares. A ufunc
reads its inputs before it writes (NumPy copies what overlaps its output), so
``np.add(a, b, out=a)`` is ``a[...] = np.add(a, b)``, the sum of the old ``a``. A result
kept (``z = np.exp(x, out=y)``) is the output array itself: ``z = y``.

A ufunc's ``where=m`` writes only where ``m`` is true, and computes only there:
``np.sqrt(x, out=y, where=x > 0)`` is ``y[m] = np.sqrt(x[m])``, ``x`` and ``m`` broadcast to
``y``'s shape (no warning, no derivative, where ``m`` is false).

An output array made on the line (``np.log(p, out=np.zeros_like(p), where=p > 0)``, the
safe log of an entropy) is made first, into a name of its own, where it is NumPy's
new array (zeros, ones, empty, full...: the registry's facts say so) of names and
constants, which reads nothing the ufunc's inputs change.

Only the plain forms are written so: an output that is a name of the function's (a
variable or an argument, which is then refused as any update of it is), or a basic slice of one
(``a[1:]``, ``a[:, 0]``: a view, so a write into it is a write into ``a``; with ``where=``,
a name only); no ``casting=`` or ``dtype=``. An output indexed by an array is a copy NumPy
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
>>> tree = gast.parse("def f(x, y):\\n    np.sqrt(x * 2.0, out=y, where=x > 0)").body[0]
>>> print(unparse(OutputsAsAssignments(lambda f: np.sqrt).visit(tree)))
def f(x, y):
    _ufunc_input0 = x * 2.0
    _ufunc_where0 = np.broadcast_to(np.asarray(x > 0).astype('bool', casting='safe'), y.shape)
    y[_ufunc_where0] = np.asarray(np.sqrt(np.broadcast_to(_ufunc_input0, y.shape)[_ufunc_where0])).astype(y.dtype, casting='same_kind', copy=False)
"""

from __future__ import annotations

import gast
import numpy as np

from .. import registry, trees


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


def _into(out, value, where, numpy_name: str, array=None):
    """``out[...] = value`` (``a[1:] = value`` for a view ``a[1:]``), ``value`` cast to
    ``out``'s dtype as NumPy casts an output: ``same_kind`` (a float into an integer
    array raises)."""
    dtype = gast.Attribute(trees.clone(array or out), "dtype", gast.Load())
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
        return made[0] if made is not None else node

    def visit_Assign(self, node):
        if len(node.targets) != 1 or not isinstance(node.targets[0], gast.Name):
            return node
        made = self._written(node.value, node)
        if made is None:
            return node
        made, kept = made
        kept = trees.clone(kept)  # (a ufunc's result is the output array itself)
        if not isinstance(kept, gast.Constant):
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
            return [_into(given["dst"], given["src"], stmt, self.numpy_name)], \
                gast.Constant(None, None)  # (np.copyto returns None)
        given = {k.arg: k.value for k in call.keywords}
        if isinstance(func, np.ufunc) and len(call.args) == func.nin and \
                len(given) == len(call.keywords) and set(given) in ({"out"}, {"out", "where"}):
            out = given["out"]
            if isinstance(out, gast.Tuple) and len(out.elts) == 1:
                out = out.elts[0]  # (out=(y,): the tuple form of one output)
            made = []
            if func.nout == 1 and self._new_array(out):  # (out=np.zeros_like(p): a name
                name = self._fresh("_ufunc_out")          # of its own, made first)
                made = [trees.located(gast.Assign([gast.Name(name, gast.Store(), None, None)],
                                                  out, None), stmt)]
                out = gast.Name(name, gast.Load(), None, None)
                self.local = self.local | {name}
            if func.nout != 1 or _output(out, self.local) is None or \
                    "where" in given and not isinstance(out, gast.Name):
                return None
            self.changed = True
            if "where" in given:
                return made + self._where(call, out, given["where"], stmt), out
            value = gast.copy_location(gast.Call(call.func, call.args, []), call)
            return made + [_into(out, value, stmt, self.numpy_name)], out
        return None

    def _new_array(self, node) -> bool:
        """Is ``node`` a new array made from names and constants only (``np.zeros_like(p)``,
        ``np.full(n, -1.0)``: a NumPy function with a rule, whose facts say it changes
        nothing and returns no view of an argument)? Made before the ufunc's inputs are
        read, it is the same array: its arguments are read, nothing is changed."""
        func = self.callee(node.func) if isinstance(node, gast.Call) else None
        if func is None or getattr(np, getattr(func, "__name__", ""), None) is not func or \
                registry.lookup(func) is None:
            return False
        found = registry.facts(func)
        if found.mutates or found.returns_view_of or found.uncopied_view_of:
            return False
        parts = node.args + [k.value for k in node.keywords]
        return all(k.arg is not None for k in node.keywords) and all(
            isinstance(n, (gast.Name, gast.Constant, gast.Attribute, gast.Tuple, gast.Load,
                           gast.UnaryOp, gast.USub))
            for part in parts for n in trees.walk(part))

    def _fresh(self, stem: str) -> str:
        taken = self.local | getattr(self, "made", set())
        name = next(f"{stem}{k}" for k in range(len(taken) + 1) if f"{stem}{k}" not in taken)
        self.made = getattr(self, "made", set()) | {name}
        return name

    def _where(self, call, out, where, stmt) -> list:
        """``np.f(a, b, out=y, where=m)`` as ``y[m] = np.f(a[m], b[m])`` (each broadcast
        to ``y``'s shape): ``f`` evaluated only where ``m`` is true, as NumPy does (no
        warning, no derivative, where it is false); ``y`` kept elsewhere. The inputs, then
        ``m``, are evaluated first, in Python's order; ``m`` must be booleans (NumPy casts
        it to bool safely: an integer mask raises)."""
        np_name = gast.Name(self.numpy_name, gast.Load(), None, None)

        def numpy(attr, *args, **keywords):
            return gast.Call(gast.Attribute(trees.clone(np_name), attr, gast.Load()),
                             list(args), [gast.keyword(k, v) for k, v in keywords.items()])

        def load(name):
            return gast.Name(name, gast.Load(), None, None)

        def shape():
            return gast.Attribute(trees.clone(out), "shape", gast.Load())

        made, inputs = [], []
        for arg in call.args:
            if isinstance(arg, gast.Constant):
                inputs.append(arg)
                continue
            name = self._fresh("_ufunc_input")
            made.append(gast.Assign([gast.Name(name, gast.Store(), None, None)], arg, None))
            inputs.append(load(name))
        mask = self._fresh("_ufunc_where")
        boolean = gast.Call(gast.Attribute(numpy("asarray", where), "astype", gast.Load()),
                            [gast.Constant("bool", None)],
                            [gast.keyword("casting", gast.Constant("safe", None))])
        made.append(gast.Assign([gast.Name(mask, gast.Store(), None, None)],
                                numpy("broadcast_to", boolean, shape()), None))
        picked = [gast.Subscript(numpy("broadcast_to", a, shape()), load(mask), gast.Load())
                  for a in inputs]
        value = gast.copy_location(gast.Call(call.func, picked, []), call)
        into = _into(gast.Subscript(trees.clone(out), load(mask), gast.Load()), value, stmt,
                     self.numpy_name, out)
        into.targets[0].value.ctx = gast.Load()
        return [trees.located(s, stmt) for s in made] + [into]
