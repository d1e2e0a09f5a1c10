"""Build the adjoint: the forward statements, then their sensitivities in reverse order.

Every active variable ``v`` gets an accumulator ``s_v``, zero-initialized at the
top and accumulated with ``+=`` (the seed's ``grad_f4`` form; the optimizer
turns first accumulations into assignments). Each statement's contributions
come from its rule in the table, inlined with the statement's own names.

The output's sensitivity is 1.0, or with ``seed=True`` (``vjp``) an extra parameter
``seed``. Generated code differentiated again (a higher derivative) reads its
stack back with ``x = stack.pop()``: the adjoint of a pop grows ``s_stack`` back
by ``s_x``, and the sweep restores the list with ``stack.append(x)``, so pushes and
pops pair up at every order.

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

import gast

from .. import trees
from .. import registry, runtime
from ..registry import is_helper
from ..codegen import comment
from ..errors import DifferentiationError, NoDerivativeError
from ..trees import clone, located
from .shape_only import one_shape, shape_arguments, shape_helpers
from .kinds import ANY, Kind
from .normalize import assigned_names
from .higher import container_kinds, is_generated
from .activity import shift_invariant
from .resolve import (FOREIGN_ADVICE, INDEX_ADVICE, classify, foreign_index, is_append,
                      is_setitem, known_value, names_in, _op_symbol, operand_text, static_value,
                      statement_parts)


class Reverse:
    def __init__(self, source, namer, tree: gast.FunctionDef, wrt: list[str],
                 kinds: dict[str, Kind], active: set[str], imports, annotate: bool,
                 with_value: bool, as_tuple: bool = False, seed: bool = False,
                 aux: str | None = None, local_names: set[str] | None = None):
        self.source = source
        self.seed_parameter = seed  # vjp: the returned value's sensitivity is an argument
        self.aux = aux              # has_aux: this name is returned alongside, untouched
        self.namer = namer
        self.tree = tree
        self.wrt = wrt
        self.kinds = kinds
        self.active = active
        self.imports = imports
        self.annotate = annotate
        self.with_value = with_value
        self.as_tuple = as_tuple
        self.local_names = assigned_names(tree) if local_names is None else local_names
        # annotated: the maxima whose shift cancels say why they get no gradient
        self.cancelled = shift_invariant(tree, source, self.local_names) if annotate else set()
        if is_generated(source):
            self.kinds = container_kinds(tree, kinds, source)
        # primal names whose sensitivity got a contribution, in order (a dict: `in` is quick)
        self.received: dict[str, None] = {}
        self.assigned: set[str] = set()  # containers: sensitivity built by assignment
        self.structured: dict[str, None] = {}  # sensitivities updated element by element
        self.trips: dict[int, str] = {}  # while loop -> its trip counter
        self.pushed: dict[int, list] = {}  # statement -> the names its forward sweep saved
        self.shaped: set[str] = set()  # reset to zeros of their shape (a rule needs the shape)
        self.loops: list = []  # the loops around the statement being differentiated
        self.branch_depth = 0   # how many `if`s the sweep being built is inside
        self.sure: set[str] = set()  # names given a sensitivity outside any `if`
        self.placeholders: set[str] = set()  # containers with a 0.0 for an item's sensitivity
        self.live_aliases: dict = {}
        self.block: list = []

    # --- helpers ---------------------------------------------------------------------------

    def s(self, name: str) -> str:
        return self.namer.sens(name)

    def kind(self, name) -> Kind:
        return self.kinds.get(name, ANY)

    def helper(self, name: str, module: str = "s2sad.runtime") -> gast.Name:
        return gast.Name(self.imports.helper(name, module), gast.Load(), None, None)

    def zeros_of(self, name: str) -> gast.expr:
        """Zeros shaped like ``name``, to be updated item by item: ``[0.0] * len(x)`` for a
        list or tuple of Python numbers, else ``zeros_like_structure(x)``."""
        kind = self.kind(name)
        if kind.tag in ("list", "tuple") and kind.items and \
                all(k.tag == "scalar" and k.py in ("float", "int") for k in kind.items) and \
                "len" not in self.local_names and "len" not in self.source.globals:
            length = gast.Call(gast.Name("len", gast.Load(), None, None), [self.load(name)], [])
            return gast.BinOp(gast.List([gast.Constant(0.0, None)], gast.Load()), gast.Mult(),
                              length)
        return gast.Call(self.helper("zeros_like_structure"), [self.load(name)], [])

    def live_global(self, name: str, value, namespace: dict) -> str:
        """A global of a (user's) derivative rule that generated code cannot import: read
        it from the rule's own module at each call, under a fresh name."""
        key = (id(namespace), name)
        if key not in self.live_aliases:
            alias = self.namer.claim(name)
            self.imports.user_global(alias, value, (namespace, name))
            self.source.extra[alias] = value
            self.live_aliases[key] = alias
        return self.live_aliases[key]

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
        if kind.container and name not in self.received and name not in self.carried and \
                not self.loops and not self.branch_depth:
            # (the first term, where it is the only one: a loop's passes or another path
            # add to it, or leave it zero, so there it starts from zeros and adds)
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
        self.received[name] = None  # (where it is already, it keeps its place)
        if self.branch_depth == 0:
            self.sure.add(name)

    def wants(self, node) -> bool:
        if isinstance(node, gast.Name):
            return node.id in self.active
        hidden = [n.id for n in trees.walk(node) if isinstance(n, gast.Name) and n.id in self.active]
        if hidden:  # normalization guarantees operands are names: never drop a gradient
            raise DifferentiationError(f"internal error: active value {hidden[0]!r} inside an "
                                       "operand that is not a name; please report this")
        return False

    # --- the pass ----------------------------------------------------------------------------

    def run(self) -> gast.FunctionDef:
        body = self.tree.body
        forward = body[:-1]
        returned = body[-1].value.id
        args = self.tree.args
        self.carried = _carried(forward, [a.id for a in args.posonlyargs + args.args +
                                          args.kwonlyargs if isinstance(a, gast.Name)])
        self.stack = None
        head: list = []
        seed = gast.Constant(1.0, None)
        seed_name = self.namer.claim("seed") if self.seed_parameter else None
        if self.kind(returned).tag != "scalar" or returned in self.carried or seed_name:
            s_ret = self.s(returned)
            value = gast.Constant(1.0, None) if self.kind(returned).tag == "scalar" else \
                gast.Call(self.helper("output_seed"), [self.load(returned)], [])
            if seed_name:
                value = self.load(seed_name)
            head.append(gast.copy_location(gast.Assign([self.store(s_ret)], value, None),
                                           body[-1]))
            self.assigned.add(returned)
            seed = self.load(s_ret)
        self.returned, self.seed = returned, seed
        if returned in self.active and returned in self._parameters():
            if returned in self.assigned:  # `return x`: s_x = seed above is its gradient
                self.received[returned] = None
                self.sure.add(returned)
            else:
                self.block = []
                self.accumulate(returned, seed)
                head.extend(self.block)
        self.resets: list = []
        reverse = self._finish_resets(self.reverse_block(forward, in_loop=False))
        # what the reverse sweep reads must hold the right value when it is read: values
        # overwritten in the forward sweep are saved on a stack and restored (Tapenade's TBR)
        nodes = trees.walk(gast.Module(reverse, []))
        self.needed = {n.id for n in nodes if isinstance(n, gast.Name)
                       and isinstance(n.ctx, gast.Load)}
        # an array the reverse sweep reads for its shape alone (`unbroadcast(g, t_4)`) is
        # saved as its shape: a loop does not keep each pass's array alive for it (but for
        # what the gradient's return reads, restored by the sweep: a parameter's form...)
        returns = {n.id for n in trees.walk(self._result(returned)) if isinstance(n, gast.Name)}
        self.shape_only = self.needed - returns - _value_reads(
            nodes, shape_helpers(self.imports.helper_functions()))
        # (an array whose values all have one shape is read as it is: no shape saved)
        self.one_shape = one_shape(self.tree, self.kinds, "range" not in self.source.globals
                                   and "range" not in self.source.closure) \
            if self.shape_only else set()
        for node in trees.walk(gast.Module(forward, [])):
            if is_pop(node) and node.value.func.value.id in self.needed:
                self.needed.add(node.targets[0].id)  # `ys.append(x)` puts it back
                self.shape_only.discard(node.targets[0].id)
        self.saved: set[int] = set()
        self.saved_stmts: dict[int, object] = {}
        self.maybe: set[str] = set()
        self.early_none: set[str] = set()
        defined = set(self._parameters())
        fwd = self.forward_block(forward, in_loop=False, defined=defined, top=True)
        # a value updated element by element in the reverse sweep gets zeros of its
        # structure at the top of that sweep: None there if its branch did not run
        self.early_none.update(n for n in self.structured if n not in defined)
        if self.early_none:
            names = sorted(self.early_none)
            fwd.insert(0, gast.Assign([gast.Tuple([self.store(n) for n in names], gast.Store())],
                                      gast.Tuple([gast.Constant(None, None)] * len(names),
                                                 gast.Load()), None))
        reverse = _drop_empty_comments(_Restores(self).visit(gast.Module(reverse, [])).body)
        structures = [gast.Assign([self.store(self.s(n))], self.zeros_of(n), None)
                      for n in self.structured]
        zero = self._zero_init()
        if self.stack is not None:
            zero.append(gast.Assign([self.store(self.stack)], gast.List([], gast.Load()), None))
        args = clone(self.tree.args)
        args.defaults = []
        args.kw_defaults = [None] * len(args.kwonlyargs)
        prefix = "value_and_grad_" if self.with_value else "grad_"
        if seed_name:
            args.args.append(gast.Name(seed_name, gast.Param(), None, None))
            prefix = "vjp_"
        keep = []
        if self.aux is not None and _mutates_in_place(forward):
            # the reverse sweep restores lists and arrays in place: return the aux as it was
            kept = self.namer.claim(self.aux + "_out")
            keep = [gast.Assign([self.store(kept)], gast.Call(
                self.helper("snapshot", "s2sad.runtime_higher"), [self.load(self.aux)], []),
                None)]
            self.aux = kept
        result = self._result(returned)
        new = gast.FunctionDef(prefix + self.tree.name, args,
                               zero + fwd + keep + head + structures + reverse + [result],
                               [], None, None)
        return gast.copy_location(new, self.tree)

    # --- the reverse sweep, block by block --------------------------------------------------

    def reverse_block(self, stmts, in_loop: bool) -> list:
        out: list = []
        last_line = None
        for stmt in reversed(stmts):
            block: list = []
            if isinstance(stmt, gast.If):
                self.branch_depth += 1
                body = self.reverse_block(stmt.body, in_loop)
                orelse = self.reverse_block(stmt.orelse, in_loop)
                self.branch_depth -= 1
                if body or orelse:
                    block.append(gast.If(clone(stmt.test), body or [gast.Pass()],
                                         orelse))
            elif isinstance(stmt, gast.While):
                self.loops.append(stmt)
                body = self.reverse_block(stmt.body, in_loop=True)
                self.loops.pop()
                if body:
                    trips = self.trips[id(stmt)] = self.namer.fresh("trips")
                    if in_loop:
                        block.append(gast.Assign([self.store(trips)], self.pop(), None))
                    block.append(gast.For(
                        self.store(self.namer.claim("_")),
                        gast.Call(self.load("range"), [self.load(trips)], []), body, [], None))
            elif isinstance(stmt, gast.Break):
                continue  # the trip count already says where the loop stopped
            elif isinstance(stmt, gast.For):
                self.loops.append(stmt)
                body = self.reverse_block(stmt.body, in_loop=True)
                self.loops.pop()
                if body:
                    iterable = clone(stmt.iter)
                    if _breaks(stmt):  # only the trips that ran: range(n)[:trips_1]
                        trips = self.trips[id(stmt)] = self.namer.fresh("trips")
                        iterable = gast.Subscript(iterable, gast.Slice(
                            None, self.load(trips), None), gast.Load())
                        if in_loop:
                            block.append(gast.Assign([self.store(trips)], self.pop(), None))
                    header = gast.Call(self.load("reversed"), [iterable], [])
                    block.append(gast.For(clone(stmt.target), header, body, [], None))
                    block.append(_restore_marker(stmt))
            else:
                self.block = []
                self.adjoint(stmt, in_loop)
                block = self.block
                if not block and self.cancelled:
                    block = self._cancelled(stmt)
            if not block:
                continue
            line = stmt.lineno
            if self.annotate and line != last_line:
                text = self.source.segment(stmt) if not isinstance(
                    stmt, (gast.If, gast.For, gast.While)) else self.source.line(line).strip()
                out.append(comment(f'Analyzing the line: "{text}"'))
            last_line = line
            out.extend(located(s, stmt) for s in block)  # (in inlined code: its origin)
        return out

    def _cancelled(self, stmt) -> list:
        """(Annotated) a comment where a maximum ``m`` of active values gets no gradient
        because its shift cancels (see ``activity.shift_invariant``), else nothing."""
        targets, value = statement_parts(stmt)
        if len(targets) == 1 and targets[0] in self.cancelled and not self.loops and \
                not self.branch_depth and any(name in self.active for name in names_in(value)):
            name = targets[0] if targets[0] in self.source.locals else "the " + (
                "minimum" if "min" in classify(value, self.source, self.local_names).name
                else "maximum") + " here"
            return [comment(f"{name} gets no gradient: the shift by it cancels (log-sum-exp, "
                            "softmax)", note=True)]
        return []

    def count_trips(self, loop, body: list, out: list):
        """``trips_1 = 0`` before the loop, ``trips_1 += 1`` first thing in each pass."""
        trips = self.trips.get(id(loop))
        if trips is not None:
            out.append(gast.Assign([self.store(trips)], gast.Constant(0, None), None))
            body.insert(0, gast.AugAssign(self.store(trips), gast.Add(), gast.Constant(1, None)))

    def new_key(self, stmt) -> bool:
        """May ``d[k] = v`` give the dict ``d`` a key it did not have? (Its kind lists the
        keys it was made with: ``del d[k]`` is refused, so those stay.)"""
        kind = self.kind(stmt.targets[0].value.id)
        index = stmt.targets[0].slice
        return kind.tag == "dict" and not (
            isinstance(index, gast.Constant) and index.value in dict(kind.items))

    def save(self, stmt):
        self.saved.add(id(stmt))
        self.saved_stmts[id(stmt)] = stmt

    def pop(self):
        if self.stack is None:
            self.stack = self.namer.claim("stack")
        return gast.Call(gast.Attribute(self.load(self.stack), "pop", gast.Load()), [], [])

    def push(self, name: str):
        return self.push_value(self.load(name))

    def push_value(self, value):
        if self.stack is None:
            self.stack = self.namer.claim("stack")
        call = gast.Call(gast.Attribute(self.load(self.stack), "append", gast.Load()),
                         [value], [])
        return gast.Expr(call)

    # --- the forward sweep, with what the reverse sweep needs saved ---------------------------

    def forward_block(self, stmts, in_loop: bool, defined: set, top: bool = False) -> list:
        out: list = []
        for stmt in stmts:
            before = len(out)
            if isinstance(stmt, gast.If):
                body = self.forward_block(stmt.body, in_loop, set(defined))
                orelse = self.forward_block(stmt.orelse, in_loop, set(defined))
                out.append(gast.If(stmt.test, body or [gast.Pass()], orelse))
                if top:  # defined after the `if` when both branches assign it
                    both = _definite(stmt.body) & _definite(stmt.orelse)
                    self.maybe |= (_stored(stmt.body) | _stored(stmt.orelse)) - both - defined
                    defined.update(both)
            elif isinstance(stmt, gast.While):
                body = self.forward_block(stmt.body, True, set(defined))
                self.count_trips(stmt, body, out)
                out.append(gast.While(stmt.test, body, []))
                if id(stmt) in self.trips and in_loop:
                    out.append(self.push(self.trips[id(stmt)]))
            elif isinstance(stmt, gast.For):
                target = stmt.target.id
                if target in self.needed and target in defined:
                    out.append(self.push(target))  # the loop will overwrite it
                    self.save(stmt)
                body = self.forward_block(stmt.body, True, set(defined) | {target})
                self.count_trips(stmt, body, out)
                out.append(gast.For(stmt.target, stmt.iter, body, [], None))
                if id(stmt) in self.trips and in_loop:
                    out.append(self.push(self.trips[id(stmt)]))
            elif is_append(stmt):
                if stmt.value.func.value.id in self.needed:
                    self.save(stmt)  # restored by ys.pop() in the reverse sweep
                out.append(stmt)
            elif is_setitem(stmt):
                name = stmt.targets[0].value.id
                if name in self.needed:  # save only the part about to be overwritten
                    part = gast.Subscript(self.load(name), clone(stmt.targets[0].slice),
                                          gast.Load())
                    if self.new_key(stmt):  # d["c"] = v may add the key: it goes again
                        part = gast.Call(self.helper("item_or_missing"),
                                         [self.load(name), clone(stmt.targets[0].slice)], [])
                    elif not self.kind(name).container:  # (an array's part is overwritten)
                        part = gast.Call(gast.Attribute(self.load(self.imports.numpy()), "array",
                                                        gast.Load()), [part], [])
                    out.append(self.push_value(part))
                    self.save(stmt)
                out.append(stmt)
            else:
                targets = statement_parts(stmt)[0]
                for name in targets:
                    if name in self.carried and name in self.needed and \
                            (name in defined or in_loop):
                        if name in self.shape_only and name in self.one_shape:
                            continue  # any of its values has the shape the sweep reads
                        if name in self.shape_only and self.kind(name).tag == "array":
                            out.append(self.push_value(gast.Call(
                                self.helper("shape_of"), [self.load(name)], [])))
                        else:
                            out.append(self.push(name))
                        self.save(stmt)
                        self.pushed.setdefault(id(stmt), []).append(name)
                if is_pop(stmt) and stmt.value.func.value.id in self.needed:
                    self.save(stmt)  # restored by ys.append(x) in the reverse sweep
                out.append(stmt)
                defined.update(targets)
            if top and isinstance(stmt, (gast.If, gast.For, gast.While)):
                # a value saved inside may not exist yet on the first pass: start it as None
                shape_of = self.imports.helpers.get("shape_of")
                unbound = sorted({n for s in out[before:]
                                  for n in _pushed(s, self.stack, shape_of)}
                                 - defined - set(self.trips.values()))
                # set in one branch only: None at the top, where it cannot undo that branch
                self.early_none.update(n for n in unbound if n in self.maybe)
                defined.update(n for n in unbound if n in self.maybe)
                unbound = [n for n in unbound if n not in self.maybe]
                if unbound:
                    init = gast.Assign([gast.Tuple([self.store(n) for n in unbound], gast.Store())
                                        if len(unbound) > 1 else self.store(unbound[0])],
                                       gast.Constant(None, None), None)
                    if len(unbound) > 1:
                        init.value = gast.Tuple([gast.Constant(None, None)] * len(unbound),
                                                gast.Load())
                    out.insert(before, init)
                defined.update(unbound)
            for s2 in out[before:]:
                gast.copy_location(s2, stmt)
        return out

    def _zero_init(self) -> list:
        order = {name: i for i, name in enumerate(self._definition_order())}
        names = sorted((n for n in self.received if n not in self.assigned),
                       key=lambda n: order.get(n, -1))
        # a list or tuple argument whose sensitivity a loop or a branch adds to starts from
        # zeros of its structure (a 0.0 left there would be no list to return)
        params = set(self._parameters())
        structures = [gast.Assign([self.store(self.s(n))], self.zeros_of(n), None)
                      for n in names if n in params and self.kind(n).container]
        names = [n for n in names if not (n in params and self.kind(n).container)]
        if not names:
            return structures
        targets = [self.store(self.s(n)) for n in names]
        if len(targets) == 1:
            return structures + [gast.Assign(targets, gast.Constant(0.0, None), None)]
        value = gast.BinOp(gast.List([gast.Constant(0.0, None)], gast.Load()), gast.Mult(),
                           gast.Constant(len(names), None))
        return structures + [gast.Assign([gast.Tuple(targets, gast.Store())], value, None)]

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
        if self.aux is not None:
            if self.with_value:  # ((value, aux), gradient), as JAX has it
                value = gast.Tuple([self.load(returned), self.load(self.aux)], gast.Load())
                return gast.Return(gast.Tuple([value, out], gast.Load()))
            return gast.Return(gast.Tuple([out, self.load(self.aux)], gast.Load()))
        if self.with_value:
            out = gast.Tuple([self.load(returned), out], gast.Load())
        return gast.Return(out)

    # --- one statement ---------------------------------------------------------------------

    def adjoint(self, stmt, in_loop: bool):
        targets, value = statement_parts(stmt)
        if not targets:
            return
        if is_pop(stmt):
            self.pop_adjoint(stmt, targets[0], value.func.value.id)
            return
        carried = [t for t in targets if t in self.carried]
        if len(targets) == 1 and isinstance(value, gast.Name) and value.id == targets[0]:
            if carried:  # `s = s` (generated code has them): nothing changes
                self.block.append(_restore_marker(stmt))
            return
        if carried and not is_setitem(stmt) and not is_append(stmt) and \
                set(carried) & set(names_in(value)) and set(carried) & self.active:
            # normalization writes `y = y + t` as `t_1 = y + t; y = t_1`: the sweep reads
            # a name's sensitivity before and after the statement under one name
            raise DifferentiationError(
                f"internal error: {self.source.segment(stmt)!r} reads the value it "
                "overwrites; please report this")
        if carried:
            self.block.append(_restore_marker(stmt))
        if not any(t in self.active for t in targets):
            return
        returned, seed = self.returned, self.seed
        if not in_loop and not any(t in self.received or t == returned for t in targets):
            if carried:  # nothing flows, but a sensitivity updated element by element takes
                marker = self.block.pop()  # the shape of the restored value
                active = [t for t in carried if t in self.active]
                self.block.extend([self.reset(t, "pre") for t in active] + [marker] +
                                  [self.reset(t, "post") for t in active])
            return
        for t in targets:
            if t in self.active and (t != returned or t in self.carried):
                self.touch(t)
        marker = self.block.pop() if carried else None
        if is_setitem(stmt):
            self.setitem(stmt, targets[0], value)
            if marker is not None:
                self.block.append(marker)
            return
        if is_append(stmt):
            self.append(targets[0], value)
            if marker is not None:
                self.block.append(marker)
            return
        if len(targets) > 1 or isinstance(stmt.targets[0], gast.Tuple):
            if returned in targets and isinstance(seed, gast.Constant):
                self.accumulate(returned, seed)  # `a, b = x; return b`: b holds the seed
            self.unpack(targets, value)
        else:
            self.single(stmt, targets[0], value,
                        seed if targets[0] == returned and targets[0] not in self.carried
                        else self.load(self.s(targets[0])))
        resets = []
        for t in carried:
            if t in self.active:  # the sensitivity of the overwritten value starts afresh
                self.block.append(self.reset(t, "pre"))
                resets.append(self.reset(t, "post"))
        if marker is not None:
            self.block.append(marker)
        # zeros of a structure go after the restore: shaped like the value before the
        # statement (a list that `ys = ys[:-1]` shortened gets its former length back)
        self.block.extend(resets)

    def setitem(self, stmt, name, value):
        """``y[i] = v``: ``v`` gets what ``y[i]`` was worth; the old ``y[i]`` gets nothing."""
        target = stmt.targets[0]
        if name not in self.structured:
            self.structured[name] = None
            self.assigned.add(name)
        s = self.s(name)
        part = gast.Subscript(self.load(s), clone(target.slice), gast.Load())
        if not self.kind(name).container and \
                not _basic_index(target.slice, self.kinds, self.newaxis):
            # an index array may repeat a position: only its last write stays in y
            index = gast.Subscript(gast.Attribute(self.load(self.imports.numpy()), "s_",
                                                  gast.Load()), clone(target.slice), gast.Load())
            part = gast.Call(self.helper("written_part"), [self.load(s), index], [])
        elif not self.kind(name).container:  # a copy: s_y[i] is cleared next (in an array)
            part = gast.Call(gast.Attribute(self.load(self.imports.numpy()), "array",
                                            gast.Load()), [part], [])
        if self.wants(value):
            from .kinds import _subscript_kind
            part_kind = _subscript_kind(self.kind(name), target.slice, self.kind_of_node)
            if self.kind(value.id).container or part_kind.container or (  # a list or tuple
                    self.kind(name).container and self.kind(value.id).tag == "any"):  # (may
                part = gast.Call(self.helper("sens_like", "s2sad.runtime_higher"),  # be)
                                 [part, self.load(value.id)], [])  # stored: item by item
            elif not (part_kind.shape is not None and
                      part_kind.shape == self.kind(value.id).shape):
                part = gast.Call(self.helper("unbroadcast"), [part, self.load(value.id)], [])
            self.accumulate(value.id, part)
        clear = gast.Subscript(self.load(s), clone(target.slice), gast.Store())
        self.block.append(gast.Assign([clear], gast.Constant(0.0, None), None))

    def reset(self, name: str, where: str):
        """A placeholder for ``s_name = 0.0`` (``where="pre"``: before the restore of
        ``name``), or for zeros shaped like the restored ``name`` (``"post"``), whichever
        applies: a sensitivity updated element by element is known once the sweep is built.
        """
        self.resets.append(name)
        return gast.Expr(gast.Name(f"{_RESET}{where}_{len(self.resets) - 1}", gast.Load(),
                                   None, None))

    def _finish_resets(self, stmts: list) -> list:
        if not self.resets:
            return stmts
        return _Resets(self).visit(gast.Module(stmts, [])).body

    def call_by_reference(self, rule, function, op, g, target, mapping, params):
        wanted = [i for i in range(len(params)) if self.wants(mapping[params[i]])]
        if not wanted:
            return
        pre: list = []
        first = next(iter(registry.signature(function).parameters))
        args = [mapping[first], self.load(target)] + list(op.operands)
        parts = call_rule(self, function, args, dict(op.keywords or {}), params, wanted, pre)
        self.block.extend(pre)
        for i, expr in parts:
            self.accumulate(mapping[params[i]].id, expr)

    def pop_adjoint(self, stmt, name: str, ys: str):
        """``x = ys.pop()``: ``s_ys`` grows back by ``x``'s sensitivity (0 if it has none)."""
        if ys in self.active:
            if ys not in self.structured:
                self.structured[ys] = None
                self.assigned.add(ys)
            self.touch(ys)  # what appended to ys before gets its sensitivity from s_ys
            if name in self.active:
                self.touch(name)
                item = self.load(self.s(name))
                if self.kind(name).tag != "scalar":  # a 0.0 placeholder gets x's shape
                    item = gast.Call(self.helper("sens_like", "s2sad.runtime_higher"),
                                     [item, self.load(name)], [])
            else:
                item = gast.Constant(0.0, None)
            push = gast.Attribute(self.load(self.s(ys)), "append", gast.Load())
            self.block.append(gast.Expr(gast.Call(push, [item], [])))
            if name in self.active and name in self.carried:
                self.block.append(self.reset(name, "pre"))
                self.block.append(_restore_marker(stmt))
                self.block.append(self.reset(name, "post"))
                return
        self.block.append(_restore_marker(stmt))

    def append(self, name, value):
        """``ys.append(v)``: ``v`` gets the last sensitivity of ``s_ys``, which shrinks."""
        if name not in self.structured:
            self.structured[name] = None
            self.assigned.add(name)
        s = self.s(name)
        last = gast.Subscript(self.load(s), gast.Constant(-1, None), gast.Load())
        if self.wants(value):
            self.accumulate(value.id, last)
        rest = gast.Subscript(self.load(s), gast.Slice(None, gast.Constant(-1, None), None),
                              gast.Load())
        self.block.append(gast.Assign([self.store(s)], rest, None))

    def kind_of_node(self, node) -> Kind:
        if isinstance(node, gast.Name):
            return self.kind(node.id)
        if isinstance(node, gast.Constant) and isinstance(node.value, int):
            return Kind("scalar", "()", 0, py="int")
        return ANY

    def touch(self, name: str):
        """``s_name`` is read: make sure it exists (zero-initialized)."""
        self.received[name] = None

    def single(self, stmt, target, value, g):
        refuse_foreign_operand(self, stmt, value)
        op = classify(value, self.source, self.local_names)
        if op.kind == "copy":
            if self.wants(value):
                self.accumulate(value.id, g)
        elif op.kind == "linear" and self.kind(target).tag in ("list", "tuple"):
            self.concatenation(stmt, value, g)
        elif op.kind == "linear":
            self.linear(value, g, target, negate=False)
        elif op.kind == "call" and self.kind(target).tag in ("list", "tuple") and \
                isinstance(value, gast.BinOp) and any(self.wants(o) for o in op.operands):
            raise self.source.error(
                NoDerivativeError, "no derivative rule for repeating a list or tuple "
                f"({self.source.segment(stmt)}) of values that depend on the differentiated "
                "argument", stmt, "Build it with a comprehension, or with append in a loop.")
        elif op.kind == "call":
            self.call(stmt, value, op, g, target)
        elif op.kind == "subscript":
            refuse_foreign_index(self, stmt, value)
            if self.wants(value.value):
                self.scatter(value, g, target)
        elif op.kind == "build":
            if isinstance(value, gast.Dict):  # {"w": w, "b": b}: w gets s_d["w"]
                last = {k.value: i for i, k in enumerate(value.keys)}  # (a key written
                items = [(k.value, v) for i, (k, v) in enumerate(  # twice: the last value)
                    zip(value.keys, value.values, strict=True)) if last[k.value] == i]
            else:  # (a display, or a namedtuple's class called: P(w, b))
                items = list(enumerate(value.args if isinstance(value, gast.Call)
                                       else value.elts))
            for key, elt in items:
                if self.wants(elt):
                    if is_generated(self.source):  # the sensitivity may be a 0.0 placeholder
                        part = gast.Call(self.helper("sens_item", "s2sad.runtime_higher"),
                                         [g, gast.Constant(key, None)], [])
                    else:
                        part = gast.Subscript(g, gast.Constant(key, None), gast.Load())
                    if target in self.placeholders:  # (its item may be that 0.0)
                        self.placeholders.add(elt.id)
                    self.accumulate(elt.id, part)
        elif op.kind == "unknown":
            culprit = next((o for o in op.operands if self.wants(o)), None)
            if culprit is not None:
                raise self.source.error(
                    NoDerivativeError,
                    f"no derivative rule for {op.name}, called on "
                    f"{operand_text(culprit.id, self.namer, stmt)}, which depends "
                    f"on the differentiated argument{'s' if len(self.wrt) > 1 else ''}", stmt,
                    op.advice or "Register one with @s2sad.defvjp, wrap the argument in "
                    "s2sad.stop_gradient() if its gradient should not flow, or rewrite the line "
                    "with functions s2sad knows (see s2sad.supported()).")

    def linear(self, node, g, target, negate):
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
            self.linear(node.left, g, target, negate)
            self.linear(node.right, g, target, negate ^ isinstance(node.op, gast.Sub))
        elif self.wants(node):
            self.accumulate(node.id, self.unbroadcast(g, node, target), negate)

    def concatenation(self, stmt, node, g):
        """``ys = a + b``, lists or tuples: ``a`` gets ``s_ys[:len(a)]``, ``b`` the rest."""
        parts = []
        while isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
            parts.insert(0, node.right)
            node = node.left
        parts.insert(0, node)
        if not all(isinstance(p, gast.Name) for p in parts):  # (normalization makes names)
            raise DifferentiationError("internal error: a joined list's part is not a name; "
                                       "please report this")
        start = None
        for i, part in enumerate(parts):
            size = gast.Call(self.load("len"), [self.load(part.id)], [])
            stop = None if i == len(parts) - 1 else size if start is None else \
                gast.BinOp(clone(start), gast.Add(), size)
            if self.wants(part):
                self.accumulate(part.id, gast.Subscript(
                    clone(g), gast.Slice(clone(start) if start is not None else None,
                                         clone(stop) if stop is not None else None, None),
                    gast.Load()))
            start = stop

    def unbroadcast(self, expr, like: gast.Name, ans: str):
        if self._same_shape(like.id, ans):
            return expr
        return gast.Call(self.helper("unbroadcast"), [expr, self.load(like.id)], [])

    def _same_shape(self, a: str, b: str) -> bool:
        ka, kb = self.kind(a), self.kind(b)
        return ka.shape is not None and ka.shape == kb.shape

    def scatter(self, value, g, target: str):
        name = value.value.id
        s = self.s(name)
        inverse = _inverse_view(value.slice, self.newaxis)
        if inverse is not None and self.kind(name).tag in ("array", "numeric", "scalar"):
            # x[:, None] is all of x with an axis put in: the sensitivity is the target's
            # with that axis taken out again, no zeros to add it into (x is an array or a
            # NumPy scalar: a list or a Python number takes no None)
            g = gast.Call(self.helper("unbroadcast"), [g, self.load(target)], [])
            self.accumulate(name, gast.Subscript(g, inverse, gast.Load()) if inverse else g)
            return
        if name not in self.structured:  # zeros shaped like the value, made before the sweep
            self.structured[name] = None
            self.assigned.add(name)
            self.touch(name)
        index = clone(value.slice)
        listed = self.kind(name).tag in ("list", "tuple")
        items = [kind for _, kind in self.kind(name).items] if self.kind(name).tag == "dict" \
            else self.kind(name).items
        if not _has_slice(index) and (self.kind(target).container or (
                self.kind(target).tag == "any" and (any(item.container for item in items) or
                                                    self.kind(name).container and not items))):
            # an item that is a list, tuple or dict itself:
            # its sensitivity adds item by item (`+=` would extend a list)
            part = gast.Subscript(self.load(s), index, gast.Load())
            call = gast.Call(self.helper("add_sens"), [part, g], [])
            self.block.append(gast.Assign([gast.Subscript(self.load(s), clone(index),
                                                          gast.Store())], call, None))
        elif self.kind(name).tag == "dict" or _key(index):  # a dict's item, by its key
            self.block.append(self.add_to_item(s, index, g, self.kind(target), True))
        elif (listed or self.kind(name).tag == "any") and (
                _has_slice(index) or not _basic_index(index, self.kinds, self.newaxis)):
            # a slice of a list: add item by item (`+=` would extend the list); an index
            # of a value that may be a list (np.add.at takes arrays alone)
            index_expr = gast.Subscript(gast.Attribute(self.load(self.imports.numpy()), "s_",
                                                       gast.Load()), index, gast.Load())
            scattered = gast.Call(self.helper("index_grad"), [g, self.load(name), index_expr], [])
            call = gast.Call(self.helper("add_sens"), [self.load(s), scattered], [])
            self.block.append(gast.Assign([self.store(s)], call, None))
        elif _basic_index(index, self.kinds, self.newaxis):
            self.block.append(self.add_to_item(s, index, g, self.kind(target),
                                               self.kind(name).container))
        else:
            np_add_at = gast.Attribute(gast.Attribute(self.load(self.imports.numpy()), "add",
                                                      gast.Load()), "at", gast.Load())
            index_expr = gast.Subscript(gast.Attribute(self.load(self.imports.numpy()), "s_",
                                                       gast.Load()), index, gast.Load())
            self.block.append(gast.Expr(gast.Call(np_add_at, [self.load(s), index_expr, g], [])))

    def add_to_item(self, s: str, index, g, item: Kind, container: bool):
        """``s[index] += g``; in a list, tuple or dict whose item may be an array, a new
        value in the slot instead, ``s[index] = s[index] + g``: the array there may be
        another's too (the parts of one array a rule split, a broadcast view), and ``+=``
        would change it in place."""
        target = gast.Subscript(self.load(s), index, gast.Store())
        if not container or item.tag == "scalar" and item.py in ("float", "int"):
            return gast.AugAssign(target, gast.Add(), g)
        old = gast.Subscript(self.load(s), clone(index), gast.Load())
        return gast.Assign([target], gast.BinOp(old, gast.Add(), g), None)

    def newaxis(self, part) -> bool:
        """Is an index part ``np.newaxis`` (or ``cupy.newaxis``): None by another name?"""
        if not (isinstance(part, gast.Attribute) and part.attr == "newaxis"):
            return False
        try:
            return static_value(part, self.source, self.local_names) is None
        except KeyError:
            return False

    def unpack(self, targets, value):
        if not self.wants(value):
            return
        parts = [self.load(self.s(t)) if t in self.received or t in self.assigned
                 else gast.Constant(0.0, None) for t in targets]
        if any(isinstance(p, gast.Constant) for p in parts):  # `_, q = pair`: pair[0] gets 0.0
            self.placeholders.add(value.id)
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
        if target in self.carried and rule.shape in ("other", "sequence") and \
                self.kind(target).tag not in ("scalar",) and not isinstance(g, gast.Constant) \
                and self.loops and not _reads(self.loops[-1], target):
            # on a pass whose value nothing read, its sensitivity is still zero when this
            # rule reads it: zeros of its shape, not 0.0 (np.stack's adjoint splits it)
            self.shaped.add(target)
        if rule.adjoint is None:
            raise self.source.error(
                NoDerivativeError, f"{op.name} has a tangent (forward-mode) rule but no "
                "adjoint", stmt, "Register one with @s2sad.custom_vjp, or use s2sad.jvp.")
        sig = registry.signature(rule.adjoint)
        try:
            bound = registry.bind(rule.adjoint, (g, self.load(target), *op.operands),
                                  op.keywords)
        except TypeError as exc:
            raise self.source.error(DifferentiationError,
                                    f"{op.name} is called in a way its derivative rule does not "
                                    f"handle: {exc}", stmt, registry.call_hint(rule.func)) from None
        mapping = {}
        for param, arg in bound.items():
            mapping[param] = arg if isinstance(arg, gast.AST) else gast.Constant(arg, None)
        refused = registry.refusal(rule, mapping, self.wants, lambda node: known_value(
            node, self.source, self.local_names, self.kind))
        if refused is not None:  # (an argument the rule does not model: never a zero)
            raise self.source.error(NoDerivativeError, refused[0], stmt, refused[1])
        maybe_zero = rule.shape in ("other", "sequence") and (
            target not in self.sure or target in self.placeholders) and \
            target != self.returned  # its sensitivity came in a branch only: maybe still 0.0
        if not isinstance(g, gast.Constant) and (is_helper(rule.func) or maybe_zero or (
                is_generated(self.source) and rule.shape not in ("elementwise", "scalar"))):
            # differentiating generated code: a sensitivity may still be its 0.0 placeholder,
            # and the helpers' adjoints (np.matmul...) need it shaped like the result
            mapping[next(iter(sig.parameters))] = gast.Call(
                self.helper("broadcast_like", "s2sad.runtime_higher"), [g, self.load(target)], [])
        params = list(sig.parameters)[2:]
        try:
            pre, returned = rule.parsed()
        except (TypeError, OSError):  # not one `return` (or no source): call it instead
            self.call_by_reference(rule, rule.adjoint, op, g, target, mapping, params)
            return
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
    part = host.helper("rule_part", "s2sad.runtime_higher")
    return [(i, gast.Call(part, [gast.Name(out, gast.Load(), None, None),
                                 gast.Constant(i, None)], [])) for i in wanted]


def _stored(stmts) -> set[str]:
    return {n.id for s in stmts for n in trees.walk(s) if isinstance(n, gast.Name) and
            isinstance(n.ctx, gast.Store)}


def _definite(stmts) -> set[str]:
    """The names ``stmts`` assign on every path (a loop may run no pass)."""
    names: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, gast.If):
            names |= _definite(stmt.body) & _definite(stmt.orelse)
        elif not isinstance(stmt, (gast.For, gast.While)):
            names |= {n.id for t in getattr(stmt, "targets", []) for n in trees.walk(t)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    return names


def _reads(node, name: str) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for n in trees.walk(node))


