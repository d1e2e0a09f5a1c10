"""Forward mode: every active variable ``v`` gets a tangent ``d_v``, computed next to it.

The tangent of each statement comes from its rule: a tangent rule
(``registry.deftangent``), the call itself with an argument replaced by its tangent
for linear functions (``registry.deflinear``), or, for elementwise functions, the
adjoint rule's expression with ``g`` the argument's tangent (their Jacobian is
diagonal). No stack is needed: branches and loops stay as they are, and the
tangents ride along. The function takes one tangent per differentiated argument
after its own arguments and returns ``(value, tangent)``.

>>> import numpy as np
>>> from s2sad.pipeline import compile_gradient
>>> def f(x, y):
...     z = x * y
...     return np.sin(z)
>>> print(compile_gradient(f, ["x"], arg_descriptors=("float", "float"), mode="forward").text)
import numpy as np
from s2sad.runtime import as_gradient
<BLANKLINE>
def jvp_f(x, y, d_x):
    z = x * y
    d_z = d_x * y
    ret = np.sin(z)
    return (ret, as_gradient(ret, d_z * np.cos(z)))
<BLANKLINE>
"""

from __future__ import annotations


import gast

from .. import registry, trees
from ..errors import DifferentiationError, NoDerivativeError
from ..runtime import (add_sens, as_gradient, attribute_tangent, pack_like, plus_tangent,
                       zeros_like_structure)
from ..runtime.higher import broadcast_like, snapshot
from ..trees import clone
from .higher import container_kinds, is_generated
from .kinds import ANY, Kind
from .objects import differentiated_attribute, not_a_parameter
from ..trees import assigned_names
from .resolve import (classify, is_append, is_setitem, known_value, missing_attribute,
                      operand_text, statement_parts, user_name)
from .instantiate import (RuleInliner, call_rule, held_function, refuse_foreign_index,
                          refuse_foreign_operand)
from .tape import is_pop


