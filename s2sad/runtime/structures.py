"""Structures: sensitivities of lists, tuples and dicts, seeds, and the final gradient.

>>> import numpy as np
>>> zeros_like_structure({"a": (1.0, np.ones(2))})
{'a': [0.0, array([0., 0.])]}
>>> as_gradient([1.0, np.float64(2.0)], [3, np.float64(4.0)])
[3.0, np.float64(4.0)]

``zeros_like_structure`` starts a sensitivity, ``add_sens`` adds two, ``pack_like``
rebuilds one after unpacking. ``output_seed`` seeds the reverse sweep; ``as_gradient``
gives each argument a gradient of its own type. ``item_or_missing`` and ``restore_item``
undo a store into a dict.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import numbers
import operator

import numpy as np

from ..backends import array_class, array_module, is_lazy
from ..descriptors import attribute_object
from ..errors import DifferentiationError, NonScalarOutputError
from .elementwise import cast_like
from .shapes import _float_type, _known_shape, _ndim, _shape, _to, unbroadcast


class SensitivityDict(dict):
    """The sensitivity of a dict: zero at a key it was not made with. (A key the dict had
    only for a while, ``d['c'] = v`` taken out again by the reverse sweep, may still get
    a sensitivity.)

    >>> s_d = SensitivityDict(a=1.0)
    >>> s_d['c'] += 2.0
    >>> s_d
    {'a': 1.0, 'c': 2.0}
    """

    __slots__ = ()

    def __missing__(self, key):
        return NOTHING


# The one 0.0 :func:`zeros_like_structure` puts for a number's sensitivity: an item that
# still holds this very object got nothing, and its rule adds nothing (`0 * slope` is NaN
# where the slope is infinite). A plain float, so NumPy takes it as it takes 0.0 (weakly:
# float32 stays float32); any sum makes another object. The test is `is`, never `==`.
NOTHING = float("0.0")


def added_to(s) -> bool:
    """Was anything added to the item's sensitivity ``s``, since zeros_like_structure made it?

    >>> s_ys = zeros_like_structure([1.0, 2.0])
    >>> s_ys[1] += 0.0
    >>> added_to(s_ys[0]), added_to(s_ys[1])
    (False, True)
    """
    return s is not NOTHING


def zeros_like_structure(x):
    """Zeros with the structure of ``x``, ready to be updated in place (tuples become
    lists, a dict a :class:`SensitivityDict`)."""
    if isinstance(x, (list, tuple)):  # (a Python float's: NOTHING, without the call)
        return [NOTHING if type(v) is float else zeros_like_structure(v) for v in x]
    if isinstance(x, dict):
        return SensitivityDict((k, zeros_like_structure(v)) for k, v in x.items())
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape, _float_type(x))
    if isinstance(x, float):
        return NOTHING
    xp = array_module(x)
    if xp is not np:
        return xp.zeros(_known_shape(x), _float_type(x))
    return NOTHING


def pack_like(x, parts):
    """Adjoint of unpacking ``a, b, ... = x``: the parts' sensitivities, shaped like ``x``.
    ``parts`` may be no list at all (the 0.0 of a starred rest that got no sensitivity) or
    empty (``a, b, *rest = x`` of two items).

    >>> pack_like(np.zeros((0, 2)), []).shape, pack_like((), 0.0), pack_like({"a": 1.0}, [2.0])
    ((0, 2), (), 0.0)
    >>> pack_like(np.zeros(2), np.array([1.0, 2.0]))  # (the adjoint of np.sum(rest))
    array([1., 2.])
    """
    if isinstance(x, (dict, set, frozenset)):
        return 0.0  # (list(d) of a dict or a set: its keys, which carry no derivative)
    if isinstance(parts, numbers.Number):  # (the 0.0 of a rest never read; an array of
        parts = [parts] * len(x)             # the parts' sensitivities goes row by row)
    if isinstance(x, tuple):
        return tuple(parts)
    if isinstance(x, list):
        return list(parts)
    xp = array_module(x)
    if isinstance(x, array_class(xp)):
        if isinstance(parts, array_class(xp)):  # (one array of them: np.sum(rest)'s)
            return xp.broadcast_to(parts, x.shape).astype(_float_type(x))
        if not parts:
            return xp.zeros(x.shape, _float_type(x))
        return xp.stack([xp.broadcast_to(_to(xp, p), x.shape[1:])
                         for p in parts]).astype(_float_type(x))
    return list(parts)


class _Missing:
    """What a dict held at a key it did not have (saved before ``d[k] = v`` added it)."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()


