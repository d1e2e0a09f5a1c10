"""``np.vectorize(f)(a)`` and ``np.apply_along_axis(f, axis, a)`` written as the loops
they are.

NumPy's ``vectorize`` calls ``f`` on each item of its broadcast arguments, as Python
objects (a float64 array's items as floats), and gathers the results in an array of the
arguments' broadcast shape, of the first result's dtype (or of ``otypes``). So::

    y = np.vectorize(f)(a)         vec_1 = a
                                   vec_3 = [f(vec_2.item()) for vec_2 in np.ravel(vec_1)]
                                   if np.asarray(vec_3[0]).dtype != np.asarray(vec_3).dtype:
                                       raise TypeError(...)
                                   vec_4 = np.reshape(np.asarray(vec_3), np.shape(vec_1))
                                   y = vec_4

and the rest of the compiler differentiates ``f`` item by item, as it does any function
of the user's (a ``def`` or a lambda), or refuses it at its line. Where the first
result's dtype is not the others' (``0`` then floats: NumPy would cut every item to an
integer), the call raises a ``TypeError`` that says so rather than differ from NumPy;
``otypes=[float]`` (one dtype written as a constant) gives the dtype instead. Held in a
name (``vf = np.vectorize(f)``, given once, only called), it is written so at each call.

``np.apply_along_axis(f, axis, a)`` calls ``f`` on each 1-d slice of ``a`` along
``axis`` (a view, the other axes walked in C order by ``np.ndindex``) and puts the results,
of the first one's dtype, where that axis was (:data:`_ALONG`); a bad axis and an empty
walk raise NumPy's errors. ``f`` given more arguments (``*args``, ``**kwargs``) is left as
it was.

The call must be one no other call in its statement runs before (``y = vf(a)``,
``return np.sum(vf(a) * a)``), so that taking it out of the statement keeps Python's
order. ``excluded={1}`` (or ``{"s"}``, constants) passes those arguments to ``f`` as
they are, at each call, and walks the others. ``signature="(n),(n)->()"`` (one output)
calls ``f`` on the core axes of each argument (its last ones) at every place of their
broadcast loop axes, NumPy's checks of the core sizes written out; ``cache=`` and several
outputs are left as they were (refused later).

>>> import gast, numpy as np
>>> from s2sad.codegen import unparse
>>> tree = gast.parse("def f(x):\\n    return np.sum(np.vectorize(g)(x))").body[0]
>>> out = VectorizedCalls(lambda f: np.vectorize if unparse(f).strip() == "np.vectorize"
...                       else None, "np", lambda name: True).visit(tree)
>>> print(unparse(out).split("raise")[0].strip())
def f(x):
    vec_1 = x
    vec_3 = [g(vec_2.item()) for vec_2 in np.ravel(vec_1)]
    if np.asarray(vec_3[0]).dtype != np.asarray(vec_3).dtype:
"""

from __future__ import annotations

import gast
import numpy as np

from .. import registry, trees

_DTYPES = {"float": "float", "complex": "complex", "d": "float", "f8": "float",
           "float64": "float"}


def _name(name: str, store: bool = False):
    return gast.Name(name, gast.Store() if store else gast.Load(), None, None)


def _call(func, *args):
    return gast.Call(func, list(args), [])


