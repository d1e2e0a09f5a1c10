"""An object of the user's class made inside the function, written as its attributes.

``acc = Acc(2.0)`` then ``acc.add(v)`` and ``acc.total``, where ``Acc``'s methods only
read and set ``self``'s attributes, becomes variables, one per attribute, and each method
a function of them that gives them back::

    def Acc__init__(scale):                 def Acc__add(self__scale, self__total, v):
        self__scale = scale                     self__total = self__total + self__scale * v
        self__total = 0.0                       return self__scale, self__total, None
        return self__scale, self__total, None

    acc__scale, acc__total, _ = Acc__init__(2.0)
    acc__scale, acc__total, _ = Acc__add(acc__scale, acc__total, v)
    ... acc__total ...

An attribute then holds what it held (the same array, changed in place as it was), and
each call sees the attributes as the last call left them: Python's values. It is done only
where that is all there is: a class of the function's module with no base but ``object``
(or one such class of its module, its ``super().__init__(...)`` written out: see
:mod:`.class_forms`), no properties or decorators but ``@staticmethod`` (``self.act(h)``
is ``Cls.act(h)``) and ``@classmethod`` (``Cls.make(w)`` returning ``cls(...)`` is that
call), whose ``__init__`` sets every attribute at its top level;
methods whose ``self`` is read only as ``self.attr`` of those, with no ``return`` in
``__init__``; a variable given only objects of that class, made in the function (at its
top level, in a loop or a branch: each ``acc = Acc(...)`` gives the variables new values,
as a new object would), and read only as ``acc.attr`` or in a call of a method that is a
statement of its own (``acc.add(v)``, ``y = acc.f(v)``). A class attribute of plain data
(``lr = 0.1``: a number, a string, a tuple of them) that nothing sets through an object
is read as Python reads it, from the class when the function runs: ``self.lr`` is
``Layer.lr``. A dataclass (mutable, with no ``__post_init__`` nor default factory) is
such a class, its ``__init__`` written from its fields; ``P(w=v, b=c)`` is ``P(v, c)``,
its defaults written out. A method called inside an expression (``acc.add(v) * 2``)
is first made a statement of its own, and ``layer(h)`` is ``layer.__call__(h)``.
A method's constant defaults are written out where a call leaves them out; a read-only
property whose getter returns an expression is that expression where it is read. An
attribute set by another method (``build()``) or from outside (``c.scale = 2.0``) is
one more variable where it is set before every read (Python raises AttributeError
otherwise). A variable given objects of two classes at the function's top level
(``layer = A(w)``, later ``layer = B(w)``) is one variable per object.
Anything else is left as it was (refused later).

>>> import gast
>>> tree = gast.parse("def f(x):\\n    acc = Acc(2.0)\\n    acc.add(x)\\n    return acc.total")
>>> methods = {name: gast.parse(text).body[0] for name, text in [
...     ("__init__", "def __init__(self, scale):\\n    self.scale = scale\\n    self.total = 0.0"),
...     ("add", "def add(self, v):\\n    self.total = self.total + self.scale * v")]}
>>> out = ObjectsAsVariables({"Acc": methods}).visit(tree.body[0])
>>> for line in gast.unparse(out).strip().splitlines()[-3:]:
...     print(line)
    acc__scale, acc__total, _acc__0 = Acc__init__(2.0)
    acc__scale, acc__total, _acc__1 = Acc__add(acc__scale, acc__total, x)
    return acc__total
"""

from __future__ import annotations

import builtins
import copy
import dataclasses
import functools
import inspect
import textwrap

import gast

from .. import trees
from ..errors import UnsupportedSyntaxError
from .class_forms import (_ABSENT, AttributesByName, Constructors, NamedItems, ObjectLoops,
                          Replaced, _constructor, _data, _is_super_init, _name, _params,
                          held_objects_inlined, self_calls_hoisted, super_init_inlined)

_COPIERS = {"__deepcopy__", "__copy__", "__getstate__", "__setstate__", "__reduce__",
            "__reduce_ex__", "__getnewargs__", "__getnewargs_ex__"}  # (copy's own protocol)
_ALLOWED = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
            "__firstlineno__", "__static_attributes__",
            "__slotnames__"}  # (copyreg's cache, set by the first copy of an object)


def _set_at_top(fdef) -> list:
    """The attributes of ``self`` that ``fdef`` sets at its top level, in order."""
    me = fdef.args.args[0].id if fdef.args.args else None
    out = []
    for stmt in fdef.body:
        if isinstance(stmt, gast.Assign):
            for target in stmt.targets:
                if isinstance(target, gast.Attribute) and isinstance(target.value, gast.Name) \
                        and target.value.id == me and target.attr not in out:
                    out.append(target.attr)
    return out


def _state(methods: dict, shared=frozenset(), outside=None) -> list | None:
    """The attributes ``__init__`` sets at its top level, in order, then those another
    method sets, then those set on an object from outside (``outside``; where None,
    every attribute a method reads may be); None where a method reads ``self``
    otherwise than as one of them or as a class attribute (``shared``), or sets one
    of those (a class attribute set through ``self`` would then be the object's)."""
    init = methods.get("__init__")
    if init is None or not init.args.args:
        return None
    state = list(_set_at_top(init))
    called = set(methods) - {"__init__"}  # (self.f(h): a call, by self_calls_hoisted)
    for fdef in methods.values():
        me = fdef.args.args[0].id if fdef.args.args else None
        for node in trees.walk(fdef):
            if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                    node.value.id == me and node.attr not in state and \
                    node.attr not in called and (
                        not isinstance(node.ctx, gast.Load) or outside is None and
                        node.attr not in shared):
                state.append(node.attr)
    state += [a for a in outside or () if a not in state]
    if set(state) & set(shared):
        return None
    for fdef in methods.values():
        args = fdef.args
        if fdef.decorator_list or args.vararg or args.kwarg or args.kwonlyargs or \
                args.posonlyargs or _params(fdef) is None or not args.args:
            return None
        me = args.args[0].id
        for node in trees.walk(fdef):
            if isinstance(node, (gast.Global, gast.Nonlocal, gast.Lambda, gast.Yield,
                                 gast.YieldFrom)) or \
                    isinstance(node, gast.FunctionDef) and node is not fdef:
                return None
            if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                    node.value.id == me and node.attr not in state and \
                    node.attr not in called and not (
                        node.attr in shared and isinstance(node.ctx, gast.Load)):
                return None
            if fdef.name == "__init__" and isinstance(node, gast.Return):
                return None
        reads = {id(n.value) for n in trees.walk(fdef) if isinstance(n, gast.Attribute)}
        if any(isinstance(n, gast.Name) and n.id == me and id(n) not in reads
               for n in trees.walk(fdef) if n is not args.args[0]):
            return None  # (self passed on, returned or compared: an object after all)
    return state


def class_data(cls) -> set:
    """The names of ``cls``'s class attributes of plain data (``lr = 0.1``) and its static
    methods (``self.act(h)`` is ``Cls.act(h)``: Python binds nothing), its bases' too
    where it does not define them itself."""
    out, seen = set(), set()
    for klass in cls.__mro__[:-1]:  # (object's own: none of these)
        for name, value in vars(klass).items():
            if name in seen or name in _ALLOWED:
                continue
            seen.add(name)
            if _static(value) or not inspect.isfunction(value) and _data(value):
                out.add(name)
    return out


def _static(value) -> bool:
    return isinstance(value, staticmethod) and inspect.isfunction(value.__func__)


# what @dataclasses.dataclass adds to a class (its __init__ is written from its fields)
_DATACLASS = {"__annotations__", "__dataclass_params__", "__dataclass_fields__", "__init__",
              "__repr__", "__eq__", "__hash__", "__match_args__"}


def dataclass_fields(cls) -> list | None:
    """``[(name, default)]`` of a plain dataclass's fields, in order (``default``:
    ``_ABSENT`` where none): a mutable one, whose ``__init__`` sets each field from its
    argument and does nothing else (no ``__post_init__``, no default factory, no
    ``InitVar``, a default of plain data); else None."""
    if not isinstance(cls, type) or not dataclasses.is_dataclass(cls):
        return None
    params = cls.__dataclass_params__
    if params.frozen or not params.init or "__slots__" in vars(cls) or \
            hasattr(cls, "__post_init__") or \
            len(cls.__dataclass_fields__) != len(dataclasses.fields(cls)):
        return None  # (a ClassVar or InitVar pseudo-field)
    fields = []
    for f in dataclasses.fields(cls):
        if not f.init or getattr(f, "kw_only", False) is True or \
                f.default_factory is not dataclasses.MISSING or \
                f.default is not dataclasses.MISSING and not _data(f.default):
            return None
        fields.append((f.name, _ABSENT if f.default is dataclasses.MISSING else f.default))
    return fields


def _dataclass_init(fields):
    """``def __init__(self, a, b): self.a = a; self.b = b``: a dataclass's own."""
    body = [gast.Assign([gast.Attribute(_name("self"), name, gast.Store())], _name(name), None)
            for name, _ in fields] or [gast.Pass()]
    params = [gast.Name(n, gast.Param(), None, None) for n in ["self"] + [n for n, _ in fields]]
    return gast.FunctionDef("__init__", gast.arguments(params, [], None, [], [], None, []),
                            body, [], None, None)


def recursive_methods(cls) -> set:
    """The names of ``cls``'s methods that call a method of their own name (on ``self``
    or on another object: ``c.total(x)`` in a tree's ``total``). Not a call on an
    attribute always given an object of a class whose method of that name is another
    (``self.inner.forward(h)`` in ``forward``, ``self.inner = Leaf(w)``): no recursion."""
    found = set()
    parsed = {}
    for name, func in inspect.getmembers(cls, inspect.isfunction):
        try:
            parsed[name] = (func, gast.parse(textwrap.dedent(inspect.getsource(func))))
        except (OSError, TypeError, SyntaxError):
            continue
    for name, (func, fdef) in parsed.items():
        if any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and
               n.func.attr == name and not _held_of_another_class(n.func.value, name, func,
                                                                    parsed)
               for n in trees.walk(fdef)):
            found.add(name)
    return found