def item_or_missing(d, key):
    """``d[key]``, saved before ``d[key] = v``; ``MISSING`` if ``d`` has no such key.

    >>> d = {"a": 1.0}
    >>> item_or_missing(d, "a"), item_or_missing(d, "c")
    (1.0, <missing>)
    """
    return d.get(key, MISSING)


def restore_item(d, key, value) -> None:
    """Undo ``d[key] = v`` with the value :func:`item_or_missing` saved: put it back, or
    take the key out again if ``d`` did not have it.

    >>> d = {"a": 1.0, "c": 3.0}
    >>> restore_item(d, "a", 2.0); restore_item(d, "c", MISSING); d
    {'a': 2.0}
    """
    if value is MISSING:
        d.pop(key, None)  # (a derivative of this code may have taken it out already)
    else:
        d[key] = value


def add_sens(a, b):
    """``a + b`` for sensitivities that may be containers (lists add element by element;
    ``None`` in a tuple, for an argument that is not a number, adds as zero)."""
    if a is NOTHING and b is NOTHING:
        return NOTHING  # (an item nothing was added to, on either side: still nothing)
    if isinstance(b, (list, tuple, dict)) and _zero(a):
        return b  # the first contribution to a container's sensitivity (its parts may differ
        # in shape: the pieces of np.concatenate), as optimized code assigns it
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if _has_none(a) or _has_none(b):
            return tuple(u if v is None else v if u is None else add_sens(u, v)
                         for u, v in zip(a, b, strict=True))
        # (two Python floats: the sum add_sens would return, without a call per item)
        summed = [u + v if type(u) is float and type(v) is float and
                  (u is not NOTHING or v is not NOTHING) else add_sens(u, v)
                  for u, v in zip(a, b, strict=True)]
        return summed if isinstance(a, list) else tuple(summed)
    if isinstance(a, (list, tuple, dict)) and _zero(b):
        return a  # (the 0.0 nothing has flowed into yet: a list's items keep their shapes)
    if isinstance(a, dict) and isinstance(b, dict):  # (zero at a key neither has)
        summed = SensitivityDict((k, add_sens(a[k], b[k]) if k in b else a[k]) for k in a)
        summed.update((k, v) for k, v in b.items() if k not in a)
        return summed
    if isinstance(a, (list, tuple)):
        a = _stacked(a, b)
    if isinstance(b, (list, tuple)):
        b = _stacked(b, a)
    return a + b


def _has_none(items) -> bool:
    return any(map(_IS_NONE, items))  # (a loop in C: `None in items` would compare arrays)


_IS_NONE = functools.partial(operator.is_, None)


def _zero(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x == 0


def _stacked(items, other):
    """A list of sensitivities as one array, on the device of ``other`` or of the items."""
    xp = array_module(other, *items)
    return xp.asarray(items) if xp is np else xp.stack([xp.asarray(v) for v in items])


# True while a maker runs a function's code again for the same call (a pullback, a
# pushforward, a Jacobian's rows or columns, a checkpoint's recomputation): the call ran
# the user's changes to its objects' state once already, so they are not run again.
_REPEATING = contextvars.ContextVar("s2sad_repeating", default=False)


@contextlib.contextmanager
def repeating():
    """Run a function's generated code again for a call that already ran it: inside,
    ``side_effect`` changes nothing (``model.calls += 1`` counts one call, not two).

    >>> class M: pass
    >>> m = M(); m.calls = 1
    >>> with repeating():
    ...     side_effect(2, m, ".calls|=")
    >>> m.calls
    1

    A function whose output reads the state it changes is refused by the makers that
    repeat it (vjp, jvp, jacobian, hessian), so the repeat computes what the call did.
    """
    token = _REPEATING.set(True)
    try:
        yield
    finally:
        _REPEATING.reset(token)


def repeated() -> bool:
    """Is a call being run again (inside :func:`repeating`)?

    >>> repeated()
    False
    """
    return _REPEATING.get()


def side_effect(value, root, chain: str, *keys, where: str = ""):
    """Do, in the forward sweep, what the user's statement does to an object's state.
    ``chain``: the path from ``root`` (``".layers[].cache"``, each ``[]`` taking the next
    of ``keys``), then how it ends: ``"|="`` sets the last attribute to ``value``,
    ``"|+="`` too where the old value was an immutable number (Python changes a list or
    an array in place), ``"|append"`` appends ``value`` to the list the path reaches.
    ``where``: the user's line, for the error of a ``+=`` on a list or an array.

    >>> class M: pass
    >>> m = M(); m.n = 1; m.cache = {"Z": []}
    >>> side_effect(2, m, ".n|="), side_effect(5.0, m, ".cache[]|append", "Z")
    (None, None)
    >>> m.n, m.cache
    (2, {'Z': [5.0]})
    """
    if _REPEATING.get():
        return
    path, how = chain.split("|")
    steps = path.replace("[]", ".[]").split(".")[1:]
    keys = iter(keys)
    holder = root
    for step in steps[:-1]:
        holder = holder[next(keys)] if step == "[]" else getattr(holder, step)
    last = steps[-1]
    if how == "append":
        (holder[next(keys)] if last == "[]" else getattr(holder, last)).append(value)
        return
    if how == "+=" and not isinstance(getattr(holder, last), (numbers.Number, str, bytes,
                                                              tuple)):
        raise DifferentiationError(
            f"{where}: `+=` on an attribute holding a "
            f"{type(getattr(holder, last)).__name__}, which Python changes in place where "
            "the reverse sweep cannot see it",
            hint=f"Assign a new value: `obj.{last} = obj.{last} + ...`.")
    setattr(holder, last, value)


def sort_order(keys, reverse=False) -> list:
    """The positions of ``keys`` in the order ``sorted`` puts them (stable; ``reverse`` as
    ``sorted`` takes it): ``sorted(xs, key=k)`` is ``[xs[i] for i in sort_order([k(v) for v
    in xs])]``, with the same comparisons.

    >>> sort_order([2.0, 1.0, 2.0]), sort_order([2.0, 1.0, 2.0], reverse=True)
    ([1, 0, 2], [0, 2, 1])
    """
    return sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)


