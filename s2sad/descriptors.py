"""The description of arguments: a small hashable summary of each argument's kind.

A gradient is compiled once per description of its arguments (Python floats, a list of
four floats, a 2-d float array, an object of a user's class and what it holds), and
the description is the key its variants are found by:

>>> import numpy as np
>>> describe([1.0, 2.0]), describe(np.zeros((2, 3), np.float32)), describe(np.float64(1))
(('list', ('float', 'float')), ('nd', 2, 'f'), ('nd', 0, 'f', 'number'))
>>> describe({"w": 1.0, "n": 3})
('dict', (('w', 'float'), ('n', 'int')))

It belongs to the core: the face describes a call's arguments, the compiler reads the
descriptions, and the source reader describes the objects a function reads.
"""

from __future__ import annotations

import functools
import numbers
import sys
import types
from collections import abc

import numpy as np

from .backends import ARRAY_TAGS, BY_LIBRARY, LIBRARIES

_PY = {float: "float", int: "int", bool: "int", complex: "complex"}
NONE = ("none",)  # (an argument that is None: describe_argument)
_NAMESPACE = types.SimpleNamespace  # (a bag of attributes: described as a user's object)
_UNIFORM: dict = {}  # (list or tuple, item type, length) -> descriptor


def describe(value):
    """A small hashable summary of an argument: the key of a compiled specialization."""
    kind = type(value)
    py = _PY.get(kind)
    if py is not None:
        return py
    if kind is np.ndarray:
        return ("nd", value.ndim, value.dtype.kind)
    if kind is list or kind is tuple:
        types = set(map(type, value))
        if len(types) == 1:  # the common case, all items alike: one descriptor, cached
            item = types.pop()
            key = (kind, item, len(value))
            cached = _UNIFORM.get(key)
            if cached is not None:
                return cached
            if item in _PY:
                cached = _UNIFORM[key] = (kind.__name__, (_PY[item],) * len(value))
                return cached
        return (kind.__name__, tuple(map(describe, value)))
    if isinstance(value, np.generic):  # (a NumPy number: unlike a 0-d array, immutable)
        return ("nd", 0, value.dtype.kind, "number")
    if kind is dict:
        return ("dict", tuple((k, describe(v)) for k, v in value.items()))
    if isinstance(value, tuple) and namedtuple_class(kind):
        # a namedtuple: a tuple whose items have names (its class, for the guard)
        return ("tuple", tuple(map(describe, value)), (kind, kind._fields))
    if isinstance(value, tuple):  # (a subclass of a namedtuple's: read as a tuple)
        return ("tuple", tuple(map(describe, value)))
    module = kind.__module__.split(".")[0]
    backend = BY_LIBRARY.get(module)  # (a CuPy array: on the GPU; a Dask array)
    desc = None if backend is None else backend.describe(value)
    if desc is not None:
        return desc
    if isinstance(value, np.ndarray) or _unmodeled(value):
        return ("data", kind)  # (np.matrix, a masked array, a deque, a Fraction...)
    if function_value(value):  # (np.tanh, a function of the user's, a lambda, a partial:
        return ("function", value)  # a variant for each, its calls resolved as written)
    if module in _NOT_USERS and kind is not _NAMESPACE:  # (a bag of attributes,
        return "any"                                                # described as a user's)
    return _object(value, kind, 0)


