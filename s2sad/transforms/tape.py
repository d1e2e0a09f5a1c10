"""The tape: the forward sweep pushes each value a statement overwrites, the reverse sweep
pops it back.

``x = x * w`` in a loop, normalized to ``t_1 = x * w; x = t_1``, becomes ``t_1 = x * w;
stack.append(x); x = t_1`` in the forward sweep, and ``x = stack.pop()`` before its adjoint
in the reverse sweep, last value first. So each adjoint reads the values its statement
read: the tape of reverse-mode AD (here one Python list, ``stack``). Only a value that is
overwritten and read by the reverse sweep is saved (``_carried``). A ``while`` loop (or a
``for`` that may ``break``) counts its trips (``trips_1``), so the reverse loop runs as many.

Restores and resets are placed as markers while the reverse sweep is built (``_RESTORE``,
``_RESET``) and made statements once it is known what the forward sweep saved.
"""

from __future__ import annotations


import gast

from .. import trees
from ..runtime import item_or_missing, restore_item, shape_of, zeros_like_structure
from ..trees import clone
from .resolve import is_append, is_setitem, statement_parts


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
            starts = getattr(self.reverse, "array_starts", {})
            if where == "pre" and name in starts and not structured:  # (numba: zeros of
                value = gast.Call(self.reverse.helper(zeros_like_structure),  # its kind)
                                  [self.reverse.load(starts[name])], [])
            elif where == "pre" and not structured:
                value = gast.Constant(0.0, None)
            elif where == "post" and structured:
                value = self.reverse.zeros_of(name, restored=True)
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
                    call = gast.Call(self.reverse.helper(restore_item), [
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
                names = [n for n in [stmt.target.id]
                         if n in self.reverse.carried and n in self.reverse.needed]
            else:  # (what its forward sweep pushed: a name it sets for the first time, in
                # a branch, has no value before to restore)
                names = self.reverse.pushed.get(key, [])
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


class Tape:
    """The forward sweep of :class:`~s2sad.transforms.reverse.Reverse` and its tape."""

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
            set_before = set(self.perhaps)  # (names a statement before this one may set)
            if isinstance(stmt, gast.If):
                body = self.forward_block(stmt.body, in_loop, set(defined))
                orelse = self.forward_block(stmt.orelse, in_loop, set(defined))
                out.append(gast.If(stmt.test, body or [gast.Pass()], orelse))
                if top:  # defined after the `if` when both branches assign it
                    both = _definite(stmt.body) & _definite(stmt.orelse)
                    self.maybe |= (_stored(stmt.body) | _stored(stmt.orelse)) - both - defined
                    defined.update(both)
                # (a value it may set, overwritten after it, is saved: see `perhaps`)
                self.perhaps |= (_stored(stmt.body) | _stored(stmt.orelse)) - defined
            elif isinstance(stmt, gast.While):
                body = self.forward_block(stmt.body, True, set(defined))
                self.count_trips(stmt, body, out)
                out.append(gast.While(stmt.test, body, []))
                self.perhaps |= _stored(stmt.body) - defined  # (a loop may set it, or not)
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
                self.perhaps |= (_stored(stmt.body) | {target}) - defined  # (may set it)
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
                        part = gast.Call(self.helper(item_or_missing),
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
                            (name in defined or in_loop or name in self.perhaps):
                        if name in self.shape_only and name in self.one_shape:
                            continue  # any of its values has the shape the sweep reads
                        if name not in defined and not in_loop:  # (set by a branch or a
                            self.early_none.add(name)  # loop before, or not: None first)
                        if name in self.shape_only and self.kind(name).tag == "array":
                            out.append(self.push_value(gast.Call(
                                self.helper(shape_of), [self.load(name)], [])))
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
                shape_alias = self.imports.helpers.get("shape_of")
                unbound = sorted({n for s in out[before:]
                                  for n in _pushed(s, self.stack, shape_alias)}
                                 - defined - set(self.trips.values()))
                # set in one branch only: None at the top, where it cannot undo that branch
                # (or set by one before it: None at the top, not here, where it would undo it)
                earlier = {n for n in unbound if n in self.maybe or n in set_before}
                self.early_none.update(earlier)
                defined.update(earlier)
                unbound = [n for n in unbound if n not in earlier]
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