def extreme_position(keys, largest: bool) -> int:
    """The position ``max`` (``largest``) or ``min`` picks among ``keys``: the first of the
    ties, with the comparisons ``max(xs, key=k)`` makes.

    >>> extreme_position([1.0, 3.0, 3.0], True), extreme_position([1.0, 3.0, 0.5], False)
    (1, 2)
    """
    return (max if largest else min)(range(len(keys)), key=keys.__getitem__)


def output_seed(value):
    """The sensitivity of a function's result to itself: 1, checked to be a scalar."""
    if isinstance(value, (bool, np.bool_)) or \
            not isinstance(value, (numbers.Number, np.ndarray, np.generic)):
        xp = array_module(value)
        if xp is np or value.dtype == bool:
            raise NonScalarOutputError(
                f"grad needs a function that returns a scalar, but it returned {type(value).__name__}",
                hint="Return a float or a size-1 array; for vector outputs use s2sad.vjp or s2sad.jacobian.")
    else:
        xp = np
    if np.size(value) != 1 if xp is np else value.size != 1:
        raise NonScalarOutputError(
            f"grad needs a function that returns a scalar, but it returned an array of shape {_shape(value)}",
            hint="Reduce it (np.sum, np.mean...) or, for vector outputs, use s2sad.vjp or s2sad.jacobian.")
    if getattr(xp, "iscomplexobj", np.iscomplexobj)(value):  # (Dask's: NumPy's reads the dtype)
        raise NonScalarOutputError(
            "grad needs a function that returns a scalar, but it returned a complex number",
            hint="Differentiate its real part (np.real(...)) or its modulus (np.abs(...)); "
                 "for a holomorphic function's derivative, s2sad.grad(f, holomorphic=True); "
                 "for both parts, s2sad.vjp or s2sad.jacobian.")
    if isinstance(value, (np.ndarray, xp.ndarray)):
        return xp.ones_like(value, dtype=_float_type(value))
    return 1.0


