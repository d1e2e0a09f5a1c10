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