def _breaks(loop) -> bool:
    """Does ``loop`` itself (not an inner loop) contain ``break``?"""
    def walk(node):
        if isinstance(node, gast.Break):
            return True
        if isinstance(node, (gast.For, gast.While)) and node is not loop:
            return False
        return any(walk(child) for child in gast.iter_child_nodes(node))
    return walk(loop)


def _carried(stmts, params=()) -> set[str]:
    """Names with more than one value: assigned in a block, twice (an inlined helper's
    `if` on a constant, taken at once; a parameter, ``params``, once: it had the
    caller's value first), or updated in place."""
    names, once = set(), set(params)
    for stmt in stmts:
        if isinstance(stmt, gast.Assign):
            for target in stmt.targets:
                for node in trees.walk(target):
                    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                        (names if node.id in once else once).add(node.id)
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            names |= {n.id for n in trees.walk(stmt) if isinstance(n, gast.Name)
                      and isinstance(n.ctx, gast.Store)}
        for node in trees.walk(stmt):
            if not isinstance(node, (gast.Assign, gast.Expr)):
                continue  # (the only statements that update a value in place)
            if is_setitem(node):
                names.add(node.targets[0].value.id)
            if is_append(node):
                names.add(node.value.func.value.id)
            if is_pop(node):
                names.add(node.value.func.value.id)
    return names