def describe_argument(value):
    """:func:`describe` of an argument the variant is chosen by: an array of one or more
    axes also says which of them have length 1 (``("nd", 2, "f", (1,))`` for a column,
    ``("nd", 2, "f", ())`` for a matrix), so that the compiler decides every broadcast
    (``unbroadcast``) and the entry tests it, as it tests the rank. Sizes other than 1
    are not part of it: batches of 7, 8 and 9 rows share one variant.

    >>> describe_argument(np.zeros((7, 1))), describe_argument(np.zeros((8, 3)))
    (('nd', 2, 'f', (1,)), ('nd', 2, 'f', ()))
    >>> describe_argument(np.zeros(3)) == describe_argument(np.zeros(9)), describe_argument(2.0)
    (True, 'float')
    >>> describe_argument([np.zeros((4, 5)), np.zeros(5), 2.0])
    ('list', (('nd', 2, 'f', ()), ('nd', 1, 'f', ()), 'float'))
    """
    if type(value) is np.ndarray and value.ndim:
        shape = value.shape
        return ("nd", len(shape), value.dtype.kind,
                tuple(i for i, n in enumerate(shape) if n == 1) if 1 in shape else ())
    if value is None:  # (f(x, g=None): a variant of its own, its `g is None` decided)
        return NONE
    kind = type(value)
    # the arrays a list, tuple or dict holds (an MLP's [W1, b1, W2, b2]) say theirs too
    if (kind is list or kind is tuple) and not set(map(type, value)) <= _PY.keys():
        return (kind.__name__, tuple(map(_item_argument, value)))
    if kind is dict:
        return ("dict", tuple((k, _item_argument(v)) for k, v in value.items()))
    desc = describe(value)
    if type(desc) is tuple and len(desc) == 3 and desc[0] in ARRAY_TAGS and desc[1]:
        shape = tuple(value.shape)  # (a CuPy array: the same, so its code is NumPy's)
        return desc + (tuple(i for i, n in enumerate(shape) if n == 1),)
    return desc


def _item_argument(value):
    """:func:`describe_argument` of an item of a list, tuple or dict (None described as
    :func:`describe` describes it there)."""
    return describe(value) if value is None else describe_argument(value)


def length_one_axes(desc):
    """The axes of length 1 that ``desc``, an argument's descriptor, says an array has
    (:func:`describe_argument`); None where it does not say (a descriptor given as
    ``("nd", 2, "f")``, a NumPy number, anything else).

    >>> length_one_axes(("nd", 2, "f", (0,))), length_one_axes(("nd", 2, "f"))
    ((0,), None)
    >>> length_one_axes(("nd", 0, "f")), length_one_axes(("nd", 0, "f", "number"))
    ((), ())
    """
    if type(desc) is tuple and desc and desc[0] in ARRAY_TAGS:
        if desc[1] == 0:
            return ()
        if len(desc) == 4 and type(desc[3]) is tuple:
            return desc[3]
    return None


def function_value(value) -> bool:
    """Is ``value`` a function (a ``def``, a lambda, a NumPy or SciPy function, a
    ``functools.partial``, a bound method)? Described by itself: ``("function", value)``.

    >>> import functools
    >>> [function_value(v) for v in (np.tanh, np.sum, len, lambda z: z,
    ...                              functools.partial(np.add, 1.0), 2.0, np.ones(2))]
    [True, True, True, True, True, False, False]
    """
    return isinstance(value, _FUNCTIONS)


def _functions_held(value) -> bool:
    """Is ``value`` a list, tuple or dict of 1 to ``_UNROLLED`` functions
    (``self.acts = [np.tanh, np.sin]``)?"""
    if type(value) not in (list, tuple, dict) or not 0 < len(value) <= _UNROLLED:
        return False
    return all(map(function_value, value.values() if type(value) is dict else value))


