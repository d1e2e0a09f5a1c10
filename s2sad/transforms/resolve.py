"""What a normalized statement computes: its operation's rule and its operands.

Shared by the analyses and the reverse pass so they agree on every statement.

>>> import numpy as np
>>> from s2sad.codegen import unparse
>>> from s2sad.source import FunctionSource
>>> def f(x, w):
...     t_1 = x * w
...     t_2 = np.tanh(t_1)
...     t_3 = t_2 + x - w
...     t_4 = t_3
...     t_5 = x.shape
...     t_6 = np.argmax(t_3)
...     t_7 = [t_2, w]
...     t_8 = t_3[0]
...     t_9 = x.conjugate()
...     return t_8
>>> source = FunctionSource.of(f)
>>> local = {"x", "w"} | {f"t_{i}" for i in range(1, 10)}
>>> for stmt in source.tree.body[:-1]:
...     op = classify(stmt.value, source, local)
...     print(f"{unparse(stmt):22} {op.kind:9} {op.name:13} {[unparse(o) for o in op.operands]}")
t_1 = x * w            call      *             ['x', 'w']
t_2 = np.tanh(t_1)     call      numpy.tanh    ['t_1']
t_3 = t_2 + x - w      linear                  ['t_2 + x - w']
t_4 = t_3              copy                    ['t_3']
t_5 = x.shape          nondiff                 ['x']
t_6 = np.argmax(t_3)   nondiff   numpy.argmax  ['t_3']
t_7 = [t_2, w]         build                   ['t_2', 'w']
t_8 = t_3[0]           subscript               ['t_3']
t_9 = x.conjugate()    unknown   x.conjugate() ['x']
"""

from __future__ import annotations

import dataclasses
import numbers
import re
import sys
import types
import warnings
import weakref
from collections import abc

from dataclasses import dataclass

import gast
import numpy as np

from .. import trees
from .. import registry
from ..runtime.reductions import max_item, min_item
from ..backends import ARRAY_TAGS, BY_MODULE, LIBRARIES
from ..rules.operators import OPERATORS
from ..descriptors import (_MODELED, modeled, modeled_type, namedtuple_class,  # noqa: F401
                           unmodeled_data)
from ..source import MISSING, FunctionSource, held_foreign, note_attribute, note_type


# the kinds of value a differentiated one may be, whose attributes are all known
_DIFFERENTIATED = (np.ndarray, np.generic, float, complex, int, list, tuple, dict)


def missing_attribute(op: Op, kinds: dict) -> bool:
    """Is ``op``'s own message (an attribute no array, number, list, tuple or dict has:
    ``x.tranpose()``) the one to give, the value it is read from (its first operand) known
    by ``kinds`` to be one of those?"""
    receiver = op.operands[0] if op.operands else None
    if op.held:  # (whatever kind s2sad took it for: c = a + b of objects of the user's)
        return bool(op.message) and isinstance(receiver, gast.Name)
    return bool(op.message) and isinstance(receiver, gast.Name) and getattr(
        kinds.get(receiver.id), "tag", "any") in ("scalar", "array", "numeric", "list",
                                                  "tuple", "dict")


def nondiff_attribute(attr: str) -> bool:
    """Is ``x.attr`` a value with no derivative, whatever ``x`` is (``x.shape``): the
    ``no_derivative`` fact of the array attribute of that name?

    >>> nondiff_attribute("shape"), nondiff_attribute("real")
    (True, False)
    """
    facts = registry.facts(getattr(np.ndarray, attr, None))
    return facts is not None and facts.no_derivative


def static_value(node, source: FunctionSource, local_names: set[str]):
    """The object a name or dotted name outside the function refers to (KeyError if none)."""
    if isinstance(node, gast.Name) and node.id not in local_names:
        return source.resolve(node.id)
    if isinstance(node, gast.Attribute):
        base = static_value(node.value, source, local_names)
        try:
            value = getattr(base, node.attr)
        except AttributeError:
            raise KeyError(node.attr) from None
        holder = node.value.id if isinstance(node.value, gast.Name) else None
        # (helpers.act or model.act given another one, model another object: rebuilt)
        note_attribute(base, node.attr, value, source, holder)
        return value
    raise KeyError(getattr(node, "id", type(node).__name__))


