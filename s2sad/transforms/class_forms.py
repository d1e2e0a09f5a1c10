"""Forms of Python's classes and objects written as plain ones before
:mod:`.local_objects` writes objects as variables: a subclass's ``super().__init__(...)``
as its base's ``__init__`` written in place, a class-method constructor ``p =
Layer.make(w)`` (whose body returns ``cls(...)``) as the constructor call it makes::

    class Child(Base):                          def __init__(self, w, b):
        def __init__(self, w, b):                   super__w = w * 2
            super().__init__(w * 2)      ->         self.w = super__w
            self.b = b                              self.b = b

    p = Layer.from_params(x[0])          ->     from_params__w = x[0]
                                                p = Layer(from_params__w * 3.0)

and ``dataclasses.replace(p, b=v)`` (:class:`Replaced`), a loop over a display of new
objects (:class:`ObjectLoops`), a dict or list of them read by keys
(:class:`NamedItems`), ``getattr(m, "w")`` (:class:`AttributesByName`).
Python evaluates the arguments in the order written, binds them to the parameters, then
runs the body: the same values, in the same order. Anything else is left as it was.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import textwrap

import gast
import numpy as np

from .. import trees

_ABSENT = object()  # (a name neither module has: a builtin, the same in both)


def _fresh(base: str, taken: set) -> str:
    """``base``, or ``base_2``, ``base_3``... the first not in ``taken``, then taken.

    >>> taken = {"p__w"}
    >>> _fresh("p__w", taken), _fresh("p__w", taken), sorted(taken)
    ('p__w_2', 'p__w_3', ['p__w', 'p__w_2', 'p__w_3'])
    """
    fresh, k = base, 1
    while fresh in taken:
        k += 1
        fresh = f"{base}_{k}"
    taken.add(fresh)
    return fresh


def _name(name: str, store: bool = False):
    return gast.Name(name, gast.Store() if store else gast.Load(), None, None)


def _params(fdef) -> list | None:
    """``[(name, default)]`` of a method's parameters after ``self`` (``_ABSENT`` where it
    has no default); None where a default is not a constant of plain data. Python
    evaluates a default once, where the ``def`` runs: a constant is the same value at each
    call, so it is written out where the call leaves it out.

    >>> fdef = gast.parse("def f(self, w, b=0.5, k=-2, s=None): pass").body[0]
    >>> _params(fdef)[1:]
    [('b', 0.5), ('k', -2), ('s', None)]
    >>> _params(gast.parse("def f(self, w=[]): pass").body[0]) is None
    True
    """
    args = fdef.args.args[1:]
    values = []
    for default in fdef.args.defaults:
        negative = isinstance(default, gast.UnaryOp) and isinstance(default.op, gast.USub)
        if negative:
            default = default.operand
        if not isinstance(default, gast.Constant) or not _data(default.value) or \
                negative and type(default.value) not in (int, float):
            return None
        values.append(-default.value if negative else default.value)
    if len(values) > len(args):
        return None
    return [(a.id, _ABSENT) for a in args[:len(args) - len(values)]] + \
        [(a.id, v) for a, v in zip(args[len(args) - len(values):], values)]


def _data(value) -> bool:
    """Is ``value`` a class attribute read as it is (a number, a string, None, a tuple of
    them), never a function that ``self.f`` would bind, nor an array a method could change?"""
    if isinstance(value, tuple):
        return all(_data(v) for v in value)
    return value is None or type(value) in (int, float, complex, bool, str) or \
        isinstance(value, np.number)


def _constructor(value) -> bool:
    return isinstance(value, classmethod) and inspect.isfunction(value.__func__)




def _is_super_init(stmt) -> bool:
    """Is ``stmt`` ``super().__init__(...)``, a statement of its own?"""
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and \
        isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "__init__" and \
        isinstance(stmt.value.func.value, gast.Call) and \
        isinstance(stmt.value.func.value.func, gast.Name) and \
        stmt.value.func.value.func.id == "super" and not stmt.value.func.value.args and \
        not stmt.value.func.value.keywords


def super_init_inlined(methods: dict, inherited: dict) -> bool:
    """Each ``super().__init__(a, k=b)`` at the top level of ``methods["__init__"]`` as
    the base's ``__init__`` (``inherited``'s) written there: the arguments evaluated in
    the order written, each given to a fresh variable of the parameter's, then the base's
    statements, its ``self`` the method's, its variables renamed apart. False where
    ``super`` is read otherwise, or the call does not match the base's parameters (left
    to the refusal).

    >>> child = gast.parse("def __init__(self, w, b):\\n    super().__init__(w * 2)\\n"
    ...                    "    self.b = b").body[0]
    >>> base = gast.parse("def __init__(me, w, k=1.0):\\n    me.w = w * k").body[0]
    >>> super_init_inlined({"__init__": child}, {"__init__": base})
    True
    >>> print(gast.unparse(child).strip())
    def __init__(self, w, b):
        super__w = w * 2
        super__k = 1.0
        self.w = super__w * super__k
        self.b = b
    """
    init = methods.get("__init__")
    for fdef in methods.values():
        calls = [s for s in fdef.body if _is_super_init(s)] if fdef is init else []
        if len(calls) != sum(isinstance(n, gast.Name) and n.id == "super"
                             for n in trees.walk(fdef)):
            return False  # (super read otherwise: not modelled)
    base = inherited.get("__init__")
    if init is None or not any(_is_super_init(s) for s in init.body):
        return True
    params = _params(base) if base is not None and base.args.args else None
    if params is None or any(isinstance(n, (gast.ListComp, gast.SetComp, gast.DictComp,
                                            gast.GeneratorExp, gast.Lambda, gast.NamedExpr))
                             for n in trees.walk(base)):
        return False
    used = {n.id for f in (init, base) for n in trees.walk(f) if isinstance(n, gast.Name)}
    local = ({a.id for a in base.args.args[1:]} | trees.assigned_names(base)) - \
        {base.args.args[0].id}
    free = {n.id for n in trees.walk(base) if isinstance(n, gast.Name)} - local - \
        {base.args.args[0].id}
    if free & trees.assigned_names(init):
        return False  # (a name of the module's the base reads, the method's variable)
    body = []
    for stmt in init.body:
        if not _is_super_init(stmt):
            body.append(stmt)
            continue
        call = stmt.value
        names = [n for n, _ in params]
        if len(call.args) > len(names) or \
                any(isinstance(a, gast.Starred) for a in call.args) or \
                any(k.arg not in names[len(call.args):] for k in call.keywords) or \
                len({k.arg for k in call.keywords}) != len(call.keywords):
            return False
        rename = {base.args.args[0].id: init.args.args[0].id}
        for name in sorted(local):
            fresh = _fresh(f"super__{name}", used)
            rename[name] = fresh
        given = list(zip(names, call.args)) + [(k.arg, k.value) for k in call.keywords]
        given += [(n, gast.Constant(d, None)) for n, d in params
                  if n not in dict(given) and d is not _ABSENT]
        if {n for n, _ in given} != set(names):
            return False  # (an argument missing: Python raises TypeError)
        body += [trees.located(gast.Assign([_name(rename[n], True)], value, None), stmt)
                 for n, value in given]
        for inner in base.body:
            inner = trees.clone(inner)
            for n in trees.walk(inner):
                if isinstance(n, gast.Name) and n.id in rename:
                    n.id = rename[n.id]
            body.append(inner)
    init.body = body
    return True


def _rewritten_block(form, body) -> list:
    """``body`` with each statement, in its blocks too (not a nested def's), replaced by
    what ``form.written`` makes of it (the statement itself where it gives nothing)."""
    out = []
    for stmt in body:
        for name in ("body", "orelse"):
            if isinstance(getattr(stmt, name, None), list) and \
                    not isinstance(stmt, gast.FunctionDef):
                setattr(stmt, name, form.block(getattr(stmt, name)))
        out += form.written(stmt) or [stmt]
    return out


class Constructors:
    """``p = Layer.make(a, b)``, ``make`` a class method of a class written as variables
    whose body returns ``cls(e, ...)``: ``make__w = a`` and ``make__k = b`` (Python
    evaluates the arguments, then binds them), then ``p = Layer(e, ...)``, its parameters
    read from those variables and ``cls`` as ``Layer``: the object Python makes."""

    def __init__(self, fdef, source, local: set, modelled):
        self.source, self.local = source, local
        self.modelled = modelled  # (a class -> its methods where written as variables)
        self.taken = {n.id for n in trees.walk(fdef) if isinstance(n, gast.Name)}

    def block(self, body) -> list:
        return _rewritten_block(self, body)

    def method(self, call):
        """``(class, its class method's FunctionDef, its module's names)``, else None."""
        func = call.func
        if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)) or \
                func.value.id in self.local:
            return None
        try:
            cls = self.source.resolve(func.value.id)
        except KeyError:
            return None
        if not isinstance(cls, type):
            return None
        value = next((vars(k)[func.attr] for k in cls.__mro__ if func.attr in vars(k)), None)
        if not _constructor(value) or self.modelled(cls) is None:
            return None
        theirs = getattr(sys.modules.get(value.__func__.__module__ or ""), "__dict__", None)
        try:
            tree = gast.parse(textwrap.dedent(inspect.getsource(value.__func__))).body[0]
        except (OSError, TypeError, SyntaxError):
            return None
        if theirs is None or not isinstance(tree, gast.FunctionDef) or \
                len(tree.decorator_list) != 1 or not isinstance(tree.decorator_list[0],
                                                                gast.Name) or \
                tree.decorator_list[0].id != "classmethod":
            return None
        return cls, tree, theirs

    def written(self, stmt) -> list | None:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)):
            return None
        call = stmt.value
        found = self.method(call)
        if found is None:
            return None
        cls, tree, theirs = found
        args = tree.args
        body = tree.body[1:] if len(tree.body) == 2 and isinstance(tree.body[0], gast.Expr) \
            and isinstance(tree.body[0].value, gast.Constant) else tree.body
        params = _params(tree) if args.args else None
        if params is None or args.vararg or args.kwarg or args.kwonlyargs or \
                args.posonlyargs or len(body) != 1 or not isinstance(body[0], gast.Return) or \
                not isinstance(body[0].value, gast.Call):
            return None
        me, value = args.args[0].id, body[0].value
        names = [n for n, _ in params]
        if not isinstance(value.func, gast.Name) or value.func.id != me or \
                any(isinstance(n, (gast.Lambda, gast.NamedExpr, gast.ListComp, gast.SetComp,
                                   gast.DictComp, gast.GeneratorExp, gast.Starred))
                    for n in trees.walk(value)) or \
                any(k.arg is None for k in value.keywords) or \
                any(isinstance(a, gast.Starred) for a in call.args) or \
                len(call.args) > len(names) or \
                any(k.arg not in names[len(call.args):] for k in call.keywords) or \
                len({k.arg for k in call.keywords}) != len(call.keywords):
            return None
        free = {n.id for n in trees.walk(value) if isinstance(n, gast.Name)} - set(names) - {me}
        if any(n in self.local or theirs.get(n, _ABSENT) is not
               self.source.globals.get(n, _ABSENT) for n in free):
            return None  # (a name meaning something else here)
        given = list(zip(names, call.args)) + [(k.arg, k.value) for k in call.keywords]
        given += [(n, gast.Constant(d, None)) for n, d in params
                  if n not in dict(given) and d is not _ABSENT]
        if {n for n, _ in given} != set(names):
            return None  # (an argument missing: Python raises TypeError)
        rename = {me: call.func.value.id}
        for name in names:
            fresh = _fresh(f"{tree.name.strip('_')}__{name}", self.taken)
            rename[name] = fresh
        out = [trees.located(gast.Assign([_name(rename[n], True)], v, None), stmt)
               for n, v in given]
        value = trees.clone(value)
        for n in trees.walk(value):
            if isinstance(n, gast.Name) and n.id in rename:
                n.id = rename[n.id]
            if isinstance(n, (gast.expr, gast.Slice)):
                gast.copy_location(n, call)  # (at the line that calls it)
        made = trees.located(gast.Assign([stmt.targets[0]], value, None), stmt)
        return out + [made]


class ObjectLoops:
    """``for layer in [Dense(w), Scale(s)]: h = layer(h)`` at the function's top level,
    each item a new object of a class whose ``__init__`` only stores its arguments
    (``self.w = w``), written out item by item::

        layer__0 = w                      (the arguments, evaluated first, in order)
        layer__1 = s
        layer = Dense(layer__0)
        h = layer(h)
        layer = Scale(layer__1)
        h = layer(h)

    Python makes every object before the first turn; making each at its turn instead,
    from the arguments already evaluated, gives objects holding the same values, since
    such an ``__init__`` computes nothing. A list given a name (``layers = [...]``) that
    only one such loop reads is written so too. A body with ``break``, ``continue``,
    ``return`` or an ``else`` is left as it was. Such a named list read only as an
    argument of a call later in the block (``m = Seq(layers)``) is that display there,
    its arguments evaluated where the list was (``m = Seq([A(layers__0), B(2.0)])``).

    >>> tree = gast.parse("def f(x):\\n    for m in [A(x), A(2.0)]:\\n        x = m(x)\\n"
    ...                   "    return x").body[0]
    >>> loops = ObjectLoops(tree, lambda call: isinstance(call.func, gast.Name))
    >>> print(gast.unparse(gast.Module(loops.block(tree.body), [])).strip())
    m__0 = x
    m = A(m__0)
    x = m(x)
    m = A(2.0)
    x = m(x)
    return x
    """

    def __init__(self, fdef, storing):
        self.storing = storing  # a call -> does it make an object of such a class?
        self.fdef = fdef
        nodes = trees.walk(fdef)
        self.taken = {n.id for n in nodes if isinstance(n, gast.Name)}
        late = [f for f in nodes if isinstance(f, (gast.Lambda, gast.FunctionDef))
                and f is not fdef]
        self.late = {n.id for f in late for n in trees.walk(f) if isinstance(n, gast.Name)}

    def _items(self, node) -> list | None:
        if isinstance(node, (gast.List, gast.Tuple)) and node.elts and all(
                isinstance(e, gast.Call) and not e.keywords and
                not any(isinstance(a, gast.Starred) for a in e.args) and self.storing(e)
                for e in node.elts):
            return node.elts
        return None

    def _loop(self, stmt) -> bool:
        return isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name) and \
            not stmt.orelse and stmt.target.id not in self.late and not any(
                isinstance(n, (gast.Break, gast.Continue, gast.Return, gast.Yield,
                               gast.YieldFrom, gast.FunctionDef, gast.Lambda))
                for s in stmt.body for n in trees.walk(s))

    @staticmethod
    def _passed(stmt, named, reads):
        """The name of a display of ``named`` that ``stmt``, ``v = f(..., name, ...)``,
        passes on, read nowhere else; else None."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)
                and isinstance(stmt.value.func, gast.Name)):
            return None
        return next((a for a in stmt.value.args if isinstance(a, gast.Name) and
                     a.id in named and reads[a.id] == 1), None)

    def block(self, body) -> list:
        named = {}  # a name given a display of objects -> its statement
        stores = {}
        for n in trees.walk(self.fdef):
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
        for stmt in body:
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and \
                    self._items(stmt.value) is not None and \
                    stores.get(stmt.targets[0].id) == 1 and \
                    stmt.targets[0].id not in self.late:
                named[stmt.targets[0].id] = stmt
        reads = {}
        for n in trees.walk(self.fdef):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in named:
                reads[n.id] = reads.get(n.id, 0) + 1
        loops = {}  # id of a loop -> the statement that made its objects
        for i, stmt in enumerate(body):
            if self._loop(stmt) and isinstance(stmt.iter, gast.Name) and \
                    stmt.iter.id in named and reads[stmt.iter.id] == 1 and \
                    body.index(named[stmt.iter.id]) < i:
                loops[id(stmt)] = named[stmt.iter.id]
            elif self._passed(stmt, named, reads) is not None and \
                    body.index(named[self._passed(stmt, named, reads).id]) < i:
                loops[id(stmt)] = named[self._passed(stmt, named, reads).id]
            elif self._loop(stmt) and self._items(stmt.iter) is not None:
                loops[id(stmt)] = stmt
        made = {id(s) for s in loops.values()}
        out, calls = [], {}
        for stmt in body:
            if id(stmt) in made:
                loop = next(s for s in body if loops.get(id(s)) is stmt)
                var = loop.target.id if isinstance(loop, gast.For) else stmt.targets[0].id
                written = []
                between = body[body.index(stmt) + 1:body.index(loop)]
                bound = {n.id for s in between for n in trees.walk(s)
                         if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
                for call in self._items(stmt.value if stmt is not loop else stmt.iter):
                    args = []
                    for arg in call.args:
                        if isinstance(arg, gast.Constant) or not isinstance(loop, gast.For) \
                                and isinstance(arg, gast.Name) and arg.id not in bound:
                            args.append(arg)  # (the same object where the call is)
                            continue
                        k = 0
                        while f"{var}__{k}" in self.taken:
                            k += 1
                        self.taken.add(f"{var}__{k}")
                        out.append(trees.located(gast.Assign([_name(f"{var}__{k}", True)],
                                                             arg, None), stmt))
                        args.append(gast.copy_location(_name(f"{var}__{k}"), arg))
                    written.append(gast.copy_location(gast.Call(call.func, args, []), call))
                calls[id(loop)] = written
                if stmt is not loop:
                    continue  # (the list: its objects made at the loop)
            if id(stmt) in loops and not isinstance(stmt, gast.For):
                arg = self._passed(stmt, named, reads)
                stmt.value.args = [gast.copy_location(gast.List(calls[id(stmt)], gast.Load()),
                                                      a) if a is arg else a
                                   for a in stmt.value.args]
                out.append(stmt)
                continue
            if id(stmt) in loops:
                for call in calls[id(stmt)]:
                    out.append(trees.located(gast.Assign([_name(stmt.target.id, True)], call,
                                                         None), stmt))
                    out += trees.clone(stmt.body)
                continue
            out.append(stmt)
        return out


class Replaced:
    """``q = dataclasses.replace(p, b=e)``, ``p`` given only objects of one plain
    dataclass made here (``p = P(...)``): ``replace__b = e``, then ``q = P(p.w,
    replace__b)``. Python evaluates the changes, reads each field not changed from ``p``,
    and calls ``p``'s class with them all: the same object."""

    def __init__(self, fdef, source, local: set, fields):
        self.fdef, self.source, self.local = fdef, source, local
        self.fields = fields  # a class -> its [(field, default)] where a plain dataclass
        self.taken = {n.id for n in trees.walk(fdef) if isinstance(n, gast.Name)}

    def block(self, body) -> list:
        return _rewritten_block(self, body)

    def _replace(self, call) -> bool:
        """Is ``call`` ``dataclasses.replace(v, name=e, ...)``, ``v`` a name?"""
        func = call.func
        dotted = func.id if isinstance(func, gast.Name) else \
            f"{func.value.id}.{func.attr}" if isinstance(func, gast.Attribute) and \
            isinstance(func.value, gast.Name) else None
        root = dotted.split(".")[0] if dotted else None
        try:
            value = self.source.resolve(root) if root and root not in self.local else None
        except KeyError:
            value = None
        if dotted and "." in dotted:
            value = getattr(value, dotted.split(".")[1], None)
        return value is dataclasses.replace and len(call.args) == 1 and \
            isinstance(call.args[0], gast.Name) and all(k.arg is not None
                                                        for k in call.keywords)

    def _class_of(self, var: str):
        """``(the class's name here, its fields)`` where every value ``var`` is given is an
        object made by one plain dataclass called by name, else None."""
        stores, made = 0, set()
        for n in trees.walk(self.fdef):
            if isinstance(n, gast.Name) and n.id == var and not isinstance(n.ctx, gast.Load):
                stores += 1  # (a parameter too, or a store of another kind)
            if isinstance(n, gast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], gast.Name) and n.targets[0].id == var:
                stores -= 1
                value = n.value
                if isinstance(value, gast.Call) and self._replace(value) and \
                        value.args[0].id == var:
                    continue  # (p = replace(p, ...): p's class again)
                made.add(value.func.id if isinstance(value, gast.Call) and
                         isinstance(value.func, gast.Name) and
                         value.func.id not in self.local else None)
        if stores or len(made) != 1 or None in made:
            return None
        name = made.pop()
        try:
            cls = self.source.resolve(name)
        except KeyError:
            return None
        fields = self.fields(cls)
        return (name, fields) if fields is not None else None

    def written(self, stmt) -> list | None:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)):
            return None
        call = stmt.value
        func = call.func
        if not self._replace(call):
            return None
        found = self._class_of(call.args[0].id)
        if found is None:
            return None
        name, fields = found
        names = [f for f, _ in fields]
        if any(k.arg not in names for k in call.keywords) or \
                len({k.arg for k in call.keywords}) != len(call.keywords):
            return None  # (Python raises TypeError)
        out, given = [], {}
        for keyword in call.keywords:
            fresh = _fresh(f"replace__{keyword.arg}", self.taken)
            out.append(trees.located(gast.Assign([_name(fresh, True)], keyword.value, None),
                                     stmt))
            given[keyword.arg] = fresh
        args = [gast.copy_location(_name(given[f]), call) if f in given else
                gast.copy_location(gast.Attribute(_name(call.args[0].id), f, gast.Load()),
                                   call) for f in names]
        made = gast.copy_location(gast.Call(gast.copy_location(_name(name), func), args, []),
                                  call)
        return out + [trees.located(gast.Assign([stmt.targets[0]], made, None), stmt)]


