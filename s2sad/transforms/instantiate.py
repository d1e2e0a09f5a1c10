"""Rule instantiation: a rule's adjoint or tangent, put into the generated code with the
statement's own names.

The rule ``def sin(g, ans, x): return g * np.cos(x)`` for ``z = np.sin(t_1)`` becomes
``s_t_1 += s_z * np.cos(t_1)``: ``RuleInliner`` copies the rule's expression with its
parameters bound to the statement's names (substitution, as in a macro's expansion), folds
what the bound arguments decide (``None is None``), and names the rule's own globals
collision-free. A rule that is more than assignments and one ``return`` is called by name
instead (``call_rule``). The reverse and the forward pass both use this module.
"""

from __future__ import annotations

import builtins

import gast
import numpy as np

from .. import trees
from .. import registry, runtime
from ..errors import NoDerivativeError
from ..runtime import check_no_function
from ..runtime.higher import rule_part
from ..source import MISSING, held_foreign
from ..trees import clone, located
from .kinds import ANY
from .objects import held_object
from .resolve import (FOREIGN_ADVICE, INDEX_ADVICE, foreign_argument, foreign_index, _op_symbol,
                      operand_text, static_noted, static_value, unmodeled_data)

HELD_ADVICE = ("s2sad differentiates this call through the values passed to it, not "
               "through what the function itself holds (a bound method's object, a closure, "
               "functools.partial's values). Define the function at module level and pass "
               "the values it reads through args=(...) (or another argument of the call): "
               "their derivatives flow through it.")


def call_rule(host, rule_function, call_args, call_keywords, params, wanted, pre):
    """``out = rule(g, ans, *args)`` in the generated code, the rule read live by name
    (a rule that is more than assignments and one ``return`` cannot be inlined); gives the
    expression of each wanted argument's part: ``rule_part(out, i)``."""
    holder = {rule_function.__name__: rule_function}
    alias = host.live_global(rule_function.__name__, rule_function, holder)
    out = host.namer.claim(f"{rule_function.__name__}_out")
    keywords = [gast.keyword(k, v) for k, v in call_keywords.items()]
    call = gast.Call(gast.Name(alias, gast.Load(), None, None), list(call_args), keywords)
    pre.append(gast.Assign([gast.Name(out, gast.Store(), None, None)], call, None))
    part = host.helper(rule_part)
    return [(i, gast.Call(part, [gast.Name(out, gast.Load(), None, None),
                                 gast.Constant(i, None)], [])) for i in wanted]


def refuse_foreign_index(sweep, stmt, value) -> None:
    """``obj[a]``, ``a`` differentiated and ``obj`` an object with its own ``__getitem__``
    (see ``foreign_index``): refused at the line (``sweep``: the reverse or forward pass)."""
    culprit = next((n for n in foreign_index(value, sweep.kinds) if sweep.wants(n)), None)
    if culprit is not None:
        raise sweep.source.error(
            NoDerivativeError, "no derivative rule for indexing "
            f"{operand_text(value.value.id, sweep.namer, stmt)} (an object, not an array, "
            f"list, tuple or dict) with {operand_text(culprit.id, sweep.namer, stmt)}, which "
            f"depends on the differentiated argument{'s' if len(sweep.wrt) > 1 else ''}",
            stmt, INDEX_ADVICE)