def static_noted(node, source, local_names):
    """The value of the free name or dotted name ``node`` (``MISSING`` if none). A
    container or foreign data has its type and items' facts noted (``source.note_type``):
    another at a later call builds again."""
    try:
        found = static_value(node, source, local_names)
    except (KeyError, TypeError):
        return MISSING
    if isinstance(found, (abc.Collection, abc.MappingView)) and \
            not isinstance(found, (str, bytes, range)) and \
            (type(found) is not np.ndarray or found.dtype == object):
        if isinstance(node, gast.Name):
            if node.id in getattr(source, "closure", {}):
                note_type(source.closure[node.id], None, "cell")
            elif node.id in getattr(source, "globals", {}):
                note_type(source.globals, node.id, "item")
        else:
            try:
                holder = static_value(node.value, source, local_names)
            except (KeyError, TypeError):
                return found
            if not isinstance(holder, types.ModuleType) or \
                    holder.__name__.split(".")[0] not in LIBRARIES | sys.stdlib_module_names:
                note_type(holder, node.attr, "attr")
    return found


def known_value(node, source: FunctionSource, local_names: set[str], kind):
    """What a rule's :func:`registry.refusal` knows of an argument: a literal's or a
    module constant's value, ``registry.ARRAY`` for an array (``kind(name).numeric``), or
    ``registry.UNKNOWN``."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.Name) and kind(node.id).numeric:
        return registry.ARRAY
    try:
        value = static_value(node, source, local_names)
    except KeyError:
        return registry.UNKNOWN
    return value if isinstance(value, (str, bool, int, float)) else registry.UNKNOWN


@dataclass
class Op:
    """One normalized right-hand side, classified.

    kind: "copy", "linear" (chain of + and -), "call" (rule from the table),
    "subscript", "build" (tuple, list or dict display, a namedtuple's class called with
    a value for each field), "unpack", "constant",
    "nondiff" (no derivative: comparisons, shapes...) or "unknown" (no rule).
    """
    kind: str
    operands: list  # the atoms the value depends on, in rule order
    rule: registry.Rule | None = None
    keywords: dict | None = None
    name: str = ""
    advice: str = ""  # what to do instead, where an "unknown" one has better than a rule
    fields: tuple = ()  # a namedtuple built (P(w, b), "build"): its fields
    message: str = ""  # an "unknown" one's error, {operand} the value, where not "no rule"
    hint: str = ""  # the advice that goes with ``message``
    held: bool = False  # ``message`` says the value may be an object of the user's class:
    # given whatever kind it was taken for (an attribute; a method's other refusal, where it
    # is not known to be an array, a number..., says more)


def operand_text(name: str, namer, stmt=None) -> str:
    """How an error names an operand: the user's variable (``u`` for its version
    ``u_1``), or for the compiler's own temporary (a part of the line), what it is; in
    code inlined from another function (``stmt.origin``), a variable its line does not
    name is a value the caller passed in.

    >>> from s2sad.names import Namer
    >>> namer = Namer({"u"})
    >>> version, temp = namer.version("u"), namer.temp()
    >>> operand_text(version, namer), operand_text(temp, namer)
    ("'u'", 'a value computed on this line')
    """
    if name in namer.temporaries:
        return "a value computed on this line"
    user = namer.users.get(name, name)
    origin = getattr(stmt, "origin", ())
    if len(origin) > 1 and user not in re.findall(r"\w+", origin[-1][2] or ""):
        return f"the value of {user!r} passed in"
    return repr(user)


def user_name(name: str, namer) -> str:
    """The user's variable a version stands for, bare (``u`` for ``u_1``); ``"(...)"``
    for the compiler's temporary (a part of the line)."""
    return "(...)" if name in namer.temporaries else namer.users.get(name, name)


def names_in(node) -> list[str]:
    return [n.id for n in trees.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)]


# what a loop over objects must be to be written out item by item (Normalize.unrolled)
_OBJECT_LOOPS = ("for layer in self.layers: x = layer(x), with enumerate, reversed or zip "
                 "too, over up to 32 objects, or any number of one class held by an "
                 "argument, with no break or continue in it")