def is_pop(stmt) -> bool:
    """``x = ys.pop()`` on a list ``ys`` (the reverse sweep of a gradient reads its stack so)."""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call) and \
        isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "pop" and \
        isinstance(stmt.value.func.value, gast.Name) and not stmt.value.args and \
        not stmt.value.keywords


def _mutates_in_place(stmts) -> bool:
    return any(is_setitem(n) or is_append(n) or is_pop(n)
               for s in stmts for n in trees.walk(s))


_RESTORE = "__s2sad_restore_"
_RESET = "__s2sad_reset_"


class _Markers(trees.Transformer):
    """A pass over the statements, for markers: statements of their own (``Expr``), never
    inside another simple statement."""

    def __init__(self, reverse):
        self.reverse = reverse

    def visit_Assign(self, node):
        return node

    visit_AugAssign = visit_Return = visit_Assign


class _Resets(_Markers):
    """Turn reset placeholders into ``s = 0.0`` (before the restore) or, for a sensitivity
    updated element by element, ``s = zeros_like_structure(x)`` (after it)."""

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Name) and node.value.id.startswith(_RESET):
            where, index = node.value.id[len(_RESET):].split("_")
            name = self.reverse.resets[int(index)]
            structured = name in self.reverse.structured or name in self.reverse.shaped
            if where == "pre" and not structured:
                value = gast.Constant(0.0, None)
            elif where == "post" and structured:
                value = self.reverse.zeros_of(name)
            else:
                return None
            assign = gast.Assign([self.reverse.store(self.reverse.s(name))], value, None)
            return gast.copy_location(assign, node)
        return node


