"""Changes to the state of an argument's object: ``self.n_calls += 1``, ``self.n_in =
X.shape[1]``, ``self.cache.append(X)``, ``self.derived["Z"].append(Z)``.

They run in the forward sweep, in the user's order, once per call of the gradient, as
a call of the runtime's ``side_effect``; the object then holds what the user's function
would have put there (a cache the forward values). They carry no derivative: where a
value that depends on the differentiated arguments is stored and the function reads that
attribute again (``self.h = x * 2; return self.h * 3``), the read would take it as a
constant, so it is refused at the store's line (:func:`refuse_read_back`).

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.source import FunctionSource
>>> text = "def f(x, m):\\n    side_effect(x, m, '.h|=')\\n    return m.h"
>>> tree = gast.parse(text).body[0]
>>> src = FunctionSource(None, tree, "demo.py", text.splitlines(True), {})
>>> src.extra["side_effect"] = side_effect
>>> refuse_read_back(tree, src, {"x"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
s2sad.errors.DifferentiationError: a value with a derivative stored in 'h' of an object...
"""

from __future__ import annotations

import contextlib
import functools
import operator
import random
import threading
import types
import warnings

import gast
import numpy as np

from .. import registry, trees
from ..codegen import unparse
from ..errors import DifferentiationError
from ..runtime import side_effect
from ..source import MISSING
from .resolve import names_in, statement_parts


# the variants being built (s2sad.derivatives, :func:`noting_state`), innermost last: each
# collects the first change to state that its function's output reads again, ``(source,
# the change's statement, what it changes, advice or "")``; vjp, jvp, jacobian and hessian,
# which run a function more than once, refuse such a variant. By variant, not by the
# function's code: a model that reads its own counter is another variant than one that
# does not, and two functions with equal code may read different globals.
_NOTING = threading.local()


class _Notes(list):
    """The changes to state a variant's output reads again (the first one), and in
    ``draws`` the calls of methods of objects its arguments hold (:func:`_argument_draws`)."""

    def __init__(self):
        super().__init__()
        self.draws: list = []


@contextlib.contextmanager
def noting_state():
    """Collect, while a variant builds, the changes to state its output reads again.

    >>> with noting_state() as notes:
    ...     pass
    >>> notes
    []
    """
    stack = _NOTING.__dict__.setdefault("stack", [])
    notes = _Notes()
    stack.append(notes)
    try:
        yield notes
    finally:
        stack.pop()


def _reads_its_state(source, stmt, what: str, advice: str = "") -> None:
    """Note, for each variant being built, that its function's output reads the state
    ``stmt`` changes (``what``: "reads an attribute it changes", "draws from NumPy's
    global random state (np.random.normal)"); ``advice``: what to do instead, if not
    the general advice."""
    for notes in getattr(_NOTING, "stack", ()):
        if not notes:
            notes.append((source, stmt, what, advice))


def _path(node):
    """``(root name, steps)`` of ``self.layers[i].cache`` (steps: ``(".", "layers")``,
    ``("[]", i)``, ``(".", "cache")``), or None for an expression of another shape."""
    steps = []
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        steps.append((".", node.attr) if isinstance(node, gast.Attribute) else
                     ("[]", node.slice))
        node = node.value
    return (node, steps[::-1]) if isinstance(node, gast.Name) else None


def _argument_object(norm, node) -> bool:
    """Is ``node`` an object of the user's class that an argument holds (``self``,
    ``model.layers[0]``), whose attributes Python reads from its ``__dict__``?"""
    from .kinds import _plain_lookup
    ref = norm._object_ref(node)
    return ref is not None and ref[0] == "param" and _plain_lookup(ref[2])


def stored_effect(norm, stmt) -> bool:
    """Normalize ``stmt`` if it changes an argument's object's state (``obj.a = v``,
    ``obj.a += v``, ``obj.path.append(v)``) into a ``side_effect`` call; True if so.
    An attribute set on anything else is refused (``y.shape = ...``)."""
    if isinstance(stmt, gast.Assign) and any(isinstance(t, gast.Attribute)
                                             for t in stmt.targets):
        if len(stmt.targets) != 1:
            raise norm.source.syntax_error("an attribute in a chained assignment", stmt,
                                           "Assign each target on its own line.")
        target, how = stmt.targets[0], "="
    elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Attribute):
        target, how = stmt.target, "+="
    elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and \
            isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "append" \
            and len(stmt.value.args) == 1 and not stmt.value.keywords:
        target, how = stmt.value.func.value, "append"
        path = _path(target)
        if path is None or not any(kind == "." for kind, _ in path[1]) or \
                _argument_object(norm, target) or norm._object_ref(target) is not None:
            return False  # (a local list's append, a list of objects': not an attribute's)
        holder = _holder(norm, target)
        if holder is None:
            return False
    else:
        return False
    if how != "append":
        holder = target.value
        if not _argument_object(norm, holder):
            raise norm.source.syntax_error(
                "assignment to attribute", target,
                "Assign to a plain variable (an attribute is set only on an object of your "
                "class that an argument holds: self.n = ...).")
        _refuse_object_member(norm, stmt, holder, target.attr)
    value = stmt.value.args[0] if how == "append" else stmt.value
    norm._refuse_hidden_updates(gast.copy_location(gast.Expr(value), stmt))
    norm._refuse_object_changes(gast.copy_location(gast.Expr(value), stmt))
    if norm._object_ref(value) is not None or norm._callee(value) is not None and \
            isinstance(value, (gast.Name, gast.Attribute)) and \
            norm._object_ref(value) is None and callable(norm._callee(value)):
        raise norm.source.syntax_error(
            f"{unparse(value).strip()}, an object or a function, stored in an attribute",
            stmt, "s2sad reads which objects and functions an object holds when it builds "
            "the gradient; store numbers, arrays, lists and dicts of them only.")
    root, steps = _path(target)
    keys = [norm.atom(key) for kind, key in steps if kind == "[]"]
    chain = "".join("." + key if kind == "." else "[]" for kind, key in steps)
    if how == "+=":
        old = norm.atom(target)  # (Python reads the object's path once; here twice, the
        new = norm.to_atom(gast.BinOp(old, stmt.op, norm.atom(stmt.value)))  # same path)
    else:
        new = norm.atom(value)
    keywords = []
    if how == "+=":  # (checked when it runs: Python changes a list or an array in place)
        frame = norm.frames()[-1] if norm.frames() else None
        where = f"line {frame[1]}: {frame[2].strip()}" if frame else \
            f"line {getattr(stmt, 'lineno', '?')}"
        keywords = [gast.keyword("where", gast.Constant(where, None))]
    call = gast.Call(norm.load(norm.fixed_name(side_effect, "side_effect")),
                     [new, norm.name(root), gast.Constant(f"{chain}|{how}", None)] + keys,
                     keywords)
    norm.emit(gast.Expr(call))
    return True