def classify(value, source: FunctionSource, local_names: set[str]) -> Op:
    if isinstance(value, gast.Name):
        return Op("copy", [value])
    if isinstance(value, gast.Constant):
        return Op("constant", [])
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        operands = [value.left, value.right] if isinstance(value, gast.BinOp) else [value.operand]
        foreign = _foreign_operand(operands, source, local_names)
        if foreign is not None:  # (MATRIX * x is a matrix product, not NumPy's multiply)
            return Op("unknown", operands, name=f"the operator {_op_symbol(value.op)} on "
                      f"{foreign}", advice=FOREIGN_ADVICE)
    if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub)):
        return Op("linear", [value])
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        rule = registry.lookup(OPERATORS[type(value.op)])
        if rule is not None and source.complex:  # (its rule for complex values)
            rule = registry.for_values(rule, True)
        return _with_rule(rule, operands, {}, _op_symbol(value.op))
    if isinstance(value, gast.Call):
        func = value.func
        keywords = {k.arg: k.value for k in value.keywords}
        try:
            target = static_value(func, source, local_names)
        except KeyError:
            advice = ""
            if isinstance(func, gast.Attribute) and func.attr == "tolist" and \
                    not value.args and not keywords and isinstance(func.value, gast.Name) \
                    and func.value.id in local_names:  # x.tolist(): x's numbers, in lists
                return _with_rule(registry.lookup(np.ndarray.tolist), [func.value], {},
                                  f"{func.value.id}.tolist()")
            if isinstance(func, gast.Attribute):
                owner = func.value.id if isinstance(func.value, gast.Name) and \
                    not func.value.id.startswith("t_") else ""
                name = f"{owner}.{func.attr}()"
                advice = ("s2sad inlines obj.method(...) and obj(...) where obj is an "
                          "argument or a module's object (models.net) of a class of yours, "
                          "an object held in its attributes (self.layer.forward(x), three "
                          "levels), or an item of a list of them (self.layers[0], or the "
                          f"variable of a loop over them: {_OBJECT_LOOPS}), and the method a "
                          "`def` (or staticmethod) of the object's class; and a function "
                          "kept in its attribute (self.act = np.tanh) that has a rule or is "
                          "your own, and an object in a dict by a key written or a loop over "
                          "the dict. It does not follow None or a bound "
                          "method kept in an attribute, a property, a classmethod, or a "
                          "class that changes how attributes are found: call the function "
                          "directly, pass the object as an argument, or register a rule with "
                          "@s2sad.defvjp.")
                if func.attr in ("values", "items", "keys") and not value.args:
                    advice = ("s2sad reads a dict's values, items and keys where it knows its "
                              "keys: those its display writes out or the argument has. Where "
                              "the function gives it a key later (d['c'] = v, d[i] = v in a "
                              "loop), walk it by key (for k in d: ... d[k]), or keep the "
                              "values in a list.")
            elif isinstance(func, gast.Name) and not func.id.startswith("t_"):
                name = f"{func.id}() (a function held in a variable)"  # chosen in a branch
                advice = ("s2sad follows a variable given a function once (act = np.tanh), "
                          "a parameter given a function, and the variable of a loop over a "
                          f"list of objects of your classes ({_OBJECT_LOOPS}) or over a dict "
                          "of them (for name, layer in self.blocks.items()); else register "
                          "a rule with @s2sad.defvjp, or call the function by its name. A "
                          "list of objects held by an object made in the function "
                          "(Sequential([Dense(w1), Dense(w2)]) looping over self.layers) is "
                          "followed where it is a display of new objects, one class per "
                          "variable, walked with no break and read by len() or a constant "
                          "index only; else loop over the list in the function (for layer in "
                          "[Dense(w1), Dense(w2)]: h = layer(h)), or make the model outside "
                          "and pass it as an argument.")
            else:  # pair[0](x), f(a)(x): the function is a value computed on the line
                name = "this call"
                advice = ("s2sad does not follow a function made by a call or an "
                          "index (functools.partial(f, a)(b), Cls(a)(b) through __call__, "
                          "pair[0](b)): call the function itself with all its arguments "
                          "(f(a, b)), or register a rule with @s2sad.defvjp. An object "
                          "in a dict of an argument's is followed by a key written "
                          "(self.blocks['enc'](x)) that the dict holds, not by one "
                          "computed when the function runs.")
            receiver = [func.value] if isinstance(func, gast.Attribute) else []
            if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                    func.value.id in local_names and \
                    not any(callable(getattr(kind, func.attr, None))  # (NumPy 2.2's
                            for kind in _DIFFERENTIATED):  # ndarray.ptp: an attribute that raises)
                held = _user_class_with(func.attr, source, func.value)
                if held is not None:  # ((a + b).norm(), a and b of the user's class)
                    return Op("unknown", receiver + list(value.args) +
                              list(keywords.values()), name=name,
                              message=_not_followed("method", func.attr, held)[0],
                              hint=_not_followed("method", func.attr, held)[1])
                return Op("unknown", receiver + list(value.args) + list(keywords.values()),
                          name=name, message=(  # (y.tranpose())
                    f"{{operand}} has no method {func.attr!r}: no value s2sad "
                    "differentiates has one (a NumPy array, a number, a list, a tuple, a "
                    "dict): Python raises AttributeError here, unless it is an object of "
                    "your class that s2sad does not follow here (made by an operator, sum() "
                    "or a method)"), advice=advice, hint=(
                    "Check the method's name (an array has .transpose(), .sum(), "
                    ".reshape()...); a method of an object of your class is inlined where the "
                    "object is an argument or a module's."))
            kinds = [kind.__name__ for kind in _DIFFERENTIATED if isinstance(func, gast.Attribute)
                     and callable(getattr(kind, func.attr, None))]
            if kinds and isinstance(func.value, gast.Name) and func.value.id in local_names \
                    and advice.startswith("s2sad inlines"):  # (not a dict's values: their own)
                module = "np" if kinds[0] in ("ndarray", "generic") else ""  # (x.ptp(): an
                twin = getattr(np, func.attr, None) if module else None  # array's method)
                ruled = callable(twin) and registry.lookup(twin) is not None
                advice = (f"s2sad has no rule for the method {kinds[0]}.{func.attr}" +
                          (f"; NumPy's function has one: write np.{func.attr}("
                           f"{func.value.id}, ...)" if ruled else "") +
                          ": compute it with functions s2sad knows, wrap the value in "
                          "s2sad.stop_gradient() if its gradient should not flow, or "
                          "register a rule with @s2sad.defvjp.")
            if isinstance(func, gast.Name):  # (the function itself may carry the input:
                receiver = [func]            # functools.partial(np.power, x), S(x))
            return Op("unknown", receiver + list(value.args) + list(keywords.values()),
                      name=name, advice=advice)
        if namedtuple_class(target) and not keywords and \
                len(value.args) == len(target._fields):  # P(w, b): built of its fields
            return Op("build", list(value.args), name=target.__name__, fields=target._fields)
        from ..runtime import recursion
        if target is recursion.same_method and len(value.args) == 3 and \
                isinstance(value.args[0], gast.Name) and \
                isinstance(value.args[1], gast.Constant):  # (c.total(x), recursive: objects.py)
            method = value.args[1].value
            return Op("unknown", [value.args[0]], name=f".{method}()", held=True, message=(
                f"no derivative rule for the recursive call {{name}}.{method}(): the object "
                "depends on the differentiated arguments, and its attributes' derivatives "
                "would not reach the call"),
                hint=registry.unmodelled_advice(target))
        rule = registry.lookup(target)
        if target in (max, min) and len(value.args) == 1 and not keywords and \
                not isinstance(value.args[0], gast.Starred):  # max(xs): its largest item
            rule = registry.lookup(max_item if target is max else min_item)
        if rule is not None and source.complex:  # (its rule for complex values)
            rule = registry.for_values(rule, True)
        op = _with_rule(rule, list(value.args), keywords, registry.describe_function(target))
        if op.kind == "call" and rule.dtype is not None:  # np.sum(x, dtype=int): no derivative
            op = _cast(op, value, source, local_names)
        if rule is None and registry.unmodelled_advice(target):  # (np.linalg.eig...)
            op.advice = registry.unmodelled_advice(target)
        if rule is None and type(target).__module__ in ("s2sad.api", "s2sad.derivatives"):
            # (a derivative s2sad made)
            op.advice = ("Of the derivatives s2sad makes, a gradient (s2sad.grad, "
                         "s2sad.value_and_grad) called inside a differentiated function is "
                         "inlined; this one is not (a vjp, jvp, hvp, or the gradient of a "
                         "method): call s2sad.grad of a function instead, or write its step "
                         "out in the function (its .source shows it).")
        return op
    if isinstance(value, gast.Subscript):
        foreign = _foreign_operand([value.value], source, local_names)
        if foreign is not None:  # np.mgrid[a:b], an object's own __getitem__: the index
            index = [n for n in trees.walk(value.slice) if isinstance(n, gast.Name)]
            return Op("unknown", index, name=f"indexing {foreign}", advice=INDEX_ADVICE)
        return Op("subscript", [value.value])
    if isinstance(value, (gast.Tuple, gast.List)):
        return Op("build", list(value.elts))
    if isinstance(value, gast.JoinedStr):  # f"{x}": float(f"{x}") is x itself
        formatted = [n for v in value.values if isinstance(v, gast.FormattedValue) and not (
                         isinstance(v.value, (gast.Call, gast.Attribute)) and classify(
                             v.value, source, local_names).kind in ("nondiff", "constant"))
                     for n in trees.walk(v.value) if isinstance(n, gast.Name) and
                     isinstance(n.ctx, gast.Load) and n.id in local_names]
        if formatted:  # (the f-string runs as written: its names, not atoms; f"{x.shape}"
            # and f"{len(xs)}" read no value)
            return Op("unknown", formatted, name="an f-string", message=(
                "{operand} is formatted into a string by an f-string, whose value s2sad "
                "does not follow (a number read back from it would be taken as a "
                "constant)"), hint=(
                "Compute the value with numbers (round(v, 2), np.round(v, 2)), or wrap it "
                "in s2sad.stop_gradient() if its gradient should not flow."))
    if isinstance(value, gast.Dict):  # {"w": w, "b": b}: built of its values, by key
        if all(isinstance(k, gast.Constant) for k in value.keys):
            return Op("build", list(value.values))
        return Op("unknown", list(value.values), name="a dict display whose keys are not "
                  "written out", advice="Write the keys out ({'w': w, 'b': b}), or use a list "
                  "or tuple.")
    if isinstance(value, gast.Attribute):
        if nondiff_attribute(value.attr):
            return Op("nondiff", [value.value])
        try:
            static_value(value, source, local_names)
            return Op("constant", [])
        except KeyError:
            held = _user_class_with(value.attr, source, value.value)
            if held is not None:  # ((a + b).v, a and b of the user's class)
                return Op("unknown", [value.value], name=f".{value.attr}",
                          message=_not_followed("attribute", value.attr, held)[0],
                          hint=_not_followed("attribute", value.attr, held)[1], held=True)
            if not any(hasattr(kind, value.attr) for kind in _DIFFERENTIATED):
                return Op("unknown", [value.value], name=f".{value.attr}", message=(
                    f"{{operand}} has no attribute {value.attr!r}: no value s2sad "
                    "differentiates has one (a NumPy array, a number, a list, a tuple, a "
                    "dict): Python raises AttributeError here, unless it is an object of "
                    "your class that s2sad does not follow here (made by an operator, "
                    "sum() or a method)"),
                    hint="Check the attribute's name (an array has .T, .shape, .real, "
                    ".sum()...); an attribute of an object of your class is read where the "
                    "object is an argument or a module's.")
            return Op("unknown", [value.value], name=f".{value.attr}")
    return Op("nondiff", [value])


