"""Build the adjoint: the forward statements, then their sensitivities in reverse order.

Every active variable ``v`` gets an accumulator ``s_v``, zero-initialized at the
top and accumulated with ``+=`` (the seed's ``grad_f4`` form; the optimizer
turns first accumulations into assignments). Each statement's contributions
come from its rule in the table, inlined with the statement's own names.

>>> import numpy as np
>>> from s2sad.pipeline import compile_source
>>> def f(x, y):
...     z = x * y
...     return np.sin(z)
>>> print(compile_source(f, wrt=(0,), optimize=False, arg_descriptors=("float", "float")))
import numpy as np
<BLANKLINE>
def grad_f(x, y):
    s_x, s_z = [0.0] * 2
    z = x * y
    ret = np.sin(z)
    s_z += np.cos(z)
    s_x += y * s_z
    return float(s_x)
"""

from __future__ import annotations

import builtins
import copy
import inspect

import gast

from .. import runtime
from ..codegen import comment
from ..errors import DifferentiationError, NoDerivativeError
from .kinds import ANY, Kind
from .normalize import assigned_names, is_linear_chain
from .resolve import classify, statement_parts


class Reverse:
    def __init__(self, source, namer, tree: gast.FunctionDef, wrt: list[str],
                 kinds: dict[str, Kind], active: set[str], imports, annotate: bool,
                 with_value: bool, as_tuple: bool = False):
        self.source = source
        self.namer = namer
        self.tree = tree
        self.wrt = wrt
        self.kinds = kinds
        self.active = active
        self.imports = imports
        self.annotate = annotate
        self.with_value = with_value
        self.as_tuple = as_tuple
        self.local_names = assigned_names(tree)
        self.received: list[str] = []   # primal names whose sensitivity got a contribution
        self.assigned: set[str] = set()  # containers: sensitivity built by assignment
        self.block: list = []

    # --- helpers ---------------------------------------------------------------------------

    def s(self, name: str) -> str:
        return self.namer.sens(name)

    def kind(self, name) -> Kind:
        return self.kinds.get(name, ANY)

    def helper(self, name: str) -> gast.Name:
        return gast.Name(self.imports.helper(name), gast.Load(), None, None)

    @staticmethod
    def load(name: str) -> gast.Name:
        return gast.Name(name, gast.Load(), None, None)

    @staticmethod
    def store(name: str) -> gast.Name:
        return gast.Name(name, gast.Store(), None, None)

    def accumulate(self, name: str, expr, negate: bool = False):
        """``s_name += expr`` (``-=`` when ``negate``), in the form the variable's kind needs."""
        kind = self.kind(name)
        s = self.s(name)
        if kind.container and name not in self.received:
            if negate:
                expr = gast.UnaryOp(gast.USub(), expr)
            self.assigned.add(name)
            self.block.append(gast.Assign([self.store(s)], expr, None))
        elif kind.numeric:
            op = gast.Sub() if negate else gast.Add()
            self.block.append(gast.AugAssign(self.store(s), op, expr))
        else:
            if negate:
                expr = gast.UnaryOp(gast.USub(), expr)
            call = gast.Call(self.helper("add_sens"), [self.load(s), expr], [])
            self.block.append(gast.Assign([self.store(s)], call, None))
        if name not in self.received:
            self.received.append(name)

    def wants(self, node) -> bool:
        if isinstance(node, gast.Name):
            return node.id in self.active
        hidden = [n.id for n in gast.walk(node) if isinstance(n, gast.Name) and n.id in self.active]
        if hidden:  # normalization guarantees operands are names: never drop a gradient
            raise DifferentiationError(f"internal error: active value {hidden[0]!r} inside an "
                                       "operand that is not a name; please report this")
        return False

    # --- the pass ----------------------------------------------------------------------------

    def run(self) -> gast.FunctionDef:
        body = self.tree.body
        forward = body[:-1]
        returned = body[-1].value.id
        reverse: list = []
        seed = gast.Constant(1.0, None)
        if self.kind(returned).tag != "scalar":
            s_ret = self.s(returned)
            call = gast.Call(self.helper("output_seed"), [self.load(returned)], [])
            reverse.append(gast.copy_location(gast.Assign([self.store(s_ret)], call, None),
                                              body[-1]))
            seed = self.load(s_ret)
        if returned in self.active and returned in self._parameters():
            self.block = []
            self.accumulate(returned, seed)
            reverse.extend(self.block)
        last_line = None
        for stmt in reversed(forward):
            self.block = []
            self.adjoint(stmt, returned, seed)
            if not self.block:
                continue
            if self.annotate and stmt.lineno != last_line:
                text = self.source.segment(stmt)
                reverse.append(comment(f'Analyzing the line: "{text}"'))
            last_line = stmt.lineno
            reverse.extend(gast.copy_location(s, stmt) for s in self.block)
        zero = self._zero_init()
        result = self._result(returned)
        args = copy.deepcopy(self.tree.args)
        args.defaults = []
        args.kw_defaults = [None] * len(args.kwonlyargs)
        prefix = "value_and_grad_" if self.with_value else "grad_"
        new = gast.FunctionDef(prefix + self.tree.name, args, zero + forward + reverse + [result],
                               [], None, None)
        return gast.copy_location(new, self.tree)

    def _zero_init(self) -> list:
        order = {name: i for i, name in enumerate(self._definition_order())}
        names = sorted((n for n in self.received if n not in self.assigned),
                       key=lambda n: order.get(n, -1))
        if not names:
            return []
        targets = [self.store(self.s(n)) for n in names]
        if len(targets) == 1:
            return [gast.Assign(targets, gast.Constant(0.0, None), None)]
        value = gast.BinOp(gast.List([gast.Constant(0.0, None)], gast.Load()), gast.Mult(),
                           gast.Constant(len(names), None))
        return [gast.Assign([gast.Tuple(targets, gast.Store())], value, None)]

    def _parameters(self) -> list[str]:
        args = self.tree.args
        return [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]

    def _definition_order(self) -> list[str]:
        names = self._parameters()
        for stmt in self.tree.body:
            names.extend(statement_parts(stmt)[0])
        return names

    def _result(self, returned: str):
        grads = []
        for name in self.wrt:
            kind = self.kind(name)
            value = self.load(self.s(name)) if name in self.received else gast.Constant(0.0, None)
            if kind.tag == "scalar" and kind.py == "float":
                grads.append(gast.Call(self.load("float"), [value], []) if name in self.received
                             else value)
            else:
                grads.append(gast.Call(self.helper("as_gradient"), [self.load(name), value], []))
        out = gast.Tuple(grads, gast.Load()) if self.as_tuple or len(grads) > 1 else grads[0]
        if self.with_value:
            out = gast.Tuple([self.load(returned), out], gast.Load())
        return gast.Return(out)

    # --- one statement ---------------------------------------------------------------------

    def adjoint(self, stmt, returned, seed):
        targets, value = statement_parts(stmt)
        if not targets or not any(t in self.received or t == returned for t in targets):
            return
        if not any(t in self.active for t in targets):
            return
        if len(targets) > 1 or isinstance(stmt.targets[0], gast.Tuple):
            return self.unpack(targets, value)
        target = targets[0]
        g = seed if target == returned else self.load(self.s(target))
        op = classify(value, self.source, self.local_names)
        if op.kind == "copy":
            if self.wants(value):
                self.accumulate(value.id, g)
        elif op.kind == "linear":
            self.linear(value, g, target, negate=False)
        elif op.kind == "call":
            self.call(stmt, value, op, g, target)
        elif op.kind == "subscript":
            if self.wants(value.value):
                self.scatter(value, g)
        elif op.kind == "build":
            for i, elt in enumerate(value.elts):
                if self.wants(elt):
                    part = gast.Subscript(g, gast.Constant(i, None), gast.Load())
                    self.accumulate(elt.id, part)
        elif op.kind == "unknown":
            culprit = next((o for o in op.operands if self.wants(o)), None)
            if culprit is not None:
                raise self.source.error(
                    NoDerivativeError,
                    f"no derivative rule for {op.name}, called on {culprit.id!r}, which depends "
                    f"on the differentiated argument{'s' if len(self.wrt) > 1 else ''}", stmt,
                    "Register one with @s2sad.defvjp, wrap the argument in "
                    "s2sad.stop_gradient() if its gradient should not flow, or rewrite the line "
                    "with functions s2sad knows (see s2sad.supported()).")

    def linear(self, node, g, target, negate):
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
            self.linear(node.left, g, target, negate)
            self.linear(node.right, g, target, negate ^ isinstance(node.op, gast.Sub))
        elif self.wants(node):
            self.accumulate(node.id, self.unbroadcast(g, node, target), negate)

    def unbroadcast(self, expr, like: gast.Name, ans: str):
        if self._same_shape(like.id, ans):
            return expr
        return gast.Call(self.helper("unbroadcast"), [expr, self.load(like.id)], [])

    def _same_shape(self, a: str, b: str) -> bool:
        ka, kb = self.kind(a), self.kind(b)
        return ka.shape is not None and ka.shape == kb.shape

    def scatter(self, value, g):
        name = value.value.id
        s = self.s(name)
        if name not in self.received:
            init = gast.Call(self.helper("zeros_like_structure"), [self.load(name)], [])
            self.block.append(gast.Assign([self.store(s)], init, None))
            self.received.append(name)
            self.assigned.add(name)
        index = copy.deepcopy(value.slice)
        if _basic_index(index, self.kinds):
            target = gast.Subscript(self.load(s), index, gast.Store())
            self.block.append(gast.AugAssign(target, gast.Add(), g))
        else:
            np_add_at = gast.Attribute(gast.Attribute(self.load(self.imports.numpy()), "add",
                                                      gast.Load()), "at", gast.Load())
            index_expr = gast.Subscript(gast.Attribute(self.load(self.imports.numpy()), "s_",
                                                       gast.Load()), index, gast.Load())
            self.block.append(gast.Expr(gast.Call(np_add_at, [self.load(s), index_expr, g], [])))

    def unpack(self, targets, value):
        if not self.wants(value):
            return
        parts = [self.load(self.s(t)) if t in self.received else gast.Constant(0.0, None)
                 for t in targets]
        kind = self.kind(value.id)
        if kind.tag == "list":
            expr = gast.List(parts, gast.Load())
        elif kind.tag == "tuple":
            expr = gast.Tuple(parts, gast.Load())
        else:
            expr = gast.Call(self.helper("pack_like"),
                             [self.load(value.id), gast.List(parts, gast.Load())], [])
        self.accumulate(value.id, expr)

    def call(self, stmt, value, op, g, target):
        rule = op.rule
        sig = inspect.signature(rule.adjoint)
        try:
            bound = sig.bind(g, self.load(target), *op.operands, **op.keywords)
        except TypeError as exc:
            raise self.source.error(DifferentiationError,
                                    f"{op.name} is called in a way its derivative rule does not "
                                    f"handle: {exc}", stmt, "Check the call's arguments.") from None
        bound.apply_defaults()
        mapping = {}
        for param, arg in bound.arguments.items():
            mapping[param] = arg if isinstance(arg, gast.AST) else gast.Constant(arg, None)
        params = list(sig.parameters)[2:]
        pre, returned = rule.parsed()
        parts = returned.elts if isinstance(returned, gast.Tuple) else [returned]
        wanted = [(i, mapping[params[i]]) for i in range(len(parts))
                  if i < len(params) and self.wants(mapping[params[i]])]
        if not wanted:
            return
        inliner = _Inliner(self, rule, mapping, seed=isinstance(g, gast.Constant), ans=target)
        for assign in pre:
            self.block.append(inliner.statement(assign))
        for i, operand in wanted:
            expr = inliner.expression(parts[i])
            if isinstance(expr, gast.Constant) and expr.value is None:
                continue
            self.accumulate(operand.id, expr)