def as_gradient(x, g):
    """The gradient with the structure, shape and dtype of the argument ``x``.

    An array argument gets an array of its own module (a CuPy array stays on the GPU);
    a Python or NumPy scalar gets a scalar of its type, on the host.
    """
    if type(x) is np.ndarray and type(g) is np.ndarray and g.shape == x.shape and \
            x.dtype.kind in "fc" and (g.dtype.kind != "c" or x.dtype.kind == "c"):
        return g.astype(x.dtype)  # (the common case first: what the code below does for it)
    if isinstance(x, (list, tuple)):
        if not isinstance(g, (list, tuple)):
            g = [g] * len(x) if _ndim(g) == 0 else list(g)
        parts = [as_gradient(a, b) for a, b in zip(x, g, strict=True)]
        return parts if isinstance(x, list) else type(x)(parts) if type(x) is tuple else type(x)(*parts)
    if isinstance(x, dict):
        if not isinstance(g, dict):
            g = {}
        return {k: as_gradient(v, g.get(k, 0.0)) for k, v in x.items()}
    if np.iscomplexobj(g) and not np.iscomplexobj(x):  # (a real argument: the real part)
        g = g.real
    if is_lazy(g) and not is_lazy(x) and isinstance(x, (np.ndarray, np.generic, numbers.Number)):
        return g  # (Dask data, a NumPy argument: computed after, with the other gradients)
    if isinstance(x, np.ndarray):
        if type(g) is np.ndarray and g.shape == x.shape:
            return g.astype(_float_type(x))  # a copy, as below, without the broadcast
        return np.array(np.broadcast_to(g, x.shape), dtype=_float_type(x))
    if isinstance(x, np.generic):
        if not isinstance(g, (numbers.Number, np.ndarray, np.generic)):
            g = g.item()  # a CuPy value: the gradient of a host scalar is a host scalar
        return _float_type(x).type(np.real(g) if not np.iscomplexobj(x) else g)
    if isinstance(x, complex):
        return complex(g)
    if isinstance(x, numbers.Real):
        return float(g)
    xp = array_module(x)
    if is_lazy(x):  # (a Dask argument: a lazy gradient, in its chunks)
        return xp.broadcast_to(xp.asarray(g), x.shape).astype(_float_type(x)).rechunk(x.chunks)
    if xp is not np:
        return xp.array(xp.broadcast_to(xp.asarray(g), x.shape), dtype=_float_type(x))
    if attribute_object(x):
        return object_gradient(x, g)
    raise DifferentiationError(f"cannot return a gradient for an argument of type {type(x).__name__}")


def object_gradient(x, g):
    """The gradient of an object of a user's class: an object of the same class, made
    without calling ``__init__``, holding gradients in place of its parameters and every
    other attribute as it is. ``g`` is the sensitivity the reverse sweep built: a dict of
    attribute names (an attribute it does not name has a zero gradient).

    >>> class Dense:
    ...     __module__ = "__main__"  # (a user's class: this one is defined in s2sad's module)
    ...     def __init__(self, W, b):
    ...         self.W, self.b, self.n_in, self.name = W, b, len(W), "dense"
    >>> g = object_gradient(Dense(np.ones((2, 1)), 0.5), {"W": np.full((2, 1), 3.0)})
    >>> type(g).__name__, g.W.ravel(), g.b, g.n_in, g.name
    ('Dense', array([3., 3.]), 0.0, 2, 'dense')

    Its parameters are the floats and float (or complex) arrays reachable through its
    attributes, lists, tuples, dicts and the objects of a user's class it holds. Ints,
    bools, strings, None, integer arrays, functions, and the attributes its class names
    frozen (:func:`s2sad.frozen`) are not: they are kept as they are. The object itself
    is not changed.
    """
    reached: dict = {}  # id -> (object, the sensitivities of its own attributes, by path)
    _reach(x, g, reached)
    return _object_gradient(x, reached, {})


def _reach(value, g, reached: dict, seen: set | None = None) -> None:
    """Note, for each object of a user's class in ``value``, the sensitivity ``g`` gives
    its attributes, on each path that reaches it (a layer held twice, a pointer back to
    the model: each path's part adds into the one object's gradient). A tangent shaped
    like it (an object of its class) counts once where it shares as the model does."""
    seen = set() if seen is None else seen
    if attribute_object(value):
        if attribute_object(g):  # (a tangent shaped like it: an object of its class)
            if (id(value), id(g)) in seen:  # (the same object on another path: one part)
                return
            seen.add((id(value), id(g)))
            g = vars(g)
        g = g if isinstance(g, dict) else {}
        reached.setdefault(id(value), (value, []))[1].append(g)
        for name, part in g.items():
            if isinstance(name, str) and name in vars(value):
                _reach(vars(value)[name], part, reached, seen)
            elif not _zero(part):
                _computed_attribute(value, name)
    elif isinstance(value, (list, tuple)) and isinstance(g, (list, tuple)):
        for item, part in zip(value, g):
            _reach(item, part, reached, seen)
    elif isinstance(value, dict) and isinstance(g, dict):
        for key, part in g.items():
            if key in value:
                _reach(value[key], part, reached, seen)