def _not_followed(what: str, attr: str, held: str) -> tuple[str, str]:
    """The message and hint refusing ``.attr`` on a value s2sad does not know, which may
    be an object of the user's class ``held`` (one that has ``attr``)."""
    shown = f"{attr}()" if what == "method" else attr
    return (f"{{operand}} has no {what} {attr!r} that s2sad can follow: it may be an object "
            f"of your class {held}, which s2sad does not follow here (one that an operator or "
            f"a method returns, as in (a + b).{shown})"), (
        "s2sad follows an object of your class where it is an argument, a module's object, "
        f"or made in the function by calling its class. Make it so (c = {held}(...)), or "
        f"compute with the attributes themselves (a.x + b.x).")


def _user_class_with(attr: str, source: FunctionSource, receiver=None) -> str | None:
    """The name of a class of the user's module (the function's globals) whose objects
    have ``attr``: a class attribute or method, or one a method sets on ``self``. None
    where ``receiver`` is a parameter of the function (its kind is the argument's), and
    for a namedtuple (a tuple, read by position where it is one).

    >>> import types
    >>> class Vector:
    ...     def norm(self):
    ...         return 0.0
    >>> source = types.SimpleNamespace(globals={"Vector": Vector}, func=lambda: None)
    >>> _user_class_with("norm", source), _user_class_with("w", source)
    ('Vector', None)
    """
    tree = getattr(source, "tree", None)
    if isinstance(receiver, gast.Name) and tree is not None and receiver.id in {
            a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}:
        return None
    if isinstance(receiver, gast.Name) and tree is not None and any(
            isinstance(node, gast.Assign) and isinstance(node.value, gast.Call) and
            isinstance(node.value.func, gast.Name) and
            isinstance(source.globals.get(node.value.func.id), type) and
            any(isinstance(t, gast.Name) and t.id == receiver.id for t in node.targets)
            for node in gast.walk(tree)):
        return None  # (m = Decay(a): made by calling its class, followed; m.scale's own refusal)
    module = getattr(source.func, "__module__", None)
    for name, cls in list(source.globals.items()):
        if not isinstance(cls, type) or cls.__module__ != module or issubclass(cls, tuple):
            continue
        if attr in getattr(cls, "__dict__", {}) or any(attr in vars(base) for base in
                                                       cls.__mro__[1:-1]):
            return name
        if attr in _self_attributes(cls):
            return name
    return None


