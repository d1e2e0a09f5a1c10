"""Structural zeros: a rule whose value is unused on the path taken adds nothing.

A value unused on the path taken (a branch not taken, a loop's last pass, an item no one
unpacks) has a sensitivity that nothing was added to. Its rule would add ``0 * slope``,
NaN where the slope is NaN or infinite (``np.sqrt`` at 0). JAX and PyTorch add nothing.

The reverse sweep is built first with each rule that multiplies a sensitivity by a slope
in a provisional guard. Then a dataflow analysis, iterated to a fixed point over the
sweep's loops, says for each sensitivity at each point whether it is surely zero (nothing
added since the start or its last reset), surely added to (on every path), or maybe. A
guard is dropped where it is surely added to (the code is main's), its rule is left out
where it is surely zero, and it stays, as ``if got_y:``, where it is maybe. ``got_y`` is
set where ``s_y`` is added to: ``True``, or ``got_y or got_z`` where the term moves
``s_z`` on as it is (a copy, a sum, an unpacked item), and ``False`` where it is reset.
A term reading an item of a list, dict or tuple (``s_ys[-1]``, ``s_d['a']``), which item
may be known only when it runs, sets ``got_y = added_to(s_ys[-1])``: the structure's
zeros hold ``NOTHING`` until a term is added to an item.

>>> import numpy as np
>>> from s2sad.pipeline import compile_source
>>> def f(x):
...     y = np.sqrt(x)
...     if x > 0:
...         z = x * 3.0
...     else:
...         z = y
...     return z
>>> print(compile_source(f, wrt=(0,), arg_descriptors=("float",)))
import numpy as np
<BLANKLINE>
def grad_f(x):
    s_x, s_y = [0.0] * 2
    got_y = False
    y = np.sqrt(x)
    cond_1 = x > 0
    s_z = 1.0
    if cond_1:
        s_x = 3.0 * s_z
    else:
        s_y = s_z
        got_y = True
    if got_y:
        s_x += s_y * 0.5 / y
    return float(s_x)
"""

from __future__ import annotations

import gast

from .. import trees
from ..runtime import added_to
from ..trees import located
from .tape import _RESET

ZERO, SURE, MAYBE = "zero", "sure", "maybe"
_GUARD = "__s2sad_guard_"   # a provisional guard's test: `if __s2sad_guard_3:`
_LAZY = "__s2sad_lazy_"     # a choice made once the guards are known


def _join(a: str, b: str) -> str:
    """Where two paths meet."""
    return a if a == b else MAYBE


def _add(a: str, b: str) -> str:
    """A sensitivity in state ``a`` after a term in state ``b`` is added to it."""
    if SURE in (a, b):
        return SURE
    if a == ZERO:
        return b
    return a if b == ZERO else MAYBE