def _held_of_another_class(receiver, name: str, func, parsed: dict) -> bool:
    """Is ``receiver`` ``self.a``, where every ``self.a = ...`` of the class's methods
    (``parsed``) makes an object of a class of ``func``'s module whose ``.name`` is not
    ``func``? (``self.inner = Leaf(w)``: ``self.inner.forward`` is ``Leaf.forward``.)"""
    if not (isinstance(receiver, gast.Attribute) and isinstance(receiver.value, gast.Name)):
        return False
    made = []
    for method, fdef in parsed.values():
        body = fdef.body[0] if fdef.body else None
        own = body.args.args[0].id if isinstance(body, gast.FunctionDef) and \
            body.args.args else None
        for n in trees.walk(fdef):
            if isinstance(n, (gast.AugAssign, gast.AnnAssign)) and isinstance(
                    n.target, gast.Attribute) and n.target.attr == receiver.attr:
                return False
            if not isinstance(n, gast.Assign):
                continue
            for target in n.targets:
                if any(isinstance(t, gast.Attribute) and t.attr == receiver.attr
                       for t in trees.walk(target)):
                    if target is not n.targets[0] or len(n.targets) > 1 or not (
                            isinstance(target, gast.Attribute) and
                            isinstance(target.value, gast.Name) and target.value.id == own
                            and isinstance(n.value, gast.Call) and
                            isinstance(n.value.func, gast.Name)):
                        return False
                    made.append(method.__globals__.get(n.value.func.id))
    return bool(made) and all(
        isinstance(k, type) and inspect.getattr_static(k, name, None) is not func
        and all(inspect.getattr_static(sub, name, None) is not func
                for sub in k.__subclasses__())
        for k in made)


def class_methods(cls) -> dict | None:
    """``{name: FunctionDef}`` of a plain class's methods (see the module), else None.
    A class whose one base is such a class (of the same module, neither a dataclass nor
    with properties) has its base's methods where it does not define them; its
    ``__init__`` may call ``super().__init__(...)`` as a statement of its own."""
    if not isinstance(cls, type) or type(cls) is not type or len(cls.__bases__) != 1:
        return None
    if "__del__" in vars(cls):  # (Python runs it when the object goes: written as its
        return None             # attributes, no object goes)
    if cls.__bases__ == (object,):
        return _own_methods(cls)
    base = cls.__bases__[0]
    inherited = class_methods(base)
    if inherited is None or getattr(base, "__module__", None) != cls.__module__ or \
            dataclasses.is_dataclass(cls) or hasattr(inherited, "properties"):
        return None
    own = _own_methods(cls, inherited)
    if own is None or hasattr(own, "properties"):
        return None
    return own


def _own_methods(cls, inherited=None) -> dict | None:
    """:func:`class_methods` of a class, its base's methods ``inherited`` (None: a class
    whose base is ``object``)."""
    fields = dataclass_fields(cls)
    if dataclasses.is_dataclass(cls) and fields is None:
        return None
    made = set() if fields is None else _DATACLASS
    shared = class_data(cls) - {n for n, _ in fields or ()}
    defaults = {n for n, d in fields or () if d is not _ABSENT}
    getters = {name for name, value in vars(cls).items() if isinstance(value, property) and
               value.fset is None and value.fdel is None and inspect.isfunction(value.fget)}
    cached = {name for name, value in vars(cls).items()
              if isinstance(value, functools.cached_property) and inspect.isfunction(value.func)}
    getters |= cached
    if any(name not in _ALLOWED and name not in shared and name not in made and
           name not in defaults and name not in getters and not inspect.isfunction(value)
           and not _constructor(value) for name, value in vars(cls).items()):
        return None
    try:
        lines, first = inspect.getsourcelines(cls)
        module = gast.parse(textwrap.dedent("".join(lines)))
        filename = inspect.getsourcefile(cls) or inspect.getfile(cls)
    except (OSError, TypeError, SyntaxError):
        return None
    gast.increment_lineno(module, first - 1)  # (the file's lines: a refusal in a method
    tree = module.body[0]                     # is shown at its own line, in its own file)
    if not isinstance(tree, gast.ClassDef) or tree.keywords or \
            len(tree.decorator_list) != (fields is not None):
        return None  # (a dataclass: its one decorator, the dataclass)
    methods, properties = {}, {}
    for stmt in tree.body:
        if isinstance(stmt, gast.FunctionDef) and stmt.name in cached:
            got = _getter(stmt, cached=True)
            if got is None:
                return None
            methods[f"{stmt.name}__get"] = _cached_getter(stmt, *got)
            methods[f"{stmt.name}__get"].source_file = filename
            methods[f"{stmt.name}__get"].class_line = first
            properties[stmt.name] = (got[0], gast.copy_location(gast.Call(gast.Attribute(
                _name(got[0]), f"{stmt.name}__get", gast.Load()), [], []), got[1]))
        elif isinstance(stmt, gast.FunctionDef) and stmt.name in getters:
            got = _getter(stmt)
            if got is None:
                return None
            properties[stmt.name] = got
        elif isinstance(stmt, gast.FunctionDef) and (
                _static(vars(cls).get(stmt.name)) or _constructor(vars(cls).get(stmt.name))):
            if len(stmt.decorator_list) != 1:
                return None  # (read from the class as Python reads it: Cls.act, Cls.make)
        elif isinstance(stmt, gast.FunctionDef):
            methods[stmt.name] = stmt
            stmt.source_file, stmt.class_line = filename, first
        elif fields is not None and isinstance(stmt, gast.AnnAssign) and \
                isinstance(stmt.target, gast.Name) and \
                stmt.target.id in {n for n, _ in fields}:
            continue  # (a field: set by the __init__ written below)
        elif not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant)) and \
                not (isinstance(stmt, gast.Assign) and all(
                    isinstance(t, gast.Name) and t.id in shared for t in stmt.targets)):
            return None  # (a class attribute of another kind: left to the refusal)
    if fields is not None:
        if "__init__" in methods:
            return None
        methods["__init__"] = gast.copy_location(_dataclass_init(fields), tree)
    if cached:
        init = methods.get("__init__")
        names = {n.attr for key, m in methods.items() if key not in {f"{c}__get" for c in cached}
                 for n in trees.walk(m) if isinstance(n, gast.Attribute)} | set(vars(cls))
        if init is None or not init.args.args or inherited is not None or any(
                f"{c}__{part}" in names for c in cached for part in ("cached", "value")) or \
                any(f"{c}__get" in vars(cls) for c in cached):
            return None  # (no __init__ to start the cache in, or a name it would take)
        me = init.args.args[0].id
        init.body = [trees.located(gast.Assign(
            [gast.Attribute(_name(me), f"{c}__{part}", gast.Store())],
            gast.Constant(start, None), None), init)
            for c in sorted(cached) for part, start in (("cached", False), ("value", None))
        ] + init.body
    own = set(methods) - {f"{c}__get" for c in cached}
    if inherited is not None:
        if not super_init_inlined(methods, inherited):
            return None
        methods = {**{n: m for n, m in inherited.items() if n not in vars(cls)},
                   **methods}  # (Python's lookup: the class's own first, a method or not)
    else:
        init = methods.get("__init__")
        if init is not None:  # (object.__init__(): it does nothing)
            init.body = [s for s in init.body if not (
                _is_super_init(s) and not s.value.args and not s.value.keywords)] or \
                [gast.copy_location(gast.Pass(), init)]
        if any(isinstance(n, gast.Name) and n.id == "super" for m in methods.values()
               for n in trees.walk(m)):
            return None
    if own != {n for n, v in vars(cls).items() if inspect.isfunction(v) and
               (fields is None or n not in _DATACLASS or n == "__init__")} or \
            set(properties) != getters:
        return None
    for _ in range(len(properties) + 1):  # (a getter reading another: inlined in turn)
        for name, (me, value) in list(properties.items()):
            properties[name] = (me, _Getters(properties, {me}).visit(value))
    if any(_Getters(properties, set()).reads(value) for _, value in properties.values()):
        return None  # (getters reading each other in a cycle)
    for fdef in methods.values():
        if fdef.args.args and any(
                isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name) and
                n.value.id == fdef.args.args[0].id and n.attr in properties and
                not isinstance(n.ctx, gast.Load) for n in trees.walk(fdef)):
            return None  # (a property without a setter: Python raises AttributeError)
        if fdef.args.args:
            inline = _Getters(properties, {fdef.args.args[0].id})
            fdef.body = [inline.visit(stmt) for stmt in fdef.body]
    _helpers_given_held(cls, methods)  # (helper(self.inner, h): the helper's expression)
    held = held_objects_inlined(cls, methods, class_methods)  # (self.inner = Inner(w))
    if not self_calls_hoisted(methods, _Hoisting):  # (self.f(h) in another method)
        return None
    if properties or held:
        methods = _Methods(methods)
        methods.properties = properties
        methods.held = held
    return methods if _state(methods, shared, None) is not None else None


def _helpers_given_held(cls, methods: dict) -> None:
    """Each call of a one-line helper of the class's module given an object an attribute
    holds (``helper(self.inner, h)``, ``__init__`` setting ``self.inner = Inner(w)``)
    written as the helper's expression (:mod:`.object_helpers`)."""
    import sys
    from .object_helpers import helpers_inlined
    module = getattr(sys.modules.get(cls.__module__ or ""), "__dict__", None)
    init = methods.get("__init__")
    if module is None or init is None or not init.args.args:
        return
    me = init.args.args[0].id
    held = {s.targets[0].attr for s in init.body if isinstance(s, gast.Assign) and
            len(s.targets) == 1 and isinstance(s.targets[0], gast.Attribute) and
            isinstance(s.targets[0].value, gast.Name) and s.targets[0].value.id == me and
            isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Name) and
            isinstance(module.get(s.value.func.id), type)}
    if not held:
        return
    for fdef in methods.values():
        if not fdef.args.args:
            continue
        own = fdef.args.args[0].id

        def holds(node, own=own):
            return isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) \
                and node.value.id == own and node.attr in held

        helpers_inlined(fdef, lambda n: module.get(n, getattr(builtins, n, None)), holds,
                        {a.id for a in fdef.args.args} |
                        trees.assigned_names(fdef))


class _Methods(dict):
    """A class's methods, with ``properties``: ``{name: (self's name, the getter's
    expression)}``, its read-only properties whose getter only returns a value; and
    ``held``: ``{attribute: methods}``, the objects its attributes hold, written as its own
    (:func:`.class_forms.held_objects_inlined`)."""