def _restore_marker(stmt):
    """Where the value ``stmt`` overwrote is restored, if the forward sweep saved it."""
    return gast.Expr(gast.Name(f"{_RESTORE}{id(stmt)}", gast.Load(), None, None))


class _Restores(_Markers):
    """Turn restore markers into ``x = stack.pop()`` where the forward sweep pushed ``x``."""

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Name) and node.value.id.startswith(_RESTORE):
            key = int(node.value.id[len(_RESTORE):])
            if key not in self.reverse.saved:
                return None
            stmt = self.reverse.saved_stmts[key]
            if is_append(stmt):
                pop = gast.Attribute(clone(stmt.value.func.value), "pop", gast.Load())
                return gast.copy_location(gast.Expr(gast.Call(pop, [], [])), stmt)
            if is_setitem(stmt):
                target = clone(stmt.targets[0])
                if self.reverse.new_key(stmt):  # the saved value back, or the new key out
                    call = gast.Call(self.reverse.helper("restore_item"), [
                        clone(target.value), clone(target.slice), self.reverse.pop()], [])
                    return gast.copy_location(gast.Expr(call), stmt)
                return gast.copy_location(gast.Assign([target], self.reverse.pop(), None), stmt)
            if is_pop(stmt):
                name, ys = stmt.targets[0].id, stmt.value.func.value.id
                out = []
                if ys in self.reverse.needed:
                    push = gast.Attribute(self.reverse.load(ys), "append", gast.Load())
                    out.append(gast.Expr(gast.Call(push, [self.reverse.load(name)], [])))
                if name in self.reverse.pushed.get(key, ()):
                    out.append(gast.Assign([self.reverse.store(name)], self.reverse.pop(), None))
                return [gast.copy_location(s, stmt) for s in out]
            if isinstance(stmt, gast.For):
                names = [stmt.target.id]
            else:
                names = statement_parts(stmt)[0]
            names = [n for n in names if n in self.reverse.carried and n in self.reverse.needed]
            return [gast.copy_location(gast.Assign([self.reverse.store(n)], self.reverse.pop(),
                                                   None), stmt) for n in reversed(names)]
        return node