_SELF_ATTRIBUTES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _self_attributes(cls) -> frozenset:
    """The attributes ``cls``'s source sets on ``self`` (``self.w = w``), read once per
    class (its source does not change: a class defined again is another object)."""
    import inspect
    import textwrap
    try:
        return _SELF_ATTRIBUTES[cls]
    except (KeyError, TypeError):
        pass
    try:
        tree = gast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError):
        found = frozenset()
    else:
        found = frozenset(node.attr for node in gast.walk(tree)
                          if isinstance(node, gast.Attribute) and
                          isinstance(node.ctx, gast.Store) and
                          isinstance(node.value, gast.Name) and node.value.id == "self")
    try:
        _SELF_ATTRIBUTES[cls] = found
    except TypeError:
        pass
    return found


def _foreign_operand(operands, source, local_names) -> str | None:
    """How to name the first of ``operands`` that is a value from outside the function
    (a module's global, ``np.mgrid``) whose operators or indexing are not modeled
    (see ``modeled``), or None."""
    for operand in operands:
        if not isinstance(operand, (gast.Name, gast.Attribute)) or \
                isinstance(operand, gast.Name) and operand.id in local_names:
            continue
        try:
            value = static_value(operand, source, local_names)
        except KeyError:
            continue
        if not modeled(value):
            kind = type(value)
            what = kind.__name__ if kind.__module__ == "builtins" else \
                f"{kind.__module__}.{kind.__qualname__}"
            return f"{_spelled(operand)} (a {what})"
    return None