class NamedItems:
    """``layers = {"a": Dense(w), "b": Scale(s)}`` (or a list of them), read only as
    ``layers["a"]`` by keys it has (``layers[0]``: an index it has): one variable per
    item, ``layers__a = Dense(w)``, ``layers__b = Scale(s)``, made where the display
    made them, in its order, and each ``layers["a"]`` read as ``layers__a``. Nothing else
    sees the dict or the list, so this is the same object under another name.

    >>> tree = gast.parse("def f(x):\\n    d = {'a': A(x), 'b': B(x)}\\n"
    ...                   "    return d['a'](x) + d['b'].w").body[0]
    >>> print(gast.unparse(NamedItems(tree, lambda call: True).visit(tree)).strip())
    def f(x):
        d__a = A(x)
        d__b = B(x)
        return d__a(x) + d__b.w
    """

    def __init__(self, fdef, making):
        self.fdef, self.making = fdef, making  # making: a call -> makes an object?
        self.taken = {n.id for n in trees.walk(fdef) if isinstance(n, gast.Name)}

    def _keys(self, value) -> list | None:
        if isinstance(value, gast.Dict) and value.keys and all(
                isinstance(k, gast.Constant) and isinstance(k.value, str) and
                k.value.isidentifier() for k in value.keys) and \
                len({k.value for k in value.keys}) == len(value.keys):
            return [k.value for k in value.keys], value.values
        if isinstance(value, (gast.List, gast.Tuple)) and value.elts and \
                not any(isinstance(e, gast.Starred) for e in value.elts):
            return list(range(len(value.elts))), value.elts
        return None

    def visit(self, fdef):
        stores, reads = {}, {}
        nodes = trees.walk(fdef)  # (nothing changes before _ItemsWritten: one walk)
        for n in nodes:
            if isinstance(n, gast.Name):
                table = reads if isinstance(n.ctx, gast.Load) else stores
                table.setdefault(n.id, []).append(n)
        late = {n.id for f in nodes if isinstance(f, (gast.Lambda, gast.FunctionDef))
                and f is not fdef for n in trees.walk(f) if isinstance(n, gast.Name)}
        held = {id(n.value): n for n in nodes if isinstance(n, gast.Subscript)}
        names = {}
        for stmt in nodes:
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                    isinstance(stmt.targets[0], gast.Name)):
                continue
            var, found = stmt.targets[0].id, self._keys(stmt.value)
            if found is None or len(stores.get(var, ())) != 1 or var in late or \
                    not all(isinstance(v, gast.Call) and self.making(v) for v in found[1]):
                continue
            keys = found[0]
            subscripts = [held.get(id(n)) for n in reads.get(var, ())]
            if not subscripts or any(
                    s is None or not isinstance(s.ctx, gast.Load) or
                    not isinstance(s.slice, gast.Constant) or type(s.slice.value) not in
                    (str, int) or s.slice.value not in keys for s in subscripts):
                continue  # (read otherwise, or by a key it does not have: Python raises)
            made = {k: f"{var}__{k}" for k in keys}
            if any(m in self.taken for m in made.values()):
                continue
            self.taken |= set(made.values())
            names[id(stmt)] = (made, found[1])
            for s in subscripts:
                s.named = made[s.slice.value]
        if not names:
            return fdef
        return _ItemsWritten(names).visit(fdef)