class VectorizedCalls(trees.Transformer):
    """``np.vectorize(f)(a)`` as a comprehension over ``a``'s items (see the module);
    ``callee(func)``: the object a call's function expression names, else None;
    ``builtin(name)``: does ``name`` stand for Python's builtin there?"""

    def __init__(self, callee, numpy_name: str, builtin):
        self.callee, self.numpy_name, self.builtin = callee, numpy_name, builtin
        self.changed = False

    def _np(self, attr: str):
        return gast.Attribute(_name(self.numpy_name), attr, gast.Load())

    def visit_FunctionDef(self, node):
        if getattr(self, "taken", None) is not None:
            return node  # (a function defined inside: done where it is inlined)
        nodes = trees.walk(node)  # (read by _held too: nothing changes before _block)
        self.taken = {n.id for n in nodes if isinstance(n, gast.Name)}
        self.counter = 0
        self.held = self._held(nodes)
        self.functions = {}  # a held name -> the name its lambda is given
        if not self.held and not any(n.__class__ is gast.Call and self._vectorized(n)
                                     is not None for n in nodes):
            return node  # (no vectorized call anywhere: no statement to go through)
        node.body = self._block(node.body)
        read = {n.id for n in trees.walk(node) if isinstance(n, gast.Name) and
                isinstance(n.ctx, gast.Load)} if self.held else set()
        for name in set(self.held) - read:  # (every call written out: vf = np.vectorize(f)
            node.body = _without(node.body, name)  # itself is gone; else it stays, refused)
        return node

    def _fresh(self) -> str:
        while True:
            self.counter += 1
            name = f"vec_{self.counter}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def _made(self, value):
        """``(f, otype)`` of ``np.vectorize(f)`` or ``np.vectorize(f, otypes=[float])``,
        else None (other keywords: left as they are)."""
        if not (isinstance(value, gast.Call) and self.callee(value.func) is np.vectorize and
                len(value.args) == 1 and not isinstance(value.args[0], gast.Starred)):
            return None
        otype, excluded, signature = None, frozenset(), None
        for k in value.keywords:
            if k.arg == "signature" and isinstance(k.value, gast.Constant) and \
                    isinstance(k.value.value, str):
                signature = _signature(k.value.value)
                if signature is None:
                    return None
                continue
            if k.arg == "excluded" and isinstance(k.value, (gast.List, gast.Tuple, gast.Set)) \
                    and all(isinstance(e, gast.Constant) and type(e.value) in (int, str)
                            for e in k.value.elts):
                excluded = frozenset(e.value for e in k.value.elts)
                continue
            if k.arg != "otypes" or not isinstance(k.value, (gast.List, gast.Tuple, gast.Constant)):
                return None
            items = k.value.elts if not isinstance(k.value, gast.Constant) else [k.value]
            if len(items) != 1:
                return None
            item = items[0]
            key = item.value if isinstance(item, gast.Constant) else \
                item.id if isinstance(item, gast.Name) and self.builtin(item.id) else \
                item.attr if isinstance(item, gast.Attribute) and \
                self.callee(item) in (np.float64, np.complex128) else None
            otype = _DTYPES.get(key) if isinstance(key, str) else None
            if otype is None:
                return None
        if signature is not None and (otype is not None or excluded):
            return None
        return value.args[0], (signature if signature is not None else otype), excluded

    def _held(self, nodes: list) -> dict:
        """``{vf: (f, otype)}`` of names given ``np.vectorize(f)`` once and only called
        (``nodes``: the function's walk)."""
        stores: dict = {}
        for n in nodes:
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
        held = {}
        for s in nodes:
            if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                    isinstance(s.targets[0], gast.Name) and stores[s.targets[0].id] == 1 and \
                    (made := self._made(s.value)) is not None and \
                    (isinstance(made[0], gast.Lambda) or isinstance(made[0], gast.Name) and
                     made[0].id not in stores):  # (a name the function changes: its value
                # when vectorize is called, not at each call)
                held[s.targets[0].id] = (s, made)
        if not held:
            return {}
        called = {id(c.func) for c in nodes if isinstance(c, gast.Call)}
        return {name: made for name, (s, made) in held.items() if all(
            id(n) in called for n in nodes if isinstance(n, gast.Name) and
            n.id == name and isinstance(n.ctx, gast.Load))}

    def _block(self, body) -> list:
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(getattr(stmt, field, None), list) and \
                        not isinstance(stmt, gast.FunctionDef):
                    setattr(stmt, field, self._block(getattr(stmt, field)))
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in self.held:
                f = self.held[stmt.targets[0].id][0]
                if isinstance(f, gast.Lambda):  # (vf = np.vectorize(lambda t: ...): the
                    name = self.functions[stmt.targets[0].id] = self._fresh()  # lambda
                    out.append(_everywhere(gast.Assign([_name(name, True)], trees.clone(f),
                                                       None), stmt))  # held by a name)
                out.append(stmt)  # (vf = np.vectorize(g): each call reads g)
                continue
            if isinstance(stmt, (gast.Assign, gast.Expr, gast.Return, gast.AugAssign)):
                out.extend(self._statement(stmt))
            else:
                out.append(stmt)
        return out

    def _vectorized(self, call):
        """``(f, otype, excluded)`` where ``call`` is ``np.vectorize(f)(...)`` or
        ``vf(...)``."""
        if isinstance(call.func, gast.Name) and call.func.id in self.held:
            f, otype, excluded = self.held[call.func.id]
            return (_name(self.functions[call.func.id]) if isinstance(f, gast.Lambda) else
                    trees.clone(f)), otype, excluded
        if self._along(call):
            return call.args[0], None, frozenset()
        return self._made(call.func) if isinstance(call.func, gast.Call) else None

    def _along(self, call) -> bool:
        """Is ``call`` ``np.apply_along_axis(f, axis, a)`` (f a name or a lambda)?"""
        return self.callee(call.func) is np.apply_along_axis and len(call.args) == 3 and \
            not call.keywords and isinstance(call.args[0], (gast.Name, gast.Lambda))

    def _statement(self, stmt) -> list:
        """``stmt``, after the statements that compute each of its vectorized calls, in
        the order Python makes them; ``[stmt]`` as it was where one cannot be taken out
        (a call of the user's runs before it, which could change what it reads)."""
        made = []
        while True:
            order = [n for n in _evaluated(stmt) if isinstance(n, gast.Call)]
            call = next((c for c in order if self._vectorized(c) is not None), None)
            if call is None:
                return made + [stmt]
            _, otype, excluded = self._vectorized(call)
            if isinstance(otype, tuple) and len(call.args) != len(otype[0]):
                return made + [stmt]  # (NumPy raises TypeError: left to the refusal)
            if (any(k.arg not in excluded for k in call.keywords) or all(
                    i in excluded for i in range(len(call.args)))) and not self._along(call) or \
                    any(isinstance(a, gast.Starred) for a in call.args) or \
                    not all(self._pure(c) for c in order[:order.index(call)]
                            if c not in list(trees.walk(call))):
                return made + [stmt]  # (the call left as it was: refused later)
            made.extend(self._written(call, stmt))
            stmt = _Replace(call, _name(self.result)).visit(stmt)

    def _along_axis(self, f, axis, a) -> list:
        """``np.apply_along_axis(f, axis, a)`` as NumPy computes it: ``f`` on each 1-d
        slice along ``axis`` (in C order of the other axes), the results stacked where
        that axis was, of the first result's dtype."""
        names = {key: self._fresh() for key in ("ax", "arr", "moved", "rest", "row",
                                                 "outs", "stacked", "joined")}
        names["result"] = self.result = self._fresh()
        return _along_axis_statements(names, f, axis, a, self.numpy_name)

    def _with_signature(self, f, signature, given) -> list:
        """``np.vectorize(f, signature="(n),()->(n)")(a, b)`` as NumPy computes it: the
        arguments' loop axes (before their core axes) broadcast, ``f`` called on the core
        of each at every place of the loop, in C order; the results stacked there, of the
        first one's dtype. A core axis of one name has one size (else NumPy's
        ``ValueError``); a result of another number of axes, or of core sizes differing
        from the first one's, raises rather than broadcast."""
        ins, out = signature
        args = [self._fresh() for _ in given]
        lines = [f"{a} = A{k}__" for k, a in enumerate(args)]
        sizes = {}  # a core axis's name -> the first place it is read
        for k, (a, core) in enumerate(zip(args, ins)):
            lines.append(f"if np.ndim({a}) < {len(core)}:\n    raise ValueError("
                         f"'%d-dimensional argument does not have enough dimensions for all "
                         f"core dimensions %r' % (np.ndim({a}), {tuple(core)!r}))")
            for j, dim in enumerate(core):
                here = f"np.shape({a})[np.ndim({a}) - {len(core) - j}]"
                if dim in sizes:
                    lines.append(f"if {here} != {sizes[dim]}:\n    raise ValueError("
                                 f"'inconsistent size for core dimension %r: %r vs %r' % "
                                 f"({dim!r}, {here}, {sizes[dim]}))")
                else:
                    sizes[dim] = here
        loop, outs, row, stacked = (self._fresh() for _ in range(4))
        lines.append(f"{loop} = np.broadcast_shapes(" + "".join(
            f"np.shape({a})[:np.ndim({a}) - {len(core)}], " for a, core in zip(args, ins)) + ")")
        spread = [self._fresh() for _ in args]
        lines += [f"{s} = np.broadcast_to({a}, {loop} + np.shape({a})[np.ndim({a}) - "
                  f"{len(core)}:])" for s, a, core in zip(spread, args, ins)]
        lines.append(f"{outs} = [np.asarray(F__(" + ", ".join(f"{s}[{row}]" for s in spread) +
                     f")) for {row} in np.ndindex({loop})]")
        lines.append(f"if len({outs}) == 0:\n    raise ValueError('cannot call `vectorize` on "
                     "size 0 inputs unless `otypes` is set')")
        first = f"np.shape({outs}[0])"
        bound = ", ".join(sizes.get(d, f"{first}[{j}]") for j, d in enumerate(out))
        each = self._fresh()
        lines.append(f"if any(np.shape({each}) != ({bound}{',' if len(out) == 1 else ''}) "
                     f"for {each} in {outs}):\n    raise ValueError('np.vectorize: a result "
                     f"whose core shape is not the signature\\'s ({', '.join(out)}), or "
                     "not the first one\\'s (NumPy would broadcast it or raise); s2sad does "
                     "not write that')")
        lines.append(f"{stacked} = np.stack({outs})")
        lines.append(f"if {outs}[0].dtype != {stacked}.dtype:\n    raise TypeError("
                     "'np.vectorize: the first item\\'s result has another dtype than the "
                     "others\\' (NumPy would cast every result to it); s2sad does not write "
                     "that cast. Return one type, or give otypes=[float]')")
        self.result = self._fresh()
        lines.append(f"{self.result} = np.reshape({stacked}, {loop} + {first})")
        text = "\n".join(lines).replace("np.", f"{self.numpy_name}.")
        body = gast.parse(text).body
        values = {f"A{k}__": g for k, g in enumerate(given)}
        values["F__"] = f

        class _Put(gast.NodeTransformer):
            def visit_Name(self, node):
                return trees.clone(values[node.id]) if node.id in values else node
        return [_Put().visit(s) for s in body]

    def _pure(self, call) -> bool:
        """Is ``call`` a function with a rule entry (NumPy's, math's, ``len``) that changes
        none of the arguments it is given?"""
        func = self.callee(call.func)
        try:
            rule, facts = registry.lookup(func), registry.facts(func)
        except TypeError:  # (an unhashable value)
            return False
        given = {k.arg for k in call.keywords}
        changed = [m for m in (facts.mutates if facts is not None else ())
                   if m in given or isinstance(m, int) and m < len(call.args)]
        return rule is not None and not changed  # (np.sum(v, out=w) changes w)

    def _written(self, call, stmt) -> list:
        """The statements computing ``call``, its result named ``self.result``."""
        f, otype, excluded = self._vectorized(call)
        made = []
        if isinstance(f, gast.Lambda):
            held = self._fresh()
            made.append(gast.Assign([_name(held, True)], f, None))
            f = _name(held)
        if self._along(call):
            made.extend(self._along_axis(f, call.args[1], call.args[2]))
            self.changed = True
            return [_everywhere(s, stmt) for s in made]
        if isinstance(otype, tuple):  # (a signature: f on the core of each argument)
            made.extend(self._with_signature(f, otype, call.args))
            self.changed = True
            return [_everywhere(s, stmt) for s in made]
        given = []  # (each argument, in Python's order: excluded ones passed as they are)
        for a in call.args + [k.value for k in call.keywords]:
            given.append(self._fresh())
            made.append(gast.Assign([_name(given[-1], True)], a, None))
        args = [a for i, a in enumerate(given[:len(call.args)]) if i not in excluded]
        if len(args) > 1:  # (their broadcast: the items f is called on)
            shape = self._fresh()
            made.append(gast.Assign([_name(shape, True)], _call(
                self._np("broadcast_shapes"), *[_call(self._np("shape"), _name(a))
                                                for a in args]), None))
            spread = [self._fresh() for _ in args]
            made.extend(gast.Assign([_name(n, True)], _call(
                self._np("broadcast_to"), _name(a), _name(shape)), None)
                for n, a in zip(spread, args, strict=True))
            args = spread
        items = [self._fresh() for _ in args]
        outs = self._fresh()
        target = gast.Tuple([_name(n, True) for n in items], gast.Store()) if len(items) > 1 \
            else _name(items[0], True)
        walked = _call(_name("zip"), *[_call(self._np("ravel"), _name(a)) for a in args]) \
            if len(args) > 1 else _call(self._np("ravel"), _name(args[0]))
        walked_items = iter(items)
        value = _call(f, *[_name(a) if i in excluded else _call(gast.Attribute(
            _name(next(walked_items)), "item", gast.Load()))
            for i, a in enumerate(given[:len(call.args)])])
        value.keywords = [gast.keyword(k.arg, _name(a)) for k, a in
                          zip(call.keywords, given[len(call.args):], strict=True)]
        made.append(gast.Assign([_name(outs, True)], gast.ListComp(
            value, [gast.comprehension(target, walked, [], 0)]), None))
        gathered = _call(self._np("asarray"), _name(outs))
        if otype is None:
            first = _call(self._np("asarray"), gast.Subscript(
                _name(outs), gast.Constant(0, None), gast.Load()))
            test = gast.Compare(gast.Attribute(first, "dtype", gast.Load()), [gast.NotEq()],
                                [gast.Attribute(trees.clone(gathered), "dtype", gast.Load())])
            message = gast.Constant(
                "np.vectorize: the first item's result has another dtype than the others' "
                "(NumPy would cast every result to it); s2sad does not write that cast. "
                "Return one type, or give otypes=[float]", None)
            made.append(gast.If(test, [gast.Raise(_call(_name("TypeError"), message), None)],
                                []))
        else:
            gathered.keywords = [gast.keyword("dtype", _name(otype))]
        result = self._fresh()
        made.append(gast.Assign([_name(result, True)], _call(
            self._np("reshape"), gathered, _call(self._np("shape"), _name(args[0]))), None))
        self.changed = True
        self.result = result
        return [_everywhere(s, stmt) for s in made]