def _drop_empty_comments(stmts: list) -> list:
    """Blocks that turned out empty (nothing was restored in them) go, with their comments."""
    from ..codegen import comment_text, is_note

    def empty(block):
        return all(isinstance(s, gast.Pass) or comment_text(s) is not None for s in block)

    out = []
    for stmt in reversed(stmts):
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            stmt.body = _drop_empty_comments(stmt.body)
            stmt.orelse = _drop_empty_comments(stmt.orelse)
            if empty(stmt.body) and empty(stmt.orelse):
                continue
            if empty(stmt.body):
                stmt.body = [gast.Pass()]
        if comment_text(stmt) is not None and not is_note(stmt) and \
                (not out or comment_text(out[-1]) is not None and not is_note(out[-1])):
            continue  # (a heading over nothing)
        out.append(stmt)
    return out[::-1]


def _pushed(stmt, stack, shape_of=None) -> set[str]:
    """The names ``stmt`` saves on ``stack`` (``stack.append(x)``, or ``x``'s shape:
    ``stack.append(shape_of(x))``, ``shape_of`` the helper's name in the code)."""
    if stack is None:
        return set()
    names = set()
    for node in trees.walk(stmt):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                node.func.attr == "append" and isinstance(node.func.value, gast.Name) and \
                node.func.value.id == stack and node.args:
            saved = node.args[0]
            if isinstance(saved, gast.Call) and isinstance(saved.func, gast.Name) and \
                    saved.func.id == shape_of and len(saved.args) == 1:
                saved = saved.args[0]
            if isinstance(saved, gast.Name):
                names.add(saved.id)
    return names


