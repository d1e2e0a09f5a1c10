"""Frozen distributions: ``d = norm(mu, s)``, then ``d.logpdf(x)``, is ``norm.logpdf(x, mu, s)``.

Calling a SciPy distribution (a function whose facts say ``freezes``) gives an object whose
methods of those names call the distribution's own with the frozen arguments after theirs.
Normalization writes each such call out so (``norm(mu, s).logpdf(x)`` too): the call then
has the distribution method's rule. The arguments are read where the distribution is
frozen. A frozen object used any other way stays what it is, a value s2sad does not model
(refused where the gradient would flow through it).

>>> import gast, numpy as np
>>> from scipy import stats
>>> from s2sad.names import Namer
>>> from s2sad.source import FunctionSource
>>> from s2sad.codegen import unparse
>>> from s2sad.transforms.normalize import Normalize
>>> text = "def f(x, mu):\\n    d = stats.norm(mu, 2.0)\\n    return d.logpdf(x)"
>>> tree = gast.parse(text).body[0]
>>> src = FunctionSource(None, tree, "demo.py", text.splitlines(True), {"stats": stats})
>>> print(unparse(Normalize(src, Namer.for_tree(tree)).run()))
def f(x, mu):
    d = stats.norm(mu, 2.0)
    ret = stats.norm.logpdf(x, mu, 2.0)
    return ret
"""

from __future__ import annotations

import gast

from .. import registry
from ..trees import clone


def freezes(normalize, value, static) -> tuple:
    """The methods of the object ``value`` (a call) makes that take its arguments after
    theirs (the ``freezes`` fact of the function called, ``static(func, normalize)`` the
    object its name refers to), or ``()``."""
    if not isinstance(value, gast.Call) or not isinstance(value.func, (gast.Name,
                                                                      gast.Attribute)):
        return ()
    try:
        target = static(value.func, normalize)
        found = registry.facts(target)
    except (KeyError, TypeError):
        return ()
    return found.freezes if found is not None else ()


def freeze(normalize, stmt, static) -> bool:
    """``d = norm(mu, s)``, ``d`` given a value by this statement only: the call, its
    arguments read now (kept for ``d.logpdf(x)``). False where ``stmt`` is not one."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and freezes(normalize, stmt.value, static) and
            not any(isinstance(a, gast.Starred) for a in stmt.value.args) and
            all(k.arg is not None for k in stmt.value.keywords) and
            normalize._given_once(stmt.targets[0].id)):
        return False
    call = stmt.value
    args = [_kept(normalize, normalize.atom(a)) for a in call.args]
    keywords = [gast.keyword(k.arg, _kept(normalize, normalize.atom(k.value)))
                for k in call.keywords]
    func = call.func
    func = gast.Attribute(normalize.atom(func.value), func.attr, gast.Load()) if \
        isinstance(func, gast.Attribute) else normalize.name(func)
    normalize.assign(stmt.targets[0], gast.copy_location(gast.Call(
        gast.copy_location(func, call.func), args, keywords), call))
    version = normalize.current[stmt.targets[0].id]
    normalize.frozen[version] = (clone(call.func), args, keywords, normalize.out,
                                 normalize.nesting)
    return True


def _kept(normalize, atom):
    """``atom``, or a copy of it where it names a variable given another value later in a
    loop or a branch (a variable that keeps one name)."""
    if isinstance(atom, gast.Name) and atom.id not in normalize.temps and \
            any(normalize.current.get(name) == atom.id for name in normalize.carried):
        return normalize.snapshot(atom)
    return atom


def unfrozen(normalize, node, static):
    """``(call, (arguments, keywords))`` for ``d.logpdf(x)`` or ``norm(mu, s).logpdf(x)``:
    the distribution's own method called, and the frozen arguments (atoms) it is given
    after the call's own; else ``(node, None)``. Written out only for one argument, the
    method's own (else the call stays, a method of an object s2sad does not model)."""
    func = node.func
    if not isinstance(func, gast.Attribute) or len(node.args) != 1 or node.keywords or \
            isinstance(node.args[0], gast.Starred):
        return node, None
    base = func.value
    if isinstance(base, gast.Name):
        entry = normalize.frozen.get(normalize.current.get(base.id))
        if entry is None or base.id not in normalize.locals:
            return node, None
        made, args, keywords, out, nesting = entry
        if not (nesting == 0 or out is normalize.out):  # (made in a loop or a branch: used
            return node, None                           # there only)
    elif func.attr in freezes(normalize, base, static) and \
            not any(isinstance(a, gast.Starred) for a in base.args) and \
            all(k.arg is not None for k in base.keywords):
        made = base.func
        args = [normalize.atom(a) for a in base.args]
        keywords = [gast.keyword(k.arg, normalize.atom(k.value)) for k in base.keywords]
    else:
        return node, None
    if func.attr not in freezes(normalize, gast.Call(made, [], []), static):
        return node, None
    call = gast.copy_location(gast.Call(gast.copy_location(gast.Attribute(
        clone(made), func.attr, gast.Load()), func), node.args, []), node)
    return call, (list(args), [gast.keyword(k.arg, clone(k.value)) for k in keywords])
