"""Does a program hold complex numbers? Its derivative then takes the complex rules.

>>> import gast
>>> tree = gast.parse("def f(x):\\n    return np.real(np.exp(1j * x))").body[0]
>>> holds_complex(tree, ["float"], {}.__getitem__)
True
>>> holds_complex(gast.parse("def f(x):\\n    return x * 2.0").body[0], ["float"], {}.__getitem__)
False

A program holds complex numbers where an argument does (an array of dtype kind ``c``, a
Python ``complex``), where its source writes one (``1j``), names a complex dtype or a
function that makes complex values from real ones (``np.fft.fft``, ``np.angle``), or reads
a global or closure value that is complex. Its rules are then those of ``defcomplex``
(``abs``: ``g * np.conj(x) / ans``), which are right for real values too, and each real
argument's gradient is the real part of its sensitivity (autograd's convention: the
gradient of a real ``f(x + iy)`` is ``df/dx - i df/dy``). Real programs keep their rules.
"""

from __future__ import annotations

import sys
import types
from collections import abc

import gast
import numpy as np

from .. import registry, trees
from ..backends import ARRAY_TAGS, LIBRARIES
from ..source import complex_held, note_real

def _complex_value(value) -> bool:
    return complex_held(value)  # (WS = [W1, W2], a global list: its items are read too)


def _complex_leaf(desc) -> bool:
    """Does an argument's descriptor hold a complex number (see ``descriptors``)? An
    object's description holds its members' (``p.W`` complex)."""
    if desc == "complex":
        return True
    if not isinstance(desc, tuple) or not desc:
        return False
    if desc[0] in ARRAY_TAGS:
        return len(desc) > 2 and desc[2] == "c"
    return any(_complex_leaf(item) or isinstance(item, tuple) and
               any(_complex_leaf(i) for i in item) for item in desc[1:])


def holds_complex(tree, descriptors, resolve, source=None) -> bool:
    """Does the function ``tree`` (its arguments described by ``descriptors``, None: any)
    hold complex numbers? ``resolve(name)``: the value of a free name (KeyError if none);
    a function or type whose facts say ``complex`` (``np.fft.fft``, ``np.complex128``)
    makes the program complex, as does a complex value it reads. With ``source`` (a
    ``FunctionSource``), the real numbers and arrays its free names read are noted for a
    real program, which is built again where one is complex at a later call."""
    if any(_complex_leaf(d) for d in descriptors or ()):
        return True
    real = []  # (the numbers and arrays of free names: noted if the program stays real)
    local = trees.assigned_names(tree) | {a.id for a in tree.args.args + tree.args.posonlyargs +
                                          tree.args.kwonlyargs if isinstance(a, gast.Name)}
    aliases = _aliases(tree, local)
    if aliases:  # (c = CFG; c.s: read as CFG.s is, its value tested and noted)
        resolve, local = _through(aliases, local, resolve), local - set(aliases)
    for node in trees.walk(tree):
        if isinstance(node, gast.Constant):
            if type(node.value) is complex or isinstance(node.value, str) and \
                    _complex_dtype(node.value):
                return True
        elif isinstance(node, (gast.Name, gast.Attribute)) and \
                isinstance(node.ctx, gast.Load):
            try:
                value = _value(node, local, resolve)
            except KeyError:
                continue
            if _complex_value(value) or _complex_facts(value):
                return True
            if source is not None and _number(value):
                real.append(node)
    for node in real:  # (complex at a later call: the gradient is built again)
        _note_real(node, local, source, resolve)
    return False


def _number(value, depth: int = 0) -> bool:
    """A real number or array, or a list, tuple or dict holding one (noted: an item made
    complex later, ``WS[0] = W * 1j``, makes the gradient be built again)."""
    if depth < 4 and type(value) in (list, tuple, dict):
        items = value.values() if type(value) is dict else value
        return any(_number(item, depth + 1) for item in items)
    if depth < 4 and isinstance(value, (abc.Collection, abc.MappingView)) and \
            not isinstance(value, (str, bytes, range, np.ndarray)):  # (a set, a deque...)
        items = list(value.keys()) + list(value.values()) \
            if isinstance(value, abc.Mapping) else value
        return any(_number(item, depth + 1) for item in items)
    return isinstance(value, (int, float, np.number, np.ndarray)) and \
        not isinstance(value, bool) and (not isinstance(value, np.ndarray) or
                                         value.dtype.kind in "biuf")


def _note_real(node, local, source, resolve) -> None:
    """Note the real number or array ``node`` reads (a free name's, or an attribute of
    one's) as one the build took to be real (``source.note_real``)."""
    if isinstance(node, gast.Attribute):
        try:
            holder = _value(node.value, local, resolve)
        except KeyError:
            return
        if not isinstance(holder, types.ModuleType) or \
                holder.__name__.split(".")[0] not in LIBRARIES | sys.stdlib_module_names:
            note_real(holder, node.attr, "attr")  # (np.pi is not rebound)
    elif node.id in source.closure:
        note_real(source.closure[node.id], None, "cell")
    elif node.id in source.globals:
        note_real(source.globals, node.id, "item")


def _aliases(tree, local) -> dict:
    """``{name: value}`` of the local names the function gives a value once, a free
    name or a dotted path from one (``c = CFG``, ``m = mod.model``): an alias of a value
    from outside, whose attributes it reads (``c.s``) as the value's own."""
    stores: dict[str, int] = {}
    given: dict[str, gast.expr] = {}
    for node in trees.walk(tree):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            given[node.targets[0].id] = node.value
    found = {}
    for name, value in given.items():
        head = value
        while isinstance(head, gast.Attribute):
            head = head.value
        if stores.get(name) == 1 and isinstance(head, gast.Name) and head.id not in local:
            found[name] = value
    return found


