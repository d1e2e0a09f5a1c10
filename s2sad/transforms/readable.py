"""The last spelling of generated code: constants folded, helpers' arguments named.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.runtime import sum_grad
>>> tree = gast.parse("s_x = sum_grad(2 * -1.0 * 2, t_1, 1, False) + 100 * 1.0 * x")
>>> print(unparse(Readable({"sum_grad": sum_grad}).visit(tree)))
s_x = sum_grad(-4.0, like=t_1, axis=1) + 100.0 * x

Each step changes spelling only (a copy renamed too: ``Readable._coalesce``). A product of
constants is computed here as Python would compute it when the line runs (``2 * -1.0 * 2
* x`` is ``((2 * -1.0) * 2) * x``), so its value and type are the same bits; it is folded
where it reads no longer (``1 / 3`` stays).
``x * 3 * 5`` is ``(x * 3) * 5`` and stays; but a product by a power of two only moves
the exponent, so two constants one of which is a power of two fold across ``x``:
``2.0 * (w * 0.0005)`` is ``w * 0.001``, the same bits (where ``w * 0.0005`` is not so
small that it is subnormal, below 1e-308 in float64: there the folded one rounds once,
not twice). A helper's arguments from the position its rule
entry's ``keywords`` fact gives are passed by name, and those equal to their default are
left out.

>>> print(unparse(Readable({}).visit(gast.parse("s_w = 2.0 * (w * 0.0005) + 3 * (w * 0.1)"))))
s_w = w * 0.001 + 3 * (w * 0.1)
"""

from __future__ import annotations

import inspect
import math
import operator
import sys

import gast

from .. import registry, trees

_FOLDED = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
           gast.Div: operator.truediv}
_LARGEST_INT = 2 ** 53  # (a folded int prints as written and reads back as Python's)