def _holder(norm, target):
    """The object whose attribute ``target`` (``self.cache``, ``self.derived["Z"]``)
    starts from, if it is an argument's object."""
    node = target
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        if isinstance(node, gast.Subscript) and norm._object_ref(node) is None and \
                (norm._object_ref(node.value) or ("",))[0] == "seq":
            raise norm.source.syntax_error(
                f"a change to an item of the list of objects {unparse(node.value).strip()!r} "
                "at an index s2sad does not know when it builds the gradient", norm.stmt,
                "Loop over the objects (for layer in self.layers: layer.cache.append(X)), "
                "or index the list with a constant.")
        if isinstance(node, gast.Attribute) and _argument_object(norm, node.value):
            _refuse_object_member(norm, norm.stmt, node.value, node.attr)
            return node.value
        node = node.value
    return None


def _refuse_object_member(norm, stmt, holder, attr: str) -> None:
    """An attribute that holds an object of the user's class, a list of them or None, or
    that the class reads through a property or a method: s2sad read it when it built the
    gradient, so a change to it is refused."""
    from .kinds import data_descriptor
    cls = norm._object_ref(holder)[2]
    member = norm._object_ref(gast.Attribute(holder, attr, gast.Load()))
    if member is not None or data_descriptor(cls, attr) or callable(getattr(cls, attr, None)):
        raise norm.source.syntax_error(
            f"a change to {unparse(holder).strip()}.{attr}, which holds an object, a list of "
            "objects or None, or is a method or property of its class", stmt,
            "s2sad reads these when it builds the gradient; "
            "change numbers, arrays, lists and dicts of them only.")


def _reads_no_attribute(source, func) -> bool:
    """Is ``func`` (a call's function) one that reads no attribute of the objects it is
    given (``len(self.layers)``; the rule's ``no_attributes`` fact)?"""
    if not isinstance(func, gast.Name):
        return False
    try:
        found = source.resolve(func.id)
    except KeyError:  # (a name not resolved: it may read anything)
        return False
    facts = registry.facts(found)
    return facts is not None and facts.no_attributes


# the libraries whose functions read what they are given, and no object of the user's
# through their own modules' state (no module of theirs holds one)
_READS_ITS_ARGUMENTS = frozenset({"numpy", "scipy", "math", "cmath", "operator", "_operator",
                                  "functools", "_functools", "itertools", "builtins",
                                  "s2sad"})


def _holds_no_object(value, depth: int = 0) -> bool:
    """Can ``value`` hold no object at all (a number, a string, a module, an array of
    numbers, a tuple of them)? It then reaches none of the user's.

    >>> _holds_no_object(np.zeros(2)), _holds_no_object(np.array([None])), _holds_no_object([])
    (True, False, False)
    """
    if isinstance(value, (type(None), bool, int, float, complex, str, bytes, types.ModuleType)):
        return True
    if isinstance(value, (np.ndarray, np.generic)):
        return not value.dtype.hasobject
    if isinstance(value, (tuple, frozenset)) and depth < 4:
        return all(_holds_no_object(item, depth + 1) for item in value)
    return False


def _described_no_object(desc) -> bool:
    """Does an argument's description say it holds numbers only (``"float"``, ``("nd",
    2, "f", ())``, a list of floats), never an object (``("nd", 1, "O")`` may)?

    >>> numbers, objects = ("list", ("float", ("nd", 1, "f"))), ("nd", 1, "O")
    >>> _described_no_object(numbers), _described_no_object(objects)
    (True, False)
    """
    from ..backends import ARRAY_TAGS
    if desc in ("float", "int", "complex", ("none",)):
        return True
    if type(desc) is not tuple or not desc:
        return False
    if desc[0] in ARRAY_TAGS:
        return len(desc) >= 3 and desc[2] in ("b", "i", "u", "f", "c")
    if desc[0] in ("list", "tuple") and len(desc) >= 2 and type(desc[1]) is tuple:
        return all(_described_no_object(item) for item in desc[1])
    if desc[0] == "dict" and len(desc) == 2:
        return all(isinstance(key, (str, int, float)) and _described_no_object(item)
                   for key, item in desc[1])
    return False


def _may_hold_object_arrays(desc) -> bool:
    """May an argument of this description hold an array of objects, at any depth (an
    object's member, a list's item), or is it not described?

    >>> numbers, objects = ("list", (("nd", 1, "f"),)), ("nd", 1, "O")
    >>> _may_hold_object_arrays(numbers), _may_hold_object_arrays(objects)
    (False, True)
    """
    from ..backends import ARRAY_TAGS
    if desc is None:
        return True
    if type(desc) is str or _described_no_object(desc):
        return False
    if type(desc) is not tuple or not desc:
        return True
    if desc[0] in ARRAY_TAGS:
        return True  # (not numbers: _described_no_object said so)
    if desc[0] in ("list", "tuple") and len(desc) >= 2 and type(desc[1]) is tuple:
        return any(_may_hold_object_arrays(item) for item in desc[1])
    if desc[0] == "dict" and len(desc) == 2:
        return any(_may_hold_object_arrays(item) for _, item in desc[1])
    if desc[0] == "object" and len(desc) >= 4:
        return any(_may_hold_object_arrays(item) for _, item in desc[3])
    return desc[0] not in ("function", "none")