def refuse_foreign_operand(sweep, stmt, value) -> None:
    """``M * x``, ``x`` differentiated and ``M`` an object whose operators are its own
    (an argument that is an ``np.matrix``, a masked array...: its kind is ``foreign``):
    refused at the line, not differentiated with NumPy's rule (``sweep``: the reverse or
    forward pass). A call given such an object (``np.dot(M, x)``) is refused alike."""
    if isinstance(value, gast.Call):
        found = foreign_argument(value, sweep.source, sweep.local_names, sweep.kinds,
                                 lambda o: sweep.wants(o) and not held_object(sweep, o.id))
        # (not one refused where it was made; an np.matrix a differentiated model holds)
        culprit = next((o for o in trees.walk(value) if isinstance(o, gast.Name) and
                        sweep.wants(o)), None)
        if found is not None and culprit is not None:
            raise sweep.source.error(
                NoDerivativeError, f"no derivative rule for {found[2]} given "
                f"{found[1] or operand_text(found[0].id, sweep.namer, stmt)}, which is "
                f"not a number or a NumPy array, and {operand_text(culprit.id, sweep.namer, stmt)}"
                f", which depends on the differentiated argument"
                f"{'s' if len(sweep.wrt) > 1 else ''}", stmt, FOREIGN_ADVICE)
    _refuse_joined(sweep, stmt, value)
    if not isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return
    operands = [n for n in trees.walk(value) if isinstance(n, gast.Name)]  # (a + b - c)
    foreign = next((o for o in operands if sweep.kinds.get(o.id, ANY).foreign and
                    not (sweep.kinds[o.id].data and sweep.wants(o) and
                         not held_object(sweep, o.id))), None)  # (refused where made;
    # but an np.matrix a differentiated model holds: here, where its operator is applied)
    culprit = next((o for o in operands if sweep.wants(o)), None)
    if foreign is not None and culprit is not None:
        raise sweep.source.error(
            NoDerivativeError, f"no derivative rule for the operator {_op_symbol(value.op)} on "
            f"{operand_text(foreign.id, sweep.namer, stmt)}, which is not a number or a NumPy "
            f"array, and {operand_text(culprit.id, sweep.namer, stmt)}, which depends on the "
            f"differentiated argument{'s' if len(sweep.wrt) > 1 else ''}", stmt, FOREIGN_ADVICE)


def _refuse_joined(sweep, stmt, value) -> None:
    """``E = M if c else x * v``: a value that depends on the differentiated arguments and
    is made of no foreign data, given to a name whose kind is data (an np.matrix on another
    path: ``kinds._join``). Its operators are left to be refused here, where it is given."""
    if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and
            sweep.kinds.get(stmt.targets[0].id, ANY).data):
        return
    names = [n for n in trees.walk(value) if isinstance(n, gast.Name)]
    culprit = next((n for n in names if sweep.wants(n)), None)

    def foreign(name) -> bool:  # (MATRIX * x: the operator's refusal says it; ms[i],
        kind = sweep.kinds.get(name.id, ANY)  # ms a list of them: an item of its data)
        if kind.foreign or kind.holds_foreign:
            return True
        found = MISSING if name.id in sweep.local_names else \
            static_noted(name, sweep.source, sweep.local_names)
        return found is not MISSING and (unmodeled_data(found) or held_foreign(found))
    if culprit is None or any(foreign(n) for n in names) or \
            isinstance(value, gast.Call) and foreign_argument(
                value, sweep.source, sweep.local_names, sweep.kinds) is not None:
        return
    raise sweep.source.error(
        NoDerivativeError, f"no derivative rule for {operand_text(culprit.id, sweep.namer, stmt)}"
        f", which depends on the differentiated argument{'s' if len(sweep.wrt) > 1 else ''}, "
        f"given to {operand_text(stmt.targets[0].id, sweep.namer, stmt)}, which holds data "
        "that is not a number or a NumPy array on another path", stmt, FOREIGN_ADVICE)