def _getter(fdef, cached=False):
    """``(self's name, e)`` of ``@property def p(self): return e`` (a docstring before it
    allowed), else None. ``cached``: of ``@functools.cached_property`` (its one
    decorator, the class's value checked)."""
    body = fdef.body[1:] if fdef.body and isinstance(fdef.body[0], gast.Expr) and \
        isinstance(fdef.body[0].value, gast.Constant) else fdef.body
    args = fdef.args
    if len(fdef.decorator_list) != 1 or not cached and (
            not isinstance(fdef.decorator_list[0], gast.Name) or
            fdef.decorator_list[0].id != "property") or len(args.args) != 1 or args.vararg or \
            args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults or \
            len(body) != 1 or not isinstance(body[0], gast.Return) or body[0].value is None:
        return None
    value = body[0].value
    if any(isinstance(n, (gast.Lambda, gast.Yield, gast.YieldFrom, gast.NamedExpr,
                          gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp))
           for n in trees.walk(value)):
        return None  # (a scope of its own: its names are not the method's)
    return args.args[0].id, value


def _cached_getter(fdef, me: str, value):
    """The method a ``@functools.cached_property`` ``p`` is read through, ``p__get``: the
    getter runs at the first read only, and each later read gives what it gave (Python
    keeps it in the object). ``__init__`` starts ``me.p__cached`` False.

    >>> fdef = gast.parse("@cached_property\\ndef sq(s):\\n    return s.w ** 2").body[0]
    >>> print(gast.unparse(_cached_getter(fdef, *_getter(fdef, cached=True))).strip())
    def sq__get(s):
        if not s.sq__cached:
            s.sq__value = s.w ** 2
            s.sq__cached = True
        return s.sq__value
    """
    name = fdef.name

    def attr(part, store=False):
        return gast.Attribute(_name(me), f"{name}__{part}", gast.Store() if store else
                              gast.Load())

    made = gast.FunctionDef(
        f"{name}__get", trees.clone(fdef.args), [
            gast.If(gast.UnaryOp(gast.Not(), attr("cached")), [
                gast.Assign([attr("value", True)], trees.clone(value), None),
                gast.Assign([attr("cached", True)], gast.Constant(True, None), None)], []),
            gast.Return(attr("value"))], [], None, None)
    for node in trees.walk(made):
        if isinstance(node, (gast.stmt, gast.expr)) and not hasattr(node, "lineno"):
            gast.copy_location(node, value if isinstance(node, gast.expr) else fdef)
    return gast.copy_location(made, fdef)


class _Getters(trees.Transformer):
    """``me.p`` (read) as the getter's expression of the property ``p``, its ``self``
    read as ``me``: Python runs the getter where the attribute is read, and it returns
    that expression's value.

    >>> getters = {"scale": ("s", gast.parse("s.w * 2.0", mode="eval").body)}
    >>> tree = gast.parse("y = layer.scale * h + layer.b")
    >>> print(gast.unparse(_Getters(getters, {"layer"}).visit(tree)).strip())
    y = layer.w * 2.0 * h + layer.b
    """

    def __init__(self, properties: dict, names: set):
        self.properties, self.names = properties, names

    def reads(self, node) -> bool:
        return any(isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name) and
                   n.attr in self.properties and n.value.id == self.properties[n.attr][0]
                   for n in trees.walk(node))

    def visit_Attribute(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.names and \
                node.attr in self.properties and isinstance(node.ctx, gast.Load):
            me, value = self.properties[node.attr]
            value = trees.clone(value)
            for n in trees.walk(value):
                if isinstance(n, gast.Name) and n.id == me:
                    n.id = node.value.id
            for n in trees.walk(value):  # (at the line that reads it)
                if isinstance(n, (gast.expr, gast.Slice)):
                    gast.copy_location(n, node)
            return value
        return self.generic_visit(node)

    def visit_FunctionDef(self, node):
        return node  # (its own scope: its names may be others)

    def visit_Lambda(self, node):
        return node


class _SelfAsVariables(trees.Transformer):
    """``self.attr`` as ``self__attr`` (a class attribute's ``self.lr`` as ``Cls.lr``, read
    when it runs, as Python reads it); each ``return e`` as ``return (state..., e)``."""

    def __init__(self, me: str, state: list, cls_name: str = ""):
        self.me, self.state, self.cls_name = me, state, cls_name

    def visit_Attribute(self, node):
        if isinstance(node.value, gast.Name) and node.value.id == self.me and \
                node.attr not in self.state:
            return gast.copy_location(gast.Attribute(_name(self.cls_name), node.attr,
                                                     gast.Load()), node)
        if isinstance(node.value, gast.Name) and node.value.id == self.me:
            return gast.copy_location(_name(f"self__{node.attr}", not isinstance(
                node.ctx, gast.Load)), node)
        return self.generic_visit(node)

    def visit_Return(self, node):
        value = node.value if node.value is not None else gast.Constant(None, None)
        out = gast.Tuple([_name(f"self__{a}") for a in self.state] + [self.visit(value)],
                         gast.Load())
        return gast.copy_location(gast.Return(out), node)


def _returns(body) -> bool:
    """Does ``body`` end in a ``return`` on every path?"""
    last = body[-1] if body else None
    return isinstance(last, gast.Return) or isinstance(last, gast.If) and \
        bool(last.orelse) and _returns(last.body) and _returns(last.orelse)


def _function_name(cls_name: str, method: str) -> str:
    return f"{cls_name}__{method.strip('_')}" if method != "__init__" else \
        f"{cls_name}__init__"


def _self_calls(body, me: str, cls_name: str, state: list, names) -> list:
    """``t = self.f(h)`` (a statement of its own: :func:`.class_forms.self_calls_hoisted`)
    as ``self__w, t = Cls__f(self__w, h)``: the other method (of ``names``, a class's
    methods) as a function of the attributes, which it gives back, as an object's call
    does; its constant defaults written out where the call leaves them out."""
    out = []
    for stmt in body:
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list) and \
                    not isinstance(stmt, gast.FunctionDef):
                setattr(stmt, field, _self_calls(getattr(stmt, field), me, cls_name, state,
                                                 names))
        value = stmt.value if isinstance(stmt, (gast.Expr, gast.Assign)) else None
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
                isinstance(value.func.value, gast.Name) and value.func.value.id == me and \
                value.func.attr in names and value.func.attr != "__init__":
            rest = stmt.targets[0] if isinstance(stmt, gast.Assign) else \
                _name(f"_self__{value.func.attr.strip('_')}", True)
            params = _params(names[value.func.attr]) or []
            value.args = value.args + [gast.Constant(d, None) for _, d in
                                       params[len(value.args):] if d is not _ABSENT]
            stmt = trees.located(gast.Assign([gast.Tuple(
                [_name(f"self__{a}", True) for a in state] + [rest], gast.Store())],
                gast.Call(_name(_function_name(cls_name, value.func.attr)),
                          [_name(f"self__{a}") for a in state] + value.args, []), None), stmt)
        out.append(stmt)
    return out


def _as_function(cls_name: str, fdef, state: list, names=None):
    """The method ``fdef`` as a function of the attributes and its arguments; ``__init__``
    gives those it does not set at its top level None (no method reads it before one
    sets it: :func:`_set_before_read`). A call of another of the methods ``names``
    (``self.f(h)``) is a call of its function."""
    me = fdef.args.args[0].id
    body = _self_calls([trees.clone(s) for s in fdef.body], me, cls_name, state, names or {})
    body = [_SelfAsVariables(me, state, cls_name).visit(s) for s in body]
    if fdef.name == "__init__":
        early = _set_at_top(fdef)
        body = [trees.located(gast.Assign([_name(f"self__{a}", True)],
                                          gast.Constant(None, None), None), fdef.body[0])
                for a in state if a not in early] + body
    end = gast.Return(gast.Tuple([_name(f"self__{a}") for a in state] +
                                 [gast.Constant(None, None)], gast.Load()))
    params = ([] if fdef.name == "__init__" else
              [_name(f"self__{a}") for a in state]) + \
        [gast.Name(a.id, gast.Param(), None, None) for a in fdef.args.args[1:]]
    for p in params:
        p.ctx = gast.Param()
    made = gast.FunctionDef(_function_name(cls_name, fdef.name), gast.arguments(params, [], None, [], [], None, []),
                            body if _returns(body) else body + [end], [], None, None)
    made.shown_name = f"{cls_name}.{fdef.name}"  # (as Python names it in a traceback)
    made.source_file = getattr(fdef, "source_file", None)  # (a class of another module's)
    made.class_line = getattr(fdef, "class_line", None)
    return gast.copy_location(made, fdef)