def _held(value, depth: int = 0) -> list:
    """The values a tuple, list or dict holds, flattened (what ``__reduce__`` gives)."""
    if isinstance(value, (tuple, list)) and depth < 3:
        return [v for item in value for v in _held(item, depth + 1)]
    if isinstance(value, dict) and depth < 3:
        return [v for item in value.values() for v in _held(item, depth + 1)]
    return [value]


def _code_names(code) -> set:
    """The global names a code object and the code nested in it name."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _callee_reaches(value, seen: set | None = None, depth: int = 0) -> bool:
    """May calling ``value`` read an object it is not given, that its closure, its
    defaults, the globals it names or the object it is bound to hold? Not a function
    with a rule, nor a C function of a module, nor one of a library whose modules hold no
    object of the user's (NumPy's, SciPy's: ``_READS_ITS_ARGUMENTS``); a library's
    function that names a module's list may (a registry of the user's objects).

    >>> import operator
    >>> holder = functools.partial(np.add, [object()])
    >>> _callee_reaches(np.sum), _callee_reaches(operator.attrgetter("h")), _callee_reaches(holder)
    (False, False, True)
    """
    seen = set() if seen is None else seen
    if id(value) in seen:
        return False
    seen.add(id(value))
    if registry.facts(value) is not None:
        return False

    def held_reaches(held):
        return any(_callee_reaches(item, seen, depth + 1) if callable(item) else
                   not _holds_no_object(item) for item in held)
    if isinstance(value, (functools.partial, operator.attrgetter, operator.itemgetter,
                          operator.methodcaller)):
        return held_reaches(_held(value.__reduce__()[1:]))
    if isinstance(value, types.BuiltinFunctionType):  # (a C function, or a C method)
        owner = getattr(value, "__self__", None)
        return not (owner is None or isinstance(owner, types.ModuleType) or
                    _holds_no_object(owner))
    if isinstance(value, types.MethodType):
        return held_reaches([value.__self__, value.__func__])
    module = (getattr(value, "__module__", None) or "").split(".")[0]
    if module in _READS_ITS_ARGUMENTS or isinstance(value, np.ufunc):
        return False
    if not isinstance(value, types.FunctionType) or depth > 3:
        return True  # (a class of a library, a callable object: anything)
    named = value.__globals__
    held = [cell.cell_contents for cell in value.__closure__ or ()
            if cell.cell_contents is not None] if value.__closure__ else []
    held += list(value.__defaults__ or ()) + list((value.__kwdefaults__ or {}).values())
    held += [named[name] for name in sorted(_code_names(value.__code__)) if name in named]
    return held_reaches(held)


def _free_value(source, name: str):
    """The value of the free name ``name`` (:func:`_peek`, else a helper's or a
    builtin's); MISSING for one s2sad's code gives (its NumPy's in an inlined method)."""
    try:
        return _peek(source, name)
    except KeyError:
        import builtins
        extra = getattr(source, "extra", None) or {}
        return extra[name] if name in extra else getattr(builtins, name, MISSING)

def _numbers(tree, source, params, local: set) -> set:
    """The local names that hold numbers only on every path (a Python number, a string,
    an array of numbers): a constant, an argument described so, an attribute of an
    argument's object described so (``self.n_calls``: the entry tests it), an item of
    one, arithmetic on them, or a function with a rule given only them that returns an
    array or a number (``np.sum(G0[1])``). Such a name reaches no object."""
    from .dtypes import dtype_kinds
    from .kinds import member
    descriptors = getattr(source, "descriptors", None) or {}
    categories = dtype_kinds(tree, source, local)
    assigned: dict = {}  # name -> the values it is given ("?": one that is not plain)
    for node in trees.walk(tree):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            assigned.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            assigned.setdefault(node.target.id, []).append(
                gast.BinOp(gast.Name(node.target.id, gast.Load(), None, None), node.op,
                           node.value))
        elif isinstance(node, gast.For) and isinstance(node.target, gast.Name):
            assigned.setdefault(node.target.id, []).append(("item", node.iter))
        else:
            for name in trees.walk(node) if isinstance(node, gast.stmt) and not isinstance(
                    node, (gast.If, gast.For, gast.While, gast.FunctionDef)) else ():
                if isinstance(name, gast.Name) and isinstance(name.ctx, gast.Store):
                    assigned.setdefault(name.id, []).append("?")
    numbers = {p for p in params if _described_no_object(descriptors.get(p))}
    numbers |= {name for name in assigned if name not in params}

    def free_number(name):
        value = _free_value(source, name)
        return value is not MISSING and _holds_no_object(value)

    def plain(node) -> bool:
        if isinstance(node, gast.Constant):
            return _holds_no_object(node.value)
        if isinstance(node, gast.Name):
            return node.id in numbers if node.id in local else free_number(node.id)
        if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp)):
            return all(plain(part) for part in gast.iter_child_nodes(node)
                       if isinstance(part, gast.expr))
        if isinstance(node, (gast.Attribute, gast.Subscript)):
            if plain(node.value) and (isinstance(node, gast.Attribute) or plain(node.slice)):
                return True
            try:
                return _described_no_object(member(source, node))
            except Exception:  # (a path deeper than the description: not known)
                return False
        if isinstance(node, gast.Slice):
            return all(plain(part) for part in (node.lower, node.upper, node.step)
                       if part is not None)
        if isinstance(node, gast.Tuple):  # (an index M[i, j])
            return all(plain(part) for part in node.elts)
        return False

    def gives_numbers(name, value) -> bool:
        if isinstance(value, tuple):  # (a loop's item: a range's, an array of numbers')
            iterated = value[1]
            return isinstance(iterated, gast.Call) and isinstance(iterated.func, gast.Name) \
                and iterated.func.id == "range" and iterated.func.id not in local and \
                all(plain(a) for a in iterated.args) or \
                isinstance(iterated, gast.Name) and plain(iterated) and \
                (categories.get(iterated.id) or ("", ""))[1] == "a"
        if not isinstance(value, gast.Call):
            return not isinstance(value, str) and plain(value)
        facts = None
        func = value.func
        path = []
        while isinstance(func, gast.Attribute):
            path.append(func.attr)
            func = func.value
        if isinstance(func, gast.Name) and func.id not in local:
            callee = _free_value(source, func.id)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for attr in reversed(path):
                        callee = getattr(callee, attr)
                facts = registry.facts(callee)
            except Exception:  # (no such attribute: not known)
                facts = None
        if facts is None:
            return False
        if facts.number:  # (len(ms), int(v): a Python number whatever it is given)
            return True
        return all(plain(a) for a in list(value.args) + [k.value for k in value.keywords]) \
            and (categories.get(name) or ("", ""))[1] in ("a", "n")

    shrunk = True
    while shrunk:  # (the largest set each of whose names is given numbers only)
        shrunk = False
        for name, values in assigned.items():
            if name in numbers and name not in params and \
                    not all(gives_numbers(name, v) for v in values):
                numbers.discard(name)
                shrunk = True
    return numbers


