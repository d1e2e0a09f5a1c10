"""Which arrays keep one shape on every pass of their loop: a fixed point over the loops.

The tape saves ``shape_of(t_5)`` pass by pass where the reverse sweep reads ``t_5`` for
its shape alone. Where every value of ``t_5`` has one shape, the value the loop left
serves every pass, and nothing is saved. ``fixed_shapes`` proves that by running the
function on shapes instead of values: each axis is a *key* (an invariant length, the
same on every pass) or unknown, and a loop's passes are run until the carried shapes
repeat.

>>> import gast, numpy
>>> from s2sad.transforms.kinds import Kind
>>> fn = gast.parse('''def rnn(W, xs):
...     t_1 = W.shape
...     t_2 = t_1[0]
...     h = np.zeros(t_2)
...     for t in range(xs.shape[0]):
...         t_5 = W @ h
...         h = np.tanh(t_5 + xs[t])
...     return h''').body[0]
>>> kinds = {"W": Kind("array", "W", 2, ones=()), "xs": Kind("array", "xs", 2, ones=()),
...          "t_5": Kind("array", "t_5", 1)}
>>> sorted(fixed_shapes(fn, kinds, {"np": numpy}.__getitem__))
['W', 't_5', 'xs']

(``t_5 = W @ h`` has the shape ``(W.shape[0],)`` whatever the length of ``h``; ``h`` is
left out: assigned twice.) A shape that changes from the first pass to the second keeps
its tape: ``h = h + x`` turns ``h`` of shape (1,) into (3,) on the first pass, and so
``h * c`` with it.

>>> fn = gast.parse('''def f(x, c):
...     h = np.ones(1)
...     for t in range(3):
...         z = h * c
...         h = np.sin(z + x)
...     return h''').body[0]
>>> kinds = {"x": Kind("array", "x", 1), "c": Kind("array", "c", 1),
...          "z": Kind("array", "z", 1)}
>>> sorted(fixed_shapes(fn, kinds, {"np": numpy}.__getitem__))
['c', 'x']

The model of each operation is NumPy's rule for the shape of its result, where it does not
raise: ``a + b`` broadcasts (a length that is not 1 is the result's, whatever the
other), ``a @ b`` takes ``a``'s rows and ``b``'s columns, ``x[i]`` at an integer drops the
first axis, a ufunc of one argument keeps its shape. Anything else is unknown.
"""

from __future__ import annotations

import dataclasses
import inspect

import gast
import numpy

from .. import registry, trees
from .shape_only import ELEMENTWISE

_INTEGER_OPS = (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)
_HEADS = 4   # distinct states at a loop's head before they are joined


@dataclasses.dataclass(frozen=True)
class Dim:
    """An axis whose length is the same wherever the key is: the broadcast of ``keys``
    (each a length fixed for the whole call; the empty set is the length 1).
    ``not_one``: the length is known not to be 1 (so broadcasting leaves it)."""
    keys: frozenset
    not_one: bool = False


ONE = Dim(frozenset())


@dataclasses.dataclass(frozen=True)
class Val:
    """What is known of a value: ``shape`` (an array's or a number's, ``()``; a tuple of
    ``Dim`` or None per axis, None: not known to be either), ``index`` (a Python int,
    never a bool, with its value as a ``Dim`` or None), ``dims`` (a tuple of ints:
    ``x.shape``)."""
    shape: tuple | None = None
    index: bool = False
    value: Dim | None = None
    dims: tuple | None = None


TOP = Val()


def _join_dim(a, b):
    if a == b:
        return a
    return None


def _join_axes(a, b):
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(_join_dim(x, y) for x, y in zip(a, b, strict=True))


def join(a: Val, b: Val) -> Val:
    """What holds of a value that is ``a`` or ``b``."""
    if a == b:
        return a
    return Val(_join_axes(a.shape, b.shape), a.index and b.index,
               _join_dim(a.value, b.value) if a.index and b.index else None,
               _join_axes(a.dims, b.dims))


