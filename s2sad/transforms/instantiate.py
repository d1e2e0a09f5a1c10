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

from .. import trees
from .. import runtime
from ..errors import NoDerivativeError
from ..runtime.higher import rule_part
from ..trees import clone
from .kinds import ANY
from .resolve import (FOREIGN_ADVICE, INDEX_ADVICE, foreign_argument, foreign_index, _op_symbol,
                      operand_text)


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
                                 sweep.wants)  # (not one refused where it was made)
        culprit = next((o for o in trees.walk(value) if isinstance(o, gast.Name) and
                        sweep.wants(o)), None)
        if found is not None and culprit is not None:
            raise sweep.source.error(
                NoDerivativeError, f"no derivative rule for {found[2]} given "
                f"{found[1] or operand_text(found[0].id, sweep.namer, stmt)}, which is "
                f"not a number or a NumPy array, and {operand_text(culprit.id, sweep.namer, stmt)}"
                f", which depends on the differentiated argument"
                f"{'s' if len(sweep.wrt) > 1 else ''}", stmt, FOREIGN_ADVICE)
    if not isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return
    operands = [n for n in trees.walk(value) if isinstance(n, gast.Name)]  # (a + b - c)
    foreign = next((o for o in operands if sweep.kinds.get(o.id, ANY).foreign and
                    not (sweep.kinds[o.id].data and sweep.wants(o))), None)
    culprit = next((o for o in operands if sweep.wants(o)), None)
    if foreign is not None and culprit is not None:
        raise sweep.source.error(
            NoDerivativeError, f"no derivative rule for the operator {_op_symbol(value.op)} on "
            f"{operand_text(foreign.id, sweep.namer, stmt)}, which is not a number or a NumPy "
            f"array, and {operand_text(culprit.id, sweep.namer, stmt)}, which depends on the "
            f"differentiated argument{'s' if len(sweep.wrt) > 1 else ''}", stmt, FOREIGN_ADVICE)


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
        return self.generic_visit(node)

    def visit_Call(self, node):
        if isinstance(node.func, gast.Name) and len(node.args) == 2 and \
                self.globals.get(node.func.id) is runtime.unbroadcast:
            like = node.args[1]  # (an argument of the call the rule is for, not a local)
            like = self.mapping.get(like.id) if isinstance(like, gast.Name) else None
            if self.strip or isinstance(like, gast.Name) and \
                    self.reverse._same_shape(like.id, self.ans):
                return self.visit(node.args[0])  # (decided before the call is copied)
        node = self.generic_visit(node)
        func = node.func
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