_UNREAD = object()  # (an attribute of a free value that could not be read)


class _Reach:
    """Which calls of a function may read an object of the user's (an argument's, a
    global's): those given one, or something that holds one, or whose function may read
    one through its closure or globals (:func:`_callee_reaches`). A name reaches one if an
    argument or a free name that holds one flows into it (``ms = [model]``, ``m =
    ms[0]``, ``for m in ms``), or if a call that reaches one is given it (``ms.append(
    model)``: then so does every name it was made from). A name that holds numbers (an
    array of floats, an int: its dtype, :mod:`s2sad.transforms.dtypes`) reaches none.

    >>> import gast
    >>> from s2sad.source import FunctionSource
    >>> text = ("def f(x, m):\\n    a = np.sum(x)\\n    ms = [m]\\n    b = np.asarray(ms)\\n"
    ...         "    return a")
    >>> tree = gast.parse(text).body[0]
    >>> src = FunctionSource(None, tree, "demo.py", [], {"np": np})
    >>> src.descriptors = {"x": ("nd", 1, "f", ()), "m": ("object", object, (), ())}
    >>> reach = _Reach(tree, src, set())
    >>> reach(tree.body[0].value), reach(tree.body[2].value), sorted(reach.names)
    (False, True, ['b', 'm', 'ms'])
    >>> sorted(_numbers(tree, src, ["x", "m"], reach.local))
    ['a', 'x']
    """

    def __init__(self, tree, source, helpers, kinds: dict | None = None):
        from .dtypes import argument_categories
        self.source, self.helpers, self.free = source, helpers, {}
        descriptors = getattr(source, "descriptors", None) or {}
        params = [a.id for a in tree.args.args + tree.args.posonlyargs + tree.args.kwonlyargs]
        params += [a.id for a in (tree.args.vararg, tree.args.kwarg) if a is not None]
        self.local = trees.assigned_names(tree) | set(params)
        if getattr(source, "arguments", None) is None:  # (a tree of its own: the doctest)
            source.arguments = argument_categories(params, [descriptors.get(p) for p in params])
        exact = _numbers(tree, source, params, self.local)
        # what s2sad computes with as numbers (kinds: x @ layer.W, t * s), but where an
        # array of objects may flow in (an argument or a global holding one, a NumPy call
        # given a list that reaches an object: np.array([model]))
        computed = {name for name, kind in (kinds or {}).items()
                    if kind.tag in ("scalar", "array", "numeric")}
        objects = {p for p in params if _may_hold_object_arrays(descriptors.get(p))}
        flows, calls = [], []  # (targets, changed in place, value); calls
        for node in trees.walk(tree):
            if isinstance(node, (gast.Assign, gast.AugAssign, gast.For)):
                targets = node.targets if isinstance(node, gast.Assign) else [node.target]
                stored = {n.id for target in targets for n in trees.walk(target)
                          if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
                changed = {root for target in targets if not isinstance(target, gast.Name)
                           for root in [_state_root(target)] if root is not None}
                flows.append((stored, changed,
                              node.iter if isinstance(node, gast.For) else node.value))
            elif isinstance(node, gast.Call) and not (
                    isinstance(node.func, gast.Name) and node.func.id in helpers):
                calls.append(node)
        while True:  # (numbers only shrink, and the names that reach one only grow)
            numbers = exact | (computed - objects)
            self._reaching(params, descriptors, numbers, flows, calls)
            grown = set(objects)
            for stored, changed, value in flows:
                if any(n in objects or n not in self.local and self._object_array(n)
                       for n in self._flowing(value)) or any(
                        self._makes_arrays(call) and self(call)
                        for call in trees.walk(value) if isinstance(call, gast.Call)):
                    grown |= stored | changed
            if grown == objects:
                return
            objects = grown

    def _reaching(self, params, descriptors, numbers, flows, calls):
        """The fixed point of ``self.names`` for this set of ``numbers``."""
        self.names = {p for p in params if not _described_no_object(descriptors.get(p))}
        self.names -= numbers
        changed_in_place = set()
        grown = True
        while grown:
            grown = False
            before = len(self.names) + len(changed_in_place)
            for stored, changed, value in flows:
                stored, changed = stored - numbers, changed - numbers
                if (stored | changed) - self.names and self._expression(value):
                    self.names |= stored | changed
                    changed_in_place |= changed
                if (stored | changed) & changed_in_place:  # (ms = [a]; ms[0].append(m))
                    also = {n for n in names_in(value) if n in self.local} - numbers
                    self.names |= also
                    changed_in_place |= also
            for call in calls:
                if self(call):  # (ms.append(model), foo(ms, model): ms may hold it now)
                    given = {n for part in [call.func] + list(call.args) +
                             [k.value for k in call.keywords] for n in names_in(part)
                             if n in self.local} - numbers
                    self.names |= given
                    changed_in_place |= given
            grown = len(self.names) + len(changed_in_place) != before

    def _object_array(self, name: str) -> bool:
        """Does the free name ``name`` hold an array of objects, or a container?"""
        value = _free_value(self.source, name)
        return value is not MISSING and not callable(value) and not _holds_no_object(value)

    def _function(self, call):
        """The function ``call`` calls, where its name says (MISSING: not known)."""
        value = self._named(call.func)
        return MISSING if value is _UNREAD else value

    def _named(self, func):
        """The value of ``func``, a free name or its attributes (``np.linalg.norm``):
        MISSING where it is local or not known, _UNREAD where an attribute could not be
        read (no such attribute, a property that raises)."""
        path = []
        while isinstance(func, gast.Attribute):
            path.append(func.attr)
            func = func.value
        if not isinstance(func, gast.Name) or func.id in self.local:
            return MISSING
        value = _free_value(self.source, func.id)
        if value is MISSING:
            return MISSING
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for attr in reversed(path):
                    value = getattr(value, attr)
        except Exception:
            return _UNREAD
        return value

    def _makes_arrays(self, call) -> bool:
        """May ``call`` make an array of what it is given (``np.array(ms)``): a function
        without facts, or one that is not known to give a container of its items only
        (``list``, ``sorted``), a Python number (``len``) or nothing of them?"""
        value = self._function(call)
        facts = registry.facts(value) if value is not MISSING else None
        return facts is None or not (facts.sequence or facts.number or facts.no_attributes)

    def _name(self, name: str) -> bool:
        if name in self.local:
            return name in self.names
        if name not in self.free:
            value = _free_value(self.source, name)
            self.free[name] = value is not MISSING and (
                _callee_reaches(value) if callable(value) else not _holds_no_object(value))
        return self.free[name]

    def _callee(self, func) -> bool:
        """Does calling ``func`` (a name, ``np.linalg.norm``, ``ms.append``) reach one?"""
        if any(self._name(n) for n in names_in(func)):
            return True
        value = self._named(func)  # (a local function value: reaches one if a name of it does)
        if value is MISSING:
            return False
        if value is _UNREAD:  # (not known: it may)
            return True
        return callable(value) and _callee_reaches(value)

    def _flowing(self, node) -> set:
        """The names whose values flow into the value of ``node``: not an index
        (``t[i]``), nor what a call that gives a Python number is given (``len(ms)``)."""
        if isinstance(node, gast.Name):
            return {node.id}
        if isinstance(node, (gast.Subscript, gast.Attribute)):
            return self._flowing(node.value)
        if isinstance(node, gast.Call):
            if not self._makes_arrays(node) and not self._gives_items(node):
                return set()  # (len(ms), range(n), isinstance(m, C): no item of theirs)
            parts = [node.func] + list(node.args) + [k.value for k in node.keywords]
            return {n for part in parts for n in self._flowing(part)}
        return {n for part in gast.iter_child_nodes(node) for n in self._flowing(part)}

    def _gives_items(self, call) -> bool:
        facts = registry.facts(self._function(call))
        return facts is None or bool(facts.sequence or facts.items or facts.returns_view_of)

    def _expression(self, node) -> bool:
        return any(self._name(n) for n in self._flowing(node)) or any(
            self._callee(call.func) for call in trees.walk(node) if isinstance(call, gast.Call))

    def __call__(self, call) -> bool:
        """May ``call`` read an object's attributes: is it given one, or does its function
        reach one?"""
        return any(self._name(n) for part in [call.func] + list(call.args) +
                   [k.value for k in call.keywords] for n in self._flowing(part)) or \
            self._callee(call.func)

def refuse_read_back(tree, source, varied: set, kinds: dict | None = None,
                     useful: set = frozenset()) -> None:
    """A value that depends on the differentiated arguments, stored into an attribute
    (``side_effect``) that the function reads again (any read of an attribute of that
    name after the store, or in a loop around it; any read at all for a list appended to,
    which other names may hold), or with ``getattr``, or by a call the object can reach
    (:class:`_Reach`: ``operator.attrgetter("h")(model)``): the read would take it as a
    constant, so it is refused at the store's line."""
    helpers = {alias for alias, value in getattr(source, "extra", {}).items()
               if value is side_effect}
    if not helpers:
        return
    order, stores, reads, steering, loads = {}, [], [], set(), []
    reach = _Reach(tree, source, helpers, kinds) if any(
        isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and
        isinstance(stmt.value.func, gast.Name) and stmt.value.func.id in helpers and
        isinstance(stmt.value.args[0], gast.Name) and stmt.value.args[0].id in varied
        for stmt in trees.walk(tree)) else (lambda call: False)

    for stmt, loops in trees.statements_in_order(tree.body):
        order[id(stmt)] = len(order)
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and \
                isinstance(stmt.value.func, gast.Name) and stmt.value.func.id in helpers:
            stores.append((stmt, len(order), loops))
            continue
        targets = set(statement_parts(stmt)[0]) if not isinstance(
            stmt, (gast.If, gast.For, gast.While)) else None
        for node in (n for part in trees.header(stmt) for n in trees.walk(part)):
            if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load):
                reads.append((node.attr, len(order), loops))
                loads.append((node.attr, targets))  # (read by the output, or a test?)
            if isinstance(node, gast.Name) and node.id == "getattr":
                reads.append(("*", len(order), loops))
            if isinstance(node, gast.Call) and \
                    not _reads_no_attribute(source, node.func) and reach(node):
                reads.append(("*", len(order), loops))  # (an object given to a call)
    steer = set(useful) | {n.id for stmt in trees.walk(tree)
                           if isinstance(stmt, (gast.If, gast.While))
                           for n in trees.walk(stmt.test) if isinstance(n, gast.Name)}
    grown = True
    while grown:  # (the names the output or a branch's test depends on, through any value)
        grown = False
        for stmt in trees.walk(tree):
            if isinstance(stmt, (gast.Assign, gast.AugAssign)):
                targets, value = statement_parts(stmt)
                if set(targets) & steer and not steer.issuperset(names_in(value)):
                    steer |= set(names_in(value))
                    grown = True
    steering |= {attr for attr, targets in loads if targets is None or targets & steer}
    changed = {[p for p in s.value.args[2].value.split("|")[0].replace("[]", ".").split(".")
                if p][-1] for s, _, _ in stores}
    if changed & steering:
        _reads_its_state(source, next(s for s, _, _ in stores if [
            p for p in s.value.args[2].value.split("|")[0].replace("[]", ".").split(".")
            if p][-1] in steering), "reads an attribute it changes")
    for stmt, at, loops in stores:
        value, chain = stmt.value.args[0], stmt.value.args[2].value
        if not (isinstance(value, gast.Name) and value.id in varied):
            continue
        path, how = chain.split("|")
        attrs = [part for part in path.replace("[]", ".").split(".") if part]
        attr = attrs[-1]
        for name, read_at, read_loops in reads:
            if name not in (attr, "*"):
                continue
            if how == "append" or read_at > at or set(loops) & set(read_loops):
                raise source.error(
                    DifferentiationError, f"a value with a derivative stored in "
                    f"{path.lstrip('.')!r} of an object, which the function reads again: "
                    "s2sad would read it as a constant (no derivative through the object)",
                    stmt, "Keep the value in a variable and read that (h = x * 2; "
                    "self.h = h; return h * 3), or pass it as an argument.")


