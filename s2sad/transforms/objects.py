"""Objects: ``model.predict(x)`` on an object of the user's class is inlined, ``self.w``
read from it, and a namedtuple built of its fields.

``Normalize.objects`` maps each variable (its single-assignment name) that holds a known
object to what is known of it: an argument's path (``model.layer``), or a module's object.
It is a small points-to map, cleared wherever a branch or a loop makes the object depend on
the path taken. A method called on a known object is inlined with the object as ``self``.
s2sad reads objects when it builds the gradient, so changes to an object's state
(``self.n = 1``, ``setattr``, a list of objects changed in place) are refused.
"""

from __future__ import annotations

import dataclasses
import types

import gast

from .. import trees
from .. import registry
from ..backends import ARRAY_TAGS, LIBRARIES
from ..codegen import unparse
from ..errors import DifferentiationError
from .single_assignment import _NOT_CONSTANT, _constant, _resolving, _static, _user_code


@dataclasses.dataclass(frozen=True)
class RecursiveCall:
    """What inlines a call of ``method``: nothing, it is a recursive call (a recursive
    method of an object made in the function, which stays an object)."""
    method: types.FunctionType


def argument_objects(tree, descriptors) -> dict:
    """The parameters of ``tree`` described (:func:`s2sad.descriptors.describe`) as
    objects of a user's class that the function does not assign: their methods are
    inlined where the function calls them (``Normalize.objects``)."""
    params = [a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs]
    stored = {n.id for stmt in tree.body for n in trees.walk(stmt)
              if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    from .kinds import objects_described
    return {name: _param_ref(name, desc) for name, desc in zip(params, descriptors or ())
            if (type(desc) is tuple and desc[0] == "object" or objects_described(desc)) and
            name not in stored}


_LEVELS = 3  # a method inlined for nested objects of its class at most so deep (then a


# recursive call: a module's tree of objects is not written out whole)

# attributes that read or change an object's attributes other than by name
_OBJECT_STATE = frozenset({"__setattr__", "__delattr__", "__dict__", "__getattribute__"})


def _item_ref(base, index):
    """The reference of item ``index`` (a constant, or a slice of constants) of a list of
    objects ``base``; for an index known only when the function runs, the reference of
    every item where the items are alike."""
    if base is not None and base[0] == "map":  # (self.layers["enc"]: a key written)
        key = _constant(index)
        return base[1][base[2].index(key)] if type(key) in (str, int) and \
            key in base[2] else None
    if base is None or base[0] != "seq":
        return None
    if isinstance(index, gast.Slice):
        parts = [None if part is None else _constant(part)
                 for part in (index.lower, index.upper, index.step)]
        if not all(part is None or type(part) is int for part in parts) or parts[2] == 0:
            return None
        return "seq", base[1][slice(*parts)], base[2]
    index = _constant(index)
    if index is _NOT_CONSTANT and base[2] is not None:  # (layers[i], alike items: any one's,
        return base[2]                                    # Python's IndexError out of range)
    if type(index) is not int or not -len(base[1]) <= index < len(base[1]):
        return None
    return base[1][index]


def argument_descriptors(tree, descriptors) -> dict:
    """The descriptors of the parameters of ``tree`` that the function never gives another
    value and that hold numbers, arrays and containers of them only (no object): a
    gradient called inside with them (``grad_loss(p, x)``) is inlined as its variant for
    those kinds (``Normalize.descriptors``)."""
    params = [a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs]
    stored = {n.id for stmt in tree.body for n in trees.walk(stmt)
              if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    return {name: desc for name, desc in zip(params, descriptors or ())
            if name not in stored and _numbers_only(desc)}


def _named(desc) -> bool:
    """Does ``desc`` hold a dict or a namedtuple (whose keys or fields the general variant
    of a gradient does not know)?"""
    if type(desc) is not tuple or desc[0] in ARRAY_TAGS or \
            desc[0] in ("object", "data", "function", "none"):
        return False
    if desc[0] == "dict" or len(desc) > 2:
        return True
    return any(map(_named, desc[1]))


def _numbers_only(desc) -> bool:
    if isinstance(desc, str):
        return desc != "any"
    if type(desc) is not tuple or desc[0] in ("object", "data", "function", "none"):
        return False
    if desc[0] in ARRAY_TAGS:
        return True
    items = [item for _, item in desc[1]] if desc[0] == "dict" else desc[1]
    return all(map(_numbers_only, items))


def _param_ref(path: str, desc) -> tuple:
    """What ``Normalize.objects`` keeps of an argument's object (or of a list of them:
    ``("seq", item references, the reference of every item)``) at ``path`` (``"model"``,
    ``"model.layers[0]"``). Where the items are alike (one class, the same members), every
    item's reference is one, at ``path[*]``: a loop over them stays a loop, its variable
    known as any of them (the entry tests them all)."""
    if desc[0] == "object":
        return "param", path, desc[1], desc[2], dict(desc[3])
    if desc[0] == "dict":  # (a dict of objects: ("map", references, keys), by key)
        return "map", tuple(_param_ref(f"{path}[{key!r}]", item) for key, item in desc[1]), \
            tuple(key for key, _ in desc[1])
    alike = all(item == desc[1][0] for item in desc[1])
    return "seq", tuple(_param_ref(f"{path}[{k}]", item) for k, item in enumerate(desc[1])), \
        _param_ref(f"{path}[*]", desc[1][0]) if alike else None


def _value_seq(seq) -> tuple:
    """The reference of a module's list of objects (``LAYERS``, ``net.layers``): its
    items noted, so that the gradient is built again when they change."""
    from ..source import note_items
    note_items(seq)
    return "seq", tuple(("value", item) for item in seq), None


class Objects:
    """The objects of :class:`Normalize`: which object a name holds, and its methods inlined."""

    def _refuse_object_changes(self, stmt, parts=None):
        """A list of objects changed in place (``self.layers.append(l)``, ``layers[0] =
        l``, ``layers += [l]``, through any name it has), or given where s2sad cannot follow
        it (into a display, a function not inlined, ``ls, k = layers, 1`` is followed), and
        ``setattr``, ``delattr``, ``vars``, ``__setattr__``, ``__dict__``: s2sad reads
        which objects a list holds, and an object's attributes, when it builds the
        gradient, so these are refused, never differentiated as if nothing changed; so are
        ``eval``, ``exec``, ``locals``, ``globals`` and ``vars()``, which read the
        function's variables by name.
        ``parts``: the expressions of a compound statement to look at (an ``if``'s test)."""
        import builtins
        targets = [stmt.target] if isinstance(stmt, gast.AugAssign) else [
            t.value for t in getattr(stmt, "targets", ()) if isinstance(t, gast.Subscript)]
        parents: dict = {}

        def parent(node):  # (the map made only for a list of objects: most have none)
            if not parents:
                parents.update({id(part): stmt for part in parts or ()})  # (an if's test)
                for root in parts if parts is not None else [stmt]:
                    for above in trees.walk(root):
                        for child in gast.iter_child_nodes(above):
                            parents[id(child)] = above
            return parents.get(id(node))
        for root in parts if parts is not None else [stmt]:
            for node in trees.walk(root):
                changed = None
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                        node.func.attr not in ("index", "count", "copy"):
                    changed = node.func.value
                if node in targets:
                    changed = node
                if changed is not None:
                    ref = self._object_ref(changed)
                    if ref is not None and ref[0] == "seq":
                        raise self.source.syntax_error(
                            f"a change to the list of objects {unparse(changed)!r} in place",
                            stmt, "s2sad reads which objects the list holds when it builds "
                            "the gradient; make a new list instead (`layers = layers + "
                            "[extra]`).")
                if isinstance(node, gast.Call) and not node.args and not node.keywords and \
                        isinstance(node.func, gast.Name) and \
                        self._callee(node.func) is builtins.vars:  # (vars(): locals())
                    raise self.source.syntax_error(
                        "vars(), which reads or changes the function's variables by name",
                        stmt, "Write the expression out in the function: s2sad names the "
                        "variables of the code it generates its own way.")
                if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                        any(self._callee(node) is f for f in (builtins.setattr,
                                                              builtins.delattr, builtins.vars)) \
                        or isinstance(node, gast.Attribute) and node.attr in _OBJECT_STATE:
                    raise self.source.syntax_error(
                        f"{unparse(node)}, which reads or changes an object's attributes as "
                        "a dict", stmt, "Read attributes by name (self.w), and keep new "
                        "values in variables or pass them in as arguments.")
                if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                        any(self._callee(node) is f for f in (builtins.eval, builtins.exec,
                                                              builtins.locals, builtins.globals)):
                    raise self.source.syntax_error(  # (the generated code's are not the user's)
                        f"{node.id}, which reads or changes the function's variables by name",
                        stmt, "Write the expression out in the function: s2sad names the "
                        "variables of the code it generates its own way.")
                if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)) and \
                        isinstance(node.ctx, gast.Load) and \
                        not self._followed(node, parent, stmt):
                    raise self.source.syntax_error(
                        f"{unparse(node)!r}, a list of objects, where s2sad cannot follow "
                        "it", stmt, "Loop over it, index it (layers[0]), give it a name "
                        "(layers = self.layers), or pass it to a function of yours; s2sad "
                        "reads which objects it holds when it builds the gradient.")

    def _followed(self, node, parent_of, stmt) -> bool:
        """Is ``node`` not a list of objects, or one used where s2sad follows it (looped
        over, indexed, named, passed to a function of the user's or to ``len``...)?
        ``parent_of(node)``: the node above it."""
        import builtins
        ref = self._object_ref(node)
        if ref is None or ref[0] != "seq":
            return True
        parent = parent_of(node)
        if isinstance(parent, (gast.Attribute, gast.Subscript)) and parent.value is node or \
                isinstance(parent, (gast.Compare, gast.For, gast.comprehension, gast.Expr,
                                    gast.If, gast.While)) or \
                isinstance(parent, gast.UnaryOp) and isinstance(parent.op, gast.Not):
            return True  # (looped over, indexed, a method of it called, tested)
        if isinstance(parent, gast.Assign) and len(parent.targets) == 1 and \
                isinstance(parent.targets[0], gast.Name):
            return True
        if isinstance(parent, (gast.Tuple, gast.List)) and isinstance(stmt, gast.Assign) and \
                stmt.value is parent and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], (gast.Tuple, gast.List)) and \
                len(stmt.targets[0].elts) == len(parent.elts) and \
                all(isinstance(t, gast.Name) for t in stmt.targets[0].elts):
            return True  # (ls, k = self.layers, 1.0: ls is followed)
        if isinstance(parent, gast.Call) and node is not parent.func:
            called = self._callee(parent.func)
            return self.callee(parent.func) is not None or any(called is f for f in (
                builtins.len, builtins.list, builtins.tuple, builtins.enumerate, builtins.zip,
                builtins.reversed, builtins.iter, builtins.isinstance, builtins.print,
                builtins.id, builtins.type, builtins.repr, builtins.str))
        return False

    def _refuse_missing_attributes(self, stmt):
        """``np.not_a_function(x)``: a module attribute that does not exist is an undefined
        name, said so at its line (not a missing derivative rule, nor an AttributeError
        inside the generated code)."""
        for node in trees.walk(stmt):
            if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load):
                base = self._callee(node.value)
                if isinstance(base, types.ModuleType) and not hasattr(base, node.attr):
                    dotted = self._dotted(node)
                    raise self.source.error(
                        DifferentiationError, f"name {dotted!r} is not defined: module "
                        f"{base.__name__!r} has no attribute {node.attr!r}", node,
                        "Check the spelling, or define the function in your module.")

    def _named_parts(self, stmt, refs) -> None:
        """``ls, k = self.layers, 1.0``: each name given an object (or a list of them) is
        known as it, as ``ls = self.layers`` would be."""
        for target, ref in zip(stmt.targets[0].elts if refs else (), refs):
            if ref is not None and ref[0] != "module" and isinstance(target, gast.Name):
                self.root.objects[self.current[target.id]] = ref

    def _forget_objects(self, stmt) -> None:
        """After a branch, and in and after a loop, a variable ``stmt`` assigns holds an
        object that depends on the path taken: no object is known for it there (its
        methods are not inlined as one item's: ``for layer in ...`` in each branch)."""
        if not self.root.objects:
            return  # (no object known: none to forget, and no walk)
        for node in trees.walk(stmt):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and \
                    node.id in self.current:
                self.root.objects.pop(self.current[node.id], None)

    def _namedtuple(self, node):
        """``P(w, b=b)``, a namedtuple's class called: with a value for each field, in
        order (a default as the class keeps it), so that it is built of them; else None."""
        from .resolve import namedtuple_class
        try:
            cls = _static(node.func, self)
        except KeyError:
            return None
        if not namedtuple_class(cls):
            return None
        fields, defaults = cls._fields, cls._field_defaults
        given = dict(zip(fields, node.args))
        for keyword in node.keywords:
            if keyword.arg not in fields or keyword.arg in given:
                raise self.source.error(
                    DifferentiationError, f"{cls.__name__}() takes the fields "
                    f"{', '.join(fields)}: {keyword.arg or '**'} is not one more", node)
            given[keyword.arg] = keyword.value
        missing = [f for f in fields if f not in given and f not in defaults]
        if len(node.args) > len(fields) or missing:
            raise self.source.error(
                DifferentiationError, f"{cls.__name__}() takes the fields {', '.join(fields)}"
                f": {'a value for ' + ', '.join(missing) if missing else 'fewer values'} "
                "needed", node)
        args = []
        for field in fields:
            if field in given:
                args.append(self.atom(given[field]))
            elif _constant(gast.Constant(defaults[field], None)) is not _NOT_CONSTANT:
                args.append(gast.Constant(defaults[field], None))
            else:  # (a default of another kind: the value the class keeps)
                name = self.fixed_name(defaults[field], f"{cls.__name__}_{field}")
                args.append(self.load(name))
        func = self.simple(node.func) if self.is_atom(node.func) else self.atom(node.func)
        return gast.copy_location(gast.Call(func, args, []), node)

    def _object_ref(self, node):
        """What ``_object_method`` knows of the object ``node`` names: an argument of the
        function (or given to a helper) that is an object of a user's class, an object in
        its attributes (``self.layer``), or a module's object (``model``, ``net.layer``);
        ``("none",)`` for an attribute of such an object that is None (``self.act``, an
        optional layer: ``if self.act is not None`` is decided); else None."""
        from ..source import note_object
        from .kinds import describe, user_objects
        if isinstance(node, gast.Attribute):  # an object held by a known one
            base = self._object_ref(node.value)
            return None if base is None else self._member_ref(base, node.attr)
        if isinstance(node, gast.Subscript):  # an item of a list of objects: layers[0]
            return _item_ref(self._object_ref(node.value), node.slice)
        if not isinstance(node, gast.Name) or node.id in self.function_args:
            return None
        if self.lexical and self.parent is not None and node.id not in self.locals:
            return self.parent._object_ref(node)  # (a lambda or def inside: the caller's)
        if node.id in self.locals:
            return self.root.objects.get(self.current.get(node.id))
        try:
            obj = _static(node, self)
        except KeyError:
            return None
        if isinstance(obj, types.ModuleType):  # a module of the user's: its objects
            library = obj.__name__.split(".")[0] in LIBRARIES | {"math", "s2sad"}
            return None if library else ("module", obj)
        if user_objects(obj):  # a list of layers
            note_object(_resolving(node, self), node.id, obj)
            return _value_seq(obj)
        desc = describe(obj)
        if type(desc) is not tuple or desc[0] != "object":
            return None
        note_object(_resolving(node, self), node.id, obj)  # (the name given another: rebuilt)
        return "value", obj

    def _member_ref(self, base, attr: str):
        """The reference of ``base``'s attribute ``attr`` (see ``_object_ref``), noted for
        the checks at each call: its class (an argument's member), or itself (a module's
        object's)."""
        from ..source import note_length, note_path
        from .kinds import (_plain_lookup, data_descriptor, describe, objects_described,
                            user_objects)
        if base[0] in ("none", "seq", "map"):
            return None
        if base[0] == "module":  # (models.net: the module's object, noted as its attribute)
            member = getattr(base[1], attr, None)
            if user_objects(member):
                note_path(None, member, base[1], attr)
                return _value_seq(member)
            desc = describe(member)
            if type(desc) is not tuple or desc[0] != "object":
                return None
            note_path(None, member, base[1], attr)
            return "value", member
        if base[0] == "param":
            _, path, cls, hidden, members = base
            desc = members.get(attr)  # (only what Python reads from __dict__)
            if desc is None or isinstance(desc, str) or desc[0] in ("nd", "data") or \
                    desc[0] not in ("object", "none") and not objects_described(desc):
                return None  # (an array, a number, a list of np.matrix: see kinds.member)
            path = f"{path}.{attr}"
            if desc == ("none",):
                note_path(path, type(None))
                return ("none",)
            if desc[0] == "dict":  # a dict of objects: its class, keys, items' classes
                note_path(path, dict)
                note_length(path, tuple(key for key, _ in desc[1]))
                for key, item in desc[1]:
                    note_path(f"{path}[{key!r}]", item[1])
                return _param_ref(path, desc)
            if desc[0] != "object":  # a list of objects: its class, length, items' classes
                note_path(path, list if desc[0] == "list" else tuple)
                note_length(path, len(desc[1]))
                seq = _param_ref(path, desc)
                for k, item in [("*", desc[1][0])] if seq[2] else enumerate(desc[1]):
                    note_path(f"{path}[{k}]", item[1])
                return seq
            note_path(path, desc[1])
            return "param", path, desc[1], desc[2], dict(desc[3])
        if data_descriptor(type(base[1]), attr) or not _plain_lookup(type(base[1])):
            return None  # (a property may give a new object at each read)
        member = getattr(base[1], attr, None)
        if user_objects(member):
            note_path(None, member, base[1], attr)
            return _value_seq(member)
        desc = describe(member)
        if member is not None and (type(desc) is not tuple or desc[0] != "object"):
            return None
        note_path(None, member, base[1], attr)
        return ("none",) if member is None else ("value", member)

    def _renamed_ref(self, node):
        """``_object_ref`` of an expression whose names are already the function's own
        (``_Rename``: an argument, or an object a helper was given)."""
        if isinstance(node, gast.Attribute):
            base = self._renamed_ref(node.value)
            return None if base is None else self._member_ref(base, node.attr)
        if isinstance(node, gast.Name):
            return self.root.objects.get(node.id)
        return None

    def _property_read(self, node):
        """``self.w``, where ``w`` is a ``@property`` of the user's class (a getter only, of
        the user's code) of an object the normalizer knows: its getter inlined with the
        object, as a method is (``(call, inlining)``); None for any other attribute."""
        import inspect
        from ..source import note_method
        root = node.value
        while isinstance(root, (gast.Attribute, gast.Subscript)):
            root = root.value
        if not isinstance(root, gast.Name) or root.id not in self.locals:
            return None  # (a module's object: its properties read as values, as before)
        ref = self._object_ref(node.value)
        if ref is None or ref[0] not in ("param", "value"):
            return None
        cls = ref[2] if ref[0] == "param" else type(ref[1])
        found = inspect.getattr_static(cls, node.attr, None)
        if type(found) is not property or found.fset is not None or \
                found.fdel is not None or not isinstance(found.fget, types.FunctionType) or \
                not _user_code(found.fget) or registry.lookup(found.fget) is not None:
            return None
        path, obj = (ref[1], None) if ref[0] == "param" else (None, ref[1])
        note_method(cls, node.attr, found, path, False, obj)
        key = found.fget if found.fget in self.inlining else (found.fget, path or id(obj))
        call = gast.copy_location(gast.Call(gast.Attribute(node.value, node.attr, gast.Load()),
                                            [node.value], []), node)
        return call, (found.fget, None, None, key)

    def _object_method(self, node):
        """``self.act(z)``, ``model.predict(x)``, ``self.layer.forward(x)``, ``layer(x)``:
        the ``def`` of the object's class (``__call__`` for a call of the object), inlined
        with the object first (a staticmethod without it), where the object is known: an
        argument of a user's class, an object in its attributes, a module's object;
        ``(node, None)`` for the rest (an attribute of the object's own that hides the
        method, a property...)."""
        from ..source import note_method
        from .kinds import class_method
        func = node.func
        ref = self._object_ref(func)  # (the object called itself: its class's __call__)
        if ref is not None:
            receiver, name = func, "__call__"
        elif isinstance(func, gast.Attribute):
            if isinstance(func.value, gast.Call) and self._builtin_call(func.value) == "super":
                return self._super_method(node)
            ref, receiver, name = self._object_ref(func.value), func.value, func.attr
            if ref is None:
                recursion = self._recursive_method(node, receiver, name)
                if recursion is not None:
                    return recursion
                # Model.create(x): a classmethod of the user's class
                return self._class_method(node, func.value, None, name)
        if ref is None or ref[0] in ("none", "module", "seq", "map"):
            return node, None
        if ref[0] == "param":
            _, path, cls, hidden, _ = ref
            obj = None
            if name in hidden:
                return node, None
        else:
            _, obj = ref
            path, cls = None, type(obj)
            if name != "__call__" and name in getattr(obj, "__dict__", ()):
                return node, None
        found = class_method(cls, name)
        if found is None:  # self.create(x): a classmethod, given the object's class
            return self._class_method(node, None, cls, name, path, obj)
        if not _user_code(found[0]):
            return node, None
        method, takes_self = found
        # (its objects have attributes of their own, which Python reads first but for __call__)
        own = getattr(cls, "__dictoffset__", 0) != 0 and name != "__call__"
        note_method(cls, name, getattr(cls, name), path, own, obj)
        args = [receiver, *node.args] if takes_self else node.args
        ruled = registry.lookup(method) is not None
        # recursion: the method called on the object it runs for (not on another of its
        # class: a block of blocks is inlined level by level, as far as objects are known)
        levels = sum(k is method or type(k) is tuple and k[0] is method for k in self.inlining)
        key = method if method in self.inlining or levels >= _LEVELS else (
            method, path or id(obj))
        if ruled or key in self.inlining:  # a rule of its own (s2sad.defvjp(K.cube)),
            func = self._method_alias(method)  # or recursion: a call of the class's def
        call = gast.copy_location(gast.Call(func, args, node.keywords), node)
        return call, (None if ruled else (method, None, None, key))

    def _recursive_method(self, node, receiver, name: str):
        """``c.total(x)`` in a method ``total`` being inlined, ``c`` an object known only
        when the function runs (a child of a tree): a recursive call of that same method,
        on ``same_method(c, "total", total)``, which checks when it runs that ``c.total``
        is it; None where no method of that name is being inlined."""
        from ..runtime import recursion
        method = next((k for k in reversed(self.inlining) if isinstance(k, types.FunctionType)
                       and k.__name__ == name and "." in k.__qualname__), None)
        if method is None:
            method = next((k[0] for k in reversed(self.inlining) if type(k) is tuple and
                           isinstance(k[0], types.FunctionType) and k[0].__name__ == name and
                           "." in k[0].__qualname__), None)
        key = method
        if method is None:
            method, key = self._made_here_recursive(receiver, name), None
            key = None if method is None else RecursiveCall(method)
        if method is None or not isinstance(receiver, gast.Name) or node.keywords or \
                any(isinstance(a, gast.Starred) for a in node.args):
            return None
        check = self.fixed_name(recursion.same_method, "same_method")
        alias = self._method_alias(method)
        obj = gast.copy_location(gast.Call(
            self.load(check), [receiver, gast.Constant(name, None),
                               gast.Name(alias.id, gast.Load(), None, None)], []), node)
        call = gast.copy_location(gast.Call(alias, [obj, *node.args], []), node)
        return call, (method, None, None, key)

    def _made_here_recursive(self, receiver, name: str):
        """The function of ``name`` of the class of ``receiver``, a variable given only
        objects of one class of the user's made here (``t = Node(w, kids)``), where that
        method calls a method of its own name (recursion: the object stays an object,
        :mod:`.local_objects`); else None."""
        from .kinds import _plain_lookup, class_method
        from .local_objects import recursive_methods
        if not isinstance(receiver, gast.Name) or receiver.id not in self.locals or \
                self.parent is not None:
            return None
        made = set()
        for node in trees.walk(self.source.tree):
            if isinstance(node, gast.Name) and node.id == receiver.id and \
                    not isinstance(node.ctx, gast.Load):
                stmt = next((s for s in trees.walk(self.source.tree) if isinstance(
                    s, gast.Assign) and node in s.targets), None)
                if stmt is None or not isinstance(stmt.value, gast.Call):
                    return None
                try:
                    made.add(_static(stmt.value.func, self))
                except (KeyError, TypeError):
                    return None
        if len(made) != 1:
            return None
        cls = made.pop()
        if not isinstance(cls, type) or not _plain_lookup(cls) or \
                name not in recursive_methods(cls):
            return None
        found = class_method(cls, name)
        if found is None or not found[1] or not _user_code(found[0]):
            return None
        return found[0]

    def _class_method(self, node, owner, cls, name: str, path=None, obj=None):
        """``Model.create(x)`` (``owner``: the class, as written), ``self.create(x)`` (``cls``:
        the object's class): a ``@classmethod`` of the user's class, inlined with the class
        first; ``(node, None)`` for anything else."""
        import inspect

        from ..source import note_method
        from .kinds import _plain_lookup
        if owner is not None:
            try:
                cls = _static(owner, self)
            except KeyError:
                return node, None
        if not isinstance(cls, type) or not _plain_lookup(cls) or \
                not isinstance(inspect.getattr_static(cls, name, None), classmethod):
            return node, None
        method = inspect.getattr_static(cls, name).__func__
        if not isinstance(method, types.FunctionType) or not _user_code(method):
            return node, None
        note_method(cls, name, getattr(cls, name), path, False, obj)
        return self._inlined_call(node, method, self._class_alias(cls), path or id(obj))

    def _super_method(self, node):
        """``super().forward(x)`` (or ``super(Cls, self)``) in a method inlined for a known
        object: the method found after the method's class in the object's class's MRO, as
        Python finds it, inlined; ``(node, None)`` where it is not known."""
        import inspect

        from ..source import note_method
        from .kinds import _plain_lookup
        sup = node.func.value
        if sup.keywords or len(sup.args) not in (0, 2):
            return node, None
        if sup.args:
            try:
                start = _static(sup.args[0], self)
            except KeyError:
                return node, None
            receiver = sup.args[1]
        else:  # (the class the method is defined in: its __class__ cell, as Python reads it)
            func, params = self.source.func, self.source.tree.args.posonlyargs + \
                self.source.tree.args.args
            cells = dict(zip(getattr(getattr(func, "__code__", None), "co_freevars", ()),
                             getattr(func, "__closure__", None) or ()))
            if "__class__" not in cells or not params:
                return node, None
            start, receiver = cells["__class__"].cell_contents, gast.Name(
                params[0].id, gast.Load(), None, None)
        ref = self._object_ref(receiver)
        if ref is None or ref[0] not in ("param", "value"):
            return node, None
        cls = ref[2] if ref[0] == "param" else type(ref[1])
        path, obj = (ref[1], None) if ref[0] == "param" else (None, ref[1])
        mro = cls.__mro__
        if not isinstance(start, type) or start not in mro or not _plain_lookup(cls):
            return node, None
        name = node.func.attr
        found = next((k.__dict__[name] for k in mro[mro.index(start) + 1:]
                      if name in k.__dict__), None)
        first = receiver
        if isinstance(found, classmethod):
            found, first = found.__func__, self._class_alias(cls)
        elif isinstance(found, staticmethod):
            found, first = found.__func__, None
        if not isinstance(found, types.FunctionType) or not _user_code(found) or \
                registry.lookup(found) is not None:
            return node, None
        note_method(cls, name, inspect.getattr_static(cls, name, None), path, False, obj)
        return self._inlined_call(node, found, first, path or id(obj))

    def _inlined_call(self, node, method, first, where):
        """``node`` as a call of ``method`` given ``first`` (unless None) before its
        arguments, and what inlines it (a recursive call: one of the method's alias)."""
        levels = sum(k is method or type(k) is tuple and k[0] is method for k in self.inlining)
        key = method if method in self.inlining or levels >= _LEVELS else (method, where)
        args = [first, *node.args] if first is not None else list(node.args)
        call = gast.copy_location(gast.Call(self._method_alias(method), args, node.keywords),
                                  node)
        return call, (None if key in self.inlining else (method, None, None, key))

    def _class_alias(self, cls):
        """A name, in the generated code, for the user's class ``cls``."""
        return gast.Name(self.fixed_name(cls, cls.__name__), gast.Load(), None, None)

    def _method_alias(self, method):
        """A name, in the generated code, for a method of a class called as a function."""
        return gast.Name(self.fixed_name(method, method.__name__), gast.Load(), None, None)