def _basic_index(index, kinds) -> bool:
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    for part in parts:
        if isinstance(part, gast.Slice):
            continue
        if isinstance(part, gast.Constant) and (part.value is None or part.value is Ellipsis
                                                or isinstance(part.value, int)):
            continue
        if isinstance(part, gast.Name) and kinds.get(part.id, ANY).tag == "scalar":
            continue
        return False
    return True


class _Inliner(gast.NodeTransformer):
    """Put a rule's expression into the generated code with the statement's own names."""

    def __init__(self, reverse: Reverse, rule, mapping: dict, seed: bool, ans: str):
        self.reverse = reverse
        self.rule = rule
        self.mapping = mapping
        self.seed = seed
        self.ans = ans
        self.locals: dict[str, str] = {}
        self.globals = rule.adjoint.__globals__

    def statement(self, assign):
        new = self.visit(copy.deepcopy(assign))
        return new

    def expression(self, expr):
        return _fold(self.visit(copy.deepcopy(expr)))

    def visit_Assign(self, node):
        node.value = self.visit(node.value)
        for target in gast.walk(node.targets[0]):
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
        self.generic_visit(node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, gast.Name) and self.reverse.imports.is_helper(func.id, "unbroadcast") \
                and len(node.args) == 2 and isinstance(node.args[1], gast.Name):
            if self.reverse._same_shape(node.args[1].id, self.ans):
                return node.args[0]
        return node

    def visit_Name(self, node):
        if node.id in self.mapping:
            return copy.deepcopy(self.mapping[node.id])
        if node.id in self.locals:
            return gast.Name(self.locals[node.id], node.ctx, None, None)
        if node.id not in self.globals and hasattr(builtins, node.id):
            return node
        value = self.globals.get(node.id)
        name = self.reverse.imports.reference(node.id, value)
        return gast.Name(name, node.ctx, None, None)


def _fold(node):
    """Fold what the bound arguments decide: ``None is None``, ``a if True else b``."""
    class Fold(gast.NodeTransformer):
        def visit_Compare(self, node):
            self.generic_visit(node)
            if len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot)) and \
                    isinstance(node.left, gast.Constant) and \
                    isinstance(node.comparators[0], gast.Constant):
                same = node.left.value is node.comparators[0].value
                return gast.Constant(same if isinstance(node.ops[0], gast.Is) else not same, None)
            return node

        def visit_IfExp(self, node):
            self.generic_visit(node)
            if isinstance(node.test, gast.Constant):
                return node.body if node.test.value else node.orelse
            return node
    return Fold().visit(node)


__all__ = ["Reverse", "runtime"]