def _object_gradient(x, reached: dict, made: dict):
    """The gradient object of ``x`` (one per object: ``made``, by id, shared where the
    model shares it, and a pointer back to the model points to the model's gradient)."""
    if id(x) in made:
        return made[id(x)]
    cls = type(x)
    frozen = frozen_attributes(cls)
    parts = reached.get(id(x), (x, []))[1]
    gradient = made[id(x)] = object.__new__(cls)
    gradient.__dict__.update(
        (name, value if name in frozen else
         _parameter_gradient(value, [g[name] for g in parts if name in g], reached, made))
        for name, value in vars(x).items())
    return gradient


def attribute_tangent(tangent, x, name: str):
    """The tangent of ``x.name`` (``x`` an object differentiated in forward mode): the
    attribute of the same name of ``tangent``, an object shaped like ``x`` (zeros where
    ``tangent`` is zero, or the attribute holds no parameter or is frozen).

    >>> class Layer:
    ...     __module__ = "__main__"  # (a user's class: this one is defined in s2sad's module)
    ...     def __init__(self, w, n): self.w, self.n = w, n
    >>> layer, direction = Layer(1.0, 3), Layer(2.0, 3)
    >>> attribute_tangent(direction, layer, "w"), attribute_tangent(direction, layer, "n")
    (2.0, 0.0)
    """
    value = getattr(x, name)
    if name not in vars(x):
        _computed_attribute(x, name)
    if _zero(tangent) or name in frozen_attributes(type(x)) or not has_parameters(value) or \
            name not in vars(x):
        return zeros_like_structure(value)
    if not attribute_object(tangent) or not hasattr(tangent, name):
        raise DifferentiationError(
            f"the tangent of a {type(x).__name__} is an object of its class holding a "
            f"tangent in place of each parameter; got a {type(tangent).__name__} without "
            f"{name!r}", hint="Pass an object like the gradient s2sad.grad returns for it.")
    return getattr(tangent, name)


def object_sensitivity(g):
    """A gradient object ``g`` (a cotangent shaped like a model) as the sensitivity the
    generated code adds up: a dict of its parameters' (zero at any other attribute: an
    int, a string, a frozen one), lists of objects as lists of such dicts.

    >>> class Layer:
    ...     __module__ = "__main__"  # (a user's class: this one is defined in s2sad's module)
    ...     def __init__(self, w, n): self.w, self.n = w, n
    >>> object_sensitivity([Layer(2.0, 3)])
    [{'w': 2.0}]
    """
    if attribute_object(g):
        frozen = frozen_attributes(type(g))
        return SensitivityDict((k, object_sensitivity(v)) for k, v in vars(g).items()
                               if k not in frozen and has_parameters(v))
    if isinstance(g, (list, tuple)) and any(map(attribute_object, g)):
        return [object_sensitivity(v) for v in g]
    if isinstance(g, dict) and any(map(attribute_object, g.values())):
        return SensitivityDict((k, object_sensitivity(v)) for k, v in g.items())
    return g


def _computed_attribute(x, name) -> None:
    """Refuse a derivative through ``x.name`` where the object does not hold ``name``
    itself and its class computes it (a property, a descriptor): s2sad read its value
    and cannot tell what it is computed from. (A plain class attribute is a constant.)"""
    import inspect
    found = inspect.getattr_static(type(x), name, None)
    if hasattr(type(found), "__get__") and not isinstance(found, (staticmethod, classmethod)):
        raise DifferentiationError(
            f"s2sad cannot differentiate through {type(x).__name__}.{name}, which its class "
            f"computes ({type(found).__name__}): the gradient with respect to the object "
            "goes to the attributes it holds",
            hint=f"Read the attributes {name} is computed from in the method, or mark it "
                 "with s2sad.stop_gradient(...) where it is read.")


def frozen_attributes(cls) -> frozenset:
    """The attributes ``cls`` names frozen (``__s2sad_frozen__``, set by
    :func:`s2sad.frozen`, its bases' too): no gradient flows into them."""
    names: set = set()
    for klass in cls.__mro__:
        names.update(vars(klass).get("__s2sad_frozen__", ()))
    return frozenset(names)


def _parameter_gradient(value, parts: list, reached: dict, made: dict):
    """The gradient of an attribute's ``value``, the sum of its sensitivities ``parts``
    (one for each path the sweep reached it by): shaped like it where it holds
    parameters."""
    if _parameter_leaf(value):
        total = 0.0
        for part in parts:
            total = add_sens(total, part)
        return as_gradient(value, total)
    if isinstance(value, (list, tuple)):
        rows = [list(p) for p in parts if isinstance(p, (list, tuple, np.ndarray))]
        items = [_parameter_gradient(v, [row[i] for row in rows], reached, made)
                 for i, v in enumerate(value)]
        return items if isinstance(value, list) else \
            tuple(items) if type(value) is tuple else type(value)(*items)
    if isinstance(value, dict):
        rows = [p for p in parts if isinstance(p, dict)]
        return {k: _parameter_gradient(v, [row[k] for row in rows if k in row], reached, made)
                for k, v in value.items()}
    if attribute_object(value):
        return _object_gradient(value, reached, made)
    return value  # (an int, a string, None, an integer array, a function: not a parameter)


