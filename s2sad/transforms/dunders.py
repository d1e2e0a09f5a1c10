"""Operators and indexing on objects of the user's classes, as Python runs them.

``v * a``, where ``v`` is an object s2sad knows (an argument of a class of the user's, an
object in its attributes, a module's object) is ``type(v).__mul__(v, a)``: that method is
inlined as ``v.__mul__(a)`` would be (``Normalize._object_method``), not differentiated
with NumPy's rule for ``*``. Python's order is kept: the right operand's reflected method
first where its class is a subclass of the left's with a method of its own; the reflected
method (``2.0 * v`` is ``type(v).__rmul__(v, 2.0)``) where the left operand is a Python
number; ``-v`` is ``__neg__``, ``v[i]`` is ``__getitem__``; ``v *= a`` is ``__imul__`` where
the class has one (``_in_place``), else ``v = v * a`` as above. What cannot be followed (a
method that may return ``NotImplemented``, where Python would try the other operand's; one
Python does not find the usual way; an array on the left of an object, where NumPy would
make an array of objects) is left as it is written: an operator on an object of unknown
kind is refused where it meets the differentiated argument
(``reverse.refuse_foreign_operand``, ``resolve.classify``).

For example ``a * s``, ``a`` a Python float and ``s`` an object of a class with
``def __rmul__(self, x): return self.k * x * x``, is differentiated as ``s.k * a * a``
(tests/test_brackets.py); the choice of method is ``_chosen``'s.
"""

from __future__ import annotations

import gast

from .. import trees
from ..source import FunctionSource, user_code

_BINARY = {gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "truediv",
           gast.FloorDiv: "floordiv", gast.Mod: "mod", gast.Pow: "pow", gast.MatMult: "matmul",
           gast.LShift: "lshift", gast.RShift: "rshift", gast.BitAnd: "and",
           gast.BitOr: "or", gast.BitXor: "xor"}
_UNARY = {gast.USub: "__neg__", gast.UAdd: "__pos__", gast.Invert: "__invert__"}
_NUMBERS = ("float", "int", "complex")


def object_operator(normalize, node):
    """The normalized value of ``node`` (an operator or a subscript) where an operand is
    an object of a user's class that ``normalize`` knows: its method inlined; None where
    no operand is one."""
    if isinstance(node, gast.BinOp):
        return _binary(normalize, node)
    if isinstance(node, gast.UnaryOp) and type(node.op) in _UNARY:
        cls = _class(normalize, node.operand)
        if cls is None:
            return None
        return _inline(normalize, node, node.operand, _UNARY[type(node.op)], [], cls)
    if isinstance(node, gast.Subscript):
        cls = _class(normalize, node.value)
        if cls is None:
            return None
        return _inline(normalize, node, node.value, "__getitem__", [_key(normalize, node.slice)],
                       cls)
    return None


def _binary(normalize, node):
    if type(node.op) not in _BINARY:
        return None
    left, right = _class(normalize, node.left), _class(normalize, node.right)
    if left is None and right is None:
        return None
    if getattr(node, "augmented", False) and left is not None and \
            _own(left, f"__i{_BINARY[type(node.op)]}__") is not None:
        return _in_place(normalize, node, left)
    number = left is None and _python_number(normalize, node.left)
    chosen = _chosen(node.op, left, right, number)
    if chosen is None:
        return None
    side, name = chosen
    if side == "right":
        return _inline(normalize, node, node.right, name, [node.left], right)
    if _own(left, name) is None and right is not None and right is not left:
        # (the left one has no such method: Python tries the right one's reflected one)
        return _inline(normalize, node, node.right, f"__r{name[2:]}", [node.left], right)
    return _inline(normalize, node, node.left, name, [node.right], left)


def _in_place(normalize, node, cls):
    """``v *= a`` (``node``: ``v * a`` marked ``augmented``), ``v`` an object of a user's
    class ``cls`` that has ``__imul__``: Python calls ``type(v).__imul__(v, a)`` and binds
    ``v`` to what it returns (``self``, changed, or a new value), not ``__mul__``: that
    method inlined; refused where it cannot be followed (it may return NotImplemented,
    where Python would try ``__mul__``; an attribute of the object's own hides it)."""
    name = f"__i{_BINARY[type(node.op)]}__"
    inlined = _inline(normalize, node, node.left, name, [node.right], cls)
    if inlined is None:
        raise normalize.source.syntax_error(
            f"an in-place operator on an object of {cls.__qualname__}, whose {name} s2sad "
            "cannot follow", node,
            f"s2sad inlines {name} where it is a def of your class that returns without "
            "NotImplemented; else write the operation out: v = v.method(a), or "
            f"v = v {_SYMBOLS[type(node.op)]} a for a new value.")
    return inlined