class ObjectsAsVariables(trees.Transformer):
    """The function's objects of the ``classes`` given (``{name: methods}``, see
    :func:`class_methods`) written as variables (see the module)."""

    def __init__(self, classes: dict, is_function=lambda node: False, shared=None,
                 fields=None, deepcopy=lambda call: False, helper=None):
        self.classes = classes
        self.deepcopy = deepcopy  # (call): is it copy.deepcopy(...)?
        self.helper = helper  # (a runtime helper -> its name; None: no deep copies)
        self.copies = {}  # id of `q = copy.deepcopy(p)` -> 'p' (_made)
        self.fields = fields or {}  # a dataclass's name -> its [(field, default)]
        self.shared = shared or {}  # class name -> its class attributes of data
        self.is_function = is_function  # (a value that may be a function: kept an object's)
        self.changed = False
        self.renamed = {}  # layer_2 -> layer: a variable's second object (_one_class_each)
        self.shown = {}  # acc__total -> acc.total: the names in errors (FunctionSource.shown)

    def visit_FunctionDef(self, node):
        if any(isinstance(n, (gast.Try, gast.With)) for n in trees.walk(node)):
            return node  # (statements in blocks this pass does not walk)
        node.body = self._branches(node.body)
        self._one_class_each(node)
        self._held_read(node)  # (m.inner(h), m.inner.w: m.inner____call__(h), m.inner__w)
        self._defaults_written(node, {})  # (Layer(w, b=v): Layer(w, v), made here now)
        for var, places in self._made(node).items():
            stores = [n for n in trees.walk(node) if isinstance(n, gast.Name) and
                      n.id == var and not isinstance(n.ctx, gast.Load)]
            if len({cls for _, cls in places}) != 1 or len(stores) != len(places):
                continue  # (a parameter, or a variable given something else too)
            properties = getattr(self.classes[places[0][1]], "properties", None)
            if properties:
                node.body = [_Getters(properties, {var}).visit(stmt) for stmt in node.body]
        for call in trees.walk(node):
            if isinstance(call, gast.Call) and isinstance(call.func, gast.Name) and \
                    call.func.id in self.fields:
                _by_position(call, self.fields[call.func.id])
        made = self._made(node)
        taken = {n.id for n in trees.walk(node) if isinstance(n, gast.Name)}
        methods = {var: set(self.classes[places[0][1]]) for var, places in made.items()
                   if len({cls for _, cls in places}) == 1 and
                   not any(n.startswith(f"_{var}__") for n in taken)}
        for call in trees.walk(node):  # (layer(h): layer.__call__(h), Python's call)
            if isinstance(call, gast.Call) and isinstance(call.func, gast.Name) and \
                    "__call__" in methods.get(call.func.id, ()):
                call.func = gast.copy_location(gast.Attribute(
                    call.func, "__call__", gast.Load()), call.func)
        self._defaults_written(node, self._made(node))  # (layer.f(h, k=2): its arguments)
        node.body = _Hoisting(methods).body(node.body)
        made = self._made(node)
        objects = {}
        outside = {}  # class name -> the attributes set on its objects here (c.scale = 2.0)
        for var, places in made.items():
            if len({cls for _, cls in places}) == 1:
                outside.setdefault(places[0][1], []).extend(
                    n.attr for n in trees.walk(node) if isinstance(n, gast.Attribute) and
                    isinstance(n.value, gast.Name) and n.value.id == var and
                    not isinstance(n.ctx, gast.Load))
        states = {cls: _state(self.classes[cls], self.shared.get(cls, frozenset()), attrs)
                  if not set(attrs) & set(getattr(self.classes[cls], "properties", ()))
                  else None for cls, attrs in outside.items()}  # (a property set: raises)
        for var, places in made.items():
            stores = [n for n in trees.walk(node) if isinstance(n, gast.Name) and
                      n.id == var and not isinstance(n.ctx, gast.Load)]
            if len(places) != len(stores) or len({cls for _, cls in places}) != 1:
                continue  # (every value it is given: an object of one class, made here)
            cls = places[0][1]
            methods = self.classes[cls]
            state = states.get(cls)
            if state is None or not _set_before_read(node, var, cls, methods, state):
                continue
            given = [a for stmt, _ in places for a in stmt.value.args] + [
                n.value for n in trees.walk(node) if isinstance(n, gast.Assign) and any(
                    isinstance(t, gast.Attribute) and isinstance(t.value, gast.Name) and
                    t.value.id == var for t in n.targets)]
            called = {id(n.func) for v in given for n in trees.walk(v)
                      if isinstance(n, gast.Call)}
            if any(self.is_function(n) for v in given for n in trees.walk(v)
                   if id(n) not in called) or \
                    any(len(stmt.value.args) != len(methods["__init__"].args.args) - 1
                        for stmt, _ in places if id(stmt) not in self.copies) or \
                    any(id(stmt) in self.copies for stmt, _ in places) and \
                    set(state) != set(_set_at_top(methods["__init__"])) or \
                    any(f"{var}__{a}" in taken for a in state) or \
                    any(n.startswith(f"{cls}__") or n.startswith(f"_{var}__") for n in taken) or \
                    not self._only_read_so(node, var, methods, state,
                                           self.shared.get(cls, frozenset())):
                continue
            objects[var] = (cls, {id(stmt) for stmt, _ in places}, state,
                            self.shared.get(cls, frozenset()))
        while True:  # (q = copy.deepcopy(p): both written as variables, or neither)
            copied = {self.copies[id(stmt)] for stmt in trees.walk(node)
                      if id(stmt) in self.copies}
            dropped = {var for var, (_, made_at, state, _) in objects.items() if any(
                self.copies.get(i) is not None and self.copies[i] not in objects
                for i in made_at) or var in copied and any(
                    self.copies[id(stmt)] == var and
                    stmt.targets[0].id not in objects for stmt in trees.walk(node)
                    if id(stmt) in self.copies)}
            if not dropped:
                break
            for var in dropped:
                del objects[var]
        if not objects:
            return node
        self.changed = True
        for var, (_, _, state, _) in objects.items():
            shown = self.renamed.get(var, var)
            self.shown.update({f"{var}__{a}": f"{shown}.{a}" for a in state})
            self.shown.update({f"self__{a}": f"self.{a}" for a in state})
        defs, wanted = [], set()
        for var, (cls, _, state, _) in objects.items():
            for method in self.classes[cls].values():
                key = (cls, method.name)
                if key not in wanted:
                    wanted.add(key)
                    defs.append(_as_function(cls, method, state, self.classes[cls]))
        counter = iter(range(10 ** 6))
        node.body = defs + self._statements(node.body, objects, counter)
        return node

    def _held_read(self, node) -> None:
        """``m.inner.w`` (read or set) as ``m.inner__w``, ``m.inner.f(h)`` as
        ``m.inner__f(h)`` and ``m.inner(h)`` as ``m.inner____call__(h)``, ``m`` given
        objects of one class only, whose ``inner`` holds an object written as its own
        attributes and methods
        (``held``: :func:`.class_forms.held_objects_inlined`). Another read of ``m.inner``
        stays (refused: :meth:`_only_read_so`)."""
        def flat(held, prefix=""):  # (m.mid.leaf: m.mid__leaf, held by what mid holds)
            out = {}
            for attr, methods in (held or {}).items():
                out[prefix + attr] = methods
                out.update(flat(getattr(methods, "held", None), f"{prefix}{attr}__"))
            return out

        for var, places in self._made(node).items():
            held = flat(getattr(self.classes[places[0][1]], "held", None))
            stores = [n for n in trees.walk(node) if isinstance(n, gast.Name) and
                      n.id == var and not isinstance(n.ctx, gast.Load)]
            if not held or len({cls for _, cls in places}) != 1 or len(stores) != len(places):
                continue
            for outer in (n for _ in range(len(held)) for n in trees.walk(node)):
                for field in ("value", "func"):
                    part = getattr(outer, field, None)
                    if not (isinstance(part, gast.Attribute) and part.attr in held and
                            isinstance(part.value, gast.Name) and part.value.id == var and
                            isinstance(part.ctx, gast.Load)):
                        continue
                    if field == "value" and isinstance(outer, gast.Attribute) and \
                            isinstance(outer.ctx, (gast.Load, gast.Store)):  # (m.inner.w = v:
                        # m.inner__w = v, set from outside as any attribute is)
                        outer.value = part.value
                        outer.attr = f"{part.attr}__{outer.attr}"
                    elif field == "func" and isinstance(outer, gast.Call) and \
                            "__call__" in held[part.attr]:
                        part.attr = f"{part.attr}____call__"

    def _defaults_written(self, node, made) -> None:
        """``Layer(w)`` as ``Layer(w, 0.0)``, ``layer.f(h, k=2)`` as ``layer.f(h, 2)``:
        a method's constant defaults written out, its keywords put in place, where
        that evaluates the arguments in the same order (:func:`_by_position`)."""
        stores = {}
        for n in trees.walk(node):
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
        classes = {var: places[0][1] for var, places in made.items()
                   if len({cls for _, cls in places}) == 1 and stores.get(var) == len(places)}
        for call in trees.walk(node):
            if not isinstance(call, gast.Call):
                continue
            if isinstance(call.func, gast.Name) and call.func.id in self.classes and \
                    call.func.id not in self.fields:
                method = self.classes[call.func.id].get("__init__")
            elif isinstance(call.func, gast.Attribute) and \
                    isinstance(call.func.value, gast.Name) and \
                    call.func.value.id in classes and call.func.attr != "__init__":
                method = self.classes[classes[call.func.value.id]].get(call.func.attr)
            else:
                continue
            params = _params(method) if method is not None else None
            if params is not None and (call.keywords or len(call.args) < len(params)):
                _by_position(call, params)

    def _one_class_each(self, node) -> None:
        """``layer = A(w)``, ... then ``layer = B(w)``, ...: each object its own variable
        from where it is made on (``layer``, then ``layer_2``), where every value the
        variable is given is an object made at the function's top level and nothing reads
        it later than Python would (no nested ``def`` or lambda names it). Python's
        ``layer`` between the two is the first object, after them the second: the same."""
        made = self._made(node)
        taken = {n.id for n in trees.walk(node) if isinstance(n, gast.Name)}
        late = {n.id for f in trees.walk(node) if isinstance(f, (gast.Lambda, gast.FunctionDef))
                and f is not node for n in trees.walk(f) if isinstance(n, gast.Name)}
        params = {a.id for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
        top = {id(stmt): i for i, stmt in enumerate(node.body)}
        for var, places in made.items():
            stores = [n for n in trees.walk(node) if isinstance(n, gast.Name) and
                      n.id == var and not isinstance(n.ctx, gast.Load)]
            if len({cls for _, cls in places}) == 1 or len(stores) != len(places) or \
                    var in late or var in params or \
                    any(id(stmt) not in top for stmt, _ in places):
                continue
            starts = [top[id(stmt)] for stmt, _ in places]
            names = [var]
            for _ in places[1:]:
                k = len(names) + 1
                while f"{var}_{k}" in taken or any(n.startswith(f"{var}_{k}__") for n in taken):
                    k += 1
                names.append(f"{var}_{k}")
                taken.add(names[-1])
            for k, start in enumerate(starts[1:], 1):
                end = starts[k + 1] if k + 1 < len(starts) else len(node.body)
                stmt = node.body[start]
                stmt.targets[0].id = names[k]
                later = node.body[start + 1:end]
                if end < len(node.body):  # (the next object's arguments read this one)
                    later = later + [node.body[end].value]
                for n in (n for stmt in later for n in trees.walk(stmt)):
                    if isinstance(n, gast.Name) and n.id == var:
                        n.id = names[k]
                self.renamed[names[k]] = var
                self.shown[names[k]] = var

    def _made(self, node) -> dict:
        """``{variable: [(statement, class name)]}``: the statements that give it an object
        of one of the classes (``acc = Acc(2.0)``), in order."""
        made = {}
        for stmt in _statements(node.body):
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and \
                    isinstance(stmt.value, gast.Call) and \
                    isinstance(stmt.value.func, gast.Name) and \
                    stmt.value.func.id in self.classes and not stmt.value.keywords and \
                    not any(isinstance(a, gast.Starred) for a in stmt.value.args):
                made.setdefault(stmt.targets[0].id, []).append((stmt, stmt.value.func.id))
        self.copies, self.kept = {}, []  # (of this tree: an id is an object's while it lives)
        if self.helper is None:
            return made
        for stmt in _statements(node.body):  # (q = copy.deepcopy(p): an object of p's class)
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and \
                    isinstance(stmt.value, gast.Call) and self.deepcopy(stmt.value) and \
                    len(stmt.value.args) == 1 and not stmt.value.keywords and \
                    isinstance(stmt.value.args[0], gast.Name) and \
                    len({c for _, c in made.get(stmt.value.args[0].id, ())}) == 1:
                cls = made[stmt.value.args[0].id][0][1]
                if not set(self.classes[cls]) & _COPIERS:
                    self.copies[id(stmt)] = stmt.value.args[0].id
                    self.kept.append(stmt)
                    made.setdefault(stmt.targets[0].id, []).append((stmt, cls))
        return made

    def _made_by(self, value) -> set | None:
        """The classes a conditional expression's branches make objects of (``A(w) if c
        else A(2 * w)``), else None."""
        if isinstance(value, gast.IfExp):
            body, orelse = self._made_by(value.body), self._made_by(value.orelse)
            return None if body is None or orelse is None else body | orelse
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
                value.func.id in self.classes:
            return {value.func.id}
        return None

    def _branches(self, body) -> list:
        """``acc = A(w) if c else A(2 * w)`` as ``if c: acc = A(w)`` / ``else: acc = A(2 *
        w)`` (Python evaluates the test, then one branch), for objects of one class."""
        out = []
        for stmt in body:
            for block in ("body", "orelse"):
                if isinstance(getattr(stmt, block, None), list) and \
                        not isinstance(stmt, gast.FunctionDef):
                    setattr(stmt, block, self._branches(getattr(stmt, block)))
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and \
                    isinstance(stmt.value, gast.IfExp) and \
                    len(self._made_by(stmt.value) or ()) == 1:
                stmt = self._as_if(stmt.targets[0].id, stmt.value, stmt)
            out.append(stmt)
        return out

    def _as_if(self, var, value, stmt):
        if not isinstance(value, gast.IfExp):
            return trees.located(gast.Assign([_name(var, True)], value, None), stmt)
        return trees.located(gast.If(value.test, [self._as_if(var, value.body, stmt)],
                                     [self._as_if(var, value.orelse, stmt)]), stmt)

    def _only_read_so(self, fdef, var, methods, state, shared) -> bool:
        """Is ``var`` read only as ``var.attr`` (one of ``state``), or called as
        ``var.method(...)`` in a statement of its own, with the method's number of
        arguments?"""
        allowed = {id(stmt.value.args[0]) for stmt in trees.walk(fdef)
                   if self.copies.get(id(stmt)) == var}  # (copy.deepcopy(var))
        for stmt in trees.walk(fdef):
            value = stmt.value if isinstance(stmt, (gast.Expr, gast.Assign)) else None
            if isinstance(stmt, gast.Assign) and not (
                    len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
                value = None
            if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
                    isinstance(value.func.value, gast.Name) and value.func.value.id == var:
                method = methods.get(value.func.attr)
                if method is None and value.func.attr in shared:
                    continue  # (a static method: Cls.act(h), read below)
                if method is None or value.func.attr == "__init__" or value.keywords or \
                        len(value.args) != len(method.args.args) - 1 or \
                        any(isinstance(a, gast.Starred) for a in value.args):
                    return False
                allowed.add(id(value.func.value))
        for node in trees.walk(fdef):
            if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                    node.value.id == var and (node.attr in state or node.attr in shared and
                                              isinstance(node.ctx, gast.Load)):
                allowed.add(id(node.value))
        return all(id(n) in allowed for n in trees.walk(fdef)
                   if isinstance(n, gast.Name) and n.id == var and isinstance(n.ctx, gast.Load))

    def _statement(self, stmt, objects, counter):
        if isinstance(stmt, gast.FunctionDef):
            return stmt
        for var, (cls, made, state, _) in objects.items():
            if id(stmt) in self.copies and id(stmt) in made:
                return self._copied(var, cls, self.copies[id(stmt)], state, stmt)
            if id(stmt) in made:
                return self._call(var, cls, state, "__init__", stmt.value.args, None, stmt,
                                  counter, objects)
            value = stmt.value if isinstance(stmt, (gast.Expr, gast.Assign)) else None
            if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
                    isinstance(value.func.value, gast.Name) and value.func.value.id == var \
                    and value.func.attr in self.classes[cls]:  # (not a static method's)
                target = stmt.targets[0].id if isinstance(stmt, gast.Assign) else None
                return self._call(var, cls, state, value.func.attr, value.args, target, stmt,
                                  counter, objects)
        for block in ("body", "orelse"):
            if isinstance(getattr(stmt, block, None), list):
                setattr(stmt, block, self._statements(getattr(stmt, block), objects, counter))
        return _Attributes(objects).visit(stmt)

    def _statements(self, body, objects, counter) -> list:
        """:meth:`_statement` of each (a deep copy: a list of them)."""
        out = []
        for stmt in body:
            written = self._statement(stmt, objects, counter)
            out += written if isinstance(written, list) else [written]
        return out

    def _copied(self, var, cls, source, state, stmt) -> list:
        """``q = copy.deepcopy(p)`` as each attribute's deep copy, ``q__w =
        copy.deepcopy(p__w)``, after a check at run time that no object is held twice, by
        two attributes or two slots of one (Python's copy would hold one new object twice:
        ``check_distinct``)."""
        from ..runtime import check_distinct
        out = []
        if state:
            out.append(gast.Expr(gast.Call(_name(self.helper(check_distinct)), [
                gast.Tuple([_name(f"{source}__{a}") for a in state], gast.Load()),
                gast.Constant(f"copy.deepcopy({source})", None),
                gast.Constant(f"Make the copy yourself: `{var} = {cls}(...)` given a "
                              "copy of each attribute.", None)],
                [])))
        out += [gast.Assign([_name(f"{var}__{a}", True)], gast.Call(
            trees.clone(stmt.value.func), [_name(f"{source}__{a}")], []), None) for a in state]
        return [trees.located(s, stmt) for s in out]

    def _call(self, var, cls, state, method, args, target, stmt, counter, objects):
        name = f"{cls}__init__" if method == "__init__" else f"{cls}__{method.strip('_')}"
        given = ([] if method == "__init__" else [_name(f"{var}__{a}") for a in state]) + \
            [_Attributes(objects).visit(a) for a in args]
        rest = target or f"_{var}__{next(counter)}"
        targets = gast.Tuple([_name(f"{var}__{a}", True) for a in state] + [_name(rest, True)],
                             gast.Store())
        out = gast.Assign([targets], gast.Call(_name(name), given, []), None)
        return trees.located(out, stmt)


def _late_reads(node, me: str, late) -> set:
    """The attributes of ``late`` read as ``me.attr`` in ``node``."""
    return {n.attr for n in trees.walk(node) if isinstance(n, gast.Attribute) and
            isinstance(n.value, gast.Name) and n.value.id == me and n.attr in late and
            isinstance(n.ctx, gast.Load)}


def _sets_and_needs(fdef, late) -> tuple:
    """``(sets, needs)`` of a method: the attributes of ``late`` it sets at its top level
    on every path (before any ``return``), and those it reads before it sets them."""
    me = fdef.args.args[0].id
    known, needs, ended = set(), set(), False
    for stmt in fdef.body:
        value = stmt.value if isinstance(stmt, (gast.Assign, gast.AugAssign)) else stmt
        needs |= _late_reads(value, me, late) - known
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Attribute) and \
                stmt.target.attr in late and stmt.target.attr not in known:
            needs.add(stmt.target.attr)
        if isinstance(stmt, gast.Assign):
            for target in stmt.targets:
                needs |= _late_reads(target, me, late) - known
        ended = ended or any(isinstance(n, gast.Return) for n in trees.walk(stmt))
        if isinstance(stmt, gast.Assign) and not ended:
            known |= {t.attr for t in stmt.targets if isinstance(t, gast.Attribute) and
                      isinstance(t.value, gast.Name) and t.value.id == me and t.attr in late}
    return known, needs


def _set_before_read(fdef, var, cls, methods, state) -> bool:
    """Is every attribute of ``var`` (an object of ``cls``) that ``__init__`` does not set
    (``build()`` sets ``self.b``, the function ``c.scale = 2.0``) set before it is read,
    on every path? Python raises AttributeError where not; s2sad then leaves the object
    as it is (refused). Sets in a branch count where both branches set."""
    late = set(state) - set(_set_at_top(methods["__init__"]))
    if not late:
        return True
    if any(isinstance(n, gast.Attribute) and n.attr in methods and isinstance(n.value, gast.Name)
           and n.value.id == m.args.args[0].id for m in methods.values() for n in trees.walk(m)):
        return False  # (a method calling another: what it sets is not followed here)
    effects = {name: _sets_and_needs(m, late) for name, m in methods.items()}
    if effects["__init__"][1]:
        return False

    def reads(node) -> set:
        return _late_reads(node, var, late)

    def block(stmts, known):
        for stmt in stmts:
            if known is None:
                return None
            known = stmt_(stmt, known)
        return known

    def stmt_(stmt, known):
        if any(isinstance(n, (gast.FunctionDef, gast.Lambda)) and reads(n)
               for n in trees.walk(stmt)):
            return None  # (read when it is called)
        value = getattr(stmt, "value", None)
        if isinstance(stmt, gast.Assign) and isinstance(value, gast.Call) and \
                len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) and \
                stmt.targets[0].id == var and isinstance(value.func, gast.Name) and \
                value.func.id == cls:
            return set() if reads(value) <= known else None  # (a new object)
        if isinstance(stmt, (gast.Assign, gast.Expr)) and isinstance(value, gast.Call) and \
                isinstance(value.func, gast.Attribute) and \
                isinstance(value.func.value, gast.Name) and value.func.value.id == var and \
                value.func.attr in effects:
            sets, needs = effects[value.func.attr]
            targets = stmt.targets if isinstance(stmt, gast.Assign) else []
            if not reads(value) | needs | reads(gast.Tuple(targets, gast.Load())) <= known:
                return None
            return known | sets
        if isinstance(stmt, gast.If):
            if not reads(stmt.test) <= known:
                return None
            body, orelse = block(stmt.body, set(known)), block(stmt.orelse, set(known))
            return None if body is None or orelse is None else body & orelse
        if isinstance(stmt, (gast.For, gast.While)):
            head = stmt.iter if isinstance(stmt, gast.For) else stmt.test
            if not reads(head) <= known or isinstance(stmt, gast.For) and reads(stmt.target):
                return None
            first = block(stmt.body, set(known))
            again = first is not None and block(stmt.body, known & first)
            if first is None or again is None or block(stmt.orelse, known & first) is None:
                return None
            return known & first
        if isinstance(stmt, (gast.Assign, gast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            if not reads(value) <= known:
                return None
            if isinstance(stmt, gast.AugAssign) and not reads(
                    gast.Attribute(stmt.target.value, stmt.target.attr, gast.Load())
                    if isinstance(stmt.target, gast.Attribute) else stmt.target) <= known:
                return None
            for target in targets:
                if isinstance(target, gast.Attribute) and isinstance(target.value, gast.Name) \
                        and target.value.id == var:
                    known = known | {target.attr}
                elif not reads(target) <= known:
                    return None
            return known
        return known if reads(stmt) <= known else None

    return block(fdef.body, set()) is not None


def _read_only(node) -> bool:
    """Is ``node`` a name, a constant, or an item or basic slice of a name by constants
    (``x[3]``, ``x[:2]``): read in any order, the same values?"""
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        return all(isinstance(p, gast.Constant) or isinstance(p, gast.Slice) and all(
            b is None or isinstance(b, gast.Constant) for b in (p.lower, p.upper, p.step))
            for p in parts)
    return isinstance(node, (gast.Name, gast.Constant))


def _by_position(call, fields) -> None:
    """A dataclass's ``P(w=v, b=c)`` as ``P(v, c)`` (its defaults written out), where that
    evaluates them in the same order: keywords in the fields' order, or names and
    items of names by constants only; else left as it is (refused later)."""
    if any(isinstance(a, gast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords) or len(call.args) > len(fields):
        return
    given = dict(zip([n for n, _ in fields], call.args))
    for k in call.keywords:
        if k.arg in given or k.arg not in {n for n, _ in fields}:
            return  # (Python raises TypeError)
        given[k.arg] = k.value
    order = [k.arg for k in call.keywords]
    if order != [n for n, _ in fields if n in order] and not all(
            _read_only(k.value) for k in call.keywords):
        return
    args = []
    for name, default in fields:
        if name in given:
            args.append(given[name])
        elif default is _ABSENT or isinstance(default, tuple):
            return  # (Python raises TypeError; a tuple default: left as it is)
        else:
            args.append(gast.Constant(default, None))
    call.args, call.keywords = args, []


def _statements(body):
    """The statements of ``body`` and of the blocks in it (loops, branches), in order."""
    for stmt in body:
        yield stmt
        for block in ("body", "orelse"):
            if isinstance(getattr(stmt, block, None), list) and \
                    not isinstance(stmt, gast.FunctionDef):
                yield from _statements(getattr(stmt, block))


class _Attributes(trees.Transformer):
    """``acc.attr`` as ``acc__attr``, for the objects written as variables."""

    def __init__(self, objects: dict):
        self.objects = objects

    def visit_Attribute(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.objects and \
                node.attr in self.objects[node.value.id][3] and \
                node.attr not in self.objects[node.value.id][2]:  # (a class attribute)
            return gast.copy_location(gast.Attribute(_name(self.objects[node.value.id][0]),
                                                     node.attr, gast.Load()), node)
        if isinstance(node.value, gast.Name) and node.value.id in self.objects and \
                node.attr in self.objects[node.value.id][2]:
            return gast.copy_location(_name(f"{node.value.id}__{node.attr}", not isinstance(
                node.ctx, gast.Load)), node)
        return self.generic_visit(node)


def objects_as_variables(fdef, source, helper=None):
    """``fdef`` with its objects of plain classes of its own module written as variables
    (see the module); ``fdef`` itself where there are none. ``helper``: a runtime
    helper's name in the generated code (None: a deep copy of an object is left as it is).
    A change in place of an attribute's item, ``p.w[i] = v``, is then ``p__w[i] = v``;
    one left (``p`` not written so) is refused here."""
    fdef = _objects_as_variables(fdef, source, helper)
    for node in trees.walk(fdef):
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, gast.AugAssign) else []
        for target in targets:
            if isinstance(target, gast.Subscript) and \
                    isinstance(target.value, gast.Attribute) and \
                    not trees.flat_item(target) and isinstance(target.value.value, gast.Name):
                shown = gast.unparse(target.value).strip()
                raise source.syntax_error(
                    f"assignment into {shown}, which changes an object's array or list in "
                    "place where the reverse sweep cannot see it", target,
                    f"Make a new value and set the attribute: `{shown} = np.where(...)` or a "
                    "copy changed (`buf = x.copy()`).")
    return fdef


def _objects_as_variables(fdef, source, helper=None):
    import sys
    params = {a.id for a in fdef.args.args + fdef.args.kwonlyargs + fdef.args.posonlyargs}
    local = params | trees.assigned_names(fdef)
    classes, shared, dataclasses_ = {}, {}, {}

    def is_function(node) -> bool:
        """Is ``node`` a lambda, or a free name of a function or class (a value that may
        be called: s2sad follows it where it is called, not held in a variable)?"""
        if isinstance(node, gast.Lambda):
            return True
        if not isinstance(node, gast.Name) or node.id in local:
            return False
        try:
            value = source.resolve(node.id)
        except KeyError:
            return False
        return callable(value) and not isinstance(value, type(gast))

    def held(value) -> list:
        """The names and lambdas of ``value`` but the functions it calls."""
        called = {id(n.func) for n in trees.walk(value) if isinstance(n, gast.Call)}
        return [n for n in trees.walk(value) if isinstance(n, (gast.Name, gast.Lambda)) and
                id(n) not in called]

    fdef = AttributesByName(lambda name: name not in local and source.is_builtin(name)
                            ).visit(fdef)  # (getattr(m, "w"): m.w)
    fdef.body = Replaced(fdef, source, local, lambda cls: dataclass_fields(cls) if
                         class_methods(cls) is not None else None).block(fdef.body)
    fdef.body = Constructors(fdef, source, local, class_methods).block(fdef.body)  # (p =
    # Layer.make(w): p = Layer(w * 2.0))

    def storing(call) -> bool:
        """Does ``call`` make an object of a class written as variables whose ``__init__``
        only stores its arguments and constants?"""
        if not isinstance(call.func, gast.Name) or call.func.id in local:
            return False
        try:
            value = source.resolve(call.func.id)
        except KeyError:
            return False
        methods = class_methods(value) if isinstance(value, type) else None
        init = methods.get("__init__") if methods is not None else None
        if init is None or not init.args.args:
            return False
        me, own = init.args.args[0].id, trees.assigned_names(init)
        return all(
            isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant) or
            isinstance(s, gast.Assign) and len(s.targets) == 1 and (
                isinstance(s.targets[0], gast.Name) or
                isinstance(s.targets[0], gast.Attribute) and
                isinstance(s.targets[0].value, gast.Name) and s.targets[0].value.id == me) and
            (isinstance(s.value, gast.Name) and s.value.id in own - {me} or
             isinstance(s.value, gast.Constant)) for s in init.body)  # (no global read)

    fdef.body = ObjectLoops(fdef, storing).block(fdef.body)  # (for layer in [A(w), B(s)])

    def making(call) -> bool:
        """Does ``call`` make an object of a class written as variables?"""
        try:
            value = source.resolve(call.func.id) if isinstance(call.func, gast.Name) and \
                call.func.id not in local else None
        except KeyError:
            return False
        return isinstance(value, type) and class_methods(value) is not None

    fdef = NamedItems(fdef, making).visit(fdef)  # (layers["a"]: layers__a, one object)
    _objects_handed_on(fdef, source, params, making)  # (helper(o.inner, x), inn = o.get())
    local = params | trees.assigned_names(fdef)
    called = {n.func.attr for n in trees.walk(fdef) if isinstance(n, gast.Call) and
              isinstance(n.func, gast.Attribute)}  # (t.total(x): a method called here)
    for node in trees.walk(fdef):
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)) or \
                node.func.id in local or node.func.id in classes:
            continue
        try:
            value = source.resolve(node.func.id)
        except KeyError:
            continue
        if not isinstance(value, type):
            continue
        finalizer = next((c for c in value.__mro__ if "__del__" in vars(c)), None)
        if finalizer is not None and inspect.isfunction(vars(finalizer)["__del__"]):
            raise source.error(
                UnsupportedSyntaxError, f"an object of {value.__name__} made in the function, "
                f"whose class has a __del__ ({finalizer.__qualname__}.__del__): Python runs "
                "it when the object goes, and s2sad does not follow when that is", node,
                hint=f"Make the {value.__name__} outside the function and pass it in, or "
                "give its class a method that does the work of __del__, called where the "
                "work is to be done.")
        methods = class_methods(value)
        if methods is None or recursive_methods(value) & called:
            continue  # (a recursive method called: the object stays one, the method a
            # recursive call, :meth:`.objects.ObjectMethods._made_here_recursive`)
        free = {n.id for m in methods.values() for n in trees.walk(m)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and
                n.id not in {a.id for a in m.args.args} | trees.assigned_names(m)}
        if free & local:
            continue  # (a name of the method's module the function has a variable of)
        module = sys.modules.get(getattr(value, "__module__", None) or "")
        theirs = getattr(module, "__dict__", None)
        if theirs is None or theirs is not source.globals and any(
                theirs.get(n, _ABSENT) is not source.globals.get(n, _ABSENT) for n in free):
            continue  # (a class of another module whose methods read a name meaning
            # something else here, or nothing: they are read as the function's code)
        if any(is_function(n) for m in methods.values() for stmt in trees.walk(m)
               if isinstance(stmt, gast.Assign) for n in held(stmt.value)
               if not isinstance(n, gast.Name) or n.id not in {a.id for a in m.args.args}
               | trees.assigned_names(m)):
            continue  # (self.field = field: an attribute holding a function)
        classes[node.func.id] = methods
        fields = dataclass_fields(value)
        shared[node.func.id] = class_data(value) - {n for n, _ in fields or ()}
        if fields is not None:
            dataclasses_[node.func.id] = fields
    if not classes:
        return fdef
    kept = _held_lists(fdef, classes, shared, dataclasses_, source, storing)  # (Seq([A(w)]))

    def deepcopy(call) -> bool:
        """Is ``call`` ``copy.deepcopy(...)`` (or the function under another name)?"""
        func = call.func
        try:
            if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                    func.value.id not in local:
                return getattr(source.resolve(func.value.id), func.attr, None) is copy.deepcopy
            return isinstance(func, gast.Name) and func.id not in local and \
                source.resolve(func.id) is copy.deepcopy
        except KeyError:
            return False

    writer = ObjectsAsVariables(classes, is_function, shared, dataclasses_, deepcopy, helper)
    fdef = writer.visit(fdef)
    for node in trees.walk(fdef):  # (Seq_2(a, b) of an object not written as variables:
        if id(node) in kept:       # the call as written, refused later)
            node.func, node.args = kept[id(node)][1:]
    source.shown.update(writer.shown)
    return fdef