def _value_reads(nodes, helpers: dict) -> set[str]:
    """The names ``nodes`` read for their value, not only as the argument whose shape
    alone a helper reads (``helpers``: see ``shape_arguments``)."""
    for_shape = {id(n) for n in shape_arguments(nodes, helpers)}
    return {n.id for n in nodes if type(n) is gast.Name and type(n.ctx) is gast.Load and
            id(n) not in for_shape}


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
    forward pass)."""
    if not isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return
    operands = [n for n in trees.walk(value) if isinstance(n, gast.Name)]  # (a + b - c)
    foreign = next((o for o in operands if sweep.kinds.get(o.id, ANY).foreign), None)
    culprit = next((o for o in operands if sweep.wants(o)), None)
    if foreign is not None and culprit is not None:
        raise sweep.source.error(
            NoDerivativeError, f"no derivative rule for the operator {_op_symbol(value.op)} on "
            f"{operand_text(foreign.id, sweep.namer, stmt)}, which is not a number or a NumPy "
            f"array, and {operand_text(culprit.id, sweep.namer, stmt)}, which depends on the "
            f"differentiated argument{'s' if len(sweep.wrt) > 1 else ''}", stmt, FOREIGN_ADVICE)


def _has_slice(index) -> bool:
    return any(isinstance(n, gast.Slice) for n in trees.walk(index))


def _inverse_view(index, newaxis=lambda part: False):
    """For an index that takes all of an array and puts in axes of length 1 (``:``,
    ``None``, ``...``), the index that takes them out again (``None`` -> ``0``), or
    ``False`` where it puts in none; None for any other index. ``newaxis(part)``: is the
    part another name of None (``np.newaxis``)?

    >>> import gast
    >>> from s2sad.codegen import unparse
    >>> def inverse(text):
    ...     found = _inverse_view(gast.parse(f"x[{text}]").body[0].value.slice)
    ...     return found if not found else unparse(found)
    >>> inverse(":, None"), inverse("None, ..., None"), inverse(":, :"), inverse("1:, None")
    ('(:, 0)', '(0, ..., 0)', False, None)
    >>> found = _inverse_view(gast.parse("x[np.newaxis, :]").body[0].value.slice,
    ...                       lambda part: isinstance(part, gast.Attribute))
    >>> unparse(found)
    '(0, :)'
    """
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    inverse, inserted = [], False
    for part in parts:
        if isinstance(part, gast.Slice) and part.lower is None and part.upper is None and \
                part.step is None:
            inverse.append(gast.Slice(None, None, None))
        elif isinstance(part, gast.Constant) and part.value is Ellipsis:
            inverse.append(gast.Constant(Ellipsis, None))
        elif isinstance(part, gast.Constant) and part.value is None or newaxis(part):
            inverse.append(gast.Constant(0, None))
            inserted = True
        else:
            return None
    if not inserted:
        return False
    return inverse[0] if len(inverse) == 1 else gast.Tuple(inverse, gast.Load())


def _key(index) -> bool:
    """Is ``index`` a dict's key written out (``p["w"]``)?"""
    return isinstance(index, gast.Constant) and isinstance(index.value, str)


def _basic_index(index, kinds, newaxis) -> bool:
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    for part in parts:
        if isinstance(part, gast.Slice) or newaxis(part):
            continue
        if isinstance(part, gast.Constant) and (part.value is None or part.value is Ellipsis
                                                or isinstance(part.value, int)):
            continue
        if isinstance(part, gast.Name) and kinds.get(part.id, ANY).tag == "scalar":
            continue
        return False
    return True


class _Inliner(trees.Copier):
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
        return self.visit(assign)

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


__all__ = ["Reverse", "runtime"]