class StructuralZeros:
    """The mixin of :class:`.reverse.Reverse` that places the guards (see the module)."""

    def init_zeros(self):
        self.candidates: dict[int, tuple] = {}  # id of a provisional guard -> (index, name)
        # id of a statement adding to s_name -> (name, the sensitivities its term moves
        # on: names or (name, item); None: no structural zero), and for `a, b = p` (p's
        # term `(s_a, s_b)`), each item's name (None: 0.0)
        self.additions: dict[int, tuple] = {}
        self.sources = None   # (while a rule is put in: what its terms move on)
        self.items = None
        self.in_candidate = None  # (the index of the provisional guard being filled)
        self.guarded_sure: dict[str, set] = {}  # name -> guards that added to it (no `if`)
        self.lazies: list = []  # (guards, plain form, guarded form) of each lazy choice
        self.kept: set[int] = set()  # indexes of the guards found needless (unwrapped)
        # id of a statement adding an item of a structure's sensitivity to s_name -> (the
        # structure, the item: `s_ys[-1]`), and (while it is put in) that of the one being
        self.item_terms: dict[int, tuple] = {}
        self.item_term = None
        self.checked: set[str] = set()  # structures whose items' sensitivities are tested
        self.nothings: dict[int, str] = {}  # id of an item's 0.0 (`s_d['a'] = 0.0`) -> whole

    # --- while the sweep is built ------------------------------------------------------------

    def may_guard(self, name: str, value) -> bool:
        """Is ``name = value``'s rule one to put in a provisional guard: a call, its slope
        multiplying ``s_name``, its differentiated operands numbers or arrays?"""
        from .resolve import classify, names_in
        if name in self.structured or name in self.shaped or self.kind(name).container or \
                isinstance(value, gast.Name) or name == self.returned:
            return False
        if classify(value, self.source, self.local_names).kind != "call":
            return False
        return all(self.kind(n).numeric for n in names_in(value) if n in self.active)

    def guarded_rule(self, name: str, emit) -> None:
        """``emit()`` puts ``name``'s rule in ``self.block``: put it in a provisional guard."""
        start, index = len(self.block), len(self.candidates)
        self.in_candidate, self.sources = index, (name,)
        try:
            emit()
        finally:
            self.in_candidate, self.sources = None, None
        chunk = self.block[start:]
        if not chunk:
            return
        if name in self.structured or name in self.shaped:  # (found out by the rule)
            self.kept.add(index)
            return
        del self.block[start:]
        # (a check of an operand, `check_no_function(f, ...)`, runs whatever the guard finds)
        self.block.extend(s for s in chunk if isinstance(s, gast.Expr))
        chunk = [s for s in chunk if not isinstance(s, gast.Expr)]
        if not chunk:
            return
        guard = gast.If(gast.Name(f"{_GUARD}{index}", gast.Load(), None, None), chunk, [])
        self.candidates[id(guard)] = (index, name)
        self.block.append(guard)

    def note_addition(self, name: str, stmt) -> None:
        self.additions[id(stmt)] = (name, self.sources, self.items)
        if self.item_term is not None:
            self.item_terms[id(stmt)] = self.item_term

    def item_addition(self, whole: str, item, add) -> None:
        """``add()`` adds ``item``, an item of ``s_whole`` (``s_ys[-1]``), to a sensitivity:
        where ``s_whole`` is not tracked, whether it got anything is asked when it runs."""
        self.item_term = (whole, item)
        try:
            add()
        finally:
            self.item_term = None

    def note_sure(self, name: str) -> None:
        """``s_name`` is added to outside any ``if`` (or in a provisional guard)."""
        if self.in_candidate is None:
            self.sure.add(name)
        elif name not in self.sure:
            self.guarded_sure.setdefault(name, set()).add(self.in_candidate)

    def maybe_placeholder(self, target: str) -> bool | None:
        """Is ``s_target`` surely added to (False) or not yet (True) at a rule reading it;
        None where that depends on guards not yet known."""
        if target in self.sure:
            return False
        return None if target in self.guarded_sure else True

    def lazy(self, guards, plain, guarded, name=None):
        """A choice made once the guards are known: ``plain`` where one of ``guards`` (that
        added to a sensitivity) is found needless, else ``guarded``. With ``guards`` None:
        ``plain`` where no guard stays or ``s_name`` is surely added to there."""
        self.lazies.append((guards if guards is None else frozenset(guards), plain, guarded,
                            name))
        return gast.Call(gast.Name(f"{_LAZY}{len(self.lazies) - 1}", gast.Load(), None, None),
                         [], [])

    # --- once it is built ------------------------------------------------------------------

    def settle_zeros(self, stmts: list) -> list:
        """Analyze the sweep, then drop, keep or unwrap each provisional guard and set the
        flags the kept ones test."""
        if not self.candidates and not self.lazies:
            return stmts
        self._module = gast.Module(stmts, [])
        self._untracked = self._find_untracked(stmts)
        self._itemized = {name for name, _, items in self.additions.values()
                          if items is not None}
        self._check_items()
        self._forced = self._unguardable()
        self._at: dict[int, dict] = {}  # id of a statement -> the state before it
        self._lazy_states: dict[int, str] = {}  # a lazy choice -> its name's state there
        start = {}
        self._walk(stmts, start)
        decisions = {}
        for key, (index, name) in self.candidates.items():
            decisions[key] = SURE if key in self._forced else \
                self._at.get(key, {}).get(name, ZERO)
            if decisions[key] == SURE:
                self.kept.add(index)
        for key, starts in self._startable.items():  # (of the guards that stay)
            if decisions[key] == MAYBE:
                self.array_starts.update(starts)
        self.changed = any(d != SURE for d in decisions.values())
        flags = self._flags(stmts, decisions)  # (forced guards: unwrapped)
        self.checked = {ref.whole for key, (name, sources, _) in self.additions.items()
                        if name in flags and key in self._at for ref in sources or ()
                        if isinstance(ref, _Checked) and self._at[key][ref] == MAYBE}
        if self.checked:  # (an item's sensitivity cleared, or put back, holds NOTHING)
            _Nothings(self).visit(gast.Module(stmts, []))
        out = self._rewrite(stmts, decisions, flags)
        self.flags = flags
        return _Lazies(self).visit(gast.Module(out, [])).body if self.lazies else out

    def _find_untracked(self, stmts) -> set:
        """Names whose sensitivity something else than a recorded term or reset changes
        (an item set, an append): never taken as surely zero."""
        names = {s: n for n, s in self.namer._sens.items()}
        out = {self.returned} | set(self.structured) | set(self.shaped)
        for node in trees.walk(gast.Module(stmts, [])):
            targets = node.targets if isinstance(node, gast.Assign) else \
                [node.target] if isinstance(node, (gast.AugAssign, gast.For)) else []
            for target in targets:
                for part in trees.walk(target):
                    if isinstance(part, gast.Name) and part.id in names and \
                            id(node) not in self.additions:
                        out.add(names[part.id])
            if isinstance(node, gast.Call) and any(
                    isinstance(n, gast.Name) and n.id in names and
                    isinstance(node.func, gast.Attribute) for n in trees.walk(node.func)):
                out |= {names[n.id] for n in trees.walk(node.func)
                        if isinstance(n, gast.Name) and n.id in names}
        # (a list or tuple is tracked item by item, where only unpackings add to it, of one
        # length, or not at all)
        lengths: dict[str, set] = {}
        for name, sources, items in self.additions.values():
            lengths.setdefault(name, set()).add(None if items is None else len(items))
        out |= {name for name, sizes in lengths.items() if len(sizes) > 1 or
                None in sizes and self.kind(name).container}
        return out

    def _check_items(self) -> None:
        """A term reading an item of a structure (`s_ys[-1]`, `s_d['a']`) not tracked item by
        item may be zero: its flag asks ``added_to(s_ys[-1])``, true once a term was added
        to it (the structure's 0.0 is :data:`~s2sad.runtime.NOTHING` until then). For a
        number, a structure, or a value of unknown kind (not an array: its zeros are an
        array). Not on a compiled target, whose lists hold plain floats."""
        if self.imports.backend.compiler:
            return
        for key, (whole, item) in self.item_terms.items():
            name, sources, items = self.additions[key]
            kind = self.kind(name)
            if whole not in self._itemized and (kind.tag in ("scalar", "any") or kind.container):
                self.additions[key] = (name, (_Checked(whole, item),), items)

    def _unguardable(self) -> set:
        """The provisional guards left out whatever the analysis finds: on a compiled
        target (numba), those adding to an array's sensitivity (left 0.0 where the guard
        is skipped, it would have two types there, where a name has one), but where each
        array's sensitivity they read or add to can start as zeros shaped like an array
        argument (``array_starts``: :meth:`_zero_init` starts them so)."""
        self.array_starts: dict[str, str] = {}  # a name -> the argument shaped like it
        self._startable: dict[int, dict] = {}  # a guard not forced -> its array_starts
        if not self.imports.backend.compiler:
            return set()
        params = self._parameters()
        rebound = {n.id for n in trees.walk(self.tree) if isinstance(n, gast.Name) and
                   isinstance(n.ctx, gast.Store)}
        arrays = {p: self.kind(p) for p in params if self.kind(p).tag == "array" and
                  p not in rebound}

        def like(name):  # (the array argument whose shape the array ``name`` has)
            if name in params:
                return name if name in arrays else None
            kind = self.kind(name)
            return kind.shape if kind.tag == "array" and kind.shape in arrays and \
                kind.ndim == arrays[kind.shape].ndim else None
        out = set()
        for guard in trees.walk(self._module):
            key = id(guard)
            if key not in self.candidates:
                continue
            added = {self.additions[id(n)][0] for n in trees.walk(guard)
                     if id(n) in self.additions}
            shaped = {n for n in added | {self.candidates[key][1]}
                      if self.kind(n).tag != "scalar"}
            if not any(self.kind(n).tag != "scalar" for n in added):
                continue
            if all(like(n) for n in shaped):
                self._startable[key] = {n: like(n) for n in shaped}
            else:
                out.add(key)
        return out

    def _state(self, state: dict, ref) -> str:
        if isinstance(ref, _Checked):  # (known when it runs, unless the whole is known)
            whole = self._whole(state, ref.whole)
            return MAYBE if whole == ZERO and ref.whole in self._untracked else whole
        name = ref[0] if isinstance(ref, tuple) else ref
        if name in self._untracked:
            return SURE
        if isinstance(ref, tuple):  # (an item: of a tuple tracked whole, the whole's)
            return state.get(ref if name in self._itemized else name, ZERO)
        items = [v for k, v in state.items() if isinstance(k, tuple) and k[0] == ref] \
            if ref in self._itemized else ()
        if items:  # (a tuple tracked item by item, read whole)
            return SURE if SURE in items else MAYBE if MAYBE in items else ZERO
        return state.get(ref, ZERO)

    def _whole(self, state: dict, name: str) -> str:
        """The state of ``s_name`` as a whole; of one not tracked, that of the terms added
        to all its items (``add_sens(s_ys, ...)``): SURE where a term was on every path,
        else MAYBE (its items may have been added to one by one)."""
        if name not in self._untracked:
            return self._state(state, name)
        if name == self.returned or name in self.shaped:  # (its seed, its zeros)
            return SURE
        return SURE if state.get(name) == SURE else MAYBE if state.get(name) else ZERO

    def _walk(self, stmts: list, state: dict) -> dict:
        for stmt in stmts:
            if id(stmt) in self._forced:  # (unwrapped whatever the states)
                state = self._walk(stmt.body, state)
            elif id(stmt) in self.candidates:
                name = self.candidates[id(stmt)][1]
                now = self._note(stmt, state, [name])[name]
                if now == SURE:
                    state = self._walk(stmt.body, state)
                elif now == MAYBE:
                    inside = dict(state)
                    inside[name] = SURE
                    state = _joined(state, self._walk(stmt.body, inside))
            elif isinstance(stmt, gast.If):
                body = self._walk(stmt.body, dict(state))
                state = _joined(body, self._walk(stmt.orelse, dict(state)))
            elif isinstance(stmt, (gast.For, gast.While)):
                head = dict(state)
                while True:  # (a pass may run no, one or many times: a fixed point)
                    new = _joined(state, self._walk(stmt.body, dict(head)))
                    if new == head:
                        break
                    head = new
                state = _joined(head, self._walk(stmt.orelse, dict(head)))
            elif id(stmt) in self.additions:
                name, sources, items = self.additions[id(stmt)]
                if name in self._untracked:  # (a term for the whole: its items got one,
                    term = SURE if sources is None or items is not None or \
                        _keeps_nothing(stmt.value, self.imports) else ZERO
                    for ref in () if term == SURE else sources:  # (or moved on as they were)
                        term = _add(term, self._whole(state, ref) if isinstance(ref, str)
                                    else self._state(state, ref))
                    state[name] = _add(state.get(name, ZERO), term)
                    continue
                self._note(stmt, state, [name, *(sources or ())])
                for node in trees.walk(stmt.value):
                    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                            node.func.id.startswith(_LAZY):
                        index = int(node.func.id[len(_LAZY):])
                        if self.lazies[index][3] is not None:
                            self._lazy_states[index] = self._state(state, self.lazies[index][3])
                if items is not None:
                    for i, item in enumerate(items):
                        term = ZERO if item is None else self._state(state, item)
                        state[(name, i)] = _add(state.get((name, i), ZERO), term)
                else:
                    term = SURE if sources is None else ZERO
                    for ref in sources or ():
                        term = _add(term, self._state(state, ref))
                    state[name] = _add(state.get(name, ZERO), term)
            elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Name) and \
                    stmt.value.id.startswith(_RESET + "pre_"):
                name = self.resets[int(stmt.value.id.split("_")[-1])]
                self._note(stmt, state, [name])
                state[name] = ZERO
                if name in self._itemized:
                    for key in [k for k in state if isinstance(k, tuple) and k[0] == name]:
                        state[key] = ZERO
            else:  # (another compound statement: each of its blocks may run, or not)
                for field in ("body", "orelse", "finalbody"):
                    if isinstance(getattr(stmt, field, None), list):
                        state = _joined(state, self._walk(getattr(stmt, field), dict(state)))
        return state

    def _note(self, stmt, state: dict, refs: list) -> dict:
        """Keep (and give) the states of ``refs`` before ``stmt``: the last pass's, at the
        fixed point."""
        self._at[id(stmt)] = {ref: self._state(state, ref) for ref in refs}
        return self._at[id(stmt)]

    def _flags(self, stmts, decisions) -> dict:
        """The flags needed: for each kept guard's name, and in turn for each name whose
        sensitivity a term moves on to a flagged one where it may be zero."""
        needed = [self.candidates[key][1] for key, d in decisions.items() if d == MAYBE]
        needed = list(dict.fromkeys(needed))
        into_name: dict[str, list] = {}
        for key, (into, sources, items) in self.additions.items():
            if sources is not None and key in self._at:
                into_name.setdefault(into, []).append((key, sources))
        for name in needed:
            for key, sources in into_name.get(name, ()):
                state = self._at[key]  # (the states of the names it reads, kept by _note)
                if state[name] == SURE:
                    continue  # (its flag is set already: no term's flag needed)
                for ref in sources:
                    if not isinstance(ref, (tuple, _Checked)) and ref not in needed and \
                            state[ref] == MAYBE:
                        needed.append(ref)
        return {name: self.namer.claim("got_" + name) for name in needed}

    def _adds_zero(self, key) -> bool:
        """Does statement ``key`` move on only sensitivities that are surely zero there?"""
        name, sources, items = self.additions.get(key, (None, None, None))
        return bool(sources) and items is None and key in self._at and \
            all(self._at[key][ref] == ZERO for ref in sources)

    def _flag_value(self, key, flags):
        """What ``got_name`` becomes after the statement ``key`` adds to ``s_name``: None
        where it stays as it was."""
        name, sources, items = self.additions[key]
        state = self._at.get(key)
        if state is None or state[name] == SURE:
            return None
        if items is not None or sources is None:
            return gast.Constant(True, None)
        terms = []
        for ref in sources:
            now = state[ref]
            if isinstance(ref, _Checked):
                terms.append(ref)
                continue
            if now == SURE or now == MAYBE and (isinstance(ref, tuple) or ref not in flags):
                return gast.Constant(True, None)
            if now == MAYBE:
                terms.append(ref)
        if not terms:
            return None
        if state[name] == MAYBE:
            terms.insert(0, name)
        loads = []
        for ref in terms:
            if isinstance(ref, _Checked):
                loads.append(gast.Call(self.helper(added_to), [trees.clone(ref.item)], []))
            else:
                loads.append(gast.Name(flags[ref], gast.Load(), None, None))
        return loads[0] if len(loads) == 1 else gast.BoolOp(gast.Or(), loads)

    def _rewrite(self, stmts: list, decisions: dict, flags: dict) -> list:
        out = []
        for stmt in stmts:
            decision = decisions.get(id(stmt))
            if decision == ZERO or self._adds_zero(id(stmt)):
                continue
            if decision is not None:  # (the rule's statements: where the guard is)
                stmt.body = [located(s, stmt) for s in stmt.body]
            for field in ("body", "orelse"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, self._rewrite(getattr(stmt, field), decisions, flags))
            if decision == SURE:
                out.extend(stmt.body)
                continue
            if decision == MAYBE:
                stmt.test = gast.Name(flags[self.candidates[id(stmt)][1]], gast.Load(), None,
                                      None)
            out.append(stmt)
            if id(stmt) in self.additions and self.additions[id(stmt)][0] in flags:
                value = self._flag_value(id(stmt), flags)
                name = self.additions[id(stmt)][0]
            elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Name) and \
                    stmt.value.id.startswith(_RESET + "pre_"):
                name = self.resets[int(stmt.value.id.split("_")[-1])]
                value = gast.Constant(False, None) if name in flags and id(stmt) in self._at \
                    and self._at[id(stmt)][name] != ZERO else None
            else:
                value = None
            if value is not None:
                out.append(located(gast.Assign([gast.Name(flags[name], gast.Store(), None,
                                                          None)], value, None), stmt))
        return out