def _objects_handed_on(fdef, source, params, making) -> None:
    """An object made here handed to a one-line helper of the module, or handed out by
    its method (``inn = o.get()``), read where it is used (:mod:`.object_helpers`)."""
    from .object_helpers import handed_out, helpers_inlined, rooted
    made = {}  # a name bound to objects of plain classes only -> their class, or None
    stores = {}
    for node in trees.walk(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name) and \
                isinstance(node.value, gast.Call) and making(node.value):
            cls = source.resolve(node.value.func.id)
            name = node.targets[0].id
            made[name] = cls if made.get(name, cls) is cls else None
    objects = {n for n, cls in made.items() if cls is not None and n not in params}
    methods_of = {}
    for name in objects:
        methods = class_methods(made[name]) if stores.get(name) == 1 else None
        if methods is not None:
            methods_of[name] = (made[name], methods)
    if methods_of:
        handed_out(fdef, methods_of)
    if objects:
        def resolve(name):
            try:
                return source.resolve(name)
            except KeyError:
                return None
        helpers_inlined(fdef, resolve, lambda node: rooted(node, objects),
                        params | trees.assigned_names(fdef))


def _held_lists(fdef, classes, shared, fields, source, storing) -> None:
    """``net = Seq([Dense(a), Dense(b)])``, ``Seq.__init__`` keeping the list in an
    attribute (``self.layers = layers``) that its methods read only in ``for layer in
    self.layers:`` loops (no ``break``, ``continue`` or ``else``, ``layer`` read in the
    loop only), ``len(self.layers)`` and ``self.layers[k]``: a class of its own for the
    call, ``Seq_2``, whose ``__init__`` makes each item (``self.layers__0 = Dense(a)``: an
    object held, :func:`.class_forms.held_objects_inlined`) and whose loops are written
    out item by item; ``net = Seq_2(a, b)``. Each item's class only stores its
    arguments, so making the items later, from the arguments evaluated first, in the
    order written, gives objects holding the same values (as :class:`.ObjectLoops`).
    ``{id: (call, its function, its arguments)}`` of the calls changed (put back where
    the object is not written as variables after all)."""
    import sys
    taken = {n.id for n in trees.walk(fdef) if isinstance(n, gast.Name)}
    count, kept = 0, {}
    for stmt in list(_statements(fdef.body)):
        call = stmt.value if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name) else None
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Name) and
                call.func.id in classes and call.func.id not in fields and
                not shared.get(call.func.id) and not call.keywords):
            continue
        try:
            cls = source.resolve(call.func.id)
        except KeyError:
            continue
        module = getattr(sys.modules.get(getattr(cls, "__module__", None) or ""), "__dict__",
                         None)
        methods = classes[call.func.id]
        init = methods.get("__init__")
        at = next((i for i, a in enumerate(call.args) if isinstance(a, (gast.List, gast.Tuple))
                   and a.elts and all(isinstance(e, gast.Call) and isinstance(e.func, gast.Name)
                                      and storing(e) and not e.keywords for e in a.elts)), None)
        if at is None or module is None or init is None or len(init.args.args) != \
                len(call.args) + 1 or getattr(methods, "properties", None):
            continue
        items = call.args[at].elts
        if any(module.get(e.func.id) is not source.resolve(e.func.id) for e in items) or \
                any(isinstance(a, gast.Starred) for e in items for a in e.args):
            continue
        made = _specialized(methods, init.args.args[at + 1].id, items, module, taken)
        if made is None:
            continue
        new_methods, params = made
        from .class_forms import held_objects_inlined, self_calls_hoisted
        held = held_objects_inlined(cls, new_methods, class_methods)
        if not self_calls_hoisted(new_methods, _Hoisting) or \
                _state(new_methods, frozenset(), None) is None or \
                any(isinstance(n, gast.Attribute) and n.attr.split("__")[0] == params[0]
                    and "__" not in n.attr for m in new_methods.values()
                    for n in trees.walk(m)):
            continue
        count += 1
        name = f"{call.func.id}_{count + 1}"
        while name in taken or name in classes:
            count += 1
            name = f"{call.func.id}_{count + 1}"
        taken.add(name)
        methods_of = _Methods(new_methods)
        methods_of.properties, methods_of.held = {}, held
        classes[name] = methods_of
        shared[name] = frozenset()
        kept[id(call)] = (call, call.func, call.args)
        call.func = gast.copy_location(_name(name), call.func)
        call.args = call.args[:at] + [a for e in items for a in e.args] + call.args[at + 1:]
    return kept