def _number(node):
    """The Python int or float ``node`` is written as (``-1.0`` as well), or None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        value = _number(node.operand)
        return None if value is None else -value
    if isinstance(node, gast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _folded(node):
    """``node`` (a ``BinOp`` of two numbers) as the one number Python computes, or None
    where that number is not one to write (an error, inf or NaN, an int too large)."""
    left, right = _number(node.left), _number(node.right)
    if left is None or right is None or type(node.op) not in _FOLDED:
        return None
    try:
        value = _FOLDED[type(node.op)](left, right)
    except (ArithmeticError, ValueError):
        return None
    if isinstance(value, float) and not math.isfinite(value) or \
            isinstance(value, int) and abs(value) > _LARGEST_INT:
        return None
    if len(repr(value)) > len(repr(left)) + len(repr(right)) + 3:
        return None  # (``1 / 3`` reads better than ``0.3333333333333333``)
    return gast.Constant(value, None)


def _same_constant(node, default) -> bool:
    """Is ``node`` the constant ``default`` itself (``False``, not ``0``; ``None``)?"""
    if default is inspect.Parameter.empty:
        return False
    value = _number(node) if _number(node) is not None else \
        node.value if isinstance(node, gast.Constant) else inspect.Parameter.empty
    return value is not inspect.Parameter.empty and type(value) is type(default) and \
        value == default and (not isinstance(value, float) or
                              math.copysign(1.0, value) == math.copysign(1.0, default))


def named_arguments(call: gast.Call, function) -> bool:
    """Pass ``call``'s arguments to ``function`` by name from the position its ``keywords``
    fact gives, leaving out those equal to their default; False where it cannot (a
    ``*args``, a parameter only positional)."""
    found = registry.facts(function)
    first = getattr(found, "keywords", None)
    if first is None or len(call.args) <= first and not call.keywords or \
            any(isinstance(a, gast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return False
    try:
        parameters = list(registry.signature(function).parameters.values())
    except (TypeError, ValueError):
        return False
    if len(call.args) > len(parameters) or any(
            p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            for p in parameters[first:len(call.args)]):
        return False
    by_name = {p.name: p for p in parameters}
    named = [gast.keyword(p.name, a) for p, a in zip(parameters[first:], call.args[first:])]
    named += call.keywords
    kept = [k for k in named if k.arg not in by_name or
            not _same_constant(k.value, by_name[k.arg].default)]
    changed = len(call.args) > first or len(kept) != len(call.keywords)
    call.args, call.keywords = call.args[:first], kept
    return changed


def positional_arguments(call: gast.Call, function) -> bool:
    """Undo :func:`named_arguments` where s2sad reads its own code again (a derivative of
    a derivative, a gradient inlined): the passes read a helper's arguments by position
    (``broadcast_like(g, like)``'s structure is its second argument's), so the keywords go
    back to their positions, the defaults left out given again.

    >>> import gast
    >>> from s2sad.codegen import unparse
    >>> from s2sad.runtime import sum_grad
    >>> call = gast.parse("sum_grad(g, like=x, keepdims=True)").body[0].value
    >>> positional_arguments(call, sum_grad), unparse(call)
    (True, 'sum_grad(g, x, None, True)')

    Every parameter is given, as the rules' templates give them.
    """
    found = registry.facts(function)
    if getattr(found, "keywords", None) is None or \
            any(isinstance(a, gast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return False
    try:
        parameters = list(registry.signature(function).parameters.values())
    except (TypeError, ValueError):
        return False
    given = {k.arg: k.value for k in call.keywords}
    names = [p.name for p in parameters]
    if not set(given) <= set(names[len(call.args):]) or len(call.args) >= len(parameters):
        return False  # (not a call this module spelled, or every argument given)
    args = list(call.args)
    for p in parameters[len(call.args):]:
        if p.name in given:
            args.append(given[p.name])
        elif p.default is not inspect.Parameter.empty and \
                (p.default is None or type(p.default) in (bool, int, float, str)):
            args.append(gast.Constant(p.default, None))
        else:
            return False
    call.args, call.keywords = args, []
    return True


def _power_of_two(value) -> bool:
    """Is ``value`` (a Python int or float) plus or minus a power of two?"""
    return value != 0 and math.isfinite(value) and abs(math.frexp(value)[0]) == 0.5


def _scaled(node):
    """``node``, ``c1 * (e * c2)`` (in any order of the factors) where ``c1`` or ``c2`` is
    a power of two, as ``e * c`` with ``c`` their product, which Python computes exactly
    (a normal float, an int it prints as written); else None."""
    if not isinstance(node.op, gast.Mult):
        return None
    for number, inner in ((node.left, node.right), (node.right, node.left)):
        c1 = _number(number)
        if c1 is None or not (isinstance(inner, gast.BinOp) and
                              isinstance(inner.op, gast.Mult)):
            continue
        for known, other in ((inner.right, inner.left), (inner.left, inner.right)):
            c2 = _number(known)
            if c2 is None or _number(other) is not None or \
                    not (_power_of_two(c1) or _power_of_two(c2)):
                continue
            value = c1 * c2
            if isinstance(value, float) and not (math.isfinite(value) and
                                                 abs(value) >= sys.float_info.min) or \
                    isinstance(value, int) and abs(value) > _LARGEST_INT:
                continue
            constant = gast.Constant(value, None)
            return gast.BinOp(other, gast.Mult(), constant) if known is inner.right else \
                gast.BinOp(constant, gast.Mult(), other)
    return None


_PLAIN = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Load, gast.Add, gast.Sub,
          gast.Mult, gast.USub)


def _term(node):
    """``node`` as ``(c, e)``: ``c * e`` or ``e * c`` with ``c`` plus or minus a power of two
    of 1 or more (``-e`` is ``(-1, e)``, ``e`` alone ``(None, e)``), ``e`` plain
    arithmetic on names (no call: it may be computed once for twice); else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _term(node.operand)
        return None if inner is None else (-(1 if inner[0] is None else inner[0]), inner[1],
                                           not isinstance(inner[0], float))
    c, e = None, node
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        for number, other in ((node.left, node.right), (node.right, node.left)):
            value = _number(number)
            if value is not None and _number(other) is None:
                c, e = value, other
                break
    if c is not None and not (_power_of_two(c) and abs(c) >= 1) or _number(e) is not None \
            or not all(isinstance(n, _PLAIN) for n in trees.walk(e)):
        return None
    return c, e, False