class _ItemsWritten(trees.Transformer):
    """The displays of :class:`NamedItems` as one assignment per item; their reads as
    the item's variable."""

    def __init__(self, names):
        self.names = names

    def visit_Subscript(self, node):
        if getattr(node, "named", None) is not None:
            return gast.copy_location(_name(node.named), node)
        return self.generic_visit(node)

    def visit_Assign(self, node):
        if id(node) not in self.names:
            return self.generic_visit(node)
        made, values = self.names[id(node)]
        return [trees.located(gast.Assign([_name(name, True)], self.visit(value), None), node)
                for name, value in zip(made.values(), values, strict=True)]


class AttributesByName(trees.Transformer):
    """``getattr(m, "w")`` (Python's builtin, a constant name) as ``m.w``, which Python
    reads the same way, so that an object read so is read by attribute.

    >>> tree = gast.parse("w = getattr(m, 'w') + getattr(m, name)")
    >>> print(gast.unparse(AttributesByName(lambda name: True).visit(tree)).strip())
    w = m.w + getattr(m, name)
    """

    def __init__(self, builtin):
        self.builtin = builtin  # a free name -> is it Python's builtin?

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id == "getattr" and \
                self.builtin("getattr") and len(node.args) == 2 and not node.keywords and \
                isinstance(node.args[0], gast.Name) and \
                isinstance(node.args[1], gast.Constant) and \
                isinstance(node.args[1].value, str) and node.args[1].value.isidentifier() and \
                not node.args[1].value.startswith("__"):  # (no private name to mangle)
            return gast.copy_location(gast.Attribute(node.args[0], node.args[1].value,
                                                     gast.Load()), node)
        return node