def _specialized(methods, param, items, module, taken):
    """(:func:`_held_lists`: the class's methods for the list ``items`` given to
    ``param``, and ``[attribute]``; None where the attribute is read otherwise.)"""
    init = methods["__init__"]
    me = init.args.args[0].id
    sets = [i for i, st in enumerate(init.body) if isinstance(st, gast.Assign) and
            len(st.targets) == 1 and isinstance(st.targets[0], gast.Attribute) and
            isinstance(st.targets[0].value, gast.Name) and st.targets[0].value.id == me and
            isinstance(st.value, gast.Name) and st.value.id == param]
    if len(sets) != 1 or sum(isinstance(n, gast.Name) and n.id == param
                             for n in trees.walk(init)) != 2:
        return None  # (the list read otherwise, or kept twice)
    attr = init.body[sets[0]].targets[0].attr
    n = len(items)
    new, params = {}, []
    for key, fdef in methods.items():
        fdef = trees.clone(fdef)
        own = fdef.args.args[0].id if fdef.args.args else None

        def holds(node):
            return isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                node.value.id == own and node.attr == attr

        fine = set()
        for node in trees.walk(fdef):  # (len(self.a), self.a[k]: n, self.a__k)
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                    node.func.id == "len" and len(node.args) == 1 and holds(node.args[0]) and \
                    module.get("len", len) is len:
                fine.add(id(node.args[0]))
            k = _int_constant(node.slice) if isinstance(node, gast.Subscript) else None
            if isinstance(node, gast.Subscript) and holds(node.value) and k is not None and \
                    -n <= k < n and isinstance(node.ctx, gast.Load):
                fine.add(id(node.value))
        def iterated(node, holds=holds):
            """``(None, node)`` for ``self.a``, ``(k, node)`` for ``enumerate(self.a)``
            (``k``: its int start), else None."""
            if holds(node):
                return None, node
            if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and
                    node.func.id == "enumerate" and module.get("enumerate", enumerate)
                    is enumerate and node.args and holds(node.args[0])):
                return None
            given = node.args[1:] + [k.value for k in node.keywords if k.arg == "start"]
            start = _int_constant(given[0]) if given else 0
            if start is None or len(given) > 1 or \
                    any(k.arg != "start" for k in node.keywords):
                return None
            return start, node.args[0]

        if key == "__init__" and any(isinstance(x, gast.For) and iterated(x.iter)
                                     for x in trees.walk(fdef)):
            return None  # (the items made in __init__ after the loop: not written so)
        kept = id(fdef.body[sets[0]].targets[0]) if key == "__init__" else None
        body = _unrolled(fdef.body, iterated, attr, own, n, fine)
        if body is None:
            return None
        fdef.body = body
        for node in trees.walk(fdef):
            for field, value in list(gast.iter_fields(node)):
                if isinstance(value, gast.Call) and id(value.args[0] if value.args else None) \
                        in fine and isinstance(value.func, gast.Name) and value.func.id == "len":
                    setattr(node, field, gast.copy_location(gast.Constant(n, None), value))
                elif isinstance(value, gast.Subscript) and id(value.value) in fine:
                    k = _int_constant(value.slice) % n
                    setattr(node, field, gast.copy_location(gast.Attribute(
                        _name(own), f"{attr}__{k}", gast.Load()), value))
        if any(holds(n_) and id(n_) != kept for n_ in trees.walk(fdef)):
            return None  # (self.a read otherwise: left as it was)
        new[key] = fdef
    init = new["__init__"]
    at = [a.id for a in init.args.args].index(param)
    made, args = [], []
    for k, item in enumerate(items):
        names = []
        for j in range(len(item.args)):
            fresh, m = f"{attr}__{k}_{j}", 1
            while fresh in taken:
                m += 1
                fresh = f"{attr}__{k}_{j}_{m}"
            taken.add(fresh)
            names.append(fresh)
        args += names
        made.append(trees.located(gast.Assign(
            [gast.Attribute(_name(me), f"{attr}__{k}", gast.Store())],
            gast.Call(_name(item.func.id), [_name(a) for a in names], []), None),
            init.body[sets[0]]))
    init.args.args[at:at + 1] = [gast.Name(a, gast.Param(), None, None) for a in args]
    init.body[sets[0]:sets[0] + 1] = made
    return new, [attr]


