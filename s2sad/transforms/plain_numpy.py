"""Helpers whose work the kinds decide, written as the NumPy they do.

A helper of ``s2sad.runtime`` reads the shapes of its arguments at each call to find
what to do: ``sum_grad(g, like=x, axis=2)`` spreads ``g`` over ``x``'s last axis,
``unbroadcast(g, like=x)`` sums ``g`` down to ``x``'s shape. Where the kinds say it
(the rank of each value, and which of its axes have length 1, checked at each call of
the gradient), the compiler knows the answer already, and writes the NumPy a person
writes: ``g[:, :, None]`` where a product spreads it anyway, ``g`` itself where nothing
was broadcast, ``np.swapaxes(x, -1, -2) @ g`` for a batched matrix product. On small
arrays each helper call costs more than the arithmetic around it.

The kinds of the sensitivities (``s_*``) and of the compiler's other new names are
found here, statement by statement, from the kinds of the primal values; a name
assigned in a loop keeps the kind it has on every pass (or none). Each element of the
result is computed from the same numbers as before, so the result is the same bits;
a number spread (``sum_grad(0.5, like=x)``) is NumPy's own Python number beside the
other operand, as in :mod:`~s2sad.transforms.unit_seed`, which in mixed precision (a
float64 ``x``, a float32 operand) gives the operand's precision, not float64.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.transforms.kinds import Kind
>>> fn = gast.parse('''def g(x, t_1, t_2, L):
...     s_1 = t_1 * 2.0
...     s_2 = x * sum_grad(-1.0 * s_1, x, 2, False)
...     s_3 = unbroadcast(s_1 + t_1, t_1)
...     s_L = matmul_grad_right(s_2, x, L)
...     s_4 = t_1 * sum_grad(sum_grad(2.0, t_2, None, False) / reduced_size(t_2), t_1, 1, False)
...     s_5 = np.sum(s_3, axis=0)
...     return s_2, s_3, transpose_grad(s_L, (0, 2, 1)), s_4, s_5''').body[0]
>>> kinds = {"x": Kind("array", "x", 3, ones=()), "t_1": Kind("array", "t_1", 2, ones=()),
...          "L": Kind("array", "L", 3, ones=()), "t_2": Kind("array", "t_2", 1, ones=())}
>>> names = {f: f for f in ("sum_grad", "unbroadcast", "matmul_grad_right", "transpose_grad",
...                         "reduced_size")}
>>> print(unparse(PlainNumpy(kinds, names, "np").visit(fn)))
def g(x, t_1, t_2, L):
    s_1 = t_1 * 2.0
    s_2 = x * -s_1[:, :, None]
    s_3 = s_1 + t_1
    s_L = np.swapaxes(x, -1, -2) @ s_2
    s_4 = t_1 * (sum_grad(2.0, t_2, None, False) / t_2.size)[:, None]
    s_5 = s_3.sum(axis=0)
    return (s_2, s_3, np.transpose(s_L, (0, 2, 1)), s_4, s_5)

``reduced_size(x, axis)`` of an array is ``x.size`` or ``x.shape[k]``, a Python int; a
spread value divided by it keeps the array's division (``/ 0`` of an empty one is no
error), so the number spread stays inside ``sum_grad``. A sum the compiler writes of an
array is the array's own method (``s_3.sum(axis=0)``: what ``np.sum`` calls, less its
dispatch); a product of real floats by 1.0 is the floats.
"""

from __future__ import annotations

import gast
import numpy as np

from .. import registry, trees
from ..trees import clone
from .kinds import ANY, SCALAR, Kind, broadcast_ones

_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div)
# NumPy 2 (NEP 50): a Python number takes the other operand's dtype, so ``e * 1.0`` has
# ``e``'s for every real float ``e``; NumPy 1 makes a float32 scalar times 1.0 float64
_WEAK_NUMBERS = int(np.__version__.split(".")[0]) >= 2
_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _known(kind: Kind) -> bool:
    """Does ``kind`` say the rank and the axes of length 1 (a number: rank 0)?"""
    return kind.tag == "scalar" or kind.numeric and kind.ndim is not None and \
        kind.ones is not None


def _array(kind: Kind) -> bool:
    """Is ``kind`` an array of known rank (1 or more) and axes of length 1?"""
    return _known(kind) and kind.tag != "scalar" and kind.ndim > 0


def _broadcast(kinds) -> Kind:
    """The kind of an elementwise operation of values of ``kinds``."""
    if not all(_known(k) for k in kinds):
        return ANY
    arrays = [k for k in kinds if k.tag != "scalar" and k.ndim]
    if not arrays:
        return SCALAR if all(k.tag == "scalar" for k in kinds) else ANY
    tag = "array" if any(k.tag == "array" for k in arrays) else "numeric"
    return Kind(tag, None, max(k.ndim for k in arrays), ones=broadcast_ones(arrays))


def _joined(a: Kind, b: Kind) -> Kind:
    """The kind a name has on two paths: the same rank and axes of length 1, or none."""
    if a == b:
        return a
    if _array(a) and _array(b) and a.ndim == b.ndim and a.ones == b.ones:
        return Kind("array" if a.tag == b.tag == "array" else "numeric", None, a.ndim,
                    ones=a.ones)
    return ANY


def _int(node):
    """The int ``node`` is written as (``2``, ``-1``), or None."""
    return trees.signed_constant(node, int)


def _axes(node, ndim: int):
    """The axes ``node`` (an int, a tuple of ints, None) names of ``ndim`` axes, sorted,
    or None where it names none plainly (a repeated axis, one out of range)."""
    if isinstance(node, gast.Constant) and node.value is None:
        return tuple(range(ndim))
    parts = node.elts if isinstance(node, gast.Tuple) else [node]
    values = [_int(p) for p in parts]
    if None in values or not all(-ndim <= v < ndim for v in values):
        return None
    axes = sorted({v % ndim for v in values})
    return tuple(axes) if len(axes) == len(values) else None


