"""A function s2sad has no facts for, given arrays the gradient follows, whose result
needs no gradient (``r = np.polyfit(t, w, 1)`` returned as an auxiliary output): called
through the runtime's ``unchanged_call``, which refuses it when it runs if it changed
one of them in place, instead of refusing it when the gradient is built.

>>> import gast
>>> from s2sad.codegen import unparse
>>> tree = gast.parse("def f(w):\\n    r = polyfit(t, w, 1)\\n    return w, r").body[0]
>>> call = tree.body[0].value
>>> from s2sad.errors import NoDerivativeError
>>> error = NoDerivativeError("refused", hint="Copy it.")
>>> checked_instead(tree, call, {"w"}, set(), error, "unchanged_call")
True
>>> print(unparse(tree.body[0]).strip())
r = unchanged_call(polyfit, (w,), 'refused', 'Copy it.', t, w, 1)
"""

from __future__ import annotations

import gast

from .. import trees


def checked_instead(tree, call, watched: set, active: set, error, helper: str) -> bool:
    """Call ``call`` through ``helper`` (``unchanged_call``) in ``tree``, watching its
    arguments named in ``watched``; False (refuse it) where its result is active or not
    used (a call made for what it does), where it is a method of a watched value, or
    where the call is not found in ``tree``. A refusal when it runs names the user's
    line (``_at_user_line``)."""
    func = call.func
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
            func.value.id in watched:
        return False  # (w.unknown_method(): the method may change w)
    given = [a for a in list(call.args) + [k.value for k in call.keywords]
             if isinstance(a, gast.Name) and a.id in watched]
    if not given or any(isinstance(a, gast.Starred) for a in call.args):
        return False
    for stmt in trees.walk(tree):
        if isinstance(stmt, gast.Expr) and stmt.value is call:
            return False  # (called for what it does to its arguments: refused)
        if isinstance(stmt, gast.Assign) and stmt.value is call:
            targets = stmt.targets
            if any(isinstance(n, gast.Name) and n.id in active
                   for t in targets for n in trees.walk(t)):
                return False
            names = list(dict.fromkeys(a.id for a in given))
            stmt.value = gast.copy_location(gast.Call(
                gast.Name(helper, gast.Load(), None, None),
                [func, gast.Tuple([gast.Name(n, gast.Load(), None, None) for n in names],
                                  gast.Load()),
                 gast.Constant(error.message, None), gast.Constant(error.hint, None)] +
                list(call.args), call.keywords), call)
            return True
    return False