def _through(aliases, local, resolve):
    """``resolve`` that reads an alias's name as the value it was given."""
    outer = local - set(aliases)

    def resolved(name):
        if name in aliases:
            return _value(aliases[name], outer, resolve)
        return resolve(name)
    return resolved


def _value(node, local, resolve):
    if isinstance(node, gast.Name):
        if node.id in local:
            raise KeyError(node.id)
        return resolve(node.id)
    if isinstance(node, gast.Attribute):
        base = _value(node.value, local, resolve)
        try:
            return getattr(base, node.attr)
        except Exception:  # (an attribute that is not there, or raises when read)
            raise KeyError(node.attr) from None
    raise KeyError(type(node).__name__)


def _complex_facts(value) -> bool:
    try:
        found = registry.facts(value)
    except TypeError:
        return False
    return found is not None and found.complex


def _complex_dtype(text: str) -> bool:
    """Does ``text`` name a complex dtype (``"complex64"``, ``"c16"``; not a one-letter
    code, ``"D"``, which a dict key may be too)?"""
    if len(text) > 16 or "c" not in text.lower():
        return False
    try:
        return np.dtype(text).kind == "c"
    except Exception:  # (TypeError, ValueError, SyntaxError: not a dtype's name)
        return False


def rebound_sums(function, cast_like=None, add_sens=None):
    """``s_x += e`` (or ``-=``) as ``s_x = s_x + e`` in ``function`` (changed in place): a real
    array's sensitivity, added in place, cannot take a complex part (its real part is the
    gradient, taken at the end); into an item, ``s_x[i] += cast_like(e, s_x[i])`` (the
    name ``cast_like`` gives: the real part where the item is real), and so too an item
    added by the helper named ``add_sens`` (an item that may be a list: ``s_x[i] =
    add_sens(s_x[i], e)``). Returns whether anything changed.

    >>> from s2sad.codegen import unparse
    >>> tree = gast.parse("def g(s_x, e):\\n    s_x += e\\n    s_x[0] += e\\n    s_x -= e\\n"
    ...                   "    s_x[1] = add_sens(s_x[1], e)").body[0]
    >>> rebound_sums(tree, lambda: "cast_like", "add_sens"), print(unparse(tree))
    def g(s_x, e):
        s_x = s_x + e
        s_x[0] += cast_like(e, s_x[0])
        s_x = s_x - e
        s_x[1] = add_sens(s_x[1], cast_like(e, s_x[1]))
    (True, None)
    """
    changed = False
    if add_sens is not None:
        for stmt in trees.walk(function):
            if _item_sum(stmt, add_sens):
                item = trees.clone(stmt.targets[0])
                item.ctx = gast.Load()
                stmt.value.args[1] = gast.Call(gast.Name(cast_like(), gast.Load(), None, None),
                                               [stmt.value.args[1], item], [])
                changed = True
    for block, i, stmt in _augmented(function):
        if not isinstance(stmt.op, (gast.Add, gast.Sub)):
            continue  # (``s -= e``: the subtraction pass's form of ``s += -e``)
        if isinstance(stmt.target, gast.Name):
            _rebind(block, i, stmt)
            changed = True
        elif isinstance(stmt.target, gast.Subscript) and \
                isinstance(stmt.target.value, gast.Name):
            item = trees.clone(stmt.target)  # (its dtype: a list's item may be
            item.ctx = gast.Load()             # real where the list is not an array)
            stmt.value = gast.Call(gast.Name(cast_like(), gast.Load(), None, None),
                                   [stmt.value, item], [])
            changed = True
    return changed


def _item_sum(stmt, add_sens: str) -> bool:
    """Is ``stmt`` ``s[i] = add_sens(s[i], e)``, ``add_sens`` the helper's name here?"""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Subscript) and
            isinstance(stmt.targets[0].value, gast.Name) and isinstance(stmt.value, gast.Call)):
        return False
    call = stmt.value
    return isinstance(call.func, gast.Name) and call.func.id == add_sens and \
        len(call.args) == 2 and not call.keywords and \
        gast.dump(call.args[0]) == gast.dump(gast.Subscript(
            stmt.targets[0].value, stmt.targets[0].slice, gast.Load()))


def rebound_names(function, names) -> bool:
    """``s += e`` (any operator) as ``s = s + e`` in ``function`` (changed in place), for
    each name ``s`` in ``names``: a new value, never one written in place. Returns whether
    anything changed.

    >>> from s2sad.codegen import unparse
    >>> tree = gast.parse("def g(s_x, y, e):\\n    s_x -= e\\n    y += e").body[0]
    >>> rebound_names(tree, {"s_x"}), print(unparse(tree))
    def g(s_x, y, e):
        s_x = s_x - e
        y += e
    (True, None)
    """
    changed = False
    for block, i, stmt in _augmented(function):
        if isinstance(stmt.target, gast.Name) and stmt.target.id in names:
            _rebind(block, i, stmt)
            changed = True
    return changed


def _augmented(function):
    """Each augmented assignment in the blocks of ``function``: (its block, its index, it)."""
    for node in trees.walk(function):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                for i, stmt in enumerate(block):
                    if isinstance(stmt, gast.AugAssign):
                        yield block, i, stmt


def _rebind(block: list, i: int, stmt) -> None:
    """``block[i]``, ``s op= e``, as ``s = s op e``."""
    load = gast.Name(stmt.target.id, gast.Load(), None, None)
    block[i] = gast.copy_location(gast.Assign(
        [stmt.target], gast.BinOp(load, stmt.op, stmt.value), None), stmt)