def held_function(sweep, stmt, rule, param: str, node):
    """``odeint(m.rhs, y0, t)``, ``m`` holding a differentiated value: an operand the rule
    gives no derivative (``param``, its part None) that depends on the differentiated
    arguments and is a function, or may be one. A function made here
    (``functools.partial(f, a=a)``, an object with ``__call__``) is refused at the line;
    one read from an object (``m.rhs``, ``m.field``) gets ``check_no_function`` before
    the line's derivative, the statement returned. Numbers and arrays (``np.full_like``'s
    shape argument) are left alone, as are the compiler's own values."""
    if not isinstance(node, gast.Name) or not sweep.wants(node):
        return None
    facts = registry.facts(rule.func)
    if facts is not None and isinstance(facts.structure_of, tuple) and facts.structure_of:
        names = list(registry.signature(rule.func).parameters)  # (a helper of s2sad's:
        if param in names and names.index(param) in facts.structure_of:  # a signature;
            return None  # pack_like(x, parts) reads x's structure alone: no value flows)
    kind = sweep.kind(node.id)
    items = [k for _, k in kind.items] if kind.tag == "dict" else list(kind.items)
    if kind.numeric or kind.data or kind.container and items and all(
            item.numeric for item in items):
        return None
    found = _function_made(sweep, node.id, set())
    if found is None:
        return None
    text = operand_text(node.id, sweep.namer, stmt)
    message = (f"{rule.name} has no derivative with respect to its argument {param!r}, "
               f"given {text}, which depends on the differentiated argument"
               f"{'s' if len(sweep.wrt) > 1 else ''}")
    if found:
        raise sweep.source.error(NoDerivativeError, f"{message}, here {found}", stmt,
                                 HELD_ADVICE)
    call = gast.Call(sweep.helper(check_no_function), [
        gast.Name(node.id, gast.Load(), None, None), gast.Constant(message, None),
        gast.Constant(HELD_ADVICE, None)], [])
    return located(gast.Expr(call), stmt)


def _function_made(sweep, name: str, seen: set):
    """What makes ``name`` a function holding values: a description where its statement
    says so (a call of ``functools.partial`` or of a class whose objects are callable),
    ``""`` where it may be one (read from an object: ``m.rhs``), None where it is not
    (a value of the compiler's, a result of a rule)."""
    if name in seen:
        return None
    seen.add(name)
    found = None
    for stmt in trees.walk(sweep.tree):
        if isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name) and \
                stmt.target.id == name:
            value = gast.Subscript(stmt.iter, gast.Constant(0, None), gast.Load())
        elif isinstance(stmt, gast.Assign) and any(
                isinstance(t, gast.Name) and t.id == name for t in stmt.targets):
            value = stmt.value
        else:
            continue
        one = _made(sweep, value, seen)
        if one:
            return one
        found = one if found is None else found
    return found


def _made(sweep, value, seen: set):
    """:func:`_function_made` of one value."""
    if isinstance(value, gast.Name):
        return _function_made(sweep, value.id, seen)
    if isinstance(value, gast.Lambda):
        return "a lambda"
    if isinstance(value, (gast.List, gast.Tuple, gast.Set, gast.Dict)):
        found = None
        for item in value.values if isinstance(value, gast.Dict) else value.elts:
            one = _made(sweep, item, seen)
            if one:
                return one
            found = one if found is None else found
        return found
    if isinstance(value, gast.Subscript):
        return _made(sweep, value.value, seen)
    if isinstance(value, gast.Attribute):
        try:
            static_value(value, sweep.source, sweep.local_names)
            return None  # (a module's function: it holds no differentiated value)
        except KeyError:
            return ""
    if isinstance(value, gast.Call):
        try:
            func = static_value(value.func, sweep.source, sweep.local_names)
        except KeyError:  # (m.make(): what a method of an object gives; not a list's pop)
            callee = value.func
            if isinstance(callee, gast.Attribute) and isinstance(callee.value, gast.Name):
                base = sweep.kind(callee.value.id)
                return None if base.container or base.numeric else ""
            return None
        if isinstance(func, type) and any("__call__" in vars(c) for c in func.__mro__[:-1]):
            return f"a {func.__module__}.{func.__qualname__} object, which is callable"
        if func is getattr:
            return ""
    return None