def _join_envs(a: dict, b: dict) -> dict:
    """Names bound on one path alone keep what that path says: read on the other, the
    name is unbound, and Python raises."""
    out = dict(a)
    for name, val in b.items():
        out[name] = join(out[name], val) if name in out else val
    return out


def _broadcast_dim(a, b):
    if a is None or b is None:
        known = b if a is None else a
        return known if known is not None and known.not_one else None
    return Dim(a.keys | b.keys, a.not_one or b.not_one)


def broadcast(a, b):
    """The broadcast shape of shapes ``a`` and ``b`` (None: not known)."""
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    a, b = (ONE,) * (n - len(a)) + a, (ONE,) * (n - len(b)) + b
    return tuple(_broadcast_dim(x, y) for x, y in zip(a, b, strict=True))


def matmul(a, b):
    """The shape of ``a @ b`` (NumPy's rule, where it does not raise)."""
    if a is None or b is None or not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return ()
    if len(a) == 1:
        return b[:-2] + b[-1:]
    if len(b) == 1:
        return a[:-1]
    batch = broadcast(a[:-2], b[:-2])
    return None if batch is None else batch + (a[-2], b[-1])


def fixed(val: Val | None) -> bool:
    """Is every axis of ``val``'s shape a key (the same length wherever it is)?"""
    return val is not None and val.shape is not None and all(d is not None for d in val.shape)