_NO_STATE = (type(None), bool, int, float, complex, str, bytes, type, types.ModuleType,
             types.FunctionType, types.BuiltinFunctionType, np.generic, np.ufunc)


def _class_state(value) -> bool:
    """Is ``value`` a class of the user's with a class attribute that is a list, dict, set
    or array (``items = []``), state that ``Reg.items.append(v)`` changes and every
    instance reads (``self.items``)?"""
    from ..source import user_code
    return isinstance(value, type) and any(
        isinstance(v, (list, dict, set, np.ndarray)) for v in vars(value).values()) and \
        user_code(value)


def _peek_or_none(source, name: str):
    """``_peek(source, name)``, or None where the function has no such free name."""
    try:
        return _peek(source, name)
    except KeyError:
        return None


def _peek(source, name: str):
    """The value of the free name ``name`` (a closure cell's, a module global's, or the
    value an inlined helper's own global or cell was named by, ``extra``: ``store`` of
    ``PUSH``, a closure appending to its list), read without noting it for the build
    (:meth:`FunctionSource.resolve` notes it); KeyError if the function has no such
    name."""
    extra = getattr(source, "extra", None) or {}
    if name in extra:
        return extra[name]
    closure = getattr(source, "closure", None) or {}
    if name in closure:
        try:
            return closure[name].cell_contents
        except ValueError:  # (a cell not yet given a value)
            raise KeyError(name) from None
    return (getattr(source, "globals", None) or {})[name]