class RuleInliner(trees.Copier):
    """Put a rule's expression into the generated code with the statement's own names
    (a copy: the rule's own tree stays as it is).

    ``host`` is the pass that inlines (reverse or forward): it gives names (``namer``),
    imports, kinds (``_same_shape``) and reads a rule's other globals live
    (``live_global``). ``strip``: leave ``unbroadcast(e, x)`` out entirely (forward mode
    reusing an elementwise adjoint as a tangent).
    """

    def __init__(self, host, rule, mapping: dict, seed: bool, ans: str, function=None,
                 strip: bool = False):
        self.reverse = host
        self.rule = rule
        self.mapping = mapping
        self.seed = seed
        self.ans = ans
        self.strip = strip
        self.locals: dict[str, str] = {}
        self.globals = (function or rule.adjoint).__globals__
        self.lists = {param for param, arg in mapping.items()  # (see _array)
                      if isinstance(arg, gast.Name) and host.kind(arg.id).tag in ("list", "tuple")}

    def statement(self, assign):
        return _fold(self.visit(assign))

    def expression(self, expr):
        return _fold(self.visit(expr))

    def visit_Assign(self, node):
        value = self.visit(node.value)
        node = clone(node)  # (its targets are renamed in place, not visited)
        node.value = value
        for target in trees.walk(node.targets[0]):
            if isinstance(target, gast.Name):
                new = self.reverse.namer.claim(target.id)
                self.locals[target.id] = new
                target.id = new
        return node

    def visit_BinOp(self, node):
        # the seed sensitivity is 1.0: g * e and e * g are e
        if self.seed and isinstance(node.op, gast.Mult):
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(side, gast.Name) and side.id == "g":
                    return self.visit(other)
        new = self.generic_visit(node)
        new.left = self._array(node.left, new.left, node.right)
        new.right = self._array(node.right, new.right, node.left)
        if self._numpy_quotient(node):  # (1.0 / t: Python's, which raises at 0.0)
            np_name = gast.Name(self.reverse.imports.numpy(), gast.Load(), None, None)
            return gast.Call(gast.Attribute(np_name, "true_divide", gast.Load()),
                             [new.left, new.right], [])
        return new

    def _numpy_quotient(self, node) -> bool:
        """Is ``node`` the ``g / y`` of ``x / y``'s adjoint, where ``x`` is NumPy's (a
        NumPy number or array: the quotient NumPy's, inf at ``y`` 0) but ``g`` and ``y``
        may both be Python's floats? Python's ``g / y`` would raise where the user's line
        did not; ``np.true_divide(g, y)`` is NumPy's quotient, as the line's. (A Python
        int ``y``, a size, is left as written: ``1.0 / n`` reads better.)"""
        if not (isinstance(node.op, gast.Div) and isinstance(node.left, gast.Name) and
                isinstance(node.right, gast.Name) and
                self.rule.func in (np.true_divide, np.divide) and
                self.rule.parameters[:4] == ("g", "ans", "x", "y") and
                node.left.id == "g" and node.right.id == "y"):
            return False
        x, y, g = (self.mapping.get(p) for p in ("x", "y", "g"))
        x_kind = self.reverse.kind(x.id) if isinstance(x, gast.Name) else None
        if x_kind is not None and x_kind.tag == "array" and (x_kind.ndim or 0) >= 1:
            return False  # (an array of one or more axes: its sensitivity g is an array too)

        def python(arg) -> bool:  # (a Python float, by the kinds; not an int, a size or
            kind = self.reverse.kind(arg.id) if isinstance(arg, gast.Name) else None
            return kind is not None and kind.tag == "scalar" and \
                kind.py in ("float", "number")  # a count, as in np.sum(e) / Y.shape[0])

        def numpy(arg) -> bool:  # (a NumPy number or array, by the kinds)
            kind = self.reverse.kind(arg.id) if isinstance(arg, gast.Name) else None
            return kind is not None and (kind.tag in ("array", "numeric") or
                                         kind.tag == "scalar" and kind.py is None)
        return python(y) and numpy(x) and (self.seed or isinstance(g, gast.Constant) or
                                           not numpy(g))

    def visit_Compare(self, node):
        new = self.generic_visit(node)
        new.left = self._array(node.left, new.left)
        new.comparators = [self._array(a, b) for a, b in zip(node.comparators, new.comparators)]
        return new

    def visit_UnaryOp(self, node):
        new = self.generic_visit(node)
        new.operand = self._array(node.operand, new.operand)
        return new

    def _array(self, original, new, other=None):
        """``new`` as an array where the rule's ``original`` is a parameter bound to a list
        or tuple: the rule's operators (``x > 0.2``, ``-x``, ``2.0 * x``) read an array
        there, as the NumPy function itself does (``np.maximum([.4], .2)``). Beside an
        ``other`` operand that is an array, NumPy's operator reads the list already."""
        if not (isinstance(original, gast.Name) and original.id in self.lists):
            return new
        if other is not None and not self._number(other) and not (
                isinstance(other, gast.Name) and other.id in self.lists):
            return new
        np_name = gast.Name(self.reverse.imports.numpy(), gast.Load(), None, None)
        return gast.Call(gast.Attribute(np_name, "asarray", gast.Load()), [new], [])

    def visit_Call(self, node):
        if isinstance(node.func, gast.Name) and len(node.args) == 2 and \
                self.globals.get(node.func.id) is runtime.unbroadcast:
            like = node.args[1]  # (an argument of the call the rule is for, not a local)
            like = self.mapping.get(like.id) if isinstance(like, gast.Name) else None
            if self.strip or isinstance(like, gast.Name) and \
                    self.reverse._same_shape(like.id, self.ans):
                return self.visit(node.args[0])  # (decided before the call is copied)
            decide = getattr(self.reverse, "decided_unbroadcast", None)
            if isinstance(like, gast.Name) and decide is not None and \
                    self.rule.shape == "elementwise":  # (its terms shaped like its result)
                decided = decide(self.visit(node.args[0]), like.id, self.ans)
                if decided is not None:
                    return decided
        original = node
        node = self.generic_visit(node)
        func = node.func
        if isinstance(original.func, gast.Name) and len(node.args) == 3 and \
                self.globals.get(original.func.id) is runtime.scaled_power:
            node.args[1] = self._array(original.args[1], node.args[1])  # (np.power(xs, 3):
            # the slope's xs ** 2 reads an array, as np.power reads the list)
        if isinstance(func, gast.Name) and len(node.args) == 3 and not node.keywords:
            for side in ("left", "right"):
                if self.reverse.imports.is_helper(func.id, f"matmul_grad_{side}"):
                    return self._matmul_grad(side, *node.args) or node
        return node

    def _matmul_grad(self, side, g, x, y):
        """The adjoint of ``x @ y`` written out, as by hand, when the ranks of ``x`` and ``y``
        are known (1 or 2, not both 1): ``g @ y.T`` and ``x.T @ g`` for matrices."""
        if not (isinstance(x, gast.Name) and isinstance(y, gast.Name)):
            return None
        kx, ky = self.reverse.kind(x.id), self.reverse.kind(y.id)
        if kx.tag != "array" or ky.tag != "array" or (kx.ndim, ky.ndim) not in (
                (2, 2), (2, 1), (1, 2)):
            return None

        def t(name):
            return gast.Attribute(name, "T", gast.Load())

        def outer(a, b):
            np_name = gast.Name(self.reverse.imports.numpy(), gast.Load(), None, None)
            return gast.Call(gast.Attribute(np_name, "outer", gast.Load()), [a, b], [])
        if side == "left":  # the sensitivity of x
            if ky.ndim == 1:
                return outer(g, y)
            if kx.ndim == 1:
                return gast.BinOp(y, gast.MatMult(), g)
            return gast.BinOp(g, gast.MatMult(), t(y))
        if kx.ndim == 1:  # the sensitivity of y
            return outer(x, g)
        return gast.BinOp(t(x), gast.MatMult(), g)

    def visit_Name(self, node):
        if node.id in self.mapping:
            return clone(self.mapping[node.id])
        if node.id in self.locals:
            return gast.Name(self.locals[node.id], node.ctx, None, None)
        if node.id not in self.globals and hasattr(builtins, node.id):
            return node  # (copied by Copier.visit)
        value = self.globals.get(node.id)
        try:
            name = self.reverse.imports.reference(node.id, value)
        except TypeError:  # a user's rule calling a helper of its own module
            name = self.reverse.live_global(node.id, value, self.globals)
        return gast.Name(name, node.ctx, None, None)


    def _number(self, node) -> bool:
        """Is the rule's operand ``node`` a number (``2.0``, ``-1``, a parameter bound to
        one), not an array, beside which a list is repeated or refused?"""
        if isinstance(node, gast.UnaryOp):
            node = node.operand
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                self.globals.get(node.func.id) is runtime.scaled_power:
            return True  # (g * scaled_power(3, x, 2) is written g * 3 * x ** 2: Simplify)
        if isinstance(node, gast.Constant) or isinstance(node, gast.Attribute) and \
                isinstance(node.value, gast.Name) and node.value.id not in self.mapping:
            return True  # (2.0, math.pi)
        arg = self.mapping.get(node.id) if isinstance(node, gast.Name) else None
        return isinstance(arg, gast.Constant) or isinstance(arg, gast.Name) and \
            self.reverse.kind(arg.id).tag == "scalar"