class _Shapes:
    """The walk: statements in order, ``if`` as the join of its branches, a loop as the
    states at its head until one repeats. ``seen``: id of an assignment -> the join of
    the values it assigned."""

    def __init__(self, node, kinds: dict, resolve, builtin_range: bool):
        self.kinds = kinds
        self.resolve = resolve
        self.builtin_range = builtin_range
        self.local = {n.id for n in trees.walk(node) if isinstance(n, gast.Name) and
                      isinstance(n.ctx, gast.Store)}
        self.seen: dict[int, Val] = {}
        self.before: dict[str, Val] = {}   # name -> the join of its values before a
        # statement in a loop rebinds it (what a loop's tape saves)
        self.depth = 0

    def function(self, node) -> dict:
        env = {}
        for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
            if isinstance(arg, gast.Name):
                env[arg.id] = self.parameter(arg.id)
        return self.block(node.body, env)

    def parameter(self, name: str) -> Val:
        kind = self.kinds.get(name)
        if kind is None:
            return TOP
        if kind.tag == "scalar":
            return Val(())
        if kind.tag != "array" or kind.ndim is None:
            return TOP
        return Val(tuple(ONE if kind.ones is not None and axis in kind.ones else
                         Dim(frozenset({("arg", name, axis)}), kind.ones is not None)
                         for axis in range(kind.ndim)))

    # --- statements ---------------------------------------------------------------------

    def block(self, stmts, env: dict) -> dict:
        for stmt in stmts:
            if self.depth:
                for name in sorted({n.id for n in trees.walk(stmt) if isinstance(
                        n, gast.Name) and isinstance(n.ctx, gast.Store)}):
                    val = env.get(name, TOP)
                    self.before[name] = join(self.before[name], val) \
                        if name in self.before else val
            env = self.statement(stmt, env)
        return env

    def statement(self, stmt, env: dict) -> dict:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name):
            name = stmt.targets[0].id
            val = self.expr(stmt.value, env)
            if self.kinds.get(name) is not None and self.kinds[name].tag == "scalar" and \
                    val.shape is None:
                val = dataclasses.replace(val, shape=())   # (a number, whatever its value)
            if self.depth == 0:   # (run once: its unknown lengths are fixed for the call)
                val = self.once(val, stmt)
            self.seen[id(stmt)] = join(self.seen[id(stmt)], val) if id(stmt) in self.seen \
                else val
            return {**self.matched(stmt.value, env), name: val}
        if isinstance(stmt, gast.If):
            return _join_envs(self.block(stmt.body, dict(env)),
                              self.block(stmt.orelse, dict(env)))
        if isinstance(stmt, (gast.For, gast.While)) and not stmt.orelse and not any(
                isinstance(n, (gast.Break, gast.Continue, gast.Try, gast.With))
                for s in stmt.body for n in trees.walk(s)):
            return self.loop(stmt, env)
        if isinstance(stmt, (gast.Expr, gast.Pass, gast.Return)) or \
                isinstance(stmt, gast.Assign) and all(
                    isinstance(t, gast.Subscript) for t in stmt.targets):
            return env   # (x[i] = v keeps x's shape; a name bound to x has x's array)
        stored = {n.id for n in trees.walk(stmt) if isinstance(n, gast.Name) and
                  isinstance(n.ctx, gast.Store)}
        for n in trees.walk(stmt):   # (anything else: what it binds is not known)
            if isinstance(n, gast.Assign):
                self.seen[id(n)] = TOP
        return {**env, **dict.fromkeys(stored, TOP)}

    def matched(self, value, env: dict) -> dict:
        """``env`` after ``a @ b`` ran without raising: NumPy's matmul raises unless
        ``a``'s last axis and ``b``'s core axis have one length, so ``b`` (or ``a``, where
        only ``b``'s is known) takes the other's.

        >>> walk = _Shapes(gast.parse("def f(W, h): pass").body[0], {}, None, True)
        >>> W, h = Dim(frozenset({"W1"})), Dim(frozenset({"h0"}))
        >>> walk.matched(gast.parse("W @ h").body[0].value,
        ...              {"W": Val((W, W)), "h": Val((h,))})["h"].shape == (W,)
        True
        """
        if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.MatMult)):
            return env
        a, b = self.expr(value.left, env).shape, self.expr(value.right, env).shape
        if not a or not b:
            return env
        core = -2 if len(b) >= 2 else 0
        if a[-1] is not None and a[-1] != b[core] and isinstance(value.right, gast.Name):
            shape = list(b)
            shape[core] = a[-1]
            return {**env, value.right.id: Val(tuple(shape))}
        if a[-1] is None and b[core] is not None and isinstance(value.left, gast.Name):
            return {**env, value.left.id: Val(a[:-1] + (b[core],))}
        return env

    def once(self, val: Val, stmt) -> Val:
        """A value computed once per call: an axis of unknown length is a key of its own."""
        def key(axis):
            return Dim(frozenset({("once", id(stmt), axis)}))
        if val.shape is not None:
            val = dataclasses.replace(val, shape=tuple(
                d if d is not None else key(axis) for axis, d in enumerate(val.shape)))
        if val.index and val.value is None:
            val = dataclasses.replace(val, value=key("value"))
        return val

    def loop(self, stmt, env: dict) -> dict:
        """The states at the loop's head, pass after pass, until one repeats (the passes
        after it repeat theirs); past ``_HEADS`` states, their join until it is stable."""
        self.depth += 1
        try:
            heads = [env]
            while True:
                out = self.block(stmt.body, self.turn(stmt, heads[-1]))
                if out in heads:
                    break
                heads.append(out)
                if len(heads) > _HEADS:
                    state = heads[0]
                    for other in heads[1:]:
                        state = _join_envs(state, other)
                    while True:
                        out = _join_envs(state, self.block(stmt.body, self.turn(stmt, state)))
                        if out == state:
                            break
                        state = out
                    heads = [state]
                    break
            state = heads[0]
            for other in heads[1:]:
                state = _join_envs(state, other)
            return self.turn(stmt, state) if isinstance(stmt, gast.For) else state
        finally:
            self.depth -= 1

    def turn(self, stmt, env: dict) -> dict:
        """``env`` with the loop's target bound: the counter of a ``for`` over Python's
        ``range`` is an int."""
        if isinstance(stmt, gast.While):
            return env
        it = stmt.iter
        counter = isinstance(stmt.target, gast.Name) and isinstance(it, gast.Call) and \
            isinstance(it.func, gast.Name) and it.func.id == "range" and \
            self.builtin_range and "range" not in self.local
        stored = {n.id for n in trees.walk(stmt.target) if isinstance(n, gast.Name)}
        out = {**env, **dict.fromkeys(stored, TOP)}
        if counter:
            out[stmt.target.id] = Val((), index=True)
        return out

    # --- expressions --------------------------------------------------------------------

    def expr(self, node, env: dict) -> Val:
        if isinstance(node, gast.Constant):
            if type(node.value) is int:
                return Val((), True, ONE if node.value == 1 else
                           Dim(frozenset({("int", node.value)}), True))
            return Val(()) if type(node.value) is float else TOP
        if isinstance(node, gast.Name):
            return env.get(node.id, TOP)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            val = self.expr(node.operand, env)
            return Val(val.shape) if val.shape is not None else TOP
        if isinstance(node, gast.BinOp):
            return self.binop(node, env)
        if isinstance(node, gast.Attribute) and node.attr == "shape":
            val = self.expr(node.value, env)
            return Val(dims=val.shape) if val.shape is not None else TOP
        if isinstance(node, gast.Subscript):
            return self.subscript(node, env)
        if isinstance(node, gast.Call):
            return self.call(node, env)
        return TOP

    def binop(self, node, env: dict) -> Val:
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        if left.shape is None or right.shape is None:
            return TOP
        if isinstance(node.op, gast.MatMult):
            return Val(matmul(left.shape, right.shape))
        if not isinstance(node.op, ELEMENTWISE):
            return TOP
        if left.index and right.index and isinstance(node.op, _INTEGER_OPS):
            value = None if left.value is None or right.value is None else Dim(frozenset({
                (type(node.op).__name__, left.value, right.value)}))
            return Val((), True, value)
        return Val(broadcast(left.shape, right.shape))

    def subscript(self, node, env: dict) -> Val:
        base, index = self.expr(node.value, env), node.slice
        if base.dims is not None and isinstance(index, gast.Constant) and \
                type(index.value) is int and -len(base.dims) <= index.value < len(base.dims):
            return Val((), True, base.dims[index.value])
        if base.shape and self.expr(index, env).index:
            return Val(base.shape[1:])
        return TOP

    def function_of(self, node):
        """The function a call's name or attribute stands for, or None."""
        if isinstance(node, gast.Name):
            if node.id in self.local:
                return None
            try:
                return self.resolve(node.id)
            except KeyError:
                return None
        if isinstance(node, gast.Attribute):
            owner = self.function_of(node.value)
            return getattr(owner, node.attr, None) if owner is numpy else None
        return None

    def call(self, node, env: dict) -> Val:
        f = self.function_of(node.func)
        if f is None:
            return TOP
        args = [self.expr(a, env) for a in node.args]
        if isinstance(node.func, gast.Name) and f is len and len(args) == 1 and \
                not node.keywords and args[0].shape:
            return Val((), True, args[0].shape[0])
        facts = registry.facts(f) if not isinstance(f, numpy.ufunc) else None
        made = facts is not None and facts.shape_from == 0 and facts.builds
        like = facts is not None and facts.shaped_like == 0 and facts.allocates == "new"
        if not (made or like or isinstance(f, numpy.ufunc)):
            return TOP
        if isinstance(f, numpy.ufunc):
            if node.keywords or len(args) != f.nin or f.nout != 1:
                return TOP
            if f is numpy.matmul:  # (a gufunc: its core axes do not broadcast)
                return Val(matmul(args[0].shape, args[1].shape))
            if f.signature is not None:  # (np.vecdot...: core axes of their own)
                return TOP
            shape = args[0].shape
            for other in args[1:]:
                shape = broadcast(shape, other.shape)
            return Val(shape)
        if any(k.arg in (None, "shape") for k in node.keywords) or not args:
            return TOP
        if like:  # (np.zeros_like(a): a's shape, unless a shape is given by position)
            return Val(args[0].shape) if len(args) <= _shape_position(f) else TOP
        shape = args[0]
        if shape.index:
            return Val((shape.value,))
        if shape.dims is not None:
            return Val(shape.dims)
        if isinstance(node.args[0], gast.Tuple):
            items = [self.expr(e, env) for e in node.args[0].elts]
            if all(item.index for item in items):
                return Val(tuple(item.value for item in items))
        return TOP