def differentiated_attribute(node, sweep) -> bool:
    """Is ``node`` an attribute read (``w = model.W``) of an object a differentiated
    argument holds (``model``, ``model.layers[i]``...: see :func:`held_by`), active in
    ``sweep`` (the reverse or forward pass)? Its parameters:
    :func:`s2sad.runtime.structures.object_gradient`. (An object made in the function,
    ``m = Scale(a)``, is not one.)"""
    return isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
        sweep.wants(node.value) and held_object(sweep, node.value.id)


def held_object(sweep, name: str) -> bool:
    """Does ``name`` hold a differentiated argument that is an object of a user's class,
    or what it holds (:func:`held_by`)? Its sensitivity is a dict of its attributes'."""
    held = getattr(sweep, "held_objects", None)
    if held is None:
        held = sweep.held_objects = held_by(sweep.tree, [
            w for w in sweep.wrt if sweep.kind(w).foreign and not sweep.kind(w).data])
    return name in held


def held_by(tree, wrt) -> frozenset:
    """The names of ``tree`` (in single-assignment form) that hold a differentiated
    argument that is an object of a user's class, or what it holds: the arguments
    ``wrt``, and names given one of those, an attribute or an item of one, or
    ``list(...)`` of one."""
    held = set(wrt)
    assigns = [n for n in trees.walk(tree) if isinstance(n, gast.Assign) and
               len(n.targets) == 1 and isinstance(n.targets[0], gast.Name)]
    changed = True
    while changed:
        changed = False
        for stmt in assigns:
            value, name = stmt.value, stmt.targets[0].id
            if name in held:
                continue
            if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
                    value.func.id in ("list", "tuple") and len(value.args) == 1 and \
                    not value.keywords:
                value = value.args[0]
            while isinstance(value, (gast.Attribute, gast.Subscript)):
                value = value.value
            if isinstance(value, gast.Name) and value.id in held:
                held.add(name)
                changed = True
    return frozenset(held)


def not_a_parameter(source, node) -> bool:
    """Does the description of the object ``node`` reads from say the attribute holds no
    float (an int, or an integer or boolean array)?"""
    desc = (getattr(source, "members", None) or {}).get((node.value.id, node.attr))
    return desc == "int" or type(desc) is tuple and desc[0] in ARRAY_TAGS and \
        len(desc) > 2 and desc[2] in "iub"

