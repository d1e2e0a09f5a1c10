"""What differentiating a derivative needs: generated code as input, and ``has_aux``.

A gradient s2sad generated is ordinary Python, registered in ``linecache``, so
``s2sad.grad`` can read it back and differentiate it again. Two of its statements
change a value without assigning it, which the compiler only knows as
assignments; :class:`PrepareGenerated` rewrites them first:

* ``ys.pop()`` (a list put back as it was) becomes ``popped = ys.pop()``;
* ``np.add.at(s, index, g)`` becomes ``s = add_at(s, index, g)`` (a new array).

It also tells the compiler that the helpers the code imports from
``s2sad.runtime*`` are helpers (so rules inlined next to them use the same names).

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.names import Namer
>>> tree = gast.parse("def g(s, i, v, ys):\\n    np.add.at(s, i, v)\\n    ys.pop()\\n"
...                   "    return s").body[0]
>>> class FakeImports:
...     helpers, lines = {}, {}
...     def helper(self, function):
...         return function.__name__
>>> import numpy as np
>>> from s2sad.source import FunctionSource
>>> src = FunctionSource(None, tree, "<s2sad demo>", [], {"np": np})
>>> print(unparse(PrepareGenerated(Namer.for_tree(tree), FakeImports(), src).visit(tree)))
def g(s, i, v, ys):
    s = add_at(s, i, v)
    popped = ys.pop()
    return s
"""

from __future__ import annotations

import gast
import numpy as np

from .. import trees
from ..backends import BY_MODULE
from ..errors import DifferentiationError
from ..runtime import public_module
from .readable import positional_arguments


def _reversed_range(args):
    """The arguments of the range that walks ``range(*args)`` backwards, for steps of
    1 and -1 (None for others)."""
    def const(n):
        return gast.Constant(n, None)

    def plus(a, n):
        if isinstance(a, gast.Constant) and isinstance(a.value, int):
            return const(a.value + n)
        return gast.BinOp(a, gast.Add() if n > 0 else gast.Sub(), const(abs(n)))
    if len(args) == 1:
        return [plus(args[0], -1), const(-1), const(-1)]
    step = args[2] if len(args) == 3 else const(1)
    if len(args) not in (2, 3) or not isinstance(step, gast.Constant) or step.value not in (1, -1):
        return None
    start, stop = args[0], args[1]
    if step.value == 1:
        return [plus(stop, -1), plus(start, -1), const(-1)]
    return [plus(stop, 1), plus(start, 1)]


def is_generated(source) -> bool:
    """Was this function written by s2sad (a gradient, a tangent...)?"""
    return str(source.filename).startswith("<s2sad ")