def has_parameters(x, seen: frozenset = frozenset()) -> bool:
    """Does ``x`` hold a parameter (a float, or an array of floats) where
    :func:`object_gradient` finds them?

    >>> class Layer:
    ...     __module__ = "__main__"  # (a user's class: this one is defined in s2sad's module)
    ...     def __init__(self, w): self.w, self.n = w, 3
    >>> has_parameters(Layer(np.ones(2))), has_parameters(Layer(np.arange(2)))
    (True, False)
    """
    if _parameter_leaf(x):
        return True
    if id(x) in seen:  # (an object that holds itself, or its holder)
        return False
    seen = seen | {id(x)}
    if isinstance(x, (list, tuple)):
        return any(has_parameters(v, seen) for v in x)
    if isinstance(x, dict):
        return any(has_parameters(v, seen) for v in x.values())
    if attribute_object(x):
        frozen = frozen_attributes(type(x))
        return any(has_parameters(v, seen) for k, v in vars(x).items() if k not in frozen)
    return False


def _parameter_leaf(value) -> bool:
    """Is ``value`` a float, a complex number, or an array of them?"""
    if isinstance(value, bool):
        return False
    if isinstance(value, (float, complex, np.floating, np.complexfloating)):
        return True
    dtype = getattr(value, "dtype", None)
    return dtype is not None and getattr(value, "ndim", None) is not None and \
        (isinstance(value, np.ndarray) or array_module(value) is not np) and \
        dtype.kind in "fc"


def _nested_ndim(obj):
    """``np.ndim(obj)`` for (nested) lists, whose items may be arrays of any module."""
    if isinstance(obj, (list, tuple)):
        return 1 + (_nested_ndim(obj[0]) if len(obj) else 0)
    return _ndim(obj)


def _nested_shape(obj) -> tuple:
    """``np.shape(obj)`` for (nested) lists, whose items may be arrays of any module."""
    if isinstance(obj, (list, tuple)):
        return (len(obj),) + (_nested_shape(obj[0]) if len(obj) else ())
    return tuple(_shape(obj))


def array_grad(g, obj):
    """Adjoint of ``np.array(obj)``: ``g`` cut back into the (nested) lists of ``obj``.

    >>> array_grad(np.array([[1.0, 2.0], [3.0, 4.0]]), [[0.0, 0.0], np.zeros(2)])
    [[np.float64(1.0), np.float64(2.0)], array([3., 4.])]
    >>> array_grad(0.0, [1.0, 2.0])
    [np.float64(0.0), np.float64(0.0)]
    """
    xp = array_module(g)
    g = xp.asarray(g)
    if isinstance(obj, (list, tuple)):
        g = xp.reshape(g, g.shape[g.ndim - _nested_ndim(obj):]) if g.ndim > _nested_ndim(obj) \
            else g  # ndmin added leading axes of length 1
        if g.ndim < _nested_ndim(obj):  # (the 0.0 nothing has flowed into yet: spread, as
            g = xp.broadcast_to(g, _nested_shape(obj))  # for the array it stands for)
        return [array_grad(g[i], item) for i, item in enumerate(obj)]
    return cast_like(xp.reshape(g, _shape(obj)), obj) if isinstance(obj, (np.ndarray, xp.ndarray)) \
        else g[()] if g.ndim == 0 else xp.reshape(g, _shape(obj))


def plus_part(g, at, parts):
    """The sensitivity of ``parts[at]`` in ``parts[0] + parts[1] + ...``, where a part's kind
    is known only when it runs: its slice of ``g`` where the parts are lists or tuples (they
    were joined), else ``g`` summed down to its shape (they were added).

    >>> plus_part([1.0, 2.0, 3.0], 1, ((0.5,), (0.1, 0.2)))
    [2.0, 3.0]
    >>> plus_part(np.ones(2), 0, (1.0, np.zeros(2)))
    np.float64(2.0)
    """
    if all(isinstance(p, (list, tuple)) for p in parts):
        if _zero(g):  # (the 0.0 nothing has flowed into yet: the part's zeros)
            return zeros_like_structure(parts[at])
        start = sum(len(p) for p in parts[:at])
        return g[start:start + len(parts[at])]
    return unbroadcast(g, parts[at])