def _state_root(node):
    """The name a read or a change of ``node`` starts from: ``LOG`` for ``LOG``,
    ``OB.log[0]`` or ``D.setdefault('a', [])``; None for an expression of another shape."""
    while True:
        if isinstance(node, (gast.Attribute, gast.Subscript)):
            node = node.value
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
            node = node.func.value
        else:
            return node.id if isinstance(node, gast.Name) else None


def _new_array_of(value, source, mine: set) -> bool:
    """Is ``value`` a call of a method of a module's or closure's array that returns a new
    array, never the array's memory (``G0.astype(float)``, ``G0.copy()``; not
    ``G0.reshape(3, 1)``, a view, nor ``G0.astype(float, copy=False)``)? By the method's
    facts."""
    if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and
            isinstance(value.func.value, gast.Name) and value.func.value.id not in mine):
        return False
    holder = _peek_or_none(source, value.func.value.id)
    if not isinstance(holder, np.ndarray):
        return False
    method = getattr(np.ndarray, value.func.attr, None)
    facts = registry.facts(method) if method is not None else None
    if facts is None or registry.lookup(method) is None or facts.returns_view_of or \
            facts.mutates or facts.hidden_state:
        return False
    if facts.uncopied_view_of:  # (astype: a new array unless copy= says otherwise)
        return not any(k.arg in ("copy", None) for k in value.keywords) and \
            len(value.args) <= 1
    return True


def _keeps_its_state(method: str, holder) -> bool:
    """Does calling ``method`` of ``holder`` (the value, or None where only the kinds could
    tell) leave it as it was? By the method's facts (``list.append`` mutates its first
    argument, ``dict.get`` none); a method without facts may change anything."""
    kinds = [type(holder)] if holder is not None else [np.ndarray, list, dict, tuple]
    for kind in kinds:
        found = getattr(kind, method, None)
        facts = registry.facts(found) if found is not None else None
        if facts is None or 0 in facts.mutates or facts.hidden_state:  # (rng.normal())
            return False
    return True


def _draws(tree, source, mine: set) -> None:
    """Note the first call that changes hidden state (its rule's ``hidden_state`` fact:
    ``np.random.normal()``, ``random.random()``): each run of the function draws anew.
    Not after the function seeds that state with constants (``np.random.seed(0)``, a
    statement of its body): each run then draws the same."""
    def state(node):
        """``(its facts' hidden_state, whose state)`` of a call, or None."""
        path, func = [], node.func
        while isinstance(func, gast.Attribute):
            path.append(func.attr)
            func = func.value
        if not isinstance(func, gast.Name) or func.id in mine:
            return None
        try:  # (read without noting it for the build, nor warning: np.str)
            callee = _peek(source, func.id)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for attr in reversed(path):
                    callee = getattr(callee, attr)
        except Exception:  # (no such name or attribute, a property that raises: not known)
            return None
        facts = registry.facts(callee)
        if facts is None or not facts.hidden_state:
            return None
        owner = getattr(callee, "__self__", None)
        if owner is not None and not isinstance(owner, types.ModuleType) and owner is not \
                np.random.mtrand._rand and owner is not getattr(random, "_inst", None):
            return None  # (a module's or a closure's generator: state it changes, below)
        if facts.hidden_state == "unseeded":  # (np.random.default_rng(): fresh entropy)
            seed = node.args[0] if node.args else next(
                (k.value for k in node.keywords if k.arg in ("seed", "x")), None)
            if seed is not None and not (isinstance(seed, gast.Constant) and
                                         seed.value is None):
                return None  # (seeded: the same draws at each run)
            return "draws", "an unseeded generator's"
        return facts.hidden_state, "the random module's" if getattr(
            callee, "__self__", None) is getattr(random, "_inst", None) or \
            callee is random.seed else "NumPy's global"

    _argument_draws(tree, source)
    seeded = {}  # whose state -> the statement of the body that seeds it with constants
    for at, stmt in enumerate(tree.body):
        value = getattr(stmt, "value", None)
        found = state(value) if isinstance(stmt, (gast.Expr, gast.Assign)) and \
            isinstance(value, gast.Call) else None
        if found is not None and found[0] == "seeds" and value.args and not value.keywords \
                and all(isinstance(a, gast.Constant) and a.value is not None
                        for a in value.args):
            seeded.setdefault(found[1], at)
    order = None  # (id of a node -> the body's statement it is in: made where one draws)
    for stmt in trees.walk(tree):
        if not isinstance(stmt, gast.stmt) or isinstance(stmt, gast.FunctionDef):
            continue
        parts = [stmt.test] if isinstance(stmt, (gast.If, gast.While)) else \
            [stmt.iter] if isinstance(stmt, gast.For) else [stmt]
        for node in (n for part in parts for n in trees.walk(part)):
            found = state(node) if isinstance(node, gast.Call) else None
            if found is None:
                continue
            if order is None:
                order = {id(n): at for at, top in enumerate(tree.body)
                         for n in trees.walk(top)}
            if seeded.get(found[1], len(order) + 1) <= order.get(id(node), -1):
                continue  # (seeded before: the same draws at each run)
            _reads_its_state(
                source, stmt, f"draws from {found[1]} random state "
                f"({unparse(node.func).strip()}), anew at each run", "Draw the noise "
                "outside the function and pass it as an argument (noise = "
                "np.random.normal(size=x.shape); f(x, noise)), or use s2sad.grad, "
                "s2sad.value_and_grad or s2sad.hvp, which run it once per call.")
            return