def _object(value, kind, depth: int, budget=None, holders: tuple = (), memo=None):
    """``("object", class, names its own attributes hide, members)``: ``members`` are the
    descriptions of its own attributes that are objects of a user's class too (or
    ``types.SimpleNamespace``: ``_held_object``), lists or tuples of them (``("list", (item,
    ...))``), dicts and tuples holding them (``_held``), by name (``self.layer``,
    ``self.layers``: their methods are inlined as well), ``DEPTH`` levels deep, not back to an
    object that holds it (a layer's pointer to its model), at most ``_MEMBERS`` in all
    (``budget``), and only where Python reads them from the object's ``__dict__`` (not
    where its class has a property of that name, or changes how attributes are found). An
    object held twice (a config every layer keeps) is described once (``memo``)."""
    memo = {} if memo is None else memo
    if (id(value), depth) in memo:
        return memo[id(value), depth]
    own = getattr(value, "__dict__", None)
    members = []
    budget = [_MEMBERS] if budget is None else budget
    holders = holders + (id(value),)
    if own and depth < DEPTH and _plain_lookup(kind):
        for name, item in list(own.items()):
            if type(name) is not str or data_descriptor(kind, name):
                continue
            leaf = _leaf(item)
            if leaf is not None:
                members.append((name, leaf))
            elif user_objects(item, holders, _LISTED) and budget[0] > 0:
                described = _objects(item, depth + 1, budget, holders, memo)
                if described is not None:  # (a list of layers: each one's methods inlined)
                    members.append((name, (type(item).__name__, described)))
            elif _held_object(item) and id(item) not in holders and budget[0] > 0:
                budget[0] -= 1
                members.append((name, _object(item, type(item), depth + 1, budget, holders,
                                              memo)))
            elif _holds_objects(item, holders) and budget[0] > 0:  # (self.d = {"k": ns}:
                members.append((name, _held(item, depth, budget, holders, memo)))  # each)
    described = memo[id(value), depth] = ("object", kind, _hidden_methods(value, kind),
                                          tuple(members))
    return described


def _held_object(value) -> bool:
    """Is ``value`` an object whose own attributes a description walks where an object
    holds it: one of a user's class, or a ``types.SimpleNamespace`` (a bag of attributes,
    described member by member at any depth as at the argument's top level)?"""
    return _user_object(value) or type(value) is _NAMESPACE


def _holds_objects(value, holders: tuple = (), depth: int = 0) -> bool:
    """Is ``value`` a list, tuple or dict of at most ``_UNROLLED`` items holding, two
    levels deep, an object ``_held_object`` walks (``self.d = {"k": ns}``, ``self.t =
    (layer, 1.0)``), none of them ``holders``?"""
    if type(value) not in (list, tuple, dict) or not 0 < len(value) <= _UNROLLED or depth > 1:
        return False
    items = value.values() if type(value) is dict else value
    return any(_held_object(item) and id(item) not in holders or
               _holds_objects(item, holders, depth + 1) for item in items)


def _held(value, depth: int, budget, holders: tuple, memo, level: int = 0):
    """``("dict", ((key, item), ...))`` or ``("list" | "tuple", (item, ...))``: the
    description of a container ``_holds_objects`` accepts, each object in it described as
    an object (``_object``), a container in it so too (two levels, as ``_holds_objects``
    looks), each other item as ``_leaf`` does (``("undescribed",)`` where it says nothing:
    a string, a list of Python floats)."""
    def one(item):
        if _held_object(item) and id(item) not in holders and budget[0] > 0:
            budget[0] -= 1
            return _object(item, type(item), depth + 1, budget, holders, memo)
        if level < 1 and _holds_objects(item, holders, 1):
            return _held(item, depth, budget, holders, memo, level + 1)
        leaf = _leaf(item)
        return ("undescribed",) if leaf is None else leaf
    if type(value) is dict:
        return ("dict", tuple((key, one(item)) for key, item in value.items()))
    return (type(value).__name__, tuple(map(one, value)))


def _leaf(item):
    """The description an object's own attribute ``item`` gets that is not an object of a
    user's class (nor a list of them), or None where it gets none (a string, a list of
    Python numbers: read live, real): ``("none",)``, a function's, an array's, a number's,
    data of a class s2sad does not model, a list holding arrays or complex numbers.

    >>> _leaf(None), _leaf(2.0), _leaf(np.ones(2)), _leaf([1.0, 2.0]), _leaf([1j]), _leaf("a")
    (('none',), 'float', ('nd', 1, 'f'), None, ('list', ('complex',)), None)
    """
    if item is None:
        return ("none",)  # (an optional layer left out)
    if function_value(item) or _functions_held(item):  # (self.act = np.tanh: a variant
        return describe(item)                           # for each function)
    if _data_member(item) or _holds_unmodeled(item):  # (self.W, self.idx, self.n, self.M:
        return describe(item)  # its dtype, or the class s2sad does not model; self.ms = [M]:
        # a list of that class's data; self.zs = (1j, 2.0): complex numbers, read as such)
    if isinstance(item, abc.Iterator):  # (self.gen: consumed by a loop, refused)
        return ("data", type(item))
    return None