def foreign_argument(call, source, local_names, kinds: dict, made=lambda operand: False):
    """``(operand, how to name it, the function)`` for the first argument of ``call`` (a
    function s2sad has a rule for) that is data whose class s2sad does not model
    (``unmodeled_data``): a local name whose kind is ``data`` (an argument that is an
    ``np.matrix``, ``np.ma.array(...)``), or such a global, closure value or default
    (``np.dot(MATRIX, x)`` is a matrix product; ``np.multiply(MASKED, x)`` masked); not
    one ``made`` says was made of the differentiated arguments (refused there). None
    where there is none, or where the function converts it (``np.asarray(M)``)."""
    try:
        target = static_value(call.func, source, local_names)
    except (KeyError, TypeError):
        return None
    from ..runtime import recursion
    if target in (recursion.recursion_value, recursion.recursive_call):
        return None  # (a recursive call's arguments: the function is compiled with them as
        # its arguments, where their operators are judged as they are read)
    try:
        if (registry.facts(target) or registry.Facts()).converts and \
                not any(k.arg == "subok" for k in call.keywords):
            return None
    except TypeError:  # (an unhashable object called)
        pass
    for operand in list(call.args) + [k.value for k in call.keywords]:
        if isinstance(operand, gast.Starred):
            operand = operand.value
        kind = kinds.get(operand.id) if isinstance(operand, gast.Name) else None
        if (getattr(kind, "data", False) or getattr(kind, "held", None) and not kind.foreign) \
                and not made(operand):  # (np.matrix; a list of them: np.concatenate(ms))
            return operand, None, registry.describe_function(target)
        if not isinstance(operand, (gast.Name, gast.Attribute)) or \
                isinstance(operand, gast.Name) and operand.id in local_names:
            continue
        value = static_noted(operand, source, local_names)
        if value is MISSING:
            continue
        if unmodeled_data(value) or type(value) in (list, tuple) and held_foreign(value):
            return operand, _foreign_operand([operand], source, local_names), \
                registry.describe_function(target)
    return None


def _spelled(node) -> str:
    """``np.mgrid`` as written (a name or dotted name)."""
    if isinstance(node, gast.Attribute):
        return f"{_spelled(node.value)}.{node.attr}"
    return node.id if isinstance(node, gast.Name) else "..."


FOREIGN_ADVICE = ("s2sad differentiates the operators of numbers and NumPy arrays; this "
                   "operand's class defines its own (np.matrix: * is a matrix product; a "
                   "masked array skips its masked values). Convert it with np.asarray(...) "
                   "outside the function, or, for a class of yours, pass the object as an "
                   "argument or keep it in a module variable: its operator methods are "
                   "inlined where they return without NotImplemented.")
INDEX_ADVICE = ("s2sad differentiates indexing arrays, lists, tuples and dicts (np.r_[...] "
                 "and np.c_[...] are joined with np.concatenate); this object computes its "
                 "items itself. Use np.arange, np.linspace or np.meshgrid instead of "
                 "np.mgrid and np.ogrid, or wrap the index in s2sad.stop_gradient() if its "
                 "gradient should not flow.")


def foreign_index(value, kinds: dict) -> list:
    """The names in the index of ``value``, a subscript, where what it indexes is a value
    of the function known to be an object with its own ``__getitem__`` (its kind in
    ``kinds`` is ``foreign``: an argument of a class s2sad does not model, an object made
    by calling a class): they may change its item, and s2sad has no rule for how. Else
    ``[]``: an index into an array, list, tuple or dict has no derivative (it is a whole
    number or a key)."""
    base = value.value
    if isinstance(base, gast.Name) and getattr(kinds.get(base.id), "foreign", False):
        return [n for n in trees.walk(value.slice) if isinstance(n, gast.Name)]
    return []