class PrepareGenerated(trees.Transformer):
    def __init__(self, namer, imports, source):
        self.namer = namer
        self.imports = imports
        self.source = source
        for name, value in list(source.globals.items()):
            module = getattr(value, "__module__", "") or ""
            if callable(value) and module.startswith("s2sad.runtime") and \
                    getattr(value, "__name__", None) == name:
                imports.helpers.setdefault(name, name)
                imports.lines.setdefault(name, f"from {public_module(module)} import {name}")

    def visit_Call(self, node):
        # a helper's arguments back in their positions, as the passes read them
        self.generic_visit(node)
        if isinstance(node.func, gast.Name):
            value = self.source.globals.get(node.func.id)
            if (getattr(value, "__module__", "") or "").startswith("s2sad.runtime"):
                positional_arguments(node, value)
        return node

    def visit_FunctionDef(self, node):
        # lists and arrays updated in place (``s_y[i] += g``): reading an item of one into a
        # variable would look like sharing memory with it, so such reads are made copies
        self.mutated = set()
        for n in trees.walk(node):
            targets = n.targets if isinstance(n, gast.Assign) else \
                [n.target] if isinstance(n, gast.AugAssign) else []
            for target in targets:
                if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                    self.mutated.add(target.value.id)
        self.generic_visit(node)
        return node

    def visit_For(self, node):
        """``for i in reversed(range(n))`` (the reverse sweep's loops) becomes
        ``for i in range(n - 1, -1, -1)``, a loop over a range again."""
        node = self.generic_visit(node)
        it = node.iter
        if isinstance(it, gast.Call) and self._is_builtin(it.func, reversed) and \
                len(it.args) == 1 and isinstance(it.args[0], gast.Call) and \
                self._is_builtin(it.args[0].func, range) and not it.args[0].keywords:
            bounds = _reversed_range(it.args[0].args)
            if bounds is not None:
                node.iter = gast.Call(it.args[0].func, bounds, [])
        return node

    def _is_builtin(self, func, value) -> bool:
        if not isinstance(func, gast.Name):
            return False
        try:
            return self.source.resolve(func.id) is value
        except KeyError:
            return False

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, gast.Load) and isinstance(node.value, gast.Name) and \
                node.value.id in self.mutated:
            from ..runtime.higher import snapshot
            alias = self.imports.helper(snapshot)
            self.source.extra[alias] = snapshot
            return gast.copy_location(gast.Call(gast.Name(alias, gast.Load(), None, None),
                                                [node], []), node)
        return node

    def visit_AugAssign(self, node):
        node.value = self.visit(node.value)
        if isinstance(node.target, gast.Subscript):
            node.target.slice = self.visit(node.target.slice)
        return node

    def visit_Assign(self, node):
        node.value = self.visit(node.value)
        for target in node.targets:
            if isinstance(target, gast.Subscript):
                target.slice = self.visit(target.slice)
        return node

    def visit_Expr(self, node):
        node.value = self.visit(node.value)
        call = node.value
        if not isinstance(call, gast.Call):
            return node
        func = call.func
        if isinstance(func, gast.Attribute) and func.attr == "pop" and \
                isinstance(func.value, gast.Name) and not call.args and not call.keywords:
            target = gast.Name(self.namer.claim("popped"), gast.Store(), None, None)
            return gast.copy_location(gast.Assign([target], call, None), node)
        if isinstance(func, gast.Attribute) and func.attr == "at" and \
                isinstance(func.value, gast.Attribute) and func.value.attr == "add" and \
                isinstance(func.value.value, gast.Name) and len(call.args) == 3 and \
                isinstance(call.args[0], gast.Name) and self._is_numpy(func.value.value.id):
            from ..runtime.higher import add_at
            alias = self.imports.helper(add_at)
            self.source.extra[alias] = add_at
            target = gast.Name(call.args[0].id, gast.Store(), None, None)
            value = gast.Call(gast.Name(alias, gast.Load(), None, None), list(call.args), [])
            return gast.copy_location(gast.Assign([target], value, None), node)
        return node

    def _is_numpy(self, name: str) -> bool:
        """Is ``name`` NumPy, or a target's module for it (``cp``: a CuPy gradient's code)?"""
        try:
            value = self.source.resolve(name)
        except KeyError:
            return False
        return value is np or isinstance(value, type(np)) and value.__name__ in BY_MODULE


def split_aux(tree: gast.FunctionDef, namer, source) -> tuple[gast.FunctionDef, str]:
    """``has_aux``: the normalized function returns ``(loss, aux)``; make it return ``loss``
    and give back the name holding ``aux``.

    >>> import gast
    >>> from s2sad.codegen import unparse
    >>> from s2sad.names import Namer
    >>> tree = gast.parse("def f(x):\\n    t_1 = x * x\\n    ret = (t_1, x)\\n"
    ...                   "    return ret").body[0]
    >>> tree, aux = split_aux(tree, Namer.for_tree(tree), None)
    >>> print(unparse(tree)); print(aux)
    def f(x):
        t_1 = x * x
        return t_1
    x
    """
    body = list(tree.body)
    returned = body[-1].value
    prev = body[-2] if len(body) >= 2 else None
    if isinstance(prev, gast.Assign) and len(prev.targets) == 1 and \
            isinstance(prev.targets[0], gast.Name) and prev.targets[0].id == returned.id and \
            isinstance(prev.value, gast.Tuple):
        elts = prev.value.elts
        if len(elts) != 2:
            raise _aux_error(source, prev, f"a tuple of {len(elts)} values")
        if isinstance(elts[0], gast.Name) and isinstance(elts[1], gast.Name) and \
                not _read_elsewhere(body[:-2], returned.id):
            ret = gast.copy_location(gast.Return(gast.Name(elts[0].id, gast.Load(), None, None)),
                                     body[-1])
            tree.body = body[:-2] + [ret]
            return tree, elts[1].id
    loss, aux = namer.claim("loss"), namer.claim("aux")
    unpack = gast.Assign([gast.Tuple([gast.Name(loss, gast.Store(), None, None),
                                      gast.Name(aux, gast.Store(), None, None)], gast.Store())],
                         gast.Name(returned.id, gast.Load(), None, None), None)
    ret = gast.Return(gast.Name(loss, gast.Load(), None, None))
    tree.body = body[:-1] + [gast.copy_location(unpack, body[-1]),
                             gast.copy_location(ret, body[-1])]
    return tree, aux