class Forward:
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
        self.as_tuple = as_tuple
        self.local_names = assigned_names(tree)
        if is_generated(source):
            self.kinds = container_kinds(tree, kinds, source)
        self.tangents: dict[str, str] = {}
        self.live_aliases: dict = {}
        self.mutated: set[str] = set()
        self.zeros: set[str] = set()  # assigned once, with a tangent known to be zero
        stores: dict = {}
        for node in trees.walk(tree):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                stores[node.id] = stores.get(node.id, 0) + 1
        params = {a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
        # (an argument has a value, and a tangent, before it is assigned)
        self.once = {name for name, count in stores.items() if count == 1} - params

    # --- names -----------------------------------------------------------------------------

    def d(self, name: str) -> str:
        """The tangent of ``name`` (``t_ab`` -> ``d_ab``, ``x`` -> ``d_x``)."""
        if name not in self.tangents:
            stem = name[2:] if name.startswith("t_") and len(name) > 2 else name
            self.tangents[name] = self.namer.claim("d_" + stem)
            if name in self.namer.temporaries:
                self.namer.temporaries.add(self.tangents[name])
        return self.tangents[name]

    def kind(self, name) -> Kind:
        return self.kinds.get(name, ANY)

    @staticmethod
    def load(name: str) -> gast.Name:
        return gast.Name(name, gast.Load(), None, None)

    @staticmethod
    def store(name: str) -> gast.Name:
        return gast.Name(name, gast.Store(), None, None)

    def helper(self, function) -> gast.Name:
        return self.load(self.imports.helper(function))

    def live_global(self, name, value, namespace):
        from .reverse import Reverse
        return Reverse.live_global(self, name, value, namespace)

    def _same_shape(self, a: str, b: str) -> bool:
        ka, kb = self.kind(a), self.kind(b)
        return ka.shape is not None and ka.shape == kb.shape

    def wants(self, node) -> bool:
        if isinstance(node, gast.Name):
            return node.id in self.active and node.id not in self.zeros
        hidden = [n.id for n in trees.walk(node) if isinstance(n, gast.Name) and n.id in self.active]
        if hidden:
            raise DifferentiationError(f"internal error: active value {hidden[0]!r} inside an "
                                       "operand that is not a name; please report this")
        return False

    def zero(self, node) -> gast.expr:
        """A zero tangent for ``node``: ``0.0`` for a scalar, else zeros of its structure."""
        if isinstance(node, gast.Constant) or (
                isinstance(node, gast.Name) and self.kind(node.id).tag == "scalar"):
            return gast.Constant(0.0, None)
        if isinstance(node, gast.Name):
            return gast.Call(self.helper(zeros_like_structure), [self.load(node.id)], [])
        return gast.Constant(0.0, None)

    def _is_zero(self, expr) -> bool:
        if isinstance(expr, gast.Constant):
            return expr.value == 0.0
        return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and \
            self.imports.is_helper(expr.func.id, "zeros_like_structure")

    def tangent_of(self, node) -> gast.expr:
        return self.load(self.d(node.id)) if self.wants(node) else self.zero(node)

    # --- the pass ----------------------------------------------------------------------------

    def run(self) -> gast.FunctionDef:
        body = self.tree.body
        returned = body[-1].value.id
        for node in trees.walk(self.tree):
            if is_setitem(node):
                self.mutated.add(node.targets[0].value.id)
            elif is_append(node):
                self.mutated.add(node.value.func.value.id)
            elif is_pop(node):
                self.mutated.add(node.value.func.value.id)
        self.namer.temporaries.add(self.d(returned))  # may go back into the return
        params = [a.id for a in self.tree.args.posonlyargs + self.tree.args.args +
                  self.tree.args.kwonlyargs]
        head = [gast.Assign([self.store(self.d(p))], self.zero(self.load(p)), None)
                for p in params if p in self.active and p not in self.wrt]
        out = self.block(body[:-1])
        ret = self.load(returned)
        if returned in self.active and returned not in self.zeros:
            tangent = gast.Call(self.helper(as_gradient), [ret, self.load(self.d(returned))],
                                [])
        else:
            tangent = gast.Call(self.helper(as_gradient), [ret, gast.Constant(0.0, None)], [])
        result = trees.located(gast.Return(gast.Tuple([self.load(returned), tangent],
                                                      gast.Load())), body[-1])
        # (at the user's return: what a later pass moves into it is refused there)
        args = clone(self.tree.args)
        args.defaults = []
        args.kw_defaults = [None] * len(args.kwonlyargs)
        given = set()
        for name in self.wrt:  # (wrt=(1, 1): one tangent each, the argument's their sum)
            tangent = self.d(name)
            if name in given:
                tangent = self.namer.claim(self.d(name))
                head.insert(0, gast.Assign([self.store(self.d(name))], gast.Call(
                    self.helper(add_sens), [self.load(self.d(name)), self.load(tangent)], []),
                    None))
            given.add(name)
            args.args.append(gast.Name(tangent, gast.Param(), None, None))
        new = gast.FunctionDef("jvp_" + self.tree.name, args, head + out + [result],
                               [], None, None)
        return gast.copy_location(new, self.tree)

    def block(self, stmts) -> list:
        out: list = []
        for stmt in stmts:
            if isinstance(stmt, gast.If):
                new = gast.If(stmt.test, self.block(stmt.body) or [gast.Pass()],
                              self.block(stmt.orelse))
            elif isinstance(stmt, gast.While):
                new = gast.While(stmt.test, self.block(stmt.body) or [gast.Pass()], [])
            elif isinstance(stmt, gast.For):
                new = gast.For(stmt.target, stmt.iter, self.block(stmt.body) or [gast.Pass()],
                               [], None)
            else:
                new = None
                tangent = self.statement(stmt)
                if is_setitem(stmt) or is_append(stmt):
                    out.extend(gast.copy_location(s, stmt) for s in tangent)
                    out.append(stmt)
                else:
                    out.append(stmt)
                    out.extend(gast.copy_location(s, stmt) for s in tangent)
            if new is not None:
                out.append(gast.copy_location(new, stmt))
        return out

    # --- one statement ---------------------------------------------------------------------

    def statement(self, stmt) -> list:
        targets, value = statement_parts(stmt)
        if not targets:
            return []
        if is_setitem(stmt):
            name = targets[0]
            if name not in self.active:
                return []
            target = gast.Subscript(self.load(self.d(name)), clone(stmt.targets[0].slice),
                                    gast.Store())
            return [gast.Assign([target], self.tangent_of(value), None)]
        if is_append(stmt):
            name = targets[0]
            if name not in self.active:
                return []
            push = gast.Attribute(self.load(self.d(name)), "append", gast.Load())
            return [gast.Expr(gast.Call(push, [self.tangent_of(value)], []))]
        if is_pop(stmt):
            ys = value.func.value.id
            if ys not in self.active:
                return [gast.Assign([self.store(self.d(targets[0]))],
                                    self.zero(self.load(targets[0])), None)] \
                    if targets[0] in self.active else []
            pop = gast.Attribute(self.load(self.d(ys)), "pop", gast.Load())
            return [gast.Assign([self.store(self.d(targets[0]))], gast.Call(pop, [], []), None)]
        if not any(t in self.active for t in targets):
            return []
        if len(targets) > 1 or isinstance(stmt.targets[0], gast.Tuple):
            names = gast.Tuple([self.store(self.d(t)) for t in targets], gast.Store())
            if self.wants(value):
                return [gast.Assign([names], self.load(self.d(value.id)), None)]
            return [gast.Assign([self.store(self.d(t))], self.zero(self.load(t)), None)
                    for t in targets if t in self.active]
        target = targets[0]
        self.pre: list = []
        expr = self.tangent(stmt, target, value)
        if target in self.once and target not in self.mutated and self._is_zero(expr):
            self.zeros.add(target)  # its tangent is zero: later statements leave it out
            return []
        if (target in self.mutated or self.mutated and self.__dict__.pop("fresh", False)) \
                and _may_alias(expr, self.imports.helper_functions()):
            # (updated in place later, or a new array whose tangent is another's, which an
            # update may change, b = np.copy(a); a[1] = v: a copy)
            expr = gast.Call(self.helper(snapshot), [expr], [])
        return self.pre + [gast.Assign([self.store(self.d(target))], expr, None)]

    def tangent(self, stmt, target: str, value) -> gast.expr:
        if differentiated_attribute(value, self):  # `w = model.W`: the tangent
            if not_a_parameter(self.source, value):  # object's (zero for a non-parameter)
                return self.zero(self.load(target))
            return gast.Call(self.helper(attribute_tangent),
                             [self.load(self.d(value.value.id)), self.load(value.value.id),
                              gast.Constant(value.attr, None)], [])
        refuse_foreign_operand(self, stmt, value)
        op = classify(value, self.source, self.local_names)
        facts = registry.facts(op.rule.func) if op.kind == "call" else None
        self.fresh = facts is not None and not (facts.returns_view_of or
                                                facts.uncopied_view_of)  # (np.copy(a))
        if op.kind == "copy":
            return self.tangent_of(value)
        if op.kind == "linear":
            return self.linear(value, target)
        if op.kind == "subscript":
            refuse_foreign_index(self, stmt, value)
            if self.wants(value.value):
                return gast.Subscript(self.load(self.d(value.value.id)),
                                      clone(value.slice), gast.Load())
            return self.zero(self.load(target))
        if op.kind == "build" and isinstance(value, gast.Dict):
            return gast.Dict([clone(k) for k in value.keys],
                             [self.tangent_of(v) for v in value.values])
        if op.kind == "build" and isinstance(value, gast.Call):  # P(w, b): P(d_w, d_b)
            return gast.Call(clone(value.func), [self.tangent_of(a) for a in value.args], [])
        if op.kind == "build":
            return type(value)([self.tangent_of(e) for e in value.elts], gast.Load())
        if op.kind == "call":
            return self.call(stmt, value, op, target)
        if op.kind == "unknown":
            culprit = next((o for o in op.operands if self.wants(o)), None)
            if culprit is not None:
                raise self.source.error(
                    NoDerivativeError, op.message.format(operand=operand_text(
                        op.operands[0].id, self.namer, stmt), name=user_name(
                        op.operands[0].id, self.namer)) if missing_attribute(
                        op, self.kinds) else
                    f"no derivative rule for {op.name}, called on "
                    f"{operand_text(culprit.id, self.namer, stmt)}, which depends "
                    f"on the differentiated argument{'s' if len(self.wrt) > 1 else ''}", stmt,
                    (op.hint if missing_attribute(op, self.kinds) else op.advice) or \
                    "Register one with @s2sad.defvjp (and @s2sad.deftangent), "
                    "wrap the argument in s2sad.stop_gradient() if its derivative should not "
                    "flow, or rewrite the line with functions s2sad knows (see "
                    "s2sad.supported()).")
        return self.zero(self.load(target))

    def linear(self, node, target: str) -> gast.expr:
        """``a + b - c``: the same chain of the tangents (zeros left out)."""
        terms: list = []   # (negate, expression)
        inactive: list = []

        def walk(n, negate):
            if isinstance(n, gast.BinOp) and isinstance(n.op, (gast.Add, gast.Sub)):
                walk(n.left, negate)
                walk(n.right, negate ^ isinstance(n.op, gast.Sub))
            elif self.wants(n):
                terms.append((negate, self.load(self.d(n.id))))
            else:
                inactive.append(n)
                if container:
                    terms.append((negate, self.zero(n)))

        container = self.kind(target).tag in ("list", "tuple")
        joined = self._maybe_joined(node) if not container or \
            self.kind(target).tag == "tuple" else None
        if joined:  # (a tuple plus a value of unknown kind: joined or added, as it runs;
            # tuples joined: their tangents may be lists, a tuple's zeros are, as one list)
            return gast.Call(self.helper(plus_tangent), [
                gast.Tuple([self.tangent_of(p) for p in joined], gast.Load()),
                gast.Tuple([self.load(p.id) for p in joined], gast.Load())], [])
        walk(node, False)
        if container:  # list + list joins them: every part needs a tangent
            terms = []
            self._container_terms(node, terms)
        expr = None
        for negate, term in terms:
            if expr is None:
                expr = gast.UnaryOp(gast.USub(), term) if negate else term
            else:
                expr = gast.BinOp(expr, gast.Sub() if negate else gast.Add(), term)
        if expr is None:
            return self.zero(self.load(target))
        full = any(self.wants(n) and self._same_shape(n.id, target)
                   for n in trees.walk(node) if isinstance(n, gast.Name))
        if not container and not full and any(self._widens(n, target) for n in inactive):
            expr = gast.Call(self.helper(broadcast_like),
                             [expr, self.load(target)], [])
        return expr

    def _maybe_joined(self, node) -> list | None:
        """The parts of ``a + b + ...`` where one is a list or tuple and another's kind is
        not known, else None."""
        def parts(n):
            if isinstance(n, gast.BinOp) and isinstance(n.op, gast.Add):
                return parts(n.left) + parts(n.right)
            return [n]
        if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add)):
            return None
        found = parts(node)
        if not all(isinstance(p, gast.Name) for p in found):
            return None
        kinds = [self.kind(p.id) for p in found]
        if any(k.tag in ("list", "tuple") for k in kinds) and \
                all(k.tag in ("list", "tuple", "any") for k in kinds):
            return found
        return None

    def _container_terms(self, node, terms):
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
            self._container_terms(node.left, terms)
            self._container_terms(node.right, terms)
        elif isinstance(node, gast.Name) and not self.wants(node) and \
                self.kind(node.id).tag == "tuple":  # (args + (ones,): zeros, as a tuple too)
            terms.append((False, gast.Call(self.helper(pack_like),
                                           [self.load(node.id), self.zero(node)], [])))
        else:
            terms.append((False, self.tangent_of(node)))

    def _widens(self, node, target: str) -> bool:
        """Could the inactive operand ``node`` make the result bigger than the tangents (when
        none of those is known to be as big as the result)? Any array can: ``M + a``, with
        ``a`` a number, has the shape of ``M``, its tangent that of ``d_a``."""
        if isinstance(node, gast.Constant):
            return False
        if not isinstance(node, gast.Name):
            return True
        return self.kind(node.id).tag != "scalar"

    # --- calls ---------------------------------------------------------------------------------

    def call(self, stmt, value, op, target: str) -> gast.expr:
        rule = op.rule
        function = rule.tangent or rule.adjoint
        if function is None or not rule.has_tangent():
            raise self.source.error(
                NoDerivativeError, f"no tangent (forward-mode) rule for {op.name}", stmt,
                "Register one with @s2sad.deftangent, or use reverse mode (s2sad.grad, "
                "s2sad.vjp).")
        sig = registry.signature(function)
        try:
            bound = registry.bind(function, (self.load("g"), self.load(target), *op.operands),
                                  op.keywords)
        except TypeError as exc:
            raise self.source.error(DifferentiationError,
                                    f"{op.name} is called in a way its derivative rule does not "
                                    f"handle: {exc}", stmt, registry.call_hint(rule.func, exc)) from None
        mapping = {}
        for param, arg in bound.items():
            mapping[param] = arg if isinstance(arg, gast.AST) else gast.Constant(arg, None)
        params = list(sig.parameters)[2:]
        wanted = [i for i in range(len(params)) if self.wants(mapping[params[i]])]
        if not wanted:
            return self.zero(self.load(target))
        refused = registry.refusal(rule, mapping, self.wants, lambda node: known_value(
            node, self.source, self.local_names, self.kind))
        if refused is not None:  # (an argument the rule does not model: never a zero)
            raise self.source.error(NoDerivativeError, refused[0], stmt, refused[1])
        for i in wanted:  # (no derivative in it: a function holding values? refused)
            try:
                none = self._no_dependence(rule, i)
            except (TypeError, OSError):  # (a rule called by reference: not read here)
                none = False
            if none:
                check = held_function(self, stmt, rule, params[i], mapping[params[i]])
                self.pre.extend([check] if check is not None else [])
        parts = []
        if rule.tangent is not None:
            try:
                pre, returned = rule.parsed_tangent()
            except (TypeError, OSError):  # more than one `return`: call the rule instead
                first = next(iter(registry.signature(rule.tangent).parameters))
                expr = None
                for i in wanted:  # one call per varying argument, g its tangent
                    local = {first: self.load(self.d(mapping[params[i]].id))}
                    args = [local[first], self.load(target)] + list(op.operands)
                    part = call_rule(self, rule.tangent, args, dict(op.keywords or {}),
                                     params, [i], self.pre)[0][1]
                    expr = part if expr is None else gast.BinOp(expr, gast.Add(), part)
                return expr
            exprs = returned.elts if isinstance(returned, gast.Tuple) else [returned]
            for i in wanted:
                if i >= len(exprs) or (isinstance(exprs[i], gast.Constant) and
                                       exprs[i].value is None):
                    if not self._no_dependence(rule, i):  # (the adjoint has a derivative)
                        raise self.source.error(
                            NoDerivativeError, f"no tangent (forward-mode) rule for "
                            f"{op.name} with respect to its argument {params[i]!r}", stmt,
                            "Use reverse mode (s2sad.grad, s2sad.vjp), or register a "
                            "tangent rule with @s2sad.deftangent.")
                    continue
                parts.append(self._inline(rule, rule.tangent, mapping, params[i], pre, exprs[i],
                                          target, strip=False))
        elif rule.linear is not None:
            joint: dict = {}
            for i in wanted:
                if i not in rule.linear and self._no_dependence(rule, i):
                    continue  # the adjoint says so: only its shape matters (sum_grad's x)
                if getattr(registry.facts(rule.func), "sequence", False) and \
                        rule.func is not dict and self.kind(mapping[params[i]].id).tag == "dict":
                    continue  # (list(d) of a dict: its keys, which carry no derivative)
                if i not in rule.linear:
                    raise self.source.error(
                        NoDerivativeError, f"{op.name} is linear only in its argument(s) "
                        f"{', '.join(params[j] for j in rule.linear)}, not in {params[i]!r}",
                        stmt, "Register a tangent rule with @s2sad.deftangent.")
                replace = {id(mapping[params[i]]): self.load(self.d(mapping[params[i]].id))}
                if rule.joint:  # one call, with every tangent in its place (a sum of calls
                    joint.update(replace)  # would add lists by concatenating them)
                    continue
                parts.append(clone(_substitute(value, replace)))
            if joint:  # affine in the others: a constant offset (2.0, initial=5.0) is zero
                for j in rule.linear:  # in the tangent, a literal as much as a name
                    other = mapping[params[j]]
                    if id(other) not in joint:
                        joint[id(other)] = self.zero(other)
                parts.append(clone(_substitute(value, joint)))
        else:  # elementwise: the adjoint's expression, g being the argument's tangent
            pre, returned = rule.parsed()
            exprs = returned.elts if isinstance(returned, gast.Tuple) else [returned]
            for i in wanted:
                if i >= len(exprs):
                    continue
                parts.append(self._inline(rule, rule.adjoint, mapping, params[i], pre, exprs[i],
                                          target, strip=True))
        parts = [p for p in parts if not (isinstance(p, gast.Constant) and p.value is None)]
        if not parts:
            return self.zero(self.load(target))
        expr = parts[0]
        for part in parts[1:]:  # (lists of tangents, np.linalg.lstsq's: item by item)
            expr = gast.Call(self.helper(add_sens), [expr, part], []) \
                if rule.shape == "sequence" or self.kind(target).tag == "tuple" else \
                gast.BinOp(expr, gast.Add(), part)
        if rule.shape == "elementwise" and self._incomplete(expr, op, target):
            expr = gast.Call(self.helper(broadcast_like),
                             [expr, self.load(target)], [])
        return expr

    @staticmethod
    def _no_dependence(rule, i) -> bool:
        """Does the adjoint rule give argument ``i`` no sensitivity at all (``None``)?"""
        if rule.adjoint is None:
            return False
        returned = rule.parsed()[1]
        parts = returned.elts if isinstance(returned, gast.Tuple) else [returned]
        return i >= len(parts) or (isinstance(parts[i], gast.Constant) and
                                   parts[i].value is None)

    def _inline(self, rule, function, mapping, param, pre, expr, target, strip):
        local = dict(mapping)
        local["g"] = self.load(self.d(mapping[param].id))
        inliner = RuleInliner(self, rule, local, seed=False, ans=target, function=function,
                           strip=strip)
        if self.kind(mapping[param].id).tag in ("list", "tuple"):
            inliner.lists.add("g")  # (the tangent of a list is a list)
        for assign in pre:
            self.pre.append(inliner.statement(assign))
        result = inliner.expression(expr)
        if "g" in inliner.lists and isinstance(result, gast.Name) and \
                result.id == local["g"].id:  # (np.fmod(xs, 0.4): the tangent of the
            result = inliner._array(gast.Name("g", gast.Load(), None, None), result)
            # (the array it makes, not the list's)
        return result

    def _incomplete(self, expr, op, target) -> bool:
        """Might the sum of the contributions be smaller than the result (an inactive
        operand it does not mention widened the result by broadcasting)?"""
        mentioned = {n.id for n in trees.walk(expr) if isinstance(n, gast.Name)}
        operands = list(op.operands) + [v for k, v in (op.keywords or {}).items()
                                        if k not in registry.NOT_BROADCAST]
        if any(self.wants(o) and self._same_shape(o.id, target) for o in operands):
            return False  # the tangent of an operand as big as the result is in the sum
        return any(self._widens(o, target) for o in operands
                   if not (isinstance(o, gast.Name) and (o.id in mentioned or self.wants(o))))


def _substitute(value, replace: dict):
    """``value`` (a call or an operator on atoms) with some operands replaced (by identity)."""
    def sub(node):
        return replace.get(id(node), node)
    if isinstance(value, gast.Call):
        return gast.Call(value.func, [sub(a) for a in value.args],
                         [gast.keyword(k.arg, sub(k.value)) for k in value.keywords])
    if isinstance(value, gast.BinOp):
        return gast.BinOp(sub(value.left), value.op, sub(value.right))
    if isinstance(value, gast.UnaryOp):
        return gast.UnaryOp(value.op, sub(value.operand))
    raise TypeError(type(value).__name__)


def _may_alias(expr, helpers: dict) -> bool:
    """Might ``expr`` be (a view of) another tangent? A helper (``helpers``: alias ->
    function) may return its first argument itself (its facts: ``cast_like`` where no
    cast is needed: the tangent of y = z.astype(np.float64), a copy, would be d_z)."""
    if isinstance(expr, (gast.Name, gast.Subscript)):
        return True
    if not (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.args):
        return False
    facts = registry.facts(helpers.get(expr.func.id))
    return facts is not None and (facts.returns_view_of == "*" or 0 in facts.returns_view_of) \
        and _may_alias(expr.args[0], helpers)