_SYMBOLS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
            gast.Mod: "%", gast.Pow: "**", gast.MatMult: "@", gast.LShift: "<<",
            gast.RShift: ">>", gast.BitAnd: "&", gast.BitOr: "|", gast.BitXor: "^"}


def _chosen(op, left, right, number: bool):
    """``(operand, method)`` Python calls first for ``a op b`` where ``a`` and ``b`` are
    of the classes ``left`` and ``right`` (None: not an object of a user's class; ``number``:
    ``a`` is a Python number, which declines); None where NumPy would take it (an array
    on the left of an object makes an array of objects).

    >>> class V:
    ...     pass
    >>> class W(V):
    ...     def __rmul__(self, other):
    ...         return other
    >>> _chosen(gast.Mult(), V, None, False), _chosen(gast.Mult(), None, V, True)
    (('left', '__mul__'), ('right', '__rmul__'))
    >>> _chosen(gast.Mult(), V, W, False), _chosen(gast.Mult(), None, V, False)
    (('right', '__rmul__'), None)
    """
    name = _BINARY[type(op)]
    forward, reflected = f"__{name}__", f"__r{name}__"
    if right is not None and (left is None or right is not left and issubclass(right, left) and
                              _own(right, reflected) is not _own(left, reflected)):
        return ("right", reflected) if left is not None or number else None
    return "left", forward


def _inline(normalize, node, receiver, name: str, args: list, cls):
    """``receiver.name(*args)`` inlined (its class ``cls``), or None where it cannot be
    followed: no such ``def`` of the user's, or one that may return NotImplemented."""
    from .kinds import class_method
    found = class_method(cls, name)
    if found is None or not user_code(found[0]) or _may_decline(found[0]):
        return None
    call = gast.copy_location(gast.Call(gast.Attribute(receiver, name, gast.Load()), args, []),
                              node)
    call, inlined = normalize._object_method(call)
    if inlined is not None:
        return normalize.inline(call, *inlined)
    if not isinstance(call.func, gast.Attribute):  # a method with a rule (s2sad.defvjp)
        return normalize.simple(call)
    return None  # (an attribute of the object's own hides it)


def _class(normalize, node):
    """The class of the object of a user's class that ``node`` names, where ``normalize``
    knows one (see ``Normalize._object_ref``); else None."""
    if not isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)):
        return None
    ref = normalize._object_ref(node)
    if ref is None or ref[0] not in ("param", "value"):
        return None
    return ref[2] if ref[0] == "param" else type(ref[1])


def _own(cls, name: str):
    """What ``cls`` has as ``name``, found the usual way (None if nothing)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def _may_decline(method) -> bool:
    """Does ``method``'s source name ``NotImplemented``?"""
    try:
        tree = FunctionSource.of(method).tree
    except Exception:  # (no source: not inlined either)
        return True
    return any(isinstance(n, gast.Name) and n.id == "NotImplemented" for n in trees.walk(tree))


def _python_number(normalize, node) -> bool:
    """Is ``node`` a Python number: a literal, or a parameter described as one (and not
    given another value)?"""
    if isinstance(node, gast.Constant):
        return type(node.value) in (int, float, complex, bool)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return _python_number(normalize, node.operand)
    if not isinstance(node, gast.Name) or node.id in normalize.function_args:
        return False
    name = normalize.name(node)
    if not isinstance(name, gast.Name):
        return False
    root = normalize.root
    return root.current.get(name.id) == name.id and root.descriptors.get(name.id) in _NUMBERS


def _key(normalize, index):
    """The key ``obj[index]`` passes to ``__getitem__``: a slice written out as
    ``slice(a, b, s)``, a tuple of them as a tuple."""
    if isinstance(index, gast.Tuple):
        return gast.Tuple([_key(normalize, e) for e in index.elts], gast.Load())
    if isinstance(index, gast.Slice):
        func = gast.Name(normalize.fixed_name(slice, "slice"), gast.Load(), None, None)
        parts = [gast.Constant(None, None) if p is None else p
                 for p in (index.lower, index.upper, index.step)]
        return gast.Call(func, parts, [])
    return index