def _argument_draws(tree, source) -> None:
    """Note each call of a method of an object an argument holds (``rng.normal()``,
    ``self.rng.random()``, ``rs[0].randn(3)``, through any local name): where, for the
    arguments of a call, that method draws from a generator's state (its facts'
    ``hidden_state``), vjp, jvp, jacobian and hessian refuse it (the type is known only
    then: :func:`draws_from_arguments`). Not a call after the body seeds that object with
    constants (``rs.seed(0)``): each run then draws the same."""
    stack = getattr(_NOTING, "stack", ())
    if not stack:
        return
    params = [a.id for a in tree.args.args + tree.args.kwonlyargs]
    assigned: dict = {}
    for stmt in trees.walk(tree):
        if isinstance(stmt, gast.Assign):
            for target in stmt.targets:
                for node in trees.walk(target):
                    if isinstance(node, gast.Name):
                        assigned[node.id] = assigned.get(node.id, 0) + 1
        elif isinstance(stmt, (gast.AugAssign, gast.AnnAssign, gast.For)):
            for node in trees.walk(stmt.target):
                if isinstance(node, gast.Name):
                    assigned[node.id] = 2  # (given several values: not followed)
    origin = {name: (name, ()) for name in params if name not in assigned}

    def reach(node):
        """``(argument, steps)`` an expression reads (``m.rng``: ``("m", (".rng",))``)."""
        steps = []
        while isinstance(node, (gast.Attribute, gast.Subscript)):
            if isinstance(node, gast.Attribute):
                steps.append("." + node.attr)
            elif isinstance(node.slice, gast.Constant) and \
                    isinstance(node.slice.value, (int, str)):
                steps.append(node.slice.value)
            else:
                return None
            node = node.value
        if not isinstance(node, gast.Name) or node.id not in origin:
            return None
        root, before = origin[node.id]
        return root, before + tuple(reversed(steps))

    grown = True
    while grown:  # (r = rng; t_4 = m.rng; t_2 = rs[0])
        grown = False
        for stmt in trees.walk(tree):
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and \
                    assigned.get(stmt.targets[0].id) == 1 and \
                    stmt.targets[0].id not in origin:
                found = reach(stmt.value)
                if found is not None:
                    origin[stmt.targets[0].id] = found
                    grown = True
    seeded = set()  # (a body statement rs.seed(0), with constants)
    for stmt in tree.body:
        call = getattr(stmt, "value", None) if isinstance(stmt, gast.Expr) else None
        found = None
        if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute):
            found = reach(call.func.value)
        if found is not None and call.func.attr == "seed" and call.args and \
                not call.keywords and all(isinstance(a, gast.Constant) and
                                          a.value is not None for a in call.args):
            seeded.add(found)
            continue
        for node in trees.walk(stmt):
            if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)):
                continue
            found = reach(node.func.value)
            if found is None or found in seeded:
                continue
            spelling = found[0] + "".join(step if isinstance(step, str) and step[:1] == "."
                                          else f"[{step!r}]" for step in found[1])
            for notes in stack:  # (rs[0].randn: as the user wrote it, not t_2.randn)
                getattr(notes, "draws", []).append(
                    (source, stmt, found, node.func.attr, f"{spelling}.{node.func.attr}"))


def draws_from_arguments(candidates, values: dict):
    """The first of ``candidates`` (noted by :func:`_argument_draws`: ``(source,
    statement, (argument, steps), method, spelling)``) whose method, on the objects
    ``values`` (argument name: value) hold, draws from a generator's state, with that
    generator; None if none.

    >>> import numpy as np
    >>> seen = (None, None, ("rng", ()), "normal", "rng.normal")
    >>> draws_from_arguments([seen], {"rng": np.random.default_rng(0)})[0][3]
    'normal'
    >>> draws_from_arguments([seen], {"rng": np.random}) is None  # (a module: no facts)
    True
    """
    for found in candidates:
        (root, steps), method = found[2], found[3]
        if root not in values:
            continue
        holder = values[root]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for step in steps:
                    holder = getattr(holder, step[1:]) if isinstance(step, str) and \
                        step.startswith(".") else holder[step]
                callee = getattr(holder, method)
        except Exception:  # (no such attribute or item: the function fails as written)
            continue
        if isinstance(holder, types.ModuleType):
            continue  # (np.random passed in: its functions are NumPy's global state's)
        facts = registry.facts(callee)
        if facts is not None and facts.hidden_state == "draws":
            return found, holder
    return None