def _minus_one(node) -> bool:
    """Is ``node`` the float ``-1.0`` as written?"""
    return trees.signed_constant(node, float) == -1.0


def _arithmetic(node) -> bool:
    """Is ``node`` elementwise arithmetic (``+ - * /``, a sign)?"""
    return isinstance(node, gast.BinOp) and isinstance(node.op, _ARITHMETIC) or \
        isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd))


def _operands(node) -> list:
    """``[(node, field)]`` of the operands of the arithmetic ``node`` that are not
    arithmetic themselves, left to right."""
    found = []
    for field in ("left", "right") if isinstance(node, gast.BinOp) else ("operand",):
        value = getattr(node, field)
        found += _operands(value) if _arithmetic(value) else [(node, field)]
    return found


def _whole() -> gast.Slice:
    return gast.Slice(None, None, None)


class PlainNumpy(trees.Transformer):
    """``kinds``: the primal values' kinds (by name); ``helpers``: the generated code's
    names of the helpers (``{"sum_grad": alias}``...); ``numpy``: its name for NumPy;
    ``negate``: whether ``-1.0 * s`` of an array may be written ``-s`` (real values: a
    complex one's product by ``-1.0`` differs from its negation at infinities)."""

    def __init__(self, kinds: dict, helpers: dict, numpy: str, negate: bool = True,
                 floats: frozenset = frozenset(), arrays: frozenset = frozenset(),
                 modules: frozenset = frozenset()):
        self.kinds = kinds
        self.names = {alias: name for name, alias in helpers.items()}
        self.numpy = numpy
        self.modules = {numpy, *modules}  # (the names of the array module: np, cp...)
        self.negate = negate
        self.floats = set(floats) if negate else set()  # (names holding real floats)
        self.arrays = arrays if negate and _WEAK_NUMBERS else frozenset()  # (arguments
        # that are NumPy arrays of real floats, of rank 1 or more, as the entry checks)
        self.changed = False

    # -- kinds of the generated code's values --------------------------------------------

    def kind(self, node, env: dict) -> Kind:
        """The kind of expression ``node`` where the new names have the kinds ``env``."""
        if isinstance(node, gast.Name):
            if node.id in self.kinds:
                return self.kinds[node.id]
            return env.get(node.id, ANY)
        if isinstance(node, gast.Constant):
            return SCALAR if type(node.value) in (int, float) else ANY
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self.kind(node.operand, env)
        if isinstance(node, gast.BinOp) and isinstance(node.op, (*_ARITHMETIC, gast.Pow)):
            return _broadcast([self.kind(node.left, env), self.kind(node.right, env)])
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult):
            x, y = self.kind(node.left, env), self.kind(node.right, env)
            if _array(x) and _array(y) and x.ndim == y.ndim >= 2 and \
                    self._batch_alike(x, y):
                ones = tuple(a for a in x.ones if a < x.ndim - 2)
                ones += ((x.ndim - 2,) if x.ndim - 2 in x.ones else ()) + \
                    ((y.ndim - 1,) if y.ndim - 1 in y.ones else ())
                return Kind("array", None, x.ndim, ones=ones)
            return ANY
        if isinstance(node, gast.Attribute) and node.attr == "T":
            base = self.kind(node.value, env)  # (its axes reversed)
            return Kind("array", None, base.ndim, ones=tuple(sorted(
                base.ndim - 1 - a for a in base.ones))) if _array(base) else ANY
        if isinstance(node, gast.Attribute) and node.attr == "size" or \
                isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) \
                and node.value.attr == "shape" and _int(node.slice) is not None:
            array = node.value if isinstance(node, gast.Attribute) else node.value.value
            return SCALAR if _array(self.kind(array, env)) else ANY  # (a Python int)
        if isinstance(node, gast.Subscript):
            return self._subscript_kind(node, env)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                isinstance(node.func.value, gast.Name) and node.func.value.id in self.modules \
                and node.func.attr in ("swapaxes", "transpose") and not node.keywords and \
                node.args:
            return self._permuted(node, env)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                node.func.attr == "sum" and not (isinstance(node.func.value, gast.Name) and
                                                 node.func.value.id in self.modules):
            return self._reduced(gast.Call(  # (a.sum(axis=0): np.sum(a, axis=0)'s kind)
                gast.Attribute(gast.Name(self.numpy, gast.Load(), None, None), "sum",
                               gast.Load()), [node.func.value, *node.args], node.keywords),
                env)
        if isinstance(node, gast.Call) and node.args and (
                isinstance(node.func, gast.Attribute) and node.func.attr == "sum" and
                isinstance(node.func.value, gast.Name) and node.func.value.id in self.modules
                or isinstance(node.func, gast.Name) and
                self.names.get(node.func.id) == "sum_product"):
            return self._reduced(node, env)
        if self._elementwise(node):  # (np.sin(x): the broadcast of its arguments)
            return _broadcast([self.kind(a, env) for a in node.args])
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            helper = self.names.get(node.func.id)
            if helper == "reduced_size":
                return SCALAR  # (a Python int: how many elements a reduction combines)
            at = {"unbroadcast": 1, "sum_grad": 1, "unbroadcast_product": 2,
                  "summed_matmul_grad_left": 3}.get(helper)
            if at is not None and len(node.args) > at:
                like = self._like(node.args[at], env)  # (the shape of like, as it says)
                return like if _known(like) else ANY
        return ANY

    def _like(self, node, env) -> Kind:
        """The kind of a helper's ``like``, whose shape alone it reads: a value's, or that of
        ``broadcast_shape(a, b)`` (a Shape, no array), the broadcast of ``a`` and ``b``."""
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                self.names.get(node.func.id) == "broadcast_shape" and not node.keywords:
            return _broadcast([self.kind(a, env) for a in node.args])
        return self.kind(node, env)

    def _reduced(self, node, env) -> Kind:
        """``np.sum(a, axis, keepdims)``, ``sum_product(a, b, axis, keepdims)``: the
        axes summed taken out, or kept of length 1."""
        product = isinstance(node.func, gast.Name)
        operands = node.args[:2] if product else node.args[:1]
        rest = dict(zip(("axis", "keepdims"), node.args[len(operands):]))
        rest.update((k.arg, k.value) for k in node.keywords)
        if len(node.args) > len(operands) + 2 or set(rest) - {"axis", "keepdims"}:
            return ANY
        base = _broadcast([self.kind(a, env) for a in operands])
        axis = rest.get("axis", gast.Constant(None, None))
        keepdims = rest.get("keepdims", gast.Constant(False, None))
        if base.tag == "scalar" or not _array(base) or not (
                isinstance(keepdims, gast.Constant) and type(keepdims.value) is bool):
            return SCALAR if base.tag == "scalar" else ANY
        axes = _axes(axis, base.ndim)
        if axes is None:
            return ANY
        if keepdims.value:
            return Kind("numeric", None, base.ndim, ones=tuple(sorted(set(base.ones) |
                                                                       set(axes))))
        left = [a for a in range(base.ndim) if a not in axes]
        if not left:
            return SCALAR
        return Kind("numeric", None, len(left),
                    ones=tuple(i for i, a in enumerate(left) if a in base.ones))

    def _permuted(self, node, env) -> Kind:
        """``np.swapaxes(x, i, j)``, ``np.transpose(x, axes)``: ``x``'s axes permuted."""
        base = self.kind(node.args[0], env)
        if not _array(base):
            return ANY
        order = list(range(base.ndim))
        if node.func.attr == "swapaxes" and len(node.args) == 3:
            i, j = _int(node.args[1]), _int(node.args[2])
            if i is None or j is None or not all(-base.ndim <= a < base.ndim for a in (i, j)):
                return ANY
            order[i], order[j] = order[j], order[i]
        elif node.func.attr == "transpose" and len(node.args) == 1:
            order.reverse()
        elif node.func.attr == "transpose" and len(node.args) == 2:
            axes = node.args[1]
            order = [_int(e) for e in axes.elts] if isinstance(axes, gast.Tuple) else [None]
            if None in order or sorted(order) != list(range(base.ndim)):
                return ANY
        else:
            return ANY
        return Kind("array", None, base.ndim,
                    ones=tuple(k for k, a in enumerate(order) if a in base.ones))

    def _pure(self, call) -> bool:
        """Does ``call`` (a helper's) call nothing but helpers and NumPy's functions?"""
        return all(isinstance(n.func, gast.Name) and n.func.id in self.names or
                   isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name)
                   and n.func.value.id == self.numpy
                   for n in trees.walk(call) if isinstance(n, gast.Call))

    @staticmethod
    def _read_by_next_store(name: str, rest: list):
        """The read of ``name`` (a ``gast.Name``) when it is read once before its next
        value, by the top-level statement of ``rest`` that gives it (``s = s + e``); else
        None."""
        for stmt in rest:
            names = [n for n in trees.walk(stmt) if isinstance(n, gast.Name) and n.id == name]
            if any(isinstance(n.ctx, gast.Store) for n in names):
                loads = [n for n in names if not isinstance(n.ctx, gast.Store)]
                return loads[0] if isinstance(stmt, gast.Assign) and \
                    len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) and \
                    len(names) == 2 and len(loads) == 1 else None
            if names:
                return None
        return None

    def _subscript_kind(self, node, env) -> Kind:
        """``g[:, None]``, ``g[:, 0]``: an array's axes kept, put in or taken out."""
        base = self.kind(node.value, env)
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if not _array(base):
            return ANY
        ones, axis, out = [], 0, 0
        for part in parts:
            if isinstance(part, gast.Constant) and part.value is None:
                ones.append(out)
                out += 1
            elif isinstance(part, gast.Slice) and part.lower is None and \
                    part.upper is None and part.step is None:
                if axis in base.ones:
                    ones.append(out)
                axis, out = axis + 1, out + 1
            elif _int(part) is not None:
                axis += 1
            else:
                return ANY
        if axis > base.ndim:
            return ANY
        ones += [out + i for i, a in enumerate(range(axis, base.ndim)) if a in base.ones]
        ndim = out + base.ndim - axis
        return Kind("array", None, ndim, ones=tuple(ones)) if ndim else ANY

    @staticmethod
    def _batch_alike(x: Kind, y: Kind) -> bool:
        """Have the batch axes of ``x`` and ``y`` (same rank) length 1 at the same places,
        so that a product broadcasts none of them?"""
        return all((a in x.ones) == (a in y.ones) for a in range(x.ndim - 2))

    # -- the walk ------------------------------------------------------------------------

    def visit_FunctionDef(self, node):
        if not self.names and not self.floats:
            return node
        self.movable = self._movable(node)
        self.once = self._stored_once(node)
        self.stored_names = {n.id for n in trees.start_walk(node) if isinstance(n, gast.Name) and
                             isinstance(n.ctx, gast.Store)}
        self.reductions = {  # (names given a sum once, at the top level: their sizes)
            stmt.targets[0].id: stmt.value for stmt in node.body
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in self.once and
            isinstance(stmt.value, gast.Call) and stmt.value.args and
            not any(isinstance(a, gast.Starred) for a in stmt.value.args) and (
                self._numpy_sum(stmt.value) or isinstance(stmt.value.func, gast.Name) and
                self.names.get(stmt.value.func.id) == "sum_product")}
        self.moved: set[str] = set()
        self.augmented = False  # (the expression walked is an augmented assignment's)
        self.adjoint = False  # (... is one the compiler wrote: it stores no primal name)
        self.looped = 0  # (how many loops the statement walked is in)
        self._block(node.body, {}, rewrite=True)
        if self.arrays:
            self._ones_like(node)
            self._scaled_gradients(node)
        if self.moved:  # (their calls went where they were read)
            node.body[:] = [stmt for stmt in node.body if not (
                isinstance(stmt, gast.Assign) and stmt.value is self.movable.get(
                    stmt.targets[0].id if isinstance(stmt.targets[0], gast.Name) else None)
                and stmt.targets[0].id in self.moved)]
        return node

    def _ones_like(self, node) -> None:
        """``sum_grad(1.0, x, None, False)`` (``np.sum``'s seed spread over the argument
        ``x``, a NumPy array of real floats never rebound) is ``np.ones_like(x)``, and
        ``sum_grad(c, x, None, False)`` is ``np.full_like(x, c)``: ``x``'s shape and dtype,
        ``c`` rounded to it as the helper rounds it (``_weak``), each element the same."""
        nodes = trees.walk(node)  # (one walk: the tree is not changed before the loop)
        stored = {n.id for n in nodes if isinstance(n, gast.Name) and
                  isinstance(n.ctx, gast.Store)}

        def spread(call) -> bool:
            if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Name) and
                    self.names.get(call.func.id) == "sum_grad" and len(call.args) == 4 and
                    not call.keywords):
                return False
            g, like, axis, keepdims = call.args
            return isinstance(g, gast.Constant) and type(g.value) in (int, float) and \
                isinstance(like, gast.Name) and like.id in self.arrays and \
                like.id not in stored and isinstance(axis, gast.Constant) and \
                axis.value is None and isinstance(keepdims, gast.Constant) and \
                keepdims.value is False

        if not any(n.__class__ is gast.Call and spread(n) for n in nodes):
            return  # (no such spread: no node's fields to go through for one)
        for n in nodes:
            for field, value in gast.iter_fields(n):
                items = value if isinstance(value, list) else [value]
                for k, item in enumerate(items):
                    if not spread(item):
                        continue
                    g, like = item.args[0], item.args[1]
                    numpy = gast.Name(self.numpy, gast.Load(), None, None)
                    new = gast.Call(gast.Attribute(numpy, "ones_like", gast.Load()),
                                    [like], []) if g.value == 1 else \
                        gast.Call(gast.Attribute(numpy, "full_like", gast.Load()),
                                  [like, g], [])
                    if isinstance(value, list):
                        value[k] = gast.copy_location(new, item)
                    else:
                        setattr(n, field, gast.copy_location(new, item))
                    self.changed = True

    def _scaled_gradients(self, node) -> None:
        """``fresh_gradient(w, s_w)`` is ``s_w`` where ``s_w = w * c`` (``c`` a Python
        number, ``w`` a NumPy array of real floats) and only added to in place after:
        a new array of ``w``'s shape and dtype (NEP 50), writeable, owning its memory, as
        ``fresh_gradient`` would find at each call (an L2 penalty's ``w * 0.001``)."""
        stores: dict = {}
        seen: set = set()  # (the names stored by the assignments, by id)
        nodes = trees.walk(node)  # (one walk for both loops: neither changes the tree)
        for n in nodes:
            if isinstance(n, (gast.Assign, gast.AugAssign)):
                for target in n.targets if isinstance(n, gast.Assign) else [n.target]:
                    for name in trees.walk(target):
                        if isinstance(name, gast.Name) and isinstance(name.ctx, gast.Store):
                            stores.setdefault(name.id, []).append((n, target))
                            seen.add(id(name))
        for n in nodes:
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and \
                    id(n) not in seen:
                stores.setdefault(n.id, []).append((None, None))  # (a loop's target...)

        def scaled(name: str, x: str) -> bool:
            found = stores.get(name, [])
            first = [st for st, target in found if isinstance(st, gast.Assign)]
            if len(first) != 1 or not isinstance(first[0].targets[0], gast.Name) or \
                    len(first[0].targets) != 1 or not all(
                        isinstance(st, gast.AugAssign) and target is st.target
                        for st, target in found if st is not first[0]):
                return False
            return product(first[0].value, x)

        def product(value, x: str) -> bool:  # (x times numbers: 2.0 * (x * 0.0005))
            return isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult) and \
                any((isinstance(a, gast.Name) and a.id == x or product(a, x) or
                     filled(a, x)) and
                    isinstance(b, gast.Constant) and type(b.value) in (int, float)
                    for a, b in ((value.left, value.right), (value.right, value.left))) \
                or filled(value, x)

        def filled(value, x: str) -> bool:  # (np.ones_like(x), np.full_like(x, c): new)
            return isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
                and isinstance(value.func.value, gast.Name) and \
                value.func.value.id == self.numpy and not value.keywords and (
                    value.func.attr == "ones_like" and len(value.args) == 1 or
                    value.func.attr == "full_like" and len(value.args) == 2 and
                    isinstance(value.args[1], gast.Constant)) and \
                isinstance(value.args[0], gast.Name) and value.args[0].id == x

        for n in trees.walk(node):
            if isinstance(n, gast.Return) and n.value is not None:
                parts = n.value.elts if isinstance(n.value, gast.Tuple) else [n.value]
                for k, part in enumerate(parts):
                    if isinstance(part, gast.Call) and isinstance(part.func, gast.Name) and \
                            self.names.get(part.func.id) == "fresh_gradient" and \
                            len(part.args) == 2 and not part.keywords and \
                            all(isinstance(a, gast.Name) for a in part.args) and \
                            part.args[0].id in self.arrays and \
                            part.args[0].id not in stores and \
                            scaled(part.args[1].id, part.args[0].id):
                        parts[k] = part.args[1]
                        self.changed = True
                if not isinstance(n.value, gast.Tuple):
                    n.value = parts[0]

    def _movable(self, node) -> dict:
        """``{name: call}`` of the names given a ``sum_grad(...)`` call at the top level
        and read once, whose call reads names given one value at most: the call may go
        where the name is read (dead code takes the assignment away then)."""
        stores: dict = {}
        loads: dict = {}
        read: dict = {}  # (a name's last read: its only one, where it is read once)
        for n in trees.start_walk(node):  # (the pass has changed nothing yet)
            if isinstance(n, gast.Name):
                counts = stores if isinstance(n.ctx, gast.Store) else loads
                counts[n.id] = counts.get(n.id, 0) + 1
                if not isinstance(n.ctx, gast.Store):
                    read[n.id] = n
        self.readers = {}  # (the one read of each such name that the call may go to)
        found = {}
        for k, stmt in enumerate(node.body):
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and \
                    isinstance(stmt.value, gast.Call) and \
                    isinstance(stmt.value.func, gast.Name) and \
                    self.names.get(stmt.value.func.id) == "sum_grad":
                name = stmt.targets[0].id
                reads = [n.id for a in stmt.value.args for n in trees.walk(a)
                        if isinstance(n, gast.Name)]
                reader = read.get(name) if stores.get(name) == 1 and \
                    loads.get(name) == 1 else self._read_by_next_store(
                        name, node.body[k + 1:]) if stores.get(name) == 2 else None
                if all(stores.get(r, 0) <= 1 for r in reads) and self._pure(stmt.value) and \
                        reader is not None:
                    found[name] = stmt.value
                    self.readers[name] = reader
        return found

    @staticmethod
    def _stored_once(node) -> set[str]:
        """The names stored once in the function ``node`` (a parameter: never)."""
        counts: dict = {}
        for n in trees.start_walk(node):  # (the pass has changed nothing yet)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                counts[n.id] = counts.get(n.id, 0) + 1
        params = {a.id for a in node.args.args if isinstance(a, gast.Name)}
        return {name for name, count in counts.items() if count == 1 and name not in params}

    def _note_floats(self, stmt) -> None:
        """Note the names ``stmt`` (an assignment) gives real floats for certain: a name
        stored once, its value a float (or an array of floats, unpacked)."""
        if not self.negate or len(stmt.targets) != 1 or not self._float(stmt.value):
            return
        target = stmt.targets[0]
        names = [target] if isinstance(target, gast.Name) else \
            target.elts if isinstance(target, gast.Tuple) else []
        for name in names:
            if isinstance(name, gast.Name) and name.id in self.once:
                self.floats.add(name.id)

    def _stored(self, stmts) -> set[str]:
        return {n.id for stmt in stmts for n in trees.walk(stmt)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}

    def _block(self, stmts: list, env: dict, rewrite: bool) -> dict:
        """Walk ``stmts`` in order from the kinds ``env``; the kinds after them."""
        for stmt in stmts:
            if isinstance(stmt, (gast.For, gast.While)):
                env = self._loop(stmt, env, rewrite)
            elif isinstance(stmt, gast.If):
                if rewrite:
                    stmt.test = self._expr(stmt.test, env)
                after = self._block(stmt.body, dict(env), rewrite)
                other = self._block(stmt.orelse, dict(env), rewrite)
                env = {n: _joined(after.get(n, ANY), other.get(n, ANY))
                       for n in after.keys() | other.keys()}
            elif isinstance(stmt, gast.Assign):
                if rewrite:
                    self.adjoint = not self._stored([stmt]) & self.kinds.keys()
                    stmt.value = self._expr(stmt.value, env)
                    self.adjoint = False
                    self._note_floats(stmt)
                value = self.kind(stmt.value, env)
                for target in stmt.targets:
                    for name in self._stored([target]):
                        env[name] = value if isinstance(target, gast.Name) and \
                            len(stmt.targets) == 1 else ANY
            elif isinstance(stmt, gast.AugAssign):
                if rewrite:
                    self.augmented = True  # (its value is added into the target, never it)
                    self.adjoint = not self._stored([stmt]) & self.kinds.keys()
                    stmt.value = self._expr(stmt.value, env)
                    self.augmented = self.adjoint = False
                if isinstance(stmt.target, gast.Name) and isinstance(stmt.op, _ARITHMETIC):
                    env[stmt.target.id] = _broadcast([self.kind(stmt.target, env),
                                                      self.kind(stmt.value, env)])
                else:
                    env.update(dict.fromkeys(self._stored([stmt]), ANY))
            elif isinstance(stmt, (gast.Return, gast.Expr)):
                if rewrite and stmt.value is not None:
                    stmt.value = self._expr(stmt.value, env)
            else:  # (with, try...: what they store is not known, and they stay as written)
                env.update(dict.fromkeys(self._stored([stmt]), ANY))
        return env

    def _loop(self, stmt, env: dict, rewrite: bool) -> dict:
        """A loop's kinds: each name it stores keeps, on every pass, the kind it has
        before the loop and after the body (a fixed point), or none."""
        stored = self._stored([stmt])
        start = dict(env)
        if isinstance(stmt, gast.For):
            start.update(dict.fromkeys(self._stored([stmt.target]), ANY))
        # (each round gives a name first stored in the body its kind, or loses one, or
        # it is settled: a name with no value before the loop has, when read, the value
        # an earlier pass gave it)
        for _ in range(2 * len(stored) + 2):
            end = self._block(stmt.body, dict(start), rewrite=False)
            joined = {**start, **{n: _joined(start[n], end.get(n, ANY)) if n in start
                                  else end.get(n, ANY) for n in stored}}
            if joined == start:
                break
            start = joined
        else:
            start.update(dict.fromkeys(stored, ANY))
        if rewrite:
            self.looped += 1
            if isinstance(stmt, gast.While):
                stmt.test = self._expr(stmt.test, start)
            self._block(stmt.body, dict(start), rewrite=True)
            self.looped -= 1
        self._block(stmt.orelse, dict(start), rewrite)
        return {**start, **dict.fromkeys(self._stored(stmt.orelse), ANY)}

    # -- rewriting -----------------------------------------------------------------------

    def _expr(self, node, env: dict, top: bool = True):
        """``node`` with its decided helper calls written as NumPy, innermost first
        (``top``: not an operand of the arithmetic around it)."""
        if isinstance(node, _SCOPES):  # (its names are its own: left as written)
            return node
        arithmetic = _arithmetic(node)
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, gast.expr):
                setattr(node, field, self._expr(value, env, not (
                    arithmetic and _arithmetic(value))))
            elif isinstance(value, list):
                value[:] = [self._expr(v, env) if isinstance(v, gast.expr) else v
                            for v in value]
        if arithmetic:
            if top:
                self._spread_in(node, env)
            if isinstance(node, gast.BinOp):
                node = self._negated(node, env)
            return self._unit(node, env, top) if isinstance(node, gast.BinOp) else node
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                all(k.arg == "axes" for k in node.keywords):
            helper = self.names.get(node.func.id)
            plain = None
            if helper == "transpose_grad" and len(node.args) + len(node.keywords) <= 2:
                plain = self._transpose(*node.args, *[k.value for k in node.keywords],
                                        env=env)
            elif node.keywords:
                pass
            elif helper == "unbroadcast" and len(node.args) == 2:
                plain = self._unbroadcast(*node.args, env)
            elif helper == "reduced_size" and 1 <= len(node.args) <= 2:
                plain = self._reduced_size(*node.args, env=env)
            elif helper in ("matmul_grad_left", "matmul_grad_right") and len(node.args) == 3:
                plain = self._matmul(helper == "matmul_grad_left", *node.args, env)
            elif helper in ("dot_grad_left", "dot_grad_right") and len(node.args) == 3:
                plain = self._dot(helper == "dot_grad_left", *node.args, env)
            if plain is not None:
                self.changed = True
                return plain
        if self.adjoint and self._numpy_sum(node) and _array(self.kind(node.args[0], env)) \
                and any(isinstance(n, gast.Name) and n.id not in self.kinds
                        for n in trees.walk(node.args[0])):  # (of a sensitivity: the
            # user's own np.sum, substituted into a sensitivity's line, stays as written)
            self.changed = True  # (np.sum's own checks and dispatch, a microsecond, skipped)
            return gast.Call(gast.Attribute(node.args[0], "sum", gast.Load()), node.args[1:],
                             node.keywords)
        return node

    def _numpy_sum(self, node) -> bool:
        """Is ``node`` ``np.sum(a)``, with at most ``axis`` and ``keepdims`` besides?"""
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
            node.func.attr == "sum" and isinstance(node.func.value, gast.Name) and \
            node.func.value.id in self.modules and 1 <= len(node.args) <= 3 and \
            not any(isinstance(a, gast.Starred) for a in node.args) and \
            all(k.arg in ("axis", "keepdims") for k in node.keywords)

    def _spread_in(self, top, env) -> None:
        """Each ``sum_grad(g, like, axis, keepdims)`` among the operands of the arithmetic
        ``top`` (or a name given one, read there alone) written as ``g`` with the summed
        axes put back as ``None`` (``g[:, :, None]``), or ``g`` itself, where ``top``'s
        other operands spread it anyway: ``top`` still has every axis ``like`` has
        longer than 1, so its shape and each of its elements stay the same."""
        for holder, field in _operands(top):
            value = getattr(holder, field)
            call = self.movable.get(value.id) if isinstance(value, gast.Name) and \
                not self.looped and self.readers.get(value.id) is value else value
            # (not into a loop: computed once, as it was; and only into the read of the
            # value the call gives: `s_x = s_e * e` after `s_e = s_e + d` reads another)
            if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Name) and
                    self.names.get(call.func.id) == "sum_grad" and len(call.args) == 4 and
                    not call.keywords):
                continue
            like = self._like(call.args[1], env)
            spread = self._spread(call, like, env)
            if spread is None:
                continue
            setattr(holder, field, spread)
            if any(self._covers(self.kind(getattr(h, f), env), like)
                   for h, f in _operands(top)):  # (an operand longer than 1 along an axis
                # makes the result so, whatever the others)
                self.changed = True
                if call is not value:
                    self.moved.add(value.id)
                self._mean_seed(holder, field, call.args[0], env)
            else:
                setattr(holder, field, value)

    def _mean_seed(self, holder, field: str, g, env) -> None:
        """``a * (sum_grad(-1.0, like=t) / t.size)[:, None]``, the seed of a mean spread
        by a product that has the product's shape anyway (``_spread_in``): ``-a / t.size``
        (``a / t.size`` for ``1.0``). Each element of the spread is the one number, in
        ``t``'s precision: a Python number beside ``a`` as in ``unit_seed`` (the same
        float32 values for a float32 ``t``, a count below 2**24). Divided, not multiplied
        by ``-1.0 / t.size``: an empty ``t`` (and ``a``) divides by 0 with no error."""
        if not (isinstance(holder, gast.BinOp) and isinstance(holder.op, gast.Mult) and
                isinstance(g, gast.BinOp) and isinstance(g.op, gast.Div) and
                isinstance(g.left, gast.Call) and isinstance(g.left.func, gast.Name) and
                self.names.get(g.left.func.id) == "sum_grad" and len(g.left.args) == 4 and
                not g.left.keywords and self._size_of(g.right, g.left.args[1])):
            return
        seed, _, axis, keepdims = g.left.args
        other = holder.left if field == "right" else holder.right
        sign = trees.signed_constant(seed, float)
        if sign not in (1.0, -1.0) or not (isinstance(axis, gast.Constant) and
                                           axis.value is None) or \
                not (isinstance(keepdims, gast.Constant) and keepdims.value is False) or \
                not (self._float(other) or self._floats(other, env)):
            return
        holder.op = gast.Div()
        holder.left = other if sign > 0 else gast.UnaryOp(gast.USub(), other)
        holder.right = self._counted(g.left.args[1], env) or clone(g.right)

    def _counted(self, like, env):
        """The size of ``like``, a name given a sum along axes once
        (``t_5 = sum_product(labels, logp, axis=1)``), read from an operand that has every
        axis left longer than 1 (``labels.shape[0]``): so ``t_5`` need not be computed for
        its size. None where the kinds do not say it."""
        value = self.reductions.get(like.id)
        if value is None:
            return None
        product = isinstance(value.func, gast.Name)
        operands = value.args[:2] if product else value.args[:1]
        rest = dict(zip(("axis", "keepdims"), value.args[len(operands):]))
        rest.update((k.arg, k.value) for k in value.keywords)
        kinds = [self.kind(a, env) for a in operands]
        keepdims = rest.get("keepdims", gast.Constant(False, None))
        if set(rest) - {"axis", "keepdims"} or not all(_array(k) for k in kinds) or \
                not (isinstance(keepdims, gast.Constant) and keepdims.value is False):
            return None
        ndim = max(k.ndim for k in kinds)
        axes = _axes(rest.get("axis", gast.Constant(None, None)), ndim)
        left = [a for a in range(ndim) if a not in (axes or range(ndim))]
        if not left:
            return None
        for operand, kind in zip(operands, kinds):
            lead = ndim - kind.ndim
            if isinstance(operand, gast.Name) and operand.id not in self.stored_names and \
                    all(a >= lead and a - lead not in kind.ones for a in left):
                sizes = [gast.Subscript(gast.Attribute(gast.Name(operand.id, gast.Load(), None,
                                                                 None), "shape", gast.Load()),
                                        gast.Constant(a - lead, None), gast.Load())
                         for a in left]
                total = sizes[0]
                for size in sizes[1:]:
                    total = gast.BinOp(total, gast.Mult(), size)
                return total
        return None

    def _size_of(self, node, like) -> bool:
        """Is ``node`` the size of ``like`` (``like.size``, ``reduced_size(like)``), a
        name?"""
        if not isinstance(like, gast.Name):
            return False
        if isinstance(node, gast.Attribute) and node.attr == "size":
            return isinstance(node.value, gast.Name) and node.value.id == like.id
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            self.names.get(node.func.id) == "reduced_size" and len(node.args) == 1 and \
            not node.keywords and isinstance(node.args[0], gast.Name) and \
            node.args[0].id == like.id

    @staticmethod
    def _covers(kind: Kind, like: Kind) -> bool:
        """Has a value of ``kind`` every axis ``like`` has longer than 1 (aligned on the
        right), longer than 1 too?"""
        lead = kind.ndim - like.ndim if _array(kind) else -1
        return lead >= 0 and all(a + lead not in kind.ones
                                 for a in range(like.ndim) if a not in like.ones)

    def _spread(self, call, x: Kind, env):
        """``call``, ``sum_grad(g, like, axis, keepdims)`` with ``like`` of kind ``x``, as
        ``g`` shaped to broadcast as ``like`` (its summed axes put back as ``None``), or
        None where the kinds do not say how."""
        g, _, axis, keepdims = (clone(a) for a in call.args)
        g_kind = self.kind(g, env)
        if not (_array(x) and _known(g_kind) and isinstance(keepdims, gast.Constant) and
                type(keepdims.value) is bool):
            return None
        axes = _axes(axis, x.ndim)
        if axes is None:
            return None
        if g_kind.tag == "scalar" or g_kind.ndim == 0:
            return g  # (a number: spread by the operation itself)
        if keepdims.value or isinstance(axis, gast.Constant) and axis.value is None:
            return g if g_kind.ndim == x.ndim else None
        if g_kind.ndim != x.ndim - len(axes):
            return None
        index = [gast.Constant(None, None) if a in axes else _whole()
                 for a in range(max(axes) + 1)]
        negated = isinstance(g, gast.UnaryOp) and isinstance(g.op, gast.USub)
        spread = gast.Subscript(g.operand if negated else g, gast.Tuple(index, gast.Load())
                                if len(index) > 1 else index[0], gast.Load())
        return gast.UnaryOp(gast.USub(), spread) if negated else spread  # (-s[:, None])

    def _negated(self, node, env):
        """``-1.0 * s`` (or ``s * -1.0``) of a floating array or of real floats: ``-s``, the
        same bits (a new value either way)."""
        if not self.negate or not isinstance(node.op, gast.Mult):
            return node
        for number, other in ((node.left, node.right), (node.right, node.left)):
            if _minus_one(number) and (self._floats(other, env) or self._float(other)):
                self.changed = True
                return gast.UnaryOp(gast.USub(), other)
        return node

    def _unit(self, node, env, top: bool):
        """``e * 1.0`` (or ``1.0 * e``) of real floats: ``e``, the same bits (infinities
        and NaNs too; not complex numbers, nor integers, which ``* 1.0`` makes floats).
        Where ``e`` is an array named alone and the product is the whole value, it stays:
        the product is a new array, and ``s = e`` would share ``e``'s memory."""
        if not self.negate or not isinstance(node.op, gast.Mult) or not _WEAK_NUMBERS:
            return node
        for one, other in ((node.right, node.left), (node.left, node.right)):
            if isinstance(one, gast.Constant) and type(one.value) in (int, float) and \
                    one.value == 1 and self._float(other) and (
                        not top or self.augmented or self._new_value(other, env)):
                self.changed = True
                return other
        return node

    def _new_value(self, node, env) -> bool:
        """Is ``node`` computed afresh (arithmetic, a NumPy function of the kinds
        decided), or a number, which no one writes into?"""
        if _arithmetic(node) or self.kind(node, env).tag == "scalar":
            return True
        return isinstance(node, gast.Call) and self._elementwise_float(node)

    def _rule(self, node):
        """The rule of the NumPy function ``node`` calls with positional arguments alone
        (``np.sin(x)``), or None."""
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and
                isinstance(node.func.value, gast.Name) and
                node.func.value.id in self.modules) or node.keywords or not node.args or \
                any(isinstance(a, gast.Starred) for a in node.args):
            return None
        return registry.lookup(getattr(np, node.func.attr, None))

    def _elementwise(self, node) -> bool:
        """Is ``node`` a call of an elementwise NumPy function (``np.sin(x)``)?"""
        rule = self._rule(node)
        return rule is not None and rule.shape == "elementwise" and not (
            rule.func is np.where and len(node.args) < 3)  # (np.where(c): indices)

    def _elementwise_float(self, node) -> bool:
        """Is ``node`` a call of a NumPy function whose rule says it gives floats
        elementwise (``np.exp``, ``np.cos``...)?"""
        if not self._elementwise(node):
            return False
        result = self._rule(node).result  # ("f", or the arguments whose dtypes it follows)
        return result == "f" or isinstance(result, tuple) and bool(result) and all(
            isinstance(a, tuple) and len(a) == 2 and isinstance(a[1], int) and
            a[1] < len(node.args) and self._float(node.args[a[1]]) for a in result)

    def _float(self, node) -> bool:
        """Does ``node`` hold real floats for certain (a float number, a name noted so, a
        sensitivity array, a function that gives floats, arithmetic with a float operand,
        an item of floats)? In a program with no complex values."""
        if isinstance(node, gast.Constant):
            return type(node.value) is float
        if isinstance(node, gast.Name):
            return node.id in self.floats
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self._float(node.operand)
        if isinstance(node, gast.Subscript):
            return self._float(node.value)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Pow):
            return self._float(node.left) and self._numeric(node.right)
        if isinstance(node, gast.BinOp) and isinstance(node.op, _ARITHMETIC):
            return self._float(node.left) and self._numeric(node.right) or \
                self._float(node.right) and self._numeric(node.left)
        return self._elementwise_float(node)

    def _numeric(self, node) -> bool:
        """Is ``node`` a Python number, or real floats for certain (not a list, nor an
        object array)?"""
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float)
        return self._float(node)

    def _floats(self, node, env) -> bool:
        """Is ``node`` an array of floats: an array-valued name the compiler made (a
        sensitivity), or an index of one?"""
        while isinstance(node, gast.Subscript):
            node = node.value
        return isinstance(node, gast.Name) and node.id not in self.kinds and \
            _array(env.get(node.id, ANY))

    def _unbroadcast(self, g, like, env):
        """``unbroadcast(g, like)`` where nothing was broadcast (the same rank, the same
        axes of length 1): ``g``."""
        a, b = self.kind(g, env), self.kind(like, env)
        if _array(a) and _array(b) and a.ndim == b.ndim and a.ones == b.ones:
            return g
        return None

    def _reduced_size(self, x, axis=None, env=None):
        """``reduced_size(x, axis)`` of an array: ``x.size`` (every axis), ``x.shape[k]``
        (one axis ``k``), the same Python int."""
        kind = self.kind(x, env)
        if not _array(kind):
            return None
        if axis is None or isinstance(axis, gast.Constant) and axis.value is None:
            return gast.Attribute(x, "size", gast.Load())
        k = _int(axis)
        if k is None or not -kind.ndim <= k < kind.ndim:
            return None
        return gast.Subscript(gast.Attribute(x, "shape", gast.Load()),
                              gast.Constant(k % kind.ndim, None), gast.Load())

    def _dot(self, left: bool, g, x, y, env):
        """``dot_grad_left(g, x, y)`` (or right) of ``np.dot`` of vectors, or of a matrix and
        a vector: the product the helper computes, one multiplication an element: ``g * y``
        (``g * x``), ``g[:, None] * y`` (``x[:, None] * g``)."""
        kx, ky, kg = (self.kind(n, env) for n in (x, y, g))
        if not (_array(kx) and _array(ky) and _known(kg)):
            return None
        if kx.ndim == ky.ndim == 1 and (kg.tag == "scalar" or kg.ndim == 0):
            return gast.BinOp(g, gast.Mult(), y if left else x)
        column = gast.Tuple([_whole(), gast.Constant(None, None)], gast.Load())
        if _array(kg) and kg.ndim == 1 and (kx.ndim, ky.ndim) == ((2, 1) if left else (1, 2)):
            return gast.BinOp(gast.Subscript(g if left else x, column, gast.Load()),
                              gast.Mult(), y if left else g)
        return None

    def _matmul(self, left: bool, g, x, y, env):
        """``matmul_grad_left(g, x, y)`` (or right) of stacks of matrices whose stacks
        broadcast nothing: ``g @ np.swapaxes(y, -1, -2)`` (``np.swapaxes(x, -1, -2) @ g``)."""
        kx, ky, kg = (self.kind(n, env) for n in (x, y, g))
        if not (_array(kx) and _array(ky) and _array(kg) and
                kx.ndim == ky.ndim == kg.ndim >= 3 and self._batch_alike(kx, ky)):
            return None
        swapped = gast.Call(gast.Attribute(gast.Name(self.numpy, gast.Load(), None, None),
                                           "swapaxes", gast.Load()),
                            [y if left else x, gast.Constant(-1, None),
                             gast.Constant(-2, None)], [])
        return gast.BinOp(g, gast.MatMult(), swapped) if left else \
            gast.BinOp(swapped, gast.MatMult(), g)

    def _transpose(self, g, axes=None, env=None):
        """``transpose_grad(g, axes)`` of an array, ``axes`` written out: ``np.transpose(g,
        inverse)``, the inverse permutation found here."""
        kind = self.kind(g, env)
        if not _array(kind):
            return None
        func = gast.Attribute(gast.Name(self.numpy, gast.Load(), None, None), "transpose",
                              gast.Load())
        if axes is None or isinstance(axes, gast.Constant) and axes.value is None:
            return gast.Call(func, [g], [])
        order = [_int(e) for e in axes.elts] if isinstance(axes, gast.Tuple) else [None]
        if None in order or sorted(order) != list(range(kind.ndim)):
            return None
        inverse = [order.index(a) for a in range(kind.ndim)]
        return gast.Call(func, [g, gast.Tuple([gast.Constant(a, None) for a in inverse],
                                              gast.Load())], [])