def _with_rule(rule, operands, keywords, name) -> Op:
    if rule is None:
        return Op("unknown", operands + list(keywords.values()), name=name)
    if not rule.differentiable:
        return Op("nondiff", operands + list(keywords.values()), rule, keywords, name)
    return Op("call", operands, rule, keywords, name)


def receiver_first(target, call):
    """``(function, args)`` of a call of a method bound to an array the function does not
    name (``G0.astype(float)``, ``G0`` a module's array): the class's method, the array first
    (``np.ndarray.astype(G0, float)``), whose rule reads its arguments that way. Else
    ``(target, call.args)``.

    >>> import gast, numpy as np
    >>> call = gast.parse("G0.astype(float)").body[0].value
    >>> func, args = receiver_first(np.ones(2).astype, call)
    >>> func is np.ndarray.astype, [gast.unparse(a).strip() for a in args]
    (True, ['G0', 'float'])
    """
    owner = getattr(target, "__self__", None)
    if isinstance(owner, (np.ndarray, np.generic)) and isinstance(call.func, gast.Attribute) \
            and registry.lookup(target) is None:
        unbound = getattr(type(owner), call.func.attr, None)
        if unbound is not None and registry.lookup(unbound) is not None:
            return unbound, [call.func.value] + list(call.args)
    return target, list(call.args)


def cast_kind(value, source: FunctionSource, local_names: set[str]) -> str | None:
    """The kind (NumPy's ``dtype.kind``) of the dtype a call's dtype argument sets (see
    ``Rule.dtype``): None where the call sets none, ``"?"`` where s2sad cannot read it
    (a variable, ``x.dtype``...).

    >>> import numpy as np
    >>> from s2sad.source import FunctionSource
    >>> def f(x, t):
    ...     return np.sum(x, dtype=int), np.sum(x), np.zeros(3, "f4"), np.asarray(x, t)
    >>> source = FunctionSource.of(f)
    >>> calls = source.tree.body[-1].value.elts
    >>> [cast_kind(c, source, {"x", "t"}) for c in calls]
    ['i', None, 'f', '?']
    """
    if not isinstance(value, gast.Call):
        return None
    try:
        target = static_value(value.func, source, local_names)
    except KeyError:
        return None
    target, args = receiver_first(target, value)
    rule = registry.lookup(target)
    if rule is None or rule.dtype is None:
        return None
    node = registry.dtype_argument(rule, args,
                                   {k.arg: k.value for k in value.keywords})
    if isinstance(node, gast.Name) and node.id in local_names:  # (dtype = None, inlined)
        node = source.constants.get(node.id, node)
    if isinstance(node, gast.Attribute) and node.attr == "dtype" and \
            isinstance(node.value, gast.Name) and node.value.id in source.dtypes:
        return source.dtypes[node.value.id]  # x.astype(w.dtype), w an argument: known
    if isinstance(node, gast.Attribute) and node.attr == "dtype" and \
            isinstance(node.value, gast.Call) and not node.value.keywords and \
            len(node.value.args) == 1 and isinstance(node.value.args[0], gast.Constant):
        try:  # np.asarray(1.0).dtype: SciPy's default float dtype, a constant's
            if static_value(node.value.func, source, local_names) in (np.asarray, np.array):
                return np.asarray(node.value.args[0].value).dtype.kind
        except KeyError:
            pass
    if node is registry.ABSENT or isinstance(node, gast.Constant) and node.value is None:
        return None
    if isinstance(node, gast.Call):
        # joined_dtype(items): NumPy's result type of the items, inexact wherever one of
        # them carries a derivative (those are floats), so the join keeps the derivative
        return None
    if isinstance(node, gast.Constant):
        dtype = node.value
    else:
        try:
            dtype = static_value(node, source, local_names) if node is not registry.UNREADABLE \
                else None
        except KeyError:
            dtype = None
        if dtype is None:
            return "?"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.dtype(dtype).kind
    except Exception:  # (not a dtype: NumPy raises as it runs)
        return "?"