class _Fold(trees.Transformer):
    """Fold what the bound arguments of an inlined rule decide: ``None is None``,
    ``a if True else b``, ``not False``, ``False and e``."""

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot)) and \
                isinstance(node.left, gast.Constant) and \
                isinstance(node.comparators[0], gast.Constant):
            same = node.left.value is node.comparators[0].value
            return gast.Constant(same if isinstance(node.ops[0], gast.Is) else not same, None)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.Eq, gast.NotEq)) and \
                isinstance(node.left, gast.Constant) and \
                isinstance(node.comparators[0], gast.Constant) and \
                all(type(c.value) in (int, str, bool) for c in (node.left,
                                                                 node.comparators[0])):
            same = node.left.value == node.comparators[0].value
            return gast.Constant(same if isinstance(node.ops[0], gast.Eq) else not same, None)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.In, gast.NotIn)) and \
                isinstance(node.left, gast.Constant) and \
                isinstance(node.comparators[0], gast.Tuple) and \
                all(isinstance(c, gast.Constant) and type(c.value) in (int, str, bool)
                    for c in [node.left, *node.comparators[0].elts]):
            found = node.left.value in tuple(c.value for c in node.comparators[0].elts)
            return gast.Constant(found if isinstance(node.ops[0], gast.In) else not found,
                                 None)
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Not) and isinstance(node.operand, gast.Constant) and \
                type(node.operand.value) is bool:
            return gast.Constant(not node.operand.value, None)
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        values = list(node.values)
        while len(values) > 1 and isinstance(values[0], gast.Constant) and \
                type(values[0].value) is bool:
            decided = values[0].value is isinstance(node.op, gast.Or)  # True or e, False and e
            if decided:
                return values[0]
            values.pop(0)  # True and e, False or e: e
        if len(values) == 1:
            return values[0]
        node.values = values
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if isinstance(node.test, gast.Constant):
            return node.body if node.test.value else node.orelse
        return node


def _fold(node):
    """Fold what the bound arguments decide: ``None is None``, ``a if True else b``.

    >>> from s2sad.codegen import unparse
    >>> rule = gast.parse("(h if None is None else g) if False and (not False) else b", mode="eval")
    >>> unparse(_fold(rule.body))
    'b'
    >>> unparse(_fold(gast.parse("x if True or y else z", mode="eval").body))
    'x'
    """
    if not any(isinstance(n, _FOLDABLE) for n in trees.walk(node)):
        return node  # (most rules: nothing to fold, a walk instead of a visit)
    return _Fold().visit(node)


_FOLDABLE = (gast.Compare, gast.UnaryOp, gast.BoolOp, gast.IfExp)  # what _Fold visits