# --- an object held by another's attribute, and a method calling another ----------------------

def _self_call(node, me: str, names) -> str | None:
    """The method of ``names`` that ``node`` calls as ``me.m(...)``, else None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
            isinstance(node.func.value, gast.Name) and node.func.value.id == me and \
            node.func.attr in names and not node.keywords and \
            not any(isinstance(a, gast.Starred) for a in node.args):
        return node.func.attr
    return None


def self_calls_hoisted(methods: dict, hoisting) -> bool:
    """Each ``self.m(...)``, ``m`` another method of the class (not ``__init__``), in a
    method other than ``__init__``, taken out into a statement of its own, ``t =
    self.m(...)`` (``hoisting``: :class:`.local_objects._Hoisting`, every operand Python
    evaluates before the call kept in a variable before it). False where a call stays
    inside an expression (``c and self.m(h)``), ``__init__`` calls one, ``self.m`` is
    read otherwise, or the calls go round (a method that calls itself): left to the
    refusal. A method then calls another as a function of the attributes
    (:func:`.local_objects._as_function`).

    >>> methods = {n: gast.parse(t).body[0] for n, t in [
    ...     ("__init__", "def __init__(self, w):\\n    self.w = w"),
    ...     ("f", "def f(self, h):\\n    return self.w * h"),
    ...     ("g", "def g(self, h):\\n    return self.f(h) + 1.0")]}
    >>> from s2sad.transforms.local_objects import _Hoisting
    >>> self_calls_hoisted(methods, _Hoisting)
    True
    >>> print(gast.unparse(methods["g"]).strip())
    def g(self, h):
        _self__h0 = self.f(h)
        return _self__h0 + 1.0
    """
    names = set(methods) - {"__init__"}
    calls = {}
    for name, fdef in methods.items():
        if not fdef.args.args:
            return True
        me = fdef.args.args[0].id
        found = {_self_call(n, me, names) for n in trees.walk(fdef)} - {None}
        funcs = {id(n.func) for n in trees.walk(fdef) if _self_call(n, me, names)}
        if any(isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name) and
               n.value.id == me and n.attr in methods and id(n) not in funcs
               for n in trees.walk(fdef)):
            return False  # (self.m read, not called: a bound method)
        if found and name == "__init__":
            return False
        calls[name] = found
    if not any(calls.values()):
        return True
    seen, done = set(), set()

    def cycle(name) -> bool:
        if name in done:
            return False
        if name in seen:
            return True
        seen.add(name)
        if any(cycle(c) for c in calls[name]):
            return True
        done.add(name)
        return False

    if any(cycle(n) for n in calls):
        return False
    for name, fdef in methods.items():
        if not calls[name]:
            continue
        me = fdef.args.args[0].id
        body = hoisting({me: names}).body([trees.clone(s) for s in fdef.body])
        if any(_self_call(n, me, names) and not _stated(n, body) for n in
               (n for s in body for n in trees.walk(s))):
            return False  # (a call kept inside an expression)
        fdef.body = body
    return True


def _stated(call, body) -> bool:
    """Is ``call`` the value of a statement of its own in ``body`` (or its blocks):
    ``self.m(h)`` or ``t = self.m(h)``?"""
    for stmt in body:
        if isinstance(stmt, (gast.Expr, gast.Assign)) and stmt.value is call and (
                isinstance(stmt, gast.Expr) or len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name)):
            return True
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list) and _stated(call,
                                                                         getattr(stmt, field)):
                return True
    return False


def held_objects_inlined(cls, methods: dict, class_methods) -> dict:
    """An object of a plain class held by an attribute, ``self.inner = Inner(w)`` at
    the top level of ``__init__`` (and set nowhere else), whose attributes are read as
    ``self.inner.w`` and whose methods are called as ``self.inner.f(h)`` or
    ``self.inner(h)`` only: ``Inner.__init__`` written there, its attributes the
    holder's ``self.inner__w``, and each of its methods one of the holder's,
    ``inner__f`` (its ``self.w`` read as ``self.inner__w``). ``{attribute: the held
    class's methods}`` of those written so (none where anything else reads it: left
    to the refusal). Python's object holds the same values, changed by the same calls.

    >>> ms = {n: gast.parse(t).body[0] for n, t in [
    ...     ("__init__", "def __init__(self, w):\\n    self.a = Inner(w)"),
    ...     ("__call__", "def __call__(self, h):\\n    return self.a(h) * self.a.w")]}
    >>> inner = {n: gast.parse(t).body[0] for n, t in [
    ...     ("__init__", "def __init__(me, v):\\n    me.w = v * 2.0"),
    ...     ("__call__", "def __call__(me, h):\\n    return me.w * h")]}
    >>> import types
    >>> class Inner: pass
    >>> class Outer: pass
    >>> module = sys.modules["held_demo"] = types.ModuleType("held_demo")
    >>> Inner.__module__ = Outer.__module__ = "held_demo"
    >>> module.Inner = Inner
    >>> sorted(held_objects_inlined(Outer, ms, lambda c: inner))
    ['a']
    >>> print(gast.unparse(ms["__init__"]).strip())
    def __init__(self, w):
        a__v = w
        self.a__w = a__v * 2.0
    >>> print(gast.unparse(ms["__call__"]).strip())
    def __call__(self, h):
        return self.a____call__(h) * self.a__w
    >>> print(gast.unparse(ms["a____call__"]).strip())
    def a____call__(me, h):
        return me.a__w * h
    >>> del sys.modules["held_demo"]
    """
    init = methods.get("__init__")
    module = getattr(sys.modules.get(cls.__module__ or ""), "__dict__", None)
    if init is None or not init.args.args or module is None:
        return {}
    me = init.args.args[0].id
    done, at = {}, 0
    while at < len(init.body):
        stmt, at = init.body[at], at + 1
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Attribute) and
                isinstance(stmt.targets[0].value, gast.Name) and
                stmt.targets[0].value.id == me and isinstance(stmt.value, gast.Call) and
                isinstance(stmt.value.func, gast.Name) and not stmt.value.keywords and
                not any(isinstance(a, gast.Starred) for a in stmt.value.args)):
            continue
        attr, held = stmt.targets[0].attr, module.get(stmt.value.func.id)
        if not isinstance(held, type) or held is cls or held.__module__ != cls.__module__ or \
                stmt.value.func.id in trees.assigned_names(init) | \
                {a.id for a in init.args.args}:
            continue
        inner = class_methods(held)
        if inner is None or getattr(inner, "properties", None) or \
                {n for n, v in vars(held).items() if not n.startswith("__") and
                 not inspect.isfunction(v)}:
            continue  # (a property, a class attribute: read from the class, not here)
        written = _held_written(attr, stmt, at - 1, methods, inner)
        if written is not None:
            init.body[at - 1:at] = written
            at += len(written) - 1
            done[attr] = inner
    return done


def _held_written(attr, stmt, at: int, methods, inner) -> list | None:
    """(:func:`held_objects_inlined` for ``stmt``, ``self.attr = Name(...)``, statement
    ``at`` of ``__init__``: the statements in its place, the methods changed; None,
    nothing changed, where ``self.attr`` is read otherwise.)"""
    inner_init = inner.get("__init__")
    params = _params(inner_init) if inner_init is not None and inner_init.args.args else None
    if params is None or len(stmt.value.args) > len(params) or \
            any(isinstance(n, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
                               gast.Lambda, gast.NamedExpr)) for n in trees.walk(inner_init)):
        return None
    given = list(zip([n for n, _ in params], stmt.value.args)) + \
        [(n, gast.Constant(d, None)) for n, d in params[len(stmt.value.args):]
         if d is not _ABSENT]
    if len(given) != len(params):
        return None  # (an argument missing: Python raises TypeError)
    names = set(inner) - {"__init__"}
    if any(isinstance(n, gast.Attribute) and n.attr.startswith(f"{attr}__")
           for f in methods.values() for n in trees.walk(f)):
        return None  # (a name the held attributes would take)
    changed, handing = {}, []
    for key, fdef in methods.items():  # (self.attr read only as self.attr.w, .f(h), (h))
        me = fdef.args.args[0].id if fdef.args.args else None
        if key != "__init__" and _hands_out(fdef, attr):
            handing.append(key)  # (o.get() read as o.attr where it is called: see
            continue             # .object_helpers; a call left is of no method here)
        fdef = trees.clone(fdef)
        skip = id(fdef.body[at].targets[0]) if key == "__init__" else None
        holders = {}
        for node in trees.walk(fdef):
            for field in ("value", "func"):
                part = getattr(node, field, None)
                if isinstance(part, gast.Attribute) and isinstance(part.value, gast.Name) \
                        and part.value.id == me and part.attr == attr:
                    holders[id(part)] = (node, field)
        for node in trees.walk(fdef):
            if not (isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and
                    node.value.id == me and node.attr == attr):
                continue
            if id(node) == skip:
                continue
            if id(node) not in holders:
                return None  # (self.attr itself: passed on, returned, set again)
            parent, field = holders[id(node)]
            if field == "value" and isinstance(parent, gast.Attribute) and \
                    isinstance(parent.ctx, gast.Load):  # (self.attr.w, self.attr.f)
                parent.value = gast.copy_location(_name(me), node)
                parent.attr = f"{attr}__{parent.attr}"
            elif field == "func" and isinstance(parent, gast.Call) and "__call__" in names:
                parent.func = gast.copy_location(gast.Attribute(
                    _name(me), f"{attr}____call__", gast.Load()), node)
            else:
                return None
        changed[key] = fdef
    for key, fdef in changed.items():  # (self.attr.w read only where Inner sets w: checked
        methods[key].body = fdef.body  # by the state of the holder's methods, later)
    for key in handing:
        del methods[key]
    for key, fdef in inner.items():
        if key == "__init__" or not fdef.args.args:
            continue
        made = _renamed_self(trees.clone(fdef), attr, names)
        made.name = f"{attr}__{key}"
        made.source_file = getattr(fdef, "source_file", None)
        made.class_line = getattr(fdef, "class_line", None)
        methods[made.name] = made
    init = methods["__init__"]
    taken = {n.id for f in methods.values() for n in trees.walk(f) if isinstance(n, gast.Name)}
    rename = {}
    for local in sorted(({a.id for a in inner_init.args.args[1:]} |
                         trees.assigned_names(inner_init)) - {inner_init.args.args[0].id}):
        fresh = _fresh(f"{attr}__{local}", taken)
        rename[local] = fresh
    out = [trees.located(gast.Assign([_name(rename[n], True)], v, None), stmt)
           for n, v in given]
    body = _renamed_self(trees.clone(inner_init), attr, names, init.args.args[0].id).body
    for node in (n for s in body for n in trees.walk(s)):
        if isinstance(node, gast.Name) and node.id in rename:
            node.id = rename[node.id]
    return out + [s for s in body if not (isinstance(s, gast.Expr) and
                                          isinstance(s.value, gast.Constant))]


def _hands_out(fdef, attr: str) -> bool:
    """Is ``fdef`` ``def get(self): return self.attr`` (a docstring allowed)?"""
    body = fdef.body[1:] if len(fdef.body) > 1 and isinstance(fdef.body[0], gast.Expr) and \
        isinstance(fdef.body[0].value, gast.Constant) else fdef.body
    args = fdef.args
    return len(args.args) == 1 and not (args.vararg or args.kwarg or args.kwonlyargs or
                                        args.posonlyargs or fdef.decorator_list) and \
        len(body) == 1 and isinstance(body[0], gast.Return) and \
        isinstance(body[0].value, gast.Attribute) and body[0].value.attr == attr and \
        isinstance(body[0].value.value, gast.Name) and \
        body[0].value.value.id == args.args[0].id


def _renamed_self(fdef, attr, names, me=None):
    """``fdef`` (a method of the held class) with ``self.w`` as ``me.attr__w`` and
    ``self.f(...)`` as ``me.attr__f(...)`` (``me``: its own ``self`` where None)."""
    own = fdef.args.args[0].id
    me = me or own
    for node in trees.walk(fdef):
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                node.value.id == own:
            node.value = gast.copy_location(_name(me), node.value)
            node.attr = f"{attr}__{node.attr}"
    return fdef