def undescribed(holder, name: str) -> bool:
    """Does ``holder`` (an object whose description walked its own attributes) hold no
    own attribute ``name`` that its description would carry (``_leaf``)? What an entry
    tests where a variant read ``holder.name`` and the description said nothing of it (a
    class's attribute, a string, a tuple of Python floats), so that one made complex, or
    an array, goes the general way.

    >>> class T: pass
    >>> t = T(); t.d = {"k": 2.0}
    >>> undescribed(t, "d"), undescribed(t, "e")
    (True, True)
    >>> t.d = {"k": 2.0j}
    >>> undescribed(t, "d")
    False
    """
    own = getattr(holder, "__dict__", None)
    if own is None or name not in own:
        return True
    item = own[name]  # (an object, or a container of them, later: described as well)
    return _leaf(item) is None and not _held_object(item) and not _holds_objects(item)


def numpy_number(value, kind: str) -> bool:
    """Is ``value`` a NumPy number (not a 0-d array, an np.matrix, a masked array) of that
    dtype kind, as ``("nd", 0, kind, "number")`` describes it?

    >>> numpy_number(np.float64(1.0), "f"), numpy_number(np.ma.masked_array([1.0]), "f")
    (True, False)
    """
    return isinstance(value, np.generic) and value.dtype.kind == kind


def _data_member(item) -> bool:
    """Is ``item`` an attribute whose description an object's carries: a NumPy array
    (its rank and dtype), a Python number, or data of a class s2sad does not model
    (``np.matrix``), or a NumPy number (its dtype: ``np.complex64`` makes the program
    complex)? (Read by the dtypes pass and ``infer_kinds``: ``member``.)"""
    return type(item) in _PY or isinstance(item, (np.ndarray, np.generic)) or \
        _unmodeled(item)


def _holds_unmodeled(value, depth: int = 0) -> bool:
    """Is ``value`` a list, tuple or dict holding arrays, or data of a class s2sad does
    not model (``[np.matrix(...)]``), two levels deep, among its first ``_UNROLLED`` items?
    (Described, so that the entry tests its items' classes: see ``kinds.member``.)"""
    if type(value) not in (list, tuple, dict) or depth > 1:
        return False
    items = list(value.values() if type(value) is dict else value)[:_UNROLLED]
    return any(_unmodeled(item) or isinstance(item, (np.ndarray, complex, np.complexfloating)) or
               _holds_unmodeled(item, depth + 1) for item in items)


def _unmodeled(value) -> bool:
    """Is ``value`` data of a library's class s2sad does not model (``describe``)?"""
    module = type(value).__module__.split(".")[0]
    return (module in _NOT_USERS or module in sys.stdlib_module_names) and \
        unmodeled_data(value)


_MEMBERS = 64  # the most objects an argument's description takes in
DEPTH = 6  # the objects whose own attributes it describes: so many attributes down, at most
# (a read below is refused: kinds.member)
_UNROLLED = 32  # the most items of a list of objects walked item by item
_LISTED = 4096  # the most items of a list of alike objects (walked by a loop) described


def _objects(items, depth: int, budget, holders: tuple, memo):
    """The descriptions of a list of objects held in an attribute, or None where they
    take more than ``budget`` allows: objects alike (one class, the same members) count
    once, others each, and at most ``_UNROLLED`` of them."""
    first = budget[0]
    described = [_object(items[0], type(items[0]), depth, budget, holders, memo)]
    each = first - budget[0]  # (what one took in)
    for one in items[1:]:
        trial = [first]  # (described in full, to see whether it is alike)
        described.append(_object(one, type(one), depth, trial, holders, memo))
    if all(d == described[0] for d in described):
        budget[0] = first - each - 1
        return tuple(described)
    if len(items) > _UNROLLED or first < len(items) + each * len(items):
        budget[0] = first
        return None
    budget[0] = first - len(items) - each * len(items)
    return tuple(described)