_ALONG = """\
{ax} = {axis}
{arr} = np.asarray({a})
if not -np.ndim({arr}) <= {ax} < np.ndim({arr}):
    raise np.exceptions.AxisError({ax}, np.ndim({arr}))
{ax} = {ax} % np.ndim({arr})
{moved} = np.moveaxis({arr}, {ax}, -1)
{rest} = np.shape({moved})[:-1]
{outs} = [np.asarray({f}({moved}[{row}])) for {row} in np.ndindex({rest})]
if len({outs}) == 0:
    raise ValueError('Cannot apply_along_axis when any iteration dimensions are 0')
{stacked} = np.stack({outs})
if {outs}[0].dtype != {stacked}.dtype:
    raise TypeError({message!r})
{joined} = np.reshape({stacked}, {rest} + np.shape({outs}[0]))
{result} = np.transpose({joined}, list(range({ax})) + list(range(len({rest}), len({rest}) + \
    np.ndim({outs}[0]))) + list(range({ax}, len({rest}))))
"""


def _signature(text: str):
    """``([["n"], []], ["n"])`` of ``"(n),()->(n)"``: each input's core axes' names, and
    the one output's; None for another form (several outputs)."""
    import re
    dims = r"\(\s*(?:\w+\s*(?:,\s*\w+\s*)*)?\)"
    match = re.fullmatch(rf"\s*({dims}(?:\s*,\s*{dims})*)\s*->\s*({dims})\s*", text)
    if match is None:
        return None
    inputs = [[d.strip() for d in part.split(",") if d.strip()]
              for part in re.findall(r"\(([^)]*)\)", match.group(1))]
    output = [d.strip() for d in match.group(2)[1:-1].split(",") if d.strip()]
    return (tuple(tuple(i) for i in inputs), tuple(output))