def refuse_unpaired(tree: gast.FunctionDef, kinds: dict, source) -> None:
    """``has_aux``, where the returned value, split in two when it runs (``loss, aux =
    ret``), is known to be a number or an array: said at the ``return``, not a
    TypeError from the generated unpacking."""
    unpack = tree.body[-2] if len(tree.body) >= 2 else None
    if isinstance(unpack, gast.Assign) and isinstance(unpack.targets[0], gast.Tuple) and \
            isinstance(unpack.value, gast.Name) and \
            kinds.get(unpack.value.id) is not None and kinds[unpack.value.id].numeric:
        raise _aux_error(source, unpack, "a number or an array, not a pair")


def _read_elsewhere(stmts, name) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name for s in stmts for n in trees.walk(s))


def _aux_error(source, node, what):
    message = f"has_aux=True needs the function to return a pair (value, aux); it returns {what}"
    if source is None:
        return DifferentiationError(message)
    return source.error(DifferentiationError, message, node,
                        "Return `value, aux`, with the value to differentiate first.")


def _shaped_by(source, call):
    """The argument (a name) whose structure the result of a runtime helper takes:
    ``broadcast_like(g, like)``, ``pack_like(x, parts)``..., or None."""
    from .. import runtime
    from ..runtime import higher as runtime_higher
    positions = {runtime_higher.broadcast_like: 1, runtime_higher.sens_like: 1,
                 runtime_higher.unpack_sens: 1, runtime_higher.put_item: 1,
                 runtime.pack_like: 0}
    try:
        func = source.resolve(call.func.id)
    except KeyError:
        return None
    try:
        position = positions.get(func)
    except TypeError:  # an unhashable global
        return None
    if position is None or position >= len(call.args) or \
            not isinstance(call.args[position], gast.Name):
        return None
    return call.args[position]


def container_kinds(tree, kinds: dict, source) -> dict:
    """Kinds corrected for generated code: ``s = zeros_like_structure(ys)`` is a list when
    ``ys`` is one (the kind analysis takes every helper's result for an array or number),
    and so are its copies and slices (``s = s[:-1]``)."""
    from ..runtime import zeros_like_structure
    from .kinds import ANY, Kind
    kinds = dict(kinds)
    lists: dict = {}   # name -> the kind it gets here
    changed = True
    while changed:
        changed = False
        for node in trees.walk(tree):
            if not (isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name)):
                continue
            target, value = node.targets[0].id, node.value
            new = None
            if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
                    len(value.args) == 1 and isinstance(value.args[0], gast.Name):
                try:
                    func = source.resolve(value.func.id)
                except KeyError:
                    func = None
                arg = kinds.get(value.args[0].id, ANY)
                if func is zeros_like_structure and not arg.numeric:
                    new = Kind("list") if arg.tag in ("list", "tuple") else ANY
            elif isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
                    _shaped_by(source, value) is not None:
                like = _shaped_by(source, value)
                arg = lists.get(like.id) or kinds.get(like.id, ANY)
                if arg.tag in ("list", "tuple"):  # broadcast_like(s_t, t) of a list is a list
                    new = Kind("list")
            elif isinstance(value, gast.Name) and value.id in lists:
                new = lists[value.id]
            elif isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and \
                    value.value.id in lists and \
                    any(isinstance(n, gast.Slice) for n in trees.walk(value.slice)):
                new = lists[value.value.id]
            if new is None:
                continue
            if target in lists and lists[target] != new:
                new = ANY  # lists of different kinds
            if lists.get(target) != new:
                lists[target] = new
                changed = True
    kinds.update(lists)
    return kinds