def _shape_position(f) -> int:
    """The position of ``f``'s ``shape`` parameter (``np.zeros_like``'s 4), or 0 where its
    signature is not known: the positional arguments before it leave the shape alone."""
    try:
        names = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return 0
    return names.index("shape") if "shape" in names else len(names)


def fixed_shapes(node, kinds: dict, resolve, builtin_range: bool = True) -> set[str]:
    """The arrays of ``node`` (a function) assigned by one statement alone, or parameters
    never assigned, whose every value has one shape. ``resolve``: a free name's value
    (KeyError if none); ``builtin_range``: the name ``range`` is Python's own."""
    if any(isinstance(n, gast.Attribute) and (isinstance(n.ctx, gast.Store) or
                                             n.attr == "resize") for n in trees.walk(node)):
        return set()   # (x.shape = ..., x.resize(...): an array's shape changed in place)
    walk = _Shapes(node, kinds, resolve, builtin_range)
    env = walk.function(node)
    stores: dict[str, list] = {}
    for n in trees.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores.setdefault(n.id, []).append(n)
    params = {a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs
              if isinstance(a, gast.Name)}
    found = {name for name in params if name not in stores and fixed(env.get(name))}
    for n in trees.walk(node):   # (a parameter assigned once had the caller's value first)
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], gast.Name) and n.targets[0].id not in params and \
                len(stores[n.targets[0].id]) == 1 and fixed(walk.seen.get(id(n))):
            found.add(n.targets[0].id)
    return {name for name in found if kinds.get(name) is not None and
            kinds[name].tag == "array"}