def _evaluated(stmt) -> list:
    """The nodes of ``stmt`` in the order Python computes them: an operand before the
    operation (a call's arguments before the call), left before right, a value before the
    target it is stored in."""
    out = []

    def visit(node):
        if isinstance(node, gast.Assign):
            visit(node.value)
            for t in node.targets:
                visit(t)
            return
        if isinstance(node, gast.AugAssign):
            visit(node.target)
            visit(node.value)
            return
        for _, value in gast.iter_fields(node):
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, gast.AST):
                    visit(item)
        out.append(node)

    visit(stmt)
    return out


def _without(body, name) -> list:
    """``body`` without the statement ``name = ...`` (at any depth)."""
    out = []
    for stmt in body:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name:
            continue
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, _without(getattr(stmt, field), name))
        out.append(stmt)
    return out


def _everywhere(tree, where):
    """``tree`` with every node placed at ``where`` (the user's line)."""
    for node in trees.walk(tree):
        if isinstance(node, (gast.expr, gast.stmt)):
            gast.copy_location(node, where)
    return trees.located(tree, where)


def _along_axis_statements(names: dict, f, axis, a, numpy_name: str) -> list:
    """The statements of :data:`_ALONG`, ``f``, ``axis`` and ``a`` put in."""
    text = _ALONG.format(f="F__", axis="AXIS__", a="A__", message=(
        "np.apply_along_axis: the first slice's result has another dtype than the "
        "others' (NumPy would cast every result to it); s2sad does not write that cast. "
        "Return one type from the function"), **names).replace("np.", f"{numpy_name}.")
    body = gast.parse(text).body
    given = {"F__": f, "AXIS__": axis, "A__": a}

    class Put(trees.Transformer):
        def visit_Name(self, node):
            return trees.clone(given[node.id]) if node.id in given else node
    return [Put().visit(s) for s in body]


class _Replace(trees.Transformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit_Call(self, node):
        if node is self.old:
            return gast.copy_location(self.new, node)
        return self.generic_visit(node)