def like_terms(left, right, subtract: bool, in_place: bool = False,
               floating: frozenset = frozenset()):
    """``c1 * e + c2 * e`` as ``(c1 + c2) * e``, or None. Each product by a power of two
    (of 1 or more) is exact and the two have one sign, so the sum rounds once, as the
    folded product does: the same bits, an overflow too (``x * 4.0 + 2.0 * x`` is
    ``6.0 * x``). ``in_place``: the sum is ``v += c2 * e`` of ``v = c1 * e``, which keeps
    ``v``'s dtype: both constants then of one type.

    ``e`` of another dtype breaks the algebra: ``b + b`` of booleans is ``b`` (logical or),
    not ``2 * b``; ``-u`` of unsigned ints wraps (``-u - 2.0 * u`` is not ``-3.0 * u``;
    ``-u - u`` is, but ``-2 * u`` raises). So ``e + e`` and a sign taken off a term without
    a float constant fold only where ``e`` reads a name of ``floating`` (the sensitivities:
    the whole of ``e`` is then float or complex).

    >>> import gast
    >>> from s2sad.codegen import unparse
    >>> def fold(text):
    ...     node = gast.parse(text).body[0].value
    ...     found = like_terms(node.left, node.right, isinstance(node.op, gast.Sub))
    ...     return found if found is None else unparse(found)
    >>> fold("x * 4.0 + 2.0 * x"), fold("x * x + 2.0 * (x * x)"), fold("-(2.0 * x) - x")
    ('6.0 * x', '3.0 * (x * x)', '-3.0 * x')
    >>> fold("4.0 * x - 2.0 * x"), fold("0.5 * x + x"), fold("np.sin(x) + 2.0 * np.sin(x)")
    (None, None, None)
    >>> fold("b + b"), fold("-u - 2.0 * u")
    (None, None)
    """
    a, b = _term(left), _term(right)
    if a is None or b is None or gast.dump(a[1]) != gast.dump(b[1]):
        return None
    if (a[0] is None and b[0] is None or a[2] or b[2]) and not any(
            isinstance(n, gast.Name) and n.id in floating for n in trees.walk(a[1])):
        return None  # (``b + b`` of booleans is ``b``; ``-u`` of unsigned ints wraps)
    c1 = 1 if a[0] is None else a[0]
    c2 = -(1 if b[0] is None else b[0]) if subtract else (1 if b[0] is None else b[0])
    if (c1 > 0) != (c2 > 0) or in_place and (a[0] is None or b[0] is None or
                                             type(a[0]) is not type(b[0])):
        return None
    value = c1 + c2
    if abs(value) > _LARGEST_INT or type(value) is int and abs(value) > 127:
        return None  # (an int past int8's range: NumPy refuses it with an int8 array)
    return gast.BinOp(gast.Constant(value, None), gast.Mult(), a[1])