def plus_tangent(tangents, parts):
    """The tangent of ``parts[0] + parts[1] + ...``, the parts' kinds known only when it
    runs: the tangents joined into one list where the parts are lists or tuples (a 0.0
    placeholder standing for a part's zeros), else their sum.

    >>> plus_tangent(((1.0,), 0.0), ((0.5,), (0.1, 0.2)))
    [1.0, 0.0, 0.0]
    >>> plus_tangent((1.0, 2.0), (0.5, 0.1))
    3.0
    """
    if all(isinstance(p, (list, tuple)) for p in parts):
        out: list = []
        for tangent, part in zip(tangents, parts, strict=True):
            out.extend([0.0] * len(part) if _zero(tangent) else tangent)
        return out
    total = tangents[0]
    for tangent in tangents[1:]:
        total = total + tangent
    return total


def repeated_list_grad(g, items, n):
    """Adjoint of ``items * n`` (a list or tuple repeated ``n`` times): each item's
    sensitivity is the sum of its copies' in ``g`` (a 0.0 where the whole got none).

    >>> repeated_list_grad([1.0, 2.0, 3.0, 4.0], [0.5, 0.5], 2)
    [4.0, 6.0]
    >>> repeated_list_grad(0.0, (0.5,), 3)
    [0.0]
    """
    out = zeros_like_structure(items)
    if isinstance(g, (list, tuple)) and out:
        for j, part in enumerate(g):
            out[j % len(out)] = add_sens(out[j % len(out)], part)
    return out


def repeated_list(g, n):
    """``list(g) * n``: the adjoint of :func:`repeated_list_grad` (a second derivative's), and
    the tangent of ``items * n``.

    >>> repeated_list([1.0, 2.0], 2)
    [1.0, 2.0, 1.0, 2.0]
    """
    return list(g) * n


def list_grad(g, like):
    """Adjoint of ``like.tolist()``: the sensitivities ``g`` of its nested lists of Python
    numbers (a 0.0 where a whole row got none), as an array of ``like``'s shape.

    >>> list_grad([[1.0, 2.0], 0.0], np.ones((2, 2)))
    array([[1., 2.],
           [0., 0.]])
    >>> list_grad(3.0, np.float64(1.0))
    np.float64(3.0)
    """
    xp = array_module(like)
    out = xp.zeros(_shape(like), _float_type(like))

    def put(index, part):
        if isinstance(part, (list, tuple)):
            for i, item in enumerate(part):
                put(index + (i,), item)
        else:  # (a number, or the 0.0 of a part nothing flowed into: spread)
            out[index] += part

    put((), g)
    return out if out.ndim else out[()]


def list_tangent(g, like):
    """Tangent of ``like.tolist()``: the tangent ``g`` of ``like`` as nested lists of
    Python numbers too (a 0.0 for none); the adjoint of :func:`list_grad`.

    >>> list_tangent(np.arange(2.0), np.ones(2)), list_tangent(0.0, np.ones(2))
    ([0.0, 1.0], 0.0)
    """
    return g if isinstance(g, numbers.Number) else g.tolist()


def sum_list_grad(g, iterable):
    """Adjoint of the builtin ``sum(iterable)``: every item gets ``g``."""
    if isinstance(iterable, (list, tuple)):
        return [g] * len(iterable)
    xp = array_module(g, iterable)
    return xp.broadcast_to(_to(xp, g), _shape(iterable))


def zip_lengths(*iterables) -> tuple:
    """The lengths of ``zip(*iterables, strict=True)``'s arguments, taken where Python
    evaluates them (before the statement that reads the ``zip``); ``zip`` raises
    TypeError for one that is not iterable, and so does this. One with no length (a
    generator, an iterator) is refused: its length is known only as it is read.

    >>> zip_lengths([1, 2], np.ones(3), range(4), reversed([5, 6]))
    (2, 3, 4, 2)
    >>> zip_lengths(1.0)
    Traceback (most recent call last):
    ...
    TypeError: 'float' object is not iterable
    """
    from ..errors import UnsupportedSyntaxError
    lengths = []
    for value in iterables:
        iter(value)
        if hasattr(value, "__len__"):
            lengths.append(len(value))
        elif type(value) in (type(reversed([])), type(reversed(()))) or \
                type(value).__name__ == "reversed":
            lengths.append(operator.length_hint(value))
        else:
            raise UnsupportedSyntaxError(
                f"zip(..., strict=True) given a {type(value).__name__}, which has no length",
                hint="Give zip lists, tuples or arrays (`list(...)` of it first).")
    return tuple(lengths)