def shared_changes(tree, source) -> tuple[list, list, dict]:
    """The changes to state the function does not own (:func:`module_state`) and its
    reads of that state: ``(changes, reads, names)``, a change ``(statement, the state's
    id, the values stored, its order, the loops around it)``, a read ``(id, order,
    loops)``; ``names`` shows each state's name."""
    mine = set(trees.assigned_names(tree)) | {a.id for a in tree.args.args} | \
        {a.id for a in tree.args.kwonlyargs} | \
        {a.id for a in (tree.args.vararg, tree.args.kwarg) if a is not None}
    names = {}  # (an id: the free name, as the refusal shows it)
    held = {}  # a free name holding state, or a local given one's value: its object's id

    def holds(name):
        if name in held or name in mine:
            return held.get(name)
        try:
            value = _peek(source, name)
        except KeyError:
            return None
        if _class_state(value):  # (Reg.items.append(v): a class of the user's holds its
            pass                 # class attributes, which every instance reads too)
        elif isinstance(value, _NO_STATE) or callable(value) and \
                not hasattr(value, "__next__"):
            return None
        held[name] = id(value)
        names[id(value)] = f"{'closure' if name in (source.closure or {}) else 'module'}" \
            f"'s {name!r}"
        return held[name]

    aliases = [stmt for stmt in trees.walk(tree) if isinstance(stmt, gast.Assign) and
               len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)]
    grown = True
    while grown:  # (d = D; t = d.setdefault('a', []): both hold D's state)
        grown = False
        for stmt in aliases:
            name, root = stmt.targets[0].id, _state_root(stmt.value)
            if root is not None and _new_array_of(stmt.value, source, mine):
                root = None  # (s = G0.astype(float): a new array, not G0's memory)
            if root is None and isinstance(stmt.value, gast.Call) and \
                    isinstance(stmt.value.func, gast.Name):  # (r = Reg(): r.add(v) may
                root = stmt.value.func.id                    # change Reg.items)
                if not _class_state(_peek_or_none(source, root)):
                    root = None
            if name not in held and root is not None and holds(root) is not None:
                held[name] = holds(root)
                grown = True
    if not any(holds(n.id) for n in trees.walk(tree) if isinstance(n, gast.Name)):
        return [], [], names
    changes, reads, order = [], [], {}

    for stmt, loops in trees.statements_in_order(tree.body):
        order[id(stmt)] = at = len(order)
        own = set()  # (the receiver of a change whose result is dropped: no read)
        if isinstance(stmt, (gast.Expr, gast.Assign)) and isinstance(stmt.value, gast.Call):
            call = stmt.value
            func = call.func
            if isinstance(func, gast.Attribute) and _state_root(func.value) is not None:
                root = _state_root(func.value)
                if holds(root) is not None:
                    value = None
                    if isinstance(func.value, gast.Name) and root not in mine:
                        value = _peek(source, root)
                    if not _keeps_its_state(func.attr, value):
                        changes.append((stmt, holds(root), list(call.args) + [
                            k.value for k in call.keywords], at, loops))
                        if isinstance(stmt, gast.Expr) and isinstance(func.value, gast.Name):
                            own.add(id(func.value))
            for arg in call.args:  # (next(IT): an iterator's state, changed and read)
                if isinstance(arg, gast.Name) and holds(arg.id) is not None and \
                        arg.id not in mine and hasattr(_peek(source, arg.id), "__next__"):
                    changes.append((stmt, holds(arg.id), [], at, loops))
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript):
            root = _state_root(stmt.targets[0])
            if root is not None and holds(root) is not None:
                changes.append((stmt, holds(root), [stmt.value], at, loops))
        if isinstance(stmt, gast.For) and isinstance(stmt.iter, gast.Name) and \
                holds(stmt.iter.id) is not None and stmt.iter.id not in mine and \
                hasattr(_peek(source, stmt.iter.id), "__next__"):
            changes.append((stmt, holds(stmt.iter.id), [], at, loops))
        alias = stmt in aliases and stmt.targets[0].id in held
        for part in trees.header(stmt):
            for node in trees.walk(part):
                if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                        id(node) not in own and not alias and holds(node.id) is not None:
                    reads.append((holds(node.id), at, loops))
    return changes, reads, names


def module_state(tree, source, varied: set) -> list:
    """Changes to state the function does not own: a module's or a closure's list, dict,
    set, array or object (``LOG.append(1)``, ``OB.log.append(h)``, ``d = D; d['k'] = v``,
    ``next(IT)``). Python runs them once per call, as the generated code does. Where the
    function also reads that state, each run is another function: vjp, jvp, jacobian and
    hessian, which run it more than once, refuse it (:func:`noting_state`); so for a call
    whose facts say it changes hidden state (``np.random.normal()``: each run draws anew).
    A value with a derivative stored there and read again would be read as a constant:
    refused at the store's line, as :func:`refuse_read_back` refuses it for an argument's
    object. The statements that change such state, in order (for
    :func:`~.call_cycles.refuse_changes_read_by_recursion`)."""
    mine = set(trees.assigned_names(tree)) | {a.id for a in tree.args.args} | \
        {a.id for a in tree.args.kwonlyargs} | \
        {a.id for a in (tree.args.vararg, tree.args.kwarg) if a is not None}
    _draws(tree, source, mine)
    changes, reads, names = shared_changes(tree, source)
    read = {key for key, _, _ in reads}
    for stmt, key, _, _, _ in changes:
        if key in read:
            _reads_its_state(source, stmt, f"reads the {names[key]} it changes")
            break
    for stmt, key, values, at, loops in changes:
        if not any(isinstance(v, gast.Name) and v.id in varied for v in values):
            continue
        if any(k == key and (read_at > at or set(loops) & set(read_loops))
               for k, read_at, read_loops in reads):
            raise source.error(
                DifferentiationError, "a value with a derivative stored in a list, dict, "
                "array or object the function does not own (a module's or a closure's), "
                "which the function reads again: s2sad would read it as a constant (no "
                "derivative through it)", stmt,
                "Keep the value in a variable and read that (h = x * 2; CACHE.append(h); "
                "return h * 3), or pass the container as an argument.")
    return [stmt for stmt, *_ in changes]