class Readable(trees.Transformer):
    """Fold the constants of each expression and name the helpers' arguments (``helpers``:
    ``{alias: function}``, the helpers generated code imports)."""

    def __init__(self, helpers: dict, fold: bool = True, own: frozenset = frozenset(),
                 floating: frozenset = frozenset()):
        self.helpers = helpers
        self.fold = fold
        self.own = own  # (the sensitivities the compiler named: renamed into one another)
        self.floating = floating  # (the sensitivities: float or complex, never bool or int)
        self.changed = False

    def visit_BinOp(self, node):
        self.generic_visit(node)
        folded = _folded(node) if self.fold else None
        if folded is None and self.fold:
            folded = _scaled(node)
        if folded is None and self.fold and isinstance(node.op, (gast.Add, gast.Sub)):
            folded = like_terms(node.left, node.right, isinstance(node.op, gast.Sub),
                                floating=self.floating)
        if folded is None:
            return node
        self.changed = True
        return gast.copy_location(folded, node)

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        if self.fold:
            for block in trees.blocks(node.body):
                self._like_statements(block)
            self._coalesce(node)
        return node

    def _coalesce(self, node) -> None:
        """``s_z = e`` ... ``s_logits = s_z``: ``s_logits = e`` ..., the copy gone, where the
        function's top level makes the copy, no statement before it mentions ``s_logits``
        and none after it ``s_z``, nor any before it reads ``s_z`` (both names the
        compiler's own, no function nested in it reading either): one value under one
        name, renamed, the same bits.

        >>> from s2sad.codegen import unparse
        >>> tree = gast.parse("def g(x):\\n    s_z = x * 2.0\\n    s_x = s_z\\n    return s_x")
        >>> print(unparse(Readable({}, own=frozenset({"s_z", "s_x"})).visit(tree)))
        def g(x):
            s_x = x * 2.0
            return s_x
        """
        held: dict = {}  # id of a top-level statement -> (it, its names): walked once (a
        # renaming changes a name's id, not which names a statement holds)

        def names_in(stmt) -> list:
            known = held.get(id(stmt))
            if known is None or known[0] is not stmt:
                known = held[id(stmt)] = (stmt, [n for n in trees.walk(stmt)
                                                 if n.__class__ is gast.Name])
            return known[1]

        def mentions(stmts, name: str) -> bool:
            return any(n.id == name for stmt in stmts for n in names_in(stmt))

        def read(stmts, name: str) -> bool:  # (s_s = 2.0 copied to four: kept)
            return any(n.id == name and isinstance(n.ctx, gast.Load)
                       for stmt in stmts for n in names_in(stmt))

        params = {a.id for a in trees.walk(node.args) if isinstance(a, gast.Name)}
        nodes = trees.walk(node)  # (one walk for the two sets below)
        nested = {n.id for inner in nodes if inner is not node and
                  isinstance(inner, (gast.FunctionDef, gast.Lambda, gast.ClassDef))
                  for n in trees.walk(inner) if isinstance(n, gast.Name)}
        declared = {name for n in nodes if isinstance(n, (gast.Global, gast.Nonlocal))
                    for name in n.names}
        k = 0
        while k < len(node.body):
            stmt = node.body[k]
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and \
                    isinstance(stmt.value, gast.Name):
                a, b = stmt.targets[0].id, stmt.value.id
                if a != b and {a, b} <= self.own and not {a, b} & (params | nested |
                                                                   declared) and \
                        mentions(node.body[:k], b) and not read(node.body[:k], b) and \
                        not mentions(node.body[:k], a) and not mentions(node.body[k + 1:], b):
                    for before in node.body[:k]:
                        for n in names_in(before):
                            if n.id == b:
                                n.id = a
                    del node.body[k]
                    self.changed = True
                    continue
            k += 1

    def _like_statements(self, block: list) -> None:
        """``v = c1 * e`` then ``v += c2 * e``: one statement, ``v = (c1 + c2) * e``."""
        i = 0
        while i + 1 < len(block):
            first, then = block[i], block[i + 1]
            if isinstance(first, gast.Assign) and len(first.targets) == 1 and \
                    isinstance(first.targets[0], gast.Name) and \
                    isinstance(then, gast.AugAssign) and isinstance(then.target, gast.Name) \
                    and then.target.id == first.targets[0].id and \
                    isinstance(then.op, (gast.Add, gast.Sub)) and not any(
                        isinstance(n, gast.Name) and n.id == then.target.id
                        for n in trees.walk(first.value)):
                folded = like_terms(first.value, then.value, isinstance(then.op, gast.Sub),
                                    in_place=True, floating=self.floating)
                if folded is not None:
                    first.value = gast.copy_location(folded, first.value)
                    del block[i + 1]
                    self.changed = True
                    continue
            i += 1

    def visit_UnaryOp(self, node):
        """``--1.0`` is ``1.0``: a sign taken off a negative number, exactly."""
        self.generic_visit(node)
        value = _number(node.operand) if self.fold and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.UnaryOp) else None
        if value is None or not value < 0 or isinstance(value, float) and \
                not math.isfinite(value):
            return node
        self.changed = True
        return gast.copy_location(gast.Constant(-value, None), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id in self.helpers:
            self.changed |= named_arguments(node, self.helpers[node.func.id])
        return node