def _keeps_nothing(value, imports) -> bool:
    """Is ``value`` (a term) made by a helper that leaves the items no part was read of as
    ``NOTHING`` (``index_grad``: zeros_like_structure's, a slice's part put in)?"""
    alias = imports.helpers.get("index_grad")
    return alias is not None and any(isinstance(n, gast.Name) and n.id == alias
                                     for n in trees.walk(value))


class _Checked:
    """A term's item of a structure, tested when it runs: ``added_to(s_ys[-1])``."""

    __slots__ = ("whole", "item")

    def __init__(self, whole: str, item):
        self.whole, self.item = whole, item


def _joined(a: dict, b: dict) -> dict:
    return {key: _join(a.get(key, ZERO), b.get(key, ZERO)) for key in set(a) | set(b)}


class _Nothings(trees.Transformer):
    """``NOTHING`` for the ``0.0`` of an item (``s_d['a'] = 0.0``, ``s_ys.append(0.0)``)
    where a flag tests the items of that structure."""

    def __init__(self, sweep):
        self.sweep = sweep

    def _nothing(self, node) -> bool:
        return self.sweep.nothings.get(id(node)) in self.sweep.checked

    def visit_Constant(self, node):
        if not self._nothing(node):
            return node
        return gast.Name(self.sweep.imports.runtime_constant("NOTHING"), gast.Load(), None,
                         None)

    def visit_Assign(self, node):
        if self._nothing(node):
            node.value = gast.Name(self.sweep.imports.runtime_constant("NOTHING"), gast.Load(),
                                   None, None)
        return self.generic_visit(node)


class _Lazies(trees.Transformer):
    """Each lazy choice made: its plain form where a guard of its name was found needless."""

    def __init__(self, sweep):
        self.sweep = sweep

    def visit_Call(self, node):
        if isinstance(node.func, gast.Name) and node.func.id.startswith(_LAZY):
            index = int(node.func.id[len(_LAZY):])
            guards, plain, guarded, name = self.sweep.lazies[index]
            if guards is None:
                sweep = self.sweep
                chosen = plain if not getattr(sweep, "changed", False) or \
                    sweep._lazy_states.get(index) == SURE else guarded
            else:
                chosen = plain if guards & self.sweep.kept else guarded
            return self.visit(trees.clone(chosen))
        return self.generic_visit(node)
