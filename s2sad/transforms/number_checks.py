"""Check at run time that an in-place update rewrote a number, where the kinds cannot say.

``v /= c`` rebinds ``v`` when it holds a number (Python's or NumPy's: immutable), but
changes an array in place, under every name that shares its memory. s2sad writes it
``v = v / c``, so it refuses the update where another name that may share ``v``'s memory
is read later, unless ``v`` holds a number. Where the kinds say "an array or a number"
(``np.dot(a, b)`` of vectors gives a NumPy number), a check before the update raises
the refusal, at the user's line, only when ``v`` holds an array.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.errors import UnsupportedSyntaxError
>>> fn = gast.parse("def f(t):\\n    v_1 = t / 2.0\\n    return v_1").body[0]
>>> error = UnsupportedSyntaxError("`v /= ...` on 'v'", hint="Write `v = v / ...`.")
>>> check_before(fn, fn.body[0], "t", error, "check_number")
True
>>> print(unparse(fn))
def f(t):
    check_number(t, "`v /= ...` on 'v'", 'Write `v = v / ...`.')
    v_1 = t / 2.0
    return v_1
"""

from __future__ import annotations

import gast

from .. import trees
from ..trees import located


def check_before(tree, stmt, name: str, error, helper: str) -> bool:
    """Put ``helper(name, construct, hint)`` (``check_number``) before ``stmt`` in ``tree``,
    raising ``error``'s refusal where ``name`` holds no number; False where ``stmt`` is
    not in ``tree`` (a pass made another in its place) or ``error`` says no construct."""
    construct = getattr(error, "construct", None)
    if construct is None:
        return False
    for node in trees.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for i, item in enumerate(block):
                if item is stmt:
                    call = gast.Call(gast.Name(helper, gast.Load(), None, None), [
                        gast.Name(name, gast.Load(), None, None), gast.Constant(construct, None),
                        gast.Constant(getattr(error, "hint", None), None)], [])
                    block.insert(i, located(gast.Expr(call), stmt))
                    return True
    return False


_IN_PLACE_OPS = {gast.Add: "iadd", gast.Sub: "isub", gast.Mult: "imul", gast.Div: "itruediv",
                 gast.FloorDiv: "ifloordiv", gast.Mod: "imod", gast.Pow: "ipow",
                 gast.MatMult: "imatmul", gast.BitAnd: "iand", gast.BitOr: "ior",
                 gast.BitXor: "ixor", gast.LShift: "ilshift", gast.RShift: "irshift"}


def check_updates(tree, updates: list, kinds: dict, floats: set, numbers: bool,
                  helper: str) -> bool:
    """Put ``helper(x, e, 'iadd')`` (``check_in_place``) before each of ``updates``,
    ``(x_1 = x + e, array)`` for ``x += e`` (for ``y[i] += e``, ``x = y[i]`` and the array
    ``y``), where ``x`` may be an array whose dtype and shape the kinds do not show to be
    the result's: NumPy's in-place update raises where a float goes into integers
    (``np.arange(3) += 0.5``) or the result is larger (``np.zeros(1) += v``; into a float
    ``y[i]``, the store raises). ``floats``: the names that hold floats; ``numbers``:
    whether a scalar's kind may be a 0-d array. Whether one was put.

    >>> from s2sad.codegen import unparse
    >>> from s2sad.transforms.kinds import Kind
    >>> fn = gast.parse("def f(x):\\n    a = np.arange(3)\\n    a_1 = a + x").body[0]
    >>> kinds = {"a": Kind("array", "n"), "a_1": Kind("array", "n"), "x": Kind("array", "n")}
    >>> check_updates(fn, [(fn.body[1], None)], kinds, set(), False, "check_in_place")
    True
    >>> print(unparse(fn.body[1]).strip())
    check_in_place(a, x, 'iadd')
    >>> check_updates(fn, [(fn.body[2], None)], kinds, {"a"}, False, "check_in_place")
    False
    """
    changed = False
    for stmt, array in updates:
        if array in floats:
            continue  # (y[i] = x + e of floats: the store raises where the shape grows)
        value = getattr(stmt, "value", None)
        if not (isinstance(stmt, gast.Assign) and isinstance(value, gast.BinOp) and
                isinstance(value.left, gast.Name) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and type(value.op) in _IN_PLACE_OPS):
            continue
        old = value.left.id
        kind = kinds.get(old)
        if kind is None or kind.tag in ("list", "tuple", "dict") or \
                kind.tag == "scalar" and not numbers:
            continue
        result = kinds.get(stmt.targets[0].id)
        if old in floats and kind.shape is not None and result is not None and \
                result.shape == kind.shape:
            continue  # (floats of the result's shape: the update as NumPy's)
        for node in trees.walk(tree):
            block = next((b for b in (getattr(node, f, None) for f in (
                "body", "orelse", "finalbody")) if isinstance(b, list) and
                any(item is stmt for item in b)), None)
            if block is None:
                continue
            i = next(k for k, item in enumerate(block) if item is stmt)
            call = gast.Call(gast.Name(helper, gast.Load(), None, None), [
                gast.Name(old, gast.Load(), None, None), trees.clone(value.right),
                gast.Constant(_IN_PLACE_OPS[type(value.op)], None)], [])
            block.insert(i, located(gast.Expr(call), stmt))
            changed = True
            break
    return changed