def _user_object(value) -> bool:
    """Is ``value`` an object of a user's class (not a number, array, container,
    function, class or module)?"""
    return type(value).__module__.split(".")[0] not in _NOT_USERS and \
        not isinstance(value, (type, tuple, list, dict))


def attribute_object(value) -> bool:
    """Is ``value`` an object of a user's class that keeps its attributes in a
    ``__dict__`` (a model whose parameters a gradient holds: not a function)?"""
    return _user_object(value) and isinstance(getattr(value, "__dict__", None), dict) and \
        not isinstance(value, (types.FunctionType, types.MethodType, types.ModuleType))


def user_objects(value, holders: tuple = (), most: int = _UNROLLED) -> bool:
    """Is ``value`` a list or tuple (not a namedtuple) of 1 to ``most`` objects of a
    user's classes or namespaces (``self.layers``, walked item by item: ``_held_object``),
    none of them ``holders``?"""
    return type(value) in (list, tuple) and 0 < len(value) <= most and all(
        _held_object(item) and id(item) not in holders for item in value)


def objects_described(desc) -> bool:
    """Does ``desc`` describe such a list or tuple of objects (of any length if they are
    alike: a loop walks them), or a dict of them (keys of strings or ints: its items
    known by key, ``self.layers["enc"]``, each written out by a loop)?"""
    if type(desc) is tuple and desc[0] == "dict" and len(desc) == 2:
        return 0 < len(desc[1]) <= _UNROLLED and all(
            type(key) in (str, int) and type(item) is tuple and item[0] == "object"
            for key, item in desc[1])
    return type(desc) is tuple and desc[0] in ("list", "tuple") and len(desc) == 2 and \
        0 < len(desc[1]) and all(
            type(item) is tuple and item[0] == "object" for item in desc[1]) and (
            len(desc[1]) <= _UNROLLED or all(item == desc[1][0] for item in desc[1]))


def _plain_lookup(cls) -> bool:
    """Does ``cls`` find attributes the usual way (no ``__getattribute__`` of its own;
    ``SimpleNamespace``'s is the usual one, written in C)?"""
    return cls is _NAMESPACE or getattr(cls, "__getattribute__", object.__getattribute__) is \
        object.__getattribute__


def data_descriptor(cls, name: str) -> bool:
    """Does ``cls`` give ``name`` a data descriptor (a property: ``__set__`` or
    ``__delete__``), which Python reads before the object's own attribute?"""
    for klass in cls.__mro__:  # (inspect.getattr_static's walk, without its generality)
        if name in klass.__dict__:
            kind = type(klass.__dict__[name])
            return hasattr(kind, "__set__") or hasattr(kind, "__delete__")
    return False


def is_object(desc) -> bool:
    """Does the descriptor describe a value that is not a number nor a container of them
    (``"any"``, None, or an object of a user's class)?"""
    return desc == "any" or desc == NONE or type(desc) is tuple and desc[0] in ("object", "data", "function")


# the modules whose objects are not a user's (an object of a user's class is described with
# its class: its methods are inlined, ``self.act(z)``)
_NOT_USERS = LIBRARIES | frozenset({"builtins", "s2sad", "types", "functools", "collections",
                                     "typing", "jax", "jaxlib", "torch", "scipy"})


def class_method(cls, name: str):
    """``(function, takes the object first)`` that ``obj.name`` calls for an object of
    ``cls`` whose own ``__dict__`` does not hold ``name``: a ``def`` of the class (or a
    ``staticmethod``) found the usual way; else None (a property, a classmethod, a
    class that changes how attributes are found)."""
    import inspect
    if not _plain_lookup(cls):
        return None
    method = inspect.getattr_static(cls, name, None)
    if isinstance(method, staticmethod):
        return (method.__func__, False) if isinstance(method.__func__, types.FunctionType) \
            else None
    return (method, True) if isinstance(method, types.FunctionType) else None