def fixed_rows(node, kinds: dict, resolve, builtin_range: bool = True) -> set[str]:
    """The 1-d arrays of ``node`` (a function) rebound in a loop whose values before each
    statement that rebinds them there have one length: what a loop's tape saves of them,
    pass by pass, fits the rows of one 2-d array (the numba target's ``grid_tape``).

    >>> import gast, numpy
    >>> from s2sad.transforms.kinds import Kind
    >>> fn = gast.parse('''def rnn(W, xs):
    ...     t_1 = W.shape
    ...     t_2 = t_1[0]
    ...     h = np.zeros(t_2)
    ...     for t in range(xs.shape[0]):
    ...         t_5 = W @ h
    ...         h = np.tanh(t_5 + xs[t])
    ...     return h''').body[0]
    >>> kinds = {"W": Kind("array", "W", 2, ones=()), "xs": Kind("array", "xs", 2, ones=()),
    ...          "h": Kind("array", "h", 1), "t_5": Kind("array", "t_5", 1)}
    >>> sorted(fixed_rows(fn, kinds, {"np": numpy}.__getitem__))
    ['h']

    (``W @ h`` ran: ``h`` has as many items as ``W`` has columns. Without that product,
    ``h``'s length is ``W``'s rows broadcast with ``xs``'s columns from the second pass,
    not known to be the first pass's: ``h`` is left out.)
    """
    if any(isinstance(n, gast.Attribute) and (isinstance(n.ctx, gast.Store) or
                                             n.attr == "resize") for n in trees.walk(node)):
        return set()   # (x.shape = ..., x.resize(...): an array's shape changed in place)
    walk = _Shapes(node, kinds, resolve, builtin_range)
    walk.function(node)
    return {name for name, val in walk.before.items() if fixed(val) and len(val.shape) == 1
            and kinds.get(name) is not None and kinds[name].tag == "array"}