def check_zip_lengths(lengths: tuple) -> None:
    """Raise Python's ValueError where ``zip(..., strict=True)``, given arguments of these
    ``lengths``, is read to its end: the first one exhausted is compared with the others,
    in order, as CPython does.

    >>> check_zip_lengths((2, 2, 2))
    >>> check_zip_lengths((2, 3))
    Traceback (most recent call last):
    ...
    ValueError: zip() argument 2 is longer than argument 1
    >>> check_zip_lengths((3, 3, 2))
    Traceback (most recent call last):
    ...
    ValueError: zip() argument 3 is shorter than arguments 1-2
    """
    if not lengths:
        return
    common = min(lengths)
    for i, n in enumerate(lengths):
        if i and n == common != lengths[0]:
            which = "argument 1" if i == 1 else f"arguments 1-{i}"
            raise ValueError(f"zip() argument {i + 1} is shorter than {which}")
        if lengths[0] == common and n > common:
            which = "argument 1" if i == 1 else f"arguments 1-{i}"
            raise ValueError(f"zip() argument {i + 1} is longer than {which}")


def try_caught(body, handlers: tuple, *args) -> int:
    """Run ``body(*args)`` (a ``try`` block that only computes values); the position of
    the first of ``handlers`` (each an exception class or a tuple of them, as ``except``
    names them) that catches what it raised, -1 where it raised nothing. An exception
    no handler names goes on, as Python's does.

    >>> try_caught(lambda a, b: a / b, (ValueError, ZeroDivisionError), 1.0, 0.0)
    1
    >>> try_caught(lambda a, b: a / b, (ZeroDivisionError,), 1.0, 2.0)
    -1
    """
    from ..errors import S2sadError
    try:
        body(*args)
    except S2sadError:
        raise  # (the block's values refused: see plain_values)
    except BaseException as error:
        for position, caught in enumerate(handlers):
            if isinstance(error, caught):
                return position
        raise
    return -1


def try_steps(body, handlers: tuple, *args) -> tuple:
    """``try_caught``'s position, with how many of the ``try`` block's top-level
    statements ran to their end before it raised (``body`` counts them in its
    ``s2sad_ran`` list): Python keeps the names they assigned.

    >>> def body(a, b, s2sad_ran):
    ...     c = a * 2.0
    ...     s2sad_ran[0] = 1
    ...     d = c / b
    >>> try_steps(body, (ZeroDivisionError,), 1.0, 0.0)
    (0, 1)
    >>> try_steps(body, (ZeroDivisionError,), 1.0, 2.0)
    (-1, 2)
    """
    ran = [0]
    position = try_caught(functools.partial(body, s2sad_ran=ran), handlers, *args)
    return position, ran[0] + 1 if position == -1 else ran[0]


def _plain(value, depth: int = 0) -> bool:
    if value is None or type(value) in (int, float, complex, bool, str, bytes, range) or \
            isinstance(value, np.generic) or type(value) is np.ndarray:
        return True
    if depth < 8 and type(value) in (list, tuple):
        return all(_plain(v, depth + 1) for v in value)
    if depth < 8 and type(value) is dict:
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return False


def plain_receiver(value, name: str):
    """``value``, the receiver of a method called in a ``try`` block (``self.store`` of
    ``self.store.get(k)``), where it is plain data; else refused, as
    :func:`plain_values` refuses.

    >>> plain_receiver({"a": 1.0}, "d['s']")
    {'a': 1.0}
    """
    plain_values((name,), value)
    return value


def plain_values(names: tuple, *values) -> None:
    """Refuse, where a ``try`` block runs, a method called on one of ``values`` (named
    ``names``) that is not plain data (a number, a string, an array, lists, tuples and
    dicts of them): an object's method of that name may change it, and the block runs
    twice.

    >>> plain_values(("v", "d"), np.ones(2), {"a": [1.0]})
    >>> plain_values(("v",), object())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    s2sad.errors.DifferentiationError: s2sad cannot follow a method of 'v' (a object) ...
    """
    from ..errors import DifferentiationError
    for name, value in zip(names, values):
        if not _plain(value):
            raise DifferentiationError(
                f"s2sad cannot follow a method of {name!r} (a {type(value).__name__}) called "
                "in a `try` block: the block runs twice (once to learn which block runs), "
                "and the method may change it",
                hint="Call it before the `try` statement, and compute in the `try` block "
                     "with its result.")
