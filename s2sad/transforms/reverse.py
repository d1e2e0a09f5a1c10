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

A value unused on the path taken adds nothing, even where its slope is NaN: its rule is
left out, or runs under ``if got_y:`` where only some paths use it (see
:mod:`.structural_zeros`).

The reverse sweep is here; the forward sweep and the tape of overwritten values are in
:mod:`.tape`, and the instantiation of a rule with a statement's names in :mod:`.instantiate`.
"""

from __future__ import annotations


import gast

from .. import trees
from .. import registry, runtime
from ..registry import is_helper
from ..codegen import comment, comment_text, is_note
from ..errors import DifferentiationError, NoDerivativeError
from ..runtime import (add_sens, as_gradient, index_grad, output_seed, pack_like, plus_part,
                       repeated_list_grad,
                       unbroadcast,
                       written_part, zeros_like_structure)
from ..runtime.higher import add_at, broadcast_like, sens_item, sens_like, snapshot
from ..trees import clone, located
from .fixed_shapes import fixed_shapes
from .shape_only import shape_arguments, shape_helpers
from .kinds import ANY, Kind
from .objects import differentiated_attribute, held_object, not_a_parameter
from ..trees import assigned_names
from .higher import container_kinds, is_generated
from .activity import shift_invariant
from .resolve import (classify, is_append, is_setitem, known_value, missing_attribute,
                      names_in, operand_text, static_value, statement_parts, user_name)
from .instantiate import (RuleInliner, call_rule, held_function, refuse_foreign_index,
                          refuse_foreign_operand)
from .structural_zeros import StructuralZeros
from .tape import (Tape, _Restores, _breaks, _carried, _drop_empty_comments, _mutates_in_place,
                   _restore_marker, is_pop)


class Reverse(StructuralZeros, Tape):
    """The adjoint of one normalized function (see the module's docstring).

    The forward sweep and its tape (pushes, pops, trip counts) are the :class:`Tape` mixin's;
    a rule is put into the code by :mod:`.instantiate`; the rest, here, is the reverse sweep.
    """

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
        # (first terms of those, added into zeros: id -> (name, statement), see
        # _plain_first_terms)
        self.placeholder_firsts: dict[int, tuple] = {}
        self.live_aliases: dict = {}
        self.block: list = []
        self.flags: dict[str, str] = {}  # name -> the flag saying s_name was added to
        self.init_zeros()

    # --- helpers ---------------------------------------------------------------------------

    def s(self, name: str) -> str:
        return self.namer.sens(name)

    def kind(self, name) -> Kind:
        return self.kinds.get(name, ANY)

    def helper(self, function) -> gast.Name:
        return gast.Name(self.imports.helper(function), gast.Load(), None, None)

    def zeros_of(self, name: str, restored: bool = False) -> gast.expr:
        """Zeros shaped like ``name``, to be updated item by item: ``[0.0] * len(x)`` for a
        list or tuple of Python numbers, else ``zeros_like_structure(x)``. ``restored``:
        after the reverse sweep restored the value a loop overwrote, which is the None that
        a name holds before its loop unless a parameter or a top-level line gave it one
        (``zeros_like_structure(None)`` is 0.0), or which the sweep's top finds None where
        the branch that sets it did not run (``early_none``)."""
        kind = self.kind(name)
        if restored and name not in self._parameters() and name not in {
                t.id for stmt in self.tree.body if isinstance(stmt, gast.Assign)
                for t in stmt.targets if isinstance(t, gast.Name)}:
            return gast.Call(self.helper(zeros_like_structure), [self.load(name)], [])
        if kind.tag in ("list", "tuple") and kind.items and name not in self.checked and \
                name not in self._given_none() and \
                name not in getattr(self, "early_none", ()) and \
                all(k.tag == "scalar" and k.py in ("float", "int") for k in kind.items) and \
                "len" not in self.local_names and "len" not in self.source.globals:
            length = gast.Call(gast.Name("len", gast.Load(), None, None), [self.load(name)], [])
            return gast.BinOp(gast.List([gast.Constant(0.0, None)], gast.Load()), gast.Mult(),
                              length)
        return gast.Call(self.helper(zeros_like_structure), [self.load(name)], [])

    def _given_none(self) -> set:
        """The names a line gives None (``t_3 = None``, ``a, b = (None, None)``: a loop's
        saved value before its first pass), which a restore gives back: their kinds say
        what their other lines give, so their zeros are ``zeros_like_structure``'s (0.0
        for None)."""
        found = self.__dict__.get("_nones")
        if found is None:
            found = self._nones = set()
            for stmt in trees.walk(self.tree):
                if not isinstance(stmt, gast.Assign):
                    continue
                values = stmt.value.elts if isinstance(stmt.value, gast.Tuple) else \
                    [stmt.value]
                targets = stmt.targets[0].elts if isinstance(stmt.targets[0], gast.Tuple) \
                    else stmt.targets
                for target, value in zip(targets, values):
                    if isinstance(target, gast.Name) and isinstance(value, gast.Constant) \
                            and value.value is None:
                        found.add(target.id)
        return found

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
                not self.loops and not self.branch_depth and name not in self.placeholders:
            # (the first term, where it is the only one: a loop's passes or another path
            # add to it, or leave it zero, so there it starts from zeros and adds; a part
            # of a pair whose other part is unread may be its 0.0, which add_sens turns
            # into the zeros an item is then added into: `c, v = (store, store[-1])`)
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
            call = gast.Call(self.helper(add_sens), [self.load(s), expr], [])
            self.block.append(gast.Assign([self.store(s)], call, None))
            if kind.container and name not in self.received and name not in self.carried \
                    and not self.loops and not self.branch_depth:  # (a placeholder's)
                self.placeholder_firsts[id(self.block[-1])] = (name, self.block[-1])
        self.received[name] = None  # (where it is already, it keeps its place)
        self.note_addition(name, self.block[-1])
        if self.branch_depth == 0:
            self.note_sure(name)

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
        if self.kind(returned).tag != "scalar" or returned in self.carried or seed_name or \
                self.source.complex:  # (output_seed refuses a complex value)
            s_ret = self.s(returned)
            value = gast.Constant(1.0, None) if self.kind(returned).tag == "scalar" and \
                not self.source.complex else \
                gast.Call(self.helper(output_seed), [self.load(returned)], [])
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
        reverse = self._finish_resets(self.settle_zeros(self.reverse_block(forward,
                                                                           in_loop=False)))
        reverse = self._plain_first_terms(reverse)
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
        self.one_shape = fixed_shapes(self.tree, self.kinds, self.source.resolve,
                                      "range" not in self.source.globals and
                                      "range" not in self.source.closure) \
            if self.shape_only else set()
        for node in trees.walk(gast.Module(forward, [])):
            if is_pop(node) and node.value.func.value.id in self.needed:
                self.needed.add(node.targets[0].id)  # `ys.append(x)` puts it back
                self.shape_only.discard(node.targets[0].id)
        self._stored_views(forward)
        self.saved: set[int] = set()
        self.saved_stmts: dict[int, object] = {}
        self.maybe: set[str] = set()
        self.early_none: set[str] = set()
        self.perhaps: set[str] = set()  # (names a branch or a loop may have set: tape)
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
        reverse = self._structure_zeros(reverse)
        zero = self._zero_init() + [gast.Assign([self.store(flag)], gast.Constant(False, None),
                                                None) for flag in self.flags.values()]
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
                self.helper(snapshot), [self.load(self.aux)], []),
                None)]
            self.aux = kept
        result = self._result(returned)
        new = gast.FunctionDef(prefix + self.tree.name, args,
                               zero + fwd + keep + head + reverse + [result],
                               [], None, None)
        return gast.copy_location(new, self.tree)

    def _structure_zeros(self, reverse: list) -> list:
        """The zeros of each value the sweep updates item by item, made at the sweep's top;
        where a line before the first that reads them grows a list (at second order, a
        first sweep's ``pools.pop()`` is undone by ``pools.append(item)``), just before
        that line, the value sized as it is there: zeros made at the top would be too
        short."""
        out = list(reverse)
        for name in reversed(list(self.structured)):
            s = self.s(name)
            at = next((i for i, stmt in enumerate(out) if any(
                isinstance(n, gast.Name) and n.id == s for n in trees.walk(stmt))), 0)
            if not any(_grows_a_list(stmt) for stmt in out[:at]):
                at = 0  # (nothing grows before it: at the top, where a reader looks first)
            while at and comment_text(out[at - 1]) is not None and not is_note(out[at - 1]):
                at -= 1  # (before the comment that heads that line)
            out.insert(at, gast.Assign([self.store(s)], self.zeros_of(name), None))
        return out

    def _stored_views(self, forward) -> None:
        """An array updated item by item (``a[i] = c``) is saved and restored where the
        sweep reads a view of it (``t_2 = a[:3]``, ``a.T``, ``np.reshape(a, s)``): the
        store changes what the view reads, even where ``a`` carries no derivative (a
        list's or a dict's item is no view: its store changes no value read). The
        sweep restores the item at the store's index: a name in it (``i`` of a while
        loop, set again by ``i = i + 1``) is restored too."""
        module = gast.Module(forward, [])
        stores = [node for node in trees.walk(module)
                  if isinstance(node, gast.Assign) and is_setitem(node)]
        stored = {node.targets[0].value.id for node in stores if self.kind(
            node.targets[0].value.id).tag in ("array", "numeric")} - self.needed
        if stored:
            from .forward_substitution import _memory, view_arguments
            groups = _memory(module, view_arguments(self.source, self.imports))
            for name in list(self.needed):
                self.needed |= groups.get(name, set()) & stored
        for node in stores:
            if node.targets[0].value.id in self.needed:
                self.needed |= {n.id for n in trees.walk(node.targets[0].slice)
                                if isinstance(n, gast.Name)}

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

    def _plain_first_terms(self, reverse: list) -> list:
        """``s_1 = add_sens(s_1, (0.0, s_logdet))``, a container's first term holding a
        0.0 placeholder, written ``s_1 = (0.0, s_logdet)`` where no later line adds into
        an item of ``s_1`` (``s_1[0] = ...``, ``np.add.at(s_1, ...)``), nor reads one
        unless the term is a display (``s_6[0]`` of a bare 0.0 would fail): only there
        must it start from zeros of the value's structure. Nor where a line before reads
        ``s_1`` (it keeps its 0.0 start)."""
        for at, stmt in enumerate(reverse):
            found = self.placeholder_firsts.get(id(stmt))
            if found is None:
                continue
            name, s = found[0], self.s(found[0])
            display = isinstance(stmt.value.args[1], (gast.Tuple, gast.List, gast.Dict))
            later = [n for after in reverse[at + 1:] for n in trees.walk(after)]
            if any(isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) and
                   n.value.id == s and not (display and isinstance(n.ctx, gast.Load)) or
                   isinstance(n, gast.Call) and n.args and
                   isinstance(n.args[0], gast.Name) and n.args[0].id == s and
                   (isinstance(n.func, gast.Attribute) and n.func.attr == "at" or
                    isinstance(n.func, gast.Name) and n.func.id.endswith("add_at"))
                   for n in later):
                continue
            if any(isinstance(n, gast.Name) and n.id == s for before in reverse[:at]
                   for n in trees.walk(before)):
                continue
            stmt.value = stmt.value.args[1]
            self.assigned.add(name)
        return reverse

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
        # (on numba, an array's sensitivity a kept guard reads or adds to: zeros shaped
        # like the argument whose shape it has, an array on every path: _unguardable)
        starts = getattr(self, "array_starts", {})
        structures += [gast.Assign([self.store(self.s(n))], gast.Call(
            self.helper(zeros_like_structure), [self.load(starts[n])], []), None)
            for n in names if n in starts]
        names = [n for n in names if n not in starts]
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
            if kind.tag == "scalar" and kind.py == "float" and \
                    not self.imports.backend.settles:  # (Dask: float() would compute it alone)
                if self.source.complex and name in self.received:  # (the real part)
                    value = gast.Attribute(value, "real", gast.Load())
                grads.append(gast.Call(self.load("float"), [value], []) if name in self.received
                             else value)
            else:
                grads.append(gast.Call(self.helper(as_gradient), [self.load(name), value], []))
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
        if is_setitem(stmt) and self.kind(targets[0]).tag == "dict" and \
                any(isinstance(n, gast.Name) and n.id in self.active
                    for n in trees.walk(stmt.targets[0].slice)):
            raise self.source.error(  # (its keys come back by `for k in d`, `d.items()`)
                NoDerivativeError, "no derivative rule for a dict key that depends on the "
                "differentiated argument", stmt, "Key the dict by names or numbers that do "
                "not depend on it (d['w'] = x), or keep the values in a list.")
        carried = [t for t in targets if t in self.carried]
        if len(targets) == 1 and isinstance(value, gast.Name) and value.id == targets[0] \
                and not is_setitem(stmt):  # (`y[::-1] = y` moves values: it is no `s = s`)
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
            g = seed if targets[0] == returned and targets[0] not in self.carried \
                else self.load(self.s(targets[0]))
            if isinstance(g, gast.Name) and self.may_guard(targets[0], value):
                self.guarded_rule(targets[0], lambda: self.single(stmt, targets[0], value, g))
            else:
                self.sources = (targets[0],) if isinstance(g, gast.Name) else None
                self.single(stmt, targets[0], value, g)
                self.sources = None
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
            part = gast.Call(self.helper(written_part), [self.load(s), index], [])
        elif not self.kind(name).container:  # a copy: s_y[i] is cleared next (in an array)
            part = gast.Call(gast.Attribute(self.load(self.imports.numpy()), "array",
                                            gast.Load()), [part], [])
        if self.wants(value):
            from .kinds import _subscript_kind
            part_kind = _subscript_kind(self.kind(name), target.slice, self.kind_of_node)
            if self.kind(value.id).container or part_kind.container or (  # a list or tuple
                    self.kind(name).container and self.kind(value.id).tag == "any"):  # (may
                part = gast.Call(self.helper(sens_like),  # be)
                                 [part, self.load(value.id)], [])  # stored: item by item
            elif not (part_kind.shape is not None and
                      part_kind.shape == self.kind(value.id).shape):
                part = gast.Call(self.helper(unbroadcast), [part, self.load(value.id)], [])
            if value.id == name:  # `y[::-1] = y`: the part is taken before it is cleared
                kept = self.namer.fresh("moved")
                self.block.append(gast.Assign([self.store(kept)], part, None))
                part = self.load(kept)
            elif self.kind(name).container:
                item = gast.Subscript(self.load(s), clone(target.slice), gast.Load())
                self.item_addition(name, item, lambda: self.accumulate(value.id, part))
                part = None
            else:
                self.accumulate(value.id, part)
                part = None
        clear = gast.Subscript(self.load(s), clone(target.slice), gast.Store())
        self.block.append(gast.Assign([clear], gast.Constant(0.0, None), None))
        if self.kind(name).container:  # (the item overwritten got nothing yet)
            self.nothings[id(self.block[-1])] = name
        if self.wants(value) and part is not None:
            self.accumulate(value.id, part)

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
                    item = gast.Call(self.helper(sens_like),
                                     [item, self.load(name)], [])
            else:
                item = gast.Constant(0.0, None)
                self.nothings[id(item)] = ys
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
            self.item_addition(name, last, lambda: self.accumulate(value.id, last))
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
        if differentiated_attribute(value, self):  # `w = model.W`, model differentiated:
            # its sensitivity is a dict of its attributes' ({"W": s_w}), made an object
            # of its class by as_gradient at the end (s2sad.runtime.object_gradient)
            if not not_a_parameter(self.source, value):
                self.accumulate(value.value.id,
                                gast.Dict([gast.Constant(value.attr, None)], [g]))
            return
        refuse_foreign_operand(self, stmt, value)
        op = classify(value, self.source, self.local_names)
        if op.kind == "copy":
            if self.wants(value):
                self.accumulate(value.id, g)
        elif op.kind == "linear" and self.kind(target).tag in ("list", "tuple"):
            self.concatenation(stmt, value, g)
        elif op.kind == "linear" and self.maybe_joined(value):
            self.plus_parts(value, g)
        elif op.kind == "linear":
            self.linear(value, g, target, negate=False)
        elif op.kind == "call" and self.kind(target).tag in ("list", "tuple") and \
                isinstance(value, gast.BinOp) and any(self.wants(o) for o in op.operands):
            self.repetition(stmt, value, g)
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
                        part = gast.Call(self.helper(sens_item),
                                         [g, gast.Constant(key, None)], [])
                    else:
                        part = gast.Subscript(g, gast.Constant(key, None), gast.Load())
                    if target in self.placeholders:  # (its item may be that 0.0)
                        self.placeholders.add(elt.id)
                    whole = self.sources
                    if whole is not None:  # (it moves that item's sensitivity on)
                        self.sources = ((target, key),)
                    self.item_addition(target, part, lambda: self.accumulate(elt.id, part))
                    self.sources = whole
        elif op.kind == "unknown":
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
                    "Register one with @s2sad.defvjp, wrap the argument in "
                    "s2sad.stop_gradient() if its gradient should not flow, or rewrite the line "
                    "with functions s2sad knows (see s2sad.supported()).")

    def linear(self, node, g, target, negate):
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
            self.linear(node.left, g, target, negate)
            self.linear(node.right, g, target, negate ^ isinstance(node.op, gast.Sub))
        elif self.wants(node):
            self.accumulate(node.id, self.unbroadcast(g, node, target), negate)

    def repetition(self, stmt, node, g):
        """``ys = items * n`` (or ``n * items``), a list or tuple repeated: ``items`` gets
        ``repeated_list_grad(s_ys, items, n)``, the sum of its copies' sensitivities."""
        items, n = (node.left, node.right) if self.kind_of_node(node.left).tag in (
            "list", "tuple") else (node.right, node.left)
        if self.kind_of_node(items).tag not in ("list", "tuple") or self.wants(n):
            raise self.source.error(
                NoDerivativeError, "no derivative rule for repeating a list or tuple "
                f"({self.source.segment(stmt)}) by a count s2sad cannot tell apart", stmt,
                "Build it with a comprehension, or with append in a loop.")
        self.accumulate(items.id, gast.Call(self.helper(repeated_list_grad),
                                            [g, self.load(items.id), clone(n)], []))

    def concatenation(self, stmt, node, g):
        """``ys = a + b``, lists or tuples: ``a`` gets ``s_ys[:len(a)]``, ``b`` the rest."""
        def joined(part):  # (a + b + c, a + (b + c): the parts in order)
            if isinstance(part, gast.BinOp) and isinstance(part.op, gast.Add):
                return joined(part.left) + joined(part.right)
            return [part]

        parts = joined(node)
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

    @staticmethod
    def _joined_parts(node) -> list:
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
            return Reverse._joined_parts(node.left) + Reverse._joined_parts(node.right)
        return [node]

    def maybe_joined(self, node) -> bool:
        """``a + b`` where a part is a list or tuple and another's kind is not known (a
        value a loop carries, popped off a stack at second order): joined, or added (an
        array plus a tuple), as it turns out when it runs."""
        if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add)):
            return False
        kinds = [self.kind(p.id) if isinstance(p, gast.Name) else ANY
                 for p in self._joined_parts(node)]
        return any(k.tag in ("list", "tuple") for k in kinds) and \
            all(k.tag in ("list", "tuple", "any") for k in kinds)

    def plus_parts(self, node, g):
        """``ys = a + b``, ``a`` a tuple and ``b`` of a kind known only when it runs: each
        part gets ``plus_part(s_ys, i, (a, b))``, its slice of ``s_ys`` where the parts
        were joined, ``s_ys`` summed to its shape where they were added."""
        parts = self._joined_parts(node)
        if not all(isinstance(p, gast.Name) for p in parts):  # (normalization makes names)
            raise DifferentiationError("internal error: a joined list's part is not a name; "
                                       "please report this")
        every = gast.Tuple([self.load(p.id) for p in parts], gast.Load())
        for i, part in enumerate(parts):
            if self.wants(part):
                self.accumulate(part.id, gast.Call(self.helper(plus_part), [
                    clone(g), gast.Constant(i, None), clone(every)], []))

    def unbroadcast(self, expr, like: gast.Name, ans: str):
        if self._same_shape(like.id, ans):
            return expr
        decided = self.decided_unbroadcast(expr, like.id, ans)
        helper = gast.Call(self.helper(unbroadcast), [expr, self.load(like.id)], [])
        if decided is not None and decided is not expr:
            # (s_ans may be left 0.0 where a guard is skipped: no axes to sum over)
            return self.lazy(None, decided, helper, ans)
        return helper if decided is None else decided

    def decided_unbroadcast(self, expr, like: str, ans: str):
        """``unbroadcast(expr, like)``, ``expr`` shaped like ``ans``, as the kinds decide
        it where they say which axes of both have length 1 (``Kind.ones``): ``expr``
        itself, or ``np.sum(expr, axis=0)`` over the axes the broadcast put in front;
        None where they do not say, where it spread an axis of length 1 (the helper
        stays: ``EarlySums`` reads it), or where ``ans``'s sensitivity may be a 0.0
        placeholder, which has no axes."""
        small, big = self.kind(like), self.kind(ans)
        ones = [() if k.tag == "scalar" else k.ones for k in (small, big)]
        if small.ndim is None or big.ndim is None or None in ones or \
                small.ndim > big.ndim or not small.numeric or not big.numeric:
            return None
        lead = big.ndim - small.ndim
        spread = tuple(a for a in ones[0] if lead + a not in ones[1])
        if not lead and not spread:
            return expr
        if ans in self.placeholders or spread:  # (a spread axis: the helper stays, which
            return None  # EarlySums sums early, before a product: means[:, None, :])

        def axes(values):
            return gast.Constant(values[0], None) if len(values) == 1 else \
                gast.Tuple([gast.Constant(v, None) for v in values], gast.Load())

        def total(value, keywords):
            return gast.Call(gast.Attribute(self.load(self.imports.numpy()), "sum",
                                            gast.Load()), [value], keywords)
        return total(expr, [gast.keyword("axis", axes(tuple(range(lead))))]
                     if small.ndim else [])

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
            g = gast.Call(self.helper(unbroadcast), [g, self.load(target)], [])
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
        layer = held_object(self, target)  # (an object of a model's list: its sens a dict)
        if not _has_slice(index) and (layer or self.kind(target).container or (
                self.kind(target).tag == "any" and (any(item.container for item in items) or
                                                    self.kind(name).container and not items or
                                                    self.kind(name).tag == "any"))):
            # an item that is a list, tuple or dict itself, or may be (an item of a value
            # of unknown kind: x.tolist()'s rows): its sensitivity adds item by item (`+=`
            # would extend a list)
            part = gast.Subscript(self.load(s), index, gast.Load())
            call = gast.Call(self.helper(add_sens), [part, g], [])
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
            scattered = gast.Call(self.helper(index_grad), [g, self.load(name), index_expr], [])
            call = gast.Call(self.helper(add_sens), [self.load(s), scattered], [])
            self.block.append(gast.Assign([self.store(s)], call, None))
        elif _basic_index(index, self.kinds, self.newaxis):
            self.block.append(self.add_to_item(s, index, g, self.kind(target),
                                               self.kind(name).container))
        else:
            np_add_at = gast.Attribute(gast.Attribute(self.load(self.imports.numpy()), "add",
                                                      gast.Load()), "at", gast.Load())
            index_expr = gast.Subscript(gast.Attribute(self.load(self.imports.numpy()), "s_",
                                                       gast.Load()), index, gast.Load())
            if self.imports.backend.settles:  # (Dask: no add.at, no array written in place)
                call = gast.Call(self.helper(add_at), [self.load(s), index_expr, g], [])
                self.block.append(gast.Assign([self.store(s)], call, None))
                return
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
        if not item.numeric:  # (an item that may be a list: `+` would join two lists, and
            return gast.Assign([target], gast.Call(  # its items' sensitivities be lost)
                self.helper(add_sens), [old, g], []), None)
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
        self.items = tuple(t if isinstance(p, gast.Name) else None
                           for t, p in zip(targets, parts, strict=True))
        if kind.tag == "list":
            expr = gast.List(parts, gast.Load())
        elif kind.tag == "tuple":
            expr = gast.Tuple(parts, gast.Load())
        else:
            expr = gast.Call(self.helper(pack_like),
                             [self.load(value.id), gast.List(parts, gast.Load())], [])
        self.sources = ()
        self.accumulate(value.id, expr)
        self.sources = self.items = None

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
                                    f"handle: {exc}", stmt, registry.call_hint(rule.func, exc)) from None
        mapping = {}
        for param, arg in bound.items():
            mapping[param] = arg if isinstance(arg, gast.AST) else gast.Constant(arg, None)
        refused = registry.refusal(rule, mapping, self.wants, lambda node: known_value(
            node, self.source, self.local_names, self.kind))
        if refused is not None:  # (an argument the rule does not model: never a zero)
            raise self.source.error(NoDerivativeError, refused[0], stmt, refused[1])
        placeholder = target in self.placeholders or self.maybe_placeholder(target)
        maybe_zero = rule.shape in ("other", "sequence") and placeholder is not False and \
            target != self.returned  # its sensitivity came in a branch only: maybe still 0.0
        if not isinstance(g, gast.Constant) and (is_helper(rule.func) or maybe_zero or (
                is_generated(self.source) and rule.shape not in ("elementwise", "scalar"))):
            # differentiating generated code: a sensitivity may still be its 0.0 placeholder,
            # and the helpers' adjoints (np.matmul...) need it shaped like the result
            spread = gast.Call(self.helper(broadcast_like), [g, self.load(target)], [])
            mapping[next(iter(sig.parameters))] = spread if placeholder is not None or \
                is_helper(rule.func) or is_generated(self.source) and rule.shape not in (
                    "elementwise", "scalar") else \
                self.lazy(self.guarded_sure[target], clone(g), spread)
        params = list(sig.parameters)[2:]
        try:
            pre, returned = rule.parsed()
        except (TypeError, OSError):  # not one `return` (or no source): call it instead
            self.call_by_reference(rule, rule.adjoint, op, g, target, mapping, params)
            return
        parts = returned.elts if isinstance(returned, gast.Tuple) else [returned]
        for i, param in enumerate(params):  # (no part: a function holding values? refused)
            if i >= len(parts) or isinstance(parts[i], gast.Constant) and parts[i].value is None:
                check = held_function(self, stmt, rule, param, mapping.get(param))
                self.block.extend([check] if check is not None else [])
        wanted = [(i, mapping[params[i]]) for i in range(len(parts))
                  if i < len(params) and self.wants(mapping[params[i]])]
        if not wanted:
            return
        inliner = RuleInliner(self, rule, mapping, seed=isinstance(g, gast.Constant), ans=target)
        for assign in pre:
            self.block.append(inliner.statement(assign))
        for i, operand in wanted:
            expr = inliner.expression(parts[i])
            if isinstance(expr, gast.Constant) and expr.value is None:
                continue
            self.accumulate(operand.id, expr)


def _reads(node, name: str) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for n in trees.walk(node))


def _value_reads(nodes, helpers: dict) -> set[str]:
    """The names ``nodes`` read for their value, not only as the argument whose shape
    alone a helper reads (``helpers``: see ``shape_arguments``)."""
    for_shape = {id(n) for n in shape_arguments(nodes, helpers)}
    return {n.id for n in nodes if type(n) is gast.Name and type(n.ctx) is gast.Load and
            id(n) not in for_shape}


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


__all__ = ["Reverse", "runtime"]


def _grows_a_list(stmt) -> bool:
    """Does ``stmt`` call ``.append``, ``.extend`` or ``.insert`` (a list grows)?"""
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and
               n.func.attr in ("append", "extend", "insert") for n in trees.walk(stmt))