def single_constants(tree: gast.FunctionDef, source: FunctionSource | None = None) -> dict:
    """The local names stored to once, by ``name = constant`` (a literal, or a dotted name
    read outside the function: ``np.float32``): ``{name: value node}``. Inlining writes
    a helper's parameters so (``dtype = None``). With ``source``, also those stored once
    by a call of a function whose result follows all its arguments (``ALL_ARGUMENTS``:
    ``joined_dtype``, np.r_'s dtype, written by ``index_tricks``).

    >>> text = "def f(x):\\n    d = np.float32\\n    n = 2\\n    n = 3\\n    return x"
    >>> sorted(single_constants(gast.parse(text).body[0]))
    ['d']
    """
    stores: dict = {}
    found, joins = {}, {}
    for node in trees.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name) and \
                isinstance(node.value, (gast.Constant, gast.Name, gast.Attribute)):
            found[node.targets[0].id] = node.value
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.Call) \
                and isinstance(node.value.func, gast.Name) and source is not None:
            joins[node.targets[0].id] = node.value
    arguments = {a.id for a in tree.args.args + tree.args.posonlyargs + tree.args.kwonlyargs}
    found = {name: value for name, value in found.items()
             if stores.get(name) == 1 and name not in arguments and
             not any(isinstance(n, gast.Name) and n.id in stores for n in trees.walk(value))}
    return {**found, **{name: value for name, value in joins.items() if stores[name] == 1 and
                        value.func.id not in stores and _follows_all(value.func.id, source)}}


def _follows_all(name: str, source: FunctionSource) -> bool:
    """Is the function ``name`` stands for one whose result follows all its arguments'
    dtypes (``Rule.result``)?"""
    try:
        rule = registry.lookup(source.resolve(name))
    except KeyError:
        return False
    return rule is not None and rule.result == registry.ALL_ARGUMENTS


def argument_dtypes(tree: gast.FunctionDef, params, descriptors) -> dict:
    """``{argument: the kind of its dtype}`` for the array arguments the function never
    assigns (the gradient is made for those kinds: ``("nd", 1, "f")`` is a float vector).

    >>> tree = gast.parse("def f(x, w, k):\\n    w = w * 2\\n    return x").body[0]
    >>> argument_dtypes(tree, ["x", "w", "k"], [("nd", 1, "f"), ("nd", 1, "f"), "float"])
    {'x': 'f'}
    """
    stored = {n.id for n in trees.walk(tree)
              if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    return {p: d[2] for p, d in zip(params, descriptors or ())
            if type(d) is tuple and len(d) >= 3 and d[0] in ARRAY_TAGS and
            isinstance(d[2], str) and p not in stored}


def _cast(op: Op, value, source: FunctionSource, local_names: set[str]) -> Op:
    """``op`` for a call whose dtype argument makes integers or bools (no derivative), or
    a dtype s2sad cannot read (refused where its result would carry a derivative)."""
    kind = cast_kind(value, source, local_names)
    floats = getattr(source, "floats", None)
    if kind == "?" and floats and floats[0] and any(  # (dtype=x.dtype, x a float array
            isinstance(n, gast.Name) and n.id in floats[2] for n in op.operands):  # made here)
        kind = cast_kind(value, dataclasses.replace(
            source, dtypes={**source.dtypes, **floats[0]},
            constants={**source.constants, **floats[1]}), local_names)
    if kind is None or kind in "fc":
        return op
    operands = op.operands + list(op.keywords.values())
    if kind in "biu":
        return Op("nondiff", operands, op.rule, op.keywords, op.name)
    return Op("unknown", operands, name=f"{op.name} with a dtype s2sad cannot read" if kind ==
              "?" else f"{op.name} to a dtype that is not a number's ({kind!r})",
              advice="s2sad reads a dtype written as a constant (dtype=np.float32, float, "
              "'f8', int): a float or complex one keeps the derivative, an integer or bool "
              "one has none. Write it so, or cast the result after the call "
              "(np.float64(...), .astype(float)).")


def _op_symbol(op) -> str:
    return {gast.Mult: "*", gast.Div: "/", gast.Pow: "**", gast.MatMult: "@",
            gast.FloorDiv: "//", gast.Mod: "%", gast.USub: "unary -", gast.Not: "not",
            gast.Add: "+", gast.Sub: "-"}.get(type(op), type(op).__name__)


def is_append(stmt) -> bool:
    """``ys.append(v)`` (normalized: ``v`` an atom)."""
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and \
        isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "append" and \
        isinstance(stmt.value.func.value, gast.Name) and len(stmt.value.args) == 1


def is_setitem(stmt) -> bool:
    return isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript)


def statement_parts(stmt):
    """``(target names, value)`` of a normalized statement (``value`` None for a return)."""
    if is_append(stmt):  # ys.append(v): a new value of ys
        return [stmt.value.func.value.id], stmt.value.args[0]
    if isinstance(stmt, gast.Assign):
        target = stmt.targets[0]
        if isinstance(target, gast.Subscript):  # y[i] = v: a new value of y
            return [target.value.id], stmt.value
        if isinstance(target, gast.Tuple):
            return [e.id for e in target.elts], stmt.value
        return [target.id], stmt.value
    return [], getattr(stmt, "value", None)