def _hidden_methods(value, kind) -> frozenset:
    """The names of ``value``'s own attributes that hide a method of its class (``self.act
    = np.tanh`` where the class has ``def act``): calls of those are not the class's."""
    own = getattr(value, "__dict__", None)
    if not own:
        return frozenset()
    return frozenset(name for name in own if type(name) is str and any(
        isinstance(klass.__dict__.get(name), _METHODS) for klass in kind.__mro__[:-1]))


_METHODS = (types.FunctionType, staticmethod)  # what class_method takes
_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, np.ufunc,
              functools.partial, type(np.sum))  # (function_value; np.sum: NumPy 2's
# dispatcher of array functions)


def namedtuple_class(value) -> bool:
    """Is ``value`` a namedtuple's class (``collections.namedtuple``,
    ``typing.NamedTuple``) as Python makes it: its ``__new__`` takes the fields in order,
    ``p.w`` reads its field by position? (Not a subclass: its ``__new__`` may change the
    values, a property may stand for a field.)

    >>> import collections
    >>> P = collections.namedtuple("P", "w b")
    >>> class Doubled(P):
    ...     def __new__(cls, w, b):
    ...         return super().__new__(cls, 2 * w, b)
    >>> namedtuple_class(P), namedtuple_class(Doubled), namedtuple_class(tuple)
    (True, False, False)
    """
    if not (isinstance(value, type) and issubclass(value, tuple)):
        return False
    own = value.__dict__
    fields, new = own.get("_fields"), own.get("__new__")
    made = getattr(getattr(new, "__func__", None), "__globals__", {})  # (namedtuple's own
    if not isinstance(fields, tuple) or made.get("__name__") != f"namedtuple_{value.__name__}":
        return False                                                  # namespace for __new__)
    numbers = tuple(range(len(fields)))
    return all(type(own.get(f)).__name__ == "_tuplegetter" and
               own[f].__get__(numbers, value) == i for i, f in enumerate(fields))


def modeled(value) -> bool:
    """Are ``value``'s operators and indexing NumPy's and Python's own: a number, a NumPy
    array or scalar (not a subclass: ``np.matrix``, a masked array), a list, tuple, dict,
    string, range or None?

    >>> import numpy as np
    >>> [modeled(v) for v in (2.0, np.ones(2), [1.0], np.ma.masked_array([1.0]), np.r_)]
    [True, True, True, False, False]
    """
    return modeled_type(type(value))


def modeled_type(kind: type) -> bool:
    """Are the operators and indexing of ``kind``'s objects modeled (see ``modeled``)?"""
    if kind in _MODELED or issubclass(kind, np.generic):
        return True
    backend = BY_LIBRARY.get(kind.__module__.split(".")[0])  # (a CuPy or Dask array)
    return backend is not None and backend.array_type(kind)


_MODELED = frozenset({bool, int, float, complex, np.ndarray, list, tuple, dict, str, bytes,
                      range, slice, type(None), type(Ellipsis),
                      type(np.s_)})  # (np.s_[i] and np.index_exp[i] give the index itself)


def unmodeled_data(value) -> bool:
    """Is ``value`` data (an array, a number, a sequence, set or mapping) whose class s2sad
    does not model: an ``np.matrix``, a masked array, a ``collections.deque``, an
    ``array.array``, a ``fractions.Fraction``, a scipy sparse matrix...?

    >>> import fractions
    >>> [unmodeled_data(v) for v in (np.ones(2), np.ma.masked_array([1.0]),
    ...                                fractions.Fraction(1, 2), np.sin, "fro", None)]
    [False, True, True, False, False, False]
    """
    if modeled(value) or isinstance(value, (type, np.dtype, type(np))):
        return False
    return isinstance(value, (np.ndarray, numbers.Number, abc.Sequence, abc.Set,
                              abc.Mapping)) or any(
        hasattr(type(value), name) for name in _ARRAY_LIKE)


_ARRAY_LIKE = ("__array__", "__array_interface__", "__array_priority__",
               "__array_ufunc__", "__array_function__")