def _int_constant(node) -> int | None:
    """``k`` for ``k`` or ``-k`` written as an int constant, else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        k = _int_constant(node.operand)
        return None if k is None else -k
    return node.value if isinstance(node, gast.Constant) and type(node.value) is int else None


def _unrolled(body, iterated, attr, me, n, fine):
    """``body`` with each ``for v in self.attr:`` written out item by item, ``v`` read as
    ``self.attr__k``; None where such a loop breaks, continues, has an ``else``, binds
    ``v`` or ``v`` is read after it. ``for i, v in enumerate(self.attr):`` is so too,
    each item's body after ``i = k`` (``i`` is then what Python leaves it, each turn
    and after the loop)."""
    out = []
    for at, stmt in enumerate(body):
        walked = iterated(stmt.iter) if isinstance(stmt, gast.For) else None
        if walked is not None:
            start, index = walked[0], None
            if start is not None:
                target = stmt.target
                if not (isinstance(target, gast.Tuple) and len(target.elts) == 2 and
                        all(isinstance(e, gast.Name) for e in target.elts)) or \
                        target.elts[0].id == target.elts[1].id:
                    return None
                index, stmt = target.elts[0], gast.copy_location(gast.For(
                    target.elts[1], walked[1], stmt.body, stmt.orelse, None), stmt)
            if not isinstance(stmt.target, gast.Name) or stmt.orelse or any(
                    isinstance(x, (gast.Break, gast.Continue, gast.FunctionDef, gast.Lambda))
                    or isinstance(x, gast.Name) and x.id == stmt.target.id and
                    not isinstance(x.ctx, gast.Load) for s in stmt.body for x in trees.walk(s)):
                return None
            var = stmt.target.id
            if any(isinstance(x, gast.Name) and x.id == var for s in body[at + 1:]
                   for x in trees.walk(s)):
                return None  # (Python leaves v the last item: read after the loop)
            for k in range(n):
                if index is not None:
                    out.append(trees.located(gast.Assign(
                        [gast.Name(index.id, gast.Store(), None, None)],
                        gast.Constant(start + k, None), None), stmt))
                for s in stmt.body:
                    s = trees.clone(s)
                    for x in trees.walk(s):
                        for field, value in list(gast.iter_fields(x)):
                            if isinstance(value, gast.Name) and value.id == var:
                                setattr(x, field, gast.copy_location(gast.Attribute(
                                    _name(me), f"{attr}__{k}", gast.Load()), value))
                            elif isinstance(value, list):
                                value[:] = [gast.copy_location(gast.Attribute(
                                    _name(me), f"{attr}__{k}", gast.Load()), v)
                                    if isinstance(v, gast.Name) and v.id == var else v
                                    for v in value]
                    out.append(s)
            continue
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(stmt, gast.FunctionDef):
                inner = _unrolled(inner, iterated, attr, me, n, fine)
                if inner is None:
                    return None
                setattr(stmt, field, inner)
        out.append(stmt)
    return out


# --- a method call inside an expression, made a statement of its own ------------------------

class _Keep(Exception):
    """A method call where taking it out would change what runs, or when (left as it was)."""


def _slots(node, objects) -> list | None:
    """``node``'s operands as ``(holder, field, index)``, in the order Python evaluates them;
    None for an expression that may skip one or run one again (``and``, ``x if c else y``,
    a comprehension, a lambda, a chained comparison) or that this does not walk."""
    if isinstance(node, gast.BinOp):
        return [(node, "left", None), (node, "right", None)]
    if isinstance(node, gast.UnaryOp):
        return [(node, "operand", None)]
    if isinstance(node, gast.Attribute):
        return [(node, "value", None)]
    if isinstance(node, gast.Subscript):
        return [(node, "value", None), (node, "slice", None)]
    if isinstance(node, (gast.Tuple, gast.List)):
        return [(node, "elts", i) for i in range(len(node.elts))]
    if isinstance(node, gast.Compare) and len(node.ops) == 1:
        return [(node, "left", None), (node, "comparators", 0)]
    if isinstance(node, gast.Slice):
        return [(node, f, None) for f in ("lower", "upper", "step") if getattr(node, f)]
    if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
        return [(node.generators[0], "iter", None)]  # (evaluated at once, in this scope;
    if isinstance(node, gast.Call) and not any(isinstance(a, gast.Starred) for a in node.args) \
            and all(k.arg is not None for k in node.keywords):
        root = node.func
        while isinstance(root, gast.Attribute):
            root = root.value
        if isinstance(root, gast.Name) and root.id not in objects:
            head = []  # (np.sum, w.dot: a function of a module, a method of the same array)
        elif isinstance(node.func, gast.Attribute):
            head = [(node.func, "value", None)]  # (acc.total.dot: acc.total, read first)
        else:
            head = [(node, "func", None)]
        return head + [(node, "args", i) for i in range(len(node.args))] + \
            [(k, "value", None) for k in node.keywords]
    return None


def _get(slot):
    holder, field, index = slot
    return getattr(holder, field) if index is None else getattr(holder, field)[index]


def _set(slot, value):
    holder, field, index = slot
    if index is None:
        setattr(holder, field, value)
    else:
        getattr(holder, field)[index] = value


class _Block:
    """Statements written in place of one (a comprehension's loop)."""

    def __init__(self, stmts):
        self.stmts = stmts


class _Hoisting:
    """Each call ``obj.m(...)`` of a method of an object (``methods``: variable -> its class's
    method names) written as a statement of its own, ``_obj__h0 = obj.m(...)``, before the
    statement that held it; and every operand Python evaluates before it (``acc.total`` in
    ``acc.total + acc.add(v)``, ``f(w)`` in ``f(w) * acc.add(v)``) kept in a variable before
    it too, so that each is evaluated when Python evaluates it. A name or a constant stays:
    it is the same object (the method cannot bind another to it)."""

    def __init__(self, methods: dict):
        self.methods = methods
        self.counter = 0

    def target(self, node) -> str | None:
        """The object variable ``node`` calls a method of, else None."""
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                isinstance(node.func.value, gast.Name) and \
                node.func.attr in self.methods.get(node.func.value.id, ()):
            return node.func.value.id
        return None

    def holds(self, node) -> bool:
        return any(self.target(n) for n in trees.walk(node))

    def temp(self, value, out, var):
        name = f"_{var}__h{self.counter}"
        self.counter += 1
        out.append(gast.Assign([_name(name, True)], value, None))
        return _name(name)

    def flat(self, node, out, var, top=False):
        """``node`` with its method calls taken out into ``out`` (see the class)."""
        if not self.holds(node):
            return node
        mine = self.target(node)
        slots = _slots(node, () if mine else self.methods)  # (obj.m: bound when called)
        if slots is None:
            raise _Keep
        last = max([i for i, s in enumerate(slots) if self.holds(_get(s))], default=-1)
        for i, slot in enumerate(slots):
            value = _get(slot)
            if i < last and not isinstance(value, (gast.Name, gast.Constant)):
                _set(slot, self.temp(self.flat(value, out, var), out, var))
            elif i == last:
                _set(slot, self.flat(value, out, var))
        if mine and not top:
            return self.temp(node, out, mine)
        return node

    def statement(self, stmt) -> list:
        """``stmt``, preceded by the statements its calls were taken into."""
        if isinstance(stmt, _Block):
            return self.body(stmt.stmts)
        for block in ("body", "orelse"):
            if isinstance(getattr(stmt, block, None), list) and \
                    not isinstance(stmt, gast.FunctionDef):
                setattr(stmt, block, self.body(getattr(stmt, block)))
        if isinstance(stmt, (gast.Assign, gast.Expr)):
            field = "value"
            top = isinstance(stmt, gast.Expr) or len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name)
        elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) or \
                isinstance(stmt, gast.Return) and stmt.value is not None:
            field, top = "value", False
        elif isinstance(stmt, gast.If):
            field, top = "test", False
        elif isinstance(stmt, gast.For):
            field, top = "iter", False
        else:
            return [stmt]
        value = getattr(stmt, field)
        if not self.holds(value):
            return [stmt]
        out, saved = [], self.counter
        try:
            var = next(self.target(n) for n in trees.walk(value) if self.target(n))
            kept = self.flat(trees.clone(value), out, var, top)
        except _Keep:
            self.counter = saved
            return [stmt]
        setattr(stmt, field, kept)
        return [trees.located(s, stmt) for s in out] + [stmt]

    def body(self, stmts) -> list:
        return [s for stmt in stmts for s in self.statement(self.loop_of(stmt))]

    def loop_of(self, stmt):
        """``ys = [obj.m(v) for v in xs if c]`` as a loop (so that its call can be a
        statement): ``_ys = []``, ``for _v in xs: if c: _ys.append(obj.m(_v))``, ``ys =
        _ys``; its variables renamed, as a comprehension's are its own."""
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.ListComp) and
                self.holds(stmt.value)) or \
                any(isinstance(n, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                                   gast.GeneratorExp, gast.NamedExpr))
                    for g in stmt.value.generators for n in trees.walk(g.iter)) or \
                any(g.is_async for g in stmt.value.generators):
            return stmt
        comp = trees.clone(stmt.value)
        var = next(self.target(n) for n in trees.walk(comp) if self.target(n))
        renamed = {}
        for g in comp.generators:
            for n in trees.walk(g.target):
                if isinstance(n, gast.Name):
                    renamed.setdefault(n.id, f"_{var}__c{len(renamed) + self.counter}")
        self.counter += len(renamed)
        for n in trees.walk(comp):
            if isinstance(n, gast.Name) and n.id in renamed:
                n.id = renamed[n.id]
        made = f"_{var}__h{self.counter}"
        self.counter += 1
        inner = gast.Expr(gast.Call(gast.Attribute(_name(made), "append", gast.Load()),
                                    [comp.elt], []))
        for g in reversed(comp.generators):
            for test in reversed(g.ifs):
                inner = gast.If(test, [inner], [])
            inner = gast.For(g.target, g.iter, [inner], [], None)
        out = [gast.Assign([_name(made, True)], gast.List([], gast.Load()), None), inner,
               gast.Assign(stmt.targets, _name(made), None)]
        for n in (n for s in out for n in trees.walk(s)):
            if isinstance(n, gast.stmt):
                trees.located(n, stmt)
        return _Block(out)
